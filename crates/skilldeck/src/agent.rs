//! Agents: an [`AgentProfile`] says which skills an agent may use and which
//! it always gets; an [`AgentView`] applies it to one catalog snapshot
//! (Insika's `SkillCatalog` selection rules, SPEC §7).
//!
//! One view answers every surface of one turn (the level-1 list, the bodies
//! injected, the `load_skill` tool in `load_skill.rs`), so they cannot
//! disagree.

mod load_skill;

use std::collections::HashSet;
use std::fmt;

use serde_json::Value;

use crate::catalog::Catalog;
use crate::model::Skill;
use crate::text::{contains_word, fold};

pub use load_skill::LoadSkillTool;

/// Which skills an agent always gets in full, every turn.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Eager {
    /// None: progressive disclosure only (the default).
    #[default]
    None,
    /// Every skill the agent may use.
    All,
    /// These names (trimmed), where the agent may use them.
    Names(Vec<String>),
}

impl Eager {
    /// Reads a configured value as Insika does: `null`/`false` is none;
    /// `true`, `"true"`, `"1"`, `"yes"`, `"on"` are all; a string is one name,
    /// a list is names, anything else is its text as one name.
    ///
    /// # Example
    ///
    /// ```
    /// use serde_json::json;
    /// use skilldeck::Eager;
    ///
    /// assert_eq!(Eager::from_json(&json!(null)), Eager::None);
    /// assert_eq!(Eager::from_json(&json!("on")), Eager::All);
    /// assert_eq!(Eager::from_json(&json!([" formato "])), Eager::Names(vec!["formato".into()]));
    /// assert_eq!(Eager::from_json(&json!("TRUE")), Eager::Names(vec!["TRUE".into()]));
    /// ```
    pub fn from_json(value: &Value) -> Eager {
        match value {
            Value::Null | Value::Bool(false) => Eager::None,
            Value::Bool(true) => Eager::All,
            Value::String(s) if matches!(s.as_str(), "true" | "1" | "yes" | "on") => Eager::All,
            Value::Array(items) => Eager::names(items.iter().map(json_text)),
            other => Eager::names([json_text(other)]),
        }
    }

    /// A list of names, each trimmed.
    pub fn names<I, S>(names: I) -> Eager
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        Eager::Names(names.into_iter().map(|n| n.as_ref().trim().to_owned()).collect())
    }
}

/// A JSON value as text: a string as itself, anything else as JSON.
fn json_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// One agent's skill configuration.
///
/// # Example
///
/// ```
/// use skilldeck::{AgentProfile, Eager};
///
/// let profile = AgentProfile::new("support").allow(["cardapio", "formato"]).eager(Eager::names(["formato"]));
/// assert_eq!(profile.id, "support");
/// assert_eq!(profile.skills.as_deref(), Some(&["cardapio".to_owned(), "formato".to_owned()][..]));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AgentProfile {
    /// The agent's id: its store scope.
    pub id: String,
    /// The allowlist: `None` allows every skill, `Some([])` none, else these
    /// names (exact, case-sensitive, not trimmed).
    pub skills: Option<Vec<String>>,
    /// The skills always injected.
    pub eager: Eager,
}

impl AgentProfile {
    /// A profile allowing every skill, none eager.
    pub fn new(id: impl Into<String>) -> AgentProfile {
        AgentProfile { id: id.into(), ..AgentProfile::default() }
    }

    /// Sets the allowlist.
    pub fn allow<I, S>(mut self, names: I) -> AgentProfile
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.skills = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// Sets the eager set.
    pub fn eager(mut self, eager: Eager) -> AgentProfile {
        self.eager = eager;
        self
    }

    /// Whether the allowlist admits `name`.
    pub fn allows(&self, name: &str) -> bool {
        self.skills.as_ref().is_none_or(|names| names.iter().any(|n| n == name))
    }

