//! Integration tests of the SQLite skill store, on real files in temporary
//! directories.

// A broken fixture should stop a test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use skilldeck::store::{MemoryStore, SkillStore, Version};
use skilldeck_store::SqliteStore;
use tempfile::TempDir;

// Insika's store spec (reference §10.2, items 31-38), history and restore.
mod spec;

// Dropping and reopening the file after every write; the schema and its version.
mod reopen;

// The same random operations on MemoryStore and SqliteStore.
mod differential;

// Two OS processes on one file, and a process killed mid-write.
mod processes;

// Files that are not stores, and records that are hard to store.
mod bad_input;

/// A new store in its own directory (kept alive with it).
fn fresh() -> (TempDir, SqliteStore) {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(dir.path().join("skills.db")).unwrap();
    (dir, store)
}

/// The texts of a history, most recent first.
fn contents(versions: &[Version]) -> Vec<String> {
    versions.iter().map(|v| v.content.clone()).collect()
}

/// Whether `at` is an `updated_at`: `YYYY-MM-DDTHH:MM:SSZ`.
fn is_timestamp(at: &str) -> bool {
    let b = at.as_bytes();
    b.len() == 20
        && b.iter().enumerate().all(|(i, &c)| match i {
            4 | 7 => c == b'-',
            10 => c == b'T',
            13 | 16 => c == b':',
            19 => c == b'Z',
            _ => c.is_ascii_digit(),
        })
}

/// Everything a store shows, for the scopes and keys given, without times.
fn snapshot(store: &dyn SkillStore, agents: &[Option<&str>], names: &[&str]) -> Vec<String> {
    let mut out = vec![format!("agents {:?}", store.agents().unwrap())];
    for &agent in agents {
        let all: Vec<(String, String)> =
            store.all(agent).unwrap().into_iter().map(|(name, record)| (name, record.content)).collect();
        out.push(format!("all {agent:?} {all:?}"));
        out.push(format!("names {agent:?} {:?}", store.names(agent).unwrap()));
        for &name in names {
            let content = store.get(name, agent).unwrap().map(|r| r.content);
            out.push(format!("get {agent:?} {name:?} {content:?}"));
            out.push(format!("versions {agent:?} {name:?} {:?}", contents(&store.versions(name, agent).unwrap())));
        }
    }
    out
}

#[test]
fn byte_order_for_keys_and_agents_matches_memory_store() {
    let (_dir, store) = fresh();
    let memory = MemoryStore::default();
    let names = ["b", "a", "Z", "é", "e", "😀", "ab", "a\0b", "a b", "ß", "~"];
    let agents = [None, Some("zeta"), Some("Émile"), Some("émile"), Some("alpha"), Some("")];
    for s in [&store as &dyn SkillStore, &memory] {
        for agent in agents {
            for name in names {
                s.write(name, &format!("{name} for {agent:?}"), agent, false).unwrap();
            }
        }
    }
    let mut sorted: Vec<String> = names.iter().map(|n| (*n).to_owned()).collect();
    sorted.sort();
    assert_eq!(store.names(None).unwrap(), sorted);
    assert_eq!(store.agents().unwrap(), ["", "alpha", "zeta", "Émile", "émile"]);
    assert_eq!(snapshot(&store, &agents, &names), snapshot(&memory, &agents, &names));
}

#[test]
fn data_version_moves_for_other_connections_writes_only() {
    let dir = tempfile::tempdir().unwrap();
    let mine = SqliteStore::open(dir.path().join("skills.db")).unwrap();
    let theirs = SqliteStore::open(dir.path().join("skills.db")).unwrap();
    let seen = mine.data_version().unwrap();
    mine.write("pedido", "mine", None, false).unwrap();
    assert_eq!(mine.data_version().unwrap(), seen, "own write");
    theirs.write("pedido", "theirs", None, false).unwrap();
    let moved = mine.data_version().unwrap();
    assert_ne!(moved, seen, "other connection's write");
    assert_eq!(mine.data_version().unwrap(), moved, "nothing new");
    assert_eq!(mine.get("pedido", None).unwrap().unwrap().content, "theirs");
}

#[test]
fn threads_share_one_handle() {
    let (_dir, store) = fresh();
    std::thread::scope(|s| {
        for t in 0..4 {
            let store = &store;
            s.spawn(move || {
                for i in 0..10 {
                    store.write(&format!("t{t}-{i}"), "x", Some("biro"), false).unwrap();
                    store.write("shared-key", &format!("t{t}-{i}"), Some("biro"), false).unwrap();
                }
            });
        }
    });
    assert_eq!(store.names(Some("biro")).unwrap().len(), 41);
    assert_eq!(store.versions("shared-key", Some("biro")).unwrap().len(), 20);
}

// The engine's catalog over a SQLite store: overlay, scopes, bad records.
mod catalog;
