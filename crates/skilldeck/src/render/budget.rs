//! Budgets for the level-1 catalogs: the texts of [`render`](crate::render)
//! cut to fit a number of characters or tokens, with a [`BudgetReport`] of what was
//! cut. The rules are documented on [`Budget`].

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;
#[cfg(feature = "tokens")]
use std::sync::OnceLock;

use crate::catalog::Catalog;
use crate::model::Skill;
use crate::render::{self, Layout};

/// A size limit for a level-1 catalog: at most `limit` characters or tokens.
/// [`Budget::toolnexus`], [`Budget::agentskills`] and [`Budget::insika`]
/// return the text of the [`render`](crate::render) function of the same name,
/// cut to fit, with a [`BudgetReport`] of what was cut. A text that fits is returned
/// byte for byte.
///
/// A budget parses from and displays as `8000c` (characters) or `2000t`
/// (tokens, o200k; `2000t:cl100k` for cl100k).
///
/// # How a text is cut
///
/// Descriptions are shortened first, and fairly. Every description may show up
/// to the same number of characters, its *share*, the `…` that marks a cut
/// included. A description shorter than the share shows whole, and its surplus
/// goes to the others. The share is the largest with which the whole text fits.
/// A shortened description keeps its first `share − 1` characters (Unicode
/// scalar values, cut at their boundaries), less trailing whitespace, then
/// `…`. Shares count a description's own characters, before escaping. Room
/// left over that is too small to raise every shortened description by one
/// more character stays unused.
///
/// If the text does not fit even with a share of one (each long description
/// a lone `…`), whole entries are dropped from the end of the renderer's order
/// (toolnexus: by name; agentskills and insika: as given) until the rest fits.
/// The share is then raised again for the entries that stay. Only descriptions
/// are cut: a name, insika's `when` triggers and an agentskills location show
/// whole or not at all. When no entry fits, the text is what the renderer
/// writes for no skills: toolnexus's
/// [`TOOLNEXUS_EMPTY`](crate::render::TOOLNEXUS_EMPTY), the empty
/// agentskills wrapper, or insika's empty string. If even that is over
/// budget, the text is empty.
///
/// # Measuring
///
/// Sizes are measured on the rendered text, escaping included. Characters add
/// up, so a character budget sums the measured size of each entry. Token
/// counts do not add up: a token can span the joint of two entries. A token
/// budget therefore tokenizes the whole candidate text at every step of its
/// search. Per-entry counts serve only as a first guess. Every text returned
/// was measured to fit.
///
/// # Example
///
/// ```
/// use skilldeck::{Budget, Catalog, SkillDef};
///
/// let catalog = Catalog::builder()
///     .skill(SkillDef::new("alpha").description("Turns a long list of requirements into a plan."))
///     .skill(SkillDef::new("beta").description("Short."))
///     .build();
/// let budget: Budget = "212c".parse()?;
/// let fitted = budget.toolnexus(&catalog);
/// assert!(fitted.text.ends_with("- **alpha**: Turns a long…\n- **beta**: Short."));
/// assert_eq!(fitted.report.used, 212);
/// assert_eq!(fitted.report.full, ["beta"]);
/// assert_eq!(fitted.report.shortened, [("alpha", 34)]);
/// assert_eq!(
///     fitted.report.to_string(),
///     "budget 212c, used 212\nfull (1): beta\nshortened (1, to 14 characters): alpha (cut 34)\nomitted (0):\n"
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Budget {
    /// The most the text may measure, in `unit`s.
    pub limit: usize,
    /// What is counted.
    pub unit: Unit,
    /// Whether the text is fitted beside a closing line ([`Budget::closed`]),
    /// which gives its room to fewer skills, each readable.
    leaving_out: bool,
}

