//! Insika's doctor checks `skill-eager` and `skill-drift` (reference §8): the
//! spec inventory of §10.8 (items 116–135) with the exact messages, on real
//! directories for disk seeds and a `MemoryStore` for authored records.

use skilldeck::doctor::{Agent, Check, Doctor, Finding, Status};
use skilldeck::store::{MemoryStore, Precondition, Record, SkillStore, StoreError, Version};
use skilldeck::{AgentProfile, Catalog, Eager};

use crate::util::Tree;

const EAGER_OK: &str = "skill eagerness: per-agent (profile.skills_eager), no stale frontmatter";
const DRIFT_OK: &str = "skill references: prompt files, shared bodies and companions all consistent";

/// A `SKILL.md` as Insika's doctor spec writes them.
fn md(name: &str, body: &str, extra: &str) -> String {
    format!("---\nname: {name}\ndescription: d\n{extra}---\n\n{body}\n")
}

fn store(records: &[(&str, String)]) -> MemoryStore {
    let store = MemoryStore::default();
    for (name, content) in records {
        store.write(name, content, None, &Precondition::Any).unwrap();
    }
    store
}

fn agent(id: &str, skills: Option<&[&str]>) -> Agent {
    let profile = AgentProfile::new(id);
    Agent::new(match skills {
        Some(names) => profile.allow(names.iter().copied()),
        None => profile,
    })
}

fn warn(check: Check, message: &str) -> Finding {
    Finding { check, status: Status::Warn, message: message.into() }
}

fn ok(check: Check, message: &str) -> Finding {
    Finding { check, status: Status::Ok, message: message.into() }
}

fn severities(findings: &[Finding]) -> Vec<Status> {
    findings.iter().map(|f| f.status).collect()
}

const FORMATO_EAGER: &str = "skill 'formato' still declares `eager:` in its frontmatter — the key is IGNORED. \
Eagerness is per-agent now: put the name in that agent's `skills_eager` (Studio > Skills, or `skills_eager \"formato\"` \
in the DSL).";

const ESCALATION_NAMES_BIRO: &str = "shared skill 'escalation' names 'biro', the identity of 'biro' — kino read(s) \
biro's text as their own. Specialize 'biro' if it needs that text, and remove it from the shared body.";

// --- skill-eager (items 116–122) ---

#[test]
fn i116_a_store_record_declaring_eager_warns() {
    let store = store(&[("formato", md("formato", "body", "eager: true\n"))]);
    let findings = Doctor { store: Some(&store), ..Doctor::default() }.check();
    assert_eq!(findings, [warn(Check::SkillEager, FORMATO_EAGER)]);
}

#[test]
fn i117_eager_in_the_body_is_prose() {
    let store = store(&[("prosa", "---\nname: prosa\ndescription: d\n---\n\nBe eager: help fast.\n".into())]);
    let findings = Doctor { store: Some(&store), ..Doctor::default() }.check();
    assert_eq!(findings, [ok(Check::SkillEager, EAGER_OK)]);
}

#[test]
fn i118_an_eager_name_outside_the_allowlist_warns() {
    let agents =
        [Agent::new(AgentProfile::new("loja").allow(["cardapio"]).eager(Eager::names(["cardapio", "formato"])))];
    let findings = Doctor { agents: Some(&agents), ..Doctor::default() }.check();
    assert_eq!(
        findings,
        [warn(
            Check::SkillEager,
            "agent 'loja' marks skill 'formato' eager but does not allow it — the name is a no-op. Add it to the \
             agent's skills, or drop it from skills_eager."
        )]
    );
}

#[test]
fn i119_no_allowlist_allows_every_eager_name() {
    let agents = [Agent::new(AgentProfile::new("loja").eager(Eager::names(["formato"])))];
    assert_eq!(Doctor { agents: Some(&agents), ..Doctor::default() }.check(), [ok(Check::SkillEager, EAGER_OK)]);
}

#[test]
fn i120_blanket_eager_names_nothing() {
    let agents = [Agent::new(AgentProfile::new("loja").allow(Vec::<String>::new()).eager(Eager::All))];
    assert_eq!(Doctor { agents: Some(&agents), ..Doctor::default() }.check(), [ok(Check::SkillEager, EAGER_OK)]);
}

