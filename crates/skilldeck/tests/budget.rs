//! Budgets for the level-1 catalogs: exact texts and reports at several
//! budgets for fixed catalogs, and properties over generated ones (the text
//! is within budget, surviving names are whole, the report adds up).

use proptest::prelude::*;
use skilldeck::render::{INSIKA_INSTRUCTION, TOOLNEXUS_EMPTY, TOOLNEXUS_PREAMBLE};
use skilldeck::{Budget, BudgetReport, Catalog, Fitted, Skill, SkillDef, render};

use crate::util::Tree;

/// Five data skills: two long descriptions (one with XML specials), a short
/// one, none, and an empty one.
fn fixture() -> Catalog {
    Catalog::builder()
        .skill(SkillDef::new("release-notes").description("Writes release notes from the git log since the last tag."))
        .skill(SkillDef::new("pdf-forms").description("Fills PDF forms & checks <required> fields."))
        .skill(SkillDef::new("hello").description("Says hi."))
        .skill(SkillDef::new("silent"))
        .skill(SkillDef::new("blank").description(""))
        .build()
}

fn toolnexus(entries: &str) -> String {
    format!("{TOOLNEXUS_PREAMBLE}\n\n## Available Skills{entries}")
}

fn agentskills_entry(name: &str, description: &str) -> String {
    format!(
        "<skill>\n<name>\n{name}\n</name>\n<description>\n{description}\n</description>\n<location>\nskill://{name}/\n</location>\n</skill>\n"
    )
}

fn insika(entries: &str) -> String {
    format!("<available_skills>\n{entries}</available_skills>\n\n{INSIKA_INSTRUCTION}")
}

/// The text and the report's four lines.
fn shown<'f>(fitted: &'f Fitted<'_>) -> (&'f str, String) {
    (&fitted.text, fitted.report.to_string())
}

#[test]
fn toolnexus_at_several_budgets() {
    let catalog = fixture();
    let whole = render::toolnexus(&catalog);
    assert_eq!(whole.chars().count(), 342);
    for limit in [342, 8000] {
        let fitted = Budget::chars(limit).toolnexus(&catalog);
        assert_eq!(fitted.text, whole);
        assert_eq!(
            fitted.report.to_string(),
            format!(
                "budget {limit}c, used 342\nfull (4): blank, hello, pdf-forms, release-notes\nshortened (0):\nomitted (0):\n"
            )
        );
    }
    // Short descriptions stay whole; the two long ones get 19 characters each.
    assert_eq!(
        shown(&Budget::chars(280).toolnexus(&catalog)),
        (
            toolnexus(
                "\n- **blank**: \n- **hello**: Says hi.\n- **pdf-forms**: Fills PDF forms &…\n- **release-notes**: Writes release not…"
            )
            .as_str(),
            "budget 280c, used 279\nfull (2): blank, hello\nshortened (2, to 19 characters): pdf-forms (cut 26), release-notes (cut 39)\nomitted (0):\n".into()
        )
    );
    // Even lone ellipses are too long for four entries: the last by name goes,
    // and the other two long ones share what is left.
    assert_eq!(
        shown(&Budget::chars(220).toolnexus(&catalog)),
        (
            toolnexus("\n- **blank**: \n- **hello**: Say…\n- **pdf-forms**: Fil…").as_str(),
            "budget 220c, used 220\nfull (1): blank\nshortened (2, to 4 characters): hello (cut 5), pdf-forms (cut 40)\nomitted (1): release-notes\n".into()
        )
    );
    assert_eq!(
        shown(&Budget::chars(180).toolnexus(&catalog)),
        (
            toolnexus("\n- **blank**: ").as_str(),
            "budget 180c, used 180\nfull (1): blank\nshortened (0):\nomitted (3): hello, pdf-forms, release-notes\n"
                .into()
        )
    );
    // No entry fits: toolnexus's text for no skills, then nothing at all.
    assert_eq!(
        shown(&Budget::chars(150).toolnexus(&catalog)),
        (
            TOOLNEXUS_EMPTY,
            "budget 150c, used 34\nfull (0):\nshortened (0):\nomitted (4): blank, hello, pdf-forms, release-notes\n"
                .into()
        )
    );
    let fitted = Budget::chars(33).toolnexus(&catalog);
    assert_eq!((fitted.text.as_str(), fitted.report.used, fitted.report.omitted.len()), ("", 0, 4));
}

