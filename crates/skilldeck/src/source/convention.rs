//! Where users keep skills, by convention: the roots a catalog walks when
//! none is given (SPEC §14). The project's places come before the user's, so
//! that a project's skill wins over a personal one of the same name (the
//! catalog keeps the first skill of a name).

use std::collections::HashSet;
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
/// `.agents/skills`, a project that is the home directory) is taken once.
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
}

impl ConventionalRoots {
    /// The conventional places of `projects` (in order; each made absolute
    /// against the working directory) and of `home`.
    pub fn find(projects: &[PathBuf], home: Option<&Path>) -> ConventionalRoots {
        let project_places = projects
            .iter()
            .flat_map(|project| project_dirs(&std::path::absolute(project).unwrap_or_else(|_| project.clone())))
            .flat_map(|dir| PROJECT_SKILL_DIRS.map(|rel| dir.join(rel)));
        let user_places = home.into_iter().flat_map(|home| USER_SKILL_DIRS.map(|rel| home.join(rel)));
        let mut found = ConventionalRoots::default();
        let mut real_dirs = HashSet::new();
        for place in project_places.chain(user_places) {
            if found.searched.contains(&place) {
                continue;
            }
            let real = std::fs::canonicalize(&place).ok().filter(|real| real.is_dir());
            if real.is_some_and(|real| real_dirs.insert(real)) {
                found.roots.push(place.clone());
            }
            found.searched.push(place);
        }
        found
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

    /// The places looked in that are not roots: not a directory, or one
    /// taken already under another name.
    pub fn missing(&self) -> impl Iterator<Item = &Path> {
        self.searched.iter().filter(|place| !self.roots.contains(place)).map(PathBuf::as_path)
    }
}

/// The user's home directory, from the environment (`HOME`; `USERPROFILE`
/// on Windows), as [`std::env::home_dir`] reads it.
pub fn home_dir() -> Option<PathBuf> {
    std::env::home_dir().filter(|home| !home.as_os_str().is_empty())
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
}
