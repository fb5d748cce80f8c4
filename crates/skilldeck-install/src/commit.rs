//! How a command changes a project so that being killed at any moment
//! (`kill -9`) leaves the old skills and the old lock or the new ones,
//! never a mix.
//!
//! A command builds everything in a staging directory inside the project's
//! `.agents` (the file system of `.agents/skills`, so that a rename moves
//! it): the new skill directories and the new lock's text. Then it writes a
//! plan into the stage, atomically (a temporary file renamed): which
//! directories of `.agents/skills` go, which staged ones take their place,
//! and the lock. From that rename on, the change is decided: the renames
//! follow, the lock last, then the stage is removed. A command killed before
//! the plan changed nothing in the project, and its stage is removed by the
//! next command; one killed after it is finished by the next command
//! ([`recover`]), which every command that reads or changes the project
//! runs first, holding the project's lock. Every step of finishing is a
//! rename that can be told done or not from what is there, so a kill
//! while finishing is finished again the same way.
//!
//! Before the plan is written, the stage's file system is synced (`syncfs`,
//! on Linux), so that a power loss after the plan cannot leave renamed
//! skills whose files were never written; the plan and the lock are synced
//! themselves. (Elsewhere only a kill is guarded against: the staged files
//! are not synced one by one.)

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::git;
use crate::install::InstallError;
use crate::lock::{LOCK_FILE, Lock};

/// The prefix of a staging directory's name in `.agents`.
const STAGE_PREFIX: &str = ".skilldeck-stage-";

/// The plan's file name in a stage.
const PLAN: &str = "plan.json";

/// The new lock's file name in a stage.
const NEW_LOCK: &str = "lock.json";

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> InstallError + '_ {
    move |source| InstallError::Io { path: path.to_path_buf(), source }
}

/// A staging directory, removed when dropped unless a plan in it is
/// still to be carried out.
pub(crate) struct Stage {
    pub(crate) dir: PathBuf,
    keep: bool,
}

impl Stage {
    /// A new stage in `parent` (the project's `.agents`, or a temporary directory).
    pub(crate) fn new(parent: &Path) -> Result<Stage, InstallError> {
        let dir = parent.join(format!("{STAGE_PREFIX}{}-{}", std::process::id(), git::unique()));
        fs::create_dir_all(&dir).map_err(io(&dir))?;
        Ok(Stage { dir, keep: false })
    }
}

impl Drop for Stage {
    fn drop(&mut self) {
        if !self.keep {
            let _ = fs::remove_dir_all(&self.dir);
        }
    }
}

/// One directory of `.agents/skills` a plan changes.
pub(crate) struct Move {
    /// The directory in `.agents/skills`, or a host's link to one (whatever
    /// is there goes).
    pub(crate) target: PathBuf,
    /// The staged directory that takes its place; `None`: it is removed.
    pub(crate) staged: Option<PathBuf>,
}

/// Carries out `moves` and, when given, writes `lock` to `lock_path`, as the
/// module says: planned first, so that a kill at any moment is finished by
/// [`recover`]. An error while carrying it out leaves the plan for the next
/// command to finish.
pub(crate) fn apply(stage: &mut Stage, moves: &[Move], lock: Option<(&Lock, &Path)>) -> Result<(), InstallError> {
    let relative = |path: &Path| path.strip_prefix(&stage.dir).ok().map(|p| p.to_string_lossy().into_owned());
    let mut planned = Vec::new();
    for (i, m) in moves.iter().enumerate() {
        let staged = match &m.staged {
            Some(path) => Some(relative(path).ok_or_else(|| outside(path))?),
            None => None,
        };
        planned.push(json!({"target": m.target, "staged": staged, "old": format!("old-{i}")}));
    }
    if let Some((lock, _)) = lock {
        write_synced(&stage.dir.join(NEW_LOCK), lock.to_json().as_bytes())?;
    }
    sync_file_system(&stage.dir)?;
    let plan = json!({"moves": planned, "lock": lock.map(|(_, path)| path)});
    let plan_path = stage.dir.join(PLAN);
    let temp = stage.dir.join(format!("{PLAN}.tmp"));
    write_synced(&temp, plan.to_string().as_bytes())?;
    // The rename decides the change: from here on the stage is the next command's to finish.
    stage.keep = true;
    fs::rename(&temp, &plan_path).map_err(io(&plan_path))?;
    finish(&stage.dir, &plan)?;
    stage.keep = false;
    Ok(())
}

fn outside(path: &Path) -> InstallError {
    let source = std::io::Error::other("a staged directory outside the stage");
    InstallError::Io { path: path.to_path_buf(), source }
}

/// Whether a command that changed the project of `agents` left a stage
/// behind (it was killed, or failed while finishing).
pub(crate) fn interrupted(agents: &Path) -> bool {
    fs::read_dir(agents)
        .is_ok_and(|entries| entries.flatten().any(|e| e.file_name().to_string_lossy().starts_with(STAGE_PREFIX)))
}

