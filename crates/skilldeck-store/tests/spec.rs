//! Insika's `skill_store_spec.rb` (reference §10.2, items 31-38) with its
//! exact texts, then history truncation and restore.

use skilldeck::store::{HISTORY_CAP, Precondition, StoreError};

use crate::{Fresh, contents, is_timestamp};

const PEDIDO: &str = "---\nname: pedido\ndescription: Anota pedidos\n---\nAnote o pedido.\n";
const CARDAPIO: &str = "---\nname: cardapio\ndescription: Mostra o cardápio\n---\nMostre o cardápio.\n";

fn s31_write_get_names_all(fresh: &Fresh) {
    let store = fresh.open();
    let written = store.write("pedido", PEDIDO, None, &Precondition::Any).unwrap();
    assert_eq!(written.content, PEDIDO);
    assert!(is_timestamp(&written.updated_at), "{}", written.updated_at);
    store.write("cardapio", CARDAPIO, None, &Precondition::Any).unwrap();
    assert_eq!(store.get("pedido", None).unwrap().unwrap(), written);
    assert_eq!(store.get("cardapio", None).unwrap().unwrap().content, CARDAPIO);
    assert_eq!(store.names(None).unwrap(), ["cardapio", "pedido"]);
    let all = store.all(None).unwrap();
    let keys: Vec<&str> = all.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, ["cardapio", "pedido"]);
    assert_eq!(all[1].1, written);
}

fn s32_versions_and_create_only(fresh: &Fresh) {
    let store = fresh.open();
    let v1 = store.write("pedido", "v1", None, &Precondition::Any).unwrap();
    store.write("pedido", "v2", None, &Precondition::Any).unwrap();
    let versions = store.versions("pedido", None).unwrap();
    assert_eq!(contents(&versions), ["v1"]);
    assert_eq!(versions[0].at, v1.updated_at);
    let err = store.write("pedido", "v3", None, &Precondition::Absent).unwrap_err();
    assert_eq!(err.to_string(), "skill 'pedido' already exists");
    assert_eq!(store.get("pedido", None).unwrap().unwrap().content, "v2", "a refused write changes nothing");
    assert_eq!(contents(&store.versions("pedido", None).unwrap()), ["v1"]);
    assert_eq!(store.write("novo", "n1", None, &Precondition::Absent).unwrap().content, "n1");
}

fn s33_restore_then_delete(fresh: &Fresh) {
    let store = fresh.open();
    store.write("pedido", "v1", None, &Precondition::Any).unwrap();
    store.write("pedido", "v2", None, &Precondition::Any).unwrap();
    assert_eq!(store.restore("pedido", 0, None).unwrap().content, "v1");
    assert_eq!(store.get("pedido", None).unwrap().unwrap().content, "v1");
    assert_eq!(contents(&store.versions("pedido", None).unwrap()), ["v2", "v1"]);
    assert!(store.delete("pedido", None).unwrap());
    assert!(!store.delete("pedido", None).unwrap());
    assert_eq!(store.get("pedido", None).unwrap(), None);
    assert!(store.versions("pedido", None).unwrap().is_empty(), "history goes with the record");
    store.write("pedido", "again", None, &Precondition::Any).unwrap();
    assert!(store.versions("pedido", None).unwrap().is_empty(), "a new record starts a new history");
}

fn s34_agent_scope_never_falls_back(fresh: &Fresh) {
    let store = fresh.open();
    store.write("pedido", "shared", None, &Precondition::Any).unwrap();
    store.write("pedido", "for biro", Some("biro"), &Precondition::Any).unwrap();
    assert_eq!(store.get("pedido", None).unwrap().unwrap().content, "shared");
    assert_eq!(store.get("pedido", Some("biro")).unwrap().unwrap().content, "for biro");
    assert_eq!(store.get("pedido", Some("kino")).unwrap(), None);
}

fn s35_agent_private_records_stay_private(fresh: &Fresh) {
    let store = fresh.open();
    store.write("only-mine", "mine", Some("biro"), &Precondition::Any).unwrap();
    assert!(store.names(None).unwrap().is_empty());
    assert_eq!(store.names(Some("biro")).unwrap(), ["only-mine"]);
    let keys: Vec<String> = store.all(Some("biro")).unwrap().into_iter().map(|(k, _)| k).collect();
    assert_eq!(keys, ["only-mine"]);
    assert!(store.all(None).unwrap().is_empty());
}

