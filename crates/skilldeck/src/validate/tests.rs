//! Unit tests of the validator: skilldeck's own checks with their exact
//! messages and positions, severities, and bad input (never a panic).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::*;

/// A temp dir with `dir/SKILL.md` holding `bytes`; returns (guard, skill dir).
fn skill(dir: &str, bytes: impl AsRef<[u8]>) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join(dir);
    std::fs::create_dir_all(&path).unwrap();
    std::fs::write(path.join("SKILL.md"), bytes).unwrap();
    (tmp, path)
}

/// (check, severity, message, position) of every diagnostic, lenient.
/// One finding: check, severity, message, position.
type Found = (Check, Severity, String, Option<(u64, u64)>);

fn found(path: &Path) -> Vec<Found> {
    Validator::new()
        .validate(path)
        .into_iter()
        .flat_map(|r| r.diagnostics)
        .map(|d| (d.check, d.severity, d.message, d.position))
        .collect()
}

fn md(name: &str, description: &str, extra: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n{extra}---\n{body}")
}

const W: Severity = Severity::Warning;
const E: Severity = Severity::Error;

#[test]
fn a_valid_skill_has_no_findings() {
    let (_t, dir) = skill("ok", md("ok", "Fine.", "license: MIT\n", "Body.\n"));
    assert_eq!(found(&dir), []);
    let reports = Validator::new().validate(&dir);
    assert_eq!(reports.len(), 1);
    assert_eq!(reports[0].skill_md.as_deref(), Some(dir.join("SKILL.md").as_path()));
    assert!(reports[0].is_valid());
}

#[test]
fn extra_checks_have_exact_messages_and_positions() {
    let extra =
        "license:\n  - MIT\ncompatibility: ''\nallowed-tools:\n  - Read\nmetadata:\n  tags:\n    - a\n  ok: 1\n";
    let (_t, dir) = skill("claude-anthropic", md("claude-anthropic", "Wrap in <out>text</out>.", extra, "Body.\n"));
    assert_eq!(
        found(&dir),
        [
            (Check::LicenseType, W, "Field 'license' must be a string".into(), Some((5, 3))),
            (
                Check::CompatibilityEmpty,
                W,
                "Field 'compatibility' must not be empty: the specification allows 1-500 characters when it is present"
                    .into(),
                Some((6, 16))
            ),
            (
                Check::AllowedToolsType,
                W,
                "Field 'allowed-tools' must be a string of space-separated tool names".into(),
                Some((8, 3))
            ),
            (
                Check::MetadataType,
                W,
                "Field 'metadata' must map strings to strings: 'tags' is not a string".into(),
                Some((11, 5))
            ),
            (
                Check::ReservedWord,
                W,
                "Skill name 'claude-anthropic' contains the reserved word 'anthropic', which the Claude API refuses"
                    .into(),
                Some((2, 7))
            ),
            (
                Check::ReservedWord,
                W,
                "Skill name 'claude-anthropic' contains the reserved word 'claude', which the Claude API refuses"
                    .into(),
                Some((2, 7))
            ),
            (
                Check::XmlTag,
                W,
                "Field 'description' contains an XML tag (<out>), which the Claude API refuses".into(),
                Some((3, 14))
            ),
        ]
    );
}

#[test]
fn metadata_that_is_not_a_mapping() {
    let (_t, dir) = skill("m", md("m", "d", "metadata:\n  - a\n", ""));
    assert_eq!(
        found(&dir),
        [(
            Check::MetadataType,
            W,
            "Field 'metadata' must be a mapping of string keys to string values".into(),
            Some((5, 3))
        )]
    );
    // Scalars are the author's text; an empty value is fine.
    let (_t, dir) = skill("m", md("m", "d", "metadata:\n  version: 1.0\n  flag: yes\n  empty:\n", ""));
    assert_eq!(found(&dir), []);
}

#[test]
fn xml_tags_are_told_from_comparisons() {
    assert_eq!(xml_tag("Use <example> here"), Some("<example>"));
    assert_eq!(xml_tag("closing </b> only"), Some("</b>"));
    assert_eq!(xml_tag("a < b > c"), None);
    assert_eq!(xml_tag("x<y and\nz>"), None);
    assert_eq!(xml_tag("<<a>"), Some("<a>"));
    assert_eq!(xml_tag("ends with <"), None);
    assert_eq!(xml_tag("<名前>"), Some("<名前>"));
}

