//! [`SqliteStore`]: authored skills and their history in one SQLite file,
//! safe to share between processes on one machine.
//!
//! It follows [`skilldeck::store::MemoryStore`] exactly: the history rule is
//! [`StoredSkill::next`] and the restore checks are [`restored_version`], both
//! shared with every other backend. What this module adds is the file: the
//! schema, its migrations, and one `BEGIN IMMEDIATE` transaction per write, so
//! two processes writing the same store lose nothing and a crash mid-write
//! leaves the old record or the new one.
//!
//! # The file
//!
//! * `skill(id, agent, name, content, updated_at)`: one row per record;
//!   `agent` is `NULL` for the shared scope and the agent id otherwise (an id
//!   that passes [`check_name`](skilldeck::check_name), as the name does:
//!   a blank one is refused, as in `MemoryStore`; taking a blank agent for
//!   "shared" is the command layer's business, not the store's).
//! * `skill_version(skill_id, idx, content, at)`: the history, `idx` 0 the most
//!   recent; deleted with its record.
//! * `profile(id, agent, skills, eager, updated_at)`: one row per agent
//!   profile, `agent` its id; `skills` and `eager` encoded as every backend
//!   encodes them (`NULL` or a JSON list; `none`, `all` or a JSON list).
//!   Added by schema version 2: a file of version 1 gets the empty tables
//!   when first opened, its records untouched.
//! * `profile_version(profile_id, idx, skills, eager, at)`: a profile's
//!   history, as `skill_version` is a record's; deleted with its profile.
//! * `PRAGMA user_version` is the schema version, `PRAGMA application_id` marks
//!   the file as a skill store; `journal_mode=WAL`; `synchronous=FULL`, so a
//!   write that returned survives a power cut too, not only a killed process
//!   (authoring is rare, the fsync per write costs nothing that matters).
//! * The [change token](SkillStore::change_token) is SQLite's `data_version`:
//!   it moves for other connections' writes, not for this handle's own.
//!
//! # A file is data, never code
//!
//! Whoever can write the file could plant SQL that runs inside the store's
//! own statements: a trigger that empties the history on every write, a
//! view, a table's changed definition. So the schema is read before
//! anything is written and must be exactly what [`MIGRATIONS`] make
//! ([`ForeignSchema`] otherwise, naming the object), and again in every
//! write transaction whose schema changed since (`PRAGMA schema_version`);
//! `trusted_schema` is off and the connection is defensive, so no schema
//! object may call a function with side effects or corrupt the file.
//!
//! # Deadlines
//!
//! A call waits at most [`BUSY_TIMEOUT`] for another connection's lock, and
//! a call still running [`CALL_TIMEOUT`] after it began is interrupted by a
//! progress handler: a pathological file cannot hang its host.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use rusqlite::config::DbConfig;
use rusqlite::{Connection, ErrorCode, OpenFlags, OptionalExtension, Transaction, TransactionBehavior, params};
use skilldeck::AgentProfile;
use skilldeck::store::{
    Precondition, ProfileVersion, Record, SkillStore, StoreError, StoredSkill, Version, may_write, now_utc,
    restored_version,
};

use crate::CALL_TIMEOUT;
use crate::profile::{self, Columns, Kept, Step};

mod schema;

pub use schema::ForeignSchema;

/// A failure inside a call, before it is given the store's location.
type Failure = crate::Failure<rusqlite::Error>;

impl From<rusqlite::Error> for Failure {
    fn from(e: rusqlite::Error) -> Self {
        Failure::Driver(e)
    }
}

/// How long a call waits for another connection's write to finish before it
/// fails with [`StoreError::Backend`].
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// How long [`SqliteStore::open`] waits before it tries again after losing a
/// race to set up the file.
const RETRY_PAUSE: Duration = Duration::from_millis(20);

/// How many virtual machine steps SQLite takes between two looks at the
/// call's deadline: a look is one clock read, a step a few nanoseconds.
const DEADLINE_STEPS: i32 = 1000;

/// `PRAGMA application_id` of a skill store: "SKLD".
const APPLICATION_ID: i32 = 0x534B_4C44;

