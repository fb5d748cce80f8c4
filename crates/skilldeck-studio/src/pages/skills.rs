//! The skill list (origins in `skilldeck list`'s words, search, pages, what
//! the catalog skipped), and what removes or renames a stored skill: delete
//! (the CLI's `store delete`), which for a record over a disk skill is a
//! revert to disk, and rename.

use std::collections::HashSet;

use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use skilldeck::store::Precondition;
use skilldeck::{NameKind, Origin, Skill};

use super::{Ctx, Refusal, answer, confirmed, disk_under, key, redirect, skill_href};
use crate::form::{self, encode};
use crate::views::{SkillRow, SkillsPage, page};
use crate::{PAGE_SIZE, Studio};

#[derive(Deserialize)]
pub(crate) struct ListQuery {
    q: Option<String>,
    page: Option<String>,
}

impl Studio {
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
        let rows = skills
            .iter()
            .skip((page_no - 1) * PAGE_SIZE)
            .take(PAGE_SIZE)
            .map(|s| SkillRow {
                name: s.name().to_owned(),
                href: skill_href(s.name()),
                description: s.description().unwrap_or("").to_owned(),
                // `skilldeck list`'s word, and what a store record stands in for.
                origin: match s.origin() {
                    Origin::Store { dir: Some(_), .. } if disk_under(&catalog, s.name()).is_some() => "store (over fs)",
                    origin => origin.kind(),
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

    /// Deletes the shared record `name` with its history (`skilldeck store
    /// delete`): a stored skill goes; a record over a disk skill goes and
    /// the disk skill is the skill again (revert to disk). Agents' own
    /// versions are records of their own and stay.
    fn delete(&self, name: &str, body: &[u8]) -> Result<Response, Refusal> {
        key(name, NameKind::Skill)?;
        confirmed(&form::parse(body))?;
        self.store()?;
        let catalog = self.inner.live.snapshot();
        let disk = disk_under(&catalog, name).map(|s| s.location().to_owned());
        let owners: Vec<String> = self
            .store()?
            .agents()?
            .into_iter()
            .filter(|a| catalog.agent_skills(a).iter().any(|s| s.name() == name))
            .collect();
        self.inner.live.delete_skill(name, None)?;
        let kept = match owners.as_slice() {
            [] => String::new(),
            owners => format!(" The own versions of {} stay.", owners.join(", ")),
        };
        Ok(match disk {
            Some(path) => {
                let text =
                    format!("Reverted to disk: the store's record is deleted, and {path} is the skill again.{kept}");
                redirect(&skill_href(name), &text, false)
            }
            None => redirect("/skills", &format!("Skill {name} deleted, with its earlier versions.{kept}"), false),
        })
    }

    /// Renames the stored skill `name` to the form's `new_name`
    /// (`LiveCatalog::rename_skill`): its history, agents' own versions and
    /// the profiles that name it follow.
    fn rename(&self, name: &str, body: &[u8]) -> Result<Response, Refusal> {
        key(name, NameKind::Skill)?;
        let fields = form::parse(body);
        let to = form::first(&fields, "new_name").unwrap_or("").trim().to_owned();
        key(&to, NameKind::Skill)?;
        let catalog = self.inner.live.snapshot();
        if let Some(disk) = disk_under(&catalog, name) {
            let message = format!(
                "{name} takes the place of the disk skill {}, so it keeps that name: to make a skill of another name from it, start a New skill with its text.",
                disk.location()
            );
            return Err(Refusal::new(StatusCode::CONFLICT, message));
        }
        let precondition = match form::first(&fields, "began").unwrap_or("") {
            "" => Precondition::Any,
            began => self.precondition(name, None, began)?,
        };
        let renamed = self.inner.live.rename_skill(name, &to, &precondition)?;
        let mut text = format!("Renamed {name} to {to}, with its earlier versions.");
        if !renamed.own_versions.is_empty() {
            text.push_str(&format!(" The own versions of {} moved with it.", renamed.own_versions.join(", ")));
        }
        if !renamed.profiles.is_empty() {
            text.push_str(&format!(" The profiles of {} now name {to}.", renamed.profiles.join(", ")));
        }
        Ok(redirect(&skill_href(&to), &text, false))
    }
}

pub(crate) async fn list(State(studio): State<Studio>, ctx: Ctx, Query(query): Query<ListQuery>) -> Response {
    answer(studio, ctx, None, move |s, ctx| Ok(s.list_page(ctx, &query))).await
}

pub(crate) async fn delete(State(studio): State<Studio>, ctx: Ctx, Path(name): Path<String>, body: Bytes) -> Response {
    answer(studio, ctx, Some(skill_href(&name)), move |s, _| s.delete(&name, &body)).await
}

pub(crate) async fn rename(State(studio): State<Studio>, ctx: Ctx, Path(name): Path<String>, body: Bytes) -> Response {
    answer(studio, ctx, Some(skill_href(&name)), move |s, _| s.rename(&name, &body)).await
}
