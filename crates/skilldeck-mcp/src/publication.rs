//! What one catalog generation publishes: every exposed skill with its files
//! as `skill://` resources, the Skills-extension entries (manifests) in URI
//! order, and the index from a URI back to the file.
//!
//! Built once per generation (a walk and a `stat` per file, no reads), so
//! listing 10,000 skills is a lookup. Digests are the expensive part and are
//! computed lazily, per skill, on the first `skills/list` page or
//! `skills/get` that needs them: each file's digest is cached across
//! generations keyed by (path, modification time, size), and each skill's
//! whole manifest is kept for the rest of its generation.

use std::collections::{HashMap, HashSet};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::SystemTime;

use rmcp::model::{Skill as Manifest, SkillFrontmatter, SkillResource, SkillResources, sha256_digest};
use serde_json::{Map, Value};
use skilldeck::{AgentProfile, Catalog, Confinement, Mode, Origin, Refusal, Skill, Warning};
use skilldeck_walk::parallel_map;

use crate::mime;
use crate::uri::{file_uri, skill_base};

/// The most files a published skill may have, its `SKILL.md` included.
pub const MAX_FILES: usize = 512;
/// The most bytes a published skill's files may add up to: 16 MiB, the
/// engine's limit on any bytes served ([`skilldeck::MAX_SERVED_BYTES`]).
pub const MAX_BYTES: u64 = skilldeck::MAX_SERVED_BYTES;

/// The file that makes a skill.
const SKILL_MD: &str = "SKILL.md";

/// One generation's publication.
#[derive(Debug, Default)]
pub(crate) struct Publication {
    /// The published skills, by `SKILL.md` URI in byte order; shared, so
    /// that a reload keeps an untouched skill's entry for a reference count.
    pub(crate) entries: Vec<Arc<Entry>>,
    /// The indices of the entries `skills/list` lists, in URI order.
    listed: Vec<usize>,
    /// The indices of the entries `prompts/list` lists, in URI order.
    prompts: Vec<usize>,
    by_uri: HashMap<String, usize>,
    by_name: HashMap<String, usize>,
    /// File URI → (entry, file).
    resources: HashMap<String, (usize, usize)>,
    /// Skills left out of everything, with the reason, in catalog order.
    pub(crate) left_out: Vec<(String, String)>,
}

/// One published skill.
#[derive(Clone, Debug)]
pub(crate) struct Entry {
    pub(crate) name: String,
    /// The skill it was made from: an entry is kept across a reload only
    /// for the same reading of the skill, never for another skill that only
    /// has its name and path (a root swapped to another release).
    skill: Skill,
    pub(crate) description: Option<String>,
    /// The `SKILL.md` URI: the skill's identity in the Skills extension.
    pub(crate) uri: String,
    /// Every file, by relative path in byte order.
    pub(crate) files: Vec<File>,
    /// The frontmatter the Skills extension lists, or why the skill is not
    /// listed there (it is still served as resources and a prompt).
    pub(crate) listing: Result<SkillFrontmatter, String>,
    /// Whether the skill is a prompt: the tool serves it (an agent's eager
    /// skills are in its prompt already, and `load_skill` refuses them).
    pub(crate) prompt: bool,
    /// Files of the skill that are not served, and why (SPEC §11): links
    /// leaving every root, FIFOs, sockets, devices.
    pub(crate) refused: Vec<String>,
    manifest: OnceLock<Manifest>,
}

/// One file of a published skill.
#[derive(Clone, Debug)]
pub(crate) struct File {
    pub(crate) uri: String,
    /// The path relative to the skill, `/`-separated (lossy for names that
    /// are not UTF-8; the URI is exact).
    pub(crate) rel: String,
    /// The size when the generation was built.
    pub(crate) size: u64,
    /// The MIME type its name implies, if any.
    pub(crate) mime: Option<&'static str>,
    pub(crate) source: Source,
}

/// Where a file's bytes are.
#[derive(Clone, Debug)]
pub(crate) enum Source {
    /// A file on disk, read on demand.
    Disk(PathBuf),
    /// A `SKILL.md` made from data or a store record.
    Memory(Arc<[u8]>),
}

impl Publication {
    /// Publishes the skills `profile` may use (every exposed skill without
    /// one) from `catalog`.
    pub(crate) fn build(catalog: &Catalog, profile: Option<&AgentProfile>) -> Publication {
        Publication::rebuild(catalog, profile, None)
    }

