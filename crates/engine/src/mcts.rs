//! Monte Carlo tree search (UCT) with random playouts: the second algorithm, a comparison for
//! the alpha-beta search.
//!
//! Rewards are the round's result for the player who made the move into a node: 1 for a win,
//! ½ for a draw, 0 for a loss, blended with a little of the seed margin (so that, among won
//! lines, bigger wins are preferred). The tree applies every end-of-round rule, the repetition
//! rule included (with the history since seeds last left the board); the playouts
//! ([`pussa_rules::playout`]) do too, from the leaf, but start their own repetition history
//! there (a position seen in the tree above the leaf is not remembered by the playout: a small
//! approximation that only affects the estimate, never the legality of a move).

use std::time::Instant;

use pussa_rules::{playout, GameState, Hole, PlayoutScratch, Position, Rng, Side};

use crate::eval::{self, RoundEnd};
use crate::params;
use crate::{Limits, SearchResult};

struct Node {
    pos: Position,
    mv: u8,
    parent: u32,
    first_child: u32,
    n_children: u8,
    expanded: bool,
    /// The round's end at this node, as South's final future margin (seeds), if it is terminal.
    terminal: Option<i32>,
    visits: u32,
    /// Sum of rewards for the player who moved into this node.
    reward: f64,
    /// Repetition keys since seeds last left the board, including this node's.
    hist: Vec<u128>,
}

/// South's final margin of the round, from stores, relative to `base` (the stores at the root).
fn south_margin(stores: [u8; 2], base: [u8; 2]) -> i32 {
    (i32::from(stores[0]) - i32::from(base[0])) - (i32::from(stores[1]) - i32::from(base[1]))
}

fn reward_for(mover: Side, south_total: i32, total_seeds: i32) -> f64 {
    let m = if mover == Side::South {
        south_total
    } else {
        -south_total
    };
    let wdl = match m.cmp(&0) {
        std::cmp::Ordering::Greater => 1.0,
        std::cmp::Ordering::Equal => 0.5,
        std::cmp::Ordering::Less => 0.0,
    };
    0.9 * wdl + 0.1 * (0.5 + 0.5 * f64::from(m) / f64::from(total_seeds.max(1)))
}

/// Terminal check of a node (the contract's end-of-round rules, in order). Returns South's
/// future margin (from the board) if the round ends here.
fn terminal_of(pos: &Position, hist: &[u128], is_root: bool) -> Option<i32> {
    let south = |v: i32| if pos.to_move() == Side::South { v } else { -v };
    if eval::one_row_end(pos) {
        return Some(south(
            eval::terminal(pos, RoundEnd::EachOwnRow) / params::SCALE,
        ));
    }
    if !is_root && hist[..hist.len() - 1].contains(&pos.repetition_key()) {
        return Some(south(
            eval::terminal(pos, RoundEnd::EachOwnRow) / params::SCALE,
        ));
    }
    if !pos.has_legal_move() {
        return Some(south(
            eval::terminal(pos, eval::stuck_end(pos)) / params::SCALE,
        ));
    }
    None
}

/// How many playouts [`search`] runs without `limits.nodes` and `limits.movetime`.
pub const DEFAULT_PLAYOUTS: u64 = 10_000;

