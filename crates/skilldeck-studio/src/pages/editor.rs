//! The editors: a shared skill's (with its agents, files, history and the
//! forms that delete, revert or rename it) and an agent's own version, and
//! what they post (a save, the agent grid, a specialization).

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use skilldeck::authoring::{self, AuthoringError, WriteSkill};
use skilldeck::store::{Precondition, StoreError};
use skilldeck::{Catalog, Eager, LoadSkillTool, NameKind, SkillTool, check_name};

use super::history::history_rows;
use super::{Ctx, Refusal, agent_href, answer, diagnostics, disk_under, key, lf, own_href, redirect, skill_href};
use crate::Studio;
use crate::flash::Flash;
use crate::form;
use crate::source::{TEMPLATE_NAME, file_text, reconstruct, template};
use crate::views::{EditorPage, Grid, GridRow, Manage, page};

/// What an editor starts from: the text, the text a save must still find
/// (the store's; empty for a text not in the store yet), and where it came from.
pub(crate) struct Seed {
    text: String,
    began: String,
    note: String,
}

/// What the user sent from an editor, shown again when a save is refused.
struct Draft {
    content: String,
    began: String,
    /// The text saved meanwhile, for a conflict.
    theirs: Option<String>,
    /// Whether the text is saved with CRLF line breaks.
    crlf: bool,
}

impl Draft {
    fn of(seed: Seed) -> Draft {
        Draft { crlf: crlf(&seed.text), content: seed.text, began: seed.began, theirs: None }
    }
}

/// Whether every line break of `text` is CRLF (and there is one): a file
/// written so is saved so, though the browser shows and sends it with LF.
fn crlf(text: &str) -> bool {
    text.contains("\r\n") && text.matches('\n').count() == text.matches("\r\n").count()
}

impl Studio {
    /// The text a shared skill's editor (and a specialization) starts
    /// from: the store's record, else the disk skill's file as it is, else
    /// a data skill rebuilt; `None` for no skill of that name.
    pub(crate) fn shared_source(&self, catalog: &Catalog, name: &str) -> Result<Option<Seed>, Refusal> {
        if let Some(store) = &self.inner.store
            && let Some(record) = store.get(name, None)?
        {
            let mut note = format!("From the store, saved {}.", record.updated_at);
            if let Some(disk) = disk_under(catalog, name) {
                note.push_str(&format!(
                    " It takes the place of {} (the file is left as it is); the files beside that SKILL.md are still served with it. Revert to disk, below, to use the file again.",
                    disk.location()
                ));
            }
            return Ok(Some(Seed { text: record.content.clone(), began: record.content, note }));
        }
        let Some(skill) = catalog.get(name) else { return Ok(None) };
        let unreadable = |e: std::io::Error| {
            Refusal::new(StatusCode::INTERNAL_SERVER_ERROR, format!("{} cannot be opened: {e}", skill.location()))
        };
        let note = match file_text(skill).map_err(unreadable)? {
            Some(text) => {
                let note = format!(
                    "From {}, as it is on disk. Saving puts this text in the store, where it takes the place of the file (the file is left as it is); the files beside it are still served with it.",
                    skill.location()
                );
                return Ok(Some(Seed { text, began: String::new(), note }));
            }
            None => format!(
                "Rebuilt from the data skill {} (name, description and body): saving puts a record in the store that takes its place.",
                skill.location()
            ),
        };
        let text = reconstruct(skill).map_err(unreadable)?;
        Ok(Some(Seed { text, began: String::new(), note }))
    }

