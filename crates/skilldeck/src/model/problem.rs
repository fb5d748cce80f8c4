//! What a build says about what it could not use: a [`Skip`] for a candidate
//! that did not become a skill, a [`Warning`] for a source or a rule that did
//! not work out, and the [`YamlProblem`] both may carry. They belong to the
//! model, not the catalog, so that reading a file never reaches up into the
//! catalog that collects it.

use std::error::Error;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use skilldeck_walk::LimitHit;

/// A candidate that did not become a skill, and why.
///
/// # Example
///
/// ```
/// use skilldeck::{Catalog, SkipReason};
///
/// let dir = tempfile::tempdir()?;
/// std::fs::create_dir_all(dir.path().join("bad"))?;
/// std::fs::write(dir.path().join("bad/SKILL.md"), "---\nname: [unclosed\n---\n")?;
/// let catalog = Catalog::builder().root(dir.path()).build();
/// let skip = &catalog.skips()[0];
/// assert_eq!(skip.reason, SkipReason::MalformedFrontmatter);
/// assert_eq!(skip.position, Some((2, 7)));
/// assert_eq!(skip.detail.as_deref(), Some("unclosed bracket '[' at line 2, column 7"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Skip {
    /// The `SKILL.md` path, or a data skill's base (`skill://` without one).
    pub location: String,
    /// Why it was skipped.
    pub reason: SkipReason,
    /// What exactly was wrong, when there is more to say than the reason.
    pub detail: Option<String>,
    /// The 1-based line and column in the `SKILL.md` of the YAML problem
    /// that made the skip, when YAML knew where it was.
    pub position: Option<(u64, u64)>,
}

impl Skip {
    /// For a skill the audit refused ([`SkipReason::Risky`]), the line every
    /// surface says it with: `refused: LOCATION: FINDING`.
    ///
    /// ```
    /// use skilldeck::audit::Severity;
    /// use skilldeck::Catalog;
    /// use skilldeck::store::MemoryStore;
    /// # use std::sync::Arc;
    ///
    /// let store = MemoryStore::default();
    /// skilldeck::authoring::write_skill(&store, &skilldeck::authoring::WriteSkill::new("wipe", "---\nname: wipe\n---\n```sh\nrm -rf ~\n```\n").allow_risk(true))?;
    /// let catalog = Catalog::builder().store(Arc::new(store)).refuse_risk(Severity::High).build();
    /// let line = catalog.skips()[0].refusal().unwrap();
    /// assert!(line.starts_with("refused: "), "{line}");
    /// assert!(line.ends_with(": SKILL.md:5:1: critical exec.destructive-delete: a recursive delete of the home or root directory"), "{line}");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn refusal(&self) -> Option<String> {
        (self.reason == SkipReason::Risky)
            .then(|| format!("refused: {}: {}", self.location, self.detail.as_deref().unwrap_or_default()))
    }
}

/// Why a candidate was skipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SkipReason {
    /// No frontmatter, or no usable `name` in it.
    MissingName,
    /// The frontmatter is YAML that could not be read, and no `name` was rescued.
    MalformedFrontmatter,
    /// A skill of the same name came first.
    DuplicateName,
    /// The file could not be read, is not a regular file, or its frontmatter
    /// is not UTF-8.
    Unreadable,
    /// The frontmatter is larger than the configured cap.
    TooLarge,
    /// The name holds a control, format or separator character
    /// ([`check_name_characters`](crate::check_name_characters)): served,
    /// it would split or reorder the lines that list it.
    InvalidName,
    /// Run with `locked` ([`CatalogBuilder::locked`](crate::CatalogBuilder::locked)): an
    /// installed skill (in a project's `.agents/skills`) that its
    /// `skills-lock.json` does not name, or whose files differ from it.
    NotLocked,
    /// Run with `refuse_risk` ([`CatalogBuilder::refuse_risk`](crate::CatalogBuilder::refuse_risk)):
    /// the audit found something at or above the severity refused; the
    /// detail is the worst finding (`path:line:column: severity rule: message`).
    Risky,
}

