//! The catalog: every source collected in order, parsed, deduplicated by name
//! and filtered, frozen into one immutable, cheaply cloned value.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use skilldeck_walk::{File, LimitHit, Limits, Symlinks, Totals, Walker};

use crate::model::{Origin, Skill, SkillData, SkillDef, Skip, SkipReason, Warning};
use crate::search::SearchIndex;
use crate::source::confine::Confinement;
use crate::source::frontmatter::FrontmatterMode;
use crate::source::read::{self, DEFAULT_MAX_FRONTMATTER};
use crate::source::walk::{SKILL_MD, SKIPPED_DIRS, candidate_order, walker};
use crate::store::{Record, SkillStore, StoreError};

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
///     .build()?;
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

/// A per-agent allowlist or drop-list of skill names (toolnexus S2).
///
/// Empty: every skill. Any name mapped to `true`: exactly the names mapped to
/// `true`. Only `false` entries: every skill not mapped to `false`.
///
/// # Example
///
/// ```
/// use skilldeck::Filter;
///
/// let allow = Filter::allow(["deploy"]);
/// assert!(allow.admits("deploy") && !allow.admits("triage"));
/// let drop = Filter::deny(["deploy"]);
/// assert!(!drop.admits("deploy") && drop.admits("triage"));
/// assert!(Filter::default().admits("anything"));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filter {
    entries: BTreeMap<String, bool>,
}

impl Filter {
    /// A filter from `(name, admitted)` entries; a later entry for a name
    /// replaces an earlier one.
    pub fn new<I, S>(entries: I) -> Filter
    where
        I: IntoIterator<Item = (S, bool)>,
        S: Into<String>,
    {
        Filter { entries: entries.into_iter().map(|(k, v)| (k.into(), v)).collect() }
    }

    /// An allowlist: exactly these names.
    pub fn allow<I, S>(names: I) -> Filter
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Filter::new(names.into_iter().map(|n| (n, true)))
    }

    /// A drop-list: every name but these.
    pub fn deny<I, S>(names: I) -> Filter
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Filter::new(names.into_iter().map(|n| (n, false)))
    }

    /// Whether the filter has no entries (and so admits everything).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether a skill of this name is exposed.
    pub fn admits(&self, name: &str) -> bool {
        let allowlist = self.entries.values().any(|&v| v);
        match self.entries.get(name) {
            Some(&admitted) => admitted,
            None => !allowlist,
        }
    }

    /// The entry names, in code-point order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.keys().map(String::as_str)
    }
}

/// How many sibling files the `skill` tool lists (toolnexus S5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SampleLimit {
    /// Ten files (configured as `0`).
    #[default]
    Default,
    /// At most this many files (configured as `n > 0`).
    Max(usize),
    /// No file block and no `Note:` line (configured as `-1`).
    Off,
}

impl SampleLimit {
    /// The cap used by [`SampleLimit::Default`].
    pub const DEFAULT_CAP: usize = 10;

    /// The limit from its configured number: `0`, `n > 0` or `-1`.
    ///
    /// # Errors
    ///
    /// Any other negative number.
    ///
    /// ```
    /// use skilldeck::SampleLimit;
    ///
    /// assert_eq!(SampleLimit::from_config(0), Ok(SampleLimit::Default));
    /// assert_eq!(SampleLimit::from_config(3), Ok(SampleLimit::Max(3)));
    /// assert_eq!(SampleLimit::from_config(-1), Ok(SampleLimit::Off));
    /// assert!(SampleLimit::from_config(-2).is_err());
    /// ```
    pub fn from_config(n: i64) -> Result<SampleLimit, BuildError> {
        match n {
            0 => Ok(SampleLimit::Default),
            -1 => Ok(SampleLimit::Off),
            n if n > 0 => Ok(SampleLimit::Max(usize::try_from(n).unwrap_or(usize::MAX))),
            n => Err(BuildError::SampleLimit(n)),
        }
    }

    /// The cap on listed files, or `None` when the block is off.
    pub fn cap(self) -> Option<usize> {
        match self {
            SampleLimit::Default => Some(Self::DEFAULT_CAP),
            SampleLimit::Max(n) => Some(n),
            SampleLimit::Off => None,
        }
    }
}

/// A catalog configuration that cannot be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// A sample limit below `-1`.
    #[error("invalid sample limit {0}: use 0 (ten files), a positive cap, or -1 (no file list)")]
    SampleLimit(i64),
}

