//! The frontmatter shapes real skills have, read without the YAML parser.
//!
//! A registry's frontmatters are block mappings of plain and quoted scalars,
//! nested mappings (`metadata:`), block and flow lists of scalars, folded and
//! literal blocks and comments (`bench/frontmatter_mix.py` measures the mix).
//! The parser costs about ten times more than reading these shapes directly,
//! most of a large tree's load. This module reads exactly that subset, and
//! gives up (`None`) on anything else, which the parser then reads: a text it
//! takes is one YAML 1.2 reads without complaint, into the same values. The
//! property tests in `tests.rs` hold the two together.
//!
//! What is taken, line by line (only `\n` line ends, no tab anywhere, no
//! character YAML or its readers treat specially, at most [`MAX_LINES`]):
//!
//! - `key: value` lines, the key ASCII letters, digits, `_` and `-` starting
//!   with a letter or `_` (not a word YAML might resolve), no key twice;
//! - a value that is a one-line plain scalar (typed as YAML 1.2 types it), a
//!   single- or double-quoted scalar, a one-line flow list of such scalars,
//!   or nothing, then a nested mapping or a block list (indented, or a list
//!   at the key's own indentation), or a `|`, `|-`, `>` or `>-` block whose
//!   first line is not blank (a folded block with no more-indented line);
//! - a mapping's plain or quoted scalar wrapped over more indented lines, as
//!   YAML writers wrap long descriptions (always a string once folded);
//! - block list items that are scalars or flow lists;
//! - blank lines and comments (`#` after a space or at a line's start).
//!
//! `name` and `description` must be strings: any other value goes to the
//! parser's reading, which keeps the author's text of a number.

use serde_json::{Map, Value};

use super::{Frontmatter, yaml_options};

/// Past this many lines the parser's node budget might matter; leave it to it.
const MAX_LINES: usize = 512;
/// Nesting deeper than this is rare enough to leave to the parser.
const MAX_DEPTH: usize = 16;
/// Plain words YAML 1.2 or its readers may take for a null, a boolean or a
/// number (compared without case, more than YAML 1.2 resolves, to stay clear).
const NOT_TEXT: [&str; 12] = ["null", "true", "false", "yes", "no", "on", "off", "y", "n", "inf", "infinity", "nan"];

/// The mapping of `yaml` when it is in the subset this module reads, as the
/// YAML parser would give it; `None` for anything else.
pub(crate) fn mapping(yaml: &str) -> Option<Frontmatter> {
    let body = yaml.strip_suffix('\n')?;
    // Most frontmatters are ASCII: checked by bytes, without decoding.
    let ok = if yaml.is_ascii() {
        yaml.bytes().all(|b| b == b'\n' || (b' '..=b'~').contains(&b))
    } else {
        yaml.chars().all(allowed)
    };
    if !ok {
        return None;
    }
    let lines: Vec<&str> = body.split('\n').collect();
    if lines.len() > MAX_LINES {
        return None;
    }
    let mut reader = Reader { lines, at: 0, depth: 0 };
    let map = reader.block_map(0)?;
    if reader.next_content().is_some() {
        return None;
    }
    let text_or_absent = |key| matches!(map.get(key), None | Some(Value::String(_)));
    (text_or_absent("name") && text_or_absent("description")).then_some(map)
}

/// Characters read here as themselves. Left to the parser: tabs (which YAML
/// reads differently by place), `\r`, other controls, the C1 range (NEL is a
/// YAML 1.1 line break), the byte-order mark, the Unicode line and paragraph
/// separators, and the non-characters U+FFFE and U+FFFF.
fn allowed(c: char) -> bool {
    matches!(c, '\n' | ' '..='~' | '\u{a0}'..='\u{2027}' | '\u{202a}'..='\u{fefe}' | '\u{ff00}'..='\u{fffd}')
        || c >= '\u{10000}'
}

/// The number of leading spaces.
fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

struct Reader<'a> {
    lines: Vec<&'a str>,
    at: usize,
    depth: usize,
}