#[test]
fn agentskills_at_several_budgets() {
    let catalog = fixture();
    let whole = render::agentskills(&catalog);
    assert_eq!(whole.chars().count(), 604);
    let fitted = Budget::chars(604).agentskills(&catalog);
    assert_eq!(fitted.text, whole);
    assert_eq!((fitted.report.used, fitted.report.share, fitted.report.full.len()), (604, None, 4));
    // One character over: the longest description gives up two characters
    // (its share is 56, the `…` included); the others fit their share whole.
    let fitted = Budget::chars(603).agentskills(&catalog);
    assert_eq!(fitted.text, whole.replace("last tag.", "last ta…"));
    assert_eq!(fitted.report.full, ["pdf-forms", "hello", "blank"]);
    assert_eq!(fitted.report.shortened, [("release-notes", 2)]);
    assert_eq!((fitted.report.used, fitted.report.share), (603, Some(56)));
    // Escaping is measured: the share counts `&` as one character, the budget as five.
    let entries = [
        agentskills_entry("release-notes", "Writes release notes from th…"),
        agentskills_entry("pdf-forms", "Fills PDF forms &amp; checks &lt;re…"),
        agentskills_entry("hello", "Says hi."),
        agentskills_entry("blank", ""),
    ];
    assert_eq!(
        shown(&Budget::chars(560).agentskills(&catalog)),
        (
            format!("<available_skills>\n{}</available_skills>", entries.concat()).as_str(),
            "budget 560c, used 559\nfull (2): hello, blank\nshortened (2, to 29 characters): release-notes (cut 29), pdf-forms (cut 15)\nomitted (0):\n".into()
        )
    );
    // Dropping from the end (catalog order) frees room: the first shows whole.
    assert_eq!(
        shown(&Budget::chars(250).agentskills(&catalog)),
        (
            format!(
                "<available_skills>\n{}</available_skills>",
                agentskills_entry("release-notes", "Writes release notes from the git log since the last tag.")
            )
            .as_str(),
            "budget 250c, used 217\nfull (1): release-notes\nshortened (0):\nomitted (3): pdf-forms, hello, blank\n"
                .into()
        )
    );
    assert_eq!(
        shown(&Budget::chars(150).agentskills(&catalog)),
        (
            "<available_skills>\n</available_skills>",
            "budget 150c, used 38\nfull (0):\nshortened (0):\nomitted (4): release-notes, pdf-forms, hello, blank\n"
                .into()
        )
    );
    assert_eq!(Budget::chars(37).agentskills(&catalog).text, "");
}

#[test]
fn insika_at_several_budgets() {
    let catalog = fixture();
    let skills: Vec<&Skill> = catalog.skills().collect();
    let whole = render::insika(&skills);
    assert_eq!(whole.chars().count(), 571);
    assert_eq!(Budget::chars(571).insika(&skills).text, whole);
    // Sizes count the escapes: raising the share to 18 would show ` &` as
    // ` &amp;`, six characters more for one more of the description's. Six
    // of the budget stay unused, so that every cut description keeps the
    // same share.
    assert_eq!(
        shown(&Budget::chars(500).insika(&skills)),
        (
            insika(concat!(
                "  <skill name=\"release-notes\">Writes release n…</skill>\n",
                "  <skill name=\"pdf-forms\">Fills PDF forms…</skill>\n",
                "  <skill name=\"hello\">Says hi.</skill>\n",
                "  <skill name=\"silent\"></skill>\n",
                "  <skill name=\"blank\"></skill>\n",
            ))
            .as_str(),
            "budget 500c, used 494\nfull (3): hello, silent, blank\nshortened (2, to 17 characters): release-notes (cut 41), pdf-forms (cut 28)\nomitted (0):\n".into()
        )
    );
    assert_eq!(
        shown(&Budget::chars(400).insika(&skills)),
        (
            insika(concat!(
                "  <skill name=\"release-notes\">Wr…</skill>\n",
                "  <skill name=\"pdf-forms\">Fi…</skill>\n",
                "  <skill name=\"hello\">Sa…</skill>\n",
            ))
            .as_str(),
            "budget 400c, used 399\nfull (0):\nshortened (3, to 3 characters): release-notes (cut 55), pdf-forms (cut 41), hello (cut 6)\nomitted (2): silent, blank\n".into()
        )
    );
    // Insika's text for no skills is the empty string.
    assert_eq!(
        shown(&Budget::chars(300).insika(&skills)),
        ("", "budget 300c, used 0\nfull (0):\nshortened (0):\nomitted (5): release-notes, pdf-forms, hello, silent, blank\n".into())
    );
    assert!(Budget::chars(0).insika(&[]).report.omitted.is_empty());
}

