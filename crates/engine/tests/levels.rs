//! The playing levels keep their own bounds where a move's sowing is very long.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pussa_engine::{choose_move, choose_move_with_stop, prove_moves, search, Level, Limits};
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
        // The least of the three seeds' timings: a load spike inflates one, not all three.
        let mut least = Duration::MAX;
        for seed in 0..3 {
            let t = Instant::now();
            let mv = choose_move(&state, level, seed).expect("a move");
            least = least.min(t.elapsed());
            assert!(legal.contains(&mv), "{level} {seed}: {mv}");
        }
        assert!(
            least < proof / 2,
            "{level}: {least:?} at best, the whole proof {proof:?}"
        );
    }
}

/// The least of `n` timings of `f` (a load spike inflates one timing, not the least of several).
fn least_time<T>(n: u32, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut best = None;
    let mut last = None;
    for _ in 0..n {
        let t = Instant::now();
        let r = f();
        let took = t.elapsed();
        best = Some(best.map_or(took, |b: Duration| b.min(took)));
        last = Some(r);
    }
    (best.unwrap(), last.unwrap())
}

/// A stop flag ends every level's choice at once, the softmax levels' included (QA pass 17,
/// review-engine #3: they took no stop flag), with a legal move.
///
/// QA pass 18, review-tests #2: this used to compare the stopped choice with the whole proof
/// (seconds), which every level stays far under even when it ignores the stop. Now:
/// - a searching level (club and up) with the stop already raised searches nothing and plays
///   the move a search that may search nothing plays (the first move proven legal), where
///   unstopped it plays another: a level that ignores the flag plays its searched move;
/// - a softmax level (beginner, novice, casual) spends its bounded proof of the endless `b`
///   unstopped; the raised stop ends that proof at once. Time is the behaviour here (the
///   choice's result is the same): the least of 5 stopped timings must be under a quarter of
///   the least of 5 unstopped ones (measured about 1 ms against 17–49 ms in a debug build).
#[test]
fn a_raised_stop_ends_every_levels_choice_with_a_legal_move() {
    let state = slow_state();
    let (_, legal) = full_proof(&state);
    let unsearched = search(
        &state,
        &Limits {
            nodes: Some(0),
            ..Limits::default()
        },
        &mut |_| {},
    )
    .best
    .expect("a move");
    for level in Level::ALL {
        let stopped = || {
            let stop = Arc::new(AtomicBool::new(true));
            choose_move_with_stop(&state, level, 5, None, Some(stop)).expect("a move")
        };
        if level.limits(state.game(), state.mode(), 5).is_some() {
            let free = choose_move(&state, level, 5).expect("a move");
            assert_ne!(
                free, unsearched,
                "{level}: this position cannot tell a stopped search from a whole one"
            );
            assert_eq!(stopped(), unsearched, "{level}: the stop was not heard");
        } else {
            let (free_time, _) = least_time(5, || choose_move(&state, level, 5));
            let (took, mv) = least_time(5, stopped);
            assert!(legal.contains(&mv), "{level}: {mv}");
            assert!(
                took * 4 < free_time,
                "{level}: stopped {took:?}, unstopped {free_time:?}: the stop was not heard"
            );
        }
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
    // The bound is seen in what is proven (`b` left open), not timed (QA pass 18, review-tests #6).
    let p = prove_moves(
        &state,
        &Limits {
            nodes: Some(1000),
            ..Limits::default()
        },
    );
    let proven: Vec<Hole> = p.legal.iter().map(|&(mv, _)| mv).collect();
    assert_eq!(proven, legal);
    assert_eq!(p.unresolved, [b]);
    let all = prove_moves(&state, &Limits::default());
    let proven: Vec<Hole> = all.legal.iter().map(|&(mv, _)| mv).collect();
    assert_eq!(proven, legal);
    assert!(all.unresolved.is_empty());
}
