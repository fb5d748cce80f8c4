//! Checks (or, with `SKILLDECK_BLESS=1`, rewrites) `crates/NAME/public-api.txt` for each
//! publishable library crate of the workspace, so that a change to the public API shows
//! as a diff of that file in review.
//!
//! The API is read from rustdoc's JSON (stable rustdoc, unlocked for this one run by the
//! `rustdoc-json` wrapper beside this crate) and rendered one item per line, sorted, by
//! the `public-api` library (the one behind `cargo public-api`). Every feature is on, so
//! items behind a feature are part of the snapshot too.
//!
//! Run from the repository root: `scripts/api-snapshot` (check) or
//! `SKILLDECK_BLESS=1 scripts/api-snapshot` (rewrite).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// A library crate of the workspace that is meant for crates.io.
struct Library {
    /// The library target's name (`skilldeck_walk`): the JSON file's stem.
    target: String,
    /// The package's directory, where `public-api.txt` lives.
    dir: PathBuf,
}

type Error = Box<dyn std::error::Error>;

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(error) => {
            eprintln!("api-snapshot: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Returns whether every snapshot matched (or was written).
fn run() -> Result<bool, Error> {
    let bless = std::env::var_os("SKILLDECK_BLESS").is_some_and(|value| value == "1");
    let wrapper = Path::new(env!("CARGO_MANIFEST_DIR")).join("rustdoc-json");
    let (libraries, target_dir) = libraries()?;
    // One `cargo doc` for the whole workspace, not a `cargo rustdoc -p` per crate: its
    // features are unified as in scripts/test's `cargo doc`, whose checked dependencies
    // it reuses (per crate, cargo resolves features anew and checks dependencies again).
    let status = Command::new(env!("CARGO"))
        .args(["doc", "--quiet", "--workspace", "--no-deps", "--all-features"])
        .env("RUSTDOC", &wrapper)
        .env("RUSTDOCFLAGS", "-Z unstable-options --output-format json")
        .status()?;
    if !status.success() {
        return Err(format!("rustdoc JSON for the workspace failed ({status})").into());
    }
    let mut all_match = true;
    for library in &libraries {
        let json = target_dir.join("doc").join(format!("{}.json", library.target));
        let api = public_api::Builder::from_rustdoc_json(&json)
            // `impl<T> From<T> for T` and kin on every type: noise, and not this crate's.
            .omit_blanket_impls(true)
            .build()
            .map_err(|error| {
                format!("{}: {error} (a rustdoc JSON format this public-api does not read?)", json.display())
            })?;
        let mut rendered: String = api.items().map(|item| format!("{item}\n")).collect();
        if rendered.is_empty() {
            rendered.push('\n');
        }
        let path = library.dir.join("public-api.txt");
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        if committed == rendered {
            continue;
        }
        if bless {
            std::fs::write(&path, &rendered).map_err(|error| format!("{}: {error}", path.display()))?;
            eprintln!("api-snapshot: wrote {}", path.display());
            continue;
        }
        all_match = false;
        report(&path, &committed, &rendered);
    }
    if !all_match {
        eprintln!(
            "api-snapshot: the public API changed. If that is intended, run \
             `SKILLDECK_BLESS=1 scripts/api-snapshot` and commit the public-api.txt files."
        );
    }
    Ok(all_match)
}

/// Prints the items only in the committed snapshot (`-`) and only in the code (`+`).
fn report(path: &Path, committed: &str, rendered: &str) {
    let old: BTreeSet<&str> = committed.lines().collect();
    let new: BTreeSet<&str> = rendered.lines().collect();
    eprintln!("api-snapshot: {} differs from the code:", path.display());
    for line in old.difference(&new) {
        eprintln!("-{line}");
    }
    for line in new.difference(&old) {
        eprintln!("+{line}");
    }
    if old == new {
        eprintln!("(same items, in another order or with other line ends)");
    }
}

/// The workspace's publishable libraries (a `publish = false` package is skipped: cargo
/// metadata shows it as `"publish": []`), and the target directory.
fn libraries() -> Result<(Vec<Library>, PathBuf), Error> {
    let output = Command::new(env!("CARGO")).args(["metadata", "--no-deps", "--format-version", "1"]).output()?;
    if !output.status.success() {
        return Err(format!("cargo metadata failed: {}", String::from_utf8_lossy(&output.stderr)).into());
    }
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout)?;
    let target_dir = PathBuf::from(metadata["target_directory"].as_str().ok_or("cargo metadata: no target_directory")?);
    let mut libraries = Vec::new();
    for package in metadata["packages"].as_array().ok_or("cargo metadata: no packages")? {
        if package["publish"].as_array().is_some_and(Vec::is_empty) {
            continue;
        }
        let Some(lib) = package["targets"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|target| target["kind"].as_array().is_some_and(|kinds| kinds.iter().any(|kind| kind == "lib")))
        else {
            continue; // a binary-only package (the CLI) has no Rust API
        };
        let manifest = PathBuf::from(package["manifest_path"].as_str().ok_or("cargo metadata: no manifest_path")?);
        libraries.push(Library {
            target: lib["name"].as_str().ok_or("cargo metadata: no target name")?.replace('-', "_"),
            dir: manifest.parent().ok_or("cargo metadata: manifest without a directory")?.to_owned(),
        });
    }
    Ok((libraries, target_dir))
}
