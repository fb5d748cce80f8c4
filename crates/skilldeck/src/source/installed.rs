//! The load-time check of installed skills: a skill in a project's
//! `.agents/skills/NAME` is held against the `files` digests that the
//! project's `skills-lock.json` records for `NAME` (what `skilldeck add`
//! and `install` write, see the `skilldeck-install` crate).
//!
//! The engine reads only that part of the lock, and never depends on the
//! crate that writes it: the lock's place is a convention of the project's
//! layout, as the conventional roots are, so the catalog finds it from the
//! skill's directory alone, in every build and every reload.
//!
//! Cost: the `SKILL.md` is digested from the bytes the walk read for its
//! frontmatter when that read took the whole file (most do); the skill's
//! other files are listed (one `read_dir` per directory) and each read once.
//! A project without a lock costs one `stat` per walk.
//!
//! With stamps kept ([`CatalogBuilder::installed_stamps`](crate::CatalogBuilder::installed_stamps)),
//! a file whose `stat` (device, inode, size, modification and change times)
//! is the one it had when it was last read and digested is not read again:
//! one `stat` instead of a read. The change time is the kernel's own (no
//! tool sets it back), so an edit always shows; a stamp younger than
//! [`SETTLED`] is not kept, as a write in the same clock tick as the read
//! could leave the times as they were (git's "racy" entries).

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use sha2::{Digest, Sha256};

use serde::{Deserialize, Serialize};

use crate::model::FileChange;
use crate::source::confine::MAX_SERVED_BYTES;
use crate::source::walk::{SKILL_MD, SKIPPED_DIRS};

/// The project lock's file name, in the project's directory.
pub const LOCK_FILE: &str = "skills-lock.json";

/// Where a project's installed skills are, relative to it.
pub const PROJECT_SKILLS_DIR: &str = ".agents/skills";

/// What the check found for a skill in a project's `.agents/skills`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Integrity {
    /// The lock names it and its files are the lock's (or the lock's entry
    /// records no `files`, as the `skills` package writes it: nothing to check).
    Intact,
    /// The lock names it; this file is the first that differs.
    Differs {
        /// The project's lock.
        lock: PathBuf,
        /// The file, `/`-separated below the skill's directory.
        file: String,
        /// How.
        change: FileChange,
    },
    /// No lock names it: there is none, it has no entry of this name, or it
    /// cannot be read (`problem`).
    Unnamed {
        /// The project's lock.
        lock: PathBuf,
        /// Why the lock cannot be read, when it is there but unreadable.
        problem: Option<String>,
    },
}

type Sha = [u8; 32];

/// How old a file's change time must be for its stamp to be kept.
const SETTLED: std::time::Duration = std::time::Duration::from_secs(2);

/// A file's `stat` as a stamp compares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Stat {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl Stat {
    #[cfg(unix)]
    fn of(meta: &fs::Metadata) -> Option<Stat> {
        use std::os::unix::fs::MetadataExt;
        Some(Stat {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
        })
    }

    /// Elsewhere there is no change time: nothing is stamped.
    #[cfg(not(unix))]
    fn of(_meta: &fs::Metadata) -> Option<Stat> {
        None
    }

    /// Whether the file last changed at least [`SETTLED`] before `now`.
    fn settled(&self, now: std::time::SystemTime) -> bool {
        let since_epoch = now.duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        let changed = std::time::Duration::new(self.ctime.0.max(0) as u64, self.ctime.1.clamp(0, 999_999_999) as u32);
        since_epoch.saturating_sub(changed) >= SETTLED
    }
}

/// The stamps of one project's installed files: each file's `stat` when
/// it was last digested, and the digest, kept in a file between runs.
#[derive(Default)]
struct Stamps {
    /// The file they are kept in; `None`: not kept.
    file: Option<PathBuf>,
    known: HashMap<PathBuf, (Stat, Sha)>,
    /// The files this walk looked up: a stamp of another is kept only while
    /// its file is there (a removed skill's stamps go).
    used: std::collections::HashSet<PathBuf>,
    changed: bool,
}