    /// The precondition of a save whose edit began from `began`: none yet
    /// (empty), else that text, compared as the browser sent it back (its
    /// line breaks may have changed on the way).
    pub(crate) fn precondition(&self, name: &str, agent: Option<&str>, began: &str) -> Result<Precondition, Refusal> {
        if began.is_empty() {
            return Ok(Precondition::Absent);
        }
        let current = self.store()?.get(name, agent)?;
        Ok(match current {
            Some(record) if lf(&record.content) == lf(began) => Precondition::Unchanged(record.content),
            _ => Precondition::Unchanged(lf(began)),
        })
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
        let tool = SkillTool::NAME;
        let seed = source.unwrap_or_else(|| Seed {
            text: template(name, tool),
            began: String::new(),
            note: match new {
                true => format!(
                    "A new skill, from the template. Agents load it on demand with the {tool} tool ({} when it is served to one agent).",
                    LoadSkillTool::NAME
                ),
                false => format!("No skill is named {name} yet: this is the template."),
            },
        });
        let keyed = exists && check_name(name, NameKind::Skill).is_ok();
        let (mut grid, mut history, mut manage, mut current_at) = (None, None, None, None);
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
            let record = store.get(name, None)?;
            current_at = record.as_ref().map(|r| r.updated_at.clone());
            let rows = history_rows(store.as_ref(), None, name)?;
            if record.is_some() {
                let owners =
                    store.agents()?.into_iter().filter(|a| catalog.agent_skills(a).iter().any(|s| s.name() == name));
                manage = Some(Manage {
                    delete: format!("{}/delete", skill_href(name)),
                    rename: format!("{}/rename", skill_href(name)),
                    revert_to: disk_under(&catalog, name).map(|s| s.location().to_owned()),
                    versions: rows.len(),
                    own: owners.collect(),
                });
            }
            history = Some(rows);
        }
        let files = catalog.get(name).filter(|_| keyed).map(|_| format!("{}/files", skill_href(name)));
        let note = seed.note.clone();
        let shown = draft.unwrap_or_else(|| Draft::of(seed));
        let status = outcome.as_ref().map_or(StatusCode::OK, |o| o.status);
        let view = EditorPage {
            chrome: self.chrome(ctx, outcome.map(|o| Flash { text: o.message, error: true })),
            title: if exists { name.to_owned() } else { "New skill".to_owned() },
            action: "/skills".to_owned(),
            name: name.to_owned(),
            name_locked: !shown.began.is_empty(),
            crlf: shown.crlf,
            diagnostics: diagnostics(&shown.content, Some(name)),
            rendered: crate::markdown::render(crate::markdown::body_of(&shown.content)),
            content: shown.content,
            began: shown.began,
            source_note: note,
            pill: None,
            theirs: shown.theirs,
            grid,
            history,
            current_at,
            previews: previews(profiles.iter().map(|(p, _)| p.id.as_str())),
            remove: None,
            shared_href: None,
            files,
            manage,
        };
        Ok(page(status, &view))
    }

    /// An agent's own version of a skill; before it has one, the shared
    /// text it would start from, or, for a name no shared skill has, the
    /// template of a skill private to the agent.
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
        let shared = catalog.get(name).is_some();
        let (seed, pill, remove) = match own {
            Some(record) => (
                Seed {
                    text: record.content.clone(),
                    began: record.content,
                    note: format!("{id}'s own version, saved {}.", record.updated_at),
                },
                Some(format!("specialized for {id}")),
                Some(format!("{}/delete", own_href(id, name))),
            ),
            None => match self.shared_source(&catalog, name)? {
                Some(seed) => {
                    let note = format!(
                        "{id} has no own version of {name}: this is the shared text, and saving makes one that only {id} gets."
                    );
                    (Seed { note, began: String::new(), ..seed }, None, None)
                }
                None => {
                    let tool = LoadSkillTool::NAME;
                    let note = format!(
                        "No skill is named {name} yet: saving makes one only {id} has, which the {tool} tool serves to it."
                    );
                    (Seed { text: template(name, tool), began: String::new(), note }, None, None)
                }
            },
        };
        let note = seed.note.clone();
        let shown = draft.unwrap_or_else(|| Draft::of(seed));
        let status = outcome.as_ref().map_or(StatusCode::OK, |o| o.status);
        let history = match (&self.inner.store, &remove) {
            (Some(store), Some(_)) => Some(history_rows(store.as_ref(), Some(id), name)?),
            _ => None,
        };
        let view = EditorPage {
            chrome: self.chrome(ctx, outcome.map(|o| Flash { text: o.message, error: true })),
            title: format!("{name} for {id}"),
            action: own_href(id, name),
            name: name.to_owned(),
            name_locked: true,
            crlf: shown.crlf,
            diagnostics: diagnostics(&shown.content, Some(name)),
            rendered: crate::markdown::render(crate::markdown::body_of(&shown.content)),
            content: shown.content,
            began: shown.began,
            source_note: note,
            pill,
            theirs: shown.theirs,
            grid: None,
            history,
            current_at: None,
            previews: previews([id]),
            remove,
            shared_href: shared.then(|| skill_href(name)),
            files: None,
            manage: None,
        };
        Ok(page(status, &view))
    }

    fn save(&self, ctx: &Ctx, agent: Option<&str>, url_name: Option<&str>, body: &[u8]) -> Response {
        let fields = form::parse(body);
        let name = url_name.unwrap_or_else(|| form::first(&fields, "name").unwrap_or("")).trim().to_owned();
        let crlf = form::first(&fields, "crlf") == Some("1");
        let mut content = lf(form::first(&fields, "content").unwrap_or(""));
        if crlf {
            content = content.replace('\n', "\r\n");
        }
        let began = form::first(&fields, "began").unwrap_or("").to_owned();
        let allow_risk = form::first(&fields, "allow_risk") == Some("1");
        let attempt = || -> Result<(), Refusal> {
            key(&name, NameKind::Skill)?;
            if let Some(agent) = agent {
                key(agent, NameKind::Agent)?;
            }
            self.store()?;
            let precondition = self.precondition(&name, agent, &began)?;
            let mut request =
                WriteSkill::new(&name, content.as_str()).precondition(precondition).allow_risk(allow_risk);
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
                let draft = Draft { content, began, theirs, crlf };
                let shown = match agent {
                    None => self.shared_editor(ctx, &name, false, Some(draft), Some(refusal)),
                    Some(agent) => self.own_editor(ctx, agent, &name, Some(draft), Some(refusal)),
                };
                shown.unwrap_or_else(|refusal| self.error_page(ctx, refusal, None))
            }
        }
    }

    fn set_agents(&self, name: &str, body: &[u8]) -> Result<Response, Refusal> {
        key(name, NameKind::Skill)?;
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
        key(name, NameKind::Skill)?;
        key(&agent, NameKind::Agent)?;
        self.store()?;
        let catalog = self.inner.live.snapshot();
        let seed = self
            .shared_source(&catalog, name)?
            .ok_or_else(|| Refusal::not_found(format!("skill '{name}' not found")))?;
        // Never over an agent's own text: specialising twice opens the first. The
        // text is the shared skill's as served: the audit judged it where it came in.
        let request =
            WriteSkill::new(name, seed.text).agent(&agent).precondition(Precondition::Absent).allow_risk(true);
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
        Ok(match self.inner.live.snapshot().get(name) {
            Some(_) => {
                redirect(&skill_href(name), "Specialization removed — the agent falls back to the shared skill.", false)
            }
            None => redirect(&agent_href(id), &format!("{name} removed from {id}'s own skills."), false),
        })
    }
}

