//! Where the catalog commands look when told nothing: the conventional
//! places of the working directory's project and of `$HOME` (a fake one
//! here), a relative `--root` made absolute and said so, and a catalog with
//! no skill said so.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use super::{stderr, stdout};

fn skill(dir: &Path, name: &str, description: &str) {
    std::fs::create_dir_all(dir.join(name)).unwrap();
    std::fs::write(
        dir.join(name).join("SKILL.md"),
        format!("---\nname: {name}\ndescription: {description}\n---\nbody\n"),
    )
    .unwrap();
}

/// `skilldeck ARGS` in `cwd` with `home` as `$HOME` and the default log filter.
fn run_in(cwd: &Path, home: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skilldeck"))
        .args(args)
        .current_dir(cwd)
        .env("HOME", home)
        .env_remove("SKILLDECK_LOG")
        .output()
        .unwrap()
}

/// A temporary directory by its real path (the working directory a child reports).
fn tempdir() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().canonicalize().unwrap();
    (dir, real)
}

#[test]
fn no_root_reads_the_project_then_the_user_and_the_project_wins_a_name() {
    let (_tmp, base) = tempdir();
    let (project, home) = (base.join("project"), base.join("home"));
    std::fs::create_dir_all(project.join(".git")).unwrap();
    skill(&project.join(".claude/skills"), "shared", "the project's");
    skill(&project.join(".claude/skills"), "build", "project only");
    skill(&home.join(".agents/skills"), "shared", "the user's");
    skill(&home.join(".agents/skills"), "notes", "user only");
    // From a subdirectory of the repository, as from its root.
    std::fs::create_dir_all(project.join("src/deep")).unwrap();
    for cwd in [project.clone(), project.join("src/deep")] {
        let out = run_in(&cwd, &home, &["list", "--json"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        let names: Vec<(&str, &str)> = json["skills"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| (s["name"].as_str().unwrap(), s["description"].as_str().unwrap()))
            .collect();
        assert_eq!(names, [("build", "project only"), ("shared", "the project's"), ("notes", "user only")]);
        let lost = home.join(".agents/skills/shared/SKILL.md");
        assert_eq!(
            stderr(&out),
            format!(
                "skilldeck: no --root given: skills from {}, {}\n\
                 skilldeck: warning: duplicate skill name \"shared\" ({}) \u{2014} keeping first\n",
                project.join(".claude/skills").display(),
                home.join(".agents/skills").display(),
                lost.display(),
            )
        );
    }
    // The places not there are named only when asked for.
    let out = Command::new(env!("CARGO_BIN_EXE_skilldeck"))
        .args(["prompt"])
        .current_dir(&project)
        .env("HOME", &home)
        .env("SKILLDECK_LOG", "skilldeck_cli=debug")
        .output()
        .unwrap();
    let missing = [".agents/skills", ".github/skills"]
        .iter()
        .map(|rel| project.join(rel))
        .chain([".claude/skills", ".codex/skills", ".copilot/skills"].iter().map(|rel| home.join(rel)))
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    assert!(
        stderr(&out)
            .contains(&format!("skilldeck: not walked (no such directory, or one walked already): {missing}\n")),
        "{}",
        stderr(&out)
    );
}

#[test]
fn any_source_flag_turns_the_conventions_off() {
    let (_tmp, base) = tempdir();
    skill(&base.join(".claude/skills"), "conventional", "not read");
    std::fs::write(base.join("defs.json"), r#"[{"name":"data","description":"given"}]"#).unwrap();
    let out = run_in(&base, &base, &["list", "--json", "--skills", "defs.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(json["skills"].as_array().unwrap().len(), 1);
    assert_eq!(json["skills"][0]["name"], "data");
    assert_eq!(stderr(&out), "");
}

#[test]
fn a_relative_root_is_the_working_directory_s_and_says_which_path_it_became() {
    let (_tmp, base) = tempdir();
    skill(&base.join("skills"), "rel", "found relative");
    std::fs::create_dir(base.join("other")).unwrap();
    let out = run_in(&base, &base, &["list", "--root", "skills", "--root", "./other/../skills"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("\nrel   fs       found relative\n"), "{}", stdout(&out));
    let b = base.display();
    assert_eq!(
        stderr(&out),
        format!(
            "skilldeck: --root skills resolved to {b}/skills\n\
             skilldeck: --root ./other/../skills resolved to {b}/other/../skills\n\
             skilldeck: warning: duplicate skill name \"rel\" ({b}/other/../skills/rel/SKILL.md) \u{2014} keeping first\n"
        )
    );
    // An absolute root says nothing.
    let absolute = base.join("skills");
    let out = run_in(Path::new("/"), &base, &["list", "--root", absolute.to_str().unwrap()]);
    assert_eq!(stderr(&out), "");
}

#[test]
fn an_empty_catalog_says_where_it_looked() {
    let (_tmp, base) = tempdir();
    let (project, home) = (base.join("project"), base.join("home"));
    std::fs::create_dir_all(&project).unwrap();
    let out = run_in(&project, &home, &["prompt"]);
    assert_eq!(out.status.code(), Some(0));
    // stdout stays toolnexus's text for an empty catalog.
    assert_eq!(stdout(&out), "No skills are currently available.");
    let (p, h) = (project.display(), home.display());
    assert_eq!(
        stderr(&out),
        format!(
            "skilldeck: warning: no skills found; looked in {p}/.agents/skills, {p}/.claude/skills, \
             {p}/.github/skills, {h}/.agents/skills, {h}/.claude/skills, {h}/.codex/skills, {h}/.copilot/skills\n"
        )
    );
    // Roots given: those are named, and the other sources.
    std::fs::create_dir_all(project.join("empty")).unwrap();
    std::fs::write(project.join("none.json"), "[]").unwrap();
    let out = run_in(&project, &home, &["list", "--root", "empty", "--skills", "none.json"]);
    assert_eq!(
        stderr(&out),
        format!(
            "skilldeck: --root empty resolved to {p}/empty\n\
             skilldeck: warning: no skills found; looked in {p}/empty, --skills none.json\n"
        )
    );
}
