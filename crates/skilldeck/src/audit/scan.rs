//! One file of a skill, scanned: sniffed, read as text, and run past every
//! detector; its hits placed at file lines and columns.

use std::collections::HashSet;
use std::ops::Range;
use std::path::Path;

use super::allow::{self, Marker};
use super::lowering::{self, Named};
use super::markdown::{self, Markdown};
use super::patterns::{Compiled, Cue, PATTERNS, Role, Set};
use super::payload::{self, Content};
use super::rules::{Severity, known};
use super::view::{Fold, Lines, View, excerpt};
use super::{Finding, Hit, indirect, unicode};

/// How a file is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// Markdown: commands count in code blocks; quoted phrases are examples.
    Markdown,
    /// A script: every command counts; minified lines are findings.
    Script,
    /// Any other text: every command counts.
    Text,
}

const SCRIPT_EXTENSIONS: [&str; 19] = [
    "sh", "bash", "zsh", "ksh", "fish", "py", "pyw", "js", "mjs", "cjs", "ts", "rb", "pl", "php", "ps1", "psm1", "bat",
    "cmd", "lua",
];

/// A file's extension, lowercased (empty when it has none).
fn extension(rel: &Path) -> String {
    rel.extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default()
}

/// Whether `rel` is Markdown, by its extension.
pub(super) fn is_markdown(rel: &Path) -> bool {
    matches!(extension(rel).as_str(), "md" | "markdown" | "mdx")
}

pub(super) fn kind(rel: &Path, text: &str) -> Kind {
    let ext = extension(rel);
    if is_markdown(rel) {
        Kind::Markdown
    } else if SCRIPT_EXTENSIONS.contains(&ext.as_str()) || text.starts_with("#!") {
        Kind::Script
    } else {
        Kind::Text
    }
}

/// Whether a file is a shell script, by its extension or its `#!` line.
fn is_shell(rel: &Path, text: &str) -> bool {
    // The interpreter is the shebang's last word, after its last `/` or space.
    let shebang = text.lines().next().filter(|l| l.starts_with("#!")).unwrap_or("");
    let interpreter = shebang.rsplit(['/', ' ']).next().unwrap_or("");
    matches!(extension(rel).as_str(), "sh" | "bash" | "zsh" | "ksh")
        || matches!(interpreter, "sh" | "bash" | "zsh" | "ksh" | "dash")
}

/// What one file gave.
#[derive(Default)]
pub(super) struct Scanned {
    pub(super) findings: Vec<Finding>,
    /// Where the file sends data out: (line, column).
    pub(super) channels: Vec<(u64, u64)>,
    /// Its allow markers, with their positions.
    pub(super) markers: Vec<(Marker, (u64, u64))>,
}

/// Scans the file `rel` (relative to its skill) holding `content`.
/// `named` is what the skill says of itself, which may name the vendor an
/// installer comes from.
pub(super) fn scan_file(rel: &Path, content: &Content, compiled: &Compiled, named: &Named) -> Scanned {
    let mut hits = Vec::new();
    let mut scanned = Scanned::default();
    let text = match content {
        Content::Text(text) => text.as_str(),
        Content::Other(sniffed) => {
            payload::bundled(*sniffed, &mut hits);
            scanned.findings = hits.into_iter().map(|hit| hit.at(rel, (1, 1))).collect();
            return scanned;
        }
    };
    let lines = Lines::new(text);
    let kind = kind(rel, text);
    unicode::scan(text, kind == Kind::Script, &mut hits);
    payload::blobs(text, &mut hits);
    if kind == Kind::Script {
        payload::minified(&lines, &mut hits);
    }
    let markdown = (kind == Kind::Markdown).then(|| Markdown::new(text, &lines));
    let mut found = Found { hits, ..Found::default() };
    for (set, fold) in [(&compiled.phrase, Fold::Phrase), (&compiled.command, Fold::Command)] {
        let view = View::new(text, fold);
        matches(set, &view, &lines, markdown.as_ref(), named, &mut found);
        if fold == Fold::Command && is_shell(rel, text) {
            indirect::scan(set, &view, &lines, &mut found.hits, &mut found.channels);
        }
    }
    let Found { mut hits, channels, comments } = found;
    hidden_comments(comments, &lines, &mut hits);
    scanned.channels = channels.into_iter().map(|at| lines.position(at)).collect();
    scanned.markers =
        allow::markers(text, &lines).into_iter().map(|m| (m.offset, m)).map(|(o, m)| (m, lines.position(o))).collect();
    let mut seen = HashSet::new();
    for hit in hits {
        let position = lines.position(hit.offset);
        if seen.insert((hit.rule.id, position.0)) {
            scanned.findings.push(hit.at(rel, position));
        }
    }
    scanned.findings.sort_by_key(|f| (f.line, f.column));
    scanned
}

/// What a file's views gave, by byte offsets: hits, places data leaves,
/// and hidden comments with the cues found in each.
#[derive(Default)]
struct Found {
    hits: Vec<Hit>,
    channels: Vec<usize>,
    comments: Vec<(Range<usize>, Vec<Cue>)>,
}