    /// Like [`Publication::build`], keeping `previous`'s entry of each disk
    /// skill the engine kept (the same reading, [`Skill::ptr_eq`]) whose
    /// directory holds none of the `changed` paths and lies under none of
    /// them: only what changed is walked again.
    pub(crate) fn rebuild(
        catalog: &Catalog,
        profile: Option<&AgentProfile>,
        previous: Option<(&Publication, &[PathBuf])>,
    ) -> Publication {
        let view = profile.map(|p| catalog.view(p));
        let skills: Vec<&Skill> = match &view {
            Some(view) => view.effective(),
            None => catalog.skills().collect(),
        };
        let recovered: HashMap<&str, bool> = catalog
            .warnings()
            .iter()
            .filter_map(|w| match w {
                Warning::RecoveredFrontmatter { location, problem } => Some((location.as_str(), problem.refused)),
                _ => None,
            })
            .collect();
        let built = parallel_map(&skills, |skill| {
            match previous.and_then(|(publication, changed)| publication.unchanged(skill, changed)) {
                Some(entry) => Ok(entry.clone()),
                None => entry(catalog, skill, profile, recovered.get(skill.location()).copied()).map(Arc::new),
            }
        });
        let mut publication = Publication::default();
        for (skill, built) in skills.iter().zip(built) {
            match built {
                Ok(entry) => publication.entries.push(entry),
                Err(reason) => publication.left_out.push((skill.name().to_owned(), reason)),
            }
        }
        publication.entries.sort_by(|a, b| a.uri.cmp(&b.uri));
        for (i, entry) in publication.entries.iter().enumerate() {
            if entry.listing.is_ok() {
                publication.listed.push(i);
            }
            if entry.prompt {
                publication.prompts.push(i);
            }
            publication.by_uri.insert(entry.uri.clone(), i);
            publication.by_name.insert(entry.name.clone(), i);
            for (j, file) in entry.files.iter().enumerate() {
                publication.resources.insert(file.uri.clone(), (i, j));
            }
        }
        publication
    }

    /// This publication's entry of disk skill `skill`, if it was made from
    /// the same reading of it and nothing `changed` in or above its directory.
    fn unchanged(&self, skill: &Skill, changed: &[PathBuf]) -> Option<&Arc<Entry>> {
        let dir = skill.dir()?;
        let entry = self.by_name.get(skill.name()).map(|&i| &self.entries[i]);
        let entry = entry.filter(|e| Skill::ptr_eq(&e.skill, skill))?;
        let touched = changed.iter().any(|path| path.starts_with(dir) || dir.starts_with(path));
        (!touched).then_some(entry)
    }

    /// Why the skill `name` is left out of everything, when it is.
    pub(crate) fn left_out(&self, name: &str) -> Option<&str> {
        self.left_out.iter().find(|(left, _)| left == name).map(|(_, why)| why.as_str())
    }

    /// The entry whose `SKILL.md` is `uri`.
    pub(crate) fn by_uri(&self, uri: &str) -> Option<&Entry> {
        self.by_uri.get(uri).map(|&i| &*self.entries[i])
    }

    /// The entry of the skill `name`.
    pub(crate) fn by_name(&self, name: &str) -> Option<&Entry> {
        self.by_name.get(name).map(|&i| &*self.entries[i])
    }

    /// The file at canonical `uri`, with its skill.
    pub(crate) fn resource(&self, uri: &str) -> Option<(&Entry, &File)> {
        self.resources.get(uri).map(|&(i, j)| (&*self.entries[i], &self.entries[i].files[j]))
    }

    /// How many skills `skills/list` lists.
    #[cfg(test)]
    pub(crate) fn listed_len(&self) -> usize {
        self.listed.len()
    }

    /// One `skills/list` page: up to `size` listed entries after the one
    /// `cursor` names, and the cursor of the next page when there is one. A
    /// cursor is the (base64url) URI of the last entry of its page, so it
    /// stays meaningful across reloads: the next page starts after that URI
    /// in whatever generation serves it, and a skill is never split.
    ///
    /// # Errors
    ///
    /// A cursor this server did not make.
    pub(crate) fn page(&self, cursor: Option<&str>, size: usize) -> Result<(Vec<&Entry>, Option<String>), ()> {
        self.page_of(Some(&self.listed), cursor, size)
    }

