//! Publication: limits, listing, pagination, `SKILL.md` of data and store
//! skills, digests.

use skilldeck::store::Precondition;
use std::collections::HashSet;
use std::fs;
use std::path::Path;
use std::sync::Arc;

use skilldeck::store::{MemoryStore, SkillStore};
use skilldeck::{AgentProfile, Catalog, Confinement, Eager, SkillDef};

use super::*;

fn skill(root: &Path, name: &str, files: &[(&str, &[u8])]) {
    let dir = root.join(name);
    fs::create_dir_all(&dir).unwrap();
    let md = format!("---\nname: {name}\ndescription: Skill {name}.\n---\nBody of {name}.\n");
    fs::write(dir.join("SKILL.md"), md).unwrap();
    for (rel, bytes) in files {
        let path = dir.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, bytes).unwrap();
    }
}

fn publish(root: &Path) -> Publication {
    Publication::build(&Catalog::builder().root(root).build(), None)
}

fn names(entries: &[&Entry]) -> Vec<String> {
    entries.iter().map(|e| e.name.clone()).collect()
}

#[test]
fn a_skill_over_either_limit_is_left_out_of_everything() {
    let dir = tempfile::tempdir().unwrap();
    let many: Vec<(String, &[u8])> = (0..MAX_FILES - 1).map(|i| (format!("f/{i:03}.txt"), &b"x"[..])).collect();
    let many: Vec<(&str, &[u8])> = many.iter().map(|(p, b)| (p.as_str(), *b)).collect();
    skill(dir.path(), "at-limit", &many);
    let over: Vec<(String, &[u8])> = (0..MAX_FILES).map(|i| (format!("f/{i:03}.txt"), &b"x"[..])).collect();
    let over: Vec<(&str, &[u8])> = over.iter().map(|(p, b)| (p.as_str(), *b)).collect();
    skill(dir.path(), "too-many", &over);
    let big = vec![0u8; usize::try_from(MAX_BYTES).unwrap()];
    skill(dir.path(), "too-big", &[("big.bin", &big)]);
    skill(dir.path(), "small", &[("a.txt", b"a")]);
    let publication = publish(dir.path());
    let published: Vec<&str> = publication.entries.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(published, ["at-limit", "small"]);
    assert_eq!(publication.entries[0].files.len(), MAX_FILES);
    let left_out: HashSet<&str> = publication.left_out.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(left_out, HashSet::from(["too-many", "too-big"]));
    assert!(publication.left_out.iter().any(|(_, why)| why.contains("more than 512 files")));
    assert!(publication.left_out.iter().any(|(_, why)| why.contains("16 MiB")));
    assert!(publication.resource("skill://too-big/SKILL.md").is_none());
    assert!(publication.by_uri("skill://too-many/SKILL.md").is_none());
    assert!(publication.by_name("too-big").is_none());
}

#[test]
fn pages_follow_uri_order_and_never_split_a_skill() {
    let dir = tempfile::tempdir().unwrap();
    for i in (0..25).rev() {
        skill(dir.path(), &format!("s{i:02}"), &[("ref.md", b"r"), ("bin/x.dat", b"\x00\x01")]);
    }
    let publication = publish(dir.path());
    assert_eq!(publication.listed_len(), 25);
    let digests = DigestCache::default();
    for size in [1, 2, 7, 25, 100] {
        let mut seen = Vec::new();
        let mut cursor = None;
        loop {
            let (page, next) = publication.page(cursor.as_deref(), size).unwrap();
            assert!(page.len() <= size);
            for entry in &page {
                // A page holds whole manifests: every file of the skill.
                let manifest = entry.manifest(&digests).unwrap();
                let SkillResources::Files(files) = &manifest.resources else { panic!("dynamic") };
                assert_eq!(files.len(), 3);
            }
            seen.extend(names(&page));
            match next {
                Some(next) => cursor = Some(next),
                None => break,
            }
        }
        let expected: Vec<String> = (0..25).map(|i| format!("s{i:02}")).collect();
        assert_eq!(seen, expected, "page size {size}");
    }
    assert!(publication.page(Some("bogus!"), 10).is_err());
    assert!(publication.page(Some("c2tpbGw6Ly94"), 10).is_err(), "skill://x is not a SKILL.md uri");
}

