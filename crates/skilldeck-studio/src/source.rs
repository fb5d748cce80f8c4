//! What the editor starts from (reference §9.5): the store's text when
//! there is one, else a `SKILL.md` reconstructed from the parsed skill,
//! else Insika's template.

use skilldeck::Skill;

/// The name the template gives a new skill.
pub const TEMPLATE_NAME: &str = "my-skill";

/// Insika's template for a new skill named `name` (ends with one line feed).
///
/// ```
/// let text = skilldeck_studio::template("my-skill");
/// assert!(text.starts_with("---\nname: my-skill\ndescription: one sentence about when to use this skill\n---\n\n# my-skill\n"));
/// assert!(text.ends_with("loaded on demand by the `load_skill` tool.\n"));
/// ```
pub fn template(name: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: one sentence about when to use this skill\n---\n\n# {name}\n\nFull instructions, loaded on demand by the `load_skill` tool.\n"
    )
}

/// A `SKILL.md` text for a skill that has no store text (a disk or data
/// skill): `name`, `description`, then `triggers` and `companions` when it
/// has some (so a specialisation seeded from it keeps activating as it
/// did), a blank line and the body trimmed. Lossy where Insika's is: a
/// trigger holding a comma, a description over several lines.
///
/// # Errors
///
/// The body could not be read (a disk skill whose file went).
///
/// ```
/// use skilldeck::{Catalog, SkillDef};
///
/// let catalog = Catalog::builder().skill(SkillDef::new("pedido").description("faz pedidos").content("\n corpo \n")).build();
/// let text = skilldeck_studio::reconstruct(catalog.get("pedido").unwrap())?;
/// assert_eq!(text, "---\nname: pedido\ndescription: faz pedidos\n---\n\ncorpo\n");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn reconstruct(skill: &Skill) -> std::io::Result<String> {
    let mut text = format!("---\nname: {}\ndescription: {}\n", skill.name(), skill.description().unwrap_or(""));
    for (key, list) in [("triggers", skill.triggers()), ("companions", skill.companions())] {
        if !list.is_empty() {
            text.push_str(&format!("{key}: {}\n", list.join(", ")));
        }
    }
    text.push_str(&format!("---\n\n{}\n", skill.body()?.trim()));
    Ok(text)
}
