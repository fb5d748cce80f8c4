//! `skills-lock.json`: the `skills` package's project lock, which skilldeck
//! reads and writes, plus skilldeck's own fields.
//!
//! The format, and how `computedHash` is computed, are written down on [`Lock`].

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::files::{self, FilesError};

mod collate;
mod merge;

/// The project lock's file name (the engine's, whose catalog checks installed skills against it).
pub const LOCK_FILE: &str = skilldeck::LOCK_FILE;

/// The lock format's version, the `skills` package's `CURRENT_VERSION`.
pub const LOCK_VERSION: u64 = 1;

/// The global lock's file name, in `~/.agents` (the `skills` package's `.skill-lock.json`).
pub const GLOBAL_LOCK_FILE: &str = ".skill-lock.json";

/// The global lock format's version (the package's `CURRENT_VERSION` for it):
/// a global lock below it is read by the package as empty.
pub const GLOBAL_LOCK_VERSION: u64 = 3;

/// A `skills-lock.json`.
///
/// # The `skills` package's format (npm `skills` 1.7.4, `dist/cli.mjs`)
///
/// Read from `writeLocalLock`, `readLocalLock`, `projectLockEntry` and
/// `computeSkillFolderHash` of the published package (`npm pack skills@1.7.4`):
///
/// - The file is `JSON.stringify({version, skills}, null, 2) + "\n"`: two
///   spaces of indentation, `": "` after a key, one line break at the end, no
///   other top-level key (the package drops any it read). `version` is `1`
///   (`CURRENT_VERSION`); a lock whose `version` is not a number, or is below
///   1, or that has no `skills`, is read by the package as an empty lock.
/// - `skills` maps each skill's name to its entry, the names sorted by
///   `Array.prototype.sort` (UTF-16 code units); since the object is rebuilt
///   with `Object.fromEntries`, names that are array indices (`"0"`, `"42"`)
///   come first in numeric order, as JavaScript enumerates them.
/// - An entry's keys, in this order, those without a value left out:
///   `source` (`owner/repo` for GitHub, the URL for other git sources, a
///   `./`-relative `/`-separated path for a local one), `sourceUrl` (the
///   clone URL, only for `sourceType` `git` and `gitlab`), `ref` (the ref the
///   user asked for, when one was), `sourceType` (`github`, `gitlab`, `git`,
///   `local`, …), `skillPath` (the `SKILL.md`'s path in the repository,
///   `skills/x/SKILL.md`, or `SKILL.md` at its root), `computedHash`. There is
///   no timestamp and no commit.
///
/// # `computedHash`
///
/// `computeSkillFolderHash(dir)` over the skill's directory in the fetched
/// source (the clone, before copying):
///
/// 1. every regular file below `dir`, recursively, not entering directories
///    named `.git` or `node_modules` (at any depth); symbolic links are left
///    out (Node's `Dirent` of a link is neither a file nor a directory);
/// 2. each named by its path relative to `dir` with `/` separators;
/// 3. sorted by `a.relativePath.localeCompare(b.relativePath)` (ICU's
///    collation, not code point order: `reference.md` < `scripts/x.py` <
///    `SKILL.md`; see `collate.rs`);
/// 4. one SHA-256 over, for each file in that order, the path's UTF-8 bytes
///    and then the file's bytes, with no separator and no length;
/// 5. written as 64 lowercase hexadecimal digits, with no `sha256:` prefix.
///
/// # The global lock (`--global`)
///
/// `~/.agents/.skill-lock.json` is another format of the package's
/// (`readSkillLock`, `writeSkillLock`, `addSkillToLock`): `version` 3
/// ([`GLOBAL_LOCK_VERSION`]), `skills`, and `dismissed` (kept, as any other
/// top-level key); `JSON.stringify(lock, null, 2)` with no line break at the
/// end; an entry's keys `source`, `sourceType`, `sourceUrl`, `ref`,
/// `skillPath`, `skillFolderHash` (what [`LockEntry::computed_hash`] holds:
/// the hash above, which the package also writes for a source that is not on
/// GitHub and accepts for one that is), then `installedAt` and `updatedAt`
/// (ISO 8601 times, kept with the entry's other keys). A lock is this format
/// when its `version` is 3 or more ([`Lock::is_global`]).
///
/// # skilldeck's fields
///
/// After the package's keys, in an entry: `commit` (the resolved commit, 40
/// hex digits; absent for a local source), `files` (every installed file's
/// path, `/`-separated, to `sha256:` and its lowercase hex digest, by path)
/// `links` (the hosts, by [`Host::name`](crate::Host::name), whose own
/// place shows the skill through a link; absent when none) and `pinned`
/// (`true` for a skill `update` leaves at its commit; absent otherwise).
/// Unknown keys, in an entry or at the top level, are kept as read when
/// skilldeck rewrites the lock, after the known ones. The `skills` package
/// keeps entries' extra keys too (it spreads the entry it read), so it
/// tolerates skilldeck's.
///
/// # Example
///
/// ```
/// use skilldeck_install::{Lock, LockEntry};
///
/// let mut lock = Lock::default();
/// let mut entry = LockEntry::new("acme/skills", "github", "0".repeat(64));
/// entry.skill_path = Some("skills/lint/SKILL.md".into());
/// lock.skills.insert("lint".into(), entry);
/// let text = lock.to_json();
/// assert!(text.starts_with("{\n  \"version\": 1,\n  \"skills\": {\n    \"lint\": {\n      \"source\": \"acme/skills\",\n"));
/// assert_eq!(Lock::from_json(&text, "skills-lock.json".as_ref())?, lock);
/// # Ok::<(), skilldeck_install::LockError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Lock {
    /// The format's version.
    pub version: u64,
    /// The entries by skill name.
    pub skills: BTreeMap<String, LockEntry>,
    /// Top-level keys other than `version` and `skills`, as read.
    pub extra: Map<String, Value>,
}

