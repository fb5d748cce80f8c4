//! The catalog: every source collected in order, parsed, deduplicated by name
//! and filtered, frozen into one immutable, cheaply cloned value.
//!
//! `builder.rs` configures a build, `assembly.rs` runs it, `walks.rs` walks
//! the roots (and brings a kept walk up to date), `live.rs` swaps snapshots.

mod assembly;
mod builder;
mod gate;
mod live;
mod walks;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use skilldeck_walk::{Limits, Symlinks, Totals, Walker};

use assembly::{NameIndex, StoreRead};
pub use builder::{BeforeRead, CatalogBuilder, Filter, InvalidSampleLimit, Provider, ProviderError, SampleLimit};
pub use live::LiveCatalog;
use walks::RootWalk;

use crate::model::{Skill, Skip, Warning};
use crate::search::SearchIndex;
use crate::source::walk::walker;

/// Which source a skill came from.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Source {
    /// A root, as given to the builder.
    Root(PathBuf),
    /// A data skill given to the builder.
    Data,
    /// The provider.
    Provider,
    /// The store's shared scope.
    Store,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Root(root) => write!(f, "root {}", root.display()),
            Source::Data => f.write_str("data"),
            Source::Provider => f.write_str("provider"),
            Source::Store => f.write_str("store"),
        }
    }
}

/// A skill that lost its name to another: a duplicate found later, or a
/// skill a store record replaced.
///
/// # Example
///
/// ```
/// use skilldeck::{Catalog, SkillDef, Source};
///
/// let catalog = Catalog::builder()
///     .skill(SkillDef::new("deploy").base("skill://first/"))
///     .skill(SkillDef::new("deploy").base("skill://second/").content("the other one"))
///     .build();
/// let lost = &catalog.shadowed()[0];
/// assert_eq!((lost.skill.location(), lost.winner_location.as_str()), ("skill://second/", "skill://first/"));
/// assert_eq!((&lost.source, &lost.winner_source), (&Source::Data, &Source::Data));
/// assert_eq!(catalog.at("skill://second/").unwrap().body()?, "the other one");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Shadowed {
    /// The skill that lost, whole: it can still be served by location.
    pub skill: Skill,
    /// Where it came from.
    pub source: Source,
    /// The location of the skill that kept the name.
    pub winner_location: String,
    /// Where the winner came from.
    pub winner_source: Source,
}

/// An immutable snapshot of every skill the sources gave: the exposed
/// (filtered) skills in collection order, lookup by name, the unfiltered
/// inventory, the skips and the warnings. Cloning is cheap (an `Arc`).
///
/// # Example
///
/// ```
/// use skilldeck::{Catalog, Filter, SkillDef};
///
/// let catalog = Catalog::builder()
///     .skill(SkillDef::new("release").description("Cut a release").content("1. Bump."))
///     .skill(SkillDef::new("triage").content("1. Reproduce."))
///     .filter(Filter::allow(["release", "typo"]))
///     .build();
/// assert_eq!(catalog.skills().map(|s| s.name()).collect::<Vec<_>>(), ["release"]);
/// assert_eq!(catalog.inventory().len(), 2);
/// assert_eq!(catalog.filter_unmatched(), ["typo"]);
/// assert!(catalog.get("triage").is_none());
/// ```
#[derive(Clone, Debug)]
pub struct Catalog {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    skills: Vec<Skill>,
    exposed: Vec<usize>,
    by_name: NameIndex,
    skips: Vec<Skip>,
    warnings: Vec<Warning>,
    filter_unmatched: Vec<String>,
    shadowed: Vec<Shadowed>,
    agents: BTreeMap<String, Vec<Skill>>,
    /// Each root's walk, for `LiveCatalog::reload_changed`; `None` unless kept.
    walks: Vec<Option<RootWalk>>,
    walked: Totals,
    /// The store's skills, for a reload while the store fails; `None` unless kept.
    store: Option<Arc<StoreRead>>,
    sample_limit: SampleLimit,
    symlinks: Symlinks,
    limits: Limits,
    /// The search index, built on the first search and shared by every clone.
    search: OnceLock<SearchIndex>,
}

