//! The commands that get skills into a project and keep them as
//! `skills-lock.json` records them: `add`, `install`, `remove`, `verify`,
//! `update`, one file each below `install/`. Every rule is
//! `skilldeck-install`'s; this is flags and output.

use std::path::PathBuf;

use clap::Args;
use skilldeck::audit::Report;
use skilldeck_install::{GitCache, InstallError, Project};

pub(crate) mod add;
pub(crate) mod remove;
pub(crate) mod sync;
pub(crate) mod update;
pub(crate) mod verify;

/// The project a command changes, shared by the install commands.
#[derive(Args, Debug)]
pub(crate) struct ProjectArgs {
    /// The project directory: its .agents/skills and skills-lock.json (default: the working directory).
    #[arg(long, value_name = "DIR", default_value = ".", conflicts_with = "global")]
    project: PathBuf,
    /// The user's own skills instead of a project's: ~/.agents/skills and ~/.agents/.skill-lock.json
    /// ($XDG_STATE_HOME/skills/.skill-lock.json when XDG_STATE_HOME is set), the `skills` package's
    /// global lock.
    #[arg(long, short = 'g')]
    global: bool,
}

impl ProjectArgs {
    /// The project (or the user's skills), fetching into the user's cache.
    pub(crate) fn open(&self) -> anyhow::Result<Project> {
        let cache = GitCache::user()?;
        if self.global {
            let home = std::env::home_dir().filter(|h| h.is_absolute());
            let home = home.ok_or_else(|| anyhow::anyhow!("--global: no home directory (HOME is not set)"))?;
            return Ok(Project::global(home, cache));
        }
        Ok(Project::new(&self.project, cache))
    }
}

/// Prints on stderr, in `skilldeck audit`'s lines, what the audit found in
/// the skills a command installs: nothing when it found nothing.
pub(crate) fn show_audit<'a>(reports: impl IntoIterator<Item = &'a Report>) {
    let shown: Vec<Report> =
        reports.into_iter().filter(|r| !r.findings.is_empty() || !r.unread.is_empty()).cloned().collect();
    if !shown.is_empty() {
        crate::output::eprint(&crate::audit::lines(&shown));
    }
}

/// `error`, after [`show_audit`] of the skills it refused, if it is the audit's refusal.
pub(crate) fn show_refusal(error: InstallError) -> InstallError {
    if let InstallError::Risky { reports, .. } = &error {
        show_audit(reports);
    }
    error
}

/// A commit as people read it: its first 12 digits.
pub(crate) fn short(commit: &str) -> &str {
    commit.get(..12).unwrap_or(commit)
}
