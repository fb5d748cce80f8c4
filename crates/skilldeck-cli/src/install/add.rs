//! `skilldeck add SOURCE`: skills from a git repository or a directory into
//! `.agents/skills`, recorded in `skills-lock.json`; `--list` shows them only.

use std::process::ExitCode;

use clap::Args;
use skilldeck::escape_control;
use skilldeck_install::{AddOptions, PROJECT_SKILLS_DIR, Source, host};

use super::{ProjectArgs, short, show_audit, show_refusal};
use crate::print;

/// `skilldeck add`'s flags.
#[derive(Args, Debug)]
pub(crate) struct AddArgs {
    /// A git URL (https://, ssh://, git@host:path, file://; #REF for a ref), GitHub's
    /// owner/repo[/path][@REF], or a local directory (./DIR, /DIR).
    source: String,
    /// Install only this skill; repeat for more (default: every skill of the source).
    #[arg(long = "skill", value_name = "NAME")]
    skill: Vec<String>,
    /// The branch, tag or commit to install from (default: the source's own, else its default branch).
    #[arg(long = "ref", value_name = "REF")]
    reference: Option<String>,
    /// Print the skills the source holds and install nothing.
    #[arg(long)]
    list: bool,
    /// Replace a skill directory skills-lock.json does not name, and install skills that fail validation.
    #[arg(long)]
    force: bool,
    /// Install skills the audit finds something at high or above in (the findings are printed either way).
    #[arg(long)]
    allow_risk: bool,
    /// Show each skill to HOST too: a relative link from the host's own place (.claude/skills for
    /// claude) to the copy in .agents/skills, recorded in the lock. Hosts that read .agents/skills
    /// themselves need none. Repeat for more; the hosts are the README's table.
    #[arg(long = "link", value_name = "HOST")]
    link: Vec<String>,
    /// Pin each skill at the commit installed: `update` leaves it there (as it leaves a skill added @COMMIT).
    #[arg(long)]
    pin: bool,
    #[command(flatten)]
    project: ProjectArgs,
}

pub(crate) fn run(args: &AddArgs) -> anyhow::Result<ExitCode> {
    let mut source = Source::parse(&args.source)?;
    if let Some(reference) = &args.reference {
        source.reference = Some(reference.clone());
    }
    let project = args.project.open()?;
    if args.list {
        let found = project.list(&source)?;
        let width = found.iter().map(|f| f.name.len()).max().unwrap_or(0);
        let mut out = String::new();
        for skill in &found {
            let description = skill.description.as_deref().unwrap_or("-");
            out.push_str(&escape_control(&format!("{:width$}  {}  {description}", skill.name, skill.skill_path)));
            out.push('\n');
        }
        print(&out)?;
        return Ok(ExitCode::SUCCESS);
    }
    let options = AddOptions {
        skills: args.skill.clone(),
        force: args.force,
        allow_risk: args.allow_risk,
        links: args.link.clone(),
        pin: args.pin,
    };
    let installed = project.add(&source, &options).map_err(show_refusal)?;
    show_audit(installed.iter().map(|skill| &skill.audit));
    let mut out = String::new();
    for host in args.link.iter().filter_map(|name| host(name)).filter(|host| !host.needs_link()) {
        out.push_str(&format!("{} reads {PROJECT_SKILLS_DIR} itself: no link needed\n", host.display));
    }
    for skill in &installed {
        let from = skill.commit.as_deref().map_or(String::new(), |c| format!(" at {}", short(c)));
        out.push_str(&escape_control(&format!("installed {} from {source}{from} ({} files)", skill.name, skill.files)));
        out.push('\n');
    }
    print(&out)?;
    Ok(ExitCode::SUCCESS)
}
