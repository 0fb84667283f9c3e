//! The stores of a position string from round 2 on: `C+T`, seeds kept from the last refill plus
//! seeds taken in this round (docs/notation.md, "Positions").

use pussa_rules::{Game, GameState, Hole, Mode, Setup, SetupError, Side, Status};

fn setup(s: &str) -> Setup {
    s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
}

#[test]
fn plain_stores_read_as_before() {
    // Round 1: a plain number is what was taken in the round.
    let s = setup("0,0,0,0,0,0,1/0,0,0,0,0,0,1 50 46 S 1 raja-pasu");
    assert_eq!((s.stores, s.taken), ([50, 46], [50, 46]));
    // Round 2 on: a plain number was carried over; nothing taken yet.
    let s = setup("x,x,x,x,x,0,1/0,0,0,0,0,0,1 50 46 S 2 raja-pasu");
    assert_eq!((s.stores, s.taken), ([50, 46], [0, 0]));
    assert_eq!(
        s.to_string(),
        "x,x,x,x,x,0,1/0,0,0,0,0,0,1 50 46 S 2 raja-pasu"
    );
}

#[test]
fn a_store_written_c_plus_t_keeps_the_rounds_takings() {
    let text = "x,x,x,x,x,0,1/0,0,0,0,0,0,1 2+48 46 S 2 raja-pasu";
    let s = setup(text);
    assert_eq!((s.stores, s.taken), ([50, 46], [48, 0]));
    assert_eq!(s.to_string(), text);
    let g = s.game_state(Mode::Match).unwrap();
    assert_eq!(g.taken_this_round(), [48, 0]);
    // `0+T` is allowed in round 1 (nothing carried over) and written back plain.
    let s = setup("0,0,0,0,0,0,1/0,0,0,0,0,0,1 0+50 46 S 1 raja-pasu");
    assert_eq!((s.stores, s.taken), ([50, 46], [50, 46]));
    assert_eq!(
        s.to_string(),
        "0,0,0,0,0,0,1/0,0,0,0,0,0,1 50 46 S 1 raja-pasu"
    );
}

#[test]
fn a_round_decided_by_its_takings_from_a_round_two_string() {
    // South took 48 in the round so far, North nothing; North's last two moves take 2.
    let mut g = setup("x,x,x,x,x,0,1/0,0,0,0,0,0,1 2+48 46 S 2 raja-pasu")
        .game_state(Mode::Single)
        .unwrap();
    g.play(Hole::from_letter('G').unwrap()).unwrap();
    if !g.is_over() {
        g.play(Hole::from_letter('a').unwrap()).unwrap();
    }
    let Status::Over { result, winner } = g.status() else {
        panic!("not over: {:?}", g.status());
    };
    assert_eq!(winner, Some(Side::South), "{result:?}");
    assert!(result.taken[0] > result.taken[1], "{result:?}");
}

#[test]
fn carried_seeds_in_round_one_are_refused() {
    let e = "0,0,0,0,0,0,1/0,0,0,0,0,0,1 4+46 46 S 1 raja-pasu"
        .parse::<Setup>()
        .unwrap_err();
    assert_eq!(e, SetupError::CarriedInRoundOne(Side::South));
    assert_eq!(
        e.to_string(),
        "position: South's store: round 1 has nothing carried over; write the seeds taken as one number"
    );
    // A Setup built by hand: round 1 takes everything in store.
    let mut s = setup("0,0,0,0,0,0,1/0,0,0,0,0,0,1 50 46 S 1 raja-pasu");
    s.taken = [50, 40];
    let e = s.validate().unwrap_err();
    assert_eq!(
        e,
        SetupError::TakenNotStoreInRoundOne {
            side: Side::North,
            taken: 40,
            stores: 46
        }
    );
    // The message names the rule, not text that was never written.
    assert_eq!(
        e.to_string(),
        "position: round 1: North took 40 seeds in the round but holds 46 in store; nothing is \
         carried over into round 1, so the seeds taken must equal the store"
    );
}

