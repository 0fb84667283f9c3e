//! The playing levels keep their own bounds where a move's sowing is very long.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pussa_engine::{choose_move, choose_move_with_stop, prove_moves, Level, Limits};
use pussa_rules::{GameState, Hole, Mode, Setup};

/// A Walak-pussa position whose North move `b` is endless with a cycle of millions of laps:
/// proving it takes about a second and a half in a debug build (docs/rules.md, "Endless moves").
const SLOW_PROOF: &str = "1,2,6,2,4,3,5/4,2,6,3,4,7,6 1 0 N 1 walak-pussa";

fn slow_state() -> GameState {
    let setup: Setup = SLOW_PROOF.parse().unwrap();
    setup.game_state(Mode::Single).unwrap()
}

/// The time of the unbounded proof of every move (`legal_moves`), and the legal moves.
fn full_proof(state: &GameState) -> (Duration, Vec<Hole>) {
    let t = Instant::now();
    let legal: Vec<Hole> = state.legal_moves().collect();
    (t.elapsed(), legal)
}

/// QA pass 17, review-engine #2: every level used to prove every move to its end before
/// choosing (`legal_moves`), and beginner, novice and casual analysed with a depth limit alone
/// (a second whole proof), so max's 0.2 s took seconds. Each level now answers well inside the
/// proof's time, with a legal move that is never the endless `b`.
#[test]
fn every_level_answers_within_its_bounds_where_a_move_takes_long_to_prove_endless() {
    let state = slow_state();
    let (proof, legal) = full_proof(&state);
    let b: Hole = "b".parse().unwrap();
    assert!(!legal.contains(&b), "{legal:?}");
    for level in Level::ALL {
        for seed in 0..3 {
            let t = Instant::now();
            let mv = choose_move(&state, level, seed).expect("a move");
            let took = t.elapsed();
            assert!(legal.contains(&mv), "{level} {seed}: {mv}");
            assert!(
                took < proof / 2,
                "{level} seed {seed}: {took:?}, the whole proof {proof:?}"
            );
        }
    }
}

/// A stop flag ends every level's choice at once, the softmax levels' included (QA pass 17,
/// review-engine #3: they took no stop flag), with a legal move.
#[test]
fn a_raised_stop_ends_every_levels_choice_with_a_legal_move() {
    let state = slow_state();
    let (proof, legal) = full_proof(&state);
    for level in Level::ALL {
        let stop = Arc::new(AtomicBool::new(true));
        let t = Instant::now();
        let mv = choose_move_with_stop(&state, level, 5, None, Some(stop)).expect("a move");
        let took = t.elapsed();
        assert!(legal.contains(&mv), "{level}: {mv}");
        assert!(took < proof / 4, "{level}: {took:?}, the proof {proof:?}");
    }
}

/// `prove_moves` bounds its proof as the search does: with a small node budget the endless `b`
/// is left unresolved (not listed as legal), the other moves are proven legal; without limits it
/// agrees with `legal_moves`.
#[test]
fn prove_moves_bounds_the_proof_and_names_what_it_left_open() {
    let state = slow_state();
    let (_, legal) = full_proof(&state);
    let b: Hole = "b".parse().unwrap();
    let t = Instant::now();
    let p = prove_moves(
        &state,
        &Limits {
            nodes: Some(1000),
            ..Limits::default()
        },
    );
    let quick = t.elapsed();
    let proven: Vec<Hole> = p.legal.iter().map(|&(mv, _)| mv).collect();
    assert_eq!(proven, legal);
    assert_eq!(p.unresolved, [b]);
    let t = Instant::now();
    let all = prove_moves(&state, &Limits::default());
    assert!(quick * 4 < t.elapsed(), "{quick:?} {:?}", t.elapsed());
    let proven: Vec<Hole> = all.legal.iter().map(|&(mv, _)| mv).collect();
    assert_eq!(proven, legal);
    assert!(all.unresolved.is_empty());
}
