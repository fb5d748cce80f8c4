//! A snapshot's search index as bytes and back, for a cache that outlives
//! the process: a restarted server searches its last catalog at once, while
//! it reads the tree again.
//!
//! The bytes are the index as built (terms, postings, stems, the tuning)
//! and each document's name and description, little-endian, with a CRC-32
//! of all of it last. Reading checks everything a search later relies on
//! (the checksum, every range and document number, UTF-8), so a file cut
//! short, damaged or of another format is an error, never a wrong answer.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use foldhash::{HashMap, HashMapExt};

use super::{FIELDS, Posting, SearchIndex, SearchResults, Tuning};
use crate::catalog::Catalog;
use crate::model::{HeldFrontmatter, Origin, Skill, SkillData};

/// What the bytes start with; another format, or another file, is refused.
const MAGIC: &[u8] = b"skilldeck search index 1\n";

/// A catalog's search index read back from [`Catalog::save_search`]'s
/// bytes, searchable without the catalog.
///
/// Its hits are the skills as they were saved: their names and
/// descriptions, nothing else (no body, no files, no origin but a logical
/// one). Load a hit from a live catalog by its name.
///
/// # Example
///
/// ```
/// use skilldeck::{Catalog, SavedSearch, SkillDef};
///
/// let catalog = Catalog::builder()
///     .skill(SkillDef::new("pdf-forms").description("Fill in and flatten PDF forms."))
///     .skill(SkillDef::new("release").description("Cut a release of the project."))
///     .build();
/// let bytes = catalog.save_search();
/// let saved = SavedSearch::from_bytes(&bytes)?;
/// let found = saved.search("fill a pdf form", 10);
/// assert_eq!(found.hits[0].skill.name(), "pdf-forms");
/// assert_eq!(found.hits[0].skill.description(), Some("Fill in and flatten PDF forms."));
/// // Damaged bytes are refused, not searched.
/// assert!(SavedSearch::from_bytes(&bytes[..bytes.len() - 1]).is_err());
/// # Ok::<(), skilldeck::SavedSearchError>(())
/// ```
#[derive(Debug)]
pub struct SavedSearch {
    index: SearchIndex,
}

/// Why bytes are not a saved search index.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SavedSearchError {
    /// They do not start as this version's saved index does.
    #[error("not a search index saved by this version of skilldeck")]
    NotOurs,
    /// Their checksum or their contents do not hold together.
    #[error("the saved search index is damaged ({0})")]
    Damaged(&'static str),
}

impl Catalog {
    /// The snapshot's search index as bytes, for [`SavedSearch::from_bytes`]
    /// (building the index first, if no search has yet). The bytes hold the
    /// skills' names and descriptions and the index's terms; keep them where
    /// only their owner can read them.
    ///
    /// # Example
    ///
    /// ```
    /// use skilldeck::{Catalog, SkillDef};
    ///
    /// let catalog = Catalog::builder().skill(SkillDef::new("pdf").description("Read PDF files.")).build();
    /// assert!(catalog.save_search().starts_with(b"skilldeck search index"));
    /// ```
    pub fn save_search(&self) -> Vec<u8> {
        encode(self.search_index())
    }
}

impl SavedSearch {
    /// Reads bytes that [`Catalog::save_search`] wrote.
    ///
    /// # Errors
    ///
    /// [`SavedSearchError::NotOurs`] for bytes of another format or version,
    /// [`SavedSearchError::Damaged`] for bytes cut short or changed.
    pub fn from_bytes(bytes: &[u8]) -> Result<SavedSearch, SavedSearchError> {
        decode(bytes).map(|index| SavedSearch { index })
    }

    /// Ranks the saved catalog's exposed skills for `query`, exactly as
    /// [`Catalog::search`] ranked them in the catalog that was saved.
    pub fn search(&self, query: &str, limit: usize) -> SearchResults<'_> {
        self.index.search_shared(query, limit)
    }

    /// How many exposed skills it searches.
    pub fn len(&self) -> usize {
        self.index.shared
    }

    /// Whether it searches no skill.
    pub fn is_empty(&self) -> bool {
        self.index.shared == 0
    }
}

