//! Walker tests on real directories: link loops, dangling links, skipped
//! directories, special files, limits and odd roots.

// A broken fixture should stop a test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::ffi::OsStr;
use std::io::Read;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use skilldeck_walk::{File, LimitHit, Limits, Symlinks, Walk, Walker};
use tempfile::TempDir;

/// Writes `contents` at `root/rel`, creating parent directories.
fn write(root: &Path, rel: &str, contents: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, contents).unwrap();
}

/// Creates a link at `root/rel` pointing to `target`.
fn link(target: impl AsRef<Path>, root: &Path, rel: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    symlink(target, path).unwrap();
}

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().expect("run mkfifo");
    assert!(status.success(), "mkfifo {}", path.display());
}

/// Every non-directory entry. A loop is caught by what the walk returns
/// (each test names the files it must hold, each once), not by a clock.
fn walk_all(walker: &Walker) -> Walk {
    walker.files(|_| true)
}

fn rels(walk: &Walk) -> Vec<String> {
    walk.files.iter().map(File::rel_path).collect()
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

fn file<'a>(walk: &'a Walk, rel: &str) -> &'a File {
    walk.files.iter().find(|f| f.rel_path() == rel).unwrap_or_else(|| panic!("{rel} not in {:?}", rels(walk)))
}

#[test]
fn a_link_back_to_the_root_is_not_entered() {
    let tmp = TempDir::new().unwrap();
    let root = tmp.path();
    write(root, "a/SKILL.md", "x");
    write(root, "top.txt", "t");
    link(root, root, "a/up-absolute");
    link("..", root, "a/up-relative");
    link(".", root, "dot");

    let walk = walk_all(&Walker::new(root));
    assert_eq!(rels(&walk), ["top.txt", "a/SKILL.md"]);
    assert_eq!(walk.limit_hit, None);
}

#[test]
fn a_link_to_an_ancestor_is_not_entered() {
    let tmp = TempDir::new().unwrap();
    let root = tmp.path();
    write(root, "a/b/c/deep.txt", "d");
    write(root, "a/mid.txt", "m");
    link("../..", root, "a/b/c/back-to-a");
    link(root.join("a/b"), root, "a/b/c/back-to-b");

    let walk = walk_all(&Walker::new(root));
    assert_eq!(rels(&walk), ["a/mid.txt", "a/b/c/deep.txt"]);
    assert_eq!(walk.limit_hit, None);
}

#[test]
fn a_walk_whose_root_is_a_link_still_sees_loops_to_it() {
    let tmp = TempDir::new().unwrap();
    write(tmp.path(), "real/f.txt", "f");
    link(tmp.path().join("real"), tmp.path(), "alias");
    link(tmp.path().join("real"), tmp.path(), "real/loop");
    link(tmp.path().join("alias"), tmp.path(), "real/loop-via-alias");

    let walk = walk_all(&Walker::new(tmp.path().join("alias")));
    assert_eq!(rels(&walk), ["f.txt"]);
    assert_eq!(walk.files[0].path, tmp.path().join("alias/f.txt"));
}

#[test]
fn a_self_link_is_passed_over() {
    let tmp = TempDir::new().unwrap();
    let root = tmp.path();
    write(root, "ok.txt", "o");
    link("x", root, "x");
    link(root.join("sub/y"), root, "sub/y");

    let walk = walk_all(&Walker::new(root));
    assert_eq!(rels(&walk), ["ok.txt"]);
    assert_eq!(walk.limit_hit, None);
}

#[test]
fn two_links_to_one_outside_dir_enter_it_once() {
    let outside = TempDir::new().unwrap();
    write(outside.path(), "shared.txt", "s");
    write(outside.path(), "inner/more.txt", "m");
    let tmp = TempDir::new().unwrap();
    let root = tmp.path();
    link(outside.path(), root, "l1");
    link(outside.path(), root, "l2");
    link(outside.path(), root, "sub/l3");

    let walk = walk_all(&Walker::new(root));
    assert_eq!(rels(&walk), ["l1/shared.txt", "l1/inner/more.txt"]);
}

