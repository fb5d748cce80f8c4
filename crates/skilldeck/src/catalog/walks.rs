//! The walks of a build's roots, and how a live catalog brings a kept walk
//! up to date with the paths that changed ([`CatalogBuilder::rewalk`]),
//! falling back to a whole walk wherever the paths alone cannot say.

use std::fs;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use skilldeck_walk::{File, LimitHit, Limits, Totals};

use super::CatalogBuilder;
use super::gate::Verdicts;
use crate::model::Origin;
use crate::source::confine::Confinement;
use crate::source::installed::Locks;
use crate::source::read::{self, DEFAULT_MAX_FRONTMATTER};
use crate::source::walk::{SKILL_MD, SKIPPED_DIRS, candidate_order, walker};

impl CatalogBuilder {
    /// Walks a whole root, which led to `identity` before the walk began. Its
    /// skills' bytes are confined to it (SPEC §11): to its real path, and
    /// without resolving anything when the walk met no link.
    pub(super) fn walk_root(&self, absolute: PathBuf, identity: RootIdentity) -> RootWalk {
        let mut walk = self.walk_dir(&absolute, self.limits);
        let confinement = Arc::new(Confinement::root(absolute.clone(), identity.real.clone(), walk.totals.linked));
        confine(&mut walk.candidates, &confinement);
        let DirWalk { candidates, limit_hit, totals, links } = walk;
        RootWalk { absolute, identity, confinement, candidates, limit_hit, totals, links, verdicts: Arc::default() }
    }

    /// Walks `dir` for `SKILL.md` candidates, each read and parsed on the
    /// thread that listed its directory, and returns them in candidate order,
    /// confined to nothing yet.
    fn walk_dir(&self, dir: &Path, limits: Limits) -> DirWalk {
        let max_frontmatter = self.max_frontmatter.unwrap_or(DEFAULT_MAX_FRONTMATTER);
        // Each project's lock read once per walk, the first time one of its skills is.
        let locks = Locks::new(self.installed_stamps.clone());
        let walk = walker(dir, self.symlinks, limits).visit(
            |name| name == SKILL_MD,
            |found| {
                if let (Some(before_read), Some(dir)) = (&self.before_read, found.file().path.parent()) {
                    before_read(dir);
                }
                read::skill_md(found, max_frontmatter, self.mode, &locks)
            },
        );
        let mut candidates: Vec<Candidate> = walk
            .files
            .into_iter()
            .map(|(mut file, mut outcome)| {
                // The walked path moves into the skill: the file keeps only what orders it.
                if let Ok((skill, _)) = &mut outcome
                    && let Origin::Fs { skill_md, .. } = &mut skill.data_mut().origin
                {
                    *skill_md = std::mem::take(&mut file.path);
                }
                (file, outcome)
            })
            .collect();
        candidates.sort_by(|(a, _), (b, _)| candidate_order(a, b));
        locks.save();
        DirWalk { candidates, limit_hit: walk.limit_hit, totals: walk.totals, links: walk.links }
    }

