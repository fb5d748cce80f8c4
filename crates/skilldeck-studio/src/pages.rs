//! The routes: each reads one catalog snapshot (and the store), or runs
//! one authoring command and redirects with a flash (Insika's texts,
//! reference §9.5). Store and catalog calls block (SQLite, PostgreSQL's
//! own runtime), so every handler runs them on the blocking pool
//! ([`answer`]). One file per surface: `skills.rs` (the list, delete,
//! revert, rename), `editor.rs` (the editors and what they post),
//! `history.rs`, `files.rs`, `agents.rs`.

use std::path::PathBuf;

use axum::body::Bytes;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use serde::Deserialize;
use serde_json::{Value, json};
use skilldeck::audit::RISKY;
use skilldeck::authoring::{self, AuthoringError};
use skilldeck::store::{SkillStore, StoreError};
use skilldeck::validate::{Check, Validator};
use skilldeck::{AgentProfile, Catalog, NameKind, Origin, Skill, Source, check_name};

use crate::Studio;
use crate::flash::{Flash, encode_flash};
use crate::form::{self, encode};
use crate::guard::Csrf;
use crate::views::{Chrome, DiagnosticRow, ErrorPage, page};

pub(crate) mod agents;
pub(crate) mod editor;
pub(crate) mod files;
pub(crate) mod history;
pub(crate) mod skills;

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

/// Runs `work` on the blocking pool: the page it makes, or, when it is
/// refused, the error page with a link `back`. Every route goes through it.
pub(crate) async fn answer(
    studio: Studio,
    ctx: Ctx,
    back: Option<String>,
    work: impl FnOnce(&Studio, &Ctx) -> Result<Response, Refusal> + Send + 'static,
) -> Response {
    let ran = tokio::task::spawn_blocking(move || {
        work(&studio, &ctx).unwrap_or_else(|refusal| studio.error_page(&ctx, refusal, back))
    });
    ran.await.unwrap_or_else(|error| {
        tracing::error!("a request failed: {error}");
        (StatusCode::INTERNAL_SERVER_ERROR, "Internal Server Error\n").into_response()
    })
}

/// 303 to `to`, leaving `text` as the next page's flash.
pub(crate) fn redirect(to: &str, text: &str, error: bool) -> Response {
    let mut response = Redirect::to(to).into_response();
    if let Ok(cookie) = HeaderValue::from_str(&encode_flash(text, error)) {
        response.headers_mut().append(header::SET_COOKIE, cookie);
    }
    response
}

pub(crate) fn skill_href(name: &str) -> String {
    format!("/skills/{}", encode(name))
}

pub(crate) fn agent_href(id: &str) -> String {
    format!("/agents/{}", encode(id))
}

pub(crate) fn own_href(id: &str, name: &str) -> String {
    format!("/agents/{}/skills/{}", encode(id), encode(name))
}

/// The page of a record: the shared skill's, or an agent's own version.
pub(crate) fn record_href(agent: Option<&str>, name: &str) -> String {
    match agent {
        Some(agent) => own_href(agent, name),
        None => skill_href(name),
    }
}

/// A form's text as the Studio keeps it: browsers send a textarea's line
/// breaks as CRLF, and a `SKILL.md` written here has LF ones.
pub(crate) fn lf(text: &str) -> String {
    text.replace("\r\n", "\n")
}

/// Why a request could not be carried out, as a status and a message.
pub(crate) struct Refusal {
    pub(crate) status: StatusCode,
    pub(crate) message: String,
}

impl Refusal {
    pub(crate) fn new(status: StatusCode, message: impl Into<String>) -> Refusal {
        Refusal { status, message: message.into() }
    }

    /// A request whose fields are wrong (422).
    pub(crate) fn invalid(message: impl Into<String>) -> Refusal {
        Refusal::new(StatusCode::UNPROCESSABLE_ENTITY, message)
    }

