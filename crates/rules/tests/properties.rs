//! Property tests: seeds conserved, refused moves change nothing, position strings round-trip,
//! every random game and match ends, equal positions hash equal, the fast path equals `play`,
//! a match records how each round started.
mod common;
mod naive;

use std::collections::HashMap;

use proptest::prelude::*;
use pussa_rules::{EndReason, RoundResult};
use pussa_rules::{Game, GameState, Hole, Mode, Position, Rng, RoundStart, Setup, Side, Status};

fn game_of(k: u8) -> Game {
    Game::ALL[usize::from(k) % 4]
}

fn side_of(b: bool) -> Side {
    if b {
        Side::North
    } else {
        Side::South
    }
}

fn mode_of(b: bool) -> Mode {
    if b {
        Mode::Match
    } else {
        Mode::Single
    }
}

fn total(g: &GameState) -> u32 {
    let p = g.position();
    p.seeds_on_board() + u32::from(p.stores()[0]) + u32::from(p.stores()[1])
}

/// Plays up to `steps` random legal moves (and refills), calling `each` on every state.
fn walk(
    game: Game,
    mode: Mode,
    first: Side,
    seed: u64,
    steps: usize,
    mut each: impl FnMut(&GameState),
) -> GameState {
    let mut rng = Rng::new(seed);
    let mut g = GameState::new(game, mode, first);
    each(&g);
    for _ in 0..steps {
        if g.is_over() {
            break;
        }
        if g.is_round_over() {
            assert!(g.next_round());
        } else {
            let l = g.legal_moves();
            let mv = l.nth(rng.below(l.len() as u32) as usize).unwrap();
            g.play(mv).unwrap();
        }
        each(&g);
    }
    g
}

/// The body of `position_strings_keep_the_rounds_takings`, for the property and for the
/// cases it once failed on.
fn rounds_takings_read_back(
    k: u8,
    f: bool,
    seed: u64,
    steps: usize,
    single: bool,
) -> Result<(), TestCaseError> {
    let g = walk(game_of(k), Mode::Match, side_of(f), seed, steps, |_| {});
    let text = Setup::from_state(&g).to_string();
    let setup: Setup = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
    let mode = if single { Mode::Single } else { Mode::Match };
    let mut back = setup
        .game_state(mode)
        .unwrap_or_else(|e| panic!("{text}: {e}"));
    prop_assert_eq!(back.taken_this_round(), g.taken_this_round(), "{}", &text);
    prop_assert_eq!(back.round(), g.round());
    let mut orig = g.clone();
    let mut rng = Rng::new(seed ^ 0x5eed);
    while !orig.is_round_over() && !back.is_round_over() {
        let l = orig.legal_moves();
        prop_assert_eq!(l, back.legal_moves(), "{}", &text);
        let mv = l.nth(rng.below(l.len() as u32) as usize).unwrap();
        orig.play(mv).unwrap();
        back.play(mv).unwrap();
    }
    let result = |st: &GameState| match st.status() {
        Status::RoundOver { result, .. } | Status::Over { result, .. } => Some(result),
        Status::Playing => None,
    };
    let (r1, r2) = (result(&orig), result(&back));
    let repeated = |r: Option<RoundResult>| r.is_some_and(|r| r.reason == EndReason::Repetition);
    if r1.map(|r| r.reason) != r2.map(|r| r.reason) {
        // The string does not carry the round's repetition history: only a repetition of a
        // position seen before the string was written can tell the two apart. Nor does the
        // string of a round already ended by a repetition say how it ended: its board is the
        // one after the sweep (every hole empty), which reads as a round over without moves.
        prop_assert!(
            (g.history().len() > 1 || g.is_round_over()) && (repeated(r1) || repeated(r2)),
            "{}: {:?} vs {:?}",
            &text,
            r1,
            r2
        );
        if let (true, Some(a), Some(b)) = (g.is_round_over(), r1, r2) {
            // The round was over already: what each took, and who won, still read back.
            prop_assert_eq!(a.taken, b.taken, "{}", &text);
            prop_assert_eq!(a.winner, b.winner, "{}", &text);
        }
        return Ok(());
    }
    let (r1, r2) = (r1.unwrap(), r2.unwrap());
    prop_assert_eq!(r1.taken, r2.taken, "{}", &text);
    prop_assert_eq!(r1.winner, r2.winner, "{}", &text);
    if !g.is_round_over() {
        prop_assert_eq!(r1, r2, "{}", &text);
    }
    if single {
        // A single game from the position is won by whoever took more in the round.
        prop_assert_eq!(back.winner(), Some(r1.winner), "{}", &text);
    } else if !g.is_round_over() {
        prop_assert_eq!(back.status(), orig.status(), "{}", &text);
    } else {
        // Written after the round's end: the sweep is already in the stores.
        prop_assert_eq!(back.winner(), orig.winner(), "{}", &text);
        prop_assert_eq!(back.is_over(), orig.is_over(), "{}", &text);
    }
    Ok(())
}

