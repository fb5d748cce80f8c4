//! Every route over real stores, with Insika's flash texts.

use skilldeck::{AgentProfile, Eager, render};

use crate::{Backend, Fixture, began, disk_skill, escape, textarea, unescape};

const PEDIDO: &str = "---\nname: pedido\ndescription: faz pedidos\n---\nPeça com calma.\n";

fn disk(root: &std::path::Path) {
    disk_skill(
        root,
        "cardapio",
        "---\nname: cardapio\ndescription: o cardápio\ntriggers: [devolucao]\ncompanions: [query]\n---\n\ncorpo\n",
    );
    disk_skill(root, "pedido", "---\nname: pedido\ndescription: from disk\n---\nold\n");
    disk_skill(root, "query", "---\nname: query\ndescription: consulta\n---\nconsulte\n");
    disk_skill(root, "broken", "no frontmatter here\n");
    disk_skill(root, "zz-dup", "---\nname: query\ndescription: a second query\n---\n");
}

/// Runs `test` on SQLite, then PostgreSQL when given.
fn on_each_store(test: impl Fn(&Fixture)) {
    for backend in [Backend::Sqlite, Backend::Postgres] {
        if let Some(fixture) = Fixture::new(backend, disk) {
            test(&fixture);
        }
    }
}

#[test]
fn root_goes_to_the_list() {
    on_each_store(|f| {
        let answer = f.get("/");
        assert_eq!((answer.status, answer.location()), (303, "/skills"));
    });
}

#[test]
fn the_list_shows_origins_skips_and_warnings() {
    on_each_store(|f| {
        f.store.write("pedido", PEDIDO, None, &skilldeck::store::Precondition::Any).unwrap();
        f.store
            .write("solo", "---\nname: solo\ndescription: only stored\n---\nx\n", None, &Default::default())
            .unwrap();
        f.live.reload();
        let page = f.get("/skills");
        assert_eq!(page.status, 200);
        page.has("<html lang=\"en\">")
            .has("<main>")
            .has("<h1>Skills</h1>")
            .has("<a id=\"new-skill\" class=\"button\" href=\"/skills/new\">")
            .has("<tr><td><a href=\"/skills/cardapio\">cardapio</a></td><td>o cardápio</td><td>fs</td></tr>")
            .has("<tr><td><a href=\"/skills/pedido\">pedido</a></td><td>faz pedidos</td><td>store (over fs)</td></tr>")
            .has("<tr><td><a href=\"/skills/solo\">solo</a></td><td>only stored</td><td>store</td></tr>");
        let skips = &page.body[page.body.find("<section id=\"skips\"").unwrap()..];
        assert!(skips.contains("broken/SKILL.md</code>: missing-name"), "{skips}");
        let warnings = &page.body[page.body.find("<section id=\"warnings\"").unwrap()..];
        assert!(warnings.contains("zz-dup/SKILL.md"), "the second query is a warning: {warnings}");
        // Sorted by name.
        let order: Vec<usize> = ["/skills/cardapio\"", "/skills/pedido\"", "/skills/query\"", "/skills/solo\""]
            .iter()
            .map(|n| page.body.find(n).unwrap())
            .collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");
        // Search: part of a name, then the engine's ranking.
        let found = f.get("/skills?q=card");
        found.has("/skills/cardapio\"").lacks("/skills/solo\"");
        f.get("/skills?q=consulta").has("/skills/query\"");
    });
}

#[test]
fn pages_of_one_hundred() {
    let fixture = Fixture::new(Backend::Sqlite, |root| {
        for i in 0..250 {
            disk_skill(root, &format!("s{i:03}"), &format!("---\nname: s{i:03}\ndescription: d\n---\n"));
        }
    })
    .unwrap();
    let first = fixture.get("/skills");
    assert_eq!(first.body.matches("<tr><td>").count(), 100);
    first.has("<a rel=\"next\" href=\"/skills?page=2\">").lacks("rel=\"prev\"").has("250 skills, page 1 of 3.");
    let last = fixture.get("/skills?page=3");
    assert_eq!(last.body.matches("<tr><td>").count(), 50);
    last.has("<a rel=\"prev\" href=\"/skills?page=2\">").lacks("rel=\"next\"").has("/skills/s249\"");
}

