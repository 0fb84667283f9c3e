//! What one client can make the server hold or do for it: the caps on the games held in
//! memory (a stored game loaded back by a `GET` takes the place of the least recently used
//! idle one), the bound on the replays of `GET …/positions` (run off the threads that serve the
//! other requests), and the hints one client may have running or waiting.

mod common;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use common::{import, random_record, TestServer};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpSocket;

/// A `GET` from the loopback address `from` (any 127.x.y.z is ours); (status, body).
async fn get_from(addr: SocketAddr, from: &str, path: &str) -> (u16, String) {
    let sock = TcpSocket::new_v4().unwrap();
    sock.bind(SocketAddr::new(from.parse().unwrap(), 0))
        .unwrap();
    let mut s = sock.connect(addr).await.expect("connect");
    let req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    s.write_all(req.as_bytes()).await.unwrap();
    let mut buf = String::new();
    s.read_to_string(&mut buf).await.unwrap();
    let (head, body) = buf.split_once("\r\n\r\n").expect("header end");
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, body.to_string())
}

/// A hot-seat Raja Pasu game: (id, token).
async fn hotseat(s: &TestServer) -> (String, String) {
    let r = s
        .post(
            "/api/games",
            &json!({"game": "raja-pasu", "opponent": {"kind": "hotseat"}}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.body);
    let v = r.json();
    (
        v["id"].as_str().unwrap().to_string(),
        v["token"].as_str().unwrap().to_string(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_loaded_past_the_cap_take_the_place_of_the_least_recently_used_idle_one() {
    let s = TestServer::start("memcap").await;
    s.app.set_memory_caps(2, 1_000_000);
    let (a, _) = hotseat(&s).await;
    let (b, _) = hotseat(&s).await;
    // A third game: the one asked for longest ago (a) leaves memory, not the database.
    let (c, _) = hotseat(&s).await;
    assert_eq!(s.app.games_in_memory(), 2);
    assert!(!s.app.holds(&a) && s.app.holds(&b) && s.app.holds(&c));
    // A GET of a stored game loads it back in place of the least recently used one (b).
    let r = s.get(&format!("/api/games/{a}")).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["id"], a.as_str());
    assert_eq!(s.app.games_in_memory(), 2);
    assert!(s.app.holds(&a) && !s.app.holds(&b) && s.app.holds(&c));
    // Loading every stored game in turn never holds more than the cap.
    for id in [&b, &c, &a, &b] {
        assert_eq!(s.get(&format!("/api/games/{id}")).await.status, 200);
        assert_eq!(s.app.games_in_memory(), 2);
    }
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_in_use_is_not_dropped_for_another_and_a_full_server_answers_503() {
    let s = TestServer::start("memheld").await;
    s.app.set_memory_caps(1, 1_000_000);
    let (a, _) = hotseat(&s).await;
    // A watcher holds game a in memory: b cannot take its place.
    let mut ws = common::wsc::connect(s.addr, &a).await;
    let _ = common::wsc::next_of(&mut ws, "state").await;
    let r = s
        .post(
            "/api/games",
            &json!({"game": "raja-pasu", "opponent": {"kind": "hotseat"}}),
        )
        .await;
    r.assert_error(503, "the server holds as many games in memory as it may");
    assert!(r.header("retry-after").is_some(), "{:?}", r.headers);
    assert!(s.app.holds(&a));
    drop(ws);
    // Once nothing holds it, the new game takes its place.
    let mut made = None;
    for _ in 0..500 {
        let r = s
            .post(
                "/api/games",
                &json!({"game": "raja-pasu", "opponent": {"kind": "hotseat"}}),
            )
            .await;
        if r.status == 201 {
            made = Some(r.json()["id"].as_str().unwrap().to_string());
            break;
        }
        r.assert_error(503, "as many games in memory");
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let b = made.expect("a new game once the watcher left");
    assert!(s.app.holds(&b) && !s.app.holds(&a));
    assert_eq!(s.get(&format!("/api/games/{a}")).await.status, 200);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_moves_held_in_memory_are_capped_over_every_game() {
    let s = TestServer::start("memplies").await;
    let (long, n) = random_record(60, 7);
    assert_eq!(n, 60, "the record is 60 moves long");
    let (short, m) = random_record(25, 11);
    assert_eq!(m, 25);
    s.app.set_memory_caps(100, 50);
    // Longer than the cap: refused for good (no Retry-After), and not stored.
    let r = s
        .post("/api/games/import", &json!({ "record": long }))
        .await;
    r.assert_error(
        503,
        "this game has 60 moves, more than the server holds in memory (50 moves, \
         --max-moves-in-memory)",
    );
    assert!(r.header("retry-after").is_none(), "{:?}", r.headers);
    let listed = s.get("/api/games").await.json();
    assert_eq!(listed["games"].as_array().unwrap().len(), 0, "{listed}");
    // Two games of 25 moves fit; a third takes the place of the least recently used.
    let first = import(&s, &short).await;
    let second = import(&s, &short).await;
    assert_eq!(s.app.plies_in_memory(), 50);
    let third = import(&s, &short).await;
    assert_eq!(s.app.plies_in_memory(), 50);
    assert!(!s.app.holds(&first) && s.app.holds(&second) && s.app.holds(&third));
    let health = s.get("/api/health").await.json();
    assert_eq!(health["plies_in_memory"], 50, "{health}");
    assert_eq!(health["games_in_memory"], 2, "{health}");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_game_drops_no_idle_game_from_memory() {
    let s = TestServer::start("memnodrop").await;
    let (long, n) = random_record(60, 7);
    assert_eq!(n, 60);
    let (small, k) = random_record(10, 3);
    assert_eq!(k, 10);
    let (short, m) = random_record(25, 11);
    assert_eq!(m, 25);
    s.app.set_memory_caps(100, 70);
    // A game in use (watched) of 60 moves and an idle one of 10.
    let held = import(&s, &long).await;
    let mut ws = common::wsc::connect(s.addr, &held).await;
    let _ = common::wsc::next_of(&mut ws, "state").await;
    let idle = import(&s, &small).await;
    assert_eq!(s.app.plies_in_memory(), 70);
    // 25 more moves do not fit even without the idle game: refused, and it stays.
    let r = s
        .post("/api/games/import", &json!({ "record": short }))
        .await;
    r.assert_error(503, "all in play: try again later");
    assert!(r.header("retry-after").is_some(), "{:?}", r.headers);
    assert!(s.app.holds(&held) && s.app.holds(&idle));
    assert_eq!(s.app.plies_in_memory(), 70);
    drop(ws);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_positions_request_loads_nothing() {
    let s = TestServer::start("posnoload").await;
    s.app.set_positions_at_once(1);
    s.app.set_memory_caps(2, 1_000_000);
    let (record, _) = (1..200)
        .map(|seed| random_record(4000, seed))
        .find(|(_, n)| *n >= 2000)
        .expect("a random match of 2000 moves or more");
    let long = import(&s, &record).await;
    let (x, _) = hotseat(&s).await;
    let (y, _) = hotseat(&s).await;
    // The long game left memory for y; x and y are held.
    assert!(!s.app.holds(&long) && s.app.holds(&x) && s.app.holds(&y));
    // A replay of the long game loads it back (x leaves memory) and holds the one permit.
    let (addr, path) = (s.addr, format!("/api/games/{long}/positions"));
    let replay = tokio::spawn(async move { common::http(addr, "GET", &path, None).await });
    while !s.app.holds(&long) {
        tokio::time::sleep(std::time::Duration::from_millis(1)).await;
    }
    assert!(!s.app.holds(&x));
    // Refused while it runs: x is not loaded back, so nothing else leaves memory.
    let r = s.get(&format!("/api/games/{x}/positions")).await;
    r.assert_error(503, "busy replaying games for their positions");
    assert!(!s.app.holds(&x) && s.app.holds(&long) && s.app.holds(&y));
    assert_eq!(replay.await.unwrap().status, 200);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn positions_replays_are_bounded_and_other_requests_are_answered_meanwhile() {
    let s = TestServer::start("positions").await;
    s.app.set_positions_at_once(1);
    // A long match (random play ends most of them sooner).
    let (record, plies) = (1..200)
        .map(|seed| random_record(4000, seed))
        .find(|(_, n)| *n >= 2000)
        .expect("a random match of 2000 moves or more");
    let long = import(&s, &record).await;
    let (other, _) = hotseat(&s).await;
    // Completion order of every request below.
    let seq = Arc::new(AtomicUsize::new(0));
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    for _ in 0..6 {
        let (addr, path) = (s.addr, format!("/api/games/{long}/positions"));
        let (seq, tx) = (Arc::clone(&seq), tx.clone());
        tokio::spawn(async move {
            let r = common::http(addr, "GET", &path, None).await;
            let _ = tx.send((seq.fetch_add(1, Ordering::SeqCst), r));
        });
    }
    drop(tx);
    // A 503 comes back while another request holds the one replay allowed.
    let (first_done, refused) = rx.recv().await.expect("an answer");
    refused.assert_error(
        503,
        "busy replaying games for their positions (at most 1 at once)",
    );
    assert_eq!(refused.header("retry-after"), Some("1"));
    assert!(first_done < 5, "the replay in flight has not answered yet");
    // The cheap requests are answered while the replay runs: before it ends.
    let meta = s.get("/api/meta").await;
    let meta_done = seq.fetch_add(1, Ordering::SeqCst);
    assert_eq!(meta.status, 200, "{}", meta.body);
    let state = s.get(&format!("/api/games/{other}")).await;
    assert_eq!(state.status, 200, "{}", state.body);
    let mut answered = Vec::new();
    while let Some((done, r)) = rx.recv().await {
        match r.status {
            200 => answered.push((done, r.json())),
            _ => r.assert_error(503, "busy replaying"),
        }
    }
    assert!(!answered.is_empty(), "one replay at least is answered");
    assert!(
        answered.iter().all(|(done, _)| *done > meta_done),
        "the meta request waited for a replay"
    );
    for (_, v) in &answered {
        assert_eq!(v["ply"], plies);
        assert_eq!(v["moves"].as_array().unwrap().len(), plies);
    }
    // With the replay done, the positions are served again.
    let again = s.get(&format!("/api/games/{long}/positions")).await;
    assert_eq!(again.status, 200, "{}", again.body);
    assert_eq!(again.json(), answered[0].1);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_client_has_at_most_its_share_of_hints_and_others_are_still_served() {
    let s = TestServer::start("hints").await;
    s.app.set_hints_per_client(1);
    let (a, ta) = hotseat(&s).await;
    let (b, tb) = hotseat(&s).await;
    // Game a is busy (locked), so the hint asked in it waits: it still counts for its client.
    let slot = s.app.slot(&a).unwrap();
    let busy = slot.game.lock().await;
    let ask_a = || {
        let (addr, path) = (s.addr, format!("/api/games/{a}/hint?token={ta}"));
        tokio::spawn(async move { get_from(addr, "127.0.0.2", &path).await })
    };
    let mut waiting = ask_a();
    // A quick probe from the same client (a wrong token: 403 once counted, and its place given
    // back at once) is refused once the hint in game a is counted.
    let probe = format!("/api/games/{b}/hint?token=wrong");
    let mut refused = None;
    for _ in 0..1000 {
        if waiting.is_finished() {
            // It came while the probe held the client's place: refused, asked again.
            let (status, body) = (&mut waiting).await.unwrap();
            assert_eq!(status, 429, "{body}");
            waiting = ask_a();
        }
        let (status, body) = get_from(s.addr, "127.0.0.2", &probe).await;
        if status == 429 {
            refused = Some(body);
            break;
        }
        assert_eq!(status, 403, "{body}");
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    let body = refused.expect("the client's second hint is refused while its first waits");
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["status"], 429);
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .starts_with("too many hints from your address: at most 1 at once"),
        "{body}"
    );
    let hint_b = format!("/api/games/{b}/hint?token={tb}");
    let (status, body) = get_from(s.addr, "127.0.0.2", &hint_b).await;
    assert_eq!(status, 429, "{body}");
    // Another client's hint is not behind it.
    let (status, body) = get_from(s.addr, "127.0.0.3", &hint_b).await;
    assert_eq!(status, 200, "{body}");
    assert!(serde_json::from_str::<Value>(&body).unwrap()["move"].is_string());
    // The waiting hint is answered once its game is free, and gives its place back.
    drop(busy);
    let (status, body) = waiting.await.unwrap();
    assert_eq!(status, 200, "{body}");
    let (status, body) = get_from(s.addr, "127.0.0.2", &hint_b).await;
    assert_eq!(status, 200, "{body}");
    s.stop().await;
}
