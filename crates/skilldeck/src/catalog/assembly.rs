//! A build: every source offered in order to an [`Assembly`] (first name
//! wins; a store record takes its name's slot), then frozen into a
//! [`Catalog`]. The store is read all or nothing, and a live catalog keeps
//! its last good read ([`StoreRead`]) for a reload whose read fails.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use skilldeck_walk::{Limits, Symlinks, Totals};

use super::gate::Gate;
use super::walks::{RootIdentity, RootWalk};
use super::{Catalog, CatalogBuilder, Filter, Inner, SampleLimit, Shadowed, Source};
use crate::model::{Origin, Skill, SkillData, SkillDef, Skip, SkipReason, Warning};
use crate::name::{NameKind, check_name_characters};
use crate::source::installed::Integrity;
use crate::source::read::{self, DEFAULT_MAX_FRONTMATTER};
use crate::source::walk;
use crate::store::{Record, SkillStore, StoreError};

impl CatalogBuilder {
    /// Collects every source into a catalog. With `current` (a catalog this
    /// builder made with `keep`) and the paths that `changed` since, a root's
    /// walk is brought up to date rather than made again where the changes
    /// allow (see [`LiveCatalog::reload_changed`](crate::LiveCatalog::reload_changed)),
    /// and a store that fails gives `current`'s store skills. With `keep`,
    /// the catalog keeps its walks and store skills for the next such build.
    pub(crate) fn assemble(&self, current: Option<&Catalog>, changed: Option<&[PathBuf]>, keep: bool) -> Catalog {
        let mut assembly = Assembly { gate: self.gate(), ..Assembly::default() };
        // Absent roots are warned about first, as toolnexus does.
        let mut roots = Vec::with_capacity(self.roots.len());
        for (i, root) in self.roots.iter().enumerate() {
            let absolute = std::path::absolute(root).unwrap_or_else(|_| root.clone());
            match RootIdentity::of(&absolute) {
                Some(identity) => roots.push((i, root, absolute, identity)),
                None => assembly.warn(Warning::RootNotFound { root: root.clone() }),
            }
        }
        // The previous walks, by root: a catalog of this builder has one per root given.
        let before = current.zip(changed).map(|(catalog, changed)| (&catalog.inner.walks, changed));
        for (i, root, absolute, identity) in roots {
            let earlier = before.and_then(|(walks, changed)| {
                // A root path that leads to another directory now is a new root.
                let walk = walks.get(i)?.as_ref().filter(|w| w.absolute == absolute && w.identity == identity)?;
                self.rewalk(walk, changed)
            });
            let walk = earlier.unwrap_or_else(|| self.walk_root(absolute, identity));
            let kept = self.collect_root(root, walk, &mut assembly, keep);
            assembly.walks.resize_with(i, || None);
            assembly.walks.push(kept);
        }
        for def in &self.skills {
            assembly.offer_gated(data_skill(def), &Source::Data);
        }
        if let Some(provider) = &self.provider {
            match provider() {
                Ok(defs) => defs.iter().for_each(|def| assembly.offer_gated(data_skill(def), &Source::Provider)),
                Err(error) => assembly.warn(Warning::ProviderFailed { error: error.into() }),
            }
        }
        if let Some(store) = &self.store {
            let last_good = current.and_then(|catalog| catalog.inner.store.clone());
            let read = self.collect_store(store.as_ref(), last_good, &mut assembly);
            assembly.store = read.filter(|_| keep);
        }
        assembly.finish(self.filter.clone(), self.sample_limit, self.symlinks, self.limits)
    }

    /// Offers the store's skills: read now, or, when the store fails, the
    /// `last_good` read of an earlier build (a store that is down for a
    /// moment must not empty a running catalog). Returns what was offered.
    fn collect_store(
        &self,
        store: &dyn SkillStore,
        last_good: Option<Arc<StoreRead>>,
        assembly: &mut Assembly,
    ) -> Option<Arc<StoreRead>> {
        let read = match self.read_store(store) {
            Ok(read) => Arc::new(read),
            Err(error) => {
                let message = error.to_string();
                let Some(last_good) = last_good else {
                    assembly.warn(Warning::StoreFailed { message });
                    return None;
                };
                assembly.warn(Warning::StoreStale { message });
                last_good
            }
        };
        for outcome in &read.shared {
            if let Some(skill) = assembly.parsed(outcome.clone()) {
                assembly.overlay(skill);
            }
        }
        for (agent, outcomes) in &read.agents {
            let mut skills = Vec::with_capacity(outcomes.len());
            for outcome in outcomes {
                let Some(mut own) = assembly.parsed(outcome.clone()) else { continue };
                // An agent's record specializes the shared skill of its name: it keeps its files.
                if let Some(&i) = assembly.index.get(own.name()) {
                    keep_files(&mut own, &assembly.skills[i]);
                }
                match assembly.gated(own) {
                    Ok(own) => skills.push(own),
                    Err(skip) => assembly.skips.push(skip),
                }
            }
            if !skills.is_empty() {
                assembly.agents.insert(agent.clone(), skills);
            }
        }
        Some(read)
    }

