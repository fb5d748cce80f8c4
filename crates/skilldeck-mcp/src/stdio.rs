//! The stdio transport: newline-delimited JSON-RPC on a reader and a writer.
//!
//! rmcp's own stdio transport drops a line that is not JSON without a word
//! and an over-long line with only a log entry; this one answers every bad
//! line with a JSON-RPC error ([`crate::wire`]) and keeps reading. Every
//! outgoing message (rmcp's and these errors) goes through one writer task
//! in the order it was queued, so an error for a bad line always precedes the
//! answer to the request after it.

use std::io;

use rmcp::RoleServer;
use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, GetMeta, JsonRpcMessage, ProtocolVersion, ResultType, ServerResult,
};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::wire::{Incoming, MAX_MESSAGE_BYTES, Rejection, classify};

/// A JSON-RPC line transport for a server.
pub(crate) struct LineTransport<R> {
    read: BufReader<R>,
    line: Vec<u8>,
    /// Dropping the rest of an over-long line, until its newline.
    discarding: bool,
    max: usize,
    /// Whether rmcp has chosen a lifecycle (after `initialize`, or a request
    /// with complete 2026-07-28 metadata). Before that it takes only
    /// requests and ends the session on anything else, so other messages
    /// are dropped here.
    started: bool,
    out: mpsc::UnboundedSender<Vec<u8>>,
}

impl<R: AsyncRead + Unpin + Send> LineTransport<R> {
    /// The transport over `read` and `write`, and the writer task; await the
    /// task after the service ends so that every queued message is written.
    pub(crate) fn new<W>(read: R, write: W) -> (LineTransport<R>, JoinHandle<()>)
    where
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (out, queue) = mpsc::unbounded_channel();
        let writer = tokio::spawn(write_all(write, queue));
        let transport = LineTransport {
            read: BufReader::new(read),
            line: Vec::new(),
            discarding: false,
            max: MAX_MESSAGE_BYTES,
            started: false,
            out,
        };
        (transport, writer)
    }

    /// Lowers the line cap (tests and fuzzing).
    #[cfg(any(test, feature = "fuzzing"))]
    pub(crate) fn with_max(mut self, max: usize) -> Self {
        self.max = max;
        self
    }

    fn reject(&self, rejection: &Rejection) {
        let mut bytes = rejection.to_json().to_string().into_bytes();
        bytes.push(b'\n');
        let _ = self.out.send(bytes);
    }

    /// Reads one line into `self.line`, never holding more than `self.max`
    /// bytes of it. Cancel-safe: bytes are consumed only after they are
    /// copied, so a dropped call leaves a partial line for the next one.
    async fn read_line(&mut self) -> io::Result<Line> {
        loop {
            let available = self.read.fill_buf().await?;
            if available.is_empty() {
                return Ok(Line::Eof);
            }
            let newline = available.iter().position(|&b| b == b'\n');
            let take = newline.map_or(available.len(), |i| i + 1);
            if self.discarding {
                self.read.consume(take);
                self.discarding = newline.is_none();
                continue;
            }
            if self.line.len() + take > self.max {
                self.line.clear();
                self.read.consume(take);
                self.discarding = newline.is_none();
                return Ok(Line::TooLong);
            }
            self.line.extend_from_slice(&available[..take]);
            self.read.consume(take);
            if newline.is_some() {
                return Ok(Line::Whole);
            }
        }
    }
}

/// What one [`LineTransport::read_line`] found.
enum Line {
    Whole,
    /// A line over the cap: reported once, the rest of it is skipped.
    TooLong,
    Eof,
}

async fn write_all<W: AsyncWrite + Unpin>(mut write: W, mut queue: mpsc::UnboundedReceiver<Vec<u8>>) {
    while let Some(first) = queue.recv().await {
        if write.write_all(&first).await.is_err() {
            return;
        }
        // Write whatever else is queued before one flush.
        while let Ok(next) = queue.try_recv() {
            if write.write_all(&next).await.is_err() {
                return;
            }
        }
        if write.flush().await.is_err() {
            return;
        }
    }
}

