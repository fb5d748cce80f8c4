//! A catalog over each real store: records overlay disk, agent scopes
//! resolve, and bad records are skipped while the rest loads.

use skilldeck::store::Precondition;
use std::sync::Arc;

use crate::Fresh;
use skilldeck::{AgentProfile, Catalog, LiveCatalog, LoadSkillTool, Warning};

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
        store.write(key, content, None, &Precondition::Any).unwrap();
    }
    let catalog = Catalog::builder().root(disk.path()).store(Arc::from(store)).build();
    let strict = Catalog::builder().store(Arc::from(fresh.open()));
    let strict = strict.frontmatter_mode(skilldeck::FrontmatterMode::Strict).build();
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
    // NUL; the line-wise fallback still finds a `name`, so they load, with a
    // warning each, but for the one whose rescued name holds the NUL.
    let names: Vec<&str> = catalog.skills().map(|s| s.name()).collect();
    assert_eq!(names, ["pedido", "alias-bomb", "deep", "ok"]);
    let recovered: Vec<&str> = catalog
        .warnings()
        .iter()
        .filter_map(|w| match w {
            Warning::RecoveredFrontmatter { location, .. } => Some(location.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(recovered, ["store:alias-bomb", "store:deep"]);
    assert_eq!(catalog.get("pedido").unwrap().body().unwrap(), "seed\n");
    assert_eq!(catalog.get("ok").unwrap().description(), Some("fine"));
    let skips: Vec<(&str, &str)> = catalog.skips().iter().map(|s| (s.location.as_str(), s.reason.as_str())).collect();
    assert_eq!(skips, [("store:huge", "too-large"), ("store:nul", "invalid-name"), ("store:pedido", "missing-name")]);
    let nul = catalog.skips().iter().find(|s| s.location == "store:nul").unwrap();
    assert_eq!(nul.detail.as_deref(), Some("a skill name cannot contain U+0000, a control character"));
    assert!(catalog.skips().iter().all(|s| s.detail.is_some()), "every skip says what is wrong");
}

fn agent_records_resolve_through_the_store(fresh: &Fresh) {
    let store = fresh.open();
    store.write("esc", "---\nname: esc\n---\nshared\n", None, &Precondition::Any).unwrap();
    store.write("esc", "---\nname: esc\n---\nmine\n", Some("kino"), &Precondition::Any).unwrap();
    drop(store);
    let catalog = Catalog::builder().store(Arc::from(fresh.open())).build();
    let (kino, biro) = (AgentProfile::new("kino"), AgentProfile::new("biro"));
    assert_eq!(LoadSkillTool::new(&catalog.view(&kino)).load("esc").output, "mine");
    assert_eq!(LoadSkillTool::new(&catalog.view(&biro)).load("esc").output, "shared");
}

on_each_store!(
    hostile_records_are_skipped_and_the_rest_loads,
    agent_records_resolve_through_the_store,
    a_store_that_fails_keeps_its_last_good_skills,
);

/// The store fails under a live catalog (its table renamed away: every read
/// fails, as when a server is down or a file breaks): reloads, whole or of
/// what changed, keep the last good store skills, shared and per agent, with
/// a warning saying so, while the disk reloads as usual; once the store
/// answers again its skills are read afresh. A store that fails at the first
/// build has nothing to keep: its skills are missing, and the warning says it failed.
fn a_store_that_fails_keeps_its_last_good_skills(fresh: &Fresh) {
    let (table, missing) = match fresh.backend {
        crate::Backend::Sqlite => ("skill", "no such table: skill"),
        crate::Backend::Postgres => ("skilldeck_skill", "ERROR: relation \"skilldeck_skill\" does not exist"),
    };
    let disk = tempfile::tempdir().unwrap();
    let seed = disk.path().join("disk");
    std::fs::create_dir_all(&seed).unwrap();
    std::fs::write(seed.join("SKILL.md"), "---\nname: disk\ndescription: v1\n---\n").unwrap();
    let store: Arc<dyn skilldeck::store::SkillStore> = Arc::from(fresh.open());
    store.write("pedido", "---\nname: pedido\n---\nv1\n", None, &Precondition::Any).unwrap();
    store.write("pedido", "---\nname: pedido\n---\nloja's\n", Some("loja"), &Precondition::Any).unwrap();
    let builder = Catalog::builder().root(disk.path()).store(store.clone());
    let live = LiveCatalog::new(builder.clone());

    fresh.sql(&format!("ALTER TABLE {table} RENAME TO away"));
    std::fs::write(seed.join("SKILL.md"), "---\nname: disk\ndescription: v2\n---\n").unwrap();
    for catalog in [live.reload_changed(&[seed.join("SKILL.md")]), live.reload()] {
        assert_eq!(catalog.get("disk").unwrap().description(), Some("v2"), "the disk reloaded");
        assert_eq!(catalog.get("pedido").unwrap().body().unwrap(), "v1\n", "the last good copy");
        assert_eq!(catalog.agent_skills("loja")[0].body().unwrap(), "loja's\n");
        let [Warning::StoreStale { message }] = catalog.warnings() else { panic!("{:?}", catalog.warnings()) };
        assert!(message.ends_with(missing), "{message}");
        let shown = catalog.warnings()[0].to_string();
        assert!(shown.ends_with("; serving the last good copy of its skills"), "{shown}");
    }
    let first = LiveCatalog::new(builder).snapshot();
    assert!(first.get("pedido").is_none(), "nothing to keep");
    assert!(matches!(first.warnings(), [Warning::StoreFailed { .. }]), "{:?}", first.warnings());

    fresh.sql(&format!("ALTER TABLE away RENAME TO {table}"));
    store.write("pedido", "---\nname: pedido\n---\nv2\n", None, &Precondition::Any).unwrap();
    let back = live.reload();
    assert_eq!(back.get("pedido").unwrap().body().unwrap(), "v2\n", "read again");
    assert_eq!(back.warnings(), []);
}
