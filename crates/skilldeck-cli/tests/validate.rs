//! `skilldeck validate` and `skilldeck show`: output, exit codes, and the real
//! `agentskills` CLI (skills-ref 0.1.1) on the same skills.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};

use super::{skilldeck, stderr, stdout};

/// The `agentskills` CLI of the skills-ref venv (`SKILLDECK_SKILLSREF_PYTHON`'s
/// directory, by default `target/venvs/skillsref/bin`); fails when absent.
fn agentskills(args: &[&str]) -> Output {
    let python = std::env::var_os("SKILLDECK_SKILLSREF_PYTHON").filter(|p| !p.is_empty()).map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/venvs/skillsref/bin/python"),
        PathBuf::from,
    );
    let cli = python.with_file_name("agentskills");
    assert!(
        cli.exists(),
        "{} not found: run scripts/test, which creates target/venvs/skillsref with skills-ref==0.1.1, or point \
         SKILLDECK_SKILLSREF_PYTHON at that venv's python",
        cli.display()
    );
    Command::new(&cli).args(args).output().expect("run agentskills")
}

/// A temp dir holding skills: (relative dir, SKILL.md text).
fn tree(skills: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for (rel, text) in skills {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(&path).expect("mkdir");
        std::fs::write(path.join("SKILL.md"), text).expect("write");
    }
    dir
}

fn s(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

#[test]
fn lenient_warnings_exit_0_strict_exits_1() {
    let tmp = tree(&[
        ("good", "---\nname: good\ndescription: Fine.\n---\n"),
        ("mixed", "---\nname: Mixed\ndescription: d\n---\n"),
    ]);
    let md = tmp.path().join("mixed/SKILL.md");
    let out = skilldeck(&["validate", s(tmp.path())]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        format!(
            "{md}:2:7: warning: Skill name 'Mixed' must be lowercase\n\
             {md}:2:7: warning: Directory name 'mixed' must match skill name 'Mixed'\n\
             2 skills checked: 0 errors, 2 warnings\n",
            md = md.display()
        )
    );
    assert_eq!(stderr(&out), "");

    let out = skilldeck(&["validate", "--strict", s(&tmp.path().join("mixed")), s(&tmp.path().join("good"))]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).starts_with(&format!("{}:2:7: error: Skill name 'Mixed' must be lowercase\n", md.display())));
    assert!(stdout(&out).ends_with("2 skills checked: 2 errors, 0 warnings\n"), "{}", stdout(&out));

    let out = skilldeck(&["validate", s(&tmp.path().join("good"))]);
    assert_eq!((out.status.code(), stdout(&out)), (Some(0), "1 skill checked: 0 errors, 0 warnings\n".to_owned()));
}

