//! An ordered, loop-safe directory walker: the one way skilldeck looks at a tree.
//!
//! [`Walker`] lists the files below a root breadth-first, follows symbolic links
//! (or not, per [`Symlinks`]), never enters directories whose name is on its skip
//! list, guards against link loops (a link to a directory that holds it, the
//! root included, is not entered, and each link target is entered once), and
//! stops at its [`Limits`], saying
//! so in [`Walk::limit_hit`] rather than cutting silently. Entries it cannot read
//! (a dangling link, a directory without permission) are passed over.
//!
//! Two walks use it: skill discovery (files named `SKILL.md`, each read on the
//! walker thread that found it, through [`Walker::visit`]) and sibling sampling
//! (every other file of a skill directory). It knows nothing of skills.
//!
//! # Example
//!
//! ```
//! use skilldeck_walk::Walker;
//!
//! let dir = tempfile::tempdir()?;
//! std::fs::create_dir_all(dir.path().join("b/.git"))?;
//! std::fs::write(dir.path().join("b/SKILL.md"), "x")?;
//! std::fs::write(dir.path().join("b/.git/SKILL.md"), "hidden")?;
//! std::fs::write(dir.path().join("a.txt"), "y")?;
//!
//! let walk = Walker::new(dir.path()).skip_dir(".git").files(|name| name == "SKILL.md");
//! let found: Vec<_> = walk.files.iter().map(|f| f.rel_path()).collect();
//! assert_eq!(found, ["b/SKILL.md"]);
//! assert!(walk.limit_hit.is_none());
//! # Ok::<(), std::io::Error>(())
//! ```

use std::borrow::Cow;
use std::collections::HashSet;
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use sys::Type;

/// How directories are opened and read: through descriptors where the
/// platform has the calls, by path elsewhere.
mod sys {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    #[path = "fd.rs"]
    mod imp;
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    #[path = "path.rs"]
    mod imp;
    pub(crate) use imp::{OpenDir, Root};

    /// What a listing says an entry is.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub(crate) enum Type {
        Dir,
        Regular,
        Symlink,
        /// A FIFO, socket or device.
        Other,
        /// Not said: ask the file system.
        Unknown,
    }
}

/// Whether symbolic links are followed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Symlinks {
    /// Follow links to directories and files (the default); loops are guarded.
    #[default]
    Follow,
    /// Pass over every symbolic link.
    Skip,
}

/// Bounds on one walk. The defaults never cut a normal tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Deepest directory entered, counted in segments below the root.
    /// Default: [`Limits::DEFAULT_MAX_DEPTH`].
    pub max_depth: usize,
    /// Most directories entered, the root included.
    /// Default: [`Limits::DEFAULT_MAX_DIRS`].
    pub max_dirs: usize,
    /// Most directory entries looked at.
    /// Default: [`Limits::DEFAULT_MAX_ENTRIES`].
    pub max_entries: usize,
}

impl Limits {
    /// Default for [`Limits::max_depth`].
    pub const DEFAULT_MAX_DEPTH: usize = 64;
    /// Default for [`Limits::max_dirs`].
    pub const DEFAULT_MAX_DIRS: usize = 200_000;
    /// Default for [`Limits::max_entries`].
    pub const DEFAULT_MAX_ENTRIES: usize = 2_000_000;
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: Self::DEFAULT_MAX_DEPTH,
            max_dirs: Self::DEFAULT_MAX_DIRS,
            max_entries: Self::DEFAULT_MAX_ENTRIES,
        }
    }
}

/// Which of the [`Limits`] stopped a walk, with its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LimitHit {
    /// A directory deeper than `max_depth` was not entered.
    Depth(usize),
    /// The walk stopped after entering `max_dirs` directories.
    Dirs(usize),
    /// The walk stopped after looking at `max_entries` entries.
    Entries(usize),
}

impl fmt::Display for LimitHit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LimitHit::Depth(n) => write!(f, "depth limit ({n})"),
            LimitHit::Dirs(n) => write!(f, "directory limit ({n})"),
            LimitHit::Entries(n) => write!(f, "entry limit ({n})"),
        }
    }
}

