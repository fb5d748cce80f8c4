//! Serving before the catalog is read (`SkillServer::loading`): a provider
//! that blocks until the test releases it holds the first build, so what is
//! answered before and after it ends cannot depend on timing.

use std::sync::Mutex;
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};
use skilldeck::{Catalog, CatalogBuilder, SkillDef, SkillTool};
use skilldeck_mcp::{ClientRoots, Options, SkillServer};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf};

/// A builder whose provider blocks until the returned sender sends (or is
/// dropped), then gives the data skill `gamma`.
fn held() -> (CatalogBuilder, mpsc::Sender<()>) {
    let (release, held) = mpsc::channel::<()>();
    let held = Mutex::new(held);
    let builder = Catalog::builder().provider(move || {
        let _ = held.lock().unwrap().recv();
        Ok(vec![SkillDef::new("gamma").description("Gamma.").content("Gamma body.\n")])
    });
    (builder, release)
}

fn gamma() -> String {
    let catalog = Catalog::builder().skill(SkillDef::new("gamma").description("Gamma.").content("Gamma body.\n"));
    SkillTool::new(&catalog.build()).load("gamma", skilldeck::SampleLimit::Default).output
}

/// Raw newline-delimited JSON-RPC with the server, over an in-memory pipe.
struct Wire {
    write: WriteHalf<DuplexStream>,
    lines: Lines<BufReader<ReadHalf<DuplexStream>>>,
}

impl Wire {
    fn connect(server: SkillServer) -> Wire {
        let (client, server_io) = tokio::io::duplex(1 << 20);
        let (read, write) = tokio::io::split(server_io);
        tokio::spawn(skilldeck_mcp::serve_lines(server, read, write));
        let (read, write) = tokio::io::split(client);
        Wire { write, lines: BufReader::new(read).lines() }
    }

    async fn send(&mut self, message: Value) {
        self.write.write_all(format!("{message}\n").as_bytes()).await.unwrap();
    }

    /// The next message the server writes, within ten seconds.
    async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(10), self.lines.next_line()).await;
        serde_json::from_str(&line.expect("an answer in time").unwrap().expect("a line")).unwrap()
    }

    async fn initialize(&mut self) -> Value {
        self.initialize_with(json!({})).await
    }

    /// `initialize` declaring the client's `capabilities`, then `notifications/initialized`.
    async fn initialize_with(&mut self, capabilities: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": capabilities, "clientInfo": {"name": "t", "version": "0"}}}))
            .await;
        let answer = self.next().await;
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
        answer
    }
}

#[tokio::test]
async fn initialize_answers_while_the_catalog_is_read_and_requests_wait_with_progress() {
    let (builder, release) = held();
    let options = Options { instructions_wait: Duration::ZERO, ..Options::default() };
    let mut wire = Wire::connect(SkillServer::loading(builder, options));

    let initialized = wire.initialize().await;
    assert_eq!(initialized["result"]["instructions"], json!(skilldeck_mcp::loading_instructions("skill")));

    // Told to call find_skills, the client is offered it without waiting.
    wire.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})).await;
    let tools = wire.next().await;
    let names: Vec<&str> =
        tools["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["skill", "find_skills"]);

    // A call waits, and says so while it does.
    wire.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "_meta": {"progressToken": "p"}, "name": "skill", "arguments": {"name": "gamma"}}}))
        .await;
    let progress = wire.next().await;
    assert_eq!(progress["method"], "notifications/progress");
    assert_eq!(progress["params"]["progressToken"], "p");
    let message = progress["params"]["message"].as_str().unwrap();
    assert!(message.starts_with("reading the skill catalog ("), "{message}");

    release.send(()).unwrap();
    let answer = loop {
        let message = wire.next().await;
        if message.get("id") == Some(&json!(2)) {
            break message;
        }
        assert_eq!(message["method"], "notifications/progress", "{message}");
    };
    assert_eq!(answer["result"]["isError"], json!(false));
    assert_eq!(answer["result"]["content"][0]["text"], json!(gamma()));

    // find_skills stays offered for the rest of the process.
    wire.send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"})).await;
    assert_eq!(wire.next().await["result"]["tools"][1]["name"], "find_skills");
}

