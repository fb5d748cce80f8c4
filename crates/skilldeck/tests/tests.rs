//! Integration tests of the skilldeck engine, on real directories.

// A broken fixture should stop a test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

// Shared helpers: temporary skill trees.
mod util;

// The shared conformance vectors and port tests of toolnexus (reference §7).
mod conformance;

// Hostile and broken input: each gives a skip or a warning, never a panic or hang.
mod bad_input;

// Byte-for-byte comparison with the real toolnexus 0.21.0 Python port.
mod differential;

// Names holding control, format or separator characters are skips; the rest load.
mod names;

// Every level-1 line and a sample of skill outputs of a public registry's tree,
// against toolnexus 0.21.0 (skipped unless SKILLDECK_REGISTRY_TREE is set).
mod registry;

// Insika's spec inventory (reference §10): agents, store overlay, load_skill, authoring.
mod insika;

// Authoring beyond Insika's commands: renaming a stored skill.
mod authoring;

// The live catalog: snapshots under concurrent reloads.
mod live;

// Reloading only what changed equals a whole build; what was not reported is not read.
mod reload;

// Insika's doctor checks skill-eager and skill-drift (reference §8, §10.8), exact messages.
mod doctor;

// The shadowing report and serving a shadowed skill by location.
mod shadowing;

// validate and read_properties against the real skills-ref 0.1.1, message for message.
mod validate;

// Budgets for the level-1 catalogs: exact texts and reports, and properties.
mod budget;

// Search: ranking, exact names, abstention, agents, the bounded not-found text.
mod search;

// Installed skills held against their project's skills-lock.json at load time.
mod installed;

// The audit on real skills: detectors, evasions, benign look-alikes, positions, the corpus.
mod audit;

// The audit as a gate: refused skills free their names, in every source and reload.
mod gate;
