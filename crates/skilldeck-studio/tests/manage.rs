//! What keeps a save whole and what removes or renames: an unchanged save
//! of a disk skill serves what the disk skill served, delete, revert to
//! disk, rename, a skill's files, deleting an agent, and the words of the
//! history.

use skilldeck::store::Precondition;
use skilldeck::{AgentProfile, Eager, SampleLimit, SkillTool};

use crate::{Backend, Fixture, began, disk_skill, textarea, unescape};

const PDF: &str = "---\nname: pdf\ndescription: Fill PDF forms.\nlicense: MIT\nmetadata:\n  author: someone\n---\n\n# PDF\n\nSee `reference/fields.md`.\n";

fn disk(root: &std::path::Path) {
    disk_skill(root, "pdf", PDF);
    std::fs::create_dir_all(root.join("pdf/reference")).unwrap();
    std::fs::write(root.join("pdf/reference/fields.md"), "# Fields\n\n<b>name</b>\n").unwrap();
    std::fs::write(root.join("pdf/blank.bin"), [0u8, 159, 146, 150]).unwrap();
    disk_skill(root, "crlf", "---\r\nname: crlf\r\ndescription: written on Windows\r\n---\r\nline one\r\nline two\r\n");
}

/// Runs `test` on SQLite, then PostgreSQL when given.
fn on_each_store(test: impl Fn(&Fixture)) {
    for backend in [Backend::Sqlite, Backend::Postgres] {
        if let Some(fixture) = Fixture::new(backend, disk) {
            test(&fixture);
        }
    }
}

/// What `skilldeck load NAME` prints for the Studio's catalog now.
fn load(f: &Fixture, name: &str) -> String {
    SkillTool::new(&f.live.snapshot()).load(name, SampleLimit::Default).output
}

/// The editor's form as a browser sends it back unchanged: its HTML parser
/// reads every line break as LF, and a form sends them as CRLF.
fn resave(f: &Fixture, name: &str) -> crate::Answer {
    let page = f.get(&format!("/skills/{name}"));
    let as_sent = |text: String| text.replace("\r\n", "\n").replace('\n', "\r\n");
    let content = as_sent(unescape(&textarea(&page.body)));
    let mut fields = vec![("name", name.to_owned()), ("content", content), ("began", as_sent(began(&page.body)))];
    if page.body.contains("<input type=\"hidden\" name=\"crlf\" value=\"1\">") {
        fields.push(("crlf", "1".into()));
    }
    let fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
    f.post("/skills", &fields)
}

#[test]
fn an_unchanged_save_of_a_disk_skill_serves_what_it_served() {
    on_each_store(|f| {
        for name in ["pdf", "crlf"] {
            let before = load(f, name);
            let file = std::fs::read_to_string(f.root.path().join(name).join("SKILL.md")).unwrap();
            let saved = resave(f, name);
            assert_eq!(saved.status, 303, "{}", saved.body);
            // The record is the file, byte for byte: every key, CRLF kept.
            assert_eq!(f.store.get(name, None).unwrap().unwrap().content, file);
            assert_eq!(load(f, name), before, "{name}: the tool serves the same bytes, files included");
        }
        assert!(load(f, "pdf").contains("reference/fields.md</file>"));
        let frontmatter = f.live.snapshot().get("pdf").unwrap().frontmatter().into_owned();
        assert_eq!(
            (frontmatter["license"].as_str(), frontmatter["metadata"]["author"].as_str()),
            (Some("MIT"), Some("someone"))
        );
        // Saved again from the store's record: still the same.
        assert_eq!(resave(f, "crlf").status, 303);
        assert!(f.store.get("crlf", None).unwrap().unwrap().content.contains("\r\nline two\r\n"));
    });
}

#[test]
fn delete_removes_a_stored_skill_and_reverts_one_over_disk() {
    on_each_store(|f| {
        let solo = "---\nname: solo\ndescription: only stored\n---\nx\n";
        f.store.write("solo", solo, None, &Precondition::Any).unwrap();
        f.store.write("solo", solo, Some("bia"), &Precondition::Any).unwrap();
        f.store.write("pdf", &PDF.replace("# PDF", "# Edited"), None, &Precondition::Any).unwrap();
        f.live.reload();
        let page = f.get("/skills/solo");
        page.has("<h2 id=\"manage-h\">Delete or rename</h2>")
            .has("<form id=\"delete-skill\" method=\"post\" action=\"/skills/solo/delete\">")
            .has("<input type=\"checkbox\" id=\"confirm-delete\" name=\"confirm\" value=\"yes\" required>")
            .has("The own versions of bia are records of their own and stay.");
        // Unconfirmed: nothing goes.
        let unconfirmed = f.post("/skills/solo/delete", &[]);
        assert_eq!(unconfirmed.status, 422);
        unconfirmed.has("Tick the box to confirm");
        assert!(f.store.get("solo", None).unwrap().is_some());
        let deleted = f.post("/skills/solo/delete", &[("confirm", "yes")]);
        assert_eq!((deleted.status, deleted.location()), (303, "/skills"));
        f.follow(&deleted).has("Skill solo deleted, with its earlier versions. The own versions of bia stay.");
        assert!(f.store.get("solo", None).unwrap().is_none() && f.store.get("solo", Some("bia")).unwrap().is_some());
        assert!(f.live.snapshot().get("solo").is_none());

        // A record over a disk skill: the page offers a revert, not a rename.
        let over = f.get("/skills/pdf");
        over.has("<h2 id=\"manage-h\">Revert to disk</h2>")
            .has(">Revert to disk</button>")
            .lacks("id=\"rename-skill\"");
        let reverted = f.post("/skills/pdf/delete", &[("confirm", "yes")]);
        assert_eq!((reverted.status, reverted.location()), (303, "/skills/pdf"));
        let path = f.root.path().join("pdf/SKILL.md").display().to_string();
        f.follow(&reverted)
            .has(&format!("Reverted to disk: the store&#39;s record is deleted, and {path} is the skill again."));
        assert!(f.store.get("pdf", None).unwrap().is_none());
        assert_eq!(unescape(&textarea(&f.get("/skills/pdf").body)), PDF, "the file is the skill again");
        // A disk skill has no record: nothing to delete.
        assert_eq!(f.post("/skills/pdf/delete", &[("confirm", "yes")]).status, 404);
        f.get("/skills/pdf").lacks("id=\"manage\"");
    });
}

