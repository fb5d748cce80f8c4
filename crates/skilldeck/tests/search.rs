//! Search (SPEC §13): ranking, exact names, abstention, agents, and the
//! bounded not-found text of the `skill` tool.

use skilldeck::store::Precondition;
use std::collections::BTreeSet;
use std::sync::Arc;

use proptest::prelude::*;
use serde_json::json;
use skilldeck::search::{BODY_INDEXED_BYTES, MAX_QUERY_BYTES};
use skilldeck::store::{MemoryStore, SkillStore};
use skilldeck::{AgentProfile, Catalog, NOT_FOUND_NAMES_MAX, SavedSearch, SearchResults, SkillDef, SkillTool};

use crate::util::Tree;

fn names(found: &SearchResults<'_>) -> Vec<String> {
    found.hits.iter().map(|h| h.skill.name().to_owned()).collect()
}

fn def(name: &str, description: &str, body: &str) -> SkillDef {
    SkillDef::new(name).description(description).content(body)
}

fn catalog(defs: impl IntoIterator<Item = SkillDef>) -> Catalog {
    Catalog::builder().skills(defs).build()
}

fn sample() -> Catalog {
    catalog([
        def("pdf-forms", "Fill in and flatten PDF forms.", "Use pdftk to fill the fields of a form."),
        def("release-notes", "Write release notes from merged pull requests.", "Group changes by kind."),
        def("db-migrations", "Plan and run database schema migrations safely.", "Take a backup first."),
        def("cardapio", "Mostra o cardápio do dia.", "Liste os pratos."),
        def("changelog", "Keep a changelog file.", "Mention release notes only in passing, with a PDF link."),
    ])
}

#[test]
fn ranks_by_what_the_skill_is_for() {
    let catalog = sample();
    let found = catalog.search("write the release notes for v2", 10);
    assert!(!found.abstained);
    // The description says it; the other skill only mentions it in its body.
    assert_eq!(names(&found)[..2], ["release-notes", "changelog"]);
    assert!(found.hits[0].score > found.hits[1].score);
    assert_eq!(names(&catalog.search("migrate the database schema", 3))[0], "db-migrations");
}

#[test]
fn tokens_are_folded_as_insika_folds_triggers() {
    let catalog = sample();
    // Accents and case fold both ways: "CARDÁPIO" and "cardapio" are one token.
    assert_eq!(names(&catalog.search("CARDAPIO", 10)), ["cardapio"]);
    assert_eq!(names(&catalog.search("qual é o cardápio?", 10)), ["cardapio"]);
    let tree = Tree::new();
    tree.skill("perfume", "perfume", "Fragrance advice.", "");
    tree.file("frascos/SKILL.md", "---\nname: frascos\ndescription: Bottles.\ntriggers: Cor do Frasco\n---\n");
    let triggered = Catalog::builder().root(tree.root()).build();
    assert_eq!(names(&triggered.search("que cor do frasco", 10))[0], "frascos");
}

#[test]
fn chinese_and_japanese_match_by_bigrams() {
    let catalog = catalog([
        def("weibo", "写一条微博宣传新品", ""),
        def("weather", "查询天气预报", ""),
        def("tax-jp", "確定申告の所得区分", ""),
    ]);
    // Written without spaces, a request shares pairs of characters with the description.
    assert_eq!(names(&catalog.search("帮我写一条微博", 10))[0], "weibo");
    assert_eq!(names(&catalog.search("查询天气", 10))[0], "weather");
    assert_eq!(names(&catalog.search("確定申告", 10))[0], "tax-jp");
    assert!(catalog.search("你好", 10).abstained);
}

#[test]
fn an_exact_name_ranks_first_over_stronger_text_matches() {
    let catalog = catalog([
        def("pdf-tools", "pdf pdf tools for pdf files, pdf everywhere", "pdf pdf pdf"),
        def("tools", "A pdf tools helper for pdf tools.", "pdf tools"),
        def("pdf", "Portable documents.", ""),
        def("PDF", "Upper-case twin.", ""),
    ]);
    assert_eq!(names(&catalog.search("pdf", 10))[0], "pdf");
    assert_eq!(names(&catalog.search("PDF", 10))[..2], ["PDF", "pdf"]);
    assert_eq!(names(&catalog.search("pdf-tools", 10))[0], "pdf-tools");
    assert_eq!(names(&catalog.search("tools", 10))[0], "tools");
    // A name written with another case is still that skill.
    assert_eq!(names(&catalog.search(" Pdf-Tools ", 10))[0], "pdf-tools");
    let found = catalog.search("tools", 10);
    assert!(found.hits[0].score > found.hits[1].score);
}

