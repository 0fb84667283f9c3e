//! [`GameState`]: a single game or a multi-round match, with the end-of-round rules, the
//! repetition rule, refills, closed holes and who starts each round.

use serde::{Deserialize, Serialize};

use crate::position::{IllegalMove, IllegalReason, MoveOutcome, Position};
use crate::trace::{EndReason, Event, NoTrace, Trace};
use crate::types::{Game, Hole, Moves, Side, StarterRule, StuckRule};

/// A single game (one round) or a match of several rounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// One round; whoever took more seeds wins.
    Single,
    /// Rounds go on, with holes closed for a player who cannot fill them, until one player cannot
    /// fill a single hole (or round [`MAX_ROUND`] ends: a draw).
    Match,
}

impl Mode {
    /// Both modes, single first.
    pub const ALL: [Mode; 2] = [Mode::Single, Mode::Match];

    /// The mode's word, as records (`[Mode "match"]`), game strings, the engine protocol and
    /// JSON write it: `single` or `match`.
    ///
    /// # Examples
    /// ```
    /// use pussa_rules::Mode;
    /// assert_eq!(Mode::Match.name(), "match");
    /// assert_eq!(Mode::Single.to_string(), "single");
    /// assert_eq!(" Match ".parse::<Mode>()?, Mode::Match);
    /// let err = "league".parse::<Mode>().unwrap_err();
    /// assert_eq!(err.to_string(), "unknown mode 'league': expected single or match");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Mode::Single => "single",
            Mode::Match => "match",
        }
    }
}

impl core::fmt::Display for Mode {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

impl core::str::FromStr for Mode {
    type Err = UnknownMode;

    /// Reads [`Mode::name`], in any case and with blanks around it, as game names are read.
    fn from_str(s: &str) -> Result<Mode, UnknownMode> {
        let word = s.trim();
        Mode::ALL
            .into_iter()
            .find(|m| m.name().eq_ignore_ascii_case(word))
            .ok_or_else(|| UnknownMode(s.to_string()))
    }
}

/// A word that is not a [`Mode`]'s name, as written.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown mode '{0}': expected single or match")]
pub struct UnknownMode(pub String);

/// How a round ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundResult {
    /// The round's number (from 1).
    pub round: u32,
    /// Why it ended.
    pub reason: EndReason,
    /// Seeds each player took off the board when it ended, `[South, North]`.
    pub swept: [u8; 2],
    /// Seeds each player took during the round, sweep included, `[South, North]`.
    pub taken: [u8; 2],
    /// Who took more in this round (`None`: equal).
    pub winner: Option<Side>,
}

/// The start of a round of a match: what each player held when it was laid out, and who moved
/// first. Two rounds with the same start are the same round: the holdings decide the holes each
/// player fills, the closed holes and what is left over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RoundStart {
    /// Seeds each player held, in the holes they filled and left over, `[South, North]`.
    pub holdings: [u8; 2],
    /// Who moved first.
    pub starter: Side,
}

/// Where a game or match stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Status {
    /// A move is expected from [`Position::to_move`].
    Playing,
    /// A round of a match is over and the next one has not been laid out yet
    /// ([`GameState::next_round`]).
    RoundOver {
        /// How it ended.
        result: RoundResult,
        /// Who will start the next round.
        next_starter: Side,
    },
    /// The game or match is over.
    Over {
        /// How the last round ended.
        result: RoundResult,
        /// The winner, `None` for a draw.
        winner: Option<Side>,
    },
}

/// What [`GameState::play`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveReport {
    /// The sowing's outcome.
    pub outcome: MoveOutcome,
    /// The round's end, if the move ended it.
    pub round_end: Option<RoundResult>,
}

