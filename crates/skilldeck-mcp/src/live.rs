//! Keeping the published catalog current: a file watcher on the roots and a
//! poll of the store's change token trigger a debounced reload of what changed
//! (the paths the watcher reported; the store is read again every time), then
//! the list-changed notifications.
//!
//! Watching comes in two steps. Registering a recursive watch lists every
//! directory under the roots (seconds on a public registry's tree), and the
//! watcher reports nothing until it is done: so first a quick watcher goes
//! on the roots and on the directory of every `SKILL.md`, one call each, no
//! listing. Those watches are set while the first catalog is walked
//! ([`EarlyWatches`]): each directory just before the walk reads its
//! `SKILL.md`, so an edit the read did not see is an event, and an edit right
//! after the first catalog is reloaded at once. (A server watched after its
//! first catalog was read sets them then, each file and directory looked at
//! right after its watch is set.) Once the first catalog is read, what else
//! was modified since its walk began is reloaded (a file written before its
//! directory was watched, one made beside a skill); then the recursive watch
//! is set up, the quick one dropped, and what was modified meanwhile is
//! reloaded too. A look for what was modified lists and stats the trees,
//! opening no file and following no link; it reloads nothing, and tells no
//! client, when nothing was. The looks run at background priority; the
//! recursive watch's listing is notify's thread's, which keeps its own.
//!
//! On Linux the quick watcher is inotify itself (`quick.rs`): a watch is
//! one system call, and a public registry's 15,700 skill directories are
//! all watched in 55–130 ms (measured on a busy 2-core machine), where
//! notify's watcher, which hands every watch to its thread and waits for
//! the answer, took 195–330 ms alone and up to a second beside the first
//! publication's build; the stats that follow the watches cost about as
//! much again. Elsewhere it is notify's. notify is the recursive watcher
//! everywhere. Both watchers' reports go through the same rules
//! ([`Relevance`]).
//!
//! A server that follows its client's project (`ClientRoots::Follow`) walks
//! the project's roots itself; once the first watches are set, a watcher on
//! the new roots replaces them (set up after them, whatever the order of
//! the move and the first catalog, so that the old roots' never win).
//!
//! A watch follows the directory it was set on, not its path. So each root's
//! parent is watched too (not recursively): a root made, removed, renamed or
//! swapped (a link replaced, the usual deploy) is a change naming the root
//! itself, and the root is then watched again where its path leads now and
//! walked whole.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use notify::event::{EventKind, MetadataKind, ModifyKind};
use notify::{RecommendedWatcher, RecursiveMode, Watcher};
use skilldeck::store::SkillStore;
use skilldeck::{Catalog, Origin, Skill};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::server::{OwnReads, SkillServer, background_priority};
use crate::subscribers::Severity;

#[cfg(target_os = "linux")]
mod quick;

/// Quiet time after the last change before a reload: 100 ms. An editor's
/// save (a write, or a temporary file renamed over) and most tools' bursts
/// are over well within it, and an edit must reach clients within 300 ms,
/// the reload included (some 100 ms for one skill of 8,000).
const DEBOUNCE: Duration = Duration::from_millis(100);
/// A stream of changes that never goes quiet still reloads this often.
const MAX_DELAY: Duration = Duration::from_secs(1);
/// How often the store is asked whether another connection wrote to it.
const STORE_POLL: Duration = Duration::from_millis(500);

/// What to watch.
#[derive(Clone, Default)]
pub struct Watch {
    /// Directories whose changes reload the catalog (the roots). Each
    /// root's parent is watched too, for the root itself being made,
    /// removed, renamed or swapped.
    pub roots: Vec<PathBuf>,
    /// A store whose [change token](SkillStore::change_token) is polled.
    pub store: Option<Arc<dyn SkillStore>>,
    /// The most directories watched (`None`: [`default_max_watches`]). Roots
    /// that hold more are not followed below their top, and a warning says
    /// so: a watch per directory of a tree that big would leave the user's
    /// other programs none.
    pub max_watches: Option<usize>,
}

impl std::fmt::Debug for Watch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watch")
            .field("roots", &self.roots)
            .field("store", &self.store.is_some())
            .field("max_watches", &self.max_watches)
            .finish()
    }
}

