//! Hostile and broken input on real directories. Each case gives an exact skip
//! or warning (never a panic or a hang), and the good skills next to it still
//! load.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use skilldeck::store::Precondition;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use skilldeck::{
    AgentProfile, Catalog, CatalogBuilder, FrontmatterMode, InvalidSampleLimit, LimitHit, Limits, LoadSkillTool,
    Origin, SampleLimit, SkillDef, SkillTool, Skip, SkipReason, Warning,
};

use skilldeck::store::{MemoryStore, SkillStore};

use crate::util::Tree;

/// Runs `f` on its own thread and fails if it takes longer than `secs`
/// seconds, so that a hang fails the test instead of stalling the suite.
fn within<T: Send + 'static>(secs: u64, what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    let start = Instant::now();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(Duration::from_secs(secs)) {
        Ok(value) => value,
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => panic!("{what}: no result after {secs} s (hang?)"),
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
            panic!("{what}: panicked after {:?}", start.elapsed())
        }
    }
}

/// A tree that already holds the skill `good` (with one sibling file).
fn tree() -> Tree {
    let tree = Tree::new();
    tree.skill("good", "good", "A good skill.", "Good body.\n");
    tree.file("good/scripts/run.sh", "echo ok\n");
    tree
}

fn builder(tree: &Tree) -> CatalogBuilder {
    Catalog::builder().root(tree.root())
}

/// Builds `builder` with a time bound.
fn build(builder: CatalogBuilder) -> Catalog {
    within(20, "build", move || builder.build())
}

/// The location a skip or skill at `rel` has: the walked, absolute path.
fn loc(tree: &Tree, rel: &str) -> String {
    tree.path(rel).to_string_lossy().into_owned()
}

fn names(catalog: &Catalog) -> Vec<&str> {
    catalog.skills().map(|s| s.name()).collect()
}

/// The good skill loaded and serves its body.
fn assert_good(catalog: &Catalog) {
    let good = catalog.get("good").unwrap_or_else(|| panic!("`good` missing; skips: {:?}", catalog.skips()));
    assert_eq!(good.description(), Some("A good skill."));
    let out = SkillTool::new(catalog).call(&json!({"name": "good"}));
    assert!(!out.is_error, "{}", out.output);
    assert!(out.output.contains("\n\nGood body.\n\n"), "{}", out.output);
    assert!(out.output.contains("/good/scripts/run.sh</file>"), "{}", out.output);
}

/// The single skip of the catalog, which must be at `rel` with `reason`.
fn only_skip<'a>(catalog: &'a Catalog, tree: &Tree, rel: &str, reason: SkipReason) -> &'a Skip {
    assert_eq!(catalog.skips().len(), 1, "skips: {:?}", catalog.skips());
    let skip = &catalog.skips()[0];
    assert_eq!(skip.location, loc(tree, rel), "{skip:?}");
    assert_eq!(skip.reason, reason, "{skip:?}");
    skip
}

fn detail(skip: &Skip) -> &str {
    skip.detail.as_deref().unwrap_or_else(|| panic!("no detail: {skip:?}"))
}

/// The files the tool lists for `name`, as written in its `<file>` lines.
fn sampled(catalog: &Catalog, name: &str) -> Vec<String> {
    let out = SkillTool::new(catalog).call(&json!({"name": name}));
    assert!(!out.is_error, "{}", out.output);
    out.output
        .lines()
        .filter_map(|l| l.strip_prefix("<file>").and_then(|l| l.strip_suffix("</file>")))
        .map(str::to_owned)
        .collect()
}

fn mkfifo(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let status = Command::new("mkfifo").arg(path).status().expect("run mkfifo");
    assert!(status.success(), "mkfifo {}", path.display());
}

fn skill_md(name: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: d\n---\n{body}")
}

// ---------------------------------------------------------------------------
// Links

#[test]
fn symlink_loops_end_and_each_skill_is_found_once() {
    let tree = tree();
    tree.skill("a", "a", "A.", "A body.\n");
    tree.symlink(tree.root(), "a/up-to-root");
    tree.symlink("..", "a/up-relative");
    tree.symlink(".", "self-dot");
    tree.symlink("../..", "a/b/c/to-a");
    tree.symlink(tree.root(), "good/root-loop");
    tree.symlink(".", "good/self-loop");
    tree.symlink("..", "good/scripts/parent-loop");

    let catalog = build(builder(&tree));
    assert_eq!(names(&catalog), ["a", "good"]);
    assert_eq!(catalog.skips(), []);
    assert_eq!(catalog.warnings(), []);
    assert_good(&catalog);
    let files = within(20, "sample", move || sampled(&catalog, "good"));
    assert_eq!(files, [loc(&tree, "good/scripts/run.sh")]);
}

#[test]
fn a_link_back_to_the_root_through_an_outside_dir_does_not_walk_the_root_again() {
    // root/ext -> OUT, OUT/back -> root: the walked path root/ext/back is a
    // link inside the root to the root, so the root is not entered again.
    let outside = Tree::new();
    outside.file("notes.txt", "n");
    let tree = tree();
    tree.symlink(outside.root(), "ext");
    outside.symlink(tree.root(), "back");
    // The same inside a skill dir: good/more -> OUT2, OUT2/back -> good.
    let outside2 = Tree::new();
    outside2.file("extra.txt", "e");
    tree.symlink(outside2.root(), "good/more");
    outside2.symlink(tree.path("good"), "back");

    let catalog = build(builder(&tree));
    assert_eq!(names(&catalog), ["good"]);
    assert_eq!(catalog.skips(), [], "the root was walked twice");
    assert_eq!(catalog.warnings(), []);
    let files = within(20, "sample", move || sampled(&catalog, "good"));
    assert_eq!(files, [loc(&tree, "good/more/extra.txt"), loc(&tree, "good/scripts/run.sh")]);
}

#[test]
fn a_link_to_a_skill_dir_inside_the_root_is_a_second_candidate() {
    // Not a loop: the link is entered, and the first of the two (by depth, then
    // code point: `alias` before `good`) wins.
    let tree = tree();
    tree.symlink(tree.path("good"), "alias");

    let catalog = build(builder(&tree));
    assert_eq!(names(&catalog), ["good"]);
    assert_eq!(catalog.get("good").unwrap().location(), loc(&tree, "alias/SKILL.md"));
    let skip = only_skip(&catalog, &tree, "good/SKILL.md", SkipReason::DuplicateName);
    assert_eq!(skip.detail, None);
    assert_eq!(
        catalog.warnings(),
        [Warning::DuplicateName { name: "good".into(), location: loc(&tree, "good/SKILL.md") }]
    );
}

