//! Checking skills against the Agent Skills specification: every check of the
//! reference validator `skills-ref` 0.1.1, with its messages byte for byte and
//! in its order, then the checks it skips.
//!
//! [`Validator::validate`] takes a skill directory, a `SKILL.md`, or a root
//! holding many skills (walked as the catalog walks a root: `.git` and
//! `node_modules` are never entered, links are followed once, the walk
//! limits apply) and returns one [`Validation`] per skill, each a list of
//! [`Diagnostic`]s. [`read_properties`] is `skills-ref read-properties`.
//!
//! # Severity
//!
//! Lenient (the default), a diagnostic is an [`Severity::Error`] when the
//! skill cannot be used as written: no `SKILL.md`, a file that cannot be read,
//! no frontmatter or YAML that does not parse, a missing or empty `name` or
//! `description` (the client guide skips such skills). Everything else is a
//! [`Severity::Warning`]: the skill still loads, as the client guide advises
//! for a name that breaks the rules or does not match its directory.
//! [`Validator::strict`] makes every warning an error, so a strict run's
//! errors for the checks `skills-ref` has ([`Check::is_skills_ref`]) are
//! exactly the list `skills-ref` returns.
//!
//! # Where this differs from `skills-ref` on purpose
//!
//! * The frontmatter is found with the engine's fence rules (SPEC §3): a
//!   byte-order mark is skipped (with a [`Check::ByteOrderMark`] warning;
//!   `skills-ref` then sees no frontmatter), and only a line that is `---`
//!   closes it. `skills-ref` splits the text at any `---`, so
//!   `name: a---b` is read as `a` there and as `a---b` here.
//! * YAML is read as YAML 1.2 (the catalog's reader), not strictyaml: flow
//!   style, anchors and tags are accepted, and parse errors carry this
//!   reader's message after `Invalid YAML in frontmatter: `. Scalars keep the
//!   author's text (`1.0` stays `1.0`) as strictyaml's do, but `null`, `~`
//!   and an empty value are null: a null `name` or `description` is "must be
//!   a non-empty string" (strictyaml reads the text `null`), a null
//!   `compatibility` is empty.
//! * Empty `compatibility` ([`Check::CompatibilityEmpty`]), the types of
//!   `license`, `allowed-tools` and `metadata`, reserved words and XML tags
//!   (the Claude API's rules) and the body's length are checked; skills-ref
//!   checks none of them.
//! * A file that is not UTF-8 is a diagnostic (`skills-ref` crashes), and the
//!   directory name of `.` or `..` is the real directory's (`skills-ref`
//!   compares the skill name with an empty name or `..`).
//! * A directory holding a lowercase `skill.md` (which `skills-ref` accepts)
//!   is checked, with a [`Check::SkillMdName`] error: the catalog, like the
//!   client guide, looks for exactly `SKILL.md`.

use std::fmt;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};

use serde_saphyr::Spanned;
use unicode_general_category::{GeneralCategory, get_general_category};
use unicode_normalization::UnicodeNormalization;

use crate::source::frontmatter::BOM;
use crate::source::read::DEFAULT_MAX_FRONTMATTER;
use crate::source::walk::{SKILL_MD, candidate_order, walker};
use skilldeck_walk::{Limits, Symlinks, parallel_map};

/// `skills-ref`'s `MAX_SKILL_NAME_LENGTH`.
pub const MAX_NAME_LENGTH: usize = 64;
/// `skills-ref`'s `MAX_DESCRIPTION_LENGTH`.
pub const MAX_DESCRIPTION_LENGTH: usize = 1024;
/// `skills-ref`'s `MAX_COMPATIBILITY_LENGTH`.
pub const MAX_COMPATIBILITY_LENGTH: usize = 500;
/// The body length the specification recommends staying under, in lines.
pub const MAX_BODY_LINES: usize = 500;
/// The body length the specification recommends staying under, in tokens.
pub const MAX_BODY_TOKENS: usize = 5000;
/// Words the Claude API refuses in a skill name.
pub const RESERVED_WORDS: [&str; 2] = ["anthropic", "claude"];

/// The frontmatter keys the specification allows, sorted as `skills-ref`
/// prints them.
const ALLOWED_FIELDS: [&str; 6] = ["allowed-tools", "compatibility", "description", "license", "metadata", "name"];

/// The most of a `SKILL.md` read; a larger file is checked on this prefix.
const MAX_READ: u64 = 16 * 1024 * 1024;

/// How bad a [`Diagnostic`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The skill breaks the specification in a way that stops a client from
    /// using it (or, under [`Validator::strict`], in any way).
    Error,
    /// The skill breaks a rule or a recommendation but still loads.
    Warning,
}

