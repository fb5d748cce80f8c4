//! What every request passes before a page sees it: `Host` and `Origin`
//! (DNS rebinding and cross-site posts: 403), the token when one is set
//! (401), the body size (413), and the double-submit CSRF token of every
//! POST (403). It also hands pages their CSRF token and the flash a
//! redirect left.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::Router;
use axum::body::{Body, to_bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};

use crate::form;

/// The largest request body accepted: 1 MiB (a `SKILL.md` and its form).
pub const MAX_BODY_BYTES: usize = 1 << 20;

/// The cookie holding the double-submit CSRF token.
pub const CSRF_COOKIE: &str = "skilldeck_csrf";

/// The cookie a browser keeps the token in, once given it as `?token=`.
const TOKEN_COOKIE: &str = "skilldeck_token";

/// The cookie carrying a flash across a redirect.
pub(crate) const FLASH_COOKIE: &str = "skilldeck_flash";

/// Who may reach the Studio: the address it listens on (which `Host`
/// must name) and the token every request must carry, if any. Beyond
/// loopback the command line requires a token, as `serve --http` does.
#[derive(Clone, Debug)]
pub struct Access {
    /// The bound IP when it is a specific non-loopback address: clients
    /// may name it in `Host`.
    bound: Option<IpAddr>,
    /// Bound to every interface: any `Host` is accepted (the token guards).
    any_host: bool,
    token: Option<String>,
}

impl Access {
    /// The policy for a server listening on `local`, with `token` if any.
    ///
    /// ```
    /// let access = skilldeck_studio::Access::new("127.0.0.1:7676".parse().unwrap(), None);
    /// assert!(format!("{access:?}").contains("any_host: false"));
    /// ```
    pub fn new(local: SocketAddr, token: Option<String>) -> Access {
        let ip = local.ip();
        Access {
            bound: (!ip.is_loopback() && !ip.is_unspecified()).then_some(ip),
            any_host: ip.is_unspecified(),
            token: token.filter(|t| !t.is_empty()),
        }
    }

    fn host_allowed(&self, host: &str) -> bool {
        if self.any_host || host == "localhost" {
            return true;
        }
        match host.parse::<IpAddr>() {
            Ok(ip) => ip.is_loopback() || Some(ip) == self.bound,
            Err(_) => false,
        }
    }

    /// `Host` must name this server; an `Origin`, when sent, must be this
    /// very `Host` (scheme http or https, same host and port).
    fn check_host_and_origin(&self, headers: &HeaderMap) -> Result<(), &'static str> {
        let authority = headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .and_then(|h| h.parse::<axum::http::uri::Authority>().ok())
            .ok_or("missing or malformed Host header")?;
        if !self.host_allowed(&normalize(authority.host())) {
            return Err("Host header is not allowed");
        }
        let Some(origin) = headers.get(header::ORIGIN) else {
            return Ok(());
        };
        let same = origin
            .to_str()
            .ok()
            .and_then(|o| o.parse::<axum::http::Uri>().ok())
            .filter(|o| matches!(o.scheme_str(), Some("http" | "https")))
            .and_then(|o| o.authority().cloned())
            .is_some_and(|o| {
                normalize(o.host()) == normalize(authority.host()) && o.port_u16() == authority.port_u16()
            });
        if same { Ok(()) } else { Err("Origin header is not allowed: cross-site requests are refused") }
    }
}

fn normalize(host: &str) -> String {
    host.trim_start_matches('[').trim_end_matches(']').to_ascii_lowercase()
}

fn forbidden(why: &str) -> Response {
    (StatusCode::FORBIDDEN, format!("Forbidden: {why}\n")).into_response()
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
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

/// The flash a redirect left for this page: its text and whether it is an error.
#[derive(Clone, Debug)]
pub(crate) struct Flash {
    pub(crate) text: String,
    pub(crate) error: bool,
}

/// A fresh token: 32 random bytes, hex.
fn new_token() -> String {
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
    if let Err(why) = access.check_host_and_origin(request.headers()) {
        return forbidden(why);
    }
    if let Some(token) = &access.token {
        match token_given(request.headers(), request.uri(), token) {
            Given::Yes => {}
            Given::InQuery => return token_redirect(request.uri(), token),
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
    let flash = cookie(request.headers(), FLASH_COOKIE).map(decode_flash);
    let (parts, body) = request.into_parts();
    let request = if parts.method == Method::POST {
        let declared = parts.headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
        if declared.is_some_and(|n| n > MAX_BODY_BYTES as u64) {
            return too_large();
        }
        let Ok(bytes) = to_bytes(body, MAX_BODY_BYTES).await else {
            return too_large();
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
    let fresh = cookie_token.is_none().then(new_token);
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
        headers.append(
            header::SET_COOKIE,
            HeaderValue::from_static("skilldeck_flash=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict"),
        );
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
/// `serve --http` asks), the cookie a browser got, or `?token=` (a
/// browser's first visit: answered with the cookie and a redirect).
fn token_given(headers: &HeaderMap, uri: &axum::http::Uri, token: &str) -> Given {
    let eq = |given: &str| constant_time_eq(given.as_bytes(), token.as_bytes());
    let bearer = headers
        .get(header::AUTHORIZATION)
        .and_then(|h| h.to_str().ok())
        .and_then(|h| h.strip_prefix("Bearer "))
        .map(str::trim);
    if bearer.is_some_and(eq) || cookie(headers, TOKEN_COOKIE).map(form::decode).is_some_and(|c| eq(&c)) {
        return Given::Yes;
    }
    let query = uri.query().map(|q| form::parse(q.as_bytes())).unwrap_or_default();
    if query.iter().any(|(k, v)| k == "token" && eq(v)) { Given::InQuery } else { Given::No }
}

/// 303 to the same path without `?token=`, setting the token cookie.
fn token_redirect(uri: &axum::http::Uri, token: &str) -> Response {
    let mut response = (StatusCode::SEE_OTHER, "").into_response();
    let location = HeaderValue::from_str(uri.path()).unwrap_or(HeaderValue::from_static("/"));
    response.headers_mut().insert(header::LOCATION, location);
    let cookie = format!("{TOKEN_COOKIE}={}; Path=/; HttpOnly; SameSite=Strict", form::encode(token));
    if let Ok(value) = HeaderValue::from_str(&cookie) {
        response.headers_mut().insert(header::SET_COOKIE, value);
    }
    security_headers(response.headers_mut());
    response
}

/// A flash as a cookie value: `ok:` or `error:`, then the text percent-encoded.
pub(crate) fn encode_flash(text: &str, error: bool) -> String {
    format!(
        "{FLASH_COOKIE}={}{}; Path=/; HttpOnly; SameSite=Strict",
        if error { "error:" } else { "ok:" },
        form::encode(text)
    )
}

fn decode_flash(value: &str) -> Flash {
    let (error, text) = match value.split_once(':') {
        Some(("error", text)) => (true, text),
        Some((_, text)) => (false, text),
        None => (false, value),
    };
    Flash { text: form::decode(text), error }
}