/// A game in progress: the [`Position`] plus everything the rules need beyond it (the round,
/// the positions seen in this round for the repetition rule, who started, the match mode).
///
/// # Examples
/// ```
/// use pussa_rules::{Game, GameState, Hole, Mode, Side};
/// let mut g = GameState::new(Game::RajaPasu, Mode::Single, Side::South);
/// g.play(Hole::from_letter('G')?)?;
/// assert_eq!(g.position().stores(), [11, 8]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Serde
/// A state is written as an object with every field a continuation needs:
///
/// | field | value |
/// |---|---|
/// | `position` | the position string of [`crate::Setup::from_state`] (round, takings, starter, the `repetition` marker of a round that ended by repetition) |
/// | `mode` | `"single"` or `"match"` |
/// | `status` | [`Status`] as JSON, e.g. `{"status":"playing"}` |
/// | `history` | [`GameState::history`], each position as its board and side to move, `"2,1,7,7,7,0,7/0,0,6,1,6,6,0 N"` |
/// | `round_starts` | [`GameState::round_starts`], e.g. `[{"holdings":[49,49],"starter":"S"}]` |
///
/// Reading validates the position string and checks the rest against it: `status` must be the
/// one the position implies (a round that is over has its board swept), with the round's
/// reason and sweep taken as written (a position marked `repetition` needs that reason); `history` must end with the current position while a
/// move is expected and be empty otherwise, and hold no position twice (a repetition would
/// have ended the round); `round_starts` is empty in a single game and lists at most one
/// start per round, the last being this round's: its starter is the position's round starter
/// and its holdings are what the round's refill implies (the seeds kept in store plus those
/// in the player's open holes). `status`, `history` and `round_starts` may be left out:
/// the state is then the one [`crate::Setup::game_state`] gives, which knows no earlier
/// positions. A state read back equals the one written.
///
/// ```
/// use pussa_rules::{Game, GameState, Hole, Mode, Side};
/// let mut g = GameState::new(Game::WalakPussa, Mode::Match, Side::South);
/// g.play(Hole::from_letter('A')?)?;
/// let json = serde_json::to_string(&g)?;
/// assert!(json.starts_with(r#"{"position":"2,1,7,7,7,0,7/0,0,6,1,6,6,0 6 0 N 1 walak-pussa S","mode":"match","#));
/// assert_eq!(serde_json::from_str::<GameState>(&json)?, g);
/// let fresh: GameState = serde_json::from_str(
///     r#"{"position":"4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0 S 1 walak-pussa","mode":"single"}"#,
/// )?;
/// assert_eq!(fresh.legal_moves().len(), 7);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameState {
    pos: Position,
    mode: Mode,
    round: u32,
    starter: Side,
    round_start_stores: [u8; 2],
    /// Repetition keys of the positions of this round since seeds last left the board
    /// (only those can recur: the board's seed count never grows within a round).
    history: Vec<u128>,
    /// The starts of a match's rounds so far, this round's last (see [`GameState::round_starts`]).
    round_starts: Vec<RoundStart>,
    status: Status,
}

/// The highest round a state can be set up in ([`GameState::from_position`], position strings),
/// and the last round a match plays: a match whose round [`MAX_ROUND`] ends with both players
/// still able to fill a hole is over there, drawn, so every state's position string reads back.
/// The contract sets no limit; no match played for a result comes near it (a match going round
/// in a circle can, docs/rules.md).
pub const MAX_ROUND: u32 = 1_000_000;

impl GameState {
    /// A new single game or match from the start position with `first` to move.
    ///
    /// # Examples
    /// ```
    /// use pussa_rules::{Game, GameState, Mode, Position, Side, Status};
    /// let g = GameState::new(Game::RajaPasu, Mode::Match, Side::North);
    /// assert_eq!((g.round(), g.round_starter()), (1, Side::North));
    /// assert_eq!(g.to_move(), Some(Side::North));
    /// assert_eq!(*g.position(), Position::start_with(Game::RajaPasu, Side::North));
    /// assert_eq!(g.status(), Status::Playing);
    /// assert_eq!(g.legal_moves().len(), 7);
    /// ```
    #[must_use]
    pub fn new(game: Game, mode: Mode, first: Side) -> GameState {
        let mut g = GameState::from_position(Position::start_with(game, first), mode, 1, first);
        if mode == Mode::Match {
            let half = game.total_seeds() / 2;
            g.round_starts.push(RoundStart {
                holdings: [half, half],
                starter: first,
            });
        }
        g
    }

    /// A game or match continuing from `pos` in round `round` (from 1 to [`MAX_ROUND`]), the
    /// round having been started by `starter`. `pos` is taken as it is (see
    /// [`Position::from_parts_unchecked`] for what it must satisfy); [`crate::Setup::game_state`]
    /// is the checked way, which validates the position and the round. In round 1 the stores are
    /// the seeds taken in the round; from round 2 on they are taken as carried over from the last
    /// refill, nothing taken yet ([`GameState::from_position_taken`] says otherwise).
    /// The end-of-round rules are applied at once, so a position whose round is already over
    /// yields a state that says so. Such a state knows nothing of earlier rounds
    /// ([`GameState::round_starts`] is empty until the next round is laid out).
    ///
    /// # Examples
    /// ```
    /// use pussa_rules::{EndReason, Game, GameState, Mode, Position, Side};
    /// // Pasu Pondi: every seed left lies in South's row, so the round is already over.
    /// let mut board = [0; 14];
    /// board[2] = 4;
    /// let pos = Position::from_parts_unchecked(Game::PasuPondi, board, 0, [30, 36], Side::North);
    /// let g = GameState::from_position(pos, Mode::Single, 1, Side::South);
    /// assert!(g.is_over());
    /// assert_eq!(g.to_move(), None);
    /// assert_eq!(g.position().stores(), [34, 36]); // each player took their own row
    /// assert_eq!(g.winner(), Some(Some(Side::North)));
    /// ```
    ///
    /// # Panics
    /// Panics if `round` is 0 or above [`MAX_ROUND`].
    #[must_use]
    pub fn from_position(pos: Position, mode: Mode, round: u32, starter: Side) -> GameState {
        let taken = if round == 1 { pos.stores() } else { [0, 0] };
        GameState::from_position_taken(pos, mode, round, starter, taken)
    }

