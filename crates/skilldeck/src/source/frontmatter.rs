//! The head of a `SKILL.md`: finding the fences, reading the YAML between them,
//! and the guarded line-wise fallback for YAML that a person wrote carelessly.
//!
//! The rules are SPEC §3: a frontmatter opens with `---` and a line break at the
//! first byte (after a byte-order mark), closes at the first later line that is
//! `---` (trailing spaces and `\r` allowed), and the body is every byte after
//! that line's break. YAML is read with YAML 1.2 rules and the author's scalar
//! text is kept for `name` and `description` (`1.0` stays `1.0`).

use indexmap::IndexMap;
use serde_json::Value;
use serde_saphyr::{Budget, Location, NonFiniteFloatPolicy, Options, Spanned};

use crate::model::YamlProblem;
use crate::text::{js_trim, python_strip};

pub(crate) mod simple;

/// Every key of a parsed frontmatter, in the author's order, typed as YAML 1.2
/// gives it.
pub type Frontmatter = IndexMap<String, Value>;

/// How a frontmatter that YAML refuses is treated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FrontmatterMode {
    /// Rescue `name`, `description`, `triggers` and `companions` line by line,
    /// and record a `recovered-frontmatter` warning (the default).
    #[default]
    Lenient,
    /// Any YAML refusal, or a frontmatter that is not a mapping, is
    /// `malformed-frontmatter`.
    Strict,
}

/// The UTF-8 byte-order mark, skipped before the fences are looked for.
pub(crate) const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Where the fences of a `SKILL.md` are, as byte offsets into the text after
/// its byte-order mark.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fences {
    /// The text does not open with a fence.
    None,
    /// The text opens with a fence that the bytes seen so far do not close.
    Unclosed,
    /// The YAML is `yaml_start..yaml_end`; the body starts at `body_start`.
    Closed { yaml_start: usize, yaml_end: usize, body_start: usize },
}

/// Finds the fences in `bytes` (which must not start with a byte-order mark).
pub(crate) fn fences(bytes: &[u8]) -> Fences {
    let yaml_start = if bytes.starts_with(b"---\n") {
        4
    } else if bytes.starts_with(b"---\r\n") {
        5
    } else {
        return Fences::None;
    };
    let mut line_start = yaml_start;
    while line_start < bytes.len() {
        let rest = &bytes[line_start..];
        let (line, next) = match rest.iter().position(|&b| b == b'\n') {
            Some(i) => (&rest[..i], line_start + i + 1),
            None => (rest, bytes.len()),
        };
        if trim_end_spaces_cr(line) == b"---" {
            return Fences::Closed { yaml_start, yaml_end: line_start, body_start: next };
        }
        line_start = next;
    }
    Fences::Unclosed
}

fn trim_end_spaces_cr(mut line: &[u8]) -> &[u8] {
    while let [rest @ .., b' ' | b'\r'] = line {
        line = rest;
    }
    line
}

/// What a frontmatter gives the catalog.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Head {
    pub(crate) name: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) triggers: Vec<String>,
    pub(crate) companions: Vec<String>,
    pub(crate) frontmatter: Frontmatter,
    /// Set when the line-wise fallback supplied what YAML would not.
    pub(crate) recovered: Option<YamlProblem>,
    /// Set when the frontmatter was read without the parser: its text gives
    /// the same mapping again, cheaply ([`simple::mapping`]), so a skill
    /// keeps the text. A rule that changes `frontmatter` after that reading
    /// must clear it.
    pub(crate) simple: bool,
}

/// Whether serde-saphyr's error says the document is not a mapping (a
/// scalar or a list where the frontmatter's keys should be), as opposed to
/// YAML it could not read. Read off the error's kind, not its text:
/// [`serde_saphyr::Error::Unexpected`] expecting a mapping's start or end,
/// under any snippet or alias wrapper.
pub(crate) fn is_not_a_mapping(error: &serde_saphyr::Error) -> bool {
    let mut error = error;
    while let serde_saphyr::Error::WithSnippet { error: inner, .. }
    | serde_saphyr::Error::AliasError { error: inner, .. } = error
    {
        error = inner;
    }
    matches!(error, serde_saphyr::Error::Unexpected { expected, .. } if expected.starts_with("mapping"))
}

