//! Retrograde analysis of one layer (all boards with the same number of seeds).

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::time::Instant;

use pussa_rules::Game;
use rayon::prelude::*;

use crate::index::{layer_size, rank, unrank};
use crate::moves::{children, terminal_value};
use crate::search::{Lookup, PathSearch};
use crate::value::{encode, UNDETERMINED, UNSOLVED};

/// Options of a build.
#[derive(Clone, Copy, Debug)]
pub struct BuildOptions {
    /// Node budget of the history search for one position; past it the position is stored as
    /// not determined.
    pub search_budget: u64,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            search_budget: 1 << 22,
        }
    }
}

/// What happened while building one layer.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LayerStats {
    /// Seeds on the board.
    pub seeds: usize,
    /// Positions in the layer.
    pub positions: u64,
    /// Positions settled in the first pass (no move keeps every seed on the board, or a
    /// capture already reaches the best possible value).
    pub direct: u64,
    /// Positions settled by the passes over non-capturing moves (no endless chain reachable).
    pub acyclic: u64,
    /// Passes over the unsettled positions.
    pub passes: u32,
    /// Positions from which a chain of non-capturing moves can reach a cycle: their value is
    /// the exact value for a history that starts there (flagged in the table).
    pub history: u64,
    /// Positions stored as not determined (a history search ran out of budget, or a move
    /// leads to such a position).
    pub undetermined: u64,
    /// Nodes visited by the history searches.
    pub search_nodes: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Seconds spent in the first pass, the passes over non-capturing moves and the history
    /// searches.
    pub phase_seconds: [f64; 3],
}

/// Progress of a build, for a progress bar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// The layer being built.
    pub seeds: usize,
    /// The phase: 1 = first pass, 2 = passes over non-capturing moves, 3 = history searches.
    pub phase: u8,
    /// Work done in this phase.
    pub done: u64,
    /// Work in this phase.
    pub total: u64,
}

struct BuildView<'a> {
    game: Game,
    k: usize,
    lower: &'a [&'a [u8]],
    cur: &'a [AtomicU8],
}

impl Lookup for BuildView<'_> {
    fn game(&self) -> Game {
        self.game
    }
    #[inline]
    fn byte(&self, k: usize, idx: u64) -> u8 {
        if k == self.k {
            self.cur[idx as usize].load(Ordering::Relaxed)
        } else {
            self.lower[k][idx as usize]
        }
    }
}

/// What the first pass learns about one position.
enum First {
    /// Settled: the byte.
    Done(u8),
    /// Waiting for same-layer positions: the best value over the moves that take seeds
    /// (`i32::MIN` if none) and the ranks of the same-layer children.
    Wait(i32, [u32; 7], usize),
}

/// The first look at board `b` of layer `k`: terminal, all moves taking seeds, or a capture
/// already reaching the best possible value settle it; otherwise its same-layer children.
fn first_look(view: &BuildView<'_>, b: &[u8; 14]) -> First {
    let game = view.game;
    let k = view.k;
    let moves = children(game, b);
    if let Some(v) = terminal_value(game, b, &moves) {
        return First::Done(encode(v, false));
    }
    let max = k as i32;
    let mut best = i32::MIN;
    let mut same = [0u32; 7];
    let mut n = 0;
    for c in moves.as_slice() {
        let r = rank(&c.board);
        if c.seeds == k {
            same[n] = r as u32;
            n += 1;
            continue;
        }
        let byte = view.byte(c.seeds, r);
        if byte == UNDETERMINED {
            return First::Done(UNDETERMINED);
        }
        best = best.max(c.gain - (i32::from(byte & 0x7F) - 63));
    }
    if best >= max || n == 0 {
        First::Done(encode(best, false))
    } else {
        First::Wait(best, same, n)
    }
}