#[test]
fn dangling_links_are_passed_over_in_discovery_and_sampling() {
    let tree = tree();
    tree.symlink("nowhere", "good/dangling.txt");
    tree.symlink("/definitely/not/here", "good/scripts/gone.sh");
    tree.symlink("../missing", "good/missing-dir");
    tree.symlink("nothing-here", "lost/SKILL.md");

    let catalog = build(builder(&tree));
    assert_eq!(names(&catalog), ["good"]);
    assert_eq!(catalog.skips(), []);
    assert_eq!(catalog.warnings(), []);
    assert_good(&catalog);
    assert_eq!(sampled(&catalog, "good"), [loc(&tree, "good/scripts/run.sh")]);
}

#[test]
fn a_skill_md_linked_to_a_file_outside_is_listed_but_its_body_is_not_read() {
    let outside = Tree::new();
    outside.file("real.md", skill_md("linked", "Linked body.\n"));
    let tree = tree();
    tree.symlink(outside.path("real.md"), "linked/SKILL.md");
    tree.file("linked/ref.txt", "r");

    let catalog = build(builder(&tree));
    assert_eq!(names(&catalog), ["good", "linked"]);
    assert_eq!(catalog.skips(), []);
    let linked = catalog.get("linked").unwrap();
    assert_eq!(linked.location(), loc(&tree, "linked/SKILL.md"));
    assert_eq!(linked.dir(), Some(tree.path("linked").as_path()));
    // Discovery follows the link, as toolnexus does; bytes from outside
    // the skill's root are never served (SPEC §11).
    let real = std::fs::canonicalize(outside.path("real.md")).unwrap();
    let refusal = format!("{} leads outside its root (to {})", loc(&tree, "linked/SKILL.md"), real.display());
    assert_eq!(linked.body().unwrap_err().to_string(), refusal);
    let out = SkillTool::new(&catalog).call(&json!({"name": "linked"}));
    assert_eq!((out.output, out.is_error), (format!("Skill \"linked\" could not be read: {refusal}"), true));
    assert_good(&catalog);
}

/// Each skill's bytes are confined to its own root, not to every root's
/// (issue 19): a root cannot open another's files through a link.
#[test]
fn a_skill_md_linked_inside_another_root_is_not_served() {
    let other = Tree::new();
    other.file("real.md", skill_md("linked", "Linked body.\n"));
    other.file("own/SKILL.md", skill_md("own", "Its own body.\n"));
    let tree = tree();
    tree.symlink(other.path("real.md"), "linked/SKILL.md");

    let catalog = build(builder(&tree).root(other.root()));
    let error = catalog.get("linked").unwrap().body().unwrap_err().to_string();
    assert!(error.ends_with(&format!("leads outside its root (to {})", other.path("real.md").display())), "{error}");
    assert_eq!(catalog.get("own").unwrap().body().unwrap(), "Its own body.\n");
}

#[test]
fn a_body_swapped_for_a_fifo_or_a_proc_link_is_refused_without_blocking() {
    let tree = tree();
    tree.skill("fifo", "fifo", "Becomes a FIFO.", "Body.\n");
    tree.skill("env", "env", "Becomes a link to /proc.", "Body.\n");
    let catalog = build(builder(&tree));
    std::fs::remove_file(tree.path("fifo/SKILL.md")).unwrap();
    mkfifo(&tree.path("fifo/SKILL.md"));
    std::fs::remove_file(tree.path("env/SKILL.md")).unwrap();
    tree.symlink("/proc/self/environ", "env/SKILL.md");

    let out = within(20, "fifo body", {
        let catalog = catalog.clone();
        move || SkillTool::new(&catalog).call(&json!({"name": "fifo"}))
    });
    let fifo = loc(&tree, "fifo/SKILL.md");
    assert_eq!(out.output, format!("Skill \"fifo\" could not be read: {fifo} is not a regular file (a FIFO)"));
    let out = SkillTool::new(&catalog).call(&json!({"name": "env"}));
    assert!(out.is_error);
    assert!(out.output.contains("leads outside its root (to /proc/"), "{}", out.output);
}

// ---------------------------------------------------------------------------
// Special files

#[test]
fn a_directory_named_skill_md_is_walked_into() {
    let tree = tree();
    tree.skill("odd/SKILL.md/inner", "inner", "Inside a dir named SKILL.md.", "Inner.\n");
    tree.skill("odd2/SKILL.md", "nested", "A SKILL.md inside a dir named SKILL.md.", "Nested.\n");

    let catalog = build(builder(&tree));
    assert_eq!(catalog.skips(), []);
    assert_eq!(names(&catalog), ["good", "nested", "inner"]);
    assert_eq!(catalog.get("inner").unwrap().location(), loc(&tree, "odd/SKILL.md/inner/SKILL.md"));
    assert_eq!(catalog.get("nested").unwrap().dir(), Some(tree.path("odd2/SKILL.md").as_path()));
    assert_good(&catalog);
}

#[test]
fn a_fifo_named_skill_md_is_unreadable_without_blocking() {
    let tree = tree();
    mkfifo(&tree.path("pipe/SKILL.md"));
    mkfifo(&tree.path("good/a-fifo"));

    let catalog = build(builder(&tree));
    let skip = only_skip(&catalog, &tree, "pipe/SKILL.md", SkipReason::Unreadable);
    assert_eq!(detail(skip), "not a regular file");
    assert_eq!(names(&catalog), ["good"]);
    let files = within(20, "sample", move || sampled(&catalog, "good"));
    assert_eq!(files, [loc(&tree, "good/scripts/run.sh")], "a FIFO is not sampled");
}

#[test]
fn a_skill_md_linked_to_a_fifo_is_unreadable_without_blocking() {
    let tree = tree();
    mkfifo(&tree.path("fifos/p"));
    tree.symlink(tree.path("fifos/p"), "piped/SKILL.md");

    let catalog = build(builder(&tree));
    let skip = only_skip(&catalog, &tree, "piped/SKILL.md", SkipReason::Unreadable);
    assert_eq!(detail(skip), "not a regular file");
    assert_good(&catalog);
}

// ---------------------------------------------------------------------------
// Encodings and line endings

#[test]
fn invalid_utf8_in_the_frontmatter_is_unreadable() {
    let tree = tree();
    tree.file("bad/SKILL.md", b"---\nname: bad\ndescription: caf\xe9\n---\nbody\n");

    let catalog = build(builder(&tree));
    let skip = only_skip(&catalog, &tree, "bad/SKILL.md", SkipReason::Unreadable);
    assert_eq!(detail(skip), "the frontmatter is not valid UTF-8");
    assert_eq!(names(&catalog), ["good"]);
    assert_good(&catalog);
}

