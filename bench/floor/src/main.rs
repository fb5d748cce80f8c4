//! `skilldeck-floor ROOT`: the least work any skill loader must do — find every `SKILL.md` under ROOT and read it.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::thread;

/// Depth-first walk with an explicit stack; `DirEntry::file_type` comes from
/// `d_type`, so regular entries are never stat'ed. Symlinks are not followed.
fn collect(root: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let Ok(ft) = entry.file_type() else { continue };
            let name = entry.file_name();
            if ft.is_dir() {
                if name != ".git" && name != "node_modules" {
                    stack.push(entry.path());
                }
            } else if ft.is_file() && name == "SKILL.md" {
                found.push(entry.path());
            }
        }
    }
    found
}

fn main() {
    let Some(root) = std::env::args_os().nth(1) else {
        eprintln!("usage: skilldeck-floor ROOT");
        std::process::exit(2);
    };
    let files = collect(Path::new(&root));

    // Read every file completely, workers pulling the next index off a shared counter.
    let next = AtomicUsize::new(0);
    let bytes = AtomicU64::new(0);
    let workers = thread::available_parallelism().map_or(1, |n| n.get());
    thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                let mut local = 0u64;
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(path) = files.get(i) else { break };
                    if let Ok(data) = fs::read(path) {
                        local += data.len() as u64;
                    }
                }
                bytes.fetch_add(local, Ordering::Relaxed);
            });
        }
    });

    println!("{} files, {} bytes", files.len(), bytes.load(Ordering::Relaxed));
}
