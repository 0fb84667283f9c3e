//! An [OpenSpiel](https://github.com/google-deepmind/open_spiel)-shaped interface to the games,
//! for researchers who know that API: [`load_game`] gives a [`SpielGame`] (the game and its
//! parameters: how many actions, players, the observation's shape, the utility range), and its
//! [`SpielGame::new_initial_state`] a [`SpielState`] with `current_player`, `legal_actions`,
//! `apply_action`, `undo_action`, `is_terminal`, `returns`, `rewards`, `observation_tensor`,
//! `action_to_string`, `serialize` and their kin.
//!
//! - **Players** are `0` (South) and `1` (North); [`SpielState::current_player`] is `None` once
//!   the game or match is over (OpenSpiel's terminal player id). There are no chance nodes and no
//!   hidden information: the games are deterministic and of perfect information (both players
//!   know everything, the history included).
//! - **The observation is not a Markov state.** The repetition rule ends a round when a position
//!   recurs in it, so what an action does depends on the positions seen earlier in the round
//!   ([`GameState::history`]), which neither [`SpielState::observation_tensor`] nor
//!   [`SpielState::observation_string`] holds: two states with equal observations can differ
//!   in outcome and value (the same action ends the round in one and not in the other).
//!   [`SpielState::repetition_actions`] lists the legal actions that would end the round by
//!   repetition now, and [`SpielState::information_state_string`] (the actions from the
//!   initial state) determines the whole state.
//! - **Actions** are `0..7`: the hole of the player to move, counted from that player's own
//!   left (`A`..`G` for South, `a`..`g` for North), as OpenSpiel's Oware counts them. So the same
//!   action means the same hole of one's own row for either player.
//! - **A match's rounds** follow one another inside `apply_action`: when a move ends a round and
//!   the match goes on, the next round is laid out at once (refill, closed holes, its starter),
//!   so a state that is not terminal always has a player to move. A move that cannot be played
//!   (an empty or closed hole, an endless sowing) is an error that leaves the state as it was.
//! - **A match may never end.** The rules have no end for a match that goes round in a circle
//!   (the same round starts again and again: docs/rules.md), and a deterministic policy, such as
//!   always taking the first legal action, circles for ever in every game. So a match stops after
//!   the game parameter `max_rounds` (default [`DEFAULT_MAX_ROUNDS`], 100, as `pussa tournament
//!   --max-rounds`): when round `max_rounds` ends and the match would go on, the state is terminal
//!   and scored a draw (returns `[0, 0]` with either utility), as tournaments score it.
//!   [`SpielState::is_truncated`] tells such an end from the rules' own. Every state is also
//!   terminal, the same draw, after [`SpielGame::max_game_length`] actions
//!   (`max_rounds` × [`MAX_ROUND_ACTIONS`]; a single game is one round), a bound far above what
//!   play reaches (in 80,000 random matches, 20,000 of each game, no round lasted more than 105
//!   actions), so that OpenSpiel code that sizes buffers by it is safe.
//! - **Returns** are `+1`/`-1` for the winner and the loser and `0` each for a draw, given when
//!   the game or match ends ([`Utility::WinLoss`], the default), or the final seed margin
//!   ([`Utility::Margin`]: South's less North's, and its negation; the seeds taken in the round
//!   for a single game, the holdings at the end for a match, as the winner is decided). Every
//!   intermediate reward is `0`, so [`SpielState::rewards`] is the returns on the terminal state.
//! - **The observation tensor** of a player, [`OBSERVATION_LEN`] numbers seen from that
//!   player's side (their own row first), is laid out in [`SpielState::observation_tensor`].
//! - **Serialization** is the project's game record (see [`crate::record`]): game, mode, who
//!   moved first, a start position if the state did not start at the beginning, and the moves.
//!   [`SpielGame::deserialize_state`] replays it, so a serialized state that reads is legal.
//!
//! # Examples
//! A random single game of Raja Pasu through the interface:
//! ```
//! use pussa_rules::spiel::{load_game, SpielError};
//! use pussa_rules::Rng;
//!
//! let game = load_game("raja-pasu(mode=single)")?;
//! assert_eq!(game.num_distinct_actions(), 7);
//! let mut state = game.new_initial_state();
//! let mut rng = Rng::new(7);
//! while !state.is_terminal() {
//!     let actions = state.legal_actions();
//!     let a = actions[rng.below(actions.len() as u32) as usize];
//!     state.apply_action(a)?;
//! }
//! let r = state.returns();
//! assert_eq!(r[0], -r[1]);
//! // Back from its record, the same state.
//! let again = game.deserialize_state(&state.serialize())?;
//! assert_eq!(again.history(), state.history());
//! assert_eq!(again.returns(), r);
//! # Ok::<(), SpielError>(())
//! ```

use core::fmt;
use core::str::FromStr;

use crate::record::{Record, RecordError};
use crate::setup::{Setup, SetupError};
use crate::state::{GameState, Mode, MoveReport, RoundResult, Status};
use crate::trace::EndReason;
use crate::types::{Game, Hole, Side, UnknownGame};

/// An action: the hole `0..7` of the player to move, from that player's own left.
pub type Action = usize;

/// The side of player `0` (South) or `1` (North).
fn side_of(player: usize) -> Side {
    if player == 0 {
        Side::South
    } else {
        Side::North
    }
}

/// Actions there are: one for each hole of a row.
pub const NUM_DISTINCT_ACTIONS: usize = 7;

/// The default of the game parameter `max_rounds`: a match still going when this round ends is
/// over, a draw (as `pussa tournament --max-rounds`).
pub const DEFAULT_MAX_ROUNDS: u32 = 100;

/// The actions a round may last in [`SpielGame::max_game_length`]: a state that has played
/// `max_rounds × MAX_ROUND_ACTIONS` actions is terminal, a draw.
pub const MAX_ROUND_ACTIONS: usize = 1000;

