//! What a write leaves behind: dropping the store and opening it again shows
//! exactly the same records, times and histories. And the schema version the
//! file or database carries.

use skilldeck::store::Precondition;
use std::path::Path;

use skilldeck::store::{MemoryStore, ProfileVersion, Record, SkillStore, Version};
use skilldeck::{AgentProfile, Eager};
use skilldeck_store::SqliteStore;

use crate::{Fresh, snapshot};

const AGENTS: [Option<&str>; 3] = [None, Some("biro"), Some("a b")];
const NAMES: [&str; 3] = ["pedido", "cardapio", "a\\b"];

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

/// Every profile with its history, times included.
fn full_profiles(store: &dyn SkillStore) -> Vec<(AgentProfile, Vec<ProfileVersion>)> {
    store.profiles().unwrap().into_iter().map(|p| (p.clone(), store.profile_versions(&p.id).unwrap())).collect()
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
            let _ = s.write("a\\b", &format!("spaced agent v{i}"), Some("a b"), &Precondition::Any).unwrap();
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
        |s, i| {
            s.update_profiles(&mut |all| match all.iter_mut().find(|p| p.id == "bia") {
                Some(bia) => bia.skills.get_or_insert_default().push(format!("v{i}")),
                None => all.push(AgentProfile::new("bia").eager(Eager::All)),
            })
            .unwrap();
        },
        |s, i| {
            s.update_profiles(&mut |all| match all.iter().position(|p| p.id == "chef") {
                Some(at) => drop(all.remove(at)),
                None => all.push(AgentProfile::new("chef").eager(Eager::Names(vec![format!("v{i}")]))),
            })
            .unwrap();
        },
    ];
    let mut store = fresh.open();
    for i in 0..30 {
        let step = steps[i % steps.len()];
        step(&*store, i);
        step(&memory, i);
        let before = (full(&*store), full_profiles(&*store));
        drop(store);
        store = fresh.open();
        assert_eq!((full(&*store), full_profiles(&*store)), before, "after step {i}");
        assert_eq!(snapshot(&*store, &AGENTS, &NAMES), snapshot(&memory, &AGENTS, &NAMES), "after step {i}");
    }
}

on_each_store!(every_write_is_kept);

#[test]
fn a_newer_postgres_schema_is_refused_by_name() {
    let Some(fresh) = Fresh::postgres() else { return };
    fresh.open().write("pedido", "v1", None, &Precondition::Any).unwrap();
    assert_eq!(fresh.sql("SELECT version::text FROM skilldeck_schema"), ["2"]);
    fresh.sql("UPDATE skilldeck_schema SET version = 7");
    let err = skilldeck_store::open(&fresh.location).err().expect("refused").to_string();
    let server = fresh.location.split_once("://").unwrap().1.split_once('?').unwrap().0;
    assert_eq!(
        err,
        format!(
            "skill store postgres://{server}: schema version 7 is newer than this program knows (2); refusing to use it"
        )
    );
    fresh.sql("UPDATE skilldeck_schema SET version = 2");
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
    assert_eq!(pragma(&path, "user_version"), 2);
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
            "skill store {}: schema version 99 is newer than this program knows (2); refusing to open it",
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

/// Version 1 of the SQLite schema as it shipped, frozen: what a file made
/// before profiles holds.
const SQLITE_V1: &str = "
    CREATE TABLE skill (
        id INTEGER PRIMARY KEY,
        agent TEXT,
        name TEXT NOT NULL,
        content TEXT NOT NULL,
        updated_at TEXT NOT NULL
    ) STRICT;
    CREATE UNIQUE INDEX skill_agent_name ON skill (agent, name);
    CREATE UNIQUE INDEX skill_shared_name ON skill (name) WHERE agent IS NULL;
    CREATE TABLE skill_version (
        skill_id INTEGER NOT NULL REFERENCES skill (id) ON DELETE CASCADE,
        idx INTEGER NOT NULL,
        content TEXT NOT NULL,
        at TEXT NOT NULL,
        PRIMARY KEY (skill_id, idx)
    ) STRICT;
";

/// Records that are hard to keep: `(agent, name, content, history)`.
fn old_records() -> Vec<(Option<&'static str>, &'static str, String, Vec<String>)> {
    vec![
        (None, "pedido", "---\nname: pedido\n---\nAnote o pedido.\r\n".into(), vec!["v1".into(), "v0".into()]),
        (Some("biro"), "pedido", "nul\0 😀 \u{feff}".into(), vec!["a\0b".into()]),
        (Some(""), "a/b", String::new(), Vec::new()),
    ]
}

/// Every row of the skill tables, contents in hex: the bytes as stored.
const SQLITE_DUMP: &str = "SELECT id || '|' || ifnull(quote(agent), 'NULL') || '|' || name || '|' || hex(content) \
                           || '|' || updated_at FROM skill UNION ALL SELECT skill_id || '|' || idx || '|' \
                           || hex(content) || '|' || at FROM skill_version ORDER BY 1";

/// A file made by schema version 1 (before profiles) is brought up to date
/// when first opened, its records kept byte for byte, and then keeps
/// profiles; opening it again migrates nothing.
#[test]
fn a_version_1_file_gains_profiles_and_keeps_its_records() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("skills.db");
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.pragma_update(None, "application_id", 0x534B_4C44).unwrap();
    conn.pragma_update_and_check(None, "journal_mode", "WAL", |_| Ok(())).unwrap();
    conn.execute_batch(SQLITE_V1).unwrap();
    conn.pragma_update(None, "user_version", 1).unwrap();
    for (agent, name, content, history) in old_records() {
        conn.execute(
            "INSERT INTO skill (agent, name, content, updated_at) VALUES (?1, ?2, ?3, '2026-01-02T03:04:05Z')",
            rusqlite::params![agent, name, content],
        )
        .unwrap();
        let id = conn.last_insert_rowid();
        for (idx, text) in (0_i64..).zip(&history) {
            conn.execute(
                "INSERT INTO skill_version VALUES (?1, ?2, ?3, '2026-01-01T00:00:00Z')",
                rusqlite::params![id, idx, text],
            )
            .unwrap();
        }
    }
    let dump = |conn: &rusqlite::Connection| -> Vec<String> {
        conn.prepare(SQLITE_DUMP).unwrap().query_map([], |row| row.get(0)).unwrap().map(Result::unwrap).collect()
    };
    let before = dump(&conn);
    assert_eq!(before.len(), 6);
    drop(conn);

    let store = SqliteStore::open(&path).unwrap();
    assert_eq!(pragma(&path, "user_version"), 2);
    assert_eq!(dump(&rusqlite::Connection::open(&path).unwrap()), before, "byte for byte");
    for (agent, name, content, history) in old_records() {
        let record = store.get(name, agent).unwrap().unwrap();
        assert_eq!((record.content, record.updated_at.as_str()), (content, "2026-01-02T03:04:05Z"));
        assert_eq!(crate::contents(&store.versions(name, agent).unwrap()), history);
    }
    assert_eq!(store.profiles().unwrap(), []);
    store.update_profiles(&mut |all| all.push(AgentProfile::new("biro").allow(["pedido"]))).unwrap();
    drop(store);
    let store = SqliteStore::open(&path).unwrap();
    assert_eq!(store.profiles().unwrap(), [AgentProfile::new("biro").allow(["pedido"])]);
    assert_eq!(dump(&rusqlite::Connection::open(&path).unwrap()), before, "still");
}

