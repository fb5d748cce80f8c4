//! The audit before anything is installed: every staged skill is audited
//! (`skilldeck::audit`) as it will be installed, and a command whose skills
//! have a finding at [`RISKY`] or above changes nothing unless the
//! user allows the risk. The findings of every skill are returned either way,
//! so that a command can show them.

use std::path::Path;

use skilldeck::Symlinks;
use skilldeck::audit::{Auditor, RISKY, Report};

use crate::install::InstallError;

/// The audit of the skill staged in `staged`, its paths shown under
/// `target`, where it is going. Links are not followed: the copy has none.
pub(crate) fn audit(name: &str, staged: &Path, target: &Path) -> Result<Report, InstallError> {
    let refused = |reason: String| InstallError::Risky { name: name.to_owned(), reports: Vec::new(), reason };
    let mut reports = Auditor::new().symlinks(Symlinks::Skip).audit(staged).map_err(|e| refused(e.to_string()))?;
    let mut report = reports.pop().filter(|_| reports.is_empty()).unwrap_or_default();
    report.dir = target.to_path_buf();
    Ok(report)
}

/// `Err` naming every report that fails at [`RISKY`], unless `allowed`.
pub(crate) fn refuse<'a>(
    named: impl IntoIterator<Item = (&'a str, &'a Report)>,
    allowed: bool,
) -> Result<(), InstallError> {
    if allowed {
        return Ok(());
    }
    let failing: Vec<(&str, &Report)> = named.into_iter().filter(|(_, r)| r.fails_at(RISKY)).collect();
    let Some((first, _)) = failing.first() else { return Ok(()) };
    let names: Vec<&str> = failing.iter().map(|(name, _)| *name).collect();
    let count: usize = failing.iter().map(|(_, r)| r.count_at(RISKY)).sum();
    Err(InstallError::Risky {
        name: (*first).to_owned(),
        reason: format!(
            "the audit found {count} finding{} at {RISKY} or above in {}",
            if count == 1 { "" } else { "s" },
            names.join(", ")
        ),
        reports: failing.into_iter().map(|(_, r)| r.clone()).collect(),
    })
}
