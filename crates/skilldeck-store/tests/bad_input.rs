//! Paths that are not stores give a Backend error naming them, never a panic,
//! and leave what is there as it was; records that are hard to store
//! round-trip exactly.

use skilldeck::store::Precondition;
use std::path::Path;

use skilldeck::store::{SkillStore, StoreError};
use skilldeck_store::SqliteStore;

use crate::{Fresh, contents};

/// The error of opening `path`, checked to be a Backend error naming it.
fn refused(path: &Path) -> String {
    let err = SqliteStore::open(path).unwrap_err();
    let StoreError::Backend { location, message, .. } = &err else { panic!("not a backend error: {err:?}") };
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

fn hostile_records_round_trip(fresh: &Fresh) {
    let store = fresh.open();
    let huge: String = "---\nname: huge\n---\n".to_owned() + &"ação 😀 \0 \r\n".repeat(5 * (1 << 20) / 16);
    let longest = "é".repeat(127) + "x";
    let cases: [(&str, Option<&str>, String); 6] = [
        ("huge", None, huge),
        ("nul", Some("nul"), "a\0b\0".to_owned()),
        ("'; DROP TABLE skill; --", Some("\" OR 1=1"), "%_\\'".to_owned()),
        ("...", Some("a\\b"), "\u{feff}---\nname: x\n---\n".to_owned()),
        ("é", Some("😀"), "\u{10ffff}\u{0}\u{7f}".to_owned()),
        (&longest, Some(&longest), String::new()),
    ];
    for (name, agent, content) in &cases {
        store.write(name, content, *agent, &Precondition::Any).unwrap();
        store.write(name, &format!("{content}!"), *agent, &Precondition::Any).unwrap();
    }
    drop(store);
    let store = fresh.open();
    for (name, agent, content) in &cases {
        assert_eq!(store.get(name, *agent).unwrap().unwrap().content, format!("{content}!"), "{name:?}");
        assert_eq!(contents(&store.versions(name, *agent).unwrap()), [content.as_str()], "{name:?}");
        assert_eq!(store.restore(name, 0, *agent).unwrap().content, *content, "{name:?}");
    }
    assert_eq!(store.agents().unwrap(), ["\" OR 1=1", "a\\b", "nul", longest.as_str(), "😀"]);
    assert_eq!(store.names(None).unwrap(), ["huge"]);
    assert_eq!(store.names(Some("nul")).unwrap(), ["nul"]);
    assert!(store.delete("nul", Some("nul")).unwrap());
}

/// The names no record or profile may have, with what the store says.
const REFUSED_NAMES: [(&str, &str); 9] = [
    ("", "name is required"),
    (" \t", "name is required"),
    ("nul\0name", "a skill name cannot contain U+0000, a control character"),
    ("two\nlines", "a skill name cannot contain U+000A, a control character"),
    ("evil\u{202E}txt.exe", "a skill name cannot contain U+202E, a format character"),
    ("\u{FEFF}bom", "a skill name cannot contain U+FEFF, a format character"),
    (" padded ", "a skill name cannot start or end with whitespace"),
    ("..", "a skill name cannot be '.' or '..'"),
    ("../../etc/passwd", "a skill name cannot contain '/'"),
];

/// Every name the rule refuses is refused by the store itself, on every
/// write, restore and profile update, as a skill's name or as an agent's
/// id, whoever calls it: nothing is written, and every good record stays.
fn refused_names_are_never_stored(fresh: &Fresh) {
    let store = fresh.open();
    store.write("pedido", "v1", Some("loja"), &Precondition::Any).unwrap();
    store.write("pedido", "v2", Some("loja"), &Precondition::Any).unwrap();
    store.update_profiles(&mut |all| all.push(skilldeck::AgentProfile::new("loja"))).unwrap();
    let token = store.change_token().unwrap();
    let long = "x".repeat(256);
    let long_text = "a skill name is at most 255 bytes long; this one is 256".to_owned();
    let cases = REFUSED_NAMES.iter().map(|&(name, text)| (name, text.to_owned())).chain([(long.as_str(), long_text)]);
    for (bad, text) in cases {
        let as_agent = text.replace("a skill name", "an agent id").replace("name is required", "id is required");
        let invalid = |result: Result<skilldeck::store::Record, StoreError>, expected: &str| {
            let err = result.unwrap_err();
            assert!(matches!(err, StoreError::InvalidName(_)), "{bad:?}: {err:?}");
            assert_eq!(err.to_string(), expected, "{bad:?}");
        };
        for precondition in [Precondition::Any, Precondition::Absent] {
            invalid(store.write(bad, "text", None, &precondition), &text);
            invalid(store.write(bad, "text", Some("loja"), &precondition), &text);
            invalid(store.write("pedido", "text", Some(bad), &precondition), &as_agent);
        }
        invalid(store.restore(bad, 0, None), &text);
        invalid(store.restore("pedido", 0, Some(bad)), &as_agent);
        let err = store.update_profiles(&mut |all| all.push(skilldeck::AgentProfile::new(bad))).unwrap_err();
        assert!(matches!(err, StoreError::InvalidName(_)), "{bad:?}: {err:?}");
        assert_eq!(err.to_string(), as_agent, "{bad:?}");
    }
    assert_eq!(store.names(None).unwrap(), Vec::<String>::new(), "nothing written");
    assert_eq!(store.agents().unwrap(), ["loja"]);
    assert_eq!(store.get("pedido", Some("loja")).unwrap().unwrap().content, "v2");
    assert_eq!(contents(&store.versions("pedido", Some("loja")).unwrap()), ["v1"]);
    let ids: Vec<String> = store.profiles().unwrap().into_iter().map(|p| p.id).collect();
    assert_eq!(ids, ["loja"]);
    if fresh.backend == crate::Backend::Sqlite {
        assert_eq!(store.change_token().unwrap(), token, "nothing committed");
    }
}

on_each_store!(hostile_records_round_trip, refused_names_are_never_stored);

/// `MemoryStore` follows the same rule, through the same shared checks.
#[test]
fn memory_store_refuses_the_same_names() {
    let store = skilldeck::store::MemoryStore::default();
    for (bad, text) in REFUSED_NAMES {
        let err = store.write(bad, "text", None, &Precondition::Any).unwrap_err();
        assert!(matches!(err, StoreError::InvalidName(_)) && err.to_string() == text, "{bad:?}: {err}");
        assert!(matches!(store.restore(bad, 0, None), Err(StoreError::InvalidName(_))), "{bad:?}");
        assert!(matches!(store.write("ok", "text", Some(bad), &Precondition::Any), Err(StoreError::InvalidName(_))));
        let err = store.update_profiles(&mut |all| all.push(skilldeck::AgentProfile::new(bad))).unwrap_err();
        assert!(matches!(err, StoreError::InvalidName(_)), "{bad:?}: {err}");
    }
    assert!(store.names(None).unwrap().is_empty() && store.agents().unwrap().is_empty());
    assert!(store.profiles().unwrap().is_empty());
}

/// A server that is not there, a database that is not there, a URL that does
/// not parse: each a `Backend` error naming the server without the password
/// (a refused connection, not a wait for a deadline).
#[cfg(feature = "postgres")]
#[test]
fn unreachable_postgres_is_a_typed_error_naming_the_server() {
    use skilldeck_store::PostgresStore;
    let refused = |url: &str| PostgresStore::open(url).expect_err("refused").to_string();
    // Port 1 on loopback: nothing listens there.
    let err = refused("postgres://skills:s3cret@127.0.0.1:1/skills");
    assert_eq!(
        err,
        "skill store postgres://skills@127.0.0.1:1/skills: error connecting to server: Connection refused (os error 111)"
    );
    assert_eq!(
        refused("postgres://u@127.0.0.1:1/x?connect_timeout=not-a-number"),
        "skill store PostgreSQL URL: invalid connection string: invalid value for option `connect_timeout`"
    );
    let Ok(url) = std::env::var("SKILLDECK_TEST_POSTGRES") else { return };
    let (base, _) = url.rsplit_once('/').unwrap();
    let err = refused(&format!("{base}/no_such_database"));
    assert!(err.ends_with("/no_such_database: FATAL: database \"no_such_database\" does not exist"), "{err}");
}

/// The server ends the connection (a restart, an admin): the next read
/// connects again and answers, a write after that works, and the change
/// token moves, since notifications may have been missed meanwhile.
#[test]
fn a_lost_postgres_connection_is_opened_again() {
    let Some(fresh) = Fresh::postgres() else { return };
    let store = fresh.open();
    store.write("pedido", "v1", None, &Precondition::Any).unwrap();
    let seen = store.change_token().unwrap();
    // The fresh store's URL names its connections after its schema; the
    // timeout makes the call wait until the connection is really gone.
    let ended = fresh.sql(
        "SELECT pg_terminate_backend(pid, 5000)::text FROM pg_stat_activity \
         WHERE application_name = current_setting('application_name') AND pid <> pg_backend_pid()",
    );
    assert_eq!(ended, ["true"]);
    assert_eq!(store.get("pedido", None).unwrap().unwrap().content, "v1");
    assert_ne!(store.change_token().unwrap(), seen);
    store.write("pedido", "v2", None, &Precondition::Any).unwrap();
    assert_eq!(store.versions("pedido", None).unwrap()[0].content, "v1");
}

/// A server that accepts the connection and never answers (frozen, or not
/// PostgreSQL at all): opening fails once the deadline passes (the URL's
/// `connect_timeout`, else `CONNECT_TIMEOUT`), saying so, instead of waiting
/// for the handshake forever.
#[cfg(feature = "postgres")]
#[test]
fn a_server_that_never_answers_is_refused_at_the_deadline() {
    use std::time::{Duration, Instant};

    use skilldeck_store::{CONNECT_TIMEOUT, PostgresStore};

    // The kernel completes the TCP handshake into the backlog; nothing ever
    // reads the startup message or answers it.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    for (query, deadline) in [("?connect_timeout=1", Duration::from_secs(1)), ("", CONNECT_TIMEOUT)] {
        let started = Instant::now();
        let err = PostgresStore::open(&format!("postgres://u:pw@127.0.0.1:{port}/db{query}")).unwrap_err();
        let waited = started.elapsed();
        assert_eq!(
            err.to_string(),
            format!(
                "skill store postgres://u@127.0.0.1:{port}/db: no answer within {deadline:?} while connecting (connect_timeout)"
            )
        );
        // Not cut short (load only adds time); the message names the deadline that ended it.
        assert!(waited >= deadline, "waited {waited:?}");
    }
}

