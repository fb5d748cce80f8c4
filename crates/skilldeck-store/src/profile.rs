//! Agent profiles as every backend keeps them: the one encoding of a
//! profile in columns, and the plan of an `update_profiles` (what to insert,
//! rewrite and delete), so that SQLite and PostgreSQL differ only in SQL.
//!
//! # The columns
//!
//! * `agent`: the profile's id.
//! * `skills`: the allowlist, `NULL` for every skill, else a JSON list of
//!   the names in their order (`[]`: none).
//! * `eager`: `none`, `all`, or a JSON list of names in their order (`[]`
//!   is kept apart from `none`, as [`Eager`] keeps them).
//!
//! JSON escapes every control character, NUL included, so the encoded
//! columns are plain text in every backend, whatever the names hold.

use skilldeck::store::{HISTORY_CAP, ProfileVersion, StoreError, check_profiles};
use skilldeck::{AgentProfile, Eager};

/// A profile in columns: `skills` and `eager` as the module docs say.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Columns {
    pub(crate) skills: Option<String>,
    pub(crate) eager: String,
}

/// The columns of `profile`.
pub(crate) fn encode(profile: &AgentProfile) -> Columns {
    let list = |names: &[String]| serde_json::Value::from(names).to_string();
    let eager = match &profile.eager {
        Eager::None => "none".to_owned(),
        Eager::All => "all".to_owned(),
        Eager::Names(names) => list(names),
    };
    Columns { skills: profile.skills.as_deref().map(list), eager }
}

/// The profile `id` stored as `columns`; the problem, naming the profile,
/// when a column holds something this crate never writes.
pub(crate) fn decode(id: String, columns: Columns) -> Result<AgentProfile, String> {
    let list = |text: &str, what: &str| {
        serde_json::from_str::<Vec<String>>(text)
            .map_err(|e| format!("agent profile '{id}': {what} is not a JSON list of names ({e}): {text:?}"))
    };
    let skills = columns.skills.as_deref().map(|text| list(text, "its allowlist (column skills)")).transpose()?;
    let eager = match columns.eager.as_str() {
        "none" => Eager::None,
        "all" => Eager::All,
        text if text.starts_with('[') => Eager::Names(list(text, "its eager set (column eager)")?),
        text => {
            return Err(format!(
                "agent profile '{id}': its eager set (column eager) is not none, all or a JSON list of names: {text:?}"
            ));
        }
    };
    Ok(AgentProfile { id, skills, eager })
}

/// A profile as a backend found it, under its row key `K`.
pub(crate) struct Kept<K> {
    pub(crate) key: K,
    pub(crate) profile: AgentProfile,
    /// When `profile` was written.
    pub(crate) updated_at: String,
}

/// One write of an `update_profiles`.
pub(crate) enum Step<K> {
    /// A new profile.
    Insert(AgentProfile),
    /// A profile that changed: `previous` (as it was, when it was written)
    /// goes to the head of its history ([`next_history`]).
    Update { key: K, previous: ProfileVersion, profile: AgentProfile },
    /// A profile that is gone, with its history.
    Delete(K),
}

/// The writes that take the profiles from `kept` (by id in byte order) to
/// what `change` makes of them, checked with [`check_profiles`] first: the
/// rule [`MemoryStore`](skilldeck::store::MemoryStore) follows, for every
/// backend. A profile left as it was is not written.
///
/// # Errors
///
/// [`StoreError::InvalidName`] or [`StoreError::InvalidProfile`] from
/// [`check_profiles`]: nothing is to be written.
pub(crate) fn plan<K>(
    kept: Vec<Kept<K>>,
    change: &mut dyn FnMut(&mut Vec<AgentProfile>),
) -> Result<Vec<Step<K>>, StoreError> {
    let mut profiles: Vec<AgentProfile> = kept.iter().map(|k| k.profile.clone()).collect();
    change(&mut profiles);
    check_profiles(&profiles)?;
    let mut kept: std::collections::BTreeMap<String, Kept<K>> =
        kept.into_iter().map(|k| (k.profile.id.clone(), k)).collect();
    let mut steps = Vec::new();
    for profile in profiles {
        match kept.remove(&profile.id) {
            Some(current) if current.profile == profile => {}
            Some(current) => steps.push(Step::Update {
                key: current.key,
                previous: ProfileVersion { profile: current.profile, at: current.updated_at },
                profile,
            }),
            None => steps.push(Step::Insert(profile)),
        }
    }
    // Whatever the change did not give back is gone.
    steps.extend(kept.into_values().map(|k| Step::Delete(k.key)));
    Ok(steps)
}

