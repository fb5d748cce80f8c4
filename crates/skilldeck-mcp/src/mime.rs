//! What a file is called on the wire: its MIME type, and whether its bytes
//! travel as `text` or as a base64 `blob`.

/// The MIME type a file's name implies, or `None` when the name says
/// nothing and the content must decide ([`by_content`]).
pub(crate) fn by_name(name: &[u8]) -> Option<&'static str> {
    let name = std::str::from_utf8(name).ok()?;
    let (_, ext) = name.rsplit_once('.')?;
    let ext = ext.to_ascii_lowercase();
    Some(match ext.as_str() {
        "md" | "markdown" => "text/markdown",
        "txt" | "text" | "log" => "text/plain",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "csv" => "text/csv",
        "tsv" => "text/tab-separated-values",
        "xml" => "application/xml",
        "json" => "application/json",
        "jsonl" | "ndjson" => "application/jsonl",
        "yaml" | "yml" => "application/yaml",
        "toml" => "application/toml",
        "js" | "mjs" | "cjs" => "text/javascript",
        "ts" | "mts" | "cts" => "text/typescript",
        "py" => "text/x-python",
        "rb" => "text/x-ruby",
        "rs" => "text/x-rust",
        "go" => "text/x-go",
        "java" => "text/x-java",
        "c" | "h" => "text/x-c",
        "cpp" | "cc" | "hpp" => "text/x-c++",
        "sh" | "bash" | "zsh" => "application/x-sh",
        "ps1" => "text/plain",
        "sql" => "application/sql",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "ico" => "image/vnd.microsoft.icon",
        "bmp" => "image/bmp",
        "pdf" => "application/pdf",
        "zip" => "application/zip",
        "gz" | "tgz" => "application/gzip",
        "tar" => "application/x-tar",
        "wasm" => "application/wasm",
        "mp3" => "audio/mpeg",
        "wav" => "audio/wav",
        "mp4" => "video/mp4",
        "woff" => "font/woff",
        "woff2" => "font/woff2",
        "ttf" => "font/ttf",
        "otf" => "font/otf",
        "docx" => "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xlsx" => "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "pptx" => "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        _ => return None,
    })
}

/// Whether bytes travel as `text`: valid UTF-8 holding no NUL.
pub(crate) fn is_text(bytes: &[u8]) -> bool {
    !bytes.contains(&0) && std::str::from_utf8(bytes).is_ok()
}

/// The MIME type of a file its name says nothing about.
pub(crate) fn by_content(text: bool) -> &'static str {
    if text { "text/plain" } else { "application/octet-stream" }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_decide_first() {
        assert_eq!(by_name(b"SKILL.md"), Some("text/markdown"));
        assert_eq!(by_name(b"logo.PNG"), Some("image/png"));
        assert_eq!(by_name(b"run.sh"), Some("application/x-sh"));
        assert_eq!(by_name(b"data.json"), Some("application/json"));
        assert_eq!(by_name(b"LICENSE"), None);
        assert_eq!(by_name(b"archive.unknownext"), None);
        assert_eq!(by_name(b"\xff.md"), None);
    }

    #[test]
    fn text_is_utf8_without_nul() {
        assert!(is_text("café ✓ 日本語\n".as_bytes()));
        assert!(is_text(b""));
        assert!(!is_text(b"before\x00after\n"));
        assert!(!is_text(b"caf\xe9 cr\xe8me\n"));
        assert!(!is_text(b"\x89PNG\r\n\x1a\n"));
        assert_eq!(by_content(true), "text/plain");
        assert_eq!(by_content(false), "application/octet-stream");
    }
}
