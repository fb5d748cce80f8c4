//! Search: ranked retrieval over one snapshot's skills (SPEC §13), so that a
//! skill a level-1 budget leaves out is still reachable.
//!
//! The method is BM25F: each skill is one document with four fields (name,
//! description, triggers, body), each field's term frequencies normalised by
//! its own length and weighted before one saturation. Tokens are Insika's
//! fold (NFD, marks out, lowercase) split at every character that is not a
//! word character, Chinese and Japanese as bigrams; a name with separators is
//! also kept whole, and a query equal to a name ranks that skill first. A
//! query whose best match covers too little of what the query says, with
//! too little evidence, is refused (abstention) rather than answered with
//! unrelated skills.
//!
//! A query term also matches the other forms of its English stem (`fonts`
//! finds `font`, `branding` finds `brand`), at [`STEM_WEIGHT`] of an exact
//! match: a query expansion, so the exact word still ranks first.
//!
//! The weights, `k1`, the body cut, the stems' weight and the abstention
//! thresholds were chosen on the retrieval evaluation (`bench/retrieval`,
//! with `examples/tune_search.rs`). The index is built once per snapshot, on
//! first use (the start of each body read on the walker's pool and not
//! kept), and shared by every reader of the snapshot; a catalog nobody
//! searches never builds it. [`Catalog::save_search`] gives it as bytes and
//! [`SavedSearch`] reads them back (`saved.rs`), for a cache across runs.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use crate::agent::AgentView;
use crate::catalog::Catalog;
use crate::model::{Origin, Skill};
use crate::text::{fold, is_word_char, prefix};

mod saved;

pub use saved::{SavedSearch, SavedSearchError};

/// What a search found: the ranked hits, or none and `abstained` when
/// nothing matched the query well enough (an empty query included).
///
/// # Example
///
/// ```
/// use skilldeck::{Catalog, SkillDef};
///
/// let catalog = Catalog::builder()
///     .skill(SkillDef::new("pdf-forms").description("Fill in and flatten PDF forms.").content("Use pdftk."))
///     .skill(SkillDef::new("release").description("Cut a release of the project.").content("1. Bump."))
///     .build();
/// let found = catalog.search("fill a pdf form", 10);
/// assert!(!found.abstained);
/// assert_eq!(found.hits[0].skill.name(), "pdf-forms");
/// assert!(catalog.search("what is the weather in Lisbon", 10).abstained);
/// ```
#[derive(Debug, Clone)]
pub struct SearchResults<'c> {
    /// The hits, best first; ties in catalog order.
    pub hits: Vec<Hit<'c>>,
    /// Whether `hits` is empty because nothing matched well enough.
    pub abstained: bool,
}

/// One ranked skill.
#[derive(Debug, Clone)]
pub struct Hit<'c> {
    /// The skill.
    pub skill: &'c Skill,
    /// How well it matches: higher is better; comparable within one search.
    pub score: f64,
}

/// The fields of a skill document, in this order everywhere.
const FIELDS: usize = 4;
const NAME: usize = 0;
const DESCRIPTION: usize = 1;
const TRIGGERS: usize = 2;
const BODY: usize = 3;

/// BM25F field weights: name, description, triggers, body. A term in the
/// name says most about what the skill is for; the body is long and says
/// much that is incidental.
pub const FIELD_WEIGHTS: [f32; FIELDS] = [3.0, 2.0, 2.0, 0.2];

/// BM25F length normalisation per field (`b`): names are all short, so
/// their length says little.
pub const FIELD_B: [f32; FIELDS] = [0.3, 0.75, 0.5, 0.75];

/// BM25 term-frequency saturation (`k1`).
pub const K1: f32 = 1.2;

/// How much of a body is indexed, in bytes (cut at a character boundary):
/// the start of a body says what it is about, the rest mostly how. Chosen
/// on `bench/retrieval` (`tune_search … body`): with stems, 4,000 bytes rank
/// as well as 32 KiB (NDCG@10 0.782 against 0.781) and the index is built in
/// half the time, reading only each file's start.
pub const BODY_INDEXED_BYTES: usize = 4_000;

