//! Reading a `SKILL.md` from disk: a prefix read of the head only (stopping at
//! the closing fence), then the frontmatter rules of [`crate::source::frontmatter`].
//! A disk skill's body is never read here: [`body`] reads it when it is first
//! served, and the skill keeps it (ARCHITECTURE.md, *Bodies*).

use std::cell::RefCell;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use skilldeck_walk::Found;

use crate::model::{HeldFrontmatter, Origin, Skill, SkillData, Skip, SkipReason, YamlProblem};
use crate::name::{NameKind, check_name_characters};
use crate::source::confine::{Confinement, Refusal};
use crate::source::frontmatter::{self, BOM, Fences, FrontmatterMode, HeadError};
use crate::source::installed::Locks;
use crate::text::utf8_prefix;

/// Default cap on the bytes of a frontmatter: 1 MiB.
pub const DEFAULT_MAX_FRONTMATTER: usize = 1 << 20;

/// The first read of a `SKILL.md`: most files fit whole.
const FIRST_READ: usize = 8 * 1024;

/// A read buffer larger than this is not kept for the next file.
const KEEP_BUFFER: usize = 64 * 1024;

thread_local! {
    /// Each thread reads into one buffer, zeroed once: a fresh one per file,
    /// freed while the skill's own strings are allocated, fragments the heap
    /// enough to cost a page fault or two per file.
    static BUFFER: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// What a `SKILL.md` candidate became.
pub(crate) type Outcome = Result<(Skill, Option<YamlProblem>), Skip>;

/// Reads and parses a `SKILL.md` the walk found (its directory still open).
/// The skill's `Origin::Fs { skill_md }` is empty: the caller moves the
/// walked path ([`skilldeck_walk::File::path`]) in.
/// Only the head is read: the body is read when first served (SPEC §2), as
/// keeping ten thousand bodies costs more than reading one again. A skill in
/// a project's `.agents/skills` is checked against `locks` on those bytes
/// ([`installed`](crate::source::installed)).
pub(crate) fn skill_md(found: &Found<'_>, max_frontmatter: usize, mode: FrontmatterMode, locks: &Locks) -> Outcome {
    let path = &found.file().path;
    let location = path.to_string_lossy().into_owned();
    let skip = |location, reason, detail: String| Err(Skip { location, reason, detail: Some(detail), position: None });
    if !found.file().regular {
        return skip(location, SkipReason::Unreadable, "not a regular file".into());
    }
    BUFFER.with_borrow_mut(|buf| {
        let head = match found.open().and_then(|file| read_head(file, max_frontmatter, buf)) {
            Ok(Some(filled)) => &buf[..filled],
            Ok(None) => return skip(location, SkipReason::TooLarge, too_large(max_frontmatter)),
            Err(error) => return skip(location, SkipReason::Unreadable, error.to_string()),
        };
        // `skill_md` is left empty for the caller to move the walked path in:
        // it owns the walk's `File`, and a copy here was one more allocation
        // per skill, made on this worker and freed on the caller's thread.
        let origin =
            Origin::Fs { skill_md: PathBuf::new(), dir: path.parent().map(Path::to_path_buf).unwrap_or_default() };
        let dir = path.parent().unwrap_or(path);
        let mut outcome = parse(head, false, location, origin, max_frontmatter, mode);
        if let Ok((skill, _)) = &mut outcome
            && let Some(integrity) = locks.check(dir, head)
        {
            skill.data_mut().integrity = Some(integrity);
        }
        if buf.len() > KEEP_BUFFER {
            *buf = Vec::new();
        }
        outcome
    })
}

fn too_large(max_frontmatter: usize) -> String {
    format!("the frontmatter is larger than {max_frontmatter} bytes")
}

/// Parses the text of a `SKILL.md` (all of it, or a head that holds the
/// whole frontmatter) into a skill whose name is the frontmatter's, keeping
/// the body when `keep_body` (else it is read from the file when first
/// served); [`Origin::Store`] skills are renamed by their caller.
pub(crate) fn parse(
    bytes: &[u8],
    keep_body: bool,
    location: String,
    origin: Origin,
    max_frontmatter: usize,
    mode: FrontmatterMode,
) -> Outcome {
    let skip =
        |reason, detail: String| Skip { location: location.clone(), reason, detail: Some(detail), position: None };
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
            let position = problem.position;
            return Err(Skip { position, ..skip(SkipReason::MalformedFrontmatter, problem.to_string()) });
        }
        Err(HeadError::MissingName(problem)) => {
            let position = problem.as_ref().and_then(|p| p.position);
            let detail = problem.map_or_else(|| "no `name` in the frontmatter".into(), |p| p.to_string());
            return Err(Skip { position, ..skip(SkipReason::MissingName, detail) });
        }
    };
    let name = head.name.unwrap_or_default();
    if let Err(error) = check_name_characters(&name, NameKind::Skill) {
        return Err(skip(SkipReason::InvalidName, error.to_string()));
    }
    let body = OnceLock::new();
    if keep_body {
        let _ = body.set(lossy(&text[body_start..]));
    }
    let skill = Skill::from(SkillData {
        name,
        description: head.description,
        // The text of a frontmatter read without the parser is smaller than
        // its mapping and gives it again cheaply (`HeldFrontmatter`).
        frontmatter: if head.simple {
            HeldFrontmatter::Text(yaml.into())
        } else {
            HeldFrontmatter::Map(head.frontmatter)
        },
        triggers: head.triggers,
        companions: head.companions,
        origin,
        location,
        body,
        record: None,
        confinement: None,
        integrity: None,
    });
    Ok((skill, head.recovered))
}

