//! `skilldeck validate` (the specification's checks, `skills-ref validate`
//! and more) and `skilldeck show` (`skills-ref read-properties` for a catalog
//! skill). The rules are the library's (`skilldeck::validate`); this is
//! arguments and output.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use serde_json::{Map, Value, json};
use skilldeck::validate::{Diagnostic, Properties, Severity, Validation, Validator};
use skilldeck::{Catalog, Symlinks, escape_control};

/// `skilldeck validate PATH…`.
#[derive(Args, Debug)]
pub(crate) struct ValidateArgs {
    /// Skill directories, SKILL.md files, or roots holding many skills.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Print {valid, errors, warnings, skills: [{dir, skill_md, valid, diagnostics: [{severity, check,
    /// message, path, line, column}]}]} instead of lines.
    #[arg(long)]
    json: bool,
}

/// `skilldeck show NAME`.
#[derive(Args, Debug)]
pub(crate) struct ShowArgs {
    /// The skill, by name, in the catalog of --root, --skills and --store.
    name: String,
    /// Print skills-ref read-properties' JSON: name, description, then license, compatibility,
    /// allowed-tools and metadata when present.
    #[arg(long)]
    json: bool,
}

/// Validates every path; exit 1 when any error is found (with `strict`, any
/// finding at all).
pub(crate) fn validate(args: &ValidateArgs, strict: bool, symlinks: Symlinks) -> anyhow::Result<ExitCode> {
    let validator = Validator::new().strict(strict).symlinks(symlinks);
    let reports: Vec<Validation> = args.paths.iter().flat_map(|path| validator.validate(path)).collect();
    let all = || reports.iter().flat_map(|r| r.diagnostics.iter());
    let errors = all().filter(|d| d.severity == Severity::Error).count();
    let warnings = all().filter(|d| d.severity == Severity::Warning).count();
    if args.json {
        let skills: Vec<Value> = reports
            .iter()
            .map(|r| {
                json!({
                    "dir": r.dir.to_string_lossy(),
                    "skill_md": r.skill_md.as_ref().map(|p| p.to_string_lossy()),
                    "valid": r.is_valid(),
                    "diagnostics": r.diagnostics.iter().map(diagnostic_json).collect::<Vec<_>>(),
                })
            })
            .collect();
        crate::print_json(&json!({"valid": errors == 0, "errors": errors, "warnings": warnings, "skills": skills}))?;
    } else {
        let mut out = String::new();
        for diagnostic in all() {
            writeln!(out, "{}", escape_control(&diagnostic.to_string()))?;
        }
        let checked = reports.iter().filter(|r| r.skill_md.is_some()).count();
        writeln!(
            out,
            "{} checked: {}, {}",
            plural(checked, "skill"),
            plural(errors, "error"),
            plural(warnings, "warning")
        )?;
        crate::print(&out)?;
    }
    Ok(if errors == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

fn diagnostic_json(d: &Diagnostic) -> Value {
    json!({
        "severity": d.severity.as_str(),
        "check": d.check.as_str(),
        "message": d.message,
        "path": d.path.to_string_lossy(),
        "line": d.position.map(|p| p.0),
        "column": d.position.map(|p| p.1),
    })
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 { format!("1 {word}") } else { format!("{n} {word}s") }
}

/// Prints a catalog skill's properties; exit 1 when there is no such skill
/// or its `SKILL.md` no longer gives them.
pub(crate) fn show(args: &ShowArgs, catalog: &Catalog) -> anyhow::Result<ExitCode> {
    let Some(skill) = catalog.get(&args.name) else {
        crate::output::say!("skilldeck: no skill named {:?}", args.name);
        return Ok(ExitCode::FAILURE);
    };
    let properties = match Properties::of(skill) {
        Ok(properties) => properties,
        Err(diagnostic) => {
            crate::output::say!("skilldeck: {}", escape_control(&diagnostic.to_string()));
            return Ok(ExitCode::FAILURE);
        }
    };
    let entries = properties.entries();
    if args.json {
        let object: Map<String, Value> = entries.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
        crate::print(&(python_json(&Value::Object(object))? + "\n"))?;
    } else {
        let mut out = String::new();
        for (key, value) in entries {
            match value {
                Value::String(text) => writeln!(out, "{key}: {}", escape_control(&text))?,
                other => writeln!(out, "{key}: {}", escape_control(&other.to_string()))?,
            }
        }
        writeln!(out, "location: {}", escape_control(skill.location()))?;
        crate::print(&out)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Python's `json.dumps(value, indent=2)`: two-space indentation and every
/// character outside ASCII written as a `\uXXXX` escape (`ensure_ascii`).
fn python_json(value: &Value) -> anyhow::Result<String> {
    let pretty = serde_json::to_string_pretty(value)?;
    let mut out = String::with_capacity(pretty.len());
    for c in pretty.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            for unit in c.encode_utf16(&mut [0; 2]) {
                write!(out, "\\u{unit:04x}")?;
            }
        }
    }
    Ok(out)
}
