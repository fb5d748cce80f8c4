//! The `skilldeck` binary, run as a user runs it, on the bundled example tree
//! and on trees made by the tests.

// A broken fixture should stop a test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

// validate and show, against the real agentskills CLI (skills-ref 0.1.1).
mod validate;

// Stores that cannot be used: corrupt, another program's, a server that never answers.
mod broken_store;

// Agent profiles in the store: the store commands, --agent and doctor reading them.
mod profiles;

// search: lines, JSON, batches, agents, exit codes.
mod search;

// No root: the conventional places; relative roots; an empty catalog.
mod roots;

// Warnings on stderr: the first few and a count, all with --verbose, all in list --json.
mod warnings;

// skilldeck studio: the line it prints, the token rule, saves other commands read.
mod studio;

// The name rule and a text's own name, for what the store commands write.
mod names;

// Output that cannot be written (a full stderr, a closed pipe): an exit code, never a panic.
mod output;

// Blank and short tokens refused by serve --http and studio.
mod tokens;

// audit: lines, JSON, SARIF, --fail-on, --allow, roots.
mod audit;

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/skills").canonicalize().expect("examples/skills")
}

fn skilldeck(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skilldeck")).args(args).output().expect("run skilldeck")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("utf-8 stdout")
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).expect("utf-8 stderr")
}

