//! Names are names: a skill whose name holds a control, format or separator
//! character is an `invalid-name` skip naming the file and the character,
//! whatever its source, so no listing can be split or reordered by one;
//! every other name loads as toolnexus loads it.

use std::sync::Arc;

use serde_json::json;
use skilldeck::store::{MemoryStore, SkillStore};
use skilldeck::{Catalog, SkillDef, SkillTool, SkipReason, render};

use crate::util::Tree;

#[test]
fn a_name_with_a_control_format_or_separator_character_is_an_invalid_name_skip() {
    let tree = Tree::new();
    tree.skill("good", "good", "A good skill.", "Good body.\n");
    // YAML escapes give each character; the last two are written raw.
    let bad = [
        ("newline", "\"two\\nlines\"", "U+000A, a control character"),
        ("nul", "\"nul\\0\"", "U+0000, a control character"),
        ("escape", "\"red\\e[31m\"", "U+001B, a control character"),
        ("bidi", "\"evil\\u202Etxt.exe\"", "U+202E, a format character"),
        ("zero-width", "\"zero\\u200Bwidth\"", "U+200B, a format character"),
        // Inside: at either end the ECMAScript trim takes a U+FEFF away.
        ("bom", "\"b\\uFEFFom\"", "U+FEFF, a format character"),
        ("separator", "\"line\\u2028separator\"", "U+2028, a line separator"),
        ("raw-bidi", "raw\u{2066}isolate", "U+2066, a format character"),
        ("raw-paragraph", "para\u{2029}graph", "U+2029, a paragraph separator"),
    ];
    for (dir, name, _) in bad {
        tree.file(&format!("{dir}/SKILL.md"), format!("---\nname: {name}\ndescription: Hostile.\n---\nbody\n"));
    }
    let catalog = Catalog::builder().root(tree.root()).build();
    let names: Vec<&str> = catalog.skills().map(|s| s.name()).collect();
    assert_eq!(names, ["good"]);
    let mut expected: Vec<(String, &str, String)> = bad
        .iter()
        .map(|(dir, _, what)| {
            let location = tree.path(&format!("{dir}/SKILL.md")).to_string_lossy().into_owned();
            (location, "invalid-name", format!("a skill name cannot contain {what}"))
        })
        .collect();
    expected.sort();
    let mut skips: Vec<(String, &str, String)> =
        catalog.skips().iter().map(|s| (s.location.clone(), s.reason.as_str(), s.detail.clone().unwrap())).collect();
    skips.sort();
    assert_eq!(skips, expected);
    assert_eq!(SkipReason::InvalidName.as_str(), "invalid-name");
    assert!(render::toolnexus(&catalog).ends_with("## Available Skills\n- **good**: A good skill."));
    let out = SkillTool::new(&catalog).call(&json!({"name": "two\nlines"}));
    assert!(out.is_error && out.output.starts_with("Skill \"two\nlines\" not found."), "{}", out.output);
}

#[test]
fn data_and_store_skills_follow_the_same_rule() {
    let store = Arc::new(MemoryStore::default());
    // A record whose key is fine and whose text's name holds a NUL (one an
    // earlier skilldeck stored): skipped like a file.
    let record = "---\nname: \"ok\\0\"\ndescription: Stored.\n---\nbody\n";
    assert!(skilldeck::check_name("ok", skilldeck::NameKind::Skill).is_ok());
    store.write("ok", record, None, &skilldeck::store::Precondition::Any).unwrap();
    let catalog = Catalog::builder()
        .skill(SkillDef::new("da\nta").description("Data.").content("x"))
        .skill(SkillDef::new("\u{202E}").description("Data.").content("x").base("skill://custom/"))
        .skill(SkillDef::new("Fine Data").description("Data.").content("x"))
        .store(store)
        .build();
    let names: Vec<&str> = catalog.skills().map(|s| s.name()).collect();
    assert_eq!(names, ["Fine Data"]);
    let skips: Vec<(&str, SkipReason, &str)> =
        catalog.skips().iter().map(|s| (s.location.as_str(), s.reason, s.detail.as_deref().unwrap())).collect();
    assert_eq!(
        skips,
        [
            ("skill://da\nta/", SkipReason::InvalidName, "a skill name cannot contain U+000A, a control character"),
            ("skill://custom/", SkipReason::InvalidName, "a skill name cannot contain U+202E, a format character"),
            ("store:ok", SkipReason::InvalidName, "a skill name cannot contain U+0000, a control character"),
        ]
    );
}

/// The names the Agent Skills rule refuses but real registries hold keep
/// loading exactly as before (the byte-for-byte comparison with toolnexus is
/// `differential::names_registries_have`).
#[test]
fn spaces_capitals_and_slashes_keep_loading() {
    let tree = Tree::new();
    tree.skill("pdf", "PDF Processing", "Fill PDF forms.", "Use pdftk.\n");
    tree.skill("team", "team/deploy", "Deploy.", "Ship it.\n");
    let catalog = Catalog::builder().root(tree.root()).build();
    assert_eq!(catalog.skips(), []);
    assert!(
        render::toolnexus(&catalog).ends_with("\n- **PDF Processing**: Fill PDF forms.\n- **team/deploy**: Deploy.")
    );
    let out = SkillTool::new(&catalog).call(&json!({"name": "PDF Processing"}));
    assert!(!out.is_error && out.output.contains("\n\nUse pdftk.\n\n"), "{}", out.output);
}
