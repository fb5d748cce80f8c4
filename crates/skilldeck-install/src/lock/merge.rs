//! A lock with git's conflict markers in it: two branches that each added a
//! skill leave `<<<<<<<`, `=======` and `>>>>>>>` lines (and, in diff3
//! style, a `|||||||` base) around the entries they changed. Each side is
//! the file as its branch had it, so each is read as a lock, and the two are
//! merged where they do not disagree.

use std::path::Path;

use super::{Lock, LockError};

/// Which part of a conflict a line is in.
#[derive(Clone, Copy, PartialEq)]
enum Part {
    Both,
    Ours,
    Base,
    Theirs,
}

/// The two sides of `text`, when it holds conflict markers.
pub(super) fn sides(text: &str) -> Option<(String, String)> {
    let marker =
        |line: &str, mark: &str| line.strip_prefix(mark).is_some_and(|rest| rest.is_empty() || rest.starts_with(' '));
    let (mut ours, mut theirs) = (String::new(), String::new());
    let mut part = Part::Both;
    let mut conflicted = false;
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        part = match part {
            Part::Both if marker(bare, "<<<<<<<") => Part::Ours,
            Part::Ours if marker(bare, "|||||||") => Part::Base,
            Part::Ours | Part::Base if bare == "=======" => Part::Theirs,
            Part::Theirs if marker(bare, ">>>>>>>") => {
                conflicted = true;
                Part::Both
            }
            part => {
                if matches!(part, Part::Both | Part::Ours) {
                    ours.push_str(line);
                }
                if matches!(part, Part::Both | Part::Theirs) {
                    theirs.push_str(line);
                }
                continue;
            }
        };
    }
    (conflicted && part == Part::Both).then_some((ours, theirs))
}

/// The lock both sides make: every skill either has, and one each has
/// alike; a skill (or another key) the two give differently is an error
/// naming it.
pub(super) fn merged(ours: Lock, theirs: Lock, path: &Path) -> Result<Lock, LockError> {
    let conflict = |what: String| LockError::Conflict { path: path.to_path_buf(), what };
    if ours.version != theirs.version {
        return Err(conflict(format!("`version` ({} and {})", ours.version, theirs.version)));
    }
    let mut lock = ours;
    for (name, entry) in theirs.skills {
        match lock.skills.get(&name) {
            Some(mine) if *mine != entry => return Err(conflict(format!("skill {name:?}"))),
            Some(_) => {}
            None => {
                lock.skills.insert(name, entry);
            }
        }
    }
    for (key, value) in theirs.extra {
        match lock.extra.get(&key) {
            Some(mine) if *mine != value => return Err(conflict(format!("`{key}`"))),
            Some(_) => {}
            None => {
                lock.extra.insert(key, value);
            }
        }
    }
    Ok(lock)
}
