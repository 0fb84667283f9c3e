//! # pussa-engine
//!
//! The computer opponent for the pussa games: an alpha-beta search ([`search`]), every move's
//! value ([`analyze`]), Monte Carlo tree search ([`mcts`]), a ladder of playing levels
//! ([`Level`], [`choose_move`]) and a small game runner ([`play_game`]).
//!
//! Scores are in seeds, from the point of view of the side to move: the final margin of the
//! round (seeds taken in this round by the side to move minus by the opponent when the round
//! ends, with best play), seeds already taken in the round included; in a match, the match
//! value in holdings (docs/engine.md, "Matches"; [`SearchResult::score`]).
//!
//! # Examples
//! ```
//! use pussa_engine::{search, Limits};
//! use pussa_rules::{Game, GameState, Mode, Side};
//! let state = GameState::new(Game::WalakPussa, Mode::Single, Side::South);
//! let limits = Limits { depth: Some(4), ..Limits::default() };
//! let result = search(&state, &limits, &mut |_| {});
//! assert!(state.legal_moves().contains(result.best.unwrap()));
//! ```
#![warn(missing_docs)]

// The crate's README.md (its crates.io page) is compiled and run as a doctest, so its example
// stays in step with the API.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctest;

use std::fmt;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pussa_rules::{GameState, Hole, MoveOutcome, Position};
use serde::{Deserialize, Serialize};

/// `s` for a message: its first `max` characters and an ellipsis if it is longer.
pub(crate) fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

pub mod arena;
pub mod bench;
pub mod eval;
pub mod levels;
pub mod matchval;
pub mod mcts;
pub mod params;
pub mod protocol;
pub mod reference;
mod search;
pub mod time;
pub mod tournament;
pub mod tt;

pub use arena::{play_game, GameRecord, Player};
pub use levels::{
    choose_move, choose_move_with_oracle, choose_move_with_stop, Level, NotOfferedError,
    ParseLevelError,
};

/// Exact values from elsewhere (endgame databases): the hook through which `pussa-egtb` plugs
/// its tables into the search, by [`Limits::oracle`].
///
/// Values are exact *future* margins in seeds for the side to move: the seeds the side to move
/// will take from the board from now on minus those the opponent will take, with perfect play,
/// stores not counted. The search uses them as proven values (the node is not searched).
///
/// An adapter for `pussa_egtb::Tables` is a newtype whose `probe` calls `probe_fresh` and whose
/// `probe_any_history` calls `probe`.
pub trait ExactOracle: Send + Sync {
    /// The value of `pos` when no earlier position of the round can recur (the round's
    /// repetition history starts at `pos`). The search asks this only right after a move that
    /// took seeds (and never at the root), where that holds.
    fn probe(&self, pos: &Position) -> Option<i32>;

    /// The value of `pos` if it is the same whatever positions were seen before in the round.
    /// Asked at the other nodes (after moves that took nothing). By default `None`.
    fn probe_any_history(&self, pos: &Position) -> Option<i32> {
        let _ = pos;
        None
    }

    /// The value of `pos` when the positions seen earlier in the round since seeds last left
    /// the board are `history` (repetition keys, oldest first, as
    /// [`pussa_rules::GameState::history`] keeps them; `pos` itself not among them): exact for
    /// that history, whether or not it is exact for every other. The search asks this right
    /// after a root move that took nothing, so that a root the tables cover gets exact values
    /// for its moves at any depth (the round's history is known there: a position string
    /// starts it). By default [`ExactOracle::probe`] for an empty history, else
    /// [`ExactOracle::probe_any_history`].
    fn probe_with_history(&self, pos: &Position, history: &[u128]) -> Option<i32> {
        if history.is_empty() {
            self.probe(pos)
        } else {
            self.probe_any_history(pos)
        }
    }

    /// The exact value of `pos` (in the units of [`ExactOracle::probe`]) when the round's
    /// repetition history starts at `pos`, found by a full search down to the tables if `pos`
    /// has more seeds than they hold; `None` if that is out of the implementation's reach.
    /// Used to choose fair tournament openings ([`tournament::Config::exact_openings`]). By
    /// default `None`.
    fn solve(&self, pos: &Position) -> Option<i32> {
        let _ = pos;
        None
    }
}