    /// [`GameState::from_position`] with what each player has taken so far in this round,
    /// `taken` (`[South, North]`, part of `pos`'s stores; the rest was kept in store from the
    /// last refill). The round's winner is decided by what each player takes in it, so a state
    /// continued from the middle of round 2 or later needs this to score the round as the match
    /// that led to it would. [`crate::Setup::game_state`] passes the position string's takings.
    ///
    /// # Examples
    /// ```
    /// use pussa_rules::{Game, GameState, Mode, Position, Side};
    /// let mut board = [0; 14];
    /// board[0] = 1;
    /// board[7] = 1;
    /// let pos = Position::from_parts_unchecked(Game::WalakPussa, board, 0, [28, 26], Side::South);
    /// let g = GameState::from_position_taken(pos, Mode::Single, 2, Side::South, [3, 10]);
    /// assert_eq!(g.taken_this_round(), [3, 10]);
    /// ```
    ///
    /// # Panics
    /// Panics if `round` is 0 or above [`MAX_ROUND`], or if `taken` is above `pos`'s stores.
    #[must_use]
    pub fn from_position_taken(
        pos: Position,
        mode: Mode,
        round: u32,
        starter: Side,
        taken: [u8; 2],
    ) -> GameState {
        let mut g = GameState::unstarted(pos, mode, round, starter, taken);
        g.check_end(&mut NoTrace);
        g
    }

    /// The state at `pos` in round `round` with nothing played and the round not yet checked
    /// for its end: the one construction [`GameState::from_position_taken`] and
    /// [`GameState::from_setup_parts`] share.
    ///
    /// # Panics
    /// Panics if `round` is 0 or above [`MAX_ROUND`], or if `taken` is above `pos`'s stores.
    fn unstarted(
        pos: Position,
        mode: Mode,
        round: u32,
        starter: Side,
        taken: [u8; 2],
    ) -> GameState {
        assert!(
            (1..=MAX_ROUND).contains(&round),
            "round {round} is outside 1..={MAX_ROUND}"
        );
        let stores = pos.stores();
        assert!(
            taken[0] <= stores[0] && taken[1] <= stores[1],
            "taken {taken:?} is above the stores {stores:?}"
        );
        GameState {
            pos,
            mode,
            round,
            starter,
            round_start_stores: [stores[0] - taken[0], stores[1] - taken[1]],
            history: Vec::with_capacity(16),
            round_starts: Vec::new(),
            status: Status::Playing,
        }
    }

    /// [`GameState::from_position_taken`] for a position string: when `repeated` (the string's
    /// `repetition` marker, on a swept board), the round is over by the repetition rule, which
    /// the board alone cannot tell (a swept board otherwise reads as "no legal move", or as
    /// "one row" in Pasu Pondi).
    ///
    /// # Panics
    /// As [`GameState::from_position_taken`]: if `round` is 0 or above [`MAX_ROUND`], or if
    /// `taken` is above `pos`'s stores.
    pub(crate) fn from_setup_parts(
        pos: Position,
        mode: Mode,
        round: u32,
        starter: Side,
        taken: [u8; 2],
        repeated: bool,
    ) -> GameState {
        let mut g = GameState::unstarted(pos, mode, round, starter, taken);
        if repeated {
            g.end_round(EndReason::Repetition, &mut NoTrace);
        } else {
            g.check_end(&mut NoTrace);
        }
        g
    }

    /// How the round ended, if it is over.
    pub(crate) fn round_result(&self) -> Option<RoundResult> {
        match self.status {
            Status::Playing => None,
            Status::RoundOver { result, .. } | Status::Over { result, .. } => Some(result),
        }
    }

    /// The current position.
    #[must_use]
    pub fn position(&self) -> &Position {
        &self.pos
    }

    /// The game.
    #[must_use]
    pub fn game(&self) -> Game {
        self.pos.game()
    }

    /// Single game or match.
    #[must_use]
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The round being played (from 1).
    #[must_use]
    pub fn round(&self) -> u32 {
        self.round
    }

    /// Who started this round.
    #[must_use]
    pub fn round_starter(&self) -> Side {
        self.starter
    }

