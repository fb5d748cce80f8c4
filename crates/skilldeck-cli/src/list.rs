//! `skilldeck list`: the catalog (or one agent's view of it) and the
//! shadowing report, as a table or as JSON; with `--audit`, each skill's
//! audit as it is served (`skilldeck::audit::Auditor::audit_skill`).

use serde_json::{Value, json};
use skilldeck::audit::{Auditor, Report};
use skilldeck::{AgentView, Catalog, Source, escape_control};

/// The audit of each of `skills`, in order, when `audit` is asked for.
fn audits(skills: &[&skilldeck::Skill], audit: bool) -> anyhow::Result<Option<Vec<Report>>> {
    Ok(if audit { Some(Auditor::new().audit_skills(skills)?) } else { None })
}

/// A skill's audit in `list --json --audit`: its worst severity and its findings.
fn audit_json(report: &Report) -> Value {
    let findings: Vec<Value> = report
        .findings
        .iter()
        .map(|f| {
            json!({
                "rule": f.rule.id, "severity": f.severity.as_str(), "path": report.dir.join(&f.path).to_string_lossy(),
                "line": f.line, "column": f.column, "message": f.message,
            })
        })
        .collect();
    json!({"max_severity": report.max_severity().map(|s| s.as_str()), "findings": findings})
}

/// How the view's agent gets each skill: `eager`, `lazy` or `not-allowed`,
/// as the profile decides it (`AgentProfile::mode`).
fn modes<'v>(view: &'v AgentView<'_>) -> impl Fn(&str) -> &'static str + 'v {
    move |name| view.profile().mode(name).as_str()
}

pub(crate) fn list_json(catalog: &Catalog, view: Option<&AgentView<'_>>, audit: bool) -> anyhow::Result<Value> {
    let skills: Vec<&skilldeck::Skill> = match view {
        Some(view) => view.all().to_vec(),
        None => catalog.skills().collect(),
    };
    let mode = view.map(modes);
    let audits = audits(&skills, audit)?;
    let skills: Vec<Value> = skills
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let mut entry = json!({
                "name": s.name(), "description": s.description(),
                "location": s.location(), "origin": s.origin().kind(),
            });
            if let Some(mode) = &mode {
                entry["mode"] = json!(mode(s.name()));
            }
            if let Some(report) = audits.as_ref().and_then(|a| a.get(i)) {
                entry["audit"] = audit_json(report);
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
            if let Some((line, column)) = skip.position {
                entry["line"] = json!(line);
                entry["column"] = json!(column);
            }
            entry
        })
        .collect();
    let warnings: Vec<String> = catalog.warnings().iter().map(ToString::to_string).collect();
    Ok(json!({
        "skills": skills, "skipped": skipped,
        "filter_unmatched": catalog.filter_unmatched(), "warnings": warnings,
    }))
}

/// The first line of a description, `-` without one: what a table shows.
fn first_line(skill: &skilldeck::Skill) -> &str {
    skill.description().unwrap_or("-").lines().next().unwrap_or("")
}

/// The table of `list`. Its cells are a skill's own text: control characters
/// (an escape sequence, a line break) are shown escaped, never sent to the
/// terminal.
/// With `audit`, a RISK column: each skill's worst finding, `-` for none.
pub(crate) fn list_table(catalog: &Catalog, view: Option<&AgentView<'_>>, audit: bool) -> anyhow::Result<String> {
    let skills: Vec<&skilldeck::Skill> = match view {
        Some(view) => view.all().to_vec(),
        None => catalog.skills().collect(),
    };
    let names: Vec<_> = skills.iter().map(|s| escape_control(s.name())).collect();
    let width = names.iter().map(|n| n.chars().count()).max().unwrap_or(0).max(4);
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
    let audits = audits(&skills, audit)?;
    let mut header = vec![("NAME", width), ("ORIGIN", 7)];
    header.extend(mode.as_ref().map(|_| ("MODE", 11)));
    header.extend(audits.as_ref().map(|_| ("RISK", 8)));
    row(&header, "DESCRIPTION");
    for (i, (skill, name)) in skills.iter().zip(&names).enumerate() {
        let mut cells = vec![(name.as_ref(), width), (skill.origin().kind(), 7)];
        cells.extend(mode.as_ref().map(|mode| (mode(skill.name()), 11)));
        if let Some(audits) = &audits {
            let risk = audits.get(i).and_then(Report::max_severity).map_or("-", |s| s.as_str());
            cells.push((risk, 8));
        }
        row(&cells, &escape_control(first_line(skill)));
    }
    if !catalog.skips().is_empty() {
        out.push_str("\nskipped:\n");
        for skip in catalog.skips() {
            let detail = skip.detail.as_deref().map(|d| format!(" ({})", escape_control(d))).unwrap_or_default();
            // `path:line:column`, the form editors and validate's diagnostics use.
            let at = skip.position.map(|(line, column)| format!(":{line}:{column}")).unwrap_or_default();
            let location = escape_control(&skip.location);
            out.push_str(&format!("  {:<22} {location}{at}{detail}\n", skip.reason.as_str()));
        }
    }
    if !catalog.filter_unmatched().is_empty() {
        let names = escape_control(&catalog.filter_unmatched().join(", ")).into_owned();
        out.push_str(&format!("\nfilter matched no skill: {names}\n"));
    }
    Ok(out)
}

/// `{location, source, root?}` of one side of a shadowing.
fn contender(location: &str, source: &Source) -> Value {
    match source {
        Source::Root(root) => json!({"location": location, "source": "root", "root": root}),
        other => json!({"location": location, "source": other.to_string()}),
    }
}

pub(crate) fn shadowed_json(catalog: &Catalog) -> Value {
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

pub(crate) fn shadowed_table(catalog: &Catalog) -> String {
    catalog
        .shadowed()
        .iter()
        .map(|s| {
            format!(
                "{}\n  kept: {} ({})\n  lost: {} ({})\n",
                escape_control(s.skill.name()),
                escape_control(&s.winner_location),
                escape_control(&s.winner_source.to_string()),
                escape_control(s.skill.location()),
                escape_control(&s.source.to_string())
            )
        })
        .collect()
}
