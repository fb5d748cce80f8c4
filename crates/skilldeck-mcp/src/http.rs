//! Streamable HTTP at `/mcp`: rmcp's service behind one guard that checks,
//! in order, the `Host` and `Origin` headers (DNS rebinding, cross-site
//! pages: 403), the bearer token (401), and the body (deadline, size, JSON,
//! shape: JSON-RPC errors), before rmcp sees the request.
//!
//! Every wait has a deadline and everything a client can open is counted
//! ([`HttpLimits`]): connections, per peer and in all, the time to send a
//! request's head and its body, the time to read what is written (the
//! accept loop and its limits are `skilldeck-http`'s, which the Studio
//! shares), live sessions, and how long a session may sit idle.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use http_body_util::BodyExt;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, ProtocolVersion};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::Value;
use skilldeck_http::{BodyError, ConnectionLimits, Site, Token, read_body};
use tokio::net::TcpListener;

use crate::server::{SkillServer, restore_result_type};
use crate::wire::{Incoming, METHOD_NOT_FOUND, Rejection, classify};

/// The largest request body read (rmcp's own default): requests here carry
/// a name or a URI.
pub const MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

/// How a Streamable HTTP server bounds what clients hold. The defaults
/// ([`HttpLimits::default`]) suit a server shared by a few hosts; every
/// number can be raised for more.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HttpLimits {
    /// Connections (in all and per peer) and the head, body and write
    /// deadlines: the accept loop's, shared with the Studio.
    pub connections: ConnectionLimits,
    /// Sessions (`initialize` handshakes) alive at once; one more gets `503`.
    pub max_sessions: usize,
    /// A session with no request for this long is closed (its id then
    /// answers `404`, and a client starts a new one).
    pub session_idle: Duration,
}

impl HttpLimits {
    /// The default [`HttpLimits::max_sessions`] (a session costs about 140 KB).
    pub const MAX_SESSIONS: usize = 128;
    /// The default [`HttpLimits::session_idle`].
    pub const SESSION_IDLE: Duration = Duration::from_secs(120);
}

impl Default for HttpLimits {
    fn default() -> Self {
        HttpLimits {
            connections: ConnectionLimits::default(),
            max_sessions: Self::MAX_SESSIONS,
            session_idle: Self::SESSION_IDLE,
        }
    }
}

/// Where and how to listen.
#[derive(Clone, Debug)]
pub struct HttpOptions {
    /// The address to bind; port 0 picks a free one.
    pub addr: SocketAddr,
    /// The bearer token every request must carry, if any.
    pub token: Option<Token>,
    /// What clients may hold, and for how long.
    pub limits: HttpLimits,
}

/// Serves `server` over Streamable HTTP at `http://ADDR/mcp` until
/// `shutdown` completes. Logs `listening on http://HOST:PORT/mcp` (the real
/// port) at `info` once listening.
///
/// # Errors
///
/// The address cannot be bound, or serving fails.
pub async fn serve_http(
    server: SkillServer,
    options: HttpOptions,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    let listener = TcpListener::bind(options.addr).await?;
    let local = listener.local_addr()?;
    let limits = options.limits;
    // The guard checks Host and Origin itself (one policy, tested here), so
    // rmcp's own check, loopback names only, is turned off.
    let config = StreamableHttpServerConfig::default().disable_allowed_hosts().disable_allowed_origins();
    let mut sessions = LocalSessionManager::default();
    sessions.session_config.keep_alive = Some(limits.session_idle);
    let sessions = Arc::new(sessions);
    let service = StreamableHttpService::new(
        // One handler per session: what a session subscribes to is its own.
        move || Ok(server.for_session()),
        sessions.clone(),
        config,
    );
    let guard = Arc::new(Guard::new(local, options.token).with_sessions(sessions, limits));
    let app = Router::new().route_service("/mcp", service).layer(middleware::from_fn_with_state(guard, check));
    tracing::info!("listening on http://{local}/mcp");
    skilldeck_http::serve(listener, app, limits.connections, shutdown).await;
    Ok(())
}

/// The request policy of one listening address.
#[derive(Debug)]
pub(crate) struct Guard {
    site: Site,
    token: Option<Token>,
    /// rmcp's sessions, counted against `limits.max_sessions`.
    sessions: Arc<LocalSessionManager>,
    /// Held while a session opens.
    opening: tokio::sync::Mutex<()>,
    limits: HttpLimits,
}

