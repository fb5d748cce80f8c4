//! Payloads: what a file's first bytes say it is (executables and archives
//! are findings; other binary files are not read as text), long encoded
//! blobs, and minified scripts.

use super::Hit;
use super::rules::known;
use super::view::Lines;

/// The most bytes looked at to tell a binary file from a text file.
const SNIFF: usize = 8192;

/// The shortest base64 or hex run reported.
pub(super) const MIN_BLOB: usize = 200;

/// A script line at least this long, with almost no whitespace, is minified.
pub(super) const MIN_MINIFIED: usize = 500;

/// What a file is, judged by its first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Sniffed {
    /// A compiled executable (the format's name).
    Executable(&'static str),
    /// An archive (the format's name).
    Archive(&'static str),
    /// Some other binary file: not audited as text.
    Binary,
    /// Text.
    Text,
}

/// A file as the audit reads it: its text, decoded once (invalid UTF-8
/// replaced), or what its first bytes say it is when it is not text.
pub(super) enum Content {
    Text(String),
    Other(Sniffed),
}

impl Content {
    pub(super) fn of(bytes: Vec<u8>) -> Content {
        match sniff(&bytes) {
            Sniffed::Text => Content::Text(
                String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
            ),
            other => Content::Other(other),
        }
    }

    /// The text, when the file is text.
    pub(super) fn text(&self) -> Option<&str> {
        match self {
            Content::Text(text) => Some(text),
            Content::Other(_) => None,
        }
    }
}

/// Judges `bytes` by their magic numbers, then by a NUL among the first
/// [`SNIFF`] bytes.
pub(super) fn sniff(bytes: &[u8]) -> Sniffed {
    let starts = |magic: &[u8]| bytes.starts_with(magic);
    let has_nul = bytes[..bytes.len().min(SNIFF)].contains(&0);
    if starts(b"\x7fELF") {
        return Sniffed::Executable("ELF");
    }
    if starts(b"MZ") && has_nul {
        return Sniffed::Executable("PE (MZ)");
    }
    for magic in [
        &[0xFE, 0xED, 0xFA, 0xCE],
        &[0xFE, 0xED, 0xFA, 0xCF],
        &[0xCE, 0xFA, 0xED, 0xFE],
        &[0xCF, 0xFA, 0xED, 0xFE],
        &[0xCA, 0xFE, 0xBA, 0xBE],
    ] {
        if starts(magic) {
            return Sniffed::Executable("Mach-O");
        }
    }
    if starts(b"\0asm") {
        return Sniffed::Executable("WebAssembly");
    }
    let archives: [(&[u8], &str); 7] = [
        (b"PK\x03\x04", "zip"),
        (b"PK\x05\x06", "zip"),
        (b"\x1f\x8b", "gzip"),
        (b"\xfd7zXZ\0", "xz"),
        (b"7z\xbc\xaf\x27\x1c", "7z"),
        (b"Rar!\x1a\x07", "rar"),
        (b"\x28\xb5\x2f\xfd", "zstd"),
    ];
    if let Some((_, name)) = archives.iter().find(|(magic, _)| starts(magic)) {
        return Sniffed::Archive(name);
    }
    if bytes.len() >= 10 && starts(b"BZh") && bytes[3].is_ascii_digit() && &bytes[4..10] == b"1AY&SY" {
        return Sniffed::Archive("bzip2");
    }
    if bytes.get(257..262) == Some(b"ustar") {
        return Sniffed::Archive("tar");
    }
    if has_nul { Sniffed::Binary } else { Sniffed::Text }
}

/// The finding of a bundled executable or archive, at the file's start.
pub(super) fn bundled(sniffed: Sniffed, out: &mut Vec<Hit>) {
    match sniffed {
        Sniffed::Executable(format) => {
            out.push(Hit::new(known("payload.executable"), 0, format!("a {format} binary"), String::new()));
        }
        Sniffed::Archive(format) => {
            out.push(Hit::new(known("payload.archive"), 0, format!("a {format} archive"), String::new()));
        }
        Sniffed::Binary | Sniffed::Text => {}
    }
}

/// Runs of at least [`MIN_BLOB`] base64 or hex characters, but not an
/// image's data URI.
pub(super) fn blobs(text: &str, out: &mut Vec<Hit>) {
    let bytes = text.as_bytes();
    let is_blob = |b: &u8| BASE64[usize::from(*b)];
    let mut i = 0;
    // A run of MIN_BLOB holds the byte MIN_BLOB - 1 on from where it starts: that
    // byte is looked at first, and most texts are passed over MIN_BLOB bytes a step.
    while let Some(last) = bytes.get(i + MIN_BLOB - 1) {
        if !is_blob(last) {
            i += MIN_BLOB;
            continue;
        }
        if let Some(other) = bytes[i..i + MIN_BLOB].iter().rposition(|b| !is_blob(b)) {
            i += other + 1;
            continue;
        }
        // `i` is 0 or follows a byte of no blob: the run starts here.
        let start = i;
        i = bytes[i..].iter().position(|b| !is_blob(b)).map_or(bytes.len(), |n| i + n);
        let run = &bytes[start..i];
        if is_image_uri(&bytes[start.saturating_sub(48)..start]) {
            continue;
        }
        let hex = run.iter().all(u8::is_ascii_hexdigit);
        let mixed = run.iter().any(u8::is_ascii_digit)
            && run.iter().any(u8::is_ascii_uppercase)
            && run.iter().any(u8::is_ascii_lowercase);
        if !(hex || mixed) {
            continue;
        }
        let kind = if hex { "hex" } else { "base64" };
        let head = String::from_utf8_lossy(&run[..run.len().min(60)]).into_owned();
        out.push(Hit::new(known("obfuscation.encoded-blob"), start, format!("{} {kind} characters", run.len()), head));
    }
}

/// The bytes of base64 (either alphabet) and hex: a table, as every byte of
/// every file is looked at.
const BASE64: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        table[b] = byte.is_ascii_alphanumeric() || matches!(byte, b'+' | b'/' | b'-' | b'_');
        b += 1;
    }
    table
};

fn is_image_uri(before: &[u8]) -> bool {
    let before = String::from_utf8_lossy(before).to_ascii_lowercase();
    before.contains("data:image/") || before.contains("data:font/")
}

/// The first line of a script at least [`MIN_MINIFIED`] characters long with
/// under one whitespace character in 40, and how many such lines there are.
pub(super) fn minified(lines: &Lines<'_>, out: &mut Vec<Hit>) {
    let mut found = lines.iter().filter(|(_, line)| {
        let n = line.chars().count();
        n >= MIN_MINIFIED && line.chars().filter(|c| c.is_whitespace()).count() * 40 < n
    });
    if let Some((start, line)) = found.next() {
        let more = found.count();
        let detail =
            format!("a line of {} characters with almost no spaces ({more} more such lines)", line.chars().count());
        out.push(Hit::new(known("obfuscation.minified"), start, detail, line.chars().take(60).collect()));
    }
}