/// A round already ended by a repetition, written as a position string: its board is the one
/// after the sweep, which reads back as a round over without moves; the takings and the winner
/// still read back (found by the property above).
#[test]
fn a_round_ended_by_repetition_reads_back_with_its_takings() {
    rounds_takings_read_back(1, false, 2321516283998097927, 41, false).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn seeds_are_conserved_after_every_move_and_refill(
        k in 0u8..4, m in any::<bool>(), f in any::<bool>(), seed in any::<u64>()
    ) {
        let game = game_of(k);
        let want = u32::from(game.total_seeds());
        walk(game, mode_of(m), side_of(f), seed, 400, |g| {
            assert_eq!(total(g), want, "{}", Setup::from_state(g));
            // Closed holes hold nothing.
            let p = g.position();
            for h in Hole::ALL {
                if !p.is_open(h) {
                    assert_eq!(p.seeds(h), 0);
                }
            }
        });
    }

    #[test]
    fn a_refused_move_leaves_position_and_state_unchanged(
        k in 0u8..4, m in any::<bool>(), f in any::<bool>(), seed in any::<u64>(),
        steps in 0usize..200, letter in 0usize..14
    ) {
        let g = walk(game_of(k), mode_of(m), side_of(f), seed, steps, |_| {});
        let h = Hole::ALL[letter];
        let mut p = *g.position();
        if let Err(e) = p.play(h) {
            prop_assert_eq!(e.mv, h);
            prop_assert_eq!(&p, g.position());
        }
        let mut p2 = *g.position();
        let mut ev = Vec::new();
        if p2.play_traced(h, &mut ev).is_err() {
            prop_assert_eq!(&p2, g.position());
        }
        let mut g2 = g.clone();
        if g2.play(h).is_err() {
            prop_assert_eq!(g2, g);
        }
    }

    #[test]
    fn position_strings_round_trip_on_reachable_positions(
        k in 0u8..4, m in any::<bool>(), f in any::<bool>(), seed in any::<u64>(), steps in 0usize..600
    ) {
        walk(game_of(k), mode_of(m), side_of(f), seed, steps, |g| {
            let s = Setup::from_state(g);
            let text = s.to_string();
            let back: Setup = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(back, s, "{text}");
            assert_eq!(back.to_string(), text);
            assert_eq!(&back.position().unwrap(), g.position());
        });
    }

    /// A match's position string keeps what each player took in the current round (`C+T`
    /// stores from round 2 on): read back, it gives the same takings, and played on to the end
    /// of the round, the same round result and status, as a match and as a single game.
    #[test]
    fn position_strings_keep_the_rounds_takings(
        k in 0u8..4, f in any::<bool>(), seed in any::<u64>(), steps in 0usize..400, single in any::<bool>()
    ) {
        rounds_takings_read_back(k, f, seed, steps, single)?;
    }

    #[test]
    fn position_strings_round_trip_on_random_setups(k in 0u8..4, seed in any::<u64>(), round in 1u32..6) {
        let mut rng = Rng::new(seed);
        let s = common::random_setup(game_of(k), &mut rng, round);
        let text = s.to_string();
        let back: Setup = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
        prop_assert_eq!(back, s);
    }

    #[test]
    fn round_starts_record_every_round_as_it_was_laid_out(
        k in 0u8..4, f in any::<bool>(), seed in any::<u64>()
    ) {
        let game = game_of(k);
        let mut seen: Vec<RoundStart> = Vec::new();
        walk(game, Mode::Match, side_of(f), seed, 3_000, |g| {
            if g.is_round_over() {
                return;
            }
            let p = g.position();
            let held = [Side::South, Side::North]
                .map(|s| (p.row_seeds(s) + u32::from(p.store(s))) as u8);
            if g.taken_this_round() == [0, 0] && seen.len() < g.round() as usize {
                // A round just laid out: what each holds is their row and their store.
                seen.push(RoundStart { holdings: held, starter: g.round_starter() });
            }
            assert_eq!(g.round_starts(), seen.as_slice(), "{}", Setup::from_state(g));
            let earlier = seen[..seen.len() - 1].iter().rposition(|r| r == seen.last().unwrap());
            assert_eq!(g.repeats_round(), earlier.map(|i| i as u32 + 1));
        });
    }

    #[test]
    fn every_random_game_ends(k in 0u8..4, f in any::<bool>(), seed in any::<u64>()) {
        let g = walk(game_of(k), Mode::Single, side_of(f), seed, 100_000, |_| {});
        prop_assert!(g.is_over(), "not over after 100000 moves");
        prop_assert!(g.winner().is_some());
    }

    #[test]
    fn play_unchecked_equals_play_for_legal_moves(
        k in 0u8..4, m in any::<bool>(), seed in any::<u64>(), steps in 0usize..300
    ) {
        let g = walk(game_of(k), mode_of(m), Side::South, seed, steps, |_| {});
        let p = *g.position();
        for h in p.legal_moves() {
            let mut a = p;
            let mut b = p;
            let oa = a.play(h).unwrap();
            let ob = b.play_unchecked(h).unwrap();
            prop_assert_eq!(oa, ob);
            prop_assert_eq!(a, b);
        }
        // And every candidate that is not legal is refused as endless by both.
        for h in p.candidates() {
            if !p.legal_moves().contains(h) {
                let mut a = p;
                prop_assert!(a.play_unchecked(h).is_none());
                prop_assert_eq!(a.play(h).unwrap_err().reason, pussa_rules::IllegalReason::Endless);
            }
        }
    }

    #[test]
    fn equal_positions_hash_equal(k in 0u8..4, m in any::<bool>(), seed in any::<u64>(), steps in 0usize..300) {
        let g = walk(game_of(k), mode_of(m), Side::South, seed, steps, |_| {});
        let p = *g.position();
        // The same position rebuilt from its parts and from its string.
        let q = Position::from_parts_unchecked(p.game(), p.board(), p.closed_mask(), p.stores(), p.to_move());
        let r = Setup::from_position(&p, g.round()).to_string().parse::<Setup>().unwrap().position().unwrap();
        prop_assert_eq!(p, q);
        prop_assert_eq!(p.round_hash(), q.round_hash());
        prop_assert_eq!(p.round_hash(), r.round_hash());
        prop_assert_eq!(p.repetition_key(), r.repetition_key());
    }
}

