//! Reloading only what changed (`LiveCatalog::reload_changed`), on real
//! directories: after any sequence of edits it gives what a whole build gives,
//! and what was not reported as changed is not read again.

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use skilldeck::{Catalog, CatalogBuilder, Limits, LiveCatalog, Symlinks};

use crate::util::Tree;

/// Everything a catalog shows, as text, in its order.
fn summary(catalog: &Catalog) -> Vec<String> {
    let mut out: Vec<String> = catalog
        .inventory()
        .iter()
        .map(|s| {
            let body = s.body().map(str::to_owned).map_err(|e| e.kind());
            format!("skill {} {} {:?} {:?} {:?}", s.name(), s.location(), s.description(), s.frontmatter(), body)
        })
        .collect();
    out.push(format!("exposed {:?}", catalog.skills().map(|s| s.name()).collect::<Vec<_>>()));
    out.extend(catalog.skips().iter().map(|s| format!("skip {} {} {:?}", s.location, s.reason, s.detail)));
    out.extend(catalog.warnings().iter().map(|w| format!("warning {w}")));
    out.extend(catalog.shadowed().iter().map(|s| {
        format!("shadowed {} ({}) by {} ({})", s.skill.location(), s.source, s.winner_location, s.winner_source)
    }));
    out
}

/// The directories edits happen in, below one of two roots: nested skills,
/// the root itself (`""`: a whole walk), and directories no walk enters.
const DIRS: [&str; 10] = ["a", "b", "a/x", "a/x/y", "b/z", "c", "", ".git/h", "a/node_modules/m", "d/e/f"];
/// Few names, so that skills collide.
const NAMES: [&str; 3] = ["one", "two", "three"];

#[derive(Clone, Debug)]
enum Edit {
    /// Writes `DIRS[dir]/SKILL.md` named `NAMES[name]`.
    Skill {
        root: usize,
        dir: usize,
        name: usize,
        body: u8,
    },
    /// Writes a `SKILL.md` whose YAML is broken, or has no name.
    Broken {
        root: usize,
        dir: usize,
        no_name: bool,
    },
    /// Writes a file that is not a `SKILL.md`.
    Other {
        root: usize,
        dir: usize,
    },
    RemoveSkillMd {
        root: usize,
        dir: usize,
    },
    RemoveDir {
        root: usize,
        dir: usize,
    },
    /// Puts a plain file where a directory was.
    ReplaceWithFile {
        root: usize,
        dir: usize,
    },
    /// Renames a directory to another of `DIRS`, when that one is free.
    Rename {
        root: usize,
        from: usize,
        to: usize,
    },
    /// Links `DIRS[from]-link` to `DIRS[to]`.
    Link {
        root: usize,
        from: usize,
        to: usize,
    },
    /// Moves the root away and makes it again, empty; reports nothing, as a
    /// watcher on the old directory would.
    ReplaceRoot {
        root: usize,
    },
}

fn edit() -> impl Strategy<Value = Edit> {
    let (root, dir) = (0..2usize, 0..DIRS.len());
    prop_oneof![
        4 => (root.clone(), dir.clone(), 0..NAMES.len(), any::<u8>())
            .prop_map(|(root, dir, name, body)| Edit::Skill { root, dir, name, body }),
        1 => (root.clone(), dir.clone(), any::<bool>()).prop_map(|(root, dir, no_name)| Edit::Broken { root, dir, no_name }),
        1 => (root.clone(), dir.clone()).prop_map(|(root, dir)| Edit::Other { root, dir }),
        2 => (root.clone(), dir.clone()).prop_map(|(root, dir)| Edit::RemoveSkillMd { root, dir }),
        2 => (root.clone(), dir.clone()).prop_map(|(root, dir)| Edit::RemoveDir { root, dir }),
        1 => (root.clone(), dir.clone()).prop_map(|(root, dir)| Edit::ReplaceWithFile { root, dir }),
        1 => (root.clone(), dir.clone(), dir.clone()).prop_map(|(root, from, to)| Edit::Rename { root, from, to }),
        1 => (root.clone(), dir.clone(), dir).prop_map(|(root, from, to)| Edit::Link { root, from, to }),
        1 => root.prop_map(|root| Edit::ReplaceRoot { root }),
    ]
}

/// Writes `path`, reporting it and the topmost directory it had to create,
/// as a watcher would; nothing when a file stands where a directory must be.
fn write(path: &Path, contents: &str, changed: &mut Vec<PathBuf>) {
    let parent = path.parent().unwrap();
    let created = parent.ancestors().take_while(|a| !a.exists()).last().map(Path::to_path_buf);
    if std::fs::create_dir_all(parent).is_err() || std::fs::write(path, contents).is_err() {
        return;
    }
    changed.extend(created);
    changed.push(path.to_path_buf());
}