#[test]
fn invalid_utf8_in_the_body_becomes_replacement_characters() {
    let tree = tree();
    tree.file("latin/SKILL.md", b"---\nname: latin\ndescription: d\n---\ncaf\xe9 \xff\xfe done\n");

    let catalog = build(builder(&tree));
    assert_eq!(catalog.skips(), []);
    let skill = catalog.get("latin").unwrap();
    assert_eq!(skill.body().unwrap(), "caf\u{FFFD} \u{FFFD}\u{FFFD} done\n");
    let out = SkillTool::new(&catalog).call(&json!({"name": "latin"}));
    assert!(!out.is_error);
    assert!(out.output.contains("\n\ncaf\u{FFFD} \u{FFFD}\u{FFFD} done\n\n"), "{}", out.output);
    assert_good(&catalog);
}

#[test]
fn invalid_utf8_in_a_large_lazily_read_body_becomes_replacement_characters() {
    let tree = tree();
    let mut bytes = b"---\nname: lazy-latin\ndescription: d\n---\n".to_vec();
    bytes.extend(std::iter::repeat_n(b'a', 20_000));
    bytes.extend(b"\xe9\xff end");
    tree.file("lazy/SKILL.md", &bytes);

    let catalog = build(builder(&tree));
    assert_eq!(catalog.skips(), []);
    let body = catalog.get("lazy-latin").unwrap().body().unwrap();
    assert!(body.ends_with("a\u{FFFD}\u{FFFD} end"), "{:?}", &body[body.len() - 20..]);
    assert_eq!(body.len(), 20_000 + 6 + 4);
}

#[test]
fn a_byte_order_mark_is_skipped() {
    let tree = tree();
    tree.file("bom/SKILL.md", b"\xEF\xBB\xBF---\nname: bom\ndescription: With a BOM.\n---\nBOM body.\n");
    tree.file("bomcrlf/SKILL.md", b"\xEF\xBB\xBF---\r\nname: bomcrlf\r\ndescription: Both.\r\n---\r\nBody.\r\n");

    let catalog = build(builder(&tree));
    assert_eq!(catalog.skips(), []);
    assert_eq!(names(&catalog), ["bom", "bomcrlf", "good"]);
    let bom = catalog.get("bom").unwrap();
    assert_eq!(bom.description(), Some("With a BOM."));
    assert_eq!(bom.body().unwrap(), "BOM body.\n");
    assert_eq!(catalog.get("bomcrlf").unwrap().description(), Some("Both."));
    assert_eq!(catalog.get("bomcrlf").unwrap().body().unwrap(), "Body.\r\n");
}

#[test]
fn a_bom_that_is_not_at_byte_zero_or_twice_is_no_frontmatter() {
    let tree = tree();
    tree.file("twice/SKILL.md", b"\xEF\xBB\xBF\xEF\xBB\xBF---\nname: twice\n---\n");
    tree.file("late/SKILL.md", b"\n\xEF\xBB\xBF---\nname: late\n---\n");

    let catalog = build(builder(&tree));
    assert_eq!(catalog.skips().len(), 2, "{:?}", catalog.skips());
    for (skip, rel) in catalog.skips().iter().zip(["late/SKILL.md", "twice/SKILL.md"]) {
        assert_eq!(skip.location, loc(&tree, rel));
        assert_eq!(skip.reason, SkipReason::MissingName);
        assert_eq!(detail(skip), "no frontmatter");
    }
    assert_eq!(names(&catalog), ["good"]);
}

#[test]
fn crlf_parses_and_the_body_keeps_its_line_breaks() {
    let tree = tree();
    tree.file(
        "crlf/SKILL.md",
        "---\r\nname: crlf\r\ndescription: Windows line ends.\r\n---  \r\nline one\r\nline two\r\n\r\nline four\r\n",
    );

    let catalog = build(builder(&tree));
    assert_eq!(catalog.skips(), []);
    assert_eq!(catalog.warnings(), []);
    let skill = catalog.get("crlf").unwrap();
    assert_eq!(skill.description(), Some("Windows line ends."));
    assert_eq!(skill.body().unwrap(), "line one\r\nline two\r\n\r\nline four\r\n");
    let out = SkillTool::new(&catalog).call(&json!({"name": "crlf"}));
    assert!(out.output.contains("\n\nline one\r\nline two\r\n\r\nline four\n\n"), "{:?}", out.output);
    assert_good(&catalog);
}

#[test]
fn lone_cr_line_ends_are_no_frontmatter() {
    let tree = tree();
    tree.file("mac/SKILL.md", "---\rname: mac\rdescription: Classic Mac OS.\r---\rbody\r");

    let catalog = build(builder(&tree));
    let skip = only_skip(&catalog, &tree, "mac/SKILL.md", SkipReason::MissingName);
    assert_eq!(detail(skip), "no frontmatter");
    assert_good(&catalog);
}

#[test]
fn an_unclosed_fence_is_missing_name() {
    let tree = tree();
    tree.file("open/SKILL.md", "---\nname: open\ndescription: Never closed.\n\nBody text.\n");
    tree.file("almost/SKILL.md", "---\nname: almost\n----\n--- x\n -- -\n");

    let catalog = build(builder(&tree));
    assert_eq!(catalog.skips().len(), 2, "{:?}", catalog.skips());
    for (skip, rel) in catalog.skips().iter().zip(["almost/SKILL.md", "open/SKILL.md"]) {
        assert_eq!(skip.location, loc(&tree, rel));
        assert_eq!(skip.reason, SkipReason::MissingName);
        assert_eq!(detail(skip), "no frontmatter");
    }
    assert_eq!(names(&catalog), ["good"]);
    assert_good(&catalog);
}

#[test]
fn an_empty_skill_md_is_missing_name() {
    let tree = tree();
    tree.file("empty/SKILL.md", "");
    tree.file("fence-only/SKILL.md", "---\n");

    let catalog = build(builder(&tree));
    assert_eq!(catalog.skips().len(), 2, "{:?}", catalog.skips());
    for skip in catalog.skips() {
        assert_eq!((skip.reason, detail(skip)), (SkipReason::MissingName, "no frontmatter"), "{skip:?}");
    }
    assert_good(&catalog);
}

