//! The last run's search index, read back from the [`StartCache`] while
//! this run reads its catalog, for the `find_skills` calls that come before
//! this run's own index is built: at 40,000 skills the walk and the index
//! take seconds, and a host's model may search before.

use std::sync::{Arc, OnceLock};

use arc_swap::ArcSwapOption;
use skilldeck::SavedSearch;

use crate::start_cache::StartCache;

/// The saved index until this run's is built; then nothing.
#[derive(Debug, Default)]
pub(crate) struct EarlySearch {
    /// Set once the saved index was read (or found missing or damaged).
    read: OnceLock<()>,
    saved: ArcSwapOption<SavedSearch>,
}

impl EarlySearch {
    /// Reads `cache`'s search index on a thread of its own; with no cache,
    /// there is none.
    pub(crate) fn load(cache: Option<&StartCache>) -> Arc<EarlySearch> {
        let early = Arc::new(EarlySearch::default());
        let Some(cache) = cache.cloned() else {
            early.read.get_or_init(|| ());
            return early;
        };
        let loader = early.clone();
        let spawned = std::thread::Builder::new().name("saved-search".into()).spawn(move || {
            if let Some(saved) = cache.load_search() {
                loader.saved.store(Some(Arc::new(saved)));
            }
            loader.read.get_or_init(|| ());
        });
        if let Err(error) = spawned {
            tracing::debug!(%error, "cannot read the saved search index");
            early.read.get_or_init(|| ());
        }
        early
    }

    /// The saved index, once read, if this run's is not built yet. Blocks
    /// while it is being read (a fraction of a second).
    pub(crate) fn wait(&self) -> Option<Arc<SavedSearch>> {
        self.read.wait();
        self.saved.load_full()
    }

    /// This run's index is built (or none is offered): the saved one is
    /// dropped, and its memory with it.
    pub(crate) fn retire(&self) {
        self.read.wait();
        self.saved.store(None);
    }
}