#[test]
fn a_cursor_survives_a_reload() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["a", "c", "e"] {
        skill(dir.path(), name, &[]);
    }
    let before = publish(dir.path());
    let (page, next) = before.page(None, 2).unwrap();
    assert_eq!(names(&page), ["a", "c"]);
    skill(dir.path(), "b", &[]);
    skill(dir.path(), "d", &[]);
    // The next page starts after "c" in the new generation.
    let after = publish(dir.path());
    let (page, next) = after.page(next.as_deref(), 2).unwrap();
    assert_eq!((names(&page), next), (vec!["d".to_owned(), "e".to_owned()], None));
}

#[test]
fn manifests_carry_digests_sizes_and_the_frontmatter_verbatim() {
    let dir = tempfile::tempdir().unwrap();
    let skill_dir = dir.path().join("alpha");
    fs::create_dir_all(skill_dir.join("scripts")).unwrap();
    let md = b"---\nname: alpha\ndescription: Alpha.\nlicense: MIT\ncount: 3\ntags: [a, b]\n---\nBody.\n";
    fs::write(skill_dir.join("SKILL.md"), md).unwrap();
    fs::write(skill_dir.join("scripts/run.sh"), b"echo hi\n").unwrap();
    let publication = publish(dir.path());
    let manifest = publication.entries[0].manifest(&DigestCache::default()).unwrap();
    let wire = serde_json::to_value(&manifest).unwrap();
    assert_eq!(
        wire,
        serde_json::json!({
            "uri": "skill://alpha/SKILL.md",
            "frontmatter": {"name": "alpha", "description": "Alpha.", "license": "MIT", "count": 3, "tags": ["a", "b"]},
            "resources": [
                {"uri": "skill://alpha/SKILL.md", "digest": sha256_digest(md), "size": md.len()},
                {"uri": "skill://alpha/scripts/run.sh", "digest": sha256_digest(b"echo hi\n"), "size": 8},
            ],
        })
    );
}

#[test]
fn skills_the_extension_cannot_list_are_still_resources() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        fs::create_dir_all(dir.path().join(name)).unwrap();
        fs::write(dir.path().join(name).join("SKILL.md"), text).unwrap();
    };
    write("no-description", "---\nname: no-description\n---\nBody.\n");
    write("Upper", "---\nname: Upper\ndescription: Bad name.\n---\nBody.\n");
    write("numeric", "---\nname: 1.0\ndescription: A number.\n---\nBody.\n");
    write("broken", "---\nname: broken\ndescription: x: y: z\n---\nBody.\n");
    let publication = publish(dir.path());
    assert_eq!(publication.listed_len(), 0);
    for entry in &publication.entries {
        assert!(entry.listing.is_err(), "{}", entry.name);
        assert!(publication.resource(&entry.uri).is_some());
        assert!(entry.manifest(&DigestCache::default()).is_err());
    }
    assert_eq!(publication.entries.len(), 4);
}

#[test]
fn data_and_store_skills_publish_one_skill_md() {
    let store = Arc::new(MemoryStore::default());
    let record = "---\nname: epsilon\ndescription: Stored.\n---\n\nEpsilon body.\n";
    store.write("epsilon", record, None, &Precondition::Any).unwrap();
    let catalog = Catalog::builder()
        .skill(SkillDef::new("delta").description("Say \"hi\": now\nplease").content("Delta body.\n"))
        .skill(SkillDef::new("bare").content("No description."))
        .store(store)
        .build();
    let publication = Publication::build(&catalog, None);
    let read = |uri: &str| {
        String::from_utf8(publication.resource(uri).unwrap().1.read(&Confinement::NOWHERE).unwrap().to_vec()).unwrap()
    };
    assert_eq!(
        read("skill://delta/SKILL.md"),
        "---\nname: delta\ndescription: \"Say \\\"hi\\\": now\\nplease\"\n---\nDelta body.\n"
    );
    assert_eq!(read("skill://bare/SKILL.md"), "---\nname: bare\n---\nNo description.");
    assert_eq!(read("skill://epsilon/SKILL.md"), record);
    let delta = publication.by_name("delta").unwrap();
    let manifest = serde_json::to_value(delta.manifest(&DigestCache::default()).unwrap()).unwrap();
    assert_eq!(manifest["frontmatter"], serde_json::json!({"name": "delta", "description": "Say \"hi\": now\nplease"}));
    assert!(publication.by_name("bare").unwrap().listing.is_err());
    assert!(publication.by_name("epsilon").unwrap().listing.is_ok());
}

