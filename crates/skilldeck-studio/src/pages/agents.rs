//! The agents: the list, a new profile, one agent's allowlist and the
//! preview of what it sees (its skill list in each format within a budget,
//! what a message injects), and deleting a profile (the CLI's `store
//! profile ID --delete`).

use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use skilldeck::{AgentProfile, Budget, Eager, NameKind, Skill, authoring, render};

use super::{Ctx, Refusal, agent_href, answer, confirmed, key, own_href, redirect};
use crate::Studio;
use crate::flash::Flash;
use crate::form;
use crate::views::{AgentPage, AgentRow, AgentsPage, Choice, SkillBox, page};

/// The budget `skilldeck serve` fits its instructions in by default (the
/// MCP crate's `DEFAULT_BUDGET`; the Studio does not depend on the server).
const SERVE_BUDGET: &str = "2000c";

/// The search tool a cut level 1 names, as `serve` offers it.
const SEARCH_TOOL: &str = "find_skills";

/// The formats of the skill list, `skilldeck prompt --format`'s values,
/// each said in words.
const FORMATS: [(&str, &str); 3] = [
    ("insika", "This agent's list (insika): the skills it loads on demand, in <available_skills> XML"),
    ("toolnexus", "Every skill as a Markdown list (toolnexus), as served without an agent"),
    ("agentskills", "Every skill in the Agent Skills standard's XML (agentskills), as served without an agent"),
];

#[derive(Deserialize)]
pub(crate) struct PreviewQuery {
    format: Option<String>,
    budget: Option<String>,
    message: Option<String>,
}

pub(crate) fn eager_text(eager: &Eager) -> String {
    match eager {
        Eager::None => "none".into(),
        Eager::All => "every allowed skill".into(),
        Eager::Names(names) if names.is_empty() => "none".into(),
        Eager::Names(names) => names.join(", "),
    }
}

/// `(text, report)` of a fitted level 1.
fn split(fitted: skilldeck::Fitted<'_>) -> (String, Option<String>) {
    let report = fitted.report.to_string();
    (fitted.text, Some(report))
}

impl Studio {
    fn agents_page(&self, ctx: &Ctx) -> Result<Response, Refusal> {
        let agents = self
            .profiles()?
            .into_iter()
            .map(|(p, stored)| AgentRow {
                id: p.id.clone(),
                href: agent_href(&p.id),
                summary: format!(
                    "may use {}; eager: {}{}",
                    match &p.skills {
                        None => "every skill".to_owned(),
                        Some(list) => format!("{} skill(s)", list.len()),
                    },
                    eager_text(&p.eager),
                    if stored { "" } else { " (from the --agents file)" }
                ),
            })
            .collect();
        Ok(page(StatusCode::OK, &AgentsPage { chrome: self.chrome(ctx, None), agents }))
    }

    fn add_agent(&self, body: &[u8]) -> Result<Response, Refusal> {
        let fields = form::parse(body);
        let id = form::first(&fields, "id").unwrap_or("").trim().to_owned();
        key(&id, NameKind::Agent)?;
        let mut added = false;
        self.store()?.update_profiles(&mut |profiles| {
            if !profiles.iter().any(|p| p.id == id) {
                profiles.push(AgentProfile::new(id.clone()));
                added = true;
            }
        })?;
        Ok(match added {
            true => redirect(&agent_href(&id), &format!("Agent {id} added."), false),
            false => redirect(&agent_href(&id), &format!("agent '{id}' already exists"), true),
        })
    }

    /// Deletes agent `id`'s stored profile with its history; its own
    /// versions of skills are records and stay, as the CLI leaves them.
    fn delete_agent(&self, id: &str, body: &[u8]) -> Result<Response, Refusal> {
        key(id, NameKind::Agent)?;
        confirmed(&form::parse(body))?;
        authoring::delete_agent(self.store()?, id)?;
        let own = self.inner.live.snapshot().agent_skills(id).len();
        let mut text = format!("Agent {id} deleted, with its profile's history.");
        if own > 0 {
            text.push_str(&format!(
                " Its own versions of {own} skill(s) stay in the store (`skilldeck store delete NAME --agent {id}` removes one)."
            ));
        }
        if self.inner.file_profiles.iter().any(|p| p.id == id) {
            text.push_str(" The --agents file still has a profile of this id, shown read-only.");
        }
        Ok(redirect("/agents", &text, false))
    }

