//! skilldeck-mcp end to end in one process: rmcp's own client against the
//! server over an in-memory pipe (the Python client's tests, in `tests/mcp`,
//! drive the real binary over stdio and HTTP).

// A broken fixture should stop a test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::Path;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, GetPromptRequestParams, GetSkillRequestParams, ReadResourceRequestParams, ResourceContents,
    SkillResources,
};
use rmcp::service::{RoleClient, RunningService};
use rmcp::{ServiceError, ServiceExt};
use serde_json::{Map, Value, json};
use skilldeck::{Catalog, LiveCatalog, SkillTool};
use skilldeck_mcp::{Options, SkillServer, Watch};

mod ready;

fn write(root: &Path, rel: &str, bytes: &[u8]) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, bytes).unwrap();
}

fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "alpha/SKILL.md", b"---\nname: alpha\ndescription: Alpha.\n---\nRun scripts/run.sh.\n");
    write(dir.path(), "alpha/scripts/run.sh", b"echo alpha\n");
    write(dir.path(), "alpha/logo.png", b"\x89PNG\r\n\x1a\n\x00");
    write(dir.path(), "beta/SKILL.md", b"---\nname: beta\ndescription: Beta.\n---\nBeta body.\n");
    dir
}

async fn connect(server: SkillServer) -> RunningService<RoleClient, ()> {
    let (client_io, server_io) = tokio::io::duplex(1 << 20);
    let (read, write) = tokio::io::split(server_io);
    tokio::spawn(skilldeck_mcp::serve_lines(server, read, write));
    ().serve(client_io).await.unwrap()
}

fn server(root: &Path) -> SkillServer {
    SkillServer::new(LiveCatalog::new(Catalog::builder().root(root)), Options::default())
}

fn arguments(value: Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap()
}

