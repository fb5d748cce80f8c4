//! `skilldeck search` on the bundled examples: lines, JSON, a batch of
//! queries, an agent's view, and the exit codes.

use serde_json::{Value, json};

use crate::{examples, skilldeck, stderr, stdout};

fn root() -> String {
    examples().to_str().expect("utf-8").to_owned()
}

#[test]
fn search_prints_one_line_per_hit_and_exits_0() {
    let out = skilldeck(&["search", "fill in the fields of a PDF form", "--root", &root()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // Names padded to one column; one "fill" in its body ranks release-notes far below.
    assert_eq!(
        stdout(&out),
        "  2.4971  pdf-forms      Fill and check PDF forms. Use when the user supplies a PDF with form fields to complete.\n  \
         0.0718  release-notes  Draft release notes from merged changes. Use when the user asks for a changelog entry or \
         release announcement.\n"
    );
}

#[test]
fn search_that_abstains_says_so_and_exits_1() {
    let out = skilldeck(&["search", "what is the capital of Peru", "--root", &root()]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "no skill matches \"what is the capital of Peru\" well\n");
    let out = skilldeck(&["search", "what\u{1b}[31m", "--root", &root()]);
    assert_eq!(stdout(&out), "no skill matches \"what\\u{1b}[31m\" well\n");
}

#[test]
fn search_json_gives_name_description_score_and_location() {
    let out = skilldeck(&["search", "release-notes", "--json", "--root", &root()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mut found: Value = serde_json::from_str(&stdout(&out)).expect("json");
    let score = found["results"][0]["score"].take();
    // Four decimals at most.
    let score = score.as_f64().expect("a number");
    assert_eq!((score * 10_000.0).round() / 10_000.0, score);
    let location = examples().join("release-notes/SKILL.md").display().to_string();
    assert_eq!(
        found,
        json!({"query": "release-notes", "abstained": false, "results": [{
            "name": "release-notes",
            "description": "Draft release notes from merged changes. Use when the user asks for a changelog entry or release announcement.",
            "score": null,
            "location": location,
        }]})
    );
}

#[test]
fn search_queries_prints_json_lines_in_order() {
    let dir = tempfile::tempdir().expect("tmp");
    let file = dir.path().join("queries.txt");
    std::fs::write(&file, "pdf form\r\nthe weather tomorrow\n\nhello-world\n").expect("write");
    let out =
        skilldeck(&["search", "--queries", file.to_str().expect("utf-8"), "--json", "--limit", "1", "--root", &root()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let lines: Vec<Value> = stdout(&out).lines().map(|l| serde_json::from_str(l).expect("json line")).collect();
    let summary: Vec<(String, bool, Vec<String>)> = lines
        .iter()
        .map(|l| {
            let names =
                l["results"].as_array().expect("results").iter().map(|r| r["name"].as_str().unwrap().to_owned());
            (l["query"].as_str().unwrap().to_owned(), l["abstained"].as_bool().unwrap(), names.collect())
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("pdf form".to_owned(), false, vec!["pdf-forms".to_owned()]),
            ("the weather tomorrow".to_owned(), true, vec![]),
            (String::new(), true, vec![]),
            ("hello-world".to_owned(), false, vec!["hello-world".to_owned()]),
        ]
    );
    // --queries is for batches of JSON.
    let out = skilldeck(&["search", "--queries", file.to_str().expect("utf-8"), "--root", &root()]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn search_with_an_agent_sees_only_its_skills() {
    let out = skilldeck(&["search", "pdf-forms", "--agent", "a", "--allow", "hello-world", "--root", &root()]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let out = skilldeck(&["search", "hello-world", "--agent", "a", "--allow", "hello-world", "--root", &root()]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains("  hello-world  "));
}
