//! Ending a game before the rules do: resign, abort, draw offers, takebacks, claims when the
//! friend has left; presence's watchers and away times; a rematch's series score.

mod common;

use std::time::Duration;

use common::wsc::{connect, next_of, send, Ws};
use common::{letters, Resp, TestServer};
use serde_json::{json, Value};

async fn post(s: &TestServer, id: &str, what: &str, body: Value) -> Resp {
    s.post(&format!("/api/games/{id}/{what}"), &body).await
}

/// `body` posted to `…/{what}`, expecting 200: the answer.
async fn ok(s: &TestServer, id: &str, what: &str, body: Value) -> Value {
    let r = post(s, id, what, body).await;
    assert_eq!(r.status, 200, "{what}: {}", r.body);
    r.json()
}

async fn state(s: &TestServer, id: &str) -> Value {
    s.get(&format!("/api/games/{id}")).await.json()
}

/// Plays the first legal move for `token` (whose turn it must be); the state after it.
async fn play_first(s: &TestServer, id: &str, token: &str) -> Value {
    let st = state(s, id).await;
    let mv = letters(&st["legal"])[0].clone();
    ok(
        s,
        id,
        "moves",
        json!({"move": mv, "token": token, "expected_ply": st["ply"]}),
    )
    .await["state"]
        .clone()
}