/// The error a [`Provider`] returns.
pub type ProviderError = Box<dyn std::error::Error + Send + Sync>;

/// A fallible source of skill definitions, called once per build.
pub type Provider = Arc<dyn Fn() -> Result<Vec<SkillDef>, ProviderError> + Send + Sync>;

/// Configures and builds a [`Catalog`]. Every option's default is stated on
/// its setter; a builder can build many times (a reload builds again).
#[derive(Clone, Default)]
pub struct CatalogBuilder {
    roots: Vec<PathBuf>,
    skills: Vec<SkillDef>,
    provider: Option<Provider>,
    filter: Filter,
    sample_limit: i64,
    symlinks: Symlinks,
    mode: FrontmatterMode,
    limits: Limits,
    max_frontmatter: Option<usize>,
    store: Option<Arc<dyn SkillStore>>,
}

impl fmt::Debug for CatalogBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CatalogBuilder")
            .field("roots", &self.roots)
            .field("skills", &self.skills)
            .field("provider", &self.provider.is_some())
            .field("filter", &self.filter)
            .field("sample_limit", &self.sample_limit)
            .field("store", &self.store.is_some())
            .finish_non_exhaustive()
    }
}

impl CatalogBuilder {
    /// Adds a root to walk, after those already added. Default: no roots.
    pub fn root(mut self, root: impl Into<PathBuf>) -> Self {
        self.roots.push(root.into());
        self
    }

    /// Adds roots in order. Default: no roots.
    pub fn roots<I, P>(mut self, roots: I) -> Self
    where
        I: IntoIterator<Item = P>,
        P: Into<PathBuf>,
    {
        self.roots.extend(roots.into_iter().map(Into::into));
        self
    }

    /// The roots, as given.
    pub(crate) fn roots_given(&self) -> &[PathBuf] {
        &self.roots
    }

    /// Puts `roots` in place of the roots; returns the old ones.
    pub(crate) fn replace_roots(&mut self, roots: Vec<PathBuf>) -> Vec<PathBuf> {
        std::mem::replace(&mut self.roots, roots)
    }

    /// Adds a data skill, collected after every root. Default: none.
    pub fn skill(mut self, def: SkillDef) -> Self {
        self.skills.push(def);
        self
    }

    /// Adds data skills in order. Default: none.
    pub fn skills(mut self, defs: impl IntoIterator<Item = SkillDef>) -> Self {
        self.skills.extend(defs);
        self
    }

    /// Sets a provider, called once per build; its skills come after the data
    /// skills, and its failure is a warning. Default: none.
    pub fn provider<F>(mut self, provider: F) -> Self
    where
        F: Fn() -> Result<Vec<SkillDef>, ProviderError> + Send + Sync + 'static,
    {
        self.provider = Some(Arc::new(provider));
        self
    }

    /// Sets the filter. Default: empty (every skill exposed).
    pub fn filter(mut self, filter: Filter) -> Self {
        self.filter = filter;
        self
    }

    /// Sets the sample limit as configured: `0` (ten files), `n > 0`, or `-1`
    /// (no list); anything else fails the build. Default: `0`.
    pub fn sample_limit(mut self, limit: i64) -> Self {
        self.sample_limit = limit;
        self
    }

    /// Sets the link policy for discovery and sampling. Default: [`Symlinks::Follow`].
    pub fn symlinks(mut self, symlinks: Symlinks) -> Self {
        self.symlinks = symlinks;
        self
    }

    /// Sets how YAML refusals are treated. Default: [`FrontmatterMode::Lenient`].
    pub fn frontmatter_mode(mut self, mode: FrontmatterMode) -> Self {
        self.mode = mode;
        self
    }

    /// Sets the walk limits, per root. Default: [`Limits::default`].
    pub fn walk_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Sets the cap on a frontmatter's bytes. Default: [`DEFAULT_MAX_FRONTMATTER`].
    pub fn max_frontmatter(mut self, bytes: usize) -> Self {
        self.max_frontmatter = Some(bytes);
        self
    }

    /// Sets the store of authored skills, read last. A shared record that
    /// parses replaces an earlier skill of its name in that skill's place, or
    /// comes after every other source; agent records make that agent's scope
    /// ([`Catalog::agent_skills`]). Default: none.
    pub fn store(mut self, store: Arc<dyn SkillStore>) -> Self {
        self.store = Some(store);
        self
    }

