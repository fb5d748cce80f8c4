//! The Studio driven through its router (tower's `oneshot`), over real
//! stores: SQLite files in temporary directories, PostgreSQL when
//! `SKILLDECK_TEST_POSTGRES` names a server (each test in a schema of its
//! own), and the in-memory store where a backend does not keep profiles yet.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs, unreachable_pub)]

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderMap, Request, header};
use http_body_util::BodyExt;
use skilldeck::store::{MemoryStore, SkillStore};
use skilldeck::{Catalog, LiveCatalog};
use skilldeck_studio::{Access, Studio};
use tempfile::TempDir;
use tower::ServiceExt;

// Every route, its flash texts and the editor's sources.
mod pages;

// A save keeps everything; delete, revert, rename, files, agent delete, history words.
mod manage;

// CSRF, Host and Origin, escaping, the URL rule, the size limit, the token.
mod safety;

// A 10,000-skill store: listing time.
mod scale;

// What other programs change, on disk and in the store, shows.
mod follow;

impl Fixture {
    /// Starts following the store and the roots, as `serve` does.
    pub fn following(&self) -> skilldeck_studio::Following {
        let _entered = self.runtime.enter();
        self.studio.follow()
    }

    /// Gets `path` until its page holds `needle` (10 seconds at most).
    #[track_caller]
    pub fn eventually(&self, path: &str, needle: &str) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while !self.get(path).body.contains(needle) {
            assert!(std::time::Instant::now() < deadline, "{path} never showed {needle:?}");
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }
}

/// The store a fixture runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
    Memory,
    /// An in-memory store the Studio is not given: its pages are read-only.
    ReadOnly,
}

/// One Studio over a disk root and a store, with a browser's cookie jar.
pub struct Fixture {
    pub app: Router,
    pub studio: Studio,
    pub store: Arc<dyn SkillStore>,
    /// Where the store is: what opens another handle on it (empty in memory).
    pub location: String,
    pub live: Arc<LiveCatalog>,
    pub root: TempDir,
    runtime: tokio::runtime::Runtime,
    jar: RefCell<BTreeMap<String, String>>,
    _db: TempDir,
}

/// A response, its body read.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: String,
}

impl Answer {
    pub fn location(&self) -> &str {
        self.headers.get(header::LOCATION).and_then(|v| v.to_str().ok()).unwrap_or("")
    }

    /// Asserts the body holds `needle`, showing the body when it does not.
    #[track_caller]
    pub fn has(&self, needle: &str) -> &Answer {
        assert!(self.body.contains(needle), "expected {needle:?} in:\n{}", self.body);
        self
    }

    #[track_caller]
    pub fn lacks(&self, needle: &str) -> &Answer {
        assert!(!self.body.contains(needle), "did not expect {needle:?} in:\n{}", self.body);
        self
    }
}

pub const HOST: &str = "127.0.0.1:7676";

/// A store of `backend`, or `None` (said on stderr) when PostgreSQL is not given.
fn open_store(backend: Backend, dir: &Path) -> Option<(Arc<dyn SkillStore>, String)> {
    match backend {
        Backend::Memory | Backend::ReadOnly => Some((Arc::new(MemoryStore::default()), String::new())),
        Backend::Sqlite => {
            let location = dir.join("skills.sqlite").to_str().unwrap().to_owned();
            Some((Arc::from(skilldeck_store::open(&location).unwrap()), location))
        }
        Backend::Postgres => {
            let url = postgres_url()?;
            static SCHEMAS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
            let n = SCHEMAS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let schema = format!("studio{}_{n}", std::process::id());
            let mut admin = ::postgres::Client::connect(&url, ::postgres::NoTls).unwrap();
            admin.batch_execute(&format!("DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}")).unwrap();
            let sep = if url.contains('?') { '&' } else { '?' };
            let location = format!("{url}{sep}options=-c%20search_path%3D{schema}&application_name={schema}");
            Some((Arc::from(skilldeck_store::open(&location).unwrap()), location))
        }
    }
}

/// Writes `root/<dir>/SKILL.md`.
pub fn disk_skill(root: &Path, dir: &str, text: &str) {
    std::fs::create_dir_all(root.join(dir)).unwrap();
    std::fs::write(root.join(dir).join("SKILL.md"), text).unwrap();
}

impl Fixture {
    /// A Studio on `backend` over a root `disk` fills; `None` when the
    /// backend is not available here.
    pub fn new(backend: Backend, disk: impl FnOnce(&Path)) -> Option<Fixture> {
        Fixture::with_access(backend, disk, Access::new(HOST.parse().unwrap(), None))
    }

    pub fn with_access(backend: Backend, disk: impl FnOnce(&Path), access: Access) -> Option<Fixture> {
        let db = tempfile::tempdir().unwrap();
        let (store, location) = open_store(backend, db.path())?;
        let root = tempfile::tempdir().unwrap();
        disk(root.path());
        let live = Arc::new(LiveCatalog::new(Catalog::builder().root(root.path()).store(store.clone())));
        let studio = Studio::new(live.clone(), (backend != Backend::ReadOnly).then(|| store.clone()));
        let app = studio.router(access);
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
        Some(Fixture { app, studio, store, location, live, root, runtime, jar: RefCell::default(), _db: db })
    }

