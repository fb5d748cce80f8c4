//! The quick watcher on Linux: inotify itself, not notify's watcher.
//!
//! notify hands each `watch` to its event loop's thread and waits for the
//! answer, and it has no call that adds many at once: on a public
//! registry's tree (15,700 skill directories) its watches took 195–330 ms
//! alone, up to a second beside the first publication's build, and an edit
//! to a skill was reloaded only once its directory's turn came.
//! `inotify_add_watch` is one system call: here the same watches take
//! 55–130 ms (both measured on a busy 2-core machine). A thread of its own reads the events (waiting on the
//! instance and on an eventfd that dropping the watcher writes to), and
//! they are judged by the same [`Relevance`] as the recursive watcher's.

use std::collections::HashMap;
use std::ffi::OsString;
use std::io;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

use inotify::{EventMask, Inotify, WatchDescriptor, WatchMask, Watches};
use rustix::event::{EventfdFlags, PollFd, PollFlags};
use tokio::sync::mpsc;

use super::{Relevance, Report, Seen};

/// What a watch asks for: the events the recursive watcher does not take
/// for reads ([`Report::Access`]). Opens, reads and closes are not asked
/// for at all, rather than read and dropped: the server's own reads of the
/// tree would fill the queue with them.
const CHANGES: WatchMask = WatchMask::MODIFY
    .union(WatchMask::ATTRIB)
    .union(WatchMask::CREATE)
    .union(WatchMask::DELETE)
    .union(WatchMask::MOVED_FROM)
    .union(WatchMask::MOVED_TO)
    .union(WatchMask::DELETE_SELF)
    .union(WatchMask::MOVE_SELF);

/// The directory each watch was set on: events name only the watch.
type Dirs = Arc<Mutex<HashMap<WatchDescriptor, PathBuf>>>;

/// An inotify instance whose events a thread reads while it lives: dropping
/// it stops the thread (woken at once, not by a timeout) and closes the
/// instance (the thread's handle and `watches` share it), which removes
/// every watch.
pub(super) struct Quick {
    watches: Watches,
    dirs: Dirs,
    /// Written to on drop: the reader waits on it and on the instance.
    stop: Arc<OwnedFd>,
    reader: Option<JoinHandle<()>>,
}

impl Quick {
    /// An instance with no watch yet, sending what `relevance` lets
    /// through; `None`, logged, when inotify cannot be had (the limit of
    /// instances reached).
    pub(super) fn new(relevance: Relevance, events: mpsc::UnboundedSender<Seen>) -> Option<Quick> {
        let dirs = Dirs::default();
        let started = Inotify::init().and_then(|inotify| {
            let watches = inotify.watches();
            let stop = Arc::new(rustix::event::eventfd(0, EventfdFlags::CLOEXEC)?);
            let (dirs, woken) = (dirs.clone(), stop.clone());
            let reader = std::thread::Builder::new()
                .name("skilldeck-quick-watch".into())
                .spawn(move || read(inotify, &woken, &dirs, &relevance, &events))?;
            Ok((watches, stop, reader))
        });
        match started {
            Ok((watches, stop, reader)) => Some(Quick { watches, dirs, stop, reader: Some(reader) }),
            Err(error) => {
                tracing::warn!(%error, "cannot watch the skills' directories for changes until the roots are");
                None
            }
        }
    }

    /// Watches `dir`, not recursively; its events are sent from now on.
    pub(super) fn watch(&mut self, dir: &Path) -> io::Result<()> {
        // Held across the call, so that the reader, which waits for it, knows the watch of any event it reads.
        let mut dirs = self.dirs.lock().unwrap_or_else(PoisonError::into_inner);
        let wd = self.watches.add(dir, CHANGES)?;
        dirs.insert(wd, dir.to_path_buf());
        Ok(())
    }
}

impl Drop for Quick {
    fn drop(&mut self) {
        // Wakes the reader, which returns and drops the instance. An eventfd
        // write fails only when its counter would overflow: it is woken anyway.
        let _ = rustix::io::write(&*self.stop, &1u64.to_ne_bytes());
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
    }
}