    /// Every record of the store, shared and per agent, parsed; all or nothing,
    /// so that a catalog never mixes two states of the store.
    fn read_store(&self, store: &dyn SkillStore) -> Result<StoreRead, StoreError> {
        let parse = |records: Vec<(String, Record)>, agent: Option<&str>| -> Vec<read::Outcome> {
            records.into_iter().map(|(key, record)| self.store_skill(key, agent, &record.content)).collect()
        };
        let shared = parse(store.all(None)?, None);
        let agents = store
            .agents()?
            .into_iter()
            .map(|agent| Ok((agent.clone(), parse(store.all(Some(&agent))?, Some(&agent)))))
            .collect::<Result<_, StoreError>>()?;
        Ok(StoreRead { shared, agents })
    }

    /// A store record as a skill named by its key; its frontmatter must still
    /// have a `name`, whatever it says.
    fn store_skill(&self, key: String, agent: Option<&str>, content: &str) -> read::Outcome {
        let location = match agent {
            None => format!("store:{key}"),
            Some(agent) => format!("store:{agent}/{key}"),
        };
        let origin = Origin::Store { agent: agent.map(str::to_owned), dir: None };
        let max_frontmatter = self.max_frontmatter.unwrap_or(DEFAULT_MAX_FRONTMATTER);
        // A key from before names were checked may hold what no name may.
        if let Err(error) = check_name_characters(&key, NameKind::Skill) {
            return Err(Skip {
                location,
                reason: SkipReason::InvalidName,
                detail: Some(error.to_string()),
                position: None,
            });
        }
        let (mut skill, recovered) =
            read::parse(content.as_bytes(), true, location, origin, max_frontmatter, self.mode)?;
        let data = skill.data_mut();
        data.name = key;
        data.record = Some(content.into());
        Ok((skill, recovered))
    }

    /// Offers a root's candidates to the assembly, in candidate order; the
    /// walk is returned when `keep`, for the next rebuild.
    fn collect_root(&self, root: &Path, mut walk: RootWalk, assembly: &mut Assembly, keep: bool) -> Option<RootWalk> {
        assembly.walked.dirs += walk.totals.dirs;
        assembly.walked.entries += walk.totals.entries;
        assembly.walked.linked |= walk.totals.linked;
        if let Some(limit) = walk.limit_hit {
            assembly.warn(Warning::WalkLimit { root: root.to_path_buf(), limit });
        }
        assembly.skills.reserve(walk.candidates.len());
        let source = Source::Root(root.to_path_buf());
        if let Some(gate) = &assembly.gate {
            walk.verdicts = gate.verdicts(&walk.candidates, &walk.verdicts);
        }
        // A clone is cheap: a skill is an `Arc`.
        for (_, outcome) in &walk.candidates {
            if let Some(skill) = assembly.parsed(outcome.clone()) {
                let refused = walk.verdicts.get(skill.location()).and_then(|(_, verdict)| verdict.clone());
                match self.unlocked(&skill, assembly).or(refused) {
                    Some(skip) => assembly.skips.push(skip),
                    None => assembly.offer(Ok(skill), &source),
                }
            }
        }
        keep.then_some(walk)
    }
}

impl CatalogBuilder {
    /// What the check against its project's lock found for an installed
    /// `skill`, as a warning on the assembly, or the skip that keeps it out
    /// when [`locked`](CatalogBuilder::locked).
    fn unlocked(&self, skill: &Skill, assembly: &mut Assembly) -> Option<Skip> {
        let skip = |detail: String| Skip {
            location: skill.location().to_owned(),
            reason: SkipReason::NotLocked,
            detail: Some(detail),
            position: None,
        };
        match skill.data().integrity.as_ref()? {
            Integrity::Intact => None,
            Integrity::Differs { lock, file, change } => {
                if self.locked {
                    return Some(skip(format!("modified since install: {file} {change} (against {})", lock.display())));
                }
                let name = skill
                    .dir()
                    .and_then(Path::file_name)
                    .map_or_else(|| skill.name().to_owned(), |n| n.to_string_lossy().into_owned());
                let (file, change, lock) = (file.clone(), *change, lock.clone());
                assembly.warn(Warning::ModifiedSinceInstall { name, file, change, lock });
                None
            }
            Integrity::Unnamed { lock, problem } => {
                if let Some(message) = problem {
                    let warning = Warning::LockUnreadable { lock: lock.clone(), message: message.clone() };
                    if !assembly.warnings.contains(&warning) {
                        assembly.warn(warning);
                    }
                }
                self.locked.then(|| skip(format!("{} does not name it", lock.display())))
            }
        }
    }
}

