//! Names are names: the one rule for the name a skill is stored under and
//! for an agent's id ([`check_name`]), and the part of it every skill's name
//! passes before it is served ([`check_name_characters`]).
//!
//! The Agent Skills rule (at most 64 characters, lowercase letters, digits
//! and hyphens) is stricter than what real registries hold (`PDF
//! Processing`), so skilldeck keeps a documented superset of it: any text
//! but the characters that change how a line reads or splits it, with no
//! whitespace at either end, not `.` or `..`, no `/` (a name is one path
//! segment of the Studio's URLs, Insika's rule), and at most
//! [`NAME_MAX_BYTES`].

use std::fmt;

use unicode_general_category::{GeneralCategory, get_general_category};

/// The longest name, in bytes of UTF-8: 255, the longest file name Linux
/// file systems (ext4, btrfs, XFS) allow. A skill is a directory named after
/// it (the Agent Skills standard says the two must match), so no longer name
/// can be a skill's directory there; any name of the standard's 64
/// characters fits unless it is of letters beyond the Basic Multilingual
/// Plane (four bytes each), and then no directory could hold it either.
pub const NAME_MAX_BYTES: usize = 255;

/// What a name names: it decides the words of a [`NameError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NameKind {
    /// A skill's name: a store key, a catalog entry.
    Skill,
    /// An agent's id: a store scope, a profile.
    Agent,
}

impl NameKind {
    fn noun(self) -> &'static str {
        match self {
            NameKind::Skill => "a skill name",
            NameKind::Agent => "an agent id",
        }
    }
}

/// What is wrong with a name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum NameProblem {
    /// Empty, or whitespace only.
    Blank,
    /// Longer than [`NAME_MAX_BYTES`].
    TooLong {
        /// Its length in bytes of UTF-8.
        bytes: usize,
    },
    /// It holds a control character (`Cc`: NUL, line breaks, escapes), a
    /// format character (`Cf`: bidi controls such as U+202E, zero-width
    /// characters, the byte-order mark) or a line or paragraph separator
    /// (U+2028, U+2029).
    Character(char),
    /// It starts or ends with whitespace.
    Whitespace,
    /// It is `.` or `..`.
    Dots,
    /// It holds a `/`.
    Slash,
}

/// A name [`check_name`] or [`check_name_characters`] refused. The text of a
/// blank one is Insika's: `name is required`, `id is required`.
///
/// ```
/// use skilldeck::{NameKind, NameProblem, check_name};
///
/// let error = check_name("a\u{202E}b", NameKind::Skill).unwrap_err();
/// assert_eq!(error.problem, NameProblem::Character('\u{202E}'));
/// assert_eq!(error.to_string(), "a skill name cannot contain U+202E, a format character");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub struct NameError {
    /// What the name names.
    pub kind: NameKind,
    /// What is wrong with it.
    pub problem: NameProblem,
}

impl fmt::Display for NameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let noun = self.kind.noun();
        match self.problem {
            NameProblem::Blank if self.kind == NameKind::Skill => f.write_str("name is required"),
            NameProblem::Blank => f.write_str("id is required"),
            NameProblem::TooLong { bytes } => {
                write!(f, "{noun} is at most {NAME_MAX_BYTES} bytes long; this one is {bytes}")
            }
            NameProblem::Character(c) => write!(f, "{noun} cannot contain U+{:04X}, {}", u32::from(c), class(c)),
            NameProblem::Whitespace => write!(f, "{noun} cannot start or end with whitespace"),
            NameProblem::Dots => write!(f, "{noun} cannot be '.' or '..'"),
            NameProblem::Slash => write!(f, "{noun} cannot contain '/'"),
        }
    }
}

/// Checks a name about to be stored: a skill name a store record is written
/// under, or an agent id (a store scope, a profile). Every store backend
/// checks it on every write, restore and profile update; the Studio, the CLI
/// and authoring check it before they write.
///
/// In order: not blank, at most [`NAME_MAX_BYTES`], no control, format or
/// separator character ([`check_name_characters`]), no whitespace at either
/// end, not `.` or `..`, no `/`.
///
/// # Errors
///
/// A [`NameError`] naming the first problem.
///
/// # Example
///
/// ```
/// use skilldeck::{NameKind, check_name};
///
/// assert!(check_name("pdf-processing", NameKind::Skill).is_ok());
/// assert!(check_name("PDF Processing", NameKind::Skill).is_ok());
/// assert!(check_name("cardápio", NameKind::Skill).is_ok());
/// assert_eq!(check_name(" ", NameKind::Skill).unwrap_err().to_string(), "name is required");
/// assert_eq!(check_name("", NameKind::Agent).unwrap_err().to_string(), "id is required");
/// assert_eq!(check_name("a\nb", NameKind::Skill).unwrap_err().to_string(), "a skill name cannot contain U+000A, a control character");
/// assert_eq!(check_name(" loja", NameKind::Agent).unwrap_err().to_string(), "an agent id cannot start or end with whitespace");
/// assert_eq!(check_name("..", NameKind::Agent).unwrap_err().to_string(), "an agent id cannot be '.' or '..'");
/// assert_eq!(check_name("a/b", NameKind::Skill).unwrap_err().to_string(), "a skill name cannot contain '/'");
/// let long = "x".repeat(5000);
/// assert_eq!(check_name(&long, NameKind::Skill).unwrap_err().to_string(), "a skill name is at most 255 bytes long; this one is 5000");
/// ```
pub fn check_name(name: &str, kind: NameKind) -> Result<(), NameError> {
    let refuse = |problem| Err(NameError { kind, problem });
    if name.trim().is_empty() {
        return refuse(NameProblem::Blank);
    }
    if name.len() > NAME_MAX_BYTES {
        return refuse(NameProblem::TooLong { bytes: name.len() });
    }
    check_name_characters(name, kind)?;
    if name.starts_with(char::is_whitespace) || name.ends_with(char::is_whitespace) {
        return refuse(NameProblem::Whitespace);
    }
    if name == "." || name == ".." {
        return refuse(NameProblem::Dots);
    }
    if name.contains('/') {
        return refuse(NameProblem::Slash);
    }
    Ok(())
}

