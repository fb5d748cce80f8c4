//! The operations on a project: `add` skills from a source, `install` what
//! the lock says, `remove`, `verify`, `update`.
//!
//! Every change is made in a staging directory inside the project's
//! `.agents` (the same file system as `.agents/skills`) and renamed into
//! place once every skill of the command is ready; the lock is written
//! atomically last. Commands that change a project hold an exclusive lock on
//! `.agents/.skilldeck.lock` while they run, so two at once are serialised.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use skilldeck::audit::Report;
use skilldeck::validate::Validator;
use skilldeck::{Catalog, NameKind, Symlinks, check_name};

use crate::commit::{self, Move, Stage};
use crate::files;
use crate::git::{self, GitCache, Repo};
use crate::links;
use crate::lock::{GLOBAL_LOCK_FILE, LOCK_FILE, Lock, LockEntry, LockError, computed_hash};
use crate::risk;
use crate::source::{Location, Source, SourceType};

mod outcome;

pub(crate) use outcome::io;
pub use outcome::{Diff, Found, InstallError, Installed, Update, Verified};

/// The project's skill directory, relative to it: where every host but
/// Claude Code reads skills (the engine's, whose catalog checks the skills there).
pub const PROJECT_SKILLS_DIR: &str = skilldeck::PROJECT_SKILLS_DIR;

/// `add`'s choices.
#[derive(Clone, Debug, Default)]
pub struct AddOptions {
    /// The skills to install by name; empty: all the source holds.
    pub skills: Vec<String>,
    /// Replace a skill directory the lock does not name, and install skills
    /// that fail validation.
    pub force: bool,
    /// Install skills the audit finds something at
    /// [`RISKY`](skilldeck::audit::RISKY) or above in.
    pub allow_risk: bool,
    /// The hosts (by [`Host::name`](crate::Host::name)) whose own place is
    /// to show each skill through a link, beside those it has already.
    pub links: Vec<String>,
    /// Pin each skill at the commit installed: `update` leaves it there, as
    /// it leaves a skill whose ref is a commit.
    pub pin: bool,
}

/// A project: its `.agents/skills` and its `skills-lock.json`, and the
/// cache repositories are fetched into.
///
/// # Example
///
/// ```no_run
/// use skilldeck_install::{AddOptions, GitCache, Project, Source};
///
/// let project = Project::new(".", GitCache::user()?);
/// let source = Source::parse("anthropics/skills@main")?;
/// let installed = project.add(&source, &AddOptions { skills: vec!["pdf".into()], ..AddOptions::default() })?;
/// assert_eq!(installed[0].name, "pdf");
/// assert!(project.verify()?.iter().all(|v| v.is_clean()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Project {
    root: PathBuf,
    cache: GitCache,
    /// The user's skills (`~/.agents/skills`, with the global lock), not a project's.
    lock_path: Option<PathBuf>,
}

/// The trees one command fetched, by source and reference.
type Trees = BTreeMap<(String, Option<String>), Tree>;

/// A skill copied into the staging directory, ready to be renamed into place.
struct Ready {
    name: String,
    staged: PathBuf,
    entry: LockEntry,
    /// Its audit, paths shown where it is going.
    audit: Report,
}

/// A source's files at one commit (or a local directory), in a staging
/// directory: its `SKILL.md` files, and the whole directories of the skills
/// a command installs once it [completes](Tree::complete) them.
#[derive(Clone)]
struct Tree {
    /// The source's root: the exported tree or the local directory.
    root: PathBuf,
    commit: Option<String>,
    /// The repository it was exported from (none for a local directory).
    repo: Option<Repo>,
}