fn s36_agents_sorted(fresh: &Fresh) {
    let store = fresh.open();
    store.write("a", "shared", None, &Precondition::Any).unwrap();
    store.write("a", "zeta's", Some("zeta"), &Precondition::Any).unwrap();
    store.write("b", "alpha's", Some("alpha"), &Precondition::Any).unwrap();
    assert_eq!(store.agents().unwrap(), ["alpha", "zeta"]);
    // As in MemoryStore, an agent whose last record is deleted is no longer listed.
    store.delete("a", Some("zeta")).unwrap();
    assert_eq!(store.agents().unwrap(), ["alpha"]);
}

fn s37_agent_versions_restore_create_only(fresh: &Fresh) {
    let store = fresh.open();
    store.write("x", "shared v1", None, &Precondition::Any).unwrap();
    store.write("x", "agent v1", Some("biro"), &Precondition::Any).unwrap();
    store.write("x", "agent v2", Some("biro"), &Precondition::Any).unwrap();
    assert!(store.versions("x", None).unwrap().is_empty());
    assert_eq!(contents(&store.versions("x", Some("biro")).unwrap()), ["agent v1"]);
    assert_eq!(store.restore("x", 0, Some("biro")).unwrap().content, "agent v1");
    assert_eq!(store.get("x", Some("biro")).unwrap().unwrap().content, "agent v1");
    let err = store.write("x", "again", Some("biro"), &Precondition::Absent).unwrap_err();
    assert_eq!(err.to_string(), "skill 'x' already exists for agent 'biro'");
    assert_eq!(store.get("x", None).unwrap().unwrap().content, "shared v1");
}

fn s38_agent_delete_keeps_shared(fresh: &Fresh) {
    let store = fresh.open();
    store.write("pedido", "shared", None, &Precondition::Any).unwrap();
    store.write("pedido", "for biro", Some("biro"), &Precondition::Any).unwrap();
    assert!(store.delete("pedido", Some("biro")).unwrap());
    assert!(!store.delete("pedido", Some("biro")).unwrap());
    assert_eq!(store.get("pedido", None).unwrap().unwrap().content, "shared");
    assert_eq!(store.get("pedido", Some("biro")).unwrap(), None);
}

fn history_keeps_twenty_and_restore_shifts_it(fresh: &Fresh) {
    let store = fresh.open();
    let written: Vec<_> =
        (0..25).map(|i| store.write("pedido", &format!("v{i}"), None, &Precondition::Any).unwrap()).collect();
    let history = store.versions("pedido", None).unwrap();
    assert_eq!(history.len(), HISTORY_CAP);
    assert_eq!(contents(&history), (4..24).rev().map(|i| format!("v{i}")).collect::<Vec<_>>());
    for (version, record) in history.iter().zip(written[4..24].iter().rev()) {
        assert_eq!(version.at, record.updated_at, "each entry keeps the time it was written");
    }

    // Restore 2 (v21): v24 becomes history[0], v21 the current text, v4 falls off.
    let restored = store.restore("pedido", 2, None).unwrap();
    assert_eq!(restored.content, "v21");
    assert_eq!(store.get("pedido", None).unwrap().unwrap(), restored);
    let after = store.versions("pedido", None).unwrap();
    assert_eq!(after.len(), HISTORY_CAP);
    assert_eq!(after[0].content, "v24");
    assert_eq!(after[0].at, written[24].updated_at);
    assert_eq!(after[3].content, "v21", "the restored version stays in the history too");
    assert_eq!(after[19].content, "v5");

    assert_eq!(store.restore("pedido", 20, None).unwrap_err().to_string(), "version 20 does not exist");
    assert_eq!(store.restore("pedido", -1, None).unwrap_err().to_string(), "version -1 does not exist");
    assert_eq!(
        store.restore("pedido", i64::MAX, None).unwrap_err().to_string(),
        format!("version {} does not exist", i64::MAX)
    );
    assert_eq!(store.restore("pedido", 19, None).unwrap().content, "v5");
}

fn restore_checks_not_found_before_the_index(fresh: &Fresh) {
    let store = fresh.open();
    assert_eq!(store.restore("nope", 0, None).unwrap_err().to_string(), "skill 'nope' not found");
    assert_eq!(store.restore("nope", -1, None).unwrap_err().to_string(), "skill 'nope' not found");
    store.write("nope", "shared", None, &Precondition::Any).unwrap();
    // The text never names the agent.
    assert_eq!(store.restore("nope", 0, Some("biro")).unwrap_err().to_string(), "skill 'nope' not found");
    assert_eq!(store.restore("nope", 0, None).unwrap_err().to_string(), "version 0 does not exist");
    assert_eq!(store.get("nope", None).unwrap().unwrap().content, "shared", "a refused restore changes nothing");
}

