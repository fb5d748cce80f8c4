//! The reading without the parser, held to the parser: for any generated
//! frontmatter of the shapes real skills have (and many a little outside
//! them), `mapping` gives exactly what serde-saphyr gives, or nothing.

use proptest::prelude::*;

use super::*;

/// Whether `yaml` is read here; when it is, it must read as the parser reads it.
fn agrees(yaml: &str) -> bool {
    super::super::tests::assert_plain_as_yaml(yaml)
}

#[test]
fn real_shapes_are_read_as_yaml_reads_them() {
    for yaml in [
        // A registry's most common shapes (bench/frontmatter_mix.py).
        "name: box-automation\ndescription: \"Automate Box: upload, \\\"search\\\" and share.\"\nrequires:\n  mcp: [rube]\n",
        "name: task-intelligence\ndescription: \"Protocolo de Inteligência Pré-Tarefa — ativa TODOS os agentes.\"\nrisk: none\nsource: community\ndate_added: '2026-03-06'\nauthor: renat\ntags:\n- planning\n- pre-task\ntools:\n- claude-code\n",
        "name: video-to-gif\ndescription: 'It''s FFmpeg - by microsoft/hve-core'\nlicense: MIT\nmetadata:\n  authors: \"microsoft/hve-core\"\n  spec_version: \"1.0\"\n  version: 1.0\n  count: 12\n  beta: false\n  nothing: ~\n",
        "name: n\nallowed-tools: Read, Write, Bash(git:*)\n",
        "name: n\nallowed-tools: [Read, \"Bash(git *)\", 'Write']\n",
        "name: n\ndescription: >\n  Runs a huddle.\n  Trigger on \"war room\".\n\n  Second paragraph.\n",
        "name: n\ndescription: >-\n  Folded\n  and stripped.\n\n\n",
        "name: n\ndescription: |\n  line one\n    indented\n\n  # not a comment\n",
        "name: n\ndescription: |- # a comment\n  stripped\n# a trailing comment\nlicense: MIT\n",
        "# leading comment\n\nname: n # trailing\n\ndescription: d\n  # indented comment\nmetadata:\n  nested:\n    deeper: [1, 2.5, true, null, x]\n  list:\n    - a\n    - 'b'\n    - [c]\n",
        "name: n\ndescription: \"\\t\\u00e9\\x41\\U0001F600\\/\\\\ \\N\\_\"\n",
        "name: n\ntriggers: []\nversion: 010\nsize: 1_000\nhex: 0x1F\nneg: -1\nexp: 1e3\nbig: .inf\nnot: .nan\n",
        "name: C# and F#\ndescription: a:b http://e.com [x] {y} 'q' ? !\n",
        "name: n\ndescription: Reduce attack surface with distroless images that contain\n  only the runtime [no shell], *no* package manager.\n\n  Second paragraph.\ndomain: x\n",
        "name: n\ndescription: 'Reverse engineers .NET malware with Eric Zimmerman''s tools to\n  analyze C#/VB.NET code: stealers, RATs.\n  # still text'\n",
        "name: s\ndescription: 'Generate with\n\n  market, and strategy\n\n  '\nrisk: unknown\n",
        "name: n\ndescription: \"Use when: (1) a \\\"quote\\\"\n    (2) more   \n\n  end\" # c\nx: y\n",
    ] {
        assert!(agrees(yaml), "{yaml:?} should be read without the parser");
    }
}

#[test]
fn outside_the_subset_is_declined() {
    for yaml in [
        "name: n\ndescription: a # c\n  continued\n",
        "name: n\ndescription: a\n  continued: no\n",
        "name: n\ndescription: ends with a colon:\n\n  continued\n",
        "name: n\ndescription: ?\n\n  $\n",
        "name: n\ndescription: -\n  x\n",
        "name: n\ndescription: a\n  - dash\n",
        "name: n\ndescription: \"two\nlines\"\n",
        "name: n\ndescription: \"unclosed\n  lines\n",
        "name: n\ndescription: \"escaped \\\n  break\"\n",
        "name: n\nmeta: {a: b}\n",
        "name: n\nmeta:\n  a: b\n   c: d\n",
        "name: n\nlist:\n  - a: b\n",
        "name: n\nlist:\n  -\n    x\n",
        "name: n\ndescription: |2\n  x\n",
        "name: n\ndescription: |+\n  x\n",
        "name: n\ndescription: >\n  a\n    more indented\n",
        "name: n\ndescription: |\n\n  leading blank\n",
        "name: n\ndescription: |\n",
        "name: n\ndescription: \"a\"b\n",
        "name: n\ndescription: \"a\"#b\n",
        "name: n\nx: [a,]\n",
        "name: n\nx: [a, [b]]\n",
        "name: n\nx: [a\n",
        "name: n\nx: \"\\q\"\n",
        "name: n\nx: \"\\x+1\"\n",
        "name: n\nx: \"\\u+0041\"\n",
        "name: n\nx: *a\n",
        "name: \"\u{feff}x\"\n",
        "name: x\u{2028}y\n",
        "name: x\u{85}y\n",
        "name: n\ndescription: [a, b]\n",
        "name: n\ndescription:\n  k: v\n",
        "name: 42\n",
        "  name: n\n",
        "name: n\n...\n",
        "name: n\n--- x\n",
    ] {
        assert!(mapping(yaml).is_none(), "{yaml:?} should go to the parser");
    }
}