/// Players: South (`0`) and North (`1`).
pub const NUM_PLAYERS: usize = 2;

/// Numbers in an observation tensor (see [`SpielState::observation_tensor`]).
pub const OBSERVATION_LEN: usize = 35;

/// What the returns measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Utility {
    /// `+1` for a win, `-1` for a loss, `0` for a draw (OpenSpiel's convention).
    #[default]
    WinLoss,
    /// The seed margin, measured as the winner is decided: in a single game, the seeds a
    /// player took in the round less those the other took (in round 1 that is what each holds;
    /// a single game set up from a later round of a match does not count the seeds carried
    /// into it); in a match, the seeds a player holds at the end less those the other holds.
    /// Its sign is the result's (0 for a draw), except for a match stopped by `max_rounds`
    /// (returns `[0, 0]`).
    Margin,
}

impl Utility {
    /// Both utilities, the default first.
    pub const ALL: [Utility; 2] = [Utility::WinLoss, Utility::Margin];

    /// The parameter's value: `win_loss` or `margin`. [`Display`](fmt::Display) writes it and
    /// [`FromStr`] reads it back (in any case, with blanks around it).
    ///
    /// # Examples
    /// ```
    /// use pussa_rules::spiel::Utility;
    /// assert_eq!(Utility::Margin.to_string(), "margin");
    /// assert_eq!("WIN_LOSS".parse::<Utility>()?, Utility::WinLoss);
    /// let err = "elo".parse::<Utility>().unwrap_err();
    /// assert_eq!(err.to_string(), "unknown utility 'elo': expected win_loss or margin");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Utility::WinLoss => "win_loss",
            Utility::Margin => "margin",
        }
    }
}

