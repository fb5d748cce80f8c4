//! skilldeck-mcp: skilldeck's MCP server. Its one job: publish a live
//! skilldeck catalog over the Model Context Protocol, built on the official
//! Rust SDK (rmcp), over stdio and Streamable HTTP.
//!
//! What a client gets, from one catalog generation per request:
//!
//! - the tool: `skill` (toolnexus), or `load_skill` when an agent profile is
//!   served, with the library's declaration and outputs byte for byte;
//! - every file of every exposed skill as a `skill://<name>/<path>` resource
//!   (data and store skills: their `SKILL.md`);
//! - the Skills extension (`io.modelcontextprotocol/skills`): `skills/list`
//!   (cursor pages in URI order) and `skills/get`, each entry the skill's
//!   frontmatter and every file with its SHA-256 digest and size; a skill over
//!   [`MAX_FILES`] files or [`MAX_BYTES`] bytes is left out of everything;
//! - each exposed skill as a prompt whose one user message is the tool's
//!   output for it;
//! - list-changed notifications when the roots or the store change
//!   ([`watch`]) or the client's `roots` move the project whose skills are
//!   served ([`ClientRoots`]), and `notifications/resources/updated` for each
//!   file a client follows (`resources/subscribe` on the handshake, a
//!   `subscriptions/listen` stream's `resourceSubscriptions` on 2026-07-28)
//!   when a reload finds it changed;
//! - on the handshake, log messages at the level a session sets
//!   (`logging/setLevel`): a reload's outcome (`info`), what is not served
//!   (`warning`), a reload that failed (`error`).
//!
//! Both protocol eras are served: 2026-07-28 (`server/discover`, metadata on
//! every request) and the older `initialize` handshake. The engine never
//! depends on this crate.
//!
//! # Example
//!
//! ```no_run
//! use skilldeck::{Catalog, LiveCatalog};
//! use skilldeck_mcp::{Options, SkillServer, Watch};
//!
//! # async fn run() -> std::io::Result<()> {
//! let live = LiveCatalog::new(Catalog::builder().root("skills"));
//! let server = SkillServer::new(live, Options::default());
//! let _live = skilldeck_mcp::watch(server.clone(), Watch { roots: vec!["skills".into()], ..Watch::default() });
//! skilldeck_mcp::serve_stdio(server).await
//! # }
//! ```

mod client_roots;
mod early_search;
mod find_skills;
mod http;
mod level1;
mod live;
mod mime;
mod publication;
mod ready;
mod server;
mod start_cache;
mod stdio;
mod subscribers;
mod uri;
mod wire;

use std::io;
use std::time::Duration;

use rmcp::ServiceExt;
use tokio::io::{AsyncRead, AsyncWrite};

pub use client_roots::ClientRoots;
pub use find_skills::{
    DEFAULT_LIMIT as FIND_SKILLS_DEFAULT_LIMIT, DESCRIPTION as FIND_SKILLS_DESCRIPTION, FIND_SKILLS,
    MAX_LIMIT as FIND_SKILLS_MAX_LIMIT,
};
pub use http::{HttpLimits, HttpOptions, MAX_BODY_BYTES, serve_http};
pub use level1::{DEFAULT_BUDGET, FindSkills, Format, NO_SKILLS, no_skills};
pub use live::{Live, Watch, default_max_watches, watch};
pub use publication::{MAX_BYTES, MAX_FILES};
pub use ready::{INSTRUCTIONS_WAIT, loading_instructions};
pub use server::{CACHE_SCOPE, Change, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, Options, ProfileStore, SkillServer, TTL_MS};
pub use skilldeck_http::{ConnectionLimits, Token, TokenError};
pub use start_cache::StartCache;
pub use stdio::MAX_PENDING_ANSWERS;
pub use wire::MAX_MESSAGE_BYTES;

