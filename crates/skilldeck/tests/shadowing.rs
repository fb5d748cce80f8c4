//! The shadowing report: every skill that lost its name, with the winner,
//! and serving a shadowed skill by its location.

use skilldeck::store::Precondition;
use std::sync::Arc;

use skilldeck::store::{MemoryStore, SkillStore};
use skilldeck::{AgentProfile, Catalog, Origin, SampleLimit, SkillDef, SkillTool, Source};

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

#[test]
fn a_store_record_over_a_disk_skill_keeps_serving_its_files() {
    let (a, b) = (Tree::new(), Tree::new());
    a.file("secret.txt", "not pdf's\n");
    b.skill("pdf", "pdf", "from disk", "Read reference/fields.md.\n");
    b.file("pdf/reference/fields.md", "# Fields\n");
    b.file("pdf/scripts/fill.sh", "fill\n");
    let text = std::fs::read_to_string(b.path("pdf/SKILL.md")).unwrap();
    let on_disk = Catalog::builder().root(a.root()).root(b.root()).build();
    let before = SkillTool::new(&on_disk).load("pdf", SampleLimit::Default).output;
    assert!(before.contains("<file>"), "{before}");

    let store = Arc::new(MemoryStore::default());
    store.write("pdf", &text, None, &Precondition::Any).unwrap();
    store.write("pdf", "---\nname: pdf\n---\nkino's own.\n", Some("kino"), &Precondition::Any).unwrap();
    store.write("solo", "---\nname: solo\n---\nalone\n", None, &Precondition::Any).unwrap();
    store.write("mine", "---\nname: mine\n---\nkino's private\n", Some("kino"), &Precondition::Any).unwrap();
    let catalog = Catalog::builder().root(a.root()).root(b.root()).store(store.clone()).build();
    let tool = SkillTool::new(&catalog);
    // The disk skill's text stored unchanged: the skill is served byte for byte as before.
    assert_eq!(tool.load("pdf", SampleLimit::Default).output, before);
    let pdf = catalog.get("pdf").unwrap();
    assert_eq!(pdf.location(), "store:pdf");
    assert_eq!(pdf.origin(), &Origin::Store { agent: None, dir: Some(b.path("pdf")) });
    // Its files stay confined to the root its disk skill was found under, not any root.
    let confinement = pdf.confinement().unwrap();
    assert_eq!(confinement.read(&b.path("pdf/reference/fields.md")).unwrap(), b"# Fields\n");
    assert!(confinement.read(&a.path("secret.txt")).is_err());
    // An agent's own version specializes the shared skill: the same files.
    let profile = AgentProfile::new("kino");
    let kino = catalog.view(&profile);
    let own = kino.find("pdf").unwrap();
    assert_eq!((own.location(), own.dir()), ("store:kino/pdf", Some(b.path("pdf").as_path())));
    assert!(own.confinement().is_some());
    // A record of its own has no directory and no files.
    let solo = tool.load("solo", SampleLimit::Default).output;
    assert!(solo.contains("Base directory for this skill: skill://solo/\n") && !solo.contains("<file>"), "{solo}");
    assert_eq!((catalog.get("solo").unwrap().dir(), kino.find("mine").unwrap().dir()), (None, None));

    // The disk skill gone: the record stays, with no files.
    std::fs::remove_dir_all(b.path("pdf")).unwrap();
    let catalog = Catalog::builder().root(a.root()).root(b.root()).store(store).build();
    let out = SkillTool::new(&catalog).load("pdf", SampleLimit::Default).output;
    assert!(out.contains("Base directory for this skill: skill://pdf/\n") && !out.contains("<file>"), "{out}");
}

#[test]
fn a_link_to_a_skill_found_already_is_that_skill_again_not_a_warned_duplicate() {
    // A project after `skilldeck add --link claude`: .claude/skills/deploy is a link to
    // .agents/skills/deploy, and a real copy of another skill is a duplicate as before.
    let project = Tree::new();
    project.skill(".agents/skills/deploy", "deploy", "the one copy", "D");
    project.symlink("../../.agents/skills/deploy", ".claude/skills/deploy");
    project.skill(".agents/skills/triage", "triage", "first", "T");
    project.skill(".claude/skills/triage", "triage", "a second copy", "T2");
    let catalog = Catalog::builder().root(project.path(".agents/skills")).root(project.path(".claude/skills")).build();
    assert_eq!(catalog.skills().map(|s| s.name()).collect::<Vec<_>>(), ["deploy", "triage"]);
    let details: Vec<(String, Option<String>)> =
        catalog.skips().iter().map(|s| (s.location.clone(), s.detail.clone())).collect();
    let location = |rel: &str| project.path(rel).join("SKILL.md").display().to_string();
    assert_eq!(
        details,
        [
            (location(".claude/skills/deploy"), Some(format!("a link to {}", location(".agents/skills/deploy")))),
            (location(".claude/skills/triage"), None),
        ]
    );
    let warned: Vec<String> = catalog.warnings().iter().map(ToString::to_string).collect();
    assert_eq!(
        warned,
        [format!("duplicate skill name \"triage\" ({}) \u{2014} keeping first", location(".claude/skills/triage"))]
    );
}
