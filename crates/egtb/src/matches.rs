//! Whole matches: rounds played perfectly for seeds one after the other, and the value of the
//! match under perfect *match* play where the round margins decide it.
//!
//! A match state between rounds is South's holding `h` (North holds the rest of the game's
//! seeds) and who starts the next round. The refill lays out the round from `h` alone
//! ([`round_start`]): each player fills `min(7, holding ÷ seeds-per-hole)` holes, the others
//! are closed, so the round is a board of some closed pattern, solved by [`Solver`] above the
//! tables of that pattern ([`MatchTables`]).
//!
//! - [`play_match`]: every round played perfectly for its margin (each player maximises the
//!   seeds they take in the round), with its principal variation, until the match ends or a
//!   round start repeats (then the match would go on for ever under that play).
//! - [`solve_match`]: backward induction over the match states. A round's exact margin value
//!   `v` (for South) means South can force a margin `≥ v` and North a margin `≤ v`; so if every
//!   margin `≥ v` leads to a state South is known to win (the match ends, or a state already
//!   proved), South wins, and likewise for North with the margins `≤ v`. Iterated to a fixed
//!   point, this proves wins exactly wherever the winning holdings form a threshold around the
//!   value; a state where neither player can force a proved win and no margin on the right side
//!   of `v` leads to one is a proved draw (the match goes on for ever); any other state is left
//!   *unresolved*: deciding it needs the round solved for a set of outcomes that is not a
//!   threshold, which the margin tables cannot answer.

use std::collections::HashMap;
use std::path::Path;
use std::time::Instant;

use pussa_rules::{
    EndReason, Game, GameState, Hole, Mode, Position, Setup, Side, StarterRule, Status,
};

use crate::format::FormatError;
use crate::moves::Pattern;
use crate::solve::{SolveError, Solver};
use crate::Tables;

/// The tables a match needs: the open board and the closed patterns `(c, 0)` / `(0, c)`.
pub struct MatchTables {
    game: Game,
    /// By the pattern with the mover's row the more closed (`(c, 0)`; the open board `(0, 0)`).
    tables: HashMap<Pattern, Tables>,
}

/// The patterns of match rounds: one player fills fewer than 7 holes only if the other holds
/// more than half the seeds, so at most one row has closed holes: `(c, 0)` and its mirror,
/// `c = 1..=6`.
#[must_use]
pub fn match_patterns() -> Vec<Pattern> {
    (1..=6).map(|c| Pattern::new(c, 0)).collect()
}

fn pair_key(p: Pattern) -> Pattern {
    p.max(p.flipped())
}

impl MatchTables {
    /// Opens the open-board tables of `game` under `open_dir` and the closed patterns'
    /// ([`match_patterns`]) under `closed_dir`, every file checked. `max` limits the seed
    /// counts used (all there are if `None`).
    ///
    /// # Errors
    /// Missing or damaged files.
    pub fn open(
        game: Game,
        open_dir: &Path,
        closed_dir: &Path,
        max: Option<usize>,
    ) -> Result<MatchTables, FormatError> {
        let mut tables = HashMap::new();
        tables.insert(Pattern::OPEN, Tables::open(open_dir, game, max)?);
        for p in match_patterns() {
            tables.insert(p, Tables::open_pattern(closed_dir, game, p, max)?);
        }
        Ok(MatchTables { game, tables })
    }

    /// Tables built in memory up to `max` seeds (small: for tests and reduced games).
    #[must_use]
    pub fn build_in_memory(game: Game, max: usize) -> MatchTables {
        let opts = crate::BuildOptions::default();
        let mut tables = HashMap::new();
        tables.insert(
            Pattern::OPEN,
            Tables::build_in_memory(game, max, opts, &|_| {}),
        );
        for p in match_patterns() {
            tables.insert(
                p,
                Tables::build_pattern_in_memory(game, p, max, opts, &|_| {}),
            );
        }
        MatchTables { game, tables }
    }

    /// The game.
    #[must_use]
    pub fn game(&self) -> Game {
        self.game
    }

    /// The largest seed count every table covers.
    #[must_use]
    pub fn max_seeds(&self) -> usize {
        self.tables
            .values()
            .map(Tables::max_seeds)
            .min()
            .unwrap_or(0)
    }

