//! What clients asked to be told beyond list changes: updates of the files
//! they subscribed to (`resources/subscribe` on the `initialize` handshake,
//! the `resourceSubscriptions` of a `subscriptions/listen` stream on
//! 2026-07-28), and, on the handshake, log messages at or above the level a
//! session set (`logging/setLevel`).
//!
//! Which files a reload changed cannot be read off the watcher's paths alone
//! (a watcher that lost track reloads everything, and a burst may touch a
//! file twice), so each subscription keeps the [`Version`] of its file it was
//! last told about, and after each reload the subscribed files, and only
//! those, are looked at again (a `stat` each): a file whose version moved is
//! one `notifications/resources/updated`, however many events and reloads
//! it took, and a file only read or touched by the server itself is none.

// Logging is deprecated by SEP-2577; sessions on the handshake still have it.
#![allow(deprecated)]

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};

use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam, ResourceUpdatedNotificationParam};
use rmcp::service::SubscriptionSink;
use rmcp::{Peer, RoleServer};
use serde_json::Value;

use crate::publication::{Publication, Version};

/// The most files one session or one stream may subscribe to: a client can
/// hold no more than this many stats per reload.
pub(crate) const MAX_SUBSCRIPTIONS: usize = 1024;

/// The `logger` of every log message this server sends.
const LOGGER: &str = "skilldeck";

/// One session on the handshake, or one `subscriptions/listen` stream.
#[derive(Debug)]
pub(crate) struct Subscriber {
    target: Target,
    state: Mutex<State>,
}

/// Where a subscriber's notifications go.
#[derive(Debug)]
enum Target {
    /// A session on the `initialize` handshake.
    Session(Peer<RoleServer>),
    /// A 2026-07-28 `subscriptions/listen` stream.
    Listen(SubscriptionSink),
}

#[derive(Debug, Default)]
struct State {
    /// The least severe log message the session wants (`None`: none).
    level: Option<LoggingLevel>,
    /// Subscribed files by canonical URI.
    files: BTreeMap<String, Watched>,
}

#[derive(Debug)]
struct Watched {
    /// The URI as the client wrote it: what its notifications carry.
    uri: String,
    /// The file's version when the client was last told of it.
    version: Version,
}

/// A subscription past [`MAX_SUBSCRIPTIONS`].
#[derive(Debug)]
pub(crate) struct Full;

impl Subscriber {
    /// A session on the handshake, told through `peer`.
    pub(crate) fn session(peer: Peer<RoleServer>) -> Arc<Subscriber> {
        Arc::new(Subscriber { target: Target::Session(peer), state: Mutex::default() })
    }

    /// A `subscriptions/listen` stream subscribed to `files` (canonical URI,
    /// the client's URI, the file's version now).
    pub(crate) fn listen(sink: SubscriptionSink, files: Vec<(String, String, Version)>) -> Arc<Subscriber> {
        let files = files.into_iter().map(|(canonical, uri, version)| (canonical, Watched { uri, version })).collect();
        Arc::new(Subscriber { target: Target::Listen(sink), state: Mutex::new(State { level: None, files }) })
    }

    /// Subscribes to the file at `canonical` (written `uri` by the client),
    /// whose version is `version` now. Subscribing again keeps the first
    /// subscription: the client has not been told of anything since.
    pub(crate) fn subscribe(&self, canonical: String, uri: String, version: Version) -> Result<(), Full> {
        let mut state = self.state();
        if !state.files.contains_key(&canonical) && state.files.len() >= MAX_SUBSCRIPTIONS {
            return Err(Full);
        }
        state.files.entry(canonical).or_insert(Watched { uri, version });
        Ok(())
    }

    /// Ends the subscription to `canonical`, if there is one.
    pub(crate) fn unsubscribe(&self, canonical: &str) {
        self.state().files.remove(canonical);
    }

    /// Sends log messages of `level` and more severe from now on.
    pub(crate) fn set_level(&self, level: LoggingLevel) {
        self.state().level = Some(level);
    }

    fn wants(&self, level: LoggingLevel) -> bool {
        self.state().level.is_some_and(|least| severity(level) >= severity(least))
    }