#[test]
fn load_prints_exactly_the_tool_output_and_exits_0() {
    let root = examples();
    let out = skilldeck(&["load", "hello-world", "--root", root.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let dir = root.join("hello-world").display().to_string();
    let body = std::fs::read_to_string(root.join("hello-world/SKILL.md")).expect("read");
    let body = body.split_once("\n---\n").expect("fences").1.trim();
    let expected = format!(
        "<skill_content name=\"hello-world\">\n# Skill: hello-world\n\n{body}\n\nBase directory for this skill: file://{dir}\n\
         Relative paths in this skill (e.g., scripts/, reference/) are relative to this base directory.\n\
         Note: file list is sampled.\n\n<skill_files>\n<file>{dir}/scripts/greet.sh</file>\n</skill_files>\n</skill_content>"
    );
    assert_eq!(stdout(&out), expected);
    assert_eq!(stderr(&out), "");
}

#[test]
fn load_of_an_unknown_skill_prints_the_error_text_and_exits_1() {
    let root = examples();
    let out = skilldeck(&["--root", root.to_str().expect("utf-8"), "load", "nope"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "Skill \"nope\" not found. Available skills: hello-world, pdf-forms, release-notes");
}

#[test]
fn prompt_prints_the_catalog_bytes_in_each_format() {
    let root = examples();
    let root = root.to_str().expect("utf-8");
    let toolnexus = skilldeck(&["prompt", "--root", root]);
    assert_eq!(toolnexus.status.code(), Some(0));
    let text = stdout(&toolnexus);
    assert!(text.starts_with("Skills provide specialized instructions and workflows for specific tasks.\nUse the skill tool to load a skill when a task matches its description.\n\n## Available Skills\n- **hello-world**: "));
    assert!(!text.ends_with('\n'));
    assert_eq!(text.matches("\n- **").count(), 3);
    let xml = stdout(&skilldeck(&["prompt", "--format", "agentskills", "--root", root]));
    assert!(xml.starts_with("<available_skills>\n<skill>\n<name>\nhello-world\n</name>\n"));
    assert!(xml.ends_with("</skill>\n</available_skills>"));
}

#[test]
fn list_json_has_the_documented_shape() {
    let tree = tempfile::tempdir().expect("tmp");
    std::fs::create_dir_all(tree.path().join("ok")).expect("mkdir");
    std::fs::write(tree.path().join("ok/SKILL.md"), "---\nname: ok\ndescription: fine\n---\n").expect("write");
    std::fs::create_dir_all(tree.path().join("bad")).expect("mkdir");
    std::fs::write(tree.path().join("bad/SKILL.md"), "no frontmatter\n").expect("write");
    let defs = tree.path().join("defs.json");
    std::fs::write(&defs, r#"[{"name":"data","content":"x","resources":["a.md"]},{"description":"anonymous"}]"#)
        .expect("write");
    let root = tree.path().to_str().expect("utf-8");
    let out = skilldeck(&[
        "list",
        "--json",
        "--root",
        root,
        "--skills",
        defs.to_str().expect("utf-8"),
        "--filter",
        "ghost=false",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("json");
    let expected = serde_json::json!({
        "skills": [
            {"name": "ok", "description": "fine", "location": format!("{root}/ok/SKILL.md"), "origin": "fs"},
            {"name": "data", "description": null, "location": "skill://data/", "origin": "logical"},
        ],
        "skipped": [
            {"location": format!("{root}/bad/SKILL.md"), "reason": "missing-name", "detail": "no frontmatter"},
            {"location": "skill://", "reason": "missing-name"},
        ],
        "filter_unmatched": ["ghost"],
        "warnings": ["skill filter name \"ghost\" matched no skill"],
    });
    assert_eq!(json, expected);
    assert_eq!(stderr(&out), "skilldeck: warning: skill filter name \"ghost\" matched no skill\n");
}

#[test]
fn a_skip_with_a_yaml_position_shows_its_line_and_column() {
    let tree = tempfile::tempdir().expect("tmp");
    std::fs::create_dir_all(tree.path().join("bad")).expect("mkdir");
    std::fs::write(tree.path().join("bad/SKILL.md"), "---\nname: [unclosed\n---\nbody\n").expect("write");
    let root = tree.path().to_str().expect("utf-8");
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&skilldeck(&["list", "--json", "--root", root]))).expect("json");
    let detail = "unclosed bracket '[' at line 2, column 7";
    let skipped = serde_json::json!([{
        "location": format!("{root}/bad/SKILL.md"), "reason": "malformed-frontmatter",
        "detail": detail, "line": 2, "column": 7,
    }]);
    assert_eq!(json["skipped"], skipped);
    let table = stdout(&skilldeck(&["list", "--root", root]));
    assert!(
        table.ends_with(&format!("\nskipped:\n  malformed-frontmatter  {root}/bad/SKILL.md:2:7 ({detail})\n")),
        "{table}"
    );
}

#[test]
fn schema_prints_each_vendor_shape() {
    for (format, key) in
        [("openai", "function"), ("anthropic", "input_schema"), ("gemini", "parameters"), ("mcp", "inputSchema")]
    {
        let out = skilldeck(&["schema", "--format", format]);
        assert_eq!(out.status.code(), Some(0));
        let json: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("json");
        assert!(json[0].get(key).is_some(), "{format}: {json}");
    }
}

#[test]
fn usage_errors_exit_2_with_a_message() {
    for args in [
        &["load"][..],
        &["frobnicate"],
        &["list", "--sample-limit", "-2"],
        &["list", "--filter", "nameonly"],
        &["list", "--skills", "/definitely/missing.json"],
        &["prompt", "--format", "html"],
    ] {
        let out = skilldeck(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!stderr(&out).is_empty(), "{args:?}");
        assert_eq!(stdout(&out), "", "{args:?}");
    }
    let out = skilldeck(&["list", "--sample-limit", "-2"]);
    assert_eq!(
        stderr(&out),
        "skilldeck: invalid sample limit -2: use 0 (ten files), a positive cap, or -1 (no file list)\n"
    );
}

#[test]
fn warnings_go_to_stderr_and_the_table_to_stdout() {
    let empty = tempfile::tempdir().unwrap();
    let root = empty.path().to_str().unwrap();
    let out = skilldeck(&["list", "--root", root]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stderr(&out), format!("skilldeck: warning: no skills found; looked in {root}\n"));
    assert_eq!(stdout(&out), "NAME  ORIGIN   DESCRIPTION\n");
}

/// A root given that is not there is a mistake, not a warning: exit 2 and
/// one line, for every command that reads a catalog once (a server watches
/// for it instead). The conventional places stay optional.
#[test]
fn a_root_given_that_is_not_a_directory_is_exit_2_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("file"), "").unwrap();
    let file = dir.path().join("file");
    for args in [
        vec!["list", "--root", "/definitely/missing"],
        vec!["load", "x", "--root", "/definitely/missing"],
        vec!["prompt", "--root", "/definitely/missing", "--root", "/"],
        vec!["search", "pdf", "--root", "/definitely/missing"],
    ] {
        let out = skilldeck(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(stderr(&out), "skilldeck: --root /definitely/missing: no such directory\n", "{args:?}");
        assert_eq!(stdout(&out), "", "{args:?}");
    }
    let out = skilldeck(&["list", "--root", file.to_str().unwrap()]);
    assert_eq!(
        (out.status.code(), stderr(&out)),
        (Some(2), format!("skilldeck: --root {}: not a directory\n", file.display()))
    );
}

#[test]
fn control_characters_in_skill_text_never_reach_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    for (rel, text) in [
        ("a/SKILL.md", "---\nname: evil\ndescription: \"red \\e[31mtext\\nsecond line\"\n---\n\x1b[31mred body\n"),
        // A name may hold none of them: an invalid-name skip, its detail escaped too.
        ("b/SKILL.md", "---\nname: \"two\\nlines\"\ndescription: \"\\u202Eesrever\"\n---\nbody\n"),
        ("c/SKILL.md", "---\nname: evil\ndescription: dup\n---\nbody\n"),
        ("d/SKILL.md", "---\nname: plain\ndescription: \"\\u202Eesrever\"\n---\nbody\n"),
    ] {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let root = dir.path().to_str().unwrap();
    let out = skilldeck(&["list", "--root", root, "--filter", "ghost\x1b[2J=false"]);
    assert_eq!(out.status.code(), Some(0));
    let table = concat!(
        "NAME   ORIGIN   DESCRIPTION\n",
        "evil   fs       red \\u{1b}[31mtext\n",
        "plain  fs       \\u{202e}esrever\n",
    );
    assert_eq!(
        stdout(&out),
        format!(
            "{table}\nskipped:\n  \
             invalid-name           {root}/b/SKILL.md (a skill name cannot contain U+000A, a control character)\n  \
             duplicate-name         {root}/c/SKILL.md\n\nfilter matched no skill: ghost\\u{{1b}}[2J\n"
        )
    );
    // Each warning on one line, escaped.
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 2, "{err}");
    assert!(err.contains("skilldeck: warning: skill filter name \"ghost\\u{1b}[2J\" matched no skill\n"), "{err}");
    assert!(err.lines().all(|line| line.starts_with("skilldeck: warning: ")), "{err}");
    assert!(!err.contains('\x1b'), "{err}");
    // Tool outputs keep their bytes: they are for the model, not the terminal.
    let out = skilldeck(&["load", "evil", "--root", root]);
    assert!(stdout(&out).contains("# Skill: evil\n\n\x1b[31mred body\n"), "{}", stdout(&out));
}

#[test]
fn a_closed_pipe_ends_quietly_with_0() {
    use std::io::Read;
    let dir = tempfile::tempdir().unwrap();
    let mut json = String::from("[");
    for i in 0..5000 {
        json.push_str(&format!(
            "{}{{\"name\": \"skill-{i}\", \"description\": \"Skill number {i}, described at some length.\"}}",
            if i == 0 { "" } else { "," }
        ));
    }
    json.push(']');
    let skills = dir.path().join("skills.json");
    std::fs::write(&skills, json).unwrap();
    for command in [&["prompt"][..], &["list"], &["list", "--json"]] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_skilldeck"))
            .args(command)
            .args(["--skills", skills.to_str().unwrap()])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // Read one line, as `head -1` does, then close the pipe.
        let mut stdout = child.stdout.take().unwrap();
        let mut first = [0u8; 1];
        stdout.read_exact(&mut first).unwrap();
        drop(stdout);
        let mut err = String::new();
        child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
        let status = child.wait().unwrap();
        assert_eq!((status.code(), err.as_str()), (Some(0), ""), "{command:?}");
    }
}

// ---- agents and the store ------------------------------------------------------

/// A temp dir holding a root with two skills, and a store: a SQLite file in
/// the dir, or a schema of its own on the PostgreSQL server of the tests.
struct Deck {
    dir: tempfile::TempDir,
    store: String,
}

impl Deck {
    fn new() -> Deck {
        let mut deck = Deck::with_root();
        deck.store = deck.path("store.sqlite");
        deck
    }

    /// A deck whose store is a new schema on `SKILLDECK_TEST_POSTGRES`;
    /// `None`, said on stderr, when no server is given.
    fn postgres() -> Option<Deck> {
        let url = postgres_url()?;
        static SCHEMAS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let schema =
            format!("cli_{}_{}", std::process::id(), SCHEMAS.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
        let sql = format!("DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}");
        let made = Command::new("psql").args(["-q", &url, "-c", &sql]).status().expect("run psql");
        assert!(made.success(), "psql could not make schema {schema} on {url}");
        let mut deck = Deck::with_root();
        deck.store = format!("{url}{}options=-c%20search_path%3D{schema}", if url.contains('?') { '&' } else { '?' });
        Some(deck)
    }

    fn with_root() -> Deck {
        let dir = tempfile::tempdir().unwrap();
        for (name, extra) in [("cardapio", "triggers: [cardápio]\n"), ("formato", "companions: [cardapio]\n")] {
            let skill = dir.path().join("root").join(name);
            std::fs::create_dir_all(&skill).unwrap();
            let md = format!("---\nname: {name}\ndescription: about {name}\n{extra}---\n\nbody of {name}\n");
            std::fs::write(skill.join("SKILL.md"), md).unwrap();
        }
        Deck { dir, store: String::new() }
    }

    fn path(&self, rel: &str) -> String {
        self.dir.path().join(rel).to_str().unwrap().to_owned()
    }

    /// Runs skilldeck with `--root root --store STORE` after `args`.
    fn run(&self, args: &[&str]) -> Output {
        skilldeck(&[args, &["--root", &self.path("root"), "--store", &self.store]].concat())
    }

    fn write(&self, name: &str, content: &str, extra: &[&str]) -> Output {
        let file = self.path("input.md");
        std::fs::write(&file, content).unwrap();
        self.run(&[&["store", "write", name, "--file", &file], extra].concat())
    }
}

#[test]
fn prompt_insika_lists_the_agents_lazy_skills() {
    let deck = Deck::new();
    let out = deck.run(&["prompt", "--format", "insika", "--agent", "loja", "--eager", "formato"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "<available_skills>\n  <skill name=\"cardapio\" when=\"cardápio\">about cardapio</skill>\n</available_skills>\n\n\
         Before ANY reply or tool call: scan the skills above. If one matches\nor is even partially relevant to the task, you MUST call\n\
         `load_skill(\"name\")` FIRST and follow what it returns. Err on the\nside of loading. Only skip when genuinely none apply."
    );
    let none = deck.run(&["prompt", "--format", "insika", "--allow-none"]);
    assert_eq!((none.status.code(), stdout(&none)), (Some(0), String::new()));
}

#[test]
fn inject_prints_bodies_and_labels() {
    let deck = Deck::new();
    let out = deck.run(&["inject", "--message", "O CARDAPIO, por favor", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let value: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        value,
        serde_json::json!({
            "content": "<active_skill name=\"cardapio\">\nbody of cardapio\n</active_skill>",
            "labels": [{"name": "cardapio", "reason": "trigger:cardápio"}],
        })
    );
    let eager = deck.run(&["inject", "--message", "oi", "--eager", "formato"]);
    assert_eq!(
        stdout(&eager),
        "<active_skill name=\"formato\">\nbody of formato\n</active_skill>\n\n<active_skill name=\"cardapio\">\nbody of cardapio\n</active_skill>"
    );
}

#[test]
fn load_with_an_agent_uses_load_skill() {
    let deck = Deck::new();
    let found = deck.run(&["load", "formato", "--agent", "loja"]);
    assert_eq!(found.status.code(), Some(0), "{}", stderr(&found));
    assert_eq!(
        stdout(&found),
        "<skill name=\"formato\">\nbody of formato\n</skill>\n\n<skill name=\"cardapio\">\nbody of cardapio\n</skill>"
    );
    let refused = deck.run(&["load", "formato", "--agent", "loja", "--eager", "formato"]);
    assert_eq!(refused.status.code(), Some(1));
    assert_eq!(stdout(&refused), "skill 'formato' not available for this agent");
    let schema = deck.run(&["schema", "--format", "mcp", "--agent", "loja"]);
    let value: serde_json::Value = serde_json::from_str(&stdout(&schema)).unwrap();
    assert_eq!(value[0]["name"], "load_skill");
}

#[test]
fn store_commands_round_trip_through_a_sqlite_file() {
    store_commands_round_trip(&Deck::new());
}

#[test]
fn store_commands_round_trip_through_postgres() {
    if let Some(deck) = Deck::postgres() {
        store_commands_round_trip(&deck);
    }
}

fn store_commands_round_trip(deck: &Deck) {
    let v1 = "---\nname: pedido\ndescription: pedidos\n---\nv1\n";
    let v2 = "---\nname: pedido\ndescription: pedidos\n---\nv2\n";
    assert_eq!(deck.write("pedido", v1, &[]).status.code(), Some(0));
    assert_eq!(deck.write("pedido", v2, &[]).status.code(), Some(0));
    let versions: serde_json::Value =
        serde_json::from_str(&stdout(&deck.run(&["store", "versions", "pedido"]))).unwrap();
    assert_eq!(versions.as_array().unwrap().len(), 1);
    assert_eq!(versions[0]["content"], v1);
    assert_eq!(stdout(&deck.run(&["load", "pedido", "--agent", "loja"])), "v2");
    assert_eq!(deck.run(&["store", "restore", "pedido", "0"]).status.code(), Some(0));
    assert_eq!(stdout(&deck.run(&["load", "pedido", "--agent", "loja"])), "v1");

    // An agent's specialization, then its removal.
    let mine = "---\nname: cardapio\n---\nso da loja\n";
    assert_eq!(deck.write("cardapio", mine, &["--agent", "loja"]).status.code(), Some(0));
    assert_eq!(stdout(&deck.run(&["load", "cardapio", "--agent", "loja"])), "so da loja");
    assert_eq!(stdout(&deck.run(&["load", "cardapio", "--agent", "outra"])), "body of cardapio");
    assert_eq!(stdout(&deck.run(&["store", "agents"])), "[\n  \"loja\"\n]\n");
    assert_eq!(deck.run(&["store", "delete", "cardapio", "--agent", "loja"]).status.code(), Some(0));
    assert_eq!(stdout(&deck.run(&["load", "cardapio", "--agent", "loja"])), "body of cardapio");

    let list: serde_json::Value =
        serde_json::from_str(&stdout(&deck.run(&["list", "--json", "--agent", "loja"]))).unwrap();
    let rows: Vec<(&str, &str, &str)> = list["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["name"].as_str().unwrap(), s["origin"].as_str().unwrap(), s["mode"].as_str().unwrap()))
        .collect();
    assert_eq!(rows, [("cardapio", "fs", "lazy"), ("formato", "fs", "lazy"), ("pedido", "store", "lazy")]);
}

#[test]
fn store_refusals_exit_1_with_insikas_text() {
    let deck = Deck::new();
    let refusal = |out: Output| (out.status.code(), stderr(&out));
    assert_eq!(
        refusal(deck.write("x", "no frontmatter", &[])),
        (Some(1), "skilldeck: SKILL.md missing YAML frontmatter (--- ... ---)\n".into())
    );
    assert_eq!(
        refusal(deck.write("x", "---\ndescription: d\n---\n", &[])),
        (Some(1), "skilldeck: frontmatter missing `name`\n".into())
    );
    assert_eq!(deck.write("x", "---\nname: x\n---\n", &[]).status.code(), Some(0));
    assert_eq!(
        refusal(deck.write("x", "---\nname: x\n---\n", &["--create-only", "--agent", "a"])).0,
        Some(0),
        "create-only is per scope"
    );
    assert_eq!(
        refusal(deck.write("x", "---\nname: x\n---\n", &["--create-only"])),
        (Some(1), "skilldeck: skill 'x' already exists\n".into())
    );
    assert_eq!(
        refusal(deck.run(&["store", "delete", "nope"])),
        (Some(1), "skilldeck: skill 'nope' not found\n".into())
    );
    assert_eq!(
        refusal(deck.run(&["store", "delete", "nope", "--agent", "a"])),
        (Some(1), "skilldeck: skill 'nope' not found for agent 'a'\n".into())
    );
    assert_eq!(
        refusal(deck.run(&["store", "restore", "x", "-1"])),
        (Some(1), "skilldeck: version -1 does not exist\n".into())
    );
    assert_eq!(deck.run(&["store", "restore", "x", "one"]).status.code(), Some(2));
    let no_store = skilldeck(&["store", "agents"]);
    assert_eq!(
        (no_store.status.code(), stderr(&no_store)),
        (Some(2), "skilldeck: store commands need --store FILE.sqlite|postgres://URL\n".into())
    );
}

#[test]
fn an_unreachable_postgres_store_is_a_clear_error() {
    let out = skilldeck(&["list", "--store", "postgres://skills:s3cret@127.0.0.1:1/skills"]);
    assert_eq!(
        (out.status.code(), stderr(&out)),
        (
            Some(2),
            "skilldeck: skill store postgres://skills@127.0.0.1:1/skills: error connecting to server: \
             Connection refused (os error 111)\n"
                .into()
        )
    );
}

#[test]
fn a_store_file_that_is_not_sqlite_is_a_clear_error() {
    let deck = Deck::new();
    std::fs::write(deck.path("store.sqlite"), "this is not a database, just text that is long enough\n".repeat(100))
        .unwrap();
    let out = deck.run(&["list"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains(&deck.path("store.sqlite")), "{}", stderr(&out));
}

#[test]
fn doctor_prints_findings_and_exits_1_on_a_warning() {
    let deck = Deck::new();
    let agents = deck.path("agents.json");
    std::fs::write(&agents, r#"[{"id": "loja", "skills": ["formato"], "eager": ["formato", "cardapio"]}]"#).unwrap();
    let out = deck.run(&["doctor", "--agents", &agents]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "! [skill-eager] agent 'loja' marks skill 'cardapio' eager but does not allow it \u{2014} the name is a no-op. \
         Add it to the agent's skills, or drop it from skills_eager.\n\
         ! [skill-drift] agent 'loja' allows skill 'formato' but not its companion 'cardapio' \u{2014} the pair cannot \
         travel together for this agent. Allow 'cardapio' too.\n"
    );
    // The same file gives --agent its profile.
    let refused = deck.run(&["load", "cardapio", "--agent", "loja", "--agents", &agents]);
    assert_eq!(stdout(&refused), "skill 'cardapio' not available for this agent");
    let clean = deck.run(&["doctor", "--json"]);
    assert_eq!(clean.status.code(), Some(0));
    let value: serde_json::Value = serde_json::from_str(&stdout(&clean)).unwrap();
    assert_eq!(
        value,
        serde_json::json!([{"check": "skill-eager", "severity": "ok",
            "message": "skill eagerness: per-agent (profile.skills_eager), no stale frontmatter"}])
    );
}

#[test]
fn list_shadowed_and_load_at_reach_the_skill_that_lost() {
    let deck = Deck::new();
    // Deck::run puts its own --root after these arguments, so `first` comes first and wins.
    let first = deck.path("first");
    std::fs::create_dir_all(format!("{first}/formato")).unwrap();
    std::fs::write(format!("{first}/formato/SKILL.md"), "---\nname: formato\n---\nthe first formato\n").unwrap();
    let (winner, loser) = (format!("{first}/formato/SKILL.md"), deck.path("root/formato/SKILL.md"));
    let out = deck.run(&["list", "--shadowed", "--json", "--root", &first]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let value: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        value,
        serde_json::json!([{
            "name": "formato",
            "winner": {"location": winner, "source": "root", "root": first},
            "loser": {"location": loser, "source": "root", "root": deck.path("root")},
        }])
    );
    let table = stdout(&deck.run(&["list", "--shadowed", "--root", &first]));
    assert_eq!(
        table,
        format!("formato\n  kept: {winner} (root {first})\n  lost: {loser} (root {})\n", deck.path("root"))
    );
    let served = deck.run(&["load", "--at", &loser, "--root", &first]);
    assert_eq!(served.status.code(), Some(0));
    assert!(stdout(&served).starts_with("<skill_content name=\"formato\">\n# Skill: formato\n\nbody of formato\n\n"));
    let nowhere = deck.run(&["load", "--at", "/nowhere"]);
    assert_eq!((nowhere.status.code(), stdout(&nowhere)), (Some(1), "No skill at \"/nowhere\".".to_owned()));
    assert_eq!(deck.run(&["load"]).status.code(), Some(2), "NAME or --at is required");
}

// prompt --budget and --report: the cut text on stdout, the report on stderr.
mod budget;

// The PostgreSQL server of the PostgreSQL variants (`None` when unset, a failure under CI).
#[path = "../../skilldeck-store/tests/postgres_url.rs"]
mod postgres_url;
use postgres_url::postgres_url;

/// `skilldeck new NAME` makes a skill that `validate --strict` passes and
/// `list` finds, in `.agents/skills` or the `--root` given; a bad name or
/// one that exists is exit 2 with the reason, and nothing is written.
#[test]
fn new_makes_a_valid_skill_where_hosts_read_it() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_skilldeck")).args(args).current_dir(dir.path()).output().unwrap()
    };
    let out = run(&["new", "release-notes", "--description", "Draft release notes: when asked."]);
    assert_eq!((out.status.code(), stdout(&out)), (Some(0), ".agents/skills/release-notes/SKILL.md\n".to_owned()));
    let out = run(&["validate", "--strict", ".agents/skills/release-notes"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let out = run(&["list", "--json"]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(json["skills"][0]["description"], "Draft release notes: when asked.");
    let out = run(&["init", "other", "--root", "skills"]);
    assert_eq!(stdout(&out), "skills/other/SKILL.md\n");

    let out = run(&["new", "release-notes"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "skilldeck: .agents/skills/release-notes exists already: choose another name, or edit its SKILL.md\n"
    );
    let out = run(&["new", "Bad--Name"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with(
            "skilldeck: cannot make a skill named \"Bad--Name\": Skill name 'Bad--Name' must be lowercase"
        ),
        "{}",
        stderr(&out)
    );
    assert!(!dir.path().join(".agents/skills/Bad--Name").exists());
}

#[test]
fn completions_are_clap_s_scripts_for_each_shell() {
    for (shell, marker) in
        [("bash", "complete -F _skilldeck"), ("zsh", "#compdef skilldeck"), ("fish", "complete -c skilldeck")]
    {
        let out = skilldeck(&["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}");
        assert!(stdout(&out).contains(marker), "{shell}");
        assert!(stdout(&out).contains("serve"), "{shell}: the subcommands are completed");
    }
    assert_eq!(skilldeck(&["completions", "tcsh"]).status.code(), Some(2));
}
