//! `skill://` URIs: a client's URI read back to its canonical form, and the
//! URIs the server itself makes for a skill name and a file path.
//!
//! Checked: nothing panics; a canonical form is canonical (reading it again
//! gives it back) and names a file inside the skill (no empty, `.` or `..`
//! segment, no NUL, and no `\` on Windows, where it separates, once
//! decoded); a URI made for a name and a path
//! reads back as itself exactly when the path can name a file in a skill.

#![no_main]

use libfuzzer_sys::fuzz_target;
use percent_encoding::percent_decode_str;
use skilldeck_mcp::fuzzing::{canonical, file_uri, skill_base};

fuzz_target!(|bytes: &[u8]| {
    // A client's URI, as sent and behind the scheme.
    let text = String::from_utf8_lossy(bytes);
    for uri in [text.to_string(), format!("skill://{text}")] {
        if let Ok(canonical_uri) = canonical(&uri) {
            assert_eq!(canonical(&canonical_uri).as_ref(), Ok(&canonical_uri), "{uri:?} is not canonical");
            check_inside(&canonical_uri);
        }
    }

    // A served file: a name, then a path of raw bytes, split at the first 0xFF.
    let (name, rel) = match bytes.iter().position(|&b| b == 0xFF) {
        Some(i) => (String::from_utf8_lossy(&bytes[..i]), &bytes[i + 1..]),
        None => (text.clone(), &b"SKILL.md"[..]),
    };
    let uri = file_uri(&skill_base(&name), rel);
    let servable = !name.is_empty()
        && rel.split(|&b| b == b'/').all(|segment| {
            !matches!(segment, b"" | b"." | b"..") && !separates(segment) && !segment.contains(&0)
        });
    match canonical(&uri) {
        Ok(read_back) => {
            assert!(servable, "{uri:?} was read back, but {name:?} {rel:?} names no file in a skill");
            assert_eq!(read_back, uri, "{name:?} {rel:?}");
        }
        Err(error) => assert!(!servable, "{uri:?} for {name:?} {rel:?} was refused: {error}"),
    }
});

/// The path of a canonical URI (after `skill://<name>/`) names a file inside
/// the skill.
fn check_inside(uri: &str) {
    let rest = uri.strip_prefix("skill://").expect("the scheme is kept");
    let (name, path) = rest.split_once('/').expect("a canonical URI has a path");
    assert!(!name.is_empty(), "{uri:?}");
    for segment in path.split('/') {
        let decoded: Vec<u8> = percent_decode_str(segment).collect();
        assert!(!matches!(&decoded[..], b"" | b"." | b".."), "{uri:?} has segment {segment:?}");
        assert!(!decoded.iter().any(|&b| matches!(b, b'/' | 0)), "{uri:?} has segment {segment:?}");
        assert!(!separates(&decoded), "{uri:?} has segment {segment:?}");
    }
}

/// Whether a segment holds a path separator other than `/`: a backslash, on
/// Windows only (elsewhere it is a character of a file name).
fn separates(segment: &[u8]) -> bool {
    cfg!(windows) && segment.contains(&b'\\')
}