/// The server stops answering in the middle of a connection (its backend is
/// stopped with SIGSTOP): the call fails at `CALL_TIMEOUT` and drops the
/// connection; once the server answers again, the next call connects anew.
#[test]
fn a_server_that_stops_answering_fails_the_call_at_the_deadline() {
    use std::time::Instant;

    use skilldeck_store::CALL_TIMEOUT;

    let Some(fresh) = Fresh::postgres() else { return };
    let store = fresh.open();
    store.write("pedido", "v1", None, &Precondition::Any).unwrap();
    let backend = fresh.sql(
        "SELECT pid::text FROM pg_stat_activity \
         WHERE application_name = current_setting('application_name') AND pid <> pg_backend_pid()",
    );
    assert_eq!(backend.len(), 1, "{backend:?}");
    let signal = |sig: &str| {
        let sent = std::process::Command::new("kill").args([sig, &backend[0]]).status().unwrap();
        assert!(sent.success(), "kill {sig} {}", backend[0]);
    };
    signal("-STOP");
    let started = Instant::now();
    let err = store.get("pedido", None).map(|_| ()).unwrap_err().to_string();
    let waited = started.elapsed();
    signal("-CONT");
    assert!(err.ends_with(&format!(": no answer within {CALL_TIMEOUT:?}; the connection was dropped")), "{err}");
    // Not cut short (load only adds time); the message names the deadline that ended it.
    assert!(waited >= CALL_TIMEOUT, "waited {waited:?}");
    assert_eq!(store.get("pedido", None).unwrap().unwrap().content, "v1");
}

