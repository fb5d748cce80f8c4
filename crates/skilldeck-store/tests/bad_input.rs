//! Paths that are not stores give a Backend error naming them, never a panic,
//! and leave what is there as it was; records that are hard to store
//! round-trip exactly.

use std::path::Path;

use skilldeck::store::{SkillStore, StoreError};
use skilldeck_store::SqliteStore;

use crate::contents;

/// The error of opening `path`, checked to be a Backend error naming it.
fn refused(path: &Path) -> String {
    let err = SqliteStore::open(path).unwrap_err();
    let StoreError::Backend { location, message } = &err else { panic!("not a backend error: {err:?}") };
    assert_eq!(location, &path.display().to_string());
    assert!(!message.is_empty());
    err.to_string()
}

#[test]
fn a_garbage_file_is_refused_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("skills.db");
    let garbage: Vec<u8> = (0..8192_u32).map(|i| u8::try_from(i.wrapping_mul(2_654_435_761) >> 24).unwrap()).collect();
    std::fs::write(&path, &garbage).unwrap();
    let err = refused(&path);
    assert_eq!(err, format!("skill store {}: file is not a database", path.display()));
    assert_eq!(std::fs::read(&path).unwrap(), garbage, "unchanged");
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, ["skills.db"], "no journal left beside it");

    // Text, and a file cut off inside a real database's header.
    std::fs::write(&path, "---\nname: pedido\n---\nnot a database\n".repeat(50)).unwrap();
    refused(&path);
    std::fs::write(&path, b"SQLite format 3\0\x10\0\x02\x02").unwrap();
    refused(&path);
}

#[test]
fn a_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let err = refused(dir.path());
    assert_eq!(err, format!("skill store {}: a directory, not a file", dir.path().display()));
}

#[test]
fn a_missing_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("missing").join("skills.db");
    let err = refused(&path);
    let missing = dir.path().join("missing");
    assert_eq!(err, format!("skill store {}: no such directory: {}", path.display(), missing.display()));
    assert!(!missing.exists(), "not created");
}

#[test]
fn hostile_records_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("skills.db");
    let store = SqliteStore::open(&path).unwrap();
    let huge: String = "---\nname: huge\n---\n".to_owned() + &"ação 😀 \0 \r\n".repeat(5 * (1 << 20) / 16);
    let cases: [(&str, Option<&str>, String); 6] = [
        ("huge", None, huge),
        ("nul\0name", Some("nul\0agent"), "a\0b\0".to_owned()),
        ("'; DROP TABLE skill; --", Some("\" OR 1=1"), "%_\\'".to_owned()),
        ("", Some(""), String::new()),
        ("../../etc/passwd", Some("a/b"), "\u{feff}---\nname: x\n---\n".to_owned()),
        ("é", Some("😀"), "\u{10ffff}\u{0}\u{7f}".to_owned()),
    ];
    for (name, agent, content) in &cases {
        store.write(name, content, *agent, false).unwrap();
        store.write(name, &format!("{content}!"), *agent, false).unwrap();
    }
    drop(store);
    let store = SqliteStore::open(&path).unwrap();
    for (name, agent, content) in &cases {
        assert_eq!(store.get(name, *agent).unwrap().unwrap().content, format!("{content}!"), "{name:?}");
        assert_eq!(contents(&store.versions(name, *agent).unwrap()), [content.as_str()], "{name:?}");
        assert_eq!(store.restore(name, 0, *agent).unwrap().content, *content, "{name:?}");
    }
    assert_eq!(store.agents().unwrap(), ["", "\" OR 1=1", "a/b", "nul\0agent", "😀"]);
    assert_eq!(store.names(None).unwrap(), ["huge"]);
    assert_eq!(store.names(Some("nul\0agent")).unwrap(), ["nul\0name"]);
    assert_eq!(store.get("nul", Some("nul")).unwrap(), None, "NUL does not cut a key short");
    assert!(store.delete("nul\0name", Some("nul\0agent")).unwrap());
}
