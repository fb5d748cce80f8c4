//! The diagnostics of `skilldeck serve` and of the catalog commands: the
//! server's and the CLI's `tracing` events, one line each on stderr, `skilldeck: [warning: |error: ]MESSAGE[ field=value]...`.
//! Every value is escaped so that no event, whatever a skill's name or an
//! error holds, can split a line or forge another.

use std::fmt::{self, Write as _};

use anyhow::anyhow;
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::filter::Targets;
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::util::SubscriberInitExt;

/// Chooses which events are shown, in `RUST_LOG`'s simple form
/// (`debug`, `skilldeck_mcp=debug,rmcp=info`).
const LOG_VAR: &str = "SKILLDECK_LOG";

/// Installs the stderr subscriber: by default the server's and this
/// crate's own events at `info` and above (the catalog's warnings are
/// printed from the catalog).
pub(crate) fn init() -> anyhow::Result<()> {
    let targets = match std::env::var(LOG_VAR) {
        Ok(spec) => spec.parse::<Targets>().map_err(|error| anyhow!("${LOG_VAR}: cannot read {spec:?}: {error}"))?,
        Err(_) => {
            Targets::new().with_target("skilldeck_mcp", Level::INFO).with_target(crate::roots::LOG_TARGET, Level::INFO)
        }
    };
    // A stderr that cannot be written loses the line, nothing more: the
    // layer's own report of that would be an `eprintln!`, which panics.
    let layer =
        tracing_subscriber::fmt::layer().with_writer(std::io::stderr).event_format(Line).log_internal_errors(false);
    // Already set (a second serve in one process): keep the first.
    let _ = tracing_subscriber::registry().with(layer).with(targets).try_init();
    Ok(())
}

/// One event, one line.
struct Line;

impl<S, N> FormatEvent<S, N> for Line
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(&self, _: &FmtContext<'_, S, N>, mut writer: Writer<'_>, event: &Event<'_>) -> fmt::Result {
        let mut fields = Fields::default();
        event.record(&mut fields);
        let level = match *event.metadata().level() {
            Level::ERROR => "error: ",
            Level::WARN => "warning: ",
            _ => "",
        };
        writeln!(writer, "skilldeck: {level}{}{}", fields.message, fields.rest)
    }
}

/// An event's message, and its other fields as ` name=value`; a string
/// value is quoted (`Debug`), every value has its control characters escaped.
#[derive(Default)]
struct Fields {
    message: String,
    rest: String,
}

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        let out = if field.name() == "message" {
            &mut self.message
        } else {
            let _ = write!(self.rest, " {}=", field.name());
            &mut self.rest
        };
        escape_into(out, &format!("{value:?}"));
    }
}

fn escape_into(out: &mut String, text: &str) {
    out.push_str(&skilldeck::escape_control(text));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_never_split_a_line() {
        let mut out = String::new();
        escape_into(&mut out, "a\nb\r\u{1b}[31mc\u{85}d\t\u{2028}é");
        assert_eq!(out, "a\\nb\\r\\u{1b}[31mc\\u{85}d\\t\\u{2028}é");
    }
}
