//! The playing levels: a ladder from a beginner who makes human-like mistakes to full strength.
//!
//! - **Beginner, Novice, Casual** look 1, 2 and 4 plies ahead ([`crate::analyze`]) and pick a
//!   move at random with probability growing with its value (a softmax with a temperature in
//!   seeds); now and then they blunder: a random move, preferring one that visibly captures.
//! - **Club, Expert, Master** search with a fixed node budget (deterministic, and the same
//!   strength on any machine), set for each game and mode ([`params::level::nodes`]).
//! - **Max** searches for [`params::level::MAX_MOVETIME_MS`] per move on every core.
//!
//! The constants are in [`params::level`]; the measured Elo of each level is in docs/engine.md.

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use pussa_rules::{Game, GameState, Hole, Mode, Rng};

use crate::params;
use crate::{search, ExactOracle, Limits};

/// A playing level, weakest first. In serde it is its name (`"club"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Level {
    /// Looks one move ahead, often picks a lesser move, blunders 30% of the time.
    Beginner,
    /// Looks two moves ahead, sometimes careless.
    Novice,
    /// Looks four moves ahead, rarely careless.
    Casual,
    /// A small search (a few hundred positions a move).
    Club,
    /// A medium search.
    Expert,
    /// A large search.
    Master,
    /// Full strength: a timed search on every core.
    Max,
}

impl Level {
    /// Every level, weakest first.
    pub const ALL: [Level; 7] = [
        Level::Beginner,
        Level::Novice,
        Level::Casual,
        Level::Club,
        Level::Expert,
        Level::Master,
        Level::Max,
    ];