fn identical_rewrite_still_pushes_history(fresh: &Fresh) {
    let store = fresh.open();
    store.write("pedido", "same", None, &Precondition::Any).unwrap();
    store.write("pedido", "same", None, &Precondition::Any).unwrap();
    assert_eq!(contents(&store.versions("pedido", None).unwrap()), ["same"]);
}

/// Two editors began from one text: the first save lands, the second is
/// refused and changes nothing; an edit of a record deleted since is
/// refused too. (Not Insika: its Studio overwrote silently.)
fn a_stale_edit_is_a_conflict_not_an_overwrite(fresh: &Fresh) {
    let store = fresh.open();
    let began = store.write("pedido", "v1", Some("biro"), &Precondition::Absent).unwrap().content;
    let began = Precondition::Unchanged(began);
    store.write("pedido", "mine", Some("biro"), &began).unwrap();
    let stale = store.write("pedido", "theirs", Some("biro"), &began).unwrap_err();
    assert_eq!(
        stale.to_string(),
        "skill 'pedido' for agent 'biro' was changed since this edit began: reload it, then edit again"
    );
    assert_eq!(store.get("pedido", Some("biro")).unwrap().unwrap().content, "mine");
    assert_eq!(contents(&store.versions("pedido", Some("biro")).unwrap()), ["v1"]);
    assert!(store.delete("pedido", Some("biro")).unwrap());
    let gone = store.write("pedido", "late", Some("biro"), &Precondition::Unchanged("mine".into())).unwrap_err();
    assert!(matches!(gone, StoreError::Conflict { .. }), "{gone}");
    assert_eq!(store.get("pedido", Some("biro")).unwrap(), None);
}

/// A rename moves the record with its history in one step: the text before
/// heads the history under the new key, the old key is free, and a rename
/// onto a record, from nothing or from a stale edit changes nothing.
fn a_rename_moves_the_record_with_its_history(fresh: &Fresh) {
    let store = fresh.open();
    store.write("pedido", "v1", Some("biro"), &Precondition::Any).unwrap();
    store.write("pedido", "v2", Some("biro"), &Precondition::Any).unwrap();
    store.write("pedido", "shared", None, &Precondition::Any).unwrap();
    store.write("taken", "other", Some("biro"), &Precondition::Any).unwrap();
    let onto = store.rename("pedido", "taken", "x", Some("biro"), &Precondition::Any).unwrap_err();
    assert_eq!(onto.to_string(), "skill 'taken' already exists for agent 'biro'");
    let stale = store.rename("pedido", "order", "x", Some("biro"), &Precondition::Unchanged("v1".into())).unwrap_err();
    assert!(matches!(stale, StoreError::Conflict { .. }), "{stale}");
    let missing = store.rename("nothing", "order", "x", Some("biro"), &Precondition::Any).unwrap_err();
    assert_eq!(missing.to_string(), "skill 'nothing' not found");
    assert_eq!(store.names(Some("biro")).unwrap(), ["pedido", "taken"]);

    let record = store.rename("pedido", "order", "v3", Some("biro"), &Precondition::Unchanged("v2".into())).unwrap();
    assert_eq!(record.content, "v3");
    assert_eq!(store.names(Some("biro")).unwrap(), ["order", "taken"]);
    assert_eq!(store.get("pedido", Some("biro")).unwrap(), None);
    assert_eq!(contents(&store.versions("order", Some("biro")).unwrap()), ["v2", "v1"]);
    assert!(store.versions("pedido", Some("biro")).unwrap().is_empty());
    // The other scope is left alone, and the old key takes a new record afresh.
    assert_eq!(store.get("pedido", None).unwrap().unwrap().content, "shared");
    store.write("pedido", "new", Some("biro"), &Precondition::Absent).unwrap();
    assert!(store.versions("pedido", Some("biro")).unwrap().is_empty());
}

on_each_store!(
    a_rename_moves_the_record_with_its_history,
    a_stale_edit_is_a_conflict_not_an_overwrite,
    s31_write_get_names_all,
    s32_versions_and_create_only,
    s33_restore_then_delete,
    s34_agent_scope_never_falls_back,
    s35_agent_private_records_stay_private,
    s36_agents_sorted,
    s37_agent_versions_restore_create_only,
    s38_agent_delete_keeps_shared,
    history_keeps_twenty_and_restore_shifts_it,
    restore_checks_not_found_before_the_index,
    identical_rewrite_still_pushes_history,
);