/// The store's records as one build read and parsed them, kept by a live
/// catalog for the next build to fall back on.
#[derive(Debug)]
pub(super) struct StoreRead {
    /// The shared records, by key.
    pub(super) shared: Vec<read::Outcome>,
    /// Each agent's records, agents and keys in order.
    pub(super) agents: Vec<(String, Vec<read::Outcome>)>,
}

/// A data skill, or its `missing-name` skip.
pub(super) fn data_skill(def: &SkillDef) -> Result<Skill, Skip> {
    let supplied_base = def.base.as_deref().filter(|b| !b.is_empty());
    let Some(name) = def.name.as_deref().filter(|n| !n.is_empty()) else {
        let location = supplied_base.unwrap_or("skill://").to_owned();
        return Err(Skip { location, reason: SkipReason::MissingName, detail: None, position: None });
    };
    let base = supplied_base.map_or_else(|| format!("skill://{name}/"), str::to_owned);
    if let Err(error) = check_name_characters(name, NameKind::Skill) {
        return Err(Skip {
            location: base,
            reason: SkipReason::InvalidName,
            detail: Some(error.to_string()),
            position: None,
        });
    }
    Ok(Skill::from(SkillData {
        name: name.to_owned(),
        description: def.description.clone(),
        frontmatter: Default::default(),
        triggers: Vec::new(),
        companions: Vec::new(),
        location: base.clone(),
        origin: Origin::Logical { base, resources: def.resources.clone() },
        body: OnceLock::from(def.content.clone()),
        record: None,
        confinement: None,
        integrity: None,
    }))
}

/// Makes the store record `record`, which takes the place of `replaced`,
/// serve `replaced`'s files: the record is the new `SKILL.md`, and the
/// files beside it stay where they are, confined to their own root. A
/// record over a skill without a directory (a data skill) has no files.
fn keep_files(record: &mut Skill, replaced: &Skill) {
    let Some(dir) = replaced.dir() else { return };
    let (dir, confinement) = (dir.to_path_buf(), replaced.shared_confinement());
    let data = record.data_mut();
    if let Origin::Store { dir: kept, .. } = &mut data.origin {
        *kept = Some(dir);
        data.confinement = confinement;
    }
}

/// Skill names to their index. The fast (not DoS-resistant) hasher is fine:
/// the names come from the user's own files and stores, for a local catalog,
/// and hashing 10k names with SipHash was a measurable part of a cold `list`.
pub(super) type NameIndex = HashMap<String, usize, foldhash::fast::RandomState>;

/// The catalog being assembled: first name wins, except that a store record
/// takes the place of an earlier skill of its name.
#[derive(Default)]
pub(super) struct Assembly {
    pub(super) skills: Vec<Skill>,
    /// The source of each skill, by the same index.
    pub(super) sources: Vec<Source>,
    pub(super) index: NameIndex,
    pub(super) shadowed: Vec<Shadowed>,
    pub(super) skips: Vec<Skip>,
    pub(super) warnings: Vec<Warning>,
    pub(super) agents: BTreeMap<String, Vec<Skill>>,
    /// The kept walks, by root (`None` for a root not walked or not kept).
    pub(super) walks: Vec<Option<RootWalk>>,
    /// What the roots' walks looked at, together.
    pub(super) walked: Totals,
    /// The store's skills, when kept.
    pub(super) store: Option<Arc<StoreRead>>,
    /// What the build refuses, if it refuses risk.
    pub(super) gate: Option<Gate>,
}

/// Whether `skill`'s directory is a link to `winner`'s.
fn linked_to(skill: &Skill, winner: &Skill) -> bool {
    skill.dir().zip(winner.dir()).is_some_and(|(dir, winner)| walk::is_link_to(dir, winner))
}

impl Assembly {
    fn warn(&mut self, warning: Warning) {
        tracing::warn!(kind = warning.kind(), "{warning}");
        self.warnings.push(warning);
    }

