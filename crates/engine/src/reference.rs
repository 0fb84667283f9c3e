//! A plain minimax without pruning, tables or ordering: the reference the search is tested
//! against (and a small exhaustive solver for tests elsewhere). It applies the same rules as the
//! search (the contract's end-of-round rules, the repetition rule over the full history) and the
//! same leaf evaluation at depth 0, so on positions small enough to be searched to every end the
//! two must agree exactly.

use pussa_rules::{GameState, Position};

use crate::eval::{self, RoundEnd};
use crate::params::SCALE;

/// The minimax future margin of `pos` (internal units, side to move's view) to `depth` plies,
/// `history` holding the repetition keys of the positions of the round since seeds last left
/// the board: the earlier ones only, or with `pos`'s own key last, as
/// [`GameState::history`] gives them (a last key equal to `pos`'s is `pos` itself, not an
/// earlier visit: a move always passes the turn). `pos` is a repetition (a terminal value)
/// when its key is among the earlier ones. Returns the value and whether every leaf was a real
/// end of the round. `history` is restored on return.
///
/// # Examples
/// ```
/// use pussa_engine::reference::minimax;
/// use pussa_rules::{Game, GameState, Hole, Mode, Side};
/// let mut g = GameState::new(Game::WalakPussa, Mode::Single, Side::South);
/// g.play(Hole::from_letter('A')?)?;
/// let pos = *g.position();
/// let earlier = g.history()[..g.history().len() - 1].to_vec();
/// assert_eq!(minimax(&pos, 3, &mut g.history().to_vec()), minimax(&pos, 3, &mut earlier.clone()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Panics
/// Never in practice: it runs [`minimax_budget`] with a budget of `u64::MAX` nodes, which only
/// a search of 2⁶⁴ nodes could spend (the `expect` guards that).
pub fn minimax(pos: &Position, depth: u32, history: &mut Vec<u128>) -> (i32, bool) {
    let mut unlimited = u64::MAX;
    minimax_budget(pos, depth, history, &mut unlimited).expect("an unlimited budget")
}

/// [`minimax`] visiting at most `budget` nodes (decremented as it goes); `None` when the budget
/// runs out first. `history` as for [`minimax`].
pub fn minimax_budget(
    pos: &Position,
    depth: u32,
    history: &mut Vec<u128>,
    budget: &mut u64,
) -> Option<(i32, bool)> {
    let own = history.split_off(pussa_rules::earlier_history(history, pos).len());
    let r = minimax_earlier(pos, depth, history, budget);
    history.extend(own);
    r
}

/// [`minimax_budget`] with `history` holding only the positions before `pos`.
fn minimax_earlier(
    pos: &Position,
    depth: u32,
    history: &mut Vec<u128>,
    budget: &mut u64,
) -> Option<(i32, bool)> {
    if *budget == 0 {
        return None;
    }
    *budget -= 1;
    if eval::one_row_end(pos) {
        return Some((eval::terminal(pos, RoundEnd::EachOwnRow), true));
    }
    let key = pos.repetition_key();
    if history.contains(&key) {
        return Some((eval::terminal(pos, RoundEnd::EachOwnRow), true));
    }
    if depth == 0 {
        return Some((eval::evaluate(pos), false));
    }
    let me = pos.to_move().index();
    let mut best: Option<i32> = None;
    let mut exact = true;
    for mv in pos.candidates() {
        let mut child = *pos;
        let Some(out) = child.play_unchecked(mv) else {
            continue;
        };
        let gain = (i32::from(out.taken[me]) - i32::from(out.taken[1 - me])) * SCALE;
        let (v, e) = if out.seeds_taken() > 0 {
            minimax_earlier(&child, depth - 1, &mut Vec::new(), budget)?
        } else {
            history.push(key);
            let r = minimax_earlier(&child, depth - 1, history, budget);
            history.pop();
            r?
        };
        exact &= e;
        let v = gain - v;
        best = Some(best.map_or(v, |b| b.max(v)));
    }
    Some(match best {
        Some(b) => (b, exact),
        None => (eval::terminal(pos, eval::stuck_end(pos)), true),
    })
}

/// The minimax value of `state` in seeds as [`crate::search`] reports it (the round's final
/// margin for the side to move, seeds already taken included), and whether it is exact.
/// `None` when no move is expected.
#[must_use]
pub fn minimax_state(state: &GameState, depth: u32) -> Option<(i32, bool)> {
    minimax_state_budget(state, depth, u64::MAX)
}

/// [`minimax_state`] within a budget of `budget` nodes: `None` also when it runs out.
#[must_use]
pub fn minimax_state_budget(state: &GameState, depth: u32, budget: u64) -> Option<(i32, bool)> {
    if state.is_round_over() {
        return None;
    }
    let pos = state.position();
    // The root itself is never a repetition (the state says a move is expected).
    let (v, e) = minimax_root(pos, depth, state.history(), budget)?;
    let t = state.taken_this_round();
    let me = pos.to_move();
    let offset = i32::from(t[me.index()]) - i32::from(t[me.other().index()]);
    Some((offset + crate::search::to_seeds(v), e))
}

fn minimax_root(pos: &Position, depth: u32, history: &[u128], budget: u64) -> Option<(i32, bool)> {
    // `history` may end with the root's own key (a state's history does); only that key is
    // dropped, never a real earlier visit.
    let mut h = pussa_rules::earlier_history(history, pos).to_vec();
    minimax_earlier(pos, depth, &mut h, &mut { budget })
}