/// Checks that a name holds no control character (`Cc`), no format
/// character (`Cf`: bidi controls, zero-width characters, the byte-order
/// mark) and no line or paragraph separator: the part of [`check_name`]
/// every skill's name passes before it is served, whatever its source. A
/// disk, data or store skill whose name fails it is an `invalid-name`
/// [`Skip`](crate::Skip): a newline in a name would split the line that
/// lists it, a U+202E would reorder what a reader sees. Spaces and capitals
/// pass, as toolnexus reads them.
///
/// # Errors
///
/// A [`NameError`] ([`NameProblem::Character`]) naming the first such
/// character.
///
/// ```
/// use skilldeck::{NameKind, check_name_characters};
///
/// assert!(check_name_characters("PDF Processing", NameKind::Skill).is_ok());
/// assert!(check_name_characters("\u{FEFF}bom", NameKind::Skill).is_err());
/// assert!(check_name_characters("zero\u{200B}width", NameKind::Skill).is_err());
/// ```
pub fn check_name_characters(name: &str, kind: NameKind) -> Result<(), NameError> {
    // Most names are printable ASCII: one pass over the bytes.
    if name.bytes().all(|b| matches!(b, b' '..=b'~')) {
        return Ok(());
    }
    match name.chars().find(|&c| refused(c)) {
        Some(c) => Err(NameError { kind, problem: NameProblem::Character(c) }),
        None => Ok(()),
    }
}

fn refused(c: char) -> bool {
    matches!(
        get_general_category(c),
        GeneralCategory::Control
            | GeneralCategory::Format
            | GeneralCategory::LineSeparator
            | GeneralCategory::ParagraphSeparator
    )
}

/// What a refused character is, in a few words.
fn class(c: char) -> &'static str {
    match get_general_category(c) {
        GeneralCategory::Control => "a control character",
        GeneralCategory::Format => "a format character",
        GeneralCategory::LineSeparator => "a line separator",
        _ => "a paragraph separator",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_the_standard_allows_passes() {
        // Its longest: 64 characters of the widest letters UTF-8 has.
        let widest = "\u{20000}".repeat(63) + "a";
        for name in ["pdf-processing", "a", "技能", "data-2", &"a".repeat(64), &widest] {
            assert_eq!(check_name(name, NameKind::Skill), Ok(()), "{name}");
        }
        assert!(widest.len() <= NAME_MAX_BYTES);
    }

    #[test]
    fn what_registries_hold_passes() {
        for name in ["PDF Processing", "Mon Skill", "skill:plugin", "a.b", "...", "émoji 😀", "a\u{00A0}b", "a\\b"] {
            assert_eq!(check_name(name, NameKind::Skill), Ok(()), "{name}");
        }
    }

    #[test]
    fn control_format_and_separator_characters_are_refused() {
        let refused = [
            ('\0', "a control character"),
            ('\n', "a control character"),
            ('\r', "a control character"),
            ('\t', "a control character"),
            ('\u{1b}', "a control character"),
            ('\u{7f}', "a control character"),
            ('\u{85}', "a control character"),
            ('\u{202E}', "a format character"),
            ('\u{2066}', "a format character"),
            ('\u{200E}', "a format character"),
            ('\u{200B}', "a format character"),
            ('\u{200D}', "a format character"),
            ('\u{FEFF}', "a format character"),
            ('\u{2028}', "a line separator"),
            ('\u{2029}', "a paragraph separator"),
        ];
        for (c, what) in refused {
            let name = format!("a{c}b");
            let error = check_name(&name, NameKind::Agent).unwrap_err();
            assert_eq!(error.problem, NameProblem::Character(c), "{name:?}");
            assert_eq!(error.to_string(), format!("an agent id cannot contain U+{:04X}, {what}", u32::from(c)));
            assert_eq!(check_name_characters(&name, NameKind::Skill).unwrap_err().problem, error.problem);
        }
    }

    #[test]
    fn the_bound_is_in_bytes() {
        assert_eq!(check_name(&"a".repeat(NAME_MAX_BYTES), NameKind::Skill), Ok(()));
        let over = "é".repeat(128);
        assert_eq!(check_name(&over, NameKind::Skill).unwrap_err().problem, NameProblem::TooLong { bytes: 256 });
    }

    #[test]
    fn whitespace_at_the_ends_is_refused_inside_kept() {
        for name in [" a", "a ", "a\u{3000}", "\u{A0}a"] {
            assert_eq!(check_name(name, NameKind::Skill).unwrap_err().problem, NameProblem::Whitespace, "{name:?}");
        }
        assert_eq!(check_name("a b", NameKind::Skill), Ok(()));
        for blank in ["", " ", "\u{3000}"] {
            assert_eq!(check_name(blank, NameKind::Skill).unwrap_err().problem, NameProblem::Blank, "{blank:?}");
        }
    }
}
