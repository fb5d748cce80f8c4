//! The PostgreSQL server the PostgreSQL variants of the tests use, shared
//! by the store's, the CLI's and the Studio's tests (`#[path]`-included).

/// The PostgreSQL server of the PostgreSQL variants: `None` when
/// `SKILLDECK_TEST_POSTGRES` is unset, said once on stderr (written past the
/// test harness's capture, so a local run shows it). Under CI (`CI` set) an
/// unset server fails the test instead: the PostgreSQL variants must never
/// pass there without running.
pub(crate) fn postgres_url() -> Option<String> {
    if let Ok(url) = std::env::var("SKILLDECK_TEST_POSTGRES") {
        return Some(url);
    }
    let ci = std::env::var_os("CI").is_some_and(|v| !v.is_empty());
    assert!(!ci, "CI is set but SKILLDECK_TEST_POSTGRES is not: the PostgreSQL tests must run in CI");
    static SAID: std::sync::Once = std::sync::Once::new();
    SAID.call_once(|| {
        use std::io::Write;
        let note = "skipped: set SKILLDECK_TEST_POSTGRES to a PostgreSQL URL to run the PostgreSQL tests";
        let _ = writeln!(std::io::stderr(), "{note}");
    });
    None
}
