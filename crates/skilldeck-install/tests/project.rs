use std::fs;
use std::path::Path;

use skilldeck_install::{AddOptions, FilesError, GitError, InstallError, Location, Source, SourceType, Update};

use crate::{Env, commit, file_url, git, repo, skill_md, write};

fn git_source(url: &str) -> Source {
    Source::parse(url).unwrap()
}

fn all() -> AddOptions {
    AddOptions::default()
}

fn only(names: &[&str]) -> AddOptions {
    AddOptions { skills: names.iter().map(|n| (*n).to_owned()).collect(), ..AddOptions::default() }
}

/// The project holds no skill, no lock and no staging directory.
fn untouched(project: &Path) {
    assert!(!project.join("skills-lock.json").exists());
    assert!(!project.join(".agents/skills").exists());
    let left: Vec<_> = fs::read_dir(project.join(".agents"))
        .map(|d| d.map(|e| e.unwrap().file_name()).filter(|n| n != ".skilldeck.lock").collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "{left:?}");
}

fn two_skills(env: &Env) -> String {
    repo(
        &env.path("origin"),
        &[
            ("skills/alpha/SKILL.md", &skill_md("alpha")),
            ("skills/alpha/scripts/run.sh", "echo alpha\n"),
            ("skills/beta/SKILL.md", &skill_md("beta")),
            ("README.md", "not a skill\n"),
        ],
    )
}

#[test]
fn add_records_the_commit_and_every_file_then_install_elsewhere_works_offline() {
    let env = Env::default();
    let head = two_skills(&env);
    let url = file_url(&env.path("origin"));
    let project = env.project("p1");
    let installed = project.add(&git_source(&url), &all()).unwrap();
    assert_eq!(installed.iter().map(|i| i.name.as_str()).collect::<Vec<_>>(), ["alpha", "beta"]);
    assert_eq!(fs::read_to_string(env.path("p1/.agents/skills/alpha/scripts/run.sh")).unwrap(), "echo alpha\n");
    let lock = project.lock().unwrap();
    let alpha = &lock.skills["alpha"];
    assert_eq!(alpha.commit.as_deref(), Some(head.as_str()));
    assert_eq!((alpha.source.as_str(), alpha.source_type.as_str()), (url.as_str(), "git"));
    assert_eq!(alpha.source_url.as_deref(), Some(url.as_str()));
    assert_eq!(alpha.skill_path.as_deref(), Some("skills/alpha/SKILL.md"));
    assert_eq!(alpha.computed_hash, skilldeck_install::computed_hash(&env.path("p1/.agents/skills/alpha")).unwrap());
    let files: Vec<_> = alpha.files.as_ref().unwrap().keys().cloned().collect();
    assert_eq!(files, ["SKILL.md", "scripts/run.sh"]);
    assert!(project.verify().unwrap().iter().all(|v| v.is_clean()));

    // A fresh project with the lock alone, the origin gone: the cache has the commit.
    fs::remove_dir_all(env.path("origin")).unwrap();
    let fresh = env.project("p2");
    fs::copy(env.path("p1/skills-lock.json"), env.path("p2/skills-lock.json")).unwrap();
    let installed = fresh.install(true).unwrap();
    assert_eq!(installed.len(), 2);
    assert_eq!(fs::read_to_string(env.path("p2/.agents/skills/beta/SKILL.md")).unwrap(), skill_md("beta"));
    assert!(fresh.verify().unwrap().iter().all(|v| v.is_clean()));
    assert_eq!(fs::read(env.path("p2/skills-lock.json")).unwrap(), fs::read(env.path("p1/skills-lock.json")).unwrap());
    // Installed as recorded: nothing to do.
    assert!(fresh.install(false).unwrap().is_empty());
}

#[test]
fn list_shows_the_skills_and_writes_nothing() {
    let env = Env::default();
    two_skills(&env);
    let project = env.project("p");
    let found = project.list(&git_source(&file_url(&env.path("origin")))).unwrap();
    let names: Vec<_> = found.iter().map(|f| (f.name.as_str(), f.skill_path.as_str())).collect();
    assert_eq!(names, [("alpha", "skills/alpha/SKILL.md"), ("beta", "skills/beta/SKILL.md")]);
    assert_eq!(found[0].description.as_deref(), Some("The alpha skill, for tests."));
    untouched(&env.path("p"));
}