#[test]
fn body_length_warnings_count_the_trimmed_body() {
    let body = format!("\n\n{}\n\n", "line\n".repeat(500));
    let (_t, dir) = skill("ok", md("ok", "d", "", &body));
    assert_eq!(found(&dir), [], "500 lines is the limit, blank edges not counted");

    let (_t, dir) = skill("long", md("long", "d", "", &"line\n".repeat(501)));
    assert_eq!(
        found(&dir),
        [(
            Check::BodyLines,
            W,
            "the body is 501 lines long; the specification recommends under 500 (move detail into referenced files)"
                .into(),
            Some((5, 1))
        )]
    );

    let (_t, dir) = skill("wordy", md("wordy", "d", "", &"é".repeat(20_001)));
    assert_eq!(
        found(&dir),
        [(
            Check::BodyTokens,
            W,
            "the body is about 5001 tokens (estimated as characters / 4); the specification recommends under 5000"
                .into(),
            Some((5, 1))
        )]
    );
    let (_t, dir) = skill("wordy", md("wordy", "d", "", &"é".repeat(20_000)));
    assert_eq!(found(&dir), []);
}

#[test]
fn strict_makes_every_warning_an_error_and_lenient_keeps_loading_errors() {
    let (_t, dir) = skill("other", md("Upper", "d", "extra: 1\n", ""));
    let lenient: Vec<_> = found(&dir).into_iter().map(|f| (f.0, f.1)).collect();
    assert_eq!(lenient, [(Check::UnexpectedFields, W), (Check::NameLowercase, W), (Check::NameDirectory, W)]);
    let reports = Validator::new().strict(true).validate(&dir);
    assert!(reports[0].diagnostics.iter().all(|d| d.severity == E));
    assert!(!reports[0].is_valid());
    assert_eq!(reports[0].warnings().count(), 0);

    let (_t, dir) = skill("x", "---\nname: x\n---\n");
    assert_eq!(found(&dir)[0].1, E, "a missing description is an error even when lenient");
}

#[test]
fn text_output_points_at_the_value() {
    let (_t, dir) = skill("right", "---\ndescription: d\nname:   Wrong\n---\n");
    let reports = Validator::new().validate(&dir);
    let lines: Vec<String> = reports[0].diagnostics.iter().map(ToString::to_string).collect();
    let md = dir.join("SKILL.md");
    assert_eq!(
        lines,
        [
            format!("{}:3:9: warning: Skill name 'Wrong' must be lowercase", md.display()),
            format!("{}:3:9: warning: Directory name 'right' must match skill name 'Wrong'", md.display()),
        ]
    );
}

#[test]
fn yaml_errors_carry_the_file_position() {
    let (_t, dir) = skill("y", "---\nname: y\ndescription: Use when: asked\n---\n");
    let found = found(&dir);
    assert_eq!(found.len(), 1);
    let (check, severity, message, position) = &found[0];
    assert_eq!((*check, *severity), (Check::InvalidYaml, E));
    assert!(message.starts_with("Invalid YAML in frontmatter: "), "{message}");
    assert_eq!(position.map(|p| p.0), Some(3), "{message}");
}

#[test]
fn a_byte_order_mark_is_a_warning_and_the_skill_is_checked() {
    let (_t, dir) = skill("bom", [b"\xEF\xBB\xBF".as_slice(), md("BOM", "d", "", "").as_bytes()].concat());
    let checks: Vec<_> = found(&dir).into_iter().map(|f| (f.0, f.1, f.3)).collect();
    assert_eq!(
        checks,
        [
            (Check::NameLowercase, W, Some((2, 7))),
            (Check::NameDirectory, W, Some((2, 7))),
            (Check::ByteOrderMark, W, Some((1, 1)))
        ]
    );
}

#[test]
fn invalid_utf8_is_a_diagnostic_with_its_position() {
    let (_t, dir) = skill("u", b"---\nname: u\ndescription: caf\xE9\n---\nBody.\n");
    assert_eq!(found(&dir), [(Check::Unreadable, E, "the frontmatter is not valid UTF-8".into(), Some((3, 17)))]);
    let (_t, dir) = skill("u", b"---\nname: u\ndescription: d\n---\nok\nbad \xFF here\n");
    assert_eq!(
        found(&dir),
        [(
            Check::BodyEncoding,
            W,
            "the body is not valid UTF-8; clients refuse the file or read U+FFFD".into(),
            Some((6, 5))
        )]
    );
}

#[test]
fn files_and_directories_that_hold_no_skill() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("nope");
    assert_eq!(found(&missing), [(Check::PathMissing, E, format!("Path does not exist: {}", missing.display()), None)]);
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    assert_eq!(found(&empty), [(Check::MissingSkillMd, E, "Missing required file: SKILL.md".into(), None)]);
    let file = tmp.path().join("notes.txt");
    std::fs::write(&file, "x").unwrap();
    assert_eq!(found(&file), [(Check::NotADirectory, E, format!("Not a directory: {}", file.display()), None)]);
    // A file named SKILL.md stands for its directory.
    let (_t, dir) = skill("s", md("s", "d", "", ""));
    assert_eq!(found(&dir.join("SKILL.md")), []);
    let reports = Validator::new().validate(dir.join("SKILL.md"));
    assert_eq!(reports[0].dir, dir);
}

