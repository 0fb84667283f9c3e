//! One test per rule of the contract (`rules-spec.md`), named after the rule. Positions are
//! written as position strings so each test reads as the rule it checks; the expected results
//! were worked out by hand from the contract. (The worked first moves are in `worked_moves.rs`.)
mod common;
mod naive;

use common::{hole, pos, state};
use pussa_rules::{
    EndReason, Event, Game, GameState, Hole, IllegalReason, Mode, Moves, Position, Setup, Side,
    Status,
};

/// Plays `mv` on the position string `s`, returning the position string after it and the trace.
fn after(s: &str, mv: char) -> (String, Vec<Event>) {
    let setup: Setup = s.parse().unwrap();
    let mut p = setup.position_ignoring_reachability().unwrap();
    let mut ev = Vec::new();
    p.play_traced(hole(mv), &mut ev)
        .unwrap_or_else(|e| panic!("{s}: {e}"));
    (Setup::from_position(&p, setup.round).to_string(), ev)
}

/// The holes of the Lift events, as letters.
fn lifts(ev: &[Event]) -> String {
    ev.iter()
        .filter_map(|e| match e {
            Event::Lift { hole, .. } => Some(hole.letter()),
            _ => None,
        })
        .collect()
}

/// The holes of the Drop events, as letters.
fn drops(ev: &[Event]) -> String {
    ev.iter()
        .filter_map(|e| match e {
            Event::Drop { hole, .. } => Some(hole.letter()),
            _ => None,
        })
        .collect()
}

/// Events without the drops: lifts, fours, the stop, captures, in order.
fn skeleton(ev: &[Event]) -> Vec<String> {
    ev.iter()
        .filter_map(|e| match *e {
            Event::Drop { .. } => None,
            Event::Lift { hole, seeds, .. } => Some(format!("lift {hole} {seeds}")),
            Event::Four { hole, owner } => Some(format!("four {hole} {}", owner.letter())),
            Event::Stop { last, empty } => Some(format!("stop {last} {empty}")),
            Event::Capture {
                hole,
                seeds,
                by,
                chained,
            } => Some(format!(
                "{} {hole} {seeds} {}",
                if chained { "chain" } else { "capture" },
                by.letter()
            )),
            other => Some(format!("{other:?}")),
        })
        .collect()
}

fn plays(g: &mut GameState, moves: &str) {
    for (k, c) in moves.chars().enumerate() {
        assert!(!g.is_round_over(), "round over before move {k} ({c})");
        g.play(hole(c)).unwrap_or_else(|e| panic!("move {k}: {e}"));
    }
}

fn over(g: &GameState) -> (EndReason, [u8; 2], Option<Side>) {
    match g.status() {
        Status::Over { result, winner } => (result.reason, result.swept, winner),
        s => panic!("not over: {s:?}"),
    }
}

fn round_over(g: &GameState) -> (EndReason, [u8; 2], Side) {
    match g.status() {
        Status::RoundOver {
            result,
            next_starter,
        } => (result.reason, result.swept, next_starter),
        s => panic!("round not over: {s:?}"),
    }
}

fn setup_of(g: &GameState) -> String {
    Setup::from_state(g).to_string()
}

// ---- Board, seats, names ----

#[test]
fn holes_are_named_a_to_g_for_south_and_lowercase_for_north() {
    let names: String = Hole::ALL.iter().map(|h| h.letter()).collect();
    assert_eq!(names, "ABCDEFGabcdefg");
    assert_eq!(hole('A').owner(), Side::South);
    assert_eq!(hole('g').owner(), Side::North);
    assert!(Hole::from_letter('H').is_err());
}

#[test]
fn south_moves_first_by_default() {
    for game in Game::ALL {
        assert_eq!(Position::start(game).to_move(), Side::South);
        let s = Position::start(game).board();
        assert!(s.iter().all(|&x| x == game.seeds_per_hole()));
    }
}

#[test]
fn counterclockwise_sowing_goes_up_the_ring_and_wraps_from_g_to_a() {
    // North sows g → A, B; C is empty, so sowing ends and North takes D across it.
    let (s, ev) = after("0,0,0,3,0,0,0/0,0,0,0,0,0,2 26 25 N 1 walak-pussa", 'g');
    assert_eq!(drops(&ev), "AB");
    assert_eq!(s, "1,1,0,0,0,0,0/0,0,0,0,0,0,0 26 28 S 1 walak-pussa");
}

#[test]
fn clockwise_sowing_in_pasu_pondi_goes_down_the_ring_and_wraps_from_a_to_g() {
    // South sows D → C, B; A is empty: sowing ends and South takes g across it.
    let (s, ev) = after("0,0,0,2,0,0,0/0,0,0,0,0,0,3 32 33 S 1 pasu-pondi", 'D');
    assert_eq!(drops(&ev), "CB");
    assert_eq!(skeleton(&ev), ["lift D 2", "stop B A", "capture g 3 S"]);
    assert_eq!(s, "0,1,1,0,0,0,0/0,0,0,0,0,0,0 35 33 N 1 pasu-pondi");
}

// ---- One move ----

#[test]
fn relay_lifts_from_the_hole_after_the_landing_hole_when_the_landing_hole_was_full() {
    // A (2) → B, C. C held 3 (now 4: no fours in Walak-pussa); the relay lifts D, not C.
    let (s, ev) = after("2,0,3,1,0,0,0/0,0,0,0,0,0,0 25 25 S 1 walak-pussa", 'A');
    assert_eq!(lifts(&ev), "AD");
    assert_eq!(drops(&ev), "BCE");
    assert_eq!(s, "0,1,4,0,1,0,0/0,0,0,0,0,0,0 25 25 N 1 walak-pussa");
}

