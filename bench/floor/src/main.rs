//! `skilldeck-floor ROOT`: the least work any skill loader must do (find every
//! `SKILL.md` under ROOT and read it), done as fast as this machine allows, so
//! that `bench/run` can say how close skilldeck's `list` comes to it.
//!
//! On Linux it makes the fewest system calls that job needs: each directory is
//! opened relative to its parent's descriptor and read with `getdents64`, each
//! `SKILL.md` is opened relative to its directory and read with one `read` (a
//! regular file that does not fill the buffer has ended), and the root's
//! subdirectories are shared out to one thread per core. It keeps no names,
//! sorts nothing and parses nothing. Links are not followed, and `.git` and
//! `node_modules` are not entered, as in skilldeck.

use std::ffi::OsStr;
use std::path::Path;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::thread;

/// Files and bytes read.
#[derive(Default)]
struct Tally {
    files: u64,
    bytes: u64,
}

fn main() {
    let Some(root) = std::env::args_os().nth(1) else {
        eprintln!("usage: skilldeck-floor ROOT");
        std::process::exit(2);
    };
    let top = match walk::Top::open(Path::new(&root)) {
        Ok(top) => top,
        Err(error) => {
            eprintln!("skilldeck-floor: {}: {error}", Path::new(&root).display());
            std::process::exit(1);
        }
    };
    let (files, bytes) = (AtomicU64::new(top.tally.files), AtomicU64::new(top.tally.bytes));
    let next = AtomicUsize::new(0);
    let workers = thread::available_parallelism().map_or(1, |n| n.get());
    thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                let mut tally = Tally::default();
                while let Some(name) = top.subdirs.get(next.fetch_add(1, Ordering::Relaxed)) {
                    top.walk(name, &mut tally);
                }
                files.fetch_add(tally.files, Ordering::Relaxed);
                bytes.fetch_add(tally.bytes, Ordering::Relaxed);
            });
        }
    });
    println!("{} files, {} bytes", files.into_inner(), bytes.into_inner());
}

/// Whether the walk enters a directory of this name.
fn enters(name: &OsStr) -> bool {
    name != ".git" && name != "node_modules"
}

#[cfg(target_os = "linux")]
mod walk {
    use std::cell::RefCell;
    use std::ffi::{OsStr, OsString};
    use std::io;
    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;

    use rustix::fd::OwnedFd;
    use rustix::fs::{CWD, FileType, Mode, OFlags, RawDir, openat};
    use rustix::io::read;

    use super::{Tally, enters};

    const DIR: OFlags = OFlags::RDONLY.union(OFlags::DIRECTORY).union(OFlags::CLOEXEC).union(OFlags::NOFOLLOW);

    thread_local! {
        static LISTING: RefCell<Vec<u8>> = RefCell::new(Vec::with_capacity(16 * 1024));
        static CONTENT: RefCell<Vec<u8>> = RefCell::new(vec![0; 64 * 1024]);
    }

    /// The root, listed: its own `SKILL.md` read, its subdirectories named.
    pub(crate) struct Top {
        fd: OwnedFd,
        pub(crate) subdirs: Vec<OsString>,
        pub(crate) tally: Tally,
    }

    impl Top {
        pub(crate) fn open(root: &Path) -> io::Result<Top> {
            let fd = openat(CWD, root, DIR, Mode::empty())?;
            let (mut subdirs, mut tally) = (Vec::new(), Tally::default());
            list(&fd, &mut tally, |name| subdirs.push(name.to_owned()));
            Ok(Top { fd, subdirs, tally })
        }

        /// Walks the subtree of the root's subdirectory `name`.
        pub(crate) fn walk(&self, name: &OsStr, tally: &mut Tally) {
            if let Ok(fd) = openat(&self.fd, name, DIR, Mode::empty()) {
                walk(&fd, tally);
            }
        }
    }

    fn walk(fd: &OwnedFd, tally: &mut Tally) {
        let mut subdirs = Vec::new();
        list(fd, tally, |name| subdirs.push(name.to_owned()));
        for name in subdirs {
            if let Ok(sub) = openat(fd, &name, DIR, Mode::empty()) {
                walk(&sub, tally);
            }
        }
    }

    /// Lists the open directory `fd`: reads its `SKILL.md` and hands each
    /// subdirectory to enter to `subdir`.
    fn list(fd: &OwnedFd, tally: &mut Tally, mut subdir: impl FnMut(&OsStr)) {
        LISTING.with_borrow_mut(|buf| {
            let mut entries = RawDir::new(fd, buf.spare_capacity_mut());
            while let Some(Ok(entry)) = entries.next() {
                let name = OsStr::from_bytes(entry.file_name().to_bytes());
                match entry.file_type() {
                    FileType::Directory if name != "." && name != ".." && enters(name) => subdir(name),
                    FileType::RegularFile if name == "SKILL.md" => {
                        if let Ok(file) = openat(fd, name, OFlags::RDONLY | OFlags::CLOEXEC, Mode::empty()) {
                            tally.files += 1;
                            tally.bytes += read_whole(&file);
                        }
                    }
                    _ => {}
                }
            }
        });
    }

    /// Reads a regular file to its end; a read that leaves the buffer room
    /// has reached it.
    fn read_whole(file: &OwnedFd) -> u64 {
        CONTENT.with_borrow_mut(|buf| {
            let mut total = 0;
            while let Ok(n) = read(file, &mut buf[..]) {
                total += n as u64;
                if n < buf.len() {
                    break;
                }
            }
            total
        })
    }
}

/// Elsewhere: the same walk through the standard library.
#[cfg(not(target_os = "linux"))]
mod walk {
    use std::ffi::{OsStr, OsString};
    use std::fs;
    use std::io;
    use std::path::{Path, PathBuf};

    use super::{Tally, enters};

    pub(crate) struct Top {
        root: PathBuf,
        pub(crate) subdirs: Vec<OsString>,
        pub(crate) tally: Tally,
    }

    impl Top {
        pub(crate) fn open(root: &Path) -> io::Result<Top> {
            let (mut subdirs, mut tally) = (Vec::new(), Tally::default());
            list(root, &mut tally, |path| subdirs.extend(path.file_name().map(OsStr::to_owned)))?;
            Ok(Top { root: root.to_owned(), subdirs, tally })
        }

        pub(crate) fn walk(&self, name: &OsStr, tally: &mut Tally) {
            walk(&self.root.join(name), tally);
        }
    }

    fn walk(dir: &Path, tally: &mut Tally) {
        let mut subdirs = Vec::new();
        let _ = list(dir, tally, |path| subdirs.push(path));
        for sub in subdirs {
            walk(&sub, tally);
        }
    }

    fn list(dir: &Path, tally: &mut Tally, mut subdir: impl FnMut(PathBuf)) -> io::Result<()> {
        for entry in fs::read_dir(dir)?.flatten() {
            let Ok(kind) = entry.file_type() else { continue };
            let name = entry.file_name();
            if kind.is_dir() && enters(&name) {
                subdir(entry.path());
            } else if kind.is_file() && name == "SKILL.md" {
                if let Ok(data) = fs::read(entry.path()) {
                    tally.files += 1;
                    tally.bytes += data.len() as u64;
                }
            }
        }
        Ok(())
    }
}