/// The abstention rule's coverage threshold: the best hit's score over the
/// score a perfect match of every informative query term would get (the sum
/// of their IDFs). A search abstains when coverage is below this *and*
/// strength is below [`ABSTAIN_STRENGTH`]: a short query (what a model sends
/// to `find_skills`) is judged by how much of it the best skill covers, a
/// long one (what a user writes) by how much evidence the best skill has.
pub const ABSTAIN_COVERAGE: f64 = 0.6;

/// The abstention rule's strength threshold: the best hit's score over the
/// IDF of a term only one skill has, so "how many rare terms' worth" of match
/// it has, whatever the catalog's size. See [`ABSTAIN_COVERAGE`].
pub const ABSTAIN_STRENGTH: f64 = 0.55;

/// What a match by stem alone scores, as a share of an exact match: a
/// query's `fonts` also finds a skill that says `font`, below one that says
/// `fonts`. English stems (Porter 2) of terms of at least four letters.
pub const STEM_WEIGHT: f64 = 0.5;

/// The shortest term that is stemmed: shorter ones are mostly names and
/// abbreviations (`git`, `aws`), which a stemmer would only confuse.
const STEMMED_MIN_LEN: usize = 4;

/// How much of a query is read, in bytes (cut at a character boundary): a
/// request is a sentence or two, and a pasted megabyte must not cost a
/// megabyte of lookups.
pub const MAX_QUERY_BYTES: usize = 4 * 1024;

/// Words that say nothing about which skill a request needs: English
/// function words and the phrases people wrap requests in. Dropped from
/// queries only; documents keep them (a name like `how-to` still matches).
const STOPWORDS: &[&str] = &[
    "a", "about", "am", "an", "and", "any", "are", "as", "at", "be", "been", "but", "by", "can", "could", "do", "does",
    "doing", "for", "from", "get", "give", "had", "has", "have", "help", "how", "i", "if", "in", "into", "is", "it",
    "its", "just", "let", "like", "me", "my", "need", "of", "on", "or", "our", "please", "some", "so", "that", "the",
    "their", "them", "then", "there", "these", "this", "those", "to", "up", "us", "want", "was", "we", "were", "what",
    "when", "where", "which", "who", "why", "will", "with", "would", "you", "your",
    // Portuguese and Spanish (folded), the languages of Insika's stores.
    "com", "como", "con", "da", "das", "de", "del", "do", "dos", "e", "el", "em", "en", "es", "esta", "eu", "la", "las",
    "los", "meu", "mi", "minha", "na", "no", "o", "os", "para", "por", "qual", "que", "quero", "se", "um", "uma", "un",
    "una", "y",
];

/// The parameters of the ranking and the abstention rule, for measuring
/// others than the defaults (the evaluation's tuning harness). Not a stable
/// interface.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct Tuning {
    /// BM25F field weights.
    pub field_weights: [f32; FIELDS],
    /// BM25F length normalisation per field.
    pub field_b: [f32; FIELDS],
    /// Term-frequency saturation.
    pub k1: f32,
    /// The abstention rule's coverage threshold.
    pub abstain_coverage: f64,
    /// The abstention rule's strength threshold.
    pub abstain_strength: f64,
    /// How much of a body is indexed, in bytes.
    pub body_bytes: usize,
    /// What a document matching a query term only by its stem scores, as a
    /// share of an exact match (0: no stemming).
    pub stem_weight: f64,
}

impl Tuning {
    /// The abstention rule: whether a best match of this coverage and
    /// strength is too weak to answer with (both below their thresholds).
    pub fn abstains(&self, coverage: f64, strength: f64) -> bool {
        coverage < self.abstain_coverage && strength < self.abstain_strength
    }
}

