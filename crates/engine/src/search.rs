//! Negamax alpha-beta with principal-variation search, iterative deepening, aspiration windows,
//! a transposition table and move ordering (TT move, killers, immediate gain, history).
//!
//! # Scores
//! Inside the search every score is a *future margin* in internal units (see [`crate::eval`]):
//! what the side to move will still take in this round minus what the opponent will take. A
//! move's own takings (fours and captures) are added exactly as the move is made, so a node's
//! score is `gain(move) − score(child)`. The round's end is a terminal node with its exact
//! value by the contract: Pasu Pondi's one-row end, repetition (each takes their own row) and
//! the no-legal-move end (Walak-pussa and Raja Pasu: the player who just moved takes every seed;
//! Pasu Pondi: each takes their own row). Endless moves are never moves
//! (`Position::play_unchecked` returns `None`).
//!
//! # Repetition and the transposition table
//! The search keeps the repetition keys of the positions on the current path since seeds last
//! left the board, after those of [`GameState::history`], and a position found among them ends
//! the round. Since a value can depend on that set of earlier positions, the table is keyed by
//! the position's hash xor-ed with a hash of the set: values are only reused where exactly the
//! same repetitions are possible, so graph-history interaction cannot corrupt a value (up to
//! 64-bit hash collisions). After a capture the set is empty: transpositions are shared there.
//!
//! # Proof
//! Each node also reports whether its score is *proven*: every leaf under it was a real end of
//! the round (or an exact oracle value), none was cut off by depth. Proven entries are stored
//! with [`tt::PROVEN_DEPTH`] and reused at any depth; a proven root value is reported as exact
//! and ends the iterative deepening.
//!
//! # Principal variations
//! Each node builds its principal variation in a triangular table (`Worker::pv`). A node cut
//! off by an exact entry of the transposition table has no line of its own, so the line of every
//! exact entry (a PV node) is also kept in a small side table ([`PvCache`]) and copied back at
//! such a cut, after checking that it belongs to the entry (score, draft, move) and replaying it
//! from the node (each move a legal move, the line cut where the round ends and at the node's
//! remaining depth). The lines of completed iterations therefore run to their full depth and
//! no further, or to the round's end (or to where exact values from tables take over). The cache only reads and writes lines: the nodes
//! searched are exactly those of a search without it.
//!
//! # Threads
//! With `threads > 1` the search runs Lazy SMP: helper threads search the same root with the
//! same table, starting at staggered depths, and the main thread's result is returned. With one
//! thread the search is deterministic: same position, limits and seed give the same move, score
//! and node count.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use pussa_rules::{Event, GameState, Hole, MoveOutcome, Moves, Position, Sowing, Trace};

use crate::eval::{self, RoundEnd};
use crate::matchval::MatchView;
use crate::params::{self, MAX_PLY, SCALE};
use crate::time::Clock;
use crate::tt::{self, Entry, Tt};
use crate::{ExactOracle, Limits, MoveValue, SearchInfo, SearchResult};

/// Larger than any score.
pub(crate) const INF: i32 = 10_000;
const NO_MOVE: u8 = 255;

#[inline]
fn key_hash(k: u128) -> u64 {
    let mut x = (k as u64) ^ ((k >> 64) as u64).rotate_left(29) ^ 0x5851_f42d_4c95_7f2d;
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

/// Seeds (rounded) for an internal score.
#[inline]
pub(crate) fn to_seeds(v: i32) -> i32 {
    (v + SCALE / 2).div_euclid(SCALE)
}

/// The principal variations of the exact entries of the transposition table (see the module
/// documentation, "Principal variations"), shared by the search threads. Only PV nodes store
/// lines, so the table stays small; past [`PvCache::CAPACITY`] lines it starts afresh.
pub(crate) struct PvCache {
    lines: Mutex<HashMap<u64, PvLine>>,
}

/// One cached line: the entry it belongs to and its moves (hole indices), first move first.
struct PvLine {
    score: i32,
    depth: u8,
    moves: Vec<u8>,
}

impl PvCache {
    /// The most lines kept at once.
    const CAPACITY: usize = 1 << 16;

    pub(crate) fn new() -> PvCache {
        PvCache {
            lines: Mutex::new(HashMap::new()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, PvLine>> {
        match self.lines.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }

    /// Keeps `moves` as the line of the exact entry stored under `key` with `score` and `depth`.
    fn store(&self, key: u64, score: i32, depth: u8, moves: &[u8]) {
        let mut lines = self.lock();
        if lines.len() >= Self::CAPACITY && !lines.contains_key(&key) {
            lines.clear();
        }
        let line = lines.entry(key).or_insert_with(|| PvLine {
            score,
            depth,
            moves: Vec::new(),
        });
        line.score = score;
        line.depth = depth;
        line.moves.clear();
        line.moves.extend_from_slice(moves);
    }

    /// Copies the line of entry `e` (found under `key`) into `out`, if it is the line stored
    /// with that entry; returns its length (0: none).
    fn probe(&self, key: u64, e: &Entry, out: &mut [u8]) -> usize {
        let lines = self.lock();
        match lines.get(&key) {
            Some(l)
                if l.score == e.score && l.depth == e.depth && l.moves.first() == Some(&e.mv) =>
            {
                let n = l.moves.len().min(out.len());
                out[..n].copy_from_slice(&l.moves[..n]);
                n
            }
            _ => 0,
        }
    }
}

/// The sowing receiver of the search: no events, but a long sowing (a move whose cycle is
/// very long) is interrupted once the search must stop ([`Clock::must_stop`]: the stop flag, the
/// deadline, the main thread's end). A sowing that long is expensive in itself, so the deadline
/// counts there whatever the nodes searched.
struct SowHook<'c>(&'c Clock);

impl Trace for SowHook<'_> {
    const ENABLED: bool = false;
    const INTERRUPTS: bool = true;
    #[inline(always)]
    fn event(&mut self, _: Event) {}
    fn interrupt(&mut self, _laps: u32) -> bool {
        self.0.must_stop()
    }
}

/// Interrupts a sowing once it has sown `.0` laps: the root's first pass ([`root_moves`]).
struct LapBudget(u32);

impl Trace for LapBudget {
    const ENABLED: bool = false;
    const INTERRUPTS: bool = true;
    #[inline(always)]
    fn event(&mut self, _: Event) {}
    fn interrupt(&mut self, laps: u32) -> bool {
        laps >= self.0
    }
}

/// The receiver of the root's proof of its long moves ([`root_moves`]): interrupted when the
/// search must stop ([`Clock::must_stop`]), when the proof's share of the move time is spent
/// (`until`), or when the laps sown by the whole proof reach the node budget (`laps_left`).
struct ProofHook<'c> {
    clock: &'c Clock,
    until: Option<std::time::Instant>,
    /// Laps the proof may still sow (a node budget), counted from the sowings already done.
    laps_left: Option<u64>,
    /// Laps sown by the current sowing when last asked.
    sown: u32,
}

impl ProofHook<'_> {
    /// Starts a new sowing: the laps of the previous one are charged to the budget.
    fn next_sowing(&mut self) {
        if let Some(l) = &mut self.laps_left {
            *l = l.saturating_sub(u64::from(self.sown));
        }
        self.sown = 0;
    }
}

impl Trace for ProofHook<'_> {
    const ENABLED: bool = false;
    const INTERRUPTS: bool = true;
    #[inline(always)]
    fn event(&mut self, _: Event) {}
    fn interrupt(&mut self, laps: u32) -> bool {
        self.sown = laps;
        self.clock.must_stop()
            || self.until.is_some_and(|u| std::time::Instant::now() >= u)
            || self.laps_left.is_some_and(|l| u64::from(laps) >= l)
    }
}

/// The root's legal moves, each sown once ([`root_moves`]).
struct RootMoves {
    /// The moves proven legal, in board order, with the position after each and its outcome.
    kids: Vec<(Hole, Position, MoveOutcome)>,
    /// The candidates whose sowing was neither seen to end nor proven endless within the
    /// proof's share of the limits, in board order: never searched nor played (each may be
    /// endless), and named by `analyze`.
    unresolved: Vec<Hole>,
    /// Some candidate was long (not over after the first pass): the proof took some time.
    long: bool,
}

impl RootMoves {
    fn legal(&self) -> Moves {
        Moves::from_mask(self.kids.iter().fold(0, |m, k| m | 1 << k.0.index()))
    }

