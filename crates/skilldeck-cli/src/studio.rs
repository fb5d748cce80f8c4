//! `skilldeck studio`: the Studio's web pages over the same sources as
//! every command. The application is the `skilldeck-studio` crate; this
//! binds the address (before the sources are opened), then serves and says
//! where it listens.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use clap::Args;
use skilldeck::store::SkillStore;
use skilldeck::{AgentProfile, CatalogBuilder, LiveCatalog};
use skilldeck_studio::{Access, Studio};

use crate::http::ConnectionArgs;

/// `skilldeck studio`'s own flags.
#[derive(Args, Debug)]
pub(crate) struct StudioArgs {
    /// Where to listen (port 0 picks a free one); beyond loopback only with a token.
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:7676")]
    listen: String,
    /// The token every request must carry beyond loopback (default: $SKILLDECK_TOKEN): a
    /// browser opens http://ADDR/?token=TOKEN once and is given a session.
    #[arg(long, value_name = "TOKEN")]
    token: Option<String>,
    #[command(flatten)]
    connection: ConnectionArgs,
}

/// The Studio's listening socket and token, bound before the sources are
/// opened: a port in use is exit 2 with nothing made (a `--store` file
/// included).
pub(crate) struct Listener {
    socket: std::net::TcpListener,
    token: Option<skilldeck_studio::Token>,
    limits: skilldeck_studio::ConnectionLimits,
}

/// Binds `args`' address.
///
/// # Errors
///
/// The address is malformed, beyond loopback without a token, or cannot be bound.
pub(crate) fn bind(args: &StudioArgs) -> anyhow::Result<Listener> {
    let token = crate::http::token(args.token.as_deref())?;
    let addr = crate::http::listen_addr("--listen", &args.listen, token.is_some())?;
    let socket = std::net::TcpListener::bind(addr).with_context(|| format!("cannot listen on {addr}"))?;
    socket.set_nonblocking(true).context("cannot set the listening socket up")?;
    Ok(Listener { socket, token, limits: args.connection.limits() })
}

/// Serves the Studio on `listener` until the process is interrupted.
pub(crate) fn run(
    listener: Listener,
    builder: CatalogBuilder,
    store: Option<Arc<dyn SkillStore>>,
    profiles: Vec<AgentProfile>,
    verbose: bool,
) -> anyhow::Result<ExitCode> {
    let Listener { socket, token, limits } = listener;
    let live = Arc::new(LiveCatalog::new(builder));
    let catalog = live.snapshot();
    crate::check_store(&catalog)?;
    crate::warn_summary(catalog.warnings(), verbose);
    if store.is_none() {
        tracing::warn!(target: crate::roots::LOG_TARGET, "no --store: the Studio is read-only (start it with --store FILE.sqlite to save)");
    }
    let studio = Studio::new(live, store).with_file_profiles(profiles);
    let runtime =
        tokio::runtime::Builder::new_multi_thread().enable_all().build().context("cannot start the runtime")?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(socket).context("cannot serve on the bound socket")?;
        let local = listener.local_addr()?;
        // The one line tests and people read: where to point a browser.
        crate::output::say!("skilldeck studio: listening on http://{local}/");
        let interrupted = async {
            let _ = tokio::signal::ctrl_c().await;
        };
        let access = Access::new(local, token);
        skilldeck_studio::serve(listener, studio, access, limits, interrupted).await.context("serve failed")
    })?;
    runtime.shutdown_timeout(Duration::from_millis(200));
    Ok(ExitCode::SUCCESS)
}
