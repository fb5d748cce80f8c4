//! `skilldeck verify`: every installed file's digest against
//! `skills-lock.json`; exit 1 on any difference.

use std::process::ExitCode;

use clap::Args;
use skilldeck::escape_control;

use super::ProjectArgs;
use crate::print;

/// `skilldeck verify`'s flags.
#[derive(Args, Debug)]
pub(crate) struct VerifyArgs {
    #[command(flatten)]
    project: ProjectArgs,
}

pub(crate) fn run(args: &VerifyArgs) -> anyhow::Result<ExitCode> {
    let report = args.project.open()?.verify()?;
    let mut out = String::new();
    let mut differ = 0;
    for skill in &report {
        if skill.is_clean() {
            out.push_str(&format!("ok {}\n", escape_control(&skill.name)));
            continue;
        }
        differ += 1;
        for (what, files) in
            [("modified", &skill.diff.modified), ("missing", &skill.diff.missing), ("extra", &skill.diff.extra)]
        {
            for file in files {
                out.push_str(&format!("{what} {}\n", escape_control(&format!("{}/{file}", skill.name))));
            }
        }
        if skill.hash_differs {
            out.push_str(&format!("modified {} (its computedHash differs)\n", escape_control(&skill.name)));
        }
    }
    out.push_str(&format!("{} skills checked, {differ} differ from skills-lock.json\n", report.len()));
    print(&out)?;
    Ok(if differ == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