    /// The fallback when no iteration completed: the legal move with the largest immediate
    /// gain (first in board order among equals), from the sowings already done.
    fn greedy(&self, pos: &Position) -> Option<Hole> {
        let me = pos.to_move().index();
        let mut best: Option<(i32, Hole)> = None;
        for (mv, _, out) in &self.kids {
            let g = i32::from(out.taken[me]) - i32::from(out.taken[1 - me]);
            if best.is_none_or(|(b, _)| g > b) {
                best = Some((g, *mv));
            }
        }
        best.map(|(_, m)| m)
    }
}

/// Sows each candidate of the root once. The first pass sows each at most
/// [`params::ROOT_FIRST_LAPS`] laps; the moves not over by then (a long cycle, most likely
/// endless) are sown to their end afterwards. So the moves of ordinary length are known legal
/// however soon the time runs out, and a move that takes seconds to prove endless is proven
/// once per search (not at every iteration). That proof is bounded by the limits, so that the
/// moves already known legal are searched: with a move time it gets at most
/// 1/[`params::ROOT_PROOF_SHARE`] of it, with a node budget of N nodes it sows at most N laps,
/// and `stop` ends it; with neither (a depth, `infinite`) it runs to its end. A move it leaves
/// unresolved is never searched nor played (it may be endless). If no move is known legal once
/// the proof stops, the sowing goes on until one is (a player to move has one): the answer must
/// be a legal move.
///
/// `proof_laps` bounds the proof where `limits` has no node budget (the softmax levels).
fn root_moves(
    pos: &Position,
    clock: &Clock,
    limits: &Limits,
    proof_laps: Option<u64>,
) -> RootMoves {
    let mut kids = Vec::with_capacity(7);
    let mut long = Vec::new();
    for mv in pos.candidates() {
        let mut c = *pos;
        match c.try_play_unchecked(mv, &mut LapBudget(params::ROOT_FIRST_LAPS)) {
            Sowing::Ends(out) => kids.push((mv, c, out)),
            Sowing::Endless => {}
            Sowing::Interrupted => long.push(mv),
        }
    }
    let mut hook = ProofHook {
        clock,
        until: clock
            .movetime
            .map(|t| clock.start + t / params::ROOT_PROOF_SHARE),
        laps_left: limits.nodes.or(proof_laps),
        sown: 0,
    };
    let mut unresolved = Vec::new();
    for (i, &mv) in long.iter().enumerate() {
        let mut c = *pos;
        hook.next_sowing();
        match c.try_play_unchecked(mv, &mut hook) {
            Sowing::Ends(out) => kids.push((mv, c, out)),
            Sowing::Endless => {}
            Sowing::Interrupted => {
                unresolved.extend_from_slice(&long[i..]);
                if kids.is_empty() {
                    // No legal move known yet: one is needed.
                    for &mv in &long[i..] {
                        let mut c = *pos;
                        let out = c.play_unchecked(mv);
                        // Resolved: legal, or proven endless.
                        unresolved.retain(|&u| u != mv);
                        if let Some(out) = out {
                            kids.push((mv, c, out));
                            break;
                        }
                    }
                }
                break;
            }
        }
    }
    kids.sort_by_key(|k| k.0.index());
    unresolved.sort_by_key(|m| m.index());
    RootMoves {
        kids,
        unresolved,
        long: !long.is_empty(),
    }
}

/// The moves of `state` proven legal within `limits` (each with its outcome, in board order) and
/// those left unresolved, by the root's proof ([`root_moves`], bounded by `proof_laps` too).
pub(crate) fn prove_root(
    state: &GameState,
    limits: &Limits,
    proof_laps: Option<u64>,
) -> crate::ProvenMoves {
    if state.is_round_over() {
        return crate::ProvenMoves::default();
    }
    let clock = clock_of(limits);
    let r = root_moves(state.position(), &clock, limits, proof_laps);
    crate::ProvenMoves {
        legal: r.kids.into_iter().map(|(mv, _, out)| (mv, out)).collect(),
        unresolved: r.unresolved,
    }
}

/// The nodes of a search on several threads (Lazy SMP): the count of all of them, for the
/// `info` lines, and the node budget they share, claimed in small batches so that all threads
/// together search at most the budget (`go nodes N` counts every thread's nodes, as Stockfish
/// does).
pub(crate) struct SharedNodes {
    /// Nodes searched by all threads, as each last added its own (every
    /// [`params::CHECK_EVERY`] nodes, at each claim and at its end).
    searched: std::sync::atomic::AtomicU64,
    /// Nodes of the budget handed out so far (at most `limit`).
    granted: std::sync::atomic::AtomicU64,
    /// The node budget (`u64::MAX`: none).
    limit: u64,
    /// The threads sharing it.
    threads: u64,
}

impl SharedNodes {
    fn new(limit: Option<u64>, threads: usize) -> SharedNodes {
        SharedNodes {
            searched: std::sync::atomic::AtomicU64::new(0),
            granted: std::sync::atomic::AtomicU64::new(0),
            limit: limit.unwrap_or(u64::MAX),
            threads: threads.max(1) as u64,
        }
    }

    /// The first allowance of a thread: none with a budget (it claims its nodes as it goes),
    /// everything without one.
    fn first_limit(&self) -> u64 {
        if self.limit == u64::MAX {
            u64::MAX
        } else {
            0
        }
    }

    /// Hands out the next batch of the budget: an eighth of what is left per thread, between 1
    /// and [`params::CHECK_EVERY`] nodes; 0 once the budget is spent.
    fn claim(&self) -> u64 {
        let mut granted = self.granted.load(Ordering::Relaxed);
        loop {
            let left = self.limit.saturating_sub(granted);
            if left == 0 {
                return 0;
            }
            let k = (left / (8 * self.threads)).clamp(1, params::CHECK_EVERY);
            match self.granted.compare_exchange_weak(
                granted,
                granted + k,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => return k,
                Err(now) => granted = now,
            }
        }
    }
}

/// Holds the helper threads of a search with a node budget until the main thread has completed
/// its first iteration (or ended): the threads share the budget ([`SharedNodes`]), and a helper
/// that started first could spend it all before the main thread, whose result is the one
/// played, completed depth 1, leaving only the unsearched fallback. So the main thread's depth 1
/// gets the nodes it would get alone (`go nodes N` completes depth 1 with several threads
/// whenever it does with one), and the helpers share the rest.
struct HelperGate {
    open: Mutex<bool>,
    opened: std::sync::Condvar,
    /// Helpers waiting at the gate or finished (for the tests, which order the threads).
    #[cfg(test)]
    idle: std::sync::atomic::AtomicUsize,
}

