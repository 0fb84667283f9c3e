//! Clients as the per-client limits see them: the caps on WebSocket connections (over the
//! server and per client address), a trusted reverse proxy's forwarded address, and IPv6
//! clients counted by their /64.

mod common;

use std::net::SocketAddr;

use common::TestServer;
use pussa_server::client::{Proxies, ProxyHeader};
use pussa_server::conn::Limits;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpSocket;

type Ws = tokio_tungstenite::WebSocketStream<tokio::net::TcpStream>;

/// A TCP connection to `addr` from the loopback address `from` (any 127.x.y.z is ours).
async fn connect_from(addr: SocketAddr, from: &str) -> tokio::net::TcpStream {
    let sock = TcpSocket::new_v4().unwrap();
    sock.bind(SocketAddr::new(from.parse().unwrap(), 0))
        .unwrap();
    sock.connect(addr).await.expect("connect")
}

/// A game's WebSocket from `from`, or the refusal's status and body.
async fn ws_from(addr: SocketAddr, from: &str, path: &str) -> Result<Ws, (u16, String)> {
    let stream = connect_from(addr, from).await;
    match tokio_tungstenite::client_async(format!("ws://{addr}{path}"), stream).await {
        Ok((ws, _)) => Ok(ws),
        Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => Err((
            resp.status().as_u16(),
            String::from_utf8_lossy(resp.body().as_deref().unwrap_or_default()).into_owned(),
        )),
        Err(e) => panic!("websocket to {path}: {e}"),
    }
}

/// One request from `from` with extra header lines; (status, body).
async fn http_from(
    addr: SocketAddr,
    from: &str,
    method: &str,
    path: &str,
    headers: &str,
    body: &Value,
) -> (u16, String) {
    let mut s = connect_from(addr, from).await;
    let body = body.to_string();
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{headers}Content-Type: \
         application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut buf = String::new();
    s.read_to_string(&mut buf).await.unwrap();
    let (head, body) = buf.split_once("\r\n\r\n").expect("header end");
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, body.to_string())
}

/// A new hot-seat Raja Pasu game asked for from `from` with one extra header line (without its
/// line end); (status, body).
async fn new_game_from(addr: SocketAddr, from: &str, header: String) -> (u16, String) {
    let game = json!({"game": "raja-pasu", "opponent": {"kind": "hotseat"}});
    http_from(
        addr,
        from,
        "POST",
        "/api/games",
        &format!("{header}\r\n"),
        &game,
    )
    .await
}

