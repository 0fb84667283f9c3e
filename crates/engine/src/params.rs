//! Every tunable constant of the engine, in one place.

/// Internal score units per seed. Scores inside the search are in 1/`SCALE` seeds so that the
/// positional term of the evaluation can be finer than a seed; they are reported in seeds.
pub const SCALE: i32 = 8;

/// Evaluation: weight of (seeds in my row − seeds in the opponent's row), in internal units per
/// seed (so 2 = a quarter of a seed per seed of row advantage).
pub const EVAL_ROW_WEIGHT: i32 = 2;

/// The deepest iteration the search ever starts.
pub const MAX_DEPTH: u32 = 96;

/// Maximum ply (depth from the root) the search tracks PV and killers for.
pub const MAX_PLY: usize = 128;

/// Depth used when a search is given no depth, node or time limit.
pub const DEFAULT_DEPTH: u32 = 12;

/// The clock and the stop flag are checked every `CHECK_EVERY` nodes (a power of two).
pub const CHECK_EVERY: u64 = 1024;

/// Time management: a new iteration is started only if less than this fraction (in percent) of
/// the move time has been used, since the next one usually takes several times longer.
pub const ITERATION_START_PERCENT: u32 = 50;

/// A timed search ignores its deadline (never the stop flag) until its main thread has searched
/// this many nodes (a few milliseconds): on a machine so busy that the process hardly runs, the
/// move is still a searched one rather than the fallback of an unfinished first iteration.
pub const MIN_TIMED_NODES: u64 = 20_000;

/// ... unless the deadline is far past: by the move time again and at least this many
/// milliseconds ([`crate::time::Clock::must_stop_after`]; a move time of 0 gets no grace).
/// Ordinary positions search [`MIN_TIMED_NODES`] nodes in a few milliseconds; where the nodes
/// are expensive (moves whose sowing takes very long), the deadline counts from then on.
pub const FAR_PAST_MS: u64 = 20;

/// A time-managed search ([`crate::Limits::whole_movetime`] `false`: a game clock's share, the
/// levels' move times) whose root has one legal move keeps at most this many milliseconds of
/// its move time: the move cannot change, and the time is better kept for later moves (as
/// Stockfish caps a single legal move's search). The short search still gives the `info`
/// line its value. `go movetime`, `depth` and `nodes` (exact limits) are not shortened.
pub const FORCED_MOVE_MS: u64 = 20;

/// The clock is also checked whenever the moves sown since the last check add up to this many
/// laps (besides every [`CHECK_EVERY`] nodes), so that expensive nodes do not delay it; and a
/// single sowing asks it every [`pussa_rules::INTERRUPT_LAPS`] laps.
pub const CHECK_EVERY_LAPS: u64 = 1 << 16;

/// The root's moves are first sown this many laps each; a move not over by then (its cycle is
/// long) is sown to its end afterwards, under the clock, so that a move proven legal is known
/// for the fallback whenever the time runs out first.
pub const ROOT_FIRST_LAPS: u32 = 1 << 16;

/// The laps a bounded proof of the legal moves sows in all beyond the first
/// [`ROOT_FIRST_LAPS`] of each move, where no move time or node budget bounds it: the softmax
/// levels ([`level::SOFT_PROOF_LAPS`]) and the protocol's `d`
/// ([`crate::prove_moves`]). About 15 ms in a release build.
pub const PROOF_LAPS: u64 = 1 << 20;

/// The root's proof of its long moves (those not over after [`ROOT_FIRST_LAPS`] laps) gets at
/// most 1/`ROOT_PROOF_SHARE` of a move time; the rest searches the moves known legal.
pub const ROOT_PROOF_SHARE: u32 = 2;

/// Clock time control (`go wtime … btime …`): the moves still to play assumed when no
/// `movestogo` is given; each move gets this share of the clock (plus most of the increment),
/// so a sudden-death clock is never used up (see [`crate::time::clock_movetime`]).
pub const CLOCK_MOVES_TO_GO: u32 = 30;

/// Clock time control: at most this many milliseconds of the clock are kept back from every
/// move (one tenth of the clock when less is left), for the pipes, the process's scheduling and
/// the [`CHECK_EVERY`]-node clock checks.
pub const CLOCK_RESERVE_MS: u64 = 50;

/// Transposition table: default size in entries (a power of two; 16 bytes each).
pub const TT_ENTRIES_DEFAULT: usize = 1 << 20;

/// Transposition table: smallest size in entries.
pub const TT_ENTRIES_MIN: usize = 1 << 10;

/// Transposition table: largest size in entries.
pub const TT_ENTRIES_MAX: usize = 1 << 22;

/// Aspiration window half-width, in internal units, around the previous iteration's score
/// (0 disables aspiration windows).
pub const ASPIRATION: i32 = 2 * SCALE;

/// Move ordering: bonus for the first and second killer move.
pub const KILLER_BONUS: [i32; 2] = [20_000, 19_000];

/// Move ordering: weight of a move's immediate gain (seeds taken by the mover minus by the
/// opponent during the move).
pub const GAIN_WEIGHT: i32 = 1_000;

/// Once the root's value is proven, choose among the equally good root moves the one that
/// sets the opponent the most traps (see `search.rs`, `swindle`).
pub const SWINDLE: bool = true;

/// How many of our moves ahead the trap choice follows the opponent's greedy line (it always
/// takes the largest immediate gain; we always keep the proven value) looking for a reply that
/// changes the result in our favour; 1: only its next reply.
pub const SWINDLE_DEPTH: u32 = 3;

/// The smallest node budget left for which the search still looks for traps.
pub const SWINDLE_MIN_NODES: u64 = 1_000;

