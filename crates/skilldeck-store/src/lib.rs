//! The persistent backends of skilldeck's [`SkillStore`]: authored skills,
//! agent profiles, and their histories.
//!
//! * [`SqliteStore`]: one SQLite file, the embedded default, safe to share
//!   between processes on one machine.
//! * [`PostgresStore`] (feature `postgres`): one PostgreSQL database shared by
//!   several hosts, with change notification so that each of them reloads.
//!
//! Both follow [`skilldeck::store::MemoryStore`] exactly, through the rules the
//! engine shares with every backend ([`StoredSkill::next`],
//! [`restored_version`]; for profiles, one encoding in columns and one plan
//! of what an update writes, in `profile.rs`); the tests run one body
//! against each. [`open`] picks the backend from what the user typed.
//!
//! [`SkillStore`]: skilldeck::store::SkillStore
//! [`StoredSkill::next`]: skilldeck::store::StoredSkill::next
//! [`restored_version`]: skilldeck::store::restored_version

#[cfg(feature = "postgres")]
mod postgres;
mod profile;
mod sqlite;

#[cfg(feature = "postgres")]
pub use postgres::{CONNECT_TIMEOUT, PostgresStore};
pub use sqlite::{BUSY_TIMEOUT, ForeignSchema, SqliteStore};

use std::time::Duration;

use skilldeck::store::{SkillStore, StoreError};

/// How long each call may take once a store is open: a PostgreSQL call
/// waits at most this for the server (then drops its connection); a SQLite
/// call still running this long after it began is interrupted
/// ([`SqliteStore::with_call_timeout`] sets another).
pub const CALL_TIMEOUT: Duration = Duration::from_secs(10);

/// A failure inside a backend call, before the backend adds its location:
/// the driver's (`E`), the store's own words (`Own`), or a whole store error.
enum Failure<E> {
    Driver(E),
    // Only PostgreSQL makes these (before it knows its location); SQLite
    // only matches them.
    #[cfg_attr(not(feature = "postgres"), allow(dead_code))]
    Own(String),
    Store(StoreError),
}

impl<E> From<StoreError> for Failure<E> {
    fn from(e: StoreError) -> Self {
        Failure::Store(e)
    }
}

/// Whether `location` names a PostgreSQL database rather than a file.
///
/// ```
/// assert!(skilldeck_store::is_postgres_url("postgres://localhost/skills"));
/// assert!(skilldeck_store::is_postgres_url("postgresql://localhost/skills"));
/// assert!(!skilldeck_store::is_postgres_url("skills.sqlite"));
/// ```
pub fn is_postgres_url(location: &str) -> bool {
    location.starts_with("postgres://") || location.starts_with("postgresql://")
}

/// Opens the store at `location`: a `postgres://` or `postgresql://` URL
/// opens a [`PostgresStore`], anything else is the path of a [`SqliteStore`].
///
/// # Errors
///
/// What the backend's `open` reports; a PostgreSQL URL in a build without the
/// `postgres` feature is refused.
///
/// # Example
///
/// ```
/// use skilldeck::store::SkillStore;
///
/// let dir = tempfile::tempdir()?;
/// let store = skilldeck_store::open(dir.path().join("skills.db").to_str().unwrap())?;
/// store.write("pedido", "---\nname: pedido\n---\n", None, &skilldeck::store::Precondition::Any)?;
/// assert_eq!(store.names(None)?, ["pedido"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn open(location: &str) -> Result<Box<dyn SkillStore>, StoreError> {
    if is_postgres_url(location) {
        #[cfg(feature = "postgres")]
        return Ok(Box::new(PostgresStore::open(location)?));
        #[cfg(not(feature = "postgres"))]
        return Err(StoreError::backend(
            location.split('@').next_back().unwrap_or_default(),
            "this build has no PostgreSQL support (feature `postgres`)",
        ));
    }
    Ok(Box::new(SqliteStore::open(location)?))
}

// A store is shared by every thread of a host (`Arc<dyn SkillStore>` needs
// both): a change that made a backend lose `Send` or `Sync` must fail here.
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<SqliteStore>();
    #[cfg(feature = "postgres")]
    send_sync::<PostgresStore>();
};