fn encode(index: &SearchIndex) -> Vec<u8> {
    let mut out = Writer(Vec::with_capacity(64 + index.postings.len() * 8 + index.terms.len() * 16));
    out.0.extend_from_slice(MAGIC);
    let tuning = &index.tuning;
    tuning.field_weights.iter().chain(&tuning.field_b).chain([&tuning.k1]).for_each(|&v| out.f32(v));
    [tuning.abstain_coverage, tuning.abstain_strength, tuning.stem_weight].into_iter().for_each(|v| out.f64(v));
    out.len(tuning.body_bytes);

    out.len(index.shared);
    out.len(index.docs.len());
    for doc in &index.docs {
        out.str(doc.name());
        match doc.description() {
            Some(description) => {
                out.0.push(1);
                out.str(description);
            }
            None => out.0.push(0),
        }
    }
    out.len(index.agents.len());
    for (agent, &start) in &index.agents {
        out.str(agent);
        out.len(start);
    }
    // Terms in order, so that one index always saves as the same bytes.
    let mut terms: Vec<(&str, (u32, u32))> = index.terms.iter().map(|(t, &r)| (t.as_ref(), r)).collect();
    terms.sort_unstable_by_key(|&(term, _)| term);
    out.len(terms.len());
    for (term, (start, end)) in terms {
        out.str(term);
        out.u32(start);
        out.u32(end);
    }
    out.len(index.postings.len());
    for posting in &index.postings {
        out.u32(posting.doc);
        out.f32(posting.weight);
    }
    let mut stems: Vec<(&str, &Vec<(u32, u32)>)> = index.stems.iter().map(|(s, r)| (s.as_ref(), r)).collect();
    stems.sort_unstable_by_key(|&(stem, _)| stem);
    out.len(stems.len());
    for (stem, ranges) in stems {
        out.str(stem);
        out.len(ranges.len());
        for &(start, end) in ranges {
            out.u32(start);
            out.u32(end);
        }
    }
    let checksum = crc32fast::hash(&out.0);
    out.u32(checksum);
    out.0
}

fn decode(bytes: &[u8]) -> Result<SearchIndex, SavedSearchError> {
    if !bytes.starts_with(MAGIC) {
        return Err(SavedSearchError::NotOurs);
    }
    let Some((body, checksum)) = bytes.split_last_chunk::<4>() else {
        return Err(SavedSearchError::Damaged("cut short"));
    };
    if body.len() < MAGIC.len() || crc32fast::hash(body) != u32::from_le_bytes(*checksum) {
        return Err(SavedSearchError::Damaged("its checksum does not match"));
    }
    let mut input = Reader { bytes: &body[MAGIC.len()..] };
    let mut floats = [0f32; 2 * FIELDS + 1];
    for value in &mut floats {
        *value = input.f32()?;
    }
    let tuning = Tuning {
        field_weights: std::array::from_fn(|f| floats[f]),
        field_b: std::array::from_fn(|f| floats[FIELDS + f]),
        k1: floats[2 * FIELDS],
        abstain_coverage: input.f64()?,
        abstain_strength: input.f64()?,
        stem_weight: input.f64()?,
        body_bytes: input.len()?,
    };

    let shared = input.len()?;
    let count = input.len()?;
    let mut docs = Vec::with_capacity(count.min(input.bytes.len()));
    for _ in 0..count {
        let name = input.str()?.to_owned();
        let description = match input.byte()? {
            0 => None,
            1 => Some(input.str()?.to_owned()),
            _ => return Err(SavedSearchError::Damaged("a description's flag")),
        };
        docs.push(saved_skill(name, description));
    }
    if shared > docs.len() {
        return Err(SavedSearchError::Damaged("more exposed skills than skills"));
    }
    let mut agents = BTreeMap::new();
    for _ in 0..input.len()? {
        let agent = input.str()?.to_owned();
        let start = input.len()?;
        if start > docs.len() {
            return Err(SavedSearchError::Damaged("an agent's first skill"));
        }
        agents.insert(agent, start);
    }
    let count = input.len()?;
    let mut ranges = Vec::with_capacity(count.min(input.bytes.len()));
    for _ in 0..count {
        ranges.push((input.str()?, input.u32()?, input.u32()?));
    }
    let count = input.len()?;
    let mut postings = Vec::with_capacity(count.min(input.bytes.len() / 8));
    for _ in 0..count {
        let posting = Posting { doc: input.u32()?, weight: input.f32()? };
        if posting.doc as usize >= docs.len() {
            return Err(SavedSearchError::Damaged("a posting's skill"));
        }
        postings.push(posting);
    }
    let range = |start: u32, end: u32| {
        if start <= end && end as usize <= postings.len() {
            Ok((start, end))
        } else {
            Err(SavedSearchError::Damaged("a term's postings"))
        }
    };
    let mut terms = HashMap::with_capacity(ranges.len());
    for (term, start, end) in ranges {
        terms.insert(term.into(), range(start, end)?);
    }
    let mut stems = HashMap::new();
    for _ in 0..input.len()? {
        let stem = input.str()?;
        let count = input.len()?;
        let mut group = Vec::with_capacity(count.min(input.bytes.len() / 8));
        for _ in 0..count {
            group.push(range(input.u32()?, input.u32()?)?);
        }
        stems.insert(stem.into(), group);
    }
    if !input.bytes.is_empty() {
        return Err(SavedSearchError::Damaged("bytes after its end"));
    }
    Ok(SearchIndex { docs, shared, agents, terms, postings, stems, names: HashMap::new(), tuning }.with_names())
}