#[test]
fn refs_tags_branches_commits_and_a_subdirectory() {
    let env = Env::default();
    let origin = env.path("origin");
    let first =
        repo(&origin, &[("team/tools/lint/SKILL.md", &skill_md("lint")), ("other/fmt/SKILL.md", &skill_md("fmt"))]);
    git(&origin, &["tag", "v1"]);
    git(&origin, &["branch", "stable"]);
    commit(&origin, &[("team/tools/lint/notes.md", "new on main\n")], "second");
    git(&origin, &["checkout", "--quiet", "stable"]);
    let on_stable = commit(&origin, &[("team/tools/lint/stable.md", "stable\n")], "stable");
    git(&origin, &["checkout", "--quiet", "main"]);
    let url = file_url(&origin);

    let project = env.project("p");
    let mut source = git_source(&format!("{url}#v1"));
    source.subpath = Some("team".into());
    project.add(&source, &all()).unwrap();
    let lock = project.lock().unwrap();
    assert_eq!(lock.skills.keys().collect::<Vec<_>>(), ["lint"], "the subdirectory only");
    assert_eq!(lock.skills["lint"].commit.as_deref(), Some(first.as_str()));
    assert_eq!(lock.skills["lint"].reference.as_deref(), Some("v1"));
    assert!(!env.path("p/.agents/skills/lint/notes.md").exists());

    project.add(&git_source(&format!("{url}#stable")), &only(&["lint"])).unwrap();
    assert_eq!(project.lock().unwrap().skills["lint"].commit.as_deref(), Some(on_stable.as_str()));
    assert!(env.path("p/.agents/skills/lint/stable.md").exists());

    project.add(&git_source(&format!("{url}#{first}")), &only(&["fmt"])).unwrap();
    assert_eq!(project.lock().unwrap().skills["fmt"].commit.as_deref(), Some(first.as_str()));
}

#[test]
fn frozen_fails_on_a_modified_tree_and_changes_nothing() {
    let env = Env::default();
    two_skills(&env);
    let project = env.project("p");
    project.add(&git_source(&file_url(&env.path("origin"))), &all()).unwrap();
    let lock_before = fs::read(env.path("p/skills-lock.json")).unwrap();
    let run_sh = env.path("p/.agents/skills/alpha/scripts/run.sh");
    fs::write(&run_sh, "echo tampered\n").unwrap();
    fs::remove_dir_all(env.path("p/.agents/skills/beta")).unwrap();

    let error = project.install(true).unwrap_err();
    assert!(
        matches!(&error, InstallError::Frozen { name, diff } if name == "alpha" && diff.modified == ["scripts/run.sh"]),
        "{error}"
    );
    assert_eq!(fs::read_to_string(&run_sh).unwrap(), "echo tampered\n");
    assert!(!env.path("p/.agents/skills/beta").exists(), "nothing installed either");
    assert_eq!(fs::read(env.path("p/skills-lock.json")).unwrap(), lock_before);

    // Without --frozen the lock's content comes back.
    project.install(false).unwrap();
    assert_eq!(fs::read_to_string(&run_sh).unwrap(), "echo alpha\n");
    assert!(env.path("p/.agents/skills/beta/SKILL.md").exists());
    assert_eq!(fs::read(env.path("p/skills-lock.json")).unwrap(), lock_before);
}

#[test]
fn install_refuses_a_source_that_no_longer_gives_the_locked_files() {
    let env = Env::default();
    two_skills(&env);
    let project = env.project("p");
    project.add(&git_source(&file_url(&env.path("origin"))), &only(&["beta"])).unwrap();
    let mut lock = project.lock().unwrap();
    let files = lock.skills.get_mut("beta").unwrap().files.as_mut().unwrap();
    files.insert("SKILL.md".into(), format!("sha256:{}", "0".repeat(64)));
    lock.write(&project.lock_path()).unwrap();
    fs::remove_dir_all(env.path("p/.agents/skills/beta")).unwrap();
    let error = project.install(false).unwrap_err();
    assert!(matches!(&error, InstallError::Mismatch { diff, .. } if diff.modified == ["SKILL.md"]), "{error}");
    assert!(!env.path("p/.agents/skills/beta").exists());
}

