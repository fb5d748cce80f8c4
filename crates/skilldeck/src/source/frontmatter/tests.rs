use proptest::prelude::*;

use super::*;

fn closed(text: &str) -> (String, String) {
    match fences(text.as_bytes()) {
        Fences::Closed { yaml_start, yaml_end, body_start } => {
            (text[yaml_start..yaml_end].to_owned(), text[body_start..].to_owned())
        }
        other => panic!("{text:?}: expected closed fences, got {other:?}"),
    }
}

#[test]
fn fence_rules() {
    assert_eq!(
        closed("---\nname: x\ndescription: d\n---\nbody\n"),
        ("name: x\ndescription: d\n".into(), "body\n".into())
    );
    assert_eq!(closed("---\r\nname: x\r\n---\r\nbody\r\n"), ("name: x\r\n".into(), "body\r\n".into()));
    assert_eq!(closed("---\nname: x\n---"), ("name: x\n".into(), "".into()));
    assert_eq!(closed("---\nname: x\n---   \nbody"), ("name: x\n".into(), "body".into()));
    assert_eq!(closed("---\n---\nbody"), ("".into(), "body".into()));
    assert_eq!(closed("---\nname: m\n---\nmore: x\n---\nb"), ("name: m\n".into(), "more: x\n---\nb".into()));
    // `----` and `--- x` are not closing lines; a later `---` is.
    assert_eq!(closed("---\na: 1\n----\n--- x\n---\nb"), ("a: 1\n----\n--- x\n".into(), "b".into()));
    assert_eq!(fences(b"--- \nname: x\n---\n"), Fences::None);
    assert_eq!(fences(b" ---\nname: x\n---\n"), Fences::None);
    assert_eq!(fences(b"---\rname: x\r---\r"), Fences::None);
    assert_eq!(fences(b"# Just a body\n"), Fences::None);
    assert_eq!(fences(b"---\nname: x\nno close\n"), Fences::Unclosed);
    assert_eq!(fences(b""), Fences::None);
}

fn head(yaml: &str) -> Head {
    parse(yaml, 2, FrontmatterMode::Lenient).unwrap_or_else(|e| panic!("{yaml:?}: {e:?}"))
}

fn name_of(yaml: &str) -> String {
    head(yaml).name.expect("name")
}

fn description_of(yaml: &str) -> Option<String> {
    head(&format!("name: n\n{yaml}")).description
}

#[test]
fn scalars_keep_the_authors_text() {
    assert_eq!(name_of("name: 1.0\n"), "1.0");
    assert_eq!(name_of("name: 42\n"), "42");
    assert_eq!(name_of("name: -0.0\n"), "-0.0");
    assert_eq!(name_of("name: true\n"), "true");
    assert_eq!(name_of("name: 123456789012345678901234567890\n"), "123456789012345678901234567890");
    for text in ["010", "0x1F", "0o17", "1_000", "1e3", "1e21", ".inf", "yes", "on", "True", "2024-01-01"] {
        assert_eq!(description_of(&format!("description: {text}\n")).as_deref(), Some(text), "{text}");
    }
}

#[test]
fn nulls_are_absent_and_empty_strings_are_present() {
    assert_eq!(description_of("description:\n"), None);
    assert_eq!(description_of("description: ~\n"), None);
    assert_eq!(description_of("description: null\n"), None);
    assert_eq!(description_of("description: \"\"\n"), Some(String::new()));
    assert_eq!(description_of("description: \"   \"\n"), Some(String::new()));
    assert_eq!(parse("name: null\n", 2, FrontmatterMode::Lenient), Err(HeadError::MissingName(None)));
    assert_eq!(parse("name: \"  \"\n", 2, FrontmatterMode::Lenient), Err(HeadError::MissingName(None)));
}

