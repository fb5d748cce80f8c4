//! Insika's doctor checks about skills: `skill-eager` (a stale `eager:` key
//! in a `SKILL.md`, an eager name an agent does not allow) and `skill-drift`
//! (prompt files, shared bodies and companions that disagree with the
//! allowlists). [`Doctor::check`] runs both over what a deployment holds and
//! returns [`Finding`]s; nothing here prints, fixes or writes.
//!
//! Both checks read the raw `SKILL.md` text of every *source*: the disk
//! skills of a [`Catalog`] (re-read from their files), then the shared records
//! of a [`SkillStore`], which win by name as they do at runtime. Agent-scope
//! records are never swept; they only say which agents have specialized a
//! skill. Mentions of a name or an identity are found with the folded
//! whole-word match of triggers (accents and case ignored, no match inside a
//! longer word).
//!
//! The messages are Insika's, byte for byte. Where this port reads
//! differently:
//!
//! * the frontmatter is found with the engine's fence rules (a byte-order
//!   mark is skipped), so the doctor reads what the catalog reads;
//! * a disk `SKILL.md` is read with invalid UTF-8 replaced, as the catalog
//!   reads bodies, and one that can no longer be read is left out;
//! * a store failure is `check crashed: <error>`, without Insika's exception
//!   class (the error's text names the store);
//! * an agent that lists a skill twice is one holder of it.

use std::collections::HashMap;
use std::fmt;

use serde_json::Value;

use crate::agent::{AgentProfile, Eager};
use crate::catalog::Catalog;
use crate::model::Origin;
use crate::source::frontmatter::{self, Fences, Frontmatter, FrontmatterMode};
use crate::store::{SkillStore, StoreError};
use crate::text::{contains_word, fold, ruby_strip};

/// Which of the doctor's checks a [`Finding`] comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Check {
    /// `skill-eager`: a stale `eager:` frontmatter key, an eager name outside
    /// the agent's allowlist.
    SkillEager,
    /// `skill-drift`: references between prompt files, skills and
    /// allowlists that disagree.
    SkillDrift,
}

impl Check {
    /// Both checks, in the order [`Doctor::check`] runs them.
    pub const ALL: [Check; 2] = [Check::SkillEager, Check::SkillDrift];

    /// The check's id, as Insika names it: `skill-eager` or `skill-drift`.
    pub fn as_str(self) -> &'static str {
        match self {
            Check::SkillEager => "skill-eager",
            Check::SkillDrift => "skill-drift",
        }
    }
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Identity tokens too common to say which agent a text is about.
const IDENTITY_STOPWORDS: [&str; 15] = [
    "agent",
    "agente",
    "store",
    "shop",
    "loja",
    "bot",
    "assistant",
    "assistente",
    "atendimento",
    "prod",
    "staging",
    "demo",
    "test",
    "main",
    "default",
];

/// A finding's outcome, from passed to broken. (Not a severity: a check
/// that passes reports [`Status::Ok`].)
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Status {
    /// The check passed.
    Ok,
    /// Worth knowing; nothing is wrong.
    Info,
    /// Something works differently from how it reads.
    Warn,
    /// Something is broken, or the check could not run.
    Error,
}

impl Status {
    /// The glyph of the human report: `✓`, `•`, `!` or `✗`.
    pub fn glyph(self) -> &'static str {
        match self {
            Status::Ok => "✓",
            Status::Info => "•",
            Status::Warn => "!",
            Status::Error => "✗",
        }
    }

    /// `ok`, `info`, `warn` or `error`: the name used in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Info => "info",
            Status::Warn => "warn",
            Status::Error => "error",
        }
    }
}

/// One result of a check. Its `Display` is the line of the human report:
/// `<glyph> [<check>] <message>`.
///
/// # Example
///
/// ```
/// use skilldeck::doctor::{Check, Finding, Status};
///
/// let finding = Finding { check: Check::SkillEager, status: Status::Warn, message: "a message".into() };
/// assert_eq!(finding.to_string(), "! [skill-eager] a message");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The check that found it.
    pub check: Check,
    /// Its outcome.
    pub status: Status,
    /// What is wrong and what to do, in one line.
    pub message: String,
}

