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
//!   trips (PostgreSQL `text` refuses NUL, which a text may hold), and keys sort in byte order, as in
//!   every other backend, whatever the database's collation.
//!
//! # The tables
//!
//! In the connection's current schema (set `search_path` in the URL's
//! `options` to keep stores apart):
//!
//! * `skilldeck_skill(id, shared, agent, name, content, updated_at)`: one row
//!   per record; `shared` is true for the shared scope (its `agent` is
//!   empty; an agent's id is never empty, [`check_name`](skilldeck::check_name)
//!   refuses it on every write).
//! * `skilldeck_skill_version(skill_id, idx, content, at)`: the history, `idx`
//!   0 the most recent; deleted with its record.
//! * `skilldeck_profile(id, agent, skills, eager, updated_at)`: one row per
//!   agent profile, `agent` its id (`bytea`, so ids sort in byte order);
//!   `skills` and `eager` encoded as every backend encodes them (`NULL` or a
//!   JSON list; `none`, `all` or a JSON list: JSON escapes NUL, so `text`
//!   holds them). Added by schema version 2.
//! * `skilldeck_profile_version(profile_id, idx, skills, eager, at)`: a
//!   profile's history; deleted with its profile.
//! * `skilldeck_schema(version)`: the schema version; a newer one is refused.
//!
//! The connection is plain TCP or a Unix socket, without TLS.
//!
//! # Deadlines
//!
//! A server that accepts the connection and then never answers (frozen,
//! overloaded, or not PostgreSQL at all) must not hang its host. Connecting
//! (TCP, the startup handshake, the table setup) has [`CONNECT_TIMEOUT`], or
//! the URL's `connect_timeout`; every call after that has [`CALL_TIMEOUT`].
//! A call that runs out of time drops its connection, and while one call is
//! connecting again every other call fails at once with the last reason: a
//! store that does not answer is a failed source, never a stuck caller.

use std::fmt;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use skilldeck::AgentProfile;
use skilldeck::store::{
    Precondition, ProfileVersion, Record, SkillStore, StoreError, StoredSkill, Version, may_write, now_utc,
    restored_version,
};
use tokio::runtime::Runtime;
use tokio_postgres::config::Host;
use tokio_postgres::{AsyncMessage, Client, Config, GenericClient, NoTls, Row, Transaction};

use crate::CALL_TIMEOUT;
use crate::profile::{self, Columns, Kept, Step};

/// A failure inside a call, before it is given the store's location.
type Failure = crate::Failure<tokio_postgres::Error>;

impl From<tokio_postgres::Error> for Failure {
    fn from(e: tokio_postgres::Error) -> Self {
        Failure::Driver(e)
    }
}

/// How long connecting may take, handshake and table setup included, when
/// the URL does not say (`connect_timeout`).
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// The advisory lock every write holds: "SKLD", as SQLite's application id.
const WRITE_LOCK: i64 = 0x534B_4C44;

