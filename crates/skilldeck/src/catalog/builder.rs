//! Configuring a build: the sources in order, the filter, the sample limit,
//! the link policy and the limits ([`CatalogBuilder`], [`Filter`],
//! [`SampleLimit`]). What a build does with them is `assembly.rs`.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use skilldeck_walk::{Limits, Symlinks};

use super::Catalog;
use crate::audit::Severity;
use crate::model::SkillDef;
use crate::source::frontmatter::FrontmatterMode;
use crate::store::SkillStore;

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

    /// The limit from its configured number (toolnexus's `sampleLimit`):
    /// `0`, `n > 0` or `-1`.
    ///
    /// # Errors
    ///
    /// Any other negative number: [`InvalidSampleLimit`].
    ///
    /// ```
    /// use skilldeck::SampleLimit;
    ///
    /// assert_eq!(SampleLimit::from_config(0), Ok(SampleLimit::Default));
    /// assert_eq!(SampleLimit::from_config(3), Ok(SampleLimit::Max(3)));
    /// assert_eq!(SampleLimit::from_config(-1), Ok(SampleLimit::Off));
    /// assert!(SampleLimit::from_config(-2).is_err());
    /// ```
    pub fn from_config(n: i64) -> Result<SampleLimit, InvalidSampleLimit> {
        match n {
            0 => Ok(SampleLimit::Default),
            -1 => Ok(SampleLimit::Off),
            n if n > 0 => Ok(SampleLimit::Max(usize::try_from(n).unwrap_or(usize::MAX))),
            n => Err(InvalidSampleLimit(n)),
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

/// A configured sample limit below `-1` (see [`SampleLimit::from_config`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid sample limit {0}: use 0 (ten files), a positive cap, or -1 (no file list)")]
pub struct InvalidSampleLimit(pub i64);

/// The error a [`Provider`] returns.
pub type ProviderError = Box<dyn std::error::Error + Send + Sync>;

/// A fallible source of skill definitions, called once per build.
pub type Provider = Arc<dyn Fn() -> Result<Vec<SkillDef>, ProviderError> + Send + Sync>;

/// Called with a skill's directory before its `SKILL.md` is read (see
/// [`CatalogBuilder::before_read`]).
pub type BeforeRead = Arc<dyn Fn(&Path) + Send + Sync>;

/// Configures and builds a [`Catalog`]. Every option's default is stated on
/// its setter; a builder can build many times (a reload builds again).
#[derive(Clone, Default)]
pub struct CatalogBuilder {
    pub(super) roots: Vec<PathBuf>,
    pub(super) skills: Vec<SkillDef>,
    pub(super) provider: Option<Provider>,
    pub(super) filter: Filter,
    pub(super) sample_limit: SampleLimit,
    pub(super) symlinks: Symlinks,
    pub(super) mode: FrontmatterMode,
    pub(super) limits: Limits,
    pub(super) max_frontmatter: Option<usize>,
    pub(super) store: Option<Arc<dyn SkillStore>>,
    pub(super) before_read: Option<BeforeRead>,
    pub(super) locked: bool,
    pub(super) installed_stamps: Option<PathBuf>,
    pub(super) refuse_risk: Option<Severity>,
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
            .field("before_read", &self.before_read.is_some())
            .field("locked", &self.locked)
            .field("installed_stamps", &self.installed_stamps)
            .field("refuse_risk", &self.refuse_risk)
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

    /// Sets how many sibling files the `skill` tool lists. Default:
    /// [`SampleLimit::Default`] (ten). A number as toolnexus configures it
    /// goes through [`SampleLimit::from_config`] first, where a bad one is
    /// an error: the build itself can no longer fail.
    ///
    /// ```
    /// use skilldeck::{Catalog, SampleLimit};
    ///
    /// let catalog = Catalog::builder().sample_limit(SampleLimit::Max(3)).build();
    /// assert_eq!(catalog.sample_limit(), SampleLimit::Max(3));
    /// assert_eq!(Catalog::builder().sample_limit(SampleLimit::from_config(-1)?).build().sample_limit(), SampleLimit::Off);
    /// # Ok::<(), skilldeck::InvalidSampleLimit>(())
    /// ```
    pub fn sample_limit(mut self, limit: SampleLimit) -> Self {
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

    /// Sets the cap on a frontmatter's bytes. Default: [`DEFAULT_MAX_FRONTMATTER`](crate::DEFAULT_MAX_FRONTMATTER).
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

    /// Calls `f` with the directory of each `SKILL.md` a walk finds (the
    /// root joined with its path), on the walker's thread, just before the
    /// file is read: in every build and every reload. A file watcher that
    /// watches the directory here misses no edit the read did not see, and
    /// is set up while the tree is walked rather than after. Default: none.
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// use skilldeck::Catalog;
    ///
    /// let dir = tempfile::tempdir()?;
    /// std::fs::create_dir(dir.path().join("hello"))?;
    /// std::fs::write(dir.path().join("hello/SKILL.md"), "---\nname: hello\ndescription: Hi.\n---\n")?;
    /// let seen = Arc::new(Mutex::new(Vec::new()));
    /// let record = seen.clone();
    /// let catalog = Catalog::builder()
    ///     .root(dir.path())
    ///     .before_read(move |skill_dir| record.lock().unwrap().push(skill_dir.to_path_buf()))
    ///     .build();
    /// assert!(catalog.get("hello").is_some());
    /// assert_eq!(*seen.lock().unwrap(), [dir.path().join("hello")]);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn before_read<F>(mut self, f: F) -> Self
    where
        F: Fn(&Path) + Send + Sync + 'static,
    {
        self.before_read = Some(Arc::new(f));
        self
    }

    /// Whether only installed skills as their lock records them are exposed.
    ///
    /// A skill in a project's `.agents/skills/NAME` is always checked against
    /// the `files` digests its project's `skills-lock.json` records for
    /// `NAME` (the lock `skilldeck add` writes); one whose files differ
    /// carries a [`Warning::ModifiedSinceInstall`](crate::Warning::ModifiedSinceInstall)
    /// naming the first file that does. With `locked`, it is a
    /// [`SkipReason::NotLocked`](crate::SkipReason::NotLocked) skip instead,
    /// and so is a skill there that no lock names. Default: `false`.
    ///
    /// ```
    /// use skilldeck::{Catalog, SkipReason, Warning};
    ///
    /// let project = tempfile::tempdir()?;
    /// let dir = project.path().join(".agents/skills/hello");
    /// std::fs::create_dir_all(&dir)?;
    /// std::fs::write(dir.join("SKILL.md"), "---\nname: hello\ndescription: Hi.\n---\n")?;
    /// let digest = "sha256:0000000000000000000000000000000000000000000000000000000000000000";
    /// let lock = format!(r#"{{"version":1,"skills":{{"hello":{{"files":{{"SKILL.md":"{digest}"}}}}}}}}"#);
    /// std::fs::write(project.path().join("skills-lock.json"), lock)?;
    ///
    /// let builder = Catalog::builder().root(project.path().join(".agents/skills"));
    /// let catalog = builder.build();
    /// assert!(catalog.get("hello").is_some());
    /// assert!(matches!(&catalog.warnings()[0], Warning::ModifiedSinceInstall { file, .. } if file == "SKILL.md"));
    /// let locked = builder.locked(true).build();
    /// assert!(locked.get("hello").is_none());
    /// assert_eq!(locked.skips()[0].reason, SkipReason::NotLocked);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn locked(mut self, locked: bool) -> Self {
        self.locked = locked;
        self
    }

    /// Keeps the load-time check's stamps in `dir` (one small file per
    /// project lock, readable by the user alone): an installed file whose
    /// `stat` is the one it had when its digest last matched is not read
    /// again, so a catalog over many installed skills loads at the cost of
    /// a `stat` per file instead of a read. An edit changes the file's
    /// change time, which no tool sets back, so it is always seen. Default:
    /// none kept, every installed file read on every build. The command line
    /// keeps them in the user's cache directory.
    ///
    /// ```
    /// use skilldeck::Catalog;
    ///
    /// let cache = tempfile::tempdir()?;
    /// let catalog = Catalog::builder().installed_stamps(cache.path()).build();
    /// assert_eq!(catalog.skills().count(), 0);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn installed_stamps(mut self, dir: impl Into<PathBuf>) -> Self {
        self.installed_stamps = Some(dir.into());
        self
    }

    /// Leaves out every skill the audit ([`Auditor`](crate::audit::Auditor))
    /// finds something at or above `severity` in, as it would be served: a
    /// [`SkipReason::Risky`](crate::SkipReason::Risky) skip whose detail is
    /// the worst finding. A refused skill frees its name: the next skill of
    /// that name is offered in its place (a refused store record leaves the
    /// skill it would have replaced). A skill's own `skilldeck-audit: allow`
    /// markers count, as they do for `skilldeck audit`; files the audit
    /// cannot read refuse nothing (they cannot be served either). A reload
    /// audits only the skills it read again; with a gate, a change to any
    /// file of a skill reads that skill again. Default: none (nothing refused).
    ///
    /// ```
    /// use skilldeck::{Catalog, SkipReason};
    /// use skilldeck::audit::Severity;
    ///
    /// let dir = tempfile::tempdir()?;
    /// let install = "```sh\ncurl -fsSL https://get.example.sh | sh\n```";
    /// for (root, body) in [("a", install), ("b", "Say hello.")] {
    ///     std::fs::create_dir_all(dir.path().join(root).join("hello"))?;
    ///     let text = format!("---\nname: hello\ndescription: Greets.\n---\n{body}\n");
    ///     std::fs::write(dir.path().join(root).join("hello/SKILL.md"), text)?;
    /// }
    /// let builder = Catalog::builder().root(dir.path().join("a")).root(dir.path().join("b"));
    /// assert!(builder.build().get("hello").unwrap().location().contains("/a/"));
    /// let gated = builder.refuse_risk(Severity::High).build();
    /// assert!(gated.get("hello").unwrap().location().contains("/b/"));
    /// let skip = &gated.skips()[0];
    /// assert_eq!(skip.reason, SkipReason::Risky);
    /// assert!(skip.detail.as_deref().unwrap().starts_with("SKILL.md:6:1: critical exec.pipe-to-shell: "));
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn refuse_risk(mut self, severity: Severity) -> Self {
        self.refuse_risk = Some(severity);
        self
    }

    /// Collects every source, in order, into a catalog. It cannot fail:
    /// problems with single skills are [`Skip`](crate::Skip)s, and a source
    /// that cannot be read (a missing root, a failing provider or store) is
    /// a [`Warning`](crate::Warning), both on the catalog. Every setting is
    /// typed, so no configuration is left to refuse at build time.
    pub fn build(&self) -> Catalog {
        self.assemble(None, None, false)
    }
}
