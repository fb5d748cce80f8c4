//! A catalog that reloads: the current snapshot behind an atomic pointer,
//! replaced whole by [`LiveCatalog::reload`], or by
//! [`LiveCatalog::reload_changed`], which reads again only what changed.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use arc_swap::ArcSwap;

use super::{Catalog, CatalogBuilder};
use crate::store::SkillStore;

/// The current [`Catalog`] of a set of sources, rebuilt on demand.
///
/// Readers call [`snapshot`](LiveCatalog::snapshot) once per turn (or
/// request) and use that snapshot for everything the turn does; they never
/// block and never see a half-built catalog. Reloads build aside and then
/// swap, one at a time, so an older build never replaces a newer one.
///
/// # Example
///
/// ```
/// use std::sync::Arc;
/// use skilldeck::{Catalog, LiveCatalog, store::{MemoryStore, SkillStore}};
///
/// let store = Arc::new(MemoryStore::default());
/// let live = LiveCatalog::new(Catalog::builder().store(store.clone()));
/// let before = live.snapshot();
/// store.write("pedido", "---\nname: pedido\n---\nnova\n", None, &skilldeck::store::Precondition::Any)?;
/// live.reload();
/// assert!(before.get("pedido").is_none());
/// assert_eq!(live.snapshot().get("pedido").unwrap().body()?, "nova\n");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct LiveCatalog {
    current: ArcSwap<Catalog>,
    /// Held for a whole reload: reloads run one at a time, in order.
    builder: Mutex<CatalogBuilder>,
}

impl LiveCatalog {
    /// Builds the first snapshot (which, like [`CatalogBuilder::build`],
    /// cannot fail).
    pub fn new(builder: CatalogBuilder) -> LiveCatalog {
        let first = builder.assemble(None, None, true);
        LiveCatalog { current: ArcSwap::from_pointee(first), builder: Mutex::new(builder) }
    }

    /// The current snapshot. Cheap: a reference count.
    pub fn snapshot(&self) -> Catalog {
        Catalog::clone(&self.current.load())
    }

    /// Rebuilds from the sources and makes the result current; returns it.
    /// Snapshots already taken are unaffected. A store that fails keeps the
    /// store skills of the current snapshot, with a
    /// [`Warning::StoreStale`](crate::Warning::StoreStale): an outage of the
    /// store never empties a running catalog.
    pub fn reload(&self) -> Catalog {
        self.rebuild(None)
    }

    /// Like [`reload`](LiveCatalog::reload), after the files and directories
    /// at `changed` changed (absolute paths, as a file watcher reports them),
    /// reading again only what changed: a `SKILL.md` that changed is read
    /// again, a directory that appeared or changed is walked again, one that
    /// went is dropped, and every other skill is taken from the current
    /// snapshot. A root whose walk met a limit, or a link that leads outside
    /// the root (no change there is reported) or to a changed path or one
    /// around it (the change shows through the link, whose own path is not
    /// reported), or whose own directory changed, or whose path now leads to
    /// another directory (moved away and made again, a link swapped to
    /// another release), is walked whole, whatever `changed` says; a link
    /// that dangles counts by where it would lead. Data skills, the provider
    /// and the store are read again every time. The result is what a whole
    /// reload would give now.
    ///
    /// # Example
    ///
    /// ```
    /// use skilldeck::{Catalog, LiveCatalog};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let skill = dir.path().join("hello");
    /// std::fs::create_dir_all(&skill)?;
    /// std::fs::write(skill.join("SKILL.md"), "---\nname: hello\ndescription: v1\n---\n")?;
    /// let live = LiveCatalog::new(Catalog::builder().root(dir.path()));
    ///
    /// std::fs::write(skill.join("SKILL.md"), "---\nname: hello\ndescription: v2\n---\n")?;
    /// live.reload_changed(&[skill.join("SKILL.md")]);
    /// assert_eq!(live.snapshot().get("hello").unwrap().description(), Some("v2"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn reload_changed(&self, changed: &[PathBuf]) -> Catalog {
        self.rebuild(Some(changed))
    }

    /// The store this catalog's builder reads, if it was given one: the
    /// store [`write_skill`](LiveCatalog::write_skill) writes to, so a write
    /// and the reload after it can never be about two different stores.
    pub fn store(&self) -> Option<Arc<dyn SkillStore>> {
        self.builder.lock().unwrap_or_else(PoisonError::into_inner).store.clone()
    }

    /// The roots walked now, as given to the builder or to
    /// [`set_roots`](LiveCatalog::set_roots).
    ///
    /// ```
    /// use skilldeck::{Catalog, LiveCatalog};
    ///
    /// let live = LiveCatalog::new(Catalog::builder().root("skills"));
    /// assert_eq!(live.roots(), [std::path::PathBuf::from("skills")]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn roots(&self) -> Vec<PathBuf> {
        self.builder.lock().unwrap_or_else(PoisonError::into_inner).roots_given().to_vec()
    }

    /// Replaces the roots with `roots` (every other source stays), walks
    /// them whole and makes the result current; returns it. This is how a
    /// catalog follows a project that moved (an MCP client's roots).
    ///
    /// # Example
    ///
    /// ```
    /// use skilldeck::{Catalog, LiveCatalog};
    ///
    /// let (one, two) = (tempfile::tempdir()?, tempfile::tempdir()?);
    /// for (dir, name) in [(&one, "first"), (&two, "second")] {
    ///     std::fs::create_dir_all(dir.path().join(name))?;
    ///     std::fs::write(dir.path().join(name).join("SKILL.md"), format!("---\nname: {name}\n---\n"))?;
    /// }
    /// let live = LiveCatalog::new(Catalog::builder().root(one.path()));
    /// live.set_roots(vec![two.path().to_path_buf()]);
    /// assert!(live.snapshot().get("first").is_none() && live.snapshot().get("second").is_some());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_roots(&self, roots: Vec<PathBuf>) -> Catalog {
        let mut builder = self.builder.lock().unwrap_or_else(PoisonError::into_inner);
        builder.replace_roots(roots);
        let current = self.snapshot();
        // Walked whole: the kept walks belong to the old roots. The store's last good read still serves.
        let next = builder.assemble(Some(&current), None, true);
        self.current.store(Arc::new(next.clone()));
        next
    }

    fn rebuild(&self, changed: Option<&[PathBuf]>) -> Catalog {
        // The builder holds no half-done state, so a panic in another reload leaves it usable.
        let builder = self.builder.lock().unwrap_or_else(PoisonError::into_inner);
        let current = self.snapshot();
        let next = builder.assemble(Some(&current), changed, true);
        self.current.store(Arc::new(next.clone()));
        next
    }
}