impl HelperGate {
    fn new(open: bool) -> HelperGate {
        HelperGate {
            open: Mutex::new(open),
            opened: std::sync::Condvar::new(),
            #[cfg(test)]
            idle: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    /// Lets the helpers search (the main thread completed an iteration, or ended).
    fn open(&self) {
        let mut open = self
            .open
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if !*open {
            *open = true;
            self.opened.notify_all();
        }
    }

    /// Waits until the gate is open.
    fn wait(&self) {
        #[cfg(test)]
        self.idle.fetch_add(1, Ordering::SeqCst);
        let mut open = self
            .open
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        while !*open {
            open = self
                .opened
                .wait(open)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        drop(open);
        #[cfg(test)]
        self.idle.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Ends a search when dropped: the clock is done and the [`HelperGate`] open.
struct EndsSearch<'a>(&'a Clock, &'a HelperGate);

impl Drop for EndsSearch<'_> {
    fn drop(&mut self) {
        self.0.done.store(true, Ordering::Relaxed);
        self.1.open();
    }
}

/// When the main thread of a search on several threads starts searching.
#[derive(Clone, Copy, PartialEq, Eq)]
enum MainStart {
    /// At once.
    Now,
    /// Only once every helper waits at the [`HelperGate`] or has finished: the order a loaded
    /// machine may give the threads, made certain for the tests.
    #[cfg(test)]
    AfterHelpers,
}

/// One searching thread.
pub(crate) struct Worker<'a> {
    tt: &'a Tt,
    pvs: &'a PvCache,
    clock: &'a Clock,
    oracle: Option<&'a dyn ExactOracle>,
    /// In a match, how the end of a round is valued ([`crate::matchval`]).
    view: Option<MatchView>,
    /// The nodes this thread may search: the node budget with one thread; with several and a
    /// budget, what it has claimed from the shared budget so far ([`SharedNodes`]).
    node_limit: u64,
    /// The threads' shared node count and budget (Lazy SMP; `None` with one thread).
    shared: Option<&'a SharedNodes>,
    /// The nodes of this thread already added to [`SharedNodes::searched`].
    flushed: u64,
    /// Repetition keys on the path (root history first); `path[base..]` are those since seeds
    /// last left the board.
    path: Vec<u128>,
    base: usize,
    set_hash: u64,
    /// The lowest `path` index a repetition in the current subtree matched (`usize::MAX`:
    /// none). A node whose subtree matched a position above it (index below its own path
    /// length) has a value that depends on the round's history.
    rep_low: usize,
    /// In a match: whether a value in the current subtree counts on an estimate of a later
    /// round ([`MatchView::adjust`]), so that a proven value there is proven for the search's
    /// valuation but is not the match's exact value. Only reported; no search decision reads
    /// it (the nodes searched are those of a search without it).
    est: bool,
    pub(crate) nodes: u64,
    stopped: bool,
    killers: Vec<[u8; 2]>,
    history: [[i32; 14]; 2],
    pv: Vec<[u8; MAX_PLY]>,
    pv_len: Vec<usize>,
    /// The best root move of the iteration in progress, once one has been searched fully:
    /// its score and principal variation (used when the iteration is cut short).
    root_best: Option<(i32, Vec<Hole>)>,
    /// The root's legal moves ([`root_moves`]): the root sows only these, so that a move
    /// proven endless once is not sown again at every iteration.
    root_moves: Moves,
    /// Laps sown since the clock was last checked ([`params::CHECK_EVERY_LAPS`]).
    laps: u64,
    /// The oracle's values of the root's children for the root's history
    /// ([`ExactOracle::probe_with_history`], [`Worker::root_child_probe`]): each is asked
    /// once, not at every iteration.
    root_probes: Vec<(u128, u64, Option<i32>)>,
}

impl<'a> Worker<'a> {
    pub(crate) fn new(
        tt: &'a Tt,
        pvs: &'a PvCache,
        clock: &'a Clock,
        oracle: Option<&'a dyn ExactOracle>,
        view: Option<MatchView>,
        node_limit: u64,
        root_history: &[u128],
    ) -> Worker<'a> {
        let mut w = Worker {
            tt,
            pvs,
            clock,
            oracle,
            view,
            node_limit,
            shared: None,
            flushed: 0,
            path: Vec::with_capacity(256),
            base: 0,
            set_hash: 0,
            rep_low: usize::MAX,
            est: false,
            nodes: 0,
            stopped: false,
            killers: vec![[NO_MOVE; 2]; MAX_PLY + 1],
            history: [[0; 14]; 2],
            pv: vec![[NO_MOVE; MAX_PLY]; MAX_PLY + 1],
            pv_len: vec![0; MAX_PLY + 1],
            root_best: None,
            root_moves: Moves::from_mask(u16::MAX),
            laps: 0,
            root_probes: Vec::new(),
        };
        for &k in root_history {
            w.path.push(k);
            w.set_hash ^= key_hash(k);
        }
        w
    }

    #[inline]
    fn check_stop(&mut self) {
        if self.nodes >= self.node_limit && !self.claim_nodes() {
            self.stopped = true;
        } else if self.nodes & (params::CHECK_EVERY - 1) == 0 {
            self.flush_nodes();
            if self.clock.must_stop_after(self.nodes) {
                self.stopped = true;
            }
        }
    }

    /// Adds this thread's nodes not yet counted to the threads' shared count (several threads).
    fn flush_nodes(&mut self) {
        if let Some(s) = self.shared {
            s.searched
                .fetch_add(self.nodes - self.flushed, Ordering::Relaxed);
            self.flushed = self.nodes;
        }
    }

    /// With several threads and a node budget: claims more nodes of the shared budget for this
    /// thread (false when it is spent). With one thread the budget is `node_limit` itself.
    fn claim_nodes(&mut self) -> bool {
        let Some(s) = self.shared else { return false };
        let more = s.claim();
        if more == 0 {
            // The node that asked is not searched: all threads together count the budget
            // handed out, never more.
            self.nodes -= 1;
        }
        self.flush_nodes();
        self.node_limit = self.node_limit.saturating_add(more);
        more > 0
    }

    /// Plays `mv` (a candidate) on `c`: its outcome, or `None` if it is endless or if the
    /// search must stop during a long sowing (then [`Worker::stopped`] is set).
    #[inline]
    fn sow(&mut self, c: &mut Position, mv: Hole) -> Option<MoveOutcome> {
        match c.try_play_unchecked(mv, &mut SowHook(self.clock)) {
            Sowing::Ends(out) => {
                self.laps += u64::from(out.laps);
                Some(out)
            }
            Sowing::Endless => None,
            Sowing::Interrupted => {
                self.stopped = true;
                None
            }
        }
    }

    /// Checks the clock when the moves sown since the last check add up to
    /// [`params::CHECK_EVERY_LAPS`] laps.
    #[inline]
    fn check_laps(&mut self) {
        if self.laps >= params::CHECK_EVERY_LAPS {
            self.laps = 0;
            if self.clock.must_stop_after(self.nodes) {
                self.stopped = true;
            }
        }
    }

    /// True if the player to move at `pos` has a legal move (stops at the first found). If
    /// the search must stop during a long sowing, [`Worker::stopped`] is set (and the answer
    /// is meaningless).
    fn has_legal_move(&mut self, pos: &Position) -> bool {
        for mv in pos.candidates() {
            let mut c = *pos;
            match c.try_play_unchecked(mv, &mut SowHook(self.clock)) {
                Sowing::Ends(_) => return true,
                Sowing::Endless => {}
                Sowing::Interrupted => {
                    self.stopped = true;
                    return true;
                }
            }
        }
        false
    }

    /// The value of a round that ends at `pos` in the way `end`: its exact future margin, and in
    /// a match what that end leads to ([`MatchView::adjust`]; an estimate of the next round
    /// sets [`Worker::est`]).
    #[inline]
    fn round_end(&mut self, pos: &Position, end: RoundEnd) -> i32 {
        let v = eval::terminal(pos, end);
        match &self.view {
            None => v,
            Some(m) => {
                let (a, est) = m.adjust(pos, v / SCALE, Some(end));
                self.est |= est;
                v + a
            }
        }
    }

    /// The principal variation found at the root by the last completed search.
    pub(crate) fn root_pv(&self) -> Vec<Hole> {
        self.pv[0][..self.pv_len[0]]
            .iter()
            .map(|&i| Hole::ALL[i as usize])
            .collect()
    }

    /// Sets the principal variation of the node at `ply` (position `pos`), cut off by the
    /// exact entry `e` found under `key`, to the entry's cached line: replayed from `pos`, it
    /// stops before a move that is not legal and after a move that ends the round (Pasu
    /// Pondi's one-row end, a repetition of the path since seeds last left the board, or a
    /// player with no legal move), and is cut to the node's remaining `depth` (an entry
    /// stored deeper, by a helper thread or an earlier iteration, may hold a longer line; the
    /// line of an iteration is never longer than its depth). No line cached: the node's line
    /// is empty, as before.
    fn pv_from_cache(&mut self, pos: &Position, key: u64, e: &Entry, ply: usize, depth: i32) {
        let room = (MAX_PLY - 1 - ply).min(usize::try_from(depth).unwrap_or(0));
        let mut line = [NO_MOVE; MAX_PLY];
        let n = self.pvs.probe(key, e, &mut line[..room]);
        let mut seen: Vec<u128> = self.path[self.base..].to_vec();
        seen.push(pos.repetition_key());
        let mut p = *pos;
        let mut len = 0;
        for &i in &line[..n] {
            let Some(&mv) = Hole::ALL.get(usize::from(i)) else {
                break;
            };
            if !p.candidates().contains(mv) {
                break;
            }
            let Some(out) = self.sow(&mut p, mv) else {
                break;
            };
            len += 1;
            if out.seeds_taken() > 0 {
                seen.clear();
            }
            let k = p.repetition_key();
            if eval::one_row_end(&p) || seen.contains(&k) || !self.has_legal_move(&p) {
                break;
            }
            seen.push(k);
        }
        self.pv[ply][..len].copy_from_slice(&line[..len]);
        self.pv_len[ply] = len;
    }

    /// Negamax with alpha-beta (fail-soft) and PVS. Returns the score and whether it is proven.
    pub(crate) fn negamax(
        &mut self,
        pos: &Position,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
    ) -> (i32, bool) {
        let saved = std::mem::replace(&mut self.rep_low, usize::MAX);
        let saved_est = std::mem::replace(&mut self.est, false);
        let r = self.node(pos, depth, alpha, beta, ply);
        self.rep_low = self.rep_low.min(saved);
        self.est |= saved_est;
        r
    }

    /// The oracle's value of `pos`, a child of the root reached by a move that took nothing,
    /// for the round's history on the path (`path[base..]`: the root's history and the root),
    /// asked once per child and history.
    fn root_child_probe(&mut self, oracle: &dyn ExactOracle, pos: &Position) -> Option<i32> {
        let key = (pos.repetition_key(), self.set_hash);
        if let Some(&(_, _, v)) = self.root_probes.iter().find(|&&(k, h, _)| (k, h) == key) {
            return v;
        }
        let v = oracle.probe_with_history(pos, &self.path[self.base..]);
        self.root_probes.push((key.0, key.1, v));
        v
    }

    /// One node of [`Worker::negamax`] (which tracks the repetitions its subtree matched, and
    /// whether it counted on an estimated later round).
    fn node(
        &mut self,
        pos: &Position,
        depth: i32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
    ) -> (i32, bool) {
        self.pv_len[ply] = 0;
        self.nodes += 1;
        self.check_stop();
        if self.stopped {
            return (0, false);
        }
        // The end-of-round rules, in the contract's order (the third, no legal move, below).
        if eval::one_row_end(pos) {
            return (self.round_end(pos, RoundEnd::EachOwnRow), true);
        }
        let rkey = pos.repetition_key();
        if ply > 0 {
            if let Some(i) = self.path[self.base..].iter().position(|&k| k == rkey) {
                self.rep_low = self.rep_low.min(self.base + i);
                return (self.round_end(pos, RoundEnd::EachOwnRow), true);
            }
        }
        if ply > 0 {
            if let Some(oracle) = self.oracle {
                let v = if self.base == self.path.len() {
                    oracle.probe(pos)
                } else {
                    oracle.probe_any_history(pos).or_else(|| {
                        // Right after a root move that took nothing, the round's history is
                        // the root's and the root: a value exact for that history (the
                        // tables' search over it) holds here, and the node's value depends on
                        // that history, as a repetition's would.
                        if ply != 1 {
                            return None;
                        }
                        let v = self.root_child_probe(oracle, pos);
                        if v.is_some() {
                            self.rep_low = self.rep_low.min(self.base);
                        }
                        v
                    })
                };
                if let Some(v) = v {
                    let (adjust, est) = self.view.map_or((0, false), |m| m.adjust(pos, v, None));
                    self.est |= est;
                    return (v * SCALE + adjust, true);
                }
            }
        }
        // The table (see the module documentation): values that depend on the round's history
        // (proven ones, and those whose subtree matched a repetition above the node) are keyed
        // by the position and the set of earlier positions; the others by the position alone.
        // In a match the value of a round's end depends on the holdings, so on the stores too.
        let pkey = match self.view {
            None => pos.round_hash(),
            Some(_) => {
                pos.round_hash()
                    ^ key_hash(u128::from(pos.store(pussa_rules::Side::South)) | 1 << 100)
            }
        };
        let fkey = pkey ^ self.set_hash;
        let mut tt_move = NO_MOVE;
        let usable = |e: &Entry| {
            (e.depth == tt::PROVEN_DEPTH || i32::from(e.depth) >= depth)
                && match e.bound {
                    tt::EXACT => true,
                    tt::LOWER => e.score >= beta,
                    _ => e.score <= alpha,
                }
        };
        // A PV node cut off by an exact entry takes that entry's line (module documentation).
        let pv_node = beta - alpha > 1;
        if fkey != pkey {
            if let Some(e) = self.tt.probe(fkey) {
                tt_move = e.mv;
                if ply > 0 && usable(&e) {
                    if e.dep {
                        self.rep_low = 0;
                    }
                    self.est |= e.est;
                    if pv_node && e.bound == tt::EXACT {
                        self.pv_from_cache(pos, fkey, &e, ply, depth);
                    }
                    return (e.score, e.depth == tt::PROVEN_DEPTH);
                }
            }
        }
        if let Some(e) = self.tt.probe(pkey) {
            if tt_move == NO_MOVE {
                tt_move = e.mv;
            }
            // A proven value holds for the history it was proven in (the empty set, stored
            // under the position's key): elsewhere only its move is used, so that the node can
            // still be proven in its own history.
            let proven = e.depth == tt::PROVEN_DEPTH;
            if ply > 0 && (fkey == pkey || !proven) && usable(&e) {
                if pv_node && e.bound == tt::EXACT {
                    self.pv_from_cache(pos, pkey, &e, ply, depth);
                }
                self.est |= e.est;
                return (e.score, proven);
            }
        }
        if depth <= 0 || ply >= MAX_PLY - 1 {
            // At the horizon a stuck player still ends the round: its exact value, proven.
            let stuck = !self.has_legal_move(pos);
            if self.stopped {
                return (0, false);
            }
            if stuck {
                return (self.round_end(pos, eval::stuck_end(pos)), true);
            }
            return (eval::evaluate(pos), false);
        }

        // Generate the children (sowing each once), ordered best first.
        let me = pos.to_move();
        let side = me.index();
        let mut kids: [(u8, Position, i32, bool, i32); 7] = [(0, *pos, 0, false, 0); 7];
        let mut n = 0;
        // The root sows only its legal moves, proven once per search ([`root_moves`]).
        let candidates = if ply == 0 {
            Moves::from_mask(pos.candidates().mask() & self.root_moves.mask())
        } else {
            pos.candidates()
        };
        for mv in candidates {
            let mut c = *pos;
            if let Some(out) = self.sow(&mut c, mv) {
                let gain = i32::from(out.taken[side]) - i32::from(out.taken[1 - side]);
                let i = mv.index() as u8;
                let mut order = gain * params::GAIN_WEIGHT + self.history[side][i as usize];
                if i == tt_move {
                    order = i32::MAX;
                } else if i == self.killers[ply][0] {
                    order += params::KILLER_BONUS[0];
                } else if i == self.killers[ply][1] {
                    order += params::KILLER_BONUS[1];
                }
                kids[n] = (i, c, gain * SCALE, out.seeds_taken() > 0, order);
                n += 1;
            }
        }
        self.check_laps();
        if self.stopped {
            return (0, false);
        }
        if n == 0 {
            return (self.round_end(pos, eval::stuck_end(pos)), true);
        }
        let kids = &mut kids[..n];
        kids.sort_by(|a, b| b.4.cmp(&a.4).then(a.0.cmp(&b.0)));

        let old_alpha = alpha;
        let mut best = -INF;
        let mut best_mv = NO_MOVE;
        let mut all_proven = true;
        for (k, &(mv, ref child, g, captured, _)) in kids.iter().enumerate() {
            let saved = (self.base, self.set_hash);
            let pushed = if captured {
                self.base = self.path.len();
                self.set_hash = 0;
                false
            } else {
                self.path.push(rkey);
                self.set_hash ^= key_hash(rkey);
                true
            };
            let (mut v, mut p);
            if k == 0 {
                let (cv, cp) = self.negamax(child, depth - 1, g - beta, g - alpha, ply + 1);
                v = g - cv;
                p = cp;
            } else {
                let (cv, cp) = self.negamax(child, depth - 1, g - alpha - 1, g - alpha, ply + 1);
                v = g - cv;
                p = cp;
                if v > alpha && v < beta && !self.stopped {
                    let (cv, cp) = self.negamax(child, depth - 1, g - beta, g - alpha, ply + 1);
                    v = g - cv;
                    p = cp;
                }
            }
            if pushed {
                self.path.pop();
            }
            (self.base, self.set_hash) = saved;
            if self.stopped {
                return (0, false);
            }
            all_proven &= p;
            if v > best {
                best = v;
                best_mv = mv;
                if v > alpha {
                    alpha = v;
                    self.pv[ply][0] = mv;
                    let len = self.pv_len[ply + 1];
                    let (head, tail) = self.pv.split_at_mut(ply + 1);
                    head[ply][1..=len].copy_from_slice(&tail[0][..len]);
                    self.pv_len[ply] = len + 1;
                    if ply == 0 {
                        self.root_best = Some((v, self.root_pv()));
                    }
                    if alpha >= beta {
                        if !captured && self.killers[ply][0] != mv {
                            self.killers[ply][1] = self.killers[ply][0];
                            self.killers[ply][0] = mv;
                        }
                        let h = &mut self.history[side][mv as usize];
                        *h += depth * depth;
                        if *h > 50_000 {
                            for row in &mut self.history {
                                for x in row.iter_mut() {
                                    *x /= 2;
                                }
                            }
                        }
                        break;
                    }
                }
            }
        }
        let bound = if best <= old_alpha {
            tt::UPPER
        } else if best >= beta {
            tt::LOWER
        } else {
            tt::EXACT
        };
        let d = if all_proven {
            tt::PROVEN_DEPTH
        } else {
            depth.clamp(0, 254) as u8
        };
        let dep = self.rep_low < self.path.len();
        let key = if all_proven || dep { fkey } else { pkey };
        if bound == tt::EXACT {
            // Only a PV node (a window wider than null) can be exact: keep its line.
            self.pvs
                .store(key, best, d, &self.pv[ply][..self.pv_len[ply]]);
        }
        self.tt.store(
            key,
            Entry {
                score: best,
                depth: d,
                bound,
                mv: best_mv,
                dep,
                est: self.est,
            },
        );
        (best, all_proven)
    }
}

/// What the root search of one iteration found.
#[derive(Clone, Debug)]
struct Iteration {
    score: i32,
    proven: bool,
    /// The value counts on an estimated later round ([`Worker::est`]): not exact even if proven.
    est: bool,
    pv: Vec<Hole>,
}

fn tt_entries(limits: &Limits) -> usize {
    if let Some(n) = limits.nodes {
        let entries = (n as usize).saturating_mul(2);
        // Under a move time as well (a node budget bounded by a clock), no larger than a timed
        // search's table: a table sized for millions of nodes costs a page fault per new page
        // it touches, tens of milliseconds a move, which a short clock cannot pay.
        return match limits.movetime {
            Some(_) => entries.min(params::TT_ENTRIES_DEFAULT),
            None => entries,
        };
    }
    if limits.movetime.is_some() {
        return params::TT_ENTRIES_DEFAULT;
    }
    match limits.depth {
        Some(d) => 1usize << (2 * d as usize + 6).min(20),
        None => params::TT_ENTRIES_DEFAULT,
    }
}

fn max_depth(limits: &Limits) -> u32 {
    match limits.depth {
        Some(d) => d.clamp(1, params::MAX_DEPTH),
        None if limits.nodes.is_none() && limits.movetime.is_none() => params::DEFAULT_DEPTH,
        None => params::MAX_DEPTH,
    }
}

/// The score offset of the root, added to the search's internal value (a future margin, counted
/// from the root) to give the reported score. In a single game: the seeds taken so far in this
/// round by the side to move minus by the opponent, so the score is the round's final margin.
/// In a match: the whole holdings margin at the root (the stores, what was carried over at the
/// last refill plus what was taken this round), since a round's end is valued from the stores
/// at its end ([`crate::matchval::MatchView::adjust`]): the score is then the holdings margin
/// expected after the next round, or the final holdings margin ±200 where the round ends the
/// match, whatever the split of the stores (docs/engine.md, "Matches").
fn root_offset(state: &GameState) -> i32 {
    let me = state.position().to_move();
    let t = match state.mode() {
        pussa_rules::Mode::Single => state.taken_this_round(),
        pussa_rules::Mode::Match => state.position().stores(),
    };
    i32::from(t[me.index()]) - i32::from(t[me.other().index()])
}

/// The margin of the seeds taken this round at the root (side to move minus opponent).
fn taken_margin(state: &GameState) -> i32 {
    let t = state.taken_this_round();
    let me = state.position().to_move();
    i32::from(t[me.index()]) - i32::from(t[me.other().index()])
}

/// The root's history: the positions of the round that may recur, without the root itself.
fn root_history(state: &GameState) -> Vec<u128> {
    pussa_rules::earlier_history(state.history(), state.position()).to_vec()
}

/// In a match, the most a value at `pos` can be worth to either side, in internal units: the
/// match won with every seed left on the board taken ([`params::MATCH_WIN`] + the seeds on the
/// board). No other value reaches it (a next round's estimate stays far below
/// [`params::MATCH_WIN`], the evaluation at the horizon below the seeds on the board), so a
/// search value of exactly `±match_ceiling` rests only on real ends of the round that end
/// the match: it is proven and counts on no estimate, whatever the other moves' values
/// (docs/engine.md, "Matches").
fn match_ceiling(pos: &Position) -> i32 {
    (pos.seeds_on_board() as i32 + params::MATCH_WIN) * SCALE
}

/// The clock of a search with `limits`, started at [`Limits::start`] (or now).
fn clock_of(limits: &Limits) -> Clock {
    Clock::started_at(
        limits.start.unwrap_or_else(std::time::Instant::now),
        limits.movetime,
        limits.stop.clone(),
    )
    .with_whole_movetime(limits.whole_movetime)
}

/// Iterative deepening on one thread. `report` is called after each completed iteration.
fn iterate(
    w: &mut Worker<'_>,
    pos: &Position,
    max_depth: u32,
    first_depth: u32,
    report: &mut dyn FnMut(u32, &Iteration, u64),
) -> Option<(u32, Iteration)> {
    let mut last: Option<(u32, Iteration)> = None;
    let mut depth = first_depth.max(1);
    while depth <= max_depth {
        if depth > 1 && w.nodes >= params::MIN_TIMED_NODES && !w.clock.may_start_iteration() {
            break;
        }
        let prev = last.as_ref().map(|(_, it)| it.score);
        let (mut lo, mut hi) = match prev {
            Some(s) if params::ASPIRATION > 0 && depth >= 3 => {
                (s - params::ASPIRATION, s + params::ASPIRATION)
            }
            _ => (-INF, INF),
        };
        w.root_best = None;
        let (score, proven, est) = loop {
            w.est = false;
            let (v, p) = w.negamax(pos, depth as i32, lo, hi, 0);
            if w.stopped {
                break (v, false, false);
            }
            if v <= lo && lo > -INF {
                lo = -INF;
            } else if v >= hi && hi < INF {
                hi = INF;
            } else {
                break (v, p, w.est);
            }
        };
        // A match won (or lost) with every seed on the board is the most (least) any move can
        // be worth: proven, even where the other moves' values count on estimates.
        let settled = w.view.is_some() && !w.stopped && score.abs() == match_ceiling(pos);
        let (proven, est) = if settled {
            (true, false)
        } else {
            (proven, est)
        };
        if w.stopped {
            // Cut short: keep a root move this iteration searched fully, if any (it beat the
            // previous best move's score at this depth, or is the previous best move itself).
            if let Some((v, pv)) = w.root_best.take() {
                let it = Iteration {
                    score: v,
                    proven: false,
                    est: false,
                    pv,
                };
                report(depth, &it, w.nodes);
                last = Some((depth, it));
            }
            break;
        }
        let it = Iteration {
            score,
            proven,
            est,
            pv: w.root_pv(),
        };
        report(depth, &it, w.nodes);
        let done = it.proven;
        last = Some((depth, it));
        if done {
            break;
        }
        depth += 1;
    }
    last
}

pub(crate) fn search(
    state: &GameState,
    limits: &Limits,
    on_info: &mut dyn FnMut(&SearchInfo),
) -> SearchResult {
    let threads = crate::effective_threads(limits.threads);
    search_on(state, limits, threads, MainStart::Now, on_info)
}

/// [`search`] on `threads` threads, the main thread starting as `main_start` says.
fn search_on(
    state: &GameState,
    limits: &Limits,
    threads: usize,
    main_start: MainStart,
    on_info: &mut dyn FnMut(&SearchInfo),
) -> SearchResult {
    let pos = *state.position();
    let mut clock = clock_of(limits);
    let stopped = limits
        .stop
        .as_ref()
        .is_some_and(|s| s.load(Ordering::Relaxed));
    let root = if state.is_round_over() {
        None
    } else {
        Some(root_moves(&pos, &clock, limits, None))
    };
    if root.as_ref().is_some_and(|r| r.long) {
        clock.iterations_start_now();
    }
    // One legal move (and none left unproven): a time-managed search keeps only a few
    // milliseconds, enough for the value of its info line (params::FORCED_MOVE_MS).
    if root
        .as_ref()
        .is_some_and(|r| r.kids.len() == 1 && r.unresolved.is_empty())
    {
        clock.forced_move();
    }
    let Some(root) = root.filter(|r| !r.kids.is_empty()) else {
        return SearchResult {
            best: None,
            score: root_offset(state),
            exact: true,
            depth: 0,
            nodes: 0,
            pv: Vec::new(),
        };
    };
    // Nothing may be searched (a node budget of 0, or the stop flag already raised): the first
    // legal move at once, unsearched, valued at the margin so far. Moves the root's proof left
    // unresolved are not searched (the moves known legal are), and the value is then not proven.
    let resolved = root.unresolved.is_empty();
    if limits.nodes == Some(0) || stopped {
        let best = root.kids.first().map(|k| k.0);
        return SearchResult {
            best,
            score: root_offset(state),
            exact: false,
            depth: 0,
            nodes: 0,
            pv: best.into_iter().collect(),
        };
    }
    let tt = Tt::new(tt_entries(limits));
    let pvs = PvCache::new();
    let hist = root_history(state);
    let offset = root_offset(state);
    let node_limit = limits.nodes.unwrap_or(u64::MAX);
    let maxd = max_depth(limits);
    let oracle = limits.oracle.as_deref();
    // With several threads, every thread's nodes count: the budget is shared, and the `info`
    // lines count them all. One thread keeps its own count (the same nodes as ever).
    let shared = (threads > 1).then(|| SharedNodes::new(limits.nodes, threads));
    // With a shared budget the helpers wait for the main thread's first iteration.
    let gate = HelperGate::new(limits.nodes.is_none());
    let view = MatchView::of(state);

    let mut run_main = || {
        // However the main thread ends, a panic included, the helpers are let go and told to
        // stop: `thread::scope` waits for them before passing a panic on.
        let _ending = EndsSearch(&clock, &gate);
        #[cfg(test)]
        if main_start == MainStart::AfterHelpers {
            while gate.idle.load(Ordering::SeqCst) < threads - 1 {
                std::thread::yield_now();
            }
        }
        #[cfg(not(test))]
        let _ = main_start;
        let limit = shared.as_ref().map_or(node_limit, SharedNodes::first_limit);
        let mut w = Worker::new(&tt, &pvs, &clock, oracle, view, limit, &hist);
        w.shared = shared.as_ref();
        w.root_moves = root.legal();
        let mut report = |depth: u32, it: &Iteration, nodes: u64| {
            let elapsed = clock.elapsed();
            // The other threads' nodes, as they last added them (a batch behind at most).
            let total = match &shared {
                Some(s) => s.searched.load(Ordering::Relaxed).max(nodes),
                None => nodes,
            };
            let nps = (total as f64 / elapsed.as_secs_f64().max(1e-9)) as u64;
            on_info(&SearchInfo {
                depth,
                score: offset + to_seeds(it.score),
                exact: it.proven && !it.est && resolved,
                nodes: total,
                nps,
                elapsed,
                pv: it.pv.clone(),
            });
            gate.open();
        };
        let r = iterate(&mut w, &pos, maxd, 1, &mut report);
        clock.done.store(true, Ordering::Relaxed);
        gate.open();
        w.flush_nodes();
        (r, w.nodes)
    };

    let (result, main_nodes) = if threads == 1 {
        run_main()
    } else {
        std::thread::scope(|s| {
            for t in 1..threads {
                let (tt, pvs, clock, hist, shared) = (&tt, &pvs, &clock, &hist, shared.as_ref());
                let gate = &gate;
                let legal = root.legal();
                s.spawn(move || {
                    gate.wait();
                    if clock.done.load(Ordering::Relaxed) {
                        // The search is over: the main thread ended.
                        #[cfg(test)]
                        gate.idle.fetch_add(1, Ordering::SeqCst);
                        return;
                    }
                    let limit = shared.map_or(u64::MAX, SharedNodes::first_limit);
                    let mut w = Worker::new(tt, pvs, clock, oracle, view, limit, hist);
                    w.shared = shared;
                    w.root_moves = legal;
                    // Perturb the helpers' move ordering so they explore different trees.
                    for (i, h) in w.history[0].iter_mut().enumerate() {
                        *h = ((i * 7 + t * 13) % 11) as i32;
                    }
                    w.history[1] = w.history[0];
                    let mut nop = |_: u32, _: &Iteration, _: u64| {};
                    iterate(&mut w, &pos, maxd, 1 + (t as u32 % 2), &mut nop);
                    w.flush_nodes();
                    #[cfg(test)]
                    gate.idle.fetch_add(1, Ordering::SeqCst);
                });
            }
            run_main()
        })
    };
    let nodes = shared
        .as_ref()
        .map_or(main_nodes, |s| s.searched.load(Ordering::Relaxed));
    match result {
        Some((depth, it)) => {
            let mut r = SearchResult {
                best: it.pv.first().copied().or_else(|| root.greedy(&pos)),
                score: offset + to_seeds(it.score),
                exact: it.proven,
                depth,
                nodes,
                pv: it.pv,
            };
            if r.exact && resolved && params::SWINDLE {
                if let Some((mv, score, pv, used)) = swindle(state, limits, &r, &clock) {
                    r.best = Some(mv);
                    r.score = score;
                    r.pv = pv;
                    r.nodes += used;
                }
            }
            // The swindle works within the search's valuation (proven there); what is reported
            // as exact must also count on no estimated later round (a match's next round), nor
            // leave out a move the root's proof left unresolved.
            r.exact &= !it.est && resolved;
            r
        }
        None => {
            let best = root.greedy(&pos);
            SearchResult {
                best,
                score: offset,
                exact: false,
                depth: 0,
                nodes,
                pv: best.into_iter().collect(),
            }
        }
    }
}

/// How attractive the opponent's mistakes after a move are (see [`swindle`]): the greedy reply
/// changes the result; the greedy line changes it within [`params::SWINDLE_DEPTH`] moves
/// (sooner is larger); replies that change it; the greedy reply loses seeds; replies that do.
type TrapKey = (bool, Option<std::cmp::Reverse<u32>>, usize, bool, usize);

/// The result (-1, 0, 1 for the side to move) of a single game in which the side to move of
/// `state` gets `score` (as [`SearchResult::score`]): the sign of the final difference of the
/// stores, the stores now plus the future margin (the score less the seeds already taken this
/// round).
fn result_of(state: &GameState, score: i32) -> i32 {
    let pos = state.position();
    let me = pos.to_move();
    (score + i32::from(pos.store(me)) - i32::from(pos.store(me.other())) - taken_margin(state))
        .signum()
}

/// The deeper traps of [`swindle`]: `state` has us to move after the opponent's greedy reply;
/// `base` is our result with perfect play where the swindle began. Returns how many more of
/// our moves the greedy line needs before one of its replies gives us a better result than
/// `base` (0: the reply just played already did), playing only our moves that keep the exact
/// value, within `depth` moves; `None` if it never does (or the budget ran out).
fn greedy_trap(
    state: &GameState,
    base: i32,
    depth: u32,
    budget: &TrapBudget<'_>,
    used: &mut u64,
) -> Option<u32> {
    if budget.spent(*used) {
        return None;
    }
    let me = state.position().to_move();
    let (values, n) = analyze_counted(state, &budget.limits());
    *used += n;
    let best = values.first()?;
    if !values.iter().all(|v| v.exact) {
        return None;
    }
    if result_of(state, best.score) > base {
        return Some(0);
    }
    if depth == 0 {
        return None;
    }
    let mut soonest: Option<u32> = None;
    for m in values.iter().filter(|v| v.score == best.score) {
        let mut child = state.clone();
        child.play(m.mv).ok()?;
        if child.is_round_over() {
            continue;
        }
        let reply = crate::arena::greedy_net_capture(&child)?;
        child.play(reply).ok()?;
        let found = if child.is_round_over() {
            let winner = child.winner().flatten();
            let r = match winner {
                Some(w) if w == me => 1,
                Some(_) => -1,
                None => 0,
            };
            (r > base).then_some(0)
        } else if child.position().to_move() == me {
            greedy_trap(&child, base, depth - 1, budget, used)
        } else {
            None
        };
        if let Some(d) = found {
            let d = d + 1;
            if soonest.is_none_or(|s| d < s) {
                soonest = Some(d);
                if d == 1 {
                    break;
                }
            }
        }
    }
    soonest
}

/// What the deeper traps of [`swindle`] may spend: each analysis gets a slice of the time and
/// nodes, all of them together at most `nodes` nodes and until `deadline`.
struct TrapBudget<'a> {
    slice: Limits,
    nodes: Option<u64>,
    deadline: Option<std::time::Instant>,
    stop: &'a Option<Arc<AtomicBool>>,
}

impl TrapBudget<'_> {
    fn limits(&self) -> Limits {
        self.slice.clone()
    }