impl Severity {
    /// `error` or `warning`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which check a [`Diagnostic`] comes from. The first group are `skills-ref`'s
/// checks, in its order; the rest are skilldeck's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Check {
    /// `Path does not exist: {path}`.
    PathMissing,
    /// `Not a directory: {path}`.
    NotADirectory,
    /// `Missing required file: SKILL.md`.
    MissingSkillMd,
    /// `SKILL.md must start with YAML frontmatter (---)`.
    NoFrontmatter,
    /// `SKILL.md frontmatter not properly closed with ---`.
    UnclosedFrontmatter,
    /// `Invalid YAML in frontmatter: {message}`.
    InvalidYaml,
    /// `SKILL.md frontmatter must be a YAML mapping`.
    NotAMapping,
    /// `Unexpected fields in frontmatter: …`.
    UnexpectedFields,
    /// `Missing required field in frontmatter: name`.
    MissingName,
    /// `Field 'name' must be a non-empty string`.
    NameEmpty,
    /// `Skill name '{name}' exceeds 64 character limit ({n} chars)`.
    NameLength,
    /// `Skill name '{name}' must be lowercase`.
    NameLowercase,
    /// `Skill name cannot start or end with a hyphen`.
    NameHyphenEdge,
    /// `Skill name cannot contain consecutive hyphens`.
    NameConsecutiveHyphens,
    /// `Skill name '{name}' contains invalid characters. …`.
    NameCharacters,
    /// `Directory name '{dir}' must match skill name '{name}'`.
    NameDirectory,
    /// `Missing required field in frontmatter: description`.
    MissingDescription,
    /// `Field 'description' must be a non-empty string`.
    DescriptionEmpty,
    /// `Description exceeds 1024 character limit ({n} chars)`.
    DescriptionLength,
    /// `Field 'compatibility' must be a string`.
    CompatibilityType,
    /// `Compatibility exceeds 500 character limit ({n} chars)`.
    CompatibilityLength,

    /// The file cannot be read, is not a regular file, or its frontmatter is
    /// not UTF-8 (`skills-ref` crashes on these).
    Unreadable,
    /// The frontmatter is larger than the engine reads.
    FrontmatterTooLarge,
    /// The skill's file is named `skill.md` (any case but `SKILL.md`).
    SkillMdName,
    /// The file starts with a UTF-8 byte-order mark.
    ByteOrderMark,
    /// The body is not valid UTF-8.
    BodyEncoding,
    /// The file is larger than the validator reads; only its start was checked.
    FileTooLarge,
    /// `license` is not a string.
    LicenseType,
    /// `compatibility` is present but empty (the specification says 1-500
    /// characters).
    CompatibilityEmpty,
    /// `allowed-tools` is not a string.
    AllowedToolsType,
    /// `metadata` is not a map of strings to strings.
    MetadataType,
    /// The name contains `anthropic` or `claude`.
    ReservedWord,
    /// The name or description contains an XML tag.
    XmlTag,
    /// The body is longer than [`MAX_BODY_LINES`].
    BodyLines,
    /// The body is longer than [`MAX_BODY_TOKENS`] (estimated).
    BodyTokens,
    /// A walk of a root stopped at one of its limits.
    WalkLimit,
}

