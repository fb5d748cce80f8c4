//! skilldeck against toolnexus 0.21.0 on a public registry's tree: every
//! level-1 line (`- **name**: description`, the catalog `skilldeck prompt`
//! prints) and a deterministic sample of `skill` outputs (`skilldeck load
//! NAME`) must be toolnexus's, byte for byte.
//!
//! The tree is not in the repository: `SKILLDECK_REGISTRY_TREE` names it (for
//! example a checkout made by `bench/retrieval/fetch_tree.sh`); without it the
//! test says so and passes. The oracle is the one `differential.rs` uses.
//!
//! A difference is accepted only when a documented one explains it (see
//! `differential.rs`), checked on the file itself, never by name: a UTF-8
//! byte-order mark (toolnexus finds no frontmatter behind it), CR line ends
//! (Python's text mode rewrites them), YAML 1.1 typing (PyYAML, asked about
//! that very file, types `name` or `description` as a boolean, a number or a
//! date), a `name` or `description` spelled as a YAML null word, a repeated
//! `name` or `description` line (PyYAML keeps the last), or text equal once
//! both trim sets are applied (Python's `str.strip` and ECMAScript's `trim`
//! differ). A name whose skill, on either side, comes from such a file is
//! explained too: that is how a skipped or renamed skill changes which copy
//! of a name wins. Base URLs are compared as Node writes them: Python's
//! `Path.as_uri` also encodes `@ : + ! ( ) ' * $ & , ; =`.
//!
//! Every difference found, explained or not, is printed (run with
//! `--nocapture`); any unexplained one fails the test.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use skilldeck::{Catalog, SkillTool, render};

use crate::util::Oracle;

/// How many `skill` outputs are compared.
const SAMPLE: usize = 300;

/// The level-1 catalog's lines before the skills, as toolnexus writes them.
const PREAMBLE: &str = "Skills provide specialized instructions and workflows for specific tasks.\n\
                        Use the skill tool to load a skill when a task matches its description.\n\n## Available Skills";

/// One side's level-1 entries by name, and each name's `SKILL.md`.
#[derive(Default)]
struct Side {
    lines: BTreeMap<String, String>,
    locations: BTreeMap<String, String>,
}

impl Side {
    /// The level-1 catalog these lines make (toolnexus's `prompt()`).
    fn prompt(&self) -> String {
        if self.lines.is_empty() {
            return "No skills are currently available.".to_owned();
        }
        let lines: Vec<&str> = self.lines.values().map(String::as_str).collect();
        format!("{PREAMBLE}\n{}", lines.join("\n"))
    }
}

fn line(name: &str, description: &str) -> String {
    format!("- **{name}**: {description}")
}

