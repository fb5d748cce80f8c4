//! Criterion benches of the agent layer over a real SQLite store: one
//! agent's turn (its lazy set, the insika list, one `load_skill`) on a
//! 10,000-skill catalog with 1,000 store records, and a reload after one
//! store write (whole, and of the store alone).
//!
//! Run: `cargo bench -p skilldeck-store`. Compare ratios, not times.

// A bench whose setup fails should stop loudly.
#![allow(clippy::expect_used)]

use skilldeck::store::Precondition;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use skilldeck::store::SkillStore;
use skilldeck::{AgentProfile, Catalog, Eager, LiveCatalog, LoadSkillTool, render};
use skilldeck_store::SqliteStore;

#[path = "../../skilldeck/benches/support/tree.rs"]
mod tree;

const SKILLS: usize = 10_000;
const AGENT: &str = "agent-7";

fn record(name: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: Authored {name}.\ntriggers: [{name} now]\n---\n\n{body}\n")
}

fn benches(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tmp");
    let root = dir.path().join("skills");
    tree::generate(&root, SKILLS);
    let store = Arc::new(SqliteStore::open(dir.path().join("store.sqlite")).expect("store"));
    // 1,000 records: 600 shared overrides of disk skills, 300 new shared, 100 for the agent.
    for i in 0..600 {
        store
            .write(&format!("skill-{:05}", i * 10), &record("x", "override"), None, &Precondition::Any)
            .expect("write");
    }
    for i in 0..300 {
        store.write(&format!("authored-{i:03}"), &record("x", "new"), None, &Precondition::Any).expect("write");
    }
    for i in 0..100 {
        store
            .write(&format!("skill-{:05}", i * 7), &record("x", "mine"), Some(AGENT), &Precondition::Any)
            .expect("write");
    }
    let live = LiveCatalog::new(Catalog::builder().root(&root).store(store.clone()));
    let catalog = live.snapshot();
    assert_eq!(catalog.skills().len(), SKILLS + 300);
    let profile = AgentProfile::new(AGENT).eager(Eager::names(["skill-00001", "authored-007", "skill-00700"]));

    c.bench_function("agent_turn_10k", |b| {
        b.iter(|| {
            let view = catalog.view(&profile);
            let level1 = render::insika(&view.lazy());
            let body = LoadSkillTool::new(&view).load("skill-05000");
            (level1.len(), body.output.len())
        })
    });
    let mut group = c.benchmark_group("reload");
    group.sample_size(10);
    let mut n = 0u64;
    group.bench_function("reload_after_store_write_10k", |b| {
        b.iter(|| {
            n += 1;
            store.write("authored-000", &record("x", &n.to_string()), None, &Precondition::Any).expect("write");
            live.reload()
        })
    });
    // What a server does on a store change: the store is read again, the
    // disk skills are taken from the current snapshot.
    group.bench_function("reload_changed_after_store_write_10k", |b| {
        b.iter(|| {
            n += 1;
            store.write("authored-000", &record("x", &n.to_string()), None, &Precondition::Any).expect("write");
            live.reload_changed(&[])
        })
    });
    // The two halves, to see where a reload after a write spends its time.
    group.bench_function("store_write", |b| {
        b.iter(|| {
            n += 1;
            store.write("authored-000", &record("x", &n.to_string()), None, &Precondition::Any).expect("write")
        })
    });
    group.bench_function("reload_10k", |b| b.iter(|| live.reload()));
    group.finish();
}

criterion_group!(agents, benches);
criterion_main!(agents);