#[test]
fn a_cycle_of_two_links_ends() {
    let tmp = TempDir::new().unwrap();
    let root = tmp.path();
    write(root, "a/fa", "a");
    write(root, "b/fb", "b");
    link("../b", root, "a/to-b");
    link("../a", root, "b/to-a");

    let walk = walk_all(&Walker::new(root));
    assert_eq!(sorted(rels(&walk)), ["a/fa", "a/to-b/fb", "b/fb", "b/to-a/fa"]);
    assert_eq!(walk.limit_hit, None);
}

#[test]
fn dangling_links_are_passed_over() {
    let tmp = TempDir::new().unwrap();
    let root = tmp.path();
    write(root, "d/real.txt", "r");
    link("nowhere", root, "dangling");
    link("/definitely/not/here", root, "d/dangling-absolute");
    link("../missing/dir", root, "d/dangling-dir");

    let walk = walk_all(&Walker::new(root));
    assert_eq!(rels(&walk), ["d/real.txt"]);
    assert_eq!(walk.limit_hit, None);
}

#[test]
fn a_link_to_a_file_is_followed_and_regular() {
    let outside = TempDir::new().unwrap();
    write(outside.path(), "target.md", "t");
    let tmp = TempDir::new().unwrap();
    let root = tmp.path();
    link(outside.path().join("target.md"), root, "skill/SKILL.md");

    let walk = walk_all(&Walker::new(root));
    assert_eq!(rels(&walk), ["skill/SKILL.md"]);
    let f = &walk.files[0];
    assert!(f.regular);
    assert_eq!(f.depth, 2);
    assert_eq!(f.path, root.join("skill/SKILL.md"), "the walked path, not the target");
}

#[test]
fn skip_symlinks_ignores_every_link() {
    let outside = TempDir::new().unwrap();
    write(outside.path(), "f.txt", "f");
    let tmp = TempDir::new().unwrap();
    let root = tmp.path();
    write(root, "real/r.txt", "r");
    link(outside.path(), root, "dir-link");
    link(outside.path().join("f.txt"), root, "file-link");
    link("real", root, "inner-link");
    link("nowhere", root, "dangling");

    let walk = walk_all(&Walker::new(root).symlinks(Symlinks::Skip));
    assert_eq!(rels(&walk), ["real/r.txt"]);

    let followed = walk_all(&Walker::new(root));
    assert_eq!(sorted(rels(&followed)), ["dir-link/f.txt", "file-link", "inner-link/r.txt", "real/r.txt"]);
}

#[test]
fn skipped_dirs_are_never_entered_but_files_of_that_name_are_reported() {
    let tmp = TempDir::new().unwrap();
    let root = tmp.path();
    write(root, ".git/SKILL.md", "hidden");
    write(root, "node_modules/pkg/SKILL.md", "hidden");
    write(root, "deep/er/.git/SKILL.md", "hidden");
    write(root, "deep/er/node_modules/SKILL.md", "hidden");
    write(root, "deep/er/SKILL.md", "seen");
    write(root, "other/node_modules", "a file named node_modules");
    write(root, "other/.git", "a file named .git (a worktree's)");
    write(root, "linked/x.txt", "x");
    link("../linked", root, "via/node_modules");

    let walker = Walker::new(root).skip_dir(".git").skip_dir("node_modules");
    let walk = walk_all(&walker);
    assert_eq!(rels(&walk), ["linked/x.txt", "other/.git", "other/node_modules", "deep/er/SKILL.md"]);
    assert!(file(&walk, "other/node_modules").regular);
}

#[test]
fn a_fifo_is_reported_as_not_regular() {
    let tmp = TempDir::new().unwrap();
    let root = tmp.path();
    write(root, "s/plain.txt", "p");
    std::fs::create_dir_all(root.join("s")).unwrap();
    mkfifo(&root.join("s/SKILL.md"));
    link("SKILL.md", root, "s/link-to-fifo");

    let walk = walk_all(&Walker::new(root));
    assert_eq!(rels(&walk), ["s/SKILL.md", "s/link-to-fifo", "s/plain.txt"]);
    assert!(!file(&walk, "s/SKILL.md").regular);
    assert!(!file(&walk, "s/link-to-fifo").regular);
    assert!(file(&walk, "s/plain.txt").regular);
}

