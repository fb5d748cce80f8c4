//! Authored skills: the [`SkillStore`] trait every backend implements, the
//! record and history rules they share ([`StoredSkill::next`], [`may_write`],
//! [`restored_version`]), and [`MemoryStore`], the in-process backend for
//! tests and embedding.
//!
//! A store holds `SKILL.md` texts under a key, either shared or belonging to
//! one agent. The key is the record's identity, a name that passes
//! [`check_name`], as the agent does: every backend refuses any other on
//! every write, restore and profile update.
//!
//! A store may also keep the agents' profiles ([`AgentProfile`]: which
//! skills each may use, which it always gets), so that every program on the
//! store (the Studio, `serve --agent`, `doctor`) reads the same ones. They
//! change together, in one transaction ([`SkillStore::update_profiles`]),
//! and keep a history as records do ([`ProfileVersion`]).

use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::agent::AgentProfile;
use crate::name::{NameError, NameKind, check_name};

/// How many earlier versions a record keeps, most recent first.
pub const HISTORY_CAP: usize = 20;

/// A record as read back: the `SKILL.md` text and when it was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// The whole `SKILL.md` text.
    pub content: String,
    /// When it was written: ISO 8601, UTC, whole seconds, `Z`.
    pub updated_at: String,
}

/// An earlier version of a record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Version {
    /// The `SKILL.md` text of that version.
    pub content: String,
    /// When that version was written.
    pub at: String,
}

/// An earlier version of an agent profile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProfileVersion {
    /// The profile as it was.
    pub profile: AgentProfile,
    /// When that version was written.
    pub at: String,
}

/// Checks profiles about to be kept: each id passes [`check_name`], and no
/// two share one. One rule for every backend.
///
/// # Errors
///
/// [`StoreError::InvalidName`] for an id the name rule refuses,
/// [`StoreError::InvalidProfile`] for one given twice.
///
/// # Example
///
/// ```
/// use skilldeck::AgentProfile;
/// use skilldeck::store::check_profiles;
///
/// assert!(check_profiles(&[AgentProfile::new("bia"), AgentProfile::new("chef")]).is_ok());
/// let twice = check_profiles(&[AgentProfile::new("bia"), AgentProfile::new("bia")]).unwrap_err();
/// assert_eq!(twice.to_string(), "agent profile 'bia' is given twice");
/// let blank = check_profiles(&[AgentProfile::new(" ")]).unwrap_err();
/// assert_eq!(blank.to_string(), "id is required");
/// let split = check_profiles(&[AgentProfile::new("bia\nchef")]).unwrap_err();
/// assert_eq!(split.to_string(), "an agent id cannot contain U+000A, a control character");
/// ```
pub fn check_profiles(profiles: &[AgentProfile]) -> Result<(), StoreError> {
    let mut seen = std::collections::BTreeSet::new();
    for profile in profiles {
        check_name(&profile.id, NameKind::Agent)?;
        if !seen.insert(profile.id.as_str()) {
            return Err(StoreError::InvalidProfile(format!("'{}' is given twice", profile.id)));
        }
    }
    Ok(())
}

/// A record with its history: the shape every backend persists.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredSkill {
    /// The current text.
    pub content: String,
    /// When the current text was written.
    pub updated_at: String,
    /// Earlier versions, most recent first, at most [`HISTORY_CAP`].
    pub history: Vec<Version>,
}

impl StoredSkill {
    /// The record after writing `content` at `now` over `previous`: the
    /// previous text becomes the newest history entry (even when unchanged)
    /// and entries beyond [`HISTORY_CAP`] fall off the old end.
    ///
    /// # Example
    ///
    /// ```
    /// use skilldeck::store::StoredSkill;
    ///
    /// let v1 = StoredSkill::next(None, "one".into(), "2026-01-01T00:00:00Z".into());
    /// let v2 = StoredSkill::next(Some(v1), "two".into(), "2026-01-02T00:00:00Z".into());
    /// assert_eq!(v2.content, "two");
    /// assert_eq!(v2.history[0].content, "one");
    /// assert_eq!(v2.history[0].at, "2026-01-01T00:00:00Z");
    /// ```
    pub fn next(previous: Option<StoredSkill>, content: String, now: String) -> StoredSkill {
        let history = match previous {
            None => Vec::new(),
            Some(prev) => {
                let mut history = Vec::with_capacity(HISTORY_CAP);
                history.push(Version { content: prev.content, at: prev.updated_at });
                history.extend(prev.history.into_iter().take(HISTORY_CAP - 1));
                history
            }
        };
        StoredSkill { content, updated_at: now, history }
    }

