//! Why a command's finding is lowered to medium: what around it makes it a
//! vendor's documented installer, the skill's own setup, or something that
//! runs nothing as written. Each function gives its reason or `None`; the
//! finding keeps its rule and position either way.

/// The hosts (and, on a shared host, the owner's path) whose documented
/// installer is a download piped into a shell: a toolchain's or platform's
/// own, well known, served over https. A pipe-to-shell line whose every URL
/// is one of them is reported at medium: it still runs unreviewed code, but
/// the code of the tool the skill is about, from its vendor.
pub(super) const VENDOR_INSTALLERS: &[&str] = &[
    "sh.rustup.rs",
    "bun.sh",
    "astral.sh",
    "deno.land",
    "get.docker.com",
    "ollama.com",
    "get.pnpm.io",
    "install.python-poetry.org",
    "sdk.cloud.google.com",
    "deb.nodesource.com",
    "rpm.nodesource.com",
    "tailscale.com",
    "get.k3s.io",
    "starship.rs",
    "claude.ai",
    "fnm.vercel.app",
    "get.volta.sh",
    "mise.run",
    "pixi.sh",
    "aka.ms",
    "raw.githubusercontent.com/Homebrew/",
    "raw.githubusercontent.com/nvm-sh/",
    "raw.githubusercontent.com/helm/",
];

/// Domains many publishers share: naming one in a description names no vendor.
const SHARED_DOMAINS: &[&str] = &[
    "github.com",
    "githubusercontent.com",
    "github.io",
    "gitlab.com",
    "bitbucket.org",
    "sourceforge.net",
    "amazonaws.com",
    "cloudfront.net",
    "googleapis.com",
    "azureedge.net",
    "vercel.app",
    "netlify.app",
    "herokuapp.com",
    "pages.dev",
    "workers.dev",
];

/// What a skill says of itself, in which the vendor of an installer may be
/// named: its name and description, and the targets of its `SKILL.md`'s
/// links (`[site](https://…)`, `<https://…>`) without their scheme,
/// lowercased.
#[derive(Default)]
pub(super) struct Named {
    name: String,
    description: String,
    links: Vec<String>,
}

impl Named {
    pub(super) fn new(name: &str, description: &str, skill_md: &str) -> Named {
        // Only the link targets are lowercased: a SKILL.md can be large.
        let after = |at: usize, end: char| skill_md[at..].split(end).next();
        let inline = skill_md.match_indices("](").map(|(at, _)| after(at + 2, ')'));
        let auto = skill_md.match_indices("<http").map(|(at, _)| after(at + 1, '>'));
        let links = inline
            .chain(auto)
            .flatten()
            .filter_map(|target| target.split_once("://"))
            .map(|(_, target)| target.to_lowercase())
            .collect();
        Named { name: name.to_lowercase(), description: description.to_lowercase(), links }
    }

    /// Whether `project` (a domain's name or a repository's, four letters
    /// or more) is in the skill's name as whole words: `linkerd` in
    /// `linkerd-patterns`, `hermes-agent` in `hermes-agent`.
    fn in_name(&self, project: &str) -> bool {
        project.len() >= 4 && in_words(&self.name, project)
    }

    /// Whether `project` is in the description as whole words.
    fn in_description(&self, project: &str) -> bool {
        project.len() >= 4 && in_words(&self.description, project)
    }

    /// Whether `domain` is named in the description or a link of `SKILL.md`
    /// is at it (or a host under it).
    fn told_of_domain(&self, domain: &str) -> bool {
        let at = |link: &String| {
            let host = link.split(['/', '?', '#']).next().unwrap_or("");
            host == domain || host.strip_suffix(domain).is_some_and(|sub| sub.ends_with('.'))
        };
        self.description.contains(domain) || self.links.iter().any(at)
    }

    /// Whether a link of `SKILL.md` is at the repository `github.com/{repo}`.
    fn links_repo(&self, repo: &str) -> bool {
        let at = |link: &String| {
            link.strip_prefix("github.com/")
                .and_then(|path| path.strip_prefix(repo))
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(['/', '#', '?', '.']))
        };
        self.links.iter().any(at)
    }
}

/// Whether the words of `project` (`hermes-agent`) are in `text` one after
/// another, as whole words.
fn in_words(text: &str, project: &str) -> bool {
    let words = |s: &str| format!("-{}-", s.replace(|c: char| !c.is_ascii_alphanumeric(), "-"));
    words(text).contains(&words(project))
}

/// Why a pipe-to-shell line is lowered to medium, if it is: every URL on it
/// is https and at a [`VENDOR_INSTALLERS`] host, or the project it is at is
/// the one the skill is about (`named`): a domain (not a shared one) named
/// in its description or linked from its `SKILL.md` ("via the
/// [inference.sh](https://inference.sh) CLI" and `https://cli.inference.sh`),
/// a GitHub repository linked from it, or either whose name is in the
/// skill's name or description as whole words (`aspire.dev` for the skill
/// `aspire`, `kubeshark.com` for one that "captures traffic with Kubeshark").
pub(super) fn vendor_installer(line: &str, named: &Named) -> Option<&'static str> {
    let mut why = Some("the vendor's documented installer, over https from its own host");
    let mut any = false;
    for (at, _) in line.match_indices("://") {
        any = true;
        let scheme = line[..at].rsplit(|c: char| !c.is_ascii_alphanumeric()).next().unwrap_or("");
        let rest = &line[at + 3..];
        let end = rest.find(|c: char| c.is_whitespace() || "\"'|)`;>".contains(c)).unwrap_or(rest.len());
        let url = &rest[..end];
        let host = url.split('/').next().unwrap_or("").to_ascii_lowercase();
        let listed = VENDOR_INSTALLERS.iter().any(|v| match v.strip_suffix('/') {
            Some(_) => url.starts_with(v),
            None => host == *v,
        });
        if scheme != "https" {
            return None;
        }
        if listed {
            continue;
        }
        if !is_the_skills_project(&host, url, named) {
            return None;
        }
        why = Some("from the project the skill names, over https");
    }
    if any { why } else { None }
}