#[test]
fn a_new_skill_starts_from_the_template_and_saves() {
    on_each_store(|f| {
        let page = f.get("/skills/new");
        assert_eq!(page.status, 200);
        assert_eq!(unescape(&textarea(&page.body)), skilldeck_studio::template("my-skill", "skill"));
        page.has("<form id=\"editor\" method=\"post\" action=\"/skills\">")
            .has("<input type=\"hidden\" name=\"began\" value=\"\">")
            .has("<button id=\"save\" type=\"submit\">");
        let text = "---\nname: nova\ndescription: a new one\n---\n\n# Nova\n";
        let saved = f.post("/skills", &[("name", "nova"), ("content", text), ("began", "")]);
        assert_eq!((saved.status, saved.location()), (303, "/skills/nova"));
        let shown = f.follow(&saved);
        shown.has("<div class=\"flash\" role=\"status\">Skill saved.</div>");
        assert_eq!(unescape(&textarea(&shown.body)), text);
        assert_eq!(began(&shown.body), text);
        assert_eq!(f.store.get("nova", None).unwrap().unwrap().content, text);
        // The rendered body, and the flash shown once only.
        shown.has("<h1>Nova</h1>");
        f.get("/skills/nova").has("<div class=\"flash\" role=\"status\"></div>").lacks("Skill saved.");
        // A browser sends CRLF line breaks: the store keeps LF ones.
        let crlf = text.replace('\n', "\r\n");
        let again = f.post("/skills", &[("name", "nova"), ("content", &crlf), ("began", &crlf)]);
        assert_eq!(again.status, 303, "{}", again.body);
        assert_eq!(f.store.get("nova", None).unwrap().unwrap().content, text);
    });
}

#[test]
fn a_refused_save_keeps_the_text() {
    on_each_store(|f| {
        let text = "---\ndescription: no name\n---\nmine\n";
        let refused = f.post("/skills", &[("name", "nova"), ("content", text), ("began", "")]);
        assert_eq!(refused.status, 422);
        refused.has("<div class=\"flash error\" role=\"alert\">frontmatter missing `name`</div>");
        assert_eq!(unescape(&textarea(&refused.body)), text);
        let fenceless = f.post("/skills", &[("name", "nova"), ("content", "just text"), ("began", "")]);
        assert_eq!(fenceless.status, 422);
        fenceless.has("role=\"alert\">SKILL.md missing YAML frontmatter (--- ... ---)</div>");
        let blank = f.post("/skills", &[("name", " "), ("content", text), ("began", "")]);
        assert_eq!(blank.status, 422);
        blank.has("role=\"alert\">name is required</div>");
        // A text that names another skill (issue 26): both names, and the text kept.
        let other = f.post("/skills", &[("name", "nova"), ("content", PEDIDO), ("began", "")]);
        assert_eq!(other.status, 422);
        other.has("role=\"alert\">frontmatter `name` &#39;pedido&#39; is not the skill name &#39;nova&#39;</div>");
        assert_eq!(unescape(&textarea(&other.body)), PEDIDO);
        assert!(f.store.get("nova", None).unwrap().is_none());
        // A name already taken, from a new-skill editor.
        let taken = "---\nname: taken\ndescription: d\n---\nx\n";
        f.post("/skills", &[("name", "taken"), ("content", taken), ("began", "")]);
        let twice = f.post("/skills", &[("name", "taken"), ("content", taken), ("began", "")]);
        assert_eq!(twice.status, 409);
        twice.has("role=\"alert\">skill &#39;taken&#39; already exists</div>");
    });
}

#[test]
fn the_editor_of_a_disk_skill_is_its_file_as_it_is() {
    on_each_store(|f| {
        let page = f.get("/skills/cardapio");
        assert_eq!(
            unescape(&textarea(&page.body)),
            std::fs::read_to_string(f.root.path().join("cardapio/SKILL.md")).unwrap(),
            "every byte of the file, not a rebuild from its parsed fields"
        );
        assert_eq!(began(&page.body), "", "no store record yet: a save creates one");
        let unknown = f.get("/skills/nothing-here");
        assert_eq!(unescape(&textarea(&unknown.body)), skilldeck_studio::template("nothing-here", "skill"));
    });
}

