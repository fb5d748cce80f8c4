//! `skilldeck remove NAME…`: the skills' directories and their lock entries.

use std::process::ExitCode;

use clap::Args;
use skilldeck::escape_control;

use super::ProjectArgs;
use crate::print;

/// `skilldeck remove`'s flags.
#[derive(Args, Debug)]
pub(crate) struct RemoveArgs {
    /// The skills to remove, as skills-lock.json names them.
    #[arg(required = true, value_name = "NAME")]
    names: Vec<String>,
    #[command(flatten)]
    project: ProjectArgs,
}

pub(crate) fn run(args: &RemoveArgs) -> anyhow::Result<ExitCode> {
    args.project.open()?.remove(&args.names)?;
    let out: String = args.names.iter().map(|n| format!("removed {}\n", escape_control(n))).collect();
    print(&out)?;
    Ok(ExitCode::SUCCESS)
}
