//! `pussa replay --json` lines carry the position string of the state they show (`position`)
//! and the seeds taken in the round (`taken`), so that each line goes to `analyze --position`,
//! the engine's `position fen` or the web API as it is (QA pass 21, interop #2).

use std::process::{Command, Output};

use pussa_rules::{Game, GameState, Mode, Rng, Setup, Side};
use serde_json::Value;

mod common;
use common::Scratch;

fn pussa(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pussa"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn json_lines(args: &[&str]) -> Vec<Value> {
    let o = pussa(args);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object a line"))
        .collect()
}

fn side(s: Side) -> &'static str {
    match s {
        Side::South => "S",
        Side::North => "N",
    }
}

/// A state as `replay --json` shows it, without `position` (docs/notation.md, "JSON states").
fn shown(g: &GameState) -> Value {
    let pos = g.position();
    let closed: Vec<usize> = (0..14)
        .filter(|i| pos.closed_mask() & (1 << i) != 0)
        .collect();
    serde_json::json!({
        "round": g.round(),
        "board": pos.board(),
        "closed": closed,
        "stores": pos.stores(),
        "taken": g.taken_this_round(),
        "to_move": g.to_move().map(side),
        "legal": g.legal_moves().map(|h| h.letter().to_string()).collect::<Vec<_>>(),
        "round_over": g.is_round_over(),
        "match_over": g.is_over(),
        "winner": g.winner().map(|w| w.map_or("draw", side)),
    })
}

/// `line` without its `position`.
fn without_position(line: &Value) -> Value {
    let mut v = line.clone();
    v.as_object_mut().unwrap().remove("position");
    v
}

/// The moves of a random game (a match stopped once round `max_rounds` is over), as letters.
fn random_moves(game: Game, mode: Mode, first: Side, seed: u64, max_rounds: u32) -> Vec<String> {
    let mut rng = Rng::new(seed);
    let mut g = GameState::new(game, mode, first);
    let mut moves = Vec::new();
    while !g.is_over() {
        if g.is_round_over() {
            if g.round() >= max_rounds {
                break;
            }
            g.next_round();
            continue;
        }
        let legal = g.legal_moves();
        let mv = legal
            .nth(rng.below(legal.len() as u32) as usize)
            .expect("a move is expected");
        g.play(mv).unwrap();
        moves.push(mv.letter().to_string());
    }
    moves
}

/// Every line's `position` reads back (`Setup` parse) as the state the line shows, its `taken`
/// is the round's takings, and `analyze --position` takes it: the same position, and for a
/// round over in a match, the next line's round as the one it analyses.
#[test]
fn every_replay_line_reads_back_as_the_state_it_shows() {
    let mut analysed = 0;
    for game in Game::ALL {
        for (mode, flag) in [(Mode::Single, None), (Mode::Match, Some("--match"))] {
            for seed in 0..4u64 {
                let (first, letter) = if seed % 2 == 0 {
                    (Side::South, "S")
                } else {
                    (Side::North, "N")
                };
                let moves = random_moves(game, mode, first, seed * 7 + 1, 4).join(" ");
                let mut args = vec![
                    "replay",
                    "--game",
                    game.name(),
                    "--first",
                    letter,
                    "--moves",
                    &moves,
                    "--json",
                ];
                args.extend(flag);
                let lines = json_lines(&args);
                for (i, line) in lines.iter().enumerate() {
                    let text = line["position"].as_str().expect("a position string");
                    let setup: Setup = text
                        .parse()
                        .unwrap_or_else(|e| panic!("{text}: {e} ({line})"));
                    assert_eq!(setup.to_string(), text, "written as it reads");
                    let state = setup.game_state(mode).unwrap();
                    assert_eq!(shown(&state), without_position(line), "{text}");
                    assert_eq!(line["taken"], serde_json::json!(setup.taken), "{text}");
                    // analyze takes every line that is not over, and a round over in a match
                    // (then the next line, the next round's start, is what it analyses).
                    let sample = i % 17 == 3 || (line["round_over"] == true && i + 1 < lines.len());
                    if line["match_over"] == true || !sample {
                        continue;
                    }
                    let mut a = vec!["analyze", "--position", text, "--depth", "1", "--json"];
                    a.extend(flag);
                    let v = &json_lines(&a)[0];
                    analysed += 1;
                    assert_eq!(v["position"], line["position"], "{text}");
                    let want = if line["round_over"] == true {
                        &lines[i + 1]
                    } else {
                        line
                    };
                    assert_eq!(v["analysed"], want["position"], "{text}");
                    assert_eq!(v["state"]["board"], want["board"], "{text}");
                    assert_eq!(v["state"]["taken"], want["taken"], "{text}");
                }
            }
        }
    }
    assert!(analysed > 40, "{analysed}");
}

/// The three positions of the QA report that `replay --json` showed alike: the takings and the
/// round's starter now tell them apart.
#[test]
fn the_takings_and_the_starter_tell_alike_boards_apart() {
    let mut seen = Vec::new();
    for p in [
        "0,2,16,1,1,1,1/x,x,x,16,3,0,0 16+25 5+11 S 2 raja-pasu",
        "0,2,16,1,1,1,1/x,x,x,16,3,0,0 41 16 S 2 raja-pasu",
        "0,2,16,1,1,1,1/x,x,x,16,3,0,0 16+25 5+11 S 2 raja-pasu N",
    ] {
        let lines = json_lines(&["replay", "--match", "--position", p, "--json"]);
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0]["position"], p);
        seen.push(lines[0].clone());
    }
    assert_eq!(seen[0]["taken"], serde_json::json!([25, 11]));
    assert_eq!(seen[1]["taken"], serde_json::json!([0, 0]));
    assert_ne!(seen[0], seen[2]);
}