#[test]
fn two_tabs_the_second_save_is_a_conflict() {
    on_each_store(|f| {
        f.post("/skills", &[("name", "pedido"), ("content", PEDIDO), ("began", "")]);
        let tab1 = f.get("/skills/pedido");
        let tab2 = f.get("/skills/pedido");
        let (b1, b2) = (began(&tab1.body), began(&tab2.body));
        assert_eq!(b1, PEDIDO);
        let first = PEDIDO.replace("calma", "pressa");
        assert_eq!(f.post("/skills", &[("name", "pedido"), ("content", &first), ("began", &b1)]).status, 303);
        let second = PEDIDO.replace("calma", "cuidado <b>&</b>");
        let refused = f.post("/skills", &[("name", "pedido"), ("content", &second), ("began", &b2)]);
        assert_eq!(refused.status, 409);
        refused.has(
            "<div class=\"flash error\" role=\"alert\">skill &#39;pedido&#39; was changed since this edit began: reload it, then edit again</div>",
        );
        assert_eq!(unescape(&textarea(&refused.body)), second, "the user's text is kept");
        refused.has("<details id=\"theirs\" open>");
        assert_eq!(f.store.get("pedido", None).unwrap().unwrap().content, first, "never a silent overwrite");
    });
}

#[test]
fn history_diff_and_restore() {
    on_each_store(|f| {
        f.post("/skills", &[("name", "pedido"), ("content", PEDIDO), ("began", "")]);
        let v2 = PEDIDO.replace("Peça com calma.", "Peça depressa.");
        f.post("/skills", &[("name", "pedido"), ("content", &v2), ("began", PEDIDO)]);
        let page = f.get("/skills/pedido");
        let history = &page.body[page.body.find("<section id=\"history\"").unwrap()..];
        assert_eq!(history.matches("<li>").count(), 1, "{history}");
        assert!(history.contains("<a href=\"/skills/pedido/versions/0\">compare with the current text</a>"));
        assert!(history.contains("action=\"/skills/pedido/versions/0/restore\""));
        assert!(history.contains("<button class=\"restore\" type=\"submit\">"));
        let diff = f.get("/skills/pedido/versions/0");
        assert_eq!(diff.status, 200);
        diff.has("<div class=\"diff\">")
            .has("<del>- Peça com calma.</del>")
            .has("<ins>+ Peça depressa.</ins>")
            .has("<span>  name: pedido</span>");
        assert_eq!(f.get("/skills/pedido/versions/7").status, 404);
        let at = f.store.versions("pedido", None).unwrap()[0].at.clone();
        let restored = f.post("/skills/pedido/versions/0/restore", &[]);
        assert_eq!((restored.status, restored.location()), (303, "/skills/pedido"));
        f.follow(&restored).has(&format!(
            "<div class=\"flash\" role=\"status\">The version saved {at} is the current text again.</div>"
        ));
        assert_eq!(f.store.get("pedido", None).unwrap().unwrap().content, PEDIDO);
        assert_eq!(f.live.snapshot().get("pedido").unwrap().body().unwrap(), "Peça com calma.\n");
    });
}

/// Profiles in the store: the in-memory store keeps them today; SQLite and
/// PostgreSQL where their backend does.
fn with_profiles(test: impl Fn(&Fixture)) {
    for backend in [Backend::Memory, Backend::Sqlite, Backend::Postgres] {
        let Some(f) = Fixture::new(backend, disk) else { continue };
        let stored = f.store.update_profiles(&mut |all| {
            all.extend([
                AgentProfile::new("bia").allow(["cardapio"]).eager(Eager::names(["pedido"])),
                AgentProfile::new("chef").allow(Vec::<String>::new()),
                AgentProfile::new("geral"),
                AgentProfile::new("tudo").allow(["pedido"]).eager(Eager::All),
            ])
        });
        match stored {
            Ok(()) => test(&f),
            Err(skilldeck::store::StoreError::Unsupported { .. }) => {
                eprintln!("skipped on {backend:?}: this backend does not keep agent profiles yet")
            }
            Err(other) => panic!("{other}"),
        }
    }
}