impl Default for Tuning {
    fn default() -> Tuning {
        Tuning {
            field_weights: FIELD_WEIGHTS,
            field_b: FIELD_B,
            k1: K1,
            abstain_coverage: ABSTAIN_COVERAGE,
            abstain_strength: ABSTAIN_STRENGTH,
            body_bytes: BODY_INDEXED_BYTES,
            stem_weight: STEM_WEIGHT,
        }
    }
}

/// The search index of one snapshot: every exposed skill, then every
/// agent's own records (agent by agent, each by key), as documents.
pub(crate) struct SearchIndex {
    /// The documents; `docs[..shared]` are the catalog's exposed skills in
    /// catalog order.
    docs: Vec<Skill>,
    shared: usize,
    /// The first document of each agent's records.
    agents: BTreeMap<String, usize>,
    /// Term to its postings' range in `postings`.
    terms: HashMap<Box<str>, (u32, u32)>,
    /// Every term's postings, one run per term, by document.
    postings: Vec<Posting>,
    /// A stem to the postings' ranges of the terms that have it (only stems
    /// that more than one indexed term shares).
    stems: HashMap<Box<str>, Vec<(u32, u32)>>,
    /// Folded name to its documents (names differing only in case or accents
    /// fold together).
    names: HashMap<Box<str>, Vec<u32>>,
    tuning: Tuning,
}

/// One document's BM25F pseudo-frequency for one term: the weighted,
/// length-normalised frequencies of its fields, summed. It does not depend
/// on the query, so it is computed once.
#[derive(Clone, Copy, Debug)]
struct Posting {
    doc: u32,
    weight: f32,
}

impl fmt::Debug for SearchIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SearchIndex")
            .field("docs", &self.docs.len())
            .field("terms", &self.terms.len())
            .field("postings", &self.postings.len())
            .finish()
    }
}

/// One document's term counts per field, and each field's length in
/// tokens. The terms are one text, each term's counts beside where it ends
/// in it: two allocations a document, not one a term.
struct Analyzed {
    text: String,
    terms: Vec<(u32, [u16; FIELDS])>,
    lengths: [u32; FIELDS],
}

impl Analyzed {
    /// Each term with its counts, in the order they first occur.
    fn terms(&self) -> impl Iterator<Item = (&str, [u16; FIELDS])> {
        let mut start = 0;
        self.terms.iter().map(move |&(end, counts)| {
            let term = &self.text[start..end as usize];
            start = end as usize;
            (term, counts)
        })
    }
}