#[tokio::test]
async fn initialize_carries_the_catalog_when_it_is_read_within_the_wait() {
    let (builder, release) = held();
    let options = Options { instructions_wait: Duration::from_secs(60), ..Options::default() };
    let server = SkillServer::loading(builder, options);
    let mut wire = Wire::connect(server.clone());
    let releasing = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        release.send(()).unwrap();
    });
    let initialized = wire.initialize().await;
    releasing.join().unwrap();
    let catalog = server.loaded().await;
    assert_eq!(initialized["result"]["instructions"], json!(skilldeck::render::toolnexus(&catalog)));
    assert_eq!(catalog.get("gamma").unwrap().description(), Some("Gamma."));
    wire.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})).await;
    assert_eq!(wire.next().await["result"]["tools"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn a_subscription_made_while_loading_waits_for_the_publication_as_a_read_does() {
    let (builder, release) = held();
    let options = Options { instructions_wait: Duration::ZERO, ..Options::default() };
    let mut wire = Wire::connect(SkillServer::loading(builder, options));
    wire.initialize().await;
    let (served, unknown) = ("skill://gamma/SKILL.md", "skill://nope/SKILL.md");
    wire.send(json!({"jsonrpc": "2.0", "id": 1, "method": "resources/subscribe", "params": {"uri": served}})).await;
    wire.send(json!({"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe", "params": {"uri": unknown}})).await;
    // The session's log level needs no catalog: answered while the subscriptions wait.
    wire.send(json!({"jsonrpc": "2.0", "id": 3, "method": "logging/setLevel", "params": {"level": "info"}})).await;
    assert_eq!(wire.next().await, json!({"jsonrpc": "2.0", "id": 3, "result": {}}));

    release.send(()).unwrap();
    let mut answers = [wire.next().await, wire.next().await];
    answers.sort_by_key(|answer| answer["id"].as_i64());
    assert_eq!(answers[0], json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
    // Judged by the publication, not guessed before it: the error a read gets.
    assert_eq!(answers[1]["error"]["code"], -32602);
    assert_eq!(answers[1]["error"]["message"], format!("No resource is served at {unknown}"));
}

/// A held first build, and a client whose roots name a project with a
/// skill of its own: the move waits for the first catalog and is not undone
/// by it, and the empty catalog's words are the loading ones until it is read.
#[tokio::test]
async fn the_clients_roots_move_the_catalog_after_the_first_build_never_before() {
    let project = tempfile::tempdir().unwrap();
    let project_dir = project.path().canonicalize().unwrap();
    let skills = project_dir.join(".agents/skills/delta");
    std::fs::create_dir_all(&skills).unwrap();
    std::fs::write(skills.join("SKILL.md"), "---\nname: delta\ndescription: Delta.\n---\n").unwrap();
    let (builder, release) = held();
    let options = Options {
        instructions_wait: Duration::ZERO,
        client_roots: ClientRoots::Follow { home: None },
        looked_in: vec!["/nowhere/.agents/skills".into()],
        ..Options::default()
    };
    let server = SkillServer::loading(builder, options);
    let mut wire = Wire::connect(server.clone());
    let initialized = wire.initialize_with(json!({"roots": {"listChanged": true}})).await;
    assert_eq!(initialized["result"]["instructions"], json!(skilldeck_mcp::loading_instructions("skill")));

    // The server asks for the roots at once, while the catalog is still being read.
    let asked = wire.next().await;
    assert_eq!(asked["method"], "roots/list", "{asked}");
    let uri = format!("file://{}", project_dir.display());
    wire.send(json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"roots": [{"uri": uri, "name": "p"}]}})).await;
    tokio::time::sleep(Duration::from_millis(200)).await;

    // Only now is the first catalog read; the move comes after it and is told
    // (its walk calls the provider again: released for good).
    release.send(()).unwrap();
    drop(release);
    let first = server.loaded().await;
    assert_eq!(first.skills().map(|skill| skill.name().to_owned()).collect::<Vec<_>>(), ["gamma"]);
    loop {
        let told = wire.next().await;
        if told["method"] == "notifications/prompts/list_changed" {
            break;
        }
        assert!(told["method"].as_str().unwrap().ends_with("/list_changed"), "{told}");
    }
    wire.send(json!({"jsonrpc": "2.0", "id": 1, "method": "prompts/list"})).await;
    let prompts = loop {
        let message = wire.next().await;
        if message.get("id") == Some(&json!(1)) {
            break message;
        }
    };
    let names: Vec<&str> =
        prompts["result"]["prompts"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["delta", "gamma"]);
}