/// The most directories a server watches by default: on Linux half of the
/// user's inotify watches (`fs.inotify.max_user_watches`, which every program
/// of the user draws on: editors, language servers, build tools); elsewhere
/// no bound (FSEvents and `ReadDirectoryChangesW` watch a tree with one
/// handle).
///
/// ```
/// assert!(skilldeck_mcp::default_max_watches() > 0);
/// ```
pub fn default_max_watches() -> usize {
    #[cfg(target_os = "linux")]
    {
        // 8,192 was the kernel's default before it scaled it with memory (5.11).
        let max = std::fs::read_to_string("/proc/sys/fs/inotify/max_user_watches")
            .ok()
            .and_then(|max| max.trim().parse::<usize>().ok())
            .unwrap_or(8192);
        (max / 2).max(1)
    }
    #[cfg(not(target_os = "linux"))]
    {
        usize::MAX
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
/// watches happens in the background, after the first catalog is read, so
/// serving starts at once; a change made before the watches are set is
/// caught up with once they are (see the module's documentation).
pub fn watch(server: SkillServer, watch: Watch) -> Live {
    let (tx, rx) = mpsc::unbounded_channel::<Seen>();
    let roots = Arc::new(Mutex::new(absolute(&watch.roots)));
    let own_reads = server.own_reads().clone();
    let max_watches = watch.max_watches.unwrap_or_else(default_max_watches);
    let whole = Arc::new(AtomicBool::new(true));
    let watches = Watches { watcher: Arc::default(), roots, own_reads: own_reads.clone(), max_watches, whole };
    let moves = server.project().moves();
    let mut tasks = vec![tokio::spawn(reload_loop(server.clone(), rx, watches.clone()))];
    let setting_up = watches.clone();
    let events = tx.clone();
    let server_for_store = server.clone();
    let (done, ready) = tokio::sync::watch::channel(false);
    // A move of the project waits for the first watches, so that its own replace them, not the other way.
    tasks.push(tokio::spawn(follow_moves(server.clone(), moves, ready.clone(), watches.clone(), tx.clone())));
    let early = start_early(&server, &watches.roots(), &events, max_watches);
    // Made here, notify's thread keeps this thread's priority: it delivers every event for
    // the server's life, and a thread never gets its priority back once lowered.
    let recursive = new_watcher(Relevance::new(&watches.roots(), own_reads.clone()), events.clone());
    let runtime = tokio::runtime::Handle::current();
    let set_up = std::thread::Builder::new().name("skilldeck-watch-set-up".into()).spawn(move || {
        let _runtime = runtime.enter();
        // What follows lists and stats the whole tree: the requests and the reloads go first.
        background_priority();
        // Nothing to watch before the first catalog is read.
        if let Some(first) = server.first_catalog() {
            let early = early.then(|| server.early_watches());
            set_up_first(&setting_up, &first, server.loading_began(), &events, early, recursive);
        }
        // set_up_first ends them once the recursive watch is set; this ends them when the
        // first catalog could not be read, or none was started (then a no-op).
        drop(server.early_watches().finish());
        let _ = done.send(true);
    });
    if let Err(error) = set_up {
        tracing::error!(%error, "cannot set the watches up: changes are not followed");
    }
    if let Some(store) = watch.store {
        tasks.push(tokio::spawn(poll_store(server_for_store, store, tx)));
    }
    Live { _watcher: watches.watcher, ready, tasks }
}

/// The watcher (once set up) and the roots it watches, shared with the
/// reloads, which watch a replaced root again.
#[derive(Clone)]
struct Watches {
    watcher: Arc<Mutex<Option<RecommendedWatcher>>>,
    /// The roots made absolute, as the watcher reports paths below them;
    /// replaced when the project moves.
    roots: Arc<Mutex<Arc<[PathBuf]>>>,
    own_reads: Arc<OwnReads>,
    /// The most directories watched ([`Watch::max_watches`]).
    max_watches: usize,
    /// Whether the roots are watched whole (recursively), or only their top
    /// (they hold more directories than `max_watches`).
    whole: Arc<AtomicBool>,
}

impl Watches {
    /// Whether roots whose walk entered `dirs` directories may be watched
    /// whole: a recursive watch takes one per directory, and one more for
    /// each root's parent. When not, says so once.
    fn fits(&self, roots: &[PathBuf], dirs: usize) -> bool {
        let needed = dirs.saturating_add(parents(roots).len()).saturating_add(lock_dirs(&project_locks(roots)).len());
        let fits = needed <= self.max_watches;
        self.whole.store(fits, Ordering::Relaxed);
        if fits {
            return true;
        }
        let roots: Vec<String> = roots.iter().map(|root| root.display().to_string()).collect();
        tracing::warn!(
            "changes below {} are not followed: the roots hold {dirs} directories, more than the {} that \
             skilldeck watches (half the user's inotify watches, fs.inotify.max_user_watches; \
             `serve --max-watches N` sets another bound). A skill added directly under a root is still \
             seen; restart the server to see other changes, or give --root for the skills you use",
            roots.join(", "),
            self.max_watches,
        );
        false
    }

    /// The roots watched now.
    fn roots(&self) -> Arc<[PathBuf]> {
        self.roots.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Sets a watcher up on the roots, in place of any before it (whose
    /// watches go with it): the project moved.
    /// watched whole when their walk's `dirs` directories fit the bound.
    fn set_up(&self, events: mpsc::UnboundedSender<Seen>, dirs: usize) {
        // Setting the watches up lists every directory: reads of our own.
        let _reading = self.own_reads.start();
        // Held until the watches are set, so that a root replaced meanwhile is watched again after.
        let mut holder = self.watcher.lock().unwrap_or_else(PoisonError::into_inner);
        *holder = None;
        let roots = self.roots();
        let recursive = self.fits(&roots, dirs);
        *holder = new_watcher(Relevance::new(&roots, self.own_reads.clone()), events).map(|mut watcher| {
            watch_roots(&mut watcher, &roots, recursive);
            watcher
        });
    }

    /// Watches each of `roots` again where its path leads now (nothing while
    /// it leads to no directory): the watch set before follows the directory
    /// that was there, moved away or still behind the old link.
    fn rewatch<'a>(&self, roots: impl IntoIterator<Item = &'a PathBuf>) {
        let roots: Vec<&PathBuf> = roots.into_iter().collect();
        // Nothing to watch again (the usual reload: a skill edited): the lock is not taken, so
        // that a reload during the first recursive watch's set-up, which holds it for seconds on
        // a large tree, does not wait for it.
        if roots.is_empty() {
            return;
        }
        let mut watcher = self.watcher.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(watcher) = watcher.as_mut() else {
            return;
        };
        let _reading = self.own_reads.start();
        for root in roots {
            // Already gone where the watcher saw the directory move or go.
            let _ = watcher.unwatch(root);
            if root.is_dir() {
                // Walked whole by the reload: watched whole when it was before.
                watch_root(watcher, root, self.whole.load(Ordering::Relaxed));
            } else {
                tracing::info!("root {} leads to no directory now: not watched until it does", root.display());
            }
        }
    }
}

/// Sets the watches up in the order the module's documentation gives, once
/// `first`, whose walk began at `began`, is published.
fn set_up_first(
    watches: &Watches,
    first: &Catalog,
    began: SystemTime,
    events: &mpsc::UnboundedSender<Seen>,
    early: Option<&EarlyWatches>,
    recursive: Option<RecommendedWatcher>,
) {
    // Setting the watches up lists every directory: reads of our own.
    let _reading = watches.own_reads.start();
    let roots = watches.roots();
    if !watches.fits(&roots, first.walked().dirs) || early.is_some_and(EarlyWatches::over) {
        // Too big to watch whole: the roots' tops only, and no early or quick watch.
        drop(early.and_then(EarlyWatches::finish));
        let mut holder = watches.watcher.lock().unwrap_or_else(PoisonError::into_inner);
        *holder = recursive.map(|mut watcher| {
            watch_roots(&mut watcher, &roots, false);
            watcher
        });
        return;
    }
    // The early watcher watched each skill's directory before the walk read it.
    let (quick, known) = match early {
        Some(_) => (None, Vec::new()),
        None => {
            let started = Instant::now();
            let candidates = candidates(first);
            let (quick, known) = quick_watcher(&roots, &candidates, began, events, watches.own_reads.clone());
            tracing::debug!(
                dirs = candidates.len(),
                modified = known.len(),
                ms = started.elapsed().as_millis(),
                "quick watches set"
            );
            (quick, known)
        }
    };
    let quick_set = file_clock();
    let catch_up = |since: SystemTime, when: &str, reported: &[PathBuf]| {
        let started = Instant::now();
        let mut missed = modified_since(&roots, since);
        missed.retain(|path| reported.binary_search(path).is_err());
        tracing::debug!(paths = missed.len(), ms = started.elapsed().as_millis(), "modified {when}");
        if !missed.is_empty() {
            let _ = events.send(Seen::Paths(missed));
        }
    };
    catch_up(began, "while the first catalog was read", &known);
    let started = Instant::now();
    // Held until the watches are set, so that a root replaced meanwhile is watched again after.
    let mut holder = watches.watcher.lock().unwrap_or_else(PoisonError::into_inner);
    *holder = recursive.map(|mut watcher| {
        watch_roots(&mut watcher, &roots, true);
        watcher
    });
    drop(holder);
    drop(quick);
    drop(early.and_then(EarlyWatches::finish));
    tracing::debug!(ms = started.elapsed().as_millis(), "recursive watches set");
    catch_up(quick_set, "while the recursive watches were set", &[]);
}

/// The `SKILL.md` files the first catalog found (exposed, shadowed or
/// skipped), made absolute as the watcher reports them.
fn candidates(catalog: &Catalog) -> Vec<PathBuf> {
    // A store record over a disk skill has no file of its own; that skill is among the shadowed.
    let on_disk = |skill: &Skill| matches!(skill.origin(), Origin::Fs { .. });
    let exposed = catalog.skills().filter(|skill| on_disk(skill)).map(|skill| skill.location());
    let shadowed = catalog.shadowed().iter().filter(|s| on_disk(&s.skill)).map(|s| s.skill.location());
    let skipped = catalog.skips().iter().map(|skip| skip.location.as_str()).filter(|l| !l.starts_with("skill://"));
    let mut files: Vec<PathBuf> = exposed
        .chain(shadowed)
        .chain(skipped)
        .map(|location| std::path::absolute(location).unwrap_or_else(|_| PathBuf::from(location)))
        .collect();
    files.sort();
    files.dedup();
    files
}

/// A watcher on the roots, their parents and the directory of each of
/// `files` (sorted), none recursive: set up in one call per directory.
/// Right after its directory is watched, each file and the directory are
/// looked at (a stat each), and those modified at or after `since` are sent
/// at once, and returned: an edit to a known skill made before its directory
/// was watched, the usual change, is reloaded then, not after every watch is
/// set and the whole tree listed (some 0.4 s on a public registry's tree).
/// One made after is the watcher's. (A stat of every file before any watch
/// was tried: set-up begins as soon as the first catalog is read, before a
/// client can edit anything, so it only delayed the watches by its 70 ms.)
fn quick_watcher(
    roots: &[PathBuf],
    files: &[PathBuf],
    since: SystemTime,
    events: &mpsc::UnboundedSender<Seen>,
    own_reads: Arc<OwnReads>,
) -> (Option<Quick>, Vec<PathBuf>) {
    let Some(mut watcher) = quick_on_roots(roots, events, own_reads) else {
        return (None, Vec::new());
    };
    let recent =
        |path: &Path| std::fs::symlink_metadata(path).is_ok_and(|m| m.modified().is_ok_and(|time| time >= since));
    let mut reported = Vec::new();
    // Sorted, the files of one directory mostly come together: it is watched once for them.
    for group in files.chunk_by(|a, b| a.parent() == b.parent()) {
        let Some(dir) = group[0].parent() else { continue };
        let _ = watcher.watch(dir);
        let found: Vec<PathBuf> = std::iter::once(dir)
            .chain(group.iter().map(PathBuf::as_path))
            .filter(|p| recent(p))
            .map(Path::to_path_buf)
            .collect();
        if !found.is_empty() {
            let _ = events.send(Seen::Paths(found.clone()));
            reported.extend(found);
        }
    }
    reported.sort();
    reported.dedup();
    (Some(watcher), reported)
}

/// A quick watcher on the roots and their [`parents`], not recursive.
fn quick_on_roots(roots: &[PathBuf], events: &mpsc::UnboundedSender<Seen>, own_reads: Arc<OwnReads>) -> Option<Quick> {
    let mut watcher = Quick::new(Relevance::new(roots, own_reads), events.clone())?;
    for dir in roots.iter().chain(&parents(roots)) {
        // A directory gone since the walk: the recursive watch sees what came instead.
        let _ = watcher.watch(dir);
    }
    Some(watcher)
}

/// Starts `server`'s [`EarlyWatches`] with a quick watcher on the roots;
/// false when it is too late (the first catalog was read before), and the
/// quick watches are set up after it instead.
fn start_early(
    server: &SkillServer,
    roots: &[PathBuf],
    events: &mpsc::UnboundedSender<Seen>,
    max_watches: usize,
) -> bool {
    let Some(quick) = quick_on_roots(roots, events, server.own_reads().clone()) else { return false };
    let started = Instant::now();
    let early = server.early_watches().start(quick, max_watches);
    tracing::debug!(early, ms = started.elapsed().as_millis(), "early watches started");
    early
}

/// The quick watches set while a catalog is walked: each skill's directory
/// just before its `SKILL.md` is read ([`CatalogBuilder::before_read`],
/// which a loading [`SkillServer`] gives its builder), and so before the
/// first catalog is read, while the walk runs on two threads, rather than
/// after it, one directory at a time. An edit the read did not see is an
/// event: made right after the first catalog, it is reloaded at once,
/// where it waited for its directory's turn in a set-up of some 300 ms (a
/// public registry's tree). They last until the recursive watch is set.
///
/// [`CatalogBuilder::before_read`]: skilldeck::CatalogBuilder::before_read
#[derive(Default)]
pub(crate) struct EarlyWatches(Mutex<Early>);

/// Where the early watches are.
enum Early {
    /// No watcher yet: the directories read so far, watched when it comes.
    Waiting(Vec<PathBuf>),
    /// Watching each directory read, at most `left` more.
    Watching { quick: Quick, left: usize },
    /// Over: set up too late, or the recursive watch took over.
    Off,
    /// Stopped at the bound on watches: the tree is too big to watch whole.
    Over,
}

impl std::fmt::Debug for EarlyWatches {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = match &*self.0.lock().unwrap_or_else(PoisonError::into_inner) {
            Early::Waiting(dirs) => format!("waiting ({} read)", dirs.len()),
            Early::Watching { left, .. } => format!("watching ({left} more at most)"),
            Early::Off => "off".to_owned(),
            Early::Over => "over the bound on watches".to_owned(),
        };
        f.debug_tuple("EarlyWatches").field(&state).finish()
    }
}

impl Default for Early {
    fn default() -> Early {
        Early::Waiting(Vec::new())
    }
}

impl EarlyWatches {
    /// A skill's directory is about to be read: watch it.
    pub(crate) fn saw(&self, dir: &Path) {
        let mut early = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let dir = || std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
        let over = match &mut *early {
            Early::Waiting(dirs) => {
                dirs.push(dir());
                false
            }
            Early::Watching { left: 0, .. } => true,
            Early::Watching { quick, left } => {
                *left -= 1;
                // A directory gone meanwhile: the catch-up or the recursive watch sees it.
                drop(quick.watch(&dir()));
                false
            }
            Early::Off | Early::Over => false,
        };
        if over {
            let watching = std::mem::replace(&mut *early, Early::Over);
            // The watcher's reader is joined when it drops: not under the lock.
            drop(early);
            drop(watching);
        }
    }

    /// Watches with `quick` from now on, and the directories read before
    /// it came, `max` at most; false when it came too late.
    fn start(&self, mut quick: Quick, max: usize) -> bool {
        let mut early = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let Early::Waiting(dirs) = &*early else { return false };
        if dirs.len() > max {
            *early = Early::Over;
            return true;
        }
        for dir in dirs {
            let _ = quick.watch(dir);
        }
        *early = Early::Watching { left: max - dirs.len(), quick };
        true
    }

    /// Whether the early watches stopped at the bound on watches.
    fn over(&self) -> bool {
        matches!(*self.0.lock().unwrap_or_else(PoisonError::into_inner), Early::Over)
    }

    /// No watcher came before the first catalog was read: none is waited for.
    pub(crate) fn stop_waiting(&self) {
        let mut early = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if matches!(*early, Early::Waiting(_)) {
            *early = Early::Off;
        }
    }

    /// Ends the early watches; the watcher is returned, to be dropped
    /// outside the lock (its reader is joined).
    fn finish(&self) -> Option<Quick> {
        let mut early = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        match std::mem::replace(&mut *early, Early::Off) {
            Early::Watching { quick, .. } => Some(quick),
            _ => None,
        }
    }
}

/// The quick watcher on Linux: inotify itself, a system call per directory
/// (notify's takes a round trip to its thread per directory, some 40 µs:
/// most of a second on a public registry's 15,700 skill directories).
#[cfg(target_os = "linux")]
use quick::Quick;

/// The quick watcher elsewhere: notify's, one directory at a time.
#[cfg(not(target_os = "linux"))]
struct Quick(RecommendedWatcher);

#[cfg(not(target_os = "linux"))]
impl Quick {
    /// A watcher with no watch yet, sending what `relevance` lets through.
    fn new(relevance: Relevance, events: mpsc::UnboundedSender<Seen>) -> Option<Quick> {
        new_watcher(relevance, events).map(Quick)
    }

    /// Watches `dir`, not recursively.
    fn watch(&mut self, dir: &Path) -> notify::Result<()> {
        self.0.watch(dir, RecursiveMode::NonRecursive)
    }
}

/// Now, by the clock file times are stamped with. Linux stamps them from a
/// coarse clock that lags the precise one by up to a tick: a file written
/// just after `SystemTime::now()` may carry an earlier time, but never one
/// earlier than the coarse clock's reading.
pub(crate) fn file_clock() -> SystemTime {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        let now = rustix::time::clock_gettime(rustix::time::ClockId::RealtimeCoarse);
        let since_epoch =
            u64::try_from(now.tv_sec).ok().map(|secs| Duration::new(secs, now.tv_nsec.try_into().unwrap_or(0)));
        if let Some(since_epoch) = since_epoch {
            return SystemTime::UNIX_EPOCH + since_epoch;
        }
    }
    SystemTime::now()
}

/// A [`file_clock`] reading no earlier than the precise clock's now, once
/// the coarse clock has caught up with it (a tick or two: some 4–10 ms;
/// at most [`CATCH_UP_WAIT`]). A walk that starts then reads every file
/// written before it, and each of those carries an earlier time than the
/// returned mark, whether the kernel stamped it from the coarse clock or,
/// as Linux does since 6.13 for a file whose times were just looked at,
/// from the precise one (which runs ahead of the coarse one by a tick or
/// more). A mark read from the coarse clock at once counted files written
/// just before it: a tree written and served at once was reloaded, and its
/// clients told, for nothing. Any later write still carries the mark's
/// time or a later one: the mark is a coarse reading taken before the walk.
pub(crate) fn caught_up_file_clock() -> SystemTime {
    let precise = SystemTime::now();
    let deadline = Instant::now() + CATCH_UP_WAIT;
    loop {
        let now = file_clock();
        if now >= precise || Instant::now() >= deadline {
            return now;
        }
        std::thread::sleep(Duration::from_micros(500));
    }
}

/// The longest [`caught_up_file_clock`] waits for the coarse clock: far more
/// than its ticks (4 ms at 250 Hz, 10 ms at 100 Hz), short against a walk.
const CATCH_UP_WAIT: Duration = Duration::from_millis(50);

/// The files and directories under `roots` (the roots included) modified
/// at or after `since` (a [`file_clock`] reading): a
/// directory is modified when an entry is made, removed or renamed in it,
/// so what went is found through its directory. Links are not followed.
fn modified_since(roots: &[PathBuf], since: SystemTime) -> Vec<PathBuf> {
    let recent = |metadata: &std::fs::Metadata| metadata.modified().is_ok_and(|modified| modified >= since);
    let mut missed = Vec::new();
    let mut dirs: Vec<PathBuf> = Vec::new();
    for root in roots {
        match std::fs::symlink_metadata(root) {
            Ok(metadata) if recent(&metadata) => missed.push(root.clone()),
            Ok(_) => {}
            // Gone: the parent's watch reports it when it comes back.
            Err(_) => continue,
        }
        // A root that is a link is walked where it leads, as the catalog does.
        dirs.push(root.clone());
    }
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let Ok(metadata) = entry.metadata() else { continue };
            if recent(&metadata) {
                missed.push(entry.path());
            }
            if metadata.is_dir() {
                dirs.push(entry.path());
            }
        }
    }
    missed.sort();
    missed.dedup();
    missed
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