/// Whether the download at `url` (on `host`) is from the project the skill
/// names (see [`vendor_installer`]).
fn is_the_skills_project(host: &str, url: &str, named: &Named) -> bool {
    if matches!(host, "github.com" | "raw.githubusercontent.com") {
        let mut path = url.split('/').skip(1);
        let (Some(owner), Some(repo)) = (path.next(), path.next()) else { return false };
        let (owner, repo) = (owner.to_ascii_lowercase(), repo.to_ascii_lowercase());
        return named.in_name(&repo) || named.in_description(&repo) || named.links_repo(&format!("{owner}/{repo}"));
    }
    // The host's last two labels, a name of three letters or more before the dot.
    let labels: Vec<&str> = host.rsplitn(3, '.').collect();
    match labels.as_slice() {
        [tld, name, ..] if name.len() >= 3 && tld.chars().all(|c| c.is_ascii_alphabetic()) => {
            let domain = format!("{name}.{tld}");
            !SHARED_DOMAINS.contains(&domain.as_str())
                && (named.told_of_domain(&domain) || named.in_name(name) || named.in_description(name))
        }
        _ => false,
    }
}

/// Why a command line is lowered to medium, if it is: it is a regular
/// expression that matches commands (`(?:curl|wget)\s+[^|]*\|\s*sh`), as a
/// scanner's rules hold, not a command.
pub(super) fn pattern_source(line: &str) -> Option<&'static str> {
    ["\\s*", "\\s+", "(?:", "(?i)", "[^"]
        .iter()
        .any(|syntax| line.contains(syntax))
        .then_some("a regular expression that matches the command, not the command")
}

/// Why a download piped into a shell is lowered to medium, if it is: what
/// it downloads is a placeholder (`curl * | bash` in a list of denied
/// commands, `curl -fsSL ... | bash`, a template's `#{url}`, a defanged
/// `hxxp://evil[.]com`), which runs nothing as written.
pub(super) fn placeholder_download(line: &str) -> Option<&'static str> {
    // A defanged address (`hxxp://evil[.]com`) or a template's (`#{url}`, `{{ url }}`).
    if ["hxxp", "[.]", "#{", "{{"].iter().any(|mark| line.contains(mark)) {
        return Some("it downloads a placeholder, which runs nothing as written");
    }
    let command = |w: &&str| matches!(w.rsplit(['`', '(', '"', '\'']).next(), Some("curl" | "wget"));
    let mut words = line.split_whitespace().skip_while(|w| !command(w));
    words.next()?;
    let target = words.find(|w| !w.starts_with('-'))?;
    let placeholder = target == "*"
        || target.ends_with('*')
        || target.contains("...")
        || target.contains('…')
        || (target.starts_with('<') && target.ends_with('>'));
    placeholder.then_some("it downloads a placeholder, which runs nothing as written")
}

/// Why installing a launch agent or a systemd unit is lowered to medium, if
/// it is: the service is named for the project the skill is about
/// (`~/Library/LaunchAgents/com.nanoclaw.plist` in a skill whose description
/// names NanoClaw), the skill setting up its own daemon.
pub(super) fn own_service(line: &str, named: &Named) -> Option<&'static str> {
    let file = line
        .split(|c: char| c.is_whitespace() || "/\"'`;|&>)".contains(c))
        .find(|word| [".plist", ".service", ".timer"].iter().any(|ext| word.ends_with(ext)))?;
    let stem = file.rsplit_once('.').map_or(file, |(stem, _)| stem).to_lowercase();
    let generic = ["com", "org", "net", "local", "user", "agent", "daemon", "service", "launchd"];
    stem.split('.')
        .filter(|label| label.len() >= 4 && !generic.contains(label))
        .any(|label| named.in_name(label) || named.in_description(label))
        .then_some("the service is named for the project the skill is about")
}

/// Why a write to a shell start-up file is lowered to medium, if it is: the
/// line echoes one variable setting (`echo 'export API_KEY="…"' >> ~/.zshrc`,
/// `$PATH` and `${HOME}` in it included) into it, what a setup guide tells
/// the user to add; nothing that runs a command at each start
/// (`$(…)`, backticks, `;`, `|`, `&`).
pub(super) fn setting_only(line: &str) -> Option<&'static str> {
    let (echoed, _) = line.trim_start().split_once('>')?;
    let echoed = echoed.strip_prefix("echo ")?.trim().trim_matches(['\'', '"']).trim();
    let setting = echoed.strip_prefix("export ").unwrap_or(echoed).trim_start();
    let (name, value) = setting.split_once('=')?;
    let is_name = !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit());
    let runs = value.contains("$(") || value.contains(['`', ';', '|', '&', '<']) || RUNS_ITS_VALUE.contains(&name);
    (is_name && !runs).then_some("it appends one variable setting, which runs no command")
}

/// Variables whose value a shell or runtime runs, or loads code from.
const RUNS_ITS_VALUE: &[&str] = &[
    "PROMPT_COMMAND",
    "BASH_ENV",
    "ENV",
    "ZDOTDIR",
    "LD_PRELOAD",
    "DYLD_INSERT_LIBRARIES",
    "PYTHONSTARTUP",
    "NODE_OPTIONS",
    "PERL5OPT",
];
