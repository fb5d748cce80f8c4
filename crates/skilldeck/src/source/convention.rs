//! Where users keep skills, by convention: the roots a catalog walks when
//! none is given (SPEC §14). The project's places come before the user's, so
//! that a project's skill wins over a personal one of the same name (the
//! catalog keeps the first skill of a name).
//!
//! A project is whatever repository skilldeck is run in, a stranger's clone
//! as often as not: its places may not lead out of it. A `.claude/skills`
//! that links to `/etc` or `/` is not a root (its skills would be served from
//! there, and a live server would watch the whole file system). The user's
//! own places may lead anywhere: the user made them.

use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};

/// The skill directories of a project, in precedence order, relative to a
/// project directory: the cross-client `.agents/skills` (Codex, Copilot, and
/// the Agent Skills client guide), Claude Code's `.claude/skills`, GitHub
/// Copilot's `.github/skills`.
pub const PROJECT_SKILL_DIRS: [&str; 3] = [".agents/skills", ".claude/skills", ".github/skills"];

/// The user's skill directories, in precedence order, relative to the home
/// directory: the cross-client `~/.agents/skills`, Claude Code's
/// `~/.claude/skills`, Codex's older `~/.codex/skills`, GitHub Copilot's
/// `~/.copilot/skills`.
pub const USER_SKILL_DIRS: [&str; 4] = [".agents/skills", ".claude/skills", ".codex/skills", ".copilot/skills"];

/// The conventional places of skills for some projects and a user: every
/// place looked in, and the roots among them.
///
/// A project is a directory and its parents up to the repository root (the
/// nearest directory holding `.git`), nearest first, as Codex and opencode
/// read `.agents/skills` from the working directory up to the repository
/// root; outside a repository, the directory alone, so that nothing above a
/// project is taken for it. Each project directory gives
/// [`PROJECT_SKILL_DIRS`]; then the home directory gives [`USER_SKILL_DIRS`].
/// A place that is not a directory is not a root (and no warning); a place
/// that leads to a directory already taken (`.claude/skills` linked to
/// `.agents/skills`, a project that is the home directory) is taken once. A
/// project's place whose real path leaves the project (the repository root
/// it was found under, or the directory alone) is not a root either: it is
/// [`outside_project`](ConventionalRoots::outside_project), for the caller
/// to warn of. A place that is also one of the user's is the user's.
///
/// # Example
///
/// ```
/// use skilldeck::{Catalog, ConventionalRoots};
///
/// let project = tempfile::tempdir()?;
/// let home = tempfile::tempdir()?;
/// std::fs::create_dir_all(project.path().join(".claude/skills/deploy"))?;
/// std::fs::write(project.path().join(".claude/skills/deploy/SKILL.md"), "---\nname: deploy\n---\n")?;
/// std::fs::create_dir_all(home.path().join(".agents/skills"))?;
///
/// let found = ConventionalRoots::find(&[project.path().to_path_buf()], Some(home.path()));
/// assert_eq!(found.roots(), [project.path().join(".claude/skills"), home.path().join(".agents/skills")]);
/// assert_eq!(found.searched().len(), 3 + 4);
/// assert_eq!(found.missing().count(), 5);
/// let catalog = Catalog::builder().roots(found.roots()).build();
/// assert!(catalog.get("deploy").is_some());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConventionalRoots {
    searched: Vec<PathBuf>,
    roots: Vec<PathBuf>,
    outside_project: Vec<OutsideProject>,
}

/// A project's conventional place that leads out of its project (a link in
/// a cloned repository to `/etc`, `/` or a home directory): not walked.
///
/// ```
/// let project = tempfile::tempdir()?;
/// std::fs::create_dir(project.path().join(".claude"))?;
/// std::os::unix::fs::symlink("/etc", project.path().join(".claude/skills"))?;
/// let found = skilldeck::ConventionalRoots::find(&[project.path().to_path_buf()], None);
/// assert!(found.roots().is_empty());
/// let outside = &found.outside_project()[0];
/// assert_eq!(outside.place, project.path().join(".claude/skills"));
/// assert_eq!(outside.leads_to, std::fs::canonicalize("/etc")?);
/// assert!(outside.to_string().ends_with(&format!("leads out of its project (to {}): not walked", outside.leads_to.display())));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct OutsideProject {
    /// The place, as looked in.
    pub place: PathBuf,
    /// Where it really is.
    pub leads_to: PathBuf,
    /// The project it was found in (its repository root, or the directory
    /// alone outside a repository).
    pub project: PathBuf,
}

impl fmt::Display for OutsideProject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} is a skill directory of the project {} that leads out of its project (to {}): not walked",
            self.place.display(),
            self.project.display(),
            self.leads_to.display()
        )
    }
}

