//! The commands that get skills into a project and keep them as
//! `skills-lock.json` records them: `add`, `install`, `remove`, `verify`,
//! `update`, one file each below `install/`. Every rule is
//! `skilldeck-install`'s; this is flags and output.

use std::path::PathBuf;

use clap::Args;
use skilldeck_install::{GitCache, Project};

pub(crate) mod add;
pub(crate) mod remove;
pub(crate) mod sync;
pub(crate) mod update;
pub(crate) mod verify;

/// The project a command changes, shared by the install commands.
#[derive(Args, Debug)]
pub(crate) struct ProjectArgs {
    /// The project directory: its .agents/skills and skills-lock.json (default: the working directory).
    #[arg(long, value_name = "DIR", default_value = ".")]
    project: PathBuf,
}

impl ProjectArgs {
    /// The project, fetching into the user's cache.
    pub(crate) fn open(&self) -> anyhow::Result<Project> {
        Ok(Project::new(&self.project, GitCache::user()?))
    }
}

/// A commit as people read it: its first 12 digits.
pub(crate) fn short(commit: &str) -> &str {
    commit.get(..12).unwrap_or(commit)
}
