//! The MCP handler: every method answered from one catalog generation taken
//! at the start of the request.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use arc_swap::ArcSwapOption;
use base64::Engine;
use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CustomRequest, CustomResult,
    DiscoverResult, ErrorCode, GetPromptRequestParams, GetPromptResponse, GetPromptResult, GetSkillRequestParams,
    GetSkillResult, Implementation, InitializeRequestParams, InitializeResult, ListPromptsResult, ListResourcesResult,
    ListSkillsResult, ListToolsResult, PaginatedRequestParams, Prompt, PromptMessage, ProtocolVersion,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource, ResourceContents, Role,
    ServerCapabilities, ServerConfig, SubscribeRequestParams, SubscriptionFilter, Tool, UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{ErrorData as McpError, Peer, RoleServer, ServerHandler};
use serde_json::{Map, Value};
use skilldeck::store::SkillStore;
use skilldeck::{
    AgentProfile, Budget, Catalog, CatalogBuilder, LiveCatalog, LoadSkillTool, SkillTool, Skip, ToolDeclaration,
    ToolResult,
};
use tokio::sync::broadcast;

use crate::client_roots::{self, ClientRoots, Project};
use crate::early_search::EarlySearch;
use crate::find_skills::{self, FIND_SKILLS};
use crate::level1::{DEFAULT_BUDGET, FindSkills, Format, Level1};
use crate::live::EarlyWatches;
use crate::mime;
use crate::publication::{DigestCache, Entry, Publication, Version};
use crate::ready::{INSTRUCTIONS_WAIT, Ready, Stage, loading_instructions};
use crate::start_cache::StartCache;
use crate::subscribers::{Full, MAX_SUBSCRIPTIONS, Severity, Subscriber, Subscribers};
use crate::uri::{UriError, canonical};

/// How long a client may treat a list, read or manifest as fresh: `0`. The
/// catalog is live (files and the store are watched), so any cached answer
/// may already be stale; list-changed notifications and `skills/get` tell a
/// host when to ask again.
pub const TTL_MS: u64 = 0;

/// Who may cache an answer: `private`. What a server publishes depends on
/// its flags (an agent's view, a filter) and may be private to the
/// deployment, so shared caches must not keep it.
pub const CACHE_SCOPE: CacheScope = CacheScope::Private;

/// How recent a change to a file a `subscriptions/listen` stream follows
/// may be and still have come after the stream's acknowledgment: far more
/// than the moments between the two.
const ACKNOWLEDGED_RACE: Duration = Duration::from_secs(2);

/// The default page size of `skills/list`, `resources/list` and
/// `prompts/list`, in skills (a `resources/list` page holds every file of
/// its skills). Clients stop following cursors after a fixed number of
/// pages: MCP Inspector after 64, some agents after 50. At 2,000 a
/// 100,000-skill catalog is 50 pages of each list.
pub const DEFAULT_PAGE_SIZE: usize = 2_000;

/// The largest page size `skilldeck serve --page-size` accepts: a 100,000-skill
/// catalog in 10 pages. Past it one page of a large catalog is tens of
/// megabytes, more than a client should be asked to take in one answer.
///
/// ```
/// use skilldeck_mcp::{DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, Options};
///
/// // Pages of 5,000 skills: a 100,000-skill catalog in 20 pages.
/// let options = Options { page_size: 5_000, ..Options::default() };
/// assert!((1..=MAX_PAGE_SIZE).contains(&options.page_size));
/// assert_eq!(100_000_usize.div_ceil(DEFAULT_PAGE_SIZE), 50);
/// ```
pub const MAX_PAGE_SIZE: usize = 10_000;

/// How a server publishes its catalog.
#[derive(Clone, Debug)]
pub struct Options {
    /// The agent whose view is served (`load_skill`, its effective skills);
    /// `None` serves every exposed skill with the `skill` tool.
    pub profile: Option<AgentProfile>,
    /// With a profile, where it is read again at every reload, by its id:
    /// the store the profile came from, so that an edit there (the
    /// Studio's) reaches a running server as a skill edit does.
    pub profile_store: Option<ProfileStore>,
    /// Skills per `skills/list`, `resources/list` and `prompts/list` page
    /// (at least 1; [`DEFAULT_PAGE_SIZE`] by default).
    pub page_size: usize,
    /// The level-1 format of `instructions` without a profile (an agent's
    /// is Insika's).
    pub format: Format,
    /// The most `instructions` may measure.
    pub budget: Budget,
    /// When `find_skills` is offered.
    pub find_skills: FindSkills,
    /// How long `initialize` waits for a catalog that is still being read
    /// ([`SkillServer::loading`]), counted from the server's start, before
    /// its `instructions` say the catalog is loading; the list methods wait
    /// as long for its publication, then answer empty (and say later that
    /// the lists changed).
    pub instructions_wait: Duration,
    /// Log every skill and file left out, not only the first five of a
    /// generation and a count.
    pub verbose: bool,
    /// Where the catalog's skills were looked for: the `instructions` of a
    /// catalog with no skill name them ([`no_skills`](crate::no_skills)).
    pub looked_in: Vec<PathBuf>,
    /// Whether the client's `roots` choose the project (a server started
    /// with no root, serving one client).
    pub client_roots: ClientRoots,
    /// Where the last run's level 1 and search index are kept: `initialize`
    /// answers with the level 1 and `find_skills` from the index while the
    /// catalog is still being read, and the first publication writes both
    /// again ([`StartCache`]).
    pub start_cache: Option<StartCache>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            profile: None,
            profile_store: None,
            page_size: DEFAULT_PAGE_SIZE,
            format: Format::default(),
            budget: DEFAULT_BUDGET,
            find_skills: FindSkills::default(),
            instructions_wait: INSTRUCTIONS_WAIT,
            verbose: false,
            looked_in: Vec::new(),
            client_roots: ClientRoots::default(),
            start_cache: None,
        }
    }
}

/// The store an agent's profile is read from again at every reload
/// ([`Options::profile_store`]): its profile of [`Options::profile`]'s id
/// then, or that id alone (every skill, none eager) when it has none. A
/// store that fails to answer leaves the profile served as it was.
///
/// # Example
///
/// ```
/// use std::sync::Arc;
/// use skilldeck::store::{MemoryStore, SkillStore};
/// use skilldeck::{AgentProfile, Catalog, LiveCatalog};
/// use skilldeck_mcp::{Options, ProfileStore, SkillServer};
///
/// let store = Arc::new(MemoryStore::default());
/// store.update_profiles(&mut |all| all.push(AgentProfile::new("shop").allow(["pedido"])))?;
/// let profile = store.profiles()?.into_iter().next();
/// let live = LiveCatalog::new(Catalog::builder().store(store.clone()));
/// let options = Options { profile, profile_store: Some(ProfileStore(store.clone())), ..Options::default() };
/// let server = SkillServer::new(live, options);
/// // The Studio widens the allowlist; the next reload serves it.
/// store.update_profiles(&mut |all| all[0].skills = None)?;
/// server.reload();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct ProfileStore(pub Arc<dyn SkillStore>);

impl std::fmt::Debug for ProfileStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProfileStore(dyn SkillStore)")
    }
}

/// One catalog generation and what it publishes.
#[derive(Debug)]
pub(crate) struct Generation {
    pub(crate) catalog: Catalog,
    pub(crate) publication: Publication,
    /// Its `instructions`, and whether `find_skills` is offered.
    pub(crate) level1: Level1,
}

