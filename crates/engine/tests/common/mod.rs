//! Shared by the engine's integration tests.

use pussa_rules::{Game, Position, Rng, Side};

/// A random position of `game` with `seeds` seeds scattered over the open board, the rest
/// split at random between the stores, and a random side to move.
pub fn random_position(game: Game, seeds: u32, rng: &mut Rng) -> Position {
    let mut board = [0u8; 14];
    for _ in 0..seeds {
        board[rng.below(14) as usize] += 1;
    }
    let rest = u32::from(game.total_seeds()) - seeds;
    let s = rng.below(rest + 1);
    let stores = [s as u8, (rest - s) as u8];
    let to_move = if rng.below(2) == 0 {
        Side::South
    } else {
        Side::North
    };
    Position::from_parts_unchecked(game, board, 0, stores, to_move)
}