impl fmt::Display for Utility {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Utility {
    type Err = UnknownUtility;
    fn from_str(s: &str) -> Result<Utility, UnknownUtility> {
        let word = s.trim();
        Utility::ALL
            .into_iter()
            .find(|u| u.name().eq_ignore_ascii_case(word))
            .ok_or_else(|| UnknownUtility(s.to_string()))
    }
}

/// A word that is not a [`Utility`]'s name, as written.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown utility '{0}': expected win_loss or margin")]
pub struct UnknownUtility(pub String);

/// Why a game string, an action or a serialized state was refused.
///
/// It is `#[non_exhaustive]`: a later version may add variants, so a `match` outside this
/// crate needs a wildcard arm. Naming every variant is not enough:
/// ```compile_fail,E0004
/// use pussa_rules::spiel::SpielError;
/// fn kind(e: &SpielError) -> u8 {
///     match e {
///         SpielError::UnknownGame { .. } => 0,
///         SpielError::Parameter { .. } => 0,
///         SpielError::Syntax { .. } => 0,
///         SpielError::NotAnAction { .. } => 0,
///         SpielError::IllegalAction { .. } => 0,
///         SpielError::NothingToUndo { .. } => 0,
///         SpielError::Record { .. } => 0,
///         SpielError::Setup { .. } => 0,
///         SpielError::FirstNotStartsMover { .. } => 0,
///     }
/// }
/// ```
/// With the wildcard it compiles:
/// ```
/// use pussa_rules::spiel::SpielError;
/// fn kind(e: &SpielError) -> u8 {
///     match e {
///         SpielError::UnknownGame { .. } => 0,
///         SpielError::Parameter { .. } => 0,
///         SpielError::Syntax { .. } => 0,
///         SpielError::NotAnAction { .. } => 0,
///         SpielError::IllegalAction { .. } => 0,
///         SpielError::NothingToUndo { .. } => 0,
///         SpielError::Record { .. } => 0,
///         SpielError::Setup { .. } => 0,
///         SpielError::FirstNotStartsMover { .. } => 0,
///         _ => 1,
///     }
/// }
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SpielError {
    /// The game's name is not one of the games.
    #[error(transparent)]
    UnknownGame(#[from] UnknownGame),
    /// A parameter of the game string is unknown or has a bad value.
    #[error("game parameter {0}")]
    Parameter(String),
    /// The game string is malformed (for example an unclosed parenthesis).
    #[error("game string '{0}': expected name or name(key=value,...)")]
    Syntax(String),
    /// A text that names no action ([`SpielState::string_to_action`]).
    #[error("'{text}' is not a hole letter A-G")]
    NotAnAction {
        /// The text refused.
        text: String,
    },
    /// An action outside `0..7`, or a hole that cannot be played now; the state is unchanged.
    #[error("action {action}: {reason}")]
    IllegalAction {
        /// The action refused.
        action: Action,
        /// Why.
        reason: String,
    },
    /// `undo_action` on a state with no action to take back.
    #[error("no action to undo")]
    NothingToUndo,
    /// A serialized state that does not read (its record's error), or of another game.
    #[error("serialized state: {0}")]
    Record(String),
    /// An initial position that is not a valid position of the game.
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// [`SpielGame::with_first`] on a game that starts from a position
    /// ([`SpielGame::with_start`]) from which the other side moves first, or
    /// [`SpielGame::with_start`] of such a position on a game whose `first` was given
    /// (`first=` in [`load_game`]'s string, or [`SpielGame::with_first`]).
    #[error("first={first}: {to_move} moves first from the game's start position", first = first.letter())]
    FirstNotStartsMover {
        /// The side asked to move first.
        first: Side,
        /// The side that moves first from the start position: its side to move, or, for a
        /// round that is over, the next round's starter.
        to_move: Side,
    },
}

impl From<RecordError> for SpielError {
    fn from(e: RecordError) -> SpielError {
        SpielError::Record(e.to_string())
    }
}

/// A game and its parameters, OpenSpiel's `Game`: a factory of initial states.
#[derive(Clone, Debug)]
pub struct SpielGame {
    game: Game,
    mode: Mode,
    first: Side,
    /// Whether `first` was given (`first=`, [`SpielGame::with_first`]) rather than defaulted:
    /// [`SpielGame::with_start`] then refuses a start from which the other side moves first.
    first_given: bool,
    utility: Utility,
    max_rounds: u32,
    start: Option<Setup>,
}

/// Two games are equal when they behave the same: the same parameters and start, and `first`
/// given in both or in neither (a game given `first=` refuses, in [`SpielGame::with_start`],
/// a start that one with `first` defaulted accepts).
impl PartialEq for SpielGame {
    fn eq(&self, other: &SpielGame) -> bool {
        self.game == other.game
            && self.mode == other.mode
            && self.first() == other.first()
            && self.first_given == other.first_given
            && self.utility == other.utility
            && self.max_rounds == other.max_rounds
            && self.start == other.start
    }
}

impl Eq for SpielGame {}

/// A game from a game string in OpenSpiel's form: a name, optionally followed by parameters
/// in parentheses, e.g. `walak-pussa`, `raja-pasu(mode=match)`,
/// `pasu-pondi(first=N,utility=margin)`. Parameters: `mode` (`single`, the default, or
/// `match`), `first` (`S`, the default, or `N`: who moves first), `utility` (`win_loss`, the
/// default, or `margin`) and `max_rounds` (a number from 1, default [`DEFAULT_MAX_ROUNDS`]: see
/// the module's docs).
///
/// The grammar: `name` or `name(param,param,...)` with `param` = `key=value`, the `)` last.
/// The name, keys and values are read in any case, and spaces around each of them are ignored
/// (the name as for [`Game`]'s `FromStr`). Refused: an empty parameter (`(mode=match,)`, `()`),
/// a key given twice, a parenthesis inside the parameters, anything after the `)`.
/// A start position cannot be written in a game string (see [`SpielGame::with_start`]).
///
/// # Errors
/// [`SpielError::UnknownGame`], [`SpielError::Syntax`] (the parentheses), or
/// [`SpielError::Parameter`] naming the parameter and the values it takes, an empty parameter
/// or a repeated key.
///
/// # Examples
/// ```
/// use pussa_rules::spiel::{load_game, Utility};
/// use pussa_rules::{Game, Mode};
/// let g = load_game("pasu-pondi-6(mode=match,utility=margin)")?;
/// assert_eq!((g.game(), g.mode(), g.utility()), (Game::PasuPondi6, Mode::Match, Utility::Margin));
/// assert!(load_game("raja-pasu(mode=league)").is_err());
/// # Ok::<(), pussa_rules::spiel::SpielError>(())
/// ```
pub fn load_game(s: &str) -> Result<SpielGame, SpielError> {
    s.parse()
}

impl FromStr for SpielGame {
    type Err = SpielError;
    fn from_str(s: &str) -> Result<SpielGame, SpielError> {
        let s = s.trim();
        let (name, params) = match s.find('(') {
            Some(open) => {
                let Some(inner) = s[open + 1..].strip_suffix(')') else {
                    return Err(SpielError::Syntax(s.to_string()));
                };
                (&s[..open], inner)
            }
            None => (s, ""),
        };
        if params.contains(['(', ')']) {
            return Err(SpielError::Syntax(s.to_string()));
        }
        let mut g = SpielGame::new(name.parse()?, Mode::Single);
        let mut seen: Vec<String> = Vec::new();
        let has_params = s.contains('(');
        for kv in params.split(',').map(str::trim) {
            if kv.is_empty() {
                if has_params {
                    return Err(SpielError::Parameter(
                        "'': an empty parameter (a comma too many, or '()')".into(),
                    ));
                }
                continue;
            }
            let Some((k, v)) = kv.split_once('=') else {
                return Err(SpielError::Parameter(format!("'{kv}': expected key=value")));
            };
            let (k, v) = (k.trim().to_ascii_lowercase(), v.trim());
            if seen.contains(&k) {
                return Err(SpielError::Parameter(format!("'{k}' is given twice")));
            }
            seen.push(k.clone());
            let bad = |takes: &str| SpielError::Parameter(format!("{k}='{v}': takes {takes}"));
            match k.as_str() {
                "mode" => {
                    g.mode = v.parse().map_err(|_| bad("single or match"))?;
                }
                "first" => {
                    g.first = Side::parse(v).map_err(|_| bad("S or N"))?;
                    g.first_given = true;
                }
                "utility" => {
                    g.utility = v.parse().map_err(|_| bad("win_loss or margin"))?;
                }
                "max_rounds" => {
                    g.max_rounds = match v.parse::<u32>() {
                        Ok(n) if n >= 1 => n,
                        _ => return Err(bad("a number from 1")),
                    }
                }
                _ => {
                    return Err(SpielError::Parameter(format!(
                        "'{k}' is unknown: the parameters are mode, first, utility and max_rounds"
                    )))
                }
            }
        }
        Ok(g)
    }
}

impl fmt::Display for SpielGame {
    /// The game string that [`load_game`] reads back (without a start position), equal to
    /// this game when it has no start. `first=` is written only when `first` was given
    /// (`first=` read, or [`SpielGame::with_first`]), so the game read back refuses, or accepts,
    /// the same starts in [`SpielGame::with_start`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}(mode={},", self.game.name(), self.mode)?;
        if self.first_given {
            write!(f, "first={},", self.first().letter())?;
        }
        write!(
            f,
            "utility={},max_rounds={})",
            self.utility, self.max_rounds
        )
    }
}

impl SpielGame {
    /// `game` played as `mode`, South first, returns win/loss, a match stopped after
    /// [`DEFAULT_MAX_ROUNDS`] rounds.
    #[must_use]
    pub fn new(game: Game, mode: Mode) -> SpielGame {
        SpielGame {
            game,
            mode,
            first: Side::South,
            first_given: false,
            utility: Utility::WinLoss,
            max_rounds: DEFAULT_MAX_ROUNDS,
            start: None,
        }
    }

