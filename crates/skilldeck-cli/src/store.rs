//! `skilldeck store …`: the authored skills and agent profiles of a `--store`.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Subcommand;
use serde_json::{Value, json};
use skilldeck::authoring::{AuthoringError, WriteSkill};
use skilldeck::store::{Precondition, SkillStore, StoreError};
use skilldeck::{AgentProfile, CatalogBuilder, LiveCatalog, NameError, NameKind, check_name};

use crate::agents::{AgentArgs, profile_json};
use crate::{check_store, print_json};

#[derive(Subcommand, Debug)]
pub(crate) enum StoreCommand {
    /// Write a SKILL.md (from --file, else stdin) under NAME, keeping the old text in its history.
    Write {
        /// The record's key: the skill's name, whatever its frontmatter says.
        name: String,
        /// The SKILL.md to store; default: stdin.
        #[arg(long, value_name = "FILE")]
        file: Option<PathBuf>,
        /// Refuse to overwrite an existing record.
        #[arg(long)]
        create_only: bool,
        /// Store the text even when the audit finds something at high or above in it.
        #[arg(long)]
        allow_risk: bool,
    },
    /// Delete the record NAME (with --agent: only that agent's specialization).
    Delete {
        /// The record's key.
        name: String,
    },
    /// Print the earlier versions of NAME, most recent first, as JSON.
    Versions {
        /// The record's key.
        name: String,
    },
    /// Write version INDEX of NAME's history back as its current text.
    Restore {
        /// The record's key.
        name: String,
        /// The version, 0 being the most recent earlier one.
        #[arg(allow_negative_numbers = true)]
        index: i64,
        /// Restore the text even when the audit finds something at high or above in it.
        #[arg(long)]
        allow_risk: bool,
    },
    /// Print every agent that has records of its own.
    Agents,
    /// Print the agent profiles the store keeps, by id, as JSON: an --agents file.
    Profiles,
    /// Print agent ID's profile as JSON; with --allow, --allow-none, --allow-all, --eager or
    /// --eager-none, first create or change it (what is not given stays as it was; a new
    /// profile allows every skill, none eager), keeping the old one in its history.
    Profile {
        /// The agent's id.
        id: String,
        /// Allow every skill (drop the allowlist).
        #[arg(long)]
        allow_all: bool,
        /// Make no skill eager.
        #[arg(long)]
        eager_none: bool,
        /// Delete the profile with its history instead.
        #[arg(long, conflicts_with_all = ["allow_all", "eager_none", "versions"])]
        delete: bool,
        /// Print the earlier versions of the profile, most recent first, instead.
        #[arg(long, conflicts_with_all = ["allow_all", "eager_none"])]
        versions: bool,
    },
}

/// `skilldeck store …`: each change goes through the authoring rules and
/// reloads, so what is stored is what the catalog will load.
pub(crate) fn run_store(
    command: StoreCommand,
    store: &dyn SkillStore,
    builder: CatalogBuilder,
    flags: &AgentArgs,
) -> anyhow::Result<ExitCode> {
    let agent = flags.agent.as_deref();
    let scope = json!(agent);
    // The name rule before anything is read or walked (the store checks it again).
    if let Err(error) = check_names(&command, agent) {
        return Ok(refused(&error));
    }
    let outcome: Result<Value, AuthoringError> = match command {
        StoreCommand::Write { name, file, create_only, allow_risk } => {
            let content = match file {
                Some(path) => {
                    std::fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?
                }
                None => {
                    let mut text = String::new();
                    std::io::stdin().read_to_string(&mut text).context("cannot read the SKILL.md from stdin")?;
                    text
                }
            };
            let live = LiveCatalog::new(builder);
            check_store(&live.snapshot())?;
            show_audit(name.trim(), &content)?;
            let precondition = if create_only { Precondition::Absent } else { Precondition::Any };
            let mut request = WriteSkill::new(&name, content).precondition(precondition).allow_risk(allow_risk);
            request.agent = agent.map(str::to_owned);
            live.write_skill(&request).map(|r| json!({"name": name.trim(), "agent": scope, "updated_at": r.updated_at}))
        }
        StoreCommand::Delete { name } => {
            let live = LiveCatalog::new(builder);
            check_store(&live.snapshot())?;
            live.delete_skill(&name, agent).map(|()| json!({"name": name.trim(), "agent": scope, "deleted": true}))
        }
        StoreCommand::Versions { name } => store
            .versions(&name, agent)
            .map(|versions| {
                json!(versions.iter().map(|v| json!({"content": v.content, "at": v.at})).collect::<Vec<_>>())
            })
            .map_err(AuthoringError::from),
        StoreCommand::Restore { name, index, allow_risk } => {
            let restored = skilldeck::authoring::restore_skill(store, &name, index, agent, allow_risk);
            if let Err(AuthoringError::Risky(report)) = &restored {
                show_report(name.trim(), report);
            }
            restored.map(|r| json!({"name": name.trim(), "agent": scope, "updated_at": r.updated_at}))
        }
        StoreCommand::Agents => store.agents().map(|agents| json!(agents)).map_err(AuthoringError::from),
        StoreCommand::Profiles => store
            .profiles()
            .map(|profiles| json!(profiles.iter().map(profile_json).collect::<Vec<_>>()))
            .map_err(AuthoringError::from),
        StoreCommand::Profile { id, allow_all, eager_none, delete, versions } => {
            let change = ProfileChange::from_flags(flags, allow_all, eager_none)?;
            if (delete || versions) && !change.is_empty() {
                anyhow::bail!("--delete and --versions take no --allow, --allow-none or --eager");
            }
            run_profile(store, id.trim(), change, delete, versions)
        }
    };
    match outcome {
        Ok(value) => {
            print_json(&value)?;
            Ok(ExitCode::SUCCESS)
        }
        // A refusal is the request's fault: exit 1 with the reason; a broken store is exit 2.
        Err(AuthoringError::Store(error @ StoreError::Backend { .. })) => Err(error.into()),
        Err(error @ AuthoringError::Risky(_)) => Ok(refused(&format!("{error} (--allow-risk stores it anyway)"))),
        Err(error) => Ok(refused(&error)),
    }
}

