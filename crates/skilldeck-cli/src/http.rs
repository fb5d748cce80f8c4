//! What every HTTP surface (`serve --http`, `studio`) takes alike: the
//! address, the token and the connection limits, with one set of flags
//! and one rule each.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use anyhow::{Context, bail};
use clap::Args;
use skilldeck_http::{ConnectionLimits, Token};

/// The environment variable holding the bearer token when `--token` is absent.
pub(crate) const TOKEN_VAR: &str = "SKILLDECK_TOKEN";

/// The connection guard's flags (`skilldeck-http`'s `ConnectionLimits`).
#[derive(Args, Debug)]
pub(crate) struct ConnectionArgs {
    /// HTTP connections served at once (default: from the open-file limit, `ulimit -n`); when
    /// full, the one that has waited longest for its request makes room.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1_048_576))]
    http_max_connections: Option<u64>,
    /// HTTP connections one client address may hold (IPv6: one /64; default: half of
    /// --http-max-connections).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1_048_576))]
    http_max_per_peer: Option<u64>,
    /// Seconds an HTTP client has to send a request's head (idle connections close after it too).
    #[arg(long, value_name = "SECONDS", default_value_t = ConnectionLimits::HEADER_TIMEOUT.as_secs(), value_parser = clap::value_parser!(u64).range(1..=86_400))]
    http_header_timeout: u64,
    /// Seconds an HTTP client has to send a request's body; then 408.
    #[arg(long, value_name = "SECONDS", default_value_t = ConnectionLimits::BODY_TIMEOUT.as_secs(), value_parser = clap::value_parser!(u64).range(1..=86_400))]
    http_body_timeout: u64,
    /// Seconds an HTTP client may leave a response unread before its connection is closed.
    #[arg(long, value_name = "SECONDS", default_value_t = ConnectionLimits::WRITE_TIMEOUT.as_secs(), value_parser = clap::value_parser!(u64).range(1..=86_400))]
    http_write_timeout: u64,
}

impl ConnectionArgs {
    pub(crate) fn limits(&self) -> ConnectionLimits {
        let count = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        let defaults = ConnectionLimits::default();
        ConnectionLimits {
            max_connections: self.http_max_connections.map_or(defaults.max_connections, count),
            max_per_peer: self.http_max_per_peer.map(count),
            header_timeout: Duration::from_secs(self.http_header_timeout),
            body_timeout: Duration::from_secs(self.http_body_timeout),
            write_timeout: Duration::from_secs(self.http_write_timeout),
        }
    }
}

/// The address `flag` names (`ADDR:PORT`, or `localhost:PORT`): the one
/// rule of every HTTP surface that beyond loopback a token is required.
pub(crate) fn listen_addr(flag: &str, addr: &str, has_token: bool) -> anyhow::Result<SocketAddr> {
    let addr = match addr.parse::<SocketAddr>() {
        Ok(addr) => addr,
        Err(_) => match addr.rsplit_once(':') {
            Some(("localhost", port)) => SocketAddr::new(
                IpAddr::V4(Ipv4Addr::LOCALHOST),
                port.parse().with_context(|| format!("{flag} {addr}: bad port"))?,
            ),
            _ => bail!("{flag} expects ADDR:PORT (such as 127.0.0.1:8080 or [::1]:0), got {addr:?}"),
        },
    };
    if !addr.ip().is_loopback() && !has_token {
        bail!("{flag} {addr} listens beyond loopback: give a bearer token with --token or ${TOKEN_VAR}");
    }
    Ok(addr)
}

/// The token from `--token`, else `$SKILLDECK_TOKEN`; an empty one is none.
///
/// # Errors
///
/// One that is blank or too short to guard anything ([`Token::new`]),
/// named by where it came from.
pub(crate) fn token(flag: Option<&str>) -> anyhow::Result<Option<Token>> {
    let (text, source) = match flag {
        Some(text) => (text.to_owned(), "--token".to_owned()),
        None => match std::env::var(TOKEN_VAR) {
            Ok(text) => (text, format!("${TOKEN_VAR}")),
            Err(_) => return Ok(None),
        },
    };
    if text.is_empty() {
        return Ok(None);
    }
    Token::new(&text).map(Some).map_err(|error| anyhow::anyhow!("{source} {error}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_needs_no_token_and_anything_else_does() {
        assert_eq!(listen_addr("--http", "127.0.0.1:0", false).unwrap().to_string(), "127.0.0.1:0");
        assert_eq!(listen_addr("--http", "localhost:8080", false).unwrap().to_string(), "127.0.0.1:8080");
        assert_eq!(listen_addr("--http", "[::1]:9", false).unwrap().to_string(), "[::1]:9");
        assert!(listen_addr("--http", "0.0.0.0:8080", false).is_err());
        assert!(listen_addr("--http", "192.0.2.1:8080", false).is_err());
        assert!(listen_addr("--http", "0.0.0.0:8080", true).is_ok());
        assert!(listen_addr("--http", "nonsense", false).is_err());
    }

    #[test]
    fn a_given_token_is_checked_and_an_empty_one_is_none() {
        assert!(token(Some("")).unwrap().is_none());
        assert_eq!(token(Some("  sixteen-bytes-ok ")).unwrap().unwrap().as_str(), "sixteen-bytes-ok");
        assert_eq!(
            token(Some(" ")).unwrap_err().to_string(),
            "--token is blank; a token holds at least 16 bytes (make one with `openssl rand -hex 32`)"
        );
    }
}
