//! The per-skill allow marker: a line holding `skilldeck-audit: allow RULE
//! reason`, in any comment style (`#`, `//`, `<!-- -->`, `/* */`, `--`).

use super::view::Lines;

/// The text that starts a marker.
pub(super) const MARKER: &str = "skilldeck-audit:";

/// One marker as written.
pub(super) struct Marker {
    /// The rule it names (maybe none of the table's).
    pub(super) rule: String,
    /// Its reason: the rest of the line, comment closers trimmed.
    pub(super) reason: String,
    /// The byte where the marker starts.
    pub(super) offset: usize,
}

/// Every marker of a text.
pub(super) fn markers(text: &str, lines: &Lines<'_>) -> Vec<Marker> {
    if !text.contains(MARKER) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (start, line) in lines.iter() {
        let Some(at) = line.find(MARKER) else { continue };
        let rest = line[at + MARKER.len()..].trim_start();
        let Some(rest) = rest.strip_prefix("allow") else { continue };
        if !rest.starts_with(char::is_whitespace) {
            continue;
        }
        let rest = rest.trim();
        let rest = ["-->", "*/"].iter().fold(rest, |r, closer| r.strip_suffix(closer).unwrap_or(r)).trim();
        let (rule, reason) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        if rule.is_empty() {
            continue;
        }
        out.push(Marker { rule: rule.to_owned(), reason: reason.trim().to_owned(), offset: start + at });
    }
    out
}
