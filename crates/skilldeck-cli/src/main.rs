//! `skilldeck`: the command-line face of the skilldeck engine. Argument
//! parsing and output only; every rule lives in the `skilldeck` library.

// Every write goes through `output`, which never panics on a failed one.
#![deny(clippy::print_stderr, clippy::print_stdout)]

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, bail};
use clap::{Args, Parser, Subcommand, ValueEnum};
use serde::Deserialize;
use serde_json::{Value, json};
use skilldeck::audit::Severity;
use skilldeck::doctor;
use skilldeck::store::SkillStore;
use skilldeck::{
    AgentProfile, Budget, Catalog, CatalogBuilder, Filter, FrontmatterMode, LoadSkillTool, SampleLimit, SkillDef,
    SkillTool, Skip, Symlinks, ToolResult, Warning, escape_control, render,
};

/// mimalloc rather than the system allocator: a cold `list` of a large tree
/// makes hundreds of thousands of small allocations on two threads, glibc grew
/// its per-thread arenas a page at a time (thousands of `mprotect` calls), and
/// with mimalloc the whole `list` of 10k skills takes about 12% less time.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod agents;
mod audit;
mod http;
mod install;
mod list;
mod log;
mod new;
mod output;
mod roots;
mod search;
mod serve;
mod store;
mod studio;
mod validate;

use agents::{AgentArgs, read_agents};
use list::{list_json, list_table, shadowed_json, shadowed_table};
use output::{broken_pipe, say};
pub(crate) use output::{print, print_json};
use roots::Roots;
use store::{StoreCommand, run_store};

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
    /// Print every warning the catalog has on stderr, not only the first few and a count of each kind.
    #[arg(long, global = true)]
    verbose: bool,
}

