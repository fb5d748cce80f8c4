//! What a skill store's SQLite schema is, and the refusal of any other: a
//! trigger, a view, a table or an index skilldeck did not make would run,
//! or be read, inside the store's own statements (a trigger that deletes
//! the history on every write), so a file holding one is not used.

use rusqlite::Connection;

/// How a store's schema differs from the one skilldeck makes: the
/// [`source`](std::error::Error::source) of the
/// [`StoreError::Backend`](skilldeck::store::StoreError::Backend) a SQLite
/// store is refused with.
///
/// # Example
///
/// ```
/// use std::error::Error;
/// use skilldeck_store::{ForeignSchema, SqliteStore};
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("skills.db");
/// drop(SqliteStore::open(&path)?);
/// rusqlite::Connection::open(&path)?
///     .execute_batch("CREATE TRIGGER purge AFTER UPDATE ON skill BEGIN DELETE FROM skill_version; END")?;
/// let refused = SqliteStore::open(&path).unwrap_err();
/// let foreign = refused.source().and_then(|s| s.downcast_ref::<ForeignSchema>()).unwrap();
/// assert_eq!(foreign, &ForeignSchema::Foreign { kind: "trigger".into(), name: "purge".into() });
/// assert!(refused.to_string().ends_with("holds trigger 'purge', which skilldeck did not make: refusing to use it"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ForeignSchema {
    /// An object skilldeck does not make: a trigger, a view, or another
    /// table or index.
    #[error("holds {kind} '{name}', which skilldeck did not make")]
    Foreign {
        /// `trigger`, `view`, `table` or `index`.
        kind: String,
        /// Its name.
        name: String,
    },
    /// One of skilldeck's own objects, defined otherwise or gone.
    #[error("its {kind} '{name}' is not as skilldeck made it")]
    Changed {
        /// `table` or `index`.
        kind: String,
        /// Its name.
        name: String,
    },
}

/// One row of `sqlite_schema`.
#[derive(PartialEq, Eq)]
struct Object {
    kind: String,
    name: String,
    table: String,
    sql: Option<String>,
}

fn objects(conn: &Connection) -> rusqlite::Result<Vec<Object>> {
    // The planner's statistics (`ANALYZE`) are SQLite's own and change no statement.
    conn.prepare(
        "SELECT type, name, tbl_name, sql FROM sqlite_schema \
         WHERE NOT (type = 'table' AND name LIKE 'sqlite\\_stat%' ESCAPE '\\') ORDER BY name, type",
    )?
    .query_map([], |row| {
        // `ALTER TABLE … RENAME` writes the names it rewrites in double
        // quotes (`ON "skill" (name)`): a table renamed and renamed back is
        // still the one skilldeck made.
        let sql = row.get::<_, Option<String>>(3)?.map(|sql| sql.replace('"', ""));
        Ok(Object { kind: row.get(0)?, name: row.get(1)?, table: row.get(2)?, sql })
    })?
    .collect()
}

/// Checks that `conn`'s schema is exactly what the first `version` steps of
/// `migrations` make, as an empty in-memory database shows them. Only
/// reads `conn`.
///
/// # Errors
///
/// The first difference as a `ForeignSchema` (an object skilldeck did not
/// make first), inside `Ok`; the outer error is the driver's.
pub(crate) fn check(
    conn: &Connection,
    migrations: &[&str],
    version: usize,
) -> rusqlite::Result<Result<(), ForeignSchema>> {
    let made = Connection::open_in_memory()?;
    for sql in migrations.iter().take(version) {
        made.execute_batch(sql)?;
    }
    let (ours, theirs) = (objects(&made)?, objects(conn)?);
    let same_object = |a: &Object, b: &Object| a.kind == b.kind && a.name == b.name;
    for object in &theirs {
        match ours.iter().find(|o| same_object(o, object)) {
            None => return Ok(Err(ForeignSchema::Foreign { kind: object.kind.clone(), name: object.name.clone() })),
            Some(own) if own != object => {
                return Ok(Err(ForeignSchema::Changed { kind: object.kind.clone(), name: object.name.clone() }));
            }
            Some(_) => {}
        }
    }
    match ours.iter().find(|own| !theirs.iter().any(|o| same_object(o, own))) {
        Some(gone) => Ok(Err(ForeignSchema::Changed { kind: gone.kind.clone(), name: gone.name.clone() })),
        None => Ok(Ok(())),
    }
}