/// Applies `edit` below `roots` and returns the paths a watcher would report.
fn apply(roots: &[PathBuf], edit: &Edit) -> Vec<PathBuf> {
    let mut changed = Vec::new();
    match *edit {
        Edit::Skill { root, dir, name, body } => {
            let md = format!("---\nname: {}\ndescription: in {}\n---\nbody {body}\n", NAMES[name], DIRS[dir]);
            write(&roots[root].join(DIRS[dir]).join("SKILL.md"), &md, &mut changed);
        }
        Edit::Broken { root, dir, no_name } => {
            let md = if no_name { "---\ndescription: nameless\n---\n" } else { "---\nname: [broken\n---\n" };
            write(&roots[root].join(DIRS[dir]).join("SKILL.md"), md, &mut changed);
        }
        Edit::Other { root, dir } => write(&roots[root].join(DIRS[dir]).join("notes.md"), "notes", &mut changed),
        Edit::RemoveSkillMd { root, dir } => {
            let path = roots[root].join(DIRS[dir]).join("SKILL.md");
            if std::fs::remove_file(&path).is_ok() {
                changed.push(path);
            }
        }
        Edit::RemoveDir { root, dir } => {
            let path = roots[root].join(DIRS[dir]);
            // The root itself stays; a link is removed as a file.
            let removed = !DIRS[dir].is_empty()
                && (std::fs::remove_dir_all(&path).is_ok() || std::fs::remove_file(&path).is_ok());
            if removed {
                changed.push(path);
            }
        }
        Edit::ReplaceWithFile { root, dir } => {
            let path = roots[root].join(DIRS[dir]);
            if !DIRS[dir].is_empty() && std::fs::remove_dir_all(&path).is_ok() {
                std::fs::write(&path, "a file now").unwrap();
                changed.push(path);
            }
        }
        Edit::Rename { root, from, to } => {
            let (from, to) = (roots[root].join(DIRS[from]), roots[root].join(DIRS[to]));
            let movable = !from.as_os_str().is_empty() && from.is_dir() && !to.exists() && !to.starts_with(&from);
            if movable && to.parent().is_some_and(Path::is_dir) && std::fs::rename(&from, &to).is_ok() {
                changed.extend([from, to]);
            }
        }
        Edit::Link { root, from, to } => {
            let link = roots[root].join(format!("{}-link", DIRS[from]));
            let free = std::fs::symlink_metadata(&link).is_err();
            if !DIRS[from].is_empty() && link.parent().is_some_and(Path::is_dir) && free {
                std::os::unix::fs::symlink(roots[root].join(DIRS[to]), &link).unwrap();
                changed.push(link);
            }
        }
        Edit::ReplaceRoot { root } => {
            let root = &roots[root];
            // A name never used, so the new directory cannot reuse the old one's inode.
            let old = (0..).map(|n| root.with_extension(format!("old{n}"))).find(|p| !p.exists()).unwrap();
            std::fs::rename(root, old).unwrap();
            std::fs::create_dir(root).unwrap();
        }
    }
    changed
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    /// After each edit, reloading only what the edit touched gives exactly
    /// what a whole build gives: links followed or not, and walk limits wide
    /// or tight enough to be hit.
    #[test]
    fn reloading_what_changed_equals_a_whole_build(
        edits in prop::collection::vec(edit(), 1..14),
        follow in any::<bool>(),
        tight in any::<bool>(),
    ) {
        let tree = Tree::new();
        let roots = [tree.path("r0"), tree.path("r1")];
        for root in &roots {
            std::fs::create_dir_all(root).unwrap();
        }
        let symlinks = if follow { Symlinks::Follow } else { Symlinks::Skip };
        let limits = if tight { Limits { max_depth: 3, max_dirs: 7, max_entries: 14 } } else { Limits::default() };
        let builder = Catalog::builder().roots(roots.iter().cloned()).symlinks(symlinks).walk_limits(limits);
        let live = LiveCatalog::new(builder.clone());
        for (i, edit) in edits.iter().enumerate() {
            let changed = apply(&roots, edit);
            let reloaded = live.reload_changed(&changed);
            prop_assert_eq!(summary(&reloaded), summary(&builder.build()), "after edit {} {:?}", i, edit);
        }
    }
}

fn two_skills() -> (Tree, CatalogBuilder) {
    let tree = Tree::new();
    tree.skill("a", "a", "first a", "").skill("b", "b", "first b", "");
    let builder = Catalog::builder().root(tree.root());
    (tree, builder)
}

