//! The pages, as askama templates (`templates/`, checked at compile time).
//! askama escapes every value for HTML; the one value written unescaped is
//! the rendered Markdown preview, which `markdown::render` made safe.

use askama::Template;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};

use crate::flash::Flash;

/// What every page carries: the CSRF token for its forms, the flash, and
/// whether saving is possible at all.
pub(crate) struct Chrome {
    pub(crate) csrf: String,
    pub(crate) flash: Option<Flash>,
    pub(crate) read_only: bool,
}

/// A page with its status.
pub(crate) fn page(status: StatusCode, template: &impl Template) -> Response {
    match template.render() {
        Ok(html) => (status, Html(html)).into_response(),
        Err(error) => {
            tracing::error!("a page failed to render: {error}");
            (StatusCode::INTERNAL_SERVER_ERROR, "Internal Server Error: the page failed to render\n").into_response()
        }
    }
}

pub(crate) struct SkillRow {
    pub(crate) name: String,
    pub(crate) href: String,
    pub(crate) description: String,
    pub(crate) origin: &'static str,
}

#[derive(Template)]
#[template(path = "skills.html")]
pub(crate) struct SkillsPage {
    pub(crate) chrome: Chrome,
    pub(crate) q: String,
    pub(crate) summary: String,
    pub(crate) rows: Vec<SkillRow>,
    pub(crate) prev: Option<String>,
    pub(crate) next: Option<String>,
    pub(crate) skips: Vec<(String, String)>,
    pub(crate) warnings: Vec<String>,
}

pub(crate) struct DiagnosticRow {
    pub(crate) line: u64,
    pub(crate) column: u64,
    pub(crate) severity: &'static str,
    pub(crate) check: &'static str,
    pub(crate) message: String,
    /// An audit finding a save refuses unless the risk is confirmed.
    pub(crate) risky: bool,
}

pub(crate) struct GridRow {
    pub(crate) id: String,
    pub(crate) href: String,
    pub(crate) allowed: bool,
    pub(crate) all_skills: bool,
    pub(crate) eager: bool,
    pub(crate) eager_all: bool,
    pub(crate) own: Option<String>,
}

pub(crate) struct Grid {
    pub(crate) action: String,
    pub(crate) specialize: String,
    pub(crate) rows: Vec<GridRow>,
}

pub(crate) struct VersionRow {
    pub(crate) at: String,
    /// Which it is in words: the newest earlier version, the oldest kept…
    pub(crate) place: String,
    pub(crate) diff: String,
    pub(crate) restore: String,
}

/// What removes or renames a stored skill, on its editor.
pub(crate) struct Manage {
    pub(crate) delete: String,
    pub(crate) rename: String,
    /// The disk skill the record takes the place of: deleting reverts to it.
    pub(crate) revert_to: Option<String>,
    /// How many earlier versions go with a delete.
    pub(crate) versions: usize,
    /// Agents with an own version, which a delete leaves.
    pub(crate) own: Vec<String>,
}

#[derive(Template)]
#[template(path = "editor.html")]
pub(crate) struct EditorPage {
    pub(crate) chrome: Chrome,
    pub(crate) title: String,
    pub(crate) action: String,
    pub(crate) name: String,
    pub(crate) name_locked: bool,
    pub(crate) content: String,
    pub(crate) began: String,
    /// Whether a save writes CRLF line breaks (the text had them).
    pub(crate) crlf: bool,
    pub(crate) source_note: String,
    pub(crate) pill: Option<String>,
    pub(crate) theirs: Option<String>,
    pub(crate) diagnostics: Vec<DiagnosticRow>,
    pub(crate) rendered: String,
    pub(crate) grid: Option<Grid>,
    pub(crate) history: Option<Vec<VersionRow>>,
    /// When the current text was saved, for the history's heading.
    pub(crate) current_at: Option<String>,
    pub(crate) previews: Vec<(String, String)>,
    pub(crate) remove: Option<String>,
    pub(crate) shared_href: Option<String>,
    /// The skill's files page.
    pub(crate) files: Option<String>,
    pub(crate) manage: Option<Manage>,
}

impl EditorPage {
    /// Whether the text has a finding a save refuses unless confirmed:
    /// the editor then shows the confirmation.
    pub(crate) fn confirm_risk(&self) -> bool {
        self.diagnostics.iter().any(|d| d.risky)
    }
}

pub(crate) struct AgentRow {
    pub(crate) id: String,
    pub(crate) href: String,
    pub(crate) summary: String,
}

#[derive(Template)]
#[template(path = "agents.html")]
pub(crate) struct AgentsPage {
    pub(crate) chrome: Chrome,
    pub(crate) agents: Vec<AgentRow>,
}

pub(crate) struct Choice {
    pub(crate) value: String,
    pub(crate) label: String,
    pub(crate) selected: bool,
}

pub(crate) struct SkillBox {
    pub(crate) name: String,
    pub(crate) input_id: String,
    pub(crate) checked: bool,
}

#[derive(Template)]
#[template(path = "agent.html")]
pub(crate) struct AgentPage {
    pub(crate) chrome: Chrome,
    pub(crate) id: String,
    pub(crate) stored: bool,
    pub(crate) allowlist_action: String,
    pub(crate) delete_action: String,
    pub(crate) all_skills: bool,
    pub(crate) skills: Vec<SkillBox>,
    pub(crate) own: Vec<(String, String)>,
    pub(crate) eager: String,
    pub(crate) action: String,
    pub(crate) formats: Vec<Choice>,
    pub(crate) budget: String,
    pub(crate) message: String,
    pub(crate) format_note: String,
    pub(crate) level1: String,
    pub(crate) report: String,
    pub(crate) inject: Option<Vec<(String, String)>>,
    pub(crate) inject_content: String,
}

pub(crate) struct DiffLine {
    pub(crate) kind: &'static str,
    pub(crate) text: String,
}

#[derive(Template)]
#[template(path = "diff.html")]
pub(crate) struct DiffPage {
    pub(crate) chrome: Chrome,
    pub(crate) name: String,
    pub(crate) at: String,
    pub(crate) place: String,
    pub(crate) current_at: String,
    pub(crate) back: String,
    pub(crate) restore: String,
    pub(crate) lines: Vec<DiffLine>,
    pub(crate) same: bool,
    /// The audit's findings at high or above in this version, which a
    /// restore refuses unless the risk is confirmed.
    pub(crate) risks: Vec<DiagnosticRow>,
}

pub(crate) struct FileRow {
    pub(crate) rel: String,
    /// The page showing it, when it may be read.
    pub(crate) href: Option<String>,
    pub(crate) size: String,
    pub(crate) note: String,
}

#[derive(Template)]
#[template(path = "files.html")]
pub(crate) struct FilesPage {
    pub(crate) chrome: Chrome,
    pub(crate) name: String,
    pub(crate) back: String,
    pub(crate) note: String,
    /// Why the list is incomplete, when the walk stopped at a limit.
    pub(crate) cut: Option<String>,
    pub(crate) rows: Vec<FileRow>,
}

#[derive(Template)]
#[template(path = "file.html")]
pub(crate) struct FilePage {
    pub(crate) chrome: Chrome,
    pub(crate) name: String,
    pub(crate) rel: String,
    pub(crate) back: String,
    pub(crate) note: String,
    /// The contents, when they are text small enough to show.
    pub(crate) text: Option<String>,
}

#[derive(Template)]
#[template(path = "error.html")]
pub(crate) struct ErrorPage {
    pub(crate) chrome: Chrome,
    pub(crate) title: String,
    pub(crate) back: Option<String>,
}
