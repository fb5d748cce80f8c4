//! A skill's files as they are served: its `SKILL.md` (the store's record,
//! for a stored skill) and the files of its directory (a disk skill's, or
//! the one a store record took over), each with its size, and a text file's
//! contents. Everything is listed by the engine's walk of the skill
//! (`Catalog::skill_files`) and read through its `Confinement`, as
//! `skilldeck serve` reads it: a file the walk does not list cannot be asked
//! for, and one the confinement refuses is listed with the reason.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use skilldeck::{Catalog, Confinement, Refusal as Refused, Skill};

use super::{Ctx, Refusal, answer, skill_href};
use crate::Studio;
use crate::form::encode;
use crate::views::{FilePage, FileRow, FilesPage, page};

/// The largest file shown in a page; a larger one is listed, not shown.
const SHOWN_MAX: u64 = 1024 * 1024;

const SKILL_MD: &str = "SKILL.md";

/// One file of a skill: its path below the skill, and where its bytes are.
struct Entry {
    rel: String,
    bytes: Bytes,
}

enum Bytes {
    /// A store record's text.
    Record(String),
    /// A file on disk, with its size or why it is not served.
    Disk(std::path::PathBuf, Result<u64, Refused>),
}

/// The skill's files, by path in byte order, and why the list is cut short
/// when the walk stopped at a limit.
fn entries(catalog: &Catalog, skill: &Skill) -> (Vec<Entry>, Option<String>) {
    let mut out = Vec::new();
    let record = skill.record().map(|text| Entry { rel: SKILL_MD.to_owned(), bytes: Bytes::Record(text.to_owned()) });
    let (Some(dir), Some(confinement)) = (skill.dir(), skill.confinement()) else {
        return (record.into_iter().collect(), None);
    };
    let walk = catalog.skill_files(dir);
    let mut record = record;
    for found in &walk.files {
        let rel = found.rel_path();
        if rel == SKILL_MD
            && let Some(record) = record.take()
        {
            out.push(record);
            continue;
        }
        let checked = confinement.check_path(dir).and_then(|()| confinement.check_file(&found.path, walk.linked));
        out.push(Entry { rel, bytes: Bytes::Disk(found.path.clone(), checked) });
    }
    if let Some(record) = record {
        let at = out.partition_point(|e| e.rel.as_str() < SKILL_MD);
        out.insert(at, record);
    }
    (
        out,
        walk.limit_hit
            .map(|limit| format!("The walk of the directory stopped at the {limit}: the list is incomplete.")),
    )
}

/// `rel` as a URL path below `base`, each segment encoded.
fn file_href(base: &str, rel: &str) -> String {
    let segments: Vec<String> = rel.split('/').map(encode).collect();
    format!("{base}/{}", segments.join("/"))
}

/// Whether `bytes` are text a page can show: UTF-8 without NUL.
fn as_text(bytes: Vec<u8>) -> Option<String> {
    String::from_utf8(bytes).ok().filter(|text| !text.contains('\0'))
}

fn size_text(size: u64) -> String {
    match size {
        1 => "1 byte".to_owned(),
        n => format!("{n} bytes"),
    }
}

impl Studio {
    /// The exposed skill `name`, or the 404.
    fn skill_of<'c>(catalog: &'c Catalog, name: &str) -> Result<&'c Skill, Refusal> {
        catalog.get(name).ok_or_else(|| Refusal::not_found(format!("skill '{name}' not found")))
    }

    fn files_page(&self, ctx: &Ctx, name: &str) -> Result<Response, Refusal> {
        let catalog = self.inner.live.snapshot();
        let skill = Self::skill_of(&catalog, name)?;
        let base = format!("{}/files", skill_href(name));
        let (entries, cut) = entries(&catalog, skill);
        let rows = entries
            .into_iter()
            .map(|entry| {
                let (size, note, viewable) = match &entry.bytes {
                    Bytes::Record(text) => (size_text(text.len() as u64), "the store's record".to_owned(), true),
                    Bytes::Disk(_, Ok(size)) => (size_text(*size), "on disk".to_owned(), true),
                    Bytes::Disk(_, Err(refused)) => (String::new(), format!("not served: {refused}"), false),
                };
                FileRow { href: viewable.then(|| file_href(&base, &entry.rel)), rel: entry.rel, size, note }
            })
            .collect();
        let note = match (skill.record(), skill.dir()) {
            (Some(_), Some(dir)) => format!(
                "SKILL.md is the store's record; the other files are those beside the disk skill it takes the place of, in {}, served from there.",
                dir.display()
            ),
            (Some(_), None) => "A stored skill with no disk skill under it: its SKILL.md is all it has.".to_owned(),
            (None, Some(dir)) => format!("The files in {}, as agents are served them.", dir.display()),
            (None, None) => "A data skill has no files here: its host serves its resources.".to_owned(),
        };
        let view = FilesPage {
            chrome: self.chrome(ctx, None),
            name: name.to_owned(),
            back: skill_href(name),
            note,
            cut,
            rows,
        };
        Ok(page(StatusCode::OK, &view))
    }

    fn file_page(&self, ctx: &Ctx, name: &str, rel: &str) -> Result<Response, Refusal> {
        let catalog = self.inner.live.snapshot();
        let skill = Self::skill_of(&catalog, name)?;
        let (entries, _) = entries(&catalog, skill);
        let entry = entries
            .into_iter()
            .find(|e| e.rel == rel)
            .ok_or_else(|| Refusal::not_found(format!("{name} has no file {rel}")))?;
        let (size, text) = match entry.bytes {
            Bytes::Record(text) => (text.len() as u64, Some(text)),
            Bytes::Disk(_, Err(refused)) => {
                return Err(Refusal::new(StatusCode::FORBIDDEN, format!("{rel} is not served: {refused}")));
            }
            Bytes::Disk(_, Ok(size)) if size > SHOWN_MAX => (size, None),
            Bytes::Disk(path, Ok(_)) => {
                let confinement = skill.confinement().unwrap_or(&Confinement::NOWHERE);
                let bytes = confinement.read(&path).map_err(|refused| {
                    Refusal::new(StatusCode::FORBIDDEN, format!("{rel} is not served: {refused}"))
                })?;
                (bytes.len() as u64, as_text(bytes))
            }
        };
        let note = match (&text, size > SHOWN_MAX) {
            (Some(_), _) => size_text(size),
            (None, true) => format!("{}: too large to show here (over {SHOWN_MAX} bytes).", size_text(size)),
            (None, false) => format!("{}: not text (not UTF-8, or holding NUL bytes), so not shown.", size_text(size)),
        };
        let back = format!("{}/files", skill_href(name));
        let view =
            FilePage { chrome: self.chrome(ctx, None), name: name.to_owned(), rel: rel.to_owned(), back, note, text };
        Ok(page(StatusCode::OK, &view))
    }
}

pub(crate) async fn files(State(studio): State<Studio>, ctx: Ctx, Path(name): Path<String>) -> Response {
    answer(studio, ctx, Some(skill_href(&name)), move |s, ctx| s.files_page(ctx, &name)).await
}

pub(crate) async fn file(
    State(studio): State<Studio>,
    ctx: Ctx,
    Path((name, rel)): Path<(String, String)>,
) -> Response {
    let back = Some(format!("{}/files", skill_href(&name)));
    answer(studio, ctx, back, move |s, ctx| s.file_page(ctx, &name, &rel)).await
}
