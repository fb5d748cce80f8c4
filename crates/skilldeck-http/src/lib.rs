//! skilldeck's HTTP connection guard: what stands between a TCP socket and
//! an application, the same for every HTTP server skilldeck runs (the MCP
//! server's `serve --http` and the Studio).
//!
//! - [`serve`]: the accept loop. HTTP/1.1 (hyper) with a deadline for a
//!   request's head and for every write, a connection cap sized from the
//!   descriptors the process may hold, a bound per peer address, and, when
//!   either is reached, the oldest connection still waiting for its head shed
//!   to make room: a flood of idle or slow sockets never keeps a complete
//!   request out ([`ConnectionLimits`]).
//! - [`read_body`]: a request's body within its deadline and size.
//! - [`Site`]: which `Host` a request may name and which `Origin` it may come
//!   from (DNS rebinding, cross-site requests).
//! - [`Token`]: a bearer token long enough to guard anything, and the
//!   constant-time check of one.
//!
//! It is a crate of its own because its two users must not depend on each
//! other: the Studio is no MCP server (it would pull rmcp and the watcher),
//! the MCP server has no pages (askama, the Markdown renderer), and the
//! engine knows nothing of HTTP. One guard, one place, both surfaces.
//!
//! # Example
//!
//! ```no_run
//! use axum::{Router, routing::get};
//! use skilldeck_http::ConnectionLimits;
//!
//! # async fn run() -> std::io::Result<()> {
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! let app = Router::new().route("/", get(|| async { "hello" }));
//! skilldeck_http::serve(listener, app, ConnectionLimits::default(), std::future::pending()).await;
//! # Ok(())
//! # }
//! ```

mod body;
mod limits;
mod serve;
mod site;
mod table;
mod token;

pub use body::{BodyError, read_body};
pub use limits::{ConnectionLimits, descriptor_limit};
pub use serve::{SHUTDOWN_GRACE, serve};
pub use site::Site;
pub use token::{MIN_TOKEN_BYTES, Token, TokenError, constant_time_eq};
