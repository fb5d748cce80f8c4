//! Differential tests: skilldeck against the real toolnexus 0.21.0 Python port,
//! byte for byte. Each scenario builds a skill tree in a temporary directory,
//! runs `tests/oracle/toolnexus_oracle.py` once, and compares for every skill
//! name (and some unknown ones): the `skill` tool's output bytes, `is_error`
//! and metadata; the prompt; the unfiltered inventory (name, description,
//! location, origin, in order); the skips (location and reason, in order); and
//! the load-time warnings, in order (toolnexus prints them with a
//! `[toolnexus] ` prefix, which is stripped here), plus the warnings that
//! toolnexus's `list_skills` re-prints (not-found roots and duplicates).
//!
//! The oracle runs with the Python at `SKILLDECK_TOOLNEXUS_PYTHON`, by default
//! `target/venvs/toolnexus/bin/python`; `scripts/test` creates that venv. A
//! missing interpreter fails the tests: they never pass silently. Set
//! `SKILLDECK_DIFFERENTIAL_DUMP=1` (and pass `--nocapture`) to print each
//! answer of the oracle.
//!
//! Kept OUT of the comparison, because skilldeck differs from toolnexus on
//! purpose (its SPEC):
//!
//! - A UTF-8 byte-order mark: skilldeck skips it before looking for the
//!   fences; toolnexus's regex sees no `---` at the first byte.
//! - CRLF and lone CR line ends: Python's text-mode read turns `\r\n` and `\r`
//!   into `\n` before anything else, so body bytes and fence rules differ.
//! - Invalid UTF-8: toolnexus's strict decode raises `UnicodeDecodeError`,
//!   which it does not catch, so the whole load fails; skilldeck skips a
//!   frontmatter that is not UTF-8 as `unreadable` and reads a body lossily.
//! - YAML 1.1 typing (`yes`/`no`/`on`/`off`, `010`, `0x1F`, `1e3`, `1.50`,
//!   dates): PyYAML resolves them as YAML 1.1 and `str()`s the result
//!   (`True`, `8`, `1.5`, a date); skilldeck reads YAML 1.2 and keeps the
//!   author's text.
//! - A `name` or `description` written `null`, `Null`, `NULL` or `~`:
//!   toolnexus rescues a null line by line, so it becomes that word;
//!   skilldeck rescues a null too (`description: # Title` is a comment, and
//!   the line gives its text) but a null word stays absent (SPEC §3).
//! - Characters that Python's `Path.as_uri()` percent-encodes but Node's
//!   `pathToFileURL` does not (`@ : + ! ( ) ' * $ & , ; =`): skilldeck writes
//!   the base URL as Node does. Paths here use only characters both leave
//!   raw or both encode.
//! - Relative roots: skilldeck makes a root absolute before walking;
//!   toolnexus reports relative locations.
//! - A missing or non-string `name` argument: skilldeck returns a specific
//!   "Invalid arguments" error instead of `Skill "" not found` (or the
//!   `str()` of the value).
//! - Unknown extra arguments: skilldeck refuses them (the schema says
//!   `additionalProperties: false`); toolnexus ignores them.
//! - Sample limits below `-1`: skilldeck rejects them when the catalog is
//!   built; toolnexus lists every file.
//! - Closing fences such as `----` or `---abc`: toolnexus's regex accepts any
//!   line starting with `---`; skilldeck requires `---` plus trailing spaces.
//! - Whitespace trim sets: Python's `str.strip` and ECMAScript `trim` (which
//!   skilldeck uses, after the JavaScript reference port) differ on U+FEFF,
//!   U+0085, U+001C..U+001F and the like. Only ASCII spaces, tabs and newlines
//!   are trimmed here, except where a test says which U+FEFF it removes from
//!   toolnexus's text (`rescued_values_keep_toolnexus_text_without_its_bom`).
//! - Symbolic links: skilldeck guards the root itself and detects loops its
//!   own way.
//! - Duplicate YAML keys: PyYAML lets the last one win; skilldeck's YAML
//!   refuses them (SPEC §3), so the line-wise fallback takes the first.
//! - Rescued quoted values: toolnexus keeps spaces inside the quotes
//!   (`name: "  padded  "` gives `  padded  `); skilldeck trims every `name`
//!   and `description` (SPEC §3), rescued or not.
//! - Names holding a control, format or separator character (a NUL, a line
//!   break, U+202E, a zero-width character, a BOM): toolnexus serves them (a
//!   line break splits its level-1 line); skilldeck skips them as
//!   `invalid-name` (`tests/names.rs`). Every other name is compared,
//!   spaces, capitals and slashes included (`names_registries_have`).
//! - Roots spelled with `.` components or doubled slashes (`/x/.`, `/x//s`):
//!   toolnexus keeps the spelling in every path; skilldeck normalises the root
//!   (SPEC §5: an absolute, normalised skill directory).
//!
//! Also left out: skilldeck's `recovered-frontmatter` warning, which toolnexus
//! does not have (it rescues silently). The skills it concerns are compared.

