//! The searching levels with the tables as their oracle never throw away value: from many
//! positions within the tables' range, a level plays the rest of the round against greedy and
//! random opponents; every move it chooses has the best exact value in seeds (given the round's
//! history so far), and its final margin is at least the tables' value of the start, in
//! single games and matches, won, drawn or lost.

use std::sync::Arc;

use pussa_egtb::{BuildOptions, Tables, TablesOracle};
use pussa_engine::tournament::{greedy_most_held, random_move};
use pussa_engine::{choose_move_with_oracle, ExactOracle, Level};
use pussa_rules::{Game, GameState, Hole, Mode, Position, Rng, Side};

const MAX: usize = 8;

/// A random board of `k` seeds on the open board, `to_move` to move, the other seeds in the
/// stores.
fn random_position(game: Game, k: u32, to_move: Side, rng: &mut Rng) -> Position {
    let mut board = [0u8; 14];
    for _ in 0..k {
        board[rng.below(14) as usize] += 1;
    }
    let rest = u32::from(game.seeds_per_hole()) * 14 - k;
    let south = rest / 2;
    Position::from_parts_unchecked(game, board, 0, [south as u8, (rest - south) as u8], to_move)
}

/// South or North, evenly.
fn random_side(rng: &mut Rng) -> Side {
    if rng.below(2) == 0 {
        Side::South
    } else {
        Side::North
    }
}

/// The exact value of every legal move of `state` for the side to move, given the round's
/// history: a move that takes seeds starts the history afresh below it; one that does not
/// keeps it (the tables' path search with that history).
fn exact_move_values(tables: &Tables, state: &GameState) -> Vec<(Hole, i32)> {
    let me = state.position().to_move();
    let k = state.position().seeds_on_board();
    let mut out = Vec::new();
    for mv in state.legal_moves() {
        let mut s = state.clone();
        let before = s.position().stores();
        s.play(mv).expect("legal");
        let after = s.position().stores();
        let gain = (i32::from(after[me.index()]) - i32::from(before[me.index()]))
            - (i32::from(after[me.other().index()]) - i32::from(before[me.other().index()]));
        let v = if s.is_round_over() {
            gain
        } else {
            let child = s.position();
            let sign = if child.to_move() == me { 1 } else { -1 };
            let rest = if child.seeds_on_board() < k {
                tables.probe_fresh(child)
            } else {
                tables.probe_with_history(child, s.history())
            };
            gain + sign * rest.expect("within the tables and determined")
        };
        out.push((mv, v));
    }
    out
}

/// The sign of the final difference of the stores for the side to move, if the future margin
/// from here is `v`.
fn result(state: &GameState, v: i32) -> i32 {
    let pos = state.position();
    let me = pos.to_move();
    (i32::from(pos.store(me)) - i32::from(pos.store(me.other())) + v).signum()
}