#[test]
fn i121_no_collaborators_no_findings() {
    assert_eq!(Doctor::default().check(), []);
    assert_eq!(Doctor::default().skill_eager(), []);
    assert_eq!(Doctor::default().skill_drift(), []);
}

#[test]
fn i122_a_disk_seed_declaring_eager_warns_through_the_catalog() {
    let tree = Tree::new();
    tree.file("formato/SKILL.md", md("formato", "body", "eager: true\n"));
    let catalog = Catalog::builder().root(tree.root()).build();
    let findings = Doctor { catalog: Some(&catalog), ..Doctor::default() }.check();
    assert_eq!(findings, [warn(Check::SkillEager, FORMATO_EAGER)]);
}

// --- skill-drift (items 123–135) ---

#[test]
fn i123_store_without_profiles_skips_drift() {
    let store = store(&[("gift-concierge", md("gift-concierge", "b", ""))]);
    let findings = Doctor { store: Some(&store), ..Doctor::default() }.check();
    assert_eq!(findings, [ok(Check::SkillEager, EAGER_OK)]);
    assert_eq!(Doctor { store: Some(&store), ..Doctor::default() }.skill_drift(), []);
}

#[test]
fn i124_a_prompt_file_naming_an_unallowed_skill_warns() {
    let store = store(&[("gift-concierge", md("gift-concierge", "b", ""))]);
    let agents = [agent("loja", Some(&[])).file("SKILLS.md", "| gift-concierge | quando o cliente quer um presente |")];
    let findings = Doctor { store: Some(&store), agents: Some(&agents), ..Doctor::default() }.skill_drift();
    assert_eq!(
        findings,
        [warn(
            Check::SkillDrift,
            "agent 'loja' file 'SKILLS.md' names skill 'gift-concierge', which is NOT in its skills allowlist — the \
             model is being told to use something it cannot load. Allow the skill, or drop the reference (the skill \
             table is generated)."
        )]
    );
}

#[test]
fn i125_a_prompt_file_naming_an_allowed_skill_is_fine() {
    let store = store(&[("gift-concierge", md("gift-concierge", "b", ""))]);
    let agents = [agent("loja", Some(&["gift-concierge"])).file("SKILLS.md", "| gift-concierge | presente |")];
    let findings = Doctor { store: Some(&store), agents: Some(&agents), ..Doctor::default() }.check();
    assert_eq!(findings, [ok(Check::SkillEager, EAGER_OK), ok(Check::SkillDrift, DRIFT_OK)]);
}

fn biro_and_kino() -> [Agent; 2] {
    [agent("biro", Some(&["escalation"])), agent("kino", Some(&["escalation"]))]
}

#[test]
fn i126_a_shared_skill_naming_a_holder_warns() {
    let store = store(&[("escalation", md("escalation", "na biro a devolucao e em 7 dias", ""))]);
    let agents = biro_and_kino();
    let findings = Doctor { store: Some(&store), agents: Some(&agents), ..Doctor::default() }.skill_drift();
    assert_eq!(findings, [warn(Check::SkillDrift, ESCALATION_NAMES_BIRO)]);
}

#[test]
fn i127_clears_once_the_other_holder_specialized() {
    let store = store(&[("escalation", md("escalation", "na biro, 7 dias", ""))]);
    store.write("escalation", &md("escalation", "na kino", ""), Some("kino"), &Precondition::Any).unwrap();
    let agents = biro_and_kino();
    let findings = Doctor { store: Some(&store), agents: Some(&agents), ..Doctor::default() }.skill_drift();
    assert_eq!(findings, [ok(Check::SkillDrift, DRIFT_OK)]);
}

#[test]
fn i128_specializing_the_named_holder_does_not_clear_it() {
    let store = store(&[("escalation", md("escalation", "na biro, 7 dias", ""))]);
    store.write("escalation", &md("escalation", "na biro, 7 dias", ""), Some("biro"), &Precondition::Any).unwrap();
    let agents = biro_and_kino();
    let findings = Doctor { store: Some(&store), agents: Some(&agents), ..Doctor::default() }.skill_drift();
    assert_eq!(findings, [warn(Check::SkillDrift, ESCALATION_NAMES_BIRO)]);
}

#[test]
fn i129_one_holder_is_not_shared() {
    let store = store(&[("escalation", md("escalation", "na biro, 7 dias", ""))]);
    let agents = [agent("biro", Some(&["escalation"]))];
    let findings = Doctor { store: Some(&store), agents: Some(&agents), ..Doctor::default() }.skill_drift();
    assert_eq!(findings, [ok(Check::SkillDrift, DRIFT_OK)]);
}

