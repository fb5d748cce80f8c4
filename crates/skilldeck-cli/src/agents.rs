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

    /// Whether `--agent`'s profile is the store's (when there is one): no
    /// profile flag is given and `--agents` has no entry for it. A server
    /// then reads it again when the store changes.
    pub(crate) fn reads_store(&self, agents: &[doctor::Agent]) -> bool {
        self.agent.as_ref().is_some_and(|id| !self.has_profile_flags() && agents.iter().all(|a| a.profile.id != *id))
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
        if let Some(id) = &self.agent
            && !self.has_profile_flags()
        {
            if let Some(agent) = agents.iter().find(|a| a.profile.id == *id) {
                return Ok(Some(agent.profile.clone()));
            }
            if let Some(store) = store
                && let Some(stored) = store.profiles()?.into_iter().find(|p| p.id == *id)
            {
                return Ok(Some(stored));
            }
        }
        if self.agent.is_none() && !self.has_profile_flags() {
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
            Some(given) if given.profile != profile => crate::output::say!(
                "skilldeck: warning: {}",
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

#[cfg(test)]
mod tests {
    use clap::Parser;
    use skilldeck::store::MemoryStore;

    use super::*;

    #[derive(Parser)]
    struct Flags {
        #[command(flatten)]
        agent: AgentArgs,
    }

    fn flags(args: &[&str]) -> AgentArgs {
        Flags::try_parse_from([&["skilldeck"], args].concat()).unwrap().agent
    }

    /// Flags, then the --agents file, then the store, then the id alone;
    /// only a profile the store gives (or would give) is followed there.
    #[test]
    fn the_profile_comes_from_the_first_source_that_has_it() {
        let store = MemoryStore::default();
        store.update_profiles(&mut |all| all.push(AgentProfile::new("shop").allow(["stored"]))).unwrap();
        let file = [doctor::Agent::new(AgentProfile::new("shop").allow(["filed"]))];
        /// The flags, the --agents file, the profile, whether the store is followed.
        type Case<'a> = (&'a [&'a str], &'a [doctor::Agent], Option<AgentProfile>, bool);
        let cases: [Case<'_>; 5] = [
            (&["--agent", "shop"], &[], Some(AgentProfile::new("shop").allow(["stored"])), true),
            (&["--agent", "shop"], &file, Some(AgentProfile::new("shop").allow(["filed"])), false),
            (&["--agent", "shop", "--eager", "all"], &file, Some(AgentProfile::new("shop").eager(Eager::All)), false),
            (&["--agent", "other"], &file, Some(AgentProfile::new("other")), true),
            (&[], &file, None, false),
        ];
        for (args, agents, profile, follows) in cases {
            let given = flags(args);
            assert_eq!(given.profile(agents, Some(&store)).unwrap(), profile, "{args:?}");
            assert_eq!(given.reads_store(agents), follows, "{args:?}");
        }
        let without_store = flags(&["--agent", "shop"]).profile(&[], None).unwrap();
        assert_eq!(without_store, Some(AgentProfile::new("shop")));
    }
}