#[test]
fn rename_moves_a_stored_skill() {
    on_each_store(|f| {
        let text = "---\nname: pedido\ndescription: faz pedidos\n---\nv1\n";
        f.store.write("pedido", text, None, &Precondition::Any).unwrap();
        let current = f.store.write("pedido", &text.replace("v1", "v2"), None, &Precondition::Any).unwrap().content;
        f.live.reload();
        f.get("/skills/pedido").has("<form id=\"rename-skill\" method=\"post\" action=\"/skills/pedido/rename\">");
        let taken = f.post("/skills/pedido/rename", &[("new_name", "pdf"), ("began", &current)]);
        assert_eq!(taken.status, 409);
        taken.has("a skill named &#39;pdf&#39; already exists");
        let stale = f.post("/skills/pedido/rename", &[("new_name", "order"), ("began", text)]);
        assert_eq!(stale.status, 409, "a page older than the record");
        let bad = f.post("/skills/pedido/rename", &[("new_name", "a/b"), ("began", &current)]);
        assert_eq!(bad.status, 422);
        let renamed = f.post("/skills/pedido/rename", &[("new_name", "order"), ("began", &current)]);
        assert_eq!((renamed.status, renamed.location()), (303, "/skills/order"), "{}", renamed.body);
        let page = f.follow(&renamed);
        page.has("Renamed pedido to order, with its earlier versions.");
        assert_eq!(unescape(&textarea(&page.body)), "---\nname: order\ndescription: faz pedidos\n---\nv2\n");
        assert_eq!(f.store.versions("order", None).unwrap().len(), 2);
        assert!(f.store.get("pedido", None).unwrap().is_none());
        // A record over a disk skill keeps the disk skill's name.
        f.store.write("pdf", PDF, None, &Precondition::Any).unwrap();
        f.live.reload();
        let over = f.post("/skills/pdf/rename", &[("new_name", "pdf2"), ("began", PDF)]);
        assert_eq!(over.status, 409);
        over.has("so it keeps that name");
    });
}

#[test]
fn a_skills_files_are_listed_and_read_through_the_confinement() {
    on_each_store(|f| {
        std::os::unix::fs::symlink("/etc/hostname", f.root.path().join("pdf/outside")).unwrap();
        f.live.reload();
        f.get("/skills/pdf").has("<a id=\"files-link\" href=\"/skills/pdf/files\">");
        let list = f.get("/skills/pdf/files");
        assert_eq!(list.status, 200);
        list.has("<td><a href=\"/skills/pdf/files/SKILL.md\">SKILL.md</a></td>")
            .has(&format!("<td>{} bytes</td><td>on disk</td>", PDF.len()))
            .has("<a href=\"/skills/pdf/files/reference/fields.md\">reference/fields.md</a>")
            .has("<td>outside</td><td></td><td>not served: ");
        let file = f.get("/skills/pdf/files/reference/fields.md");
        file.has("<pre id=\"file-text\"># Fields\n\n&#60;b&#62;name&#60;/b&#62;\n</pre>");
        f.get("/skills/pdf/files/blank.bin").has("4 bytes: not text").lacks("id=\"file-text\"");
        assert_eq!(f.get("/skills/pdf/files/outside").status, 403);
        assert_eq!(f.get("/skills/pdf/files/nothing.md").status, 404);
        assert_eq!(f.get("/skills/pdf/files/..%2Fcrlf%2FSKILL.md").status, 404);
        assert_eq!(f.get("/skills/pdf/files/../crlf/SKILL.md").status, 404);
        // Stored over the disk skill: SKILL.md is the record, the rest the directory's.
        let record = PDF.replace("# PDF", "# Edited");
        f.store.write("pdf", &record, None, &Precondition::Any).unwrap();
        f.live.reload();
        let list = f.get("/skills/pdf/files");
        list.has(&format!("<td>{} bytes</td><td>the store&#39;s record</td>", record.len())).has("reference/fields.md");
        f.get("/skills/pdf/files/SKILL.md").has("# Edited");
        // A stored skill of its own has its SKILL.md only.
        f.store.write("solo", "---\nname: solo\n---\nx\n", None, &Precondition::Any).unwrap();
        f.live.reload();
        let solo = f.get("/skills/solo/files");
        assert_eq!(solo.body.matches("<tr><td>").count(), 1, "{}", solo.body);
        assert_eq!(f.get("/skills/nobody/files").status, 404);
    });
}