/// What a [`Budget`] counts. Non-exhaustive: [`Unit::Tokens`] exists only
/// with the `tokens` feature, and a feature must never change whether a
/// caller's `match` compiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Unit {
    /// Unicode scalar values (Rust `char`s): not bytes, not UTF-16 units, not
    /// grapheme clusters.
    Chars,
    /// Tokens of an OpenAI encoding, counted offline (feature `tokens`).
    #[cfg(feature = "tokens")]
    Tokens(Encoding),
}

/// An OpenAI tokenizer whose vocabulary ships inside the binary (feature `tokens`).
#[cfg(feature = "tokens")]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// `o200k_base` (GPT-4o and later).
    #[default]
    O200k,
    /// `cl100k_base` (GPT-4, GPT-3.5).
    Cl100k,
}

#[cfg(feature = "tokens")]
impl Encoding {
    /// The tokenizer; its vocabulary is decoded on first use (some tens of milliseconds).
    fn tokenizer(self) -> &'static bpe_openai::Tokenizer {
        match self {
            Encoding::O200k => bpe_openai::o200k_base(),
            Encoding::Cl100k => bpe_openai::cl100k_base(),
        }
    }

    /// The longest token, in bytes: a text of more than `n` times as many
    /// bytes has more than `n` tokens.
    fn longest_token(self) -> usize {
        static LONGEST: [OnceLock<usize>; 2] = [OnceLock::new(), OnceLock::new()];
        *LONGEST[self as usize].get_or_init(|| {
            let bpe = &self.tokenizer().bpe;
            (0..bpe.num_tokens()).filter_map(|id| u32::try_from(id).ok()).map(|id| bpe.token_len(id)).max().unwrap_or(1)
        })
    }

    /// The name in budget strings: `o200k` or `cl100k`.
    pub fn as_str(self) -> &'static str {
        match self {
            Encoding::O200k => "o200k",
            Encoding::Cl100k => "cl100k",
        }
    }
}

/// A level-1 text cut to a [`Budget`], and what was cut. It borrows the
/// skills' names from the catalog it was rendered from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fitted<'c> {
    /// The text: within the budget, and byte for byte the renderer's own
    /// when nothing had to be cut.
    pub text: String,
    /// What was shown whole, shortened or left out.
    pub report: BudgetReport<'c>,
}

impl Fitted<'_> {
    /// Counts `catalog`'s exposed skills that the text's renderer never
    /// lists (it lists only the described ones).
    fn unlisted_of(mut self, catalog: &Catalog) -> Self {
        let listed = self.report.full.len() + self.report.shortened.len() + self.report.omitted.len();
        self.report.unlisted = catalog.skills().len().saturating_sub(listed);
        self
    }
}

/// What a budget did to a level-1 text. Every skill the renderer would list
/// is in exactly one of `full`, `shortened` and `omitted`, each in the
/// renderer's order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BudgetReport<'c> {
    /// The budget applied.
    pub budget: Budget,
    /// The text's size in the budget's unit, measured on the text itself.
    pub used: usize,
    /// The most characters any description shows (its `…` included), when
    /// some description was shortened.
    pub share: Option<usize>,
    /// Skills shown with their whole description.
    pub full: Vec<&'c str>,
    /// Skills whose description was shortened, with the number of its
    /// characters left out.
    pub shortened: Vec<(&'c str, usize)>,
    /// Skills left out, from the end of the order.
    pub omitted: Vec<&'c str>,
    /// Exposed skills the renderer never lists (those without a
    /// description), which a search still finds: [`Budget::closed`]'s line
    /// counts them with `omitted`.
    pub unlisted: usize,
}