#[test]
#[cfg(any(target_os = "linux", target_os = "android"))]
fn opening_a_fifo_never_waits_for_a_writer() {
    let tmp = TempDir::new().unwrap();
    std::fs::create_dir_all(tmp.path().join("s")).unwrap();
    mkfifo(&tmp.path().join("s/SKILL.md"));
    let (tx, rx) = std::sync::mpsc::channel();
    let root = tmp.path().to_path_buf();
    // A caller that opens a file the listing said was regular (it may have
    // been swapped since) must not hang on a FIFO without a writer.
    std::thread::spawn(move || {
        let visited = Walker::new(root).visit(
            |name| name == "SKILL.md",
            |found| {
                let mut text = String::new();
                found.open().and_then(|mut f| f.read_to_string(&mut text)).map(|_| text)
            },
        );
        let _ = tx.send(visited.files.into_iter().map(|(_, read)| read.ok()).collect::<Vec<_>>());
    });
    let reads = rx.recv_timeout(Duration::from_secs(10)).expect("opening a FIFO hung");
    assert_eq!(reads, [Some(String::new())]);
}

/// `f0`, `d1/f1`, `d1/d2/f2`, `d1/d2/d3/f3`.
fn chain(root: &Path) {
    write(root, "f0", "");
    write(root, "d1/f1", "");
    write(root, "d1/d2/f2", "");
    write(root, "d1/d2/d3/f3", "");
}

fn limits(max_depth: usize, max_dirs: usize, max_entries: usize) -> Limits {
    Limits { max_depth, max_dirs, max_entries }
}

#[test]
fn the_depth_limit_stops_descent_and_says_so() {
    let tmp = TempDir::new().unwrap();
    chain(tmp.path());
    let at = |depth| walk_all(&Walker::new(tmp.path()).limits(Limits { max_depth: depth, ..Limits::default() }));

    let cut = at(2);
    assert_eq!(rels(&cut), ["f0", "d1/f1", "d1/d2/f2"]);
    assert_eq!(cut.limit_hit, Some(LimitHit::Depth(2)));

    let root_only = at(0);
    assert_eq!(rels(&root_only), ["f0"]);
    assert_eq!(root_only.limit_hit, Some(LimitHit::Depth(0)));

    let enough = at(3);
    assert_eq!(rels(&enough), ["f0", "d1/f1", "d1/d2/f2", "d1/d2/d3/f3"]);
    assert_eq!(enough.limit_hit, None);
    assert_eq!(enough.files.iter().map(|f| f.depth).collect::<Vec<_>>(), [1, 2, 3, 4]);
}

#[test]
fn the_dirs_limit_stops_the_walk_and_says_so() {
    let tmp = TempDir::new().unwrap();
    let root = tmp.path();
    write(root, "top", "");
    for d in ["a", "b", "c"] {
        write(root, &format!("{d}/f"), "");
        write(root, &format!("{d}/sub/g"), "");
    }
    let with = |n| walk_all(&Walker::new(root).limits(limits(64, n, 1000)));

    let cut = with(2);
    assert_eq!(rels(&cut), ["top", "a/f"]);
    assert_eq!(cut.limit_hit, Some(LimitHit::Dirs(2)));

    let root_only = with(1);
    assert_eq!(rels(&root_only), ["top"]);
    assert_eq!(root_only.limit_hit, Some(LimitHit::Dirs(1)));

    let nothing = with(0);
    assert!(nothing.files.is_empty());
    assert_eq!(nothing.limit_hit, Some(LimitHit::Dirs(0)));

    let second_level_cut = with(5);
    assert_eq!(rels(&second_level_cut), ["top", "a/f", "b/f", "c/f", "a/sub/g"]);
    assert_eq!(second_level_cut.limit_hit, Some(LimitHit::Dirs(5)));

    // Root, three dirs, three subdirs: exactly seven is enough.
    let enough = with(7);
    assert_eq!(enough.files.len(), 7);
    assert_eq!(enough.limit_hit, None);
}

