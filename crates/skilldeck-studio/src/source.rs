//! What the editor starts from (reference §9.5): the store's text when
//! there is one; a disk skill's `SKILL.md` as it is on disk, every byte; a
//! `SKILL.md` reconstructed from a data skill (which has no file); else
//! Insika's template.

use std::io;

use skilldeck::{Origin, Skill};

/// The name the template gives a new skill.
pub const TEMPLATE_NAME: &str = "my-skill";

/// Insika's template for a new skill named `name`, naming `tool`, the tool
/// that loads it on demand (`skill`, or `load_skill` for an agent's own
/// skill); ends with one line feed.
///
/// ```
/// let text = skilldeck_studio::template("my-skill", "skill");
/// assert!(text.starts_with("---\nname: my-skill\ndescription: one sentence about when to use this skill\n---\n\n# my-skill\n"));
/// assert!(text.ends_with("loaded on demand by the `skill` tool.\n"));
/// ```
pub fn template(name: &str, tool: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: one sentence about when to use this skill\n---\n\n# {name}\n\nFull instructions, loaded on demand by the `{tool}` tool.\n"
    )
}

/// A disk skill's `SKILL.md`, whole and verbatim (every frontmatter key,
/// the body's bytes), read under the skill's confinement; `None` for a
/// skill that is no file on disk.
///
/// # Errors
///
/// The file cannot be read (gone, refused by the confinement), or it is
/// not UTF-8, which the editor cannot show without changing it.
pub(crate) fn file_text(skill: &Skill) -> io::Result<Option<String>> {
    let Origin::Fs { skill_md, .. } = skill.origin() else { return Ok(None) };
    let confinement = skill.confinement().ok_or_else(|| io::Error::other("it has no root to be read from"))?;
    let bytes = confinement.read(skill_md)?;
    let text = String::from_utf8(bytes).map_err(|e| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("it is not UTF-8 ({e}), so the editor cannot show it unchanged"),
        )
    })?;
    Ok(Some(text))
}

/// A `SKILL.md` text for a skill that has no text of its own (a data
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