#[test]
fn relay_lifts_from_the_hole_after_the_landing_hole_when_the_landing_hole_was_empty() {
    // A (1) → B (empty before); C holds 2: relay from C → D, E; F empty: stop; G empty.
    let (s, ev) = after("1,0,2,0,0,0,0/0,0,0,0,0,0,0 26 27 S 1 walak-pussa", 'A');
    assert_eq!(skeleton(&ev), ["lift A 1", "lift C 2", "stop E F"]);
    assert_eq!(s, "0,1,0,1,1,0,0/0,0,0,0,0,0,0 26 27 N 1 walak-pussa");
    assert!(matches!(ev[2], Event::Lift { relay: true, .. }));
}

#[test]
fn sowing_ends_when_the_hole_after_the_landing_hole_is_empty() {
    let (s, ev) = after("0,2,0,0,0,0,0/0,0,0,0,0,0,0 48 48 S 1 raja-pasu", 'B');
    assert_eq!(skeleton(&ev), ["lift B 2", "stop D E"]);
    assert_eq!(s, "0,0,1,1,0,0,0/0,0,0,0,0,0,0 48 48 N 1 raja-pasu");
}

#[test]
fn a_lap_of_14_or_more_seeds_does_not_skip_the_starting_hole() {
    // 15 seeds from A: B..g (13), then A itself (14th) and B (15th).
    let (s, ev) = after("15,0,0,0,0,0,0/0,0,0,0,0,0,0 20 21 S 1 walak-pussa", 'A');
    assert_eq!(&drops(&ev)[..15], "BCDEFGabcdefgAB");
    assert!(
        matches!(ev[14], Event::Drop { hole, now: 1 } if hole == Hole::from_letter('A').unwrap())
    );
    // The rest: relays C, E, G, b, d, f, A; stop at C; South takes D, then F, a, c, e, g by
    // the chain, which stops before B, the landing hole.
    assert_eq!(lifts(&ev), "ACEGbdfA");
    assert_eq!(s, "0,3,0,0,0,0,0/0,0,0,0,0,0,0 32 21 N 1 walak-pussa");
}

#[test]
fn a_lap_of_14_or_more_seeds_in_raja_pasu_passes_the_starting_hole_too() {
    // 14 seeds from G: a..g, A..F, then G itself gets the 14th seed.
    let (_, ev) = after("0,0,0,0,0,0,14/0,0,0,0,0,0,0 42 42 S 1 raja-pasu", 'G');
    assert_eq!(&drops(&ev)[..14], "abcdefgABCDEFG");
}

#[test]
fn a_four_made_by_the_last_seed_of_a_lap_is_taken_then_the_relay_goes_on() {
    // A (3) → B, C, D; D reaches 4 with the lap's last seed: South takes it. The hole after D
    // (E, 2 seeds) is lifted: → F, G; a is empty: stop.
    let (s, ev) = after("3,0,0,3,2,0,0/0,0,0,0,0,0,0 45 45 S 1 raja-pasu", 'A');
    assert_eq!(
        skeleton(&ev),
        ["lift A 3", "four D S", "lift E 2", "stop G a"]
    );
    assert_eq!(s, "0,1,1,0,0,1,1/0,0,0,0,0,0,0 49 45 N 1 raja-pasu");
}

#[test]
fn a_four_made_by_the_last_seed_of_a_lap_is_taken_then_sowing_stops_and_captures() {
    // F (2) → G, a; a reaches 4 with the last seed: North (a's owner) takes it. b is empty:
    // sowing ends; South takes c (5) across it.
    let (s, ev) = after("0,0,0,0,0,2,0/3,0,5,0,0,0,0 44 44 S 1 raja-pasu", 'F');
    assert_eq!(
        skeleton(&ev),
        ["lift F 2", "four a N", "stop a b", "capture c 5 S"]
    );
    assert_eq!(s, "0,0,0,0,0,0,1/0,0,0,0,0,0,0 49 48 N 1 raja-pasu");
}

#[test]
fn fours_in_either_row_go_to_the_rows_owner() {
    // Raja Pasu: E (3) → F (4: South's), G, a (4: North's).
    let (s, ev) = after("0,0,0,0,3,3,0/3,0,0,0,0,0,0 45 44 S 1 raja-pasu", 'E');
    assert_eq!(
        skeleton(&ev),
        ["lift E 3", "four F S", "four a N", "stop a b"]
    );
    assert_eq!(s, "0,0,0,0,0,0,1/0,0,0,0,0,0,0 49 48 N 1 raja-pasu");
    // Pasu Pondi, clockwise: C (3) → B (4: South's), A, g (4: North's).
    let (s, ev) = after("0,3,3,0,0,0,0/0,0,0,0,0,0,3 31 30 S 1 pasu-pondi", 'C');
    assert_eq!(
        skeleton(&ev),
        ["lift C 3", "four B S", "four g N", "stop g f"]
    );
    assert_eq!(s, "1,0,0,0,0,0,0/0,0,0,0,0,0,0 35 34 N 1 pasu-pondi");
    // North moving makes a four in South's row: South takes it.
    let (s, _) = after("3,0,0,0,0,0,0/0,0,0,0,0,0,1 45 49 N 1 raja-pasu", 'g');
    assert_eq!(s, "0,0,0,0,0,0,0/0,0,0,0,0,0,0 49 49 S 1 raja-pasu");
}

#[test]
fn no_fours_in_walak_pussa() {
    let (s, ev) = after("0,0,0,0,3,3,0/3,0,0,0,0,0,0 23 24 S 1 walak-pussa", 'E');
    assert!(!ev.iter().any(|e| matches!(e, Event::Four { .. })));
    // F 4 and a 4 stay; the hand ends in a, b is empty: stop; c is empty.
    assert_eq!(s, "0,0,0,0,0,4,1/4,0,0,0,0,0,0 23 24 N 1 walak-pussa");
}