#[test]
fn verify_finds_modified_missing_and_extra_files() {
    let env = Env::default();
    two_skills(&env);
    let project = env.project("p");
    project.add(&git_source(&file_url(&env.path("origin"))), &all()).unwrap();
    let alpha = env.path("p/.agents/skills/alpha");
    fs::write(alpha.join("SKILL.md"), "changed\n").unwrap();
    fs::remove_file(alpha.join("scripts/run.sh")).unwrap();
    fs::write(alpha.join("extra.md"), "new\n").unwrap();
    let report = project.verify().unwrap();
    let alpha = report.iter().find(|v| v.name == "alpha").unwrap();
    assert_eq!(alpha.diff.modified, ["SKILL.md"]);
    assert_eq!(alpha.diff.missing, ["scripts/run.sh"]);
    assert_eq!(alpha.diff.extra, ["extra.md"]);
    assert!(report.iter().find(|v| v.name == "beta").unwrap().is_clean());
    fs::remove_dir_all(env.path("p/.agents/skills/beta")).unwrap();
    let beta = project.verify().unwrap().into_iter().find(|v| v.name == "beta").unwrap();
    assert_eq!(beta.diff.missing, ["SKILL.md"]);
}

#[test]
fn remove_takes_the_copy_and_the_entry() {
    let env = Env::default();
    two_skills(&env);
    let project = env.project("p");
    project.add(&git_source(&file_url(&env.path("origin"))), &all()).unwrap();
    let error = project.remove(&["alpha".into(), "nope".into()]).unwrap_err();
    assert!(matches!(&error, InstallError::NotInstalled { name } if name == "nope"));
    assert!(env.path("p/.agents/skills/alpha").exists(), "nothing removed");
    project.remove(&["alpha".into()]).unwrap();
    assert!(!env.path("p/.agents/skills/alpha").exists());
    assert_eq!(project.lock().unwrap().skills.keys().collect::<Vec<_>>(), ["beta"]);
    let left: Vec<_> = fs::read_dir(env.path("p/.agents")).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left.len(), 2, "skills and the lock file only: {left:?}");
}

#[test]
fn update_moves_to_the_newest_commit_and_leaves_pinned_skills() {
    let env = Env::default();
    let first = two_skills(&env);
    let origin = env.path("origin");
    let project = env.project("p");
    let url = file_url(&origin);
    project.add(&git_source(&url), &only(&["alpha"])).unwrap();
    project.add(&git_source(&format!("{url}#{first}")), &only(&["beta"])).unwrap();
    assert_eq!(
        project.update(&[], false).unwrap(),
        [Update::Current { name: "alpha".into() }, Update::Pinned { name: "beta".into() }]
    );
    fs::remove_file(origin.join("skills/alpha/scripts/run.sh")).unwrap();
    let second = commit(
        &origin,
        &[("skills/alpha/SKILL.md", "---\nname: alpha\ndescription: New.\n---\n"), ("skills/alpha/new.md", "n\n")],
        "2",
    );
    let report = project.update(&["alpha".into()], false).unwrap();
    let [Update::Moved { name, from, to, diff, .. }] = report.as_slice() else { panic!("{report:?}") };
    assert_eq!((name.as_str(), from.as_deref(), to.as_str()), ("alpha", Some(first.as_str()), second.as_str()));
    assert_eq!(
        (diff.extra.clone(), diff.missing.clone(), diff.modified.clone()),
        (vec!["new.md".to_owned()], vec!["scripts/run.sh".to_owned()], vec!["SKILL.md".to_owned()])
    );
    assert!(env.path("p/.agents/skills/alpha/new.md").exists());
    assert!(!env.path("p/.agents/skills/alpha/scripts/run.sh").exists());
    assert_eq!(project.lock().unwrap().skills["alpha"].commit.as_deref(), Some(second.as_str()));
    assert!(project.verify().unwrap().iter().all(|v| v.is_clean()));
}

#[test]
fn a_local_directory_is_copied_and_recorded_relative_to_the_project() {
    let env = Env::default();
    write(&env.path("mine"), &[("deploy/SKILL.md", &skill_md("deploy")), ("deploy/run.sh", "x\n")]);
    let project = env.project("p");
    let source = Source::parse_in("../mine", &env.path("p")).unwrap();
    assert_eq!(source.location, Location::Local { path: env.path("mine") });
    project.add(&source, &all()).unwrap();
    let lock = project.lock().unwrap();
    let entry = &lock.skills["deploy"];
    assert_eq!(
        (entry.source.as_str(), entry.source_type.as_str(), entry.commit.as_deref()),
        ("../mine", "local", None)
    );
    assert_eq!(entry.skill_path.as_deref(), Some("deploy/SKILL.md"));
    fs::remove_dir_all(env.path("p/.agents/skills/deploy")).unwrap();
    project.install(true).unwrap();
    assert_eq!(fs::read_to_string(env.path("p/.agents/skills/deploy/run.sh")).unwrap(), "x\n");
    assert_eq!(SourceType::Local.as_str(), "local");
}