    fn is_closed(&self) -> bool {
        match &self.target {
            Target::Session(peer) => peer.is_transport_closed(),
            // A stream's subscriber lives as long as its `listen` call.
            Target::Listen(_) => false,
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Every subscriber of one server, and the log messages waiting to be sent.
#[derive(Debug, Default)]
pub(crate) struct Subscribers {
    /// Dropped with their session's handler or their stream.
    all: Mutex<Vec<Weak<Subscriber>>>,
    /// Log messages made off the async threads (a reload), sent by the next
    /// [`Subscribers::send`].
    log: Mutex<Vec<(LoggingLevel, String)>>,
}

/// What to send to one subscriber after a reload.
#[derive(Debug, Default)]
pub(crate) struct Updates(Vec<(Arc<Subscriber>, Vec<String>)>);

impl Subscribers {
    /// Tells `subscriber` of updates and log messages from now on.
    pub(crate) fn add(&self, subscriber: &Arc<Subscriber>) {
        self.all().push(Arc::downgrade(subscriber));
    }

    /// Queues a log message for every session whose level lets it through;
    /// none wants it, nothing is kept.
    pub(crate) fn log(&self, severity: Severity, message: String) {
        let level = severity.level();
        if self.live().iter().any(|s| s.wants(level)) {
            self.log.lock().unwrap_or_else(PoisonError::into_inner).push((level, message));
        }
    }

    /// The subscribed files of `publication` whose version moved since
    /// their subscriber was last told, by subscriber; each is recorded as
    /// told. Blocking: a `stat` per subscribed file (once per file however
    /// many subscribe to it).
    pub(crate) fn updates(&self, publication: &Publication) -> Updates {
        let mut now: HashMap<String, Version> = HashMap::new();
        let mut updates = Vec::new();
        for subscriber in self.live() {
            let mut state = subscriber.state();
            let mut moved = Vec::new();
            for (canonical, watched) in &mut state.files {
                let version = now.entry(canonical.clone()).or_insert_with(|| publication.version(canonical));
                if *version != watched.version {
                    watched.version = version.clone();
                    moved.push(watched.uri.clone());
                }
            }
            drop(state);
            if !moved.is_empty() {
                updates.push((subscriber, moved));
            }
        }
        Updates(updates)
    }

    /// Sends the queued log messages to the sessions that want them, then
    /// `updates`. A subscriber that cannot be reached is dropped.
    pub(crate) async fn send(&self, updates: Updates) {
        let log = std::mem::take(&mut *self.log.lock().unwrap_or_else(PoisonError::into_inner));
        let mut unreachable = Vec::new();
        if !log.is_empty() {
            for subscriber in self.live() {
                let Target::Session(peer) = &subscriber.target else { continue };
                for (level, message) in log.iter().filter(|(level, _)| subscriber.wants(*level)) {
                    let param = LoggingMessageNotificationParam::new(*level, Value::String(message.clone()))
                        .with_logger(LOGGER);
                    if peer.notify_logging_message(param).await.is_err() {
                        unreachable.push(subscriber.clone());
                        break;
                    }
                }
            }
        }
        for (subscriber, uris) in updates.0 {
            for uri in uris {
                let sent = match &subscriber.target {
                    Target::Session(peer) => {
                        peer.notify_resource_updated(ResourceUpdatedNotificationParam::new(uri)).await.is_ok()
                    }
                    Target::Listen(sink) => sink.notify_resource_updated(uri).await.is_ok(),
                };
                if !sent {
                    unreachable.push(subscriber.clone());
                    break;
                }
            }
        }
        if !unreachable.is_empty() {
            self.all().retain(|weak| !unreachable.iter().any(|gone| std::ptr::eq(weak.as_ptr(), Arc::as_ptr(gone))));
        }
    }

    /// The subscribers still there; the others are forgotten.
    fn live(&self) -> Vec<Arc<Subscriber>> {
        let mut all = self.all();
        let mut live = Vec::with_capacity(all.len());
        all.retain(|weak| match weak.upgrade() {
            Some(subscriber) if !subscriber.is_closed() => {
                live.push(subscriber);
                true
            }
            _ => false,
        });
        live
    }

    fn all(&self) -> MutexGuard<'_, Vec<Weak<Subscriber>>> {
        self.all.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A level's rank, least severe first (RFC 5424's order, as MCP's).
fn severity(level: LoggingLevel) -> u8 {
    level as u8
}

/// How severe a log message this server sends is: the few MCP levels it
/// uses (`LoggingLevel` itself is deprecated with the logging feature).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Severity {
    /// A reload's outcome.
    Info,
    /// Something not served, and why.
    Warning,
    /// A reload that failed.
    Error,
}

impl Severity {
    fn level(self) -> LoggingLevel {
        match self {
            Severity::Info => LoggingLevel::Info,
            Severity::Warning => LoggingLevel::Warning,
            Severity::Error => LoggingLevel::Error,
        }
    }
}