    /// The repetition keys ([`Position::repetition_key`]) of this round's positions since seeds
    /// last left the board, the current one last: the only positions that can still recur.
    /// A search continuing from this state must treat them as already seen.
    #[must_use]
    pub fn history(&self) -> &[u128] {
        &self.history
    }

    /// The starts of this match's rounds, in order, the current round's last: the holdings and
    /// starter of each. Empty in a single game. A state set up by
    /// [`GameState::from_position`] knows only the rounds laid out since.
    ///
    /// A match whose next round would start as earlier ones did is going round in a circle
    /// unless someone plays differently; the contract has no rule for it, and the search counts
    /// a round's end that starts the third such round as a draw (docs/engine.md, "Matches").
    ///
    /// # Examples
    /// ```
    /// use pussa_rules::{Game, GameState, Mode, RoundStart, Side};
    /// let g = GameState::new(Game::PasuPondi, Mode::Match, Side::North);
    /// assert_eq!(g.round_starts(), [RoundStart { holdings: [35, 35], starter: Side::North }]);
    /// ```
    #[must_use]
    pub fn round_starts(&self) -> &[RoundStart] {
        &self.round_starts
    }

    /// The latest earlier round of this match that the current round started exactly as (the
    /// same holdings, the same starter), if any: the match is going round in a circle, and the
    /// same play would repeat it for ever. Only rounds in [`GameState::round_starts`] count.
    ///
    /// # Examples
    /// ```
    /// use pussa_rules::{Game, GameState, Hole, Mode, Side};
    /// // Walak-pussa played perfectly for seeds: round 3 starts as round 2 did (docs/solved.md).
    /// let mut g = GameState::new(Game::WalakPussa, Mode::Match, Side::South);
    /// let moves = "A f B e E d C b A g G g F e F b D g A f C e D c E d F f G a \
    ///              e E f G d E b F b D b E";
    /// for m in moves.split_whitespace() {
    ///     g.next_round();
    ///     g.play(m.parse::<Hole>()?)?;
    /// }
    /// assert_eq!(g.repeats_round(), None);
    /// g.next_round();
    /// assert_eq!((g.round(), g.repeats_round()), (3, Some(2)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn repeats_round(&self) -> Option<u32> {
        let (last, earlier) = self.round_starts.split_last()?;
        let i = earlier.iter().rposition(|r| r == last)?;
        Some(self.round - (earlier.len() - i) as u32)
    }

    /// Where the game stands.
    #[must_use]
    pub fn status(&self) -> Status {
        self.status
    }

    /// The player to move, or `None` when no move is expected.
    #[must_use]
    pub fn to_move(&self) -> Option<Side> {
        matches!(self.status, Status::Playing).then(|| self.pos.to_move())
    }

    /// Who moves next: the side to move; once a round of a match is over (the match going on),
    /// the next round's starter; once the game or match is over, the position's side to move
    /// (nobody moves again). A game or record started from this state's position has this
    /// player move first (`First` in records, `first` in the web state).
    ///
    /// # Examples
    /// ```
    /// use pussa_rules::{Mode, Setup, Side};
    /// // Round 1 is over, North to move in the position: South took the leftovers and starts
    /// // round 2.
    /// let over: Setup = "0,0,0,0,0,0,0/0,0,0,0,0,0,0 65 33 N 1 raja-pasu S".parse()?;
    /// assert_eq!(over.game_state(Mode::Match)?.next_mover(), Side::South);
    /// assert_eq!(over.game_state(Mode::Single)?.next_mover(), Side::North);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn next_mover(&self) -> Side {
        match self.status {
            Status::RoundOver { next_starter, .. } => next_starter,
            _ => self.pos.to_move(),
        }
    }

    /// True unless a move is expected.
    #[must_use]
    pub fn is_round_over(&self) -> bool {
        !matches!(self.status, Status::Playing)
    }

    /// True when the game (single) or match is over.
    #[must_use]
    pub fn is_over(&self) -> bool {
        matches!(self.status, Status::Over { .. })
    }

    /// The winner once the game or match is over (`Some(None)` for a draw).
    #[must_use]
    pub fn winner(&self) -> Option<Option<Side>> {
        match self.status {
            Status::Over { winner, .. } => Some(winner),
            _ => None,
        }
    }

    /// Seeds each player took so far in this round.
    #[must_use]
    pub fn taken_this_round(&self) -> [u8; 2] {
        let s = self.pos.stores();
        [
            s[0].saturating_sub(self.round_start_stores[0]),
            s[1].saturating_sub(self.round_start_stores[1]),
        ]
    }

    /// The legal moves (empty when the round is over).
    ///
    /// # Examples
    /// ```
    /// use pussa_rules::{Game, GameState, Mode, Side};
    /// let g = GameState::new(Game::WalakPussa, Mode::Single, Side::North);
    /// assert_eq!(g.legal_moves().to_string(), "a b c d e f g");
    /// ```
    #[must_use]
    pub fn legal_moves(&self) -> Moves {
        if self.is_round_over() {
            Moves::EMPTY
        } else {
            self.pos.legal_moves()
        }
    }

    /// Plays `mv`, then applies the end-of-round rules.
    ///
    /// # Errors
    /// [`IllegalMove`] naming the move and why (not your hole, closed, empty, endless, round
    /// over, game over ([`IllegalReason::GameOver`]) or match over
    /// ([`IllegalReason::MatchOver`]), both with the result); the state is then unchanged.
    ///
    /// # Examples
    /// ```
    /// use pussa_rules::{Game, GameState, Hole, IllegalReason, Mode, Side};
    /// let mut g = GameState::new(Game::WalakPussa, Mode::Single, Side::South);
    /// let report = g.play("A".parse::<Hole>()?)?;
    /// assert_eq!(report.outcome.taken, [6, 0]);
    /// assert_eq!(report.round_end, None);
    ///
    /// // South moved, so `B` is not North's to lift: the reason comes back and nothing changes.
    /// let before = g.clone();
    /// let err = g.play("B".parse::<Hole>()?).unwrap_err();
    /// assert_eq!(err.mv, "B".parse::<Hole>()?);
    /// assert_eq!(err.reason, IllegalReason::NotYourHole { to_move: Side::North });
    /// assert_eq!(err.to_string(), "illegal move B: not your hole: North is to move and owns a-g");
    /// assert_eq!(g, before);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn play(&mut self, mv: Hole) -> Result<MoveReport, IllegalMove> {
        self.play_traced(mv, &mut NoTrace)
    }

    /// [`GameState::play`], reporting each event of the move (and of the round's end) to `trace`.
    ///
    /// # Errors
    /// As [`GameState::play`].
    pub fn play_traced<T: Trace>(
        &mut self,
        mv: Hole,
        trace: &mut T,
    ) -> Result<MoveReport, IllegalMove> {
        match self.status {
            Status::Playing => {}
            Status::RoundOver { .. } => {
                return Err(IllegalMove {
                    mv,
                    reason: IllegalReason::RoundOver,
                })
            }
            Status::Over { winner, .. } => {
                return Err(IllegalMove {
                    mv,
                    reason: self.over_reason(winner),
                })
            }
        }
        let outcome = self.pos.play_traced(mv, trace)?;
        if outcome.seeds_taken() > 0 {
            self.history.clear();
        }
        let round_end = self.check_end(trace);
        Ok(MoveReport { outcome, round_end })
    }

    /// Why no move is taken once the game or match is over, won by `winner`.
    pub(crate) fn over_reason(&self, winner: Option<Side>) -> IllegalReason {
        match self.mode {
            Mode::Single => IllegalReason::GameOver { winner },
            Mode::Match => IllegalReason::MatchOver { winner },
        }
    }

    /// Applies the end-of-round rules in the contract's order; records the position otherwise.
    fn check_end<T: Trace>(&mut self, trace: &mut T) -> Option<RoundResult> {
        let game = self.pos.game();
        let to_move = self.pos.to_move();
        let reason = if game.one_row_ends_round()
            && (self.pos.row_seeds(Side::South) == 0 || self.pos.row_seeds(Side::North) == 0)
        {
            Some(EndReason::OneRow)
        } else if self.history.contains(&self.pos.repetition_key()) {
            Some(EndReason::Repetition)
        } else if !self.pos.has_legal_move() {
            // Every candidate left is endless (that is why none is legal).
            Some(EndReason::NoLegalMove {
                stuck: to_move,
                endless: self.pos.candidates(),
            })
        } else {
            None
        };
        let Some(reason) = reason else {
            self.history.push(self.pos.repetition_key());
            return None;
        };
        Some(self.end_round(reason, trace))
    }

    /// Ends the round for `reason`: the sweep, the round's result, and the match's next step.
    fn end_round<T: Trace>(&mut self, reason: EndReason, trace: &mut T) -> RoundResult {
        let game = self.pos.game();
        let to_move = self.pos.to_move();
        let each_own = match reason {
            EndReason::OneRow | EndReason::Repetition => true,
            EndReason::NoLegalMove { .. } => game.stuck_rule() == StuckRule::EachTakesOwnRow,
        };
        let swept = self.pos.sweep(each_own, to_move.other());
        trace.event(Event::RoundEnd { reason, swept });
        let taken = self.taken_this_round();
        let winner = match taken[0].cmp(&taken[1]) {
            core::cmp::Ordering::Greater => Some(Side::South),
            core::cmp::Ordering::Less => Some(Side::North),
            core::cmp::Ordering::Equal => None,
        };
        let result = RoundResult {
            round: self.round,
            reason,
            swept,
            taken,
            winner,
        };
        self.history.clear();
        self.status = match self.mode {
            Mode::Single => Status::Over { result, winner },
            Mode::Match => {
                let sph = game.seeds_per_hole();
                let stores = self.pos.stores();
                if stores[0] < sph || stores[1] < sph {
                    let winner = if stores[0] < sph && stores[1] < sph {
                        None
                    } else if stores[0] < sph {
                        Some(Side::North)
                    } else {
                        Some(Side::South)
                    };
                    Status::Over { result, winner }
                } else if self.round >= MAX_ROUND {
                    // No round above MAX_ROUND can be written or read back: the match ends here,
                    // drawn, both players still able to fill a hole.
                    Status::Over {
                        result,
                        winner: None,
                    }
                } else {
                    Status::RoundOver {
                        result,
                        next_starter: self.next_starter(reason),
                    }
                }
            }
        };
        if let Status::Over { winner, .. } = self.status {
            trace.event(Event::MatchEnd { winner });
        }
        result
    }

    /// Sets the starts of the match's rounds before this one ([`GameState::round_starts`] becomes
    /// `earlier` followed by this round's start), for a state set up from a position string in a
    /// later round of a match, which knows no earlier round: the engine protocol's `position fen
    /// … starts …`. A search values a round's end that would start a round as two earlier ones
    /// did as a circle's draw, so it needs them (docs/engine.md, "Matches").
    ///
    /// # Errors
    /// A single game; more starts than rounds before this one; holdings that do not add up to
    /// the game's seeds.
    ///
    /// # Examples
    /// ```
    /// use pussa_rules::{Game, GameState, Hole, Mode, Setup, Side};
    /// // Walak-pussa played perfectly for seeds: round 3 starts as round 2 did (docs/solved.md).
    /// let mut g = GameState::new(Game::WalakPussa, Mode::Match, Side::South);
    /// let moves = "A f B e E d C b A g G g F e F b D g A f C e D c E d F f G a \
    ///              e E f G d E b F b D b E";
    /// for m in moves.split_whitespace() {
    ///     g.next_round();
    ///     g.play(m.parse::<Hole>()?)?;
    /// }
    /// g.next_round();
    /// // Set up from its position string, round 3 knows no earlier round; given them, it is
    /// // the match's state again.
    /// let mut set_up = Setup::from_state(&g).game_state(Mode::Match)?;
    /// assert!(set_up.round_starts().is_empty());
    /// let (_, earlier) = g.round_starts().split_last().unwrap();
    /// set_up.set_earlier_round_starts(earlier.to_vec())?;
    /// assert_eq!(set_up.round_starts(), g.round_starts());
    /// assert_eq!(set_up.repeats_round(), Some(2));
    /// assert!(set_up.set_earlier_round_starts(vec![earlier[0]; 3]).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_earlier_round_starts(&mut self, mut earlier: Vec<RoundStart>) -> Result<(), String> {
        if earlier.len() >= self.round as usize {
            return Err(format!(
                "round_starts: {} earlier starts for round {}",
                earlier.len(),
                self.round
            ));
        }
        earlier.push(RoundStart {
            holdings: self.round_start_holdings(),
            starter: self.starter,
        });
        self.check_round_starts(&earlier)?;
        self.round_starts = earlier;
        Ok(())
    }

    /// Checks `starts` as this state's [`GameState::round_starts`]: a match, at most one start a
    /// round, every start's holdings adding up to the game's seeds.
    fn check_round_starts(&self, starts: &[RoundStart]) -> Result<(), String> {
        if self.mode == Mode::Single {
            return Err("round_starts: a single game has no round starts".into());
        }
        if starts.len() > self.round as usize {
            return Err(format!(
                "round_starts: {} starts for {} rounds",
                starts.len(),
                self.round
            ));
        }
        let total = self.game().total_seeds();
        if let Some(bad) = starts
            .iter()
            .find(|s| u32::from(s.holdings[0]) + u32::from(s.holdings[1]) != u32::from(total))
        {
            return Err(format!(
                "round_starts: holdings {:?} do not add up to the {total} seeds of {}",
                bad.holdings,
                self.game()
            ));
        }
        Ok(())
    }

    /// What each player held when this round was laid out, `[South, North]`: the seeds kept in
    /// store at the refill plus those it put in the player's open holes (as
    /// [`RoundStart::holdings`] records them).
    fn round_start_holdings(&self) -> [u8; 2] {
        let sph = self.pos.game().seeds_per_hole();
        let open = self.pos.open_mask();
        let mut h = [0u8; 2];
        for side in Side::BOTH {
            let row = open >> (7 * side.index()) & 0x7f;
            h[side.index()] = self.round_start_stores[side.index()] + row.count_ones() as u8 * sph;
        }
        h
    }

    /// Who starts the round after one that ended for `reason`.
    fn next_starter(&self, reason: EndReason) -> Side {
        let not_last = self.starter.other();
        match self.pos.game().starter_rule() {
            StarterRule::TakerOfLeftovers => match reason {
                EndReason::NoLegalMove { stuck, .. } => stuck.other(),
                _ => not_last,
            },
            StarterRule::FewerSeeds => {
                let s = self.pos.stores();
                match s[0].cmp(&s[1]) {
                    core::cmp::Ordering::Less => Side::South,
                    core::cmp::Ordering::Greater => Side::North,
                    core::cmp::Ordering::Equal => not_last,
                }
            }
            StarterRule::Alternate => not_last,
        }
    }

    /// Lays out the next round of a match after [`Status::RoundOver`]: refill, closed holes,
    /// the starter. Returns `false` (and does nothing) unless a round is over and the match goes on.
    pub fn next_round(&mut self) -> bool {
        self.next_round_traced(&mut NoTrace)
    }

    /// [`GameState::next_round`], reporting the refill to `trace`.
    pub fn next_round_traced<T: Trace>(&mut self, trace: &mut T) -> bool {
        let Status::RoundOver { next_starter, .. } = self.status else {
            return false;
        };
        self.round_starts.push(RoundStart {
            holdings: self.pos.stores(),
            starter: next_starter,
        });
        let filled = self.pos.refill(next_starter);
        self.round += 1;
        self.starter = next_starter;
        self.round_start_stores = self.pos.stores();
        self.history.clear();
        self.status = Status::Playing;
        trace.event(Event::Refill {
            round: self.round,
            filled,
            remainder: self.pos.stores(),
            closed: self.pos.closed_mask(),
            starter: next_starter,
        });
        self.check_end(trace);
        true
    }
}