/// A file found by a walk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct File {
    /// The walked path: the root joined with the names that led here (links are
    /// not resolved).
    pub path: PathBuf,
    /// Path segments below the root: `1` for a file directly in the root.
    pub depth: usize,
    /// Whether it is a regular file (after following a link). A FIFO or socket
    /// is reported too, so that a caller can say why it will not read it.
    pub regular: bool,
    /// The path relative to the root.
    pub rel: PathBuf,
}

impl File {
    /// The path relative to the root, with `/` separators (lossy for names
    /// that are not UTF-8).
    pub fn rel_path(&self) -> String {
        self.rel.to_string_lossy().into_owned()
    }

    /// The bytes of [`File::rel`]: sorting by them is code-point order for
    /// UTF-8 names.
    pub fn rel_bytes(&self) -> &[u8] {
        self.rel.as_os_str().as_encoded_bytes()
    }
}

/// The result of a walk.
#[derive(Clone, Debug, Default)]
pub struct Walk {
    /// Files whose name was kept, in walk order (breadth first, names sorted).
    pub files: Vec<File>,
    /// The first limit that cut the walk, if any.
    pub limit_hit: Option<LimitHit>,
    /// Whether the walk followed a symbolic link (see [`Totals::linked`]):
    /// without one, every file lies inside the root's resolved path.
    pub linked: bool,
}

/// A configured walk below one root.
#[derive(Clone, Debug)]
pub struct Walker {
    root: PathBuf,
    symlinks: Symlinks,
    limits: Limits,
    skip_dirs: Vec<OsString>,
}

impl Walker {
    /// A walker below `root` that follows links, skips nothing and has the
    /// default [`Limits`].
    pub fn new(root: impl Into<PathBuf>) -> Walker {
        Walker { root: root.into(), symlinks: Symlinks::default(), limits: Limits::default(), skip_dirs: Vec::new() }
    }

    /// Sets the link policy. Default: [`Symlinks::Follow`].
    pub fn symlinks(mut self, symlinks: Symlinks) -> Walker {
        self.symlinks = symlinks;
        self
    }

    /// Sets the bounds. Default: [`Limits::default`].
    pub fn limits(mut self, limits: Limits) -> Walker {
        self.limits = limits;
        self
    }

    /// Never enter a directory with exactly this name. Default: none.
    pub fn skip_dir(mut self, name: impl Into<OsString>) -> Walker {
        self.skip_dirs.push(name.into());
        self
    }

    /// Walks the tree and returns every non-directory entry whose file name
    /// `keep` accepts. A root that is not a directory yields nothing.
    ///
    /// The walk goes level by level; the directories of one level are listed
    /// in parallel when there are enough of them to pay for the threads.
    pub fn files(&self, mut keep: impl FnMut(&OsStr) -> bool) -> Walk {
        let mut files = Vec::new();
        let mut in_order = |dir: &Dir, name: &OsStr, regular| {
            if keep(name) {
                files.push(self.file(dir, name, regular));
            }
        };
        let (limit_hit, _, totals, _) = self.walk(|_| false, |_| (), Some(&mut in_order));
        Walk { files, limit_hit, linked: totals.linked }
    }

