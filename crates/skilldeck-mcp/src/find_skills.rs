//! The `find_skills` tool: a ranked search over every skill the server
//! exposes (an agent's allowed skills alone), for the skills a budget left
//! out of `instructions`.

use serde_json::{Map, Value, json};
use skilldeck::{AgentProfile, Catalog, LoadSkillTool, SearchResults, SkillTool, ToolResult};

/// The tool's name.
pub const FIND_SKILLS: &str = "find_skills";

/// What the model reads about the tool.
pub const DESCRIPTION: &str = "Search every skill this server offers, including those not listed in its instructions, by a few words of the task at hand. Returns the best matches, best first, each with its description; then load one by its name.";

/// The results returned when a call names no `limit`.
pub const DEFAULT_LIMIT: u64 = 10;

/// The most results one call may ask for.
pub const MAX_LIMIT: u64 = 50;

/// The tool's `{name, description, inputSchema}` parts.
pub(crate) fn input_schema() -> Map<String, Value> {
    let schema = json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "A few words of the task, such as \"fill in a PDF form\"."},
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_LIMIT,
                "default": DEFAULT_LIMIT,
                "description": "The most skills to return.",
            },
        },
        "required": ["query"],
        "additionalProperties": false,
    });
    match schema {
        Value::Object(schema) => schema,
        _ => unreachable!("a JSON object literal"),
    }
}

/// Runs `find_skills` on a model's arguments over one snapshot: every
/// exposed skill, or `profile`'s allowed skills alone.
///
/// Text only, no `structuredContent`: Claude Code (2.1.197) gives the model a
/// tool's `structuredContent` instead of its text when there is one, and the
/// text's last line, how to load a skill, would be lost.
pub(crate) fn call(catalog: &Catalog, profile: Option<&AgentProfile>, args: &Value) -> ToolResult {
    let (query, limit) = match arguments(args) {
        Ok(arguments) => arguments,
        Err(message) => return ToolResult::error(message),
    };
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    let (results, load_tool) = match profile {
        Some(profile) => (catalog.view(profile).search(query, limit), LoadSkillTool::NAME),
        None => (catalog.search(query, limit), SkillTool::NAME),
    };
    render(&results, load_tool)
}

/// `query` and `limit`, or the error text for the model.
fn arguments(args: &Value) -> Result<(&str, u64), String> {
    let Some(object) = args.as_object() else {
        return Err("Invalid arguments: expected an object with a string \"query\".".into());
    };
    if let Some(key) = object.keys().find(|k| *k != "query" && *k != "limit") {
        return Err(format!(
            "Invalid arguments: unknown argument \"{key}\"; the {FIND_SKILLS} tool takes \"query\" and \"limit\"."
        ));
    }
    let query = match object.get("query") {
        Some(Value::String(query)) if !query.trim().is_empty() => query.as_str(),
        Some(Value::String(_)) => return Err("Invalid arguments: \"query\" must hold a few words of the task.".into()),
        Some(_) => return Err("Invalid arguments: \"query\" must be a string.".into()),
        None => return Err("Invalid arguments: missing required argument \"query\".".into()),
    };
    let limit = match object.get("limit") {
        None | Some(Value::Null) => DEFAULT_LIMIT,
        Some(limit) => match limit.as_u64() {
            Some(limit @ 1..=MAX_LIMIT) => limit,
            _ => return Err(format!("Invalid arguments: \"limit\" must be an integer from 1 to {MAX_LIMIT}.")),
        },
    };
    Ok((query, limit))
}

/// The ranked skills as numbered lines, `N. name: description` (whitespace
/// runs in the description made one space), then how to load one with
/// `load_tool`; or, when the search abstained, that nothing matches.
///
/// The query is not echoed (the model sent it; a 4 MB query made a 4 MB
/// answer), and no score is shown: BM25 scores compare hits of one query,
/// not queries, and read as `0.00` on some catalogs. The order says it.
fn render(results: &SearchResults<'_>, load_tool: &str) -> ToolResult {
    let answer = |output| ToolResult { output, is_error: false, metadata: None };
    let Some(best) = results.hits.first().filter(|_| !results.abstained) else {
        return answer(NO_MATCH.to_owned());
    };
    let mut text = String::from("Skills that match, best first:\n");
    for (rank, hit) in results.hits.iter().enumerate() {
        let name = hit.skill.name();
        let description = hit.skill.description().unwrap_or_default().split_whitespace().collect::<Vec<_>>().join(" ");
        text.push_str(&format!("{}. {name}: {description}\n", rank + 1));
    }
    let example = Value::String(best.skill.name().to_owned()).to_string();
    text.push_str(&format!("\nLoad one with the {load_tool} tool: {{\"name\": {example}}}."));
    answer(text)
}

/// What `find_skills` says when no skill matches the query well.
const NO_MATCH: &str = "No skill matches these words well. Try other words, or go on without a skill.";