impl Finding {
    fn new(check: Check, status: Status, message: String) -> Finding {
        Finding { check, status, message }
    }

    /// `check crashed: <store error>`, an [`Status::Error`] in place of
    /// `check`'s findings: Insika names the exception class before the
    /// message; a [`StoreError`]'s text already says what failed. For a
    /// caller whose own store read (the agents' profiles) failed too.
    ///
    /// # Example
    ///
    /// ```
    /// use skilldeck::doctor::{Check, Finding};
    /// use skilldeck::store::StoreError;
    ///
    /// let error = StoreError::backend("skills.db", "disk I/O error");
    /// let finding = Finding::crashed(Check::SkillDrift, &error);
    /// assert_eq!(finding.to_string(), "✗ [skill-drift] check crashed: skill store skills.db: disk I/O error");
    /// ```
    pub fn crashed(check: Check, error: &StoreError) -> Finding {
        Finding::new(check, Status::Error, format!("check crashed: {error}"))
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} [{}] {}", self.status.glyph(), self.check, self.message)
    }
}

/// An agent as the doctor sees it: its skill configuration, what it calls
/// itself, and the prompt files it is given.
///
/// # Example
///
/// ```
/// use skilldeck::AgentProfile;
/// use skilldeck::doctor::Agent;
///
/// let agent = Agent::new(AgentProfile::new("biro-sp").allow(["escalation"]))
///     .identity(["Biro Cosméticos"])
///     .file("SKILLS.md", "| escalation | quando o cliente reclama |");
/// assert_eq!(agent.files[0].0, "SKILLS.md");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Agent {
    /// Its id, allowlist (`skills`) and eager set.
    pub profile: AgentProfile,
    /// What it calls itself besides its id: Insika's metadata `name`,
    /// `display_name` and `store_name` values, each taken whole.
    pub identity: Vec<String>,
    /// Its prompt files as (file name, text), in the order to report them.
    pub files: Vec<(String, String)>,
}

impl Agent {
    /// An agent with this profile, no identity beyond its id, no prompt files.
    pub fn new(profile: AgentProfile) -> Agent {
        Agent { profile, ..Agent::default() }
    }

    /// Adds names the agent calls itself (metadata values, whole).
    pub fn identity<I, S>(mut self, names: I) -> Agent
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.identity.extend(names.into_iter().map(Into::into));
        self
    }

    /// Adds a prompt file.
    pub fn file(mut self, name: impl Into<String>, text: impl Into<String>) -> Agent {
        self.files.push((name.into(), text.into()));
        self
    }

    /// Insika's identity terms: the id split on `-`, `_`, `.` and ASCII
    /// whitespace (Ruby's `\s`), then the [`identity`](Agent::identity)
    /// values whole; each trimmed, dropped if shorter than 4 characters or a
    /// structural word (`agent`, `store`, `loja`, `bot`, …, any case), first
    /// occurrence kept.
    fn identity_terms(&self) -> Vec<String> {
        const SEPARATORS: [char; 9] = ['-', '_', '.', ' ', '\t', '\n', '\u{0B}', '\u{0C}', '\r'];
        let id_tokens = self.profile.id.split(SEPARATORS);
        let mut terms: Vec<String> = Vec::new();
        for term in id_tokens.chain(self.identity.iter().map(String::as_str)).map(ruby_strip) {
            let structural = IDENTITY_STOPWORDS.contains(&term.to_lowercase().as_str());
            if term.chars().count() >= 4 && !structural && !terms.iter().any(|t| t == term) {
                terms.push(term.to_owned());
            }
        }
        terms
    }
}

