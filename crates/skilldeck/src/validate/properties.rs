//! `skills-ref read-properties`: a skill's properties as JSON.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::yaml::{AsText, field, parse_file, text, to_json};
use super::{Check, Diagnostic, Severity, find_skill_md, non_empty_text, python_path, python_strip, read_file};
use crate::model::{Origin, Skill};
use crate::source::frontmatter::BOM;
use crate::source::read::DEFAULT_MAX_FRONTMATTER;

/// A skill's properties as `skills-ref read-properties` gives them: `name`
/// and `description` (required, non-empty, trimmed), and the optional keys
/// as written. Scalars are the author's text; lists and maps are kept, their
/// scalars as text.
#[derive(Clone, Debug, PartialEq)]
pub struct Properties {
    /// The trimmed `name`.
    pub name: String,
    /// The trimmed `description`.
    pub description: String,
    /// `license`, when present and not null.
    pub license: Option<Value>,
    /// `compatibility`, when present and not null.
    pub compatibility: Option<Value>,
    /// `allowed-tools`, when present and not null.
    pub allowed_tools: Option<Value>,
    /// `metadata`, when present, not null and not empty.
    pub metadata: Option<Value>,
}

impl Properties {
    /// The properties in `skills-ref`'s key order (`name`, `description`,
    /// `license`, `compatibility`, `allowed-tools`, `metadata`), absent keys
    /// left out.
    pub fn entries(&self) -> Vec<(&'static str, Value)> {
        let mut entries =
            vec![("name", Value::String(self.name.clone())), ("description", Value::String(self.description.clone()))];
        let optional = [
            ("license", &self.license),
            ("compatibility", &self.compatibility),
            ("allowed-tools", &self.allowed_tools),
            ("metadata", &self.metadata),
        ];
        entries.extend(optional.into_iter().filter_map(|(k, v)| v.clone().map(|v| (k, v))));
        entries
    }

    /// The properties of a catalog skill: a `SKILL.md` is re-read as
    /// [`read_properties`] reads it; a data or store skill gives its name,
    /// description and frontmatter.
    pub fn of(skill: &Skill) -> Result<Properties, Diagnostic> {
        if let Origin::Fs { skill_md, .. } = skill.origin() {
            return read_properties(skill_md);
        }
        let location = PathBuf::from(skill.location());
        let missing = |check, message: &str| Diagnostic {
            severity: Severity::Error,
            check,
            message: message.to_owned(),
            path: location.clone(),
            position: None,
        };
        let description = skill
            .description()
            .map(python_strip)
            .filter(|d| !d.is_empty())
            .ok_or_else(|| missing(Check::DescriptionEmpty, "Field 'description' must be a non-empty string"))?;
        let get = |key: &str| skill.frontmatter().get(key).filter(|v| !v.is_null()).map(as_text);
        Ok(Properties {
            name: skill.name().to_owned(),
            description: description.to_owned(),
            license: get("license"),
            compatibility: get("compatibility"),
            allowed_tools: get("allowed-tools"),
            metadata: get("metadata").filter(is_truthy),
        })
    }
}

/// `skills-ref read-properties`: the properties of the skill at `path` (a
/// skill directory or its `SKILL.md`), or the first problem that stops
/// reading them, in `skills-ref`'s words. No other check is made.
pub fn read_properties(path: impl AsRef<Path>) -> Result<Properties, Diagnostic> {
    let path = path.as_ref();
    let fail = |check, message: String, at: &Path, position| {
        Err(Diagnostic { severity: Severity::Error, check, message, path: at.to_path_buf(), position })
    };
    let dir = if path.is_file() && path.file_name().is_some_and(|n| n.to_string_lossy().to_lowercase() == "skill.md") {
        path.parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf)
    } else {
        path.to_path_buf()
    };
    let Some(skill_md) = find_skill_md(&dir) else {
        return fail(Check::MissingSkillMd, format!("SKILL.md not found in {}", python_path(&dir)), path, None);
    };
    let bytes = match read_file(&skill_md, None) {
        Ok((bytes, _)) => bytes,
        Err(error) => return fail(Check::Unreadable, error.to_string(), &skill_md, None),
    };
    let content = bytes.strip_prefix(BOM).unwrap_or(&bytes);
    let parsed = match parse_file(content, DEFAULT_MAX_FRONTMATTER) {
        Ok(parsed) => parsed,
        Err(failure) => return fail(failure.check, failure.message, &skill_md, failure.position),
    };
    let map = match &parsed.map {
        Ok(map) => map,
        Err(failure) => return fail(failure.check, failure.message.clone(), &skill_md, failure.position),
    };
    let (Some(name), Some(description)) = (field(map, "name"), field(map, "description")) else {
        let missing = if field(map, "name").is_none() { "name" } else { "description" };
        let check = if missing == "name" { Check::MissingName } else { Check::MissingDescription };
        return fail(check, format!("Missing required field in frontmatter: {missing}"), &skill_md, None);
    };
    let Some(name) = non_empty_text(name, parsed.yaml) else {
        let at = Some(parsed.position(&name.referenced));
        return fail(Check::NameEmpty, "Field 'name' must be a non-empty string".into(), &skill_md, at);
    };
    let Some(description) = non_empty_text(description, parsed.yaml) else {
        let at = Some(parsed.position(&description.referenced));
        return fail(Check::DescriptionEmpty, "Field 'description' must be a non-empty string".into(), &skill_md, at);
    };
    let get = |key: &str| {
        field(map, key).and_then(|v| match text(v, parsed.yaml) {
            AsText::Null => None,
            AsText::Scalar(text) => Some(Value::String(text)),
            AsText::Collection => Some(to_json(v, parsed.yaml)),
        })
    };
    Ok(Properties {
        name: python_strip(&name).to_owned(),
        description: python_strip(&description).to_owned(),
        license: get("license"),
        compatibility: get("compatibility"),
        allowed_tools: get("allowed-tools"),
        metadata: get("metadata").filter(is_truthy),
    })
}

/// A frontmatter value with its scalars as text (strictyaml reads every
/// scalar as a string).
fn as_text(value: &Value) -> Value {
    match value {
        Value::Null => Value::String(String::new()),
        Value::Bool(b) => Value::String(b.to_string()),
        Value::Number(n) => Value::String(n.to_string()),
        Value::String(_) => value.clone(),
        Value::Array(items) => Value::Array(items.iter().map(as_text).collect()),
        Value::Object(entries) => {
            Value::Object(entries.iter().map(|(k, v)| (k.clone(), as_text(v))).collect::<Map<String, Value>>())
        }
    }
}

/// Python truthiness, for `metadata` (left out when empty).
fn is_truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::String(s) => !s.is_empty(),
        Value::Array(items) => !items.is_empty(),
        Value::Object(entries) => !entries.is_empty(),
        Value::Bool(b) => *b,
        Value::Number(_) => true,
    }
}
