//! One random sequence of operations on MemoryStore, the reference, and on
//! each backend, records and agent profiles: every result, what each
//! `update_profiles` closure was given, and every error text must agree. Times depend on
//! the clock, so they are compared for shape only.

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use skilldeck::store::{MemoryStore, Precondition, Record, SkillStore, StoreError, Version};
use skilldeck::{AgentProfile, Eager};

use crate::{Fresh, is_timestamp, snapshot};

/// The last name and the last agent are refused by every store (the name rule).
const NAMES: [&str; 5] = ["a", "b", "é", "a b", "a/b"];
const AGENTS: [Option<&str>; 5] = [None, Some("biro"), Some("kino"), Some("Émile"), Some("")];

#[derive(Clone, Debug)]
enum Op {
    /// `began`: 0 any, 1 absent, 2.. unchanged from `content {began - 2}`.
    Write {
        name: usize,
        content: u8,
        agent: usize,
        began: u8,
    },
    Delete {
        name: usize,
        agent: usize,
    },
    /// `began` as for `Write`, checked on `from`.
    Rename {
        from: usize,
        to: usize,
        content: u8,
        agent: usize,
        began: u8,
    },
    Restore {
        name: usize,
        index: i64,
        agent: usize,
    },
    Get {
        name: usize,
        agent: usize,
    },
    Versions {
        name: usize,
        agent: usize,
    },
    All {
        agent: usize,
    },
    Names {
        agent: usize,
    },
    Agents,
    /// `update_profiles` with these edits, in order.
    UpdateProfiles(Vec<Edit>),
    Profiles,
    ProfileVersions {
        id: usize,
    },
}

/// Profile ids: the last is blank, which every backend refuses.
const IDS: [&str; 4] = ["bia", "chef", "é", " "];

/// One edit an `update_profiles` closure makes.
#[derive(Clone, Debug)]
enum Edit {
    /// Sets the profile's lists, adding it when missing: `skills` names by
    /// index (`None`: every skill), `eager` 0 none, 1 all, 2 the names of `names`.
    Set {
        id: usize,
        skills: Option<Vec<usize>>,
        eager: u8,
        names: Vec<usize>,
    },
    Remove {
        id: usize,
    },
    /// Adds a profile even when one has the id (refused, then).
    Push {
        id: usize,
    },
}

fn edit() -> impl Strategy<Value = Edit> {
    let id = prop_oneof![6 => 0..3_usize, 1 => Just(3_usize)];
    let names = || prop::collection::vec(0..NAMES.len(), 0..4);
    prop_oneof![
        6 => (id.clone(), prop::option::of(names()), 0..3_u8, names())
            .prop_map(|(id, skills, eager, names)| Edit::Set { id, skills, eager, names }),
        2 => id.clone().prop_map(|id| Edit::Remove { id }),
        1 => id.prop_map(|id| Edit::Push { id }),
    ]
}

/// What `edits` make of the profiles a closure is given.
fn run_edits(profiles: &mut Vec<AgentProfile>, edits: &[Edit]) {
    let named = |names: &[usize]| names.iter().map(|&n| NAMES[n].to_owned()).collect::<Vec<_>>();
    for edit in edits {
        match edit {
            Edit::Set { id, skills, eager, names } => {
                let at = match profiles.iter().position(|p| p.id == IDS[*id]) {
                    Some(at) => at,
                    None => {
                        profiles.push(AgentProfile::new(IDS[*id]));
                        profiles.len() - 1
                    }
                };
                profiles[at].skills = skills.as_deref().map(named);
                profiles[at].eager = match eager {
                    0 => Eager::None,
                    1 => Eager::All,
                    _ => Eager::Names(named(names)),
                };
            }
            Edit::Remove { id } => profiles.retain(|p| p.id != IDS[*id]),
            Edit::Push { id } => profiles.push(AgentProfile::new(IDS[*id])),
        }
    }
}