/// What the skill checks look at. Each collaborator is optional, as in
/// Insika: a check whose inputs are missing is skipped, not failed.
///
/// * `catalog` brings the disk skills (its inventory, filtered or not, of
///   [`Origin::Fs`]); a catalog's own store records are ignored, so pass the
///   store as `store`.
/// * `store` brings the shared records (over the disk skills) and says which
///   agents specialized which skill.
/// * `agents` is the profile source: `None` when there is none, which is not
///   the same as `Some(&[])` (no agents configured).
///
/// # Example
///
/// ```
/// use skilldeck::AgentProfile;
/// use skilldeck::doctor::{Agent, Check, Doctor, Status};
/// use skilldeck::store::{MemoryStore, SkillStore};
///
/// let store = MemoryStore::default();
/// store.write("formato", "---\nname: formato\ndescription: d\neager: true\n---\n\nUse listas.\n", None, &skilldeck::store::Precondition::Any)?;
/// let agents = [Agent::new(AgentProfile::new("loja").allow(["formato"]))];
///
/// let findings = Doctor { store: Some(&store), agents: Some(&agents), ..Doctor::default() }.check();
/// assert_eq!(findings.len(), 2);
/// assert_eq!(findings[0].check, Check::SkillEager);
/// assert_eq!(findings[0].status, Status::Warn);
/// assert!(findings[0].to_string().starts_with("! [skill-eager] skill 'formato' still declares `eager:`"));
/// assert_eq!(
///     findings[1].to_string(),
///     "✓ [skill-drift] skill references: prompt files, shared bodies and companions all consistent"
/// );
/// # Ok::<(), skilldeck::store::StoreError>(())
/// ```
#[derive(Clone, Copy, Default)]
pub struct Doctor<'a> {
    /// The catalog whose disk skills are swept.
    pub catalog: Option<&'a Catalog>,
    /// The store whose shared records are swept, and whose agent records say
    /// who specialized what.
    pub store: Option<&'a dyn SkillStore>,
    /// The agents, or `None` without a profile source.
    pub agents: Option<&'a [Agent]>,
}

impl fmt::Debug for Doctor<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Doctor")
            .field("catalog", &self.catalog)
            .field("store", &self.store.map(|_| "dyn SkillStore"))
            .field("agents", &self.agents)
            .finish()
    }
}

/// One swept `SKILL.md`: its name, its text, and what the checks read of its
/// frontmatter.
struct Source {
    name: String,
    content: String,
    /// Whether the frontmatter has an `eager` key, whatever its value.
    eager: bool,
    /// The declared companions, each element split on commas.
    companions: Vec<String>,
    /// Where the body starts in `content` (0 without a frontmatter).
    body_start: usize,
}

impl Source {
    fn new(name: String, content: String) -> Source {
        let text = content.strip_prefix('\u{FEFF}').unwrap_or(&content);
        let bom = content.len() - text.len();
        let (frontmatter, body_start) = match frontmatter::fences(text.as_bytes()) {
            Fences::Closed { yaml_start, yaml_end, body_start } => {
                (tolerant_frontmatter(&text[yaml_start..yaml_end]), bom + body_start)
            }
            Fences::None | Fences::Unclosed => (Frontmatter::new(), 0),
        };
        let eager = frontmatter.contains_key("eager");
        let companions = declared_companions(frontmatter.get("companions"));
        Source { name, content, eager, companions, body_start }
    }

    fn body(&self) -> &str {
        &self.content[self.body_start..]
    }
}

/// Insika's tolerant reading: the YAML mapping when YAML gives one, else a
/// `key: value` split of every line at its first colon (any indentation,
/// values kept as raw text, the last of a key winning).
///
/// The engine's parser hands back the mapping only for a frontmatter that
/// also has a usable `name`; one without (which never loads as a skill) is
/// read line by line here. A mapping whose `name` or `description` the
/// engine rescued (a list, or a null: toolnexus's rule) is still the mapping
/// YAML gave.
fn tolerant_frontmatter(yaml: &str) -> Frontmatter {
    match frontmatter::parse(yaml, 2, FrontmatterMode::Lenient) {
        Ok(head) if head.recovered.as_ref().is_none_or(|problem| !problem.refused) => head.frontmatter,
        _ => {
            let mut map = Frontmatter::new();
            for line in yaml.split_inclusive('\n') {
                let Some((key, value)) = line.split_once(':') else { continue };
                let key = ruby_strip(key);
                if !key.is_empty() {
                    map.insert(key.to_owned(), Value::String(ruby_strip(value).to_owned()));
                }
            }
            map
        }
    }
}