    pub(crate) fn not_found(message: impl Into<String>) -> Refusal {
        Refusal::new(StatusCode::NOT_FOUND, message)
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

impl From<AuthoringError> for Refusal {
    fn from(error: AuthoringError) -> Refusal {
        match error {
            AuthoringError::Store(error) => error.into(),
            AuthoringError::NoStore => Refusal::no_store(),
            error @ (AuthoringError::NotFound { .. } | AuthoringError::ProfileNotFound { .. }) => {
                Refusal::not_found(error.to_string())
            }
            error @ AuthoringError::NameTaken { .. } => Refusal::new(StatusCode::CONFLICT, error.to_string()),
            error @ AuthoringError::Risky(_) => {
                Refusal::invalid(format!("{error}. Read the checks, then tick “Save anyway” to save it."))
            }
            error => Refusal::invalid(error.to_string()),
        }
    }
}

/// A skill name or agent id from a URL or a form, as a store key (the
/// engine's name rule, Insika's URL rule among it), or the 422 saying why not.
pub(crate) fn key(value: &str, kind: NameKind) -> Result<(), Refusal> {
    check_name(value, kind).map_err(|error| Refusal::invalid(error.to_string()))
}

/// A destructive form's confirmation: its `confirm` box must be ticked.
/// Browsers hold the form back until it is (`required`); this is the rule
/// for a client that does not.
pub(crate) fn confirmed(fields: &[(String, String)]) -> Result<(), Refusal> {
    match form::first(fields, "confirm") {
        Some("yes") => Ok(()),
        _ => Err(Refusal::invalid("Tick the box to confirm: this cannot be undone.")),
    }
}

impl Studio {
    pub(crate) fn chrome(&self, ctx: &Ctx, flash: Option<Flash>) -> Chrome {
        Chrome {
            csrf: ctx.csrf.clone(),
            flash: flash.or_else(|| ctx.flash.clone()),
            read_only: self.inner.store.is_none(),
        }
    }

    pub(crate) fn store(&self) -> Result<&dyn SkillStore, Refusal> {
        self.inner.store.as_deref().ok_or_else(Refusal::no_store)
    }

    pub(crate) fn error_page(&self, ctx: &Ctx, refusal: Refusal, back: Option<String>) -> Response {
        let title = refusal.status.canonical_reason().unwrap_or("Error").to_owned();
        let chrome = self.chrome(ctx, Some(Flash { text: refusal.message, error: true }));
        page(refusal.status, &ErrorPage { chrome, title, back })
    }

    /// Every profile: the store's (`true`), then the `--agents` file's
    /// whose id the store does not have (`false`), by id.
    pub(crate) fn profiles(&self) -> Result<Vec<(AgentProfile, bool)>, StoreError> {
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
}

/// The disk skill a shared store record of `name` takes the place of, if
/// any: the skill that shows again when the record goes.
pub(crate) fn disk_under<'c>(catalog: &'c Catalog, name: &str) -> Option<&'c Skill> {
    catalog
        .shadowed()
        .iter()
        .find(|s| {
            s.skill.name() == name
                && matches!(s.winner_source, Source::Store)
                && matches!(s.skill.origin(), Origin::Fs { .. })
        })
        .map(|s| &s.skill)
}

/// The engine's checks of `content` as the `SKILL.md` of a skill keyed
/// `name` (its directory name, for the name check), then the audit's
/// findings, the rule id as the check. Without a usable name the directory
/// check is left out.
pub(crate) fn diagnostics(content: &str, name: Option<&str>) -> Vec<DiagnosticRow> {
    let key = name.filter(|n| check_name(n, NameKind::Skill).is_ok());
    let path = PathBuf::from(key.unwrap_or("skill")).join("SKILL.md");
    let mut rows: Vec<DiagnosticRow> = Validator::new()
        .check_source(content.as_bytes(), &path)
        .into_iter()
        .filter(|d| key.is_some() || d.check != Check::NameDirectory)
        .map(|d| {
            let (line, column) = d.position.unwrap_or((0, 0));
            let (severity, check) = (d.severity.as_str(), d.check.as_str());
            DiagnosticRow { line, column, severity, check, message: d.message, risky: false }
        })
        .collect();
    match authoring::audit_skill_md(content) {
        Ok(report) => rows.extend(report.findings.into_iter().map(|f| DiagnosticRow {
            line: f.line,
            column: f.column,
            severity: f.severity.as_str(),
            check: f.rule.id,
            message: f.message,
            risky: f.severity >= RISKY,
        })),
        Err(error) => rows.push(DiagnosticRow {
            line: 0,
            column: 0,
            severity: "error",
            check: "audit",
            message: error.to_string(),
            risky: false,
        }),
    }
    rows
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

pub(crate) async fn not_found(axum::extract::State(studio): axum::extract::State<Studio>, ctx: Ctx) -> Response {
    studio.error_page(&ctx, Refusal::not_found("There is no page here."), Some("/skills".into()))
}
