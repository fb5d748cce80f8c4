//! Agent profiles in the store: `store profiles` / `store profile ID`, and
//! the commands that read them (`--agent ID`, `doctor`), on a real SQLite
//! file and on PostgreSQL.

use std::process::Output;

use crate::{Deck, stderr, stdout};

/// `(exit code, stdout, stderr)`.
fn outcome(out: &Output) -> (Option<i32>, String, String) {
    (out.status.code(), stdout(out), stderr(out))
}

fn ok(text: &str) -> (Option<i32>, String, String) {
    (Some(0), text.to_owned(), String::new())
}

fn refused(code: i32, text: &str) -> (Option<i32>, String, String) {
    (Some(code), String::new(), format!("skilldeck: {text}\n"))
}

#[test]
fn store_profile_commands_on_a_sqlite_file() {
    store_profile_commands(&Deck::new());
}

#[test]
fn store_profile_commands_on_postgres() {
    if let Some(deck) = Deck::postgres() {
        store_profile_commands(&deck);
    }
}

fn store_profile_commands(deck: &Deck) {
    assert_eq!(outcome(&deck.run(&["store", "profiles"])), ok("[]\n"));
    let made = deck.run(&["store", "profile", "loja", "--allow", "formato", "--allow", "cardapio"]);
    assert_eq!(
        outcome(&made),
        ok("{\n  \"id\": \"loja\",\n  \"skills\": [\n    \"formato\",\n    \"cardapio\"\n  ],\n  \"eager\": null\n}\n")
    );
    // What is not given stays as it was.
    let eager = deck.run(&["store", "profile", "loja", "--eager", "formato"]);
    assert_eq!(
        outcome(&eager),
        ok(
            "{\n  \"id\": \"loja\",\n  \"skills\": [\n    \"formato\",\n    \"cardapio\"\n  ],\n  \"eager\": [\n    \"formato\"\n  ]\n}\n"
        )
    );
    let none = deck.run(&["store", "profile", "vazia", "--allow-none", "--eager", "all"]);
    assert_eq!(outcome(&none), ok("{\n  \"id\": \"vazia\",\n  \"skills\": [],\n  \"eager\": true\n}\n"));
    let reset = deck.run(&["store", "profile", "vazia", "--allow-all", "--eager-none"]);
    assert_eq!(outcome(&reset), ok("{\n  \"id\": \"vazia\",\n  \"skills\": null,\n  \"eager\": null\n}\n"));
    assert_eq!(outcome(&deck.run(&["store", "profile", "vazia"])), outcome(&reset), "shown as stored");
    let all = deck.run(&["store", "profiles"]);
    assert_eq!(
        outcome(&all),
        ok("[\n  {\n    \"id\": \"loja\",\n    \"skills\": [\n      \"formato\",\n      \"cardapio\"\n    ],\n    \
            \"eager\": [\n      \"formato\"\n    ]\n  },\n  {\n    \"id\": \"vazia\",\n    \"skills\": null,\n    \
            \"eager\": null\n  }\n]\n")
    );

    // The history, most recent first, each with the time it was written.
    let versions: serde_json::Value =
        serde_json::from_str(&stdout(&deck.run(&["store", "profile", "loja", "--versions"]))).unwrap();
    let profiles: Vec<&serde_json::Value> = versions.as_array().unwrap().iter().map(|v| &v["profile"]).collect();
    assert_eq!(
        profiles,
        [&serde_json::json!({"id": "loja", "skills": ["formato", "cardapio"], "eager": null})],
        "{versions}"
    );
    assert_eq!(versions[0]["at"].as_str().unwrap().len(), "2026-12-01T20:12:22Z".len());

    // What `store profiles` prints is an --agents file.
    let file = deck.path("agents.json");
    std::fs::write(&file, stdout(&all)).unwrap();
    let listed = deck.run(&["doctor", "--agents", &file]);
    assert_eq!(listed.status.code(), Some(0), "{}", stderr(&listed));

    assert_eq!(
        outcome(&deck.run(&["store", "profile", "vazia", "--delete"])),
        ok("{\n  \"id\": \"vazia\",\n  \"deleted\": true\n}\n")
    );
    assert_eq!(outcome(&deck.run(&["store", "profile", "vazia", "--versions"])), ok("[]\n"), "gone with its history");

    // Refusals: the request's fault is exit 1, a misuse of the flags exit 2; nothing is written.
    assert_eq!(outcome(&deck.run(&["store", "profile", "vazia"])), refused(1, "agent profile 'vazia' not found"));
    assert_eq!(
        outcome(&deck.run(&["store", "profile", "vazia", "--delete"])),
        refused(1, "agent profile 'vazia' not found")
    );
    assert_eq!(outcome(&deck.run(&["store", "profile", " ", "--allow", "x"])), refused(1, "id is required"));
    assert_eq!(
        outcome(&deck.run(&["store", "profile", "x", "--allow-all", "--allow", "y"])),
        refused(2, "--allow-all cannot be used with --allow or --allow-none")
    );
    assert_eq!(
        outcome(&deck.run(&["store", "profile", "x", "--eager-none", "--eager", "y"])),
        refused(2, "--eager-none cannot be used with --eager")
    );
    assert_eq!(
        outcome(&deck.run(&["store", "profile", "x", "--allow", "y", "--agent", "x"])),
        refused(2, "store profile takes the agent's id as ID, not --agent")
    );
    assert_eq!(
        outcome(&deck.run(&["store", "profile", "x", "--delete", "--allow", "y"])),
        refused(2, "--delete and --versions take no --allow, --allow-none or --eager")
    );
    assert_eq!(deck.run(&["store", "profile", "x", "--delete", "--versions"]).status.code(), Some(2));
    let left: serde_json::Value = serde_json::from_str(&stdout(&deck.run(&["store", "profiles"]))).unwrap();
    assert_eq!(left.as_array().unwrap().len(), 1, "only loja: {left}");

    agent_reads_the_stored_profile(deck);
}

