//! `POST /api/games/{id}/rematch`: the next game of a finished online game, sides swapped.

mod common;

use common::wsc::{connect, next, recv, send};
use common::{assert_matches_rules, letters, Resp, TestServer};
use serde_json::{json, Value};

/// Plays game `id` to its end, each seat with its own token, choosing legal moves with a fixed
/// generator; the final state.
async fn play_to_the_end(s: &TestServer, id: &str, south: &str, north: &str) -> Value {
    let mut st = s.get(&format!("/api/games/{id}")).await.json();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut n = 0;
    while st["match_over"] == false {
        let legal = letters(&st["legal"]);
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let mv = &legal[(x >> 33) as usize % legal.len()];
        let token = if st["to_move"] == "S" { south } else { north };
        let r = s
            .post(
                &format!("/api/games/{id}/moves"),
                &json!({"move": mv, "token": token, "expected_ply": st["ply"]}),
            )
            .await;
        assert_eq!(r.status, 200, "move {mv}: {}", r.body);
        st = r.json()["state"].clone();
        n += 1;
        assert!(n < 5_000, "a game ends");
    }
    st
}

async fn rematch(s: &TestServer, id: &str, token: &str) -> Resp {
    s.post(
        &format!("/api/games/{id}/rematch"),
        &json!({"token": token}),
    )
    .await
}

/// A finished online Walak-pussa game: (id, South's token, North's token).
async fn finished(s: &TestServer, mode: &str, first: &str) -> (String, String, String) {
    let (id, south, north) = s.online_game_with("walak-pussa", mode, first).await;
    let st = play_to_the_end(s, &id, &south, &north).await;
    assert_eq!(st["rematch"], Value::Null, "no rematch before one is asked");
    (id, south, north)
}

