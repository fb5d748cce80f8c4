//! A store that cannot be used stops every command with exit 2 and the
//! reason, never an empty catalog and never a hang; a file that is not a
//! skill store is left exactly as it was.

use skilldeck::store::Precondition;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use skilldeck::store::SkillStore;

use crate::{skilldeck, stderr, stdout};

/// How long a command may run before it is killed as hung: a backstop so
/// that a real hang ends the test run, not a check of speed. Ten minutes is
/// past anything load does to a command whose deadline is 2 s; what the tests
/// assert is which deadline ended a command (its message) and how much work
/// it did before (the connections it opened), never how long it took.
const HANG_GUARD: Duration = Duration::from_secs(600);

/// Runs skilldeck with `args`, stdin closed; kills it (and fails the test)
/// if it runs longer than [`HANG_GUARD`].
fn run_guarded(args: &[&str]) -> Output {
    let limit = HANG_GUARD;
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_skilldeck"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            child.kill().unwrap();
            let out = child.wait_with_output().unwrap();
            panic!("skilldeck {args:?} still running after {limit:?}; stderr: {}", stderr(&out));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// Overwrites the page in the middle of a SQLite file with garbage.
fn damage_middle_page(path: &Path) {
    let mut bytes = std::fs::read(path).unwrap();
    let page = usize::from(u16::from_be_bytes([bytes[16], bytes[17]]));
    let middle = bytes.len() / page / 2;
    bytes[middle * page..(middle + 1) * page].fill(0xff);
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn a_corrupt_store_is_exit_2_with_the_reason_for_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    std::fs::create_dir_all(root.join("disk")).unwrap();
    std::fs::write(root.join("disk/SKILL.md"), "---\nname: disk\ndescription: on disk\n---\n").unwrap();
    let store_path = dir.path().join("store.sqlite");
    let store = skilldeck_store::SqliteStore::open(&store_path).unwrap();
    for i in 0..60 {
        let md = format!("---\nname: s{i}\ndescription: stored {i}\n---\n{}\n", "x".repeat(3000));
        store.write(&format!("s{i}"), &md, None, &Precondition::Any).unwrap();
    }
    drop(store);
    damage_middle_page(&store_path);
    let file = dir.path().join("new.md");
    std::fs::write(&file, "---\nname: new\ndescription: new\n---\n").unwrap();

    let (root, store, file) = (root.to_str().unwrap(), store_path.to_str().unwrap(), file.to_str().unwrap());
    let expected = format!("skilldeck: skill store {store}: database disk image is malformed\n");
    for command in [
        &["list"][..],
        &["list", "--json"],
        &["load", "disk"],
        &["prompt"],
        &["inject", "--message", "hi"],
        &["show", "disk"],
        &["serve"],
        &["store", "write", "new", "--file", file],
        &["store", "delete", "s1"],
    ] {
        let args = [command, &["--root", root, "--store", store]].concat();
        let out = run_guarded(&args);
        assert_eq!(
            (out.status.code(), stderr(&out), stdout(&out)),
            (Some(2), expected.clone(), String::new()),
            "{command:?}"
        );
    }
}

#[test]
fn another_programs_database_is_refused_and_left_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("other.db");
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(
        "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('mine');",
    )
    .unwrap();
    drop(conn);
    let before = std::fs::read(&path).unwrap();
    assert_eq!(before[18..20], [1, 1], "a rollback-journal database");

    let out = skilldeck(&["list", "--store", path.to_str().unwrap()]);
    assert_eq!(
        (out.status.code(), stderr(&out)),
        (
            Some(2),
            format!(
                "skilldeck: skill store {}: a SQLite database of another program, not a skill store\n",
                path.display()
            )
        )
    );
    assert_eq!(std::fs::read(&path).unwrap(), before, "byte for byte as it was");
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, ["other.db"], "no -wal, -shm or -journal left beside it");
}

#[test]
fn a_postgres_server_that_never_answers_is_exit_2_at_the_deadline() {
    // Accepts each connection, holds it, and never answers the startup message.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    let accepted = Arc::new(AtomicUsize::new(0));
    let counter = accepted.clone();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in silent.incoming().flatten() {
            counter.fetch_add(1, Ordering::SeqCst);
            held.push(stream);
        }
    });
    let url = format!("postgres://skills:s3cret@127.0.0.1:{port}/skills?connect_timeout=2");
    for (n, command) in [&["list"][..], &["serve"], &["store", "agents"]].into_iter().enumerate() {
        let args = [command, &["--store", &url]].concat();
        let out = run_guarded(&args);
        let expected = format!(
            "skilldeck: skill store postgres://skills@127.0.0.1:{port}/skills: \
             no answer within 2s while connecting (connect_timeout)\n"
        );
        // The message says which deadline ended it; one connection says it waited on
        // that one instead of retrying.
        assert_eq!((out.status.code(), stderr(&out)), (Some(2), expected), "{command:?}");
        // The connection is in the kernel's backlog before the thread counts it.
        let counted = Instant::now();
        while accepted.load(Ordering::SeqCst) <= n && counted.elapsed() < HANG_GUARD {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(accepted.load(Ordering::SeqCst), n + 1, "{command:?} opened one connection");
    }
}

/// A trigger planted in the store that deletes the history on every write
/// (issue 19: `store write` exited 0 with `versions` empty) makes the store
/// a broken one: exit 2 naming the file and the trigger, the file as it was.
#[test]
fn a_store_with_a_planted_trigger_is_exit_2_and_keeps_its_history() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store.sqlite");
    let store = skilldeck_store::SqliteStore::open(&path).unwrap();
    for body in ["v1", "v2"] {
        store.write("greet", &format!("---\nname: greet\n---\n{body}\n"), None, &Precondition::Any).unwrap();
    }
    drop(store);
    let sql = "CREATE TRIGGER purge AFTER UPDATE ON skill BEGIN DELETE FROM skill_version; END";
    rusqlite::Connection::open(&path).unwrap().execute_batch(sql).unwrap();
    let before = std::fs::read(&path).unwrap();
    let file = dir.path().join("v3.md");
    std::fs::write(&file, "---\nname: greet\n---\nv3\n").unwrap();

    let store = path.to_str().unwrap();
    let expected = format!(
        "skilldeck: skill store {store}: holds trigger 'purge', which skilldeck did not make: refusing to use it\n"
    );
    for command in
        [&["store", "write", "greet", "--file", file.to_str().unwrap()][..], &["store", "versions", "greet"], &["list"]]
    {
        let out = run_guarded(&[command, &["--store", store]].concat());
        assert_eq!(
            (out.status.code(), stderr(&out), stdout(&out)),
            (Some(2), expected.clone(), String::new()),
            "{command:?}"
        );
    }
    assert_eq!(std::fs::read(&path).unwrap(), before, "byte for byte as it was");
    let kept: i64 = rusqlite::Connection::open(&path)
        .unwrap()
        .query_row("SELECT count(*) FROM skill_version", [], |row| row.get(0))
        .unwrap();
    assert_eq!(kept, 1, "the history is still there");
}
