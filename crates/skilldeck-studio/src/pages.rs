//! The routes: each reads one catalog snapshot (and the store), or runs
//! one authoring command and redirects with a flash (Insika's texts,
//! reference §9.5). Store and catalog calls block (SQLite, PostgreSQL's
//! own runtime), so every handler runs them on the blocking pool.

use std::collections::HashSet;
use std::path::PathBuf;

use axum::body::Bytes;
use axum::extract::{FromRequestParts, Path, Query, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use serde::Deserialize;
use serde_json::{Value, json};
use similar::{ChangeTag, TextDiff};
use skilldeck::authoring::{self, AuthoringError, WriteSkill};
use skilldeck::store::{Precondition, SkillStore, StoreError};
use skilldeck::validate::{Check, Validator};
use skilldeck::{AgentProfile, Budget, Catalog, Eager, NameError, NameKind, Origin, Skill, Source, check_name, render};

use crate::flash::{Flash, encode_flash};
use crate::form::{self, encode};
use crate::guard::Csrf;
use crate::source::{TEMPLATE_NAME, reconstruct, template};
use crate::views::{
    AgentPage, AgentRow, AgentsPage, Choice, Chrome, DiagnosticRow, DiffLine, DiffPage, EditorPage, ErrorPage, Grid,
    GridRow, SkillBox, SkillRow, SkillsPage, VersionRow, page,
};
use crate::{PAGE_SIZE, Studio};

/// What the checks in front left for the page: its CSRF token and flash.
pub(crate) struct Ctx {
    csrf: String,
    flash: Option<Flash>,
}

impl<S: Send + Sync> FromRequestParts<S> for Ctx {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Ctx, Self::Rejection> {
        let csrf = parts.extensions.get::<Csrf>().map(|c| c.0.clone()).unwrap_or_default();
        Ok(Ctx { csrf, flash: parts.extensions.get::<Flash>().cloned() })
    }
}

/// Runs `work` on the blocking pool.
async fn blocking(work: impl FnOnce() -> Response + Send + 'static) -> Response {
    tokio::task::spawn_blocking(work).await.unwrap_or_else(|error| {
        tracing::error!("a request failed: {error}");
        (StatusCode::INTERNAL_SERVER_ERROR, "Internal Server Error\n").into_response()
    })
}

/// 303 to `to`, leaving `text` as the next page's flash.
fn redirect(to: &str, text: &str, error: bool) -> Response {
    let mut response = Redirect::to(to).into_response();
    if let Ok(cookie) = HeaderValue::from_str(&encode_flash(text, error)) {
        response.headers_mut().append(header::SET_COOKIE, cookie);
    }
    response
}

fn skill_href(name: &str) -> String {
    format!("/skills/{}", encode(name))
}

fn agent_href(id: &str) -> String {
    format!("/agents/{}", encode(id))
}

fn own_href(id: &str, name: &str) -> String {
    format!("/agents/{}/skills/{}", encode(id), encode(name))
}

/// A form's text as the Studio keeps it: browsers send a textarea's line
/// breaks as CRLF, and a `SKILL.md` written here has LF ones.
fn lf(text: &str) -> String {
    text.replace("\r\n", "\n")
}

/// Why a request could not be carried out, as a status and a message.
struct Refusal {
    status: StatusCode,
    message: String,
}

impl Refusal {
    fn new(status: StatusCode, message: impl Into<String>) -> Refusal {
        Refusal { status, message: message.into() }
    }

    fn no_store() -> Refusal {
        Refusal::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "This Studio has no store, so it cannot save: start it with --store FILE.sqlite",
        )
    }
}

impl From<StoreError> for Refusal {
    fn from(error: StoreError) -> Refusal {
        let status = match &error {
            StoreError::Conflict { .. } | StoreError::AlreadyExists { .. } => StatusCode::CONFLICT,
            StoreError::NotFound { .. } | StoreError::NoSuchVersion { .. } => StatusCode::NOT_FOUND,
            StoreError::InvalidProfile(_) | StoreError::InvalidName(_) => StatusCode::UNPROCESSABLE_ENTITY,
            _ => StatusCode::SERVICE_UNAVAILABLE,
        };
        Refusal::new(status, error.to_string())
    }
}

