//! Criterion benches over a generated 10,000-skill tree: one `skill` tool
//! call, rendering the level-1 catalogs (whole and within a budget), a cold
//! catalog build (plain frontmatters, and a registry's frontmatter shapes),
//! and a reload after one edit (whole, or only what changed).
//!
//! Run: `cargo bench -p skilldeck`. Compare ratios between runs, not times:
//! the machines are shared.

// A bench whose setup fails should stop loudly.
#![allow(clippy::expect_used)]

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use serde_json::json;
use skilldeck::{Budget, Catalog, LiveCatalog, Skill, SkillTool, render};

// The generated tree, shared with the store's benches.
#[path = "support/tree.rs"]
mod tree;

const SKILLS: usize = 10_000;

fn benches(c: &mut Criterion) {
    let tree = tempfile::tempdir().expect("tmp");
    tree::generate(tree.path(), SKILLS);
    let catalog = Catalog::builder().root(tree.path()).build();
    assert_eq!(catalog.skills().len(), SKILLS);
    let tool = SkillTool::new(&catalog);
    let args = json!({"name": "skill-05000"});

    c.bench_function("skill_tool_call_10k", |b| b.iter(|| tool.call(&args)));
    c.bench_function("render_toolnexus_10k", |b| b.iter(|| render::toolnexus(&catalog)));
    c.bench_function("render_agentskills_10k", |b| b.iter(|| render::agentskills(&catalog)));
    budgets(c, &catalog);
    let mut group = c.benchmark_group("cold");
    group.sample_size(10);
    group.bench_function("build_catalog_10k", |b| b.iter(|| Catalog::builder().root(tree.path()).build()));
    // The same build on a registry's frontmatter shapes: nested maps, lists,
    // quoted, wrapped and block scalars, comments, a refusal rescued.
    let mix = tempfile::tempdir().expect("tmp");
    tree::generate_registry_mix(mix.path(), SKILLS);
    let built = Catalog::builder().root(mix.path()).build();
    assert_eq!(built.skills().len(), SKILLS);
    group.bench_function("build_catalog_10k_registry_mix", |b| b.iter(|| Catalog::builder().root(mix.path()).build()));
    group.finish();
    reloads(c, tree.path());
}

/// A live catalog of the 10k tree after one `SKILL.md` changed: a whole
/// reload against reloading only that skill (`reload_changed`).
fn reloads(c: &mut Criterion, root: &std::path::Path) {
    let live = LiveCatalog::new(Catalog::builder().root(root));
    let edited = std::path::absolute(root.join("skill-05000/SKILL.md")).expect("absolute");
    let text = std::fs::read_to_string(&edited).expect("read");
    let mut n = 0u64;
    let mut edit = || {
        n += 1;
        std::fs::write(&edited, text.replace("description: ", &format!("description: v{n} "))).expect("write");
    };
    let mut group = c.benchmark_group("reload");
    group.sample_size(10);
    group.bench_function("reload_whole_after_one_edit_10k", |b| {
        b.iter_batched(&mut edit, |()| live.reload(), BatchSize::PerIteration)
    });
    group.bench_function("reload_changed_after_one_edit_10k", |b| {
        let changed = std::slice::from_ref(&edited);
        b.iter_batched(&mut edit, |()| live.reload_changed(changed), BatchSize::PerIteration)
    });
    group.finish();
}

/// The level-1 renderers on the 10k catalog within a budget: 8,000 characters,
/// and (feature `tokens`) 2,000 o200k tokens. Run with
/// `cargo bench -p skilldeck --features tokens -- budget`.
fn budgets(c: &mut Criterion, catalog: &Catalog) {
    let chars = Budget::chars(8000);
    let lazy: Vec<&Skill> = catalog.skills().collect();
    c.bench_function("budget_toolnexus_10k_8000c", |b| b.iter(|| chars.toolnexus(catalog)));
    c.bench_function("budget_agentskills_10k_8000c", |b| b.iter(|| chars.agentskills(catalog)));
    c.bench_function("budget_insika_10k_8000c", |b| b.iter(|| chars.insika(&lazy)));
    #[cfg(feature = "tokens")]
    {
        let tokens = Budget::tokens(2000, skilldeck::Encoding::O200k);
        c.bench_function("budget_toolnexus_10k_2000t", |b| b.iter(|| tokens.toolnexus(catalog)));
        c.bench_function("budget_agentskills_10k_2000t", |b| b.iter(|| tokens.agentskills(catalog)));
    }
}

criterion_group!(catalog, benches);
criterion_main!(catalog);