/// The schema, one step per version: step `i` takes `skilldeck_schema` from
/// `i` to `i + 1`. Steps are only ever appended.
const MIGRATIONS: &[&str] = &[
    "
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
",
    "
    CREATE TABLE skilldeck_profile (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        agent BYTEA NOT NULL UNIQUE,
        skills TEXT,
        eager TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    CREATE TABLE skilldeck_profile_version (
        profile_id BIGINT NOT NULL REFERENCES skilldeck_profile (id) ON DELETE CASCADE,
        idx INTEGER NOT NULL,
        skills TEXT,
        eager TEXT NOT NULL,
        at TEXT NOT NULL,
        PRIMARY KEY (profile_id, idx)
    );
",
];

/// A [`SkillStore`] in a PostgreSQL database, shared by every host that
/// opens the same URL.
///
/// The handle holds one connection behind a mutex (calls from many threads
/// take turns) and opens a new one when the server or the network dropped
/// it, or a call ran out of time: a read that found it gone runs again at
/// once, a write fails (its commit may have happened) and the next call
/// connects again. Every wait has a deadline (see the module docs).
///
/// # Example
///
/// ```no_run
/// use skilldeck::store::{Precondition, SkillStore};
/// use skilldeck_store::PostgresStore;
///
/// let store = PostgresStore::open("postgres://skills@db.internal/skills")?;
/// store.write("pedido", "---\nname: pedido\n---\nv1\n", None, &Precondition::Any)?;
/// let seen = store.change_token()?;
/// // ... another host writes; after a moment:
/// if store.change_token()? != seen {
///     // reload
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct PostgresStore {
    config: Config,
    connect_timeout: Duration,
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
    /// `None` after a connection was lost or timed out and not opened again.
    conn: Option<Connection>,
    /// Whether a call is connecting again (without the lock, so that the
    /// others fail at once rather than wait for it).
    connecting: bool,
    /// Why the last attempt to connect failed, for the calls that fail
    /// while another is connecting.
    last_failure: Option<String>,
    /// The `NOTIFY` channel of the store's schema.
    channel: String,
    /// Notifications heard (and reconnections, which may have missed some).
    changes: i64,
}

/// One connection, with a single-threaded runtime of its own that drives it
/// only while a call waits (as the synchronous `postgres` client does), so
/// that every wait can be given a deadline.
struct Connection {
    runtime: Runtime,
    client: Client,
    /// Notifications the connection has delivered and no call has counted.
    heard: Arc<AtomicI64>,
}

impl Connection {
    /// Opens a connection, migrates the tables and listens on the store's
    /// channel, all within `deadline`; returns it with the channel.
    fn open(config: &Config, deadline: Duration) -> Result<(Connection, String), Failure> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| failure(format!("cannot start the PostgreSQL client: {e}")))?;
        let heard = Arc::new(AtomicI64::new(0));
        let counter = heard.clone();
        let setup = async move {
            let (mut client, mut connection) = config.connect(NoTls).await?;
            // Runs whenever a call waits; ends, closing the client, when the connection does.
            tokio::spawn(async move {
                while let Some(Ok(message)) = std::future::poll_fn(|cx| connection.poll_message(cx)).await {
                    if let AsyncMessage::Notification(_) = message {
                        counter.fetch_add(1, Ordering::Relaxed);
                    }
                }
            });
            migrate(&mut client).await?;
            // One channel per schema, named by its oid: a valid identifier of any length.
            let oid: String = client
                .query_one("SELECT oid::text FROM pg_namespace WHERE nspname = current_schema()", &[])
                .await?
                .get(0);
            let channel = format!("skilldeck_{oid}");
            client.batch_execute(&format!("LISTEN {channel}")).await?;
            Ok::<_, Failure>((client, channel))
        };
        let (client, channel) = runtime
            .block_on(async { tokio::time::timeout(deadline, setup).await })
            .map_err(|_| failure(format!("no answer within {deadline:?} while connecting (connect_timeout)")))??;
        Ok((Connection { runtime, client, heard }, channel))
    }

    /// Runs `call` within [`CALL_TIMEOUT`]: the outer `Err` says it ran out
    /// of time, after which the connection must not be used again.
    fn run<T>(
        &mut self,
        channel: &str,
        call: impl AsyncFnOnce(&mut Client, &str) -> Result<T, Failure>,
    ) -> Result<Result<T, Failure>, Failure> {
        let client = &mut self.client;
        self.runtime
            .block_on(async { tokio::time::timeout(CALL_TIMEOUT, call(client, channel)).await })
            .map_err(|_| failure(format!("no answer within {CALL_TIMEOUT:?}; the connection was dropped")))
    }
}

/// A failure of the store itself, given its location later.
fn failure(message: String) -> Failure {
    Failure::Own(message)
}