    /// The tables for the closed holes of `pos`.
    #[must_use]
    pub fn for_position(&self, pos: &Position) -> Option<&Tables> {
        let p = if pos.closed_mask() == 0 {
            Pattern::OPEN
        } else {
            Pattern::of_position(pos)?
        };
        self.tables.get(&pair_key(p))
    }
}

/// The seeds of a match: `14 × per_hole` (the game's own, or a reduced match's).
fn total(per_hole: u8) -> u32 {
    14 * u32::from(per_hole)
}

/// The first position of a round of a match of `game` with `per_hole` seeds a hole (the
/// game's own number, or fewer for a reduced match) when South holds `south` seeds (North the
/// rest) and `starter` moves first: each side fills `min(7, holding ÷ per_hole)` holes with
/// `per_hole` seeds, the rest of its holding stays in its store, the other holes are closed.
/// (`pussa_engine::matchval::round_board` is another thing: the board only, stores empty.)
///
/// # Panics
/// Panics if `south` is above the match's seeds (`14 × per_hole`), or if `per_hole` is 0 (a
/// division by zero: no hole can be filled).
#[must_use]
pub fn round_start(game: Game, per_hole: u8, south: u32, starter: Side) -> Position {
    let t = total(per_hole);
    assert!(south <= t, "South holds at most {t} seeds");
    let hold = [south, t - south];
    let mut board = [0u8; 14];
    let mut closed = 0u16;
    let mut stores = [0u8; 2];
    for side in Side::BOTH {
        let h = hold[side.index()];
        let k = (h / u32::from(per_hole)).min(7) as u8;
        closed |= game.closed_holes(side, k);
        stores[side.index()] = (h - u32::from(k) * u32::from(per_hole)) as u8;
        for col in 0..7 {
            let i = 7 * side.index() + col;
            if closed & (1 << i) == 0 {
                board[i] = per_hole;
            }
        }
    }
    Position::from_parts_unchecked(game, board, closed, stores, starter)
}

/// One round of [`play_match`].
#[derive(Clone, Debug)]
pub struct RoundPlay {
    /// The round's number, from 1.
    pub round: u32,
    /// Its first position, as a position string.
    pub start: String,
    /// Holes each side filled, `[South, North]`.
    pub filled: [u8; 2],
    /// Who started it.
    pub starter: Side,
    /// The exact margin of the round for the starter (seeds the starter takes in the round
    /// minus the opponent's).
    pub value: i32,
    /// A principal variation (both sides play a move keeping the exact margin).
    pub pv: Vec<Hole>,
    /// How the round ended.
    pub reason: EndReason,
    /// Seeds taken in the round, `[South, North]`.
    pub taken: [u8; 2],
    /// Holdings after the round, `[South, North]`.
    pub holdings: [u8; 2],
    /// Who starts the next round (`None` if the match is over).
    pub next_starter: Option<Side>,
    /// Nodes searched.
    pub nodes: u64,
    /// Seconds of search.
    pub seconds: f64,
}

/// How a match played by [`play_match`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatchEnd {
    /// A player could not fill a hole: the other won.
    Won(Side),
    /// The start of round `repeats` came back (same holdings, same starter) as round `of`:
    /// with the same play the match goes on for ever.
    Cycle {
        /// The later round.
        repeats: u32,
        /// The earlier round with the same start.
        of: u32,
    },
    /// Stopped after the round limit.
    Limit,
}

/// A match played round by round.
#[derive(Clone, Debug)]
pub struct MatchPlay {
    /// The rounds.
    pub rounds: Vec<RoundPlay>,
    /// How it ended.
    pub end: MatchEnd,
}

/// Why a match could not be played or solved.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MatchError {
    /// A round could not be solved.
    #[error("round {round} ({start}): {error}")]
    Solve {
        /// The round.
        round: u32,
        /// Its start.
        start: String,
        /// Why.
        error: SolveError,
    },
    /// No tables for a round's closed holes.
    #[error("no tables for the closed holes of {0}")]
    NoTables(String),
}

impl MatchError {
    /// What would fix the error, when the library knows: that of a round's
    /// [`SolveError::remedy`].
    #[must_use]
    pub fn remedy(&self) -> Option<crate::Remedy> {
        match self {
            MatchError::Solve { error, .. } => error.remedy(),
            MatchError::NoTables(_) => None,
        }
    }
}

