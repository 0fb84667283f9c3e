//! Game records: writing, reading back identically, and refusing malformed text with the place.

use proptest::prelude::*;
use pussa_rules::record::{Record, RecordError, RecordResult};
use pussa_rules::{Game, GameState, Hole, IllegalReason, Mode, Rng, Setup, Side};

fn h(c: char) -> Hole {
    Hole::from_letter(c).unwrap()
}

/// A random game or match played to its end (or `max_moves`), with its moves.
fn random_moves(game: Game, mode: Mode, first: Side, seed: u64, max_moves: usize) -> Vec<Hole> {
    let mut rng = Rng::new(seed);
    let mut g = GameState::new(game, mode, first);
    let mut moves = Vec::new();
    while !g.is_over() && moves.len() < max_moves {
        if g.is_round_over() {
            g.next_round();
            continue;
        }
        let legal = g.legal_moves();
        let mv = legal.nth(rng.below(legal.len() as u32) as usize).unwrap();
        g.play(mv).unwrap();
        moves.push(mv);
    }
    moves
}

fn syntax_error(text: &str) -> (usize, usize, String) {
    match Record::parse(text) {
        Err(RecordError::Syntax {
            line,
            column,
            message,
        }) => (line, column, message),
        other => panic!("expected a syntax error for {text:?}, got {other:?}"),
    }
}

#[test]
fn a_finished_match_round_trips_with_tags_comments_and_round_markers() {
    for (i, game) in Game::ALL.into_iter().enumerate() {
        let first = if i % 2 == 0 { Side::South } else { Side::North };
        let moves = random_moves(game, Mode::Match, first, 7 + i as u64, 5000);
        let mut rec = Record::new(game, Mode::Match, first);
        rec.set_tag("Date", "2026.11.29").unwrap();
        rec.set_tag("North", "pussa \"level\" 3 \\ beta").unwrap();
        rec.set_tag("South", "Asha").unwrap();
        rec.set_tag("Event", "test").unwrap();
        rec.comment("a match { of } tests");
        for (k, &mv) in moves.iter().enumerate() {
            rec.push(mv).unwrap();
            if k % 7 == 3 {
                rec.comment(&format!("note  on\nmove {}", k + 1));
            }
        }
        let text = rec.to_string();
        let back = Record::parse(&text).unwrap_or_else(|e| panic!("{game}: {e}\n{text}"));
        assert_eq!(back, rec, "{game}");
        assert_eq!(back.to_string(), text, "{game}");
        // The common tags come in their canonical order whatever order they were set in.
        let names: Vec<&str> = rec.tags().iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            ["Game", "Mode", "Date", "South", "North", "First", "Result", "Event"]
        );
        assert_eq!(back.tag("North"), Some("pussa \"level\" 3 \\ beta"));
        assert!(rec.state().is_over(), "{game}: the match should have ended");
        assert_ne!(rec.result(), RecordResult::Unfinished);
        if rec.state().round() > 1 {
            assert!(text.contains("\nR2 "), "{game}: no round marker in\n{text}");
        }
        assert!(text
            .lines()
            .all(|l| l.chars().count() <= 79 || !l.contains(' ')));
    }
}

#[test]
fn north_first_is_numbered_with_three_dots_and_a_comment_renumbers() {
    let mut rec = Record::new(Game::WalakPussa, Mode::Single, Side::North);
    rec.push(h('d')).unwrap();
    rec.push(h('A')).unwrap();
    rec.comment("South replies");
    let reply = rec.state().legal_moves().nth(0).unwrap();
    rec.push(reply).unwrap();
    let text = rec.to_string();
    let movetext = text.split("\n\n").nth(1).unwrap();
    assert!(
        movetext.starts_with("1... d 2. A {South replies} 2... "),
        "{movetext}"
    );
    assert!(text.contains("[First \"N\"]"));
    assert_eq!(Record::parse(&text).unwrap().to_string(), text);
}

