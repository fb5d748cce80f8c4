//! The stdio transport: newline-delimited JSON-RPC on a reader and a writer.
//!
//! rmcp's own stdio transport drops a line that is not JSON without a word
//! and an over-long line with only a log entry; this one answers every bad
//! line with a JSON-RPC error ([`crate::wire`]) and keeps reading. Every
//! outgoing message (rmcp's and these errors) goes through one writer task
//! in the order it was queued, so an error for a bad line always precedes the
//! answer to the request after it.
//!
//! Backpressure: every request read (and every bad line) takes one of
//! [`MAX_PENDING_ANSWERS`] slots, given back once its answer is written. With
//! none free the transport reads nothing more, so a client that stops reading
//! stdout stops the server reading stdin instead of growing its queue.

use std::collections::HashMap;
use std::io;
use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::model::{
    ClientJsonRpcMessage, ClientNotification, ClientRequest, GetMeta, JsonRpcMessage, ProtocolVersion, RequestId,
    ResultType, ServerResult,
};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};
use tokio::task::JoinHandle;

use crate::wire::{Incoming, MAX_MESSAGE_BYTES, Rejection, classify};

/// The answers a stdio server owes at most (requests read, or bad lines,
/// whose answer is not yet written). A client may pipeline more requests;
/// they wait in its pipe. What the server holds for a client that does not
/// read is at most this many answers.
pub const MAX_PENDING_ANSWERS: usize = 16;