impl SkipReason {
    /// The reason as toolnexus spells it: `missing-name`, `malformed-frontmatter`,
    /// `duplicate-name`, `unreadable` or `too-large`; and skilldeck's own
    /// `invalid-name`, `not-locked` and `risky`.
    pub fn as_str(self) -> &'static str {
        match self {
            SkipReason::MissingName => "missing-name",
            SkipReason::MalformedFrontmatter => "malformed-frontmatter",
            SkipReason::DuplicateName => "duplicate-name",
            SkipReason::Unreadable => "unreadable",
            SkipReason::TooLarge => "too-large",
            SkipReason::InvalidName => "invalid-name",
            SkipReason::NotLocked => "not-locked",
            SkipReason::Risky => "risky",
        }
    }
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error a [`Warning`] carries, shared by every clone of the catalog that
/// holds it. Two are equal when they are the same error or say the same
/// thing (warnings are compared in tests and by hosts).
///
/// ```
/// use skilldeck::{Catalog, Warning};
///
/// #[derive(Debug)]
/// struct Down;
/// impl std::fmt::Display for Down {
///     fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
///         f.write_str("the registry is down")
///     }
/// }
/// impl std::error::Error for Down {}
///
/// let catalog = Catalog::builder().provider(|| Err(Down.into())).build();
/// let Warning::ProviderFailed { error } = &catalog.warnings()[0] else { unreachable!() };
/// assert!(error.get().downcast_ref::<Down>().is_some());
/// assert_eq!(catalog.warnings()[0].to_string(), "skill provider failed: the registry is down");
/// ```
#[derive(Clone, Debug)]
pub struct SharedError(Arc<dyn Error + Send + Sync>);

impl SharedError {
    /// The error itself, to inspect or downcast.
    pub fn get(&self) -> &(dyn Error + Send + Sync + 'static) {
        &*self.0
    }
}

impl From<Box<dyn Error + Send + Sync>> for SharedError {
    fn from(error: Box<dyn Error + Send + Sync>) -> SharedError {
        SharedError(Arc::from(error))
    }
}

impl PartialEq for SharedError {
    fn eq(&self, other: &SharedError) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0.to_string() == other.0.to_string()
    }
}

impl Eq for SharedError {}

impl fmt::Display for SharedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// Something a user should know about a build that did not stop it. The
/// library never prints these; it returns them (and logs them with `tracing`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Warning {
    /// A root that is not an existing directory.
    RootNotFound {
        /// The root as given.
        root: PathBuf,
    },
    /// A later skill lost to an earlier one of the same name.
    DuplicateName {
        /// The shared name.
        name: String,
        /// The loser's location.
        location: String,
    },
    /// A filter entry that named no skill.
    FilterUnmatched {
        /// The filter entry.
        name: String,
    },
    /// The provider failed; the other sources still loaded.
    ProviderFailed {
        /// The provider's own error, as it returned it.
        error: SharedError,
    },
    /// YAML refused a frontmatter, and the line-wise fallback rescued it.
    RecoveredFrontmatter {
        /// The `SKILL.md` path.
        location: String,
        /// What YAML said.
        problem: YamlProblem,
    },
    /// A walk stopped at one of its limits, so skills may be missing.
    WalkLimit {
        /// The root being walked.
        root: PathBuf,
        /// The limit reached.
        limit: LimitHit,
    },
    /// The skill store could not be read; the other sources still loaded.
    StoreFailed {
        /// The store's error message.
        message: String,
    },
    /// An installed skill (in a project's `.agents/skills`) whose files are
    /// not those its project's `skills-lock.json` records.
    ModifiedSinceInstall {
        /// The skill (its directory's name, which the lock is keyed by).
        name: String,
        /// The first file that differs, `/`-separated below the skill.
        file: String,
        /// How it differs.
        change: FileChange,
        /// The lock.
        lock: PathBuf,
    },
    /// A project's `skills-lock.json` that cannot be read: its installed
    /// skills are not checked (and, `locked`, not exposed).
    LockUnreadable {
        /// The lock.
        lock: PathBuf,
        /// Why.
        message: String,
    },
    /// The skill store could not be read during a reload; its skills are
    /// the last copy an earlier build of the live catalog read.
    StoreStale {
        /// The store's error message.
        message: String,
    },
}