#[test]
fn abstains_when_nothing_matches_well() {
    let catalog = sample();
    for query in ["", "   ", "what is the weather in Lisbon tomorrow", "can you help me please", "¿?!"] {
        let found = catalog.search(query, 10);
        assert!(found.abstained, "{query:?} gave {:?}", names(&found));
        assert!(found.hits.is_empty());
    }
    // A query half about a skill still finds it.
    assert_eq!(names(&catalog.search("flatten these pdf forms for my landlord", 10))[0], "pdf-forms");
    assert_eq!(catalog.search("pdf", 0).hits.len(), 0);
    assert!(!catalog.search("pdf", 0).abstained);
}

#[test]
fn limit_and_ties_follow_catalog_order() {
    let catalog = catalog((0..20).map(|i| def(&format!("twin-{i:02}"), "Identical text about kites.", "")));
    let found = catalog.search("kites", 5);
    assert_eq!(names(&found), ["twin-00", "twin-01", "twin-02", "twin-03", "twin-04"]);
    assert!(found.hits.windows(2).all(|w| w[0].score == w[1].score));
}

#[test]
fn bodies_are_read_from_disk_and_a_missing_one_contributes_nothing() {
    let tree = Tree::new();
    tree.skill("a", "kiln", "Fire pottery.", "Load the glaze schedule before firing.\n");
    tree.skill("b", "loom", "Weave cloth.", "Glaze, glaze, glaze: nothing but glaze.\n");
    let catalog = Catalog::builder().root(tree.root()).build();
    std::fs::remove_file(tree.path("b/SKILL.md")).unwrap();
    // Read, loom's body would outrank kiln's for "glaze"; it is gone, so it adds nothing.
    assert_eq!(names(&catalog.search("pottery glaze", 10)), ["kiln"]);
    assert_eq!(names(&catalog.search("weave", 10)), ["loom"]);
}

#[test]
fn only_the_start_of_a_long_body_is_indexed() {
    let late = format!("{}zeppelin", "filler ".repeat(BODY_INDEXED_BYTES / 7 + 1));
    let catalog = catalog([def("early", "Things.", "zeppelin, zeppelin, zeppelin"), def("late", "Things.", &late)]);
    assert_eq!(names(&catalog.search("zeppelin", 10)), ["early"]);
}

#[test]
fn a_term_also_finds_the_other_forms_of_its_stem_below_the_exact_form() {
    let catalog = catalog([
        def("brand-kit", "Branding themes fonts.", ""),
        def("font-picker", "Pick a font for slides and documents quickly.", ""),
        def("weather", "Forecasts of the weather for cities around the world.", ""),
    ]);
    // No skill says "brand", "theme" or "font" as the query does but by stem.
    assert_eq!(names(&catalog.search("brand theme font", 10))[0], "brand-kit");
    // The exact form ranks above the stemmed one.
    assert_eq!(names(&catalog.search("fonts", 10)), ["brand-kit", "font-picker"]);
    assert_eq!(names(&catalog.search("font", 10)), ["font-picker", "brand-kit"]);
}

#[test]
fn a_huge_query_is_cut_not_slow() {
    let catalog = sample();
    let words: Vec<String> = (0..200_000).map(|i| format!("wörd{i}")).collect();
    let query = format!("pdf forms {}", words.join(" "));
    let found = catalog.search(&query, 10);
    // Only the first MAX_QUERY_BYTES are read: the pdf terms, then hundreds of
    // unknown ones, which dilute the coverage but not the evidence for pdf-forms.
    assert!(query.len() > 100 * MAX_QUERY_BYTES);
    assert_eq!(names(&found)[0], "pdf-forms");
}

#[test]
fn an_agent_sees_only_its_skills_with_its_own_records() {
    let store = Arc::new(MemoryStore::default());
    let md = |name: &str, description: &str| format!("---\nname: {name}\ndescription: {description}\n---\nbody\n");
    store.write("refunds", &md("refunds", "Refund an order."), None, &Precondition::Any).unwrap();
    store.write("audit", &md("audit", "Audit the refunds ledger."), None, &Precondition::Any).unwrap();
    store
        .write(
            "refunds",
            &md("refunds", "Refund a subscription, support edition."),
            Some("support"),
            &Precondition::Any,
        )
        .unwrap();
    store.write("secret", &md("secret", "Refund in secret."), Some("support"), &Precondition::Any).unwrap();
    store.write("other", &md("other", "Refund for another agent."), Some("sales"), &Precondition::Any).unwrap();
    let catalog = Catalog::builder().store(store).build();

    // The catalog's search sees the shared skills only.
    assert_eq!(names(&catalog.search("refunds", 10)), ["refunds", "audit"]);
    let support = AgentProfile::new("support");
    let view = catalog.view(&support);
    let found = view.search("refund subscription", 10);
    assert_eq!(names(&found)[0], "refunds");
    assert_eq!(found.hits[0].skill.description(), Some("Refund a subscription, support edition."));
    assert!(names(&view.search("refund", 10)).contains(&"secret".to_owned()));
    assert!(!names(&view.search("refund", 10)).contains(&"other".to_owned()));
    let narrow = AgentProfile::new("support").allow(["secret"]);
    assert_eq!(names(&catalog.view(&narrow).search("refund", 10)), ["secret"]);
    assert!(catalog.view(&narrow).search("audit", 10).abstained);
    let none = AgentProfile::new("support").allow(Vec::<String>::new());
    assert!(catalog.view(&none).search("refunds", 10).abstained);
}

