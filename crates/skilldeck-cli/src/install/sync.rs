//! `skilldeck install`: every skill `skills-lock.json` records, at its
//! recorded commit, each file checked against its digest; `--frozen` fails,
//! changing nothing, when an installed skill differs from the lock.

use std::process::ExitCode;

use clap::Args;
use skilldeck::escape_control;

use super::{ProjectArgs, short};
use crate::print;

/// `skilldeck install`'s flags.
#[derive(Args, Debug)]
pub(crate) struct InstallArgs {
    /// Fail, changing nothing, when an installed skill differs from skills-lock.json (for CI);
    /// never write the lock.
    #[arg(long)]
    frozen: bool,
    #[command(flatten)]
    project: ProjectArgs,
}

pub(crate) fn run(args: &InstallArgs) -> anyhow::Result<ExitCode> {
    let project = args.project.open()?;
    let installed = project.install(args.frozen)?;
    let locked = project.lock()?.skills.len();
    let mut out = String::new();
    for skill in &installed {
        let at = skill.commit.as_deref().map_or(String::new(), |c| format!(" at {}", short(c)));
        out.push_str(&escape_control(&format!("installed {}{at} ({} files)", skill.name, skill.files)));
        out.push('\n');
    }
    out.push_str(&format!("{locked} skills locked, {} installed now\n", installed.len()));
    print(&out)?;
    Ok(ExitCode::SUCCESS)
}