/// Reads `inotify`'s events until `stop` is written to or the instance
/// fails, and sends what `relevance` makes of them: each read's paths
/// together.
fn read(
    mut inotify: Inotify,
    stop: &OwnedFd,
    dirs: &Mutex<HashMap<WatchDescriptor, PathBuf>>,
    relevance: &Relevance,
    events: &mpsc::UnboundedSender<Seen>,
) {
    // Room for some 250 events with names; a name is at most 255 bytes.
    let mut buffer = vec![0u8; 16 * 1024];
    loop {
        let mut ready = [PollFd::new(&inotify, PollFlags::IN), PollFd::new(stop, PollFlags::IN)];
        match rustix::event::poll(&mut ready, None) {
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => continue,
            Err(error) => return failed(relevance, events, &error.into()),
        }
        if !ready[1].revents().is_empty() {
            return;
        }
        let read = match inotify.read_events(&mut buffer) {
            Ok(read) => read.map(|event| (event.wd, event.mask, event.name.map(OsString::from))).collect::<Vec<_>>(),
            Err(error) if error.kind() == io::ErrorKind::WouldBlock => continue,
            Err(error) => return failed(relevance, events, &error),
        };
        let mut paths = Vec::new();
        for (wd, mask, name) in read {
            let report = report(&mut dirs.lock().unwrap_or_else(PoisonError::into_inner), &wd, mask, name);
            match report.and_then(|report| relevance.seen(report)) {
                Some(Seen::Paths(more)) => paths.extend(more),
                Some(seen) => {
                    // In order: what changed before the overflow, then the overflow.
                    if !paths.is_empty() {
                        let _ = events.send(Seen::Paths(std::mem::take(&mut paths)));
                    }
                    let _ = events.send(seen);
                }
                None => {}
            }
        }
        if !paths.is_empty() && events.send(Seen::Paths(paths)).is_err() {
            return;
        }
    }
}

/// Logs why the reader stops, and sends what a failed watcher means.
fn failed(relevance: &Relevance, events: &mpsc::UnboundedSender<Seen>, error: &io::Error) {
    tracing::warn!(%error, "cannot read the skills' directories' changes");
    if let Some(seen) = relevance.seen(Report::Failed) {
        let _ = events.send(seen);
    }
}

