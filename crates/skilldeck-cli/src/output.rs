//! Where the command line's text goes, and what a failed write of it means.
//!
//! Results go to stdout ([`print`], [`print_json`]): a write that fails is
//! the command's error (exit 2), except that a reader who went
//! (`skilldeck list | head -1`) ends the command quietly with 0
//! ([`broken_pipe`]). Messages go to stderr ([`say!`], [`eprint`]): a
//! stderr that cannot be written (`2>/dev/full`, a closed descriptor) is let
//! go, as there is nowhere left to say so, and the exit code still tells how
//! the command ended. `eprintln!` would panic there (exit 101), so the crate
//! denies it and its kin (clippy's `print_stderr`, `print_stdout`).

use std::io::Write;

use serde_json::Value;

/// Writes `text` to stdout and flushes it.
pub(crate) fn print(text: &str) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_bytes())?;
    stdout.flush()?;
    Ok(())
}

/// Writes `value` to stdout as pretty JSON and a line break.
pub(crate) fn print_json(value: &Value) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut stdout, value)?;
    stdout.write_all(b"\n")?;
    stdout.flush()?;
    Ok(())
}

/// Writes `text` to stderr, whole or not at all as far as the caller can
/// tell: a failed write is ignored (see the module docs).
pub(crate) fn eprint(text: &str) {
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

/// `eprintln!` that cannot panic: formats one line and writes it with
/// [`eprint`].
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::output::eprint(&format!("{}\n", format_args!($($arg)*)))
    };
}
pub(crate) use say;

/// Whether `error` is a write to a pipe whose reader closed it.
pub(crate) fn broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        let kind = cause
            .downcast_ref::<std::io::Error>()
            .map(std::io::Error::kind)
            .or_else(|| cause.downcast_ref::<serde_json::Error>().and_then(serde_json::Error::io_error_kind));
        kind == Some(std::io::ErrorKind::BrokenPipe)
    })
}