    /// Walks the tree like [`Walker::files`], and calls `visit` on each kept
    /// file while its directory is open, on the thread that listed it: the
    /// listing and the work on its files are one parallel pass, and
    /// [`Found::open`] opens the file without looking its path up again.
    ///
    /// Results come in walk order, each with its file. `keep` and `visit`
    /// run on worker threads in no fixed order; a file past a limit may be
    /// visited and its result dropped.
    ///
    /// ```
    /// use std::io::Read;
    /// use skilldeck_walk::Walker;
    ///
    /// let dir = tempfile::tempdir()?;
    /// std::fs::create_dir_all(dir.path().join("b"))?;
    /// std::fs::write(dir.path().join("b/SKILL.md"), "hello")?;
    ///
    /// let visited = Walker::new(dir.path()).visit(
    ///     |name| name == "SKILL.md",
    ///     |found| {
    ///         let mut text = String::new();
    ///         found.open()?.read_to_string(&mut text)?;
    ///         Ok::<_, std::io::Error>(text)
    ///     },
    /// );
    /// let (file, text) = &visited.files[0];
    /// assert_eq!((file.rel_path().as_str(), text.as_deref().ok()), ("b/SKILL.md", Some("hello")));
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn visit<R: Send>(
        &self,
        keep: impl Fn(&OsStr) -> bool + Sync,
        visit: impl Fn(&Found<'_>) -> R + Sync,
    ) -> Visited<R> {
        let (limit_hit, files, totals, links) = self.walk(
            keep,
            |listed| {
                let file = self.file(listed.dir, listed.name, listed.regular);
                let result = visit(&Found { file: &file, name: listed.name, open: listed.open });
                (file, result)
            },
            None,
        );
        Visited { files, limit_hit, totals, links }
    }

    /// The walk itself: workers `visit` each file entry that `keep` accepts
    /// while its directory is open, and `in_order`, if any, gets every file
    /// entry within the limits, in walk order. Returns the first limit hit,
    /// what `visit` returned for the kept files within the limits, in walk
    /// order, the totals, and the links met (see [`Visited::links`]).
    fn walk<V: Send>(
        &self,
        keep: impl Fn(&OsStr) -> bool + Sync,
        visit: impl Fn(&Listed<'_>) -> V + Sync,
        mut in_order: Option<InOrder<'_>>,
    ) -> (Option<LimitHit>, Vec<V>, Totals, Vec<PathBuf>) {
        let (mut limit_hit, mut results, mut totals) = (None, Vec::new(), Totals::default());
        let mut links = Vec::new();
        // A root that is not a directory does not open (and is not stat'ed first).
        let Ok(root) = sys::Root::open(&self.root) else {
            return (limit_hit, results, totals, links);
        };
        let mut seen_links: HashSet<PathBuf> = HashSet::new();
        let root_real = RootReal::new(&self.root);
        let mut level = vec![Dir { rel: PathBuf::new(), depth: 0, real: None, exits: None }];
        // The listings made ahead of time, one per directory of `level`.
        let mut ahead: Vec<Option<Listing<V>>> = vec![None];
        let (mut dirs, mut entries) = (0usize, 0usize);
        let names = in_order.is_some();
        while !level.is_empty() {
            if dirs + level.len() > self.limits.max_dirs {
                level.truncate(self.limits.max_dirs - dirs);
                ahead.truncate(level.len());
                limit_hit.get_or_insert(LimitHit::Dirs(self.limits.max_dirs));
            }
            dirs += level.len();
            let todo: Vec<&Dir> = level.iter().zip(&ahead).filter(|(_, a)| a.is_none()).map(|(d, _)| d).collect();
            let mut listed = parallel_map(&todo, |dir| {
                let open = root.open_dir(&dir.rel);
                self.list(open, dir, &root_real, &keep, &visit, names, true)
            })
            .into_iter();
            let listings: Vec<Listing<V>> =
                ahead.into_iter().map(|a| a.or_else(|| listed.next()).unwrap_or_default()).collect();
            // Sized exactly: the levels of a large tree are large.
            let subdirs = listings.iter().flat_map(|l| &l.entries).filter(|e| matches!(e, Entry::Dir { .. })).count();
            let (mut next, mut next_ahead) = (Vec::with_capacity(subdirs), Vec::with_capacity(subdirs));
            results.reserve(listings.iter().map(|listing| listing.visited.len()).sum());
            // Only what depends on walk order is left for this pass: the
            // limits, and which link to a directory is taken first.
            for (dir, listing) in level.iter().zip(listings) {
                totals.linked |= !listing.links.is_empty();
                links.extend(listing.links.iter().map(|name| dir.rel.join(name)));
                let mut visited = listing.visited.into_iter();
                for entry in listing.entries {
                    entries += 1;
                    if entries > self.limits.max_entries {
                        limit_hit.get_or_insert(LimitHit::Entries(self.limits.max_entries));
                        totals.dirs = dirs;
                        totals.entries = entries;
                        return (limit_hit, results, totals, links);
                    }
                    match entry {
                        Entry::File { name, regular, kept } => {
                            if kept {
                                results.extend(visited.next());
                            }
                            if let (Some(in_order), Some(name)) = (in_order.as_mut(), name) {
                                in_order(dir, &name, regular);
                            }
                        }
                        Entry::Passed => {}
                        Entry::TooDeep => {
                            limit_hit.get_or_insert(LimitHit::Depth(self.limits.max_depth));
                        }
                        Entry::Dir { dir: child, ahead } => {
                            next.push(child);
                            next_ahead.push(ahead);
                        }
                        Entry::LinkedDir(child) => {
                            if seen_links.insert(child.real(root_real.get()).into_owned()) {
                                next.push(child);
                                next_ahead.push(None);
                            }
                        }
                    }
                }
            }
            (level, ahead) = (next, next_ahead);
        }
        totals.dirs = dirs;
        totals.entries = entries;
        (limit_hit, results, totals, links)
    }

    /// The entries of the open directory `dir`, sorted by name, with links
    /// resolved, the directories to enter made, and the kept files visited.
    ///
    /// With `ahead`, a directory with only a few subdirectories lists them too,
    /// while it is open: they are opened by name relative to it rather than
    /// by a longer path from the root, and the next level has less left to
    /// do. The usual skill directory (`scripts/`, `references/`) is such.
    #[allow(
        clippy::too_many_arguments,
        reason = "the walk's fixed context, passed down as is; a struct for one private function would only rename it"
    )]
    fn list<V>(
        &self,
        open: io::Result<sys::OpenDir>,
        dir: &Dir,
        root_real: &RootReal<'_>,
        keep: &impl Fn(&OsStr) -> bool,
        visit: &impl Fn(&Listed<'_>) -> V,
        names: bool,
        ahead: bool,
    ) -> Listing<V> {
        /// At most this many subdirectories are listed ahead: a bound on the
        /// work a limit can make useless, and wide levels stay parallel.
        const AHEAD_MAX: usize = 8;
        let Ok(open) = open else {
            return Listing::default();
        };
        let (mut found, mut links) = (Vec::new(), Vec::new());
        open.entries(|name, kind| {
            let kind = looked_up(&open, name, kind);
            if kind == Type::Symlink && self.symlinks == Symlinks::Follow {
                links.push(name.to_owned());
            }
            if let Some(kind) = self.kind(&open, dir, root_real, name, kind) {
                let kept = matches!(kind, Kind::File { .. }) && keep(name);
                found.push((name.to_owned(), kind, kept));
            }
        });
        found.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        // Sized exactly: results can be large, and most directories keep one file.
        let mut visited = Vec::with_capacity(found.iter().filter(|(_, _, kept)| *kept).count());
        let depth = dir.depth + 1;
        let mut entries: Vec<Entry<V>> = found
            .into_iter()
            .map(|(name, kind, kept)| match kind {
                Kind::File { regular } => {
                    if kept {
                        visited.push(visit(&Listed { dir, name: &name, regular, open: &open }));
                    }
                    Entry::File { name: names.then_some(name), regular, kept }
                }
                _ if self.skip_dirs.contains(&name) => Entry::Passed,
                _ if depth > self.limits.max_depth => Entry::TooDeep,
                Kind::LinkLoop => Entry::Passed,
                Kind::Dir => {
                    let real = dir.real.as_ref().map(|real| real.join(&name));
                    Entry::Dir { dir: dir.child(&name, real, dir.exits.clone()), ahead: None }
                }
                Kind::LinkedDir { target } => {
                    let real = dir.real(root_real.get()).into_owned();
                    let exits = dir.exits.iter().flat_map(|e| e.iter()).cloned().chain([real]).collect();
                    Entry::LinkedDir(dir.child(&name, Some(target), Some(exits)))
                }
            })
            .collect();
        if ahead && entries.iter().filter(|e| matches!(e, Entry::Dir { .. })).count() <= AHEAD_MAX {
            for entry in &mut entries {
                if let Entry::Dir { dir: child, ahead } = entry {
                    let name = child.rel.file_name().unwrap_or_default();
                    *ahead = Some(self.list(open.open_dir(name), child, root_real, keep, visit, names, false));
                }
            }
        }
        Listing { entries, visited, links }
    }

    /// What an entry is, given its [`looked_up`] type, or `None` for one to
    /// pass over (a dangling link, any link when links are skipped, an entry
    /// that went).
    fn kind(
        &self,
        open: &sys::OpenDir,
        parent: &Dir,
        root_real: &RootReal<'_>,
        name: &OsStr,
        kind: Type,
    ) -> Option<Kind> {
        match kind {
            // Not said, and the file system could not say either: it went.
            Type::Unknown => return None,
            Type::Dir => return Some(Kind::Dir),
            Type::Symlink if self.symlinks == Symlinks::Skip => return None,
            Type::Symlink => {}
            kind => return Some(Kind::File { regular: kind == Type::Regular }),
        }
        match open.stat(name, true).ok()? {
            Type::Dir => {}
            kind => return Some(Kind::File { regular: kind == Type::Regular }),
        }
        // A link to a directory that holds any directory of the walked path
        // (an ancestor, the root, or a directory left through an earlier link)
        // leads back into the walk: a loop. Each other link target is entered
        // once per walk, so every walk ends.
        let target = fs::canonicalize(self.root.join(&parent.rel).join(name)).ok()?;
        let is_loop = parent.real(root_real.get()).starts_with(&target)
            || parent.exits.iter().flat_map(|e| e.iter()).any(|exit| exit.starts_with(&target));
        Some(if is_loop { Kind::LinkLoop } else { Kind::LinkedDir { target } })
    }

    /// The [`File`] for entry `name` of `dir`.
    fn file(&self, dir: &Dir, name: &OsStr, regular: bool) -> File {
        let rel = dir.rel.join(name);
        File { path: self.root.join(&rel), depth: dir.depth + 1, regular, rel }
    }
}

/// A kept file, as [`Walker::visit`] hands it over: its directory is open.
pub struct Found<'a> {
    file: &'a File,
    name: &'a OsStr,
    open: &'a sys::OpenDir,
}

