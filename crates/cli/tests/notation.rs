//! How the `pussa` binary reads and tells positions, moves and records (the notation): record
//! files, move lists, numbering, the words of `explain`, number messages.

use serde_json::Value;

mod run;
use run::{fails, json_lines, ok, pussa, stderr};

fn scratch(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli-notation-words");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn a_record_file_that_is_not_a_small_regular_file_is_refused_at_once() {
    let err = fails(&["replay", "--record", "/dev/zero"]);
    assert_eq!(
        err.trim(),
        "error: the record /dev/zero is not a regular file (a record is read from a text file)"
    );
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli-notation-words");
    std::fs::create_dir_all(&dir).unwrap();
    let big = dir.join("big.txt");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(16 * 1024 * 1024 + 1).unwrap();
    let err = fails(&["replay", "--record", big.to_str().unwrap()]);
    assert!(
        err.ends_with("is larger than 16 MiB, the most a record file may hold\n"),
        "{err}"
    );
    std::fs::remove_file(&big).unwrap();
    // Text that cannot start a record stops the reading at once.
    let junk = dir.join("junk.txt");
    std::fs::write(&junk, "\n  ".to_string() + &"A".repeat(8 << 20)).unwrap();
    let err = fails(&["replay", "--record", junk.to_str().unwrap()]);
    assert!(
        err.contains("junk.txt: line 1, column 1: missing [Game \"...\"] tag"),
        "{err}"
    );
    std::fs::remove_file(&junk).unwrap();
}

#[test]
fn errors_in_a_chosen_record_give_the_line_in_the_file() {
    let p = scratch(
        "multi.txt",
        "[Game \"walak-pussa\"]\n\n1. A *\n\n[Game \"walak-pussa\"]\n\n1. B *\n\n\
         [Game \"walak-pussa\"]\n[Result \"*\"]\n\n1. A d 2. Z *\n",
    );
    let path = p.to_str().unwrap();
    let err = fails(&["replay", "--record", path, "--game-number", "3"]);
    assert!(
        err.contains(": line 12, column 11: 'Z' is not a move"),
        "{err}"
    );
    let p = scratch(
        "multi-move.txt",
        "[Game \"walak-pussa\"]\n\n1. A *\n\n[Game \"raja-pasu\"]\n\n1. G A *\n",
    );
    let err = fails(&[
        "replay",
        "--record",
        p.to_str().unwrap(),
        "--game-number",
        "2",
    ]);
    assert!(
        err.contains(": line 7, column 6: move 1... A: not your hole"),
        "{err}"
    );
}

#[test]
fn a_lap_round_the_ring_says_so_and_names_the_emptied_hole() {
    let out = ok(&[
        "explain",
        "--position",
        "15,0,0,0,0,0,0/0,0,0,0,0,0,0 83 0 S 1 raja-pasu",
        "--move",
        "A",
    ]);
    assert!(
        out.contains("lift A (15) → B … B (once round the ring: the emptied A gets a seed)\n"),
        "{out}"
    );
    // Round 2 of a match with a b c closed: 16 seeds over 11 open holes.
    let out = ok(&[
        "explain",
        "--position",
        "0,2,16,1,1,1,1/x,x,x,16,3,0,0 16+25 5+11 S 2 raja-pasu",
        "--move",
        "C",
    ]);
    assert!(
        out.contains("lift C (16) → D … d (once round the ring: the emptied C gets a seed)"),
        "{out}"
    );
    // A short lap says nothing of the kind.
    let out = ok(&["explain", "--game", "walak-pussa", "--move", "A"]);
    assert!(!out.contains("round the ring"), "{out}");
}

#[test]
fn one_seed_and_one_hole_are_told_in_the_singular() {
    let out = ok(&[
        "explain",
        "--position",
        "1,0,0,1,0,1,0/1,0,1,0,1,0,1 49 0 S 1 walak-pussa",
        "--move",
        "A",
    ]);
    assert!(
        out.contains("the hole after it, D, holds 1: South takes it\n"),
        "{out}"
    );
    assert!(
        out.contains(
            "the hole after D (E) is empty and the one after it, F, holds 1: South takes it too\n"
        ),
        "{out}"
    );
    assert!(!out.contains("holds 1: South takes them"), "{out}");
    let out = ok(&[
        "replay",
        "--match",
        "--position",
        "0,0,0,0,0,1,0/0,0,0,0,0,0,0 60 9 S 1 pasu-pondi",
    ]);
    assert!(
        out.contains("North fills 1 hole with 5 seeds, b c d e f g closed; 4 stay in the store."),
        "{out}"
    );
}

#[test]
fn explain_json_writes_closed_holes_as_replay_json_does() {
    let pos = "3,0,1,0,1,2,0/0,0,0,0,0,0,0 58 33 S 1 raja-pasu";
    let events: Value = serde_json::from_str(&ok(&[
        "explain",
        "--position",
        pos,
        "--move",
        "C",
        "--match",
        "--json",
    ]))
    .unwrap();
    let refill = events
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == "refill")
        .expect("a refill event");
    let states = json_lines(&ok(&[
        "replay",
        "--position",
        pos,
        "--moves",
        "C",
        "--match",
        "--json",
    ]));
    let last = states.last().unwrap();
    assert_eq!(last["round"], 2);
    assert_eq!(refill["closed"], serde_json::json!([7, 8, 9]));
    assert_eq!(refill["closed"], last["closed"]);
}

/// The movetext of docs/notation.md's match record.
const MATCH_MOVETEXT: &str = "1. G e 2. D c 3. B g 4. E f 5. E g 6. C R2 1. D f";

#[test]
fn moves_take_a_records_movetext_with_its_round_markers_checked() {
    let pasted = ok(&[
        "replay",
        "--game",
        "raja-pasu",
        "--match",
        "--moves",
        MATCH_MOVETEXT,
        "--json",
    ]);
    let plain = ok(&[
        "replay",
        "--game",
        "raja-pasu",
        "--match",
        "--moves",
        "G e D c B g E f E g C D f",
        "--json",
    ]);
    assert_eq!(pasted, plain);
    assert_eq!(json_lines(&pasted).last().unwrap()["round"], 2);
    for (moves, want) in [
        (
            "1. G e R2 D",
            "error: round marker R2, but this move is in round 1 (move 2. D)\n",
        ),
        (
            "G e D c B g E f E g C R3 D",
            "error: round marker R3, but this move is in round 2 (move R2 1. D)\n",
        ),
        (
            "G e D c B g E f E g C D R2 f",
            "error: round marker R2, but round 2 is already being played (move R2 1... f)\n",
        ),
        (
            "G e R2",
            "error: round marker R2, but this move is in round 1 (at the end of the moves)\n",
        ),
    ] {
        let err = fails(&["replay", "--game", "raja-pasu", "--match", "--moves", moves]);
        assert_eq!(err, want, "{moves}");
    }
    // In a single game the round's end is the game's.
    let err = fails(&["replay", "--game", "raja-pasu", "--moves", MATCH_MOVETEXT]);
    assert!(
        err.starts_with(
            "error: round marker R2, but the game is over (a single game has one round)"
        ),
        "{err}"
    );
}

