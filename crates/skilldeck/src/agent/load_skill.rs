//! Level 2 for agents: Insika's `load_skill` tool, which serves the lazy
//! skills of one agent's view and nothing else.

use serde_json::Value;

use super::{AgentProfile, AgentView, is_lazy};
use crate::catalog::Catalog;
use crate::model::Skill;
use crate::render::tagged;
use crate::text::ruby_strip;
use crate::tool::{ToolDeclaration, ToolResult, name_argument};

/// The `load_skill` tool of one agent over one snapshot. The names it serves
/// are the view's lazy skills, fixed when the tool is made: an eager skill is
/// already in the prompt, a skill the agent may not use is not its to load.
///
/// # Example
///
/// ```
/// use serde_json::json;
/// use skilldeck::{AgentProfile, Catalog, LoadSkillTool, SkillDef};
///
/// let catalog = Catalog::builder().skill(SkillDef::new("cardapio").content("\nCORPO\n")).build();
/// let profile = AgentProfile::new("loja").allow(["cardapio"]);
/// let tool = LoadSkillTool::new(&catalog.view(&profile));
/// assert_eq!(tool.call(&json!({"name": "cardapio"})).output, "CORPO");
/// let refused = tool.call(&json!({"name": "pedido"}));
/// assert!(refused.is_error);
/// assert_eq!(refused.output, "skill 'pedido' not available for this agent");
/// assert_eq!(LoadSkillTool::new(&catalog.view(&AgentProfile::new("x"))).load("pedido").output, "skill 'pedido' not found");
/// ```
#[derive(Clone, Debug)]
pub struct LoadSkillTool {
    catalog: Catalog,
    profile: AgentProfile,
}

impl LoadSkillTool {
    /// The tool's name.
    pub const NAME: &'static str = "load_skill";

    /// The tool's description.
    pub const DESCRIPTION: &'static str = "Loads the complete instructions (SKILL.md) of a skill by name";

    /// The tool for `view`: it serves the view's lazy skills.
    pub fn new(view: &AgentView<'_>) -> LoadSkillTool {
        LoadSkillTool { catalog: view.catalog().clone(), profile: view.profile().clone() }
    }

    /// The names it serves, in catalog order. A host offers the tool only
    /// when this is not empty.
    pub fn allowed(&self) -> Vec<&str> {
        self.catalog.view(&self.profile).lazy().into_iter().map(Skill::name).collect()
    }

    /// The declaration: name, description and input schema.
    pub fn declaration() -> ToolDeclaration {
        ToolDeclaration::taking_a_name(
            Self::NAME,
            Self::DESCRIPTION,
            "Exact skill name, as listed in <available_skills>",
        )
    }

    /// Runs the tool on a model's arguments (`{"name": "…"}`). Bad arguments
    /// and refusals are error results.
    pub fn call(&self, args: &Value) -> ToolResult {
        match name_argument(args, Self::NAME) {
            Ok(name) => self.load(name),
            Err(message) => ToolResult::error(message),
        }
    }

    /// Serves `name`: its trimmed body alone, or, when it has allowed
    /// companions, `<skill name>` blocks of it and them (one level).
    pub fn load(&self, name: &str) -> ToolResult {
        if !self.allows(name) {
            return ToolResult::error(format!("skill '{name}' not available for this agent"));
        }
        let Some(skill) = self.find(name) else {
            return ToolResult::error(format!("skill '{name}' not found"));
        };
        if let Err(error) = skill.body() {
            return ToolResult::error(format!("skill '{name}' could not be read: {error}"));
        }
        let mut served: Vec<&Skill> = vec![skill];
        for companion in skill.companions() {
            if companion != name && self.allows(companion) && served.iter().all(|s| s.name() != companion) {
                served.extend(self.find(companion).filter(|c| c.servable()));
            }
        }
        let output = match served.as_slice() {
            [only] => ruby_strip(only.body().unwrap_or_default()).to_owned(),
            all => all.iter().map(|s| tagged("skill", s)).collect::<Vec<_>>().join("\n\n"),
        };
        ToolResult { output, is_error: false, metadata: None }
    }

    /// The profile's rule alone: an allowed, non-eager name the snapshot
    /// does not have is "not found", not "not available".
    fn allows(&self, name: &str) -> bool {
        is_lazy(&self.profile, name)
    }

    fn find(&self, name: &str) -> Option<&Skill> {
        self.catalog.find_for(&self.profile.id, name)
    }
}
