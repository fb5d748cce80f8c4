//! The project from the client's `roots`: a server started with no root
//! serves the conventional places of a project ([`ConventionalRoots`]), and
//! a client that offers the `roots` capability says which project it works
//! in. After `notifications/initialized`, and again on each
//! `notifications/roots/list_changed`, the server asks `roots/list` and,
//! when the places that gives differ from those it walks, walks them instead
//! and tells its clients that the lists changed.
//!
//! Only a server told to ([`ClientRoots::Follow`]) does this: roots given
//! explicitly always win, and a server shared by several clients (HTTP)
//! cannot follow each one's project.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::{Peer, RoleServer};
use skilldeck::ConventionalRoots;
use tokio::sync::watch;

use crate::server::{Options, SkillServer};

/// How long the client has to answer `roots/list` before the project stays.
const ASK_TIMEOUT: Duration = Duration::from_secs(10);

/// Whether the client's roots choose the project whose skills are served.
///
/// ```
/// use skilldeck_mcp::{ClientRoots, Options};
///
/// // Serve the conventional places of the client's project and of this user.
/// let options = Options { client_roots: ClientRoots::Follow { home: skilldeck::home_dir() }, ..Options::default() };
/// assert_ne!(options.client_roots, ClientRoots::Ignore);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ClientRoots {
    /// The roots stay those the server was built with.
    #[default]
    Ignore,
    /// The roots become the conventional places of the client's roots
    /// (`file://` URIs, in the client's order) and of `home`. Meant for a
    /// server with one client (stdio): every session of a shared server
    /// would move the one catalog. Clients on the `initialize` handshake
    /// offer roots; the 2026-07-28 era has none to offer.
    Follow {
        /// The user's home directory, for the user's places.
        home: Option<PathBuf>,
    },
}

/// What a server knows of its project: where its catalog looked, and the
/// roots it walks now, which the file watcher follows.
#[derive(Debug)]
pub(crate) struct Project {
    follow: ClientRoots,
    looked_in: Mutex<Arc<[PathBuf]>>,
    /// Sent each time the roots move; the watcher watches them instead.
    roots: watch::Sender<Arc<[PathBuf]>>,
    /// One `roots/list` and move at a time, in the order they were asked.
    asking: tokio::sync::Mutex<()>,
}

impl Project {
    pub(crate) fn new(options: &Options) -> Project {
        Project {
            follow: options.client_roots.clone(),
            looked_in: Mutex::new(options.looked_in.clone().into()),
            roots: watch::Sender::new(Arc::from([])),
            asking: tokio::sync::Mutex::default(),
        }
    }

