//! A file's text as the matchers see it, and the way back to where a match
//! is in the file: views with each byte mapped to the original byte it came
//! from, and file lines and columns (1-based, columns in characters).

use unicode_normalization::UnicodeNormalization;

/// Characters that render as nothing and are dropped from every view.
pub(super) fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{AD}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{2069}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FEFF}'
            | '\u{E0000}'..='\u{E007F}'
            | '\u{E0100}'..='\u{E01EF}'
    )
}

/// What a view does to the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Fold {
    /// For phrases: case folded, look-alike letters folded to ASCII, every
    /// run of whitespace (line breaks too) one space, `*` and `_` dropped.
    Phrase,
    /// For commands: case kept, runs of spaces one space, line breaks kept
    /// (a backslash continuation joins its lines), shell quotes and
    /// backslash escapes dropped (`c"ur"l` is `curl` to a shell).
    Command,
}

/// A folded copy of a text, each of its bytes mapped to the byte of the
/// original it came from.
pub(super) struct View {
    pub(super) text: String,
    origin: Vec<u32>,
}

impl View {
    pub(super) fn new(text: &str, fold: Fold) -> View {
        let mut view = View { text: String::with_capacity(text.len()), origin: Vec::with_capacity(text.len()) };
        let mut chars = text.char_indices().peekable();
        while let Some((at, c)) = chars.next() {
            if is_invisible(c) {
                continue;
            }
            if fold == Fold::Command && c == '\\' {
                match chars.peek() {
                    Some((_, '\n')) => {
                        chars.next();
                        view.space(at, ' ');
                    }
                    Some(&(next_at, next)) if next != '\\' => {
                        chars.next();
                        view.push(next_at, next);
                    }
                    _ => view.push(at, c),
                }
                continue;
            }
            if c.is_whitespace() {
                let space = if fold == Fold::Command && c == '\n' { '\n' } else { ' ' };
                view.space(at, space);
                continue;
            }
            match fold {
                Fold::Command if matches!(c, '"' | '\'') => {}
                Fold::Command => view.push(at, c),
                Fold::Phrase if matches!(c, '*' | '_') => {}
                Fold::Phrase if c.is_ascii() => view.push(at, c.to_ascii_lowercase()),
                Fold::Phrase => match look_alike(c) {
                    Some(ascii) => view.push(at, ascii),
                    None => {
                        for d in std::iter::once(c).nfkc() {
                            for l in d.to_lowercase() {
                                view.push(at, l);
                            }
                        }
                    }
                },
            }
        }
        view
    }

    fn push(&mut self, at: usize, c: char) {
        self.text.push(c);
        let at = u32::try_from(at).unwrap_or(u32::MAX);
        self.origin.extend(std::iter::repeat_n(at, c.len_utf8()));
    }

    /// One space (or line break) for a run: a line break replaces the
    /// space before it.
    fn space(&mut self, at: usize, space: char) {
        match self.text.as_bytes().last() {
            None => self.push(at, space),
            Some(b' ') if space == '\n' => {
                self.text.pop();
                self.origin.pop();
                self.push(at, space);
            }
            Some(b' ' | b'\n') => {}
            Some(_) => self.push(at, space),
        }
    }

    /// The byte of the original text that view byte `at` came from.
    pub(super) fn origin(&self, at: usize) -> usize {
        self.origin.get(at).or(self.origin.last()).map_or(0, |&o| o as usize)
    }
}

/// The ASCII letter a Cyrillic or Greek look-alike stands for in a phrase
/// (`іgnоrе` with Cyrillic і, о and е reads as `ignore`).
fn look_alike(c: char) -> Option<char> {
    Some(match c {
        'а' | 'А' | 'α' | 'Α' => 'a',
        'с' | 'С' | 'ϲ' => 'c',
        'е' | 'Е' | 'ε' | 'Ε' => 'e',
        'һ' | 'Н' | 'Η' => 'h',
        'і' | 'І' | 'ι' | 'Ι' => 'i',
        'ј' | 'Ј' => 'j',
        'к' | 'К' | 'κ' | 'Κ' => 'k',
        'м' | 'М' | 'Μ' => 'm',
        'о' | 'О' | 'ο' | 'Ο' => 'o',
        'р' | 'Р' | 'ρ' | 'Ρ' => 'p',
        'ѕ' | 'Ѕ' => 's',
        'т' | 'Т' | 'τ' | 'Τ' => 't',
        'у' | 'У' | 'υ' => 'y',
        'х' | 'Х' | 'χ' | 'Χ' => 'x',
        'ԁ' => 'd',
        'ν' | 'Ν' => 'v',
        'ѡ' | 'ω' => 'w',
        _ => return None,
    })
}

/// Where each line of a text starts, to turn byte offsets into file lines
/// and columns.
pub(super) struct Lines<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    pub(super) fn new(text: &'a str) -> Lines<'a> {
        let starts = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
        Lines { text, starts }
    }

    /// The 1-based line and column (in characters) of byte `offset`
    /// (moved back to a character boundary).
    pub(super) fn position(&self, offset: usize) -> (u64, u64) {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset).max(1) - 1;
        let start = self.starts[line];
        let column = self.text[start..offset].chars().count() + 1;
        (line as u64 + 1, column as u64)
    }

    /// The text of the line holding byte `offset`, without its line break.
    pub(super) fn line_of(&self, offset: usize) -> (usize, &'a str) {
        let (line, _) = self.position(offset);
        let start = self.starts[line as usize - 1];
        let end = self.text[start..].find('\n').map_or(self.text.len(), |e| start + e);
        (start, &self.text[start..end])
    }

    /// Every line with the byte offset it starts at.
    pub(super) fn iter(&self) -> impl Iterator<Item = (usize, &'a str)> + '_ {
        self.starts.iter().map(|&start| {
            let end = self.text[start..].find('\n').map_or(self.text.len(), |e| start + e);
            (start, &self.text[start..end])
        })
    }
}

/// At most `max` characters of `text` for a finding, every invisible or
/// control character shown as `<U+XXXX>` so that a terminal shows what is
/// there.
pub(super) fn excerpt(text: &str, max: usize) -> String {
    let mut out = String::new();
    for (n, c) in text.trim().chars().enumerate() {
        if n == max {
            out.push('…');
            break;
        }
        if is_invisible(c) || (c.is_control() && c != '\t') {
            out.push_str(&format!("<U+{:04X}>", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}