/// Watches every root (recursively when `whole`), and the roots' parents
/// and the directories of their projects' locks not.
fn watch_roots(watcher: &mut RecommendedWatcher, roots: &[PathBuf], whole: bool) {
    for root in roots.iter().filter(|root| root.is_dir()) {
        watch_root(watcher, root, whole);
    }
    for parent in &parents(roots) {
        if let Err(error) = watcher.watch(parent, RecursiveMode::NonRecursive) {
            tracing::warn!("cannot watch {} for its root being replaced or made: {error}", parent.display());
        }
    }
    for dir in lock_dirs(&project_locks(roots)) {
        if let Err(error) = watcher.watch(&dir, RecursiveMode::NonRecursive) {
            tracing::warn!("cannot watch {} for its {} changing: {error}", dir.display(), skilldeck::LOCK_FILE);
        }
    }
}

/// The lock of each root that is a project's `.agents/skills`, with the
/// root: a change to the lock alone changes what the load-time check says of
/// every skill installed there, so it reloads that root.
fn project_locks(roots: &[PathBuf]) -> Vec<(PathBuf, PathBuf)> {
    roots
        .iter()
        .filter(|root| root.ends_with(skilldeck::PROJECT_SKILLS_DIR))
        .filter_map(|root| Some((root.parent()?.parent()?.join(skilldeck::LOCK_FILE), root.clone())))
        .collect()
}