#[test]
fn insika_triggers_are_never_cut() {
    let tree = Tree::new();
    tree.file(
        "cardapio/SKILL.md",
        "---\nname: cardapio\ndescription: Mostra o cardápio do dia com preços e alergênicos.\ntriggers: cardápio, menu do dia\n---\nbody\n",
    );
    tree.skill("formato", "formato", "Formata a resposta.", "body");
    let catalog = Catalog::builder().root(tree.root()).build();
    let skills: Vec<&Skill> = catalog.skills().collect();
    assert_eq!(render::insika(&skills).chars().count(), 450);
    let fitted = Budget::chars(430).insika(&skills);
    assert_eq!(
        shown(&fitted),
        (
            insika(concat!(
                "  <skill name=\"cardapio\" when=\"cardápio; menu do dia\">Mostra o cardápio do dia com…</skill>\n",
                "  <skill name=\"formato\">Formata a resposta.</skill>\n",
            ))
            .as_str(),
            "budget 430c, used 429\nfull (1): formato\nshortened (1, to 30 characters): cardapio (cut 22)\nomitted (0):\n".into()
        )
    );
    let fitted = Budget::chars(380).insika(&skills);
    assert_eq!(
        fitted.text,
        insika("  <skill name=\"cardapio\" when=\"cardápio; menu do dia\">Mostra o cardápio do dia com pr…</skill>\n")
    );
    assert_eq!((fitted.report.used, fitted.report.omitted.as_slice()), (380, &["formato"][..]));
}

#[test]
fn the_report_is_data() {
    let catalog = fixture();
    let fitted = Budget::chars(220).toolnexus(&catalog);
    let report = fitted.report;
    assert_eq!(report.budget, Budget::chars(220));
    assert_eq!((report.used, report.share), (220, Some(4)));
    assert_eq!(report.full, ["blank"]);
    assert_eq!(report.shortened, [("hello", 5), ("pdf-forms", 40)]);
    assert_eq!(report.omitted, ["release-notes"]);
}

/// Token budgets: the counts are o200k's and cl100k's (the `tokens` feature).
#[cfg(feature = "tokens")]
mod tokens {
    use skilldeck::render::{self, TOOLNEXUS_EMPTY};
    use skilldeck::{Budget, Encoding};

    use super::{fixture, toolnexus};