#[test]
fn nul_bytes_in_the_body_are_kept() {
    let tree = tree();
    tree.file("nul/SKILL.md", b"---\nname: nul\ndescription: d\n---\nbefore\0after\n\0\n");

    let catalog = build(builder(&tree));
    assert_eq!(catalog.skips(), []);
    assert_eq!(catalog.get("nul").unwrap().body().unwrap(), "before\0after\n\0\n");
    let out = SkillTool::new(&catalog).call(&json!({"name": "nul"}));
    assert!(out.output.contains("\n\nbefore\0after\n\0\n\n"), "{:?}", out.output);
    assert_good(&catalog);
}

#[test]
fn a_nul_byte_in_the_frontmatter_is_a_skip_or_a_recovery_not_a_panic() {
    let tree = tree();
    tree.file("nulfm/SKILL.md", b"---\nname: nulfm\ndescription: a\0b\n---\nbody\n");

    // YAML refuses the NUL; lenient mode rescues the lines as written.
    let catalog = build(builder(&tree));
    assert_eq!(catalog.skips(), []);
    let skill = catalog.get("nulfm").unwrap();
    assert_eq!(skill.description(), Some("a\0b"));
    assert_eq!(skill.body().unwrap(), "body\n");
    let [Warning::RecoveredFrontmatter { location, problem }] = catalog.warnings() else {
        panic!("{:?}", catalog.warnings());
    };
    assert_eq!(location, &loc(&tree, "nulfm/SKILL.md"));
    assert_eq!(problem.position, Some((3, 15)));
    assert_good(&catalog);

    let strict = build(builder(&tree).frontmatter_mode(FrontmatterMode::Strict));
    let skip = only_skip(&strict, &tree, "nulfm/SKILL.md", SkipReason::MalformedFrontmatter);
    assert!(detail(skip).ends_with(" at line 3, column 15"), "{skip:?}");
}

// ---------------------------------------------------------------------------
// YAML

#[test]
fn duplicate_keys_are_rescued_in_lenient_mode() {
    let tree = tree();
    tree.file("dup/SKILL.md", "---\nname: dup\ndescription: first\ndescription: second\n---\nDup body.\n");
    tree.file("dupname/SKILL.md", "---\nname: dupname\nname: other\ndescription: d\n---\nbody\n");

    let catalog = build(builder(&tree));
    assert_eq!(catalog.skips(), []);
    assert_eq!(names(&catalog), ["dup", "dupname", "good"]);
    let dup = catalog.get("dup").unwrap();
    assert_eq!(dup.description(), Some("first"), "the line-wise fallback takes the first");
    assert_eq!(dup.body().unwrap(), "Dup body.\n");
    assert!(catalog.get("other").is_none());

    assert_eq!(catalog.warnings().len(), 2, "{:?}", catalog.warnings());
    for (warning, rel) in catalog.warnings().iter().zip(["dup/SKILL.md", "dupname/SKILL.md"]) {
        let Warning::RecoveredFrontmatter { location, problem } = warning else {
            panic!("not a recovered-frontmatter warning: {warning:?}");
        };
        assert_eq!(location, &loc(&tree, rel));
        assert!(problem.refused, "{problem:?}");
        assert_eq!(warning.kind(), "recovered-frontmatter");
        let text = warning.to_string();
        assert!(
            text.starts_with(&format!("recovered-frontmatter: {}: duplicate mapping key: ", loc(&tree, rel))),
            "{text}"
        );
        assert!(text.contains("duplicate mapping key: "), "{text}");
        assert!(!text.contains("DuplicateKeyPolicy"), "{text}");
    }
    assert_eq!(
        catalog.warnings()[0].to_string(),
        format!(
            "recovered-frontmatter: {}: duplicate mapping key: description at line 4, column 1; \
             name and description were read line by line",
            loc(&tree, "dup/SKILL.md")
        )
    );
    let Warning::RecoveredFrontmatter { problem, .. } = &catalog.warnings()[0] else { unreachable!() };
    // The duplicate is on line 4 of the file.
    assert_eq!(problem.position.map(|(line, _)| line), Some(4), "{problem:?}");
    assert_good(&catalog);
}

#[test]
fn duplicate_keys_are_malformed_in_strict_mode() {
    let tree = tree();
    tree.file("dup/SKILL.md", "---\nname: dup\ndescription: first\ndescription: second\n---\nDup body.\n");

    let catalog = build(builder(&tree).frontmatter_mode(FrontmatterMode::Strict));
    let skip = only_skip(&catalog, &tree, "dup/SKILL.md", SkipReason::MalformedFrontmatter);
    assert_eq!(detail(skip), "duplicate mapping key: description at line 4, column 1");
    assert_eq!(catalog.warnings(), []);
    assert_eq!(names(&catalog), ["good"]);
    assert_good(&catalog);
}

#[test]
fn a_frontmatter_that_is_not_a_mapping_is_missing_name() {
    let tree = tree();
    tree.file("list/SKILL.md", "---\n- name: list\n---\nbody\n");
    tree.file("scalar/SKILL.md", "---\njust text\n---\nbody\n");

    for mode in [FrontmatterMode::Lenient, FrontmatterMode::Strict] {
        let catalog = build(builder(&tree).frontmatter_mode(mode));
        assert_eq!(catalog.skips().len(), 2, "{mode:?}: {:?}", catalog.skips());
        for (skip, rel) in catalog.skips().iter().zip(["list/SKILL.md", "scalar/SKILL.md"]) {
            assert_eq!(skip.location, loc(&tree, rel));
            let expected = if mode == FrontmatterMode::Strict {
                SkipReason::MalformedFrontmatter
            } else {
                SkipReason::MissingName
            };
            assert_eq!(skip.reason, expected, "{mode:?}: {skip:?}");
            assert!(detail(skip).starts_with("the frontmatter is not a mapping"), "{skip:?}");
        }
        assert_eq!(names(&catalog), ["good"]);
    }
}

#[test]
fn a_name_that_is_a_collection_is_missing_name() {
    let tree = tree();
    tree.file("coll/SKILL.md", "---\nname: [a, b]\ndescription: d\n---\nbody\n");
    tree.file("blank/SKILL.md", "---\nname: '  '\ndescription: d\n---\nbody\n");

    let catalog = build(builder(&tree));
    assert_eq!(catalog.skips().len(), 2, "{:?}", catalog.skips());
    let blank = &catalog.skips()[0];
    assert_eq!(
        (blank.location.as_str(), blank.reason),
        (loc(&tree, "blank/SKILL.md").as_str(), SkipReason::MissingName)
    );
    assert_eq!(detail(blank), "no `name` in the frontmatter");
    let coll = &catalog.skips()[1];
    assert_eq!((coll.location.as_str(), coll.reason), (loc(&tree, "coll/SKILL.md").as_str(), SkipReason::MissingName));
    assert!(detail(coll).starts_with("`name` is not a scalar at line 2"), "{coll:?}");
    assert_good(&catalog);
}

