//! Several OS processes on one store. The children are this test binary run
//! again on the `child` test, which does nothing unless `SKILLDECK_STORE_CHILD`
//! tells it a job; a child reports on stdout in lines starting with `@@`.

use skilldeck::store::Precondition;
use std::io::{BufRead, BufReader, Lines, Write};
use std::process::{Child, ChildStdout, Command, Stdio};

use skilldeck::store::HISTORY_CAP;

use crate::{Backend, Fresh, contents};

const JOB: &str = "SKILLDECK_STORE_CHILD";

/// The child side: `JOB` is `job\tlocation\targs…`.
#[test]
fn child() {
    let Ok(job) = std::env::var(JOB) else { return };
    let fields: Vec<&str> = job.split('\t').collect();
    let store = skilldeck_store::open(fields[1]).unwrap();
    let report = |line: String| {
        let mut out = std::io::stdout().lock();
        writeln!(out, "@@{line}").unwrap();
        out.flush().unwrap();
    };
    match fields[0] {
        // writer LOCATION AGENT PREFIX N: N different skills of one agent.
        "writer" => {
            let (agent, prefix, n): (&str, &str, usize) = (fields[2], fields[3], fields[4].parse().unwrap());
            report("ready".into());
            std::io::stdin().lines().next().unwrap().unwrap();
            for i in 0..n {
                store
                    .write(
                        &format!("{prefix}-{i:03}"),
                        &format!("content of {prefix}-{i}"),
                        Some(agent),
                        &Precondition::Any,
                    )
                    .unwrap();
                pause();
            }
        }
        // same LOCATION TAG N: one key, N times.
        "same" => {
            let (tag, n): (&str, usize) = (fields[2], fields[3].parse().unwrap());
            report("ready".into());
            std::io::stdin().lines().next().unwrap().unwrap();
            for i in 0..n {
                store.write("same", &format!("{tag}-{i:03}"), None, &Precondition::Any).unwrap();
                pause();
            }
        }
        // big LOCATION: big versions of one key, from the one after the current, until killed (200 at most).
        "big" => {
            let first = store.get("big", None).unwrap().map_or(0, |r| big_version(&r.content) + 1);
            for i in first..first + 200 {
                store.write("big", &big(i), None, &Precondition::Any).unwrap();
                report(format!("wrote {i}"));
            }
        }
        other => panic!("unknown child job {other:?}"),
    }
}

/// A breath between two writes: a writer that starts its next transaction
/// the moment it commits can keep the lock until it is done, and then the
/// writers would take turns by process, not by write.
fn pause() {
    std::thread::sleep(std::time::Duration::from_millis(1));
}

/// How often the writer changes along `writers`, in commit order.
fn turns(writers: &[String]) -> usize {
    writers.windows(2).filter(|w| w[0] != w[1]).count()
}

/// A child process, killed if the test ends before it does.
struct Kid {
    child: Child,
    lines: Lines<BufReader<ChildStdout>>,
}