    /// Every `used` here was checked against tiktoken-rs 0.12.1's count of the same text.
    #[test]
    fn toolnexus_in_tokens() {
        let catalog = fixture();
        let o200k = |limit| Budget::tokens(limit, Encoding::O200k);
        let whole = render::toolnexus(&catalog);
        assert_eq!(o200k(0).measure(&whole), 80);
        assert_eq!(Budget::tokens(0, Encoding::Cl100k).measure(&whole), 75);
        assert_eq!(o200k(80).toolnexus(&catalog).text, whole);
        assert_eq!(Budget::tokens(75, Encoding::Cl100k).toolnexus(&catalog).text, whole);
        let fitted = o200k(79).toolnexus(&catalog);
        assert_eq!(fitted.text, whole.replace("last tag.", "last…"));
        assert_eq!(
            fitted.report.to_string(),
            "budget 79t:o200k, used 79\nfull (3): blank, hello, pdf-forms\nshortened (1, to 54 characters): release-notes (cut 5)\nomitted (0):\n"
        );
        let fitted = o200k(60).toolnexus(&catalog);
        assert_eq!(
            fitted.text,
            toolnexus("\n- **blank**: \n- **hello**: Sa…\n- **pdf-forms**: Fi…\n- **release-notes**: Wr…")
        );
        assert_eq!((fitted.report.used, fitted.report.share), (60, Some(3)));
        // cl100k spends fewer tokens on the frame: its share is larger.
        let fitted = Budget::tokens(60, Encoding::Cl100k).toolnexus(&catalog);
        assert_eq!(
            fitted.text,
            toolnexus(
                "\n- **blank**: \n- **hello**: Says hi.\n- **pdf-forms**: Fills PDF forms…\n- **release-notes**: Writes release…"
            )
        );
        let fitted = o200k(50).toolnexus(&catalog);
        assert_eq!(fitted.text, toolnexus("\n- **blank**: \n- **hello**: …\n- **pdf-forms**: …"));
        assert_eq!((fitted.report.used, fitted.report.omitted.as_slice()), (49, &["release-notes"][..]));
        let fitted = o200k(10).toolnexus(&catalog);
        assert_eq!((fitted.text.as_str(), fitted.report.used), (TOOLNEXUS_EMPTY, 6));
        assert_eq!(o200k(5).toolnexus(&catalog).text, "");
    }
}

// ---- properties -------------------------------------------------------------

/// Python's `html.escape`, as agentskills writes names and descriptions.
/// Python's `html.escape(quote=True)` (agentskills).
fn escape(s: &str) -> String {
    escape_text(s).replace('\'', "&#x27;")
}

/// `&`, `<`, `>` and `"` (insika, SPEC §6).
fn escape_text(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

#[derive(Clone, Copy, Debug)]
enum Format {
    Toolnexus,
    Agentskills,
    Insika,
}

impl Format {
    /// The skills the renderer lists, in its order.
    fn entries(self, catalog: &Catalog) -> Vec<&Skill> {
        let mut skills: Vec<&Skill> = catalog.skills().collect();
        match self {
            Format::Toolnexus => {
                skills.retain(|s| s.description().is_some());
                skills.sort_by(|a, b| a.name().cmp(b.name()));
            }
            Format::Agentskills => skills.retain(|s| s.description().is_some()),
            Format::Insika => {}
        }
        skills
    }

    /// The skills in the order a text closed by a line keeps them: the
    /// catalog's precedence (toolnexus shows them by name all the same).
    fn kept_beside_a_line(self, catalog: &Catalog) -> Vec<&Skill> {
        match self {
            Format::Toolnexus => Format::Agentskills.entries(catalog),
            _ => self.entries(catalog),
        }
    }

    fn render(self, catalog: &Catalog) -> String {
        match self {
            Format::Toolnexus => render::toolnexus(catalog),
            Format::Agentskills => render::agentskills(catalog),
            Format::Insika => render::insika(&catalog.skills().collect::<Vec<_>>()),
        }
    }

    fn fit(self, budget: Budget, catalog: &Catalog) -> Fitted<'_> {
        match self {
            Format::Toolnexus => budget.toolnexus(catalog),
            Format::Agentskills => budget.agentskills(catalog),
            Format::Insika => budget.insika(&catalog.skills().collect::<Vec<_>>()),
        }
    }

    /// The entry for `name` showing `description`, as it must appear whole in the text.
    fn entry(self, name: &str, description: &str) -> String {
        match self {
            Format::Toolnexus => format!("\n- **{name}**: {description}"),
            Format::Agentskills => {
                format!("<name>\n{}\n</name>\n<description>\n{}\n</description>", escape(name), escape(description))
            }
            Format::Insika => format!("  <skill name=\"{}\">{}</skill>\n", escape_text(name), escape_text(description)),
        }
    }

    fn empty(self) -> &'static str {
        match self {
            Format::Toolnexus => TOOLNEXUS_EMPTY,
            Format::Agentskills => "<available_skills>\n</available_skills>",
            Format::Insika => "",
        }
    }
}