    /// Collects every source, in order, into a catalog. Problems with single
    /// skills are skips and warnings on the catalog, never an error.
    ///
    /// # Errors
    ///
    /// Only a configuration that makes no sense: a sample limit below `-1`.
    pub fn build(&self) -> Result<Catalog, BuildError> {
        self.assemble(None, None, false)
    }

    /// Collects every source into a catalog. With `current` (a catalog this
    /// builder made with `keep`) and the paths that `changed` since, a root's
    /// walk is brought up to date rather than made again where the changes
    /// allow (see [`LiveCatalog::reload_changed`](crate::LiveCatalog::reload_changed)),
    /// and a store that fails gives `current`'s store skills. With `keep`,
    /// the catalog keeps its walks and store skills for the next such build.
    pub(crate) fn assemble(
        &self,
        current: Option<&Catalog>,
        changed: Option<&[PathBuf]>,
        keep: bool,
    ) -> Result<Catalog, BuildError> {
        let sample_limit = SampleLimit::from_config(self.sample_limit)?;
        let mut assembly = Assembly::default();
        // Absent roots are warned about first, as toolnexus does.
        let mut roots = Vec::with_capacity(self.roots.len());
        for (i, root) in self.roots.iter().enumerate() {
            let absolute = std::path::absolute(root).unwrap_or_else(|_| root.clone());
            match RootIdentity::of(&absolute) {
                Some(identity) => roots.push((i, root, absolute, identity)),
                None => assembly.warn(Warning::RootNotFound { root: root.clone() }),
            }
        }
        // The previous walks, by root: a catalog of this builder has one per root given.
        let before = current.zip(changed).map(|(catalog, changed)| (&catalog.inner.walks, changed));
        // Bodies are read later, under the roots as they resolve now (whether
        // a walk met a link is known only after it: here, assume it did).
        let reads =
            Arc::new(Confinement::new(roots.iter().map(|(_, _, abs, id)| (abs.clone(), id.real.clone(), true))));
        for (i, root, absolute, identity) in roots {
            let earlier = before.and_then(|(walks, changed)| {
                // A root path that leads to another directory now is a new root.
                let walk = walks.get(i)?.as_ref().filter(|w| w.absolute == absolute && w.identity == identity)?;
                self.rewalk(walk, changed, &reads)
            });
            let walk = earlier.unwrap_or_else(|| self.walk_root(absolute, identity, &reads));
            let kept = self.collect_root(root, walk, &mut assembly, keep);
            assembly.walks.resize_with(i, || None);
            assembly.walks.push(kept);
        }
        for def in &self.skills {
            assembly.offer(data_skill(def), &Source::Data);
        }
        if let Some(provider) = &self.provider {
            match provider() {
                Ok(defs) => defs.iter().for_each(|def| assembly.offer(data_skill(def), &Source::Provider)),
                Err(error) => assembly.warn(Warning::ProviderFailed { message: error.to_string() }),
            }
        }
        if let Some(store) = &self.store {
            let last_good = current.and_then(|catalog| catalog.inner.store.clone());
            let read = self.collect_store(store.as_ref(), last_good, &mut assembly);
            assembly.store = read.filter(|_| keep);
        }
        Ok(assembly.finish(self.filter.clone(), sample_limit, self.symlinks, self.limits))
    }

    /// Offers the store's skills: read now, or, when the store fails, the
    /// `last_good` read of an earlier build (a store that is down for a
    /// moment must not empty a running catalog). Returns what was offered.
    fn collect_store(
        &self,
        store: &dyn SkillStore,
        last_good: Option<Arc<StoreRead>>,
        assembly: &mut Assembly,
    ) -> Option<Arc<StoreRead>> {
        let read = match self.read_store(store) {
            Ok(read) => Arc::new(read),
            Err(error) => {
                let message = error.to_string();
                let Some(last_good) = last_good else {
                    assembly.warn(Warning::StoreFailed { message });
                    return None;
                };
                assembly.warn(Warning::StoreStale { message });
                last_good
            }
        };
        for outcome in &read.shared {
            if let Some(skill) = assembly.parsed(outcome.clone()) {
                assembly.overlay(skill);
            }
        }
        for (agent, outcomes) in &read.agents {
            let skills: Vec<Skill> = outcomes.iter().filter_map(|outcome| assembly.parsed(outcome.clone())).collect();
            if !skills.is_empty() {
                assembly.agents.insert(agent.clone(), skills);
            }
        }
        Some(read)
    }