/// Reads the head of the file into `buf` (grown as needed) until the
/// frontmatter is closed, the file ends or shows it has no frontmatter:
/// `Some(bytes read)`, or `None` when the frontmatter is larger than
/// `max_frontmatter` bytes (closed or not). One `read` is enough for most
/// files: nothing past the closing fence is needed, not even the end of file.
fn read_head(mut file: File, max_frontmatter: usize, buf: &mut Vec<u8>) -> io::Result<Option<usize>> {
    if buf.len() < FIRST_READ {
        buf.resize(FIRST_READ, 0);
    }
    let mut filled = 0;
    loop {
        if filled == buf.len() {
            buf.resize(filled * 2, 0);
        }
        let got = match file.read(&mut buf[filled..]) {
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            result => result?,
        };
        filled += got;
        let ended = got == 0;
        let text = &buf[..filled];
        let text = text.strip_prefix(BOM).unwrap_or(text);
        let seen = whole_lines(text, ended);
        match frontmatter::fences(seen) {
            Fences::Closed { yaml_start, yaml_end, .. } if yaml_end - yaml_start > max_frontmatter => return Ok(None),
            Fences::Unclosed if seen.len() > max_frontmatter => return Ok(None),
            // A short read that may still become an opening fence, or a fence still open: read on.
            Fences::None if !ended && seen.is_empty() && may_open_a_fence(&buf[..filled]) => {}
            Fences::Unclosed if !ended => {}
            _ => return Ok(Some(filled)),
        }
    }
}

/// What of `text`, read so far, may be judged: all of it once the file
/// `ended`, else its whole lines (the last one may continue past this read).
fn whole_lines(text: &[u8], ended: bool) -> &[u8] {
    match ended {
        true => text,
        false => &text[..text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1)],
    }
}

/// Whether `head`, the first bytes of a file, could still grow into an
/// opening fence (with or without a byte-order mark).
fn may_open_a_fence(head: &[u8]) -> bool {
    let head = head.strip_prefix(BOM).unwrap_or(head);
    [&b"---\n"[..], b"---\r\n"].iter().any(|fence| fence.starts_with(head)) || BOM.starts_with(head)
}

/// The body of a `SKILL.md`, read whole if `confinement` lets it be served.
pub(crate) fn body(path: &Path, confinement: &Confinement) -> io::Result<String> {
    let bytes = confinement.read(path)?;
    let text = bytes.strip_prefix(BOM).unwrap_or(&bytes);
    match frontmatter::fences(text) {
        Fences::Closed { body_start, .. } => Ok(lossy(&text[body_start..])),
        _ => Err(no_frontmatter(path)),
    }
}

