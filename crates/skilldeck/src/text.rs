//! Small text rules shared by the parser and the renderers: the ECMAScript,
//! Python and Ruby trim sets, `file://` URLs as Node writes them, XML escaping, and
//! Insika's accent-folded whole-word match.

use std::borrow::Cow;
use std::path::Path;

use percent_encoding::{AsciiSet, CONTROLS, percent_encode};
use unicode_general_category::{GeneralCategory, get_general_category};
use unicode_normalization::UnicodeNormalization;

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
pub(crate) fn xml_escape(s: &str) -> Cow<'_, str> {
    escape(s, &['&', '<', '>', '"', '\''])
}

/// Escapes `&`, `<`, `>` and `"`, what an attribute value or element text
/// needs, and leaves apostrophes as written (SPEC §6: Insika's bytes for
/// plain text).
pub(crate) fn xml_escape_text(s: &str) -> Cow<'_, str> {
    escape(s, &['&', '<', '>', '"'])
}

fn escape<'a>(s: &'a str, special: &[char]) -> Cow<'a, str> {
    if !s.contains(special) {
        return s.into();
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' if special.contains(&'\'') => out.push_str("&#x27;"),
            c => out.push(c),
        }
    }
    out.into()
}

/// `s` safe to print on one line of a terminal or a log: control
/// characters (C0, DEL, C1: escape sequences, line breaks), the line and
/// paragraph separators some viewers break at, and the bidirectional
/// overrides that reorder what a reader sees are written as
/// Rust escapes (`\u{1b}`, `\n`); everything else is kept. For text meant
/// for people only: tool outputs and prompts keep their bytes.
///
/// ```
/// assert_eq!(skilldeck::escape_control("red\x1b[31m\nline"), "red\\u{1b}[31m\\nline");
/// assert_eq!(skilldeck::escape_control("café"), "café");
/// ```
pub fn escape_control(s: &str) -> Cow<'_, str> {
    let unsafe_char = |c: char| c.is_control() || matches!(c, '\u{2028}'..='\u{202E}' | '\u{2066}'..='\u{2069}');
    if !s.contains(unsafe_char) {
        return s.into();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match unsafe_char(c) {
            true => out.extend(c.escape_debug()),
            false => out.push(c),
        }
    }
    out.into()
}

/// Trims what Python's `str.strip` trims: `char::is_whitespace` (U+0085 and
/// U+00A0 included) and U+001C..U+001F, but not U+FEFF. toolnexus 0.21.0 is
/// Python, and its line-wise fallback judges a value after this trim.
/// `text` as a YAML scalar that reads back as the same string under YAML
/// 1.1 and 1.2: plain for a lowercase identifier that is no keyword (`pdf-forms`),
/// JSON-quoted (a YAML double-quoted scalar) otherwise. How a `SKILL.md`
/// skilldeck writes (a data skill's, a renamed record's) spells its `name`.
///
/// ```
/// assert_eq!(skilldeck::yaml_scalar("pdf-forms"), "pdf-forms");
/// assert_eq!(skilldeck::yaml_scalar("yes"), "\"yes\"");
/// assert_eq!(skilldeck::yaml_scalar("Olá: mundo"), "\"Olá: mundo\"");
/// ```
pub fn yaml_scalar(text: &str) -> Cow<'_, str> {
    const KEYWORDS: [&str; 9] = ["null", "true", "false", "yes", "no", "on", "off", "y", "n"];
    let plain = text.starts_with(|c: char| c.is_ascii_lowercase())
        && text.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !KEYWORDS.contains(&text);
    if plain { Cow::Borrowed(text) } else { Cow::Owned(serde_json::Value::String(text.to_owned()).to_string()) }
}

pub(crate) fn python_strip(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_whitespace() || matches!(c, '\u{1C}'..='\u{1F}'))
}

/// Trims what Ruby's `String#strip` trims: ASCII whitespace and NUL, not
/// Unicode spaces. Insika's bodies are trimmed this way.
pub(crate) fn ruby_strip(s: &str) -> &str {
    s.trim_matches(|c| matches!(c, ' ' | '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r' | '\0'))
}

/// Insika's fold: NFD, nonspacing marks (`Mn`) removed, then each character
/// lowercased on its own (Ruby's `downcase` has no final-sigma context).
/// ASCII text (most of it, and every search over a large catalog folds it
/// all) takes the fast path to the same result, and so do the ASCII runs
/// of other text: NFD reorders only runs of combining characters, which
/// never hold an ASCII one, so it may be applied to the text between them.
pub(crate) fn fold(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while !rest.is_empty() {
        let ascii = rest.bytes().position(|b| !b.is_ascii()).unwrap_or(rest.len());
        let start = out.len();
        out.push_str(&rest[..ascii]);
        out[start..].make_ascii_lowercase();
        rest = &rest[ascii..];
        let other = rest.bytes().position(|b| b.is_ascii()).unwrap_or(rest.len());
        out.extend(
            rest[..other]
                .nfd()
                .filter(|&c| get_general_category(c) != GeneralCategory::NonspacingMark)
                .flat_map(char::to_lowercase),
        );
        rest = &rest[other..];
    }
    out
}

