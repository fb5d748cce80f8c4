//! Renaming a stored skill: its record, each agent's own version of it, and
//! the agents' profiles that name it, all under the new name; the
//! frontmatter's `name` changed with the key, so text and key agree.

use crate::agent::Eager;
use crate::catalog::LiveCatalog;
use crate::source::frontmatter::{self, BOM, Fences, FrontmatterMode};
use crate::store::{Precondition, Record, SkillStore, StoreError};
use crate::text::yaml_scalar;

use super::{AuthoringError, check_skill_md, key};
use crate::name::NameKind;

/// What [`LiveCatalog::rename_skill`] moved besides the shared record.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Renamed {
    /// The shared record under its new name.
    pub record: Record,
    /// The agents whose own version moved with it.
    pub own_versions: Vec<String>,
    /// The agents whose profile named the skill (allowed or eager) and now
    /// names the new one.
    pub profiles: Vec<String>,
}

/// `content` with its frontmatter's `name` set to `name`: the value of the
/// first top-level `name:` line replaced (plain or quoted as
/// [`yaml_scalar`] spells it), every other byte kept. `None` when that is
/// not a one-line value (a block scalar, a flow collection, a quoted value
/// over several lines), or the text read back does not have the new name.
///
/// # Example
///
/// ```
/// use skilldeck::authoring::with_name;
///
/// let text = "---\nname: pedido # old\nlicense: MIT\n---\nBody.\n";
/// assert_eq!(with_name(text, "order").as_deref(), Some("---\nname: order\nlicense: MIT\n---\nBody.\n"));
/// assert_eq!(with_name("---\nname: |\n  pedido\n---\n", "order"), None);
/// ```
pub fn with_name(content: &str, name: &str) -> Option<String> {
    let bom = if content.as_bytes().starts_with(BOM) { BOM.len() } else { 0 };
    let text = &content[bom..];
    let Fences::Closed { yaml_start, yaml_end, .. } = frontmatter::fences(text.as_bytes()) else {
        return None;
    };
    let mut at = yaml_start;
    for line in text[yaml_start..yaml_end].split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if let Some(rest) = bare.strip_prefix("name:")
            && one_line_value(rest.trim())
        {
            let start = bom + at;
            let end = start + bare.len();
            let renamed = format!("{}name: {}{}", &content[..start], yaml_scalar(name), &content[end..]);
            let Fences::Closed { yaml_start, yaml_end, .. } = frontmatter::fences(&renamed.as_bytes()[bom..]) else {
                return None;
            };
            let yaml = &renamed[bom + yaml_start..bom + yaml_end];
            let head = frontmatter::parse(yaml, 2, FrontmatterMode::Lenient).ok()?;
            return (head.name.as_deref() == Some(name)).then_some(renamed);
        }
        at += line.len();
    }
    None
}

/// Whether a `name:` line's value (trimmed) is all on its line: a plain
/// scalar, or a quoted one that closes there.
fn one_line_value(value: &str) -> bool {
    let value = value.split(" #").next().unwrap_or(value).trim_end();
    match value.chars().next() {
        None | Some('|' | '>' | '[' | '{' | '&' | '*' | '!') => false,
        Some(quote @ ('"' | '\'')) => value.len() > 1 && value.ends_with(quote),
        Some(_) => true,
    }
}

