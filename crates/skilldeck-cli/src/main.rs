//! `skilldeck`: the command-line face of the skilldeck engine. Argument
//! parsing and output only; every rule lives in the `skilldeck` library.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::{Args, Parser, Subcommand, ValueEnum};
use serde::Deserialize;
use serde_json::{Value, json};
use skilldeck::{Catalog, Filter, FrontmatterMode, Skill, SkillDef, SkillTool, Symlinks, render};

/// Find, catalog and serve Agent Skills.
#[derive(Parser, Debug)]
#[command(name = "skilldeck", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    #[command(flatten)]
    sources: SourceArgs,
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
    /// Treat any YAML the parser refuses as malformed (no line-wise rescue).
    #[arg(long, global = true)]
    strict: bool,
    /// Do not follow symbolic links while walking.
    #[arg(long, global = true)]
    no_follow_symlinks: bool,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// List the exposed skills and the skipped candidates.
    List {
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Print exactly what the skill tool returns for NAME.
    Load {
        /// The skill to load.
        name: String,
    },
    /// Print the level-1 catalog for a system prompt.
    Prompt {
        /// The catalog format.
        #[arg(long, value_enum, default_value_t = PromptFormat::Toolnexus)]
        format: PromptFormat,
    },
    /// Print the skill tool's declaration as JSON.
    Schema {
        /// The vendor shape.
        #[arg(long, value_enum, default_value_t = SchemaFormat::Openai)]
        format: SchemaFormat,
    },
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum PromptFormat {
    Toolnexus,
    Agentskills,
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
    if let Command::Schema { format } = cli.command {
        let declaration = SkillTool::declaration();
        let shaped = match format {
            SchemaFormat::Openai => declaration.openai(),
            SchemaFormat::Anthropic => declaration.anthropic(),
            SchemaFormat::Gemini => declaration.gemini(),
            SchemaFormat::Mcp => declaration.mcp(),
        };
        print_json(&json!([shaped]))?;
        return Ok(ExitCode::SUCCESS);
    }
    // Never dropped: the process ends after this command, and freeing every
    // skill one by one costs more than the rest of a large list.
    let catalog = std::mem::ManuallyDrop::new(build_catalog(&cli.sources)?);
    for warning in catalog.warnings() {
        eprintln!("warning: {warning}");
    }
    let mut stdout = std::io::stdout().lock();
    match cli.command {
        Command::List { json: true } => print_json(&list_json(&catalog))?,
        Command::List { json: false } => stdout.write_all(list_table(&catalog).as_bytes())?,
        Command::Load { name } => {
            let result = SkillTool::new(&catalog).load(&name, catalog.sample_limit());
            stdout.write_all(result.output.as_bytes())?;
            stdout.flush()?;
            return Ok(if result.is_error { ExitCode::FAILURE } else { ExitCode::SUCCESS });
        }
        Command::Prompt { format } => {
            let text = match format {
                PromptFormat::Toolnexus => render::toolnexus(&catalog),
                PromptFormat::Agentskills => render::agentskills(&catalog),
            };
            stdout.write_all(text.as_bytes())?;
        }
        Command::Schema { .. } => unreachable!("answered before any source is read"),
    }
    stdout.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn build_catalog(sources: &SourceArgs) -> anyhow::Result<Catalog> {
    let mut builder = Catalog::builder()
        .roots(&sources.roots)
        .filter(Filter::new(sources.filter.iter().cloned()))
        .sample_limit(sources.sample_limit)
        .frontmatter_mode(if sources.strict { FrontmatterMode::Strict } else { FrontmatterMode::Lenient })
        .symlinks(if sources.no_follow_symlinks { Symlinks::Skip } else { Symlinks::Follow });
    for file in &sources.skills {
        builder = builder.skills(read_skill_defs(file)?);
    }
    Ok(builder.build()?)
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

fn list_json(catalog: &Catalog) -> Value {
    let skills: Vec<Value> = catalog
        .skills()
        .map(|s| {
            json!({
                "name": s.name(), "description": s.description(),
                "location": s.location(), "origin": s.origin().kind(),
            })
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

fn list_table(catalog: &Catalog) -> String {
    let width = catalog.skills().map(|s| s.name().chars().count()).max().unwrap_or(0).max(4);
    // Sized up front: a large catalog would otherwise regrow the string many times.
    let size: usize = catalog.skills().map(|s| width + 12 + s.name().len() + first_line(s).len()).sum();
    let mut out = String::with_capacity(size + 64);
    // Padded by hand: `{:<width$}` pads one character at a time, and this
    // loop runs once per skill.
    let mut row = |name: &str, origin: &str, description: &str| {
        for (cell, width) in [(name, width), (origin, 7)] {
            out.push_str(cell);
            out.extend(std::iter::repeat_n(' ', width.saturating_sub(cell.chars().count()) + 2));
        }
        out.push_str(description);
        out.push('\n');
    };
    row("NAME", "ORIGIN", "DESCRIPTION");
    for skill in catalog.skills() {
        row(skill.name(), skill.origin().kind(), first_line(skill));
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

/// The first line of a skill's description, `-` without one.
fn first_line(skill: &Skill) -> &str {
    skill.description().unwrap_or("-").lines().next().unwrap_or("")
}

fn print_json(value: &Value) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut stdout, value)?;
    stdout.write_all(b"\n")?;
    Ok(())
}