impl Default for Lock {
    fn default() -> Self {
        Lock { version: LOCK_VERSION, skills: BTreeMap::new(), extra: Map::new() }
    }
}

/// One skill's entry.
#[derive(Clone, Debug, PartialEq)]
pub struct LockEntry {
    /// `source`.
    pub source: String,
    /// `sourceUrl`.
    pub source_url: Option<String>,
    /// `ref`: the branch, tag or commit asked for.
    pub reference: Option<String>,
    /// `sourceType`.
    pub source_type: String,
    /// `skillPath`: the `SKILL.md`'s path in the source.
    pub skill_path: Option<String>,
    /// `computedHash` (see [`Lock`]).
    pub computed_hash: String,
    /// `commit` (skilldeck's): the commit installed.
    pub commit: Option<String>,
    /// `files` (skilldeck's): every installed file's `sha256:` digest, by path.
    pub files: Option<BTreeMap<String, String>>,
    /// `links` (skilldeck's): the hosts whose own place links to the skill,
    /// by [`Host::name`](crate::Host::name), in [`HOSTS`](crate::HOSTS)' order.
    pub links: Vec<String>,
    /// `pinned` (skilldeck's): `update` leaves the skill at its commit.
    pub pinned: bool,
    /// Other keys, as read.
    pub extra: Map<String, Value>,
}

impl LockEntry {
    /// An entry with only the keys every entry has.
    pub fn new(source: impl Into<String>, source_type: impl Into<String>, computed_hash: impl Into<String>) -> Self {
        LockEntry {
            source: source.into(),
            source_url: None,
            reference: None,
            source_type: source_type.into(),
            skill_path: None,
            computed_hash: computed_hash.into(),
            commit: None,
            files: None,
            links: Vec::new(),
            pinned: false,
            extra: Map::new(),
        }
    }
}