#[test]
fn a_hand_built_setup_with_seeds_in_a_closed_hole_names_the_closed_hole() {
    let mut s = setup("x,7,7,7,7,7,7/7,7,7,7,7,7,7 3 4 S 2 raja-pasu");
    s.board[0] = 3;
    s.stores[0] = 0;
    let e = s.validate().unwrap_err();
    assert_eq!(
        e,
        SetupError::SeedsInClosedHole {
            hole: "A".parse().unwrap(),
            seeds: 3
        }
    );
    assert_eq!(
        e.to_string(),
        "position: hole A is closed but holds 3 seeds; a closed hole holds none"
    );
}

#[test]
fn malformed_or_oversized_c_plus_t_stores_are_refused() {
    for (store, want) in [
        ("2+", "position: South's store: '2+' is not a number"),
        ("+48", "position: South's store: '+48' is not a number"),
        (
            "2+4+44",
            "position: South's store: '2+4+44' is not a number",
        ),
        ("2+a", "position: South's store: '2+a' is not a number"),
        (
            "50+50",
            "position: South's store holds 100 seeds, more than the 98 seeds of raja-pasu",
        ),
        (
            "3+48",
            "position: seeds add up to 99 (board 2 + stores 97); raja-pasu has 98",
        ),
    ] {
        let text = format!("x,x,x,x,x,0,1/0,0,0,0,0,0,1 {store} 46 S 2 raja-pasu");
        let e = text.parse::<Setup>().unwrap_err();
        assert_eq!(e.to_string(), want, "{text}");
    }
    let mut s = setup("x,x,x,x,x,0,1/0,0,0,0,0,0,1 50 46 S 2 raja-pasu");
    s.taken = [51, 0];
    assert_eq!(
        s.validate().unwrap_err().to_string(),
        "position: South took 51 seeds in the round, more than the 50 in store"
    );
}

#[test]
fn a_match_written_mid_round_two_reads_back_its_takings() {
    let mut g = GameState::new(Game::RajaPasu, Mode::Match, Side::South);
    let moves = "G e D c B g E f E g C D f G g F d G f";
    for m in moves.split_whitespace() {
        g.next_round();
        g.play(m.parse::<Hole>().unwrap()).unwrap();
    }
    assert_eq!(g.round(), 2);
    let text = Setup::from_state(&g).to_string();
    let taken = g.taken_this_round();
    assert!(taken[0] > 0 && taken[1] > 0, "{text}");
    assert!(text.contains(&format!("+{} ", taken[0])), "{text}");
    let back = setup(&text).game_state(Mode::Match).unwrap();
    assert_eq!(back.taken_this_round(), taken, "{text}");
}

#[test]
fn numbers_too_large_for_any_integer_are_too_many_seeds_not_malformed() {
    let cases = [
        (
            "4294967296,0,0,0,0,0,0/0,0,0,0,0,0,0 0 0 S 1 walak-pussa",
            "position: hole A holds 4294967296 seeds, more than the 56 seeds of walak-pussa",
        ),
        (
            "0,0,0,0,0,0,0/0,0,0,0,0,0,99999999999999999999999 0 0 S 1 walak-pussa",
            "position: hole g holds 99999999999999999999999 seeds, more than the 56 seeds of walak-pussa",
        ),
        (
            "0,0,0,0,0,0,0/0,0,0,0,0,0,0 4294967296 0 S 1 walak-pussa",
            "position: South's store holds 4294967296 seeds, more than the 56 seeds of walak-pussa",
        ),
        (
            "4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0099999999999999999999 S 1 walak-pussa",
            "position: North's store holds 99999999999999999999 seeds, more than the 56 seeds of walak-pussa",
        ),
        (
            "4,4,4,4,4,4,4/4,4,4,4,4,4,4 1+99999999999 0 S 2 walak-pussa",
            "position: South's store holds 1+99999999999 seeds, more than the 56 seeds of walak-pussa",
        ),
        // Not digits at all: still not a number, however long the other part.
        (
            "4,4,4,4,4,4,4/4,4,4,4,4,4,4 a+99999999999 0 S 2 walak-pussa",
            "position: South's store: 'a+99999999999' is not a number",
        ),
    ];
    for (text, want) in cases {
        let err = text.parse::<Setup>().unwrap_err();
        assert_eq!(err.to_string(), want, "{text}");
        assert!(matches!(
            err,
            SetupError::TooMany { .. } | SetupError::Number { .. }
        ));
    }
}