    /// The current text and time, without the history.
    pub fn record(&self) -> Record {
        Record { content: self.content.clone(), updated_at: self.updated_at.clone() }
    }
}

/// What a write expects to find under its key, checked in the write's own
/// transaction ([`may_write`]).
///
/// # Example
///
/// ```
/// use skilldeck::store::{MemoryStore, Precondition, SkillStore, StoreError};
///
/// let store = MemoryStore::default();
/// let first = store.write("pedido", "v1", None, &Precondition::Absent)?;
/// // Two editors open v1; the first save wins, the second is refused.
/// let began = Precondition::Unchanged(first.content);
/// store.write("pedido", "mine", None, &began)?;
/// let stale = store.write("pedido", "theirs", None, &began);
/// assert!(matches!(stale, Err(StoreError::Conflict { .. })));
/// # Ok::<(), StoreError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Precondition {
    /// Whatever is there: an upsert.
    #[default]
    Any,
    /// No record yet: Insika's `create_only`.
    Absent,
    /// The record is still this text, the one the edit began from: a save
    /// from a stale editor is refused, never a silent overwrite. (The text,
    /// not its time: two writes within one second carry the same time.)
    Unchanged(String),
}

/// Why a store call failed. The texts are Insika's, but for
/// [`StoreError::Conflict`], which Insika does not have.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// A create-only write found a record already there.
    #[error("skill '{name}' already exists{}", for_agent(agent.as_deref()))]
    AlreadyExists {
        /// The key.
        name: String,
        /// The agent scope, `None` for shared.
        agent: Option<String>,
    },
    /// The record is no longer the text the write's edit began from
    /// ([`Precondition::Unchanged`]).
    #[error("skill '{name}'{} was changed since this edit began: reload it, then edit again", for_agent(agent.as_deref()))]
    Conflict {
        /// The key.
        name: String,
        /// The agent scope, `None` for shared.
        agent: Option<String>,
    },
    /// No record under that key (the text never names the agent).
    #[error("skill '{name}' not found")]
    NotFound {
        /// The key.
        name: String,
    },
    /// A restore asked for a version the history does not have.
    #[error("version {index} does not exist")]
    NoSuchVersion {
        /// The index as asked.
        index: i64,
    },
    /// A skill name or agent id that [`check_name`] refuses: nothing is
    /// written under it.
    #[error(transparent)]
    InvalidName(#[from] NameError),
    /// Profiles to keep with two of one id.
    #[error("agent profile {0}")]
    InvalidProfile(String),
    /// The store does not keep this kind of data.
    #[error("this skill store does not keep {what}")]
    Unsupported {
        /// What it does not keep.
        what: &'static str,
    },
    /// The backend failed: I/O, a corrupt file, a lost connection. Made
    /// with [`StoreError::backend`] (and [`StoreError::caused_by`] to keep
    /// the driver's error).
    #[error("skill store {location}: {message}")]
    #[non_exhaustive]
    Backend {
        /// The store: a file path or a server address.
        location: String,
        /// What went wrong, in words for a person.
        message: String,
        /// The driver's own error, when one caused this (its kind, its
        /// code): [`std::error::Error::source`] returns it.
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    },
}

impl StoreError {
    /// A [`StoreError::Backend`] at `location`.
    ///
    /// ```
    /// use std::error::Error;
    /// use skilldeck::store::StoreError;
    ///
    /// let io = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "denied");
    /// let error = StoreError::backend("skills.db", "cannot open the file").caused_by(io);
    /// assert_eq!(error.to_string(), "skill store skills.db: cannot open the file");
    /// let source = error.source().unwrap().downcast_ref::<std::io::Error>().unwrap();
    /// assert_eq!(source.kind(), std::io::ErrorKind::PermissionDenied);
    /// ```
    pub fn backend(location: impl Into<String>, message: impl Into<String>) -> StoreError {
        StoreError::Backend { location: location.into(), message: message.into(), source: None }
    }

