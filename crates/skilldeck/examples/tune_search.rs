//! Measures search parameters on the retrieval evaluation: builds the
//! catalog of a tree once, then for each candidate tuning prints R@1, R@10,
//! NDCG@10 and MRR without abstention, and what each abstention threshold
//! would abstain on (no-skill requests) and lose (answerable ones).
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
    let catalog = Catalog::builder().root(&args[1]).build().expect("catalog");
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
    let thresholds = [0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5];
    for tuning in tunings {
        let started = std::time::Instant::now();
        let tuned = Tuned::new(&catalog, tuning);
        let built = started.elapsed();
        let (mut r1, mut r10, mut ndcg, mut mrr) = (0.0, 0.0, 0.0, 0.0);
        let mut answerable: Vec<f64> = Vec::new();
        let mut no_skill: Vec<f64> = Vec::new();
        for request in &requests {
            let (ranking, confidence) = tuned.rank(&request.query, 10);
            if std::env::var_os("DUMP").is_some() {
                let top = ranking.first().map_or("-", |s| s.name());
                let ok = ranking.first().is_some_and(|s| request.relevant.contains_key(s.name()));
                println!("{confidence:.3}\t{}\t{ok}\t{top}\t{}", request.relevant.len(), request.query);
            }
            if request.relevant.is_empty() {
                no_skill.push(confidence);
                continue;
            }
            answerable.push(confidence);
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
        let n = answerable.len() as f64;
        print!(
            "w={:?} b={:?} k1={} built={:.2}s  R@1={:.1} R@10={:.1} NDCG@10={:.3} MRR={:.3} |",
            tuning.field_weights,
            tuning.field_b,
            tuning.k1,
            built.as_secs_f64(),
            100.0 * r1 / n,
            100.0 * r10 / n,
            ndcg / n,
            mrr / n
        );
        for t in thresholds {
            let abstains = no_skill.iter().filter(|&&c| c < t).count() as f64 / no_skill.len() as f64;
            let lost = answerable.iter().filter(|&&c| c < t).count() as f64 / n;
            print!(" {t}:{:.0}/{:.1}", 100.0 * abstains, 100.0 * lost);
        }
        println!();
    }
}