/// The Raja Pasu match of the QA report: round 1 ends by repetition, and South started it.
const REPEATED_ROUND: &str = "C a F e B c D d A e B f G g F b G a A b B c C d D e E f F g G";

fn played(game: Game, mode: Mode, moves: &str) -> GameState {
    let mut g = GameState::new(game, mode, Side::South);
    for m in moves.split_whitespace() {
        g.play(m.parse::<Hole>().unwrap()).unwrap();
    }
    g
}

#[test]
fn a_round_ended_by_repetition_is_marked_and_its_next_starter_reads_back() {
    let g = played(Game::RajaPasu, Mode::Match, REPEATED_ROUND);
    let Status::RoundOver {
        result,
        next_starter,
    } = g.status()
    else {
        panic!("{:?}", g.status());
    };
    assert_eq!(result.reason, pussa_rules::EndReason::Repetition);
    // Repetition: the player who did not start round 1 starts round 2.
    assert_eq!(next_starter, Side::North);
    let text = Setup::from_state(&g).to_string();
    assert_eq!(
        text,
        "0,0,0,0,0,0,0/0,0,0,0,0,0,0 65 33 N 1 raja-pasu S repetition"
    );
    let back = setup(&text).game_state(Mode::Match).unwrap();
    let Status::RoundOver {
        result: read,
        next_starter: read_next,
    } = back.status()
    else {
        panic!("{:?}", back.status());
    };
    // Everything but the sweep's size (already in the takings: the board is empty).
    assert_eq!(
        (read.reason, read.taken, read.winner),
        (result.reason, result.taken, result.winner)
    );
    assert_eq!(read_next, Side::North);
    assert_eq!(Setup::from_state(&back).to_string(), text);
    let (mut a, mut b) = (g.clone(), back);
    assert!(a.next_round() && b.next_round());
    assert_eq!(Setup::from_state(&a), Setup::from_state(&b));
    assert_eq!(
        Setup::from_state(&b).to_string(),
        "7,7,7,7,7,7,7/x,x,x,7,7,7,7 16 5 N 2 raja-pasu"
    );
    // A single game keeps its reason too.
    let single = played(Game::RajaPasu, Mode::Single, REPEATED_ROUND);
    let text = Setup::from_state(&single).to_string();
    assert!(text.ends_with(" repetition"), "{text}");
    let read = setup(&text).game_state(Mode::Single).unwrap();
    assert_eq!(read.winner(), single.winner());
    assert!(matches!(
        read.status(),
        Status::Over { result, .. } if result.reason == pussa_rules::EndReason::Repetition
    ));
    // The marker reads in any case, after the starter or without one.
    let s = setup("0,0,0,0,0,0,0/0,0,0,0,0,0,0 65 33 N 1 raja-pasu S Repetition");
    assert!(s.repeated);
    let s = setup("0,0,0,0,0,0,0/0,0,0,0,0,0,0 65 33 N 1 raja-pasu repetition");
    assert!(s.repeated && s.starter == Side::North);
}

#[test]
fn without_the_marker_a_swept_board_reads_as_before() {
    // Strings written before the marker existed keep their meaning: no legal move for the side
    // to move, so in Raja Pasu the other side took the leftovers and starts the next round.
    let g = setup("0,0,0,0,0,0,0/0,0,0,0,0,0,0 65 33 N 1 raja-pasu S")
        .game_state(Mode::Match)
        .unwrap();
    let Status::RoundOver {
        result,
        next_starter,
    } = g.status()
    else {
        panic!("{:?}", g.status());
    };
    assert!(matches!(
        result.reason,
        pussa_rules::EndReason::NoLegalMove {
            stuck: Side::North,
            ..
        }
    ));
    assert_eq!(next_starter, Side::South);
}

