//! What an install command did, or why it changed nothing: the results
//! `Project`'s commands return and the one error they share.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use skilldeck::audit::Report;

use crate::files::FilesError;
use crate::git::GitError;
use crate::lock::{LOCK_FILE, LockError};
use crate::source::SourceError;

/// Why a command changed nothing.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// The SOURCE could not be read.
    #[error(transparent)]
    Source(#[from] SourceError),
    /// git failed.
    #[error(transparent)]
    Git(#[from] GitError),
    /// The lock could not be read or written.
    #[error(transparent)]
    Lock(#[from] LockError),
    /// A skill's files cannot be installed or read.
    #[error("skill {name}: {source}")]
    Files {
        /// The skill.
        name: String,
        /// Why.
        source: FilesError,
    },
    /// `--link HOST` for a host the table does not have.
    #[error("no host is called {name:?} (known: {})", known.join(", "))]
    UnknownHost {
        /// The name given.
        name: String,
        /// The hosts known, by name.
        known: Vec<&'static str>,
    },
    /// The source holds no skill.
    #[error("{origin}: no skills found (no SKILL.md skilldeck can read)")]
    NoSkills {
        /// The source, as typed or locked.
        origin: String,
    },
    /// `--skill NAME` that the source does not hold.
    #[error("{origin}: no skill {name:?} (it holds: {})", available.join(", "))]
    NoSuchSkill {
        /// The source, as typed or locked.
        origin: String,
        /// The name asked for.
        name: String,
        /// The names it holds.
        available: Vec<String>,
    },
    /// A skill directory is already there and the lock does not name it.
    #[error("skill {name} from {origin}: {} exists and {LOCK_FILE} does not name it (--force replaces it)", dir.display())]
    Collision {
        /// The skill.
        name: String,
        /// The source, as typed or locked.
        origin: String,
        /// The directory there.
        dir: PathBuf,
    },
    /// A skill that fails validation, or whose name cannot be a directory's.
    #[error("skill {name} from {origin} is not valid (--force installs it anyway): {}", reasons.join("; "))]
    Invalid {
        /// The skill.
        name: String,
        /// The source, as typed or locked.
        origin: String,
        /// The validator's errors.
        reasons: Vec<String>,
    },
    /// `remove` or `update` of a skill the lock does not name.
    #[error("skill {name}: not in {LOCK_FILE}")]
    NotInstalled {
        /// The skill.
        name: String,
    },
    /// `install --frozen` found an installed skill that differs from the lock.
    #[error("skill {name}: the installed files differ from {LOCK_FILE}: {diff}")]
    Frozen {
        /// The skill.
        name: String,
        /// How.
        diff: Diff,
    },
    /// `install --frozen` with no lock.
    #[error("{}: no lock to install from", path.display())]
    NoLock {
        /// Where it was looked for.
        path: PathBuf,
    },
    /// The source no longer gives, at the locked commit, the files the lock records.
    #[error("skill {name}: {origin} gives other files than {LOCK_FILE} records: {diff}")]
    Mismatch {
        /// The skill.
        name: String,
        /// The source, as typed or locked.
        origin: String,
        /// How.
        diff: Diff,
    },
    /// A lock entry skilldeck cannot install (a `well-known` or `node_modules` source, no `skillPath`).
    #[error("skill {name}: cannot install from {LOCK_FILE}: {reason}")]
    Unsupported {
        /// The skill.
        name: String,
        /// Why.
        reason: String,
    },
    /// The audit found a finding at [`RISKY`](skilldeck::audit::RISKY) or
    /// above in a skill to install, and the risk was not allowed (or the
    /// audit could not run).
    #[error("skill {name}: {reason}; nothing was installed (--allow-risk installs it anyway)")]
    Risky {
        /// The first skill refused.
        name: String,
        /// What the audit found, or why it could not run.
        reason: String,
        /// The reports of every skill refused, their paths where they would be installed.
        reports: Vec<Report>,
    },
    /// A file or directory of the project could not be changed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

pub(crate) fn io(path: &Path) -> impl FnOnce(std::io::Error) -> InstallError + '_ {
    move |source| InstallError::Io { path: path.to_path_buf(), source }
}

/// How a skill's files differ from what the lock records.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diff {
    /// In both, with other bytes.
    pub modified: Vec<String>,
    /// In the lock, not on disk.
    pub missing: Vec<String>,
    /// On disk, not in the lock.
    pub extra: Vec<String>,
}

impl Diff {
    /// The files of `expected` (the lock) against `actual` (disk or source).
    pub fn between(expected: &BTreeMap<String, String>, actual: &BTreeMap<String, String>) -> Diff {
        let mut diff = Diff::default();
        for (rel, digest) in expected {
            match actual.get(rel) {
                None => diff.missing.push(rel.clone()),
                Some(d) if d != digest => diff.modified.push(rel.clone()),
                Some(_) => {}
            }
        }
        diff.extra = actual.keys().filter(|rel| !expected.contains_key(*rel)).cloned().collect();
        diff
    }

    /// No difference.
    pub fn is_empty(&self) -> bool {
        self.modified.is_empty() && self.missing.is_empty() && self.extra.is_empty()
    }
}

impl fmt::Display for Diff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = [("modified", &self.modified), ("missing", &self.missing), ("extra", &self.extra)]
            .into_iter()
            .filter(|(_, list)| !list.is_empty())
            .map(|(what, list)| format!("{what} {}", list.join(", ")))
            .collect();
        if parts.is_empty() { f.write_str("no difference") } else { f.write_str(&parts.join("; ")) }
    }
}

/// A skill a source holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// Its name.
    pub name: String,
    /// Its description.
    pub description: Option<String>,
    /// Its `SKILL.md`'s path in the source, `/`-separated.
    pub skill_path: String,
}

/// A skill a command installed or changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Installed {
    /// Its name.
    pub name: String,
    /// The commit it came from (`None`: a local directory).
    pub commit: Option<String>,
    /// How many files it has.
    pub files: usize,
    /// What the audit found in it, its paths where it was installed.
    pub audit: Report,
}

/// One skill's `verify` finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verified {
    /// The skill.
    pub name: String,
    /// Its files against the lock's `files` (empty for an entry without them).
    pub diff: Diff,
    /// For an entry without `files` (the `skills` package's): its
    /// `computedHash` differs from the installed copy's (or it is gone).
    pub hash_differs: bool,
}

impl Verified {
    /// The installed copy is what the lock records.
    pub fn is_clean(&self) -> bool {
        self.diff.is_empty() && !self.hash_differs
    }
}

/// What `update` did to one skill.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Update {
    /// Moved to a newer commit.
    Moved {
        /// The skill.
        name: String,
        /// The commit it was at.
        from: Option<String>,
        /// The commit it is at now.
        to: String,
        /// The files: `missing` were removed, `extra` added, `modified` changed.
        diff: Diff,
        /// What the audit found in the new files, its paths where they are.
        audit: Box<Report>,
    },
    /// Already at the newest commit of its ref.
    Current {
        /// The skill.
        name: String,
    },
    /// Its ref is a commit (or it is a local directory): left alone.
    Pinned {
        /// The skill.
        name: String,
    },
}

impl Update {
    /// The skill's name.
    pub fn name(&self) -> &str {
        match self {
            Update::Moved { name, .. } | Update::Current { name } | Update::Pinned { name } => name,
        }
    }
}
