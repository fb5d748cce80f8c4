//! Shell variables that hold a constant, filled in: `W="wg""et"; R=bash;
//! $W -qO- URL | $R` is `wget -qO- URL | bash` to the shell, and a pattern
//! that sees only `$W ... | $R` misses it. Only assignments of one file whose
//! value is a constant (no command substitution) are used, each from its
//! line on; a variable set in one function and used through another's
//! arguments is not followed.

use std::collections::HashMap;

use super::Hit;
use super::patterns::{PATTERNS, Set};
use super::rules::known;
use super::view::{Lines, View, excerpt};

/// The hits and channels of the lines of the command view `view` that
/// change once their constant variables are filled in, each at its line.
pub(super) fn scan(set: &Set, view: &View, lines: &Lines<'_>, hits: &mut Vec<Hit>, channels: &mut Vec<usize>) {
    let mut values: HashMap<&str, String> = HashMap::new();
    let mut offset = 0;
    for line in view.text.split('\n') {
        let start = offset;
        offset += line.len() + 1;
        if !values.is_empty()
            && line.contains('$')
            && let Some(filled) = fill(line, &values)
        {
            let at = view.origin(start);
            // What the line finds as written is found already, at its own place.
            let found = set.matching(line.as_bytes());
            for index in set.matching(filled.as_bytes()).into_iter().filter(|i| !found.contains(i)) {
                let pattern = &PATTERNS[set.each[index].0];
                if pattern.role.is_channel() {
                    channels.push(at);
                }
                if let Some(rule) = pattern.role.rule() {
                    let detail = format!("with its variables filled in: {}", excerpt(&filled, 80));
                    hits.push(Hit::new(known(rule), at, detail, excerpt(lines.line_of(at).1, 120)));
                }
            }
        }
        for statement in line.split([';', '&', '|']) {
            if let Some((name, value)) = assignment(statement) {
                let value = fill(value, &values).unwrap_or_else(|| value.to_owned());
                // `A=$A$A` doubles a value each line: a hostile script would take the memory.
                if value.len() <= MAX_VALUE {
                    values.insert(name, value);
                } else {
                    values.remove(name);
                }
            }
        }
    }
}

/// The longest value filled in: a command word or a URL, not a payload.
const MAX_VALUE: usize = 1024;

/// `NAME=value` (after `export`, `local` or `readonly`), when the value is
/// one word with no command substitution.
fn assignment(statement: &str) -> Option<(&str, &str)> {
    let statement = statement.trim();
    let statement =
        ["export ", "local ", "readonly "].iter().find_map(|p| statement.strip_prefix(p)).unwrap_or(statement);
    let (name, value) = statement.split_once('=')?;
    let is_name = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let constant = !value.is_empty() && !value.contains(['`', ' ', '(', ')']);
    (is_name && constant).then_some((name, value))
}

/// `text` with each `$NAME` and `${NAME}` of `values` replaced, or `None`
/// when it holds none.
fn fill(text: &str, values: &HashMap<&str, String>) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut changed = false;
    while let Some(dollar) = rest.find('$') {
        out.push_str(&rest[..dollar]);
        let after = &rest[dollar + 1..];
        let braced = after.starts_with('{');
        let body = if braced { &after[1..] } else { after };
        let len = body.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(body.len());
        let closed = !braced || body[len..].starts_with('}');
        match values.get(&body[..len]).filter(|_| len > 0 && closed) {
            Some(value) => {
                out.push_str(value);
                changed = true;
                rest = &body[len + usize::from(braced)..];
            }
            None => {
                out.push('$');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    changed.then_some(out)
}
