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
    /// Where the map from view bytes to original bytes changes: a view is
    /// mostly runs copied as they are, so the map is kept as its pieces
    /// (about one per folded space or character), not one entry a byte.
    pieces: Vec<Piece>,
}

/// View bytes from `view` on come from the original's bytes from `origin`
/// on, one for one, or, for a character the fold made, all from the
/// character at `origin`.
#[derive(Clone, Copy, Debug)]
struct Piece {
    view: u32,
    origin: u32,
    one_for_one: bool,
}

impl View {
    pub(super) fn new(text: &str, fold: Fold) -> View {
        let mut view = View { text: String::with_capacity(text.len()), pieces: Vec::new() };
        let bytes = text.as_bytes();
        let mut at = 0;
        // ASCII bytes (most of any skill) are handled here, one at a time;
        // other characters are decoded and go through `other`.
        while let Some(&b) = bytes.get(at) {
            let run = plain_run(bytes, at, fold);
            if run > 0 {
                view.extend_plain(at, text.get(at..at + run).unwrap_or(""), fold);
                at += run;
                continue;
            }
            if !b.is_ascii() {
                let Some(c) = text.get(at..).and_then(|rest| rest.chars().next()) else { break };
                view.other(at, c, fold);
                at += c.len_utf8();
                continue;
            }
            match (fold, b) {
                (Fold::Command, b'\\') => match text.get(at + 1..).and_then(|rest| rest.chars().next()) {
                    Some('\n') => {
                        view.space(at, ' ');
                        at += 1;
                    }
                    Some(next) if next != '\\' => {
                        view.push(at + 1, next);
                        at += next.len_utf8();
                    }
                    _ => view.push_ascii(at, b),
                },
                (_, b' ' | b'\t' | 0x0b | 0x0c | b'\r') => view.space(at, ' '),
                (Fold::Command, b'\n') => view.space(at, '\n'),
                (Fold::Phrase, b'\n') => view.space(at, ' '),
                (Fold::Command, b'"' | b'\'') | (Fold::Phrase, b'*' | b'_') => {}
                (Fold::Command, _) => view.push_ascii(at, b),
                (Fold::Phrase, _) => view.push_ascii(at, b.to_ascii_lowercase()),
            }
            at += 1;
        }
        view
    }

    /// A character outside ASCII at byte `at`.
    fn other(&mut self, at: usize, c: char, fold: Fold) {
        if is_invisible(c) {
            return;
        }
        if c.is_whitespace() {
            return self.space(at, ' ');
        }
        match fold {
            Fold::Command => self.push(at, c),
            Fold::Phrase => match look_alike(c) {
                Some(ascii) => self.push(at, ascii),
                None => {
                    for d in std::iter::once(c).nfkc() {
                        for l in d.to_lowercase() {
                            self.push(at, l);
                        }
                    }
                }
            },
        }
    }

    /// `run`, plain ASCII found at byte `at` (see [`plain_run`]), as is
    /// (lowercased for phrases).
    fn extend_plain(&mut self, at: usize, run: &str, fold: Fold) {
        self.map_next(at, true);
        let start = self.text.len();
        self.text.push_str(run);
        if fold == Fold::Phrase {
            self.text[start..].make_ascii_lowercase();
        }
    }

    fn push_ascii(&mut self, at: usize, b: u8) {
        self.map_next(at, true);
        self.text.push(char::from(b));
    }

    fn push(&mut self, at: usize, c: char) {
        self.map_next(at, c.is_ascii());
        self.text.push(c);
    }

    /// Maps the next view bytes to original byte `at` on: a new piece
    /// unless the last one already leads there.
    fn map_next(&mut self, at: usize, one_for_one: bool) {
        let view = u32::try_from(self.text.len()).unwrap_or(u32::MAX);
        let origin = u32::try_from(at).unwrap_or(u32::MAX);
        if let Some(last) = self.pieces.last()
            && one_for_one
            && last.one_for_one
            && last.origin.saturating_add(view - last.view) == origin
        {
            return;
        }
        self.pieces.push(Piece { view, origin, one_for_one });
    }

    /// Takes back the view's last byte (an ASCII space).
    fn pop(&mut self) {
        self.text.pop();
        let view = u32::try_from(self.text.len()).unwrap_or(u32::MAX);
        if self.pieces.last().is_some_and(|last| last.view == view) {
            self.pieces.pop();
        }
    }

    /// One space (or line break) for a run: a line break replaces the
    /// space before it.
    fn space(&mut self, at: usize, space: char) {
        match self.text.as_bytes().last() {
            None => self.push(at, space),
            Some(b' ') if space == '\n' => {
                self.pop();
                self.push(at, space);
            }
            Some(b' ' | b'\n') => {}
            Some(_) => self.push(at, space),
        }
    }

    /// The byte of the original text that view byte `at` came from.
    pub(super) fn origin(&self, at: usize) -> usize {
        let at = at.min(self.text.len().saturating_sub(1));
        let n = self.pieces.partition_point(|piece| piece.view as usize <= at);
        let Some(piece) = n.checked_sub(1).and_then(|n| self.pieces.get(n)) else { return 0 };
        let origin = piece.origin as usize;
        if piece.one_for_one { origin + (at - piece.view as usize) } else { origin }
    }
}

/// How many bytes from `from` on a view copies as they are (phrases
/// lowercased): printable ASCII that `fold` does not drop or escape, and
/// single spaces after such a byte. Everything else goes one character at a
/// time; this is the fast way through the bulk of a text.
fn plain_run(bytes: &[u8], from: usize, fold: Fold) -> usize {
    let plain = match fold {
        Fold::Command => &PLAIN[0],
        Fold::Phrase => &PLAIN[1],
    };
    let rest = bytes.get(from..).unwrap_or_default();
    // A space after a byte that is not copied goes through `View::space`, which
    // knows what came before it.
    if rest.first() == Some(&b' ') {
        return 0;
    }
    let end = rest.iter().position(|&b| !plain[usize::from(b)]).unwrap_or(rest.len());
    let run = rest.get(..end).unwrap_or_default();
    // The run ends after the first of two spaces.
    memchr::memmem::find(run, b"  ").map_or(end, |double| double + 1)
}

/// Which bytes [`plain_run`] copies as they are (phrases lowercased), for
/// commands and for phrases: printable ASCII and the space, less what the
/// fold drops or reads as an escape. A table, as this is asked of every byte
/// of every file.
const PLAIN: [[bool; 256]; 2] = {
    let mut table = [[false; 256]; 2];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        let graphic = byte.is_ascii_graphic() || byte == b' ';
        table[0][b] = graphic && !matches!(byte, b'\\' | b'"' | b'\'');
        table[1][b] = graphic && !matches!(byte, b'*' | b'_');
        b += 1;
    }
    table
};

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
        let starts = std::iter::once(0).chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1)).collect();
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
