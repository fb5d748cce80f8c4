//! The toolnexus conformance vectors and port tests (reference
//! `toolnexus-skills.md` §7) that apply to the behaviour SPEC decides, as
//! exact bytes. Fixture texts are our own; the formats are the facts.

use serde_json::json;
use skilldeck::{Catalog, CatalogBuilder, Filter, SampleLimit, SkillDef, SkillTool, render};

use crate::util::Tree;

const PREAMBLE: &str = "Skills provide specialized instructions and workflows for specific tasks.\nUse the skill tool to load a skill when a task matches its description.";
const RELATIVE: &str = "Relative paths in this skill (e.g., scripts/, reference/) are relative to this base directory.";

fn build(builder: CatalogBuilder) -> Catalog {
    builder.build()
}

fn call(catalog: &Catalog, name: &str) -> String {
    SkillTool::new(catalog).call(&json!({ "name": name })).output
}

fn names(catalog: &Catalog) -> Vec<&str> {
    catalog.skills().map(|s| s.name()).collect()
}

fn reasons(catalog: &Catalog) -> Vec<(String, &str)> {
    catalog.skips().iter().map(|s| (s.location.clone(), s.reason.as_str())).collect()
}

/// A skill tree shaped like toolnexus's shared fixture: one skill, one script.
fn hello_world() -> Tree {
    let tree = Tree::new();
    tree.file(
        "hello-world/SKILL.md",
        "---\nname: hello-world\ndescription: A tiny example skill.\n---\n\n# Hello\n\n1. Run `scripts/greet.sh`.\n",
    );
    tree.file("hello-world/scripts/greet.sh", "echo hello\n");
    tree
}

#[test]
fn v1_the_shared_fixture_output_is_exact() {
    let tree = hello_world();
    let catalog = build(Catalog::builder().root(tree.root()));
    let dir = tree.path("hello-world").display().to_string();
    let result = SkillTool::new(&catalog).call(&json!({"name": "hello-world"}));
    let expected = format!(
        "<skill_content name=\"hello-world\">\n# Skill: hello-world\n\n# Hello\n\n1. Run `scripts/greet.sh`.\n\n\
         Base directory for this skill: file://{dir}\n{RELATIVE}\nNote: file list is sampled.\n\n\
         <skill_files>\n<file>{dir}/scripts/greet.sh</file>\n</skill_files>\n</skill_content>"
    );
    assert_eq!(result.output, expected);
    assert!(!result.is_error);
    let metadata = result.metadata.expect("metadata");
    assert_eq!((metadata.name.as_str(), metadata.dir.as_str()), ("hello-world", dir.as_str()));
    assert_eq!(
        render::toolnexus(&catalog),
        format!("{PREAMBLE}\n\n## Available Skills\n- **hello-world**: A tiny example skill.")
    );
}

#[test]
fn v2_the_declaration_is_exact() {
    let declaration = SkillTool::declaration();
    assert_eq!(declaration.name, "skill");
    assert_eq!(declaration.description.chars().count(), 398);
    assert!(declaration.description.starts_with("Load a specialized skill when the task at hand matches"));
    assert!(declaration.description.ends_with("must match one of the skills listed in your system prompt."));
    assert_eq!(
        declaration.input_schema.to_string(),
        r#"{"type":"object","properties":{"name":{"type":"string","description":"The name of the skill to load"}},"required":["name"],"additionalProperties":false}"#
    );
    assert_eq!(declaration.mcp()["inputSchema"], declaration.input_schema);
    assert_eq!(declaration.anthropic()["input_schema"], declaration.input_schema);
    assert_eq!(declaration.openai()["function"]["parameters"], declaration.input_schema);
    assert_eq!(declaration.gemini()["parameters"].get("additionalProperties"), None);
}

#[test]
fn v3_not_found_lists_exposed_names_sorted_or_none() {
    let empty = build(Catalog::builder());
    assert_eq!(call(&empty, "x"), "Skill \"x\" not found. Available skills: none");
    assert_eq!(render::toolnexus(&empty), "No skills are currently available.");
    let three = build(Catalog::builder().skills(["zeta", "alpha", "mid"].map(SkillDef::new)));
    let result = SkillTool::new(&three).call(&json!({"name": "missing"}));
    assert_eq!(result.output, "Skill \"missing\" not found. Available skills: alpha, mid, zeta");
    assert!(result.is_error && result.metadata.is_none());
}