/// What a reload changed, for the list-changed notifications.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Change {
    /// The resources may have changed (any reload after a change says so).
    pub resources: bool,
    /// The set of prompts (skills, their descriptions) changed.
    pub prompts: bool,
    /// The tools changed: `find_skills` came or went.
    pub tools: bool,
}

impl Change {
    /// Whether anything is worth a notification.
    pub fn any(self) -> bool {
        self.resources || self.prompts || self.tools
    }
}

#[derive(Debug)]
struct Shared {
    /// Set once the first catalog is read: a reload may read what changed
    /// while the first publication is built, and waits for it to publish.
    live: OnceLock<LiveCatalog>,
    /// Set once the first generation is published (`current` is some).
    published: OnceLock<()>,
    options: Options,
    /// None until the first generation is published.
    current: ArcSwapOption<Generation>,
    /// The first catalog and its level 1, as soon as they are read (before
    /// their publication): enough for `initialize` and tool calls.
    first: OnceLock<(Catalog, Level1)>,
    /// Whether the first build ended, for requests that wait for it.
    ready: Ready,
    /// Whether a client was sent `instructions` before the catalog was read
    /// (that it is loading, or the last run's level 1), and so told of
    /// `find_skills`: it is offered from then on.
    told_loading: AtomicBool,
    /// The last run's level 1 ([`Options::start_cache`]), for `initialize`
    /// while the catalog is read.
    cached_instructions: Option<String>,
    /// The last run's search index, for `find_skills` until this run's is
    /// built.
    early_search: Arc<EarlySearch>,
    /// Whether a list was answered (empty) before the first publication: its
    /// client is told the lists changed once it is published.
    listed_early: AtomicBool,
    digests: DigestCache,
    /// Sessions on the `initialize` handshake, told of changes directly.
    peers: Mutex<Vec<Peer<RoleServer>>>,
    /// Changes, for `subscriptions/listen` streams (2026-07-28).
    changes: broadcast::Sender<Change>,
    /// Diagnostics already printed, so a reload does not repeat them.
    reported: Mutex<HashSet<String>>,
    /// Held for a whole reload, catalog and publication: a publication
    /// built from the changes since the current one must not race another.
    reloading: Mutex<()>,
    /// The server's own reads of the trees, which flood the file watcher.
    own_reads: Arc<OwnReads>,
    /// The file watcher's watches set as the first catalog is walked.
    early: Arc<EarlyWatches>,
    /// Subscriptions to files and sessions' log levels.
    subscribers: Subscribers,
    /// Where the catalog looked, and the client's roots it may follow.
    project: Project,
}

/// skilldeck's MCP server: a [`ServerHandler`] over a [`LiveCatalog`].
/// Clones share everything (one per HTTP session, all over one catalog)
/// but what a session subscribed to, which each transport's session gets
/// afresh.
#[derive(Clone, Debug)]
pub struct SkillServer {
    shared: Arc<Shared>,
    /// This session's subscriptions and log level, made on its first
    /// `resources/subscribe` or `logging/setLevel`.
    session: Arc<OnceLock<Arc<Subscriber>>>,
}

impl SkillServer {
    /// The server over `live`'s current snapshot; builds the first
    /// publication (a walk of every skill directory) before it returns and
    /// logs why any skill is left out.
    pub fn new(live: LiveCatalog, options: Options) -> SkillServer {
        let server = SkillServer::unloaded(options);
        server.publish_first(live);
        server
    }

    /// The server over the catalog `builder` builds, returning at once: the
    /// first catalog and its publication are built on a thread of their
    /// own, and requests are answered meanwhile. `initialize` waits for it
    /// up to [`Options::instructions_wait`], then answers with
    /// [`loading_instructions`]; a request that needs the catalog waits for
    /// it, with `notifications/progress` when it carries a `progressToken`.
    /// [`loaded`](SkillServer::loaded) waits for it too.
    ///
    /// ```
    /// use skilldeck::Catalog;
    /// use skilldeck_mcp::{Options, SkillServer};
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::create_dir(dir.path().join("hello")).unwrap();
    /// std::fs::write(dir.path().join("hello/SKILL.md"), "---\nname: hello\ndescription: Hi.\n---\n").unwrap();
    /// let server = SkillServer::loading(Catalog::builder().root(dir.path()), Options::default());
    /// // Serve it now (`skilldeck_mcp::serve_stdio(server.clone())`); the catalog comes when it is read.
    /// let catalog = server.loaded().await;
    /// assert_eq!(catalog.get("hello").unwrap().description(), Some("Hi."));
    /// # });
    /// ```
    pub fn loading(builder: CatalogBuilder, options: Options) -> SkillServer {
        let server = SkillServer::unloaded(options);
        let early = server.shared.early.clone();
        // A file watcher started meanwhile (`watch`) watches each skill before the walk reads it.
        let builder = builder.before_read(move |dir| early.saw(dir));
        let loader = server.clone();
        let spawned = std::thread::Builder::new().name("first-catalog".into()).spawn(move || {
            loader.shared.ready.walk_begins();
            let started = std::time::Instant::now();
            let live = {
                // The first walk floods a watcher set up meanwhile: reads of our own.
                let _reading = loader.shared.own_reads.start();
                LiveCatalog::new(builder)
            };
            tracing::debug!(ms = started.elapsed().as_millis(), "first catalog built");
            loader.publish_first(live);
        });
        if let Err(error) = spawned {
            // No thread to spare: the requests wait for ever rather than answer from nothing.
            tracing::error!(%error, "cannot start reading the skill catalog");
        }
        server
    }

    /// A server with no catalog yet.
    fn unloaded(mut options: Options) -> SkillServer {
        options.page_size = options.page_size.max(1);
        let (changes, _) = broadcast::channel(16);
        let project = Project::new(&options);
        let cached_instructions = options.start_cache.as_ref().and_then(StartCache::load);
        // An agent's search ranks its own skills alone: the saved index is of every skill.
        let unscoped = options.profile.is_none() && options.profile_store.is_none();
        let early_search = EarlySearch::load(options.start_cache.as_ref().filter(|_| unscoped));
        let shared = Shared {
            live: OnceLock::new(),
            published: OnceLock::new(),
            ready: Ready::new(options.instructions_wait),
            options,
            current: ArcSwapOption::empty(),
            first: OnceLock::new(),
            told_loading: AtomicBool::new(false),
            cached_instructions,
            early_search,
            listed_early: AtomicBool::new(false),
            digests: DigestCache::default(),
            peers: Mutex::default(),
            changes,
            reported: Mutex::default(),
            reloading: Mutex::default(),
            own_reads: Arc::default(),
            early: Arc::default(),
            subscribers: Subscribers::default(),
            project,
        };
        SkillServer { shared: Arc::new(shared), session: Arc::default() }
    }

