//! The evaluation, in internal units ([`params::SCALE`] per seed), from the side to move's
//! point of view.
//!
//! Every score in the search is a *future margin*: the seeds the side to move will still take
//! in this round minus those the opponent will take. Seeds taken by a move are counted exactly
//! by the search as it goes (see `search.rs`), so a leaf's evaluation only has to guess how the
//! seeds still on the board will be shared. It gives a small share to the side whose row holds
//! more of them (they end up there when the round ends by repetition or, in Pasu Pondi, when a
//! row empties): [`params::EVAL_ROW_WEIGHT`] units per seed of row advantage. An exact round
//! end is always worth whole seeds ([`terminal`]).

use pussa_rules::{Position, Side, StuckRule};

use crate::params;

/// A static estimate of the future margin of `pos` for the side to move.
#[inline]
#[must_use]
pub fn evaluate(pos: &Position) -> i32 {
    let me = pos.to_move();
    let mine = pos.row_seeds(me) as i32;
    let theirs = pos.row_seeds(me.other()) as i32;
    params::EVAL_ROW_WEIGHT * (mine - theirs)
}

/// How a round ends at a node, by the contract's end-of-round rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoundEnd {
    /// Each player takes the seeds in their own row (Pasu Pondi's one-row end, repetition,
    /// Pasu Pondi's no-legal-move end).
    EachOwnRow,
    /// The player to move is stuck and the other takes every seed left (Walak-pussa, Raja Pasu).
    OtherTakesAll,
}

/// The exact future margin, in internal units, for the side to move when the round ends at
/// `pos` in the way `end`.
#[inline]
#[must_use]
pub fn terminal(pos: &Position, end: RoundEnd) -> i32 {
    let me = pos.to_move();
    let v = match end {
        RoundEnd::EachOwnRow => pos.row_seeds(me) as i32 - pos.row_seeds(me.other()) as i32,
        RoundEnd::OtherTakesAll => -(pos.seeds_on_board() as i32),
    };
    v * params::SCALE
}

/// The end for a position whose player to move has no legal move.
#[inline]
#[must_use]
pub fn stuck_end(pos: &Position) -> RoundEnd {
    match pos.game().stuck_rule() {
        StuckRule::OtherTakesAll => RoundEnd::OtherTakesAll,
        StuckRule::EachTakesOwnRow => RoundEnd::EachOwnRow,
    }
}

/// True when Pasu Pondi's one-row rule ends the round at `pos`.
#[inline]
#[must_use]
pub fn one_row_end(pos: &Position) -> bool {
    pos.game().one_row_ends_round()
        && (pos.row_seeds(Side::South) == 0 || pos.row_seeds(Side::North) == 0)
}
