//! Agent profiles in each backend: they round-trip in every shape, change in
//! one transaction with a history as records do, refuse bad ids without
//! writing anything, move the change token, and a row this crate never
//! wrote is a typed error naming the store.

use skilldeck::store::{HISTORY_CAP, MemoryStore, ProfileVersion, SkillStore, StoreError};
use skilldeck::{AgentProfile, Eager};

use crate::{Backend, Fresh, is_timestamp};

/// Every shape a profile has, in the order `profiles()` gives them.
fn shapes() -> Vec<AgentProfile> {
    vec![
        // A list names skills, whatever they are called: only ids are names.
        AgentProfile::new("a b").allow(["nul\0name"]),
        AgentProfile::new("bia").allow(["pedido", "cardapio", "pedido", " spaced "]).eager(Eager::All),
        AgentProfile::new("chef").eager(Eager::Names(vec!["all".into(), "none".into()])),
        AgentProfile::new("geral"),
        AgentProfile::new("nada").allow(Vec::<String>::new()).eager(Eager::Names(Vec::new())),
        AgentProfile::new("Émile").allow(["'; DROP TABLE profile; --", "\"[1]\""]),
        AgentProfile::new("émile"),
        AgentProfile::new("😀"),
    ]
}

fn profiles_round_trip_in_byte_order(fresh: &Fresh) {
    let store = fresh.open();
    assert_eq!(store.profiles().unwrap(), []);
    let mut given = shapes();
    given.reverse();
    store.update_profiles(&mut |all| all.extend(given.iter().cloned())).unwrap();
    assert_eq!(store.profiles().unwrap(), shapes(), "by id in byte order, every list in its order");
    drop(store);
    let store = fresh.open();
    assert_eq!(store.profiles().unwrap(), shapes(), "kept");
    for profile in shapes() {
        assert_eq!(store.profile_versions(&profile.id).unwrap(), [], "a new profile has no history");
    }
}

fn a_changed_profile_keeps_its_history(fresh: &Fresh) {
    let store = fresh.open();
    let step = |i: usize| AgentProfile::new("bia").allow([format!("v{i}")]);
    store.update_profiles(&mut |all| all.extend([step(0), AgentProfile::new("geral")])).unwrap();
    for i in 1..25 {
        store.update_profiles(&mut |all| all[0] = step(i)).unwrap();
    }
    let history = store.profile_versions("bia").unwrap();
    let shown: Vec<AgentProfile> = history.iter().map(|v| v.profile.clone()).collect();
    assert_eq!(shown, (4..24).rev().map(step).collect::<Vec<_>>(), "most recent first, {HISTORY_CAP} at most");
    assert!(history.iter().all(|v| is_timestamp(&v.at)), "{history:?}");
    assert_eq!(store.profile_versions("geral").unwrap(), [], "an unchanged profile is not written");
    assert_eq!(store.profiles().unwrap(), [step(24), AgentProfile::new("geral")]);

    // A profile the change leaves out is deleted with its history; one made
    // again under its id starts a new one.
    store.update_profiles(&mut |all| all.retain(|p| p.id != "bia")).unwrap();
    assert_eq!(store.profiles().unwrap(), [AgentProfile::new("geral")]);
    assert_eq!(store.profile_versions("bia").unwrap(), []);
    store.update_profiles(&mut |all| all.push(step(99))).unwrap();
    assert_eq!(store.profile_versions("bia").unwrap(), []);
    assert_eq!(store.profile_versions("nobody").unwrap(), []);
}

/// The previous version carries the time it was written: two updates in
/// one second carry the same time, so the check is that it is the time the
/// history of the next update shows for it.
fn a_version_keeps_the_time_it_was_written(fresh: &Fresh) {
    let store = fresh.open();
    store.update_profiles(&mut |all| all.push(AgentProfile::new("bia"))).unwrap();
    store.update_profiles(&mut |all| all[0].eager = Eager::All).unwrap();
    store.update_profiles(&mut |all| all[0].skills = Some(Vec::new())).unwrap();
    let history = store.profile_versions("bia").unwrap();
    assert_eq!(history.len(), 2);
    assert_eq!(history[0].profile, AgentProfile::new("bia").eager(Eager::All));
    assert_eq!(history[1].profile, AgentProfile::new("bia"));
    assert!(history[0].at >= history[1].at, "{history:?}");
}

