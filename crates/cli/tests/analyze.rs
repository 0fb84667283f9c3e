//! `pussa analyze` run as a child process.

use std::process::{Command, Output};

use pussa_engine::reference::minimax_state_budget;
use pussa_rules::{Game, GameState, Hole, Mode, Setup};
use serde_json::Value;

fn pussa(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pussa"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn ok_json(args: &[&str]) -> Value {
    let o = pussa(args);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).expect("one JSON object")
}

fn fails(args: &[&str]) -> String {
    let o = pussa(args);
    let err = String::from_utf8(o.stderr).unwrap();
    assert_ne!(o.status.code(), Some(0), "{args:?} should fail");
    assert!(!err.contains("panicked"), "{err}");
    err
}

#[test]
fn lists_every_legal_move_best_first_with_its_line() {
    for game in Game::ALL {
        let v = ok_json(&["analyze", "--game", game.name(), "--depth", "6", "--json"]);
        assert_eq!(v["game"], game.name());
        let start = GameState::new(game, Mode::Single, pussa_rules::Side::South);
        assert_eq!(v["position"], Setup::from_state(&start).to_string());
        let moves = v["moves"].as_array().unwrap();
        assert_eq!(moves.len(), start.legal_moves().len());
        let scores: Vec<i64> = moves.iter().map(|m| m["score"].as_i64().unwrap()).collect();
        assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
        for m in moves {
            let pv = m["pv"].as_array().unwrap();
            assert_eq!(pv[0], m["move"]);
            // The line is playable from the position.
            let mut g = start.clone();
            for h in pv {
                if g.is_round_over() {
                    break;
                }
                g.play(h.as_str().unwrap().parse::<Hole>().unwrap())
                    .unwrap();
            }
        }
    }
}

#[test]
fn exact_values_of_a_small_position_match_a_plain_minimax() {
    let p = "0,1,1,1,0,0,0/0,0,0,0,0,0,2 27 24 S 1 walak-pussa";
    let v = ok_json(&[
        "analyze",
        "--game",
        "walak-pussa",
        "--position",
        p,
        "--depth",
        "30",
        "--json",
    ]);
    let state = p
        .parse::<Setup>()
        .unwrap()
        .game_state(Mode::Single)
        .unwrap();
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves.len(), state.legal_moves().len());
    for m in moves {
        assert_eq!(m["exact"], true, "{m}");
        let mv: Hole = m["move"].as_str().unwrap().parse().unwrap();
        let mut c = state.clone();
        c.play(mv).unwrap();
        let want = match minimax_state_budget(&c, 30, 2_000_000) {
            Some((v, exact)) => {
                assert!(exact);
                -v
            }
            None => {
                assert!(c.is_round_over(), "the minimax ran out of budget");
                let t = c.taken_this_round();
                i32::from(t[0]) - i32::from(t[1])
            }
        };
        assert_eq!(m["score"].as_i64().unwrap(), i64::from(want), "move {mv}");
    }
}

#[test]
fn text_output_names_the_moves_and_marks_exact_values() {
    let o = pussa(&[
        "analyze",
        "--game",
        "pasu-pondi",
        "--moves",
        "A",
        "--depth",
        "4",
    ]);
    assert!(o.status.success());
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains("North to move"), "{text}");
    assert!(text.contains("principal variation"));
    let lines: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("move"))
        .skip(1)
        .collect();
    let mut g = GameState::new(Game::PasuPondi, Mode::Single, pussa_rules::Side::South);
    g.play(Hole::from_letter('A').unwrap()).unwrap();
    assert_eq!(lines.len(), g.legal_moves().len(), "{text}");
}

