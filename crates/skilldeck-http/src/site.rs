//! Which `Host` a request may name and which `Origin` it may come from: the
//! defence against DNS rebinding and cross-site requests of every surface.

use std::net::{IpAddr, SocketAddr};

use axum::http::uri::Authority;
use axum::http::{HeaderMap, Uri, header};

/// The address a server listens on, as requests must name it.
///
/// `Host` must name this server: `localhost` or a loopback address, or the
/// bound address itself when it is a specific non-loopback one; bound to
/// every interface (`0.0.0.0`, `[::]`, which needs a token), any `Host`.
/// An `Origin`, when sent, must be this server's own: a page of another
/// port, even on loopback, is another site.
///
/// ```
/// use axum::http::{HeaderMap, HeaderValue};
/// use skilldeck_http::Site;
///
/// let site = Site::new("127.0.0.1:8765".parse().unwrap());
/// let mut headers = HeaderMap::new();
/// headers.insert("host", HeaderValue::from_static("localhost:8765"));
/// assert!(site.check(&headers).is_ok());
/// headers.insert("origin", HeaderValue::from_static("http://localhost:3000"));
/// assert_eq!(site.check(&headers), Err("Origin header is not allowed: cross-site requests are refused"));
/// ```
#[derive(Clone, Debug)]
pub struct Site {
    /// The bound IP when it is a specific non-loopback address: clients may
    /// name it in `Host`.
    bound: Option<IpAddr>,
    /// Bound to every interface: any `Host` is accepted, and an `Origin`
    /// must be that very `Host`.
    any_host: bool,
    /// The port listened on: an `Origin` must name it.
    port: u16,
}

impl Site {
    /// The site of a server listening on `local` (its real port, once bound).
    pub fn new(local: SocketAddr) -> Site {
        let ip = local.ip();
        Site {
            bound: (!ip.is_loopback() && !ip.is_unspecified()).then_some(ip),
            any_host: ip.is_unspecified(),
            port: local.port(),
        }
    }

    fn names_this_server(&self, host: &str) -> bool {
        if host == "localhost" {
            return true;
        }
        match host.parse::<IpAddr>() {
            Ok(ip) => ip.is_loopback() || Some(ip) == self.bound,
            Err(_) => false,
        }
    }

    /// Checks a request's `Host` and `Origin`.
    ///
    /// # Errors
    ///
    /// Why the request is refused (answer `403`).
    pub fn check(&self, headers: &HeaderMap) -> Result<(), &'static str> {
        let host = headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .and_then(|h| h.parse::<Authority>().ok())
            .ok_or("missing or malformed Host header")?;
        if !self.any_host && !self.names_this_server(&normalize(host.host())) {
            return Err("Host header is not allowed");
        }
        let Some(origin) = headers.get(header::ORIGIN) else {
            return Ok(());
        };
        let origin = origin
            .to_str()
            .ok()
            .and_then(|o| o.parse::<Uri>().ok())
            .filter(|o| matches!(o.scheme_str(), Some("http" | "https")));
        let same = origin.as_ref().and_then(|o| Some((o, o.authority()?))).is_some_and(|(uri, authority)| {
            let origin_host = normalize(authority.host());
            if self.any_host {
                // Behind a proxy the port a browser saw is not ours: the
                // origin must be the very authority the request names.
                origin_host == normalize(host.host()) && authority.port_u16() == host.port_u16()
            } else {
                let default = if uri.scheme_str() == Some("https") { 443 } else { 80 };
                self.names_this_server(&origin_host) && authority.port_u16().unwrap_or(default) == self.port
            }
        });
        if same { Ok(()) } else { Err("Origin header is not allowed: cross-site requests are refused") }
    }
}

/// A host as compared: brackets off, lowercase.
fn normalize(host: &str) -> String {
    host.trim_start_matches('[').trim_end_matches(']').to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    fn allowed(site: &Site, pairs: &[(&'static str, &str)]) -> bool {
        site.check(&headers(pairs)).is_ok()
    }

    #[test]
    fn loopback_hosts_pass_and_others_are_forbidden() {
        let site = Site::new("127.0.0.1:8080".parse().unwrap());
        for host in ["127.0.0.1:8080", "localhost:8080", "localhost", "[::1]:8080", "LOCALHOST:1"] {
            assert!(allowed(&site, &[("host", host)]), "{host}");
        }
        for host in ["evil.example.com", "evil.example.com:8080", "10.0.0.1:8080", "localhost.evil.com", "bad host"] {
            assert!(!allowed(&site, &[("host", host)]), "{host}");
        }
        assert_eq!(site.check(&headers(&[])), Err("missing or malformed Host header"));
    }

    #[test]
    fn an_origin_must_be_this_server() {
        let site = Site::new("127.0.0.1:8080".parse().unwrap());
        let check = |origin: &str| allowed(&site, &[("host", "127.0.0.1:8080"), ("origin", origin)]);
        assert!(check("http://127.0.0.1:8080"));
        assert!(check("http://localhost:8080"));
        assert!(check("https://[::1]:8080"));
        // Another local port is another site (a dev server, the MCP Inspector's page).
        assert!(!check("http://localhost:3000"));
        assert!(!check("http://127.0.0.1:8081"));
        assert!(!check("http://127.0.0.1"));
        assert!(!check("http://evil.example.com:8080"));
        assert!(!check("null"));
        assert!(!check("file://localhost"));
        let on_80 = Site::new("127.0.0.1:80".parse().unwrap());
        assert!(allowed(&on_80, &[("host", "localhost"), ("origin", "http://localhost")]));
        assert!(!allowed(&on_80, &[("host", "localhost"), ("origin", "https://localhost")]));
    }

    #[test]
    fn a_specific_bind_address_is_a_valid_host() {
        let site = Site::new("192.0.2.7:80".parse().unwrap());
        assert!(allowed(&site, &[("host", "192.0.2.7")]));
        assert!(!allowed(&site, &[("host", "192.0.2.8")]));
        assert!(allowed(&site, &[("host", "192.0.2.7"), ("origin", "http://192.0.2.7")]));
        let any = Site::new("0.0.0.0:80".parse().unwrap());
        assert!(allowed(&any, &[("host", "skills.example")]));
        assert!(allowed(&any, &[("host", "skills.example"), ("origin", "https://skills.example")]));
        assert!(allowed(&any, &[("host", "skills.example:8443"), ("origin", "https://skills.example:8443")]));
        assert!(!allowed(&any, &[("host", "skills.example"), ("origin", "https://evil.example")]));
        assert!(!allowed(&any, &[("host", "skills.example"), ("origin", "https://skills.example:9")]));
    }
}
