//! The data model: a [`Skill`], where it came from ([`Origin`]), and the
//! definition of a skill supplied as data ([`SkillDef`]).

use std::borrow::Cow;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use crate::source::confine::{Confinement, Refusal};
use crate::source::frontmatter::{Frontmatter, simple};
use crate::source::installed::Integrity;
use crate::source::read;

/// One skill of a catalog: what its frontmatter says, where it came from, and
/// its body (the instructions served at level 2).
///
/// Cloning is cheap (an `Arc`): snapshots, reloads and views share skills, and
/// a body read once is read once for all of them.
#[derive(Clone, Debug)]
pub struct Skill {
    data: Arc<SkillData>,
}

/// What a [`Skill`] holds.
#[derive(Clone, Debug)]
pub(crate) struct SkillData {
    pub(crate) name: String,
    pub(crate) description: Option<String>,
    pub(crate) frontmatter: HeldFrontmatter,
    pub(crate) triggers: Vec<String>,
    pub(crate) companions: Vec<String>,
    pub(crate) origin: Origin,
    pub(crate) location: String,
    /// Filled at load for data and store skills; a disk skill's is read when
    /// first served, then shared by every snapshot that holds the skill.
    pub(crate) body: OnceLock<String>,
    /// A store skill's record text, verbatim; `None` for other origins.
    pub(crate) record: Option<Arc<str>>,
    /// The root a disk skill's files may be read from (shared by every
    /// skill of that root's walk, and by a store record that took the
    /// skill's place); `None` for a skill without a directory.
    pub(crate) confinement: Option<Arc<Confinement>>,
    /// For a skill in a project's `.agents/skills`: what the check against
    /// the project's lock found when it was read.
    pub(crate) integrity: Option<Integrity>,
}

/// How a skill holds its frontmatter. Most frontmatters are read without
/// the YAML parser, and reading their text again costs about a microsecond:
/// the text is kept, a third to a quarter of the mapping's size (every key
/// a `Value` of 72 bytes, every map a hash index), and the mapping is made
/// when asked for. Catalogs, level-1 lists and searches never ask.
#[derive(Clone, Debug)]
pub(crate) enum HeldFrontmatter {
    /// The mapping, as the YAML parser (or the line-wise rescue) gave it.
    Map(Frontmatter),
    /// The YAML text of a frontmatter that [`simple::mapping`] reads.
    Text(Box<str>),
}

impl Default for HeldFrontmatter {
    fn default() -> Self {
        HeldFrontmatter::Map(Frontmatter::new())
    }
}

impl HeldFrontmatter {
    /// The mapping: borrowed when held, made from the text otherwise.
    fn get(&self) -> Cow<'_, Frontmatter> {
        match self {
            HeldFrontmatter::Map(map) => Cow::Borrowed(map),
            // The text was read so when the skill was made; it reads the same.
            HeldFrontmatter::Text(yaml) => Cow::Owned(simple::mapping(yaml).unwrap_or_default()),
        }
    }
}

/// Where a skill came from.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Origin {
    /// A `SKILL.md` on disk.
    Fs {
        /// The `SKILL.md` path, as walked (absolute; links not resolved).
        skill_md: PathBuf,
        /// The directory holding it: the skill's base.
        dir: PathBuf,
    },
    /// A skill supplied as data ([`SkillDef`]); it never shows a host path.
    Logical {
        /// The base the model is told, `skill://<name>/` unless supplied.
        base: String,
        /// The resource names disclosed, in supplied order.
        resources: Vec<String>,
    },
    /// An authored record of a [`SkillStore`](crate::store::SkillStore); the
    /// skill's name is the record's key.
    ///
    /// A record holds one `SKILL.md` text and no other file. One that takes
    /// the place of a disk skill (a shared record over a skill of its name
    /// in a root; an agent's record over the shared skill it specializes)
    /// keeps serving that skill's files from where they are, under that
    /// skill's [`Confinement`]: its `SKILL.md` is the record, its other
    /// files are the directory's (`dir`).
    Store {
        /// The agent whose record it is; `None` for a shared record.
        agent: Option<String>,
        /// The directory of the disk skill whose place the record took: the
        /// skill's other files are served from there. `None` for a record
        /// with no disk skill of its name, which has no other file.
        dir: Option<PathBuf>,
    },
}

impl Origin {
    /// `fs` or `logical`: the name used in JSON and tables.
    pub fn kind(&self) -> &'static str {
        match self {
            Origin::Fs { .. } => "fs",
            Origin::Logical { .. } => "logical",
            Origin::Store { .. } => "store",
        }
    }
}

impl From<SkillData> for Skill {
    fn from(data: SkillData) -> Skill {
        Skill { data: Arc::new(data) }
    }
}

impl Skill {
    /// Whether `a` and `b` are one reading of a skill: a reload that kept a
    /// skill (nothing it was read from changed) shares it with the snapshot
    /// before; one that read it again made another, however alike. A host
    /// that derives data from a skill can keep it for the same reading only.
    pub fn ptr_eq(a: &Skill, b: &Skill) -> bool {
        Arc::ptr_eq(&a.data, &b.data)
    }