impl Tree {
    /// Writes the whole of `dirs` (skill directories in the tree) into it, in
    /// one checkout: a fetch writes only the `SKILL.md` files, so that
    /// choosing one skill of a registry of thousands fetches and writes the
    /// files of that one. A local directory holds them all already.
    fn complete<'a>(&self, dirs: impl IntoIterator<Item = &'a Path>) -> Result<(), InstallError> {
        let (Some(repo), Some(commit)) = (&self.repo, &self.commit) else { return Ok(()) };
        let mut paths: Vec<String> = dirs.into_iter().filter_map(|dir| relative(&self.root, dir)).collect();
        paths.sort();
        paths.dedup();
        if paths.is_empty() {
            return Ok(());
        }
        Ok(repo.export_dirs(commit, &paths, &self.root)?)
    }
}

/// A skill of the lock to install again: its entry, its source, and where
/// its files are in the tree fetched for it.
struct Wanted<'a> {
    name: &'a str,
    entry: &'a LockEntry,
    source: Source,
    tree: Tree,
    dir: PathBuf,
}

/// [`Tree::complete`] of every tree `wanted` draws on, each with all of its
/// skills' directories: one checkout a tree.
fn complete(wanted: &[Wanted<'_>]) -> Result<(), InstallError> {
    let mut done: Vec<&Path> = Vec::new();
    for w in wanted {
        if done.contains(&w.tree.root.as_path()) {
            continue;
        }
        let dirs = wanted.iter().filter(|other| other.tree.root == w.tree.root).map(|other| other.dir.as_path());
        w.tree.complete(dirs)?;
        done.push(&w.tree.root);
    }
    Ok(())
}

impl Project {
    /// The project in `root` (made absolute from the working directory), fetching into `cache`.
    pub fn new(root: impl Into<PathBuf>, cache: GitCache) -> Project {
        let root = root.into();
        let root = crate::source::normalise(&std::path::absolute(&root).unwrap_or(root));
        Project { root, cache, lock_path: None }
    }

    /// The user's own skills, as the `skills` package's `--global` keeps
    /// them: `HOME/.agents/skills`, which every host in [`HOSTS`](crate::HOSTS)
    /// but Claude Code reads, and the global lock, `HOME/.agents/.skill-lock.json`
    /// (`$XDG_STATE_HOME/skills/.skill-lock.json` when `XDG_STATE_HOME` is set,
    /// as the package reads it) in its format ([`Lock::global`]). `--link
    /// claude` links from `HOME/.claude/skills`.
    ///
    /// ```
    /// use skilldeck_install::{GitCache, Project};
    ///
    /// let home = tempfile::tempdir()?;
    /// let user = Project::global(home.path(), GitCache::new(home.path().join("cache")));
    /// assert_eq!(user.skills_dir(), home.path().join(".agents/skills"));
    /// assert_eq!(user.lock()?.version, 3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn global(home: impl Into<PathBuf>, cache: GitCache) -> Project {
        let mut user = Project::new(home, cache);
        let state = std::env::var_os("XDG_STATE_HOME").filter(|s| !s.is_empty()).map(PathBuf::from);
        let lock_path = match state {
            Some(state) => state.join("skills").join(GLOBAL_LOCK_FILE),
            None => user.agents_dir().join(GLOBAL_LOCK_FILE),
        };
        user.lock_path = Some(lock_path);
        user
    }

    /// `.agents/skills` of the project.
    pub fn skills_dir(&self) -> PathBuf {
        self.root.join(PROJECT_SKILLS_DIR)
    }

    /// The project's `skills-lock.json`, or the global lock.
    pub fn lock_path(&self) -> PathBuf {
        self.lock_path.clone().unwrap_or_else(|| self.root.join(LOCK_FILE))
    }

    /// Reads the project's lock (empty when there is none: [`Lock::global`]'s
    /// shape for the user's skills).
    ///
    /// # Errors
    ///
    /// [`LockError`].
    pub fn lock(&self) -> Result<Lock, LockError> {
        let path = self.lock_path();
        match (self.is_global(), path.exists()) {
            (true, false) => Ok(Lock::global()),
            _ => Lock::read(&path),
        }
    }

    /// Whether these are the user's own skills (`--global`), not a project's.
    fn is_global(&self) -> bool {
        self.lock_path.is_some()
    }

    fn agents_dir(&self) -> PathBuf {
        self.root.join(".agents")
    }

    /// Holds the project's exclusive lock until the file is dropped.
    /// What `remove` and `update` begin with: the project's command lock
    /// held, its skills lock read, every one of `names` in it, and a stage.
    fn begin_on(&self, names: &[String]) -> Result<(fs::File, Lock, Stage), InstallError> {
        let serialised = self.serialise()?;
        let lock = self.lock()?;
        if let Some(name) = names.iter().find(|n| !lock.skills.contains_key(*n)) {
            return Err(InstallError::NotInstalled { name: name.clone() });
        }
        Ok((serialised, lock, Stage::new(&self.agents_dir())?))
    }

    fn serialise(&self) -> Result<fs::File, InstallError> {
        let agents = self.agents_dir();
        fs::create_dir_all(&agents).map_err(io(&agents))?;
        let path = agents.join(".skilldeck.lock");
        let file = fs::OpenOptions::new().create(true).truncate(false).write(true).open(&path).map_err(io(&path))?;
        file.lock().map_err(io(&path))?;
        commit::recover(&agents, &self.lock_path())?;
        Ok(file)
    }

    /// The skills `source` holds, without installing any.
    ///
    /// # Errors
    ///
    /// [`InstallError`]: the source cannot be fetched, the ref is not there,
    /// or it holds no skill.
    pub fn list(&self, source: &Source) -> Result<Vec<Found>, InstallError> {
        let stage = Stage::new(&std::env::temp_dir())?;
        let tree = self.fetch(source, source.reference.as_deref(), &stage)?;
        Ok(discover(source, &tree)?.into_iter().map(|(found, _)| found).collect())
    }

    /// Installs skills from `source` into `.agents/skills` and records them in the lock.
    ///
    /// # Errors
    ///
    /// [`InstallError`], having changed nothing.
    pub fn add(&self, source: &Source, options: &AddOptions) -> Result<Vec<Installed>, InstallError> {
        let _serialised = self.serialise()?;
        let mut stage = Stage::new(&self.agents_dir())?;
        let tree = self.fetch(source, source.reference.as_deref(), &stage)?;
        let found = discover(source, &tree)?;
        let chosen: Vec<&(Found, PathBuf)> = if options.skills.is_empty() {
            found.iter().collect()
        } else {
            let mut chosen = Vec::new();
            for name in &options.skills {
                match found.iter().find(|(f, _)| &f.name == name) {
                    Some(skill) => chosen.push(skill),
                    None => {
                        return Err(InstallError::NoSuchSkill {
                            origin: source.to_string(),
                            name: name.clone(),
                            available: found.iter().map(|(f, _)| f.name.clone()).collect(),
                        });
                    }
                }
            }
            chosen
        };
        let hosts = links::hosts(&options.links)?;
        tree.complete(chosen.iter().map(|(_, dir)| dir.as_path()))?;
        let mut lock = self.lock()?;
        let mut ready = Vec::new();
        for (skill, dir) in chosen {
            let target = self.skills_dir().join(&skill.name);
            if target.exists() && !lock.skills.contains_key(&skill.name) && !options.force {
                return Err(InstallError::Collision {
                    name: skill.name.clone(),
                    origin: source.to_string(),
                    dir: target,
                });
            }
            let mut entry = LockEntry::new(self.lock_source(source), source.source_type.as_str(), String::new());
            entry.source_url = source.lock_source_url();
            if self.is_global() {
                // The package's global entries name every source's URL (a local one's path).
                entry.source_url = Some(source.url_or_path());
            }
            entry.reference = source.reference.clone();
            entry.skill_path = Some(skill.skill_path.clone());
            entry.commit = tree.commit.clone();
            entry.pinned = options.pin && tree.commit.is_some();
            self.stamp(&mut entry, lock.skills.get(&skill.name));
            let linked = lock.skills.get(&skill.name).map(|e| e.links.clone()).unwrap_or_default();
            entry.links = links::merged(&linked, &hosts);
            if !options.force {
                links::check_free(&self.root, &target, &skill.name, &entry.links, &linked, &source.to_string())?;
            }
            ready.push(prepare(&skill.name, &source.to_string(), dir, entry, &stage, options.force, &target)?);
        }
        risk::refuse(ready.iter().map(|r| (r.name.as_str(), &r.audit)), options.allow_risk)?;
        let installed = self.commit(ready, &mut lock, &mut stage)?;
        Ok(installed)
    }

    /// Installs every skill the lock names as the lock records it: the
    /// recorded commit (from the cache when it holds it, so offline), each
    /// file checked against its digest. A skill already installed as
    /// recorded is left alone. With `frozen`, an installed skill that differs
    /// from the lock is an error, and the lock is never written.
    ///
    /// # Errors
    ///
    /// [`InstallError`], having changed nothing.
    pub fn install(&self, frozen: bool) -> Result<Vec<Installed>, InstallError> {
        let _serialised = self.serialise()?;
        if frozen && !self.lock_path().is_file() {
            return Err(InstallError::NoLock { path: self.lock_path() });
        }
        let mut lock = self.lock()?;
        let mut stage = Stage::new(&self.agents_dir())?;
        let mut wanted = Vec::new();
        let mut repairs = Vec::new();
        let mut trees = Trees::new();
        for (name, entry) in &lock.skills {
            let target = self.skills_dir().join(name);
            let on_disk = if target.is_dir() { Some(digests(name, &target)?) } else { None };
            if let Some(on_disk) = &on_disk {
                let diff = match &entry.files {
                    Some(files) => Diff::between(files, on_disk),
                    None if hash_of(name, &target)? == entry.computed_hash => Diff::default(),
                    None => Diff { modified: on_disk.keys().cloned().collect(), ..Diff::default() },
                };
                if diff.is_empty() {
                    repairs.extend(links::missing(&stage, &self.root, &target, name, &entry.links)?);
                    continue;
                }
                if frozen {
                    return Err(InstallError::Frozen { name: name.clone(), diff });
                }
            }
            let (source, skill_path) = self.lock_source_of(name, entry)?;
            let commit = entry.commit.as_deref().or(entry.reference.as_deref());
            let tree = self.fetch_once(&mut trees, &source, commit, &stage)?;
            let dir = skill_dir(&source, &tree, name, skill_path.as_deref())?;
            wanted.push(Wanted { name, entry, source, tree, dir });
        }
        complete(&wanted)?;
        let mut ready = Vec::new();
        for Wanted { name, entry, source, tree, dir } in wanted {
            let mut next = entry.clone();
            next.commit = tree.commit.clone().or(next.commit);
            let target = self.skills_dir().join(name);
            let skill = prepare(name, &source.to_string(), &dir, next, &stage, true, &target)?;
            let diff = match &entry.files {
                Some(files) => Diff::between(files, skill.entry.files.as_ref().unwrap_or(&BTreeMap::new())),
                None if skill.entry.computed_hash == entry.computed_hash => Diff::default(),
                None => Diff {
                    modified: skill.entry.files.iter().flat_map(|f| f.keys().cloned()).collect(),
                    ..Diff::default()
                },
            };
            if !diff.is_empty() {
                return Err(InstallError::Mismatch { name: name.to_owned(), origin: source.to_string(), diff });
            }
            ready.push(skill);
        }
        if frozen {
            let mut same = lock.clone();
            return self.commit_files(ready, repairs, &mut same, &mut stage, false);
        }
        self.commit_files(ready, repairs, &mut lock, &mut stage, true)
    }

    /// Removes skills: their directories and their lock entries.
    ///
    /// # Errors
    ///
    /// [`InstallError::NotInstalled`] for a name the lock does not have
    /// (nothing removed), or an I/O error.
    pub fn remove(&self, names: &[String]) -> Result<(), InstallError> {
        let (_serialised, mut lock, mut stage) = self.begin_on(names)?;
        let mut moves = Vec::new();
        for name in names {
            moves.push(Move { target: self.skills_dir().join(name), staged: None });
            if let Some(entry) = lock.skills.remove(name) {
                moves.extend(links::removed(&self.root, name, &entry.links));
            }
        }
        commit::apply(&mut stage, &moves, Some((&lock, &self.lock_path())))
    }

    /// Recomputes every installed file's digest against the lock.
    ///
    /// # Errors
    ///
    /// [`InstallError`]: the lock or a file cannot be read.
    pub fn verify(&self) -> Result<Vec<Verified>, InstallError> {
        // A command killed after deciding its change is finished first: that is the project's state.
        let _serialised = if commit::interrupted(&self.agents_dir()) { Some(self.serialise()?) } else { None };
        let lock = self.lock()?;
        let mut out = Vec::new();
        for (name, entry) in &lock.skills {
            let target = self.skills_dir().join(name);
            let on_disk = if target.is_dir() { digests(name, &target)? } else { BTreeMap::new() };
            let verified = match &entry.files {
                Some(files) => {
                    Verified { name: name.clone(), diff: Diff::between(files, &on_disk), hash_differs: false }
                }
                None => Verified {
                    name: name.clone(),
                    diff: Diff::default(),
                    hash_differs: !target.is_dir() || hash_of(name, &target)? != entry.computed_hash,
                },
            };
            out.push(verified);
        }
        Ok(out)
    }

    /// Moves skills (all, with no names) to the newest commit of their
    /// recorded ref; a skill whose ref is a commit, or from a local
    /// directory, is [`Update::Pinned`]. The new files are audited first:
    /// a finding at [`RISKY`](skilldeck::audit::RISKY) or above refuses the
    /// whole update unless `allow_risk`.
    ///
    /// # Errors
    ///
    /// [`InstallError`], having changed nothing.
    pub fn update(&self, names: &[String], allow_risk: bool) -> Result<Vec<Update>, InstallError> {
        let (_serialised, mut lock, mut stage) = self.begin_on(names)?;
        let mut wanted = Vec::new();
        let mut report = Vec::new();
        let mut trees = Trees::new();
        for (name, entry) in &lock.skills {
            if !names.is_empty() && !names.contains(name) {
                continue;
            }
            let pinned = entry.pinned || entry.reference.as_deref().is_some_and(git::is_commit_id);
            if pinned || entry.source_type == SourceType::Local.as_str() {
                report.push(Update::Pinned { name: name.clone() });
                continue;
            }
            let (source, skill_path) = self.lock_source_of(name, entry)?;
            let tree = self.fetch_once(&mut trees, &source, entry.reference.as_deref(), &stage)?;
            if tree.commit.is_some() && tree.commit == entry.commit {
                report.push(Update::Current { name: name.clone() });
                continue;
            }
            let dir = skill_dir(&source, &tree, name, skill_path.as_deref())?;
            wanted.push(Wanted { name, entry, source, tree, dir });
        }
        complete(&wanted)?;
        let mut ready = Vec::new();
        for Wanted { name, entry, source, tree, dir } in wanted {
            let mut next = entry.clone();
            next.commit = tree.commit.clone();
            self.stamp(&mut next, Some(entry));
            let target = self.skills_dir().join(name);
            let skill = prepare(name, &source.to_string(), &dir, next, &stage, true, &target)?;
            let empty = BTreeMap::new();
            let diff =
                Diff::between(entry.files.as_ref().unwrap_or(&empty), skill.entry.files.as_ref().unwrap_or(&empty));
            report.push(Update::Moved {
                name: name.to_owned(),
                from: entry.commit.clone(),
                to: tree.commit.clone().unwrap_or_default(),
                diff,
                audit: Box::new(skill.audit.clone()),
            });
            ready.push(skill);
        }
        risk::refuse(ready.iter().map(|r| (r.name.as_str(), &r.audit)), allow_risk)?;
        self.commit(ready, &mut lock, &mut stage)?;
        // In the lock's order, as every command reports skills.
        report.sort_by(|a, b| a.name().cmp(b.name()));
        Ok(report)
    }

    /// For the global lock, `installedAt` (kept from `previous`) and
    /// `updatedAt` (now), as the `skills` package stamps its global entries.
    fn stamp(&self, entry: &mut LockEntry, previous: Option<&LockEntry>) {
        if !self.is_global() {
            return;
        }
        let now = serde_json::Value::from(skilldeck::store::now_utc());
        let installed = previous.and_then(|p| p.extra.get("installedAt").cloned()).unwrap_or_else(|| now.clone());
        entry.extra.insert("installedAt".into(), installed);
        entry.extra.insert("updatedAt".into(), now);
    }

    /// The lock's `source` for `source`: a local directory relative to the
    /// project, `./`-prefixed and `/`-separated, as the `skills` package
    /// writes it (`getPortableLocalSource`).
    fn lock_source(&self, source: &Source) -> String {
        let Location::Local { path } = &source.location else { return source.lock_source() };
        if self.is_global() {
            return source.url_or_path();
        }
        match relative(&self.root, path) {
            Some(rel) if rel.is_empty() => ".".into(),
            Some(rel) if rel == ".." || rel.starts_with("../") => rel,
            Some(rel) => format!("./{rel}"),
            None => path.to_string_lossy().replace('\\', "/"),
        }
    }

    /// The source and `skillPath` of a lock entry.
    fn lock_source_of(&self, name: &str, entry: &LockEntry) -> Result<(Source, Option<String>), InstallError> {
        let unsupported = |reason: String| InstallError::Unsupported { name: name.to_owned(), reason };
        let source = Source::from_lock(
            &entry.source,
            &entry.source_type,
            entry.source_url.as_deref(),
            entry.reference.as_deref(),
            &self.root,
        )
        .ok_or_else(|| unsupported(format!("sourceType {:?}", entry.source_type)))?;
        if let Some(skill_path) = entry.skill_path.as_ref().filter(|p| p.split('/').any(|s| s == "..")) {
            return Err(unsupported(format!("skillPath {skill_path:?}")));
        }
        Ok((source, entry.skill_path.clone()))
    }

    /// The source's files at `reference` (a commit, a branch, a tag; `None`:
    /// the default branch), only the directories that hold a `SKILL.md`.
    fn fetch(&self, source: &Source, reference: Option<&str>, stage: &Stage) -> Result<Tree, InstallError> {
        let url = match &source.location {
            Location::Local { path } => {
                if !path.is_dir() {
                    return Err(InstallError::NoSkills { origin: source.to_string() });
                }
                return Ok(Tree { root: path.clone(), commit: None, repo: None });
            }
            Location::Git { url } => url,
        };
        let repo = self.repo_with(url, reference)?;
        let commit = repo.resolve(reference)?;
        let skill_files = repo.skill_files(&commit, source.subpath.as_deref())?;
        if skill_files.is_empty() {
            return Err(InstallError::NoSkills { origin: source.to_string() });
        }
        let root = stage.dir.join(format!("tree-{}", git::unique()));
        repo.export_dirs(&commit, &skill_files, &root)?;
        Ok(Tree { root, commit: Some(commit), repo: Some(repo) })
    }

    /// [`Project::fetch`], once per source and reference in one command: the
    /// skills of one repository share one checkout (and one network fetch).
    fn fetch_once(
        &self,
        trees: &mut Trees,
        source: &Source,
        reference: Option<&str>,
        stage: &Stage,
    ) -> Result<Tree, InstallError> {
        let key = (source.to_string(), reference.map(str::to_owned));
        if let Some(tree) = trees.get(&key) {
            return Ok(tree.clone());
        }
        let tree = self.fetch(source, reference, stage)?;
        trees.insert(key, tree.clone());
        Ok(tree)
    }

    /// The cached clone when it already holds `reference` as a commit (so no
    /// network is needed), else a fresh fetch (and of the commit itself when
    /// no branch or tag reaches it).
    fn repo_with(&self, url: &str, reference: Option<&str>) -> Result<Repo, InstallError> {
        let commit = reference.filter(|r| git::is_commit_id(r));
        if let (Some(repo), Some(commit)) = (self.cache.cached(url), commit)
            && repo.has_commit(commit)
        {
            return Ok(repo);
        }
        let repo = self.cache.fetch(url)?;
        if let Some(commit) = commit
            && !repo.has_commit(commit)
        {
            repo.fetch_commit(commit)?;
        }
        Ok(repo)
    }

    /// Renames every staged skill into place, then writes the lock.
    fn commit(&self, ready: Vec<Ready>, lock: &mut Lock, stage: &mut Stage) -> Result<Vec<Installed>, InstallError> {
        self.commit_files(ready, Vec::new(), lock, stage, true)
    }

    /// Renames every staged skill into place (an old copy moved into the
    /// stage first), with its links and the `links` moves given, and records
    /// it in `lock`, which is written last when `write_lock`: all of it or
    /// none, whenever the process is killed (see `commit.rs`).
    fn commit_files(
        &self,
        ready: Vec<Ready>,
        mut moves: Vec<Move>,
        lock: &mut Lock,
        stage: &mut Stage,
        write_lock: bool,
    ) -> Result<Vec<Installed>, InstallError> {
        let skills_dir = self.skills_dir();
        let mut installed = Vec::new();
        for skill in ready {
            let target = skills_dir.join(&skill.name);
            moves.extend(links::made(stage, &self.root, &target, &skill.staged, &skill.name, &skill.entry.links)?);
            moves.push(Move { target, staged: Some(skill.staged) });
            installed.push(Installed {
                name: skill.name.clone(),
                commit: skill.entry.commit.clone(),
                files: skill.entry.files.as_ref().map_or(0, BTreeMap::len),
                audit: skill.audit,
            });
            lock.skills.insert(skill.name, skill.entry);
        }
        let lock_path = self.lock_path();
        commit::apply(stage, &moves, write_lock.then_some((&*lock, lock_path.as_path())))?;
        Ok(installed)
    }
}

