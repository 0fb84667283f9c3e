//! Perft: the number of move sequences of each length, under every rule of a round.

use crate::position::Position;
use crate::types::Side;

/// Counts the legal move sequences of exactly `depth` moves from `pos` within its round.
///
/// A position where the round has ended (one row empty in Pasu Pondi, a repetition, no legal
/// move) has no children. `history` holds the repetition keys of the positions already seen in
/// the round since seeds last left the board (excluding `pos`); it is restored on return.
pub fn perft_with_history(pos: &Position, depth: u32, history: &mut Vec<u128>) -> u64 {
    if depth == 0 {
        return 1;
    }
    let game = pos.game();
    if game.one_row_ends_round()
        && (pos.row_seeds(Side::South) == 0 || pos.row_seeds(Side::North) == 0)
    {
        return 0;
    }
    let key = pos.repetition_key();
    if history.contains(&key) {
        return 0;
    }
    let mut total = 0;
    for mv in pos.candidates() {
        let mut child = *pos;
        let Some(out) = child.play_unchecked(mv) else {
            continue;
        };
        if depth == 1 {
            total += 1;
            continue;
        }
        if out.seeds_taken() > 0 {
            let mut fresh = Vec::new();
            total += perft_with_history(&child, depth - 1, &mut fresh);
        } else {
            history.push(key);
            total += perft_with_history(&child, depth - 1, history);
            history.pop();
        }
    }
    total
}

/// Counts the legal move sequences of exactly `depth` moves from `pos`, the start of its history.
///
/// # Examples
/// ```
/// use pussa_rules::{perft, Game, Position};
/// assert_eq!(perft(&Position::start(Game::WalakPussa), 1), 7);
/// ```
#[must_use]
pub fn perft(pos: &Position, depth: u32) -> u64 {
    perft_with_history(pos, depth, &mut Vec::new())
}
