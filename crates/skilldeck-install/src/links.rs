//! Where each host reads a project's skills, and the links that show a host
//! whose place is not `.agents/skills` the one copy there.
//!
//! Every host in [`HOSTS`] but Claude Code now reads `.agents/skills`
//! itself, so `--link` only makes a link for those that do not
//! ([`Host::needs_link`]). A link is relative (`.claude/skills/NAME` →
//! `../../.agents/skills/NAME`), so the project can move or be cloned with
//! it; where the file system refuses links, the skill is copied there.
//! The lock records each skill's links (`links`), so `install` makes them
//! again, `update` keeps them, and `remove` takes them away.

use std::fs;
use std::path::{Path, PathBuf};

use crate::commit::{Move, Stage};
use crate::files;
use crate::git;
use crate::install::{InstallError, PROJECT_SKILLS_DIR, io, relative};

/// A host skilldeck can show an installed skill to.
#[derive(Debug, PartialEq, Eq)]
pub struct Host {
    /// The name `--link` takes.
    pub name: &'static str,
    /// The host's own name.
    pub display: &'static str,
    /// Where it reads a project's skills, relative to the project: the first
    /// place its documentation names (it may read others too).
    pub project_dir: &'static str,
    /// The documentation this was checked against (late 2026).
    pub docs: &'static str,
}

impl Host {
    /// Whether the host needs a link: it does not read `.agents/skills`.
    ///
    /// ```
    /// assert!(skilldeck_install::host("claude").unwrap().needs_link());
    /// assert!(!skilldeck_install::host("codex").unwrap().needs_link());
    /// ```
    pub fn needs_link(&self) -> bool {
        self.project_dir != PROJECT_SKILLS_DIR
    }
}

/// The hosts `--link` knows, by name.
pub const HOSTS: &[Host] = &[
    Host {
        name: "claude",
        display: "Claude Code",
        project_dir: ".claude/skills",
        docs: "https://code.claude.com/docs/en/skills",
    },
    Host {
        name: "codex",
        display: "Codex",
        project_dir: ".agents/skills",
        docs: "https://developers.openai.com/codex/skills",
    },
    Host {
        name: "copilot",
        display: "GitHub Copilot (cloud agent, CLI, VS Code agent mode)",
        project_dir: ".agents/skills",
        docs: "https://docs.github.com/en/copilot/concepts/agents/about-agent-skills",
    },
    Host { name: "cursor", display: "Cursor", project_dir: ".agents/skills", docs: "https://cursor.com/docs/skills" },
    Host {
        name: "gemini",
        display: "Gemini CLI",
        project_dir: ".agents/skills",
        docs: "https://geminicli.com/docs/cli/using-agent-skills/",
    },
    Host {
        name: "goose",
        display: "goose",
        project_dir: ".agents/skills",
        docs: "https://github.com/aaif-goose/goose (crates/goose/src/skills)",
    },
    Host {
        name: "opencode",
        display: "OpenCode",
        project_dir: ".agents/skills",
        docs: "https://opencode.ai/docs/skills",
    },
    Host {
        name: "windsurf",
        display: "Windsurf (Cascade)",
        project_dir: ".agents/skills",
        docs: "https://docs.windsurf.com/windsurf/cascade/skills",
    },
];

/// The host `--link` calls `name`.
///
/// ```
/// assert_eq!(skilldeck_install::host("claude").unwrap().project_dir, ".claude/skills");
/// assert!(skilldeck_install::host("emacs").is_none());
/// ```
pub fn host(name: &str) -> Option<&'static Host> {
    HOSTS.iter().find(|h| h.name == name)
}

/// The hosts named `names`, each once, in the table's order.
pub(crate) fn hosts(names: &[String]) -> Result<Vec<&'static Host>, InstallError> {
    if let Some(unknown) = names.iter().find(|n| host(n).is_none()) {
        return Err(InstallError::UnknownHost { name: unknown.clone(), known: HOSTS.iter().map(|h| h.name).collect() });
    }
    Ok(HOSTS.iter().filter(|h| names.iter().any(|n| n == h.name)).collect())
}

/// Where `host` is shown skill `name` in the project at `root`.
fn place(root: &Path, host: &Host, name: &str) -> PathBuf {
    root.join(host.project_dir).join(name)
}

/// The links of skill `name` (`links`, host names) in the project at `root`.
fn places<'a>(root: &'a Path, name: &'a str, links: &'a [String]) -> impl Iterator<Item = PathBuf> + 'a {
    links.iter().filter_map(|h| host(h)).map(move |h| place(root, h, name))
}