async fn hotseat_game(s: &TestServer) -> String {
    let r = s
        .post(
            "/api/games",
            &json!({"game": "raja-pasu", "opponent": {"kind": "hotseat"}}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.body);
    r.json()["id"].as_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_cannot_take_every_websocket_and_others_are_still_served() {
    let s = TestServer::start_with_limits(
        "ws-caps",
        Limits {
            max_websockets: 8,
            max_websockets_per_client: 3,
            ..Limits::default()
        },
    )
    .await;
    let (a, b) = (hotseat_game(&s).await, hotseat_game(&s).await);
    // One address: three connections over two games, then no more, in any game.
    let mut held = Vec::new();
    for id in [&a, &b, &a] {
        held.push(
            ws_from(s.addr, "127.0.0.2", &format!("/api/games/{id}/ws"))
                .await
                .unwrap(),
        );
    }
    let (status, body) = ws_from(s.addr, "127.0.0.2", &format!("/api/games/{b}/ws"))
        .await
        .expect_err("a fourth connection from the address is refused");
    assert_eq!(status, 429, "{body}");
    assert!(
        body.contains("too many WebSocket connections from your address: at most 3"),
        "{body}"
    );
    // Others connect, load the page and play.
    let _other = ws_from(s.addr, "127.0.0.3", &format!("/api/games/{a}/ws"))
        .await
        .unwrap();
    assert_eq!(s.get("/").await.status, 200);
    assert_eq!(s.get("/api/meta").await.status, 200);
    // A connection that ends gives its place back.
    drop(held.pop());
    let t0 = std::time::Instant::now();
    loop {
        match ws_from(s.addr, "127.0.0.2", &format!("/api/games/{b}/ws")).await {
            Ok(ws) => {
                held.push(ws);
                break;
            }
            Err((429, _)) if t0.elapsed() < std::time::Duration::from_secs(30) => {
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
            Err(e) => panic!("the place was not given back: {e:?}"),
        }
    }
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_servers_websocket_cap_refuses_watchers_first_and_keeps_places_for_players() {
    let s = TestServer::start_with_limits(
        "ws-total",
        Limits {
            max_websockets: 8,
            max_websockets_per_client: 2,
            ..Limits::default()
        },
    )
    .await;
    let (id, south, _north) = s.online_game("raja-pasu").await;
    let path = format!("/api/games/{id}/ws");
    // Seven watchers from four addresses: seven eighths of the cap.
    let mut held = Vec::new();
    for from in [
        "127.0.0.2",
        "127.0.0.2",
        "127.0.0.3",
        "127.0.0.3",
        "127.0.0.4",
        "127.0.0.4",
        "127.0.0.5",
    ] {
        held.push(ws_from(s.addr, from, &path).await.unwrap());
    }
    let (status, body) = ws_from(s.addr, "127.0.0.6", &path)
        .await
        .expect_err("a watcher past seven eighths is refused");
    assert_eq!(status, 503, "{body}");
    assert!(
        body.contains("the server has too many WebSocket connections open (7 of 8; the last 1 are kept for players)"),
        "{body}"
    );
    // The player gets the place kept for players ...
    let player = ws_from(s.addr, "127.0.0.6", &format!("{path}?token={south}")).await;
    assert!(player.is_ok(), "{:?}", player.err());
    // ... and at the cap nobody else.
    let (status, _) = ws_from(s.addr, "127.0.0.7", &format!("{path}?token={south}"))
        .await
        .expect_err("at the cap even a player is refused");
    assert_eq!(status, 503);
    // HTTP is still served.
    assert_eq!(s.get(&format!("/api/games/{id}")).await.status, 200);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_a_trusted_proxy_each_forwarded_client_has_its_own_allowance() {
    let s = TestServer::start_configured(common::temp_dir("proxy"), |server| {
        server.set_new_games_per_minute(2);
        server.set_proxies(Proxies::trust(
            Proxies::parse_list("127.0.0.9").unwrap(),
            ProxyHeader::XForwardedFor,
        ));
    })
    .await;
    let via_proxy =
        |client: &str| new_game_from(s.addr, "127.0.0.9", format!("X-Forwarded-For: {client}"));
    // Member A's allowance is used up ...
    assert_eq!(via_proxy("203.0.113.1").await.0, 201);
    assert_eq!(via_proxy("203.0.113.1").await.0, 201);
    let (status, body) = via_proxy("203.0.113.1").await;
    assert_eq!(status, 429, "{body}");
    assert!(
        body.contains("too many new games from your address"),
        "{body}"
    );
    // ... member B, through the same proxy, still has theirs; a forged address the client
    // wrote left of the proxy's is not believed.
    assert_eq!(via_proxy("203.0.113.2").await.0, 201);
    assert_eq!(via_proxy("198.51.100.7, 203.0.113.1").await.0, 429);
    // A client that is not the proxy cannot choose its address with the header.
    let direct = |xff: &str| {
        let r = new_game_from(s.addr, "127.0.0.10", format!("X-Forwarded-For: {xff}"));
        async move { r.await.0 }
    };
    assert_eq!(direct("203.0.113.50").await, 201);
    assert_eq!(direct("203.0.113.51").await, 201);
    assert_eq!(direct("203.0.113.52").await, 429);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_addresses_of_one_ipv6_64_share_one_allowance_and_one_websocket_share() {
    let s = TestServer::start_configured(common::temp_dir("v6"), |server| {
        server.set_new_games_per_minute(3);
        server.set_limits(Limits {
            max_websockets_per_client: 2,
            ..Limits::default()
        });
        server.set_proxies(Proxies::trust(
            Proxies::parse_list("127.0.0.9").unwrap(),
            ProxyHeader::Forwarded,
        ));
    })
    .await;
    let make = |client: &str| {
        new_game_from(
            s.addr,
            "127.0.0.9",
            format!("Forwarded: for=\"[{client}]:4711\""),
        )
    };
    let mut ids = Vec::new();
    for client in ["2001:db8::1", "2001:db8::2", "2001:db8::28"] {
        let (status, body) = make(client).await;
        assert_eq!(status, 201, "{body}");
        ids.push(
            serde_json::from_str::<Value>(&body).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    let (status, body) = make("2001:db8::ffff:1").await;
    assert_eq!(status, 429, "another address of the same /64: {body}");
    // Another /64 is another client.
    assert_eq!(make("2001:db8:0:1::1").await.0, 201);
    // WebSockets alike.
    let ws = |client: &'static str, id: String| {
        let addr = s.addr;
        async move {
            let mut stream = connect_from(addr, "127.0.0.9").await;
            let req = format!(
                "GET /api/games/{id}/ws HTTP/1.1\r\nHost: {addr}\r\nConnection: Upgrade\r\n\
                 Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: \
                 dGhlIHNhbXBsZSBub25jZQ==\r\nForwarded: for=\"[{client}]\"\r\n\r\n"
            );
            stream.write_all(req.as_bytes()).await.unwrap();
            let mut buf = [0u8; 12];
            stream.read_exact(&mut buf).await.unwrap();
            let status: u16 = String::from_utf8_lossy(&buf[9..12]).parse().unwrap();
            (status, stream)
        }
    };
    let (a, _ka) = ws("2001:db8::1", ids[0].clone()).await;
    let (b, _kb) = ws("2001:db8::2", ids[1].clone()).await;
    let (c, _kc) = ws("2001:db8::3", ids[2].clone()).await;
    let (d, _kd) = ws("2001:db8:0:1::3", ids[2].clone()).await;
    assert_eq!((a, b, c, d), (101, 101, 429, 101));
    s.stop().await;
}

#[test]
fn the_connection_caps_fit_in_the_open_files_limit() {
    for files in [256u64, 1024, 4096, 20_000, 1 << 20] {
        let l = Limits::for_open_files(files);
        let used = (l.max_connections + l.max_websockets) as u64;
        assert!(
            used + pussa_server::conn::RESERVED_FILES <= files,
            "{files} files: {l:?}"
        );
        assert!(l.max_websockets_per_client < l.max_websockets, "{l:?}");
        // One client cannot take every HTTP connection, and has what a browser opens.
        assert!(
            l.max_connections_per_client < l.max_connections,
            "{files} files: {l:?}"
        );
        assert!(l.max_connections_per_client >= 8, "{files} files: {l:?}");
        assert!(l.max_connections <= Limits::default().max_connections);
    }
    let l = Limits::for_open_files(1024);
    assert_eq!((l.max_connections, l.max_websockets), (240, 480));
    assert_eq!(l.max_connections_per_client, 60);
    assert_eq!(Limits::for_open_files(1 << 20), Limits::default());
}