impl ConventionalRoots {
    /// The conventional places of `projects` (in order; each made absolute
    /// against the working directory) and of `home`.
    pub fn find(projects: &[PathBuf], home: Option<&Path>) -> ConventionalRoots {
        let user_places: Vec<PathBuf> =
            home.into_iter().flat_map(|home| USER_SKILL_DIRS.map(|rel| home.join(rel))).collect();
        // Each project's places, with the real path they must stay inside.
        let project_places = projects.iter().flat_map(|project| {
            let dirs = project_dirs(&std::path::absolute(project).unwrap_or_else(|_| project.clone()));
            let top = dirs.last().cloned().unwrap_or_default();
            let top_real = std::fs::canonicalize(&top).ok();
            let places: Vec<_> = dirs.iter().flat_map(|dir| PROJECT_SKILL_DIRS.map(|rel| dir.join(rel))).collect();
            places.into_iter().map(move |place| (place, Some((top.clone(), top_real.clone()))))
        });
        let places = project_places.chain(user_places.iter().map(|place| (place.clone(), None)));
        let mut found = ConventionalRoots::default();
        let mut real_dirs = HashSet::new();
        for (place, project) in places {
            if found.searched.contains(&place) {
                continue;
            }
            let real = std::fs::canonicalize(&place).ok().filter(|real| real.is_dir());
            if let (Some(real), Some((project, project_real))) = (&real, project)
                && !user_places.contains(&place)
                && !project_real.is_some_and(|top| real.starts_with(top))
            {
                let leads_to = real.clone();
                found.outside_project.push(OutsideProject { place: place.clone(), leads_to, project });
            } else if real.is_some_and(|real| real_dirs.insert(real)) {
                found.roots.push(place.clone());
            }
            found.searched.push(place);
        }
        found
    }

    /// The project places that lead out of their project, in precedence
    /// order: looked in, not walked.
    pub fn outside_project(&self) -> &[OutsideProject] {
        &self.outside_project
    }

    /// Every place looked in, in precedence order, each once.
    pub fn searched(&self) -> &[PathBuf] {
        &self.searched
    }

    /// The places that are directories, in precedence order, each directory
    /// once: the roots to walk.
    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// The places looked in that are not roots: not a directory, one taken
    /// already under another name, or [out of its project](ConventionalRoots::outside_project).
    pub fn missing(&self) -> impl Iterator<Item = &Path> {
        self.searched.iter().filter(|place| !self.roots.contains(place)).map(PathBuf::as_path)
    }
}

/// The user's home directory, from the environment (`HOME`; `USERPROFILE`
/// on Windows), as [`std::env::home_dir`] reads it.
pub fn home_dir() -> Option<PathBuf> {
    std::env::home_dir().filter(|home| !home.as_os_str().is_empty())
}

/// skilldeck's directory in the user's cache: `$XDG_CACHE_HOME/skilldeck`
/// (an absolute one), else `~/.cache/skilldeck` (`~/Library/Caches/skilldeck`
/// on macOS); none without a home. What the command line keeps between runs
/// goes there: the git cache, a server's start cache, the load-time check's
/// stamps.
///
/// ```
/// if let Some(dir) = skilldeck::user_cache_dir() {
///     assert!(dir.ends_with("skilldeck"));
/// }
/// ```
pub fn user_cache_dir() -> Option<PathBuf> {
    let xdg = std::env::var_os("XDG_CACHE_HOME").map(PathBuf::from).filter(|dir| dir.is_absolute());
    let base = xdg.or_else(|| {
        let home = home_dir()?;
        Some(if cfg!(target_os = "macos") { home.join("Library/Caches") } else { home.join(".cache") })
    })?;
    Some(base.join("skilldeck"))
}

