//! What every request passes before a page sees it: `Host` and `Origin`
//! (DNS rebinding and cross-site posts: 403), the token when one is set
//! (401; a browser's `?token=` visit is exchanged for a session), the body's
//! size (413) and deadline (408), and the double-submit CSRF token of every
//! POST (403). It also hands pages their CSRF token and the flash a
//! redirect left. The connection limits in front of it are
//! `skilldeck-http`'s, as `serve --http` has them.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use skilldeck_http::{BodyError, ConnectionLimits, Site, Token, constant_time_eq, read_body};

use crate::flash::{CLEAR_FLASH, FLASH_COOKIE, decode_flash};
use crate::form;
use crate::session::{self, Sessions};

/// The largest request body accepted: 1 MiB (a `SKILL.md` and its form).
pub const MAX_BODY_BYTES: usize = 1 << 20;

/// The cookie holding the double-submit CSRF token.
pub const CSRF_COOKIE: &str = "skilldeck_csrf";

/// Who may reach the Studio: the address it listens on (which `Host`
/// must name) and the token every request must carry, if any. Beyond
/// loopback the command line requires a token, as `serve --http` does.
#[derive(Clone, Debug)]
pub struct Access {
    site: Site,
    token: Option<Token>,
    /// The browsers that gave the token, by session id.
    sessions: Arc<Sessions>,
    body_timeout: Duration,
}

impl Access {
    /// The policy for a server listening on `local`, with `token` if any.
    ///
    /// ```
    /// let access = skilldeck_studio::Access::new("127.0.0.1:7676".parse().unwrap(), None);
    /// assert!(format!("{access:?}").contains("any_host: false"));
    /// ```
    pub fn new(local: SocketAddr, token: Option<Token>) -> Access {
        Access { site: Site::new(local), token, sessions: Arc::default(), body_timeout: ConnectionLimits::BODY_TIMEOUT }
    }

    /// The same policy, reading bodies within `deadline`.
    pub(crate) fn body_timeout(self, deadline: Duration) -> Access {
        Access { body_timeout: deadline, ..self }
    }
}

fn forbidden(why: &str) -> Response {
    (StatusCode::FORBIDDEN, format!("Forbidden: {why}\n")).into_response()
}

/// The value of cookie `name` in the request's `Cookie` headers.
pub(crate) fn cookie<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|h| h.to_str().ok())
        .flat_map(|h| h.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value)
}

/// The request's CSRF token, as pages put it in their forms.
#[derive(Clone, Debug)]
pub(crate) struct Csrf(pub(crate) String);

