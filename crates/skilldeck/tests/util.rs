//! Temporary skill trees written to real directories.

use std::path::{Path, PathBuf};

use tempfile::TempDir;

/// A temporary directory to build skill trees in.
pub(crate) struct Tree {
    dir: TempDir,
}

impl Tree {
    /// A new, empty tree.
    pub(crate) fn new() -> Tree {
        Tree { dir: tempfile::tempdir().expect("temp dir") }
    }

    /// The absolute root of the tree.
    pub(crate) fn root(&self) -> &Path {
        self.dir.path()
    }

    /// `root/rel`.
    pub(crate) fn path(&self, rel: &str) -> PathBuf {
        self.root().join(rel)
    }

    /// Writes `contents` at `rel`, creating parent directories.
    pub(crate) fn file(&self, rel: &str, contents: impl AsRef<[u8]>) -> &Tree {
        let path = self.path(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, contents).expect("write");
        self
    }

    /// Writes `rel/SKILL.md` with this name, description and body.
    pub(crate) fn skill(&self, rel: &str, name: &str, description: &str, body: &str) -> &Tree {
        let md = format!("---\nname: {name}\ndescription: {description}\n---\n{body}");
        self.file(&format!("{rel}/SKILL.md"), md)
    }

    /// Creates a symbolic link at `rel` pointing to `target`.
    pub(crate) fn symlink(&self, target: impl AsRef<Path>, rel: &str) -> &Tree {
        let path = self.path(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::os::unix::fs::symlink(target, path).expect("symlink");
        self
    }

    /// Creates the directory `rel`.
    pub(crate) fn dir(&self, rel: &str) -> &Tree {
        std::fs::create_dir_all(self.path(rel)).expect("mkdir");
        self
    }
}