/// The schema, one step per version: step `i` takes `user_version` from `i`
/// to `i + 1`. Steps are only ever appended.
const MIGRATIONS: &[&str] = &[
    "
    CREATE TABLE skill (
        id INTEGER PRIMARY KEY,
        agent TEXT,
        name TEXT NOT NULL,
        content TEXT NOT NULL,
        updated_at TEXT NOT NULL
    ) STRICT;
    CREATE UNIQUE INDEX skill_agent_name ON skill (agent, name);
    CREATE UNIQUE INDEX skill_shared_name ON skill (name) WHERE agent IS NULL;
    CREATE TABLE skill_version (
        skill_id INTEGER NOT NULL REFERENCES skill (id) ON DELETE CASCADE,
        idx INTEGER NOT NULL,
        content TEXT NOT NULL,
        at TEXT NOT NULL,
        PRIMARY KEY (skill_id, idx)
    ) STRICT;
",
    "
    CREATE TABLE profile (
        id INTEGER PRIMARY KEY,
        agent TEXT NOT NULL UNIQUE,
        skills TEXT,
        eager TEXT NOT NULL,
        updated_at TEXT NOT NULL
    ) STRICT;
    CREATE TABLE profile_version (
        profile_id INTEGER NOT NULL REFERENCES profile (id) ON DELETE CASCADE,
        idx INTEGER NOT NULL,
        skills TEXT,
        eager TEXT NOT NULL,
        at TEXT NOT NULL,
        PRIMARY KEY (profile_id, idx)
    ) STRICT;
",
];

/// A [`SkillStore`] in one SQLite file.
///
/// Every handle, in this process or another, sees every committed write. The
/// handle holds one connection behind a mutex: calls from many threads take
/// turns, as SQLite's single writer would make them anyway.
///
/// # Example
///
/// ```
/// use skilldeck::store::{Precondition, SkillStore};
/// use skilldeck_store::SqliteStore;
///
/// let dir = tempfile::tempdir()?;
/// let store = SqliteStore::open(dir.path().join("skills.db"))?;
/// store.write("pedido", "---\nname: pedido\n---\nv1\n", None, &Precondition::Any)?;
/// store.write("pedido", "---\nname: pedido\n---\nv2\n", None, &Precondition::Any)?;
/// drop(store);
///
/// let store = SqliteStore::open(dir.path().join("skills.db"))?;
/// assert_eq!(store.get("pedido", None)?.unwrap().content, "---\nname: pedido\n---\nv2\n");
/// assert_eq!(store.versions("pedido", None)?[0].content, "---\nname: pedido\n---\nv1\n");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct SqliteStore {
    path: PathBuf,
    conn: Mutex<Connection>,
    /// The running call's deadline, read by the connection's progress handler.
    deadline: Arc<Deadline>,
    /// How long a call may run: [`CALL_TIMEOUT`] unless set.
    call_timeout: Duration,
    /// The `schema_version` whose schema was last found to be skilldeck's.
    checked_schema: AtomicI64,
}

/// When the running call must stop, as nanoseconds after `origin`
/// (`u64::MAX`: no call is running).
struct Deadline {
    origin: Instant,
    at: AtomicU64,
}

impl Deadline {
    fn new() -> Deadline {
        Deadline { origin: Instant::now(), at: AtomicU64::new(u64::MAX) }
    }

    fn start(&self, timeout: Duration) {
        let at = (self.origin.elapsed() + timeout).as_nanos();
        self.at.store(u64::try_from(at).unwrap_or(u64::MAX), Ordering::Relaxed);
    }

    fn passed(&self) -> bool {
        u64::try_from(self.origin.elapsed().as_nanos()).unwrap_or(u64::MAX) > self.at.load(Ordering::Relaxed)
    }
}

impl fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SqliteStore").field("path", &self.path).finish_non_exhaustive()
    }
}

fn backend(path: &Path, message: impl Into<String>) -> StoreError {
    StoreError::backend(path.display().to_string(), message)
}

/// Why SQLite could not open `path`, in plainer words than its own, when
/// the reason is a common one.
fn unopenable(path: &Path) -> Option<String> {
    if path.is_dir() {
        return Some("a directory, not a file".to_owned());
    }
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty())?;
    (!parent.is_dir()).then(|| format!("no such directory: {}", parent.display()))
}

fn is_busy(e: &rusqlite::Error) -> bool {
    e.sqlite_error_code() == Some(ErrorCode::DatabaseBusy)
}