/// The directories holding `locks`, each once, unless a root's recursive
/// watch covers it.
fn lock_dirs(locks: &[(PathBuf, PathBuf)]) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = locks.iter().filter_map(|(lock, _)| lock.parent().map(Path::to_path_buf)).collect();
    dirs.retain(|dir| !locks.iter().any(|(_, root)| dir.starts_with(root)));
    dirs.sort();
    dirs.dedup();
    dirs
}

/// A watcher with no watch yet, sending what `relevance` lets through.
fn new_watcher(relevance: Relevance, events: mpsc::UnboundedSender<Seen>) -> Option<RecommendedWatcher> {
    let watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        let report = match event {
            Ok(event)
                if matches!(
                    event.kind,
                    EventKind::Access(_) | EventKind::Modify(ModifyKind::Metadata(MetadataKind::AccessTime))
                ) =>
            {
                Report::Access
            }
            Ok(event) if event.need_rescan() => Report::Overflow,
            Ok(event) => Report::Paths(event.paths),
            Err(_) => Report::Failed,
        };
        if let Some(seen) = relevance.seen(report) {
            let _ = events.send(seen);
        }
    });
    match watcher {
        Ok(watcher) => Some(watcher),
        Err(error) => {
            tracing::warn!(%error, "cannot watch the roots for changes");
            None
        }
    }
}