#[test]
fn v4_filters_allow_drop_and_report_unmatched() {
    let abc = || Catalog::builder().skills(["a", "b", "c"].map(|n| SkillDef::new(n).description(format!("d{n}"))));
    let cases: [(Filter, &[&str]); 6] = [
        (Filter::new([("a", true), ("b", true)]), &["a", "b"]),
        (Filter::new([("c", false)]), &["a", "b"]),
        (Filter::new([("a", true), ("nope", true)]), &["a"]),
        (Filter::new([("a", true), ("b", false)]), &["a"]),
        (Filter::default(), &["a", "b", "c"]),
        (Filter::allow(["ghost"]), &[]),
    ];
    for (filter, expected) in cases {
        let catalog = build(abc().filter(filter.clone()));
        assert_eq!(names(&catalog), expected, "{filter:?}");
        assert_eq!(catalog.inventory().len(), 3, "the inventory ignores the filter");
    }
    let catalog = build(abc().filter(Filter::new([("a", true), ("b", false)])));
    assert_eq!(render::toolnexus(&catalog), format!("{PREAMBLE}\n\n## Available Skills\n- **a**: da"));
    assert_eq!(call(&catalog, "b"), "Skill \"b\" not found. Available skills: a");
    let catalog = build(abc().filter(Filter::new([("zz", false), ("ghost", false)])));
    assert_eq!(names(&catalog), ["a", "b", "c"]);
    assert_eq!(catalog.filter_unmatched(), ["ghost", "zz"]);
    let warnings: Vec<String> = catalog.warnings().iter().map(ToString::to_string).collect();
    assert_eq!(warnings, ["skill filter name \"ghost\" matched no skill", "skill filter name \"zz\" matched no skill"]);
}

#[test]
fn v5_inventory_reports_each_skip_reason() {
    let tree = Tree::new();
    tree.skill("good", "good", "fine", "")
        .file("noname/SKILL.md", "---\ndescription: no name\n---\n")
        .file("bad/SKILL.md", "---\nname: [unclosed\n---\n")
        .file("plain/SKILL.md", "# Just a body\n");
    let catalog = build(Catalog::builder().root(tree.root()).skill(SkillDef::new("good").content("data")));
    assert_eq!(names(&catalog), ["good"]);
    assert_eq!(catalog.get("good").expect("good").origin().kind(), "fs");
    let at = |rel: &str| tree.path(rel).display().to_string();
    assert_eq!(
        reasons(&catalog),
        [
            (at("bad/SKILL.md"), "malformed-frontmatter"),
            (at("noname/SKILL.md"), "missing-name"),
            (at("plain/SKILL.md"), "missing-name"),
            ("skill://good/".to_owned(), "duplicate-name"),
        ]
    );
    let warnings: Vec<String> = catalog.warnings().iter().map(ToString::to_string).collect();
    assert_eq!(warnings, ["duplicate skill name \"good\" (skill://good/) \u{2014} keeping first"]);
}

#[test]
fn v6_data_skills_use_their_base_and_resources() {
    let catalog = build(
        Catalog::builder()
            .skill(
                SkillDef::new("notes")
                    .description("n")
                    .content("Use the notes.\n")
                    .resources(["guide.md", "templates/daily.md"]),
            )
            .skill(SkillDef::new("solo").content("just text"))
            .skill(SkillDef::new("vault").content("v").base("vault://kb/b/"))
            .skill(SkillDef::new("e").content("e").base(""))
            .skill(SkillDef { description: Some("anonymous".into()), ..SkillDef::default() })
            .skill(SkillDef { base: Some("custom://x/".into()), ..SkillDef::default() }),
    );
    let result = SkillTool::new(&catalog).call(&json!({"name": "notes"}));
    assert_eq!(
        result.output,
        format!(
            "<skill_content name=\"notes\">\n# Skill: notes\n\nUse the notes.\n\nBase directory for this skill: skill://notes/\n{RELATIVE}\n\
             Note: file list is sampled.\n\n<skill_files>\n<file>guide.md</file>\n<file>templates/daily.md</file>\n</skill_files>\n</skill_content>"
        )
    );
    assert_eq!(result.metadata.expect("metadata").dir, "skill://notes/");
    assert_eq!(
        call(&catalog, "solo"),
        format!(
            "<skill_content name=\"solo\">\n# Skill: solo\n\njust text\n\nBase directory for this skill: skill://solo/\n{RELATIVE}\n</skill_content>"
        )
    );
    assert!(call(&catalog, "vault").contains("Base directory for this skill: vault://kb/b/\n"));
    assert_eq!(catalog.get("vault").expect("vault").location(), "vault://kb/b/");
    assert!(call(&catalog, "e").contains("Base directory for this skill: skill://e/\n"));
    assert_eq!(
        reasons(&catalog),
        [("skill://".to_owned(), "missing-name"), ("custom://x/".to_owned(), "missing-name")]
    );
}

