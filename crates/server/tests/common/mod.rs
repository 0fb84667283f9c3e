//! Test helpers: a real server on an ephemeral loopback port with its own SQLite file, and a
//! tiny HTTP/1.1 client over a raw `TcpStream`.
#![allow(dead_code)]

#[path = "process_dir.rs"]
mod tmp;
pub mod wsc;
use tmp::process_dir;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A fresh, empty directory of this test process ([`process_dir`]).
pub fn temp_dir(tag: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir =
        process_dir("server-test").join(format!("{tag}-{}", N.fetch_add(1, Ordering::Relaxed)));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

/// A running server; stops when dropped.
pub struct TestServer {
    pub addr: SocketAddr,
    pub app: std::sync::Arc<pussa_server::app::App>,
    pub dir: PathBuf,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    pub handle: Option<tokio::task::JoinHandle<()>>,
}

impl TestServer {
    /// Starts a server on 127.0.0.1:0 with a database in a new temp dir.
    pub async fn start(tag: &str) -> TestServer {
        let dir = temp_dir(tag);
        TestServer::start_in(dir).await
    }

    /// Starts a server on the database in `dir` (kept across restarts).
    pub async fn start_in(dir: PathBuf) -> TestServer {
        TestServer::start_with(dir, pussa_server::conn::Limits::default(), None).await
    }

    /// Starts a server on the database in `dir` whose players may claim a game once their
    /// friend has been away for `claim_after`.
    pub async fn start_with_claim_after(
        dir: PathBuf,
        claim_after: std::time::Duration,
    ) -> TestServer {
        TestServer::start_with(
            dir,
            pussa_server::conn::Limits::default(),
            Some(claim_after),
        )
        .await
    }

    /// Starts a server with these limits on slow clients, with a database in a new temp dir.
    pub async fn start_with_limits(tag: &str, limits: pussa_server::conn::Limits) -> TestServer {
        TestServer::start_with(temp_dir(tag), limits, None).await
    }

    async fn start_with(
        dir: PathBuf,
        limits: pussa_server::conn::Limits,
        claim_after: Option<std::time::Duration>,
    ) -> TestServer {
        TestServer::start_configured(dir, |server| {
            server.set_limits(limits);
            if let Some(after) = claim_after {
                server.set_claim_after(after);
            }
        })
        .await
    }

    /// Starts a server on the database in `dir`, set up by `configure` before it runs.
    pub async fn start_configured(
        dir: PathBuf,
        configure: impl FnOnce(&mut pussa_server::Server),
    ) -> TestServer {
        let config = pussa_server::Config {
            addr: "127.0.0.1:0".parse().unwrap(),
            db: dir.join("pussa.sqlite3"),
        };
        let mut server = pussa_server::Server::bind(&config).await.expect("bind");
        configure(&mut server);
        let app = server.app();
        let addr = server.local_addr();
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let handle = tokio::spawn(async move {
            server
                .run(async {
                    let _ = rx.await;
                })
                .await
                .expect("server run");
        });
        TestServer {
            addr,
            app,
            dir,
            stop: Some(tx),
            handle: Some(handle),
        }
    }

    /// Stops the server and waits for it.
    pub async fn stop(mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(h) = self.handle.take() {
            tokio::time::timeout(std::time::Duration::from_secs(10), h)
                .await
                .expect("server stops within 10 s")
                .expect("server task");
        }
    }

    pub async fn get(&self, path: &str) -> Resp {
        http(self.addr, "GET", path, None).await
    }

    pub async fn post(&self, path: &str, body: &Value) -> Resp {
        http(self.addr, "POST", path, Some(&body.to_string())).await
    }

    /// An online game of `game` with both seats taken: (id, South's token, North's token).
    pub async fn online_game(&self, game: &str) -> (String, String, String) {
        self.online_game_with(game, "single", "S").await
    }

    /// An online game of `game` in `mode` ("single" or "match") with `first` ("S" or "N") to
    /// move, created by South and joined by North: (id, South's token, North's token).
    pub async fn online_game_with(
        &self,
        game: &str,
        mode: &str,
        first: &str,
    ) -> (String, String, String) {
        let c = self
            .post(
                "/api/games",
                &serde_json::json!({"game": game, "mode": mode, "first": first, "opponent": {"kind": "online"}}),
            )
            .await;
        assert_eq!(c.status, 201, "{}", c.body);
        let c = c.json();
        let id = c["id"].as_str().unwrap().to_string();
        let j = self
            .post(
                &format!("/api/games/{id}/join"),
                &serde_json::json!({"invite": c["invite"]["token"]}),
            )
            .await;
        assert_eq!(j.status, 200, "{}", j.body);
        (
            id,
            c["token"].as_str().unwrap().to_string(),
            j.json()["token"].as_str().unwrap().to_string(),
        )
    }

    pub async fn post_raw(&self, path: &str, body: &str) -> Resp {
        http(self.addr, "POST", path, Some(body)).await
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
    }
}

/// An HTTP answer.
#[derive(Debug)]
pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Resp {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Asserts the status and that the body is a JSON error naming `needle`.
    pub fn assert_error(&self, status: u16, needle: &str) {
        assert_eq!(
            self.status, status,
            "expected {status}, got {}: {}",
            self.status, self.body
        );
        let v = self.json();
        let msg = v["error"]
            .as_str()
            .unwrap_or_else(|| panic!("no error field: {}", self.body));
        assert!(
            msg.contains(needle),
            "error {msg:?} does not mention {needle:?}"
        );
        assert_eq!(v["status"], status);
    }
}

/// Sends raw bytes and reads the whole answer (the request must ask the server to close).
pub async fn raw(addr: SocketAddr, request: &[u8]) -> Resp {
    let mut s = TcpStream::connect(addr).await.expect("connect");
    s.write_all(request).await.expect("write");
    let mut buf = Vec::new();
    tokio::time::timeout(std::time::Duration::from_secs(30), s.read_to_end(&mut buf))
        .await
        .expect("answer within 30 s")
        .expect("read");
    parse(&buf)
}

/// One HTTP/1.1 request with `Connection: close`.
pub async fn http(addr: SocketAddr, method: &str, path: &str, body: Option<&str>) -> Resp {
    let mut req = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    if let Some(b) = body {
        req.push_str(&format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n",
            b.len()
        ));
    }
    req.push_str("\r\n");
    if let Some(b) = body {
        req.push_str(b);
    }
    raw(addr, req.as_bytes()).await
}

