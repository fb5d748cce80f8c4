//! Measures search parameters on the retrieval evaluation: builds the
//! catalog of a tree once, then for each candidate tuning prints R@1, R@10,
//! NDCG@10 and MRR without abstention; what its abstention rule abstains on
//! (no-skill requests) and loses (answerable ones); whether it refuses any
//! keyword query of the kind a model sends; and, as a check on overfitting,
//! the rule chosen on one half of the requests (even or odd lines) measured
//! on the other.
//!
//! ```text
//! bench/retrieval/fetch_tree.sh /tmp/tree
//! cargo run --release -p skilldeck --example tune_search -- /tmp/tree bench/retrieval/queries.jsonl [grid]
//! ```

// A tuning harness: a bad input should stop it loudly.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::collections::HashMap;

use serde_json::Value;
use skilldeck::Catalog;
use skilldeck::search::{Tuned, Tuning};

struct Request {
    query: String,
    relevant: HashMap<String, i32>,
}

fn dcg(gains: impl Iterator<Item = f64>) -> f64 {
    gains.enumerate().map(|(rank, g)| g / ((rank + 2) as f64).log2()).sum()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let catalog = Catalog::builder().root(&args[1]).build();
    let requests: Vec<Request> = std::fs::read_to_string(&args[2])
        .expect("queries")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let v: Value = serde_json::from_str(line).expect("json");
            let relevant = v["relevant"]
                .as_object()
                .expect("relevant")
                .iter()
                .map(|(k, g)| (k.clone(), g.as_i64().expect("grade") as i32))
                .collect();
            Request { query: v["query"].as_str().expect("query").to_owned(), relevant }
        })
        .collect();
    let grid = args.get(3).map(String::as_str) == Some("grid");
    let mut tunings: Vec<Tuning> = vec![Tuning::default()];
    // `stem`: how much a match by stem alone counts, at two body cuts.
    if args.get(3).map(String::as_str) == Some("stem") {
        for body_bytes in [4000, 32 * 1024] {
            for stem_weight in [0.0, 0.3, 0.5, 0.7, 1.0] {
                tunings.push(Tuning { body_bytes, stem_weight, ..Tuning::default() });
            }
        }
    }
    // `body`: how much of a body to index, against how much weight the body gets.
    if args.get(3).map(String::as_str) == Some("body") {
        for body_bytes in [500, 1000, 2000, 4000, 8000, 32 * 1024] {
            for body in [0.2, 0.4, 0.8, 1.2] {
                let mut t = Tuning { body_bytes, ..Tuning::default() };
                t.field_weights[3] = body;
                tunings.push(t);
            }
        }
    }
    if grid {
        for name in [3.0, 5.0] {
            for description in [2.0] {
                for body in [0.2, 0.4, 0.8] {
                    for k1 in [1.2, 2.0] {
                        let mut t = Tuning::default();
                        t.field_weights = [name, description, t.field_weights[2], body];
                        t.k1 = k1;
                        tunings.push(t);
                    }
                }
            }
        }
    }
    println!("{} requests over {} skills", requests.len(), catalog.skills().len());
    for tuning in tunings {
        let started = std::time::Instant::now();
        let tuned = Tuned::new(&catalog, tuning);
        let built = started.elapsed();
        let (mut r1, mut r10, mut ndcg, mut mrr) = (0.0, 0.0, 0.0, 0.0);
        let mut signals: Vec<Signal> = Vec::new();
        for (at, request) in requests.iter().enumerate() {
            let (ranking, coverage, strength) = tuned.rank(&request.query, 10);
            if std::env::var_os("DUMP").is_some() {
                let top = ranking.first().map_or("-", |s| s.name());
                let ok = ranking.first().is_some_and(|s| request.relevant.contains_key(s.name()));
                println!("{coverage:.3}\t{strength:.3}\t{}\t{ok}\t{top}\t{}", request.relevant.len(), request.query);
            }
            let answerable = !request.relevant.is_empty();
            signals.push(Signal { coverage, strength, answerable, dev: at % 2 == 0 });
            if !answerable {
                continue;
            }
            let hits: Vec<bool> = ranking.iter().map(|s| request.relevant.contains_key(s.name())).collect();
            r1 += f64::from(u8::from(hits.first() == Some(&true)));
            r10 += f64::from(u8::from(hits.contains(&true)));
            let mut ideal: Vec<f64> = request.relevant.values().map(|&g| f64::from(2i32.pow(g as u32) - 1)).collect();
            ideal.sort_by(|a, b| b.total_cmp(a));
            ideal.truncate(10);
            let gains =
                ranking.iter().map(|s| f64::from(2i32.pow(*request.relevant.get(s.name()).unwrap_or(&0) as u32) - 1));
            ndcg += dcg(gains) / dcg(ideal.into_iter());
            mrr += hits.iter().position(|&h| h).map_or(0.0, |p| 1.0 / (p + 1) as f64);
        }
        let n = signals.iter().filter(|s| s.answerable).count() as f64;
        println!(
            "w={:?} b={:?} k1={} body={} stem={} built={:.2}s  R@1={:.1} R@10={:.1} NDCG@10={:.3} MRR={:.3}",
            tuning.field_weights,
            tuning.field_b,
            tuning.k1,
            tuning.body_bytes,
            tuning.stem_weight,
            built.as_secs_f64(),
            100.0 * r1 / n,
            100.0 * r10 / n,
            ndcg / n,
            mrr / n
        );
        let keywords: Vec<Signal> = KEYWORD_QUERIES
            .iter()
            .map(|q| {
                let (_, coverage, strength) = tuned.rank(q, 10);
                Signal { coverage, strength, answerable: true, dev: true }
            })
            .collect();
        let rule = (tuning.abstain_coverage, tuning.abstain_strength);
        let (abstains, lost) = abstention(&signals, rule, |_| true);
        println!("  abstention {rule:?}: all {abstains:.0}% / {lost:.1}% lost");
        let refused: Vec<&str> =
            KEYWORD_QUERIES.iter().zip(&keywords).filter(|(_, s)| s.abstains(rule)).map(|(q, _)| *q).collect();
        println!("  keyword queries refused: {refused:?}");
        // Cross-validation: choose the rule on one half (even or odd ids), measure it on the other.
        for dev in [true, false] {
            let chosen = choose(&signals, &keywords, |s| s.dev == dev);
            let (abstains, lost) = abstention(&signals, chosen, |s| s.dev != dev);
            println!(
                "  chosen on {} half {chosen:?}: held-out {abstains:.0}% / {lost:.1}% lost",
                if dev { "even" } else { "odd" }
            );
        }
    }
}