#[test]
fn replay_numbers_moves_as_records_do() {
    let rec = scratch(
        "match.txt",
        "[Game \"raja-pasu\"]\n[Mode \"match\"]\n[First \"S\"]\n[Result \"*\"]\n\n\
         1. G e 2. D c 3. B {a comment} 3... g 4. E f 5. E g 6. C\nR2 1. D f *\n",
    );
    let out = ok(&["replay", "--record", rec.to_str().unwrap()]);
    for line in [
        "\n3. South plays B: 6 laps, South takes 21, North takes 8.\n{a comment}\n",
        "\n3... North plays g: 2 laps, nothing taken.\n",
        "\nR2 1. South plays D: 5 laps, South takes 5.\n",
        "\nR2 1... North plays f: 4 laps, South takes 20, North takes 11.\n",
    ] {
        assert!(out.contains(line), "{line:?} in {out}");
    }
    assert!(!out.contains("\n13. "), "{out}");
    // Errors in a move list name the move the same way, by the turn it stands in.
    let err = fails(&[
        "replay",
        "--game",
        "raja-pasu",
        "--moves",
        "1. G e 2. D c 3. B g 4. A A",
    ]);
    assert_eq!(
        err,
        "error: move 4... A: not your hole: North is to move and owns a-g\n"
    );
    let err = fails(&[
        "replay",
        "--game",
        "raja-pasu",
        "--match",
        "--moves",
        "G e D c B g E f E g C D f a",
    ]);
    assert!(
        err.starts_with("error: move R2 2. a: not your hole"),
        "{err}"
    );
    let err = fails(&["replay", "--game", "raja-pasu", "--moves", "G e Q"]);
    assert!(err.starts_with("error: move 2. Q: not a move"), "{err}");
}

/// Pasu Pondi with every seed in South's row, South to move: the round is over at once.
const OVER_AT_ONCE: &str = "0,0,0,0,0,1,0/0,0,0,0,0,0,0 60 9 S 1 pasu-pondi";