impl LiveCatalog {
    /// Renames the stored skill `from` to `to`: the shared record moves
    /// with its history ([`SkillStore::rename`]) and its frontmatter `name`
    /// becomes `to` ([`with_name`]); each agent's own version moves the same
    /// way; every store profile that allows `from` or makes it eager names
    /// `to` instead. Then the catalog reloads. `precondition` is checked on
    /// the shared record, as a save's is.
    ///
    /// Every text is rewritten and every target checked before anything is
    /// written; the moves are then one store transaction each, so a store
    /// that fails midway leaves some records under each name, none lost.
    ///
    /// # Example
    ///
    /// ```
    /// use std::sync::Arc;
    /// use skilldeck::store::{MemoryStore, Precondition, SkillStore};
    /// use skilldeck::{AgentProfile, Catalog, LiveCatalog};
    ///
    /// let store = Arc::new(MemoryStore::default());
    /// store.write("pedido", "---\nname: pedido\n---\nAnote.\n", None, &Precondition::Any)?;
    /// store.update_profiles(&mut |all| all.push(AgentProfile::new("bia").allow(["pedido"])))?;
    /// let live = LiveCatalog::new(Catalog::builder().store(store.clone()));
    /// let renamed = live.rename_skill("pedido", "order", &Precondition::Any)?;
    /// assert_eq!(renamed.profiles, ["bia"]);
    /// assert_eq!(store.get("order", None)?.unwrap().content, "---\nname: order\n---\nAnote.\n");
    /// assert!(live.snapshot().get("pedido").is_none());
    /// assert_eq!(store.profiles()?[0].skills.as_deref(), Some(&["order".to_owned()][..]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`AuthoringError::InvalidName`] for a name the name rule refuses;
    /// [`AuthoringError::NotFound`] when `from` has no shared record;
    /// [`AuthoringError::NameTaken`] when another skill (on disk, data, or an
    /// agent's own) already has the name `to`;
    /// [`AuthoringError::NameNotRewritable`] when a text's `name` cannot be
    /// changed in place; [`AuthoringError::NoStore`]; the store's errors
    /// ([`StoreError::Conflict`] for a stale `precondition`).
    pub fn rename_skill(&self, from: &str, to: &str, precondition: &Precondition) -> Result<Renamed, AuthoringError> {
        let from = key(from, NameKind::Skill)?;
        let to = key(to, NameKind::Skill)?;
        let store = self.store().ok_or(AuthoringError::NoStore)?;
        let not_found = || AuthoringError::NotFound { name: from.to_owned(), agent: None };
        let shared = store.get(from, None)?.ok_or_else(not_found)?;
        if from == to {
            return Ok(Renamed { record: shared, own_versions: Vec::new(), profiles: Vec::new() });
        }
        let catalog = self.snapshot();
        let shadowed = catalog.shadowed().iter().map(|s| &s.skill);
        if let Some(skill) = catalog.inventory().iter().chain(shadowed).find(|s| s.name() == to) {
            return Err(AuthoringError::NameTaken { name: to.to_owned(), location: skill.location().to_owned() });
        }
        let rewrite = |content: &str| -> Result<String, AuthoringError> {
            let text =
                with_name(content, to).ok_or_else(|| AuthoringError::NameNotRewritable { name: from.to_owned() })?;
            check_skill_md(&text)?;
            Ok(text)
        };
        let text = rewrite(&shared.content)?;
        let mut own = Vec::new();
        for agent in store.agents()? {
            if store.get(to, Some(&agent))?.is_some() {
                return Err(AuthoringError::NameTaken { name: to.to_owned(), location: format!("store:{agent}/{to}") });
            }
            if let Some(record) = store.get(from, Some(&agent))? {
                own.push((rewrite(&record.content)?, Precondition::Unchanged(record.content), agent));
            }
        }
        let record = store.rename(from, to, &text, None, precondition)?;
        let mut renamed = Renamed { record, own_versions: Vec::new(), profiles: Vec::new() };
        let moved = move_own_versions(&*store, from, to, own, &mut renamed);
        let profiles = rename_in_profiles(&*store, from, to).map(|changed| renamed.profiles = changed);
        self.reload();
        moved?;
        profiles?;
        Ok(renamed)
    }
}

/// Moves each agent's own version (its rewritten text, the text it was
/// read as, the agent); the first failure is returned after the others.
fn move_own_versions(
    store: &dyn SkillStore,
    from: &str,
    to: &str,
    own: Vec<(String, Precondition, String)>,
    renamed: &mut Renamed,
) -> Result<(), StoreError> {
    let mut failed = None;
    for (text, read_as, agent) in own {
        match store.rename(from, to, &text, Some(&agent), &read_as) {
            Ok(_) => renamed.own_versions.push(agent),
            Err(error) => failed = failed.or(Some(error)),
        }
    }
    failed.map_or(Ok(()), Err)
}

/// Every store profile that names `from` (allowed or eager) names `to`
/// instead, in one transaction; the ids of those that changed.
fn rename_in_profiles(store: &dyn SkillStore, from: &str, to: &str) -> Result<Vec<String>, StoreError> {
    let swap = |list: &mut Vec<String>| {
        let named = list.iter().any(|n| n == from);
        if named {
            let mut out: Vec<String> = Vec::with_capacity(list.len());
            for name in list.iter().map(|n| if n == from { to } else { n.as_str() }) {
                if !out.iter().any(|o| o == name) {
                    out.push(name.to_owned());
                }
            }
            *list = out;
        }
        named
    };
    let mut changed = Vec::new();
    let updated = store.update_profiles(&mut |profiles| {
        changed.clear();
        for profile in profiles.iter_mut() {
            let allowed = profile.skills.as_mut().is_some_and(&swap);
            let eager = match &mut profile.eager {
                Eager::Names(names) => swap(names),
                Eager::None | Eager::All => false,
            };
            if allowed || eager {
                changed.push(profile.id.clone());
            }
        }
    });
    match updated {
        // A store that keeps no profiles has none to follow the rename.
        Ok(()) | Err(StoreError::Unsupported { .. }) => Ok(changed),
        Err(error) => Err(error),
    }
}