/// A one-line scalar as an author might write it: plain, quoted, typed-looking.
fn scalar() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        4 => "[ -~]{1,6}",
        3 => "[A-Za-z]{1,6}",
        1 => "[éü—€😀\u{a0}\u{feff}\u{85}\u{2028}]{1,2}",
        2 => prop::sample::select(vec![
            "true", "True", "FALSE", "null", "Null", "~", "yes", "No", "on", "OFF", "y", "n", "inf", "Infinity", "nan",
            "NaN", ".inf", "-.inf", ".NaN", "1.0", "1.0.0", "0x1F", "0o17", "1_000", "1e3", "010", "-1", "+1", "0",
            "123456789012345678901234567890", "2024-01-01", ": ", ":", " #", "#", "'", "''", "\"", "\\\"", "\\n",
            "\\u00e9", "\\x", "\\q", "[", "]", "{", "}", ",", ", ", "&a", "*a", "!t", "|", ">", "@", "`", "%", "?",
            "- ", "-", "---", "...", "\\", "  ", "\t", "<<", "\r",
        ])
        .prop_map(str::to_owned),
    ];
    let text = proptest::collection::vec(piece, 1..5).prop_map(|p| p.concat());
    prop_oneof![
        3 => text.clone(),
        1 => text.clone().prop_map(|t| format!("\"{}\"", t.replace('\\', "\\\\").replace('"', "\\\""))),
        1 => text.clone().prop_map(|t| format!("\"{t}\"")),
        1 => text.clone().prop_map(|t| format!("'{}'", t.replace('\'', "''"))),
        1 => text.prop_map(|t| format!("'{t}'")),
    ]
}

/// What may follow a value on its line.
fn trail() -> impl Strategy<Value = &'static str> {
    prop_oneof![6 => Just(""), 1 => Just("  "), 1 => Just(" # c"), 1 => Just("# c"), 1 => Just(" #")]
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        5 => "[a-z][a-z0-9_-]{0,8}",
        2 => prop::sample::select(vec!["name", "description", "metadata", "allowed-tools", "tags"]).prop_map(str::to_owned),
        1 => prop::sample::select(vec!["Name", "true", "null", "no", "Y", "a.b", "1k", "-k", "_k", "<<", "k k", "\"q\""])
            .prop_map(str::to_owned),
    ]
}

/// A value: its text after `key:` and the lines under it, for a key at
/// indentation `n`.
fn value(n: usize, depth: u32) -> BoxedStrategy<String> {
    let pad = move |k: usize| " ".repeat(k);
    let inline = (scalar(), trail()).prop_map(|(s, t)| format!(" {s}{t}\n"));
    let flow = (proptest::collection::vec(scalar(), 0..4), trail())
        .prop_map(|(items, t)| format!(" [{}]{t}\n", items.join(", ")));
    let block = (
        prop::sample::select(vec!["|", "|-", ">", ">-", "|+", "|2", "> # c"]),
        proptest::collection::vec(
            prop_oneof![
                4 => "[ -~]{1,12}",
                1 => Just(String::new()),
                1 => Just("  more".to_owned()),
                1 => Just("# c".to_owned()),
            ],
            1..5,
        ),
        prop_oneof![4 => Just(2usize), 1 => Just(1), 1 => Just(4)],
    )
        .prop_map(move |(header, lines, extra)| {
            let body: String = lines
                .iter()
                .map(|l| if l.is_empty() { "\n".to_owned() } else { format!("{}{l}\n", pad(n + extra)) })
                .collect();
            format!(" {header}\n{body}")
        });
    // A scalar wrapped over lines, as YAML writers wrap long descriptions.
    let line = prop_oneof![4 => scalar(), 1 => Just(String::new()), 1 => "[ -~]{1,8}"];
    let wrapped = (
        prop::sample::select(vec!["", "", "\"", "'"]),
        proptest::collection::vec(line, 2..5),
        prop_oneof![4 => Just(2usize), 1 => Just(1), 1 => Just(0)],
        prop::sample::select(vec!["", "\"", "'", "\" # c", "' x"]),
    )
        .prop_map(move |(open, lines, extra, close)| {
            let mut text = format!(" {open}{}\n", lines[0]);
            for line in &lines[1..] {
                text += &if line.is_empty() { "\n".to_owned() } else { format!("{}{line}\n", pad(n + extra)) };
            }
            text.pop();
            format!("{text}{close}\n")
        });
    let empty = Just("\n".to_owned());
    let leaf = prop_oneof![6 => inline, 2 => flow, 2 => block, 2 => wrapped, 1 => empty].boxed();
    if depth == 0 {
        return leaf;
    }
    let list = (
        proptest::collection::vec((scalar(), trail()), 1..4),
        prop_oneof![2 => Just(2usize), 1 => Just(0), 1 => Just(1)],
    )
        .prop_map(move |(items, extra)| {
            let items: String = items.iter().map(|(s, t)| format!("{}- {s}{t}\n", pad(n + extra))).collect();
            format!("\n{items}")
        });
    let map = (
        proptest::collection::vec((key(), value(n + 2, depth - 1)), 1..4),
        prop_oneof![4 => Just(2usize), 1 => Just(1)],
    )
        .prop_map(move |(entries, extra)| {
            let entries: String = entries.iter().map(|(k, v)| format!("{}{k}:{v}", pad(n + extra))).collect();
            format!("\n{entries}")
        });
    prop_oneof![6 => leaf, 1 => list, 1 => map].boxed()
}