    /// The same game with a match stopped, a draw, when round `max_rounds` ends (see the
    /// module's docs). No effect on a single game.
    ///
    /// # Panics
    /// Panics if `max_rounds` is 0.
    #[must_use]
    pub fn with_max_rounds(mut self, max_rounds: u32) -> SpielGame {
        assert!(max_rounds >= 1, "max_rounds must be at least 1");
        self.max_rounds = max_rounds;
        self
    }

    /// The round after which a match that goes on is stopped, a draw.
    #[must_use]
    pub fn max_rounds(&self) -> u32 {
        self.max_rounds
    }

    /// The most actions a state can play before it is terminal: [`MAX_ROUND_ACTIONS`] for a
    /// single game, `max_rounds × MAX_ROUND_ACTIONS` for a match (a state that reaches it is
    /// terminal, a draw, whatever the rules say; see the module's docs).
    ///
    /// # Examples
    /// ```
    /// use pussa_rules::spiel::load_game;
    /// assert_eq!(load_game("walak-pussa")?.max_game_length(), 1000);
    /// assert_eq!(load_game("walak-pussa(mode=match,max_rounds=20)")?.max_game_length(), 20_000);
    /// # Ok::<(), pussa_rules::spiel::SpielError>(())
    /// ```
    #[must_use]
    pub fn max_game_length(&self) -> usize {
        match self.mode {
            Mode::Single => MAX_ROUND_ACTIONS,
            Mode::Match => (self.max_rounds as usize).saturating_mul(MAX_ROUND_ACTIONS),
        }
    }

    /// The same game with `first` moving first. A game that starts from a position
    /// ([`SpielGame::with_start`]) has its side to move move first (or, from a round that is
    /// over, the next round's starter), so `first` must be that side, and the game is returned
    /// unchanged.
    ///
    /// # Errors
    /// [`SpielError::FirstNotStartsMover`] when the game has a start from which the other side
    /// moves first.
    ///
    /// # Examples
    /// ```
    /// use pussa_rules::spiel::{load_game, SpielError};
    /// use pussa_rules::Side;
    /// let g = load_game("raja-pasu")?.with_first(Side::North)?;
    /// assert_eq!(g.first(), Side::North);
    /// assert_eq!(g.new_initial_state().current_player(), Some(1));
    /// let started = load_game("raja-pasu")?
    ///     .with_start("0,0,0,0,0,1,2/1,0,0,0,0,0,0 40 54 S 1 raja-pasu".parse()?)?;
    /// assert_eq!(started.first(), Side::South); // the start's side to move
    /// assert!(matches!(
    ///     started.with_first(Side::North),
    ///     Err(SpielError::FirstNotStartsMover { first: Side::North, to_move: Side::South })
    /// ));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_first(mut self, first: Side) -> Result<SpielGame, SpielError> {
        if let Some(mover) = self.start_mover() {
            if mover != first {
                return Err(SpielError::FirstNotStartsMover {
                    first,
                    to_move: mover,
                });
            }
            // The start decides already: its own mover changes nothing.
            return Ok(self);
        }
        self.first = first;
        self.first_given = true;
        Ok(self)
    }