#[test]
fn two_hundred_skills() {
    let env = Env::default();
    let texts: Vec<(String, String)> =
        (0..200).map(|i| (format!("skills/s{i:03}/SKILL.md"), skill_md(&format!("s{i:03}")))).collect();
    let files: Vec<(&str, &str)> = texts.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
    repo(&env.path("origin"), &files);
    let project = env.project("p");
    assert_eq!(project.add(&git_source(&file_url(&env.path("origin"))), &all()).unwrap().len(), 200);
    assert_eq!(project.lock().unwrap().skills.len(), 200);
    let report = project.verify().unwrap();
    assert_eq!(report.len(), 200);
    assert!(report.iter().all(|v| v.is_clean()));
}

#[test]
fn two_adds_at_once_are_serialised() {
    let env = Env::default();
    two_skills(&env);
    let url = file_url(&env.path("origin"));
    std::thread::scope(|s| {
        for name in ["alpha", "beta"] {
            let project = env.project("p");
            let source = git_source(&url);
            s.spawn(move || project.add(&source, &only(&[name])).unwrap());
        }
    });
    assert_eq!(env.project("p").lock().unwrap().skills.len(), 2);
}

#[test]
fn bad_input_names_the_source_and_writes_nothing() {
    let env = Env::default();
    repo(&env.path("empty"), &[("README.md", "no skills here\n")]);
    two_skills(&env);
    let project = env.project("p");
    let empty = file_url(&env.path("empty"));
    let error = project.add(&git_source(&empty), &all()).unwrap_err();
    assert!(matches!(&error, InstallError::NoSkills { .. }) && error.to_string().contains(&empty), "{error}");
    untouched(&env.path("p"));

    let url = file_url(&env.path("origin"));
    let error = project.add(&git_source(&format!("{url}#no-such-ref")), &all()).unwrap_err();
    assert!(matches!(&error, InstallError::Git(GitError::NoRef { .. })) && error.to_string().contains(&url), "{error}");
    untouched(&env.path("p"));

    let gone = file_url(&env.path("gone"));
    let error = project.add(&git_source(&gone), &all()).unwrap_err();
    assert!(
        matches!(&error, InstallError::Git(GitError::Fetch { .. })) && error.to_string().contains(&gone),
        "{error}"
    );
    untouched(&env.path("p"));

    let error = project.add(&git_source(&url), &only(&["gamma"])).unwrap_err();
    assert!(error.to_string().contains("no skill \"gamma\" (it holds: alpha, beta)"), "{error}");
    untouched(&env.path("p"));

    assert!(Source::parse("not a source").is_err());
    assert!(Source::parse("acme/skills/../../etc").is_err());
}

#[test]
fn a_skill_dir_the_lock_does_not_name_is_kept_unless_forced() {
    let env = Env::default();
    two_skills(&env);
    write(&env.path("p/.agents/skills/alpha"), &[("SKILL.md", "mine\n")]);
    let project = env.project("p");
    let url = file_url(&env.path("origin"));
    let error = project.add(&git_source(&url), &only(&["alpha"])).unwrap_err();
    assert!(matches!(&error, InstallError::Collision { .. }), "{error}");
    assert!(error.to_string().contains(".agents/skills/alpha exists"), "{error}");
    assert_eq!(fs::read_to_string(env.path("p/.agents/skills/alpha/SKILL.md")).unwrap(), "mine\n");
    assert!(!env.path("p/skills-lock.json").exists());
    project
        .add(&git_source(&url), &AddOptions { skills: vec!["alpha".into()], force: true, ..AddOptions::default() })
        .unwrap();
    assert_eq!(fs::read_to_string(env.path("p/.agents/skills/alpha/SKILL.md")).unwrap(), skill_md("alpha"));
}

