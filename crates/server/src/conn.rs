//! The accept loop: HTTP/1.1 connections with a time limit on the request head and body and a
//! cap on the connections open at once, WebSocket upgrades, and a graceful shutdown.
//!
//! `axum::serve` sets no timer, so a client that sends half a request head (or less of a body
//! than it announced) would hold its connection, and a file descriptor, for ever; enough of
//! them and the server can no longer accept anyone.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes, HttpBody};
use axum::extract::Request;
use axum::response::IntoResponse as _;
use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::sync::Semaphore;

/// How long clients may take, and how many may be connected at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// A connection whose request head (request line and headers, up to the blank line) is
    /// not complete this long after the server starts waiting for it is closed. This covers a
    /// keep-alive connection waiting for its next request, and one that never sends a byte.
    pub header_read_timeout: Duration,
    /// A request whose body has not fully arrived this long after its head is answered with an
    /// error and its connection closed.
    pub body_read_timeout: Duration,
    /// HTTP connections served at once; while that many are open, new ones wait in the
    /// listener's backlog. WebSocket connections stop counting here once upgraded: they count
    /// against [`Limits::max_websockets`].
    pub max_connections: usize,
    /// HTTP connections one client may have open at once (unfinished requests and idle
    /// keep-alive connections alike), so that one address cannot take every one of
    /// [`Limits::max_connections`]: past it, a new connection from that client is answered
    /// `429` and closed. A client is its TCP peer's address ([`crate::client::key`]: an IPv6
    /// one by its /64). A trusted proxy's connections ([`crate::Server::set_proxies`]) are not
    /// counted here: the client a proxy forwards is known only once a request head has
    /// arrived, and the proxy's own connections carry every client's requests (limit the
    /// connections per client in the proxy: nginx's `limit_conn`).
    pub max_connections_per_client: usize,
    /// WebSocket connections open at once, over every game. Past seven eighths of it, a
    /// connection without a seat's token (a watcher) is refused (`503`): the last eighth is
    /// kept for the players' own connections. At the cap, every upgrade is refused.
    pub max_websockets: usize,
    /// WebSocket connections one client may have open at once, over every game (`429` past
    /// it). A client is its address ([`crate::client::key`]: an IPv6 one by its /64), or the
    /// address a trusted proxy forwards ([`crate::Server::set_proxies`]).
    pub max_websockets_per_client: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            header_read_timeout: Duration::from_secs(20),
            body_read_timeout: Duration::from_secs(30),
            max_connections: 4096,
            max_connections_per_client: 256,
            max_websockets: 8192,
            max_websockets_per_client: 256,
        }
    }
}

/// HTTP/1.1 connections a browser opens to one server at most (6 in every current browser),
/// with some to spare: [`Limits::for_open_files`] leaves a client at least this many.
pub const BROWSER_CONNECTIONS: usize = 8;

/// Fewer HTTP connections than this (a limit on open files below about 320) serve only a few
/// visitors at once: `pussa serve` warns at start.
pub const FEW_CONNECTIONS: usize = 64;

/// A limit on open files ample for a club (about 2000 HTTP connections and 4000 WebSockets at
/// once, see [`Limits::for_open_files`]): what the warning of a low limit suggests.
pub const SUGGESTED_OPEN_FILES: u64 = 8192;

/// File descriptors kept aside from the connections' share in [`Limits::for_open_files`]: the
/// listener, the database and its journal, the endgame tables, the runtime's own.
pub const RESERVED_FILES: u64 = 64;

impl Limits {
    /// The default limits, lowered so that the connections fit in `open_files` file
    /// descriptors (the process's `RLIMIT_NOFILE`): out of what [`RESERVED_FILES`] leaves,
    /// at most a quarter for HTTP connections and half for WebSockets (a quarter stays for
    /// the sockets still closing and the rest). A server out of descriptors can accept no
    /// one, not even to load the page. One client may hold a quarter of the HTTP connections
    /// (at least 8, what a browser opens, when the cap allows; at most the default 256) and
    /// half of the WebSockets (at most the default 256).
    #[must_use]
    pub fn for_open_files(open_files: u64) -> Limits {
        let d = Limits::default();
        let budget =
            usize::try_from(open_files.saturating_sub(RESERVED_FILES)).unwrap_or(usize::MAX);
        let max_connections = d.max_connections.min(budget / 4).max(1);
        let max_websockets = d.max_websockets.min(budget / 2).max(1);
        Limits {
            max_connections,
            max_connections_per_client: (max_connections / 4)
                .max(BROWSER_CONNECTIONS.min(max_connections))
                .min(d.max_connections_per_client),
            max_websockets,
            max_websockets_per_client: d.max_websockets_per_client.min(max_websockets / 2).max(1),
            ..d
        }
    }
}