#[test]
fn fours_and_the_final_capture_happen_in_one_move_in_seed_order() {
    // Raja Pasu: G (3) → a (4: North's, taken), b, c; d empty: stop; South takes e.
    // The four is taken before the capture, and the capture sees the board after it.
    let (s, ev) = after("0,0,0,0,0,0,3/3,0,0,0,6,0,0 43 43 S 1 raja-pasu", 'G');
    assert_eq!(
        skeleton(&ev),
        ["lift G 3", "four a N", "stop c d", "capture e 6 S"]
    );
    assert_eq!(s, "0,0,0,0,0,0,0/0,1,1,0,0,0,0 49 47 N 1 raja-pasu");
    // A (1) → B, which reaches 4 and goes to South at once; the hand is empty at B (now 0),
    // the hole after it, C, holds 2: relay C → D, E; F is empty: stop; South takes G.
    let (s, ev) = after("1,3,2,0,0,0,5/0,0,0,0,0,0,0 43 44 S 1 raja-pasu", 'A');
    assert_eq!(
        skeleton(&ev),
        [
            "lift A 1",
            "four B S",
            "lift C 2",
            "stop E F",
            "capture G 5 S"
        ]
    );
    assert_eq!(s, "0,0,0,1,1,0,0/0,0,0,0,0,0,0 52 44 N 1 raja-pasu");
}

#[test]
fn capture_across_the_empty_hole_takes_the_hole_after_it() {
    // Raja Pasu: F (1) → G; a is empty: South takes b, in North's row.
    let (s, ev) = after("0,0,0,0,0,1,0/0,5,0,0,0,0,0 46 46 S 1 raja-pasu", 'F');
    assert_eq!(skeleton(&ev), ["lift F 1", "stop G a", "capture b 5 S"]);
    assert_eq!(s, "0,0,0,0,0,0,1/0,0,0,0,0,0,0 51 46 N 1 raja-pasu");
    // And in the mover's own row.
    let (s, _) = after("1,0,0,3,0,0,0/0,0,0,0,0,0,0 26 26 S 1 walak-pussa", 'A');
    assert_eq!(s, "0,1,0,0,0,0,0/0,0,0,0,0,0,0 29 26 N 1 walak-pussa");
}

#[test]
fn no_capture_when_the_hole_after_the_empty_hole_is_empty() {
    let (s, ev) = after("1,0,0,0,2,0,0/0,0,0,0,0,0,0 26 27 S 1 walak-pussa", 'A');
    assert_eq!(skeleton(&ev), ["lift A 1", "stop B C"]);
    assert_eq!(s, "0,1,0,0,2,0,0/0,0,0,0,0,0,0 26 27 N 1 walak-pussa");
}

#[test]
fn no_capture_of_the_landing_hole_itself() {
    // Two open holes: G sows into g; the hole after g is G (empty); the hole after G is g, the
    // landing hole, which is never taken (m = h).
    for game in ["walak-pussa", "raja-pasu"] {
        let total = if game == "walak-pussa" { 56 } else { 98 };
        let s = format!("x,x,x,x,x,x,1/x,x,x,x,x,x,0 30 {} S 2 {game}", total - 31);
        let (after_s, ev) = after(&s, 'G');
        assert_eq!(skeleton(&ev), ["lift G 1", "stop g G"], "{game}");
        assert_eq!(
            after_s,
            format!("x,x,x,x,x,x,0/x,x,x,x,x,x,1 30 {} N 2 {game}", total - 31)
        );
    }
}

#[test]
fn chain_capture_in_walak_pussa_takes_every_hole_behind_an_empty_one() {
    // A (1) → B; C empty: take D (2); E empty: take F (3); G empty: take a (5); b is not empty:
    // the chain stops.
    let (s, ev) = after("1,0,0,2,0,3,0/5,1,0,0,0,0,0 22 22 S 1 walak-pussa", 'A');
    assert_eq!(
        skeleton(&ev),
        [
            "lift A 1",
            "stop B C",
            "capture D 2 S",
            "chain F 3 S",
            "chain a 5 S"
        ]
    );
    assert_eq!(s, "0,1,0,0,0,0,0/0,1,0,0,0,0,0 32 22 N 1 walak-pussa");
}

#[test]
fn chain_capture_stops_before_the_landing_hole() {
    // The 15-seed lap of A ends in B; the chain runs D, F, a, c, e, g round the ring and stops
    // at B, the landing hole, though B holds seeds and the hole before it is empty.
    let (s, ev) = after("15,0,0,0,0,0,0/0,0,0,0,0,0,0 20 21 S 1 walak-pussa", 'A');
    let sk = skeleton(&ev);
    assert_eq!(
        &sk[sk.len() - 7..],
        [
            "stop B C",
            "capture D 2 S",
            "chain F 2 S",
            "chain a 2 S",
            "chain c 2 S",
            "chain e 2 S",
            "chain g 2 S"
        ]
    );
    assert_eq!(s, "0,3,0,0,0,0,0/0,0,0,0,0,0,0 32 21 N 1 walak-pussa");
}

#[test]
fn chain_capture_goes_round_the_ring() {
    // North: e (1) → f; g empty: take A (past g → A); then C, E, G, b, d, round the ring,
    // stopping before f, the landing hole.
    let (s, ev) = after("1,0,1,0,1,0,1/0,1,0,1,1,0,0 24 25 N 1 walak-pussa", 'e');
    assert_eq!(
        skeleton(&ev),
        [
            "lift e 1",
            "stop f g",
            "capture A 1 N",
            "chain C 1 N",
            "chain E 1 N",
            "chain G 1 N",
            "chain b 1 N",
            "chain d 1 N"
        ]
    );
    assert_eq!(s, "0,0,0,0,0,0,0/0,0,0,0,0,1,0 24 31 S 1 walak-pussa");
}

#[test]
fn single_capture_only_in_raja_pasu_and_pasu_pondi() {
    // The chain pattern of the Walak-pussa test: only D is taken.
    let (s, ev) = after("1,0,0,2,0,3,0/5,1,0,0,0,0,0 43 43 S 1 raja-pasu", 'A');
    assert_eq!(skeleton(&ev), ["lift A 1", "stop B C", "capture D 2 S"]);
    assert_eq!(s, "0,1,0,0,0,3,0/5,1,0,0,0,0,0 45 43 N 1 raja-pasu");
    // Pasu Pondi, clockwise: G (1) → F; E empty: take D; C empty and B full, but no chain.
    let (s, ev) = after("0,3,0,2,0,0,1/0,0,0,0,0,0,5 30 29 S 1 pasu-pondi", 'G');
    assert_eq!(skeleton(&ev), ["lift G 1", "stop F E", "capture D 2 S"]);
    assert_eq!(s, "0,3,0,0,0,1,0/0,0,0,0,0,0,5 32 29 N 1 pasu-pondi");
}