    fn spent(&self, used: u64) -> bool {
        self.nodes.is_some_and(|n| used >= n)
            || self
                .deadline
                .is_some_and(|d| std::time::Instant::now() >= d)
            || self
                .stop
                .as_ref()
                .is_some_and(|s| s.load(Ordering::Relaxed))
    }
}

/// Once the root's value is proven, the search spends what is left of its budget (time or
/// nodes; never under a depth limit alone) choosing, among the root moves that are as good as
/// the best, the one that gives the opponent the most chances to go wrong. "As good": the same
/// proven value in seeds, so that the margin is never given away (the unit of the evaluation is
/// the final margin, and perfect play keeps it). Preferred, in order: a
/// move after which the opponent's greedy reply (the largest immediate gain) is a proven
/// mistake that changes the result in our favour; a move after which the greedy line (the
/// opponent always greedy, we always keeping the value) reaches such a mistake within
/// [`params::SWINDLE_DEPTH`] of our moves, the sooner the better; the most replies that change
/// the result; a greedy reply that is a proven mistake in seeds; the most such replies. Returns
/// the move, its value, its principal variation and the nodes spent, or `None` to keep the
/// search's move (which keeps ties).
fn swindle(
    state: &GameState,
    limits: &Limits,
    r: &SearchResult,
    clock: &Clock,
) -> Option<(Hole, i32, Vec<Hole>, u64)> {
    let started = std::time::Instant::now();
    let time_left = limits.movetime.map(|t| t.saturating_sub(clock.elapsed()));
    let nodes_left = limits.nodes.map(|n| n.saturating_sub(r.nodes));
    if (time_left.is_none() && nodes_left.is_none())
        || time_left.is_some_and(|t| t < std::time::Duration::from_millis(2))
        || nodes_left.is_some_and(|n| n < params::SWINDLE_MIN_NODES)
    {
        return None;
    }
    let share = |k: u32| Limits {
        movetime: time_left.map(|t| t / k),
        nodes: nodes_left.map(|n| n / u64::from(k)),
        stop: limits.stop.clone(),
        oracle: limits.oracle.clone(),
        ..Limits::default()
    };
    // In a single game the result is the sign of the final difference of the stores.
    let me = state.position().to_move();
    let result = |score: i32| result_of(state, score);
    let by_result = state.mode() == pussa_rules::Mode::Single && result(r.score) <= 0;
    let (root, mut used) = analyze_counted(state, &share(2));
    let mut tied: Vec<&MoveValue> = root
        .iter()
        .filter(|m| m.exact && m.score == r.score)
        .collect();
    if tied.len() < 2 {
        return None;
    }
    // The search's own move first, so that it keeps ties.
    tied.sort_by_key(|m| Some(m.mv) != r.best);
    let k = 4 * tied.len() as u32;
    // The deeper traps share the second half of what is left, a slice per analysis.
    let deep_share = share(4 * k);
    let budget = TrapBudget {
        slice: deep_share,
        nodes: nodes_left.map(|n| n / 2),
        deadline: time_left.map(|t| started + t.mul_f64(0.9)),
        stop: &limits.stop,
    };
    let mut deep_used = 0;
    let mut best: Option<(TrapKey, &MoveValue)> = None;
    for m in tied {
        let mut child = state.clone();
        child.play(m.mv).ok()?;
        let key = if child.is_round_over() {
            (false, None, 0, false, 0)
        } else {
            let (replies, n) = analyze_counted(&child, &share(k));
            used += n;
            // A reply's value for us is minus the opponent's value.
            let flips = |v: &MoveValue| by_result && v.exact && result(-v.score) > result(r.score);
            let mistake = |v: &MoveValue| v.exact && -v.score > m.score;
            let greedy = crate::arena::greedy_net_capture(&child);
            let greedy_reply = replies.iter().find(|v| Some(v.mv) == greedy);
            let greedy_flips = greedy_reply.is_some_and(flips);
            // The greedy line further on, if its first reply does not already change the
            // result.
            let deeper = match greedy {
                Some(g) if by_result && params::SWINDLE_DEPTH > 1 && !greedy_flips => {
                    let mut after = child.clone();
                    after.play(g).ok()?;
                    if after.is_round_over() || after.position().to_move() != me {
                        None
                    } else {
                        greedy_trap(
                            &after,
                            result(r.score),
                            params::SWINDLE_DEPTH - 1,
                            &budget,
                            &mut deep_used,
                        )
                        .map(|d| std::cmp::Reverse(d + 1))
                    }
                }
                _ => None,
            };
            (
                greedy_flips,
                deeper,
                replies.iter().filter(|v| flips(v)).count(),
                greedy_reply.is_some_and(mistake),
                replies.iter().filter(|v| mistake(v)).count(),
            )
        };
        if best.as_ref().is_none_or(|(b, _)| key > *b) {
            best = Some((key, m));
        }
    }
    used += deep_used;
    best.map(|(_, m)| (m.mv, m.score, m.pv.clone(), used))
}