impl Found<'_> {
    /// The file, as [`Walker::files`] would report it.
    pub fn file(&self) -> &File {
        self.file
    }

    /// Opens the file for reading, relative to its open directory. Call it
    /// only when [`File::regular`] is set: opening a FIFO blocks.
    ///
    /// # Errors
    ///
    /// Whatever the open reports (the file may have gone since it was listed).
    pub fn open(&self) -> io::Result<fs::File> {
        self.open.open_file(self.name)
    }
}

impl fmt::Debug for Found<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Found").field("file", &self.file).finish_non_exhaustive()
    }
}

/// The result of [`Walker::visit`].
#[derive(Clone, Debug)]
pub struct Visited<R> {
    /// Each kept file with what the visitor returned, in walk order.
    pub files: Vec<(File, R)>,
    /// The first limit that cut the walk, if any.
    pub limit_hit: Option<LimitHit>,
    /// What the walk looked at.
    pub totals: Totals,
    /// Each symbolic link the walk met and follows (to a directory, to a
    /// file or to nothing), by its path relative to the root as walked, in
    /// walk order: what a caller that walks one part again must check the
    /// changes against, for a change at a link's target shows through the
    /// link, whose own path no watcher reports.
    ///
    /// ```
    /// # #[cfg(unix)] {
    /// use skilldeck_walk::Walker;
    ///
    /// let dir = tempfile::tempdir()?;
    /// std::fs::create_dir_all(dir.path().join("a"))?;
    /// std::os::unix::fs::symlink("../nowhere", dir.path().join("a/dangling"))?;
    /// let visited = Walker::new(dir.path()).visit(|_| true, |_| ());
    /// assert_eq!(visited.links, [std::path::Path::new("a/dangling")]);
    /// # }
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub links: Vec<PathBuf>,
}

