//! Load: 200 simultaneous online games over WebSockets on loopback, two clients a game, every
//! move acknowledged and none lost; prints the move round-trip latency (median, p99).
//!
//! Figures: `cargo test --release -p pussa-server --test load -- --nocapture`.

mod common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::wsc::{connect, next_or_close, send};
use common::{assert_matches_rules, letters, TestServer};
use serde_json::{json, Value};

const GAMES: usize = 200;
/// Moves per game at most (a game that ends sooner stops there).
const MAX_PLY: u64 = 40;

/// One player's client: moves whenever the state says it is its turn, until the game is over
/// or reaches `MAX_PLY`. Returns the acknowledged moves as (ply, letter) and the round-trip times.
async fn player(
    addr: std::net::SocketAddr,
    id: String,
    seat: &'static str,
    token: String,
    seed: u64,
) -> (Vec<(u64, String)>, Vec<Duration>) {
    let mut ws = connect(addr, &id).await;
    let mut rng = seed;
    let mut acked = Vec::new();
    let mut rtts = Vec::new();
    let mut pending: Option<(u64, String, Instant)> = None;
    loop {
        let msg = match next_or_close(&mut ws).await {
            Ok(v) => v,
            Err(code) => panic!("game {id} {seat}: socket closed ({code:?})"),
        };
        match msg["type"].as_str().unwrap() {
            "state" | "update" => {
                let st = &msg["state"];
                let ply = st["ply"].as_u64().unwrap();
                if st["match_over"] == true || ply >= MAX_PLY {
                    if pending.is_none() {
                        break;
                    }
                    continue;
                }
                if st["to_move"] == seat
                    && pending.is_none()
                    && acked.last().map(|a: &(u64, String)| a.0) != Some(ply + 1)
                {
                    let legal = letters(&st["legal"]);
                    rng = rng
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    let mv = legal[(rng >> 33) as usize % legal.len()].clone();
                    pending = Some((ply, mv.clone(), Instant::now()));
                    send(&mut ws, &json!({"type": "move", "move": mv, "token": token, "expected_ply": ply, "req": ply})).await;
                }
            }
            "ack" => {
                let (ply, mv, t0) = pending.take().expect("an ack answers a pending move");
                rtts.push(t0.elapsed());
                assert_eq!(msg["req"], ply);
                assert_eq!(msg["ply"], ply + 1);
                acked.push((ply + 1, mv));
            }
            other => panic!("game {id} {seat}: unexpected {other}: {msg}"),
        }
    }
    (acked, rtts)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_online_games_lose_no_move() {
    // 200 games from one address: more than one client may create a minute by default, and
    // their 400 connections (and the HTTP requests at once) more than one client may hold.
    let s = TestServer::start_configured(common::temp_dir("load"), |server| {
        server.set_new_games_per_minute(0);
        server.set_limits(pussa_server::conn::Limits {
            max_websockets_per_client: 2 * GAMES + 2,
            max_connections_per_client: 4 * GAMES + 16,
            ..pussa_server::conn::Limits::default()
        });
    })
    .await;
    // Side by side: one game alone first (the latency without queueing), then 200 at once.
    let solo = {
        let (id, south_token, north_token) = s.online_game("raja-pasu").await;
        let south = tokio::spawn(player(s.addr, id.clone(), "S", south_token, 1));
        let north = tokio::spawn(player(s.addr, id.clone(), "N", north_token, 2));
        let (a, b) = (south.await.unwrap(), north.await.unwrap());
        let mut rtts: Vec<Duration> = a.1.into_iter().chain(b.1).collect();
        rtts.sort();
        rtts
    };
    let t_setup = Instant::now();
    let mut games = Vec::new();
    for i in 0..GAMES {
        let game = ["raja-pasu", "walak-pussa", "pasu-pondi", "pasu-pondi-6"][i % 4];
        games.push(s.online_game(game).await);
    }
    let setup = t_setup.elapsed();
    let t0 = Instant::now();
    let mut tasks = Vec::new();
    for (i, (id, south, north)) in games.iter().enumerate() {
        for (seat, token) in [("S", south), ("N", north)] {
            let (addr, id, token) = (s.addr, id.clone(), token.clone());
            let seed = i as u64 * 2 + u64::from(seat == "N");
            tasks.push(tokio::spawn(async move {
                (id.clone(), player(addr, id, seat, token, seed).await)
            }));
        }
    }
    let all = tokio::time::timeout(
        Duration::from_secs(120),
        futures_util::future::join_all(tasks),
    )
    .await
    .expect("the load test finishes within 120 s");
    let elapsed = t0.elapsed();
    let mut by_game: HashMap<String, Vec<(u64, String)>> = HashMap::new();
    let mut rtts = Vec::new();
    for r in all {
        let (id, (acked, times)) = r.expect("client task");
        by_game.entry(id).or_default().extend(acked);
        rtts.extend(times);
    }
    // Every acknowledged move is in the stored game, in order, and the game replays.
    let stored: Arc<Mutex<u64>> = Arc::new(Mutex::new(0));
    for (id, _, _) in &games {
        let st = s.get(&format!("/api/games/{id}")).await.json();
        let mut acked = by_game.remove(id).unwrap_or_default();
        acked.sort();
        let moves: Vec<(u64, String)> = st["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m: &Value| {
                (
                    m["ply"].as_u64().unwrap(),
                    m["move"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        assert_eq!(
            acked, moves,
            "game {id}: acknowledged moves vs stored moves"
        );
        assert!(
            st["match_over"] == true || st["ply"] == MAX_PLY,
            "game {id} stopped early: {}",
            st["ply"]
        );
        assert_matches_rules(&st);
        *stored.lock().unwrap() += moves.len() as u64;
    }
    let total = *stored.lock().unwrap();
    assert_eq!(total, rtts.len() as u64);
    rtts.sort();
    let pct = |p: f64| rtts[((rtts.len() as f64 - 1.0) * p).round() as usize];
    println!(
        "load: {GAMES} online games, {} WebSocket clients, {total} moves in {:.2} s ({:.0} moves/s; setup {:.2} s)",
        GAMES * 2,
        elapsed.as_secs_f64(),
        total as f64 / elapsed.as_secs_f64(),
        setup.as_secs_f64()
    );
    println!(
        "load: move round-trip latency median {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        pct(0.5).as_secs_f64() * 1e3,
        pct(0.99).as_secs_f64() * 1e3,
        rtts.last().unwrap().as_secs_f64() * 1e3
    );
    let spct = |p: f64| solo[((solo.len() as f64 - 1.0) * p).round() as usize];
    println!(
        "load: one game alone ({} moves): median {:.2} ms, p99 {:.2} ms",
        solo.len(),
        spct(0.5).as_secs_f64() * 1e3,
        spct(0.99).as_secs_f64() * 1e3
    );
    assert!(
        total >= GAMES as u64 * 10,
        "games were played: {total} moves"
    );
    s.stop().await;
}