/// What a watcher reported, before [`Relevance`] judges it.
#[derive(Debug)]
enum Report {
    /// A file was opened, read or closed, or its access time changed: a
    /// read, never a change.
    Access,
    /// The watcher's queue overflowed: events were lost.
    Overflow,
    /// These paths changed (none: the watcher does not say which).
    Paths(Vec<PathBuf>),
    /// The watcher failed.
    Failed,
}

/// Which reports set off a reload, for every watcher (the quick one and the
/// recursive one): one set of rules, whatever reads the kernel's events.
#[derive(Clone)]
struct Relevance {
    roots: Arc<[PathBuf]>,
    /// The roots' parents and the directories of their projects' locks:
    /// watched for one entry each, their others no change.
    parents: Arc<[PathBuf]>,
    /// Each project's lock, with the root it changes.
    locks: Arc<[(PathBuf, PathBuf)]>,
    own_reads: Arc<OwnReads>,
}

impl Relevance {
    /// The rules for a watcher on `roots`, their [`parents`] and their
    /// projects' locks.
    fn new(roots: &[PathBuf], own_reads: Arc<OwnReads>) -> Relevance {
        let locks = project_locks(roots);
        let mut parents = parents(roots);
        parents.extend(lock_dirs(&locks));
        Relevance { roots: roots.into(), parents: parents.into(), locks: locks.into(), own_reads }
    }

