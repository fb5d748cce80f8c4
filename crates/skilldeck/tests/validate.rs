//! `validate` against the real `skills-ref` 0.1.1 (`agentskills validate`).
//!
//! The corpus below is built in a temporary directory: skills that each break
//! one rule (a few break several, to pin the order), and valid ones. One
//! Python process (`tests/oracle/skillsref_oracle.py`) runs
//! `skills_ref.validate` on every path; for each, skilldeck's strict
//! diagnostics of the checks `skills-ref` has must be its list exactly, in
//! order, message for message, and skilldeck's other diagnostics must be the
//! extra checks the case names.
//!
//! One message is compared by its prefix only: `Invalid YAML in frontmatter:
//! ` is followed by the YAML reader's own words (strictyaml's there,
//! serde-saphyr's here). The deliberate differences (module docs of
//! `skilldeck::validate`, README "Compatibility") are pinned in
//! [`deliberate_differences`]: both sides' answers are asserted, so a change
//! on either side shows.
//!
//! The oracle runs with the Python at `SKILLDECK_SKILLSREF_PYTHON`, by default
//! `target/venvs/skillsref/bin/python`; `scripts/test` creates that venv. A
//! missing interpreter fails the tests.

use std::path::Path;

use serde_json::{Value, json};
use skilldeck::validate::{Check, Diagnostic, Severity, Validator};

use crate::util::{Oracle, Tree};

const YAML_PREFIX: &str = "Invalid YAML in frontmatter: ";

