//! Secrets out of URLs, framing, the WebSocket's Origin and the database's file modes (QA pass
//! 18, security report: defects 3, 5, 6 and 7).

mod common;

use common::wsc::{next_of, Ws};
use common::TestServer;
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::client::IntoClientRequest as _;
use tokio_tungstenite::tungstenite::http::HeaderValue;

/// A WebSocket handshake to game `id` with `headers` (name, value) added: the socket and the
/// answer's `Sec-WebSocket-Protocol`.
async fn ws_with(s: &TestServer, id: &str, headers: &[(&str, &str)]) -> (Ws, Option<String>) {
    let mut req = format!("ws://{}/api/games/{id}/ws", s.addr)
        .into_client_request()
        .unwrap();
    for (name, value) in headers {
        req.headers_mut().insert(
            tokio_tungstenite::tungstenite::http::HeaderName::from_bytes(name.as_bytes()).unwrap(),
            HeaderValue::from_str(value).unwrap(),
        );
    }
    let (ws, resp) = tokio_tungstenite::connect_async(req)
        .await
        .unwrap_or_else(|e| panic!("websocket with {headers:?} connects: {e}"));
    let protocol = resp
        .headers()
        .get("sec-websocket-protocol")
        .map(|v| v.to_str().unwrap().to_string());
    (ws, protocol)
}

/// A raw WebSocket handshake to game `id` with `extra` header lines: the answer (the server
/// refuses it, or the test reads only its head).
async fn handshake(s: &TestServer, id: &str, extra: &str) -> common::Resp {
    let req = format!(
        "GET /api/games/{id}/ws HTTP/1.1\r\nHost: {}\r\nConnection: Upgrade, close\r\n\
         Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n{extra}\r\n",
        s.addr
    );
    common::raw(s.addr, req.as_bytes()).await
}

/// The status of a WebSocket handshake with `extra` header lines (a 101 is not read further).
async fn handshake_status(s: &TestServer, id: &str, extra: &str) -> u16 {
    handshake_status_host(s, id, &s.addr.to_string(), extra).await
}

/// The status of a WebSocket handshake with this `Host` and `extra` header lines.
async fn handshake_status_host(s: &TestServer, id: &str, host: &str, extra: &str) -> u16 {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let req = format!(
        "GET /api/games/{id}/ws HTTP/1.1\r\nHost: {host}\r\nConnection: Upgrade\r\n\
         Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n{extra}\r\n"
    );
    let mut c = tokio::net::TcpStream::connect(s.addr).await.unwrap();
    c.write_all(req.as_bytes()).await.unwrap();
    let mut buf = [0u8; 12];
    tokio::time::timeout(std::time::Duration::from_secs(10), c.read_exact(&mut buf))
        .await
        .expect("an answer within 10 s")
        .unwrap();
    String::from_utf8_lossy(&buf[9..12]).parse().unwrap()
}

