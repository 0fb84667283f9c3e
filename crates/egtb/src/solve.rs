//! Exact alpha-beta search above the tables, for solving start positions.
//!
//! The search works on boards seen from the player to move and carries the path since seeds last
//! left the board, so the repetition rule ends the round exactly as the contract says. A position
//! reached by a move that took seeds (or the root) starts a fresh history: its value depends on
//! the board alone, so only such positions go into the transposition table, and inside the
//! tables' range they are read directly from the tables (a flagged entry is exact for a fresh
//! history). Positions further along a chain of non-capturing moves are searched on, except where
//! the tables say their value holds for any history.

use std::collections::HashMap;

use pussa_rules::{Game, GameState, Hole, Mode, Position, Side};

use crate::moves::{canonical, move_letter, row_margin, seeds, terminal_value, Pattern};
use crate::ring::{PairRing, Ring};
use crate::search::Lookup;
use crate::value::Entry;
use crate::{Remedy, Tables};

/// The search gave up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SolveError {
    /// The node limit was reached.
    #[error("node limit reached before the value was proved")]
    NodeLimit,
    /// A table entry needed is not determined.
    #[error("a table entry needed is not determined")]
    Undetermined,
    /// The tables are for another game.
    #[error("the tables are for {tables}, the position for {position}")]
    WrongGame {
        /// The tables' game.
        tables: Game,
        /// The position's game.
        position: Game,
    },
    /// The position's closed holes are not a closing of the game (a refill closes the holes
    /// at one end of a row, at most six).
    #[error("the position's closed holes are not a closing of the game")]
    ClosedHoles,
    /// A table entry holds a value no board of its seeds can have (a damaged table, or tables
    /// not checked when they were opened, e.g. built in memory from bad layers).
    #[error("the tables are inconsistent: an entry of {} holds the impossible value {value:+} (a damaged table)", crate::format::count(*.seeds as u64, "seed", "seeds"))]
    ImpossibleValue {
        /// The seeds of the entry's board.
        seeds: usize,
        /// The value it holds.
        value: i32,
    },
    /// The tables contradict themselves: no move of a position reaches the exact value they
    /// prove for it (a damaged table, or tables built wrongly).
    #[error("the tables are inconsistent: no move of {} reaches its exact value {value:+} (a damaged table)", describe(.position))]
    Inconsistent {
        /// The position (its stores do not matter).
        position: Position,
        /// The value the tables give it.
        value: i32,
    },
    /// The tables are for other closed holes.
    #[error("the tables are for closed holes {tables} (seen from the player to move), the position has {position}")]
    WrongPattern {
        /// The tables' pattern.
        tables: Pattern,
        /// The position's pattern.
        position: Pattern,
    },
}

impl SolveError {
    /// What would fix the error, when the library knows: inconsistent tables
    /// ([`SolveError::ImpossibleValue`], [`SolveError::Inconsistent`]) are checked
    /// ([`Remedy::Verify`]) to find the damaged file. The message itself names no command.
    #[must_use]
    pub fn remedy(&self) -> Option<Remedy> {
        match self {
            SolveError::ImpossibleValue { .. } | SolveError::Inconsistent { .. } => {
                Some(Remedy::Verify)
            }
            _ => None,
        }
    }
}

/// The board of `pos` with the player to move, for a message: "0,1,0,2,0,0,0/1,0,0,0,1,0,1
/// with South to move".
fn describe(pos: &Position) -> String {
    let s = pussa_rules::Setup::from_position(pos, 1).to_string();
    let rows = s.split(' ').next().unwrap_or_default();
    format!("the board {rows} with {} to move", pos.to_move())
}

#[derive(Clone, Copy)]
struct TtEntry {
    lo: i8,
    hi: i8,
    best: u8,
}

/// An exact solver for one game, using its tables below the position.
pub struct Solver<'a> {
    tables: &'a Tables,
    ring: PairRing,
    game: Game,
    tt: HashMap<u128, TtEntry>,
    path: Vec<(u128, bool)>,
    /// Nodes searched so far.
    pub nodes: u64,
    /// Node limit.
    pub limit: u64,
    /// Table probes that ended a line.
    pub probes: u64,
}

/// A solved position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    /// The final margin of the seeds still to be taken for the player to move.
    pub value: i32,
    /// A principal variation: moves by both players to the end of the round.
    pub pv: Vec<Hole>,
    /// Nodes searched.
    pub nodes: u64,
}

