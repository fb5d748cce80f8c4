//! The `find_skills` tool: a ranked search over every skill the server
//! exposes (an agent's allowed skills alone), for the skills a budget left
//! out of `instructions`.

use serde_json::{Map, Value, json};
use skilldeck::{AgentProfile, Catalog, LoadSkillTool, SavedSearch, SearchResults, Skill, SkillTool, ToolResult};

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
    match profile {
        Some(profile) => answer(args, LoadSkillTool::NAME, |query, ranked| catalog.view(profile).search(query, ranked)),
        None => answer(args, SkillTool::NAME, |query, ranked| catalog.search(query, ranked)),
    }
}

/// Runs `find_skills` over the last run's saved index (a server with no
/// agent), as [`call`] over the catalog that was saved.
pub(crate) fn call_saved(saved: &SavedSearch, args: &Value) -> ToolResult {
    answer(args, SkillTool::NAME, |query, ranked| saved.search(query, ranked))
}

/// The answer to `args`, ranked by `search` and loaded with `load_tool`.
fn answer<'c>(args: &Value, load_tool: &str, search: impl FnOnce(&str, usize) -> SearchResults<'c>) -> ToolResult {
    let (query, limit) = match arguments(args) {
        Ok(arguments) => arguments,
        Err(message) => return ToolResult::error(message),
    };
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    // More than asked for, so that copies folded into a hit leave room for other skills.
    render(&search(query, limit.saturating_mul(FOLD_ROOM)), limit, load_tool)
}

/// How many times the hits asked for are ranked, for copies to fold into.
const FOLD_ROOM: usize = 3;

/// One line of the answer: a hit, and the lower hits with its very
/// description (a skill published again under another name), folded into it.
struct Line<'c> {
    skill: &'c Skill,
    description: String,
    copies: Vec<&'c str>,
}

/// The best `limit` hits, each with the lower hits whose description (its
/// whitespace runs made one space) is the same, in rank order.
fn fold<'c>(results: &SearchResults<'c>, limit: usize) -> Vec<Line<'c>> {
    let mut lines: Vec<Line<'c>> = Vec::new();
    for hit in &results.hits {
        let description = hit.skill.description().unwrap_or_default().split_whitespace().collect::<Vec<_>>().join(" ");
        let same = lines.iter().position(|line| !description.is_empty() && line.description == description);
        match same {
            Some(at) => lines[at].copies.push(hit.skill.name()),
            None if lines.len() < limit => lines.push(Line { skill: hit.skill, description, copies: Vec::new() }),
            None => {}
        }
    }
    lines
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
/// runs in the description made one space), at most `limit`, then how to
/// load one with `load_tool`; or, when the search abstained, that nothing
/// matches. Lower hits with the same description as a line's are named on
/// it, `(the same description: a, b)`, instead of taking lines of their own:
/// a registry holds many copies of a popular skill, and ten lines of one
/// skill tell the model nothing.
///
/// The query is not echoed (the model sent it; a 4 MB query made a 4 MB
/// answer), and no score is shown: BM25 scores compare hits of one query,
/// not queries, and read as `0.00` on some catalogs. The order says it.
fn render(results: &SearchResults<'_>, limit: usize, load_tool: &str) -> ToolResult {
    let answer = |output| ToolResult { output, is_error: false, metadata: None };
    let Some(best) = results.hits.first().filter(|_| !results.abstained) else {
        return answer(NO_MATCH.to_owned());
    };
    let mut text = String::from("Skills that match, best first:\n");
    for (rank, line) in fold(results, limit).iter().enumerate() {
        text.push_str(&format!("{}. {}: {}", rank + 1, line.skill.name(), line.description));
        if !line.copies.is_empty() {
            text.push_str(&format!(" (the same description: {})", line.copies.join(", ")));
        }
        text.push('\n');
    }
    let example = Value::String(best.skill.name().to_owned()).to_string();
    text.push_str(&format!("\nLoad one with the {load_tool} tool: {{\"name\": {example}}}."));
    answer(text)
}

/// What `find_skills` says when no skill matches the query well.
const NO_MATCH: &str = "No skill matches these words well. Try other words, or go on without a skill.";

#[cfg(test)]
mod tests {
    use super::*;
    use skilldeck::SkillDef;

    #[test]
    fn copies_of_a_skill_fold_into_its_line_and_leave_room_for_others() {
        let pdf = "Fill in PDF forms and flatten them.";
        let catalog = Catalog::builder()
            .skill(SkillDef::new("pdf-forms").description(pdf))
            .skill(SkillDef::new("pdf-forms-2").description(format!(" {pdf}\n")))
            .skill(SkillDef::new("pdf-forms-3").description(pdf))
            .skill(SkillDef::new("pdf-merge").description("Merge PDF files into one PDF."))
            .skill(SkillDef::new("weather").description("Forecasts."))
            .build();
        let found = call(&catalog, None, &json!({"query": "pdf forms", "limit": 2}));
        assert_eq!(
            found.output,
            "Skills that match, best first:\n\
             1. pdf-forms: Fill in PDF forms and flatten them. (the same description: pdf-forms-2, pdf-forms-3)\n\
             2. pdf-merge: Merge PDF files into one PDF.\n\
             \n\
             Load one with the skill tool: {\"name\": \"pdf-forms\"}."
        );
    }
}