/// One message for the writer, with the slot it frees once written.
struct Outgoing {
    bytes: Vec<u8>,
    _slot: Option<OwnedSemaphorePermit>,
}

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
    out: mpsc::UnboundedSender<Outgoing>,
    /// The [`MAX_PENDING_ANSWERS`] slots.
    slots: Arc<Semaphore>,
    /// The slot taken before the next line is read.
    slot: Option<OwnedSemaphorePermit>,
    /// The slots of requests passed on, by id, until their answer is sent.
    owed: HashMap<RequestId, OwnedSemaphorePermit>,
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
            slots: Arc::new(Semaphore::new(MAX_PENDING_ANSWERS)),
            slot: None,
            owed: HashMap::new(),
        };
        (transport, writer)
    }

    /// Lowers the line cap (tests and fuzzing).
    #[cfg(any(test, feature = "fuzzing"))]
    pub(crate) fn with_max(mut self, max: usize) -> Self {
        self.max = max;
        self
    }

    /// Queues the error for a bad line, with the slot taken to read it.
    fn reject(&mut self, rejection: &Rejection) {
        let mut bytes = rejection.to_json().to_string().into_bytes();
        bytes.push(b'\n');
        let _ = self.out.send(Outgoing { bytes, _slot: self.slot.take() });
    }

    /// Keeps the slot of a message passed on until its answer: a request's
    /// until it is answered; a cancelled request gets no answer, so its slot
    /// is given back on the cancellation. A `subscriptions/listen` stream is
    /// answered only when it ends, and what it sends meanwhile is a few
    /// notifications per reload: it keeps no slot, or a client holding
    /// [`MAX_PENDING_ANSWERS`] of them would never be read again.
    fn account(&mut self, message: &ClientJsonRpcMessage) {
        match message {
            JsonRpcMessage::Request(request)
                if matches!(request.request, ClientRequest::SubscriptionsListenRequest(_)) => {}
            JsonRpcMessage::Request(request) => {
                // A reused id gives the earlier slot back: the cap is looser
                // for such a client, and no slot is ever lost.
                if let Some(slot) = self.slot.take() {
                    self.owed.insert(request.id.clone(), slot);
                }
            }
            JsonRpcMessage::Notification(notification) => {
                if let ClientNotification::CancelledNotification(cancelled) = &notification.notification
                    && let Some(id) = &cancelled.params.request_id
                {
                    self.owed.remove(id);
                }
            }
            _ => {}
        }
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

async fn write_all<W: AsyncWrite + Unpin>(mut write: W, mut queue: mpsc::UnboundedReceiver<Outgoing>) {
    while let Some(first) = queue.recv().await {
        if write.write_all(&first.bytes).await.is_err() {
            return;
        }
        drop(first);
        // Write whatever else is queued before one flush.
        while let Ok(next) = queue.try_recv() {
            if write.write_all(&next.bytes).await.is_err() {
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
        let answered = match &item {
            JsonRpcMessage::Response(response) => Some(&response.id),
            JsonRpcMessage::Error(error) => error.id.as_ref(),
            _ => None,
        };
        let slot = answered.and_then(|id| self.owed.remove(id));
        let queued = serde_json::to_vec(&item).map_err(io::Error::other).and_then(|mut bytes| {
            bytes.push(b'\n');
            self.out
                .send(Outgoing { bytes, _slot: slot })
                .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "stdout is closed"))
        });
        std::future::ready(queued)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            if self.slot.is_none() {
                // Nothing more is read until an answer is written. Cancel-safe:
                // the slot is kept as soon as it is taken.
                self.slot = Some(self.slots.clone().acquire_owned().await.ok()?);
            }
            match self.read_line().await {
                Ok(Line::Whole) => {}
                Ok(Line::TooLong) => {
                    self.reject(&Rejection::too_large(self.max));
                    continue;
                }
                Ok(Line::Eof) => return None,
                Err(error) => {
                    tracing::warn!(%error, "cannot read stdin");
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
                    self.account(&message);
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

    const INITIALIZE: &[u8] = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}
"#;

    #[tokio::test]
    async fn reading_stops_while_every_answer_is_owed() {
        let (out_write, _out_read) = tokio::io::duplex(1 << 20);
        let mut input = INITIALIZE.to_vec();
        for id in 1..=MAX_PENDING_ANSWERS + 2 {
            input.extend_from_slice(format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n").as_bytes());
        }
        let input: &'static [u8] = Vec::leak(input);
        let (mut transport, _writer) = LineTransport::new(input, out_write);
        let patience = std::time::Duration::from_millis(200);
        let mut ids = Vec::new();
        for _ in 0..MAX_PENDING_ANSWERS {
            match transport.receive().await {
                Some(JsonRpcMessage::Request(request)) => ids.push(request.id),
                other => panic!("not a request: {other:?}"),
            }
        }
        assert!(tokio::time::timeout(patience, transport.receive()).await.is_err(), "read past the cap");
        // One answer written: one more request is read.
        let answer = JsonRpcMessage::response(ServerResult::empty(()), ids[0].clone());
        transport.send(answer).await.unwrap();
        assert!(tokio::time::timeout(patience, transport.receive()).await.unwrap().is_some());
        assert!(tokio::time::timeout(patience, transport.receive()).await.is_err(), "read past the cap");
        // A cancelled request is never answered: its slot comes back with the cancellation.
        let cancelled = format!(
            "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{{\"requestId\":{}}}}}",
            ids[1]
        );
        let message: ClientJsonRpcMessage = serde_json::from_str(&cancelled).unwrap();
        transport.account(&message);
        assert!(tokio::time::timeout(patience, transport.receive()).await.unwrap().is_some());
    }

    #[tokio::test]
    async fn listen_streams_keep_no_slot() {
        let (out_write, _out_read) = tokio::io::duplex(1 << 20);
        let mut input = INITIALIZE.to_vec();
        let listen = r#""method":"subscriptions/listen","params":{"notifications":{"resourcesListChanged":true}}}"#;
        for id in 1..=MAX_PENDING_ANSWERS * 2 {
            input.extend_from_slice(format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},{listen}\n").as_bytes());
        }
        let (mut transport, _writer) = LineTransport::new(&*Vec::leak(input), out_write);
        let patience = std::time::Duration::from_millis(200);
        for _ in 0..=MAX_PENDING_ANSWERS * 2 {
            assert!(tokio::time::timeout(patience, transport.receive()).await.unwrap().is_some());
        }
    }

    #[tokio::test]
    async fn a_last_line_without_newline_still_counts() {
        let (passed, written) = run(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}", 1 << 20).await;
        // An unterminated final line is not a message: EOF cut it.
        assert_eq!((passed, written.len()), (0, 0));
    }
}
