//! `skilldeck prompt --budget … [--report]`: the text on stdout, the report
//! on stderr, and usage errors for budgets that do not parse.

use std::path::PathBuf;

use super::{skilldeck, stderr, stdout};

/// A `--skills` file with the engine tests' five skills, and its temp dir.
fn defs() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("skills.json");
    let json = serde_json::json!([
        {"name": "release-notes", "description": "Writes release notes from the git log since the last tag."},
        {"name": "pdf-forms", "description": "Fills PDF forms & checks <required> fields."},
        {"name": "hello", "description": "Says hi."},
        {"name": "silent"},
        {"name": "blank", "description": ""},
    ]);
    std::fs::write(&path, json.to_string()).expect("write");
    (dir, path)
}

const PREAMBLE: &str = "Skills provide specialized instructions and workflows for specific tasks.\nUse the skill tool to load a skill when a task matches its description.\n\n## Available Skills";

#[test]
fn prompt_budget_prints_the_cut_text_and_report_prints_to_stderr() {
    let (_dir, path) = defs();
    let path = path.to_str().expect("utf-8");
    let out = skilldeck(&["prompt", "--skills", path, "--budget", "220c", "--report"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), format!("{PREAMBLE}\n- **blank**: \n- **hello**: Say…\n- **pdf-forms**: Fil…"));
    assert_eq!(
        stderr(&out),
        "budget 220c, used 220\nfull (1): blank\nshortened (2, to 4 characters): hello (cut 5), pdf-forms (cut 40)\nomitted (1): release-notes\n"
    );
    // Without --report, stderr stays empty.
    let out = skilldeck(&["prompt", "--skills", path, "--budget", "220c"]);
    assert_eq!((stdout(&out).chars().count(), stderr(&out).as_str()), (220, ""));
}

#[test]
fn a_budget_the_catalog_fits_changes_nothing() {
    let (_dir, path) = defs();
    let path = path.to_str().expect("utf-8");
    for format in ["toolnexus", "agentskills", "insika"] {
        let agent: &[&str] = if format == "insika" { &["--agent", "a"] } else { &[] };
        let plain = skilldeck(&[&["prompt", "--format", format, "--skills", path][..], agent].concat());
        let budgeted =
            skilldeck(&[&["prompt", "--format", format, "--skills", path, "--budget", "8000c"][..], agent].concat());
        assert_eq!(budgeted.status.code(), Some(0), "{format}: {}", stderr(&budgeted));
        assert_eq!(stdout(&budgeted), stdout(&plain), "{format}");
        assert!(!stdout(&plain).is_empty(), "{format}");
    }
}

#[test]
fn prompt_budget_in_each_format() {
    let (_dir, path) = defs();
    let path = path.to_str().expect("utf-8");
    let out = skilldeck(&["prompt", "--format", "agentskills", "--skills", path, "--budget", "150c", "--report"]);
    assert_eq!(stdout(&out), "<available_skills>\n</available_skills>");
    assert_eq!(
        stderr(&out),
        "budget 150c, used 38\nfull (0):\nshortened (0):\nomitted (4): release-notes, pdf-forms, hello, blank\n"
    );
    // Insika: the budget applies to the agent's lazy list; eager skills are not in it.
    let out = skilldeck(&[
        "prompt", "--format", "insika", "--skills", path, "--agent", "a", "--eager", "hello", "--budget", "400c",
        "--report",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("<available_skills>\n  <skill name=\"release-notes\">Wr"), "{text}");
    assert!(!text.contains("\"hello\""));
    assert!(text.chars().count() <= 400);
    let report = stderr(&out);
    assert!(report.starts_with(&format!("budget 400c, used {}\n", text.chars().count())), "{report}");
    assert!(report.ends_with("omitted (1): blank\n"), "{report}");
}

#[test]
fn prompt_budget_in_tokens() {
    let (_dir, path) = defs();
    let path = path.to_str().expect("utf-8");
    let out = skilldeck(&["prompt", "--skills", path, "--budget", "60t", "--report"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        format!("{PREAMBLE}\n- **blank**: \n- **hello**: Sa…\n- **pdf-forms**: Fi…\n- **release-notes**: Wr…")
    );
    assert!(stderr(&out).starts_with("budget 60t:o200k, used 60\n"), "{}", stderr(&out));
    let out = skilldeck(&["prompt", "--skills", path, "--budget", "60t:cl100k", "--report"]);
    assert!(stderr(&out).starts_with("budget 60t:cl100k, used 60\n"), "{}", stderr(&out));
    assert!(stdout(&out).ends_with("- **pdf-forms**: Fills PDF forms…\n- **release-notes**: Writes release…"));
}

#[test]
fn bad_budgets_exit_2_and_say_why() {
    for (args, message) in [
        (&["--budget", "8000"][..], "invalid budget \"8000\": expected a count and a unit, such as 8000c"),
        (&["--budget", "8k"], "invalid budget \"8k\""),
        (&["--budget=-5c"], "invalid budget \"-5c\""),
        (&["--budget", "2000t:p50k"], "unknown token encoding \"p50k\" in a budget: use o200k or cl100k"),
        (&["--report"], "--budget"),
    ] {
        let out = skilldeck(&[&["prompt"][..], args].concat());
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains(message), "{args:?}: {}", stderr(&out));
        assert_eq!(stdout(&out), "", "{args:?}");
    }
}