fn op() -> impl Strategy<Value = Op> {
    let name = 0..NAMES.len();
    let agent = 0..AGENTS.len();
    prop_oneof![
        6 => (name.clone(), 0..4_u8, agent.clone(), prop_oneof![4 => Just(0_u8), 1 => Just(1), 2 => 2..6_u8])
            .prop_map(|(name, content, agent, began)| Op::Write { name, content, agent, began }),
        1 => (name.clone(), agent.clone()).prop_map(|(name, agent)| Op::Delete { name, agent }),
        2 => (name.clone(), name.clone(), 0..4_u8, agent.clone(), prop_oneof![Just(0_u8), 2..6_u8])
            .prop_map(|(from, to, content, agent, began)| Op::Rename { from, to, content, agent, began }),
        2 => (name.clone(), -1..4_i64, agent.clone()).prop_map(|(name, index, agent)| Op::Restore { name, index, agent }),
        1 => (name.clone(), agent.clone()).prop_map(|(name, agent)| Op::Get { name, agent }),
        1 => (name, agent.clone()).prop_map(|(name, agent)| Op::Versions { name, agent }),
        1 => agent.clone().prop_map(|agent| Op::All { agent }),
        1 => agent.prop_map(|agent| Op::Names { agent }),
        1 => Just(Op::Agents),
        4 => prop::collection::vec(edit(), 0..4).prop_map(Op::UpdateProfiles),
        1 => Just(Op::Profiles),
        1 => (0..IDS.len()).prop_map(|id| Op::ProfileVersions { id }),
    ]
}

fn record(r: &Record) -> String {
    assert!(is_timestamp(&r.updated_at), "{:?}", r.updated_at);
    r.content.clone()
}

fn versions(v: &[Version]) -> Vec<String> {
    v.iter().map(|v| record(&Record { content: v.content.clone(), updated_at: v.at.clone() })).collect()
}

/// What an operation shows, times left out, errors as their text.
fn apply(store: &dyn SkillStore, op: &Op) -> Result<String, String> {
    let out = |r: Result<String, StoreError>| r.map_err(|e| e.to_string());
    let precondition = |began: u8| match began {
        0 => Precondition::Any,
        1 => Precondition::Absent,
        n => Precondition::Unchanged(format!("content {}", n - 2)),
    };
    out(match *op {
        Op::Write { name, content, agent, began } => store
            .write(NAMES[name], &format!("content {content}"), AGENTS[agent], &precondition(began))
            .map(|r| record(&r)),
        Op::Rename { from, to, content, agent, began } => store
            .rename(NAMES[from], NAMES[to], &format!("content {content}"), AGENTS[agent], &precondition(began))
            .map(|r| record(&r)),
        Op::Delete { name, agent } => store.delete(NAMES[name], AGENTS[agent]).map(|b| b.to_string()),
        Op::Restore { name, index, agent } => store.restore(NAMES[name], index, AGENTS[agent]).map(|r| record(&r)),
        Op::Get { name, agent } => {
            store.get(NAMES[name], AGENTS[agent]).map(|r| format!("{:?}", r.as_ref().map(record)))
        }
        Op::Versions { name, agent } => {
            store.versions(NAMES[name], AGENTS[agent]).map(|v| format!("{:?}", versions(&v)))
        }
        Op::All { agent } => store
            .all(AGENTS[agent])
            .map(|all| format!("{:?}", all.iter().map(|(k, r)| (k.clone(), record(r))).collect::<Vec<_>>())),
        Op::Names { agent } => store.names(AGENTS[agent]).map(|n| format!("{n:?}")),
        Op::Agents => store.agents().map(|a| format!("{a:?}")),
        Op::UpdateProfiles(ref edits) => {
            let mut given = None;
            store
                .update_profiles(&mut |profiles| {
                    given = Some(profiles.clone());
                    run_edits(profiles, edits);
                })
                .map(|()| format!("given {given:?}"))
        }
        Op::Profiles => store.profiles().map(|p| format!("{p:?}")),
        Op::ProfileVersions { id } => store.profile_versions(IDS[id]).map(|v| {
            let shown: Vec<&AgentProfile> = v.iter().map(|v| &v.profile).collect();
            assert!(v.iter().all(|v| is_timestamp(&v.at)), "{v:?}");
            format!("{shown:?}")
        }),
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn sqlite_store_behaves_like_memory_store(ops in prop::collection::vec(op(), 1..40)) {
        behaves_like_memory_store(&Fresh::sqlite(), &ops)?;
    }
}

proptest! {
    // Each case makes a schema on the server: fewer cases.
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn postgres_store_behaves_like_memory_store(ops in prop::collection::vec(op(), 1..40)) {
        if let Some(fresh) = Fresh::postgres() {
            behaves_like_memory_store(&fresh, &ops)?;
        }
    }
}

fn behaves_like_memory_store(fresh: &Fresh, ops: &[Op]) -> Result<(), TestCaseError> {
    let store = fresh.open();
    let memory = MemoryStore::default();
    for (i, op) in ops.iter().enumerate() {
        prop_assert_eq!(apply(&*store, op), apply(&memory, op), "op {} {:?}", i, op);
    }
    prop_assert_eq!(snapshot(&*store, &AGENTS, &NAMES), snapshot(&memory, &AGENTS, &NAMES));
    Ok(())
}