/// 32 random bytes, hex: a CSRF token, a session id.
pub(crate) fn random_hex() -> String {
    let mut bytes = [0u8; 32];
    // Without randomness there is no safe token: refuse to go on.
    #[allow(clippy::expect_used)]
    getrandom::fill(&mut bytes).expect("the operating system's random source failed");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn well_formed(token: &str) -> bool {
    token.len() == 64 && token.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The router behind the checks.
pub(crate) fn wrap(routes: Router, access: Access) -> Router {
    routes.layer(middleware::from_fn_with_state(Arc::new(access), check))
}

async fn check(State(access): State<Arc<Access>>, request: Request, next: Next) -> Response {
    if let Err(why) = access.site.check(request.headers()) {
        return forbidden(why);
    }
    if let Some(token) = &access.token {
        match token_given(&access, request.headers(), request.uri(), token) {
            Given::Yes => {}
            Given::InQuery => return token_redirect(&access, request.headers(), request.uri()),
            Given::No => {
                let mut response = (
                    StatusCode::UNAUTHORIZED,
                    "Unauthorized: a bearer token is required (open the Studio at /?token=TOKEN)\n",
                )
                    .into_response();
                response.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
                return response;
            }
        }
    }
    let cookie_token = cookie(request.headers(), CSRF_COOKIE).filter(|t| well_formed(t)).map(str::to_owned);
    // Only a flash this process signed: any page of this host can set the cookie.
    let flash = cookie(request.headers(), FLASH_COOKIE).and_then(decode_flash);
    let (parts, body) = request.into_parts();
    let request = if parts.method == Method::POST {
        let declared = parts.headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
        if declared.is_some_and(|n| n > MAX_BODY_BYTES as u64) {
            return too_large();
        }
        let bytes = match read_body(body, MAX_BODY_BYTES, access.body_timeout).await {
            Ok(bytes) => bytes,
            Err(BodyError::TooLarge(_)) => return too_large(),
            Err(error @ BodyError::TooSlow(_)) => {
                // The rest may never come: the connection goes too.
                let mut response = (StatusCode::REQUEST_TIMEOUT, format!("Request Timeout: {error}\n")).into_response();
                response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
                security_headers(response.headers_mut());
                return response;
            }
        };
        let given = match parts.headers.get("x-csrf-token") {
            Some(header) => header.to_str().ok().map(str::to_owned),
            None => form::parse(&bytes).into_iter().find(|(k, _)| k == "csrf").map(|(_, v)| v),
        };
        let matches = match (&cookie_token, &given) {
            (Some(cookie), Some(given)) => constant_time_eq(cookie.as_bytes(), given.as_bytes()),
            _ => false,
        };
        if !matches {
            let why = match (&cookie_token, &given) {
                (None, _) => "the CSRF cookie is missing: load the page again, then send the form",
                (_, None) => "the form carries no CSRF token",
                _ => "the form's CSRF token does not match: load the page again, then send the form",
            };
            return forbidden(why);
        }
        Request::from_parts(parts, Body::from(bytes))
    } else {
        Request::from_parts(parts, body)
    };
    let fresh = cookie_token.is_none().then(random_hex);
    let mut request = request;
    request.extensions_mut().insert(Csrf(cookie_token.or_else(|| fresh.clone()).unwrap_or_default()));
    let had_flash = flash.is_some();
    if let Some(flash) = flash {
        request.extensions_mut().insert(flash);
    }
    let is_get = request.method() == Method::GET;
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    if let Some(token) = fresh {
        let cookie = format!("{CSRF_COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict");
        if let Ok(value) = HeaderValue::from_str(&cookie) {
            headers.append(header::SET_COOKIE, value);
        }
    }
    // A page shown once takes its flash; a redirect that sets a new one keeps it.
    if had_flash
        && is_get
        && !headers.get_all(header::SET_COOKIE).iter().any(|v| v.as_bytes().starts_with(FLASH_COOKIE.as_bytes()))
    {
        headers.append(header::SET_COOKIE, HeaderValue::from_static(CLEAR_FLASH));
    }
    security_headers(headers);
    response
}

/// Headers every answer carries: no framing, no sniffing, no referrer to
/// other sites (a token may be in the URL; `no-referrer` would also make
/// browsers send `Origin: null` on the Studio's own form posts), and a content policy that runs only the
/// Studio's own script and style, so even a value that escaped escaping
/// could not run.
fn security_headers(headers: &mut HeaderMap) {
    let pairs = [
        (
            header::CONTENT_SECURITY_POLICY,
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
        ),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::REFERRER_POLICY, "same-origin"),
        (header::CACHE_CONTROL, "no-store"),
    ];
    for (name, value) in pairs {
        headers.entry(name).or_insert(HeaderValue::from_static(value));
    }
}

fn too_large() -> Response {
    (
        StatusCode::PAYLOAD_TOO_LARGE,
        format!("Payload Too Large: a request body may hold at most {MAX_BODY_BYTES} bytes\n"),
    )
        .into_response()
}

enum Given {
    Yes,
    InQuery,
    No,
}

/// Whether the request carries the token: `Authorization: Bearer` (as
/// `serve --http` asks), the cookie of a session this Studio opened, or
/// `?token=` (a browser's first visit: answered with a session and a
/// redirect).
fn token_given(access: &Access, headers: &HeaderMap, uri: &axum::http::Uri, token: &Token) -> Given {
    let session = cookie(headers, session::cookie_name(headers));
    if token.in_bearer(headers) || session.is_some_and(|id| access.sessions.valid(id, Instant::now())) {
        return Given::Yes;
    }
    let query = uri.query().map(|q| form::parse(q.as_bytes())).unwrap_or_default();
    if query.iter().any(|(k, v)| k == "token" && token.matches(v)) { Given::InQuery } else { Given::No }
}

/// 303 to the same path without `?token=`, opening a session for the browser.
fn token_redirect(access: &Access, headers: &HeaderMap, uri: &axum::http::Uri) -> Response {
    let mut response = (StatusCode::SEE_OTHER, "").into_response();
    let location = HeaderValue::from_str(&own_path(uri.path())).unwrap_or(HeaderValue::from_static("/"));
    response.headers_mut().insert(header::LOCATION, location);
    let id = access.sessions.open(Instant::now());
    if let Ok(value) = HeaderValue::from_str(&session::set_cookie(headers, &id)) {
        response.headers_mut().insert(header::SET_COOKIE, value);
    }
    security_headers(response.headers_mut());
    response
}

/// `path` as a path of this Studio: its leading slashes and backslashes
/// made one slash. `//evil.example/` (and `/\evil.example`, which browsers
/// read alike) would be another site's address in a `Location`.
fn own_path(path: &str) -> String {
    format!("/{}", path.trim_start_matches(['/', '\\']))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirects_stay_on_this_studio() {
        assert_eq!(own_path("/skills"), "/skills");
        assert_eq!(own_path("/"), "/");
        assert_eq!(own_path(""), "/");
        assert_eq!(own_path("//evil.example/"), "/evil.example/");
        assert_eq!(own_path("///evil.example"), "/evil.example");
        assert_eq!(own_path("/\\evil.example"), "/evil.example");
        assert_eq!(own_path("/\\/evil.example/x"), "/evil.example/x");
        assert_eq!(own_path("\\\\evil.example"), "/evil.example");
        assert_eq!(own_path("/a//b"), "/a//b");
    }
}
