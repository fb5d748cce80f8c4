//! The frontmatter as the checks read it: YAML nodes that keep their
//! positions and the author's text of every scalar, and the split of a
//! `SKILL.md` at its fences.

use std::fmt;

use indexmap::IndexMap;
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_saphyr::Spanned;

use super::{Check, line_column};
use crate::source::frontmatter::{self, Fences};

/// The top-level frontmatter mapping, with the positions of keys and values.
pub(super) type YamlMap = IndexMap<Spanned<String>, Spanned<Node>>;

/// A YAML node, with the position of every node inside it (a
/// `serde_json::Value` keeps none below the top level, and loses the author's
/// text of nested numbers: `2.10` would be `2.1`).
#[derive(Debug)]
pub(super) enum Node {
    /// `null`, `~` or an empty value.
    Null,
    /// A boolean or a number; its text is the author's, from the span.
    Plain(String),
    /// A string.
    Str(String),
    /// A sequence.
    Seq(Vec<Spanned<Node>>),
    /// A mapping; keys as text.
    Map(IndexMap<String, Spanned<Node>>),
}

impl Node {
    pub(super) fn is_collection(&self) -> bool {
        matches!(self, Node::Seq(_) | Node::Map(_))
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Node, D::Error> {
        deserializer.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a YAML node")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Node, E> {
        Ok(Node::Plain(v.to_string()))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Node, E> {
        Ok(Node::Plain(v.to_string()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Node, E> {
        Ok(Node::Plain(v.to_string()))
    }

    fn visit_i128<E>(self, v: i128) -> Result<Node, E> {
        Ok(Node::Plain(v.to_string()))
    }

    fn visit_u128<E>(self, v: u128) -> Result<Node, E> {
        Ok(Node::Plain(v.to_string()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Node, E> {
        Ok(Node::Plain(v.to_string()))
    }

    fn visit_str<E>(self, v: &str) -> Result<Node, E> {
        Ok(Node::Str(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Node, E> {
        Ok(Node::Str(v))
    }

    fn visit_unit<E>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }

    fn visit_none<E>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Node, D::Error> {
        Node::deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Node::Seq(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut entries = IndexMap::new();
        while let Some((key, value)) = map.next_entry::<String, Spanned<Node>>()? {
            entries.insert(key, value);
        }
        Ok(Node::Map(entries))
    }
}

/// A node read as text, as the checks need it.
pub(super) enum AsText {
    /// A scalar: the string, or a boolean's or number's text as written.
    Scalar(String),
    /// `null`, `~` or an empty value.
    Null,
    /// A sequence or a mapping.
    Collection,
}

/// The author's text of a plain scalar (`1.0`, not `1`), from its span.
fn raw<'y>(node: &Spanned<Node>, yaml: &'y str) -> Option<&'y str> {
    let span = node.referenced.span();
    let (start, len) = span.byte_offset().zip(span.byte_len())?;
    yaml.get(start as usize..(start + len) as usize).map(str::trim)
}

pub(super) fn text(node: &Spanned<Node>, yaml: &str) -> AsText {
    match &node.value {
        Node::Null => AsText::Null,
        Node::Str(s) => AsText::Scalar(s.clone()),
        Node::Plain(shown) => AsText::Scalar(raw(node, yaml).unwrap_or(shown).to_owned()),
        Node::Seq(_) | Node::Map(_) => AsText::Collection,
    }
}

/// A node as JSON with every scalar as text, as strictyaml reads it (a null
/// is the empty text).
pub(super) fn to_json(node: &Spanned<Node>, yaml: &str) -> Value {
    match &node.value {
        Node::Seq(items) => Value::Array(items.iter().map(|item| to_json(item, yaml)).collect()),
        Node::Map(entries) => Value::Object(entries.iter().map(|(k, v)| (k.clone(), to_json(v, yaml))).collect()),
        _ => match text(node, yaml) {
            AsText::Scalar(text) => Value::String(text),
            _ => Value::String(String::new()),
        },
    }
}

/// A problem that stops the checks of the frontmatter.
pub(super) struct Failure {
    pub(super) check: Check,
    pub(super) message: String,
    pub(super) position: Option<(u64, u64)>,
}

impl Failure {
    pub(super) fn new(check: Check, message: impl Into<String>, position: Option<(u64, u64)>) -> Failure {
        Failure { check, message: message.into(), position }
    }
}

/// A `SKILL.md` split at its fences, its YAML parsed.
pub(super) struct ParsedFile<'a> {
    pub(super) yaml: &'a str,
    pub(super) map: Result<YamlMap, Failure>,
    pub(super) body: &'a [u8],
    /// The file line the body starts on.
    pub(super) body_line: u64,
}

impl ParsedFile<'_> {
    /// A YAML location as a file line and column (the YAML starts on line 2).
    pub(super) fn position(&self, location: &serde_saphyr::Location) -> (u64, u64) {
        frontmatter::file_position(self.yaml, location, 2)
    }
}

/// Finds the fences of `text` (after its byte-order mark) and parses the YAML.
pub(super) fn parse_file(text: &[u8], max_frontmatter: usize) -> Result<ParsedFile<'_>, Failure> {
    let (yaml_start, yaml_end, body_start) = match frontmatter::fences(text) {
        Fences::None => {
            return Err(Failure::new(Check::NoFrontmatter, "SKILL.md must start with YAML frontmatter (---)", None));
        }
        Fences::Unclosed => {
            return Err(Failure::new(
                Check::UnclosedFrontmatter,
                "SKILL.md frontmatter not properly closed with ---",
                None,
            ));
        }
        Fences::Closed { yaml_start, yaml_end, body_start } => (yaml_start, yaml_end, body_start),
    };
    if yaml_end - yaml_start > max_frontmatter {
        let message = format!("the frontmatter is larger than {max_frontmatter} bytes");
        return Err(Failure::new(Check::FrontmatterTooLarge, message, None));
    }
    let yaml = match std::str::from_utf8(&text[yaml_start..yaml_end]) {
        Ok(yaml) => yaml,
        Err(error) => {
            let at = line_column(&text[yaml_start..yaml_end], error.valid_up_to(), 2);
            return Err(Failure::new(Check::Unreadable, "the frontmatter is not valid UTF-8", Some(at)));
        }
    };
    let body_line = 1 + text[..body_start].iter().filter(|&&b| b == b'\n').count() as u64;
    let map = match serde_saphyr::from_str_with_options::<Option<YamlMap>>(yaml, frontmatter::yaml_options()) {
        Ok(Some(map)) => Ok(map),
        Ok(None) => Err(Failure::new(Check::NotAMapping, "SKILL.md frontmatter must be a YAML mapping", None)),
        Err(error) => {
            let position = error.location().map(|l| frontmatter::file_position(yaml, &l, 2));
            let message = frontmatter::yaml_message(&error.to_string());
            if frontmatter::is_not_a_mapping(&error) {
                Err(Failure::new(Check::NotAMapping, "SKILL.md frontmatter must be a YAML mapping", position))
            } else {
                Err(Failure::new(Check::InvalidYaml, format!("Invalid YAML in frontmatter: {message}"), position))
            }
        }
    };
    Ok(ParsedFile { yaml, map, body: &text[body_start..], body_line })
}

pub(super) fn field<'m>(map: &'m YamlMap, key: &str) -> Option<&'m Spanned<Node>> {
    map.iter().find(|(k, _)| k.value == key).map(|(_, v)| v)
}