fn never_throws_away_value(game: Game, level: Level, positions: usize, seed: u64) {
    let tables = Tables::build_in_memory(game, MAX, BuildOptions::default(), &|_| {});
    let oracle: Arc<dyn ExactOracle> = Arc::new(TablesOracle(Tables::from_layers(
        game,
        (0..=MAX).map(|k| tables.layer(k).to_vec()).collect(),
    )));
    let mut rng = Rng::new(seed);
    let mut played = 0;
    let mut checked_moves = 0;
    let mut history_moves = 0;
    let mut fresh_moves = 0;
    let mut gained = 0;
    while played < positions {
        let k = 2 + rng.below(MAX as u32 - 1);
        let side = random_side(&mut rng);
        let pos = random_position(game, k, side, &mut rng);
        // A single game: in a match a round's end is also valued by what it leads to (the
        // next round, the match), so a level may give seeds of the round for it
        // (crates/engine/tests/matches.rs).
        let mode = Mode::Single;
        let mut state = GameState::from_position(pos, mode, 1, side);
        if state.is_round_over() {
            continue;
        }
        let Some(want) = tables.probe_fresh(&pos) else {
            continue;
        };
        played += 1;
        let start = pos.stores();
        let start_result = result(&state, want);
        let greedy = played % 2 == 0;
        let mut orng = Rng::new(seed ^ played as u64);
        let mut ply = 0u64;
        while !state.is_round_over() {
            let to_move = state.position().to_move();
            let mv = if to_move == side {
                let values = exact_move_values(&tables, &state);
                if state.history().len() <= 1 {
                    // A fresh history: the tables' own move values say the same.
                    let mut own: Vec<(Hole, i32)> = tables
                        .move_values(state.position())
                        .expect("covered")
                        .iter()
                        .map(|m| (m.mv, m.value.expect("determined")))
                        .collect();
                    own.sort_by_key(|m| m.0.index());
                    let mut mine = values.clone();
                    mine.sort_by_key(|m| m.0.index());
                    assert_eq!(own, mine, "{}", pussa_rules::Setup::from_state(&state));
                    fresh_moves += 1;
                }
                let best = values.iter().map(|v| v.1).max().expect("a legal move");
                let mv = choose_move_with_oracle(&state, level, seed ^ ply, Some(oracle.clone()))
                    .expect("a move");
                let got = values.iter().find(|v| v.0 == mv).expect("legal").1;
                assert!(
                    got == best,
                    "{game} {level} {mode:?}: in {} (history of {}) {mv} is worth {got}, the best {best}: {values:?}",
                    pussa_rules::Setup::from_state(&state),
                    state.history().len()
                );
                checked_moves += 1;
                if state.history().len() > 1 {
                    history_moves += 1;
                }
                mv
            } else if greedy {
                greedy_most_held(&state, &mut orng).expect("a move")
            } else {
                random_move(&state, &mut orng).expect("a move")
            };
            state.play(mv).expect("legal");
            ply += 1;
            assert!(ply < 500, "{game}: the round does not end");
        }
        let end = state.position().stores();
        let me = side.index();
        let margin = (i32::from(end[me]) - i32::from(start[me]))
            - (i32::from(end[1 - me]) - i32::from(start[1 - me]));
        let end_result = (i32::from(end[me]) - i32::from(end[1 - me])).signum();
        assert!(
            end_result >= start_result,
            "{game} {level} {mode:?}: from {pos:?} worth {want} the level ended with {margin}"
        );
        assert!(
            margin >= want,
            "{game} {level} {mode:?}: from {pos:?} worth {want} the level ended with {margin}"
        );
        gained += margin - want;
    }
    assert!(checked_moves > positions, "{checked_moves} moves checked");
    // The check must also have seen positions in the middle of a chain of non-capturing moves.
    assert!(history_moves > 0, "no move checked with a history");
    assert!(
        fresh_moves > 0,
        "no move checked against Tables::move_values"
    );
    eprintln!("{game} {level}: {played} positions, {checked_moves} moves checked, {history_moves} with a history, {gained} seeds gained");
    // The opponents are weak: the level must profit from their mistakes somewhere.
    assert!(gained > 0);
}

#[test]
fn club_with_tables_never_throws_away_value_raja_pasu() {
    never_throws_away_value(Game::RajaPasu, Level::Club, 300, 1);
}

#[test]
fn club_with_tables_never_throws_away_value_walak_pussa() {
    never_throws_away_value(Game::WalakPussa, Level::Club, 300, 2);
}

#[test]
fn expert_with_tables_never_throws_away_value_pasu_pondi() {
    never_throws_away_value(Game::PasuPondi, Level::Expert, 100, 3);
}

/// Without the tables the same level does throw value away from such positions: the test
/// above can fail.
#[test]
fn club_without_tables_does_lose_value_somewhere() {
    let game = Game::RajaPasu;
    let tables = Tables::build_in_memory(game, MAX, BuildOptions::default(), &|_| {});
    let mut rng = Rng::new(7);
    let mut worse = 0;
    for _ in 0..400 {
        let k = 5 + rng.below(MAX as u32 - 4);
        let pos = random_position(game, k, Side::South, &mut rng);
        let state = GameState::from_position(pos, Mode::Match, 1, Side::South);
        if state.is_round_over() || tables.probe_fresh(&pos).is_none() {
            continue;
        }
        let values = exact_move_values(&tables, &state);
        let best = values.iter().map(|v| v.1).max().unwrap();
        let mv = choose_move_with_oracle(&state, Level::Club, 1, None).unwrap();
        if values.iter().find(|v| v.0 == mv).unwrap().1 < best {
            worse += 1;
        }
    }
    assert!(
        worse > 0,
        "the weaker level never erred: the check has no teeth"
    );
}

