//! `skilldeck`: the command-line face of the skilldeck engine. Argument
//! parsing and output only; every rule lives in the `skilldeck` library.

use std::collections::{BTreeMap, HashSet};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, bail};
use clap::{Args, Parser, Subcommand, ValueEnum};
use serde::Deserialize;
use serde_json::{Value, json};
use skilldeck::authoring::{self, AuthoringError};
use skilldeck::doctor;
use skilldeck::store::{SkillStore, StoreError};
use skilldeck::{
    AgentProfile, AgentView, Budget, Catalog, CatalogBuilder, Eager, Filter, FrontmatterMode, LiveCatalog,
    LoadSkillTool, SkillDef, SkillTool, Source, Symlinks, ToolResult, render,
};
use skilldeck_store::SqliteStore;

mod serve;
mod validate;

/// Find, catalog and serve Agent Skills.
#[derive(Parser, Debug)]
#[command(name = "skilldeck", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    #[command(flatten)]
    sources: SourceArgs,
    #[command(flatten)]
    agent: AgentArgs,
}

/// Where skills come from; accepted before or after the command.
#[derive(Args, Debug)]
struct SourceArgs {
    /// A directory to walk for SKILL.md files; repeat for more, in precedence order.
    #[arg(long = "root", value_name = "DIR", global = true)]
    roots: Vec<PathBuf>,
    /// A JSON file holding an array of data skills {name, description?, content?, resources?, base?}.
    #[arg(long = "skills", value_name = "FILE.json", global = true)]
    skills: Vec<PathBuf>,
    /// Expose (true) or hide (false) a skill; any true makes an allowlist.
    #[arg(long = "filter", value_name = "NAME=true|false", global = true, value_parser = parse_filter_entry)]
    filter: Vec<(String, bool)>,
    /// Files listed by the skill tool: 0 = ten, N = at most N, -1 = no list.
    #[arg(long, value_name = "N", global = true, default_value_t = 0, allow_negative_numbers = true)]
    sample_limit: i64,
    /// Treat any YAML the parser refuses as malformed (no line-wise rescue); for validate, make every warning an error.
    #[arg(long, global = true)]
    strict: bool,
    /// Do not follow symbolic links while walking.
    #[arg(long, global = true)]
    no_follow_symlinks: bool,
    /// A SQLite file of authored skills (created if missing); its records overlay the roots.
    #[arg(long, value_name = "FILE.sqlite", global = true)]
    store: Option<PathBuf>,
}

/// Which agent is asking, and its profile; accepted before or after the command.
#[derive(Args, Debug)]
struct AgentArgs {
    /// The agent: its store scope and profile. Without it and without a profile
    /// flag, commands use the toolnexus `skill` tool.
    #[arg(long, value_name = "ID", global = true)]
    agent: Option<String>,
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
    agents: Option<PathBuf>,
}