fn parse(buf: &[u8]) -> Resp {
    let text = String::from_utf8_lossy(buf);
    let (head, body) = text
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("no header end: {text:?}"));
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap();
    let status: u16 = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("status");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let chunked = headers
        .iter()
        .any(|(k, v)| k == "transfer-encoding" && v.contains("chunked"));
    let body = if chunked {
        dechunk(body)
    } else {
        body.to_string()
    };
    Resp {
        status,
        headers,
        body,
    }
}

fn dechunk(mut s: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = s.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 {
            break;
        }
        out.push_str(&rest[..n]);
        s = &rest[n + 2..];
    }
    out
}

/// Letters of a JSON array of strings.
pub fn letters(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

/// Replays a state's move list through the rules and checks board, stores and legal moves.
pub fn assert_matches_rules(state: &Value) {
    use pussa_rules::{Game, GameState, Hole, Mode, Side};
    let game: Game = state["game"].as_str().unwrap().parse().unwrap();
    let mode = if state["mode"] == "match" {
        Mode::Match
    } else {
        Mode::Single
    };
    let first = Side::parse(state["first"].as_str().unwrap()).unwrap();
    let mut g = GameState::new(game, mode, first);
    for m in state["moves"].as_array().unwrap() {
        let h: Hole = m["move"].as_str().unwrap().parse().unwrap();
        assert_eq!(
            Some(Side::parse(m["side"].as_str().unwrap()).unwrap()),
            g.to_move(),
            "side of {m}"
        );
        g.play(h)
            .unwrap_or_else(|e| panic!("stored move {m} does not replay: {e}"));
        while g.next_round() {}
    }
    let pos = g.position();
    assert_eq!(state["board"], serde_json::json!(pos.board()), "board");
    assert_eq!(state["stores"], serde_json::json!(pos.stores()), "stores");
    let legal: Vec<String> = g
        .legal_moves()
        .into_iter()
        .map(|h| h.letter().to_string())
        .collect();
    assert_eq!(letters(&state["legal"]), legal, "legal moves");
    assert_eq!(state["match_over"], g.is_over());
    assert_eq!(state["ply"], state["moves"].as_array().unwrap().len());
}

/// A legal Raja Pasu match record of random moves, at most `plies` long.
pub fn random_record(plies: usize, seed: u64) -> (String, usize) {
    let mut rec = pussa_rules::record::Record::new(
        pussa_rules::Game::RajaPasu,
        pussa_rules::Mode::Match,
        pussa_rules::Side::South,
    );
    let mut rng = seed;
    let mut n = 0;
    while n < plies && !rec.state().is_over() {
        let mut next = rec.state().clone();
        if next.is_round_over() {
            next.next_round();
        }
        let legal: Vec<_> = next.legal_moves().into_iter().collect();
        rng = rng
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        rec.push(legal[(rng >> 33) as usize % legal.len()]).unwrap();
        n += 1;
    }
    (rec.to_string(), n)
}

/// Imports a record: its id.
pub async fn import(s: &TestServer, record: &str) -> String {
    let r = s
        .post(
            "/api/games/import",
            &serde_json::json!({ "record": record }),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.body);
    r.json()["id"].as_str().unwrap().to_string()
}
