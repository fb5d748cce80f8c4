//! What a restarted server needs before it has read its catalog again:
//! the last run's level 1, so that `initialize` answers with the real
//! catalog instead of word that it is loading, and the last run's search
//! index, so that `find_skills` answers at once; both kept in the user's
//! cache directory.
//!
//! A cache is used only by a server started the same way (the same
//! version, command line, working directory and home) over roots whose
//! identity and modification times are as they were when it was written;
//! anything else (another version, a root added, moved or changed, a file
//! cut short or not ours) is not used, and a file that cannot be read as a
//! cache is said so and written again. Each first publication writes the
//! catalog's own level 1 back, and its search index once it is built, so
//! the next start has them.
//!
//! What the roots' times cannot see: an edit inside a skill directory (a
//! description changed) leaves its root's time as it was. The first start
//! after such an edit sends the level 1 before it, once, and ranks the
//! `find_skills` calls that come before its own index is built (a few
//! seconds at 40,000 skills) as the last run did; its lists, its `skill`
//! tool and every later search answer from the catalog as read.

use std::fs;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use skilldeck::SavedSearch;

/// Where a server's level 1 and search index are kept between runs, and
/// what they must match.
///
/// # Example
///
/// ```
/// use skilldeck_mcp::StartCache;
///
/// let dir = tempfile::tempdir()?;
/// let root = tempfile::tempdir()?;
/// let cache = StartCache::new(dir.path(), "serve --root skills", vec![root.path().to_owned()]);
/// assert!(cache.path().starts_with(dir.path()));
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct StartCache {
    /// The level 1, the key, the roots' stamps and what the search file
    /// must be (JSON).
    path: PathBuf,
    /// The search index ([`skilldeck::Catalog::save_search`]'s bytes).
    search_path: PathBuf,
    key: String,
    roots: Vec<PathBuf>,
}

/// The format of a cache file; a file of another is not read.
const FORMAT: u64 = 1;

impl StartCache {
    /// The cache, in `dir`, of a server started as `key` says (its command
    /// line and whatever else chooses its catalog) over `roots`.
    /// The file holds a hash of the key, never the key: a command line may
    /// carry what is nobody's business (the CLI leaves `--token`'s value out
    /// of it all the same).
    pub fn new(dir: &Path, key: &str, roots: Vec<PathBuf>) -> StartCache {
        let mut hasher = DefaultHasher::new();
        format!("skilldeck {} {key}", env!("CARGO_PKG_VERSION")).hash(&mut hasher);
        let key = format!("{:016x}", hasher.finish());
        let path = dir.join(format!("level1-{key}.json"));
        let search_path = dir.join(format!("search-{key}.bin"));
        StartCache { path, search_path, key, roots }
    }

    /// The file the level 1 is kept in.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file the search index is kept in.
    pub fn search_path(&self) -> &Path {
        &self.search_path
    }

    /// The kept `instructions`, if they were written for this server over
    /// the roots as they are now. A file that is there but is no cache of
    /// ours is logged.
    pub(crate) fn load(&self) -> Option<String> {
        self.kept()?.get("instructions")?.as_str().map(str::to_owned)
    }

    /// The kept search index, if it was written for this server over the
    /// roots as they are now and reads back whole. A damaged one is logged.
    pub(crate) fn load_search(&self) -> Option<SavedSearch> {
        let kept = self.kept()?;
        let (len, checksum) = search_stamp(&kept)?;
        let bytes = self.read(&self.search_path)?;
        let read = match (bytes.len() as u64 == len, bytes.last_chunk::<4>()) {
            (true, Some(last)) if u32::from_le_bytes(*last) == checksum => SavedSearch::from_bytes(&bytes),
            _ => Err(skilldeck::SavedSearchError::Damaged("not the file the level-1 cache names")),
        };
        read.inspect_err(|error| {
            tracing::warn!(path = %self.search_path.display(), %error, "the search index cache is not used; it is written again once the index is built");
            // Gone, so that the next save cannot take it for the file it names.
            let _ = fs::remove_file(&self.search_path);
        })
        .ok()
    }