/// A board of pattern side `side` as a key (the side in byte 15).
fn key(b: &[u8; 14], side: u8) -> u128 {
    let mut x = [0u8; 16];
    x[..14].copy_from_slice(b);
    x[15] = side;
    u128::from_le_bytes(x)
}

impl<'a> Solver<'a> {
    /// A solver over `tables` with a node limit.
    #[must_use]
    pub fn new(tables: &'a Tables, limit: u64) -> Solver<'a> {
        Solver {
            tables,
            ring: tables.ring(),
            game: tables.game(),
            tt: HashMap::new(),
            path: Vec::new(),
            nodes: 0,
            limit,
            probes: 0,
        }
    }

    /// The exact value of canonical board `b` for its mover within `(alpha, beta)` (fail-soft),
    /// given the path since the last capture (`parity` = this node's ply parity).
    fn search(
        &mut self,
        b: &[u8; 14],
        side: u8,
        parity: bool,
        alpha: i32,
        beta: i32,
    ) -> Result<i32, SolveError> {
        self.nodes += 1;
        if self.nodes > self.limit {
            return Err(SolveError::NodeLimit);
        }
        let k = seeds(b);
        let fresh = self.path.is_empty();
        if let Some(e) = self.tables.entry_of_side(side, b) {
            match e {
                Entry::Value { margin, .. } if margin.unsigned_abs() as usize > k => {
                    return Err(SolveError::ImpossibleValue {
                        seeds: k,
                        value: margin,
                    });
                }
                Entry::Value { margin, history } if fresh || !history => {
                    self.probes += 1;
                    return Ok(margin);
                }
                Entry::Value { .. } => {}
                Entry::Unknown => return Err(SolveError::Undetermined),
            }
        }
        let (mut alpha, mut beta) = (alpha, beta);
        let kb = key(b, side);
        let mut tt_best = 255u8;
        if fresh {
            if let Some(t) = self.tt.get(&kb) {
                let (lo, hi) = (i32::from(t.lo), i32::from(t.hi));
                if lo == hi || lo >= beta {
                    return Ok(lo);
                }
                if hi <= alpha {
                    return Ok(hi);
                }
                alpha = alpha.max(lo);
                beta = beta.min(hi);
                tt_best = t.best;
            }
        }
        let (a0, b0) = (alpha, beta);
        let moves = self.ring.children(side, b);
        let cside = self.ring.child_side(side);
        if let Some(v) = terminal_value(self.game, b, &moves) {
            return Ok(v);
        }
        let mut order: Vec<usize> = (0..moves.len).collect();
        order.sort_by_key(|&i| {
            let c = &moves.list[i];
            (c.col != tt_best, std::cmp::Reverse(c.gain))
        });
        let mut best = i32::MIN;
        let mut best_col = 255u8;
        self.path.push((kb, parity));
        let mut result = Ok(());
        for i in order {
            let c = moves.list[i];
            let v = if c.seeds < k {
                let saved = std::mem::take(&mut self.path);
                let r = self.search(&c.board, cside, !parity, c.gain - beta, c.gain - alpha);
                self.path = saved;
                match r {
                    Ok(w) => c.gain - w,
                    Err(e) => {
                        result = Err(e);
                        break;
                    }
                }
            } else if self.path.contains(&(key(&c.board, cside), !parity)) {
                -row_margin(&c.board)
            } else {
                match self.search(&c.board, cside, !parity, -beta, -alpha) {
                    Ok(w) => -w,
                    Err(e) => {
                        result = Err(e);
                        break;
                    }
                }
            };
            if v > best {
                best = v;
                best_col = c.col;
            }
            if best >= beta {
                break;
            }
            alpha = alpha.max(best);
        }
        self.path.pop();
        result?;
        if fresh {
            let max = k as i32;
            let (lo, hi) = if best <= a0 {
                (-max, best)
            } else if best >= b0 {
                (best, max)
            } else {
                (best, best)
            };
            let e = self.tt.entry(kb).or_insert(TtEntry {
                lo: -max as i8,
                hi: max as i8,
                best: 255,
            });
            e.lo = e.lo.max(lo as i8);
            e.hi = e.hi.min(hi as i8);
            e.best = best_col;
            if self.tt.len() > 30_000_000 {
                self.tt.clear();
            }
        }
        Ok(best)
    }

    fn exact(&mut self, b: &[u8; 14], side: u8, parity: bool) -> Result<i32, SolveError> {
        let k = seeds(b) as i32;
        self.search(b, side, parity, -k - 1, k + 1)
    }

    /// Solves `pos` (any seed count, any stores; closed holes if the tables are for its closed
    /// pattern, [`Tables::open_pattern`]) assuming the round's history starts there, and finds
    /// a principal variation to the end of the round.
    ///
    /// # Errors
    /// [`SolveError`]: node limit, undetermined entries, wrong game or closed holes, tables
    /// that contradict themselves (never a panic).
    pub fn solve(&mut self, pos: &Position) -> Result<Solution, SolveError> {
        let (root, root_side) = self.root(pos)?;
        let value = self.exact(&root, root_side, false)?;
        self.principal_variation(pos, root_side, value)
    }

    /// The exact value of `pos` for its mover, as [`Solver::solve`] finds it, without the
    /// principal variation.
    ///
    /// # Errors
    /// As [`Solver::solve`].
    pub fn value(&mut self, pos: &Position) -> Result<i32, SolveError> {
        let (root, root_side) = self.root(pos)?;
        self.exact(&root, root_side, false)
    }

    /// The canonical board of `pos` and its pattern side, with a fresh path.
    fn root(&mut self, pos: &Position) -> Result<([u8; 14], u8), SolveError> {
        if pos.game() != self.game {
            return Err(SolveError::WrongGame {
                tables: self.game,
                position: pos.game(),
            });
        }
        let pattern = if pos.closed_mask() == 0 {
            Pattern::OPEN
        } else {
            Pattern::of_position(pos).ok_or(SolveError::ClosedHoles)?
        };
        let Some(root_side) = self.ring.side_of_pattern(pattern) else {
            return Err(SolveError::WrongPattern {
                tables: self.tables.pattern(),
                position: pattern,
            });
        };
        self.path.clear();
        Ok((canonical(pos), root_side))
    }

    /// A principal variation of `pos` (exact value `value`, pattern side `root_side`) to the end
    /// of the round.
    fn principal_variation(
        &mut self,
        pos: &Position,
        root_side: u8,
        value: i32,
    ) -> Result<Solution, SolveError> {
        // The principal variation: at each position, a move whose exact value is the position's.
        let mut pv = Vec::new();
        let mut state = GameState::from_position(
            Position::from_parts_unchecked(
                self.game,
                pos.board(),
                pos.closed_mask(),
                [0, 0],
                pos.to_move(),
            ),
            Mode::Single,
            1,
            pos.to_move(),
        );
        self.path.clear();
        let mut target = value;
        let mut parity = false;
        let mut side = root_side;
        while !state.is_over() {
            let p = *state.position();
            let mover: Side = p.to_move();
            let b = canonical(&p);
            let k = seeds(&b);
            let moves = self.ring.children(side, &b);
            let cside = self.ring.child_side(side);
            let mut chosen = None;
            self.path.push((key(&b, side), parity));
            for c in moves.as_slice() {
                let v = if c.seeds < k {
                    let saved = std::mem::take(&mut self.path);
                    let r = self.exact(&c.board, cside, !parity);
                    self.path = saved;
                    c.gain - r?
                } else if self.path.contains(&(key(&c.board, cside), !parity)) {
                    -row_margin(&c.board)
                } else {
                    -self.exact(&c.board, cside, !parity)?
                };
                if v == target {
                    chosen = Some(*c);
                    break;
                }
            }
            let Some(c) = chosen else {
                return Err(SolveError::Inconsistent {
                    position: p,
                    value: target,
                });
            };
            let mv = move_letter(mover, c.col);
            state.play(mv).expect("a legal move");
            pv.push(mv);
            // The child's value for its own mover.
            target = c.gain - target;
            side = cside;
            if c.seeds < k {
                self.path.clear();
                parity = false;
            } else {
                parity = !parity;
            }
        }
        Ok(Solution {
            value,
            pv,
            nodes: self.nodes,
        })
    }
}

/// The start of a reduced game: `per_hole` seeds in every hole, `first` to move, empty stores.
/// Position strings cannot express it (they check the game's total), so it is built directly.
#[must_use]
pub fn reduced_start(game: Game, per_hole: u8, first: Side) -> Position {
    Position::from_parts_unchecked(game, [per_hole; 14], 0, [0, 0], first)
}
