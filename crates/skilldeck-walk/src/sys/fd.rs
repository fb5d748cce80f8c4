//! Directories read through file descriptors (Linux, Android).
//!
//! Each directory is opened relative to the walk's root descriptor and read
//! with `getdents64` into a caller's buffer; its files are opened relative to
//! the directory's own descriptor. So the kernel resolves one or two names per
//! open instead of a whole absolute path, and no directory costs an `fstat`
//! (as `opendir` does).

use std::cell::RefCell;
use std::ffi::OsStr;
use std::fs;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use rustix::fd::OwnedFd;
use rustix::fs::{AtFlags, CWD, FileType, Mode, OFlags, RawDir, openat, statat};

use super::Type;

/// Bytes of directory entries fetched per `getdents64`: a small directory
/// takes one call (and the call that says it is done).
const LIST_BUF: usize = 16 * 1024;

thread_local! {
    /// Each thread lists into one buffer, not a fresh one per directory.
    static BUFFER: RefCell<Vec<u8>> = RefCell::new(Vec::with_capacity(LIST_BUF));
}

/// The root of a walk, held open for the whole walk.
pub(crate) struct Root(OwnedFd);

impl Root {
    pub(crate) fn open(path: &Path) -> io::Result<Root> {
        Ok(Root(openat(CWD, path, OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty())?))
    }

    /// Opens the directory at `rel` below the root (`""`: the root itself).
    /// Links on the way are followed, as a path lookup would.
    pub(crate) fn open_dir(&self, rel: &Path) -> io::Result<OpenDir> {
        let rel = if rel.as_os_str().is_empty() { Path::new(".") } else { rel };
        Ok(OpenDir(openat(&self.0, rel, OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty())?))
    }
}

/// An open directory.
pub(crate) struct OpenDir(OwnedFd);

impl OpenDir {
    /// Calls `f` with the name and type of each entry but `.` and `..`, in the
    /// file system's order. A read error ends the listing.
    pub(crate) fn entries(&self, mut f: impl FnMut(&OsStr, Type)) {
        BUFFER.with_borrow_mut(|buf| {
            let mut dir = RawDir::new(&self.0, buf.spare_capacity_mut());
            while let Some(Ok(entry)) = dir.next() {
                let name = entry.file_name().to_bytes();
                if name != b"." && name != b".." {
                    f(OsStr::from_bytes(name), kind(entry.file_type()));
                }
            }
        });
    }

    /// Opens subdirectory `name` of this directory.
    pub(crate) fn open_dir(&self, name: &OsStr) -> io::Result<OpenDir> {
        Ok(OpenDir(openat(&self.0, name, OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty())?))
    }

    /// The type of entry `name`, through a link when `follow`.
    pub(crate) fn stat(&self, name: &OsStr, follow: bool) -> io::Result<Type> {
        let flags = if follow { AtFlags::empty() } else { AtFlags::SYMLINK_NOFOLLOW };
        Ok(kind(FileType::from_raw_mode(statat(&self.0, name, flags)?.st_mode)))
    }

    /// Opens file `name` of this directory for reading, without waiting: a
    /// FIFO swapped in since the listing reads as empty rather than hanging
    /// the walk, and no device becomes the controlling terminal.
    pub(crate) fn open_file(&self, name: &OsStr) -> io::Result<fs::File> {
        let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
        Ok(openat(&self.0, name, flags, Mode::empty())?.into())
    }
}

fn kind(file_type: FileType) -> Type {
    match file_type {
        FileType::Directory => Type::Dir,
        FileType::RegularFile => Type::Regular,
        FileType::Symlink => Type::Symlink,
        // `d_type` is DT_UNKNOWN on file systems that do not fill it in.
        FileType::Unknown => Type::Unknown,
        _ => Type::Other,
    }
}