/// How long a shutdown waits for the requests in flight (and the WebSocket closing
/// handshakes); a connection still open then (one that sent half a request head, say) is
/// dropped.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);

/// Serves `router` on `listener` until `shutdown` resolves; then stops accepting, tells every
/// open connection to finish its request in flight and close (`closing` is set to true first,
/// so that WebSocket connections close themselves), and waits for them at most
/// [`SHUTDOWN_GRACE`]: a connection still open then is left to be dropped with the runtime
/// (one that sent half a request would otherwise hold the stop for its header timeout).
///
/// # Errors
/// Never at present: accept errors are logged and retried (after a pause when the process is
/// out of file descriptors).
pub async fn serve(
    listener: tokio::net::TcpListener,
    router: Router,
    limits: Limits,
    proxies: crate::client::Proxies,
    closing: tokio::sync::watch::Sender<bool>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let max = limits.max_connections.clamp(1, Semaphore::MAX_PERMITS);
    let open = Arc::new(Semaphore::new(max));
    let per_client = Arc::new(std::sync::Mutex::new(crate::client::PerClient::default()));
    let per_client_max = limits.max_connections_per_client.max(1);
    let body_timeout = limits.body_read_timeout;
    let router = router.layer(axum::middleware::from_fn(
        move |req: Request, next: axum::middleware::Next| async move {
            // A body announced over the limit is refused from the head, not waited for.
            let declared = req
                .headers()
                .get(axum::http::header::CONTENT_LENGTH)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<u64>().ok());
            if declared.is_some_and(|n| n > crate::MAX_BODY as u64) {
                let mut resp = crate::error::body_too_large().into_response();
                resp.headers_mut().insert(
                    axum::http::header::CONNECTION,
                    axum::http::HeaderValue::from_static("close"),
                );
                return resp;
            }
            // The body is read whole (within the limit and the time) before any answer, so
            // that an error answered early (415, 404, 405, …) leaves no unread body behind:
            // hyper would then have to close the connection without saying so, and a
            // keep-alive client would send its next request (a move, perhaps) into a dead
            // socket, never knowing whether it was played. A body that cannot be read whole
            // is answered with `Connection: close`: what is left of it cannot be told from a
            // next request.
            let req = if req.body().is_end_stream() {
                req
            } else {
                let (parts, body) = req.into_parts();
                let timed = Body::new(TimedBody::new(body, body_timeout));
                match axum::body::to_bytes(timed, crate::MAX_BODY).await {
                    Ok(bytes) => Request::from_parts(parts, Body::from(bytes)),
                    Err(e) => {
                        let mut resp = crate::error::body_error(&e).into_response();
                        resp.headers_mut().insert(
                            axum::http::header::CONNECTION,
                            axum::http::HeaderValue::from_static("close"),
                        );
                        return resp;
                    }
                }
            };
            next.run(req).await
        },
    ));
    // Outermost: the client's address, a span that names the request in every line logged
    // while it is served, and one access line when it is answered.
    let proxies = Arc::new(proxies);
    let router_proxies = Arc::clone(&proxies);
    let warned_no_header = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let router = router.layer(axum::middleware::from_fn(
        move |mut req: Request, next: axum::middleware::Next| {
            let proxies = Arc::clone(&router_proxies);
            let warned_no_header = Arc::clone(&warned_no_header);
            async move {
                let peer = req
                    .extensions()
                    .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
                    .map(|c| c.0.ip());
                // A trusted proxy that names no client (nginx sends no X-Forwarded-For unless
                // told to) makes every visitor one client: said once, at the default level.
                if let Some(p) = peer.filter(|p| proxies.trusts(p.to_canonical())) {
                    req.extensions_mut().insert(crate::client::TrustedProxy);
                    let name = proxies.header().name();
                    if !req.headers().contains_key(name)
                        && !warned_no_header.swap(true, std::sync::atomic::Ordering::Relaxed)
                    {
                        let nginx = match proxies.header() {
                            crate::client::ProxyHeader::XForwardedFor => {
                                "proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;"
                            }
                            crate::client::ProxyHeader::XRealIp => {
                                "proxy_set_header X-Real-IP $remote_addr;"
                            }
                            crate::client::ProxyHeader::Forwarded => {
                                "proxy_set_header Forwarded \"for=$remote_addr\";"
                            }
                        };
                        tracing::warn!(
                            "the trusted proxy {p} sent a request without a {name} header: such \
                             requests count as the proxy's own, every visitor as one client; set \
                             the header in the proxy (nginx: {nginx})"
                        );
                    }
                }
                let client = peer.map(|p| proxies.client(p, req.headers()));
                if let Some(c) = client {
                    req.extensions_mut().insert(crate::client::ClientAddr(c));
                }
                let from = client_text(client, peer);
                let method = req.method().clone();
                // The path only: a query may hold a seat's token, which is never logged.
                let path = crate::util::cut(req.uri().path(), 200).into_owned();
                // At the level of errors, so that it is there whenever an error is logged.
                let span = tracing::error_span!("request", %method, %path, client = %from);
                let t0 = std::time::Instant::now();
                let resp = tracing::Instrument::instrument(next.run(req), span).await;
                tracing::info!(
                    target: "pussa_server::access",
                    "{from} \"{method} {path}\" {} {:.1} ms",
                    resp.status().as_u16(),
                    t0.elapsed().as_secs_f64() * 1000.0
                );
                resp
            }
        },
    ));
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout);
    tokio::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            p = Arc::clone(&open).acquire_owned() => match p {
                Ok(p) => p,
                Err(_) => break,
            },
            () = &mut shutdown => break,
        };
        let (stream, peer) = tokio::select! {
            r = listener.accept() => match r {
                Ok((stream, peer)) => {
                    // Small writes in a row (a move's ack, then its update) go out at once, not
                    // after the peer's delayed ACK (Nagle's algorithm: about 40 ms).
                    if let Err(e) = stream.set_nodelay(true) {
                        tracing::debug!("TCP_NODELAY not set: {e}");
                    }
                    (stream, peer)
                }
                Err(e) => {
                    if !is_connection_error(&e) {
                        // Out of file descriptors, typically: wait for some to be given back
                        // rather than spin.
                        if matches!(e.raw_os_error(), Some(23 | 24)) {
                            tracing::error!(
                                "accept error: {e}: out of file descriptors, no new connection \
                                 can be served (raise the limit, `ulimit -n` or systemd's \
                                 LimitNOFILE, or lower the connection caps)"
                            );
                        } else {
                            tracing::error!("accept error: {e}");
                        }
                        tokio::select! {
                            () = tokio::time::sleep(Duration::from_secs(1)) => {}
                            () = &mut shutdown => break,
                        }
                    }
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        // One client's share of the connections; a trusted proxy's are not counted (see
        // `Limits::max_connections_per_client`).
        let share = if proxies.trusts(peer.ip().to_canonical()) {
            None
        } else {
            match crate::client::PerClient::admit(&per_client, peer.ip(), per_client_max) {
                Some(share) => Some(share),
                None => {
                    tracing::debug!("connection from {peer} refused: it has {per_client_max} open");
                    tokio::spawn(refuse_over_share(stream, per_client_max, permit));
                    continue;
                }
            }
        };
        // Each request knows its client's address (the per-client limits).
        let service = tower::ServiceExt::map_request(
            router.clone(),
            move |mut req: axum::http::Request<hyper::body::Incoming>| {
                req.extensions_mut()
                    .insert(axum::extract::ConnectInfo(peer));
                req
            },
        );
        let conn = builder
            .serve_connection(
                TokioIo::new(Lingering::new(stream)),
                TowerToHyperService::new(service),
            )
            .with_upgrades();
        let mut closing_rx = closing.subscribe();
        tokio::spawn(async move {
            let _permit = permit;
            let _share = share;
            tokio::pin!(conn);
            let closing = async move {
                // An error: the sender is gone, so is the server.
                let _ = closing_rx.wait_for(|c| *c).await;
            };
            let result = tokio::select! {
                r = conn.as_mut() => r,
                () = closing => {
                    conn.as_mut().graceful_shutdown();
                    conn.await
                }
            };
            if let Err(e) = result {
                // A client that went away or sent a broken or too slow request: its problem.
                tracing::debug!("connection from {peer} closed: {e}");
            }
        });
    }
    closing.send_replace(true);
    // Every connection holds a permit until it ends.
    let _ = tokio::time::timeout(SHUTDOWN_GRACE, open.acquire_many(max as u32)).await;
    Ok(())
}

/// How long the answer to a connection over its client's share may take to be written.
const REFUSE_TIME: Duration = Duration::from_secs(2);

/// Answers a connection over its client's share `429` (JSON, as the API's errors) without
/// reading its request, and closes it; `permit` (a place among every connection) is held
/// until then.
async fn refuse_over_share(
    stream: tokio::net::TcpStream,
    max: usize,
    permit: tokio::sync::OwnedSemaphorePermit,
) {
    use tokio::io::AsyncWriteExt as _;
    let body = serde_json::json!({
        "error": format!(
            "too many connections from your address: at most {max} at once; close some"
        ),
        "status": 429,
    })
    .to_string();
    let head = format!(
        "HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\n\
         content-length: {}\r\nretry-after: 5\r\nconnection: close\r\n\r\n",
        body.len()
    );
    let mut stream = Lingering::new(stream);
    let _ = tokio::time::timeout(REFUSE_TIME, async {
        stream.write_all(head.as_bytes()).await?;
        stream.write_all(body.as_bytes()).await?;
        stream.flush().await
    })
    .await;
    drop(stream);
    drop(permit);
}

/// How long a closed connection goes on reading (and dropping) what its client still sends.
pub const LINGER_TIME: Duration = Duration::from_secs(2);
/// How many bytes a closed connection reads (and drops) at most before it lets go.
pub const LINGER_BYTES: u64 = 16 * 1024 * 1024;

/// A client's TCP stream that, when the server is done with it, closes gracefully: it sends
/// its FIN, then reads and drops what the client still sends (at most [`LINGER_BYTES`] for
/// [`LINGER_TIME`]) before it lets go of the socket. A socket closed with unread data in it is
/// reset by the kernel instead, and the reset can destroy the last thing the server sent
/// before the client reads it: a WebSocket close frame `1009` for a message too big (the rest
/// of which is still on its way), or an error answered before a whole body arrived. Web
/// servers call this a lingering close.
pub struct Lingering {
    stream: Option<tokio::net::TcpStream>,
}

impl Lingering {
    /// Wraps a connection's stream.
    #[must_use]
    pub fn new(stream: tokio::net::TcpStream) -> Lingering {
        Lingering {
            stream: Some(stream),
        }
    }

    fn inner(self: Pin<&mut Self>) -> Pin<&mut tokio::net::TcpStream> {
        // The stream is only taken out in `drop`.
        Pin::new(
            self.get_mut()
                .stream
                .as_mut()
                .expect("the stream is there until dropped"),
        )
    }
}

impl Drop for Lingering {
    fn drop(&mut self) {
        let Some(mut stream) = self.stream.take() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        runtime.spawn(async move {
            use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
            let _ = tokio::time::timeout(LINGER_TIME, async {
                let _ = stream.shutdown().await;
                let mut buf = vec![0u8; 16 * 1024];
                let mut read = 0u64;
                while read < LINGER_BYTES {
                    match stream.read(&mut buf).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => read += n as u64,
                    }
                }
            })
            .await;
        });
    }
}