/// Matches are long (hundreds of rounds for Walak-pussa at random), so fewer cases.
#[test]
fn every_random_match_ends() {
    for game in Game::ALL {
        for seed in 0..10u64 {
            let mut rounds = 0;
            let g = walk(
                game,
                Mode::Match,
                side_of(seed % 2 == 1),
                seed,
                usize::MAX,
                |g| {
                    rounds = g.round();
                    assert!(
                        rounds < 20_000,
                        "{game} seed {seed}: no end after 20000 rounds"
                    );
                },
            );
            assert!(g.is_over(), "{game} seed {seed}");
            let w = g
                .winner()
                .unwrap()
                .expect("the totals make a drawn match impossible");
            let p = g.position();
            let sph = game.seeds_per_hole();
            assert!(p.store(w.other()) < sph && p.store(w) >= sph);
        }
    }
}

/// Positions reached by different move orders (transpositions) hash equal, and the hash tells
/// apart the distinct positions met (no collision among them).
#[test]
fn transpositions_hash_equal_and_distinct_positions_hash_apart() {
    let mut all = 0;
    for game in Game::ALL {
        let mut by_hash: HashMap<u64, Position> = HashMap::new();
        let mut transpositions = 0;
        let mut frontier = vec![Position::start(game)];
        for _ in 0..4 {
            let mut next = Vec::new();
            for p in frontier {
                for h in p.legal_moves() {
                    let mut c = p;
                    c.play(h).unwrap();
                    match by_hash.get(&c.round_hash()) {
                        Some(old) if old.board() == c.board() && old.to_move() == c.to_move() => {
                            transpositions += 1;
                        }
                        Some(old) => panic!("hash collision: {old:?} and {c:?}"),
                        None => {
                            by_hash.insert(c.round_hash(), c);
                            next.push(c);
                        }
                    }
                }
            }
            frontier = next;
        }
        assert!(by_hash.len() > 100, "{game}");
        all += transpositions;
    }
    assert!(all > 0, "no transposition met: the test checked nothing");
}