/// The preview links of the agents `ids`.
fn previews<'a>(ids: impl IntoIterator<Item = &'a str>) -> Vec<(String, String)> {
    ids.into_iter()
        .map(|id| {
            (format!("{id}: its skill list and injected skills"), format!("{}?format=insika&message=", agent_href(id)))
        })
        .collect()
}

pub(crate) async fn new_skill(State(studio): State<Studio>, ctx: Ctx) -> Response {
    answer(studio, ctx, None, |s, ctx| s.shared_editor(ctx, TEMPLATE_NAME, true, None, None)).await
}

pub(crate) async fn edit_shared(State(studio): State<Studio>, ctx: Ctx, Path(name): Path<String>) -> Response {
    answer(studio, ctx, None, move |s, ctx| s.shared_editor(ctx, &name, false, None, None)).await
}

pub(crate) async fn save_shared(State(studio): State<Studio>, ctx: Ctx, body: Bytes) -> Response {
    answer(studio, ctx, None, move |s, ctx| Ok(s.save(ctx, None, None, &body))).await
}

pub(crate) async fn set_agents(
    State(studio): State<Studio>,
    ctx: Ctx,
    Path(name): Path<String>,
    body: Bytes,
) -> Response {
    answer(studio, ctx, Some(skill_href(&name)), move |s, _| s.set_agents(&name, &body)).await
}

pub(crate) async fn specialize(
    State(studio): State<Studio>,
    ctx: Ctx,
    Path(name): Path<String>,
    body: Bytes,
) -> Response {
    answer(studio, ctx, Some(skill_href(&name)), move |s, _| s.specialize(&name, &body)).await
}

pub(crate) async fn edit_own(
    State(studio): State<Studio>,
    ctx: Ctx,
    Path((id, name)): Path<(String, String)>,
) -> Response {
    answer(studio, ctx, None, move |s, ctx| s.own_editor(ctx, &id, &name, None, None)).await
}

pub(crate) async fn save_own(
    State(studio): State<Studio>,
    ctx: Ctx,
    Path((id, name)): Path<(String, String)>,
    body: Bytes,
) -> Response {
    answer(studio, ctx, None, move |s, ctx| Ok(s.save(ctx, Some(&id), Some(&name), &body))).await
}

pub(crate) async fn remove_own(
    State(studio): State<Studio>,
    ctx: Ctx,
    Path((id, name)): Path<(String, String)>,
) -> Response {
    answer(studio, ctx, Some(own_href(&id, &name)), move |s, _| s.remove_own(&id, &name)).await
}
