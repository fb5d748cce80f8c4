//! skilldeck-install on real git repositories made by the tests, over
//! `file://` URLs and local paths, with the cache in a temp dir.

// A broken fixture should stop a test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

// The lock: round trip, the npm package's shape and its computedHash.
mod lock;

// add, list, install, frozen, offline, verify, remove, update, and bad input.
mod project;

// The audit before add and update: refused at high unless the risk is allowed, nothing changed.
mod risk;

use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs git in `dir` with no system or user configuration.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "init.defaultBranch=main"])
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

/// A skill's `SKILL.md`.
pub fn skill_md(name: &str) -> String {
    format!("---\nname: {name}\ndescription: The {name} skill, for tests.\n---\nDo {name}.\n")
}

/// Writes `files` (path, text) below `dir`.
pub fn write(dir: &Path, files: &[(&str, &str)]) {
    for (rel, text) in files {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

/// A new repository in `dir` holding `files`, committed; returns the commit.
pub fn repo(dir: &Path, files: &[(&str, &str)]) -> String {
    std::fs::create_dir_all(dir).unwrap();
    git(dir, &["init", "--quiet"]);
    commit(dir, files, "first")
}

/// Writes `files` and commits everything; returns the commit.
pub fn commit(dir: &Path, files: &[(&str, &str)], message: &str) -> String {
    write(dir, files);
    git(dir, &["add", "--all"]);
    git(dir, &["commit", "--quiet", "--allow-empty", "-m", message]);
    git(dir, &["rev-parse", "HEAD"])
}

/// `file://` URL of a directory.
pub fn file_url(dir: &Path) -> String {
    format!("file://{}", dir.display())
}

/// A temp dir with an origin, a project and a cache.
pub struct Env {
    /// Removed with the test.
    pub tmp: tempfile::TempDir,
}

impl Default for Env {
    fn default() -> Env {
        Env { tmp: tempfile::tempdir().unwrap() }
    }
}

impl Env {
    /// A path in it.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.tmp.path().join(rel)
    }
    /// The project `name`, fetching into this env's cache.
    pub fn project(&self, name: &str) -> skilldeck_install::Project {
        let dir = self.path(name);
        std::fs::create_dir_all(&dir).unwrap();
        skilldeck_install::Project::new(dir, skilldeck_install::GitCache::new(self.path("cache")))
    }
}