    /// This error with `source` as its cause, when it is a
    /// [`StoreError::Backend`] (any other error is returned as it is).
    #[must_use]
    pub fn caused_by(self, source: impl std::error::Error + Send + Sync + 'static) -> StoreError {
        match self {
            StoreError::Backend { location, message, .. } => {
                StoreError::Backend { location, message, source: Some(Box::new(source)) }
            }
            other => other,
        }
    }
}

fn for_agent(agent: Option<&str>) -> String {
    agent.map(|a| format!(" for agent '{a}'")).unwrap_or_default()
}

/// A store of authored `SKILL.md` texts, shared or per agent.
///
/// `agent` is `None` for the shared scope and `Some(id)` for one agent's
/// scope; the scopes never mix (an agent's record does not show in the shared
/// scope, and an agent-scope call never falls back to the shared scope).
/// Every write is atomic: a reader, or the next open after a crash, sees the
/// old record or the new one, with its history, never a part.
pub trait SkillStore: Send + Sync {
    /// The record under `name`, if any.
    ///
    /// # Errors
    ///
    /// [`StoreError::Backend`] when the backend fails.
    fn get(&self, name: &str, agent: Option<&str>) -> Result<Option<Record>, StoreError>;

    /// Every record of the scope, by key in byte order.
    ///
    /// # Errors
    ///
    /// [`StoreError::Backend`] when the backend fails.
    fn all(&self, agent: Option<&str>) -> Result<Vec<(String, Record)>, StoreError>;

    /// Every agent that has a record of its own, in byte order.
    ///
    /// # Errors
    ///
    /// [`StoreError::Backend`] when the backend fails.
    fn agents(&self) -> Result<Vec<String>, StoreError>;

    /// Writes `content` under `name` when `precondition` holds ([`may_write`],
    /// in the write's transaction) and returns the new record.
    ///
    /// # Errors
    ///
    /// [`StoreError::AlreadyExists`] or [`StoreError::Conflict`] when the
    /// precondition does not hold; [`StoreError::Backend`] when the backend
    /// fails.
    fn write(
        &self,
        name: &str,
        content: &str,
        agent: Option<&str>,
        precondition: &Precondition,
    ) -> Result<Record, StoreError>;

    /// Deletes the record under `name` with its history; `false` when there was none.
    ///
    /// # Errors
    ///
    /// [`StoreError::Backend`] when the backend fails.
    fn delete(&self, name: &str, agent: Option<&str>) -> Result<bool, StoreError>;

    /// Moves the record under `from` to the key `to`, with its history, and
    /// writes `content` over it there (the text before heading the
    /// history): what renaming a skill does, its frontmatter `name` changed
    /// with the key. `precondition` is checked on `from`'s record as
    /// [`SkillStore::write`] checks it, and nothing may be under `to`.
    ///
    /// The backends of this workspace do it in one transaction. This
    /// default, for a store that does not say how, writes `to` (create-only)
    /// and then deletes `from`: two steps, and the history stays behind.
    ///
    /// # Example
    ///
    /// ```
    /// use skilldeck::store::{MemoryStore, Precondition, SkillStore};
    ///
    /// let store = MemoryStore::default();
    /// store.write("pedido", "---\nname: pedido\n---\nv1\n", None, &Precondition::Any)?;
    /// store.rename("pedido", "order", "---\nname: order\n---\nv1\n", None, &Precondition::Any)?;
    /// assert_eq!(store.get("pedido", None)?, None);
    /// assert_eq!(store.versions("order", None)?[0].content, "---\nname: pedido\n---\nv1\n");
    /// # Ok::<(), skilldeck::store::StoreError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`StoreError::NotFound`] when nothing is under `from`,
    /// [`StoreError::Conflict`] when `precondition` does not hold there,
    /// [`StoreError::AlreadyExists`] (naming `to`) when a record is under
    /// `to`, [`StoreError::Backend`] when the backend fails.
    fn rename(
        &self,
        from: &str,
        to: &str,
        content: &str,
        agent: Option<&str>,
        precondition: &Precondition,
    ) -> Result<Record, StoreError> {
        let current = self.get(from, agent)?.ok_or_else(|| StoreError::NotFound { name: from.to_owned() })?;
        may_write(from, agent, precondition, Some(&current.content))?;
        let record = self.write(to, content, agent, &Precondition::Absent)?;
        self.delete(from, agent)?;
        Ok(record)
    }