/// Solves one round start: its exact margin for the player to move, with a principal variation.
fn solve_round(
    tables: &MatchTables,
    pos: &Position,
    round: u32,
    nodes: u64,
) -> Result<crate::solve::Solution, MatchError> {
    let start = Setup::from_position(pos, round).to_string();
    let t = tables
        .for_position(pos)
        .ok_or_else(|| MatchError::NoTables(start.clone()))?;
    Solver::new(t, nodes)
        .solve(pos)
        .map_err(|error| MatchError::Solve {
            round,
            start,
            error,
        })
}

/// Plays a match of `tables.game()` with `per_hole` seeds a hole (the game's own or a reduced
/// match), `first` starting round 1, every round played perfectly for its margin, until the
/// match ends, a round start repeats, or `max_rounds` rounds. `nodes` limits each round's
/// search.
///
/// # Errors
/// A round that cannot be solved (node limit, missing tables).
///
/// # Panics
/// Panics if `per_hole` is 0 (see [`round_start`]). Otherwise never in practice: each round's
/// principal variation from the exact search is replayed through [`GameState`], and is legal
/// and ends the round by that search's contract (the `expect` and the `unreachable!` guard it);
/// a match with no next round has a player short of `per_hole` seeds, hence a winner.
pub fn play_match(
    tables: &MatchTables,
    per_hole: u8,
    first: Side,
    nodes: u64,
    max_rounds: u32,
) -> Result<MatchPlay, MatchError> {
    let game = tables.game();
    let mut seen: HashMap<(u8, Side), u32> = HashMap::new();
    let mut rounds = Vec::new();
    let mut pos = round_start(game, per_hole, 7 * u32::from(per_hole), first);
    let mut round = 1;
    loop {
        let starter = pos.to_move();
        let key = (pos.stores()[0] + count_board(&pos, Side::South), starter);
        if let Some(&of) = seen.get(&key) {
            return Ok(MatchPlay {
                rounds,
                end: MatchEnd::Cycle { repeats: round, of },
            });
        }
        if round > max_rounds {
            return Ok(MatchPlay {
                rounds,
                end: MatchEnd::Limit,
            });
        }
        seen.insert(key, round);
        let t0 = Instant::now();
        let sol = solve_round(tables, &pos, round, nodes)?;
        let seconds = t0.elapsed().as_secs_f64();
        // Played as a single round (the match rules below use `per_hole`, which a reduced match
        // changes); round 2 so that the seeds taken are counted from the stores.
        let mut state = GameState::from_position(pos, Mode::Single, 2, starter);
        for &mv in &sol.pv {
            state.play(mv).expect("the principal variation is legal");
        }
        let filled = [
            ((pos.open_mask() & 0x7F).count_ones()) as u8,
            ((pos.open_mask() >> 7).count_ones()) as u8,
        ];
        let start = Setup::from_position(&pos, round).to_string();
        let Status::Over { result, .. } = state.status() else {
            unreachable!("the principal variation ends the round")
        };
        let holdings = state.position().stores();
        let (hs, hn) = (u32::from(holdings[0]), u32::from(holdings[1]));
        let ph = u32::from(per_hole);
        let (next, winner) = if hs < ph {
            (None, Some(Side::North))
        } else if hn < ph {
            (None, Some(Side::South))
        } else {
            let next = match game.starter_rule() {
                StarterRule::TakerOfLeftovers => match result.reason {
                    EndReason::NoLegalMove { stuck, .. } => stuck.other(),
                    _ => starter.other(),
                },
                _ => next_starters(game, starter, hs, hn)[0],
            };
            (Some(next), None)
        };
        rounds.push(RoundPlay {
            round,
            start,
            filled,
            starter,
            value: sol.value,
            pv: sol.pv,
            reason: result.reason,
            taken: result.taken,
            holdings,
            next_starter: next,
            nodes: sol.nodes,
            seconds,
        });
        if let Some(next) = next {
            pos = round_start(game, per_hole, u32::from(holdings[0]), next);
            round += 1;
        } else {
            let w = winner.expect("a match with these totals has a winner");
            return Ok(MatchPlay {
                rounds,
                end: MatchEnd::Won(w),
            });
        }
    }
}

fn count_board(pos: &Position, side: Side) -> u8 {
    pos.row_seeds(side) as u8
}