/// `--agent ID` takes its profile from the flags, else the --agents file,
/// else the store.
fn agent_reads_the_stored_profile(deck: &Deck) {
    deck.run(&["store", "profile", "loja", "--allow", "formato"]);
    let refused = deck.run(&["load", "cardapio", "--agent", "loja"]);
    assert_eq!(outcome(&refused), (Some(1), "skill 'cardapio' not available for this agent".into(), String::new()));
    let eager = deck.run(&["inject", "--message", "oi", "--agent", "loja"]);
    assert_eq!(outcome(&eager), ok("<active_skill name=\"formato\">\nbody of formato\n</active_skill>"));
    // The --agents file's entry wins over the store's.
    let file = deck.path("loja.json");
    std::fs::write(&file, r#"[{"id": "loja", "skills": ["cardapio"]}]"#).unwrap();
    let from_file = deck.run(&["load", "cardapio", "--agent", "loja", "--agents", &file]);
    assert_eq!(outcome(&from_file), ok("body of cardapio"));
    // And the flags over both.
    let from_flags = deck.run(&["load", "cardapio", "--agent", "loja", "--allow", "cardapio"]);
    assert_eq!(outcome(&from_flags), ok("body of cardapio"));
    // An agent the store has no profile for may use every skill.
    let other = deck.run(&["load", "cardapio", "--agent", "outra"]);
    assert_eq!(outcome(&other), ok("body of cardapio"));
}

#[test]
fn doctor_checks_the_stores_profiles_with_the_agents_file() {
    let deck = Deck::new();
    // The profile of the `doctor` test in tests.rs, kept in the store this time.
    let made =
        deck.run(&["store", "profile", "loja", "--allow", "formato", "--eager", "formato", "--eager", "cardapio"]);
    assert_eq!(made.status.code(), Some(0), "{}", stderr(&made));
    let findings = "! [skill-eager] agent 'loja' marks skill 'cardapio' eager but does not allow it \u{2014} the name \
                    is a no-op. Add it to the agent's skills, or drop it from skills_eager.\n\
                    ! [skill-drift] agent 'loja' allows skill 'formato' but not its companion 'cardapio' \u{2014} the \
                    pair cannot travel together for this agent. Allow 'cardapio' too.\n";
    assert_eq!(outcome(&deck.run(&["doctor"])), (Some(1), findings.to_owned(), String::new()));

    // A file entry of the same id replaces the store's profile, and says so
    // when they differ; the file's other agents are checked too.
    let file = deck.path("agents.json");
    std::fs::write(
        &file,
        r#"[{"id": "nova", "skills": ["cardapio"]}, {"id": "loja", "skills": ["formato", "cardapio"]}]"#,
    )
    .unwrap();
    let clash = deck.run(&["doctor", "--agents", &file]);
    assert_eq!(
        outcome(&clash),
        (
            Some(0),
            "\u{2713} [skill-eager] skill eagerness: per-agent (profile.skills_eager), no stale frontmatter\n\
             \u{2713} [skill-drift] skill references: prompt files, shared bodies and companions all consistent\n"
                .to_owned(),
            "skilldeck: warning: agent 'loja': the --agents file's profile is checked, not the store's, which differs\n"
                .to_owned()
        )
    );
    // The same profile in both: nothing to say.
    std::fs::write(&file, r#"[{"id": "loja", "skills": ["formato"], "eager": ["formato", "cardapio"]}]"#).unwrap();
    assert_eq!(outcome(&deck.run(&["doctor", "--agents", &file])), (Some(1), findings.to_owned(), String::new()));
}

/// A profile row this program never wrote stops a command that needs it
/// with exit 2 and the store's reason (doctor: its `check crashed`
/// findings); commands that do not are unaffected.
#[test]
fn a_corrupt_stored_profile_is_exit_2_with_the_reason() {
    let deck = Deck::new();
    assert_eq!(deck.run(&["store", "profile", "loja", "--allow", "formato"]).status.code(), Some(0));
    let conn = rusqlite::Connection::open(deck.path("store.sqlite")).unwrap();
    conn.execute("UPDATE profile SET skills = 'formato'", []).unwrap();
    drop(conn);
    let reason = format!(
        "skill store {}: agent profile 'loja': its allowlist (column skills) is not a JSON list of names \
         (expected ident at line 1 column 2): \"formato\"",
        deck.path("store.sqlite")
    );
    for command in [&["list", "--agent", "loja"][..], &["store", "profiles"], &["serve", "--agent", "loja"]] {
        assert_eq!(outcome(&deck.run(command)), refused(2, &reason), "{command:?}");
    }
    // doctor reports a store it cannot read as Insika's `check crashed`, for each check.
    let crashed =
        format!("\u{2717} [skill-eager] check crashed: {reason}\n\u{2717} [skill-drift] check crashed: {reason}\n");
    assert_eq!(outcome(&deck.run(&["doctor"])), (Some(1), crashed, String::new()));
    assert_eq!(deck.run(&["list"]).status.code(), Some(0), "no agent, no profile read");
}