impl PostgresStore {
    /// Connects to the database at `url` (`postgres://user[:password]@host[:port]/dbname[?options]`,
    /// or the `key=value` form) and brings its tables up to date, in one
    /// transaction that concurrent openers take turns at, all within
    /// [`CONNECT_TIMEOUT`] or the URL's `connect_timeout`.
    ///
    /// # Errors
    ///
    /// [`StoreError::Backend`], naming the server (never the password), when
    /// the URL does not parse, the server cannot be reached, does not answer
    /// in time or refuses the login, or the tables were made by a newer
    /// version of this crate.
    pub fn open(url: &str) -> Result<PostgresStore, StoreError> {
        let config: Config = url
            .parse()
            .map_err(|e: tokio_postgres::Error| StoreError::backend("PostgreSQL URL", message(&e)).caused_by(e))?;
        let connect_timeout = config.get_connect_timeout().copied().unwrap_or(CONNECT_TIMEOUT);
        let location = location(&config);
        let (conn, channel) = Connection::open(&config, connect_timeout).map_err(|f| fail(&location, f))?;
        let state = State { conn: Some(conn), connecting: false, last_failure: None, channel, changes: 0 };
        Ok(PostgresStore { config, connect_timeout, location, state: Mutex::new(state) })
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

    /// Runs `call` on the connection (and the store's channel), opening a
    /// new connection first if the last was lost; counts the notifications
    /// the call took in.
    fn with<T>(&self, call: impl AsyncFnOnce(&mut Client, &str) -> Result<T, Failure>) -> Result<T, StoreError> {
        let mut state = self.lock();
        let mut conn = match state.conn.take() {
            Some(conn) if !conn.client.is_closed() => conn,
            _ => {
                if state.connecting {
                    let why = state.last_failure.clone().unwrap_or_else(|| "the connection was lost".to_owned());
                    return Err(fail(&self.location, failure(format!("{why}; connecting again"))));
                }
                state.connecting = true;
                drop(state);
                let opened = Connection::open(&self.config, self.connect_timeout);
                state = self.lock();
                state.connecting = false;
                let (conn, channel) = opened.map_err(|f| {
                    let error = fail(&self.location, f);
                    state.last_failure = Some(match &error {
                        StoreError::Backend { message, .. } => message.clone(),
                        other => other.to_string(),
                    });
                    error
                })?;
                // Whatever was written while the connection was down went unheard.
                state.channel = channel;
                state.changes = state.changes.saturating_add(1);
                state.last_failure = None;
                conn
            }
        };
        let channel = state.channel.clone();
        let out = conn.run(&channel, call);
        state.changes = state.changes.saturating_add(conn.heard.swap(0, Ordering::Relaxed));
        // A call that ran out of time leaves the connection in an unknown
        // state: it is dropped, closing the socket.
        match out {
            Ok(out) => {
                state.conn = Some(conn);
                out.map_err(|f| fail(&self.location, f))
            }
            Err(timeout) => Err(fail(&self.location, timeout)),
        }
    }

    /// Runs a read; one that failed because the connection was lost (a
    /// server restart, say) runs again on a new one: a read can, a write
    /// whose commit may have happened cannot.
    fn read<T>(&self, call: impl AsyncFn(&Client) -> Result<T, Failure>) -> Result<T, StoreError> {
        self.with(async |client, _| call(client).await).or_else(|error| {
            let lost = self.lock().conn.as_ref().is_some_and(|conn| conn.client.is_closed());
            if lost { self.with(async |client, _| call(client).await) } else { Err(error) }
        })
    }

    /// Runs one write transaction: the store's write lock first, then `f`,
    /// then the notification; committed when `f` succeeds, rolled back otherwise.
    fn write_tx<T>(&self, f: impl AsyncFnOnce(&Transaction<'_>) -> Result<T, Failure>) -> Result<T, StoreError> {
        self.with(async |client, channel| {
            let tx = client.transaction().await?;
            tx.execute("SELECT pg_advisory_xact_lock($1)", &[&WRITE_LOCK]).await?;
            let out = f(&tx).await?;
            tx.execute("SELECT pg_notify($1, '')", &[&channel]).await?;
            tx.commit().await?;
            Ok(out)
        })
    }
}

/// Applies the missing [`MIGRATIONS`] in one transaction under the write lock.
async fn migrate(client: &mut Client) -> Result<(), Failure> {
    let tx = client.transaction().await?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&WRITE_LOCK]).await?;
    tx.batch_execute("CREATE TABLE IF NOT EXISTS skilldeck_schema (version INTEGER NOT NULL)").await?;
    let version: Option<i32> =
        tx.query_opt("SELECT max(version) FROM skilldeck_schema", &[]).await?.and_then(|r| r.get(0));
    let known = MIGRATIONS.len();
    let from = usize::try_from(version.unwrap_or(0)).unwrap_or(usize::MAX);
    if from > known {
        return Err(failure(format!(
            "schema version {} is newer than this program knows ({known}); refusing to use it",
            version.unwrap_or_default()
        )));
    }
    if from == known {
        return Ok(());
    }
    for sql in &MIGRATIONS[from..] {
        tx.batch_execute(sql).await?;
    }
    tx.execute("DELETE FROM skilldeck_schema", &[]).await?;
    tx.execute("INSERT INTO skilldeck_schema (version) VALUES ($1)", &[&i32::try_from(known).unwrap_or(i32::MAX)])
        .await?;
    tx.commit().await?;
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
        Failure::Driver(e) => StoreError::backend(location, message(&e)).caused_by(e),
        // Words made before the location was known get it now.
        Failure::Own(message) => StoreError::backend(location, message),
        Failure::Store(e) => e,
    }
}