#[test]
fn yaml_names_that_would_not_read_back_are_quoted() {
    assert_eq!(data_skill_md("ok-name2", None, ""), "---\nname: ok-name2\n---\n");
    for (name, quoted) in [("123", "\"123\""), ("true", "\"true\""), ("no", "\"no\""), ("A b: c", "\"A b: c\"")] {
        assert_eq!(data_skill_md(name, None, ""), format!("---\nname: {quoted}\n---\n"));
    }
}

#[test]
fn an_agent_publishes_its_effective_skills_and_prompts_its_lazy_ones() {
    let store = Arc::new(MemoryStore::default());
    store
        .write("menu", "---\nname: menu\ndescription: Agent's own.\n---\nMine.\n", Some("loja"), &Precondition::Any)
        .unwrap();
    let catalog = Catalog::builder()
        .skill(SkillDef::new("menu").description("Shared."))
        .skill(SkillDef::new("format").description("Format."))
        .skill(SkillDef::new("secret").description("Not allowed."))
        .store(store)
        .build();
    let profile = AgentProfile::new("loja").allow(["menu", "format"]).eager(Eager::names(["format"]));
    let publication = Publication::build(&catalog, Some(&profile));
    let published: Vec<(&str, bool)> = publication.entries.iter().map(|e| (e.name.as_str(), e.prompt)).collect();
    assert_eq!(published, [("format", false), ("menu", true)]);
    let menu = publication.resource("skill://menu/SKILL.md").unwrap().1.read(&Confinement::NOWHERE).unwrap();
    assert_eq!(&*menu, b"---\nname: menu\ndescription: Agent's own.\n---\nMine.\n");
}

#[test]
fn odd_file_names_get_exact_uris() {
    let dir = tempfile::tempdir().unwrap();
    skill(dir.path(), "odd", &[("a b/c#d?.txt", b"x"), ("caf\u{e9}.md", b"y")]);
    let publication = publish(dir.path());
    let uris: Vec<&str> = publication.entries[0].files.iter().map(|f| f.uri.as_str()).collect();
    assert_eq!(uris, ["skill://odd/SKILL.md", "skill://odd/a%20b/c%23d%3F.txt", "skill://odd/caf%C3%A9.md"]);
    for uri in uris {
        assert!(publication.resource(&crate::uri::canonical(uri).unwrap()).is_some(), "{uri}");
    }
}

#[test]
fn digests_are_cached_until_the_file_changes() {
    let dir = tempfile::tempdir().unwrap();
    skill(dir.path(), "alpha", &[("f.txt", b"one")]);
    let path = dir.path().join("alpha/f.txt");
    let cache = DigestCache::default();
    let catalog = Catalog::builder().root(dir.path()).build();
    let confinement = catalog.get("alpha").and_then(Skill::confinement).unwrap().clone();
    let first = cache.facts(&path, &confinement).unwrap();
    assert_eq!(*first, Facts::of(b"one"));
    assert!(Arc::ptr_eq(&first, &cache.facts(&path, &confinement).unwrap()));
    fs::write(&path, b"three").unwrap();
    assert_eq!(cache.facts(&path, &confinement).unwrap().digest, sha256_digest(b"three"));
    assert_eq!(cache.len(), 1);
    cache.retain(&HashSet::new());
    assert_eq!(cache.len(), 0);
}

/// Every file of every entry: (uri, rel, size).
fn files(publication: &Publication) -> Vec<(String, String, u64)> {
    publication.entries.iter().flat_map(|e| &e.files).map(|f| (f.uri.clone(), f.rel.clone(), f.size)).collect()
}