    /// Where the current catalog looked for skills.
    pub(crate) fn looked_in(&self) -> Arc<[PathBuf]> {
        self.looked_in.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Records a move to `roots`, looked for in `looked_in`.
    pub(crate) fn moved(&self, roots: &[PathBuf], looked_in: &[PathBuf]) {
        *self.looked_in.lock().unwrap_or_else(PoisonError::into_inner) = looked_in.into();
        self.roots.send_replace(roots.into());
    }

    /// The roots each time they move (not the first ones).
    pub(crate) fn moves(&self) -> watch::Receiver<Arc<[PathBuf]>> {
        self.roots.subscribe()
    }
}

/// Asks `peer` for its roots and moves the project there, in a task of its
/// own: the answer comes in through the loop that runs the handler that
/// calls this. Nothing happens unless the server follows the client's roots
/// and the client offers them.
pub(crate) fn follow(server: &SkillServer, peer: Peer<RoleServer>) {
    let ClientRoots::Follow { home } = &server.project().follow else {
        return;
    };
    if peer.peer_info().is_none_or(|info| info.capabilities.roots.is_none()) {
        return;
    }
    let (server, home) = (server.clone(), home.clone());
    tokio::spawn(async move { ask(server, peer, home).await });
}

// Roots are deprecated in the 2026-07-28 era (SEP-2577), which has no
// handshake to ask them after; every client on the `initialize` handshake
// still offers them, and they are how a host says which project it is in.
#[allow(deprecated)]
async fn ask(server: SkillServer, peer: Peer<RoleServer>, home: Option<PathBuf>) {
    let _one_at_a_time = server.project().asking.lock().await;
    let listed = match tokio::time::timeout(ASK_TIMEOUT, peer.list_roots()).await {
        Ok(Ok(listed)) => listed.roots,
        Ok(Err(error)) => {
            tracing::warn!(%error, "the client did not list its roots; the project stays");
            return;
        }
        Err(_) => {
            tracing::warn!("the client did not list its roots within {ASK_TIMEOUT:?}; the project stays");
            return;
        }
    };
    let projects: Vec<PathBuf> = listed.iter().filter_map(|root| file_path(&root.uri)).collect();
    if projects.is_empty() {
        let uris: Vec<&str> = listed.iter().map(|root| root.uri.as_str()).collect();
        tracing::info!(roots = ?uris, "the client's roots name no local directory; the project stays");
        return;
    }
    let moving = server.clone();
    let moved = tokio::task::spawn_blocking(move || {
        let found = ConventionalRoots::find(&projects, home.as_deref());
        for outside in found.outside_project() {
            tracing::warn!("{outside}");
        }
        if same_place(&found, &moving.roots(), &moving.project().looked_in()) {
            return None;
        }
        let places = |paths: &[PathBuf]| paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ");
        let change = moving.set_roots(found.roots().to_vec(), found.searched().to_vec());
        match moving.is_empty() {
            false => {
                tracing::info!("the client's roots are {}: skills from {}", places(&projects), places(found.roots()))
            }
            true => tracing::warn!(
                "the client's roots are {}: no skills found; looked in {}",
                places(&projects),
                places(found.searched())
            ),
        }
        Some(change)
    })
    .await;
    match moved {
        Ok(Some(change)) => server.notify(change).await,
        Ok(None) => {}
        Err(error) => tracing::warn!(%error, "cannot walk the client's project; serving the previous catalog"),
    }
}

/// Whether `found` is where the server looks already: the same directories
/// (by real path: a host may name the project by a link to the working
/// directory), or, when there are none, the same places named.
fn same_place(found: &ConventionalRoots, roots: &[PathBuf], looked_in: &[PathBuf]) -> bool {
    let real = |paths: &[PathBuf]| -> Vec<PathBuf> {
        paths.iter().map(|path| std::fs::canonicalize(path).unwrap_or_else(|_| path.clone())).collect()
    };
    match found.roots().is_empty() {
        false => real(found.roots()) == real(roots),
        true => roots.is_empty() && found.searched() == looked_in,
    }
}

/// The local path of a `file://` URI (`file:///p`, `file://localhost/p`),
/// percent-decoded; none for any other URI.
fn file_path(uri: &str) -> Option<PathBuf> {
    let scheme = uri.get(..7).filter(|scheme| scheme.eq_ignore_ascii_case("file://"))?;
    let rest = &uri[scheme.len()..];
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    let path = rest.split(['?', '#']).next().unwrap_or_default();
    if !path.starts_with('/') {
        return None;
    }
    let bytes: Vec<u8> = percent_encoding::percent_decode_str(path).collect();
    local_path(bytes)
}

#[cfg(unix)]
fn local_path(bytes: Vec<u8>) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStringExt;
    Some(PathBuf::from(std::ffi::OsString::from_vec(bytes)))
}

/// `/C:/x` is `C:/x` on Windows.
#[cfg(not(unix))]
fn local_path(bytes: Vec<u8>) -> Option<PathBuf> {
    let text = String::from_utf8(bytes).ok()?;
    let drive = text.as_bytes().get(2) == Some(&b':');
    Some(PathBuf::from(if drive { &text[1..] } else { text.as_str() }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_project_named_through_a_link_is_the_same_place() {
        let tmp = tempfile::tempdir().expect("tmp");
        let project = tmp.path().join("project");
        std::fs::create_dir_all(project.join(".claude/skills")).expect("mkdir");
        std::os::unix::fs::symlink(&project, tmp.path().join("link")).expect("symlink");
        let here = ConventionalRoots::find(std::slice::from_ref(&project), None);
        let linked = ConventionalRoots::find(&[tmp.path().join("link")], None);
        assert_ne!(here.roots(), linked.roots());
        assert!(same_place(&linked, here.roots(), here.searched()));
        // Elsewhere, or nowhere where there was somewhere, is a move.
        let elsewhere = ConventionalRoots::find(&[tmp.path().to_path_buf()], None);
        assert!(!same_place(&elsewhere, here.roots(), here.searched()));
        assert!(same_place(&elsewhere, &[], elsewhere.searched()));
        assert!(!same_place(&elsewhere, &[], here.searched()));
    }

    #[test]
    fn file_uris_become_paths_and_nothing_else_does() {
        let path = |uri: &str| file_path(uri).map(|path| path.display().to_string());
        assert_eq!(path("file:///home/me/proj").as_deref(), Some("/home/me/proj"));
        assert_eq!(path("FILE://localhost/home/me/proj").as_deref(), Some("/home/me/proj"));
        assert_eq!(path("file:///home/me/my%20proj%C3%A9?x#y").as_deref(), Some("/home/me/my proj\u{e9}"));
        assert_eq!(file_path("https://example.com/proj"), None);
        assert_eq!(file_path("file://server/share"), None);
        assert_eq!(file_path("file:"), None);
        assert_eq!(file_path("fi"), None);
    }
}