#[test]
fn the_entries_limit_stops_the_walk_and_says_so() {
    let tmp = TempDir::new().unwrap();
    let root = tmp.path();
    for f in ["1", "2", "3", "4", "5"] {
        write(root, f, "");
    }
    write(root, "z/inner", "");
    let with = |n| walk_all(&Walker::new(root).limits(limits(64, 1000, n)));

    let cut = with(3);
    assert_eq!(rels(&cut), ["1", "2", "3"]);
    assert_eq!(cut.limit_hit, Some(LimitHit::Entries(3)));

    // Six entries in the root (the dir `z` counts), one in `z`.
    let cut_below = with(6);
    assert_eq!(rels(&cut_below), ["1", "2", "3", "4", "5"]);
    assert_eq!(cut_below.limit_hit, Some(LimitHit::Entries(6)));

    let enough = with(7);
    assert_eq!(rels(&enough), ["1", "2", "3", "4", "5", "z/inner"]);
    assert_eq!(enough.limit_hit, None);
}

#[test]
fn the_limit_hit_is_the_first_one() {
    let tmp = TempDir::new().unwrap();
    chain(tmp.path());
    // Depth is hit on level 1 (d1 is deeper than 0); entries are hit later.
    let walk = walk_all(&Walker::new(tmp.path()).limits(limits(0, 1000, 1)));
    assert_eq!(walk.limit_hit, Some(LimitHit::Depth(0)));
}

#[test]
fn limit_hits_display() {
    assert_eq!(LimitHit::Depth(64).to_string(), "depth limit (64)");
    assert_eq!(LimitHit::Dirs(2).to_string(), "directory limit (2)");
    assert_eq!(LimitHit::Entries(3).to_string(), "entry limit (3)");
    assert_eq!(
        Limits::default(),
        Limits {
            max_depth: Limits::DEFAULT_MAX_DEPTH,
            max_dirs: Limits::DEFAULT_MAX_DIRS,
            max_entries: Limits::DEFAULT_MAX_ENTRIES
        }
    );
}

#[test]
fn a_missing_root_or_a_file_root_yields_nothing() {
    let tmp = TempDir::new().unwrap();
    write(tmp.path(), "file.txt", "f");
    link("nowhere", tmp.path(), "dangling-root");
    link("file.txt", tmp.path(), "file-link-root");
    for root in ["missing", "file.txt", "dangling-root", "file-link-root"] {
        let walk = walk_all(&Walker::new(tmp.path().join(root)));
        assert!(walk.files.is_empty(), "{root}: {:?}", rels(&walk));
        assert_eq!(walk.limit_hit, None, "{root}");
    }
}

#[test]
fn paths_and_rel_paths_use_the_walked_names() {
    let outside = TempDir::new().unwrap();
    write(outside.path(), "sub/f.txt", "f");
    let tmp = TempDir::new().unwrap();
    let root = tmp.path();
    link(outside.path(), root, "alias");

    let walk = walk_all(&Walker::new(root));
    assert_eq!(walk.files.len(), 1);
    let f = &walk.files[0];
    assert_eq!(f.rel, PathBuf::from("alias/sub/f.txt"));
    assert_eq!(f.rel_path(), "alias/sub/f.txt");
    assert_eq!(f.rel_bytes(), b"alias/sub/f.txt");
    assert_eq!(f.path, root.join("alias/sub/f.txt"));
    assert_eq!(f.depth, 3);
    assert!(f.regular);
}

#[test]
fn order_is_breadth_first_with_names_sorted() {
    let tmp = TempDir::new().unwrap();
    let root = tmp.path();
    for rel in ["b/2", "b/1", "a/z/deep", "a/y", "Z", "_", "é", "a0"] {
        write(root, rel, "");
    }
    let walk = walk_all(&Walker::new(root));
    assert_eq!(rels(&walk), ["Z", "_", "a0", "é", "a/y", "b/1", "b/2", "a/z/deep"]);
}

#[test]
fn keep_sees_only_file_names() {
    let tmp = TempDir::new().unwrap();
    let root = tmp.path();
    write(root, "SKILL.md/SKILL.md", "a directory named SKILL.md holding one");
    write(root, "x/SKILL.md", "");
    write(root, "x/other.md", "");
    let mut asked = Vec::new();
    let walk = Walker::new(root).files(|name: &OsStr| {
        asked.push(name.to_string_lossy().into_owned());
        name == "SKILL.md"
    });
    assert_eq!(rels(&walk), ["SKILL.md/SKILL.md", "x/SKILL.md"]);
    assert_eq!(sorted(asked), ["SKILL.md", "SKILL.md", "other.md"]);
}