/// The start of a `SKILL.md`'s body, at most `max` bytes (cut at a
/// character boundary), if `confinement` lets it be served: the file is read
/// only as far as the frontmatter and those bytes reach.
pub(crate) fn body_prefix(path: &Path, confinement: &Confinement, max: usize) -> io::Result<String> {
    let opened = confinement.open(path)?;
    let mut bytes = Vec::new();
    let mut want = FIRST_READ.saturating_add(max);
    loop {
        let ended = opened.read_to(&mut bytes, want)?;
        let text = bytes.strip_prefix(BOM).unwrap_or(&bytes);
        let bom = bytes.len() - text.len();
        let seen = whole_lines(text, ended);
        match frontmatter::fences(seen) {
            Fences::Closed { body_start, .. } if ended || text.len() - body_start >= max => {
                return Ok(lossy(utf8_prefix(&text[body_start..], max)));
            }
            Fences::Closed { body_start, .. } => want = bom + body_start + max,
            // A fence still open, or no whole line yet: read on, up to the serving limit.
            Fences::Unclosed if !ended => want = grow(path, want)?,
            Fences::None if !ended && seen.is_empty() => want = grow(path, want)?,
            _ => return Err(no_frontmatter(path)),
        }
    }
}

/// Twice `want`, unless `want` is past what may be served already.
fn grow(path: &Path, want: usize) -> io::Result<usize> {
    Refusal::check_size(path.display(), want as u64)?;
    Ok(want.saturating_mul(2))
}

fn no_frontmatter(path: &Path) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("{} no longer has a frontmatter", path.display()))
}

/// `bytes` as text, invalid UTF-8 replaced. Checking with `from_utf8` first is
/// several times faster than `from_utf8_lossy` on the usual, valid, text.
fn lossy(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_owned(),
        Err(_) => String::from_utf8_lossy(bytes).into_owned(),
    }
}

#[cfg(all(test, target_os = "linux"))]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    /// The bytes this thread has read so far (`rchar`), from the kernel's own count.
    fn read_by_this_thread() -> u64 {
        let io = std::fs::read_to_string("/proc/thread-self/io").expect("/proc/thread-self/io");
        io.lines().find_map(|l| l.strip_prefix("rchar: ")).and_then(|n| n.parse().ok()).expect("rchar")
    }

    #[test]
    fn a_body_prefix_reads_only_the_start_of_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("SKILL.md");
        let text = "word ".repeat(200_000);
        std::fs::write(&path, format!("---\nname: long\ndescription: Long.\n---\n{text}")).unwrap();
        let confinement = Confinement::root(dir.path().to_owned(), dir.path().canonicalize().unwrap(), false);
        let before = read_by_this_thread();
        let start = body_prefix(&path, &confinement, 4_000).unwrap();
        let read = read_by_this_thread() - before;
        assert_eq!(start, text[..4_000]);
        // The first read (the frontmatter's usual size and the prefix), and the count's own
        // read of /proc; never the megabyte.
        assert!(read <= (FIRST_READ + 4_000 + 4_096) as u64, "{read} bytes read");
        assert_eq!(body(&path, &confinement).unwrap(), text);
    }

    #[test]
    fn a_body_prefix_reads_on_past_a_long_frontmatter_and_cuts_at_a_character() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("SKILL.md");
        let long = "x".repeat(3 * FIRST_READ);
        std::fs::write(&path, format!("\u{feff}---\nname: long\ndescription: {long}\n---\nééé")).unwrap();
        let confinement = Confinement::root(dir.path().to_owned(), dir.path().canonicalize().unwrap(), false);
        // Five bytes of "ééé" end inside the third é: the cut is at the second.
        assert_eq!(body_prefix(&path, &confinement, 5).unwrap(), "éé");
        assert_eq!(body_prefix(&path, &confinement, 100).unwrap(), "ééé");
        std::fs::write(&path, "no frontmatter").unwrap();
        assert!(body_prefix(&path, &confinement, 100).is_err());
        std::fs::write(&path, format!("---\nname: open\n{long}")).unwrap();
        assert!(body_prefix(&path, &confinement, 100).is_err());
        assert!(body_prefix(&path, &Confinement::NOWHERE, 100).is_err());
    }
}