impl<'a> Reader<'a> {
    /// Skips blank and comment lines; the next line with content and its
    /// indentation, not consumed.
    fn next_content(&mut self) -> Option<(usize, &'a str)> {
        while let Some(&line) = self.lines.get(self.at) {
            let text = line.trim_start_matches(' ');
            if !text.is_empty() && !text.starts_with('#') {
                return Some((line.len() - text.len(), line));
            }
            self.at += 1;
        }
        None
    }

    /// A block mapping whose keys are at indentation `n`: its entries in order.
    fn block_map(&mut self, n: usize) -> Option<Frontmatter> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return None;
        }
        let mut entries = Frontmatter::new();
        while let Some((ind, line)) = self.next_content() {
            if ind < n {
                break;
            }
            if ind > n {
                return None;
            }
            let (key, rest) = line[n..].split_once(':')?;
            let key_ok = key.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && key.len() <= 64
                && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
                && !NOT_TEXT.iter().any(|w| key.eq_ignore_ascii_case(w));
            if !key_ok || !(rest.is_empty() || rest.starts_with(' ')) {
                return None;
            }
            self.at += 1;
            let value = self.value(n, rest.trim_start_matches(' '), true)?;
            if entries.insert(key.to_owned(), value).is_some() {
                // A key twice: YAML refuses it.
                return None;
            }
        }
        self.depth -= 1;
        (!entries.is_empty()).then_some(entries)
    }

    /// A block list whose dashes are at indentation `m`.
    fn block_list(&mut self, m: usize) -> Option<Value> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return None;
        }
        let mut items = Vec::new();
        while let Some((ind, line)) = self.next_content() {
            if ind < m {
                break;
            }
            if ind > m {
                return None;
            }
            // A line at the list's indentation that is no item ends a list
            // nested at its key's indentation; the caller judges it.
            let Some(item) = line[m..].strip_prefix("- ") else { break };
            self.at += 1;
            let item = item.trim_start_matches(' ');
            if item.is_empty() || item.starts_with(['#', '|', '>']) {
                return None;
            }
            items.push(self.value(m, item, false)?);
        }
        self.depth -= 1;
        Some(Value::Array(items))
    }

    /// The value after a key at indentation `n` (or a list item's dash):
    /// `v` is the rest of its line, leading spaces removed. Only a mapping's
    /// value (`in_map`) may be a nested block or a block scalar.
    fn value(&mut self, n: usize, v: &str, in_map: bool) -> Option<Value> {
        if v.is_empty() || v.starts_with('#') {
            return match self.next_content() {
                Some((ind, line)) if ind > n => {
                    let text = &line[ind..];
                    if text.starts_with("- ") { self.block_list(ind) } else { self.block_map(ind).map(object) }
                }
                Some((ind, line)) if ind == n && line[ind..].starts_with("- ") => self.block_list(n),
                _ => Some(Value::Null),
            };
        }
        if v.starts_with(['|', '>']) {
            return if in_map { self.block_scalar(n, v) } else { None };
        }
        let next = self.lines[self.at..].iter().find(|line| !line.trim_start_matches(' ').is_empty());
        let value = match next {
            // A more indented line continues a map's scalar (YAML writers
            // wrap long descriptions so); elsewhere it is left to the parser.
            Some(next) if in_map && indent(next) > n => self.multi_line(n, v)?,
            _ => inline(v)?,
        };
        // A more indented line would continue a plain scalar, or be an error.
        match self.next_content() {
            Some((ind, _)) if ind > n => None,
            _ => Some(value),
        }
    }

    /// A plain or quoted scalar under a key at indentation `n` that starts
    /// with `v` and goes on over the next lines, more indented than the key:
    /// each line break folds into a space, `k` blank lines into `k` line
    /// breaks, and the spaces around a break go.
    fn multi_line(&mut self, n: usize, v: &str) -> Option<Value> {
        let quote = v.starts_with(['"', '\'']);
        if !quote && v.contains(" #") {
            // A comment ends a plain scalar: what follows is an error.
            return None;
        }
        if quote && inline(v).is_some() {
            return None;
        }
        let first = v.trim_end_matches(' ');
        // A plain line ending in `:` is a key, whatever follows.
        if first.ends_with('\\') || (quote && first.len() == 1) || (!quote && first.ends_with(':')) {
            return None;
        }
        let mut text = first.to_owned();
        let mut breaks = 0;
        while let Some(&line) = self.lines.get(self.at) {
            let part = line.trim_matches(' ');
            if part.is_empty() {
                breaks += 1;
                self.at += 1;
                continue;
            }
            if indent(line) <= n || (!quote && (part.starts_with(['#', '-']) || part.contains(" #"))) {
                break;
            }
            if part.ends_with('\\') || (!quote && part.ends_with(':')) {
                return None;
            }
            text.extend(std::iter::repeat_n('\n', breaks));
            if breaks == 0 {
                text.push(' ');
            }
            breaks = 0;
            text.push_str(part);
            self.at += 1;
            if quote && let Some((value, rest)) = quoted(&text) {
                return end_of_line(rest).then_some(Value::String(value));
            }
        }
        // Unclosed, or blank lines at the end, which belong to no scalar.
        if quote || text.contains(": ") {
            return None;
        }
        plain(&text).filter(Value::is_string)
    }

    /// A `|`, `|-`, `>` or `>-` block under a key at indentation `n`.
    fn block_scalar(&mut self, n: usize, header: &str) -> Option<Value> {
        let indicator = header.find(" #").map_or(header, |i| &header[..i]).trim_end_matches(' ');
        let (literal, strip) = match indicator {
            "|" => (true, false),
            "|-" => (true, true),
            ">" => (false, false),
            ">-" => (false, true),
            _ => return None,
        };
        let first = self.lines.get(self.at)?;
        let m = indent(first);
        if m <= n || m == first.len() {
            return None;
        }
        let mut lines: Vec<&str> = Vec::new();
        while let Some(&line) = self.lines.get(self.at) {
            let ind = indent(line);
            if ind == line.len() {
                // A blank line with spaces past the indentation holds text.
                if ind > m {
                    return None;
                }
                lines.push("");
            } else if ind < m {
                break;
            } else {
                let text = &line[m..];
                if !literal && text.starts_with(' ') {
                    return None;
                }
                lines.push(text);
            }
            self.at += 1;
        }
        while lines.last() == Some(&"") {
            lines.pop();
        }
        let mut out = String::new();
        let mut empties = 0;
        for (i, line) in lines.iter().enumerate() {
            if line.is_empty() {
                empties += 1;
                continue;
            }
            if i > 0 {
                match (literal, empties) {
                    (true, _) => out.extend(std::iter::repeat_n('\n', empties + 1)),
                    (false, 0) => out.push(' '),
                    (false, _) => out.extend(std::iter::repeat_n('\n', empties)),
                }
            }
            empties = 0;
            out.push_str(line);
        }
        if !strip && !out.is_empty() {
            out.push('\n');
        }
        Some(Value::String(out))
    }
}