#[test]
fn v7_sample_limits_cap_the_block_or_remove_it() {
    let data = || Catalog::builder().skill(SkillDef::new("z").content("b").resources(["r1", "r2", "r3"]));
    let capped = call(&build(data().sample_limit(SampleLimit::Max(2))), "z");
    assert!(capped.contains("<skill_files>\n<file>r1</file>\n<file>r2</file>\n</skill_files>"), "{capped}");
    let off = call(&build(data().sample_limit(SampleLimit::Off)), "z");
    assert!(!off.contains("<skill_files>") && !off.contains("Note: file list is sampled"));
    assert!(off.ends_with(&format!("{RELATIVE}\n</skill_content>")));

    let tree = Tree::new();
    tree.skill("many", "many", "Twelve siblings.", "body\n");
    for i in 0..12 {
        tree.file(&format!("many/f{i:02}.txt"), "x");
    }
    let count = |limit: i64| {
        let out = call(
            &build(Catalog::builder().root(tree.root()).sample_limit(SampleLimit::from_config(limit).unwrap())),
            "many",
        );
        (out.matches("<file>").count(), out.contains("Note: file list is sampled."))
    };
    assert_eq!(count(0), (10, true));
    assert_eq!(count(3), (3, true));
    assert_eq!(count(20), (12, true));
    assert_eq!(count(-1), (0, false));
    let catalog = build(Catalog::builder().root(tree.root()));
    let tool = SkillTool::new(&catalog);
    let per_call = tool.load("many", skilldeck::SampleLimit::Max(1)).output;
    assert!(
        per_call
            .contains(&format!("<skill_files>\n<file>{}</file>\n</skill_files>", tree.path("many/f00.txt").display()))
    );
    assert_eq!(SampleLimit::from_config(-2), Err(skilldeck::InvalidSampleLimit(-2)));
}

#[test]
fn v8_sampling_is_sorted_by_code_point_then_capped() {
    let tree = Tree::new();
    tree.skill("s", "s", "d", "");
    for rel in [
        "zeta.txt",
        "Alpha.txt",
        "beta.txt",
        "_under.txt",
        "10.txt",
        "9.txt",
        "aaa/f.txt",
        "aaa/inner/g.txt",
        "Mmm/f.txt",
        "a-b.txt",
        "a/x.txt",
    ] {
        tree.file(&format!("s/{rel}"), "x");
    }
    tree.file("s/node_modules/pkg/index.js", "x")
        .file("s/.git/HEAD", "x")
        .file("s/nested/SKILL.md", "---\nname: nested\n---\n");
    tree.file("s/.hidden", "x");
    let catalog = build(Catalog::builder().root(tree.root()).sample_limit(SampleLimit::Max(50)));
    let out = call(&catalog, "s");
    let dir = tree.path("s").display().to_string();
    let listed: Vec<&str> = out.lines().filter_map(|l| l.strip_prefix("<file>")?.strip_suffix("</file>")).collect();
    let expected: Vec<String> = [
        ".hidden",
        "10.txt",
        "9.txt",
        "Alpha.txt",
        "Mmm/f.txt",
        "_under.txt",
        "a-b.txt",
        "a/x.txt",
        "aaa/f.txt",
        "aaa/inner/g.txt",
        "beta.txt",
        "zeta.txt",
    ]
    .iter()
    .map(|rel| format!("{dir}/{rel}"))
    .collect();
    assert_eq!(listed, expected);
}