/// The doctor's reading of `companions`: a list element by element, a lone
/// scalar as one element; every element split on commas, trimmed, empty ones
/// dropped. Nested lists and mappings name nothing.
fn declared_companions(value: Option<&Value>) -> Vec<String> {
    let items: Vec<&Value> = match value {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items.iter().collect(),
        Some(other) => vec![other],
    };
    let texts: Vec<String> = items
        .into_iter()
        .filter_map(|item| match item {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            Value::Bool(b) => Some(b.to_string()),
            Value::Null | Value::Array(_) | Value::Object(_) => None,
        })
        .collect();
    texts.iter().flat_map(|t| t.split(',')).map(ruby_strip).filter(|c| !c.is_empty()).map(str::to_owned).collect()
}

/// Whether `folded_text` (already [`fold`]ed) mentions `term` as a whole
/// word, accents and case ignored.
fn mentions(folded_text: &str, term: &str) -> bool {
    contains_word(folded_text, &fold(term))
}

/// [`Finding::crashed`], as a check's only finding.
fn crashed(check: Check, error: &StoreError) -> Vec<Finding> {
    vec![Finding::crashed(check, error)]
}

impl Doctor<'_> {
    /// Runs `skill-eager`, then `skill-drift`, reading the sources once.
    ///
    /// `skill-eager` is skipped (gives nothing) unless a catalog, a store or
    /// agents are given; `skill-drift` unless a catalog or a store, and
    /// agents, are. A check that passes gives one [`Status::Ok`] finding; a
    /// store that fails gives one [`Status::Error`] finding
    /// `check crashed: <error>` in place of that check's findings.
    pub fn check(&self) -> Vec<Finding> {
        let sources = self.sources();
        let mut findings = self.eager_findings(&sources);
        findings.extend(self.drift_findings(&sources));
        findings
    }

    /// The `skill-eager` check alone.
    ///
    /// 1. A source whose frontmatter has the key `eager` (any value; the body
    ///    is not read) warns that the key is ignored.
    /// 2. An agent with an allowlist and an eager list warns for each eager
    ///    name the allowlist lacks (the blanket [`Eager::All`] names nothing).
    pub fn skill_eager(&self) -> Vec<Finding> {
        self.eager_findings(&self.sources())
    }

    /// The `skill-drift` check alone. Its findings, in this order:
    ///
    /// 1. a prompt file of an agent with an allowlist mentions a source name
    ///    outside it;
    /// 2. a source held (explicitly allowed) by two or more agents mentions an
    ///    identity term of one holder while other holders still read it (a
    ///    holder with its own agent-scope record of that name reads that
    ///    instead); the whole text, frontmatter included, is searched;
    /// 3. a source's body mentions another source's name that its
    ///    `companions` does not declare;
    /// 4. an agent allows a source but not one of its declared companions
    ///    (whether or not the companion exists).
    pub fn skill_drift(&self) -> Vec<Finding> {
        self.drift_findings(&self.sources())
    }

    /// The swept sources: disk skills, then shared store records over them.
    fn sources(&self) -> Result<Vec<Source>, StoreError> {
        let mut texts: Vec<(String, String)> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        let mut put = |name: String, content: String| match index.get(&name) {
            Some(&i) => texts[i].1 = content,
            None => {
                index.insert(name.clone(), texts.len());
                texts.push((name, content));
            }
        };
        for skill in self.catalog.map_or(&[][..], Catalog::inventory) {
            let Origin::Fs { skill_md, .. } = skill.origin() else { continue };
            // Gone or unreadable since the catalog was built: nothing to check.
            if let Ok(bytes) = std::fs::read(skill_md) {
                put(skill.name().to_owned(), String::from_utf8_lossy(&bytes).into_owned());
            }
        }
        if let Some(store) = self.store {
            for (name, record) in store.all(None)? {
                put(name, record.content);
            }
        }
        Ok(texts.into_iter().map(|(name, content)| Source::new(name, content)).collect())
    }

    fn eager_findings(&self, sources: &Result<Vec<Source>, StoreError>) -> Vec<Finding> {
        if self.catalog.is_none() && self.store.is_none() && self.agents.is_none() {
            return Vec::new();
        }
        let sources = match sources {
            Ok(sources) => sources,
            Err(error) => return crashed(Check::SkillEager, error),
        };
        let warn = |message| Finding::new(Check::SkillEager, Status::Warn, message);
        let mut findings: Vec<Finding> = sources
            .iter()
            .filter(|s| s.eager)
            .map(|s| {
                let name = &s.name;
                warn(format!(
                    "skill '{name}' still declares `eager:` in its frontmatter — the key is IGNORED. Eagerness is \
                     per-agent now: put the name in that agent's `skills_eager` (Studio > Skills, or \
                     `skills_eager \"{name}\"` in the DSL)."
                ))
            })
            .collect();
        for agent in self.agents.unwrap_or_default() {
            let AgentProfile { id, skills: Some(skills), eager: Eager::Names(eager) } = &agent.profile else {
                continue;
            };
            for name in eager.iter().filter(|n| !skills.contains(n)) {
                findings.push(warn(format!(
                    "agent '{id}' marks skill '{name}' eager but does not allow it — the name is a no-op. Add it \
                     to the agent's skills, or drop it from skills_eager."
                )));
            }
        }
        if findings.is_empty() {
            let message = "skill eagerness: per-agent (profile.skills_eager), no stale frontmatter";
            findings.push(Finding::new(Check::SkillEager, Status::Ok, message.into()));
        }
        findings
    }

    fn drift_findings(&self, sources: &Result<Vec<Source>, StoreError>) -> Vec<Finding> {
        let Some(agents) = self.agents else { return Vec::new() };
        if self.catalog.is_none() && self.store.is_none() {
            return Vec::new();
        }
        let sources = match sources {
            Ok(sources) => sources,
            Err(error) => return crashed(Check::SkillDrift, error),
        };
        let specialized = match self.specialized() {
            Ok(specialized) => specialized,
            Err(error) => return crashed(Check::SkillDrift, &error),
        };
        let mut findings = unallowed_in_prompt_files(agents, sources);
        findings.extend(shared_naming_a_holder(agents, sources, &specialized));
        findings.extend(undeclared_companions(sources));
        findings.extend(companions_outside_allowlists(agents, sources));
        if findings.is_empty() {
            let message = "skill references: prompt files, shared bodies and companions all consistent";
            findings.push(Finding::new(Check::SkillDrift, Status::Ok, message.into()));
        }
        findings
    }

    /// Skill name → the agents with an agent-scope record of that name.
    fn specialized(&self) -> Result<HashMap<String, Vec<String>>, StoreError> {
        let mut by_name: HashMap<String, Vec<String>> = HashMap::new();
        let Some(store) = self.store else { return Ok(by_name) };
        for agent in store.agents()? {
            for name in store.names(Some(&agent))? {
                by_name.entry(name).or_default().push(agent.clone());
            }
        }
        Ok(by_name)
    }
}