    /// Every record of the store, shared and per agent, parsed; all or nothing,
    /// so that a catalog never mixes two states of the store.
    fn read_store(&self, store: &dyn SkillStore) -> Result<StoreRead, StoreError> {
        let parse = |records: Vec<(String, Record)>, agent: Option<&str>| -> Vec<read::Outcome> {
            records.into_iter().map(|(key, record)| self.store_skill(key, agent, &record.content)).collect()
        };
        let shared = parse(store.all(None)?, None);
        let agents = store
            .agents()?
            .into_iter()
            .map(|agent| Ok((agent.clone(), parse(store.all(Some(&agent))?, Some(&agent)))))
            .collect::<Result<_, StoreError>>()?;
        Ok(StoreRead { shared, agents })
    }

    /// A store record as a skill named by its key; its frontmatter must still
    /// have a `name`, whatever it says.
    fn store_skill(&self, key: String, agent: Option<&str>, content: &str) -> read::Outcome {
        let location = match agent {
            None => format!("store:{key}"),
            Some(agent) => format!("store:{agent}/{key}"),
        };
        let origin = Origin::Store { agent: agent.map(str::to_owned) };
        let max_frontmatter = self.max_frontmatter.unwrap_or(DEFAULT_MAX_FRONTMATTER);
        let (mut skill, recovered) =
            read::parse(content.as_bytes(), true, location, origin, max_frontmatter, self.mode)?;
        let data = skill.data_mut();
        data.name = key;
        data.record = Some(content.into());
        Ok((skill, recovered))
    }

    /// Offers a root's candidates to the assembly, in candidate order; the
    /// walk is returned when `keep`, for the next rebuild.
    fn collect_root(&self, root: &Path, walk: RootWalk, assembly: &mut Assembly, keep: bool) -> Option<RootWalk> {
        assembly.roots.push((walk.absolute.clone(), walk.identity.real.clone(), walk.totals.linked));
        if let Some(limit) = walk.limit_hit {
            assembly.warn(Warning::WalkLimit { root: root.to_path_buf(), limit });
        }
        assembly.skills.reserve(walk.candidates.len());
        let source = Source::Root(root.to_path_buf());
        // A clone is cheap: a skill is an `Arc`.
        for (_, outcome) in &walk.candidates {
            if let Some(skill) = assembly.parsed(outcome.clone()) {
                assembly.offer(Ok(skill), &source);
            }
        }
        keep.then_some(walk)
    }

    /// Walks a whole root, which led to `identity` before the walk began.
    fn walk_root(&self, absolute: PathBuf, identity: RootIdentity, reads: &Arc<Confinement>) -> RootWalk {
        let (candidates, limit_hit, totals) = self.walk_dir(&absolute, self.limits, reads);
        RootWalk { absolute, identity, candidates, limit_hit, totals }
    }

    /// Walks `dir` for `SKILL.md` candidates, each read and parsed on the
    /// thread that listed its directory, and returns them in candidate order.
    fn walk_dir(
        &self,
        dir: &Path,
        limits: Limits,
        reads: &Arc<Confinement>,
    ) -> (Vec<Candidate>, Option<LimitHit>, Totals) {
        let max_frontmatter = self.max_frontmatter.unwrap_or(DEFAULT_MAX_FRONTMATTER);
        let walk = walker(dir, self.symlinks, limits)
            .visit(|name| name == SKILL_MD, |found| read::skill_md(found, max_frontmatter, self.mode));
        let mut candidates: Vec<Candidate> = walk
            .files
            .into_iter()
            .map(|(mut file, mut outcome)| {
                // The walked path moves into the skill: the file keeps only what orders it.
                if let Ok((skill, _)) = &mut outcome {
                    let data = skill.data_mut();
                    if let Origin::Fs { skill_md, .. } = &mut data.origin {
                        *skill_md = std::mem::take(&mut file.path);
                    }
                    data.confinement = Some(reads.clone());
                }
                (file, outcome)
            })
            .collect();
        candidates.sort_by(|(a, _), (b, _)| candidate_order(a, b));
        (candidates, walk.limit_hit, walk.totals)
    }