/// Finishes or discards what commands killed in the project of `agents`
/// left: every stage with a plan is carried out, every other stage (a
/// command killed before its plan, which changed nothing) removed, and so
/// are the lock's temporary files beside `lock_path`. The caller holds the
/// project's lock.
pub(crate) fn recover(agents: &Path, lock_path: &Path) -> Result<(), InstallError> {
    let entries = match fs::read_dir(agents) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(source) => return Err(InstallError::Io { path: agents.to_path_buf(), source }),
    };
    let mut stages: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(STAGE_PREFIX))
        .map(|e| e.path())
        .collect();
    stages.sort();
    for stage in stages {
        let plan_path = stage.join(PLAN);
        match fs::read(&plan_path) {
            Ok(bytes) => {
                let plan: Value = serde_json::from_slice(&bytes).map_err(|e| InstallError::Io {
                    path: plan_path.clone(),
                    source: std::io::Error::other(e.to_string()),
                })?;
                finish(&stage, &plan)?;
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => return Err(InstallError::Io { path: plan_path, source }),
        }
        fs::remove_dir_all(&stage).map_err(io(&stage))?;
    }
    if let Some(dir) = lock_path.parent()
        && let Ok(entries) = fs::read_dir(dir)
    {
        let lock_name = lock_path.file_name().map_or(LOCK_FILE.into(), |n| n.to_string_lossy());
        let temp_prefix = format!(".{lock_name}.");
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with(&temp_prefix) && name.ends_with(".tmp") {
                let _ = fs::remove_file(entry.path());
            }
        }
    }
    Ok(())
}

/// Carries out the plan of `stage`, each step skipped when what is there
/// shows it done: a target moves to `old-N` in the stage while its staged
/// replacement is still staged, the staged one takes its place, and the new
/// lock is renamed over the old last.
fn finish(stage: &Path, plan: &Value) -> Result<(), InstallError> {
    let bad = |what: &str| InstallError::Io {
        path: stage.join(PLAN),
        source: std::io::Error::other(format!("not a plan: {what}")),
    };
    let moves = plan["moves"].as_array().ok_or_else(|| bad("no moves"))?;
    for m in moves {
        let target = PathBuf::from(m["target"].as_str().ok_or_else(|| bad("a move without a target"))?);
        let old = stage.join(m["old"].as_str().ok_or_else(|| bad("a move without old"))?);
        let staged = m["staged"].as_str().map(|rel| stage.join(rel));
        // Still to do: the staged copy is in the stage, or (a removal) the target is there.
        // (A staged link is looked at itself: its target is relative to where it goes.)
        let pending = match &staged {
            Some(staged) => fs::symlink_metadata(staged).is_ok(),
            None => fs::symlink_metadata(&target).is_ok(),
        };
        if !pending {
            continue;
        }
        if fs::symlink_metadata(&target).is_ok() && fs::symlink_metadata(&old).is_err() {
            fs::rename(&target, &old).map_err(io(&target))?;
        }
        if let Some(staged) = staged {
            if let Some(parent) = target.parent() {
                fs::create_dir_all(parent).map_err(io(parent))?;
            }
            fs::rename(&staged, &target).map_err(io(&target))?;
        }
    }
    let new_lock = stage.join(NEW_LOCK);
    if let Some(lock_path) = plan["lock"].as_str()
        && new_lock.exists()
    {
        place_lock(&new_lock, Path::new(lock_path))?;
    }
    Ok(())
}

/// Renames the staged lock over `lock_path`, making its directory first.
/// The global lock can be on another file system than the stage
/// (`$XDG_STATE_HOME`): there it is copied beside `lock_path`, synced, and
/// renamed from there, still atomic for a reader of the lock.
fn place_lock(new_lock: &Path, lock_path: &Path) -> Result<(), InstallError> {
    if let Some(parent) = lock_path.parent() {
        fs::create_dir_all(parent).map_err(io(parent))?;
    }
    match fs::rename(new_lock, lock_path) {
        Err(e) if e.kind() == std::io::ErrorKind::CrossesDevices => {
            let name = lock_path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let beside = lock_path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
            write_synced(&beside, &fs::read(new_lock).map_err(io(new_lock))?)?;
            fs::rename(&beside, lock_path).map_err(io(lock_path))?;
            fs::remove_file(new_lock).map_err(io(new_lock))
        }
        renamed => renamed.map_err(io(lock_path)),
    }
}

/// Syncs the file system holding `dir` to disk: every staged file.
#[cfg(target_os = "linux")]
fn sync_file_system(dir: &Path) -> Result<(), InstallError> {
    let opened = fs::File::open(dir).map_err(io(dir))?;
    rustix::fs::syncfs(&opened).map_err(|errno| InstallError::Io { path: dir.to_path_buf(), source: errno.into() })
}

#[cfg(not(target_os = "linux"))]
fn sync_file_system(_dir: &Path) -> Result<(), InstallError> {
    Ok(())
}

/// Writes `bytes` to `path` and syncs it to disk.
fn write_synced(path: &Path, bytes: &[u8]) -> Result<(), InstallError> {
    let mut file = fs::File::create(path).map_err(io(path))?;
    file.write_all(bytes).map_err(io(path))?;
    file.sync_all().map_err(io(path))
}