    fn agent_page(&self, ctx: &Ctx, id: &str, query: &PreviewQuery) -> Result<Response, Refusal> {
        let (profile, stored) = self
            .profiles()?
            .into_iter()
            .find(|(p, _)| p.id == id)
            .ok_or_else(|| Refusal::not_found(format!("agent '{id}' not found")))?;
        let catalog = self.inner.live.snapshot();
        let view = catalog.view(&profile);
        let mut shared: Vec<&Skill> = catalog.skills().collect();
        shared.sort_unstable_by(|a, b| a.name().cmp(b.name()));
        let skills = shared
            .iter()
            .enumerate()
            .map(|(i, s)| SkillBox {
                name: s.name().to_owned(),
                input_id: format!("skill-{i}"),
                checked: profile.skills.as_ref().is_some_and(|list| list.iter().any(|n| n == s.name())),
            })
            .collect();
        let own = catalog.agent_skills(id).iter().map(|s| (s.name().to_owned(), own_href(id, s.name()))).collect();
        let format = query.format.as_deref().unwrap_or("insika");
        let formats = FORMATS
            .into_iter()
            .map(|(value, label)| Choice { value: value.into(), label: label.into(), selected: value == format })
            .collect();
        // A first visit previews what `serve` sends by default; an emptied field, no budget.
        let budget_text = query.budget.as_deref().map_or(SERVE_BUDGET, str::trim);
        let mut outcome = None;
        let budget = match budget_text {
            "" => None,
            text => match text.parse::<Budget>() {
                Ok(budget) => Some(budget),
                Err(error) => {
                    outcome = Some(Refusal::invalid(error.to_string()));
                    None
                }
            },
        };
        let lazy = view.lazy();
        let (level1, report) = match (format, budget) {
            ("toolnexus", None) => (render::toolnexus(&catalog), None),
            ("agentskills", None) => (render::agentskills(&catalog), None),
            (_, None) => (render::insika(&lazy), None),
            // As `serve` fits its instructions: closed by the line naming its search tool.
            ("toolnexus", Some(b)) => split(b.closed(SEARCH_TOOL, |b| b.toolnexus(&catalog))),
            ("agentskills", Some(b)) => split(b.closed(SEARCH_TOOL, |b| b.agentskills(&catalog))),
            (_, Some(b)) => split(b.closed(SEARCH_TOOL, |b| b.insika(&lazy))),
        };
        let report =
            report.unwrap_or_else(|| format!("no budget: the whole text, {} characters", level1.chars().count()));
        let format_note = match format {
            "toolnexus" | "agentskills" => {
                "This format lists the shared catalog as a host without an agent sees it (`skilldeck serve` without --agent): the agent's allowlist does not apply."
            }
            _ => {
                "What `skilldeck serve --agent` sends as its instructions: the skills this agent loads on demand with the `load_skill` tool (eager ones are injected instead); a budget that cuts ends the text with a line naming find_skills."
            }
        };
        let (inject, inject_content) = match &query.message {
            Some(message) => {
                let activations = view.activate(message);
                let labels = activations.iter().map(|a| (a.skill.name().to_owned(), a.reason.to_string())).collect();
                (Some(labels), render::active_skills(&activations))
            }
            None => (None, String::new()),
        };
        let status = outcome.as_ref().map_or(StatusCode::OK, |o| o.status);
        let flash = outcome.map(|o| Flash { text: o.message, error: true });
        let view = AgentPage {
            chrome: self.chrome(ctx, flash),
            id: id.to_owned(),
            stored,
            allowlist_action: format!("{}/skills", agent_href(id)),
            delete_action: format!("{}/delete", agent_href(id)),
            all_skills: profile.skills.is_none(),
            skills,
            own,
            eager: eager_text(&profile.eager),
            action: agent_href(id),
            formats,
            budget: budget_text.to_owned(),
            message: query.message.clone().unwrap_or_default(),
            format_note: format_note.to_owned(),
            level1,
            report,
            inject,
            inject_content,
        };
        Ok(page(status, &view))
    }

    fn update_allowlist(&self, id: &str, body: &[u8]) -> Result<Response, Refusal> {
        key(id, NameKind::Agent)?;
        let fields = form::parse(body);
        let skills = match form::first(&fields, "all_skills") {
            Some("1") => None,
            _ => Some(form::all(&fields, "skills")),
        };
        authoring::update_agent(self.store()?, id, skills)?;
        Ok(redirect(&agent_href(id), "Skills updated.", false))
    }
}

pub(crate) async fn agents(State(studio): State<Studio>, ctx: Ctx) -> Response {
    answer(studio, ctx, None, |s, ctx| s.agents_page(ctx)).await
}

pub(crate) async fn add_agent(State(studio): State<Studio>, ctx: Ctx, body: Bytes) -> Response {
    answer(studio, ctx, Some("/agents".into()), move |s, _| s.add_agent(&body)).await
}

pub(crate) async fn agent(
    State(studio): State<Studio>,
    ctx: Ctx,
    Path(id): Path<String>,
    Query(query): Query<PreviewQuery>,
) -> Response {
    answer(studio, ctx, Some("/agents".into()), move |s, ctx| s.agent_page(ctx, &id, &query)).await
}

pub(crate) async fn update_allowlist(
    State(studio): State<Studio>,
    ctx: Ctx,
    Path(id): Path<String>,
    body: Bytes,
) -> Response {
    answer(studio, ctx, Some(agent_href(&id)), move |s, _| s.update_allowlist(&id, &body)).await
}

pub(crate) async fn delete_agent(
    State(studio): State<Studio>,
    ctx: Ctx,
    Path(id): Path<String>,
    body: Bytes,
) -> Response {
    answer(studio, ctx, Some(agent_href(&id)), move |s, _| s.delete_agent(&id, &body)).await
}