/// The value of a match state under perfect match play, as far as the round margins prove it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatchValue {
    /// This side wins the match; it can force the end within `rounds` rounds (this one
    /// included).
    Win {
        /// The winner.
        side: Side,
        /// Rounds within which the winner can force the end.
        rounds: u32,
    },
    /// Neither side can force a win: with perfect play the match goes on for ever.
    Draw,
    /// The round margins do not decide it (the winning outcomes of a round are not a threshold
    /// around its value).
    Unresolved,
}

impl std::fmt::Display for MatchValue {
    /// In words: `South wins within 6 rounds`, `endless (neither side can force a win)`,
    /// `not decided by the round margins`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MatchValue::Win { side, rounds } => write!(
                f,
                "{side} wins within {rounds} round{}",
                if *rounds == 1 { "" } else { "s" }
            ),
            MatchValue::Draw => f.write_str("endless (neither side can force a win)"),
            MatchValue::Unresolved => f.write_str("not decided by the round margins"),
        }
    }
}

/// One match state of [`solve_match`].
#[derive(Clone, Copy, Debug)]
pub struct StateValue {
    /// South's holding.
    pub south: u32,
    /// Who starts the round.
    pub starter: Side,
    /// Seeds on the board at the round's start.
    pub board: u32,
    /// The round's exact margin for South.
    pub margin: i32,
    /// The match value.
    pub value: MatchValue,
}

/// The solved match states of a game.
#[derive(Clone, Debug)]
pub struct MatchSolution {
    /// Every state with both holdings able to fill a hole, by South's holding then starter
    /// (South first).
    pub states: Vec<StateValue>,
    /// Round starts solved (distinct boards).
    pub rounds_solved: usize,
    /// Nodes searched in all.
    pub nodes: u64,
}

impl MatchSolution {
    /// The value of a state.
    #[must_use]
    pub fn get(&self, south: u32, starter: Side) -> Option<&StateValue> {
        self.states
            .iter()
            .find(|s| s.south == south && s.starter == starter)
    }
}

/// The starters of the round after one that started with `starter` and ended with holdings
/// `(south, north)`: one for Walak-pussa (fewer seeds, ties to the other player) and Pasu
/// Pondi (alternate); for Raja Pasu it depends on how the round ended, so both may be
/// possible.
fn next_starters(game: Game, starter: Side, south: u32, north: u32) -> Vec<Side> {
    match game.starter_rule() {
        StarterRule::FewerSeeds => vec![match south.cmp(&north) {
            std::cmp::Ordering::Less => Side::South,
            std::cmp::Ordering::Greater => Side::North,
            std::cmp::Ordering::Equal => starter.other(),
        }],
        StarterRule::Alternate => vec![starter.other()],
        StarterRule::TakerOfLeftovers => vec![Side::South, Side::North],
    }
}