    /// What `report` means for the catalog, if anything.
    fn seen(&self, report: Report) -> Option<Seen> {
        match report {
            Report::Access => None,
            // An overflow during the server's own reads is theirs (see `OwnReads`).
            Report::Overflow if self.own_reads.recent() => {
                tracing::debug!("the watcher's queue overflowed while skilldeck read the tree: not a change");
                None
            }
            Report::Overflow | Report::Failed => Some(Seen::Lost),
            Report::Paths(paths) if paths.is_empty() => Some(Seen::Lost),
            Report::Paths(paths) => {
                let lock_of = |path: &PathBuf| self.locks.iter().find(|(lock, _)| lock == path).map(|(_, root)| root);
                let paths: Vec<PathBuf> = paths
                    .into_iter()
                    .filter_map(|path| match lock_of(&path) {
                        Some(root) => Some(root.clone()),
                        None => (!self.elsewhere(&path)).then_some(path),
                    })
                    .collect();
                (!paths.is_empty()).then_some(Seen::Paths(paths))
            }
        }
    }

    /// Whether `path` is another entry of a root's parent than the root: a
    /// parent's watch reports its other entries too, and only a root matters.
    fn elsewhere(&self, path: &Path) -> bool {
        let in_a_parent = self.parents.iter().any(|p| path == p || path.parent() == Some(p.as_path()));
        in_a_parent && !self.roots.iter().any(|root| path == root)
    }
}

/// Watches `root` and, when `whole`, everything below it; a failure is
/// logged, and the root is served as it is.
fn watch_root(watcher: &mut RecommendedWatcher, root: &Path, whole: bool) {
    let mode = if whole { RecursiveMode::Recursive } else { RecursiveMode::NonRecursive };
    if let Err(error) = watcher.watch(root, mode) {
        tracing::warn!(root = ?root, %error, "cannot watch a root for changes");
    }
}

/// The directories to watch for a root being made, removed, renamed or
/// swapped: each root's parent, once, unless a root's recursive watch covers
/// it. A root ending in `..` or without a parent (`/`) has none, and a parent
/// that does not exist cannot be watched: such a root is watched as it was at
/// the start only.
fn parents(roots: &[PathBuf]) -> Vec<PathBuf> {
    let mut parents: Vec<PathBuf> = roots
        .iter()
        .filter_map(|root| root.file_name().and(root.parent()))
        .filter(|parent| !roots.iter().any(|root| parent.starts_with(root)))
        .map(Path::to_path_buf)
        .collect();
    parents.sort();
    parents.dedup();
    parents
}

/// Reloads once per burst of changes: only what the burst touched, unless
/// the watcher lost track. A root the burst names itself may lead to another
/// directory now: it is watched again first, so that no change after the
/// reload is missed (the reload walks it whole).
async fn reload_loop(server: SkillServer, mut changes: mpsc::UnboundedReceiver<Seen>, watches: Watches) {
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
        match &touched {
            Some(paths) => tracing::debug!(paths = paths.len(), first = ?paths.first(), "reloading what changed"),
            None => tracing::debug!("reloading everything: the watcher lost track"),
        }
        let (reloading, watches) = (server.clone(), watches.clone());
        let reload = move || match touched {
            Some(mut touched) => {
                touched.sort();
                touched.dedup();
                watches.rewatch(watches.roots().iter().filter(|root| touched.binary_search(root).is_ok()));
                reloading.reload_changed(&touched)
            }
            None => {
                // What was lost may have been a root replaced.
                watches.rewatch(watches.roots().iter());
                reloading.reload()
            }
        };
        let reloading = Instant::now();
        let failed = match tokio::task::spawn_blocking(reload).await {
            Ok(change) => {
                tracing::debug!(ms = reloading.elapsed().as_millis(), "reloaded");
                server.notify(change).await;
                continue;
            }
            // A reload cannot fail, but it can panic: the previous generation stays.
            Err(error) => error.to_string(),
        };
        tracing::warn!(error = failed, "reload failed, still serving the previous catalog");
        let message = format!("reload failed, still serving the previous catalog: {failed}");
        server.log(Severity::Error, message).await;
    }
}

/// Watches the roots the project moved to ([`SkillServer`] follows its
/// client's roots), in place of the old ones; the server has walked them.
/// Waits for the first watches (`first_set`): set up later, they would
/// replace a move's.
async fn follow_moves(
    server: SkillServer,
    mut moves: tokio::sync::watch::Receiver<Arc<[PathBuf]>>,
    mut first_set: tokio::sync::watch::Receiver<bool>,
    watches: Watches,
    events: mpsc::UnboundedSender<Seen>,
) {
    if first_set.wait_for(|&done| done).await.is_err() {
        return;
    }
    while moves.changed().await.is_ok() {
        *watches.roots.lock().unwrap_or_else(PoisonError::into_inner) = absolute(&moves.borrow_and_update());
        let (server, watches, events) = (server.clone(), watches.clone(), events.clone());
        // The live catalog holds the move's walk: `set_roots` walked it before sending the move.
        let set_up = move || watches.set_up(events, server.live().snapshot().walked().dirs);
        if tokio::task::spawn_blocking(set_up).await.is_err() {
            return;
        }
    }
}