#[test]
fn errors_exit_1_and_usage_errors_exit_2() {
    let tmp = tree(&[("bad", "no frontmatter\n")]);
    let out = skilldeck(&["validate", s(&tmp.path().join("bad"))]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stdout(&out),
        format!(
            "{}: error: SKILL.md must start with YAML frontmatter (---)\n1 skill checked: 1 error, 0 warnings\n",
            tmp.path().join("bad/SKILL.md").display()
        )
    );
    let missing = tmp.path().join("missing");
    let out = skilldeck(&["validate", s(&missing)]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stdout(&out),
        format!(
            "{}: error: Path does not exist: {}\n0 skills checked: 1 error, 0 warnings\n",
            missing.display(),
            missing.display()
        )
    );
    let out = skilldeck(&["validate"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("PATH"), "{}", stderr(&out));
}

#[test]
fn json_has_the_documented_shape() {
    let tmp = tree(&[("x", "---\nname: x\ndescription: d\nextra: 1\n---\n")]);
    let out = skilldeck(&["validate", "--json", s(tmp.path())]);
    assert_eq!(out.status.code(), Some(0));
    let value: Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    let dir = tmp.path().join("x");
    let md = dir.join("SKILL.md");
    assert_eq!(
        value,
        json!({
            "valid": true, "errors": 0, "warnings": 1,
            "skills": [{
                "dir": s(&dir), "skill_md": s(&md), "valid": true,
                "diagnostics": [{
                    "severity": "warning", "check": "unexpected-fields",
                    "message": "Unexpected fields in frontmatter: extra. Only ['allowed-tools', 'compatibility', \
                                'description', 'license', 'metadata', 'name'] are allowed.",
                    "path": s(&md), "line": 4, "column": 1,
                }],
            }],
        })
    );
    let out = skilldeck(&["validate", "--json", s(&tmp.path().join("nope"))]);
    let value: Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    assert_eq!(value["skills"][0]["skill_md"], Value::Null);
    assert_eq!(value["skills"][0]["diagnostics"][0]["line"], Value::Null);
    assert_eq!(value["valid"], false);
}

/// The real `agentskills validate`, one process per skill, against
/// `skilldeck validate --strict` on the same directory: the same exit code,
/// and its `  - message` lines are skilldeck's messages for its checks.
#[test]
fn strict_validate_agrees_with_the_agentskills_cli() {
    let skills = [
        ("valid-one", "---\nname: valid-one\ndescription: Fine.\n---\nBody.\n"),
        ("Upper_Case", "---\nname: Upper_Case\ndescription: d\nauthor: me\n---\n"),
        ("wrong-dir", "---\nname: right-name\ndescription: ''\ncompatibility:\n  - x\n---\n"),
        ("no-front", "# nothing\n"),
    ];
    let tmp = tree(&skills);
    for (rel, _) in skills {
        let dir = tmp.path().join(rel);
        let theirs = agentskills(&["validate", s(&dir)]);
        let ours = skilldeck(&["validate", "--strict", "--json", s(&dir)]);
        assert_eq!(ours.status.code(), theirs.status.code(), "{rel}: {}", stderr(&theirs));
        let expected: Vec<String> =
            stderr(&theirs).lines().filter_map(|l| l.strip_prefix("  - ")).map(str::to_owned).collect();
        let value: Value = serde_json::from_str(&stdout(&ours)).expect("JSON");
        let got: Vec<String> = value["skills"][0]["diagnostics"]
            .as_array()
            .expect("diagnostics")
            .iter()
            .map(|d| d["message"].as_str().expect("message").to_owned())
            .collect();
        assert_eq!(got, expected, "{rel}");
        if expected.is_empty() {
            assert_eq!(stdout(&theirs), format!("Valid skill: {}\n", dir.display()));
        }
    }
}

/// `skilldeck show NAME --json` prints the bytes `agentskills read-properties`
/// prints for the same skill (`json.dumps(indent=2)`, non-ASCII escaped).
#[test]
fn show_json_is_read_properties_byte_for_byte() {
    let skills = [
        ("basic", "---\nname: basic\ndescription: Does one thing.\n---\n"),
        (
            "full",
            "---\nname: full\ndescription: \"  Füllt Formulare aus — 📄  \"\nlicense: Apache-2.0\ncompatibility: 1.0\n\
             allowed-tools: Bash(git:*) Read\nmetadata:\n  author: Zoë\n  version: 2.10\n---\nBody.\n",
        ),
        ("技能", "---\nname: 技能\ndescription: 中文描述\nmetadata: ''\n---\n"),
    ];
    let tmp = tree(&skills);
    for (rel, _) in skills {
        let theirs = agentskills(&["read-properties", s(&tmp.path().join(rel))]);
        assert_eq!(theirs.status.code(), Some(0), "{}", stderr(&theirs));
        let ours = skilldeck(&["show", rel, "--json", "--root", s(tmp.path())]);
        assert_eq!(ours.status.code(), Some(0), "{}", stderr(&ours));
        assert_eq!(stdout(&ours), stdout(&theirs), "{rel}");
    }
}

#[test]
fn show_text_and_failures() {
    let tmp = tree(&[("basic", "---\nname: basic\ndescription: Does one thing.\nlicense: MIT\n---\n")]);
    let out = skilldeck(&["show", "basic", "--root", s(tmp.path())]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        stdout(&out),
        format!(
            "name: basic\ndescription: Does one thing.\nlicense: MIT\nlocation: {}\n",
            tmp.path().join("basic/SKILL.md").display()
        )
    );
    let out = skilldeck(&["show", "nope", "--root", s(tmp.path())]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out), "skilldeck: no skill named \"nope\"\n");

    // A skill the catalog loads without a description: read-properties refuses it.
    let tmp = tree(&[("bare", "---\nname: bare\n---\n")]);
    let out = skilldeck(&["show", "bare", "--json", "--root", s(tmp.path())]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        format!(
            "skilldeck: {}: error: Missing required field in frontmatter: description\n",
            tmp.path().join("bare/SKILL.md").display()
        )
    );
}
