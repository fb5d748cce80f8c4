//! Which roots the catalog commands walk: the `--root`s given, each made
//! absolute against the working directory (and said so on stderr when it was
//! relative), or, with no source flag at all, the conventional places of the
//! working directory's project and of the user ([`ConventionalRoots`]). And
//! the one line that says a catalog has no skill, naming where it looked.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use skilldeck::{Catalog, ConventionalRoots};

/// Where this crate's own diagnostics go: one `skilldeck: …` line each,
/// through `crate::log` ([`LOG_TARGET`] at `info` by default).
pub(crate) const LOG_TARGET: &str = "skilldeck_cli";

/// The roots a command walks and where it looked for them.
#[derive(Debug)]
pub(crate) struct Roots {
    /// The roots to walk, absolute, in precedence order.
    pub(crate) roots: Vec<PathBuf>,
    /// Every place looked in, in order: the roots given, or every
    /// conventional place (most of which usually do not exist).
    pub(crate) looked_in: Vec<PathBuf>,
    /// No source was given, so the conventional places were taken; a
    /// server may then follow its client's project.
    pub(crate) conventional: bool,
}

impl Roots {
    /// The roots `given`, made absolute; or, when nothing at all was given
    /// (`other_sources` false too), the conventional places of the working
    /// directory and of `$HOME`. A root given must be a directory now unless
    /// it may `come_later` (a server watches for it); a conventional place
    /// that is not there is simply not walked.
    ///
    /// # Errors
    ///
    /// The working directory cannot be read, or a root given is no directory.
    pub(crate) fn resolve(given: &[PathBuf], other_sources: bool, come_later: bool) -> anyhow::Result<Roots> {
        if !given.is_empty() || other_sources {
            let roots = given.iter().map(|root| absolute(root)).collect::<anyhow::Result<Vec<_>>>()?;
            if !come_later {
                for (root, given) in roots.iter().zip(given) {
                    match std::fs::metadata(root) {
                        Ok(meta) if meta.is_dir() => {}
                        Ok(_) => bail!("--root {}: not a directory", given.display()),
                        Err(error) => bail!("--root {}: {}", given.display(), io_reason(&error)),
                    }
                }
            }
            return Ok(Roots { looked_in: roots.clone(), roots, conventional: false });
        }
        let cwd = std::env::current_dir().context("cannot read the working directory to find its skills")?;
        let found = ConventionalRoots::find(&[cwd], skilldeck::home_dir().as_deref());
        log_conventional(&found);
        Ok(Roots { roots: found.roots().to_vec(), looked_in: found.searched().to_vec(), conventional: true })
    }
}

/// What an I/O error says, without the `(os error N)` a person has no use for.
fn io_reason(error: &std::io::Error) -> String {
    match error.kind() {
        std::io::ErrorKind::NotFound => "no such directory".to_owned(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
        _ => error.to_string(),
    }
}

/// `root` made absolute against the working directory; a relative one is
/// logged as the path it became, since a host starts a server in a working
/// directory of its own choosing.
fn absolute(root: &Path) -> anyhow::Result<PathBuf> {
    if root.is_absolute() {
        return Ok(root.to_path_buf());
    }
    let absolute = std::path::absolute(root).with_context(|| format!("cannot resolve --root {}", root.display()))?;
    tracing::info!(target: LOG_TARGET, "--root {} resolved to {}", root.display(), absolute.display());
    Ok(absolute)
}

/// Says which conventional places are walked, warns of those that lead out
/// of their project, and (at `debug`) says which others are not walked.
pub(crate) fn log_conventional(found: &ConventionalRoots) {
    for outside in found.outside_project() {
        tracing::warn!(target: LOG_TARGET, "{outside}");
    }
    if !found.roots().is_empty() {
        tracing::info!(target: LOG_TARGET, "no --root given: skills from {}", joined(found.roots()));
    }
    let missing: Vec<&Path> = found.missing().collect();
    if !missing.is_empty() {
        tracing::debug!(target: LOG_TARGET, "not walked (no such directory, or one walked already): {}", joined(&missing));
    }
}

/// The warning of a catalog that exposes no skill: where it looked, and the
/// other sources it read.
pub(crate) fn warn_if_empty(catalog: &Catalog, looked_in: &[PathBuf], others: &[String]) {
    if catalog.skills().next().is_some() {
        return;
    }
    let places: Vec<String> = looked_in.iter().map(|p| p.display().to_string()).chain(others.iter().cloned()).collect();
    tracing::warn!(target: LOG_TARGET, "no skills found; looked in {}", places.join(", "));
}

fn joined<P: AsRef<Path>>(paths: &[P]) -> String {
    paths.iter().map(|p| p.as_ref().display().to_string()).collect::<Vec<_>>().join(", ")
}