/// Limits and options of a search. With no depth, node or time limit the search goes to
/// [`params::DEFAULT_DEPTH`].
#[derive(Clone)]
pub struct Limits {
    /// Deepest iteration, in plies. `Some(0)` is read as `Some(1)`: one ply is always
    /// searched (at most [`params::MAX_DEPTH`]).
    pub depth: Option<u32>,
    /// Node budget (the search stops as soon as it is spent; it also ends after
    /// [`params::MAX_DEPTH`] plies, or once the root's value is proven, with budget left).
    /// `Some(0)`: nothing is searched;
    /// [`search`] returns at once the first legal move with `depth` 0, `nodes` 0, `exact` false
    /// and as score the margin so far in the round (seeds taken by the side to move minus by
    /// the other): no value. With a [`Limits::movetime`] as well, the search stops at
    /// whichever comes first, and its hash table is no larger than a timed search's (a table
    /// sized for the budget would cost a move time's worth of page faults).
    pub nodes: Option<u64>,
    /// Time for the move, from [`Limits::start`]; the search stops on time (the clock is
    /// checked every [`params::CHECK_EVERY`] nodes and every [`params::CHECK_EVERY_LAPS`] laps
    /// sown, and only once the main thread has searched [`params::MIN_TIMED_NODES`] nodes or
    /// the deadline is far past, [`time::Clock::must_stop_after`]; a single sowing longer than
    /// [`pussa_rules::INTERRUPT_LAPS`] laps is interrupted at the deadline, so that a move
    /// whose cycle takes seconds to prove endless does not hold the answer back). In a match, call
    /// [`matchval::prepare`] first: the round values it computes are otherwise computed inside
    /// the first searches, outside their time. How much of it is used: see
    /// [`Limits::whole_movetime`].
    pub movetime: Option<Duration>,
    /// Use the whole `movetime`, as UCI's `go movetime` ("search exactly that long"): a new
    /// iteration starts whenever the deadline has not passed, and the one the deadline cuts
    /// short yields its best root move if it searched one fully (else the previous
    /// iteration's). `false` (the default): a new iteration starts only while less than
    /// [`params::ITERATION_START_PERCENT`] percent of the time is used, since the next one
    /// usually takes several times longer; the search then mostly ends after half to
    /// two-thirds of `movetime`, and a root with one legal move keeps at most
    /// [`params::FORCED_MOVE_MS`] of it (the move cannot change; a game clock's time is kept
    /// for later moves). The levels and tournaments' players keep the default (their
    /// measured strengths were played with it); `pussa engine`'s `go movetime` sets this.
    /// Either way the search ends earlier when the root's value is proven or
    /// [`params::MAX_DEPTH`] is reached.
    pub whole_movetime: bool,
    /// Search threads (Lazy SMP). 1 is deterministic. At most the threads the machine runs at
    /// once are started ([`effective_threads`]).
    pub threads: usize,
    /// Seed for the randomised parts (levels, MCTS). Same limits (without movetime) and seed,
    /// same result.
    pub seed: u64,
    /// Raised by another thread to stop the search; the best move found so far is returned
    /// (checked every [`params::CHECK_EVERY`] nodes, and every
    /// [`pussa_rules::INTERRUPT_LAPS`] laps of a long sowing; a search stopped before its first
    /// iteration returns the first legal move). A flag already raised when [`search`] starts
    /// is answered at once as `nodes: Some(0)` is: the first legal move, depth 0, nodes 0.
    pub stop: Option<Arc<AtomicBool>>,
    /// Exact values for some positions (endgame databases), see [`ExactOracle`].
    pub oracle: Option<Arc<dyn ExactOracle>>,
    /// When the time started counting (`None`: when [`search`] or [`analyze`] is called).
    /// `pussa engine` gives the moment `go` was read, so that `movetime` and the `time` of its
    /// `info` lines count from `go`, whatever was done before the search began.
    pub start: Option<Instant>,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            depth: None,
            nodes: None,
            movetime: None,
            whole_movetime: false,
            threads: 1,
            seed: 0,
            stop: None,
            oracle: None,
            start: None,
        }
    }
}

impl fmt::Debug for Limits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Limits")
            .field("depth", &self.depth)
            .field("nodes", &self.nodes)
            .field("movetime", &self.movetime)
            .field("whole_movetime", &self.whole_movetime)
            .field("threads", &self.threads)
            .field("seed", &self.seed)
            .field("stop", &self.stop.is_some())
            .field("oracle", &self.oracle.is_some())
            .field("start", &self.start)
            .finish()
    }
}

/// Progress of a search, reported after each completed iteration. Reads and writes serde
/// (`elapsed` in serde's shape of a [`Duration`], `{"secs", "nanos"}`; moves as their letters).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchInfo {
    /// Depth completed, in plies.
    pub depth: u32,
    /// Score in seeds for the side to move (see the crate docs).
    pub score: i32,
    /// True if the score is proven (in a match: without an estimated later round, as
    /// [`SearchResult::exact`]).
    pub exact: bool,
    /// Nodes searched so far (all threads).
    pub nodes: u64,
    /// Nodes per second.
    pub nps: u64,
    /// Time since the search started.
    pub elapsed: Duration,
    /// The principal variation.
    pub pv: Vec<Hole>,
}

