//! The live catalog under concurrency: readers on many threads while reloads
//! run on several others.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread;

use skilldeck::{Catalog, LiveCatalog, SkillDef};

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
    let live = Arc::new(LiveCatalog::new(builder));
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
                    live.reload();
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
    }));
    let turn = live.snapshot();
    counter.store(8, Ordering::SeqCst);
    live.reload();
    assert_eq!(generation_of(&turn), 7);
    assert_eq!(generation_of(&live.snapshot()), 8);
}
