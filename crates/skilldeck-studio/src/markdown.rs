//! The rendered preview of a skill's body: CommonMark (with tables and
//! strikethrough) to HTML, where the author's own HTML is shown as text
//! and links can only lead to web pages, never run script.

use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, html};

/// `markdown` as HTML safe to put in a page: raw HTML blocks and inline
/// HTML become text (escaped), and a link or image whose destination is
/// not `http:`, `https:`, `mailto:`, a path or a fragment points nowhere.
pub(crate) fn render(markdown: &str) -> String {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    let events = Parser::new_ext(markdown, options).map(|event| match event {
        Event::Html(text) | Event::InlineHtml(text) => Event::Text(text),
        Event::Start(Tag::Link { link_type, dest_url, title, id }) => {
            Event::Start(Tag::Link { link_type, dest_url: safe_url(dest_url), title, id })
        }
        Event::Start(Tag::Image { link_type, dest_url, title, id }) => {
            Event::Start(Tag::Image { link_type, dest_url: safe_url(dest_url), title, id })
        }
        other => other,
    });
    let mut out = String::new();
    html::push_html(&mut out, events);
    out
}

fn safe_url(url: CowStr<'_>) -> CowStr<'_> {
    let lower = url.trim_start().to_ascii_lowercase();
    let scheme = lower.split_once(':').map(|(s, _)| s).filter(|s| !s.contains(['/', '?', '#']));
    match scheme {
        None | Some("http" | "https" | "mailto") => url,
        Some(_) => CowStr::Borrowed("#"),
    }
}

/// The body of a `SKILL.md` text for the preview: what follows the closing
/// `---` fence line, or the whole text when there is no frontmatter. The
/// engine's own reader decides what a save accepts; this only picks what
/// to show.
pub(crate) fn body_of(content: &str) -> &str {
    let content = content.strip_prefix('\u{feff}').unwrap_or(content);
    let Some(rest) = content.strip_prefix("---\n").or_else(|| content.strip_prefix("---\r\n")) else {
        return content;
    };
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        offset += line.len();
        if line.trim_end_matches(['\n', '\r']) == "---" {
            return &rest[offset..];
        }
    }
    content
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_html_is_text_and_script_links_go_nowhere() {
        let out = render(
            "# Hi\n\n<script>alert(1)</script>\n\nx <b onclick=\"a()\">y</b> [c](javascript:alert(1)) [d](https://e.example/) ![i](data:x)\n",
        );
        assert_eq!(
            out,
            "<h1>Hi</h1>\n&lt;script&gt;alert(1)&lt;/script&gt;\n<p>x &lt;b onclick=\"a()\"&gt;y&lt;/b&gt; <a href=\"#\">c</a> <a href=\"https://e.example/\">d</a> <img src=\"#\" alt=\"i\" /></p>\n"
        );
    }

    #[test]
    fn the_body_follows_the_fence() {
        assert_eq!(body_of("---\nname: x\n---\n\n# T\n"), "\n# T\n");
        assert_eq!(body_of("no fence"), "no fence");
        assert_eq!(body_of("---\nname: x\n"), "---\nname: x\n");
    }
}
