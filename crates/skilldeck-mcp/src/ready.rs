//! Serving before the catalog is read. A large tree takes seconds to walk
//! (0.6 s for the 8,205 skills of a public registry, 4.6–16 s for 61k),
//! and hosts give up on a server that has not answered `initialize` in
//! about 10 s. So the server answers at once and builds its first catalog
//! on a thread of its own: `initialize` waits for it only up to a short
//! deadline ([`INSTRUCTIONS_WAIT`] from the start), then says in its
//! `instructions` that the catalog is loading ([`loading_instructions`]);
//! the list methods wait for its publication up to the same deadline, then
//! answer empty (a host registers a server only once its lists answer) and
//! tell their clients the lists changed once it is published; every other
//! request that needs the catalog waits for it, sending
//! `notifications/progress` while it waits when the request carries a
//! `progressToken`.

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use rmcp::model::ProgressNotificationParam;
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};
use tokio::sync::watch;

use crate::find_skills::FIND_SKILLS;

/// How long `initialize` (and `server/discover`) waits for the first
/// catalog, counted from the server's start, before its `instructions` say
/// the catalog is loading: 50 ms. Hosts read `instructions` once, so a
/// catalog that is ready in time is worth the wait; a tree that is not
/// ready in 50 ms takes far longer (the registry's 8,205 skills: 0.6 s),
/// and the answer must come well inside a host's patience whatever the
/// tree. `skilldeck serve --instructions-wait` changes it.
///
/// ```
/// assert_eq!(skilldeck_mcp::INSTRUCTIONS_WAIT.as_millis(), 50);
/// ```
pub const INSTRUCTIONS_WAIT: Duration = Duration::from_millis(50);

/// How often a request waiting for the catalog reports progress.
pub(crate) const PROGRESS_EVERY: Duration = Duration::from_millis(250);

/// The `instructions` of a server whose catalog was not read in time, for
/// the tool `tool` (`skill` or `load_skill`). It names `find_skills`, which
/// such a server offers from then on: without a list, searching is the
/// model's way in.
///
/// ```
/// assert_eq!(
///     skilldeck_mcp::loading_instructions("skill"),
///     "This server's skill catalog is still being read, so it is not listed here. Call find_skills \
///      with a few words of the task to search every skill, or skill with a skill's name to load it; \
///      both answer once the catalog is read.",
/// );
/// ```
pub fn loading_instructions(tool: &str) -> String {
    format!(
        "This server's skill catalog is still being read, so it is not listed here. Call {FIND_SKILLS} with a \
         few words of the task to search every skill, or {tool} with a skill's name to load it; both answer once \
         the catalog is read."
    )
}

/// How far the first build has come. A tool call needs the catalog only;
/// everything else waits for its publication too (a stat of every file of
/// every skill: about 40% of the time to be ready on a public registry).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Stage {
    /// The catalog is being read.
    Reading,
    /// The catalog and its level-1 text are in; its publication is being built.
    Read,
    /// The first generation is published, or the build failed.
    Published,
}

/// How far the first build has come, shared by every request.
#[derive(Debug)]
pub(crate) struct Ready {
    /// When the server started reading its catalog.
    started: Instant,
    /// When the first walk began, by the clock file times are stamped with
    /// ([`walk_begins`](Ready::walk_begins); the server's start until then).
    began: Mutex<SystemTime>,
    /// How long `initialize` waits for it.
    wait: Duration,
    stage: watch::Sender<Stage>,
}

impl Ready {
    pub(crate) fn new(wait: Duration) -> Ready {
        Ready {
            started: Instant::now(),
            began: Mutex::new(crate::live::file_clock()),
            wait,
            stage: watch::Sender::new(Stage::Reading),
        }
    }

    /// Marks the start of the first walk, once the file clock has caught up
    /// with now ([`caught_up_file_clock`](crate::live::caught_up_file_clock)):
    /// call it just before the walk. Blocking, for a few milliseconds.
    pub(crate) fn walk_begins(&self) {
        let began = crate::live::caught_up_file_clock();
        *self.began.lock().unwrap_or_else(PoisonError::into_inner) = began;
    }

    /// When the first walk began, by the clock file times are stamped with:
    /// a file modified at or after it may have been read before its change.
    pub(crate) fn began(&self) -> SystemTime {
        *self.began.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Moves on to `stage`; every waiter for it wakes.
    pub(crate) fn reach(&self, stage: Stage) {
        self.stage.send_if_modified(|now| {
            let later = stage > *now;
            *now = (*now).max(stage);
            later
        });
        tracing::debug!(ms = self.started.elapsed().as_millis(), ?stage, "first catalog");
    }

    /// Waits until the build reaches `stage` (and the server is that far).
    pub(crate) async fn reached(&self, stage: Stage) {
        let mut now = self.stage.subscribe();
        let _ = now.wait_for(|&now| now >= stage).await;
    }

    /// Waits for the catalog, at most until the instructions' deadline;
    /// whether it came.
    pub(crate) async fn wait_for_instructions(&self) -> bool {
        self.until_deadline(Stage::Read).await
    }

    /// Waits for the first publication, at most until the same deadline: a
    /// list answers then, from it or empty.
    pub(crate) async fn wait_for_lists(&self) -> bool {
        self.until_deadline(Stage::Published).await
    }

    async fn until_deadline(&self, stage: Stage) -> bool {
        let deadline = tokio::time::Instant::from_std(self.started + self.wait);
        tokio::time::timeout_at(deadline, self.reached(stage)).await.is_ok()
    }

    /// Waits until the build reaches `stage`, as long as it takes: the
    /// request of `context` needs it. With a `progressToken`, a progress
    /// notification goes out at once and every [`PROGRESS_EVERY`] after,
    /// counting the milliseconds since the server started reading. A request
    /// the client cancels stops waiting.
    pub(crate) async fn wait(&self, stage: Stage, context: &RequestContext<RoleServer>) -> Result<(), McpError> {
        let mut now = self.stage.subscribe();
        let token = context.meta.get_progress_token();
        loop {
            if *now.borrow_and_update() >= stage {
                return Ok(());
            }
            if let Some(token) = &token {
                let ms = self.started.elapsed().as_millis();
                #[allow(clippy::cast_precision_loss)] // milliseconds: exact far beyond any wait
                let progress = ProgressNotificationParam::new(token.clone(), ms as f64)
                    .with_message(format!("reading the skill catalog ({ms} ms so far)"));
                // A client that cannot take it still gets the answer.
                let _ = context.peer.notify_progress(progress).await;
            }
            tokio::select! {
                () = context.ct.cancelled() => {
                    return Err(McpError::internal_error("cancelled while the skill catalog was being read", None));
                }
                _ = tokio::time::timeout(PROGRESS_EVERY, now.changed()) => {}
            }
        }
    }
}