/// `name: ` followed by `depth` openers of `open`, and `close` to end them.
fn nested(open: &str, close: &str, depth: usize) -> String {
    format!("---\nname: {}x{}\ndescription: deep\n---\nbody\n", open.repeat(depth), close.repeat(depth))
}

#[test]
fn yaml_nested_100000_deep_is_malformed_and_fast() {
    let tree = tree();
    tree.file("flow-seq/SKILL.md", nested("[", "]", 100_000));
    tree.file("flow-map/SKILL.md", nested("{a: ", "}", 100_000));
    tree.file("unclosed/SKILL.md", format!("---\nname: {}\n---\nbody\n", "[".repeat(100_000)));
    tree.file("block-seq/SKILL.md", format!("---\nname:\n  {}x\n---\nbody\n", "- ".repeat(100_000)));

    let catalog = build(builder(&tree));
    assert_eq!(names(&catalog), ["good"]);
    let rels = ["block-seq/SKILL.md", "flow-map/SKILL.md", "flow-seq/SKILL.md", "unclosed/SKILL.md"];
    assert_eq!(catalog.skips().len(), rels.len(), "{:?}", catalog.skips());
    for (skip, rel) in catalog.skips().iter().zip(rels) {
        assert_eq!(skip.location, loc(&tree, rel));
        assert_eq!(skip.reason, SkipReason::MalformedFrontmatter, "{skip:?}");
        // YAML's depth guard, with the place it tripped.
        assert!(detail(skip).contains(" at line "), "{skip:?}");
    }
    assert_good(&catalog);
}

#[test]
fn deep_yaml_under_another_key_is_rescued_in_lenient_mode_and_malformed_in_strict() {
    let tree = tree();
    let deep = format!("---\nname: deepkey\ndescription: Rescued.\nother: {}\n---\nbody\n", "[".repeat(100_000));
    tree.file("deepkey/SKILL.md", &deep);

    let catalog = build(builder(&tree));
    assert_eq!(catalog.skips(), []);
    assert_eq!(catalog.get("deepkey").unwrap().description(), Some("Rescued."));
    assert_eq!(catalog.warnings().len(), 1, "{:?}", catalog.warnings());
    assert!(matches!(&catalog.warnings()[0], Warning::RecoveredFrontmatter { location, .. }
        if *location == loc(&tree, "deepkey/SKILL.md")));

    let strict = build(builder(&tree).frontmatter_mode(FrontmatterMode::Strict));
    only_skip(&strict, &tree, "deepkey/SKILL.md", SkipReason::MalformedFrontmatter);
    assert_good(&strict);
}

/// The billion laughs: `levels` levels of `fanout` aliases each.
fn alias_bomb(name_line: &str, levels: usize, fanout: usize) -> String {
    let lols = vec!["lol"; fanout].join(", ");
    let mut yaml = format!("---\n{name_line}\ndescription: Bomb.\nl0: &l0 [{lols}]\n");
    for i in 1..levels {
        let refs = vec![format!("*l{}", i - 1); fanout].join(", ");
        yaml.push_str(&format!("l{i}: &l{i} [{refs}]\n"));
    }
    yaml.push_str("---\nBomb body.\n");
    yaml
}

#[test]
fn an_alias_bomb_is_fast_and_rescued_or_skipped() {
    let tree = tree();
    tree.file("bomb/SKILL.md", alias_bomb("name: bomb", 10, 9));
    // Few aliases, but 2^40 nodes once expanded.
    tree.file("narrow-bomb/SKILL.md", alias_bomb("name: narrow-bomb", 40, 2));
    tree.file("nameless-bomb/SKILL.md", alias_bomb("title: none", 10, 9));

    let catalog = build(builder(&tree));
    // The name is rescued line by line, with a warning.
    for (name, rel) in [("bomb", "bomb/SKILL.md"), ("narrow-bomb", "narrow-bomb/SKILL.md")] {
        let skill = catalog.get(name).unwrap_or_else(|| panic!("{name}: skips: {:?}", catalog.skips()));
        assert_eq!(skill.description(), Some("Bomb."));
        assert_eq!(skill.body().unwrap(), "Bomb body.\n");
        let warning = catalog.warnings().iter().find(|w| {
            matches!(w, Warning::RecoveredFrontmatter { location, .. }
            if *location == loc(&tree, rel))
        });
        let Some(Warning::RecoveredFrontmatter { problem, .. }) = warning else {
            panic!("{name}: {:?}", catalog.warnings());
        };
        assert!(problem.refused, "{problem:?}");
        assert!(problem.message.starts_with("budget breached"), "{problem:?}");
    }
    assert_eq!(catalog.warnings().len(), 2, "{:?}", catalog.warnings());
    // Without a name there is nothing to rescue.
    let skip = only_skip(&catalog, &tree, "nameless-bomb/SKILL.md", SkipReason::MalformedFrontmatter);
    assert!(!detail(skip).is_empty());
    assert_good(&catalog);

    let strict = build(builder(&tree).frontmatter_mode(FrontmatterMode::Strict));
    assert_eq!(strict.skips().len(), 3, "{:?}", strict.skips());
    assert!(strict.skips().iter().all(|s| s.reason == SkipReason::MalformedFrontmatter), "{:?}", strict.skips());
    assert_eq!(names(&strict), ["good"]);
}

// ---------------------------------------------------------------------------
// Size

const MB: usize = 1 << 20;

/// A `SKILL.md` of `huge` whose body is `first line` and lines up to `len` bytes, then `THE END`.
fn huge_skill_md(len: usize) -> Vec<u8> {
    let mut bytes = skill_md("huge", "first line\n").into_bytes();
    let line = b"0123456789 abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ\n";
    while bytes.len() + line.len() + 8 <= len {
        bytes.extend_from_slice(line);
    }
    bytes.extend_from_slice(b"THE END\n");
    bytes
}

