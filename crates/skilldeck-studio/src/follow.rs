//! Keeping the Studio's catalog current with what other programs change:
//! the store (its change token, polled: another Studio, `skilldeck store
//! write`) and the roots (a file watcher: a `SKILL.md` edited in an
//! editor). The Studio's own saves reload at once and need neither.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher};
use skilldeck::LiveCatalog;
use skilldeck::store::SkillStore;

use crate::Studio;

/// How often the Studio asks the store whether another program wrote to it.
pub const STORE_POLL: Duration = Duration::from_secs(1);

/// How long a burst of file events is gathered before one reload.
const DEBOUNCE: Duration = Duration::from_millis(100);

/// What [`Studio::follow`] started; dropping it stops following.
pub struct Following {
    poll: Option<tokio::task::JoinHandle<()>>,
    _watcher: Option<RecommendedWatcher>,
}

impl Drop for Following {
    fn drop(&mut self) {
        if let Some(poll) = &self.poll {
            poll.abort();
        }
        // The watcher goes with `self`; its thread ends when the events stop.
    }
}

impl Studio {
    /// Starts following the store's change token and the roots' files, so
    /// that pages show what other programs wrote; [`serve`](crate::serve)
    /// does this itself. Must be called within a tokio runtime. A root
    /// that cannot be watched (it does not exist yet) is logged and left.
    pub fn follow(&self) -> Following {
        let poll = self.inner.store.clone().map(|store| tokio::spawn(follow_store(store, self.inner.live.clone())));
        Following { poll, _watcher: watch_roots(self.inner.live.clone()) }
    }
}

/// Reloads the catalog when the store's change token moves.
async fn follow_store(store: Arc<dyn SkillStore>, live: Arc<LiveCatalog>) {
    // The token first, then one reload: whatever was written before the
    // token was read (even before the catalog was built) is in the catalog.
    let (first_store, first_live) = (store.clone(), live.clone());
    let first = tokio::task::spawn_blocking(move || {
        let token = first_store.change_token().ok().flatten();
        first_live.reload();
        token
    });
    let mut seen: Option<i64> = first.await.unwrap_or(None);
    loop {
        tokio::time::sleep(STORE_POLL).await;
        let (store, live, before) = (store.clone(), live.clone(), seen);
        let polled = tokio::task::spawn_blocking(move || {
            let now = store.change_token().ok().flatten();
            if before.is_some() && now.is_some() && now != before {
                live.reload();
            }
            now
        });
        seen = polled.await.unwrap_or(seen);
    }
}

/// A recursive watcher on every root, and a thread that reloads what a
/// burst of events touched (the whole catalog when the watcher lost track).
fn watch_roots(live: Arc<LiveCatalog>) -> Option<RecommendedWatcher> {
    let roots = live.roots();
    if roots.is_empty() {
        return None;
    }
    let (sender, events) = mpsc::channel::<Option<Vec<PathBuf>>>();
    let handler = move |event: notify::Result<notify::Event>| {
        let paths = match event {
            Ok(event) if matches!(event.kind, EventKind::Access(_)) => return,
            Ok(event) if !event.need_rescan() => Some(event.paths),
            _ => None,
        };
        let _ = sender.send(paths);
    };
    let mut watcher = match notify::recommended_watcher(handler) {
        Ok(watcher) => watcher,
        Err(error) => {
            tracing::warn!("the Studio cannot watch its roots, so edits on disk show after the next save: {error}");
            return None;
        }
    };
    for root in &roots {
        if let Err(error) = watcher.watch(root, RecursiveMode::Recursive) {
            tracing::warn!("the Studio cannot watch {}: {error}", root.display());
        }
    }
    std::thread::spawn(move || {
        // Ends when the watcher (and with it the sender) is dropped.
        while let Ok(first) = events.recv() {
            let mut changed = first;
            loop {
                match events.recv_timeout(DEBOUNCE) {
                    Ok(Some(paths)) => {
                        if let Some(changed) = &mut changed {
                            changed.extend(paths);
                        }
                    }
                    Ok(None) => changed = None,
                    Err(RecvTimeoutError::Timeout) => break,
                    Err(RecvTimeoutError::Disconnected) => return,
                }
            }
            match &changed {
                Some(paths) => live.reload_changed(paths),
                None => live.reload(),
            };
        }
    });
    Some(watcher)
}