/// The stamps file's shape: a version, then the stamps.
#[derive(Serialize, Deserialize)]
struct StampsFile {
    version: u32,
    stamps: Vec<(PathBuf, Stat, String)>,
}

/// The stamps file's format version: a file of another is not read.
const STAMPS_VERSION: u32 = 1;

impl Stamps {
    /// The stamps kept in `dir` for the lock at `lock` (none when the file
    /// is missing, damaged or of another version: then every file is read).
    fn load(dir: Option<&Path>, lock: &Path) -> Stamps {
        let Some(dir) = dir else { return Stamps::default() };
        let key = hex(&Sha256::digest(lock.as_os_str().as_encoded_bytes())[..8]);
        let file = dir.join(format!("installed-{key}.json"));
        let read = fs::read(&file).ok().and_then(|bytes| serde_json::from_slice::<StampsFile>(&bytes).ok());
        let known = read
            .filter(|f| f.version == STAMPS_VERSION)
            .map(|f| f.stamps.into_iter().filter_map(|(path, stat, hex)| Some((path, (stat, sha_of(&hex)?)))).collect())
            .unwrap_or_default();
        Stamps { file: Some(file), known, used: Default::default(), changed: false }
    }

    /// The digest of the file at `path`, whose `stat` is `meta`: the kept
    /// one when the stamp is the same, else read (and stamped, if settled).
    /// The stamps are not held while the file is read: the walk's threads
    /// read a project's files at once.
    fn digest(stamps: &Mutex<Stamps>, path: &Path, meta: Option<&fs::Metadata>) -> Option<Sha> {
        let lock = || stamps.lock().unwrap_or_else(PoisonError::into_inner);
        let stat = {
            let mut kept = lock();
            let stat = if kept.file.is_some() { meta.and_then(Stat::of) } else { None };
            if stat.is_some() {
                kept.used.insert(path.to_path_buf());
            }
            if let Some(stat) = stat
                && let Some((known, sha)) = kept.known.get(path)
                && *known == stat
            {
                return Some(*sha);
            }
            stat
        };
        let sha = digest(path)?;
        if let Some(stat) = stat.filter(|s| s.settled(std::time::SystemTime::now())) {
            let mut kept = lock();
            kept.known.insert(path.to_path_buf(), (stat, sha));
            kept.changed = true;
        }
        Some(sha)
    }

    /// Writes the stamps back when they changed: to a temporary file beside
    /// theirs, renamed over it, readable by the user alone. A stamp file
    /// that cannot be written is no error: the next run reads the files.
    fn save(&mut self) {
        let Some(file) = self.file.clone().filter(|_| self.changed) else { return };
        let used = &self.used;
        self.known.retain(|path, _| used.contains(path) || path.exists());
        let stamps = self.known.iter().map(|(path, (stat, sha))| (path.clone(), *stat, format!("sha256:{}", hex(sha))));
        let shape = StampsFile { version: STAMPS_VERSION, stamps: stamps.collect() };
        let Ok(bytes) = serde_json::to_vec(&shape) else { return };
        let Some(dir) = file.parent() else { return };
        let temp =
            dir.join(format!(".{}.{}.tmp", file.file_name().unwrap_or_default().to_string_lossy(), std::process::id()));
        let written = fs::create_dir_all(dir).and_then(|()| {
            let mut options = fs::OpenOptions::new();
            options.write(true).create(true).truncate(true);
            #[cfg(unix)]
            std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
            std::io::Write::write_all(&mut options.open(&temp)?, &bytes)?;
            fs::rename(&temp, &file)
        });
        if written.is_err() {
            let _ = fs::remove_file(&temp);
        }
    }
}

/// One entry of a lock: its files' digests (`None` for a digest that is not
/// one), or `None` for an entry that records no files.
type Entry = Option<BTreeMap<String, Option<Sha>>>;

/// A project's lock as the check needs it.
struct ProjectLock {
    path: PathBuf,
    /// The entries by name; `Err(None)`: no lock; `Err(Some(why))`: unreadable.
    entries: Result<HashMap<String, Entry>, Option<String>>,
    stamps: Mutex<Stamps>,
}

