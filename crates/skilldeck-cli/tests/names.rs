//! Names at the command line: the engine's name rule for what `store`
//! writes, and a text whose own `name` is another skill's, refused with
//! exit 1 before anything is written, on SQLite and on PostgreSQL.

use std::process::Output;

use crate::{Deck, stderr, stdout};

fn refusal(out: &Output) -> (Option<i32>, String, String) {
    (out.status.code(), stdout(out), stderr(out))
}

fn refused(text: &str) -> (Option<i32>, String, String) {
    (Some(1), String::new(), format!("skilldeck: {text}\n"))
}

#[test]
fn names_on_a_sqlite_file() {
    names(&Deck::new());
}

#[test]
fn names_on_postgres() {
    if let Some(deck) = Deck::postgres() {
        names(&deck);
    }
}

fn names(deck: &Deck) {
    // `store write greet` of a text named `other` (issue 26): refused, naming both.
    let other = "---\nname: other\ndescription: The other one.\n---\nBody of other.\n";
    assert_eq!(
        refusal(&deck.write("greet", other, &[])),
        refused("frontmatter `name` 'other' is not the skill name 'greet'")
    );
    assert_eq!(
        refusal(&deck.write("greet", other, &["--agent", "loja"])),
        refused("frontmatter `name` 'other' is not the skill name 'greet'")
    );
    let text = |name: &str| format!("---\nname: {name}\ndescription: d\n---\nbody\n");
    // The name rule, for the skill and for the agent; the message escaped as every error is.
    let bad = [
        ("two\nlines", "a skill name cannot contain U+000A, a control character"),
        ("evil\u{202E}txt", "a skill name cannot contain U+202E, a format character"),
        ("a/b", "a skill name cannot contain '/'"),
        ("..", "a skill name cannot be '.' or '..'"),
        (" ", "name is required"),
    ];
    for (name, message) in bad {
        assert_eq!(refusal(&deck.write(name, &text(name), &[])), refused(message), "{name:?}");
        assert_eq!(refusal(&deck.run(&["store", "restore", name, "0"])), refused(message), "{name:?}");
    }
    assert_eq!(
        refusal(&deck.write("ok", &text("ok"), &["--agent", "bia\u{2028}chef"])),
        refused("an agent id cannot contain U+2028, a line separator")
    );
    assert_eq!(
        refusal(&deck.run(&["store", "profile", "a/b", "--allow", "x"])),
        refused("an agent id cannot contain '/'")
    );
    assert_eq!(
        refusal(&deck.run(&["store", "profile", "a\tb", "--allow", "x"])),
        refused("an agent id cannot contain U+0009, a control character")
    );
    let long = "x".repeat(300);
    assert_eq!(
        refusal(&deck.write(&long, &text(&long), &[])),
        refused("a skill name is at most 255 bytes long; this one is 300")
    );
    // Nothing was written.
    assert_eq!(stdout(&deck.run(&["store", "agents"])), "[]\n");
    assert_eq!(stdout(&deck.run(&["store", "profiles"])), "[]\n");
    let list: serde_json::Value = serde_json::from_str(&stdout(&deck.run(&["list", "--json"]))).unwrap();
    let origins: Vec<&str> = list["skills"].as_array().unwrap().iter().map(|s| s["origin"].as_str().unwrap()).collect();
    assert_eq!(origins, ["fs", "fs"], "only the disk skills");
    // A name as a registry spells it is stored and served under it.
    let spaced = text("PDF Processing");
    assert_eq!(deck.write("PDF Processing", &spaced, &[]).status.code(), Some(0));
    assert_eq!(stdout(&deck.run(&["load", "PDF Processing", "--agent", "loja"])), "body");
}