/// Version 1 of the PostgreSQL tables, frozen, as
/// [`a_version_1_file_gains_profiles_and_keeps_its_records`] for a server.
#[cfg(feature = "postgres")]
#[test]
fn a_version_1_postgres_schema_gains_profiles_and_keeps_its_records() {
    let Some(fresh) = Fresh::postgres() else { return };
    let mut client = ::postgres::Client::connect(&fresh.location, ::postgres::NoTls).unwrap();
    client
        .batch_execute(
            "CREATE TABLE skilldeck_schema (version INTEGER NOT NULL);
             INSERT INTO skilldeck_schema VALUES (1);
             CREATE TABLE skilldeck_skill (
                 id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                 shared BOOLEAN NOT NULL,
                 agent BYTEA NOT NULL,
                 name BYTEA NOT NULL,
                 content BYTEA NOT NULL,
                 updated_at TEXT NOT NULL,
                 UNIQUE (shared, agent, name),
                 CHECK (NOT shared OR agent = '')
             );
             CREATE TABLE skilldeck_skill_version (
                 skill_id BIGINT NOT NULL REFERENCES skilldeck_skill (id) ON DELETE CASCADE,
                 idx INTEGER NOT NULL,
                 content BYTEA NOT NULL,
                 at TEXT NOT NULL,
                 PRIMARY KEY (skill_id, idx)
             );",
        )
        .unwrap();
    for (agent, name, content, history) in old_records() {
        let id: i64 = client
            .query_one(
                "INSERT INTO skilldeck_skill (shared, agent, name, content, updated_at) \
                 VALUES ($1, $2, $3, $4, '2026-01-02T03:04:05Z') RETURNING id",
                &[&agent.is_none(), &agent.unwrap_or_default().as_bytes(), &name.as_bytes(), &content.as_bytes()],
            )
            .unwrap()
            .get(0);
        for (idx, text) in (0_i32..).zip(&history) {
            client
                .execute(
                    "INSERT INTO skilldeck_skill_version VALUES ($1, $2, $3, '2026-01-01T00:00:00Z')",
                    &[&id, &idx, &text.as_bytes()],
                )
                .unwrap();
        }
    }
    let dump = "SELECT concat_ws('|', id, shared, encode(agent, 'hex'), encode(name, 'hex'), encode(content, 'hex'), \
                updated_at) FROM skilldeck_skill UNION ALL SELECT concat_ws('|', skill_id, idx, \
                encode(content, 'hex'), at) FROM skilldeck_skill_version ORDER BY 1";
    let before = fresh.sql(dump);
    assert_eq!(before.len(), 6);

    let store = fresh.open();
    assert_eq!(fresh.sql("SELECT version::text FROM skilldeck_schema"), ["2"]);
    assert_eq!(fresh.sql(dump), before, "byte for byte");
    for (agent, name, content, history) in old_records() {
        let record = store.get(name, agent).unwrap().unwrap();
        assert_eq!((record.content, record.updated_at.as_str()), (content, "2026-01-02T03:04:05Z"));
        assert_eq!(crate::contents(&store.versions(name, agent).unwrap()), history);
    }
    assert_eq!(store.profiles().unwrap(), []);
    store.update_profiles(&mut |all| all.push(AgentProfile::new("biro").allow(["pedido"]))).unwrap();
    drop(store);
    assert_eq!(fresh.open().profiles().unwrap(), [AgentProfile::new("biro").allow(["pedido"])]);
    assert_eq!(fresh.sql(dump), before, "still");
}