#[test]
fn a_drivers_error_is_kept_as_the_source() {
    use std::error::Error;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("skills.db");
    std::fs::write(&path, "not a database\n".repeat(500)).unwrap();
    let err = SqliteStore::open(&path).unwrap_err();
    let source = err.source().expect("the driver's error is kept");
    let sqlite = source.downcast_ref::<rusqlite::Error>().expect("a rusqlite error");
    assert_eq!(sqlite.sqlite_error_code(), Some(rusqlite::ErrorCode::NotADatabase));
    // The store's own words carry no source.
    assert!(StoreError::backend("x", "y").source().is_none());
    #[cfg(feature = "postgres")]
    {
        let err = skilldeck_store::PostgresStore::open("postgres://user@host:notaport/db").unwrap_err();
        assert!(err.to_string().starts_with("skill store PostgreSQL URL: "), "{err}");
        assert!(err.source().and_then(|s| s.downcast_ref::<tokio_postgres::Error>()).is_some());
    }
}

/// A store whose schema another program added to is refused when opened,
/// before anything is written: a trigger that deletes the history (which
/// would make every write lose it), and a view, a table and an index. The
/// error names the file and the object, and the file stays byte for byte.
#[test]
fn a_sqlite_store_with_objects_skilldeck_did_not_make_is_refused_and_left_alone() {
    use std::error::Error;

    use skilldeck_store::ForeignSchema;

    let planted = [
        ("trigger", "purge", "CREATE TRIGGER purge AFTER UPDATE ON skill BEGIN DELETE FROM skill_version; END"),
        ("view", "everything", "CREATE VIEW everything AS SELECT * FROM skill"),
        ("table", "loot", "CREATE TABLE loot (x)"),
        ("index", "by_content", "CREATE INDEX by_content ON skill (content)"),
    ];
    for (kind, name, sql) in planted {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("skills.db");
        let store = SqliteStore::open(&path).unwrap();
        store.write("pedido", "---\nname: pedido\n---\nv1\n", None, &Precondition::Any).unwrap();
        store.write("pedido", "---\nname: pedido\n---\nv2\n", None, &Precondition::Any).unwrap();
        drop(store);
        rusqlite::Connection::open(&path).unwrap().execute_batch(sql).unwrap();
        let files = |dir: &Path| {
            let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
                .unwrap()
                .map(|e| e.unwrap().path())
                .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
                .collect();
            files.sort();
            files
        };
        let before = files(dir.path());

        let err = SqliteStore::open(&path).unwrap_err();
        let StoreError::Backend { location, .. } = &err else { panic!("not a backend error: {err:?}") };
        assert_eq!(location, &path.display().to_string());
        let expected = format!(
            "skill store {}: holds {kind} '{name}', which skilldeck did not make: refusing to use it",
            path.display()
        );
        assert_eq!(err.to_string(), expected);
        let why = err.source().and_then(|s| s.downcast_ref::<ForeignSchema>());
        assert_eq!(why, Some(&ForeignSchema::Foreign { kind: kind.into(), name: name.into() }));
        assert_eq!(files(dir.path()), before, "{kind}: the file is as it was");
        let history = rusqlite::Connection::open(&path)
            .unwrap()
            .query_row("SELECT count(*) FROM skill_version", [], |row| row.get::<_, i64>(0))
            .unwrap();
        assert_eq!(history, 1, "{kind}: the history is still there");
    }
}