/// Every legal move with its value: iterative deepening where each root move is searched with a
/// full window; the values of the last completed depth are returned, best first.
/// A value is reported exact only if it is proven and counts on no estimated later round (in a
/// match, [`Worker::est`]).
pub(crate) fn analyze(state: &GameState, limits: &Limits) -> Vec<MoveValue> {
    analyze_report(state, limits).moves
}

/// [`analyze`], with the depth reached and the number of nodes searched.
pub(crate) fn analyze_report(state: &GameState, limits: &Limits) -> crate::Analysis {
    analysis_of(state, analyze_counted_depth(state, limits))
}

/// The [`crate::Analysis`] of a [`Counted`] answer: a value counting on an estimated later
/// round is not exact.
fn analysis_of(state: &GameState, counted: Counted) -> crate::Analysis {
    let (mut moves, nodes, depth, est, unresolved) = counted;
    for m in &mut moves {
        m.exact &= !est.contains(&m.mv);
    }
    let settled = best_is_ceiling(state, &moves);
    crate::Analysis {
        moves,
        depth,
        nodes,
        settled,
        unresolved,
    }
}

/// [`analyze`], with the number of nodes searched; `exact` there means proven within the
/// search's valuation (in a match, possibly on an estimated later round), as the swindle needs.
fn analyze_counted(state: &GameState, limits: &Limits) -> (Vec<MoveValue>, u64) {
    let (v, n, _, _, _) = analyze_counted_depth(state, limits);
    (v, n)
}

