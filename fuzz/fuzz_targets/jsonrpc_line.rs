//! The stdio transport's line reader and the first look at each line, fed
//! arbitrary bytes in arbitrary read sizes under a small line cap.
//!
//! The first byte sets the read size, the second the line cap; the rest is
//! the stream. A model splits the stream at `\n` and classifies each line on
//! its own; the transport must agree with it: exactly the model's error lines
//! are written back, byte for byte and in order (one per line over the cap,
//! one per rejected line), and every request (and at most every other
//! message) is handed on. Nothing panics or hangs.

#![no_main]

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use libfuzzer_sys::fuzz_target;
use skilldeck_mcp::fuzzing::{Classified, classify, read_lines};
use tokio::io::{AsyncRead, ReadBuf};

fuzz_target!(|bytes: &[u8]| {
    let [chunk, cap, stream @ ..] = bytes else { return };
    let chunk = usize::from(*chunk) + 1;
    let max = usize::from(*cap) * 8 + 1;

    let runtime = tokio::runtime::Builder::new_current_thread().build().expect("a runtime");
    let reader = Chunked { data: stream.to_vec(), at: 0, chunk };
    let (passed, written) = runtime.block_on(read_lines(reader, max));

    let model = Model::of(stream, max);
    assert_eq!(String::from_utf8_lossy(&written), String::from_utf8_lossy(&model.errors));
    assert!((model.requests..=model.messages).contains(&passed), "{passed} handed on; {model:?}");
});

/// What the transport should do with a stream, line by line.
#[derive(Debug, Default)]
struct Model {
    /// The error lines, in order.
    errors: Vec<u8>,
    /// Requests, always handed on.
    requests: usize,
    /// Messages of any kind (notifications and responses before the first
    /// request are dropped).
    messages: usize,
}

impl Model {
    fn of(stream: &[u8], max: usize) -> Model {
        let mut model = Model::default();
        let mut rest = stream;
        while !rest.is_empty() {
            let (line, terminated) = match rest.iter().position(|&b| b == b'\n') {
                Some(i) => (&rest[..=i], true),
                None => (rest, false),
            };
            rest = &rest[line.len()..];
            if line.len() > max {
                let error = format!(
                    "{{\"jsonrpc\":\"2.0\",\"error\":{{\"code\":-32600,\"message\":\"Invalid Request: message over {max} bytes\"}}}}\n"
                );
                model.errors.extend_from_slice(error.as_bytes());
                continue;
            }
            // A last line the stream cut before its newline is not a message.
            if !terminated {
                continue;
            }
            let line = line.strip_suffix(b"\n").unwrap_or(line);
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match classify(line) {
                Classified::Request => (model.requests, model.messages) = (model.requests + 1, model.messages + 1),
                Classified::Other => model.messages += 1,
                Classified::Rejected(error) => {
                    model.errors.extend_from_slice(error.as_bytes());
                    model.errors.push(b'\n');
                }
                Classified::Ignored => {}
            }
        }
        model
    }
}

/// A reader that hands out at most `chunk` bytes per read.
struct Chunked {
    data: Vec<u8>,
    at: usize,
    chunk: usize,
}

impl AsyncRead for Chunked {
    fn poll_read(mut self: Pin<&mut Self>, _: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let end = self.data.len().min(self.at + self.chunk).min(self.at + buf.remaining());
        buf.put_slice(&self.data[self.at..end]);
        self.at = end;
        Poll::Ready(Ok(()))
    }
}