/// A rebuild keeps the files of the skills nothing changed in (an unreported
/// change stays unseen: they were not walked again) and walks the others; with
/// every change reported it equals a whole build.
#[test]
fn a_rebuild_walks_only_the_skills_that_changed() {
    let dir = tempfile::tempdir().unwrap();
    skill(dir.path(), "alpha", &[("a.txt", b"a")]);
    skill(dir.path(), "beta", &[("b.txt", b"b")]);
    let live = skilldeck::LiveCatalog::new(Catalog::builder().root(dir.path()));
    let first = Publication::build(&live.snapshot(), None);

    fs::write(dir.path().join("alpha/more.txt"), "unreported").unwrap();
    fs::write(dir.path().join("beta/b.txt"), "bigger").unwrap();
    fs::write(dir.path().join("beta/new.txt"), "new").unwrap();
    let changed = [dir.path().join("beta/b.txt"), dir.path().join("beta/new.txt")];
    let catalog = live.reload_changed(&changed);
    let next = Publication::rebuild(&catalog, None, Some((&first, &changed)));
    let uris = |p: &Publication| p.entries.iter().flat_map(|e| &e.files).map(|f| f.uri.clone()).collect::<Vec<_>>();
    assert_eq!(
        uris(&next),
        [
            "skill://alpha/SKILL.md",
            "skill://alpha/a.txt",
            "skill://beta/SKILL.md",
            "skill://beta/b.txt",
            "skill://beta/new.txt"
        ]
    );
    assert_eq!(next.resource("skill://beta/b.txt").unwrap().1.size, 6);
    // The untouched skill's entry is the same one, not a copy: a reload of one skill of thousands
    // costs a reference count for each of the others.
    let entry = |p: &Publication, name: &str| p.entries[p.by_name[name]].clone();
    assert!(Arc::ptr_eq(&entry(&first, "alpha"), &entry(&next, "alpha")));
    assert!(!Arc::ptr_eq(&entry(&first, "beta"), &entry(&next, "beta")));

    let everything = [dir.path().join("alpha/more.txt")];
    let catalog = live.reload_changed(&everything);
    let last = Publication::rebuild(&catalog, None, Some((&next, &everything)));
    assert_eq!(files(&last), files(&Publication::build(&catalog, None)));
    assert!(last.resource("skill://alpha/more.txt").is_some());
}

/// A file's version moves with its bytes (and with a `touch`), not with a
/// read; a file no longer published is `Gone`, a store record's version is
/// its bytes, and `Unseen` equals no version a publication gives.
#[test]
fn a_file_version_moves_when_it_changes_and_only_then() {
    let dir = tempfile::tempdir().unwrap();
    skill(dir.path(), "alpha", &[("notes.md", b"one\n")]);
    let notes = "skill://alpha/notes.md";
    let first = publish(dir.path()).version(notes);
    assert!(matches!(&first, Version::Disk(path, Some(_)) if path.ends_with("alpha/notes.md")), "{first:?}");
    let _ = fs::read(dir.path().join("alpha/notes.md")).unwrap();
    assert_eq!(publish(dir.path()).version(notes), first);
    assert!(first.changed_within(std::time::Duration::from_secs(60)));
    assert!(!first.changed_within(std::time::Duration::ZERO));
    fs::write(dir.path().join("alpha/notes.md"), b"two\n").unwrap();
    let second = publish(dir.path()).version(notes);
    assert_ne!(second, first);
    fs::remove_file(dir.path().join("alpha/notes.md")).unwrap();
    assert_eq!(publish(dir.path()).version(notes), Version::Gone);
    assert_eq!(publish(dir.path()).version("skill://nope/SKILL.md"), Version::Gone);
    assert_ne!(second, Version::Unseen);
    assert_ne!(Version::Gone, Version::Unseen);

    let store = Arc::new(MemoryStore::default());
    store.write("beta", "---\nname: beta\ndescription: B.\n---\nOne.\n", None, &Precondition::Any).unwrap();
    let catalog = |store: &Arc<MemoryStore>| Catalog::builder().store(store.clone()).build();
    let uri = "skill://beta/SKILL.md";
    let record = Publication::build(&catalog(&store), None).version(uri);
    assert!(matches!(&record, Version::Memory(bytes) if bytes.ends_with(b"One.\n")), "{record:?}");
    assert_eq!(Publication::build(&catalog(&store), None).version(uri), record);
    store.write("beta", "---\nname: beta\ndescription: B.\n---\nTwo.\n", None, &Precondition::Any).unwrap();
    assert_ne!(Publication::build(&catalog(&store), None).version(uri), record);
}
