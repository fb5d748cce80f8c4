//! Reading a `SKILL.md` from disk: a prefix read of the head (the body comes
//! along when the file is small, and is read on first use when it is not), then
//! the frontmatter rules of [`crate::frontmatter`].

use std::cell::RefCell;
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;
use std::sync::OnceLock;

use skilldeck_walk::Found;

use crate::catalog::{Skip, SkipReason};
use crate::frontmatter::{self, BOM, Fences, FrontmatterMode, HeadError};
use crate::skill::{Origin, Skill};

/// The first read of a `SKILL.md`: most files fit whole.
const FIRST_READ: usize = 8 * 1024;

/// A read buffer larger than this is not kept for the next file.
const KEEP_BUFFER: usize = 64 * 1024;

thread_local! {
    /// Each thread reads into one buffer: a fresh one per file, freed while
    /// the skill's own strings are allocated, fragments the heap enough to
    /// cost a page fault or two per file.
    static BUFFER: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// What a `SKILL.md` candidate became.
pub(crate) type Outcome = Result<(Skill, Option<frontmatter::YamlProblem>), Skip>;

/// Reads and parses a `SKILL.md` the walk found (its directory still open).
pub(crate) fn skill_md(found: &Found<'_>, max_frontmatter: usize, mode: FrontmatterMode) -> Outcome {
    let path = &found.file().path;
    let location = path.to_string_lossy().into_owned();
    let skip = |reason, detail: String| Skip { location: location.clone(), reason, detail: Some(detail) };
    if !found.file().regular {
        return Err(skip(SkipReason::Unreadable, "not a regular file".into()));
    }
    BUFFER.with_borrow_mut(|bytes| {
        bytes.clear();
        let outcome = parse_skill_md(found, bytes, location, max_frontmatter, mode);
        if bytes.capacity() > KEEP_BUFFER {
            *bytes = Vec::new();
        }
        outcome
    })
}

/// [`skill_md`], reading into `bytes`.
fn parse_skill_md(
    found: &Found<'_>,
    bytes: &mut Vec<u8>,
    location: String,
    max_frontmatter: usize,
    mode: FrontmatterMode,
) -> Outcome {
    let path = &found.file().path;
    let skip = |reason, detail: String| Skip { location: location.clone(), reason, detail: Some(detail) };
    let complete = match found.open().and_then(|file| read_head(file, max_frontmatter, bytes)) {
        Ok(Some(complete)) => complete,
        Ok(None) => return Err(skip(SkipReason::TooLarge, too_large(max_frontmatter))),
        Err(error) => return Err(skip(SkipReason::Unreadable, error.to_string())),
    };
    let origin =
        Origin::Fs { skill_md: path.to_path_buf(), dir: path.parent().map(Path::to_path_buf).unwrap_or_default() };
    parse(bytes, complete, location, origin, max_frontmatter, mode)
}

fn too_large(max_frontmatter: usize) -> String {
    format!("the frontmatter is larger than {max_frontmatter} bytes")
}

/// Parses the text of a `SKILL.md` (all of it when `complete`, else a head
/// that holds the whole frontmatter) into a skill whose name is the
/// frontmatter's; [`Origin::Store`] skills are renamed by their caller.
pub(crate) fn parse(
    bytes: &[u8],
    complete: bool,
    location: String,
    origin: Origin,
    max_frontmatter: usize,
    mode: FrontmatterMode,
) -> Outcome {
    let skip = |reason, detail: String| Skip { location: location.clone(), reason, detail: Some(detail) };
    let text = bytes.strip_prefix(BOM).unwrap_or(bytes);
    let Fences::Closed { yaml_start, yaml_end, body_start } = frontmatter::fences(text) else {
        return Err(skip(SkipReason::MissingName, "no frontmatter".into()));
    };
    if yaml_end - yaml_start > max_frontmatter {
        return Err(skip(SkipReason::TooLarge, too_large(max_frontmatter)));
    }
    let Ok(yaml) = std::str::from_utf8(&text[yaml_start..yaml_end]) else {
        return Err(skip(SkipReason::Unreadable, "the frontmatter is not valid UTF-8".into()));
    };
    // The YAML starts on line 2, below the opening fence.
    let head = match frontmatter::parse(yaml, 2, mode) {
        Ok(head) => head,
        Err(HeadError::Malformed(problem)) => {
            return Err(skip(SkipReason::MalformedFrontmatter, problem.to_string()));
        }
        Err(HeadError::MissingName(problem)) => {
            let detail = problem.map_or_else(|| "no `name` in the frontmatter".into(), |p| p.to_string());
            return Err(skip(SkipReason::MissingName, detail));
        }
    };
    let body = OnceLock::new();
    if complete {
        let _ = body.set(lossy(&text[body_start..]));
    }
    let skill = Skill {
        name: head.name.unwrap_or_default(),
        description: head.description,
        frontmatter: head.frontmatter,
        triggers: head.triggers,
        companions: head.companions,
        origin,
        location,
        body,
        record: None,
    };
    Ok((skill, head.recovered))
}

/// Reads as much of the file into `bytes` as its frontmatter needs:
/// `Some(whole file read)`, or `None` when the frontmatter is larger than
/// `max_frontmatter` bytes (closed or not).
fn read_head(mut file: File, max_frontmatter: usize, bytes: &mut Vec<u8>) -> io::Result<Option<bool>> {
    bytes.reserve(FIRST_READ);
    let mut want = FIRST_READ;
    loop {
        let got = (&mut file).take(want as u64).read_to_end(bytes)?;
        let complete = got < want;
        let text = bytes.strip_prefix(BOM).unwrap_or(bytes);
        // Judge only whole lines: the last one may continue past this read.
        let seen = if complete { text } else { &text[..text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1)] };
        match frontmatter::fences(seen) {
            Fences::Closed { yaml_start, yaml_end, .. } if yaml_end - yaml_start > max_frontmatter => return Ok(None),
            Fences::Unclosed if seen.len() > max_frontmatter => return Ok(None),
            Fences::Unclosed if !complete => want = bytes.len(),
            _ => return Ok(Some(complete)),
        }
    }
}

/// The body of a `SKILL.md`, read whole.
pub(crate) fn body(path: &Path) -> io::Result<String> {
    let bytes = std::fs::read(path)?;
    let text = bytes.strip_prefix(BOM).unwrap_or(&bytes);
    match frontmatter::fences(text) {
        Fences::Closed { body_start, .. } => Ok(lossy(&text[body_start..])),
        _ => Err(io::Error::new(io::ErrorKind::InvalidData, format!("{} no longer has a frontmatter", path.display()))),
    }
}

/// `bytes` as text, invalid UTF-8 replaced. Checking with `from_utf8` first is
/// several times faster than `from_utf8_lossy` on the usual, valid, text.
fn lossy(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_owned(),
        Err(_) => String::from_utf8_lossy(bytes).into_owned(),
    }
}