    /// How this agent gets the skill `name`: the allowlist first, then the
    /// eager set.
    ///
    /// ```
    /// use skilldeck::{AgentProfile, Eager, Mode};
    ///
    /// let profile = AgentProfile::new("loja").allow(["menu", "formato"]).eager(Eager::names(["formato"]));
    /// assert_eq!(profile.mode("formato"), Mode::Eager);
    /// assert_eq!(profile.mode("menu"), Mode::Lazy);
    /// assert_eq!(profile.mode("outro").as_str(), "not-allowed");
    /// ```
    pub fn mode(&self, name: &str) -> Mode {
        match (self.allows(name), self.is_eager(name)) {
            (false, _) => Mode::NotAllowed,
            (true, true) => Mode::Eager,
            (true, false) => Mode::Lazy,
        }
    }

    /// Whether `name`, if allowed, is always injected.
    pub fn is_eager(&self, name: &str) -> bool {
        match &self.eager {
            Eager::None => false,
            Eager::All => true,
            Eager::Names(names) => names.iter().any(|n| n == name),
        }
    }
}

/// Why a skill's body is in the prompt this turn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    /// The agent's profile marks it eager.
    Eager,
    /// The message contains this trigger phrase (as the author wrote it).
    Trigger(String),
    /// It travels with this skill, which came in for another reason.
    Companion(String),
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::Eager => f.write_str("eager"),
            Reason::Trigger(phrase) => write!(f, "trigger:{phrase}"),
            Reason::Companion(of) => write!(f, "companion:{of}"),
        }
    }
}

/// A skill whose body is injected this turn, and why.
#[derive(Clone, Debug)]
pub struct Activation<'c> {
    /// The skill.
    pub skill: &'c Skill,
    /// Why it is here; its text is the label's `reason`.
    pub reason: Reason,
}

/// One agent's view of one catalog snapshot.
///
/// The skills it sees ([`all`](AgentView::all)) are the catalog's exposed
/// skills with the agent's own store records in their place (an override
/// keeps the shared skill's slot), then the agent's private records by key.
/// Order is the catalog's, never the allowlist's.
///
/// # Example
///
/// ```
/// use skilldeck::{AgentProfile, Catalog, Eager, SkillDef, render};
///
/// let catalog = Catalog::builder()
///     .skill(SkillDef::new("cardapio").description("o cardápio").content("Mostre o cardápio."))
///     .skill(SkillDef::new("formato").description("formato").content("Use listas."))
///     .build();
/// let profile = AgentProfile::new("loja").eager(Eager::names(["formato"]));
/// let view = catalog.view(&profile);
/// let names = |skills: Vec<&skilldeck::Skill>| skills.iter().map(|s| s.name().to_owned()).collect::<Vec<_>>();
/// assert_eq!(names(view.eager()), ["formato"]);
/// assert_eq!(names(view.lazy()), ["cardapio"]);
/// assert!(render::insika(&view.lazy()).starts_with("<available_skills>\n  <skill name=\"cardapio\">o cardápio</skill>\n"));
/// ```
#[derive(Clone, Debug)]
pub struct AgentView<'c> {
    catalog: &'c Catalog,
    profile: &'c AgentProfile,
    all: Vec<&'c Skill>,
}

impl Catalog {
    /// The view of this snapshot for one agent.
    pub fn view<'c>(&'c self, profile: &'c AgentProfile) -> AgentView<'c> {
        let own = self.agent_skills(&profile.id);
        let mut all: Vec<&Skill> = self.skills().map(|s| find_own(own, s.name()).unwrap_or(s)).collect();
        all.extend(own.iter().filter(|s| self.get(s.name()).is_none()));
        AgentView { catalog: self, profile, all }
    }

    /// The skill `agent` sees under `name`: its own record, else the shared skill.
    pub(crate) fn find_for(&self, agent: &str, name: &str) -> Option<&Skill> {
        find_own(self.agent_skills(agent), name).or_else(|| self.get(name))
    }
}