#[test]
fn i130_structural_id_tokens_are_not_identity() {
    let store = store(&[("esc", md("esc", "consulte a politica da store antes de escalar", ""))]);
    let agents = [agent("store-a", Some(&["esc"])), agent("store-b", Some(&["esc"]))];
    let findings = Doctor { store: Some(&store), agents: Some(&agents), ..Doctor::default() }.skill_drift();
    assert_eq!(findings, [ok(Check::SkillDrift, DRIFT_OK)]);
}

#[test]
fn i131_identity_comes_from_metadata_too() {
    let store = store(&[("esc", md("esc", "na Kino a troca e na loja", ""))]);
    let agents = [agent("a1", Some(&["esc"])).identity(["Kino"]), agent("a2", Some(&["esc"]))];
    let findings = Doctor { store: Some(&store), agents: Some(&agents), ..Doctor::default() }.skill_drift();
    assert_eq!(
        findings,
        [warn(
            Check::SkillDrift,
            "shared skill 'esc' names 'Kino', the identity of 'a1' — a2 read(s) a1's text as their own. Specialize \
             'a1' if it needs that text, and remove it from the shared body."
        )]
    );
}

#[test]
fn i132_a_body_naming_another_skill_must_declare_it() {
    let store = store(&[
        ("biro-line-expert", md("biro-line-expert", "consulte query-construction antes de buscar", "")),
        ("query-construction", md("query-construction", "b", "")),
    ]);
    let agents = [agent("loja", None)];
    let findings = Doctor { store: Some(&store), agents: Some(&agents), ..Doctor::default() }.skill_drift();
    assert_eq!(
        findings,
        [warn(
            Check::SkillDrift,
            "skill 'biro-line-expert' references skill 'query-construction' in its body without declaring it a \
             companion — the two can arrive apart, and half a recipe is worse than none. Add `companions: \
             [query-construction]` to 'biro-line-expert'."
        )]
    );
}

#[test]
fn i133_a_declared_companion_is_fine() {
    let store = store(&[
        ("mapa", md("mapa", "consulte query antes de buscar", "companions: [query]\n")),
        ("query", md("query", "b", "")),
    ]);
    let agents = [agent("loja", None)];
    let findings = Doctor { store: Some(&store), agents: Some(&agents), ..Doctor::default() }.skill_drift();
    assert_eq!(findings, [ok(Check::SkillDrift, DRIFT_OK)]);
}

#[test]
fn i134_a_companion_outside_the_allowlist_warns() {
    let store = store(&[("mapa", md("mapa", "b", "companions: [query]\n")), ("query", md("query", "b", ""))]);
    let agents = [agent("loja", Some(&["mapa"]))];
    let findings = Doctor { store: Some(&store), agents: Some(&agents), ..Doctor::default() }.skill_drift();
    assert_eq!(
        findings,
        [warn(
            Check::SkillDrift,
            "agent 'loja' allows skill 'mapa' but not its companion 'query' — the pair cannot travel together for \
             this agent. Allow 'query' too."
        )]
    );
}

#[test]
fn i135_a_shared_disk_seed_naming_a_holder_warns_without_a_store() {
    let tree = Tree::new();
    tree.file("escalation/SKILL.md", md("escalation", "na biro, 7 dias", ""));
    let catalog = Catalog::builder().root(tree.root()).build();
    let agents = biro_and_kino();
    let findings = Doctor { catalog: Some(&catalog), agents: Some(&agents), ..Doctor::default() }.check();
    assert_eq!(findings, [ok(Check::SkillEager, EAGER_OK), warn(Check::SkillDrift, ESCALATION_NAMES_BIRO)]);
}

// --- beyond the inventory ---

#[test]
fn broken_yaml_with_an_eager_line_still_warns() {
    // `Gift: there` makes YAML refuse the block; Insika's line-wise fallback still sees `eager`.
    let content = "---\nname: formato\ndescription: Discovery. Gift: there is NO size gate.\neager: true\n---\nbody\n";
    let store = store(&[("formato", content.into())]);
    let findings = Doctor { store: Some(&store), ..Doctor::default() }.check();
    assert_eq!(findings, [warn(Check::SkillEager, FORMATO_EAGER)]);
}

