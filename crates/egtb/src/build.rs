//! Retrograde analysis of one layer (all boards with the same number of seeds).

use std::sync::atomic::{AtomicI8, AtomicU64, AtomicU8, Ordering};
use std::time::Instant;

use pussa_rules::Game;
use rayon::prelude::*;

use crate::moves::{row_margin, terminal_value, Pattern};
use crate::ring::{OpenRing, PairRing, Ring};
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
    /// Positions from which a chain of non-capturing moves can reach a cycle (left after the
    /// passes over non-capturing moves).
    pub cyclic: u64,
    /// Of those, positions whose lower and upper bounds met: their value holds for any history.
    pub bounded: u64,
    /// Passes of the bound iteration.
    pub bound_passes: u32,
    /// Positions whose value does depend on the history of the round: their value is the exact
    /// value for a history that starts there (flagged in the table), found by a search that
    /// carries the path (a search that runs out of budget leaves its position not determined,
    /// counted in `undetermined`, not here).
    pub history: u64,
    /// Positions stored as not determined (a history search ran out of budget, or a move
    /// leads to such a position).
    pub undetermined: u64,
    /// Nodes visited by the history searches.
    pub search_nodes: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Seconds spent in the first pass, the passes over non-capturing moves, the bound
    /// iteration and the history searches.
    pub phase_seconds: [f64; 4],
}

/// Progress of a build, for a progress bar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// The layer being built.
    pub seeds: usize,
    /// The phase: 1 = first pass, 2 = passes over non-capturing moves, 3 = bound iteration,
    /// 4 = history searches.
    pub phase: u8,
    /// Work done in this phase.
    pub done: u64,
    /// Work in this phase.
    pub total: u64,
}

struct BuildView<'a, R: Ring> {
    ring: R,
    k: usize,
    lower: &'a [&'a [u8]],
    cur: &'a [AtomicU8],
    /// The bounds of the layer's cyclic boards, once iterated.
    bounds: Option<&'a Bounds>,
}

