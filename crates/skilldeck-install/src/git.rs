//! Fetching through the user's `git` program: a cache of bare partial clones
//! (`--filter=blob:none`) under the user's cache directory, one per URL,
//! shared by every project; refs resolved to commits; a commit's files (only
//! the directories holding a `SKILL.md`, so a partial clone fetches only
//! their blobs) exported into a directory.
//!
//! `git` is run with the user's environment and configuration, so their
//! credential helpers, SSH agent, proxies and `insteadOf` rules apply.

use std::ffi::OsStr;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use sha2::{Digest, Sha256};

use crate::files;

/// A git command that failed, or a ref or commit that is not there.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// Cloning or fetching the repository failed (unreachable, no such repository, no access).
    #[error("{url}: cannot fetch: {message}")]
    Fetch {
        /// The repository.
        url: String,
        /// git's own message.
        message: String,
    },
    /// The ref is neither a branch, a tag nor a commit of the repository.
    #[error("{url}: no branch, tag or commit {reference:?}")]
    NoRef {
        /// The repository.
        url: String,
        /// The ref asked for.
        reference: String,
    },
    /// Another git command failed.
    #[error("{url}: git {command} failed: {message}")]
    Command {
        /// The repository.
        url: String,
        /// The subcommand.
        command: String,
        /// git's own message.
        message: String,
    },
    /// The cache directory could not be made.
    #[error("{path}: {source}")]
    Cache {
        /// The directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// The shared cache of fetched repositories.
///
/// # Example
///
/// ```no_run
/// use skilldeck_install::GitCache;
///
/// let cache = GitCache::user()?;
/// let repo = cache.fetch("https://github.com/anthropics/skills.git")?;
/// let commit = repo.resolve(Some("main"))?;
/// let staging = tempfile::tempdir()?;
/// repo.export(&commit, staging.path())?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct GitCache {
    root: PathBuf,
}

/// One cached repository.
#[derive(Clone, Debug)]
pub struct Repo {
    dir: PathBuf,
    url: String,
}

impl GitCache {
    /// A cache in `root`.
    pub fn new(root: impl Into<PathBuf>) -> GitCache {
        GitCache { root: root.into() }
    }

    /// The user's cache: `git` in [`skilldeck::user_cache_dir`]
    /// (`$XDG_CACHE_HOME/skilldeck/git`, else `~/.cache/skilldeck/git`).
    ///
    /// # Errors
    ///
    /// [`GitError::Cache`] when neither variable nor a home directory is known.
    pub fn user() -> Result<GitCache, GitError> {
        match skilldeck::user_cache_dir() {
            Some(dir) => Ok(GitCache::new(dir.join("git"))),
            None => Err(GitError::Cache {
                path: PathBuf::from("~/.cache"),
                source: std::io::Error::other("no XDG_CACHE_HOME and no home directory"),
            }),
        }
    }

    /// Where `url`'s clone is kept: the cache root and the first 32 hex
    /// digits of the URL's SHA-256.
    pub fn dir_of(&self, url: &str) -> PathBuf {
        let digest = files::hex(&Sha256::digest(url.as_bytes()));
        self.root.join(&digest[..32])
    }

    /// The cached clone of `url`, without fetching; `None` when there is none.
    pub fn cached(&self, url: &str) -> Option<Repo> {
        let dir = self.dir_of(url);
        dir.join("HEAD").is_file().then(|| Repo { dir, url: url.to_owned() })
    }

    /// Clones `url` into the cache (bare, `--filter=blob:none`), or brings
    /// the clone up to date with every branch and tag.
    ///
    /// # Errors
    ///
    /// [`GitError::Fetch`] naming the URL with git's message.
    pub fn fetch(&self, url: &str) -> Result<Repo, GitError> {
        if let Some(repo) = self.cached(url) {
            let refspecs = ["+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"];
            let mut args = vec!["fetch", "--quiet", "--prune", "--no-write-fetch-head", "origin"];
            args.extend(refspecs);
            run(Some(&repo.dir), &args).map_err(|message| GitError::Fetch { url: url.to_owned(), message })?;
            return Ok(repo);
        }
        fs::create_dir_all(&self.root).map_err(|source| GitError::Cache { path: self.root.clone(), source })?;
        let dir = self.dir_of(url);
        let temp = self.root.join(format!(".clone-{}-{}", std::process::id(), unique()));
        let temp_arg = temp.as_os_str().to_string_lossy().into_owned();
        let cloned = run(None, &["clone", "--quiet", "--bare", "--filter=blob:none", "--", url, &temp_arg]);
        if let Err(message) = cloned {
            let _ = fs::remove_dir_all(&temp);
            return Err(GitError::Fetch { url: url.to_owned(), message });
        }
        // Another run may have cloned it meanwhile: theirs is as good.
        if fs::rename(&temp, &dir).is_err() {
            let _ = fs::remove_dir_all(&temp);
        }
        Ok(Repo { dir, url: url.to_owned() })
    }
}

impl Repo {
    /// The repository's URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The commit `reference` names (a branch, a tag, a commit, in git's
    /// order); `None`: the default branch.
    ///
    /// # Errors
    ///
    /// [`GitError::NoRef`] when it names none.
    pub fn resolve(&self, reference: Option<&str>) -> Result<String, GitError> {
        let name = reference.unwrap_or("HEAD");
        let no_ref = || GitError::NoRef { url: self.url.clone(), reference: name.to_owned() };
        if name.starts_with('-') {
            return Err(no_ref());
        }
        let spec = format!("{name}^{{commit}}");
        let out = run(Some(&self.dir), &["rev-parse", "--verify", "--quiet", "--end-of-options", &spec])
            .map_err(|_| no_ref())?;
        let commit = out.trim().to_owned();
        if is_commit_id(&commit) { Ok(commit) } else { Err(no_ref()) }
    }