    /// The skill's data.
    pub(crate) fn data(&self) -> &SkillData {
        &self.data
    }

    /// The skill's data, to change while it is being built (copied first if
    /// it is shared).
    pub(crate) fn data_mut(&mut self) -> &mut SkillData {
        Arc::make_mut(&mut self.data)
    }

    /// The skill's name: unique in a catalog.
    pub fn name(&self) -> &str {
        &self.data.name
    }

    /// The description, if the frontmatter has one (it may be empty).
    pub fn description(&self) -> Option<&str> {
        self.data.description.as_deref()
    }

    /// Every key of the frontmatter, in the author's order.
    ///
    /// A catalog keeps most frontmatters as their text (the name,
    /// description, triggers and companions are read out when the skill is
    /// made): this mapping is then made on each call, in about a microsecond.
    /// Keep it if you need it often.
    ///
    /// # Example
    ///
    /// ```
    /// use skilldeck::{Catalog, store::{MemoryStore, SkillStore}};
    /// use std::sync::Arc;
    ///
    /// let store = Arc::new(MemoryStore::default());
    /// let text = "---\nname: pdf\ndescription: Read PDFs.\nmetadata:\n  version: \"1.2\"\n---\nBody.\n";
    /// store.write("pdf", text, None, &skilldeck::store::Precondition::Any)?;
    /// let catalog = Catalog::builder().store(store).build();
    /// let frontmatter = catalog.get("pdf").unwrap().frontmatter();
    /// assert_eq!(frontmatter["metadata"]["version"], "1.2");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn frontmatter(&self) -> Cow<'_, Frontmatter> {
        self.data.frontmatter.get()
    }

    /// Trigger phrases (`triggers`), trimmed, empty ones dropped.
    pub fn triggers(&self) -> &[String] {
        &self.data.triggers
    }

    /// Names of companion skills (`companions`), trimmed, empty ones dropped.
    pub fn companions(&self) -> &[String] {
        &self.data.companions
    }

    /// Where the skill came from.
    pub fn origin(&self) -> &Origin {
        &self.data.origin
    }

    /// The `SKILL.md` path, a data skill's base, or `store:<name>` /
    /// `store:<agent>/<name>` for a store record.
    pub fn location(&self) -> &str {
        &self.data.location
    }

    /// The text after the frontmatter, verbatim.
    ///
    /// # Errors
    ///
    /// A disk skill's body is read when first asked for, under its
    /// [`Confinement`]: the read fails if the `SKILL.md` went, is
    /// no longer a regular file inside its root, lost its frontmatter, or is
    /// larger than [`MAX_SERVED_BYTES`](crate::MAX_SERVED_BYTES). A body of
    /// any origin over that limit is an error (`PermissionDenied`, carrying
    /// the [`Refusal`]).
    pub fn body(&self) -> io::Result<&str> {
        if let Some(body) = self.data.body.get() {
            Refusal::check_size(&self.data.location, body.len() as u64)?;
            return Ok(body);
        }
        match self.read_disk_body() {
            Some(read) => {
                let body = read?;
                Ok(self.data.body.get_or_init(|| body))
            }
            None => Ok(""),
        }
    }

    /// The start of the body, at most `max` bytes (cut at a character
    /// boundary), for one reading (the search index): a body already held is
    /// borrowed; of a disk body only that start is read, under the
    /// confinement, and not kept, so indexing leaves the catalog holding no
    /// bodies of files.
    pub(crate) fn body_prefix(&self, max: usize) -> io::Result<Cow<'_, str>> {
        if let Some(body) = self.data.body.get() {
            return Ok(Cow::Borrowed(crate::text::prefix(body, max)));
        }
        match self.disk_file() {
            Some((skill_md, confinement)) => read::body_prefix(skill_md, confinement, max).map(Cow::Owned),
            None => Ok(Cow::Borrowed("")),
        }
    }

    /// A disk skill's body, read from its `SKILL.md` now under its
    /// confinement; `None` for other origins, whose body is held.
    fn read_disk_body(&self) -> Option<io::Result<String>> {
        let (skill_md, confinement) = self.disk_file()?;
        Some(read::body(skill_md, confinement))
    }

    /// A disk skill's `SKILL.md` and the confinement it is read under; `None`
    /// for other origins.
    fn disk_file(&self) -> Option<(&Path, &Confinement)> {
        let Origin::Fs { skill_md, .. } = &self.data.origin else {
            return None;
        };
        Some((skill_md, self.data.confinement.as_deref().unwrap_or(&Confinement::NOWHERE)))
    }

    /// Whether the body can be served now. One that cannot be read (the file
    /// went since the catalog was built) is logged and its skill left out of
    /// what is served with others: injected skills and companions alike.
    pub(crate) fn servable(&self) -> bool {
        match self.body() {
            Ok(_) => true,
            Err(error) => {
                tracing::warn!(skill = self.name(), "body left out: {error}");
                false
            }
        }
    }

    /// The stored `SKILL.md` text of a store skill, verbatim (frontmatter and
    /// body, as written); `None` for a disk or data skill. A host that serves
    /// the skill's `SKILL.md` (an MCP resource) serves these bytes.
    ///
    /// # Example
    ///
    /// ```
    /// use std::sync::Arc;
    /// use skilldeck::{Catalog, SkillDef, store::{MemoryStore, SkillStore}};
    ///
    /// let store = Arc::new(MemoryStore::default());
    /// store.write("pedido", "---\nname: pedido\n---\nFaça o pedido.\n", None, &skilldeck::store::Precondition::Any)?;
    /// let catalog = Catalog::builder().skill(SkillDef::new("menu")).store(store).build();
    /// assert_eq!(catalog.get("pedido").unwrap().record(), Some("---\nname: pedido\n---\nFaça o pedido.\n"));
    /// assert_eq!(catalog.get("menu").unwrap().record(), None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn record(&self) -> Option<&str> {
        self.data.record.as_deref()
    }

    /// The directory the skill's files are served from: a disk skill's own,
    /// or, for a store record that took a disk skill's place, that skill's
    /// (see [`Origin::Store`]). `None` for a data skill and a record with
    /// no disk skill of its name.
    ///
    /// # Example
    ///
    /// ```
    /// use std::sync::Arc;
    /// use skilldeck::store::{MemoryStore, Precondition, SkillStore};
    /// use skilldeck::Catalog;
    ///
    /// let root = tempfile::tempdir()?;
    /// std::fs::create_dir_all(root.path().join("pdf/reference"))?;
    /// std::fs::write(root.path().join("pdf/SKILL.md"), "---\nname: pdf\n---\nRead reference/fields.md.\n")?;
    /// std::fs::write(root.path().join("pdf/reference/fields.md"), "# Fields\n")?;
    /// let store = Arc::new(MemoryStore::default());
    /// store.write("pdf", "---\nname: pdf\n---\nEdited: read reference/fields.md.\n", None, &Precondition::Any)?;
    /// let catalog = Catalog::builder().root(root.path()).store(store).build();
    /// let pdf = catalog.get("pdf").unwrap();
    /// assert_eq!(pdf.location(), "store:pdf");
    /// assert_eq!(pdf.dir(), Some(root.path().join("pdf").as_path()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn dir(&self) -> Option<&Path> {
        match &self.data.origin {
            Origin::Fs { dir, .. } | Origin::Store { dir: Some(dir), .. } => Some(dir),
            Origin::Logical { .. } | Origin::Store { dir: None, .. } => None,
        }
    }

    /// What of the skill's files ([`Skill::dir`]) may leave a host as bytes
    /// (SPEC §11): regular files inside the real path of the root its disk
    /// skill was found under, within
    /// [`MAX_SERVED_BYTES`](crate::MAX_SERVED_BYTES). A disk skill's body is
    /// read under it, and a host that serves the skill's other files (an MCP
    /// server) reads them through it. `None` for a skill without a directory.
    pub fn confinement(&self) -> Option<&Confinement> {
        self.data.confinement.as_deref()
    }

    /// The confinement as shared, for another skill serving the same files.
    pub(crate) fn shared_confinement(&self) -> Option<Arc<Confinement>> {
        self.data.confinement.clone()
    }
}