/// Why a budget string did not parse.
///
/// ```
/// use skilldeck::{Budget, ParseBudgetError};
///
/// assert_eq!("8000".parse::<Budget>(), Err(ParseBudgetError::Syntax("8000".into())));
/// assert!("8000".parse::<Budget>().unwrap_err().to_string().starts_with("invalid budget \"8000\": expected"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseBudgetError {
    /// Not a count followed by `c` or `t`.
    #[error(
        "invalid budget {0:?}: expected a count and a unit, such as 8000c (characters) or 2000t (tokens; 2000t:cl100k for cl100k)"
    )]
    Syntax(String),
    /// A token encoding other than `o200k` and `cl100k`.
    #[error("unknown token encoding {0:?} in a budget: use o200k or cl100k")]
    Encoding(String),
    /// A token budget, in a build without the `tokens` feature.
    #[error("token budgets need skilldeck built with the `tokens` feature; use a character budget such as 8000c")]
    NoTokens,
}

impl FromStr for Budget {
    type Err = ParseBudgetError;

    /// `<count>c`, `<count>t`, `<count>t:o200k` or `<count>t:cl100k`.
    fn from_str(s: &str) -> Result<Budget, ParseBudgetError> {
        let syntax = || ParseBudgetError::Syntax(s.to_owned());
        let digits = s.find(|c: char| !c.is_ascii_digit()).ok_or_else(syntax)?;
        let limit: usize = s[..digits].parse().map_err(|_| syntax())?;
        match &s[digits..] {
            "c" => Ok(Budget::chars(limit)),
            unit if unit == "t" || unit.starts_with("t:") => {
                let encoding = unit.strip_prefix("t:");
                #[cfg(feature = "tokens")]
                {
                    let encoding = match encoding {
                        None | Some("o200k") => Encoding::O200k,
                        Some("cl100k") => Encoding::Cl100k,
                        Some(other) => return Err(ParseBudgetError::Encoding(other.to_owned())),
                    };
                    Ok(Budget::tokens(limit, encoding))
                }
                #[cfg(not(feature = "tokens"))]
                {
                    let _ = encoding;
                    Err(ParseBudgetError::NoTokens)
                }
            }
            _ => Err(syntax()),
        }
    }
}

impl fmt::Display for Budget {
    /// The parseable form: `8000c`, `2000t:o200k`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.unit {
            Unit::Chars => write!(f, "{}c", self.limit),
            #[cfg(feature = "tokens")]
            Unit::Tokens(encoding) => write!(f, "{}t:{}", self.limit, encoding.as_str()),
        }
    }
}

impl fmt::Display for BudgetReport<'_> {
    /// Four lines: the budget and its use, then the full, shortened and
    /// omitted skills, each line with a count and the names (see [`Budget`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        /// `: a, b, c` (or just `:`) and the end of the line.
        fn names(f: &mut fmt::Formatter<'_>, names: impl Iterator<Item = impl fmt::Display>) -> fmt::Result {
            write!(f, ":")?;
            for (i, name) in names.enumerate() {
                write!(f, "{}{name}", if i == 0 { " " } else { ", " })?;
            }
            writeln!(f)
        }
        writeln!(f, "budget {}, used {}", self.budget, self.used)?;
        write!(f, "full ({})", self.full.len())?;
        names(f, self.full.iter())?;
        match self.share {
            Some(share) => write!(f, "shortened ({}, to {share} characters)", self.shortened.len())?,
            None => write!(f, "shortened ({})", self.shortened.len())?,
        }
        names(f, self.shortened.iter().map(|(name, cut)| format!("{name} (cut {cut})")))?;
        write!(f, "omitted ({})", self.omitted.len())?;
        names(f, self.omitted.iter())
    }
}

impl Budget {
    /// At most `limit` characters (Unicode scalar values).
    pub const fn chars(limit: usize) -> Budget {
        Budget { limit, unit: Unit::Chars, leaving_out: false }
    }

    /// At most `limit` tokens of `encoding` (feature `tokens`).
    ///
    /// ```
    /// use skilldeck::{Budget, Encoding};
    ///
    /// assert_eq!(Budget::tokens(2000, Encoding::Cl100k).to_string(), "2000t:cl100k");
    /// assert_eq!(Budget::tokens(10, Encoding::O200k).measure("hello world"), 2);
    /// ```
    #[cfg(feature = "tokens")]
    pub const fn tokens(limit: usize, encoding: Encoding) -> Budget {
        Budget { limit, unit: Unit::Tokens(encoding), leaving_out: false }
    }