#[test]
fn reading_ignores_move_numbers_and_accepts_loose_layout() {
    let text = "[Game \"walak-pussa\"]\n1.A  d\n  2.C\t{ two\n lines }  *";
    let rec = Record::parse(text).unwrap();
    let moves: String = rec.moves().iter().map(|m| m.hole.letter()).collect();
    assert_eq!(moves, "AdC");
    assert_eq!(rec.moves()[2].comment.as_deref(), Some("two lines"));
    assert_eq!(rec.mode(), Mode::Single);
    assert_eq!(rec.first(), Side::South);
    // Missing managed tags are added in their canonical place.
    assert_eq!(rec.to_string(), "[Game \"walak-pussa\"]\n[Mode \"single\"]\n[First \"S\"]\n[Result \"*\"]\n\n1. A d 2. C {two lines} *\n");
}

#[test]
fn the_example_in_the_notation_doc_is_a_real_match_in_canonical_form() {
    let doc = include_str!("../docs/notation.md");
    let start = doc.find("[Game \"raja-pasu\"]").unwrap();
    let text = &doc[start..start + doc[start..].find("```").unwrap()];
    let rec = Record::parse(text).unwrap();
    assert_eq!(rec.to_string(), text);
    assert_eq!(rec.moves()[10].round, 1);
    assert_eq!(rec.moves()[11].round, 2);
    let g = rec.state();
    assert_eq!(g.round(), 2);
    // North holds 33 at the refill: four holes, a b c closed.
    assert_eq!(g.position().closed_mask(), 0b111 << 7);
}

#[test]
fn windows_line_ends_and_a_byte_order_mark_are_read() {
    let rec = Record::parse("\u{feff}[Game \"walak-pussa\"]\r\n[Result \"*\"]\r\n\r\n1. A d *\r\n")
        .unwrap();
    assert_eq!(rec.moves().len(), 2);
    assert_eq!(rec.tags().len(), 4);
}

#[test]
fn the_worked_first_move_replays_to_the_contracts_board() {
    let rec = Record::parse("[Game \"raja-pasu\"]\n[Result \"*\"]\n\n1. G *\n").unwrap();
    assert_eq!(rec.state().position().stores(), [11, 8]);
}

#[test]
fn a_record_from_a_position_with_closed_holes_round_trips() {
    // Round 2 of a Raja Pasu match: South fills 6 holes (A closed), North 7.
    let setup: Setup = "x,7,7,7,7,7,7/7,7,7,7,7,7,7 3 4 S 2 raja-pasu"
        .parse()
        .unwrap();
    let mut rec = Record::from_setup(setup, Mode::Match).unwrap();
    for mv in random_moves(Game::RajaPasu, Mode::Single, Side::South, 1, 0) {
        rec.push(mv).unwrap();
    }
    let mut g = setup.game_state(Mode::Match).unwrap();
    let mut rng = Rng::new(3);
    for _ in 0..6 {
        if g.is_over() {
            break;
        }
        if g.is_round_over() {
            g.next_round();
        }
        let legal = g.legal_moves();
        let mv = legal.nth(rng.below(legal.len() as u32) as usize).unwrap();
        g.play(mv).unwrap();
        rec.push(mv).unwrap();
    }
    let text = rec.to_string();
    assert!(
        text.contains("[Position \"x,7,7,7,7,7,7/7,7,7,7,7,7,7 3 4 S 2 raja-pasu\"]"),
        "{text}"
    );
    let back = Record::parse(&text).unwrap();
    assert_eq!(back, rec);
    assert_eq!(back.to_string(), text);
    assert_eq!(back.start_state().round(), 2);
    assert_eq!(back.moves()[0].round, 2);
    // A marker for the starting round is accepted and dropped.
    let with_marker = text.replacen("\n\n1. ", "\n\nR2 1. ", 1);
    assert_eq!(Record::parse(&with_marker).unwrap(), rec);
}