/// What a walk looked at: enough for a caller that walks one part of a tree
/// again to tell whether a walk of the whole would have stayed within its
/// [`Limits`] and met no link.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    /// Directories entered, the root included.
    pub dirs: usize,
    /// Directory entries looked at.
    pub entries: usize,
    /// Whether the walk met a symbolic link it follows, to a directory, to a
    /// file or to nothing (a dangling link may lead somewhere later).
    pub linked: bool,
}

/// What a walk that looks at file names does with each, in walk order.
type InOrder<'a> = &'a mut dyn FnMut(&Dir, &OsStr, bool);

/// A file entry as a worker sees it, its directory open.
struct Listed<'a> {
    dir: &'a Dir,
    name: &'a OsStr,
    regular: bool,
    open: &'a sys::OpenDir,
}

/// The root's resolved path, found on first use: only links need it, and
/// resolving a path costs a system call per segment, which a walk of a small
/// directory (a server lists each skill's files) would otherwise pay every time.
struct RootReal<'a> {
    root: &'a Path,
    real: std::sync::OnceLock<PathBuf>,
}

impl RootReal<'_> {
    fn new(root: &Path) -> RootReal<'_> {
        RootReal { root, real: std::sync::OnceLock::new() }
    }

    fn get(&self) -> &Path {
        self.real.get_or_init(|| fs::canonicalize(self.root).unwrap_or_else(|_| self.root.to_path_buf()))
    }
}

