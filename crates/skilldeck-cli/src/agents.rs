//! The agent flags and the `--agents` file: which profile a command serves.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Args;
use serde::Deserialize;
use serde_json::Value;
use skilldeck::{AgentProfile, Eager, doctor};

/// Which agent is asking, and its profile; accepted before or after the command.
#[derive(Args, Debug)]
pub(crate) struct AgentArgs {
    /// The agent: its store scope and profile. Without it and without a profile
    /// flag, commands use the toolnexus `skill` tool.
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
    /// `doctor`, and for `--agent ID` when no other agent flag is given.
    #[arg(long = "agents", value_name = "FILE.json", global = true)]
    pub(crate) agents: Option<PathBuf>,
}

impl AgentArgs {
    /// The profile: from the flags when any profile flag is given, else
    /// `--agent`'s entry in `--agents`, else just the id.
    pub(crate) fn profile(&self, agents: &[doctor::Agent]) -> Option<AgentProfile> {
        let flags = !self.allow.is_empty() || self.allow_none || !self.eager.is_empty();
        if !flags
            && let Some(id) = &self.agent
            && let Some(agent) = agents.iter().find(|a| a.profile.id == *id)
        {
            return Some(agent.profile.clone());
        }
        if self.agent.is_none() && !flags {
            return None;
        }
        let mut profile = AgentProfile::new(self.agent.clone().unwrap_or_default());
        if self.allow_none || !self.allow.is_empty() {
            profile = profile.allow(self.allow.iter().cloned());
        }
        profile.eager = match self.eager.as_slice() {
            [] => Eager::None,
            [all] if all == "all" => Eager::All,
            names => Eager::names(names),
        };
        Some(profile)
    }
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