/// A trigger planted while a store is open (another process on the file)
/// runs in no write: the write finds the schema changed, checks it again
/// under the write lock and refuses, and the history stays.
#[test]
fn a_trigger_planted_while_open_runs_in_no_write() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("skills.db");
    let store = SqliteStore::open(&path).unwrap();
    store.write("pedido", "v1", None, &Precondition::Any).unwrap();
    store.write("pedido", "v2", None, &Precondition::Any).unwrap();
    let other = rusqlite::Connection::open(&path).unwrap();
    other.execute_batch("CREATE TRIGGER purge AFTER UPDATE ON skill BEGIN DELETE FROM skill_version; END").unwrap();
    let err = store.write("pedido", "v3", None, &Precondition::Any).unwrap_err().to_string();
    assert!(err.ends_with(": holds trigger 'purge', which skilldeck did not make: refusing to use it"), "{err}");
    assert!(store.restore("pedido", 0, None).is_err(), "a restore writes too");
    assert_eq!(contents(&store.versions("pedido", None).unwrap()), ["v1"]);
    assert_eq!(store.get("pedido", None).unwrap().unwrap().content, "v2");
    // Taken away again, the store writes as before.
    other.execute_batch("DROP TRIGGER purge").unwrap();
    store.write("pedido", "v3", None, &Precondition::Any).unwrap();
    assert_eq!(contents(&store.versions("pedido", None).unwrap()), ["v2", "v1"]);
}