impl Guard {
    pub(crate) fn new(local: SocketAddr, token: Option<Token>) -> Guard {
        Guard {
            site: Site::new(local),
            token,
            sessions: Arc::default(),
            opening: tokio::sync::Mutex::default(),
            limits: HttpLimits::default(),
        }
    }

    /// The guard counting `sessions` against `limits`.
    fn with_sessions(self, sessions: Arc<LocalSessionManager>, limits: HttpLimits) -> Guard {
        Guard { sessions, limits, ..self }
    }

    /// DNS rebinding and other sites' pages: a `Host` this server is not, or
    /// an `Origin` that is not this server, is refused.
    pub(crate) fn check_host_and_origin(&self, headers: &HeaderMap) -> Result<(), Box<Response>> {
        self.site
            .check(headers)
            .map_err(|why| Box::new((StatusCode::FORBIDDEN, format!("Forbidden: {why}\n")).into_response()))
    }

    /// With a token, every request must carry `Authorization: Bearer <token>`.
    pub(crate) fn check_token(&self, headers: &HeaderMap) -> Result<(), Box<Response>> {
        if self.token.as_ref().is_none_or(|token| token.in_bearer(headers)) {
            return Ok(());
        }
        let mut response = (StatusCode::UNAUTHORIZED, "Unauthorized: a bearer token is required\n").into_response();
        response.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        Err(Box::new(response))
    }
}

async fn check(State(guard): State<Arc<Guard>>, request: Request, next: Next) -> Response {
    if let Err(response) = guard.check_host_and_origin(request.headers()) {
        return *response;
    }
    if let Err(response) = guard.check_token(request.headers()) {
        return *response;
    }
    if request.method() == Method::DELETE {
        // rmcp answers a session's end 202; clients take 200 or 204 as
        // success (the Python SDK warns on 202), and there is no body.
        let mut response = next.run(request).await;
        if response.status() == StatusCode::ACCEPTED {
            *response.status_mut() = StatusCode::NO_CONTENT;
        }
        return response;
    }
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let bytes = match read_body(body, MAX_BODY_BYTES, guard.limits.connections.body_timeout).await {
        Ok(bytes) => bytes,
        Err(BodyError::TooLarge(max)) => return rejection(StatusCode::PAYLOAD_TOO_LARGE, &Rejection::too_large(max)),
        Err(BodyError::TooSlow(deadline)) => {
            // The rest of the body may never come: the connection goes too.
            let mut response = rejection(StatusCode::REQUEST_TIMEOUT, &Rejection::too_slow(deadline));
            response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
            return response;
        }
    };
    let opening = match classify(&bytes) {
        Incoming::Message(message) if starts_session(&message, &parts.headers) => {
            // One session opens at a time, so the count is exact.
            let opening = guard.opening.lock().await;
            if guard.sessions.sessions.read().await.len() >= guard.limits.max_sessions {
                let busy = Rejection::busy(request_id(&message), guard.limits.max_sessions);
                return rejection(StatusCode::SERVICE_UNAVAILABLE, &busy);
            }
            Some(opening)
        }
        Incoming::Message(_) => None,
        Incoming::Reject(r) => {
            // A request rmcp would route gets its error in-band (200), but a
            // method not found on the 2026-07-28 wire is a 404 (SEP-2575, as
            // rmcp answers it); one that is not a request at all is a 400.
            let status = if r.is_malformed() {
                StatusCode::BAD_REQUEST
            } else if r.code == METHOD_NOT_FOUND && modern_wire(&parts.headers) {
                StatusCode::NOT_FOUND
            } else {
                StatusCode::OK
            };
            return rejection(status, &r);
        }
        Incoming::Ignore => return StatusCode::ACCEPTED.into_response(),
    };
    // rmcp has added the session to its map by the time it answers.
    let response = next.run(Request::from_parts(parts, Body::from(bytes))).await;
    drop(opening);
    restore_in_stream(response)
}

/// Whether a request is on the 2026-07-28 wire: its `MCP-Protocol-Version`
/// header names that era or a later one (a handshake session's names the
/// version it negotiated).
fn modern_wire(headers: &HeaderMap) -> bool {
    headers
        .get("mcp-protocol-version")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28.as_str())
}

/// Whether rmcp would open a session for this message: an `initialize`
/// without a session id.
fn starts_session(message: &ClientJsonRpcMessage, headers: &HeaderMap) -> bool {
    let initialize =
        matches!(message, ClientJsonRpcMessage::Request(r) if matches!(r.request, ClientRequest::InitializeRequest(_)));
    initialize && !headers.contains_key("mcp-session-id")
}