#[test]
fn no_frontmatter_unclosed_and_empty() {
    for (text, check, message) in [
        ("# Title\n", Check::NoFrontmatter, "SKILL.md must start with YAML frontmatter (---)"),
        ("", Check::NoFrontmatter, "SKILL.md must start with YAML frontmatter (---)"),
        ("---\nname: x\n", Check::UnclosedFrontmatter, "SKILL.md frontmatter not properly closed with ---"),
        ("---\n---\n", Check::NotAMapping, "SKILL.md frontmatter must be a YAML mapping"),
        ("---\n[a, b]\n---\n", Check::NotAMapping, "SKILL.md frontmatter must be a YAML mapping"),
    ] {
        let (_t, dir) = skill("x", text);
        let got: Vec<_> = found(&dir).into_iter().map(|f| (f.0, f.1, f.2)).collect();
        assert_eq!(got, [(check, E, message.to_owned())], "{text:?}");
    }
}

#[test]
fn a_directory_named_skill_md_is_not_a_regular_file() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join("s/SKILL.md")).unwrap();
    assert_eq!(found(&tmp.path().join("s")), [(Check::Unreadable, E, "not a regular file".into(), None)]);
}

#[cfg(unix)]
#[test]
fn a_fifo_is_never_opened() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("s")).unwrap();
    let fifo = tmp.path().join("s/SKILL.md");
    let status = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !status.is_ok_and(|s| s.success()) {
        return; // no mkfifo here
    }
    assert_eq!(found(&tmp.path().join("s")), [(Check::Unreadable, E, "not a regular file".into(), None)]);
    // Walked as part of a root, too.
    assert_eq!(found(tmp.path()), [(Check::Unreadable, E, "not a regular file".into(), None)]);
}

#[cfg(unix)]
#[test]
fn symbolic_link_loops_end() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    std::fs::create_dir_all(root.join("a")).unwrap();
    std::fs::write(root.join("a/SKILL.md"), md("a", "d", "", "")).unwrap();
    std::os::unix::fs::symlink(&root, root.join("a/back")).unwrap();
    std::os::unix::fs::symlink("self", root.join("self")).unwrap();
    let reports = Validator::new().validate(&root);
    assert_eq!(reports.len(), 1, "{reports:?}");
    assert!(reports[0].diagnostics.is_empty(), "{reports:?}");

    // A root that is itself a link loop.
    let looped = tmp.path().join("loop");
    std::os::unix::fs::symlink(&looped, &looped).unwrap();
    let got = found(&looped);
    assert_eq!(got.len(), 1);
    assert_eq!((got[0].0, got[0].1), (Check::Unreadable, E));
    assert!(got[0].2.starts_with(&format!("cannot read {}: ", looped.display())), "{}", got[0].2);
}

#[test]
fn a_root_is_walked_like_the_catalog_walks_it() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    for (rel, name) in [("b", "b"), ("a", "a"), ("deep/x/c", "c"), (".git/g", "g"), ("node_modules/n", "n")] {
        std::fs::create_dir_all(root.join(rel)).unwrap();
        std::fs::write(root.join(rel).join("SKILL.md"), md(name, "d", "", "")).unwrap();
    }
    std::fs::create_dir_all(root.join("lower")).unwrap();
    std::fs::write(root.join("lower/skill.md"), md("lower", "d", "", "")).unwrap();
    let reports = Validator::new().validate(root);
    let order: Vec<_> = reports.iter().map(|r| r.skill_md.clone().unwrap()).collect();
    assert_eq!(
        order,
        [root.join("a/SKILL.md"), root.join("b/SKILL.md"), root.join("lower/skill.md"), root.join("deep/x/c/SKILL.md")]
    );
    assert_eq!(
        reports[2].diagnostics.iter().map(|d| (d.check, d.severity, d.message.as_str())).collect::<Vec<_>>(),
        [(Check::SkillMdName, E, "the file is named 'skill.md', not 'SKILL.md': clients look for exactly SKILL.md")]
    );
}

#[test]
fn a_walk_cut_by_its_limits_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    for name in ["a", "b", "c"] {
        std::fs::create_dir_all(tmp.path().join(name)).unwrap();
        std::fs::write(tmp.path().join(name).join("SKILL.md"), md(name, "d", "", "")).unwrap();
    }
    let limits = Limits { max_dirs: 2, ..Limits::default() };
    let reports = Validator::new().walk_limits(limits).validate(tmp.path());
    let last = reports.last().unwrap();
    assert_eq!(last.skill_md, None);
    assert_eq!(last.diagnostics[0].check, Check::WalkLimit);
    assert_eq!(
        last.diagnostics[0].message,
        format!(
            "walk of {} stopped at the directory limit (2); skills below it were not checked",
            tmp.path().display()
        )
    );
}