/// The driver's error in words, kept as the error's source; `timeout` is
/// the deadline of the call it ended.
fn sql_error(path: &Path, e: rusqlite::Error, timeout: Duration) -> StoreError {
    if is_busy(&e) {
        let secs = BUSY_TIMEOUT.as_secs();
        return backend(path, format!("{e}: another connection kept it locked (waited up to {secs} s)")).caused_by(e);
    }
    if e.sqlite_error_code() == Some(ErrorCode::OperationInterrupted) {
        return backend(path, format!("a call ran past its deadline ({timeout:?}) and was interrupted")).caused_by(e);
    }
    backend(path, e.to_string()).caused_by(e)
}

/// The refusal of a file whose schema is not skilldeck's.
fn foreign(path: &Path, why: ForeignSchema) -> StoreError {
    backend(path, format!("{why}: refusing to use it")).caused_by(why)
}

impl SqliteStore {
    /// Opens the store at `path`, creating the file if it is missing and
    /// bringing an older schema up to date, in one transaction.
    ///
    /// # Errors
    ///
    /// [`StoreError::Backend`], naming the file, when it cannot be opened or
    /// created (a missing directory, a directory, no permission), is not a
    /// SQLite database, is another program's database, holds schema objects
    /// skilldeck did not make (its source a [`ForeignSchema`] naming one), or
    /// was written by a newer version of this crate. A refused file is left
    /// as it was.
    ///
    /// # Example
    ///
    /// ```
    /// use skilldeck_store::SqliteStore;
    ///
    /// let dir = tempfile::tempdir()?;
    /// let garbage = dir.path().join("notes.txt");
    /// std::fs::write(&garbage, "not a database, just some words ".repeat(100))?;
    /// let err = SqliteStore::open(&garbage).unwrap_err();
    /// assert!(err.to_string().contains("notes.txt"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open(path: impl AsRef<Path>) -> Result<SqliteStore, StoreError> {
        let path = path.as_ref().to_path_buf();
        let deadline = Instant::now() + BUSY_TIMEOUT;
        let call = Arc::new(Deadline::new());
        loop {
            match Self::connect(&path, &call) {
                Ok((conn, schema)) => {
                    let checked_schema = AtomicI64::new(schema);
                    let (conn, deadline, call_timeout) = (Mutex::new(conn), call, CALL_TIMEOUT);
                    return Ok(SqliteStore { path, conn, deadline, call_timeout, checked_schema });
                }
                // Two connections setting up one file can each hold what the
                // other waits for (switching to WAL needs the file to
                // itself); SQLite then fails one at once instead of calling
                // the busy handler. Every step is idempotent: start again.
                Err(Failure::Driver(e)) if is_busy(&e) && Instant::now() < deadline => std::thread::sleep(RETRY_PAUSE),
                Err(Failure::Driver(e)) => return Err(sql_error(&path, e, CALL_TIMEOUT)),
                Err(Failure::Own(message)) => return Err(backend(&path, message)),
                Err(Failure::Store(e)) => return Err(e),
            }
        }
    }

    /// This store with calls that may run `timeout` rather than
    /// [`CALL_TIMEOUT`]: a call still running that long after it began
    /// fails with [`StoreError::Backend`], whose source is SQLite's
    /// `SQLITE_INTERRUPT` ([`ErrorCode::OperationInterrupted`]).
    ///
    /// # Example
    ///
    /// ```
    /// use std::error::Error;
    /// use std::time::Duration;
    /// use skilldeck::store::{Precondition, SkillStore};
    /// use skilldeck_store::SqliteStore;
    ///
    /// let dir = tempfile::tempdir()?;
    /// let store = SqliteStore::open(dir.path().join("skills.db"))?;
    /// for i in 0..200 {
    ///     store.write(&format!("s{i}"), "---\nname: s\n---\n", None, &Precondition::Any)?;
    /// }
    /// let store = store.with_call_timeout(Duration::ZERO);
    /// let late = store.all(None).unwrap_err();
    /// let sqlite = late.source().and_then(|s| s.downcast_ref::<rusqlite::Error>()).unwrap();
    /// assert_eq!(sqlite.sqlite_error_code(), Some(rusqlite::ErrorCode::OperationInterrupted));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn with_call_timeout(mut self, timeout: Duration) -> SqliteStore {
        self.call_timeout = timeout;
        self
    }

    /// A connection to `path`, set up, with the `schema_version` whose schema
    /// it checked.
    fn connect(path: &Path, deadline: &Arc<Deadline>) -> Result<(Connection, i64), Failure> {
        // No SQLITE_OPEN_URI: a path is a path, even one that starts with "file:".
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let mut conn = Connection::open_with_flags(path, flags).map_err(|e| match unopenable(path) {
            Some(why) => backend(path, why).into(),
            None => Failure::Driver(e),
        })?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        // The file's schema is data, never code (see the module docs).
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_TRUSTED_SCHEMA, false)?;
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_DEFENSIVE, true)?;
        let handler = Arc::clone(deadline);
        conn.progress_handler(DEADLINE_STEPS, Some(move || handler.passed()))?;
        deadline.start(CALL_TIMEOUT);
        // Whose file it is, before anything is written to it (even the
        // switch to WAL rewrites the header).
        Self::check_owner(path, &conn)?;
        let mode: String = conn.pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(backend(path, format!("cannot use write-ahead logging (journal mode stays {mode})")).into());
        }
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.pragma_update(None, "foreign_keys", true)?;
        Self::migrate(path, &mut conn)?;
        let schema = schema_cookie(&conn)?;
        deadline.at.store(u64::MAX, Ordering::Relaxed);
        Ok((conn, schema))
    }

    /// Applies the missing [`MIGRATIONS`] in one transaction. An up-to-date
    /// file is only read; two processes setting up a new file take turns, and
    /// the second finds it done.
    fn migrate(path: &Path, conn: &mut Connection) -> Result<(), Failure> {
        if Self::schema_version(path, conn)? == MIGRATIONS.len() {
            return Ok(());
        }
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let from = Self::schema_version(path, &tx)?;
        if from == 0 {
            // Checked again under the write lock: the file is claimed in this transaction.
            Self::check_owner(path, &tx)?;
            tx.pragma_update(None, "application_id", APPLICATION_ID)?;
        }
        for (next, sql) in (1_i64..).zip(MIGRATIONS).skip(from) {
            tx.execute_batch(sql)?;
            tx.pragma_update(None, "user_version", next)?;
        }
        tx.commit()?;
        Ok(())
    }

    /// Refuses a file that is not a skill store: another `application_id`,
    /// or none and tables already in it (another program's database), or a
    /// store whose schema is not what skilldeck made. Only reads; a file
    /// that is not a database at all fails on the first read.
    fn check_owner(path: &Path, conn: &Connection) -> Result<(), Failure> {
        // One statement, so one snapshot: read apart, another process could
        // claim the file in between (no id yet, then its tables), and a new
        // store would pass for another program's database.
        let (app_id, tables): (i32, i64) = conn.query_row(
            "SELECT (SELECT application_id FROM pragma_application_id), (SELECT count(*) FROM sqlite_schema)",
            [],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )?;
        if app_id == APPLICATION_ID {
            return Self::check_schema(path, conn);
        }
        if app_id != 0 {
            return Err(backend(path, format!("not a skill store (SQLite application_id {app_id:#x})")).into());
        }
        if tables != 0 {
            return Err(backend(path, "a SQLite database of another program, not a skill store").into());
        }
        Ok(())
    }

    /// Refuses a store whose schema is not what [`MIGRATIONS`] make at its
    /// version (a newer version is refused by [`Self::schema_version`]).
    fn check_schema(path: &Path, conn: &Connection) -> Result<(), Failure> {
        let version = Self::schema_version(path, conn)?;
        schema::check(conn, MIGRATIONS, version)?.map_err(|why| foreign(path, why))?;
        Ok(())
    }

    /// The file's `user_version`, refused when newer than [`MIGRATIONS`].
    fn schema_version(path: &Path, conn: &Connection) -> Result<usize, Failure> {
        let version: i64 = conn.pragma_query_value(None, "user_version", |row| row.get(0))?;
        let known = MIGRATIONS.len();
        let refuse = || {
            backend(
                path,
                format!("schema version {version} is newer than this program knows ({known}); refusing to open it"),
            )
        };
        Ok(usize::try_from(version).ok().filter(|&v| v <= known).ok_or_else(refuse)?)
    }

    /// The file this store reads and writes.
    ///
    /// # Example
    ///
    /// ```
    /// let dir = tempfile::tempdir()?;
    /// let store = skilldeck_store::SqliteStore::open(dir.path().join("skills.db"))?;
    /// assert_eq!(store.path(), dir.path().join("skills.db"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The connection, for one call: its deadline starts now.
    fn lock(&self) -> Call<'_> {
        // A panic mid-call dropped its transaction, which rolled it back, so a
        // poisoned lock guards a connection with nothing half-written.
        let conn = self.conn.lock().unwrap_or_else(PoisonError::into_inner);
        self.deadline.start(self.call_timeout);
        Call { conn, deadline: &self.deadline }
    }

    fn fail(&self, f: Failure) -> StoreError {
        match f {
            Failure::Driver(e) => sql_error(&self.path, e, self.call_timeout),
            Failure::Own(message) => backend(&self.path, message),
            Failure::Store(e) => e,
        }
    }

    /// Runs one read; a single statement sees one consistent snapshot.
    fn read<T>(&self, f: impl FnOnce(&Connection) -> Result<T, Failure>) -> Result<T, StoreError> {
        f(&self.lock().conn).map_err(|e| self.fail(e))
    }

    /// Runs `f` in one `BEGIN IMMEDIATE` transaction: it holds the file's
    /// write lock from its first read, so what it read is still true when it
    /// writes. Committed when `f` succeeds, rolled back otherwise. A schema
    /// changed since it was last checked (another program's `CREATE
    /// TRIGGER` while this store is open) is checked again first, under
    /// that lock, so nothing runs inside the write that skilldeck did not make.
    fn write_tx<T>(&self, f: impl FnOnce(&Transaction<'_>) -> Result<T, Failure>) -> Result<T, StoreError> {
        let mut call = self.lock();
        let run = || {
            let tx = call.conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let cookie = schema_cookie(&tx)?;
            if cookie != self.checked_schema.load(Ordering::Relaxed) {
                Self::check_schema(&self.path, &tx)?;
                self.checked_schema.store(cookie, Ordering::Relaxed);
            }
            let out = f(&tx)?;
            tx.commit()?;
            Ok(out)
        };
        run().map_err(|e| self.fail(e))
    }
}

