//! The agent flags, the `--agents` file and the store's profiles: which
//! profile a command serves.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Args;
use serde::Deserialize;
use serde_json::{Value, json};
use skilldeck::store::{SkillStore, StoreError};
use skilldeck::{AgentProfile, Eager, doctor};

/// Which agent is asking, and its profile; accepted before or after the command.
#[derive(Args, Debug)]
pub(crate) struct AgentArgs {
    /// The agent: its store scope and profile. Its profile comes from the profile flags
    /// (--allow, --allow-none, --eager) when any is given, else from its entry in --agents,
    /// else from --store's profiles (`skilldeck store profile ID`), else it may use every
    /// skill, none eager. Without it and without a profile flag, commands use the toolnexus
    /// `skill` tool.
    #[arg(long, value_name = "ID", global = true)]
    pub(crate) agent: Option<String>,
    /// Allow only these skills (repeat for more); default: every skill.
    #[arg(long = "allow", value_name = "NAME", global = true)]
    allow: Vec<String>,
    /// Allow no skill at all.
    #[arg(long, global = true, conflicts_with = "allow")]
    allow_none: bool,
    /// Always inject this skill's body (repeat for more), or `all` for every allowed skill.
    #[arg(long = "eager", value_name = "NAME|all", global = true)]
    eager: Vec<String>,
    /// A JSON file of agent profiles `[{id, skills?, eager?, identity?, files?}]`, for
    /// `doctor` (with --store's profiles; an entry here replaces the store's profile of its
    /// id), and for `--agent ID` when no other agent flag is given.
    #[arg(long = "agents", value_name = "FILE.json", global = true)]
    pub(crate) agents: Option<PathBuf>,
}

impl AgentArgs {
    /// Whether any profile flag is given.
    fn has_profile_flags(&self) -> bool {
        self.allows().is_some() || !self.eager.is_empty()
    }

    /// The allowlist the flags give: `None` when neither `--allow` nor
    /// `--allow-none` is.
    pub(crate) fn allows(&self) -> Option<Vec<String>> {
        (self.allow_none || !self.allow.is_empty()).then(|| self.allow.clone())
    }

    /// The eager set `--eager` gives: `None` when it is not given.
    pub(crate) fn eager(&self) -> Option<Eager> {
        match self.eager.as_slice() {
            [] => None,
            [all] if all == "all" => Some(Eager::All),
            names => Some(Eager::names(names)),
        }
    }

    /// The profile, first found of: the flags when any profile flag is
    /// given, `--agent`'s entry in `--agents`, its profile in `store`, just
    /// the id (every skill, none eager).
    ///
    /// # Errors
    ///
    /// The store's, when it has to be asked and fails.
    pub(crate) fn profile(
        &self,
        agents: &[doctor::Agent],
        store: Option<&dyn SkillStore>,
    ) -> Result<Option<AgentProfile>, StoreError> {
        let flags = self.has_profile_flags();
        if !flags && let Some(id) = &self.agent {
            if let Some(agent) = agents.iter().find(|a| a.profile.id == *id) {
                return Ok(Some(agent.profile.clone()));
            }
            if let Some(store) = store
                && let Some(stored) = store.profiles()?.into_iter().find(|p| p.id == *id)
            {
                return Ok(Some(stored));
            }
        }
        if self.agent.is_none() && !flags {
            return Ok(None);
        }
        let profile = AgentProfile {
            id: self.agent.clone().unwrap_or_default(),
            skills: self.allows(),
            eager: self.eager().unwrap_or_default(),
        };
        Ok(Some(profile))
    }
}

/// A profile as JSON, in the `--agents` file's shape (`skills` null for
/// every skill; `eager` null, true for all, or the names), so that what
/// `store profiles` prints is an `--agents` file.
pub(crate) fn profile_json(profile: &AgentProfile) -> Value {
    let eager = match &profile.eager {
        Eager::None => Value::Null,
        Eager::All => Value::Bool(true),
        Eager::Names(names) => json!(names),
    };
    json!({"id": profile.id, "skills": profile.skills, "eager": eager})
}

/// The agents `doctor` checks: the `--agents` file's, in its order, then
/// the store's profiles whose id the file does not have, by id. The file's
/// entry wins a clash, as it does for `--agent` (it is what this command
/// was given, with the identity and prompt files the store does not keep);
/// a clash whose profiles differ is said on stderr.
pub(crate) fn with_stored(file: &[doctor::Agent], stored: Vec<AgentProfile>) -> Vec<doctor::Agent> {
    let mut agents = file.to_vec();
    for profile in stored {
        match file.iter().find(|a| a.profile.id == profile.id) {
            Some(given) if given.profile != profile => eprintln!(
                "warning: {}",
                skilldeck::escape_control(&format!(
                    "agent '{}': the --agents file's profile is checked, not the store's, which differs",
                    profile.id
                ))
            ),
            Some(_) => {}
            None => agents.push(doctor::Agent::new(profile)),
        }
    }
    agents
}

/// An agent as written in an `--agents` JSON file.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AgentJson {
    id: String,
    #[serde(default)]
    skills: Option<Vec<String>>,
    #[serde(default)]
    eager: Value,
    #[serde(default)]
    identity: Vec<String>,
    /// Prompt file name → its text.
    #[serde(default)]
    files: BTreeMap<String, String>,
}

pub(crate) fn read_agents(path: &Path) -> anyhow::Result<Vec<doctor::Agent>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let agents: Vec<AgentJson> = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a JSON array of agent profiles", path.display()))?;
    Ok(agents
        .into_iter()
        .map(|a| {
            let profile = AgentProfile { id: a.id, skills: a.skills, eager: Eager::from_json(&a.eager) };
            a.files
                .into_iter()
                .fold(doctor::Agent::new(profile).identity(a.identity), |agent, (name, text)| agent.file(name, text))
        })
        .collect())
}