/// Why a frontmatter gives no skill.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum HeadError {
    /// YAML refused the block and nothing gave a `name`.
    Malformed(YamlProblem),
    /// No usable `name`; carries the YAML problem, if there was one.
    MissingName(Option<YamlProblem>),
}

/// The YAML limits: far above any real frontmatter, far below what an alias
/// bomb or a deeply nested document needs to hurt.
pub(crate) fn yaml_options() -> Options {
    let mut budget = Budget::default();
    budget.max_depth = 64;
    budget.max_nodes = 20_000;
    budget.max_aliases = 1_000;
    budget.max_anchors = 1_000;
    let mut options = Options::default();
    options.budget = Some(budget);
    options.strict_booleans = true;
    options.leading_zero_numbers_as_strings = true;
    options.underscored_numbers_as_strings = true;
    options.non_finite_float_policy = NonFiniteFloatPolicy::AsString;
    options.with_snippet = false;
    options
}

/// The file line and column (1-based, the column in characters) of a YAML
/// location in `yaml`, whose first line is line `first_line` of the file.
/// YAML also ends a line at a lone `\r`, the file only at `\n` (SPEC §3):
/// the location is found in the text by YAML's lines and counted again by
/// the file's, so a position never points past the frontmatter.
pub(crate) fn file_position(yaml: &str, location: &Location, first_line: u64) -> (u64, u64) {
    let bytes = yaml.as_bytes();
    let (mut yaml_line, mut line_start) = (1, 0);
    for (i, &b) in bytes.iter().enumerate() {
        if yaml_line >= location.line() {
            break;
        }
        if b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n')) {
            (yaml_line, line_start) = (yaml_line + 1, i + 1);
        }
    }
    let column = usize::try_from(location.column().saturating_sub(1)).unwrap_or(usize::MAX);
    let within: usize =
        yaml[line_start..].chars().take_while(|&c| c != '\n' && c != '\r').take(column).map(char::len_utf8).sum();
    let before = &yaml[..line_start + within];
    let line = first_line + before.matches('\n').count() as u64;
    let column = before.rsplit('\n').next().unwrap_or_default().chars().count() as u64 + 1;
    (line, column)
}

/// Parses the YAML of a frontmatter whose first line is line `first_line` of
/// the file.
pub(crate) fn parse(yaml: &str, first_line: u64, mode: FrontmatterMode) -> Result<Head, HeadError> {
    let mut head = Head::default();
    let problem = match simple::mapping(yaml) {
        Some(frontmatter) => {
            let text = |key| match frontmatter.get(key) {
                Some(Value::String(s)) => Some(s.clone()),
                _ => None,
            };
            (head.name, head.description) = (text("name"), text("description"));
            head.frontmatter = frontmatter;
            head.simple = true;
            None
        }
        None => read_yaml(yaml, first_line, mode, &mut head)?,
    };
    if let Some(problem) = &problem {
        rescue_line_wise(yaml, &mut head);
        if head.name.is_some() {
            head.recovered = Some(problem.clone());
        }
    } else if mode == FrontmatterMode::Lenient {
        head.recovered = rescue_nulls(yaml, first_line, &mut head);
    }
    head.name = head.name.map(|n| js_trim(&n).to_owned()).filter(|n| !n.is_empty());
    head.description = head.description.map(|d| js_trim(&d).to_owned());
    head.triggers = list_field(head.frontmatter.get("triggers"));
    head.companions = list_field(head.frontmatter.get("companions"));
    match (&head.name, problem) {
        (Some(_), _) => Ok(head),
        (None, Some(problem)) if problem.refused => Err(HeadError::Malformed(problem)),
        (None, problem) => Err(HeadError::MissingName(problem)),
    }
}