    /// `previous` brought up to date with `changed`, walking again only the
    /// parts that changed; `None` when only a whole walk can say (a limit in
    /// play, a link whose target lies outside the root or at or around a
    /// change, a link in a part walked again, or the root itself changed).
    pub(super) fn rewalk(&self, previous: &RootWalk, changed: &[PathBuf]) -> Option<RootWalk> {
        if previous.limit_hit.is_some() {
            return None;
        }
        let real = &previous.identity.real;
        // Where each link the walk met leads now, relative to the root: a change
        // there shows through the link, whose own path no watcher reports.
        let targets = previous
            .links
            .iter()
            .map(|link| link_target(&previous.absolute.join(link))?.strip_prefix(real).ok().map(Path::to_path_buf))
            .collect::<Option<Vec<PathBuf>>>()?;
        let mut parts = Vec::new();
        for path in changed {
            // Watchers report paths as watched or resolved (macOS FSEvents).
            let Ok(rel) = path.strip_prefix(&previous.absolute).or_else(|_| path.strip_prefix(real)) else {
                continue;
            };
            if targets.iter().any(|target| target.starts_with(rel) || rel.starts_with(target)) {
                return None;
            }
            if rel.components().any(|c| SKIPPED_DIRS.iter().any(|d| c.as_os_str() == *d)) {
                continue;
            }
            let part = changed_part(&previous.absolute, rel)?;
            // Any file of a checked skill is part of its check: its whole directory is read again.
            parts.push(checked_dir(&previous.candidates, &part, self.refuse_risk.is_some()).unwrap_or(part));
        }
        // A part inside another is walked with it.
        parts.sort();
        parts.dedup_by(|inner, outer| inner.starts_with(outer));
        let mut candidates: Vec<Candidate> = previous
            .candidates
            .iter()
            .filter(|(file, _)| !parts.iter().any(|p| file.rel.starts_with(p)))
            .cloned()
            .collect();
        let mut totals = previous.totals;
        for part in &parts {
            let dir = previous.absolute.join(part);
            if !fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir()) {
                continue;
            }
            let depth = part.components().count();
            let limits = Limits { max_depth: self.limits.max_depth.checked_sub(depth)?, ..self.limits };
            let DirWalk { candidates: mut found, limit_hit, totals: more, .. } = self.walk_dir(&dir, limits);
            // Counted twice where the part was walked before: a whole walk
            // within the limits is sure to be within them too.
            totals.dirs += more.dirs;
            totals.entries += more.entries;
            // No link met: the root's confinement, and whether it resolves, hold.
            if limit_hit.is_some()
                || more.linked
                || totals.dirs > self.limits.max_dirs
                || totals.entries > self.limits.max_entries
            {
                return None;
            }
            confine(&mut found, &previous.confinement);
            candidates.extend(found.into_iter().map(|(mut file, outcome)| {
                file.rel = part.join(&file.rel);
                file.depth += depth;
                (file, outcome)
            }));
        }
        candidates.sort_by(|(a, _), (b, _)| candidate_order(a, b));
        let (absolute, identity) = (previous.absolute.clone(), previous.identity.clone());
        let confinement = previous.confinement.clone();
        // The parts walked again met no link: those that were in them are gone.
        let links = previous.links.iter().filter(|link| !parts.iter().any(|p| link.starts_with(p))).cloned().collect();
        let verdicts = previous.verdicts.clone();
        Some(RootWalk { absolute, identity, confinement, candidates, limit_hit: None, totals, links, verdicts })
    }
}

/// The directory, relative to the root, of the checked skill that `part`
/// lies in: an installed one ([`Integrity`](crate::source::installed::Integrity)),
/// or, with `gated` (a build that refuses risk), any.
fn checked_dir(candidates: &[Candidate], part: &Path, gated: bool) -> Option<PathBuf> {
    candidates.iter().find_map(|(file, outcome)| {
        let checked = outcome.as_ref().is_ok_and(|(skill, _)| gated || skill.data().integrity.is_some());
        let dir = file.rel.parent()?;
        (checked && part.starts_with(dir) && part != dir).then(|| dir.to_path_buf())
    })
}

/// Confines the skills of freshly read `candidates` to their root.
fn confine(candidates: &mut [Candidate], confinement: &Arc<Confinement>) {
    for (_, outcome) in candidates {
        if let Ok((skill, _)) = outcome {
            skill.data_mut().confinement = Some(confinement.clone());
        }
    }
}

/// A `SKILL.md` candidate of a root's walk and what it became.
pub(super) type Candidate = (File, read::Outcome);

/// The walk of one directory of a root.
struct DirWalk {
    candidates: Vec<Candidate>,
    limit_hit: Option<LimitHit>,
    totals: Totals,
    links: Vec<PathBuf>,
}