/// Asserts the state is over with this ending and winner, and refuses moves, undo and hints
/// with `message`.
async fn assert_ended(s: &TestServer, id: &str, token: &str, ended: Value, winner: Value) {
    let st = state(s, id).await;
    assert_eq!(st["ended"], ended, "{st}");
    assert_eq!(st["winner"], winner, "{st}");
    assert_eq!(
        (&st["match_over"], &st["round_over"], &st["to_move"]),
        (&json!(true), &json!(true), &Value::Null)
    );
    assert_eq!(st["legal"], json!([]));
    assert_eq!(st["offers"], json!({"draw": null, "takeback": null}));
    let r = post(s, id, "moves", json!({"move": "A", "token": token})).await;
    assert_eq!(r.status, 409, "{}", r.body);
    assert!(r.json()["error"].as_str().unwrap().contains("is over"));
    assert_eq!(
        post(s, id, "undo", json!({"token": token})).await.status,
        409
    );
    let h = s.get(&format!("/api/games/{id}/hint?token={token}")).await;
    assert_eq!(h.status, 409, "{}", h.body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resign_ends_every_kind_of_game_and_a_whole_match() {
    let s = TestServer::start("end-resign").await;

    // Hot-seat: the side to move resigns.
    let c = s
        .post("/api/games", &json!({"game": "raja-pasu"}))
        .await
        .json();
    let (id, tok) = (c["id"].as_str().unwrap(), c["token"].as_str().unwrap());
    play_first(&s, id, tok).await; // South moved: North is to move.
    let a = ok(&s, id, "resign", json!({"token": tok})).await;
    assert_eq!(a["state"]["ended"], json!({"kind": "resign", "by": "N"}));
    assert_ended(
        &s,
        id,
        tok,
        json!({"kind": "resign", "by": "N"}),
        json!("S"),
    )
    .await;
    let r = post(&s, id, "resign", json!({"token": tok})).await;
    r.assert_error(409, "the game is over: North resigned");
    let r = post(&s, id, "moves", json!({"move": "a", "token": tok})).await;
    r.assert_error(409, "the game is over: North resigned");

    // Against the computer: the player's seat, whoever is to move.
    let c = s
        .post(
            "/api/games",
            &json!({"game": "raja-pasu", "seat": "N",
                    "opponent": {"kind": "computer", "level": "beginner"}}),
        )
        .await
        .json();
    let (id, tok) = (c["id"].as_str().unwrap(), c["token"].as_str().unwrap());
    ok(&s, id, "resign", json!({"token": tok})).await;
    assert_ended(
        &s,
        id,
        tok,
        json!({"kind": "resign", "by": "N"}),
        json!("S"),
    )
    .await;

    // Online: nobody joined yet is refused; then the token's seat resigns, whoever is to move.
    let c = s
        .post(
            "/api/games",
            &json!({"game": "walak-pussa", "opponent": {"kind": "online"}}),
        )
        .await
        .json();
    let r = post(
        &s,
        c["id"].as_str().unwrap(),
        "resign",
        json!({"token": c["token"]}),
    )
    .await;
    r.assert_error(409, "nobody has joined yet: abort the game instead");
    let (id, south, north) = s.online_game_with("walak-pussa", "single", "S").await;
    let mut ws = connect(s.addr, &id).await;
    // The socket follows the game once its first state is sent: wait for it, or an
    // update made meanwhile can be missed.
    next_of(&mut ws, "state").await;
    ok(&s, &id, "resign", json!({"token": north})).await;
    let u = next_of(&mut ws, "update").await;
    assert_eq!(u["ended"], json!({"kind": "resign", "by": "N"}), "{u}");
    assert_eq!(u["state"]["winner"], "S");
    assert_ended(
        &s,
        &id,
        &south,
        json!({"kind": "resign", "by": "N"}),
        json!("S"),
    )
    .await;

    // A match: resigning ends the whole match, in its first round.
    let c = s
        .post("/api/games", &json!({"game": "raja-pasu", "mode": "match"}))
        .await
        .json();
    let (mid, tok) = (c["id"].as_str().unwrap(), c["token"].as_str().unwrap());
    play_first(&s, mid, tok).await;
    play_first(&s, mid, tok).await;
    let st = ok(&s, mid, "resign", json!({"token": tok})).await["state"].clone();
    assert_eq!((&st["round"], &st["ply"]), (&json!(1), &json!(2)));
    assert_ended(
        &s,
        mid,
        tok,
        json!({"kind": "resign", "by": "S"}),
        json!("N"),
    )
    .await;
    let r = post(&s, mid, "moves", json!({"move": "A", "token": tok})).await;
    r.assert_error(409, "the match is over: South resigned");

    // The list counts them as finished, with their winner and how they ended.
    let list = s.get("/api/games?finished=true").await.json();
    let row = list["games"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["id"] == id.as_str())
        .unwrap()
        .clone();
    assert_eq!(
        (&row["winner"], &row["ended"]),
        (&json!("S"), &json!("resign"))
    );
    assert!(row["finished"].is_string(), "{row}");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn abort_before_the_join_or_before_both_moved_and_not_after() {
    let s = TestServer::start("end-abort").await;
    // Before the friend joins: the host may abort.
    let c = s
        .post(
            "/api/games",
            &json!({"game": "raja-pasu", "opponent": {"kind": "online"}}),
        )
        .await
        .json();
    let (id, tok) = (c["id"].as_str().unwrap(), c["token"].as_str().unwrap());
    let st = ok(&s, id, "abort", json!({"token": tok})).await["state"].clone();
    assert_eq!(st["ended"], json!({"kind": "abort", "by": "S"}));
    assert_ended(
        &s,
        id,
        tok,
        json!({"kind": "abort", "by": "S"}),
        Value::Null,
    )
    .await;
    // Its invite is of no use now, and the game cannot be aborted twice.
    post(&s, id, "abort", json!({"token": tok}))
        .await
        .assert_error(409, "the game is over: it was aborted");
    post(&s, id, "rematch", json!({"token": tok}))
        .await
        .assert_error(409, "nobody joined this game");
    post(&s, id, "join", json!({"invite": c["invite"]["token"]}))
        .await
        .assert_error(409, "the game is over: it was aborted");

    // Only South has moved: North may abort.
    let (id, south, north) = s.online_game_with("raja-pasu", "single", "S").await;
    play_first(&s, &id, &south).await;
    ok(&s, &id, "abort", json!({"token": north})).await;
    assert_ended(
        &s,
        &id,
        &south,
        json!({"kind": "abort", "by": "N"}),
        Value::Null,
    )
    .await;
    let list = s.get("/api/games?finished=true").await.json();
    let row = list["games"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["id"] == id.as_str())
        .unwrap()
        .clone();
    assert_eq!(
        (&row["winner"], &row["ended"]),
        (&Value::Null, &json!("abort"))
    );

    // Both have moved: too late.
    let (id, south, north) = s.online_game_with("raja-pasu", "single", "S").await;
    play_first(&s, &id, &south).await;
    play_first(&s, &id, &north).await;
    for tok in [&south, &north] {
        post(&s, &id, "abort", json!({"token": tok}))
            .await
            .assert_error(
                409,
                "too late to abort: both players have moved; resign or offer a draw",
            );
    }
    assert_eq!(state(&s, &id).await["ended"], Value::Null);

    // Not an online game.
    let c = s
        .post("/api/games", &json!({"game": "raja-pasu"}))
        .await
        .json();
    post(
        &s,
        c["id"].as_str().unwrap(),
        "abort",
        json!({"token": c["token"]}),
    )
    .await
    .assert_error(409, "abort is for online games");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn draw_offers_are_made_declined_withdrawn_cleared_by_a_move_and_agreed() {
    let s = TestServer::start("end-draw").await;
    let (id, south, north) = s.online_game_with("walak-pussa", "single", "S").await;
    let mut ws = connect(s.addr, &id).await;
    // The socket follows the game once its first state is sent: wait for it, or an
    // update made meanwhile can be missed.
    next_of(&mut ws, "state").await;
    let offers = |st: &Value| st["offers"].clone();

    // South offers: everyone sees it; North declines.
    let st = ok(&s, &id, "draw", json!({"token": south, "offer": true})).await["state"].clone();
    assert_eq!(offers(&st), json!({"draw": "S", "takeback": null}));
    let u = next_of(&mut ws, "update").await;
    assert_eq!(
        u["offer"],
        json!({"kind": "draw", "by": "S", "action": "offer"})
    );
    assert_eq!(u["state"]["offers"]["draw"], "S");
    let st = ok(&s, &id, "draw", json!({"token": north, "offer": false})).await["state"].clone();
    assert_eq!(offers(&st)["draw"], Value::Null);
    let u = next_of(&mut ws, "update").await;
    assert_eq!(
        u["offer"],
        json!({"kind": "draw", "by": "N", "action": "decline"})
    );

    // South offers again and withdraws.
    ok(&s, &id, "draw", json!({"token": south, "offer": true})).await;
    let st = ok(&s, &id, "draw", json!({"token": south, "offer": false})).await["state"].clone();
    assert_eq!(offers(&st)["draw"], Value::Null);

    // An offer stands until the other side moves: the friend's move declines it.
    ok(&s, &id, "draw", json!({"token": north, "offer": true})).await;
    assert_eq!(state(&s, &id).await["offers"]["draw"], "N");
    let st = play_first(&s, &id, &south).await;
    assert_eq!(offers(&st), json!({"draw": null, "takeback": null}));

    // North offers, South answers true: agreed.
    ok(&s, &id, "draw", json!({"token": north, "offer": true})).await;
    let st = ok(&s, &id, "draw", json!({"token": south, "offer": true})).await["state"].clone();
    assert_eq!(st["ended"], json!({"kind": "draw_agreed"}));
    loop {
        let u = next_of(&mut ws, "update").await;
        if u.get("ended").is_some() {
            assert_eq!(u["ended"], json!({"kind": "draw_agreed"}));
            break;
        }
    }
    assert_ended(
        &s,
        &id,
        &north,
        json!({"kind": "draw_agreed"}),
        json!("draw"),
    )
    .await;
    post(&s, &id, "draw", json!({"token": north, "offer": true}))
        .await
        .assert_error(409, "is over");

    // Not online, or nobody joined yet.
    let c = s
        .post("/api/games", &json!({"game": "raja-pasu"}))
        .await
        .json();
    post(
        &s,
        c["id"].as_str().unwrap(),
        "draw",
        json!({"token": c["token"], "offer": true}),
    )
    .await
    .assert_error(409, "for online games");
    let c = s
        .post(
            "/api/games",
            &json!({"game": "raja-pasu", "opponent": {"kind": "online"}}),
        )
        .await
        .json();
    post(
        &s,
        c["id"].as_str().unwrap(),
        "draw",
        json!({"token": c["token"], "offer": true}),
    )
    .await
    .assert_error(409, "waiting for your friend");
    // Bodies are read strictly.
    post(
        &s,
        &id,
        "draw",
        json!({"token": south, "offer": true, "offre": 1}),
    )
    .await
    .assert_error(400, "unknown field");
    s.stop().await;
}

/// Plays the match `id` with legal moves from a fixed generator until round 2 has begun; the
/// state then.
async fn play_into_round_two(s: &TestServer, id: &str, south: &str, north: &str) -> Value {
    let mut st = state(s, id).await;
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    while st["round"] == 1 {
        assert_eq!(st["match_over"], false, "the match goes on after round 1");
        let legal = letters(&st["legal"]);
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let mv = &legal[(x >> 33) as usize % legal.len()];
        let token = if st["to_move"] == "S" { south } else { north };
        st = ok(
            s,
            id,
            "moves",
            json!({"move": mv, "token": token, "expected_ply": st["ply"]}),
        )
        .await["state"]
            .clone();
    }
    st
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn takebacks_are_proposed_declined_and_accepted_across_a_round_boundary() {
    let dir = common::temp_dir("end-takeback");
    let s = TestServer::start_in(dir.clone()).await;
    let (id, south, north) = s.online_game_with("walak-pussa", "match", "S").await;
    let tok = |side: &str| if side == "S" { &south } else { &north };

    // Nobody has moved: nothing to take back.
    post(&s, &id, "takeback", json!({"token": south, "offer": true}))
        .await
        .assert_error(409, "you have not moved yet");

    let mut st = play_into_round_two(&s, &id, &south, &north).await;
    let ender_ply = st["ply"].as_u64().unwrap();
    let ender = st["moves"][ender_ply as usize - 1]["side"]
        .as_str()
        .unwrap()
        .to_string();
    let other = if ender == "S" { "N" } else { "S" };
    // If the other side opens round 2, it moves once: the ender's last move is then 2 back.
    if st["to_move"] == other {
        st = play_first(&s, &id, tok(other)).await;
    }
    let ply = st["ply"].as_u64().unwrap();
    assert_eq!(st["round"], 2);

    // The ender proposes; the other declines; the ender proposes again.
    let st = ok(
        &s,
        &id,
        "takeback",
        json!({"token": tok(&ender), "offer": true, "expected_ply": ply}),
    )
    .await["state"]
        .clone();
    assert_eq!(st["offers"]["takeback"], ender.as_str());
    ok(
        &s,
        &id,
        "takeback",
        json!({"token": tok(other), "offer": false}),
    )
    .await;
    assert_eq!(state(&s, &id).await["offers"]["takeback"], Value::Null);
    ok(
        &s,
        &id,
        "takeback",
        json!({"token": tok(&ender), "offer": true}),
    )
    .await;
    // A stale answer is refused and changes nothing.
    post(
        &s,
        &id,
        "takeback",
        json!({"token": tok(other), "offer": true, "expected_ply": ply - 1}),
    )
    .await
    .assert_error(409, "stale takeback");
    assert_eq!(state(&s, &id).await["offers"]["takeback"], ender.as_str());

    // The other accepts: back to just before the ender's round-ending move, in round 1.
    let mut ws = connect(s.addr, &id).await;
    // The socket follows the game once its first state is sent: wait for it, or an
    // update made meanwhile can be missed.
    next_of(&mut ws, "state").await;
    let a = ok(
        &s,
        &id,
        "takeback",
        json!({"token": tok(other), "offer": true, "expected_ply": ply}),
    )
    .await;
    let undone = ply - (ender_ply - 1);
    assert_eq!(a["undone"], undone, "{a}");
    let st = a["state"].clone();
    assert_eq!(
        (&st["ply"], &st["round"], &st["to_move"]),
        (&json!(ender_ply - 1), &json!(1), &json!(ender.as_str()))
    );
    assert_eq!(st["offers"], json!({"draw": null, "takeback": null}));
    assert_eq!(st["rounds"], json!([]));
    let u = next_of(&mut ws, "update").await;
    assert_eq!(
        (&u["undone"], &u["state"]["ply"]),
        (&json!(undone), &st["ply"])
    );
    drop(ws);

    // The stored moves were cut: a restart rebuilds the same game.
    s.stop().await;
    let s = TestServer::start_in(dir).await;
    let again = state(&s, &id).await;
    assert_eq!(again, st);
    // And play goes on from there.
    play_first(&s, &id, tok(&ender)).await;
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_may_claim_once_the_friend_has_been_away_long_enough() {
    let s = TestServer::start_with_claim_after(
        common::temp_dir("end-claim"),
        Duration::from_millis(1500),
    )
    .await;
    let (id, south, north) = s.online_game_with("raja-pasu", "single", "S").await;
    // The claimant must be here.
    post(&s, &id, "claim", json!({"token": south, "result": "win"}))
        .await
        .assert_error(409, "you are not connected to the game");
    let mut ws_s = connect(s.addr, &id).await;
    send(&mut ws_s, &json!({"type": "hello", "token": south})).await;
    next_of(&mut ws_s, "hello").await;
    // North is here.
    let mut ws_n = connect(s.addr, &id).await;
    send(&mut ws_n, &json!({"type": "hello", "token": north})).await;
    next_of(&mut ws_n, "hello").await;
    post(&s, &id, "claim", json!({"token": south, "result": "win"}))
        .await
        .assert_error(409, "your friend is here");
    play_first(&s, &id, &south).await;
    play_first(&s, &id, &north).await;
    // North leaves: too early. The claim is asked again until the server has seen the close
    // (it said "your friend is here" until then), not after a guessed sleep.
    drop(ws_n);
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let away = loop {
        let r = post(&s, &id, "claim", json!({"token": south, "result": "win"})).await;
        if !r.body.contains("your friend is here") {
            break r;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the server never saw North's socket close: {}",
            r.body
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    away.assert_error(
        409,
        "your friend has been away for 0 s: you may claim after 1.5 s",
    );
    post(&s, &id, "claim", json!({"token": south, "result": "lose"}))
        .await
        .assert_error(400, "result");
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let st = ok(&s, &id, "claim", json!({"token": south, "result": "win"})).await["state"].clone();
    assert_eq!(st["ended"], json!({"kind": "claim_win", "by": "S"}));
    assert_ended(
        &s,
        &id,
        &north,
        json!({"kind": "claim_win", "by": "S"}),
        json!("S"),
    )
    .await;
    let rec = s.get(&format!("/api/games/{id}/record")).await.body;
    assert!(
        rec.contains("[Termination \"South claimed the win: North left\"]"),
        "{rec}"
    );
    drop(ws_s);

    // A friend who moved and was never seen since the game was loaded: a draw claimed by North,
    // connected with its token on the socket's address.
    let (id, south, north) = s.online_game_with("raja-pasu", "single", "S").await;
    play_first(&s, &id, &south).await;
    let (mut ws_n, _) = tokio_tungstenite::connect_async(format!(
        "ws://{}/api/games/{id}/ws?token={north}",
        s.addr
    ))
    .await
    .expect("a seat's token connects");
    next_of(&mut ws_n, "state").await;
    tokio::time::sleep(Duration::from_millis(1600)).await;
    ok(&s, &id, "claim", json!({"token": north, "result": "draw"})).await;
    assert_ended(
        &s,
        &id,
        &south,
        json!({"kind": "claim_draw", "by": "N"}),
        json!("draw"),
    )
    .await;
    drop(ws_n);

    // Not online.
    let c = s
        .post("/api/games", &json!({"game": "raja-pasu"}))
        .await
        .json();
    post(
        &s,
        c["id"].as_str().unwrap(),
        "claim",
        json!({"token": c["token"], "result": "win"}),
    )
    .await
    .assert_error(409, "for online games");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_the_absent_friend_has_not_moved_in_can_only_be_aborted() {
    let s = TestServer::start_with_claim_after(
        common::temp_dir("end-claim0"),
        Duration::from_millis(300),
    )
    .await;
    let (id, south, _north) = s.online_game_with("raja-pasu", "single", "N").await;
    // South is here; North, to move, never comes.
    let mut ws_s = connect(s.addr, &id).await;
    send(&mut ws_s, &json!({"type": "hello", "token": south})).await;
    next_of(&mut ws_s, "hello").await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    for result in ["win", "draw"] {
        post(&s, &id, "claim", json!({"token": south, "result": result}))
            .await
            .assert_error(409, "North has not moved yet: abort the game instead");
    }
    assert_eq!(state(&s, &id).await["ended"], Value::Null);
    let st = ok(&s, &id, "abort", json!({"token": south})).await["state"].clone();
    assert_eq!(st["ended"], json!({"kind": "abort", "by": "S"}));
    assert_eq!(st["winner"], Value::Null);
    // North moved once, then left: now South may claim.
    let (id, south, north) = s.online_game_with("raja-pasu", "single", "N").await;
    play_first(&s, &id, &north).await;
    let mut ws_s = connect(s.addr, &id).await;
    send(&mut ws_s, &json!({"type": "hello", "token": south})).await;
    next_of(&mut ws_s, "hello").await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    ok(&s, &id, "claim", json!({"token": south, "result": "win"})).await;
    s.stop().await;
}

/// The next presence message.
async fn presence(ws: &mut Ws) -> Value {
    next_of(ws, "presence").await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn presence_counts_watchers_and_says_how_long_a_seat_has_been_away() {
    let s = TestServer::start("end-presence").await;
    let (id, south, _north) = s.online_game_with("raja-pasu", "single", "S").await;
    tokio::time::sleep(Duration::from_millis(300)).await;

    let mut a = connect(s.addr, &id).await;
    let p = presence(&mut a).await;
    assert_eq!(p["watchers"], 1, "{p}");
    assert_eq!(p["claim_after_ms"], 60_000);
    for side in ["S", "N"] {
        let ms = p["away_ms"][side].as_u64().unwrap_or_else(|| panic!("{p}"));
        assert!((250..60_000).contains(&ms), "{p}");
    }
    // A second connection: both are told there are two watchers.
    let mut b = connect(s.addr, &id).await;
    assert_eq!(presence(&mut b).await["watchers"], 2);
    assert_eq!(presence(&mut a).await["watchers"], 2);
    // One says hello as South: one watcher left, South present and no longer away.
    send(&mut a, &json!({"type": "hello", "token": south})).await;
    let p = presence(&mut b).await;
    assert_eq!(
        (&p["watchers"], &p["present"]),
        (&json!(1), &json!({"S": true, "N": false})),
        "{p}"
    );
    assert!(p["away_ms"].get("S").is_none(), "{p}");
    assert!(p["away_ms"]["N"].as_u64().unwrap() >= 250, "{p}");
    assert_eq!(presence(&mut a).await["watchers"], 1);
    // The watcher goes: South is told.
    drop(b);
    let p = presence(&mut a).await;
    assert_eq!(p["watchers"], 0, "{p}");
    // South goes: a new watcher sees South away since just now.
    // (A new watcher until one sees the server has taken the close in, not a guessed sleep.)
    drop(a);
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let (_watcher, p) = loop {
        let mut c = connect(s.addr, &id).await;
        let p = presence(&mut c).await;
        if p["present"]["S"] == json!(false) {
            break (c, p);
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the server never saw South's socket close: {p}"
        );
        drop(c);
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    assert_eq!(p["present"], json!({"S": false, "N": false}));
    let s_ms = p["away_ms"]["S"].as_u64().unwrap();
    assert!(s_ms < p["away_ms"]["N"].as_u64().unwrap(), "{p}");

    // Before the join nobody is away; the join tells everyone both seats' away times.
    let g = s
        .post(
            "/api/games",
            &json!({"game": "raja-pasu", "opponent": {"kind": "online"}}),
        )
        .await
        .json();
    let gid = g["id"].as_str().unwrap();
    let mut w = connect(s.addr, gid).await;
    assert_eq!(presence(&mut w).await["away_ms"], json!({}));
    ok(&s, gid, "join", json!({"invite": g["invite"]["token"]})).await;
    let p = presence(&mut w).await;
    assert!(
        p["away_ms"]["S"].is_u64() && p["away_ms"]["N"].is_u64(),
        "{p}"
    );

    // A game against the computer: no away times.
    let g = s
        .post(
            "/api/games",
            &json!({"game": "raja-pasu", "opponent": {"kind": "computer", "level": "beginner"}}),
        )
        .await
        .json();
    let mut w = connect(s.addr, g["id"].as_str().unwrap()).await;
    let p = presence(&mut w).await;
    assert_eq!(
        (&p["away_ms"], &p["watchers"]),
        (&json!({}), &json!(1)),
        "{p}"
    );
    s.stop().await;
}

async fn rematch(s: &TestServer, id: &str, a: &str, b: &str) -> (String, String, String) {
    let r1 = post(s, id, "rematch", json!({"token": a})).await;
    assert_eq!(r1.status, 201, "{}", r1.body);
    let r2 = ok(s, id, "rematch", json!({"token": b})).await;
    let r1 = r1.json();
    let new = r1["id"].as_str().unwrap().to_string();
    let (ta, tb) = (
        r1["token"].as_str().unwrap().to_string(),
        r2["token"].as_str().unwrap().to_string(),
    );
    // Sides swap: a's new seat is the other one.
    if r1["seat"] == "S" {
        (new, ta, tb)
    } else {
        (new, tb, ta)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_series_of_rematches_keeps_the_score_with_sides_swapped() {
    let dir = common::temp_dir("end-series");
    let s = TestServer::start_in(dir.clone()).await;
    // Game 1: Asha South, Bala North; Bala resigns.
    let (g1, asha, bala) = s.online_game_with("raja-pasu", "single", "S").await;
    assert_eq!(state(&s, &g1).await["series"], Value::Null);
    ok(&s, &g1, "resign", json!({"token": bala})).await;
    // Game 2: Bala South, Asha North; a draw is agreed.
    let (g2, bala_s, asha_n) = rematch(&s, &g1, &bala, &asha).await;
    assert_eq!(
        state(&s, &g2).await["series"],
        json!({"game": 2, "score": {"S": 0.0, "N": 1.0}})
    );
    ok(&s, &g2, "draw", json!({"token": asha_n, "offer": true})).await;
    ok(&s, &g2, "draw", json!({"token": bala_s, "offer": true})).await;
    // Game 3: Asha South again, Bala North: Asha 1.5, Bala 0.5. It is aborted.
    let (g3, asha_s, bala_n) = rematch(&s, &g2, &asha_n, &bala_s).await;
    let series3 = json!({"game": 3, "score": {"S": 1.5, "N": 0.5}});
    assert_eq!(state(&s, &g3).await["series"], series3);
    ok(&s, &g3, "abort", json!({"token": bala_n})).await;
    // Game 4: the aborted game does not count.
    let (g4, _bala_s, _asha_n) = rematch(&s, &g3, &bala_n, &asha_s).await;
    let series4 = json!({"game": 4, "score": {"S": 0.5, "N": 1.5}});
    assert_eq!(state(&s, &g4).await["series"], series4);

    // A restart keeps the ended games exactly, and the series.
    let before: Vec<Value> =
        futures_util::future::join_all([&g1, &g2, &g3, &g4].map(|g| state(&s, g))).await;
    s.stop().await;
    let s = TestServer::start_in(dir).await;
    for (g, was) in [&g1, &g2, &g3, &g4].into_iter().zip(&before) {
        assert_eq!(&state(&s, g).await, was);
    }
    assert_eq!(before[0]["ended"], json!({"kind": "resign", "by": "N"}));
    assert_eq!(before[2]["series"], series3);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resigned_game_records_its_result_and_imports_as_resigned() {
    let s = TestServer::start("end-record").await;
    let c = s
        .post(
            "/api/games",
            &json!({"game": "walak-pussa", "mode": "match"}),
        )
        .await
        .json();
    let (id, tok) = (c["id"].as_str().unwrap(), c["token"].as_str().unwrap());
    for _ in 0..3 {
        play_first(&s, id, tok).await;
    }
    // North is to move and resigns.
    ok(&s, id, "resign", json!({"token": tok})).await;
    let rec = s.get(&format!("/api/games/{id}/record")).await.body;
    assert!(rec.contains("[Result \"1-0\"]"), "{rec}");
    assert!(rec.contains("[Termination \"North resigned\"]"), "{rec}");
    assert!(rec.trim_end().ends_with("1-0"), "{rec}");

    let imp = s.post("/api/games/import", &json!({"record": rec})).await;
    assert_eq!(imp.status, 201, "{}", imp.body);
    let st = imp.json()["state"].clone();
    assert_eq!(
        (&st["ended"], &st["winner"]),
        (&json!({"kind": "resign", "by": "N"}), &json!("S"))
    );
    assert_eq!((&st["ply"], &st["match_over"]), (&json!(3), &json!(true)));

    // A record with a decided result and no Termination tag: the loser resigned.
    let bare = rec
        .lines()
        .filter(|l| !l.starts_with("[Termination"))
        .collect::<Vec<_>>()
        .join("\n");
    let st = s
        .post("/api/games/import", &json!({"record": bare}))
        .await
        .json()["state"]
        .clone();
    assert_eq!(st["ended"], json!({"kind": "resign", "by": "N"}));
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn strangers_get_403_on_every_ending_endpoint() {
    let s = TestServer::start("end-403").await;
    let (id, _south, _north) = s.online_game_with("raja-pasu", "single", "S").await;
    let stranger = "f".repeat(32);
    for (what, body) in [
        ("resign", json!({"token": stranger})),
        ("abort", json!({"token": stranger})),
        ("draw", json!({"token": stranger, "offer": true})),
        ("takeback", json!({"token": stranger, "offer": true})),
        ("claim", json!({"token": stranger, "result": "win"})),
    ] {
        post(&s, &id, what, body.clone())
            .await
            .assert_error(403, &format!("this token holds no seat in game {id}"));
        post(&s, "nosuchgam", what, body)
            .await
            .assert_error(404, "no game");
    }
    assert_eq!(state(&s, &id).await["ended"], Value::Null);
    s.stop().await;
}

/// As on lichess, a draw offer made on one's own turn goes with one's move: the mover's move
/// leaves it standing (the friend can answer it at leisure), the friend's move clears it; a
/// takeback proposal still lapses with any move.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_draw_offer_made_on_ones_turn_stands_through_ones_own_move() {
    let s = TestServer::start("end-draw-own-move").await;
    let (id, south, north) = s.online_game_with("walak-pussa", "single", "S").await;
    // South is to move: offers, then moves. The offer stands.
    assert_eq!(state(&s, &id).await["to_move"], "S");
    ok(&s, &id, "draw", json!({"token": south, "offer": true})).await;
    let st = play_first(&s, &id, &south).await;
    assert_eq!(st["offers"], json!({"draw": "S", "takeback": null}));
    assert_eq!(state(&s, &id).await["offers"]["draw"], "S");
    // North moves instead of answering: that declines it.
    let mut st = state(&s, &id).await;
    while st["to_move"] == "S" {
        st = play_first(&s, &id, &south).await;
    }
    ok(&s, &id, "draw", json!({"token": south, "offer": true})).await;
    let st = play_first(&s, &id, &north).await;
    assert_eq!(st["offers"]["draw"], Value::Null);
    // A takeback proposal lapses even with the proposer's own move; their draw offer stays.
    let mut st = st;
    while st["to_move"] == "N" {
        st = play_first(&s, &id, &north).await;
    }
    ok(&s, &id, "takeback", json!({"token": south, "offer": true})).await;
    ok(&s, &id, "draw", json!({"token": south, "offer": true})).await;
    let st = play_first(&s, &id, &south).await;
    assert_eq!(st["offers"], json!({"draw": "S", "takeback": null}));
    // The friend accepts the offer that came with the move: the game is drawn.
    let st = ok(&s, &id, "draw", json!({"token": north, "offer": true})).await["state"].clone();
    assert_eq!(st["ended"], json!({"kind": "draw_agreed"}));
    s.stop().await;
}

/// `accept: true` answers the friend's standing offer and nothing else (QA pass 19, mobile
/// report, defect 2): once the offer or proposal is withdrawn it is refused with a 409 saying
/// so, and no offer or proposal of the accepter's is made (the old `offer: true` made one).
/// The old form keeps working; a contradictory or empty body is a 400.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_accept_of_a_withdrawn_offer_is_refused_and_proposes_nothing() {
    let s = TestServer::start("end-accept-withdrawn").await;
    let (id, south, north) = s.online_game_with("walak-pussa", "single", "S").await;
    play_first(&s, &id, &south).await;
    let st = play_first(&s, &id, &north).await;
    let ply = st["ply"].clone();

    // A takeback proposed and withdrawn; North's Accept arrives after the withdrawal.
    ok(
        &s,
        &id,
        "takeback",
        json!({"token": south, "offer": true, "expected_ply": ply}),
    )
    .await;
    ok(
        &s,
        &id,
        "takeback",
        json!({"token": south, "offer": false, "expected_ply": ply}),
    )
    .await;
    post(
        &s,
        &id,
        "takeback",
        json!({"token": north, "accept": true, "expected_ply": ply}),
    )
    .await
    .assert_error(409, "the takeback proposal was withdrawn");
    let st = state(&s, &id).await;
    assert_eq!(st["offers"], json!({"draw": null, "takeback": null}));
    assert_eq!(st["ply"], ply);

    // The same with a draw offer.
    ok(&s, &id, "draw", json!({"token": south, "offer": true})).await;
    ok(&s, &id, "draw", json!({"token": south, "offer": false})).await;
    post(&s, &id, "draw", json!({"token": north, "accept": true}))
        .await
        .assert_error(409, "the draw offer was withdrawn");
    let st = state(&s, &id).await;
    assert_eq!(st["offers"], json!({"draw": null, "takeback": null}));
    assert_eq!(st["ended"], Value::Null);

    // One's own offer cannot be accepted.
    ok(&s, &id, "draw", json!({"token": south, "offer": true})).await;
    post(&s, &id, "draw", json!({"token": south, "accept": true}))
        .await
        .assert_error(409, "your own");
    // Bodies that ask nothing or two contrary things.
    post(&s, &id, "draw", json!({"token": north}))
        .await
        .assert_error(400, "accept");
    post(
        &s,
        &id,
        "draw",
        json!({"token": north, "accept": true, "offer": false}),
    )
    .await
    .assert_error(400, "contradict");

    // A standing proposal is accepted by `accept: true` (`offer: true` may come with it).
    ok(
        &s,
        &id,
        "takeback",
        json!({"token": south, "offer": true, "expected_ply": ply}),
    )
    .await;
    let r = ok(
        &s,
        &id,
        "takeback",
        json!({"token": north, "accept": true, "offer": true, "expected_ply": ply}),
    )
    .await;
    assert_eq!(r["undone"], 2, "{r}");
    assert_eq!(r["state"]["ply"], 0);
    // A standing draw offer is accepted: the game is drawn.
    ok(&s, &id, "draw", json!({"token": south, "offer": true})).await;
    let st = ok(&s, &id, "draw", json!({"token": north, "accept": true})).await["state"].clone();
    assert_eq!(st["ended"], json!({"kind": "draw_agreed"}));
    s.stop().await;
}

/// A tournament record of a match drawn at the round limit imports as drawn at the round limit
/// (it became "draw agreed": QA pass 15) and is exported again with the same `Termination`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_match_drawn_at_the_round_limit_imports_and_exports_with_that_ending() {
    let s = TestServer::start("end-round-limit").await;
    // Round 1 ends with South's sixth move; `pussa tournament --max-rounds 1` stops there.
    let record = |limit: u32| {
        format!(
            "[Game \"raja-pasu\"]\n[Mode \"match\"]\n[First \"S\"]\n[Result \"1/2-1/2\"]\n\
             [Termination \"drawn at the round limit ({limit})\"]\n\n\
             1. G e 2. D c 3. B g 4. E f 5. E g 6. C 1/2-1/2\n"
        )
    };
    let imp = s
        .post("/api/games/import", &json!({"record": record(1)}))
        .await;
    assert_eq!(imp.status, 201, "{}", imp.body);
    let st = imp.json()["state"].clone();
    let id = st["id"].as_str().unwrap().to_string();
    assert_eq!(st["ended"], json!({"kind": "round_limit", "rounds": 1}));
    assert_eq!(st["winner"], json!("draw"));
    assert_eq!(
        (&st["match_over"], &st["round_over"], &st["to_move"]),
        (&json!(true), &json!(true), &Value::Null)
    );
    // A move is refused with the ending named.
    let r = s
        .post(
            &format!("/api/games/{id}/moves"),
            &json!({"move": "A", "token": imp.json()["token"]}),
        )
        .await;
    r.assert_error(409, "the match is over: drawn at the round limit (1)");
    // Exported with the same result and Termination, and imported again the same.
    let rec = s.get(&format!("/api/games/{id}/record")).await.body;
    assert!(rec.contains("[Result \"1/2-1/2\"]"), "{rec}");
    assert!(
        rec.contains("[Termination \"drawn at the round limit (1)\"]"),
        "{rec}"
    );
    let again = s.post("/api/games/import", &json!({"record": rec})).await;
    assert_eq!(
        again.json()["state"]["ended"],
        json!({"kind": "round_limit", "rounds": 1})
    );
    // The stored game reads back the same after a restart.
    let dir = s.dir.clone();
    s.stop().await;
    let s = TestServer::start_in(dir).await;
    let st = s.get(&format!("/api/games/{id}")).await.json();
    assert_eq!(st["ended"], json!({"kind": "round_limit", "rounds": 1}));
    // A limit its moves do not end at does not agree: the draw is taken as agreed.
    let st = s
        .post("/api/games/import", &json!({"record": record(5)}))
        .await
        .json()["state"]
        .clone();
    assert_eq!(st["ended"], json!({"kind": "draw_agreed"}));
    s.stop().await;
}

/// A claimant whose connection is open but silent is not here (Presence: a connection must
/// speak every 7 s), and the refusal says so and what to do, not "not connected"; once it
/// sends a ping, the claim is taken.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claimant_whose_open_socket_is_silent_is_told_to_ping() {
    use pussa_server::ws::PRESENCE_SILENCE;
    let s = TestServer::start_with_claim_after(
        common::temp_dir("end-claim-silent"),
        Duration::from_millis(500),
    )
    .await;
    let (id, south, north) = s.online_game_with("raja-pasu", "single", "S").await;
    play_first(&s, &id, &south).await;
    play_first(&s, &id, &north).await;
    let (mut ws_s, _) = tokio_tungstenite::connect_async(format!(
        "ws://{}/api/games/{id}/ws?token={south}",
        s.addr
    ))
    .await
    .expect("a seat's token connects");
    next_of(&mut ws_s, "state").await;
    // South says nothing for longer than the presence silence.
    tokio::time::sleep(PRESENCE_SILENCE + Duration::from_millis(600)).await;
    post(&s, &id, "claim", json!({"token": south, "result": "win"}))
        .await
        .assert_error(
            409,
            "your connection to the game has been silent for 7 s: a player is here while its \
             connection sends something at least every 7 s (a ping); send one, then claim",
        );
    send(&mut ws_s, &json!({"type": "ping"})).await;
    next_of(&mut ws_s, "pong").await;
    let st = ok(&s, &id, "claim", json!({"token": south, "result": "win"})).await["state"].clone();
    assert_eq!(st["ended"], json!({"kind": "claim_win", "by": "S"}));
    drop(ws_s);
    s.stop().await;
}

/// The state's fields that `pussa replay --json`'s last line of the game's record gives, from
/// the record read by the rules (whose state after the last move is what `replay` shows: a
/// match whose result is decided after a round-ending move ends with that round, the next not
/// laid out, docs/notation.md "JSON states"), checked against `st`.
fn assert_ends_as_its_record_replays(st: &Value, record: &str) {
    use pussa_rules::record::Record;
    use pussa_rules::Setup;
    let rec = Record::parse(record).expect("the record reads");
    let end = rec.state();
    let pos = end.position();
    let closed: Vec<String> = pussa_server::live::closed_letters(pos.closed_mask());
    assert_eq!(st["round"], json!(end.round()), "round: {st}");
    assert_eq!(st["board"], json!(pos.board()), "board: {st}");
    assert_eq!(st["closed"], json!(closed), "closed: {st}");
    assert_eq!(st["stores"], json!(pos.stores()), "stores: {st}");
    assert_eq!(st["taken"], json!(end.taken_this_round()), "taken: {st}");
    assert_eq!(
        st["position"],
        json!(Setup::from_state(end).to_string()),
        "position: {st}"
    );
    assert_eq!(
        (
            &st["to_move"],
            &st["legal"],
            &st["round_over"],
            &st["match_over"]
        ),
        (&Value::Null, &json!([]), &json!(true), &json!(true))
    );
}

/// A match resigned right after the move that ended a round ends with that round: the state is
/// the round's end, swept, the holdings in the stores, as `pussa replay` of its record shows it
/// (the state laid out round 2, with the refill's remainders as stores: QA pass 21), and so it
/// reads back after a restart.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_match_resigned_right_after_a_round_ending_move_ends_with_that_round() {
    let s = TestServer::start("end-resign-between").await;
    let r = s
        .post(
            "/api/games",
            &json!({"game": "raja-pasu", "mode": "match", "opponent": {"kind": "hotseat"}}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.body);
    let id = r.json()["id"].as_str().unwrap().to_string();
    let token = r.json()["token"].as_str().unwrap().to_string();
    // These moves end round 1 with 16. E e (South holds 59, North 39).
    let moves = "B f C d G g A b E e D a F f G g E e F f G g A a B b C c D d E e";
    let mut st = Value::Null;
    for mv in moves.split(' ') {
        st = ok(&s, &id, "moves", json!({"move": mv, "token": token})).await["state"].clone();
    }
    assert_eq!(
        st["round"], 2,
        "the next round is laid out while the match goes on"
    );
    let st = ok(&s, &id, "resign", json!({"token": token})).await["state"].clone();
    assert_eq!(st["ended"], json!({"kind": "resign", "by": "N"}));
    assert_eq!(st["winner"], "S");
    let rec = s.get(&format!("/api/games/{id}/record")).await.body;
    assert!(rec.trim_end().ends_with("16. E e 1-0"), "{rec}");
    assert_eq!(st["round"], 1, "{st}");
    assert_eq!(st["stores"], json!([59, 39]), "{st}");
    assert_ends_as_its_record_replays(&st, &rec);
    // The last move is marked in its round, the one shown.
    assert_eq!(st["moves"][31]["round"], st["round"]);
    // Read back after a restart, the same.
    let dir = s.dir.clone();
    s.stop().await;
    let s = TestServer::start_in(dir).await;
    let again = s.get(&format!("/api/games/{id}")).await.json();
    assert_ends_as_its_record_replays(&again, &rec);
    s.stop().await;
}

/// A tournament's match drawn at its round limit, imported, ends at the limit's round: round
/// 8, swept, the holdings in the stores, the tournament's own final position (the state said
/// round 9, with the refill's remainders 22 and 2 as stores: QA pass 21); after a restart too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_imported_match_drawn_at_the_round_limit_ends_with_the_limits_round() {
    let s = TestServer::start("end-round-limit-state").await;
    let record = "[Game \"walak-pussa\"]\n[Mode \"match\"]\n[South \"level:casual\"]\n\
        [North \"level:beginner\"]\n[First \"S\"]\n[Result \"1/2-1/2\"]\n\
        [Event \"pussa tournament\"]\n[Termination \"drawn at the round limit (8)\"]\n\n\
        1. G f 2. B b 3. D f 4. E b 5. E e 6. D f 7. C a 8. D g 9. C\n\
        R2 1... e 2. G f 3. G f 4. D\n\
        R3 1... d 2. F f 3. C f 4. A g 5. B e 6. E g 7. F f 8. A d\n\
        R4 1... g 2. F g 3. E g 4. E g 5. B e 6. B g 7. A\n\
        R5 1... d 2. F e 3. C f 4. G g 5. F g 6. D\n\
        R6 1... g 2. E f 3. C\nR7 1... g 2. A g 3. G\nR8 1... g 2. E g 3. E 1/2-1/2\n";
    let imp = s
        .post("/api/games/import", &json!({"record": record}))
        .await;
    assert_eq!(imp.status, 201, "{}", imp.body);
    let st = imp.json()["state"].clone();
    let id = st["id"].as_str().unwrap().to_string();
    assert_eq!(st["ended"], json!({"kind": "round_limit", "rounds": 8}));
    // `pussa tournament`'s `final_position` of this game.
    assert_eq!(
        st["position"],
        "0,0,0,0,0,0,0/x,x,x,x,x,0,0 20+30 0+6 N 8 walak-pussa"
    );
    assert_eq!(st["stores"], json!([50, 6]));
    assert_ends_as_its_record_replays(&st, record);
    let rec = s.get(&format!("/api/games/{id}/record")).await.body;
    assert!(rec.contains("drawn at the round limit (8)"), "{rec}");
    assert_ends_as_its_record_replays(&st, &rec);
    let dir = s.dir.clone();
    s.stop().await;
    let s = TestServer::start_in(dir).await;
    let again = s.get(&format!("/api/games/{id}")).await.json();
    assert_eq!(again["ended"], json!({"kind": "round_limit", "rounds": 8}));
    assert_ends_as_its_record_replays(&again, record);
    s.stop().await;
}

/// Tournament records lost by forfeit or on time import with that ending, not as a resignation
/// (QA pass 21, interop2 #6): the state's `ended` names it with the loser and the record's own
/// `Termination` text, the game list says it, a move is refused with it, the export writes the
/// same `Termination` back, and it reads back so after a restart and a second import.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tournament_forfeits_and_time_losses_import_and_export_with_their_own_ending() {
    let s = TestServer::start("end-forfeit-time").await;
    let time = "time forfeit: South no move within 423.432 ms with 392.928 ms left on its clock \
                (2+0.1, + 10 ms margin)";
    let forfeit = "forfeit: North played an illegal move: illegal move A: not your hole: North \
                   is to move and owns a-g";
    let cases = [
        (
            time,
            "0-1",
            "time",
            "S",
            "N",
            "the match is over: South lost on time",
        ),
        (
            forfeit,
            "1-0",
            "forfeit",
            "N",
            "S",
            "the match is over: North forfeited",
        ),
    ];
    let mut ids = Vec::new();
    for (termination, result, kind, by, winner, refusal) in cases {
        let record = format!(
            "[Game \"raja-pasu\"]\n[Mode \"match\"]\n[South \"a\"]\n[North \"b\"]\n[First \"S\"]\n\
             [Result \"{result}\"]\n[Event \"pussa tournament\"]\n[Termination \"{termination}\"]\n\n\
             1. C d 2. D c 3. F d 4. G c {result}\n"
        );
        let imp = s
            .post("/api/games/import", &json!({"record": record}))
            .await;
        assert_eq!(imp.status, 201, "{}", imp.body);
        let st = imp.json()["state"].clone();
        let id = st["id"].as_str().unwrap().to_string();
        let ended = json!({"kind": kind, "by": by, "termination": termination});
        assert_eq!(st["ended"], ended, "{st}");
        assert_eq!(st["winner"], winner);
        assert_eq!(
            (&st["match_over"], &st["to_move"], &st["legal"]),
            (&json!(true), &Value::Null, &json!([]))
        );
        // A move is refused with the ending named.
        s.post(
            &format!("/api/games/{id}/moves"),
            &json!({"move": "A", "token": imp.json()["token"]}),
        )
        .await
        .assert_error(409, refusal);
        // The game list names the kind.
        let list = s.get("/api/games?limit=10").await.json();
        let row = list["games"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["id"] == json!(id))
            .cloned()
            .expect("listed");
        assert_eq!(
            (&row["ended"], &row["winner"]),
            (&json!(kind), &json!(winner))
        );
        // Exported with the record's own Termination, not "South resigned"; imported again the
        // same.
        let rec = s.get(&format!("/api/games/{id}/record")).await.body;
        assert!(
            rec.contains(&format!("[Termination \"{termination}\"]")),
            "{rec}"
        );
        assert!(rec.contains(&format!("[Result \"{result}\"]")), "{rec}");
        assert!(!rec.contains("resigned"), "{rec}");
        let again = s.post("/api/games/import", &json!({"record": rec})).await;
        assert_eq!(again.json()["state"]["ended"], ended);
        ids.push((id, ended));
    }
    // A result the Termination contradicts is still taken as the loser's resignation.
    let record = format!(
        "[Game \"raja-pasu\"]\n[Mode \"match\"]\n[Result \"1-0\"]\n[Termination \"{time}\"]\n\n\
         1. C d 1-0\n"
    );
    let st = s
        .post("/api/games/import", &json!({"record": record}))
        .await
        .json()["state"]
        .clone();
    assert_eq!(st["ended"], json!({"kind": "resign", "by": "N"}));
    // Read back the same after a restart.
    let dir = s.dir.clone();
    s.stop().await;
    let s = TestServer::start_in(dir).await;
    for (id, ended) in ids {
        let st = s.get(&format!("/api/games/{id}")).await.json();
        assert_eq!(st["ended"], ended);
    }
    s.stop().await;
}