#[test]
fn dot_is_named_after_the_real_directory() {
    let (_t, dir) = skill("real-name", md("real-name", "d", "", ""));
    assert_eq!(dir_name(&dir.join(".")), "real-name");
    std::fs::create_dir(dir.join("sub")).unwrap();
    assert_eq!(dir_name(&dir.join("sub/..")), "real-name");
    assert_eq!(Validator::new().check_source(md("real-name", "d", "", "").as_bytes(), &dir.join("./SKILL.md")), []);
}

#[test]
fn hostile_yaml_is_a_diagnostic() {
    // The billion laughs: 12 levels of 10 aliases, and 2^40 nodes from 40 levels of 2.
    let bomb = |levels: usize, fanout: usize| {
        let mut text = format!("---\nl0: &l0 [{}]\n", vec!["x"; fanout].join(", "));
        for level in 1..levels {
            let refs = vec![format!("*l{}", level - 1); fanout].join(", ");
            text.push_str(&format!("l{level}: &l{level} [{refs}]\n"));
        }
        text + "name: h\ndescription: d\n---\n"
    };
    let deep = format!("---\nname: {}{}\n---\n", "[".repeat(10_000), "]".repeat(10_000));
    for text in [bomb(12, 10), bomb(40, 2), deep] {
        let (_t, dir) = skill("h", text);
        let got = found(&dir);
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].0, Check::InvalidYaml);
    }
}

#[test]
fn a_frontmatter_over_the_cap_is_an_error() {
    let (_t, dir) = skill("big", md("big", &"d".repeat(200), "", ""));
    let got = Validator::new().max_frontmatter(100).validate(&dir);
    assert_eq!(
        got[0].diagnostics.iter().map(|d| (d.check, d.message.as_str())).collect::<Vec<_>>(),
        [(Check::FrontmatterTooLarge, "the frontmatter is larger than 100 bytes")]
    );
}

#[test]
fn python_text_rules() {
    assert_eq!(python_strip("\u{85}\u{1c} x \u{3000}"), "x");
    assert_eq!(python_strip("\u{feff}x"), "\u{feff}x", "U+FEFF is not Python whitespace");
    assert!(is_python_alnum('٣') && is_python_alnum('ⅻ') && is_python_alnum('²') && is_python_alnum('技'));
    assert!(!is_python_alnum('_') && !is_python_alnum('🚀') && !is_python_alnum('\u{301}'));
    assert_eq!(python_path(Path::new("/a/./b/")), "/a/b");
    assert_eq!(python_path(Path::new("./x//y/.")), "x/y");
    assert_eq!(python_path(Path::new(".")), ".");
    assert_eq!(estimate_tokens("abcde"), 2);
}

#[test]
fn read_properties_keeps_the_authors_text() {
    let (_t, dir) = skill(
        "p",
        "---\nname: ' p '\ndescription: |\n  Two\n  lines.\nlicense: 2.0\nmetadata:\n  version: 2.10\n  list:\n    - 1\n---\n",
    );
    let props = read_properties(&dir).unwrap();
    assert_eq!(
        props.entries(),
        [
            ("name", Value::from("p")),
            ("description", Value::from("Two\nlines.")),
            ("license", Value::from("2.0")),
            ("metadata", serde_json::json!({"version": "2.10", "list": ["1"]})),
        ]
    );
    let error = read_properties(dir.join("missing")).unwrap_err();
    assert_eq!(error.message, format!("SKILL.md not found in {}", dir.join("missing").display()));
}

#[test]
fn positions_are_file_lines_even_after_a_lone_carriage_return() {
    // YAML breaks lines at a lone `\r` too; a position must stay a line of
    // the file, which ends lines at `\n` only.
    let (_t, dir) = skill("cr", "---\nname: cr\ndescription: d\r\r\rextra: [x\n---\n");
    let refused = found(&dir);
    assert_eq!((refused[0].0, refused[0].3), (Check::InvalidYaml, Some((3, 25))), "{:?}", refused[0].2);
    let (_t, dir) = skill("cr", "---\ndescription: d\r\r\rNAME: cr\nname: cr\n---\n");
    let unexpected = found(&dir);
    assert_eq!((unexpected[0].0, unexpected[0].3), (Check::UnexpectedFields, Some((2, 18))), "{:?}", unexpected[0].2);
}