    /// One `resources/list` page: like [`Publication::page`], over every
    /// entry (a skill the extension cannot list is still resources), each
    /// with all its files.
    pub(crate) fn resource_page(&self, cursor: Option<&str>, size: usize) -> Result<(Vec<&Entry>, Option<String>), ()> {
        self.page_of(None, cursor, size)
    }

    /// One `prompts/list` page: like [`Publication::page`], over the entries
    /// that are prompts.
    pub(crate) fn prompt_page(&self, cursor: Option<&str>, size: usize) -> Result<(Vec<&Entry>, Option<String>), ()> {
        self.page_of(Some(&self.prompts), cursor, size)
    }

    /// A page of the entries at `ids` (all of them when `None`), in URI order.
    fn page_of(
        &self,
        ids: Option<&[usize]>,
        cursor: Option<&str>,
        size: usize,
    ) -> Result<(Vec<&Entry>, Option<String>), ()> {
        let len = ids.map_or(self.entries.len(), <[usize]>::len);
        let entry = |k: usize| &*self.entries[ids.map_or(k, |ids| ids[k])];
        let mut start = 0;
        if let Some(cursor) = cursor {
            // The first entry after the cursor's URI, by binary search.
            let after = decode_cursor(cursor).ok_or(())?;
            let mut end = len;
            while start < end {
                let mid = start + (end - start) / 2;
                if entry(mid).uri <= after { start = mid + 1 } else { end = mid }
            }
        }
        let end = start.saturating_add(size.max(1)).min(len);
        let page: Vec<&Entry> = (start..end).map(entry).collect();
        let next = (end < len).then(|| encode_cursor(&entry(end - 1).uri));
        Ok((page, next))
    }

    /// What the file at canonical `uri` is now ([`Version::Gone`] when
    /// this publication has none): a `stat` for a file on disk, no read.
    pub(crate) fn version(&self, uri: &str) -> Version {
        match self.resource(uri).map(|(_, file)| &file.source) {
            None => Version::Gone,
            Some(Source::Disk(path)) => Version::Disk(path.clone(), std::fs::metadata(path).ok().map(|m| stamp(&m))),
            Some(Source::Memory(bytes)) => Version::Memory(bytes.clone()),
        }
    }

    /// Every disk file published: what the digest cache should keep.
    pub(crate) fn disk_paths(&self) -> HashSet<&Path> {
        self.entries
            .iter()
            .flat_map(|e| &e.files)
            .filter_map(|f| match &f.source {
                Source::Disk(path) => Some(path.as_path()),
                Source::Memory(_) => None,
            })
            .collect()
    }
}

impl Entry {
    /// What of the skill's files may be served: those inside its own root
    /// (nothing, for a skill not on disk, whose files are in memory).
    pub(crate) fn confinement(&self) -> &Confinement {
        self.skill.confinement().unwrap_or(&Confinement::NOWHERE)
    }

    /// The Skills-extension entry: frontmatter and every file with its
    /// digest and size, computed on first use and kept for the generation.
    ///
    /// # Errors
    ///
    /// The skill is not listed (why), or a file could not be read.
    pub(crate) fn manifest(&self, digests: &DigestCache) -> Result<Manifest, String> {
        if let Some(manifest) = self.manifest.get() {
            return Ok(manifest.clone());
        }
        let frontmatter = self.listing.clone()?;
        let mut resources = Vec::with_capacity(self.files.len());
        for file in &self.files {
            let facts =
                file.facts(digests, self.confinement()).map_err(|e| format!("cannot read {}: {e}", file.uri))?;
            resources.push(SkillResource::new(file.uri.clone(), facts.digest.clone(), facts.size));
        }
        let manifest = Manifest::new(self.uri.clone(), frontmatter, SkillResources::Files(resources));
        Ok(self.manifest.get_or_init(|| manifest).clone())
    }
}

impl File {
    /// The digest, size and text-ness of the file's bytes now.
    pub(crate) fn facts(&self, digests: &DigestCache, confinement: &Confinement) -> Result<Arc<Facts>, Refusal> {
        match &self.source {
            Source::Disk(path) => digests.facts(path, confinement),
            Source::Memory(bytes) => Ok(Arc::new(Facts::of(bytes))),
        }
    }