/// The locks of one walk, each read once, on first need.
#[derive(Default)]
pub(crate) struct Locks {
    read: Mutex<HashMap<PathBuf, Arc<ProjectLock>>>,
    /// Where stamps are kept, if they are.
    stamps: Option<PathBuf>,
}

impl Locks {
    /// The locks of a walk that keeps stamps in `stamps` (none: every
    /// installed file is read).
    pub(crate) fn new(stamps: Option<PathBuf>) -> Locks {
        Locks { read: Mutex::default(), stamps }
    }

    /// Writes back the stamps that changed during the walk.
    pub(crate) fn save(&self) {
        let read = self.read.lock().unwrap_or_else(PoisonError::into_inner);
        for lock in read.values() {
            lock.stamps.lock().unwrap_or_else(PoisonError::into_inner).save();
        }
    }

    /// The check of the skill in `dir` (absolute), whose `SKILL.md`'s first
    /// bytes the walk read into `head`; `None` when `dir` is not a project's
    /// `.agents/skills/NAME`.
    pub(crate) fn check(&self, dir: &Path, head: &[u8]) -> Option<Integrity> {
        let skills = dir.parent()?;
        let agents = skills.parent()?;
        if skills.file_name()? != "skills" || agents.file_name()? != ".agents" {
            return None;
        }
        let name = dir.file_name()?.to_str()?;
        let lock = self.lock(agents.parent()?);
        let unnamed = |problem| Some(Integrity::Unnamed { lock: lock.path.clone(), problem });
        let entries = match &lock.entries {
            Ok(entries) => entries,
            Err(problem) => return unnamed(problem.clone()),
        };
        match entries.get(name) {
            None => unnamed(None),
            Some(None) => Some(Integrity::Intact),
            Some(Some(files)) => Some(match first_difference(dir, files, head, &lock.stamps) {
                None => Integrity::Intact,
                Some((file, change)) => Integrity::Differs { lock: lock.path.clone(), file, change },
            }),
        }
    }

    fn lock(&self, project: &Path) -> Arc<ProjectLock> {
        let mut read = self.read.lock().unwrap_or_else(PoisonError::into_inner);
        let stamps = self.stamps.as_deref();
        read.entry(project.to_path_buf()).or_insert_with(|| Arc::new(ProjectLock::read(project, stamps))).clone()
    }
}

impl ProjectLock {
    fn read(project: &Path, stamps: Option<&Path>) -> ProjectLock {
        let path = project.join(LOCK_FILE);
        let entries = match fs::read(&path) {
            Ok(bytes) => parse(&bytes).map_err(Some),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(None),
            Err(e) => Err(Some(e.to_string())),
        };
        let stamps = match entries {
            Ok(_) => Stamps::load(stamps, &path),
            Err(_) => Stamps::default(),
        };
        ProjectLock { path, entries, stamps: Mutex::new(stamps) }
    }
}

/// The `skills.NAME.files` of a lock's text; every other key is the
/// `skilldeck-install` crate's to read.
fn parse(bytes: &[u8]) -> Result<HashMap<String, Entry>, String> {
    let value: serde_json::Value = serde_json::from_slice(bytes).map_err(|e| format!("not JSON: {e}"))?;
    let skills = value.get("skills").and_then(|s| s.as_object()).ok_or("`skills` is not an object")?;
    let mut out = HashMap::with_capacity(skills.len());
    for (name, entry) in skills {
        let files = entry
            .get("files")
            .and_then(|f| f.as_object())
            .map(|files| files.iter().map(|(rel, digest)| (rel.clone(), digest.as_str().and_then(sha_of))).collect());
        out.insert(name.clone(), files);
    }
    Ok(out)
}

/// `bytes` as lowercase hex digits.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The bytes of a `sha256:` and 64 lowercase hex digits.
fn sha_of(text: &str) -> Option<Sha> {
    let hex = text.strip_prefix("sha256:")?.as_bytes();
    if hex.len() != 64 {
        return None;
    }
    let digit = |b: u8| match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        _ => None,
    };
    let mut out = [0; 32];
    for (i, pair) in hex.chunks_exact(2).enumerate() {
        out[i] = digit(pair[0])? << 4 | digit(pair[1])?;
    }
    Some(out)
}

