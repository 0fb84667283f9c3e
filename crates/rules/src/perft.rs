//! Perft: the number of move sequences of each length, under every rule of a round.

use crate::position::Position;
use crate::types::Side;

/// Counts the legal move sequences of exactly `depth` moves from `pos` within its round.
///
/// A position where the round has ended (one row empty in Pasu Pondi, a repetition, no legal
/// move) has no children. `history` holds the repetition keys of the positions seen in the
/// round since seeds last left the board: either the earlier ones only, or with `pos`'s own key
/// last, as [`crate::GameState::history`] gives them (a last key equal to `pos`'s is `pos`
/// itself, not an earlier visit: a move always passes the turn, so no position directly
/// follows itself; [`earlier_history`] tells the two apart). `pos` is a repetition when its
/// key is among the earlier ones. `history` is restored on return.
///
/// # Examples
/// ```
/// use pussa_rules::{perft, perft_with_history, Game, GameState, Hole, Mode, Side};
/// let mut g = GameState::new(Game::WalakPussa, Mode::Single, Side::South);
/// g.play(Hole::from_letter('A')?)?;
/// let pos = *g.position();
/// let mut with_pos = g.history().to_vec();
/// let mut without = with_pos[..with_pos.len() - 1].to_vec();
/// assert_eq!(perft_with_history(&pos, 3, &mut with_pos), perft(&pos, 3));
/// assert_eq!(perft_with_history(&pos, 3, &mut without), perft(&pos, 3));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn perft_with_history(pos: &Position, depth: u32, history: &mut Vec<u128>) -> u64 {
    let own = history.split_off(earlier_history(history, pos).len());
    let n = perft_earlier(pos, depth, history);
    history.extend(own);
    n
}

/// The positions seen before `pos` in a repetition history that may end with `pos`'s own key:
/// `history` without its last key when that key is `pos`'s. [`crate::GameState::history`]
/// ends with the current position's key, and a search's own history usually does not; both
/// mean the same earlier positions. A last key equal to `pos`'s is `pos` itself, never an
/// earlier visit (a move always passes the turn, so no position directly follows itself);
/// any other occurrence of `pos`'s key is a real earlier visit and stays, so `pos` is a
/// repetition exactly when its key is in the result.
///
/// # Examples
/// ```
/// use pussa_rules::{earlier_history, Game, GameState, Hole, Mode, Side};
/// let mut g = GameState::new(Game::WalakPussa, Mode::Single, Side::South);
/// g.play(Hole::from_letter('A')?)?;
/// let (pos, h) = (*g.position(), g.history());
/// assert_eq!(h.last(), Some(&pos.repetition_key()));
/// assert_eq!(earlier_history(h, &pos), &h[..h.len() - 1]);
/// let earlier = &h[..h.len() - 1];
/// assert_eq!(earlier_history(earlier, &pos), earlier);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn earlier_history<'a>(history: &'a [u128], pos: &Position) -> &'a [u128] {
    match history.split_last() {
        Some((&last, earlier)) if last == pos.repetition_key() => earlier,
        _ => history,
    }
}

/// [`perft_with_history`] with `history` holding only the positions before `pos`.
fn perft_earlier(pos: &Position, depth: u32, history: &mut Vec<u128>) -> u64 {
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
            total += perft_earlier(&child, depth - 1, &mut fresh);
        } else {
            history.push(key);
            total += perft_earlier(&child, depth - 1, history);
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