    /// Publishes the first catalog and wakes the requests waiting for it:
    /// tool calls as soon as it is read, the others once its publication is
    /// built.
    fn publish_first(&self, live: LiveCatalog) {
        self.shared.early.stop_waiting();
        {
            let _reading = self.shared.own_reads.start();
            let catalog = live.snapshot();
            // Where the server was told it looked: a move to the client's
            // project waits for this build, so it is still the place.
            // The profile as given: the command line read it from its source just now.
            let profile = self.shared.options.profile.clone().map(Arc::new);
            let level1 = level1(&catalog, profile, &self.shared.options, &self.shared.project.looked_in());
            let offers = self.offers(&level1);
            warm_search(&catalog, offers, &self.shared.own_reads, Some(&self.shared.early_search));
            keep_start(self.shared.options.start_cache.as_ref(), &catalog, &level1, offers);
            let _ = self.shared.first.set((catalog.clone(), level1.clone()));
            // An edit seen now is read again beside the publication's build, not after it.
            let _ = self.shared.live.set(live);
            self.shared.ready.reach(Stage::Read);
            let publication = Publication::build(&catalog, level1.profile.as_deref());
            let generation = Arc::new(self.generation_of(catalog, publication, level1));
            self.shared.current.store(Some(generation.clone()));
            self.report(&generation);
        }
        let _ = self.shared.published.set(());
        self.shared.ready.reach(Stage::Published);
    }

    /// The generation of `catalog` and its publication: a skill the
    /// publication leaves out (over the Skills extension's limits, or its
    /// files not servable) is left out of every surface, the tool, level 1
    /// and `find_skills` included, so that none offers what another refuses.
    fn generation_of(&self, catalog: Catalog, publication: Publication, first: Level1) -> Generation {
        if publication.left_out.is_empty() {
            return Generation { catalog, publication, level1: first };
        }
        let catalog = catalog.without(publication.left_out.iter().map(|(name, _)| name.as_str()));
        let level1 = level1(&catalog, first.profile, &self.shared.options, &self.shared.project.looked_in());
        Generation { catalog, publication, level1 }
    }

    /// Waits for the first catalog and returns it (what its warnings say,
    /// whether its store could be read, whether it has any skill): the one
    /// built from the roots the server was given, even when the client's
    /// roots have moved it since.
    pub async fn loaded(&self) -> Catalog {
        self.shared.ready.reached(Stage::Published).await;
        match self.shared.first.get() {
            Some((catalog, _)) => catalog.clone(),
            None => self.live().snapshot(),
        }
    }

    /// The first catalog, as soon as it is read (its publication may still
    /// be being built); none if it could not be. Blocking: call it off the
    /// async threads, inside the runtime.
    pub(crate) fn first_catalog(&self) -> Option<Catalog> {
        tokio::runtime::Handle::current().block_on(self.shared.ready.reached(Stage::Read));
        match self.shared.first.get() {
            Some((catalog, _)) => Some(catalog.clone()),
            None => Some(self.live().snapshot()),
        }
    }

    /// Waits until the first catalog is read; false if it could not be.
    pub(crate) async fn first_read(&self) -> bool {
        self.shared.ready.reached(Stage::Read).await;
        self.shared.first.get().is_some()
    }

    /// When the server began reading its first catalog.
    pub(crate) fn loading_began(&self) -> std::time::SystemTime {
        self.shared.ready.began()
    }

    /// The live catalog, once the first catalog is read (blocking until then).
    pub(crate) fn live(&self) -> &LiveCatalog {
        self.shared.live.wait()
    }

    /// Reloads the catalog from its sources and publishes the new
    /// generation; requests already running keep the one they started with.
    /// Blocking: call it off the async threads.
    pub fn reload(&self) -> Change {
        let live = self.live();
        let _one_at_a_time = self.shared.reloading.lock().unwrap_or_else(PoisonError::into_inner);
        let _reading = self.shared.own_reads.start();
        self.publish(live.reload(), None)
    }

    /// Like [`reload`](SkillServer::reload), after the files and directories
    /// at `changed` changed (absolute paths, as a file watcher reports them):
    /// only what changed is read and walked again
    /// ([`LiveCatalog::reload_changed`]); every other skill keeps its
    /// published files. A store change alone is `&[]`.
    pub fn reload_changed(&self, changed: &[PathBuf]) -> Change {
        let live = self.live();
        let waited = std::time::Instant::now();
        let _one_at_a_time = self.shared.reloading.lock().unwrap_or_else(PoisonError::into_inner);
        let _reading = self.shared.own_reads.start();
        let started = std::time::Instant::now();
        let catalog = live.reload_changed(changed);
        tracing::debug!(
            waited_ms = (started - waited).as_millis(),
            ms = started.elapsed().as_millis(),
            "catalog reloaded"
        );
        self.publish(catalog, Some(changed))
    }

    /// Publishes `catalog` as the new generation, keeping the current
    /// generation's files of the skills `changed` leaves alone (all are
    /// walked again without it).
    fn publish(&self, catalog: Catalog, changed: Option<&[PathBuf]>) -> Change {
        // A reload may read what changed while the first publication is built: its own is made from that one.
        self.shared.published.wait();
        let started = std::time::Instant::now();
        let Some(current) = self.generation() else {
            unreachable!("the first generation is published before `published` is set")
        };
        let profile = self.profile_now(&current.level1);
        // An entry kept from the current publication was made for its
        // profile (whether the skill is a prompt): a new profile rebuilds all.
        let same_profile = match (&profile, &current.level1.profile) {
            (Some(now), Some(was)) => Arc::ptr_eq(now, was),
            (now, was) => now.is_none() && was.is_none(),
        };
        let previous = changed.filter(|_| same_profile).map(|changed| (&current.publication, changed));
        let publication = Publication::rebuild(&catalog, profile.as_deref(), previous);
        tracing::debug!(ms = started.elapsed().as_millis(), "publication rebuilt");
        let started = std::time::Instant::now();
        let level1 = level1(&catalog, profile, &self.shared.options, &self.shared.project.looked_in());
        tracing::debug!(ms = started.elapsed().as_millis(), "level 1 rebuilt");
        let started = std::time::Instant::now();
        let next = Arc::new(self.generation_of(catalog, publication, level1));
        let previous = self.shared.current.swap(Some(next.clone())).unwrap_or(current);
        self.shared.digests.retain(&next.publication.disk_paths());
        self.report(&next);
        self.report_refused(&previous.catalog, &next.catalog);
        warm_search(&next.catalog, self.offers(&next.level1), &self.shared.own_reads, None);
        tracing::debug!(ms = started.elapsed().as_millis(), "generation published");
        let served = next.publication.entries.len();
        self.shared.subscribers.log(Severity::Info, format!("catalog reloaded: {served} skills served"));
        Change {
            resources: true,
            prompts: prompts(&previous) != prompts(&next),
            tools: self.offers_find_skills(&previous) != self.offers_find_skills(&next),
        }
    }

    /// The profile a new generation serves: the one given, or with a
    /// [`ProfileStore`], its id's profile there now (`current`'s when the
    /// store fails, said in the log).
    fn profile_now(&self, current: &Level1) -> Option<Arc<AgentProfile>> {
        let given = self.shared.options.profile.as_ref()?;
        let Some(ProfileStore(store)) = &self.shared.options.profile_store else { return current.profile.clone() };
        match store.profiles() {
            Ok(profiles) => {
                let stored = profiles.into_iter().find(|p| p.id == given.id);
                let now = stored.unwrap_or_else(|| AgentProfile::new(given.id.clone()));
                // Unchanged, the same Arc: nothing to compare later.
                match &current.profile {
                    Some(same) if **same == now => Some(same.clone()),
                    _ => Some(Arc::new(now)),
                }
            }
            Err(error) => {
                tracing::warn!(%error, agent = %given.id, "cannot read the agent's profile; serving it as it was");
                current.profile.clone()
            }
        }
    }