/// The moves of [`analyze_counted_depth`]'s answer: values, nodes, the last depth completed,
/// the moves whose values count on an estimated later round ([`Worker::est`]) and the moves the
/// root's proof left unresolved ([`root_moves`]).
type Counted = (Vec<MoveValue>, u64, u32, Vec<Hole>, Vec<Hole>);

/// [`analyze_counted`], with the last depth completed, the moves whose values count on an
/// estimated later round ([`Worker::est`]) and the moves left unresolved (not valued).
fn analyze_counted_depth(state: &GameState, limits: &Limits) -> Counted {
    analyze_counted_proof(state, limits, None, None, false, &mut |_, _, _| {})
}

/// [`analyze_report`] restricted to the root moves in `only` (all of them with `None`; the
/// moves outside it are neither valued nor listed), calling `report` after every completed
/// iteration with its depth, every move's value best first (as [`crate::Analysis::moves`]) and
/// the nodes searched so far: the engine protocol's `MultiPV` and `searchmoves`. As [`search`],
/// a time-managed search with one root move left keeps at most [`params::FORCED_MOVE_MS`].
pub(crate) fn analyze_each_iteration(
    state: &GameState,
    limits: &Limits,
    only: Option<Moves>,
    report: &mut dyn FnMut(u32, &[MoveValue], u64),
) -> crate::Analysis {
    analysis_of(
        state,
        analyze_counted_proof(state, limits, None, only, true, report),
    )
}