/// The outcome of [`search`] (and of [`mcts::search`]). Reads and writes serde, moves as
/// their letters.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchResult {
    /// The best move; `None` iff no move is expected (round over or no legal move).
    pub best: Option<Hole>,
    /// Score in seeds for the side to move: the final margin of the round with best play,
    /// seeds already taken in the round included; in a match, the match value, in holdings
    /// (the holdings margin expected after the next round, or the final holdings margin
    /// ±`params::MATCH_WIN` where the round ends the match: docs/engine.md, "Matches"), the
    /// same whatever part of the stores was carried over at the last refill.
    pub score: i32,
    /// The score is proven (the search reached every end of the round under the best move); in
    /// a match also that it counts on no estimate of a later round (every end of the round it
    /// rests on ends the match: docs/engine.md, "Matches"). A match won (or lost) with every
    /// seed left on the board is the most (least) any value can be, so it is exact whatever the
    /// other moves' values.
    pub exact: bool,
    /// Last depth completed.
    pub depth: u32,
    /// Nodes searched (all threads).
    pub nodes: u64,
    /// The principal variation, starting with `best`.
    pub pv: Vec<Hole>,
}

/// Searches `state` within `limits`, reporting each completed iteration to `on_info`.
///
/// Score: seeds, from the side to move's point of view: the final margin of the round (seeds
/// taken in this round by the side to move minus by the opponent at the round's end, with best
/// play), already-taken seeds included; in a match, the match value in holdings
/// ([`SearchResult::score`]). `exact`: the value is proven (the search reached every
/// end, or exact oracle values), in a match without an estimated later round.
///
/// # Examples
/// ```
/// use pussa_engine::{search, Limits};
/// use pussa_rules::{Game, GameState, Mode, Side};
/// let state = GameState::new(Game::RajaPasu, Mode::Single, Side::South);
/// let mut depths = Vec::new();
/// let r = search(&state, &Limits { depth: Some(3), ..Limits::default() }, &mut |i| depths.push(i.depth));
/// assert_eq!(depths, vec![1, 2, 3]);
/// assert_eq!(r.pv.first().copied(), r.best);
/// ```
///
/// With few seeds left the search reaches every end of the round, and its score is proven:
/// ```
/// use pussa_engine::{reference, search, Limits};
/// use pussa_rules::{Hole, Mode, Setup};
/// // Raja Pasu, South to move with 4 seeds left on the board; South has taken 40, North 54.
/// let setup: Setup = "0,0,0,0,0,1,2/1,0,0,0,0,0,0 40 54 S 1 raja-pasu".parse()?;
/// let state = setup.game_state(Mode::Single)?;
/// let r = search(&state, &Limits::default(), &mut |_| {});
/// assert!(r.exact);
/// assert_eq!(r.best, Some(Hole::from_letter('G')?));
/// // South ends the round 18 behind: the 14 already, and North takes the last 4 seeds.
/// assert_eq!(r.score, -18);
/// assert_eq!(reference::minimax_state(&state, 20), Some((-18, true)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn search(
    state: &GameState,
    limits: &Limits,
    on_info: &mut dyn FnMut(&SearchInfo),
) -> SearchResult {
    search::search(state, limits, on_info)
}

/// The search threads run for [`Limits::threads`] = `requested`: at least 1, and at most the
/// threads the machine runs at once ([`std::thread::available_parallelism`]). More would only
/// take turns on the cores: the main thread, starved, would check its clock late, and a
/// `movetime` would overshoot (64 threads on 2 cores took 265 ms for 50 ms, 256 took 1280).
///
/// # Examples
/// ```
/// use pussa_engine::effective_threads;
/// let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
/// assert_eq!(effective_threads(0), 1);
/// assert_eq!(effective_threads(1), 1);
/// assert_eq!(effective_threads(256), cores.min(256));
/// ```
#[must_use]
pub fn effective_threads(requested: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    requested.clamp(1, cores)
}

/// One legal move and its value, as [`analyze`] gives it (in seeds, with the line that
/// proves it). Reads and writes serde. Not to be confused with `pussa_egtb::MoveValue`, a
/// move's exact value from the endgame tables (its gain and the value after it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveValue {
    /// The move.
    pub mv: Hole,
    /// Its value in seeds for the side to move (as [`SearchResult::score`]: in a match, the
    /// match value of docs/engine.md, "Matches", in holdings: the final holdings margin ±200
    /// where the round ends the match).
    pub score: i32,
    /// The value is proven (in a match: and counts on no estimated later round, as
    /// [`SearchResult::exact`]).
    pub exact: bool,
    /// The principal variation, starting with `mv`.
    pub pv: Vec<Hole>,
}