/// Found by random search over Walak-pussa positions: South's `G` relays for ever (the state
/// "board, hole about to be lifted" recurs after about 120 laps).
const ENDLESS: &str = "6,0,6,5,2,5,1/5,4,3,2,1,0,7 8 1 S 1 walak-pussa N";

#[test]
fn an_endless_move_is_refused_and_never_offered() {
    let p = pos(ENDLESS);
    let b = hole('G');
    assert!(p.candidates().contains(b));
    assert!(!p.legal_moves().contains(b));
    assert_eq!(common::letters(p.legal_moves()), "ACDEF");
    let mut q = p;
    let err = q.play(b).unwrap_err();
    assert_eq!((err.mv, err.reason), (b, IllegalReason::Endless));
    assert_eq!(q, p, "the refused move changed the position");
    let msg = err.to_string();
    assert!(
        msg.contains("illegal move G") && msg.contains("endless"),
        "{msg}"
    );
    // The game state refuses it too and stays as it was.
    let mut g = state(ENDLESS, Mode::Single);
    let before = g.clone();
    assert_eq!(g.play(b).unwrap_err().reason, IllegalReason::Endless);
    assert_eq!(g, before);
    // The independent model agrees.
    let mut n = common::to_naive(&p);
    assert_eq!(n.play(b.index()), Err(naive::NIllegal::Endless));
}