/// Keyword queries, the way a model writes a `find_skills` call: a search
/// that refuses them is useless to a model, whatever it scores on sentences.
const KEYWORD_QUERIES: &[&str] = &[
    "docker",
    "kubernetes",
    "terraform",
    "react hooks",
    "seo audit",
    "invoice",
    "excel formulas",
    "translate document",
    "send email",
    "slack message",
    "merge pdf files",
    "debug memory leak node",
    "git rebase",
    "unit tests python",
    "image generation",
    "scrape website",
    "sql query optimization",
    "deploy to aws",
    "write blog post",
    "resume review",
];

/// What the abstention rule reads for one request.
struct Signal {
    coverage: f64,
    strength: f64,
    answerable: bool,
    dev: bool,
}

impl Signal {
    fn abstains(&self, (abstain_coverage, abstain_strength): (f64, f64)) -> bool {
        Tuning { abstain_coverage, abstain_strength, ..Tuning::default() }.abstains(self.coverage, self.strength)
    }
}

/// The share of no-skill requests `rule` abstains on and of answerable ones it loses, in percent.
fn abstention(signals: &[Signal], rule: (f64, f64), within: impl Fn(&Signal) -> bool) -> (f64, f64) {
    let share = |answerable: bool| {
        let set: Vec<&Signal> = signals.iter().filter(|s| within(s) && s.answerable == answerable).collect();
        100.0 * set.iter().filter(|s| s.abstains(rule)).count() as f64 / set.len().max(1) as f64
    };
    (share(false), share(true))
}

/// The rule that abstains most within `within` while losing at most 5% and refusing no keyword query.
fn choose(signals: &[Signal], keywords: &[Signal], within: impl Fn(&Signal) -> bool + Copy) -> (f64, f64) {
    let mut best = (f64::MIN, (0.0, 0.0));
    for c in 0..=50 {
        for t in 0..=50 {
            let rule = (f64::from(c) * 0.02, f64::from(t) * 0.02);
            let (abstains, lost) = abstention(signals, rule, within);
            if lost <= 5.0 && !keywords.iter().any(|k| k.abstains(rule)) && abstains > best.0 {
                best = (abstains, rule);
            }
        }
    }
    best.1
}
