//! [`PostgresStore`]: authored skills and their history in PostgreSQL, for
//! several hosts sharing one store.
//!
//! It keeps the rules of every backend (the history rule is
//! [`StoredSkill::next`], the restore checks are [`restored_version`]) and adds
//! what a shared server needs:
//!
//! * **One writer at a time.** Each write is one transaction that first takes
//!   a transaction-scoped advisory lock, so what it read is still true when it
//!   writes, and hosts writing at once lose nothing.
//! * **Change notification.** Each write sends `NOTIFY` on the store's channel
//!   in its transaction (delivered when it commits), and every handle listens,
//!   so [`SkillStore::change_token`] moves on every host for the price of one
//!   empty round trip, however many records there are.
//! * **Exact bytes.** Keys, agents and texts are `bytea`: any Rust string round
//!   trips (PostgreSQL `text` refuses NUL), and keys sort in byte order, as in
//!   every other backend, whatever the database's collation.
//!
//! # The tables
//!
//! In the connection's current schema (set `search_path` in the URL's
//! `options` to keep stores apart):
//!
//! * `skilldeck_skill(id, shared, agent, name, content, updated_at)`: one row
//!   per record; `shared` is true for the shared scope (its `agent` is empty),
//!   so the empty agent id is a scope of its own, as in `MemoryStore`.
//! * `skilldeck_skill_version(skill_id, idx, content, at)`: the history, `idx`
//!   0 the most recent; deleted with its record.
//! * `skilldeck_schema(version)`: the schema version; a newer one is refused.
//!
//! The connection is plain TCP or a Unix socket, without TLS.

use std::fmt;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use postgres::config::Host;
use postgres::fallible_iterator::FallibleIterator;
use postgres::{Client, Config, NoTls, Row, Transaction};
use skilldeck::store::{Record, SkillStore, StoreError, StoredSkill, Version, may_write, now_utc, restored_version};

/// A failure inside a call, before it is given the store's location.
type Failure = crate::Failure<postgres::Error>;

impl From<postgres::Error> for Failure {
    fn from(e: postgres::Error) -> Self {
        Failure::Driver(e)
    }
}

/// How long connecting may take when the URL does not say
/// (`connect_timeout`).
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The advisory lock every write holds: "SKLD", as SQLite's application id.
const WRITE_LOCK: i64 = 0x534B_4C44;

/// The schema, one step per version: step `i` takes `skilldeck_schema` from
/// `i` to `i + 1`. Steps are only ever appended.
const MIGRATIONS: &[&str] = &["
    CREATE TABLE skilldeck_skill (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        shared BOOLEAN NOT NULL,
        agent BYTEA NOT NULL,
        name BYTEA NOT NULL,
        content BYTEA NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (shared, agent, name),
        CHECK (NOT shared OR agent = '')
    );
    CREATE TABLE skilldeck_skill_version (
        skill_id BIGINT NOT NULL REFERENCES skilldeck_skill (id) ON DELETE CASCADE,
        idx INTEGER NOT NULL,
        content BYTEA NOT NULL,
        at TEXT NOT NULL,
        PRIMARY KEY (skill_id, idx)
    );
"];

/// A [`SkillStore`] in a PostgreSQL database, shared by every host that
/// opens the same URL.
///
/// The handle holds one connection behind a mutex (calls from many threads
/// take turns) and opens a new one when the server or the network dropped
/// it: a read that found it gone runs again at once, a write fails (its
/// commit may have happened) and the next call connects again.
///
/// # Example
///
/// ```no_run
/// use skilldeck::store::SkillStore;
/// use skilldeck_store::PostgresStore;
///
/// let store = PostgresStore::open("postgres://skills@db.internal/skills")?;
/// store.write("pedido", "---\nname: pedido\n---\nv1\n", None, false)?;
/// let seen = store.change_token()?;
/// // ... another host writes; after a moment:
/// if store.change_token()? != seen {
///     // reload
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct PostgresStore {
    config: Config,
    location: String,
    state: Mutex<State>,
}

impl fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PostgresStore").field("location", &self.location).finish_non_exhaustive()
    }
}

/// The connection and what this handle has heard on it.
struct State {
    /// `None` after a connection was lost and could not be opened again.
    client: Option<Client>,
    /// The `NOTIFY` channel of the store's schema.
    channel: String,
    /// Notifications heard (and reconnections, which may have missed some).
    changes: i64,
}