/// Where skills come from; accepted before or after the command.
#[derive(Args, Debug)]
struct SourceArgs {
    /// A directory to walk for SKILL.md files; repeat for more, in precedence order. With no
    /// --root, --skills or --store: the project's (the working directory up to its repository
    /// root) .agents/skills, .claude/skills, .github/skills, then ~/.agents/skills,
    /// ~/.claude/skills, ~/.codex/skills, ~/.copilot/skills.
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
    /// Expose an installed skill (in a project's .agents/skills) only when the project's
    /// skills-lock.json names it and its files are the ones the lock records; without it,
    /// one whose files differ is listed with a `modified since install` warning.
    #[arg(long, global = true)]
    locked: bool,
    /// Leave out every skill the audit finds something at or above SEVERITY in (info, low,
    /// medium, high, critical), as `skilldeck audit` would report it: a `risky` skip naming
    /// the worst finding, and the next skill of its name in its place.
    #[arg(long, value_name = "SEVERITY", global = true)]
    refuse_risk: Option<Severity>,
    /// Authored skills, whose records overlay the roots: a SQLite file (created
    /// if missing), or a PostgreSQL database shared by several hosts
    /// (`postgres://user@host/db`).
    #[arg(long, value_name = "FILE.sqlite|postgres://URL", global = true)]
    store: Option<String>,
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
        /// Audit each skill as it is served: a RISK column (its worst finding), or an audit object in JSON.
        #[arg(long, conflicts_with = "shadowed")]
        audit: bool,
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
    /// Rank the skills for a request by name, description, triggers and body
    /// (with an agent: only those it may use); exit 1 when none matches well.
    Search(search::SearchArgs),
    /// Run Insika's skill-eager and skill-drift checks over the roots, --store (its records and
    /// agent profiles) and --agents (whose entry replaces the store's profile of its id).
    Doctor {
        /// Print [{check, severity, message}] instead of lines.
        #[arg(long)]
        json: bool,
    },
    /// Check skills against the Agent Skills specification: skills-ref's checks and messages, then more.
    Validate(validate::ValidateArgs),
    /// Audit skills for hidden text, injected instructions, dangerous commands, exfiltration and payloads.
    Audit(audit::AuditArgs),
    /// Print a skill's properties (skills-ref read-properties) from the catalog.
    Show(validate::ShowArgs),
    /// Serve the catalog over MCP: stdio, or Streamable HTTP with --http.
    ///
    /// Diagnostics go to stderr, one line each; $SKILLDECK_LOG chooses which (default
    /// `skilldeck_mcp=info,skilldeck_cli=info`; `debug`, `skilldeck_mcp=debug,rmcp=info`, ...).
    /// With no source flag, the server follows the project of its client's MCP roots (stdio).
    Serve(serve::ServeArgs),
    /// Read and change the authored skills of --store (shared, or --agent's).
    Store {
        #[command(subcommand)]
        command: StoreCommand,
    },
    /// Make a new skill: ROOT/NAME/SKILL.md (ROOT: the first --root, else .agents/skills), valid as made.
    #[command(alias = "init")]
    New(new::NewArgs),
    /// Print the shell completion script for bash, zsh, fish, elvish or powershell.
    Completions(new::CompletionsArgs),
    /// Open the Studio: web pages to write skills, give them to agents and preview what
    /// each agent sees, over --root, --store and --agents (loopback, 127.0.0.1:7676, by default).
    ///
    /// Saving needs --store (without it the pages are read-only); agent profiles are the
    /// store's, and --agents profiles are shown beside them.
    Studio(studio::StudioArgs),
    /// Install skills from a git repository (a URL, owner/repo[/path][@REF]) or a directory into
    /// .agents/skills, recorded with their commit and every file's digest in skills-lock.json.
    Add(install::add::AddArgs),
    /// Install exactly what skills-lock.json records (offline from the cache when it can).
    Install(install::sync::InstallArgs),
    /// Remove installed skills and their skills-lock.json entries.
    Remove(install::remove::RemoveArgs),
    /// Check every installed file against skills-lock.json; exit 1 on any difference.
    Verify(install::verify::VerifyArgs),
    /// Move installed skills to the newest commit of their ref; print what changes.
    Update(install::update::UpdateArgs),
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
        // The reader went (`skilldeck prompt | head -1`): nothing is wrong, as with `rg`.
        Err(error) if broken_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            say!("skilldeck: {}", escape_control(&error_text(&error)));
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let agents = cli.agent.agents.as_deref().map(read_agents).transpose()?.unwrap_or_default();
    // The commands that read no source answer before any is opened.
    let command = match cli.command {
        Command::Schema { format } => {
            // Which tool depends on whether there is a profile, not on what it allows.
            let declaration = if cli.agent.profile(&agents, None)?.is_some() {
                LoadSkillTool::declaration()
            } else {
                SkillTool::declaration()
            };
            let shaped = match format {
                SchemaFormat::Openai => declaration.openai(),
                SchemaFormat::Anthropic => declaration.anthropic(),
                SchemaFormat::Gemini => declaration.gemini(),
                SchemaFormat::Mcp => declaration.mcp(),
            };
            print_json(&json!([shaped]))?;
            return Ok(ExitCode::SUCCESS);
        }
        Command::Validate(args) => {
            let symlinks = if cli.sources.no_follow_symlinks { Symlinks::Skip } else { Symlinks::Follow };
            return validate::validate(&args, cli.sources.strict, symlinks);
        }
        Command::Audit(args) => {
            let symlinks = if cli.sources.no_follow_symlinks { Symlinks::Skip } else { Symlinks::Follow };
            return audit::run(&args, &cli.sources.roots, symlinks);
        }
        Command::New(args) => return new::run(&args, &cli.sources.roots),
        Command::Completions(args) => return new::completions(&args),
        Command::Add(args) => return install::add::run(&args),
        Command::Install(args) => return install::sync::run(&args),
        Command::Remove(args) => return install::remove::run(&args),
        Command::Verify(args) => return install::verify::run(&args),
        Command::Update(args) => return install::update::run(&args),
        command => command,
    };
    // Every catalog command says where its skills come from, and when there are none.
    crate::log::init()?;
    // The Studio's address is taken before anything is made: a busy port must not leave a new store behind.
    let studio_listener = match &command {
        Command::Studio(args) => Some(studio::bind(args)?),
        _ => None,
    };
    let store = match &cli.sources.store {
        Some(location) => Some(Arc::<dyn SkillStore>::from(skilldeck_store::open(location)?)),
        None => None,
    };
    // The roots and data skills, read once; the store is added where a command reads it.
    // A server follows its roots: one not made yet is watched for. Every other command reads them now.
    let come_later = matches!(command, Command::Serve(_) | Command::Studio(_));
    let roots = Roots::resolve(&cli.sources.roots, !cli.sources.skills.is_empty() || store.is_some(), come_later)?;
    let disk = catalog_builder(&cli.sources, &roots.roots)?;
    let others = other_sources(&cli.sources);
    let with_store = |builder: CatalogBuilder| match &store {
        Some(store) => builder.store(store.clone()),
        None => builder,
    };
    let profile = || cli.agent.profile(&agents, store.as_deref());
    match command {
        Command::Serve(args) => {
            // A profile from the store is followed there: an edit reaches the running server.
            let follow = store.clone().filter(|_| cli.agent.reads_store(&agents)).map(skilldeck_mcp::ProfileStore);
            let agent = serve::Agent { profile: profile()?, follow };
            serve::run(args, with_store(disk), store.clone(), roots, &others, agent, cli.verbose)
        }
        Command::Studio(_) => {
            let profiles = agents.iter().map(|a| a.profile.clone()).collect();
            let listener = studio_listener.context("the Studio's address was bound above")?;
            studio::run(listener, with_store(disk), store.clone(), profiles, cli.verbose)
        }
        Command::Store { command } => {
            let Some(store) = &store else { bail!("store commands need --store FILE.sqlite|postgres://URL") };
            run_store(command, store.as_ref(), with_store(disk), &cli.agent)
        }
        Command::Doctor { json } => {
            // Disk seeds come from the roots alone; the store is swept on its own.
            let catalog = disk.build();
            if store.is_none() {
                roots::warn_if_empty(&catalog, &roots.looked_in, &others);
            }
            let store = store.as_deref().map(|s| s as &dyn SkillStore);
            let findings = match store.map(SkillStore::profiles).transpose() {
                Ok(stored) => {
                    let stored = stored.unwrap_or_default();
                    let given = cli.agent.agents.is_some() || !stored.is_empty();
                    let agents = agents::with_stored(&agents, stored);
                    let agents = given.then_some(agents.as_slice());
                    doctor::Doctor { catalog: Some(&catalog), store, agents }.check()
                }
                // Without the agents neither check is whole: each reports the store, as a sweep of it does.
                Err(error) => doctor::Check::ALL.map(|c| doctor::Finding::crashed(c, &error)).into(),
            };
            if json {
                let rows: Vec<Value> = findings
                    .iter()
                    .map(|f| json!({"check": f.check.as_str(), "severity": f.status.as_str(), "message": f.message}))
                    .collect();
                print_json(&json!(rows))?;
            } else {
                print(&findings.iter().map(|f| format!("{}\n", escape_control(&f.to_string()))).collect::<String>())?;
            }
            let failed = findings.iter().any(|f| matches!(f.status, doctor::Status::Warn | doctor::Status::Error));
            Ok(if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS })
        }
        command => {
            // Never dropped: the process ends after this command, and freeing every
            // skill one by one costs more than the rest of a large list.
            let catalog = std::mem::ManuallyDrop::new(with_store(disk).build());
            check_store(&catalog)?;
            // The catalog's warnings, then the conclusion they may explain: no skill at all.
            warn_summary(catalog.warnings(), cli.verbose);
            warn_refused(catalog.skips(), cli.verbose);
            roots::warn_if_empty(&catalog, &roots.looked_in, &others);
            run_catalog(command, &catalog, profile()?.as_ref())
        }
    }
}

