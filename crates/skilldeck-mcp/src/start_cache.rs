//! The last run's level 1, kept in the user's cache directory, so that a
//! restarted server whose catalog is still being read answers `initialize`
//! with the real catalog instead of word that it is loading.
//!
//! A cached text is used only by a server started the same way (the same
//! version, command line, working directory and home) over roots whose
//! identity and modification times are as they were when it was written;
//! anything else (another version, a root added, moved or changed, a file
//! cut short or not ours) is not used, and a file that cannot be read as a
//! cache is said so and written again. Each first publication writes the
//! catalog's own level 1 back, so the next start has it.
//!
//! What the roots' times cannot see: an edit inside a skill directory (a
//! description changed) leaves its root's time as it was. The first start
//! after such an edit sends the level 1 before it, once; its lists and tools
//! answer from the catalog as read, and the client is offered `find_skills`
//! as one told the catalog was loading is.

use std::fs;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// Where a server's level 1 is kept between runs, and what it must match.
///
/// # Example
///
/// ```
/// use skilldeck_mcp::Level1Cache;
///
/// let dir = tempfile::tempdir()?;
/// let root = tempfile::tempdir()?;
/// let cache = Level1Cache::new(dir.path(), "serve --root skills", vec![root.path().to_owned()]);
/// assert!(cache.path().starts_with(dir.path()));
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Level1Cache {
    path: PathBuf,
    key: String,
    roots: Vec<PathBuf>,
}

/// The format of a cache file; a file of another is not read.
const FORMAT: u64 = 1;

impl Level1Cache {
    /// The cache, in `dir`, of a server started as `key` says (its command
    /// line and whatever else chooses its catalog) over `roots`.
    /// The file holds a hash of the key, never the key: a command line may
    /// carry what is nobody's business (the CLI leaves `--token`'s value out
    /// of it all the same).
    pub fn new(dir: &Path, key: &str, roots: Vec<PathBuf>) -> Level1Cache {
        let mut hasher = DefaultHasher::new();
        format!("skilldeck {} {key}", env!("CARGO_PKG_VERSION")).hash(&mut hasher);
        let key = format!("{:016x}", hasher.finish());
        let path = dir.join(format!("level1-{key}.json"));
        Level1Cache { path, key, roots }
    }

    /// The user's cache directory for skilldeck: `$XDG_CACHE_HOME/skilldeck`,
    /// else `~/.cache/skilldeck` (`~/Library/Caches/skilldeck` on macOS);
    /// none without a home.
    pub fn user_dir() -> Option<PathBuf> {
        let xdg = std::env::var_os("XDG_CACHE_HOME").map(PathBuf::from).filter(|dir| dir.is_absolute());
        let base = xdg.or_else(|| {
            let home = skilldeck::home_dir()?;
            Some(if cfg!(target_os = "macos") { home.join("Library/Caches") } else { home.join(".cache") })
        })?;
        Some(base.join("skilldeck"))
    }

    /// The file the level 1 is kept in.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The kept `instructions`, if they were written for this server over
    /// the roots as they are now. A file that is there but is no cache of
    /// ours is logged.
    pub(crate) fn load(&self) -> Option<String> {
        let bytes = match fs::read(&self.path) {
            Ok(bytes) => bytes,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return None,
            Err(error) => {
                tracing::warn!(path = %self.path.display(), %error, "cannot read the level-1 cache; the catalog is read instead");
                return None;
            }
        };
        let kept: Option<Value> = serde_json::from_slice(&bytes).ok();
        let fields = kept
            .as_ref()
            .filter(|kept| kept.get("format").and_then(Value::as_u64) == Some(FORMAT))
            .and_then(|kept| Some((kept.get("key")?.as_str()?, kept.get("roots")?, kept.get("instructions")?)));
        let Some((key, roots, instructions)) = fields else {
            tracing::warn!(path = %self.path.display(), "the level-1 cache is not one this version wrote; it is written again once the catalog is read");
            return None;
        };
        if key != self.key || *roots != self.stamps() {
            tracing::debug!(path = %self.path.display(), "the level-1 cache is of other roots or another start; not used");
            return None;
        }
        instructions.as_str().map(str::to_owned)
    }

    /// Keeps `instructions` (none: an agent with nothing lazy) for the next
    /// start, written whole or not at all, readable by the user alone (a
    /// project's skills may be private).
    pub(crate) fn save(&self, instructions: Option<&str>) {
        let kept = json!({"format": FORMAT, "key": self.key, "roots": self.stamps(), "instructions": instructions});
        let written = self.path.parent().map_or(Ok(()), private_dir).and_then(|()| {
            let partial = self.path.with_extension(format!("json.{}", std::process::id()));
            private_file(&partial)?.write_all(kept.to_string().as_bytes())?;
            fs::rename(&partial, &self.path).inspect_err(|_| {
                let _ = fs::remove_file(&partial);
            })
        });
        if let Err(error) = written {
            tracing::debug!(path = %self.path.display(), %error, "cannot write the level-1 cache");
        }
    }

    /// What each root is now: its identity and modification time, or that
    /// it is not there.
    fn stamps(&self) -> Value {
        Value::Array(self.roots.iter().map(|root| stamp(root)).collect())
    }
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
        let cache = Level1Cache::new(dir.path(), "serve", vec![root.path().to_owned()]);
        assert_eq!(cache.load(), None);
        cache.save(Some("## Available Skills\n- **a**: A."));
        assert_eq!(cache.load().as_deref(), Some("## Available Skills\n- **a**: A."));
        // The key itself is never written.
        assert!(!fs::read_to_string(cache.path()).unwrap().contains("serve"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(fs::metadata(cache.path()).unwrap().permissions().mode() & 0o777, 0o600);
        }
        // Another command line: another file, and another key inside.
        assert_eq!(Level1Cache::new(dir.path(), "serve --find-skills", vec![root.path().to_owned()]).load(), None);
        // A root that changed since (a skill directory added): not used.
        fs::create_dir(root.path().join("b")).unwrap();
        assert_eq!(cache.load(), None);
        cache.save(Some("again"));
        assert_eq!(cache.load().as_deref(), Some("again"));
        // Cut short, or not ours: not used, and written again.
        let whole = fs::read(cache.path()).unwrap();
        fs::write(cache.path(), &whole[..whole.len() / 2]).unwrap();
        assert_eq!(cache.load(), None);
        fs::write(cache.path(), br#"{"format": 99, "key": "x", "roots": [], "instructions": "x"}"#).unwrap();
        assert_eq!(cache.load(), None);
        cache.save(Some("fresh"));
        assert_eq!(cache.load().as_deref(), Some("fresh"));
    }
}
