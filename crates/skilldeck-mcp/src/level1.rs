//! Level 1 where hosts read it: the catalog as the `initialize` result's
//! (and `server/discover`'s) `instructions`, within a budget, and whether the
//! `find_skills` tool is offered beside it.

use std::path::PathBuf;
use std::sync::Arc;

use skilldeck::{AgentProfile, Budget, Catalog, Fitted};

use crate::find_skills::FIND_SKILLS;

/// The default budget of `instructions`: 2,000 characters. Claude Code cuts
/// a server's `instructions` at 2,048 characters (JavaScript string length)
/// and appends `… [truncated]`, so a longer catalog loses its end, and with
/// it the line that says how to reach the skills it leaves out; 48
/// characters of slack cover astral characters, which JavaScript counts
/// twice. That is about 20 skills at the 90 characters a typical entry
/// takes; `find_skills` reaches the rest.
///
/// ```
/// assert_eq!(skilldeck_mcp::DEFAULT_BUDGET.to_string(), "2000c");
/// ```
pub const DEFAULT_BUDGET: Budget = Budget::chars(2000);

/// The `instructions` of a server that exposes no skill at all: said
/// plainly, so that a model does not go looking for skills that are not there.
/// A server that knows where it looked says where too ([`no_skills`]).
pub const NO_SKILLS: &str =
    "This server has no skills to offer right now: its catalog is empty. Do not call its tools to look for skills.";

/// The `instructions` of a server that exposes no skill, having looked in
/// `looked_in`: [`NO_SKILLS`], with the places named, so that the model can
/// tell its user where skills go rather than a host showing a working
/// server with nothing behind it.
///
/// ```
/// use std::path::PathBuf;
///
/// let text = skilldeck_mcp::no_skills(&[PathBuf::from("/p/.agents/skills"), PathBuf::from("/h/.claude/skills")]);
/// assert_eq!(
///     text,
///     "This server has no skills to offer right now: its catalog is empty. It looked for skills \
///      (directories holding a SKILL.md) in /p/.agents/skills, /h/.claude/skills. \
///      Do not call its tools to look for skills."
/// );
/// assert_eq!(skilldeck_mcp::no_skills(&[]), skilldeck_mcp::NO_SKILLS);
/// ```
pub fn no_skills(looked_in: &[PathBuf]) -> String {
    if looked_in.is_empty() {
        return NO_SKILLS.to_owned();
    }
    let places: Vec<String> = looked_in.iter().map(|place| place.display().to_string()).collect();
    format!("{EMPTY} It looked for skills (directories holding a SKILL.md) in {}. {DO_NOT_LOOK}", places.join(", "))
}

/// The two sentences of [`NO_SKILLS`], for [`no_skills`] to put the places between.
const EMPTY: &str = "This server has no skills to offer right now: its catalog is empty.";
const DO_NOT_LOOK: &str = "Do not call its tools to look for skills.";

/// The level-1 catalog format of `instructions` when no agent is served (an
/// agent's is always Insika's).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// toolnexus's markdown list ([`skilldeck::render::toolnexus`]).
    #[default]
    Toolnexus,
    /// The `skills-ref to-prompt` XML ([`skilldeck::render::agentskills`]).
    Agentskills,
}

/// When the `find_skills` tool is offered.
///
/// ```
/// use skilldeck_mcp::{FindSkills, Format, Options};
///
/// // Agentskills XML in `instructions`, and find_skills whatever the catalog's size.
/// let options = Options { format: Format::Agentskills, find_skills: FindSkills::Always, ..Options::default() };
/// assert_eq!(options.budget, skilldeck_mcp::DEFAULT_BUDGET);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FindSkills {
    /// When the level-1 catalog does not fit its budget whole (a description
    /// shortened or a skill left out).
    #[default]
    WhenCut,
    /// Always.
    Always,
}

/// What one catalog generation says at level 1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Level1 {
    /// The `instructions` text; none when the catalog's text is empty (an
    /// agent whose every skill is eager).
    pub(crate) instructions: Option<String>,
    /// Whether `find_skills` is offered.
    pub(crate) find_skills: bool,
    /// The agent's profile the generation serves: the tools answer with it
    /// too, so a request sees one profile with one catalog.
    pub(crate) profile: Option<Arc<AgentProfile>>,
}

impl Level1 {
    /// The level-1 text of `catalog` (an agent's lazy skills with `profile`)
    /// in `format`, within `budget`, closed by the line that counts what it
    /// left out and names `find_skills`; when it exposes no skill, where it
    /// looked (`looked_in`).
    pub(crate) fn new(
        catalog: &Catalog,
        profile: Option<Arc<AgentProfile>>,
        format: Format,
        budget: Budget,
        find_skills: FindSkills,
        looked_in: &[PathBuf],
    ) -> Level1 {
        let (fitted, exposed) = match profile.as_deref() {
            Some(profile) => {
                let view = catalog.view(profile);
                let lazy = view.lazy();
                (owned(budget.closed(FIND_SKILLS, |b| b.insika(&lazy))), !view.effective().is_empty())
            }
            None => (
                match format {
                    Format::Toolnexus => owned(budget.closed(FIND_SKILLS, |b| b.toolnexus(catalog))),
                    Format::Agentskills => owned(budget.closed(FIND_SKILLS, |b| b.agentskills(catalog))),
                },
                catalog.skills().next().is_some(),
            ),
        };
        let instructions = match exposed {
            false => Some(no_skills(looked_in)),
            true => Some(fitted.text).filter(|text| !text.is_empty()),
        };
        let cut = fitted.shortened + fitted.omitted > 0;
        Level1 { instructions, find_skills: find_skills == FindSkills::Always || cut, profile }
    }
}

/// A fitted text and its report's counts, free of the catalog's borrow.
struct Counted {
    text: String,
    shortened: usize,
    omitted: usize,
}

fn owned(fitted: Fitted<'_>) -> Counted {
    Counted { text: fitted.text, shortened: fitted.report.shortened.len(), omitted: fitted.report.omitted.len() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_skills_is_its_two_sentences() {
        assert_eq!(NO_SKILLS, format!("{EMPTY} {DO_NOT_LOOK}"));
    }
}
