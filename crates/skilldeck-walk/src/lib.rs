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
//! Two walks use it: skill discovery (files named `SKILL.md`) and sibling
//! sampling (every other file of a skill directory). It knows nothing of skills.
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

use std::collections::HashSet;
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::fs;
use std::path::PathBuf;
use std::sync::Arc;

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
        let mut walk = Walk::default();
        if !self.root.is_dir() {
            return walk;
        }
        let mut seen_links: HashSet<PathBuf> = HashSet::new();
        let real = fs::canonicalize(&self.root).unwrap_or_else(|_| self.root.clone());
        let root = Dir { path: self.root.clone(), rel: PathBuf::new(), depth: 0, real, exits: Arc::default() };
        let mut level = vec![root];
        let (mut dirs, mut entries) = (0usize, 0usize);
        while !level.is_empty() {
            if dirs + level.len() > self.limits.max_dirs {
                level.truncate(self.limits.max_dirs - dirs);
                walk.limit_hit.get_or_insert(LimitHit::Dirs(self.limits.max_dirs));
            }
            dirs += level.len();
            let listings = parallel_map(&level, |dir| self.list(dir));
            let mut next = Vec::new();
            for (dir, listing) in level.iter().zip(listings) {
                for entry in listing {
                    entries += 1;
                    if entries > self.limits.max_entries {
                        walk.limit_hit.get_or_insert(LimitHit::Entries(self.limits.max_entries));
                        return walk;
                    }
                    let depth = dir.depth + 1;
                    match entry.kind {
                        Kind::File { regular } => {
                            if keep(&entry.name) {
                                let (path, rel) = (dir.path.join(&entry.name), dir.rel.join(&entry.name));
                                walk.files.push(File { path, depth, regular, rel });
                            }
                        }
                        _ if self.skip_dirs.contains(&entry.name) => {}
                        _ if depth > self.limits.max_depth => {
                            walk.limit_hit.get_or_insert(LimitHit::Depth(self.limits.max_depth));
                        }
                        Kind::LinkLoop => {}
                        Kind::LinkedDir { ref target } if !seen_links.insert(target.clone()) => {}
                        Kind::Dir => next.push(dir.child(&entry.name, dir.real.join(&entry.name), dir.exits.clone())),
                        Kind::LinkedDir { target } => {
                            let exits = dir.exits.iter().cloned().chain([dir.real.clone()]).collect();
                            next.push(dir.child(&entry.name, target, exits));
                        }
                    }
                }
            }
            level = next;
        }
        walk
    }

    /// The entries of one directory, sorted by name, with links resolved.
    fn list(&self, dir: &Dir) -> Vec<Entry> {
        let Ok(listing) = fs::read_dir(&dir.path) else {
            return Vec::new();
        };
        let mut entries: Vec<Entry> = listing
            .filter_map(Result::ok)
            .filter_map(|entry| {
                let kind = self.kind(dir, &entry)?;
                Some(Entry { name: entry.file_name(), kind })
            })
            .collect();
        entries.sort_unstable_by(|a, b| a.name.cmp(&b.name));
        entries
    }

    /// What an entry is, or `None` for one to pass over (a dangling link, or
    /// any link when links are skipped).
    fn kind(&self, parent: &Dir, entry: &fs::DirEntry) -> Option<Kind> {
        let file_type = entry.file_type().ok()?;
        if !file_type.is_symlink() {
            return Some(if file_type.is_dir() { Kind::Dir } else { Kind::File { regular: file_type.is_file() } });
        }
        if self.symlinks == Symlinks::Skip {
            return None;
        }
        let meta = fs::metadata(entry.path()).ok()?;
        if !meta.is_dir() {
            return Some(Kind::File { regular: meta.is_file() });
        }
        // A link to a directory that holds any directory of the walked path
        // (an ancestor, the root, or a directory left through an earlier link)
        // leads back into the walk: a loop. Each other link target is entered
        // once per walk, so every walk ends.
        let target = fs::canonicalize(entry.path()).ok()?;
        let is_loop = parent.real.starts_with(&target) || parent.exits.iter().any(|exit| exit.starts_with(&target));
        Some(if is_loop { Kind::LinkLoop } else { Kind::LinkedDir { target } })
    }
}

/// A directory to list.
struct Dir {
    /// The walked path.
    path: PathBuf,
    /// The walked path relative to the root.
    rel: PathBuf,
    depth: usize,
    /// The resolved path, derived without system calls below the last link.
    real: PathBuf,
    /// The resolved paths of the directories where the walk took a link to
    /// get here: the rest of the walked path, for the loop guard.
    exits: Arc<[PathBuf]>,
}

impl Dir {
    fn child(&self, name: &OsStr, real: PathBuf, exits: Arc<[PathBuf]>) -> Dir {
        Dir { path: self.path.join(name), rel: self.rel.join(name), depth: self.depth + 1, real, exits }
    }
}

/// One listed entry.
struct Entry {
    name: OsString,
    kind: Kind,
}

enum Kind {
    File { regular: bool },
    Dir,
    LinkedDir { target: PathBuf },
    LinkLoop,
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
    let threads = std::thread::available_parallelism().map_or(1, usize::from).min(items.len() / PER_THREAD_MIN).max(1);
    if threads == 1 {
        return items.iter().map(f).collect();
    }
    let chunk = items.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let workers: Vec<_> =
            items.chunks(chunk).map(|part| scope.spawn(|| part.iter().map(&f).collect::<Vec<R>>())).collect();
        workers.into_iter().flat_map(|w| w.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))).collect()
    })
}
