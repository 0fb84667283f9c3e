//! Every position of the small layers against a plain exhaustive search that plays through the
//! rules crate's `GameState` (which carries the full repetition history and applies every
//! end-of-round rule itself), written independently of the table builder.

use pussa_egtb::{index, BuildOptions, Entry, Tables};
use pussa_rules::{Game, GameState, Mode, Position, Side};

mod common;

use common::Exhaustive;

/// The value of a board with South to move and a history that starts at it.
fn root(ex: &mut Exhaustive, game: Game, board: [u8; 14]) -> i32 {
    let pos = Position::from_parts_unchecked(game, board, 0, [0, 0], Side::South);
    let state = GameState::from_position(pos, Mode::Single, 1, Side::South);
    if state.is_over() {
        let t = state.position().stores();
        return i32::from(t[0]) - i32::from(t[1]);
    }
    ex.fresh(&state)
}

fn check_game(game: Game, max: usize) {
    let tables = Tables::build_in_memory(game, max, BuildOptions::default(), &|_| {});
    let mut flagged = 0;
    let mut ex = Exhaustive::new();
    for k in 0..=max {
        for idx in 0..index::layer_size(k) {
            let b = index::unrank(k, idx);
            let want = root(&mut ex, game, b);
            match tables.entry_of_board(&b) {
                Some(Entry::Value { margin, history }) => {
                    assert_eq!(margin, want, "{game} board {b:?} (history flag {history})");
                    flagged += usize::from(history);
                }
                other => panic!("{game} board {b:?}: {other:?}, expected {want}"),
            }
        }
    }
    eprintln!("{game}: every position up to {max} seeds agrees ({flagged} flagged)");
}

#[test]
fn walak_pussa_matches_exhaustive_search() {
    check_game(Game::WalakPussa, 6);
}

#[test]
fn raja_pasu_matches_exhaustive_search() {
    check_game(Game::RajaPasu, 6);
}

#[test]
fn pasu_pondi_matches_exhaustive_search() {
    check_game(Game::PasuPondi, 6);
}

#[test]
fn pasu_pondi_6_matches_exhaustive_search() {
    check_game(Game::PasuPondi6, 4);
}

/// Unflagged values hold for any history: from a flagged position's history, probing an
/// unflagged position reached by non-capturing moves with that history gives the same value
/// as the exhaustive search with the same history; and `probe_with_history` agrees with the
/// exhaustive search for positions reached along real paths.
#[test]
fn values_with_a_history_match_exhaustive_search() {
    let game = Game::WalakPussa;
    let tables = Tables::build_in_memory(game, 6, BuildOptions::default(), &|_| {});
    let k = 6;
    let mut checked = 0;
    // Values of states with a fresh history depend on the board alone: one memo serves all.
    let mut ex = Exhaustive::new();
    let flagged: Vec<[u8; 14]> = (0..index::layer_size(k))
        .map(|idx| index::unrank(k, idx))
        .filter(|b| {
            matches!(
                tables.entry_of_board(b),
                Some(Entry::Value { history: true, .. })
            )
        })
        .collect();
    // A few hundred roots spread over the layer keep the test fast.
    let step = (flagged.len() / 400).max(1);
    for &b in flagged.iter().step_by(step) {
        // Walk two non-capturing moves from a flagged root, then compare with history.
        let pos = Position::from_parts_unchecked(game, b, 0, [0, 0], Side::South);
        let mut state = GameState::from_position(pos, Mode::Single, 1, Side::South);
        for _ in 0..2 {
            let Some(mv) = state.legal_moves().find(|&m| {
                let mut p = *state.position();
                p.play_unchecked(m).is_some_and(|o| o.seeds_taken() == 0)
            }) else {
                break;
            };
            state.play(mv).expect("legal");
            if state.is_over() {
                break;
            }
        }
        if state.is_over() {
            continue;
        }
        let p = *state.position();
        let got = tables.probe_with_history(&p, state.history());
        let want = ex.search(&state, -(k as i32) - 1, k as i32 + 1);
        assert_eq!(got, Some(want), "{game} {b:?} then {p:?}");
        if let Some(v) = tables.probe(&p) {
            assert_eq!(v, want, "an unflagged value must hold for any history");
        }
        checked += 1;
    }
    assert!(
        checked > 0,
        "no flagged positions with non-capturing moves were found"
    );
}