/// The server's own words when it sent any, else the client's with their
/// cause ("invalid connection string: invalid value for option ...").
fn message(e: &tokio_postgres::Error) -> String {
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
    String::from_utf8(row.get(idx))
        .map_err(|_| failure("a stored value is not UTF-8 (written by another program?)".to_owned()))
}

fn record(row: &Row, content: usize) -> Result<Record, Failure> {
    Ok(Record { content: text(row, content)?, updated_at: row.get(content + 1) })
}

fn versions(rows: &[Row]) -> Result<Vec<Version>, Failure> {
    rows.iter().map(|row| Ok(Version { content: text(row, 0)?, at: row.get(1) })).collect()
}

/// The stored record under the key, with its row id.
async fn load(tx: &Transaction<'_>, name: &str, agent: Option<&str>) -> Result<Option<(i64, StoredSkill)>, Failure> {
    let (shared, agent) = scope(agent);
    let Some(row) = tx
        .query_opt(
            "SELECT id, content, updated_at FROM skilldeck_skill WHERE shared = $1 AND agent = $2 AND name = $3",
            &[&shared, &agent, &name.as_bytes()],
        )
        .await?
    else {
        return Ok(None);
    };
    let id: i64 = row.get(0);
    let current = record(&row, 1)?;
    let rows =
        tx.query("SELECT content, at FROM skilldeck_skill_version WHERE skill_id = $1 ORDER BY idx", &[&id]).await?;
    let stored = StoredSkill { content: current.content, updated_at: current.updated_at, history: versions(&rows)? };
    Ok(Some((id, stored)))
}

/// Writes `content` over what `load` found (`previous`), by the shared
/// history rule, and returns the new record.
async fn put(
    tx: &Transaction<'_>,
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
            )
            .await?;
            tx.execute("DELETE FROM skilldeck_skill_version WHERE skill_id = $1", &[&id]).await?;
            id
        }
        None => {
            let (shared, agent) = scope(agent);
            tx.query_one(
                "INSERT INTO skilldeck_skill (shared, agent, name, content, updated_at) \
                 VALUES ($1, $2, $3, $4, $5) RETURNING id",
                &[&shared, &agent, &name.as_bytes(), &stored.content.as_bytes(), &stored.updated_at],
            )
            .await?
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
    )
    .await?;
    Ok(stored.record())
}

/// A profile decoded from `columns`, or the problem as a store failure.
fn decoded(id: String, columns: Columns) -> Result<AgentProfile, Failure> {
    profile::decode(id, columns).map_err(failure)
}

/// Every profile, by id in byte order, with its row id and time.
async fn load_profiles(client: &impl GenericClient) -> Result<Vec<Kept<i64>>, Failure> {
    let rows =
        client.query("SELECT id, agent, skills, eager, updated_at FROM skilldeck_profile ORDER BY agent", &[]).await?;
    rows.iter()
        .map(|row| {
            let columns = Columns { skills: row.get(2), eager: row.get(3) };
            Ok(Kept { key: row.get(0), profile: decoded(text(row, 1)?, columns)?, updated_at: row.get(4) })
        })
        .collect()
}

