//! Level 1: the catalogs an agent reads in its system prompt, and (in
//! `budget.rs`) the same catalogs fitted to a character or token budget.

pub(crate) mod budget;

// Writing to a String cannot fail; the `let _ =` on each `write!` says so.
use std::fmt::Write;

use crate::agent::Activation;
use crate::catalog::Catalog;
use crate::model::Skill;
use crate::text::{ruby_strip, xml_escape, xml_escape_text};

/// The instruction under Insika's `<available_skills>` list.
pub const INSIKA_INSTRUCTION: &str = "Before ANY reply or tool call: scan the skills above. If one matches\nor is even partially relevant to the task, you MUST call\n`load_skill(\"name\")` FIRST and follow what it returns. Err on the\nside of loading. Only skip when genuinely none apply.";

/// The first two lines of the toolnexus catalog.
pub const TOOLNEXUS_PREAMBLE: &str = "Skills provide specialized instructions and workflows for specific tasks.\nUse the skill tool to load a skill when a task matches its description.";

/// The toolnexus catalog when no skill has a description.
pub const TOOLNEXUS_EMPTY: &str = "No skills are currently available.";

/// The toolnexus markdown catalog: the preamble, `## Available Skills`, and a
/// `- **name**: description` line for every exposed skill that has a
/// description (even an empty one), in code-point order of names.
///
/// ```
/// use skilldeck::{Catalog, SkillDef, render};
///
/// let catalog = Catalog::builder()
///     .skill(SkillDef::new("zeta").description("Last."))
///     .skill(SkillDef::new("alpha").description("First."))
///     .skill(SkillDef::new("silent"))
///     .build();
/// assert_eq!(
///     render::toolnexus(&catalog),
///     format!("{}\n\n## Available Skills\n- **alpha**: First.\n- **zeta**: Last.", render::TOOLNEXUS_PREAMBLE)
/// );
/// ```
pub fn toolnexus(catalog: &Catalog) -> String {
    Layout::Toolnexus.render(&toolnexus_skills(catalog))
}

/// The skills the toolnexus catalog lists (those with a description), in its
/// order: code-point order of names.
pub(crate) fn toolnexus_skills(catalog: &Catalog) -> Vec<&Skill> {
    let mut described: Vec<&Skill> = catalog.skills().filter(|s| s.description().is_some()).collect();
    described.sort_unstable_by(|a, b| a.name().cmp(b.name()));
    described
}

/// The `skills-ref to-prompt` XML: one `<skill>` with `<name>`,
/// `<description>` and `<location>` per exposed skill that has a description,
/// in catalog order; name and description escaped as Python's `html.escape`.
///
/// ```
/// use skilldeck::{Catalog, SkillDef, render};
///
/// let catalog = Catalog::builder().skill(SkillDef::new("a").description("x & y")).build();
/// assert_eq!(
///     render::agentskills(&catalog),
///     "<available_skills>\n<skill>\n<name>\na\n</name>\n<description>\nx &amp; y\n</description>\n<location>\nskill://a/\n</location>\n</skill>\n</available_skills>"
/// );
/// ```
pub fn agentskills(catalog: &Catalog) -> String {
    Layout::Agentskills.render(&agentskills_skills(catalog))
}

/// The skills the `skills-ref` XML lists (those with a description), in catalog order.
pub(crate) fn agentskills_skills(catalog: &Catalog) -> Vec<&Skill> {
    catalog.skills().filter(|s| s.description().is_some()).collect()
}

/// Insika's level-1 list for an agent's lazy skills ([`AgentView::lazy`]):
/// `<available_skills>`, one `  <skill name="…" when="…">description</skill>`
/// line per skill in the order given (`when` only for skills with triggers,
/// joined by `; `), then a blank line and [`INSIKA_INSTRUCTION`]. Names,
/// triggers and descriptions are XML-escaped (`&`, `<`, `>`, `"`; SPEC §6),
/// so plain text keeps Insika's bytes and no value can break the block. An
/// empty list renders as the empty string.
///
/// [`AgentView::lazy`]: crate::AgentView::lazy
///
/// ```
/// use skilldeck::{Catalog, SkillDef, render};
///
/// let catalog = Catalog::builder().skill(SkillDef::new("cardapio").description("o cardápio")).build();
/// let skills: Vec<_> = catalog.skills().collect();
/// assert_eq!(
///     render::insika(&skills),
///     format!("<available_skills>\n  <skill name=\"cardapio\">o cardápio</skill>\n</available_skills>\n\n{}", render::INSIKA_INSTRUCTION)
/// );
/// assert_eq!(render::insika(&[]), "");
/// ```
pub fn insika(skills: &[&Skill]) -> String {
    Layout::Insika.render(skills)
}