fn bad_ids_are_refused_and_nothing_is_written(fresh: &Fresh) {
    let store = fresh.open();
    store.update_profiles(&mut |all| all.extend(shapes())).unwrap();
    let before: Vec<(AgentProfile, Vec<ProfileVersion>)> =
        shapes().into_iter().map(|p| (p.clone(), store.profile_versions(&p.id).unwrap())).collect();
    let token = store.change_token().unwrap();
    type Edit = fn(&mut Vec<AgentProfile>);
    let refusals: [(Edit, &str); 6] = [
        (|all| all.push(AgentProfile::new("bia")), "agent profile 'bia' is given twice"),
        (|all| all[0].id = "geral".into(), "agent profile 'geral' is given twice"),
        (|all| all.push(AgentProfile::new("")), "id is required"),
        (|all| all[3].id = " \t\n".into(), "id is required"),
        (|all| all[3].id = "two\nlines".into(), "an agent id cannot contain U+000A, a control character"),
        (|all| all.push(AgentProfile::new("a/b")), "an agent id cannot contain '/'"),
    ];
    for (edit, text) in refusals {
        let err = store
            .update_profiles(&mut |all| {
                // Changes that would be fine alone are dropped with the rest.
                all[1].eager = Eager::None;
                all.retain(|p| p.id != "chef");
                edit(all);
            })
            .unwrap_err();
        assert!(matches!(err, StoreError::InvalidProfile(_) | StoreError::InvalidName(_)), "{err:?}");
        assert_eq!(err.to_string(), text);
        let after: Vec<(AgentProfile, Vec<ProfileVersion>)> =
            shapes().into_iter().map(|p| (p.clone(), store.profile_versions(&p.id).unwrap())).collect();
        assert_eq!(after, before, "nothing written");
        assert_eq!(store.profiles().unwrap(), shapes());
    }
    if fresh.backend == Backend::Sqlite {
        assert_eq!(store.change_token().unwrap(), token, "nothing committed");
    }
}

/// Another handle's profile write moves the change token (what `serve`
/// polls), as a record's does.
fn a_profile_write_moves_the_change_token(fresh: &Fresh) {
    let (mine, theirs) = (fresh.open(), fresh.open());
    let seen = mine.change_token().unwrap();
    theirs.update_profiles(&mut |all| all.push(AgentProfile::new("bia").allow(["pedido"]))).unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while mine.change_token().unwrap() == seen && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert_ne!(mine.change_token().unwrap(), seen);
    assert_eq!(mine.profiles().unwrap(), [AgentProfile::new("bia").allow(["pedido"])]);
}

/// Handles adding to one allowlist at once, each a read-modify-write: one
/// transaction each, so none is lost.
fn concurrent_updates_lose_nothing(fresh: &Fresh) {
    let first = fresh.open();
    first.update_profiles(&mut |all| all.push(AgentProfile::new("bia").allow(Vec::<String>::new()))).unwrap();
    std::thread::scope(|s| {
        for t in 0..3 {
            s.spawn(move || {
                let store = fresh.open();
                for i in 0..5 {
                    store
                        .update_profiles(&mut |all| all[0].skills.get_or_insert_default().push(format!("t{t}-{i}")))
                        .unwrap();
                }
            });
        }
    });
    let mut skills = first.profiles().unwrap()[0].skills.clone().unwrap();
    skills.sort();
    let mut expected: Vec<String> = (0..3).flat_map(|t| (0..5).map(move |i| format!("t{t}-{i}"))).collect();
    expected.sort();
    assert_eq!(skills, expected);
    assert_eq!(first.profile_versions("bia").unwrap().len(), 15);
}