    fn offer(&mut self, candidate: Result<Skill, Skip>, source: &Source) {
        let skill = match candidate {
            Err(skip) => return self.skips.push(skip),
            Ok(skill) => skill,
        };
        match self.index.get(skill.name()) {
            Some(&winner) => {
                let (name, location) = (skill.name().to_owned(), skill.location().to_owned());
                // A host's link to a skill found already (`add --link`) is that skill
                // again, not a second one of its name: skipped, but not warned of.
                let again = linked_to(&skill, &self.skills[winner]);
                let detail = again.then(|| format!("a link to {}", self.skills[winner].location()));
                self.skips.push(Skip {
                    location: location.clone(),
                    reason: SkipReason::DuplicateName,
                    detail,
                    position: None,
                });
                self.shadow(skill, source.clone(), winner);
                if !again {
                    self.warn(Warning::DuplicateName { name, location });
                }
            }
            None => {
                self.index.insert(skill.name().to_owned(), self.skills.len());
                self.skills.push(skill);
                self.sources.push(source.clone());
            }
        }
    }

    /// `skill`, or the skip the gate gives it.
    fn gated(&self, skill: Skill) -> Result<Skill, Skip> {
        match &self.gate {
            Some(gate) => gate.pass(skill),
            None => Ok(skill),
        }
    }

    /// [`Assembly::offer`] of a candidate that the gate has not judged.
    fn offer_gated(&mut self, candidate: Result<Skill, Skip>, source: &Source) {
        let candidate = candidate.and_then(|skill| self.gated(skill));
        self.offer(candidate, source);
    }

    /// Records that `loser` lost its name to the skill at index `winner`.
    fn shadow(&mut self, loser: Skill, source: Source, winner: usize) {
        let winner_location = self.skills[winner].location().to_owned();
        let winner_source = self.sources[winner].clone();
        self.shadowed.push(Shadowed { skill: loser, source, winner_location, winner_source });
    }

    /// The skill of a parse outcome, after recording its skip or its
    /// recovered-frontmatter warning.
    fn parsed(&mut self, outcome: read::Outcome) -> Option<Skill> {
        match outcome {
            Ok((skill, recovered)) => {
                if let Some(problem) = recovered {
                    self.warn(Warning::RecoveredFrontmatter { location: skill.location().to_owned(), problem });
                }
                Some(skill)
            }
            Err(skip) => {
                self.skips.push(skip);
                None
            }
        }
    }

    /// A store record: it takes the place of an earlier skill of its name,
    /// which is then shadowed by it, and keeps serving that skill's files.
    /// A record the gate refuses leaves that skill in place.
    fn overlay(&mut self, mut skill: Skill) {
        let Some(&i) = self.index.get(skill.name()) else {
            return self.offer_gated(Ok(skill), &Source::Store);
        };
        keep_files(&mut skill, &self.skills[i]);
        let skill = match self.gated(skill) {
            Ok(skill) => skill,
            Err(skip) => return self.skips.push(skip),
        };
        let loser = std::mem::replace(&mut self.skills[i], skill);
        let source = std::mem::replace(&mut self.sources[i], Source::Store);
        self.shadow(loser, source, i);
    }

    fn finish(mut self, filter: Filter, sample_limit: SampleLimit, symlinks: Symlinks, limits: Limits) -> Catalog {
        let filter_unmatched: Vec<String> =
            filter.names().filter(|n| !self.index.contains_key(*n)).map(str::to_owned).collect();
        for name in &filter_unmatched {
            self.warn(Warning::FilterUnmatched { name: name.clone() });
        }
        let exposed: Vec<usize> = (0..self.skills.len()).filter(|&i| filter.admits(self.skills[i].name())).collect();
        for skills in self.agents.values_mut() {
            skills.retain(|s| filter.admits(s.name()));
        }
        self.agents.retain(|_, skills| !skills.is_empty());
        // The exposed skills are the indexed ones the filter admits: the
        // index becomes the lookup without building (and cloning) it again.
        let mut by_name = self.index;
        if filter.names().next().is_some() {
            by_name.retain(|name, _| filter.admits(name));
        }
        Catalog {
            inner: Arc::new(Inner {
                skills: self.skills,
                exposed,
                by_name,
                skips: self.skips,
                warnings: self.warnings,
                filter_unmatched,
                shadowed: self.shadowed,
                agents: self.agents,
                walks: self.walks,
                walked: self.walked,
                store: self.store,
                sample_limit,
                symlinks,
                limits,
                search: OnceLock::new(),
            }),
        }
    }
}