#[test]
fn an_agent_is_deleted_with_its_history_and_its_own_versions_stay() {
    for backend in [Backend::Sqlite, Backend::Postgres] {
        let Some(f) = Fixture::new(backend, disk) else { continue };
        f.store.update_profiles(&mut |all| all.push(AgentProfile::new("bia").eager(Eager::names(["pdf"])))).unwrap();
        f.store.write("pdf", PDF, Some("bia"), &Precondition::Any).unwrap();
        f.live.reload();
        f.get("/agents/bia")
            .has("<form id=\"delete-agent\" method=\"post\" action=\"/agents/bia/delete\">")
            .has("Eager skills: pdf.");
        assert_eq!(f.post("/agents/bia/delete", &[]).status, 422);
        let deleted = f.post("/agents/bia/delete", &[("confirm", "yes")]);
        assert_eq!((deleted.status, deleted.location()), (303, "/agents"));
        f.follow(&deleted)
            .has("Agent bia deleted, with its profile&#39;s history. Its own versions of 1 skill(s) stay");
        assert!(f.store.profiles().unwrap().is_empty());
        assert!(f.store.get("pdf", Some("bia")).unwrap().is_some());
        assert_eq!(f.post("/agents/bia/delete", &[("confirm", "yes")]).status, 404);
    }
}

#[test]
fn versions_say_which_is_newest_and_oldest() {
    on_each_store(|f| {
        for i in 0..4 {
            f.store.write("pedido", &format!("---\nname: pedido\n---\nv{i}\n"), None, &Precondition::Any).unwrap();
        }
        f.live.reload();
        let versions = f.store.versions("pedido", None).unwrap();
        let current = f.store.get("pedido", None).unwrap().unwrap();
        let page = f.get("/skills/pedido");
        page.has(&format!("<p>The current text was saved {}.</p>", current.updated_at))
            .has(&format!("<li>Saved {}, the newest earlier version: ", versions[0].at))
            .has(&format!("<li>Saved {}, 2 saves back: ", versions[1].at))
            .has(&format!("<li>Saved {}, the oldest kept (the store keeps the 20 newest): ", versions[2].at))
            .lacks("Version 0");
        f.get("/skills/pedido/versions/2")
            .has("This is the oldest kept")
            .has(&format!("<h1>pedido: the version saved {}</h1>", versions[2].at));
        // A restore from a page whose history has moved on since is refused.
        let stale = f.post("/skills/pedido/versions/0/restore", &[("at", "1999-01-01T00:00:00Z")]);
        assert_eq!(stale.status, 409);
        assert_eq!(f.store.get("pedido", None).unwrap().unwrap(), current);
    });
}

#[test]
fn an_agent_can_have_a_skill_of_its_own_from_the_template() {
    let f = Fixture::new(Backend::Sqlite, disk).unwrap();
    let page = f.get("/agents/bia/skills/mine");
    assert_eq!(page.status, 200);
    assert_eq!(unescape(&textarea(&page.body)), skilldeck_studio::template("mine", "load_skill"));
    page.has("saving makes one only bia has");
    let saved = f.post(
        "/agents/bia/skills/mine",
        &[("content", &skilldeck_studio::template("mine", "load_skill")), ("began", "")],
    );
    assert_eq!((saved.status, saved.location()), (303, "/agents/bia/skills/mine"));
    let removed = f.post("/agents/bia/skills/mine/delete", &[]);
    assert_eq!((removed.status, removed.location()), (303, "/agents/bia"));
}

#[test]
fn every_new_post_needs_the_csrf_pair() {
    let f = Fixture::new(Backend::Sqlite, disk).unwrap();
    f.store.write("solo", "---\nname: solo\n---\nx\n", None, &Precondition::Any).unwrap();
    f.store.update_profiles(&mut |all| all.push(AgentProfile::new("bia"))).unwrap();
    f.live.reload();
    f.csrf();
    let origin = Some("http://127.0.0.1:7676");
    for path in ["/skills/solo/delete", "/skills/solo/rename", "/agents/bia/delete", "/skills/solo/versions/0/restore"]
    {
        let body = crate::encode_form(&[("confirm", "yes"), ("new_name", "other")]);
        assert_eq!(f.post_raw(path, &body, origin).status, 403, "{path}");
    }
    assert!(f.store.get("solo", None).unwrap().is_some() && f.store.get("other", None).unwrap().is_none());
    assert_eq!(f.store.profiles().unwrap().len(), 1);
}
