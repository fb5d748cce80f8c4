//! The connections a server holds: how many, whose, and which of them are
//! waiting for a request head (and since when), so that the one that has
//! waited longest, of the peer holding the most, can be shed to make room.

use std::cmp::Reverse;
use std::collections::{BTreeMap, HashMap};
use std::net::{IpAddr, Ipv6Addr};

use tokio::sync::oneshot;

/// Whom a connection counts against: its address, an IPv6 one by its /64
/// (one host's share of a network, which can pick any address in it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Peer(IpAddr);

impl Peer {
    pub(crate) fn of(ip: IpAddr) -> Peer {
        match ip.to_canonical() {
            IpAddr::V6(v6) if !v6.is_loopback() => {
                let prefix = u128::from(v6) & !((1u128 << 64) - 1);
                Peer(IpAddr::V6(Ipv6Addr::from(prefix)))
            }
            ip => Peer(ip),
        }
    }
}

/// Why a connection was not admitted.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Full {
    /// Its peer holds its bound, every one of them busy: close it.
    Peer,
    /// The server (or the peer) is full and nothing can be shed yet: every
    /// connection is busy, or some were just accepted and have not been read
    /// yet. Wait for one to end, to finish its request or to be read.
    Wait,
}

/// One admitted connection: its id, and what tells it that it was shed.
pub(crate) struct Admitted {
    pub(crate) id: u64,
    pub(crate) shed: oneshot::Receiver<()>,
}

/// Where a connection is between requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Waiting for a head since the stamp, not yet read: its client may have
    /// sent a whole request that its task has not had the time to read, so
    /// it is not shed.
    Fresh(u64),
    /// Waiting for a head since the stamp, and read until there was nothing
    /// more: whatever its client sent is no complete head. Shed first.
    Stalled(u64),
    /// Serving a request.
    Busy,
}

struct Conn {
    peer: Peer,
    state: State,
    shed: Option<oneshot::Sender<()>>,
}

#[derive(Default)]
struct PeerConns {
    count: usize,
    /// Those not yet read (see [`State::Fresh`]).
    fresh: usize,
    /// Its stalled connections, by stamp.
    stalled: BTreeMap<u64, u64>,
}

/// The table; the server keeps it behind a mutex, each call short.
pub(crate) struct Table {
    max: usize,
    per_peer: usize,
    /// Ids and stamps both: strictly increasing, so order is age.
    clock: u64,
    conns: HashMap<u64, Conn>,
    /// Connections not yet read, all peers.
    fresh: usize,
    peers: HashMap<Peer, PeerConns>,
}

impl Table {
    pub(crate) fn new(max: usize, per_peer: usize) -> Table {
        Table {
            max: max.max(1),
            per_peer: per_peer.max(1),
            clock: 0,
            conns: HashMap::new(),
            fresh: 0,
            peers: HashMap::new(),
        }
    }