impl Check {
    /// The check's id, as in JSON output: `name-lowercase`, `body-lines`, ….
    pub fn as_str(self) -> &'static str {
        match self {
            Check::PathMissing => "path-missing",
            Check::NotADirectory => "not-a-directory",
            Check::MissingSkillMd => "missing-skill-md",
            Check::NoFrontmatter => "no-frontmatter",
            Check::UnclosedFrontmatter => "unclosed-frontmatter",
            Check::InvalidYaml => "invalid-yaml",
            Check::NotAMapping => "not-a-mapping",
            Check::UnexpectedFields => "unexpected-fields",
            Check::MissingName => "missing-name",
            Check::NameEmpty => "name-empty",
            Check::NameLength => "name-length",
            Check::NameLowercase => "name-lowercase",
            Check::NameHyphenEdge => "name-hyphen-edge",
            Check::NameConsecutiveHyphens => "name-consecutive-hyphens",
            Check::NameCharacters => "name-characters",
            Check::NameDirectory => "name-directory",
            Check::MissingDescription => "missing-description",
            Check::DescriptionEmpty => "description-empty",
            Check::DescriptionLength => "description-length",
            Check::CompatibilityType => "compatibility-type",
            Check::CompatibilityLength => "compatibility-length",
            Check::Unreadable => "unreadable",
            Check::FrontmatterTooLarge => "frontmatter-too-large",
            Check::SkillMdName => "skill-md-name",
            Check::ByteOrderMark => "byte-order-mark",
            Check::BodyEncoding => "body-encoding",
            Check::FileTooLarge => "file-too-large",
            Check::LicenseType => "license-type",
            Check::CompatibilityEmpty => "compatibility-empty",
            Check::AllowedToolsType => "allowed-tools-type",
            Check::MetadataType => "metadata-type",
            Check::ReservedWord => "reserved-word",
            Check::XmlTag => "xml-tag",
            Check::BodyLines => "body-lines",
            Check::BodyTokens => "body-tokens",
            Check::WalkLimit => "walk-limit",
        }
    }

    /// Whether `skills-ref` 0.1.1 has this check (with this message).
    pub fn is_skills_ref(self) -> bool {
        matches!(
            self,
            Check::PathMissing
                | Check::NotADirectory
                | Check::MissingSkillMd
                | Check::NoFrontmatter
                | Check::UnclosedFrontmatter
                | Check::InvalidYaml
                | Check::NotAMapping
                | Check::UnexpectedFields
                | Check::MissingName
                | Check::NameEmpty
                | Check::NameLength
                | Check::NameLowercase
                | Check::NameHyphenEdge
                | Check::NameConsecutiveHyphens
                | Check::NameCharacters
                | Check::NameDirectory
                | Check::MissingDescription
                | Check::DescriptionEmpty
                | Check::DescriptionLength
                | Check::CompatibilityType
                | Check::CompatibilityLength
        )
    }

    /// The severity outside strict mode: an error when the skill cannot be
    /// used as written, else a warning.
    pub fn lenient_severity(self) -> Severity {
        match self {
            Check::PathMissing
            | Check::NotADirectory
            | Check::MissingSkillMd
            | Check::NoFrontmatter
            | Check::UnclosedFrontmatter
            | Check::InvalidYaml
            | Check::NotAMapping
            | Check::MissingName
            | Check::NameEmpty
            | Check::MissingDescription
            | Check::DescriptionEmpty
            | Check::Unreadable
            | Check::FrontmatterTooLarge
            | Check::SkillMdName => Severity::Error,
            _ => Severity::Warning,
        }
    }
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One finding about one file or directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning (every finding is an error under [`Validator::strict`]).
    pub severity: Severity,
    /// The check that found it.
    pub check: Check,
    /// What is wrong; `skills-ref`'s exact text for its checks.
    pub message: String,
    /// The `SKILL.md` (or, before one is found, the path given or walked).
    pub path: PathBuf,
    /// The 1-based line and column in the `SKILL.md`, when there is one.
    pub position: Option<(u64, u64)>,
}

impl fmt::Display for Diagnostic {
    /// `path:line:column: severity: message`, or `path: severity: message`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path.display())?;
        if let Some((line, column)) = self.position {
            write!(f, ":{line}:{column}")?;
        }
        write!(f, ": {}: {}", self.severity, self.message)
    }
}

/// A diagnostic is what went wrong with a skill: it can be returned, boxed
/// or chained as an error (its `Display` is the one-line form above).
///
/// ```
/// use skilldeck::validate::Validator;
///
/// let dir = tempfile::tempdir()?;
/// std::fs::write(dir.path().join("SKILL.md"), "no frontmatter\n")?;
/// let first = Validator::new().validate(dir.path()).remove(0).diagnostics.remove(0);
/// let error: Box<dyn std::error::Error + Send + Sync> = Box::new(first);
/// assert!(error.to_string().ends_with("SKILL.md: error: SKILL.md must start with YAML frontmatter (---)"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
impl std::error::Error for Diagnostic {}

/// The findings about one skill (or about a path that holds none).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Validation {
    /// The skill directory, as given or walked.
    pub dir: PathBuf,
    /// The `SKILL.md` checked; `None` when none was found (or for a root's
    /// walk-limit finding).
    pub skill_md: Option<PathBuf>,
    /// The findings: `skills-ref`'s checks first, in its order, then
    /// skilldeck's.
    pub diagnostics: Vec<Diagnostic>,
}

impl Validation {
    /// No [`Severity::Error`] among the diagnostics.
    pub fn is_valid(&self) -> bool {
        self.errors().next().is_none()
    }

    /// The errors.
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|d| d.severity == Severity::Error)
    }

    /// The warnings.
    pub fn warnings(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|d| d.severity == Severity::Warning)
    }
}