#[test]
fn a_body_just_within_16_mib_is_read_lazily_and_served_whole() {
    let tree = tree();
    let bytes = huge_skill_md(16 * MB);
    let body_len = bytes.len() - skill_md("huge", "").len();
    tree.file("huge/SKILL.md", &bytes);
    drop(bytes);

    let catalog = build(builder(&tree));
    assert_eq!(catalog.skips(), []);
    assert_eq!(names(&catalog), ["good", "huge"]);
    assert_good(&catalog);

    // Read when served, not when built: its end, changed since the build, is served as it is now.
    let path = tree.path("huge/SKILL.md");
    let mut bytes = std::fs::read(&path).unwrap();
    let end = bytes.len() - b"THE END\n".len();
    assert_eq!(&bytes[end..], b"THE END\n");
    bytes[end..].copy_from_slice(b"NEW END\n");
    std::fs::write(&path, &bytes).unwrap();
    drop(bytes);
    let catalog2 = catalog.clone();
    let out = within(30, "tool call", move || SkillTool::new(&catalog2).call(&json!({"name": "huge"})));
    assert!(!out.is_error, "{}", &out.output[..out.output.len().min(500)]);
    assert!(out.output.starts_with("<skill_content name=\"huge\">\n# Skill: huge\n\nfirst line\n0123"));
    assert!(out.output.contains("XYZ\nNEW END\n\nBase directory for this skill: file://"));
    assert_eq!(catalog.get("huge").unwrap().body().unwrap().len(), body_len);
}

#[test]
fn a_50_mb_body_is_listed_and_never_served() {
    let tree = tree();
    let bytes = huge_skill_md(50 * MB);
    let size = bytes.len();
    tree.file("huge/SKILL.md", &bytes);
    drop(bytes);

    let catalog = build(builder(&tree));
    assert_eq!(names(&catalog), ["good", "huge"], "its head is read: it is listed");
    let catalog2 = catalog.clone();
    let out = within(30, "tool call", move || SkillTool::new(&catalog2).call(&json!({"name": "huge"})));
    let path = tree.path("huge/SKILL.md");
    let refusal = format!("{} is {size} bytes, more than the 16777216 bytes (16 MiB) skilldeck serves", path.display());
    assert_eq!(out.output, format!("Skill \"huge\" could not be read: {refusal}"));
    assert!(out.is_error);
    assert_eq!(catalog.get("huge").unwrap().body().unwrap_err().to_string(), refusal);
}

#[test]
fn a_body_over_16_mib_from_a_store_or_data_is_never_served() {
    let big = "x".repeat(16 * MB + 1);
    let store = Arc::new(MemoryStore::default());
    store.write("stored", &format!("---\nname: stored\n---\n{big}"), None, &Precondition::Any).unwrap();
    let catalog =
        Catalog::builder().skill(SkillDef::new("data").description("d").content(big.clone())).store(store).build();
    for (name, what) in [("data", "skill://data/"), ("stored", "store:stored")] {
        let out = SkillTool::new(&catalog).call(&json!({"name": name}));
        let refusal = format!("{what} is 16777217 bytes, more than the 16777216 bytes (16 MiB) skilldeck serves");
        assert_eq!(
            (out.output.as_str(), out.is_error),
            (format!("Skill \"{name}\" could not be read: {refusal}").as_str(), true)
        );
    }
}

/// `---\n` and then `len` bytes of frontmatter lines that never close.
fn unclosed(len: usize) -> Vec<u8> {
    let mut bytes = b"---\nname: unclosed\n".to_vec();
    while bytes.len() < len {
        bytes.extend_from_slice(b"key: value value value value value value value value\n");
    }
    bytes
}

#[test]
fn a_50_mb_frontmatter_that_never_closes_is_too_large() {
    let tree = tree();
    tree.file("open/SKILL.md", unclosed(50 * MB));
    let mut one_line = b"---\nname: x".to_vec();
    one_line.resize(50 * MB, b'x');
    tree.file("one-line/SKILL.md", &one_line);

    // Too large at the 1 MiB cap: the reader stopped there, never reading the 50 MB.
    let catalog = build(builder(&tree));
    assert_eq!(catalog.skips().len(), 2, "{:?}", catalog.skips());
    for (skip, rel) in catalog.skips().iter().zip(["one-line/SKILL.md", "open/SKILL.md"]) {
        assert_eq!(skip.location, loc(&tree, rel));
        assert_eq!(skip.reason, SkipReason::TooLarge, "{skip:?}");
        assert_eq!(detail(skip), "the frontmatter is larger than 1048576 bytes");
    }
    assert_good(&catalog);
}

#[test]
fn a_50_mb_file_without_a_fence_is_missing_name_and_fast() {
    let tree = tree();
    tree.file("plain/SKILL.md", vec![b'#'; 50 * MB]);

    let catalog = build(builder(&tree));
    let skip = only_skip(&catalog, &tree, "plain/SKILL.md", SkipReason::MissingName);
    assert_eq!(detail(skip), "no frontmatter");
    assert_good(&catalog);
}

#[test]
fn a_small_cap_makes_a_10_kb_unclosed_frontmatter_too_large() {
    let tree = tree();
    tree.file("open/SKILL.md", unclosed(10 * 1024));

    let catalog = build(builder(&tree).max_frontmatter(4096));
    let skip = only_skip(&catalog, &tree, "open/SKILL.md", SkipReason::TooLarge);
    assert_eq!(detail(skip), "the frontmatter is larger than 4096 bytes");
    assert_good(&catalog);

    // With the default cap the same file is merely unclosed.
    let default = build(builder(&tree));
    let skip = only_skip(&default, &tree, "open/SKILL.md", SkipReason::MissingName);
    assert_eq!(detail(skip), "no frontmatter");
}

#[test]
fn an_unclosed_frontmatter_over_the_cap_is_too_large_whatever_the_file_size() {
    // SPEC: a frontmatter that grows past the cap without closing is
    // too-large. That must not depend on whether the whole file happened to
    // fit in the reads made so far.
    let tree = tree();
    tree.file("five-kb/SKILL.md", unclosed(5 * 1024));
    let capped = build(builder(&tree).max_frontmatter(4096));
    let skip = only_skip(&capped, &tree, "five-kb/SKILL.md", SkipReason::TooLarge);
    assert_eq!(detail(skip), "the frontmatter is larger than 4096 bytes");

    let tree = tree_with_one("mib-and-a-half/SKILL.md", &unclosed(3 * MB / 2));
    let default = build(builder(&tree));
    let skip = only_skip(&default, &tree, "mib-and-a-half/SKILL.md", SkipReason::TooLarge);
    assert_eq!(detail(skip), "the frontmatter is larger than 1048576 bytes");
}