/// The proof that only the reported part is read: an edit nobody reported
/// stays unseen until a whole reload.
#[test]
fn what_was_not_reported_is_not_read_again() {
    let (tree, builder) = two_skills();
    let live = LiveCatalog::new(builder);
    tree.skill("a", "a", "second a", "").skill("b", "b", "second b", "");
    let catalog = live.reload_changed(&[tree.path("a/SKILL.md")]);
    assert_eq!(catalog.get("a").unwrap().description(), Some("second a"));
    assert_eq!(catalog.get("b").unwrap().description(), Some("first b"), "b was read again");
    let catalog = live.reload();
    assert_eq!(catalog.get("b").unwrap().description(), Some("second b"));
}

/// Changes no walk can see (below `.git`, a file that is not a `SKILL.md`,
/// a path outside every root) read nothing again.
#[test]
fn changes_no_walk_sees_read_nothing() {
    let (tree, builder) = two_skills();
    let live = LiveCatalog::new(builder);
    tree.skill("b", "b", "second b", "").file("a/.git/SKILL.md", "---\nname: hidden\n---\n");
    tree.file("a/notes.md", "notes");
    let changed = [tree.path("a/.git/SKILL.md"), tree.path("a/notes.md"), PathBuf::from("/elsewhere/b/SKILL.md")];
    let catalog = live.reload_changed(&changed);
    assert_eq!(catalog.get("b").unwrap().description(), Some("first b"));
    assert!(catalog.get("hidden").is_none());
}

/// Some watchers (macOS FSEvents) report resolved paths: a root reached
/// through a link takes changes under either spelling.
#[test]
fn changes_under_the_resolved_root_count() {
    let (tree, _) = two_skills();
    let outside = Tree::new();
    outside.symlink(tree.root(), "via-link");
    let live = LiveCatalog::new(Catalog::builder().root(outside.path("via-link")));
    tree.skill("a", "a", "second a", "");
    let resolved = std::fs::canonicalize(tree.path("a/SKILL.md")).unwrap();
    let catalog = live.reload_changed(&[resolved]);
    assert_eq!(catalog.get("a").unwrap().description(), Some("second a"));
}

/// A change to the root itself, or behind a link, is a whole walk.
#[test]
fn the_root_itself_or_a_link_walks_the_root_whole() {
    let (tree, builder) = two_skills();
    let live = LiveCatalog::new(builder);
    tree.skill("b", "b", "second b", "");
    let catalog = live.reload_changed(&[tree.root().to_path_buf()]);
    assert_eq!(catalog.get("b").unwrap().description(), Some("second b"));

    let elsewhere = Tree::new();
    elsewhere.skill("far", "far", "first far", "");
    tree.symlink(elsewhere.path("far"), "far-link");
    let catalog = live.reload_changed(&[tree.path("far-link")]);
    assert_eq!(catalog.get("far").unwrap().description(), Some("first far"));
    // The walk met a link leading outside the root, where no change is reported:
    // from now on a change anywhere walks the root whole.
    elsewhere.skill("far", "far", "second far", "");
    tree.skill("b", "b", "third b", "");
    let catalog = live.reload_changed(&[tree.path("b/SKILL.md")]);
    assert_eq!(catalog.get("far").unwrap().description(), Some("second far"));
}

/// A link the walk met does not make every reload a whole walk: an edit
/// away from every link's target (a dangling one's included, as a public
/// registry's tree has) reads only what changed.
#[test]
fn an_edit_away_from_the_links_reads_only_what_changed() {
    let (tree, builder) = two_skills();
    tree.symlink("nowhere/SKILL.md", "gone/SKILL.md").symlink(tree.path("a"), "a-link");
    let live = LiveCatalog::new(builder);
    tree.skill("b", "b", "second b", "").skill("c", "c", "first c", "");
    let catalog = live.reload_changed(&[tree.path("c/SKILL.md")]);
    assert_eq!(catalog.get("c").unwrap().description(), Some("first c"));
    assert_eq!(catalog.get("b").unwrap().description(), Some("first b"), "b was read again");
}

/// A change at a link's target shows through the link, whose path no
/// watcher reports: the reload is what a whole build gives, the link's copy
/// included (here broken with its target).
#[test]
fn a_change_at_a_links_target_reads_the_link_again() {
    let tree = Tree::new();
    tree.skill("c", "c", "first c", "").symlink(tree.path("c"), "a-link");
    let builder = Catalog::builder().root(tree.root());
    let live = LiveCatalog::new(builder.clone());
    tree.file("c/SKILL.md", "---\nname: [broken\n---\n");
    let catalog = live.reload_changed(&[tree.path("c/SKILL.md")]);
    assert_eq!(summary(&catalog), summary(&builder.build()));
    assert_eq!(catalog.skips().len(), 2, "{:?}", catalog.skips());
}

