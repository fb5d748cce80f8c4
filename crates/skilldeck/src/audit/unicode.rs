//! Hidden Unicode: tag characters, bidirectional controls, zero-width and
//! invisible characters, and runs of variation selectors, each with what it
//! spells once decoded.

use unicode_normalization::char::canonical_combining_class;

use super::Hit;
use super::rules::known;

/// Which hidden class a character is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Tag,
    Selector,
    ZeroWidth,
    Bidi,
}

fn class(c: char) -> Option<Class> {
    Some(match c {
        '\u{E0000}'..='\u{E007F}' => Class::Tag,
        '\u{FE00}'..='\u{FE0F}' | '\u{E0100}'..='\u{E01EF}' => Class::Selector,
        '\u{200B}'..='\u{200D}' | '\u{2060}' | '\u{FEFF}' => Class::ZeroWidth,
        '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' => Class::Bidi,
        _ => return None,
    })
}

/// Whether UTF-8 `bytes` hold a character [`class`] puts in a class, found
/// by its encoding: most texts have none, and looking for three lead bytes
/// is far cheaper than decoding every character (typographic quotes and
/// dashes share the `E2 80` start with the zero-width and bidi controls).
fn has_hidden(bytes: &[u8]) -> bool {
    memchr::memchr3_iter(0xE2, 0xEF, 0xF3, bytes).any(|at| {
        matches!(
            bytes.get(at..).unwrap_or_default(),
            [0xE2, 0x80, 0x8B..=0x8D | 0xAA..=0xAE, ..]
                | [0xE2, 0x81, 0xA0 | 0xA6..=0xA9, ..]
                | [0xEF, 0xBB, 0xBF, ..]
                | [0xEF, 0xB8, 0x80..=0x8F, ..]
                | [0xF3, 0xA0, 0x80 | 0x81 | 0x84..=0x86, ..]
                | [0xF3, 0xA0, 0x87, 0x80..=0xAF, ..]
        )
    })
}

/// The fewest zero-width characters in a row that [`unicode.invisible-run`]
/// reports as encoded data.
const INVISIBLE_RUN: usize = 8;

/// One run of characters of one class.
struct Run {
    class: Class,
    start: usize,
    chars: Vec<char>,
    before: Option<char>,
}

/// Every hidden-Unicode finding of `text`; `code` when it is a script.
pub(super) fn scan(text: &str, code: bool, out: &mut Vec<Hit>) {
    if !has_hidden(text.as_bytes()) {
        return;
    }
    let mut run: Option<Run> = None;
    let mut prev: Option<char> = None;
    for (at, c) in text.char_indices() {
        let class = class(c);
        match (&mut run, class) {
            (Some(r), Some(k)) if r.class == k => r.chars.push(c),
            _ => {
                if let Some(r) = run.take() {
                    judge(text, code, r, Some(c), out);
                }
                run = class.map(|class| Run { class, start: at, chars: vec![c], before: prev });
            }
        }
        prev = Some(c);
    }
    if let Some(r) = run {
        judge(text, code, r, None, out);
    }
}

/// The findings of one run, given the characters around it.
fn judge(text: &str, code: bool, run: Run, after: Option<char>, out: &mut Vec<Hit>) {
    let n = run.chars.len();
    let codes = || run.chars.iter().take(8).map(|&c| format!("U+{:04X}", c as u32)).collect::<Vec<_>>().join(" ");
    match run.class {
        Class::Tag => {
            if is_flag_tags(run.before, &run.chars) {
                return;
            }
            let spelled: String = run
                .chars
                .iter()
                .filter_map(|&c| char::from_u32(c as u32 - 0xE0000).filter(|d| d.is_ascii_graphic() || *d == ' '))
                .collect();
            let detail = format!("{n} tag characters spell {spelled:?}");
            out.push(Hit::new(known("unicode.tag-chars"), run.start, detail, spelled));
        }
        Class::Selector => {
            if n < 2 {
                return;
            }
            let bytes: Vec<u8> = run
                .chars
                .iter()
                .map(|&c| match c as u32 {
                    v @ 0xFE00..=0xFE0F => (v - 0xFE00) as u8,
                    v => (v - 0xE0100 + 16).min(255) as u8,
                })
                .collect();
            let decoded = String::from_utf8_lossy(&bytes).into_owned();
            let detail = format!("{n} variation selectors in a row decode to {decoded:?}");
            out.push(Hit::new(known("unicode.variation-selectors"), run.start, detail, decoded));
        }
        Class::ZeroWidth if n >= INVISIBLE_RUN => {
            let detail = match bits(&run.chars) {
                Some(spelled) => format!("{n} zero-width characters in a row spell {spelled:?} as bits"),
                None => format!("{n} zero-width characters in a row ({}…)", codes()),
            };
            out.push(Hit::new(known("unicode.invisible-run"), run.start, detail, codes()));
        }
        Class::ZeroWidth => {
            let mut at = run.start;
            for (i, &c) in run.chars.iter().enumerate() {
                let left = if i == 0 { run.before } else { Some(run.chars[i - 1]) };
                let right = run.chars.get(i + 1).copied().or(after);
                if !benign_zero_width(c, at, left, right) {
                    let detail = format!("U+{:04X} (zero-width) inside the text", c as u32);
                    out.push(Hit::new(known("unicode.zero-width"), at, detail, excerpt_around(text, at)));
                }
                at += c.len_utf8();
            }
        }
        Class::Bidi => {
            if !code && isolates_in_rtl_line(text, run.start) {
                return;
            }
            let detail = format!("{} reorders the displayed text", codes());
            out.push(Hit::new(known("unicode.bidi-control"), run.start, detail, excerpt_around(text, run.start)));
        }
    }
}