impl SearchIndex {
    /// Indexes `catalog`: its exposed skills, then every agent's records.
    /// Documents are analysed in parallel; bodies are read and dropped.
    pub(crate) fn build(catalog: &Catalog, tuning: Tuning) -> SearchIndex {
        let mut docs: Vec<Skill> = catalog.skills().cloned().collect();
        let shared = docs.len();
        let mut agents = BTreeMap::new();
        for (agent, records) in catalog.agents() {
            agents.insert(agent.to_owned(), docs.len());
            docs.extend(records.iter().cloned());
        }
        let analyzed = skilldeck_walk::parallel_map(&docs, |skill| analyze(skill, tuning.body_bytes));

        let mut average = [0f32; FIELDS];
        for doc in &analyzed {
            for (sum, &len) in average.iter_mut().zip(&doc.lengths) {
                *sum += len as f32;
            }
        }
        for sum in &mut average {
            *sum = (*sum / docs.len().max(1) as f32).max(1.0);
        }

        // Each document's terms as ids and weights, counting each term's documents; then
        // every term's postings in one array, by term id then document (documents are in
        // order, and each one's terms in a fixed order, so the build is the same every time).
        let mut ids: HashMap<Box<str>, u32> = HashMap::new();
        let mut df: Vec<u32> = Vec::new();
        let weighted: Vec<Vec<(u32, f32)>> = analyzed
            .into_iter()
            .map(|analyzed| {
                let norms: [f32; FIELDS] = std::array::from_fn(|f| {
                    let b = tuning.field_b[f];
                    tuning.field_weights[f] / (1.0 - b + b * analyzed.lengths[f] as f32 / average[f])
                });
                let mut terms = Vec::with_capacity(analyzed.terms.len());
                for (term, tf) in analyzed.terms() {
                    let weight: f32 = tf.iter().zip(&norms).map(|(&n, norm)| f32::from(n) * norm).sum();
                    // A term only in fields weighted zero says nothing (and must not touch a document).
                    if weight <= 0.0 {
                        continue;
                    }
                    let id = match ids.get(term) {
                        Some(&id) => id,
                        None => {
                            let id = df.len() as u32;
                            ids.insert(term.into(), id);
                            df.push(0);
                            id
                        }
                    };
                    df[id as usize] += 1;
                    terms.push((id, weight));
                }
                terms
            })
            .collect();
        let mut ranges = Vec::with_capacity(df.len());
        let mut end = 0u32;
        for &count in &df {
            ranges.push((end, end + count));
            end += count;
        }
        let mut postings = vec![Posting { doc: 0, weight: 0.0 }; end as usize];
        let mut filled: Vec<u32> = ranges.iter().map(|&(start, _)| start).collect();
        for (doc, terms) in weighted.into_iter().enumerate() {
            for (id, weight) in terms {
                let at = &mut filled[id as usize];
                postings[*at as usize] = Posting { doc: doc as u32, weight };
                *at += 1;
            }
        }
        let terms: HashMap<Box<str>, (u32, u32)> =
            ids.into_iter().map(|(term, id)| (term, ranges[id as usize])).collect();
        let stems = if tuning.stem_weight > 0.0 { stem_groups(&terms) } else { HashMap::new() };
        SearchIndex { docs, shared, agents, terms, postings, stems, names: HashMap::new(), tuning }.with_names()
    }

    /// The index with its name table made from its documents (built or
    /// read back).
    fn with_names(mut self) -> SearchIndex {
        for (doc, skill) in self.docs.iter().enumerate() {
            self.names.entry(fold(skill.name().trim()).into()).or_default().push(doc as u32);
        }
        self
    }

