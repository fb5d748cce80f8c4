//! Authoring: Insika's `write_skill`, `delete_skill` and `set_skill_agents`
//! commands, with their checks and messages (reference §9). A write or
//! delete goes to the store and then reloads the live catalog, so the next
//! snapshot serves it.

use crate::agent::{AgentProfile, Eager};
use crate::catalog::LiveCatalog;
use crate::model::Origin;
use crate::model::SkipReason;
use crate::source::frontmatter::{self, BOM, Fences, FrontmatterMode};
use crate::source::read;
use crate::source::read::DEFAULT_MAX_FRONTMATTER;
use crate::store::{Precondition, Record, SkillStore, StoreError};

/// Why an authoring command refused or failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AuthoringError {
    /// The request is invalid (Insika's 422): the text says why.
    #[error("{0}")]
    Invalid(String),
    /// Nothing to act on (Insika's 404).
    #[error("{0}")]
    NotFound(String),
    /// The store refused or failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// `name` trimmed, or `None` when blank: Insika's presence rule.
fn presence(value: Option<&str>) -> Option<&str> {
    value.map(str::trim).filter(|v| !v.is_empty())
}

/// Checks `content` as a `SKILL.md` the catalog will load: a frontmatter
/// with a `name` (read leniently, so `": "` in prose is fine).
///
/// # Errors
///
/// [`AuthoringError::Invalid`] with Insika's texts:
/// ``SKILL.md missing YAML frontmatter (--- ... ---)`` or
/// ``frontmatter missing `name` ``; or the size limit's text.
pub fn check_skill_md(content: &str) -> Result<(), AuthoringError> {
    let bytes = content.as_bytes();
    if !matches!(frontmatter::fences(bytes.strip_prefix(BOM).unwrap_or(bytes)), Fences::Closed { .. }) {
        return Err(AuthoringError::Invalid("SKILL.md missing YAML frontmatter (--- ... ---)".into()));
    }
    let origin = Origin::Store { agent: None };
    let mode = FrontmatterMode::Lenient;
    match read::parse(bytes, true, String::new(), origin, DEFAULT_MAX_FRONTMATTER, mode) {
        Ok(_) => Ok(()),
        Err(skip) if skip.reason == SkipReason::MissingName => {
            Err(AuthoringError::Invalid("frontmatter missing `name`".into()))
        }
        Err(skip) => Err(AuthoringError::Invalid(skip.detail.unwrap_or_else(|| skip.reason.to_string()))),
    }
}

/// `write_skill`: checks the name (`name is required`), then the text
/// ([`check_skill_md`]), writes the record under `name` (the key, whatever
/// the frontmatter says) for `agent` (blank: shared) when `precondition`
/// holds, and reloads `live`.
///
/// # Example
///
/// ```
/// use std::sync::Arc;
/// use skilldeck::store::{MemoryStore, Precondition};
/// use skilldeck::{Catalog, LiveCatalog, authoring};
///
/// let store = Arc::new(MemoryStore::default());
/// let live = LiveCatalog::new(Catalog::builder().store(store.clone()));
/// let any = Precondition::Any;
/// authoring::write_skill(store.as_ref(), &live, Some("pedido"), "---\nname: pedido\n---\nfaz pedido\n", None, &any)?;
/// assert_eq!(live.snapshot().get("pedido").unwrap().body()?, "faz pedido\n");
/// let refused = authoring::write_skill(store.as_ref(), &live, Some("p"), "sem frontmatter", None, &any);
/// assert_eq!(refused.unwrap_err().to_string(), "SKILL.md missing YAML frontmatter (--- ... ---)");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// [`AuthoringError::Invalid`] for a refused request (nothing written),
/// [`AuthoringError::Store`] for a store failure or a precondition that
/// does not hold ([`StoreError::AlreadyExists`], [`StoreError::Conflict`]).
pub fn write_skill(
    store: &dyn SkillStore,
    live: &LiveCatalog,
    name: Option<&str>,
    content: &str,
    agent: Option<&str>,
    precondition: &Precondition,
) -> Result<Record, AuthoringError> {
    let name = presence(name).ok_or_else(|| AuthoringError::Invalid("name is required".into()))?;
    check_skill_md(content)?;
    let record = store.write(name, content, presence(agent), precondition)?;
    live.reload();
    Ok(record)
}