/// The positions of a chunk still waiting after the first pass, with their same-layer edges.
#[derive(Default)]
struct Waiting {
    idx: Vec<u64>,
    base: Vec<i8>,
    /// `edges[start[i]..start[i + 1]]` are the same-layer children of `idx[i]`.
    start: Vec<u32>,
    edges: Vec<u32>,
    /// Still unsettled.
    open: Vec<bool>,
    left: usize,
}

impl Waiting {
    /// One pass: settles what can be settled from the current bytes; returns how many.
    fn pass(&mut self, cur: &[AtomicU8], max: i32) -> usize {
        let mut settled = 0;
        for i in 0..self.idx.len() {
            if !self.open[i] {
                continue;
            }
            let mut best = if self.base[i] == i8::MIN {
                i32::MIN
            } else {
                i32::from(self.base[i])
            };
            let mut waiting = false;
            let mut undetermined = false;
            for &e in &self.edges[self.start[i] as usize..self.start[i + 1] as usize] {
                let byte = cur[e as usize].load(Ordering::Relaxed);
                if byte == UNSOLVED {
                    waiting = true;
                } else if byte == UNDETERMINED {
                    undetermined = true;
                } else {
                    best = best.max(63 - i32::from(byte & 0x7F));
                }
            }
            let byte = if best >= max {
                encode(best, false)
            } else if waiting {
                continue;
            } else if undetermined {
                UNDETERMINED
            } else {
                encode(best, false)
            };
            cur[self.idx[i] as usize].store(byte, Ordering::Relaxed);
            self.open[i] = false;
            settled += 1;
        }
        self.left -= settled;
        settled
    }
}