#[test]
fn the_repetition_marker_on_a_board_with_seeds_is_refused() {
    let e = "4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0 S 1 walak-pussa repetition"
        .parse::<Setup>()
        .unwrap_err();
    assert_eq!(e, SetupError::RepetitionNotSwept(56));
    assert_eq!(
        e.to_string(),
        "position: 'repetition' marks a round that ended by repetition, whose board is swept \
         (each player took their own row), but the board holds 56 seeds"
    );
    // Still one of 6 or 7 fields when counted.
    let e = "4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0 S 1 walak-pussa S N repetition"
        .parse::<Setup>()
        .unwrap_err();
    assert_eq!(
        e,
        SetupError::ExtraField {
            found: 8,
            word: "N".into()
        }
    );
}

#[test]
fn a_misspelt_doubled_or_misplaced_repetition_marker_is_named_in_the_error() {
    const FIELDS: &str = "position: expected 6 or 7 fields (board, South's store, North's store, \
        side to move, round, game[, round starter]), optionally followed by `repetition`; found";
    let over = "0,0,0,0,0,0,0/0,0,0,0,0,0,0 65 33 N 1 raja-pasu";
    for (tail, found, word, why) in [
        // Misspelt: not the marker, and not counted as it.
        (
            "S repetitio",
            8,
            "repetitio",
            "'repetitio' is not the marker `repetition`",
        ),
        (
            "S repeat",
            8,
            "repeat",
            "'repeat' is not the marker `repetition`",
        ),
        // Doubled: the marker is not counted as a field.
        (
            "S repetition repetition",
            7,
            "repetition",
            "the marker `repetition` comes once, last (after the round starter)",
        ),
        // Before the round starter.
        (
            "repetition S",
            7,
            "repetition",
            "the marker `repetition` comes once, last (after the round starter)",
        ),
    ] {
        let text = format!("{over} {tail}");
        let e = text.parse::<Setup>().unwrap_err();
        assert_eq!(
            e,
            SetupError::ExtraField {
                found,
                word: word.into()
            },
            "{text}"
        );
        assert_eq!(e.to_string(), format!("{FIELDS} {found}: {why}"), "{text}");
    }
    // The marker in its place still reads.
    let s: Setup = format!("{over} S repetition").parse().unwrap();
    assert!(s.repeated);
}

#[test]
fn a_doubled_or_misspelt_marker_on_a_six_field_string_is_named_not_taken_for_the_starter() {
    const FIELDS: &str = "position: expected 6 or 7 fields (board, South's store, North's store, \
        side to move, round, game[, round starter]), optionally followed by `repetition`; found 6";
    let over = "0,0,0,0,0,0,0/0,0,0,0,0,0,0 28 28 S 1 walak-pussa";
    for (tail, word, why) in [
        (
            "repetition repetition",
            "repetition",
            "the marker `repetition` comes once, last (after the round starter)",
        ),
        (
            "REPETITION repetition",
            "REPETITION",
            "the marker `repetition` comes once, last (after the round starter)",
        ),
        (
            "repetitoin",
            "repetitoin",
            "'repetitoin' is not the marker `repetition`",
        ),
        (
            "Repetiton",
            "Repetiton",
            "'Repetiton' is not the marker `repetition`",
        ),
    ] {
        let text = format!("{over} {tail}");
        let e = text.parse::<Setup>().unwrap_err();
        assert_eq!(
            e,
            SetupError::ExtraField {
                found: 6,
                word: word.into()
            },
            "{text}"
        );
        assert_eq!(e.to_string(), format!("{FIELDS}: {why}"), "{text}");
    }
    // A real bad round starter keeps its own message.
    for bad in ["X", "East", "Sud"] {
        let e = format!("{over} {bad}").parse::<Setup>().unwrap_err();
        assert_eq!(e, SetupError::Starter(bad.into()), "{bad}");
    }
    // The marker alone, and a good starter then the marker, still read.
    assert!(setup(&format!("{over} repetition")).repeated);
    assert!(setup(&format!("{over} N repetition")).repeated);
}