#[test]
fn yaml_resolves_quotes_blocks_comments_and_aliases() {
    assert_eq!(name_of("name: \"  padded  \"\n"), "padded");
    assert_eq!(name_of("name: \"\u{a0}nb\u{a0}\"\n"), "nb");
    assert_eq!(name_of("name: cmt # comment\n"), "cmt");
    assert_eq!(name_of("name:\tx\n"), "x");
    assert_eq!(name_of("base: &a v\nname: *a\n"), "v");
    assert_eq!(description_of("description: \"a\\tb\\u00e9\"\n").as_deref(), Some("a\tbé"));
    assert_eq!(description_of("description: |\n  line one\n  line two\n").as_deref(), Some("line one\nline two"));
    assert_eq!(
        description_of("description: >\n  Runs a huddle.\n  Trigger on \"war room\".\n").as_deref(),
        Some("Runs a huddle. Trigger on \"war room\".")
    );
}

#[test]
fn frontmatter_keeps_every_key_typed_as_yaml_1_2() {
    let head = head("name: n\nversion: 1.10\nflag: yes\nreal: true\nlist: [a, b]\nmeta:\n  k: v\n");
    let keys: Vec<&str> = head.frontmatter.keys().map(String::as_str).collect();
    assert_eq!(keys, ["name", "version", "flag", "real", "list", "meta"]);
    assert_eq!(head.frontmatter["flag"], Value::String("yes".into()));
    assert_eq!(head.frontmatter["real"], Value::Bool(true));
    assert_eq!(head.frontmatter["list"], serde_json::json!(["a", "b"]));
}

#[test]
fn triggers_and_companions_split_and_trim() {
    let head = head("name: n\ntriggers: a b, , c \ncompanions:\n  - x\n  - ' '\n  - y\n");
    assert_eq!(head.triggers, ["a b", "c"]);
    assert_eq!(head.companions, ["x", "y"]);
}

#[test]
fn refused_yaml_is_rescued_line_by_line() {
    let head = head("name: pdf\ndescription: Use when: the user asks\nextra: [x\n");
    assert_eq!(head.name.as_deref(), Some("pdf"));
    assert_eq!(head.description.as_deref(), Some("Use when: the user asks"));
    let problem = head.recovered.expect("recovered");
    assert!(problem.refused);
    assert_eq!(problem.position.map(|p| p.0), Some(3), "{problem}");
}

#[test]
fn the_fallback_takes_nothing_it_cannot_read_safely() {
    let head = head("name: 'quoted'\nname: second\ndescription: |\n  block\n  indented: no\n#c: no\nbad line\n: x\n");
    assert_eq!(head.name.as_deref(), Some("quoted"));
    assert_eq!(head.description, None);
    for opener in ["|", ">", "&a x", "*a", "[a", "{a", "!tag x"] {
        let yaml = format!("name: ok\nname: dup\ndescription: {opener}\n");
        assert_eq!(parse(&yaml, 2, FrontmatterMode::Lenient).map(|h| h.description), Ok(None), "{opener}");
    }
}