#[test]
fn eager_false_still_warns_and_agent_records_are_not_swept() {
    let store = store(&[("formato", md("formato", "body", "eager: false\n"))]);
    store.write("cardapio", &md("cardapio", "body", "eager: true\n"), Some("loja"), &Precondition::Any).unwrap();
    let findings = Doctor { store: Some(&store), ..Doctor::default() }.check();
    assert_eq!(findings, [warn(Check::SkillEager, FORMATO_EAGER)]);
}

#[test]
fn a_store_record_wins_over_the_disk_seed_of_its_name() {
    let tree = Tree::new();
    tree.file("formato/SKILL.md", md("formato", "body", "eager: true\n"));
    tree.file("seed/SKILL.md", md("seed", "body", "eager: yes\n"));
    let catalog = Catalog::builder().root(tree.root()).build();
    let store = store(&[("formato", md("formato", "body", ""))]);
    let findings = Doctor { catalog: Some(&catalog), store: Some(&store), ..Doctor::default() }.check();
    assert_eq!(
        findings,
        [warn(
            Check::SkillEager,
            "skill 'seed' still declares `eager:` in its frontmatter — the key is IGNORED. Eagerness is per-agent now: \
             put the name in that agent's `skills_eager` (Studio > Skills, or `skills_eager \"seed\"` in the DSL)."
        )]
    );
}

#[test]
fn a_disk_seed_gone_since_the_build_is_skipped() {
    let tree = Tree::new();
    tree.file("formato/SKILL.md", md("formato", "body", "eager: true\n"));
    let catalog = Catalog::builder().root(tree.root()).build();
    std::fs::remove_file(tree.path("formato/SKILL.md")).unwrap();
    let findings = Doctor { catalog: Some(&catalog), ..Doctor::default() }.check();
    assert_eq!(findings, [ok(Check::SkillEager, EAGER_OK)]);
}

#[test]
fn drift_findings_come_in_check_order() {
    // Sources in store order: escalation, mapa, query.
    let store = store(&[
        ("escalation", md("escalation", "na biro, 7 dias", "")),
        ("mapa", md("mapa", "veja query", "companions: pedido\n")),
        ("query", md("query", "b", "")),
    ]);
    let agents = [
        agent("biro", Some(&["escalation", "mapa"])).file("IDENTITY.md", "use a skill query"),
        agent("kino", Some(&["escalation"])),
    ];
    let findings = Doctor { store: Some(&store), agents: Some(&agents), ..Doctor::default() }.skill_drift();
    let messages: Vec<&str> = findings.iter().map(|f| f.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "agent 'biro' file 'IDENTITY.md' names skill 'query', which is NOT in its skills allowlist — the model \
             is being told to use something it cannot load. Allow the skill, or drop the reference (the skill table \
             is generated).",
            ESCALATION_NAMES_BIRO,
            "skill 'mapa' references skill 'query' in its body without declaring it a companion — the two can arrive \
             apart, and half a recipe is worse than none. Add `companions: [query]` to 'mapa'.",
            "agent 'biro' allows skill 'mapa' but not its companion 'pedido' — the pair cannot travel together for \
             this agent. Allow 'pedido' too.",
        ]
    );
    assert_eq!(severities(&findings), [Status::Warn; 4]);
}

#[test]
fn holder_identity_reads_the_frontmatter_and_companion_mentions_only_the_body() {
    let store = store(&[
        ("escalation", "---\nname: escalation\ndescription: trocas da Bíro e da query\n---\n\ncorpo\n".into()),
        ("query", md("query", "b", "")),
    ]);
    let agents = biro_and_kino();
    let findings = Doctor { store: Some(&store), agents: Some(&agents), ..Doctor::default() }.skill_drift();
    assert_eq!(findings, [warn(Check::SkillDrift, ESCALATION_NAMES_BIRO)]);
}

#[test]
fn mentions_are_whole_words() {
    let store =
        store(&[("escalation", md("escalation", "nabiro, biros, biro2, querys", "")), ("query", md("query", "b", ""))]);
    let agents = biro_and_kino();
    let findings = Doctor { store: Some(&store), agents: Some(&agents), ..Doctor::default() }.skill_drift();
    assert_eq!(findings, [ok(Check::SkillDrift, DRIFT_OK)]);
}