fn request_id(message: &ClientJsonRpcMessage) -> Option<Value> {
    match message {
        ClientJsonRpcMessage::Request(request) => serde_json::to_value(&request.id).ok(),
        _ => None,
    }
}

fn rejection(status: StatusCode, rejection: &Rejection) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], rejection.to_json().to_string()).into_response()
}

/// Puts `resultType` back on Skills-extension results in a response's SSE
/// events (rmcp strips it for sessions on the `initialize` handshake).
fn restore_in_stream(response: Response) -> Response {
    let sse = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|c| c.to_str().ok())
        .is_some_and(|c| c.starts_with("text/event-stream"));
    if !sse {
        return response;
    }
    let (parts, body) = response.into_parts();
    let body = body.map_frame(|frame| frame.map_data(restore_in_events));
    Response::from_parts(parts, Body::new(body))
}

/// Rewrites the `data:` lines of a chunk of SSE events that hold a Skills
/// result without `resultType`; anything else passes untouched.
pub(crate) fn restore_in_events(chunk: Bytes) -> Bytes {
    if !chunk.windows(8).any(|w| w == b"\"skills\"" || w.starts_with(b"\"skill\"")) {
        return chunk;
    }
    let Ok(text) = std::str::from_utf8(&chunk) else {
        return chunk;
    };
    let mut changed = false;
    let mut out = String::with_capacity(text.len() + 32);
    for line in text.split_inclusive('\n') {
        let data = line.strip_prefix("data:").map(|d| d.trim_start_matches(' ').trim_end_matches(['\r', '\n']));
        if let Some(mut message) = data.and_then(|d| serde_json::from_str::<Value>(d).ok())
            && restore_result_type(&mut message)
        {
            out.push_str("data: ");
            out.push_str(&message.to_string());
            out.push('\n');
            changed = true;
        } else {
            out.push_str(line);
        }
    }
    if changed { Bytes::from(out) } else { chunk }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    fn status(result: Result<(), Box<Response>>) -> u16 {
        result.map_or_else(|r| r.status().as_u16(), |()| 200)
    }

    // The rule itself is skilldeck-http's `Site` (tested there): these pin
    // the answers this surface gives.
    #[test]
    fn a_foreign_host_or_origin_is_forbidden() {
        let guard = Guard::new("127.0.0.1:8080".parse().unwrap(), None);
        let check = |pairs: &[(&'static str, &str)]| status(guard.check_host_and_origin(&headers(pairs)));
        assert_eq!(check(&[("host", "localhost:8080")]), 200);
        assert_eq!(check(&[("host", "evil.example.com")]), 403);
        assert_eq!(check(&[("host", "127.0.0.1:8080"), ("origin", "http://localhost:8080")]), 200);
        assert_eq!(check(&[("host", "127.0.0.1:8080"), ("origin", "http://localhost:3000")]), 403);
    }

    #[test]
    fn the_token_is_required_when_set() {
        let token = Token::new("s3cret-s3cret-s3cret").unwrap();
        let guard = Guard::new("127.0.0.1:1".parse().unwrap(), Some(token));
        assert_eq!(status(guard.check_token(&headers(&[]))), 401);
        assert_eq!(status(guard.check_token(&headers(&[("authorization", "Bearer nope")]))), 401);
        assert_eq!(status(guard.check_token(&headers(&[("authorization", "Basic s3cret-s3cret-s3cret")]))), 401);
        assert_eq!(status(guard.check_token(&headers(&[("authorization", "Bearer s3cret-s3cret-s3cret")]))), 200);
        let open = Guard::new("127.0.0.1:1".parse().unwrap(), None);
        assert_eq!(status(open.check_token(&headers(&[]))), 200);
    }

    #[test]
    fn skills_results_get_their_result_type_back() {
        let event = Bytes::from_static(
            b"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"skills\":[],\"ttlMs\":0}}\nid: 0\n\n",
        );
        let patched = restore_in_events(event);
        let text = std::str::from_utf8(&patched).unwrap();
        assert!(
            text.starts_with(
                "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"skills\":[]"
            ),
            "{text}"
        );
        assert!(text.ends_with("\nid: 0\n\n"));
        let other = Bytes::from_static(b"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[]}}\n\n");
        assert_eq!(restore_in_events(other.clone()), other);
    }
}