#[tokio::test]
async fn an_empty_catalog_read_within_the_wait_says_where_it_looked() {
    let looked_in = vec![std::path::PathBuf::from("/nowhere/.agents/skills")];
    let options =
        Options { instructions_wait: Duration::from_secs(60), looked_in: looked_in.clone(), ..Options::default() };
    let mut wire = Wire::connect(SkillServer::loading(Catalog::builder(), options));
    let initialized = wire.initialize().await;
    assert_eq!(initialized["result"]["instructions"], json!(skilldeck_mcp::no_skills(&looked_in)));
}

/// A `find_skills` call's text.
async fn find_skills(wire: &mut Wire, id: u64, query: &str) -> String {
    wire.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "find_skills", "arguments": {"query": query}}}))
        .await;
    loop {
        let message = wire.next().await;
        if message.get("id") == Some(&json!(id)) {
            return message["result"]["content"][0]["text"].as_str().unwrap().to_owned();
        }
    }
}

/// A first run over two skills, which keeps its level 1 and its search
/// index in `cache` once the index is built (on a thread of its own: the
/// test waits for the level-1 file to name the search file).
async fn first_run_keeps(cache: &skilldeck_mcp::StartCache, options: &Options) {
    let builder = Catalog::builder()
        .skill(SkillDef::new("pdf-forms").description("Fill in and flatten PDF forms."))
        .skill(SkillDef::new("release").description("Cut a release of the project."));
    let mut wire = Wire::connect(SkillServer::loading(builder, options.clone()));
    wire.initialize().await;
    assert!(find_skills(&mut wire, 1, "fill a pdf form").await.contains("1. pdf-forms: "));
    for _ in 0..600 {
        let kept = std::fs::read(cache.path()).ok().and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok());
        if kept.is_some_and(|kept| kept.get("search").is_some()) && cache.search_path().is_file() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the search index was never kept in {}", cache.path().display());
}

/// Issue 20, item 1: a restarted server whose catalog is still being read
/// searches the last run's index at once; once its own is built, its own
/// answers. A search file that is damaged is never searched.
#[tokio::test]
async fn find_skills_answers_from_the_last_runs_index_while_the_catalog_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let cache = skilldeck_mcp::StartCache::new(dir.path(), "serve", Vec::new());
    let options = Options {
        instructions_wait: Duration::ZERO,
        find_skills: skilldeck_mcp::FindSkills::Always,
        start_cache: Some(cache.clone()),
        ..Options::default()
    };
    first_run_keeps(&cache, &options).await;

    // The second run's catalog is held: only the saved index can answer, with the first run's skills.
    let (builder, release) = held();
    let mut wire = Wire::connect(SkillServer::loading(builder, options.clone()));
    let initialized = wire.initialize().await;
    assert!(initialized["result"]["instructions"].as_str().unwrap().contains("pdf-forms"), "{initialized}");
    let early = find_skills(&mut wire, 1, "fill a pdf form").await;
    assert!(
        early.starts_with("Skills that match, best first:\n1. pdf-forms: Fill in and flatten PDF forms.\n"),
        "{early}"
    );
    release.send(()).unwrap();
    // Its own index, once built, answers from the catalog as read.
    let mut own = String::new();
    for id in 2..600 {
        own = find_skills(&mut wire, id, "gamma").await;
        if own.contains("1. gamma: Gamma.") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(own.contains("1. gamma: Gamma."), "{own}");

    // It keeps its own index in turn.
    let kept = Catalog::builder().skill(SkillDef::new("gamma").description("Gamma.").content("Gamma body.\n"));
    let kept = kept.build().save_search();
    for _ in 0..600 {
        if std::fs::read(cache.search_path()).unwrap() == kept {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(std::fs::read(cache.search_path()).unwrap(), kept);

    // Damaged: the held run's call waits for its own catalog instead.
    std::fs::write(cache.search_path(), &kept[..kept.len() - 1]).unwrap();
    let (builder, release) = held();
    let mut wire = Wire::connect(SkillServer::loading(builder, options));
    wire.initialize().await;
    let releasing = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        release.send(()).unwrap();
    });
    let answer = find_skills(&mut wire, 1, "gamma").await;
    releasing.join().unwrap();
    assert!(answer.contains("1. gamma: Gamma."), "{answer}");
}