/// Matches: what a round that ends the match is worth to its winner, in seeds, in place of the
/// next round's value (see `matchval.rs`). More than any margin a round can have.
pub const MATCH_WIN: i32 = 200;

/// Matches: the node budget of the one-thread search that values a round's start
/// (`matchval::round_value`), once per process and start.
pub const MATCH_ROUND_NODES: u64 = 50_000;

/// Matches: a round's end that would lay out the next round as this many earlier rounds of the
/// match already started (the same holdings and starter) is valued as a draw: the match has
/// settled into a circle (see `matchval.rs`).
pub const MATCH_CIRCLE_SEEN: u8 = 2;

/// MCTS: the UCT exploration constant, for values normalised to [0, 1].
pub const UCT_C: f64 = 0.7;

/// MCTS: playouts per root move before the tree grows (visits before expansion).
pub const MCTS_EXPAND_AFTER: u32 = 1;

/// Levels, weakest first (see `levels.rs`): how each one chooses its move.
pub mod level {
    /// Search depth of the softmax levels' analysis (Beginner, Novice, Casual).
    pub const SOFT_DEPTH: [u32; 3] = [1, 2, 4];
    /// Softmax temperature in seeds (higher: more random) of Beginner, Novice, Casual.
    pub const SOFT_TEMPERATURE: [f64; 3] = [3.0, 2.0, 0.5];
    /// Chance of a blunder (a random move, preferring a visible capture) of Beginner, Novice,
    /// Casual.
    pub const SOFT_BLUNDER: [f64; 3] = [0.3, 0.15, 0.03];
    /// The laps the softmax levels' proof of their legal moves may sow beyond the first
    /// [`super::ROOT_FIRST_LAPS`] of each move: a move whose sowing is very long (docs/rules.md,
    /// "Endless moves") costs them at most that (about 15 ms in a release build), not seconds;
    /// a move not proven legal or endless within it is never played, as in the search.
    pub const SOFT_PROOF_LAPS: u64 = super::PROOF_LAPS;
    use pussa_rules::{Game, Mode};

    /// Node budgets of the searching levels Club, Expert, Master, except in Pasu Pondi matches.
    /// (Each step measured at 68.8–78.8% against the one below in Walak-pussa, max included;
    /// at 200,000 nodes master played the balanced openings about as well as max does at 0.2 s
    /// and scored 50% against it, at 50,000 nodes 40%.)
    pub const NODES: [u64; 3] = [500, 5_000, 20_000];
    /// Node budgets of Club, Expert, Master in Pasu Pondi matches. These matches are decided by
    /// the first round, which a search of 10,000 nodes already plays as well as max: in 40
    /// matches max scored 52.5% against 10,000 and 20,000 nodes, and 86.3% against 5,000;
    /// 5,000 nodes scored 75.0% against 1,000 and 1,000 scored 77.5% against 500 (100 matches
    /// each). In single games these budgets squeeze the steps (expert–club and master–expert
    /// 56.5% in 100 games), so single games keep [`NODES`].
    pub const NODES_PASU_PONDI_MATCH: [u64; 3] = [500, 1_000, 5_000];

    /// The node budgets of Club, Expert, Master in `game` played as `mode`.
    #[must_use]
    pub const fn nodes(game: Game, mode: Mode) -> [u64; 3] {
        match (game, mode) {
            (Game::PasuPondi, Mode::Match) => NODES_PASU_PONDI_MATCH,
            _ => NODES,
        }
    }
    /// Time per move of the strongest level, Max, in milliseconds.
    pub const MAX_MOVETIME_MS: u64 = 200;

    use crate::Level;

    /// Every level.
    const ALL: &[Level] = &Level::ALL;
    /// Raja Pasu single games (100 games a pair from exact openings, docs/engine.md): novice
    /// scores 64.0% against beginner, expert 78.0% against club but max only 61.5% against
    /// expert (and master 62.5% against expert, max 53.0% against master), so novice, expert
    /// and master are left out; casual scores 83.0% against beginner, club 66.0% against
    /// casual and max 75.0% against club.
    const RAJA_SINGLE: &[Level] = &[Level::Beginner, Level::Casual, Level::Club, Level::Max];
    /// Pasu Pondi and Pasu Pondi 6 single games: master scores 58.5% and 60.5% against expert,
    /// max 60.0% and 57.5% against master, so master is left out; max scores 66.0% and 68.0%
    /// against expert.
    const PONDI_SINGLE: &[Level] = &[
        Level::Beginner,
        Level::Novice,
        Level::Casual,
        Level::Club,
        Level::Expert,
        Level::Max,
    ];
    /// Walak-pussa matches (docs/engine.md): they have no winner with good play (80 of the 98
    /// match states are endless), and from casual up most matches are drawn at the round
    /// limit: every searching level scores 56–70% against casual with no trend in its budget
    /// (max 60.0%, +4 =16 −0 in 20), expert 50.0% against club (all drawn), so casual, club,
    /// expert and master are left out; novice scores 99.5% against beginner and max 82.5%
    /// against novice.
    const WALAK_MATCH: &[Level] = &[Level::Beginner, Level::Novice, Level::Max];

    /// The levels offered in `game` played as `mode`, weakest first: each scored at least 65%
    /// against the one below it (docs/engine.md, "The ladders"). The levels left out do not
    /// (in that game and mode they play too much like a neighbour, or draw with it).
    #[must_use]
    pub const fn ladder(game: Game, mode: Mode) -> &'static [Level] {
        match (game, mode) {
            (Game::RajaPasu, Mode::Single) => RAJA_SINGLE,
            (Game::PasuPondi | Game::PasuPondi6, Mode::Single) => PONDI_SINGLE,
            (Game::WalakPussa, Mode::Match) => WALAK_MATCH,
            _ => ALL,
        }
    }
}