/// The connection held for one call, whose deadline ends with it.
struct Call<'a> {
    conn: MutexGuard<'a, Connection>,
    deadline: &'a Deadline,
}

impl Drop for Call<'_> {
    fn drop(&mut self) {
        self.deadline.at.store(u64::MAX, Ordering::Relaxed);
    }
}

/// SQLite's schema cookie: it moves whenever any connection changes the schema.
fn schema_cookie(conn: &Connection) -> rusqlite::Result<i64> {
    conn.pragma_query_value(None, "schema_version", |row| row.get(0))
}

/// The stored record under the key, with its row id.
fn load(conn: &Connection, name: &str, agent: Option<&str>) -> Result<Option<(i64, StoredSkill)>, Failure> {
    let row = conn
        .prepare_cached("SELECT id, content, updated_at FROM skill WHERE agent IS ?1 AND name = ?2")?
        .query_row(params![agent, name], |row| Ok((row.get::<_, i64>(0)?, row.get(1)?, row.get(2)?)))
        .optional()?;
    let Some((id, content, updated_at)) = row else { return Ok(None) };
    let history = conn
        .prepare_cached("SELECT content, at FROM skill_version WHERE skill_id = ?1 ORDER BY idx")?
        .query_map([id], |row| Ok(Version { content: row.get(0)?, at: row.get(1)? }))?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Some((id, StoredSkill { content, updated_at, history })))
}