#[test]
fn the_agent_grid_sets_who_may_use_the_skill() {
    with_profiles(|f| {
        f.store.write("pedido", PEDIDO, None, &Default::default()).unwrap();
        f.live.reload();
        let page = f.get("/skills/pedido");
        page.has("<form id=\"agents\" method=\"post\" action=\"/skills/pedido/agents\">")
            .has("<input type=\"checkbox\" name=\"agent_ids\" value=\"bia\" id=\"allowed-bia\">")
            .has("<input type=\"checkbox\" name=\"eager_ids\" value=\"bia\" id=\"eager-bia\" checked>")
            .has("<input type=\"checkbox\" name=\"agent_ids\" value=\"geral\" id=\"allowed-geral\" checked>")
            .has("<label for=\"allowed-bia\">");
        let answer =
            f.post("/skills/pedido/agents", &[("agent_ids", "bia"), ("agent_ids", "chef"), ("eager_ids", "chef")]);
        assert_eq!((answer.status, answer.location()), (303, "/skills/pedido"));
        f.follow(&answer).has(
            "<div class=\"flash\" role=\"status\">Skill&#39;s agents updated. — 1 agent(s) with &#39;all&#39; skills were left intact, 1 agent(s) with blanket eager were left intact.</div>",
        );
        let profiles = f.store.profiles().unwrap();
        let by = |id: &str| profiles.iter().find(|p| p.id == id).unwrap().clone();
        assert_eq!(by("bia").skills.unwrap(), ["cardapio", "pedido"]);
        assert_eq!(by("bia").eager, Eager::Names(vec![]));
        assert_eq!(by("chef").skills.unwrap(), ["pedido"]);
        assert_eq!(by("chef").eager, Eager::Names(vec!["pedido".into()]));
        assert_eq!(by("geral").skills, None);
        assert_eq!(by("tudo").skills.unwrap(), Vec::<String>::new());
        // Only the blanket-eager part when no allow-all agent is left out.
        let plain = f.post("/skills/pedido/agents", &[("agent_ids", "bia"), ("agent_ids", "geral")]);
        let shown = f.follow(&plain);
        assert!(
            shown.body.contains("role=\"status\">Skill&#39;s agents updated. — 1 agent(s) with blanket eager"),
            "tudo is eager for all"
        );
    });
}

#[test]
fn specialize_edit_and_remove() {
    with_profiles(|f| {
        // From a disk skill: its file's text, every key of it.
        let answer = f.post("/skills/cardapio/specialize", &[("agent_id", "chef")]);
        assert_eq!((answer.status, answer.location()), (303, "/agents/chef/skills/cardapio"));
        let own = f.follow(&answer);
        own.has("<div class=\"flash\" role=\"status\">Specialized for chef.</div>")
            .has("<span class=\"pill\">specialized for chef</span>")
            .has("<form id=\"remove-specialization\" method=\"post\" action=\"/agents/chef/skills/cardapio/delete\">");
        let seed = f.store.get("cardapio", Some("chef")).unwrap().unwrap().content;
        assert_eq!(seed, std::fs::read_to_string(f.root.path().join("cardapio/SKILL.md")).unwrap());
        // The shared page links the agent's own version.
        f.get("/skills/cardapio")
            .has("<a href=\"/agents/chef/skills/cardapio\"><span class=\"sr\">chef: </span>its own version</a>");
        // Specialising again never overwrites the agent's text.
        let again = f.post("/skills/cardapio/specialize", &[("agent_id", "chef")]);
        f.follow(&again).has("role=\"alert\">skill &#39;cardapio&#39; already exists for agent &#39;chef&#39;</div>");
        // Its own edit.
        let mine = seed.replace("corpo", "só do chef");
        let saved =
            f.post("/agents/chef/skills/cardapio", &[("name", "cardapio"), ("content", &mine), ("began", &seed)]);
        assert_eq!((saved.status, saved.location()), (303, "/agents/chef/skills/cardapio"));
        f.follow(&saved).has("<div class=\"flash\" role=\"status\">Specialization saved.</div>");
        assert_eq!(f.store.get("cardapio", Some("chef")).unwrap().unwrap().content, mine);
        assert_eq!(
            f.live.snapshot().get("cardapio").unwrap().body().unwrap(),
            "\ncorpo\n",
            "the shared skill is untouched"
        );
        // Its own history: a diff and a restore of the agent's record only.
        let own = f.get("/agents/chef/skills/cardapio");
        own.has("<a href=\"/agents/chef/skills/cardapio/versions/0\">compare with the current text</a>");
        f.get("/agents/chef/skills/cardapio/versions/0").has("<del>- corpo</del>").has("<ins>+ só do chef</ins>");
        let restored = f.post("/agents/chef/skills/cardapio/versions/0/restore", &[]);
        assert_eq!((restored.status, restored.location()), (303, "/agents/chef/skills/cardapio"));
        f.follow(&restored).has("role=\"status\">The version saved ").has(" is the current text again.</div>");
        assert_eq!(f.store.get("cardapio", Some("chef")).unwrap().unwrap().content, seed);
        // A tab still holding the text before the restore is refused.
        let stale =
            f.post("/agents/chef/skills/cardapio", &[("content", "---\nname: cardapio\n---\nx\n"), ("began", &mine)]);
        assert_eq!(stale.status, 409);
        stale.has("role=\"alert\">skill &#39;cardapio&#39; for agent &#39;chef&#39; was changed since this edit began: reload it, then edit again</div>");
        stale.has("<span class=\"pill\">specialized for chef</span>");
        // Removed: the agent falls back to the shared skill.
        let removed = f.post("/agents/chef/skills/cardapio/delete", &[]);
        assert_eq!((removed.status, removed.location()), (303, "/skills/cardapio"));
        f.follow(&removed).has(
            "<div class=\"flash\" role=\"status\">Specialization removed — the agent falls back to the shared skill.</div>",
        );
        assert!(f.store.get("cardapio", Some("chef")).unwrap().is_none());
        assert_eq!(f.post("/agents/chef/skills/cardapio/delete", &[]).status, 404);
    });
}

