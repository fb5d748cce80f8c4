//! What a user types as SOURCE, read into a [`Source`]: where the skills are
//! (a git repository or a local directory), the part of it to look in, and
//! the ref asked for.
//!
//! The forms are the `skills` package's (npm, 1.7.4, `parseSource`), with one
//! difference the issue asks for: in GitHub's shorthand, `owner/repo@REF`
//! names a ref (the `skills` package reads it as a skill's name). A `#REF`
//! fragment names a ref on every git form, as it does there.

use std::fmt;
use std::path::{Path, PathBuf};

/// Where skills come from, as parsed from what the user typed.
///
/// # Example
///
/// ```
/// use skilldeck_install::{Location, Source, SourceType};
///
/// let source = Source::parse("acme/skills/tools/lint@v2")?;
/// assert_eq!(source.location, Location::Git { url: "https://github.com/acme/skills.git".into() });
/// assert_eq!(source.source_type, SourceType::Github);
/// assert_eq!(source.subpath.as_deref(), Some("tools/lint"));
/// assert_eq!(source.reference.as_deref(), Some("v2"));
/// assert_eq!(source.lock_source(), "acme/skills");
/// # Ok::<(), skilldeck_install::SourceError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    /// The text the user typed.
    pub input: String,
    /// The repository or directory.
    pub location: Location,
    /// The lock's `sourceType`.
    pub source_type: SourceType,
    /// The directory inside the repository to look in (`/`-separated, no `..`).
    pub subpath: Option<String>,
    /// The branch, tag or commit asked for; `None`: the repository's default branch.
    pub reference: Option<String>,
}

/// A repository to fetch or a directory to copy from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// A git repository, by the URL `git` is given.
    Git {
        /// `https://…`, `ssh://…`, `git@host:path` or `file://…`.
        url: String,
    },
    /// A directory on this machine, taken as it is (no commit).
    Local {
        /// The directory, absolute.
        path: PathBuf,
    },
}

/// The lock's `sourceType`, as the `skills` package names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceType {
    /// A repository on github.com (`owner/repo`, `https://github.com/…`).
    Github,
    /// A repository on gitlab.com.
    Gitlab,
    /// Any other git URL.
    Git,
    /// A local directory.
    Local,
}

impl SourceType {
    /// The lock's spelling: `github`, `gitlab`, `git`, `local`.
    ///
    /// ```
    /// assert_eq!(skilldeck_install::SourceType::Github.as_str(), "github");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            SourceType::Github => "github",
            SourceType::Gitlab => "gitlab",
            SourceType::Git => "git",
            SourceType::Local => "local",
        }
    }

    /// The type a lock names, `None` for one skilldeck cannot fetch (`well-known`, `node_modules`, …).
    ///
    /// ```
    /// use skilldeck_install::SourceType;
    /// assert_eq!(SourceType::from_lock("git"), Some(SourceType::Git));
    /// assert_eq!(SourceType::from_lock("well-known"), None);
    /// ```
    pub fn from_lock(text: &str) -> Option<SourceType> {
        Some(match text {
            "github" => SourceType::Github,
            "gitlab" => SourceType::Gitlab,
            "git" => SourceType::Git,
            "local" => SourceType::Local,
            _ => return None,
        })
    }
}

/// A SOURCE that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SourceError {
    /// Neither a URL, a shorthand nor a path.
    #[error("{input}: not a git URL, an owner/repo shorthand or a local directory (./DIR, /DIR)")]
    Unrecognised {
        /// What was typed.
        input: String,
    },
    /// A subpath with a `..` segment.
    #[error("{input}: the path inside the source may not contain '..'")]
    UnsafeSubpath {
        /// What was typed.
        input: String,
    },
    /// A local directory that does not exist or is not a directory.
    #[error("{input}: no such directory")]
    NoDirectory {
        /// What was typed.
        input: String,
    },
}

impl Source {
    /// Reads SOURCE; a relative local path is taken from the working directory.
    ///
    /// # Errors
    ///
    /// [`SourceError`]: an unknown form, a `..` in the path inside the source,
    /// a local directory that is not there.
    pub fn parse(input: &str) -> Result<Source, SourceError> {
        let cwd = std::env::current_dir().unwrap_or_default();
        Source::parse_in(input, &cwd)
    }