/// A lock that cannot be read or written.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Reading or writing failed.
    #[error("{path}: {source}")]
    Io {
        /// The lock file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Not JSON.
    #[error("{path}: not JSON: {source}")]
    Json {
        /// The lock file.
        path: PathBuf,
        /// Where and why.
        source: serde_json::Error,
    },
    /// Git's conflict markers, around two sides that disagree.
    #[error("{path}: a merge conflict the two sides disagree on: {what} differs; resolve it by hand")]
    Conflict {
        /// The lock file.
        path: PathBuf,
        /// What differs: a skill, or a top-level key.
        what: String,
    },
    /// JSON, but not a lock's shape.
    #[error("{path}: {message}")]
    Shape {
        /// The lock file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

impl Lock {
    /// An empty global lock, as the package makes one (`createEmptyLockFile`).
    ///
    /// ```
    /// let lock = skilldeck_install::Lock::global();
    /// assert_eq!(lock.to_json(), "{\n  \"version\": 3,\n  \"skills\": {},\n  \"dismissed\": {}\n}");
    /// ```
    pub fn global() -> Lock {
        let mut extra = Map::new();
        extra.insert("dismissed".into(), Value::Object(Map::new()));
        Lock { version: GLOBAL_LOCK_VERSION, skills: BTreeMap::new(), extra }
    }

    /// Whether this is the global lock's format (`version` 3 or more).
    pub fn is_global(&self) -> bool {
        self.version >= GLOBAL_LOCK_VERSION
    }

    /// Reads `path`; a missing file is an empty lock.
    ///
    /// # Errors
    ///
    /// [`LockError`]: the file cannot be read, is not JSON, or not a lock.
    pub fn read(path: &Path) -> Result<Lock, LockError> {
        match fs::read_to_string(path) {
            Ok(text) => Lock::from_json(&text, path),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Lock::default()),
            Err(source) => Err(LockError::Io { path: path.to_path_buf(), source }),
        }
    }

    /// Parses a lock's text; `path` only names it in errors. A text with
    /// git's conflict markers (two branches that each added a skill) is read
    /// as both its sides, merged: every skill of either, and an error naming
    /// a skill the two give differently. The next write leaves it resolved.
    ///
    /// ```
    /// use skilldeck_install::{Lock, LockEntry};
    ///
    /// let side = |name: &str| {
    ///     let mut lock = Lock::default();
    ///     lock.skills.insert(name.into(), LockEntry::new("acme/skills", "github", "0".repeat(64)));
    ///     lock.to_json()
    /// };
    /// let (a, b) = (side("alpha"), side("beta"));
    /// let (a, b): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    /// // Both sides share every line but the entry's name.
    /// let text = format!("{}\n<<<<<<< HEAD\n{}\n=======\n{}\n>>>>>>> other\n{}\n",
    ///     a[..3].join("\n"), a[3], b[3], a[4..].join("\n"));
    /// let lock = Lock::from_json(&text, "skills-lock.json".as_ref())?;
    /// assert_eq!(lock.skills.keys().collect::<Vec<_>>(), ["alpha", "beta"]);
    /// # Ok::<(), skilldeck_install::LockError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`LockError::Json`], [`LockError::Shape`], or [`LockError::Conflict`].
    pub fn from_json(text: &str, path: &Path) -> Result<Lock, LockError> {
        match merge::sides(text) {
            Some((ours, theirs)) => merge::merged(Lock::parse(&ours, path)?, Lock::parse(&theirs, path)?, path),
            None => Lock::parse(text, path),
        }
    }

    /// [`Lock::from_json`] of a text without conflict markers.
    fn parse(text: &str, path: &Path) -> Result<Lock, LockError> {
        let shape = |message: String| LockError::Shape { path: path.to_path_buf(), message };
        let value: Value =
            serde_json::from_str(text).map_err(|source| LockError::Json { path: path.to_path_buf(), source })?;
        let Value::Object(mut top) = value else { return Err(shape("not a JSON object".into())) };
        let version = top
            .remove("version")
            .and_then(|v| v.as_u64())
            .filter(|&v| v >= 1)
            .ok_or_else(|| shape("`version` is not a number from 1 up".into()))?;
        let Some(Value::Object(skills)) = top.remove("skills") else {
            return Err(shape("`skills` is not an object".into()));
        };
        let mut entries = BTreeMap::new();
        for (name, value) in skills {
            let Value::Object(mut fields) = value else {
                return Err(shape(format!("skill {name:?}: not an object")));
            };
            let mut text = |key: &str, required: bool| -> Result<Option<String>, LockError> {
                match fields.remove(key) {
                    Some(Value::String(s)) => Ok(Some(s)),
                    None if !required => Ok(None),
                    _ => Err(shape(format!("skill {name:?}: `{key}` is not a string"))),
                }
            };
            let source = text("source", true)?.unwrap_or_default();
            let source_url = text("sourceUrl", false)?;
            let reference = text("ref", false)?;
            let source_type = text("sourceType", true)?.unwrap_or_default();
            let skill_path = text("skillPath", false)?;
            let hash_key = if version >= GLOBAL_LOCK_VERSION { "skillFolderHash" } else { "computedHash" };
            let computed_hash = text(hash_key, false)?.unwrap_or_default();
            let commit = text("commit", false)?;
            let files = match fields.remove("files") {
                None => None,
                Some(Value::Object(map)) => Some(
                    map.into_iter()
                        .map(|(rel, digest)| match digest {
                            Value::String(d) if is_digest(&d) => Ok((rel, d)),
                            _ => Err(shape(format!("skill {name:?}: file {rel:?}: not a sha256: digest"))),
                        })
                        .collect::<Result<_, _>>()?,
                ),
                Some(_) => return Err(shape(format!("skill {name:?}: `files` is not an object"))),
            };
            let links = match fields.remove("links") {
                None => Vec::new(),
                Some(Value::Array(hosts)) => hosts
                    .into_iter()
                    .map(|host| match host {
                        Value::String(host) => Ok(host),
                        _ => Err(shape(format!("skill {name:?}: `links` holds a value that is not a host's name"))),
                    })
                    .collect::<Result<_, _>>()?,
                Some(_) => return Err(shape(format!("skill {name:?}: `links` is not an array"))),
            };
            let pinned = match fields.remove("pinned") {
                None => false,
                Some(Value::Bool(pinned)) => pinned,
                Some(_) => return Err(shape(format!("skill {name:?}: `pinned` is not true or false"))),
            };
            let entry = LockEntry {
                source,
                source_url,
                reference,
                source_type,
                skill_path,
                computed_hash,
                commit,
                files,
                links,
                pinned,
                extra: fields,
            };
            entries.insert(name, entry);
        }
        Ok(Lock { version, skills: entries, extra: top })
    }

    /// The lock's text, as [`Lock`] says.
    pub fn to_json(&self) -> String {
        let mut top = Map::new();
        top.insert("version".into(), Value::from(self.version));
        let mut skills = Map::new();
        for name in js_key_order(self.skills.keys()) {
            if let Some(entry) = self.skills.get(name) {
                skills.insert(name.clone(), entry_json(entry, self.is_global()));
            }
        }
        top.insert("skills".into(), Value::Object(skills));
        for (key, value) in &self.extra {
            top.insert(key.clone(), value.clone());
        }
        let mut text = serde_json::to_string_pretty(&Value::Object(top)).unwrap_or_default();
        if !self.is_global() {
            text.push('\n');
        }
        text
    }

    /// Writes the lock to `path` atomically: a temporary file beside it,
    /// flushed to disk, then renamed over it.
    ///
    /// # Errors
    ///
    /// [`LockError::Io`] naming the file.
    pub fn write(&self, path: &Path) -> Result<(), LockError> {
        let err = |source| LockError::Io { path: path.to_path_buf(), source };
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let temp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
        let written = (|| {
            let mut file = fs::File::create(&temp)?;
            file.write_all(self.to_json().as_bytes())?;
            file.sync_all()?;
            fs::rename(&temp, path)
        })();
        if written.is_err() {
            let _ = fs::remove_file(&temp);
        }
        written.map_err(err)
    }
}

/// An entry's JSON, in the project lock's layout or the global one's.
fn entry_json(entry: &LockEntry, global: bool) -> Value {
    let mut out = Map::new();
    let mut put = |key: &str, value: &Option<String>| {
        if let Some(v) = value {
            out.insert(key.into(), Value::String(v.clone()));
        }
    };
    let (source, source_type) = (Some(entry.source.clone()), Some(entry.source_type.clone()));
    if global {
        put("source", &source);
        put("sourceType", &source_type);
        put("sourceUrl", &entry.source_url);
        put("ref", &entry.reference);
        put("skillPath", &entry.skill_path);
        put("skillFolderHash", &Some(entry.computed_hash.clone()));
    } else {
        put("source", &source);
        put("sourceUrl", &entry.source_url);
        put("ref", &entry.reference);
        put("sourceType", &source_type);
        put("skillPath", &entry.skill_path);
        put("computedHash", &Some(entry.computed_hash.clone()));
    }
    for (key, value) in &entry.extra {
        out.insert(key.clone(), value.clone());
    }
    if let Some(commit) = &entry.commit {
        out.insert("commit".into(), Value::String(commit.clone()));
    }
    if let Some(files) = &entry.files {
        let mut map = Map::new();
        for rel in js_key_order(files.keys()) {
            if let Some(d) = files.get(rel) {
                map.insert(rel.clone(), Value::String(d.clone()));
            }
        }
        out.insert("files".into(), Value::Object(map));
    }
    if !entry.links.is_empty() {
        out.insert("links".into(), Value::from(entry.links.clone()));
    }
    if entry.pinned {
        out.insert("pinned".into(), Value::Bool(true));
    }
    Value::Object(out)
}

fn is_digest(text: &str) -> bool {
    text.strip_prefix("sha256:")
        .is_some_and(|hex| hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)))
}