#[test]
fn agents_list_add_and_allowlist() {
    with_profiles(|f| {
        let list = f.get("/agents");
        list.has("<a href=\"/agents/bia\">bia</a>").has("<form id=\"new-agent\" method=\"post\" action=\"/agents\">");
        let added = f.post("/agents", &[("id", "nova")]);
        assert_eq!((added.status, added.location()), (303, "/agents/nova"));
        f.follow(&added).has("role=\"status\">Agent nova added.</div>");
        assert!(f.store.profiles().unwrap().iter().any(|p| p.id == "nova" && p.skills.is_none()));
        let page = f.get("/agents/bia");
        page.has("<form id=\"allowlist\" method=\"post\" action=\"/agents/bia/skills\">")
            .has("<input type=\"checkbox\" name=\"skills\" value=\"cardapio\" id=\"skill-0\" checked>");
        let answer = f.post("/agents/bia/skills", &[("all_skills", "1"), ("skills", "query")]);
        assert_eq!((answer.status, answer.location()), (303, "/agents/bia"));
        f.follow(&answer).has("<div class=\"flash\" role=\"status\">Skills updated.</div>");
        let bia = || f.store.profiles().unwrap().into_iter().find(|p| p.id == "bia").unwrap();
        assert_eq!(bia().skills, None);
        f.post("/agents/bia/skills", &[("skills", "query"), ("skills", "pedido")]);
        assert_eq!(bia().skills.unwrap(), ["query", "pedido"]);
        f.post("/agents/bia/skills", &[]);
        assert_eq!(bia().skills.unwrap(), Vec::<String>::new());
        assert_eq!(f.get("/agents/nobody").status, 404);
    });
}

