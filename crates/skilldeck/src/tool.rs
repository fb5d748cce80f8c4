//! Level 2: the `skill` tool (toolnexus), its declaration in each vendor's
//! shape, and its output, byte for byte.

use serde_json::{Value, json};

use crate::catalog::{Catalog, SampleLimit};
use crate::model::{Origin, Skill};
use crate::source::walk::SKILL_MD;
use crate::text::{file_url, fold, js_trim};

/// What a tool call returns: the text for the model, whether it is an error,
/// and (on success) which skill was served from where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolResult {
    /// The text the model sees.
    pub output: String,
    /// Whether the call failed (unknown skill, bad arguments).
    pub is_error: bool,
    /// The skill served, on success.
    pub metadata: Option<ToolMetadata>,
}

impl ToolResult {
    /// An error result carrying `message`.
    pub fn error(message: impl Into<String>) -> ToolResult {
        ToolResult { output: message.into(), is_error: true, metadata: None }
    }
}

/// Which skill a successful call served.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolMetadata {
    /// The skill's name.
    pub name: String,
    /// The skill directory (a disk skill) or the base (a data skill).
    pub dir: String,
}

/// A tool's name, description and JSON Schema for its input, with the shapes
/// each model vendor wants.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolDeclaration {
    /// The tool name.
    pub name: &'static str,
    /// The description the model reads.
    pub description: &'static str,
    /// The JSON Schema of the arguments.
    pub input_schema: Value,
}

impl ToolDeclaration {
    /// A tool whose one argument is a required string `name`, nothing else.
    pub(crate) fn taking_a_name(name: &'static str, description: &'static str, about_name: &str) -> ToolDeclaration {
        let input_schema = json!({
            "type": "object",
            "properties": {"name": {"type": "string", "description": about_name}},
            "required": ["name"],
            "additionalProperties": false,
        });
        ToolDeclaration { name, description, input_schema }
    }

    /// OpenAI Chat Completions: `{"type":"function","function":{name, description, parameters}}`.
    pub fn openai(&self) -> Value {
        json!({"type": "function", "function": {
            "name": self.name, "description": self.description, "parameters": self.input_schema,
        }})
    }

    /// Anthropic Messages: `{name, description, input_schema}`.
    pub fn anthropic(&self) -> Value {
        json!({"name": self.name, "description": self.description, "input_schema": self.input_schema})
    }

    /// Gemini function declaration: `{name, description, parameters}`. Gemini's
    /// schema subset has no `additionalProperties`, so it is left out there.
    pub fn gemini(&self) -> Value {
        let mut parameters = self.input_schema.clone();
        if let Some(object) = parameters.as_object_mut() {
            object.remove("additionalProperties");
        }
        json!({"name": self.name, "description": self.description, "parameters": parameters})
    }

    /// MCP `tools/list` entry: `{name, description, inputSchema}`.
    pub fn mcp(&self) -> Value {
        json!({"name": self.name, "description": self.description, "inputSchema": self.input_schema})
    }
}

/// The `skill` tool over one catalog snapshot: the model names a skill and
/// gets its body, its base and a sample of its files.
///
/// # Example
///
/// ```
/// use serde_json::json;
/// use skilldeck::{Catalog, SkillDef, SkillTool};
///
/// let catalog = Catalog::builder()
///     .skill(SkillDef::new("release").content("1. Bump the version.\n"))
///     .build();
/// let tool = SkillTool::new(&catalog);
/// let found = tool.call(&json!({"name": "release"}));
/// assert!(!found.is_error);
/// assert!(found.output.starts_with("<skill_content name=\"release\">\n# Skill: release\n\n1. Bump the version.\n"));
/// let missing = tool.call(&json!({"name": "deploy"}));
/// assert_eq!(missing.output, "Skill \"deploy\" not found. Available skills: release");
/// ```
#[derive(Clone, Debug)]
pub struct SkillTool {
    catalog: Catalog,
}

impl SkillTool {
    /// The tool's name.
    pub const NAME: &'static str = "skill";

    /// The tool's description: toolnexus's 398 characters.
    pub const DESCRIPTION: &'static str = "Load a specialized skill when the task at hand matches one of the skills listed in the system prompt.\n\nUse this tool to inject the skill's instructions and resources into current conversation. The output may contain detailed workflow guidance as well as references to scripts, files, etc in the same directory as the skill.\n\nThe skill name must match one of the skills listed in your system prompt.";

    /// The tool over `catalog` (a cheap clone of the snapshot).
    pub fn new(catalog: &Catalog) -> SkillTool {
        SkillTool { catalog: catalog.clone() }
    }