#[test]
fn every_round_end_of_random_matches_reads_back_with_its_reason_and_next_round() {
    let mut rng = pussa_rules::Rng::new(20);
    let mut repetitions = 0;
    for game in Game::ALL {
        for _ in 0..60 {
            let mut g = GameState::new(game, Mode::Match, Side::South);
            for _ in 0..6 {
                while !g.is_round_over() {
                    let moves: Vec<Hole> = g.legal_moves().into_iter().collect();
                    g.play(moves[rng.below(moves.len() as u32) as usize])
                        .unwrap();
                }
                let text = Setup::from_state(&g).to_string();
                let mut back = setup(&text).game_state(Mode::Match).unwrap();
                // What follows is the same: the reason, the takings, the winner, the next
                // starter. Only the sweep's size and the endless moves are not kept.
                let strip = |s: Status| match s {
                    Status::RoundOver {
                        mut result,
                        next_starter,
                    } => {
                        if let pussa_rules::EndReason::NoLegalMove { endless, .. } =
                            &mut result.reason
                        {
                            *endless = pussa_rules::Moves::EMPTY;
                        }
                        result.swept = [0, 0];
                        Status::RoundOver {
                            result,
                            next_starter,
                        }
                    }
                    Status::Over { mut result, winner } => {
                        if let pussa_rules::EndReason::NoLegalMove { endless, .. } =
                            &mut result.reason
                        {
                            *endless = pussa_rules::Moves::EMPTY;
                        }
                        result.swept = [0, 0];
                        Status::Over { result, winner }
                    }
                    s => s,
                };
                assert_eq!(strip(back.status()), strip(g.status()), "{game} {text}");
                if let Status::RoundOver { result, .. } = g.status() {
                    if result.reason == pussa_rules::EndReason::Repetition {
                        repetitions += 1;
                    }
                }
                // The serde shape still reads back equal.
                let json = serde_json::to_string(&g).unwrap();
                assert_eq!(
                    serde_json::from_str::<GameState>(&json).unwrap(),
                    g,
                    "{json}"
                );
                if !g.next_round() {
                    break;
                }
                assert!(back.next_round());
                assert_eq!(
                    Setup::from_state(&back),
                    Setup::from_state(&g),
                    "{game} {text}"
                );
            }
        }
    }
    assert!(repetitions > 0, "no round ended by repetition");
}

#[test]
fn a_states_json_agrees_with_the_repetition_marker_and_reads_without_it() {
    let g = played(Game::RajaPasu, Mode::Match, REPEATED_ROUND);
    let json: serde_json::Value = serde_json::to_value(&g).unwrap();
    let text = json["position"].as_str().unwrap().to_string();
    assert!(text.ends_with(" S repetition"), "{text}");
    // JSON written before the marker existed: the status says repetition, and is believed.
    let mut old = json.clone();
    old["position"] = text.trim_end_matches(" repetition").into();
    assert_eq!(serde_json::from_value::<GameState>(old).unwrap(), g);
    // A marker that the status contradicts is refused.
    let stuck = setup("0,0,0,0,0,0,0/0,0,0,0,0,0,0 65 33 N 1 raja-pasu S")
        .game_state(Mode::Match)
        .unwrap();
    let mut bad = serde_json::to_value(&stuck).unwrap();
    bad["position"] = text.clone().into();
    let e = serde_json::from_value::<GameState>(bad)
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("status: the position string says the round ended by repetition, but status gives Some(NoLegalMove"),
        "{e}"
    );
}