#[test]
fn round_markers_must_stand_exactly_where_rounds_begin() {
    let game = Game::WalakPussa;
    let moves = random_moves(game, Mode::Match, Side::South, 11, 5000);
    let rec = Record::from_moves(game, Mode::Match, Side::South, &moves).unwrap();
    assert!(
        rec.state().round() >= 2,
        "the test needs a match of two rounds or more"
    );
    let text = rec.to_string();
    // Without the marker.
    let missing = text.replacen("R2 ", "", 1);
    let (_, _, msg) = syntax_error(&missing);
    assert!(
        msg.contains("round 2 starts with this move: write R2"),
        "{msg}"
    );
    // With the wrong number.
    let wrong = text.replacen("R2 ", "R3 ", 1);
    let (_, _, msg) = syntax_error(&wrong);
    assert!(
        msg.contains("round marker R3, but this move is in round 2"),
        "{msg}"
    );
    // In the middle of round 1.
    let early = text
        .replacen("1. ", "1. R1 ", 2)
        .replacen("1. R1 ", "1. ", 1);
    let (line, column, msg) = syntax_error(&early);
    assert!(msg.contains("round 1 is already being played"), "{msg}");
    assert_eq!(
        line,
        early.lines().position(|l| l.contains("R1")).unwrap() + 1
    );
    assert!(column > 1);
    // A marker at the end.
    let (_, _, msg) = syntax_error(&text.replace(
        &format!(" {}\n", rec.result()),
        &format!(" R9 {}\n", rec.result()),
    ));
    assert!(msg.contains("R9"), "{msg}");
}

#[test]
fn an_illegal_move_is_refused_with_its_number_place_and_reason() {
    // Move 3 is North's a, but South is to move.
    let text = "[Game \"walak-pussa\"]\n\n1. A d 2. a *\n";
    match Record::parse(text) {
        Err(RecordError::Move {
            at,
            number,
            mv,
            reason,
            ..
        }) => {
            assert_eq!(at, Some((3, 11)));
            assert_eq!(number, 3);
            assert_eq!(mv, h('a'));
            assert_eq!(
                reason,
                IllegalReason::NotYourHole {
                    to_move: Side::South
                }
            );
        }
        other => panic!("{other:?}"),
    }
    let e = Record::parse(text).unwrap_err().to_string();
    assert!(
        e.starts_with("line 3, column 11: move 2. a: not your hole"),
        "{e}"
    );
}