#[test]
fn the_agent_preview_is_what_the_engine_gives() {
    with_profiles(|f| {
        f.store.write("pedido", PEDIDO, None, &Default::default()).unwrap();
        f.live.reload();
        let profile = AgentProfile::new("geral");
        let catalog = f.live.snapshot();
        let view = catalog.view(&profile);
        // A first visit: serve's default budget, 2000 characters, which the whole list fits.
        f.get("/agents/geral").has("<input id=\"budget\" name=\"budget\" value=\"2000c\"").lacks("id=\"inject\"");
        let page = f.get("/agents/geral?format=insika&budget=&message=quero+devolucao");
        assert_eq!(page.status, 200);
        let level1 = escape(&render::insika(&view.lazy()));
        page.has(&format!("<pre id=\"level1\">{level1}</pre>"));
        page.has("<ul id=\"inject\"><li><span class=\"name\">cardapio</span> · <span class=\"reason\">trigger:devolucao</span></li><li><span class=\"name\">query</span> · <span class=\"reason\">companion:cardapio</span></li></ul>");
        // Budgeted, with the report.
        let fitted = skilldeck::Budget::chars(150).closed("find_skills", |b| b.insika(&view.lazy()));
        let budgeted = f.get("/agents/geral?format=insika&budget=150c");
        budgeted.has(&format!("<pre id=\"level1\">{}</pre>", escape(&fitted.text)));
        budgeted.has(&format!("<pre id=\"report\">{}</pre>", escape(&fitted.report.to_string())));
        budgeted.has("(3 more skills are not listed here: call find_skills").lacks("id=\"inject\"");
        // Eager for bia: injected whatever the message.
        f.get("/agents/tudo?message=").has("<span class=\"name\">pedido</span> · <span class=\"reason\">eager</span>");
        // The shared formats.
        f.get("/agents/geral?format=toolnexus").has(&escape(&render::toolnexus(&catalog)));
        let bad = f.get("/agents/geral?budget=lots");
        assert_eq!(bad.status, 422);
        bad.has("role=\"alert\">invalid budget");
    });
}

#[test]
fn validate_answers_the_engine_diagnostics() {
    on_each_store(|f| {
        let rows = f.validate("---\nname: Bad_Name\ndescription: x\n---\n", "bad");
        let first = &rows[0];
        assert_eq!(first["line"], 2);
        assert_eq!(first["severity"], "warning");
        assert_eq!(first["check"], "name-lowercase");
        assert_eq!(first["message"], "Skill name 'Bad_Name' must be lowercase");
        // The editor renders the same diagnostics on their lines.
        f.post(
            "/skills",
            &[("name", "Bad_Name"), ("content", "---\nname: Bad_Name\ndescription: x\n---\n"), ("began", "")],
        );
        f.get("/skills/Bad_Name").has("<li data-line=\"2\" data-column=\"7\" class=\"warning\">line 2: warning: Skill name &#39;Bad_Name&#39; must be lowercase");
    });
}

#[test]
fn the_audit_shows_on_the_editors_lines_and_a_risky_save_needs_the_confirmation() {
    on_each_store(|f| {
        let risky = "---\nname: wipe\ndescription: Cleans.\n---\n```sh\nrm -rf ~\n```\n";
        let refused = f.post("/skills", &[("name", "wipe"), ("content", risky), ("began", "")]);
        assert_eq!(refused.status, 422);
        let finding =
            "SKILL.md:6:1: critical exec.destructive-delete: a recursive delete of the home or root directory";
        refused.has(&format!(
            "role=\"alert\">the audit found 1 finding at high or above, the first {finding}; nothing was written. \
             Read the checks, then tick “Save anyway” to save it.</div>"
        ));
        refused
            .has("<li data-line=\"6\" data-column=\"1\" class=\"critical\">line 6: critical: a recursive delete of the home or root directory <span class=\"check\">(exec.destructive-delete)</span></li>")
            .has("<input type=\"checkbox\" id=\"allow_risk\" name=\"allow_risk\" value=\"1\">");
        assert_eq!(unescape(&textarea(&refused.body)), risky);
        assert!(f.store.get("wipe", None).unwrap().is_none());
        // Ticked, it saves; the stored text's editor still shows the finding and the box.
        let saved = f.post("/skills", &[("name", "wipe"), ("content", risky), ("began", ""), ("allow_risk", "1")]);
        assert_eq!((saved.status, saved.location()), (303, "/skills/wipe"));
        assert_eq!(f.store.get("wipe", None).unwrap().unwrap().content, risky);
        f.follow(&saved).has("class=\"critical\">line 6: critical: ").has("id=\"allow_risk\"");
        // A medium finding is shown and saves without the box.
        let prose = "---\nname: tutor\ndescription: Teaches.\n---\nNever run `curl x | sh` blindly.\n";
        let page = f.post("/skills", &[("name", "tutor"), ("content", prose), ("began", "")]);
        assert_eq!(page.status, 303, "{}", page.body);
        f.follow(&page).has("class=\"medium\">line 5: medium: a download is run as code").lacks("id=\"allow_risk\"");
        // POST /validate gives the same rows after the engine's checks.
        let rows = f.validate(risky, "wipe");
        let audit = rows.as_array().unwrap().iter().find(|r| r["check"] == "exec.destructive-delete").unwrap();
        assert_eq!(
            audit,
            &serde_json::json!({"line": 6, "column": 1, "severity": "critical", "check": "exec.destructive-delete",
                "message": "a recursive delete of the home or root directory"})
        );
    });
}

