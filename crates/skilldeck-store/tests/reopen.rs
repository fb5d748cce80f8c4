//! What a write leaves behind: dropping the store and opening it again shows
//! exactly the same records, times and histories. And the schema version the
//! file or database carries.

use skilldeck::store::Precondition;
use std::path::Path;

use skilldeck::store::{MemoryStore, Record, SkillStore, Version};
use skilldeck_store::SqliteStore;

use crate::{Fresh, snapshot};

const AGENTS: [Option<&str>; 3] = [None, Some("biro"), Some("")];
const NAMES: [&str; 3] = ["pedido", "cardapio", "a/b"];

/// Every record and history of the file, times included.
fn full(store: &dyn SkillStore) -> Vec<(Option<&'static str>, String, Record, Vec<Version>)> {
    let mut out = Vec::new();
    for agent in AGENTS {
        for (name, record) in store.all(agent).unwrap() {
            let versions = store.versions(&name, agent).unwrap();
            out.push((agent, name, record, versions));
        }
    }
    out
}

fn every_write_is_kept(fresh: &Fresh) {
    let memory = MemoryStore::default();
    type Step = fn(&dyn SkillStore, usize);
    let steps: &[Step] = &[
        |s, i| {
            let _ = s.write("pedido", &format!("v{i}"), None, &Precondition::Any).unwrap();
        },
        |s, i| {
            let _ = s.write("pedido", &format!("biro v{i}"), Some("biro"), &Precondition::Any).unwrap();
        },
        |s, i| {
            let _ = s.write("a/b", &format!("empty agent v{i}"), Some(""), &Precondition::Any).unwrap();
        },
        |s, i| {
            let _ = s.write("cardapio", &format!("c{i}"), None, &Precondition::Any);
        },
        |s, _| {
            let _ = s.restore("pedido", 1, None);
        },
        |s, _| {
            let _ = s.restore("pedido", 0, Some("biro"));
        },
        |s, _| {
            let _ = s.delete("cardapio", None).unwrap();
        },
    ];
    let mut store = fresh.open();
    for i in 0..30 {
        let step = steps[i % steps.len()];
        step(&*store, i);
        step(&memory, i);
        let before = full(&*store);
        drop(store);
        store = fresh.open();
        assert_eq!(full(&*store), before, "after step {i}");
        assert_eq!(snapshot(&*store, &AGENTS, &NAMES), snapshot(&memory, &AGENTS, &NAMES), "after step {i}");
    }
}

on_each_store!(every_write_is_kept);

#[test]
fn a_newer_postgres_schema_is_refused_by_name() {
    let Some(fresh) = Fresh::postgres() else { return };
    fresh.open().write("pedido", "v1", None, &Precondition::Any).unwrap();
    assert_eq!(fresh.sql("SELECT version::text FROM skilldeck_schema"), ["1"]);
    fresh.sql("UPDATE skilldeck_schema SET version = 7");
    let err = skilldeck_store::open(&fresh.location).err().expect("refused").to_string();
    let server = fresh.location.split_once("://").unwrap().1.split_once('?').unwrap().0;
    assert_eq!(
        err,
        format!(
            "skill store postgres://{server}: schema version 7 is newer than this program knows (1); refusing to use it"
        )
    );
    fresh.sql("UPDATE skilldeck_schema SET version = 1");
    assert_eq!(fresh.open().get("pedido", None).unwrap().unwrap().content, "v1", "the records were left alone");
}

fn pragma(path: &Path, name: &str) -> i64 {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.pragma_query_value(None, name, |row| row.get(0)).unwrap()
}

#[test]
fn a_new_file_gets_the_schema_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("skills.db");
    let store = SqliteStore::open(&path).unwrap();
    store.write("pedido", "v1", None, &Precondition::Any).unwrap();
    drop(store);
    assert_eq!(pragma(&path, "user_version"), 1);
    assert_eq!(pragma(&path, "application_id"), 0x534B_4C44);
    let conn = rusqlite::Connection::open(&path).unwrap();
    let mode: String = conn.pragma_query_value(None, "journal_mode", |row| row.get(0)).unwrap();
    assert_eq!(mode, "wal");
    drop(conn);
    // Opening again migrates nothing and loses nothing.
    let store = SqliteStore::open(&path).unwrap();
    assert_eq!(store.get("pedido", None).unwrap().unwrap().content, "v1");
}

#[test]
fn an_empty_file_becomes_a_store() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("skills.db");
    std::fs::write(&path, "").unwrap();
    let store = SqliteStore::open(&path).unwrap();
    store.write("pedido", "v1", None, &Precondition::Any).unwrap();
    assert_eq!(store.names(None).unwrap(), ["pedido"]);
}

#[test]
fn a_newer_schema_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("skills.db");
    SqliteStore::open(&path).unwrap().write("pedido", "v1", None, &Precondition::Any).unwrap();
    rusqlite::Connection::open(&path).unwrap().pragma_update(None, "user_version", 99).unwrap();
    let err = SqliteStore::open(&path).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "skill store {}: schema version 99 is newer than this program knows (1); refusing to open it",
            path.display()
        )
    );
    assert_eq!(pragma(&path, "user_version"), 99, "left as it was");
}

#[test]
fn another_programs_database_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("other.db");
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch("CREATE TABLE kv (k TEXT, v TEXT); INSERT INTO kv VALUES ('a', 'b');").unwrap();
    drop(conn);
    let before = std::fs::read(&path).unwrap();
    assert_eq!(before[18..20], [1, 1], "a rollback-journal database");
    let err = SqliteStore::open(&path).unwrap_err().to_string();
    assert_eq!(err, format!("skill store {}: a SQLite database of another program, not a skill store", path.display()));
    assert_eq!(std::fs::read(&path).unwrap(), before, "byte for byte as it was: not switched to WAL");
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, ["other.db"], "no -wal or -shm left beside it");

    let marked = dir.path().join("marked.db");
    rusqlite::Connection::open(&marked).unwrap().pragma_update(None, "application_id", 7).unwrap();
    let err = SqliteStore::open(&marked).unwrap_err().to_string();
    assert_eq!(err, format!("skill store {}: not a skill store (SQLite application_id 0x7)", marked.display()));
}