    /// `previous` brought up to date with `changed`, walking again only the
    /// parts that changed; `None` when only a whole walk can say (a link or a
    /// limit in play, or the root itself changed).
    fn rewalk(&self, previous: &RootWalk, changed: &[PathBuf], reads: &Arc<Confinement>) -> Option<RootWalk> {
        if previous.limit_hit.is_some() || previous.totals.linked {
            return None;
        }
        let mut parts = Vec::new();
        for path in changed {
            // Watchers report paths as watched or resolved (macOS FSEvents).
            let real = &previous.identity.real;
            let Ok(rel) = path.strip_prefix(&previous.absolute).or_else(|_| path.strip_prefix(real)) else {
                continue;
            };
            if rel.components().any(|c| SKIPPED_DIRS.iter().any(|d| c.as_os_str() == *d)) {
                continue;
            }
            parts.push(changed_part(&previous.absolute, rel)?);
        }
        // A part inside another is walked with it.
        parts.sort();
        parts.dedup_by(|inner, outer| inner.starts_with(outer));
        let mut candidates: Vec<Candidate> = previous
            .candidates
            .iter()
            .filter(|(file, _)| !parts.iter().any(|p| file.rel.starts_with(p)))
            .cloned()
            .collect();
        let mut totals = previous.totals;
        for part in &parts {
            let dir = previous.absolute.join(part);
            if !fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir()) {
                continue;
            }
            let depth = part.components().count();
            let limits = Limits { max_depth: self.limits.max_depth.checked_sub(depth)?, ..self.limits };
            let (found, limit_hit, more) = self.walk_dir(&dir, limits, reads);
            // Counted twice where the part was walked before: a whole walk
            // within the limits is sure to be within them too.
            totals.dirs += more.dirs;
            totals.entries += more.entries;
            if limit_hit.is_some()
                || more.linked
                || totals.dirs > self.limits.max_dirs
                || totals.entries > self.limits.max_entries
            {
                return None;
            }
            candidates.extend(found.into_iter().map(|(mut file, outcome)| {
                file.rel = part.join(&file.rel);
                file.depth += depth;
                (file, outcome)
            }));
        }
        candidates.sort_by(|(a, _), (b, _)| candidate_order(a, b));
        let (absolute, identity) = (previous.absolute.clone(), previous.identity.clone());
        Some(RootWalk { absolute, identity, candidates, limit_hit: None, totals })
    }
}

/// A `SKILL.md` candidate of a root's walk and what it became.
type Candidate = (File, read::Outcome);

/// The store's records as one build read and parsed them, kept by a live
/// catalog for the next build to fall back on.
#[derive(Debug)]
struct StoreRead {
    /// The shared records, by key.
    shared: Vec<read::Outcome>,
    /// Each agent's records, agents and keys in order.
    agents: Vec<(String, Vec<read::Outcome>)>,
}

/// One root's walk, kept by a live catalog: every candidate in candidate
/// order, so that a reload reads again only what changed.
#[derive(Clone, Debug)]
struct RootWalk {
    /// The root made absolute: the prefix of what a file watcher reports.
    absolute: PathBuf,
    /// The directory the root led to when it was walked.
    identity: RootIdentity,
    candidates: Vec<Candidate>,
    limit_hit: Option<LimitHit>,
    /// Over-counted after rebuilds, never under.
    totals: Totals,
}

/// The directory a root path leads to, as opposed to the path: a root moved
/// away and made again, or a link swapped to another release (the usual
/// deploy), is another directory under the same path, and no change reported
/// below the old one says what the new one holds.
#[derive(Clone, Debug, PartialEq, Eq)]
struct RootIdentity {
    /// The root resolved, the prefix of what some watchers report instead
    /// (macOS FSEvents); it also tells a swapped link apart.
    real: PathBuf,
    /// The directory's device and inode (on Unix), which tell a directory
    /// made again under the same resolved path apart while the old one is
    /// kept (moved away). A removed directory's inode may be reused at once
    /// (ext4 does): then only a change reported at the root itself tells.
    inode: Option<(u64, u64)>,
}

impl RootIdentity {
    /// What `absolute` leads to now; `None` when that is not a directory.
    fn of(absolute: &Path) -> Option<RootIdentity> {
        let meta = fs::metadata(absolute).ok().filter(fs::Metadata::is_dir)?;
        let real = fs::canonicalize(absolute).unwrap_or_else(|_| absolute.to_path_buf());
        Some(RootIdentity { real, inode: inode(&meta) })
    }
}