#[test]
fn a_closed_frontmatter_over_the_cap_is_too_large_whatever_the_file_size() {
    // A 6 KB frontmatter that closes is still larger than a 4 KB cap; a 10 KB
    // one is too-large, so a 6 KB one must be too.
    let mut closed = unclosed(6 * 1024);
    closed.extend_from_slice(b"---\nbody\n");
    let tree = tree_with_one("six-kb/SKILL.md", &closed);
    let capped = build(builder(&tree).max_frontmatter(4096));
    let skip = only_skip(&capped, &tree, "six-kb/SKILL.md", SkipReason::TooLarge);
    assert_eq!(detail(skip), "the frontmatter is larger than 4096 bytes");

    // The same with the default cap: a 1.5 MiB frontmatter that closes.
    let mut closed = unclosed(3 * MB / 2);
    closed.extend_from_slice(b"---\nbody\n");
    let tree = tree_with_one("mib-and-a-half/SKILL.md", &closed);
    let default = build(builder(&tree));
    let skip = only_skip(&default, &tree, "mib-and-a-half/SKILL.md", SkipReason::TooLarge);
    assert_eq!(detail(skip), "the frontmatter is larger than 1048576 bytes");
}

fn tree_with_one(rel: &str, contents: &[u8]) -> Tree {
    let tree = tree();
    tree.file(rel, contents);
    tree
}

#[test]
fn a_frontmatter_just_under_the_cap_loads() {
    let mut bytes = b"---\nname: fits\ndescription: d\n".to_vec();
    while bytes.len() < 4000 {
        bytes.extend_from_slice(b"# padding comment line\n");
    }
    bytes.extend_from_slice(b"---\nbody\n");
    let tree = tree_with_one("fits/SKILL.md", &bytes);
    let catalog = build(builder(&tree).max_frontmatter(4096));
    assert_eq!(catalog.skips(), []);
    assert_eq!(catalog.get("fits").unwrap().body().unwrap(), "body\n");
}

#[test]
fn closing_fences_around_the_first_read_boundary() {
    // The first read is 8 KiB: put the closing line across, before and after
    // it, with and without a body, with LF and CRLF.
    let tree = tree();
    let mut expected = Vec::new();
    for eol in ["\n", "\r\n"] {
        for pad in 8170..8200 {
            for body in ["", "B\n"] {
                let name = format!("b{}-{pad}-{}", eol.len(), body.len());
                let mut text = format!("---{eol}name: {name}{eol}description: d{eol}# ");
                while text.len() < pad {
                    text.push('p');
                }
                text.push_str(&format!("{eol}---{eol}{body}"));
                tree.file(&format!("{name}/SKILL.md"), &text);
                expected.push((name, body));
            }
        }
    }
    let catalog = build(builder(&tree));
    assert_eq!(catalog.skips(), []);
    for (name, body) in expected {
        let skill = catalog.get(&name).unwrap_or_else(|| panic!("{name} missing"));
        assert_eq!(skill.body().unwrap(), body, "{name}");
    }
}

#[test]
fn a_lazily_read_body_that_vanished_is_an_error_result() {
    let tree = tree();
    let big = skill_md("big", &"x".repeat(20_000));
    tree.file("big/SKILL.md", &big);
    tree.file("changed/SKILL.md", skill_md("changed", &"y".repeat(20_000)));

    let catalog = build(builder(&tree));
    assert_eq!(names(&catalog), ["big", "changed", "good"]);
    std::fs::remove_file(tree.path("big/SKILL.md")).unwrap();
    tree.file("changed/SKILL.md", "no frontmatter any more\n");

    let tool = SkillTool::new(&catalog);
    let gone = tool.call(&json!({"name": "big"}));
    assert!(gone.is_error);
    assert!(gone.output.starts_with("Skill \"big\" could not be read: "), "{}", gone.output);
    let changed = tool.call(&json!({"name": "changed"}));
    assert!(changed.is_error);
    assert_eq!(
        changed.output,
        format!("Skill \"changed\" could not be read: {} no longer has a frontmatter", loc(&tree, "changed/SKILL.md"))
    );
    assert_good(&catalog);
}

/// A companion whose file went after the build is left out by `load_skill`
/// as by the injection: one rule for everything served beside another skill.
#[test]
fn a_companion_that_cannot_be_read_is_left_out_everywhere() {
    let tree = tree();
    tree.file(
        "menu/SKILL.md",
        "---\nname: menu\ndescription: m\ncompanions: [prices, hours]\ntriggers: [menu]\n---\nmenu body\n",
    );
    tree.file("prices/SKILL.md", "---\nname: prices\ndescription: p\n---\nprices body\n");
    tree.file("hours/SKILL.md", "---\nname: hours\ndescription: h\n---\nhours body\n");
    let catalog = build(builder(&tree));
    std::fs::remove_file(tree.path("prices/SKILL.md")).unwrap();
    let profile = AgentProfile::new("loja");
    let view = catalog.view(&profile);
    assert_eq!(
        LoadSkillTool::new(&view).load("menu").output,
        "<skill name=\"menu\">\nmenu body\n</skill>\n\n<skill name=\"hours\">\nhours body\n</skill>"
    );
    let injected: Vec<&str> = view.activate("the menu please").iter().map(|a| a.skill.name()).collect();
    assert_eq!(injected, ["menu", "hours"]);
}

// ---------------------------------------------------------------------------
// Walk limits and roots

#[test]
fn a_walk_limit_is_a_warning_and_shallower_skills_still_load() {
    let tree = tree();
    tree.skill("a/b/c/deep", "deep", "Too deep.", "x");
    let limits = Limits { max_depth: 2, ..Limits::default() };

    let catalog = build(builder(&tree).walk_limits(limits));
    assert_eq!(names(&catalog), ["good"]);
    assert_eq!(catalog.skips(), []);
    let expected = Warning::WalkLimit { root: tree.root().to_path_buf(), limit: LimitHit::Depth(2) };
    assert_eq!(catalog.warnings(), std::slice::from_ref(&expected));
    assert_eq!(expected.kind(), "walk-limit");
    assert_eq!(
        expected.to_string(),
        format!("walk of {} stopped at the depth limit (2); skills below it may be missing", tree.root().display())
    );
    assert_good(&catalog);
}

#[test]
fn a_chain_of_200_dirs_stops_at_the_default_depth() {
    let tree = tree();
    let chain = |n: usize| vec!["d"; n].join("/");
    tree.dir(&chain(200));
    tree.skill(&chain(10), "ten", "At depth ten.", "x");
    tree.skill(&chain(150), "deepest", "Below the limit.", "x");

    let catalog = build(builder(&tree));
    assert_eq!(names(&catalog), ["good", "ten"]);
    assert_eq!(
        catalog.warnings(),
        [Warning::WalkLimit { root: tree.root().to_path_buf(), limit: LimitHit::Depth(64) }]
    );
    assert_eq!(catalog.skips(), []);
}

