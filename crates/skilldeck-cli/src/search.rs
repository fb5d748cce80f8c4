//! `skilldeck search`: the skills ranked for a request, as lines or JSON,
//! one query or a file of them (an evaluation's batch).

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use serde_json::{Value, json};
use skilldeck::{AgentProfile, Catalog, SearchResults, escape_control};

#[derive(Args, Debug)]
pub(crate) struct SearchArgs {
    /// The request, as a user would write it.
    #[arg(required_unless_present = "queries")]
    query: Option<String>,
    /// At most this many skills.
    #[arg(long, value_name = "N", default_value_t = 10)]
    limit: usize,
    /// Print {"query", "abstained", "results": [{name, description, score, location}]}.
    #[arg(long)]
    json: bool,
    /// Read one query per line from FILE and print one JSON object per line
    /// (JSON Lines), building the catalog and its index once.
    #[arg(long, value_name = "FILE", conflicts_with = "query", requires = "json")]
    queries: Option<PathBuf>,
}

/// Runs the search; exit 1 when a single query abstained, as `grep` does
/// when nothing matches.
pub(crate) fn run(args: &SearchArgs, catalog: &Catalog, profile: Option<&AgentProfile>) -> anyhow::Result<ExitCode> {
    let view = profile.map(|profile| catalog.view(profile));
    let search = |query: &str| match &view {
        Some(view) => view.search(query, args.limit),
        None => catalog.search(query, args.limit),
    };
    if let Some(path) = &args.queries {
        let file = std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
        let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
        for line in std::io::BufReader::new(file).lines() {
            let line = line.with_context(|| format!("cannot read {}", path.display()))?;
            let query = line.strip_suffix('\r').unwrap_or(&line);
            serde_json::to_writer(&mut stdout, &found_json(query, &search(query)))?;
            stdout.write_all(b"\n")?;
        }
        stdout.flush()?;
        return Ok(ExitCode::SUCCESS);
    }
    let query = args.query.as_deref().unwrap_or_default();
    let found = search(query);
    if args.json {
        crate::print_json(&found_json(query, &found))?;
    } else {
        crate::print(&found_lines(query, &found))?;
    }
    Ok(if found.abstained { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}

/// A score as JSON: rounded to four decimals, enough to order and compare.
fn rounded(score: f64) -> f64 {
    (score * 10_000.0).round() / 10_000.0
}

fn found_json(query: &str, found: &SearchResults<'_>) -> Value {
    let results: Vec<Value> = found
        .hits
        .iter()
        .map(|hit| {
            json!({
                "name": hit.skill.name(), "description": hit.skill.description(),
                "score": rounded(hit.score), "location": hit.skill.location(),
            })
        })
        .collect();
    json!({"query": query, "abstained": found.abstained, "results": results})
}

/// One line per hit, `score  name  first line of the description`, control
/// characters escaped; or the abstention in words.
fn found_lines(query: &str, found: &SearchResults<'_>) -> String {
    if found.abstained {
        return format!("no skill matches \"{}\" well\n", escape_control(query));
    }
    let names: Vec<_> = found.hits.iter().map(|hit| escape_control(hit.skill.name())).collect();
    let width = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    let mut out = String::new();
    for (hit, name) in found.hits.iter().zip(&names) {
        let description = hit.skill.description().unwrap_or("-").lines().next().unwrap_or("");
        let pad = width - name.chars().count();
        out.push_str(&format!("{:>8.4}  {name}{}  {}\n", hit.score, " ".repeat(pad), escape_control(description)));
    }
    out
}