fn object(entries: Frontmatter) -> Value {
    Value::Object(entries.into_iter().collect::<Map<String, Value>>())
}

/// A one-line value: a quoted or plain scalar or a flow list, then nothing
/// but spaces and a comment.
fn inline(v: &str) -> Option<Value> {
    let (value, rest) = match v.as_bytes()[0] {
        b'"' | b'\'' => {
            let (text, rest) = quoted(v)?;
            (Value::String(text), rest)
        }
        b'[' => flow_list(v)?,
        _ => {
            let text = match v.find(" #") {
                Some(i) => &v[..i],
                None => v,
            };
            return plain(text.trim_end_matches(' '));
        }
    };
    end_of_line(rest).then_some(value)
}

/// Whether `rest`, after a value, is only spaces and maybe a comment.
fn end_of_line(rest: &str) -> bool {
    let trimmed = rest.trim_start_matches(' ');
    trimmed.is_empty() || (trimmed.starts_with('#') && trimmed.len() < rest.len())
}

/// A plain scalar on one line, typed as YAML 1.2 types it.
fn plain(text: &str) -> Option<Value> {
    let mut chars = text.chars();
    let first = chars.next()?;
    let second = chars.next();
    let indicator = matches!(first, '{' | '}' | '[' | ']' | ',' | '&' | '*' | '!' | '|' | '>' | '%' | '@' | '`' | '#')
        || matches!(first, '"' | '\'')
        || (matches!(first, '-' | '?' | ':') && matches!(second, None | Some(' ' | '\n')));
    if indicator || text.contains(": ") || text.ends_with(':') || text.starts_with("---") || text.starts_with("...") {
        return None;
    }
    typed(text)
}