    /// Reads SOURCE, a relative local path taken from `cwd`.
    ///
    /// ```
    /// use skilldeck_install::{Location, Source, SourceType};
    ///
    /// let dir = tempfile::tempdir()?;
    /// std::fs::create_dir(dir.path().join("mine"))?;
    /// let source = Source::parse_in("./mine", dir.path())?;
    /// assert_eq!(source.location, Location::Local { path: dir.path().join("mine") });
    /// assert_eq!(source.source_type, SourceType::Local);
    /// let git = Source::parse_in("git@example.com:team/skills.git#main", dir.path())?;
    /// assert_eq!(git.reference.as_deref(), Some("main"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Source::parse`].
    pub fn parse_in(input: &str, cwd: &Path) -> Result<Source, SourceError> {
        let unrecognised = || SourceError::Unrecognised { input: input.to_owned() };
        if input.trim().is_empty() {
            return Err(unrecognised());
        }
        if is_local_path(input) {
            let path = normalise(&cwd.join(input));
            if !path.is_dir() {
                return Err(SourceError::NoDirectory { input: input.to_owned() });
            }
            return Ok(Source {
                input: input.to_owned(),
                location: Location::Local { path },
                source_type: SourceType::Local,
                subpath: None,
                reference: None,
            });
        }
        let (rest, fragment) = match input.split_once('#') {
            Some((rest, fragment)) if !fragment.is_empty() => (rest, Some(fragment.to_owned())),
            _ => (input, None),
        };
        let rest = rest.strip_prefix("github:").unwrap_or(rest);
        let git = |url: String, source_type, subpath: Option<String>, reference: Option<String>| {
            let subpath = subpath.map(|s| s.trim_matches('/').to_owned()).filter(|s| !s.is_empty());
            if subpath.as_deref().is_some_and(|s| s.split('/').any(|seg| seg == "..")) {
                return Err(SourceError::UnsafeSubpath { input: input.to_owned() });
            }
            Ok(Source {
                input: input.to_owned(),
                location: Location::Git { url },
                source_type,
                subpath,
                reference: fragment.clone().or(reference),
            })
        };
        if let Some(after) =
            rest.strip_prefix("https://github.com/").or_else(|| rest.strip_prefix("http://github.com/"))
        {
            // owner/repo[.git][/tree/REF[/path]]
            let mut parts = after.trim_end_matches('/').splitn(5, '/');
            let (Some(owner), Some(repo)) = (parts.next(), parts.next()) else { return Err(unrecognised()) };
            let repo = repo.strip_suffix(".git").unwrap_or(repo);
            let url = format!("https://github.com/{owner}/{repo}.git");
            return match (parts.next(), parts.next(), parts.next()) {
                (None, ..) => git(url, SourceType::Github, None, None),
                (Some("tree"), Some(reference), subpath) => {
                    git(url, SourceType::Github, subpath.map(str::to_owned), Some(reference.to_owned()))
                }
                _ => Err(unrecognised()),
            };
        }
        if rest.starts_with("https://gitlab.com/") {
            return git(rest.to_owned(), SourceType::Gitlab, None, None);
        }
        let is_url = ["https://", "http://", "ssh://", "file://", "git://"].iter().any(|p| rest.starts_with(p));
        if is_url || (rest.starts_with("git@") && rest.contains(':')) {
            return git(rest.to_owned(), SourceType::Git, None, None);
        }
        // GitHub's shorthand: owner/repo[/path][@ref].
        if rest.contains(':') || rest.starts_with('.') || rest.starts_with('/') {
            return Err(unrecognised());
        }
        let (path, reference) = match rest.rsplit_once('@') {
            Some((path, reference)) if !reference.is_empty() && !reference.contains('/') => {
                (path, Some(reference.to_owned()))
            }
            _ => (rest, None),
        };
        let mut parts = path.splitn(3, '/');
        match (parts.next(), parts.next(), parts.next()) {
            (Some(owner), Some(repo), subpath) if !owner.is_empty() && !repo.is_empty() && !repo.contains('@') => {
                let repo = repo.strip_suffix(".git").unwrap_or(repo);
                git(
                    format!("https://github.com/{owner}/{repo}.git"),
                    SourceType::Github,
                    subpath.map(str::to_owned),
                    reference,
                )
            }
            _ => Err(unrecognised()),
        }
    }

    /// The lock's `source`: `owner/repo` for GitHub, the URL for other git
    /// sources, the directory for a local one (made relative to the project
    /// by the lock, as the `skills` package does).
    pub fn lock_source(&self) -> String {
        match (&self.location, self.source_type) {
            (Location::Git { url }, SourceType::Github) => url
                .strip_prefix("https://github.com/")
                .map(|s| s.strip_suffix(".git").unwrap_or(s).to_owned())
                .unwrap_or_else(|| url.clone()),
            (Location::Git { url }, _) => url.clone(),
            (Location::Local { path }, _) => path.to_string_lossy().into_owned(),
        }
    }

    /// The lock's `sourceUrl`: the clone URL, written for the types the
    /// `skills` package writes it for (`git`, `gitlab`).
    pub fn lock_source_url(&self) -> Option<String> {
        match (&self.location, self.source_type) {
            (Location::Git { url }, SourceType::Git | SourceType::Gitlab) => Some(url.clone()),
            _ => None,
        }
    }

    /// Where the source is: its git URL, or a local directory's path
    /// (`/`-separated), as the global lock's `sourceUrl` names it.
    pub(crate) fn url_or_path(&self) -> String {
        match &self.location {
            Location::Git { url } => url.clone(),
            Location::Local { path } => path.to_string_lossy().replace('\\', "/"),
        }
    }

    /// The source a lock entry names (`source`, `sourceType`, `sourceUrl`,
    /// `ref`), a relative local `source` taken from `project`; `None` for a
    /// type skilldeck cannot fetch.
    pub fn from_lock(
        source: &str,
        source_type: &str,
        source_url: Option<&str>,
        reference: Option<&str>,
        project: &Path,
    ) -> Option<Source> {
        let source_type = SourceType::from_lock(source_type)?;
        let location = match source_type {
            SourceType::Local => Location::Local { path: normalise(&project.join(source)) },
            SourceType::Github => Location::Git {
                url: source_url.map(str::to_owned).unwrap_or_else(|| {
                    if source.contains("://") { source.to_owned() } else { format!("https://github.com/{source}.git") }
                }),
            },
            SourceType::Git | SourceType::Gitlab => Location::Git { url: source_url.unwrap_or(source).to_owned() },
        };
        Some(Source {
            input: source.to_owned(),
            location,
            source_type,
            subpath: None,
            reference: reference.map(str::to_owned),
        })
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.input)
    }
}

/// The `skills` package's `isLocalPath`: absolute, `./`, `../`, `.`, `..`.
fn is_local_path(input: &str) -> bool {
    Path::new(input).is_absolute()
        || input.starts_with("./")
        || input.starts_with("../")
        || input == "."
        || input == ".."
}

/// `path` without `.` and `..` segments, lexically (as Node's `resolve`).
pub(crate) fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}