    /// The file's bytes now, if they may still be served: a file on disk is
    /// opened and checked again (it may have been swapped since listing).
    pub(crate) fn read(&self, confinement: &Confinement) -> Result<Arc<[u8]>, Refusal> {
        match &self.source {
            Source::Disk(path) => Ok(confinement.read(path)?.into()),
            Source::Memory(bytes) => Ok(bytes.clone()),
        }
    }
}

fn encode_cursor(uri: &str) -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(uri)
}

fn decode_cursor(cursor: &str) -> Option<String> {
    use base64::Engine;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(cursor).ok()?;
    String::from_utf8(bytes).ok().filter(|uri| uri.starts_with(crate::uri::SCHEME) && uri.ends_with("/SKILL.md"))
}

/// Why `skill` is left out of everything, if it is: its entry made alone,
/// a walk of its directory (for a skill asked for before its publication is
/// built).
pub(crate) fn unserved(catalog: &Catalog, skill: &Skill, profile: Option<&AgentProfile>) -> Option<String> {
    entry(catalog, skill, profile, None).err()
}

/// Builds the entry of one skill, or says why it is left out of everything.
/// `recovered` says whether the engine read its `name` and `description`
/// line by line, and then whether YAML refused the frontmatter (else YAML
/// read one of them as no text: a list, or a null such as a comment).
fn entry(
    catalog: &Catalog,
    skill: &Skill,
    profile: Option<&AgentProfile>,
    recovered: Option<bool>,
) -> Result<Entry, String> {
    let name = skill.name();
    let base = skill_base(name);
    let uri = format!("{base}/{SKILL_MD}");
    let mut refused = Vec::new();
    let (files, frontmatter) = match (skill.origin(), skill.dir()) {
        (Origin::Fs { dir, .. }, _) => {
            (disk_files(catalog, skill, dir, &base, None, &mut refused)?, json_object(skill))
        }
        (Origin::Store { .. }, dir) => {
            let text = skill.record().unwrap_or_default();
            Refusal::check_size(skill.location(), text.len() as u64).map_err(|e| e.to_string())?;
            let record = memory_file(&uri, text.as_bytes());
            // A record over a disk skill: its SKILL.md, and that skill's other files.
            let files = match dir {
                Some(dir) => disk_files(catalog, skill, dir, &base, Some(record), &mut refused)?,
                None => vec![record],
            };
            (files, json_object(skill))
        }
        // Data skills (and any origin without files): one SKILL.md made from the data.
        _ => {
            let body = skill.body().map_err(|e| format!("its body cannot be read: {e}"))?;
            let text = data_skill_md(name, skill.description(), body);
            let mut frontmatter = Map::new();
            frontmatter.insert("name".into(), Value::String(name.to_owned()));
            if let Some(description) = skill.description() {
                frontmatter.insert("description".into(), Value::String(description.to_owned()));
            }
            (vec![memory_file(&uri, text.as_bytes())], frontmatter)
        }
    };
    // A host parses the SKILL.md again and must find the listed frontmatter:
    // what the line-wise reading gave is not there.
    let listing = match recovered {
        Some(true) => Err("its frontmatter is not valid YAML (skilldeck read it line by line)".to_owned()),
        Some(false) => {
            Err("its frontmatter's `name` or `description` is no YAML text (skilldeck read it line by line)".to_owned())
        }
        None => listing(name, &uri, frontmatter, &files),
    };
    Ok(Entry {
        name: name.to_owned(),
        skill: skill.clone(),
        description: skill.description().map(str::to_owned),
        uri,
        files,
        listing,
        prompt: profile.is_none_or(|p| p.mode(name) == Mode::Lazy),
        refused,
        manifest: OnceLock::new(),
    })
}

/// The frontmatter as a JSON object, keys in the author's order.
fn json_object(skill: &Skill) -> Map<String, Value> {
    skill.frontmatter().iter().map(|(k, v)| (k.clone(), v.clone())).collect()
}