#[test]
fn the_dirs_and_entries_limits_are_warnings() {
    let tree = tree();
    tree.skill("z", "z", "Last.", "x");
    let dirs = build(builder(&tree).walk_limits(Limits { max_dirs: 2, ..Limits::default() }));
    assert_eq!(names(&dirs), ["good"]);
    assert_eq!(dirs.warnings(), [Warning::WalkLimit { root: tree.root().to_path_buf(), limit: LimitHit::Dirs(2) }]);

    let entries = build(builder(&tree).walk_limits(Limits { max_entries: 3, ..Limits::default() }));
    // Root: good (1), z (2); good: SKILL.md (3), scripts (4): stop.
    assert_eq!(names(&entries), ["good"]);
    assert_eq!(
        entries.warnings(),
        [Warning::WalkLimit { root: tree.root().to_path_buf(), limit: LimitHit::Entries(3) }]
    );
}

#[test]
fn a_missing_root_or_a_file_root_is_a_warning() {
    let tree = tree();
    tree.file("plain.txt", "x");
    let missing = tree.path("missing");
    let file = tree.path("plain.txt");

    let catalog = build(Catalog::builder().root(&missing).root(tree.root()).root(&file));
    assert_eq!(names(&catalog), ["good"]);
    assert_eq!(
        catalog.warnings(),
        [Warning::RootNotFound { root: missing.clone() }, Warning::RootNotFound { root: file.clone() }]
    );
    assert_eq!(catalog.warnings()[0].to_string(), format!("skills dir not found: {}", missing.display()));
    assert_good(&catalog);
}

// ---------------------------------------------------------------------------
// Data skills and configuration

#[test]
fn a_data_skill_without_a_name_is_skipped_at_its_base() {
    let tree = tree();
    let nameless = SkillDef { content: "x".into(), ..SkillDef::default() };
    let empty_name = SkillDef::new("").content("x");
    let empty_base = SkillDef { base: Some(String::new()), ..SkillDef::default() };
    let with_base = SkillDef { base: Some("https://example.invalid/s/".into()), ..SkillDef::default() };

    let catalog = build(builder(&tree).skill(nameless).skill(empty_name).skill(empty_base).skill(with_base));
    let skips: Vec<(&str, SkipReason, Option<&str>)> =
        catalog.skips().iter().map(|s| (s.location.as_str(), s.reason, s.detail.as_deref())).collect();
    assert_eq!(
        skips,
        [
            ("skill://", SkipReason::MissingName, None),
            ("skill://", SkipReason::MissingName, None),
            ("skill://", SkipReason::MissingName, None),
            ("https://example.invalid/s/", SkipReason::MissingName, None),
        ]
    );
    assert_eq!(names(&catalog), ["good"]);
    assert_good(&catalog);
}

#[test]
fn a_named_data_skill_with_an_empty_base_gets_the_default_base() {
    let catalog = build(Catalog::builder().skill(SkillDef::new("data").base("").content("Data body.")));
    let skill = catalog.get("data").unwrap();
    assert_eq!(skill.location(), "skill://data/");
    assert_eq!(skill.origin(), &Origin::Logical { base: "skill://data/".into(), resources: Vec::new() });
    let out = SkillTool::new(&catalog).call(&json!({"name": "data"}));
    assert!(out.output.contains("Base directory for this skill: skill://data/\n"), "{}", out.output);
}

#[test]
fn a_sample_limit_below_minus_one_is_refused_before_any_build() {
    for n in [-2, -100, i64::MIN] {
        let error = SampleLimit::from_config(n).unwrap_err();
        assert_eq!(error, InvalidSampleLimit(n));
        assert_eq!(
            error.to_string(),
            format!("invalid sample limit {n}: use 0 (ten files), a positive cap, or -1 (no file list)")
        );
    }
    let tree = tree();
    assert_eq!(
        builder(&tree).sample_limit(SampleLimit::from_config(-1).unwrap()).build().sample_limit(),
        SampleLimit::Off
    );
}

// ---------------------------------------------------------------------------
// Tool arguments

#[test]
fn bad_tool_arguments_are_error_results() {
    let tree = tree();
    let catalog = build(builder(&tree));
    let tool = SkillTool::new(&catalog);
    let not_object = "Invalid arguments: expected an object with a string \"name\".";
    let cases: Vec<(Value, String)> = vec![
        (json!("good"), not_object.into()),
        (json!(null), not_object.into()),
        (json!(42), not_object.into()),
        (json!(["good"]), not_object.into()),
        (json!(true), not_object.into()),
        (json!({}), "Invalid arguments: missing required argument \"name\".".into()),
        (json!({"name": 1}), "Invalid arguments: \"name\" must be a string.".into()),
        (json!({"name": null}), "Invalid arguments: \"name\" must be a string.".into()),
        (json!({"name": ["good"]}), "Invalid arguments: \"name\" must be a string.".into()),
        (json!({"name": {"n": "good"}}), "Invalid arguments: \"name\" must be a string.".into()),
        (
            json!({"name": "good", "extra": 1}),
            "Invalid arguments: unknown argument \"extra\"; the skill tool takes only \"name\".".into(),
        ),
        (
            json!({"Name": "good"}),
            "Invalid arguments: unknown argument \"Name\"; the skill tool takes only \"name\".".into(),
        ),
        (json!({"name": ""}), "Skill \"\" not found. Available skills: good".into()),
        (json!({"name": " good"}), "Skill \" good\" not found. Available skills: good".into()),
        (json!({"name": "GOOD"}), "Skill \"GOOD\" not found. Available skills: good".into()),
    ];
    for (args, expected) in cases {
        let out = tool.call(&args);
        assert!(out.is_error, "{args}");
        assert_eq!(out.output, expected, "{args}");
        assert_eq!(out.metadata, None, "{args}");
    }
    let ok = tool.call(&json!({"name": "good"}));
    assert!(!ok.is_error);
    assert_eq!(ok.metadata.unwrap().dir, tree.path("good").to_string_lossy());
}

#[test]
fn an_empty_catalog_says_none_are_available() {
    let out = SkillTool::new(&build(Catalog::builder())).call(&json!({"name": "x"}));
    assert!(out.is_error);
    assert_eq!(out.output, "Skill \"x\" not found. Available skills: none");
}
