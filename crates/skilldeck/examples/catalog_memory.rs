//! Where a catalog's bytes go: builds the catalog of a tree and prints the
//! growth of the peak and of the memory held after the build (as the kernel
//! counts them),
//! per skill (exposed and shadowed: a catalog holds both), then what each
//! part of a skill holds at its smallest (each part cloned, which allocates
//! only what its length needs, and counted).
//!
//! ```text
//! cargo run --release -p skilldeck --example catalog_memory -- /work/eval-tree
//! ```

// A measuring harness: a bad input should stop it loudly.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use serde_json::Value;
use skilldeck::{Catalog, Frontmatter, Origin, Skill};

/// What a map's table and entries point to (indexmap: a hash index of
/// `usize` per slot plus a control byte, and a vector of hash, key, value).
fn map_heap<'a>(capacity: usize, entries: impl Iterator<Item = (&'a String, &'a Value)>) -> usize {
    let slots = if capacity == 0 { 0 } else { (capacity * 8 / 7).next_power_of_two() };
    let bucket = size_of::<usize>() + size_of::<String>() + size_of::<Value>();
    slots * (size_of::<usize>() + 1)
        + capacity * bucket
        + entries.map(|(k, v)| k.capacity() + value_heap(v)).sum::<usize>()
}

fn value_heap(value: &Value) -> usize {
    match value {
        Value::String(s) => s.capacity(),
        Value::Array(items) => items.capacity() * size_of::<Value>() + items.iter().map(value_heap).sum::<usize>(),
        Value::Object(map) => map_heap(map.len(), map.iter()),
        _ => 0,
    }
}

/// A field of `/proc/self/status`, in bytes (Linux only; the workspace
/// forbids the `unsafe` a counting allocator needs, so the kernel counts).
fn status(field: &str) -> usize {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status (Linux)");
    let line = status.lines().find(|l| l.starts_with(field)).expect("field");
    line.split_whitespace().nth(1).and_then(|kb| kb.parse::<usize>().ok()).expect("kB") * 1024
}

/// The anonymous memory `make` adds and keeps (page granularity: meant for
/// thousands of skills at once).
fn held<T>(make: impl FnOnce() -> T) -> (usize, T) {
    let before = status("RssAnon:");
    let value = make();
    (status("RssAnon:").saturating_sub(before), value)
}

fn main() {
    let root = std::env::args().nth(1).expect("usage: catalog_memory ROOT");
    let base = status("VmHWM:");
    let (kept, catalog) = held(|| Catalog::builder().root(&root).build());
    let peak = status("VmHWM:") - base;
    let skills: Vec<&Skill> = catalog.skills().chain(catalog.shadowed().iter().map(|s| &s.skill)).collect();
    let n = skills.len();
    println!(
        "{n} skills ({} exposed), {} skips, {} warnings",
        catalog.skills().len(),
        catalog.skips().len(),
        catalog.warnings().len()
    );
    println!("peak during the build {:>8} B per skill", peak / n);
    println!("held after the build  {:>8} B per skill", kept / n);
    let part = |label: &str, bytes: usize| println!("  {label:<44} {:>6} B per skill", bytes / n);
    // The struct behind each `Skill`'s `Arc` (its fields' sizes, as laid out
    // in skill.rs) and what its fields point to, at their capacities.
    let fields = 2 * size_of::<usize>()
        + 4 * size_of::<String>()
        + size_of::<Frontmatter>()
        + 2 * size_of::<Vec<String>>()
        + size_of::<Origin>()
        + size_of::<std::sync::OnceLock<String>>()
        + size_of::<Option<std::sync::Arc<str>>>()
        + size_of::<usize>();
    part("Skill struct (Arc counts and fields)", fields * n);
    part("name", skills.iter().map(|s| s.name().len()).sum());
    part("description", skills.iter().map(|s| s.description().map_or(0, str::len)).sum());
    // Most skills hold their frontmatter's text and make the mapping when
    // asked (`Skill::frontmatter`); this is the mapping's size when made.
    let (fm_name_desc, fm_rest): (usize, usize) = skills.iter().fold((0, 0), |(a, b), s| {
        let fm = s.frontmatter();
        let texts = ["name", "description"].iter().map(|k| fm.get(*k).map_or(0, value_heap)).sum::<usize>();
        (a + texts, b + map_heap(fm.capacity(), fm.iter()) - texts)
    });
    part("frontmatter map, made: name and description", fm_name_desc);
    part("frontmatter map, made: the rest", fm_rest);
    part("location", skills.iter().map(|s| s.location().len()).sum());
    let paths = skills
        .iter()
        .map(|s| match s.origin() {
            Origin::Fs { skill_md, dir } => skill_md.capacity() + dir.capacity(),
            _ => 0,
        })
        .sum();
    part("origin: SKILL.md path and directory", paths);
    part(
        "triggers and companions",
        skills
            .iter()
            .map(|s| s.triggers().iter().chain(s.companions()).map(|t| t.len() + size_of::<String>()).sum::<usize>())
            .sum(),
    );
    println!("  (heap bytes at capacity, before the allocator's rounding and headers)");
}
