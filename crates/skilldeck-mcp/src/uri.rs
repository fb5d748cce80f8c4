//! `skill://` URIs: how a skill and each of its files are named on the wire,
//! and how a URI a client sends is read back (or refused) before any lookup.
//!
//! A skill named `n` is `skill://n`, its `SKILL.md` is `skill://n/SKILL.md`
//! and a file at relative path `a/b.txt` is `skill://n/a/b.txt`. Each segment
//! is percent-encoded, every byte outside RFC 3986's unreserved set
//! (`A-Z a-z 0-9 - . _ ~`) escaped, so a name or a file name (even one that
//! is not UTF-8) maps to exactly one URI and back.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, percent_encode};

/// Everything but RFC 3986's unreserved characters is escaped.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

/// The scheme prefix of every URI this server serves.
pub(crate) const SCHEME: &str = "skill://";

/// `skill://<name>`: the skill's root (no trailing slash).
pub(crate) fn skill_base(name: &str) -> String {
    format!("{SCHEME}{}", percent_encode(name.as_bytes(), SEGMENT))
}

/// `skill://<name>/<rel>` for a relative path given as raw bytes with `/`
/// separators (the walker's [`rel_bytes`](skilldeck_walk::File::rel_bytes)).
pub(crate) fn file_uri(base: &str, rel: &[u8]) -> String {
    let mut uri = String::with_capacity(base.len() + rel.len() + 8);
    uri.push_str(base);
    for segment in rel.split(|&b| b == b'/' || (cfg!(windows) && b == b'\\')) {
        uri.push('/');
        uri.extend(percent_encode(segment, SEGMENT));
    }
    uri
}

/// Why a resource URI names nothing this server could serve.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum UriError {
    /// Not `skill://<name>/<path>` at all (another scheme, no path, a query
    /// or fragment, a bad escape, a name no skill can have).
    NotSkill,
    /// A path that would leave the skill's directory or cannot name a file
    /// in it: an empty, `.` or `..` segment (encoded or not), a NUL, a
    /// backslash on Windows, an absolute path.
    OutsideSkill,
}

/// Reads a resource URI into its canonical form (every segment decoded,
/// checked, and encoded again as [`file_uri`] would), so that a client's
/// spelling of a served file (`%2F` for `/`, `%41` for `A`) finds it, and a
/// path that is not inside a skill is refused before any lookup.
pub(crate) fn canonical(uri: &str) -> Result<String, UriError> {
    let rest = uri.strip_prefix(SCHEME).ok_or(UriError::NotSkill)?;
    if rest.contains(['?', '#']) {
        return Err(UriError::NotSkill);
    }
    let (name, path) = rest.split_once('/').ok_or(UriError::NotSkill)?;
    // The name is only ever a lookup key among the skills served, never a
    // path: any name a skill can have (`a/b`, `..`) reads back as itself.
    // One no skill can have (a NUL, a line break, a bidi override: the
    // engine's rule) names nothing, before any lookup.
    let name = decode(name)?;
    let name = std::str::from_utf8(&name).map_err(|_| UriError::NotSkill)?;
    if name.is_empty() || skilldeck::check_name_characters(name, skilldeck::NameKind::Skill).is_err() {
        return Err(UriError::NotSkill);
    }
    let path = decode(path)?;
    if path.is_empty() {
        return Err(UriError::NotSkill);
    }
    let mut segments = Vec::new();
    for segment in path.split(|&b| b == b'/') {
        // A backslash separates paths on Windows only; elsewhere it is a
        // character of a file name like any other.
        let separator = cfg!(windows) && segment.contains(&b'\\');
        if segment.is_empty() || segment == b"." || segment == b".." || separator || segment.contains(&0) {
            return Err(UriError::OutsideSkill);
        }
        segments.push(segment);
    }
    Ok(file_uri(&skill_base(name), &segments.join(&b'/')))
}