/// A directory to list.
struct Dir {
    /// The walked path relative to the root.
    rel: PathBuf,
    depth: usize,
    /// The resolved path, derived without system calls below the last link;
    /// `None` when no link is on the walked path, for the root's resolved
    /// path joined with `rel`: a large tree has no links, and making and
    /// freeing a second path for each directory was a measurable part of a
    /// walk (see [`Dir::real`]).
    real: Option<PathBuf>,
    /// The resolved paths of the directories where the walk took a link to
    /// get here: the rest of the walked path, for the loop guard. `None`
    /// until a link is taken, so most directories share nothing.
    exits: Option<Arc<[PathBuf]>>,
}

impl Dir {
    fn child(&self, name: &OsStr, real: Option<PathBuf>, exits: Option<Arc<[PathBuf]>>) -> Dir {
        Dir { rel: self.rel.join(name), depth: self.depth + 1, real, exits }
    }

    /// The resolved path, given the root's: only links need it.
    fn real(&self, root_real: &Path) -> Cow<'_, Path> {
        match &self.real {
            Some(real) => Cow::Borrowed(real),
            None if self.rel.as_os_str().is_empty() => Cow::Owned(root_real.to_path_buf()),
            None => Cow::Owned(root_real.join(&self.rel)),
        }
    }
}

/// What an entry is, as read from its directory.
#[derive(Debug, PartialEq)]
enum Kind {
    File { regular: bool },
    Dir,
    LinkedDir { target: PathBuf },
    LinkLoop,
}

/// A listed directory, as a worker hands it to the in-order pass.
struct Listing<V> {
    entries: Vec<Entry<V>>,
    /// What the worker made of the kept files, in entry order. Held apart
    /// from the entries: most entries are not kept, and would all be the
    /// size of a result.
    visited: Vec<V>,
    /// The followed links among the entries (dangling or not), by name.
    links: Vec<OsString>,
}

impl<V> Default for Listing<V> {
    fn default() -> Self {
        Listing { entries: Vec::new(), visited: Vec::new(), links: Vec::new() }
    }
}