    /// The level-1 file's fields, if it is ours and for this start over the
    /// roots as they are now.
    fn kept(&self) -> Option<Value> {
        let bytes = self.read(&self.path)?;
        let kept: Option<Value> = serde_json::from_slice(&bytes).ok();
        let Some(kept) = kept.filter(|kept| kept.get("format").and_then(Value::as_u64) == Some(FORMAT)) else {
            tracing::warn!(path = %self.path.display(), "the level-1 cache is not one this version wrote; it is written again once the catalog is read");
            return None;
        };
        if kept.get("key").and_then(Value::as_str) != Some(self.key.as_str())
            || kept.get("roots") != Some(&self.stamps())
        {
            tracing::debug!(path = %self.path.display(), "the level-1 cache is of other roots or another start; not used");
            return None;
        }
        Some(kept)
    }

    /// A cache file's bytes; none when it is not there (or cannot be read,
    /// which is logged).
    fn read(&self, path: &Path) -> Option<Vec<u8>> {
        match fs::read(path) {
            Ok(bytes) => Some(bytes),
            Err(error) if error.kind() == io::ErrorKind::NotFound => None,
            Err(error) => {
                tracing::warn!(path = %path.display(), %error, "cannot read the start cache; the catalog is read instead");
                None
            }
        }
    }

    /// Keeps `instructions` (none: an agent with nothing lazy) and the
    /// search index `search` saved (none: the search file named now stays
    /// named, when it is still for these roots) for the next start, each
    /// file written whole or not at all, the search file first (the level-1
    /// file names it) and only when it changed, and both readable by the
    /// user alone (a project's skills may be private).
    pub(crate) fn save(&self, instructions: Option<&str>, search: Option<&[u8]>) {
        let named = self.kept().as_ref().and_then(search_stamp);
        let stamp = match search {
            Some(bytes) => bytes.last_chunk().map(|last| (bytes.len() as u64, u32::from_le_bytes(*last))),
            None => named,
        };
        let unchanged =
            named == stamp && fs::metadata(&self.search_path).is_ok_and(|meta| Some(meta.len()) == stamp.map(|s| s.0));
        let mut kept = json!({"format": FORMAT, "key": self.key, "roots": self.stamps(), "instructions": instructions});
        if let Some((len, checksum)) = stamp {
            kept["search"] = json!({"bytes": len, "crc32": checksum});
        }
        let written = self.path.parent().map_or(Ok(()), private_dir).and_then(|()| {
            if let (Some(bytes), false) = (search, unchanged) {
                write_whole(&self.search_path, bytes)?;
            }
            write_whole(&self.path, kept.to_string().as_bytes())
        });
        if let Err(error) = written {
            tracing::debug!(path = %self.path.display(), %error, "cannot write the start cache");
        }
    }

    /// What each root is now: its identity and modification time, or that
    /// it is not there.
    fn stamps(&self) -> Value {
        Value::Array(self.roots.iter().map(|root| stamp(root)).collect())
    }
}

/// The search file a level-1 file names: its length and checksum.
fn search_stamp(kept: &Value) -> Option<(u64, u32)> {
    let search = kept.get("search")?;
    Some((search.get("bytes")?.as_u64()?, u32::try_from(search.get("crc32")?.as_u64()?).ok()?))
}

/// Writes `bytes` to `path` whole or not at all (a file beside it, renamed).
fn write_whole(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut partial = path.as_os_str().to_owned();
    partial.push(format!(".{}", std::process::id()));
    let partial = PathBuf::from(partial);
    private_file(&partial)?.write_all(bytes)?;
    fs::rename(&partial, path).inspect_err(|_| {
        let _ = fs::remove_file(&partial);
    })
}

/// Makes `dir` and its parents, `dir` itself readable by the user alone.
fn private_dir(dir: &Path) -> io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// A new file at `path` (replacing one left there), readable by the user alone.
fn private_file(path: &Path) -> io::Result<fs::File> {
    let mut options = fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)
}

