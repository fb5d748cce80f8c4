//! `skilldeck serve`: the catalog over MCP (stdio by default, Streamable
//! HTTP with `--http`). The server itself is the `skilldeck-mcp` crate.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use clap::{Args, ValueEnum};
use skilldeck::store::SkillStore;
use skilldeck::{AgentProfile, Budget, CatalogBuilder};
use skilldeck_http::Token;
use skilldeck_mcp::{
    ClientRoots, FindSkills, Format, HttpLimits, HttpOptions, Options, ProfileStore, SkillServer, StartCache, Watch,
};

use crate::http::ConnectionArgs;
use crate::roots::Roots;

/// `skilldeck serve`'s own flags.
#[derive(Args, Debug)]
pub(crate) struct ServeArgs {
    /// Serve Streamable HTTP at http://ADDR:PORT/mcp instead of stdio (port 0 picks a free one;
    /// loopback unless told otherwise, and then only with a token).
    #[arg(long, value_name = "ADDR:PORT")]
    http: Option<String>,
    /// The bearer token every HTTP request must carry (default: $SKILLDECK_TOKEN).
    #[arg(long, value_name = "TOKEN")]
    token: Option<String>,
    /// The level-1 catalog format of the `instructions` sent at initialize (an agent's is insika).
    #[arg(long, value_enum, default_value_t = InstructionsFormat::Toolnexus)]
    format: InstructionsFormat,
    /// Fit the instructions in N characters (8000c) or tokens (2000t, o200k; 2000t:cl100k); the
    /// default stays under Claude Code's 2,048-character cut.
    #[arg(long, value_name = "Nc|Nt[:ENCODING]", default_value_t = skilldeck_mcp::DEFAULT_BUDGET)]
    budget: Budget,
    /// Offer the find_skills tool always, not only when the instructions cannot list every skill whole.
    #[arg(long)]
    find_skills: bool,
    /// Milliseconds `initialize` waits for a catalog still being read, counted from the start; then
    /// its instructions say the catalog is loading and to call find_skills. The list methods wait as
    /// long, then answer empty and notify list_changed later (hosts give up on a slow server).
    #[arg(long, value_name = "MS", default_value_t = u64::try_from(skilldeck_mcp::INSTRUCTIONS_WAIT.as_millis()).unwrap_or(u64::MAX))]
    instructions_wait: u64,
    /// Skills per page of skills/list, resources/list (each skill with all its files) and
    /// prompts/list, 1 to 10000; the default keeps a 100,000-skill catalog within 50 pages.
    #[arg(long, value_name = "N", default_value_t = skilldeck_mcp::DEFAULT_PAGE_SIZE as u64,
          value_parser = clap::value_parser!(u64).range(1..=skilldeck_mcp::MAX_PAGE_SIZE as u64))]
    page_size: u64,
    #[command(flatten)]
    connection: ConnectionArgs,
    /// HTTP sessions alive at once; one more `initialize` gets 503.
    #[arg(long, value_name = "N", default_value_t = HttpLimits::MAX_SESSIONS as u64, value_parser = clap::value_parser!(u64).range(1..))]
    http_max_sessions: u64,
    /// The most directories watched for changes (default: half of fs.inotify.max_user_watches on
    /// Linux); roots holding more are not followed below their top, and a warning says so.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    max_watches: Option<u64>,
    /// Seconds an HTTP session may go without a request before it is closed.
    #[arg(long, value_name = "SECONDS", default_value_t = HttpLimits::SESSION_IDLE.as_secs(), value_parser = clap::value_parser!(u64).range(1..=86_400))]
    http_session_idle: u64,
}

/// The level-1 formats `instructions` may take without an agent.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum InstructionsFormat {
    Toolnexus,
    Agentskills,
}

impl ServeArgs {
    fn http_limits(&self) -> HttpLimits {
        let count = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        HttpLimits {
            connections: self.connection.limits(),
            max_sessions: count(self.http_max_sessions),
            session_idle: Duration::from_secs(self.http_session_idle),
        }
    }
}

/// The agent a server serves.
pub(crate) struct Agent {
    /// Its profile as read at the start.
    pub(crate) profile: Option<AgentProfile>,
    /// The store it came from, read again at every reload.
    pub(crate) follow: Option<ProfileStore>,
}