#[test]
fn a_position_that_ends_its_round_is_shown_as_given_then_ended() {
    let lines = json_lines(&ok(&["replay", "--position", OVER_AT_ONCE, "--json"]));
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(
        lines[0],
        serde_json::json!({"round":1,"board":[0,0,0,0,0,1,0,0,0,0,0,0,0,0],"closed":[],
            "stores":[60,9],"to_move":"S","legal":[],"round_over":true,"match_over":false,
            "winner":null,"position":OVER_AT_ONCE,"taken":[60,9]})
    );
    assert_eq!(lines[1]["board"], serde_json::json!([0u8; 14].to_vec()));
    assert_eq!(lines[1]["stores"], serde_json::json!([61, 9]));
    assert_eq!(lines[1]["winner"], "S");
    let text = ok(&["replay", "--position", OVER_AT_ONCE]);
    assert!(
        text.contains(
            "South   0  0  0  0  0  1  0   store 60\n        A  B  C  D  E  F  G\n\
             South to move, but the round is already over in this position: every seed lies \
             in South's row.\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("Round 1 is over: every seed left lies in one row"),
        "{text}"
    );
    // A record starting there shows the same.
    let rec = scratch(
        "over.txt",
        &format!("[Game \"pasu-pondi\"]\n[Position \"{OVER_AT_ONCE}\"]\n\n1-0\n"),
    );
    let from_record = ok(&["replay", "--record", rec.to_str().unwrap(), "--json"]);
    assert_eq!(json_lines(&from_record), lines);
    // A position being played starts with one line, as before.
    let start = json_lines(&ok(&["replay", "--game", "pasu-pondi", "--json"]));
    assert_eq!(start.len(), 1);
}

#[test]
fn explain_says_the_round_is_already_over_in_the_position_and_why() {
    let err = fails(&["explain", "--position", OVER_AT_ONCE, "--move", "F"]);
    assert_eq!(
        err,
        "error: move F: the round is already over in this position: every seed lies in \
         South's row, so the game is over (South wins)\n"
    );
    let err = fails(&[
        "explain",
        "--position",
        OVER_AT_ONCE,
        "--match",
        "--move",
        "F",
    ]);
    assert!(
        err.starts_with(
            "error: move F: the round is already over in this position: every seed lies in \
             South's row; round 2, laid out next, cannot start with it: not your hole"
        ),
        "{err}"
    );
    let out = ok(&[
        "explain",
        "--position",
        OVER_AT_ONCE,
        "--match",
        "--move",
        "a",
    ]);
    assert!(
        out.starts_with(
            "(the round is already over in this position: every seed lies in South's row; \
             round 2 is laid out first)\nRound 1 is over: every seed left lies in one row; \
             each player takes their own row (South 1, North 0)."
        ),
        "{out}"
    );
    // The refill is told as for a move that ends a round, then the move.
    assert!(
        out.contains(
            "\nRound 2:\n  South fills 7 holes with 5 each; 26 stay in the store.\n  \
             North fills 1 hole with 5 seeds, b c d e f g closed; 4 stay in the store.\n  \
             North starts.\nPasu Pondi, North plays a:\n"
        ),
        "{out}"
    );
    let err = fails(&[
        "explain",
        "--position",
        "0,0,0,1,0,0,0/0,0,0,0,0,0,0 0 97 N 1 raja-pasu",
        "--move",
        "a",
    ]);
    assert!(
        err.contains("the round is already over in this position: North has no legal move"),
        "{err}"
    );
}

/// Runs and expects clap's usage error (exit 2) on one line, never Rust's `ParseIntError` text.
fn usage_error(args: &[&str]) -> String {
    let o = pussa(args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    let first = err.lines().next().unwrap_or_default().to_string();
    for rust in ["target type", "invalid digit", "empty string"] {
        assert!(!err.contains(rust), "{args:?}: {err}");
    }
    first
}

#[test]
fn numbers_too_large_for_an_option_name_the_real_problem() {
    assert_eq!(
        usage_error(&[
            "perft",
            "--game",
            "walak-pussa",
            "--depth",
            "18446744073709551616"
        ]),
        "error: invalid value '18446744073709551616' for '--depth <DEPTH>': \
         18446744073709551616 is not in 0..=64"
    );
    assert_eq!(
        usage_error(&["perft", "--game", "walak-pussa", "--depth", "x"]),
        "error: invalid value 'x' for '--depth <DEPTH>': 'x' is not a whole number"
    );
    let rec = scratch("one.txt", "[Game \"walak-pussa\"]\n\n1. A *\n");
    assert_eq!(
        usage_error(&[
            "replay",
            "--record",
            rec.to_str().unwrap(),
            "--game-number",
            "99999999999999999999",
        ]),
        "error: invalid value '99999999999999999999' for '--game-number <N>': \
         99999999999999999999 is too large (at most 4294967295)"
    );
    assert_eq!(
        usage_error(&["analyze", "--game", "walak-pussa", "--depth", "99999999999"]),
        "error: invalid value '99999999999' for '--depth <DEPTH>': 99999999999 is not in 1..=1000"
    );
    // Tournament and serve options read numbers the same way.
    assert_eq!(
        usage_error(&["tournament", "greedy", "random", "--games", "99999999999"]),
        "error: invalid value '99999999999' for '--games <GAMES>': \
         99999999999 is too large (at most 4294967295)"
    );
    assert_eq!(
        usage_error(&["tournament", "greedy", "random", "--seed", "x"]),
        "error: invalid value 'x' for '--seed <SEED>': 'x' is not a whole number"
    );
    // Tournament options give their real range in one step, whatever the number's length
    // (the type's limit used to come first, then the real one, with another exit code), and
    // an option out of range names only itself.
    for (option, value, range) in [
        ("--movetime", "99999999999999999999999", "1..=86400000"),
        ("--movetime", "18446744073709551615", "1..=86400000"),
        (
            "--engine-timeout",
            "99999999999999999999999",
            "1..=86400000",
        ),
        ("--engine-start-timeout", "86400001", "1..=86400000"),
        ("--depth", "99999999999999999999999", "1..=1000"),
        ("--depth", "4294967295", "1..=1000"),
        ("--depth", "0", "1..=1000"),
        ("--nodes", "0", "1..=18446744073709551615"),
        ("--concurrency", "99999999999999999999999", "1..=256"),
        ("--concurrency", "257", "1..=256"),
    ] {
        let err = usage_error(&["tournament", "search", "random", option, value]);
        assert!(
            err.starts_with(&format!("error: invalid value '{value}' for '{option} "))
                && err.ends_with(&format!(": {value} is not in {range}")),
            "{option} {value}: {err}"
        );
    }
    // bench --seconds quotes the value as typed (it showed the float it became: 1e20, inf,
    // NaN, 0) and never says Rust's "invalid float literal".
    for (value, want) in [
        (
            "99999999999999999999",
            "99999999999999999999 is not more than 0 and at most 3600",
        ),
        ("1e400", "1e400 is not more than 0 and at most 3600"),
        ("1e-400", "1e-400 is not more than 0 and at most 3600"),
        ("0", "0 is not more than 0 and at most 3600"),
        ("nan", "'nan' is not a number of seconds (like 2 or 0.5)"),
        ("0x10", "'0x10' is not a number of seconds (like 2 or 0.5)"),
    ] {
        assert_eq!(
            usage_error(&["bench", "--seconds", value]),
            format!("error: invalid value '{value}' for '--seconds <SECONDS>': {want}")
        );
    }
    assert_eq!(
        usage_error(&["serve", "--new-games-per-minute", "99999999999"]),
        "error: invalid value '99999999999' for '--new-games-per-minute <N>': \
         99999999999 is too large (at most 4294967295)"
    );
    assert_eq!(
        usage_error(&["serve", "--claim-after", "0"]),
        "error: invalid value '0' for '--claim-after <SECONDS>': 0 is not in 1..=86400"
    );
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli-notation-egtb");
    let dir = dir.to_str().unwrap();
    for (closed, want) in [
        (
            "-",
            "error: --closed: `-`: '' is not a number of holes (write a-b: the holes closed, \
             0 to 6, in the mover's row and the opponent's)\n",
        ),
        (
            "a-b",
            "error: --closed: `a-b`: 'a' is not a number of holes (write a-b: the holes closed, \
             0 to 6, in the mover's row and the opponent's)\n",
        ),
        (
            "99999999999-1",
            "error: --closed: `99999999999-1`: 0 to 6 holes a row, not both 0 (the open board \
             is built without --closed)\n",
        ),
    ] {
        let err = fails(&[
            "egtb",
            "build",
            "--game",
            "walak-pussa",
            "--max-seeds",
            "2",
            "--dir",
            dir,
            "--quiet",
            "--closed",
            closed,
        ]);
        assert_eq!(err, want, "{closed}");
    }
}

/// A negative number for a numeric option is named as out of its range, with the option, as
/// `play --seed -1` always was: clap took `-1` for an unknown flag (`unexpected argument '-1'
/// found`), which named neither.
#[test]
fn negative_numbers_name_the_option_and_its_range() {
    let rec = scratch("negative.txt", "[Game \"walak-pussa\"]\n\n1. A *\n");
    let rec = rec.to_str().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (
            &["tournament", "greedy", "random", "--seed", "-1"],
            "'-1' for '--seed <SEED>': -1 is not in 0..=18446744073709551615",
        ),
        (
            &["tournament", "greedy", "random", "--games", "-5"],
            "'-5' for '--games <GAMES>': -5 is not in 1..=4294967295",
        ),
        (
            &["tournament", "greedy", "random", "--movetime", "-20"],
            "'-20' for '--movetime <MOVETIME>': -20 is not in 1..=86400000",
        ),
        (
            &["bench", "--seed", "-1"],
            "'-1' for '--seed <SEED>': -1 is not in 0..=18446744073709551615",
        ),
        (
            &["analyze", "--game", "raja-pasu", "--depth", "-3"],
            "'-3' for '--depth <DEPTH>': -3 is not in 1..=1000",
        ),
        (
            &["perft", "--game", "raja-pasu", "--depth", "-1"],
            "'-1' for '--depth <DEPTH>': -1 is not in 0..=64",
        ),
        (
            &["replay", "--record", rec, "--game-number", "-2"],
            "'-2' for '--game-number <N>': -2 is not in 1..=4294967295",
        ),
        (
            &["egtb", "verify", "--samples", "-1"],
            "'-1' for '--samples <SAMPLES>': -1 is not in 0..=18446744073709551615",
        ),
        (
            &["serve", "--claim-after", "-5"],
            "'-5' for '--claim-after <SECONDS>': -5 is not in 1..=86400",
        ),
    ];
    for (args, want) in cases {
        assert_eq!(usage_error(args), format!("error: invalid value {want}"));
    }
    // A flag after a numeric option is still a missing value, not a number.
    assert_eq!(
        usage_error(&["tournament", "greedy", "random", "--games", "-q"]),
        "error: a value is required for '--games <GAMES>' but none was supplied"
    );
}

#[test]
fn explain_json_from_a_position_whose_round_is_over_starts_with_the_round_end_and_refill() {
    let pos = "0,0,0,0,0,0,0/0,0,0,1,0,0,0 40 57 S 1 raja-pasu";
    let events: Vec<Value> = serde_json::from_str(&ok(&[
        "explain",
        "--position",
        pos,
        "--match",
        "--move",
        "d",
        "--json",
    ]))
    .unwrap();
    assert_eq!(
        events[0],
        serde_json::json!({"type":"round_end","reason":{"kind":"no_legal_move","stuck":"S"},
            "swept":[0,1]})
    );
    assert_eq!(events[1]["type"], "refill");
    assert_eq!(events[1]["round"], 2);
    assert_eq!(events[1]["closed"], serde_json::json!([0, 1]));
    assert_eq!(events[1]["remainder"], serde_json::json!([5, 9]));
    assert_eq!(events[2]["type"], "lift");
    assert_eq!(events[2]["hole"], "d");
    assert_eq!(events[2]["seeds"], 7);
    // The crate's own Event reads the trace back, refill included.
    let text = ok(&[
        "explain",
        "--position",
        pos,
        "--match",
        "--move",
        "d",
        "--json",
    ]);
    let read: Vec<pussa_rules::Event> = serde_json::from_str(&text).unwrap();
    assert_eq!(serde_json::to_string(&read).unwrap(), text.trim());
}

#[test]
fn several_fours_in_a_lap_are_counted_with_their_seeds_and_holes() {
    let out = ok(&[
        "explain",
        "--position",
        "x,x,x,x,x,x,10/9,9,9,6,12,12,11 4+6 9+1 N 2 raja-pasu S",
        "--move",
        "g",
    ]);
    assert!(
        out.contains(
            "(3 times round the ring: the emptied G gets 3 seeds), and North takes a four 7 \
             times (28 seeds): e, a, c, d, g, f, b\n"
        ),
        "{out}"
    );
    assert!(
        out.contains(", and North takes a four 3 times (12 seeds): g, f, b\n"),
        "{out}"
    );
    assert!(
        !out.contains("takes 4 3 times") && !out.contains(" and then "),
        "{out}"
    );
}

#[test]
fn moves_take_a_records_comments_and_final_result() {
    let record_like = "1. G e 2. D c 3. B {a comment} 3... g 4. E f 5. E g 6. C R2 1. D f *";
    let plain = ok(&[
        "replay",
        "--game",
        "raja-pasu",
        "--match",
        "--moves",
        MATCH_MOVETEXT,
        "--json",
    ]);
    let pasted = ok(&[
        "replay",
        "--game",
        "raja-pasu",
        "--match",
        "--moves",
        record_like,
        "--json",
    ]);
    assert_eq!(pasted, plain);
    // A decided result ends an unfinished game as a record's does.
    let out = ok(&["replay", "--game", "raja-pasu", "--moves", "1. G e 1-0"]);
    assert!(
        out.ends_with("The game is over: South wins (the result given after the moves, 1-0).\n"),
        "{out}"
    );
    let last = json_lines(&ok(&[
        "replay",
        "--game",
        "raja-pasu",
        "--moves",
        "1. G e 1-0",
        "--json",
    ]))
    .pop()
    .unwrap();
    assert_eq!(
        (last["match_over"].clone(), last["winner"].clone()),
        (true.into(), "S".into())
    );
    // A result the moves contradict, a result that is not last, and malformed text: the record
    // reader's verdicts, never a piece of a word called a move.
    let finished = "0,0,0,0,0,0,0/0,0,0,0,0,1,0 18 37 N 1 walak-pussa";
    for (args, want) in [
        (
            vec!["--position", finished, "--moves", "f 1-0"],
            "error: result 1-0, but the moves end the game with 0-1\n",
        ),
        (
            vec!["--game", "raja-pasu", "--moves", "1. G 1-0 e"],
            "error: result 1-0: nothing may follow the result, but 'e' does\n",
        ),
        (
            vec!["--game", "raja-pasu", "--moves", "1. G e {a comment"],
            "error: comment not closed with '}' (at move 2.)\n",
        ),
        (
            vec!["--game", "raja-pasu", "--moves", "1. G e } D"],
            "error: '}' without a '{' before it (at move 2.)\n",
        ),
        (
            vec!["--game", "raja-pasu", "--moves", "1. G e 2-0"],
            "error: '2-0': a result is 1-0, 0-1, 1/2-1/2 or * (at move 2.)\n",
        ),
    ] {
        let mut all = vec!["replay"];
        all.extend(args);
        assert_eq!(fails(&all), want);
    }
    assert_eq!(
        ok(&["replay", "--position", finished, "--moves", "f 0-1"]),
        ok(&["replay", "--position", finished, "--moves", "f"])
    );
}

/// A result against a start position that is already a finished game, with no moves, names the
/// position, not "the moves".
#[test]
fn a_result_against_a_finished_start_with_no_moves_names_the_position() {
    let over = "0,0,0,0,0,0,0/0,0,0,0,0,0,0 65 33 N 1 raja-pasu S repetition";
    assert_eq!(
        fails(&["replay", "--position", over, "--moves", "*"]),
        "error: result *, but the position is a game that is already over with 1-0\n"
    );
    ok(&["replay", "--position", over, "--moves", "1-0"]);
}

#[test]
fn a_round_marker_in_moves_is_quoted_as_typed_with_the_record_readers_verdict() {
    for marker in ["R99999999999999999999999", "R4294967296", "R0"] {
        let moves = format!("1. G e 2. D c 3. B g 4. E f 5. E g 6. C {marker} 1. D f");
        let err = fails(&[
            "replay",
            "--game",
            "raja-pasu",
            "--match",
            "--moves",
            &moves,
        ]);
        assert_eq!(
            err,
            format!(
                "error: '{marker}': a round marker is R and the round's number, like R2 (at \
                 move R2 1.)\n"
            )
        );
        let rec = scratch(
            "bigmarker.txt",
            &format!("[Game \"raja-pasu\"]\n[Mode \"match\"]\n\n{moves} *\n"),
        );
        let from_record = fails(&["replay", "--record", rec.to_str().unwrap()]);
        assert!(
            from_record.ends_with(&format!(
                "'{marker}': a round marker is R and the round's number, like R2\n"
            )),
            "{from_record}"
        );
    }
}

#[test]
fn reading_a_file_of_records_stops_at_text_after_a_result() {
    let rec = scratch(
        "junk.txt",
        "[Game \"walak-pussa\"]\n\n1. A *\n\njunk here\n\n[Game \"walak-pussa\"]\n\n1. B *\n",
    );
    let path = rec.to_str().unwrap();
    let err = fails(&["replay", "--record", path, "--game-number", "1"]);
    assert!(
        err.ends_with(": line 5, column 1: nothing may follow the result\n"),
        "{err}"
    );
    let err = fails(&["replay", "--record", path, "--game-number", "2"]);
    assert_eq!(
        err,
        format!(
            "error: record {path}: no game number 2 before line 5, where reading stops: the \
             text there follows the result of record 1 and cannot start a record\n"
        )
    );
    // Without the junk, record 2 reads.
    let clean = scratch(
        "clean.txt",
        "[Game \"walak-pussa\"]\n\n1. A {a comment} *\n\n[Game \"walak-pussa\"]\n\n1. B *\n",
    );
    ok(&[
        "replay",
        "--record",
        clean.to_str().unwrap(),
        "--game-number",
        "2",
    ]);
}

/// Game 1 of `pussa tournament --game walak-pussa --match level:beginner level:novice
/// --max-rounds 3 --pgn`: drawn at the round limit, its last move ending round 3. The
/// tournament's final position: `x,x,x,x,0,0,0/0,0,0,0,0,0,0 3+8 13+32 S 3 walak-pussa`.
const ROUND_LIMIT_RECORD: &str = "[Game \"walak-pussa\"]\n[Mode \"match\"]\n\
    [South \"level:beginner\"]\n[North \"level:novice\"]\n[First \"S\"]\n[Result \"1/2-1/2\"]\n\
    [Event \"pussa tournament\"]\n[Number \"1\"]\n[Termination \"drawn at the round limit (3)\"]\n\n\
    1. C e 2. F a {end of the random opening} 3. G e 4. D c 5. G a 6. E c 7. G a 8.\n\
    F a 9. G e\nR2 1. D d 2. E d 3. D f 4. D f 5. D d 6. F f 7. E a 8. G a 9. F e 10. G f\n\
    R3 1. G b 2. E f 3. E f 4. G c 5. G b 1/2-1/2\n";

/// A match drawn at its round limit ends, in `replay`, with the round the tournament played
/// last: no round after it is laid out, the last state is that round's end (the holdings the
/// tournament wrote), over and drawn. The same for `--moves` ending in a decided result after
/// a move that ends a round.
#[test]
fn a_match_stopped_at_its_round_limit_replays_to_that_rounds_end() {
    let rec = scratch("round-limit.pgn", ROUND_LIMIT_RECORD);
    let path = rec.to_str().unwrap();
    let states = json_lines(&ok(&["replay", "--record", path, "--json"]));
    assert!(
        states.iter().all(|s| s["round"].as_u64() <= Some(3)),
        "{states:?}"
    );
    let last = states.last().unwrap();
    assert_eq!(last["round"], 3);
    assert_eq!(last["board"], serde_json::json!([0u8; 14].to_vec()));
    assert_eq!(last["closed"], serde_json::json!([0, 1, 2, 3]));
    assert_eq!(last["stores"], serde_json::json!([11, 45]));
    assert_eq!(last["to_move"], Value::Null);
    assert_eq!(last["match_over"], true);
    assert_eq!(last["winner"], "draw");
    // Only the last state is over.
    assert!(states[..states.len() - 1]
        .iter()
        .all(|s| s["match_over"] == false));
    let text = ok(&["replay", "--record", path]);
    assert!(
        !text.contains("Round 4") && !text.contains("round 4"),
        "{text}"
    );
    assert!(
        text.ends_with(
            "Taken in the round: South 8, North 32; North wins the round.\nHolding: South 11, \
             North 45.\nThe match is over: a draw (drawn at the round limit (3)).\n"
        ),
        "{text}"
    );
    // The same moves given with --moves and the result.
    let moves = "C e F a G e D c G a E c G a F a G e R2 D d E d D f D f D d F f E a G a F e G f \
                 R3 G b E f E f G c G b";
    let given = json_lines(&ok(&[
        "replay",
        "--game",
        "walak-pussa",
        "--match",
        "--moves",
        &format!("{moves} 1/2-1/2"),
        "--json",
    ]));
    assert_eq!(given, states);
    // Unfinished, the match goes on: round 4 is laid out.
    let open = json_lines(&ok(&[
        "replay",
        "--game",
        "walak-pussa",
        "--match",
        "--moves",
        moves,
        "--json",
    ]));
    assert_eq!(open.last().unwrap()["round"], 4);
    assert_eq!(open.last().unwrap()["match_over"], false);
    // analyze: over, at the round's end, the tournament's final position.
    let out = ok(&[
        "analyze",
        "--game",
        "walak-pussa",
        "--match",
        "--moves",
        &format!("{moves} 1/2-1/2"),
        "--json",
    ]);
    let a: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(a["over"], true);
    assert_eq!(
        a["position"],
        "x,x,x,x,0,0,0/0,0,0,0,0,0,0 3+8 13+32 S 3 walak-pussa"
    );
    assert_eq!(a["round_end"]["round"], 3);
    assert_eq!(a["state"], *last);
}

/// `--game-number` without `--record`: the usage names `--record`, the one option missing, and
/// not `--game`, which a record does not need.
#[test]
fn game_number_without_record_asks_for_record_alone() {
    let o = pussa(&["replay", "--game-number", "2"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("  --record <RECORD>\n"), "{err}");
    assert!(!err.contains("--game <GAME>"), "{err}");
    assert!(
        err.contains("Usage: pussa replay --record <RECORD> --game-number <N>\n"),
        "{err}"
    );
    let err = fails(&["replay", "--game-number", "2", "--moves", "A"]);
    assert_eq!(
        err,
        "error: --game-number needs --record: it picks game N of a file of records\n"
    );
}

/// A record starts at its first tag, whichever it is: in a file of records written with
/// `[Event …]` first (PGN's order), each game is read with `--game-number`, and a record
/// without a result token ends where the next one's tags begin.
#[test]
fn a_file_of_records_with_a_tag_before_game_is_read_one_game_at_a_time() {
    let rec = scratch(
        "event-first.pgn",
        "[Event \"club night\"]\n[Game \"walak-pussa\"]\n[Result \"*\"]\n\n1. A *\n\n\
         [Event \"club night\"]\n[Game \"walak-pussa\"]\n[Result \"*\"]\n\n1. B *\n\n\
         [Event \"club night\"]\n[Game \"raja-pasu\"]\n\n1. G\n\n\
         [Event \"club night\"]\n[Game \"walak-pussa\"]\n\n1. C *\n",
    );
    let path = rec.to_str().unwrap();
    let read = |n: &str| {
        json_lines(&ok(&[
            "replay",
            "--record",
            path,
            "--game-number",
            n,
            "--json",
        ]))
    };
    let played = |game: &str, mv: &str| {
        json_lines(&ok(&["replay", "--game", game, "--moves", mv, "--json"]))
    };
    assert_eq!(read("1"), played("walak-pussa", "A"));
    assert_eq!(read("2"), played("walak-pussa", "B"));
    assert_eq!(read("3"), played("raja-pasu", "G"));
    assert_eq!(read("4"), played("walak-pussa", "C"));
    // A game the file does not hold.
    let err = fails(&["replay", "--record", path, "--game-number", "5"]);
    assert_eq!(err, format!("error: record {path}: no game number 5\n"));
    // Read whole, the file names the second game and gives advice that fits it.
    let err = fails(&["replay", "--record", path]);
    assert_eq!(
        err,
        format!(
            "error: record {path} (pick one game with --game-number N): line 7, column 1: a \
             second game starts here: a record holds one game (to read one game of a file of \
             several, split the file before the tags that follow each result)\n"
        )
    );
}

/// A file of records that starts with a UTF-8 byte-order mark (as Windows editors write it) is
/// split as the same file without it: `--game-number N` gives game N or says there is none, and
/// a single record with the mark gets no hint about files of several games.
#[test]
fn a_byte_order_mark_does_not_shift_the_games_of_a_file_of_records() {
    let games = "[Game \"walak-pussa\"]\n[Result \"*\"]\n\n1. A *\n\n\
                 [Game \"walak-pussa\"]\n[Result \"*\"]\n\n1. B *\n";
    let numbered = "[Game \"walak-pussa\"]\n[Number \"1\"]\n[Result \"*\"]\n\n1. C *\n\n\
                    [Game \"walak-pussa\"]\n[Number \"2\"]\n[Result \"*\"]\n\n1. D *\n";
    let played = |mv: &str| {
        json_lines(&ok(&[
            "replay",
            "--game",
            "walak-pussa",
            "--moves",
            mv,
            "--json",
        ]))
    };
    for (name, text, moves) in [
        ("bom-two.pgn", games, ["A", "B"]),
        ("bom-numbered.pgn", numbered, ["C", "D"]),
    ] {
        let rec = scratch(name, &format!("\u{feff}{text}"));
        let path = rec.to_str().unwrap();
        for (n, mv) in ["1", "2"].into_iter().zip(moves) {
            let got = json_lines(&ok(&[
                "replay",
                "--record",
                path,
                "--game-number",
                n,
                "--json",
            ]));
            assert_eq!(got, played(mv), "{name}: game {n}");
        }
        let err = fails(&["replay", "--record", path, "--game-number", "3"]);
        assert_eq!(err, format!("error: record {path}: no game number 3\n"));
    }
    let rec = scratch(
        "bom-bad.pgn",
        "\u{feff}[Game \"walak-pussa\"]\n[Result \"*\"]\n\n1. A A *\n",
    );
    let path = rec.to_str().unwrap();
    let err = fails(&["replay", "--record", path]);
    assert!(
        err.starts_with(&format!("error: record {path}: line 4, column 6: ")),
        "{err}"
    );
}

/// Splitting a file into records is linear in its length: a record whose moves are all on one
/// line of 2 MB (a lichess-style export) is refused at its bad move at once, with or without
/// `--game-number` (it took minutes when each token looked back to the start of its line).
#[test]
fn a_record_on_one_long_line_is_read_in_linear_time() {
    let text = format!(
        "[Game \"raja-pasu\"]\n[Mode \"match\"]\n[Result \"*\"]\n\n{} *\n",
        vec!["1. A"; 400_000].join(" ")
    );
    let rec = scratch("one-long-line.pgn", &text);
    let path = rec.to_str().unwrap();
    for extra in [&[][..], &["--game-number", "1"][..]] {
        let started = std::time::Instant::now();
        let mut args = vec!["replay", "--record", path];
        args.extend_from_slice(extra);
        let err = fails(&args);
        let took = started.elapsed();
        assert!(
            err.starts_with(&format!(
                "error: record {path}: line 5, column 9: move 1... A: "
            )),
            "{err}"
        );
        assert!(
            took < std::time::Duration::from_secs(20),
            "{extra:?}: {took:?}"
        );
    }
}

#[test]
fn a_round_over_at_the_start_numbers_the_next_rounds_moves_with_their_marker() {
    let rec = scratch(
        "r2-after-ended-start.txt",
        &format!(
            "[Game \"pasu-pondi\"]\n[Mode \"match\"]\n[Position \"{OVER_AT_ONCE}\"]\n\n\
             R2 1... a 2. A *\n"
        ),
    );
    let out = ok(&["replay", "--record", rec.to_str().unwrap()]);
    assert!(out.contains("\nR2 1... North plays a: "), "{out}");
    assert!(out.contains("\nR2 2. South plays A: "), "{out}");
    let err = fails(&[
        "replay",
        "--position",
        OVER_AT_ONCE,
        "--match",
        "--moves",
        "R2 1... a 2. D",
    ]);
    assert_eq!(err, "error: move R2 2. D: the hole is empty\n");
    let err = fails(&[
        "replay",
        "--position",
        "0,0,0,0,0,0,0/0,0,0,1,0,0,0 0+50 5 S 2 walak-pussa",
        "--match",
        "--moves",
        "A",
    ]);
    assert!(
        err.starts_with("error: move R3 1... A: not your hole"),
        "{err}"
    );
}

#[test]
fn the_rules_text_speaks_in_its_own_terms() {
    for game in ["walak-pussa", "raja-pasu", "pasu-pondi"] {
        let out = ok(&["rules", game]);
        assert!(!out.to_lowercase().contains("contract"), "{game}: {out}");
    }
    let out = ok(&["rules", "raja-pasu"]);
    assert!(
        out.contains("A round whose starter cannot move as soon as it is laid out?"),
        "{out}"
    );
}

/// What the record reader refuses in a movetext, `--moves` refuses too, in the same words:
/// anything after the result (a comment, a move number, a marker), a comment between a round
/// marker and its move, and a malformed marker (not "not a move").
#[test]
fn moves_refuse_what_the_record_reader_refuses() {
    let record = |moves: &str| {
        format!("[Game \"raja-pasu\"]\n[Mode \"match\"]\n[Result \"*\"]\n\n{moves}\n",)
    };
    for (moves, says) in [
        (
            "1. A d 1-0 {after}",
            "nothing may follow the result, but '{after}' does",
        ),
        (
            "1. A d 1-0 2.",
            "nothing may follow the result, but '2.' does",
        ),
        (
            "1. A d 1-0 R2",
            "nothing may follow the result, but 'R2' does",
        ),
        (
            "1. G e R+1 D",
            "'R+1': a round marker is R and the round's number",
        ),
        (
            "1. G e R1. D",
            "'R1.': a round marker is R and the round's number",
        ),
        (
            "1. G e 2. D c 3. B g 4. E f 5. E g 6. C R2 {x} 1. D f",
            "a comment between a round marker and its move",
        ),
    ] {
        let err = fails(&["replay", "--game", "raja-pasu", "--match", "--moves", moves]);
        assert!(err.contains(says), "{moves}: {err}");
        // The record reader refuses the same movetext.
        let path = scratch("refused.txt", &record(moves));
        let o = pussa(&["replay", "--record", path.to_str().unwrap()]);
        assert_eq!(
            o.status.code(),
            Some(1),
            "{moves}: the record reader took it"
        );
    }
}

/// A position whose round is over and whose match therefore ends: `explain --match` says why
/// the match ends (the loser cannot fill a hole), not only that the round is over.
#[test]
fn explain_says_why_a_match_ends_in_the_position() {
    let p = "0,0,0,0,0,0,0/0,0,0,1,0,0,0 95 2 S 1 raja-pasu";
    let err = fails(&["explain", "--position", p, "--match", "--move", "a"]);
    assert!(
        err.contains(
            "so the match is over (South wins: North holds 3, too few to fill a hole of 7 seeds)"
        ),
        "{err}"
    );
    // A single game has no holes to fill: only the result.
    let err = fails(&["explain", "--position", p, "--move", "a"]);
    assert!(err.contains("so the game is over (South wins)\n"), "{err}");
}

/// A round that ends because every move left to the player to move is endless says which
/// holes would sow for ever, in words and JSON, and explaining such a move gives the
/// endless-sowing error, as an endless move anywhere else does.
#[test]
fn a_player_stuck_by_endless_moves_is_told_which_holes_would_sow_for_ever() {
    // South's C sows a seed into North's only open hole, g, whose sowing is then endless.
    let before = "1,1,2,0,0,2,5/x,x,x,x,x,x,0 42+28 0+17 S 3 raja-pasu";
    let after = "0,2,0,0,1,0,6/x,x,x,x,x,x,1 42+29 0+17 N 3 raja-pasu S";
    let why = "North has no legal move (its only move, g, would sow for ever)";
    let out = ok(&["explain", "--match", "--position", before, "--move", "C"]);
    assert!(
        out.contains(&format!(
            "Round 3 is over: {why}; South takes the 10 seeds left on the board."
        )),
        "{out}"
    );
    let out = ok(&[
        "explain",
        "--match",
        "--position",
        before,
        "--move",
        "C",
        "--json",
    ]);
    let events: Value = serde_json::from_str(&out).unwrap();
    let end = events
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == "round_end")
        .unwrap();
    assert_eq!(
        end["reason"],
        serde_json::json!({"kind": "no_legal_move", "stuck": "N", "endless": ["g"]})
    );
    let out = ok(&["replay", "--match", "--position", before, "--moves", "C"]);
    assert!(out.contains(why), "{out}");
    let out = ok(&["replay", "--match", "--position", after]);
    assert!(
        out.contains(&format!(
            "North to move, but the round is already over in this position: {why}."
        )),
        "{out}"
    );
    // The move itself is refused for being endless, with or without the match.
    for extra in [&[][..], &["--match"][..]] {
        let mut args = vec!["explain", "--position", after, "--move", "g"];
        args.extend_from_slice(extra);
        let err = fails(&args);
        assert_eq!(
            err.trim(),
            "error: move g: endless sowing: the same board recurs with the same hole about to be lifted"
        );
    }
    // A player with no seed to lift is only "stuck": no holes named.
    let out = ok(&[
        "explain",
        "--position",
        "1,0,0,0,3,0,0/0,0,0,0,0,0,0 47 47 S 1 raja-pasu",
        "--move",
        "A",
        "--json",
    ]);
    assert!(
        out.contains(r#""reason":{"kind":"no_legal_move","stuck":"N"}"#),
        "{out}"
    );
}

/// `explain --moves` plays a game's earlier moves first, so a move that repeats a position of
/// the round ends the round, as `replay` says; a bare position string carries no history, and
/// the help says so.
#[test]
fn explain_takes_the_moves_before_so_a_repetition_ends_the_round() {
    let before = "G a D g D e G f C g D a A b B c C d D e E f F g G a A b";
    let replayed = ok(&[
        "replay",
        "--game",
        "raja-pasu",
        "--match",
        "--moves",
        &format!("{before} B"),
    ]);
    assert!(replayed.contains("Round 1 is over: the position repeated"));
    let args = |extra: &[&'static str]| {
        let mut a = vec![
            "explain",
            "--game",
            "raja-pasu",
            "--match",
            "--moves",
            before,
            "--move",
            "B",
        ];
        a.extend_from_slice(extra);
        a
    };
    let out = ok(&args(&[]));
    assert!(
        out.contains(
            "Round 1 is over: the position repeated; each player takes their own row (South 1, North 1)."
        ),
        "{out}"
    );
    assert!(out.contains("North will start round 2."), "{out}");
    let events: Value = serde_json::from_str(&ok(&args(&["--json"]))).unwrap();
    let kinds: Vec<&str> = events
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds[kinds.len() - 2..], ["round_end", "refill"]);
    assert_eq!(
        events[kinds.len() - 2]["reason"],
        serde_json::json!({"kind": "repetition"})
    );
    // The same move from the bare position before it: no history, so the round goes on.
    let bare = ok(&[
        "explain",
        "--match",
        "--position",
        "0,1,0,0,0,0,0/0,0,1,0,0,0,0 47 49 S 1 raja-pasu",
        "--move",
        "B",
    ]);
    assert!(!bare.contains("repeated") && bare.ends_with("North to move\n"));
    // The moves are numbered in errors as records number them; a result ends them.
    let err = fails(&[
        "explain",
        "--game",
        "raja-pasu",
        "--moves",
        "G a a",
        "--move",
        "A",
    ]);
    assert!(err.contains("move 2. a: "), "{err}");
    let err = fails(&[
        "explain",
        "--game",
        "raja-pasu",
        "--moves",
        "G 1-0",
        "--move",
        "a",
    ]);
    assert!(err.contains("--moves ends with the result"), "{err}");
    // North first, from the opening.
    let out = ok(&[
        "explain",
        "--game",
        "raja-pasu",
        "--first",
        "N",
        "--move",
        "a",
    ]);
    assert!(out.starts_with("Raja Pasu, North plays a:"), "{out}");
    // After moves that end the game, the error says so.
    let err = fails(&[
        "explain",
        "--position",
        "1,0,0,0,3,0,0/0,0,0,0,0,0,0 47 47 S 1 raja-pasu",
        "--moves",
        "A",
        "--move",
        "a",
    ]);
    assert!(
        err.contains("the moves given end the round: North has no legal move"),
        "{err}"
    );
    let help = ok(&["help", "explain"]);
    assert!(
        help.contains("A position string carries no history"),
        "{help}"
    );
    assert!(help.contains("--moves"), "{help}");
}

/// Raja Pasu match movetext whose `15. B` ends round 1 by repetition; North starts round 2.
const ROUND1_BY_REPETITION: &str =
    "1. G a 2. D g 3. D e 4. G f 5. C g 6. D a 7. A b 8. B c 9. C d \
                                    10. D e 11. E f 12. F g 13. G a 14. A b 15. B";

/// `explain --moves` ending with the move that ended a round: that move has ended it and laid
/// out round 2, so the next move's trace is its own alone, as the web trace of that ply (it
/// started with the round's `round_end` and `refill` again), and the words do not say the round
/// is "already over".
#[test]
fn explain_after_the_move_that_ended_a_round_explains_the_next_move_alone() {
    let explain = |extra: &[&str]| {
        let mut a = vec![
            "explain",
            "--game",
            "raja-pasu",
            "--match",
            "--moves",
            ROUND1_BY_REPETITION,
            "--move",
            "b",
        ];
        a.extend_from_slice(extra);
        ok(&a)
    };
    let text = explain(&[]);
    assert!(text.starts_with("Raja Pasu, North plays b:\n"), "{text}");
    assert!(
        !text.contains("already over") && !text.contains("Round 1 is over"),
        "{text}"
    );
    let events: Value = serde_json::from_str(&explain(&["--json"])).unwrap();
    assert_eq!(events[0]["type"], "lift", "{events}");
    assert!(
        !events
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["type"] == "round_end" || e["type"] == "refill"),
        "{events}"
    );
    // The same as the move from round 2's layout (no history yet in round 2).
    let laid = ok(&[
        "explain",
        "--match",
        "--position",
        "x,7,7,7,7,7,7/7,7,7,7,7,7,7 6 1 N 2 raja-pasu",
        "--move",
        "b",
        "--json",
    ]);
    assert_eq!(laid, explain(&["--json"]));
}