#[test]
fn links_leaving_the_skill_large_files_and_invalid_skills_are_refused() {
    let env = Env::default();
    let origin = env.path("origin");
    repo(
        &origin,
        &[("leaky/SKILL.md", &skill_md("leaky")), ("inner/SKILL.md", &skill_md("inner")), ("inner/a.md", "a\n")],
    );
    std::os::unix::fs::symlink("../../../../etc/passwd", origin.join("leaky/passwd")).unwrap();
    std::os::unix::fs::symlink("a.md", origin.join("inner/b.md")).unwrap();
    commit(
        &origin,
        &[("big/SKILL.md", &skill_md("big")), ("wrong/SKILL.md", "---\nname: nodesc\n---\nNo description.\n")],
        "more",
    );
    fs::write(origin.join("big/huge.bin"), vec![0u8; (skilldeck_install::MAX_FILE_BYTES + 1) as usize]).unwrap();
    commit(&origin, &[], "huge");
    let url = file_url(&origin);
    let project = env.project("p");

    let error = project.add(&git_source(&url), &only(&["leaky"])).unwrap_err();
    assert!(matches!(&error, InstallError::Files { source: FilesError::LinkLeaves { .. }, .. }), "{error}");
    assert!(error.to_string().contains("leaky/passwd"), "{error}");
    let error = project.add(&git_source(&url), &only(&["big"])).unwrap_err();
    assert!(matches!(&error, InstallError::Files { source: FilesError::TooLarge { .. }, .. }), "{error}");
    let error = project.add(&git_source(&url), &only(&["nodesc"])).unwrap_err();
    assert!(matches!(&error, InstallError::Invalid { .. }), "{error}");
    assert!(error.to_string().contains("Missing required field in frontmatter: description"), "{error}");
    untouched(&env.path("p"));

    // A link to a file inside the skill is installed as that file (as the npm package copies it).
    project.add(&git_source(&url), &only(&["inner"])).unwrap();
    assert_eq!(fs::read_to_string(env.path("p/.agents/skills/inner/b.md")).unwrap(), "a\n");
    assert!(!fs::symlink_metadata(env.path("p/.agents/skills/inner/b.md")).unwrap().file_type().is_symlink());
}

#[test]
fn the_layouts_people_publish_are_found() {
    let env = Env::default();
    repo(
        &env.path("origin"),
        &[
            ("SKILL.md", &skill_md("top")),
            (".claude/skills/claude-one/SKILL.md", &skill_md("claude-one")),
            (".agents/skills/agents-one/SKILL.md", &skill_md("agents-one")),
            ("skills/plain/SKILL.md", &skill_md("plain")),
            ("node_modules/dep/SKILL.md", &skill_md("dep")),
        ],
    );
    let found = env.project("p").list(&git_source(&file_url(&env.path("origin")))).unwrap();
    let paths: Vec<_> = found.iter().map(|f| (f.name.as_str(), f.skill_path.as_str())).collect();
    assert_eq!(
        paths,
        [
            ("agents-one", ".agents/skills/agents-one/SKILL.md"),
            ("claude-one", ".claude/skills/claude-one/SKILL.md"),
            ("plain", "skills/plain/SKILL.md"),
            ("top", "SKILL.md"),
        ]
    );
}

#[test]
fn sources_are_read_in_every_form() {
    let cwd = Path::new("/work");
    let read = |input: &str| Source::parse_in(input, cwd).unwrap();
    let gh = read("https://github.com/acme/skills/tree/v1/tools/lint");
    assert_eq!(gh.location, Location::Git { url: "https://github.com/acme/skills.git".into() });
    assert_eq!((gh.reference.as_deref(), gh.subpath.as_deref()), (Some("v1"), Some("tools/lint")));
    assert_eq!((gh.lock_source(), gh.lock_source_url()), ("acme/skills".into(), None));
    let short = read("github:acme/skills#main");
    assert_eq!((short.source_type, short.reference.as_deref()), (SourceType::Github, Some("main")));
    for url in ["ssh://git@example.com/team/skills.git", "git@example.com:team/skills.git", "file:///srv/skills.git"] {
        let source = read(url);
        assert_eq!((source.source_type, source.lock_source_url().as_deref()), (SourceType::Git, Some(url)));
    }
    let gitlab = read("https://gitlab.com/group/sub/skills.git");
    assert_eq!(gitlab.source_type, SourceType::Gitlab);
    for bad in ["", "acme", "acme/", "c:relative", "owner/repo/../x"] {
        assert!(Source::parse_in(bad, cwd).is_err(), "{bad:?}");
    }
}
