//! `Tables::verify_layer` proves an entry stored without the history flag exact for every
//! history of the round, and finds a missing flag whose history lies many moves away.

mod common;

use common::Exhaustive;
use pussa_egtb::{BuildOptions, HistoryFault, Tables};
use pussa_rules::{Game, GameState, Mode, Side};

/// The position the QA report found (Walak-pussa, 5 seeds, South to move): +3 for a fresh
/// history, +1 after a round that came to it by a long line of non-capturing moves.
const BOARD: [u8; 14] = [0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 2, 1, 0, 0];

/// Clearing the history flag of an entry whose value depends on a position 36 moves before it
/// (no immediate move leads back to one that changes it) is found by `verify_layer`, with a
/// history that really changes the value: the line replayed through `GameState` and searched
/// with the plain exhaustive search (full repetition history) gives the value reported.
#[test]
fn a_missing_history_flag_far_from_the_position_is_found() {
    let game = Game::WalakPussa;
    let t = Tables::build_in_memory(game, 5, BuildOptions::default(), &|_| {});
    // The real tables: every entry of every layer proven, nothing left unchecked.
    for k in 0..=5 {
        let r = t.verify_layer(k, u64::MAX);
        assert_eq!(r.mismatches, 0, "{k} seeds: {:?}", r.examples);
        assert_eq!(r.history_unchecked, 0, "{k} seeds");
        assert_eq!(r.checked, r.entries);
    }
    let rank = pussa_egtb::index::rank(&BOARD) as usize;
    let byte = t.layer(5)[rank];
    assert_ne!(byte & 0x80, 0, "the entry is flagged in the built tables");
    let mut layers: Vec<Vec<u8>> = (0..=5).map(|k| t.layer(k).to_vec()).collect();
    layers[5][rank] &= 0x7F;
    let forged = Tables::from_layers(game, layers);
    let r = forged.verify_layer(5, u64::MAX);
    assert_eq!(r.mismatches, 1, "{:?}", r.examples);
    let m = &r.examples[0];
    assert_eq!(m.position.board(), BOARD);
    assert!(!m.flagged);
    assert_eq!(m.stored, 3);
    let Some(HistoryFault::Line { from, line }) = &m.history else {
        panic!("no history found: {m:?}");
    };
    assert!(
        line.len() > 1,
        "a history beyond an immediate move: {line:?}"
    );
    assert_ne!(m.recomputed, m.stored);
    // Replay the line: no move takes seeds, and it ends at the position.
    let mut state = GameState::from_position(*from, Mode::Single, 1, from.to_move());
    for &mv in line {
        let stores = state.position().stores();
        state.play(mv).expect("a legal move");
        assert_eq!(state.position().stores(), stores, "{mv} takes no seeds");
    }
    assert_eq!(state.position().board(), BOARD);
    assert_eq!(state.position().to_move(), Side::South);
    let k = 5;
    let with_history = Exhaustive::new().search(&state, -k - 1, k + 1);
    assert_eq!(with_history, m.recomputed);
}