/// A file's device and inode, where the platform has them.
fn inode(meta: &fs::Metadata) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((meta.dev(), meta.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        None
    }
}

/// The part of a root to drop and, if it is a directory now, walk again for a
/// change at `rel` below it: `rel` itself (a directory that is there, or
/// anything else: whatever was below it before is gone), or the directory of
/// a `SKILL.md`; `None` when only a whole walk can say (the root itself, a
/// link on the way, a file that cannot be looked at).
fn changed_part(root: &Path, rel: &Path) -> Option<PathBuf> {
    if rel.as_os_str().is_empty() {
        return None;
    }
    // A link between the root and the change would take the walk elsewhere.
    let mut at = root.to_path_buf();
    for part in rel.parent().into_iter().flat_map(Path::components) {
        at.push(part);
        match fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_symlink() => return None,
            Ok(_) => {}
            // A directory on the way went: so did everything below it.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Some(rel.to_path_buf()),
            Err(_) => return None,
        }
    }
    match fs::symlink_metadata(root.join(rel)) {
        Ok(meta) if meta.file_type().is_symlink() => None,
        Ok(meta) if !meta.is_dir() && rel.file_name().is_some_and(|n| n == SKILL_MD) => {
            rel.parent().filter(|dir| !dir.as_os_str().is_empty()).map(Path::to_path_buf)
        }
        Ok(_) => Some(rel.to_path_buf()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some(rel.to_path_buf()),
        Err(_) => None,
    }
}

/// A data skill, or its `missing-name` skip.
fn data_skill(def: &SkillDef) -> Result<Skill, Skip> {
    let supplied_base = def.base.as_deref().filter(|b| !b.is_empty());
    let Some(name) = def.name.as_deref().filter(|n| !n.is_empty()) else {
        let location = supplied_base.unwrap_or("skill://").to_owned();
        return Err(Skip { location, reason: SkipReason::MissingName, detail: None });
    };
    let base = supplied_base.map_or_else(|| format!("skill://{name}/"), str::to_owned);
    Ok(Skill::from(SkillData {
        name: name.to_owned(),
        description: def.description.clone(),
        frontmatter: Default::default(),
        triggers: Vec::new(),
        companions: Vec::new(),
        location: base.clone(),
        origin: Origin::Logical { base, resources: def.resources.clone() },
        body: OnceLock::from(def.content.clone()),
        record: None,
        confinement: None,
    }))
}

/// Skill names to their index. The fast (not DoS-resistant) hasher is fine:
/// the names come from the user's own files and stores, for a local catalog,
/// and hashing 10k names with SipHash was a measurable part of a cold `list`.
type NameIndex = HashMap<String, usize, foldhash::fast::RandomState>;

/// The catalog being assembled: first name wins, except that a store record
/// takes the place of an earlier skill of its name.
#[derive(Default)]
struct Assembly {
    skills: Vec<Skill>,
    /// The source of each skill, by the same index.
    sources: Vec<Source>,
    index: NameIndex,
    shadowed: Vec<Shadowed>,
    skips: Vec<Skip>,
    warnings: Vec<Warning>,
    agents: BTreeMap<String, Vec<Skill>>,
    /// The kept walks, by root (`None` for a root not walked or not kept).
    walks: Vec<Option<RootWalk>>,
    /// Each walked root (absolute, resolved) and whether its walk met a link.
    roots: Vec<(PathBuf, PathBuf, bool)>,
    /// The store's skills, when kept.
    store: Option<Arc<StoreRead>>,
}

impl Assembly {
    fn warn(&mut self, warning: Warning) {
        tracing::warn!(kind = warning.kind(), "{warning}");
        self.warnings.push(warning);
    }

    fn offer(&mut self, candidate: Result<Skill, Skip>, source: &Source) {
        let skill = match candidate {
            Err(skip) => return self.skips.push(skip),
            Ok(skill) => skill,
        };
        match self.index.get(skill.name()) {
            Some(&winner) => {
                let (name, location) = (skill.name().to_owned(), skill.location().to_owned());
                self.skips.push(Skip { location: location.clone(), reason: SkipReason::DuplicateName, detail: None });
                self.shadow(skill, source.clone(), winner);
                self.warn(Warning::DuplicateName { name, location });
            }
            None => {
                self.index.insert(skill.name().to_owned(), self.skills.len());
                self.skills.push(skill);
                self.sources.push(source.clone());
            }
        }
    }