impl From<NameError> for Refusal {
    fn from(error: NameError) -> Refusal {
        Refusal::new(StatusCode::UNPROCESSABLE_ENTITY, error.to_string())
    }
}

impl From<AuthoringError> for Refusal {
    fn from(error: AuthoringError) -> Refusal {
        match error {
            AuthoringError::Store(error) => error.into(),
            AuthoringError::NoStore => Refusal::no_store(),
            error @ (AuthoringError::NotFound { .. } | AuthoringError::ProfileNotFound { .. }) => {
                Refusal::new(StatusCode::NOT_FOUND, error.to_string())
            }
            error => Refusal::new(StatusCode::UNPROCESSABLE_ENTITY, error.to_string()),
        }
    }
}

/// What the user sent from an editor, shown again when a save is refused.
struct Draft {
    content: String,
    began: String,
    /// The text saved meanwhile, for a conflict.
    theirs: Option<String>,
}

impl Studio {
    fn chrome(&self, ctx: &Ctx, flash: Option<Flash>) -> Chrome {
        Chrome {
            csrf: ctx.csrf.clone(),
            flash: flash.or_else(|| ctx.flash.clone()),
            read_only: self.inner.store.is_none(),
        }
    }

    fn store(&self) -> Result<&dyn SkillStore, Refusal> {
        self.inner.store.as_deref().ok_or_else(Refusal::no_store)
    }

    fn error_page(&self, ctx: &Ctx, refusal: Refusal, back: Option<String>) -> Response {
        let title = refusal.status.canonical_reason().unwrap_or("Error").to_owned();
        let chrome = self.chrome(ctx, Some(Flash { text: refusal.message, error: true }));
        page(refusal.status, &ErrorPage { chrome, title, back })
    }

    /// Every profile: the store's (`true`), then the `--agents` file's
    /// whose id the store does not have (`false`), by id.
    fn profiles(&self) -> Result<Vec<(AgentProfile, bool)>, StoreError> {
        let mut all: Vec<(AgentProfile, bool)> = match &self.inner.store {
            Some(store) => store.profiles()?.into_iter().map(|p| (p, true)).collect(),
            None => Vec::new(),
        };
        for profile in &self.inner.file_profiles {
            if !all.iter().any(|(p, _)| p.id == profile.id) {
                all.push((profile.clone(), false));
            }
        }
        all.sort_by(|a, b| a.0.id.cmp(&b.0.id));
        Ok(all)
    }

    /// The text a shared skill's editor (and a specialisation) starts
    /// from, whether it is the store's, and a note saying where it came from.
    fn shared_source(&self, catalog: &Catalog, name: &str) -> Result<Option<(String, bool, String)>, Refusal> {
        if let Some(store) = &self.inner.store
            && let Some(record) = store.get(name, None)?
        {
            let note = format!("From the store, saved {}.", record.updated_at);
            return Ok(Some((record.content, true, note)));
        }
        let Some(skill) = catalog.get(name) else { return Ok(None) };
        let text = reconstruct(skill)
            .map_err(|e| Refusal::new(StatusCode::INTERNAL_SERVER_ERROR, format!("{}: {e}", skill.location())))?;
        let note = format!(
            "Rebuilt from {} (name, description, triggers, companions and body): saving puts a record in the store that takes its place.",
            skill.location()
        );
        Ok(Some((text, false, note)))
    }

    /// The precondition of a save whose edit began from `began`: none yet
    /// (empty), else that text, compared as the browser sent it back (its
    /// line breaks may have changed on the way).
    fn precondition(&self, name: &str, agent: Option<&str>, began: &str) -> Result<Precondition, Refusal> {
        if began.is_empty() {
            return Ok(Precondition::Absent);
        }
        let current = self.store()?.get(name, agent)?;
        Ok(match current {
            Some(record) if lf(&record.content) == lf(began) => Precondition::Unchanged(record.content),
            _ => Precondition::Unchanged(lf(began)),
        })
    }

