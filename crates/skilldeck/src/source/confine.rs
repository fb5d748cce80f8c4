//! What may leave a host as bytes (SPEC §11): a regular file whose real path
//! lies inside the real path of the root its skill was found under (not any
//! root: a hostile root must not open another's files), no larger than
//! [`MAX_SERVED_BYTES`], judged on the opened descriptor at read time; and
//! for data and store skills, the same size limit.
//!
//! Discovery and the `skill` tool's file list follow links as toolnexus does:
//! they show paths. Only bytes are confined: a link to `/etc/passwd`, to
//! `/proc/self/environ` or to a directory elsewhere is listed by the tool and
//! never read, and a FIFO or device is never opened for reading.

use std::fmt;
use std::fs::{self, File};
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// The most bytes skilldeck serves for one file, body or record, and for
/// one skill's files together over MCP: 16 MiB, the Skills extension's limit.
pub const MAX_SERVED_BYTES: u64 = 16 * 1024 * 1024;

/// The root whose files a disk skill may serve, resolved when it was walked:
/// each disk skill holds its own root's ([`Skill::confinement`](crate::Skill::confinement)).
/// The default confines to nothing: every file is refused.
///
/// # Example
///
/// ```
/// let (a, b) = (tempfile::tempdir()?, tempfile::tempdir()?);
/// std::fs::create_dir_all(a.path().join("hello"))?;
/// std::fs::write(a.path().join("hello/SKILL.md"), "---\nname: hello\n---\nHi.\n")?;
/// std::os::unix::fs::symlink("/etc/passwd", a.path().join("hello/passwd.txt"))?;
/// // A file of another root is not this skill's to serve.
/// std::fs::write(b.path().join("secret.txt"), "of the other root")?;
/// std::os::unix::fs::symlink(b.path().join("secret.txt"), a.path().join("hello/other.txt"))?;
/// let catalog = skilldeck::Catalog::builder().root(a.path()).root(b.path()).build();
/// let confinement = catalog.get("hello").and_then(|skill| skill.confinement()).unwrap();
/// assert_eq!(confinement.read(&a.path().join("hello/SKILL.md"))?, b"---\nname: hello\n---\nHi.\n");
/// let refused = confinement.read(&a.path().join("hello/passwd.txt")).unwrap_err();
/// assert!(refused.to_string().ends_with("leads outside its root (to /etc/passwd)"));
/// assert!(confinement.read(&a.path().join("hello/other.txt")).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Confinement {
    root: Option<ConfinedRoot>,
}

#[derive(Clone, Debug)]
struct ConfinedRoot {
    /// The root as walked (absolute, links not resolved).
    absolute: PathBuf,
    /// The root resolved: what every served file's real path starts with.
    real: PathBuf,
    /// Whether the root's walk followed a link: without one, every walked
    /// path below `absolute` is inside `real` and needs no resolving.
    linked: bool,
}

/// Why bytes are not served.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Refusal {
    /// A FIFO, socket, device or directory where a file was expected.
    #[error("{} is not a regular file ({kind})", path.display())]
    NotRegular {
        /// The path as asked for.
        path: PathBuf,
        /// What it is instead.
        kind: &'static str,
    },
    /// A link (or a path through one) that leaves the root of the skill
    /// whose file it is.
    #[error("{} leads outside its root (to {})", path.display(), real.display())]
    OutsideRoots {
        /// The path as asked for.
        path: PathBuf,
        /// Where it really is.
        real: PathBuf,
    },
    /// More bytes than [`MAX_SERVED_BYTES`].
    #[error("{what} is {size} bytes, more than the {limit} bytes (16 MiB) skilldeck serves")]
    TooLarge {
        /// The file's path, or `store:<name>` for a record.
        what: String,
        /// Its size (at least; a file that grows while read is cut short).
        size: u64,
        /// The limit, [`MAX_SERVED_BYTES`].
        limit: u64,
    },
    /// The file could not be opened or read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path as asked for.
        path: PathBuf,
        /// The error.
        source: io::Error,
    },
}

impl Refusal {
    /// The refusal of `size` bytes of `what` when they are over the limit.
    pub fn check_size(what: impl fmt::Display, size: u64) -> Result<(), Refusal> {
        match size > MAX_SERVED_BYTES {
            true => Err(Refusal::TooLarge { what: what.to_string(), size, limit: MAX_SERVED_BYTES }),
            false => Ok(()),
        }
    }
}

impl From<Refusal> for io::Error {
    fn from(refusal: Refusal) -> io::Error {
        match refusal {
            Refusal::Io { source, .. } => source,
            other => io::Error::new(io::ErrorKind::PermissionDenied, other),
        }
    }
}

/// A file opened for serving and checked: regular, inside its root, within
/// the limit.
#[derive(Debug)]
pub struct Opened {
    file: File,
    path: PathBuf,
    metadata: fs::Metadata,
}

impl Opened {
    /// The opened file's metadata, from its descriptor when it was opened.
    pub fn metadata(&self) -> &fs::Metadata {
        &self.metadata
    }

    /// Reads the whole file, at most [`MAX_SERVED_BYTES`]: one that grew past
    /// the limit since it was opened is refused, not served in part.
    ///
    /// # Errors
    ///
    /// The read fails, or the file grew past the limit.
    pub fn read(self) -> Result<Vec<u8>, Refusal> {
        let size = usize::try_from(self.metadata.len()).unwrap_or(0);
        let mut bytes = Vec::with_capacity(size.saturating_add(1));
        self.read_to(&mut bytes, MAX_SERVED_BYTES as usize + 1)?;
        Refusal::check_size(self.path.display(), bytes.len() as u64)?;
        Ok(bytes)
    }