/// Names whose list is `len` characters long once joined with ", ".
fn catalog_listing(len: usize) -> Catalog {
    // "s-0000" .. : 6 characters each, 8 with the separator.
    let count = (len + 2) / 8;
    let mut defs: Vec<SkillDef> = (0..count).map(|i| def(&format!("s-{i:04}"), "Numbered skill.", "")).collect();
    let pad = len + 2 - count * 8;
    if pad > 0 {
        let last = defs.len() - 1;
        defs[last] = def(&format!("s-{:04}{}", last, "x".repeat(pad)), "Numbered skill.", "");
    }
    catalog(defs)
}

#[test]
fn not_found_keeps_toolnexus_bytes_while_the_names_fit() {
    let at_bound = catalog_listing(NOT_FOUND_NAMES_MAX);
    let out = SkillTool::new(&at_bound).call(&json!({"name": "s-9999"}));
    let mut names: Vec<&str> = at_bound.skills().map(|s| s.name()).collect();
    names.sort_unstable();
    assert_eq!(names.join(", ").chars().count(), NOT_FOUND_NAMES_MAX);
    assert_eq!(out.output, format!("Skill \"s-9999\" not found. Available skills: {}", names.join(", ")));
    assert!(out.is_error);
}

#[test]
fn not_found_names_the_closest_past_the_bound() {
    let past = catalog_listing(NOT_FOUND_NAMES_MAX + 1);
    assert_eq!(past.skills().len(), 500);
    let out = SkillTool::new(&past).call(&json!({"name": "s-0l23"}));
    assert_eq!(
        out.output,
        "Skill \"s-0l23\" not found. Closest skills: s-0023, s-0123, s-0223, s-0323, s-0423, s-0003, s-0013, \
         s-0020, s-0021, s-0022 (and 490 more; use find_skills to search them)"
    );
    assert!(out.is_error);

    let described = catalog((0..600).map(|i| def(&format!("tool-{i:03}"), "A numbered tool.", "")).chain([def(
        "invoice-pdf",
        "Render invoices as PDF documents.",
        "",
    )]));
    let out = SkillTool::new(&described).call(&json!({"name": "pdf invoices"}));
    assert_eq!(
        out.output,
        "Skill \"pdf invoices\" not found. Closest skills: invoice-pdf (and 600 more; use find_skills to search them)"
    );
}

#[test]
fn not_found_suggests_nothing_when_no_name_is_close() {
    // As in a registry, many names say "skill".
    let catalog = catalog((0..600).map(|i| def(&format!("skill-{i:03}"), "A numbered tool.", "")).chain([
        def("no-eval-skill", "Evaluates nothing.", ""),
        def("swift-docc-github-pages", "Publish DocC to GitHub Pages.", ""),
    ]));
    let out = SkillTool::new(&catalog).call(&json!({"name": "no-such-skill"}));
    assert_eq!(
        out.output,
        "Skill \"no-such-skill\" not found. No skill's name is close to it (602 skills; use find_skills to search them)"
    );
    assert!(out.is_error);
}

#[test]
fn not_found_stays_small_for_a_huge_catalog_and_a_huge_name() {
    let catalog = catalog((0..40_000).map(|i| def(&format!("skill-{i:05}"), "Generated.", "")));
    let name = "x".repeat(1 << 16);
    let out = SkillTool::new(&catalog).call(&json!({"name": name}));
    assert!(out.output.len() < name.len() + NOT_FOUND_NAMES_MAX, "{}", out.output.len());
    assert!(out.output.ends_with(" skills; use find_skills to search them)"), "{}", out.output);
    let out = SkillTool::new(&catalog).call(&json!({"name": "skill-1234"}));
    // Every name one edit away, in code-point order, then two away.
    assert_eq!(
        out.output,
        "Skill \"skill-1234\" not found. Closest skills: skill-01234, skill-10234, skill-11234, skill-12034, \
         skill-12134, skill-12234, skill-12304, skill-12314, skill-12324, skill-12334 (and 39990 more; use \
         find_skills to search them)"
    );
}

