//! The server's computer and hints use the endgame tables given with `Server::use_tables`:
//! from imported positions within the tables' range, every move the computer (club) chooses is
//! the tables' best, and a hint's value is the proven table value (single games: in a match a
//! round's end is also valued by what it leads to, docs/engine.md).

mod common;

use pussa_egtb::{build_dir, BuildOptions, Tables};
use pussa_rules::record::Record;
use pussa_rules::{Game, GameState, Mode, Position, Rng, Setup, Side};
use serde_json::json;

const MAX: usize = 8;

/// The exact value of every legal move for the side to move, given the round's history (the
/// tables' path search for moves that take nothing).
fn exact_move_values(tables: &Tables, state: &GameState) -> Vec<(String, i32)> {
    let me = state.position().to_move();
    let k = state.position().seeds_on_board();
    let mut out = Vec::new();
    for mv in state.legal_moves() {
        let mut s = state.clone();
        let before = s.position().stores();
        s.play(mv).expect("legal");
        let after = s.position().stores();
        let gain = (i32::from(after[me.index()]) - i32::from(before[me.index()]))
            - (i32::from(after[me.other().index()]) - i32::from(before[me.other().index()]));
        let v = if s.is_round_over() {
            gain
        } else {
            let child = s.position();
            let sign = if child.to_move() == me { 1 } else { -1 };
            let rest = if child.seeds_on_board() < k {
                tables.probe_fresh(child)
            } else {
                tables.probe_with_history(child, s.history())
            };
            gain + sign * rest.expect("covered and determined")
        };
        out.push((mv.to_string(), v));
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_computer_and_the_hints_play_the_tables_best_moves() {
    let dir = common::temp_dir("tables");
    let egtb = dir.join("egtb");
    let game = Game::WalakPussa;
    build_dir(
        &egtb,
        game,
        MAX,
        BuildOptions::default(),
        false,
        &|_| {},
        &mut |_| {},
    )
    .unwrap();
    let tables = Tables::open(&egtb, game, None).unwrap();
    let config = pussa_server::Config {
        addr: "127.0.0.1:0".parse().unwrap(),
        db: dir.join("pussa.sqlite3"),
    };
    let server = pussa_server::Server::bind(&config).await.expect("bind");
    let games = server.use_tables(&egtb).expect("tables");
    assert_eq!(games, vec![(game, MAX)]);
    let verified = server.verify_tables();
    assert_eq!(verified, vec![(game, Ok(MAX))]);
    let addr = server.local_addr();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let handle = tokio::spawn(async move {
        server
            .run(async {
                let _ = rx.await;
            })
            .await
            .expect("run");
    });

    let mut rng = Rng::new(11);
    let mut checked = 0;
    let mut hints = 0;
    let mut games_played = 0;
    while games_played < 12 {
        let k = 4 + rng.below(MAX as u32 - 3);
        let mut board = [0u8; 14];
        for _ in 0..k {
            board[rng.below(14) as usize] += 1;
        }
        let rest = 56 - k;
        let pos = Position::from_parts_unchecked(
            game,
            board,
            0,
            [(rest / 2) as u8, (rest - rest / 2) as u8],
            Side::South,
        );
        let start = GameState::from_position(pos, Mode::Single, 1, Side::South);
        if start.is_round_over() || start.legal_moves().is_empty() {
            continue;
        }
        games_played += 1;
        // The computer sits South and is to move: it plays as soon as the game is imported.
        let record = Record::from_setup(Setup::from_position(&pos, 1), Mode::Single)
            .unwrap()
            .to_string();
        let r = common::http(
            addr,
            "POST",
            "/api/games/import",
            Some(
                &json!({"record": record, "seat": "N",
                        "opponent": {"kind": "computer", "level": "club"}})
                .to_string(),
            ),
        )
        .await;
        assert_eq!(r.status, 201, "{}", r.body);
        let created = r.json();
        let id = created["id"].as_str().unwrap().to_string();
        let token = created["token"].as_str().unwrap().to_string();
        // North answers with the first legal move (a hint first, now and then) until round 1
        // is over.
        loop {
            let st = common::http(addr, "GET", &format!("/api/games/{id}"), None)
                .await
                .json();
            if st["round"] != 1 || st["round_over"] == true || st["to_move"] != "N" {
                break;
            }
            if hints < 6 {
                let h = common::http(
                    addr,
                    "GET",
                    &format!("/api/games/{id}/hint?token={token}"),
                    None,
                )
                .await;
                assert_eq!(h.status, 200, "{}", h.body);
                let h = h.json();
                // The hint's value is proven by the tables: the best move's value plus the
                // seeds already taken this round.
                let setup: Setup = st["position"].as_str().unwrap().parse().unwrap();
                let here = setup.game_state(Mode::Single).unwrap();
                let mut state = start.clone();
                for m in st["moves"].as_array().unwrap() {
                    state
                        .play(m["move"].as_str().unwrap().parse().unwrap())
                        .unwrap();
                }
                assert_eq!(state.position(), here.position());
                let values = exact_move_values(&tables, &state);
                let best = values.iter().map(|v| v.1).max().unwrap();
                let taken = st["taken"].as_array().unwrap();
                let taken_n = taken[1].as_i64().unwrap() - taken[0].as_i64().unwrap();
                assert_eq!(h["exact"], true, "{h}");
                assert_eq!(
                    h["score"].as_i64().unwrap(),
                    taken_n + i64::from(best),
                    "{h}"
                );
                hints += 1;
            }
            let mv = st["legal"][0].as_str().unwrap().to_string();
            let p = common::http(
                addr,
                "POST",
                &format!("/api/games/{id}/moves"),
                Some(&json!({"move": mv, "token": token}).to_string()),
            )
            .await;
            assert_eq!(p.status, 200, "{}", p.body);
        }
        // Replay round 1 and check every computer move against the tables.
        let st = common::http(addr, "GET", &format!("/api/games/{id}"), None)
            .await
            .json();
        let mut state = start.clone();
        for m in st["moves"].as_array().unwrap() {
            if m["round"] != 1 {
                break;
            }
            let mv = m["move"].as_str().unwrap().to_string();
            if m["side"] == "S" {
                let values = exact_move_values(&tables, &state);
                let best = values.iter().map(|v| v.1).max().unwrap();
                let got = values.iter().find(|v| v.0 == mv).unwrap().1;
                assert_eq!(
                    got,
                    best,
                    "game {id} from {}: the computer's {mv} is worth {got}, the best {best}: {values:?}",
                    Setup::from_position(&pos, 1)
                );
                checked += 1;
            }
            state.play(mv.parse().unwrap()).unwrap();
        }
    }
    assert!(checked >= 24, "only {checked} computer moves checked");
    assert_eq!(hints, 6);
    let _ = tx.send(());
    handle.await.unwrap();
    std::fs::remove_dir_all(&dir).ok();
}

/// A table file damaged after its header (a checksum that no longer matches) is found when the
/// server verifies the tables, and the error says what fixes it, not only what is wrong (the
/// library's `Remedy`, in words: the server has no command line to name).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_table_is_reported_with_its_fix() {
    let dir = common::temp_dir("tables-damaged");
    let egtb = dir.join("egtb");
    let game = Game::RajaPasu;
    build_dir(
        &egtb,
        game,
        4,
        BuildOptions::default(),
        false,
        &|_| {},
        &mut |_| {},
    )
    .unwrap();
    let file = pussa_egtb::format::table_path(&egtb, game, 4);
    let mut bytes = std::fs::read(&file).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x5a;
    std::fs::write(&file, &bytes).unwrap();
    let config = pussa_server::Config {
        addr: "127.0.0.1:0".parse().unwrap(),
        db: dir.join("pussa.sqlite3"),
    };
    let server = pussa_server::Server::bind(&config).await.expect("bind");
    server.use_tables(&egtb).expect("the headers are sound");
    let verified = server.verify_tables();
    assert_eq!(verified.len(), 1, "{verified:?}");
    let (g, result) = &verified[0];
    assert_eq!(*g, game);
    let err = result.as_ref().expect_err("a damaged file is not used");
    assert!(err.contains("4.pegtb"), "names the file: {err}");
    assert!(
        err.ends_with("(delete the damaged file or build its tables again)"),
        "says the fix: {err}"
    );
}