    fn list_page(&self, ctx: &Ctx, query: &ListQuery) -> Response {
        let catalog = self.inner.live.snapshot();
        let q = query.q.as_deref().map(str::trim).unwrap_or("");
        let mut skills: Vec<&Skill> = catalog.skills().collect();
        skills.sort_unstable_by(|a, b| a.name().cmp(b.name()));
        if !q.is_empty() {
            // Names containing the text first (what a person typing part of a
            // name expects), then the engine's ranked search.
            let needle = q.to_lowercase();
            let mut matched: Vec<&Skill> =
                skills.iter().copied().filter(|s| s.name().to_lowercase().contains(&needle)).collect();
            let seen: HashSet<&str> = matched.iter().map(|s| s.name()).collect();
            let found = catalog.search(q, 200);
            matched.extend(found.hits.iter().map(|h| h.skill).filter(|s| !seen.contains(s.name())));
            skills = matched;
        }
        let total = skills.len();
        let pages = total.div_ceil(PAGE_SIZE).max(1);
        let page_no = query.page.as_deref().and_then(|p| p.parse::<usize>().ok()).unwrap_or(1).clamp(1, pages);
        let over_store: HashSet<&str> = catalog
            .shadowed()
            .iter()
            .filter(|s| matches!(s.winner_source, Source::Store) && matches!(s.source, Source::Root(_)))
            .map(|s| s.skill.name())
            .collect();
        let rows = skills
            .iter()
            .skip((page_no - 1) * PAGE_SIZE)
            .take(PAGE_SIZE)
            .map(|s| SkillRow {
                name: s.name().to_owned(),
                href: skill_href(s.name()),
                description: s.description().unwrap_or("").to_owned(),
                origin: match s.origin() {
                    Origin::Fs { .. } => "disk",
                    Origin::Store { .. } if over_store.contains(s.name()) => "store, over disk",
                    Origin::Store { .. } => "store",
                    _ => "data",
                },
            })
            .collect();
        let link = |n: usize| match q {
            "" => format!("/skills?page={n}"),
            q => format!("/skills?q={}&page={n}", encode(q)),
        };
        let summary = match (q, total) {
            ("", 1) => "1 skill.".to_owned(),
            ("", n) => format!("{n} skills, page {page_no} of {pages}."),
            (_, 0) => "No skill matches.".to_owned(),
            (_, n) => format!("{n} matching, page {page_no} of {pages}."),
        };
        let skips = catalog
            .skips()
            .iter()
            .map(|s| {
                let problem = match &s.detail {
                    Some(detail) => format!("{}: {detail}", s.reason),
                    None => s.reason.to_string(),
                };
                (s.location.clone(), problem)
            })
            .collect();
        let view = SkillsPage {
            chrome: self.chrome(ctx, None),
            q: q.to_owned(),
            summary,
            rows,
            prev: (page_no > 1).then(|| link(page_no - 1)),
            next: (page_no < pages).then(|| link(page_no + 1)),
            skips,
            warnings: catalog.warnings().iter().map(ToString::to_string).collect(),
        };
        page(StatusCode::OK, &view)
    }

    /// The shared skill's editor (`new`: the template for a new skill).
    fn shared_editor(
        &self,
        ctx: &Ctx,
        name: &str,
        new: bool,
        draft: Option<Draft>,
        outcome: Option<Refusal>,
    ) -> Result<Response, Refusal> {
        let catalog = self.inner.live.snapshot();
        let source = if new { None } else { self.shared_source(&catalog, name)? };
        let exists = source.is_some();
        let (mut content, mut began, note) = match source {
            Some((text, true, note)) => (text.clone(), text, note),
            Some((text, false, note)) => (text, String::new(), note),
            None if new => (template(name), String::new(), "A new skill, from the template.".to_owned()),
            None => (template(name), String::new(), format!("No skill is named {name} yet: this is the template.")),
        };
        let mut theirs = None;
        if let Some(draft) = draft {
            (content, began, theirs) = (draft.content, draft.began, draft.theirs);
        }
        let keyed = exists && check_name(name, NameKind::Skill).is_ok();
        let mut grid = None;
        let mut history = None;
        let profiles = self.profiles()?;
        if keyed && let Some(store) = &self.inner.store {
            let rows = profiles
                .iter()
                .filter(|(_, stored)| *stored)
                .map(|(p, _)| GridRow {
                    id: p.id.clone(),
                    href: agent_href(&p.id),
                    allowed: p.allows(name),
                    all_skills: p.skills.is_none(),
                    eager: p.is_eager(name),
                    eager_all: p.eager == Eager::All,
                    own: catalog.agent_skills(&p.id).iter().any(|s| s.name() == name).then(|| own_href(&p.id, name)),
                })
                .collect();
            grid = Some(Grid {
                action: format!("{}/agents", skill_href(name)),
                specialize: format!("{}/specialize", skill_href(name)),
                rows,
            });
            history = Some(history_rows(store.as_ref(), None, name)?);
        }
        let previews = profiles
            .iter()
            .map(|(p, _)| {
                (
                    format!("{}: level 1 and injected skills", p.id),
                    format!("{}?format=insika&message=", agent_href(&p.id)),
                )
            })
            .collect();
        let status = outcome.as_ref().map_or(StatusCode::OK, |o| o.status);
        let flash = outcome.map(|o| Flash { text: o.message, error: true });
        let view = EditorPage {
            chrome: self.chrome(ctx, flash),
            title: if exists { name.to_owned() } else { "New skill".to_owned() },
            action: "/skills".to_owned(),
            name: name.to_owned(),
            name_locked: !began.is_empty(),
            diagnostics: diagnostics(&content, Some(name)),
            rendered: crate::markdown::render(crate::markdown::body_of(&content)),
            content,
            began,
            source_note: note,
            pill: None,
            theirs,
            grid,
            history,
            previews,
            remove: None,
            shared_href: None,
        };
        Ok(page(status, &view))
    }

