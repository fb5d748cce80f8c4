//! Criterion benches over a generated 10,000-skill tree: one `skill` tool
//! call, rendering the level-1 catalogs, and a cold catalog build.
//!
//! Run: `cargo bench -p skilldeck`. Compare ratios between runs, not times:
//! the machines are shared.

// A bench whose setup fails should stop loudly.
#![allow(clippy::expect_used)]

use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use skilldeck::{Catalog, SkillTool, render};

const SKILLS: usize = 10_000;

/// Writes `n` skills shaped like the `bench/gen_tree.py` tree: a ~1.5 KB
/// SKILL.md and two sibling files each.
fn generate(root: &Path, n: usize) {
    let body = "Follow these steps carefully and report what you did.\n".repeat(26);
    for i in 0..n {
        let dir = root.join(format!("skill-{i:05}"));
        std::fs::create_dir_all(dir.join("scripts")).expect("mkdir");
        let md = format!(
            "---\nname: skill-{i:05}\ndescription: Handles task number {i} of the benchmark; use it when the user asks for task {i}.\n---\n\n# Skill {i}\n\n{body}"
        );
        std::fs::write(dir.join("SKILL.md"), md).expect("write");
        std::fs::write(dir.join("scripts/run.sh"), "#!/bin/sh\necho run\n").expect("write");
        std::fs::write(dir.join("reference.md"), "# Reference\n").expect("write");
    }
}

fn benches(c: &mut Criterion) {
    let tree = tempfile::tempdir().expect("tmp");
    generate(tree.path(), SKILLS);
    let catalog = Catalog::builder().root(tree.path()).build().expect("catalog");
    assert_eq!(catalog.skills().len(), SKILLS);
    let tool = SkillTool::new(&catalog);
    let args = json!({"name": "skill-05000"});

    c.bench_function("skill_tool_call_10k", |b| b.iter(|| tool.call(&args)));
    c.bench_function("render_toolnexus_10k", |b| b.iter(|| render::toolnexus(&catalog)));
    c.bench_function("render_agentskills_10k", |b| b.iter(|| render::agentskills(&catalog)));
    let mut group = c.benchmark_group("cold");
    group.sample_size(10);
    group.bench_function("build_catalog_10k", |b| b.iter(|| Catalog::builder().root(tree.path()).build()));
    group.finish();
}

criterion_group!(catalog, benches);
criterion_main!(catalog);