impl Kid {
    fn spawn(job: &[&str]) -> Kid {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args(["processes::child", "--exact", "--nocapture", "--test-threads=1", "-q"])
            .env(JOB, job.join("\t"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let lines = BufReader::new(child.stdout.take().unwrap()).lines();
        Kid { child, lines }
    }

    /// The next report, without its `@@`; `None` when the child is gone.
    fn report(&mut self) -> Option<String> {
        self.lines
            .by_ref()
            .map_while(Result::ok)
            .find_map(|line| line.split_once("@@").map(|(_, report)| report.to_owned()))
    }

    fn go(&mut self) {
        writeln!(self.child.stdin.as_mut().unwrap(), "go").unwrap();
    }

    fn finish(mut self) {
        let status = self.child.wait().unwrap();
        assert!(status.success(), "child failed: {status}");
    }
}

impl Drop for Kid {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts the jobs, lets them all open the file, then sets them off together.
fn race(jobs: &[&[&str]]) {
    let mut kids: Vec<Kid> = jobs.iter().map(|job| Kid::spawn(job)).collect();
    for kid in &mut kids {
        assert_eq!(kid.report().as_deref(), Some("ready"));
    }
    for kid in &mut kids {
        kid.go();
    }
    for kid in kids {
        kid.finish();
    }
}

fn two_processes_writing_one_agent_lose_nothing(fresh: &Fresh) {
    let p = fresh.location.as_str();
    // Both children create the store at once, too.
    race(&[&["writer", p, "biro", "left", "200"], &["writer", p, "biro", "right", "200"]]);
    let store = fresh.open();
    let all = store.all(Some("biro")).unwrap();
    assert_eq!(all.len(), 400);
    // Row ids are given in commit order: the two writers really did take turns.
    let writers = fresh.sql(match fresh.backend {
        Backend::Sqlite => "SELECT substr(name, 1, 4) FROM skill ORDER BY id",
        Backend::Postgres => "SELECT convert_from(substr(name, 1, 4), 'UTF8') FROM skilldeck_skill ORDER BY id",
    });
    assert!(turns(&writers) >= 2, "the writes did not interleave: {}", writers.concat());
    for prefix in ["left", "right"] {
        for i in 0..200 {
            let record = store.get(&format!("{prefix}-{i:03}"), Some("biro")).unwrap().unwrap();
            assert_eq!(record.content, format!("content of {prefix}-{i}"));
        }
    }
    assert_eq!(store.agents().unwrap(), ["biro"]);
    assert!(store.names(None).unwrap().is_empty());
}

fn two_processes_writing_one_key_keep_a_whole_history(fresh: &Fresh) {
    let p = fresh.location.as_str();
    race(&[&["same", p, "left", "100"], &["same", p, "right", "100"]]);
    let store = fresh.open();
    let current = store.get("same", None).unwrap().unwrap().content;
    assert!(current == "left-099" || current == "right-099", "the last write wins: {current}");
    let history = contents(&store.versions("same", None).unwrap());
    assert_eq!(history.len(), HISTORY_CAP);
    // Newest first: each process's own writes appear in the order it made them.
    let mut seen = vec![current];
    seen.extend(history);
    for tag in ["left", "right"] {
        let mine: Vec<u32> = seen
            .iter()
            .filter_map(|c| c.strip_prefix(tag).and_then(|n| n.strip_prefix('-')).map(|n| n.parse().unwrap()))
            .collect();
        assert!(mine.windows(2).all(|w| w[0] > w[1]), "{tag}: {mine:?}");
    }
    assert!(seen.iter().all(|c| c.starts_with("left-") || c.starts_with("right-")));
}

/// Version `i` of the big record: 1 MiB, a header naming `i`, then one letter.
fn big(i: u32) -> String {
    let mut text = format!("big {i:06}\n");
    let letter = char::from(b'a' + u8::try_from(i % 26).unwrap());
    text.extend(std::iter::repeat_n(letter, (1 << 20) - text.len()));
    text
}

fn big_version(content: &str) -> u32 {
    content[4..10].parse().unwrap()
}

fn a_write_killed_midway_leaves_whole_versions(fresh: &Fresh) {
    let mut acknowledged = None;
    for round in 0..3 {
        let mut kid = Kid::spawn(&["big", &fresh.location]);
        // Let it finish a few writes, then kill it while it is in the next one.
        let mut done = 0;
        while done < 3 {
            let line = kid.report().expect("child ended early");
            acknowledged = Some(line.strip_prefix("wrote ").unwrap().parse::<u32>().unwrap());
            done += 1;
        }
        kid.child.kill().unwrap();
        kid.child.wait().unwrap();
        drop(kid);

        let store = fresh.open();
        let current = store.get("big", None).unwrap().unwrap().content;
        let n = big_version(&current);
        assert_eq!(current, big(n), "round {round}: current version {n} is whole");
        let last = acknowledged.unwrap();
        assert!(n >= last, "round {round}: version {last} was acknowledged, the store has {n}");
        let history = store.versions("big", None).unwrap();
        assert_eq!(history.len(), usize::try_from(n).unwrap().min(HISTORY_CAP), "round {round}");
        for (k, version) in (1..).zip(&history) {
            assert!(version.content == big(n - k), "round {round}: history entry {k} is version {}", n - k);
        }
    }
}

on_each_store!(
    two_processes_writing_one_agent_lose_nothing,
    two_processes_writing_one_key_keep_a_whole_history,
    a_write_killed_midway_leaves_whole_versions,
);