/// Runs UCT on `state` for `limits.nodes` playouts (default [`DEFAULT_PLAYOUTS`], 10,000) or
/// `limits.movetime`, whichever comes first, or until `limits.stop` is raised. `limits.depth`
/// is not used: UCT has no search depth. Deterministic for a given seed
/// without a move time. The best move is the most visited; `score` is its mean reward scaled to
/// −100..100 (0 = a draw expected), not seeds; `exact` is false; `nodes` counts playouts.
///
/// When no move is expected (the round is over, or the side to move has no legal move),
/// nothing is searched: `best` is `None`, `nodes` and `depth` are 0, `score` is the result for
/// the side to move on the same scale (a win 90..100, a draw 0, a loss −100..−90: the reward
/// of that end, with its seed margin), and `exact` is true, since it is the result and not an
/// estimate. In a single game the result is the round's margin; in a match it is the holdings
/// margin (the stores, what was carried over plus what was taken this round), so a round lost
/// by a side that still holds more is a win for it. [`crate::search`] answers the same case
/// with the same margin in seeds (`search`'s root offset); the signs agree in both modes.
///
/// # Examples
/// ```
/// use pussa_engine::{mcts, Limits};
/// use pussa_rules::{Game, GameState, Mode, Side};
/// let state = GameState::new(Game::RajaPasu, Mode::Single, Side::South);
/// let limits = Limits { nodes: Some(2_000), seed: 3, ..Limits::default() };
/// let r = mcts::search(&state, &limits);
/// assert!(state.legal_moves().contains(r.best.unwrap()));
/// assert_eq!((r.nodes, r.exact), (2_000, false));
/// assert!((-100..=100).contains(&r.score));
/// assert_eq!(mcts::search(&state, &limits), r); // same seed, same result
/// ```
#[must_use]
pub fn search(state: &GameState, limits: &Limits) -> SearchResult {
    let root_pos = *state.position();
    let total = i32::from(root_pos.game().total_seeds());
    let taken = state.taken_this_round();
    // South's margin of the round so far.
    let so_far = i32::from(taken[0]) - i32::from(taken[1]);
    if state.is_round_over() || !root_pos.has_legal_move() {
        // No move expected: the result (the seeds left on the board going as the round's end
        // gives them, if the state has not applied it yet), on the reward's scale. In a match,
        // the holdings margin, as `search` counts it, not the round's.
        let rest = if state.is_round_over() {
            0
        } else {
            terminal_of(&root_pos, &[], true).unwrap_or(0)
        };
        let base = match state.mode() {
            pussa_rules::Mode::Single => so_far,
            pussa_rules::Mode::Match => {
                let stores = root_pos.stores();
                i32::from(stores[0]) - i32::from(stores[1])
            }
        };
        let reward = reward_for(root_pos.to_move(), base + rest, total);
        return SearchResult {
            best: None,
            score: ((reward - 0.5) * 200.0).round() as i32,
            exact: true,
            depth: 0,
            nodes: 0,
            pv: Vec::new(),
        };
    }
    let start = Instant::now();
    let deadline = limits.movetime.map(|t| start + t);
    let budget = limits.nodes.unwrap_or(if limits.movetime.is_some() {
        u64::MAX
    } else {
        DEFAULT_PLAYOUTS
    });
    let mut rng = Rng::new(limits.seed ^ 0x6d63_7473);
    let mut scratch = PlayoutScratch::default();
    let base = root_pos.stores();
    let mut root_hist = pussa_rules::earlier_history(state.history(), &root_pos).to_vec();
    root_hist.push(root_pos.repetition_key());
    let mut nodes = vec![Node {
        pos: root_pos,
        mv: 255,
        parent: u32::MAX,
        first_child: 0,
        n_children: 0,
        expanded: false,
        terminal: None,
        visits: 0,
        reward: 0.0,
        hist: root_hist,
    }];
    let mut playouts = 0u64;
    while playouts < budget {
        if playouts & 63 == 0 {
            if deadline.is_some_and(|d| Instant::now() >= d) {
                break;
            }
            if limits
                .stop
                .as_ref()
                .is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed))
            {
                break;
            }
        }
        // Selection.
        let mut cur = 0usize;
        while nodes[cur].expanded && nodes[cur].terminal.is_none() {
            let parent_visits = f64::from(nodes[cur].visits.max(1)).ln();
            let (f, n) = (
                nodes[cur].first_child as usize,
                nodes[cur].n_children as usize,
            );
            let mut best = f;
            let mut best_u = f64::NEG_INFINITY;
            for (k, ch) in nodes[f..f + n].iter().enumerate() {
                let u = if ch.visits == 0 {
                    1e9 + rng.unit()
                } else {
                    ch.reward / f64::from(ch.visits)
                        + params::UCT_C * (parent_visits / f64::from(ch.visits)).sqrt()
                };
                if u > best_u {
                    best_u = u;
                    best = f + k;
                }
            }
            cur = best;
        }
        // Expansion.
        if !nodes[cur].expanded
            && nodes[cur].terminal.is_none()
            && nodes[cur].visits >= params::MCTS_EXPAND_AFTER.saturating_sub(1)
        {
            let pos = nodes[cur].pos;
            let first = nodes.len() as u32;
            let mut count = 0u8;
            for mv in pos.candidates() {
                let mut c = pos;
                if let Some(out) = c.play_unchecked(mv) {
                    let hist = if out.seeds_taken() > 0 {
                        vec![c.repetition_key()]
                    } else {
                        let mut h = nodes[cur].hist.clone();
                        h.push(c.repetition_key());
                        h
                    };
                    let terminal = terminal_of(&c, &hist, false);
                    nodes.push(Node {
                        pos: c,
                        mv: mv.index() as u8,
                        parent: cur as u32,
                        first_child: 0,
                        n_children: 0,
                        expanded: false,
                        terminal,
                        visits: 0,
                        reward: 0.0,
                        hist,
                    });
                    count += 1;
                }
            }
            nodes[cur].first_child = first;
            nodes[cur].n_children = count;
            nodes[cur].expanded = true;
            if count > 0 {
                cur = first as usize + rng.below(u32::from(count)) as usize;
            }
        }
        // Simulation: South's final margin of the round.
        let node = &nodes[cur];
        let south_total = match node.terminal {
            Some(t) => so_far + south_margin(node.pos.stores(), base) + t,
            None => {
                let r = playout(&node.pos, &mut rng, &mut scratch);
                so_far + south_margin(r.stores, base)
            }
        };
        playouts += 1;
        // Backpropagation.
        let mut i = cur;
        loop {
            let n = &mut nodes[i];
            n.visits += 1;
            if n.parent != u32::MAX {
                let mover = n.pos.to_move().other();
                n.reward += reward_for(mover, south_total, total);
                i = n.parent as usize;
            } else {
                break;
            }
        }
    }
    let root = &nodes[0];
    let (f, n) = (root.first_child as usize, root.n_children as usize);
    let best = (f..f + n).max_by_key(|&c| (nodes[c].visits, std::cmp::Reverse(nodes[c].mv)));
    let (best_mv, score, pv) = match best {
        Some(c) => {
            let mean = nodes[c].reward / f64::from(nodes[c].visits.max(1));
            let mut pv = vec![Hole::ALL[nodes[c].mv as usize]];
            let mut cur = c;
            while nodes[cur].expanded && nodes[cur].n_children > 0 {
                let (f, n) = (
                    nodes[cur].first_child as usize,
                    nodes[cur].n_children as usize,
                );
                // `n > 0`, so there is a most visited child; stop at one never visited.
                let Some(next) = (f..f + n)
                    .max_by_key(|&k| nodes[k].visits)
                    .filter(|&k| nodes[k].visits > 0)
                else {
                    break;
                };
                pv.push(Hole::ALL[nodes[next].mv as usize]);
                cur = next;
            }
            (
                Some(Hole::ALL[nodes[c].mv as usize]),
                ((mean - 0.5) * 200.0).round() as i32,
                pv,
            )
        }
        None => (root_pos.legal_moves().next(), 0, Vec::new()),
    };
    SearchResult {
        best: best_mv,
        score,
        exact: false,
        depth: pv.len() as u32,
        nodes: playouts,
        pv,
    }
}
