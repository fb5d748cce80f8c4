//! Keeping the published catalog current: a file watcher on the roots and a
//! poll of the store's change token trigger a debounced reload of what changed
//! (the paths the watcher reported; the store is read again every time), then
//! the list-changed notifications.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use notify::event::{EventKind, MetadataKind, ModifyKind};
use notify::{RecommendedWatcher, RecursiveMode, Watcher};
use skilldeck::store::SkillStore;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::server::SkillServer;

/// Quiet time after the last change before a reload.
const DEBOUNCE: Duration = Duration::from_millis(200);
/// A stream of changes that never goes quiet still reloads this often.
const MAX_DELAY: Duration = Duration::from_secs(1);
/// How often the store is asked whether another connection wrote to it.
const STORE_POLL: Duration = Duration::from_millis(500);

/// What to watch.
#[derive(Clone, Default)]
pub struct Watch {
    /// Directories whose changes reload the catalog (the roots).
    pub roots: Vec<PathBuf>,
    /// A store whose [change token](SkillStore::change_token) is polled.
    pub store: Option<Arc<dyn SkillStore>>,
}

impl std::fmt::Debug for Watch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watch").field("roots", &self.roots).field("store", &self.store.is_some()).finish()
    }
}

/// The running watchers; dropping it stops them.
#[derive(Debug)]
pub struct Live {
    _watcher: Arc<Mutex<Option<RecommendedWatcher>>>,
    ready: tokio::sync::watch::Receiver<bool>,
    tasks: Vec<JoinHandle<()>>,
}

impl Live {
    /// Waits until the watches on the roots are in place.
    pub async fn ready(&self) {
        let mut ready = self.ready.clone();
        let _ = ready.wait_for(|&done| done).await;
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

/// Starts watching: every change reloads `server` (once per burst) and
/// notifies its clients. Must run inside a Tokio runtime. Setting up the
/// watches (one per directory under the roots) happens in the background,
/// so serving starts at once; a change made before it is done may be missed.
pub fn watch(server: SkillServer, watch: Watch) -> Live {
    let (tx, rx) = mpsc::unbounded_channel::<Seen>();
    let watcher: Arc<Mutex<Option<RecommendedWatcher>>> = Arc::default();
    let mut tasks = vec![tokio::spawn(reload_loop(server, rx))];
    let holder = watcher.clone();
    let events = tx.clone();
    let roots = watch.roots;
    let (done, ready) = tokio::sync::watch::channel(false);
    tasks.push(tokio::task::spawn_blocking(move || {
        if let Some(watcher) = start_watcher(&roots, events) {
            *holder.lock().unwrap_or_else(PoisonError::into_inner) = Some(watcher);
        }
        let _ = done.send(true);
    }));
    if let Some(store) = watch.store {
        tasks.push(tokio::spawn(poll_store(store, tx)));
    }
    Live { _watcher: watcher, ready, tasks }
}

/// What set off a reload.
#[derive(Debug)]
enum Seen {
    /// These paths changed.
    Paths(Vec<PathBuf>),
    /// The store changed.
    Store,
    /// The watcher lost track (an overflow, an error): only a whole reload is sure.
    Lost,
}

/// A watcher on every root, sending the paths of each relevant event.
fn start_watcher(roots: &[PathBuf], events: mpsc::UnboundedSender<Seen>) -> Option<RecommendedWatcher> {
    let watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        let seen = match event {
            Ok(event)
                if matches!(
                    event.kind,
                    EventKind::Access(_) | EventKind::Modify(ModifyKind::Metadata(MetadataKind::AccessTime))
                ) =>
            {
                return;
            }
            Ok(event) if event.need_rescan() || event.paths.is_empty() => Seen::Lost,
            Ok(event) => Seen::Paths(event.paths),
            Err(_) => Seen::Lost,
        };
        let _ = events.send(seen);
    });
    let mut watcher = match watcher {
        Ok(watcher) => watcher,
        Err(error) => {
            tracing::warn!(%error, "cannot watch the roots for changes");
            return None;
        }
    };
    for root in roots {
        let root = std::path::absolute(root).unwrap_or_else(|_| root.clone());
        if root.is_dir()
            && let Err(error) = watcher.watch(&root, RecursiveMode::Recursive)
        {
            tracing::warn!(root = ?root, %error, "cannot watch a root for changes");
        }
    }
    Some(watcher)
}

/// Reloads once per burst of changes: only what the burst touched, unless
/// the watcher lost track.
async fn reload_loop(server: SkillServer, mut changes: mpsc::UnboundedReceiver<Seen>) {
    while let Some(first) = changes.recv().await {
        let burst = tokio::time::Instant::now();
        let mut touched = Some(Vec::new());
        let mut take = |seen: Seen| match (seen, touched.as_mut()) {
            (Seen::Paths(paths), Some(touched)) => touched.extend(paths),
            (Seen::Store, _) | (Seen::Paths(_), None) => {}
            (Seen::Lost, _) => touched = None,
        };
        take(first);
        loop {
            let left = MAX_DELAY.saturating_sub(burst.elapsed());
            match tokio::time::timeout(DEBOUNCE.min(left), changes.recv()).await {
                Ok(Some(seen)) if !left.is_zero() => take(seen),
                Ok(Some(seen)) => {
                    take(seen);
                    break;
                }
                Ok(None) => return,
                Err(_) => break,
            }
        }
        let reloading = server.clone();
        let reload = move || match touched {
            Some(mut touched) => {
                touched.sort();
                touched.dedup();
                reloading.reload_changed(&touched)
            }
            None => reloading.reload(),
        };
        match tokio::task::spawn_blocking(reload).await {
            Ok(Ok(change)) => server.notify(change).await,
            Ok(Err(error)) => tracing::warn!(%error, "reload failed, still serving the previous catalog"),
            Err(error) => tracing::warn!(%error, "reload failed, still serving the previous catalog"),
        }
    }
}

async fn poll_store(store: Arc<dyn SkillStore>, changes: mpsc::UnboundedSender<Seen>) {
    let version = |store: Arc<dyn SkillStore>| async move {
        tokio::task::spawn_blocking(move || store.change_token().ok().flatten()).await.ok().flatten()
    };
    let mut seen = version(store.clone()).await;
    let mut tick = tokio::time::interval(STORE_POLL);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let now = version(store.clone()).await;
        if now != seen {
            seen = now;
            if changes.send(Seen::Store).is_err() {
                return;
            }
        }
    }
}