#[test]
fn bad_input_is_a_clear_error() {
    let e = fails(&["analyze", "--game", "walak-pussa", "--moves", "A A"]);
    assert!(e.contains("move 1... A: not your hole"), "{e}");
    let e = fails(&[
        "analyze",
        "--game",
        "walak-pussa",
        "--depth",
        "3",
        "--movetime",
        "10",
    ]);
    assert!(e.contains("--movetime") || e.contains("--depth"), "{e}");
    let e = fails(&[
        "analyze",
        "--game",
        "raja-pasu",
        "--position",
        "4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0 S 1 walak-pussa",
    ]);
    assert!(e.contains("walak-pussa") && e.contains("raja-pasu"), "{e}");
    let e = fails(&["analyze", "--game", "chess"]);
    assert!(e.contains("chess"), "{e}");
    // A finished game has nothing to analyse.
    let e = fails(&[
        "analyze",
        "--game",
        "pasu-pondi",
        "--position",
        "0,0,0,0,0,0,0/0,0,0,0,0,3,0 40 27 S 1 pasu-pondi",
    ]);
    assert!(e.contains("over"), "{e}");
}

/// `--depth` and `--movetime` take the engine protocol's ranges with its behaviour (QA pass 21,
/// interop #9): a depth beyond the search's maximum of 96 is searched to 96 with a note on
/// stderr, `--movetime 0` answers at once; out of those ranges is a usage error.
#[test]
fn depth_and_movetime_take_the_engine_protocols_ranges() {
    let p = "0,0,1,0,0,0,0/0,0,0,1,0,0,0 51 45 S 1 raja-pasu";
    for depth in ["200", "1000"] {
        let o = pussa(&["analyze", "--position", p, "--depth", depth, "--json"]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(
            String::from_utf8_lossy(&o.stderr),
            format!(
                "note: --depth {depth} is beyond the search's maximum depth 96; searching to depth 96\n"
            )
        );
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["value"], 8, "{v}");
        assert_eq!(v["value_exact"], true, "{v}");
    }
    // 96 itself is no clamp: nothing on stderr.
    let o = pussa(&["analyze", "--position", p, "--depth", "96", "--json"]);
    assert!(o.status.success() && o.stderr.is_empty());
    let start = std::time::Instant::now();
    let o = pussa(&[
        "analyze",
        "--game",
        "raja-pasu",
        "--movetime",
        "0",
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(start.elapsed() < std::time::Duration::from_secs(5));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["moves"].as_array().unwrap().len(), 7, "{v}");
    assert!(v["depth"].as_u64().unwrap() <= 1, "{v}");
    let e = fails(&["analyze", "--game", "raja-pasu", "--depth", "1001"]);
    assert!(e.contains("1001 is not in 1..=1000"), "{e}");
    let e = fails(&["analyze", "--game", "raja-pasu", "--depth", "0"]);
    assert!(e.contains("0 is not in 1..=1000"), "{e}");
    let e = fails(&["analyze", "--game", "raja-pasu", "--movetime", "86400001"]);
    assert!(e.contains("86400001 is not in 0..=86400000"), "{e}");
}

#[test]
fn endgame_tables_give_exact_values_without_search() {
    let dir = std::env::temp_dir().join(format!("pussa-analyze-egtb-{}", std::process::id()));
    let d = dir.to_str().unwrap();
    let o = pussa(&[
        "egtb",
        "build",
        "--game",
        "walak-pussa",
        "--max-seeds",
        "5",
        "--dir",
        d,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let p = "0,1,1,1,0,0,0/0,0,0,0,0,0,2 27 24 S 1 walak-pussa";
    let deep = ok_json(&[
        "analyze",
        "--game",
        "walak-pussa",
        "--position",
        p,
        "--depth",
        "30",
        "--json",
    ]);
    // One ply of search: every move's child is in the tables.
    let v = ok_json(&[
        "analyze",
        "--game",
        "walak-pussa",
        "--position",
        p,
        "--depth",
        "1",
        "--egtb",
        d,
        "--json",
    ]);
    let without = ok_json(&[
        "analyze",
        "--game",
        "walak-pussa",
        "--position",
        p,
        "--depth",
        "1",
        "--json",
    ]);
    assert!(without["moves"]
        .as_array()
        .unwrap()
        .iter()
        .any(|m| m["exact"] == false));
    for (m, want) in v["moves"]
        .as_array()
        .unwrap()
        .iter()
        .zip(deep["moves"].as_array().unwrap())
    {
        assert_eq!(m["exact"], true, "{m}");
        assert_eq!(m["move"], want["move"]);
        assert_eq!(m["score"], want["score"]);
    }
    let e = fails(&["analyze", "--game", "raja-pasu", "--egtb", d]);
    assert!(e.contains("no raja-pasu tables"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A position string starts the round's history, so where the tables' value is exact for a
/// history that starts there (what `egtb probe` calls exact, `Tables::probe_fresh` and
/// `Tables::move_values`), `analyze --egtb` gives the root and every move those values, marked
/// exact, at any depth: also after moves that took nothing, whose values may depend on the
/// root recurring (QA pass 21, interop #3).
#[test]
fn tables_value_a_root_they_cover_exactly_at_any_depth() {
    let dir = std::env::temp_dir().join(format!("pussa-analyze-root-{}", std::process::id()));
    let d = dir.to_str().unwrap();
    let o = pussa(&[
        "egtb",
        "build",
        "--game",
        "raja-pasu",
        "--max-seeds",
        "4",
        "--dir",
        d,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let tables = pussa_egtb::Tables::open(&dir, Game::RajaPasu, None).unwrap();
    // The QA report's two positions (the first exact only for a history that starts there,
    // the second for any), then random positions of up to 4 seeds.
    let mut positions = vec![
        "1,0,0,0,0,0,0/1,0,0,0,0,0,0 47 49 S 1 raja-pasu N".to_string(),
        "1,0,0,1,0,0,0/0,1,0,0,0,0,0 57 38 S 1 raja-pasu".to_string(),
    ];
    let mut rng = pussa_rules::Rng::new(21);
    while positions.len() < 40 {
        let mut board = [0u8; 14];
        let k = 2 + rng.below(3);
        for _ in 0..k {
            board[rng.below(14) as usize] += 1;
        }
        let south = rng.below(98 - k);
        let row = |r: &[u8]| {
            r.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(",")
        };
        let p = format!(
            "{}/{} {south} {} {} 1 raja-pasu",
            row(&board[..7]),
            row(&board[7..]),
            98 - k - south,
            if rng.below(2) == 0 { "S" } else { "N" }
        );
        let ok = p
            .parse::<Setup>()
            .ok()
            .and_then(|s| s.game_state(Mode::Single).ok())
            .is_some_and(|g| !g.is_round_over());
        if ok {
            positions.push(p);
        }
    }
    let mut history_dependent = 0;
    for p in &positions {
        let state = p
            .parse::<Setup>()
            .unwrap()
            .game_state(Mode::Single)
            .unwrap();
        let pos = *state.position();
        let me = pos.to_move().index();
        let taken = state.taken_this_round();
        let so_far = i32::from(taken[me]) - i32::from(taken[1 - me]);
        let value = tables.probe_fresh(&pos).expect("covered");
        if tables.probe(&pos).is_none() {
            history_dependent += 1;
        }
        let moves = tables.move_values(&pos).unwrap();
        for depth in ["1", "2"] {
            let v = ok_json(&[
                "analyze",
                "--position",
                p,
                "--egtb",
                d,
                "--depth",
                depth,
                "--json",
            ]);
            assert_eq!(v["value"], so_far + value, "{p} depth {depth}: {v}");
            assert_eq!(v["value_exact"], true, "{p} depth {depth}: {v}");
            let got = v["moves"].as_array().unwrap();
            assert_eq!(got.len(), moves.len(), "{p}: {v}");
            for m in &moves {
                let g = got
                    .iter()
                    .find(|g| g["move"] == m.mv.letter().to_string())
                    .unwrap_or_else(|| panic!("{p}: {} missing: {v}", m.mv));
                assert_eq!(g["score"], so_far + m.value.unwrap(), "{p} {}: {v}", m.mv);
                assert_eq!(g["exact"], true, "{p} {}: {v}", m.mv);
            }
        }
    }
    assert!(
        history_dependent > 0,
        "no position exact only for its own history"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// In a match the values are match values (docs/engine.md, "Matches"), not the round's margin:
/// the header says so, and the JSON names its mode, the scale, the depth and the position's value.
#[test]
fn match_values_are_named_as_such_and_the_json_says_its_mode() {
    let pos = "0,0,0,0,0,1,2/1,0,0,0,0,0,0 30 36 S 1 pasu-pondi";
    let args = |m: bool, json: bool| {
        let mut a = vec![
            "analyze",
            "--game",
            "pasu-pondi",
            "--position",
            pos,
            "--depth",
            "8",
        ];
        if m {
            a.push("--match");
        }
        if json {
            a.push("--json");
        }
        a
    };
    let o = pussa(&args(true, false));
    assert!(o.status.success());
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains("values: match values for South"), "{text}");
    assert!(!text.contains("the round's final seed margin"), "{text}");
    // The round is seen to its end, but the match goes on: the value counts on the engine's
    // estimate of the next round, so it is not exact (QA), and the header says why.
    assert!(text.contains("position value -8 (not proven)"), "{text}");
    assert!(
        text.contains("only a match won or lost can be exact"),
        "{text}"
    );
    let o = pussa(&args(false, false));
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        text.contains("values: the round's final seed margin for South"),
        "{text}"
    );

    let m = ok_json(&args(true, true));
    assert_eq!(m["mode"], "match");
    assert_eq!(m["values"], "match_value");
    assert_eq!(m["over"], false);
    assert_eq!(m["value"], m["moves"][0]["score"]);
    assert_eq!(m["value_exact"], false);
    assert!(m["depth"].as_u64().unwrap() >= 1);
    assert!(m["nodes"].as_u64().unwrap() >= 1);
    let s = ok_json(&args(false, true));
    assert_eq!(s["mode"], "single");
    assert_eq!(s["values"], "round_margin");
    // The same position: the single game's values are the round's margins (G a: stores 34-36).
    assert_eq!(s["value"], -2);
    assert_ne!(s["value"], m["value"]);
    // Exactly the documented fields.
    let keys: Vec<&str> = m.as_object().unwrap().keys().map(String::as_str).collect();
    let mut keys = keys;
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "analysed",
            "depth",
            "game",
            "mode",
            "moves",
            "nodes",
            "over",
            "position",
            "round_end",
            "state",
            "unresolved",
            "value",
            "value_exact",
            "values"
        ]
    );
}

/// A finished game: with --json an answer that says so (exit 0), without it an error.
#[test]
fn a_finished_game_answers_in_json_that_it_is_over() {
    let pos = "0,0,0,0,0,0,0/0,0,0,0,0,3,0 40 27 S 1 pasu-pondi";
    let v = ok_json(&[
        "analyze",
        "--game",
        "pasu-pondi",
        "--position",
        pos,
        "--json",
    ]);
    assert_eq!(v["over"], true);
    assert_eq!(v["moves"].as_array().unwrap().len(), 0);
    assert_eq!(v["value"], Value::Null);
    assert_eq!(v["state"]["winner"], "S");
    assert_eq!(v["depth"], 0);
}

/// A decided result after `--moves` (a resignation) ends the game, as `replay` and `explain`
/// take it: `--json` answers that it is over, with the result's winner and replay's last state;
/// the text is an error that names the result.
#[test]
fn a_decided_result_after_the_moves_ends_the_game_as_replay_has_it() {
    for (result, winner, words) in [
        ("1-0", "S", "South wins"),
        ("0-1", "N", "North wins"),
        ("1/2-1/2", "draw", "a draw"),
    ] {
        let moves = format!("C e {result}");
        let v = ok_json(&[
            "analyze",
            "--game",
            "walak-pussa",
            "--moves",
            &moves,
            "--depth",
            "4",
            "--json",
        ]);
        assert_eq!(v["over"], true, "{result}");
        assert_eq!(v["value"], Value::Null);
        assert_eq!(v["analysed"], Value::Null);
        assert_eq!(v["moves"].as_array().unwrap().len(), 0);
        assert_eq!(v["depth"], 0);
        assert_eq!(v["state"]["winner"], winner);
        assert_eq!(v["state"]["match_over"], true);
        // The same state as replay's last line.
        let o = pussa(&[
            "replay",
            "--game",
            "walak-pussa",
            "--moves",
            &moves,
            "--json",
        ]);
        assert!(o.status.success());
        let last: Value =
            serde_json::from_str(String::from_utf8(o.stdout).unwrap().lines().last().unwrap())
                .unwrap();
        assert_eq!(v["state"], last, "{result}");
        let err = fails(&["analyze", "--game", "walak-pussa", "--moves", &moves]);
        assert_eq!(
            err,
            format!(
                "error: the game is over ({words}: the result given after the moves, \
                 {result}): there is no move to analyse\n"
            )
        );
    }
    // An unfinished result leaves the game to analyse.
    let v = ok_json(&[
        "analyze",
        "--game",
        "walak-pussa",
        "--moves",
        "C e *",
        "--depth",
        "2",
        "--json",
    ]);
    assert_eq!(v["over"], false);
}

#[test]
fn the_game_comes_from_the_position_when_game_is_absent() {
    let pos = "0,1,0,2,0,0,0/1,0,0,0,1,0,2 63 0 S 1 pasu-pondi";
    let with = ok_json(&[
        "analyze",
        "--game",
        "pasu-pondi",
        "--position",
        pos,
        "--depth",
        "4",
        "--json",
    ]);
    let without = ok_json(&["analyze", "--position", pos, "--depth", "4", "--json"]);
    assert_eq!(with["game"], "pasu-pondi");
    assert_eq!(with["moves"], without["moves"]);
    assert_eq!(with["position"], without["position"]);
    let err = fails(&["analyze", "--depth", "4"]);
    assert!(err.contains("--game"), "{err}");
}

/// A position whose round is already over: in a match the answer says so and why, tells the
/// round's end and the next round's layout and analyses that round; `--json` keeps the position
/// given and names the one analysed. Alone, the error gives the reason, as `explain` does.
#[test]
fn a_position_whose_round_is_over_says_so_before_the_next_round_is_analysed() {
    // South to move with an empty row: round 2 is over, North takes the 6 seeds.
    let pos = "0,0,0,0,0,0,0/x,x,3,1,0,0,2 10+50 4+28 S 2 raja-pasu N";
    let next = "7,7,7,7,7,7,7/x,x,7,7,7,7,7 11 3 N 3 raja-pasu";
    let o = pussa(&["analyze", "--match", "--position", pos, "--depth", "2"]);
    assert!(o.status.success());
    let text = String::from_utf8(o.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[..4],
        [
            "(the round is already over in this position: South has no legal move; round 3 is \
             laid out and analysed)",
            "Round 2 is over: South has no legal move; North takes the 6 seeds left on the board. \
             Taken in the round: South 50, North 34; South wins the round.",
            "Holding: South 60, North 38; North will start round 3.",
            "Round 3:",
        ]
    );
    assert!(text.contains(&format!("position {next}\n")), "{text}");
    let v = ok_json(&[
        "analyze",
        "--match",
        "--position",
        pos,
        "--depth",
        "2",
        "--json",
    ]);
    assert_eq!(v["position"], pos);
    assert_eq!(v["analysed"], next);
    assert_eq!(
        v["round_end"],
        serde_json::json!({"round": 2, "reason": {"kind": "no_legal_move", "stuck": "S"},
            "swept": [0, 6], "taken": [50, 34], "winner": "S"})
    );
    assert_eq!(v["state"]["round"], 3);
    assert_eq!(v["over"], false);
    // A position whose round goes on: the same string twice, no round end.
    let open = "0,1,0,2,0,0,0/1,0,0,0,1,0,2 63 0 S 1 pasu-pondi";
    let v = ok_json(&["analyze", "--position", open, "--depth", "2", "--json"]);
    assert_eq!(v["analysed"], open);
    assert_eq!(v["position"], open);
    assert_eq!(v["round_end"], Value::Null);
    // A single game is over there: the error says why.
    let err = fails(&["analyze", "--position", pos, "--depth", "2"]);
    assert_eq!(
        err.trim(),
        "error: the round is already over in this position: South has no legal move, so the \
         game is over (South wins): there is no move to analyse"
    );
    let v = ok_json(&["analyze", "--position", pos, "--json"]);
    assert_eq!(
        (v["over"].as_bool(), &v["analysed"]),
        (Some(true), &Value::Null)
    );
    assert_eq!(v["position"], pos);
    assert_eq!(v["round_end"]["reason"]["stuck"], "S");
    // After moves that end the game, the same, said of the moves.
    let err = fails(&[
        "analyze",
        "--position",
        "1,0,0,0,3,0,0/0,0,0,0,0,0,0 47 47 S 1 raja-pasu",
        "--moves",
        "A",
    ]);
    assert!(
        err.contains("the moves given end the round: North has no legal move"),
        "{err}"
    );
}

/// A move that ends the match is worth the final holdings margin ±200 (docs/engine.md,
/// "Matches"), and the header says so; a match won with every seed left is proven (exact), for
/// the move and for the position, as the search, the protocol and the hints say. Raja Pasu,
/// round 3: South's `A` takes all 63 seeds of the round and wins the match 94 to 4: 90 + 200 =
/// +290.
#[test]
fn a_match_ending_value_is_the_final_holdings_margin_and_a_match_won_outright_is_exact() {
    let pos = "7,7,7,7,7,7,7/x,x,x,x,x,7,7 31 4 S 3 raja-pasu";
    let args = ["analyze", "--match", "--position", pos, "--depth", "8"];
    let o = pussa(&args);
    assert!(o.status.success());
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        text.contains(
            "or, where the round ends the match, the final holdings margin ±200 (+200 for a \
             match won, -200 for one lost)"
        ),
        "{text}"
    );
    assert!(!text.contains("not the round's margin"), "{text}");
    assert!(text.contains("position value +290 exact"), "{text}");
    let mut json = args.to_vec();
    json.push("--json");
    let m = ok_json(&json);
    assert_eq!(m["value"], 290);
    assert_eq!(m["value_exact"], true);
    assert_eq!(m["moves"][0]["move"], "A");
    assert_eq!(m["moves"][0]["exact"], true);
    // The engine protocol gives the same verdict.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_pussa"))
        .arg("engine")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let text = {
        use std::io::{BufRead, Write};
        let mut stdin = child.stdin.take().unwrap();
        writeln!(
            stdin,
            "newgame raja-pasu match\nposition fen {pos}\ngo depth 6"
        )
        .unwrap();
        stdin.flush().unwrap();
        // `quit` only once the search has answered (a `quit` read first stops it).
        let mut text = String::new();
        let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        while out.read_line(&mut line).unwrap() > 0 {
            let done = line.starts_with("bestmove");
            text.push_str(&line);
            line.clear();
            if done {
                break;
            }
        }
        writeln!(stdin, "quit").unwrap();
        text
    };
    assert!(child.wait().unwrap().success());
    let last_info = text
        .lines()
        .rfind(|l| l.starts_with("info depth"))
        .unwrap_or_default();
    assert!(
        last_info.contains("score seeds 290 exact yes") && last_info.ends_with("pv A"),
        "{text}"
    );
    assert!(text.contains("bestmove A"), "{text}");
}

/// The Raja Pasu match moves whose last `B` ends round 1 by repetition (North starts round 2).
const REPEATS: &str = "G a D g D e G f C g D a A b B c C d D e E f F g G a A b B";

/// After `--moves` whose last move ends a round, that move has laid out the next round (as
/// `replay` and the web have it): `position` is the next round's start, with no round over in
/// it, and read back it gives the same answer. It was the swept position, which read back as
/// another round end (no repetition, no seeds swept) with the other player starting round 2.
#[test]
fn the_position_after_moves_that_end_a_round_reads_back_as_the_same_answer() {
    let from_moves = |moves: &str, extra: &[&str]| {
        let mut a = vec![
            "analyze", "--match", "--moves", moves, "--depth", "1", "--json",
        ];
        a.extend_from_slice(extra);
        ok_json(&a)
    };
    // The answer for the `position` an answer wrote.
    let read_back = |v: &Value| {
        let pos = v["position"].as_str().unwrap();
        ok_json(&[
            "analyze",
            "--match",
            "--position",
            pos,
            "--depth",
            "1",
            "--json",
        ])
    };
    let v = from_moves(REPEATS, &["--game", "raja-pasu"]);
    assert_eq!(
        v["position"],
        "x,7,7,7,7,7,7/7,7,7,7,7,7,7 6 1 N 2 raja-pasu"
    );
    assert_eq!(v["analysed"], v["position"]);
    assert_eq!(v["round_end"], Value::Null);
    assert_eq!(read_back(&v), v);
    // The text tells the round the moves ended as `replay` does, without "already over".
    let o = pussa(&[
        "analyze",
        "--game",
        "raja-pasu",
        "--match",
        "--moves",
        REPEATS,
        "--depth",
        "1",
    ]);
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        text.starts_with(
            "Round 1 is over: the position repeated; each player takes their own row (South 1, \
             North 1). Taken in the round: South 48, North 50; North wins the round.\n\
             Holding: South 48, North 50; North will start round 2.\nRound 2:\n"
        ),
        "{text}"
    );
    assert!(!text.contains("already over"), "{text}");
    // Moves that end the match: the final position, and the round end the moves played (South
    // takes the 62 seeds left, as `replay` and the web state's `rounds` say; QA pass 15). Read
    // back, the final position has nothing left to sweep: only `round_end.swept` differs.
    let r13 = "7,7,7,7,7,7,7/x,x,x,x,x,7,7 34 1 S 13 raja-pasu";
    let v = from_moves("A", &["--position", r13]);
    assert_eq!(v["over"], true);
    assert_eq!(
        v["round_end"],
        serde_json::json!({"round": 13, "reason": {"kind": "no_legal_move", "stuck": "N"},
            "swept": [62, 0], "taken": [63, 0], "winner": "S"}),
        "{v}"
    );
    let mut back = read_back(&v);
    assert_eq!(
        back["round_end"]["swept"],
        serde_json::json!([0, 0]),
        "{back}"
    );
    back["round_end"]["swept"] = v["round_end"]["swept"].clone();
    assert_eq!(back, v);
}

/// A match that ends because a player cannot fill a hole: analyze gives the reason in
/// explain's words (it said only "South wins", South being the player who could not move), and
/// both in `replay`'s.
#[test]
fn analyze_says_why_a_match_ends_in_explains_words() {
    let pos = "0,0,0,0,0,0,0/x,x,x,x,x,1,1 93 3 S 3 raja-pasu";
    let why = "the round is already over in this position: South has no legal move, so the match \
               is over (South wins: North holds 5, too few to fill a hole of 7 seeds)";
    let err = fails(&["analyze", "--match", "--position", pos]);
    assert_eq!(
        err.trim(),
        format!("error: {why}: there is no move to analyse")
    );
    let err = fails(&["explain", "--match", "--position", pos, "--move", "f"]);
    assert_eq!(err.trim(), format!("error: move f: {why}"));
    // The same reason in the same words as `replay`'s last line (QA pass 15: two wordings).
    let o = pussa(&["replay", "--match", "--position", pos]);
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        text.trim_end().ends_with(
            "North holds 5, too few to fill a hole of 7 seeds, so the match is over: South \
             wins, 93 to 5."
        ),
        "{text}"
    );
}

/// A drawn round's winner is `"draw"` in `round_end`, as in the web state's `rounds` (it was null).
#[test]
fn a_drawn_round_end_is_written_draw_as_the_web_state_writes_it() {
    let v = ok_json(&[
        "analyze",
        "--match",
        "--position",
        "0,0,0,0,0,0,0/1,1,0,0,0,0,0 0+35 0+33 S 2 pasu-pondi",
        "--depth",
        "1",
        "--json",
    ]);
    assert_eq!(
        v["round_end"],
        serde_json::json!({"round": 2, "reason": {"kind": "one_row"}, "swept": [0, 2],
            "taken": [35, 35], "winner": "draw"})
    );
}

/// A match value is in holdings (QA pass 15, review-rules2 #1): the same situation (board,
/// round, South holding 31 and North 4) written with its stores split differently into seeds
/// kept at the last refill and seeds taken this round (`C+T`, docs/notation.md) has the same
/// values, for the move that ends the match (`A`, +290) and for those that count on the next
/// round, in the table, the JSON and the engine protocol.
#[test]
fn match_values_are_the_same_however_the_stores_are_split() {
    let mut seen: Vec<(String, serde_json::Value, String)> = Vec::new();
    for stores in ["31 4", "21+10 4", "0+31 0+4", "27+4 0+4"] {
        let pos = format!("7,7,7,7,7,7,7/x,x,x,x,x,7,7 {stores} S 3 raja-pasu");
        let args = ["analyze", "--match", "--position", &pos, "--depth", "6"];
        let m = ok_json(&[&args[..], &["--json"]].concat());
        let o = pussa(&args);
        assert!(o.status.success());
        let text = String::from_utf8(o.stdout).unwrap();
        let table: String = text
            .lines()
            .skip_while(|l| !l.starts_with("position value"))
            .collect::<Vec<_>>()
            .join("\n");
        seen.push((stores.to_string(), m["moves"].clone(), table));
    }
    let (_, moves, table) = &seen[0];
    assert_eq!(moves[0]["move"], "A");
    assert_eq!(moves[0]["score"], 290);
    let b = moves
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["move"] == "B")
        .unwrap();
    assert!(b["score"].as_i64().unwrap().abs() < 100, "{b}");
    for (stores, m, t) in &seen[1..] {
        assert_eq!(m, moves, "stores {stores}");
        assert_eq!(t, table, "stores {stores}");
    }
}

/// `--json` honours `--movetime` where a move takes long to prove endless (QA pass 15,
/// review-rules2 #3): North's `b` here needs about a second to prove; the JSON lists what the
/// search knew within its time: `state.legal` the moves proven legal, `unresolved` the move
/// neither proven legal nor endless, not valued, and the text names it too. Without a time
/// limit `b` is proven endless: nothing is unresolved.
#[test]
fn json_honours_movetime_and_names_a_move_left_unresolved() {
    let pos = "1,2,6,2,4,3,5/4,2,6,3,4,7,6 1 0 N 1 walak-pussa";
    let t = std::time::Instant::now();
    let full = ok_json(&["analyze", "--position", pos, "--depth", "1", "--json"]);
    let slow = t.elapsed();
    assert_eq!(full["unresolved"], serde_json::json!([]));
    assert_eq!(
        full["state"]["legal"],
        serde_json::json!(["a", "c", "d", "e", "f", "g"])
    );
    let t = std::time::Instant::now();
    let m = ok_json(&["analyze", "--position", pos, "--movetime", "50", "--json"]);
    let took = t.elapsed();
    // The proof cut short is seen in `unresolved` below; the time is the movetime honoured,
    // with room for a loaded machine: half the whole proof (about 10 times the movetime), where
    // an unheard movetime takes the whole proof.
    assert!(
        took < slow / 2,
        "--movetime 50 took {took:?}, the proof {slow:?}"
    );
    assert_eq!(m["unresolved"], serde_json::json!(["b"]));
    assert_eq!(
        m["state"]["legal"],
        serde_json::json!(["a", "c", "d", "e", "f", "g"])
    );
    assert_eq!(m["moves"].as_array().unwrap().len(), 6);
    assert_eq!(m["value_exact"], false);
    let o = pussa(&["analyze", "--position", pos, "--movetime", "50"]);
    assert!(o.status.success());
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        text.contains("unresolved: b (its sowing was neither seen to end nor proven endless"),
        "{text}"
    );
}
