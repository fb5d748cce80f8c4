//! Integration tests of the persistent skill stores: SQLite on real files in
//! temporary directories, and PostgreSQL on the server `SKILLDECK_TEST_POSTGRES`
//! names (`scripts/test` starts one), each test in a schema of its own. The
//! bodies that hold for every backend run once per backend.

// A broken fixture should stop a test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use skilldeck::store::Precondition;
use skilldeck::store::{MemoryStore, SkillStore, Version};
use skilldeck_store::SqliteStore;
use tempfile::TempDir;

/// Runs each named body, a `fn(&Fresh)`, once per backend: as
/// `sqlite::NAME` and as `postgres::NAME` (which says it is skipped when no
/// server is given).
macro_rules! on_each_store {
    ($($test:ident),* $(,)?) => {
        mod sqlite {
            $( #[test] fn $test() { super::$test(&crate::Fresh::sqlite()) } )*
        }
        mod postgres {
            $( #[test] fn $test() { if let Some(fresh) = crate::Fresh::postgres() { super::$test(&fresh) } } )*
        }
    };
}

// Insika's store spec (reference §10.2, items 31-38), history and restore.
mod spec;

// Dropping and reopening the store after every write; the schema and its version.
mod reopen;

// The same random operations on MemoryStore and each backend.
mod differential;

// Two OS processes on one store, and a process killed mid-write.
mod processes;

// Files that are not stores, and records that are hard to store.
mod bad_input;

// Agent profiles: shapes, history, refusals, the change token, corrupt rows.
mod profiles;

/// Which backend a [`Fresh`] store is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Backend {
    Sqlite,
    Postgres,
}

/// A new, empty store of one backend: the location that opens it (a file
/// path or a URL), kept alive with its directory.
struct Fresh {
    location: String,
    backend: Backend,
    _dir: TempDir,
}

impl Fresh {
    fn sqlite() -> Fresh {
        let dir = tempfile::tempdir().unwrap();
        let location = dir.path().join("skills.db").to_str().unwrap().to_owned();
        Fresh { location, backend: Backend::Sqlite, _dir: dir }
    }

    /// A store in a new schema of the test server; `None`, said on stderr,
    /// when no server is given.
    fn postgres() -> Option<Fresh> {
        let url = postgres_url()?;
        let schema = postgres_schema(&url);
        let sep = if url.contains('?') { '&' } else { '?' };
        let location = format!("{url}{sep}options=-c%20search_path%3D{schema}&application_name={schema}");
        Some(Fresh { location, backend: Backend::Postgres, _dir: tempfile::tempdir().unwrap() })
    }

    /// A handle on the store, as a host opens it.
    fn open(&self) -> Box<dyn SkillStore> {
        skilldeck_store::open(&self.location).unwrap()
    }

    /// The location the store's errors name: the file, or the server
    /// without the options.
    fn store_location(&self) -> String {
        match self.backend {
            Backend::Sqlite => self.location.clone(),
            Backend::Postgres => postgres_location(&self.location),
        }
    }

    /// Runs `sql`, statements that return no rows, on the backing database:
    /// for what no store call does, such as a row another program wrote.
    fn execute(&self, sql: &str) {
        match self.backend {
            Backend::Sqlite => rusqlite::Connection::open(&self.location).unwrap().execute_batch(sql).unwrap(),
            Backend::Postgres => postgres_execute(&self.location, sql),
        }
    }

    /// Runs `sql` on the backing database and returns the first column of
    /// each row as text: for what no store call shows or does, such as the
    /// order rows were committed in, or a schema from the future.
    fn sql(&self, sql: &str) -> Vec<String> {
        match self.backend {
            Backend::Sqlite => {
                let conn = rusqlite::Connection::open(&self.location).unwrap();
                let mut stmt = conn.prepare(sql).unwrap();
                stmt.query_map([], |row| row.get(0)).unwrap().map(Result::unwrap).collect()
            }
            Backend::Postgres => postgres_sql(&self.location, sql),
        }
    }
}

#[cfg(feature = "postgres")]
fn postgres_schema(url: &str) -> String {
    static SCHEMAS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = SCHEMAS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let schema = format!("t{}_{n}", std::process::id());
    let mut admin = ::postgres::Client::connect(url, ::postgres::NoTls)
        .unwrap_or_else(|e| panic!("SKILLDECK_TEST_POSTGRES={url}: {e}"));
    admin.batch_execute(&format!("DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}")).unwrap();
    schema
}

#[cfg(not(feature = "postgres"))]
fn postgres_schema(_: &str) -> String {
    panic!("SKILLDECK_TEST_POSTGRES is set, but skilldeck-store was built without the `postgres` feature");
}

#[cfg(feature = "postgres")]
fn postgres_sql(location: &str, sql: &str) -> Vec<String> {
    let mut client = ::postgres::Client::connect(location, ::postgres::NoTls).unwrap();
    client.query(sql, &[]).unwrap().iter().map(|row| row.get(0)).collect()
}

#[cfg(feature = "postgres")]
fn postgres_execute(location: &str, sql: &str) {
    ::postgres::Client::connect(location, ::postgres::NoTls).unwrap().batch_execute(sql).unwrap();
}

#[cfg(not(feature = "postgres"))]
fn postgres_execute(_: &str, _: &str) {
    unreachable!("no PostgreSQL store without the feature")
}

#[cfg(feature = "postgres")]
fn postgres_location(location: &str) -> String {
    skilldeck_store::PostgresStore::open(location).unwrap().location().to_owned()
}

#[cfg(not(feature = "postgres"))]
fn postgres_location(_: &str) -> String {
    unreachable!("no PostgreSQL store without the feature")
}

#[cfg(not(feature = "postgres"))]
fn postgres_sql(_: &str, _: &str) -> Vec<String> {
    unreachable!("no PostgreSQL store without the feature")
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

/// Everything a store shows, for the scopes and keys given, and every
/// profile with its history, without times.
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
    for profile in store.profiles().unwrap() {
        let history: Vec<_> = store.profile_versions(&profile.id).unwrap().into_iter().map(|v| v.profile).collect();
        out.push(format!("profile {profile:?} history {history:?}"));
    }
    out
}

fn byte_order_for_keys_and_agents_matches_memory_store(fresh: &Fresh) {
    let store = fresh.open();
    let memory = MemoryStore::default();
    let names = ["b", "a", "Z", "é", "e", "😀", "ab", "a!b", "a b", "ß", "~"];
    let agents = [None, Some("zeta"), Some("Émile"), Some("émile"), Some("alpha"), Some("-")];
    for s in [&*store, &memory as &dyn SkillStore] {
        for agent in agents {
            for name in names {
                s.write(name, &format!("{name} for {agent:?}"), agent, &Precondition::Any).unwrap();
            }
        }
    }
    let mut sorted: Vec<String> = names.iter().map(|n| (*n).to_owned()).collect();
    sorted.sort();
    assert_eq!(store.names(None).unwrap(), sorted);
    assert_eq!(store.agents().unwrap(), ["-", "alpha", "zeta", "Émile", "émile"]);
    assert_eq!(snapshot(&*store, &agents, &names), snapshot(&memory, &agents, &names));
}

/// Another handle's write moves the change token (PostgreSQL hears of it
/// asynchronously, so the test waits up to five seconds), and it then stays.
fn the_change_token_moves_for_another_handles_write(fresh: &Fresh) {
    let (mine, theirs) = (fresh.open(), fresh.open());
    mine.write("pedido", "mine", None, &Precondition::Any).unwrap();
    let seen = mine.change_token().unwrap();
    assert!(seen.is_some(), "{:?} can tell", fresh.backend);
    theirs.write("pedido", "theirs", None, &Precondition::Any).unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    let moved = loop {
        let now = mine.change_token().unwrap();
        if now != seen || std::time::Instant::now() > deadline {
            break now;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    assert_ne!(moved, seen, "another handle's write");
    assert_eq!(mine.change_token().unwrap(), moved, "nothing new");
    assert_eq!(mine.get("pedido", None).unwrap().unwrap().content, "theirs");
}

#[test]
fn sqlite_change_token_stays_for_own_writes() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(dir.path().join("skills.db")).unwrap();
    let seen = store.change_token().unwrap();
    store.write("pedido", "mine", None, &Precondition::Any).unwrap();
    assert_eq!(store.change_token().unwrap(), seen);
}

fn threads_share_one_handle(fresh: &Fresh) {
    let store = fresh.open();
    std::thread::scope(|s| {
        for t in 0..4 {
            let store = &store;
            s.spawn(move || {
                for i in 0..10 {
                    store.write(&format!("t{t}-{i}"), "x", Some("biro"), &Precondition::Any).unwrap();
                    store.write("shared-key", &format!("t{t}-{i}"), Some("biro"), &Precondition::Any).unwrap();
                }
            });
        }
    });
    assert_eq!(store.names(Some("biro")).unwrap().len(), 41);
    assert_eq!(store.versions("shared-key", Some("biro")).unwrap().len(), 20);
}

on_each_store!(
    byte_order_for_keys_and_agents_matches_memory_store,
    the_change_token_moves_for_another_handles_write,
    threads_share_one_handle,
);

// The engine's catalog over each store: overlay, scopes, bad records.
mod catalog;

// The PostgreSQL server of the PostgreSQL variants (`None` when unset, a failure under CI).
mod postgres_url;
use postgres_url::postgres_url;