/// `roots` made absolute against the working directory, as the watcher reports paths.
fn absolute(roots: &[PathBuf]) -> Arc<[PathBuf]> {
    roots.iter().map(|root| std::path::absolute(root).unwrap_or_else(|_| root.clone())).collect()
}

/// Asks the store for its change token every [`STORE_POLL`]; a new token
/// (another connection wrote, or the store answers again after failing)
/// reloads. The first token is read before the first catalog is, so that no
/// write in between is missed, but its failure is the first build's to
/// report: a store that fails from the start stops the server with its
/// reason, not with a warning about an outage. Polling begins once the first
/// catalog is read, and never for a server that has none.
async fn poll_store(server: SkillServer, store: Arc<dyn SkillStore>, changes: mpsc::UnboundedSender<Seen>) {
    let Some(first) = change_token(&store).await else { return };
    let mut seen = first.ok().flatten();
    if !server.first_read().await {
        return;
    }
    let mut failing = false;
    let mut tick = tokio::time::interval(STORE_POLL);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let Some(token) = change_token(&store).await else { return };
        match &token {
            Ok(_) if std::mem::take(&mut failing) => {
                tracing::info!("the skill store answers again; reloading its skills");
            }
            Ok(_) => {}
            // An outage is logged once, when it begins; meanwhile each
            // reload keeps the store's last good skills.
            Err(error) if !std::mem::replace(&mut failing, true) => {
                tracing::warn!(%error, "the skill store does not answer; serving its last good skills until it does");
            }
            Err(_) => {}
        }
        let now = token.ok().flatten();
        if now != seen {
            seen = now;
            if changes.send(Seen::Store).is_err() {
                return;
            }
        }
    }
}

