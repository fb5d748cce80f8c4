//! What the audit needs to know of a Markdown file's structure: its fenced
//! code blocks (commands the body tells the model to run), its hidden
//! comments (text the rendered page does not show), and whether a place in
//! its prose is quoted.

use std::ops::Range;

use super::view::Lines;

/// The parts of one Markdown text, as byte ranges.
pub(super) struct Markdown {
    /// The contents of code blocks: fenced ones (from the line after the
    /// opening fence to the closing fence, or the end of the file) and
    /// indented ones (four spaces or a tab, after a blank line).
    fences: Vec<Range<usize>>,
    /// HTML comments (`<!--` to `-->`) and comment links (`[//]: # (...)`)
    /// outside code blocks.
    pub(super) hidden: Vec<Range<usize>>,
    /// Frontmatter values that are one identifier (`name: mkfifo-nc-shell`):
    /// names, not commands.
    identifiers: Vec<Range<usize>>,
}

impl Markdown {
    pub(super) fn new(text: &str, lines: &Lines<'_>) -> Markdown {
        let mut fences = Vec::new();
        let mut open: Option<(char, usize, usize)> = None;
        let mut outside = Vec::new();
        let mut prose_start = 0;
        let mut indented: Option<usize> = None;
        let mut previous_blank = true;
        for (start, line) in lines.iter() {
            let trimmed = line.trim_start_matches(' ');
            let indent = line.len() - trimmed.len();
            let fence = (indent < 4)
                .then(|| {
                    let c = trimmed.chars().next().filter(|c| matches!(c, '`' | '~'))?;
                    let n = trimmed.chars().take_while(|&d| d == c).count();
                    (n >= 3).then_some((c, n))
                })
                .flatten();
            // An indented code block: four spaces (or a tab) after a blank line, and on.
            let blank = line.trim().is_empty();
            let code_indent = line.starts_with('\t') || indent >= 4;
            if open.is_none() {
                match indented {
                    Some(from) if !blank && !code_indent => {
                        fences.push(from..start);
                        indented = None;
                    }
                    None if code_indent && !blank && previous_blank => indented = Some(start),
                    _ => {}
                }
            }
            previous_blank = blank;
            match (open, fence) {
                (None, Some((c, n))) => {
                    outside.push(prose_start..start);
                    open = Some((c, n, start + line.len() + 1));
                }
                (Some((c, n, from)), Some((d, m)))
                    if c == d && m >= n && trimmed[m * d.len_utf8()..].trim().is_empty() =>
                {
                    fences.push(from.min(start)..start);
                    open = None;
                    prose_start = start + line.len() + 1;
                }
                _ => {}
            }
        }
        if let Some(from) = indented {
            fences.push(from..text.len());
        }
        match open {
            Some((_, _, from)) => fences.push(from.min(text.len())..text.len()),
            None => outside.push(prose_start.min(text.len())..text.len()),
        }
        let mut hidden = Vec::new();
        for range in outside {
            hidden_in(text, range, &mut hidden);
        }
        Markdown { fences, hidden, identifiers: identifiers(lines) }
    }

    /// Whether byte `at` is inside a frontmatter value that is one identifier.
    pub(super) fn in_identifier(&self, at: usize) -> bool {
        self.identifiers.iter().any(|r| r.contains(&at))
    }

    /// Whether byte `at` is inside a fenced code block.
    pub(super) fn in_fence(&self, at: usize) -> bool {
        self.fences.iter().any(|f| f.contains(&at))
    }

    /// The hidden comment holding byte `at`, if any.
    pub(super) fn hidden_at(&self, at: usize) -> Option<&Range<usize>> {
        self.hidden.iter().find(|h| h.contains(&at))
    }
}

/// The frontmatter's values that are a single identifier (letters, digits,
/// `.`, `_`, `-`, maybe quoted), as byte ranges.
fn identifiers(lines: &Lines<'_>) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut iter = lines.iter();
    if iter.next().is_none_or(|(_, first)| first.trim_end() != "---") {
        return out;
    }
    for (start, line) in iter {
        if line.trim_end() == "---" {
            break;
        }
        let Some((key, value)) = line.split_once(':') else { continue };
        let token = value.trim().trim_matches(['"', '\'']);
        let ident = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
        if !key.trim().is_empty() && !token.is_empty() && token.chars().all(ident) {
            let from = start + key.len() + 1;
            out.push(from..start + line.len());
        }
    }
    out
}

/// The hidden comments of the prose `range` of `text`.
fn hidden_in(text: &str, range: Range<usize>, out: &mut Vec<Range<usize>>) {
    let prose = &text[range.clone()];
    let mut from = 0;
    while let Some(open) = prose[from..].find("<!--") {
        let start = from + open;
        // `<!-- ... -->` in inline code or quotes is shown, not hidden (a
        // skill that documents the trick).
        let line_start = prose[..start].rfind('\n').map_or(0, |n| n + 1);
        let line_end = prose[start..].find('\n').map_or(prose.len(), |n| start + n);
        if quoted(&prose[line_start..line_end], line_start, start) {
            from = start + 4;
            continue;
        }
        let end = prose[start + 4..].find("-->").map_or(prose.len(), |e| start + 4 + e + 3);
        out.push(range.start + start..range.start + end);
        from = end;
    }
    let mut offset = range.start;
    for line in prose.split_inclusive('\n') {
        let trimmed = line.trim();
        if trimmed.starts_with('[')
            && let Some(close) = trimmed.find("]:")
            && let rest = trimmed[close + 2..].trim_start()
            && (rest.starts_with('#') || rest.starts_with("<>"))
            && rest.contains('(')
        {
            out.push(offset..offset + line.len());
        }
        offset += line.len();
    }
}

/// Whether byte `at` of the line `line` (which starts at byte `start`) is
/// inside quotes or inline code: an odd number of `"` or backticks before
/// it on its line, or an opening curly quote not yet closed.
pub(super) fn quoted(line: &str, start: usize, at: usize) -> bool {
    let mut cut = at.saturating_sub(start).min(line.len());
    while !line.is_char_boundary(cut) {
        cut -= 1;
    }
    let before = &line[..cut];
    let odd = |c: char| before.matches(c).count() % 2 == 1;
    // A single quote between two letters is an apostrophe (`let's`), not a quote.
    let chars: Vec<char> = before.chars().collect();
    let singles = (0..chars.len())
        .filter(|&i| chars[i] == '\'')
        .filter(|&i| {
            !(i > 0 && chars[i - 1].is_alphanumeric() && chars.get(i + 1).is_some_and(|c| c.is_alphanumeric()))
        })
        .count();
    odd('"') || odd('`') || singles % 2 == 1 || before.matches(['“', '«']).count() > before.matches(['”', '»']).count()
}