/// Every legal move of `state` with its value, best first (equal values in board order).
/// Empty when no move is expected.
///
/// # Examples
/// ```
/// use pussa_engine::{analyze, Limits};
/// use pussa_rules::{Game, GameState, Mode, Side};
/// let state = GameState::new(Game::PasuPondi, Mode::Single, Side::South);
/// let values = analyze(&state, &Limits { depth: Some(3), ..Limits::default() });
/// assert_eq!(values.len(), state.legal_moves().len());
/// assert!(values.windows(2).all(|w| w[0].score >= w[1].score));
/// ```
#[must_use]
pub fn analyze(state: &GameState, limits: &Limits) -> Vec<MoveValue> {
    search::analyze(state, limits)
}

/// The legal moves of a state as far as a bounded proof finds them ([`prove_moves`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProvenMoves {
    /// The moves proven legal, in board order, each with its outcome.
    pub legal: Vec<(Hole, MoveOutcome)>,
    /// The candidates neither proven legal nor proven endless within the limits (a sowing whose
    /// cycle takes longer to prove than the limits allow, docs/rules.md, "Endless moves"), in
    /// board order. Always empty without a move time, node budget or stop.
    pub unresolved: Vec<Hole>,
}

/// The legal moves of `state`, proven as the search's root proves them: each candidate is sown
/// [`params::ROOT_FIRST_LAPS`] laps, and the longer ones are then proven within `limits` (half
/// of a move time, as many laps as a node budget, until `stop`; without these, to their end, as
/// [`GameState::legal_moves`] does). A move left unresolved is neither legal nor endless as far
/// as the proof went. If no move is proven legal when the proof stops, the sowing goes on until
/// one is (a player to move has one). Empty when no move is expected.
///
/// # Examples
/// ```
/// use pussa_engine::{prove_moves, Limits};
/// use pussa_rules::{Game, GameState, Mode, Side};
/// let state = GameState::new(Game::RajaPasu, Mode::Single, Side::South);
/// let p = prove_moves(&state, &Limits { nodes: Some(1000), ..Limits::default() });
/// assert_eq!(p.legal.len(), 7);
/// assert!(p.unresolved.is_empty());
/// ```
#[must_use]
pub fn prove_moves(state: &GameState, limits: &Limits) -> ProvenMoves {
    search::prove_root(state, limits, None)
}

/// What [`analyze_report`] found: every legal move's value and how far the search went.
/// Reads and writes serde.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Analysis {
    /// Every legal move with its value, best first, as [`analyze`] gives them.
    pub moves: Vec<MoveValue>,
    /// The last depth of the iterative deepening completed for every move (0: none, or no
    /// move expected; the values are then the moves' immediate gains).
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// In a match, the best move wins the match with every seed left on the board: no move can
    /// be worth more, so the position's value is proven whatever the other moves' values
    /// (as [`search`] reports it: docs/engine.md, "Matches").
    pub settled: bool,
    /// Moves neither proven legal nor proven endless within the limits (a sowing whose cycle
    /// takes longer to prove than the proof's share of the move time or node budget,
    /// docs/rules.md, "Endless moves"), in board order: not valued and not in `moves`. Empty
    /// when every candidate was resolved (always so without a move time, node budget or stop).
    pub unresolved: Vec<Hole>,
}

impl Analysis {
    /// The position's value for the side to move: the best move's value, and whether it is
    /// proven (every move's value proven and no move [`Analysis::unresolved`], or
    /// [`Analysis::settled`]). `None` when no move is expected.
    #[must_use]
    pub fn value(&self) -> Option<(i32, bool)> {
        let best = self.moves.first()?;
        Some((
            best.score,
            self.settled || (self.unresolved.is_empty() && self.moves.iter().all(|m| m.exact)),
        ))
    }
}

/// [`analyze`], with the depth reached and the nodes searched.
///
/// # Examples
/// ```
/// use pussa_engine::{analyze_report, Limits};
/// use pussa_rules::{Game, GameState, Mode, Side};
/// let state = GameState::new(Game::PasuPondi, Mode::Single, Side::South);
/// let a = analyze_report(&state, &Limits { depth: Some(3), ..Limits::default() });
/// assert_eq!(a.depth, 3);
/// assert!(a.nodes > 0);
/// assert_eq!(a.value().map(|v| v.0), a.moves.first().map(|m| m.score));
/// ```
#[must_use]
pub fn analyze_report(state: &GameState, limits: &Limits) -> Analysis {
    search::analyze_report(state, limits)
}