/// Writes `content` over what `load` found (`previous`), by the shared
/// history rule, and returns the new record.
fn put(
    tx: &Transaction<'_>,
    name: &str,
    content: String,
    agent: Option<&str>,
    previous: Option<(i64, StoredSkill)>,
) -> Result<Record, Failure> {
    let (id, previous) = previous.unzip();
    let stored = StoredSkill::next(previous, content, now_utc());
    let id = match id {
        Some(id) => {
            tx.prepare_cached("UPDATE skill SET content = ?2, updated_at = ?3 WHERE id = ?1")?.execute(params![
                id,
                stored.content,
                stored.updated_at
            ])?;
            tx.prepare_cached("DELETE FROM skill_version WHERE skill_id = ?1")?.execute([id])?;
            id
        }
        None => tx
            .prepare_cached(
                "INSERT INTO skill (agent, name, content, updated_at) VALUES (?1, ?2, ?3, ?4) RETURNING id",
            )?
            .query_row(params![agent, name, stored.content, stored.updated_at], |row| row.get(0))?,
    };
    let mut insert =
        tx.prepare_cached("INSERT INTO skill_version (skill_id, idx, content, at) VALUES (?1, ?2, ?3, ?4)")?;
    for (idx, version) in (0_i64..).zip(&stored.history) {
        insert.execute(params![id, idx, version.content, version.at])?;
    }
    Ok(stored.record())
}