    /// An agent's own version of a skill (or, before it has one, the
    /// shared source it would start from).
    fn own_editor(
        &self,
        ctx: &Ctx,
        id: &str,
        name: &str,
        draft: Option<Draft>,
        outcome: Option<Refusal>,
    ) -> Result<Response, Refusal> {
        let catalog = self.inner.live.snapshot();
        let own = match &self.inner.store {
            Some(store) => store.get(name, Some(id))?,
            None => None,
        };
        let (mut content, mut began, note, pill, remove) = match own {
            Some(record) => (
                record.content.clone(),
                record.content,
                format!("{id}'s own version, saved {}.", record.updated_at),
                Some(format!("specialized for {id}")),
                Some(format!("{}/delete", own_href(id, name))),
            ),
            None => {
                let (text, _, _) = self
                    .shared_source(&catalog, name)?
                    .ok_or_else(|| Refusal::new(StatusCode::NOT_FOUND, format!("skill '{name}' not found")))?;
                let note = format!("{id} has no own version of {name}: this is the shared text, and saving makes one.");
                (text, String::new(), note, None, None)
            }
        };
        let mut theirs = None;
        if let Some(draft) = draft {
            (content, began, theirs) = (draft.content, draft.began, draft.theirs);
        }
        let status = outcome.as_ref().map_or(StatusCode::OK, |o| o.status);
        let flash = outcome.map(|o| Flash { text: o.message, error: true });
        let view = EditorPage {
            chrome: self.chrome(ctx, flash),
            title: format!("{name} for {id}"),
            action: own_href(id, name),
            name: name.to_owned(),
            name_locked: true,
            diagnostics: diagnostics(&content, Some(name)),
            rendered: crate::markdown::render(crate::markdown::body_of(&content)),
            content,
            began,
            source_note: note,
            pill,
            theirs,
            grid: None,
            history: match (&self.inner.store, &remove) {
                (Some(store), Some(_)) => Some(history_rows(store.as_ref(), Some(id), name)?),
                _ => None,
            },
            previews: vec![(
                format!("{id}: level 1 and injected skills"),
                format!("{}?format=insika&message=", agent_href(id)),
            )],
            remove,
            shared_href: Some(skill_href(name)),
        };
        Ok(page(status, &view))
    }