/// The files of a disk skill that may be served (the rest go to `refused`),
/// within the limits; with `record` (a store record over the disk skill),
/// that is its `SKILL.md` instead of the directory's.
fn disk_files(
    catalog: &Catalog,
    skill: &Skill,
    dir: &Path,
    base: &str,
    mut record: Option<File>,
    refused: &mut Vec<String>,
) -> Result<Vec<File>, String> {
    let confinement = skill.confinement().ok_or("it has no root to serve its files from")?;
    confinement.check_path(dir).map_err(|e| format!("its directory is not served: {e}"))?;
    let walk = catalog.skill_files(dir);
    if let Some(limit) = walk.limit_hit {
        return Err(format!("the walk of its directory stopped at the {limit}, so its file list is incomplete"));
    }
    let mut files: Vec<File> = Vec::new();
    let mut total = 0u64;
    let mut add = |files: &mut Vec<File>, at: Option<usize>, file: File| {
        if files.len() == MAX_FILES {
            return Err(format!("it has more than {MAX_FILES} files (the Skills extension's limit)"));
        }
        total += file.size;
        if total > MAX_BYTES {
            return Err(format!(
                "its files add up to more than {MAX_BYTES} bytes (16 MiB, the Skills extension's limit)"
            ));
        }
        files.insert(at.unwrap_or(files.len()), file);
        Ok(())
    };
    for found in &walk.files {
        let rel = found.rel_bytes();
        if rel == SKILL_MD.as_bytes()
            && let Some(record) = record.take()
        {
            add(&mut files, None, record)?;
            continue;
        }
        let size = match confinement.check_file(&found.path, walk.linked) {
            Ok(size) => size,
            // A file that vanished since the walk is simply not published.
            Err(Refusal::Io { source, .. }) if source.kind() == io::ErrorKind::NotFound => continue,
            Err(refusal) if rel == SKILL_MD.as_bytes() => {
                return Err(format!("its SKILL.md is not served: {refusal}"));
            }
            Err(refusal) => {
                refused.push(refusal.to_string());
                continue;
            }
        };
        let file_name = rel.rsplit(|&b| b == b'/').next().unwrap_or(rel);
        let mime = if rel == SKILL_MD.as_bytes() { Some("text/markdown") } else { mime::by_name(file_name) };
        let file = File {
            uri: file_uri(base, rel),
            // On Windows `\` separates; elsewhere it is part of a name.
            rel: if cfg!(windows) { found.rel_path().replace('\\', "/") } else { found.rel_path() },
            size,
            mime,
            source: Source::Disk(found.path.clone()),
        };
        add(&mut files, None, file)?;
    }
    // The disk skill's SKILL.md went since the catalog was built: the record's is still served.
    if let Some(record) = record {
        let at = files.partition_point(|f| f.rel.as_bytes() < SKILL_MD.as_bytes());
        add(&mut files, Some(at), record)?;
    }
    Ok(files)
}

fn memory_file(uri: &str, bytes: &[u8]) -> File {
    File {
        uri: uri.to_owned(),
        rel: SKILL_MD.to_owned(),
        size: bytes.len() as u64,
        mime: Some("text/markdown"),
        source: Source::Memory(bytes.into()),
    }
}

/// The Skills-extension frontmatter of a skill, or why it cannot be listed:
/// the extension needs a string `name` equal to the URI's last segment, a
/// string `description`, a name its validator accepts, and a `SKILL.md`.
fn listing(
    name: &str,
    uri: &str,
    mut frontmatter: Map<String, Value>,
    files: &[File],
) -> Result<SkillFrontmatter, String> {
    match frontmatter.get("name") {
        Some(Value::String(written)) if written == name => {}
        _ => return Err(format!("its frontmatter `name` is not the string {name:?} it is served under")),
    }
    let Some(Value::String(description)) = frontmatter.get("description").cloned() else {
        return Err("its frontmatter has no string `description`, which the Skills extension requires".into());
    };
    frontmatter.shift_remove("name");
    frontmatter.shift_remove("description");
    let frontmatter =
        frontmatter.into_iter().fold(SkillFrontmatter::new(name, description), |fm, (k, v)| fm.with_field(k, v));
    // rmcp refuses a whole page that holds one invalid entry: check each here.
    let placeholder = format!("sha256:{}", "0".repeat(64));
    let resources = files.iter().map(|f| SkillResource::new(f.uri.clone(), placeholder.clone(), f.size)).collect();
    Manifest::new(uri, frontmatter.clone(), SkillResources::Files(resources))
        .validate()
        .map_err(|e| format!("the Skills extension refuses it: {e}"))?;
    Ok(frontmatter)
}

