//! Declared scope: what a skill's frontmatter says against what its own
//! text and scripts do. An `allowed-tools` that grants every shell command,
//! or a tool nothing in the skill uses, asks for more than the skill needs;
//! a script that reaches the network while the description says nothing of
//! it does what the user was not told.
//!
//! Words are compared, not parsed: a grant is used when its command appears
//! as a word anywhere in the skill outside the frontmatter, and a script
//! reaches the network when it holds a word of [`NETWORK_CALLS`].

use std::collections::HashSet;
use std::path::Path;

use serde_json::Value;

use super::rules::known;
use super::scan::{Kind, kind};
use super::view::{Lines, excerpt};
use super::{Finding, Hit, Read};
use crate::source::frontmatter::{self, BOM, Fences, FrontmatterMode};
use crate::source::read::DEFAULT_MAX_FRONTMATTER;
use crate::source::walk::SKILL_MD;

/// Tools that run any command when granted without a pattern.
const SHELLS: [&str; 4] = ["bash", "shell", "run_shell_command", "powershell"];

/// Tools that reach the web, and the words of a skill that uses them.
const WEB_TOOLS: [&str; 2] = ["webfetch", "websearch"];
const WEB_WORDS: [&str; 12] =
    ["http", "url", "web", "fetch", "search", "online", "site", "internet", "browse", "docs", "documentation", "link"];

/// Words of a script that reach the network: commands, and calls of the
/// usual libraries (a word may also start or end a dotted path, as in
/// `urllib.request.urlopen`).
const NETWORK_CALLS: [&str; 34] = [
    "curl",
    "wget",
    "ncat",
    "netcat",
    "socat",
    "ssh",
    "scp",
    "sftp",
    "rsync",
    "telnet",
    "invoke-webrequest",
    "invoke-restmethod",
    "iwr",
    "irm",
    "requests.get",
    "requests.post",
    "requests.put",
    "requests.patch",
    "requests.delete",
    "requests.request",
    "requests.session",
    "urllib.request",
    "urlopen",
    "http.client",
    "httpx",
    "aiohttp",
    "socket.create_connection",
    "fetch",
    "axios",
    "xmlhttprequest",
    "websocket",
    "net::http",
    "lwp::useragent",
    "net.webclient",
];

/// Stems of words with which a description tells of other machines: any
/// one of them, anywhere in it, is enough.
const NETWORK_WORDS: [&str; 60] = [
    "network", "internet", "online", "web", "http", "url", "api", "download", "upload", "fetch", "remote", "server",
    "cloud", "sync", "send", "post", "webhook", "request", "deploy", "publish", "install", "github", "gitlab",
    "registry", "slack", "discord", "mail", "notif", "search", "crawl", "scrap", "brows", "endpoint", "service",
    "host", "domain", "dns", "ssh", "connect", "aws", "azure", "gcp", "google", "docker", "kube", "push", "pull",
    "clone", "release", "package", "update", "upgrade", "stream", "feed", "database", "backup", "share", "external",
    "integrat", "site",
];

/// The declared-scope findings of a skill's files, whose `SKILL.md` declares `head`.
pub(super) fn check(files: &[Read], head: Option<&Head>) -> Vec<Finding> {
    // The text files, read as text only when a rule below needs them.
    let texts = || files.iter().filter_map(|(rel, content)| Some((rel.as_path(), content.as_ref().ok()?.text()?)));
    let mut findings = Vec::new();
    // Most skills grant no tool: the words of the skill are gathered only for one that does.
    if let Some(head) = head.filter(|h| !h.tools.is_empty()) {
        let texts: Vec<(&Path, &str)> = texts().collect();
        if let Some((rel, text)) = texts.iter().find(|(rel, _)| *rel == Path::new(SKILL_MD)) {
            // The skill's own text outside the frontmatter, and its files' names: a
            // grant to run a bundled script is a use of it.
            let names: Vec<String> = files.iter().map(|(rel, _)| rel.to_string_lossy().into_owned()).collect();
            let words = words(
                texts
                    .iter()
                    .map(|(rel, text)| match *rel == Path::new(SKILL_MD) {
                        true => &text[head.body_start..],
                        false => text,
                    })
                    .chain(names.iter().map(String::as_str)),
            );
            findings.extend(grants(rel, text, head, &words));
        }
    }
    let description = head.and_then(|h| h.description.as_deref()).unwrap_or("").to_lowercase();
    if !NETWORK_WORDS.iter().any(|w| description.contains(w))
        && let Some(finding) = texts().find_map(|(rel, text)| network_reach(rel, text))
    {
        findings.push(finding);
    }
    findings
}

/// What the frontmatter of `SKILL.md` declares.
pub(super) struct Head {
    pub(super) name: Option<String>,
    pub(super) description: Option<String>,
    /// Each tool of `allowed-tools`, with its byte offset in the text.
    tools: Vec<(String, usize)>,
    body_start: usize,
}

impl Head {
    /// The head of the skill's `SKILL.md` among `files`, if it has one.
    pub(super) fn of(files: &[Read]) -> Option<Head> {
        let (_, bytes) = files.iter().find(|(rel, _)| rel == Path::new(SKILL_MD))?;
        Head::read(bytes.as_ref().ok()?.text()?)
    }

