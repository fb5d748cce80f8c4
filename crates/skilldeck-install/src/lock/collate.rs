//! `String.prototype.localeCompare` as the `skills` package calls it (no
//! locale: Node's default, `en-US` even under `LANG=C`, which is ICU's root
//! collation for these characters), for the paths `computedHash` sorts.
//!
//! Exact for ASCII: the order below is Node's own (v20, ICU 74: every
//! printable ASCII character sorted with `localeCompare`, grouped by
//! `Intl.Collator("en-US", {sensitivity: "base"})`), compared as ICU does,
//! primary weights over the whole string first (letters without case), then
//! case (lower before upper); C0 controls other than `\t\n\v\f\r`, and DEL,
//! weigh nothing. Past ASCII it is an approximation: every other character
//! sorts after `z` by code point, case-blind; ICU's real weights put `é`
//! beside `e`. A skill whose file names are not ASCII can get another
//! `computedHash` here than in the `skills` package; skilldeck's own per-file
//! digests do not depend on any order.

use std::cmp::Ordering;

/// The ASCII characters with a weight, lightest first; a letter and its
/// capital share one.
const ORDER: &[u8] = b"\t\n\x0b\x0c\r _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789abcdefghijklmnopqrstuvwxyz";

/// A character's primary weight (0: ignorable) and case (1: upper).
fn weights(c: char) -> (u32, u8) {
    if c.is_ascii() {
        let lower = c.to_ascii_lowercase() as u8;
        return match ORDER.iter().position(|&o| o == lower) {
            Some(i) => (i as u32 + 1, u8::from(c.is_ascii_uppercase())),
            None => (0, 0),
        };
    }
    (ORDER.len() as u32 + 1 + c as u32, 0)
}

/// `a.localeCompare(b)`'s sign.
pub(crate) fn locale_compare(a: &str, b: &str) -> Ordering {
    let keys = |s: &str| -> (Vec<u32>, Vec<u8>) { s.chars().map(weights).filter(|&(p, _)| p != 0).unzip() };
    let (pa, ta) = keys(a);
    let (pb, tb) = keys(b);
    pa.cmp(&pb).then_with(|| ta.cmp(&tb))
}

#[cfg(test)]
mod tests {
    use super::locale_compare;

    /// The expected order is Node's: `node -e 'console.log(JSON.stringify(LIST.sort((a, b) =>
    /// a.localeCompare(b))))'` on node v20.20.2.
    #[test]
    fn sorts_as_node_does() {
        let mut paths = vec![
            "SKILL.md",
            "scripts/x.py",
            "reference.md",
            "_a",
            "-b",
            "a",
            "B",
            "a-b",
            "a_b",
            "a.b",
            "a/b",
            "ab",
            "A",
            "LICENSE.txt",
            "scripts/X.py",
            "scripts-b/a",
            "scripts/a/b.md",
            "a1",
            "a10",
            "a2",
            "Readme.md",
            "README.md",
            "readme.md",
        ];
        paths.sort_by(|a, b| locale_compare(a, b));
        let node = [
            "_a",
            "-b",
            "a",
            "A",
            "a_b",
            "a-b",
            "a.b",
            "a/b",
            "a1",
            "a10",
            "a2",
            "ab",
            "B",
            "LICENSE.txt",
            "readme.md",
            "Readme.md",
            "README.md",
            "reference.md",
            "scripts-b/a",
            "scripts/a/b.md",
            "scripts/x.py",
            "scripts/X.py",
            "SKILL.md",
        ];
        assert_eq!(paths, node);
    }
}