    /// Ranks the exposed skills (no agent's own records) for `query`.
    fn search_shared(&self, query: &str, limit: usize) -> SearchResults<'_> {
        let shared = self.shared as u32;
        self.search(query, limit, true, |doc| (doc < shared).then_some(doc))
    }

    /// The postings of the term whose range is `range` (none for no term).
    fn run(&self, range: Option<(u32, u32)>) -> &[Posting] {
        range.map_or(&[][..], |(start, end)| &self.postings[start as usize..end as usize])
    }

    /// Ranks the visible documents for `query`. `visible` gives a document's
    /// place in the searcher's order, `None` when it may not be seen. With
    /// `abstain`, a weak best match returns nothing.
    fn search<'c>(
        &'c self,
        query: &str,
        limit: usize,
        abstain: bool,
        visible: impl Fn(u32) -> Option<u32>,
    ) -> SearchResults<'c> {
        let ranking = self.rank(query, limit, visible);
        if abstain && ranking.abstains(&self.tuning) {
            return SearchResults { hits: Vec::new(), abstained: true };
        }
        let hits =
            ranking.hits.into_iter().map(|(score, doc)| Hit { skill: &self.docs[doc as usize], score }).collect();
        SearchResults { hits, abstained: false }
    }

    /// The best `limit` visible documents for `query`, and the best one's
    /// coverage and strength (see [`ABSTAIN_COVERAGE`]; infinite for an exact
    /// name).
    fn rank(&self, query: &str, limit: usize, visible: impl Fn(u32) -> Option<u32>) -> Ranking {
        let raw = query;
        let query = prefix(query, MAX_QUERY_BYTES).trim();
        let folded = fold(query);
        let mut seen = HashSet::new();
        let terms: Vec<&str> = words(&folded).into_iter().filter(|t| seen.insert(*t)).collect();
        let informative: Vec<&str> = terms.iter().copied().filter(|t| !STOPWORDS.contains(t)).collect();
        // A name with separators is also one token; a query naming it that way matches it.
        let wholes: Vec<&str> = folded
            .split(char::is_whitespace)
            .map(|w| w.trim_matches(|c: char| !is_word_char(c)))
            .filter(|w| w.contains(|c: char| !is_word_char(c)) && seen.insert(w))
            .collect();

        let n = self.docs.len() as f64;
        let idf = |df: usize| (1.0 + (n - df as f64 + 0.5) / (df as f64 + 0.5)).ln();
        let k1 = f64::from(self.tuning.k1);
        let mut scores: Vec<f64> = Vec::new();
        let mut touched: Vec<u32> = Vec::new();
        let mut perfect = 0.0;
        for (term, counts) in informative.iter().map(|t| (*t, true)).chain(wholes.iter().map(|t| (*t, false))) {
            let range = self.terms.get(term).copied();
            let run = self.run(range);
            let term_idf = idf(run.len());
            if counts {
                perfect += term_idf;
            }
            let mut add = |doc: u32, score: f64| {
                if scores.is_empty() {
                    scores = vec![0.0; self.docs.len()];
                }
                let total = &mut scores[doc as usize];
                if *total == 0.0 {
                    touched.push(doc);
                }
                *total += score;
            };
            let bm25 = |posting: &Posting, idf: f64| {
                let w = f64::from(posting.weight);
                idf * w / (k1 + w)
            };
            for posting in run.iter().filter(|p| visible(p.doc).is_some()) {
                add(posting.doc, bm25(posting, term_idf));
            }
            // The term's other forms: a document that has one of them but not the term scores
            // a share of its best such match (a document never scores twice for one term).
            let forms = if counts { stem(term).and_then(|stem| self.stems.get(stem.as_ref())) } else { None };
            let variants: Vec<(u32, u32)> =
                forms.into_iter().flatten().copied().filter(|&variant| Some(variant) != range).collect();
            if variants.is_empty() {
                continue;
            }
            let exact: HashSet<u32> = run.iter().map(|p| p.doc).collect();
            let mut by_stem: HashMap<u32, f64> = HashMap::new();
            for variant in variants {
                let variant = self.run(Some(variant));
                let variant_idf = idf(variant.len());
                for posting in variant.iter().filter(|p| !exact.contains(&p.doc) && visible(p.doc).is_some()) {
                    let best = by_stem.entry(posting.doc).or_insert(0.0);
                    *best = best.max(bm25(posting, variant_idf));
                }
            }
            // Each document gets one sum per term, so the map's order changes no score.
            for (doc, score) in by_stem {
                add(doc, self.tuning.stem_weight * score);
            }
        }

        // An exact name (as written, else folded) ranks first whatever the rest scores.
        let exact = |doc: u32| -> u8 {
            let name = self.docs[doc as usize].name();
            if name == raw || name == query { 2 } else { 1 }
        };
        let mut named: Vec<(u8, u32)> = self
            .names
            .get(folded.as_str())
            .into_iter()
            .flatten()
            .filter(|&&doc| visible(doc).is_some())
            .map(|&doc| (exact(doc), doc))
            .collect();
        named.sort_by_key(|&(rank, doc)| (std::cmp::Reverse(rank), visible(doc)));

        let mut ranked: Vec<(f64, u32)> = touched
            .iter()
            .filter(|doc| named.iter().all(|(_, d)| d != *doc))
            .map(|&doc| (scores[doc as usize], doc))
            .collect();
        let order = |a: &(f64, u32), b: &(f64, u32)| b.0.total_cmp(&a.0).then_with(|| visible(a.1).cmp(&visible(b.1)));
        // Only the best `limit` (at least one, for the confidence) are put in order.
        let keep = limit.max(1);
        if ranked.len() > keep {
            ranked.select_nth_unstable_by(keep - 1, order);
            ranked.truncate(keep);
        }
        ranked.sort_by(order);

        let best_other = ranked.first().map_or(0.0, |r| r.0);
        let (coverage, strength) = match (named.is_empty(), perfect > 0.0) {
            (false, _) => (f64::INFINITY, f64::INFINITY),
            (true, true) => (best_other / perfect, best_other / idf(1)),
            (true, false) => (0.0, 0.0),
        };
        // Exact names keep their order above the rest, each a point above the next.
        let mut floor = best_other;
        let mut hits: Vec<(f64, u32)> = named
            .iter()
            .rev()
            .map(|&(_, doc)| {
                let own = scores.get(doc as usize).copied().unwrap_or(0.0);
                floor = own.max(floor + 1.0);
                (floor, doc)
            })
            .collect();
        hits.reverse();
        hits.extend(ranked);
        hits.truncate(limit);
        Ranking { hits, coverage, strength }
    }
}

