//! The plain exhaustive search the table tests compare with, written independently of the
//! table builder: it plays through the rules crate's `GameState`, which carries the full
//! repetition history, skips closed holes and applies every end-of-round rule itself.

use std::collections::HashMap;

use pussa_rules::GameState;

/// Final margin (mover minus opponent) of the seeds still to be taken, by alpha-beta over
/// `GameState`s. A state just after seeds left the board (its history holds only itself) has a
/// value that depends on the board alone: those are searched with a full window and remembered.
pub struct Exhaustive {
    memo: HashMap<u128, i32>,
}

impl Exhaustive {
    /// A search with an empty memo.
    pub fn new() -> Exhaustive {
        Exhaustive {
            memo: HashMap::new(),
        }
    }

    /// The value of a state just after seeds left the board (its history holds only itself).
    pub fn fresh(&mut self, state: &GameState) -> i32 {
        let key = state.position().repetition_key();
        if let Some(&v) = self.memo.get(&key) {
            return v;
        }
        let k = state.position().seeds_on_board() as i32;
        let v = self.search(state, -k - 1, k + 1);
        self.memo.insert(key, v);
        v
    }

    /// The value of `state` for its mover within `(alpha, beta)` (fail-soft).
    pub fn search(&mut self, state: &GameState, alpha: i32, beta: i32) -> i32 {
        let me = state.position().to_move();
        let mut best = i32::MIN;
        let mut alpha = alpha;
        for mv in state.legal_moves() {
            let mut s = state.clone();
            let before = s.position().stores();
            s.play(mv).expect("legal move");
            let after = s.position().stores();
            let gain = i32::from(after[me.index()] - before[me.index()])
                - i32::from(after[me.other().index()] - before[me.other().index()]);
            let v = if s.is_over() {
                gain
            } else if s.history().len() == 1 {
                gain - self.fresh(&s)
            } else {
                // The child's window is shifted by what this move took.
                gain - self.search(&s, gain - beta, gain - alpha)
            };
            best = best.max(v);
            if best >= beta {
                return best;
            }
            alpha = alpha.max(best);
        }
        best
    }
}
