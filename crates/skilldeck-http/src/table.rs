//! The connections a server holds: how many, whose, and which of them are
//! waiting for a request head (and since when), so that the one that has
//! waited longest can be shed to make room.

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
    /// The server holds its cap, every connection busy: wait for one to end
    /// or to finish its request.
    Server,
}

/// One admitted connection: its id, and what tells it that it was shed.
pub(crate) struct Admitted {
    pub(crate) id: u64,
    pub(crate) shed: oneshot::Receiver<()>,
}

struct Conn {
    peer: Peer,
    /// Since when it waits for a request head (a stamp of `Table::clock`);
    /// `None` while a request is being served.
    waiting: Option<u64>,
    shed: Option<oneshot::Sender<()>>,
}

#[derive(Default)]
struct PeerConns {
    count: usize,
    /// Its connections waiting for a head, by stamp.
    waiting: BTreeMap<u64, u64>,
}

/// The table; the server keeps it behind a mutex, each call short.
pub(crate) struct Table {
    max: usize,
    per_peer: usize,
    /// Ids and stamps both: strictly increasing, so order is age.
    clock: u64,
    conns: HashMap<u64, Conn>,
    /// Every connection waiting for a head, by stamp: the first is the oldest.
    waiting: BTreeMap<u64, u64>,
    peers: HashMap<Peer, PeerConns>,
}

impl Table {
    pub(crate) fn new(max: usize, per_peer: usize) -> Table {
        Table {
            max: max.max(1),
            per_peer: per_peer.max(1),
            clock: 0,
            conns: HashMap::new(),
            waiting: BTreeMap::new(),
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
    /// peer or server first sheds its oldest waiting connection; with none
    /// to shed, the connection is not admitted.
    pub(crate) fn admit(&mut self, peer: Peer) -> Result<Admitted, Full> {
        let held = self.peers.get(&peer).map_or(0, |p| p.count);
        if held >= self.per_peer {
            let oldest = self.peers.get(&peer).and_then(|p| p.waiting.values().next().copied());
            match oldest {
                Some(id) => self.shed(id),
                None => return Err(Full::Peer),
            }
        }
        if self.conns.len() >= self.max && !self.shed_oldest() {
            return Err(Full::Server);
        }
        let id = self.tick();
        let stamp = self.tick();
        let (tell, shed) = oneshot::channel();
        self.conns.insert(id, Conn { peer, waiting: Some(stamp), shed: Some(tell) });
        self.waiting.insert(stamp, id);
        let entry = self.peers.entry(peer).or_default();
        entry.count += 1;
        entry.waiting.insert(stamp, id);
        Ok(Admitted { id, shed })
    }

    /// Sheds the connection that has waited longest for a head; false when
    /// none is waiting.
    pub(crate) fn shed_oldest(&mut self) -> bool {
        match self.waiting.values().next().copied() {
            Some(id) => {
                self.shed(id);
                true
            }
            None => false,
        }
    }

    /// Connection `id` has its head: it is busy until [`Table::waits`].
    /// False when it was shed meanwhile.
    pub(crate) fn busy(&mut self, id: u64) -> bool {
        let Some(conn) = self.conns.get_mut(&id) else {
            return false;
        };
        if let Some(stamp) = conn.waiting.take() {
            self.waiting.remove(&stamp);
            if let Some(peer) = self.peers.get_mut(&conn.peer) {
                peer.waiting.remove(&stamp);
            }
        }
        true
    }

    /// Connection `id` answered its request and waits for the next head.
    pub(crate) fn waits(&mut self, id: u64) {
        let stamp = self.tick();
        let Some(conn) = self.conns.get_mut(&id) else {
            return;
        };
        if conn.waiting.is_some() {
            return;
        }
        conn.waiting = Some(stamp);
        self.waiting.insert(stamp, id);
        if let Some(peer) = self.peers.get_mut(&conn.peer) {
            peer.waiting.insert(stamp, id);
        }
    }

    /// Connection `id` is gone (ended or shed); a second call does nothing.
    pub(crate) fn remove(&mut self, id: u64) -> Option<oneshot::Sender<()>> {
        let mut conn = self.conns.remove(&id)?;
        if let Some(stamp) = conn.waiting {
            self.waiting.remove(&stamp);
        }
        if let Some(peer) = self.peers.get_mut(&conn.peer) {
            peer.count -= 1;
            if let Some(stamp) = conn.waiting {
                peer.waiting.remove(&stamp);
            }
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

    #[test]
    fn a_full_table_sheds_the_longest_waiting() {
        let mut table = Table::new(3, 3);
        let mut a = table.admit(peer(1)).unwrap();
        let mut b = table.admit(peer(2)).unwrap();
        let mut c = table.admit(peer(3)).unwrap();
        // a is busy with a request, b waits longest.
        assert!(table.busy(a.id));
        let mut d = table.admit(peer(4)).unwrap();
        assert_eq!((was_shed(&mut a), was_shed(&mut b), was_shed(&mut c)), (false, true, false));
        assert_eq!(table.len(), 3);
        // a answered: it now waits since after c and d.
        table.waits(a.id);
        table.admit(peer(5)).unwrap();
        assert!(was_shed(&mut c));
        table.admit(peer(6)).unwrap();
        assert!(was_shed(&mut d));
        assert!(!table.busy(b.id), "a shed connection is never served");
    }

    #[test]
    fn a_table_of_busy_connections_admits_none() {
        let mut table = Table::new(2, 2);
        let a = table.admit(peer(1)).unwrap();
        let b = table.admit(peer(2)).unwrap();
        assert!(table.busy(a.id) && table.busy(b.id));
        assert_eq!(table.admit(peer(3)).err(), Some(Full::Server));
        table.remove(a.id);
        assert!(table.admit(peer(3)).is_ok());
    }

    #[test]
    fn a_peer_at_its_bound_sheds_its_own_or_is_refused() {
        let mut table = Table::new(10, 2);
        let mut a = table.admit(peer(1)).unwrap();
        let mut b = table.admit(peer(1)).unwrap();
        let mut other = table.admit(peer(2)).unwrap();
        table.admit(peer(1)).unwrap();
        assert_eq!((was_shed(&mut a), was_shed(&mut b), was_shed(&mut other)), (true, false, false));
        let c = table.admit(peer(1)).unwrap();
        assert!(was_shed(&mut b));
        assert!(table.busy(c.id));
        let mut rest: Vec<u64> = table.conns.iter().filter(|(_, c)| c.peer == peer(1)).map(|(id, _)| *id).collect();
        rest.retain(|id| *id != c.id);
        assert!(table.busy(rest[0]));
        assert_eq!(table.admit(peer(1)).err(), Some(Full::Peer));
        assert!(table.admit(peer(2)).is_ok(), "another peer is not held back");
    }

    #[test]
    fn removal_is_counted_once() {
        let mut table = Table::new(2, 2);
        let a = table.admit(peer(1)).unwrap();
        assert!(table.remove(a.id).is_some());
        assert!(table.remove(a.id).is_none());
        assert_eq!(table.len(), 0);
        assert!(table.peers.is_empty() && table.waiting.is_empty());
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