/// A repetition key ([`Position::repetition_key`]) as text: the board and the side to move,
/// `2,1,7,7,7,0,7/0,0,6,1,6,6,0 N`.
fn key_text(key: u128) -> String {
    let bytes = key.to_le_bytes();
    let row = |r: &[u8]| r.iter().map(u8::to_string).collect::<Vec<_>>().join(",");
    let side = if bytes[15] & 1 == 0 { 'S' } else { 'N' };
    format!("{}/{} {side}", row(&bytes[..7]), row(&bytes[7..14]))
}

/// Reads [`key_text`]'s text back.
fn key_of_text(text: &str) -> Result<u128, String> {
    let bad = || format!("'{text}' is not a board and side to move (7 seeds/7 seeds S or N)");
    let (board, side) = text.split_once(' ').ok_or_else(bad)?;
    let side = Side::parse(side).map_err(|_| bad())?;
    let mut bytes = [0u8; 16];
    let (south, north) = board.split_once('/').ok_or_else(bad)?;
    let cells: Vec<&str> = south.split(',').chain(north.split(',')).collect();
    if cells.len() != 14 || south.split(',').count() != 7 {
        return Err(bad());
    }
    for (b, c) in bytes.iter_mut().zip(cells) {
        *b = c.parse().map_err(|_| bad())?;
    }
    Ok(u128::from_le_bytes(bytes) | (side.index() as u128) << 120)
}