/// Renaming a table and back (SQLite then quotes its name in the schema)
/// leaves the store skilldeck's; a table changed or gone does not.
#[test]
fn a_changed_sqlite_schema_is_refused_by_name() {
    use std::error::Error;

    use skilldeck_store::ForeignSchema;

    let changes = [
        ("ALTER TABLE skill RENAME TO away; ALTER TABLE away RENAME TO skill", None),
        ("ALTER TABLE skill ADD COLUMN extra TEXT", Some(("table", "skill"))),
        ("DROP INDEX skill_shared_name", Some(("index", "skill_shared_name"))),
        (
            "DROP INDEX skill_agent_name; CREATE INDEX skill_agent_name ON skill (agent, name)",
            Some(("index", "skill_agent_name")),
        ),
    ];
    for (sql, refused) in changes {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("skills.db");
        drop(SqliteStore::open(&path).unwrap());
        rusqlite::Connection::open(&path).unwrap().execute_batch(sql).unwrap();
        let opened = SqliteStore::open(&path);
        match refused {
            None => assert!(opened.is_ok(), "{sql}: {:?}", opened.err()),
            Some((kind, name)) => {
                let err = opened.unwrap_err();
                let why = err.source().and_then(|s| s.downcast_ref::<ForeignSchema>());
                assert_eq!(why, Some(&ForeignSchema::Changed { kind: kind.into(), name: name.into() }), "{sql}");
                assert!(
                    err.to_string()
                        .ends_with(&format!("its {kind} '{name}' is not as skilldeck made it: refusing to use it"))
                );
            }
        }
    }
}

/// Every call has a deadline, kept by a progress handler: a call still
/// running when it passes is interrupted with a typed error, whatever it
/// was doing, and the store answers again after it. (A zero deadline stands
/// for a slow call: the assertion is on the error, not on a time.)
#[test]
fn a_sqlite_call_past_its_deadline_is_interrupted() {
    use std::error::Error;
    use std::time::Duration;

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("skills.db");
    let store = SqliteStore::open(&path).unwrap();
    for i in 0..300 {
        store.write(&format!("s{i:03}"), &"x".repeat(100), None, &Precondition::Any).unwrap();
    }
    let ids = || (0..300).map(|i| skilldeck::AgentProfile::new(format!("a{i:03}")));
    store.update_profiles(&mut |all| all.extend(ids())).unwrap();
    let late = store.with_call_timeout(Duration::ZERO);
    let interrupted = |err: StoreError| {
        let StoreError::Backend { location, message, .. } = &err else { panic!("not a backend error: {err:?}") };
        assert_eq!(location, &path.display().to_string());
        assert_eq!(message, "a call ran past its deadline (0ns) and was interrupted");
        let sqlite = err.source().and_then(|s| s.downcast_ref::<rusqlite::Error>()).unwrap();
        assert_eq!(sqlite.sqlite_error_code(), Some(rusqlite::ErrorCode::OperationInterrupted));
    };
    interrupted(late.all(None).unwrap_err());
    // A write is interrupted inside its transaction, which is then rolled back.
    interrupted(late.update_profiles(&mut |all| all.push(skilldeck::AgentProfile::new("new"))).unwrap_err());
    let store = late.with_call_timeout(skilldeck_store::CALL_TIMEOUT);
    assert_eq!(store.all(None).unwrap().len(), 300, "the store answers again");
    let kept: Vec<String> = store.profiles().unwrap().into_iter().map(|p| p.id).collect();
    assert_eq!(kept, ids().map(|p| p.id).collect::<Vec<_>>(), "the interrupted write left nothing");
}
