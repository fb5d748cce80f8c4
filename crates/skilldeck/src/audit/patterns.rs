//! The audit's text patterns as data: each names the rule it finds (or
//! marks a way to send data out, or a cue that a hidden comment speaks to
//! the model) and the view it is matched on. They are compiled once per
//! view: a file's view is searched once for the literals they need
//! ([`prefilter`](super::prefilter)), and only the patterns it may hold are
//! run.

use std::sync::LazyLock;

use regex::bytes::{Regex, RegexBuilder};

use super::prefilter::Prefilter;
use super::view::Fold;

/// What a match of a pattern means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Role {
    /// A finding of this rule.
    Finding(&'static str),
    /// A way to send data out: with a credential read anywhere in the same
    /// skill, that read is `secrets.exfiltrate`.
    Channel,
    /// Both a finding of this rule and a way to send data out.
    FindingAndChannel(&'static str),
    /// Words that make a hidden comment an instruction to the model.
    Cue(Cue),
}

impl Role {
    pub(super) fn rule(self) -> Option<&'static str> {
        match self {
            Role::Finding(rule) | Role::FindingAndChannel(rule) => Some(rule),
            Role::Channel | Role::Cue(_) => None,
        }
    }

    pub(super) fn is_channel(self) -> bool {
        matches!(self, Role::Channel | Role::FindingAndChannel(_))
    }
}

/// What the words of a hidden comment say of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Cue {
    /// It speaks to the model (you should, assistant:).
    Addresses,
    /// It orders what the user would refuse (ignore, secretly, don't tell).
    Covert,
    /// It names an action on data or the system (upload, send, execute,
    /// install, delete): said to the model, that is an order beyond the
    /// document; alone, it is nothing.
    Acts,
}

/// One pattern of the table.
pub(super) struct Pattern {
    pub(super) role: Role,
    pub(super) fold: Fold,
    pub(super) regex: &'static str,
}

const fn cmd(rule: &'static str, regex: &'static str) -> Pattern {
    Pattern { role: Role::Finding(rule), fold: Fold::Command, regex }
}

const fn phrase(rule: &'static str, regex: &'static str) -> Pattern {
    Pattern { role: Role::Finding(rule), fold: Fold::Phrase, regex }
}

const fn channel(regex: &'static str) -> Pattern {
    Pattern { role: Role::Channel, fold: Fold::Command, regex }
}

const fn cue(cue: Cue, regex: &'static str) -> Pattern {
    Pattern { role: Role::Cue(cue), fold: Fold::Phrase, regex }
}

/// A shell, after a pipe: `| sh`, `| sudo bash`, `| env X=1 zsh`, fish's `| source`.
macro_rules! to_shell {
    () => {
        r"\|\s*(sudo\s+(-\S+\s+)*)?(env\s+(\S+=\S*\s+)*)?((/usr)?(/bin/)?(ba|z|da|k|fi)?sh\b|source(\s|$|[;&|)]))"
    };
}

/// The system paths no skill changes the permissions of, then a separator.
macro_rules! system_path {
    () => {
        r"/(etc|usr|bin|sbin|lib|lib64|boot|var|opt|System|Library)?(/|\s|$)"
    };
}

