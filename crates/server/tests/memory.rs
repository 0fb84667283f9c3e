//! The caps on the games held in memory under use: one client's WebSockets hold at most its
//! share of them, a game played over a WebSocket is dropped after those merely looked at,
//! moves played count against the cap, games made at once stay within it, a refused game uses
//! none of the client's new games, and a positions request waiting for a busy game holds no
//! replay permit.

mod common;

use std::net::SocketAddr;

use common::{import, random_record, TestServer};
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
async fn ws_from(addr: SocketAddr, from: &str, id: &str) -> Result<Ws, (u16, String)> {
    ws_seated_from(addr, from, id, None).await
}

/// A game's WebSocket from `from`, seated with `token` (in its subprotocols, as the page
/// sends it) when given, or the refusal's status and body.
async fn ws_seated_from(
    addr: SocketAddr,
    from: &str,
    id: &str,
    token: Option<&str>,
) -> Result<Ws, (u16, String)> {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let stream = connect_from(addr, from).await;
    let mut req = format!("ws://{addr}/api/games/{id}/ws")
        .into_client_request()
        .unwrap();
    if let Some(token) = token {
        req.headers_mut().insert(
            "Sec-WebSocket-Protocol",
            format!("pussa, pussa.token.{token}").parse().unwrap(),
        );
    }
    match tokio_tungstenite::client_async(req, stream).await {
        Ok((ws, _)) => Ok(ws),
        Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => Err((
            resp.status().as_u16(),
            String::from_utf8_lossy(resp.body().as_deref().unwrap_or_default()).into_owned(),
        )),
        Err(e) => panic!("websocket to {id}: {e}"),
    }
}

