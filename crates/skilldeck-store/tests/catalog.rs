//! A catalog over each real store: records overlay disk, agent scopes
//! resolve, and bad records are skipped while the rest loads.

use std::sync::Arc;

use crate::Fresh;
use skilldeck::{AgentProfile, Catalog, LoadSkillTool, Warning};

fn hostile_records_are_skipped_and_the_rest_loads(fresh: &Fresh) {
    let disk = tempfile::tempdir().unwrap();
    let seed = disk.path().join("pedido");
    std::fs::create_dir_all(&seed).unwrap();
    std::fs::write(seed.join("SKILL.md"), "---\nname: pedido\ndescription: d\n---\nseed\n").unwrap();
    let store = fresh.open();
    let records = [
        ("pedido", "no fences, the disk seed stays"),
        ("alias-bomb", "---\nname: a\nx: &a [*a, *a]\n---\nbody\n"),
        ("deep", &format!("---\nname: deep\nx: {}\n---\n", "[".repeat(100_000))),
        ("huge", &format!("---\nname: huge\ndescription: {}\n---\n", "x".repeat(3 << 20))),
        ("nul", "---\nname: nul\u{0}\n---\nbody\u{0}\n"),
        ("ok", "---\nname: whatever\ndescription: fine\n---\nbody of ok\n"),
    ];
    for (key, content) in records {
        store.write(key, content, None, false).unwrap();
    }
    let catalog = Catalog::builder().root(disk.path()).store(Arc::from(store)).build().unwrap();
    let strict = Catalog::builder().store(Arc::from(fresh.open()));
    let strict = strict.frontmatter_mode(skilldeck::FrontmatterMode::Strict).build().unwrap();
    let refused: Vec<(&str, &str)> = strict
        .skips()
        .iter()
        .map(|s| (s.location.as_str(), s.reason.as_str()))
        .filter(|s| s.1 != "missing-name")
        .collect();
    assert_eq!(
        refused,
        [
            ("store:alias-bomb", "malformed-frontmatter"),
            ("store:deep", "malformed-frontmatter"),
            ("store:huge", "too-large"),
            ("store:nul", "malformed-frontmatter")
        ]
    );
    // YAML refuses the alias loop, the deep nesting (within its budget) and the
    // NUL; the line-wise fallback still finds a `name`, so they load, with a warning each.
    let names: Vec<&str> = catalog.skills().map(|s| s.name()).collect();
    assert_eq!(names, ["pedido", "alias-bomb", "deep", "nul", "ok"]);
    let recovered: Vec<&str> = catalog
        .warnings()
        .iter()
        .filter_map(|w| match w {
            Warning::RecoveredFrontmatter { location, .. } => Some(location.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(recovered, ["store:alias-bomb", "store:deep", "store:nul"]);
    assert_eq!(catalog.get("pedido").unwrap().body().unwrap(), "seed\n");
    assert_eq!(catalog.get("ok").unwrap().description(), Some("fine"));
    let skips: Vec<(&str, &str)> = catalog.skips().iter().map(|s| (s.location.as_str(), s.reason.as_str())).collect();
    assert_eq!(skips, [("store:huge", "too-large"), ("store:pedido", "missing-name"),]);
    assert!(catalog.skips().iter().all(|s| s.detail.is_some()), "every skip says what is wrong");
}

fn agent_records_resolve_through_the_store(fresh: &Fresh) {
    let store = fresh.open();
    store.write("esc", "---\nname: esc\n---\nshared\n", None, false).unwrap();
    store.write("esc", "---\nname: esc\n---\nmine\n", Some("kino"), false).unwrap();
    drop(store);
    let catalog = Catalog::builder().store(Arc::from(fresh.open())).build().unwrap();
    let (kino, biro) = (AgentProfile::new("kino"), AgentProfile::new("biro"));
    assert_eq!(LoadSkillTool::new(&catalog.view(&kino)).load("esc").output, "mine");
    assert_eq!(LoadSkillTool::new(&catalog.view(&biro)).load("esc").output, "shared");
}

on_each_store!(hostile_records_are_skipped_and_the_rest_loads, agent_records_resolve_through_the_store);