/// Prints on stderr, in `skilldeck audit`'s lines, what the audit finds in
/// the text to store, as `NAME/SKILL.md`: nothing when it finds nothing.
fn show_audit(name: &str, content: &str) -> anyhow::Result<()> {
    show_report(name, &skilldeck::authoring::audit_skill_md(content)?);
    Ok(())
}

/// Prints `report`, the audit of the text of record `name`, as [`show_audit`] does.
fn show_report(name: &str, report: &skilldeck::audit::Report) {
    let report = skilldeck::audit::Report { dir: PathBuf::from(name), ..report.clone() };
    crate::install::show_audit([&report]);
}

/// A refused request: its reason on stderr, exit 1.
fn refused(error: &dyn std::fmt::Display) -> ExitCode {
    crate::output::say!("skilldeck: {}", skilldeck::escape_control(&error.to_string()));
    ExitCode::FAILURE
}

/// The names a writing command would write under, checked by the engine's
/// name rule: as the authoring commands take them, trimmed, a blank agent
/// being the shared scope.
fn check_names(command: &StoreCommand, agent: Option<&str>) -> Result<(), NameError> {
    let name = match command {
        StoreCommand::Write { name, .. } | StoreCommand::Restore { name, .. } => name,
        // One stored before names were checked can still be read and deleted.
        StoreCommand::Profile { id, delete: false, versions: false, .. } => {
            return check_name(id.trim(), NameKind::Agent);
        }
        _ => return Ok(()),
    };
    check_name(name.trim(), NameKind::Skill)?;
    match agent.map(str::trim).filter(|agent| !agent.is_empty()) {
        Some(agent) => check_name(agent, NameKind::Agent),
        None => Ok(()),
    }
}

/// What `store profile ID` changes: `None` leaves a part as it is.
struct ProfileChange {
    skills: Option<Option<Vec<String>>>,
    eager: Option<skilldeck::Eager>,
}

impl ProfileChange {
    /// The change the flags ask for; two flags for one part are refused.
    fn from_flags(flags: &AgentArgs, allow_all: bool, eager_none: bool) -> anyhow::Result<ProfileChange> {
        if flags.agent.is_some() {
            anyhow::bail!("store profile takes the agent's id as ID, not --agent");
        }
        let skills = match (flags.allows(), allow_all) {
            (Some(_), true) => anyhow::bail!("--allow-all cannot be used with --allow or --allow-none"),
            (Some(names), false) => Some(Some(names)),
            (None, true) => Some(None),
            (None, false) => None,
        };
        let eager = match (flags.eager(), eager_none) {
            (Some(_), true) => anyhow::bail!("--eager-none cannot be used with --eager"),
            (Some(eager), false) => Some(eager),
            (None, true) => Some(skilldeck::Eager::None),
            (None, false) => None,
        };
        Ok(ProfileChange { skills, eager })
    }

    fn is_empty(&self) -> bool {
        self.skills.is_none() && self.eager.is_none()
    }
}

/// `store profile ID`: shows, changes, deletes or lists the history of one
/// profile, each in one store call (a change is one transaction, so two
/// commands changing one profile at once lose nothing).
fn run_profile(
    store: &dyn SkillStore,
    id: &str,
    change: ProfileChange,
    delete: bool,
    versions: bool,
) -> Result<Value, AuthoringError> {
    let not_found = || AuthoringError::ProfileNotFound { id: id.to_owned() };
    if versions {
        let versions = store.profile_versions(id)?;
        return Ok(json!(
            versions.iter().map(|v| json!({"profile": profile_json(&v.profile), "at": v.at})).collect::<Vec<_>>()
        ));
    }
    if delete {
        return skilldeck::authoring::delete_agent(store, id).map(|()| json!({"id": id, "deleted": true}));
    }
    if change.is_empty() {
        let profile = store.profiles()?.into_iter().find(|p| p.id == id).ok_or_else(not_found)?;
        return Ok(profile_json(&profile));
    }
    let mut result = None;
    store.update_profiles(&mut |all| {
        let at = all.iter().position(|p| p.id == id).unwrap_or_else(|| {
            all.push(AgentProfile::new(id));
            all.len() - 1
        });
        let profile = &mut all[at];
        if let Some(skills) = &change.skills {
            profile.skills.clone_from(skills);
        }
        if let Some(eager) = &change.eager {
            profile.eager = eager.clone();
        }
        result = Some(profile.clone());
    })?;
    Ok(result.map(|p| profile_json(&p)).unwrap_or_default())
}