/// [`analyze`] with the root's proof of its long moves bounded to `proof_laps` laps where
/// `limits` has no node budget ([`root_moves`]): the softmax levels' analysis, whose depth
/// limit alone would prove every move to its end.
pub(crate) fn analyze_bounded(
    state: &GameState,
    limits: &Limits,
    proof_laps: u64,
) -> Vec<MoveValue> {
    let (mut moves, _, _, est, _) = analyze_counted_proof(
        state,
        limits,
        Some(proof_laps),
        None,
        false,
        &mut |_, _, _| {},
    );
    for m in &mut moves {
        m.exact &= !est.contains(&m.mv);
    }
    moves
}

/// [`analyze_counted_depth`], the root's proof bounded by `proof_laps` ([`root_moves`]), the
/// root moves restricted to `only`, a time-managed search with one root move shortened if
/// `cap_forced` ([`Clock::forced_move`]), and `report` called after every completed iteration
/// (see [`analyze_each_iteration`]).
fn analyze_counted_proof(
    state: &GameState,
    limits: &Limits,
    proof_laps: Option<u64>,
    only: Option<Moves>,
    cap_forced: bool,
    report: &mut dyn FnMut(u32, &[MoveValue], u64),
) -> Counted {
    let pos = *state.position();
    if state.is_round_over() {
        return (Vec::new(), 0, 0, Vec::new(), Vec::new());
    }
    let mut clock = clock_of(limits);
    let mut root = root_moves(&pos, &clock, limits, proof_laps);
    if let Some(only) = only {
        root.kids.retain(|k| only.contains(k.0));
        root.unresolved.retain(|&mv| only.contains(mv));
    }
    if cap_forced && root.kids.len() == 1 && root.unresolved.is_empty() {
        clock.forced_move();
    }
    if root.long {
        clock.iterations_start_now();
    }
    let tt = Tt::new(tt_entries(limits));
    let pvs = PvCache::new();
    let hist = root_history(state);
    let offset = root_offset(state);
    let me = pos.to_move();
    let maxd = max_depth(limits);
    let mut w = Worker::new(
        &tt,
        &pvs,
        &clock,
        limits.oracle.as_deref(),
        MatchView::of(state),
        limits.nodes.unwrap_or(u64::MAX),
        &hist,
    );
    let rkey = pos.repetition_key();

    let mut moves: Vec<(Hole, Position, i32, bool)> = Vec::new();
    for &(mv, c, out) in &root.kids {
        let g = i32::from(out.taken[me.index()]) - i32::from(out.taken[me.other().index()]);
        moves.push((mv, c, g * SCALE, out.seeds_taken() > 0));
    }
    let mut values: Vec<MoveValue> = moves
        .iter()
        .map(|&(mv, _, g, _)| MoveValue {
            mv,
            score: offset + to_seeds(g),
            exact: false,
            pv: vec![mv],
        })
        .collect();
    let mut depth = 1;
    let mut reached = 0;
    let mut est = Vec::new();
    // The moves the root's proof left unresolved are not valued; the others are searched.
    while depth <= maxd {
        if depth > 1 && !clock.may_start_iteration() {
            break;
        }
        let mut this = Vec::with_capacity(moves.len());
        let mut this_est = Vec::new();
        for &(mv, ref child, g, captured) in &moves {
            let saved = (w.base, w.set_hash);
            if captured {
                w.base = w.path.len();
                w.set_hash = 0;
            } else {
                w.path.push(rkey);
                w.set_hash ^= key_hash(rkey);
            }
            w.est = false;
            let (cv, p) = w.negamax(child, depth as i32 - 1, -INF, INF, 1);
            if w.est {
                this_est.push(mv);
            }
            if !captured {
                w.path.pop();
            }
            (w.base, w.set_hash) = saved;
            if w.stopped {
                break;
            }
            let mut pv = vec![mv];
            pv.extend(
                w.pv[1][..w.pv_len[1]]
                    .iter()
                    .map(|&i| Hole::ALL[i as usize]),
            );
            // A match won or lost with every seed on the board: proven ([`match_ceiling`]).
            let settled = w.view.is_some() && (g - cv).abs() == match_ceiling(&pos);
            if settled {
                this_est.retain(|&m| m != mv);
            }
            this.push(MoveValue {
                mv,
                score: offset + to_seeds(g - cv),
                exact: p || settled,
                pv,
            });
        }
        if w.stopped {
            break;
        }
        let all_exact = this.iter().all(|m| m.exact);
        values = this;
        est = this_est;
        reached = depth;
        let mut shown = values.clone();
        for m in &mut shown {
            m.exact &= !est.contains(&m.mv);
        }
        shown.sort_by(|a, b| b.score.cmp(&a.score).then(a.mv.index().cmp(&b.mv.index())));
        report(depth, &shown, w.nodes);
        if all_exact {
            break;
        }
        depth += 1;
    }
    values.sort_by(|a, b| b.score.cmp(&a.score).then(a.mv.index().cmp(&b.mv.index())));
    if let (Some(oracle), None) = (limits.oracle.as_deref(), MatchView::of(state)) {
        for m in values.iter_mut().filter(|m| m.exact) {
            extend_pv_from_tables(state, oracle, &mut m.pv);
        }
    }
    (values, w.nodes, reached, est, root.unresolved)
}

