//! What connections cost and how they are shared: the memory of an idle WebSocket connection,
//! and the share of HTTP connections one client may hold.

mod common;

use std::time::Duration;

use common::TestServer;
use futures_util::StreamExt as _;
use serde_json::json;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

/// This process's resident memory, in KiB.
fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS in /proc/self/status")
}

#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_websocket_costs_a_few_kib_not_the_librarys_128_kib_buffer() {
    let limits = pussa_server::conn::Limits {
        max_websockets_per_client: 1000,
        ..pussa_server::conn::Limits::default()
    };
    let s = TestServer::start_with_limits("cap-wsmem", limits).await;
    let mut ids = Vec::new();
    for _ in 0..3 {
        let c = s
            .post(
                "/api/games",
                &json!({"game": "raja-pasu", "opponent": {"kind": "hotseat"}}),
            )
            .await
            .json();
        ids.push(c["id"].as_str().unwrap().to_string());
    }
    // The test's own client side reads with a small buffer too: what grows is the server's.
    let config = WebSocketConfig::default()
        .read_buffer_size(1024)
        .write_buffer_size(0);
    let open = |n: usize| {
        let ids = ids.clone();
        let addr = s.addr;
        async move {
            let mut sockets = Vec::new();
            for i in 0..n {
                let url = format!("ws://{addr}/api/games/{}/ws", ids[i % ids.len()]);
                let (mut ws, _) =
                    tokio_tungstenite::connect_async_with_config(url, Some(config), false)
                        .await
                        .expect("websocket connects");
                // The first state: the connection is served and idle from now on.
                let first = tokio::time::timeout(Duration::from_secs(10), ws.next())
                    .await
                    .expect("a first message");
                assert!(matches!(first, Some(Ok(_))), "{first:?}");
                sockets.push(ws);
            }
            sockets
        }
    };
    // Warm up (the runtime's and the allocator's own first costs), then measure.
    let warm = open(30).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let before = rss_kib();
    let n = 240;
    let sockets = open(n).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let after = rss_kib();
    let each = after.saturating_sub(before) / n as u64;
    assert!(
        each < 48,
        "{each} KiB of resident memory for each idle WebSocket connection (both ends)"
    );
    drop(sockets);
    drop(warm);
    s.stop().await;
}

/// A TCP connection to `addr` from the loopback address `from` (127.0.0.x).
async fn connect_from(from: &str, addr: std::net::SocketAddr) -> tokio::net::TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket
        .bind(format!("{from}:0").parse().unwrap())
        .expect("bind a loopback address");
    socket.connect(addr).await.expect("connect")
}

/// What the server sends on `stream` before it closes it, or within `wait`.
async fn read_for(stream: &mut tokio::net::TcpStream, wait: Duration) -> String {
    use tokio::io::AsyncReadExt as _;
    let mut buf = Vec::new();
    let _ = tokio::time::timeout(wait, stream.read_to_end(&mut buf)).await;
    String::from_utf8_lossy(&buf).into_owned()
}

#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_client_with_unfinished_requests_cannot_take_every_http_connection() {
    use tokio::io::AsyncWriteExt as _;
    let limits = pussa_server::conn::Limits {
        max_connections: 8,
        max_connections_per_client: 3,
        ..pussa_server::conn::Limits::default()
    };
    let s = TestServer::start_configured(common::temp_dir("cap-http"), |server| {
        server.set_limits(limits);
        server.set_proxies(pussa_server::client::Proxies::trust(
            vec!["127.0.0.4".parse().unwrap()],
            pussa_server::client::ProxyHeader::default(),
        ));
    })
    .await;
    // One client opens 12 connections, each with half a request head (a slowloris).
    let mut held = Vec::new();
    let mut refused = 0;
    for _ in 0..12 {
        let mut c = connect_from("127.0.0.2", s.addr).await;
        c.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n").await.unwrap();
        held.push(c);
    }
    for c in &mut held {
        let answer = read_for(c, Duration::from_millis(300)).await;
        if !answer.is_empty() {
            assert!(answer.starts_with("HTTP/1.1 429 "), "{answer}");
            assert!(
                answer.contains("too many connections from your address: at most 3 at once"),
                "{answer}"
            );
            refused += 1;
        }
    }
    assert_eq!(refused, 9, "the client keeps its 3 connections, no more");
    // Another client is served at once.
    let mut other = connect_from("127.0.0.3", s.addr).await;
    other
        .write_all(b"GET /api/meta HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let answer = read_for(&mut other, Duration::from_secs(5)).await;
    assert!(answer.starts_with("HTTP/1.1 200 "), "{answer:?}");
    // A trusted proxy carries every client's requests: its connections are not held to one
    // client's share (only to the server's cap).
    let mut via_proxy = Vec::new();
    for _ in 0..4 {
        let mut c = connect_from("127.0.0.4", s.addr).await;
        c.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n").await.unwrap();
        via_proxy.push(c);
    }
    for c in &mut via_proxy {
        assert_eq!(read_for(c, Duration::from_millis(200)).await, "");
    }
    drop(held);
    drop(via_proxy);
    s.stop().await;
}
