//! Directories read by path with `std::fs`, for platforms without the
//! descriptor-relative calls of `fd.rs`.

use std::ffi::OsStr;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::Type;

/// The root of a walk.
pub(crate) struct Root(PathBuf);

impl Root {
    pub(crate) fn open(path: &Path) -> io::Result<Root> {
        if !path.is_dir() {
            return Err(io::Error::new(io::ErrorKind::NotADirectory, "not a directory"));
        }
        Ok(Root(path.to_path_buf()))
    }

    /// The directory at `rel` below the root (`""`: the root itself); it is
    /// read by path, so it is not opened here.
    pub(crate) fn open_dir(&self, rel: &Path) -> io::Result<OpenDir> {
        Ok(OpenDir(self.0.join(rel)))
    }
}

/// A directory, by path.
pub(crate) struct OpenDir(PathBuf);

impl OpenDir {
    /// Calls `f` with the name and type of each entry, in the file system's
    /// order. Entries that cannot be read are passed over.
    pub(crate) fn entries(&self, mut f: impl FnMut(&OsStr, Type)) {
        let Ok(listing) = fs::read_dir(&self.0) else { return };
        for entry in listing.flatten() {
            let kind = entry.file_type().map_or(Type::Unknown, |t| kind(&t));
            f(&entry.file_name(), kind);
        }
    }

    /// Subdirectory `name` of this directory.
    pub(crate) fn open_dir(&self, name: &OsStr) -> io::Result<OpenDir> {
        Ok(OpenDir(self.0.join(name)))
    }

    /// The type of entry `name`, through a link when `follow`.
    pub(crate) fn stat(&self, name: &OsStr, follow: bool) -> io::Result<Type> {
        let path = self.0.join(name);
        let meta = if follow { fs::metadata(path)? } else { fs::symlink_metadata(path)? };
        Ok(kind(&meta.file_type()))
    }

    /// Opens file `name` of this directory for reading.
    pub(crate) fn open_file(&self, name: &OsStr) -> io::Result<fs::File> {
        fs::File::open(self.0.join(name))
    }
}

fn kind(file_type: &fs::FileType) -> Type {
    if file_type.is_symlink() {
        Type::Symlink
    } else if file_type.is_dir() {
        Type::Dir
    } else if file_type.is_file() {
        Type::Regular
    } else {
        Type::Other
    }
}