/// Checks skills against the specification.
///
/// # Example
///
/// ```
/// use skilldeck::validate::{Check, Severity, Validator};
///
/// let dir = tempfile::tempdir()?;
/// let skill = dir.path().join("pdf-tools");
/// std::fs::create_dir(&skill)?;
/// std::fs::write(skill.join("SKILL.md"), "---\nname: PDF-Tools\ndescription: Fill PDF forms.\n---\nSteps.\n")?;
///
/// let reports = Validator::new().validate(&skill);
/// let found: Vec<_> = reports[0].diagnostics.iter().map(|d| (d.check, d.severity, d.message.as_str())).collect();
/// assert_eq!(found, [
///     (Check::NameLowercase, Severity::Warning, "Skill name 'PDF-Tools' must be lowercase"),
///     (Check::NameDirectory, Severity::Warning, "Directory name 'pdf-tools' must match skill name 'PDF-Tools'"),
/// ]);
/// assert!(reports[0].is_valid()); // lenient: warnings only
/// assert_eq!(reports[0].diagnostics[0].to_string(), format!("{}:2:7: warning: Skill name 'PDF-Tools' must be lowercase", skill.join("SKILL.md").display()));
///
/// let strict = Validator::new().strict(true).validate(&skill);
/// assert!(!strict[0].is_valid());
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Validator {
    strict: bool,
    symlinks: Symlinks,
    limits: Limits,
    max_frontmatter: usize,
}

impl Default for Validator {
    fn default() -> Self {
        Validator::new()
    }
}

impl Validator {
    /// A lenient validator that follows links, with the catalog's walk limits
    /// and frontmatter cap.
    pub fn new() -> Validator {
        Validator {
            strict: false,
            symlinks: Symlinks::Follow,
            limits: Limits::default(),
            max_frontmatter: DEFAULT_MAX_FRONTMATTER,
        }
    }

    /// Makes every warning an error. Default: off.
    pub fn strict(mut self, strict: bool) -> Validator {
        self.strict = strict;
        self
    }

    /// Whether a root's walk follows symbolic links. Default: follow.
    pub fn symlinks(mut self, symlinks: Symlinks) -> Validator {
        self.symlinks = symlinks;
        self
    }

    /// The walk limits for a root. Default: [`Limits::default`].
    pub fn walk_limits(mut self, limits: Limits) -> Validator {
        self.limits = limits;
        self
    }

    /// The largest frontmatter read, in bytes. Default:
    /// [`DEFAULT_MAX_FRONTMATTER`], as the catalog.
    pub fn max_frontmatter(mut self, bytes: usize) -> Validator {
        self.max_frontmatter = bytes;
        self
    }

    /// Checks `path`: a skill directory (holding `SKILL.md`, or `skill.md`),
    /// a `SKILL.md` file, or a root whose skills are found as the catalog
    /// finds them (depth, then code-point order). One report per skill; a path
    /// that is none of these gives one report with an error.
    pub fn validate(&self, path: impl AsRef<Path>) -> Vec<Validation> {
        let path = path.as_ref();
        let report = |check, message: String| {
            vec![Validation {
                dir: path.to_path_buf(),
                skill_md: None,
                diagnostics: vec![self.diagnostic(check, message, path, None)],
            }]
        };
        let meta = match std::fs::metadata(path) {
            Ok(meta) => meta,
            Err(error) if error.kind() == io::ErrorKind::NotFound => {
                return report(Check::PathMissing, format!("Path does not exist: {}", python_path(path)));
            }
            Err(error) => return report(Check::Unreadable, format!("cannot read {}: {error}", path.display())),
        };
        let dir = if meta.is_dir() {
            path.to_path_buf()
        } else if path.file_name().is_some_and(|n| n.to_string_lossy().to_lowercase() == "skill.md") {
            match path.parent() {
                Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
                _ => PathBuf::from("."),
            }
        } else {
            return report(Check::NotADirectory, format!("Not a directory: {}", python_path(path)));
        };
        match find_skill_md(&dir) {
            Some(skill_md) => vec![self.check_file(&dir, &skill_md, None)],
            None if meta.is_dir() => self.validate_root(&dir),
            None => report(Check::MissingSkillMd, "Missing required file: SKILL.md".into()),
        }
    }

    /// Checks the text of a `SKILL.md` (its bytes, as read) at `skill_md`,
    /// whose parent directory's name the skill's name must match.
    pub fn check_source(&self, bytes: &[u8], skill_md: &Path) -> Vec<Diagnostic> {
        let dir = skill_md.parent().map(|p| if p.as_os_str().is_empty() { Path::new(".") } else { p });
        let dir_name = dir.map(dir_name);
        self.check_bytes(bytes, false, skill_md, dir_name.as_deref())
    }