/// The first file of `dir` that is not as `files` records it: a missing or
/// an extra one first (they need no read), else the first modified one in
/// path order. A file that cannot be read, or is over what is served, is
/// modified: its bytes are not the lock's.
fn first_difference(
    dir: &Path,
    files: &BTreeMap<String, Option<Sha>>,
    head: &[u8],
    stamps: &Mutex<Stamps>,
) -> Option<(String, FileChange)> {
    let on_disk = list(dir);
    if let Some(missing) = files.keys().find(|rel| !on_disk.contains_key(*rel)) {
        return Some((missing.clone(), FileChange::Missing));
    }
    if let Some(extra) = on_disk.keys().find(|rel| !files.contains_key(*rel)) {
        return Some((extra.clone(), FileChange::Extra));
    }
    for (rel, expected) in files {
        let path = &on_disk[rel];
        let meta = fs::metadata(path).ok();
        let whole_head = rel == SKILL_MD && meta.as_ref().is_some_and(|m| m.len() == head.len() as u64);
        let actual = match whole_head {
            true => Some(Sha256::digest(head).into()),
            false => Stamps::digest(stamps, path, meta.as_ref()),
        };
        if expected.is_none() || actual != *expected {
            return Some((rel.clone(), FileChange::Modified));
        }
    }
    None
}

/// Every file below `dir` (links included, as the lock records them), by
/// `/`-separated path, not entering the directories the walk does not enter.
fn list(dir: &Path) -> BTreeMap<String, PathBuf> {
    let mut out = BTreeMap::new();
    let mut pending = vec![(dir.to_path_buf(), String::new())];
    while let Some((current, prefix)) = pending.pop() {
        let Ok(entries) = fs::read_dir(&current) else { continue };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let rel = if prefix.is_empty() { name.clone() } else { format!("{prefix}/{name}") };
            match entry.file_type() {
                Ok(kind) if kind.is_dir() => {
                    if !SKIPPED_DIRS.contains(&name.as_str()) {
                        pending.push((entry.path(), rel));
                    }
                }
                _ => {
                    out.insert(rel, entry.path());
                }
            }
        }
    }
    out
}

/// A file's SHA-256, `None` when it cannot be read or is over what is served.
fn digest(path: &Path) -> Option<Sha> {
    let file = fs::File::open(path).ok()?;
    let mut hash = Sha256::new();
    let mut reader = file.take(MAX_SERVED_BYTES + 1);
    let mut buf = [0; 16 * 1024];
    let mut total = 0u64;
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return None,
        };
        total += n as u64;
        hash.update(&buf[..n]);
    }
    (total <= MAX_SERVED_BYTES).then(|| hash.finalize().into())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn digests_are_read_as_the_lock_writes_them() {
        let sha: Sha = Sha256::digest(b"x").into();
        let hex = hex(&sha);
        assert_eq!(sha_of(&format!("sha256:{hex}")), Some(sha));
        assert_eq!(sha_of(&hex), None);
        assert_eq!(sha_of(&format!("sha256:{}", hex.to_uppercase())), None);
        let lock = format!(r#"{{"version":1,"skills":{{"a":{{"files":{{"SKILL.md":"sha256:{hex}"}}}},"b":{{}}}}}}"#);
        let entries = parse(lock.as_bytes()).unwrap();
        assert_eq!(entries["a"].as_ref().unwrap()["SKILL.md"], Some(sha));
        assert_eq!(entries["b"], None);
        assert!(parse(b"[]").is_err() && parse(b"{").is_err());
    }

    #[test]
    fn only_a_projects_agents_skills_is_checked() {
        let dir = tempfile::tempdir().unwrap();
        let locks = Locks::default();
        assert_eq!(locks.check(&dir.path().join("skills/a"), b""), None);
        assert_eq!(
            locks.check(&dir.path().join(".agents/skills/a"), b""),
            Some(Integrity::Unnamed { lock: dir.path().join(LOCK_FILE), problem: None })
        );
    }
}