/// Solves the match states of `tables.game()` with `per_hole` seeds a hole by backward
/// induction on the rounds' exact margins (see the module documentation). `on_round` is told of
/// each round start solved.
///
/// # Errors
/// A round start that cannot be solved.
///
/// # Panics
/// Panics if `per_hole` is 0 (see [`round_start`]).
pub fn solve_match(
    tables: &MatchTables,
    per_hole: u8,
    nodes: u64,
    on_round: &mut dyn FnMut(&Position, i32, u64),
) -> Result<MatchSolution, MatchError> {
    let game = tables.game();
    let t = total(per_hole);
    let ph = u32::from(per_hole);
    // Round values, by the round's start board and starter.
    let mut cache: HashMap<(u128, u16, Side), i32> = HashMap::new();
    let mut states = Vec::new();
    let mut all_nodes = 0;
    for south in ph..=t - ph {
        for starter in Side::BOTH {
            let pos = round_start(game, per_hole, south, starter);
            let key = (pos.packed_board(), pos.closed_mask(), starter);
            let v = if let Some(&v) = cache.get(&key) {
                v
            } else {
                let sol = solve_round(tables, &pos, 2, nodes)?;
                all_nodes += sol.nodes;
                on_round(&pos, sol.value, sol.nodes);
                cache.insert(key, sol.value);
                sol.value
            };
            let margin = if starter == Side::South { v } else { -v };
            states.push(StateValue {
                south,
                starter,
                board: pos.seeds_on_board(),
                margin,
                value: MatchValue::Unresolved,
            });
        }
    }
    let index =
        |south: u32, starter: Side| -> usize { ((south - ph) * 2) as usize + starter.index() };
    // What a round outcome means for South: Some(winner) if the match ends or the next state
    // is decided (for every possible next starter), None if not (yet).
    #[derive(Clone, Copy, PartialEq)]
    enum Out {
        Win(Side),
        Open,
    }
    let mut iteration = 0;
    loop {
        iteration += 1;
        let snapshot: Vec<MatchValue> = states.iter().map(|s| s.value).collect();
        let outcome = |s: &StateValue, m: i32| -> Vec<Out> {
            let pos = round_start(game, per_hole, s.south, s.starter);
            let b = s.board as i32;
            let south = i32::from(pos.stores()[0]) + (b + m) / 2;
            let south = south as u32;
            let north = t - south;
            if south < ph {
                return vec![Out::Win(Side::North)];
            }
            if north < ph {
                return vec![Out::Win(Side::South)];
            }
            next_starters(game, s.starter, south, north)
                .into_iter()
                .map(|st| match snapshot[index(south, st)] {
                    MatchValue::Win { side, .. } => Out::Win(side),
                    _ => Out::Open,
                })
                .collect()
        };
        let mut changed = false;
        for state in &mut states {
            if !matches!(state.value, MatchValue::Unresolved) {
                continue;
            }
            let s = *state;
            let b = s.board as i32;
            let v = s.margin;
            let all = |lo: i32, hi: i32, side: Side| {
                (lo..=hi)
                    .step_by(2)
                    .all(|m| outcome(&s, m).iter().all(|&o| o == Out::Win(side)))
            };
            // Margins have the parity of the board's seeds.
            let winner = if all(v, b, Side::South) {
                Some(Side::South)
            } else if all(-b, v, Side::North) {
                Some(Side::North)
            } else {
                None
            };
            if let Some(side) = winner {
                state.value = MatchValue::Win {
                    side,
                    rounds: iteration,
                };
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    // Proved draws, the greatest fixed point: a state stays a draw candidate while North,
    // holding the margin to `≤ v`, always lands on a candidate or a North win, and South,
    // holding it to `≥ v`, always on a candidate or a South win. Then each keeps the other
    // from winning for ever.
    let mut candidate: Vec<bool> = states
        .iter()
        .map(|s| matches!(s.value, MatchValue::Unresolved))
        .collect();
    loop {
        let mut removed = false;
        for i in 0..states.len() {
            if !candidate[i] {
                continue;
            }
            let s = states[i];
            let pos = round_start(game, per_hole, s.south, s.starter);
            let b = s.board as i32;
            // True if the outcome `m` is safe for `side` (no win for the other, ever).
            let safe = |m: i32, side: Side| -> bool {
                let south = (i32::from(pos.stores()[0]) + (b + m) / 2) as u32;
                let north = t - south;
                if south < ph {
                    return side == Side::North;
                }
                if north < ph {
                    return side == Side::South;
                }
                next_starters(game, s.starter, south, north)
                    .into_iter()
                    .all(|st| {
                        let j = index(south, st);
                        candidate[j]
                            || matches!(states[j].value, MatchValue::Win { side: w, .. } if w == side)
                    })
            };
            let v = s.margin;
            let ok = (-b..=v).step_by(2).all(|m| safe(m, Side::North))
                && (v..=b).step_by(2).all(|m| safe(m, Side::South));
            if !ok {
                candidate[i] = false;
                removed = true;
            }
        }
        if !removed {
            break;
        }
    }
    for (s, c) in states.iter_mut().zip(&candidate) {
        if *c {
            s.value = MatchValue::Draw;
        }
    }
    Ok(MatchSolution {
        states,
        rounds_solved: cache.len(),
        nodes: all_nodes,
    })
}

/// The exact match values of a reduced match (few seeds a hole), without tables: every round
/// is searched to its end through [`GameState`] (the full repetition history, the real end of
/// round with its reason, hence the real next starter) for "can this player force the round to
/// end in a state already known to be won", and the states won are grown round by round to
/// the fixed point (the attractor of each player). A state in neither attractor is a draw: the
/// other player can keep the match out of them for ever. `rounds` in [`MatchValue::Win`] is
/// exact: the winner can force the end within that many rounds and the loser can make it last
/// that long.
///
/// # Errors
/// [`MatchError::Solve`] with [`SolveError::NodeLimit`] if a round search exceeds `nodes`.
///
/// # Panics
/// Panics if `per_hole` is 0 (see [`round_start`]).
pub fn solve_match_exhaustive(
    game: Game,
    per_hole: u8,
    nodes: u64,
) -> Result<Vec<(u32, Side, MatchValue)>, MatchError> {
    solve_match_exact(game, None, per_hole, nodes)
}

/// Exact match values as [`solve_match_exhaustive`], with the round searches stopping at
/// every position the tables cover where the set of winning outcomes is a threshold around the
/// position's exact value (South can force at least the value, North at most, so the value
/// alone decides), and searching on elsewhere. Exact wherever every search finishes within
/// `nodes`.
///
/// # Errors
/// [`MatchError::Solve`] with [`SolveError::NodeLimit`] if a round search exceeds `nodes`.
///
/// # Panics
/// Panics if `per_hole` is 0 (see [`round_start`]).
pub fn solve_match_with_tables(
    tables: &MatchTables,
    per_hole: u8,
    nodes: u64,
) -> Result<Vec<(u32, Side, MatchValue)>, MatchError> {
    solve_match_exact(tables.game(), Some(tables), per_hole, nodes)
}

fn solve_match_exact(
    game: Game,
    tables: Option<&MatchTables>,
    per_hole: u8,
    nodes: u64,
) -> Result<Vec<(u32, Side, MatchValue)>, MatchError> {
    let t = total(per_hole);
    let ph = u32::from(per_hole);
    let n = ((t - 2 * ph + 1) * 2) as usize;
    let index = |south: u32, starter: Side| ((south - ph) * 2) as usize + starter.index();
    let mut value = vec![MatchValue::Unresolved; n];
    let mut iteration = 0;
    loop {
        iteration += 1;
        let snapshot = value.clone();
        let mut changed = false;
        for south in ph..=t - ph {
            for starter in Side::BOTH {
                let i = index(south, starter);
                if !matches!(snapshot[i], MatchValue::Unresolved) {
                    continue;
                }
                for side in Side::BOTH {
                    // Does `side` win: the round ends with the match over in its favour, or
                    // in a state known to be won by it?
                    let target = |hs: u32, st: Side| -> bool {
                        let hn = t - hs;
                        if hs < ph {
                            return side == Side::North;
                        }
                        if hn < ph {
                            return side == Side::South;
                        }
                        matches!(snapshot[index(hs, st)], MatchValue::Win { side: w, .. } if w == side)
                    };
                    let pos = round_start(game, per_hole, south, starter);
                    let mut search = RoundSearch {
                        tables,
                        game,
                        per_hole,
                        starter,
                        attacker: side,
                        target: &target,
                        memo: HashMap::new(),
                        nodes: 0,
                        limit: nodes,
                    };
                    let state = GameState::from_position(pos, Mode::Single, 2, starter);
                    let won = search.wins(&state).map_err(|error| MatchError::Solve {
                        round: 2,
                        start: Setup::from_position(&pos, 2).to_string(),
                        error,
                    })?;
                    if won {
                        value[i] = MatchValue::Win {
                            side,
                            rounds: iteration,
                        };
                        changed = true;
                        break;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    let mut out = Vec::with_capacity(n);
    for south in ph..=t - ph {
        for starter in Side::BOTH {
            let v = match value[index(south, starter)] {
                MatchValue::Unresolved => MatchValue::Draw,
                v => v,
            };
            out.push((south, starter, v));
        }
    }
    Ok(out)
}

/// A search of one round to its end: can `attacker` force it to end in a `target` state
/// (South's holding after the round, next starter)?
struct RoundSearch<'a> {
    /// Tables to stop at wherever the target is a threshold around the exact value.
    tables: Option<&'a MatchTables>,
    game: Game,
    per_hole: u8,
    starter: Side,
    attacker: Side,
    target: &'a dyn Fn(u32, Side) -> bool,
    /// Positions right after seeds left the board (their history is themselves only), with
    /// the stores: their result does not depend on the path.
    memo: HashMap<(u128, [u8; 2]), bool>,
    nodes: u64,
    limit: u64,
}

impl RoundSearch<'_> {
    fn over(&self, state: &GameState) -> bool {
        let Status::Over { result, .. } = state.status() else {
            unreachable!("called on a finished round")
        };
        let s = state.position().stores();
        let (hs, hn) = (u32::from(s[0]), u32::from(s[1]));
        let ph = u32::from(self.per_hole);
        let next = if hs < ph || hn < ph {
            // The match is over: the starter does not matter.
            Side::South
        } else {
            match self.game.starter_rule() {
                StarterRule::TakerOfLeftovers => match result.reason {
                    EndReason::NoLegalMove { stuck, .. } => stuck.other(),
                    _ => self.starter.other(),
                },
                _ => next_starters(self.game, self.starter, hs, hn)[0],
            }
        };
        (self.target)(hs, next)
    }

    /// The starters of the next round possible when South ends the round holding `hs`.
    fn starters(&self, hs: u32) -> Vec<Side> {
        let t = total(self.per_hole);
        match self.game.starter_rule() {
            StarterRule::TakerOfLeftovers => vec![Side::South, Side::North],
            _ => next_starters(self.game, self.starter, hs, t - hs),
        }
    }

    /// Decides `state` from the tables if they cover it and the outcomes the attacker wants
    /// form a threshold around the exact value.
    fn decided_by_tables(&self, state: &GameState, fresh: bool) -> Option<bool> {
        let pos = state.position();
        let r = pos.seeds_on_board() as i32;
        let s0 = u32::from(pos.stores()[0]);
        // 1: every next starter wins for the attacker, 0: none, 2: depends on how it ends.
        let kind = |x: i32| -> u8 {
            let hs = s0 + x as u32;
            let w: Vec<bool> = self
                .starters(hs)
                .into_iter()
                .map(|st| (self.target)(hs, st))
                .collect();
            if w.iter().all(|&b| b) {
                1
            } else if w.iter().all(|&b| !b) {
                0
            } else {
                2
            }
        };
        let kinds: Vec<u8> = (0..=r).map(kind).collect();
        // Decided whatever happens to the seeds left (no tables needed).
        if kinds.iter().all(|&k| k == 1) {
            return Some(true);
        }
        if kinds.iter().all(|&k| k == 0) {
            return Some(false);
        }
        if kinds.contains(&2) {
            return None;
        }
        // South can force a share of at least `x`, North at most `x`: this decides the
        // attacker's outcome if it wins exactly from some share up (South) or down (North).
        let monotone = match self.attacker {
            Side::South => kinds.windows(2).all(|w| w[0] <= w[1]),
            Side::North => kinds.windows(2).all(|w| w[0] >= w[1]),
        };
        if !monotone {
            return None;
        }
        let t = self.tables?.for_position(pos)?;
        let v = if fresh {
            t.probe_fresh(pos)?
        } else {
            // Exact for this round's history (a path search inside the layer if the value
            // may depend on it).
            match t.probe(pos) {
                Some(v) => v,
                None => t.probe_with_history(pos, state.history())?,
            }
        };
        // South's share of the seeds left under perfect play.
        let vs = if pos.to_move() == Side::South { v } else { -v };
        // (A value the seeds left cannot give, from damaged tables, decides nothing.)
        let x = usize::try_from((r + vs) / 2).ok()?;
        Some(*kinds.get(x)? == 1)
    }

    fn wins(&mut self, state: &GameState) -> Result<bool, SolveError> {
        if state.is_over() {
            return Ok(self.over(state));
        }
        let fresh = state.history().len() == 1;
        if let Some(w) = self.decided_by_tables(state, fresh) {
            return Ok(w);
        }
        let key = (state.position().repetition_key(), state.position().stores());
        if fresh {
            if let Some(&w) = self.memo.get(&key) {
                return Ok(w);
            }
        }
        self.nodes += 1;
        if self.nodes > self.limit {
            return Err(SolveError::NodeLimit);
        }
        let mover = state.position().to_move();
        let mine = mover == self.attacker;
        let mut result = !mine;
        // The moves that take the most for the mover first.
        let mut children: Vec<(i32, GameState)> = state
            .legal_moves()
            .into_iter()
            .map(|mv| {
                let mut s = state.clone();
                let r = s.play(mv).expect("a legal move");
                let t = r.outcome.taken;
                (
                    i32::from(t[mover.index()]) - i32::from(t[mover.other().index()]),
                    s,
                )
            })
            .collect();
        children.sort_by_key(|c| std::cmp::Reverse(c.0));
        for (_, s) in &children {
            let w = self.wins(s)?;
            if w == mine {
                result = mine;
                break;
            }
        }
        if fresh {
            self.memo.insert(key, result);
        }
        Ok(result)
    }
}
