//! Output that cannot be written: a full stderr (`2>/dev/full`), a full
//! stdout. Every command still ends with its own exit code (2 or 1), never
//! a panic (101). (A reader that went, `list | head -1`, is
//! `a_closed_pipe_ends_quietly_with_0`.)

use std::path::Path;
use std::process::{Command, Stdio};

use crate::examples;

/// `/dev/full` opened for writing: every write fails with ENOSPC.
fn full() -> Option<std::fs::File> {
    std::fs::OpenOptions::new().write(true).open("/dev/full").ok()
}

/// Runs skilldeck with `args`, stdin empty, stderr (and, with
/// `stdout_full`, stdout too) on `/dev/full`; its exit code.
fn exit_with_full(args: &[&str], stdout_full: bool, dir: &Path) -> Option<i32> {
    let err = full().unwrap();
    let out: Stdio = if stdout_full { full().unwrap().into() } else { Stdio::null() };
    let status = Command::new(env!("CARGO_BIN_EXE_skilldeck"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .status()
        .unwrap();
    status.code()
}

#[test]
fn a_stderr_that_cannot_be_written_never_panics() {
    if full().is_none() {
        eprintln!("skipped: no /dev/full on this system");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("broken.sqlite");
    std::fs::write(&broken, "not a database ".repeat(400)).unwrap();
    let skill = dir.path().join("skill.md");
    std::fs::write(&skill, "---\nname: greet\ndescription: d\n---\nHi.\n").unwrap();
    let (broken, skill) = (broken.to_str().unwrap(), skill.to_str().unwrap());
    let examples = examples();
    let examples = examples.to_str().unwrap();
    let store = dir.path().join("store.sqlite");
    let store = store.to_str().unwrap();
    let cases: [(&[&str], i32); 9] = [
        // The case: a broken store's reason cannot be printed.
        (&["--store", broken, "store", "write", "greet", "--file", skill], 2),
        (&["--store", broken, "list"], 2),
        // A refusal (exit 1) and a usage error (clap's, exit 2).
        (&["--store", store, "store", "write", " ", "--file", skill], 1),
        (&["list", "--no-such-flag"], 2),
        // Not found: the message goes to stderr.
        (&["--root", examples, "show", "nope"], 1),
        // The warnings of a catalog, and the `tracing` line of a relative root.
        (&["--root", "missing-dir", "list"], 2),
        (&["--root", ".", "list"], 0),
        (&["--root", examples, "prompt", "--budget", "100c", "--report"], 0),
        (&["--root", examples, "search", "zzzz-nothing-matches"], 1),
    ];
    for (args, code) in cases {
        assert_eq!(exit_with_full(args, false, dir.path()), Some(code), "{args:?}");
    }
    // stdout full too: the command's own error, exit 2, and nowhere to say it.
    assert_eq!(exit_with_full(&["--root", examples, "list"], true, dir.path()), Some(2));
    assert_eq!(exit_with_full(&["--root", examples, "list", "--json"], true, dir.path()), Some(2));
}
