//! `skilldeck new NAME` (alias `init`): a new skill's directory with a
//! `SKILL.md` that passes `skilldeck validate --strict`, made where every
//! host reads skills unless told where; and `skilldeck completions SHELL`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::{Args, CommandFactory};
use clap_complete::Shell;
use skilldeck::validate::Validator;

/// `skilldeck new`'s own flags.
#[derive(Args, Debug)]
pub(crate) struct NewArgs {
    /// The skill's name: lowercase letters, digits and single hyphens, at most 64 characters
    /// (the Agent Skills rule); it is also its directory's name.
    name: String,
    /// What the skill does and when to use it: the line the model reads to choose it.
    #[arg(long, value_name = "TEXT")]
    description: Option<String>,
}

/// Where a new skill goes with no `--root`: the project's `.agents/skills`,
/// the place every host but Claude Code reads (and Claude Code reads it
/// through skilldeck).
const DEFAULT_PLACE: &str = ".agents/skills";

/// Makes `ROOT/NAME/SKILL.md` (ROOT: the first `--root`, else
/// [`DEFAULT_PLACE`] of the working directory) and prints its path.
///
/// # Errors
///
/// The name or description would make an invalid skill (the validator's
/// messages), the directory exists, or it cannot be written.
pub(crate) fn run(args: &NewArgs, roots: &[PathBuf]) -> anyhow::Result<ExitCode> {
    let root = roots.first().cloned().unwrap_or_else(|| PathBuf::from(DEFAULT_PLACE));
    let dir = root.join(&args.name);
    let skill_md = dir.join("SKILL.md");
    let text = template(&args.name, args.description.as_deref());
    let problems: Vec<String> = Validator::new()
        .strict(true)
        .check_source(text.as_bytes(), &skill_md)
        .iter()
        .map(|d| d.message.clone())
        .collect();
    if !problems.is_empty() {
        bail!("cannot make a skill named {:?}: {}", args.name, problems.join("; "));
    }
    if dir.symlink_metadata().is_ok() {
        bail!("{} exists already: choose another name, or edit its SKILL.md", dir.display());
    }
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot make {}", dir.display()))?;
    write_new(&skill_md, &text)?;
    crate::print(&format!("{}\n", skill_md.display()))?;
    Ok(ExitCode::SUCCESS)
}

/// The new skill's text.
fn template(name: &str, description: Option<&str>) -> String {
    let description = description.unwrap_or(
        "Say what this skill does and when to use it, in one or two sentences: the model reads this line to \
         decide whether to load the skill.",
    );
    // A description YAML would read as anything but that text is quoted.
    let description = serde_json::Value::String(description.to_owned()).to_string();
    format!(
        "---\nname: {name}\ndescription: {description}\n---\n\n# {name}\n\n\
         The steps the model follows once it loads this skill. Keep them short and concrete.\n\n\
         Longer material goes in files beside this one (for example `reference.md` or `scripts/`):\n\
         say here when to read or run each.\n"
    )
}

/// Writes `text` to a file that must not exist yet.
fn write_new(path: &Path, text: &str) -> anyhow::Result<()> {
    use std::io::Write;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    file.write_all(text.as_bytes()).with_context(|| format!("cannot write {}", path.display()))
}

/// `skilldeck completions`'s own flags.
#[derive(Args, Debug)]
pub(crate) struct CompletionsArgs {
    /// The shell to complete in.
    shell: Shell,
}

/// Prints the completion script for `args.shell` (clap's generator): for
/// bash, `skilldeck completions bash > ~/.local/share/bash-completion/completions/skilldeck`.
pub(crate) fn completions(args: &CompletionsArgs) -> anyhow::Result<ExitCode> {
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut crate::Cli::command(), "skilldeck", &mut out);
    crate::print(&String::from_utf8_lossy(&out))?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_template_is_a_valid_skill_whatever_the_description_holds() {
        for description in [None, Some("Fill PDF forms: with care, and #1 quality"), Some("yes")] {
            let text = template("pdf-forms", description);
            let problems = Validator::new().strict(true).check_source(text.as_bytes(), Path::new("pdf-forms/SKILL.md"));
            assert!(problems.is_empty(), "{description:?}: {problems:?}");
        }
    }
}