/// Every pattern. The command patterns see text with shell quotes and
/// backslash escapes dropped and case kept; the phrase patterns see it
/// case-folded, with whitespace collapsed to single spaces.
pub(super) static PATTERNS: &[Pattern] = &[
    // exec.pipe-to-shell
    cmd("exec.pipe-to-shell", concat!(r"(?m)\b(curl|wget|fetch|aria2c|lwp-request|http|xh)\b[^\n]*", to_shell!())),
    cmd(
        "exec.pipe-to-shell",
        r"(?m)\b(curl|wget|fetch)\b[^\n]*\|\s*(sudo\s+)?(python[0-9.]*|perl|ruby|node|php)(\s+-)?\s*($|[;&|)])",
    ),
    cmd("exec.pipe-to-shell", r"\b((ba|z|da|k)?sh|source|\.)\s+(-s\s+)?<\(\s*(curl|wget)\b"),
    cmd("exec.pipe-to-shell", r"\b((ba|z|da|k)?sh\s+-c|eval|exec)\s+(\$\(|`)\s*(curl|wget)\b"),
    cmd(
        "exec.pipe-to-shell",
        r"(?i)\b(iwr|irm|invoke-webrequest|invoke-restmethod)\b[^\n]*\|\s*(iex|invoke-expression)\b",
    ),
    cmd("exec.pipe-to-shell", r"(?i)\biex\s*\(\s*\(?\s*(new-object\s+net\.webclient\)?\.downloadstring|iwr|irm)\b"),
    cmd("exec.pipe-to-shell", r"\bexec\(\s*(urllib\.request\.)?(urlopen|requests\.get)\("),
    // A variable piped to a shell that reads its commands from it (`| sh`, `| bash -s`), not to a
    // shell given a script to run (`echo "$X" | bash scan.sh --stdin`).
    cmd(
        "exec.pipe-to-shell",
        concat!(r"(?m)\$\{?[A-Za-z_]\w*\}?\s*", to_shell!(), r"(\s+-s\b|\s+-(\s|$)|\s*($|[;&|)#]))"),
    ),
    // exec.decode-and-run
    cmd(
        "exec.decode-and-run",
        r"(?m)\bbase64\s+(-\w+\s+)*(-d|--decode|-D|-di)\b[^\n]*\|\s*(sudo\s+)?((ba|z|da|k)?sh|python[0-9.]*|perl|ruby|node)\b",
    ),
    cmd(
        "exec.decode-and-run",
        r"(?m)\b(eval|exec|source|(ba|z|da|k)?sh\s+-c)\s+(\$\(|`)[^\n]*\bbase64\s+(-\w+\s+)*(-d|--decode|-D)",
    ),
    cmd("exec.decode-and-run", concat!(r"(?m)\bxxd\s+-r[^\n]*", to_shell!())),
    cmd(
        "exec.decode-and-run",
        r"\b(exec|eval)\(\s*(compile\(\s*)?(base64\.b64decode|base64\.b32decode|codecs\.decode|zlib\.decompress|bytes\.fromhex|marshal\.loads)",
    ),
    cmd("exec.decode-and-run", r"\b(eval|Function)\(\s*(atob|Buffer\.from|unescape|String\.fromCharCode)\("),
    cmd("exec.decode-and-run", r"(?i)\bpowershell[^\n]*\s-(e|enc|encodedcommand)\s+[A-Za-z0-9+/=]{20,}"),
    // Perl's `eval pack('H*', ...)` / `eval decode_base64(...)`: hex or base64 turned into code.
    cmd("exec.decode-and-run", r"\beval\s*\(?\s*(pack\s*\(\s*[Hh]\*?\s*,|(MIME::Base64::)?decode_base64\s*\()"),
    // A shell command that is percent- or hex-decoded first: os.system(unquote(...)), subprocess.run(bytes.fromhex(...)...).
    cmd(
        "exec.decode-and-run",
        r"\b(os\.(system|popen)|subprocess\.(run|call|Popen|check_output|check_call)|exec|eval)\(\s*((urllib\.parse\.)?unquote(_plus)?|base64\.b64decode|bytes\.fromhex|codecs\.decode)\(",
    ),
    // `eval "$(printf '\x63\x75...')"`: the view has dropped the backslashes of the escapes.
    cmd("exec.decode-and-run", r"\b(eval|(ba|z|da|k)?sh\s+-c)\s+(\$\(|`)\s*printf\s+(x[0-9A-Fa-f]{2}|[0-7]{3}){4}"),
    // A variable set from hex escapes (`cmd=$(printf '\x63...')`) and later run with eval.
    cmd("exec.decode-and-run", r"(?m)^\s*\w+=\$\(\s*printf\s+(x[0-9A-Fa-f]{2}|[0-7]{3}){8}[\s\S]*?\beval\s+\$\{?\w"),
    // An archive unpacked and a script of it run: what runs is what the audit cannot read.
    cmd(
        "exec.decode-and-run",
        r"(?m)\b(unzip|bsdtar\s+-?x\w*|tar\s+-?[a-zA-Z]*x[a-zA-Z]*|7z\s+x)\s[^\n]*(&&|;)\s*(sudo\s+)?((ba|z|da|k)?sh|source|python[0-9.]*|perl|ruby|node)\s+\S+",
    ),
    // exec.destructive-delete
    cmd(
        "exec.destructive-delete",
        r"(?m)\brm\s+(-{1,2}[\w-]+\s+)*(-[a-zA-Z]*[rR][a-zA-Z]*|--recursive)\s+(-{1,2}[\w-]+\s+)*(~|/|\$HOME|\$\{HOME\})/?\*?(\s|$|[;&|)`])",
    ),
    cmd("exec.destructive-delete", r"\brm\s[^\n]*--no-preserve-root\b"),
    cmd(
        "exec.destructive-delete",
        r"\bshutil\.rmtree\(\s*(os\.path\.expanduser\(\s*~\s*\)|Path\.home\(\)|/|~|os\.environ\[HOME\])\s*[,)]",
    ),
    cmd("exec.destructive-delete", r"(?m)\bfind\s+(~|/|\$HOME)/?\s[^\n]*-delete\b"),
    cmd("exec.destructive-delete", r"\bfs\.(rmSync|rm)\(\s*(os\.homedir\(\)|/)\s*,"),
    // exec.reverse-shell
    cmd("exec.reverse-shell", r"/dev/(tcp|udp)/[^\s/]+/\d+"),
    cmd("exec.reverse-shell", r"(?m)\b(nc|ncat|netcat)\b[^\n]*\s-[a-zA-Z]*[ec]\s+\S*(sh|bash|cmd(\.exe)?)\b"),
    cmd("exec.reverse-shell", r"(?i)\bsocat\b[^\n]*\bexec:"),
    cmd("exec.reverse-shell", r"\bmkfifo\b[^\n]*\b(nc|ncat)\b"),
    cmd("exec.reverse-shell", r"\bos\.dup2\(\s*\w+\.fileno\(\)"),
    // An interactive shell piped to or from netcat, whatever line the fifo was made on.
    cmd("exec.reverse-shell", r"(?m)\b(ba|z|da|k)?sh\s+-i\b[^\n]*\|\s*(nc|ncat|netcat|telnet)\b"),
    cmd("exec.reverse-shell", r"(?m)\b(nc|ncat|netcat|telnet)\s[^\n|]*\|\s*(/bin/)?(ba|z|da|k)?sh\s+-i\b"),
    // An interactive shell whose input is a descriptor number (Ruby's `sh -i <&%d`, `<&3`).
    cmd("exec.reverse-shell", r"\bsh\s+-i\s*<&\s*(%d|\d|\$|#\{)"),
    cmd("exec.reverse-shell", r"\bTCPSocket\.(open|new)\([^\n]*\)\.(to_i|fileno)\b"),
    // Perl: standard input taken from a socket handle (`open(STDIN, '>&S')`) after `socket(S, ...)`.
    cmd("exec.reverse-shell", r"\bsocket\s*\(\s*[A-Z]\w*\s*,[\s\S]*?\bopen\s*\(?\s*STDIN\s*,\s*[<>+]*&\s*[A-Z]\w*"),
    // PowerShell: a TCP client's stream whose data is run with iex.
    cmd("exec.reverse-shell", r"(?i)\bnet\.sockets\.tcpclient\b[\s\S]*?\b(iex|invoke-expression)\s*[($]"),
    // exec.system-permissions
    cmd(
        "exec.system-permissions",
        concat!(
            r"(?m)\bchmod\s+(-\w+\s+)*(\d*7[67]|\d*[67]6|a\+\w*w\w*|o\+\w*w\w*|\+\w*w\w*|[ug]?\+s|[2467]\d{3})\s+(-\w+\s+)*",
            system_path!()
        ),
    ),
    cmd(
        "exec.system-permissions",
        concat!(r"(?m)\b(chmod|chown|chgrp)\s+(-\w+\s+)*-[a-zA-Z]*R[a-zA-Z]*\s+(\S+\s+)?", system_path!()),
    ),
    cmd(
        "exec.system-permissions",
        r"(?m)\b(chown|chgrp)\s+(-\w+\s+)*\S+\s+/(etc|usr|bin|sbin|lib|boot|System)?(/|\s|$)",
    ),
    // persist.cron
    cmd("persist.cron", r"\|\s*crontab\b"),
    cmd("persist.cron", r"(?m)\bcrontab\s+(-u\s+\S+\s+)?[\w~$-]*[./][\w./$-]*(\s|$|[;&|)])"),
    cmd(
        "persist.cron",
        r"(>>?\s*|\b(tee|cp|mv|install|ln)\s[^\n]*?)(/etc/cron\.(d|daily|hourly|weekly|monthly)|/etc/crontab|/var/spool/cron)\b",
    ),
    cmd("persist.cron", r"(?i)\bschtasks(\.exe)?\s+/create\b"),
    // persist.shell-rc
    cmd(
        "persist.shell-rc",
        r"(>>?\s*|\btee\s+(-a\s+)?|\b(cp|mv|ln\s+-\w+)\s+\S+\s+)(~|\$HOME|\$\{HOME\})/\.(bashrc|bash_profile|bash_login|profile|zshrc|zprofile|zshenv|zlogin|config/fish/config\.fish)\b",
    ),
    cmd("persist.shell-rc", r"\bopen\([^\n]*\.(bashrc|bash_profile|profile|zshrc|zprofile|zshenv)\)?\s*,\s*a\+?\s*\)"),
    cmd("persist.shell-rc", r"\b(appendFileSync|appendFile)\([^\n]*\.(bashrc|zshrc|profile|bash_profile)\b"),
    cmd("persist.shell-rc", r"(?i)>>?\s*\$profile\b"),
    // persist.launch-agent
    cmd(
        "persist.launch-agent",
        r"(?i)(>|\b(cp|mv|ln|tee|install|write\w*|plutil)\b)[^\n]*library/launch(agents|daemons)\b",
    ),
    cmd("persist.launch-agent", r"\blaunchctl,?\s+(load|bootstrap|enable|submit)\b"),
    // persist.systemd-user
    cmd("persist.systemd-user", r"(>|\b(cp|mv|ln|tee|install)\b)[^\n]*(\.config/systemd/user|/etc/systemd/system)/"),
    cmd("persist.systemd-user", r"\bsystemctl,?\s+--user,?\s+(\S+\s+)*(enable|link)\b"),
    cmd("persist.systemd-user", r"\bloginctl\s+enable-linger\b"),
    // secrets.read (secrets.exfiltrate when the skill has a channel)
    cmd("secrets.read", r"(?m)\.ssh/(id_[A-Za-z0-9_]+(\s|$|[;|&)>,\]])|\*)"),
    // The directory itself, copied, archived or dumped: `chmod 700 ~/.ssh` and `mkdir ~/.ssh` read nothing.
    cmd(
        "secrets.read",
        r"(?m)\b(cat|cp|scp|rsync|tar|zip|7z|base64|xxd|strings|find|grep|curl|wget|nc)\b[^\n]*(~|\$HOME|\$\{HOME\}|/home/\w+|/Users/\w+|expanduser\(~)/\.ssh/?(\s|$|[;|&)\],])",
    ),
    cmd(
        "secrets.read",
        r"\.aws/credentials\b|\.git-credentials\b|\.docker/config\.json\b|\.kube/config\b|\.config/gh/hosts\.yml\b|\.pypirc\b|(^|[\s<(])/proc/self/environ\b",
    ),
    // Cloud and package-registry logins: gcloud's ADC and token databases, Azure's token cache,
    // cargo, gem and Terraform credentials.
    cmd(
        "secrets.read",
        r"\bapplication_default_credentials\.json\b|\.config/gcloud/(credentials\.db|access_tokens\.db|legacy_credentials)|\.azure/(accessTokens\.json|msal_token_cache)|\.cargo/credentials(\.toml)?\b|\.gem/credentials\b|\.terraform\.d/credentials\.tfrc\.json\b",
    ),
    // The same stores with the path built from pieces: path.join(os.homedir(), '.kube', 'config'),
    // Path.home() / '.aws' / 'credentials' (the view has dropped the quotes).
    cmd(
        "secrets.read",
        r"\.kube\s*(,|\s/)\s*config\b|\.aws\s*(,|\s/)\s*credentials\b|\.docker\s*(,|\s/)\s*config\.json\b|\.ssh\s*(,|\s/)\s*id_\w+",
    ),
    // A user's npm token lives in ~/.npmrc; a project's .npmrc holds registry settings.
    cmd("secrets.read", r"(?m)(~|\$HOME|\$\{HOME\}|\$ENV\{HOME\})/\.(netrc|gnupg|npmrc)\b"),
    // CLIs that print their stored token.
    cmd("secrets.read", r"\bgh\s+auth\s+(token\b|status\s[^\n]*(-t|--show-token)\b)"),
    cmd(
        "secrets.read",
        r"\bsecurity\s+(find-generic-password|find-internet-password|dump-keychain)\b|(?i)login\.keychain",
    ),
    cmd(
        "secrets.read",
        r"(?i)\.config/(google-chrome|chromium|BraveSoftware)|Library/Application Support/(Google/Chrome|BraveSoftware|Firefox|Microsoft Edge)|\.mozilla/firefox|AppData[\\/](Local|Roaming)[\\/](Google[\\/]Chrome|Mozilla[\\/]Firefox|Microsoft[\\/]Edge)|\bLogin Data\b|cookies\.sqlite|\bkey4\.db\b|\blogins\.json\b",
    ),
    cmd(
        "secrets.read",
        r"(?m)\b(cat|less|more|head|tail|base64|xxd|strings|cp|scp|tar|zip)\s+(-\S+\s+)*(\S*/)?\.env(\.(local|prod|production|dev|development|staging|test))?(\s|$|[;|&)])",
    ),
    cmd(
        "secrets.read",
        r"\b(open|File\.(read|open|readlines)|IO\.read|readFileSync|readFile|fopen|file_get_contents)\(\s*(\S*/)?\.env\s*[,)]",
    ),
    // The environment's variables picked by name (`if k.startswith('AWS_')`): the keys are what
    // is wanted. A copy for a child process (`if k != 'CLAUDECODE'`) is not this.
    cmd(
        "secrets.read",
        r"\bfor\s+\w+\s*,\s*\w+\s+in\s+os\.environ\.items\(\)\s*if\s[^\n]*(startswith|endswith|\bin\s+\w+\s*[}\]]|re\.(match|search))|\bObject\.entries\(\s*process\.env\s*\)\s*\.filter\b",
    ),
    // exfil.env-dump
    // The environment piped on: to a sender, an encoder or an interpreter.
    cmd(
        "exfil.env-dump",
        r"(?m)(^|[;&|]\s*|\$\(\s*|`|\bsudo\s+)(env|printenv|export\s+-p)\s*\|\s*(curl|wget|nc|ncat|base64|xxd|tee|python[0-9.]*|node|perl|ruby)\b",
    ),
    // The environment printed or saved: its secrets read, sent out only if the skill has a channel.
    cmd("secrets.read", r"(?m)(^|[;&|]\s*|\$\(\s*|`|\bsudo\s+)(env|printenv|export\s+-p)\s*(>|$|[;&)`])"),
    cmd(
        "exfil.env-dump",
        r"\bjson\.dumps\(\s*(dict\()?os\.environ\s*\)|\bstr\(\s*os\.environ\s*\)|\bJSON\.stringify\(\s*process\.env\s*\)",
    ),
    cmd("exfil.env-dump", r"(?i)\b(gci|get-childitem|dir|ls)\s+env:\s*(\||$)"),
    // exfil.paste-site (also a channel)
    Pattern {
        role: Role::FindingAndChannel("exfil.paste-site"),
        fold: Fold::Command,
        regex: r"(?i)\b(pastebin\.com|paste\.ee|hastebin\.com|ghostbin\.\w+|transfer\.sh|file\.io|0x0\.st|webhook\.site|requestbin\.(com|net)|pipedream\.net|hookbin\.com|ngrok(-free)?\.(io|app|dev)|interact\.sh|oast\.(fun|me|pro|live|site|online)|burpcollaborator\.net|discord(app)?\.com/api/webhooks|api\.telegram\.org/bot)",
    },
    // exfil.dns (also a channel): a name to resolve built from a command's output; in a
    // URL only in its host (`…/ant_$(uname -m).tar.gz` is a path).
    Pattern {
        role: Role::FindingAndChannel("exfil.dns"),
        fold: Fold::Command,
        regex: r"\b(dig|nslookup|host|drill|ping6?|getent\s+hosts|resolvectl\s+query|nc)\s[^\n]*?(\$\([^)\n]*\)|`[^`\s][^`\n]*`)\.([\w-]+\.)+[a-z]{2,}\b|\b(curl|wget)\s[^\n]*?://[\w.-]*(\$\([^)\n]*\)|`[^`\s][^`\n]*`)\.([\w-]+\.)+[a-z]{2,}\b|\b(gethostbyname(_ex)?|getaddrinfo|resolver\.(resolve|query)|dns\.(resolve[46]?|lookup)|Resolve-DnsName)\s*\(\s*f?[^\n)]*\{[^}\n]*(\[[^\]\n]*:[^\]\n]*\]|\.hex\(\)|b(32|64)encode|hexlify)",
    },
    // Channels.
    channel(
        r"(?m)\bcurl\b[^\n]*\s(-d|--data(-binary|-raw|-urlencode|-ascii)?|-F|--form|-T|--upload-file|-X\s*(POST|PUT|PATCH)|--request\s+(POST|PUT|PATCH)|--json)(\s|=|@|$)",
    ),
    channel(r"\bwget\b[^\n]*--(post-data|post-file|method=POST|body-data|body-file)"),
    channel(
        r"\b(requests|httpx|session|client)\.(post|put|patch)\(|\burllib\.request\.urlopen\([^\n]*data=|(?i)\bmethod:\s*post\b",
    ),
    // urllib's Request with a body or POST, urlopen(url, data); Perl's LWP/HTTP::Tiny and PHP
    // clients' ->post; Ruby's Net::HTTP.post.
    channel(
        r"\bRequest\([^\n]*\b(data=|method=(POST|PUT)\b)|\burlopen\(\s*[^,\n()]+,\s*(data\s*=\s*)?[A-Za-z_][\w.]*(\(\))?\s*[,)]|->\s*(post|put|post_form)\s*\(|\bNet::HTTP\.(post|post_form)\b|\bNet::HTTP::(Post|Put)\b",
    ),
    channel(r"(?i)\b(invoke-webrequest|invoke-restmethod|iwr|irm)\b[^\n]*-method\s+(post|put)"),
    channel(r"(?m)\b(nc|ncat|netcat)\s+(-\w+\s+)*[\w.-]+\s+\d+|\bsocat\b|/dev/(tcp|udp)/"),
    channel(r"(?m)\b(scp|rsync)\s[^\n]*\s\S+@[\w.-]+:"),
    channel(r"\b(smtplib|sendmail|nodemailer)\b|(?i)hooks\.slack\.com/services"),
    // inject.ignore-instructions
    phrase(
        "inject.ignore-instructions",
        r"\b(ignore|disregard|forget|override|bypass)\s((all|any|the|your|my|of|every|these)\s)*(previous|prior|above|earlier|preceding|original|system|safety|existing|other|former)\s(instructions?|prompts?|rules|directions|guidelines|guardrails|messages?|constraints)\b",
    ),
    phrase("inject.ignore-instructions", r"\bforget\s(everything|all)\s(you|that|above|before|i|we)\b"),
    phrase(
        "inject.ignore-instructions",
        r"\byou\sare\snow\s(dan\b|in\s(developer|god|jailbreak|unrestricted)\smode|unrestricted|jailbroken|free\sof)",
    ),
    phrase(
        "inject.ignore-instructions",
        r"\b(new|updated|real)\ssystem\sprompt\s?:|\b(ignore|disregard)\sthe\ssystem\sprompt\b",
    ),
    // inject.conceal-from-user
    phrase(
        "inject.conceal-from-user",
        // Not `don't tell the user to run it`: that is doing the work, not hiding it.
        r"\b(do\snot|don't|dont|never)\s(tell|inform|notify|alert|warn|show)\s(the\s)?(user|human|operator)(\s?$|[^\sa-z]|\s([^t]|t[^o]|to[a-z]))",
    ),
    phrase(
        "inject.conceal-from-user",
        r"\b(do\snot|don't|dont|never)\s(mention|reveal|disclose|report)\s(this|these|that|it|the\s\w+)(\s\w+)?\sto\s(the\s)?(user|human)\b",
    ),
    phrase(
        "inject.conceal-from-user",
        r"\b(hide|conceal)\s(this|it|these|that|the\s\w+)(\s\w+)?\sfrom\s(the\s)?(user|human)\b",
    ),
    phrase("inject.conceal-from-user", r"\bkeep\s(this|it|these)\s(secret|hidden)\sfrom\b"),
    phrase(
        "inject.conceal-from-user",
        r"\bwithout\s(telling|informing|notifying|alerting|warning)\s(the\s)?(user|human)\b",
    ),
    phrase(
        "inject.conceal-from-user",
        r"\bthe\s(user|human)\s(must|should|will|need)\s(not|never)\s(know|see|notice|find\sout|be\stold)\b",
    ),
    phrase(
        "inject.conceal-from-user",
        r"\b(silently|secretly|covertly|quietly)\s(run|execute|send|upload|install|download|delete|copy|exfiltrate|post|add|modify|read)\b",
    ),
    // inject.override-scope
    phrase(
        "inject.override-scope",
        r"\bregardless\sof\s(what|whatever)\sthe\suser\s(asks|says|wants|requests|tells)\b",
    ),
    phrase("inject.override-scope", r"\beven\sif\sthe\suser\s(asks|says|tells|refuses|objects|declines)\b"),
    // To the user's every request, not to every comment of a review a skill answers.
    phrase(
        "inject.override-scope",
        r"\b(before|after)\s(responding|answering|replying)\sto\s(any|every|each)\s(user\s)?(request|message|question|prompt|query|task|input)s?\b",
    ),
    phrase(
        "inject.override-scope",
        r"\b(in|for)\s(all|every)\s(future|subsequent)\s(conversations?|sessions?|responses?|requests?|tasks?)\b",
    ),
    phrase(
        "inject.override-scope",
        r"\b(always|also)\s(run|execute|invoke)\s[^.]{0,60}\sbefore\s(any|every)\s(other\s)?(task|request|command|response)\b",
    ),
    // Cues of a hidden comment (hidden.html-comment).
    cue(
        Cue::Addresses,
        r"\b(you\sare|you\smust|you\sshould|you\swill|you\sneed\sto|your\s(task|job|instructions|goal)|(assistant|claude|chatgpt|ai|model|agent|llm)\s?[:,]|dear\s(ai|assistant|model|agent))",
    ),
    cue(Cue::Addresses, r"\binstructions?\s(for|to)\s(the\s)?(ai|model|assistant|agent)\b"),
    cue(
        Cue::Covert,
        r"\b(system\sprompt|ignore\s(the|all|any|previous|prior|above|your)|disregard|secretly|silently|covertly|without\s(telling|informing)|(do\snot|don't|never)\s(tell|mention|reveal|show|inform))",
    ),
    cue(Cue::Acts, r"\b(upload|send|post|transmit|forward|exfiltrate|execute|install|download|delete|curl|wget)\b"),
];