    fn save(&self, ctx: &Ctx, agent: Option<&str>, url_name: Option<&str>, body: &[u8]) -> Response {
        let fields = form::parse(body);
        let name = url_name.unwrap_or_else(|| form::first(&fields, "name").unwrap_or("")).trim().to_owned();
        let content = lf(form::first(&fields, "content").unwrap_or(""));
        let began = form::first(&fields, "began").unwrap_or("").to_owned();
        let attempt = || -> Result<(), Refusal> {
            check_name(&name, NameKind::Skill)?;
            if let Some(agent) = agent {
                check_name(agent, NameKind::Agent)?;
            }
            self.store()?;
            let precondition = self.precondition(&name, agent, &began)?;
            let mut request = WriteSkill::new(&name, content.as_str()).precondition(precondition);
            request.agent = agent.map(str::to_owned);
            self.inner.live.write_skill(&request)?;
            Ok(())
        };
        match (attempt(), agent) {
            (Ok(()), None) => redirect(&skill_href(&name), "Skill saved.", false),
            (Ok(()), Some(agent)) => redirect(&own_href(agent, &name), "Specialization saved.", false),
            (Err(refusal), agent) => {
                let theirs = (refusal.status == StatusCode::CONFLICT)
                    .then(|| self.inner.store.as_ref()?.get(&name, agent).ok().flatten().map(|r| r.content))
                    .flatten();
                let draft = Draft { content, began, theirs };
                let shown = match agent {
                    None => self.shared_editor(ctx, &name, false, Some(draft), Some(refusal)),
                    Some(agent) => self.own_editor(ctx, agent, &name, Some(draft), Some(refusal)),
                };
                shown.unwrap_or_else(|refusal| self.error_page(ctx, refusal, None))
            }
        }
    }

    fn set_agents(&self, name: &str, body: &[u8]) -> Result<Response, Refusal> {
        check_name(name, NameKind::Skill)?;
        let fields = form::parse(body);
        let (agent_ids, eager_ids) = (form::all(&fields, "agent_ids"), form::all(&fields, "eager_ids"));
        let done = authoring::set_skill_agents_in(self.store()?, name, &agent_ids, Some(&eager_ids))?;
        let mut parts = Vec::new();
        if !done.skipped_all.is_empty() {
            parts.push(format!("{} agent(s) with 'all' skills were left intact", done.skipped_all.len()));
        }
        if !done.skipped_eager_all.is_empty() {
            parts.push(format!("{} agent(s) with blanket eager were left intact", done.skipped_eager_all.len()));
        }
        let mut text = "Skill's agents updated.".to_owned();
        if !parts.is_empty() {
            text.push_str(&format!(" — {}.", parts.join(", ")));
        }
        Ok(redirect(&skill_href(name), &text, false))
    }

    fn specialize(&self, name: &str, body: &[u8]) -> Result<Response, Refusal> {
        let fields = form::parse(body);
        let agent = form::first(&fields, "agent_id").unwrap_or("").trim().to_owned();
        check_name(name, NameKind::Skill)?;
        check_name(&agent, NameKind::Agent)?;
        self.store()?;
        let catalog = self.inner.live.snapshot();
        let (seed, _, _) = self
            .shared_source(&catalog, name)?
            .ok_or_else(|| Refusal::new(StatusCode::NOT_FOUND, format!("skill '{name}' not found")))?;
        // Never over an agent's own text: specialising twice opens the first.
        let request = WriteSkill::new(name, seed).agent(&agent).precondition(Precondition::Absent);
        match self.inner.live.write_skill(&request) {
            Ok(_) => Ok(redirect(&own_href(&agent, name), &format!("Specialized for {agent}."), false)),
            Err(AuthoringError::Store(error @ StoreError::AlreadyExists { .. })) => {
                Ok(redirect(&own_href(&agent, name), &error.to_string(), true))
            }
            Err(error) => Err(error.into()),
        }
    }

    fn remove_own(&self, id: &str, name: &str) -> Result<Response, Refusal> {
        self.store()?;
        self.inner.live.delete_skill(name, Some(id))?;
        Ok(redirect(&skill_href(name), "Specialization removed — the agent falls back to the shared skill.", false))
    }