/// Whether the line holding byte `at` is right-to-left text whose only
/// bidi controls are isolates, each closed (FSI, LRI or RLI ... PDI, nested
/// or not): what localisation tools (Fluent, ICU) put around a placeable so
/// that a name does not reorder the sentence. Overrides and embeddings, an
/// unclosed isolate, or a line with no Arabic or Hebrew letter stay findings.
fn isolates_in_rtl_line(text: &str, at: usize) -> bool {
    let start = text[..at].rfind('\n').map_or(0, |n| n + 1);
    let end = text[at..].find('\n').map_or(text.len(), |n| at + n);
    let line = &text[start..end];
    let rtl = |c: char| matches!(c, '\u{0590}'..='\u{08FF}' | '\u{FB1D}'..='\u{FDFF}' | '\u{FE70}'..='\u{FEFC}');
    let mut depth = 0usize;
    for c in line.chars() {
        match c {
            '\u{2066}'..='\u{2068}' => depth += 1,
            '\u{2069}' if depth > 0 => depth -= 1,
            '\u{2069}' | '\u{202A}'..='\u{202E}' => return false,
            _ => {}
        }
    }
    depth == 0 && line.chars().any(|c| rtl(c) && c.is_alphabetic())
}

/// A flag emoji's tag sequence: U+1F3F4, then lowercase letters or digits
/// as tags, then CANCEL TAG (England is `gbeng`).
fn is_flag_tags(before: Option<char>, tags: &[char]) -> bool {
    let Some((&last, body)) = tags.split_last() else { return false };
    before == Some('\u{1F3F4}')
        && last == '\u{E007F}'
        && (2..=7).contains(&body.len())
        && body.iter().all(|&c| matches!(c, '\u{E0061}'..='\u{E007A}' | '\u{E0030}'..='\u{E0039}'))
}

/// A zero-width character with an honest job: a BOM at the start, a joiner
/// inside an emoji sequence, a (non-)joiner between letters of a script
/// that needs one.
fn benign_zero_width(c: char, at: usize, left: Option<char>, right: Option<char>) -> bool {
    let emoji = |c: Option<char>| {
        c.is_some_and(|c| matches!(c, '\u{1F000}'..='\u{1FAFF}' | '\u{2600}'..='\u{27BF}' | '\u{FE0F}'))
    };
    let letter = |c: Option<char>| c.is_some_and(|c| c.is_alphabetic() && !c.is_ascii());
    // In Indic scripts the joiner follows a virama (a combining mark, not a letter):
    // `क्\u{200D}ष` asks for the half form, `क्\u{200C}ष` keeps the virama visible.
    let mark = |c: Option<char>| c.is_some_and(|c| !c.is_ascii() && canonical_combining_class(c) != 0);
    match c {
        '\u{FEFF}' => at == 0,
        '\u{200D}' => (emoji(left) && emoji(right)) || ((letter(left) || mark(left)) && letter(right)),
        '\u{200C}' => (letter(left) || mark(left)) && letter(right),
        _ => false,
    }
}

/// A run of exactly two distinct characters read as bits (the lower code
/// point 0), when it spells printable ASCII.
fn bits(chars: &[char]) -> Option<String> {
    let zero = *chars.iter().min()?;
    let one = *chars.iter().max()?;
    if zero == one || !chars.len().is_multiple_of(8) || chars.iter().any(|&c| c != zero && c != one) {
        return None;
    }
    let spelled: String =
        chars.chunks(8).map(|byte| byte.iter().fold(0u8, |acc, &c| (acc << 1) | u8::from(c == one)) as char).collect();
    spelled.chars().all(|c| c.is_ascii_graphic() || c == ' ').then_some(spelled)
}

/// The text around byte `at` (a few words either side, on its own line),
/// for the excerpt.
fn excerpt_around(text: &str, at: usize) -> String {
    let line_start = text[..at].rfind('\n').map_or(0, |n| n + 1);
    let line_end = text[at..].find('\n').map_or(text.len(), |n| at + n);
    let mut start = at.saturating_sub(24).max(line_start);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    let mut end = (at + 24).min(line_end);
    while !text.is_char_boundary(end) {
        end += 1;
    }
    text[start..end].to_owned()
}

#[cfg(test)]
mod tests {
    use super::{class, has_hidden};

    #[test]
    fn the_byte_check_agrees_with_the_classes_on_every_character() {
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            let mut utf8 = [0; 4];
            let bytes = c.encode_utf8(&mut utf8).as_bytes();
            assert_eq!(has_hidden(bytes), class(c).is_some(), "U+{:04X}", c as u32);
        }
    }
}