    /// The size of `text` in this budget's unit.
    ///
    /// ```
    /// assert_eq!(skilldeck::Budget::chars(10).measure("año…"), 4);
    /// ```
    pub fn measure(&self, text: &str) -> usize {
        match self.unit {
            Unit::Chars => text.chars().count(),
            #[cfg(feature = "tokens")]
            Unit::Tokens(encoding) => encoding.tokenizer().count(text),
        }
    }

    /// The size of `text` if it is within the limit; may stop counting early
    /// when it is not.
    fn fits(&self, text: &str) -> Option<usize> {
        match self.unit {
            Unit::Chars => Some(text.chars().count()).filter(|&n| n <= self.limit),
            #[cfg(feature = "tokens")]
            Unit::Tokens(encoding) => {
                let tokenizer = encoding.tokenizer();
                tokenizer.count_till_limit(&tokenizer.normalize(text), self.limit)
            }
        }
    }

    /// [`render::toolnexus`] within this budget.
    pub fn toolnexus<'c>(&self, catalog: &'c Catalog) -> Fitted<'c> {
        let fitted = match self.leaving_out {
            // Which skills stay is the catalog's precedence (the project's first); they show
            // in the renderer's order.
            true => Fitter::new(*self, Layout::Toolnexus, &render::agentskills_skills(catalog)).shown_by_name().fit(),
            false => Fitter::new(*self, Layout::Toolnexus, &render::toolnexus_skills(catalog)).fit(),
        };
        fitted.unlisted_of(catalog)
    }

    /// [`render::agentskills`] within this budget. Escaping is counted: a
    /// share counts a description's own characters, the budget the escaped text.
    pub fn agentskills<'c>(&self, catalog: &'c Catalog) -> Fitted<'c> {
        Fitter::new(*self, Layout::Agentskills, &render::agentskills_skills(catalog)).fit().unlisted_of(catalog)
    }

    /// [`render::insika`] within this budget, for an agent's lazy skills.
    ///
    /// ```
    /// use skilldeck::{AgentProfile, Budget, Catalog, SkillDef};
    ///
    /// let catalog = Catalog::builder().skill(SkillDef::new("cardapio").description("o cardápio do dia")).build();
    /// let profile = AgentProfile::new("loja");
    /// let view = catalog.view(&profile);
    /// let fitted = Budget::chars(10).insika(&view.lazy());
    /// assert_eq!((fitted.text.as_str(), fitted.report.omitted.as_slice()), ("", &["cardapio"][..]));
    /// ```
    pub fn insika<'c>(&self, skills: &[&'c Skill]) -> Fitted<'c> {
        Fitter::new(*self, Layout::Insika, skills).fit()
    }
}

/// The line that closes a budgeted level-1 text which left `omitted` skills
/// out (see [`Budget::closed`]): how many, and that `search_tool` reaches
/// every one of them.
///
/// ```
/// assert_eq!(
///     skilldeck::closing_line(2, "find_skills"),
///     "(2 more skills are not listed here: call find_skills with a few words of the task to search every skill.)"
/// );
/// assert!(skilldeck::closing_line(1, "find_skills").starts_with("(1 more skill is not listed here:"));
/// ```
pub fn closing_line(omitted: usize, search_tool: &str) -> String {
    let (skills, are) = if omitted == 1 { ("skill", "is") } else { ("skills", "are") };
    format!(
        "({omitted} more {skills} {are} not listed here: call {search_tool} with a few words of the task to search every skill.)"
    )
}