    /// Tells every connected client about `change`: sessions on the
    /// handshake directly, 2026-07-28 clients through their
    /// `subscriptions/listen` streams. Closed sessions are forgotten. Then
    /// sends what the reload logged to the sessions whose level asks for it,
    /// and `notifications/resources/updated` for each subscribed file that
    /// changed since its subscriber was last told.
    pub async fn notify(&self, change: Change) {
        if !change.any() {
            return;
        }
        self.notify_lists(change).await;
        let server = self.clone();
        let updates = blocking(move || {
            // Reloads come after the first publication: there is always one.
            server.generation().map(|generation| server.shared.subscribers.updates(&generation.publication))
        })
        .await;
        self.shared.subscribers.send(updates.ok().flatten().unwrap_or_default()).await;
    }

    /// Sends `message` to every session whose log level lets `level`
    /// through (with anything a reload left to send).
    pub(crate) async fn log(&self, severity: Severity, message: String) {
        self.shared.subscribers.log(severity, message);
        self.shared.subscribers.send(Default::default()).await;
    }

    /// The same server for another transport session: it shares everything
    /// but its subscriptions and log level.
    pub(crate) fn for_session(&self) -> SkillServer {
        SkillServer { shared: self.shared.clone(), session: Arc::default() }
    }

    /// This session's subscriber, made and registered on first use.
    fn subscriber(&self, peer: &Peer<RoleServer>) -> &Arc<Subscriber> {
        self.session.get_or_init(|| {
            let subscriber = Subscriber::session(peer.clone());
            self.shared.subscribers.add(&subscriber);
            subscriber
        })
    }

    /// The list-changed notifications of `change`.
    async fn notify_lists(&self, change: Change) {
        let _ = self.shared.changes.send(change);
        let peers: Vec<Peer<RoleServer>> = self.peers().drain(..).collect();
        let mut alive = Vec::with_capacity(peers.len());
        for peer in peers {
            if peer.is_transport_closed() {
                continue;
            }
            let mut sent = true;
            if change.resources {
                sent &= peer.notify_resource_list_changed().await.is_ok();
            }
            if change.prompts {
                sent &= peer.notify_prompt_list_changed().await.is_ok();
            }
            if change.tools {
                sent &= peer.notify_tool_list_changed().await.is_ok();
            }
            if sent {
                alive.push(peer);
            }
        }
        self.peers().extend(alive);
    }

    /// Walks `roots`, looked for in `looked_in`, in place of the current
    /// roots, and publishes the new generation (the file watcher follows).
    /// Blocking, and waits for the first catalog: a move never races the
    /// first build, whose generation it replaces.
    pub(crate) fn set_roots(&self, roots: Vec<PathBuf>, looked_in: Vec<PathBuf>) -> Change {
        let live = self.live();
        let _one_at_a_time = self.shared.reloading.lock().unwrap_or_else(PoisonError::into_inner);
        let _reading = self.shared.own_reads.start();
        let catalog = live.set_roots(roots.clone());
        self.shared.project.moved(&roots, &looked_in);
        self.publish(catalog, None)
    }

    /// The roots walked now (none when the first catalog could not be
    /// built). Blocking until the first catalog is read.
    pub(crate) fn roots(&self) -> Vec<PathBuf> {
        self.live().roots()
    }

    /// Whether the current generation exposes no skill (none is published yet).
    pub(crate) fn is_empty(&self) -> bool {
        self.generation().is_none_or(|generation| generation.catalog.skills().len() == 0)
    }

    /// Where the catalog looked, and the client's roots it may follow.
    pub(crate) fn project(&self) -> &Project {
        &self.shared.project
    }

    /// The current generation, once the first is built.
    pub(crate) fn generation(&self) -> Option<Arc<Generation>> {
        self.shared.current.load_full()
    }

    /// The current generation, waiting for the first publication in a
    /// handler that cannot await (the filter a `subscriptions/listen`
    /// stream is acknowledged with): a worker of a multi-thread runtime
    /// hands its other tasks on and waits; a current-thread runtime's one
    /// thread cannot, and gets none while the catalog loads.
    fn published_blocking(&self) -> Option<Arc<Generation>> {
        if self.generation().is_none() {
            let wait = || {
                self.shared.published.wait();
            };
            match tokio::runtime::Handle::try_current().map(|runtime| runtime.runtime_flavor()) {
                Ok(tokio::runtime::RuntimeFlavor::MultiThread) => tokio::task::block_in_place(wait),
                Ok(_) => {}
                Err(_) => wait(),
            }
        }
        self.generation()
    }

    /// The current generation, waiting for the first (with progress): a
    /// request takes it once and answers from it.
    async fn ready(&self, context: &RequestContext<RoleServer>) -> Result<Arc<Generation>, McpError> {
        if let Some(generation) = self.generation() {
            return Ok(generation);
        }
        self.shared.ready.wait(Stage::Published, context).await?;
        self.generation().ok_or_else(|| McpError::internal_error("the skill catalog is missing", None))
    }

    /// The current generation for a list, which waits for the first one
    /// only until `initialize`'s deadline ([`Options::instructions_wait`]: a
    /// host that is not answered within its window goes on without the
    /// server): none when it is not published by then, and the lists are
    /// answered empty, and every client is told they changed once it is.
    async fn listed(&self) -> Option<Arc<Generation>> {
        if self.generation().is_none() {
            self.shared.ready.wait_for_lists().await;
        }
        let generation = self.generation();
        if generation.is_none() && !self.shared.listed_early.swap(true, Ordering::SeqCst) {
            let server = self.clone();
            tokio::spawn(async move {
                server.shared.ready.reached(Stage::Published).await;
                server.notify_lists(Change { resources: true, prompts: true, tools: false }).await;
            });
        }
        generation
    }

    /// The current catalog and its level 1, waiting (with progress) only
    /// until the first is read, not for its publication: what a tool call needs.
    async fn catalog(&self, context: &RequestContext<RoleServer>) -> Result<(Catalog, Level1), McpError> {
        if let Some(generation) = self.generation() {
            return Ok((generation.catalog.clone(), generation.level1.clone()));
        }
        self.shared.ready.wait(Stage::Read, context).await?;
        match (self.generation(), self.shared.first.get()) {
            (Some(generation), _) => Ok((generation.catalog.clone(), generation.level1.clone())),
            (None, Some(first)) => Ok(first.clone()),
            (None, None) => self.ready(context).await.map(|g| (g.catalog.clone(), g.level1.clone())),
        }
    }

    /// Whether `generation` offers `find_skills`: when its text is cut, when
    /// told to always, and once a client was told to call it while the
    /// catalog was loading.
    fn offers_find_skills(&self, generation: &Generation) -> bool {
        self.offers(&generation.level1)
    }

    fn offers(&self, level1: &Level1) -> bool {
        level1.find_skills || self.shared.told_loading.load(Ordering::SeqCst)
    }

    /// What `initialize` and `server/discover` wait for: the first catalog,
    /// up to the deadline. A client not given it is told it is loading.
    async fn wait_for_instructions(&self) {
        if !self.shared.ready.wait_for_instructions().await {
            self.shared.told_loading.store(true, Ordering::SeqCst);
            tracing::debug!("instructions sent before the catalog was read: they say it is loading");
        }
    }

    /// The file watcher's watches set as the first catalog is walked.
    pub(crate) fn early_watches(&self) -> &EarlyWatches {
        &self.shared.early
    }

    /// The server's own reads of the trees, for the watcher to tell their
    /// overflows from a change's.
    pub(crate) fn own_reads(&self) -> &Arc<OwnReads> {
        &self.shared.own_reads
    }