/// Entry points to the crate-private parsers of outside bytes (`skill://`
/// URIs, the first look at a wire message, the stdio line reader) for the
/// cargo-fuzz targets in `fuzz/`. Built only with the `fuzzing` feature; not
/// part of the API.
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing {
    use rmcp::model::JsonRpcMessage;
    use rmcp::transport::Transport;
    use tokio::io::{AsyncRead, AsyncReadExt};

    use crate::stdio::LineTransport;
    use crate::wire::{Incoming, classify as classify_message};

    /// `skill://<name>`.
    pub fn skill_base(name: &str) -> String {
        crate::uri::skill_base(name)
    }

    /// `base` followed by the percent-encoded segments of `rel`.
    pub fn file_uri(base: &str, rel: &[u8]) -> String {
        crate::uri::file_uri(base, rel)
    }

    /// A resource URI's canonical form, or why it is refused.
    pub fn canonical(uri: &str) -> Result<String, String> {
        crate::uri::canonical(uri).map_err(|error| format!("{error:?}"))
    }

    /// What the first look makes of one message.
    #[derive(Debug)]
    pub enum Classified {
        /// A request, handed to rmcp.
        Request,
        /// A notification or response, handed to rmcp.
        Other,
        /// Answered with this JSON-RPC error (one line, without its newline).
        Rejected(String),
        /// A notification that fits nothing: no answer.
        Ignored,
    }

    /// Classifies one message (one stdio line without its line break).
    pub fn classify(bytes: &[u8]) -> Classified {
        match classify_message(bytes) {
            Incoming::Message(message) if matches!(*message, JsonRpcMessage::Request(_)) => Classified::Request,
            Incoming::Message(_) => Classified::Other,
            Incoming::Reject(rejection) => Classified::Rejected(rejection.to_json().to_string()),
            Incoming::Ignore => Classified::Ignored,
        }
    }

    /// Reads `read` to its end with the stdio transport, lines capped at
    /// `max` bytes: how many messages it handed on, and every byte it wrote
    /// back. Needs a Tokio runtime.
    pub async fn read_lines<R: AsyncRead + Unpin + Send + 'static>(read: R, max: usize) -> (usize, Vec<u8>) {
        let (out_write, mut out_read) = tokio::io::duplex(64 * 1024);
        let collected = tokio::spawn(async move {
            let mut written = Vec::new();
            let _ = out_read.read_to_end(&mut written).await;
            written
        });
        let (transport, writer) = LineTransport::new(read, out_write);
        let mut transport = transport.with_max(max);
        let mut passed = 0;
        while Transport::<rmcp::RoleServer>::receive(&mut transport).await.is_some() {
            passed += 1;
        }
        drop(transport);
        let _ = writer.await;
        (passed, collected.await.unwrap_or_default())
    }
}

/// Serves `server` on this process's stdin and stdout until stdin closes.
/// Stdout carries the protocol only; diagnostics are `tracing` events.
///
/// # Errors
///
/// The transport fails before the first message is handled.
pub async fn serve_stdio(server: SkillServer) -> io::Result<()> {
    let (read, write) = rmcp::transport::stdio_pipes();
    serve_lines(server, read, write).await
}

/// Serves `server` on any reader and writer of newline-delimited JSON-RPC
/// (what [`serve_stdio`] does on stdin and stdout) until the reader ends.
///
/// # Errors
///
/// The transport fails before the first message is handled.
pub async fn serve_lines<R, W>(server: SkillServer, read: R, write: W) -> io::Result<()>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (transport, writer) = stdio::LineTransport::new(read, write);
    // A session of its own: what it subscribes to is its own.
    let outcome = match server.for_session().serve(transport).await {
        Ok(running) => running.waiting().await.map(drop).map_err(io::Error::other),
        // The peer left before a lifecycle began (EOF): nothing to serve.
        Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => Ok(()),
        Err(error) => Err(io::Error::other(error)),
    };
    // Every queued answer is written before returning.
    let _ = tokio::time::timeout(Duration::from_secs(5), writer).await;
    outcome
}
