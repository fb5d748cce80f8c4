//! Which patterns of a view can match a text, found in one pass: each
//! pattern needs literals that every match of it holds (`curl`, then `sh`,
//! for `\bcurl\b[^\n]*\|\s*sh\b`), all of them are searched for at once, and
//! only a pattern whose every need is in the text is run.
//!
//! One automaton of all the patterns together did the same job, but its
//! states multiply with the `[^\n]*` gaps that are open at once: on a public
//! registry's skills, building them took more time than the search itself.
//! The literals have no gaps; their automaton is small and built once.

use std::collections::HashMap;

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};
use regex_syntax::ParserBuilder;
use regex_syntax::hir::literal::Extractor;
use regex_syntax::hir::{Hir, HirKind};

/// The shortest literal worth a need: shorter ones (`rm`, `nc`, `sh`) are in
/// most texts and tell little, so they are used only by a pattern that has
/// no longer ones; one byte (`|`, `~`) tells nothing.
const MIN_LITERAL: [usize; 2] = [3, 2];

/// The most needs an alternative of a pattern is given: those with the
/// longest literals tell the most, and `for ` or `in ` beside them would
/// only be found in every text.
const MAX_NEEDS: usize = 3;

/// The needs of a view's patterns.
pub(super) struct Prefilter {
    /// Every need's literals, lowercased, searched for ignoring ASCII case.
    literals: AhoCorasick,
    literal_count: usize,
    /// Per pattern, per alternative of it (`A|B`), its needs: each a set of
    /// literals (indices into `literals`) one of which must be in the text.
    /// A pattern can match when every need of one of its alternatives is met.
    patterns: Vec<Vec<Vec<Vec<usize>>>>,
}

impl Prefilter {
    /// The needs of `patterns` (regexes as [`PATTERNS`](super::patterns::PATTERNS)
    /// holds them), in their order.
    pub(super) fn new(patterns: &[&str]) -> Result<Prefilter, String> {
        let mut literals: Vec<Vec<u8>> = Vec::new();
        let mut index = HashMap::new();
        let mut id = |literal: Vec<u8>| {
            *index.entry(literal.clone()).or_insert_with(|| {
                literals.push(literal);
                literals.len() - 1
            })
        };
        let mut needed = Vec::with_capacity(patterns.len());
        for pattern in patterns {
            // The literals are searched for ignoring case, so they are taken from the
            // pattern without its `(?i)`: every match holds one of them, in some case.
            let hir = ParserBuilder::new()
                .unicode(false)
                .utf8(false)
                .build()
                .parse(&pattern.replace("(?i)", ""))
                .map_err(|error| error.to_string())?;
            let mut alternatives_needs = Vec::new();
            for alternative in alternatives(&hir) {
                let mut needs =
                    MIN_LITERAL.iter().map(|&min| needs(alternative, min)).find(|n| !n.is_empty()).unwrap_or_default();
                needs.sort_by_key(|need| std::cmp::Reverse(need.iter().map(Vec::len).min()));
                needs.truncate(MAX_NEEDS);
                alternatives_needs
                    .push(needs.into_iter().map(|need| need.into_iter().map(&mut id).collect()).collect());
            }
            needed.push(alternatives_needs);
        }
        let automaton = AhoCorasick::builder()
            .kind(Some(AhoCorasickKind::DFA))
            .match_kind(MatchKind::Standard)
            .ascii_case_insensitive(true)
            .build(&literals)
            .map_err(|error| error.to_string())?;
        Ok(Prefilter { literals: automaton, literal_count: literals.len(), patterns: needed })
    }

    /// The patterns (indices into the slice given to [`Prefilter::new`])
    /// whose needs `text` meets, in order: every one that matches, and some
    /// that do not.
    pub(super) fn candidates(&self, text: &[u8]) -> Vec<usize> {
        let mut seen = vec![false; self.literal_count];
        // Overlapping, so that a literal inside or across another is seen too.
        for found in self.literals.find_overlapping_iter(text) {
            seen[found.pattern().as_usize()] = true;
        }
        let met = |need: &Vec<usize>| need.iter().any(|&literal| seen[literal]);
        let can_match = |needs: &Vec<Vec<usize>>| needs.iter().all(met);
        (0..self.patterns.len()).filter(|&i| self.patterns[i].iter().any(can_match)).collect()
    }

    /// How many needs the least needy alternative of pattern `index` has
    /// (none: the pattern is run on every text).
    #[cfg(test)]
    pub(super) fn need_count(&self, index: usize) -> usize {
        self.patterns[index].iter().map(Vec::len).min().unwrap_or(0)
    }
}

/// The alternatives of `hir` (through groups, and past the boundaries the
/// parser takes out of them): `\b(A|B)` is `A` and `B`.
fn alternatives(hir: &Hir) -> Vec<&Hir> {
    match hir.kind() {
        HirKind::Capture(capture) => alternatives(&capture.sub),
        HirKind::Alternation(branches) => branches.iter().flat_map(alternatives).collect(),
        HirKind::Concat(items) => {
            let mut rest = items.iter().filter(|item| !matches!(item.kind(), HirKind::Look(_)));
            match (rest.next(), rest.next()) {
                (Some(only), None) => alternatives(only),
                _ => vec![hir],
            }
        }
        _ => vec![hir],
    }
}

/// The literal sets every match of `hir` holds one of each of. Of a
/// sequence (through groups): the literals the rest of it starts with, from
/// its first item and from each item after one that starts with none
/// (`curl`, then, past the gap `[^\n]*`, `| sh`); an item that starts with
/// none gives what is inside it. Of anything else: the literals its matches
/// start with. Only literals of at least `min` bytes count.
fn needs(hir: &Hir, min: usize) -> Vec<Vec<Vec<u8>>> {
    let items = match hir.kind() {
        HirKind::Capture(capture) => return needs(&capture.sub, min),
        HirKind::Concat(items) => items,
        _ => return literals(hir, min).into_iter().collect(),
    };
    let mut found = Vec::new();
    // Whether the literals of an earlier item reach this one (a literal's
    // letters are one item each when case is ignored): a need starting
    // here would tell little more.
    let mut covered = false;
    for (i, item) in items.iter().enumerate() {
        let here = literals(&Hir::concat(items[i..].to_vec()), min);
        let starts = here.is_some();
        match here {
            Some(literals) if !covered => found.push(literals),
            None if !covered => found.extend(needs(item, min)),
            _ => {}
        }
        covered = starts;
    }
    found
}

/// The literals, lowercased, one of which every match of `hir` starts with,
/// when there are finitely many and none shorter than `min`; of two where
/// one holds the other (`sh`, `bash`), only the shorter, which any text
/// holding the longer holds too.
fn literals(hir: &Hir, min: usize) -> Option<Vec<Vec<u8>>> {
    let mut extractor = Extractor::new();
    // A literal ends at a class of more than six bytes (`\w`, `[^\n]`). `\s` is
    // six and is crossed: phrases are words and spaces (`you are`).
    extractor.limit_class(6);
    let seq = extractor.extract(hir);
    let found = seq.literals()?;
    if found.is_empty() || seq.min_literal_len()? < min {
        return None;
    }
    let mut lowered: Vec<Vec<u8>> = found.iter().map(|l| l.as_bytes().to_ascii_lowercase()).collect();
    lowered.sort_by_key(Vec::len);
    let mut kept: Vec<Vec<u8>> = Vec::new();
    for literal in lowered {
        if !kept.iter().any(|shorter| literal.windows(shorter.len()).any(|w| w == shorter.as_slice())) {
            kept.push(literal);
        }
    }
    Some(kept)
}
