//! What a server lets clients hold, and for how long.

use std::time::Duration;

/// How [`serve`](crate::serve) bounds what clients hold. The defaults
/// ([`ConnectionLimits::default`]) size the connection cap from the
/// process's descriptor limit; every number can be set.
///
/// ```
/// use skilldeck_http::ConnectionLimits;
///
/// let limits = ConnectionLimits::default();
/// assert_eq!(limits.max_connections, ConnectionLimits::max_connections_for(skilldeck_http::descriptor_limit()));
/// assert_eq!(limits.per_peer(), (limits.max_connections / 2).max(1));
/// assert_eq!(ConnectionLimits::max_connections_for(1024), 448);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// Connections served at once. When it is reached, a new connection
    /// takes the place of the one that has waited longest for its request
    /// head (an idle keep-alive connection, a slow or stalled client); only
    /// when every connection is busy with a request does the next wait to be
    /// accepted, which the deadlines below bound.
    pub max_connections: usize,
    /// Connections one peer address may hold (IPv6: one /64); `None` is half
    /// of [`ConnectionLimits::max_connections`]. Beyond it, a new connection
    /// takes the place of that peer's longest-waiting one, or is closed at
    /// once when all of the peer's are busy.
    pub max_per_peer: Option<usize>,
    /// The time a client has to send a request's head (its request line and
    /// headers), from the connection's start or the end of its previous
    /// response: a connection that sends no complete head within it, idle
    /// keep-alive ones included, is closed.
    pub header_timeout: Duration,
    /// The time a client has to send a request's whole body once its head
    /// is in ([`read_body`](crate::read_body)); past it the answer is `408`
    /// and the connection is closed.
    pub body_timeout: Duration,
    /// The time a write to a client may wait for it to read: a connection
    /// whose client stops reading (a response, a stream) for this long is
    /// closed.
    pub write_timeout: Duration,
}

impl ConnectionLimits {
    /// The default [`ConnectionLimits::header_timeout`].
    pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
    /// The default [`ConnectionLimits::body_timeout`].
    pub const BODY_TIMEOUT: Duration = Duration::from_secs(10);
    /// The default [`ConnectionLimits::write_timeout`].
    pub const WRITE_TIMEOUT: Duration = Duration::from_secs(30);
    /// Descriptors kept for everything but connections: the catalog's
    /// reads, the watcher, the store, the runtime.
    pub const RESERVED_DESCRIPTORS: u64 = 128;
    /// The most connections the default allows, whatever the descriptor
    /// limit: each costs about 10 KiB of buffers while it waits.
    pub const MAX_CONNECTIONS_CEILING: usize = 16_384;

    /// The connection cap for a process that may hold `descriptors` open
    /// files: half of what is left after [`Self::RESERVED_DESCRIPTORS`]
    /// (a connection's socket, and the file its request may be reading),
    /// between 1 and [`Self::MAX_CONNECTIONS_CEILING`].
    pub fn max_connections_for(descriptors: u64) -> usize {
        let half = descriptors.saturating_sub(Self::RESERVED_DESCRIPTORS) / 2;
        usize::try_from(half).unwrap_or(usize::MAX).clamp(1, Self::MAX_CONNECTIONS_CEILING)
    }

    /// The bound per peer address in force: [`ConnectionLimits::max_per_peer`]
    /// or half the cap, at least 1 and at most the cap.
    pub fn per_peer(&self) -> usize {
        let max = self.max_connections.max(1);
        self.max_per_peer.unwrap_or(max / 2).clamp(1, max)
    }
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        ConnectionLimits {
            max_connections: Self::max_connections_for(descriptor_limit()),
            max_per_peer: None,
            header_timeout: Self::HEADER_TIMEOUT,
            body_timeout: Self::BODY_TIMEOUT,
            write_timeout: Self::WRITE_TIMEOUT,
        }
    }
}

/// The open files this process may hold now: the soft `RLIMIT_NOFILE`
/// (`u64::MAX` when unlimited). Where there is no such limit (not Unix), 1024.
pub fn descriptor_limit() -> u64 {
    #[cfg(unix)]
    {
        rustix::process::getrlimit(rustix::process::Resource::Nofile).current.unwrap_or(u64::MAX)
    }
    #[cfg(not(unix))]
    {
        1024
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_follows_the_descriptor_limit() {
        assert_eq!(ConnectionLimits::max_connections_for(0), 1);
        assert_eq!(ConnectionLimits::max_connections_for(128), 1);
        assert_eq!(ConnectionLimits::max_connections_for(256), 64);
        assert_eq!(ConnectionLimits::max_connections_for(20_000), 9_936);
        assert_eq!(ConnectionLimits::max_connections_for(u64::MAX), ConnectionLimits::MAX_CONNECTIONS_CEILING);
    }

    #[test]
    fn the_peer_bound_is_half_the_cap_unless_set() {
        let limits = ConnectionLimits { max_connections: 10, ..ConnectionLimits::default() };
        assert_eq!(limits.per_peer(), 5);
        assert_eq!(ConnectionLimits { max_per_peer: Some(3), ..limits }.per_peer(), 3);
        assert_eq!(ConnectionLimits { max_per_peer: Some(30), ..limits }.per_peer(), 10);
        assert_eq!(ConnectionLimits { max_connections: 1, ..limits }.per_peer(), 1);
    }
}