    fn read(text: &str) -> Option<Head> {
        let bom = if text.as_bytes().starts_with(BOM) { BOM.len() } else { 0 };
        let Fences::Closed { yaml_start, yaml_end, body_start } = frontmatter::fences(&text.as_bytes()[bom..]) else {
            return None;
        };
        let (yaml_start, yaml_end, body_start) = (yaml_start + bom, yaml_end + bom, body_start + bom);
        // Past the catalog's own limit the skill is not loaded: its head is not read either.
        let yaml = text.get(yaml_start..yaml_end).filter(|yaml| yaml.len() <= DEFAULT_MAX_FRONTMATTER)?;
        let parsed = frontmatter::parse(yaml, 2, FrontmatterMode::Lenient).ok();
        let name = parsed.as_ref().and_then(|p| p.name.clone());
        let description = parsed.as_ref().and_then(|p| p.description.clone());
        let granted = match parsed.as_ref().and_then(|p| p.frontmatter.get("allowed-tools")) {
            Some(Value::String(s)) => specs(s),
            Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).flat_map(specs).collect(),
            _ => Vec::new(),
        };
        // Each tool where it is written, searched from the key on.
        let key = yaml.find("allowed-tools").unwrap_or(0);
        let mut from = key;
        let tools = granted
            .into_iter()
            .map(|tool| {
                let at = yaml[from..].find(tool.as_str()).map_or(key, |i| from + i);
                from = at;
                (tool, yaml_start + at)
            })
            .collect();
        Some(Head { name, description, tools, body_start })
    }
}

/// The tools of one `allowed-tools` value: split at spaces and commas
/// outside parentheses (`Read, Bash(git log:*)`), quotes dropped.
fn specs(value: &str) -> Vec<String> {
    let mut out = Vec::new();
    let (mut depth, mut current) = (0usize, String::new());
    for c in value.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ' ' | ',' | '\t' | '\n' if depth == 0 => {
                out.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    out.push(current);
    out.into_iter().map(|s| s.trim_matches(['"', '\'']).to_owned()).filter(|s| !s.is_empty()).collect()
}

/// The characters that join letters and digits into a word: `notes.sh`,
/// `git-lfs`, `ssh_config`; a call also takes `:` (`Net::HTTP`).
const WORD_JOINS: &[char] = &['_', '.', '-'];
const CALL_JOINS: &[char] = &['_', '.', '-', ':'];

/// The words of `text` with their byte offsets: runs of letters, digits and
/// `joins`, without a trailing `.`, `-` or `:`.
fn word_spans<'t>(text: &'t str, joins: &'static [char]) -> impl Iterator<Item = (usize, &'t str)> {
    text.split(move |c: char| !(c.is_alphanumeric() || joins.contains(&c)))
        .map(move |word| (word.as_ptr() as usize - text.as_ptr() as usize, word.trim_end_matches(['.', '-', ':'])))
        .filter(|(_, word)| !word.is_empty())
}

/// Every word of `texts` ([`WORD_JOINS`]), lowercased.
fn words<'a>(texts: impl Iterator<Item = &'a str>) -> HashSet<String> {
    texts.flat_map(|text| word_spans(text, WORD_JOINS)).map(|(_, word)| word.to_lowercase()).collect()
}

/// The findings of the `allowed-tools` of `SKILL.md` (`rel`, `text`).
fn grants(rel: &Path, text: &str, head: &Head, words: &HashSet<String>) -> Vec<Finding> {
    let lines = Lines::new(text);
    let mut out = Vec::new();
    for (tool, at) in &head.tools {
        let (name, inner) = match tool.split_once('(') {
            Some((name, rest)) => (name.to_lowercase(), rest.strip_suffix(')').unwrap_or(rest).trim()),
            None => (tool.to_lowercase(), ""),
        };
        let (rule, detail) = if SHELLS.contains(&name.as_str()) {
            let command = inner.split([' ', ':']).next().unwrap_or("").trim_matches('*');
            let command = command.rsplit('/').next().unwrap_or(command).to_lowercase();
            if command.is_empty() {
                let detail = format!("`{tool}` lets the model run any command; name the ones the skill runs");
                ("scope.unrestricted-shell", detail)
            } else if !words.contains(&command) {
                ("scope.unused-grant", format!("`{tool}`, but the skill's text and scripts never use {command}"))
            } else {
                continue;
            }
        } else if WEB_TOOLS.contains(&name.as_str()) && !words.iter().any(|w| WEB_WORDS.iter().any(|s| w.contains(s))) {
            ("scope.unused-grant", format!("`{tool}`, but nothing in the skill reaches the web"))
        } else {
            continue;
        };
        let hit = Hit::new(known(rule), *at, detail, excerpt(lines.line_of(*at).1, 120));
        out.push(hit.at(rel, lines.position(*at)));
    }
    out
}

/// The first place a script (`rel`, not Markdown) reaches the network.
fn network_reach(rel: &Path, text: &str) -> Option<Finding> {
    if kind(rel, text) == Kind::Markdown {
        return None;
    }
    let (at, call) = word_spans(text, CALL_JOINS).find_map(|(at, word)| {
        let word = word.to_lowercase();
        let call = NETWORK_CALLS.iter().find(|call| {
            word == **call
                || word.strip_prefix(**call).is_some_and(|rest| rest.starts_with('.'))
                || word.strip_suffix(**call).is_some_and(|rest| rest.ends_with('.'))
        })?;
        Some((at, call))
    })?;
    let lines = Lines::new(text);
    let detail = format!("{call}, while the description says nothing of the network");
    let hit = Hit::new(known("scope.undeclared-network"), at, detail, excerpt(lines.line_of(at).1, 120));
    Some(hit.at(rel, lines.position(at)))
}
