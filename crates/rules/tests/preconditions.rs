//! What the unchecked constructors and helpers do outside their documented preconditions: the
//! panics their `# Panics` sections name, and the errors of their checked counterparts.

use pussa_rules::{Game, GameState, Hole, Mode, Position, Rng, Setup, SetupError, Side, MAX_ROUND};

#[test]
#[should_panic(expected = "Rng::below(0)")]
fn rng_below_zero_panics_with_a_message() {
    let _ = Rng::new(1).below(0);
}

#[test]
fn rng_below_one_is_zero() {
    let mut rng = Rng::new(1);
    assert!((0..100).all(|_| rng.below(1) == 0));
}

#[test]
#[should_panic(expected = "round 0 is outside 1..=1000000")]
fn from_position_refuses_round_zero() {
    let _ = GameState::from_position(Position::start(Game::RajaPasu), Mode::Match, 0, Side::South);
}

#[test]
#[should_panic(expected = "round 4294967295 is outside 1..=1000000")]
fn from_position_refuses_a_round_above_the_maximum() {
    let _ = GameState::from_position(
        Position::start(Game::RajaPasu),
        Mode::Match,
        u32::MAX,
        Side::South,
    );
}

/// At the maximum round a match still plays on: next_round counts on without overflow.
#[test]
fn a_match_set_up_in_the_last_round_plays_on() {
    let mut g = GameState::from_position(
        Position::start(Game::PasuPondi),
        Mode::Match,
        MAX_ROUND,
        Side::South,
    );
    let mut rng = Rng::new(3);
    while !g.is_over() && g.round() < MAX_ROUND + 3 {
        if g.is_round_over() {
            assert!(g.next_round());
            continue;
        }
        let moves: Vec<Hole> = g.legal_moves().collect();
        g.play(moves[rng.below(moves.len() as u32) as usize])
            .unwrap();
    }
    assert!(g.round() >= MAX_ROUND);
}

#[cfg(debug_assertions)]
#[test]
#[should_panic(expected = "a is not a candidate")]
fn play_unchecked_panics_on_a_non_candidate_in_debug_builds() {
    let mut p = Position::start(Game::WalakPussa);
    p.play(Hole::from_letter('A').unwrap()).unwrap();
    // North's a is empty now (its seeds were captured).
    let _ = p.play_unchecked(Hole::new(7).unwrap());
}

#[cfg(debug_assertions)]
#[test]
#[should_panic(expected = "overflow")]
fn from_parts_unchecked_beyond_its_precondition_overflows_in_debug_builds() {
    let mut p =
        Position::from_parts_unchecked(Game::RajaPasu, [255; 14], 0, [255, 255], Side::South);
    let _ = p.play(Hole::from_letter('A').unwrap());
}

#[test]
fn from_parts_unchecked_within_its_precondition_plays() {
    // 120 seeds: more than Raja Pasu's 98, within the documented 255.
    let mut p = Position::from_parts_unchecked(Game::RajaPasu, [8; 14], 0, [4, 4], Side::South);
    assert!(p.play(Hole::from_letter('A').unwrap()).is_ok());
}

#[test]
fn position_strings_name_a_round_above_the_maximum() {
    for round in [
        "2147483647",
        "4294967295",
        "99999999999999999999",
        "1000001",
    ] {
        let e = format!("4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0 S {round} walak-pussa")
            .parse::<Setup>()
            .unwrap_err();
        assert!(matches!(e, SetupError::RoundTooHigh(_)), "{round}: {e:?}");
        assert!(
            e.to_string().contains("is above the maximum 1000000"),
            "{round}: {e}"
        );
    }
    // The round is quoted as written, however long (it used to be read as 18446744073709551615).
    assert_eq!(
        "4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0 S 99999999999999999999 walak-pussa"
            .parse::<Setup>()
            .unwrap_err()
            .to_string(),
        "position: round 99999999999999999999 is above the maximum 1000000"
    );
    assert_eq!(
        "4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0 S 2147483647 walak-pussa"
            .parse::<Setup>()
            .unwrap_err()
            .to_string(),
        "position: round 2147483647 is above the maximum 1000000"
    );
    let ok: Setup = "4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0 S 1000000 walak-pussa"
        .parse()
        .unwrap();
    assert_eq!(ok.game_state(Mode::Match).unwrap().round(), MAX_ROUND);
    // A Setup built by hand is checked the same way.
    let mut s = ok;
    s.round = u32::MAX;
    assert_eq!(
        s.validate(),
        Err(SetupError::RoundTooHigh(u32::MAX.to_string()))
    );
    assert!(s.game_state(Mode::Match).is_err());
}