/// A skill supplied as data rather than found on disk: a database row, an
/// HTTP response, a literal in the host program.
///
/// # Example
///
/// ```
/// use skilldeck::SkillDef;
///
/// let def = SkillDef::new("release")
///     .description("Cut a release")
///     .content("1. Bump the version.")
///     .resources(["checklist.md"]);
/// assert_eq!(def.name.as_deref(), Some("release"));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SkillDef {
    /// The name; a definition without one is skipped as `missing-name`.
    pub name: Option<String>,
    /// The description, used as given (not trimmed).
    pub description: Option<String>,
    /// The body.
    pub content: String,
    /// Resource names listed by the `skill` tool, verbatim and in this order.
    pub resources: Vec<String>,
    /// The base; empty or absent means `skill://<name>/`.
    pub base: Option<String>,
}

impl SkillDef {
    /// A definition with this name and nothing else.
    pub fn new(name: impl Into<String>) -> SkillDef {
        SkillDef { name: Some(name.into()), ..SkillDef::default() }
    }

    /// Sets the description.
    pub fn description(mut self, description: impl Into<String>) -> SkillDef {
        self.description = Some(description.into());
        self
    }

    /// Sets the body.
    pub fn content(mut self, content: impl Into<String>) -> SkillDef {
        self.content = content.into();
        self
    }

    /// Sets the resource names.
    pub fn resources<I, S>(mut self, resources: I) -> SkillDef
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.resources = resources.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the base.
    pub fn base(mut self, base: impl Into<String>) -> SkillDef {
        self.base = Some(base.into());
        self
    }
}