    /// The levels offered in `game` played as `mode`, weakest first: the ladder on which each
    /// level scored at least 65% against the one below it (100 games a step). Where a game squeezes neighbouring
    /// levels together (Raja Pasu and the Pasu Pondi games in single games, Walak-pussa in
    /// matches) the levels that cannot be told apart there are left out
    /// ([`params::level::ladder`]; the measurements are in docs/engine.md).
    ///
    /// # Examples
    /// ```
    /// use pussa_engine::Level;
    /// use pussa_rules::{Game, Mode};
    /// assert_eq!(Level::ladder(Game::WalakPussa, Mode::Single), &Level::ALL);
    /// assert!(!Level::ladder(Game::RajaPasu, Mode::Single).contains(&Level::Master));
    /// assert_eq!(Level::ladder(Game::RajaPasu, Mode::Match).last(), Some(&Level::Max));
    /// ```
    #[must_use]
    pub fn ladder(game: Game, mode: Mode) -> &'static [Level] {
        params::level::ladder(game, mode)
    }

    /// The level a computer opponent plays when none is named, where the ladder offers it.
    pub const DEFAULT: Level = Level::Club;

    /// The level of a computer opponent in `game` played as `mode` when none is named:
    /// [`Level::DEFAULT`], or the strongest level below it on the ladder.
    ///
    /// # Examples
    /// ```
    /// use pussa_engine::Level;
    /// use pussa_rules::{Game, Mode};
    /// assert_eq!(Level::default_for(Game::RajaPasu, Mode::Single), Level::Club);
    /// ```
    #[must_use]
    pub fn default_for(game: Game, mode: Mode) -> Level {
        Level::ladder(game, mode)
            .iter()
            .copied()
            .filter(|&l| l <= Level::DEFAULT)
            .max()
            .unwrap_or(Level::Beginner)
    }

    /// This level if it is on the ladder of `game` played as `mode` ([`Level::ladder`]).
    ///
    /// # Errors
    /// [`NotOfferedError`], naming the levels that are offered, when it is not.
    ///
    /// # Examples
    /// ```
    /// use pussa_engine::Level;
    /// use pussa_rules::{Game, Mode};
    /// assert_eq!(Level::Master.offered(Game::RajaPasu, Mode::Match), Ok(Level::Master));
    /// let e = Level::Master.offered(Game::RajaPasu, Mode::Single).unwrap_err();
    /// assert!(e.to_string().contains("beginner, casual, club, max"));
    /// ```
    pub fn offered(self, game: Game, mode: Mode) -> Result<Level, NotOfferedError> {
        if Level::ladder(game, mode).contains(&self) {
            Ok(self)
        } else {
            Err(NotOfferedError {
                level: self,
                game,
                mode,
            })
        }
    }

    /// The level's name (lower case), as accepted by [`str::parse`].
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Level::Beginner => "beginner",
            Level::Novice => "novice",
            Level::Casual => "casual",
            Level::Club => "club",
            Level::Expert => "expert",
            Level::Master => "master",
            Level::Max => "max",
        }
    }

    /// The level's number, 1 (weakest) to 7.
    #[must_use]
    pub fn number(self) -> usize {
        self as usize + 1
    }

    /// One line saying how the level plays.
    #[must_use]
    pub fn description(self) -> &'static str {
        match self {
            Level::Beginner => {
                "looks one move ahead, often picks a lesser move, blunders 30% of the time"
            }
            Level::Novice => "looks two moves ahead, sometimes careless",
            Level::Casual => "looks four moves ahead, rarely careless",
            Level::Club => "alpha-beta search of 500 positions a move",
            Level::Expert => {
                "alpha-beta search of 5,000 positions a move (1,000 in Pasu Pondi matches)"
            }
            Level::Master => {
                "alpha-beta search of 20,000 positions a move (5,000 in Pasu Pondi matches)"
            }
            Level::Max => "full strength: 0.2 s of search a move on every core",
        }
    }

    /// How the level plays `game` as `mode`: [`Level::description`] with the node budget of
    /// that game and mode for the levels that have one.
    ///
    /// # Examples
    /// ```
    /// use pussa_engine::Level;
    /// use pussa_rules::{Game, Mode};
    /// assert_eq!(
    ///     Level::Expert.description_for(Game::PasuPondi, Mode::Match),
    ///     "alpha-beta search of 1,000 positions a move"
    /// );
    /// ```
    #[must_use]
    pub fn description_for(self, game: Game, mode: Mode) -> String {
        match (self, self.nodes(game, mode)) {
            (Level::Club | Level::Expert | Level::Master, Some(n)) => {
                let digits = n.to_string();
                let mut grouped = String::new();
                for (i, c) in digits.chars().enumerate() {
                    if i > 0 && (digits.len() - i) % 3 == 0 {
                        grouped.push(',');
                    }
                    grouped.push(c);
                }
                format!("alpha-beta search of {grouped} positions a move")
            }
            _ => self.description().to_string(),
        }
    }

    /// True for the levels that search (Club and up), which can use endgame tables.
    #[must_use]
    pub fn searches(self) -> bool {
        self >= Level::Club
    }

    /// The node budget of a searching level below Max in `game` played as `mode`
    /// ([`params::level::nodes`]).
    #[must_use]
    pub fn nodes(self, game: Game, mode: Mode) -> Option<u64> {
        let i = (self as usize).checked_sub(Level::Club as usize)?;
        params::level::nodes(game, mode).get(i).copied()
    }

    /// The search limits of the searching levels (Club and up) in `game` played as `mode`,
    /// `None` for the others.
    ///
    /// # Examples
    /// ```
    /// use pussa_engine::Level;
    /// use pussa_rules::{Game, Mode};
    /// let nodes = |l: Level, g, m| l.limits(g, m, 1).unwrap().nodes;
    /// assert_eq!(nodes(Level::Master, Game::RajaPasu, Mode::Match), Some(20_000));
    /// assert_eq!(nodes(Level::Master, Game::PasuPondi, Mode::Single), Some(20_000));
    /// assert_eq!(nodes(Level::Master, Game::PasuPondi, Mode::Match), Some(5_000));
    /// assert!(Level::Casual.limits(Game::RajaPasu, Mode::Single, 1).is_none());
    /// ```
    #[must_use]
    pub fn limits(self, game: Game, mode: Mode, seed: u64) -> Option<Limits> {
        let base = Limits {
            seed,
            ..Limits::default()
        };
        match self {
            Level::Max => Some(Limits {
                movetime: Some(Duration::from_millis(params::level::MAX_MOVETIME_MS)),
                threads: std::thread::available_parallelism()
                    .map_or(1, |n| n.get())
                    .min(8),
                ..base
            }),
            _ => self.nodes(game, mode).map(|n| Limits {
                nodes: Some(n),
                ..base
            }),
        }
    }
}