/// A profile row's columns from `row`, starting at column `at`: `skills`, `eager`.
fn columns(row: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<Columns> {
    Ok(Columns { skills: row.get(at)?, eager: row.get(at + 1)? })
}

/// Every profile, by id in byte order, with its row id and time.
fn load_profiles(path: &Path, conn: &Connection) -> Result<Vec<Kept<i64>>, Failure> {
    let rows = conn
        .prepare_cached("SELECT id, agent, skills, eager, updated_at FROM profile ORDER BY agent")?
        .query_map([], |row| Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?, columns(row, 2)?, row.get(4)?)))?
        .collect::<Result<Vec<_>, _>>()?;
    rows.into_iter()
        .map(|(key, id, columns, updated_at)| {
            let profile = profile::decode(id, columns).map_err(|why| backend(path, why))?;
            Ok(Kept { key, profile, updated_at })
        })
        .collect()
}

/// The history of the profile `id`, most recent first.
fn load_profile_versions(path: &Path, conn: &Connection, id: &str) -> Result<Vec<ProfileVersion>, Failure> {
    let rows = conn
        .prepare_cached(
            "SELECT v.skills, v.eager, v.at FROM profile_version v JOIN profile p ON p.id = v.profile_id \
             WHERE p.agent = ?1 ORDER BY v.idx",
        )?
        .query_map([id], |row| Ok((columns(row, 0)?, row.get::<_, String>(2)?)))?
        .collect::<Result<Vec<_>, _>>()?;
    rows.into_iter()
        .map(|(columns, at)| {
            let profile = profile::decode(id.to_owned(), columns).map_err(|why| backend(path, why))?;
            Ok(ProfileVersion { profile, at })
        })
        .collect()
}

/// Runs one step of an `update_profiles` plan.
fn write_profile(path: &Path, tx: &Transaction<'_>, step: Step<i64>, now: &str) -> Result<(), Failure> {
    match step {
        Step::Insert(profile) => {
            let Columns { skills, eager } = profile::encode(&profile);
            tx.prepare_cached("INSERT INTO profile (agent, skills, eager, updated_at) VALUES (?1, ?2, ?3, ?4)")?
                .execute(params![profile.id, skills, eager, now])?;
        }
        Step::Update { key, previous, profile } => {
            let history = profile::next_history(previous, load_profile_versions(path, tx, &profile.id)?);
            let Columns { skills, eager } = profile::encode(&profile);
            tx.prepare_cached("UPDATE profile SET skills = ?2, eager = ?3, updated_at = ?4 WHERE id = ?1")?
                .execute(params![key, skills, eager, now])?;
            tx.prepare_cached("DELETE FROM profile_version WHERE profile_id = ?1")?.execute([key])?;
            let mut insert = tx.prepare_cached(
                "INSERT INTO profile_version (profile_id, idx, skills, eager, at) VALUES (?1, ?2, ?3, ?4, ?5)",
            )?;
            for (idx, version) in (0_i64..).zip(&history) {
                let Columns { skills, eager } = profile::encode(&version.profile);
                insert.execute(params![key, idx, skills, eager, version.at])?;
            }
        }
        Step::Delete(key) => {
            tx.prepare_cached("DELETE FROM profile WHERE id = ?1")?.execute([key])?;
        }
    }
    Ok(())
}

impl SkillStore for SqliteStore {
    fn get(&self, name: &str, agent: Option<&str>) -> Result<Option<Record>, StoreError> {
        self.read(|conn| {
            Ok(conn
                .prepare_cached("SELECT content, updated_at FROM skill WHERE agent IS ?1 AND name = ?2")?
                .query_row(params![agent, name], |row| Ok(Record { content: row.get(0)?, updated_at: row.get(1)? }))
                .optional()?)
        })
    }

    fn all(&self, agent: Option<&str>) -> Result<Vec<(String, Record)>, StoreError> {
        self.read(|conn| {
            Ok(conn
                .prepare_cached("SELECT name, content, updated_at FROM skill WHERE agent IS ?1 ORDER BY name")?
                .query_map([agent], |row| Ok((row.get(0)?, Record { content: row.get(1)?, updated_at: row.get(2)? })))?
                .collect::<Result<_, _>>()?)
        })
    }