/// A saved hit: a logical skill of the name and description saved.
fn saved_skill(name: String, description: Option<String>) -> Skill {
    let base = format!("skill://{name}/");
    Skill::from(SkillData {
        name,
        description,
        frontmatter: HeldFrontmatter::default(),
        triggers: Vec::new(),
        companions: Vec::new(),
        location: base.clone(),
        origin: Origin::Logical { base, resources: Vec::new() },
        body: OnceLock::from(String::new()),
        record: None,
        confinement: None,
        integrity: None,
    })
}

struct Writer(Vec<u8>);

impl Writer {
    fn u32(&mut self, value: u32) {
        self.0.extend_from_slice(&value.to_le_bytes());
    }

    fn f32(&mut self, value: f32) {
        self.0.extend_from_slice(&value.to_le_bytes());
    }

    fn f64(&mut self, value: f64) {
        self.0.extend_from_slice(&value.to_le_bytes());
    }

    /// A count or a size; an index holds fewer than 2³² of anything (its
    /// document numbers are `u32`).
    fn len(&mut self, value: usize) {
        self.u32(u32::try_from(value).unwrap_or(u32::MAX));
    }

    fn str(&mut self, text: &str) {
        self.len(text.len());
        self.0.extend_from_slice(text.as_bytes());
    }
}

struct Reader<'b> {
    bytes: &'b [u8],
}

impl<'b> Reader<'b> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N], SavedSearchError> {
        let (head, rest) = self.bytes.split_first_chunk::<N>().ok_or(SavedSearchError::Damaged("cut short"))?;
        self.bytes = rest;
        Ok(*head)
    }

    fn byte(&mut self) -> Result<u8, SavedSearchError> {
        Ok(self.take::<1>()?[0])
    }

    fn u32(&mut self) -> Result<u32, SavedSearchError> {
        self.take().map(u32::from_le_bytes)
    }

    fn f32(&mut self) -> Result<f32, SavedSearchError> {
        self.take().map(f32::from_le_bytes)
    }

    fn f64(&mut self) -> Result<f64, SavedSearchError> {
        self.take().map(f64::from_le_bytes)
    }

    fn len(&mut self) -> Result<usize, SavedSearchError> {
        self.u32().map(|n| n as usize)
    }

    fn str(&mut self) -> Result<&'b str, SavedSearchError> {
        let len = self.len()?;
        if len > self.bytes.len() {
            return Err(SavedSearchError::Damaged("cut short"));
        }
        let (text, rest) = self.bytes.split_at(len);
        self.bytes = rest;
        std::str::from_utf8(text).map_err(|_| SavedSearchError::Damaged("text that is not UTF-8"))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::SkillDef;

    fn catalog() -> Catalog {
        Catalog::builder()
            .skill(SkillDef::new("pdf-forms").description("Fill in PDF forms.").content("Use pdftk to fill fonts."))
            .skill(SkillDef::new("branding").description("Brand themes and fonts."))
            .skill(SkillDef::new("bare"))
            .build()
    }

    #[test]
    fn every_damage_is_refused() {
        let bytes = catalog().save_search();
        assert_eq!(SavedSearch::from_bytes(b"").unwrap_err(), SavedSearchError::NotOurs);
        assert_eq!(SavedSearch::from_bytes(b"{\"format\": 1}").unwrap_err(), SavedSearchError::NotOurs);
        for cut in MAGIC.len()..bytes.len() {
            assert!(SavedSearch::from_bytes(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        for at in 0..bytes.len() {
            let mut flipped = bytes.clone();
            flipped[at] ^= 0x20;
            assert!(SavedSearch::from_bytes(&flipped).is_err(), "flipped at {at}");
        }
    }

    #[test]
    fn saves_as_the_same_bytes_every_time() {
        assert_eq!(catalog().save_search(), catalog().save_search());
        let saved = SavedSearch::from_bytes(&catalog().save_search()).unwrap();
        assert_eq!(saved.len(), 3);
        assert_eq!(encode(&saved.index), catalog().save_search());
    }
}
