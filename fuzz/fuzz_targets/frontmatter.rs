//! Arbitrary bytes as a `SKILL.md`, through the public API only.
//!
//! The catalog reads them as a store record (fences, YAML through
//! serde-saphyr, the line-wise rescue) in both frontmatter modes, `authoring`
//! checks them as a write would, and the validator reads the raw bytes with
//! its own YAML reader. Checked: nothing panics; strict mode loads only what
//! lenient mode loads; the write check agrees with the lenient catalog; a
//! loaded skill's body is the end of its text; every diagnostic has a message
//! and, when it has a position, one inside the file.

#![no_main]

use std::path::Path;
use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use skilldeck::store::{MemoryStore, SkillStore};
use skilldeck::validate::Validator;
use skilldeck::{Catalog, FrontmatterMode, authoring, render};

fuzz_target!(|bytes: &[u8]| {
    let lines = bytes.split(|&b| b == b'\n').count() as u64;
    for diagnostic in Validator::new().check_source(bytes, Path::new("fuzz/SKILL.md")) {
        assert!(!diagnostic.message.is_empty(), "{diagnostic:?}");
        if let Some((line, column)) = diagnostic.position {
            assert!((1..=lines).contains(&line) && column >= 1, "{diagnostic:?} in a file of {lines} lines");
        }
    }

    // A store record is text: the bytes as the lossy UTF-8 a reader would see.
    let content = String::from_utf8_lossy(bytes);
    let store = Arc::new(MemoryStore::default());
    store.write("fuzz", &content, None, false).expect("a new record is always written");
    let build = |mode| {
        Catalog::builder().store(store.clone()).frontmatter_mode(mode).build().expect("no configuration to refuse")
    };
    let lenient = build(FrontmatterMode::Lenient);
    let strict = build(FrontmatterMode::Strict);
    let _ = render::toolnexus(&lenient);

    let loaded = lenient.get("fuzz");
    assert!(strict.get("fuzz").is_none() || loaded.is_some(), "strict mode loaded what lenient mode skipped");
    assert_eq!(
        authoring::check_skill_md(&content).is_ok(),
        loaded.is_some(),
        "the write check and the catalog disagree"
    );
    if let Some(skill) = loaded {
        let body = skill.body().expect("a store skill keeps its body");
        assert!(content.ends_with(body), "the body is not the end of the text");
    }
});