use std::path::PathBuf;

use serde_json::{Map, Value, json};
use skilldeck::{Catalog, Filter, SampleLimit, SkillDef, SkillTool, Warning, render};

use crate::util::{Oracle, Tree, workspace};

/// The prefix toolnexus prints before each warning.
const PREFIX: &str = "[toolnexus] ";

/// Names called in every scenario besides the skills' own: none exists.
const UNKNOWN: [&str; 3] = ["no-such-skill", "", "SKILL.md"];

/// One scenario: the sources and options both engines get, and the names to call.
#[derive(Clone, Debug, Default)]
struct Case {
    label: String,
    roots: Vec<PathBuf>,
    defs: Vec<SkillDef>,
    /// `None`: no filter (JSON `null`). Entries are kept in code-point order,
    /// the order in which skilldeck reports unmatched names.
    filter: Option<Vec<(String, bool)>>,
    sample_limit: i64,
    calls: Vec<String>,
}

impl Case {
    fn new(label: impl Into<String>) -> Case {
        Case { label: label.into(), ..Case::default() }
    }

    fn root(mut self, root: impl Into<PathBuf>) -> Case {
        self.roots.push(root.into());
        self
    }

    fn skill(mut self, def: SkillDef) -> Case {
        self.defs.push(def);
        self
    }

    fn skills(mut self, defs: impl IntoIterator<Item = SkillDef>) -> Case {
        self.defs.extend(defs);
        self
    }

    fn filter(mut self, entries: &[(&str, bool)]) -> Case {
        let mut entries: Vec<(String, bool)> = entries.iter().map(|&(k, v)| (k.to_owned(), v)).collect();
        entries.sort();
        entries.dedup_by(|a, b| a.0 == b.0);
        self.filter = Some(entries);
        self
    }

    fn limit(mut self, limit: i64) -> Case {
        self.sample_limit = limit;
        self
    }

    fn labelled(mut self, label: impl Into<String>) -> Case {
        self.label = label.into();
        self
    }

    fn call(mut self, name: &str) -> Case {
        self.calls.push(name.to_owned());
        self
    }

    fn catalog(&self) -> Catalog {
        let mut builder = Catalog::builder()
            .roots(self.roots.iter().cloned())
            .skills(self.defs.iter().cloned())
            .sample_limit(SampleLimit::from_config(self.sample_limit).unwrap());
        if let Some(entries) = &self.filter {
            builder = builder.filter(Filter::new(entries.iter().cloned()));
        }
        builder.build()
    }

    fn request(&self, calls: &[String]) -> Value {
        let roots: Vec<String> = self
            .roots
            .iter()
            .map(|r| r.to_str().unwrap_or_else(|| panic!("non-UTF-8 root {}", r.display())).to_owned())
            .collect();
        let skills: Vec<Value> = self.defs.iter().map(def_json).collect();
        let filter = match &self.filter {
            None => Value::Null,
            Some(entries) => Value::Object(entries.iter().map(|(k, v)| (k.clone(), Value::Bool(*v))).collect()),
        };
        json!({
            "roots": roots,
            "skills": skills,
            "filter": filter,
            "sample_limit": self.sample_limit,
            "calls": calls,
        })
    }

    /// Runs both engines and panics with every difference found.
    fn check(&self) {
        let diffs = self.diffs();
        assert!(diffs.is_empty(), "{diffs}");
    }

    /// Runs both engines, with the oracle's answer passed through `known`
    /// first (a documented difference undone), and panics with every
    /// difference found.
    fn check_after(&self, known: impl Fn(&mut Value)) {
        let diffs = self.diffs_after(known);
        assert!(diffs.is_empty(), "{diffs}");
    }

    /// Runs both engines; returns every difference found, or `""`.
    fn diffs(&self) -> String {
        self.diffs_after(|_| {})
    }