/// The history of the profile `id`, most recent first.
async fn load_profile_versions(client: &impl GenericClient, id: &str) -> Result<Vec<ProfileVersion>, Failure> {
    let rows = client
        .query(
            "SELECT v.skills, v.eager, v.at FROM skilldeck_profile_version v \
             JOIN skilldeck_profile p ON p.id = v.profile_id WHERE p.agent = $1 ORDER BY v.idx",
            &[&id.as_bytes()],
        )
        .await?;
    rows.iter()
        .map(|row| {
            let columns = Columns { skills: row.get(0), eager: row.get(1) };
            Ok(ProfileVersion { profile: decoded(id.to_owned(), columns)?, at: row.get(2) })
        })
        .collect()
}

/// Runs one step of an `update_profiles` plan.
async fn write_profile(tx: &Transaction<'_>, step: Step<i64>, now: &str) -> Result<(), Failure> {
    match step {
        Step::Insert(profile) => {
            let Columns { skills, eager } = profile::encode(&profile);
            tx.execute(
                "INSERT INTO skilldeck_profile (agent, skills, eager, updated_at) VALUES ($1, $2, $3, $4)",
                &[&profile.id.as_bytes(), &skills, &eager, &now],
            )
            .await?;
        }
        Step::Update { key, previous, profile } => {
            let history = profile::next_history(previous, load_profile_versions(tx, &profile.id).await?);
            let Columns { skills, eager } = profile::encode(&profile);
            tx.execute(
                "UPDATE skilldeck_profile SET skills = $2, eager = $3, updated_at = $4 WHERE id = $1",
                &[&key, &skills, &eager, &now],
            )
            .await?;
            tx.execute("DELETE FROM skilldeck_profile_version WHERE profile_id = $1", &[&key]).await?;
            // The whole history in one statement, as a record's.
            let encoded: Vec<Columns> = history.iter().map(|v| profile::encode(&v.profile)).collect();
            let skills: Vec<Option<&str>> = encoded.iter().map(|c| c.skills.as_deref()).collect();
            let eager: Vec<&str> = encoded.iter().map(|c| c.eager.as_str()).collect();
            let ats: Vec<&str> = history.iter().map(|v| v.at.as_str()).collect();
            tx.execute(
                "INSERT INTO skilldeck_profile_version (profile_id, idx, skills, eager, at) \
                 SELECT $1, (v.n - 1)::integer, v.skills, v.eager, v.at \
                 FROM unnest($2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS v (skills, eager, at, n)",
                &[&key, &skills, &eager, &ats],
            )
            .await?;
        }
        Step::Delete(key) => {
            tx.execute("DELETE FROM skilldeck_profile WHERE id = $1", &[&key]).await?;
        }
    }
    Ok(())
}

impl SkillStore for PostgresStore {
    fn get(&self, name: &str, agent: Option<&str>) -> Result<Option<Record>, StoreError> {
        let (shared, agent) = scope(agent);
        self.read(async |client| {
            client
                .query_opt(
                    "SELECT content, updated_at FROM skilldeck_skill WHERE shared = $1 AND agent = $2 AND name = $3",
                    &[&shared, &agent, &name.as_bytes()],
                )
                .await?
                .map(|row| record(&row, 0))
                .transpose()
        })
    }

    fn all(&self, agent: Option<&str>) -> Result<Vec<(String, Record)>, StoreError> {
        let (shared, agent) = scope(agent);
        self.read(async |client| {
            client
                .query(
                    "SELECT name, content, updated_at FROM skilldeck_skill \
                     WHERE shared = $1 AND agent = $2 ORDER BY name",
                    &[&shared, &agent],
                )
                .await?
                .iter()
                .map(|row| Ok((text(row, 0)?, record(row, 1)?)))
                .collect()
        })
    }

    fn names(&self, agent: Option<&str>) -> Result<Vec<String>, StoreError> {
        let (shared, agent) = scope(agent);
        self.read(async |client| {
            client
                .query(
                    "SELECT name FROM skilldeck_skill WHERE shared = $1 AND agent = $2 ORDER BY name",
                    &[&shared, &agent],
                )
                .await?
                .iter()
                .map(|row| text(row, 0))
                .collect()
        })
    }