/// What [`SearchIndex::rank`] found: the best documents with their scores,
/// best first, and what the abstention rule reads.
struct Ranking {
    hits: Vec<(f64, u32)>,
    /// The best score over the query's perfect score.
    coverage: f64,
    /// The best score over the IDF of a term one document has.
    strength: f64,
}

impl Ranking {
    /// Whether the best match is too weak to answer with.
    fn abstains(&self, tuning: &Tuning) -> bool {
        tuning.abstains(self.coverage, self.strength)
    }
}

/// The tokens of folded text: runs of word characters, except that Chinese
/// and Japanese, written without spaces, give each pair of neighbouring
/// ideographs or kana (a bigram; a lone one is itself).
fn words(folded: &str) -> Vec<&str> {
    // Most text is ASCII: split it by bytes, with no character's category to look up.
    if folded.is_ascii() {
        return folded.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()).collect();
    }
    let mut out = Vec::new();
    for run in folded.split(|c: char| !is_word_char(c)).filter(|w| !w.is_empty()) {
        if !run.contains(is_cjk) {
            out.push(run);
            continue;
        }
        let mut rest = run;
        while let Some(c) = rest.chars().next() {
            let cjk = is_cjk(c);
            let end = rest.find(|c: char| is_cjk(c) != cjk).unwrap_or(rest.len());
            let (segment, after) = rest.split_at(end);
            if cjk {
                let starts: Vec<usize> = segment.char_indices().map(|(i, _)| i).chain([segment.len()]).collect();
                match starts.len() {
                    2 => out.push(segment),
                    _ => out.extend(starts.windows(3).map(|w| &segment[w[0]..w[2]])),
                }
            } else {
                out.push(segment);
            }
            rest = after;
        }
    }
    out
}

/// The English stem of a folded term, if it is one a stem can stand for:
/// ASCII letters only, at least [`STEMMED_MIN_LEN`] of them.
fn stem(term: &str) -> Option<Cow<'_, str>> {
    use std::sync::LazyLock;
    static STEMMER: LazyLock<rust_stemmers::Stemmer> =
        LazyLock::new(|| rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English));
    (term.len() >= STEMMED_MIN_LEN && term.bytes().all(|b| b.is_ascii_lowercase())).then(|| STEMMER.stem(term))
}

/// The indexed terms grouped by stem, for the stems more than one term
/// shares; each group's ranges in a fixed order (by term).
fn stem_groups(terms: &HashMap<Box<str>, (u32, u32)>) -> HashMap<Box<str>, Vec<(u32, u32)>> {
    let mut sorted: Vec<(&str, (u32, u32))> = terms.iter().map(|(t, &r)| (t.as_ref(), r)).collect();
    sorted.sort_unstable_by_key(|&(t, _)| t);
    let mut groups: HashMap<Box<str>, Vec<(u32, u32)>> = HashMap::new();
    for (term, range) in sorted {
        if let Some(stem) = stem(term) {
            groups.entry(stem.into()).or_default().push(range);
        }
    }
    groups.retain(|_, ranges| ranges.len() > 1);
    groups
}