/// A plain scalar's value. Text that could be a null, a boolean or a number
/// is typed by the parser itself (it is rare, and its rules have corners:
/// `010`, `1_000`, `.inf`); anything with another character is a string.
fn typed(text: &str) -> Option<Value> {
    let may_be_typed = text.starts_with(|c: char| c.is_ascii_digit() || matches!(c, '+' | '-' | '.' | '~'))
        || NOT_TEXT.iter().any(|w| text.eq_ignore_ascii_case(w));
    if !may_be_typed {
        return Some(Value::String(text.to_owned()));
    }
    if !text.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.' | b'_' | b'~')) {
        return Some(Value::String(text.to_owned()));
    }
    match serde_saphyr::from_str_with_options::<Value>(text, yaml_options()) {
        Ok(value @ (Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_))) => Some(value),
        _ => None,
    }
}

/// A quoted scalar that closes on its line: its text and what follows.
fn quoted(v: &str) -> Option<(String, &str)> {
    let quote = v.as_bytes()[0];
    let mut out = String::new();
    let mut rest = &v[1..];
    loop {
        let stop = rest.find(|c| c == quote as char || (quote == b'"' && c == '\\'))?;
        out.push_str(&rest[..stop]);
        let after = &rest[stop + 1..];
        if quote == b'\'' {
            match after.strip_prefix('\'') {
                Some(more) => {
                    out.push('\'');
                    rest = more;
                }
                None => return Some((out, after)),
            }
        } else if rest.as_bytes()[stop] == b'"' {
            return Some((out, after));
        } else {
            let (c, more) = escape(after)?;
            out.push(c);
            rest = more;
        }
    }
}

/// The character of a double-quoted escape (after its `\`), and the rest.
fn escape(s: &str) -> Option<(char, &str)> {
    let c = s.chars().next()?;
    let rest = &s[c.len_utf8()..];
    let hex = |digits: usize| {
        // Hex digits only: `from_str_radix` would also take a sign.
        let code = rest.get(..digits).filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))?;
        let code = u32::from_str_radix(code, 16).ok()?;
        Some((char::from_u32(code)?, &rest[digits..]))
    };
    let simple = match c {
        '0' => '\0',
        'a' => '\u{7}',
        'b' => '\u{8}',
        't' => '\t',
        'n' => '\n',
        'v' => '\u{b}',
        'f' => '\u{c}',
        'r' => '\r',
        'e' => '\u{1b}',
        ' ' => ' ',
        '"' => '"',
        '/' => '/',
        '\\' => '\\',
        'N' => '\u{85}',
        '_' => '\u{a0}',
        'L' => '\u{2028}',
        'P' => '\u{2029}',
        'x' => return hex(2),
        'u' => return hex(4),
        'U' => return hex(8),
        _ => return None,
    };
    Some((simple, rest))
}

/// A flow list of scalars on one line (`[a, "b c", 'd']`): the list and
/// what follows its `]`.
fn flow_list(v: &str) -> Option<(Value, &str)> {
    let mut items = Vec::new();
    let mut rest = v[1..].trim_start_matches(' ');
    if let Some(after) = rest.strip_prefix(']') {
        return Some((Value::Array(items), after));
    }
    loop {
        let item = if rest.starts_with(['"', '\'']) {
            let (text, after) = quoted(rest)?;
            rest = after;
            Value::String(text)
        } else {
            let end = rest.find([',', ']'])?;
            let text = rest[..end].trim_end_matches(' ');
            if text.contains(['[', '{', '}', '#', ':', '"', '\'']) {
                return None;
            }
            rest = &rest[end..];
            plain(text)?
        };
        items.push(item);
        rest = rest.trim_start_matches(' ');
        if let Some(after) = rest.strip_prefix(']') {
            return Some((Value::Array(items), after));
        }
        rest = rest.strip_prefix(',')?.trim_start_matches(' ');
        if rest.starts_with([']', ',']) {
            return None;
        }
    }
}

#[cfg(test)]
mod tests;
