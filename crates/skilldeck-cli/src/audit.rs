//! `skilldeck audit`: the engine's audit (`skilldeck::audit`) over skill
//! directories, `SKILL.md` files or roots, printed as lines, JSON or SARIF
//! 2.1.0. The rules are the library's; this is arguments and output.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use serde_json::{Value, json};
use skilldeck::audit::{Allowance, Auditor, Finding, RULES, Report, Severity};
use skilldeck::{Symlinks, escape_control};

use crate::roots::Roots;

/// `skilldeck audit [PATH…]`.
#[derive(Args, Debug)]
pub(crate) struct AuditArgs {
    /// Skill directories, SKILL.md files, or roots holding many skills. Without any: the --root
    /// directories, or with none of those the conventional places every command reads.
    #[arg(value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// lines: `path:line:column: severity rule: message`; json: every report; sarif: SARIF 2.1.0
    /// for code scanning.
    #[arg(long, value_enum, default_value_t = Format::Lines)]
    format: Format,
    /// The same as --format json.
    #[arg(long, conflicts_with = "format")]
    json: bool,
    /// Exit 1 when any finding is at this severity or above: info, low, medium, high, critical.
    #[arg(long, value_name = "SEVERITY", default_value = "high")]
    fail_on: Severity,
    /// Turn a rule off for every skill (its findings are listed as suppressed); repeat for more.
    #[arg(long = "allow", value_name = "RULE")]
    allow: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
    Lines,
    Json,
    Sarif,
}