    /// [`Case::diffs`], with the oracle's answer passed through `known` first.
    fn diffs_after(&self, known: impl Fn(&mut Value)) -> String {
        let catalog = self.catalog();
        let mut calls: Vec<String> = Vec::new();
        let names = catalog.inventory().iter().map(|s| s.name().to_owned());
        for name in names.chain(self.calls.iter().cloned()).chain(UNKNOWN.map(str::to_owned)) {
            if !calls.contains(&name) {
                calls.push(name);
            }
        }
        let mut expected = Oracle::TOOLNEXUS.ask(&self.request(&calls));
        known(&mut expected);
        if std::env::var_os("SKILLDECK_DIFFERENTIAL_DUMP").is_some() {
            eprintln!("{}: {expected:#}", self.label);
        }
        let mut diffs = Diffs::default();

        diffs.text("prompt", str_at(&expected, "prompt"), &render::toolnexus(&catalog));

        let tool = SkillTool::new(&catalog);
        let expected_calls = expected["calls"].as_array().cloned().unwrap_or_default();
        diffs.text("number of calls", &expected_calls.len().to_string(), &calls.len().to_string());
        for (name, want) in calls.iter().zip(&expected_calls) {
            let got = tool.call(&json!({ "name": name }));
            diffs.text(&format!("output of skill({name:?})"), str_at(want, "output"), &got.output);
            let metadata = got.metadata.map_or(Value::Null, |m| json!({"name": m.name, "dir": m.dir}));
            let want_flags = format!("is_error={} metadata={}", want["is_error"], want["metadata"]);
            let got_flags = format!("is_error={} metadata={}", got.is_error, metadata);
            diffs.text(&format!("is_error and metadata of skill({name:?})"), &want_flags, &got_flags);
        }

        let want_inventory = lines(&expected["list"]["skills"], |s| {
            let description = s["description"].as_str();
            format!("{:?} {description:?} {:?} {}", str_at(s, "name"), str_at(s, "location"), str_at(s, "origin"))
        });
        let got_inventory: Vec<String> = catalog
            .inventory()
            .iter()
            .map(|s| format!("{:?} {:?} {:?} {}", s.name(), s.description(), s.location(), s.origin().kind()))
            .collect();
        diffs.text("inventory", &want_inventory.join("\n"), &got_inventory.join("\n"));

        let want_skips =
            lines(&expected["list"]["skipped"], |s| format!("{:?} {}", str_at(s, "location"), str_at(s, "reason")));
        let got_skips: Vec<String> =
            catalog.skips().iter().map(|s| format!("{:?} {}", s.location, s.reason.as_str())).collect();
        diffs.text("skips", &want_skips.join("\n"), &got_skips.join("\n"));

        let compared = |w: &&Warning| w.kind() != "recovered-frontmatter";
        let got_warnings: Vec<String> = catalog.warnings().iter().filter(compared).map(Warning::to_string).collect();
        diffs.text("warnings", &warning_lines(&expected["warnings"]), &got_warnings.join("\n"));

        let relisted = |w: &&Warning| matches!(w.kind(), "root-not-found" | "duplicate-name");
        let got_relisted: Vec<String> = catalog.warnings().iter().filter(relisted).map(Warning::to_string).collect();
        diffs.text("list_skills warnings", &warning_lines(&expected["list_warnings"]), &got_relisted.join("\n"));

        diffs.finish(&self.label)
    }
}

/// A data skill as the oracle reads it.
fn def_json(def: &SkillDef) -> Value {
    let mut object = Map::new();
    if let Some(name) = &def.name {
        object.insert("name".into(), json!(name));
    }
    if let Some(description) = &def.description {
        object.insert("description".into(), json!(description));
    }
    object.insert("content".into(), json!(def.content));
    object.insert("resources".into(), json!(def.resources));
    if let Some(base) = &def.base {
        object.insert("base".into(), json!(base));
    }
    Value::Object(object)
}

fn str_at<'a>(value: &'a Value, key: &str) -> &'a str {
    value[key].as_str().unwrap_or_else(|| panic!("the oracle's {key:?} is not a string in {value}"))
}

fn lines(array: &Value, line: impl Fn(&Value) -> String) -> Vec<String> {
    array.as_array().map(|items| items.iter().map(line).collect()).unwrap_or_default()
}

/// The oracle's printed warnings, without the `[toolnexus] ` prefix.
fn warning_lines(array: &Value) -> String {
    let lines = lines(array, |l| {
        let l = l.as_str().unwrap_or_default();
        l.strip_prefix(PREFIX).unwrap_or(l).to_owned()
    });
    lines.join("\n")
}

/// The differences found in one scenario, each shown readably.
#[derive(Default)]
struct Diffs(Vec<String>);