/// `delete_skill`: deletes the record under `name` for `agent` (blank:
/// shared) and reloads `live`. With an agent it removes only that agent's
/// specialization; the agent falls back to the shared skill. A skill that
/// only exists on disk cannot be deleted.
///
/// # Errors
///
/// [`AuthoringError::Invalid`] (`name is required`), [`AuthoringError::NotFound`]
/// (`skill '<name>' not found`, plus ` for agent '<agent>'`), a store
/// failure.
pub fn delete_skill(
    store: &dyn SkillStore,
    live: &LiveCatalog,
    name: Option<&str>,
    agent: Option<&str>,
) -> Result<(), AuthoringError> {
    let name = presence(name).ok_or_else(|| AuthoringError::Invalid("name is required".into()))?;
    let agent = presence(agent);
    if !store.delete(name, agent)? {
        let scope = agent.map(|a| format!(" for agent '{a}'")).unwrap_or_default();
        return Err(AuthoringError::NotFound(format!("skill '{name}' not found{scope}")));
    }
    live.reload();
    Ok(())
}

/// What [`set_skill_agents`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SkillAgents {
    /// Agents that now may use the skill.
    pub enabled_for: Vec<String>,
    /// Agents asked to get it eagerly (as given).
    pub eager_for: Vec<String>,
    /// Agents allowing every skill, left so: disabling one skill would mean
    /// listing all the others.
    pub skipped_all: Vec<String>,
    /// Agents eager for every skill, left so.
    pub skipped_eager_all: Vec<String>,
    /// Agents whose profile changed, to be saved.
    pub changed: Vec<String>,
}

/// `set_skill_agents`: makes skill `name` allowed for exactly the agents in
/// `agent_ids` and, when `eager_ids` is given, eager for exactly those;
/// profiles that allow (or eagerly load) everything are left alone and
/// reported. Unknown ids are ignored; `None` for `eager_ids` leaves
/// eagerness untouched (not the same request as an empty list).
///
/// # Example
///
/// ```
/// use skilldeck::{AgentProfile, authoring};
///
/// let mut profiles = [AgentProfile::new("bia").allow(["cardapio"]), AgentProfile::new("geral")];
/// let done = authoring::set_skill_agents(&mut profiles, "pedido", &["bia".into()], None)?;
/// assert_eq!(profiles[0].skills.as_deref(), Some(&["cardapio".to_owned(), "pedido".to_owned()][..]));
/// assert_eq!(done.skipped_all, ["geral"]);
/// # Ok::<(), skilldeck::authoring::AuthoringError>(())
/// ```
///
/// # Errors
///
/// [`AuthoringError::Invalid`] (`name is required`) for a blank name.
pub fn set_skill_agents(
    profiles: &mut [AgentProfile],
    name: &str,
    agent_ids: &[String],
    eager_ids: Option<&[String]>,
) -> Result<SkillAgents, AuthoringError> {
    let name = presence(Some(name)).ok_or_else(|| AuthoringError::Invalid("name is required".into()))?;
    let mut done = SkillAgents { eager_for: eager_ids.unwrap_or_default().to_vec(), ..SkillAgents::default() };
    for profile in profiles.iter_mut() {
        let want = agent_ids.contains(&profile.id);
        if want {
            done.enabled_for.push(profile.id.clone());
        }
        let skills = match &profile.skills {
            None if !want => {
                done.skipped_all.push(profile.id.clone());
                None
            }
            None => None,
            Some(list) => Some(with_or_without(list, name, want)),
        };
        let eager = match (eager_ids, &profile.eager) {
            (None, eager) => eager.clone(),
            (Some(ids), Eager::All) => {
                if !ids.contains(&profile.id) {
                    done.skipped_eager_all.push(profile.id.clone());
                }
                Eager::All
            }
            (Some(ids), Eager::None) => Eager::Names(with_or_without(&[], name, ids.contains(&profile.id))),
            (Some(ids), Eager::Names(list)) => Eager::Names(with_or_without(list, name, ids.contains(&profile.id))),
        };
        if skills != profile.skills || eager != profile.eager {
            profile.skills = skills;
            profile.eager = eager;
            done.changed.push(profile.id.clone());
        }
    }
    Ok(done)
}