    fn agents(&self) -> Result<Vec<String>, StoreError> {
        self.read(async |client| {
            client
                .query("SELECT DISTINCT agent FROM skilldeck_skill WHERE NOT shared ORDER BY agent", &[])
                .await?
                .iter()
                .map(|row| text(row, 0))
                .collect()
        })
    }

    fn write(
        &self,
        name: &str,
        content: &str,
        agent: Option<&str>,
        precondition: &Precondition,
    ) -> Result<Record, StoreError> {
        self.write_tx(async |tx| {
            let previous = load(tx, name, agent).await?;
            may_write(name, agent, precondition, previous.as_ref().map(|(_, p)| p.content.as_str()))?;
            put(tx, name, content.to_owned(), agent, previous).await
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
        self.write_tx(async |tx| {
            let (id, current) =
                load(tx, from, agent).await?.ok_or_else(|| StoreError::NotFound { name: from.to_owned() })?;
            may_write(from, agent, precondition, Some(&current.content))?;
            let taken = load(tx, to, agent).await?;
            may_write(to, agent, &Precondition::Absent, taken.as_ref().map(|(_, s)| s.content.as_str()))?;
            // The row keeps its id, so its history (keyed by it) moves with it.
            tx.execute("UPDATE skilldeck_skill SET name = $2 WHERE id = $1", &[&id, &to.as_bytes()]).await?;
            put(tx, to, content.to_owned(), agent, Some((id, current))).await
        })
    }

    fn delete(&self, name: &str, agent: Option<&str>) -> Result<bool, StoreError> {
        let (shared, scope_agent) = scope(agent);
        self.write_tx(async |tx| {
            let deleted = tx
                .execute(
                    "DELETE FROM skilldeck_skill WHERE shared = $1 AND agent = $2 AND name = $3",
                    &[&shared, &scope_agent, &name.as_bytes()],
                )
                .await?;
            Ok(deleted != 0)
        })
    }

    fn versions(&self, name: &str, agent: Option<&str>) -> Result<Vec<Version>, StoreError> {
        let (shared, agent) = scope(agent);
        self.read(async |client| {
            let rows = client
                .query(
                    "SELECT v.content, v.at FROM skilldeck_skill_version v \
                     JOIN skilldeck_skill s ON s.id = v.skill_id \
                     WHERE s.shared = $1 AND s.agent = $2 AND s.name = $3 ORDER BY v.idx",
                    &[&shared, &agent, &name.as_bytes()],
                )
                .await?;
            versions(&rows)
        })
    }

    fn restore(&self, name: &str, index: i64, agent: Option<&str>) -> Result<Record, StoreError> {
        self.write_tx(async |tx| {
            let previous = load(tx, name, agent).await?;
            let content = restored_version(name, agent, previous.as_ref().map(|(_, stored)| stored), index)?;
            put(tx, name, content, agent, previous).await
        })
    }

    fn profiles(&self) -> Result<Vec<AgentProfile>, StoreError> {
        self.read(async |client| Ok(load_profiles(client).await?.into_iter().map(|kept| kept.profile).collect()))
    }

    fn update_profiles(&self, change: &mut dyn FnMut(&mut Vec<AgentProfile>)) -> Result<(), StoreError> {
        self.write_tx(async |tx| {
            let steps = profile::plan(load_profiles(tx).await?, change)?;
            let now = now_utc();
            for step in steps {
                write_profile(tx, step, &now).await?;
            }
            Ok(())
        })
    }

    fn profile_versions(&self, id: &str) -> Result<Vec<ProfileVersion>, StoreError> {
        self.read(async |client| load_profile_versions(client, id).await)
    }

    /// The notifications this handle has heard, its own writes' included.
    fn change_token(&self) -> Result<Option<i64>, StoreError> {
        // The connection reads the socket only while a call waits: an empty
        // query is a round trip that takes in whatever the server sent
        // before it, and `with` counts it.
        self.with(async |client, _| Ok(client.batch_execute("").await?))?;
        Ok(Some(self.lock().changes))
    }
}