#[test]
fn a_wide_level_with_loops_everywhere_keeps_order() {
    // Enough directories on one level to list them on several threads.
    let tmp = TempDir::new().unwrap();
    let root = tmp.path();
    let names: Vec<String> = (0..150).map(|i| format!("d{i:03}")).collect();
    for name in &names {
        write(root, &format!("{name}/f"), "");
        link("..", root, &format!("{name}/up"));
        link(root, root, &format!("{name}/root"));
    }
    let walk = walk_all(&Walker::new(root));
    let expected: Vec<String> = names.iter().map(|n| format!("{n}/f")).collect();
    assert_eq!(rels(&walk), expected);
    assert_eq!(walk.limit_hit, None);
}

#[test]
fn a_chain_of_200_dirs_stops_at_the_default_depth() {
    let tmp = TempDir::new().unwrap();
    std::fs::create_dir_all(tmp.path().join("d/".repeat(200))).unwrap();
    let mut dir = tmp.path().to_path_buf();
    for _ in 0..=200 {
        std::fs::write(dir.join("f"), "").unwrap();
        dir.push("d");
    }

    let walk = walk_all(&Walker::new(tmp.path()));
    assert_eq!(walk.limit_hit, Some(LimitHit::Depth(Limits::DEFAULT_MAX_DEPTH)));
    // Directories down to depth 64 are entered, so their files (depth 65) are seen.
    assert_eq!(walk.files.len(), Limits::DEFAULT_MAX_DEPTH + 1);
    assert_eq!(walk.files.iter().map(|f| f.depth).max(), Some(Limits::DEFAULT_MAX_DEPTH + 1));
    assert_eq!(walk.files.last().unwrap().rel_path(), format!("{}f", "d/".repeat(64)));
}

#[test]
fn a_link_back_to_the_root_from_an_outside_dir_is_not_entered() {
    // root/o -> O (outside), and O/back -> root: as walked, root/o/back is a
    // link inside the root to the root, so the root must not be walked again.
    let outside = TempDir::new().unwrap();
    let tmp = TempDir::new().unwrap();
    let root = tmp.path();
    write(root, "a/SKILL.md", "x");
    write(outside.path(), "o.txt", "o");
    link(outside.path(), root, "o");
    link(root, outside.path(), "back");

    let walk = walk_all(&Walker::new(root));
    assert_eq!(rels(&walk), ["a/SKILL.md", "o/o.txt"]);
    assert_eq!(walk.limit_hit, None);
}

#[test]
fn a_link_back_to_an_ancestor_from_an_outside_dir_is_not_entered() {
    // root/s/o -> O (outside), and O/back -> root/s: the walked path
    // root/s/o/back lies inside root/s, the link's target.
    let outside = TempDir::new().unwrap();
    let tmp = TempDir::new().unwrap();
    let root = tmp.path();
    write(root, "s/f.txt", "x");
    write(outside.path(), "o.txt", "o");
    link(outside.path(), root, "s/o");
    link(root.join("s"), outside.path(), "back");

    let walk = walk_all(&Walker::new(root));
    assert_eq!(rels(&walk), ["s/f.txt", "s/o/o.txt"]);
}

/// What `visit` gives, as (rel path, depth, regular, what `Found::open`
/// read); a file that is not regular is not opened.
type Visit = (String, usize, bool, String);

fn visit_all(walker: &Walker, keep: impl Fn(&OsStr) -> bool + Sync) -> (Vec<Visit>, Option<LimitHit>) {
    let visited = walker.visit(keep, |found| {
        let file = found.file();
        if !file.regular {
            return "-".to_owned();
        }
        let mut text = String::new();
        found.open().and_then(|mut f| f.read_to_string(&mut text)).unwrap_or_else(|e| panic!("{file:?}: {e}"));
        text
    });
    let files = visited.files.into_iter().map(|(f, text)| (f.rel_path(), f.depth, f.regular, text)).collect();
    (files, visited.limit_hit)
}

