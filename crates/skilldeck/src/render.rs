//! Level 1: the catalogs an agent reads in its system prompt.

use crate::catalog::Catalog;
use crate::skill::Skill;
use crate::text::xml_escape;

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
///     .build()?;
/// assert_eq!(
///     render::toolnexus(&catalog),
///     format!("{}\n\n## Available Skills\n- **alpha**: First.\n- **zeta**: Last.", render::TOOLNEXUS_PREAMBLE)
/// );
/// # Ok::<(), skilldeck::BuildError>(())
/// ```
pub fn toolnexus(catalog: &Catalog) -> String {
    let mut described: Vec<(&str, &str)> =
        catalog.skills().filter_map(|s| Some((s.name(), s.description()?))).collect();
    if described.is_empty() {
        return TOOLNEXUS_EMPTY.to_owned();
    }
    described.sort_unstable_by(|a, b| a.0.cmp(b.0));
    let mut out = format!("{TOOLNEXUS_PREAMBLE}\n\n## Available Skills");
    for (name, description) in described {
        out.push_str(&format!("\n- **{name}**: {description}"));
    }
    out
}

/// The `skills-ref to-prompt` XML: one `<skill>` with `<name>`,
/// `<description>` and `<location>` per exposed skill that has a description,
/// in catalog order; name and description escaped as Python's `html.escape`.
///
/// ```
/// use skilldeck::{Catalog, SkillDef, render};
///
/// let catalog = Catalog::builder().skill(SkillDef::new("a").description("x & y")).build()?;
/// assert_eq!(
///     render::agentskills(&catalog),
///     "<available_skills>\n<skill>\n<name>\na\n</name>\n<description>\nx &amp; y\n</description>\n<location>\nskill://a/\n</location>\n</skill>\n</available_skills>"
/// );
/// # Ok::<(), skilldeck::BuildError>(())
/// ```
pub fn agentskills(catalog: &Catalog) -> String {
    let mut out = String::from("<available_skills>\n");
    for skill in catalog.skills().filter(|s| s.description().is_some()) {
        push_agentskills_entry(&mut out, skill);
    }
    out.push_str("</available_skills>");
    out
}

fn push_agentskills_entry(out: &mut String, skill: &Skill) {
    let name = xml_escape(skill.name());
    let description = xml_escape(skill.description().unwrap_or_default());
    let location = skill.location();
    out.push_str(&format!(
        "<skill>\n<name>\n{name}\n</name>\n<description>\n{description}\n</description>\n<location>\n{location}\n</location>\n</skill>\n"
    ));
}