    /// Every `SKILL.md` below `root` (a directory without one of its own).
    fn validate_root(&self, root: &Path) -> Vec<Validation> {
        let walker = walker(root, self.symlinks, self.limits);
        let mut walk = walker.files(|name| name.to_string_lossy().eq_ignore_ascii_case(SKILL_MD));
        walk.files.sort_by(candidate_order);
        // A `skill.md` beside a `SKILL.md` is not the skill's file.
        let exact: std::collections::HashSet<&Path> = walk
            .files
            .iter()
            .filter(|f| f.path.file_name().is_some_and(|n| n == SKILL_MD))
            .filter_map(|f| f.path.parent())
            .collect();
        let files: Vec<_> = walk
            .files
            .iter()
            .filter(|f| {
                f.path.file_name().is_some_and(|n| n == SKILL_MD) || f.path.parent().is_none_or(|p| !exact.contains(p))
            })
            .collect();
        let mut reports = parallel_map(&files, |file| {
            let dir = file.path.parent().map(Path::to_path_buf).unwrap_or_default();
            self.check_file(&dir, &file.path, Some(file.regular))
        });
        if reports.is_empty() {
            reports.push(Validation {
                dir: root.to_path_buf(),
                skill_md: None,
                diagnostics: vec![self.diagnostic(
                    Check::MissingSkillMd,
                    "Missing required file: SKILL.md".into(),
                    root,
                    None,
                )],
            });
        }
        if let Some(limit) = walk.limit_hit {
            let message =
                format!("walk of {} stopped at the {limit}; skills below it were not checked", root.display());
            reports.push(Validation {
                dir: root.to_path_buf(),
                skill_md: None,
                diagnostics: vec![self.diagnostic(Check::WalkLimit, message, root, None)],
            });
        }
        reports
    }

    /// Reads and checks one skill's file.
    fn check_file(&self, dir: &Path, skill_md: &Path, regular: Option<bool>) -> Validation {
        let mut diagnostics = Vec::new();
        let file_name = skill_md.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if file_name != SKILL_MD {
            let message = format!("the file is named '{file_name}', not 'SKILL.md': clients look for exactly SKILL.md");
            diagnostics.push(self.diagnostic(Check::SkillMdName, message, skill_md, None));
        }
        match read_file(skill_md, regular) {
            Ok((bytes, truncated)) => {
                let name = dir_name(dir);
                diagnostics.extend(self.check_bytes(&bytes, truncated, skill_md, Some(&name)));
            }
            Err(error) => diagnostics.push(self.diagnostic(Check::Unreadable, error.to_string(), skill_md, None)),
        }
        Validation { dir: dir.to_path_buf(), skill_md: Some(skill_md.to_path_buf()), diagnostics }
    }

    fn diagnostic(&self, check: Check, message: String, path: &Path, position: Option<(u64, u64)>) -> Diagnostic {
        let severity = if self.strict { Severity::Error } else { check.lenient_severity() };
        Diagnostic { severity, check, message, path: path.to_path_buf(), position }
    }

    /// Every check on the bytes of one `SKILL.md`.
    fn check_bytes(&self, bytes: &[u8], truncated: bool, path: &Path, dir_name: Option<&str>) -> Vec<Diagnostic> {
        let mut ours = Vec::new();
        let push = |out: &mut Vec<Diagnostic>, check, message: String, position| {
            out.push(self.diagnostic(check, message, path, position));
        };
        if truncated {
            let message = format!("the file is larger than {MAX_READ} bytes; only its start was checked");
            push(&mut ours, Check::FileTooLarge, message, None);
        }
        let text = match bytes.strip_prefix(BOM) {
            Some(rest) => {
                let message = "the file starts with a UTF-8 byte-order mark; skills-ref and other clients then \
                               find no frontmatter"
                    .to_owned();
                push(&mut ours, Check::ByteOrderMark, message, Some((1, 1)));
                rest
            }
            None => bytes,
        };
        let mut refs = Vec::new();
        let parsed = match parse_file(text, self.max_frontmatter) {
            Ok(parsed) => parsed,
            Err(failure) => {
                refs.push(self.diagnostic(failure.check, failure.message, path, failure.position));
                refs.append(&mut ours);
                return refs;
            }
        };
        match &parsed.map {
            Ok(map) => {
                self.skills_ref_checks(map, &parsed, dir_name, path, &mut refs);
                self.our_checks(map, &parsed, path, &mut ours);
            }
            Err(failure) => refs.push(self.diagnostic(failure.check, failure.message.clone(), path, failure.position)),
        }
        self.body_checks(&parsed, truncated, path, &mut ours);
        refs.append(&mut ours);
        refs
    }