/// What every budgeted text must satisfy: within budget, `used` its own
/// measure, and a report that adds up (each listed skill in exactly one list,
/// the shown ones first, the omitted ones the rest, in the order `entries`
/// keeps them). Returns how many skills are shown.
fn check_accounts(
    entries: Vec<&Skill>,
    budget: Budget,
    text: &str,
    report: &BudgetReport<'_>,
) -> Result<usize, TestCaseError> {
    prop_assert_eq!(report.used, budget.measure(text));
    prop_assert!(report.used <= budget.limit, "{} > {}", report.used, budget.limit);
    prop_assert_eq!(report.budget, budget);
    let shown = report.full.len() + report.shortened.len();
    prop_assert_eq!(shown + report.omitted.len(), entries.len());
    let names: Vec<&str> = entries[shown..].iter().map(|s| s.name()).collect();
    prop_assert_eq!(&report.omitted, &names);
    Ok(shown)
}

/// Every property of one budgeted render.
fn check<'c>(format: Format, budget: Budget, catalog: &'c Catalog) -> Result<Fitted<'c>, TestCaseError> {
    let fitted = format.fit(budget, catalog);
    let (text, report) = (&fitted.text, &fitted.report);
    let shown = check_accounts(format.entries(catalog), budget, text, report)?;
    let entries = format.entries(catalog);
    let (mut full, mut shortened) = (report.full.iter(), report.shortened.iter());
    for skill in &entries[..shown] {
        let (name, description) = (skill.name(), skill.description().unwrap_or_default());
        if full.as_slice().first() == Some(&name) {
            full.next();
            // Whole, with its name, and never longer than the share.
            prop_assert!(text.contains(&format.entry(name, description)), "{name:?} whole");
            if let Some(share) = report.share {
                prop_assert!(description.chars().count() <= share);
            }
        } else {
            let Some((cut_name, cut)) = shortened.next() else { return Err(TestCaseError::fail("unlisted")) };
            prop_assert_eq!(*cut_name, name);
            // A prefix of the description (at char boundaries), then `…`; the name whole.
            let n = description.chars().count();
            prop_assert!(*cut >= 1 && *cut <= n);
            let kept: String = description.chars().take(n - cut).collect();
            prop_assert_eq!(kept.trim_end(), kept.as_str());
            let share = report.share.expect("a share when shortened");
            prop_assert!(kept.chars().count() < share && n > share);
            prop_assert!(text.contains(&format.entry(name, &format!("{kept}…"))), "{name:?} cut");
        }
    }
    prop_assert_eq!(report.share.is_some(), !report.shortened.is_empty());
    // Nothing cut when the whole text fits, and then it is the renderer's, byte for byte.
    let whole = format.render(catalog);
    if budget.measure(&whole) <= budget.limit {
        prop_assert_eq!(text, &whole);
        prop_assert!(report.shortened.is_empty() && report.omitted.is_empty());
    } else if !entries.is_empty() {
        prop_assert!(!report.shortened.is_empty() || !report.omitted.is_empty());
    }
    if shown == 0 && !entries.is_empty() {
        prop_assert!(text == format.empty() || text.is_empty());
    }
    Ok(fitted)
}

/// Up to 12 data skills: names with XML specials, descriptions of any text
/// (some absent, some empty, some with runs of spaces).
fn catalogs() -> impl Strategy<Value = Catalog> {
    let description = prop_oneof![Just(None), "\\PC{0,50}".prop_map(Some), "[ a-z&<>\"']{0,70}".prop_map(Some)];
    prop::collection::vec(("[a-zé&<'\"-]{1,8}", description), 0..12).prop_map(|skills| {
        let defs = skills.into_iter().map(|(name, description)| SkillDef { description, ..SkillDef::new(name) });
        Catalog::builder().skills(defs).build()
    })
}