impl Budget {
    /// A level-1 text within this budget that says what it left out: `fit`
    /// (such as `|b| b.toolnexus(&catalog)`) as it is when it shows every
    /// skill with its description whole or shortened to at least
    /// [`CLOSED_MIN_SHARE`] characters; else fitted to what remains once room
    /// is kept for a blank line and the [`closing_line`] naming
    /// `search_tool`, and closed by that line, which counts exactly the
    /// skills the report omits and those it never lists (`unlisted`): every
    /// skill a search reaches that the text does not show. Beside the line, fewer skills show, each
    /// readable: no description is shortened below `CLOSED_MIN_SHARE`, and
    /// which skills stay follows the catalog's precedence (the first roots'
    /// first: a project's skills before the user's and a registry's), shown
    /// in the renderer's order. The report's
    /// budget is this one and `used` measures the whole text. When no entry
    /// fits beside the line, the text is the line alone (and empty if even
    /// that is over budget).
    ///
    /// ```
    /// use skilldeck::{Budget, Catalog, SkillDef, render};
    ///
    /// let catalog = Catalog::builder()
    ///     .skill(SkillDef::new("alpha").description("First."))
    ///     .skill(SkillDef::new("beta").description("Second."))
    ///     .build();
    /// // Too small for the list: the line alone, counting both.
    /// let fitted = Budget::chars(150).closed("find_skills", |b| b.toolnexus(&catalog));
    /// assert_eq!(
    ///     fitted.text,
    ///     "(2 more skills are not listed here: call find_skills with a few words of the task to search every skill.)"
    /// );
    /// assert_eq!(fitted.report.omitted, ["alpha", "beta"]);
    /// // Room for everything: the renderer's text, not closed.
    /// let roomy = Budget::chars(8000).closed("find_skills", |b| b.toolnexus(&catalog));
    /// assert_eq!(roomy.text, render::toolnexus(&catalog));
    /// ```
    pub fn closed<'c>(&self, search_tool: &str, fit: impl Fn(Budget) -> Fitted<'c>) -> Fitted<'c> {
        let whole = fit(*self);
        // Every skill fits, each description whole or shortened to a readable share.
        if whole.report.omitted.is_empty() && whole.report.share.is_none_or(|share| share >= CLOSED_MIN_SHARE) {
            return whole;
        }
        let report = &whole.report;
        let listed = report.full.len() + report.shortened.len() + report.omitted.len() + report.unlisted;
        // The line for every skill has at least as many digits as the one
        // that will be written: in characters the first try always fits.
        let mut reserve = self.measure(&format!("\n\n{}", closing_line(listed, search_tool)));
        loop {
            let mut fitted = fit(Budget { limit: self.limit.saturating_sub(reserve), leaving_out: true, ..*self });
            let line = closing_line(fitted.report.omitted.len() + fitted.report.unlisted, search_tool);
            let text = match fitted.report.full.is_empty() && fitted.report.shortened.is_empty() {
                true => line,
                false => format!("{}\n\n{line}", fitted.text),
            };
            fitted.report.budget = *self;
            if let Some(used) = self.fits(&text) {
                (fitted.text, fitted.report.used) = (text, used);
                return fitted;
            }
            if reserve >= self.limit {
                (fitted.text, fitted.report.used) = (String::new(), 0);
                return fitted;
            }
            // Tokens do not add up across the joint: keep more room and fit again.
            reserve += (self.measure(&text) - self.limit).max(1);
        }
    }
}

/// A share that shows every description whole.
const WHOLE: usize = usize::MAX;

/// The smallest share: a long description shows as a lone `…`.
const MIN_SHARE: usize = 1;

/// The smallest share beside a closing line, when skills are left out
/// anyway: a sentence, enough for a model to tell what a skill is for. Of the
/// 8,205 public skills of `bench/retrieval`, a third have descriptions this
/// short (the median is 178 characters); in 2,000 characters about a dozen
/// skills show so, where a share of one showed some 70 names and `…`.
///
/// ```
/// assert_eq!(skilldeck::CLOSED_MIN_SHARE, 120);
/// ```
pub const CLOSED_MIN_SHARE: usize = 120;