fn text(v: &Value) -> &str {
    v.as_str().unwrap_or_else(|| panic!("not a string: {v}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_to_ask_makes_the_rematch_with_sides_swapped_and_the_other_joins_it() {
    let s = TestServer::start("rematch-flow").await;
    // North moved first in the old game.
    let (old, south, north) = finished(&s, "single", "N").await;
    let old_state = s.get(&format!("/api/games/{old}")).await.json();

    // South asks first: a new game, South now plays North.
    let r = rematch(&s, &old, &south).await;
    assert_eq!(r.status, 201, "{}", r.body);
    let a = r.json();
    let new = text(&a["id"]).to_string();
    assert_ne!(new, old);
    assert_eq!(a["rematch_of"], old.as_str());
    assert_eq!(a["seat"], "N");
    assert_eq!(a["seats"], json!(["N"]));
    assert_eq!(a["invite"], Value::Null);
    assert_eq!(a["played"], json!([]));
    let south_now = text(&a["token"]).to_string();
    assert_eq!(south_now.len(), 32);
    assert!(south_now != south && south_now != north);
    let st = &a["state"];
    assert_eq!(st["id"], new.as_str());
    for k in ["game", "mode", "first"] {
        assert_eq!(st[k], old_state[k], "{k}");
    }
    assert_eq!(st["opponent"], json!({"kind": "online"}));
    // Both seats are taken from the start: nobody waits for an invite.
    assert_eq!(st["seats"]["S"], json!({"kind": "human", "taken": true}));
    assert_eq!(st["seats"]["N"], json!({"kind": "human", "taken": true}));
    assert_eq!(st["ply"], 0);
    assert_eq!(
        st["to_move"], "N",
        "the first mover is the same seat as before"
    );
    assert_eq!(st["rematch"], Value::Null);
    assert_matches_rules(st);

    // The old game knows its rematch.
    let again = s.get(&format!("/api/games/{old}")).await.json();
    assert_eq!(again["rematch"], new.as_str());
    assert_eq!(
        again["moves"], old_state["moves"],
        "the old game is untouched"
    );

    // North asks afterwards: the same game, the South seat, a token of its own.
    let r = rematch(&s, &old, &north).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let b = r.json();
    assert_eq!(b["id"], new.as_str());
    assert_eq!(b["rematch_of"], old.as_str());
    assert_eq!(b["seat"], "S");
    assert_eq!(b["seats"], json!(["S"]));
    assert_eq!(b["invite"], Value::Null);
    let north_now = text(&b["token"]).to_string();
    assert_eq!(north_now.len(), 32);
    assert!(north_now != south_now && north_now != south && north_now != north);
    assert_eq!(b["state"]["id"], new.as_str());

    // Asking again changes nothing: the same game, the same seat and token, for both.
    for (token, seat, mine) in [
        (&south, "N", &south_now),
        (&north, "S", &north_now),
        (&south, "N", &south_now),
    ] {
        let r = rematch(&s, &old, token).await;
        assert_eq!(r.status, 200, "{}", r.body);
        let v = r.json();
        assert_eq!(
            (&v["id"], &v["seat"], &v["token"]),
            (&json!(new), &json!(seat), &json!(mine))
        );
    }
    let list = s.get("/api/games?limit=200").await.json();
    assert_eq!(list["games"].as_array().unwrap().len(), 2, "{list}");

    // Each new token plays its own seat only; the old tokens hold no seat there.
    let moves = format!("/api/games/{new}/moves");
    let first = letters(&st["legal"])[0].clone();
    s.post(&moves, &json!({"move": first, "token": north_now}))
        .await
        .assert_error(409, "not your turn");
    for t in [&south, &north] {
        s.post(&moves, &json!({"move": first, "token": t}))
            .await
            .assert_error(403, "holds no seat");
    }
    let r = s
        .post(&moves, &json!({"move": first, "token": south_now}))
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let st = r.json()["state"].clone();
    assert_eq!(st["moves"][0]["side"], "N");
    let reply = letters(&st["legal"])[0].clone();
    s.post(&moves, &json!({"move": reply, "token": south_now}))
        .await
        .assert_error(409, "not your turn");
    let r = s
        .post(&moves, &json!({"move": reply, "token": north_now}))
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["state"]["moves"][1]["side"], "S");

    // The unfinished rematch has no rematch of its own yet.
    rematch(&s, &new, &south_now)
        .await
        .assert_error(409, "the game is not over yet");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rematch_is_refused_with_the_reason() {
    let s = TestServer::start("rematch-refused").await;
    // Unknown game.
    rematch(&s, "nosuchgame", &"a".repeat(32))
        .await
        .assert_error(404, "no game with id 'nosuchgame'");
    // An online game still being played, or still waiting for the friend.
    let (id, south, north) = s.online_game_with("raja-pasu", "single", "S").await;
    for t in [&south, &north] {
        rematch(&s, &id, t)
            .await
            .assert_error(409, "the game is not over yet");
    }
    let w = s
        .post(
            "/api/games",
            &json!({"game": "raja-pasu", "opponent": {"kind": "online"}}),
        )
        .await
        .json();
    rematch(&s, text(&w["id"]), text(&w["token"]))
        .await
        .assert_error(409, "the game is not over yet");
    // A finished game: a stranger (or a watcher) holds no seat; bodies are read strictly.
    let (id, south, _) = finished(&s, "single", "S").await;
    rematch(&s, &id, &"0".repeat(32))
        .await
        .assert_error(403, "holds no seat");
    rematch(&s, &id, text(&w["token"]))
        .await
        .assert_error(403, "holds no seat");
    let path = format!("/api/games/{id}/rematch");
    s.post(&path, &json!({})).await.assert_error(400, "token");
    s.post(&path, &json!({"token": south, "seat": "S"}))
        .await
        .assert_error(400, "unknown field");
    s.post_raw(&path, "[1]").await.assert_error(400, "object");
    assert_eq!(
        s.get(&path).await.status,
        405,
        "a rematch is asked with POST"
    );
    // Nothing above made a game.
    assert_eq!(
        s.get(&format!("/api/games/{id}")).await.json()["rematch"],
        Value::Null
    );
    // Hot-seat and computer games: the page restarts them itself.
    let h = s
        .post("/api/games", &json!({"game": "walak-pussa"}))
        .await
        .json();
    let hid = text(&h["id"]).to_string();
    let htok = text(&h["token"]).to_string();
    let st = play_to_the_end(&s, &hid, &htok, &htok).await;
    assert_eq!(st["match_over"], true);
    let online_only = "a rematch is for online games; start a new game for the others";
    rematch(&s, &hid, &htok)
        .await
        .assert_error(409, online_only);
    let c = s
        .post(
            "/api/games",
            &json!({"game": "raja-pasu", "opponent": {"kind": "computer", "level": "beginner"}}),
        )
        .await
        .json();
    rematch(&s, text(&c["id"]), text(&c["token"]))
        .await
        .assert_error(409, online_only);
    let list = s.get("/api/games?limit=200").await.json();
    assert_eq!(list["games"].as_array().unwrap().len(), 5, "{list}");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn players_asking_at_the_same_moment_get_one_game() {
    let s = TestServer::start("rematch-race").await;
    for round in 0..3 {
        let (old, south, north) = finished(&s, "single", "S").await;
        let before = s.get("/api/games?limit=200").await.json()["games"]
            .as_array()
            .unwrap()
            .len();
        // Both players, twice each, at once.
        let (a, b, c, d) = tokio::join!(
            rematch(&s, &old, &south),
            rematch(&s, &old, &north),
            rematch(&s, &old, &south),
            rematch(&s, &old, &north),
        );
        let all = [&a, &b, &c, &d];
        let created = all.iter().filter(|r| r.status == 201).count();
        assert_eq!(created, 1, "round {round}: exactly one creates the game");
        assert!(all.iter().all(|r| r.status == 200 || r.status == 201));
        let v: Vec<Value> = all.iter().map(|r| r.json()).collect();
        let new = &v[0]["id"];
        assert!(v.iter().all(|x| &x["id"] == new), "one game: {v:?}");
        assert!(v.iter().all(|x| x["rematch_of"] == old.as_str()));
        // Each player always gets the same seat and token.
        assert_eq!(
            (&v[0]["seat"], &v[0]["token"]),
            (&v[2]["seat"], &v[2]["token"])
        );
        assert_eq!(
            (&v[1]["seat"], &v[1]["token"]),
            (&v[3]["seat"], &v[3]["token"])
        );
        assert_eq!(v[0]["seat"], "N");
        assert_eq!(v[1]["seat"], "S");
        assert_ne!(v[0]["token"], v[1]["token"]);
        let after = s.get("/api/games?limit=200").await.json()["games"]
            .as_array()
            .unwrap()
            .len();
        assert_eq!(after, before + 1);
        assert_eq!(
            s.get(&format!("/api/games/{old}")).await.json()["rematch"],
            *new
        );
    }
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_connection_of_the_old_game_hears_of_the_rematch() {
    let s = TestServer::start("rematch-ws").await;
    let (old, south, north) = finished(&s, "single", "S").await;
    let mut player = connect(s.addr, &old).await;
    let mut watcher = connect(s.addr, &old).await;
    for ws in [&mut player, &mut watcher] {
        assert_eq!(next(ws).await["type"], "state");
    }
    send(&mut player, &json!({"type": "hello", "token": south})).await;
    assert_eq!(next(&mut player).await["type"], "hello");

    let r = rematch(&s, &old, &north).await;
    assert_eq!(r.status, 201, "{}", r.body);
    let new = r.json()["id"].clone();
    for ws in [&mut player, &mut watcher] {
        // Just the id: no token, the watcher gets it too.
        assert_eq!(next(ws).await, json!({"type": "rematch", "id": new}));
    }
    // The other player's ask tells nobody anything new.
    assert_eq!(rematch(&s, &old, &south).await.status, 200);
    for ws in [&mut player, &mut watcher] {
        send(ws, &json!({"type": "ping", "req": 1})).await;
        assert_eq!(next(ws).await["type"], "pong", "one rematch message only");
    }

    // A connection made afterwards: state (with the rematch), presence, then the rematch.
    let mut late = connect(s.addr, &old).await;
    let st = recv(&mut late).await.unwrap();
    assert_eq!(st["type"], "state");
    assert_eq!(st["state"]["rematch"], new);
    assert_eq!(recv(&mut late).await.unwrap()["type"], "presence");
    assert_eq!(
        recv(&mut late).await.unwrap(),
        json!({"type": "rematch", "id": new})
    );
    send(&mut late, &json!({"type": "ping", "req": 2})).await;
    assert_eq!(next(&mut late).await["type"], "pong");
    // The new game's own connections hear of no rematch.
    let mut fresh = connect(s.addr, text(&new)).await;
    assert_eq!(recv(&mut fresh).await.unwrap()["type"], "state");
    assert_eq!(recv(&mut fresh).await.unwrap()["type"], "presence");
    send(&mut fresh, &json!({"type": "ping", "req": 3})).await;
    assert_eq!(next(&mut fresh).await["type"], "pong");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rematch_and_both_seats_survive_a_restart() {
    let s = TestServer::start("rematch-restart").await;
    // A match, North moving first.
    let (old, south, north) = finished(&s, "match", "N").await;
    let r = rematch(&s, &old, &south).await;
    assert_eq!(r.status, 201, "{}", r.body);
    let a = r.json();
    let new = a["id"].clone();
    assert_eq!(a["state"]["mode"], "match");
    assert_eq!(a["state"]["first"], "N");
    let dir = s.dir.clone();
    s.stop().await;

    let s = TestServer::start_in(dir).await;
    assert_eq!(
        s.get(&format!("/api/games/{old}")).await.json()["rematch"],
        new
    );
    // The friend, who had not asked before the restart, gets their stored seat.
    let r = rematch(&s, &old, &north).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let b = r.json();
    assert_eq!((&b["id"], &b["seat"]), (&new, &json!("S")));
    let r = rematch(&s, &old, &south).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["token"], a["token"], "the same token as before");
    // Both seats play: North (the old South) first, then South (the old North).
    let new_id = text(&new).to_string();
    let moves = format!("/api/games/{new_id}/moves");
    let st = s.get(&format!("/api/games/{new_id}")).await.json();
    let mv = letters(&st["legal"])[0].clone();
    let r = s
        .post(&moves, &json!({"move": mv, "token": a["token"]}))
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let st = r.json()["state"].clone();
    let mv = letters(&st["legal"])[0].clone();
    let r = s
        .post(&moves, &json!({"move": mv, "token": b["token"]}))
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let st = r.json()["state"].clone();
    assert_eq!(st["moves"][0]["side"], "N");
    assert_eq!(st["moves"][1]["side"], "S");
    assert_matches_rules(&st);
    // A connection to the old game after the restart is told too.
    let mut ws = connect(s.addr, &old).await;
    assert_eq!(recv(&mut ws).await.unwrap()["type"], "state");
    assert_eq!(recv(&mut ws).await.unwrap()["type"], "presence");
    assert_eq!(
        recv(&mut ws).await.unwrap(),
        json!({"type": "rematch", "id": new})
    );
    s.stop().await;
}