    fn agents_page(&self, ctx: &Ctx) -> Result<Response, Refusal> {
        let agents = self
            .profiles()?
            .into_iter()
            .map(|(p, stored)| AgentRow {
                id: p.id.clone(),
                href: agent_href(&p.id),
                summary: format!(
                    "{}; always on: {}{}",
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
        check_name(&id, NameKind::Agent)?;
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

    fn agent_page(&self, ctx: &Ctx, id: &str, query: &PreviewQuery) -> Result<Response, Refusal> {
        let (profile, stored) = self
            .profiles()?
            .into_iter()
            .find(|(p, _)| p.id == id)
            .ok_or_else(|| Refusal::new(StatusCode::NOT_FOUND, format!("agent '{id}' not found")))?;
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
        let formats = [
            ("insika", "insika: this agent's level 1 (its lazy skills)"),
            ("toolnexus", "toolnexus: the shared catalog, without an agent"),
            ("agentskills", "agentskills (XML): the shared catalog, without an agent"),
        ]
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
                    outcome = Some(Refusal::new(StatusCode::UNPROCESSABLE_ENTITY, error.to_string()));
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
                "This format lists the shared catalog as a host without an agent sees it: the agent's allowlist does not apply."
            }
            _ => {
                "What `skilldeck serve --agent` sends as its instructions: the skills this agent loads on demand (always-on ones are injected instead); a budget that cuts ends the text with a line naming find_skills."
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
        check_name(id, NameKind::Agent)?;
        let fields = form::parse(body);
        let skills = match form::first(&fields, "all_skills") {
            Some("1") => None,
            _ => Some(form::all(&fields, "skills")),
        };
        authoring::update_agent(self.store()?, id, skills)?;
        Ok(redirect(&agent_href(id), "Skills updated.", false))
    }

    fn version_page(&self, ctx: &Ctx, agent: Option<&str>, name: &str, index: &str) -> Result<Response, Refusal> {
        let store = self.store()?;
        let not_found = || Refusal::new(StatusCode::NOT_FOUND, format!("version {index} does not exist"));
        let i: usize = index.parse().map_err(|_| not_found())?;
        let versions = store.versions(name, agent)?;
        let version = versions.get(i).ok_or_else(not_found)?;
        let current = store.get(name, agent)?.map(|r| r.content).unwrap_or_default();
        let diff = TextDiff::from_lines(version.content.as_str(), current.as_str());
        let lines: Vec<DiffLine> = diff
            .iter_all_changes()
            .map(|change| DiffLine {
                kind: match change.tag() {
                    ChangeTag::Delete => "del",
                    ChangeTag::Insert => "ins",
                    ChangeTag::Equal => "eq",
                },
                text: change.value().trim_end_matches(['\n', '\r']).to_owned(),
            })
            .collect();
        let view = DiffPage {
            chrome: self.chrome(ctx, None),
            name: match agent {
                Some(agent) => format!("{name} for {agent}"),
                None => name.to_owned(),
            },
            index: i,
            at: version.at.clone(),
            back: record_href(agent, name),
            restore: format!("{}/versions/{i}/restore", record_href(agent, name)),
            same: lines.iter().all(|l| l.kind == "eq"),
            lines,
        };
        Ok(page(StatusCode::OK, &view))
    }

    fn restore(&self, agent: Option<&str>, name: &str, index: &str) -> Result<Response, Refusal> {
        let store = self.store()?;
        let i: i64 = index
            .parse()
            .map_err(|_| Refusal::new(StatusCode::NOT_FOUND, format!("version {index} does not exist")))?;
        store.restore(name, i, agent)?;
        self.inner.live.reload();
        Ok(redirect(&record_href(agent, name), &format!("Version {i} restored."), false))
    }
}

/// The budget `skilldeck serve` fits its instructions in by default (the
/// MCP crate's `DEFAULT_BUDGET`; the Studio does not depend on the server).
const SERVE_BUDGET: &str = "2000c";

/// The search tool a cut level 1 names, as `serve` offers it.
const SEARCH_TOOL: &str = "find_skills";

/// The page of a record: the shared skill's, or an agent's own version.
fn record_href(agent: Option<&str>, name: &str) -> String {
    match agent {
        Some(agent) => own_href(agent, name),
        None => skill_href(name),
    }
}

/// A record's earlier versions, most recent first, with their diff and
/// restore links.
fn history_rows(store: &dyn SkillStore, agent: Option<&str>, name: &str) -> Result<Vec<VersionRow>, StoreError> {
    let base = record_href(agent, name);
    let rows = store
        .versions(name, agent)?
        .into_iter()
        .enumerate()
        .map(|(index, v)| VersionRow {
            index,
            at: v.at,
            diff: format!("{base}/versions/{index}"),
            restore: format!("{base}/versions/{index}/restore"),
        })
        .collect();
    Ok(rows)
}

/// `(text, report)` of a fitted level 1.
fn split(fitted: skilldeck::Fitted<'_>) -> (String, Option<String>) {
    let report = fitted.report.to_string();
    (fitted.text, Some(report))
}

fn eager_text(eager: &Eager) -> String {
    match eager {
        Eager::None => "none".into(),
        Eager::All => "every allowed skill".into(),
        Eager::Names(names) if names.is_empty() => "none".into(),
        Eager::Names(names) => names.join(", "),
    }
}

/// The engine's checks of `content` as the `SKILL.md` of a skill keyed
/// `name` (its directory name, for the name check). Without a usable name
/// the directory check is left out.
fn diagnostics(content: &str, name: Option<&str>) -> Vec<DiagnosticRow> {
    let key = name.filter(|n| check_name(n, NameKind::Skill).is_ok());
    let path = PathBuf::from(key.unwrap_or("skill")).join("SKILL.md");
    Validator::new()
        .check_source(content.as_bytes(), &path)
        .into_iter()
        .filter(|d| key.is_some() || d.check != Check::NameDirectory)
        .map(|d| {
            let (line, column) = d.position.unwrap_or((0, 0));
            DiagnosticRow { line, column, severity: d.severity.as_str(), check: d.check.as_str(), message: d.message }
        })
        .collect()
}

#[derive(Deserialize)]
pub(crate) struct ListQuery {
    q: Option<String>,
    page: Option<String>,
}

#[derive(Deserialize)]
pub(crate) struct PreviewQuery {
    format: Option<String>,
    budget: Option<String>,
    message: Option<String>,
}

/// `POST /validate`'s body.
#[derive(Deserialize)]
pub(crate) struct ValidateRequest {
    content: String,
    #[serde(default)]
    name: Option<String>,
}

pub(crate) async fn root() -> Redirect {
    Redirect::to("/skills")
}

pub(crate) async fn list(State(studio): State<Studio>, ctx: Ctx, Query(query): Query<ListQuery>) -> Response {
    blocking(move || studio.list_page(&ctx, &query)).await
}

pub(crate) async fn new_skill(State(studio): State<Studio>, ctx: Ctx) -> Response {
    blocking(move || {
        studio.shared_editor(&ctx, TEMPLATE_NAME, true, None, None).unwrap_or_else(|r| studio.error_page(&ctx, r, None))
    })
    .await
}

pub(crate) async fn edit_shared(State(studio): State<Studio>, ctx: Ctx, Path(name): Path<String>) -> Response {
    blocking(move || {
        studio.shared_editor(&ctx, &name, false, None, None).unwrap_or_else(|r| studio.error_page(&ctx, r, None))
    })
    .await
}

pub(crate) async fn save_shared(State(studio): State<Studio>, ctx: Ctx, body: Bytes) -> Response {
    blocking(move || studio.save(&ctx, None, None, &body)).await
}

pub(crate) async fn set_agents(
    State(studio): State<Studio>,
    ctx: Ctx,
    Path(name): Path<String>,
    body: Bytes,
) -> Response {
    blocking(move || {
        studio.set_agents(&name, &body).unwrap_or_else(|r| studio.error_page(&ctx, r, Some(skill_href(&name))))
    })
    .await
}

pub(crate) async fn specialize(
    State(studio): State<Studio>,
    ctx: Ctx,
    Path(name): Path<String>,
    body: Bytes,
) -> Response {
    blocking(move || {
        studio.specialize(&name, &body).unwrap_or_else(|r| studio.error_page(&ctx, r, Some(skill_href(&name))))
    })
    .await
}

pub(crate) async fn edit_own(
    State(studio): State<Studio>,
    ctx: Ctx,
    Path((id, name)): Path<(String, String)>,
) -> Response {
    blocking(move || {
        studio.own_editor(&ctx, &id, &name, None, None).unwrap_or_else(|r| studio.error_page(&ctx, r, None))
    })
    .await
}

pub(crate) async fn save_own(
    State(studio): State<Studio>,
    ctx: Ctx,
    Path((id, name)): Path<(String, String)>,
    body: Bytes,
) -> Response {
    blocking(move || studio.save(&ctx, Some(&id), Some(&name), &body)).await
}

pub(crate) async fn remove_own(
    State(studio): State<Studio>,
    ctx: Ctx,
    Path((id, name)): Path<(String, String)>,
) -> Response {
    blocking(move || {
        studio.remove_own(&id, &name).unwrap_or_else(|r| studio.error_page(&ctx, r, Some(own_href(&id, &name))))
    })
    .await
}

pub(crate) async fn agents(State(studio): State<Studio>, ctx: Ctx) -> Response {
    blocking(move || studio.agents_page(&ctx).unwrap_or_else(|r| studio.error_page(&ctx, r, None))).await
}

pub(crate) async fn add_agent(State(studio): State<Studio>, ctx: Ctx, body: Bytes) -> Response {
    blocking(move || studio.add_agent(&body).unwrap_or_else(|r| studio.error_page(&ctx, r, Some("/agents".into()))))
        .await
}

pub(crate) async fn agent(
    State(studio): State<Studio>,
    ctx: Ctx,
    Path(id): Path<String>,
    Query(query): Query<PreviewQuery>,
) -> Response {
    blocking(move || {
        studio.agent_page(&ctx, &id, &query).unwrap_or_else(|r| studio.error_page(&ctx, r, Some("/agents".into())))
    })
    .await
}

pub(crate) async fn update_allowlist(
    State(studio): State<Studio>,
    ctx: Ctx,
    Path(id): Path<String>,
    body: Bytes,
) -> Response {
    blocking(move || {
        studio.update_allowlist(&id, &body).unwrap_or_else(|r| studio.error_page(&ctx, r, Some(agent_href(&id))))
    })
    .await
}

pub(crate) async fn version(
    State(studio): State<Studio>,
    ctx: Ctx,
    Path((name, index)): Path<(String, String)>,
) -> Response {
    blocking(move || {
        studio
            .version_page(&ctx, None, &name, &index)
            .unwrap_or_else(|r| studio.error_page(&ctx, r, Some(skill_href(&name))))
    })
    .await
}

pub(crate) async fn restore(
    State(studio): State<Studio>,
    ctx: Ctx,
    Path((name, index)): Path<(String, String)>,
) -> Response {
    blocking(move || {
        studio.restore(None, &name, &index).unwrap_or_else(|r| studio.error_page(&ctx, r, Some(skill_href(&name))))
    })
    .await
}

pub(crate) async fn own_version(
    State(studio): State<Studio>,
    ctx: Ctx,
    Path((id, name, index)): Path<(String, String, String)>,
) -> Response {
    blocking(move || {
        studio
            .version_page(&ctx, Some(&id), &name, &index)
            .unwrap_or_else(|r| studio.error_page(&ctx, r, Some(own_href(&id, &name))))
    })
    .await
}

pub(crate) async fn own_restore(
    State(studio): State<Studio>,
    ctx: Ctx,
    Path((id, name, index)): Path<(String, String, String)>,
) -> Response {
    blocking(move || {
        studio
            .restore(Some(&id), &name, &index)
            .unwrap_or_else(|r| studio.error_page(&ctx, r, Some(own_href(&id, &name))))
    })
    .await
}

pub(crate) async fn validate(body: Bytes) -> Response {
    let request: ValidateRequest = match serde_json::from_slice(&body) {
        Ok(request) => request,
        Err(error) => {
            let message = format!("Unprocessable Entity: expected {{\"content\": \"...\"}}: {error}\n");
            return (StatusCode::UNPROCESSABLE_ENTITY, message).into_response();
        }
    };
    let rows: Vec<Value> = diagnostics(&request.content, request.name.as_deref())
        .into_iter()
        .map(|d| {
            json!({"line": d.line, "column": d.column, "severity": d.severity, "check": d.check, "message": d.message})
        })
        .collect();
    axum::Json(Value::Array(rows)).into_response()
}

pub(crate) async fn script() -> Response {
    ([(header::CONTENT_TYPE, "text/javascript; charset=utf-8")], include_str!("../static/studio.js")).into_response()
}

pub(crate) async fn style() -> Response {
    ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], include_str!("../static/studio.css")).into_response()
}

pub(crate) async fn not_found(State(studio): State<Studio>, ctx: Ctx) -> Response {
    studio.error_page(&ctx, Refusal::new(StatusCode::NOT_FOUND, "There is no page here."), Some("/skills".into()))
}