/// Reads `yaml` with the YAML parser into `head`'s name, description and
/// frontmatter, and says what YAML would not give, if anything.
fn read_yaml(
    yaml: &str,
    first_line: u64,
    mode: FrontmatterMode,
    head: &mut Head,
) -> Result<Option<YamlProblem>, HeadError> {
    type TopLevel = Option<IndexMap<String, Spanned<Value>>>;
    let parsed: Result<TopLevel, _> = serde_saphyr::from_str_with_options(yaml, yaml_options());
    let (map, problem) = match parsed {
        Ok(map) => (map.unwrap_or_default(), None),
        Err(error) => {
            let position = error.location().map(|l| file_position(yaml, &l, first_line));
            let message = yaml_message(&error.to_string());
            // A document that parses but is not a mapping is not a refusal:
            // without a rescued name it is `missing-name`, as in toolnexus.
            let refused = !is_not_a_mapping(&error);
            let message = if refused { message } else { "the frontmatter is not a mapping".into() };
            (IndexMap::new(), Some(YamlProblem { message, position, refused }))
        }
    };
    if let (FrontmatterMode::Strict, Some(problem)) = (mode, &problem) {
        return Err(HeadError::Malformed(problem.clone()));
    }

    let mut wrong_shape = None;
    for (key, spanned) in &map {
        let field = match key.as_str() {
            "name" => Some(&mut head.name),
            "description" => Some(&mut head.description),
            _ => None,
        };
        if let Some(field) = field {
            match scalar_text(spanned, yaml) {
                Scalar::Text(text) => *field = Some(text),
                Scalar::Null => {}
                Scalar::Collection if mode == FrontmatterMode::Lenient => {
                    wrong_shape.get_or_insert_with(|| YamlProblem {
                        message: format!("`{key}` is not a scalar"),
                        position: Some(file_position(yaml, &spanned.referenced, first_line)),
                        refused: false,
                    });
                }
                Scalar::Collection => {}
            }
        }
    }
    head.frontmatter = map.into_iter().map(|(k, v)| (k, v.value)).collect();
    Ok(problem.or(wrong_shape))
}

/// The message of a YAML error without the position that the parser appends
/// (we report positions in file lines) and without advice meant for its
/// programmers.
pub(crate) fn yaml_message(rendered: &str) -> String {
    let message = rendered.split(" at line ").next().unwrap_or(rendered);
    let message = message.split(", set DuplicateKeyPolicy").next().unwrap_or(message);
    message.trim().to_owned()
}

enum Scalar {
    Text(String),
    Null,
    Collection,
}

/// The author's text of a scalar: quoted and block scalars as YAML resolves
/// them, and plain numbers and booleans as written (`1.0`, not `1`).
fn scalar_text(value: &Spanned<Value>, source: &str) -> Scalar {
    match &value.value {
        Value::Null => Scalar::Null,
        Value::String(s) => Scalar::Text(s.clone()),
        Value::Bool(_) | Value::Number(_) => {
            let span = value.referenced.span();
            let raw = span
                .byte_offset()
                .zip(span.byte_len())
                .and_then(|(start, len)| source.get(start as usize..(start + len) as usize));
            Scalar::Text(raw.map_or_else(|| value.value.to_string(), |raw| raw.trim().to_owned()))
        }
        Value::Array(_) | Value::Object(_) => Scalar::Collection,
    }
}