impl PostgresStore {
    /// Connects to the database at `url` (`postgres://user[:password]@host[:port]/dbname[?options]`,
    /// or the `key=value` form) and brings its tables up to date, in one
    /// transaction that concurrent openers take turns at.
    ///
    /// # Errors
    ///
    /// [`StoreError::Backend`], naming the server (never the password), when
    /// the URL does not parse, the server cannot be reached or refuses the
    /// login, or the tables were made by a newer version of this crate.
    pub fn open(url: &str) -> Result<PostgresStore, StoreError> {
        let mut config: Config = url.parse().map_err(|e: postgres::Error| StoreError::Backend {
            location: "PostgreSQL URL".to_owned(),
            message: message(&e),
        })?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        let location = location(&config);
        let (client, channel) = connect(&config).map_err(|f| fail(&location, f))?;
        let state = State { client: Some(client), channel, changes: 0 };
        Ok(PostgresStore { config, location, state: Mutex::new(state) })
    }

    /// The server and database, as errors name them: `postgres://user@host:port/dbname`.
    pub fn location(&self) -> &str {
        &self.location
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic mid-call dropped its transaction, which rolled it back, so a
        // poisoned lock guards a connection with nothing half-written.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `f` on the connection, opening a new one first if the last was lost.
    fn with<T>(&self, f: impl FnOnce(&mut Client, &mut State) -> Result<T, Failure>) -> Result<T, StoreError> {
        let mut state = self.lock();
        let mut client = match state.client.take() {
            Some(client) if !client.is_closed() => client,
            _ => {
                let (client, channel) = connect(&self.config).map_err(|f| fail(&self.location, f))?;
                // Whatever was written while the connection was down went unheard.
                state.channel = channel;
                state.changes = state.changes.saturating_add(1);
                client
            }
        };
        let out = f(&mut client, &mut state);
        state.client = Some(client);
        out.map_err(|f| fail(&self.location, f))
    }

    /// Runs a read; one that failed because the connection was lost (a
    /// server restart, say) runs again on a new one: a read can, a write
    /// whose commit may have happened cannot.
    fn read<T>(&self, mut f: impl FnMut(&mut Client) -> Result<T, Failure>) -> Result<T, StoreError> {
        self.with(|client, _| f(client)).or_else(|error| {
            let lost = self.lock().client.as_ref().is_some_and(Client::is_closed);
            if lost { self.with(|client, _| f(client)) } else { Err(error) }
        })
    }

    /// Runs one write transaction: the store's write lock first, then `f`,
    /// then the notification; committed when `f` succeeds, rolled back otherwise.
    fn write_tx<T>(&self, f: impl FnOnce(&mut Transaction<'_>) -> Result<T, Failure>) -> Result<T, StoreError> {
        self.with(|client, state| {
            let mut tx = client.transaction()?;
            tx.execute("SELECT pg_advisory_xact_lock($1)", &[&WRITE_LOCK])?;
            let out = f(&mut tx)?;
            tx.execute("SELECT pg_notify($1, '')", &[&state.channel])?;
            tx.commit()?;
            Ok(out)
        })
    }
}

/// Opens a connection, migrates the tables and listens on the store's channel.
fn connect(config: &Config) -> Result<(Client, String), Failure> {
    let mut client = config.connect(NoTls)?;
    migrate(&mut client)?;
    // One channel per schema, named by its oid: a valid identifier of any length.
    let oid: String =
        client.query_one("SELECT oid::text FROM pg_namespace WHERE nspname = current_schema()", &[])?.get(0);
    let channel = format!("skilldeck_{oid}");
    client.batch_execute(&format!("LISTEN {channel}"))?;
    Ok((client, channel))
}

/// Applies the missing [`MIGRATIONS`] in one transaction under the write lock.
fn migrate(client: &mut Client) -> Result<(), Failure> {
    let mut tx = client.transaction()?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&WRITE_LOCK])?;
    tx.batch_execute("CREATE TABLE IF NOT EXISTS skilldeck_schema (version INTEGER NOT NULL)")?;
    let version: Option<i32> = tx.query_opt("SELECT max(version) FROM skilldeck_schema", &[])?.and_then(|r| r.get(0));
    let known = MIGRATIONS.len();
    let from = usize::try_from(version.unwrap_or(0)).unwrap_or(usize::MAX);
    if from > known {
        let message = format!(
            "schema version {} is newer than this program knows ({known}); refusing to use it",
            version.unwrap_or_default()
        );
        return Err(StoreError::Backend { location: String::new(), message }.into());
    }
    if from == known {
        return Ok(());
    }
    for sql in &MIGRATIONS[from..] {
        tx.batch_execute(sql)?;
    }
    tx.execute("DELETE FROM skilldeck_schema", &[])?;
    tx.execute("INSERT INTO skilldeck_schema (version) VALUES ($1)", &[&i32::try_from(known).unwrap_or(i32::MAX)])?;
    tx.commit()?;
    Ok(())
}