/// The store's change token or why it could not be read; `None` when the
/// runtime is shutting down (the read was cancelled).
async fn change_token(store: &Arc<dyn SkillStore>) -> Option<Result<Option<i64>, String>> {
    let store = store.clone();
    match tokio::task::spawn_blocking(move || store.change_token()).await {
        Ok(token) => Some(token.map_err(|error| error.to_string())),
        Err(join) if join.is_cancelled() => None,
        Err(panicked) => Some(Err(panicked.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use super::{
        EarlyWatches, Quick, Relevance, Report, Seen, Watches, caught_up_file_clock, lock_dirs, modified_since,
        parents, project_locks, quick_watcher,
    };

    /// A skill edited after the first walk began but before its directory
    /// was watched is sent as soon as the quick watcher reaches it (not after
    /// a listing of the whole tree), and returned so that the catch-up does
    /// not send it again; an untouched skill is not sent.
    #[test]
    fn the_quick_watcher_sends_a_known_skill_edited_before_its_watch() {
        let dir = tempfile::tempdir().expect("tmp");
        let root = dir.path().join("skills");
        let files: Vec<PathBuf> = ["a", "b"].iter().map(|s| root.join(s).join("SKILL.md")).collect();
        for file in &files {
            std::fs::create_dir_all(file.parent().expect("dir")).expect("mkdir");
            std::fs::write(file, "---\nname: s\n---\n").expect("write");
        }
        let began = caught_up_file_clock();
        std::fs::write(&files[1], "edited").expect("write");
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let (watcher, reported) = quick_watcher(std::slice::from_ref(&root), &files, began, &tx, Arc::default());
        assert!(watcher.is_some());
        assert_eq!(reported, [files[1].clone()]);
        match rx.try_recv() {
            Ok(Seen::Paths(paths)) => assert_eq!(paths, [files[1].clone()]),
            other => panic!("expected the edited file, got {other:?}"),
        }
        // Sent once: one reload, one notification.
        assert!(rx.try_recv().is_err());
    }

    /// The early watches: a directory read before the watcher came is
    /// watched when it comes, one read after at once; an edit in either is
    /// sent. Too late (the first catalog read without it), it is refused,
    /// and the quick watches are set up after the read instead.
    #[test]
    fn early_watches_watch_what_was_read_before_and_after_the_watcher_came() {
        let dir = tempfile::tempdir().expect("tmp");
        let root = dir.path().join("skills");
        let skills: Vec<PathBuf> = ["a", "b"].iter().map(|s| root.join(s)).collect();
        for skill in &skills {
            std::fs::create_dir_all(skill).expect("mkdir");
        }
        let early = EarlyWatches::default();
        early.saw(&skills[0]);
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let quick = || Quick::new(Relevance::new(std::slice::from_ref(&root), Arc::default()), tx.clone());
        assert!(early.start(quick().expect("inotify"), usize::MAX));
        early.saw(&skills[1]);
        for skill in &skills {
            let file = skill.join("SKILL.md");
            std::fs::write(&file, "edited").expect("write");
            let deadline = std::time::Instant::now() + Duration::from_secs(5);
            let sent = loop {
                match rx.try_recv() {
                    Ok(Seen::Paths(paths)) => break paths,
                    Ok(other) => panic!("expected {}, got {other:?}", file.display()),
                    Err(_) if std::time::Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
                    Err(_) => panic!("{} was not watched", skill.display()),
                }
            };
            assert!(sent.iter().all(|path| *path == file), "{sent:?}");
            while rx.try_recv().is_ok() {}
        }
        assert!(early.finish().is_some());
        assert!(early.finish().is_none());

        let late = EarlyWatches::default();
        late.stop_waiting();
        assert!(!late.start(quick().expect("inotify"), usize::MAX), "a watcher that came after the first read");
    }

    /// The early watches stop at the bound on watches, whether the
    /// directories were read before the watcher came or after.
    #[test]
    fn early_watches_stop_at_the_bound() {
        let dir = tempfile::tempdir().expect("tmp");
        let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
        let quick = || Quick::new(Relevance::new(&[dir.path().to_path_buf()], Arc::default()), tx.clone());
        let early = EarlyWatches::default();
        assert!(early.start(quick().expect("inotify"), 2));
        early.saw(dir.path());
        early.saw(dir.path());
        assert!(!early.over());
        early.saw(dir.path());
        assert!(early.over());
        assert!(early.finish().is_none(), "no watcher is kept once over");

        let before = EarlyWatches::default();
        for _ in 0..3 {
            before.saw(dir.path());
        }
        assert!(before.start(quick().expect("inotify"), 2));
        assert!(before.over());
    }

    /// The rules both watchers' reports go through: reads are no change, a
    /// root's parent reports only the root, and a watcher that lost events
    /// or failed makes the catalog be read whole.
    #[test]
    fn reads_and_a_parents_other_entries_are_no_change() {
        let root = PathBuf::from("/srv/skills");
        let relevance = Relevance::new(std::slice::from_ref(&root), Arc::default());
        assert!(relevance.seen(Report::Access).is_none());
        assert!(relevance.seen(Report::Paths(vec!["/srv/other".into()])).is_none());
        let reported = vec!["/srv/other".into(), root.clone(), root.join("a/SKILL.md")];
        match relevance.seen(Report::Paths(reported)) {
            Some(Seen::Paths(paths)) => assert_eq!(paths, [root.clone(), root.join("a/SKILL.md")]),
            other => panic!("expected the root and its file, got {other:?}"),
        }
        assert!(matches!(relevance.seen(Report::Paths(Vec::new())), Some(Seen::Lost)));
        assert!(matches!(relevance.seen(Report::Overflow), Some(Seen::Lost)));
        assert!(matches!(relevance.seen(Report::Failed), Some(Seen::Lost)));
    }

    #[test]
    fn a_projects_lock_reloads_its_installed_root_and_its_other_entries_are_no_change() {
        let root = PathBuf::from("/srv/p/.agents/skills");
        let relevance = Relevance::new(std::slice::from_ref(&root), Arc::default());
        match relevance.seen(Report::Paths(vec!["/srv/p/skills-lock.json".into()])) {
            Some(Seen::Paths(paths)) => assert_eq!(paths, std::slice::from_ref(&root)),
            other => panic!("expected the root the lock checks, got {other:?}"),
        }
        assert!(relevance.seen(Report::Paths(vec!["/srv/p/README.md".into(), "/srv/p/src".into()])).is_none());
        // A root that is no project's `.agents/skills` has no lock.
        let other = Relevance::new(&[PathBuf::from("/srv/skills")], Arc::default());
        assert!(other.seen(Report::Paths(vec!["/srv/skills-lock.json".into()])).is_none());
        assert_eq!(lock_dirs(&project_locks(std::slice::from_ref(&root))), [PathBuf::from("/srv/p")]);
    }

    /// A reload that watches no root again does not wait for the watcher's
    /// lock, which the first recursive watch holds for seconds on a large
    /// tree: an edit then reached clients only once every watch was set.
    #[test]
    fn a_reload_of_no_root_does_not_wait_for_the_watches() {
        let watches = Watches {
            watcher: Arc::default(),
            roots: Arc::new(Mutex::new(Arc::from([]))),
            own_reads: Arc::default(),
            max_watches: usize::MAX,
            whole: Arc::default(),
        };
        let held = watches.watcher.lock().expect("lock");
        let (done, finished) = std::sync::mpsc::channel();
        let other = watches.clone();
        std::thread::spawn(move || {
            other.rewatch(std::iter::empty());
            let _ = done.send(());
        });
        assert!(finished.recv_timeout(Duration::from_secs(5)).is_ok(), "rewatch waited for the lock");
        drop(held);
    }

    /// A parent is watched once, and not where a root's recursive watch
    /// covers it already (a watch set again there would stop being recursive).
    #[test]
    fn parents_are_watched_once_and_outside_every_root() {
        let paths = |paths: &[&str]| paths.iter().map(PathBuf::from).collect::<Vec<_>>();
        let roots = paths(&["/srv/skills", "/srv/more", "/srv/skills/nested/deep", "/srv/skills/inner", "/opt/x/.."]);
        assert_eq!(parents(&roots), paths(&["/srv"]));
        assert_eq!(parents(&paths(&["/srv/skills", "/"])), paths(&[]));
    }

    /// A tree written just before the first walk is not "modified while
    /// it was read": the mark is a coarse reading that caught up with the
    /// precise clock, not one a tick or more behind the files' times.
    #[test]
    fn what_was_written_before_the_mark_is_not_modified_since() {
        let dir = tempfile::tempdir().expect("tmp");
        let root = dir.path().join("skills");
        for i in 0..50 {
            std::fs::create_dir_all(root.join(format!("s{i}"))).expect("mkdir");
            std::fs::write(root.join(format!("s{i}/SKILL.md")), "---\nname: s\n---\n").expect("write");
            let mark = caught_up_file_clock();
            assert_eq!(modified_since(std::slice::from_ref(&root), mark), Vec::<PathBuf>::new(), "round {i}");
            // Written after the mark, it is.
            std::fs::write(root.join(format!("s{i}/SKILL.md")), "edited").expect("write");
            assert_eq!(modified_since(std::slice::from_ref(&root), mark), [root.join(format!("s{i}/SKILL.md"))]);
        }
    }
}