    /// `skills-ref`'s `validate_metadata`, in its order.
    fn skills_ref_checks(
        &self,
        map: &YamlMap,
        parsed: &ParsedFile<'_>,
        dir_name: Option<&str>,
        path: &Path,
        out: &mut Vec<Diagnostic>,
    ) {
        let mut push = |check, message: String, position| out.push(self.diagnostic(check, message, path, position));
        let mut extra: Vec<(&str, Option<(u64, u64)>)> = map
            .keys()
            .filter(|k| !ALLOWED_FIELDS.contains(&k.value.as_str()))
            .map(|k| (k.value.as_str(), Some(parsed.position(&k.referenced))))
            .collect();
        if !extra.is_empty() {
            let first = extra[0].1;
            extra.sort_by(|a, b| a.0.cmp(b.0));
            let names: Vec<&str> = extra.iter().map(|e| e.0).collect();
            let message = format!(
                "Unexpected fields in frontmatter: {}. Only ['allowed-tools', 'compatibility', 'description', \
                 'license', 'metadata', 'name'] are allowed.",
                names.join(", ")
            );
            push(Check::UnexpectedFields, message, first);
        }

        if let Some((raw, at)) = required(map, parsed, "name", (Check::MissingName, Check::NameEmpty), &mut push) {
            let name = normalized_name(&raw);
            let length = name.chars().count();
            if length > MAX_NAME_LENGTH {
                let message = format!("Skill name '{name}' exceeds {MAX_NAME_LENGTH} character limit ({length} chars)");
                push(Check::NameLength, message, at);
            }
            if name.to_lowercase() != name {
                push(Check::NameLowercase, format!("Skill name '{name}' must be lowercase"), at);
            }
            if name.starts_with('-') || name.ends_with('-') {
                push(Check::NameHyphenEdge, "Skill name cannot start or end with a hyphen".into(), at);
            }
            if name.contains("--") {
                push(Check::NameConsecutiveHyphens, "Skill name cannot contain consecutive hyphens".into(), at);
            }
            if !name.chars().all(|c| is_python_alnum(c) || c == '-') {
                let message = format!(
                    "Skill name '{name}' contains invalid characters. Only letters, digits, and hyphens are allowed."
                );
                push(Check::NameCharacters, message, at);
            }
            if let Some(dir) = dir_name
                && dir.nfkc().collect::<String>() != name
            {
                push(Check::NameDirectory, format!("Directory name '{dir}' must match skill name '{name}'"), at);
            }
        }

        let description = (Check::MissingDescription, Check::DescriptionEmpty);
        if let Some((description, at)) = required(map, parsed, "description", description, &mut push) {
            let length = description.chars().count();
            if length > MAX_DESCRIPTION_LENGTH {
                let message = format!("Description exceeds {MAX_DESCRIPTION_LENGTH} character limit ({length} chars)");
                push(Check::DescriptionLength, message, at);
            }
        }

        if let Some(value) = field(map, "compatibility") {
            let at = Some(parsed.position(&value.referenced));
            match text(value, parsed.yaml) {
                AsText::Collection => {
                    push(Check::CompatibilityType, "Field 'compatibility' must be a string".into(), at)
                }
                AsText::Scalar(text) => {
                    let length = text.chars().count();
                    if length > MAX_COMPATIBILITY_LENGTH {
                        let message = format!(
                            "Compatibility exceeds {MAX_COMPATIBILITY_LENGTH} character limit ({length} chars)"
                        );
                        push(Check::CompatibilityLength, message, at);
                    }
                }
                AsText::Null => {}
            }
        }
    }

    /// The frontmatter checks `skills-ref` does not have.
    fn our_checks(&self, map: &YamlMap, parsed: &ParsedFile<'_>, path: &Path, out: &mut Vec<Diagnostic>) {
        let mut push = |check, message: String, position| out.push(self.diagnostic(check, message, path, position));
        let at = |value: &Spanned<Node>| Some(parsed.position(&value.referenced));

        if let Some(value) = field(map, "license")
            && value.value.is_collection()
        {
            push(Check::LicenseType, "Field 'license' must be a string".into(), at(value));
        }
        if let Some(value) = field(map, "compatibility") {
            let empty = match text(value, parsed.yaml) {
                AsText::Scalar(text) => text.is_empty(),
                AsText::Null => true,
                AsText::Collection => false,
            };
            if empty {
                let message = "Field 'compatibility' must not be empty: the specification allows 1-500 characters \
                               when it is present"
                    .into();
                push(Check::CompatibilityEmpty, message, at(value));
            }
        }
        if let Some(value) = field(map, "allowed-tools")
            && value.value.is_collection()
        {
            let message = "Field 'allowed-tools' must be a string of space-separated tool names".into();
            push(Check::AllowedToolsType, message, at(value));
        }
        if let Some(value) = field(map, "metadata") {
            match &value.value {
                Node::Null => {}
                Node::Map(entries) => {
                    for (key, entry) in entries {
                        if entry.value.is_collection() {
                            let message =
                                format!("Field 'metadata' must map strings to strings: '{key}' is not a string");
                            push(Check::MetadataType, message, at(entry));
                        }
                    }
                }
                _ => {
                    let message = "Field 'metadata' must be a mapping of string keys to string values".into();
                    push(Check::MetadataType, message, at(value));
                }
            }
        }
        let name = field(map, "name").and_then(|v| non_empty_text(v, parsed.yaml).map(|raw| (v, raw)));
        if let Some((value, raw)) = &name {
            let name = normalized_name(raw);
            let lower = name.to_lowercase();
            for word in RESERVED_WORDS {
                if lower.contains(word) {
                    let message = format!(
                        "Skill name '{name}' contains the reserved word '{word}', which the Claude API refuses"
                    );
                    push(Check::ReservedWord, message, at(value));
                }
            }
        }
        for key in ["name", "description"] {
            let Some(value) = field(map, key) else { continue };
            if let AsText::Scalar(text) = text(value, parsed.yaml)
                && let Some(tag) = xml_tag(&text)
            {
                let message = format!("Field '{key}' contains an XML tag ({tag}), which the Claude API refuses");
                push(Check::XmlTag, message, at(value));
            }
        }
    }