/// `postgres://user@host:port/dbname`, from the parsed URL (no password).
fn location(config: &Config) -> String {
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .zip(config.get_ports().iter().copied().chain(std::iter::repeat(5432)))
        .map(|(host, port)| match host {
            Host::Tcp(name) => format!("{name}:{port}"),
            #[cfg(unix)]
            Host::Unix(dir) => format!("{}:{port}", dir.display()),
        })
        .collect();
    let user = config.get_user().map(|u| format!("{u}@")).unwrap_or_default();
    format!("postgres://{user}{}/{}", hosts.join(","), config.get_dbname().unwrap_or_default())
}

fn fail(location: &str, f: Failure) -> StoreError {
    match f {
        Failure::Driver(e) => StoreError::Backend { location: location.to_owned(), message: message(&e) },
        // Errors made before the location was known get it now.
        Failure::Store(StoreError::Backend { location: at, message }) if at.is_empty() => {
            StoreError::Backend { location: location.to_owned(), message }
        }
        Failure::Store(e) => e,
    }
}

/// The server's own words when it sent any, else the client's with their
/// cause ("invalid connection string: invalid value for option ...").
fn message(e: &postgres::Error) -> String {
    if let Some(db) = e.as_db_error() {
        return format!("{}: {}", db.severity(), db.message());
    }
    match std::error::Error::source(e) {
        Some(cause) => format!("{e}: {cause}"),
        None => e.to_string(),
    }
}

/// The scope columns `(shared, agent)` of a scope.
fn scope(agent: Option<&str>) -> (bool, &[u8]) {
    (agent.is_none(), agent.unwrap_or_default().as_bytes())
}

/// Column `idx` of `row`, a `bytea` that holds text this crate wrote.
fn text(row: &Row, idx: usize) -> Result<String, Failure> {
    String::from_utf8(row.get(idx)).map_err(|_| {
        let message = "a stored value is not UTF-8 (written by another program?)".to_owned();
        StoreError::Backend { location: String::new(), message }.into()
    })
}

fn record(row: &Row, content: usize) -> Result<Record, Failure> {
    Ok(Record { content: text(row, content)?, updated_at: row.get(content + 1) })
}

fn versions(rows: &[Row]) -> Result<Vec<Version>, Failure> {
    rows.iter().map(|row| Ok(Version { content: text(row, 0)?, at: row.get(1) })).collect()
}

/// The stored record under the key, with its row id.
fn load(tx: &mut Transaction<'_>, name: &str, agent: Option<&str>) -> Result<Option<(i64, StoredSkill)>, Failure> {
    let (shared, agent) = scope(agent);
    let Some(row) = tx.query_opt(
        "SELECT id, content, updated_at FROM skilldeck_skill WHERE shared = $1 AND agent = $2 AND name = $3",
        &[&shared, &agent, &name.as_bytes()],
    )?
    else {
        return Ok(None);
    };
    let id: i64 = row.get(0);
    let current = record(&row, 1)?;
    let rows = tx.query("SELECT content, at FROM skilldeck_skill_version WHERE skill_id = $1 ORDER BY idx", &[&id])?;
    let stored = StoredSkill { content: current.content, updated_at: current.updated_at, history: versions(&rows)? };
    Ok(Some((id, stored)))
}

/// Writes `content` over what `load` found (`previous`), by the shared
/// history rule, and returns the new record.
fn put(
    tx: &mut Transaction<'_>,
    name: &str,
    content: String,
    agent: Option<&str>,
    previous: Option<(i64, StoredSkill)>,
) -> Result<Record, Failure> {
    let (id, previous) = previous.unzip();
    let stored = StoredSkill::next(previous, content, now_utc());
    let id: i64 = match id {
        Some(id) => {
            tx.execute(
                "UPDATE skilldeck_skill SET content = $2, updated_at = $3 WHERE id = $1",
                &[&id, &stored.content.as_bytes(), &stored.updated_at],
            )?;
            tx.execute("DELETE FROM skilldeck_skill_version WHERE skill_id = $1", &[&id])?;
            id
        }
        None => {
            let (shared, agent) = scope(agent);
            tx.query_one(
                "INSERT INTO skilldeck_skill (shared, agent, name, content, updated_at) \
                 VALUES ($1, $2, $3, $4, $5) RETURNING id",
                &[&shared, &agent, &name.as_bytes(), &stored.content.as_bytes(), &stored.updated_at],
            )?
            .get(0)
        }
    };
    // The whole history in one statement: one round trip, not twenty.
    let contents: Vec<&[u8]> = stored.history.iter().map(|v| v.content.as_bytes()).collect();
    let ats: Vec<&str> = stored.history.iter().map(|v| v.at.as_str()).collect();
    tx.execute(
        "INSERT INTO skilldeck_skill_version (skill_id, idx, content, at) \
         SELECT $1, (v.n - 1)::integer, v.content, v.at \
         FROM unnest($2::bytea[], $3::text[]) WITH ORDINALITY AS v (content, at, n)",
        &[&id, &contents, &ats],
    )?;
    Ok(stored.record())
}

