//! What a catalog's search index costs on a tree: the catalog's build, the
//! index's build, its saved size and the time to save and read it back.
//!
//! ```sh
//! cargo run --release -p skilldeck --example search_index -- TREE [QUERIES.jsonl]
//! ```
//!
//! With a query file (`bench/retrieval/queries.jsonl`), it also checks that
//! the index read back ranks every query as the catalog does.
// A measuring harness: a bad input should stop it loudly.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::time::Instant;

use skilldeck::{Catalog, SavedSearch};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let start = Instant::now();
    let catalog = Catalog::builder().root(&args[1]).build();
    let built = start.elapsed();
    let start = Instant::now();
    catalog.search("", 1);
    let indexed = start.elapsed();
    let start = Instant::now();
    let bytes = catalog.save_search();
    let saved = start.elapsed();
    let start = Instant::now();
    let read = SavedSearch::from_bytes(&bytes).expect("read back");
    let read_back = start.elapsed();
    let skills = catalog.skills().len();
    println!(
        "{} skills: catalog {:.0} ms, index {:.0} ms, saved {} bytes ({} a skill) in {:.0} ms, read back in {:.0} ms",
        skills,
        built.as_secs_f64() * 1e3,
        indexed.as_secs_f64() * 1e3,
        bytes.len(),
        bytes.len() / skills.max(1),
        saved.as_secs_f64() * 1e3,
        read_back.as_secs_f64() * 1e3,
    );
    if let Some(queries) = args.get(2) {
        let text = std::fs::read_to_string(queries).expect("queries");
        let mut checked = 0;
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let value: serde_json::Value = serde_json::from_str(line).expect("json");
            let query = value["query"].as_str().expect("query");
            let names = |found: skilldeck::SearchResults<'_>| {
                (found.abstained, found.hits.iter().map(|h| h.skill.name().to_owned()).collect::<Vec<_>>())
            };
            assert_eq!(names(read.search(query, 10)), names(catalog.search(query, 10)), "{query}");
            checked += 1;
        }
        println!("{checked} queries ranked the same by the index read back");
    }
}