/// `authoring`'s commands over the profiles give what they give over
/// `MemoryStore`.
fn authoring_commands_agree_with_memory_store(fresh: &Fresh) {
    use skilldeck::authoring;
    let store = fresh.open();
    let memory = MemoryStore::default();
    for s in [&*store, &memory as &dyn SkillStore] {
        s.update_profiles(&mut |all| {
            all.extend([AgentProfile::new("bia").allow(["cardapio"]), AgentProfile::new("geral")])
        })
        .unwrap();
        let done = authoring::set_skill_agents_in(s, "pedido", &["bia".into()], Some(&["geral".into()])).unwrap();
        assert_eq!(done.changed, ["bia", "geral"]);
        authoring::update_agent(s, "chef", Some(vec!["pedido".into()])).unwrap();
        authoring::update_agent(s, "chef", None).unwrap();
    }
    assert_eq!(store.profiles().unwrap(), memory.profiles().unwrap());
    for id in ["bia", "chef", "geral"] {
        let shown = |s: &dyn SkillStore| -> Vec<AgentProfile> {
            s.profile_versions(id).unwrap().into_iter().map(|v| v.profile).collect()
        };
        assert_eq!(shown(&*store), shown(&memory), "{id}");
    }
}

/// A profile row this crate never wrote (by hand, by another program): a
/// `Backend` error naming the store and the problem, for the read and for
/// an update (which writes nothing); the records are still served.
fn a_corrupt_profile_row_is_a_typed_error(fresh: &Fresh) {
    let store = fresh.open();
    store.write("pedido", "v1", None, &skilldeck::store::Precondition::Any).unwrap();
    store
        .update_profiles(&mut |all| all.extend([AgentProfile::new("bia").allow(["pedido"]), AgentProfile::new("chef")]))
        .unwrap();
    store.update_profiles(&mut |all| all[1].eager = Eager::All).unwrap();
    let (table, versions) = match fresh.backend {
        Backend::Sqlite => ("profile", "profile_version"),
        Backend::Postgres => ("skilldeck_profile", "skilldeck_profile_version"),
    };
    let location = fresh.store_location();
    let expect_backend = |err: StoreError, text: &str| {
        let StoreError::Backend { location: at, message, .. } = &err else { panic!("not a backend error: {err:?}") };
        assert_eq!(at, &location);
        assert_eq!(message, text);
    };

    fresh.execute(&format!("UPDATE {table} SET skills = '[\"pedido\"' WHERE eager = 'none'"));
    let text = "agent profile 'bia': its allowlist (column skills) is not a JSON list of names \
                (EOF while parsing a list at line 1 column 9): \"[\\\"pedido\\\"\"";
    expect_backend(store.profiles().unwrap_err(), text);
    expect_backend(store.update_profiles(&mut |all| all.clear()).unwrap_err(), text);
    assert_eq!(store.get("pedido", None).unwrap().unwrap().content, "v1", "records are still read");
    fresh.execute(&format!("UPDATE {table} SET skills = '[\"pedido\"]' WHERE eager = 'none'"));
    assert_eq!(store.profiles().unwrap().len(), 2, "the clear above wrote nothing");

    fresh.execute(&format!("UPDATE {versions} SET eager = 'sometimes'"));
    expect_backend(
        store.profile_versions("chef").unwrap_err(),
        "agent profile 'chef': its eager set (column eager) is not none, all or a JSON list of names: \"sometimes\"",
    );
    assert_eq!(store.profile_versions("bia").unwrap(), [], "other profiles' histories still read");
}

on_each_store!(
    profiles_round_trip_in_byte_order,
    a_changed_profile_keeps_its_history,
    a_version_keeps_the_time_it_was_written,
    bad_ids_are_refused_and_nothing_is_written,
    a_profile_write_moves_the_change_token,
    concurrent_updates_lose_nothing,
    authoring_commands_agree_with_memory_store,
    a_corrupt_profile_row_is_a_typed_error,
);
