//! The shadowing report: every skill that lost its name, with the winner,
//! and serving a shadowed skill by its location.

use skilldeck::store::Precondition;
use std::sync::Arc;

use skilldeck::store::{MemoryStore, SkillStore};
use skilldeck::{Catalog, SampleLimit, SkillDef, SkillTool, Source};

use crate::util::Tree;

/// (name, winner location, winner source, loser location, loser source) of each loss.
fn report(catalog: &Catalog) -> Vec<(String, String, String, String, String)> {
    catalog
        .shadowed()
        .iter()
        .map(|s| {
            let name = s.skill.name().to_owned();
            (
                name,
                s.winner_location.clone(),
                s.winner_source.to_string(),
                s.skill.location().to_owned(),
                s.source.to_string(),
            )
        })
        .collect()
}

#[test]
fn every_loss_is_reported_with_its_winner() {
    let (a, b) = (Tree::new(), Tree::new());
    a.skill("deploy", "deploy", "from a", "A");
    a.skill("deploy/nested", "deploy", "nested in a", "A nested");
    b.skill("deploy", "deploy", "from b", "B");
    b.skill("triage", "triage", "from b", "T");
    let store = Arc::new(MemoryStore::default());
    store.write("triage", "---\nname: triage\n---\nauthored\n", None, &Precondition::Any).unwrap();
    let catalog = Catalog::builder()
        .root(a.root())
        .root(b.root())
        .skill(SkillDef::new("deploy").base("skill://data/"))
        .provider(|| Ok(vec![SkillDef::new("triage").base("skill://provided/")]))
        .store(store)
        .build();
    let a_md = |rel: &str| a.path(rel).display().to_string();
    let b_md = |rel: &str| b.path(rel).display().to_string();
    let root = |t: &Tree| format!("root {}", t.root().display());
    let row = |name: &str, winner: String, wsource: String, loser: String, lsource: String| {
        (name.to_owned(), winner, wsource, loser, lsource)
    };
    assert_eq!(
        report(&catalog),
        [
            row("deploy", a_md("deploy/SKILL.md"), root(&a), a_md("deploy/nested/SKILL.md"), root(&a)),
            row("deploy", a_md("deploy/SKILL.md"), root(&a), b_md("deploy/SKILL.md"), root(&b)),
            row("deploy", a_md("deploy/SKILL.md"), root(&a), "skill://data/".into(), "data".into()),
            row("triage", b_md("triage/SKILL.md"), root(&b), "skill://provided/".into(), "provider".into()),
            // The store record replaced the disk skill in its slot.
            row("triage", "store:triage".into(), "store".into(), b_md("triage/SKILL.md"), root(&b)),
        ]
    );
    assert_eq!(catalog.shadowed()[1].source, Source::Root(b.root().to_path_buf()));
}

#[test]
fn a_shadowed_skill_is_served_by_location() {
    let (a, b) = (Tree::new(), Tree::new());
    a.skill("deploy", "deploy", "from a", "A body\n");
    b.skill("deploy", "deploy", "from b", "B body\n");
    b.file("deploy/run.sh", "echo b\n");
    let catalog = Catalog::builder().root(a.root()).root(b.root()).build();
    let loser = b.path("deploy/SKILL.md").display().to_string();
    assert_eq!(catalog.at(&loser).unwrap().body().unwrap(), "B body\n");
    let tool = SkillTool::new(&catalog);
    let out = tool.load_at(&loser, SampleLimit::Default);
    assert!(!out.is_error);
    assert!(out.output.contains("B body"), "{}", out.output);
    assert!(out.output.contains(&format!("<file>{}</file>", b.path("deploy/run.sh").display())));
    assert_eq!(
        tool.load("deploy", SampleLimit::Default).output,
        tool.load_at(&a.path("deploy/SKILL.md").display().to_string(), SampleLimit::Default).output
    );
    let missing = tool.load_at("/nowhere/SKILL.md", SampleLimit::Default);
    assert_eq!((missing.output.as_str(), missing.is_error), ("No skill at \"/nowhere/SKILL.md\".", true));
}

#[test]
fn no_losses_no_report() {
    let tree = Tree::new();
    tree.skill("one", "one", "d", "x");
    let catalog = Catalog::builder().root(tree.root()).build();
    assert!(catalog.shadowed().is_empty());
}