#[test]
fn duplicate_keys_are_refused_then_rescued_or_malformed() {
    let yaml = "name: first\nname: second\n";
    let head = head(yaml);
    assert_eq!(head.name.as_deref(), Some("first"));
    let problem = head.recovered.expect("recovered");
    assert_eq!(problem.to_string(), "duplicate mapping key: name at line 3, column 1");
    match parse(yaml, 2, FrontmatterMode::Strict) {
        Err(HeadError::Malformed(p)) => assert_eq!(p, problem),
        other => panic!("{other:?}"),
    }
    match parse("name: [unclosed\n", 2, FrontmatterMode::Lenient) {
        Err(HeadError::Malformed(p)) => assert_eq!(p.to_string(), "unclosed bracket '[' at line 2, column 7"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn shapes_that_are_not_a_frontmatter_mapping() {
    // A bare scalar or a list parses, but gives no name: missing-name, not malformed.
    assert!(matches!(parse("just text\n", 2, FrontmatterMode::Lenient), Err(HeadError::MissingName(Some(_)))));
    assert!(matches!(parse("- a\n- b\n", 2, FrontmatterMode::Lenient), Err(HeadError::MissingName(Some(_)))));
    assert!(matches!(parse("- a\n", 2, FrontmatterMode::Strict), Err(HeadError::Malformed(_))));
    assert_eq!(parse("", 2, FrontmatterMode::Lenient), Err(HeadError::MissingName(None)));
    assert_eq!(parse("description: only\n", 2, FrontmatterMode::Lenient), Err(HeadError::MissingName(None)));
    // A list `name` is not a name, and the line rule cannot rescue one.
    assert!(matches!(parse("name:\n  - a\n", 2, FrontmatterMode::Lenient), Err(HeadError::MissingName(Some(_)))));
    // A list `description` next to a good name: the name stands, nothing is invented.
    let head = head("name: n\ndescription: [a, b]\n");
    assert_eq!((head.name.as_deref(), head.description), (Some("n"), None));
}

/// A line that can never be read as a fence.
fn line() -> impl Strategy<Value = String> {
    "[a-z:# \\-\\t\"'|>]{0,12}".prop_filter("not a fence", |l| l.trim_end_matches([' ', '\r']) != "---")
}

proptest! {
    #[test]
    fn fences_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        let _ = fences(&bytes);
    }

    #[test]
    fn a_fenced_block_splits_back_exactly(yaml in proptest::collection::vec(line(), 0..6), body in ".{0,40}", crlf: bool) {
        let eol = if crlf { "\r\n" } else { "\n" };
        let yaml: String = yaml.iter().map(|l| format!("{l}{eol}")).collect();
        let text = format!("---{eol}{yaml}---{eol}{body}");
        prop_assert_eq!(closed(&text), (yaml, body));
    }

    #[test]
    fn parsing_never_panics(yaml in "[a-z:\\[\\]{}&*!|>#\\- \\n\"']{0,80}") {
        let _ = parse(&yaml, 2, FrontmatterMode::Lenient);
        let _ = parse(&yaml, 2, FrontmatterMode::Strict);
    }
}

/// What the YAML parser alone makes of `yaml`: name, description and
/// frontmatter, or `None` when YAML has anything to say against it.
pub(super) fn by_yaml(yaml: &str) -> Option<(Option<String>, Option<String>, Frontmatter)> {
    let mut head = Head::default();
    match read_yaml(yaml, 2, FrontmatterMode::Lenient, &mut head) {
        Ok(None) => Some((head.name, head.description, head.frontmatter)),
        _ => None,
    }
}

/// The plain reading must be exactly the parser's, wherever it applies.
pub(super) fn assert_plain_as_yaml(yaml: &str) -> bool {
    let Some(plain) = simple::mapping(yaml) else {
        return false;
    };
    let text = |key| match plain.get(key) {
        Some(Value::String(s)) => Some(s.clone()),
        _ => None,
    };
    let expected = by_yaml(yaml);
    assert_eq!(Some((text("name"), text("description"), plain.clone())), expected, "{yaml:?}");
    true
}

#[test]
fn plain_frontmatters_skip_the_parser_and_read_the_same() {
    for yaml in [
        "name: pdf\ndescription: Extract text from PDFs; use when the user asks for a summary.\n",
        "name: skill-00042\ndescription: Convert REST API specs into test fixtures, or [x] {y} 'q' \"r\" & * ! | > % @ ` ~.\n",
        "name: a\ndescription: x:y http://e.com a-b a_b a.b (c) - d ? e\nlicense: MIT\nallowed-tools: Read Write\n",
        "name:   spaced   \ndescription: trailing   \n",
        "name: nn\ntriggers: a b, c\ncompanions: x, y\n",
        "description: no name here\n",
    ] {
        assert!(assert_plain_as_yaml(yaml), "{yaml:?} should be read plainly");
    }
    let head = head("name: n\ntriggers: a b, , c \ndescription: d\n");
    assert_eq!((head.triggers, head.description.as_deref()), (vec!["a b".to_owned(), "c".to_owned()], Some("d")));
    assert_eq!(parse("description: no name here\n", 2, FrontmatterMode::Lenient), Err(HeadError::MissingName(None)));
}

#[test]
fn anything_else_is_left_to_the_parser() {
    for yaml in [
        "",
        "\n",
        "name: x",
        "name: x\r\n",
        "name: x\nname: y\n",
        "name:\tx\n",
        "name: 1.0\n",
        "name: true\n",
        "name: True\n",
        "name: null\n",
        "name: ~\n",
        "name: x\ndescription: Use when: the user asks\n",
        "name: x\ndescription: ends with a colon:\n",
        "name: x\ndescription:\n",
        "Name : x\n",
        "na me: x\n",
        "1name: x\n",
        "true: x\n",
        "a.b: x\n",
        "name: &a x\n",
        "name: [x]\n",
        "- name: x\n",
        "name:x\n",
    ] {
        assert!(simple::mapping(yaml).is_none(), "{yaml:?} should go to the parser");
    }
    // Read without the parser now, and the same as the parser reads them.
    for yaml in [
        "name: x\n\n",
        "name: x # comment\n",
        "name: C#\n",
        "name: 'quoted'\n",
        "name: \"quoted\"\n",
        "name: yes\n",
        "name: Inf\n",
        "name: NaN\n",
        "name: .inf\n",
        "name: x\ndescription: |\n  block\n",
        "name: x\nmeta:\n  k: v\n",
        "name: é\n",
    ] {
        assert!(assert_plain_as_yaml(yaml), "{yaml:?} should be read without the parser");
    }
    let long = format!("name: x\ndescription: {}\n", "a".repeat(5000));
    assert!(assert_plain_as_yaml(&long));
    let many: String = (0..513).map(|i| format!("k{i}: v\n")).collect();
    assert!(simple::mapping(&many).is_none());
}

/// A piece of a value: printable ASCII, or something YAML treats specially.
fn value_piece() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[ -~]{1,6}",
        2 => "[A-Za-z]{1,6}",
        1 => prop::sample::select(vec![
            "true", "True", "FALSE", "null", "Null", "~", "yes", "No", "on", "OFF", "y", "n", "inf", "Infinity", "nan",
            "NaN", ".inf", "1.0", "0x1F", "0o17", "1_000", "1e3", "010", "-1", "+1", "2024-01-01", ": ", ":", " #",
            "#", "'", "\"", "[", "]", "{", "}", ",", "&a", "*a", "!t", "!!str", "|", ">", "@", "`", "%", "?", "- ",
            "--- ", "... ", "\\", "  ", "\t", "<<",
        ])
        .prop_map(str::to_owned),
    ]
}