    /// Records that `loser` lost its name to the skill at index `winner`.
    fn shadow(&mut self, loser: Skill, source: Source, winner: usize) {
        let winner_location = self.skills[winner].location().to_owned();
        let winner_source = self.sources[winner].clone();
        self.shadowed.push(Shadowed { skill: loser, source, winner_location, winner_source });
    }

    /// The skill of a parse outcome, after recording its skip or its
    /// recovered-frontmatter warning.
    fn parsed(&mut self, outcome: read::Outcome) -> Option<Skill> {
        match outcome {
            Ok((skill, recovered)) => {
                if let Some(problem) = recovered {
                    self.warn(Warning::RecoveredFrontmatter { location: skill.location().to_owned(), problem });
                }
                Some(skill)
            }
            Err(skip) => {
                self.skips.push(skip);
                None
            }
        }
    }

    /// A store record: it takes the place of an earlier skill of its name,
    /// which is then shadowed by it.
    fn overlay(&mut self, skill: Skill) {
        let Some(&i) = self.index.get(skill.name()) else {
            return self.offer(Ok(skill), &Source::Store);
        };
        let loser = std::mem::replace(&mut self.skills[i], skill);
        let source = std::mem::replace(&mut self.sources[i], Source::Store);
        self.shadow(loser, source, i);
    }

    fn finish(mut self, filter: Filter, sample_limit: SampleLimit, symlinks: Symlinks, limits: Limits) -> Catalog {
        let filter_unmatched: Vec<String> =
            filter.names().filter(|n| !self.index.contains_key(*n)).map(str::to_owned).collect();
        for name in &filter_unmatched {
            self.warn(Warning::FilterUnmatched { name: name.clone() });
        }
        let exposed: Vec<usize> = (0..self.skills.len()).filter(|&i| filter.admits(self.skills[i].name())).collect();
        for skills in self.agents.values_mut() {
            skills.retain(|s| filter.admits(s.name()));
        }
        self.agents.retain(|_, skills| !skills.is_empty());
        // The exposed skills are the indexed ones the filter admits: the
        // index becomes the lookup without building (and cloning) it again.
        let mut by_name = self.index;
        if filter.names().next().is_some() {
            by_name.retain(|name, _| filter.admits(name));
        }
        Catalog {
            inner: Arc::new(Inner {
                skills: self.skills,
                exposed,
                by_name,
                skips: self.skips,
                warnings: self.warnings,
                filter_unmatched,
                shadowed: self.shadowed,
                agents: self.agents,
                walks: self.walks,
                confinement: Confinement::new(self.roots),
                store: self.store,
                sample_limit,
                symlinks,
                limits,
                search: OnceLock::new(),
            }),
        }
    }
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
///     .build()?;
/// assert_eq!(catalog.skills().map(|s| s.name()).collect::<Vec<_>>(), ["release"]);
/// assert_eq!(catalog.inventory().len(), 2);
/// assert_eq!(catalog.filter_unmatched(), ["typo"]);
/// assert!(catalog.get("triage").is_none());
/// # Ok::<(), skilldeck::BuildError>(())
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
    confinement: Confinement,
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

    /// Every skill that survived deduplication, filter or not, in collection
    /// order.
    pub fn inventory(&self) -> &[Skill] {
        &self.inner.skills
    }

    /// What of this catalog's files may leave a host as bytes (SPEC §11):
    /// regular files inside the roots, within [`MAX_SERVED_BYTES`](crate::MAX_SERVED_BYTES).
    /// Skill bodies are read under it; a server reads every other file through it.
    pub fn confinement(&self) -> &Confinement {
        &self.inner.confinement
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
    /// says so in [`Walk::limit_hit`](skilldeck_walk::Walk::limit_hit). A host
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
    /// let catalog = Catalog::builder().root(dir.path()).build()?;
    /// let walk = catalog.skill_files(catalog.get("hello").unwrap().dir().unwrap());
    /// let files: Vec<String> = walk.files.iter().map(|f| f.rel_path()).collect();
    /// assert_eq!(files, ["LICENSE", "SKILL.md", "scripts/hi.sh"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn skill_files(&self, dir: &Path) -> skilldeck_walk::Walk {
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
