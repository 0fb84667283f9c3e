//! `pussa replay --json` lines carry the position string of the state they show (`position`)
//! and the seeds taken in the round (`taken`), so that each line goes to `analyze --position`,
//! the engine's `position fen` or the web API as it is (QA pass 21, interop #2).

use std::process::{Command, Output};

use pussa_rules::{Game, GameState, Mode, Rng, Setup, Side};
use serde_json::Value;

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

/// A round ended by repetition keeps its marker; a position whose round is over as given is
/// shown as given (its takings before the sweep), then swept; a decided result keeps the
/// board the moves left.
#[test]
fn repetition_a_round_over_as_given_and_a_decided_result_keep_their_positions() {
    let p = "0,0,0,0,0,0,0/0,0,0,0,0,0,0 65 33 N 1 raja-pasu S repetition";
    let lines = json_lines(&["replay", "--match", "--position", p, "--json"]);
    // As given, then its end (nothing left to sweep), then round 2.
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert_eq!(lines[0]["position"], p, "{lines:?}");
    assert_eq!(lines[1]["position"], p, "{lines:?}");
    // Raja Pasu: the round ended by repetition, so North, who did not start it, starts round 2.
    assert_eq!(lines[2]["round"], 2);
    assert_eq!(lines[2]["to_move"], "N");

    let p = "0,0,0,0,0,0,0/0,0,0,0,0,3,0 10+30 0+27 S 2 pasu-pondi";
    let lines = json_lines(&["replay", "--match", "--position", p, "--json"]);
    assert_eq!(lines[0]["position"], p);
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