/// Han ideographs, hiragana and katakana: scripts written without spaces.
fn is_cjk(c: char) -> bool {
    matches!(c, '\u{3040}'..='\u{30FF}' | '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}' | '\u{20000}'..='\u{2FFFF}')
}

/// One skill's term counts per field. A body that cannot be read
/// contributes nothing.
fn analyze(skill: &Skill, body_bytes: usize) -> Analyzed {
    let name = fold(skill.name());
    let description = fold(skill.description().unwrap_or_default());
    let triggers: Vec<String> = skill.triggers().iter().map(|t| fold(t)).collect();
    let body = fold(&skill.body_prefix(body_bytes).unwrap_or(Cow::Borrowed("")));
    // The terms borrow the folded texts: no term is allocated until it is one text.
    let mut counter = Counter { counts: HashMap::with_capacity(512), order: Vec::new(), lengths: [0; FIELDS] };
    counter.add(NAME, &name);
    if !name.is_empty() && name.contains(|c: char| !is_word_char(c)) {
        counter.count(&name, NAME);
    }
    counter.add(DESCRIPTION, &description);
    for trigger in &triggers {
        counter.add(TRIGGERS, trigger);
    }
    counter.add(BODY, &body);
    let mut text = String::with_capacity(counter.order.iter().map(|t| t.len()).sum());
    let terms = counter
        .order
        .iter()
        .map(|term| {
            text.push_str(term);
            (text.len() as u32, counter.counts[term])
        })
        .collect();
    Analyzed { text, terms, lengths: counter.lengths }
}

/// Counts one document's terms, in the order they first occur.
struct Counter<'t> {
    counts: HashMap<&'t str, [u16; FIELDS]>,
    order: Vec<&'t str>,
    lengths: [u32; FIELDS],
}

impl<'t> Counter<'t> {
    /// Counts the words of folded `text` in `field`.
    fn add(&mut self, field: usize, text: &'t str) {
        for word in words(text) {
            self.lengths[field] += 1;
            self.count(word, field);
        }
    }

    fn count(&mut self, term: &'t str, field: usize) {
        let counts = self.counts.entry(term).or_insert_with(|| {
            self.order.push(term);
            [0; FIELDS]
        });
        counts[field] = counts[field].saturating_add(1);
    }
}

impl Catalog {
    /// Ranks the exposed skills for `query` (name, description, triggers and
    /// body, BM25F), best first, at most `limit`; abstains when nothing
    /// matches well. The index is built on the first search of a snapshot
    /// and shared by every clone of it.
    ///
    /// # Example
    ///
    /// ```
    /// use skilldeck::{Catalog, SkillDef};
    ///
    /// let catalog = Catalog::builder()
    ///     .skill(SkillDef::new("pdf").description("Read PDF files."))
    ///     .skill(SkillDef::new("pdf-forms").description("Fill PDF forms."))
    ///     .build();
    /// assert_eq!(catalog.search("pdf", 1).hits[0].skill.name(), "pdf");
    /// assert_eq!(catalog.search("", 10).abstained, true);
    /// ```
    pub fn search(&self, query: &str, limit: usize) -> SearchResults<'_> {
        self.search_index().search_shared(query, limit)
    }
}

