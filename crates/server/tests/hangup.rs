//! Clients that go away in the middle of a request, and requests that could take back or change
//! more than the sender meant: a real server on a loopback port with its own SQLite file.

mod common;

use std::time::{Duration, Instant};

use common::TestServer;
use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

/// Sends a request and hangs up after `after`, without reading the answer.
async fn hang_up(s: &TestServer, method: &str, path: &str, body: Option<&Value>, after: Duration) {
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n",
        s.addr
    );
    let body = body.map(Value::to_string);
    if let Some(b) = &body {
        req.push_str(&format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n",
            b.len()
        ));
    }
    req.push_str("\r\n");
    if let Some(b) = &body {
        req.push_str(b);
    }
    let mut stream = TcpStream::connect(s.addr).await.expect("connect");
    stream.write_all(req.as_bytes()).await.expect("write");
    tokio::time::sleep(after).await;
    drop(stream);
}

/// A new same-screen game of `game`: its id and token.
async fn hotseat(s: &TestServer, game: &str) -> (String, String) {
    let c = s.post("/api/games", &json!({"game": game})).await.json();
    let id = c["id"].as_str().unwrap().to_string();
    (id, c["token"].as_str().unwrap().to_string())
}

/// Polls the state of game `id` until `done` holds (at most 30 s).
async fn wait_for(s: &TestServer, id: &str, done: impl Fn(&Value) -> bool) -> Value {
    let start = Instant::now();
    loop {
        let st = s.get(&format!("/api/games/{id}")).await.json();
        if done(&st) {
            return st;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the game did not get there within 30 s: {st}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_whose_client_hangs_up_still_gets_the_computers_reply() {
    let s = TestServer::start("hangup-move").await;
    // Level max thinks at least 0.2 s a move: the client is gone long before it answers.
    let c = s
        .post(
            "/api/games",
            &json!({"game": "walak-pussa", "opponent": {"kind": "computer", "level": "max"}}),
        )
        .await;
    assert_eq!(c.status, 201, "{}", c.body);
    let c = c.json();
    let id = c["id"].as_str().unwrap().to_string();
    let token = c["token"].as_str().unwrap().to_string();
    hang_up(
        &s,
        "POST",
        &format!("/api/games/{id}/moves"),
        Some(&json!({"move": "A", "token": token})),
        Duration::from_millis(30),
    )
    .await;
    let st = wait_for(&s, &id, |st| {
        st["to_move"] == "S" && st["ply"].as_u64() >= Some(2)
    })
    .await;
    assert_eq!(st["ply"], 2, "{st}");
    // The human can go on, and the stored game replays after a restart.
    let r = s
        .post(
            &format!("/api/games/{id}/moves"),
            &json!({"move": st["legal"][0], "token": token, "expected_ply": 2}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let after = r.json()["state"].clone();
    let dir = s.dir.clone();
    s.stop().await;
    let s = TestServer::start_in(dir).await;
    assert_eq!(s.get(&format!("/api/games/{id}")).await.json(), after);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_game_whose_client_hangs_up_still_gets_the_computers_first_move() {
    let s = TestServer::start("hangup-create").await;
    let before: Vec<String> = s.get("/api/games").await.json()["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["id"].as_str().unwrap().to_string())
        .collect();
    assert!(before.is_empty());
    hang_up(
        &s,
        "POST",
        "/api/games",
        Some(&json!({"game": "walak-pussa", "seat": "N", "opponent": {"kind": "computer", "level": "max"}})),
        Duration::from_millis(30),
    )
    .await;
    // The game was stored before the computer began to think; find it and wait for its move.
    let start = Instant::now();
    let id = loop {
        let list = s.get("/api/games").await.json();
        if let Some(g) = list["games"].as_array().unwrap().first() {
            break g["id"].as_str().unwrap().to_string();
        }
        assert!(start.elapsed() < Duration::from_secs(30), "no game stored");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let st = wait_for(&s, &id, |st| st["ply"].as_u64() >= Some(1)).await;
    assert_eq!(st["ply"], 1);
    assert_eq!(st["to_move"], "N");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hint_whose_client_hangs_up_frees_the_games_hint() {
    let s = TestServer::start("hangup-hint").await;
    let (id, token) = hotseat(&s, "walak-pussa").await;
    let path = format!("/api/games/{id}/hint?token={token}");
    hang_up(&s, "GET", &path, None, Duration::from_millis(50)).await;
    // A hint takes 0.7 s; once the abandoned one is done, the next one is answered.
    let start = Instant::now();
    loop {
        let r = s.get(&path).await;
        if r.status == 200 {
            let legal: Vec<Value> = s.get(&format!("/api/games/{id}")).await.json()["legal"]
                .as_array()
                .unwrap()
                .clone();
            assert!(legal.contains(&r.json()["move"]), "{}", r.body);
            break;
        }
        r.assert_error(429, "already being computed");
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the hint guard of an abandoned hint was never given back"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_undo_from_a_stale_view_is_refused() {
    let s = TestServer::start("undo-stale").await;
    let (id, token) = hotseat(&s, "raja-pasu").await;
    for (ply, mv) in ["A", "a"].iter().enumerate() {
        let r = s
            .post(
                &format!("/api/games/{id}/moves"),
                &json!({"move": mv, "token": token, "expected_ply": ply}),
            )
            .await;
        assert_eq!(r.status, 200, "{}", r.body);
    }
    let undo = format!("/api/games/{id}/undo");
    // Sent by a page that had not seen the second move: refused, nothing taken back.
    s.post(&undo, &json!({"token": token, "expected_ply": 1}))
        .await
        .assert_error(409, "stale undo: the game is at ply 2, not 1");
    assert_eq!(s.get(&format!("/api/games/{id}")).await.json()["ply"], 2);
    // A double click: the first takes one move back, the second is refused.
    let r = s
        .post(&undo, &json!({"token": token, "expected_ply": 2}))
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["state"]["ply"], 1);
    s.post(&undo, &json!({"token": token, "expected_ply": 2}))
        .await
        .assert_error(409, "stale undo");
    assert_eq!(s.get(&format!("/api/games/{id}")).await.json()["ply"], 1);
    // Without expected_ply an undo still takes back the last move.
    let r = s.post(&undo, &json!({"token": token})).await;
    assert_eq!(r.json()["state"]["ply"], 0);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn misspelt_fields_and_bodies_that_are_not_objects_are_refused() {
    let s = TestServer::start("fields").await;
    let (id, token) = hotseat(&s, "raja-pasu").await;
    // A typo would silently turn the double-submit guard off: it is named instead.
    s.post(
        &format!("/api/games/{id}/moves"),
        &json!({"move": "A", "token": token, "expectedPly": 0}),
    )
    .await
    .assert_error(400, "unknown field `expectedPly`");
    s.post(
        "/api/games",
        &json!({"game": "raja-pasu", "oponent": {"kind": "computer"}}),
    )
    .await
    .assert_error(400, "unknown field `oponent`");
    s.post(
        "/api/games",
        &json!({"game": "raja-pasu", "opponent": {"kind": "computer", "lvl": 3}}),
    )
    .await
    .assert_error(400, "unknown field `lvl`");
    // An array in field order is not an object.
    s.post(
        "/api/games",
        &json!(["raja-pasu", "single", "S", {"kind": "hotseat"}, "S"]),
    )
    .await
    .assert_error(400, "expected a JSON object, found an array");
    s.post_raw("/api/games", "\"raja-pasu\"")
        .await
        .assert_error(400, "expected a JSON object, found a string");
    // Nothing was created by any of these, and nothing moved.
    assert_eq!(
        s.get("/api/games").await.json()["games"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(s.get(&format!("/api/games/{id}")).await.json()["ply"], 0);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn api_errors_name_the_path_as_sent() {
    let s = TestServer::start("paths").await;
    s.get("/api/nothing")
        .await
        .assert_error(404, "no such API endpoint: /api/nothing");
    s.get("/api/")
        .await
        .assert_error(404, "no such API endpoint: /api/");
    common::http(s.addr, "DELETE", "/api/meta", None)
        .await
        .assert_error(405, "DELETE is not allowed on /api/meta");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn hints_in_many_games_do_not_hold_up_the_computer() {
    let s = TestServer::start("hint-queue").await;
    // All six hints come from this one address: let it ask them all (the per-client limit on
    // hints has its own tests in fairness.rs).
    s.app.set_hints_per_client(6);
    let s = std::sync::Arc::new(s);
    let c = s
        .post(
            "/api/games",
            &json!({"game": "raja-pasu", "opponent": {"kind": "computer", "level": "beginner"}}),
        )
        .await
        .json();
    let id = c["id"].as_str().unwrap().to_string();
    let token = c["token"].as_str().unwrap().to_string();
    // Six hints of 0.7 s each, in six games, all asked at once.
    let done = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut hints = Vec::new();
    for _ in 0..6 {
        let g = s
            .post("/api/games", &json!({"game": "walak-pussa"}))
            .await
            .json();
        let path = format!(
            "/api/games/{}/hint?token={}",
            g["id"].as_str().unwrap(),
            g["token"].as_str().unwrap()
        );
        let (s, done) = (std::sync::Arc::clone(&s), std::sync::Arc::clone(&done));
        hints.push(tokio::spawn(async move {
            let r = s.get(&path).await;
            done.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            r.status
        }));
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    // The computer's reply takes a core at once instead of queueing behind the hints.
    let r = s
        .post(
            &format!("/api/games/{id}/moves"),
            &json!({"move": "A", "token": token}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["state"]["ply"], 2);
    let finished = done.load(std::sync::atomic::Ordering::SeqCst);
    assert!(
        finished <= 2,
        "the computer's reply waited for {finished} of the 6 hints"
    );
    for h in hints {
        assert_eq!(h.await.unwrap(), 200);
    }
}