/// `ExactOracle::solve` (what tournaments choose exact openings with) finds, from tables of
/// fewer seeds, the values that bigger tables hold, and gives up (`None`) where it cannot.
#[test]
fn the_oracle_solves_positions_beyond_its_tables() {
    let game = Game::RajaPasu;
    let tables = Tables::build_in_memory(game, MAX, BuildOptions::default(), &|_| {});
    let small = TablesOracle(Tables::from_layers(
        game,
        (0..=5).map(|k| tables.layer(k).to_vec()).collect(),
    ));
    let full = TablesOracle(Tables::from_layers(
        game,
        (0..=MAX).map(|k| tables.layer(k).to_vec()).collect(),
    ));
    let mut rng = Rng::new(11);
    let mut solved = 0;
    while solved < 60 {
        let k = 6 + rng.below(MAX as u32 - 5);
        let side = random_side(&mut rng);
        let pos = random_position(game, k, side, &mut rng);
        let Some(want) = tables.probe_fresh(&pos) else {
            continue;
        };
        assert_eq!(small.solve(&pos), Some(want), "{pos:?}");
        // Within the tables, a probe.
        assert_eq!(full.solve(&pos), Some(want));
        solved += 1;
    }
    // Another game's position: not the tables' to answer.
    let other = Position::start(Game::WalakPussa);
    assert_eq!(small.solve(&other), None);
}

/// `analyze` with the tables writes, for each move whose value is exact, a principal variation
/// that goes on past the point where the tables took over: every move of it has the best exact
/// value given the round's history, and most lines run longer than the move itself.
#[test]
fn analysis_with_tables_gives_principal_variations_that_keep_the_value() {
    let game = Game::RajaPasu;
    let tables = Tables::build_in_memory(game, MAX, BuildOptions::default(), &|_| {});
    let oracle: Arc<dyn ExactOracle> = Arc::new(TablesOracle(Tables::from_layers(
        game,
        (0..=MAX).map(|k| tables.layer(k).to_vec()).collect(),
    )));
    let mut rng = Rng::new(11);
    let (mut lines, mut long, mut steps) = (0, 0, 0);
    while lines < 200 {
        let k = 3 + rng.below(MAX as u32 - 2);
        let side = random_side(&mut rng);
        let state = GameState::from_position(
            random_position(game, k, side, &mut rng),
            Mode::Single,
            1,
            side,
        );
        if state.is_round_over() {
            continue;
        }
        let limits = pussa_engine::Limits {
            oracle: Some(oracle.clone()),
            ..pussa_engine::Limits::default()
        };
        for m in pussa_engine::analyze(&state, &limits) {
            if !m.exact {
                continue; // a value the search did not prove: no claim about its line
            }
            lines += 1;
            if m.pv.len() > 1 {
                long += 1;
            }
            // Every move after the first keeps the value: it is one of the best.
            let mut s = state.clone();
            s.play(m.pv[0]).expect("legal");
            for &mv in &m.pv[1..] {
                assert!(
                    !s.is_round_over(),
                    "the line goes on after the round: {m:?}"
                );
                let values = exact_move_values(&tables, &s);
                let best = values.iter().map(|v| v.1).max().expect("a legal move");
                let got = values.iter().find(|v| v.0 == mv).expect("legal").1;
                assert_eq!(
                    got,
                    best,
                    "{}: {mv} of {:?} is worth {got}, the best {best}",
                    pussa_rules::Setup::from_state(&s),
                    m.pv
                );
                s.play(mv).expect("legal");
                steps += 1;
            }
        }
    }
    eprintln!("{lines} lines, {long} longer than one move, {steps} moves checked");
    assert!(
        long * 2 > lines,
        "only {long} of {lines} lines go past their first move"
    );
}