impl<'c> AgentView<'c> {
    /// Ranks the skills this agent may use ([`effective`](AgentView::effective))
    /// for `query`, as [`Catalog::search`] does; ties in the view's order.
    ///
    /// # Example
    ///
    /// ```
    /// use skilldeck::{AgentProfile, Catalog, SkillDef};
    ///
    /// let catalog = Catalog::builder()
    ///     .skill(SkillDef::new("refunds").description("Refund an order."))
    ///     .skill(SkillDef::new("refund-audit").description("Audit refunds."))
    ///     .build();
    /// let profile = AgentProfile::new("support").allow(["refunds"]);
    /// let found = catalog.view(&profile).search("refunds", 10);
    /// assert_eq!(found.hits.iter().map(|h| h.skill.name()).collect::<Vec<_>>(), ["refunds"]);
    /// ```
    pub fn search(&self, query: &str, limit: usize) -> SearchResults<'c> {
        let catalog = self.catalog();
        let index = catalog.search_index();
        let profile = self.profile();
        let own_start = index.agents.get(&profile.id).copied();
        let own = catalog.agent_skills(&profile.id);
        let mut place: Vec<Option<u32>> = vec![None; index.docs.len()];
        for (at, skill) in self.effective().into_iter().enumerate() {
            let doc = match skill.origin() {
                Origin::Store { agent: Some(agent), .. } if *agent == profile.id => {
                    own_start.and_then(|start| Some(start + own.binary_search_by(|s| s.name().cmp(skill.name())).ok()?))
                }
                _ => catalog.exposed_position(skill.name()),
            };
            if let Some(doc) = doc {
                place[doc] = Some(at as u32);
            }
        }
        index.search(query, limit, true, |doc| place[doc as usize])
    }
}

/// A search index built with other parameters, for measuring them.
#[doc(hidden)]
#[derive(Debug)]
pub struct Tuned {
    index: SearchIndex,
}

impl Tuned {
    /// Indexes `catalog`'s exposed skills with `tuning`.
    pub fn new(catalog: &Catalog, tuning: Tuning) -> Tuned {
        Tuned { index: SearchIndex::build(catalog, tuning) }
    }

    /// What the index's data structures hold on the heap, in bytes: an
    /// estimate from their sizes (postings, terms, names, documents).
    pub fn heap_bytes(&self) -> usize {
        let index = &self.index;
        let entry = std::mem::size_of::<(Box<str>, (u32, u32))>() + 1;
        let terms: usize = index.terms.keys().map(|t| t.len()).sum::<usize>() + index.terms.capacity() * entry;
        let name_entry = std::mem::size_of::<(Box<str>, Vec<u32>)>() + 1;
        let names: usize = index.names.iter().map(|(n, d)| n.len() + d.capacity() * 4).sum::<usize>()
            + index.names.capacity() * name_entry;
        index.postings.capacity() * std::mem::size_of::<Posting>()
            + terms
            + names
            + index.docs.capacity() * std::mem::size_of::<Skill>()
    }

    /// The search, with the abstention rule of the tuning.
    pub fn search(&self, query: &str, limit: usize) -> SearchResults<'_> {
        self.index.search_shared(query, limit)
    }

    /// The ranking without abstention, and the best hit's coverage and
    /// strength, which the rule compares with its thresholds (infinite for an
    /// exact name).
    pub fn rank(&self, query: &str, limit: usize) -> (Vec<&Skill>, f64, f64) {
        let shared = self.index.shared as u32;
        let ranking = self.index.rank(query, limit, |doc| (doc < shared).then_some(doc));
        let skills = ranking.hits.iter().map(|&(_, doc)| &self.index.docs[doc as usize]).collect();
        (skills, ranking.coverage, ranking.strength)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abstains_only_when_coverage_and_strength_are_both_low() {
        let tuning = Tuning::default();
        let ranking = |coverage, strength| Ranking { hits: Vec::new(), coverage, strength };
        assert!(ranking(0.0, 0.0).abstains(&tuning));
        assert!(ranking(ABSTAIN_COVERAGE - 0.01, ABSTAIN_STRENGTH - 0.01).abstains(&tuning));
        // A short query the best skill covers well, with little evidence in all.
        assert!(!ranking(ABSTAIN_COVERAGE, 0.1).abstains(&tuning));
        // A long request covered in part, with much evidence for the best skill.
        assert!(!ranking(0.1, ABSTAIN_STRENGTH).abstains(&tuning));
        assert!(!ranking(f64::INFINITY, f64::INFINITY).abstains(&tuning));
    }
}