/// The three level-1 layouts, each a frame around one entry per skill, so that
/// a renderer and its budgeted form ([`crate::Budget`]) write the same bytes.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Layout {
    Toolnexus,
    Agentskills,
    Insika,
}

impl Layout {
    /// The whole text for `skills`, in the order given, each with its own description.
    pub(crate) fn render(self, skills: &[&Skill]) -> String {
        if skills.is_empty() {
            return self.empty().to_owned();
        }
        let mut out = String::new();
        self.head(&mut out);
        for skill in skills {
            self.entry(&mut out, skill, skill.description().unwrap_or_default());
        }
        self.tail(&mut out);
        out
    }

    /// The text for no skills at all.
    pub(crate) fn empty(self) -> &'static str {
        match self {
            Layout::Toolnexus => TOOLNEXUS_EMPTY,
            Layout::Agentskills => "<available_skills>\n</available_skills>",
            Layout::Insika => "",
        }
    }

    /// What comes before the first entry.
    pub(crate) fn head(self, out: &mut String) {
        match self {
            Layout::Toolnexus => {
                let _ = write!(out, "{TOOLNEXUS_PREAMBLE}\n\n## Available Skills");
            }
            Layout::Agentskills | Layout::Insika => out.push_str("<available_skills>\n"),
        }
    }

    /// One skill's entry, showing `description` (unescaped) as its description.
    pub(crate) fn entry(self, out: &mut String, skill: &Skill, description: &str) {
        let name = skill.name();
        match self {
            Layout::Toolnexus => {
                let _ = write!(out, "\n- **{name}**: {description}");
            }
            Layout::Agentskills => {
                let (name, description) = (xml_escape(name), xml_escape(description));
                let location = skill.location();
                let _ = write!(
                    out,
                    "<skill>\n<name>\n{name}\n</name>\n<description>\n{description}\n</description>\n<location>\n{location}\n</location>\n</skill>\n"
                );
            }
            // Unlike Insika, escaped (SPEC §6): a description holding
            // `</available_skills>` cannot close the block the model reads.
            Layout::Insika => {
                let _ = write!(out, "  <skill name=\"{}\"", xml_escape_text(name));
                if let [first, rest @ ..] = skill.triggers() {
                    let _ = write!(out, " when=\"{}", xml_escape_text(first));
                    rest.iter().for_each(|t| {
                        let _ = write!(out, "; {}", xml_escape_text(t));
                    });
                    out.push('"');
                }
                let _ = writeln!(out, ">{}</skill>", xml_escape_text(description));
            }
        }
    }

    /// What comes after the last entry.
    pub(crate) fn tail(self, out: &mut String) {
        match self {
            Layout::Toolnexus => {}
            Layout::Agentskills => out.push_str("</available_skills>"),
            Layout::Insika => {
                out.push_str("</available_skills>\n\n");
                out.push_str(INSIKA_INSTRUCTION);
            }
        }
    }
}

/// The bodies injected for a turn ([`AgentView::activate`]): for each
/// activation, `<active_skill name="…">`, the body (trimmed as Ruby's
/// `strip`), `</active_skill>`, blocks separated by a blank line. The name
/// is escaped, the body is not; the message is never echoed. Empty for no
/// activations.
///
/// [`AgentView::activate`]: crate::AgentView::activate
pub fn active_skills(activations: &[Activation<'_>]) -> String {
    let blocks: Vec<String> = activations.iter().map(|a| tagged("active_skill", a.skill)).collect();
    blocks.join("\n\n")
}

/// `<{tag} name="{name}">\n{body}\n</{tag}>`, the body trimmed as Insika does
/// and verbatim (it is the instructions), the name escaped as an attribute.
pub(crate) fn tagged(tag: &str, skill: &Skill) -> String {
    let body = skill.body().map(ruby_strip).unwrap_or_default();
    format!("<{tag} name=\"{}\">\n{body}\n</{tag}>", xml_escape_text(skill.name()))
}