/// A level is written as its name ([`Level::name`]: `"club"`).
impl serde::Serialize for Level {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

/// A level is read as [`Level::from_str`] reads it: a name (`"club"`) or a number 1-7 as a
/// string; anything else is an error with [`ParseLevelError`]'s message.
impl<'de> serde::Deserialize<'de> for Level {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = <String as serde::Deserialize>::deserialize(deserializer)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A level name or number that is not one of [`Level::ALL`] (quoted in its message, cut after
/// 40 characters).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown level '{}': expected a number 1-7 or one of beginner, novice, casual, club, expert, master, max", quote(.0))]
pub struct ParseLevelError(pub String);

/// A level name quoted in a message: cut after 40 characters.
fn quote(s: &str) -> String {
    crate::clip(s, 40)
}

/// A level that is not on the ladder of a game and mode ([`Level::offered`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "level '{level}' is not offered in {} {}: a ladder with it would have a step under 65%; the levels there, each of which scored at least 65% against the one below in 100 games, are {}",
    game.title(),
    match mode { Mode::Single => "single games", Mode::Match => "matches" },
    Level::ladder(*game, *mode).iter().map(|l| l.name()).collect::<Vec<_>>().join(", ")
)]
pub struct NotOfferedError {
    /// The level asked for.
    pub level: Level,
    /// The game.
    pub game: Game,
    /// Single games or matches.
    pub mode: Mode,
}

impl FromStr for Level {
    type Err = ParseLevelError;
    fn from_str(s: &str) -> Result<Level, ParseLevelError> {
        let t = s.trim().to_ascii_lowercase();
        if let Ok(n) = t.parse::<usize>() {
            return (1..=Level::ALL.len())
                .contains(&n)
                .then(|| Level::ALL[n - 1])
                .ok_or_else(|| ParseLevelError(s.to_string()));
        }
        Level::ALL
            .into_iter()
            .find(|l| l.name() == t)
            .ok_or_else(|| ParseLevelError(s.to_string()))
    }
}

/// The move `level` plays in `state`; `None` iff no move is expected. The same state, level
/// and seed give the same move (except for [`Level::Max`], which is timed).
///
/// # Examples
/// ```
/// use pussa_engine::{choose_move, Level};
/// use pussa_rules::{Game, GameState, Mode, Side};
/// let state = GameState::new(Game::RajaPasu, Mode::Single, Side::South);
/// let mv = choose_move(&state, Level::Beginner, 7).unwrap();
/// assert!(state.legal_moves().contains(mv));
/// assert_eq!(Some(mv), choose_move(&state, Level::Beginner, 7));
/// ```
#[must_use]
pub fn choose_move(state: &GameState, level: Level, seed: u64) -> Option<Hole> {
    choose_move_with_oracle(state, level, seed, None)
}

/// [`choose_move`], the searching levels (Club and up) using exact values from `oracle`
/// (endgame databases) where it has them.
#[must_use]
pub fn choose_move_with_oracle(
    state: &GameState,
    level: Level,
    seed: u64,
    oracle: Option<Arc<dyn ExactOracle>>,
) -> Option<Hole> {
    choose_move_with_stop(state, level, seed, oracle, None)
}

/// [`choose_move_with_oracle`], ending early when another thread raises `stop` (the engine
/// protocol's `stop`): the move is then chosen from what was found so far (a searching level's
/// best move so far; a softmax level's values of its last completed depth, or the moves'
/// immediate gains).
///
/// Every level keeps its own bounds, also where a move's sowing is very long (docs/rules.md,
/// "Endless moves"): the legal moves are proven within the level's limits (the searching levels'
/// node budget or move time, the softmax levels' [`params::level::SOFT_PROOF_LAPS`]), as the search
/// does, never by an unbounded [`GameState::legal_moves`]; a move left unproven is not played.
#[must_use]
pub fn choose_move_with_stop(
    state: &GameState,
    level: Level,
    seed: u64,
    oracle: Option<Arc<dyn ExactOracle>>,
    stop: Option<Arc<AtomicBool>>,
) -> Option<Hole> {
    if state.is_round_over() {
        return None;
    }
    if let Some(limits) = level.limits(state.game(), state.mode(), seed) {
        return search(
            state,
            &Limits {
                oracle,
                stop,
                ..limits
            },
            &mut |_| {},
        )
        .best;
    }
    let i = level as usize;
    let mut rng =
        Rng::new(seed ^ state.position().round_hash().rotate_left(11) ^ u64::from(state.round()));
    // A depth limit alone would prove every move to its end: the proof gets its own bound.
    let limits = Limits {
        depth: Some(params::level::SOFT_DEPTH[i]),
        stop,
        ..Limits::default()
    };
    let laps = params::level::SOFT_PROOF_LAPS;
    if rng.unit() < params::level::SOFT_BLUNDER[i] {
        // A careless move: a random one, preferring a move that visibly captures right away.
        let proven = crate::search::prove_root(state, &limits, Some(laps));
        let me = state.position().to_move().index();
        let legal: Vec<Hole> = proven.legal.iter().map(|&(mv, _)| mv).collect();
        let capturing: Vec<Hole> = proven
            .legal
            .iter()
            .filter(|(_, out)| out.taken[me] > 0)
            .map(|&(mv, _)| mv)
            .collect();
        let pool: Vec<Hole> = if capturing.is_empty() || rng.unit() < 0.3 {
            legal
        } else {
            capturing
        };
        if pool.is_empty() {
            return None;
        }
        return Some(pool[rng.below(pool.len() as u32) as usize]);
    }
    let values = crate::search::analyze_bounded(state, &limits, laps);
    if values.is_empty() {
        return None;
    }
    Some(softmax_pick(
        &values,
        params::level::SOFT_TEMPERATURE[i],
        &mut rng,
    ))
}

fn softmax_pick(values: &[crate::MoveValue], temperature: f64, rng: &mut Rng) -> Hole {
    let best = values.iter().map(|v| v.score).max().unwrap_or(0);
    let weights: Vec<f64> = values
        .iter()
        .map(|v| (f64::from(v.score - best) / temperature.max(1e-6)).exp())
        .collect();
    let total: f64 = weights.iter().sum();
    let mut x = rng.unit() * total;
    for (v, w) in values.iter().zip(&weights) {
        if x < *w {
            return v.mv;
        }
        x -= w;
    }
    values[0].mv
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The beginner's description gives its careless rate as the number the code plays with
    /// (it said "a third of the time" while the rate is 30%, as README and engine.md say).
    #[test]
    fn the_beginners_description_gives_its_careless_rate() {
        let rate = format!("{:.0}%", params::level::SOFT_BLUNDER[0] * 100.0);
        assert_eq!(rate, "30%");
        let d = Level::Beginner.description();
        assert!(d.contains(&format!("blunders {rate} of the time")), "{d}");
    }

    #[test]
    fn every_ladder_runs_from_beginner_to_max_weakest_first_and_offers_its_default() {
        for game in Game::ALL {
            for mode in [Mode::Single, Mode::Match] {
                let ladder = Level::ladder(game, mode);
                assert_eq!(ladder.first(), Some(&Level::Beginner), "{game:?} {mode:?}");
                assert_eq!(ladder.last(), Some(&Level::Max), "{game:?} {mode:?}");
                assert!(ladder.windows(2).all(|w| w[0] < w[1]), "{ladder:?}");
                let default = Level::default_for(game, mode);
                assert!(ladder.contains(&default) && default <= Level::DEFAULT);
                for l in Level::ALL {
                    assert_eq!(l.offered(game, mode).is_ok(), ladder.contains(&l));
                }
            }
        }
        // Walak-pussa single games offer every level; Raja Pasu single games leave out the
        // levels measured too close to a neighbour.
        assert_eq!(Level::ladder(Game::WalakPussa, Mode::Single), &Level::ALL);
        let e = Level::Novice
            .offered(Game::RajaPasu, Mode::Single)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("'novice' is not offered in Raja Pasu single games")
                && e.contains("beginner, casual, club, max"),
            "{e}"
        );
    }

    #[test]
    fn parses_names_and_numbers_and_rejects_others() {
        assert_eq!("Expert".parse::<Level>(), Ok(Level::Expert));
        assert_eq!("1".parse::<Level>(), Ok(Level::Beginner));
        assert_eq!("7".parse::<Level>(), Ok(Level::Max));
        let e = "8".parse::<Level>().unwrap_err().to_string();
        assert!(e.contains("beginner") && e.contains("max"), "{e}");
        assert!("grandmaster".parse::<Level>().is_err());
        // A long name is quoted cut, not echoed whole.
        let long = "z".repeat(100_000);
        let e = long.parse::<Level>().unwrap_err().to_string();
        assert!(
            e.len() < 200 && e.contains(&format!("'{}…'", "z".repeat(40))),
            "{e}"
        );
        for l in Level::ALL {
            assert_eq!(l.name().parse::<Level>(), Ok(l));
            assert_eq!(l.number().to_string().parse::<Level>(), Ok(l));
        }
    }
}