/// Defect 3: the page's WebSocket says whose it is in `Sec-WebSocket-Protocol`, not in its URL:
/// the server answers `pussa` (never echoing the token), seats the connection from the start and
/// keeps a place for it when strangers hold every watcher's place.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_token_in_the_websocket_subprotocol_holds_the_seat_from_the_start() {
    let s = TestServer::start("sec-subprotocol").await;
    let (id, south, _north) = s.online_game("raja-pasu").await;
    // Every watcher's place taken by strangers.
    let mut watchers = Vec::new();
    for _ in 0..pussa_server::ws::MAX_WATCHERS {
        watchers.push(common::wsc::connect(s.addr, &id).await);
    }
    assert_eq!(handshake(&s, &id, "").await.status, 429);
    let offer = format!("pussa, pussa.token.{south}");
    let (mut ws, protocol) = ws_with(&s, &id, &[("Sec-WebSocket-Protocol", &offer)]).await;
    assert_eq!(
        protocol.as_deref(),
        Some("pussa"),
        "the token is never sent back"
    );
    let presence = next_of(&mut ws, "presence").await;
    assert_eq!(presence["present"]["S"], true, "{presence}");
    assert_eq!(
        presence["watchers"],
        pussa_server::ws::MAX_WATCHERS,
        "not counted as a watcher: {presence}"
    );
    drop(watchers);

    // A token that holds no seat is refused as in the query; a token without the protocol it
    // is answered with, or given twice, says what to send.
    handshake(
        &s,
        &id,
        "Sec-WebSocket-Protocol: pussa, pussa.token.nope\r\n",
    )
    .await
    .assert_error(403, "this token holds no seat");
    handshake(
        &s,
        &id,
        &format!("Sec-WebSocket-Protocol: pussa.token.{south}\r\n"),
    )
    .await
    .assert_error(400, "needs the subprotocol 'pussa' offered with it");
    let req = format!(
        "GET /api/games/{id}/ws?token={south} HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, \
         close\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: \
         dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Protocol: pussa, pussa.token.{south}\r\n\r\n"
    );
    common::raw(s.addr, req.as_bytes())
        .await
        .assert_error(400, "the seat's token is given twice");
    s.stop().await;
}

/// Defect 3: a hint is asked with the token in a POST body, as every other seat's request;
/// the older `GET …/hint?token=` still answers (for the clients written against it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hint_takes_the_token_in_a_post_body() {
    let s = TestServer::start("sec-hint").await;
    let c = s
        .post(
            "/api/games",
            &json!({"game": "walak-pussa", "opponent": {"kind": "hotseat"}}),
        )
        .await
        .json();
    let id = c["id"].as_str().unwrap();
    let token = c["token"].as_str().unwrap();
    let h = s
        .post(&format!("/api/games/{id}/hint"), &json!({"token": token}))
        .await;
    assert_eq!(h.status, 200, "{}", h.body);
    let legal: Vec<String> = common::letters(&c["state"]["legal"]);
    assert!(legal.contains(&h.json()["move"].as_str().unwrap().to_string()));
    s.post(&format!("/api/games/{id}/hint"), &json!({"token": "nope"}))
        .await
        .assert_error(403, "holds no seat");
    let old = s.get(&format!("/api/games/{id}/hint?token={token}")).await;
    assert_eq!(old.status, 200, "{}", old.body);
    s.get(&format!("/api/games/{id}/hint"))
        .await
        .assert_error(403, "POST {\"token\": …} to this path");
    s.stop().await;
}

/// Defect 3: the invite link carries the invite in its fragment, which browsers never send.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_invite_link_carries_the_invite_in_its_fragment() {
    let s = TestServer::start("sec-invite").await;
    let c = s
        .post(
            "/api/games",
            &json!({"game": "raja-pasu", "opponent": {"kind": "online"}}),
        )
        .await
        .json();
    let (id, invite) = (c["id"].as_str().unwrap(), &c["invite"]);
    assert_eq!(
        invite["url"],
        format!("/?game={id}#invite={}", invite["token"].as_str().unwrap())
    );
    s.stop().await;
}

/// Defect 5: the page may not be framed by another page.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_refuses_to_be_framed_and_sends_no_referrer() {
    let s = TestServer::start("sec-frame").await;
    for path in ["/", "/index.html", "/?game=abc&invite=def"] {
        let r = s.get(path).await;
        assert_eq!(r.status, 200);
        let csp = r.header("content-security-policy").unwrap_or_default();
        assert!(csp.contains("frame-ancestors 'none'"), "{path}: {csp}");
        assert!(csp.contains("default-src 'self'"), "{path}: {csp}");
        assert_eq!(r.header("x-frame-options"), Some("DENY"), "{path}");
        assert_eq!(r.header("referrer-policy"), Some("no-referrer"), "{path}");
    }
    // The page never frames itself.
    for (path, bytes) in pussa_server::assets::ASSETS {
        let text = String::from_utf8_lossy(bytes).to_ascii_lowercase();
        assert!(!text.contains("<iframe"), "{path} has an iframe");
    }
    s.stop().await;
}