    /// The earlier versions, most recent first; empty for an unknown key.
    ///
    /// # Errors
    ///
    /// [`StoreError::Backend`] when the backend fails.
    fn versions(&self, name: &str, agent: Option<&str>) -> Result<Vec<Version>, StoreError>;

    /// Writes version `index` of the history back as the current text (a
    /// write like any other, so the history shifts by one).
    ///
    /// # Errors
    ///
    /// [`StoreError::NotFound`] for an unknown key, then
    /// [`StoreError::NoSuchVersion`] for an index outside the history;
    /// [`StoreError::Backend`] when the backend fails.
    fn restore(&self, name: &str, index: i64, agent: Option<&str>) -> Result<Record, StoreError>;

    /// The keys of the scope, in byte order.
    ///
    /// # Errors
    ///
    /// [`StoreError::Backend`] when the backend fails.
    fn names(&self, agent: Option<&str>) -> Result<Vec<String>, StoreError> {
        Ok(self.all(agent)?.into_iter().map(|(name, _)| name).collect())
    }

    /// Every agent profile the store keeps, by id in byte order. A store
    /// that keeps none (the default) has none.
    ///
    /// # Errors
    ///
    /// [`StoreError::Backend`] when the backend fails.
    fn profiles(&self) -> Result<Vec<AgentProfile>, StoreError> {
        Ok(Vec::new())
    }

    /// Changes the kept profiles in one transaction: `change` is given
    /// every profile, by id in byte order, and may edit, add or remove
    /// them. Afterwards each profile that differs is written (its previous
    /// version going to its history, at most [`HISTORY_CAP`]) and each one
    /// gone is deleted with its history; nothing else is touched. The
    /// result is checked with [`check_profiles`] before anything is written.
    ///
    /// # Errors
    ///
    /// [`StoreError::InvalidProfile`] for a blank or repeated id (nothing
    /// written); [`StoreError::Unsupported`] for a store that keeps no
    /// profiles (the default); [`StoreError::Backend`] when the backend fails.
    fn update_profiles(&self, change: &mut dyn FnMut(&mut Vec<AgentProfile>)) -> Result<(), StoreError> {
        let _ = change;
        Err(StoreError::Unsupported { what: "agent profiles" })
    }

    /// The earlier versions of profile `id`, most recent first; empty for
    /// an unknown id.
    ///
    /// # Errors
    ///
    /// [`StoreError::Backend`] when the backend fails.
    fn profile_versions(&self, id: &str) -> Result<Vec<ProfileVersion>, StoreError> {
        let _ = id;
        Ok(Vec::new())
    }

    /// A number that moves when another handle, in this process or another,
    /// has committed a write: a host that serves a catalog asks it now and
    /// then and reloads when it moved. It may move for this handle's own
    /// writes too. `None` (the default) when the backend cannot tell; a host
    /// then reloads when it writes.
    ///
    /// # Errors
    ///
    /// [`StoreError::Backend`] when the backend fails.
    fn change_token(&self) -> Result<Option<i64>, StoreError> {
        Ok(None)
    }
}

