//! The `pussa` binary run as a child process: replay, explain, perft, bench, rules, and bad input.

use std::process::Command;

use pussa_rules::record::Record;
use pussa_rules::{perft, Game, GameState, Hole, Mode, Position, Rng, Setup, Side};
use serde_json::{json, Value};

mod run;
use run::{fails, json_lines, ok, pussa, stderr, stdout};

/// What `replay --json` must print for a state, computed from the library.
fn expected(g: &GameState) -> Value {
    let pos = g.position();
    json!({
        "round": g.round(),
        "board": pos.board().to_vec(),
        "closed": (0..14).filter(|i| pos.closed_mask() & (1 << i) != 0).collect::<Vec<usize>>(),
        "stores": pos.stores().to_vec(),
        "to_move": g.to_move().map(|s| s.letter().to_string()),
        "legal": g.legal_moves().map(|h| h.letter().to_string()).collect::<Vec<_>>(),
        "round_over": g.is_round_over(),
        "match_over": g.is_over(),
        "winner": g.winner().map(|w| match w {
            Some(Side::South) => "S",
            Some(Side::North) => "N",
            None => "draw",
        }),
        "position": Setup::from_state(g).to_string(),
        "taken": g.taken_this_round().to_vec(),
    })
}

/// A random game or match to its end, with every state `replay --json` should print.
fn random_play(game: Game, mode: Mode, seed: u64) -> (Vec<Hole>, Vec<Value>, Vec<GameState>) {
    let mut rng = Rng::new(seed);
    let mut g = GameState::new(game, mode, Side::South);
    let mut moves = Vec::new();
    let mut lines = vec![expected(&g)];
    let mut states = vec![g.clone()];
    while !g.is_over() {
        let legal = g.legal_moves();
        let mv = legal.nth(rng.below(legal.len() as u32) as usize).unwrap();
        g.play(mv).unwrap();
        moves.push(mv);
        lines.push(expected(&g));
        states.push(g.clone());
        if g.is_round_over() && !g.is_over() {
            g.next_round();
            lines.push(expected(&g));
            states.push(g.clone());
        }
    }
    (moves, lines, states)
}