    fn peers(&self) -> std::sync::MutexGuard<'_, Vec<Peer<RoleServer>>> {
        self.shared.peers.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Logs, once each, why skills are left out (of everything, or of
    /// `skills/list` alone) and which of their files are not served.
    fn report(&self, generation: &Generation) {
        let mut reported = self.shared.reported.lock().unwrap_or_else(PoisonError::into_inner);
        let publication = &generation.publication;
        let left_out = publication.left_out.iter().map(|(name, why)| (Unserved::Skill, name, why));
        let unlisted = publication
            .entries
            .iter()
            .filter_map(|e| e.listing.as_ref().err().map(|why| (Unserved::FromList, &e.name, why)));
        let refused =
            publication.entries.iter().flat_map(|e| e.refused.iter().map(|why| (Unserved::File, &e.name, why)));
        let new: Vec<_> = left_out
            .chain(unlisted)
            .chain(refused)
            .filter(|(what, name, why)| reported.insert(format!("{what:?}\0{name}\0{why}")))
            .collect();
        // A public registry's tree has hundreds: the first few, then a count,
        // on stderr and to the sessions that asked for warnings alike.
        let shown = if self.shared.options.verbose { new.len() } else { new.len().min(DIAGNOSTICS_SHOWN) };
        for (i, &(what, name, why)) in new.iter().enumerate() {
            let said = match (what, i < shown) {
                (Unserved::Skill, true) => {
                    tracing::warn!(skill = name, reason = why, "skill not served over MCP");
                    "skill not served over MCP"
                }
                (Unserved::FromList, true) => {
                    tracing::warn!(skill = name, reason = why, "skill not in skills/list");
                    "skill not in skills/list"
                }
                (Unserved::File, true) => {
                    tracing::warn!(skill = name, reason = why, "file of a skill not served");
                    "file of a skill not served"
                }
                (what, false) => {
                    tracing::debug!(skill = name, reason = why, ?what, "not served");
                    continue;
                }
            };
            self.shared.subscribers.log(Severity::Warning, format!("{said}: {name}: {why}"));
        }
        if shown < new.len() {
            let kinds = [
                (Unserved::Skill, "skills not served over MCP"),
                (Unserved::FromList, "skills not in skills/list"),
                (Unserved::File, "files of skills not served"),
            ];
            let counts: Vec<String> = kinds
                .iter()
                .map(|&(kind, said)| (new.iter().filter(|(what, ..)| *what == kind).count(), said))
                .filter(|&(count, _)| count > 0)
                .map(|(count, said)| format!("{count} {said}"))
                .collect();
            let summary = format!(
                "{} left out in all ({}); the first {shown} are above, --verbose prints every one",
                new.len(),
                counts.join(", ")
            );
            tracing::warn!("{summary}");
            self.shared.subscribers.log(Severity::Warning, summary);
        }
    }

    /// Logs the skills a reload refused (`--refuse-risk`) that the
    /// generation before it did not: the first catalog's are printed by the
    /// command that read it.
    fn report_refused(&self, previous: &Catalog, next: &Catalog) {
        let risky = |skip: &&Skip| skip.refusal().is_some();
        let before: HashSet<&str> = previous.skips().iter().filter(risky).map(|s| s.location.as_str()).collect();
        let new: Vec<String> =
            next.skips().iter().filter(|s| !before.contains(s.location.as_str())).filter_map(Skip::refusal).collect();
        let shown = if self.shared.options.verbose { new.len() } else { new.len().min(DIAGNOSTICS_SHOWN) };
        for line in &new[..shown] {
            tracing::warn!("{line}");
            self.shared.subscribers.log(Severity::Warning, line.clone());
        }
        if shown < new.len() {
            let summary = format!(
                "{} skills refused by this reload; the first {shown} are above, --verbose prints every one",
                new.len()
            );
            tracing::warn!("{summary}");
            self.shared.subscribers.log(Severity::Warning, summary);
        }
    }

    /// The tools a generation offers: `skill` (or `load_skill`), then
    /// `find_skills` when it is offered.
    fn tools(&self, level1: &Level1) -> Vec<Tool> {
        let declaration = self.declaration();
        let schema = declaration.input_schema.as_object().cloned().unwrap_or_default();
        let mut tools = vec![Tool::new(declaration.name, declaration.description, schema)];
        if self.offers(level1) {
            tools.push(Tool::new(FIND_SKILLS, find_skills::DESCRIPTION, find_skills::input_schema()));
        }
        tools
    }

    fn declaration(&self) -> ToolDeclaration {
        if self.shared.options.profile.is_some() { LoadSkillTool::declaration() } else { SkillTool::declaration() }
    }

    /// The tool's answer to `args` on one snapshot, with the profile of its generation (`level1`).
    fn call(&self, catalog: &Catalog, level1: &Level1, args: &Value) -> ToolResult {
        match level1.profile.as_deref() {
            Some(profile) => LoadSkillTool::new(&catalog.view(profile)).call(args),
            None => SkillTool::new(catalog).call(args),
        }
    }

    /// Why the skill `name` of `catalog` (an agent's, with `level1`'s
    /// profile) is not served, when it is not: the publication's rule, on
    /// the tool as on the resources. Before the first publication is built,
    /// the skill's entry is made alone.
    fn unserved(&self, catalog: &Catalog, level1: &Level1, name: &str) -> Option<String> {
        if let Some(generation) = self.generation() {
            return generation.publication.left_out(name).map(str::to_owned);
        }
        let profile = level1.profile.as_deref();
        let skill = match profile {
            Some(profile) => catalog.view(profile).find(name),
            None => catalog.get(name),
        }?;
        crate::publication::unserved(catalog, skill, profile)
    }

    /// The tool's output for the skill `name`, as a prompt's text, with
    /// the profile of its generation (`level1`).
    fn load(&self, catalog: &Catalog, level1: &Level1, name: &str) -> ToolResult {
        match level1.profile.as_deref() {
            Some(profile) => LoadSkillTool::new(&catalog.view(profile)).load(name),
            None => SkillTool::new(catalog).load(name, catalog.sample_limit()),
        }
    }

    fn digests(&self) -> &DigestCache {
        &self.shared.digests
    }
}

/// Builds the search index of a generation that offers `find_skills` on a
/// thread of its own, so that the first call does not wait for it (it reads
/// every body). A call that comes sooner waits for this build, not another,
/// or is answered from the last run's index (`early`, the first
/// publication's), which this build retires; a generation that offers no
/// search retires it at once.
///
/// The first build keeps the thread's priority: the host's first
/// `find_skills` may be waiting for it, and a lowered build took 6.6 s at
/// 38,000 skills on a busy machine against 3.2 s. A reload's is lowered, so
/// that it never slows the requests served meanwhile.
fn warm_search(catalog: &Catalog, find_skills: bool, own_reads: &Arc<OwnReads>, early: Option<&Arc<EarlySearch>>) {
    let early = early.cloned();
    if !find_skills {
        early.inspect(|early| early.retire());
        return;
    }
    let (catalog, own_reads, unbuilt) = (catalog.clone(), own_reads.clone(), early.clone());
    let spawned = std::thread::Builder::new().name("search-index".into()).spawn(move || {
        if early.is_none() {
            background_priority();
        }
        let _reading = own_reads.start();
        let _ = catalog.search("", 1);
        early.inspect(|early| early.retire());
    });
    if let Err(error) = spawned {
        tracing::warn!(%error, "cannot build the search index ahead; the first find_skills call will");
        // The last run's index must not stand in for this run's for ever.
        unbuilt.inspect(|early| early.retire());
    }
}

/// Writes the first publication's level 1 to the start cache, if there is
/// one, and then, when it offers `find_skills`, its search index once it is
/// built, on a thread of its own (a write must not hold up the
/// publication).
fn keep_start(cache: Option<&StartCache>, catalog: &Catalog, level1: &Level1, find_skills: bool) {
    let Some(cache) = cache else { return };
    let (cache, catalog, instructions) = (cache.clone(), catalog.clone(), level1.instructions.clone());
    let spawned = std::thread::Builder::new().name("start-cache".into()).spawn(move || {
        background_priority();
        // The level 1 at once: a host may end the session before the index is built.
        cache.save(instructions.as_deref(), None);
        if find_skills {
            // The index is the search-index thread's build: this waits for it.
            cache.save(instructions.as_deref(), Some(&catalog.save_search()));
        }
    });
    if let Err(error) = spawned {
        tracing::debug!(%error, "cannot write the start cache");
    }
}

/// Lowers the calling thread's priority (nice 10, on Linux; elsewhere
/// nothing): for work done ahead of need, which reads whole trees for
/// seconds on a large one (the watches' set-up and catch-ups, a reload's
/// search index), so that it never slows a request, the first publication
/// or an edit's reload beside it. Threads it starts inherit it, and it is
/// never raised again: it is only for threads of its own, never a pool's.
pub(crate) fn background_priority() {
    #[cfg(target_os = "linux")]
    if let Err(error) = rustix::process::setpriority_process(Some(rustix::thread::gettid()), 10) {
        tracing::debug!(%error, "cannot lower a background thread's priority");
    }
}

/// The server's own reads of the trees: reloads, index builds, setting up
/// watches. Each open of a file or directory under a watched root is an
/// inotify event, and a tree of some ten thousand skills overflows the
/// kernel's queue (16,384 events by default) with them alone. Taken for a
/// change, such an overflow asked for a whole reload, whose reads overflowed
/// the queue again: the server reloaded and rebuilt its index for ever.
/// An overflow seen during these reads, or [`OWN_READS_GRACE`] after, is
/// taken for theirs.
#[derive(Debug, Default)]
pub(crate) struct OwnReads {
    active: AtomicUsize,
    last_end: Mutex<Option<Instant>>,
}

/// How long after its own reads end an overflow is still taken for theirs:
/// the kernel reports it when the queue fills, and the watcher's thread
/// reads it moments later.
pub(crate) const OWN_READS_GRACE: Duration = Duration::from_secs(1);

/// One of the server's own reads, while it lasts.
pub(crate) struct OwnRead<'a>(&'a OwnReads);