/// Builds layer `k` of `game` from the finished layers `lower[0..k]`.
///
/// # Panics
/// Panics if `lower.len() != k` or a lower layer has the wrong size.
pub fn build_layer(
    game: Game,
    k: usize,
    lower: &[&[u8]],
    opts: BuildOptions,
    progress: &(dyn Fn(Progress) + Sync),
) -> (Vec<u8>, LayerStats) {
    assert_eq!(lower.len(), k, "layers 0..{k} are needed");
    for (j, l) in lower.iter().enumerate() {
        assert_eq!(
            l.len() as u64,
            layer_size(j),
            "layer {j} has the wrong size"
        );
    }
    let t0 = Instant::now();
    let n = layer_size(k);
    let cur = to_atomic(vec![UNSOLVED; n as usize]);
    let view = BuildView {
        game,
        k,
        lower,
        cur: &cur,
    };
    let mut stats = LayerStats {
        seeds: k,
        positions: n,
        ..LayerStats::default()
    };

    // Pass 1: terminal positions and positions whose moves all take seeds; the same-layer
    // edges of the others are kept (ranks fit in 32 bits up to 22 seeds).
    assert!(
        n <= u64::from(u32::MAX),
        "layers above 22 seeds are not supported"
    );
    let chunk = 1u64 << 16;
    let done = AtomicU64::new(0);
    let nchunks = n.div_ceil(chunk);
    let mut parts: Vec<Waiting> = (0..nchunks)
        .into_par_iter()
        .map(|c| {
            let lo = c * chunk;
            let hi = (lo + chunk).min(n);
            let mut w = Waiting::default();
            w.start.push(0);
            for idx in lo..hi {
                let b = unrank(k, idx);
                match first_look(&view, &b) {
                    First::Done(byte) => cur[idx as usize].store(byte, Ordering::Relaxed),
                    First::Wait(best, same, m) => {
                        w.idx.push(idx);
                        w.base.push(if best == i32::MIN {
                            i8::MIN
                        } else {
                            best as i8
                        });
                        w.edges.extend_from_slice(&same[..m]);
                        w.start.push(w.edges.len() as u32);
                    }
                }
            }
            w.open = vec![true; w.idx.len()];
            w.left = w.idx.len();
            let d = done.fetch_add(hi - lo, Ordering::Relaxed) + hi - lo;
            progress(Progress {
                seeds: k,
                phase: 1,
                done: d,
                total: n,
            });
            w
        })
        .collect();
    let waiting: u64 = parts.iter().map(|w| w.left as u64).sum();
    stats.direct = n - waiting;
    stats.phase_seconds[0] = t0.elapsed().as_secs_f64();

    // Pass 2: settle positions whose non-capturing moves lead to settled positions, until
    // nothing changes. What is left can reach a cycle of non-capturing moves.
    let max = k as i32;
    let mut left = waiting;
    loop {
        stats.passes += 1;
        let settled: usize = parts.par_iter_mut().map(|w| w.pass(&cur, max)).sum();
        left -= settled as u64;
        progress(Progress {
            seeds: k,
            phase: 2,
            done: waiting - left,
            total: waiting,
        });
        if settled == 0 {
            break;
        }
    }
    let unsolved: Vec<u64> = parts
        .iter()
        .flat_map(|w| {
            w.idx
                .iter()
                .zip(&w.open)
                .filter(|(_, &o)| o)
                .map(|(&i, _)| i)
        })
        .collect();
    drop(parts);
    stats.acyclic = n - stats.direct - unsolved.len() as u64;
    stats.phase_seconds[1] = t0.elapsed().as_secs_f64() - stats.phase_seconds[0];

    // Pass 3: the exact search with the path for each position that can reach a cycle.
    let total = unsolved.len() as u64;
    let done = AtomicU64::new(0);
    let nodes = AtomicU64::new(0);
    let results: Vec<u8> = unsolved
        .par_chunks(256)
        .flat_map_iter(|part| {
            let mut s = PathSearch::new(&view, 0);
            let mut out = Vec::with_capacity(part.len());
            let mut used = 0;
            for &idx in part {
                let b = unrank(k, idx);
                s.clear();
                s.budget = opts.search_budget;
                let r = s.search(&b, idx, k, false, -(k as i32) - 1, k as i32 + 1);
                used += opts.search_budget - s.budget;
                out.push(match r {
                    Ok(v) => encode(v, true),
                    Err(_) => UNDETERMINED,
                });
            }
            nodes.fetch_add(used, Ordering::Relaxed);
            let d = done.fetch_add(part.len() as u64, Ordering::Relaxed) + part.len() as u64;
            progress(Progress {
                seeds: k,
                phase: 3,
                done: d,
                total,
            });
            out
        })
        .collect();
    stats.history = total;
    stats.search_nodes = nodes.into_inner();
    for (&idx, &byte) in unsolved.iter().zip(&results) {
        cur[idx as usize].store(byte, Ordering::Relaxed);
    }
    drop(results);
    drop(unsolved);
    let table = from_atomic(cur);
    stats.undetermined = table.par_iter().filter(|&&b| b == UNDETERMINED).count() as u64;
    stats.seconds = t0.elapsed().as_secs_f64();
    stats.phase_seconds[2] = stats.seconds - stats.phase_seconds[0] - stats.phase_seconds[1];
    (table, stats)
}

fn to_atomic(v: Vec<u8>) -> Vec<AtomicU8> {
    let mut v = std::mem::ManuallyDrop::new(v);
    let (ptr, len, cap) = (v.as_mut_ptr(), v.len(), v.capacity());
    // SAFETY: `AtomicU8` has the same size, alignment and bit validity as `u8`, and the
    // allocation is handed over whole (same length and capacity).
    unsafe { Vec::from_raw_parts(ptr.cast::<AtomicU8>(), len, cap) }
}

fn from_atomic(v: Vec<AtomicU8>) -> Vec<u8> {
    let mut v = std::mem::ManuallyDrop::new(v);
    let (ptr, len, cap) = (v.as_mut_ptr(), v.len(), v.capacity());
    // SAFETY: as in `to_atomic`; no other reference to the atomics is alive.
    unsafe { Vec::from_raw_parts(ptr.cast::<u8>(), len, cap) }
}