    /// The body's length and encoding.
    fn body_checks(&self, parsed: &ParsedFile<'_>, truncated: bool, path: &Path, out: &mut Vec<Diagnostic>) {
        let mut push = |check, message: String, position| out.push(self.diagnostic(check, message, path, position));
        let at = Some((parsed.body_line, 1));
        let body = match std::str::from_utf8(parsed.body) {
            Ok(body) => std::borrow::Cow::Borrowed(body),
            Err(error) => {
                // A read cut short may end inside a character.
                if !(truncated && error.error_len().is_none()) {
                    let message = "the body is not valid UTF-8; clients refuse the file or read U+FFFD".into();
                    push(
                        Check::BodyEncoding,
                        message,
                        Some(line_column(parsed.body, error.valid_up_to(), parsed.body_line)),
                    );
                }
                String::from_utf8_lossy(parsed.body)
            }
        };
        let body = body.trim();
        let lines = body.lines().count();
        if lines > MAX_BODY_LINES {
            let message = format!(
                "the body is {lines} lines long; the specification recommends under {MAX_BODY_LINES} (move detail \
                 into referenced files)"
            );
            push(Check::BodyLines, message, at);
        }
        let tokens = estimate_tokens(body);
        if tokens > MAX_BODY_TOKENS {
            let message = format!(
                "the body is about {tokens} tokens (estimated as characters / 4); the specification recommends \
                 under {MAX_BODY_TOKENS}"
            );
            push(Check::BodyTokens, message, at);
        }
    }
}

/// Checks `path` with a lenient [`Validator`] and returns every diagnostic of
/// every skill found, in order.
pub fn validate_dir(path: impl AsRef<Path>) -> Vec<Diagnostic> {
    Validator::new().validate(path).into_iter().flat_map(|r| r.diagnostics).collect()
}

/// `skills-ref`'s `find_skill_md`: `SKILL.md`, else `skill.md`.
fn find_skill_md(dir: &Path) -> Option<PathBuf> {
    [SKILL_MD, "skill.md"].iter().map(|name| dir.join(name)).find(|path| path.exists())
}