#[tokio::test]
async fn tools_resources_skills_and_prompts() {
    let dir = tree();
    let client = connect(server(dir.path())).await;

    let tools = client.list_tools(None).await.unwrap().tools;
    assert_eq!(serde_json::to_value(&tools).unwrap(), json!([SkillTool::declaration().mcp()]));

    let called = client
        .call_tool(CallToolRequestParams::new("skill").with_arguments(arguments(json!({"name": "beta"}))))
        .await
        .unwrap();
    let expected =
        SkillTool::new(&Catalog::builder().root(dir.path()).build()).load("beta", skilldeck::SampleLimit::Default);
    assert_eq!(called.is_error, Some(false));
    assert_eq!(called.content[0].as_text().unwrap().text, expected.output);
    let missing = client
        .call_tool(CallToolRequestParams::new("skill").with_arguments(arguments(json!({"name": "nope"}))))
        .await
        .unwrap();
    assert_eq!(missing.is_error, Some(true));
    assert_eq!(missing.content[0].as_text().unwrap().text, "Skill \"nope\" not found. Available skills: alpha, beta");

    let resources = client.list_all_resources().await.unwrap();
    let uris: Vec<&str> = resources.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(
        uris,
        ["skill://alpha/SKILL.md", "skill://alpha/logo.png", "skill://alpha/scripts/run.sh", "skill://beta/SKILL.md"]
    );
    assert_eq!(resources[0].name, "alpha");
    assert_eq!(resources[0].mime_type.as_deref(), Some("text/markdown"));
    let read = client.read_resource(ReadResourceRequestParams::new("skill://alpha/logo.png")).await.unwrap();
    assert!(matches!(&read.contents[0], ResourceContents::BlobResourceContents { blob, .. } if blob == "iVBORw0KGgoA"));
    let read = client.read_resource(ReadResourceRequestParams::new("skill://alpha/scripts/run.sh")).await.unwrap();
    assert!(matches!(&read.contents[0], ResourceContents::TextResourceContents { text, .. } if text == "echo alpha\n"));
    for uri in ["skill://alpha/../beta/SKILL.md", "skill://alpha/%2e%2e%2fbeta%2fSKILL.md", "skill://alpha/nope.txt"] {
        let error = client.read_resource(ReadResourceRequestParams::new(uri)).await.unwrap_err();
        assert!(matches!(error, ServiceError::McpError(e) if e.code.0 == -32602), "{uri}");
    }

    let skills = client.list_all_skills().await.unwrap();
    assert_eq!(
        skills.iter().map(|s| s.uri.as_str()).collect::<Vec<_>>(),
        ["skill://alpha/SKILL.md", "skill://beta/SKILL.md"]
    );
    let SkillResources::Files(files) = &skills[0].resources else { panic!("dynamic resources") };
    assert_eq!(files.len(), 3);
    assert_eq!(files[2].digest, rmcp::model::sha256_digest(b"echo alpha\n"));
    let got = client.get_skill(GetSkillRequestParams::new("skill://beta/SKILL.md")).await.unwrap();
    assert_eq!(got.skill, skills[1]);
    let error = client.get_skill(GetSkillRequestParams::new("skill://nope/SKILL.md")).await.unwrap_err();
    assert!(
        matches!(error, ServiceError::McpError(e) if e.code.0 == -32602 && e.message == "No skill is served at skill://nope/SKILL.md")
    );

    let prompts = client.list_all_prompts().await.unwrap();
    assert_eq!(prompts.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), ["alpha", "beta"]);
    let prompt = client.get_prompt(GetPromptRequestParams::new("beta")).await.unwrap();
    assert_eq!(
        serde_json::to_value(&prompt.messages).unwrap(),
        json!([{"role": "user", "content": {"type": "text", "text": expected.output}}])
    );

    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_new_skill_under_a_watched_root_is_served_after_a_reload() {
    let dir = tree();
    let server = server(dir.path());
    let live =
        skilldeck_mcp::watch(server.clone(), Watch { roots: vec![dir.path().to_path_buf()], ..Watch::default() });
    live.ready().await;
    let client = connect(server).await;
    write(dir.path(), "gamma/SKILL.md", b"---\nname: gamma\ndescription: Gamma.\n---\nNew.\n");
    let mut names = Vec::new();
    for _ in 0..100 {
        names = client.list_all_prompts().await.unwrap().into_iter().map(|p| p.name).collect();
        if names.len() == 3 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(names, ["alpha", "beta", "gamma"]);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn reload_reports_what_changed() {
    let dir = tree();
    let server = server(dir.path());
    let change = tokio::task::spawn_blocking({
        let server = server.clone();
        move || server.reload()
    })
    .await
    .unwrap();
    assert!(change.resources && !change.prompts && !change.tools);
    write(dir.path(), "beta/SKILL.md", b"---\nname: beta\ndescription: Beta, changed.\n---\nBeta body.\n");
    let change = tokio::task::spawn_blocking(move || server.reload()).await.unwrap();
    assert!(change.resources && change.prompts && !change.tools);
}

/// A reload of what changed whose paths do not name a replaced root (a
/// library caller's, or a store change's none) still publishes the new
/// directory whole: no entry of the old release is kept for a skill that only
/// has the same name and path.
#[tokio::test]
async fn a_reload_after_a_root_link_swap_publishes_the_new_release_whole() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "release1/one/SKILL.md", b"---\nname: one\ndescription: One in release1.\n---\nOne.\n");
    write(dir.path(), "release2/one/SKILL.md", b"---\nname: one\ndescription: One in release2.\n---\nOne.\n");
    write(dir.path(), "release2/one/extra.md", b"Extra.\n");
    std::os::unix::fs::symlink("release1", dir.path().join("current")).unwrap();
    let server = server(&dir.path().join("current"));
    let client = connect(server.clone()).await;
    let manifest = || async {
        let got = client.get_skill(GetSkillRequestParams::new("skill://one/SKILL.md")).await.unwrap();
        let got = serde_json::to_value(got.skill).unwrap();
        let uris: Vec<String> = got["resources"].as_array().unwrap().iter().map(|r| r["uri"].to_string()).collect();
        (got["frontmatter"]["description"].to_string(), uris)
    };
    assert_eq!(manifest().await, (r#""One in release1.""#.into(), vec![r#""skill://one/SKILL.md""#.into()]));

    std::os::unix::fs::symlink("release2", dir.path().join("current.tmp")).unwrap();
    fs::rename(dir.path().join("current.tmp"), dir.path().join("current")).unwrap();
    let reloading = server.clone();
    tokio::task::spawn_blocking(move || reloading.reload_changed(&[])).await.unwrap();
    let uris = vec![r#""skill://one/SKILL.md""#.into(), r#""skill://one/extra.md""#.into()];
    assert_eq!(manifest().await, (r#""One in release2.""#.into(), uris));
    client.cancel().await.unwrap();
}

/// A name no skill may have (a NUL, a line break, a bidi override: the
/// engine's name rule) is served under no URI: `skill://%00/SKILL.md` and
/// the like read nothing, whichever source held the name, and no list,
/// tool or prompt shows one.
#[tokio::test]
async fn names_holding_control_or_format_characters_are_served_nowhere() {
    let dir = tree();
    write(dir.path(), "nul/SKILL.md", b"---\nname: \"\\0\"\ndescription: NUL.\n---\nnul body\n");
    write(dir.path(), "newline/SKILL.md", b"---\nname: \"a\\nb\"\ndescription: Newline.\n---\nnl body\n");
    write(dir.path(), "bidi/SKILL.md", "---\nname: evil\u{202E}txt\ndescription: Bidi.\n---\nbidi\n".as_bytes());
    let catalog = Catalog::builder()
        .root(dir.path())
        .skill(skilldeck::SkillDef::new("\0data").description("Data.").content("data body"));
    assert_eq!(catalog.build().skips().iter().filter(|s| s.reason == skilldeck::SkipReason::InvalidName).count(), 4);
    let client = connect(SkillServer::new(LiveCatalog::new(catalog), Options::default())).await;

    for uri in [
        "skill://%00/SKILL.md",
        "skill://%00data/SKILL.md",
        "skill://a%0Ab/SKILL.md",
        "skill://evil%E2%80%AEtxt/SKILL.md",
        "skill://alpha%00/SKILL.md",
    ] {
        let error = client.read_resource(ReadResourceRequestParams::new(uri)).await.unwrap_err();
        assert!(matches!(&error, ServiceError::McpError(e) if e.code.0 == -32602), "{uri}: {error:?}");
        let error = client.get_skill(GetSkillRequestParams::new(uri)).await.unwrap_err();
        assert!(matches!(&error, ServiceError::McpError(e) if e.code.0 == -32602), "{uri}: {error:?}");
    }
    let resources = client.list_all_resources().await.unwrap();
    assert!(resources.iter().all(|r| r.uri.starts_with("skill://alpha/") || r.uri.starts_with("skill://beta/")));
    let prompts = client.list_all_prompts().await.unwrap();
    assert_eq!(prompts.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), ["alpha", "beta"]);
    for name in ["\0", "\0data", "a\nb"] {
        let called = client
            .call_tool(CallToolRequestParams::new("skill").with_arguments(arguments(json!({"name": name}))))
            .await
            .unwrap();
        assert_eq!(called.is_error, Some(true), "{name:?}");
        assert!(called.content[0].as_text().unwrap().text.ends_with("not found. Available skills: alpha, beta"));
    }
    client.cancel().await.unwrap();
}