    /// Who moves first: the game parameter `first`, or, for a game with a start
    /// ([`SpielGame::with_start`]), the player to move in the initial state: the start's side
    /// to move, or, when the start is a round that is over and the match goes on, the next
    /// round's starter, whatever `max_rounds` is (the start's side to move if nobody moves: a
    /// finished game).
    ///
    /// # Examples
    /// ```
    /// use pussa_rules::spiel::load_game;
    /// use pussa_rules::Side;
    /// // Round 1 is over (South took the leftovers): South starts round 2.
    /// let over = "0,0,0,0,0,0,0/0,0,0,0,0,0,0 65 33 N 1 raja-pasu S".parse()?;
    /// let g = load_game("raja-pasu(mode=match)")?.with_start(over)?;
    /// assert_eq!(g.first(), Side::South);
    /// assert_eq!(g.new_initial_state().current_player(), Some(0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn first(&self) -> Side {
        self.start_mover().unwrap_or(self.first)
    }

    /// The side that moves first from the start, if the game has one:
    /// [`GameState::next_mover`] of the start (the next round's starter when its round is
    /// over and the match goes on), or the start's side to move when it is not a valid state.
    fn start_mover(&self) -> Option<Side> {
        let setup = self.start?;
        Some(
            setup
                .game_state(self.mode)
                .map_or(setup.to_move, |g| g.next_mover()),
        )
    }

    /// The position the game starts from, if [`SpielGame::with_start`] gave one (`None`: the
    /// start of the game).
    #[must_use]
    pub fn start(&self) -> Option<Setup> {
        self.start
    }

    /// The same game with returns measured by `utility`.
    #[must_use]
    pub fn with_utility(mut self, utility: Utility) -> SpielGame {
        self.utility = utility;
        self
    }

    /// The same game whose initial state is the position `setup` (a position string's
    /// contents; its side to move moves first, or, for a round that is over, the next round's
    /// starter: see [`SpielGame::first`]).
    ///
    /// # Errors
    /// [`SpielError::Setup`] when `setup` is not a valid position of this game;
    /// [`SpielError::FirstNotStartsMover`] when the game's `first` was given (`first=` in
    /// [`load_game`]'s string, or [`SpielGame::with_first`]) and the other side moves first from
    /// `setup`, as [`SpielGame::with_first`] refuses the same two calls in the other order.
    ///
    /// # Examples
    /// ```
    /// use pussa_rules::spiel::{load_game, SpielError};
    /// use pussa_rules::Side;
    /// let south_to_move = "0,0,0,0,0,1,2/1,0,0,0,0,0,0 40 54 S 1 raja-pasu".parse()?;
    /// assert!(matches!(
    ///     load_game("raja-pasu(first=N)")?.with_start(south_to_move),
    ///     Err(SpielError::FirstNotStartsMover { first: Side::North, to_move: Side::South })
    /// ));
    /// // Without `first=`, the start decides.
    /// assert_eq!(load_game("raja-pasu")?.with_start(south_to_move)?.first(), Side::South);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_start(mut self, setup: Setup) -> Result<SpielGame, SpielError> {
        setup.expect_game(self.game)?;
        setup.game_state(self.mode)?;
        let mut started = self.clone();
        started.start = Some(setup);
        let mover = started.first();
        if self.first_given && self.first != mover {
            return Err(SpielError::FirstNotStartsMover {
                first: self.first,
                to_move: mover,
            });
        }
        self.first = mover;
        self.start = Some(setup);
        Ok(self)
    }

    /// The game.
    #[must_use]
    pub fn game(&self) -> Game {
        self.game
    }

    /// Single game or match.
    #[must_use]
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// What the returns measure.
    #[must_use]
    pub fn utility(&self) -> Utility {
        self.utility
    }

    /// [`NUM_DISTINCT_ACTIONS`].
    #[must_use]
    pub fn num_distinct_actions(&self) -> usize {
        NUM_DISTINCT_ACTIONS
    }

    /// [`NUM_PLAYERS`].
    #[must_use]
    pub fn num_players(&self) -> usize {
        NUM_PLAYERS
    }

    /// The lowest return a player can get: `-1`, or minus all the seeds with
    /// [`Utility::Margin`].
    #[must_use]
    pub fn min_utility(&self) -> f64 {
        -self.max_utility()
    }

    /// The highest return a player can get: `1`, or all the seeds with [`Utility::Margin`].
    #[must_use]
    pub fn max_utility(&self) -> f64 {
        match self.utility {
            Utility::WinLoss => 1.0,
            Utility::Margin => f64::from(self.game.total_seeds()),
        }
    }

    /// The returns of the two players always add up to this: the games are zero-sum.
    #[must_use]
    pub fn utility_sum(&self) -> f64 {
        0.0
    }

    /// The shape of an observation tensor: `[OBSERVATION_LEN]`.
    #[must_use]
    pub fn observation_tensor_shape(&self) -> [usize; 1] {
        [OBSERVATION_LEN]
    }

    /// The initial state: the start of the game (or the position given by
    /// [`SpielGame::with_start`]) with the first player to move.
    #[must_use]
    pub fn new_initial_state(&self) -> SpielState {
        let state = match &self.start {
            // Checked valid by `with_start`.
            Some(setup) => setup
                .game_state(self.mode)
                .unwrap_or_else(|_| GameState::new(self.game, self.mode, self.first)),
            None => GameState::new(self.game, self.mode, self.first),
        };
        let mut st = SpielState {
            game: self.clone(),
            start: state.clone(),
            state,
            history: Vec::new(),
            last_reward: false,
            truncated: false,
        };
        st.advance();
        st.start = st.state.clone();
        st
    }

    /// Reads a state written by [`SpielState::serialize`] (a game record), replaying its moves.
    ///
    /// # Errors
    /// [`SpielError::Record`] when the text is not a record that reads, when its game or mode
    /// is not this game's, or when it starts elsewhere than this game's initial state.
    pub fn deserialize_state(&self, text: &str) -> Result<SpielState, SpielError> {
        let rec = Record::parse(text)?;
        if rec.game() != self.game || rec.mode() != self.mode {
            return Err(SpielError::Record(format!(
                "a record of {} ({}), not of {}",
                rec.game().name(),
                rec.mode(),
                self
            )));
        }
        let mut st = self.new_initial_state();
        if rec.start_state().position() != st.state.position() {
            return Err(SpielError::Record(format!(
                "it starts from {}, this game from {}",
                Setup::from_state(rec.start_state()),
                Setup::from_state(&st.state)
            )));
        }
        for m in rec.moves() {
            st.apply_action(m.hole.column())?;
        }
        Ok(st)
    }
}

/// A state of a game, OpenSpiel's `State`: the [`GameState`] plus the actions that led to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpielState {
    game: SpielGame,
    start: GameState,
    state: GameState,
    history: Vec<Action>,
    /// Whether the last action ended the game (its rewards are then the returns).
    last_reward: bool,
    /// Whether the state was stopped at `max_rounds` or `max_game_length` (a draw).
    truncated: bool,
}

impl SpielState {
    /// The game this state belongs to.
    #[must_use]
    pub fn get_game(&self) -> &SpielGame {
        &self.game
    }

    /// The rules state underneath.
    #[must_use]
    pub fn game_state(&self) -> &GameState {
        &self.state
    }

    /// The player to move, `0` (South) or `1` (North); `None` once the game or match is over.
    #[must_use]
    pub fn current_player(&self) -> Option<usize> {
        if self.truncated {
            return None;
        }
        self.state.to_move().map(Side::index)
    }

    /// True once the game or match is over, by the rules or stopped at the game's `max_rounds`
    /// or [`SpielGame::max_game_length`] ([`SpielState::is_truncated`]).
    #[must_use]
    pub fn is_terminal(&self) -> bool {
        self.truncated || self.state.is_over()
    }

    /// True when the state is terminal because it reached the game's `max_rounds` (a match
    /// going on after its last allowed round) or [`SpielGame::max_game_length`], not by the
    /// rules: scored a draw. [`SpielState::game_state`] is then the state underneath, its
    /// round over (or, at the action bound, a move expected).
    #[must_use]
    pub fn is_truncated(&self) -> bool {
        self.truncated
    }