/// Runs the server until stdin closes (stdio) or the process is interrupted (HTTP).
///
/// With no source given (`roots.conventional`), a server on stdio serves
/// one client and follows that client's project (its MCP `roots`); over
/// HTTP it serves many, and stays with the working directory's.
pub(crate) fn run(
    args: ServeArgs,
    builder: CatalogBuilder,
    store: Option<Arc<dyn SkillStore>>,
    roots: Roots,
    others: &[String],
    agent: Agent,
    verbose: bool,
) -> anyhow::Result<ExitCode> {
    // The server reports through `tracing` (`crate::log`, set up already).
    // The token guards HTTP only: over stdio it is not read, so not checked.
    let http = match args.http.as_deref() {
        Some(addr) => Some(http_options(addr, crate::http::token(args.token.as_deref())?, args.http_limits())?),
        None => None,
    };
    let page_size = usize::try_from(args.page_size).unwrap_or(usize::MAX);
    let format = match args.format {
        InstructionsFormat::Toolnexus => Format::Toolnexus,
        InstructionsFormat::Agentskills => Format::Agentskills,
    };
    let find_skills = if args.find_skills { FindSkills::Always } else { FindSkills::WhenCut };
    let client_roots = match roots.conventional && http.is_none() {
        true => ClientRoots::Follow { home: skilldeck::home_dir() },
        false => ClientRoots::Ignore,
    };
    let instructions_wait = Duration::from_millis(args.instructions_wait);
    let looked_in = roots.looked_in.clone();
    // Only a catalog of directories alone is known by its roots' times; a store, data
    // skills or an agent's profile change without them.
    let start_cache = match store.is_none() && others.is_empty() && agent.profile.is_none() {
        true => start_cache(&roots.looked_in),
        false => None,
    };
    let options = Options {
        profile: agent.profile,
        profile_store: agent.follow,
        page_size,
        format,
        budget: args.budget,
        find_skills,
        instructions_wait,
        verbose,
        looked_in,
        client_roots,
        start_cache,
    };
    // Someone typed `skilldeck serve` at a prompt: say what it waits for, or it looks hung.
    if http.is_none() && std::io::stdin().is_terminal() {
        tracing::info!(
            target: crate::roots::LOG_TARGET,
            "serving MCP over stdio: waiting for an MCP client to write to this terminal. A host (Claude \
             Code, Codex, Cursor, VS Code) starts `skilldeck serve` itself: add it to the host's MCP servers \
             (README, \"Using skilldeck in a host\"). Press Ctrl-C to stop"
        );
    }
    // Served at once; the catalog is read meanwhile (requests that need it wait).
    let server = SkillServer::loading(builder, options);
    let max_watches = args.max_watches.map(|n| usize::try_from(n).unwrap_or(usize::MAX));
    let watch = Watch { roots: roots.roots, store, max_watches };
    let runtime =
        tokio::runtime::Builder::new_multi_thread().enable_all().build().context("cannot start the runtime")?;
    let outcome = runtime.block_on(async move {
        // Set up in the background; answers never wait for it.
        let _live = skilldeck_mcp::watch(server.clone(), watch);
        let serving = async {
            match http {
                None => skilldeck_mcp::serve_stdio(server.clone()).await,
                Some(http) => {
                    let interrupted = async {
                        let _ = tokio::signal::ctrl_c().await;
                    };
                    skilldeck_mcp::serve_http(server.clone(), http, interrupted).await
                }
            }
            .context("serve failed")
        };
        // The first catalog's warnings once it is read; a store it could not read ends the
        // server, even one whose client already left (exit 2, as for every command).
        let checked = async {
            let catalog = server.loaded().await;
            crate::check_store(&catalog)?;
            crate::warn_summary(catalog.warnings(), verbose);
            crate::warn_refused(catalog.skips(), verbose);
            crate::roots::warn_if_empty(&catalog, &roots.looked_in, others);
            anyhow::Ok(())
        };
        tokio::pin!(serving, checked);
        tokio::select! {
            served = &mut serving => {
                checked.await?;
                served
            }
            checked = &mut checked => {
                checked?;
                serving.await
            }
        }
    });
    // A blocking read of stdin may still be pending: do not wait for it.
    runtime.shutdown_timeout(Duration::from_millis(200));
    outcome?;
    Ok(ExitCode::SUCCESS)
}

/// The cache of this start's level 1 and search index (`StartCache`), in the user's cache
/// directory: this command line, in this directory, with this home, over
/// the places looked in.
fn start_cache(looked_in: &[PathBuf]) -> Option<StartCache> {
    let dir = skilldeck::user_cache_dir()?;
    let cwd = std::env::current_dir().ok()?;
    let args = without_token(std::env::args_os().skip(1).map(|arg| arg.to_string_lossy().into_owned()));
    let home = skilldeck::home_dir().unwrap_or_default();
    let key = format!("{:?} in {} home {}", args, cwd.display(), home.display());
    Some(StartCache::new(&dir, &key, looked_in.to_vec()))
}

/// A command line without `--token`'s value, which chooses nothing of the
/// catalog and is a secret.
fn without_token(args: impl Iterator<Item = String>) -> Vec<String> {
    let mut kept = Vec::new();
    let mut value_next = false;
    for arg in args {
        if std::mem::take(&mut value_next) {
            continue;
        }
        match arg.as_str() {
            "--token" => value_next = true,
            _ if arg.starts_with("--token=") => {}
            _ => kept.push(arg),
        }
    }
    kept
}

/// The listening address and token; binding beyond loopback needs a token.
fn http_options(addr: &str, token: Option<Token>, limits: HttpLimits) -> anyhow::Result<HttpOptions> {
    let addr = crate::http::listen_addr("--http", addr, token.is_some())?;
    Ok(HttpOptions { addr, token, limits })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_token_is_no_part_of_the_cache_key() {
        let args = ["serve", "--token", "s3cret-s3cret-s3cret", "--root", "x", "--token=other-other-other"];
        assert_eq!(super::without_token(args.into_iter().map(String::from)), ["serve", "--root", "x"]);
    }
}
