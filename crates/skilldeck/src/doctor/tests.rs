use serde_json::json;

use super::*;

fn terms(id: &str, identity: &[&str]) -> Vec<String> {
    Agent::new(AgentProfile::new(id)).identity(identity.iter().copied()).identity_terms()
}

#[test]
fn identity_terms_split_the_id_and_keep_metadata_whole() {
    assert_eq!(terms("biro-sp_centro.norte", &[]), ["biro", "centro", "norte"]);
    assert_eq!(terms("kino", &["  Kino Cosméticos ", "Kino", "kino"]), ["kino", "Kino Cosméticos", "Kino"]);
    // Short tokens and structural words (any case) are not identity.
    assert_eq!(terms("store-a", &["Loja", "BOT", "ab", "Assistente"]), Vec::<String>::new());
    assert_eq!(terms("loja biro\tsul", &[]), ["biro"]);
    // Four characters, not four bytes.
    assert_eq!(terms("x", &["Biró", "çãé"]), ["Biró"]);
}

#[test]
fn yaml_frontmatter_is_read_as_yaml() {
    let fm = tolerant_frontmatter("name: mapa\ncompanions: [query, pedido]\nmetadata:\n  eager: true\n");
    assert_eq!(fm.get("companions"), Some(&json!(["query", "pedido"])));
    assert!(!fm.contains_key("eager"));
}

#[test]
fn broken_yaml_is_read_line_by_line() {
    let fm = tolerant_frontmatter(
        "name: mapa\ndescription: Gift: no size gate\ncompanions: [query, pedido]\n  eager: false\n: x\nname: dois\n",
    );
    assert_eq!(fm.get("description"), Some(&json!("Gift: no size gate")));
    assert_eq!(fm.get("companions"), Some(&json!("[query, pedido]")));
    assert_eq!(fm.get("eager"), Some(&json!("false")));
    assert_eq!(fm.get("name"), Some(&json!("dois")));
    assert!(!fm.contains_key(""));
}

#[test]
fn a_frontmatter_without_a_name_is_read_line_by_line() {
    let fm = tolerant_frontmatter("description: d\neager: true\n");
    assert_eq!(fm.get("eager"), Some(&json!("true")));
}

#[test]
fn companions_split_every_element_on_commas() {
    let of = |v: serde_json::Value| declared_companions(Some(&v));
    assert_eq!(of(json!(["a, b", " c ", "", 7, true, null, ["x"], {"y": 1}])), ["a", "b", "c", "7", "true"]);
    assert_eq!(of(json!("a,b ,, c")), ["a", "b", "c"]);
    assert_eq!(of(json!("[query, pedido]")), ["[query", "pedido]"]);
    assert_eq!(of(json!(3)), ["3"]);
    assert_eq!(of(json!(null)), Vec::<String>::new());
    assert_eq!(declared_companions(None), Vec::<String>::new());
}

#[test]
fn sources_split_frontmatter_and_body() {
    let source = Source::new("s".into(), "\u{FEFF}---\nname: s\neager: 1\ncompanions: q\n---\nthe body\n".into());
    assert!(source.eager);
    assert_eq!(source.companions, ["q"]);
    assert_eq!(source.body(), "the body\n");

    let plain = Source::new("p".into(), "eager: true\nno frontmatter\n".into());
    assert!(!plain.eager);
    assert_eq!(plain.body(), "eager: true\nno frontmatter\n");

    let unclosed = Source::new("u".into(), "---\neager: true\n".into());
    assert!(!unclosed.eager);
    assert_eq!(unclosed.body(), "---\neager: true\n");
}

#[test]
fn severities_render_as_insika() {
    let glyphs: Vec<_> = [Status::Ok, Status::Info, Status::Warn, Status::Error].map(Status::glyph).into();
    assert_eq!(glyphs, ["✓", "•", "!", "✗"]);
    assert_eq!(Status::Warn.as_str(), "warn");
    assert!(Status::Ok < Status::Info && Status::Warn < Status::Error);
}