    /// Sends `request` as it is, and keeps the cookies it sets.
    pub fn send(&self, request: Request<Body>) -> Answer {
        let response = self.runtime.block_on(self.app.clone().oneshot(request)).unwrap();
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let bytes = self.runtime.block_on(response.into_body().collect()).unwrap().to_bytes();
        for cookie in headers.get_all(header::SET_COOKIE) {
            let cookie = cookie.to_str().unwrap();
            let pair = cookie.split(';').next().unwrap();
            let (name, value) = pair.split_once('=').unwrap();
            if cookie.contains("Max-Age=0") {
                self.jar.borrow_mut().remove(name);
            } else {
                self.jar.borrow_mut().insert(name.to_owned(), value.to_owned());
            }
        }
        Answer { status, headers, body: String::from_utf8(bytes.to_vec()).unwrap() }
    }

    /// The `Cookie` header of the jar.
    pub fn cookies(&self) -> String {
        self.jar.borrow().iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("; ")
    }

    /// The CSRF token the jar holds (a GET first when there is none yet).
    pub fn csrf(&self) -> String {
        if !self.jar.borrow().contains_key("skilldeck_csrf") {
            self.get("/skills");
        }
        self.jar.borrow()["skilldeck_csrf"].clone()
    }

    pub fn get(&self, path: &str) -> Answer {
        let request =
            Request::get(path).header(header::HOST, HOST).header(header::COOKIE, self.cookies()).body(Body::empty());
        self.send(request.unwrap())
    }

    /// A form post as a browser on the page sends it: same origin, the
    /// cookie and the `csrf` field.
    pub fn post(&self, path: &str, fields: &[(&str, &str)]) -> Answer {
        let csrf = self.csrf();
        let mut all: Vec<(&str, &str)> = vec![("csrf", &csrf)];
        all.extend_from_slice(fields);
        self.post_raw(path, &encode_form(&all), Some(&format!("http://{HOST}")))
    }

    pub fn post_raw(&self, path: &str, body: &str, origin: Option<&str>) -> Answer {
        let mut request = Request::post(path)
            .header(header::HOST, HOST)
            .header(header::COOKIE, self.cookies())
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded");
        if let Some(origin) = origin {
            request = request.header(header::ORIGIN, origin);
        }
        self.send(request.body(Body::from(body.to_owned())).unwrap())
    }

    /// `POST /validate` of `content` as skill `name`, as the editor's script
    /// sends it: the diagnostic rows.
    pub fn validate(&self, content: &str, name: &str) -> serde_json::Value {
        let csrf = self.csrf();
        let request = Request::post("/validate")
            .header(header::HOST, HOST)
            .header(header::COOKIE, self.cookies())
            .header("x-csrf-token", csrf)
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(serde_json::json!({"content": content, "name": name}).to_string()));
        let answer = self.send(request.unwrap());
        assert_eq!(answer.status, 200, "{}", answer.body);
        serde_json::from_str(&answer.body).unwrap()
    }

    /// Follows a 303 to the page it names.
    #[track_caller]
    pub fn follow(&self, answer: &Answer) -> Answer {
        assert_eq!(answer.status, 303, "expected a redirect, got:\n{}", answer.body);
        self.get(answer.location())
    }
}

/// A urlencoded form body.
pub fn encode_form(fields: &[(&str, &str)]) -> String {
    use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};
    fields
        .iter()
        .map(|(k, v)| {
            format!("{}={}", utf8_percent_encode(k, NON_ALPHANUMERIC), utf8_percent_encode(v, NON_ALPHANUMERIC))
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// The value of the `<textarea id="content">` (askama-escaped), as the page holds it.
pub fn textarea(body: &str) -> String {
    let start = body.find("<textarea id=\"content\"").expect("an editor");
    let open_end = start + body[start..].find('>').unwrap() + 1;
    let close = open_end + body[open_end..].find("</textarea>").unwrap();
    // The line feed right after the tag is the parser's, not the text's.
    body[open_end..close].strip_prefix('\n').unwrap().to_owned()
}

/// The value of the hidden `began` field.
pub fn began(body: &str) -> String {
    let start = body.find("name=\"began\" value=\"").expect("a began field") + "name=\"began\" value=\"".len();
    let end = start + body[start..].find('"').unwrap();
    unescape(&body[start..end])
}

/// Text as askama writes it in HTML: `&`, `<`, `>`, `"` and `'` as
/// numeric character references.
pub fn escape(text: &str) -> String {
    text.replace('&', "&#38;").replace('<', "&#60;").replace('>', "&#62;").replace('"', "&#34;").replace('\'', "&#39;")
}

/// HTML text back to text (askama's escapes).
pub fn unescape(text: &str) -> String {
    text.replace("&#60;", "<").replace("&#62;", ">").replace("&#34;", "\"").replace("&#39;", "'").replace("&#38;", "&")
}

// The PostgreSQL server of the PostgreSQL variants (`None` when unset, a failure under CI).
#[path = "../../skilldeck-store/tests/postgres_url.rs"]
mod postgres_url;
use postgres_url::postgres_url;
