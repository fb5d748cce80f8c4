//! `skilldeck update [NAME]…`: skills moved to the newest commit of their
//! recorded ref, with the files each change adds, removes and changes.

use std::process::ExitCode;

use clap::Args;
use skilldeck::escape_control;
use skilldeck_install::Update;

use super::{ProjectArgs, short, show_audit, show_refusal};
use crate::print;

/// `skilldeck update`'s flags.
#[derive(Args, Debug)]
pub(crate) struct UpdateArgs {
    /// The skills to update (default: all); one whose ref is a commit is left alone.
    #[arg(value_name = "NAME")]
    names: Vec<String>,
    /// Update skills whose new files the audit finds something at high or above in (the findings are printed either way).
    #[arg(long)]
    allow_risk: bool,
    #[command(flatten)]
    project: ProjectArgs,
}

pub(crate) fn run(args: &UpdateArgs) -> anyhow::Result<ExitCode> {
    let report = args.project.open()?.update(&args.names, args.allow_risk).map_err(show_refusal)?;
    show_audit(report.iter().filter_map(|update| match update {
        Update::Moved { audit, .. } => Some(&**audit),
        _ => None,
    }));
    let mut out = String::new();
    for update in &report {
        let line = match update {
            Update::Current { name } => format!("{name}: up to date"),
            Update::Pinned { name } => format!("{name}: pinned, left alone"),
            Update::Moved { name, from, to, diff, .. } => {
                let from = from.as_deref().map_or("-", short);
                let mut line = format!("{name}: {from} -> {}", short(to));
                for (what, files) in [("added", &diff.extra), ("removed", &diff.missing), ("changed", &diff.modified)] {
                    if !files.is_empty() {
                        line.push_str(&format!("; {what} {}", files.join(", ")));
                    }
                }
                line
            }
        };
        out.push_str(&escape_control(&line));
        out.push('\n');
    }
    print(&out)?;
    Ok(ExitCode::SUCCESS)
}