const FORMATS: [Format; 3] = [Format::Toolnexus, Format::Agentskills, Format::Insika];

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn character_budgets_hold(catalog in catalogs(), limit in 0usize..1200, more in 0usize..200) {
        for format in FORMATS {
            let fitted = check(format, Budget::chars(limit), &catalog)?;
            // A larger budget never shows fewer skills.
            let larger = check(format, Budget::chars(limit + more), &catalog)?;
            prop_assert!(larger.report.omitted.len() <= fitted.report.omitted.len());
        }
    }
}

#[cfg(feature = "tokens")]
proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn token_budgets_hold(catalog in catalogs(), limit in 0usize..300, cl100k in any::<bool>()) {
        use skilldeck::Encoding;
        let encoding = if cl100k { Encoding::Cl100k } else { Encoding::O200k };
        for format in FORMATS {
            check(format, Budget::tokens(limit, encoding), &catalog)?;
        }
    }
}

#[test]
fn a_large_catalog_fits_a_small_budget() {
    let defs = (0..3000).map(|i| {
        SkillDef::new(format!("skill-{i:05}"))
            .description(format!("Handles task number {i} of the benchmark; use it when the user asks for task {i}."))
    });
    let catalog = Catalog::builder().skills(defs).build();
    for format in FORMATS {
        let fitted = check(format, Budget::chars(8000), &catalog).unwrap();
        assert!(fitted.report.used > 7900, "{format:?}: {}", fitted.report.used);
        assert!(!fitted.report.omitted.is_empty());
    }
}

/// The closed form: within budget, and its last line counts exactly the
/// skills its report omits and those its renderer never lists.
fn check_closed<'c>(format: Format, budget: Budget, catalog: &'c Catalog) -> Result<Fitted<'c>, TestCaseError> {
    let closed = budget.closed("find_skills", |b| format.fit(b, catalog));
    let (text, report) = (&closed.text, &closed.report);
    let kept = match report.omitted.is_empty() {
        true => format.entries(catalog),
        false => format.kept_beside_a_line(catalog),
    };
    let shown = check_accounts(kept, budget, text, report)?;
    // Beside the line, a shortened description keeps a readable share.
    if !report.omitted.is_empty() && !report.shortened.is_empty() {
        prop_assert!(report.share >= Some(skilldeck::CLOSED_MIN_SHARE), "{:?}", report.share);
    }
    if report.omitted.is_empty() {
        // Nothing left out: the plain fit, byte for byte.
        prop_assert_eq!(text, &format.fit(budget, catalog).text);
    } else if !text.is_empty() {
        let line = skilldeck::closing_line(report.omitted.len() + report.unlisted, "find_skills");
        match shown {
            0 => prop_assert_eq!(text, &line),
            _ => prop_assert!(text.ends_with(&format!("\n\n{line}")), "{text:?}"),
        }
    } else {
        prop_assert_eq!(shown, 0);
    }
    Ok(closed)
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn closed_texts_count_what_they_leave_out(catalog in catalogs(), limit in 0usize..1200) {
        for format in FORMATS {
            check_closed(format, Budget::chars(limit), &catalog)?;
        }
    }
}

#[cfg(feature = "tokens")]
proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: None, cases: 64, ..ProptestConfig::default() })]
    #[test]
    fn closed_token_texts_count_what_they_leave_out(catalog in catalogs(), limit in 0usize..300) {
        for format in FORMATS {
            check_closed(format, Budget::tokens(limit, skilldeck::Encoding::O200k), &catalog)?;
        }
    }
}

