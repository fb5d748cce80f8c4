//! The catalog's check of installed skills (a project's `.agents/skills/NAME`)
//! against the `files` digests of the project's `skills-lock.json`, on real
//! directories: untouched, modified, missing, extra, unnamed, `locked`, and a
//! live reload that sees a file edited after the first build.

use std::fs;
use std::path::Path;

use sha2::{Digest, Sha256};
use skilldeck::{Catalog, FileChange, LiveCatalog, SkipReason, Warning};

const SKILL: &str = "---\nname: alpha\ndescription: The alpha skill.\n---\nDo alpha.\n";

fn digest(bytes: &[u8]) -> String {
    let hex: String = Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// A project with `alpha` installed (SKILL.md, run.sh) and the lock naming it.
fn project() -> tempfile::TempDir {
    let project = tempfile::tempdir().unwrap();
    let dir = project.path().join(".agents/skills/alpha");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("SKILL.md"), SKILL).unwrap();
    fs::write(dir.join("run.sh"), "echo alpha\n").unwrap();
    let lock = serde_json::json!({"version": 1, "skills": {"alpha": {
        "source": "acme/skills", "sourceType": "github", "computedHash": "0".repeat(64),
        "files": {"SKILL.md": digest(SKILL.as_bytes()), "run.sh": digest(b"echo alpha\n")},
    }}});
    fs::write(project.path().join("skills-lock.json"), lock.to_string()).unwrap();
    project
}

fn catalog(project: &Path, locked: bool) -> Catalog {
    Catalog::builder().root(project.join(".agents/skills")).locked(locked).build()
}

fn modified(file: &str, change: FileChange, project: &Path) -> Warning {
    let lock = project.join("skills-lock.json");
    Warning::ModifiedSinceInstall { name: "alpha".into(), file: file.into(), change, lock }
}

#[test]
fn an_untouched_skill_has_no_warning() {
    let project = project();
    for locked in [false, true] {
        let catalog = catalog(project.path(), locked);
        assert!(catalog.get("alpha").is_some());
        assert_eq!((catalog.warnings(), catalog.skips()), (&[][..], &[][..]));
    }
}

#[test]
fn a_modified_missing_or_extra_file_is_a_warning_naming_it() {
    let project = project();
    let dir = project.path().join(".agents/skills/alpha");
    fs::write(dir.join("run.sh"), "echo changed\n").unwrap();
    let catalog = catalog(project.path(), false);
    assert!(catalog.get("alpha").is_some(), "still exposed without locked");
    assert_eq!(catalog.warnings(), [modified("run.sh", FileChange::Modified, project.path())]);
    assert_eq!(
        catalog.warnings()[0].to_string(),
        format!(
            "skill \"alpha\" modified since install: run.sh modified (against {})",
            project.path().join("skills-lock.json").display()
        )
    );

    fs::write(dir.join("SKILL.md"), SKILL.replace("Do alpha", "Do beta")).unwrap();
    assert_eq!(catalog_warnings(project.path()), [modified("SKILL.md", FileChange::Modified, project.path())]);

    fs::write(dir.join("SKILL.md"), SKILL).unwrap();
    fs::remove_file(dir.join("run.sh")).unwrap();
    assert_eq!(catalog_warnings(project.path()), [modified("run.sh", FileChange::Missing, project.path())]);

    fs::write(dir.join("run.sh"), "echo alpha\n").unwrap();
    fs::create_dir_all(dir.join("scripts")).unwrap();
    fs::write(dir.join("scripts/new.py"), "").unwrap();
    assert_eq!(catalog_warnings(project.path()), [modified("scripts/new.py", FileChange::Extra, project.path())]);
}

fn catalog_warnings(project: &Path) -> Vec<Warning> {
    catalog(project, false).warnings().to_vec()
}

#[test]
fn locked_hides_a_modified_skill_and_one_no_lock_names() {
    let project = project();
    fs::write(project.path().join(".agents/skills/alpha/run.sh"), "echo changed\n").unwrap();
    let own = project.path().join(".agents/skills/mine");
    fs::create_dir_all(&own).unwrap();
    fs::write(own.join("SKILL.md"), "---\nname: mine\ndescription: Mine.\n---\n").unwrap();

    let open = catalog(project.path(), false);
    assert!(open.get("mine").is_some(), "a skill no lock names is no warning without locked");
    let locked = catalog(project.path(), true);
    assert!(locked.get("alpha").is_none() && locked.get("mine").is_none());
    let skips: Vec<(SkipReason, String)> =
        locked.skips().iter().map(|s| (s.reason, s.detail.clone().unwrap_or_default())).collect();
    assert_eq!(skips.len(), 2);
    assert!(skips.iter().all(|(reason, _)| *reason == SkipReason::NotLocked));
    assert!(skips[0].1.starts_with("modified since install: run.sh modified"), "{skips:?}");
    assert!(skips[1].1.ends_with("skills-lock.json does not name it"), "{skips:?}");

    // No lock at all: nothing installed is locked.
    fs::remove_file(project.path().join("skills-lock.json")).unwrap();
    assert_eq!(catalog(project.path(), true).skills().count(), 0);
    assert_eq!(catalog(project.path(), false).warnings(), []);
}