#[test]
fn v9_an_empty_sample_and_an_empty_body_keep_their_lines() {
    let tree = Tree::new();
    tree.file("e/SKILL.md", "---\nname: e\n---\n\n  \n");
    let out = call(&build(Catalog::builder().root(tree.root())), "e");
    let dir = tree.path("e").display().to_string();
    assert_eq!(
        out,
        format!(
            "<skill_content name=\"e\">\n# Skill: e\n\n\n\nBase directory for this skill: file://{dir}\n{RELATIVE}\nNote: file list is sampled.\n\n<skill_files>\n\n</skill_files>\n</skill_content>"
        )
    );
}

#[test]
fn v10_discovery_order_decides_duplicates() {
    let tree = Tree::new();
    tree.skill("z2", "dup", "second", "SECOND")
        .skill("a1", "dup", "first", "FIRST")
        .skill("m5/deep", "dup", "deep", "DEEP");
    tree.skill("b/inner", "top", "nested copy", "NESTED").skill("top", "top", "top level", "TOP");
    let catalog = build(Catalog::builder().root(tree.root()));
    assert!(call(&catalog, "dup").contains("\n\nFIRST\n\n"));
    assert!(call(&catalog, "top").contains("\n\nTOP\n\n"));
    let at = |rel: &str| tree.path(rel).join("SKILL.md").display().to_string();
    assert_eq!(
        reasons(&catalog),
        [(at("z2"), "duplicate-name"), (at("b/inner"), "duplicate-name"), (at("m5/deep"), "duplicate-name")]
    );
}

#[test]
fn v11_roots_in_order_then_data_first_name_wins() {
    let (r1, r2) = (Tree::new(), Tree::new());
    r1.skill("shared", "shared", "one", "R1");
    r2.skill("shared", "shared", "two", "R2").skill("only-r2", "only-r2", "x", "");
    let catalog = build(
        Catalog::builder()
            .root(r1.root())
            .root(r2.root())
            .skill(SkillDef::new("shared").content("DATA"))
            .root("/definitely/missing"),
    );
    assert_eq!(names(&catalog), ["shared", "only-r2"]);
    assert!(call(&catalog, "shared").contains("\n\nR1\n\n"));
    let warnings: Vec<String> = catalog.warnings().iter().map(ToString::to_string).collect();
    assert_eq!(
        warnings,
        [
            "skills dir not found: /definitely/missing".to_owned(),
            format!(
                "duplicate skill name \"shared\" ({}) \u{2014} keeping first",
                r2.path("shared/SKILL.md").display()
            ),
            "duplicate skill name \"shared\" (skill://shared/) \u{2014} keeping first".to_owned(),
        ]
    );
}

#[test]
fn v12_git_and_node_modules_are_never_entered() {
    let tree = Tree::new();
    tree.skill("node_modules/pkg", "hidden-a", "x", "")
        .skill(".git/hooks", "hidden-b", "x", "")
        .skill("visible", "visible", "x", "");
    tree.skill(".config/skill", "dotted", "hidden dirs other than .git are walked", "");
    let catalog = build(Catalog::builder().root(tree.root()));
    assert_eq!(names(&catalog), ["visible", "dotted"], "depth first, then code point");
}

#[test]
fn v13_catalog_lists_described_skills_in_code_point_order() {
    let catalog = build(Catalog::builder().skills([
        SkillDef::new("zeta").description("z"),
        SkillDef::new("alpha").description("a"),
        SkillDef::new("silent"),
        SkillDef::new("empty").description(""),
        SkillDef::new("Upper").description("u"),
        SkillDef::new("_x").description("x"),
    ]));
    assert_eq!(
        render::toolnexus(&catalog),
        format!(
            "{PREAMBLE}\n\n## Available Skills\n- **Upper**: u\n- **_x**: x\n- **alpha**: a\n- **empty**: \n- **zeta**: z"
        )
    );
    let silent = build(Catalog::builder().skill(SkillDef::new("silent")));
    assert_eq!(render::toolnexus(&silent), "No skills are currently available.");
}

