//! A token guards an HTTP surface only if it is one: blank or short ones are
//! refused by `serve --http` and `studio` alike, exit 2, before listening.

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::{examples, stderr};

/// `skilldeck ARGS` with `SKILLDECK_TOKEN` as given (unset for `None`),
/// killed after 20 s: a server that took the token would listen for ever.
fn run_bounded(args: &[&str], env_token: Option<&str>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_skilldeck"));
    command.args(args).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    match env_token {
        Some(token) => command.env("SKILLDECK_TOKEN", token),
        None => command.env_remove("SKILLDECK_TOKEN"),
    };
    let mut child = command.spawn().expect("run skilldeck");
    let deadline = Instant::now() + Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            child.kill().unwrap();
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

const RULE: &str = "a token holds at least 16 bytes (make one with `openssl rand -hex 32`)";

#[test]
fn blank_and_short_tokens_are_refused_by_both_http_surfaces() {
    let root = examples();
    let root = root.to_str().unwrap();
    let cases: [(&[&str], &str); 4] = [
        (&["serve", "--http", "0.0.0.0:0", "--token", "   "], "--token is blank"),
        (&["serve", "--http", "127.0.0.1:0", "--token", "s3cret"], "--token is 6 bytes long"),
        (&["studio", "--listen", "0.0.0.0:0", "--token", " \t "], "--token is blank"),
        (&["studio", "--listen", "127.0.0.1:0", "--token", " fifteen-bytes!! "], "--token is 15 bytes long"),
    ];
    for (args, why) in cases {
        let out = run_bounded(&[args, &["--root", root]].concat(), None);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert_eq!(stderr(&out), format!("skilldeck: {why}; {RULE}\n"), "{args:?}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn a_short_token_in_the_environment_is_named_as_such() {
    let root = examples();
    let root = root.to_str().unwrap();
    for args in [&["serve", "--http", "127.0.0.1:0"][..], &["studio", "--listen", "127.0.0.1:0"]] {
        let out = run_bounded(&[args, &["--root", root]].concat(), Some("tok"));
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert_eq!(stderr(&out), format!("skilldeck: $SKILLDECK_TOKEN is 3 bytes long; {RULE}\n"), "{args:?}");
    }
}

#[test]
fn an_empty_token_is_none_and_stdio_reads_no_token() {
    let root = examples();
    let root = root.to_str().unwrap();
    // Empty is "not given": beyond loopback that is the missing-token error, not a short one.
    let out = run_bounded(&["studio", "--listen", "0.0.0.0:0", "--token", "", "--root", root], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("listens beyond loopback: give a bearer token"), "{}", stderr(&out));
    // Over stdio no token is used, so a short one in the environment is no error.
    let out = run_bounded(&["serve", "--root", root], Some("tok"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}
