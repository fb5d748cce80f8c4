//! Small text rules shared by the parser and the renderers: the ECMAScript
//! trim set, `file://` URLs as Node writes them, and XML escaping.

use std::path::Path;

use percent_encoding::{AsciiSet, CONTROLS, percent_encode};

/// Whether `c` is ECMAScript `WhiteSpace` or `LineTerminator`: the set that
/// `String.prototype.trim` removes. It differs from `char::is_whitespace`
/// (it has U+FEFF, and lacks U+0085), and toolnexus's reference port is
/// JavaScript.
pub(crate) fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r' | ' ' | '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}' | '\u{2028}' | '\u{2029}' | '\u{202F}' | '\u{205F}' | '\u{3000}' | '\u{FEFF}'
    )
}

/// Trims the ECMAScript whitespace set from both ends.
pub(crate) fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_whitespace)
}

/// What Node's `pathToFileURL` percent-encodes in a path, less `~` (SPEC §5:
/// `~` stays raw). Non-ASCII bytes are always encoded.
const FILE_URL_PATH: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'[')
    .add(b'\\')
    .add(b']')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

/// The `file://` URL of an absolute path, encoded as Node's `pathToFileURL`.
pub(crate) fn file_url(path: &Path) -> String {
    let bytes = path.as_os_str().as_encoded_bytes();
    format!("file://{}", percent_encode(bytes, FILE_URL_PATH))
}

/// Escapes `&`, `<`, `>`, `"` and `'` as Python's `html.escape(quote=True)`.
pub(crate) fn xml_escape(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.contains(['&', '<', '>', '"', '\'']) {
        return s.into();
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#x27;"),
            c => out.push(c),
        }
    }
    out.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn js_trim_takes_bom_and_nbsp_but_not_nel() {
        assert_eq!(js_trim("  \u{a0}\u{feff}body\u{feff}\u{a0} \n"), "body");
        assert_eq!(js_trim("\u{85}x\u{85}"), "\u{85}x\u{85}");
        assert_eq!(js_trim("\u{1f}x"), "\u{1f}x");
    }

    #[test]
    fn file_url_encodes_as_node_except_tilde() {
        let url = file_url(Path::new("/a b/!'()*$&+,;=:@/\"#%<>?[\\]^`{|}/~/é/\t"));
        assert_eq!(url, "file:///a%20b/!'()*$&+,;=:@/%22%23%25%3C%3E%3F%5B%5C%5D%5E%60%7B%7C%7D/~/%C3%A9/%09");
    }

    #[test]
    fn xml_escape_matches_python_html_escape() {
        assert_eq!(xml_escape(r#"Use <foo> & "bar" it's"#), "Use &lt;foo&gt; &amp; &quot;bar&quot; it&#x27;s");
    }
}
