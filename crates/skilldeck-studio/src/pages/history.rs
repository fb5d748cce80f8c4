//! A record's earlier versions: the list in its editor (newest first, each
//! with its time and whether it is the newest or the oldest the store
//! keeps), the diff of one against the current text, and its restore.

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use similar::{ChangeTag, TextDiff};
use skilldeck::store::{HISTORY_CAP, SkillStore, StoreError, Version};

use skilldeck::authoring::{self, AuthoringError};

use super::{Ctx, Refusal, answer, diagnostics, own_href, record_href, redirect, skill_href};
use crate::Studio;
use crate::flash::Flash;
use crate::views::{DiffLine, DiffPage, VersionRow, page};

/// Which of `count` earlier versions the one at `index` is, in words.
fn place(index: usize, count: usize) -> String {
    match (index, count) {
        (0, 1) => "the only earlier version kept".to_owned(),
        (0, _) => "the newest earlier version".to_owned(),
        (i, n) if i + 1 == n => format!("the oldest kept (the store keeps the {HISTORY_CAP} newest)"),
        (i, _) => format!("{} saves back", i + 1),
    }
}

/// A record's earlier versions, newest first, with their diff and
/// restore links.
pub(crate) fn history_rows(
    store: &dyn SkillStore,
    agent: Option<&str>,
    name: &str,
) -> Result<Vec<VersionRow>, StoreError> {
    let base = record_href(agent, name);
    let versions = store.versions(name, agent)?;
    let count = versions.len();
    let rows = versions
        .into_iter()
        .enumerate()
        .map(|(index, v)| VersionRow {
            at: v.at,
            place: place(index, count),
            diff: format!("{base}/versions/{index}"),
            restore: format!("{base}/versions/{index}/restore"),
        })
        .collect();
    Ok(rows)
}

/// Version `index` of the record's history, or the 404 naming it.
fn version_at(
    store: &dyn SkillStore,
    agent: Option<&str>,
    name: &str,
    index: &str,
) -> Result<(usize, Version, usize), Refusal> {
    let not_found = || Refusal::not_found(format!("version {index} does not exist"));
    let i: usize = index.parse().map_err(|_| not_found())?;
    let mut versions = store.versions(name, agent)?;
    let count = versions.len();
    (i < count).then(|| (i, versions.swap_remove(i), count)).ok_or_else(not_found)
}

impl Studio {
    /// Version `index` against the current text, with the audit's findings
    /// at high or above in it; `refused` is why a restore of it was not done.
    fn version_page(
        &self,
        ctx: &Ctx,
        agent: Option<&str>,
        name: &str,
        index: &str,
        refused: Option<Refusal>,
    ) -> Result<Response, Refusal> {
        let store = self.store()?;
        let (i, version, count) = version_at(store, agent, name, index)?;
        let current = store.get(name, agent)?;
        let current_at = current.as_ref().map(|r| r.updated_at.clone()).unwrap_or_default();
        let current = current.map(|r| r.content).unwrap_or_default();
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
        let risks = diagnostics(&version.content, Some(name)).into_iter().filter(|d| d.risky).collect();
        let status = refused.as_ref().map_or(StatusCode::OK, |r| r.status);
        let flash = refused.map(|r| Flash { text: r.message, error: true });
        let view = DiffPage {
            chrome: self.chrome(ctx, flash),
            name: match agent {
                Some(agent) => format!("{name} for {agent}"),
                None => name.to_owned(),
            },
            at: version.at,
            place: place(i, count),
            current_at,
            back: record_href(agent, name),
            restore: format!("{}/versions/{i}/restore", record_href(agent, name)),
            same: lines.iter().all(|l| l.kind == "eq"),
            lines,
            risks,
        };
        Ok(page(status, &view))
    }

    /// Restores version `index`; with `shown` (the form's `at`, the time of
    /// the version the page showed), only while it is still that one. A
    /// version the audit finds risky is restored only with `allow_risk`;
    /// without, its page answers with the findings and the confirmation.
    fn restore(
        &self,
        ctx: &Ctx,
        agent: Option<&str>,
        name: &str,
        index: &str,
        body: &[u8],
    ) -> Result<Response, Refusal> {
        let store = self.store()?;
        let (i, version, _) = version_at(store, agent, name, index)?;
        let fields = crate::form::parse(body);
        if let Some(shown) = crate::form::first(&fields, "at")
            && shown != version.at
        {
            let message = "The history changed since this page was shown (another save or restore): reload it, then choose again.";
            return Err(Refusal::new(StatusCode::CONFLICT, message));
        }
        let allow_risk = crate::form::first(&fields, "allow_risk") == Some("1");
        match authoring::restore_skill(store, name, i as i64, agent, allow_risk) {
            Err(error @ AuthoringError::Risky(_)) => {
                let message = format!("{error}. Read the findings, then tick “Restore anyway” to restore it.");
                return self.version_page(ctx, agent, name, index, Some(Refusal::invalid(message)));
            }
            restored => restored?,
        };
        self.inner.live.reload();
        let text = format!("The version saved {} is the current text again.", version.at);
        Ok(redirect(&record_href(agent, name), &text, false))
    }
}

pub(crate) async fn version(
    State(studio): State<Studio>,
    ctx: Ctx,
    Path((name, index)): Path<(String, String)>,
) -> Response {
    answer(studio, ctx, Some(skill_href(&name)), move |s, ctx| s.version_page(ctx, None, &name, &index, None)).await
}

pub(crate) async fn restore(
    State(studio): State<Studio>,
    ctx: Ctx,
    Path((name, index)): Path<(String, String)>,
    body: Bytes,
) -> Response {
    answer(studio, ctx, Some(skill_href(&name)), move |s, ctx| s.restore(ctx, None, &name, &index, &body)).await
}

pub(crate) async fn own_version(
    State(studio): State<Studio>,
    ctx: Ctx,
    Path((id, name, index)): Path<(String, String, String)>,
) -> Response {
    let back = Some(own_href(&id, &name));
    answer(studio, ctx, back, move |s, ctx| s.version_page(ctx, Some(&id), &name, &index, None)).await
}

pub(crate) async fn own_restore(
    State(studio): State<Studio>,
    ctx: Ctx,
    Path((id, name, index)): Path<(String, String, String)>,
    body: Bytes,
) -> Response {
    let back = Some(own_href(&id, &name));
    answer(studio, ctx, back, move |s, ctx| s.restore(ctx, Some(&id), &name, &index, &body)).await
}