/// A dangling link whose target is made leads somewhere now: the skill
/// made is found through the link too, as a whole build finds it.
#[test]
fn a_dangling_link_whose_target_is_made_is_followed() {
    let tree = Tree::new();
    tree.skill("a", "a", "first a", "").symlink("made", "link");
    let builder = Catalog::builder().root(tree.root());
    let live = LiveCatalog::new(builder.clone());
    tree.skill("made", "m", "first m", "");
    let catalog = live.reload_changed(&[tree.path("made")]);
    assert_eq!(summary(&catalog), summary(&builder.build()));
    assert_eq!(catalog.get("m").unwrap().location(), tree.path("link/SKILL.md").to_str().unwrap());
}

/// A root made of skill directories `names` below `tree/rel`, each body
/// saying which root it is in.
fn skills_in(tree: &Tree, rel: &str, names: &[&str]) -> PathBuf {
    for name in names {
        tree.skill(&format!("{rel}/{name}"), name, &format!("{name} in {rel}"), &format!("{name} from {rel}\n"));
    }
    tree.dir(rel).path(rel)
}

fn names(catalog: &Catalog) -> Vec<&str> {
    catalog.skills().map(|s| s.name()).collect()
}

/// A root moved away and made again (`mv root root.old; mkdir root`) is
/// another directory: a change reported below it walks it whole, and
/// nothing of the old one stays.
#[test]
fn a_root_made_again_is_walked_whole() {
    let tree = Tree::new();
    let root = skills_in(&tree, "skills", &["a", "b"]);
    let builder = Catalog::builder().root(&root);
    let live = LiveCatalog::new(builder.clone());
    std::fs::rename(&root, tree.path("skills.old")).unwrap();
    skills_in(&tree, "skills", &["c"]);
    let catalog = live.reload_changed(&[root.join("c/SKILL.md")]);
    assert_eq!(names(&catalog), ["c"]);
    assert_eq!(summary(&catalog), summary(&builder.build()));
}

/// A root that is a link swapped to another release (`ln -sfn release2
/// root.tmp && mv -T root.tmp root`, the usual deploy) leads to another
/// directory: the reload lists the new release only, and its skills read
/// the new release's files, never a mix of the two.
#[test]
fn a_root_link_swapped_to_another_release_is_walked_whole() {
    let tree = Tree::new();
    skills_in(&tree, "release1", &["old-only", "one"]);
    skills_in(&tree, "release2", &["new-only", "one"]);
    tree.symlink("release1", "current");
    let builder = Catalog::builder().root(tree.path("current"));
    let live = LiveCatalog::new(builder.clone());
    assert_eq!(live.snapshot().get("one").unwrap().body().unwrap(), "one from release1\n");

    tree.symlink("release2", "current.tmp");
    std::fs::rename(tree.path("current.tmp"), tree.path("current")).unwrap();
    let catalog = live.reload_changed(&[tree.path("current/new-only/SKILL.md")]);
    assert_eq!(names(&catalog), ["new-only", "one"]);
    let one = catalog.get("one").unwrap();
    assert_eq!((one.description(), one.body().unwrap()), (Some("one in release2"), "one from release2\n"));
    assert_eq!(summary(&catalog), summary(&builder.build()));
}

/// `before_read` is called with a skill's directory before its `SKILL.md`
/// is read, in a build and in a reload of what changed (and only for what
/// the reload reads): a write the hook makes is what the catalog reads, the
/// property a watcher set up there relies on.
#[test]
fn before_read_runs_before_the_read_in_builds_and_reloads() {
    let (tree, builder) = two_skills();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let record = seen.clone();
    let builder = builder.before_read(move |dir| {
        record.lock().unwrap().push(dir.to_path_buf());
        let name = dir.file_name().unwrap().to_str().unwrap();
        let text = format!("---\nname: {name}\ndescription: written before the read\n---\n");
        std::fs::write(dir.join("SKILL.md"), text).unwrap();
    });
    let live = LiveCatalog::new(builder);
    let catalog = live.snapshot();
    assert_eq!(catalog.get("a").unwrap().description(), Some("written before the read"));
    let mut dirs = std::mem::take(&mut *seen.lock().unwrap());
    dirs.sort();
    assert_eq!(dirs, [tree.path("a"), tree.path("b")]);

    tree.skill("a", "a", "second a", "");
    let catalog = live.reload_changed(&[tree.path("a/SKILL.md")]);
    assert_eq!(catalog.get("a").unwrap().description(), Some("written before the read"));
    assert_eq!(*seen.lock().unwrap(), [tree.path("a")], "only what the reload reads");
}