/// Movetext copied up to the first move of a round ends with its marker (`R2 1...`): accepted
/// by explain, replay and analyze alike, and checked against the round the next move is in, as
/// a trailing move number is skipped (it was refused: "round marker R2 is not followed by a
/// move").
#[test]
fn a_trailing_round_marker_is_checked_against_the_round_reached() {
    let plain = ok(&[
        "explain",
        "--game",
        "raja-pasu",
        "--match",
        "--moves",
        ROUND1_BY_REPETITION,
        "--move",
        "b",
    ]);
    for tail in [" R2 1...", " R2"] {
        let moves = format!("{ROUND1_BY_REPETITION}{tail}");
        let m = moves.as_str();
        let out = ok(&[
            "explain",
            "--game",
            "raja-pasu",
            "--match",
            "--moves",
            m,
            "--move",
            "b",
        ]);
        assert_eq!(out, plain, "{tail}");
        let whole = format!("{ROUND1_BY_REPETITION} R2 1... b");
        let out = ok(&[
            "replay",
            "--game",
            "raja-pasu",
            "--match",
            "--moves",
            m,
            "--json",
        ]);
        let full = ok(&[
            "replay",
            "--game",
            "raja-pasu",
            "--match",
            "--moves",
            &whole,
            "--json",
        ]);
        assert!(full.starts_with(&out), "{tail}");
        ok(&[
            "analyze",
            "--game",
            "raja-pasu",
            "--match",
            "--moves",
            m,
            "--depth",
            "1",
        ]);
    }
    let wrong = format!("{ROUND1_BY_REPETITION} R3");
    for cmd in [
        &["explain", "--move", "b"][..],
        &["replay"],
        &["analyze", "--depth", "1"],
    ] {
        let mut a = vec![cmd[0], "--game", "raja-pasu", "--match", "--moves", &wrong];
        a.extend_from_slice(&cmd[1..]);
        assert_eq!(
            fails(&a),
            "error: round marker R3, but this move is in round 2 (at the end of the moves)\n",
            "{a:?}"
        );
    }
}

