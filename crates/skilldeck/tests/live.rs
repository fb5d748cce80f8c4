//! The live catalog under concurrency: readers on many threads while reloads
//! run on several others.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread;

use skilldeck::store::{MemoryStore, Record, SkillStore, StoreError, Version};
use skilldeck::{Catalog, LiveCatalog, SkillDef, Warning};

const SKILLS: usize = 50;

/// A catalog whose every skill body is the generation it was built from.
fn generation_of(catalog: &Catalog) -> u64 {
    let generations: Vec<u64> = catalog.skills().map(|s| s.body().unwrap().parse().unwrap()).collect();
    assert_eq!(generations.len(), SKILLS);
    assert!(generations.iter().all(|g| *g == generations[0]), "a snapshot mixes generations: {generations:?}");
    generations[0]
}

#[test]
fn readers_never_see_a_mix_and_the_last_reload_wins() {
    let counter = Arc::new(AtomicU64::new(0));
    let source = counter.clone();
    // Each build reads the generation once, so one build is one generation.
    let builder = Catalog::builder().provider(move || {
        let generation = source.load(Ordering::SeqCst);
        Ok((0..SKILLS).map(|i| SkillDef::new(format!("s{i}")).content(generation.to_string())).collect())
    });
    let live = Arc::new(LiveCatalog::new(builder).unwrap());
    let done = Arc::new(AtomicBool::new(false));

    let readers: Vec<_> = (0..6)
        .map(|_| {
            let (live, done) = (live.clone(), done.clone());
            thread::spawn(move || {
                let (mut last, mut reads) = (0, 0u64);
                while !done.load(Ordering::SeqCst) || reads == 0 {
                    let seen = generation_of(&live.snapshot());
                    assert!(seen >= last, "went back from generation {last} to {seen}");
                    (last, reads) = (seen, reads + 1);
                }
                reads
            })
        })
        .collect();
    let reloaders: Vec<_> = (0..3)
        .map(|_| {
            let (live, counter) = (live.clone(), counter.clone());
            thread::spawn(move || {
                for _ in 0..100 {
                    counter.fetch_add(1, Ordering::SeqCst);
                    live.reload().unwrap();
                }
            })
        })
        .collect();
    for reloader in reloaders {
        reloader.join().unwrap();
    }
    done.store(true, Ordering::SeqCst);
    for reader in readers {
        assert!(reader.join().unwrap() > 0);
    }
    assert_eq!(generation_of(&live.snapshot()), 300, "the final snapshot is the newest");
}

#[test]
fn a_snapshot_outlives_reloads() {
    let counter = Arc::new(AtomicU64::new(7));
    let source = counter.clone();
    let live = LiveCatalog::new(Catalog::builder().provider(move || {
        let generation = source.load(Ordering::SeqCst);
        Ok((0..SKILLS).map(|i| SkillDef::new(format!("s{i}")).content(generation.to_string())).collect())
    }))
    .unwrap();
    let turn = live.snapshot();
    counter.store(8, Ordering::SeqCst);
    live.reload().unwrap();
    assert_eq!(generation_of(&turn), 7);
    assert_eq!(generation_of(&live.snapshot()), 8);
}

/// A store that can be taken down: every read fails while `down` is set, as
/// a PostgreSQL server that stopped or a SQLite file that broke.
#[derive(Default)]
struct Outage {
    records: MemoryStore,
    down: AtomicBool,
}

impl Outage {
    fn check(&self) -> Result<(), StoreError> {
        if self.down.load(Ordering::SeqCst) {
            return Err(StoreError::Backend { location: "db".into(), message: "down".into() });
        }
        Ok(())
    }
}

impl SkillStore for Outage {
    fn get(&self, name: &str, agent: Option<&str>) -> Result<Option<Record>, StoreError> {
        self.check()?;
        self.records.get(name, agent)
    }
    fn all(&self, agent: Option<&str>) -> Result<Vec<(String, Record)>, StoreError> {
        self.check()?;
        self.records.all(agent)
    }
    fn agents(&self) -> Result<Vec<String>, StoreError> {
        self.check()?;
        self.records.agents()
    }
    fn write(&self, name: &str, content: &str, agent: Option<&str>, create_only: bool) -> Result<Record, StoreError> {
        self.check()?;
        self.records.write(name, content, agent, create_only)
    }
    fn delete(&self, name: &str, agent: Option<&str>) -> Result<bool, StoreError> {
        self.check()?;
        self.records.delete(name, agent)
    }
    fn versions(&self, name: &str, agent: Option<&str>) -> Result<Vec<Version>, StoreError> {
        self.check()?;
        self.records.versions(name, agent)
    }
    fn restore(&self, name: &str, index: i64, agent: Option<&str>) -> Result<Record, StoreError> {
        self.check()?;
        self.records.restore(name, index, agent)
    }
}

/// A store that fails during a reload keeps its last good skills, shared and
/// per agent, whole reload or reload of what changed, with a warning saying
/// so; the other sources reload as usual, and the store's skills are read
/// again once it answers. A store that fails at the first build has nothing
/// to keep: its skills are missing, and the warning says it failed.
#[test]
fn a_store_outage_keeps_the_last_good_store_skills() {
    let dir = tempfile::tempdir().unwrap();
    let disk = dir.path().join("disk");
    std::fs::create_dir_all(&disk).unwrap();
    std::fs::write(disk.join("SKILL.md"), "---\nname: disk\ndescription: v1\n---\n").unwrap();
    let store = Arc::new(Outage::default());
    store.write("pedido", "---\nname: pedido\ndescription: stored\n---\nv1\n", None, false).unwrap();
    store.write("pedido", "---\nname: pedido\n---\nloja's\n", Some("loja"), false).unwrap();
    let live = LiveCatalog::new(Catalog::builder().root(dir.path()).store(store.clone())).unwrap();

    store.down.store(true, Ordering::SeqCst);
    std::fs::write(disk.join("SKILL.md"), "---\nname: disk\ndescription: v2\n---\n").unwrap();
    for catalog in [live.reload_changed(&[disk.join("SKILL.md")]).unwrap(), live.reload().unwrap()] {
        assert_eq!(catalog.get("disk").unwrap().description(), Some("v2"), "the disk edit reloaded");
        assert_eq!(catalog.get("pedido").unwrap().body().unwrap(), "v1\n", "the last good copy");
        assert_eq!(catalog.agent_skills("loja")[0].body().unwrap(), "loja's\n");
        let stale = Warning::StoreStale { message: "skill store db: down".into() };
        assert_eq!(catalog.warnings(), std::slice::from_ref(&stale));
        assert_eq!(
            stale.to_string(),
            "skill store failed: skill store db: down; serving the last good copy of its skills"
        );
    }

    store.down.store(false, Ordering::SeqCst);
    store.write("pedido", "---\nname: pedido\n---\nv2\n", None, false).unwrap();
    let back = live.reload().unwrap();
    assert_eq!(back.get("pedido").unwrap().body().unwrap(), "v2\n", "read again");
    assert_eq!(back.warnings(), []);

    store.down.store(true, Ordering::SeqCst);
    let first = LiveCatalog::new(Catalog::builder().root(dir.path()).store(store.clone())).unwrap().snapshot();
    assert!(first.get("pedido").is_none());
    assert_eq!(first.warnings(), [Warning::StoreFailed { message: "skill store db: down".into() }]);
}