/// Names that collide in tokens: prefixes, separators, case.
fn name_strategy() -> impl Strategy<Value = String> {
    let word = prop::sample::select(vec!["pdf", "tools", "pdf-tools", "git", "Git", "café", "cafe", "a", "x_y"]);
    prop::collection::vec(word, 1..=3).prop_map(|words| words.join("-"))
}

fn description_strategy() -> impl Strategy<Value = String> {
    let word = prop::sample::select(vec!["pdf", "tools", "git", "café", "files", "the", "a", "merge", "-", "x"]);
    prop::collection::vec(word, 0..12).prop_map(|words| words.join(" "))
}

fn catalog_strategy() -> impl Strategy<Value = Vec<(String, String, String)>> {
    prop::collection::btree_map(name_strategy(), (description_strategy(), description_strategy()), 1..24)
        .prop_map(|skills| skills.into_iter().map(|(name, (description, body))| (name, description, body)).collect())
}

fn build(skills: &[(String, String, String)]) -> Catalog {
    catalog(skills.iter().map(|(name, description, body)| def(name, description, body)))
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn search_is_deterministic(skills in catalog_strategy(), query in description_strategy()) {
        let scored = |found: SearchResults<'_>| -> (bool, Vec<(String, u64)>) {
            (found.abstained, found.hits.iter().map(|h| (h.skill.name().to_owned(), h.score.to_bits())).collect())
        };
        let first = build(&skills);
        let again = build(&skills);
        prop_assert_eq!(scored(first.search(&query, 10)), scored(again.search(&query, 10)));
        prop_assert_eq!(scored(first.search(&query, 10)), scored(first.search(&query, 10)));
        let found = first.search(&query, 10);
        prop_assert!(found.hits.windows(2).all(|w| w[0].score >= w[1].score));
        prop_assert_eq!(found.abstained, found.hits.is_empty());
    }

    /// Issue 20: the index saved and read back ranks as the catalog does,
    /// score for score, and saves as the same bytes again.
    #[test]
    fn a_saved_index_read_back_ranks_as_its_catalog(skills in catalog_strategy(), query in description_strategy()) {
        let scored = |found: SearchResults<'_>| -> (bool, Vec<(String, Option<String>, u64)>) {
            let hits = found.hits.iter();
            (found.abstained, hits.map(|h| (h.skill.name().to_owned(), h.skill.description().map(str::to_owned), h.score.to_bits())).collect())
        };
        let catalog = build(&skills);
        let bytes = catalog.save_search();
        let saved = SavedSearch::from_bytes(&bytes).unwrap();
        prop_assert_eq!(saved.len(), catalog.skills().len());
        prop_assert_eq!(scored(saved.search(&query, 10)), scored(catalog.search(&query, 10)));
        for (name, _, _) in &skills {
            prop_assert_eq!(scored(saved.search(name, 3)), scored(catalog.search(name, 3)));
        }
    }

    #[test]
    fn every_skill_is_the_top_hit_for_its_exact_name(skills in catalog_strategy()) {
        let catalog = build(&skills);
        for (name, _, _) in &skills {
            let found = catalog.search(name, 3);
            prop_assert_eq!(found.hits.first().map(|h| h.skill.name()), Some(name.as_str()));
            prop_assert!(found.hits.len() < 2 || found.hits[0].score > found.hits[1].score);
        }
    }

    #[test]
    fn an_agent_never_sees_a_skill_it_is_not_allowed(
        skills in catalog_strategy(),
        allowed in prop::collection::vec(any::<bool>(), 24),
        query in description_strategy(),
    ) {
        let catalog = build(&skills);
        let allow: BTreeSet<String> =
            skills.iter().zip(&allowed).filter(|(_, a)| **a).map(|((name, _, _), _)| name.clone()).collect();
        let profile = AgentProfile::new("agent").allow(allow.iter().cloned());
        let view = catalog.view(&profile);
        for query in [query.as_str()].into_iter().chain(skills.iter().map(|s| s.0.as_str())) {
            for hit in view.search(query, 50).hits {
                prop_assert!(allow.contains(hit.skill.name()), "{} was not allowed", hit.skill.name());
            }
        }
        for name in &allow {
            prop_assert_eq!(view.search(name, 1).hits.first().map(|h| h.skill.name()), Some(name.as_str()));
        }
    }
}
