//! What a walk for skills is: the file that makes a skill, the directories
//! never entered, and the order candidates come in. Discovery, reloads,
//! sampling and validation all walk with these rules, and nowhere else is
//! a walker set up.

use std::path::Path;

use skilldeck_walk::{File, Limits, Symlinks, Walker};

/// Directory names never entered, in discovery and in sampling.
pub(crate) const SKIPPED_DIRS: [&str; 2] = [".git", "node_modules"];

/// The file that makes a directory a skill.
pub(crate) const SKILL_MD: &str = "SKILL.md";

/// The order of `SKILL.md` candidates within a root, which decides which
/// duplicate wins: depth (fewest segments first), then code point.
pub(crate) fn candidate_order(a: &File, b: &File) -> std::cmp::Ordering {
    (a.depth, a.rel_bytes()).cmp(&(b.depth, b.rel_bytes()))
}

/// Whether the directory `dir` is itself a link that resolves to `other`
/// (a host's place linked to a skill: `.claude/skills/x` to
/// `.agents/skills/x`). Only a link is resolved: one `lstat` for any other
/// directory.
pub(crate) fn is_link_to(dir: &Path, other: &Path) -> bool {
    let is_link = std::fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_symlink());
    is_link && std::fs::canonicalize(dir).ok().is_some_and(|real| std::fs::canonicalize(other).ok() == Some(real))
}

/// A walker below `dir` that never enters [`SKIPPED_DIRS`].
pub(crate) fn walker(dir: &Path, symlinks: Symlinks, limits: Limits) -> Walker {
    SKIPPED_DIRS.iter().fold(Walker::new(dir), |w, d| w.skip_dir(d)).symlinks(symlinks).limits(limits)
}

/// A walker below a skill's directory for its audit: every file, only
/// `.git` not entered (a script can load what `node_modules` holds).
pub(crate) fn audit_walker(dir: &Path, symlinks: Symlinks, limits: Limits) -> Walker {
    Walker::new(dir).skip_dir(SKIPPED_DIRS[0]).symlinks(symlinks).limits(limits)
}