    fn names(&self, agent: Option<&str>) -> Result<Vec<String>, StoreError> {
        self.read(|conn| {
            Ok(conn
                .prepare_cached("SELECT name FROM skill WHERE agent IS ?1 ORDER BY name")?
                .query_map([agent], |row| row.get(0))?
                .collect::<Result<_, _>>()?)
        })
    }

    fn agents(&self) -> Result<Vec<String>, StoreError> {
        self.read(|conn| {
            Ok(conn
                .prepare_cached("SELECT DISTINCT agent FROM skill WHERE agent IS NOT NULL ORDER BY agent")?
                .query_map([], |row| row.get(0))?
                .collect::<Result<_, _>>()?)
        })
    }

    fn write(
        &self,
        name: &str,
        content: &str,
        agent: Option<&str>,
        precondition: &Precondition,
    ) -> Result<Record, StoreError> {
        self.write_tx(|tx| {
            let previous = load(tx, name, agent)?;
            may_write(name, agent, precondition, previous.as_ref().map(|(_, p)| p.content.as_str()))?;
            put(tx, name, content.to_owned(), agent, previous)
        })
    }

    fn rename(
        &self,
        from: &str,
        to: &str,
        content: &str,
        agent: Option<&str>,
        precondition: &Precondition,
    ) -> Result<Record, StoreError> {
        self.write_tx(|tx| {
            let (id, current) = load(tx, from, agent)?.ok_or_else(|| StoreError::NotFound { name: from.to_owned() })?;
            may_write(from, agent, precondition, Some(&current.content))?;
            may_write(
                to,
                agent,
                &Precondition::Absent,
                load(tx, to, agent)?.as_ref().map(|(_, s)| s.content.as_str()),
            )?;
            // The row keeps its id, so its history (keyed by it) moves with it.
            tx.prepare_cached("UPDATE skill SET name = ?2 WHERE id = ?1")?.execute(params![id, to])?;
            put(tx, to, content.to_owned(), agent, Some((id, current)))
        })
    }

    fn delete(&self, name: &str, agent: Option<&str>) -> Result<bool, StoreError> {
        self.write_tx(|tx| {
            let deleted = tx
                .prepare_cached("DELETE FROM skill WHERE agent IS ?1 AND name = ?2")?
                .execute(params![agent, name])?;
            Ok(deleted != 0)
        })
    }

    fn versions(&self, name: &str, agent: Option<&str>) -> Result<Vec<Version>, StoreError> {
        self.read(|conn| {
            Ok(conn
                .prepare_cached(
                    "SELECT v.content, v.at FROM skill_version v JOIN skill s ON s.id = v.skill_id \
                     WHERE s.agent IS ?1 AND s.name = ?2 ORDER BY v.idx",
                )?
                .query_map(params![agent, name], |row| Ok(Version { content: row.get(0)?, at: row.get(1)? }))?
                .collect::<Result<_, _>>()?)
        })
    }

    fn restore(&self, name: &str, index: i64, agent: Option<&str>) -> Result<Record, StoreError> {
        self.write_tx(|tx| {
            let previous = load(tx, name, agent)?;
            let content = restored_version(name, agent, previous.as_ref().map(|(_, stored)| stored), index)?;
            put(tx, name, content, agent, previous)
        })
    }

    fn profiles(&self) -> Result<Vec<AgentProfile>, StoreError> {
        self.read(|conn| Ok(load_profiles(&self.path, conn)?.into_iter().map(|kept| kept.profile).collect()))
    }

    fn update_profiles(&self, change: &mut dyn FnMut(&mut Vec<AgentProfile>)) -> Result<(), StoreError> {
        self.write_tx(|tx| {
            let steps = profile::plan(load_profiles(&self.path, tx)?, change)?;
            let now = now_utc();
            for step in steps {
                write_profile(&self.path, tx, step, &now)?;
            }
            Ok(())
        })
    }

    fn profile_versions(&self, id: &str) -> Result<Vec<ProfileVersion>, StoreError> {
        self.read(|conn| load_profile_versions(&self.path, conn, id))
    }

    fn change_token(&self) -> Result<Option<i64>, StoreError> {
        self.read(|conn| Ok(Some(conn.pragma_query_value(None, "data_version", |row| row.get(0))?)))
    }
}