#[cfg(unix)]
fn stamp(root: &Path) -> Value {
    use std::os::unix::fs::MetadataExt;
    match fs::metadata(root) {
        Ok(meta) => json!({
            "path": root.to_string_lossy(),
            "dev": meta.dev(), "ino": meta.ino(), "mtime": meta.mtime(), "mtime_nsec": meta.mtime_nsec(),
        }),
        Err(_) => json!({"path": root.to_string_lossy(), "absent": true}),
    }
}

#[cfg(not(unix))]
fn stamp(root: &Path) -> Value {
    let modified = fs::metadata(root).and_then(|meta| meta.modified()).ok();
    match modified.and_then(|time| time.duration_since(std::time::UNIX_EPOCH).ok()) {
        Some(since) => json!({"path": root.to_string_lossy(), "modified_ns": since.as_nanos().to_string()}),
        None => json!({"path": root.to_string_lossy(), "absent": true}),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn kept_for_the_same_start_over_the_same_roots_only() {
        let (dir, root) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let cache = StartCache::new(dir.path(), "serve", vec![root.path().to_owned()]);
        assert_eq!(cache.load(), None);
        cache.save(Some("## Available Skills\n- **a**: A."), None);
        assert_eq!(cache.load().as_deref(), Some("## Available Skills\n- **a**: A."));
        // The key itself is never written.
        assert!(!fs::read_to_string(cache.path()).unwrap().contains("serve"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(fs::metadata(cache.path()).unwrap().permissions().mode() & 0o777, 0o600);
        }
        // Another command line: another file, and another key inside.
        assert_eq!(StartCache::new(dir.path(), "serve --find-skills", vec![root.path().to_owned()]).load(), None);
        // A root that changed since (a skill directory added): not used.
        fs::create_dir(root.path().join("b")).unwrap();
        assert_eq!(cache.load(), None);
        cache.save(Some("again"), None);
        assert_eq!(cache.load().as_deref(), Some("again"));
        // Cut short, or not ours: not used, and written again.
        let whole = fs::read(cache.path()).unwrap();
        fs::write(cache.path(), &whole[..whole.len() / 2]).unwrap();
        assert_eq!(cache.load(), None);
        fs::write(cache.path(), br#"{"format": 99, "key": "x", "roots": [], "instructions": "x"}"#).unwrap();
        assert_eq!(cache.load(), None);
        cache.save(Some("fresh"), None);
        assert_eq!(cache.load().as_deref(), Some("fresh"));
    }

    #[test]
    fn the_search_index_is_kept_beside_the_level_1_and_checked_whole() {
        let (dir, root) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let cache = StartCache::new(dir.path(), "serve", vec![root.path().to_owned()]);
        let catalog = skilldeck::Catalog::builder()
            .skill(skilldeck::SkillDef::new("pdf-forms").description("Fill in PDF forms."))
            .build();
        let bytes = catalog.save_search();
        assert!(cache.load_search().is_none());
        cache.save(Some("level 1"), Some(&bytes));
        assert_eq!(fs::read(cache.search_path()).unwrap(), bytes);
        let saved = cache.load_search().unwrap();
        assert_eq!(saved.search("pdf forms", 1).hits[0].skill.name(), "pdf-forms");
        // The level 1 kept again alone (before the index is built): the search file stays named.
        cache.save(Some("level 1, again"), None);
        assert_eq!(cache.load().as_deref(), Some("level 1, again"));
        assert!(cache.load_search().is_some());
        // Another file than the one named, or a damaged one: not used.
        let mut other = bytes.clone();
        other[bytes.len() / 2] ^= 1;
        fs::write(cache.search_path(), &other).unwrap();
        assert!(cache.load_search().is_none());
        // Removed, and so written again whole by the next save.
        assert!(!cache.search_path().exists());
        cache.save(Some("level 1"), Some(&bytes));
        assert!(cache.load_search().is_some());
        fs::write(cache.search_path(), &bytes[..bytes.len() - 1]).unwrap();
        assert!(cache.load_search().is_none());
        cache.save(Some("level 1"), Some(&bytes));
        assert!(cache.load_search().is_some());
        // Over a root that changed: not used.
        fs::create_dir(root.path().join("b")).unwrap();
        assert!(cache.load_search().is_none());
    }
}