impl OwnReads {
    /// Marks a read of the trees until the guard drops.
    pub(crate) fn start(&self) -> OwnRead<'_> {
        self.active.fetch_add(1, Ordering::SeqCst);
        OwnRead(self)
    }

    /// Whether a read of the server's own is running, or ended less than
    /// [`OWN_READS_GRACE`] ago.
    pub(crate) fn recent(&self) -> bool {
        self.active.load(Ordering::SeqCst) > 0
            || self
                .last_end
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .is_some_and(|end| end.elapsed() < OWN_READS_GRACE)
    }
}

impl Drop for OwnRead<'_> {
    fn drop(&mut self) {
        *self.0.last_end.lock().unwrap_or_else(PoisonError::into_inner) = Some(Instant::now());
        self.0.active.fetch_sub(1, Ordering::SeqCst);
    }
}

/// What `catalog`, looked for in `looked_in`, says at level 1 under
/// `options` for `profile`.
fn level1(catalog: &Catalog, profile: Option<Arc<AgentProfile>>, options: &Options, looked_in: &[PathBuf]) -> Level1 {
    Level1::new(catalog, profile, options.format, options.budget, options.find_skills, looked_in)
}

/// How many diagnostics of what is not served are logged in full at once,
/// without [`Options::verbose`].
const DIAGNOSTICS_SHOWN: usize = 5;

/// What a diagnostic says is not served.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unserved {
    /// The whole skill, on every surface.
    Skill,
    /// The skill, from `skills/list` only.
    FromList,
    /// One file of the skill (SPEC §11).
    File,
}

/// The prompts of a generation, to tell whether their list changed.
fn prompts(generation: &Generation) -> Vec<(&str, Option<&str>)> {
    generation
        .publication
        .entries
        .iter()
        .filter(|e| e.prompt)
        .map(|e| (e.name.as_str(), e.description.as_deref()))
        .collect()
}

fn invalid_params(message: String) -> McpError {
    McpError::invalid_params(message, None)
}

/// The canonical form of `uri` when `publication` serves a file there, or
/// the error a request naming it gets: `-32602` with the URI in `data`
/// (SEP-2164), whether the request reads or subscribes.
fn served_uri(publication: &Publication, uri: &str) -> Result<String, McpError> {
    match canonical(uri) {
        Ok(canonical) if publication.resource(&canonical).is_some() => Ok(canonical),
        Ok(_) | Err(UriError::NotSkill) => Err(not_served(uri)),
        Err(UriError::OutsideSkill) => Err(McpError::invalid_params(
            format!("Resource path is not inside a served skill: {uri}"),
            Some(serde_json::json!({ "uri": uri })),
        )),
    }
}

/// No file is served at `uri`.
fn not_served(uri: &str) -> McpError {
    McpError::invalid_params(format!("No resource is served at {uri}"), Some(serde_json::json!({ "uri": uri })))
}

/// Whether a request is on the 2026-07-28 wire (its own `_meta`, or a
/// session that began without the handshake) rather than the handshake's.
fn modern(context: &RequestContext<RoleServer>) -> bool {
    context.protocol_version().is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str())
}

/// Runs blocking work (file reads, hashing) off the async threads.
/// A tool's result as the call's response.
fn respond(result: ToolResult) -> CallToolResponse {
    let content = vec![ContentBlock::text(result.output)];
    if result.is_error { CallToolResult::error(content) } else { CallToolResult::success(content) }.into()
}

async fn blocking<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> Result<T, McpError> {
    tokio::task::spawn_blocking(work).await.map_err(|e| McpError::internal_error(format!("worker failed: {e}"), None))
}