#[test]
fn a_round_padded_with_zeros_reads_as_holes_and_stores_do() {
    let start = "4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0 S";
    let padded: Setup = format!("{start} 0000000001 walak-pussa").parse().unwrap();
    assert_eq!(padded.round, 1);
    let padded: Setup = format!("{start} 000000000000000000000000002 walak-pussa")
        .parse()
        .unwrap();
    assert_eq!(padded.round, 2);
    // A padded round above the maximum is named as too high, written without its zeros.
    for round in ["00000000000000000000002000000", "0002000000"] {
        let e = format!("{start} {round} walak-pussa")
            .parse::<Setup>()
            .unwrap_err();
        assert!(matches!(e, SetupError::RoundTooHigh(_)), "{round}: {e:?}");
        assert_eq!(
            e.to_string(),
            "position: round 2000000 is above the maximum 1000000"
        );
    }
    // Only what is not digits is not a number.
    let e = format!("{start} 1x walak-pussa")
        .parse::<Setup>()
        .unwrap_err();
    assert!(e.to_string().contains("is not a number"), "{e}");
}

#[test]
fn a_setup_with_closed_bits_outside_the_holes_has_its_own_error() {
    let ok: Setup = "4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0 S 1 walak-pussa"
        .parse()
        .unwrap();
    for mask in [0x8000u16, 0x4000, 0xffff] {
        let mut s = ok;
        s.closed = mask;
        let e = s.validate().unwrap_err();
        assert_eq!(e, SetupError::ClosedMask(mask));
        assert!(e.to_string().contains("bits outside the 14 holes"), "{e}");
    }
}

#[test]
fn a_match_ends_drawn_at_the_last_round_so_its_position_reads_back() {
    let s: Setup = "0,0,0,0,0,0,1/0,0,0,0,0,0,2 28 25 S 1000000 walak-pussa"
        .parse()
        .unwrap();
    let mut g = s.game_state(Mode::Match).unwrap();
    for m in ["G", "a"] {
        if !g.is_round_over() {
            g.play(m.parse::<Hole>().unwrap()).unwrap();
        }
    }
    // Both can still fill holes, but no round 1000001 is laid out: the match is over, drawn.
    assert!(
        g.position().stores().iter().all(|&x| x >= 4),
        "{:?}",
        g.status()
    );
    assert!(g.is_over(), "{:?}", g.status());
    assert_eq!(g.winner(), Some(None));
    assert!(!g.next_round());
    assert_eq!(g.round(), MAX_ROUND);
    let text = Setup::from_state(&g).to_string();
    let back: Setup = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
    assert!(back.game_state(Mode::Match).unwrap().is_over(), "{text}");
}

/// A space inside the board splits it into two fields and moves every later field: the error
/// names the board and the space, not the field the game is then read from (`unknown game
/// '1'`), nor a count of fields.
#[test]
fn a_space_inside_the_board_is_named_as_such() {
    for (text, board) in [
        (
            "4,4,4,4,4,4,4/ 4,4,4,4,4,4,4 0 0 S 1 walak-pussa",
            "4,4,4,4,4,4,4/ 4,4,4,4,4,4,4",
        ),
        (
            "4,4,4,4,4,4,4 /4,4,4,4,4,4,4 0 0 S 1 walak-pussa",
            "4,4,4,4,4,4,4 /4,4,4,4,4,4,4",
        ),
        (
            "4,4,4, 4,4,4,4/4,4,4,4,4,4,4 0 0 S 1 walak-pussa N",
            "4,4,4, 4,4,4,4/4,4,4,4,4,4,4",
        ),
        (
            "  4, 4,4,4,4,4,4/4,4,4,4 ,4,4,4 0 0 S 1 walak-pussa",
            "4, 4,4,4,4,4,4/4,4,4,4 ,4,4,4",
        ),
    ] {
        let e = text.parse::<Setup>().unwrap_err();
        assert_eq!(e, SetupError::BoardSpace(board.to_string()), "{text}");
        assert_eq!(
            e.to_string(),
            format!(
                "position: the board '{board}' has a space in it: write the board without \
                 spaces, two rows of 7 holes split by '/' (4,4,4,4,4,4,4/4,4,4,4,4,4,4)"
            )
        );
    }
    // A row of the wrong length is named before the game field is read.
    assert_eq!(
        "4,4,4,4,4,4,4/4,4,4,4,4,4 0 0 S 1 walak-pussa N".parse::<Setup>(),
        Err(SetupError::RowLength {
            side: Side::North,
            found: 6
        })
    );
    // Spaces between the fields are still free.
    assert!("4,4,4,4,4,4,4/4,4,4,4,4,4,4   0 0 S 1 walak-pussa"
        .parse::<Setup>()
        .is_ok());
}