/// The hosts of `names` that need a link, added to those `linked` already,
/// by name, in the table's order.
pub(crate) fn merged(linked: &[String], hosts: &[&'static Host]) -> Vec<String> {
    HOSTS
        .iter()
        .filter(|h| linked.iter().any(|l| l == h.name) || hosts.iter().any(|n| n.name == h.name && h.needs_link()))
        .map(|h| h.name.to_owned())
        .collect()
}

/// Refuses to put a link of skill `name` over something there that is not
/// one of skilldeck's: not a link to `skill_dir`, nor in a place the lock
/// says it linked (`linked`). `add --force` does not ask.
pub(crate) fn check_free(
    root: &Path,
    skill_dir: &Path,
    name: &str,
    links: &[String],
    linked: &[String],
    origin: &str,
) -> Result<(), InstallError> {
    for host in links.iter().filter_map(|h| host(h)) {
        let place = place(root, host, name);
        let ours = linked.iter().any(|l| l == host.name) || links_to(&place, skill_dir);
        let taken = fs::symlink_metadata(&place).is_ok() && !ours;
        if taken {
            return Err(InstallError::Collision { name: name.to_owned(), origin: origin.to_owned(), dir: place });
        }
    }
    Ok(())
}

/// The moves that give skill `name`, about to be installed in `skill_dir`
/// from `staged`, its links: each made again, so a copy made where links
/// cannot be follows the new files.
pub(crate) fn made(
    stage: &Stage,
    root: &Path,
    skill_dir: &Path,
    staged: &Path,
    name: &str,
    links: &[String],
) -> Result<Vec<Move>, InstallError> {
    staged_links(stage, places(root, name, links), skill_dir, staged)
}

/// The moves that give skill `name`, installed and unchanged in
/// `skill_dir`, the links it lacks (a clone that did not keep them).
pub(crate) fn missing(
    stage: &Stage,
    root: &Path,
    skill_dir: &Path,
    name: &str,
    links: &[String],
) -> Result<Vec<Move>, InstallError> {
    let absent = places(root, name, links).filter(|place| fs::symlink_metadata(place).is_err());
    staged_links(stage, absent, skill_dir, skill_dir)
}

/// The moves that put a link to `skill_dir` (or a copy of `copy_from`) in
/// each of `places`.
fn staged_links(
    stage: &Stage,
    places: impl Iterator<Item = PathBuf>,
    skill_dir: &Path,
    copy_from: &Path,
) -> Result<Vec<Move>, InstallError> {
    places
        .map(|place| Ok(Move { staged: Some(stage_link(stage, &place, skill_dir, copy_from)?), target: place }))
        .collect()
}

/// The moves that take skill `name`'s links away.
pub(crate) fn removed(root: &Path, name: &str, links: &[String]) -> Vec<Move> {
    places(root, name, links).map(|target| Move { target, staged: None }).collect()
}

/// Whether `place` is a link to `skill_dir` (as this module makes them).
fn links_to(place: &Path, skill_dir: &Path) -> bool {
    let is_link = fs::symlink_metadata(place).is_ok_and(|m| m.file_type().is_symlink());
    is_link && fs::canonicalize(place).ok() == fs::canonicalize(skill_dir).ok()
}

/// A link to `skill_dir` for `place`, made in the stage (its target is
/// relative to where it will be), or, where links cannot be made, a copy of
/// `copy_from` (the skill's files as they will be installed).
fn stage_link(stage: &Stage, place: &Path, skill_dir: &Path, copy_from: &Path) -> Result<PathBuf, InstallError> {
    let staged = stage.dir.join(format!("link-{}", git::unique()));
    let parent = place.parent().unwrap_or(place);
    let target = relative(parent, skill_dir).unwrap_or_else(|| skill_dir.to_string_lossy().into_owned());
    if symlink(&target, &staged).is_ok() {
        return Ok(staged);
    }
    for file in files::collect(copy_from).map_err(|source| InstallError::Files {
        name: skill_dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
        source,
    })? {
        let dest = staged.join(&file.rel);
        if let Some(parent) = dest.parent() {
            fs::create_dir_all(parent).map_err(io(parent))?;
        }
        fs::copy(&file.path, &dest).map_err(io(&dest))?;
    }
    Ok(staged)
}

#[cfg(unix)]
fn symlink(target: &str, link: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(target, link)
}

#[cfg(windows)]
fn symlink(target: &str, link: &Path) -> std::io::Result<()> {
    std::os::windows::fs::symlink_dir(target, link)
}

#[cfg(not(any(unix, windows)))]
fn symlink(_target: &str, _link: &Path) -> std::io::Result<()> {
    Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
}