    /// Always false: no move is left to chance.
    #[must_use]
    pub fn is_chance_node(&self) -> bool {
        false
    }

    /// The legal actions in increasing order (empty when terminal).
    #[must_use]
    pub fn legal_actions(&self) -> Vec<Action> {
        let mask = self.legal_actions_mask();
        (0..NUM_DISTINCT_ACTIONS).filter(|&a| mask[a]).collect()
    }

    /// Which of the [`NUM_DISTINCT_ACTIONS`] actions are legal; allocates nothing.
    #[must_use]
    pub fn legal_actions_mask(&self) -> [bool; NUM_DISTINCT_ACTIONS] {
        let mut mask = [false; NUM_DISTINCT_ACTIONS];
        if self.truncated {
            return mask;
        }
        if let Some(side) = self.state.to_move() {
            let legal = self.state.legal_moves();
            for (k, m) in mask.iter_mut().enumerate() {
                *m = legal.contains(Hole::of_side(side, k));
            }
        }
        mask
    }

    /// Plays `action` for the player to move; when it ends a round of a match that goes on,
    /// lays out the next round.
    ///
    /// # Errors
    /// [`SpielError::IllegalAction`] naming the action and the rules' reason (outside `0..7`,
    /// an empty or closed hole, an endless sowing, the game over); the state is then unchanged.
    pub fn apply_action(&mut self, action: Action) -> Result<(), SpielError> {
        let illegal = |reason: String| SpielError::IllegalAction { action, reason };
        if action >= NUM_DISTINCT_ACTIONS {
            return Err(illegal(format!(
                "outside 0..{NUM_DISTINCT_ACTIONS}: an action is a hole of the mover's row"
            )));
        }
        let Some(side) = self.state.to_move().filter(|_| !self.truncated) else {
            return Err(illegal(if self.game.mode == Mode::Match {
                "the match is over".into()
            } else {
                "the game is over".into()
            }));
        };
        let hole = Hole::of_side(side, action);
        self.state
            .play(hole)
            .map_err(|e| illegal(format!("{}: {}", hole.letter(), e.reason)))?;
        self.history.push(action);
        self.advance();
        if self.history.len() >= self.game.max_game_length() {
            self.truncated = true;
        }
        self.last_reward = self.is_terminal();
        Ok(())
    }

    /// Takes back the last action (replaying the others from the initial state).
    ///
    /// # Errors
    /// [`SpielError::NothingToUndo`] on the initial state.
    pub fn undo_action(&mut self) -> Result<(), SpielError> {
        let Some((_, rest)) = self.history.split_last() else {
            return Err(SpielError::NothingToUndo);
        };
        let rest = rest.to_vec();
        let mut st = SpielState {
            game: self.game.clone(),
            start: self.start.clone(),
            state: self.start.clone(),
            history: Vec::with_capacity(rest.len()),
            last_reward: false,
            truncated: false,
        };
        st.advance();
        for a in rest {
            // Each of these was played from this very state before.
            st.apply_action(a)?;
        }
        *self = st;
        Ok(())
    }

    /// A copy with `action` applied.
    ///
    /// # Errors
    /// As [`SpielState::apply_action`].
    pub fn child(&self, action: Action) -> Result<SpielState, SpielError> {
        let mut c = self.clone();
        c.apply_action(action)?;
        Ok(c)
    }

    /// Lays out the next round while a round of a match is over and the match goes on, or
    /// stops the match at the game's `max_rounds`.
    fn advance(&mut self) {
        while self.state.is_round_over() && !self.state.is_over() {
            if self.state.round() >= self.game.max_rounds {
                self.truncated = true;
                break;
            }
            if !self.state.next_round() {
                break;
            }
        }
    }

    /// The actions played from the initial state.
    #[must_use]
    pub fn history(&self) -> &[Action] {
        &self.history
    }

    /// Actions played so far.
    #[must_use]
    pub fn move_number(&self) -> usize {
        self.history.len()
    }

    /// Each player's return: `[0, 0]` until the end, then as [`Utility`] says; `[0, 0]` (a
    /// draw) for a state stopped at the bound ([`SpielState::is_truncated`]).
    #[must_use]
    pub fn returns(&self) -> [f64; 2] {
        if self.truncated {
            return [0.0, 0.0];
        }
        let Some(winner) = self.state.winner() else {
            return [0.0, 0.0];
        };
        match self.game.utility {
            Utility::WinLoss => match winner {
                Some(Side::South) => [1.0, -1.0],
                Some(Side::North) => [-1.0, 1.0],
                None => [0.0, 0.0],
            },
            Utility::Margin => {
                // A single game is won by the seeds taken in its round (a round of a match
                // played alone counts no seeds carried into it); a match by what is held.
                let s = match (self.game.mode, self.state.status()) {
                    (Mode::Single, Status::Over { result, .. }) => result.taken,
                    _ => self.state.position().stores(),
                };
                let m = f64::from(s[0]) - f64::from(s[1]);
                [m, -m]
            }
        }
    }

    /// The rewards of the last action: the returns if it ended the game, else zero.
    #[must_use]
    pub fn rewards(&self) -> [f64; 2] {
        if self.last_reward {
            self.returns()
        } else {
            [0.0, 0.0]
        }
    }

    /// `player`'s return (see [`SpielState::returns`]).
    ///
    /// # Panics
    /// Panics if `player` is not `0` or `1`.
    #[must_use]
    pub fn player_return(&self, player: usize) -> f64 {
        assert!(player < NUM_PLAYERS, "players are 0 and 1");
        self.returns()[player]
    }

