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