/// `triggers` and `companions`: a string split on commas, or a list taken
/// element by element; trimmed, empty elements dropped.
fn list_field(value: Option<&Value>) -> Vec<String> {
    let items: Vec<String> = match value {
        Some(Value::String(s)) => s.split(',').map(str::to_owned).collect(),
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|item| match item {
                Value::String(s) => Some(s.clone()),
                Value::Number(n) => Some(n.to_string()),
                Value::Bool(b) => Some(b.to_string()),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    items.iter().map(|s| js_trim(s)).filter(|s| !s.is_empty()).map(str::to_owned).collect()
}

/// toolnexus 0.21.0 also rescues a `name` or `description` that YAML read as
/// null (SPEC §3): `description: ## Skill Profile` is a YAML comment, and the
/// line gives its text. Says what was rescued, when the line gave anything.
fn rescue_nulls(yaml: &str, first_line: u64, head: &mut Head) -> Option<YamlProblem> {
    if !["name", "description"].iter().any(|key| head.frontmatter.get(*key) == Some(&Value::Null)) {
        return None;
    }
    let (key, line, column) =
        rescue_line_wise(yaml, head).into_iter().find(|(key, ..)| matches!(*key, "name" | "description"))?;
    let message = format!("`{key}` is null in YAML, but its line holds text");
    Some(YamlProblem { message, position: Some((first_line + line, column)), refused: false })
}

/// The keys the line-wise fallback may rescue.
const RESCUED_KEYS: [&str; 4] = ["name", "description", "triggers", "companions"];

/// toolnexus 0.21.0's fallback: column-0 `key: value` lines only, first
/// occurrence wins, a value opening a YAML construct (`| > & * [ { !`) is not
/// taken, one pair of matching quotes is removed. What YAML did give wins.
/// The value is judged and unquoted as toolnexus does, after Python's
/// `str.strip`, which leaves a U+FEFF in place: `\u{FEFF}| text` is taken,
/// and becomes `| text` when `name` and `description` are trimmed (SPEC §3).
/// A YAML null word (`null`, `~`) stays absent, as SPEC §3 has it.
///
/// Returns each key it set, with the line (0-based in `yaml`) and the column
/// (1-based, in characters) of the value it took.
fn rescue_line_wise(yaml: &str, head: &mut Head) -> Vec<(&'static str, u64, u64)> {
    let mut rescued: IndexMap<&'static str, (String, u64, u64)> = IndexMap::new();
    for (index, line) in yaml.lines().enumerate() {
        let Some((key, value)) = line_key_value(line) else { continue };
        let Some(key) = RESCUED_KEYS.iter().copied().find(|k| *k == key) else { continue };
        if rescued.contains_key(key) {
            continue;
        }
        let value = python_strip(value);
        if value.is_empty()
            || value.starts_with(['|', '>', '&', '*', '[', '{', '!'])
            || matches!(value, "null" | "Null" | "NULL" | "~")
        {
            continue;
        }
        // `value` is a slice of `line`: its offset is where the value starts.
        let start = value.as_ptr() as usize - line.as_ptr() as usize;
        let column = line[..start].chars().count() as u64 + 1;
        rescued.insert(key, (unquote(value).to_owned(), index as u64, column));
    }
    let mut set = Vec::new();
    for (key, (value, line, column)) in rescued {
        let usable = |v: Option<&Value>| matches!(v, Some(Value::String(_) | Value::Number(_) | Value::Bool(_)));
        if usable(head.frontmatter.get(key)) {
            continue;
        }
        match key {
            "name" => head.name = Some(value.clone()),
            "description" => head.description = Some(value.clone()),
            _ => {}
        }
        head.frontmatter.insert(key.to_owned(), Value::String(value));
        set.push((key, line, column));
    }
    set
}

/// Splits `^([A-Za-z0-9_][A-Za-z0-9_.-]*):[ \t]*(.*)$`.
fn line_key_value(line: &str) -> Option<(&str, &str)> {
    let colon = line.find(':')?;
    let key = &line[..colon];
    let mut chars = key.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
    if !first_ok || !chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')) {
        return None;
    }
    Some((key, line[colon + 1..].trim_start_matches([' ', '\t'])))
}

fn unquote(value: &str) -> &str {
    let quoted = value.chars().count() > 1
        && ((value.starts_with('"') && value.ends_with('"')) || (value.starts_with('\'') && value.ends_with('\'')));
    if quoted { &value[1..value.len() - 1] } else { value }
}

#[cfg(test)]
mod tests;