    /// Whether the clone holds `commit`.
    pub fn has_commit(&self, commit: &str) -> bool {
        is_commit_id(commit) && run(Some(&self.dir), &["cat-file", "-e", &format!("{commit}^{{commit}}")]).is_ok()
    }

    /// Fetches `commit` itself from the remote (one no branch or tag reaches any more).
    ///
    /// # Errors
    ///
    /// [`GitError::Fetch`].
    pub fn fetch_commit(&self, commit: &str) -> Result<(), GitError> {
        run(Some(&self.dir), &["fetch", "--quiet", "--no-write-fetch-head", "origin", commit])
            .map(|_| ())
            .map_err(|message| GitError::Fetch { url: self.url.clone(), message })
    }

    /// The paths of every `SKILL.md` of `commit` below `subpath` (all, with `None`).
    ///
    /// # Errors
    ///
    /// [`GitError::Command`].
    pub fn skill_files(&self, commit: &str, subpath: Option<&str>) -> Result<Vec<String>, GitError> {
        let mut args = vec!["ls-tree", "-r", "-z", "--name-only", "--full-tree", commit];
        if let Some(sub) = subpath {
            args.extend(["--", sub]);
        }
        let out = run(Some(&self.dir), &args).map_err(|message| self.failed("ls-tree", message))?;
        Ok(out.split('\0').filter(|p| *p == "SKILL.md" || p.ends_with("/SKILL.md")).map(str::to_owned).collect())
    }

    /// Writes the files of `commit` in `dirs` (repository paths; `""` for
    /// all) into `dest`, as `git checkout` would, through a temporary index:
    /// the cache's own index and `HEAD` are left alone.
    ///
    /// # Errors
    ///
    /// [`GitError::Command`], with git's message (a blob a partial clone
    /// lacks, offline, is one).
    pub fn export_dirs(&self, commit: &str, dirs: &[String], dest: &Path) -> Result<(), GitError> {
        // git takes a relative work tree and index from where it runs, not from here.
        let dest = &std::path::absolute(dest).unwrap_or_else(|_| dest.to_path_buf());
        fs::create_dir_all(dest).map_err(|source| GitError::Cache { path: dest.to_path_buf(), source })?;
        let index = dest.with_file_name(format!(
            ".{}.index",
            dest.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
        ));
        let paths: Vec<&str> =
            if dirs.iter().any(|d| d.is_empty()) { vec!["."] } else { dirs.iter().map(String::as_str).collect() };
        let mut pathspecs = Vec::new();
        for p in &paths {
            pathspecs.extend_from_slice(p.as_bytes());
            pathspecs.push(0);
        }
        let mut command = git(Some(&self.dir));
        command.env("GIT_INDEX_FILE", &index).arg("--work-tree").arg(dest).args([
            "checkout",
            "--quiet",
            commit,
            "--pathspec-from-file=-",
            "--pathspec-file-nul",
        ]);
        let result = output_with_input(command, &pathspecs);
        let _ = fs::remove_file(&index);
        result.map(|_| ()).map_err(|message| self.failed("checkout", message))
    }

    /// Writes every file of `commit` into `dest`.
    ///
    /// # Errors
    ///
    /// As [`Repo::export_dirs`].
    pub fn export(&self, commit: &str, dest: &Path) -> Result<(), GitError> {
        self.export_dirs(commit, &[String::new()], dest)
    }

    fn failed(&self, command: &str, message: String) -> GitError {
        GitError::Command { url: self.url.clone(), command: command.to_owned(), message }
    }
}

/// 40 (SHA-1) or 64 (SHA-256) lowercase hex digits.
pub(crate) fn is_commit_id(text: &str) -> bool {
    (text.len() == 40 || text.len() == 64) && text.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

fn git(dir: Option<&Path>) -> Command {
    let mut command = Command::new("git");
    if let Some(dir) = dir {
        command.arg("--git-dir").arg(dir);
    }
    // A missing blob of a partial clone is fetched on demand; never the user's pager.
    command.env("GIT_PAGER", "cat").stdin(Stdio::null());
    command
}

fn run(dir: Option<&Path>, args: &[&str]) -> Result<String, String> {
    let mut command = git(dir);
    command.args(args.iter().map(OsStr::new));
    output_with_input(command, &[])
}

/// Runs `command` with `input` on its stdin; its stdout, or its stderr's last lines as the error.
fn output_with_input(mut command: Command, input: &[u8]) -> Result<String, String> {
    command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = command.spawn().map_err(|e| format!("cannot run git: {e}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        // A git that exits early closes the pipe: its stderr says why.
        let _ = stdin.write_all(input);
    }
    let out = child.wait_with_output().map_err(|e| format!("git: {e}"))?;
    if out.status.success() {
        return Ok(String::from_utf8_lossy(&out.stdout).into_owned());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let message = stderr.lines().filter(|l| !l.trim().is_empty()).collect::<Vec<_>>().join("; ");
    Err(if message.is_empty() { format!("git exited with {}", out.status) } else { message })
}

/// A number no other call in this process gets.
pub(crate) fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}
