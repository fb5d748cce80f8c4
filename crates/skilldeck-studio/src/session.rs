//! Browser sessions: a browser that opens `/?token=TOKEN` gets a random
//! session id the Studio keeps, never the token itself, in a cookie.
//!
//! Cookies do not separate ports: every other service on this host
//! receives the cookie too. So what it holds is worth little elsewhere: not
//! the token (which may be `serve --http`'s as well), only an id that this
//! process alone knows and that expires ([`SESSION_TTL`]), and that ends
//! with the process.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::http::HeaderMap;

/// How long a session lasts from the `?token=` visit that opened it.
pub(crate) const SESSION_TTL: Duration = Duration::from_secs(12 * 60 * 60);

/// The most sessions kept at once; one more ends the one nearest its end.
/// Only a holder of the token opens one.
pub(crate) const MAX_SESSIONS: usize = 256;

/// The cookie's name over https: the `__Host-` prefix makes browsers take
/// it only from a secure origin, with `Path=/` and no `Domain`, so no
/// sibling host can plant or widen it.
pub(crate) const SECURE_COOKIE: &str = "__Host-skilldeck_session";

/// The cookie's name over plain http. `__Host-` needs `Secure`, which
/// browsers refuse over http beyond loopback (and some on loopback too):
/// the prefix would lock users out and, on loopback, where every port is
/// as "secure" as this one, protect nothing.
pub(crate) const PLAIN_COOKIE: &str = "skilldeck_session";

/// Whether the browser reached the Studio over https: the Studio speaks
/// plain http, so only a proxy in front says so (`X-Forwarded-Proto`). A
/// client that lies gets a cookie its own browser may refuse, nothing more.
pub(crate) fn over_https(headers: &HeaderMap) -> bool {
    headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').next().is_some_and(|first| first.trim().eq_ignore_ascii_case("https")))
}

/// The session cookie's name for a request.
pub(crate) fn cookie_name(headers: &HeaderMap) -> &'static str {
    if over_https(headers) { SECURE_COOKIE } else { PLAIN_COOKIE }
}

/// The `Set-Cookie` value giving a browser session `id`.
pub(crate) fn set_cookie(headers: &HeaderMap, id: &str) -> String {
    let ttl = SESSION_TTL.as_secs();
    let secure = if over_https(headers) { "; Secure" } else { "" };
    format!("{}={id}; Path=/; Max-Age={ttl}; HttpOnly; SameSite=Strict{secure}", cookie_name(headers))
}

/// The sessions this process opened, each with the moment it ends.
#[derive(Debug)]
pub(crate) struct Sessions {
    live: Mutex<HashMap<String, Instant>>,
    ttl: Duration,
}

impl Default for Sessions {
    fn default() -> Sessions {
        Sessions::with_ttl(SESSION_TTL)
    }
}

impl Sessions {
    pub(crate) fn with_ttl(ttl: Duration) -> Sessions {
        Sessions { live: Mutex::default(), ttl }
    }

    /// Opens a session at `now`: its id (32 random bytes, hex).
    pub(crate) fn open(&self, now: Instant) -> String {
        let id = crate::guard::random_hex();
        let mut live = self.live.lock().unwrap_or_else(PoisonError::into_inner);
        live.retain(|_, ends| *ends > now);
        if live.len() >= MAX_SESSIONS
            && let Some(first) = live.iter().min_by_key(|(_, ends)| **ends).map(|(id, _)| id.clone())
        {
            live.remove(&first);
        }
        live.insert(id.clone(), now + self.ttl);
        id
    }

    /// Whether `id` is a session that has not ended at `now`.
    pub(crate) fn valid(&self, id: &str, now: Instant) -> bool {
        let live = self.live.lock().unwrap_or_else(PoisonError::into_inner);
        live.get(id).is_some_and(|ends| *ends > now)
    }
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    #[test]
    fn a_session_is_valid_until_it_ends() {
        let sessions = Sessions::with_ttl(Duration::from_secs(60));
        let start = Instant::now();
        let id = sessions.open(start);
        assert_eq!(id.len(), 64);
        assert!(sessions.valid(&id, start + Duration::from_secs(59)));
        assert!(!sessions.valid(&id, start + Duration::from_secs(60)));
        assert!(!sessions.valid("not-a-session", start));
        assert_ne!(sessions.open(start), id, "ids are random");
    }

    #[test]
    fn sessions_are_bounded() {
        let sessions = Sessions::default();
        let start = Instant::now();
        let first = sessions.open(start);
        for i in 1..=MAX_SESSIONS {
            sessions.open(start + Duration::from_millis(i as u64));
        }
        assert!(!sessions.valid(&first, start), "the one nearest its end made room");
        assert_eq!(sessions.live.lock().unwrap().len(), MAX_SESSIONS);
    }

    #[test]
    fn the_cookie_is_named_by_the_scheme() {
        let mut headers = HeaderMap::new();
        assert_eq!(
            set_cookie(&headers, "abc"),
            "skilldeck_session=abc; Path=/; Max-Age=43200; HttpOnly; SameSite=Strict"
        );
        headers.insert("x-forwarded-proto", HeaderValue::from_static("https"));
        assert_eq!(
            set_cookie(&headers, "abc"),
            "__Host-skilldeck_session=abc; Path=/; Max-Age=43200; HttpOnly; SameSite=Strict; Secure"
        );
        headers.insert("x-forwarded-proto", HeaderValue::from_static("http"));
        assert_eq!(cookie_name(&headers), PLAIN_COOKIE);
    }
}