/// `start` and its parents up to the nearest one holding `.git` (a
/// directory, or the file of a worktree), nearest first; `start` alone when
/// none does.
fn project_dirs(start: &Path) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    for dir in start.ancestors() {
        dirs.push(dir.to_path_buf());
        if dir.join(".git").exists() {
            return dirs;
        }
    }
    vec![start.to_path_buf()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mkdir(path: &Path) {
        std::fs::create_dir_all(path).expect("mkdir");
    }

    #[test]
    fn project_dirs_stop_at_the_repository_root_and_never_leave_a_project_without_one() {
        let tmp = tempfile::tempdir().expect("tmp");
        let repo = tmp.path().join("repo");
        mkdir(&repo.join(".git"));
        mkdir(&repo.join("a/b"));
        assert_eq!(project_dirs(&repo.join("a/b")), [repo.join("a/b"), repo.join("a"), repo.clone()]);
        assert_eq!(project_dirs(&repo), [repo.as_path()]);
        // A worktree's `.git` is a file.
        let worktree = tmp.path().join("wt");
        mkdir(&worktree.join("sub"));
        std::fs::write(worktree.join(".git"), "gitdir: elsewhere\n").expect("write");
        assert_eq!(project_dirs(&worktree.join("sub")), [worktree.join("sub"), worktree.clone()]);
        let loose = tmp.path().join("loose/deeper");
        mkdir(&loose);
        assert_eq!(project_dirs(&loose), [loose.as_path()]);
    }

    #[cfg(unix)]
    #[test]
    fn nearer_project_dirs_come_first_then_the_user_and_each_directory_is_taken_once() {
        let tmp = tempfile::tempdir().expect("tmp");
        let (repo, home) = (tmp.path().join("repo"), tmp.path().join("home"));
        mkdir(&repo.join(".git"));
        mkdir(&repo.join("pkg/.github/skills"));
        mkdir(&repo.join(".agents/skills"));
        mkdir(&home.join(".claude/skills"));
        // The usual link of one host's directory to another's: read once.
        mkdir(&repo.join(".claude"));
        std::os::unix::fs::symlink("../.agents/skills", repo.join(".claude/skills")).expect("symlink");
        let found = ConventionalRoots::find(&[repo.join("pkg")], Some(&home));
        assert_eq!(
            found.roots(),
            [repo.join("pkg/.github/skills"), repo.join(".agents/skills"), home.join(".claude/skills")]
        );
        let searched: Vec<PathBuf> = ["pkg/.agents/skills", "pkg/.claude/skills", "pkg/.github/skills"]
            .iter()
            .chain(&[".agents/skills", ".claude/skills", ".github/skills"])
            .map(|rel| repo.join(rel))
            .chain(USER_SKILL_DIRS.iter().map(|rel| home.join(rel)))
            .collect();
        assert_eq!(found.searched(), searched);
        assert!(found.missing().any(|place| place == repo.join(".claude/skills")));
        // A project that is the home directory is looked in once.
        let found = ConventionalRoots::find(std::slice::from_ref(&home), Some(&home));
        assert_eq!(found.roots(), [home.join(".claude/skills")]);
        assert_eq!(found.searched().len(), 5);
    }

    #[cfg(unix)]
    #[test]
    fn a_project_place_that_leads_out_of_the_project_is_not_a_root_but_a_user_place_may() {
        let tmp = tempfile::tempdir().expect("tmp");
        let (repo, home, elsewhere) = (tmp.path().join("repo"), tmp.path().join("home"), tmp.path().join("elsewhere"));
        mkdir(&repo.join(".git"));
        mkdir(&repo.join("sub/.claude"));
        mkdir(&repo.join(".github"));
        mkdir(&repo.join("shared/skills"));
        mkdir(&elsewhere.join("skills"));
        mkdir(&home);
        let link = |target: &Path, at: &Path| std::os::unix::fs::symlink(target, at).expect("symlink");
        // Out of the project: to /etc, to /, to a directory beside the repository.
        link(Path::new("/etc"), &repo.join("sub/.claude/skills"));
        link(Path::new("/"), &repo.join(".github/skills"));
        mkdir(&repo.join(".agents"));
        link(&elsewhere.join("skills"), &repo.join(".agents/skills"));
        // Inside it, through a link: fine.
        mkdir(&repo.join("sub/.agents"));
        link(Path::new("../../shared/skills"), &repo.join("sub/.agents/skills"));
        // The user's own place may lead anywhere.
        mkdir(&home.join(".claude"));
        link(&elsewhere.join("skills"), &home.join(".claude/skills"));

        let found = ConventionalRoots::find(&[repo.join("sub")], Some(&home));
        assert_eq!(found.roots(), [repo.join("sub/.agents/skills"), home.join(".claude/skills")]);
        let outside: Vec<(&Path, PathBuf)> =
            found.outside_project().iter().map(|o| (o.place.as_path(), o.leads_to.clone())).collect();
        let real = |p: &Path| std::fs::canonicalize(p).expect("canonicalize");
        assert_eq!(
            outside,
            [
                (repo.join("sub/.claude/skills").as_path(), real(Path::new("/etc"))),
                (repo.join(".agents/skills").as_path(), real(&elsewhere.join("skills"))),
                (repo.join(".github/skills").as_path(), PathBuf::from("/")),
            ]
        );
        assert!(found.outside_project().iter().all(|o| o.project == repo));
        assert!(found.missing().any(|place| place == repo.join(".github/skills")));
    }

    #[cfg(unix)]
    #[test]
    fn outside_a_repository_the_directory_alone_is_the_project_and_home_as_project_keeps_its_links() {
        let tmp = tempfile::tempdir().expect("tmp");
        let (dir, home, elsewhere) = (tmp.path().join("dir"), tmp.path().join("home"), tmp.path().join("elsewhere"));
        mkdir(&dir.join(".claude"));
        mkdir(&elsewhere.join("skills"));
        mkdir(&home.join(".agents"));
        std::os::unix::fs::symlink("../../elsewhere/skills", dir.join(".claude/skills")).expect("symlink");
        std::os::unix::fs::symlink(elsewhere.join("skills"), home.join(".agents/skills")).expect("symlink");
        let found = ConventionalRoots::find(std::slice::from_ref(&dir), None);
        assert!(found.roots().is_empty());
        assert_eq!(found.outside_project().len(), 1);
        // Run in the home directory, the user's own link is the user's.
        let found = ConventionalRoots::find(std::slice::from_ref(&home), Some(&home));
        assert_eq!(found.roots(), [home.join(".agents/skills")]);
        assert!(found.outside_project().is_empty());
    }
}