impl<R: AsyncRead + Unpin + Send + 'static> Transport<RoleServer> for LineTransport<R> {
    type Error = io::Error;

    fn send(
        &mut self,
        mut item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = io::Result<()>> + Send + 'static {
        restore_result_type(&mut item);
        let queued = serde_json::to_vec(&item).map_err(io::Error::other).and_then(|mut bytes| {
            bytes.push(b'\n');
            self.out.send(bytes).map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "stdout is closed"))
        });
        std::future::ready(queued)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            match self.read_line().await {
                Ok(Line::Whole) => {}
                Ok(Line::TooLong) => {
                    self.reject(&Rejection::too_large(self.max));
                    continue;
                }
                Ok(Line::Eof) => return None,
                Err(error) => {
                    eprintln!("skilldeck: cannot read stdin: {error}");
                    return None;
                }
            }
            let line = std::mem::take(&mut self.line);
            let trimmed = line.strip_suffix(b"\n").unwrap_or(&line);
            let trimmed = trimmed.strip_suffix(b"\r").unwrap_or(trimmed);
            if trimmed.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match classify(trimmed) {
                Incoming::Message(message) => {
                    if !self.started {
                        match &*message {
                            ClientJsonRpcMessage::Request(request) => self.started = starts_lifecycle(&request.request),
                            _ => continue,
                        }
                    }
                    return Some(*message);
                }
                Incoming::Reject(rejection) => self.reject(&rejection),
                Incoming::Ignore => {}
            }
        }
    }

    async fn close(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Whether rmcp leaves its pre-lifecycle loop on this request.
fn starts_lifecycle(request: &ClientRequest) -> bool {
    match request {
        ClientRequest::InitializeRequest(_) => true,
        ClientRequest::PingRequest(_) | ClientRequest::DiscoverRequest(_) => false,
        other => other.get_meta().missing_required_keys(&ProtocolVersion::V_2026_07_28).is_empty(),
    }
}

/// rmcp drops `resultType: "complete"` from results for a peer on the
/// `initialize` handshake; the Skills extension requires it on its results
/// in every era, so it is put back on those.
fn restore_result_type(item: &mut TxJsonRpcMessage<RoleServer>) {
    if let JsonRpcMessage::Response(response) = item {
        match &mut response.result {
            ServerResult::ListSkillsResult(result) => {
                result.result_type.get_or_insert(ResultType::COMPLETE);
            }
            ServerResult::GetSkillResult(result) => {
                result.result_type.get_or_insert(ResultType::COMPLETE);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;
    use tokio::io::AsyncReadExt;

    use super::*;

    /// Feeds `input` to a transport and returns the messages it passes on
    /// and the lines it wrote back.
    async fn run(input: &[u8], max: usize) -> (usize, Vec<Value>) {
        let (out_write, mut out_read) = tokio::io::duplex(1 << 20);
        let input: &'static [u8] = Vec::leak(input.to_vec());
        let (transport, writer) = LineTransport::new(input, out_write);
        let mut transport = transport.with_max(max);
        let mut passed = 0;
        while let Some(_message) = transport.receive().await {
            passed += 1;
        }
        drop(transport);
        writer.await.unwrap();
        let mut text = String::new();
        out_read.read_to_string(&mut text).await.unwrap();
        (passed, text.lines().map(|l| serde_json::from_str(l).unwrap()).collect())
    }

    #[tokio::test]
    async fn bad_lines_are_answered_and_good_ones_pass() {
        let input = b"{\n\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n[]\n{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":5}\n";
        let (passed, written) = run(input, 1 << 20).await;
        assert_eq!(passed, 1);
        let codes: Vec<i64> = written.iter().map(|m| m["error"]["code"].as_i64().unwrap()).collect();
        assert_eq!(codes, [-32700, -32600]);
    }

    #[tokio::test]
    async fn an_over_long_line_is_refused_once_and_reading_goes_on() {
        let mut input = vec![b'{'; 5000];
        input.extend_from_slice(b"\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n");
        let (passed, written) = run(&input, 100).await;
        assert_eq!(passed, 1);
        assert_eq!(written.len(), 1);
        assert_eq!(written[0]["error"]["code"], -32600);
        assert!(written[0].get("id").is_none());
    }

    #[tokio::test]
    async fn a_last_line_without_newline_still_counts() {
        let (passed, written) = run(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}", 1 << 20).await;
        // An unterminated final line is not a message: EOF cut it.
        assert_eq!((passed, written.len()), (0, 0));
    }
}