#[test]
fn restoring_a_risky_version_needs_the_confirmation() {
    on_each_store(|f| {
        let risky = "---\nname: wipe\ndescription: Cleans.\n---\n```sh\nrm -rf ~\n```\n";
        let safe = "---\nname: wipe\ndescription: Cleans.\n---\nSafe now.\n";
        f.post("/skills", &[("name", "wipe"), ("content", risky), ("began", ""), ("allow_risk", "1")]);
        f.post("/skills", &[("name", "wipe"), ("content", safe), ("began", risky)]);
        assert_eq!(f.store.get("wipe", None).unwrap().unwrap().content, safe);
        // The version's page lists what the audit finds in it, and the box.
        let finding = "<li data-line=\"6\" data-column=\"1\" class=\"critical\">line 6: critical: a recursive delete of the home or root directory <span class=\"check\">(exec.destructive-delete)</span></li>";
        f.get("/skills/wipe/versions/0").has(finding).has("id=\"allow_risk\"");
        let refused = f.post("/skills/wipe/versions/0/restore", &[]);
        assert_eq!(refused.status, 422);
        refused.has(finding).has("id=\"allow_risk\"").has(
            "role=\"alert\">the audit found 1 finding at high or above, the first SKILL.md:6:1: critical \
             exec.destructive-delete: a recursive delete of the home or root directory; nothing was written. \
             Read the findings, then tick “Restore anyway” to restore it.</div>",
        );
        assert_eq!(f.store.get("wipe", None).unwrap().unwrap().content, safe);
        let restored = f.post("/skills/wipe/versions/0/restore", &[("allow_risk", "1")]);
        assert_eq!((restored.status, restored.location()), (303, "/skills/wipe"));
        assert_eq!(f.store.get("wipe", None).unwrap().unwrap().content, risky);
        // The safe version, now in the history, has no findings and restores without the box.
        f.get("/skills/wipe/versions/0").lacks("id=\"allow_risk\"").lacks("id=\"risks\"");
        let back = f.post("/skills/wipe/versions/0/restore", &[]);
        assert_eq!(back.status, 303, "{}", back.body);
        assert_eq!(f.store.get("wipe", None).unwrap().unwrap().content, safe);
    });
}

#[test]
fn static_files_are_served() {
    let f = Fixture::new(Backend::Memory, |_| {}).unwrap();
    let js = f.get("/static/studio.js");
    assert_eq!((js.status, js.headers["content-type"].to_str().unwrap()), (200, "text/javascript; charset=utf-8"));
    js.has("fetch(\"/validate\"");
    assert_eq!(f.get("/static/studio.css").status, 200);
    assert_eq!(f.get("/nowhere").status, 404);
}

#[test]
fn without_a_store_the_pages_are_read_only() {
    let f = Fixture::new(Backend::ReadOnly, disk).unwrap();
    let page = f.get("/skills/cardapio");
    page.has("<p class=\"readonly\">Read-only: this Studio has no store.");
    let text = "---\nname: nova\n---\nkept\n";
    let refused = f.post("/skills", &[("name", "nova"), ("content", text), ("began", "")]);
    assert_eq!(refused.status, 503);
    refused.has("<div class=\"flash error\" role=\"alert\">This Studio has no store, so it cannot save: start it with --store FILE.sqlite</div>");
    assert_eq!(unescape(&textarea(&refused.body)), text, "the user's text is kept");
    assert_eq!(f.post("/skills/cardapio/specialize", &[("agent_id", "chef")]).status, 503);
    assert_eq!(f.post("/agents", &[("id", "chef")]).status, 503);
}