#[test]
fn a_closed_text_names_what_it_left_out() {
    let defs = (0..8).map(|i| SkillDef::new(format!("skill-{i}")).description(format!("Handles task {i}.")));
    let catalog = Catalog::builder().skills(defs).build();
    let fitted = Budget::chars(330).closed("find_skills", |b| b.toolnexus(&catalog));
    // Whole descriptions for fewer skills, not eight names and `…`.
    assert_eq!(
        fitted.text,
        toolnexus(
            "\n- **skill-0**: Handles task 0.\n\n(7 more skills are not listed here: call find_skills with a few words of the task to search every skill.)"
        )
    );
    assert_eq!(fitted.report.omitted, ["skill-1", "skill-2", "skill-3", "skill-4", "skill-5", "skill-6", "skill-7"]);
    assert_eq!(fitted.report.used, fitted.text.chars().count());
    assert!(fitted.report.used <= 330);
    // Too small for any entry beside the line: the line alone; smaller still, nothing.
    let line = Budget::chars(200).closed("find_skills", |b| b.toolnexus(&catalog));
    assert_eq!(line.text, skilldeck::closing_line(8, "find_skills"));
    assert_eq!(Budget::chars(20).closed("find_skills", |b| b.toolnexus(&catalog)).text, "");
    // A text that fits is not closed.
    let roomy = Budget::chars(8000).closed("find_skills", |b| b.toolnexus(&catalog));
    assert_eq!(roomy.text, render::toolnexus(&catalog));
}

/// Issue 20: the line counts every skill `find_skills` reaches that the
/// text does not show, those without a description (never listed) too.
#[test]
fn the_closing_line_counts_the_undescribed_skills_a_search_reaches() {
    let defs = (0..8).map(|i| SkillDef::new(format!("skill-{i}")).description(format!("Handles task {i}.")));
    let catalog = Catalog::builder().skills(defs).skill(SkillDef::new("bare")).skill(SkillDef::new("plain")).build();
    for fitted in [
        Budget::chars(330).closed("find_skills", |b| b.toolnexus(&catalog)),
        Budget::chars(330).closed("find_skills", |b| b.agentskills(&catalog)),
    ] {
        assert_eq!(fitted.report.unlisted, 2);
        let shown = fitted.report.full.len() + fitted.report.shortened.len();
        assert_eq!(shown + fitted.report.omitted.len() + 2, catalog.skills().len());
        assert!(
            fitted.text.ends_with(&skilldeck::closing_line(catalog.skills().len() - shown, "find_skills")),
            "{}",
            fitted.text
        );
    }
    // Only as the renderer's own text's count: render::toolnexus never lists them, closed or not.
    assert_eq!(Budget::chars(8000).closed("find_skills", |b| b.toolnexus(&catalog)).text, render::toolnexus(&catalog));
}

#[test]
fn beside_the_line_the_first_roots_skills_stay_whatever_their_names() {
    // A project's skill, first in precedence, then a registry's many, whose names sort first.
    let project = SkillDef::new("zz-deploy").description("Deploy our service to the staging cluster.");
    let registry = (0..40).map(|i| SkillDef::new(format!("aa-{i:02}")).description("A registry skill. ".repeat(12)));
    let catalog = Catalog::builder().skill(project).skills(registry).build();
    let fitted = Budget::chars(1000).closed("find_skills", |b| b.toolnexus(&catalog));
    assert!(fitted.text.contains("- **zz-deploy**: Deploy our service to the staging cluster.\n"), "{}", fitted.text);
    // The registry's first ones follow, shown by name before it, each with a readable share.
    let shown: Vec<&str> = fitted.text.lines().filter_map(|l| l.strip_prefix("- **")?.split("**").next()).collect();
    assert_eq!(shown.last(), Some(&"zz-deploy"));
    let registry_shown: Vec<String> = (0..shown.len() - 1).map(|i| format!("aa-{i:02}")).collect();
    assert_eq!(shown[..shown.len() - 1], registry_shown);
    assert!(shown.len() > 2, "{shown:?}");
    assert!(fitted.report.share.is_some_and(|share| share >= skilldeck::CLOSED_MIN_SHARE));
    assert!(fitted.text.ends_with(&skilldeck::closing_line(fitted.report.omitted.len(), "find_skills")));
}
