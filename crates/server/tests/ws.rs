//! The WebSocket protocol: live updates for players and watchers, moves, errors and limits.

mod common;

use common::wsc::{apply_update, connect, next, next_of, next_or_close, recv, send, Ws};
use common::{assert_matches_rules, TestServer};
use futures_util::SinkExt;
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

/// An online Raja Pasu game with both seats taken: (id, South's token, North's token).
async fn online_game(s: &TestServer) -> (String, String, String) {
    s.online_game("raja-pasu").await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn players_and_watchers_see_every_move() {
    let s = TestServer::start("ws-watch").await;
    let c = s
        .post(
            "/api/games",
            &json!({"game": "walak-pussa", "opponent": {"kind": "online"}}),
        )
        .await
        .json();
    let id = c["id"].as_str().unwrap().to_string();
    let south = c["token"].as_str().unwrap().to_string();
    let mut ws_s = connect(s.addr, &id).await;
    let mut watcher = connect(s.addr, &id).await;
    for ws in [&mut ws_s, &mut watcher] {
        let hello = next(ws).await;
        assert_eq!(hello["type"], "state");
        assert_eq!(hello["state"]["id"], id.as_str());
    }
    // Alone, South may not start: the game waits for the friend.
    send(
        &mut ws_s,
        &json!({"type": "move", "move": "A", "token": south, "req": 0}),
    )
    .await;
    let e = next(&mut ws_s).await;
    assert_eq!(
        (e["status"].as_u64(), e["message"].as_str()),
        (
            Some(409),
            Some("waiting for your friend to join: send them the invite link")
        ),
        "{e}"
    );
    // The friend joins: everyone is told.
    let j = s
        .post(
            &format!("/api/games/{id}/join"),
            &json!({"invite": c["invite"]["token"]}),
        )
        .await
        .json();
    let north = j["token"].as_str().unwrap().to_string();
    let u = next(&mut watcher).await;
    assert_eq!(
        (u["type"].as_str(), u["joined"].as_str()),
        (Some("update"), Some("N"))
    );
    assert_eq!(u["state"]["seats"]["N"]["taken"], true);
    next_of(&mut ws_s, "update").await;
    let mut ws_n = connect(s.addr, &id).await;
    next(&mut ws_n).await;

    // South moves over the socket: an ack for South, the move for everyone.
    send(
        &mut ws_s,
        &json!({"type": "move", "move": "A", "token": south, "expected_ply": 0, "req": 1}),
    )
    .await;
    let ack = next(&mut ws_s).await;
    assert_eq!(ack, json!({"type": "ack", "req": 1, "ply": 1}));
    for ws in [&mut ws_s, &mut ws_n, &mut watcher] {
        let u = next_of(ws, "update").await;
        assert_eq!(u["played"][0]["move"], "A");
        assert_eq!(u["played"][0]["trace"][0]["type"], "lift");
        assert_eq!(u["state"]["ply"], 1);
        assert_eq!(
            u["state"]["board"],
            json!([2, 1, 7, 7, 7, 0, 7, 0, 0, 6, 1, 6, 6, 0])
        );
    }
    // North moves over HTTP: the sockets see it too.
    let r = s
        .post(
            &format!("/api/games/{id}/moves"),
            &json!({"move": "d", "token": north}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    for ws in [&mut ws_s, &mut ws_n, &mut watcher] {
        let u = next_of(ws, "update").await;
        assert_eq!(u["played"][0]["move"], "d");
        // What changed: the state without its moves, which the client adds.
        assert!(u["state"].get("moves").is_none(), "{u}");
        assert_eq!(
            (&u["moves_kept"], &u["rounds_kept"]),
            (&json!(1), &json!(0))
        );
        let mut before = r.json()["state"].clone();
        before["moves"] = json!([before["moves"][0]]);
        assert_eq!(apply_update(&before, &u), r.json()["state"]);
    }
    assert_matches_rules(&r.json()["state"]);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_messages_get_errors_and_the_socket_stays_usable() {
    let s = TestServer::start("ws-errors").await;
    let (id, south, north) = online_game(&s).await;
    let mut ws = connect(s.addr, &id).await;
    next(&mut ws).await;
    let cases: Vec<(Value, u16, &str)> = vec![
        (
            json!({"type": "move", "move": "A", "req": "a"}),
            400,
            "needs \"move\" and \"token\"",
        ),
        (
            json!({"type": "move", "move": "A", "token": "0123", "req": "b"}),
            403,
            "no seat",
        ),
        (
            json!({"type": "move", "move": "A", "token": north, "req": "c"}),
            409,
            "not your turn",
        ),
        (
            json!({"type": "move", "move": "a", "token": south, "req": "d"}),
            422,
            "not your hole",
        ),
        (
            json!({"type": "move", "move": "Q", "token": south, "req": "e"}),
            400,
            "unknown move 'Q'",
        ),
        (
            json!({"type": "move", "move": "A", "token": south, "expected_ply": 5, "req": "f"}),
            409,
            "stale",
        ),
        (
            json!({"type": "dance", "req": "g"}),
            400,
            "unknown message type 'dance'",
        ),
    ];
    for (msg, status, needle) in &cases {
        send(&mut ws, msg).await;
        let e = next(&mut ws).await;
        assert_eq!(e["type"], "error", "{msg}: {e}");
        assert_eq!(e["status"], *status, "{msg}: {e}");
        assert!(
            e["message"].as_str().unwrap().contains(needle),
            "{msg}: {e}"
        );
        assert_eq!(e["req"], msg["req"]);
    }
    ws.send(Message::text("{not json")).await.unwrap();
    let e = next(&mut ws).await;
    assert_eq!(
        (
            e["status"].as_u64(),
            e["message"].as_str().map(|m| m.contains("malformed JSON"))
        ),
        (Some(400), Some(true))
    );
    // Well-formed JSON of the wrong shape is a bad message, and its req comes back.
    send(&mut ws, &json!({"type": 5, "req": "h"})).await;
    let e = next(&mut ws).await;
    assert_eq!(e["status"], 400, "{e}");
    assert!(
        e["message"].as_str().unwrap().starts_with("bad message: "),
        "{e}"
    );
    assert_eq!(e["req"], "h");
    ws.send(Message::binary(vec![1u8, 2, 3])).await.unwrap();
    assert_eq!(next(&mut ws).await["status"], 400);
    ws.send(Message::binary(
        r#"{"type":"ping","req":"i"}"#.as_bytes().to_vec(),
    ))
    .await
    .unwrap();
    let e = next(&mut ws).await;
    assert_eq!(
        (e["status"].clone(), e["req"].clone()),
        (json!(400), json!("i"))
    );
    // Too large to read (but not to receive): 413 with the message's req, and the socket goes on.
    let big = json!({"type": "ping", "pad": "x".repeat(5000), "req": "j"});
    send(&mut ws, &big).await;
    let e = next(&mut ws).await;
    assert_eq!(e["status"], 413, "{e}");
    assert_eq!(e["req"], "j");
    send(&mut ws, &json!({"type": "ping", "req": 9})).await;
    assert_eq!(next(&mut ws).await, json!({"type": "pong", "req": 9}));
    // Nothing was played by any of it.
    assert_eq!(s.get(&format!("/api/games/{id}")).await.json()["ply"], 0);
    // Far too large: the connection is closed, the server goes on.
    let huge = json!({"type": "ping", "pad": "x".repeat(100 * 1024)});
    let _ = ws.send(Message::text(huge.to_string())).await;
    let closed = loop {
        match next_or_close(&mut ws).await {
            Ok(v) => assert_ne!(v["type"], "pong", "a huge message must not be answered"),
            Err(code) => break code,
        }
    };
    assert_eq!(closed, Some(1009), "a message too big closes with 1009");
    let mut again = connect(s.addr, &id).await;
    assert_eq!(next(&mut again).await["type"], "state");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flooding_socket_is_throttled_then_closed_and_others_play_on() {
    let s = TestServer::start("ws-flood").await;
    let (id, south, _north) = online_game(&s).await;
    let mut flood = connect(s.addr, &id).await;
    next(&mut flood).await;
    let mut player = connect(s.addr, &id).await;
    next(&mut player).await;
    // 400 messages at once: the first 40 (the burst) are answered, then 429s, then the close.
    let sender = tokio::spawn(async move {
        let t0 = std::time::Instant::now();
        for i in 0..400 {
            if flood
                .send(Message::text(json!({"type": "ping", "req": i}).to_string()))
                .await
                .is_err()
            {
                break;
            }
        }
        let (mut pongs, mut throttled) = (0u32, 0u32);
        let code = loop {
            match next_or_close(&mut flood).await {
                Ok(v) if v["type"] == "pong" => pongs += 1,
                Ok(v) if v["status"] == 429 => throttled += 1,
                Ok(v) => panic!("unexpected {v}"),
                Err(code) => break code,
            }
        };
        (pongs, throttled, code, t0.elapsed())
    });
    let (pongs, throttled, code, elapsed) = sender.await.unwrap();
    // The burst, plus what the rate refilled while the flood lasted (a loaded machine is slow).
    let allowed = 40 + (elapsed.as_secs_f64() * 20.0).ceil() as u32 + 1;
    assert!(
        (40..=allowed).contains(&pongs),
        "pongs {pongs}, allowed {allowed}"
    );
    assert!(
        (150..=200).contains(&throttled),
        "{throttled} refusals, then the close"
    );
    // The close frame (1008); on a loaded machine the peer may see a reset instead.
    assert!(
        matches!(code, Some(1008) | None),
        "closed for flooding: {code:?}"
    );
    // The other connection and the HTTP API are unaffected.
    send(
        &mut player,
        &json!({"type": "move", "move": "C", "token": south, "req": 1}),
    )
    .await;
    assert_eq!(next_of(&mut player, "ack").await["ply"], 1);
    assert_eq!(s.get(&format!("/api/games/{id}")).await.json()["ply"], 1);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_closes_sockets() {
    let s = TestServer::start("ws-shutdown").await;
    let (id, _, _) = online_game(&s).await;
    let mut ws = connect(s.addr, &id).await;
    next(&mut ws).await;
    let stop = tokio::spawn(s.stop());
    assert_eq!(next_or_close(&mut ws).await, Err(Some(1001)));
    stop.await.unwrap();
}

async fn try_connect(addr: std::net::SocketAddr, path: &str) -> Result<Ws, u16> {
    match tokio_tungstenite::connect_async(format!("ws://{addr}{path}")).await {
        Ok((ws, _)) => Ok(ws),
        Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => Err(resp.status().as_u16()),
        Err(e) => panic!("connect {path}: {e}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watchers_cannot_lock_the_players_out_of_their_game() {
    let s = TestServer::start("ws-many").await;
    let (id, south, north) = online_game(&s).await;
    let path = format!("/api/games/{id}/ws");
    // A stranger takes every watcher's place, and keeps trying for more.
    let max = pussa_server::ws::MAX_WATCHERS;
    let mut open = Vec::new();
    for _ in 0..max {
        let mut ws = try_connect(s.addr, &path).await.expect("a place");
        next(&mut ws).await;
        open.push(ws);
    }
    // No place is kept for connections that would say hello later: strangers could fill it.
    for _ in 0..20 {
        assert_eq!(try_connect(s.addr, &path).await.err(), Some(429));
    }
    // A player connecting with the seat's token always gets in, and is present.
    let mut ws_s = try_connect(s.addr, &format!("{path}?token={south}"))
        .await
        .expect("the seat's token always connects");
    assert_eq!(next(&mut ws_s).await["type"], "state");
    let p = next_of(&mut ws_s, "presence").await;
    assert_eq!(p["present"]["S"], true, "{p}");
    // So does the other player, and both are present: nobody can claim the win from them.
    let mut ws_n = try_connect(s.addr, &format!("{path}?token={north}"))
        .await
        .expect("the seat's token always connects");
    assert_eq!(next(&mut ws_n).await["type"], "state");
    let p = next_of(&mut ws_n, "presence").await;
    assert_eq!(
        (p["present"]["S"].clone(), p["present"]["N"].clone()),
        (json!(true), json!(true)),
        "{p}"
    );
    // A wrong token is refused.
    assert_eq!(
        try_connect(s.addr, &format!("{path}?token=nottheseat"))
            .await
            .err(),
        Some(403)
    );
    // A watcher that says hello with a seat's token moves to the seat's places, and its
    // watcher's place is free for someone else.
    let mut late = open.pop().unwrap();
    send(&mut late, &json!({"type": "hello", "token": north})).await;
    assert_eq!(next_of(&mut late, "hello").await["seat"], "N");
    let mut again = try_connect(s.addr, &path)
        .await
        .expect("the freed watcher's place");
    assert_eq!(next(&mut again).await["type"], "state");
    assert_eq!(try_connect(s.addr, &path).await.err(), Some(429));
    let mut first = open.remove(0);
    send(&mut first, &json!({"type": "ping"})).await;
    assert_eq!(next_of(&mut first, "pong").await["type"], "pong");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watchers_of_a_computer_game_see_the_move_then_the_reply() {
    let s = TestServer::start("ws-computer").await;
    let c = s
        .post(
            "/api/games",
            &json!({"game": "raja-pasu", "opponent": {"kind": "computer", "level": "casual"}}),
        )
        .await
        .json();
    let id = c["id"].as_str().unwrap().to_string();
    let mut watcher = connect(s.addr, &id).await;
    let before = next(&mut watcher).await["state"].clone();
    assert_eq!(before["ply"], 0);
    let r = s
        .post(
            &format!("/api/games/{id}/moves"),
            &json!({"move": "D", "token": c["token"]}),
        )
        .await
        .json();
    assert_eq!(r["played"].as_array().unwrap().len(), 2);
    // The move as soon as it is stored, then the reply in an update of its own.
    let u = next_of(&mut watcher, "update").await;
    assert_eq!(u["played"], json!([r["played"][0]]));
    assert_eq!(u["state"]["ply"], 1);
    let mid = apply_update(&before, &u);
    let u = next_of(&mut watcher, "update").await;
    assert_eq!(u["played"], json!([r["played"][1]]));
    assert_eq!(apply_update(&mid, &u), r["state"]);
    assert_eq!(u["state"]["ply"], 2);
    s.stop().await;
}

/// Against the computer, a WebSocket move's `ack` comes once the move is stored, not with the
/// computer's reply: the ack, then the move's own update (the computer to move), then the
/// reply's update.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_against_the_computer_is_acked_before_the_reply() {
    let s = TestServer::start("ws-computer-ack").await;
    let c = s
        .post(
            "/api/games",
            &json!({"game": "raja-pasu", "mode": "match", "opponent": {"kind": "computer", "level": "max"}}),
        )
        .await
        .json();
    let (id, token) = (c["id"].as_str().unwrap().to_string(), c["token"].clone());
    let mut ws = connect(s.addr, &id).await;
    let mut state = next_of(&mut ws, "state").await["state"].clone();
    for (i, mv) in ["D", "B"].into_iter().enumerate() {
        let legal = letters_of(&state["legal"]);
        let mv = if legal.iter().any(|l| l == mv) {
            mv.to_string()
        } else {
            legal[0].clone()
        };
        let ply = state["ply"].as_u64().unwrap() + 1;
        send(
            &mut ws,
            &json!({"type": "move", "move": mv, "token": token, "req": i}),
        )
        .await;
        let ack = next(&mut ws).await;
        assert_eq!(ack, json!({"type": "ack", "req": i, "ply": ply}));
        let u = next(&mut ws).await;
        assert_eq!(u["type"], "update", "{u}");
        assert_eq!(u["played"].as_array().unwrap().len(), 1, "{u}");
        assert_eq!(u["played"][0]["move"], mv.as_str());
        assert_eq!(u["state"]["to_move"], "N", "the computer is to move: {u}");
        state = apply_update(&state, &u);
        let u = next(&mut ws).await;
        assert_eq!(u["type"], "update", "{u}");
        assert_eq!(u["played"][0]["side"], "N", "{u}");
        state = apply_update(&state, &u);
        assert_eq!(state["to_move"], "S");
    }
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn messages_are_read_as_strictly_as_http_bodies() {
    let s = TestServer::start("ws-strict").await;
    let (id, south, _north) = online_game(&s).await;
    let mut ws = connect(s.addr, &id).await;
    next(&mut ws).await;
    // An array is not read as the fields in order.
    send(&mut ws, &json!(["move", "C", south, null, "r2"])).await;
    let e = next(&mut ws).await;
    assert_eq!(e["status"], 400, "{e}");
    assert_eq!(
        e["message"],
        "bad message: expected a JSON object like {\"type\": \"move\", ...}, found an array"
    );
    send(&mut ws, &json!([1, 2])).await;
    let e = next(&mut ws).await;
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("expected a JSON object"),
        "{e}"
    );
    // A misspelt field does not turn the guard off: the move is refused.
    send(
        &mut ws,
        &json!({"type": "move", "move": "C", "token": south, "ExpectedPly": 3, "req": "r4"}),
    )
    .await;
    let e = next(&mut ws).await;
    assert_eq!(
        (e["status"].as_u64(), e["req"].as_str()),
        (Some(400), Some("r4")),
        "{e}"
    );
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .starts_with("bad message: ExpectedPly: unknown field `ExpectedPly`"),
        "{e}"
    );
    // A field given twice is refused too.
    ws.send(Message::text(format!(
        r#"{{"type":"move","move":"C","move":"D","token":"{south}","req":"r5"}}"#
    )))
    .await
    .unwrap();
    let e = next(&mut ws).await;
    assert_eq!(e["status"], 400, "{e}");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("duplicate field `move`"),
        "{e}"
    );
    assert_eq!(s.get(&format!("/api/games/{id}")).await.json()["ply"], 0);
    // A well-formed move still plays.
    send(
        &mut ws,
        &json!({"type": "move", "move": "C", "token": south, "expected_ply": 0, "req": "r6"}),
    )
    .await;
    assert_eq!(next_of(&mut ws, "ack").await["ply"], 1);
    s.stop().await;
}

/// Connects to a game's socket and reads the `state`, then the `presence` that follows it.
async fn connect_with_presence(s: &TestServer, id: &str) -> (Ws, Value) {
    let mut ws = connect(s.addr, id).await;
    assert_eq!(recv(&mut ws).await.unwrap()["type"], "state");
    let p = recv(&mut ws).await.unwrap();
    assert_eq!(p["type"], "presence", "{p}");
    (ws, p["present"].clone())
}

/// Reads `presence` messages until one says `present` (others may come first: a connection
/// coming or going changes the count of watchers).
async fn wait_present(ws: &mut Ws, present: &Value) {
    while next_of(ws, "presence").await["present"] != *present {}
}

/// Closes a connection and waits for the server's close frame (by then the server has let the
/// connection's seats go).
async fn close(mut ws: Ws) {
    ws.close(None).await.unwrap();
    while let Ok(Some(_)) = tokio::time::timeout(
        std::time::Duration::from_secs(10),
        futures_util::StreamExt::next(&mut ws),
    )
    .await
    .map(|m| m.and_then(Result::ok))
    {}
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn presence_says_which_players_are_connected() {
    let s = TestServer::start("ws-presence").await;
    let (id, south, north) = online_game(&s).await;
    let nobody = json!({"S": false, "N": false});
    let (mut ws_s, p) = connect_with_presence(&s, &id).await;
    assert_eq!(p, nobody);
    let (mut watcher, p) = connect_with_presence(&s, &id).await;
    assert_eq!(p, nobody);

    // South says hello: its seat, and everyone is told South is here.
    send(
        &mut ws_s,
        &json!({"type": "hello", "token": south, "req": 1}),
    )
    .await;
    // (Its own `presence` first: the watcher's arrival changed the count of watchers.)
    assert_eq!(
        next_of(&mut ws_s, "hello").await,
        json!({"type": "hello", "seat": "S", "seats": ["S"], "req": 1})
    );
    let south_only = json!({"S": true, "N": false});
    for ws in [&mut ws_s, &mut watcher] {
        wait_present(ws, &south_only).await;
    }
    // North connects (told South is here), then says hello.
    let (mut ws_n, p) = connect_with_presence(&s, &id).await;
    assert_eq!(p, south_only);
    send(&mut ws_n, &json!({"type": "hello", "token": north})).await;
    assert_eq!(next_of(&mut ws_n, "hello").await["seat"], "N");
    let both = json!({"S": true, "N": true});
    for ws in [&mut ws_s, &mut ws_n, &mut watcher] {
        wait_present(ws, &both).await;
    }

    // A second tab for South changes no seat's presence (only the count of watchers, while
    // it has not said hello): every presence message before the pong says both are here.
    let (mut tab, p) = connect_with_presence(&s, &id).await;
    assert_eq!(p, both);
    send(&mut tab, &json!({"type": "hello", "token": south})).await;
    assert_eq!(next_of(&mut tab, "hello").await["seat"], "S");
    close(tab).await;
    send(&mut watcher, &json!({"type": "ping", "req": "p"})).await;
    loop {
        let m = recv(&mut watcher).await.unwrap();
        if m["type"] == "pong" {
            break;
        }
        assert_eq!(
            (m["type"].as_str(), &m["present"]),
            (Some("presence"), &both),
            "{m}"
        );
    }

    // North's socket closes: the others are told North has gone.
    close(ws_n).await;
    for ws in [&mut ws_s, &mut watcher] {
        wait_present(ws, &south_only).await;
    }
    // North comes back.
    let (mut ws_n, p) = connect_with_presence(&s, &id).await;
    assert_eq!(p, south_only);
    send(&mut ws_n, &json!({"type": "hello", "token": north})).await;
    for ws in [&mut ws_s, &mut ws_n, &mut watcher] {
        wait_present(ws, &both).await;
    }
    // A dropped connection (no close handshake) counts as gone too.
    drop(ws_s);
    for ws in [&mut ws_n, &mut watcher] {
        wait_present(ws, &json!({"S": false, "N": true})).await;
    }
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hello_needs_a_seat_token() {
    let s = TestServer::start("ws-hello").await;
    let (id, _south, _north) = online_game(&s).await;
    let (mut ws, _) = connect_with_presence(&s, &id).await;
    send(
        &mut ws,
        &json!({"type": "hello", "token": "f".repeat(32), "req": "x"}),
    )
    .await;
    let e = recv(&mut ws).await.unwrap();
    assert_eq!(
        (e["type"].as_str(), e["status"].as_u64(), e["req"].as_str()),
        (Some("error"), Some(403), Some("x")),
        "{e}"
    );
    assert!(
        e["message"].as_str().unwrap().contains("holds no seat"),
        "{e}"
    );
    send(&mut ws, &json!({"type": "hello", "req": "y"})).await;
    let e = recv(&mut ws).await.unwrap();
    assert_eq!(e["status"], 400, "{e}");
    assert!(
        e["message"].as_str().unwrap().contains("needs \"token\""),
        "{e}"
    );
    // Nobody became present: the next message is the pong.
    send(&mut ws, &json!({"type": "ping"})).await;
    assert_eq!(recv(&mut ws).await.unwrap()["type"], "pong");

    // A hot-seat token holds both seats; the computer is always there.
    let c = s
        .post("/api/games", &json!({"game": "raja-pasu"}))
        .await
        .json();
    let hot = c["id"].as_str().unwrap();
    let (mut ws, p) = connect_with_presence(&s, hot).await;
    assert_eq!(p, json!({"S": false, "N": false}));
    send(&mut ws, &json!({"type": "hello", "token": c["token"]})).await;
    assert_eq!(
        recv(&mut ws).await.unwrap(),
        json!({"type": "hello", "seats": ["S", "N"], "req": null})
    );
    assert_eq!(
        next_of(&mut ws, "presence").await["present"],
        json!({"S": true, "N": true})
    );
    let c = s
        .post(
            "/api/games",
            &json!({"game": "raja-pasu", "opponent": {"kind": "computer", "level": "beginner"}}),
        )
        .await
        .json();
    let (_ws, p) = connect_with_presence(&s, c["id"].as_str().unwrap()).await;
    assert_eq!(p, json!({"S": false, "N": true}));
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_update_follows_the_ack_at_once_on_the_movers_socket() {
    // Two small writes in a row on a socket without TCP_NODELAY: the second waits for the
    // peer's delayed ACK (about 40 ms on Linux).
    let s = TestServer::start("ws-nodelay").await;
    let c = s
        .post("/api/games", &json!({"game": "raja-pasu", "mode": "match"}))
        .await
        .json();
    let (id, token) = (c["id"].as_str().unwrap().to_string(), c["token"].clone());
    let mut ws = connect(s.addr, &id).await;
    next_of(&mut ws, "state").await;
    let mut gaps = Vec::new();
    let mut legal = letters_of(&c["state"]["legal"]);
    for i in 0..12 {
        if legal.is_empty() {
            break;
        }
        send(
            &mut ws,
            &json!({"type": "move", "move": legal[0], "token": token, "req": i}),
        )
        .await;
        let ack = next_of(&mut ws, "ack").await;
        assert_eq!(ack["req"], i);
        let t0 = std::time::Instant::now();
        let u = next_of(&mut ws, "update").await;
        gaps.push(t0.elapsed());
        legal = letters_of(&u["state"]["legal"]);
    }
    assert!(gaps.len() >= 6, "{gaps:?}");
    gaps.sort();
    let median = gaps[gaps.len() / 2];
    assert!(
        median < std::time::Duration::from_millis(20),
        "the update came {median:?} after the ack (median): {gaps:?}"
    );
    s.stop().await;
}

fn letters_of(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn req_is_echoed_as_documented() {
    let s = TestServer::start("ws-req").await;
    let (id, _, _) = online_game(&s).await;
    let mut ws = connect(s.addr, &id).await;
    next(&mut ws).await;
    // Exact: strings, objects, integers that fit in 64 bits.
    for req in [
        json!("123456789012345678901234567890"),
        json!({"n": [1, "x"]}),
        json!(u64::MAX),
        json!(i64::MIN),
    ] {
        send(&mut ws, &json!({"type": "ping", "req": req})).await;
        assert_eq!(next_of(&mut ws, "pong").await["req"], req);
    }
    // A larger integer comes back as the nearest double (docs/api.md says to send a string).
    ws.send(Message::text(
        r#"{"type":"ping","req":123456789012345678901234567890}"#,
    ))
    .await
    .unwrap();
    let pong = next_of(&mut ws, "pong").await;
    assert_eq!(pong["req"].as_f64(), Some(1.2345678901234568e29));
    s.stop().await;
}

/// A player whose network drops without closing the socket (it still answers WebSocket pings,
/// as a browser under network emulation does) sends no more messages: the others see them
/// away within `PRESENCE_SILENCE`, counted from their last message, and present again once
/// they speak. A player who keeps sending its application pings stays present.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_player_is_seen_away_within_the_presence_silence() {
    use pussa_server::ws::PRESENCE_SILENCE;
    use std::time::{Duration, Instant};
    let s = TestServer::start("ws-silence").await;
    let (id, south, north) = online_game(&s).await;
    let (mut watcher, _) = connect_with_presence(&s, &id).await;
    let (mut ws_s, _) = connect_with_presence(&s, &id).await;
    send(&mut ws_s, &json!({"type": "hello", "token": south})).await;
    // South keeps pinging every 2 s, as the page does.
    let pinger = tokio::spawn(async move {
        loop {
            send(&mut ws_s, &json!({"type": "ping"})).await;
            // Read what came (pongs, presence) so that the socket never backs up.
            let _ = tokio::time::timeout(Duration::from_secs(2), async {
                while recv(&mut ws_s).await.is_ok() {}
            })
            .await;
        }
    });
    let (mut ws_n, _) = connect_with_presence(&s, &id).await;
    send(&mut ws_n, &json!({"type": "hello", "token": north})).await;
    let said = Instant::now();
    wait_present(&mut watcher, &json!({"S": true, "N": true})).await;
    // North now says nothing: away once PRESENCE_SILENCE has passed since its hello.
    let away = loop {
        let p = next_of(&mut watcher, "presence").await;
        if p["present"] == json!({"S": true, "N": false}) {
            break p;
        }
        assert!(
            said.elapsed() < PRESENCE_SILENCE + Duration::from_secs(3),
            "{p}"
        );
    };
    let took = said.elapsed();
    assert!(
        took >= PRESENCE_SILENCE - Duration::from_millis(200)
            && took < PRESENCE_SILENCE + Duration::from_secs(2),
        "North seen away after {took:?}"
    );
    // Away since its last message, not since the server noticed.
    let ms = away["away_ms"]["N"].as_u64().unwrap();
    assert!(
        ms + 500 >= PRESENCE_SILENCE.as_millis() as u64,
        "away_ms {ms}: {away}"
    );
    // The socket is still open: North speaks again and is present again.
    send(&mut ws_n, &json!({"type": "ping", "req": 1})).await;
    wait_present(&mut watcher, &json!({"S": true, "N": true})).await;
    assert_eq!(next_of(&mut ws_n, "pong").await["req"], 1);
    pinger.abort();
    s.stop().await;
}

/// A message over 64 KiB, however far over, ends in a close frame 1009 that the client gets
/// with its reason: the server reads and drops the rest of the frame as it closes, rather than
/// resetting the connection with it unread (a reset destroys the close frame).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_over_64_kib_is_closed_with_1009_and_its_reason_every_time() {
    use futures_util::StreamExt;
    let s = TestServer::start("ws-1009").await;
    let (id, _, _) = online_game(&s).await;
    for size in [70_000, 300_000, 1_000_000, 4_000_000] {
        for _ in 0..3 {
            let mut ws = connect(s.addr, &id).await;
            next(&mut ws).await;
            let big = json!({"type": "ping", "req": "x".repeat(size)}).to_string();
            ws.send(Message::text(big))
                .await
                .unwrap_or_else(|e| panic!("{size} bytes: the message is sent whole: {e}"));
            let frame = loop {
                let msg = tokio::time::timeout(std::time::Duration::from_secs(10), ws.next())
                    .await
                    .expect("an answer within 10 s");
                match msg {
                    Some(Ok(Message::Close(frame))) => break frame,
                    Some(Ok(Message::Text(t))) => {
                        assert!(!t.contains("pong"), "a huge message must not be answered")
                    }
                    Some(Ok(_)) => {}
                    Some(Err(e)) => panic!("{size} bytes: no close frame but {e}"),
                    None => panic!("{size} bytes: the connection ended without a close frame"),
                }
            };
            let frame = frame.expect("a close frame with a code");
            assert_eq!(u16::from(frame.code), 1009, "{size} bytes: {frame:?}");
            assert!(
                frame.reason.contains("Message too long"),
                "{size} bytes: {frame:?}"
            );
        }
    }
    // The server goes on.
    let mut again = connect(s.addr, &id).await;
    assert_eq!(next(&mut again).await["type"], "state");
    s.stop().await;
}

/// A Pasu Pondi match on one screen (long, with many round ends): its id and token.
async fn pasu_pondi_match_on_one_screen(s: &TestServer) -> (String, String) {
    let c = s
        .post(
            "/api/games",
            &json!({"game": "pasu-pondi", "mode": "match", "opponent": {"kind": "hotseat"}}),
        )
        .await
        .json();
    (
        c["id"].as_str().unwrap().to_string(),
        c["token"].as_str().unwrap().to_string(),
    )
}

/// Every update carries what changed, not the whole game (each one re-sent the whole game,
/// 204 KiB a move at ply 1500: QA pass 15): over a long match, with undos across round ends, a
/// watcher that applies each update to its last state always has the server's state, and the
/// updates stay small however long the game.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn updates_carry_what_changed_and_rebuild_the_state_through_a_long_match() {
    let s = TestServer::start("ws-deltas").await;
    let (id, token) = pasu_pondi_match_on_one_screen(&s).await;
    let mut watcher = connect(s.addr, &id).await;
    let first = next_of(&mut watcher, "state").await;
    let mut last = first["state"].clone();
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    let mut biggest_late = 0usize;
    let mut undos_across_rounds = 0;
    let mut round_ends = 0;
    let mut undo_next = false;
    let mut ply = 0u64;
    while ply < 700 {
        let st = s.get(&format!("/api/games/{id}")).await.json();
        if st["match_over"] == true {
            break;
        }
        let legal = letters_of(&st["legal"]);
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        // Every other round's end is taken back at once; other undos now and then.
        let undo = std::mem::take(&mut undo_next)
            || (st["ply"].as_u64().unwrap() > 0 && rng.is_multiple_of(13));
        let r = if undo {
            s.post(&format!("/api/games/{id}/undo"), &json!({"token": token}))
                .await
        } else {
            let mv = &legal[(rng >> 20) as usize % legal.len()];
            s.post(
                &format!("/api/games/{id}/moves"),
                &json!({"move": mv, "token": token}),
            )
            .await
        };
        assert_eq!(r.status, 200, "{}", r.body);
        let u = next_of(&mut watcher, "update").await;
        let size = u.to_string().len();
        let rounds_before = last["rounds"].as_array().unwrap().len();
        last = apply_update(&last, &u);
        assert_eq!(last, r.json()["state"], "after ply {ply}: {u}");
        if undo && last["rounds"].as_array().unwrap().len() < rounds_before {
            undos_across_rounds += 1;
        }
        if !undo && u["rounds_added"].as_array().is_some_and(|a| !a.is_empty()) {
            round_ends += 1;
            undo_next = round_ends % 2 == 1;
        }
        ply = last["ply"].as_u64().unwrap();
        if ply > 300 {
            biggest_late = biggest_late.max(size);
        }
    }
    assert!(ply >= 300, "the match ended at ply {ply}");
    let whole = s.get(&format!("/api/games/{id}")).await.json();
    assert_eq!(last, whole);
    let whole_size = whole.to_string().len();
    // The whole state of a long match is tens of KiB; an update a few.
    assert!(whole_size > 40_000, "{whole_size}");
    assert!(biggest_late < 12_000, "an update of {biggest_late} bytes");
    // A new connection gets the whole state.
    let mut late = connect(s.addr, &id).await;
    assert_eq!(next_of(&mut late, "state").await["state"], whole);
    assert!(undos_across_rounds > 0, "no undo crossed a round's end");
    s.stop().await;
}

/// A connection too slow to keep up gets the whole state instead of the updates it missed, and
/// none of the older updates after it (the channel's backlog of up to 64 used to follow the
/// state, taking a client that applies each update back dozens of plies: QA pass 15).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_resync_state_no_older_update_follows() {
    let s = TestServer::start("ws-resync").await;
    let (id, token) = pasu_pondi_match_on_one_screen(&s).await;
    // A watcher with a small receive buffer that stops reading after the first state.
    let sock = tokio::net::TcpSocket::new_v4().unwrap();
    sock.set_recv_buffer_size(2048).unwrap();
    let stream = sock.connect(s.addr).await.unwrap();
    let (mut slow, _) = tokio_tungstenite::client_async(
        format!("ws://{}/api/games/{id}/ws", s.addr),
        tokio_tungstenite::MaybeTlsStream::Plain(stream),
    )
    .await
    .unwrap();
    let first = next_of(&mut slow, "state").await;
    let legal = letters_of(&first["state"]["legal"]);
    // Move and undo, far more updates than the watcher's buffers and the channel hold.
    for _ in 0..1500 {
        for (path, body) in [
            ("moves", json!({"move": legal[0], "token": token})),
            ("undo", json!({"token": token})),
        ] {
            let r = s.post(&format!("/api/games/{id}/{path}"), &body).await;
            assert_eq!(r.status, 200, "{}", r.body);
        }
    }
    let now = s.get(&format!("/api/games/{id}")).await.json();
    // The watcher reads again: the updates its buffers held, then the state instead of the
    // rest.
    let mut read = 0;
    let resync = loop {
        let m = next(&mut slow).await;
        if m["type"] == "state" {
            break m;
        }
        assert_eq!(m["type"], "update", "{m}");
        read += 1;
        assert!(read < 3000, "no resync: the watcher kept up");
    };
    assert_eq!(resync["state"], now);
    eprintln!("updates read before the resync: {read}");
    // The next update is the next change, not one from before the state.
    let r = s
        .post(
            &format!("/api/games/{id}/moves"),
            &json!({"move": legal[1], "token": token}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let u = next(&mut slow).await;
    assert_eq!(u["type"], "update", "{u}");
    assert_eq!(
        u["played"][0]["move"], legal[1],
        "an update from before the resync state followed it: {u}"
    );
    assert_eq!(apply_update(&resync["state"], &u), r.json()["state"]);
    s.stop().await;
}

/// Connects to a game's socket with `?token=` (the connection holds the seat from the start).
async fn connect_with_token(s: &TestServer, id: &str, token: &str) -> Ws {
    let (ws, _) = tokio_tungstenite::connect_async(format!(
        "ws://{}/api/games/{id}/ws?token={token}",
        s.addr
    ))
    .await
    .expect("websocket connects");
    ws
}

/// The presence messages that come within `wait` (other messages skipped).
async fn presences_within(ws: &mut Ws, wait: std::time::Duration) -> Vec<Value> {
    let mut out = Vec::new();
    let _ = tokio::time::timeout(wait, async {
        loop {
            match recv(ws).await {
                Ok(v) if v["type"] == "presence" => out.push(v),
                Ok(_) => {}
                Err(_) => break,
            }
        }
    })
    .await;
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_connecting_with_its_token_is_never_counted_as_a_watcher() {
    let s = TestServer::start("ws-token-presence").await;
    let (id, south, north) = online_game(&s).await;
    let mut host = connect_with_token(&s, &id, &south).await;
    assert_eq!(next_of(&mut host, "presence").await["present"]["S"], true);
    let quiet = std::time::Duration::from_millis(300);
    presences_within(&mut host, quiet).await;

    // The guest connects with its token: one presence, its seat present, no watcher.
    let guest = connect_with_token(&s, &id, &north).await;
    let seen = presences_within(&mut host, quiet).await;
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(seen[0]["present"], json!({"S": true, "N": true}));
    assert_eq!(seen[0]["watchers"], 0);
    assert_eq!(seen[0]["away_ms"], json!({}));

    // A second tab of the guest changes nobody's presence: no message at all.
    let tab = connect_with_token(&s, &id, &north).await;
    let seen = presences_within(&mut host, quiet).await;
    assert!(seen.is_empty(), "{seen:?}");
    close(tab).await;
    close(guest).await;
    wait_present(&mut host, &json!({"S": true, "N": false})).await;

    // The guest coming back: present again at once, never a watcher.
    let _guest = connect_with_token(&s, &id, &north).await;
    let seen = presences_within(&mut host, quiet).await;
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(seen[0]["present"], json!({"S": true, "N": true}));
    assert_eq!(seen[0]["watchers"], 0);
    s.stop().await;
}

/// RFC 6455, section 4.2.2: a handshake with a version the server does not speak gets `426
/// Upgrade Required` and `Sec-WebSocket-Version` naming the version it does (13), so that a
/// library negotiating the version can read it; one without a version is 400 with that header.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unsupported_websocket_version_is_426_with_the_version_spoken() {
    let s = TestServer::start("ws-version").await;
    let (id, _, _) = online_game(&s).await;
    let handshake = |version: Option<&str>| {
        let mut req = format!(
            "GET /api/games/{id}/ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, close\r\n\
             Upgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        );
        if let Some(v) = version {
            req.push_str(&format!("Sec-WebSocket-Version: {v}\r\n"));
        }
        req.push_str("\r\n");
        req
    };
    let r = common::raw(s.addr, handshake(Some("8")).as_bytes()).await;
    assert_eq!(r.status, 426, "{}", r.body);
    assert_eq!(r.header("sec-websocket-version"), Some("13"));
    r.assert_error(
        426,
        "WebSocket version '8' is not supported: this server speaks version 13",
    );
    let r = common::raw(s.addr, handshake(None).as_bytes()).await;
    assert_eq!(r.header("sec-websocket-version"), Some("13"));
    r.assert_error(400, "needs the header Sec-WebSocket-Version: 13");
    s.stop().await;
}

/// A game whose computer moves as it is made (the computer first, or to move after an
/// import): the first update after it keeps the computer's moves (`moves_kept` counts them),
/// so a client that rebuilds the state from the updates has every move.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_computers_moves_made_with_the_game_are_kept_by_the_next_update() {
    let s = TestServer::start("ws-computer-opens").await;
    let made = s
        .post(
            "/api/games",
            &json!({"game": "raja-pasu", "seat": "N", "opponent": {"kind": "computer", "level": "casual"}}),
        )
        .await
        .json();
    let record = "[Game \"raja-pasu\"]\n[Result \"*\"]\n\n1. D *\n";
    let imported = s
        .post(
            "/api/games/import",
            &json!({"record": record, "seat": "S", "opponent": {"kind": "computer", "level": "casual"}}),
        )
        .await
        .json();
    for (c, opened) in [(made, 1), (imported, 2)] {
        let (id, token) = (c["id"].as_str().unwrap().to_string(), c["token"].clone());
        assert_eq!(
            c["state"]["ply"], opened,
            "the computer moved with the game: {c}"
        );
        let mut ws = connect_with_token(&s, &id, token.as_str().unwrap()).await;
        let state = next_of(&mut ws, "state").await["state"].clone();
        let mv = letters_of(&state["legal"])[0].clone();
        s.post(
            &format!("/api/games/{id}/moves"),
            &json!({"move": mv, "token": token}),
        )
        .await;
        let u = next_of(&mut ws, "update").await;
        assert_eq!(u["moves_kept"], opened, "{u}");
        let rebuilt = apply_update(&state, &u);
        let now = s.get(&format!("/api/games/{id}")).await.json();
        assert_eq!(
            rebuilt["moves"].as_array().unwrap()[..=opened as usize],
            now["moves"].as_array().unwrap()[..=opened as usize]
        );
    }
    s.stop().await;
}

/// A watcher whose network drops without closing the socket sends no more messages (the page
/// pings every 2 s, players and watchers alike): like a silent player, it stops being counted
/// in `watchers` within `PRESENCE_SILENCE`, and is counted again once it speaks. A watcher that
/// keeps pinging stays counted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_watcher_leaves_the_count_of_watchers_within_the_presence_silence() {
    use pussa_server::ws::PRESENCE_SILENCE;
    use std::time::{Duration, Instant};
    let s = TestServer::start("ws-silent-watcher").await;
    let (id, south, _north) = online_game(&s).await;
    let mut host = connect_with_token(&s, &id, &south).await;
    assert_eq!(next_of(&mut host, "presence").await["watchers"], 0);
    // A watcher that pings every 2 s, as the page does.
    let (mut pinging, _) = connect_with_presence(&s, &id).await;
    let pinger = tokio::spawn(async move {
        loop {
            send(&mut pinging, &json!({"type": "ping"})).await;
            let _ = tokio::time::timeout(Duration::from_secs(2), async {
                while recv(&mut pinging).await.is_ok() {}
            })
            .await;
        }
    });
    // The host pings too (a player silent for as long would be seen away).
    let (mut silent, _) = connect_with_presence(&s, &id).await;
    let since = Instant::now();
    let mut last_ping = Instant::now();
    send(&mut host, &json!({"type": "ping"})).await;
    let mut counts = Vec::new();
    let dropped = loop {
        if last_ping.elapsed() >= Duration::from_secs(2) {
            send(&mut host, &json!({"type": "ping"})).await;
            last_ping = Instant::now();
        }
        let Ok(m) = tokio::time::timeout(Duration::from_millis(500), recv(&mut host)).await else {
            assert!(
                since.elapsed() < PRESENCE_SILENCE + Duration::from_secs(4),
                "the silent watcher is still counted: {counts:?}"
            );
            continue;
        };
        let m = m.unwrap();
        if m["type"] != "presence" {
            continue;
        }
        counts.push(m["watchers"].clone());
        if m["watchers"] == 1 && counts.contains(&json!(2)) {
            break since.elapsed();
        }
        assert!(
            since.elapsed() < PRESENCE_SILENCE + Duration::from_secs(4),
            "the silent watcher is still counted: {counts:?}"
        );
    };
    assert!(
        dropped >= PRESENCE_SILENCE - Duration::from_millis(300),
        "a watcher silent for {dropped:?} only is not dropped: {counts:?}"
    );
    // The silent watcher speaks: counted again (the pinging one never left the count).
    send(&mut silent, &json!({"type": "ping", "req": 1})).await;
    loop {
        let p = next_of(&mut host, "presence").await;
        if p["watchers"] == 2 {
            break;
        }
        assert_eq!(p["watchers"], 1, "{p}");
    }
    assert_eq!(next_of(&mut silent, "pong").await["req"], 1);
    pinger.abort();
    s.stop().await;
}