#[test]
fn an_endless_move_really_recurs_in_its_trace() {
    // Replaying the trace of the refused move: the state (board, hole about to be lifted)
    // that ends the trace has been seen at an earlier lift, so the move is endless exactly,
    // not cut short by a cap.
    // `play_traced` reports nothing for an endless move (its trace is not kept, however long
    // the cycle); `try_play_unchecked` reports the laps sown until the recurrence was found.
    let p = pos(ENDLESS);
    let mut ev = Vec::new();
    assert_eq!(
        p.clone().try_play_unchecked(hole('G'), &mut ev),
        pussa_rules::Sowing::Endless
    );
    let nv = common::to_naive(&p);
    let mut board = p.board();
    let mut seen = Vec::new();
    let mut last = 0;
    for e in &ev {
        match *e {
            Event::Lift { hole, .. } => {
                seen.push((board, hole.index()));
                board[hole.index()] = 0;
            }
            Event::Drop { hole, .. } => {
                board[hole.index()] += 1;
                last = hole.index();
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    let next = nv.next(last);
    assert!(board[next] > 0);
    assert!(
        seen.contains(&(board, next)),
        "no recurrence in {} laps",
        seen.len()
    );
}

#[test]
fn an_endless_move_with_closed_holes_is_refused() {
    let p = pos("x,x,x,6,7,4,8/x,x,4,3,5,4,4 8 3 N 2 walak-pussa");
    assert_eq!(common::letters(p.candidates()), "cdefg");
    assert_eq!(common::letters(p.legal_moves()), "cdef");
    assert_eq!(
        p.clone().play(hole('g')).unwrap_err().reason,
        IllegalReason::Endless
    );
}

// ---- Illegal moves ----

#[test]
fn illegal_moves_name_the_move_and_the_reason_and_change_nothing() {
    let p = pos("x,x,0,4,4,4,4/4,4,4,4,4,4,4 12 0 S 2 walak-pussa");
    let cases = [
        (
            'a',
            IllegalReason::NotYourHole {
                to_move: Side::South,
            },
        ),
        ('A', IllegalReason::Closed),
        ('C', IllegalReason::Empty),
    ];
    for (c, reason) in cases {
        let mut q = p;
        let e = q.play(hole(c)).unwrap_err();
        assert_eq!((e.mv, e.reason), (hole(c), reason));
        assert!(
            e.to_string().starts_with(&format!("illegal move {c}: ")),
            "{e}"
        );
        assert_eq!(q, p);
    }
    // After the end of a match round: round over; after the end of a game: game over.
    let mut m = state(
        "1,0,0,0,3,0,0/0,0,0,0,0,0,0 27 25 S 1 walak-pussa",
        Mode::Match,
    );
    m.play(hole('A')).unwrap();
    assert_eq!(
        m.play(hole('a')).unwrap_err().reason,
        IllegalReason::RoundOver
    );
    let mut g = state(
        "1,0,0,0,3,0,0/0,0,0,0,0,0,0 27 25 S 1 walak-pussa",
        Mode::Single,
    );
    g.play(hole('A')).unwrap();
    let err = g.play(hole('a')).unwrap_err();
    assert_eq!(
        err.reason,
        IllegalReason::GameOver {
            winner: g.winner().unwrap()
        }
    );
    assert!(
        err.to_string()
            .starts_with("illegal move a: the game is over: "),
        "{err}"
    );
}

// ---- End of a round ----

#[test]
fn repetition_ends_the_round_and_each_takes_their_own_row() {
    // Found by random search: the shortest cycle, 14 moves, two seeds chasing each other.
    let start = "1,0,0,0,0,0,1/0,0,0,0,0,0,0 24 30 S 1 walak-pussa";
    let mut g = state(start, Mode::Single);
    plays(&mut g, "GaAbBcCdDeEfF");
    assert!(!g.is_round_over());
    plays(&mut g, "g");
    // The start position (A 1, G 1, South to move) recurs: South takes its row's 2.
    let (reason, swept, winner) = over(&g);
    assert_eq!(reason, EndReason::Repetition);
    assert_eq!(swept, [2, 0]);
    assert_eq!(g.position().stores(), [26, 30]);
    assert_eq!(winner, Some(Side::North));
}

#[test]
fn pasu_pondi_round_ends_when_every_seed_lies_in_one_row() {
    // A (1) → g (clockwise); f is empty: stop; e is empty. All seeds are now in North's row.
    let mut g = state(
        "1,0,0,0,0,0,0/0,0,0,3,0,0,0 33 33 S 1 pasu-pondi",
        Mode::Single,
    );
    g.play(hole('A')).unwrap();
    let (reason, swept, winner) = over(&g);
    assert_eq!(reason, EndReason::OneRow);
    assert_eq!(swept, [0, 4]);
    assert_eq!(winner, Some(Side::North));
    assert_eq!(g.position().seeds_on_board(), 0);
    // The same board in Raja Pasu goes on: North can move.
    let mut r = state(
        "1,0,0,0,0,0,0/0,0,0,3,0,0,0 47 47 S 1 raja-pasu",
        Mode::Single,
    );
    r.play(hole('A')).unwrap();
    assert!(!r.is_round_over());
}

#[test]
fn pasu_pondi_round_ends_when_the_seeds_left_lie_in_the_movers_row() {
    // B (1) → A; g is empty: South takes f, North's last seeds. Only A's seed is left.
    let mut g = state(
        "0,1,0,0,0,0,0/0,0,0,0,0,3,0 33 33 S 1 pasu-pondi",
        Mode::Single,
    );
    g.play(hole('B')).unwrap();
    assert_eq!(over(&g).0, EndReason::OneRow);
    assert_eq!(over(&g).1, [1, 0]);
    assert_eq!(g.position().stores(), [37, 33]);
}

#[test]
fn pasu_pondi_round_ends_when_no_seed_is_left() {
    // B (1) → A, which reaches 4: South takes it; g is empty: South takes f. The board is empty.
    let mut g = state(
        "3,1,0,0,0,0,0/0,0,0,0,0,3,0 32 31 S 1 pasu-pondi",
        Mode::Single,
    );
    g.play(hole('B')).unwrap();
    assert_eq!(over(&g).0, EndReason::OneRow);
    assert_eq!(over(&g).1, [0, 0]);
    assert_eq!(g.position().stores(), [39, 31]);
}

#[test]
fn no_legal_move_in_walak_pussa_and_raja_pasu_the_other_takes_all() {
    // A (1) → B; C empty; D empty: no capture. North has no seeds: South takes all 4.
    for (s, stores) in [
        (
            "1,0,0,0,3,0,0/0,0,0,0,0,0,0 27 25 S 1 walak-pussa",
            [31, 25],
        ),
        ("1,0,0,0,3,0,0/0,0,0,0,0,0,0 47 47 S 1 raja-pasu", [51, 47]),
    ] {
        let mut g = state(s, Mode::Single);
        g.play(hole('A')).unwrap();
        let (reason, swept, winner) = over(&g);
        assert_eq!(
            reason,
            EndReason::NoLegalMove {
                stuck: Side::North,
                endless: Moves::EMPTY,
            },
            "{s}"
        );
        assert_eq!(swept, [4, 0]);
        assert_eq!(g.position().stores(), stores);
        assert_eq!(winner, Some(Side::South));
    }
}

#[test]
fn a_player_whose_only_moves_are_endless_is_stuck_and_the_other_takes_all() {
    // North's only hole, g, relays for ever: North cannot move; South takes every seed,
    // North's 11 in g among them.
    let g = state(
        "x,x,x,x,x,14,9/x,x,x,x,x,x,11 21 1 N 2 walak-pussa",
        Mode::Single,
    );
    let (reason, swept, _) = over(&g);
    // The reason names the endless hole that left North stuck.
    assert_eq!(
        reason,
        EndReason::NoLegalMove {
            stuck: Side::North,
            endless: Moves::from_mask(1 << hole('g').index()),
        }
    );
    assert_eq!(swept, [34, 0]);
}

#[test]
fn no_legal_move_in_pasu_pondi_each_takes_their_own_row() {
    // Found by random search: South's only hole, E, relays for ever, so South cannot move;
    // in Pasu Pondi each player then takes their own row.
    let s = "0,0,0,0,15,0,0/1,7,4,7,6,2,5 11 12 S 1 pasu-pondi";
    assert_eq!(
        pos(s).clone().play(hole('E')).unwrap_err().reason,
        IllegalReason::Endless
    );
    let g = state(s, Mode::Single);
    let (reason, swept, winner) = over(&g);
    assert_eq!(
        reason,
        EndReason::NoLegalMove {
            stuck: Side::South,
            endless: Moves::from_mask(1 << hole('E').index()),
        }
    );
    assert_eq!(swept, [15, 32]);
    assert_eq!(winner, Some(Side::North));
}

#[test]
fn end_of_round_one_row_rule_comes_before_no_legal_move() {
    // Pasu Pondi: a position with every seed in one row and North to move (who has no seed)
    // ends by the one-row rule, not by "no legal move".
    let g = state(
        "0,0,0,0,0,0,0/1,0,0,3,0,0,0 33 33 S 1 pasu-pondi",
        Mode::Single,
    );
    assert_eq!(over(&g).0, EndReason::OneRow);
    let g = state(
        "1,0,0,0,0,0,0/0,0,0,0,0,0,0 33 36 N 1 pasu-pondi",
        Mode::Single,
    );
    assert_eq!(over(&g).0, EndReason::OneRow);
    // Raja Pasu has no one-row rule: the same shape is "no legal move".
    let g = state(
        "1,0,0,0,0,0,0/0,0,0,0,0,0,0 48 49 N 1 raja-pasu",
        Mode::Single,
    );
    assert_eq!(
        over(&g).0,
        EndReason::NoLegalMove {
            stuck: Side::North,
            endless: Moves::EMPTY,
        }
    );
    assert_eq!(g.position().stores(), [49, 49]);
}

// ---- Closed holes ----

#[test]
fn closed_holes_are_skipped_when_sowing() {
    // Walak-pussa round 2: a and b are closed. G (3) → c, d, e.
    let (s, ev) = after("x,x,0,0,0,0,3/x,x,0,0,0,0,0 27 26 S 2 walak-pussa", 'G');
    assert_eq!(drops(&ev), "cde");
    assert_eq!(s, "x,x,0,0,0,0,0/x,x,1,1,1,0,0 27 26 N 2 walak-pussa");
    // And on the way round: g (3) → C, D, E, past the closed A and B.
    let (_, ev) = after("x,x,0,0,0,0,0/x,x,0,0,0,0,3 27 26 N 2 walak-pussa", 'g');
    assert_eq!(drops(&ev), "CDE");
    // Pasu Pondi closes from the right: D (3) clockwise → C, B, A, then f (g closed).
    let (_, ev) = after("0,0,0,4,0,0,x/0,0,0,0,0,0,x 33 33 S 2 pasu-pondi", 'D');
    assert_eq!(drops(&ev), "CBAf");
}

#[test]
fn closed_holes_are_never_empty_for_the_capture_test() {
    // F (1) → G. The next hole is b (a is closed), which holds 2: relay, not a capture of b
    // across the closed a.
    let (s, ev) = after("x,x,0,0,0,1,0/x,2,0,0,0,0,0 26 27 S 2 walak-pussa", 'F');
    assert_eq!(skeleton(&ev), ["lift F 1", "lift b 2", "stop d e"]);
    assert_eq!(s, "x,x,0,0,0,0,1/x,0,1,1,0,0,0 26 27 N 2 walak-pussa");
    // The empty hole is the next open one; the hole captured is the open one after it.
    let (s, ev) = after("x,x,0,0,1,0,0/x,x,3,0,0,0,0 26 26 S 2 walak-pussa", 'E');
    assert_eq!(skeleton(&ev), ["lift E 1", "stop F G", "capture c 3 S"]);
    assert_eq!(s, "x,x,0,0,0,1,0/x,x,0,0,0,0,0 29 26 N 2 walak-pussa");
}

// ---- Matches ----

#[test]
fn only_one_player_can_be_short_so_closed_holes_are_in_one_row() {
    // The holdings add up to the game's total, 14 holes' worth: if one player holds less than
    // a full row, the other holds more. Every refill of random matches of every game closes
    // holes in one row at most, and a position closing both is refused as unreachable.
    for game in Game::ALL {
        let mut rng = pussa_rules::Rng::new(7);
        let mut closing = 0;
        for _ in 0..20 {
            let mut g = GameState::new(game, Mode::Match, Side::South);
            for _ in 0..3000 {
                if g.is_over() {
                    break;
                }
                if g.is_round_over() {
                    g.next_round();
                    let closed = g.position().closed_mask();
                    assert!(
                        closed & 0x7f == 0 || closed >> 7 == 0,
                        "{game}: both rows closed in {}",
                        g.position()
                    );
                    closing += usize::from(closed != 0);
                    continue;
                }
                let moves = g.legal_moves();
                let mv = moves.nth(rng.below(moves.len() as u32) as usize).unwrap();
                g.play(mv).unwrap();
            }
        }
        assert!(closing > 10, "{game}: only {closing} refills closed holes");
    }
    let setup: Setup = "x,x,4,4,4,4,4/x,4,4,4,4,4,4 8 4 S 2 walak-pussa"
        .parse()
        .unwrap();
    assert_eq!(
        setup.position().unwrap_err(),
        pussa_rules::SetupError::BothRowsClosed
    );
    assert!(setup.game_state(Mode::Match).is_err());
    assert_eq!(
        setup
            .position_ignoring_reachability()
            .unwrap()
            .closed_mask(),
        0b1000_0011
    );
}

#[test]
fn holes_close_from_the_left_in_raja_pasu_and_the_remainder_stays_in_the_store() {
    // South ends with 26 = 3 × 7 + 5: fills E, F, G; A..D closed; 5 stay in the store.
    let mut g = state(
        "1,0,0,0,3,0,0/0,0,0,0,0,0,0 22 72 S 1 raja-pasu",
        Mode::Match,
    );
    g.play(hole('A')).unwrap();
    assert!(g.next_round());
    assert_eq!(
        setup_of(&g),
        "x,x,x,x,7,7,7/7,7,7,7,7,7,7 5 23 S 2 raja-pasu"
    );
    assert_eq!(g.position().closed_mask(), 0b1111);
}

#[test]
fn holes_close_from_the_left_in_walak_pussa() {
    // South ends with 24 (6 holes: A closed), North with 32 (7 holes, 4 kept).
    let mut g = state(
        "1,0,0,0,3,0,0/0,0,0,0,0,0,0 20 32 S 1 walak-pussa",
        Mode::Match,
    );
    g.play(hole('A')).unwrap();
    g.next_round();
    assert_eq!(
        setup_of(&g),
        "x,4,4,4,4,4,4/4,4,4,4,4,4,4 0 4 S 2 walak-pussa"
    );
    // North's row closes from its own left, a first: North takes the 4 left (South is
    // stuck) and holds 18 = 4 × 4 + 2: a, b, c closed.
    let mut g = state(
        "0,0,0,0,0,0,0/1,0,0,0,3,0,0 38 14 N 1 walak-pussa",
        Mode::Match,
    );
    g.play(hole('a')).unwrap();
    g.next_round();
    assert_eq!(
        setup_of(&g),
        "4,4,4,4,4,4,4/x,x,x,4,4,4,4 10 2 N 2 walak-pussa"
    );
}

#[test]
fn holes_close_from_the_right_in_pasu_pondi() {
    // South 33 = 6 × 5 + 3: G closed; North 37: 7 holes, 2 kept.
    let mut g = state(
        "1,0,0,0,0,0,0/0,0,0,3,0,0,0 33 33 S 1 pasu-pondi",
        Mode::Match,
    );
    g.play(hole('A')).unwrap();
    g.next_round();
    assert_eq!(
        setup_of(&g),
        "5,5,5,5,5,5,x/5,5,5,5,5,5,5 3 2 N 2 pasu-pondi"
    );
    // North 30 = 6 × 5: g closed, the right end of North's row.
    let mut g = state(
        "1,0,0,0,0,0,0/0,0,0,3,0,0,0 40 26 S 1 pasu-pondi",
        Mode::Match,
    );
    g.play(hole('A')).unwrap();
    g.next_round();
    assert_eq!(
        setup_of(&g),
        "5,5,5,5,5,5,5/5,5,5,5,5,5,x 5 0 N 2 pasu-pondi"
    );
    // 6 seeds a hole: North 21 = 3 × 6 + 3: from the right, g, f, e, d closed.
    let mut g = state(
        "1,0,0,0,0,0,0/0,0,0,3,0,0,0 63 17 S 1 pasu-pondi-6",
        Mode::Match,
    );
    g.play(hole('A')).unwrap();
    g.next_round();
    assert_eq!(
        setup_of(&g),
        "6,6,6,6,6,6,6/6,6,6,x,x,x,x 21 3 N 2 pasu-pondi-6"
    );
}

#[test]
fn refill_leaves_the_remainder_in_the_store_and_it_counts_for_its_owner() {
    // Round 2, stores 26 and 26 after the refill. South E (1) → F; G is empty: South takes c
    // (3). North is stuck: South takes F's seed. South took 4 this round and holds 30.
    let mut g = state(
        "x,x,0,0,1,0,0/x,x,3,0,0,0,0 26 26 S 2 walak-pussa",
        Mode::Match,
    );
    g.play(hole('E')).unwrap();
    let Status::RoundOver { result, .. } = g.status() else {
        panic!()
    };
    assert_eq!(
        result.taken,
        [4, 0],
        "taken this round counts from the stores at the refill"
    );
    assert_eq!(g.position().stores(), [30, 26]);
    let mut ev = Vec::new();
    g.next_round_traced(&mut ev);
    // 30 = 7 × 4 + 2; 26 = 6 × 4 + 2.
    assert_eq!(
        setup_of(&g),
        "4,4,4,4,4,4,4/x,4,4,4,4,4,4 2 2 N 3 walak-pussa"
    );
    assert!(matches!(
        ev[0],
        Event::Refill {
            round: 3,
            filled: [7, 6],
            remainder: [2, 2],
            ..
        }
    ));
}

#[test]
fn holes_reopen_when_a_player_wins_seeds_back() {
    // Round 2: South has A, B closed. South takes 3 + 1 and reaches 24: six holes (B reopens).
    let mut g = state(
        "x,x,1,0,0,3,0/x,x,0,0,0,0,0 20 32 S 2 walak-pussa",
        Mode::Match,
    );
    g.play(hole('C')).unwrap();
    assert_eq!(g.position().stores(), [24, 32]);
    g.next_round();
    assert_eq!(
        setup_of(&g),
        "x,4,4,4,4,4,4/4,4,4,4,4,4,4 0 4 S 3 walak-pussa"
    );
}

#[test]
fn raja_pasu_starter_is_whoever_took_the_leftovers_when_a_player_was_stuck() {
    // South started round 1, North got stuck, South took the leftovers: South starts again.
    let mut g = state(
        "1,0,0,0,3,0,0/0,0,0,0,0,0,0 22 72 S 1 raja-pasu",
        Mode::Match,
    );
    g.play(hole('A')).unwrap();
    assert_eq!(round_over(&g).2, Side::South);
    // North started, South got stuck (North's move left South nothing): North took the rest.
    let mut g = state(
        "0,0,0,0,0,0,0/1,0,0,3,0,0,0 40 54 N 1 raja-pasu",
        Mode::Match,
    );
    g.play(hole('a')).unwrap();
    assert_eq!(
        round_over(&g).0,
        EndReason::NoLegalMove {
            stuck: Side::South,
            endless: Moves::EMPTY,
        }
    );
    assert_eq!(round_over(&g).2, Side::North);
}

#[test]
fn raja_pasu_starter_otherwise_is_the_player_who_did_not_start() {
    // Ended by repetition: South started round 1, so North starts round 2.
    let mut g = state(
        "0,0,0,0,0,0,1/0,0,0,0,0,0,1 71 25 S 1 raja-pasu",
        Mode::Match,
    );
    plays(&mut g, "GgAaBbCcDdEeFf");
    let (reason, swept, next) = round_over(&g);
    assert_eq!(
        (reason, swept, next),
        (EndReason::Repetition, [1, 1], Side::North)
    );
    g.next_round();
    // 72 → 7 holes, 23 kept; 26 = 3 × 7 + 5 → a..d closed.
    assert_eq!(
        setup_of(&g),
        "7,7,7,7,7,7,7/x,x,x,x,7,7,7 23 5 N 2 raja-pasu"
    );
}

#[test]
fn walak_pussa_starter_is_the_player_holding_fewer_seeds() {
    // South started and holds fewer (24 < 32): South starts again.
    let mut g = state(
        "1,0,0,0,3,0,0/0,0,0,0,0,0,0 20 32 S 1 walak-pussa",
        Mode::Match,
    );
    g.play(hole('A')).unwrap();
    assert_eq!(round_over(&g).2, Side::South);
    // South holds more (31 > 25): North starts.
    let mut g = state(
        "1,0,0,0,3,0,0/0,0,0,0,0,0,0 27 25 S 1 walak-pussa",
        Mode::Match,
    );
    g.play(hole('A')).unwrap();
    assert_eq!(round_over(&g).2, Side::North);
}

#[test]
fn walak_pussa_starter_on_equal_holdings_is_the_player_who_did_not_start() {
    let mut g = state(
        "1,0,0,0,3,0,0/0,0,0,0,0,0,0 24 28 S 1 walak-pussa",
        Mode::Match,
    );
    g.play(hole('A')).unwrap();
    assert_eq!(g.position().stores(), [28, 28]);
    assert_eq!(round_over(&g).2, Side::North);
    g.next_round();
    assert_eq!(
        setup_of(&g),
        "4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0 N 2 walak-pussa"
    );
    // Started by North (the seventh field): South starts next.
    let mut g = state(
        "1,0,0,0,3,0,0/0,0,0,0,0,0,0 24 28 S 2 walak-pussa N",
        Mode::Match,
    );
    g.play(hole('A')).unwrap();
    assert_eq!(round_over(&g).2, Side::South);
}

#[test]
fn pasu_pondi_starters_alternate() {
    // South started and holds fewer or more: North starts next either way.
    for s in [
        "1,0,0,0,0,0,0/0,0,0,3,0,0,0 33 33 S 1 pasu-pondi",
        "1,0,0,0,0,0,0/0,0,0,3,0,0,0 16 50 S 1 pasu-pondi",
    ] {
        let mut g = state(s, Mode::Match);
        g.play(hole('A')).unwrap();
        assert_eq!(round_over(&g).2, Side::North, "{s}");
    }
    // North started: South next.
    let mut g = state(
        "1,0,0,0,0,0,0/0,0,0,3,0,0,0 33 33 S 2 pasu-pondi N",
        Mode::Match,
    );
    g.play(hole('A')).unwrap();
    assert_eq!(round_over(&g).2, Side::South);
    // And through whole random matches, every round alternates.
    let mut rounds = 0;
    for seed in 0..5 {
        let mut rng = pussa_rules::Rng::new(seed);
        let mut g = GameState::new(Game::PasuPondi, Mode::Match, Side::North);
        while !g.is_over() {
            if g.is_round_over() {
                let last = g.round_starter();
                g.next_round();
                assert_eq!(g.round_starter(), last.other());
                assert_eq!(g.to_move(), Some(last.other()));
                rounds += 1;
                continue;
            }
            let l = g.legal_moves();
            g.play(l.nth(rng.below(l.len() as u32) as usize).unwrap())
                .unwrap();
        }
    }
    assert!(rounds > 5);
}

#[test]
fn match_ends_when_a_player_holds_fewer_seeds_than_a_hole_needs() {
    // Raja Pasu: North holds 6 < 7 after the round: South wins the match.
    let mut g = state(
        "1,0,0,0,3,0,0/0,0,0,0,0,0,0 88 6 S 2 raja-pasu",
        Mode::Match,
    );
    g.play(hole('A')).unwrap();
    let (_, _, winner) = over(&g);
    assert_eq!(winner, Some(Side::South));
    assert!(g.is_over());
    assert!(!g.next_round());
    // Exactly one hole's worth goes on: North holds 7.
    let mut g = state(
        "1,0,0,0,3,0,0/0,0,0,0,0,0,0 87 7 S 2 raja-pasu",
        Mode::Match,
    );
    g.play(hole('A')).unwrap();
    assert!(matches!(g.status(), Status::RoundOver { .. }));
    g.next_round();
    assert_eq!(
        setup_of(&g),
        "7,7,7,7,7,7,7/x,x,x,x,x,x,7 42 0 S 3 raja-pasu"
    );
    // Walak-pussa: North's stuck round leaves it 1 < 4.
    let g = state(
        "x,x,x,x,x,14,9/x,x,x,x,x,x,11 21 1 N 2 walak-pussa",
        Mode::Match,
    );
    assert_eq!(over(&g).2, Some(Side::South));
}

#[test]
fn single_game_is_won_by_the_player_who_took_more() {
    let mut g = state(
        "1,0,0,0,3,0,0/0,0,0,0,0,0,0 27 25 S 1 walak-pussa",
        Mode::Single,
    );
    g.play(hole('A')).unwrap();
    assert_eq!(g.winner(), Some(Some(Side::South)));
    assert!(g.is_over());
    assert_eq!(g.to_move(), None);
    assert!(g.legal_moves().is_empty());
}

#[test]
fn single_game_with_equal_takings_is_a_draw() {
    let mut g = state(
        "1,0,0,0,3,0,0/0,0,0,0,0,0,0 24 28 S 1 walak-pussa",
        Mode::Single,
    );
    g.play(hole('A')).unwrap();
    assert_eq!(g.position().stores(), [28, 28]);
    assert_eq!(g.winner(), Some(None));
}

#[test]
fn a_single_game_is_one_round() {
    let mut g = state(
        "1,0,0,0,3,0,0/0,0,0,0,0,0,0 27 25 S 1 walak-pussa",
        Mode::Single,
    );
    g.play(hole('A')).unwrap();
    assert!(!g.next_round());
    assert_eq!(g.round(), 1);
}

#[test]
fn first_player_can_be_chosen() {
    let g = GameState::new(Game::RajaPasu, Mode::Single, Side::North);
    assert_eq!(g.to_move(), Some(Side::North));
    assert_eq!(common::letters(g.legal_moves()), "abcdefg");
}

#[test]
fn worked_first_moves_lap_by_lap() {
    // The contract's lap-by-lap account of Walak-pussa `A` and Raja Pasu `G`, event by event.
    let (_, ev) = after("4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0 S 1 walak-pussa", 'A');
    assert_eq!(
        skeleton(&ev),
        [
            "lift A 4",
            "lift F 4",
            "lift d 4",
            "lift B 5",
            "lift a 5",
            "lift g 5",
            "lift F 1",
            "stop G a",
            "capture b 6 S"
        ]
    );
    let (_, ev) = after("7,7,7,7,7,7,7/7,7,7,7,7,7,7 0 0 S 1 raja-pasu", 'G');
    assert_eq!(
        skeleton(&ev),
        [
            "lift G 7",
            "lift A 7",
            "lift b 8",
            "lift D 8",
            "lift f 9",
            "lift b 1",
            "lift d 10",
            "four G S",
            "lift a 11",
            "four A S",
            "lift F 11",
            "lift D 3",
            "lift a 1",
            "lift c 13",
            "four f N",
            "four b N",
            "stop b c",
            "capture d 3 S"
        ]
    );
}