impl Warning {
    /// A stable kebab-case name of the kind, for JSON and filtering.
    pub fn kind(&self) -> &'static str {
        match self {
            Warning::RootNotFound { .. } => "root-not-found",
            Warning::DuplicateName { .. } => "duplicate-name",
            Warning::FilterUnmatched { .. } => "filter-unmatched",
            Warning::ProviderFailed { .. } => "provider-failed",
            Warning::RecoveredFrontmatter { .. } => "recovered-frontmatter",
            Warning::WalkLimit { .. } => "walk-limit",
            Warning::StoreFailed { .. } => "store-failed",
            Warning::StoreStale { .. } => "store-stale",
            Warning::ModifiedSinceInstall { .. } => "modified-since-install",
            Warning::LockUnreadable { .. } => "lock-unreadable",
        }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::RootNotFound { root } => write!(f, "skills dir not found: {}", root.display()),
            Warning::DuplicateName { name, location } => {
                write!(f, "duplicate skill name \"{name}\" ({location}) \u{2014} keeping first")
            }
            Warning::FilterUnmatched { name } => write!(f, "skill filter name \"{name}\" matched no skill"),
            Warning::ProviderFailed { error } => write!(f, "skill provider failed: {error}"),
            Warning::RecoveredFrontmatter { location, problem } => {
                write!(f, "recovered-frontmatter: {location}: {problem}; name and description were read line by line")
            }
            Warning::WalkLimit { root, limit } => {
                write!(f, "walk of {} stopped at the {limit}; skills below it may be missing", root.display())
            }
            Warning::StoreFailed { message } => write!(f, "skill store failed: {message}"),
            Warning::StoreStale { message } => {
                write!(f, "skill store failed: {message}; serving the last good copy of its skills")
            }
            Warning::ModifiedSinceInstall { name, file, change, lock } => {
                write!(f, "skill \"{name}\" modified since install: {file} {change} (against {})", lock.display())
            }
            Warning::LockUnreadable { lock, message } => {
                write!(f, "{}: {message}; its installed skills are not checked", lock.display())
            }
        }
    }
}

/// How an installed file differs from what the lock records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FileChange {
    /// Other bytes than the lock's digest.
    Modified,
    /// In the lock, not on disk.
    Missing,
    /// On disk, not in the lock.
    Extra,
}

impl FileChange {
    /// `modified`, `missing` or `extra`, as `skilldeck verify` says it.
    pub fn as_str(self) -> &'static str {
        match self {
            FileChange::Modified => "modified",
            FileChange::Missing => "missing",
            FileChange::Extra => "extra",
        }
    }
}

impl fmt::Display for FileChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why YAML would not give a frontmatter mapping, with the position in the
/// `SKILL.md` (1-based lines of the whole file) when YAML knew one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct YamlProblem {
    /// What went wrong, in YAML's words.
    pub message: String,
    /// The `SKILL.md` line and column, when known.
    pub position: Option<(u64, u64)>,
    /// Whether the YAML parser refused the text (as opposed to parsing it into
    /// something that is not a usable frontmatter).
    pub refused: bool,
}

impl fmt::Display for YamlProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.position {
            Some((line, column)) => write!(f, "{} at line {line}, column {column}", self.message),
            None => f.write_str(&self.message),
        }
    }
}
