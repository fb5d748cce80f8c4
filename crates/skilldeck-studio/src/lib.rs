//! skilldeck's Studio: the web pages where people author skills and give
//! them to agents (Insika's Studio, reference §9.5). Its one job is to put
//! the engine's authoring commands behind server-rendered HTML forms.
//!
//! It depends on the engine (`skilldeck`) and on a store only through the
//! [`SkillStore`] trait, never on a driver: the program that starts it (the
//! `skilldeck studio` command) opens the store. The engine knows nothing of
//! HTTP or HTML; every rule the pages apply (the checks and messages of a
//! save, who may use a skill, what an agent sees) is the engine's.
//!
//! Pages work without JavaScript; one small script (`/static/studio.js`)
//! adds validation as you type. Every POST is checked for a double-submit
//! CSRF token, every request for its `Host` and `Origin`, bodies over
//! [`MAX_BODY_BYTES`] are refused with 413, and with a token (required
//! beyond loopback) every request must carry it, or the cookie of a
//! session a `?token=` visit opened. In front of all that, the connection
//! guard `serve --http` has too (`skilldeck-http`): head, body and write
//! deadlines and connection caps ([`ConnectionLimits`]).
//!
//! # Example
//!
//! ```no_run
//! use std::sync::Arc;
//! use skilldeck::store::{MemoryStore, SkillStore};
//! use skilldeck::{Catalog, LiveCatalog};
//! use skilldeck_studio::{Access, Studio};
//!
//! # async fn run() -> std::io::Result<()> {
//! let store: Arc<dyn SkillStore> = Arc::new(MemoryStore::default());
//! let live = Arc::new(LiveCatalog::new(Catalog::builder().root("skills").store(store.clone())));
//! let studio = Studio::new(live, Some(store));
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! let access = Access::new(listener.local_addr()?, None);
//! let limits = skilldeck_studio::ConnectionLimits::default();
//! skilldeck_studio::serve(listener, studio, access, limits, std::future::pending()).await
//! # }
//! ```

use std::future::Future;
use std::sync::Arc;

use axum::Router;
use axum::routing::{get, post};
use skilldeck::store::SkillStore;
use skilldeck::{AgentProfile, LiveCatalog};

mod flash;
mod follow;
mod form;
mod guard;
mod markdown;
mod pages;
mod session;
mod source;
mod views;

pub use follow::{Following, STORE_POLL};
pub use guard::{Access, CSRF_COOKIE, MAX_BODY_BYTES};
pub use skilldeck_http::{ConnectionLimits, Token, TokenError};
pub use source::{TEMPLATE_NAME, reconstruct, template};

/// Skills per page of the skill list.
pub const PAGE_SIZE: usize = 100;

/// The Studio over one live catalog and, to save anything, its store.
///
/// Cloning is cheap: every clone shares the catalog and the store.
#[derive(Clone)]
pub struct Studio {
    inner: Arc<Inner>,
}

struct Inner {
    live: Arc<LiveCatalog>,
    store: Option<Arc<dyn SkillStore>>,
    /// Profiles from an `--agents` file: shown and previewed, never written.
    file_profiles: Vec<AgentProfile>,
}

impl Studio {
    /// The Studio over `live`, whose builder should read `store` (so a
    /// save shows on the next page). Without a store the pages are
    /// read-only: a save says the Studio needs one.
    pub fn new(live: Arc<LiveCatalog>, store: Option<Arc<dyn SkillStore>>) -> Studio {
        Studio { inner: Arc::new(Inner { live, store, file_profiles: Vec::new() }) }
    }

    /// Adds profiles read from elsewhere (an `--agents` file): listed and
    /// previewed beside the store's, which win on a shared id; the Studio
    /// never writes them back to their file.
    pub fn with_file_profiles(self, profiles: Vec<AgentProfile>) -> Studio {
        let inner = Inner { live: self.inner.live.clone(), store: self.inner.store.clone(), file_profiles: profiles };
        Studio { inner: Arc::new(inner) }
    }

    /// The application: every route, behind the [`Access`] checks (bodies
    /// read within [`ConnectionLimits::BODY_TIMEOUT`]).
    pub fn router(&self, access: Access) -> Router {
        use pages::{agents, editor, files, history, skills};
        let routes = Router::new()
            .route("/", get(pages::root))
            .route("/skills", get(skills::list).post(editor::save_shared))
            .route("/skills/new", get(editor::new_skill))
            .route("/skills/{name}", get(editor::edit_shared))
            .route("/skills/{name}/agents", post(editor::set_agents))
            .route("/skills/{name}/specialize", post(editor::specialize))
            .route("/skills/{name}/delete", post(skills::delete))
            .route("/skills/{name}/rename", post(skills::rename))
            .route("/skills/{name}/files", get(files::files))
            .route("/skills/{name}/files/{*path}", get(files::file))
            .route("/skills/{name}/versions/{index}", get(history::version))
            .route("/skills/{name}/versions/{index}/restore", post(history::restore))
            .route("/agents", get(agents::agents).post(agents::add_agent))
            .route("/agents/{id}", get(agents::agent))
            .route("/agents/{id}/delete", post(agents::delete_agent))
            .route("/agents/{id}/skills", post(agents::update_allowlist))
            .route("/agents/{id}/skills/{name}", get(editor::edit_own).post(editor::save_own))
            .route("/agents/{id}/skills/{name}/delete", post(editor::remove_own))
            .route("/agents/{id}/skills/{name}/versions/{index}", get(history::own_version))
            .route("/agents/{id}/skills/{name}/versions/{index}/restore", post(history::own_restore))
            .route("/validate", post(pages::validate))
            .route("/static/studio.js", get(pages::script))
            .route("/static/studio.css", get(pages::style))
            .fallback(pages::not_found)
            .with_state(self.clone());
        guard::wrap(routes, access)
    }
}

/// Serves the Studio on `listener` under `limits` (the connection guard
/// `serve --http` has too) until `shutdown` completes.
///
/// # Errors
///
/// None yet: every connection's failure is that connection's. The result
/// is kept for errors serving may come to have.
pub async fn serve(
    listener: tokio::net::TcpListener,
    studio: Studio,
    access: Access,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let app = studio.router(access.body_timeout(limits.body_timeout));
    let following = studio.follow();
    skilldeck_http::serve(listener, app, limits, shutdown).await;
    drop(following);
    Ok(())
}
