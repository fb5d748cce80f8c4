//! The accept loop: every connection admitted through the [`Table`], served
//! as HTTP/1.1 with the head and write deadlines, and closed when shed.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::pin::{Pin, pin};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, Request, Response, StatusCode, header};
use http_body::{Frame, SizeHint};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, watch};
use tokio_io_timeout::TimeoutStream;

use crate::limits::ConnectionLimits;
use crate::table::{Admitted, Full, Peer, Table};

/// How long a shutdown waits for open connections (streams included) to end.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// The table and what wakes the accept loop when room may have been made.
struct Shared {
    table: Mutex<Table>,
    /// Told when a connection ends or waits again: a full server may admit.
    room: Notify,
}

impl Shared {
    fn table(&self) -> MutexGuard<'_, Table> {
        // The table's calls do not panic; if one did, its counts still hold.
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Serves `app` on `listener` under `limits` until `shutdown` completes;
/// then lets open connections finish, for [`SHUTDOWN_GRACE`] at most.
///
/// Each connection is HTTP/1.1 with `TCP_NODELAY`, the head deadline
/// ([`ConnectionLimits::header_timeout`]) and the write deadline
/// ([`ConnectionLimits::write_timeout`]). A connection over the cap or its
/// peer's bound takes the place of the longest-waiting one ([`ConnectionLimits`]).
pub async fn serve(listener: TcpListener, app: Router, limits: ConnectionLimits, shutdown: impl Future<Output = ()>) {
    let shared = Arc::new(Shared {
        table: Mutex::new(Table::new(limits.max_connections, limits.per_peer())),
        room: Notify::new(),
    });
    let (stopping, stop) = watch::channel(());
    let mut shutdown = pin!(shutdown);
    loop {
        let (tcp, peer) = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Out of descriptors: make room by closing the connection
                    // that has waited longest for its head, if any; else (or a
                    // connection reset before it was taken) wait a little
                    // rather than spin.
                    if out_of_descriptors(&error) && shed_oldest(&shared) {
                        // Let the shed connection's task close its socket.
                        tokio::task::yield_now().await;
                    } else {
                        tracing::warn!(%error, "cannot accept a connection");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                    continue;
                }
            },
        };
        let next = loop {
            // Made before the table is read, so that no wake-up is lost.
            let room = shared.room.notified();
            match shared.table().admit(Peer::of(peer.ip())) {
                Ok(admitted) => break Next::Serve(admitted),
                Err(Full::Peer) => {
                    tracing::debug!(%peer, "connection closed: its address holds its share of connections, all busy");
                    break Next::Close;
                }
                Err(Full::Wait) => {}
            }
            // Nothing to shed: every connection is busy with a request, or was
            // just accepted and not yet read. Wait until one ends, finishes its
            // request or has been read (each deadline bounds that).
            tokio::select! {
                () = &mut shutdown => break Next::Stop,
                () = room => {}
            }
        };
        let admitted = match next {
            Next::Serve(admitted) => admitted,
            Next::Close => continue,
            Next::Stop => break,
        };
        spawn_connection(tcp, admitted, app.clone(), limits, shared.clone(), stop.clone());
        // Let the new connection read what it was sent before the next is
        // accepted: a complete head already waiting is then read, and its
        // connection busy, before a flood of newer ones could make it the
        // oldest waiting and shed it (a burst of accepts would otherwise run
        // for tokio's whole cooperative budget, more than a small cap).
        tokio::task::yield_now().await;
    }
    let _ = stopping.send(());
    drop(listener);
    let _ = tokio::time::timeout(SHUTDOWN_GRACE, async {
        loop {
            let room = shared.room.notified();
            if shared.table().len() == 0 {
                break;
            }
            room.await;
        }
    })
    .await;
}

/// What becomes of an accepted connection.
enum Next {
    Serve(Admitted),
    /// Its peer holds its share, all busy: dropped, so closed.
    Close,
    /// The server stops.
    Stop,
}

fn out_of_descriptors(error: &io::Error) -> bool {
    // EMFILE (24) and ENFILE (23) on Linux and the BSDs.
    matches!(error.raw_os_error(), Some(23 | 24))
}