impl<R: Ring> Lookup for BuildView<'_, R> {
    type R = R;
    #[inline]
    fn ring(&self) -> R {
        self.ring
    }
    #[inline]
    fn byte(&self, k: usize, idx: u64) -> u8 {
        if k == self.k {
            self.cur[idx as usize].load(Ordering::Relaxed)
        } else {
            self.lower[k][idx as usize]
        }
    }
    #[inline]
    fn bounds(&self, k: usize, idx: u64) -> Option<(i32, i32)> {
        let b = self.bounds.filter(|_| k == self.k)?;
        let i = idx as usize;
        (b.own[i].load(Ordering::Relaxed) != NOT_CYCLIC).then(|| {
            (
                i32::from(b.lo[i].load(Ordering::Relaxed)),
                i32::from(b.hi[i].load(Ordering::Relaxed)),
            )
        })
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

/// The first look at board `b` of layer `k`: a terminal board, or one whose moves all take
/// seeds, is settled; otherwise the best value of its capturing moves and its same-layer
/// children are kept.
fn first_look<R: Ring>(view: &BuildView<'_, R>, idx: u64, b: &[u8; 14]) -> First {
    let ring = view.ring;
    let game = ring.game();
    let k = view.k;
    let side = ring.side_of(k, idx);
    let moves = ring.children(side, b);
    let cside = ring.child_side(side);
    if let Some(v) = terminal_value(game, b, &moves) {
        return First::Done(encode(v, false));
    }
    let mut best = i32::MIN;
    let mut same = [0u32; 7];
    let mut n = 0;
    for c in moves.as_slice() {
        let r = ring.rank(cside, c.seeds, &c.board);
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
    // A board with a same-layer child is never settled here, even when a capture already gives
    // the largest possible value: it may lie on a cycle, and its parents must then allow for a
    // repetition arriving at it (the bound iteration does; phase 2 settles only boards all of
    // whose same-layer children are settled, so every board it settles is acyclic).
    if n == 0 {
        First::Done(encode(best, false))
    } else {
        First::Wait(best, same, n)
    }
}

/// The positions of a chunk (at most [`CHUNK`] consecutive ranks from `lo`) still waiting
/// after the first pass, with their same-layer edges. About `4 + 4·edges` bytes a waiting
/// position: the rank as an offset into the chunk, the best capture, the number of edges and the
/// edges; whether a position is still open is its byte in the layer (`UNSOLVED` until settled).
#[derive(Default)]
struct Waiting {
    /// First rank of the chunk.
    lo: u64,
    /// `lo + off[i]` is the rank of the `i`-th waiting position.
    off: Vec<u16>,
    base: Vec<i8>,
    /// `count[i]` same-layer children of position `i`, stored one after another in `edges`.
    count: Vec<u8>,
    edges: Vec<u32>,
}

/// Ranks handled together in the first pass; offsets within a chunk fit in 16 bits.
const CHUNK: u64 = 1 << 16;

impl Waiting {
    /// The waiting positions in order: index, rank and same-layer children.
    fn each(&self) -> impl Iterator<Item = (usize, u64, &[u32])> {
        let mut at = 0usize;
        self.off
            .iter()
            .zip(&self.count)
            .enumerate()
            .map(move |(i, (&o, &c))| {
                let e = &self.edges[at..at + usize::from(c)];
                at += usize::from(c);
                (i, self.lo + u64::from(o), e)
            })
    }

    /// Keeps only the positions still open (`cur` is `UNSOLVED`), and gives back the memory
    /// of the others.
    fn compact(&mut self, cur: &[AtomicU8]) {
        let mut w = Waiting {
            lo: self.lo,
            ..Waiting::default()
        };
        for (i, idx, e) in self.each() {
            if cur[idx as usize].load(Ordering::Relaxed) == UNSOLVED {
                w.off.push(self.off[i]);
                w.base.push(self.base[i]);
                w.count.push(self.count[i]);
                w.edges.extend_from_slice(e);
            }
        }
        w.shrink();
        *self = w;
    }

    fn shrink(&mut self) {
        self.off.shrink_to_fit();
        self.base.shrink_to_fit();
        self.count.shrink_to_fit();
        self.edges.shrink_to_fit();
    }

    /// One pass: settles what can be settled from the current bytes; returns how many.
    fn pass(&mut self, cur: &[AtomicU8], changed: &Changed, look: bool, parity: u64) -> usize {
        let mut settled = 0;
        for (i, idx, edges) in self.each() {
            if cur[idx as usize].load(Ordering::Relaxed) != UNSOLVED {
                continue;
            }
            if look && !changed.any(edges) {
                continue;
            }
            let mut best = if self.base[i] == i8::MIN {
                i32::MIN
            } else {
                i32::from(self.base[i])
            };
            let mut waiting = false;
            let mut undetermined = false;
            for &e in edges {
                let byte = cur[e as usize].load(Ordering::Relaxed);
                if byte == UNSOLVED {
                    waiting = true;
                } else if byte == UNDETERMINED {
                    undetermined = true;
                } else {
                    best = best.max(63 - i32::from(byte & 0x7F));
                }
            }
            let byte = if waiting {
                continue;
            } else if undetermined {
                UNDETERMINED
            } else {
                encode(best, false)
            };
            cur[idx as usize].store(byte, Ordering::Relaxed);
            changed.set(idx, parity);
            settled += 1;
        }
        settled
    }

    /// Marks the positions still open as members of the cyclic part: `own[idx]` = the margin of
    /// the rows (what a repetition arriving at this position gives its mover).
    fn mark_cyclic<R: Ring>(&self, ring: R, k: usize, cur: &[AtomicU8], bounds: &Bounds) {
        for (_, idx, _) in self.each() {
            if cur[idx as usize].load(Ordering::Relaxed) == UNSOLVED {
                let b = ring.unrank(k, idx);
                let idx = idx as usize;
                bounds.own[idx].store(row_margin(&b) as i8, Ordering::Relaxed);
                bounds.lo[idx].store(-(k as i8), Ordering::Relaxed);
                bounds.hi[idx].store(k as i8, Ordering::Relaxed);
            }
        }
    }

    /// One pass of the bound iteration over the open positions (see [`Bounds`]): tightens
    /// their bounds from their children's and settles those whose bounds meet. Returns how many
    /// bounds moved and how many positions were settled.
    fn bounds_pass(
        &mut self,
        cur: &[AtomicU8],
        bounds: &Bounds,
        k: usize,
        changed: &Changed,
        look: bool,
        parity: u64,
    ) -> (usize, usize) {
        let mut moved = 0;
        let mut settled = 0;
        let kk = k as i32;
        for (i, rank, edges) in self.each() {
            let idx = rank as usize;
            if cur[idx].load(Ordering::Relaxed) != UNSOLVED {
                continue;
            }
            if look && !changed.any(edges) {
                continue;
            }
            let (mut lo, mut hi) = if self.base[i] == i8::MIN {
                (i32::MIN, i32::MIN)
            } else {
                (i32::from(self.base[i]), i32::from(self.base[i]))
            };
            for &e in edges {
                let e = e as usize;
                let own = bounds.own[e].load(Ordering::Relaxed);
                let (clo, chi) = if own != NOT_CYCLIC {
                    // A cyclic child: its value if it is new to the round, or the rows if
                    // it repeats a position of the round.
                    let own = i32::from(own);
                    let l = i32::from(bounds.lo[e].load(Ordering::Relaxed));
                    let h = i32::from(bounds.hi[e].load(Ordering::Relaxed));
                    (l.min(own), h.max(own))
                } else {
                    let byte = cur[e].load(Ordering::Relaxed);
                    if byte == UNDETERMINED || byte == UNSOLVED {
                        (-kk, kk)
                    } else {
                        let m = i32::from(byte & 0x7F) - 63;
                        (m, m)
                    }
                };
                lo = lo.max(-chi);
                hi = hi.max(-clo);
            }
            let old_lo = i32::from(bounds.lo[idx].load(Ordering::Relaxed));
            let old_hi = i32::from(bounds.hi[idx].load(Ordering::Relaxed));
            let lo = lo.max(old_lo);
            let hi = hi.min(old_hi);
            debug_assert!(lo <= hi, "bounds crossed: {lo} > {hi}");
            if lo != old_lo || hi != old_hi {
                moved += 1;
                changed.set(rank, parity);
                bounds.lo[idx].store(lo as i8, Ordering::Relaxed);
                bounds.hi[idx].store(hi as i8, Ordering::Relaxed);
            }
            if lo >= hi {
                cur[idx].store(encode(lo, false), Ordering::Relaxed);
                settled += 1;
            }
        }
        (moved, settled)
    }
}

/// The positions of one layer that changed in the current pass and in the one before, two bits a
/// rank side by side (bit `2·idx + parity` for a pass of that parity), so that a pass looks
/// again only at positions with a child changed since it last looked, and one memory read per
/// child answers for both passes.
struct Changed(Vec<AtomicU64>);

impl Changed {
    fn new(n: u64) -> Changed {
        Changed(
            (0..(2 * n).div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect(),
        )
    }
    #[inline]
    fn set(&self, idx: u64, parity: u64) {
        let bit = 2 * idx + parity;
        self.0[(bit >> 6) as usize].fetch_or(1 << (bit & 63), Ordering::Relaxed);
    }
    /// True if a position of `edges` changed in this pass or the one before.
    #[inline]
    fn any(&self, edges: &[u32]) -> bool {
        edges.iter().any(|&e| {
            let bit = 2 * u64::from(e);
            self.0[(bit >> 6) as usize].load(Ordering::Relaxed) & (3 << (bit & 63)) != 0
        })
    }
    /// Forgets the changes of the passes of `parity` (before a new pass of that parity).
    fn clear(&mut self, parity: u64) {
        let keep = if parity == 0 {
            0xAAAA_AAAA_AAAA_AAAA
        } else {
            0x5555_5555_5555_5555
        };
        self.0.par_iter_mut().for_each(|w| *w.get_mut() &= keep);
    }
}

/// `own` of a position outside the cyclic part.
const NOT_CYCLIC: i8 = i8::MIN;

/// Bounds on the values of the positions of the layer's cyclic part (those that can reach a
/// cycle of non-capturing moves), valid for **every** history of the round in which the
/// position is not itself a repetition.
///
/// The value of a move to a cyclic child is the child's value if the child is new to the
/// round, or its row margin (`own`) if it repeats an earlier position: so the move's value lies
/// between the two, whatever the history. Starting from `-k..=k` and iterating
/// `lo(p) = max over moves of -max(hi(c), own(c))`, `hi(p) = max over moves of
/// -min(lo(c), own(c))` (exact values for capturing moves and for children that cannot reach a
/// cycle) keeps both sound by induction on the iteration; where they meet, the value does not
/// depend on the history, nor on how endless play would be scored.
struct Bounds {
    lo: Vec<AtomicI8>,
    hi: Vec<AtomicI8>,
    own: Vec<AtomicI8>,
}

/// Builds layer `k` of `game`'s open board from the finished layers `lower[0..k]`.
///
/// # Panics
/// Panics if `lower.len() != k`, a lower layer has the wrong size, or `k` is above
/// [`max_build_seeds`] (the layer has more boards than 32-bit ranks hold).
pub fn build_layer(
    game: Game,
    k: usize,
    lower: &[&[u8]],
    opts: BuildOptions,
    progress: &(dyn Fn(Progress) + Sync),
) -> (Vec<u8>, LayerStats) {
    build_layer_in(OpenRing(game), k, lower, opts, progress)
}

/// Builds layer `k` of the closed pattern `pattern` of `game` together with its mirror
/// (`pattern.flipped()`: a move from one leads into the other). Layers, the one returned and
/// `lower[0..k]`, hold the boards of `pattern` in rank order ([`crate::index::rank_in`] over
/// the open holes) followed, if the mirror differs, by those of the mirror. For the open board
/// it equals [`build_layer`].
///
/// # Panics
/// Panics if `lower.len() != k`, a lower layer has the wrong size, or `k` is above
/// [`max_build_seeds`] for `pattern`.
pub fn build_pair_layer(
    game: Game,
    pattern: Pattern,
    k: usize,
    lower: &[&[u8]],
    opts: BuildOptions,
    progress: &(dyn Fn(Progress) + Sync),
) -> (Vec<u8>, LayerStats) {
    if pattern.is_open() {
        return build_layer(game, k, lower, opts, progress);
    }
    build_layer_in(PairRing::new(game, pattern), k, lower, opts, progress)
}

/// Positions of layer `k` of the pair of `pattern` (see [`build_pair_layer`]).
#[must_use]
pub fn pair_layer_size(game: Game, pattern: Pattern, k: usize) -> u64 {
    PairRing::new(game, pattern).size(k)
}

/// The largest seed count whose layer of the pair of `pattern` in `game` can be built: the
/// builder keeps boards' ranks in 32 bits, so a layer holds at most `u32::MAX` boards (both
/// parts of a pair together). The open board goes to 24 seeds; patterns with closed holes
/// further (at most [`crate::index::MAX_SEEDS`]).
///
/// # Examples
/// ```
/// use pussa_egtb::{max_build_seeds, Pattern};
/// use pussa_rules::Game;
/// assert_eq!(max_build_seeds(Game::RajaPasu, Pattern::OPEN), 24);
/// assert_eq!(max_build_seeds(Game::RajaPasu, Pattern::new(1, 0)), 25);
/// ```
#[must_use]
pub fn max_build_seeds(game: Game, pattern: Pattern) -> usize {
    (0..=crate::index::MAX_SEEDS)
        .take_while(|&k| pair_layer_size(game, pattern, k) <= u64::from(u32::MAX))
        .last()
        .unwrap_or(0)
}

fn build_layer_in<R: Ring>(
    ring: R,
    k: usize,
    lower: &[&[u8]],
    opts: BuildOptions,
    progress: &(dyn Fn(Progress) + Sync),
) -> (Vec<u8>, LayerStats) {
    assert_eq!(lower.len(), k, "layers 0..{k} are needed");
    for (j, l) in lower.iter().enumerate() {
        assert_eq!(l.len() as u64, ring.size(j), "layer {j} has the wrong size");
    }
    let t0 = Instant::now();
    let n = ring.size(k);
    let cur = to_atomic(vec![UNSOLVED; n as usize]);
    let view = BuildView {
        ring,
        k,
        lower,
        cur: &cur,
        bounds: None,
    };
    let mut stats = LayerStats {
        seeds: k,
        positions: n,
        ..LayerStats::default()
    };

    // Pass 1: terminal positions and positions whose moves all take seeds; the same-layer
    // edges of the others are kept (ranks fit in 32 bits up to 24 seeds).
    assert!(
        n <= u64::from(u32::MAX),
        "layer of {k} seeds: more boards than 32-bit ranks hold (see max_build_seeds)"
    );
    let done = AtomicU64::new(0);
    let nchunks = n.div_ceil(CHUNK);
    let mut parts: Vec<Waiting> = (0..nchunks)
        .into_par_iter()
        .map(|c| {
            let lo = c * CHUNK;
            let hi = (lo + CHUNK).min(n);
            let mut w = Waiting {
                lo,
                ..Waiting::default()
            };
            for idx in lo..hi {
                let b = ring.unrank(k, idx);
                match first_look(&view, idx, &b) {
                    First::Done(byte) => cur[idx as usize].store(byte, Ordering::Relaxed),
                    First::Wait(best, same, m) => {
                        w.off.push((idx - lo) as u16);
                        w.base.push(if best == i32::MIN {
                            i8::MIN
                        } else {
                            best as i8
                        });
                        w.count.push(m as u8);
                        w.edges.extend_from_slice(&same[..m]);
                    }
                }
            }
            w.shrink();
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
    let waiting: u64 = parts.iter().map(|w| w.off.len() as u64).sum();
    stats.direct = n - waiting;
    stats.phase_seconds[0] = t0.elapsed().as_secs_f64();

    // Pass 2: settle positions whose non-capturing moves lead to settled positions, until
    // nothing changes. What is left can reach a cycle of non-capturing moves.
    let mut left = waiting;
    let mut changed = Changed::new(n);
    let mut parity = 0;
    loop {
        stats.passes += 1;
        let first = stats.passes == 1;
        let settled: usize = parts
            .par_iter_mut()
            .map(|w| w.pass(&cur, &changed, !first, parity))
            .sum();
        parity ^= 1;
        changed.clear(parity);
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
    stats.cyclic = left;
    // Only the cyclic part is looked at again: the settled positions' edges are let go before
    // the bounds are allocated, which keeps the peak of a layer at phase 2.
    parts.par_iter_mut().for_each(|w| w.compact(&cur));
    parts.retain(|w| !w.off.is_empty());
    stats.phase_seconds[1] = t0.elapsed().as_secs_f64() - stats.phase_seconds[0];

    // Pass 3: bounds valid for every history, iterated to their fixed point over the positions
    // that can reach a cycle; where they meet, the value does not depend on the history.
    let bounds = (left > 0).then(|| {
        let atomics = |v: i8| to_atomic_i8(vec![v; n as usize]);
        let bounds = Bounds {
            lo: atomics(0),
            hi: atomics(0),
            own: atomics(NOT_CYCLIC),
        };
        parts
            .par_iter()
            .for_each(|w| w.mark_cyclic(ring, k, &cur, &bounds));
        bounds
    });
    if let Some(bounds) = &bounds {
        let cyclic = left;
        loop {
            stats.bound_passes += 1;
            let first = stats.bound_passes == 1;
            let (moved, settled) = parts
                .par_iter_mut()
                .map(|w| w.bounds_pass(&cur, bounds, k, &changed, !first, parity))
                .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
            parity ^= 1;
            changed.clear(parity);
            left -= settled as u64;
            stats.bounded += settled as u64;
            progress(Progress {
                seeds: k,
                phase: 3,
                done: cyclic - left,
                total: cyclic,
            });
            if moved == 0 {
                break;
            }
        }
    }
    drop(changed);
    stats.phase_seconds[2] =
        t0.elapsed().as_secs_f64() - stats.phase_seconds[0] - stats.phase_seconds[1];

    let unsolved: Vec<u64> = parts
        .iter()
        .flat_map(|w| w.each().map(|(_, idx, _)| idx))
        .filter(|&idx| cur[idx as usize].load(Ordering::Relaxed) == UNSOLVED)
        .collect();
    drop(parts);
    stats.acyclic = n - stats.direct - stats.cyclic;

    // Pass 4: the exact search with the path for each position whose bounds did not meet; the
    // bounds prune it.
    let view = BuildView {
        bounds: bounds.as_ref(),
        ..view
    };
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
                let b = ring.unrank(k, idx);
                s.clear();
                s.budget = opts.search_budget;
                let (lo, hi) = view.bounds(k, idx).unwrap_or((-(k as i32), k as i32));
                let r = s.search(&b, idx, k, false, lo - 1, hi + 1);
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
                phase: 4,
                done: d,
                total,
            });
            out
        })
        .collect();
    drop(bounds);
    // Flagged: the searched positions whose search ended (the others are not determined).
    stats.history = results.iter().filter(|&&b| b != UNDETERMINED).count() as u64;
    stats.search_nodes = nodes.into_inner();
    for (&idx, &byte) in unsolved.iter().zip(&results) {
        cur[idx as usize].store(byte, Ordering::Relaxed);
    }
    drop(results);
    drop(unsolved);
    let table = from_atomic(cur);
    stats.undetermined = table.par_iter().filter(|&&b| b == UNDETERMINED).count() as u64;
    stats.seconds = t0.elapsed().as_secs_f64();
    stats.phase_seconds[3] =
        stats.seconds - stats.phase_seconds[0] - stats.phase_seconds[1] - stats.phase_seconds[2];
    (table, stats)
}

fn to_atomic(v: Vec<u8>) -> Vec<AtomicU8> {
    let mut v = std::mem::ManuallyDrop::new(v);
    let (ptr, len, cap) = (v.as_mut_ptr(), v.len(), v.capacity());
    // SAFETY: `AtomicU8` has the same size, alignment and bit validity as `u8`, and the
    // allocation is handed over whole (same length and capacity).
    unsafe { Vec::from_raw_parts(ptr.cast::<AtomicU8>(), len, cap) }
}

fn to_atomic_i8(v: Vec<i8>) -> Vec<AtomicI8> {
    let mut v = std::mem::ManuallyDrop::new(v);
    let (ptr, len, cap) = (v.as_mut_ptr(), v.len(), v.capacity());
    // SAFETY: `AtomicI8` has the same size, alignment and bit validity as `i8`, and the
    // allocation is handed over whole (same length and capacity).
    unsafe { Vec::from_raw_parts(ptr.cast::<AtomicI8>(), len, cap) }
}

fn from_atomic(v: Vec<AtomicU8>) -> Vec<u8> {
    let mut v = std::mem::ManuallyDrop::new(v);
    let (ptr, len, cap) = (v.as_mut_ptr(), v.len(), v.capacity());
    // SAFETY: as in `to_atomic`; no other reference to the atomics is alive.
    unsafe { Vec::from_raw_parts(ptr.cast::<u8>(), len, cap) }
}