impl Diffs {
    /// Records a difference between toolnexus's text and skilldeck's.
    fn text(&mut self, what: &str, toolnexus: &str, skilldeck: &str) {
        if toolnexus == skilldeck {
            return;
        }
        let (want, got): (Vec<&str>, Vec<&str>) = (toolnexus.split('\n').collect(), skilldeck.split('\n').collect());
        let at = want.iter().zip(&got).position(|(a, b)| a != b).unwrap_or(want.len().min(got.len()));
        let line = |l: &[&str]| l.get(at).map_or_else(|| "(no such line)".to_owned(), |s| format!("{s:?}"));
        self.0.push(format!(
            "--- {what}: first difference at line {}\n    toolnexus: {}\n    skilldeck: {}\n\
             === toolnexus ===\n{toolnexus}\n=== skilldeck ===\n{skilldeck}\n=================",
            at + 1,
            line(&want),
            line(&got),
        ));
    }

    /// Every difference, under the scenario's label; `""` when there is none.
    fn finish(self, label: &str) -> String {
        if self.0.is_empty() {
            return String::new();
        }
        format!(
            "{label}: skilldeck differs from toolnexus 0.21.0 in {} place(s):\n\n{}",
            self.0.len(),
            self.0.join("\n\n")
        )
    }
}

/// A `SKILL.md` from its frontmatter lines and body.
fn md(frontmatter: &str, body: &str) -> String {
    format!("---\n{frontmatter}---\n{body}")
}

#[test]
fn hello_world() {
    let tree = Tree::new();
    tree.file(
        "hello-world/SKILL.md",
        md(
            "name: hello-world\ndescription: Greet the user by name. Use when the user says hello.\n",
            "\n# Hello\n\nRun `scripts/greet.sh NAME` from this skill's base directory.\n",
        ),
    )
    .file("hello-world/scripts/greet.sh", "#!/bin/sh\necho \"Hello, $1!\"\n");
    for limit in [0, -1] {
        Case::new(format!("hello-world, sample limit {limit}"))
            .root(tree.root())
            .limit(limit)
            .call("Hello-World")
            .check();
    }
}

#[test]
fn the_example_skills() {
    let examples = workspace().join("examples/skills");
    let examples = examples.canonicalize().unwrap_or_else(|e| panic!("{}: {e}", examples.display()));
    Case::new("examples/skills").root(examples).check();
}

#[test]
fn sampling_sorts_by_code_point_then_caps() {
    let tree = Tree::new();
    tree.skill("sampler", "sampler", "Many files.", "Look around.\n");
    for file in [
        "B.txt",
        "a.txt",
        "a-b.txt",
        "a/x.md",
        "a/Y.md",
        "a0.txt",
        "a_b.txt",
        "A/upper.md",
        "_under.md",
        "10.txt",
        "2.txt",
        "Z/z/deep.md",
        ".hidden",
        ".config/settings.json",
        "scripts/run.sh",
        "scripts/Run.sh",
        "scripts/run_2.sh",
        "scripts/run10.sh",
        "reference/api_v2.md",
        "reference/api-v10.md",
        "reference/API.md",
        "skill.md",
        "Skill.MD",
        "readme",
        "deep/er/and/deeper/file.txt",
        "deep-er.txt",
        "deep.txt",
        "z\u{fc}.txt",
        "\u{ff5a}.txt",
        "\u{1f600}.txt",
        "node_modules/pkg/index.js",
        "nested/node_modules/pkg/index.js",
        ".git/HEAD",
        "nested/.git/config",
        "nested/.gitignore",
    ] {
        tree.file(&format!("sampler/{file}"), file);
    }
    tree.dir("sampler/empty/dir");
    let resources: Vec<String> = (1..=12).map(|i| format!("res/{i:02}.md")).collect();
    let base = Case::new("")
        .root(tree.root())
        .skill(SkillDef::new("data-res").description("Twelve resources.").content("Data.").resources(resources));
    for limit in [0, 1, 3, -1, 1000] {
        base.clone().labelled(format!("sampling, sample limit {limit}")).limit(limit).check();
    }
}

#[test]
fn nested_skills_and_a_root_level_skill() {
    let tree = Tree::new();
    tree.file("SKILL.md", md("name: root-skill\ndescription: The root itself is a skill.\n", "At the root.\n"))
        .file("notes.txt", "n")
        .skill("parent", "parent", "Holds a child skill.", "Parent body.\n")
        .file("parent/guide.md", "g")
        .file("parent/zzz.txt", "z")
        .skill("parent/child", "child", "Inside parent.", "Child body.\n")
        .file("parent/child/helper.py", "h")
        .skill("parent/child/grandchild", "grandchild", "Deeper still.", "Grandchild body.\n")
        .file("parent/child/grandchild/data.csv", "d")
        .skill("sibling", "sibling", "Next to parent.", "Sibling body.\n")
        .file("sibling/x.txt", "x");
    for limit in [0, 3, 100] {
        Case::new(format!("nested skills, sample limit {limit}")).root(tree.root()).limit(limit).check();
    }
}

