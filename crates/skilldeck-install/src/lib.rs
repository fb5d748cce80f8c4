//! skilldeck-install: getting Agent Skills from their sources into a
//! project, and the lock that pins them. That is its one job; what the skills
//! are and how they are served is the engine's (`skilldeck`), whose discovery
//! and validation it uses.
//!
//! - [`Source`]: what a user types as SOURCE (a git URL, GitHub's
//!   `owner/repo[/path][@ref]`, a local directory).
//! - [`GitCache`]: repositories fetched with the user's own `git` program
//!   into a cache shared by projects (`$XDG_CACHE_HOME/skilldeck/git`), so
//!   the user's credential helpers and SSH agent work for private
//!   repositories, and a partial clone (`--filter=blob:none`) fetches the
//!   blobs of the chosen skills only. gitoxide (`gix` 0.61) was measured
//!   against it and cloned a whole repository twice as fast, but has no
//!   partial clone, which is what keeps a one-skill add of a large registry
//!   cheap (see the README).
//! - [`Lock`]: `skills-lock.json` in the format of the `skills` package on
//!   npm, `computedHash` computed as it computes it ([`computed_hash`]), plus
//!   the ref asked for, the commit installed and every file's digest.
//! - [`Project`]: `add`, `install` (what the lock says, `frozen` or not),
//!   `remove`, `verify`, `update`, each staged and renamed into place, the
//!   lock written atomically last. `add` and `update` audit what they stage
//!   and refuse a skill with a finding at [`RISKY`](skilldeck::audit::RISKY) or above unless the
//!   risk is allowed; `install` installs what the lock already accepted.
//!
//! # Example
//!
//! ```no_run
//! use skilldeck_install::{AddOptions, GitCache, Project, Source};
//!
//! let project = Project::new(".", GitCache::user()?);
//! project.add(&Source::parse("https://github.com/anthropics/skills.git#main")?, &AddOptions::default())?;
//! // Later, or in CI, from the committed skills-lock.json:
//! project.install(true)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod commit;
mod files;
mod git;
mod install;
mod links;
mod lock;
mod risk;
mod source;

pub use files::{FilesError, MAX_FILE_BYTES, MAX_FILES};
pub use git::{GitCache, GitError, Repo};
pub use install::{AddOptions, Diff, Found, InstallError, Installed, PROJECT_SKILLS_DIR, Project, Update, Verified};
pub use links::{HOSTS, Host, host};
pub use lock::{
    GLOBAL_LOCK_FILE, GLOBAL_LOCK_VERSION, LOCK_FILE, LOCK_VERSION, Lock, LockEntry, LockError, computed_hash,
};
pub use source::{Location, Source, SourceError, SourceType};