/// A round already over in the position given is told with replay's holdings line everywhere:
/// replay, analyze and explain give the same words (analyze and explain left the line out).
#[test]
fn a_round_over_in_the_position_is_told_with_the_holdings_everywhere() {
    let w = "2,1,0,1,0,2,1/x,x,x,x,x,x,3 24+2 0+20 N 3 walak-pussa";
    let told = "Round 3 is over: North has no legal move (its only move, g, would sow for ever); \
                South takes the 10 seeds left on the board. Taken in the round: South 12, North \
                20; North wins the round.\nHolding: South 36, North 20; North will start round \
                4.\n";
    let replay = ok(&["replay", "--match", "--position", w]);
    let analyze = ok(&["analyze", "--match", "--position", w, "--depth", "1"]);
    let explain = ok(&["explain", "--match", "--position", w, "--move", "f"]);
    for (name, out) in [
        ("replay", &replay),
        ("analyze", &analyze),
        ("explain", &explain),
    ] {
        assert!(out.contains(told), "{name}: {out}");
    }
}

#[test]
fn replay_of_a_round_ended_by_repetition_from_its_position_string_agrees_with_the_moves() {
    let moves = "C a F e B c D d A e B f G g F b G a A b B c C d D e E f F g G";
    let played = ok(&["replay", "--game", "raja-pasu", "--match", "--moves", moves]);
    assert!(
        played.contains("Round 1 is over: the position repeated"),
        "{played}"
    );
    assert!(
        played.contains("Holding: South 65, North 33; North will start round 2."),
        "{played}"
    );
    // The between-rounds state's position string, as Setup::from_state writes it.
    let text = "0,0,0,0,0,0,0/0,0,0,0,0,0,0 65 33 N 1 raja-pasu S repetition";
    let read = ok(&["replay", "--match", "--position", text]);
    // The board is swept: the string is the round's end, shown once, as the moves showed it (not
    // first "as given" with a player to move, QA pass 21, interop2 #3).
    assert_eq!(
        read.matches("Round 1 is over: the position repeated")
            .count(),
        1,
        "{read}"
    );
    assert!(!read.contains("already over in this position"), "{read}");
    assert!(
        read.contains("Holding: South 65, North 33; North will start round 2."),
        "{read}"
    );
    // Round 2 is laid out alike.
    let tail = |s: &str| s[s.find("Round 2:").unwrap()..].to_string();
    assert_eq!(tail(&read), tail(&played));
    // On a board with seeds the marker is refused, one line.
    let err = fails(&[
        "replay",
        "--position",
        "4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0 S 1 walak-pussa repetition",
    ]);
    assert_eq!(
        err.trim(),
        "error: --position: 'repetition' marks a round that ended by repetition, \
         whose board is swept (each player took their own row), but the board holds 56 seeds"
    );
}