/// Whether the best of `moves` (values in seeds, offset included) is a match won with every
/// seed on the board ([`match_ceiling`]): then the position's value is proven, whatever the
/// other moves' values.
fn best_is_ceiling(state: &GameState, moves: &[MoveValue]) -> bool {
    let pos = state.position();
    MatchView::of(state).is_some()
        && moves.first().is_some_and(|b| {
            b.exact && (b.score - root_offset(state)) * SCALE == match_ceiling(pos)
        })
}

/// The longest principal variation [`extend_pv_from_tables`] writes.
const TABLE_PV_MAX: usize = 24;

/// Extends `pv`, a line from `state` that the search cut short where the exact values of `oracle`
/// took over, by following the tables: at each position it plays the first legal move whose
/// gain and the exact value after it give the position's own exact value, until the round ends,
/// a value depends on the round's history, or the line is [`TABLE_PV_MAX`] moves long.
fn extend_pv_from_tables(state: &GameState, oracle: &dyn ExactOracle, pv: &mut Vec<Hole>) {
    // The exact value of the state's position, `None` if the tables do not give it here.
    let value = |s: &GameState| -> Option<i32> {
        if s.is_round_over() {
            return Some(0);
        }
        // A history of one position: seeds just left the board, nothing earlier can recur.
        if s.history().len() == 1 {
            oracle.probe(s.position())
        } else {
            oracle.probe_any_history(s.position())
        }
    };
    let mut s = state.clone();
    for &mv in pv.iter() {
        if s.play(mv).is_err() {
            return;
        }
    }
    let Some(mut v) = value(&s) else { return };
    while pv.len() < TABLE_PV_MAX && !s.is_round_over() {
        let me = s.position().to_move().index();
        let step = s.legal_moves().into_iter().find_map(|mv| {
            let mut c = s.clone();
            let before = c.position().stores();
            c.play(mv).ok()?;
            let after = c.position().stores();
            let gain = (i32::from(after[me]) - i32::from(before[me]))
                - (i32::from(after[1 - me]) - i32::from(before[1 - me]));
            let vc = value(&c)?;
            (gain - vc == v).then_some((mv, c, vc))
        });
        let Some((mv, c, vc)) = step else { return };
        pv.push(mv);
        s = c;
        v = vc;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pussa_rules::{Game, Mode, Side};

    /// QA pass 17, second pass, review-engine #1: with several threads sharing a node budget, a
    /// helper that ran first (as a loaded machine often had it) spent the whole budget before
    /// the main thread completed depth 1, and `go nodes N` answered with the unsearched
    /// fallback (`info depth 0`), where one thread searched 6 to 11 plies. Here the main thread
    /// starts only once every helper is waiting or done; it still completes its iterations with
    /// the budget (the helpers wait for its first one), as one thread does.
    /// A node budget bounded by a move time (a `nodes:<n>` player or a level under a clock)
    /// gets no larger table than a timed search: a table sized for millions of nodes made each
    /// move pay tens of milliseconds of page faults, and such players lost on time at short
    /// clocks where `search` did not. A node budget alone keeps its table.
    #[test]
    fn a_node_budget_under_a_move_time_gets_a_timed_searchs_table() {
        let limits = |nodes, movetime| Limits {
            nodes: Some(nodes),
            movetime,
            ..Limits::default()
        };
        let timed = Some(std::time::Duration::from_millis(5));
        assert_eq!(tt_entries(&limits(3_000_000, None)), 6_000_000);
        assert_eq!(
            tt_entries(&limits(3_000_000, timed)),
            params::TT_ENTRIES_DEFAULT
        );
        assert_eq!(tt_entries(&limits(20_000, timed)), 40_000);
        assert_eq!(
            tt_entries(&Limits {
                movetime: timed,
                ..Limits::default()
            }),
            params::TT_ENTRIES_DEFAULT
        );
    }

    #[test]
    fn a_shared_node_budget_always_completes_the_main_threads_first_iteration() {
        let mut after_g = GameState::new(Game::RajaPasu, Mode::Single, Side::South);
        after_g.play("G".parse().unwrap()).unwrap();
        let starts = [
            after_g,
            GameState::new(Game::RajaPasu, Mode::Single, Side::South),
            GameState::new(Game::WalakPussa, Mode::Single, Side::South),
        ];
        for state in &starts {
            for budget in [100u64, 1000, 5000] {
                let limits = Limits {
                    nodes: Some(budget),
                    ..Limits::default()
                };
                let one = search_on(state, &limits, 1, MainStart::Now, &mut |_| {});
                assert!(one.depth >= 1, "one thread, nodes {budget}: {one:?}");
                for threads in [2, 3] {
                    let mut infos = Vec::new();
                    let r = search_on(state, &limits, threads, MainStart::AfterHelpers, &mut |i| {
                        infos.push((i.depth, i.nodes));
                    });
                    let what = format!("{threads} threads, nodes {budget}: {r:?} {infos:?}");
                    assert!(r.depth >= 1, "{what}");
                    assert!(infos.first().is_some_and(|&(d, _)| d == 1), "{what}");
                    assert_eq!(r.pv.first().copied(), r.best, "{what}");
                    assert!(r.nodes <= budget, "{what}");
                    assert!(state.legal_moves().contains(r.best.unwrap()), "{what}");
                }
            }
        }
    }
}