/// Keys in the order `JSON.stringify(Object.fromEntries(keys.sort()))`
/// writes them: array indices first, numerically, then the rest by UTF-16
/// code units.
fn js_key_order<'a>(keys: impl Iterator<Item = &'a String>) -> Vec<&'a String> {
    let index = |k: &str| -> Option<u64> {
        let canonical = k == "0" || (!k.starts_with('0') && !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()));
        k.parse::<u64>().ok().filter(|&n| canonical && n < u64::from(u32::MAX))
    };
    let mut keys: Vec<&String> = keys.collect();
    keys.sort_by(|a, b| match (index(a), index(b)) {
        (Some(x), Some(y)) => x.cmp(&y),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => a.encode_utf16().cmp(b.encode_utf16()),
    });
    keys
}

/// The `skills` package's `computedHash` of a skill directory, exactly as
/// its `computeSkillFolderHash` computes it (see [`Lock`]).
///
/// ```
/// let dir = tempfile::tempdir()?;
/// std::fs::write(dir.path().join("SKILL.md"), "---\nname: x\n---\n")?;
/// let hash = skilldeck_install::computed_hash(dir.path())?;
/// assert_eq!(hash.len(), 64);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// [`FilesError`]: a file that cannot be read, or a skill out of bounds.
pub fn computed_hash(dir: &Path) -> Result<String, FilesError> {
    let mut regular: Vec<_> = files::collect(dir)?.into_iter().filter(|f| !f.link).collect();
    regular.sort_by(|a, b| collate::locale_compare(&a.rel, &b.rel));
    let mut hash = Sha256::new();
    for file in &regular {
        hash.update(file.rel.as_bytes());
        hash.update(files::read(&file.path)?);
    }
    Ok(files::hex(&hash.finalize()))
}