/// The skills under the source's subpath of `tree`, found by skilldeck's
/// own discovery (its walk and its `SKILL.md` reader, links not followed),
/// each with its directory.
fn discover(source: &Source, tree: &Tree) -> Result<Vec<(Found, PathBuf)>, InstallError> {
    let base = match &source.subpath {
        Some(sub) => tree.root.join(sub),
        None => tree.root.clone(),
    };
    let catalog = Catalog::builder().root(&base).symlinks(Symlinks::Skip).build();
    let mut found = Vec::new();
    for skill in catalog.skills() {
        let Some(dir) = skill.dir() else { continue };
        let rel = relative(&tree.root, dir).unwrap_or_default();
        let skill_path = if rel.is_empty() { "SKILL.md".to_owned() } else { format!("{rel}/SKILL.md") };
        let found_skill =
            Found { name: skill.name().to_owned(), description: skill.description().map(str::to_owned), skill_path };
        found.push((found_skill, dir.to_path_buf()));
    }
    if found.is_empty() {
        return Err(InstallError::NoSkills { origin: source.to_string() });
    }
    found.sort_by(|a, b| a.0.name.cmp(&b.0.name));
    Ok(found)
}

/// Copies the skill in `dir` into the stage as `NAME`, validates it there
/// (refused on errors unless `force`), audits it (paths shown under
/// `target`), and completes its lock entry's `computedHash` (of `dir`, as
/// the `skills` package hashes the source) and `files`.
fn prepare(
    name: &str,
    source: &str,
    dir: &Path,
    mut entry: LockEntry,
    stage: &Stage,
    force: bool,
    target: &Path,
) -> Result<Ready, InstallError> {
    let invalid =
        |reasons: Vec<String>| InstallError::Invalid { name: name.to_owned(), origin: source.to_owned(), reasons };
    if let Err(e) = check_name(name, NameKind::Skill) {
        return Err(invalid(vec![e.to_string()]));
    }
    if name.starts_with('.') || name.contains('\\') {
        return Err(invalid(vec!["a name that cannot be a directory's".into()]));
    }
    let files_error = |source| InstallError::Files { name: name.to_owned(), source };
    let staged = stage.dir.join(format!("new-{}", git::unique())).join(name);
    let mut digests = BTreeMap::new();
    for file in files::collect(dir).map_err(files_error)? {
        let bytes = files::read(&file.path).map_err(files_error)?;
        let dest = staged.join(&file.rel);
        if let Some(parent) = dest.parent() {
            fs::create_dir_all(parent).map_err(io(parent))?;
        }
        fs::write(&dest, &bytes).map_err(io(&dest))?;
        let permissions = fs::metadata(&file.path).map_err(io(&file.path))?.permissions();
        fs::set_permissions(&dest, permissions).map_err(io(&dest))?;
        digests.insert(file.rel, files::digest(&bytes));
    }
    if !force {
        let reasons: Vec<String> = Validator::new()
            .validate(&staged)
            .iter()
            .flat_map(|v| v.errors().map(|d| d.message.clone()).collect::<Vec<_>>())
            .collect();
        if !reasons.is_empty() {
            return Err(invalid(reasons));
        }
    }
    let audit = risk::audit(name, &staged, target)?;
    entry.computed_hash = computed_hash(dir).map_err(files_error)?;
    entry.files = Some(digests);
    Ok(Ready { name: name.to_owned(), staged, entry, audit })
}

