//! `skilldeck studio`: the line it prints, the token rule, a save that the
//! other commands then read, and a CLI write the running Studio picks up.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::{examples, skilldeck, stderr, stdout};

/// A running Studio, ended when dropped.
struct Running {
    child: Child,
    addr: String,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(args: &[&str]) -> Running {
    let mut child = Command::new(env!("CARGO_BIN_EXE_skilldeck"))
        .arg("studio")
        .args(args)
        .args(["--listen", "127.0.0.1:0"])
        .stderr(Stdio::piped())
        .spawn()
        .expect("run skilldeck studio");
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let addr = loop {
        let line = lines.next().expect("a line before the studio exits").unwrap();
        if let Some(rest) = line.strip_prefix("skilldeck studio: listening on http://") {
            break rest.strip_suffix('/').expect("a trailing slash").to_owned();
        }
    };
    // Keep draining stderr so the server never blocks on it.
    std::thread::spawn(move || for _ in lines {});
    Running { child, addr }
}

/// One HTTP/1.1 exchange: the status, the raw head and the body.
fn http(addr: &str, request: &str) -> (u16, String, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap();
    let status = head[9..12].parse().unwrap();
    (status, head.to_owned(), body.to_owned())
}

fn get(studio: &Running, path: &str, cookie: &str) -> (u16, String, String) {
    http(
        &studio.addr,
        &format!("GET {path} HTTP/1.1\r\nHost: {}\r\nCookie: {cookie}\r\nConnection: close\r\n\r\n", studio.addr),
    )
}

#[test]
fn studio_serves_the_examples_and_saves_to_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("studio.sqlite");
    let (root, store) = (examples(), store.to_str().unwrap().to_owned());
    let studio = start(&["--root", root.to_str().unwrap(), "--store", &store]);
    let (status, head, body) = get(&studio, "/skills", "");
    assert_eq!(status, 200);
    assert!(body.contains("<a href=\"/skills/hello-world\">hello-world</a>"), "{body}");
    let cookie =
        head.lines().find_map(|l| l.strip_prefix("set-cookie: ")).unwrap().split(';').next().unwrap().to_owned();
    let csrf = cookie.strip_prefix("skilldeck_csrf=").unwrap();
    let form = format!(
        "csrf={csrf}&name=studio-made&began=&content={}",
        "---%0Aname%3A%20studio-made%0Adescription%3A%20From%20the%20Studio.%0A---%0AMade%20in%20the%20browser.%0A"
    );
    let request = format!(
        "POST /skills HTTP/1.1\r\nHost: {addr}\r\nOrigin: http://{addr}\r\nCookie: {cookie}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{form}",
        form.len(),
        addr = studio.addr
    );
    let (status, head, _) = http(&studio.addr, &request);
    assert_eq!(status, 303, "{head}");
    assert!(head.contains("location: /skills/studio-made"), "{head}");
    // Every other command reads what the Studio saved.
    let loaded = skilldeck(&["load", "studio-made", "--store", &store]);
    assert!(stdout(&loaded).contains("Made in the browser."), "{}", stderr(&loaded));
    // And the Studio follows what another program writes to the store.
    let file = dir.path().join("cli.md");
    std::fs::write(&file, "---\nname: from-cli\ndescription: Written by the CLI.\n---\nx\n").unwrap();
    let written = skilldeck(&["store", "write", "from-cli", "--file", file.to_str().unwrap(), "--store", &store]);
    assert_eq!(written.status.code(), Some(0), "{}", stderr(&written));
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let (_, _, body) = get(&studio, "/skills", &cookie);
        if body.contains("<a href=\"/skills/from-cli\">from-cli</a>") {
            break;
        }
        assert!(Instant::now() < deadline, "the Studio never showed the CLI's write");
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn studio_beyond_loopback_needs_a_token() {
    let out = skilldeck(&["studio", "--listen", "0.0.0.0:0", "--root", examples().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "skilldeck: --listen 0.0.0.0:0 listens beyond loopback: give a bearer token with --token or $SKILLDECK_TOKEN\n"
    );
}

#[test]
fn studio_without_a_store_is_read_only() {
    let studio = start(&["--root", examples().to_str().unwrap()]);
    let (status, _, body) = get(&studio, "/skills/hello-world", "");
    assert_eq!(status, 200);
    assert!(body.contains("Read-only: this Studio has no store."), "{body}");
}

/// A port in use is exit 2 with one line, and nothing is made: the address
/// is bound before the store is opened (issue 26, item 8).
#[test]
fn a_busy_port_fails_before_the_store_is_made() {
    let busy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = busy.local_addr().unwrap().to_string();
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("new.sqlite");
    let out = skilldeck(&[
        "studio",
        "--listen",
        &addr,
        "--root",
        dir.path().to_str().unwrap(),
        "--store",
        store.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).starts_with(&format!("skilldeck: cannot listen on {addr}: ")), "{}", stderr(&out));
    assert!(!store.exists(), "the store was made before the bind failed");
}
