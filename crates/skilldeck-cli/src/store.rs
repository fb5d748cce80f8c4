//! `skilldeck store …`: the authored skills of a `--store` file.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Subcommand;
use serde_json::{Value, json};
use skilldeck::authoring::{self, AuthoringError};
use skilldeck::store::{Precondition, SkillStore, StoreError};
use skilldeck::{CatalogBuilder, LiveCatalog};

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
    },
    /// Print every agent that has records of its own.
    Agents,
}

/// `skilldeck store …`: each change goes through the authoring rules and
/// reloads, so what is stored is what the catalog will load.
pub(crate) fn run_store(
    command: StoreCommand,
    store: &dyn SkillStore,
    builder: CatalogBuilder,
    agent: Option<&str>,
) -> anyhow::Result<ExitCode> {
    let scope = json!(agent);
    let outcome: Result<Value, AuthoringError> = match command {
        StoreCommand::Write { name, file, create_only } => {
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
            let live = LiveCatalog::new(builder)?;
            check_store(&live.snapshot())?;
            let precondition = if create_only { Precondition::Absent } else { Precondition::Any };
            authoring::write_skill(store, &live, Some(&name), &content, agent, &precondition)
                .map(|r| json!({"name": name.trim(), "agent": scope, "updated_at": r.updated_at}))
        }
        StoreCommand::Delete { name } => {
            let live = LiveCatalog::new(builder)?;
            check_store(&live.snapshot())?;
            authoring::delete_skill(store, &live, Some(&name), agent)
                .map(|()| json!({"name": name.trim(), "agent": scope, "deleted": true}))
        }
        StoreCommand::Versions { name } => store
            .versions(&name, agent)
            .map(|versions| {
                json!(versions.iter().map(|v| json!({"content": v.content, "at": v.at})).collect::<Vec<_>>())
            })
            .map_err(AuthoringError::from),
        StoreCommand::Restore { name, index } => store
            .restore(&name, index, agent)
            .map(|r| json!({"name": name, "agent": scope, "updated_at": r.updated_at}))
            .map_err(AuthoringError::from),
        StoreCommand::Agents => store.agents().map(|agents| json!(agents)).map_err(AuthoringError::from),
    };
    match outcome {
        Ok(value) => {
            print_json(&value)?;
            Ok(ExitCode::SUCCESS)
        }
        // A refusal is the request's fault: exit 1 with the reason; a broken store is exit 2.
        Err(AuthoringError::Store(error @ StoreError::Backend { .. })) => Err(error.into()),
        Err(error) => {
            eprintln!("skilldeck: {}", skilldeck::escape_control(&error.to_string()));
            Ok(ExitCode::FAILURE)
        }
    }
}