fn letters(moves: &[Hole]) -> String {
    moves
        .iter()
        .map(|h| h.letter().to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn replay_json_has_exactly_the_fields_and_the_contracts_worked_first_moves() {
    // (game, move, North g..a, South A..G, taken S/N) from the rules contract.
    let worked = [
        (
            "walak-pussa",
            "A",
            [0, 6, 6, 1, 6, 0, 0],
            [2, 1, 7, 7, 7, 0, 7],
            [6, 0],
        ),
        (
            "walak-pussa",
            "D",
            [1, 6, 0, 0, 7, 0, 7],
            [6, 6, 0, 2, 1, 7, 7],
            [6, 0],
        ),
        (
            "raja-pasu",
            "A",
            [2, 14, 1, 14, 14, 2, 14],
            [3, 1, 0, 0, 0, 14, 0],
            [15, 4],
        ),
        (
            "raja-pasu",
            "G",
            [14, 0, 14, 0, 0, 0, 1],
            [2, 14, 14, 1, 14, 2, 3],
            [11, 8],
        ),
        (
            "pasu-pondi",
            "A",
            [8, 8, 8, 0, 0, 1, 7],
            [2, 7, 1, 0, 7, 7, 7],
            [7, 0],
        ),
        (
            "pasu-pondi",
            "G",
            [7, 7, 7, 7, 0, 1, 7],
            [1, 0, 0, 8, 8, 8, 2],
            [7, 0],
        ),
    ];
    for (game, mv, north, south, taken) in worked {
        let lines = json_lines(&ok(&["replay", "--game", game, "--moves", mv, "--json"]));
        assert_eq!(lines.len(), 2);
        for l in &lines {
            let mut keys: Vec<&str> = l.as_object().unwrap().keys().map(String::as_str).collect();
            keys.sort_unstable();
            assert_eq!(
                keys,
                [
                    "board",
                    "closed",
                    "legal",
                    "match_over",
                    "position",
                    "round",
                    "round_over",
                    "stores",
                    "taken",
                    "to_move",
                    "winner"
                ]
            );
        }
        let mut board: Vec<u64> = south.to_vec();
        board.extend(north.iter().rev());
        let after = &lines[1];
        assert_eq!(after["board"], json!(board), "{game} {mv}");
        assert_eq!(after["stores"], json!(taken), "{game} {mv}");
        assert_eq!(after["to_move"], json!("N"));
        assert_eq!(after["round"], json!(1));
        assert_eq!(after["closed"], json!([]));
        assert_eq!(after["round_over"], json!(false));
        assert_eq!(after["winner"], Value::Null);
        assert_eq!(
            lines[0]["legal"],
            json!(["A", "B", "C", "D", "E", "F", "G"])
        );
    }
}

#[test]
fn replay_json_of_a_whole_random_game_matches_the_library() {
    for (i, game) in Game::ALL.into_iter().enumerate() {
        let (moves, want, _) = random_play(game, Mode::Single, 40 + i as u64);
        let got = json_lines(&ok(&[
            "replay",
            "--game",
            game.name(),
            "--moves",
            &letters(&moves),
            "--json",
        ]));
        assert_eq!(got, want, "{game}");
        let last = got.last().unwrap();
        assert_eq!(
            last["match_over"],
            json!(true),
            "a single game's match_over turns true at its end"
        );
        assert_eq!(last["round_over"], json!(true));
        assert_eq!(last["to_move"], Value::Null);
        assert_eq!(last["legal"], json!([]));
        assert_ne!(last["winner"], Value::Null);
        // Swept: nothing left on the board, the stores hold every seed.
        assert!(last["board"].as_array().unwrap().iter().all(|v| v == 0));
        let stores: u64 = last["stores"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .sum();
        assert_eq!(stores, u64::from(game.total_seeds()));
        assert!(got[..got.len() - 1]
            .iter()
            .all(|l| l["winner"].is_null() && l["match_over"] == json!(false)));
    }
}

#[test]
fn replay_json_of_a_match_shows_the_round_end_then_the_next_round_with_closed_holes() {
    // Find a random Raja Pasu match whose second round closes a hole.
    let mut found = false;
    for seed in 0..200 {
        let (moves, want, states) = random_play(Game::RajaPasu, Mode::Match, seed);
        let Some(k) = states.iter().position(|s| s.round() == 2) else {
            continue;
        };
        if states[k].position().closed_mask() == 0 {
            continue;
        }
        let got = json_lines(&ok(&[
            "replay",
            "--game",
            "raja-pasu",
            "--match",
            "--moves",
            &letters(&moves),
            "--json",
        ]));
        assert_eq!(got, want);
        let end = &got[k - 1];
        assert_eq!(end["round"], json!(1));
        assert_eq!(end["round_over"], json!(true));
        assert_eq!(end["match_over"], json!(false));
        assert_eq!(end["to_move"], Value::Null);
        assert_eq!(end["legal"], json!([]));
        assert_eq!(end["winner"], Value::Null);
        assert!(end["board"].as_array().unwrap().iter().all(|v| v == 0));
        let next = &got[k];
        assert_eq!(next["round"], json!(2));
        assert_eq!(next["round_over"], json!(false));
        assert!(!next["closed"].as_array().unwrap().is_empty());
        assert!(next["to_move"].is_string());
        // Refilled: closed holes hold nothing, open holes 7 each.
        let closed: Vec<u64> = next["closed"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        for (i, v) in next["board"].as_array().unwrap().iter().enumerate() {
            let want = if closed.contains(&(i as u64)) { 0 } else { 7 };
            assert_eq!(v.as_u64().unwrap(), want);
        }
        let last = got.last().unwrap();
        assert_eq!(last["match_over"], json!(true));
        assert!(last["winner"] == json!("S") || last["winner"] == json!("N"));
        // The words tell the same story.
        let text = ok(&[
            "replay",
            "--game",
            "raja-pasu",
            "--match",
            "--moves",
            &letters(&moves),
        ]);
        assert!(text.contains("Round 1 is over: "), "{text}");
        assert!(text.contains("\nRound 2:\n"), "{text}");
        assert!(text.contains("closed;"), "{text}");
        assert!(text.contains("the match is over: "), "{text}");
        found = true;
        break;
    }
    assert!(found, "no random match with closed holes in round 2");
}

#[test]
fn replay_from_a_match_position_with_closed_holes() {
    let pos = "x,7,7,7,7,7,7/7,7,7,7,7,7,7 3 4 S 2 raja-pasu";
    let lines = json_lines(&ok(&[
        "replay",
        "--game",
        "raja-pasu",
        "--match",
        "--position",
        pos,
        "--moves",
        "B",
        "--json",
    ]));
    assert_eq!(lines[0]["closed"], json!([0]));
    assert_eq!(lines[0]["round"], json!(2));
    assert_eq!(lines[0]["stores"], json!([3, 4]));
    assert_eq!(lines[0]["legal"], json!(["B", "C", "D", "E", "F", "G"]));
    assert_eq!(lines[1]["closed"], json!([0]));
    assert_eq!(lines[1]["to_move"], json!("N"));
    // A closed hole is refused by name.
    let err = fails(&[
        "replay",
        "--game",
        "raja-pasu",
        "--match",
        "--position",
        pos,
        "--moves",
        "A",
    ]);
    assert_eq!(
        err.trim(),
        "error: move 1. A: the hole is closed this round"
    );
}

#[test]
fn move_lists_accept_commas_and_move_numbers() {
    let plain = ok(&[
        "replay",
        "--game",
        "walak-pussa",
        "--moves",
        "A d C",
        "--json",
    ]);
    let numbered = ok(&[
        "replay",
        "--game",
        "walak-pussa",
        "--moves",
        "1. A d 2. C",
        "--json",
    ]);
    let commas = ok(&[
        "replay",
        "--game",
        "walak-pussa",
        "--moves",
        "A,d,C",
        "--json",
    ]);
    assert_eq!(plain, numbered);
    assert_eq!(plain, commas);
    let north_first = ok(&[
        "replay",
        "--game",
        "walak-pussa",
        "--first",
        "N",
        "--moves",
        "1... d",
        "--json",
    ]);
    assert_eq!(json_lines(&north_first)[0]["to_move"], json!("N"));
}

#[test]
fn an_illegal_move_stops_the_replay_with_its_number_and_reason() {
    let o = pussa(&[
        "replay",
        "--game",
        "walak-pussa",
        "--moves",
        "A d a",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stdout(&o).lines().count(),
        3,
        "the states before the bad move are printed"
    );
    assert_eq!(
        stderr(&o),
        "error: move 2. a: not your hole: South is to move and owns A-G\n"
    );
    let err = fails(&["replay", "--game", "walak-pussa", "--moves", "A F"]);
    assert!(
        err.contains("move 1... F: not your hole: North is to move"),
        "{err}"
    );
    let err = fails(&["replay", "--game", "walak-pussa", "--moves", "A d F"]);
    assert_eq!(err.trim(), "error: move 2. F: the hole is empty");
    let err = fails(&["replay", "--game", "walak-pussa", "--moves", "A x"]);
    assert!(err.contains("move 1... x: not a move"), "{err}");
    let err = fails(&["replay", "--game", "walak-pussa", "--moves", "A dd"]);
    assert!(err.contains("move 1... dd: not a move"), "{err}");
}

#[test]
fn an_endless_move_is_refused_by_replay_and_explain() {
    let pos = "0,1,1,0,1,0,1/2,1,0,2,1,0,1 45 0 S 1 walak-pussa";
    let lines = json_lines(&ok(&[
        "replay",
        "--game",
        "walak-pussa",
        "--position",
        pos,
        "--json",
    ]));
    let legal = lines[0]["legal"].as_array().unwrap();
    assert!(
        !legal.contains(&json!("C")),
        "an endless move is never offered"
    );
    assert!(legal.contains(&json!("B")));
    let err = fails(&[
        "replay",
        "--game",
        "walak-pussa",
        "--position",
        pos,
        "--moves",
        "C",
    ]);
    assert!(err.starts_with("error: move 1. C: endless sowing"), "{err}");
    let err = fails(&[
        "explain",
        "--game",
        "walak-pussa",
        "--position",
        pos,
        "--move",
        "C",
    ]);
    assert!(err.starts_with("error: move C: endless sowing"), "{err}");
}

#[test]
fn malformed_positions_are_refused_with_what_is_wrong() {
    let cases = [
        (
            "4,4,4,4,4,4,4/4,4,4,4,4,4 0 0 S 1 walak-pussa",
            "North's row has 6 holes",
        ),
        (
            "4,4,4,4,4,4,4/4,4,4,4,4,4,5 0 0 S 1 walak-pussa",
            "seeds add up to 57",
        ),
        (
            "4,4,4,4,4,4,4/4,4,4,4,4,4,q 0 0 S 1 walak-pussa",
            "hole g: 'q'",
        ),
        (
            "4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0 W 1 walak-pussa",
            "side to move 'W'",
        ),
        (
            "4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0 S 0 walak-pussa",
            "rounds count from 1",
        ),
        ("4,4,4,4,4,4,4/4,4,4,4,4,4,4", "expected 6 or 7 fields"),
        (
            "x,4,4,4,4,4,4/4,4,4,4,4,4,4 4 0 S 1 walak-pussa",
            "closed in round 1",
        ),
        (
            "4,x,4,4,4,4,4/4,4,4,4,4,4,4 4 0 S 2 walak-pussa",
            "left end of the row in walak-pussa: 1 closed should be A, found B (hole B is out of place)",
        ),
        (
            "x,x,4,4,4,4,4/4,4,4,4,4,4,4 8 0 S 2 walak-pussa",
            "",
        ),
        (
            "x,4,x,4,4,4,4/4,4,4,4,4,4,4 8 0 S 2 walak-pussa",
            "2 closed should be A B, found A C (hole C is out of place)",
        ),
        (
            "x,x,4,4,4,4,4/x,4,4,4,4,4,4 8 4 S 2 walak-pussa",
            "both rows have closed holes",
        ),
        ("", "expected 6 or 7 fields"),
    ];
    for (pos, needle) in cases {
        if needle.is_empty() {
            // A valid position among them: the ones around it fail for their own reason.
            ok(&[
                "replay",
                "--game",
                "walak-pussa",
                "--match",
                "--position",
                pos,
            ]);
            continue;
        }
        let err = fails(&["replay", "--game", "walak-pussa", "--position", pos]);
        assert!(err.contains(needle), "{pos:?}: {err}");
        assert!(err.starts_with("error: --position: "), "{err}");
    }
    let err = fails(&[
        "replay",
        "--game",
        "walak-pussa",
        "--position",
        "7,7,7,7,7,7,7/7,7,7,7,7,7,7 0 0 S 1 raja-pasu",
    ]);
    assert!(
        err.contains("position is for raja-pasu, but the game is walak-pussa"),
        "{err}"
    );
    let err = fails(&[
        "perft",
        "--game",
        "walak-pussa",
        "--depth",
        "2",
        "--position",
        "1/2",
    ]);
    assert!(err.contains("--position"), "{err}");
}

/// An unknown game inside `--position` is told once by every command that reads a position
/// (the game's error used to be printed again as the position error's cause), and the option
/// is named once: not `--position: position: …`.
#[test]
fn an_unknown_game_in_a_position_is_told_once() {
    let pos = "4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0 S 1 chess";
    let want = "error: --position: unknown game 'chess': expected one of walak-pussa, \
                raja-pasu, pasu-pondi, pasu-pondi-6\n";
    let dir = std::env::temp_dir().to_string_lossy().into_owned();
    let runs: [&[&str]; 5] = [
        &["replay", "--game", "walak-pussa", "--position", pos],
        &[
            "perft",
            "--game",
            "walak-pussa",
            "--depth",
            "1",
            "--position",
            pos,
        ],
        &[
            "explain",
            "--game",
            "walak-pussa",
            "--move",
            "A",
            "--position",
            pos,
        ],
        &["analyze", "--game", "walak-pussa", "--position", pos],
        &[
            "egtb",
            "probe",
            "--game",
            "walak-pussa",
            "--dir",
            &dir,
            "--position",
            pos,
        ],
    ];
    for args in runs {
        assert_eq!(fails(args), want, "{args:?}");
    }
}

#[test]
fn unknown_games_and_bad_flags_are_usage_errors() {
    for args in [
        &["replay", "--game", "chess", "--moves", "A"][..],
        &["explain", "--game", "oware", "--move", "A"],
        &["perft", "--game", "x", "--depth", "1"],
        &["rules", "mancala"],
        &["bench", "--game", "go"],
        &["play", "--game", "chess"],
        &["tournament", "random", "random", "--game", "chess"],
    ] {
        let o = pussa(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = stderr(&o);
        assert!(err.contains("unknown game"), "{args:?}: {err}");
        assert!(!err.contains("panicked"));
    }
    for args in [
        &["replay", "--game", "walak-pussa", "--bogus"][..],
        &["replay", "--moves", "A"],
        &["replay", "--game", "walak-pussa", "--first", "X"],
        &["play", "--first", "X"],
        &["play", "--seat", "Q"],
        &["egtb", "match", "--game", "raja-pasu", "--first", "X"],
        &[
            "replay",
            "--game",
            "walak-pussa",
            "--first",
            "N",
            "--position",
            "p",
        ],
        &["explain", "--game", "walak-pussa", "--move", "Q"],
        &["explain", "--game", "walak-pussa"],
        &["perft", "--game", "walak-pussa", "--depth", "-1"],
        &["perft", "--game", "walak-pussa", "--depth", "many"],
        &["bench", "--threads", "x"],
        &["bench", "--seconds", "0"],
        &["no-such-command"],
    ] {
        let o = pussa(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).starts_with("error: "),
            "{args:?}: {}",
            stderr(&o)
        );
    }
    let err = fails(&["bench", "--threads", "0"]);
    assert!(err.contains("--threads"), "{err}");
}

/// The laps of a narrative as (lifted hole, seeds, first and last hole sown).
fn laps(text: &str) -> Vec<(String, String, String, String)> {
    text.split(';')
        .map(str::trim)
        .filter_map(|part| {
            let part = part.strip_prefix("lift ")?;
            let (head, sown) = part.split_once(" → ")?;
            let (hole, seeds) = head.split_once(' ')?;
            let sown = sown.split(',').next().unwrap();
            let holes: Vec<&str> = sown.split_whitespace().filter(|w| *w != "…").collect();
            Some((
                hole.into(),
                seeds.into(),
                holes[0].into(),
                holes[holes.len() - 1].into(),
            ))
        })
        .collect()
}

#[test]
fn explain_tells_the_contracts_worked_moves_lap_by_lap() {
    // The contract's narratives, as written there.
    let walak = "lift A (4) → B C D E; lift F (4) → G a b c; lift d (4) → e f g A; \
        lift B (5) → C D E F G; lift a (5) → b c d e f; lift g (5) → A B C D E; lift F (1) → G";
    let raja = "lift G (7) → a … g; lift A (7) → B … G a; lift b (8) → c … C; lift D (8) \
        → E … e; lift f (9) → g … a; lift b (1) → c; lift d (10) → e … G, and G reaches 4: South takes 4; \
        lift a (11) → b … E, A reaches 4 on the way: South takes 4; lift F (11) → G … C; lift D (3) → E F G; \
        lift a (1) → b; lift c (13) → d … b, and North takes a four twice (8 seeds): f, b";
    let out = ok(&["explain", "--game", "walak-pussa", "--move", "A"]);
    let told: Vec<&str> = out.lines().map(str::trim).collect();
    for lap in walak.split("; ") {
        assert!(told.contains(&lap), "missing {lap:?} in\n{out}");
    }
    assert!(
        told.contains(&"the hole after G is a, empty: sowing ends"),
        "{out}"
    );
    assert!(
        told.contains(&"the hole after it, b, holds 6: South takes them"),
        "{out}"
    );
    assert!(
        told.contains(&"the hole after b (c) is not empty, so the chain stops"),
        "{out}"
    );
    assert!(out.contains("Taken: South 6, North 0."));

    let out = ok(&["explain", "--game", "raja-pasu", "--move", "G"]);
    let mine = laps(&out.lines().map(str::trim).collect::<Vec<_>>().join("; "));
    assert_eq!(mine, laps(raja), "{out}");
    for four in [
        "and G reaches 4: South takes 4",
        "A reaches 4 on the way: South takes 4",
        "and North takes a four twice (8 seeds): f, b",
    ] {
        assert!(out.contains(four), "missing {four:?} in\n{out}");
    }
    assert!(
        out.contains("the hole after b is c, empty: sowing ends"),
        "{out}"
    );
    assert!(
        out.contains("the hole after it, d, holds 3: South takes them"),
        "{out}"
    );
    assert!(out.contains("Taken: South 11, North 8."));
}

#[test]
fn explain_json_prints_the_trace() {
    let out = ok(&["explain", "--game", "walak-pussa", "--move", "A", "--json"]);
    let events: Value = serde_json::from_str(out.trim()).unwrap();
    let events = events.as_array().unwrap();
    assert_eq!(
        events[0],
        json!({"type": "lift", "hole": "A", "seeds": 4, "relay": false})
    );
    assert_eq!(events[1], json!({"type": "drop", "hole": "B", "now": 5}));
    let lifts = events.iter().filter(|e| e["type"] == "lift").count();
    assert_eq!(lifts, 7);
    assert!(events
        .iter()
        .any(|e| *e
            == json!({"type": "capture", "hole": "b", "seeds": 6, "by": "S", "chained": false})));
}

#[test]
fn explain_tells_a_chain_and_the_end_of_a_round() {
    // Find Walak-pussa moves with a chained capture and moves that end the round, by random play.
    let mut rng = Rng::new(8);
    let (mut chain, mut end) = (false, false);
    for _ in 0..300 {
        if chain && end {
            break;
        }
        let mut g = GameState::new(Game::WalakPussa, Mode::Single, Side::South);
        while !g.is_over() {
            let legal = g.legal_moves();
            let mv = legal.nth(rng.below(legal.len() as u32) as usize).unwrap();
            let before = g.clone();
            let mut events = Vec::new();
            g.play_traced(mv, &mut events).unwrap();
            let chained = events
                .iter()
                .any(|e| matches!(e, pussa_rules::Event::Capture { chained: true, .. }));
            if (chained && !chain) || (g.is_over() && !end) {
                let pos = pussa_rules::Setup::from_state(&before).to_string();
                let out = ok(&[
                    "explain",
                    "--game",
                    "walak-pussa",
                    "--position",
                    &pos,
                    "--move",
                    &mv.to_string(),
                ]);
                if chained {
                    assert!(out.contains("takes them too"), "{out}");
                    assert!(out.contains("the chain stops"), "{out}");
                    chain = true;
                }
                if g.is_over() {
                    assert!(out.contains("Round 1 is over: "), "{out}");
                    assert!(out.contains("The game is over: "), "{out}");
                    end = true;
                }
            }
        }
    }
    assert!(chain && end, "chain {chain}, end {end}");
}

#[test]
fn perft_counts_agree_with_the_library() {
    for game in Game::ALL {
        let out = ok(&["perft", "--game", game.name(), "--depth", "4"]);
        let start = Position::start(game);
        for d in 1..=4 {
            let line = format!("depth {d:>2}  {}", perft(&start, d));
            assert!(out.contains(&line), "{game}: {line:?} not in\n{out}");
        }
    }
    let out = ok(&["perft", "--game", "walak-pussa", "--depth", "3", "--divide"]);
    let total: u64 = out
        .lines()
        .filter_map(|l| l.trim().split_once(": "))
        .filter(|(mv, _)| mv.len() == 1)
        .map(|(_, n)| n.parse::<u64>().unwrap())
        .sum();
    assert_eq!(total, perft(&Position::start(Game::WalakPussa), 3));
    assert!(out.contains("depth  1  7"));
    // From a position.
    let pos = "x,7,7,7,7,7,7/7,7,7,7,7,7,7 3 4 S 2 raja-pasu";
    let out = ok(&[
        "perft",
        "--game",
        "raja-pasu",
        "--position",
        pos,
        "--depth",
        "2",
    ]);
    let p = pos
        .parse::<pussa_rules::Setup>()
        .unwrap()
        .position()
        .unwrap();
    assert!(
        out.contains(&format!("depth  2  {}", perft(&p, 2))),
        "{out}"
    );
    // Without --game, the game is the one the position names (as replay, explain, analyze).
    let alone = ok(&["perft", "--position", pos, "--depth", "2"]);
    for d in 1..=2 {
        let line = format!("depth  {d}  {}", perft(&p, d));
        assert!(alone.contains(&line), "{line:?} not in\n{alone}");
    }
    // Neither --game nor --position: clap's usage error.
    let o = pussa(&["perft", "--depth", "2"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn rules_prints_the_common_sections_and_the_games_own() {
    let raja = ok(&["rules", "raja-pasu"]);
    assert!(raja.contains("## Raja Pasu"));
    assert!(!raja.contains("## Walak-pussa"));
    assert!(!raja.contains("## Pasu Pondi"));
    for common in [
        "## The board",
        "## A move",
        "### Endless moves",
        "## The end of a round",
        "## Matches",
        "## Decisions and why",
        "## Notation",
    ] {
        assert!(raja.contains(common), "{common}");
    }
    let pondi6 = ok(&["rules", "pasu-pondi-6"]);
    assert!(pondi6.contains("## Pasu Pondi") && !pondi6.contains("## Raja Pasu"));
    let all = ok(&["rules"]);
    assert!(
        all.contains("## Walak-pussa")
            && all.contains("## Raja Pasu")
            && all.contains("## Pasu Pondi")
    );
    assert_eq!(all, include_str!("../docs/rules.md"));
}

/// `pussa bench --search` prints the search's signature, and this package's README (the
/// workspace's) quotes that very number: crates/engine/tests/signature.rs checks the engine's
/// docs against the number the docs quote; this checks the `pussa` docs against the command.
#[test]
fn the_readme_quotes_the_signature_bench_search_prints() {
    let out = ok(&["bench", "--search"]);
    let signature = out
        .lines()
        .find_map(|l| l.strip_prefix("signature "))
        .unwrap_or_else(|| panic!("no signature line: {out}"))
        .trim();
    assert!(signature.parse::<u64>().is_ok(), "{out}");
    let total = out
        .lines()
        .find(|l| l.starts_with("total "))
        .unwrap_or_else(|| panic!("no total line: {out}"));
    assert_eq!(total.split_whitespace().nth(1), Some(signature), "{out}");
    let readme = include_str!("../README.md");
    assert!(
        readme.contains(&format!("**{signature}**")),
        "README.md does not quote the signature {signature} that `pussa bench --search` prints"
    );
}

#[test]
fn bench_prints_a_row_per_thread_and_a_total() {
    let out = ok(&[
        "bench",
        "--game",
        "pasu-pondi",
        "--seconds",
        "0.2",
        "--threads",
        "2",
        "--seed",
        "5",
    ]);
    let rows: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("pasu-pondi "))
        .collect();
    assert_eq!(rows.len(), 3, "{out}");
    let total: Vec<&str> = rows[2].split_whitespace().collect();
    assert_eq!(total[1], "all");
    let playouts: u64 = total[2].parse().unwrap();
    let per_thread: u64 = rows[..2]
        .iter()
        .map(|r| r.split_whitespace().nth(2).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(playouts, per_thread);
    assert!(playouts > 0);
}

#[test]
fn replay_reads_a_game_record() {
    let (moves, want, _) = random_play(Game::PasuPondi6, Mode::Match, 3);
    let mut rec = Record::from_moves(Game::PasuPondi6, Mode::Match, Side::South, &moves).unwrap();
    rec.set_tag("South", "test").unwrap();
    rec.comment("the last move");
    let dir = std::env::temp_dir().join(format!("pussa-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("game.txt");
    std::fs::write(&path, rec.to_string()).unwrap();
    let got = json_lines(&ok(&[
        "replay",
        "--record",
        path.to_str().unwrap(),
        "--json",
    ]));
    assert_eq!(got, want);
    let text = ok(&["replay", "--record", path.to_str().unwrap()]);
    assert!(text.starts_with("South: test\n"), "{text}");
    // The last move, numbered as the record numbers it.
    let mut g = GameState::new(Game::PasuPondi6, Mode::Match, Side::South);
    let mut numbering = pussa_rules::record::Numbering::new(1);
    let mut last = String::new();
    for &mv in &moves {
        g.next_round();
        last = format!("\n{} {} plays {mv}:", numbering.prefix(&g), mv.owner());
        numbering.played(mv, g.round());
        g.play(mv).unwrap();
    }
    assert!(text.contains(&last), "{last} in {text}");
    assert!(text.contains("{the last move}"), "{text}");
    let err = fails(&[
        "replay",
        "--record",
        path.to_str().unwrap(),
        "--game",
        "raja-pasu",
    ]);
    assert!(err.contains("the record"), "{err}");
    std::fs::write(&path, "[Game \"raja-pasu\"]\n\n1. a *\n").unwrap();
    let err = fails(&["replay", "--record", path.to_str().unwrap()]);
    assert!(
        err.contains("line 3, column 4: move 1. a: not your hole"),
        "{err}"
    );
    let err = fails(&[
        "replay",
        "--record",
        dir.join("missing.txt").to_str().unwrap(),
    ]);
    assert!(err.contains("cannot read the record"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Splits a command line on spaces, keeping double-quoted words whole.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ' ' if !quoted => {
                if !cur.is_empty() {
                    words.push(std::mem::take(&mut cur));
                }
            }
            _ => cur.push(c),
        }
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words
}

#[test]
fn the_readmes_command_line_examples_run() {
    let readme = include_str!("../README.md");
    let section = &readme[readme.find("## Command line").unwrap()..];
    let section = &section[..section[3..].find("\n## ").unwrap()];
    let mut ran = 0;
    for line in section.lines().filter(|l| l.starts_with("pussa ")) {
        let command = line.split(" #").next().unwrap();
        let mut words = shell_words(command);
        words.remove(0);
        // Only the rules engine's commands: others (play, serve, …) are tested by their owners.
        if !["replay", "explain", "perft", "bench", "rules"].contains(&words[0].as_str()) {
            continue;
        }
        if words.iter().any(|w| w == "--record") {
            continue; // needs a file; replay_reads_a_game_record covers it
        }
        if words[0] == "bench" {
            words.extend(["--seconds".to_string(), "0.05".to_string()]);
        }
        let args: Vec<&str> = words.iter().map(String::as_str).collect();
        ok(&args);
        ran += 1;
    }
    assert!(ran >= 6, "only {ran} examples found");
}

/// Runs with a stdout whose reader is already gone: the command must end quietly (exit 0, no
/// panic) and leave its files whole.
fn closed_stdout(args: &[&str]) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pussa"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    drop(child.stdout.take());
    child.wait_with_output().expect("the binary ends")
}

#[test]
fn a_closed_stdout_ends_every_printing_command_quietly() {
    let dir = std::env::temp_dir().join(format!("pussa-cli-pipe-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let tables = dir.join("t");
    let t = tables.to_str().unwrap();
    let results = dir.join("r.json");
    let r = results.to_str().unwrap();
    let runs: Vec<Vec<&str>> = vec![
        vec![
            "egtb",
            "build",
            "--game",
            "raja-pasu",
            "--max-seeds",
            "3",
            "--dir",
            t,
        ],
        vec!["egtb", "verify", "--dir", t],
        vec![
            "egtb",
            "probe",
            "--game",
            "raja-pasu",
            "--dir",
            t,
            "--position",
            "0,1,0,2,0,0,0/0,0,0,0,0,0,0 94 1 S 1 raja-pasu",
        ],
        vec![
            "egtb",
            "solve",
            "--game",
            "raja-pasu",
            "--dir",
            t,
            "--seeds-per-hole",
            "1",
        ],
        vec![
            "tournament",
            "random",
            "greedy",
            "-n",
            "2",
            "-q",
            "--results",
            r,
        ],
        vec!["replay", "--game", "raja-pasu", "--moves", "A b"],
        vec!["replay", "--game", "raja-pasu", "--moves", "A b", "--json"],
        vec!["perft", "--game", "raja-pasu", "--depth", "2"],
        // Its JSON is written by serde_json, whose error wraps the closed pipe's.
        vec!["explain", "--game", "walak-pussa", "--move", "A", "--json"],
        vec!["explain", "--game", "raja-pasu", "--move", "G"],
        vec!["levels", "--json"],
    ];
    for args in &runs {
        let o = closed_stdout(args);
        let err = stderr(&o);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_eq!(o.status.code(), Some(0), "{args:?}: {err}");
    }
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&results).unwrap()).unwrap();
    assert_eq!(
        v["finished"], true,
        "the results were finished before the summary"
    );
    assert_eq!(v["games"].as_array().unwrap().len(), 2);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn explain_lays_out_the_next_round_of_a_match_as_replay_does() {
    let pos = "0,0,0,0,0,0,0/0,0,0,0,0,0,0 56 42 S 1 raja-pasu";
    let out = ok(&[
        "explain",
        "--game",
        "raja-pasu",
        "--match",
        "--position",
        pos,
        "--move",
        "b",
    ]);
    assert!(
        out.starts_with("(the round is already over in this position: South has no legal move; round 2 is laid out first)\nRound 1 is over: South has no legal move"),
        "{out}"
    );
    // The refill is told before the move, as after a move that ends a round.
    assert!(
        out.contains("\nRound 2:\n  South fills 7 holes with 7 each; 7 stay in the store.\n  North fills 6 holes with 7 each, a closed; 0 stay in the store.\n  North starts.\nRaja Pasu, North plays b:"),
        "{out}"
    );
    // The move is the same one replay plays after laying out round 2.
    let replayed = ok(&[
        "replay",
        "--game",
        "raja-pasu",
        "--match",
        "--position",
        pos,
        "--moves",
        "b",
        "--json",
    ]);
    let last: Value = serde_json::from_str(replayed.lines().last().unwrap()).unwrap();
    assert_eq!(last["round"], 2, "{replayed}");
    // In a single game the round's end is the end: nothing to lay out.
    let err = fails(&[
        "explain",
        "--game",
        "raja-pasu",
        "--position",
        pos,
        "--move",
        "b",
    ]);
    assert!(
        err.contains("move b: the round is already over in this position: South has no legal move, so the game is over (South wins)"),
        "{err}"
    );
}

/// The move explained from a position whose round is over is told as from the round laid out:
/// a Walak-pussa round 11 whose next round closes holes, where the chain's end is told across
/// the holes the refill leaves open.
#[test]
fn explain_tells_a_round_opening_move_as_from_the_laid_out_round() {
    let over = "0,0,0,0,0,0,0/x,x,0,0,0,0,0 5+15 3+33 S 11 walak-pussa N";
    let mut g = over
        .parse::<Setup>()
        .unwrap()
        .game_state(Mode::Match)
        .unwrap();
    assert!(g.is_round_over());
    assert!(g.next_round());
    let laid_out = Setup::from_state(&g).to_string();
    // The lines of the move itself: from its heading to "Taken: …".
    let move_block = |out: &str| -> String {
        let start = out
            .find("Walak-pussa, South plays C:")
            .expect("the move's heading");
        let end = start + out[start..].find("Taken:").expect("Taken:");
        out[start..end].to_string()
    };
    let explain = |pos: &str| ok(&["explain", "--match", "--position", pos, "--move", "C"]);
    let from_over = explain(over);
    let from_laid_out = explain(&laid_out);
    assert!(
        from_over.contains("round 12 is laid out first"),
        "{from_over}"
    );
    assert_eq!(move_block(&from_over), move_block(&from_laid_out));
    assert!(
        move_block(&from_over).contains("the hole after G (a) is not empty, so the chain stops"),
        "{from_over}"
    );
}

#[test]
fn levels_lists_every_ladder_and_play_refuses_a_level_off_the_ladder() {
    use pussa_engine::Level;
    let v: Value = serde_json::from_str(&ok(&["levels", "--json"])).unwrap();
    assert_eq!(v["levels"].as_array().unwrap().len(), Level::ALL.len());
    let ladders = v["ladders"].as_array().unwrap();
    assert_eq!(ladders.len(), 2 * Game::ALL.len());
    for l in ladders {
        let game: Game = l["game"].as_str().unwrap().parse().unwrap();
        let mode = if l["mode"] == "match" {
            Mode::Match
        } else {
            Mode::Single
        };
        let names: Vec<&str> = Level::ladder(game, mode).iter().map(|l| l.name()).collect();
        assert_eq!(l["levels"], json!(names), "{l}");
        assert_eq!(l["default"], Level::default_for(game, mode).name(), "{l}");
    }
    // One game and mode as JSON: the levels offered there, as the text lists them.
    let v: Value = serde_json::from_str(&ok(&["levels", "--game", "raja-pasu", "--json"])).unwrap();
    let offered: Vec<&str> = v["levels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["name"].as_str().unwrap())
        .collect();
    assert_eq!(offered, ["beginner", "casual", "club", "max"]);
    assert_eq!(v["ladders"][0]["levels"], json!(offered));
    // One game and mode: its levels, and the ones left out named.
    let text = ok(&["levels", "--game", "raja-pasu"]);
    assert!(
        text.contains("Raja Pasu single games") && text.contains("Not offered there: novice"),
        "{text}"
    );
    assert!(!text.lines().any(|l| l.starts_with("6  master")), "{text}");
    // With a game, each searching level says its own budget there.
    let text = ok(&["levels", "--game", "pasu-pondi", "--match"]);
    assert!(
        text.contains("5  expert    alpha-beta search of 1,000 positions a move\n"),
        "{text}"
    );
    let o = pussa(&["levels", "--match"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--game"), "{}", stderr(&o));
    // `play` checks the level against the ladder before it touches the terminal: a value
    // error of --level, as clap gives for a level that does not exist (exit 2).
    // The value is quoted as typed; the level's name follows.
    for (args, typed) in [
        (
            &["play", "--game", "raja-pasu", "--level", "master"][..],
            "master",
        ),
        (&["play", "--game", "raja-pasu", "--level", "6"], "6"),
    ] {
        let o = pussa(args);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
        assert!(
            e.starts_with(&format!("error: invalid value '{typed}' for '--level <LEVEL>': level 'master' is not offered in Raja Pasu single games"))
                && e.contains("beginner, casual, club, max"),
            "{e}"
        );
    }
}

#[test]
fn perft_counts_the_empty_sequence_at_depth_0_and_analyze_takes_egtb_none() {
    let out = ok(&["perft", "--game", "raja-pasu", "--depth", "0"]);
    assert_eq!(out.lines().next(), Some("depth  0  1"), "{out}");
    let with_none = ok(&[
        "analyze",
        "--game",
        "raja-pasu",
        "--depth",
        "3",
        "--egtb",
        "none",
        "--json",
    ]);
    let without = ok(&["analyze", "--game", "raja-pasu", "--depth", "3", "--json"]);
    let (a, b): (Value, Value) = (
        serde_json::from_str(&with_none).unwrap(),
        serde_json::from_str(&without).unwrap(),
    );
    assert_eq!(a["moves"], b["moves"]);
}

/// With stderr a pipe whose reader is gone, a failing command still exits 1 (the error line is
/// lost), never 101 (the panic of a failed `eprintln!`). The record is read from a FIFO, so the
/// command fails only after the test has closed its end of the stderr pipe.
#[cfg(unix)]
#[test]
fn an_error_with_stderr_closed_exits_1_not_with_a_panic() {
    use std::io::Write as _;
    // A shell waits for a line on stdin, then becomes `pussa` with an error to report
    // (a record file that is not a regular file is refused at once).
    let mut child = Command::new("sh")
        .arg("-c")
        .arg("read go; exec \"$0\" replay --record /dev/zero")
        .arg(env!("CARGO_BIN_EXE_pussa"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The reader of the child's stderr goes before the child has anything to say.
    drop(child.stderr.take());
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"go\n").unwrap();
    drop(stdin);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(1), "{status:?}");
}

#[test]
fn a_position_string_names_the_game_so_game_is_optional_beside_it() {
    let pos = "0,1,0,2,0,0,0/1,0,0,0,1,0,2 63 0 S 1 pasu-pondi";
    // replay and explain take the game from the position when --game is absent ...
    let with = ok(&[
        "replay",
        "--game",
        "pasu-pondi",
        "--position",
        pos,
        "--moves",
        "D",
        "--json",
    ]);
    let without = ok(&["replay", "--position", pos, "--moves", "D", "--json"]);
    assert_eq!(with, without);
    let with = ok(&[
        "explain",
        "--game",
        "pasu-pondi",
        "--position",
        pos,
        "--move",
        "D",
    ]);
    let without = ok(&["explain", "--position", pos, "--move", "D"]);
    assert_eq!(with, without);
    assert!(without.contains("Pasu Pondi"), "{without}");
    // ... still check the two against each other when both are given ...
    let err = fails(&["replay", "--game", "raja-pasu", "--position", pos]);
    assert!(
        err.contains("pasu-pondi") && err.contains("raja-pasu"),
        "{err}"
    );
    // ... and without either, the game is still asked for.
    let o = pussa(&["replay", "--moves", "A"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--game"), "{}", stderr(&o));
    let o = pussa(&["explain", "--move", "A"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // A position too broken to name a game says what is wrong with it.
    let err = fails(&["replay", "--position", "4,4,4 0 0 S 1"]);
    assert!(err.contains("--position"), "{err}");
}

#[test]
fn rules_takes_the_game_as_an_option_too() {
    let positional = ok(&["rules", "raja-pasu"]);
    let option = ok(&["rules", "--game", "raja-pasu"]);
    assert_eq!(positional, option);
    assert_ne!(
        option,
        ok(&["rules"]),
        "a game's page is not the whole page"
    );
    let o = pussa(&["rules", "raja-pasu", "--game", "walak-pussa"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn serve_refuses_a_claim_time_out_of_range_before_starting() {
    for bad in ["0", "-5", "86401", "soon"] {
        let arg = format!("--claim-after={bad}");
        let o = pussa(&["serve", &arg, "--data", "/nonexistent/never"]);
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("--claim-after"),
            "{bad}: {}",
            stderr(&o)
        );
    }
}

/// The egtb summary names every subcommand, `match` too (it used to stop at solve).
#[test]
fn the_egtb_summary_names_every_subcommand() {
    let top = ok(&["--help"]);
    assert!(
        top.contains("Endgame databases: build, probe, verify, solve, match"),
        "{top}"
    );
    let egtb = ok(&["egtb", "--help"]);
    for sub in ["build", "probe", "match", "solve", "verify"] {
        assert!(
            egtb.lines().any(|l| l.trim_start().starts_with(sub)),
            "{sub} not listed:\n{egtb}"
        );
    }
}

/// `pussa rules --notation` prints docs/notation.md (the rules point to it, and a user of the
/// binary had no way to read it); with a game it is a usage error.
#[test]
fn rules_prints_the_notation() {
    assert_eq!(
        ok(&["rules", "--notation"]),
        include_str!("../docs/notation.md")
    );
    let o = pussa(&["rules", "raja-pasu", "--notation"]);
    assert_eq!(o.status.code(), Some(2));
    let raja = ok(&["rules", "raja-pasu"]);
    assert!(raja.starts_with("# The rules of Raja Pasu\n"), "{raja}");
    assert!(raja.contains("`pussa rules --notation`"));
}

/// A scratch file in the target dir, unique to the test.
fn scratch(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli-notation");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn a_single_game_from_a_round_two_position_is_won_by_the_rounds_takings() {
    // Carried over 50 and 46, nothing taken yet: North's 2 win the round, whatever the holdings.
    let out = ok(&[
        "replay",
        "--position",
        "x,x,x,x,x,0,1/0,0,0,0,0,0,1 50 46 S 2 raja-pasu",
        "--moves",
        "G a",
    ]);
    assert!(
        out.ends_with(
            "The game is over: North wins the round, 2 to 0 taken (holding South 50, North 48).\n"
        ),
        "{out}"
    );
    // The same stores with South's 48 taken in the round: South wins it.
    let out = ok(&[
        "replay",
        "--position",
        "x,x,x,x,x,0,1/0,0,0,0,0,0,1 2+48 46 S 2 raja-pasu",
        "--moves",
        "G a",
    ]);
    assert!(
        out.ends_with(
            "The game is over: South wins the round, 48 to 2 taken (holding South 50, North 48).\n"
        ),
        "{out}"
    );
    // A match continued from its own position string scores the round as the whole record does.
    let whole = ok(&[
        "replay",
        "--game",
        "raja-pasu",
        "--match",
        "--moves",
        "G e D c B g E f E g C D f G g F d G f D g F",
    ]);
    let part = ok(&[
        "replay",
        "--match",
        "--position",
        "0,2,16,1,1,1,1/x,x,x,16,3,0,0 16+25 5+11 S 2 raja-pasu",
        "--moves",
        "G g F d G f D g F",
    ]);
    let line = "Taken in the round: South 49, North 28; South wins the round.";
    assert!(whole.contains(line), "{whole}");
    assert!(part.contains(line), "{part}");
    // Round 1 has nothing carried over.
    let err = fails(&[
        "replay",
        "--position",
        "0,0,0,0,0,0,1/0,0,0,0,0,0,1 4+46 48 S 1 raja-pasu",
    ]);
    assert!(err.contains("round 1 has nothing carried over"), "{err}");
}

/// A match ended by a resignation or at a tournament's round limit has `round_over` true with
/// `match_over`, as the server's state has it (it said `round_over: false` there: QA pass 15).
#[test]
fn replay_json_of_a_match_ended_mid_round_or_at_the_round_limit_says_the_round_is_over() {
    // Round 1 ends with South's sixth move.
    const ROUND_1: &str = "1. G e 2. D c 3. B g 4. E f 5. E g 6. C";
    // A match stopped at its round limit ends with that round's end: round 2 is never laid out.
    for (name, tags, moves, result, winner, round) in [
        (
            "resigned-match.txt",
            "[Termination \"South resigned\"]",
            format!("{ROUND_1}\nR2 1. D f"),
            "0-1",
            "N",
            2,
        ),
        (
            "round-limit-match.txt",
            "[Termination \"drawn at the round limit (1)\"]",
            ROUND_1.to_string(),
            "1/2-1/2",
            "draw",
            1,
        ),
    ] {
        let p = scratch(
            name,
            &format!(
                "[Game \"raja-pasu\"]\n[Mode \"match\"]\n[First \"S\"]\n{tags}\n\n{moves} {result}\n"
            ),
        );
        let lines = json_lines(&ok(&["replay", "--record", p.to_str().unwrap(), "--json"]));
        let last = lines.last().unwrap();
        assert_eq!(last["round"], json!(round), "{name}: {last}");
        assert_eq!(last["match_over"], json!(true), "{name}: {last}");
        assert_eq!(last["round_over"], json!(true), "{name}: {last}");
        assert_eq!(last["winner"], json!(winner), "{name}: {last}");
        assert_eq!(last["to_move"], Value::Null, "{name}: {last}");
        // Every line before it is a round still being played.
        assert!(lines[..lines.len() - 1]
            .iter()
            .all(|l| l["match_over"] == json!(false)));
    }
}

#[test]
fn replay_of_a_record_ends_with_its_decided_result() {
    let p = scratch(
        "resigned.txt",
        "[Game \"walak-pussa\"]\n[Termination \"North resigned\"]\n\n1. A d 1-0\n",
    );
    let path = p.to_str().unwrap();
    let out = ok(&["replay", "--record", path]);
    assert!(
        out.ends_with("The game is over: South wins (North resigned).\n"),
        "{out}"
    );
    let lines = json_lines(&ok(&["replay", "--record", path, "--json"]));
    assert_eq!(lines.len(), 3);
    let last = &lines[2];
    assert_eq!(last["match_over"], json!(true));
    assert_eq!(last["round_over"], json!(true));
    assert_eq!(last["winner"], json!("S"));
    assert_eq!(last["to_move"], Value::Null);
    assert_eq!(last["legal"], json!([]));
    // Without a Termination tag the result token is named; an unfinished record says nothing.
    let p = scratch("drawn.txt", "[Game \"walak-pussa\"]\n\n1. A d 1/2-1/2\n");
    let out = ok(&["replay", "--record", p.to_str().unwrap()]);
    assert!(
        out.ends_with("The game is over: a draw (the record's result, 1/2-1/2).\n"),
        "{out}"
    );
    let p = scratch("open.txt", "[Game \"walak-pussa\"]\n\n1. A d *\n");
    let out = ok(&["replay", "--record", p.to_str().unwrap()]);
    assert!(!out.contains("is over"), "{out}");
}

#[test]
fn explain_match_tells_the_refill_and_the_next_starter() {
    let args = [
        "explain",
        "--match",
        "--position",
        "0,0,0,0,0,0,0/1,0,0,0,0,0,2 28 25 N 1 walak-pussa S",
        "--move",
        "a",
    ];
    let out = ok(&args);
    assert!(
        out.contains(
            "Holding: South 28, North 28; North will start round 2.\nRound 2:\n  \
             South fills 7 holes with 4 each; 0 stay in the store.\n  \
             North fills 7 holes with 4 each; 0 stay in the store.\n  North starts.\n"
        ),
        "{out}"
    );
    let mut json_args = args.to_vec();
    json_args.push("--json");
    let events: Value = serde_json::from_str(&ok(&json_args)).unwrap();
    let last = events.as_array().unwrap().last().unwrap();
    assert_eq!(
        *last,
        json!({"type":"refill","round":2,"filled":[7,7],"remainder":[0,0],"closed":[],"starter":"N"})
    );
    // Without --match the game simply ends.
    let single = ok(&args[..1]
        .iter()
        .chain(&args[2..])
        .copied()
        .collect::<Vec<_>>());
    assert!(!single.contains("Round 2"), "{single}");
}

#[test]
fn explain_tells_raja_pasu_g_as_the_rules_do() {
    let out = ok(&["explain", "--game", "raja-pasu", "--move", "G"]);
    let laps: Vec<&str> = out.lines().skip(1).take(3).map(str::trim).collect();
    assert_eq!(
        laps,
        [
            "lift G (7) → a … g",
            "lift A (7) → B … G a",
            "lift b (8) → c … C"
        ]
    );
    // docs/rules.md gives the same laps.
    let rules =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/rules.md")).unwrap();
    assert!(
        rules.contains("lift G (7) → a … g; lift A (7) → B … G a; lift b (8) → c … C;"),
        "rules.md"
    );
}

/// Output that cannot be written fails every command, help and version included, and the
/// error says it was standard output.
#[test]
#[cfg(target_os = "linux")]
fn output_that_cannot_be_written_is_an_error_naming_standard_output() {
    for args in [
        &["help"][..],
        &["help", "replay"],
        &["--version"],
        &["--help"],
        &["replay", "--help"],
        &["rules", "walak-pussa"],
        &["levels"],
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_pussa"))
            .args(args)
            .stdout(full)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert_eq!(
            stderr(&out).trim_end(),
            "error: cannot write to standard output: No space left on device (os error 28)",
            "{args:?}"
        );
    }
    // Written normally, they succeed; a usage error keeps clap's exit code 2.
    assert!(ok(&["--version"]).starts_with("pussa "));
    assert!(ok(&["help"]).contains("Usage:"));
    assert_eq!(pussa(&["nosuchcommand"]).status.code(), Some(2));
}

/// An endless move whose cycle is millions of laps long is refused by `explain` with its usual
/// error, in bounded memory: its trace is never recorded (it took about 490 MB here, and some
/// 30 GB for a longer cycle, before the move was found endless). Run under a 300 MB address
/// space limit.
#[test]
fn explain_refuses_a_long_endless_move_in_bounded_memory() {
    let pos = "4,3,7,6,5,4,5/2,3,2,3,5,4,3 0 0 N 1 walak-pussa";
    let capped = |args: &str| {
        Command::new("sh")
            .arg("-c")
            .arg(format!(
                "ulimit -v 300000 && exec \"$0\" explain --position '{pos}' {args}"
            ))
            .arg(env!("CARGO_BIN_EXE_pussa"))
            .output()
            .expect("run sh")
    };
    for json in ["", "--json"] {
        let out = capped(&format!("--move e {json}"));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert_eq!(
            err.trim_end(),
            "error: move e: endless sowing: the same board recurs with the same hole about to be lifted"
        );
    }
    // A move that ends is still told lap by lap.
    let out = capped("--move a --json");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let events: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        events[0],
        json!({"type": "lift", "hole": "a", "seeds": 2, "relay": false})
    );
}

#[test]
fn replay_says_why_a_match_ends_on_a_holding_too_small_for_a_hole() {
    // South cannot move, North takes the last 2 and holds 5, fewer than one Raja Pasu hole's 7:
    // replay names the reason in the terminal game's sentence.
    let text = ok(&[
        "replay",
        "--match",
        "--position",
        "0,0,0,0,0,0,0/x,x,x,x,x,1,1 93 3 S 3 raja-pasu",
    ]);
    assert!(
        text.ends_with(
            "North holds 5, too few to fill a hole of 7 seeds, so the match is over: South \
             wins, 93 to 5.\n"
        ),
        "{text}"
    );
}

/// `pussa --version` names the commit it was built from (in a git checkout) and the database
/// schema the build reads and writes, which tells apart builds that a bug report or a club's
/// database tells apart.
#[test]
fn the_version_names_the_commit_and_the_database_schema() {
    // What the build script found (cargo gives the package's tests its `rustc-env` too).
    let built = env!("PUSSA_COMMIT");
    let commit = if built.is_empty() {
        String::new()
    } else {
        format!("commit {built}, ")
    };
    assert_eq!(
        ok(&["--version"]).trim_end(),
        format!(
            "pussa {} ({commit}database schema {})",
            env!("CARGO_PKG_VERSION"),
            pussa_server::store::SCHEMA_VERSION
        )
    );
    // And it is the right one: in a git checkout that tracks this crate, with no commit given
    // by the builder, HEAD's (cargo builds the tests and the binary at the HEAD they run at).
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8(o.stdout).unwrap().trim().to_string())
    };
    let packaged = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(".cargo_vcs_info.json")
        .exists();
    if std::env::var_os("PUSSA_COMMIT").is_none()
        && !packaged
        && git(&["ls-files", "--error-unmatch", "build.rs"]).is_some()
    {
        let head = git(&["rev-parse", "HEAD"]).expect("HEAD");
        assert_eq!(
            built,
            &head[..9],
            "the build names another commit than HEAD"
        );
    }
}

/// `pussa engine --help` (and `pussa help engine`) shows the help written for it: where the
/// protocol is, how the tables are loaded, an example session (the doc comment on the
/// subcommand used to replace it with its one-line summary).
#[test]
fn engine_help_shows_the_protocol_the_tables_and_an_example() {
    for args in [&["engine", "--help"][..], &["help", "engine"]] {
        let help = ok(args);
        for want in [
            "`pussa rules --protocol`",
            "setoption name EGTBPath value <dir>",
            "newgame raja-pasu single",
            "position startpos moves G",
            "go depth 6",
        ] {
            assert!(help.contains(want), "{args:?} lacks {want}:\n{help}");
        }
    }
    // The short help keeps the one-line summary.
    assert!(ok(&["engine", "-h"]).starts_with("Speak the engine protocol on stdin/stdout"));
}

/// `pussa rules --protocol` prints docs/protocol.md, built in (what a front end or tournament
/// manager author needs, and the engine's help points to it); the command's pointers to the
/// docs name something an installed user can reach: a command, or the file "in pussa's
/// source".
#[test]
fn rules_prints_the_protocol_and_the_pointers_to_docs_can_be_followed() {
    // docs/protocol.md, but its links to engine.md (neither built in nor installed) name where
    // that file is, as the other pointers do.
    let protocol = ok(&["rules", "--protocol"]);
    let doc = include_str!("../docs/protocol.md");
    let links = doc.matches("](engine.md").count();
    assert!(links >= 4, "{links} links to engine.md in docs/protocol.md");
    assert!(!protocol.contains("](engine.md"), "{protocol}");
    assert_eq!(
        protocol.matches("docs/engine.md in pussa's source").count(),
        links
    );
    assert!(protocol.contains("(docs/engine.md in pussa's source, \"Matches\")"));
    assert!(protocol.contains("docs/engine.md in pussa's source, \"Limits\".)"));
    assert_eq!(
        protocol.lines().count(),
        doc.lines().count(),
        "only the links change"
    );
    for (printed, written) in protocol.lines().zip(doc.lines()) {
        if !written.contains("](engine.md") {
            assert_eq!(printed, written);
        }
    }
    let o = pussa(&["rules", "--protocol", "--notation"]);
    assert_eq!(o.status.code(), Some(2));
    let levels = ok(&["levels"]);
    assert!(
        levels.contains("docs/engine.md in pussa's source"),
        "{levels}"
    );
    for line in levels.lines().filter(|l| l.contains("docs/")) {
        assert!(line.contains("in pussa's source"), "{line}");
    }
}