impl ServerHandler for SkillServer {
    fn get_info(&self) -> ServerConfig {
        // Logging is deprecated by SEP-2577; sessions on the handshake still
        // have it (`logging/setLevel`).
        #[allow(deprecated)]
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .enable_prompts()
            .enable_prompts_list_changed()
            .enable_resources()
            .enable_resources_list_changed()
            .enable_resources_subscribe()
            .enable_logging()
            .enable_skills()
            .build();
        let mut config = ServerConfig::new(capabilities);
        config.server_info = Implementation::new("skilldeck", env!("CARGO_PKG_VERSION"));
        // Hosts read it once, at `initialize` (or `server/discover`): the
        // generation current then, or word that the catalog is loading.
        config.instructions = match (self.generation(), self.shared.first.get()) {
            (Some(generation), _) => generation.level1.instructions.clone(),
            (None, Some((_, level1))) => level1.instructions.clone(),
            (None, None) => Some(
                self.shared
                    .cached_instructions
                    .clone()
                    .unwrap_or_else(|| loading_instructions(self.declaration().name)),
            ),
        };
        config
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, McpError> {
        context.peer.set_peer_info(request.clone());
        self.wait_for_instructions().await;
        self.negotiate_initialize(&request)
    }

    async fn discover(&self, _context: RequestContext<RoleServer>) -> Result<DiscoverResult, McpError> {
        self.wait_for_instructions().await;
        Ok(DiscoverResult::from_server_info(self.supported_protocol_versions().into_owned(), self.get_info()))
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        client_roots::follow(self, context.peer.clone());
        self.peers().push(context.peer);
    }

    async fn on_roots_list_changed(&self, context: NotificationContext<RoleServer>) {
        client_roots::follow(self, context.peer);
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        // Told the catalog is loading, a client is offered both tools
        // whatever the catalog: no need to wait for it.
        let tools = match self.generation() {
            None if self.shared.told_loading.load(Ordering::SeqCst) => {
                let declaration = self.declaration();
                let schema = declaration.input_schema.as_object().cloned().unwrap_or_default();
                vec![
                    Tool::new(declaration.name, declaration.description, schema),
                    Tool::new(FIND_SKILLS, find_skills::DESCRIPTION, find_skills::input_schema()),
                ]
            }
            _ => self.tools(&self.catalog(&context).await?.1),
        };
        Ok(ListToolsResult::with_all_items(tools).with_ttl_ms(TTL_MS).with_cache_scope(CACHE_SCOPE))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        // The catalog alone: its publication may still be being built.
        let args = Value::Object(request.arguments.unwrap_or_default());
        if request.name == FIND_SKILLS {
            // Before this run's index is built, the last run's answers at once.
            let early = self.shared.early_search.clone();
            if let Some(saved) = blocking(move || early.wait()).await? {
                return Ok(respond(blocking(move || find_skills::call_saved(&saved, &args)).await?));
            }
        }
        let (catalog, level1) = self.catalog(&context).await?;
        let result = if request.name == FIND_SKILLS && self.offers(&level1) {
            blocking(move || find_skills::call(&catalog, level1.profile.as_deref(), &args)).await?
        } else if request.name == self.declaration().name {
            let name = args.get("name").and_then(Value::as_str);
            match name.and_then(|name| self.unserved(&catalog, &level1, name).map(|why| (name, why))) {
                Some((name, why)) => ToolResult::error(format!("Skill \"{name}\" is not served: {why}.")),
                None => self.call(&catalog, &level1, &args),
            }
        } else {
            return Err(invalid_params(format!("Unknown tool: {}", request.name)));
        };
        Ok(respond(result))
    }

    /// Pages of prompts, as `skills/list`: the cursor is the last prompt's
    /// `SKILL.md` URI.
    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        let Some(generation) = self.listed().await else {
            return Ok(ListPromptsResult::with_all_items(Vec::new()).with_ttl_ms(TTL_MS).with_cache_scope(CACHE_SCOPE));
        };
        let cursor = request.and_then(|r| r.cursor);
        let (page, next) = generation
            .publication
            .prompt_page(cursor.as_deref(), self.shared.options.page_size)
            .map_err(|()| invalid_params("Invalid prompts cursor".into()))?;
        let prompts = page.iter().map(|e| Prompt::new(e.name.clone(), e.description.clone(), None)).collect();
        let mut result = ListPromptsResult::with_all_items(prompts).with_ttl_ms(TTL_MS).with_cache_scope(CACHE_SCOPE);
        result.next_cursor = next;
        Ok(result)
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        let generation = self.ready(&context).await?;
        let entry = generation.publication.by_name(&request.name).filter(|e| e.prompt);
        let Some(entry) = entry else {
            return Err(invalid_params(format!("Unknown prompt: {}", request.name)));
        };
        let loaded = self.load(&generation.catalog, &generation.level1, &entry.name);
        if loaded.is_error {
            return Err(McpError::internal_error(loaded.output, None));
        }
        let mut result = GetPromptResult::new(vec![PromptMessage::new_text(Role::User, loaded.output)]);
        result.description = entry.description.clone();
        Ok(result.into())
    }