#[test]
fn a_lock_that_cannot_be_read_is_one_warning() {
    let project = project();
    fs::write(project.path().join("skills-lock.json"), "<<<<<<< HEAD\n").unwrap();
    let catalog = catalog(project.path(), false);
    assert!(catalog.get("alpha").is_some());
    assert_eq!(catalog.warnings().len(), 1);
    assert_eq!(catalog.warnings()[0].kind(), "lock-unreadable");
}

#[test]
fn a_skill_outside_a_projects_agents_skills_is_not_checked() {
    let project = project();
    let elsewhere = project.path().join("skills");
    fs::rename(project.path().join(".agents/skills"), &elsewhere).unwrap();
    fs::write(elsewhere.join("alpha/run.sh"), "echo changed\n").unwrap();
    let catalog = Catalog::builder().root(&elsewhere).locked(true).build();
    assert!(catalog.get("alpha").is_some());
    assert_eq!(catalog.warnings(), []);
}

#[test]
fn a_live_reload_sees_a_file_edited_after_the_first_build() {
    let project = project();
    let root = project.path().join(".agents/skills");
    let live = LiveCatalog::new(Catalog::builder().root(&root));
    assert_eq!(live.snapshot().warnings(), []);
    let run = root.join("alpha/run.sh");
    fs::write(&run, "echo changed\n").unwrap();
    let reloaded = live.reload_changed(std::slice::from_ref(&run));
    assert_eq!(reloaded.warnings().len(), 1, "{:?}", reloaded.warnings());
    assert!(matches!(&reloaded.warnings()[0], Warning::ModifiedSinceInstall { file, .. } if file == "run.sh"));
    fs::write(&run, "echo alpha\n").unwrap();
    assert_eq!(live.reload_changed(&[run]).warnings(), []);
}

#[test]
fn stamps_stand_in_for_a_read_only_while_the_files_stat_is_the_same() {
    let project = project();
    let cache = tempfile::tempdir().unwrap();
    let run = project.path().join(".agents/skills/alpha/run.sh");
    let build =
        || Catalog::builder().root(project.path().join(".agents/skills")).installed_stamps(cache.path()).build();
    let stamps =
        || -> Vec<std::path::PathBuf> { fs::read_dir(cache.path()).unwrap().map(|e| e.unwrap().path()).collect() };
    // A file changed this instant is not stamped (a write in the same clock tick could go unseen).
    assert_eq!(build().warnings(), []);
    assert!(stamps().is_empty(), "{:?}", stamps());
    // Settled, it is: one file for the project's lock, holding run.sh's stat and digest
    // (the SKILL.md is digested from the walk's own read, never stamped).
    std::thread::sleep(std::time::Duration::from_millis(2100));
    assert_eq!(build().warnings(), []);
    let [file] = &stamps()[..] else { panic!("{:?}", stamps()) };
    let text = fs::read_to_string(file).unwrap();
    let good = digest(b"echo alpha\n");
    assert!(text.contains(&good) && text.contains("run.sh") && !text.contains("SKILL.md"), "{text}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(fs::metadata(file).unwrap().permissions().mode() & 0o777, 0o600);
    }
    // The next build takes the stamp instead of reading run.sh: a stamp made to lie, with
    // the file's own stat, is believed (which shows the file was not read) ...
    let lie = digest(b"something else\n");
    fs::write(file, text.replace(&good, &lie)).unwrap();
    assert_eq!(build().warnings(), [modified("run.sh", FileChange::Modified, project.path())]);
    // ... and an edit of the same size changes the stat, so the file is read again whatever
    // the stamp says.
    fs::write(&run, "echo alpHa\n").unwrap();
    assert_eq!(build().warnings(), [modified("run.sh", FileChange::Modified, project.path())]);
    fs::write(&run, "echo alpha\n").unwrap();
    assert_eq!(build().warnings(), [], "read again: the bytes are the lock's");
    // A damaged stamps file is not trusted: every file is read.
    fs::write(file, "{ not json").unwrap();
    assert_eq!(build().warnings(), []);
}