/// Percent-decodes, refusing a `%` that does not start a two-digit escape.
fn decode(text: &str) -> Result<Vec<u8>, UriError> {
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'%' && !(bytes.get(i + 1..i + 3).is_some_and(|hex| hex.iter().all(u8::is_ascii_hexdigit))) {
            return Err(UriError::NotSkill);
        }
    }
    Ok(percent_decode_str(text).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_paths_are_encoded_segment_by_segment() {
        let base = skill_base("pdf-processing");
        assert_eq!(base, "skill://pdf-processing");
        assert_eq!(file_uri(&base, b"SKILL.md"), "skill://pdf-processing/SKILL.md");
        assert_eq!(file_uri(&base, b"scripts/run.sh"), "skill://pdf-processing/scripts/run.sh");
        assert_eq!(file_uri(&base, "a b/café#?.md".as_bytes()), "skill://pdf-processing/a%20b/caf%C3%A9%23%3F.md");
        assert_eq!(file_uri(&base, b"latin\xe9.txt"), "skill://pdf-processing/latin%E9.txt");
        assert_eq!(skill_base("Mon Skill"), "skill://Mon%20Skill");
    }

    #[test]
    fn canonical_form_is_the_served_uri() {
        for uri in ["skill://alpha/SKILL.md", "skill://alpha/references/guide.md", "skill://a%20b/x%20y.txt"] {
            assert_eq!(canonical(uri).as_deref(), Ok(uri));
        }
        // Other spellings of the same file find it.
        assert_eq!(
            canonical("skill://alpha/references%2Fguide.md").as_deref(),
            Ok("skill://alpha/references/guide.md")
        );
        assert_eq!(canonical("skill://%61lpha/%53KILL.md").as_deref(), Ok("skill://alpha/SKILL.md"));
        // A name is a lookup key, not a path: odd names read back as the URIs they are listed under.
        for (uri, name) in
            [("skill://a%2Fb/SKILL.md", "a/b"), ("skill://../SKILL.md", ".."), ("skill://a%5Cb/SKILL.md", "a\\b")]
        {
            assert_eq!(canonical(uri), Ok(file_uri(&skill_base(name), b"SKILL.md")), "{uri}");
        }
    }

    #[test]
    fn traversal_and_odd_paths_are_refused() {
        let outside = [
            "skill://alpha/../beta/SKILL.md",
            "skill://alpha/..",
            "skill://alpha/a/../../b",
            "skill://alpha/%2e%2e%2fetc%2fpasswd",
            "skill://alpha/%2E%2E/secret.txt",
            "skill://alpha/./SKILL.md",
            "skill://alpha//etc/passwd",
            "skill://alpha/%2Fetc%2Fpasswd",
            "skill://alpha/ok%00.md",
            "skill://alpha/ok\0.md",
            "skill://alpha/dir/",
        ];
        for uri in outside {
            assert_eq!(canonical(uri), Err(UriError::OutsideSkill), "{uri}");
        }
        // A backslash separates on Windows only; elsewhere `a\b` is one file
        // name, and `..\..\x` one segment that can only name a file inside.
        for (uri, unix) in [
            ("skill://alpha/..%5C..%5Cwindows%5Csystem32", "skill://alpha/..%5C..%5Cwindows%5Csystem32"),
            ("skill://alpha/a\\b", "skill://alpha/a%5Cb"),
        ] {
            let expected = if cfg!(windows) { Err(UriError::OutsideSkill) } else { Ok(unix.to_owned()) };
            assert_eq!(canonical(uri), expected, "{uri}");
        }
        let not_skill = [
            "file:///etc/passwd",
            "/etc/passwd",
            "skill://alpha",
            "skill://alpha/",
            "skill:///SKILL.md",
            "skill://alpha/SKILL.md?x=1",
            "skill://alpha/SKILL.md#top",
            "skill://alpha/%zz",
            "skill://alpha/%4",
            "skill://%00/SKILL.md",
            "skill://a%0Ab/SKILL.md",
            "skill://%E2%80%AEevil/SKILL.md",
            "skill://%EF%BB%BFbom/SKILL.md",
            "skill://%FF/SKILL.md",
            "",
        ];
        for uri in not_skill {
            assert!(canonical(uri).is_err(), "{uri}");
        }
    }
}
