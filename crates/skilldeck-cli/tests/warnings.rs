//! Warnings on stderr: the first five in full and one line counting all of
//! them by kind; every one with `--verbose`; every one in `list --json`.

use std::path::Path;

use super::{skilldeck, stderr, stdout};

/// A root with six skills named `dup` (five lose the name) and two whose
/// YAML is refused and rescued line by line: seven warnings, in this order.
fn noisy(root: &Path) -> Vec<String> {
    let mut expected = Vec::new();
    for i in 1..=6 {
        let dir = root.join(format!("d{i}"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("SKILL.md"), "---\nname: dup\ndescription: Same name.\n---\n").unwrap();
        if i > 1 {
            let location = dir.join("SKILL.md").display().to_string();
            expected.push(format!(
                "skilldeck: warning: duplicate skill name \"dup\" ({location}) \u{2014} keeping first\n"
            ));
        }
    }
    for name in ["r1", "r2"] {
        let dir = root.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("SKILL.md"), format!("---\nname: {name}\ndescription: a: b\n---\n")).unwrap();
        let location = dir.join("SKILL.md").display().to_string();
        expected.push(format!(
            "skilldeck: warning: recovered-frontmatter: {location}: mapping values are not allowed in this context at line 3, \
             column 15; name and description were read line by line\n"
        ));
    }
    expected
}

const SUMMARY: &str = "skilldeck: warning: 7 warnings in all (5 duplicate-name, 2 recovered-frontmatter); the first 5 are above, \
                       --verbose prints every one\n";

#[test]
fn the_first_five_warnings_and_a_count_by_kind_then_every_one_with_verbose() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let lines = noisy(&root);
    let root = root.to_str().unwrap();

    let out = skilldeck(&["list", "--root", root]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stderr(&out), format!("{}{SUMMARY}", lines[..5].concat()));

    let out = skilldeck(&["list", "--root", root, "--verbose"]);
    assert_eq!(stderr(&out), lines.concat());
    let out = skilldeck(&["--verbose", "prompt", "--root", root]);
    assert_eq!(stderr(&out), lines.concat());

    // JSON holds every one, whatever stderr shows.
    let out = skilldeck(&["list", "--json", "--root", root]);
    assert_eq!(stderr(&out), format!("{}{SUMMARY}", lines[..5].concat()));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let warnings: Vec<String> =
        lines.iter().map(|l| l.strip_prefix("skilldeck: warning: ").unwrap().trim_end().to_owned()).collect();
    assert_eq!(json["warnings"], serde_json::json!(warnings));
}

#[test]
fn five_warnings_or_fewer_are_printed_whole_without_a_count() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let lines = noisy(&root);
    // Two of the seven go: five are left.
    std::fs::remove_dir_all(root.join("r1")).unwrap();
    std::fs::remove_dir_all(root.join("r2")).unwrap();
    let out = skilldeck(&["list", "--root", root.to_str().unwrap()]);
    assert_eq!(stderr(&out), lines[..5].concat());
}

/// An empty catalog with more warnings than are shown: the warnings and
/// their count come first, then the line that says where it looked (the
/// conclusion they may explain), for a catalog command and for `serve` alike.
#[test]
fn the_count_comes_before_the_empty_catalogs_line() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap().display().to_string();
    // An allowlist of six names no skill has: six warnings, and nothing exposed.
    let filters: Vec<String> = (1..=6).map(|i| format!("ghost{i}=true")).collect();
    let mut args = vec!["--root", root.as_str()];
    args.extend(filters.iter().flat_map(|filter| ["--filter", filter.as_str()]));
    let shown: String =
        (1..=5).map(|i| format!("skilldeck: warning: skill filter name \"ghost{i}\" matched no skill\n")).collect();
    let expected = format!(
        "{shown}skilldeck: warning: 6 warnings in all (6 filter-unmatched); the first 5 are above, --verbose prints \
         every one\nskilldeck: warning: no skills found; looked in {root}\n"
    );
    for command in ["list", "serve"] {
        // `serve` on stdio ends when its (empty) stdin does, its first catalog read and judged.
        let out = skilldeck(&[&[command], args.as_slice()].concat());
        assert_eq!(out.status.code(), Some(0), "{command}");
        assert_eq!(stderr(&out), expected, "{command}");
    }
}