    /// Reads on into `bytes` until it holds `len` bytes or the file ends,
    /// and says whether it ended: for a reader that needs only a file's
    /// start.
    pub(crate) fn read_to(&self, bytes: &mut Vec<u8>, len: usize) -> Result<bool, Refusal> {
        let want = len.saturating_sub(bytes.len());
        let io = |source| Refusal::Io { path: self.path.clone(), source };
        let got = (&self.file).take(want as u64).read_to_end(bytes).map_err(io)?;
        Ok(got < want)
    }
}

impl Confinement {
    /// The confinement to no root: every file is refused (the default).
    pub const NOWHERE: Confinement = Confinement { root: None };

    /// The confinement to one root, given as walked (`absolute`) and
    /// resolved (`real`), with whether its walk followed a link.
    pub(crate) fn root(absolute: PathBuf, real: PathBuf, linked: bool) -> Confinement {
        Confinement { root: Some(ConfinedRoot { absolute, real, linked }) }
    }

    /// Whether `real`, a resolved path, lies inside the root.
    fn contains(&self, real: &Path) -> bool {
        self.root.as_ref().is_some_and(|root| real.starts_with(&root.real))
    }

    /// Checks that the walked path `path` (a skill directory, or a file found
    /// by a walk that followed links) lies inside the root, resolving it only
    /// where a link may be on its way.
    ///
    /// # Errors
    ///
    /// The path leads outside the root, or cannot be resolved.
    pub fn check_path(&self, path: &Path) -> Result<(), Refusal> {
        if self.root.as_ref().is_some_and(|root| !root.linked && path.starts_with(&root.absolute)) {
            return Ok(());
        }
        self.check_resolved(path)
    }

    /// Checks, without opening it, that the file at `path`, found by a walk
    /// of a directory [`check_path`](Confinement::check_path) admits, may be
    /// served: a regular file, inside the root (resolved only when that walk
    /// followed a link, `linked`). Returns its size; the size limit is the
    /// caller's, who adds sizes up, and the opened file is checked again
    /// when read.
    ///
    /// # Errors
    ///
    /// Any [`Refusal`] but `TooLarge`.
    pub fn check_file(&self, path: &Path, linked: bool) -> Result<u64, Refusal> {
        let meta = fs::metadata(path).map_err(|source| Refusal::Io { path: path.to_owned(), source })?;
        regular(path, &meta)?;
        if linked {
            self.check_resolved(path)?;
        }
        Ok(meta.len())
    }

    fn check_resolved(&self, path: &Path) -> Result<(), Refusal> {
        let real = fs::canonicalize(path).map_err(|source| Refusal::Io { path: path.to_owned(), source })?;
        match self.contains(&real) {
            true => Ok(()),
            false => Err(Refusal::OutsideRoots { path: path.to_owned(), real }),
        }
    }

    /// Opens `path` for serving and checks the opened descriptor: a regular
    /// file (a special file is refused before it is opened, and opened
    /// without blocking in case it was swapped in since), inside the root,
    /// within the size limit.
    ///
    /// # Errors
    ///
    /// Any [`Refusal`].
    pub fn open(&self, path: &Path) -> Result<Opened, Refusal> {
        let io = |source| Refusal::Io { path: path.to_owned(), source };
        regular(path, &fs::metadata(path).map_err(io)?)?;
        let file = open_nonblocking(path).map_err(io)?;
        let meta = file.metadata().map_err(io)?;
        regular(path, &meta)?;
        let real = real_path(&file, path).map_err(io)?;
        if !self.contains(&real) {
            return Err(Refusal::OutsideRoots { path: path.to_owned(), real });
        }
        Refusal::check_size(path.display(), meta.len())?;
        Ok(Opened { file, path: path.to_owned(), metadata: meta })
    }

    /// The bytes of `path`, if it may be served: [`Confinement::open`], then
    /// [`Opened::read`].
    ///
    /// # Errors
    ///
    /// Any [`Refusal`].
    pub fn read(&self, path: &Path) -> Result<Vec<u8>, Refusal> {
        self.open(path)?.read()
    }
}

/// Refuses anything but a regular file, saying what it is.
fn regular(path: &Path, meta: &fs::Metadata) -> Result<(), Refusal> {
    let kind = meta.file_type();
    if kind.is_file() {
        return Ok(());
    }
    let kind = if kind.is_dir() { "a directory" } else { special_kind(&kind) };
    Err(Refusal::NotRegular { path: path.to_owned(), kind })
}

#[cfg(unix)]
fn special_kind(kind: &fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_block_device() || kind.is_char_device() {
        "a device"
    } else {
        "a special file"
    }
}

#[cfg(not(unix))]
fn special_kind(_: &fs::FileType) -> &'static str {
    "a special file"
}

/// Opens for reading without waiting: a FIFO swapped in after the check
/// opens at once (and is then refused), and no device becomes a terminal.
#[cfg(unix)]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    use rustix::fs::{Mode, OFlags};
    let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
    Ok(File::from(rustix::fs::open(path, flags, Mode::empty())?))
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    File::open(path)
}

/// The real path of the opened file: from the descriptor where `/proc` says
/// it, else `path` resolved now, if it still names the opened file.
fn real_path(file: &File, path: &Path) -> io::Result<PathBuf> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use std::os::fd::AsRawFd;
        if let Ok(real) = fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())) {
            return Ok(real);
        }
    }
    let real = fs::canonicalize(path)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let (opened, named) = (file.metadata()?, fs::metadata(&real)?);
        if (opened.dev(), opened.ino()) != (named.dev(), named.ino()) {
            return Err(io::Error::other("the file changed while it was opened"));
        }
    }
    #[cfg(not(unix))]
    let _ = file;
    Ok(real)
}