#[test]
fn duplicates_first_wins() {
    let first = Tree::new();
    first
        // Depth beats code point: `zzz` (depth 2) wins over `aaa/bbb` (depth 3).
        .skill("aaa/bbb", "depth", "Nested copy.", "nested\n")
        .skill("zzz", "depth", "Top-level copy.", "top\n")
        // Same depth: code point, so `Upper` beats `lower` and `Zed` beats `alpha`.
        .skill("lower", "case", "Lower-case dir.", "lower\n")
        .skill("Upper", "case", "Upper-case dir.", "upper\n")
        .skill("alpha", "same-depth", "alpha dir.", "alpha\n")
        .skill("Zed", "same-depth", "Zed dir.", "zed\n")
        .skill("shared", "shared", "From the first root.", "first root\n")
        .skill("deep/nested/x", "shared", "Deep in the first root.", "deeper\n")
        .skill("disk", "disk-over-data", "On disk.", "disk body\n");
    let second = Tree::new();
    second
        .skill("shared", "shared", "From the second root.", "second root\n")
        .skill("a", "depth", "Second root, top level.", "second\n")
        .skill("only2", "only-two", "Only in the second root.", "two\n");
    Case::new("duplicates")
        .root(first.root())
        .root(second.root())
        .skill(SkillDef::new("disk-over-data").description("As data.").content("data body"))
        .skill(SkillDef::new("twice").description("First data.").content("one"))
        .skill(SkillDef::new("twice").description("Second data.").content("two"))
        .skill(SkillDef::new("twice").base("skill://custom/twice/").content("three"))
        .check();
}

#[test]
fn missing_roots_come_first_when_nothing_else_warns_before_them() {
    let tree = Tree::new();
    tree.skill("one", "one", "One.", "1\n").file("plain-file", "not a dir");
    Case::new("missing roots")
        .root(tree.path("nowhere"))
        .root(tree.root())
        .root(tree.path("plain-file"))
        .root(tree.path("one"))
        .check();
}

#[test]
fn data_skills() {
    let defs = [
        SkillDef::new("plain").description("No resources.").content("  \n  Plain body.  \n\n"),
        SkillDef::new("with-res")
            .description("Has resources.")
            .content("Body.")
            .resources(["b.md", "a.md", "dir/c.md", "A.md"]),
        SkillDef::new("empty-res").description("Empty resource list.").content("Body."),
        SkillDef::new("custom-base")
            .description("Custom base.")
            .content("Custom.")
            .base("https://example.invalid/skills/custom/")
            .resources(["x.txt"]),
        SkillDef::new("empty-base").description("Empty base.").content("E.").base(""),
        SkillDef::new("undescribed").content("No description."),
        SkillDef::new("empty-description").description("").content("Empty description."),
        SkillDef::new("spaced-description").description("  kept as given  ").content("S."),
        SkillDef::new("multi-line").description("line one\nline two").content("M."),
        SkillDef::new("no-content"),
        SkillDef { description: Some("Nameless.".into()), content: "x".into(), ..SkillDef::default() },
        SkillDef { name: Some(String::new()), content: "x".into(), ..SkillDef::default() },
        SkillDef { base: Some("skill://nameless-base/".into()), content: "x".into(), ..SkillDef::default() },
        SkillDef { name: Some(String::new()), base: Some(String::new()), ..SkillDef::default() },
    ];
    for limit in [0, 2, -1] {
        Case::new(format!("data skills, sample limit {limit}")).skills(defs.clone()).limit(limit).check();
    }
}