/// [`set_skill_agents`] over the profiles `store` keeps, in one transaction:
/// what the Studio's agent grid does. Profiles are read per request, so
/// nothing reloads.
///
/// # Example
///
/// ```
/// use skilldeck::store::{MemoryStore, SkillStore};
/// use skilldeck::{AgentProfile, authoring};
///
/// let store = MemoryStore::default();
/// store.update_profiles(&mut |all| all.extend([AgentProfile::new("bia").allow(["cardapio"]), AgentProfile::new("geral")]))?;
/// let done = authoring::set_skill_agents_in(&store, "pedido", &["bia".into()], Some(&[]))?;
/// assert_eq!(done.changed, ["bia", "geral"]);
/// assert_eq!(store.profiles()?[0].skills.as_deref(), Some(&["cardapio".to_owned(), "pedido".to_owned()][..]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// As [`set_skill_agents`], and the store's errors.
pub fn set_skill_agents_in(
    store: &dyn SkillStore,
    name: &str,
    agent_ids: &[String],
    eager_ids: Option<&[String]>,
) -> Result<SkillAgents, AuthoringError> {
    let mut done = Err(AuthoringError::Invalid("name is required".into()));
    store.update_profiles(&mut |profiles| done = set_skill_agents(profiles, name, agent_ids, eager_ids))?;
    done
}

/// `update_agent`: sets agent `id`'s allowlist (`None`: every skill) in the
/// profiles `store` keeps, adding the profile when there is none; its eager
/// set is left as it is.
///
/// # Example
///
/// ```
/// use skilldeck::store::{MemoryStore, SkillStore};
/// use skilldeck::authoring;
///
/// let store = MemoryStore::default();
/// authoring::update_agent(&store, "chef", Some(vec!["pedido".into()]))?;
/// assert_eq!(store.profiles()?[0].skills.as_deref(), Some(&["pedido".to_owned()][..]));
/// authoring::update_agent(&store, "chef", None)?;
/// assert_eq!(store.profiles()?[0].skills, None);
/// assert_eq!(store.profile_versions("chef")?.len(), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// [`AuthoringError::Invalid`] (`id is required`) for a blank id; the
/// store's errors.
pub fn update_agent(store: &dyn SkillStore, id: &str, skills: Option<Vec<String>>) -> Result<(), AuthoringError> {
    let id = presence(Some(id)).ok_or_else(|| AuthoringError::Invalid("id is required".into()))?;
    store.update_profiles(&mut |profiles| match profiles.iter_mut().find(|p| p.id == id) {
        Some(profile) => profile.skills = skills.clone(),
        None => profiles.push(AgentProfile { skills: skills.clone(), ..AgentProfile::new(id) }),
    })?;
    Ok(())
}

/// `list ∪ [name]` (a set union: duplicates go, `name` comes last if new)
/// or `list − [name]` (every occurrence of `name` goes, nothing else).
fn with_or_without(list: &[String], name: &str, with: bool) -> Vec<String> {
    if !with {
        return list.iter().filter(|item| *item != name).cloned().collect();
    }
    let mut out: Vec<String> = Vec::with_capacity(list.len() + 1);
    for item in list.iter().map(String::as_str).chain([name]) {
        if !out.iter().any(|o| o == item) {
            out.push(item.to_owned());
        }
    }
    out
}
