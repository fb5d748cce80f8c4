//! A catalog that reloads: the current snapshot behind an atomic pointer,
//! replaced whole by [`LiveCatalog::reload`].

use std::sync::{Arc, Mutex, PoisonError};

use arc_swap::ArcSwap;

use crate::catalog::{BuildError, Catalog, CatalogBuilder};

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
/// let live = LiveCatalog::new(Catalog::builder().store(store.clone()))?;
/// let before = live.snapshot();
/// store.write("pedido", "---\nname: pedido\n---\nnova\n", None, false)?;
/// live.reload()?;
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
    /// Builds the first snapshot.
    ///
    /// # Errors
    ///
    /// As [`CatalogBuilder::build`]: only a configuration that makes no sense.
    pub fn new(builder: CatalogBuilder) -> Result<LiveCatalog, BuildError> {
        let first = builder.build()?;
        Ok(LiveCatalog { current: ArcSwap::from_pointee(first), builder: Mutex::new(builder) })
    }

    /// The current snapshot. Cheap: a reference count.
    pub fn snapshot(&self) -> Catalog {
        Catalog::clone(&self.current.load())
    }

    /// Rebuilds from the sources and makes the result current; returns it.
    /// Snapshots already taken are unaffected.
    ///
    /// # Errors
    ///
    /// As [`CatalogBuilder::build`]; the current snapshot stays.
    pub fn reload(&self) -> Result<Catalog, BuildError> {
        // The builder holds no half-done state, so a panic in another reload leaves it usable.
        let builder = self.builder.lock().unwrap_or_else(PoisonError::into_inner);
        let next = builder.build()?;
        self.current.store(Arc::new(next.clone()));
        Ok(next)
    }
}