#[test]
fn an_agent_listing_a_skill_twice_is_one_holder() {
    let store = store(&[("escalation", md("escalation", "na biro, 7 dias", ""))]);
    let agents = [agent("biro", Some(&["escalation", "escalation"]))];
    let findings = Doctor { store: Some(&store), agents: Some(&agents), ..Doctor::default() }.skill_drift();
    assert_eq!(findings, [ok(Check::SkillDrift, DRIFT_OK)]);
}

#[test]
fn a_profile_source_without_agents_still_checks_companions() {
    let store = store(&[("mapa", md("mapa", "veja query", "")), ("query", md("query", "b", ""))]);
    let findings = Doctor { store: Some(&store), agents: Some(&[]), ..Doctor::default() }.skill_drift();
    assert_eq!(
        findings,
        [warn(
            Check::SkillDrift,
            "skill 'mapa' references skill 'query' in its body without declaring it a companion — the two can arrive \
             apart, and half a recipe is worse than none. Add `companions: [query]` to 'mapa'."
        )]
    );
}

#[test]
fn findings_render_with_their_glyph() {
    let finding = |status| Finding { check: Check::SkillDrift, status, message: "m".into() };
    assert_eq!(finding(Status::Ok).to_string(), "✓ [skill-drift] m");
    assert_eq!(finding(Status::Info).to_string(), "• [skill-drift] m");
    assert_eq!(finding(Status::Warn).to_string(), "! [skill-drift] m");
    assert_eq!(finding(Status::Error).to_string(), "✗ [skill-drift] m");
    let store = store(&[("formato", md("formato", "body", "eager: true\n"))]);
    let line = Doctor { store: Some(&store), ..Doctor::default() }.check()[0].to_string();
    assert_eq!(line, format!("! [skill-eager] {FORMATO_EAGER}"));
}

/// A store whose every call fails, or only `agents`.
struct Broken {
    only_agents: bool,
    records: MemoryStore,
}

impl Broken {
    fn error() -> StoreError {
        StoreError::backend("/srv/skills.db", "database disk image is malformed")
    }
}

impl SkillStore for Broken {
    fn get(&self, name: &str, agent: Option<&str>) -> Result<Option<Record>, StoreError> {
        self.records.get(name, agent)
    }
    fn all(&self, agent: Option<&str>) -> Result<Vec<(String, Record)>, StoreError> {
        if self.only_agents { self.records.all(agent) } else { Err(Broken::error()) }
    }
    fn agents(&self) -> Result<Vec<String>, StoreError> {
        Err(Broken::error())
    }
    fn write(
        &self,
        name: &str,
        content: &str,
        agent: Option<&str>,
        precondition: &Precondition,
    ) -> Result<Record, StoreError> {
        self.records.write(name, content, agent, precondition)
    }
    fn delete(&self, name: &str, agent: Option<&str>) -> Result<bool, StoreError> {
        self.records.delete(name, agent)
    }
    fn versions(&self, name: &str, agent: Option<&str>) -> Result<Vec<Version>, StoreError> {
        self.records.versions(name, agent)
    }
    fn restore(&self, name: &str, index: i64, agent: Option<&str>) -> Result<Record, StoreError> {
        self.records.restore(name, index, agent)
    }
}

const CRASHED: &str = "check crashed: skill store /srv/skills.db: database disk image is malformed";

#[test]
fn a_failing_store_crashes_each_check_that_reads_it() {
    let error = |check| Finding { check, status: Status::Error, message: CRASHED.into() };
    let agents = [agent("loja", Some(&["cardapio"]))];

    let broken = Broken { only_agents: false, records: MemoryStore::default() };
    let findings = Doctor { store: Some(&broken), agents: Some(&agents), ..Doctor::default() }.check();
    assert_eq!(findings, [error(Check::SkillEager), error(Check::SkillDrift)]);
    assert_eq!(findings[0].to_string(), format!("✗ [skill-eager] {CRASHED}"));

    // Only the agent scopes fail: skill-eager never reads them.
    let broken = Broken { only_agents: true, records: store(&[("formato", md("formato", "body", "eager: true\n"))]) };
    let findings = Doctor { store: Some(&broken), agents: Some(&agents), ..Doctor::default() }.check();
    assert_eq!(findings, [warn(Check::SkillEager, FORMATO_EAGER), error(Check::SkillDrift)]);
}