    fn tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }

    pub(crate) fn len(&self) -> usize {
        self.conns.len()
    }

    /// Admits a connection from `peer`, waiting for its first head. A full
    /// peer or server first sheds its longest-waiting stalled connection;
    /// with none to shed, the connection is not admitted.
    pub(crate) fn admit(&mut self, peer: Peer) -> Result<Admitted, Full> {
        if let Some(conns) = self.peers.get(&peer)
            && conns.count >= self.per_peer
        {
            match conns.stalled.values().next().copied() {
                Some(id) => self.shed(id),
                None if conns.fresh > 0 => return Err(Full::Wait),
                None => return Err(Full::Peer),
            }
        }
        if self.conns.len() >= self.max && !self.shed_oldest() {
            return Err(Full::Wait);
        }
        let id = self.tick();
        let stamp = self.tick();
        let (tell, shed) = oneshot::channel();
        self.conns.insert(id, Conn { peer, state: State::Fresh(stamp), shed: Some(tell) });
        self.fresh += 1;
        let entry = self.peers.entry(peer).or_default();
        entry.count += 1;
        entry.fresh += 1;
        Ok(Admitted { id, shed })
    }

    /// Sheds a stalled connection of the peer that holds the most
    /// connections, the one of its that has waited longest (between peers
    /// holding as many, the longest-waiting of all); false when none is
    /// stalled. So a flood from one address, reopening what is shed, sheds
    /// its own connections and never another peer's: by age alone, the
    /// flood's fresh reopenings would soon leave another peer's connection,
    /// read between its connect and its first write, the oldest.
    pub(crate) fn shed_oldest(&mut self) -> bool {
        let victim = self
            .peers
            .values()
            .filter_map(|peer| peer.stalled.iter().next().map(|(&stamp, &id)| (peer.count, Reverse(stamp), id)))
            .max()
            .map(|(_, _, id)| id);
        match victim {
            Some(id) => {
                self.shed(id);
                true
            }
            None => false,
        }
    }

    /// Takes connection `id` out of the fresh or stalled ones.
    fn unwait(&mut self, id: u64) -> Option<&mut Conn> {
        let conn = self.conns.get_mut(&id)?;
        let peer = self.peers.get_mut(&conn.peer);
        match conn.state {
            State::Fresh(_) => {
                self.fresh -= 1;
                if let Some(peer) = peer {
                    peer.fresh -= 1;
                }
            }
            State::Stalled(stamp) => {
                if let Some(peer) = peer {
                    peer.stalled.remove(&stamp);
                }
            }
            State::Busy => {}
        }
        Some(conn)
    }

    /// Connection `id` was read until there was nothing more, without a
    /// complete head: it may be shed from now on (oldest first, by when it
    /// began to wait). Nothing for a busy connection.
    pub(crate) fn stalled(&mut self, id: u64) {
        let Some(conn) = self.conns.get(&id) else {
            return;
        };
        let State::Fresh(stamp) = conn.state else {
            return;
        };
        let peer = conn.peer;
        self.unwait(id);
        if let Some(conn) = self.conns.get_mut(&id) {
            conn.state = State::Stalled(stamp);
        }
        if let Some(peer) = self.peers.get_mut(&peer) {
            peer.stalled.insert(stamp, id);
        }
    }

    /// Connection `id` has its head: it is busy until [`Table::waits`].
    /// False when it was shed meanwhile.
    pub(crate) fn busy(&mut self, id: u64) -> bool {
        match self.unwait(id) {
            Some(conn) => {
                conn.state = State::Busy;
                true
            }
            None => false,
        }
    }

    /// Connection `id` answered its request and waits for the next head.
    pub(crate) fn waits(&mut self, id: u64) {
        let stamp = self.tick();
        let Some(conn) = self.conns.get_mut(&id) else {
            return;
        };
        if conn.state != State::Busy {
            return;
        }
        conn.state = State::Fresh(stamp);
        let peer = conn.peer;
        self.fresh += 1;
        if let Some(peer) = self.peers.get_mut(&peer) {
            peer.fresh += 1;
        }
    }

    /// Connection `id` is gone (ended or shed); a second call does nothing.
    pub(crate) fn remove(&mut self, id: u64) -> Option<oneshot::Sender<()>> {
        self.unwait(id)?;
        let mut conn = self.conns.remove(&id)?;
        if let Some(peer) = self.peers.get_mut(&conn.peer) {
            peer.count -= 1;
            if peer.count == 0 {
                self.peers.remove(&conn.peer);
            }
        }
        conn.shed.take()
    }

    /// Removes `id` and tells its task to close it.
    fn shed(&mut self, id: u64) {
        if let Some(tell) = self.remove(id) {
            // Its task may have ended already: nothing to tell then.
            let _ = tell.send(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn peer(last: u8) -> Peer {
        Peer::of(IpAddr::from([127, 0, 0, last]))
    }

    fn was_shed(admitted: &mut Admitted) -> bool {
        admitted.shed.try_recv().is_ok()
    }

    /// Admitted and read: a half-sent head.
    fn stalled(table: &mut Table, from: Peer) -> Admitted {
        let admitted = table.admit(from).unwrap();
        table.stalled(admitted.id);
        admitted
    }

    #[test]
    fn a_full_table_sheds_the_longest_waiting() {
        let mut table = Table::new(3, 3);
        let mut a = stalled(&mut table, peer(1));
        let mut b = stalled(&mut table, peer(2));
        let mut c = stalled(&mut table, peer(3));
        // a is busy with a request, b waits longest.
        assert!(table.busy(a.id));
        let mut d = stalled(&mut table, peer(4));
        assert_eq!((was_shed(&mut a), was_shed(&mut b), was_shed(&mut c)), (false, true, false));
        assert_eq!(table.len(), 3);
        // a answered, and read again: it now waits since after c and d.
        table.waits(a.id);
        table.stalled(a.id);
        stalled(&mut table, peer(5));
        assert!(was_shed(&mut c));
        stalled(&mut table, peer(6));
        assert!(was_shed(&mut d));
        assert!(!table.busy(b.id), "a shed connection is never served");
    }

    #[test]
    fn a_full_table_sheds_from_the_peer_holding_most() {
        let mut table = Table::new(4, 4);
        let mut other = stalled(&mut table, peer(1));
        let mut flood: Vec<Admitted> = (0..3).map(|_| stalled(&mut table, peer(2))).collect();
        // Full: the flood's own oldest goes, though the other peer's waited longer.
        let mut newest = stalled(&mut table, peer(2));
        assert_eq!((was_shed(&mut other), was_shed(&mut flood[0])), (false, true));
        // The flood reopens again and again: each time it sheds its own.
        for own in &mut flood[1..] {
            stalled(&mut table, peer(2));
            assert!(!was_shed(&mut other));
            assert!(was_shed(own));
        }
        assert!(!was_shed(&mut newest));
    }

    #[test]
    fn a_connection_not_yet_read_is_never_shed() {
        let mut table = Table::new(2, 2);
        let mut old = stalled(&mut table, peer(1));
        // Accepted, but its task has not read it yet: it may hold a whole request.
        let mut unread = table.admit(peer(2)).unwrap();
        let mut third = stalled(&mut table, peer(3));
        assert_eq!((was_shed(&mut old), was_shed(&mut unread)), (true, false));
        table.admit(peer(4)).unwrap();
        assert!(was_shed(&mut third));
        // Two unread connections: nothing may be shed until one has been read.
        assert_eq!(table.admit(peer(5)).err(), Some(Full::Wait));
        table.stalled(unread.id);
        assert!(table.admit(peer(5)).is_ok());
        assert!(was_shed(&mut unread));
    }

    #[test]
    fn a_table_of_busy_connections_admits_none() {
        let mut table = Table::new(2, 2);
        let a = table.admit(peer(1)).unwrap();
        let b = table.admit(peer(2)).unwrap();
        assert!(table.busy(a.id) && table.busy(b.id));
        assert_eq!(table.admit(peer(3)).err(), Some(Full::Wait));
        table.remove(a.id);
        assert!(table.admit(peer(3)).is_ok());
    }

    #[test]
    fn a_peer_at_its_bound_sheds_its_own_or_is_refused() {
        let mut table = Table::new(10, 2);
        let mut a = stalled(&mut table, peer(1));
        let mut b = stalled(&mut table, peer(1));
        let mut other = stalled(&mut table, peer(2));
        let third = stalled(&mut table, peer(1));
        assert_eq!((was_shed(&mut a), was_shed(&mut b), was_shed(&mut other)), (true, false, false));
        let c = table.admit(peer(1)).unwrap();
        assert!(was_shed(&mut b));
        assert!(table.busy(c.id) && table.busy(third.id));
        assert_eq!(table.admit(peer(1)).err(), Some(Full::Peer));
        assert!(table.admit(peer(2)).is_ok(), "another peer is not held back");
    }

    #[test]
    fn a_peer_whose_connections_are_not_yet_read_waits() {
        let mut table = Table::new(10, 1);
        let first = table.admit(peer(1)).unwrap();
        assert_eq!(table.admit(peer(1)).err(), Some(Full::Wait));
        table.stalled(first.id);
        assert!(table.admit(peer(1)).is_ok());
    }

    #[test]
    fn removal_is_counted_once() {
        let mut table = Table::new(2, 2);
        let a = stalled(&mut table, peer(1));
        let b = table.admit(peer(1)).unwrap();
        assert!(table.remove(a.id).is_some());
        assert!(table.remove(a.id).is_none());
        assert!(table.remove(b.id).is_some());
        assert_eq!(table.len(), 0);
        // A peer holds its stalled connections: none is left with the peers gone.
        assert!(table.peers.is_empty() && table.fresh == 0);
    }

    #[test]
    fn ipv6_peers_count_by_their_64() {
        let a = Peer::of("2001:db8:1:2::1".parse().unwrap());
        let b = Peer::of("2001:db8:1:2:ffff::9".parse().unwrap());
        let c = Peer::of("2001:db8:1:3::1".parse().unwrap());
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(Peer::of("::ffff:127.0.0.1".parse().unwrap()), peer(1));
        assert_ne!(Peer::of("::1".parse().unwrap()), Peer::of("::2".parse().unwrap()));
    }
}