/// What one inotify event reports: the path it names, made from its watch's
/// directory; nothing for a watch that went (`IGNORED`, after the removal
/// or unmount that was reported) or one not known.
fn report(
    dirs: &mut HashMap<WatchDescriptor, PathBuf>,
    wd: &WatchDescriptor,
    mask: EventMask,
    name: Option<OsString>,
) -> Option<Report> {
    if mask.contains(EventMask::Q_OVERFLOW) {
        return Some(Report::Overflow);
    }
    if mask.contains(EventMask::IGNORED) {
        dirs.remove(wd);
        return None;
    }
    // Any other event is a change: only those were asked for (`UNMOUNT` comes unasked, and is one too).
    let dir = dirs.get(wd)?;
    Some(Report::Paths(vec![name.map_or_else(|| dir.clone(), |name| dir.join(name))]))
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};
    use std::sync::{Arc, PoisonError};
    use std::time::{Duration, Instant};

    use tokio::sync::mpsc;

    use super::{Quick, Relevance, Seen};
    use crate::server::OwnReads;

    /// The next message within `wait`, or `None`.
    fn next(rx: &mut mpsc::UnboundedReceiver<Seen>, wait: Duration) -> Option<Seen> {
        let deadline = Instant::now() + wait;
        while Instant::now() < deadline {
            match rx.try_recv() {
                Ok(seen) => return Some(seen),
                Err(mpsc::error::TryRecvError::Empty) => std::thread::sleep(Duration::from_millis(2)),
                Err(mpsc::error::TryRecvError::Disconnected) => return None,
            }
        }
        None
    }

    fn watcher(root: &Path, own_reads: Arc<OwnReads>) -> (Quick, mpsc::UnboundedReceiver<Seen>) {
        let (tx, rx) = mpsc::unbounded_channel();
        let quick = Quick::new(Relevance::new(&[root.to_path_buf()], own_reads), tx).expect("inotify");
        (quick, rx)
    }

    /// A file of a watched directory that is read is not sent; one that is
    /// written is, by its path under the directory as watched (and not the
    /// other file, read first).
    #[test]
    fn an_edit_in_a_watched_directory_is_sent_and_a_read_is_not() {
        let dir = tempfile::tempdir().expect("tmp");
        let skill = dir.path().join("skills/a");
        std::fs::create_dir_all(&skill).expect("mkdir");
        let file = skill.join("SKILL.md");
        std::fs::write(&file, "---\nname: a\n---\n").expect("write");
        let other = skill.join("notes.md");
        std::fs::write(&other, "notes").expect("write");
        let (mut quick, mut rx) = watcher(&dir.path().join("skills"), Arc::default());
        quick.watch(&skill).expect("watch");
        std::fs::read(&other).expect("read");
        std::fs::write(&file, "---\nname: a\ndescription: edited\n---\n").expect("write");
        match next(&mut rx, Duration::from_secs(5)) {
            Some(Seen::Paths(paths)) => assert!(!paths.is_empty() && paths.iter().all(|p| *p == file), "{paths:?}"),
            other => panic!("expected the edited file first, got {other:?}"),
        }
    }

    /// Events lost to a full queue make the catalog be read again whole,
    /// unless the server's own reads filled it.
    #[test]
    fn an_overflow_is_lost_track_unless_the_server_was_reading() {
        let queue: usize = std::fs::read_to_string("/proc/sys/fs/inotify/max_queued_events")
            .ok()
            .and_then(|text| text.trim().parse().ok())
            .unwrap_or(16_384);
        if queue > 1 << 17 {
            eprintln!("skipped: a queue of {queue} events is too long to fill cheaply");
            return;
        }
        for own_reading in [false, true] {
            let dir = tempfile::tempdir().expect("tmp");
            let root = dir.path().join("skills");
            std::fs::create_dir_all(&root).expect("mkdir");
            let own_reads = Arc::new(OwnReads::default());
            let (mut quick, mut rx) = watcher(&root, own_reads.clone());
            quick.watch(&root).expect("watch");
            let reading = own_reading.then(|| own_reads.start());
            // The reader waits for the watches' map: the kernel's queue fills meanwhile (a file
            // made and removed is two events, never merged with the one before).
            let held = quick.dirs.lock().unwrap_or_else(PoisonError::into_inner);
            let file = root.join("f");
            for _ in 0..queue / 2 + 300 {
                std::fs::write(&file, "").expect("write");
                std::fs::remove_file(&file).expect("rm");
            }
            drop(held);
            let mut lost = false;
            // Until the reader has sent everything: a pause of 300 ms.
            while let Some(seen) = next(&mut rx, Duration::from_millis(300)) {
                match seen {
                    Seen::Lost => lost = true,
                    Seen::Paths(paths) => assert!(paths.iter().all(|p| *p == file), "{paths:?}"),
                    Seen::Store => panic!("a watcher does not read the store"),
                }
            }
            assert_eq!(lost, !own_reading, "own reads: {own_reading}");
            drop(reading);
        }
    }

    /// Dropping the watcher stops its reader at once: the reader's sender is
    /// gone when the drop returns, and no later change is sent.
    #[test]
    fn dropping_the_watcher_stops_its_reader() {
        let dir = tempfile::tempdir().expect("tmp");
        let root: PathBuf = dir.path().join("skills");
        std::fs::create_dir_all(&root).expect("mkdir");
        let (mut quick, mut rx) = watcher(&root, Arc::default());
        quick.watch(&root).expect("watch");
        let (dropped, done) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            drop(quick);
            let _ = dropped.send(());
        });
        assert!(done.recv_timeout(Duration::from_secs(1)).is_ok(), "the drop waits for the reader");
        std::fs::write(root.join("SKILL.md"), "after").expect("write");
        assert!(matches!(rx.try_recv(), Err(mpsc::error::TryRecvError::Disconnected)), "the reader still runs");
    }
}
