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

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use sha2::{Digest, Sha256};

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

/// One entry of a lock: its files' digests (`None` for a digest that is not
/// one), or `None` for an entry that records no files.
type Entry = Option<BTreeMap<String, Option<Sha>>>;

/// A project's lock as the check needs it.
struct ProjectLock {
    path: PathBuf,
    /// The entries by name; `Err(None)`: no lock; `Err(Some(why))`: unreadable.
    entries: Result<HashMap<String, Entry>, Option<String>>,
}

/// The locks of one walk, each read once, on first need.
#[derive(Default)]
pub(crate) struct Locks {
    read: Mutex<HashMap<PathBuf, Arc<ProjectLock>>>,
}

impl Locks {
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
            Some(Some(files)) => Some(match first_difference(dir, files, head) {
                None => Integrity::Intact,
                Some((file, change)) => Integrity::Differs { lock: lock.path.clone(), file, change },
            }),
        }
    }

    fn lock(&self, project: &Path) -> Arc<ProjectLock> {
        let mut read = self.read.lock().unwrap_or_else(PoisonError::into_inner);
        read.entry(project.to_path_buf()).or_insert_with(|| Arc::new(ProjectLock::read(project))).clone()
    }
}

impl ProjectLock {
    fn read(project: &Path) -> ProjectLock {
        let path = project.join(LOCK_FILE);
        let entries = match fs::read(&path) {
            Ok(bytes) => parse(&bytes).map_err(Some),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(None),
            Err(e) => Err(Some(e.to_string())),
        };
        ProjectLock { path, entries }
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
fn first_difference(dir: &Path, files: &BTreeMap<String, Option<Sha>>, head: &[u8]) -> Option<(String, FileChange)> {
    let on_disk = list(dir);
    if let Some(missing) = files.keys().find(|rel| !on_disk.contains_key(*rel)) {
        return Some((missing.clone(), FileChange::Missing));
    }
    if let Some(extra) = on_disk.keys().find(|rel| !files.contains_key(*rel)) {
        return Some((extra.clone(), FileChange::Extra));
    }
    for (rel, expected) in files {
        let path = &on_disk[rel];
        let whole_head = rel == SKILL_MD && fs::metadata(path).is_ok_and(|m| m.len() == head.len() as u64);
        let actual = if whole_head { Some(Sha256::digest(head).into()) } else { digest(path) };
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
        let hex: String = sha.iter().map(|b| format!("{b:02x}")).collect();
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