/// Stops the command when the catalog could not read the store: a broken
/// store is exit 2 with its reason, for every command, never an empty store.
/// (Once serving, a store that breaks keeps its last good skills instead.)
pub(crate) fn check_store(catalog: &Catalog) -> anyhow::Result<()> {
    for warning in catalog.warnings() {
        if let Warning::StoreFailed { message } = warning {
            bail!("{message}");
        }
    }
    Ok(())
}

/// The commands that read one catalog snapshot.
fn run_catalog(command: Command, catalog: &Catalog, profile: Option<&AgentProfile>) -> anyhow::Result<ExitCode> {
    let shared = AgentProfile::default();
    let view = catalog.view(profile.unwrap_or(&shared));
    match command {
        Command::List { json: true, shadowed: true, .. } => print_json(&shadowed_json(catalog))?,
        Command::List { json: false, shadowed: true, .. } => print(&shadowed_table(catalog))?,
        Command::List { json: true, shadowed: false, audit } => {
            print_json(&list_json(catalog, profile.map(|_| &view), audit)?)?
        }
        Command::List { json: false, shadowed: false, audit } => {
            print(&list_table(catalog, profile.map(|_| &view), audit)?)?
        }
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
                output::eprint(&fitted.report.to_string());
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
        Command::Search(args) => return search::run(&args, catalog, profile),
        Command::Schema { .. }
        | Command::Store { .. }
        | Command::Doctor { .. }
        | Command::Validate(_)
        | Command::Audit(_)
        | Command::New(_)
        | Command::Completions(_)
        | Command::Serve(_)
        | Command::Studio(_)
        | Command::Add(_)
        | Command::Install(_)
        | Command::Remove(_)
        | Command::Verify(_)
        | Command::Update(_) => {
            unreachable!("answered without a catalog")
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A tool result on stdout, nothing added; exit 1 when it is an error.
fn tool_output(result: &ToolResult) -> anyhow::Result<ExitCode> {
    print(&result.output)?;
    Ok(if result.is_error { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}

/// The builder of `roots` and of the data skills and options the flags
/// name, without the store.
fn catalog_builder(sources: &SourceArgs, roots: &[PathBuf]) -> anyhow::Result<CatalogBuilder> {
    let mut builder = Catalog::builder()
        .roots(roots)
        .filter(Filter::new(sources.filter.iter().cloned()))
        .sample_limit(SampleLimit::from_config(sources.sample_limit)?)
        .frontmatter_mode(if sources.strict { FrontmatterMode::Strict } else { FrontmatterMode::Lenient })
        .symlinks(if sources.no_follow_symlinks { Symlinks::Skip } else { Symlinks::Follow })
        .locked(sources.locked);
    if let Some(cache) = skilldeck::user_cache_dir() {
        builder = builder.installed_stamps(cache.join("installed"));
    }
    if let Some(severity) = sources.refuse_risk {
        builder = builder.refuse_risk(severity);
    }
    for file in &sources.skills {
        builder = builder.skills(read_skill_defs(file)?);
    }
    Ok(builder)
}

/// The sources other than roots, as the empty catalog's warning names
/// them (the store by its flag alone: a URL may hold a password).
fn other_sources(sources: &SourceArgs) -> Vec<String> {
    let files = sources.skills.iter().map(|file| format!("--skills {}", file.display()));
    files.chain(sources.store.as_ref().map(|_| "--store".to_owned())).collect()
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

/// `error` and its causes, joined by `: ` as anyhow's `{:#}` does, but ending
/// at a store or authoring error: its text already says, in a person's words,
/// what the driver's error it keeps as its source says.
fn error_text(error: &anyhow::Error) -> String {
    let mut parts = Vec::new();
    for cause in error.chain() {
        parts.push(cause.to_string());
        if cause.is::<skilldeck::store::StoreError>() || cause.is::<skilldeck::authoring::AuthoringError>() {
            break;
        }
    }
    parts.join(": ")
}

/// How many warnings are printed in full without `--verbose`.
const WARNINGS_SHOWN: usize = 5;

/// Prints the catalog's warnings on stderr, `warning: …` each, control
/// characters escaped: every one with `verbose`, else the first
/// [`WARNINGS_SHOWN`] and one line counting all of them by kind (a public
/// registry's tree has thousands, and a host waits behind them).
fn warn_summary(warnings: &[Warning], verbose: bool) {
    output::eprint(&warning_lines(warnings, verbose));
}

/// Prints the skills `--refuse-risk` left out on stderr, one line each
/// naming the worst finding: every one with `verbose`, else the first
/// [`WARNINGS_SHOWN`] and a count.
fn warn_refused(skips: &[Skip], verbose: bool) {
    output::eprint(&refused_lines(skips, verbose));
}

/// The text [`warn_refused`] prints.
fn refused_lines(skips: &[Skip], verbose: bool) -> String {
    let refused: Vec<String> = skips.iter().filter_map(Skip::refusal).collect();
    let shown = if verbose { refused.len() } else { refused.len().min(WARNINGS_SHOWN) };
    let mut out = String::new();
    for line in &refused[..shown] {
        out.push_str(&format!("skilldeck: warning: {}\n", escape_control(line)));
    }
    if shown < refused.len() {
        out.push_str(&format!(
            "skilldeck: warning: {} skills refused in all; the first {shown} are above, --verbose prints every one\n",
            refused.len()
        ));
    }
    out
}

/// The text [`warn_summary`] prints.
fn warning_lines(warnings: &[Warning], verbose: bool) -> String {
    let shown = if verbose { warnings.len() } else { warnings.len().min(WARNINGS_SHOWN) };
    let mut out = String::new();
    for warning in &warnings[..shown] {
        out.push_str(&format!("skilldeck: warning: {}\n", escape_control(&warning.to_string())));
    }
    if shown < warnings.len() {
        // By count, most first; ties by kind.
        let mut kinds: Vec<(&str, usize)> = Vec::new();
        for warning in warnings {
            match kinds.iter_mut().find(|(kind, _)| *kind == warning.kind()) {
                Some((_, count)) => *count += 1,
                None => kinds.push((warning.kind(), 1)),
            }
        }
        kinds.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        let kinds: Vec<String> = kinds.iter().map(|(kind, count)| format!("{count} {kind}")).collect();
        out.push_str(&format!(
            "skilldeck: warning: {} warnings in all ({}); the first {shown} are above, --verbose prints every one\n",
            warnings.len(),
            kinds.join(", ")
        ));
    }
    out
}