#[test]
fn filters() {
    let tree = Tree::new();
    tree.skill("alpha", "alpha", "Alpha.", "a\n")
        .skill("beta", "beta", "Beta.", "b\n")
        .skill("gamma", "gamma", "Gamma.", "g\n")
        .file("nameless/SKILL.md", md("description: No name.\n", "x\n"));
    let base = Case::new("")
        .root(tree.root())
        .skill(SkillDef::new("delta").description("Delta as data.").content("d"))
        .skill(SkillDef::new("alpha").description("Shadowed.").content("shadowed"));
    // (label, filter entries; `None` is no filter at all)
    type Entries<'a> = Option<&'a [(&'a str, bool)]>;
    let filters: [(&str, Entries<'_>); 9] = [
        ("no filter", None),
        ("empty filter", Some(&[])),
        ("allowlist", Some(&[("alpha", true), ("delta", true), ("ghost", true)])),
        ("drop-list", Some(&[("beta", false), ("ghost", false), ("Alpha", false)])),
        ("allow and drop", Some(&[("alpha", true), ("beta", false), ("zombie", true)])),
        ("allowlist of unknown names", Some(&[("ghost", true), ("Ghost", true), ("", true)])),
        ("drop everything", Some(&[("alpha", false), ("beta", false), ("gamma", false), ("delta", false)])),
        ("false for everything but one true", Some(&[("alpha", false), ("gamma", true)])),
        ("a skipped skill's name", Some(&[("nameless", true), ("beta", true)])),
    ];
    for (label, filter) in filters {
        let case = base.clone().labelled(format!("filter: {label}"));
        match filter {
            None => case.check(),
            Some(entries) => case.filter(entries).check(),
        }
    }
}

#[test]
fn frontmatter_shapes_and_skips() {
    let tree = Tree::new();
    let files: [(&str, String); 37] = [
        ("no-frontmatter", "# Just markdown\n\nNo fences at all.\n".into()),
        ("description-only", md("description: Has no name.\n", "body\n")),
        ("empty-frontmatter", "---\n---\nbody\n".into()),
        ("blank-frontmatter", "---\n\n---\nbody\n".into()),
        ("unclosed", "---\nname: unclosed\ndescription: Never closed.\n".into()),
        ("scalar-frontmatter", md("just some text\n", "body\n")),
        ("list-frontmatter", md("- a\n- b\n", "body\n")),
        ("empty-name", md("name: \"\"\ndescription: Empty name.\n", "body\n")),
        ("blank-name", md("name: \"   \"\ndescription: Blank name.\n", "body\n")),
        ("list-name", md("name: [a, b]\ndescription: List name.\n", "body\n")),
        ("block-list-name", md("name:\n  - a\ndescription: Block list name.\n", "body\n")),
        ("malformed", md("name: [unclosed\ndescription: d\n", "body\n")),
        ("malformed-description-only", md("description: [unclosed\n", "body\n")),
        ("rescued", md("name: rescued\ndescription: Use when: the user asks\n", "Rescued body.\n")),
        ("rescued-quoted", md("name: \"rescued-quoted\"\ndescription: 'Use when: single quoted'\nbad: a: b\n", "q\n")),
        ("rescued-comment", md("name: rescued-comment\ndescription: text # not a comment here: no\n", "c\n")),
        ("rescued-opener", md("name: |\nname: rescued-later\ndescription: [x\nother: a: b\n", "o\n")),
        ("rescued-no-description", md("name: rescued-nodesc\ndescription: >\n  folded: no\nx: y: z\n", "n\n")),
        ("empty-body", md("name: empty-body\ndescription: Nothing below.\n", "")),
        ("eof-fence", "---\nname: eof-fence\ndescription: Fence at EOF.\n---".into()),
        ("whitespace-body", md("name: whitespace-body\ndescription: Blank body.\n", "  \n\n\t\n")),
        ("later-fences", md("name: later-fences\ndescription: Fences in body.\n", "one\n---\ntwo\n---\n")),
        ("empty-description", md("name: empty-description\ndescription: \"\"\n", "e\n")),
        ("null-description", md("name: null-description\ndescription:\n", "n\n")),
        ("undescribed", md("name: undescribed\n", "Not in the prompt.\n")),
        ("list-description", md("name: list-description\ndescription: [a, b]\n", "l\n")),
        ("folded", md("name: folded\ndescription: >\n  Folded line one\n  and line two.\n\n  New paragraph.\n", "f\n")),
        ("folded-strip", md("name: folded-strip\ndescription: >-\n  Stripped\n  fold.\n", "f\n")),
        ("literal", md("name: literal\ndescription: |\n  Line one\n    indented two\n  line three\n", "l\n")),
        ("literal-keep", md("name: literal-keep\ndescription: |+\n  kept\n\n\n", "l\n")),
        (
            "escapes",
            md("name: escapes\ndescription: \"a\\tb \\\"q\\\" back\\\\slash \\u00e9 \\x41 \\n next\"\n", "e\n"),
        ),
        ("single-quoted", md("name: 'single-quoted'\ndescription: 'it''s \"fine\"'\n", "s\n")),
        ("padded-name", md("name: \"  padded-name  \"\ndescription: \"  padded description  \"\n", "p\n")),
        ("plain-continued", md("name: plain-continued\ndescription: first line\n  continued here\n", "c\n")),
        ("comments", md("# leading comment\nname: comments # trailing\ndescription: text # trailing\n", "c\n")),
        (
            "other-keys",
            md("name: other-keys\ndescription: d\nlicense: MIT\nmetadata:\n  a: b\nallowed-tools: [x]\n", "o\n"),
        ),
        ("colon-quoted", md("name: colon-quoted\ndescription: \"Use when: quoted\"\n", "q\n")),
    ];
    for (dir, text) in &files {
        tree.file(&format!("{dir}/SKILL.md"), text);
    }
    Case::new("frontmatter shapes and skips").root(tree.root()).check();
}

#[test]
fn yaml_constructs_both_parsers_read_alike() {
    let tree = Tree::new();
    let files: [(&str, String); 16] = [
        ("anchor", md("name: anchor\ndescription: &d Anchored text.\nother: *d\n", "a\n")),
        ("alias", md("base: &n aliased\nname: *n\ndescription: Name from an alias.\n", "a\n")),
        ("tag", md("name: !!str tagged\ndescription: !!str Tagged text.\n", "t\n")),
        ("explicit-key", md("? name\n: explicit\ndescription: Explicit key.\n", "e\n")),
        ("flow-map", md("{name: flow-map, description: A flow mapping.}\n", "f\n")),
        ("json-style", md("\"name\": \"json-style\"\n\"description\": \"JSON keys.\"\n", "j\n")),
        ("document-end", md("name: document-end\ndescription: Ends with dots.\n...\n", "d\n")),
        ("tab-inside", md("name: tab-inside\ndescription: a\tb plain\n", "t\n")),
        ("indent-indicator", md("name: indent-indicator\ndescription: |2\n   two spaces kept\n  base\n", "i\n")),
        ("quoted-multiline", md("name: quoted-multiline\ndescription: \"first\n  second\n\n  third\"\n", "q\n")),
        ("single-multiline", md("name: single-multiline\ndescription: 'one\n  two'\n", "s\n")),
        ("unicode", md("name: unicode\ndescription: Caf\u{e9} \u{1f600} \u{4e2d}\u{6587} <b>&amp;</b>\n", "u\n")),
        ("nested-map-description", md("name: nested-map\ndescription:\n  key: value\n", "n\n")),
        ("integer-name", md("name: 42\ndescription: An integer name.\n", "i\n")),
        ("key-order", md("description: Description first.\nname: key-order\n", "k\n")),
        ("long-line", md(&format!("name: long-line\ndescription: {}\n", "word ".repeat(400).trim()), "l\n")),
    ];
    for (dir, text) in &files {
        tree.file(&format!("{dir}/SKILL.md"), text);
    }
    Case::new("YAML constructs").root(tree.root()).check();
}

#[test]
fn names_sort_by_code_point() {
    let tree = Tree::new();
    for (dir, name) in [("z", "Zeta"), ("a", "alpha"), ("u", "_under"), ("t", "10"), ("n", "9"), ("e", "\u{e9}clair")] {
        tree.skill(dir, name, &format!("Skill {name}."), "b\n");
    }
    Case::new("name order")
        .root(tree.root())
        .skill(SkillDef::new("Alpha").description("Upper A.").content("x"))
        .skill(SkillDef::new("alpha-2").description("Dash.").content("x"))
        .skill(SkillDef::new("alpha_2").description("Underscore.").content("x"))
        .skill(SkillDef::new("\u{1f600}").description("Emoji.").content("x"))
        .skill(SkillDef::new("\u{ff5a}").description("Fullwidth z.").content("x"))
        .skill(SkillDef::new("with space").description("Space.").content("x"))
        .call("ALPHA")
        .check();
}

/// Names real registries hold, which the Agent Skills rule refuses
/// (`PDF Processing`): skilldeck loads, lists and serves them as toolnexus does.
#[test]
fn names_registries_have() {
    let tree = Tree::new();
    let names = [
        ("pdf", "PDF Processing"),
        ("mon", "Mon Skill"),
        ("dots", "a.b"),
        ("three", "..."),
        ("slash", "team/deploy"),
        ("colon", "plugin:name"),
        ("nbsp", "non\u{a0}breaking"),
        ("cjk", "\u{6280}\u{80fd}"),
    ];
    for (dir, name) in names {
        tree.skill(dir, name, &format!("Skill {name}."), "b\n");
    }
    let mut case = Case::new("names registries have")
        .root(tree.root())
        .skill(SkillDef::new("Data Skill").description("Spaced data.").content("x"));
    for (_, name) in names {
        case = case.call(name);
    }
    case.check();
}

#[test]
fn discovery_edges() {
    let tree = Tree::new();
    tree.skill(".hidden", "hidden", "In a hidden dir.", "h\n")
        .skill(".git", "in-git", "Never found.", "g\n")
        .skill("node_modules/pkg", "in-node-modules", "Never found.", "n\n")
        .skill("deep/.git/inner", "in-nested-git", "Never found.", "g\n")
        .file("lower/skill.md", md("name: lower-case-file\ndescription: Not a SKILL.md.\n", "l\n"))
        // A directory named SKILL.md is walked like any other, in discovery and in sampling.
        .skill("weird/SKILL.md/inner", "inside-a-dir-named-skill-md", "Below a dir named SKILL.md.", "w\n")
        .skill("holder", "holder", "Holds a dir named SKILL.md.", "h\n")
        .file("holder/sub/SKILL.md/inner.txt", "i")
        .file("holder/file.txt", "f")
        .dir("empty/dir");
    for limit in [0, -1] {
        Case::new(format!("discovery edges, sample limit {limit}")).root(tree.root()).limit(limit).check();
    }
}

#[test]
fn base_urls_both_encode_alike() {
    let tree = Tree::new();
    for (dir, name) in [
        ("with space", "space"),
        ("hash#and%percent", "hash"),
        ("br[ack]{et}^|", "brackets"),
        ("q?lt<gt>\"tick`back\\slash", "punct"),
        ("tilde~dot.dash-under_", "tilde"),
        ("caf\u{e9}", "accent"),
    ] {
        tree.skill(dir, name, &format!("Dir {dir:?}."), "b\n").file(&format!("{dir}/in {name}.txt"), "x");
    }
    Case::new("base URLs").root(tree.root()).check();
}

#[test]
fn warning_order_with_a_missing_root_after_duplicates() {
    let tree = Tree::new();
    tree.skill("a", "same", "A.", "a\n").skill("b", "same", "B.", "b\n");
    Case::new("missing root after a duplicate")
        .root(tree.root())
        .root(tree.path("missing"))
        .skill(SkillDef::new("same").content("data"))
        .filter(&[("ghost", true), ("same", true)])
        .check();
}

/// Removes every U+FEFF from the strings of an oracle answer: toolnexus keeps
/// one that Python's `str.strip` does not take; skilldeck trims `name` and
/// `description` with the ECMAScript set, which takes it (SPEC §3).
fn without_bom(value: &mut Value) {
    match value {
        Value::String(s) => *s = s.replace('\u{feff}', ""),
        Value::Array(items) => items.iter_mut().for_each(without_bom),
        Value::Object(map) => map.values_mut().for_each(without_bom),
        _ => {}
    }
}

#[test]
fn null_names_and_descriptions_are_rescued_like_toolnexus() {
    let tree = Tree::new();
    let files: [(&str, String); 8] = [
        ("comment", md("name: comment\ndescription: ## Skill Profile \u{2014} who it serves\nlicense: MIT\n", "c\n")),
        ("comment-map", md("name: comment-map\ndescription: # Title\nmetadata:\n  author: x\n  tags: [a, b]\n", "m\n")),
        ("comment-name", md("name: # hashed name\ndescription: The name is a comment.\n", "n\n")),
        ("bare-hash", md("name: bare-hash\ndescription: #\n", "b\n")),
        ("comment-after-space", md("name: comment-after-space\ndescription:    #   spaced out  \n", "s\n")),
        ("empty", md("name: empty\ndescription:\n", "e\n")),
        ("comment-opener", md("name: comment-opener\ndescription: # [not] a list\n", "o\n")),
        ("comment-quoted", md("name: comment-quoted\ndescription: #'quoted'\n", "q\n")),
    ];
    for (dir, text) in &files {
        tree.file(&format!("{dir}/SKILL.md"), text);
    }
    Case::new("null names and descriptions").root(tree.root()).check();
}

#[test]
fn rescued_values_keep_toolnexus_text_without_its_bom() {
    let tree = Tree::new();
    let files: [(&str, String); 4] = [
        ("table", md("name: table\ndescription: \u{feff}| Skill Name | Use when: tables |\n", "t\n")),
        ("refused", md("name: refused\ndescription: \u{feff}> quoted: no\nbad: [\n", "r\n")),
        ("quoted", md("name: quoted\ndescription: \u{feff}'kept quotes'\nbad: a: b\n", "q\n")),
        ("nbsp", md("name: nbsp\ndescription: \u{a0}| an opener after a no-break space\nbad: [\n", "n\n")),
    ];
    for (dir, text) in &files {
        tree.file(&format!("{dir}/SKILL.md"), text);
    }
    Case::new("U+FEFF before an opener").root(tree.root()).check_after(without_bom);
}
