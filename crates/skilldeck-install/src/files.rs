//! The files of one skill directory: the one walk that installing,
//! `computedHash`, the per-file digests and `verify` all read, and the bounds
//! a skill must keep to be installed.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// Directory names never entered in a skill: the ones the `skills` package's
/// `computeSkillFolderHash` skips (and skilldeck's discovery does not enter).
pub(crate) const SKIPPED_DIRS: [&str; 2] = [".git", "node_modules"];

/// The most bytes one file of an installed skill may hold: what skilldeck
/// serves at most ([`skilldeck::MAX_SERVED_BYTES`], 16 MiB).
pub const MAX_FILE_BYTES: u64 = skilldeck::MAX_SERVED_BYTES;

/// The most files one installed skill may hold.
pub const MAX_FILES: usize = 10_000;

/// A file of a skill directory.
#[derive(Clone, Debug)]
pub(crate) struct SkillFile {
    /// Its path below the skill's directory, `/`-separated.
    pub(crate) rel: String,
    /// Its path on disk.
    pub(crate) path: PathBuf,
    /// A symbolic link (to a file inside the skill), not a regular file.
    pub(crate) link: bool,
}

/// A skill directory that cannot be installed or read as it is.
#[derive(Debug, thiserror::Error)]
pub enum FilesError {
    /// A file or directory could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A symbolic link whose target is outside the skill, a directory, or missing.
    #[error("{path}: a link to {target}, which is not a file inside the skill")]
    LinkLeaves {
        /// The link.
        path: PathBuf,
        /// Where it leads (as read).
        target: PathBuf,
    },
    /// A file over [`MAX_FILE_BYTES`].
    #[error("{path}: {bytes} bytes, over the {MAX_FILE_BYTES}-byte bound of one file")]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size.
        bytes: u64,
    },
    /// More than [`MAX_FILES`] files.
    #[error("{dir}: more than {MAX_FILES} files")]
    TooMany {
        /// The skill directory.
        dir: PathBuf,
    },
    /// A name the lock cannot hold (not UTF-8), or a device, socket or pipe.
    #[error("{path}: not a regular file with a UTF-8 name")]
    Unusual {
        /// The file.
        path: PathBuf,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> FilesError + '_ {
    move |source| FilesError::Io { path: path.to_path_buf(), source }
}

/// Every file below `dir` (not in [`SKIPPED_DIRS`]), by code point of its
/// relative path; refuses links leaving the skill, files over
/// [`MAX_FILE_BYTES`] and more than [`MAX_FILES`] files.
pub(crate) fn collect(dir: &Path) -> Result<Vec<SkillFile>, FilesError> {
    let real_dir = fs::canonicalize(dir).map_err(io(dir))?;
    let mut out = Vec::new();
    let mut pending = vec![(dir.to_path_buf(), String::new())];
    while let Some((current, prefix)) = pending.pop() {
        for entry in fs::read_dir(&current).map_err(io(&current))? {
            let entry = entry.map_err(io(&current))?;
            let path = entry.path();
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                return Err(FilesError::Unusual { path });
            };
            let rel = if prefix.is_empty() { name.clone() } else { format!("{prefix}/{name}") };
            let kind = entry.file_type().map_err(io(&path))?;
            if kind.is_dir() {
                if !SKIPPED_DIRS.contains(&name.as_str()) {
                    pending.push((path, rel));
                }
                continue;
            }
            let link = kind.is_symlink();
            if link {
                let target = fs::read_link(&path).map_err(io(&path))?;
                let inside = fs::canonicalize(&path).ok().filter(|real| real.starts_with(&real_dir) && real.is_file());
                if inside.is_none() {
                    return Err(FilesError::LinkLeaves { path, target });
                }
            } else if !kind.is_file() {
                return Err(FilesError::Unusual { path });
            }
            let bytes = fs::metadata(&path).map_err(io(&path))?.len();
            if bytes > MAX_FILE_BYTES {
                return Err(FilesError::TooLarge { path, bytes });
            }
            out.push(SkillFile { rel, path, link });
            if out.len() > MAX_FILES {
                return Err(FilesError::TooMany { dir: dir.to_path_buf() });
            }
        }
    }
    out.sort_by(|a, b| a.rel.cmp(&b.rel));
    Ok(out)
}

/// A file's bytes (a link's target's), at most [`MAX_FILE_BYTES`].
pub(crate) fn read(path: &Path) -> Result<Vec<u8>, FilesError> {
    let file = fs::File::open(path).map_err(io(path))?;
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes).map_err(io(path))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(FilesError::TooLarge { path: path.to_path_buf(), bytes: bytes.len() as u64 });
    }
    Ok(bytes)
}

/// Lowercase hexadecimal.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The lock's digest of one file's bytes: `sha256:` and 64 lowercase hex digits.
pub(crate) fn digest(bytes: &[u8]) -> String {
    format!("sha256:{}", hex(&Sha256::digest(bytes)))
}