/// A changed profile's history: `previous` first, then the `older`
/// versions, at most [`HISTORY_CAP`] in all (the skills' rule,
/// [`StoredSkill::next`](skilldeck::store::StoredSkill::next)).
pub(crate) fn next_history(previous: ProfileVersion, older: Vec<ProfileVersion>) -> Vec<ProfileVersion> {
    std::iter::once(previous).chain(older).take(HISTORY_CAP).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(profile: &AgentProfile) -> AgentProfile {
        decode(profile.id.clone(), encode(profile)).unwrap()
    }

    #[test]
    fn every_profile_shape_round_trips_in_order() {
        let shapes = [
            AgentProfile::new("geral"),
            AgentProfile::new("bia").allow(["z", "a", "a", " spaced ", "nul\0", "\"quoted\""]),
            AgentProfile::new("nada").allow(Vec::<String>::new()),
            AgentProfile::new("x").eager(Eager::All),
            AgentProfile::new("y").eager(Eager::Names(Vec::new())),
            AgentProfile::new("z").eager(Eager::Names(vec!["all".into(), "none".into()])),
        ];
        for profile in &shapes {
            assert_eq!(&round_trip(profile), profile);
        }
        let bia = encode(&shapes[1]);
        assert_eq!(bia.skills.as_deref(), Some(r#"["z","a","a"," spaced ","nul\u0000","\"quoted\""]"#));
        assert_eq!(encode(&shapes[0]), Columns { skills: None, eager: "none".into() });
        assert_eq!(encode(&shapes[4]).eager, "[]");
        assert_eq!(encode(&shapes[5]).eager, r#"["all","none"]"#);
    }

    #[test]
    fn a_column_this_crate_never_writes_is_named() {
        let bad = |skills: Option<&str>, eager: &str| {
            decode("bia".into(), Columns { skills: skills.map(str::to_owned), eager: eager.into() }).unwrap_err()
        };
        assert_eq!(
            bad(Some("{oops"), "none"),
            "agent profile 'bia': its allowlist (column skills) is not a JSON list of names \
             (invalid type: map, expected a sequence at line 1 column 0): \"{oops\""
        );
        assert_eq!(
            bad(None, "[1]"),
            "agent profile 'bia': its eager set (column eager) is not a JSON list of names \
             (invalid type: integer `1`, expected a string at line 1 column 2): \"[1]\""
        );
        assert_eq!(
            bad(None, "some"),
            "agent profile 'bia': its eager set (column eager) is not none, all or a JSON list of names: \"some\""
        );
    }

    #[test]
    fn the_plan_writes_only_what_changed() {
        let kept = |id: &str, key: i64| Kept { key, profile: AgentProfile::new(id), updated_at: format!("t{key}") };
        let steps = plan(vec![kept("a", 1), kept("b", 2), kept("c", 3)], &mut |all| {
            all.retain(|p| p.id != "b");
            all[1].skills = Some(Vec::new());
            all.push(AgentProfile::new("d"));
        })
        .unwrap();
        let shown: Vec<String> = steps
            .iter()
            .map(|s| match s {
                Step::Insert(p) => format!("insert {}", p.id),
                Step::Update { key, previous, profile } => {
                    format!("update {key} {} {:?} -> {:?}", previous.at, previous.profile.skills, profile.skills)
                }
                Step::Delete(key) => format!("delete {key}"),
            })
            .collect();
        assert_eq!(shown, ["update 3 t3 None -> Some([])", "insert d", "delete 2"]);
        let refused = plan(vec![kept("a", 1)], &mut |all| all.push(AgentProfile::new("a")));
        assert_eq!(refused.err().unwrap().to_string(), "agent profile 'a' is given twice");
    }

    #[test]
    fn the_history_keeps_the_cap() {
        let version = |n: usize| ProfileVersion { profile: AgentProfile::new("a"), at: format!("t{n}") };
        let older: Vec<ProfileVersion> = (1..=HISTORY_CAP).map(version).collect();
        let next = next_history(version(0), older);
        assert_eq!(next.len(), HISTORY_CAP);
        assert_eq!(next[0].at, "t0");
        assert_eq!(next[HISTORY_CAP - 1].at, format!("t{}", HISTORY_CAP - 1));
    }
}