/// Defect 6: a browser's upgrade from a page of another site is refused; the page's own
/// origin (the Host, or the host a proxy forwards) and clients without an Origin are served.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_websocket_from_another_origin_is_refused() {
    let s = TestServer::start("sec-origin").await;
    let (id, _, _) = s.online_game("raja-pasu").await;
    for origin in [
        "http://evil.example",
        "null",
        "http://127.0.0.1:1",
        "https://evil/x",
    ] {
        let r = handshake(&s, &id, &format!("Origin: {origin}\r\n")).await;
        r.assert_error(403, "WebSocket refused: its Origin");
        r.assert_error(403, &format!("'{origin}' is not this server's"));
    }
    let own = format!("http://{}", s.addr);
    let ok = [
        String::new(),
        format!("Origin: {own}\r\n"),
        format!("Origin: {}\r\n", own.to_uppercase().replace("HTTP", "http")),
    ];
    for extra in &ok {
        assert_eq!(handshake_status(&s, &id, extra).await, 101, "{extra:?}");
    }
    s.stop().await;
}

/// The raw handshake of `handshake` with its own `Host` line (`host`) and `extra` lines.
async fn handshake_host(s: &TestServer, id: &str, host: &str, extra: &str) -> common::Resp {
    let req = format!(
        "GET /api/games/{id}/ws HTTP/1.1\r\nHost: {host}\r\nConnection: Upgrade, close\r\n\
         Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n{extra}\r\n"
    );
    common::raw(s.addr, req.as_bytes()).await
}

/// QA pass 18, second security report, defect 1: behind a proxy that passes on the host name
/// without its port (nginx's `$host`, on a port other than 80/443), the page's own origin is
/// served; a Host with a port still needs that port, and another host is refused with advice
/// that keeps the port (`$http_host`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_without_its_port_matches_the_origin_on_any_port() {
    let s = TestServer::start("sec-origin-port").await;
    let (id, _, _) = s.online_game("raja-pasu").await;
    for (host, origin) in [
        ("club.example.org", "http://club.example.org:8080"),
        ("Club.Example.org", "https://club.example.org:8443"),
        ("club.example.org", "https://club.example.org"),
        ("127.0.0.1", "http://127.0.0.1:18485"),
        ("[::1]", "http://[::1]:8080"),
        ("club.example.org:80", "http://club.example.org"),
        ("[::1]:8080", "http://[::1]:8080"),
    ] {
        let status = handshake_status_host(&s, &id, host, &format!("Origin: {origin}\r\n")).await;
        assert_eq!(status, 101, "Host {host}, Origin {origin}");
    }
    for (host, origin) in [
        ("club.example.org:8080", "http://club.example.org:8081"),
        ("club.example.org:80", "https://club.example.org"),
        ("club.example.org", "http://evil.example:8080"),
        ("club.example.org", "http://club.example.org.evil:8080"),
        ("[::1]", "http://[::2]:8080"),
    ] {
        let r = handshake_host(&s, &id, host, &format!("Origin: {origin}\r\n")).await;
        r.assert_error(403, &format!("its Origin '{origin}' is not this server's"));
        r.assert_error(403, "nginx proxy_set_header Host $http_host");
        assert!(!r.body.contains("$host)"), "{}", r.body);
    }
    s.stop().await;
}