/// `visit` must see exactly what `files` sees, in the same order, and open
/// each regular file it reports.
fn assert_visit_matches_files(walker: &Walker) {
    let walk = walk_all(walker);
    let (visited, limit_hit) = visit_all(walker, |_| true);
    let expected: Vec<(String, usize, bool)> = walk.files.iter().map(|f| (f.rel_path(), f.depth, f.regular)).collect();
    let got: Vec<(String, usize, bool)> = visited.iter().map(|(r, d, reg, _)| (r.clone(), *d, *reg)).collect();
    assert_eq!(got, expected);
    assert_eq!(limit_hit, walk.limit_hit);
    for (rel, _, regular, text) in &visited {
        if *regular {
            let path = walk.files.iter().find(|f| &f.rel_path() == rel).unwrap().path.clone();
            assert_eq!(text, &std::fs::read_to_string(&path).unwrap(), "{rel}");
        }
    }
}

#[test]
fn visit_sees_what_files_sees_through_links_loops_and_skips() {
    let outside = TempDir::new().unwrap();
    write(outside.path(), "o/SKILL.md", "outside");
    write(outside.path(), "target.md", "linked file");
    let tmp = TempDir::new().unwrap();
    let root = tmp.path();
    write(root, "a/SKILL.md", "a");
    write(root, "a/b/SKILL.md", "ab");
    write(root, ".git/SKILL.md", "hidden");
    write(root, "top.txt", "top");
    link("..", root, "a/up");
    link(root, root, "a/b/root");
    link(outside.path(), root, "out1");
    link(outside.path(), root, "a/out2");
    link(outside.path().join("target.md"), root, "c/SKILL.md");
    link("nowhere", root, "dangling");
    std::fs::create_dir_all(root.join("f")).unwrap();
    mkfifo(&root.join("f/SKILL.md"));

    for walker in [Walker::new(root).skip_dir(".git"), Walker::new(root).skip_dir(".git").symlinks(Symlinks::Skip)] {
        assert_visit_matches_files(&walker);
    }
    let (visited, _) = visit_all(&Walker::new(root).skip_dir(".git"), |name| name == "SKILL.md");
    let expected = [
        ("a/SKILL.md", 2, true, "a"),
        ("c/SKILL.md", 2, true, "linked file"),
        ("f/SKILL.md", 2, false, "-"),
        ("a/b/SKILL.md", 3, true, "ab"),
        ("out1/o/SKILL.md", 3, true, "outside"),
    ];
    let expected: Vec<Visit> = expected.iter().map(|&(r, d, reg, t)| (r.into(), d, reg, t.into())).collect();
    assert_eq!(visited, expected);
}

#[test]
fn visit_stops_at_every_limit_as_files_does() {
    let tmp = TempDir::new().unwrap();
    let root = tmp.path();
    chain(root);
    write(root, "top", "t");
    for d in ["a", "b", "c"] {
        write(root, &format!("{d}/f"), d);
        write(root, &format!("{d}/sub/g"), d);
    }
    for depth in 0..4 {
        assert_visit_matches_files(&Walker::new(root).limits(limits(depth, 1000, 1000)));
    }
    for dirs in 0..12 {
        assert_visit_matches_files(&Walker::new(root).limits(limits(64, dirs, 1000)));
    }
    for entries in 0..20 {
        assert_visit_matches_files(&Walker::new(root).limits(limits(64, 1000, entries)));
    }
}

#[test]
fn visit_pairs_each_result_with_its_file_on_a_wide_tree() {
    // Enough directories per level to spread them over threads.
    let tmp = TempDir::new().unwrap();
    let root = tmp.path();
    for i in 0..300 {
        write(root, &format!("d{i:03}/SKILL.md"), &format!("d{i:03}"));
        write(root, &format!("d{i:03}/scripts/SKILL.md"), &format!("d{i:03}/scripts"));
        write(root, &format!("d{i:03}/other.md"), "other");
    }
    let (visited, limit_hit) = visit_all(&Walker::new(root), |name| name == "SKILL.md");
    assert_eq!(limit_hit, None);
    assert_eq!(visited.len(), 600);
    for (rel, _, regular, text) in &visited {
        assert!(regular);
        assert_eq!(format!("{text}/SKILL.md"), *rel);
    }
    assert_visit_matches_files(&Walker::new(root));
}