/// One root's walk, kept by a live catalog: every candidate in candidate
/// order, so that a reload reads again only what changed.
#[derive(Clone, Debug)]
pub(super) struct RootWalk {
    /// The root made absolute: the prefix of what a file watcher reports.
    pub(super) absolute: PathBuf,
    /// The directory the root led to when it was walked.
    pub(super) identity: RootIdentity,
    /// What its skills may serve: files inside it.
    pub(super) confinement: Arc<Confinement>,
    pub(super) candidates: Vec<Candidate>,
    pub(super) limit_hit: Option<LimitHit>,
    /// Over-counted after rebuilds, never under.
    pub(super) totals: Totals,
    /// The links the walk met, relative to the root as walked
    /// ([`Visited::links`](skilldeck_walk::Visited::links)).
    pub(super) links: Vec<PathBuf>,
    /// The gate's verdicts on its skills, when a gate judged them.
    pub(super) verdicts: Arc<Verdicts>,
}

/// The directory a root path leads to, as opposed to the path: a root moved
/// away and made again, or a link swapped to another release (the usual
/// deploy), is another directory under the same path, and no change reported
/// below the old one says what the new one holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct RootIdentity {
    /// The root resolved, the prefix of what some watchers report instead
    /// (macOS FSEvents); it also tells a swapped link apart.
    pub(super) real: PathBuf,
    /// The directory's device and inode (on Unix), which tell a directory
    /// made again under the same resolved path apart while the old one is
    /// kept (moved away). A removed directory's inode may be reused at once
    /// (ext4 does): then only a change reported at the root itself tells.
    pub(super) inode: Option<(u64, u64)>,
}

impl RootIdentity {
    /// What `absolute` leads to now; `None` when that is not a directory.
    pub(super) fn of(absolute: &Path) -> Option<RootIdentity> {
        let meta = fs::metadata(absolute).ok().filter(fs::Metadata::is_dir)?;
        let real = fs::canonicalize(absolute).unwrap_or_else(|_| absolute.to_path_buf());
        Some(RootIdentity { real, inode: inode(&meta) })
    }
}

/// A file's device and inode, where the platform has them.
pub(super) fn inode(meta: &fs::Metadata) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((meta.dev(), meta.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        None
    }
}

/// The part of a root to drop and, if it is a directory now, walk again for a
/// change at `rel` below it: `rel` itself (a directory that is there, or
/// anything else: whatever was below it before is gone), or the directory of
/// a `SKILL.md`; `None` when only a whole walk can say (the root itself, a
/// link on the way, a file that cannot be looked at).
pub(super) fn changed_part(root: &Path, rel: &Path) -> Option<PathBuf> {
    if rel.as_os_str().is_empty() {
        return None;
    }
    // A link between the root and the change would take the walk elsewhere.
    let mut at = root.to_path_buf();
    for part in rel.parent().into_iter().flat_map(Path::components) {
        at.push(part);
        match fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_symlink() => return None,
            Ok(_) => {}
            // A directory on the way went: so did everything below it.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Some(rel.to_path_buf()),
            Err(_) => return None,
        }
    }
    match fs::symlink_metadata(root.join(rel)) {
        Ok(meta) if meta.file_type().is_symlink() => None,
        Ok(meta) if !meta.is_dir() && rel.file_name().is_some_and(|n| n == SKILL_MD) => {
            rel.parent().filter(|dir| !dir.as_os_str().is_empty()).map(Path::to_path_buf)
        }
        Ok(_) => Some(rel.to_path_buf()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some(rel.to_path_buf()),
        Err(_) => None,
    }
}
/// Where the link at `link` leads now, resolved: for a dangling link, its
/// target as written, each `..` taken where the path before it leads
/// while that exists, and the deepest part that exists resolved. `None`
/// when it cannot be told.
fn link_target(link: &Path) -> Option<PathBuf> {
    if let Ok(target) = fs::canonicalize(link) {
        return Some(target);
    }
    let target = link.parent()?.join(fs::read_link(link).ok()?);
    let mut out = PathBuf::new();
    for part in target.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out = fs::canonicalize(&out).unwrap_or(out);
                out.pop();
            }
            other => out.push(other),
        }
    }
    let mut rest = Vec::new();
    let mut at = out;
    let resolved = loop {
        match fs::canonicalize(&at) {
            Ok(resolved) => break resolved,
            Err(_) => {
                rest.push(at.file_name()?.to_os_string());
                if !at.pop() {
                    return None;
                }
            }
        }
    };
    Some(rest.iter().rev().fold(resolved, |path, part| path.join(part)))
}