/// QA pass 18, second security report, defect 4: the host a proxy forwards
/// (`X-Forwarded-Host`, `Forwarded: host=`) is read only from a trusted proxy
/// (`--trust-proxy`), as every forwarded header.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forwarded_host_counts_only_from_a_trusted_proxy() {
    let forwarded = [
        "Origin: https://club.example.org\r\nX-Forwarded-Host: club.example.org\r\n",
        "Origin: https://club.example.org\r\nForwarded: for=1.2.3.4;host=\"club.example.org:443\"\r\n",
        "Origin: http://evil.example\r\nX-Forwarded-Host: evil.example\r\n",
    ];
    // Not trusted: only the Host (127.0.0.1:PORT) names the server.
    let s = TestServer::start("sec-xfh-untrusted").await;
    let (id, _, _) = s.online_game("raja-pasu").await;
    for extra in forwarded {
        handshake(&s, &id, extra)
            .await
            .assert_error(403, "WebSocket refused: its Origin");
    }
    s.stop().await;
    // The test's own address trusted as the proxy: the forwarded host is believed.
    let s = TestServer::start_configured(common::temp_dir("sec-xfh-trusted"), |server| {
        server.set_proxies(pussa_server::client::Proxies::trust(
            vec!["127.0.0.1".parse().unwrap()],
            pussa_server::client::ProxyHeader::default(),
        ));
    })
    .await;
    let (id, _, _) = s.online_game("raja-pasu").await;
    for extra in forwarded {
        assert_eq!(handshake_status(&s, &id, extra).await, 101, "{extra:?}");
    }
    // A forwarded host names the server only for the origin it names.
    handshake(
        &s,
        &id,
        "Origin: https://evil.example\r\nX-Forwarded-Host: club.example.org\r\n",
    )
    .await
    .assert_error(403, "WebSocket refused");
    s.stop().await;
}

/// Defect 7: the database, its `-wal` and `-shm` files, its lock file and a data directory the
/// server makes are its owner's only, whatever the umask; an existing file keeps its mode.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_database_files_are_created_readable_by_their_owner_only() {
    use std::os::unix::fs::PermissionsExt as _;
    let mode = |p: &std::path::Path| {
        std::fs::metadata(p)
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
            .permissions()
            .mode()
            & 0o777
    };
    // SAFETY: umask only sets this process's file creation mask (the usual 022 here).
    let old = unsafe { libc::umask(0o022) };
    let base = common::temp_dir("sec-modes");
    let dir = base.join("data");
    let s = TestServer::start_in(dir.clone()).await;
    let (id, south, _) = s.online_game("raja-pasu").await;
    let st: Value = s.get(&format!("/api/games/{id}")).await.json();
    let mv = st["legal"][0].as_str().unwrap();
    let r = s
        .post(
            &format!("/api/games/{id}/moves"),
            &json!({"move": mv, "token": south}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    for name in [
        "pussa.sqlite3",
        "pussa.sqlite3-wal",
        "pussa.sqlite3-shm",
        "pussa.sqlite3.lock",
    ] {
        assert_eq!(mode(&dir.join(name)), 0o600, "{name}");
    }
    s.stop().await;

    // A database that exists keeps its mode (the admin's choice), and so does its directory.
    let kept = base.join("kept");
    std::fs::create_dir_all(&kept).unwrap();
    std::fs::set_permissions(&kept, std::fs::Permissions::from_mode(0o750)).unwrap();
    std::fs::copy(dir.join("pussa.sqlite3"), kept.join("pussa.sqlite3")).unwrap();
    std::fs::set_permissions(
        kept.join("pussa.sqlite3"),
        std::fs::Permissions::from_mode(0o640),
    )
    .unwrap();
    let s = TestServer::start_in(kept.clone()).await;
    assert_eq!(s.get(&format!("/api/games/{id}")).await.status, 200);
    assert_eq!(mode(&kept.join("pussa.sqlite3")), 0o640);
    assert_eq!(mode(&kept), 0o750);
    s.stop().await;

    // A data directory the server makes (`--data DIR` that does not exist) is 0700.
    let made = base.join("new").join("data");
    let config = pussa_server::Config {
        addr: "127.0.0.1:0".parse().unwrap(),
        db: made.join("pussa.sqlite3"),
    };
    drop(pussa_server::Server::bind(&config).await.expect("bind"));
    assert_eq!(mode(&made), 0o700);
    assert_eq!(mode(&base.join("new")), 0o700);
    assert_eq!(mode(&made.join("pussa.sqlite3")), 0o600);
    // SAFETY: as above.
    unsafe { libc::umask(old) };
}