#[test]
fn v14_frontmatter_values_become_names_and_descriptions() {
    let tree = Tree::new();
    tree.file("n/SKILL.md", "---\nname: 123\ndescription: |\n  block line1\n  block line2\nextra:\n  - a\n---\n");
    tree.file("t/SKILL.md", "---\nname: t\ndescription: true\n---\n");
    tree.file("s/SKILL.md", "---\nname:\n  - seq\n---\n");
    let catalog = build(Catalog::builder().root(tree.root()));
    let skill = catalog.get("123").expect("123");
    assert_eq!(skill.description(), Some("block line1\nblock line2"));
    assert_eq!(catalog.get("t").and_then(|s| s.description()), Some("true"));
    assert_eq!(reasons(&catalog), [(tree.path("s/SKILL.md").display().to_string(), "missing-name")]);
}

#[test]
fn v15_agentskills_prompt_escapes_like_skills_ref() {
    let tree = Tree::new();
    tree.skill("my-skill", "my-skill", "Use <foo> & \"bar\" it's", "");
    let catalog = build(Catalog::builder().root(tree.root()).skill(SkillDef::new("undescribed")));
    assert_eq!(
        render::agentskills(&catalog),
        format!(
            "<available_skills>\n<skill>\n<name>\nmy-skill\n</name>\n<description>\nUse &lt;foo&gt; &amp; &quot;bar&quot; it&#x27;s\n</description>\n<location>\n{}\n</location>\n</skill>\n</available_skills>",
            tree.path("my-skill/SKILL.md").display()
        )
    );
    assert_eq!(render::agentskills(&build(Catalog::builder())), "<available_skills>\n</available_skills>");
}

#[test]
fn v16_a_provider_runs_once_and_its_failure_is_isolated() {
    let calls = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = calls.clone();
    let catalog = build(Catalog::builder().skill(SkillDef::new("a").content("A")).provider(move || {
        counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Ok(vec![SkillDef::new("b"), SkillDef::new("a").content("other")])
    }));
    assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 1);
    assert_eq!(names(&catalog), ["a", "b"]);
    assert!(call(&catalog, "a").contains("\n\nA\n\n"));
    let failing = build(Catalog::builder().skill(SkillDef::new("a")).provider(|| Err("registry offline".into())));
    assert_eq!(names(&failing), ["a"]);
    assert_eq!(failing.warnings()[0].to_string(), "skill provider failed: registry offline");
}

#[test]
fn v17_a_root_level_skill_samples_the_whole_root_and_nested_files() {
    let tree = Tree::new();
    tree.file("SKILL.md", "---\nname: root\n---\nR\n")
        .file("top.txt", "x")
        .skill("child", "child", "c", "C")
        .file("child/c.txt", "x");
    let catalog = build(Catalog::builder().root(tree.root()));
    assert_eq!(names(&catalog), ["root", "child"]);
    let out = call(&catalog, "root");
    let listed: Vec<&str> = out.lines().filter(|l| l.starts_with("<file>")).collect();
    let root = tree.root().display();
    assert_eq!(listed, [format!("<file>{root}/child/c.txt</file>"), format!("<file>{root}/top.txt</file>")]);
}

proptest::proptest! {
    /// The filter rule (toolnexus S2), and catalog, lookup and tool agreeing on it.
    #[test]
    fn filters_expose_what_the_rule_says(
        names in proptest::collection::btree_set("[a-e]{1,2}", 0..8),
        entries in proptest::collection::btree_map("[a-f]{1,2}", proptest::bool::ANY, 0..5),
    ) {
        let catalog = build(Catalog::builder().skills(names.iter().map(SkillDef::new)).filter(Filter::new(entries.clone())));
        let allowlist = entries.values().any(|&v| v);
        let expected: Vec<&String> = names
            .iter()
            .filter(|n| if allowlist { entries.get(*n) == Some(&true) } else { entries.get(*n) != Some(&false) })
            .collect();
        let exposed: Vec<&str> = catalog.skills().map(|s| s.name()).collect();
        proptest::prop_assert_eq!(&exposed, &expected);
        let unmatched: Vec<&String> = entries.keys().filter(|k| !names.contains(*k)).collect();
        proptest::prop_assert_eq!(catalog.filter_unmatched().iter().collect::<Vec<_>>(), unmatched);
        for name in &names {
            let found = SkillTool::new(&catalog).call(&json!({ "name": name }));
            proptest::prop_assert_eq!(!found.is_error, exposed.contains(&name.as_str()));
            proptest::prop_assert_eq!(catalog.get(name).is_some(), exposed.contains(&name.as_str()));
        }
    }
}
