//! The exact search inside a layer that settles positions from which an endless chain of
//! non-capturing moves can be reached: it carries the path since the last capture, so the
//! repetition rule ends the round exactly as the contract says.

use pussa_rules::Game;

use crate::moves::{row_margin, terminal_value};
use crate::ring::Ring;
use crate::value::{HISTORY_FLAG, UNDETERMINED, UNSOLVED};

/// Read access to table bytes by seed count and rank.
pub(crate) trait Lookup: Sync {
    /// The index space.
    type R: Ring;
    /// The index space.
    fn ring(&self) -> Self::R;
    /// The byte of the board with `k` seeds and rank `idx`.
    fn byte(&self, k: usize, idx: u64) -> u8;
    /// Bounds on the value of a board of layer `k` (rank `idx`) that hold for every history in
    /// which it is new to the round, if known (during a build: the bound iteration's).
    #[inline]
    fn bounds(&self, _k: usize, _idx: u64) -> Option<(i32, i32)> {
        None
    }
}

/// True if a same-layer byte cannot be used when the path since the last capture is not empty:
/// it is not solved yet (during a build) or its value holds only for a fresh history.
#[inline]
pub(crate) fn needs_search(b: u8) -> bool {
    b != UNDETERMINED && (b & 0x7F == UNSOLVED || b & HISTORY_FLAG != 0)
}

#[inline]
fn margin(b: u8) -> i32 {
    i32::from(b & 0x7F) - 63
}

/// Depth-first alpha-beta over the positions of one layer with the path carried along.
pub(crate) struct PathSearch<'a, L: Lookup> {
    look: &'a L,
    ring: L::R,
    game: Game,
    /// (rank, parity of the ply) of every position on the path; equal ranks at the same parity
    /// are the same position with the same player to move.
    path: Vec<(u64, bool)>,
    /// Nodes left before giving up.
    pub budget: u64,
}

/// The search gave up (node budget) or met an undetermined table entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct GaveUp;

impl<'a, L: Lookup> PathSearch<'a, L> {
    pub(crate) fn new(look: &'a L, budget: u64) -> Self {
        PathSearch {
            look,
            ring: look.ring(),
            game: look.ring().game(),
            path: Vec::with_capacity(64),
            budget,
        }
    }

    /// Pushes a position onto the path without searching it (the history before a root).
    pub(crate) fn push_history(&mut self, idx: u64, parity: bool) {
        self.path.push((idx, parity));
    }

    /// Clears the path.
    pub(crate) fn clear(&mut self) {
        self.path.clear();
    }

    /// The value of board `b` (`k` seeds, rank `idx`, ply parity `parity`) for its
    /// mover, given the path, within the window `(alpha, beta)` (fail-soft).
    pub(crate) fn search(
        &mut self,
        b: &[u8; 14],
        idx: u64,
        k: usize,
        parity: bool,
        alpha: i32,
        beta: i32,
    ) -> Result<i32, GaveUp> {
        if self.budget == 0 {
            return Err(GaveUp);
        }
        self.budget -= 1;
        let side = self.ring.side_of(k, idx);
        let cside = self.ring.child_side(side);
        let moves = self.ring.children(side, b);
        if let Some(v) = terminal_value(self.game, b, &moves) {
            return Ok(v);
        }
        let max = k as i32;
        let mut best = i32::MIN;
        let mut alpha = alpha;
        // Captures first: their values are exact whatever the path (it is cleared).
        for c in moves.as_slice().iter().filter(|c| c.seeds < k) {
            let byte = self
                .look
                .byte(c.seeds, self.ring.rank(cside, c.seeds, &c.board));
            if byte == UNDETERMINED {
                return Err(GaveUp);
            }
            let v = c.gain - margin(byte);
            best = best.max(v);
        }
        if best >= beta || best >= max {
            return Ok(best);
        }
        alpha = alpha.max(best);
        let mut deferred = [(0u64, 0usize); 7];
        let mut nd = 0;
        for (i, c) in moves
            .as_slice()
            .iter()
            .enumerate()
            .filter(|(_, c)| c.seeds == k)
        {
            let cidx = self.ring.rank(cside, k, &c.board);
            let byte = self.look.byte(k, cidx);
            if byte == UNDETERMINED {
                return Err(GaveUp);
            }
            let v = if self.path.contains(&(cidx, !parity)) {
                // Repetition: the round ends, each takes their own row.
                -row_margin(&c.board)
            } else if needs_search(byte) {
                match self.look.bounds(k, cidx) {
                    // The move cannot raise the value above alpha: its upper bound will do.
                    Some((lo, _)) if -lo <= alpha => -lo,
                    // The move reaches beta whatever the path: its lower bound will do.
                    Some((_, hi)) if -hi >= beta => -hi,
                    _ => {
                        deferred[nd] = (cidx, i);
                        nd += 1;
                        continue;
                    }
                }
            } else {
                -margin(byte)
            };
            best = best.max(v);
            if best >= beta || best >= max {
                return Ok(best);
            }
            alpha = alpha.max(best);
        }
        if nd > 0 {
            self.path.push((idx, parity));
            for &(cidx, i) in &deferred[..nd] {
                let c = moves.list[i];
                let r = self.search(&c.board, cidx, k, !parity, -beta, -alpha);
                let v = match r {
                    Ok(v) => -v,
                    Err(e) => {
                        self.path.pop();
                        return Err(e);
                    }
                };
                best = best.max(v);
                if best >= beta || best >= max {
                    break;
                }
                alpha = alpha.max(best);
            }
            self.path.pop();
        }
        Ok(best)
    }
}