/// A round ended by repetition keeps its marker (its board swept, it is one state, the round's
/// end); a position whose round is over as given with seeds on its board is shown as given (its
/// player to move, its takings before the sweep), then swept; a decided result keeps the board
/// the moves left.
#[test]
fn repetition_a_round_over_as_given_and_a_decided_result_keep_their_positions() {
    let p = "0,0,0,0,0,0,0/0,0,0,0,0,0,0 65 33 N 1 raja-pasu S repetition";
    let lines = json_lines(&["replay", "--match", "--position", p, "--json"]);
    // Its end (the board is swept: nothing to show as given first), then round 2.
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[0]["position"], p, "{lines:?}");
    assert_eq!(lines[0]["to_move"], Value::Null, "{lines:?}");
    // Raja Pasu: the round ended by repetition, so North, who did not start it, starts round 2.
    assert_eq!(lines[1]["round"], 2);
    assert_eq!(lines[1]["to_move"], "N");

    // A board that still has to be swept: shown as given first (its player to move), then swept.
    let p = "0,0,0,0,0,0,0/0,0,0,0,0,3,0 10+30 0+27 S 2 pasu-pondi";
    let lines = json_lines(&["replay", "--match", "--position", p, "--json"]);
    assert_eq!(lines[0]["position"], p);
    assert_eq!(lines[0]["to_move"], "S");
    assert_eq!(lines[0]["round_over"], true);
    assert_eq!(lines[0]["taken"], serde_json::json!([30, 27]));
    assert_eq!(
        lines[1]["position"],
        "0,0,0,0,0,0,0/0,0,0,0,0,0,0 10+30 0+30 S 2 pasu-pondi"
    );
    assert_eq!(lines[1]["taken"], serde_json::json!([30, 30]));

    let lines = json_lines(&[
        "replay",
        "--game",
        "walak-pussa",
        "--moves",
        "A d 1-0",
        "--json",
    ]);
    let last = lines.last().unwrap();
    assert_eq!(last["winner"], "S");
    let mut g = GameState::new(Game::WalakPussa, Mode::Single, Side::South);
    g.play("A".parse().unwrap()).unwrap();
    g.play("d".parse().unwrap()).unwrap();
    assert_eq!(last["position"], Setup::from_state(&g).to_string());
}

/// Every `replay --json` line of `pussa tournament`'s records, in both modes, read back by
/// `replay --position P --json` (`--match` for a match) is that state: its first line is the
/// line itself, also at a round's end and at the match's end, where the board is already swept
/// (docs/notation.md, "JSON states": "read back, it is that state"). It used to print the swept
/// board twice, first with a player to move and, at the match's end, `match_over` false (QA
/// pass 21, interop2 #3). A record's last line decided without the moves finishing (the round
/// limit) keeps its board, takings and position; its result is not in a position string.
#[test]
fn tournament_lines_read_back_by_replay_position_as_the_same_state() {
    let dir = Scratch::new("replay-readback");
    let (mut round_ends, mut match_ends, mut lines_read) = (0, 0, 0);
    for game in Game::ALL {
        for (mode, flag) in [(Mode::Single, None), (Mode::Match, Some("--match"))] {
            let pgn = dir.join(format!("{}-{}.pgn", game.name(), mode == Mode::Match));
            let pgn = pgn.to_str().unwrap();
            let mut args = vec![
                "tournament",
                "random",
                "greedy",
                "--game",
                game.name(),
                "-n",
                "2",
                "--max-rounds",
                "8",
                "--concurrency",
                "1",
                "-q",
                "--pgn",
                pgn,
            ];
            args.extend(flag);
            let o = pussa(&args);
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            let records = std::fs::read_to_string(pgn).unwrap();
            for number in ["1", "2"] {
                let lines =
                    json_lines(&["replay", "--record", pgn, "--game-number", number, "--json"]);
                let record = records
                    .split("[Number ")
                    .find(|r| r.starts_with(&format!("\"{number}\"]")))
                    .unwrap();
                let decided = record.contains("[Termination ");
                for (i, line) in lines.iter().enumerate() {
                    let last = i + 1 == lines.len();
                    let is_round_end = line["round_over"] == true;
                    // Every round's end and match's end, and a sample of the other lines.
                    if !is_round_end && !last && i % 11 != 0 {
                        continue;
                    }
                    let text = line["position"].as_str().unwrap();
                    let mut a = vec!["replay", "--position", text, "--json"];
                    a.extend(flag);
                    let back = json_lines(&a);
                    lines_read += 1;
                    if last && decided {
                        for key in ["round", "board", "closed", "stores", "taken", "position"] {
                            assert_eq!(back[0][key], line[key], "{key}: {text}: {line}");
                        }
                        continue;
                    }
                    assert_eq!(&back[0], line, "{text}: read back first {back:?}");
                    if is_round_end {
                        round_ends += 1;
                        // A round's end in a match: the next round follows, as in the game.
                        if let Some(next) = lines.get(i + 1) {
                            assert_eq!(back.get(1), Some(next), "{text}");
                        }
                    }
                    if line["match_over"] == true {
                        match_ends += 1;
                        assert_eq!(back.len(), 1, "{text}: {back:?}");
                    }
                }
            }
        }
    }
    assert!(
        round_ends > 20 && match_ends > 4,
        "{lines_read} lines read back: {round_ends} round ends, {match_ends} ends of a game or match"
    );
}
