//! `skilldeck serve`: the catalog over MCP (stdio by default, Streamable
//! HTTP with `--http`). The server itself is the `skilldeck-mcp` crate.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, bail};
use clap::Args;
use skilldeck::store::SkillStore;
use skilldeck::{AgentProfile, CatalogBuilder, LiveCatalog};
use skilldeck_mcp::{HttpOptions, Options, SkillServer, Watch};

/// The environment variable holding the HTTP bearer token when `--token` is absent.
const TOKEN_VAR: &str = "SKILLDECK_TOKEN";

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
    /// Skills per skills/list and resources/list page.
    #[arg(long, value_name = "N", default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..))]
    page_size: u64,
}

/// Runs the server until stdin closes (stdio) or the process is interrupted (HTTP).
pub(crate) fn run(
    args: ServeArgs,
    builder: CatalogBuilder,
    store: Option<Arc<dyn SkillStore>>,
    roots: &[PathBuf],
    profile: Option<AgentProfile>,
) -> anyhow::Result<ExitCode> {
    let token = args.token.clone().or_else(|| std::env::var(TOKEN_VAR).ok()).filter(|t| !t.is_empty());
    let http = args.http.as_deref().map(|addr| http_options(addr, token)).transpose()?;
    let live = LiveCatalog::new(builder)?;
    crate::check_store(&live.snapshot())?;
    crate::warn_all(live.snapshot().warnings());
    log_to_stderr();
    let page_size = usize::try_from(args.page_size).unwrap_or(usize::MAX);
    let server = SkillServer::new(live, Options { profile, page_size });
    let watch = Watch { roots: roots.to_vec(), store };
    let runtime =
        tokio::runtime::Builder::new_multi_thread().enable_all().build().context("cannot start the runtime")?;
    let outcome = runtime.block_on(async move {
        let live = skilldeck_mcp::watch(server.clone(), watch);
        // Changes are seen from the first request on, unless the watches on a
        // very large tree take longer than this; serving starts anyway.
        let _ = tokio::time::timeout(Duration::from_secs(2), live.ready()).await;
        match http {
            None => skilldeck_mcp::serve_stdio(server).await,
            Some(http) => {
                let interrupted = async {
                    let _ = tokio::signal::ctrl_c().await;
                };
                skilldeck_mcp::serve_http(server, http, interrupted).await
            }
        }
    });
    // A blocking read of stdin may still be pending: do not wait for it.
    runtime.shutdown_timeout(Duration::from_millis(200));
    outcome.context("serve failed")?;
    Ok(ExitCode::SUCCESS)
}

/// From here on the server reports through `tracing`: its own events
/// (`skilldeck_mcp`, such as the store going away and coming back) at `info`
/// and above, one line each on stderr; the catalog's warnings were printed above.
fn log_to_stderr() {
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    let targets = tracing_subscriber::filter::Targets::new().with_target("skilldeck_mcp", tracing::Level::INFO);
    let layer = tracing_subscriber::fmt::layer().with_writer(std::io::stderr).without_time().with_target(false);
    // Already set (a second serve in one process): keep the first.
    let _ = tracing_subscriber::registry().with(layer).with(targets).try_init();
}

/// The listening address and token; binding beyond loopback needs a token.
fn http_options(addr: &str, token: Option<String>) -> anyhow::Result<HttpOptions> {
    let addr = match addr.parse::<SocketAddr>() {
        Ok(addr) => addr,
        Err(_) => match addr.rsplit_once(':') {
            Some(("localhost", port)) => SocketAddr::new(
                IpAddr::V4(Ipv4Addr::LOCALHOST),
                port.parse().with_context(|| format!("--http {addr}: bad port"))?,
            ),
            _ => bail!("--http expects ADDR:PORT (such as 127.0.0.1:8080 or [::1]:0), got {addr:?}"),
        },
    };
    if !addr.ip().is_loopback() && token.is_none() {
        bail!("--http {addr} listens beyond loopback: give a bearer token with --token or ${TOKEN_VAR}");
    }
    Ok(HttpOptions { addr, token })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_needs_no_token_and_anything_else_does() {
        assert_eq!(http_options("127.0.0.1:0", None).unwrap().addr.to_string(), "127.0.0.1:0");
        assert_eq!(http_options("localhost:8080", None).unwrap().addr.to_string(), "127.0.0.1:8080");
        assert_eq!(http_options("[::1]:9", None).unwrap().addr.to_string(), "[::1]:9");
        assert!(http_options("0.0.0.0:8080", None).is_err());
        assert!(http_options("192.0.2.1:8080", None).is_err());
        assert!(http_options("0.0.0.0:8080", Some("t".into())).is_ok());
        assert!(http_options("nonsense", None).is_err());
    }
}