/// The `SKILL.md` of a data skill: `name` (plain when YAML reads it back as
/// that string, else JSON-quoted), `description` as a JSON string (a valid
/// YAML double-quoted scalar; no line when absent), then the content.
pub(crate) fn data_skill_md(name: &str, description: Option<&str>, content: &str) -> String {
    let mut text = format!("---\nname: {}\n", skilldeck::yaml_scalar(name));
    if let Some(description) = description {
        text.push_str(&format!("description: {}\n", Value::String(description.to_owned())));
    }
    text.push_str("---\n");
    text.push_str(content);
    text
}

/// What the Skills extension and a read need to know of a file's bytes.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Facts {
    /// `sha256:<64 lowercase hex>`.
    pub(crate) digest: String,
    pub(crate) size: u64,
    /// Valid UTF-8 without NUL.
    pub(crate) text: bool,
}

impl Facts {
    pub(crate) fn of(bytes: &[u8]) -> Facts {
        Facts { digest: sha256_digest(bytes), size: bytes.len() as u64, text: mime::is_text(bytes) }
    }
}

/// File facts by path, valid while the file's [`Stamp`] stays the same;
/// shared by every generation.
#[derive(Debug, Default)]
pub(crate) struct DigestCache {
    map: Mutex<HashMap<PathBuf, (Stamp, Arc<Facts>)>>,
}

/// What a published file is at one moment, to tell whether it changed
/// since (for `notifications/resources/updated`): equal versions are the
/// same bytes, as far as a `stat` can tell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Version {
    /// Not published.
    Gone,
    /// A file on disk, and its stamp (`None`: it cannot be stat'ed now).
    Disk(PathBuf, Option<Stamp>),
    /// A `SKILL.md` made from data or a store record: its bytes.
    Memory(Arc<[u8]>),
    /// Not known: equal to no version [`Publication::version`] gives, so
    /// the next look finds a change.
    Unseen,
}

impl Version {
    /// Whether the file changed less than `window` ago (its modification
    /// or status change time), as far as its stamp tells.
    pub(crate) fn changed_within(&self, window: std::time::Duration) -> bool {
        let Version::Disk(_, Some((modified, _, file))) = self else {
            return false;
        };
        let changed = file
            .and_then(|(_, _, secs, nanos)| {
                let nanos = u32::try_from(nanos).ok()?;
                let secs = u64::try_from(secs).ok()?;
                SystemTime::UNIX_EPOCH.checked_add(std::time::Duration::new(secs, nanos))
            })
            .into_iter()
            .chain(*modified)
            .max();
        changed.is_some_and(|changed| changed.elapsed().map_or(true, |ago| ago < window))
    }
}

/// What changes whenever a file's bytes may have: its modification time and
/// size and, on Unix, its device, inode and status change time. Archives and
/// `touch` set modification times back; a path that leads to another file
/// (a root whose link was swapped to another release) is another inode.
pub(crate) type Stamp = (Option<SystemTime>, u64, Option<(u64, u64, i64, i64)>);

fn stamp(meta: &std::fs::Metadata) -> Stamp {
    #[cfg(unix)]
    let file = {
        use std::os::unix::fs::MetadataExt;
        Some((meta.dev(), meta.ino(), meta.ctime(), meta.ctime_nsec()))
    };
    #[cfg(not(unix))]
    let file = None;
    (meta.modified().ok(), meta.len(), file)
}

impl DigestCache {
    /// The facts of the file at `path`, read and hashed only when it changed;
    /// opened and checked under `confinement` either way.
    pub(crate) fn facts(&self, path: &Path, confinement: &Confinement) -> Result<Arc<Facts>, Refusal> {
        let opened = confinement.open(path)?;
        let stamp = stamp(opened.metadata());
        if let Some((seen, facts)) = self.lock().get(path)
            && *seen == stamp
        {
            return Ok(facts.clone());
        }
        let bytes = opened.read()?;
        let facts = Arc::new(Facts::of(&bytes));
        // Keyed by the stamp taken before the read: a change during the read
        // leaves a stamp that no longer matches, so it is read again next time.
        self.lock().insert(path.to_path_buf(), (stamp, facts.clone()));
        Ok(facts)
    }

    /// Forgets every file `keep` refuses (files no generation publishes).
    pub(crate) fn retain(&self, keep: &HashSet<&Path>) {
        self.lock().retain(|path, _| keep.contains(path.as_path()));
    }

    /// How many files are cached.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.lock().len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, (Stamp, Arc<Facts>)>> {
        self.map.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests;