/// Every file's digest of an installed skill.
fn digests(name: &str, dir: &Path) -> Result<BTreeMap<String, String>, InstallError> {
    let files_error = |source| InstallError::Files { name: name.to_owned(), source };
    let mut out = BTreeMap::new();
    for file in files::collect(dir).map_err(files_error)? {
        let bytes = files::read(&file.path).map_err(files_error)?;
        out.insert(file.rel, files::digest(&bytes));
    }
    Ok(out)
}

fn hash_of(name: &str, dir: &Path) -> Result<String, InstallError> {
    computed_hash(dir).map_err(|source| InstallError::Files { name: name.to_owned(), source })
}

/// The directory of skill `name` in `tree`: its `skillPath`'s, or, for an
/// entry without one (the `skills` package's global entries of a local
/// source), the skill of that name the source holds.
fn skill_dir(source: &Source, tree: &Tree, name: &str, skill_path: Option<&str>) -> Result<PathBuf, InstallError> {
    if let Some(skill_path) = skill_path {
        return Ok(tree.root.join(skill_dir_of(skill_path)));
    }
    let found = discover(source, tree)?;
    let available = found.iter().map(|(f, _)| f.name.clone()).collect();
    let dir = found.into_iter().find(|(f, _)| f.name == name).map(|(_, dir)| dir);
    dir.ok_or_else(|| InstallError::NoSuchSkill { origin: source.to_string(), name: name.to_owned(), available })
}

/// The directory of a `SKILL.md` path (`""` for the root's).
fn skill_dir_of(skill_path: &str) -> &str {
    skill_path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// `path` below `base`, `/`-separated; `..` segments when it is beside it;
/// `None` when they share no prefix or a segment is not UTF-8.
pub(crate) fn relative(base: &Path, path: &Path) -> Option<String> {
    let base: Vec<_> = base.components().collect();
    let path: Vec<_> = path.components().collect();
    let common = base.iter().zip(&path).take_while(|(a, b)| a == b).count();
    if common == 0 {
        return None;
    }
    let mut parts: Vec<String> = std::iter::repeat_n("..".to_owned(), base.len() - common).collect();
    for part in &path[common..] {
        parts.push(part.as_os_str().to_str()?.to_owned());
    }
    Some(parts.join("/"))
}