/// `description` within `share` characters: whole if it is no longer, else
/// its first `share - 1` characters less trailing whitespace, then `…`.
/// `share` is at least 1.
fn shorten(description: &str, share: usize) -> Cow<'_, str> {
    let mut starts = description.char_indices().map(|(i, _)| i);
    match (starts.nth(share - 1), starts.next()) {
        // There is a character after the share: cut before character `share - 1`.
        (Some(cut), Some(_)) => format!("{}…", description[..cut].trim_end()).into(),
        _ => description.into(),
    }
}

/// The largest value in `lo..hi` for which `fits` holds, given that it holds
/// for `lo` and not for `hi` (bisection; `fits` is taken to be monotone).
fn bisect(mut lo: usize, mut hi: usize, mut fits: impl FnMut(usize) -> bool) -> usize {
    while lo + 1 < hi {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The largest value in `lo..hi` for which `fits` holds, given that it holds
/// for `lo`: searches outward from `guess` in doubling steps, then bisects.
/// Neither `lo` nor `hi` is asked; a right guess costs two questions.
#[cfg_attr(not(feature = "tokens"), allow(dead_code))] // Characters need no guesses.
fn largest_from(lo: usize, guess: usize, hi: usize, mut fits: impl FnMut(usize) -> bool) -> usize {
    let guess = guess.clamp(lo, hi.saturating_sub(1).max(lo));
    if guess == lo || fits(guess) {
        let (mut lo, mut step) = (guess, 1);
        loop {
            let probe = lo.saturating_add(step);
            if probe >= hi {
                return bisect(lo, hi, fits);
            }
            if !fits(probe) {
                return bisect(lo, probe, fits);
            }
            (lo, step) = (probe, step.saturating_mul(2));
        }
    } else {
        let (mut hi, mut step) = (guess, 1);
        loop {
            let probe = hi.saturating_sub(step).max(lo);
            if probe == lo || fits(probe) {
                return bisect(probe, hi, fits);
            }
            (hi, step) = (probe, step.saturating_mul(2));
        }
    }
}

/// One budgeted render: the skills in the renderer's order, and what is
/// known about their sizes.
struct Fitter<'s, 'c> {
    budget: Budget,
    layout: Layout,
    skills: &'s [&'c Skill],
    /// The characters of each description, for a prefix of `skills`.
    lens: Vec<usize>,
    /// A character budget's measure of each entry with its whole description,
    /// for the same prefix.
    whole: Vec<usize>,
    /// A character budget's measure of the head and tail together.
    frame: usize,
    /// A token budget's last text that fitted: its share, entries and size.
    #[cfg_attr(not(feature = "tokens"), allow(dead_code))]
    last_fit: Option<(usize, usize, usize)>,
    scratch: String,
    /// The smallest share a shown description may have.
    min_share: usize,
    /// Whether the entries kept show by name rather than in `skills`' order.
    by_name: bool,
}

impl<'s, 'c> Fitter<'s, 'c> {
    fn new(budget: Budget, layout: Layout, skills: &'s [&'c Skill]) -> Fitter<'s, 'c> {
        let mut frame = String::new();
        layout.head(&mut frame);
        layout.tail(&mut frame);
        let frame = frame.chars().count();
        Fitter {
            budget,
            layout,
            skills,
            lens: Vec::new(),
            whole: Vec::new(),
            frame,
            last_fit: None,
            scratch: String::new(),
            min_share: if budget.leaving_out { CLOSED_MIN_SHARE } else { MIN_SHARE },
            by_name: false,
        }
    }

    /// Shows the entries kept by name: `skills` gives only which are kept.
    fn shown_by_name(mut self) -> Self {
        self.by_name = true;
        self
    }

    /// The first `k` entries, in the order they show.
    fn shown(&self, k: usize) -> Vec<usize> {
        let mut shown: Vec<usize> = (0..k).collect();
        if self.by_name {
            shown.sort_by(|&a, &b| self.skills[a].name().cmp(self.skills[b].name()));
        }
        shown
    }

    fn description(&self, i: usize) -> &'c str {
        self.skills[i].description().unwrap_or_default()
    }

    /// Measures the entries up to `i` that are not measured yet.
    fn learn(&mut self, i: usize) {
        while self.lens.len() <= i {
            let n = self.lens.len();
            let description = self.description(n);
            self.lens.push(description.chars().count());
            self.scratch.clear();
            self.layout.entry(&mut self.scratch, self.skills[n], description);
            self.whole.push(self.scratch.chars().count());
        }
    }

    /// Characters of entry `i` with `share`.
    fn entry_chars(&mut self, i: usize, share: usize) -> usize {
        self.learn(i);
        if share >= self.lens[i] {
            return self.whole[i];
        }
        let shown = shorten(self.description(i), share);
        self.scratch.clear();
        self.layout.entry(&mut self.scratch, self.skills[i], &shown);
        self.scratch.chars().count()
    }

    /// Writes the text of the first `k` (at least one) entries with `share` to
    /// `out`; stops, returning false, once it has more than `max_bytes` bytes.
    fn render(&self, share: usize, k: usize, out: &mut String, max_bytes: usize) -> bool {
        out.clear();
        self.layout.head(out);
        for i in self.shown(k) {
            self.layout.entry(out, self.skills[i], &shorten(self.description(i), share));
            if out.len() > max_bytes {
                return false;
            }
        }
        self.layout.tail(out);
        out.len() <= max_bytes
    }

    /// The size of the first `k` (at least one) entries with `share`, if it
    /// is within the limit.
    fn size(&mut self, share: usize, k: usize) -> Option<usize> {
        match self.budget.unit {
            Unit::Chars => {
                let mut total = self.frame;
                for i in 0..k {
                    total += self.entry_chars(i, share);
                    if total > self.budget.limit {
                        return None;
                    }
                }
                Some(total)
            }
            #[cfg(feature = "tokens")]
            Unit::Tokens(encoding) => {
                // Past this many bytes there are more tokens than the limit, so
                // a large catalog is never rendered whole just to be refused.
                let max_bytes = self.budget.limit.saturating_mul(encoding.longest_token());
                let mut text = std::mem::take(&mut self.scratch);
                let size = if self.render(share, k, &mut text, max_bytes) { self.budget.fits(&text) } else { None };
                if let Some(size) = size {
                    self.last_fit = Some((share, k, size));
                }
                self.scratch = text;
                size
            }
        }
    }

    fn fits(&mut self, share: usize, k: usize) -> bool {
        self.size(share, k).is_some()
    }

    /// The share and the number of entries shown.
    fn plan(&mut self) -> (usize, usize) {
        let m = self.skills.len();
        if m == 0 || self.fits(WHOLE, m) {
            return (WHOLE, m);
        }
        let k = match self.budget.unit {
            Unit::Chars => self.most_entries_in_chars(),
            #[cfg(feature = "tokens")]
            Unit::Tokens(_) => self.most_entries_in_tokens(),
        };
        if k == 0 || (k < m && self.fits(WHOLE, k)) {
            return (WHOLE, k);
        }
        self.learn(k - 1);
        let longest = self.lens[..k].iter().copied().max().unwrap_or(0);
        // The smallest share fits; `longest` shows every description whole, which does not.
        let share = match self.budget.unit {
            Unit::Chars => bisect(self.min_share, longest, |share| self.fits(share, k)),
            #[cfg(feature = "tokens")]
            Unit::Tokens(_) => {
                let guess = self.share_guess(k, longest);
                largest_from(self.min_share, guess, longest, |share| self.fits(share, k))
            }
        };
        (share, k)
    }

    /// The most entries that fit with the smallest share, in characters: the
    /// running sum of entry sizes is exact.
    fn most_entries_in_chars(&mut self) -> usize {
        let mut total = self.frame;
        for i in 0..self.skills.len() {
            total += self.entry_chars(i, self.min_share);
            if total > self.budget.limit {
                return i;
            }
        }
        self.skills.len()
    }

    /// The most entries that fit with the smallest share, in tokens. The guess
    /// adds up what each entry costs in context (the tokens it adds to the text
    /// before it, so that a token across the joint counts once); whole texts
    /// measured around the guess decide.
    #[cfg(feature = "tokens")]
    fn most_entries_in_tokens(&mut self) -> usize {
        let m = self.skills.len();
        let (mut previous, mut tail, mut pair) = (String::new(), String::new(), String::new());
        self.layout.head(&mut previous);
        self.layout.tail(&mut tail);
        let mut previous_tokens = self.budget.measure(&previous);
        let mut total = previous_tokens + self.budget.measure(&tail);
        let mut guess = m;
        for i in 0..m {
            let mut entry = String::new();
            self.layout.entry(&mut entry, self.skills[i], &shorten(self.description(i), self.min_share));
            pair.clear();
            pair.push_str(&previous);
            pair.push_str(&entry);
            total += self.budget.measure(&pair).saturating_sub(previous_tokens);
            if total > self.budget.limit {
                guess = i;
                break;
            }
            previous_tokens = self.budget.measure(&entry);
            previous = entry;
        }
        largest_from(0, guess, m + 1, |k| self.fits(self.min_share, k))
    }

    /// A first guess at the share in tokens: the share whose extra
    /// description characters, at the descriptions' own tokens per character,
    /// fill what the smallest share leaves of the budget.
    #[cfg(feature = "tokens")]
    fn share_guess(&mut self, k: usize, longest: usize) -> usize {
        let used = match self.last_fit {
            Some((share, fitted, used)) if share == self.min_share && fitted == k => Some(used),
            _ => self.size(self.min_share, k),
        };
        let Some(used) = used else { return self.min_share };
        let slack = (self.budget.limit - used) as u128;
        let descriptions: String = (0..k).flat_map(|i| [self.description(i), "\n"]).collect();
        let tokens = self.budget.measure(&descriptions) as u128;
        let lens = &self.lens[..k];
        let chars = lens.iter().sum::<usize>() as u128;
        let min_share = self.min_share;
        let extra = |share: usize| lens.iter().map(|&n| n.min(share) - n.min(min_share)).sum::<usize>() as u128;
        bisect(min_share, longest, |share| extra(share) * tokens <= slack * chars)
    }

    fn fit(mut self) -> Fitted<'c> {
        let (share, k) = self.plan();
        let mut text = String::new();
        let mut used = None;
        if k > 0 {
            self.render(share, k, &mut text, usize::MAX);
            used = self.budget.fits(&text);
        }
        // Every search step measured the text it accepted; this is the check.
        debug_assert!(k == 0 || used.is_some(), "a budgeted text over its budget");
        let k = if used.is_some() { k } else { 0 };
        if k == 0 {
            text = self.layout.empty().to_owned();
            used = self.budget.fits(&text);
            if used.is_none() {
                text.clear();
            }
        }
        let mut report = BudgetReport {
            budget: self.budget,
            used: used.unwrap_or(0),
            share: None,
            full: Vec::new(),
            shortened: Vec::new(),
            omitted: self.skills[k..].iter().map(|s| s.name()).collect(),
            unlisted: 0,
        };
        for i in self.shown(k) {
            self.learn(i);
            let name = self.skills[i].name();
            let shown = shorten(self.description(i), share);
            match shown {
                Cow::Borrowed(_) => report.full.push(name),
                Cow::Owned(shown) => {
                    report.share = Some(share);
                    report.shortened.push((name, self.lens[i] - (shown.chars().count() - 1)));
                }
            }
        }
        Fitted { text, report }
    }
}

#[cfg(test)]
mod tests;