    /// The declaration: name, description and input schema.
    pub fn declaration() -> ToolDeclaration {
        ToolDeclaration::taking_a_name(Self::NAME, Self::DESCRIPTION, "The name of the skill to load")
    }

    /// Runs the tool on a model's arguments (`{"name": "…"}`), with the
    /// catalog's sample limit. Bad arguments are an error result.
    pub fn call(&self, args: &Value) -> ToolResult {
        match name_argument(args, Self::NAME) {
            Ok(name) => self.load(name, self.catalog.sample_limit()),
            Err(message) => ToolResult::error(message),
        }
    }

    /// Serves the skill `name` with a given sample limit.
    pub fn load(&self, name: &str, limit: SampleLimit) -> ToolResult {
        match self.catalog.get(name) {
            Some(skill) => self.serve(skill, limit),
            None => ToolResult::error(not_found(&self.catalog, name)),
        }
    }

    /// Serves the skill at `location`, exposed or shadowed ([`Catalog::at`]):
    /// how a host reaches a skill that lost its name to another.
    pub fn load_at(&self, location: &str, limit: SampleLimit) -> ToolResult {
        match self.catalog.at(location) {
            Some(skill) => self.serve(skill, limit),
            None => ToolResult::error(format!("No skill at \"{location}\".")),
        }
    }

    fn serve(&self, skill: &Skill, limit: SampleLimit) -> ToolResult {
        let name = skill.name();
        let body = match skill.body() {
            Ok(body) => body,
            Err(error) => return ToolResult::error(format!("Skill \"{name}\" could not be read: {error}")),
        };
        let (base, dir, files) = match (skill.dir(), skill.origin()) {
            // A disk skill, or a store record over one: the directory's files.
            (Some(dir), _) => {
                let files = limit.cap().map(|cap| self.sample(dir, cap));
                (file_url(dir), dir.to_string_lossy().into_owned(), files)
            }
            (None, Origin::Logical { base, resources }) => {
                let files = limit
                    .cap()
                    .filter(|_| !resources.is_empty())
                    .map(|cap| resources.iter().take(cap).cloned().collect());
                (base.clone(), base.clone(), files)
            }
            // A record of its own has no files; it is addressed like a data skill without a base.
            (None, _) => {
                let base = format!("skill://{name}/");
                (base.clone(), base, None)
            }
        };
        ToolResult {
            output: render_output(skill, body, &base, files.as_deref()),
            is_error: false,
            metadata: Some(ToolMetadata { name: skill.name().to_owned(), dir }),
        }
    }

    /// Every regular file below `dir` except `SKILL.md` files, sorted by
    /// relative path in code-point order, then capped.
    fn sample(&self, dir: &std::path::Path, cap: usize) -> Vec<String> {
        let mut walk = self.catalog.walker(dir).files(|name| name != SKILL_MD);
        walk.files.retain(|f| f.regular);
        walk.files.sort_by(|a, b| a.rel_bytes().cmp(b.rel_bytes()));
        walk.files.iter().take(cap).map(|f| f.path.to_string_lossy().into_owned()).collect()
    }
}

/// The `name` argument of a `tool` call, or the error text for the model.
pub(crate) fn name_argument<'a>(args: &'a Value, tool: &str) -> Result<&'a str, String> {
    let Some(object) = args.as_object() else {
        return Err("Invalid arguments: expected an object with a string \"name\".".into());
    };
    if let Some(key) = object.keys().find(|k| *k != "name") {
        return Err(format!("Invalid arguments: unknown argument \"{key}\"; the {tool} tool takes only \"name\"."));
    }
    match object.get("name") {
        Some(Value::String(name)) => Ok(name),
        Some(_) => Err("Invalid arguments: \"name\" must be a string.".into()),
        None => Err("Invalid arguments: missing required argument \"name\".".into()),
    }
}

/// The longest list of names, in characters, that the `skill` tool's
/// not-found text carries whole (toolnexus's `Available skills: a, b, c`).
/// Past it (a catalog of a few hundred skills) the text names the closest
/// skills and counts the rest: an unknown name in a 40,000-skill catalog
/// would otherwise cost the model 800 KB.
///
/// ```
/// use serde_json::json;
/// use skilldeck::{Catalog, NOT_FOUND_NAMES_MAX, SkillDef, SkillTool};
///
/// let defs = (0..1000).map(|i| SkillDef::new(format!("skill-{i:04}")).description("Does a thing."));
/// let catalog = Catalog::builder().skills(defs).build();
/// let out = SkillTool::new(&catalog).call(&json!({"name": "skill-0O12"}));
/// assert!(out.output.starts_with("Skill \"skill-0O12\" not found. Closest skills: skill-0012, "));
/// assert!(out.output.ends_with(" (and 990 more; use find_skills to search them)"));
/// assert!(out.output.len() < NOT_FOUND_NAMES_MAX);
/// ```
pub const NOT_FOUND_NAMES_MAX: usize = 4_000;