/// A `POST` from `from`; (status, body).
async fn post_from(addr: SocketAddr, from: &str, path: &str, body: &Value) -> (u16, String) {
    let mut s = connect_from(addr, from).await;
    let body = body.to_string();
    let req = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: \
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

fn hotseat_req() -> Value {
    json!({"game": "raja-pasu", "mode": "match", "opponent": {"kind": "hotseat"}})
}

/// A hot-seat Raja Pasu match: (id, token).
async fn hotseat(s: &TestServer) -> (String, String) {
    let r = s.post("/api/games", &hotseat_req()).await;
    assert_eq!(r.status, 201, "{}", r.body);
    let v = r.json();
    (
        v["id"].as_str().unwrap().to_string(),
        v["token"].as_str().unwrap().to_string(),
    )
}

/// Plays `n` moves (the first legal one each time) in a hot-seat game.
async fn play(s: &TestServer, id: &str, token: &str, n: usize) {
    let mut state = s.get(&format!("/api/games/{id}")).await.json();
    for _ in 0..n {
        let mv = state["legal"][0]
            .as_str()
            .expect("a legal move")
            .to_string();
        let r = s
            .post(
                &format!("/api/games/{id}/moves"),
                &json!({"token": token, "move": mv}),
            )
            .await;
        assert_eq!(r.status, 200, "{}", r.body);
        state = r.json()["state"].clone();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_clients_websockets_hold_at_most_an_eighth_of_memory_and_others_still_play() {
    let s = TestServer::start("pin-share").await;
    // An eighth of 16 games: 2 games for one client's sockets.
    s.app.set_memory_caps(16, 1_000_000);
    let mut games = Vec::new();
    for _ in 0..16 {
        games.push(hotseat(&s).await.0);
    }
    // The tester's attack, scaled down: one address watches every game it can.
    let mut held = Vec::new();
    let mut refused = None;
    for id in &games {
        match ws_from(s.addr, "127.0.0.2", id).await {
            Ok(ws) => held.push(ws),
            Err(e) => {
                refused = Some(e);
                break;
            }
        }
    }
    assert_eq!(held.len(), 2, "two games watched from one address");
    let (status, body) = refused.expect("a third game is refused");
    assert_eq!(status, 429, "{body}");
    assert!(
        body.contains(
            "your address's WebSockets hold as many games in memory as one client may: at most \
             2 games"
        ),
        "{body}"
    );
    // More connections to a game it holds already are taken.
    held.push(ws_from(s.addr, "127.0.0.2", &games[0]).await.unwrap());
    // Every other client still makes games and loads stored ones.
    for from in ["127.0.0.3", "127.0.0.4"] {
        let (status, body) = post_from(s.addr, from, "/api/games", &hotseat_req()).await;
        assert_eq!(status, 201, "{body}");
    }
    assert_eq!(
        s.get(&format!("/api/games/{}", games[10])).await.status,
        200
    );
    // The moves held count too: an eighth of 80 moves is 10. One game is always allowed,
    // however long; a second one would take the client over its share.
    s.app.set_memory_caps(16, 80);
    let (record, n) = random_record(20, 5);
    assert_eq!(n, 20);
    let long = import(&s, &record).await;
    let _long_ws = ws_from(s.addr, "127.0.0.5", &long).await.unwrap();
    let (status, body) = ws_from(s.addr, "127.0.0.5", &games[3])
        .await
        .expect_err("over the share of moves");
    assert_eq!(status, 429, "{body}");
    assert!(body.contains("at most 2 games and 10 moves"), "{body}");
    // A closed connection gives its game back to the client's share.
    drop(held);
    let t0 = std::time::Instant::now();
    loop {
        match ws_from(s.addr, "127.0.0.2", &games[5]).await {
            Ok(_) => break,
            Err((429, _)) if t0.elapsed() < std::time::Duration::from_secs(30) => {
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
            Err(e) => panic!("the share was not given back: {e:?}"),
        }
    }
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_players_seated_connection_to_their_own_game_is_not_refused_for_the_share() {
    // The tester's t_share_player.py, scaled down: two players behind one address (one NAT),
    // each with a long game; the share is 2 games and 25 moves.
    let s = TestServer::start("pin-seated").await;
    s.app.set_memory_caps(16, 200);
    let (a, token_a) = hotseat(&s).await;
    let (b, token_b) = hotseat(&s).await;
    play(&s, &a, &token_a, 20).await;
    play(&s, &b, &token_b, 20).await;
    let _wa = ws_seated_from(s.addr, "127.0.0.20", &a, Some(&token_a))
        .await
        .expect("player 1's socket");
    // Player 2's own game: 40 moves with the first, over the 25-move share, but seated.
    let _wb = ws_seated_from(s.addr, "127.0.0.20", &b, Some(&token_b))
        .await
        .expect("player 2's socket to their own game is not refused");
    // A watcher from that address is still held to the share.
    let (c, token_c) = hotseat(&s).await;
    play(&s, &c, &token_c, 1).await;
    let (status, body) = ws_from(s.addr, "127.0.0.20", &c)
        .await
        .expect_err("a watcher over the share");
    assert_eq!(status, 429, "{body}");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_played_over_a_websocket_leaves_memory_after_one_merely_looked_at() {
    let s = TestServer::start("lru-ws").await;
    s.app.set_memory_caps(2, 1_000_000);
    let (played, token) = hotseat(&s).await;
    let (looked, _) = hotseat(&s).await;
    let (other, _) = hotseat(&s).await;
    // The player connects (the game is loaded back), then someone looks at another game.
    let mut ws = common::wsc::connect(s.addr, &played).await;
    let _ = common::wsc::next_of(&mut ws, "state").await;
    assert_eq!(s.get(&format!("/api/games/{looked}")).await.status, 200);
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    // The player is still there: a message on the socket counts as asking for the game.
    common::wsc::send(&mut ws, &json!({"type": "hello", "token": token})).await;
    let _ = common::wsc::next_of(&mut ws, "hello").await;
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    // The socket drops for a moment; meanwhile a third game is opened.
    drop(ws);
    let t0 = std::time::Instant::now();
    while s.app.sockets_open() > 0 && t0.elapsed() < std::time::Duration::from_secs(30) {
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    assert_eq!(s.get(&format!("/api/games/{other}")).await.status, 200);
    // The game looked at once left memory, not the one being played.
    assert!(s.app.holds(&played), "the game being played was dropped");
    assert!(!s.app.holds(&looked) && s.app.holds(&other));
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn moves_played_make_room_by_dropping_idle_games() {
    let s = TestServer::start("plies-grow").await;
    s.app.set_memory_caps(10, 30);
    let (record, n) = random_record(20, 9);
    assert_eq!(n, 20);
    let idle = import(&s, &record).await;
    let (game, token) = hotseat(&s).await;
    assert_eq!(s.app.plies_in_memory(), 20);
    // 11 moves: 31 held, over the cap: the idle game makes room.
    play(&s, &game, &token, 11).await;
    assert!(!s.app.holds(&idle) && s.app.holds(&game));
    assert_eq!(s.app.plies_in_memory(), 11);
    let health = s.get("/api/health").await.json();
    assert_eq!(health["plies_in_memory"], 11, "{health}");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_past_the_cap_on_moves_is_refused_and_the_game_blocks_no_one() {
    // The tester's t_grow_block.py, scaled down: one game played with its page open.
    let s = TestServer::start("plies-grow-cap").await;
    s.app.set_memory_caps(10, 30);
    let (game, token) = hotseat(&s).await;
    let mut ws = common::wsc::connect(s.addr, &game).await;
    let _ = common::wsc::next_of(&mut ws, "state").await;
    play(&s, &game, &token, 30).await;
    assert_eq!(s.app.plies_in_memory(), 30);
    // One more would make this game alone longer than the cap: refused, the game as it was.
    let state = s.get(&format!("/api/games/{game}")).await.json();
    let mv = state["legal"][0].as_str().unwrap();
    let r = s
        .post(
            &format!("/api/games/{game}/moves"),
            &json!({"token": token, "move": mv}),
        )
        .await;
    r.assert_error(
        409,
        "would have 31 moves, more than the server holds in memory for one game (30 moves",
    );
    assert!(r.body.contains("--max-moves-in-memory"), "{}", r.body);
    assert_eq!(s.get(&format!("/api/games/{game}")).await.json()["ply"], 30);
    assert_eq!(s.app.plies_in_memory(), 30);
    // The moves held are within the cap: another client still makes a game.
    let (status, body) = post_from(s.addr, "127.0.0.7", "/api/games", &hotseat_req()).await;
    assert_eq!(status, 201, "{body}");
    drop(ws);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_game_longer_than_a_lowered_cap_is_refused_for_good_and_blocks_no_one() {
    // The tester's t_overcap_block.py, scaled down: a game imported under a higher cap, the
    // cap lowered since (a restart with a smaller --max-moves-in-memory).
    let s = TestServer::start("plies-lowered").await;
    s.app.set_memory_caps(10, 40);
    let (record, n) = random_record(35, 3);
    assert_eq!(n, 35);
    let long = import(&s, &record).await;
    let (short, token) = hotseat(&s).await;
    play(&s, &short, &token, 2).await;
    s.app.set_memory_caps(10, 30);
    s.app.evict_idle(std::time::Duration::ZERO);
    assert_eq!(s.app.games_in_memory(), 0);
    // Refused for good (no Retry-After), naming the option to raise; never loaded.
    let r = s.get(&format!("/api/games/{long}")).await;
    r.assert_error(
        503,
        "this game has 35 moves, more than the server holds in memory",
    );
    assert!(
        r.body.contains("--max-moves-in-memory 35 or more"),
        "{}",
        r.body
    );
    assert_eq!(r.header("retry-after"), None);
    let (status, body) = ws_from(s.addr, "127.0.0.2", &long)
        .await
        .expect_err("no socket on the long game");
    assert_eq!(status, 503, "{body}");
    assert_eq!(s.app.games_in_memory(), 0);
    // Everyone else's games are served: a new one, and the stored short one.
    let (status, body) = post_from(s.addr, "127.0.0.3", "/api/games", &hotseat_req()).await;
    assert_eq!(status, 201, "{body}");
    let r = s.get(&format!("/api/games/{short}")).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["ply"], 2);
    // A new game longer than the cap is still refused for good.
    let r = s
        .post("/api/games/import", &json!({ "record": record }))
        .await;
    r.assert_error(503, "this game has 35 moves, more than the server holds");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_positions_request_waiting_for_a_busy_game_holds_no_replay_permit() {
    let s = TestServer::start("pos-permit").await;
    s.app.set_positions_at_once(1);
    let (a, token) = hotseat(&s).await;
    play(&s, &a, &token, 3).await;
    let (b, _) = hotseat(&s).await;
    // Game a is busy (as while its computer thinks): its positions wait for it.
    let slot = s.app.slot(&a).unwrap();
    let busy = slot.game.lock().await;
    let (addr, path) = (s.addr, format!("/api/games/{a}/positions"));
    let waiting = tokio::spawn(async move { common::http(addr, "GET", &path, None).await });
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    assert!(!waiting.is_finished());
    // Another game's positions are replayed meanwhile.
    let r = s.get(&format!("/api/games/{b}/positions")).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["ply"], 0);
    drop(busy);
    let r = waiting.await.unwrap();
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["moves"].as_array().unwrap().len(), 3);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_made_at_once_stay_within_the_cap_on_games() {
    let s = TestServer::start("race-cap").await;
    s.app.set_memory_caps(2, 1_000_000);
    // The database is busy for a moment (another program writes to it): every create below
    // has found its room before the first is stored.
    // (On a thread of its own: the server's threads wait for it.)
    let path = s.dir.join("pussa.sqlite3");
    let (began_tx, began) = std::sync::mpsc::channel();
    let writer = std::thread::spawn(move || {
        let db = rusqlite::Connection::open(path).unwrap();
        db.execute_batch("BEGIN IMMEDIATE").unwrap();
        began_tx.send(()).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(400));
        db.execute_batch("COMMIT").unwrap();
    });
    began.recv().unwrap();
    let computer_first = json!({"game": "walak-pussa", "first": "N", "seat": "S",
        "opponent": {"kind": "computer", "level": "max"}});
    let creates: Vec<_> = (0..6)
        .map(|_| {
            let (addr, body) = (s.addr, computer_first.to_string());
            tokio::spawn(async move { common::http(addr, "POST", "/api/games", Some(&body)).await })
        })
        .collect();
    tokio::task::spawn_blocking(move || writer.join().unwrap())
        .await
        .unwrap();
    let mut made = 0;
    for c in creates {
        let r = c.await.unwrap();
        match r.status {
            201 => made += 1,
            _ => r.assert_error(503, "as many games in memory as it may"),
        }
    }
    assert!(made >= 1, "one game at least is made");
    assert!(
        s.app.games_in_memory() <= 2,
        "{} games held (cap 2)",
        s.app.games_in_memory()
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_refused_for_want_of_memory_uses_none_of_the_clients_new_games() {
    let s = TestServer::start("allow-503").await;
    s.app.set_new_games_per_minute(3);
    s.app.set_memory_caps(1, 1_000_000);
    let (a, _) = hotseat(&s).await;
    // Game a is watched: no room for another.
    let mut ws = common::wsc::connect(s.addr, &a).await;
    let _ = common::wsc::next_of(&mut ws, "state").await;
    for _ in 0..2 {
        let r = s.post("/api/games", &hotseat_req()).await;
        r.assert_error(503, "all in play: try again later");
        let r = s
            .post(
                "/api/games/import",
                &json!({"record": random_record(4, 1).0}),
            )
            .await;
        r.assert_error(503, "all in play: try again later");
    }
    drop(ws);
    // Room is back: the client has made one game of its three.
    let t0 = std::time::Instant::now();
    let mut made = 0;
    while made < 2 {
        let r = s.post("/api/games", &hotseat_req()).await;
        match r.status {
            201 => made += 1,
            503 if t0.elapsed() < std::time::Duration::from_secs(30) => {
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
            _ => panic!("{}: {}", r.status, r.body),
        }
    }
    s.post("/api/games", &hotseat_req()).await.assert_error(
        429,
        "too many new games from your address: at most 3 a minute",
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_import_that_can_never_be_served_keeps_counting_against_the_clients_new_games() {
    // The tester's t_import_unthrottled.py, scaled down.
    let s = TestServer::start("allow-overcap").await;
    s.app.set_new_games_per_minute(3);
    s.app.set_memory_caps(10, 30);
    let (record, n) = random_record(35, 3);
    assert_eq!(n, 35);
    for _ in 0..3 {
        let r = s
            .post("/api/games/import", &json!({ "record": record }))
            .await;
        r.assert_error(503, "this game has 35 moves, more than the server holds");
        assert_eq!(r.header("retry-after"), None);
    }
    // Refused for good, so each one used one of the client's three new games.
    let r = s
        .post("/api/games/import", &json!({ "record": record }))
        .await;
    r.assert_error(
        429,
        "too many new games from your address: at most 3 a minute",
    );
    s.post("/api/games", &hotseat_req()).await.assert_error(
        429,
        "too many new games from your address: at most 3 a minute",
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn small_caps_say_at_most_1_game_and_give_the_real_share() {
    // The tester's t_one_games.py: with 8 games at most, one client's share is one game.
    let s = TestServer::start("one-game").await;
    s.app.set_memory_caps(8, 80);
    let (a, _) = hotseat(&s).await;
    let (b, _) = hotseat(&s).await;
    let _wa = ws_from(s.addr, "127.0.0.30", &a).await.unwrap();
    let (status, body) = ws_from(s.addr, "127.0.0.30", &b)
        .await
        .expect_err("over the share");
    assert_eq!(status, 429, "{body}");
    assert!(
        body.contains(
            "at most 1 game and 10 moves in all (of the 8 games and 80 moves the server holds)"
        ),
        "{body}"
    );
    // One game at most, held by the socket: a new game is refused, in the singular.
    s.app.set_memory_caps(1, 80);
    s.post("/api/games", &hotseat_req()).await.assert_error(
        503,
        "the server holds as many games in memory as it may (at most 1 game and 80 moves; this \
         one has 0), all in play",
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_probe_of_a_games_socket_says_why_an_upgrade_would_be_refused() {
    // The page's probe after an upgrade that failed (defect 3 of the second pass): the share's
    // refusal with its message, or 204 when a connection would be taken.
    let s = TestServer::start("ws-probe").await;
    s.app.set_memory_caps(16, 1_000_000);
    let (a, _) = hotseat(&s).await;
    let (b, _) = hotseat(&s).await;
    let (c, _) = hotseat(&s).await;
    let r = s.get(&format!("/api/games/{a}/ws?probe=1")).await;
    assert_eq!(r.status, 204, "{}", r.body);
    // Any other value is named, not taken for an upgrade.
    s.get(&format!("/api/games/{a}/ws?probe=true"))
        .await
        .assert_error(400, "probe must be 1");
    let _wa = ws_from(s.addr, "127.0.0.1", &a).await.unwrap();
    let _wb = ws_from(s.addr, "127.0.0.1", &b).await.unwrap();
    let r = s.get(&format!("/api/games/{c}/ws?probe=1")).await;
    r.assert_error(
        429,
        "your address's WebSockets hold as many games in memory",
    );
    s.stop().await;
}