/// One listed entry, decided as far as walk order allows.
enum Entry<V> {
    /// A file; `kept` when the worker visited it. The name is kept only for
    /// a walk that looks at names in order.
    File { name: Option<OsString>, regular: bool, kept: bool },
    /// A directory to enter, with its listing when it was made while its
    /// parent was open (in the entry rather than in a vector of its own:
    /// one allocation less per directory, made on a worker and freed on the
    /// in-order pass's thread).
    Dir { dir: Dir, ahead: Option<Listing<V>> },
    /// A directory reached through a link: entered if no earlier link led there.
    LinkedDir(Dir),
    /// A directory deeper than the depth limit.
    TooDeep,
    /// A skipped directory or a link loop.
    Passed,
}

/// What a listing said of entry `name`, or, where it said nothing
/// (`DT_UNKNOWN`), what the file system says (still `Unknown` if that fails).
fn looked_up(open: &sys::OpenDir, name: &OsStr, kind: Type) -> Type {
    match kind {
        Type::Unknown => open.stat(name, false).unwrap_or(Type::Unknown),
        kind => kind,
    }
}

/// The machine's parallelism, asked once: the question costs a system call
/// (`sched_getaffinity`), and a server walks thousands of small skill
/// directories.
fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, usize::from))
}

/// Maps `items` to results in the same order, on as many threads as the
/// machine has when there are enough items to pay for them.
///
/// ```
/// assert_eq!(skilldeck_walk::parallel_map(&[1, 2, 3], |n| n * 2), [2, 4, 6]);
/// ```
pub fn parallel_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    /// Below this many items per thread, one thread is faster.
    const PER_THREAD_MIN: usize = 32;
    if items.len() < 2 * PER_THREAD_MIN {
        return items.iter().map(f).collect();
    }
    let threads = cores().min(items.len() / PER_THREAD_MIN);
    // Threads take small batches off a shared counter rather than one fixed
    // share each, so a core that is busy elsewhere delays the whole map by
    // at most one batch. The calling thread works too.
    let batch = (items.len() / (threads * 16)).clamp(1, 64);
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let start = next.fetch_add(batch, Ordering::Relaxed);
            let Some(part) = items.get(start..(start + batch).min(items.len())).filter(|p| !p.is_empty()) else {
                return done;
            };
            done.push((start, part.iter().map(&f).collect::<Vec<R>>()));
        }
    };
    let mut batches = std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..threads).map(|_| scope.spawn(work)).collect();
        let mut batches = work();
        for helper in helpers {
            batches.extend(helper.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)));
        }
        batches
    });
    batches.sort_unstable_by_key(|&(start, _)| start);
    batches.into_iter().flat_map(|(_, results)| results).collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::path::Path;

    use super::*;

    /// A listing may say nothing of an entry's type (`DT_UNKNOWN` on some
    /// file systems); the walker must then ask, and decide as if told.
    #[test]
    fn an_unknown_entry_type_is_looked_up() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        fs::create_dir_all(root.join("dir")).unwrap();
        fs::write(root.join("file"), "f").unwrap();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("dir", root.join("dir-link")).unwrap();
            std::os::unix::fs::symlink("file", root.join("file-link")).unwrap();
            std::os::unix::fs::symlink("nowhere", root.join("dangling")).unwrap();
        }
        let walker = Walker::new(root);
        let open = sys::Root::open(root).unwrap().open_dir(Path::new("")).unwrap();
        let root_real = RootReal::new(root);
        let dir = Dir { rel: PathBuf::new(), depth: 0, real: None, exits: None };
        let mut listed = Vec::new();
        open.entries(|name, kind| listed.push((name.to_owned(), kind)));
        assert_eq!(listed.len(), if cfg!(unix) { 5 } else { 2 });
        for (name, told) in listed {
            let as_told = walker.kind(&open, &dir, &root_real, &name, told);
            let looked_up = walker.kind(&open, &dir, &root_real, &name, looked_up(&open, &name, Type::Unknown));
            assert_eq!(looked_up, as_told, "{name:?}");
        }
    }
}