#[test]
fn moves_after_the_end_of_the_game_are_refused() {
    let moves = random_moves(Game::PasuPondi, Mode::Single, Side::South, 5, 5000);
    let rec = Record::from_moves(Game::PasuPondi, Mode::Single, Side::South, &moves).unwrap();
    assert!(rec.state().is_over());
    let mut more = rec.clone();
    let err = more.push(h('A')).unwrap_err();
    assert!(
        matches!(
            err,
            RecordError::Move {
                reason: IllegalReason::GameOver { .. },
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(more, rec, "a refused move leaves the record unchanged");
    let text = rec
        .to_string()
        .replace(&format!(" {}\n", rec.result()), " A *\n");
    assert!(matches!(
        Record::parse(&text),
        Err(RecordError::Move {
            reason: IllegalReason::GameOver { .. },
            ..
        })
    ));
}

#[test]
fn the_result_must_agree_with_the_moves_and_the_tag() {
    let moves = random_moves(Game::RajaPasu, Mode::Single, Side::South, 2, 5000);
    let mut rec = Record::from_moves(Game::RajaPasu, Mode::Single, Side::South, &moves).unwrap();
    let actual = rec.result();
    assert_ne!(actual, RecordResult::Unfinished);
    let wrong = if actual == RecordResult::SouthWins {
        RecordResult::NorthWins
    } else {
        RecordResult::SouthWins
    };
    assert_eq!(
        rec.set_result(wrong),
        Err(RecordError::Result {
            given: wrong,
            actual
        })
    );
    let text = rec.to_string();
    let bad_token = text.replace(&format!(" {actual}\n"), &format!(" {wrong}\n"));
    let (_, _, msg) = syntax_error(&bad_token);
    assert_eq!(
        msg,
        format!("result {wrong}, but the moves end the game with {actual}")
    );
    let bad_tag = text.replace(
        &format!("[Result \"{actual}\"]"),
        &format!("[Result \"{wrong}\"]"),
    );
    let (_, _, msg) = syntax_error(&bad_tag);
    assert_eq!(
        msg,
        format!("the result token is {actual}, but tag Result says {wrong}")
    );
    let both_wrong = bad_token.replace(
        &format!("[Result \"{actual}\"]"),
        &format!("[Result \"{wrong}\"]"),
    );
    let (_, _, msg) = syntax_error(&both_wrong);
    assert!(msg.contains("the moves end the game with"), "{msg}");

    // An unfinished game may carry a decided result (a resignation).
    let mut short =
        Record::from_moves(Game::RajaPasu, Mode::Single, Side::South, &moves[..3]).unwrap();
    short.set_tag("Termination", "North resigned").unwrap();
    short.set_result(RecordResult::SouthWins).unwrap();
    let text = short.to_string();
    assert!(text.ends_with(" 1-0\n"), "{text}");
    assert_eq!(Record::parse(&text).unwrap(), short);
}

/// A result token that contradicts the moves is named as such, whatever the `Result` tag says:
/// the moves are checked first, so a tag of `*` does not turn it into a false "the moves end
/// with 0-1", and a tag that agrees with the wrong token gets the same message.
#[test]
fn a_result_token_against_the_moves_is_named_before_the_tag() {
    // These moves end the game with 1-0 (South 74-24).
    let moves = "1. C d 2. D c 3. F e 4. D b 5. C a 6. D";
    let rec = Record::parse(&format!("[Game \"raja-pasu\"]\n\n{moves} *\n"));
    assert!(
        rec.is_err(),
        "the moves end the game, so * contradicts them"
    );
    for tag in ["*", "0-1", "1-0", "1/2-1/2"] {
        let text = format!("[Game \"raja-pasu\"]\n[Result \"{tag}\"]\n\n{moves} 0-1\n");
        assert_eq!(
            syntax_error(&text),
            (
                4,
                41,
                "result 0-1, but the moves end the game with 1-0".to_string()
            ),
            "tag {tag}"
        );
    }
    // The right token with a wrong tag names the tag.
    let text = format!("[Game \"raja-pasu\"]\n[Result \"*\"]\n\n{moves} 1-0\n");
    assert_eq!(
        syntax_error(&text),
        (
            4,
            41,
            "the result token is 1-0, but tag Result says *".to_string()
        )
    );
    // A decided token of an unfinished game (a resignation) against a different tag.
    let (_, _, msg) = syntax_error("[Game \"walak-pussa\"]\n[Result \"1-0\"]\n1. A 0-1");
    assert_eq!(msg, "the result token is 0-1, but tag Result says 1-0");
}

#[test]
fn managed_and_malformed_tags_are_refused_by_the_builder() {
    let mut rec = Record::new(Game::PasuPondi6, Mode::Single, Side::South);
    for name in ["Game", "Mode", "First", "Position", "Result"] {
        assert!(
            matches!(rec.set_tag(name, "x"), Err(RecordError::Tag { .. })),
            "{name}"
        );
    }
    for name in ["", "2x", "a b", "a]"] {
        assert!(
            matches!(rec.set_tag(name, "x"), Err(RecordError::Tag { .. })),
            "{name:?}"
        );
    }
    rec.set_tag("Site", "line\nbreak").unwrap();
    assert_eq!(rec.tag("Site"), Some("line break"));
}

#[test]
fn malformed_text_is_refused_with_line_and_column() {
    let cases: &[(&str, (usize, usize), &str)] = &[
        ("", (1, 1), "missing [Game"),
        ("1. A *", (1, 1), "missing [Game"),
        ("[Game \"chess\"]\n*", (1, 1), "unknown game 'chess'"),
        ("[Game \"walak-pussa\"]\n[Mode \"league\"]\n*", (2, 1), "single or match"),
        ("[Game \"walak-pussa\"]\n[First \"W\"]\n*", (2, 1), "S or N"),
        ("[Game \"walak-pussa\"]\n[Result \"2-0\"]\n*", (2, 1), "1-0, 0-1"),
        ("[Game \"walak-pussa\"]\n[Game \"raja-pasu\"]\n*", (2, 1), "appears twice"),
        ("[Game \"walak-pussa\n*", (1, 7), "not closed"),
        ("[Game walak-pussa]\n*", (1, 7), "expected '\"'"),
        ("[Game \"walak-pussa\" x]\n*", (1, 21), "expected ']'"),
        ("[Game \"wa\\lak\"]\n*", (1, 11), "backslash"),
        ("[ \"walak-pussa\"]\n*", (1, 3), "tag name"),
        ("[Game \"walak-pussa\"]\n1. A {open", (2, 6), "comment not closed"),
        ("[Game \"walak-pussa\"]\n1. A } *", (2, 6), "'}' without"),
        ("[Game \"walak-pussa\"]\n1. A [Date \"x\"] *", (2, 6), "tags belong before"),
        ("[Game \"walak-pussa\"]\n1. H *", (2, 4), "'H' is not a move"),
        ("[Game \"walak-pussa\"]\n1. Ad *", (2, 4), "'Ad' is not a move"),
        ("[Game \"walak-pussa\"]\n1.. A *", (2, 1), "move number"),
        ("[Game \"walak-pussa\"]\n1. A Rx *", (2, 6), "round marker"),
        ("[Game \"walak-pussa\"]\n1. A R0 *", (2, 6), "round marker"),
        ("[Game \"walak-pussa\"]\n1. A R99999999999 *", (2, 6), "round marker"),
        ("[Game \"walak-pussa\"]\n1. A R2 R3 d *", (2, 9), "two round markers"),
        ("[Game \"walak-pussa\"]\n1. A * d", (2, 8), "nothing may follow"),
        ("[Game \"walak-pussa\"]\n1. A * *", (2, 8), "nothing may follow"),
        ("[Game \"walak-pussa\"]\n1. A *\n\n[Game \"walak-pussa\"]\n1. B *", (4, 1), "a second game starts here"),
        ("[Game \"walak-pussa\"]\n[Aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa \"x\"]\n*", (2, 73), "longer than 64 characters"),
        ("[Game \"walak-pussa\"]\n[Result \"1-0\"]\n1. A 0-1", (3, 6), "tag Result says 1-0"),
        ("[Game \"walak-pussa\"]\n[Position \"7,7,7,7,7,7,7/7,7,7,7,7,7,7 0 0 S 1 raja-pasu\"]\n*", (2, 1), "position is for raja-pasu"),
        ("[Game \"walak-pussa\"]\n[Position \"4,4,4,4,4,4,4/4,4,4,4,4,4,5 0 0 S 1 walak-pussa\"]\n*", (2, 1), "add up to 57"),
        ("[Game \"walak-pussa\"]\n[First \"S\"]\n[Position \"4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0 N 1 walak-pussa\"]\n*", (3, 1), "tag First says S"),
        ("[Game \"walak-pussa\"]\n1. A R2 1... d *", (2, 6), "but this move is in round 1"),
    ];
    for (text, at, needle) in cases {
        let (line, column, msg) = syntax_error(text);
        assert!(msg.contains(needle), "{text:?}: {msg:?} lacks {needle:?}");
        assert_eq!((line, column), *at, "{text:?}: {msg}");
    }
}

#[test]
fn an_endless_move_in_a_record_is_refused() {
    // From this Walak-pussa position South's C sows for ever (found by a random search).
    let pos = "0,1,1,0,1,0,1/2,1,0,2,1,0,1 45 0 S 1 walak-pussa";
    let text = format!("[Game \"walak-pussa\"]\n[Position \"{pos}\"]\n\n1. C *\n");
    match Record::parse(&text) {
        Err(
            e @ RecordError::Move {
                number: 1,
                reason: IllegalReason::Endless,
                ..
            },
        ) => {
            assert!(
                e.to_string()
                    .starts_with("line 4, column 4: move 1. C: endless sowing"),
                "{e}"
            );
        }
        other => panic!("{other:?}"),
    }
    // The other moves from there are fine.
    assert!(Record::parse(&text.replace("1. C", "1. B")).is_ok());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Any text at all: an error or a record, never a panic; a record read writes back stably.
    #[test]
    fn parsing_never_panics(text in "\\PC{0,200}") {
        if let Ok(rec) = Record::parse(&text) {
            let out = rec.to_string();
            prop_assert_eq!(Record::parse(&out).unwrap().to_string(), out);
        }
    }

    /// Text near a valid record (one character changed, inserted or removed): never a panic.
    #[test]
    fn mutated_records_never_panic(seed in 0u64..1000, at in 0usize..2000, op in 0u8..3, c in "[\\[\\]{}\"\\\\ A-Ga-gR0-9.*/\n-]") {
        let moves = random_moves(Game::ALL[(seed % 4) as usize], Mode::Match, Side::South, seed, 60);
        let rec = Record::from_moves(Game::ALL[(seed % 4) as usize], Mode::Match, Side::South, &moves).unwrap();
        let mut chars: Vec<char> = rec.to_string().chars().collect();
        let at = at % (chars.len() + 1);
        let c = c.chars().next().unwrap();
        match op {
            0 if at < chars.len() => chars[at] = c,
            1 => chars.insert(at, c),
            _ if at < chars.len() => { chars.remove(at); }
            _ => {}
        }
        let text: String = chars.into_iter().collect();
        if let Ok(back) = Record::parse(&text) {
            let out = back.to_string();
            prop_assert_eq!(Record::parse(&out).unwrap().to_string(), out);
        }
    }

    /// Records made of record-like pieces in any order: never a panic, and what reads writes
    /// back stably.
    #[test]
    fn token_soup_never_panics(pieces in proptest::collection::vec(prop_oneof![
        Just("[Game \"walak-pussa\"]\n".to_string()),
        Just("[Game \"pasu-pondi\"]\n".to_string()),
        Just("[Mode \"match\"]\n".to_string()),
        Just("[First \"N\"]\n".to_string()),
        Just("[Result \"1-0\"]\n".to_string()),
        Just("[Position \"0,1,1,0,1,0,1/2,1,0,2,1,0,1 45 0 S 1 walak-pussa\"]\n".to_string()),
        Just("[Event \"a \\\" b\"]".to_string()),
        "[A-Ga-g]",
        "[0-9]{1,3}\\.{1,3}",
        "R[0-9]{1,2}",
        "\\{[a-z ]{0,8}\\}",
        Just("*".to_string()),
        Just("1-0".to_string()),
        Just("1/2-1/2".to_string()),
        Just("{".to_string()),
        Just("\"".to_string()),
        Just("[".to_string()),
    ], 0..40), seps in proptest::collection::vec(prop_oneof![Just(" "), Just("\n"), Just("")], 40)) {
        let text: String = pieces.iter().zip(seps.iter().cycle()).map(|(p, s)| format!("{p}{s}")).collect();
        if let Ok(rec) = Record::parse(&text) {
            let out = rec.to_string();
            let back = Record::parse(&out).unwrap();
            prop_assert_eq!(&back, &rec);
            prop_assert_eq!(back.to_string(), out);
        }
    }

    /// Random games of every kind: write, read, write gives the same text and the same record.
    #[test]
    fn random_records_round_trip(seed in 0u64..10_000, g in 0usize..4, matchmode: bool, north: bool, len in 0usize..400) {
        let game = Game::ALL[g];
        let mode = if matchmode { Mode::Match } else { Mode::Single };
        let first = if north { Side::North } else { Side::South };
        let moves = random_moves(game, mode, first, seed, len);
        let rec = Record::from_moves(game, mode, first, &moves).unwrap();
        let text = rec.to_string();
        let back = Record::parse(&text).unwrap();
        prop_assert_eq!(&back, &rec);
        prop_assert_eq!(back.to_string(), text);
    }
}

#[test]
fn errors_name_a_move_by_the_records_own_number_and_round() {
    // A Raja Pasu single game that ends after South's 6. C (North has no move).
    let game = "1. G e 2. D c 3. B g 4. E f 5. E g 6. C";
    let text = format!("[Game \"raja-pasu\"]\n\n{game} 7. D *\n");
    let e = Record::parse(&text).unwrap_err();
    assert!(matches!(e, RecordError::Move { number: 12, .. }), "{e:?}");
    assert!(e.to_string().contains("move 7. D: the game is over"), "{e}");
    // A round marker after a single game's end says the game is over, not "round 1".
    let text = format!("[Game \"raja-pasu\"]\n\n{game} R2 1. D *\n");
    let e = Record::parse(&text).unwrap_err().to_string();
    assert!(
        e.contains("round marker R2, but the game is over (a single game has one round)"),
        "{e}"
    );
    // In a match the same moves end round 1; a bad move of round 2 is named with its marker.
    let text = format!("[Game \"raja-pasu\"]\n[Mode \"match\"]\n\n{game}\nR2 1. D f 2. d *\n");
    let e = Record::parse(&text).unwrap_err().to_string();
    assert!(e.contains("move R2 2. d:"), "{e}");
}

#[test]
fn a_record_without_a_result_token_reads_as_unfinished() {
    let rec = Record::parse("[Game \"raja-pasu\"]\n\n1. G e\n").unwrap();
    assert_eq!(rec.result(), RecordResult::Unfinished);
    assert_eq!(rec.moves().len(), 2);
}

#[test]
fn a_token_written_like_a_result_is_refused_as_a_result() {
    for bad in ["2-0", "1-1", "0-2", "1/2-0", "3-1"] {
        let text = format!("[Game \"walak-pussa\"]\n\n1. A d {bad}\n");
        let (line, column, message) = syntax_error(&text);
        assert_eq!((line, column), (3, 8), "{bad}");
        assert_eq!(
            message,
            format!("'{bad}': a result is 1-0, 0-1, 1/2-1/2 or *")
        );
    }
    // A move number is still told as one.
    let (_, _, message) = syntax_error("[Game \"walak-pussa\"]\n\n1. A d 2.. *\n");
    assert!(message.contains("a move number is written"), "{message}");
}

#[test]
fn the_first_tag_takes_side_letters_in_either_case() {
    for (v, side) in [("n", Side::North), ("N", Side::North), ("s", Side::South)] {
        let text = format!("[Game \"walak-pussa\"]\n[First \"{v}\"]\n\n*\n");
        let rec = Record::parse(&text).unwrap_or_else(|e| panic!("{v}: {e}"));
        assert_eq!(rec.first(), side, "{v}");
        // Writers write capitals.
        assert!(rec
            .to_string()
            .contains(&format!("[First \"{}\"]", side.letter())));
    }
}

/// A record with no moves whose `Position` tag is already a finished game (a single game whose
/// round ended by repetition) reads with the result that position gives, and a result that
/// contradicts it names the Position tag, not "the moves".
#[test]
fn a_record_with_no_moves_from_a_finished_position_names_the_position_tag() {
    let record = |res: &str| {
        format!(
            "[Game \"raja-pasu\"]\n[Position \"0,0,0,0,0,0,0/0,0,0,0,0,0,0 65 33 N 1 raja-pasu S repetition\"]\n[Result \"{res}\"]\n\n{res}\n"
        )
    };
    let rec = Record::parse(&record("1-0")).unwrap();
    assert!(rec.state().is_over());
    assert_eq!(rec.state().winner(), Some(Some(Side::South)));
    assert_eq!(Record::parse(&rec.to_string()).unwrap(), rec);
    for wrong in ["*", "0-1", "1/2-1/2"] {
        let (_, _, message) = syntax_error(&record(wrong));
        assert_eq!(
            message,
            format!("result {wrong}, but the Position tag is a game that is already over with 1-0")
        );
    }
}

/// `First` is who moves first: from a `Position` whose round is over in a match, the next
/// round's starter, who plays the record's first move (writers wrote the position's side to
/// move, who never moves there: QA pass 21). Readers take both; writers write the first mover.
#[test]
fn from_a_position_whose_round_is_over_first_is_the_next_rounds_starter() {
    // Round 1 is over with North to move in the position; South took the leftovers and
    // starts round 2.
    let pos = "0,0,0,0,0,0,0/0,0,0,0,0,0,0 65 33 N 1 raja-pasu S";
    let setup: pussa_rules::Setup = pos.parse().unwrap();
    let rec = Record::from_setup(setup, Mode::Match).unwrap();
    assert_eq!(rec.first(), Side::South);
    assert!(rec.to_string().contains("[First \"S\"]"), "{rec}");
    for tag in ["S", "N"] {
        let text = format!(
            "[Game \"raja-pasu\"]\n[Mode \"match\"]\n[First \"{tag}\"]\n[Position \"{pos}\"]\n\nR2 1. A *\n"
        );
        let rec = Record::parse(&text).unwrap_or_else(|e| panic!("First {tag}: {e}"));
        assert_eq!(rec.first(), Side::South, "First {tag}");
        assert!(rec.to_string().contains("[First \"S\"]"), "{rec}");
    }
    // A single game from it is over at once: nobody moves, `First` stays the position's.
    let rec = Record::from_setup(setup, Mode::Single).unwrap();
    assert_eq!(rec.first(), Side::North);
    // Mid-round, the position's side to move and nothing else.
    let mid = "[Game \"raja-pasu\"]\n[First \"S\"]\n\
               [Position \"14,2,3,1,0,0,0/14,0,14,2,14,14,1 11 8 N 1 raja-pasu S\"]\n\n*\n";
    assert!(Record::parse(mid).is_err());
}