/// How many names the not-found text offers past [`NOT_FOUND_NAMES_MAX`].
const CLOSEST: usize = 10;

/// `Skill "<name>" not found. Available skills: <sorted names or none>`,
/// toolnexus's bytes, while the names fit [`NOT_FOUND_NAMES_MAX`]; past it,
/// `Skill "<name>" not found. Closest skills: <names> (and <n> more; use
/// find_skills to search them)`.
pub(crate) fn not_found(catalog: &Catalog, name: &str) -> String {
    let mut names: Vec<&str> = catalog.skills().map(Skill::name).collect();
    let listed: usize = names.iter().map(|n| n.chars().count() + 2).sum::<usize>().saturating_sub(2);
    if listed <= NOT_FOUND_NAMES_MAX {
        names.sort_unstable();
        let available = if names.is_empty() { "none".to_owned() } else { names.join(", ") };
        return format!("Skill \"{name}\" not found. Available skills: {available}");
    }
    let closest = closest_names(catalog, name, CLOSEST);
    if closest.is_empty() {
        return format!(
            "Skill \"{name}\" not found. No skill's name is close to it ({} skills; use find_skills to search them)",
            names.len()
        );
    }
    let rest = names.len() - closest.len();
    format!(
        "Skill \"{name}\" not found. Closest skills: {} (and {rest} more; use find_skills to search them)",
        closest.join(", ")
    )
}

/// The exposed names closest to `wanted`: first those within a few edits of
/// it (a typo, another case: a quarter of its length, at least two), nearest
/// first, then the search's hits for it as a query, unless the search
/// abstains (a name that matches nothing well suggests nothing); at most
/// `limit`, each once.
fn closest_names<'c>(catalog: &'c Catalog, wanted: &str, limit: usize) -> Vec<&'c str> {
    /// Only the start of an absurdly long name is compared: edit distance is quadratic.
    const COMPARED_CHARS: usize = 128;
    let wanted: Vec<char> = fold(wanted).chars().take(COMPARED_CHARS).collect();
    let within = (wanted.len() / 4).max(2);
    let mut near: Vec<(usize, &str)> = catalog
        .skills()
        .map(Skill::name)
        .filter_map(|name| {
            let folded: Vec<char> = fold(name).chars().take(COMPARED_CHARS).collect();
            // Edit distance is at least the difference in length: skip the quadratic work.
            if folded.len().abs_diff(wanted.len()) > within {
                return None;
            }
            let distance = strsim::generic_levenshtein(&wanted, &folded);
            (distance <= within).then_some((distance, name))
        })
        .collect();
    near.sort_unstable();
    let mut closest: Vec<&str> = Vec::with_capacity(limit);
    // Only a name with too few near ones is searched for (the search may have an index to build).
    let searched = match near.len() < limit {
        true => catalog.search(&wanted.iter().collect::<String>(), limit).hits,
        false => Vec::new(),
    };
    for name in near.into_iter().map(|(_, name)| name).chain(searched.into_iter().map(|hit| hit.skill.name())) {
        if closest.len() == limit {
            break;
        }
        if !closest.contains(&name) {
            closest.push(name);
        }
    }
    closest
}

/// The toolnexus output template (reference §3.4): lines joined by `\n`, no
/// trailing newline; the file block and its `Note:` line are one unit.
fn render_output(skill: &Skill, body: &str, base: &str, files: Option<&[String]>) -> String {
    let name = skill.name();
    let body = js_trim(body);
    let mut out = String::with_capacity(body.len() + 512);
    out.push_str(&format!("<skill_content name=\"{name}\">\n# Skill: {name}\n\n{body}\n\n"));
    out.push_str(&format!("Base directory for this skill: {base}\n"));
    out.push_str("Relative paths in this skill (e.g., scripts/, reference/) are relative to this base directory.\n");
    if let Some(files) = files {
        out.push_str("Note: file list is sampled.\n\n<skill_files>\n");
        for (i, file) in files.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            out.push_str(&format!("<file>{file}</file>"));
        }
        out.push_str("\n</skill_files>\n");
    }
    out.push_str("</skill_content>");
    out
}
