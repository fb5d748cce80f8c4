//! skilldeck: an Agent Skills engine. It finds skills (directories holding a
//! `SKILL.md`, or definitions supplied as data), builds an immutable
//! [`Catalog`] of them, renders the level-1 catalog an agent reads in its
//! system prompt ([`render`]), and serves a skill's body and files when the
//! model asks ([`SkillTool`]).
//!
//! # Example
//!
//! ```
//! use serde_json::json;
//! use skilldeck::{Catalog, SkillDef, SkillTool, render};
//!
//! let dir = tempfile::tempdir()?;
//! let skill = dir.path().join("hello");
//! std::fs::create_dir_all(skill.join("scripts"))?;
//! std::fs::write(skill.join("SKILL.md"), "---\nname: hello\ndescription: Say hello.\n---\nRun scripts/hi.sh.\n")?;
//! std::fs::write(skill.join("scripts/hi.sh"), "echo hi\n")?;
//!
//! let catalog = Catalog::builder()
//!     .root(dir.path())
//!     .skill(SkillDef::new("release").description("Cut a release.").content("1. Bump."))
//!     .build();
//! assert!(render::toolnexus(&catalog).ends_with("- **hello**: Say hello.\n- **release**: Cut a release."));
//!
//! let out = SkillTool::new(&catalog).call(&json!({"name": "hello"}));
//! assert!(out.output.contains("Run scripts/hi.sh."));
//! assert!(out.output.contains("/hello/scripts/hi.sh</file>"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Brief overview
//!
//! Sources ([`CatalogBuilder::root`], [`CatalogBuilder::skill`],
//! [`CatalogBuilder::provider`]) are collected in order; each `SKILL.md` is
//! read and its frontmatter parsed ([`FrontmatterMode`]); the first skill of a
//! name wins and the rest are [`Skip`]s; a [`Filter`] decides what is exposed.
//! The [`Catalog`] never changes after it is built. Nothing in this crate
//! prints, speaks a wire protocol, or knows a database.

mod agent;
pub mod audit;
pub mod authoring;
mod catalog;
pub mod doctor;

mod model;
mod name;
pub mod render;
pub mod search;
mod source;
pub mod store;
mod text;
mod tool;
pub mod validate;

pub use agent::{Activation, AgentProfile, AgentView, Eager, LoadSkillTool, Mode, Reason};
pub use catalog::{
    BeforeRead, Catalog, CatalogBuilder, Filter, InvalidSampleLimit, LiveCatalog, Provider, ProviderError, SampleLimit,
    Shadowed, Source,
};
#[cfg(feature = "tokens")]
pub use render::budget::Encoding;
pub use render::budget::{Budget, BudgetReport, CLOSED_MIN_SHARE, Fitted, ParseBudgetError, Unit, closing_line};

pub use model::{FileChange, Origin, SharedError, Skill, SkillDef, Skip, SkipReason, Warning, YamlProblem};
pub use name::{NAME_MAX_BYTES, NameError, NameKind, NameProblem, check_name, check_name_characters};
pub use search::{Hit, SavedSearch, SavedSearchError, SearchResults};
// The walker's types appear in the engine's own signatures (`walk_limits`,
// `Warning::WalkLimit`, `Catalog::skill_files`): re-exported under their own
// names, so a user needs no dependency on `skilldeck-walk`.
pub use skilldeck_walk::{File, LimitHit, Limits, Symlinks, Totals, Walk};
pub use source::confine::{Confinement, MAX_SERVED_BYTES, Opened, Refusal};
pub use source::convention::{
    ConventionalRoots, OutsideProject, PROJECT_SKILL_DIRS, USER_SKILL_DIRS, home_dir, user_cache_dir,
};
pub use source::frontmatter::{Frontmatter, FrontmatterMode};
pub use source::installed::{LOCK_FILE, PROJECT_SKILLS_DIR};
pub use source::read::DEFAULT_MAX_FRONTMATTER;
pub use text::{escape_control, yaml_scalar};
pub use tool::{NOT_FOUND_NAMES_MAX, SkillTool, ToolDeclaration, ToolMetadata, ToolResult};

// The README's Rust examples, compiled by `cargo test --doc` (marked `no_run`: they read
// project directories and write a database) so that the front page cannot drift from the
// API. Only rustdoc's test pass sees this item, so the README, outside the package, is
// never read by a build of the published crate.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;

// Hosts share these across threads (a server's request handlers, a Studio's
// pages, a reload thread): a change that made one of them lose `Send` or
// `Sync` must fail this crate's build, not a user's.
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<Catalog>();
    send_sync::<CatalogBuilder>();
    send_sync::<LiveCatalog>();
    send_sync::<Skill>();
    send_sync::<store::MemoryStore>();
    send_sync::<std::sync::Arc<dyn store::SkillStore>>();
};