/// Whether a skill the agent sees is one it loads on demand.
pub(crate) fn is_lazy(profile: &AgentProfile, name: &str) -> bool {
    profile.mode(name) == Mode::Lazy
}

/// How an agent gets a skill: the one answer every surface asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Mode {
    /// Always in the prompt in full.
    Eager,
    /// Listed at level 1 and loaded on demand (`load_skill`).
    Lazy,
    /// Not in the agent's allowlist.
    NotAllowed,
}

impl Mode {
    /// `eager`, `lazy` or `not-allowed`.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Eager => "eager",
            Mode::Lazy => "lazy",
            Mode::NotAllowed => "not-allowed",
        }
    }
}

/// The agent record named `name`; records are sorted by key.
fn find_own<'c>(own: &'c [Skill], name: &str) -> Option<&'c Skill> {
    own.binary_search_by(|s| s.name().cmp(name)).ok().map(|i| &own[i])
}

impl<'c> AgentView<'c> {
    /// The snapshot this view reads.
    pub fn catalog(&self) -> &'c Catalog {
        self.catalog
    }

    /// The profile this view applies.
    pub fn profile(&self) -> &'c AgentProfile {
        self.profile
    }

    /// Every skill the agent can see, allowed or not.
    pub fn all(&self) -> &[&'c Skill] {
        &self.all
    }

    /// The skill the agent sees under `name` (its own record first, then the
    /// shared skill), allowed or not.
    pub fn find(&self, name: &str) -> Option<&'c Skill> {
        self.catalog.find_for(&self.profile.id, name)
    }

    /// The skills the agent may use.
    pub fn effective(&self) -> Vec<&'c Skill> {
        self.all.iter().copied().filter(|s| self.profile.allows(s.name())).collect()
    }

    /// The skills always in the prompt in full: none, every allowed skill, or
    /// the allowed ones among the eager names.
    pub fn eager(&self) -> Vec<&'c Skill> {
        self.all.iter().copied().filter(|s| self.profile.allows(s.name()) && self.profile.is_eager(s.name())).collect()
    }

    /// The skills the model loads on demand: allowed and not eager. They are
    /// the level-1 list and the only names `load_skill` serves.
    pub fn lazy(&self) -> Vec<&'c Skill> {
        self.all.iter().copied().filter(|s| is_lazy(self.profile, s.name())).collect()
    }

    /// The bodies to inject for a message: the eager skills, then the lazy
    /// skills one of whose triggers the message contains (accent-folded,
    /// lowercased, as a whole word), then the allowed companions of those
    /// (one level), each skill once, first reason kept. A skill whose body
    /// cannot be read is left out (and logged), so labels and bodies agree.
    pub fn activate(&self, message: &str) -> Vec<Activation<'c>> {
        let mut selected: Vec<Activation<'c>> =
            self.eager().into_iter().map(|skill| Activation { skill, reason: Reason::Eager }).collect();
        let message = fold(message);
        if !message.is_empty() {
            for skill in self.lazy() {
                let trigger = skill.triggers().iter().find(|t| {
                    let t = fold(t);
                    !t.is_empty() && contains_word(&message, &t)
                });
                if let Some(trigger) = trigger {
                    selected.push(Activation { skill, reason: Reason::Trigger(trigger.clone()) });
                }
            }
        }
        let effective = self.effective();
        let companions: Vec<Activation<'c>> = selected
            .iter()
            .flat_map(|a| a.skill.companions().iter().map(move |c| (c, a.skill.name())))
            .filter_map(|(companion, of)| {
                let skill = effective.iter().copied().find(|s| s.name() == companion)?;
                Some(Activation { skill, reason: Reason::Companion(of.to_owned()) })
            })
            .collect();
        let mut seen = HashSet::new();
        selected
            .into_iter()
            .chain(companions)
            .filter(|a| seen.insert(a.skill.name()))
            .filter(|a| a.skill.servable())
            .collect()
    }
}