    /// The move letter of `action` played by `player`: `A`..`G` for South, `a`..`g` for North.
    ///
    /// # Panics
    /// Panics if `player` is not `0` or `1`, or `action` is not in `0..7`.
    #[must_use]
    pub fn action_to_string(&self, player: usize, action: Action) -> String {
        assert!(player < NUM_PLAYERS, "players are 0 and 1");
        Hole::of_side(side_of(player), action).letter().to_string()
    }

    /// The action of `player` named by a move letter (of that player's row, in either case):
    /// exactly one letter `A`..`G` or `a`..`g`, nothing around it (no spaces). Whether the
    /// action is legal now is not checked.
    ///
    /// # Errors
    /// [`SpielError::NotAnAction`] when `s` is anything else.
    ///
    /// # Panics
    /// Panics if `player` is not `0` or `1`.
    pub fn string_to_action(&self, player: usize, s: &str) -> Result<Action, SpielError> {
        assert!(player < NUM_PLAYERS, "players are 0 and 1");
        let not = || SpielError::NotAnAction {
            text: s.to_string(),
        };
        let mut chars = s.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) if c.is_ascii_alphabetic() => {
                let hole = Hole::from_letter(c.to_ascii_uppercase()).map_err(|_| not())?;
                Ok(hole.column())
            }
            _ => Err(not()),
        }
    }

    /// The observation of `player`, as [`OBSERVATION_LEN`] numbers written into `out`: the
    /// seeds in `player`'s holes from their left (7), then in the opponent's holes from the
    /// opponent's left (7), each divided by the game's seeds; then 1 for each closed hole in
    /// the same order (14); then the seeds each holds off the board, `player` first (2), and
    /// each took in this round (2), divided by the game's seeds; then 1 if `player` is to move
    /// (index 32); then 1 if `player` started this round (index 33: the round's starter, who
    /// decides who starts the next round in every game); last, in a match, the round number
    /// divided by the game's `max_rounds` (index 34: `1` in the round after which the match is
    /// stopped, a draw), `0` in a single game. So the tensor holds what the position string
    /// ([`SpielState::observation_string`]) holds, except the `repetition` marker that ends the
    /// string of a terminal state whose last round ended by repetition (only a terminal state
    /// shows it: a match goes on to the next round at once, and on a terminal state the marker
    /// decides nothing, the returns being set), and no more: not the positions seen earlier
    /// in the round, which the repetition rule looks at, so it is not a Markov state (see the
    /// module's docs and [`SpielState::repetition_actions`]).
    ///
    /// # Panics
    /// Panics if `player` is not `0` or `1`, or `out` is not [`OBSERVATION_LEN`] long.
    pub fn observation_tensor_into(&self, player: usize, out: &mut [f32]) {
        assert!(player < NUM_PLAYERS, "players are 0 and 1");
        assert_eq!(
            out.len(),
            OBSERVATION_LEN,
            "an observation has {OBSERVATION_LEN} numbers"
        );
        let me = side_of(player);
        let sides = [me, me.other()];
        let total = f32::from(self.game.game.total_seeds());
        let pos = self.state.position();
        let taken = self.state.taken_this_round();
        let stores = pos.stores();
        for (i, side) in sides.iter().enumerate() {
            for k in 0..7 {
                let h = Hole::of_side(*side, k);
                out[i * 7 + k] = f32::from(pos.seeds(h)) / total;
                out[14 + i * 7 + k] = if pos.is_open(h) { 0.0 } else { 1.0 };
            }
            out[28 + i] = f32::from(stores[side.index()]) / total;
            out[30 + i] = f32::from(taken[side.index()]) / total;
        }
        out[32] = if self.state.to_move() == Some(me) {
            1.0
        } else {
            0.0
        };
        out[33] = if self.state.round_starter() == me {
            1.0
        } else {
            0.0
        };
        out[34] = match self.game.mode {
            Mode::Single => 0.0,
            // Rounds past `max_rounds` (a start position may name one) read as 1 and more.
            Mode::Match => self.state.round() as f32 / self.game.max_rounds as f32,
        };
    }

    /// The legal actions that would end the round by the repetition rule (the position after
    /// them has already occurred in this round), in increasing order: what the observation
    /// leaves out of the round's history, as far as the next action goes. Empty when the state
    /// is terminal. Together with [`SpielState::observation_tensor`] this tells apart states
    /// whose observations are equal but whose actions do not do the same; deeper differences
    /// (a repetition two actions away) need [`SpielState::information_state_string`] or the
    /// rules state's [`GameState::history`].
    ///
    /// # Examples
    /// ```
    /// use pussa_rules::spiel::load_game;
    /// use pussa_rules::Setup;
    /// let game = load_game("raja-pasu")?;
    /// // Two seeds chase each other round the board: after these 13 actions, South's `F`
    /// // (action 5) brings back the position after the first action.
    /// let start: Setup = "0,0,0,0,0,0,1/0,0,0,0,0,0,1 46 50 S 1 raja-pasu".parse()?;
    /// let mut s = game.clone().with_start(start)?.new_initial_state();
    /// for a in [6, 6, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5] {
    ///     s.apply_action(a)?;
    /// }
    /// assert_eq!(s.repetition_actions(), vec![5]);
    /// assert!(s.child(5)?.is_terminal());
    /// // The same position, set up afresh, has no history: the same observation, no repetition.
    /// let fresh = game.with_start(Setup::from_state(s.game_state()))?.new_initial_state();
    /// assert_eq!(fresh.observation_tensor(0), s.observation_tensor(0));
    /// assert!(fresh.repetition_actions().is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn repetition_actions(&self) -> Vec<Action> {
        self.legal_actions()
            .into_iter()
            .filter(|&a| {
                let mut st = self.state.clone();
                let Some(side) = st.to_move() else {
                    return false;
                };
                matches!(
                    st.play(Hole::of_side(side, a)),
                    Ok(MoveReport {
                        round_end: Some(RoundResult {
                            reason: EndReason::Repetition,
                            ..
                        }),
                        ..
                    })
                )
            })
            .collect()
    }

    /// [`SpielState::observation_tensor_into`] into a new vector.
    ///
    /// # Panics
    /// Panics if `player` is not `0` or `1`.
    #[must_use]
    pub fn observation_tensor(&self, player: usize) -> Vec<f32> {
        let mut v = vec![0.0; OBSERVATION_LEN];
        self.observation_tensor_into(player, &mut v);
        v
    }

    /// The observation as text: the position string. Like the tensor, it leaves out the
    /// positions seen earlier in the round, which the repetition rule looks at (see
    /// [`SpielState::repetition_actions`]). On a terminal state whose last round ended by
    /// repetition it ends with the marker `repetition`, which the tensor does not hold (see
    /// [`SpielState::observation_tensor_into`]).
    ///
    /// # Panics
    /// Panics if `player` is not `0` or `1`.
    #[must_use]
    pub fn observation_string(&self, player: usize) -> String {
        assert!(player < NUM_PLAYERS, "players are 0 and 1");
        self.to_string()
    }

    /// The information state as text: the actions played, as move letters from the initial
    /// state (a perfect-information game's information state is its history). Unlike the
    /// observation, it determines the state, the repetition history included.
    ///
    /// # Panics
    /// Panics if `player` is not `0` or `1`.
    #[must_use]
    pub fn information_state_string(&self, player: usize) -> String {
        assert!(player < NUM_PLAYERS, "players are 0 and 1");
        self.record()
            .moves()
            .iter()
            .map(|m| m.hole.letter())
            .fold(String::new(), |mut s, c| {
                if !s.is_empty() {
                    s.push(' ');
                }
                s.push(c);
                s
            })
    }

    /// The game record of the state: its start and every move.
    fn record(&self) -> Record {
        let mut rec = if self.game.start.is_some() {
            Record::from_setup(Setup::from_state(&self.start), self.game.mode)
                .unwrap_or_else(|_| Record::new(self.game.game, self.game.mode, self.game.first))
        } else {
            Record::new(self.game.game, self.game.mode, self.game.first)
        };
        let mut st = self.start.clone();
        for &a in &self.history {
            let side = st.to_move().unwrap_or(Side::South);
            let hole = Hole::of_side(side, a);
            // Every action of the history was played from these very states.
            if rec.push(hole).is_err() || st.play(hole).is_err() {
                break;
            }
            while st.is_round_over() && !st.is_over() && st.next_round() {}
        }
        rec
    }

    /// The state as text that [`SpielGame::deserialize_state`] reads back: its game record.
    #[must_use]
    pub fn serialize(&self) -> String {
        self.record().to_string()
    }
}