fn drift(message: String) -> Finding {
    Finding::new(Check::SkillDrift, Status::Warn, message)
}

/// Drift (1): a prompt file names a skill its agent may not load.
fn unallowed_in_prompt_files(agents: &[Agent], sources: &[Source]) -> Vec<Finding> {
    let mut findings = Vec::new();
    for agent in agents {
        let Some(skills) = &agent.profile.skills else { continue };
        let orphans: Vec<&str> =
            sources.iter().map(|s| s.name.as_str()).filter(|n| !skills.iter().any(|a| a == n)).collect();
        if orphans.is_empty() {
            continue;
        }
        let id = &agent.profile.id;
        for (file, text) in &agent.files {
            let text = fold(text);
            for name in orphans.iter().filter(|n| mentions(&text, n)) {
                findings.push(drift(format!(
                    "agent '{id}' file '{file}' names skill '{name}', which is NOT in its skills allowlist — the \
                     model is being told to use something it cannot load. Allow the skill, or drop the reference \
                     (the skill table is generated)."
                )));
            }
        }
    }
    findings
}

/// Drift (2): a skill shared by several agents names one of them, and the
/// others read that text as their own.
fn shared_naming_a_holder(
    agents: &[Agent],
    sources: &[Source],
    specialized: &HashMap<String, Vec<String>>,
) -> Vec<Finding> {
    let mut findings = Vec::new();
    for source in sources {
        // Holders: agents whose explicit allowlist names the skill, each once.
        let mut holders: Vec<&Agent> = Vec::new();
        for agent in agents {
            let holds = agent.profile.skills.as_ref().is_some_and(|s| s.contains(&source.name));
            if holds && !holders.iter().any(|h| h.profile.id == agent.profile.id) {
                holders.push(agent);
            }
        }
        if holders.len() < 2 {
            continue;
        }
        let own = specialized.get(&source.name).map_or(&[][..], Vec::as_slice);
        let readers: Vec<&str> =
            holders.iter().map(|h| h.profile.id.as_str()).filter(|id| !own.iter().any(|o| o == id)).collect();
        let text = fold(&source.content);
        for owner in &holders {
            let owner_id = &owner.profile.id;
            let mut victims: Vec<&str> = readers.iter().copied().filter(|r| r != owner_id).collect();
            if victims.is_empty() {
                continue;
            }
            victims.sort_unstable();
            let victims = victims.join(", ");
            let name = &source.name;
            for term in owner.identity_terms().iter().filter(|t| mentions(&text, t)) {
                findings.push(drift(format!(
                    "shared skill '{name}' names '{term}', the identity of '{owner_id}' — {victims} read(s) \
                     {owner_id}'s text as their own. Specialize '{owner_id}' if it needs that text, and remove it \
                     from the shared body."
                )));
            }
        }
    }
    findings
}