impl tokio::io::AsyncRead for Lingering {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        self.inner().poll_read(cx, buf)
    }
}

impl tokio::io::AsyncWrite for Lingering {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        self.inner().poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        self.inner().poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream
            .as_ref()
            .is_some_and(tokio::io::AsyncWrite::is_write_vectored)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        self.inner().poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        self.inner().poll_shutdown(cx)
    }
}

/// How a client reads in the log: its address, and the peer's when a proxy forwarded it
/// (`203.0.113.5 via 127.0.0.1`).
pub(crate) fn client_text(
    client: Option<std::net::IpAddr>,
    peer: Option<std::net::IpAddr>,
) -> String {
    match (client, peer) {
        (Some(c), Some(p)) if c != p.to_canonical() => format!("{c} via {p}"),
        (Some(c), _) => c.to_string(),
        (None, _) => "-".to_string(),
    }
}

/// Errors of one connection that `accept` reports and that say nothing about the listener.
fn is_connection_error(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::ConnectionRefused
            | std::io::ErrorKind::ConnectionAborted
            | std::io::ErrorKind::ConnectionReset
    )
}

/// A request body that fails once its time is up (counted from the request's head).
struct TimedBody {
    inner: Body,
    limit: Duration,
    deadline: Pin<Box<tokio::time::Sleep>>,
}

impl TimedBody {
    fn new(inner: Body, limit: Duration) -> TimedBody {
        TimedBody {
            inner,
            limit,
            deadline: Box::pin(tokio::time::sleep(limit)),
        }
    }
}

/// The error of a request body that did not arrive in time (see [`Limits::body_read_timeout`]);
/// a handler's body extractor turns it into a `408`.
#[derive(Debug)]
pub struct BodyTimeout(pub Duration);

impl std::fmt::Display for BodyTimeout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the request body did not arrive within {} s",
            self.0.as_secs_f64()
        )
    }
}

impl std::error::Error for BodyTimeout {}

impl HttpBody for TimedBody {
    type Data = Bytes;
    type Error = axum::BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, axum::BoxError>>> {
        if let Poll::Ready(frame) = Pin::new(&mut self.inner).poll_frame(cx) {
            return Poll::Ready(frame.map(|r| r.map_err(Into::into)));
        }
        if self.deadline.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Some(Err(Box::new(BodyTimeout(self.limit)))));
        }
        Poll::Pending
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}