/// Onigmo's `[[:alnum:]]` in Unicode mode: a letter, a mark or a decimal digit.
pub(crate) fn is_word_char(c: char) -> bool {
    use GeneralCategory as G;
    if c.is_ascii() {
        return c.is_ascii_alphanumeric();
    }
    matches!(
        get_general_category(c),
        G::UppercaseLetter
            | G::LowercaseLetter
            | G::TitlecaseLetter
            | G::ModifierLetter
            | G::OtherLetter
            | G::NonspacingMark
            | G::SpacingMark
            | G::EnclosingMark
            | G::DecimalNumber
    )
}

/// Whether `needle` occurs in `haystack` with no word character right before
/// or after it. Every occurrence is tried, overlapping ones included, so a
/// first hit inside a longer word does not hide a later whole-word one.
pub(crate) fn contains_word(haystack: &str, needle: &str) -> bool {
    if needle.is_empty() {
        return false;
    }
    let mut from = 0;
    while let Some(found) = haystack[from..].find(needle) {
        let start = from + found;
        let end = start + needle.len();
        let before = haystack[..start].chars().next_back();
        let after = haystack[end..].chars().next();
        if !before.is_some_and(is_word_char) && !after.is_some_and(is_word_char) {
            return true;
        }
        // Step one character past this start: occurrences may overlap.
        from = start + haystack[start..].chars().next().map_or(1, char::len_utf8);
    }
    false
}

/// The longest prefix of `s` of at most `max` bytes that ends at a character boundary.
pub(crate) fn prefix(s: &str, max: usize) -> &str {
    &s[..utf8_prefix(s.as_bytes(), max).len()]
}

/// The longest prefix of UTF-8 `bytes` of at most `max` bytes that does not
/// end inside a character (of bytes not UTF-8, some prefix of at most `max`).
pub(crate) fn utf8_prefix(bytes: &[u8], max: usize) -> &[u8] {
    if bytes.len() <= max {
        return bytes;
    }
    let mut end = max;
    // Back off continuation bytes (10xxxxxx): the cut is then before a character's first byte.
    while end > 0 && bytes[end] & 0xC0 == 0x80 {
        end -= 1;
    }
    &bytes[..end]
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
    fn python_strip_takes_nel_and_separators_but_not_bom() {
        assert_eq!(python_strip("\u{1c}\u{85}\u{a0} x \u{1f}\u{3000}"), "x");
        assert_eq!(python_strip("\u{feff}x\u{feff}"), "\u{feff}x\u{feff}");
        assert_eq!(python_strip("\u{180e}x\u{200b}"), "\u{180e}x\u{200b}");
    }

    #[test]
    fn ruby_strip_takes_ascii_space_and_nul_only() {
        assert_eq!(ruby_strip("\0\t body \r\n\u{0B}\u{0C}\0"), "body");
        assert_eq!(ruby_strip("\u{a0}body\u{a0}"), "\u{a0}body\u{a0}");
    }

    #[test]
    fn fold_by_runs_is_the_whole_texts_fold() {
        use proptest::prelude::*;
        let whole = |s: &str| -> String {
            s.nfd()
                .filter(|&c| get_general_category(c) != GeneralCategory::NonspacingMark)
                .flat_map(char::to_lowercase)
                .collect()
        };
        // Marks and letters that compose, reorder or decompose, among ASCII.
        let pieces = prop::sample::select(vec![
            "a", "B", " ", "-", "e\u{301}", "\u{301}", "\u{323}", "\u{302}", "\u{316}", "É", "ǅ", "ﬁ", "Ω", "İ", "ẞ",
            "\u{0F71}", "\u{0F72}", "\u{0F73}", "한", "\u{1100}", "\u{1161}", "日本",
        ]);
        proptest!(|(parts in prop::collection::vec(pieces, 0..12), any in ".{0,12}")| {
            let text = format!("{}{any}", parts.concat());
            prop_assert_eq!(fold(&text), whole(&text));
        });
    }

    #[test]
    fn fold_drops_accents_and_lowercases_per_character() {
        assert_eq!(fold("MAQUIÁGEM avançado"), "maquiagem avancado");
        assert_eq!(fold("ΟΔΟΣ"), "οδοσ");
        // NFD splits İ into I + U+0307 before the marks go, so it folds to a bare i.
        assert_eq!(fold("İ"), "i");
        // Runs of ASCII among other text fold as the whole text's NFD would.
        assert_eq!(fold("Cafe\u{301} CRÈME brûlée, Ω!"), "cafe creme brulee, ω!");
        assert_eq!(fold("a\u{0323}\u{0302}B"), "ab");
    }

    #[test]
    fn whole_words_only() {
        assert!(!contains_word("me apresente a loja", "presente"));
        assert!(contains_word("é presente, sim!", "presente"));
        assert!(contains_word("presente", "presente"));
        assert!(!contains_word("presente2", "presente"));
        assert!(contains_word("presente_2 presente-x", "presente"));
        assert!(contains_word("apresente presente", "presente"));
        assert!(contains_word("aaa aa", "aa"));
        assert!(!contains_word("perfume  dia", "perfume dia"));
        assert!(!contains_word("anything", ""));
        // A combining mark is a word character, as in Onigmo.
        assert!(!contains_word("e\u{301}x", "x"));
    }

    #[test]
    fn xml_escape_matches_python_html_escape() {
        assert_eq!(xml_escape(r#"Use <foo> & "bar" it's"#), "Use &lt;foo&gt; &amp; &quot;bar&quot; it&#x27;s");
    }
}