/// What one view's patterns find.
fn matches(set: &Set, view: &View, lines: &Lines<'_>, markdown: Option<&Markdown>, named: &Named, found: &mut Found) {
    let Found { hits, channels, comments } = found;
    for index in set.candidates(view.text.as_bytes()) {
        let (pattern, regex) = &set.each[index];
        let pattern = &PATTERNS[*pattern];
        for m in regex.find_iter(view.text.as_bytes()) {
            let at = view.origin(m.start());
            if pattern.fold == Fold::Command && markdown.is_some_and(|md| md.in_identifier(at)) {
                continue;
            }
            if let Role::Cue(cue) = pattern.role {
                if let Some(comment) = markdown.and_then(|md| md.hidden_at(at)) {
                    match comments.iter_mut().find(|(range, _)| range.start == comment.start) {
                        Some((_, cues)) => cues.push(cue),
                        None => comments.push((comment.clone(), vec![cue])),
                    }
                }
                continue;
            }
            let (start, line) = lines.line_of(at);
            // A comment runs nothing: in a script it is no finding; in Markdown the model
            // reads it, as it reads prose.
            let commented = pattern.fold == Fold::Command && is_comment(line);
            if commented && markdown.is_none() {
                continue;
            }
            if pattern.role.is_channel() && !commented {
                channels.push(at);
            }
            let Some(rule) = pattern.role.rule() else { continue };
            // Nothing in a hidden comment reads as an example: the user never sees it.
            let lowered = markdown.filter(|md| md.hidden_at(at).is_none()).and_then(|md| match pattern.fold {
                Fold::Phrase if md.in_fence(at) || markdown::quoted(line, start, at) => {
                    Some("quoted or in a code block, it reads as an example")
                }
                Fold::Command if !md.in_fence(at) => Some("in Markdown prose, not in a code block"),
                Fold::Command if commented => Some("in a comment, not a command"),
                _ => None,
            });
            let mut hit = Hit::new(known(rule), at, String::new(), excerpt(line, 120));
            if pattern.fold == Fold::Phrase && negated(view.text.get(..m.start()).unwrap_or("")) {
                hit.severity = Severity::Low;
                hit.lowered = Some("negated (never, not, no just before it)");
                hit.detail = "negated (never, not, no just before it): low".into();
                hits.push(hit);
                continue;
            }
            let lowered = lowered
                .or_else(|| match rule {
                    "exec.pipe-to-shell" => {
                        lowering::vendor_installer(line, named).or_else(|| lowering::placeholder_download(line))
                    }
                    "persist.shell-rc" => lowering::setting_only(line),
                    "persist.launch-agent" | "persist.systemd-user" => lowering::own_service(line, named),
                    _ => None,
                })
                .or_else(|| (pattern.fold == Fold::Command).then(|| lowering::pattern_source(line)).flatten());
            hit.lowered = lowered;
            if let Some(why) = lowered
                && hit.severity > Severity::Medium
            {
                hit.severity = Severity::Medium;
                hit.detail = format!("{why}: medium");
            }
            hits.push(hit);
        }
    }
}

/// The findings of the hidden comments that address the model or order
/// something covert: high when one orders something covert, or addresses
/// the model and names an action on data or the system, or holds another
/// finding; medium when it only speaks to the model (a template's
/// `<!-- You should list the steps here -->`).
fn hidden_comments(comments: Vec<(Range<usize>, Vec<Cue>)>, lines: &Lines<'_>, hits: &mut Vec<Hit>) {
    for (range, cues) in comments {
        let covert = cues.contains(&Cue::Covert);
        let addresses = cues.contains(&Cue::Addresses);
        if !covert && !addresses {
            continue;
        }
        let holds_finding = hits.iter().any(|hit| range.contains(&hit.offset));
        let text = excerpt(lines.line_of(range.start).1, 120);
        let mut hit = Hit::new(known("hidden.html-comment"), range.start, "it addresses the model".into(), text);
        if !covert && !cues.contains(&Cue::Acts) && !holds_finding {
            let why = "it speaks to the model, but orders nothing covert or beyond the document";
            hit.severity = Severity::Medium;
            hit.lowered = Some(why);
            hit.detail = format!("{why}: medium");
        }
        hits.push(hit);
    }
}

/// Whether `line` is a `#` or `//` comment (a `#!` line is not).
fn is_comment(line: &str) -> bool {
    let line = line.trim_start();
    (line.starts_with('#') && !line.starts_with("#!")) || line.starts_with("//")
}

/// Whether a phrase is negated: `never`, `not`, `no` or a `n't` word at
/// most eight words before it in its clause (`never rewrite or drop commits
/// without telling the user`), with no `to` between (`don't hesitate to ignore …`
/// negates the hesitating, not the ignoring).
fn negated(before: &str) -> bool {
    let negator = |w: &str| matches!(w, "never" | "not" | "no") || w.ends_with("n't");
    for word in before.trim_end().rsplit(' ').take(9) {
        if negator(word) {
            return true;
        }
        if word == "to" || word.ends_with(['.', ',', ';', ':', '!', '?']) {
            return false;
        }
    }
    false
}