impl SkillStore for PostgresStore {
    fn get(&self, name: &str, agent: Option<&str>) -> Result<Option<Record>, StoreError> {
        let (shared, agent) = scope(agent);
        self.read(|client| {
            client
                .query_opt(
                    "SELECT content, updated_at FROM skilldeck_skill WHERE shared = $1 AND agent = $2 AND name = $3",
                    &[&shared, &agent, &name.as_bytes()],
                )?
                .map(|row| record(&row, 0))
                .transpose()
        })
    }

    fn all(&self, agent: Option<&str>) -> Result<Vec<(String, Record)>, StoreError> {
        let (shared, agent) = scope(agent);
        self.read(|client| {
            client
                .query(
                    "SELECT name, content, updated_at FROM skilldeck_skill \
                     WHERE shared = $1 AND agent = $2 ORDER BY name",
                    &[&shared, &agent],
                )?
                .iter()
                .map(|row| Ok((text(row, 0)?, record(row, 1)?)))
                .collect()
        })
    }

    fn names(&self, agent: Option<&str>) -> Result<Vec<String>, StoreError> {
        let (shared, agent) = scope(agent);
        self.read(|client| {
            client
                .query(
                    "SELECT name FROM skilldeck_skill WHERE shared = $1 AND agent = $2 ORDER BY name",
                    &[&shared, &agent],
                )?
                .iter()
                .map(|row| text(row, 0))
                .collect()
        })
    }

    fn agents(&self) -> Result<Vec<String>, StoreError> {
        self.read(|client| {
            client
                .query("SELECT DISTINCT agent FROM skilldeck_skill WHERE NOT shared ORDER BY agent", &[])?
                .iter()
                .map(|row| text(row, 0))
                .collect()
        })
    }

    fn write(&self, name: &str, content: &str, agent: Option<&str>, create_only: bool) -> Result<Record, StoreError> {
        self.write_tx(|tx| {
            let previous = load(tx, name, agent)?;
            may_write(name, agent, create_only, previous.is_some())?;
            put(tx, name, content.to_owned(), agent, previous)
        })
    }

    fn delete(&self, name: &str, agent: Option<&str>) -> Result<bool, StoreError> {
        let (shared, scope_agent) = scope(agent);
        self.write_tx(|tx| {
            let deleted = tx.execute(
                "DELETE FROM skilldeck_skill WHERE shared = $1 AND agent = $2 AND name = $3",
                &[&shared, &scope_agent, &name.as_bytes()],
            )?;
            Ok(deleted != 0)
        })
    }

    fn versions(&self, name: &str, agent: Option<&str>) -> Result<Vec<Version>, StoreError> {
        let (shared, agent) = scope(agent);
        self.read(|client| {
            let rows = client.query(
                "SELECT v.content, v.at FROM skilldeck_skill_version v JOIN skilldeck_skill s ON s.id = v.skill_id \
                 WHERE s.shared = $1 AND s.agent = $2 AND s.name = $3 ORDER BY v.idx",
                &[&shared, &agent, &name.as_bytes()],
            )?;
            versions(&rows)
        })
    }

    fn restore(&self, name: &str, index: i64, agent: Option<&str>) -> Result<Record, StoreError> {
        self.write_tx(|tx| {
            let previous = load(tx, name, agent)?;
            let content = restored_version(name, previous.as_ref().map(|(_, stored)| stored), index)?;
            put(tx, name, content, agent, previous)
        })
    }

    /// The notifications this handle has heard, its own writes' included.
    fn change_token(&self) -> Result<Option<i64>, StoreError> {
        self.with(|client, state| {
            // The sync client reads the socket only while it waits for a
            // reply: an empty query is a round trip that takes in whatever
            // the server sent before it, and the iterator then drains that.
            client.batch_execute("")?;
            let heard = client.notifications().iter().count()?;
            state.changes = state.changes.saturating_add(i64::try_from(heard).unwrap_or(i64::MAX));
            Ok(Some(state.changes))
        })
    }
}