/// The table compiled: per view, the prefilter that tells which patterns
/// can match a text, and each pattern alone to find where.
pub(super) struct Compiled {
    pub(super) phrase: Set,
    pub(super) command: Set,
}

/// The patterns of one view.
pub(super) struct Set {
    prefilter: Prefilter,
    /// The index into [`PATTERNS`] and the compiled pattern, in set order.
    pub(super) each: Vec<(usize, Regex)>,
}

impl Set {
    /// The patterns of `fold`, compiled over bytes with Unicode off: `\b`,
    /// `\w`, `\s` and `(?i)` are ASCII's, and `[^\n]` any byte.
    ///
    /// Unicode classes and boundaries made the lazy DFA give up on the first
    /// non-ASCII byte of a text (falling back to its slowest engine): on a
    /// public registry's skills (emoji, CJK, typographic quotes) that was
    /// nine tenths of the audit's time. Every pattern is ASCII and matches
    /// ASCII words, and the views have whitespace collapsed and (for
    /// phrases) look-alike letters folded to ASCII already, so ASCII
    /// semantics find what the patterns mean.
    fn compile(fold: Fold) -> Result<Set, String> {
        let chosen: Vec<usize> = (0..PATTERNS.len()).filter(|&i| PATTERNS[i].fold == fold).collect();
        let regexes: Vec<&str> = chosen.iter().map(|&i| PATTERNS[i].regex).collect();
        let each = chosen
            .into_iter()
            .map(|i| Ok((i, RegexBuilder::new(PATTERNS[i].regex).unicode(false).build()?)))
            .collect::<Result<_, regex::Error>>()
            .map_err(|error| error.to_string())?;
        Ok(Set { prefilter: Prefilter::new(&regexes)?, each })
    }

    /// The indices (into [`Set::each`]) of the patterns that can match
    /// `text`, in order: every one that matches, and some that do not.
    pub(super) fn candidates(&self, text: &[u8]) -> Vec<usize> {
        self.prefilter.candidates(text)
    }

    /// The indices (into [`Set::each`]) of the patterns that match `text`
    /// somewhere, in order.
    pub(super) fn matching(&self, text: &[u8]) -> Vec<usize> {
        self.candidates(text).into_iter().filter(|&i| self.each[i].1.is_match(text)).collect()
    }

    /// How many literal needs the prefilter gives the pattern at `index`.
    #[cfg(test)]
    pub(super) fn need_count(&self, index: usize) -> usize {
        self.prefilter.need_count(index)
    }
}

/// The compiled table, or the compiler's complaint (a bug in the table that
/// a unit test catches first).
pub(super) static COMPILED: LazyLock<Result<Compiled, String>> =
    LazyLock::new(|| Ok(Compiled { phrase: Set::compile(Fold::Phrase)?, command: Set::compile(Fold::Command)? }));
