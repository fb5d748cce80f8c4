//! Authoring beyond Insika's commands: renaming a stored skill, with
//! everything that names it.

use std::sync::Arc;

use skilldeck::authoring::{AuthoringError, with_name};
use skilldeck::store::{MemoryStore, Precondition, SkillStore, StoreError};
use skilldeck::{AgentProfile, Catalog, Eager, LiveCatalog};

use crate::util::Tree;

fn md(name: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: d\nlicense: MIT\n---\n{body}\n")
}

/// A live catalog over a root holding `disk-only` and a store holding
/// `pedido` (shared, bia's own version, two earlier versions), bia's
/// private `mine`, and profiles naming `pedido`.
fn fixture() -> (Tree, Arc<MemoryStore>, LiveCatalog) {
    let tree = Tree::new();
    tree.skill("disk-only", "disk-only", "on disk", "x\n");
    let store = Arc::new(MemoryStore::default());
    for body in ["v1", "v2", "v3"] {
        store.write("pedido", &md("pedido", body), None, &Precondition::Any).unwrap();
    }
    store.write("pedido", &md("pedido", "bia's"), Some("bia"), &Precondition::Any).unwrap();
    store.write("mine", &md("mine", "private"), Some("bia"), &Precondition::Any).unwrap();
    store
        .update_profiles(&mut |all| {
            all.push(AgentProfile::new("bia").allow(["cardapio", "pedido"]).eager(Eager::names(["pedido"])));
            all.push(AgentProfile::new("chef").allow(["pedido", "order"]));
            all.push(AgentProfile::new("geral"));
        })
        .unwrap();
    let live = LiveCatalog::new(Catalog::builder().root(tree.root()).store(store.clone()));
    (tree, store, live)
}

#[test]
fn a_rename_moves_the_record_its_own_versions_and_the_profiles() {
    let (_tree, store, live) = fixture();
    let began = Precondition::Unchanged(md("pedido", "v3"));
    let renamed = live.rename_skill(" pedido ", "order", &began).unwrap();
    assert_eq!(renamed.record.content, md("order", "v3"));
    assert_eq!((renamed.own_versions, renamed.profiles), (vec!["bia".to_owned()], vec!["bia".into(), "chef".into()]));
    // The history came along, the old text (with its old name) heading it.
    let history: Vec<String> = store.versions("order", None).unwrap().into_iter().map(|v| v.content).collect();
    assert_eq!(history, [md("pedido", "v3"), md("pedido", "v2"), md("pedido", "v1")]);
    assert_eq!(store.get("pedido", None).unwrap(), None);
    assert_eq!(store.get("order", Some("bia")).unwrap().unwrap().content, md("order", "bia's"));
    assert_eq!(store.get("pedido", Some("bia")).unwrap(), None);
    let profiles = store.profiles().unwrap();
    assert_eq!(profiles[0].skills.as_deref(), Some(&["cardapio".to_owned(), "order".to_owned()][..]));
    assert_eq!(profiles[0].eager, Eager::names(["order"]));
    assert_eq!(profiles[1].skills.as_deref(), Some(&["order".to_owned()][..]), "named twice: once");
    assert_eq!(profiles[2].skills, None);
    // The live catalog reloaded.
    let catalog = live.snapshot();
    assert!(catalog.get("pedido").is_none());
    assert_eq!(catalog.get("order").unwrap().body().unwrap(), "v3\n");
    assert_eq!(catalog.view(&profiles[0]).find("order").unwrap().body().unwrap(), "bia's\n");
}

#[test]
fn a_rename_that_cannot_be_whole_writes_nothing() {
    let (tree, store, live) = fixture();
    let before =
        |store: &MemoryStore| (store.all(None).unwrap(), store.all(Some("bia")).unwrap(), store.profiles().unwrap());
    let kept = before(&store);
    let taken = live.rename_skill("pedido", "disk-only", &Precondition::Any).unwrap_err();
    let location = tree.path("disk-only/SKILL.md").display().to_string();
    assert_eq!(taken.to_string(), format!("a skill named 'disk-only' already exists ({location})"));
    let private = live.rename_skill("pedido", "mine", &Precondition::Any).unwrap_err();
    assert_eq!(private.to_string(), "a skill named 'mine' already exists (store:bia/mine)");
    let missing = live.rename_skill("nothing", "order", &Precondition::Any).unwrap_err();
    assert_eq!(missing.to_string(), "skill 'nothing' not found");
    let stale = live.rename_skill("pedido", "order", &Precondition::Unchanged(md("pedido", "v1"))).unwrap_err();
    assert!(matches!(stale, AuthoringError::Store(StoreError::Conflict { .. })), "{stale}");
    store.write("block", "---\nname: >\n  block\n---\nx\n", None, &Precondition::Any).unwrap();
    let block = live.rename_skill("block", "order", &Precondition::Any).unwrap_err();
    assert!(matches!(block, AuthoringError::NameNotRewritable { .. }) && block.is_invalid_request(), "{block}");
    store.delete("block", None).unwrap();
    assert_eq!(before(&store), kept);
    let disk = live.rename_skill("disk-only", "order", &Precondition::Any).unwrap_err();
    assert_eq!(disk.to_string(), "skill 'disk-only' not found", "a disk skill has no record to rename");
}

#[test]
fn with_name_changes_the_name_line_only() {
    let cases = [
        ("---\nname: pedido\n---\nBody\n", "---\nname: order\n---\nBody\n"),
        (
            "\u{feff}---\r\nname: 'pedido'\r\nmetadata:\r\n  name: inner\r\n---\r\nB\r\n",
            "\u{feff}---\r\nname: order\r\nmetadata:\r\n  name: inner\r\n---\r\nB\r\n",
        ),
        ("---\ndescription: d\nname: \"pedido\" # the key\n---\n", "---\ndescription: d\nname: order\n---\n"),
    ];
    for (text, renamed) in cases {
        assert_eq!(with_name(text, "order").as_deref(), Some(renamed), "{text:?}");
    }
    assert_eq!(with_name("---\nname: x\n---\n", "yes").as_deref(), Some("---\nname: \"yes\"\n---\n"));
    for text in
        ["---\nname: [a]\n---\n", "---\nname: \"two\n  lines\"\n---\n", "no frontmatter\n", "---\ntitle: x\n---\n"]
    {
        assert_eq!(with_name(text, "order"), None, "{text:?}");
    }
}
