//! Criterion benches of search over 40,000 generated skills on disk: building
//! the index (every body read from disk and tokenized), and one query. Also
//! prints, outside criterion, each query's median and p99 latency over a
//! set of requests, and the index's memory per skill.
//!
//! Run: `cargo bench -p skilldeck --bench search`. The machines are shared:
//! compare ratios between runs, not times.

// A bench whose setup fails should stop loudly.
#![allow(clippy::expect_used, missing_docs)]

use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use skilldeck::Catalog;
use skilldeck::search::{Tuned, Tuning};

const SKILLS: usize = 40_000;

/// Words of skill descriptions and bodies, common first; the generator
/// draws from them with a Zipf-like skew, then from a long tail of rare
/// made-up words (product names, jargon), as real catalogs do.
const WORDS: &[&str] = &[
    "the",
    "a",
    "to",
    "and",
    "of",
    "for",
    "in",
    "with",
    "use",
    "when",
    "file",
    "user",
    "data",
    "run",
    "code",
    "skill",
    "create",
    "test",
    "api",
    "build",
    "project",
    "check",
    "write",
    "read",
    "report",
    "review",
    "deploy",
    "server",
    "database",
    "query",
    "table",
    "document",
    "pdf",
    "image",
    "chart",
    "design",
    "format",
    "config",
    "script",
    "command",
    "error",
    "log",
    "debug",
    "release",
    "version",
    "branch",
    "commit",
    "merge",
    "pull",
    "request",
    "issue",
    "security",
    "audit",
    "scan",
    "token",
    "auth",
    "login",
    "email",
    "message",
    "slack",
    "calendar",
    "meeting",
    "note",
    "task",
    "plan",
    "schedule",
    "invoice",
    "payment",
    "customer",
    "order",
    "refund",
    "price",
    "market",
    "research",
    "paper",
    "summary",
    "translate",
    "language",
    "model",
    "prompt",
    "agent",
    "workflow",
    "pipeline",
    "docker",
    "kubernetes",
    "cloud",
    "aws",
    "azure",
    "terraform",
    "network",
    "latency",
    "cache",
    "memory",
    "performance",
    "profile",
    "benchmark",
    "frontend",
    "react",
    "css",
    "layout",
    "component",
    "mobile",
    "android",
    "ios",
    "swift",
    "python",
    "rust",
    "javascript",
    "typescript",
    "sql",
    "postgres",
    "redis",
    "kafka",
    "queue",
    "event",
    "stream",
    "video",
    "audio",
    "transcribe",
    "slides",
    "spreadsheet",
    "excel",
    "budget",
    "finance",
    "tax",
    "legal",
    "contract",
    "policy",
    "compliance",
    "privacy",
    "backup",
    "restore",
    "migrate",
    "schema",
    "index",
    "search",
    "rank",
    "graph",
];

/// A small deterministic generator (SplitMix64): the same tree every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A word: mostly common ones, skewed to the front; one in five from a
    /// tail of 50,000 rare words.
    fn word(&mut self) -> String {
        let r = self.next();
        if r.is_multiple_of(5) {
            return format!("x{}q", (r >> 8) % 50_000);
        }
        let u = ((r >> 11) as f64) / ((1u64 << 53) as f64);
        WORDS[((u * u * u) * WORDS.len() as f64) as usize].to_owned()
    }

    fn words(&mut self, n: usize) -> String {
        (0..n).map(|_| self.word()).collect::<Vec<_>>().join(" ")
    }
}

/// `n` skills with varied names, ~20-word descriptions and ~1.5 KB bodies.
fn generate(root: &Path, n: usize) {
    let mut rng = Rng(7);
    for i in 0..n {
        let name = format!("{}-{}-{i:05}", rng.word(), rng.word());
        let dir = root.join(&name);
        std::fs::create_dir_all(&dir).expect("mkdir");
        let description = rng.words(20);
        let body: String = (0..12).map(|_| format!("{}.\n\n", rng.words(20))).collect();
        let md = format!("---\nname: {name}\ndescription: {description}\n---\n\n# {name}\n\n{body}");
        std::fs::write(dir.join("SKILL.md"), md).expect("write");
    }
}

/// Requests: a few words each, some naming a skill exactly.
fn queries(catalog: &Catalog, n: usize) -> Vec<String> {
    let mut rng = Rng(11);
    let names: Vec<&str> = catalog.skills().map(|s| s.name()).collect();
    (0..n)
        .map(|i| match i % 10 {
            0 => names[(rng.next() % names.len() as u64) as usize].to_owned(),
            _ => {
                let n = 3 + (rng.next() % 6) as usize;
                rng.words(n)
            }
        })
        .collect()
}

fn resident_bytes() -> usize {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    statm.split_whitespace().nth(1).and_then(|p| p.parse::<usize>().ok()).unwrap_or(0) * 4096
}

fn benches(c: &mut Criterion) {
    let tree = tempfile::tempdir().expect("tmp");
    generate(tree.path(), SKILLS);
    let catalog = Catalog::builder().root(tree.path()).build();
    assert_eq!(catalog.skills().len(), SKILLS);

    let before = resident_bytes();
    let started = Instant::now();
    let first = catalog.search("warm up", 10);
    let built = started.elapsed();
    let after = resident_bytes();
    drop(first);
    let index = Tuned::new(&catalog, Tuning::default());
    eprintln!(
        "index of {SKILLS} skills: first build {built:.2?}; {} bytes per skill by its data structures, \
         {} bytes per skill of resident memory",
        index.heap_bytes() / SKILLS,
        after.saturating_sub(before) / SKILLS,
    );

    // Each request timed three times: one pass as it came, and each request's
    // best, which leaves out the other processes of a shared machine.
    let requests = queries(&catalog, 1000);
    let passes: Vec<Vec<Duration>> = (0..3)
        .map(|_| {
            requests
                .iter()
                .map(|q| {
                    let started = Instant::now();
                    std::hint::black_box(catalog.search(q, 10));
                    started.elapsed()
                })
                .collect()
        })
        .collect();
    let best: Vec<Duration> =
        (0..requests.len()).map(|i| passes.iter().map(|p| p[i]).min().expect("three passes")).collect();
    for (label, mut times) in [("one pass", passes[2].clone()), ("best of 3", best)] {
        times.sort_unstable();
        let at = |p: f64| times[((times.len() - 1) as f64 * p) as usize];
        eprintln!(
            "query over {SKILLS} skills ({label}): median {:.2?}, p99 {:.2?}, max {:.2?}",
            at(0.5),
            at(0.99),
            at(1.0)
        );
    }

    let mut group = c.benchmark_group("search");
    group.sample_size(10);
    group.bench_function("build_index_40k", |b| b.iter(|| Tuned::new(&catalog, Tuning::default())));
    group.finish();
    let query = "review the database migration plan before deploy";
    c.bench_function("search_query_40k", |b| b.iter(|| catalog.search(query, 10)));
    c.bench_function("search_exact_name_40k", |b| b.iter(|| catalog.search(&requests[0], 10)));
}

criterion_group!(search, benches);
criterion_main!(search);