fn shed_oldest(shared: &Shared) -> bool {
    let shed = shared.table().shed_oldest();
    if shed {
        tracing::debug!("out of descriptors: closed the connection that waited longest for its request");
    }
    shed
}

/// Removes its connection from the table when the connection's task ends,
/// however it ends.
struct Registered {
    shared: Arc<Shared>,
    id: u64,
}

impl Drop for Registered {
    fn drop(&mut self) {
        self.shared.table().remove(self.id);
        self.shared.room.notify_one();
    }
}

/// Marks its connection as waiting for a head again when the response's
/// body is done (written whole, or dropped).
struct Answering {
    shared: Arc<Shared>,
    id: u64,
}

impl Drop for Answering {
    fn drop(&mut self) {
        self.shared.table().waits(self.id);
        self.shared.room.notify_one();
    }
}

fn spawn_connection(
    tcp: TcpStream,
    admitted: Admitted,
    app: Router,
    limits: ConnectionLimits,
    shared: Arc<Shared>,
    mut stop: watch::Receiver<()>,
) {
    // Without TCP_NODELAY a reply's second write waits for the client's
    // delayed ACK (Nagle): about 40 ms per request on a kept-alive connection.
    if let Err(error) = tcp.set_nodelay(true) {
        tracing::debug!("TCP_NODELAY not set: {error}");
    }
    // No read deadline: a stream's connection reads nothing for as long as
    // it lasts. The head and body deadlines bound what a client sends.
    let mut tcp = TimeoutStream::new(tcp);
    tcp.set_write_timeout(Some(limits.write_timeout));
    let Admitted { id, shed } = admitted;
    let io = Watched { io: Box::pin(tcp), shared: shared.clone(), id };
    let registered = Registered { shared, id };
    let app = TowerToHyperService::new(app);
    let shared = registered.shared.clone();
    let service = hyper::service::service_fn(move |request: Request<Incoming>| {
        let admitted = shared.table().busy(id);
        let answering = Answering { shared: shared.clone(), id };
        let served = hyper::service::Service::call(&app, request);
        async move {
            if !admitted {
                return Ok::<_, Infallible>(
                    closing(StatusCode::SERVICE_UNAVAILABLE).map(|body| Answer { body, _answering: None }),
                );
            }
            let response = served.await.unwrap_or_else(|never| match never {});
            // The guard lives as long as the body: a stream is busy while it lasts.
            Ok(response.map(|body| Answer { body, _answering: Some(answering) }))
        }
    });
    tokio::spawn(async move {
        let _registered = registered;
        let mut builder = hyper::server::conn::http1::Builder::new();
        builder.timer(TokioTimer::new()).header_read_timeout(limits.header_timeout);
        let mut connection = pin!(builder.serve_connection(TokioIo::new(io), service));
        tokio::select! {
            _served = connection.as_mut() => {}
            // Shed to make room: dropped, so the socket closes.
            _shed = shed => {}
            _stopping = stop.changed() => {
                connection.as_mut().graceful_shutdown();
                let _ = connection.await;
            }
        }
    });
}

/// A connection's socket, which tells the table when a read finds nothing
/// more to read: whatever the client sent by then is no complete head (or
/// hyper would have called the service), so the connection may be shed. A
/// connection not read yet never is: its client may have sent a whole request.
struct Watched {
    io: Pin<Box<TimeoutStream<TcpStream>>>,
    shared: Arc<Shared>,
    id: u64,
}

impl AsyncRead for Watched {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let read = self.io.as_mut().poll_read(cx, buf);
        if read.is_pending() {
            // A busy connection's reads (a body, hyper's watch for a close) change nothing.
            self.shared.table().stalled(self.id);
            self.shared.room.notify_one();
        }
        read
    }
}

impl AsyncWrite for Watched {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        self.io.as_mut().poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.io.as_mut().poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.io.as_mut().poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.io.as_mut().poll_shutdown(cx)
    }
}

/// A response's body, and the mark that its connection is busy until the
/// body is done. Sizes pass through, so a body of known length keeps its
/// `Content-Length`.
struct Answer {
    body: Body,
    _answering: Option<Answering>,
}

impl http_body::Body for Answer {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// An answer that ends its connection.
fn closing(status: StatusCode) -> Response<Body> {
    let mut response = Response::new(Body::empty());
    *response.status_mut() = status;
    response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}