/// The check a write makes, inside its transaction, before it writes: the
/// name and the agent pass [`check_name`], and the precondition holds
/// (`current` is the record's text now; `None`: no record). One rule for
/// every backend.
///
/// # Errors
///
/// [`StoreError::InvalidName`] for a name or agent id the rule refuses;
/// [`StoreError::AlreadyExists`] for a create-only write over a record;
/// [`StoreError::Conflict`] for a write whose edit began from another text
/// than the record's now (or from a record since deleted).
///
/// # Example
///
/// ```
/// use skilldeck::store::{Precondition, may_write};
///
/// assert!(may_write("pedido", None, &Precondition::Absent, None).is_ok());
/// let err = may_write("pedido", Some("biro"), &Precondition::Absent, Some("old")).unwrap_err();
/// assert_eq!(err.to_string(), "skill 'pedido' already exists for agent 'biro'");
/// let began = Precondition::Unchanged("old".into());
/// assert!(may_write("pedido", None, &began, Some("old")).is_ok());
/// let err = may_write("pedido", None, &began, Some("theirs")).unwrap_err();
/// assert_eq!(err.to_string(), "skill 'pedido' was changed since this edit began: reload it, then edit again");
/// let err = may_write("\0", None, &Precondition::Any, None).unwrap_err();
/// assert_eq!(err.to_string(), "a skill name cannot contain U+0000, a control character");
/// ```
pub fn may_write(
    name: &str,
    agent: Option<&str>,
    precondition: &Precondition,
    current: Option<&str>,
) -> Result<(), StoreError> {
    check_keys(name, agent)?;
    let agent_owned = || agent.map(str::to_owned);
    match (precondition, current) {
        (Precondition::Absent, Some(_)) => {
            Err(StoreError::AlreadyExists { name: name.to_owned(), agent: agent_owned() })
        }
        (Precondition::Unchanged(began), current) if current != Some(began.as_str()) => {
            Err(StoreError::Conflict { name: name.to_owned(), agent: agent_owned() })
        }
        _ => Ok(()),
    }
}

/// The text a restore of version `index` of `name` (in `agent`'s scope)
/// writes back, checked in the order every backend must check it.
///
/// # Errors
///
/// [`StoreError::InvalidName`] for a name or agent id [`check_name`]
/// refuses, then [`StoreError::NotFound`] when there is no record, then
/// [`StoreError::NoSuchVersion`] when `index` is outside its history.
pub fn restored_version(
    name: &str,
    agent: Option<&str>,
    stored: Option<&StoredSkill>,
    index: i64,
) -> Result<String, StoreError> {
    check_keys(name, agent)?;
    let stored = stored.ok_or_else(|| StoreError::NotFound { name: name.to_owned() })?;
    usize::try_from(index)
        .ok()
        .and_then(|i| stored.history.get(i))
        .map(|v| v.content.clone())
        .ok_or(StoreError::NoSuchVersion { index })
}

/// A record's key and scope about to be written: [`check_name`] of both.
fn check_keys(name: &str, agent: Option<&str>) -> Result<(), NameError> {
    check_name(name, NameKind::Skill)?;
    agent.map_or(Ok(()), |agent| check_name(agent, NameKind::Agent))
}

/// Now, as a record's `updated_at`: ISO 8601, UTC, whole seconds, `Z`.
///
/// # Example
///
/// ```
/// let now = skilldeck::store::now_utc();
/// assert_eq!(now.len(), "2026-11-29T21:08:26Z".len());
/// assert!(now.ends_with('Z'));
/// ```
pub fn now_utc() -> String {
    let secs = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    utc_timestamp(secs)
}