/// The serde shape of a [`SpielGame`]: its game string and, if it has one, its start position.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct GameRepr {
    game: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    start: Option<Setup>,
}

/// A game is written as its game string ([`load_game`] reads it) and its start position, if
/// [`SpielGame::with_start`] gave one: JSON `{"game":"raja-pasu(mode=match,utility=win_loss,max_rounds=100)"}`
/// or `{"game":"…","start":"<position string>"}`. Reading checks both as [`load_game`] and
/// [`SpielGame::with_start`] do, except that with a start the start decides who moves first:
/// a `first=` in the game string (which older versions always wrote) is not checked against it.
impl serde::Serialize for SpielGame {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        GameRepr {
            game: self.to_string(),
            start: self.start,
        }
        .serialize(s)
    }
}

impl<'de> serde::Deserialize<'de> for SpielGame {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<SpielGame, D::Error> {
        let r = GameRepr::deserialize(d)?;
        let mut g = load_game(&r.game).map_err(serde::de::Error::custom)?;
        match r.start {
            Some(setup) => {
                // The start's mover moves first; whether `first` was given is kept.
                let given = std::mem::replace(&mut g.first_given, false);
                let mut g = g.with_start(setup).map_err(serde::de::Error::custom)?;
                g.first_given = given;
                Ok(g)
            }
            None => Ok(g),
        }
    }
}

/// The serde shape of a [`SpielState`]: its game and its [`SpielState::serialize`] text.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct StateRepr {
    game: SpielGame,
    state: String,
}

/// A state is written as its game (see [`SpielGame`]'s serde) and its record,
/// [`SpielState::serialize`]: `{"game":{"game":"walak-pussa(…)"},"state":"[Game \"walak-pussa\"]…"}`.
/// Reading replays the record with [`SpielGame::deserialize_state`], so a state that reads is
/// legal, and equal to the one written. (The inherent [`SpielState::serialize`] is OpenSpiel's
/// name and returns the record text; write serde through `serde_json::to_string(&state)` and
/// the like.)
///
/// # Examples
/// ```
/// use pussa_rules::spiel::{load_game, SpielState};
/// let game = load_game("raja-pasu(mode=match)")?;
/// let mut state = game.new_initial_state();
/// state.apply_action(6)?;
/// state.apply_action(4)?;
/// let json = serde_json::to_string(&state)?;
/// let back: SpielState = serde_json::from_str(&json)?;
/// assert_eq!(back, state);
/// assert_eq!(back.history(), [6, 4]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
impl serde::Serialize for SpielState {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        StateRepr {
            game: self.game.clone(),
            state: self.serialize(),
        }
        .serialize(s)
    }
}

impl<'de> serde::Deserialize<'de> for SpielState {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<SpielState, D::Error> {
        let r = StateRepr::deserialize(d)?;
        r.game
            .deserialize_state(&r.state)
            .map_err(serde::de::Error::custom)
    }
}

impl fmt::Display for SpielState {
    /// The position string of the state (see [`Setup`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", Setup::from_state(&self.state))
    }
}