impl Catalog {
    /// A builder with every default: no sources, no filter, sample limit `0`.
    pub fn builder() -> CatalogBuilder {
        CatalogBuilder::default()
    }

    /// The exposed skills (after the filter), in collection order.
    pub fn skills(&self) -> impl ExactSizeIterator<Item = &Skill> + '_ {
        self.inner.exposed.iter().map(|&i| &self.inner.skills[i])
    }

    /// An exposed skill by exact name.
    pub fn get(&self, name: &str) -> Option<&Skill> {
        self.inner.by_name.get(name).map(|&i| &self.inner.skills[i])
    }

    /// This snapshot with the skills `names` no longer exposed, as if the
    /// filter had denied them (agents' records of those names too): what a
    /// host that cannot serve some skills (an MCP server, over the Skills
    /// extension's limits) offers on every surface, so that no surface offers
    /// what another refuses. The inventory, skips and warnings are this
    /// one's; the walks are not kept (a live catalog reloads from its own
    /// snapshot), and the search index is built again on first use.
    ///
    /// ```
    /// use skilldeck::{Catalog, SkillDef};
    ///
    /// let catalog = Catalog::builder().skill(SkillDef::new("a")).skill(SkillDef::new("b")).build();
    /// let served = catalog.without(["a"]);
    /// assert_eq!(served.skills().map(|s| s.name()).collect::<Vec<_>>(), ["b"]);
    /// assert!(served.get("a").is_none());
    /// assert_eq!(served.inventory().len(), 2);
    /// ```
    pub fn without<'a>(&self, names: impl IntoIterator<Item = &'a str>) -> Catalog {
        let names: std::collections::HashSet<&str> = names.into_iter().collect();
        let inner = &self.inner;
        let kept = |skill: &Skill| !names.contains(skill.name());
        let agents = inner
            .agents
            .iter()
            .map(|(agent, skills)| (agent.clone(), skills.iter().filter(|s| kept(s)).cloned().collect::<Vec<_>>()))
            .filter(|(_, skills)| !skills.is_empty())
            .collect();
        let mut by_name = inner.by_name.clone();
        by_name.retain(|name, _| !names.contains(name.as_str()));
        Catalog {
            inner: Arc::new(Inner {
                skills: inner.skills.clone(),
                exposed: inner.exposed.iter().copied().filter(|&i| kept(&inner.skills[i])).collect(),
                by_name,
                skips: inner.skips.clone(),
                warnings: inner.warnings.clone(),
                filter_unmatched: inner.filter_unmatched.clone(),
                shadowed: inner.shadowed.clone(),
                agents,
                walks: Vec::new(),
                walked: inner.walked,
                store: inner.store.clone(),
                sample_limit: inner.sample_limit,
                symlinks: inner.symlinks,
                limits: inner.limits,
                search: OnceLock::new(),
            }),
        }
    }

    /// Every skill that survived deduplication, filter or not, in collection
    /// order.
    pub fn inventory(&self) -> &[Skill] {
        &self.inner.skills
    }

    /// What the walks of the roots looked at, all roots together: the
    /// directories entered and the entries listed (as a reload's walks of
    /// what changed count them, never fewer than there are), and whether a
    /// link was followed. A host that watches the roots for changes knows
    /// from it how many watches that takes.
    pub fn walked(&self) -> Totals {
        self.inner.walked
    }

    /// The candidates that did not become skills, in collection order.
    pub fn skips(&self) -> &[Skip] {
        &self.inner.skips
    }

    /// What the build wants a user to know, in the order it happened.
    pub fn warnings(&self) -> &[Warning] {
        &self.inner.warnings
    }

    /// Filter entries that named no skill, in code-point order.
    pub fn filter_unmatched(&self) -> &[String] {
        &self.inner.filter_unmatched
    }

    /// Every skill that lost its name to another, with the winner, in the
    /// order the losses happened.
    pub fn shadowed(&self) -> &[Shadowed] {
        &self.inner.shadowed
    }

    /// The skill at `location` (a `SKILL.md` path, a base, or `store:<name>`),
    /// exposed or shadowed: the way to reach a skill that lost its name.
    /// Agent records are not searched.
    pub fn at(&self, location: &str) -> Option<&Skill> {
        self.skills().chain(self.inner.shadowed.iter().map(|s| &s.skill)).find(|s| s.location() == location)
    }

    /// The skills of one agent's store scope (its own records: overrides of
    /// shared skills and skills private to it), by key; empty for an agent
    /// without records. See [`crate::AgentView`] for how they combine with
    /// the shared skills.
    pub fn agent_skills(&self, agent: &str) -> &[Skill] {
        self.inner.agents.get(agent).map_or(&[], Vec::as_slice)
    }

    /// The sample limit the `skill` tool uses by default.
    pub fn sample_limit(&self) -> SampleLimit {
        self.inner.sample_limit
    }

    /// Every file below a skill directory, walked with this catalog's link
    /// policy and limits and never entering `.git` or `node_modules` (as the
    /// `skill` tool's sampling does), sorted by relative path in code-point
    /// order. Nested `SKILL.md` files are included; entries that are not
    /// regular files are reported with `regular: false`, and a walk cut short
    /// says so in [`Walk::limit_hit`](crate::Walk::limit_hit). A host
    /// that publishes a skill's files (an MCP server) lists them with this.
    ///
    /// # Example
    ///
    /// ```
    /// use skilldeck::Catalog;
    ///
    /// let dir = tempfile::tempdir()?;
    /// let skill = dir.path().join("hello");
    /// std::fs::create_dir_all(skill.join("scripts"))?;
    /// std::fs::create_dir_all(skill.join(".git"))?;
    /// std::fs::write(skill.join("SKILL.md"), "---\nname: hello\n---\nHi.\n")?;
    /// std::fs::write(skill.join("scripts/hi.sh"), "echo hi\n")?;
    /// std::fs::write(skill.join(".git/HEAD"), "ref: x\n")?;
    /// std::fs::write(skill.join("LICENSE"), "MIT\n")?;
    /// let catalog = Catalog::builder().root(dir.path()).build();
    /// let walk: skilldeck::Walk = catalog.skill_files(catalog.get("hello").unwrap().dir().unwrap());
    /// let files: Vec<String> = walk.files.iter().map(|f| f.rel_path()).collect();
    /// assert_eq!(files, ["LICENSE", "SKILL.md", "scripts/hi.sh"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn skill_files(&self, dir: &Path) -> crate::Walk {
        let mut walk = self.walker(dir).files(|_| true);
        walk.files.sort_by(|a, b| a.rel_bytes().cmp(b.rel_bytes()));
        walk
    }

    /// The search index of this snapshot, built on first use.
    pub(crate) fn search_index(&self) -> &SearchIndex {
        self.inner.search.get_or_init(|| SearchIndex::build(self, crate::search::Tuning::default()))
    }

    /// Every agent's records, by agent id.
    pub(crate) fn agents(&self) -> impl Iterator<Item = (&str, &[Skill])> {
        self.inner.agents.iter().map(|(agent, records)| (agent.as_str(), records.as_slice()))
    }

    /// The place of the exposed skill `name` among the exposed skills.
    pub(crate) fn exposed_position(&self, name: &str) -> Option<usize> {
        let &i = self.inner.by_name.get(name)?;
        self.inner.exposed.binary_search(&i).ok()
    }

    /// The walker for sampling a skill directory, with this catalog's policy.
    pub(crate) fn walker(&self, dir: &Path) -> Walker {
        walker(dir, self.inner.symlinks, self.inner.limits)
    }
}