/// A frontmatter: entries at indentation 0, with comments and blank lines
/// between some of them.
fn frontmatter() -> impl Strategy<Value = String> {
    let filler = prop_oneof![8 => Just(""), 1 => Just("\n"), 1 => Just("# comment\n"), 1 => Just("  # indented\n")];
    proptest::collection::vec((filler, key(), value(0, 2)), 1..6)
        .prop_map(|entries| entries.iter().map(|(f, k, v)| format!("{f}{k}:{v}")).collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    #[test]
    fn the_reading_agrees_with_yaml(yaml in frontmatter()) {
        agrees(&yaml);
    }
}

/// The property above says nothing if the generator rarely lands in the
/// subset, or never outside it: both must be common.
#[test]
fn the_generator_covers_both_sides() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = frontmatter();
    let (mut read, mut nested, mut declined) = (0, 0, 0);
    for _ in 0..2000 {
        let yaml = strategy.new_tree(&mut runner).expect("a frontmatter").current();
        if agrees(&yaml) {
            read += 1;
            nested += usize::from(mapping(&yaml).is_some_and(|m| m.values().any(|v| v.is_object() || v.is_array())));
        } else {
            declined += 1;
        }
    }
    eprintln!("read {read}, of which nested {nested}; declined {declined}");
    assert!(read >= 300 && nested >= 100 && declined >= 400, "read {read}, nested {nested}, declined {declined}");
}

/// On a real tree (`SKILLDECK_FRONTMATTER_TREE`, e.g. the registry mirror
/// checked out by `bench/retrieval/fetch_tree.sh`): what share of its
/// frontmatters is read here, and that each agrees with the parser. Run with
/// `cargo test -p skilldeck --lib real_tree -- --ignored --nocapture`.
#[test]
#[ignore = "needs a tree of SKILL.md files (SKILLDECK_FRONTMATTER_TREE)"]
fn on_a_real_tree_most_frontmatters_are_read_here() {
    let Some(root) = std::env::var_os("SKILLDECK_FRONTMATTER_TREE") else {
        eprintln!("skipped: set SKILLDECK_FRONTMATTER_TREE to a tree of SKILL.md files");
        return;
    };
    let (mut total, mut read) = (0usize, 0usize);
    let mut dirs = vec![std::path::PathBuf::from(root)];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                dirs.push(path);
                continue;
            }
            if path.file_name() != Some("SKILL.md".as_ref()) {
                continue;
            }
            let Ok(bytes) = std::fs::read(&path) else { continue };
            let text = bytes.strip_prefix(super::super::BOM).unwrap_or(&bytes);
            let super::super::Fences::Closed { yaml_start, yaml_end, .. } = super::super::fences(text) else {
                continue;
            };
            let Ok(yaml) = std::str::from_utf8(&text[yaml_start..yaml_end]) else { continue };
            total += 1;
            let here = agrees(yaml);
            read += usize::from(here);
            if !here && std::env::var_os("SHOW_DECLINED").is_some() {
                eprintln!("DECLINED {yaml:?}");
            }
        }
    }
    eprintln!("{read} of {total} frontmatters read without the parser ({:.1} %)", read as f64 * 100.0 / total as f64);
}