#[test]
fn a_public_registry_tree_reads_as_toolnexus_reads_it() {
    let Some(tree) = std::env::var_os("SKILLDECK_REGISTRY_TREE").filter(|t| !t.is_empty()) else {
        eprintln!(
            "skipped: SKILLDECK_REGISTRY_TREE is not set; point it at a public registry's tree \
             (e.g. bench/retrieval/fetch_tree.sh DEST) to compare every level-1 line and {SAMPLE} \
             skill outputs with toolnexus 0.21.0"
        );
        return;
    };
    let tree = PathBuf::from(tree);
    let root = tree.canonicalize().unwrap_or_else(|e| panic!("SKILLDECK_REGISTRY_TREE {}: {e}", tree.display()));
    let root_text = root.to_str().unwrap_or_else(|| panic!("non-UTF-8 root {}", root.display())).to_owned();

    let catalog = Catalog::builder().root(&root).build();
    let mut ours = Side::default();
    for skill in catalog.inventory() {
        ours.locations.insert(skill.name().to_owned(), skill.location().to_owned());
        if let Some(description) = skill.description() {
            ours.lines.insert(skill.name().to_owned(), line(skill.name(), description));
        }
    }
    assert_eq!(render::toolnexus(&catalog), ours.prompt(), "skilldeck's level-1 catalog is not its lines");

    let names: Vec<String> = catalog.inventory().iter().map(|s| s.name().to_owned()).collect();
    let sample = sample(&names, SAMPLE);
    let answer = Oracle::TOOLNEXUS.ask(&json!({
        "roots": [root_text], "skills": [], "filter": null, "sample_limit": 0, "calls": sample,
    }));
    let mut theirs = Side::default();
    for skill in answer["list"]["skills"].as_array().into_iter().flatten() {
        let name = skill["name"].as_str().unwrap_or_default().to_owned();
        theirs.locations.insert(name.clone(), skill["location"].as_str().unwrap_or_default().to_owned());
        if let Some(description) = skill["description"].as_str() {
            theirs.lines.insert(name.clone(), line(&name, description));
        }
    }
    assert_eq!(
        answer["prompt"].as_str(),
        Some(theirs.prompt().as_str()),
        "toolnexus's level-1 catalog is not its lines"
    );

    // Every name whose line differs, then every sampled output that differs.
    let all: BTreeSet<&String> = ours.lines.keys().chain(theirs.lines.keys()).collect();
    let line_diffs: Vec<(&str, Option<&String>, Option<&String>)> = all
        .iter()
        .map(|name| (name.as_str(), theirs.lines.get(*name), ours.lines.get(*name)))
        .filter(|(_, want, got)| want != got)
        .collect();
    let tool = SkillTool::new(&catalog);
    let mut output_diffs = Vec::new();
    for (name, want) in sample.iter().zip(answer["calls"].as_array().into_iter().flatten()) {
        let got = tool.call(&json!({ "name": name }));
        let want_output = as_node_writes_it(want["output"].as_str().unwrap_or_default());
        let want_dir = want["metadata"]["dir"].as_str();
        let got_dir = got.metadata.as_ref().map(|m| m.dir.as_str());
        if want_output != got.output || want["is_error"].as_bool() != Some(got.is_error) || want_dir != got_dir {
            output_diffs.push((name.as_str(), want_output, got.output));
        }
    }

    // Ask PyYAML about the files the differing skills come from.
    let touched: BTreeSet<&String> = line_diffs
        .iter()
        .map(|d| d.0)
        .chain(output_diffs.iter().map(|d| d.0))
        .flat_map(|name| [ours.locations.get(name), theirs.locations.get(name)])
        .flatten()
        .collect();
    let typed = Oracle::TOOLNEXUS.ask(&json!({ "roots": [], "yaml_types": touched }));
    let explain = |name: &str, want: Option<&str>, got: Option<&str>| -> Vec<String> {
        let mut reasons: Vec<String> = [ours.locations.get(name), theirs.locations.get(name)]
            .into_iter()
            .flatten()
            .flat_map(|path| file_reasons(Path::new(path), &typed["yaml_types"][path.as_str()]))
            .collect();
        if let (Some(want), Some(got)) = (want, got)
            && want != got
            && both_trims(want) == both_trims(got)
        {
            reasons.push("trim sets".to_owned());
        }
        reasons.sort();
        reasons.dedup();
        reasons
    };

    let mut report = Vec::new();
    let mut unexplained = Vec::new();
    for (name, want, got) in &line_diffs {
        let reasons = explain(name, want.map(|w| description_of(w)), got.map(|g| description_of(g)));
        let text = format!("level-1 line of {name:?}\n    toolnexus: {want:?}\n    skilldeck: {got:?}");
        if reasons.is_empty() { &mut unexplained } else { &mut report }
            .push(format!("{text}\n    explained by: {}", reasons.join(", ")));
    }
    for (name, want, got) in &output_diffs {
        let reasons = explain(name, Some(want), Some(got));
        let at = want.lines().zip(got.lines()).position(|(a, b)| a != b).unwrap_or(0);
        let text = format!(
            "skill({name:?}) output, first difference at line {}\n    toolnexus: {:?}\n    skilldeck: {:?}",
            at + 1,
            want.lines().nth(at),
            got.lines().nth(at)
        );
        if reasons.is_empty() { &mut unexplained } else { &mut report }
            .push(format!("{text}\n    explained by: {}", reasons.join(", ")));
    }
    eprintln!(
        "registry tree {}: {} level-1 lines from toolnexus, {} from skilldeck, {} differ; {} skill outputs \
         compared, {} differ; {} explained, {} not\n{}",
        root.display(),
        theirs.lines.len(),
        ours.lines.len(),
        line_diffs.len(),
        sample.len(),
        output_diffs.len(),
        report.len(),
        unexplained.len(),
        report.join("\n")
    );
    assert!(
        unexplained.is_empty(),
        "{} difference(s) from toolnexus 0.21.0 that no documented difference explains:\n{}",
        unexplained.len(),
        unexplained.join("\n")
    );
}

