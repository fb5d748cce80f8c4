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
//!   ([`watch`]).
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
//! let live = LiveCatalog::new(Catalog::builder().root("skills")).expect("a valid configuration");
//! let server = SkillServer::new(live, Options::default());
//! let _live = skilldeck_mcp::watch(server.clone(), Watch { roots: vec!["skills".into()], store: None });
//! skilldeck_mcp::serve_stdio(server).await
//! # }
//! ```

mod find_skills;
mod http;
mod level1;
mod live;
mod mime;
mod publication;
mod server;
mod stdio;
mod uri;
mod wire;

use std::io;
use std::time::Duration;

use rmcp::ServiceExt;
use tokio::io::{AsyncRead, AsyncWrite};

pub use find_skills::{
    DEFAULT_LIMIT as FIND_SKILLS_DEFAULT_LIMIT, DESCRIPTION as FIND_SKILLS_DESCRIPTION, FIND_SKILLS,
    MAX_LIMIT as FIND_SKILLS_MAX_LIMIT,
};
pub use http::{HttpLimits, HttpOptions, MAX_BODY_BYTES, serve_http};
pub use level1::{DEFAULT_BUDGET, FindSkills, Format, NO_SKILLS};
pub use live::{Live, Watch, watch};
pub use publication::{MAX_BYTES, MAX_FILES};
pub use server::{CACHE_SCOPE, Change, DEFAULT_PAGE_SIZE, Options, SkillServer, TTL_MS};
pub use stdio::MAX_PENDING_ANSWERS;
pub use wire::MAX_MESSAGE_BYTES;

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
    let outcome = match server.serve(transport).await {
        Ok(running) => running.waiting().await.map(drop).map_err(io::Error::other),
        // The peer left before a lifecycle began (EOF): nothing to serve.
        Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => Ok(()),
        Err(error) => Err(io::Error::other(error)),
    };
    // Every queued answer is written before returning.
    let _ = tokio::time::timeout(Duration::from_secs(5), writer).await;
    outcome
}