#[test]
fn visit_on_a_missing_or_file_root_visits_nothing() {
    let tmp = TempDir::new().unwrap();
    write(tmp.path(), "file.txt", "f");
    for root in ["missing", "file.txt"] {
        let (visited, limit_hit) = visit_all(&Walker::new(tmp.path().join(root)), |_| true);
        assert!(visited.is_empty(), "{root}");
        assert_eq!(limit_hit, None);
    }
}

#[test]
fn parallel_map_keeps_order_with_uneven_work() {
    let items: Vec<u64> = (0..2000).collect();
    let doubled = skilldeck_walk::parallel_map(&items, |&n| {
        if n % 97 == 0 {
            std::thread::sleep(Duration::from_millis(1));
        }
        n * 2
    });
    assert_eq!(doubled, items.iter().map(|n| n * 2).collect::<Vec<_>>());
    assert!(skilldeck_walk::parallel_map(&[] as &[u64], |&n| n).is_empty());
}

#[test]
fn few_and_many_subdirectories_walk_the_same_order() {
    // `few` has three subdirectories (listed ahead while it is open), `many`
    // twelve (listed on their own level); links and a depth limit cross both.
    let tmp = TempDir::new().unwrap();
    let root = tmp.path();
    for i in 0..3 {
        write(root, &format!("few/s{i}/SKILL.md"), "");
        write(root, &format!("few/s{i}/deep/SKILL.md"), "");
    }
    for i in 0..12 {
        write(root, &format!("many/s{i:02}/SKILL.md"), "");
    }
    link("../../few/s1", root, "many/s00/to-few-s1");
    link("../../many", root, "few/s2/to-many");
    let walk = walk_all(&Walker::new(root));
    let mut expected: Vec<String> = Vec::new();
    expected.extend((0..3).map(|i| format!("few/s{i}/SKILL.md")));
    expected.extend((0..12).map(|i| format!("many/s{i:02}/SKILL.md")));
    expected.extend((0..3).map(|i| format!("few/s{i}/deep/SKILL.md")));
    expected.push("many/s00/to-few-s1/SKILL.md".to_owned());
    // Through the link to `many`, whose own link to `few/s1` was taken already.
    expected.extend((0..12).map(|i| format!("few/s2/to-many/s{i:02}/SKILL.md")));
    expected.push("many/s00/to-few-s1/deep/SKILL.md".to_owned());
    assert_eq!(rels(&walk), expected);
    for depth in 1..4 {
        assert_visit_matches_files(&Walker::new(root).limits(limits(depth, 1000, 1000)));
    }
    for dirs in [3, 5, 8, 17, 20] {
        assert_visit_matches_files(&Walker::new(root).limits(limits(64, dirs, 1000)));
    }
    assert_visit_matches_files(&Walker::new(root));
}

/// `Visited::links` names every link a following walk met, dangling or not,
/// by its path as walked (one inside a linked directory too), in walk
/// order; a walk that skips links meets none.
#[test]
fn a_visit_names_the_links_it_met() {
    let outside = TempDir::new().unwrap();
    write(outside.path(), "far/SKILL.md", "f");
    link("nowhere", outside.path(), "far/dangling-inside");
    let tmp = TempDir::new().unwrap();
    let root = tmp.path();
    write(root, "real/SKILL.md", "r");
    link(outside.path().join("far"), root, "dir-link");
    link("../real/SKILL.md", root, "skill/SKILL.md");
    link("nowhere", root, "real/dangling");

    let visit = |walker: Walker| walker.visit(|name| name == "SKILL.md", |_| ()).links;
    let links = visit(Walker::new(root));
    assert_eq!(links, ["dir-link", "dir-link/dangling-inside", "real/dangling", "skill/SKILL.md"].map(PathBuf::from));
    assert!(visit(Walker::new(root).symlinks(Symlinks::Skip)).is_empty());
}
