//! Arbitrary bytes through `skilldeck audit`'s engine.
//!
//! The first byte picks how the rest is laid out: as a `SKILL.md` alone, as
//! one script, or split at its middle into a `SKILL.md` and a sibling
//! `scripts/run.sh` (so the rules that join files, such as a credential read
//! in one and a send in the other, run too). Checked: nothing panics, and
//! every finding (kept or suppressed) names one of the files given and points
//! into it: a line that exists and a column at one of its characters (1 on
//! an empty line).

#![no_main]

use libfuzzer_sys::fuzz_target;
use skilldeck::audit::{Auditor, Finding};

/// Whether `finding` lies inside `bytes` read as lossy UTF-8.
fn points_into(finding: &Finding, bytes: &[u8]) -> bool {
    let text = String::from_utf8_lossy(bytes);
    let Some(line) = (finding.line as usize).checked_sub(1).and_then(|i| text.split('\n').nth(i)) else {
        return false;
    };
    finding.column >= 1 && finding.column as usize <= line.chars().count().max(1)
}

fuzz_target!(|bytes: &[u8]| {
    let Some((&layout, rest)) = bytes.split_first() else { return };
    let (head, tail) = rest.split_at(rest.len() / 2);
    let files: Vec<(&str, &[u8])> = match layout % 3 {
        0 => vec![("SKILL.md", rest)],
        1 => vec![("scripts/run.sh", rest)],
        _ => vec![("SKILL.md", head), ("scripts/run.sh", tail)],
    };
    let report = Auditor::new().audit_files(files.iter().map(|(p, b)| (*p, *b))).expect("the built-in patterns compile");
    for finding in report.findings.iter().chain(&report.suppressed) {
        let file = files.iter().find(|(p, _)| finding.path == std::path::Path::new(p));
        let Some((_, content)) = file else { panic!("{finding:?} names no file given") };
        assert!(points_into(finding, content), "{finding:?} in {:?}", String::from_utf8_lossy(content));
    }
});