/// What a case puts at its path.
enum Make {
    /// A skill directory holding this file (name, bytes).
    File(&'static str, Vec<u8>),
    /// An empty directory.
    EmptyDir,
    /// Nothing at all.
    Nothing,
    /// A plain file where the skill directory would be.
    PlainFile,
}

struct Case {
    label: &'static str,
    /// The directory (the path validated), relative to the corpus root.
    dir: String,
    make: Make,
    /// skilldeck's checks beyond skills-ref's, in order.
    extras: Vec<Check>,
}

fn case(label: &'static str, dir: impl Into<String>, content: impl Into<Vec<u8>>) -> Case {
    Case { label, dir: dir.into(), make: Make::File("SKILL.md", content.into()), extras: Vec::new() }
}

impl Case {
    fn extras(mut self, extras: &[Check]) -> Case {
        self.extras = extras.to_vec();
        self
    }
}

/// A `SKILL.md` with this name and description lines (raw YAML values).
fn md(name: &str, description: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n# Title\n\nBody.\n")
}

/// A `SKILL.md` with this raw frontmatter text.
fn fm(yaml: &str) -> String {
    format!("---\n{yaml}---\nBody.\n")
}

fn corpus() -> Vec<Case> {
    let long_name = "a".repeat(65);
    let name_64 = "b".repeat(64);
    let ligatures = "\u{FB01}".repeat(33); // "ﬁ" ×33: 33 characters, 66 after NFKC
    let long_description = "d".repeat(1025);
    let accents_1025 = "é".repeat(1025);
    let accents_1000 = "é".repeat(1000);
    let body_lines = format!("---\nname: long-body\ndescription: Many lines.\n---\n{}", "line\n".repeat(501));
    let body_tokens = format!("---\nname: wordy-body\ndescription: Many words.\n---\n{}\n", "x".repeat(20_004));
    let with = |extra: &str| format!("---\nname: SELF\ndescription: A skill.\n{extra}---\nBody.\n");
    let named = |dir: &str, extra: &str| with(extra).replace("SELF", dir);
    vec![
        // Valid skills.
        case("valid", "valid-basic", md("valid-basic", "Does one thing well.")),
        case(
            "every allowed field",
            "all-fields",
            named(
                "all-fields",
                "license: Apache-2.0\ncompatibility: Needs git and network access\nallowed-tools: Bash(git:*) Read\nmetadata:\n  author: someone\n  version: \"1.0\"\n",
            ),
        ),
        case("CJK name", "技能", md("技能", "Chinese name.")),
        case("Cyrillic name", "мой-навык", md("мой-навык", "Cyrillic name.")),
        case("accented name", "café", md("café", "Accented name.")),
        case("NFD name, NFC directory", "café-nfd", md("cafe\u{301}-nfd", "Decomposed name.")),
        case("ligature name NFKC-matches its directory", "file-tool", md("\u{FB01}le-tool", "Ligature.")),
        case("ligature directory NFKC-matches the name", "\u{FB01}le-dir", md("file-dir", "Ligature directory.")),
        case("digits", "v2-tool", md("v2-tool", "Digits.")),
        case("all digits", "123", md("123", "Only digits.")),
        case("Arabic-Indic digits", "٣٤٥", md("٣٤٥", "Nd digits.")),
        case("superscript two becomes 2", "x2", md("x\u{B2}", "Superscript.")),
        case("YAML 1.1 boolean text", "true", md("true", "Boolean-looking name.")),
        case("float-looking name", "1e3", md("1e3", "Exponent-looking name.")),
        case("leading zero", "010", md("010", "Octal-looking name.")),
        case("quoted name", "quoted-name", md("\"quoted-name\"", "'Quoted description.'")),
        case("padded quoted name", "padded-name", md("\"  padded-name  \"", "Padded.")),
        case("NBSP-padded name", "nbsp-name", md("\"\u{A0}nbsp-name\u{A0}\"", "NBSP padded.")),
        case("CRLF", "crlf-skill", md("crlf-skill", "CRLF line ends.").replace('\n', "\r\n")),
        case(
            "literal block description",
            "block-desc",
            fm("name: block-desc\ndescription: |\n  Line one.\n  Line two.\n"),
        ),
        case("folded description", "folded-desc", fm("name: folded-desc\ndescription: >\n  folded\n  text\n")),
        case("multi-line plain description", "plain-multi", fm("name: plain-multi\ndescription: first\n  second\n")),
        case("number description", "number-desc", md("number-desc", "42")),
        case("comments", "commented", fm("# a comment\nname: commented # trailing\ndescription: Has comments.\n")),
        case("64-character name", name_64.clone(), md(&name_64, "Longest name.")),
        case("1024-character description", "desc-1024", md("desc-1024", &"d".repeat(1024))),
        case("1000 two-byte characters", "desc-accents", md("desc-accents", &accents_1000)),
        case(
            "500-character compatibility",
            "compat-500",
            named("compat-500", &format!("compatibility: {}\n", "c".repeat(500))),
        ),
        case("description with a spaced triple hyphen", "spaced-dashes", md("spaced-dashes", "Turn A --- B into C.")),
        case(
            "metadata with a number-looking value",
            "meta-version",
            named("meta-version", "metadata:\n  version: 1.0\n"),
        ),
        // Files and frontmatter.
        Case { label: "empty directory", dir: "empty-dir".into(), make: Make::EmptyDir, extras: vec![] },
        Case { label: "path that does not exist", dir: "no-such-dir".into(), make: Make::Nothing, extras: vec![] },
        Case { label: "a file, not a directory", dir: "notes.txt".into(), make: Make::PlainFile, extras: vec![] },
        Case {
            label: "lowercase skill.md",
            dir: "lower-file".into(),
            make: Make::File("skill.md", md("lower-file", "Lowercase file name.").into_bytes()),
            extras: vec![Check::SkillMdName],
        },
        case("no frontmatter", "no-front", "# Just markdown\n\nNo frontmatter here.\n"),
        case("empty file", "empty-file", ""),
        case("unclosed frontmatter", "unclosed", "---\nname: unclosed\ndescription: Never closed.\n"),
        case("empty frontmatter", "empty-front", "---\n---\nBody.\n"),
        case("comment-only frontmatter", "comment-front", "---\n# nothing\n---\nBody.\n"),
        case("scalar frontmatter", "scalar-front", "---\njust some text\n---\nBody.\n"),
        case("sequence frontmatter", "list-front", "---\n- a\n- b\n---\nBody.\n"),
        case("colon in a plain value", "colon-value", md("colon-value", "Use this skill when: the user asks")),
        case("duplicate key", "dup-key", fm("name: dup-key\nname: dup-key\ndescription: Twice.\n")),
        case("bad indentation", "bad-indent", fm("name: bad-indent\n  description: x\n:\n")),
        // Allowed fields.
        case("one unexpected field", "extra-field", named("extra-field", "author: me\n")),
        case("unexpected fields, sorted", "extra-fields", named("extra-fields", "zeta: 1\nalpha: 2\nversion: 3\n")),
        case(
            "Claude Code fields",
            "cc-fields",
            named("cc-fields", "disable-model-invocation: true\nargument-hint: '[file]'\n"),
        ),
        // Required fields.
        case("missing name", "no-name", fm("description: No name.\n")),
        case("missing description", "no-desc", fm("name: no-desc\n")),
        case("missing both", "no-both", fm("license: MIT\n")),
        case("empty quoted name", "empty-name", md("\"\"", "Empty name.")),
        case("blank name", "blank-name", md("\"   \"", "Blank name.")),
        case("empty plain name", "null-name", fm("name:\ndescription: Empty value.\n")),
        case("list name", "list-name", fm("name:\n  - a\n  - b\ndescription: A list.\n")),
        case("map name", "map-name", fm("name:\n  first: a\ndescription: A map.\n")),
        // Name rules.
        case("name over 64", long_name.clone(), md(&long_name, "Too long.")),
        case("name over 64 after NFKC", ligatures.nfkc_string(), md(&ligatures, "Ligatures.")),
        case("uppercase", "MySkill", md("MySkill", "Uppercase.")),
        case("Greek capital", "Ωmega", md("Ωmega", "Greek capital.")),
        case("dotted capital I", "İstanbul", md("İstanbul", "Turkish capital.")),
        case("Roman numeral capital", "XII", md("\u{216B}", "Roman numeral twelve.")),
        case("leading hyphen", "-lead", md("-lead", "Leading hyphen.")),
        case("trailing hyphen", "trail-", md("trail-", "Trailing hyphen.")),
        case("consecutive hyphens", "two--dash", md("two--dash", "Double hyphen.")),
        case("underscore", "snake_case", md("snake_case", "Underscore.")),
        case("space", "two words", md("two words", "A space.")),
        case("dot", "1.0", md("1.0", "Float-looking name.")),
        case("hex-looking name", "0x1F", md("0x1F", "Hex-looking name.")),
        case("emoji", "rocket-🚀", md("rocket-🚀", "An emoji.")),
        case("directory mismatch", "other-dir", md("some-skill", "Wrong directory.")),
        case("everything wrong with the name", "bad-name-dir", md("-Bad--Name_", "Many problems.")),
        // Description and compatibility.
        case("empty description", "empty-desc", md("empty-desc", "\"\"")),
        case("blank description", "blank-desc", md("blank-desc", "\"  \"")),
        case("description over 1024", "long-desc", md("long-desc", &long_description)),
        case("1025 two-byte characters", "long-accents", md("long-accents", &accents_1025)),
        case("list description", "list-desc", fm("name: list-desc\ndescription:\n  - a\n")),
        case("compatibility list", "compat-list", named("compat-list", "compatibility:\n  - linux\n")),
        case("compatibility map", "compat-map", named("compat-map", "compatibility:\n  os: linux\n")),
        case(
            "compatibility over 500",
            "compat-501",
            named("compat-501", &format!("compatibility: {}\n", "c".repeat(501))),
        ),
        case("several rules at once", "Several", fm("name: Several\ncolor: blue\ncompatibility:\n  - x\n")).extras(&[]),
        // Checks skills-ref does not have.
        case("empty compatibility", "compat-empty", named("compat-empty", "compatibility: \"\"\n"))
            .extras(&[Check::CompatibilityEmpty]),
        case("null compatibility", "compat-null", named("compat-null", "compatibility:\n"))
            .extras(&[Check::CompatibilityEmpty]),
        case("license list", "license-list", named("license-list", "license:\n  - MIT\n  - Apache-2.0\n"))
            .extras(&[Check::LicenseType]),
        case("allowed-tools list", "tools-list", named("tools-list", "allowed-tools:\n  - Read\n  - Bash\n"))
            .extras(&[Check::AllowedToolsType]),
        case("metadata string", "meta-string", named("meta-string", "metadata: none\n")).extras(&[Check::MetadataType]),
        case("metadata nested", "meta-nested", named("meta-nested", "metadata:\n  tags:\n    - a\n  ok: yes\n"))
            .extras(&[Check::MetadataType]),
        case("reserved word claude", "claude-helper", md("claude-helper", "Helps.")).extras(&[Check::ReservedWord]),
        case("reserved word anthropic", "anthropic-tools", md("anthropic-tools", "Tools."))
            .extras(&[Check::ReservedWord]),
        case("XML tag in the description", "xml-desc", md("xml-desc", "Wrap output in <result> tags."))
            .extras(&[Check::XmlTag]),
        case("comparison is not a tag", "not-xml", md("not-xml", "Use when a < b and c > d.")),
        case("body over 500 lines", "long-body", body_lines).extras(&[Check::BodyLines]),
        case("body over 5000 tokens", "wordy-body", body_tokens).extras(&[Check::BodyTokens]),
    ]
}

/// NFKC, for directory names that must equal a normalised skill name.
trait Nfkc {
    fn nfkc_string(&self) -> String;
}

impl Nfkc for String {
    fn nfkc_string(&self) -> String {
        use unicode_normalization::UnicodeNormalization;
        self.nfkc().collect()
    }
}

fn build(tree: &Tree, cases: &[Case]) {
    for case in cases {
        let path = tree.path(&case.dir);
        match &case.make {
            Make::File(name, bytes) => {
                tree.file(&format!("{}/{name}", case.dir), bytes);
            }
            Make::EmptyDir => {
                tree.dir(&case.dir);
            }
            Make::Nothing => assert!(!path.exists()),
            Make::PlainFile => {
                tree.file(&case.dir, "not a skill\n");
            }
        }
    }
}

fn path_str(path: &Path) -> String {
    path.to_str().expect("UTF-8 temp path").to_owned()
}

fn strict(path: &Path) -> Vec<Diagnostic> {
    Validator::new().strict(true).validate(path).into_iter().flat_map(|r| r.diagnostics).collect()
}

/// skills-ref's messages, compared with the YAML reader's words cut off.
fn comparable(message: &str) -> &str {
    if message.starts_with(YAML_PREFIX) { YAML_PREFIX } else { message }
}

#[test]
fn strict_messages_equal_skills_ref_for_every_check_it_has() {
    let cases = corpus();
    assert!(cases.len() >= 60, "the corpus has {} cases", cases.len());
    let tree = Tree::new();
    build(&tree, &cases);
    let paths: Vec<String> = cases.iter().map(|c| path_str(&tree.path(&c.dir))).collect();
    let answer = Oracle::SKILLSREF.ask(&json!({"validate": paths}));
    let answers = answer["validate"].as_array().expect("validate answers");
    assert_eq!(answers.len(), cases.len());
    let dump = std::env::var_os("SKILLDECK_DIFFERENTIAL_DUMP").is_some();
    let mut failures = Vec::new();
    let (mut valid, mut invalid) = (0, 0);
    for (case, answer) in cases.iter().zip(answers) {
        let Some(theirs) = answer["errors"].as_array() else {
            failures.push(format!("{}: skills-ref crashed: {}", case.label, answer["crash"]));
            continue;
        };
        let theirs: Vec<&str> = theirs.iter().map(|e| comparable(e.as_str().expect("string"))).collect();
        let diagnostics = strict(&tree.path(&case.dir));
        assert!(diagnostics.iter().all(|d| d.severity == Severity::Error), "{}: strict gives errors only", case.label);
        let ours: Vec<&str> =
            diagnostics.iter().filter(|d| d.check.is_skills_ref()).map(|d| comparable(&d.message)).collect();
        let extras: Vec<Check> = diagnostics.iter().map(|d| d.check).filter(|c| !c.is_skills_ref()).collect();
        if dump {
            println!("{}: skills-ref {theirs:?}\n  skilldeck {ours:?} + {extras:?}", case.label);
        }
        if ours != theirs {
            failures.push(format!("{}:\n  skills-ref: {theirs:?}\n  skilldeck:  {ours:?}", case.label));
        }
        if extras != case.extras {
            failures.push(format!("{}: extra checks {extras:?}, expected {:?}", case.label, case.extras));
        }
        if theirs.is_empty() { valid += 1 } else { invalid += 1 }
    }
    assert!(failures.is_empty(), "{} of {} cases differ:\n{}", failures.len(), cases.len(), failures.join("\n"));
    assert!(valid >= 20 && invalid >= 40, "{valid} valid and {invalid} invalid cases");
}

/// Inputs where skilldeck and skills-ref disagree on purpose: both answers pinned.
#[test]
fn deliberate_differences() {
    let tree = Tree::new();
    let cases: Vec<(&str, &str, Vec<u8>)> = vec![
        // skills-ref splits at any `---`: the name is cut to `a`, and the rest
        // of the frontmatter lands in the body.
        ("triple hyphen in a name", "a---b", md("a---b", "Cut short.").into_bytes()),
        ("byte-order mark", "bom-skill", [b"\xEF\xBB\xBF".as_slice(), md("bom-skill", "BOM.").as_bytes()].concat()),
        ("null name", "null-tilde", md("~", "Tilde name.").into_bytes()),
        ("null description", "null-desc", md("null-desc", "null").into_bytes()),
        ("flow mapping", "flow-meta", fm("name: flow-meta\ndescription: Flow.\nmetadata: {a: b}\n").into_bytes()),
        ("anchor and alias", "anchors", fm("name: anchors\ndescription: &d Same.\nlicense: *d\n").into_bytes()),
        ("invalid UTF-8 in the body", "latin1-body", [md("latin1-body", "Latin-1.").as_bytes(), b"caf\xE9\n"].concat()),
        (
            "invalid UTF-8 in the frontmatter",
            "latin1-front",
            b"---\nname: latin1-front\ndescription: caf\xE9\n---\nBody.\n".to_vec(),
        ),
        ("four-hyphen opening", "four-dash", format!("-{}", md("four-dash", "Four.")).into_bytes()),
    ];
    for (_, dir, bytes) in &cases {
        tree.file(&format!("{dir}/SKILL.md"), bytes);
    }
    let paths: Vec<String> = cases.iter().map(|(_, dir, _)| path_str(&tree.path(dir))).collect();
    let answer = Oracle::SKILLSREF.ask(&json!({"validate": paths}));
    let theirs: Vec<Value> = answer["validate"].as_array().expect("answers").clone();
    let ours: Vec<Vec<(Check, String)>> = cases
        .iter()
        .map(|(_, dir, _)| strict(&tree.path(dir)).into_iter().map(|d| (d.check, d.message)).collect())
        .collect();
    let errors = |i: usize| -> Vec<String> {
        theirs[i]["errors"]
            .as_array()
            .map(|e| e.iter().map(|m| m.as_str().expect("str").to_owned()).collect())
            .unwrap_or_default()
    };
    let s = |m: &str| m.to_owned();

    assert_eq!(
        errors(0),
        [
            s("Directory name 'a---b' must match skill name 'a'"),
            s("Missing required field in frontmatter: description")
        ]
    );
    assert_eq!(ours[0], [(Check::NameConsecutiveHyphens, s("Skill name cannot contain consecutive hyphens"))]);

    assert_eq!(errors(1), [s("SKILL.md must start with YAML frontmatter (---)")]);
    assert_eq!(ours[1].iter().map(|d| d.0).collect::<Vec<_>>(), [Check::ByteOrderMark]);

    assert_eq!(
        errors(2),
        [
            s("Skill name '~' contains invalid characters. Only letters, digits, and hyphens are allowed."),
            s("Directory name 'null-tilde' must match skill name '~'")
        ]
    );
    assert_eq!(ours[2], [(Check::NameEmpty, s("Field 'name' must be a non-empty string"))]);

    assert_eq!(errors(3), Vec::<String>::new());
    assert_eq!(ours[3], [(Check::DescriptionEmpty, s("Field 'description' must be a non-empty string"))]);

    for i in [4, 5] {
        assert_eq!(errors(i).len(), 1, "{}", cases[i].0);
        assert!(errors(i)[0].starts_with(YAML_PREFIX), "{}: {:?}", cases[i].0, errors(i));
        assert_eq!(ours[i], [], "{}", cases[i].0);
    }

    for i in [6, 7] {
        assert!(
            theirs[i]["crash"].as_str().is_some_and(|c| c.starts_with("UnicodeDecodeError")),
            "{}: {}",
            cases[i].0,
            theirs[i]
        );
    }
    assert_eq!(ours[6].iter().map(|d| d.0).collect::<Vec<_>>(), [Check::BodyEncoding]);
    assert_eq!(ours[7], [(Check::Unreadable, s("the frontmatter is not valid UTF-8"))]);

    assert_eq!(errors(8).len(), 1, "{:?}", errors(8));
    assert_eq!(ours[8], [(Check::NoFrontmatter, s("SKILL.md must start with YAML frontmatter (---)"))]);
}

/// `read_properties` against skills-ref's `read_properties` (the JSON its CLI
/// prints), on valid skills and on each way it can refuse one.
#[test]
fn read_properties_matches_skills_ref() {
    let tree = Tree::new();
    let cases: Vec<(&str, String)> = vec![
        ("basic", md("basic", "Does one thing.")),
        (
            "all",
            fm(
                "name: all\ndescription: |\n  Two\n  lines.\nlicense: MIT\ncompatibility: Linux only\nallowed-tools: Read Bash(git:*)\nmetadata:\n  author: me\n  version: 1.0\n",
            ),
        ),
        ("padded", md("\"  padded  \"", "\"  Padded description.  \"")),
        ("unicode", md("技能", "Beschreibung mit Umlauten, äöü")),
        ("numbers", fm("name: numbers\ndescription: 42\nlicense: 2.0\ncompatibility: true\n")),
        ("empty-meta", fm("name: empty-meta\ndescription: x\nmetadata: ''\n")),
        ("no-name", fm("description: x\n")),
        ("no-desc", fm("name: no-desc\n")),
        ("blank-name", md("' '", "x")),
        ("blank-desc", md("blank-desc", "''")),
        ("unclosed", "---\nname: unclosed\n".to_owned()),
        ("plain", "no frontmatter\n".to_owned()),
        // Pinned difference: skills-ref cuts the description at ` --- `.
        ("dashes", md("dashes", "Turn A --- B into C.")),
    ];
    for (dir, text) in &cases {
        tree.file(&format!("{dir}/SKILL.md"), text);
    }
    tree.dir("no-skill-md");
    let mut paths: Vec<String> = cases.iter().map(|(dir, _)| path_str(&tree.path(dir))).collect();
    paths.push(path_str(&tree.path("no-skill-md")));
    paths.push(path_str(&tree.path("basic/SKILL.md")));
    let answer = Oracle::SKILLSREF.ask(&json!({"read_properties": paths}));
    let answers = answer["read_properties"].as_array().expect("answers");
    let dashes = paths.iter().position(|p| p.ends_with("/dashes")).expect("dashes");
    assert_eq!(answers[dashes]["json"], "{\n  \"name\": \"dashes\",\n  \"description\": \"Turn A\"\n}");
    let ours = skilldeck::validate::read_properties(&paths[dashes]).expect("dashes reads");
    assert_eq!(ours.description, "Turn A --- B into C.");
    for (path, theirs) in paths.iter().zip(answers).filter(|(p, _)| !p.ends_with("/dashes")) {
        let ours = skilldeck::validate::read_properties(path);
        match (&ours, theirs["json"].as_str(), theirs["error"].as_str()) {
            (Ok(props), Some(json), _) => {
                let expected: serde_json::Map<String, Value> = serde_json::from_str(json).expect("JSON");
                let got: Vec<(String, Value)> = props.entries().into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
                let expected: Vec<(String, Value)> = expected.into_iter().collect();
                assert_eq!(got, expected, "{path}");
            }
            (Err(diagnostic), _, Some(error)) => assert_eq!(diagnostic.message, error, "{path}"),
            _ => panic!("{path}: skilldeck {ours:?}, skills-ref {theirs}"),
        }
    }
}