/// The serde shape of a [`GameState`] (see its documentation).
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StateRepr {
    position: crate::Setup,
    mode: Mode,
    #[serde(default)]
    status: Option<Status>,
    #[serde(default)]
    history: Vec<String>,
    #[serde(default)]
    round_starts: Vec<RoundStart>,
}

impl Serialize for GameState {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        StateRepr {
            position: crate::Setup::from_state(self),
            mode: self.mode,
            status: Some(self.status),
            history: self.history.iter().map(|&k| key_text(k)).collect(),
            round_starts: self.round_starts.clone(),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for GameState {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<GameState, D::Error> {
        let r = StateRepr::deserialize(d)?;
        GameState::from_repr(r).map_err(serde::de::Error::custom)
    }
}

impl GameState {
    /// The state a [`StateRepr`] describes, checked against its position.
    fn from_repr(r: StateRepr) -> Result<GameState, String> {
        let mut g = r
            .position
            .game_state_ignoring_reachability(r.mode)
            .map_err(|e| e.to_string())?;
        if let Some(stored) = r.status {
            let with_written = |result: RoundResult, w: RoundResult| RoundResult {
                reason: w.reason,
                swept: w.swept,
                ..result
            };
            let expected = match (g.status, stored) {
                (Status::Playing, Status::Playing) => Status::Playing,
                (Status::Playing, _) => {
                    return Err(
                        "status: the round is over, but the position has a move to play".into(),
                    )
                }
                (_, Status::Playing) => {
                    return Err("status: playing, but the position's round is over".into())
                }
                (
                    Status::RoundOver { result, .. },
                    Status::RoundOver {
                        result: written, ..
                    },
                ) => Status::RoundOver {
                    result: with_written(result, written),
                    next_starter: g.next_starter(written.reason),
                },
                (
                    Status::Over { result, winner },
                    Status::Over {
                        result: written, ..
                    },
                ) => Status::Over {
                    result: with_written(result, written),
                    winner,
                },
                (computed, _) => {
                    let what = |s: Status| match s {
                        Status::Over { .. } => "over",
                        _ => "round_over",
                    };
                    return Err(format!(
                        "status: {}, but the position's state is {}",
                        what(stored),
                        what(computed)
                    ));
                }
            };
            if stored != expected {
                return Err(format!(
                    "status: {stored:?} does not match the position, which gives {expected:?}"
                ));
            }
            let written_reason = match stored {
                Status::Playing => None,
                Status::RoundOver { result, .. } | Status::Over { result, .. } => {
                    Some(result.reason)
                }
            };
            if r.position.repeated && written_reason != Some(EndReason::Repetition) {
                return Err(format!(
                    "status: the position string says the round ended by repetition, but status \
                     gives {written_reason:?}"
                ));
            }
            g.status = stored;
        }
        if !r.history.is_empty() {
            if g.is_round_over() {
                return Err("history: a round that is over keeps no positions".into());
            }
            let keys = r
                .history
                .iter()
                .map(|t| key_of_text(t))
                .collect::<Result<Vec<u128>, String>>()
                .map_err(|e| format!("history: {e}"))?;
            let current = g.pos.repetition_key();
            if keys.last() != Some(&current) {
                return Err(format!(
                    "history: the last entry must be the current position, {}",
                    key_text(current)
                ));
            }
            let seeds = |k: u128| k.to_le_bytes()[..14].iter().map(|&b| u32::from(b)).sum();
            let on_board: u32 = seeds(current);
            if let Some(&k) = keys.iter().find(|&&k| seeds(k) != on_board) {
                return Err(format!(
                    "history: {} has {} seeds on the board, not the {on_board} of the current \
                     position (no seed leaves the board between the positions kept)",
                    key_text(k),
                    seeds(k)
                ));
            }
            // A position kept twice would have ended the round at its second occurrence.
            for (i, k) in keys.iter().enumerate() {
                if keys[..i].contains(k) {
                    return Err(format!(
                        "history: {} occurs twice (a repetition ends the round)",
                        key_text(*k)
                    ));
                }
            }
            g.history = keys;
        }
        if !r.round_starts.is_empty() {
            g.check_round_starts(&r.round_starts)?;
            let last = r.round_starts.last().copied();
            // The last start is this round's: its starter and holdings are the position's.
            if let Some(last) = last {
                if last.starter != g.starter {
                    return Err(format!(
                        "round_starts: the last start (starter {}) is not this round's (starter {})",
                        last.starter, g.starter
                    ));
                }
                let expected = g.round_start_holdings();
                if last.holdings != expected {
                    return Err(format!(
                        "round_starts: the last start's holdings {:?} are not this round's {expected:?}",
                        last.holdings
                    ));
                }
            }
            g.round_starts = r.round_starts;
        }
        Ok(g)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn swept() -> Position {
        Position::from_parts_unchecked(Game::RajaPasu, [0; 14], 0, [65, 33], Side::North)
    }

    #[test]
    #[should_panic(expected = "round 0 is outside")]
    fn a_repeated_setup_state_checks_its_round_as_from_position_taken_does() {
        let _ = GameState::from_setup_parts(swept(), Mode::Match, 0, Side::South, [0, 0], true);
    }

    #[test]
    #[should_panic(expected = "is above the stores")]
    fn a_repeated_setup_state_checks_its_takings_as_from_position_taken_does() {
        let _ = GameState::from_setup_parts(swept(), Mode::Match, 1, Side::South, [66, 0], true);
    }

    #[test]
    fn a_repeated_setup_state_is_the_unrepeated_one_ended_by_repetition() {
        let plain =
            GameState::from_setup_parts(swept(), Mode::Match, 1, Side::South, [5, 3], false);
        assert_eq!(
            plain,
            GameState::from_position_taken(swept(), Mode::Match, 1, Side::South, [5, 3])
        );
        let repeated =
            GameState::from_setup_parts(swept(), Mode::Match, 1, Side::South, [5, 3], true);
        assert_eq!(repeated.taken_this_round(), [5, 3]);
        assert_eq!(
            repeated.round_result().map(|r| r.reason),
            Some(EndReason::Repetition)
        );
    }
}