    /// Pages of whole skills, as `skills/list`: the cursor is the last
    /// skill's `SKILL.md` URI, so it survives a reload and never splits a skill.
    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let Some(generation) = self.listed().await else {
            let empty = ListResourcesResult::with_all_items(Vec::new());
            return Ok(empty.with_ttl_ms(TTL_MS).with_cache_scope(CACHE_SCOPE));
        };
        let cursor = request.and_then(|r| r.cursor);
        let page_size = self.shared.options.page_size;
        let server = self.clone();
        let (resources, next) = blocking(move || {
            let (page, next) = generation.publication.resource_page(cursor.as_deref(), page_size)?;
            Ok::<_, ()>((resources(&page, server.digests()), next))
        })
        .await?
        .map_err(|()| invalid_params("Invalid resources cursor".into()))?;
        let mut result =
            ListResourcesResult::with_all_items(resources).with_ttl_ms(TTL_MS).with_cache_scope(CACHE_SCOPE);
        result.next_cursor = next;
        Ok(result)
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let generation = self.ready(&context).await?;
        let uri = served_uri(&generation.publication, &request.uri)?;
        let requested = request.uri;
        let contents = blocking(move || {
            let Some((entry, file)) = generation.publication.resource(&uri) else {
                return Err(not_served(&requested));
            };
            let bytes = file
                .read(entry.confinement())
                .map_err(|e| McpError::internal_error(format!("cannot read {requested}: {e}"), None))?;
            let text = mime::is_text(&bytes);
            let mime_type = Some(file.mime.unwrap_or(mime::by_content(text)).to_owned());
            let uri = file.uri.clone();
            Ok(match text {
                true => ResourceContents::TextResourceContents {
                    uri,
                    mime_type,
                    text: String::from_utf8_lossy(&bytes).into_owned(),
                    meta: None,
                },
                false => ResourceContents::BlobResourceContents {
                    uri,
                    mime_type,
                    blob: base64::engine::general_purpose::STANDARD.encode(&bytes),
                    meta: None,
                },
            })
        })
        .await??;
        Ok(ReadResourceResult::new(vec![contents]).with_ttl_ms(TTL_MS).with_cache_scope(CACHE_SCOPE).into())
    }

    /// Handshake sessions only (rmcp answers `-32601` on 2026-07-28, where
    /// a `subscriptions/listen` stream names the files it follows).
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        // Waits for the publication, as a read does: it alone knows what is served.
        let generation = self.ready(&context).await?;
        let canonical = served_uri(&generation.publication, &request.uri)?;
        let key = canonical.clone();
        let version = blocking(move || generation.publication.version(&key)).await?;
        self.subscriber(&context.peer).subscribe(canonical, request.uri, version).map_err(|Full| {
            McpError::invalid_params(
                format!("This session already follows {MAX_SUBSCRIPTIONS} resources, the most it may"),
                None,
            )
        })
    }

    /// Ends a subscription; one that does not exist (or a URI no longer
    /// served) is no error: the client ends up unsubscribed either way.
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        if let (Some(subscriber), Ok(canonical)) = (self.session.get(), canonical(&request.uri)) {
            subscriber.unsubscribe(&canonical);
        }
        Ok(())
    }

    /// Handshake sessions only: 2026-07-28 removed `logging/setLevel` (a
    /// request asks for its own log messages there, and this server sends
    /// none on a request's stream).
    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        if modern(&context) {
            return Err(McpError::new(ErrorCode::METHOD_NOT_FOUND, "Method not found: logging/setLevel", None));
        }
        self.subscriber(&context.peer).set_level(request.level);
        Ok(())
    }

    async fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, McpError> {
        let Some(generation) = self.listed().await else {
            return Ok(ListSkillsResult::with_all_items(Vec::new()).with_ttl_ms(TTL_MS).with_cache_scope(CACHE_SCOPE));
        };
        let cursor = request.and_then(|r| r.cursor);
        let page_size = self.shared.options.page_size;
        let server = self.clone();
        let (skills, next) = blocking(move || {
            let (page, next) = generation.publication.page(cursor.as_deref(), page_size)?;
            // A skill whose files cannot be read now is left off this page.
            let skills = page.iter().filter_map(|e| e.manifest(server.digests()).ok()).collect::<Vec<_>>();
            Ok::<_, ()>((skills, next))
        })
        .await?
        .map_err(|()| invalid_params("Invalid skills cursor".into()))?;
        let mut result = ListSkillsResult::with_all_items(skills).with_ttl_ms(TTL_MS).with_cache_scope(CACHE_SCOPE);
        result.next_cursor = next;
        Ok(result)
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, McpError> {
        let generation = self.ready(&context).await?;
        let server = self.clone();
        let manifest = blocking(move || match generation.publication.by_uri(&request.uri) {
            Some(entry) if entry.listing.is_ok() => {
                entry.manifest(server.digests()).map_err(|e| McpError::internal_error(e, None))
            }
            _ => Err(invalid_params(format!("No skill is served at {}", request.uri))),
        })
        .await??;
        Ok(GetSkillResult::new(manifest).with_ttl_ms(TTL_MS).with_cache_scope(CACHE_SCOPE))
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, McpError> {
        Err(McpError::new(ErrorCode::METHOD_NOT_FOUND, format!("Method not found: {}", request.method), None))
    }

    fn accepted_subscription_filter(&self, requested: &SubscriptionFilter) -> Option<SubscriptionFilter> {
        let mut accepted = SubscriptionFilter::new();
        accepted.resources_list_changed = requested.resources_list_changed.filter(|&on| on);
        accepted.prompts_list_changed = requested.prompts_list_changed.filter(|&on| on);
        accepted.tools_list_changed = requested.tools_list_changed.filter(|&on| on);
        accepted.resource_subscriptions = requested.resource_subscriptions.as_ref().map(|uris| {
            // The files served now, up to the cap; the acknowledgment tells
            // the client which of its URIs are followed. Without a
            // publication to tell (see `published_blocking`), every URI of a
            // file in a skill, and `listen` follows those served once it is.
            let generation = self.published_blocking();
            let served = uris.iter().filter(|uri| match &generation {
                Some(generation) => served_uri(&generation.publication, uri).is_ok(),
                None => canonical(uri).is_ok(),
            });
            let mut followed: Vec<String> = Vec::new();
            for uri in served {
                if !followed.contains(uri) && followed.len() < MAX_SUBSCRIPTIONS {
                    followed.push(uri.clone());
                }
            }
            followed
        });
        Some(accepted)
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), McpError> {
        let mut changes = self.shared.changes.subscribe();
        let sink = context.sink().clone();
        let accepted = context.accepted().clone();
        // Followed for as long as this call lasts. rmcp has acknowledged the
        // stream already, and the client may have read a file since: one
        // that changed just now may have changed after that read, so it
        // counts as not seen (its next reload is an update).
        let _files = match accepted.resource_subscriptions.clone().filter(|uris| !uris.is_empty()) {
            Some(uris) => {
                // Acknowledged before the first publication, on a runtime that could not wait for it.
                tokio::select! {
                    () = context.cancelled() => return Ok(()),
                    () = self.shared.ready.reached(Stage::Published) => {}
                }
                let Some(generation) = self.generation() else {
                    return Err(McpError::internal_error("the skill catalog is missing", None));
                };
                let files = blocking(move || {
                    let publication = &generation.publication;
                    let files = uris.into_iter().filter_map(|uri| {
                        let canonical = served_uri(publication, &uri).ok()?;
                        let version = publication.version(&canonical);
                        let version = if version.changed_within(ACKNOWLEDGED_RACE) { Version::Unseen } else { version };
                        Some((canonical, uri, version))
                    });
                    files.collect()
                })
                .await?;
                let subscriber = Subscriber::listen(sink.clone(), files);
                self.shared.subscribers.add(&subscriber);
                Some(subscriber)
            }
            None => None,
        };
        loop {
            tokio::select! {
                () = context.cancelled() => return Ok(()),
                change = changes.recv() => {
                    let change = match change {
                        Ok(change) => change,
                        // Missed some: everything may have changed.
                        Err(broadcast::error::RecvError::Lagged(_)) => Change { resources: true, prompts: true, tools: true },
                        Err(broadcast::error::RecvError::Closed) => return Ok(()),
                    };
                    let mut sent = Ok(());
                    if change.resources && accepted.resources_list_changed == Some(true) {
                        sent = sent.and(sink.notify_resource_list_changed().await);
                    }
                    if change.prompts && accepted.prompts_list_changed == Some(true) {
                        sent = sent.and(sink.notify_prompt_list_changed().await);
                    }
                    if change.tools && accepted.tools_list_changed == Some(true) {
                        sent = sent.and(sink.notify_tool_list_changed().await);
                    }
                    if sent.is_err() {
                        return Ok(());
                    }
                }
            }
        }
    }
}

/// Every published file as a resource, skill by skill in URI order.
fn resources(entries: &[&Entry], digests: &DigestCache) -> Vec<Resource> {
    let mut out = Vec::new();
    for entry in entries {
        for file in &entry.files {
            let mime_type = match file.mime {
                Some(mime) => mime,
                // The name says nothing: the bytes decide (cached by digest).
                None => mime::by_content(file.facts(digests, entry.confinement()).is_ok_and(|f| f.text)),
            };
            // The Skills extension: a `SKILL.md` is named by its skill's
            // name. Any other file is named by its skill and its path in
            // it, so that a host's list of thousands of `README.md` says
            // whose each one is.
            let mut resource = if file.uri == entry.uri {
                let mut r = Resource::new(file.uri.clone(), entry.name.clone());
                r.description = entry.description.clone();
                r
            } else {
                Resource::new(file.uri.clone(), format!("{}/{}", entry.name, file.rel))
            };
            resource.mime_type = Some(mime_type.to_owned());
            resource.size = Some(file.size);
            out.push(resource);
        }
    }
    out
}

/// Puts `resultType: "complete"` back on a Skills-extension result that
/// rmcp stripped for a peer on the `initialize` handshake: the extension
/// requires it on every `skills/list` and `skills/get` answer, whatever the
/// era. Works on one JSON-RPC message; returns whether it changed it.
pub(crate) fn restore_result_type(message: &mut Value) -> bool {
    let Some(result) = message.get_mut("result").and_then(Value::as_object_mut) else {
        return false;
    };
    let skills = result.get("skills").is_some_and(Value::is_array) || result.get("skill").is_some_and(Value::is_object);
    if !skills || result.contains_key("resultType") {
        return false;
    }
    let mut patched = Map::with_capacity(result.len() + 1);
    patched.insert("resultType".into(), Value::String("complete".into()));
    patched.extend(std::mem::take(result));
    *result = patched;
    true
}