fn plain_line() -> impl Strategy<Value = String> {
    let key = prop_oneof![
        4 => "[a-z][a-z0-9_-]{0,8}",
        1 => prop::sample::select(vec![
            "name", "description", "triggers", "Name", "true", "null", "no", "Y", "inf", "a.b", "1k", "-k", "_k", "<<",
        ])
        .prop_map(str::to_owned),
    ];
    let sep = prop_oneof![6 => Just(": "), 1 => Just(":  "), 1 => Just(":"), 1 => Just(" : "), 1 => Just(":\t")];
    // Mostly starting with a letter, as a plain value must.
    let value =
        (prop_oneof![3 => "[A-Za-z]{1,3}", 1 => Just(String::new())], proptest::collection::vec(value_piece(), 0..6))
            .prop_map(|(first, rest)| first + &rest.concat());
    (key, sep, value).prop_map(|(k, s, v)| format!("{k}{s}{v}"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn the_plain_reading_agrees_with_yaml(lines in proptest::collection::vec(plain_line(), 1..5)) {
        let yaml: String = lines.iter().map(|l| format!("{l}\n")).collect();
        assert_plain_as_yaml(&yaml);
    }
}

#[test]
fn positions_count_only_newlines_as_line_breaks() {
    // YAML also breaks lines at a lone `\r`; the file's lines end at `\n`
    // (SPEC §3), so the refusal is on file line 3, the last of the YAML.
    let head = head("name: pdf\nx: y\r\r\r\rextra: [x\n");
    let problem = head.recovered.expect("recovered");
    assert_eq!(problem.position, Some((3, 16)), "{problem}");
    let Err(HeadError::MissingName(Some(problem))) = parse("x: y\r\r\rname: [a]\n", 2, FrontmatterMode::Lenient) else {
        panic!("a list is not a name");
    };
    assert_eq!(problem.position, Some((2, 14)), "{problem}");
}

#[test]
fn a_null_name_or_description_is_rescued_from_its_line() {
    // `## Skill Profile` is a YAML comment, so YAML reads the value as null;
    // toolnexus 0.21.0 rescues it line by line, and so does skilldeck.
    let profile = head("name: profile\ndescription: ## Skill Profile — who, what\nlicense: MIT\n");
    assert_eq!(profile.description.as_deref(), Some("## Skill Profile — who, what"));
    assert_eq!(profile.frontmatter["description"], Value::String("## Skill Profile — who, what".into()));
    assert_eq!(profile.frontmatter["license"], Value::String("MIT".into()));
    let problem = profile.recovered.expect("recovered");
    assert_eq!(problem.to_string(), "`description` is null in YAML, but its line holds text at line 3, column 14");
    assert!(!problem.refused);
    // A null name too; the position counts characters, not bytes.
    let named = parse("description: é\nname: # déjà vu\n", 2, FrontmatterMode::Lenient).expect("rescued");
    assert_eq!((named.name.as_deref(), named.description.as_deref()), (Some("# déjà vu"), Some("é")));
    let problem = named.recovered.map(|p| p.to_string());
    assert_eq!(problem.as_deref(), Some("`name` is null in YAML, but its line holds text at line 3, column 7"));
    // A bare `#` is text to the line rule, as to toolnexus.
    assert_eq!(description_of("description:   # \n").as_deref(), Some("#"));
    // An explicit key is not a column-0 `key:` line: nothing to rescue, no warning.
    let explicit = head("name: n\n? description\n: # no\n");
    assert_eq!((explicit.description, explicit.recovered), (None, None));
}

#[test]
fn a_null_that_its_line_spells_null_stays_absent() {
    for yaml in ["description:\n", "description: ~\n", "description: null\n", "description: NULL\n"] {
        let head = head(&format!("name: n\n{yaml}"));
        assert_eq!((head.description.as_deref(), &head.recovered), (None, &None), "{yaml:?}");
        assert_eq!(head.frontmatter["description"], Value::Null, "{yaml:?}");
    }
    // Also where YAML refused the block: the line's `null` is no text.
    let head = head("name: n\ndescription: null\nbad: [\n");
    assert_eq!(head.description, None);
    assert!(head.recovered.is_some_and(|p| p.refused));
    assert_eq!(
        parse("name: ~\nbad: [\n", 2, FrontmatterMode::Lenient).map(|h| h.name),
        Err(HeadError::Malformed(YamlProblem {
            message: "unclosed bracket '['".into(),
            position: Some((3, 6)),
            refused: true,
        }))
    );
}

#[test]
fn strict_mode_keeps_a_null_null() {
    let head = parse("name: n\ndescription: # Title\n", 2, FrontmatterMode::Strict).expect("parses");
    assert_eq!((head.description, head.recovered), (None, None));
}

#[test]
fn the_fallback_judges_a_value_as_toolnexus_does_then_trims_it() {
    // U+FEFF is not Python whitespace: toolnexus sees no `|` first and takes
    // the value; the ECMAScript trim then removes the U+FEFF (SPEC §3).
    let rescued = |value: &str| head(&format!("name: n\ndescription: {value}\nbad: [\n")).description;
    assert_eq!(rescued("\u{feff}| Skill Name | Purpose |").as_deref(), Some("| Skill Name | Purpose |"));
    assert_eq!(rescued("\u{feff}\"quoted\"").as_deref(), Some("\"quoted\""));
    assert_eq!(rescued("\u{feff}").as_deref(), Some(""));
    // Python does strip U+00A0, U+0085 and U+001C..U+001F: an opener behind them is still an opener.
    for space in ["\u{a0}", "\u{85}", "\u{1c}", "\u{3000}"] {
        assert_eq!(rescued(&format!("{space}| table")), None, "{space:?}");
        assert_eq!(rescued(&format!("{space}'quoted'{space}")).as_deref(), Some("quoted"), "{space:?}");
    }
    assert_eq!(rescued("\u{a0}\u{feff}> x").as_deref(), Some("> x"));
}
