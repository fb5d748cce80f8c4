//! The `skilldeck` binary, run as a user runs it, on the bundled example tree
//! and on trees made by the tests.

// A broken fixture should stop a test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/skills").canonicalize().expect("examples/skills")
}

fn skilldeck(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skilldeck")).args(args).output().expect("run skilldeck")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("utf-8 stdout")
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).expect("utf-8 stderr")
}

#[test]
fn load_prints_exactly_the_tool_output_and_exits_0() {
    let root = examples();
    let out = skilldeck(&["load", "hello-world", "--root", root.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let dir = root.join("hello-world").display().to_string();
    let body = std::fs::read_to_string(root.join("hello-world/SKILL.md")).expect("read");
    let body = body.split_once("\n---\n").expect("fences").1.trim();
    let expected = format!(
        "<skill_content name=\"hello-world\">\n# Skill: hello-world\n\n{body}\n\nBase directory for this skill: file://{dir}\n\
         Relative paths in this skill (e.g., scripts/, reference/) are relative to this base directory.\n\
         Note: file list is sampled.\n\n<skill_files>\n<file>{dir}/scripts/greet.sh</file>\n</skill_files>\n</skill_content>"
    );
    assert_eq!(stdout(&out), expected);
    assert_eq!(stderr(&out), "");
}

#[test]
fn load_of_an_unknown_skill_prints_the_error_text_and_exits_1() {
    let root = examples();
    let out = skilldeck(&["--root", root.to_str().expect("utf-8"), "load", "nope"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "Skill \"nope\" not found. Available skills: hello-world, pdf-forms, release-notes");
}

#[test]
fn prompt_prints_the_catalog_bytes_in_each_format() {
    let root = examples();
    let root = root.to_str().expect("utf-8");
    let toolnexus = skilldeck(&["prompt", "--root", root]);
    assert_eq!(toolnexus.status.code(), Some(0));
    let text = stdout(&toolnexus);
    assert!(text.starts_with("Skills provide specialized instructions and workflows for specific tasks.\nUse the skill tool to load a skill when a task matches its description.\n\n## Available Skills\n- **hello-world**: "));
    assert!(!text.ends_with('\n'));
    assert_eq!(text.matches("\n- **").count(), 3);
    let xml = stdout(&skilldeck(&["prompt", "--format", "agentskills", "--root", root]));
    assert!(xml.starts_with("<available_skills>\n<skill>\n<name>\nhello-world\n</name>\n"));
    assert!(xml.ends_with("</skill>\n</available_skills>"));
}

#[test]
fn list_json_has_the_documented_shape() {
    let tree = tempfile::tempdir().expect("tmp");
    std::fs::create_dir_all(tree.path().join("ok")).expect("mkdir");
    std::fs::write(tree.path().join("ok/SKILL.md"), "---\nname: ok\ndescription: fine\n---\n").expect("write");
    std::fs::create_dir_all(tree.path().join("bad")).expect("mkdir");
    std::fs::write(tree.path().join("bad/SKILL.md"), "no frontmatter\n").expect("write");
    let defs = tree.path().join("defs.json");
    std::fs::write(&defs, r#"[{"name":"data","content":"x","resources":["a.md"]},{"description":"anonymous"}]"#)
        .expect("write");
    let root = tree.path().to_str().expect("utf-8");
    let out = skilldeck(&[
        "list",
        "--json",
        "--root",
        root,
        "--skills",
        defs.to_str().expect("utf-8"),
        "--filter",
        "ghost=false",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("json");
    let expected = serde_json::json!({
        "skills": [
            {"name": "ok", "description": "fine", "location": format!("{root}/ok/SKILL.md"), "origin": "fs"},
            {"name": "data", "description": null, "location": "skill://data/", "origin": "logical"},
        ],
        "skipped": [
            {"location": format!("{root}/bad/SKILL.md"), "reason": "missing-name", "detail": "no frontmatter"},
            {"location": "skill://", "reason": "missing-name"},
        ],
        "filter_unmatched": ["ghost"],
        "warnings": ["skill filter name \"ghost\" matched no skill"],
    });
    assert_eq!(json, expected);
    assert_eq!(stderr(&out), "warning: skill filter name \"ghost\" matched no skill\n");
}

#[test]
fn schema_prints_each_vendor_shape() {
    for (format, key) in
        [("openai", "function"), ("anthropic", "input_schema"), ("gemini", "parameters"), ("mcp", "inputSchema")]
    {
        let out = skilldeck(&["schema", "--format", format]);
        assert_eq!(out.status.code(), Some(0));
        let json: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("json");
        assert!(json[0].get(key).is_some(), "{format}: {json}");
    }
}

#[test]
fn usage_errors_exit_2_with_a_message() {
    for args in [
        &["load"][..],
        &["frobnicate"],
        &["list", "--sample-limit", "-2"],
        &["list", "--filter", "nameonly"],
        &["list", "--skills", "/definitely/missing.json"],
        &["prompt", "--format", "html"],
    ] {
        let out = skilldeck(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!stderr(&out).is_empty(), "{args:?}");
        assert_eq!(stdout(&out), "", "{args:?}");
    }
    let out = skilldeck(&["list", "--sample-limit", "-2"]);
    assert_eq!(
        stderr(&out),
        "skilldeck: invalid sample limit -2: use 0 (ten files), a positive cap, or -1 (no file list)\n"
    );
}

#[test]
fn warnings_go_to_stderr_and_the_table_to_stdout() {
    let out = skilldeck(&["list", "--root", "/definitely/missing"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stderr(&out), "warning: skills dir not found: /definitely/missing\n");
    assert_eq!(stdout(&out), "NAME  ORIGIN   DESCRIPTION\n");
}