/// Why a `SKILL.md` could not be read; its text is the diagnostic's message.
#[derive(Debug, thiserror::Error)]
enum ReadError {
    /// A FIFO, a device, a directory: never opened (a FIFO would block).
    #[error("not a regular file")]
    NotRegular,
    /// The file system refused.
    #[error("the file cannot be read: {0}")]
    Io(#[from] io::Error),
}

/// Reads at most [`MAX_READ`] bytes: `(bytes, cut short)`, or why not. A
/// file that is not regular (a FIFO would block) is not opened.
fn read_file(path: &Path, regular: Option<bool>) -> Result<(Vec<u8>, bool), ReadError> {
    let regular = match regular {
        Some(regular) => regular,
        None => std::fs::metadata(path)?.is_file(),
    };
    if !regular {
        return Err(ReadError::NotRegular);
    }
    let mut bytes = Vec::new();
    File::open(path).and_then(|file| file.take(MAX_READ + 1).read_to_end(&mut bytes))?;
    let truncated = bytes.len() as u64 > MAX_READ;
    bytes.truncate(MAX_READ as usize);
    Ok((bytes, truncated))
}

/// The name a directory is known by: its last path component, or for `.`,
/// `..` and the like, the real directory's.
fn dir_name(dir: &Path) -> String {
    match dir.components().next_back() {
        Some(Component::Normal(name)) => name.to_string_lossy().into_owned(),
        _ => std::fs::canonicalize(dir)
            .ok()
            .and_then(|real| real.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_default(),
    }
}

/// A path as Python's `str(Path(p))` spells it: no `.` components (`.` alone
/// stays), no doubled or trailing separator.
fn python_path(path: &Path) -> String {
    let out: PathBuf = path.components().filter(|c| *c != Component::CurDir).collect();
    if out.as_os_str().is_empty() { ".".to_owned() } else { out.display().to_string() }
}

/// A required field (`name`, `description`) as `skills-ref` checks it: its
/// text and position when it is a non-empty string; otherwise `None`, after
/// pushing the `missing` or the `empty` check with `skills-ref`'s message.
fn required(
    map: &YamlMap,
    parsed: &ParsedFile<'_>,
    key: &str,
    (missing, empty): (Check, Check),
    push: &mut impl FnMut(Check, String, Option<(u64, u64)>),
) -> Option<(String, Option<(u64, u64)>)> {
    let Some(value) = field(map, key) else {
        push(missing, format!("Missing required field in frontmatter: {key}"), None);
        return None;
    };
    let at = Some(parsed.position(&value.referenced));
    let text = non_empty_text(value, parsed.yaml);
    if text.is_none() {
        push(empty, format!("Field '{key}' must be a non-empty string"), at);
    }
    Some((text?, at))
}

/// The text of a `name` or `description` when it is a string that is not
/// empty once stripped (`skills-ref`'s test); `None` otherwise (a null is
/// not a string here).
fn non_empty_text(value: &Spanned<Node>, yaml: &str) -> Option<String> {
    match text(value, yaml) {
        AsText::Scalar(text) if !python_strip(&text).is_empty() => Some(text),
        _ => None,
    }
}

/// `skills-ref`'s name: stripped, then NFKC.
fn normalized_name(raw: &str) -> String {
    python_strip(raw).nfkc().collect()
}

/// Python's `str.isspace`.
fn is_python_space(c: char) -> bool {
    matches!(
        c,
        '\t'..='\r'
            | '\u{1c}'..='\u{20}'
            | '\u{85}'
            | '\u{a0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200a}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202f}'
            | '\u{205f}'
            | '\u{3000}'
    )
}

/// Python's `str.strip()`.
fn python_strip(s: &str) -> &str {
    s.trim_matches(is_python_space)
}

/// Python's `str.isalnum` for one character: a letter (`Lu Ll Lt Lm Lo`) or
/// a number (`Nd Nl No`).
fn is_python_alnum(c: char) -> bool {
    use GeneralCategory as G;
    matches!(
        get_general_category(c),
        G::UppercaseLetter
            | G::LowercaseLetter
            | G::TitlecaseLetter
            | G::ModifierLetter
            | G::OtherLetter
            | G::DecimalNumber
            | G::LetterNumber
            | G::OtherNumber
    )
}

/// The first XML-looking tag in `text`: `<`, an optional `/`, a letter or
/// `_`, then anything but `<`, `>` or a line break, then `>`.
fn xml_tag(text: &str) -> Option<&str> {
    let mut from = 0;
    while let Some(offset) = text[from..].find('<') {
        let start = from + offset;
        let rest = &text[start + 1..];
        let name = rest.strip_prefix('/').unwrap_or(rest);
        if name.starts_with(|c: char| c.is_alphabetic() || c == '_')
            && let Some(end) = name.find(['<', '>', '\n'])
            && name[end..].starts_with('>')
        {
            let len = 1 + (rest.len() - name.len()) + end + 1;
            return Some(&text[start..start + len]);
        }
        from = start + 1;
    }
    None
}

/// The body's size in tokens, estimated as characters / 4 (rounded up), the
/// rule of thumb the specification's guidance uses.
fn estimate_tokens(body: &str) -> usize {
    body.chars().count().div_ceil(4)
}

/// The file line and column (1-based, in bytes) of `offset` into `bytes`,
/// whose first byte is on file line `first_line`.
fn line_column(bytes: &[u8], offset: usize, first_line: u64) -> (u64, u64) {
    let before = &bytes[..offset.min(bytes.len())];
    let line = first_line + before.iter().filter(|&&b| b == b'\n').count() as u64;
    let column = before.iter().rev().take_while(|&&b| b != b'\n').count() as u64 + 1;
    (line, column)
}

mod properties;
mod yaml;

pub use properties::{Properties, read_properties};
use yaml::{AsText, Node, ParsedFile, YamlMap, field, parse_file, text};

#[cfg(test)]
mod tests;