/// Drift (3): a body points at another skill without declaring it a companion.
fn undeclared_companions(sources: &[Source]) -> Vec<Finding> {
    let mut findings = Vec::new();
    for source in sources {
        let body = fold(source.body());
        let name = &source.name;
        for other in sources.iter().map(|s| &s.name) {
            if other == name || source.companions.contains(other) || !mentions(&body, other) {
                continue;
            }
            findings.push(drift(format!(
                "skill '{name}' references skill '{other}' in its body without declaring it a companion — the two \
                 can arrive apart, and half a recipe is worse than none. Add `companions: [{other}]` to '{name}'."
            )));
        }
    }
    findings
}

/// Drift (4): an agent may load a skill but not a companion it declares.
fn companions_outside_allowlists(agents: &[Agent], sources: &[Source]) -> Vec<Finding> {
    let mut findings = Vec::new();
    for agent in agents {
        let Some(skills) = &agent.profile.skills else { continue };
        let id = &agent.profile.id;
        for source in sources.iter().filter(|s| skills.contains(&s.name)) {
            let name = &source.name;
            for missing in source.companions.iter().filter(|c| !skills.contains(c)) {
                findings.push(drift(format!(
                    "agent '{id}' allows skill '{name}' but not its companion '{missing}' — the pair cannot travel \
                     together for this agent. Allow '{missing}' too."
                )));
            }
        }
    }
    findings
}

#[cfg(test)]
mod tests;
