//! Temporary skill trees written to real directories.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

use tempfile::TempDir;

/// A temporary directory to build skill trees in.
pub(crate) struct Tree {
    dir: TempDir,
}

impl Tree {
    /// A new, empty tree.
    pub(crate) fn new() -> Tree {
        Tree { dir: tempfile::tempdir().expect("temp dir") }
    }

    /// The absolute root of the tree.
    pub(crate) fn root(&self) -> &Path {
        self.dir.path()
    }

    /// `root/rel`.
    pub(crate) fn path(&self, rel: &str) -> PathBuf {
        self.root().join(rel)
    }

    /// Writes `contents` at `rel`, creating parent directories.
    pub(crate) fn file(&self, rel: &str, contents: impl AsRef<[u8]>) -> &Tree {
        let path = self.path(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, contents).expect("write");
        self
    }

    /// Writes `rel/SKILL.md` with this name, description and body.
    pub(crate) fn skill(&self, rel: &str, name: &str, description: &str, body: &str) -> &Tree {
        let md = format!("---\nname: {name}\ndescription: {description}\n---\n{body}");
        self.file(&format!("{rel}/SKILL.md"), md)
    }

    /// Creates a symbolic link at `rel` pointing to `target`.
    pub(crate) fn symlink(&self, target: impl AsRef<Path>, rel: &str) -> &Tree {
        let path = self.path(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::os::unix::fs::symlink(target, path).expect("symlink");
        self
    }

    /// Creates the directory `rel`.
    pub(crate) fn dir(&self, rel: &str) -> &Tree {
        std::fs::create_dir_all(self.path(rel)).expect("mkdir");
        self
    }
}

/// The workspace root.
pub(crate) fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A peer run as a test oracle: a script under `tests/oracle/` that reads
/// one JSON request on stdin and answers JSON, run by the Python of the venv
/// that `scripts/test` creates (or the one an environment variable names).
pub(crate) struct Oracle {
    /// The environment variable naming the Python to use.
    env: &'static str,
    /// The venv's directory under `target/venvs/`.
    venv: &'static str,
    /// The package and version the venv must hold, for the error message.
    package: &'static str,
    /// The script's file name under `tests/oracle/`.
    script: &'static str,
}

impl Oracle {
    /// toolnexus 0.21.0's Python port.
    pub(crate) const TOOLNEXUS: Oracle = Oracle {
        env: "SKILLDECK_TOOLNEXUS_PYTHON",
        venv: "toolnexus",
        package: "toolnexus==0.21.0",
        script: "toolnexus_oracle.py",
    };

    /// skills-ref 0.1.1, the reference validator.
    pub(crate) const SKILLSREF: Oracle = Oracle {
        env: "SKILLDECK_SKILLSREF_PYTHON",
        venv: "skillsref",
        package: "skills-ref==0.1.1",
        script: "skillsref_oracle.py",
    };

    /// The oracle's Python; fails the test when absent.
    fn python(&self) -> PathBuf {
        let path = std::env::var_os(self.env)
            .filter(|p| !p.is_empty())
            .map_or_else(|| workspace().join(format!("target/venvs/{}/bin/python", self.venv)), PathBuf::from);
        assert!(
            path.exists(),
            "the {} oracle's Python was not found at {}: run scripts/test, which creates the venv \
             (target/venvs/{} with {}), or point {} at a Python that has it installed",
            self.venv,
            path.display(),
            self.venv,
            self.package,
            self.env
        );
        path
    }

    /// Runs the oracle on one request and returns its answer.
    pub(crate) fn ask(&self, request: &Value) -> Value {
        let script = workspace().join("tests/oracle").join(self.script);
        let python = self.python();
        let mut child = Command::new(&python)
            .arg(&script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {} {}: {e}", python.display(), script.display()));
        let mut stdin = child.stdin.take().unwrap_or_else(|| panic!("no stdin for the oracle"));
        stdin.write_all(request.to_string().as_bytes()).unwrap_or_else(|e| panic!("writing to the oracle: {e}"));
        drop(stdin);
        let out = child.wait_with_output().unwrap_or_else(|e| panic!("waiting for the oracle: {e}"));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "the oracle failed ({}) on {request}\nstdout: {stdout}\nstderr: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("the oracle's answer is not JSON ({e}): {stdout}"))
    }
}