/// Up to `n` of `names`, chosen by a fixed-seed generator: the same sample
/// for the same tree on every run.
fn sample(names: &[String], n: usize) -> Vec<String> {
    let mut pool: Vec<&String> = names.iter().collect();
    pool.sort();
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut chosen = Vec::new();
    while chosen.len() < n && !pool.is_empty() {
        // xorshift64*
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        let pick = (state.wrapping_mul(0x2545_F491_4F6C_DD1D) % pool.len() as u64) as usize;
        chosen.push(pool.swap_remove(pick).clone());
    }
    chosen
}

/// The description in a level-1 line.
fn description_of(line: &str) -> &str {
    line.split_once("**: ").map_or(line, |(_, description)| description)
}

/// Text with both trim sets applied: Python's `str.strip` and ECMAScript's.
fn both_trims(text: &str) -> String {
    let trimmed = |c: char| c.is_whitespace() || matches!(c, '\u{1C}'..='\u{1F}' | '\u{FEFF}');
    text.split('\n').map(|l| l.trim_matches(trimmed)).collect::<Vec<_>>().join("\n").trim_matches(trimmed).to_owned()
}

/// The documented differences that apply to one `SKILL.md`, given what
/// PyYAML made of its `name` and `description`.
fn file_reasons(path: &Path, yaml_types: &Value) -> Vec<String> {
    let Ok(bytes) = std::fs::read(path) else { return Vec::new() };
    let mut reasons = Vec::new();
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        reasons.push("byte-order mark".to_owned());
    }
    if bytes.contains(&b'\r') {
        reasons.push("CR line ends".to_owned());
    }
    for key in ["name", "description"] {
        if matches!(yaml_types[key].as_str(), Some("bool" | "int" | "float" | "date" | "datetime")) {
            reasons.push(format!("YAML 1.1 typing of {key}"));
        }
    }
    let text = String::from_utf8_lossy(&bytes);
    let mut seen = BTreeMap::new();
    for line in text.split('\n').skip(1).take_while(|l| l.trim_end() != "---") {
        for key in ["name", "description"] {
            if let Some(value) = line.strip_prefix(key).and_then(|rest| rest.strip_prefix(':')) {
                *seen.entry(key).or_insert(0) += 1;
                if matches!(value.trim(), "null" | "Null" | "NULL" | "~") {
                    reasons.push(format!("{key} is a null word"));
                }
            }
        }
    }
    reasons.extend(seen.into_iter().filter(|(_, n)| *n > 1).map(|(key, _)| format!("repeated {key}")));
    reasons
}

/// toolnexus's output with its base URL written as Node's `pathToFileURL`
/// writes it (SPEC §5): Python's `Path.as_uri` also encodes these.
fn as_node_writes_it(output: &str) -> String {
    const BASE: &str = "Base directory for this skill: file://";
    const RAW: [(&str, &str); 13] = [
        ("%21", "!"),
        ("%24", "$"),
        ("%26", "&"),
        ("%27", "'"),
        ("%28", "("),
        ("%29", ")"),
        ("%2A", "*"),
        ("%2B", "+"),
        ("%2C", ","),
        ("%3A", ":"),
        ("%3B", ";"),
        ("%3D", "="),
        ("%40", "@"),
    ];
    let lines: Vec<String> = output
        .split('\n')
        .map(|line| match line.strip_prefix(BASE) {
            Some(url) => {
                format!("{BASE}{}", RAW.iter().fold(url.to_owned(), |url, (code, raw)| url.replace(code, raw)))
            }
            None => line.to_owned(),
        })
        .collect();
    lines.join("\n")
}
