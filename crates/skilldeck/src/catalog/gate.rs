//! The audit as a gate ([`CatalogBuilder::refuse_risk`]): a skill whose
//! worst finding is at or above the severity refused becomes a
//! [`SkipReason::Risky`] skip before it is offered, so it frees its name for
//! the next skill of that name. A root's skills are judged together on the
//! walker's threads, and a verdict is kept for as long as its skill is (the
//! same reading, [`Skill::ptr_eq`]): a reload audits only what it read again.

use std::collections::HashMap;
use std::sync::Arc;

use super::CatalogBuilder;
use super::walks::Candidate;
use crate::audit::{Auditor, Report, Severity};
use crate::model::{Skill, Skip, SkipReason};

/// The verdicts on a root's skills, by location: the skill judged (a
/// verdict holds for that reading only) and the skip it earned, if any.
pub(super) type Verdicts = HashMap<String, (Skill, Option<Skip>)>;

/// What a build refuses, and the auditor that judges.
pub(super) struct Gate {
    auditor: Auditor,
    at: Severity,
}

impl CatalogBuilder {
    /// The gate of this builder's builds, when it refuses risk.
    pub(super) fn gate(&self) -> Option<Gate> {
        let auditor = Auditor::new().symlinks(self.symlinks);
        self.refuse_risk.map(|at| Gate { auditor, at })
    }
}

impl Gate {
    /// The skip `skill` earns, if any.
    pub(super) fn verdict(&self, skill: &Skill) -> Option<Skip> {
        self.judged(skill, self.auditor.audit_skill(skill))
    }

    /// `skill` when it passes, or the skip it earns.
    pub(super) fn pass(&self, skill: Skill) -> Result<Skill, Skip> {
        self.verdict(&skill).map_or(Ok(skill), Err)
    }

    /// The verdicts on every skill of `candidates`: `earlier`'s where it
    /// judged the same reading, the rest audited now, in parallel.
    pub(super) fn verdicts(&self, candidates: &[Candidate], earlier: &Verdicts) -> Arc<Verdicts> {
        let mut verdicts = Verdicts::with_capacity(candidates.len());
        let mut unjudged = Vec::new();
        for (_, outcome) in candidates {
            let Ok((skill, _)) = outcome else { continue };
            match earlier.get(skill.location()) {
                Some(kept @ (judged, _)) if Skill::ptr_eq(judged, skill) => {
                    verdicts.insert(skill.location().to_owned(), kept.clone());
                }
                _ => unjudged.push(skill),
            }
        }
        let reports: Vec<Result<Report, String>> = match self.auditor.audit_skills(&unjudged) {
            Ok(reports) => reports.into_iter().map(Ok).collect(),
            Err(error) => vec![Err(error.to_string()); unjudged.len()],
        };
        for (skill, report) in unjudged.into_iter().zip(reports) {
            let verdict = self.judged(skill, report);
            verdicts.insert(skill.location().to_owned(), (skill.clone(), verdict));
        }
        Arc::new(verdicts)
    }

    /// The skip an audit's `report` of `skill` earns. An audit that could
    /// not run refuses: a gate that cannot look lets nothing through.
    fn judged<E: std::fmt::Display>(&self, skill: &Skill, report: Result<Report, E>) -> Option<Skip> {
        let detail = match report {
            Err(error) => format!("not audited: {error}"),
            Ok(report) => {
                let worst = report.max_severity().filter(|&worst| worst >= self.at)?;
                let refused = report.findings.iter().filter(|f| f.severity >= self.at).count();
                let first = report.findings.iter().find(|f| f.severity == worst)?;
                match refused - 1 {
                    0 => first.to_string(),
                    more => format!("{first} (and {more} more at or above {})", self.at),
                }
            }
        };
        Some(Skip {
            location: skill.location().to_owned(),
            reason: SkipReason::Risky,
            detail: Some(detail),
            position: None,
        })
    }
}