/// Audits every path (or the roots); exit 1 when a finding is at or above
/// `--fail-on`.
pub(crate) fn run(args: &AuditArgs, roots: &[PathBuf], symlinks: Symlinks) -> anyhow::Result<ExitCode> {
    let mut auditor = Auditor::new().symlinks(symlinks);
    for id in &args.allow {
        auditor = auditor.allow(id)?;
    }
    let mut targets: Vec<PathBuf> = args.paths.iter().chain(roots).cloned().collect();
    if targets.is_empty() {
        crate::log::init()?;
        targets = Roots::resolve(&[], false, false)?.roots;
    }
    let mut reports = Vec::new();
    for target in &targets {
        reports.extend(auditor.audit(target)?);
    }
    let failed = reports.iter().any(|r| r.fails_at(args.fail_on));
    let format = if args.json { Format::Json } else { args.format };
    match format {
        Format::Lines => crate::print(&lines(&reports))?,
        Format::Json => crate::print_json(&report_json(&reports, args.fail_on, failed))?,
        Format::Sarif => crate::print_json(&sarif(&reports))?,
    }
    Ok(if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}

/// The path of a finding's file as a user reaches it: the skill's directory
/// joined with it.
fn full(report: &Report, rel: &Path) -> PathBuf {
    report.dir.join(rel)
}

/// One line per finding, per file not read, then a summary.
pub(crate) fn lines(reports: &[Report]) -> String {
    let mut out = String::new();
    for report in reports {
        for finding in &report.findings {
            let path = full(report, &finding.path);
            let line = format!(
                "{}:{}:{}: {} {}: {}",
                path.display(),
                finding.line,
                finding.column,
                finding.severity,
                finding.rule.id,
                finding.message
            );
            let _ = writeln!(out, "{}", escape_control(&line));
            if !finding.excerpt.is_empty() {
                let _ = writeln!(out, "    {}", escape_control(&finding.excerpt));
            }
        }
        for unread in &report.unread {
            let line = format!("{}: not audited: {}", full(report, &unread.path).display(), unread.reason);
            let _ = writeln!(out, "{}", escape_control(&line));
        }
    }
    let counts = counts(reports);
    let found: Vec<String> = Severity::ALL
        .iter()
        .rev()
        .filter(|s| counts[**s as usize] > 0)
        .map(|s| format!("{} {s}", counts[*s as usize]))
        .collect();
    let suppressed: usize = reports.iter().map(|r| r.suppressed.len()).sum();
    let skills = reports.iter().filter(|r| r.unread.iter().all(|u| u.path != Path::new("."))).count();
    let _ = writeln!(
        out,
        "{} audited: {}{}",
        plural(skills, "skill"),
        if found.is_empty() { "no findings".to_owned() } else { found.join(", ") },
        if suppressed > 0 { format!(" ({suppressed} suppressed)") } else { String::new() }
    );
    out
}

/// How many findings there are at each severity, by `Severity as usize`.
fn counts(reports: &[Report]) -> [usize; 5] {
    let mut counts = [0; 5];
    for finding in reports.iter().flat_map(|r| &r.findings) {
        counts[finding.severity as usize] += 1;
    }
    counts
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 { format!("1 {word}") } else { format!("{n} {word}s") }
}

fn finding_json(report: &Report, f: &Finding) -> Value {
    json!({
        "rule": f.rule.id,
        "severity": f.severity.as_str(),
        "path": full(report, &f.path).to_string_lossy(),
        "file": f.path.to_string_lossy(),
        "line": f.line,
        "column": f.column,
        "message": f.message,
        "excerpt": f.excerpt,
        "lowered": f.lowered,
    })
}

fn allowance_json(report: &Report, a: &Allowance) -> Value {
    json!({
        "rule": a.rule,
        "reason": a.reason,
        "effective": a.effective,
        "path": full(report, &a.path).to_string_lossy(),
        "line": a.line,
        "column": a.column,
    })
}

/// `{fail_on, failed, counts, skills: [{dir, max_severity, findings, suppressed, allowed, unread}]}`.
fn report_json(reports: &[Report], fail_on: Severity, failed: bool) -> Value {
    let counts = counts(reports);
    let counts: serde_json::Map<String, Value> =
        Severity::ALL.iter().map(|s| (s.as_str().to_owned(), json!(counts[*s as usize]))).collect();
    let skills: Vec<Value> = reports
        .iter()
        .map(|r| {
            json!({
                "dir": r.dir.to_string_lossy(),
                "max_severity": r.max_severity().map(Severity::as_str),
                "findings": r.findings.iter().map(|f| finding_json(r, f)).collect::<Vec<_>>(),
                "suppressed": r.suppressed.iter().map(|f| finding_json(r, f)).collect::<Vec<_>>(),
                "allowed": r.allowed.iter().map(|a| allowance_json(r, a)).collect::<Vec<_>>(),
                "unread": r.unread.iter().map(|u| json!({"path": full(r, &u.path).to_string_lossy(), "reason": u.reason})).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({"fail_on": fail_on.as_str(), "failed": failed, "counts": counts, "skills": skills})
}

/// SARIF's level for a severity.
fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Critical | Severity::High => "error",
        Severity::Medium => "warning",
        Severity::Low | Severity::Info => "note",
    }
}

/// GitHub code scanning's `security-severity` (0-10) for a severity.
fn security_severity(severity: Severity) -> &'static str {
    match severity {
        Severity::Critical => "9.5",
        Severity::High => "8.0",
        Severity::Medium => "5.5",
        Severity::Low => "3.0",
        Severity::Info => "1.0",
    }
}

/// A path as a SARIF artifact URI: relative ones as they are (with `/`),
/// absolute ones as `file://` URIs; spaces, `%`, `#` and `?` escaped.
fn uri(path: &Path) -> String {
    let text = path.to_string_lossy().replace('\\', "/");
    let mut out = String::with_capacity(text.len() + 8);
    if path.is_absolute() {
        out.push_str("file://");
    }
    for c in text.chars() {
        match c {
            ' ' => out.push_str("%20"),
            '%' => out.push_str("%25"),
            '#' => out.push_str("%23"),
            '?' => out.push_str("%3F"),
            c => out.push(c),
        }
    }
    out
}

fn sarif_result(report: &Report, f: &Finding, suppressed: bool) -> Value {
    let index = RULES.iter().position(|r| r.id == f.rule.id);
    let mut result = json!({
        "ruleId": f.rule.id,
        "ruleIndex": index,
        "level": level(f.severity),
        "message": {"text": f.message},
        "locations": [{
            "physicalLocation": {
                "artifactLocation": {"uri": uri(&full(report, &f.path))},
                "region": {"startLine": f.line, "startColumn": f.column},
            }
        }],
        "properties": {"severity": f.severity.as_str(), "excerpt": f.excerpt},
    });
    if suppressed {
        let reason = report.allowed.iter().find(|a| a.effective && a.rule == f.rule.id).map_or_else(
            || "allowed by --allow".to_owned(),
            |a| format!("skilldeck-audit marker at {}:{}: {}", a.path.display(), a.line, a.reason),
        );
        result["suppressions"] = json!([{"kind": "inSource", "justification": reason}]);
    }
    result
}

/// The SARIF 2.1.0 log: one run, the rule table as the driver's rules,
/// every finding (suppressed ones with their suppression) as a result.
fn sarif(reports: &[Report]) -> Value {
    let rules: Vec<Value> = RULES
        .iter()
        .map(|r| {
            json!({
                "id": r.id,
                "shortDescription": {"text": r.message},
                "fullDescription": {"text": r.rationale},
                "help": {"text": format!("{}\nExample ({}):\n{}", r.rationale, r.example_path, r.example.escape_debug())},
                "defaultConfiguration": {"level": level(r.severity)},
                "properties": {"severity": r.severity.as_str(), "security-severity": security_severity(r.severity), "tags": ["security"]},
            })
        })
        .collect();
    let mut results = Vec::new();
    for report in reports {
        results.extend(report.findings.iter().map(|f| sarif_result(report, f, false)));
        results.extend(report.suppressed.iter().map(|f| sarif_result(report, f, true)));
    }
    json!({
        "$schema": "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "skilldeck",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    })
}