/// Seconds since the Unix epoch as `YYYY-MM-DDTHH:MM:SSZ` (proleptic Gregorian).
fn utc_timestamp(secs: u64) -> String {
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Howard Hinnant's civil_from_days, for days on or after 1970-01-01.
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// Records keyed by (agent scope, key); `None` is the shared scope.
type Records = BTreeMap<(Option<String>, String), StoredSkill>;

/// A [`SkillStore`] in memory: for tests, and hosts that persist elsewhere.
///
/// # Example
///
/// ```
/// use skilldeck::store::{MemoryStore, Precondition, SkillStore};
///
/// let store = MemoryStore::default();
/// store.write("pedido", "---\nname: pedido\n---\nv1\n", None, &Precondition::Any)?;
/// store.write("pedido", "---\nname: pedido\n---\nv2\n", None, &Precondition::Any)?;
/// assert_eq!(store.versions("pedido", None)?[0].content, "---\nname: pedido\n---\nv1\n");
/// # Ok::<(), skilldeck::store::StoreError>(())
/// ```
#[derive(Debug, Default)]
pub struct MemoryStore {
    records: Mutex<Records>,
    profiles: Mutex<BTreeMap<String, KeptProfile>>,
}

/// A profile as [`MemoryStore`] keeps it.
#[derive(Debug)]
struct KeptProfile {
    profile: AgentProfile,
    /// When `profile` was written.
    at: String,
    /// Earlier versions, most recent first.
    history: Vec<ProfileVersion>,
}

impl MemoryStore {
    fn with<R>(&self, f: impl FnOnce(&mut Records) -> R) -> R {
        // Every change is one insert or remove, so a poisoned lock holds no half-written record.
        f(&mut self.records.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

fn key(name: &str, agent: Option<&str>) -> (Option<String>, String) {
    (agent.map(str::to_owned), name.to_owned())
}

fn put(
    records: &mut Records,
    name: &str,
    content: String,
    agent: Option<&str>,
    precondition: &Precondition,
) -> Result<Record, StoreError> {
    let key = key(name, agent);
    may_write(name, agent, precondition, records.get(&key).map(|stored| stored.content.as_str()))?;
    let stored = StoredSkill::next(records.remove(&key), content, now_utc());
    let record = stored.record();
    records.insert(key, stored);
    Ok(record)
}

impl SkillStore for MemoryStore {
    fn get(&self, name: &str, agent: Option<&str>) -> Result<Option<Record>, StoreError> {
        Ok(self.with(|r| r.get(&key(name, agent)).map(StoredSkill::record)))
    }

    fn all(&self, agent: Option<&str>) -> Result<Vec<(String, Record)>, StoreError> {
        Ok(self.with(|r| {
            r.iter()
                .filter(|((scope, _), _)| scope.as_deref() == agent)
                .map(|((_, name), stored)| (name.clone(), stored.record()))
                .collect()
        }))
    }

    fn agents(&self) -> Result<Vec<String>, StoreError> {
        let mut agents: Vec<String> = self.with(|r| r.keys().filter_map(|(scope, _)| scope.clone()).collect());
        agents.dedup();
        Ok(agents)
    }

    fn write(
        &self,
        name: &str,
        content: &str,
        agent: Option<&str>,
        precondition: &Precondition,
    ) -> Result<Record, StoreError> {
        self.with(|r| put(r, name, content.to_owned(), agent, precondition))
    }

    fn delete(&self, name: &str, agent: Option<&str>) -> Result<bool, StoreError> {
        Ok(self.with(|r| r.remove(&key(name, agent)).is_some()))
    }

    fn rename(
        &self,
        from: &str,
        to: &str,
        content: &str,
        agent: Option<&str>,
        precondition: &Precondition,
    ) -> Result<Record, StoreError> {
        self.with(|r| {
            let current = r.get(&key(from, agent)).ok_or_else(|| StoreError::NotFound { name: from.to_owned() })?;
            may_write(from, agent, precondition, Some(&current.content))?;
            may_write(to, agent, &Precondition::Absent, r.get(&key(to, agent)).map(|s| s.content.as_str()))?;
            let stored = StoredSkill::next(r.remove(&key(from, agent)), content.to_owned(), now_utc());
            let record = stored.record();
            r.insert(key(to, agent), stored);
            Ok(record)
        })
    }

    fn versions(&self, name: &str, agent: Option<&str>) -> Result<Vec<Version>, StoreError> {
        Ok(self.with(|r| r.get(&key(name, agent)).map(|s| s.history.clone()).unwrap_or_default()))
    }

    fn restore(&self, name: &str, index: i64, agent: Option<&str>) -> Result<Record, StoreError> {
        self.with(|r| {
            let content = restored_version(name, agent, r.get(&key(name, agent)), index)?;
            put(r, name, content, agent, &Precondition::Any)
        })
    }

    fn profiles(&self) -> Result<Vec<AgentProfile>, StoreError> {
        let kept = self.profiles.lock().unwrap_or_else(PoisonError::into_inner);
        Ok(kept.values().map(|kept| kept.profile.clone()).collect())
    }

    fn update_profiles(&self, change: &mut dyn FnMut(&mut Vec<AgentProfile>)) -> Result<(), StoreError> {
        let mut kept = self.profiles.lock().unwrap_or_else(PoisonError::into_inner);
        let mut profiles: Vec<AgentProfile> = kept.values().map(|kept| kept.profile.clone()).collect();
        change(&mut profiles);
        check_profiles(&profiles)?;
        let now = now_utc();
        kept.retain(|id, _| profiles.iter().any(|p| p.id == *id));
        for profile in profiles {
            match kept.get_mut(&profile.id) {
                Some(current) if current.profile == profile => {}
                Some(current) => {
                    let previous = std::mem::replace(&mut current.profile, profile);
                    let at = std::mem::replace(&mut current.at, now.clone());
                    current.history.insert(0, ProfileVersion { profile: previous, at });
                    current.history.truncate(HISTORY_CAP);
                }
                None => {
                    let id = profile.id.clone();
                    kept.insert(id, KeptProfile { profile, at: now.clone(), history: Vec::new() });
                }
            }
        }
        Ok(())
    }

    fn profile_versions(&self, id: &str) -> Result<Vec<ProfileVersion>, StoreError> {
        let kept = self.profiles.lock().unwrap_or_else(PoisonError::into_inner);
        Ok(kept.get(id).map(|kept| kept.history.clone()).unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_civil_utc() {
        assert_eq!(utc_timestamp(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc_timestamp(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc_timestamp(1_795_986_506), "2026-11-29T21:08:26Z");
        assert_eq!(utc_timestamp(4_102_444_799), "2099-12-31T23:59:59Z");
    }

    /// The trait's own methods over a [`MemoryStore`]: what a store that
    /// implements only the required ones gets.
    struct Plain(MemoryStore);

    impl SkillStore for Plain {
        fn get(&self, name: &str, agent: Option<&str>) -> Result<Option<Record>, StoreError> {
            self.0.get(name, agent)
        }
        fn all(&self, agent: Option<&str>) -> Result<Vec<(String, Record)>, StoreError> {
            self.0.all(agent)
        }
        fn agents(&self) -> Result<Vec<String>, StoreError> {
            self.0.agents()
        }
        fn write(&self, n: &str, c: &str, a: Option<&str>, p: &Precondition) -> Result<Record, StoreError> {
            self.0.write(n, c, a, p)
        }
        fn delete(&self, name: &str, agent: Option<&str>) -> Result<bool, StoreError> {
            self.0.delete(name, agent)
        }
        fn versions(&self, name: &str, agent: Option<&str>) -> Result<Vec<Version>, StoreError> {
            self.0.versions(name, agent)
        }
        fn restore(&self, name: &str, index: i64, agent: Option<&str>) -> Result<Record, StoreError> {
            self.0.restore(name, index, agent)
        }
    }

    #[test]
    fn the_default_rename_writes_then_deletes_and_checks_first() {
        let store = Plain(MemoryStore::default());
        store.write("a", "one", None, &Precondition::Any).unwrap();
        store.write("b", "taken", None, &Precondition::Any).unwrap();
        let stale = store.rename("a", "c", "x", None, &Precondition::Unchanged("old".into())).unwrap_err();
        assert!(matches!(stale, StoreError::Conflict { .. }), "{stale}");
        assert!(matches!(store.rename("a", "b", "x", None, &Precondition::Any), Err(StoreError::AlreadyExists { .. })));
        assert!(matches!(store.rename("z", "c", "x", None, &Precondition::Any), Err(StoreError::NotFound { .. })));
        assert_eq!(store.names(None).unwrap(), ["a", "b"]);
        assert_eq!(store.rename("a", "c", "two", None, &Precondition::Any).unwrap().content, "two");
        assert_eq!(store.names(None).unwrap(), ["b", "c"]);
    }

    #[test]
    fn history_keeps_the_twenty_most_recent() {
        let mut stored = None;
        for i in 0..25 {
            stored = Some(StoredSkill::next(stored, format!("v{i}"), format!("t{i}")));
        }
        let stored = stored.unwrap();
        assert_eq!(stored.content, "v24");
        assert_eq!(stored.history.len(), HISTORY_CAP);
        assert_eq!(stored.history[0], Version { content: "v23".into(), at: "t23".into() });
        assert_eq!(stored.history[19].content, "v4");
    }
}
