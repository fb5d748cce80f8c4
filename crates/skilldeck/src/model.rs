//! The data model every other module shares: a [`Skill`] and where it came
//! from ([`Origin`]), a skill given as data ([`SkillDef`]), and what a build
//! reports beside its skills ([`Skip`], [`SkipReason`], [`Warning`],
//! [`YamlProblem`]). It depends on no other part of the engine but the reads
//! a skill makes of its own body.

mod problem;
mod skill;

pub use problem::{FileChange, SharedError, Skip, SkipReason, Warning, YamlProblem};
pub(crate) use skill::HeldFrontmatter;
pub(crate) use skill::SkillData;
pub use skill::{Origin, Skill, SkillDef};