impl AgentArgs {
    /// The profile: from the flags when any profile flag is given, else
    /// `--agent`'s entry in `--agents`, else just the id.
    fn profile(&self, agents: &[doctor::Agent]) -> Option<AgentProfile> {
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

#[derive(Subcommand, Debug)]
enum Command {
    /// List the exposed skills and the skipped candidates.
    List {
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// List the skills that lost their name to another, with the winner, instead.
        #[arg(long)]
        shadowed: bool,
    },
    /// Print exactly what the skill tool (with an agent: load_skill) returns for NAME.
    Load {
        /// The skill to load.
        #[arg(required_unless_present = "at")]
        name: Option<String>,
        /// Load the skill at this location instead (a SKILL.md path, a base or
        /// store:NAME), even one that lost its name: see `list --shadowed`.
        #[arg(long, value_name = "LOCATION", conflicts_with = "name")]
        at: Option<String>,
    },
    /// Print the level-1 catalog for a system prompt.
    Prompt {
        /// The catalog format.
        #[arg(long, value_enum, default_value_t = PromptFormat::Toolnexus)]
        format: PromptFormat,
        /// Fit the catalog in N characters (8000c) or tokens (2000t, o200k; 2000t:cl100k):
        /// descriptions shrink fairly first, then skills are dropped from the end.
        #[arg(long, value_name = "Nc|Nt[:ENCODING]")]
        budget: Option<Budget>,
        /// With --budget: print what was shown whole, shortened and omitted to stderr.
        #[arg(long, requires = "budget")]
        report: bool,
    },
    /// Print the tool's declaration as JSON (with an agent: load_skill's).
    Schema {
        /// The vendor shape.
        #[arg(long, value_enum, default_value_t = SchemaFormat::Openai)]
        format: SchemaFormat,
    },
    /// Print the bodies injected for a message: the agent's eager skills, the
    /// skills the message triggers, and their companions.
    Inject {
        /// The user's message.
        #[arg(long)]
        message: String,
        /// Print {"content", "labels": [{name, reason}]} instead of the content.
        #[arg(long)]
        json: bool,
    },
    /// Run Insika's skill-eager and skill-drift checks over the roots, --store and --agents.
    Doctor {
        /// Print [{check, severity, message}] instead of lines.
        #[arg(long)]
        json: bool,
    },
    /// Check skills against the Agent Skills specification: skills-ref's checks and messages, then more.
    Validate(validate::ValidateArgs),
    /// Print a skill's properties (skills-ref read-properties) from the catalog.
    Show(validate::ShowArgs),
    /// Serve the catalog over MCP: stdio, or Streamable HTTP with --http.
    Serve(serve::ServeArgs),
    /// Read and change the authored skills of --store (shared, or --agent's).
    Store {
        #[command(subcommand)]
        command: StoreCommand,
    },
}

#[derive(Subcommand, Debug)]
enum StoreCommand {
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

fn read_agents(path: &Path) -> anyhow::Result<Vec<doctor::Agent>> {
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

#[derive(Clone, Copy, Debug, ValueEnum)]
enum PromptFormat {
    Toolnexus,
    Agentskills,
    Insika,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum SchemaFormat {
    Openai,
    Anthropic,
    Gemini,
    Mcp,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("skilldeck: {error:#}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let agents = cli.agent.agents.as_deref().map(read_agents).transpose()?.unwrap_or_default();
    let profile = cli.agent.profile(&agents);
    let store = match &cli.sources.store {
        Some(path) => Some(Arc::new(SqliteStore::open(path)?) as Arc<dyn SkillStore>),
        None => None,
    };
    let builder = catalog_builder(&cli.sources, store.clone())?;
    match cli.command {
        Command::Schema { format } => {
            let declaration = if profile.is_some() { LoadSkillTool::declaration() } else { SkillTool::declaration() };
            let shaped = match format {
                SchemaFormat::Openai => declaration.openai(),
                SchemaFormat::Anthropic => declaration.anthropic(),
                SchemaFormat::Gemini => declaration.gemini(),
                SchemaFormat::Mcp => declaration.mcp(),
            };
            print_json(&json!([shaped]))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Serve(args) => serve::run(args, &cli.sources, profile),
        Command::Store { command } => {
            let Some(store) = store else { bail!("store commands need --store FILE.sqlite") };
            run_store(command, store.as_ref(), builder, cli.agent.agent.as_deref())
        }
        Command::Validate(args) => {
            let symlinks = if cli.sources.no_follow_symlinks { Symlinks::Skip } else { Symlinks::Follow };
            validate::validate(&args, cli.sources.strict, symlinks)
        }
        Command::Doctor { json } => {
            // Disk seeds come from the roots alone; the store is swept on its own.
            let catalog = catalog_builder(&cli.sources, None)?.build()?;
            let doctor = doctor::Doctor {
                catalog: Some(&catalog),
                store: store.as_deref(),
                agents: cli.agent.agents.is_some().then_some(agents.as_slice()),
            };
            let findings = doctor.check();
            if json {
                let rows: Vec<Value> = findings
                    .iter()
                    .map(|f| json!({"check": f.check, "severity": f.severity.as_str(), "message": f.message}))
                    .collect();
                print_json(&json!(rows))?;
            } else {
                print(&findings.iter().map(|f| format!("{f}\n")).collect::<String>())?;
            }
            let failed =
                findings.iter().any(|f| matches!(f.severity, doctor::Severity::Warn | doctor::Severity::Error));
            Ok(if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS })
        }
        command => {
            // Never dropped: the process ends after this command, and freeing every
            // skill one by one costs more than the rest of a large list.
            let catalog = std::mem::ManuallyDrop::new(builder.build()?);
            for warning in catalog.warnings() {
                eprintln!("warning: {warning}");
            }
            run_catalog(command, &catalog, profile.as_ref())
        }
    }
}

/// The commands that read one catalog snapshot.
fn run_catalog(command: Command, catalog: &Catalog, profile: Option<&AgentProfile>) -> anyhow::Result<ExitCode> {
    let shared = AgentProfile::default();
    let view = catalog.view(profile.unwrap_or(&shared));
    match command {
        Command::List { json: true, shadowed: true } => print_json(&shadowed_json(catalog))?,
        Command::List { json: false, shadowed: true } => print(&shadowed_table(catalog))?,
        Command::List { json: true, shadowed: false } => print_json(&list_json(catalog, profile.map(|_| &view)))?,
        Command::List { json: false, shadowed: false } => print(&list_table(catalog, profile.map(|_| &view)))?,
        Command::Load { name, at } => {
            let result = match (profile, name, at) {
                (_, _, Some(location)) => SkillTool::new(catalog).load_at(&location, catalog.sample_limit()),
                (Some(_), Some(name), None) => LoadSkillTool::new(&view).load(&name),
                (None, Some(name), None) => SkillTool::new(catalog).load(&name, catalog.sample_limit()),
                (_, None, None) => unreachable!("clap requires NAME or --at"),
            };
            return tool_output(&result);
        }
        Command::Prompt { format, budget: None, .. } => print(&match format {
            PromptFormat::Toolnexus => render::toolnexus(catalog),
            PromptFormat::Agentskills => render::agentskills(catalog),
            PromptFormat::Insika => render::insika(&view.lazy()),
        })?,
        Command::Prompt { format, budget: Some(budget), report } => {
            let fitted = match format {
                PromptFormat::Toolnexus => budget.toolnexus(catalog),
                PromptFormat::Agentskills => budget.agentskills(catalog),
                PromptFormat::Insika => budget.insika(&view.lazy()),
            };
            print(&fitted.text)?;
            if report {
                eprint!("{}", fitted.report);
            }
        }
        Command::Inject { message, json: false } => print(&render::active_skills(&view.activate(&message)))?,
        Command::Inject { message, json: true } => {
            let activations = view.activate(&message);
            let labels: Vec<Value> =
                activations.iter().map(|a| json!({"name": a.skill.name(), "reason": a.reason.to_string()})).collect();
            print_json(&json!({"content": render::active_skills(&activations), "labels": labels}))?;
        }
        Command::Show(args) => return validate::show(&args, catalog),
        Command::Schema { .. }
        | Command::Store { .. }
        | Command::Doctor { .. }
        | Command::Validate(_)
        | Command::Serve(_) => {
            unreachable!("answered without a catalog")
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `skilldeck store …`: each change goes through the authoring rules and
/// reloads, so what is stored is what the catalog will load.
fn run_store(
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
            authoring::write_skill(store, &live, Some(&name), &content, agent, create_only)
                .map(|r| json!({"name": name.trim(), "agent": scope, "updated_at": r.updated_at}))
        }
        StoreCommand::Delete { name } => {
            let live = LiveCatalog::new(builder)?;
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
            eprintln!("skilldeck: {error}");
            Ok(ExitCode::FAILURE)
        }
    }
}

/// A tool result on stdout, nothing added; exit 1 when it is an error.
fn tool_output(result: &ToolResult) -> anyhow::Result<ExitCode> {
    print(&result.output)?;
    Ok(if result.is_error { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}

fn catalog_builder(sources: &SourceArgs, store: Option<Arc<dyn SkillStore>>) -> anyhow::Result<CatalogBuilder> {
    let mut builder = Catalog::builder()
        .roots(&sources.roots)
        .filter(Filter::new(sources.filter.iter().cloned()))
        .sample_limit(sources.sample_limit)
        .frontmatter_mode(if sources.strict { FrontmatterMode::Strict } else { FrontmatterMode::Lenient })
        .symlinks(if sources.no_follow_symlinks { Symlinks::Skip } else { Symlinks::Follow });
    for file in &sources.skills {
        builder = builder.skills(read_skill_defs(file)?);
    }
    if let Some(store) = store {
        builder = builder.store(store);
    }
    Ok(builder)
}

/// A data skill as written in a `--skills` JSON file.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SkillDefJson {
    name: Option<String>,
    description: Option<String>,
    #[serde(default)]
    content: String,
    #[serde(default)]
    resources: Vec<String>,
    base: Option<String>,
}

fn read_skill_defs(path: &Path) -> anyhow::Result<Vec<SkillDef>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let defs: Vec<SkillDefJson> = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a JSON array of skill definitions", path.display()))?;
    Ok(defs
        .into_iter()
        .map(|d| SkillDef {
            name: d.name,
            description: d.description,
            content: d.content,
            resources: d.resources,
            base: d.base,
        })
        .collect())
}

fn parse_filter_entry(entry: &str) -> anyhow::Result<(String, bool)> {
    let Some((name, value)) = entry.rsplit_once('=') else {
        bail!("expected NAME=true or NAME=false, got {entry:?}");
    };
    match value {
        "true" => Ok((name.to_owned(), true)),
        "false" => Ok((name.to_owned(), false)),
        _ => bail!("expected NAME=true or NAME=false, got {entry:?}"),
    }
}

/// How the view's agent gets each skill: `eager`, `lazy` or `not-allowed`.
fn modes<'v>(view: &'v AgentView<'_>) -> impl Fn(&str) -> &'static str + 'v {
    let eager: HashSet<&str> = view.eager().into_iter().map(|s| s.name()).collect();
    move |name| match (view.profile().allows(name), eager.contains(name)) {
        (false, _) => "not-allowed",
        (true, true) => "eager",
        (true, false) => "lazy",
    }
}

fn list_json(catalog: &Catalog, view: Option<&AgentView<'_>>) -> Value {
    let skills: Vec<&skilldeck::Skill> = match view {
        Some(view) => view.all().to_vec(),
        None => catalog.skills().collect(),
    };
    let mode = view.map(modes);
    let skills: Vec<Value> = skills
        .iter()
        .map(|s| {
            let mut entry = json!({
                "name": s.name(), "description": s.description(),
                "location": s.location(), "origin": s.origin().kind(),
            });
            if let Some(mode) = &mode {
                entry["mode"] = json!(mode(s.name()));
            }
            entry
        })
        .collect();
    let skipped: Vec<Value> = catalog
        .skips()
        .iter()
        .map(|skip| {
            let mut entry = json!({"location": skip.location, "reason": skip.reason.as_str()});
            if let Some(detail) = &skip.detail {
                entry["detail"] = json!(detail);
            }
            entry
        })
        .collect();
    let warnings: Vec<String> = catalog.warnings().iter().map(ToString::to_string).collect();
    json!({
        "skills": skills, "skipped": skipped,
        "filter_unmatched": catalog.filter_unmatched(), "warnings": warnings,
    })
}

/// The first line of a description, `-` without one: what a table shows.
fn first_line(skill: &skilldeck::Skill) -> &str {
    skill.description().unwrap_or("-").lines().next().unwrap_or("")
}

fn list_table(catalog: &Catalog, view: Option<&AgentView<'_>>) -> String {
    let skills: Vec<&skilldeck::Skill> = match view {
        Some(view) => view.all().to_vec(),
        None => catalog.skills().collect(),
    };
    let width = skills.iter().map(|s| s.name().chars().count()).max().unwrap_or(0).max(4);
    // Sized up front: a large catalog would otherwise regrow the string many times.
    let size: usize = skills.iter().map(|s| width + 25 + s.name().len() + first_line(s).len()).sum();
    let mut out = String::with_capacity(size + 64);
    // Padded by hand: `{:<width$}` pads one character at a time, and this
    // runs once per skill.
    let mut row = |cells: &[(&str, usize)], description: &str| {
        for &(cell, width) in cells {
            out.push_str(cell);
            out.extend(std::iter::repeat_n(' ', width.saturating_sub(cell.chars().count()) + 2));
        }
        out.push_str(description);
        out.push('\n');
    };
    let mode = view.map(modes);
    match mode {
        Some(_) => row(&[("NAME", width), ("ORIGIN", 7), ("MODE", 11)], "DESCRIPTION"),
        None => row(&[("NAME", width), ("ORIGIN", 7)], "DESCRIPTION"),
    }
    for skill in skills {
        let (name, origin) = ((skill.name(), width), (skill.origin().kind(), 7));
        match &mode {
            Some(mode) => row(&[name, origin, (mode(skill.name()), 11)], first_line(skill)),
            None => row(&[name, origin], first_line(skill)),
        }
    }
    if !catalog.skips().is_empty() {
        out.push_str("\nskipped:\n");
        for skip in catalog.skips() {
            let detail = skip.detail.as_deref().map(|d| format!(" ({d})")).unwrap_or_default();
            out.push_str(&format!("  {:<22} {}{detail}\n", skip.reason.as_str(), skip.location));
        }
    }
    if !catalog.filter_unmatched().is_empty() {
        out.push_str(&format!("\nfilter matched no skill: {}\n", catalog.filter_unmatched().join(", ")));
    }
    out
}

/// `{location, source, root?}` of one side of a shadowing.
fn contender(location: &str, source: &Source) -> Value {
    match source {
        Source::Root(root) => json!({"location": location, "source": "root", "root": root}),
        other => json!({"location": location, "source": other.to_string()}),
    }
}

fn shadowed_json(catalog: &Catalog) -> Value {
    let rows: Vec<Value> = catalog
        .shadowed()
        .iter()
        .map(|s| {
            json!({
                "name": s.skill.name(),
                "winner": contender(&s.winner_location, &s.winner_source),
                "loser": contender(s.skill.location(), &s.source),
            })
        })
        .collect();
    json!(rows)
}

fn shadowed_table(catalog: &Catalog) -> String {
    catalog
        .shadowed()
        .iter()
        .map(|s| {
            format!(
                "{}\n  kept: {} ({})\n  lost: {} ({})\n",
                s.skill.name(),
                s.winner_location,
                s.winner_source,
                s.skill.location(),
                s.source
            )
        })
        .collect()
}

fn print(text: &str) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_bytes())?;
    stdout.flush()?;
    Ok(())
}

fn print_json(value: &Value) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut stdout, value)?;
    stdout.write_all(b"\n")?;
    Ok(())
}
