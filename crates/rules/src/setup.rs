//! The one-line position string and [`Setup`], its unvalidated parse.
//!
//! ```text
//! 4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0 S 1 walak-pussa
//! └ South A..G ┘ └ North a..g ┘ │ │ │ │ └ game
//!                               │ │ │ └ round (from 1)
//!                               │ │ └ side to move
//!                               └─┴ seeds held off the board by South, North
//! ```
//! A closed hole is written `x`. An optional seventh field names who started the round
//! (`S` or `N`; by default the side to move); it matters only for who starts the next round.
//! A round that ended by the repetition rule (its board swept) ends with the marker
//! `repetition`, which the board cannot tell and which decides who starts the next round of a
//! Raja Pasu match:
//!
//! ```text
//! 0,0,0,0,0,0,0/0,0,0,0,0,0,0 65 33 N 1 raja-pasu S repetition
//! ```
//!
//! From round 2 on, a store may be written `C+T`: `C` seeds kept in store from the last refill
//! and `T` taken in this round (the store holds `C+T`). A plain number is everything taken in
//! round 1, and everything carried over (nothing taken yet) from round 2 on. Writers use `C+T`
//! whenever the round is 2 or more and `T` is not 0:
//!
//! ```text
//! 0,2,16,1,1,1,1/x,x,x,16,3,0,0 16+25 5+11 S 2 raja-pasu
//! ```

use core::fmt;
use core::str::FromStr;

use crate::position::{Position, ALL_OPEN};
use crate::state::{GameState, Mode};
use crate::types::{ClosingEnd, Game, Hole, Side};

/// A position as written. Parsing with [`str::parse`] validates; a `Setup` built by hand is checked by
/// [`Setup::position`] or [`Setup::game_state`].
///
/// # Examples
/// ```
/// use pussa_rules::{Game, Setup};
/// let s: Setup = "4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0 S 1 walak-pussa".parse()?;
/// assert_eq!(s.game, Game::WalakPussa);
/// let pos = s.position()?;
/// assert_eq!(pos.seeds_on_board(), 56);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Setup {
    /// The game.
    pub game: Game,
    /// Seeds per hole in index order `A`..`G`, `a`..`g` (0 for closed holes).
    pub board: [u8; 14],
    /// Bit mask of closed holes.
    pub closed: u16,
    /// Seeds held off the board, `[South, North]`: those kept from the last refill plus those
    /// taken in this round.
    pub stores: [u8; 2],
    /// Seeds each player took in this round, `[South, North]`: part of `stores`, which the round's
    /// winner is decided by. In round 1 it equals `stores` (nothing is carried over into round 1);
    /// from round 2 on, `stores - taken` is what each player kept in store from the last refill.
    pub taken: [u8; 2],
    /// Side to move.
    pub to_move: Side,
    /// Round number, from 1.
    pub round: u32,
    /// Who started this round.
    pub starter: Side,
    /// The round is over, ended by the repetition rule (written as the marker `repetition` at
    /// the end of the string). Such a round has its board swept, and a swept board alone reads
    /// as a round that ended with no legal move (or, in Pasu Pondi, with the seeds in one row);
    /// the reason decides who starts the next round of a Raja Pasu match.
    pub repeated: bool,
}

/// What is wrong with a position string or a [`Setup`].
///
/// It is `#[non_exhaustive]`: a later version may add variants, so a `match` outside this
/// crate needs a wildcard arm. Naming every variant is not enough:
/// ```compile_fail,E0004
/// use pussa_rules::SetupError;
/// fn kind(e: &SetupError) -> u8 {
///     match e {
///         SetupError::FieldCount { .. } => 0,
///         SetupError::ExtraField { .. } => 0,
///         SetupError::BoardSpace { .. } => 0,
///         SetupError::Rows { .. } => 0,
///         SetupError::RowLength { .. } => 0,
///         SetupError::HoleValue { .. } => 0,
///         SetupError::Number { .. } => 0,
///         SetupError::Side { .. } => 0,
///         SetupError::Starter { .. } => 0,
///         SetupError::Game { .. } => 0,
///         SetupError::RoundZero { .. } => 0,
///         SetupError::RoundTooHigh { .. } => 0,
///         SetupError::ClosedMask { .. } => 0,
///         SetupError::TooMany { .. } => 0,
///         SetupError::Total { .. } => 0,
///         SetupError::CarriedInRoundOne { .. } => 0,
///         SetupError::TakenNotStoreInRoundOne { .. } => 0,
///         SetupError::SeedsInClosedHole { .. } => 0,
///         SetupError::TakenAboveStore { .. } => 0,
///         SetupError::RepetitionNotSwept { .. } => 0,
///         SetupError::ClosedInRoundOne { .. } => 0,
///         SetupError::ClosedPattern { .. } => 0,
///         SetupError::BothRowsClosed { .. } => 0,
///         SetupError::RowClosed { .. } => 0,
///         SetupError::WrongGame { .. } => 0,
///     }
/// }
/// ```
/// With the wildcard it compiles:
/// ```
/// use pussa_rules::SetupError;
/// fn kind(e: &SetupError) -> u8 {
///     match e {
///         SetupError::FieldCount { .. } => 0,
///         SetupError::ExtraField { .. } => 0,
///         SetupError::BoardSpace { .. } => 0,
///         SetupError::Rows { .. } => 0,
///         SetupError::RowLength { .. } => 0,
///         SetupError::HoleValue { .. } => 0,
///         SetupError::Number { .. } => 0,
///         SetupError::Side { .. } => 0,
///         SetupError::Starter { .. } => 0,
///         SetupError::Game { .. } => 0,
///         SetupError::RoundZero { .. } => 0,
///         SetupError::RoundTooHigh { .. } => 0,
///         SetupError::ClosedMask { .. } => 0,
///         SetupError::TooMany { .. } => 0,
///         SetupError::Total { .. } => 0,
///         SetupError::CarriedInRoundOne { .. } => 0,
///         SetupError::TakenNotStoreInRoundOne { .. } => 0,
///         SetupError::SeedsInClosedHole { .. } => 0,
///         SetupError::TakenAboveStore { .. } => 0,
///         SetupError::RepetitionNotSwept { .. } => 0,
///         SetupError::ClosedInRoundOne { .. } => 0,
///         SetupError::ClosedPattern { .. } => 0,
///         SetupError::BothRowsClosed { .. } => 0,
///         SetupError::RowClosed { .. } => 0,
///         SetupError::WrongGame { .. } => 0,
///         _ => 1,
///     }
/// }
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SetupError {
    /// Too few space-separated fields (the `repetition` marker not counted).
    #[error("position: expected 6 or 7 fields (board, South's store, North's store, side to move, round, game[, round starter]); found {0}")]
    FieldCount(usize),
    /// More than 7 fields: a word after the round starter that is not the `repetition`
    /// marker (a misspelt marker, or a field too many), or the marker written twice or before
    /// the round starter (also on a 6-field string: `… 1 walak-pussa repetition repetition`,
    /// `… 1 walak-pussa repetitoin`). `found` counts the fields, markers not counted; `word` is the first
    /// word that does not belong (`repetition` itself when the marker is doubled or misplaced).
    #[error("position: expected 6 or 7 fields (board, South's store, North's store, side to move, round, game[, round starter]), optionally followed by `repetition`; found {found}: {}", extra_word(word))]
    ExtraField {
        /// The fields found, the `repetition` marker not counted (nor, on a 6-field string, a
        /// misspelt marker in the round starter's place: `… 1 walak-pussa repetitoin` finds 6).
        found: usize,
        /// The first word that does not belong.
        word: String,
    },
    /// A space inside the board (`4,4,4,4,4,4,4/ 4,4,4,4,4,4,4`), which splits it into
    /// several fields: the board as written, spaces and all.
    #[error("position: the board '{0}' has a space in it: write the board without spaces, two rows of 7 holes split by '/' (4,4,4,4,4,4,4/4,4,4,4,4,4,4)")]
    BoardSpace(String),
    /// The board field is not two rows separated by `/`.
    #[error("position: the board must be two rows separated by '/' (South A-G, then North a-g)")]
    Rows,
    /// A row does not have seven entries.
    #[error("position: {side}'s row has {found} holes; a row has 7")]
    RowLength {
        /// Whose row.
        side: Side,
        /// How many entries were found.
        found: usize,
    },
    /// A hole entry is neither a number nor `x`.
    #[error("position: hole {hole}: '{text}' is neither a seed count nor x (closed)")]
    HoleValue {
        /// The hole.
        hole: Hole,
        /// What was written.
        text: String,
    },
    /// A number field is malformed.
    #[error("position: {field}: '{text}' is not a number")]
    Number {
        /// Which field.
        field: &'static str,
        /// What was written.
        text: String,
    },
    /// The side to move is neither `S` nor `N`.
    #[error("position: side to move '{0}' must be S or N")]
    Side(String),
    /// The round starter is neither `S` nor `N`.
    #[error("position: round starter '{0}' must be S or N")]
    Starter(String),
    /// Unknown game. (Its message is this error's, not a source of it: a chain of causes,
    /// `anyhow`'s `{:#}`, would print it twice.)
    #[error("position: {0}")]
    Game(crate::types::UnknownGame),
    /// Round 0.
    #[error("position: rounds count from 1")]
    RoundZero,
    /// A round above [`crate::MAX_ROUND`], as written (a run of digits of any length).
    #[error("position: round {0} is above the maximum {max}", max = crate::MAX_ROUND)]
    RoundTooHigh(String),
    /// A [`Setup`] whose `closed` mask has bits outside the 14 holes (bits 14 and 15).
    #[error("position: the closed mask {0:#06x} has bits outside the 14 holes (bits 0-13)")]
    ClosedMask(u16),
    /// A count larger than the game's seeds, however many digits it has.
    #[error("position: {place} holds {seeds} seeds, more than the {total} seeds of {game}")]
    TooMany {
        /// Which hole or store.
        place: String,
        /// The count found, as written (without leading zeros; a store written `C+T` as
        /// written): a run of digits of any length, so a number too large for any integer type
        /// is still named as too many seeds, not as "not a number".
        seeds: String,
        /// The game's total.
        total: u8,
        /// The game.
        game: Game,
    },
    /// Board and stores do not add up to the game's total.
    #[error(
        "position: seeds add up to {found} (board {board} + stores {stores}); {game} has {total}"
    )]
    Total {
        /// Board plus stores.
        found: u32,
        /// On the board.
        board: u32,
        /// In the stores.
        stores: u32,
        /// The game's total.
        total: u8,
        /// The game.
        game: Game,
    },
    /// A store of round 1 written `C+T` with `C` above 0.
    #[error("position: {0}'s store: round 1 has nothing carried over; write the seeds taken as one number")]
    CarriedInRoundOne(Side),
    /// A [`Setup`] of round 1 whose `taken` is not its `stores` (nothing is carried over into
    /// round 1, so everything in store was taken in the round). A position string cannot say
    /// this ([`SetupError::CarriedInRoundOne`] is its error).
    #[error("position: round 1: {side} took {taken} seeds in the round but holds {stores} in store; nothing is carried over into round 1, so the seeds taken must equal the store")]
    TakenNotStoreInRoundOne {
        /// Whose store.
        side: Side,
        /// Seeds taken in the round (`Setup::taken`).
        taken: u8,
        /// Seeds in store (`Setup::stores`).
        stores: u8,
    },
    /// A [`Setup`] with seeds in a closed hole (a position string writes a closed hole `x`, so
    /// it cannot say this).
    #[error("position: hole {hole} is closed but holds {seeds} seeds; a closed hole holds none")]
    SeedsInClosedHole {
        /// The hole.
        hole: Hole,
        /// The seeds in it.
        seeds: u8,
    },
    /// More seeds taken in the round than the store holds.
    #[error("position: {side} took {taken} seeds in the round, more than the {stores} in store")]
    TakenAboveStore {
        /// Whose store.
        side: Side,
        /// Seeds taken in the round.
        taken: u8,
        /// Seeds in store.
        stores: u8,
    },
    /// The `repetition` marker ([`Setup::repeated`]) on a board that still holds seeds: a
    /// round that ended by repetition has its board swept.
    #[error("position: 'repetition' marks a round that ended by repetition, whose board is swept (each player took their own row), but the board holds {0} seeds")]
    RepetitionNotSwept(u32),
    /// Closed holes in the first round.
    #[error("position: hole {0} is closed in round 1; holes close only from round 2 of a match")]
    ClosedInRoundOne(Hole),
    /// Closed holes that do not run from the game's closing end.
    #[error("position: {side}'s closed holes must run from the {end} end of the row in {game}: {count} closed should be {expected}, found {found} (hole {hole} is out of place)")]
    ClosedPattern {
        /// Whose row.
        side: Side,
        /// `left` or `right`.
        end: &'static str,
        /// The first hole out of place: closed where it should be open, else open where it
        /// should be closed.
        hole: Hole,
        /// How many of the row's holes are closed.
        count: u32,
        /// The holes that would be closed, e.g. `A B`.
        expected: String,
        /// The holes that are closed.
        found: String,
        /// The game.
        game: Game,
    },
    /// Closed holes in both rows.
    #[error("position: both rows have closed holes; a player closes holes only when holding fewer seeds than the row needs, and the two players cannot both be short")]
    BothRowsClosed,
    /// A row with every hole closed.
    #[error("position: every hole of {0}'s row is closed; a player with no open hole has lost the match")]
    RowClosed(Side),
    /// A position string for another game than the one asked for.
    #[error("position is for {found}, but the game is {expected}")]
    WrongGame {
        /// The game asked for.
        expected: Game,
        /// The game in the string.
        found: Game,
    },
}

impl Setup {
    /// The setup of `pos` in round `round`, started by the side to move. In round 1 the stores
    /// are the seeds taken in the round; from round 2 on they are taken as carried over from the
    /// last refill, with nothing taken yet ([`Setup::from_state`] knows better).
    #[must_use]
    pub fn from_position(pos: &Position, round: u32) -> Setup {
        Setup {
            game: pos.game(),
            board: pos.board(),
            closed: pos.closed_mask(),
            stores: pos.stores(),
            taken: if round == 1 { pos.stores() } else { [0, 0] },
            to_move: pos.to_move(),
            round,
            starter: pos.to_move(),
            repeated: false,
        }
    }

    /// The setup of a game in progress. Its [`Display`](fmt::Display) is the position string,
    /// which [`str::parse`] reads back. [`Setup::game_state`] of it is the same game (in the
    /// same mode): the position, the round, its starter, what each took in it, and for a round
    /// that is over, who starts the next (a round ended by repetition is marked
    /// [`Setup::repeated`]). What it does not keep: the positions seen earlier in the round
    /// ([`GameState::history`]) and the starts of earlier rounds ([`GameState::round_starts`]);
    /// for a round that is over, how many seeds the end swept off the board
    /// (`RoundResult::swept`, already counted in the stores and takings) and the endless moves
    /// of a round that ended with none legal. The [`GameState`] serde shape keeps them all.
    ///
    /// # Examples
    /// ```
    /// use pussa_rules::{Game, GameState, Hole, Mode, Setup, Side};
    /// let mut g = GameState::new(Game::WalakPussa, Mode::Single, Side::South);
    /// g.play(Hole::from_letter('A')?)?;
    /// let text = Setup::from_state(&g).to_string();
    /// // The seventh field: South started this round, though North is to move.
    /// assert_eq!(text, "2,1,7,7,7,0,7/0,0,6,1,6,6,0 6 0 N 1 walak-pussa S");
    /// let back: Setup = text.parse()?;
    /// assert_eq!(back.position()?, *g.position());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn from_state(state: &GameState) -> Setup {
        Setup {
            round: state.round(),
            starter: state.round_starter(),
            taken: state.taken_this_round(),
            repeated: state
                .round_result()
                .is_some_and(|r| r.reason == crate::EndReason::Repetition),
            ..Setup::from_position(state.position(), state.round())
        }
    }

    /// Checks every rule a position must satisfy.
    ///
    /// # Errors
    /// The first problem found, naming the hole or field.
    pub fn validate(&self) -> Result<(), SetupError> {
        let game = self.game;
        let total = game.total_seeds();
        if self.round == 0 {
            return Err(SetupError::RoundZero);
        }
        if self.round > crate::MAX_ROUND {
            return Err(SetupError::RoundTooHigh(self.round.to_string()));
        }
        if self.closed & !ALL_OPEN != 0 {
            return Err(SetupError::ClosedMask(self.closed));
        }
        for h in Hole::ALL {
            let s = self.board[h.index()];
            if s > total {
                return Err(SetupError::TooMany {
                    place: format!("hole {h}"),
                    seeds: s.to_string(),
                    total,
                    game,
                });
            }
            if self.closed & (1 << h.index()) != 0 {
                if self.round == 1 {
                    return Err(SetupError::ClosedInRoundOne(h));
                }
                if s != 0 {
                    return Err(SetupError::SeedsInClosedHole { hole: h, seeds: s });
                }
            }
        }
        for side in Side::BOTH {
            let s = self.stores[side.index()];
            if s > total {
                return Err(SetupError::TooMany {
                    place: format!("{side}'s store"),
                    seeds: s.to_string(),
                    total,
                    game,
                });
            }
            let t = self.taken[side.index()];
            if self.round == 1 && t != s {
                return Err(SetupError::TakenNotStoreInRoundOne {
                    side,
                    taken: t,
                    stores: s,
                });
            }
            if t > s {
                return Err(SetupError::TakenAboveStore {
                    side,
                    taken: t,
                    stores: s,
                });
            }
        }
        let board: u32 = self.board.iter().map(|&s| u32::from(s)).sum();
        let stores = u32::from(self.stores[0]) + u32::from(self.stores[1]);
        if board + stores != u32::from(total) {
            return Err(SetupError::Total {
                found: board + stores,
                board,
                stores,
                total,
                game,
            });
        }
        if self.repeated && board != 0 {
            return Err(SetupError::RepetitionNotSwept(board));
        }
        for side in Side::BOTH {
            let row = (self.closed >> (7 * side.index())) & 0x7f;
            let k = row.count_ones() as u8;
            if k == 7 {
                return Err(SetupError::RowClosed(side));
            }
            let expected = game.closed_holes(side, 7 - k) >> (7 * side.index());
            if row != expected {
                // Name a closed hole that should be open, else an open one that should be closed,
                // nearest the closing end.
                let wrong = if row & !expected != 0 {
                    row & !expected
                } else {
                    expected & !row
                };
                let col = match game.closing_end() {
                    ClosingEnd::Left => wrong.trailing_zeros() as usize,
                    ClosingEnd::Right => 15 - wrong.leading_zeros() as usize,
                };
                let names = |mask: u16| {
                    (0..7)
                        .filter(|c| mask & (1 << c) != 0)
                        .map(|c| Hole::of_side(side, c).to_string())
                        .collect::<Vec<_>>()
                        .join(" ")
                };
                let end = match game.closing_end() {
                    ClosingEnd::Left => "left",
                    ClosingEnd::Right => "right",
                };
                return Err(SetupError::ClosedPattern {
                    side,
                    end,
                    hole: Hole::of_side(side, col),
                    count: u32::from(k),
                    expected: names(expected),
                    found: names(row),
                    game,
                });
            }
        }
        if self.closed & 0x7f != 0 && self.closed & (0x7f << 7) != 0 {
            return Err(SetupError::BothRowsClosed);
        }
        Ok(())
    }

    /// Every check of [`Setup::validate`] except reachability: closed holes in both rows, which
    /// no match reaches (the two holdings add up to the game's total, so only one player can be
    /// short) but which the rules sow, capture and end rounds on like any other. For tests and
    /// studies of the sowing on such boards; play and notation use [`Setup::validate`].
    ///
    /// # Errors
    /// Every [`SetupError`] but [`SetupError::BothRowsClosed`].
    pub fn validate_ignoring_reachability(&self) -> Result<(), SetupError> {
        match self.validate() {
            Err(SetupError::BothRowsClosed) => Ok(()),
            other => other,
        }
    }

    /// The position, checked by [`Setup::validate_ignoring_reachability`].
    ///
    /// # Errors
    /// See [`Setup::validate_ignoring_reachability`].
    pub fn position_ignoring_reachability(&self) -> Result<Position, SetupError> {
        self.validate_ignoring_reachability()?;
        Ok(self.position_unchecked())
    }

    fn position_unchecked(&self) -> Position {
        Position::from_parts_unchecked(
            self.game,
            self.board,
            self.closed,
            self.stores,
            self.to_move,
        )
    }

    /// The validated position.
    ///
    /// # Errors
    /// See [`Setup::validate`].
    pub fn position(&self) -> Result<Position, SetupError> {
        self.validate()?;
        Ok(self.position_unchecked())
    }

    /// A game or match continuing from this setup. The end-of-round rules are applied at once.
    ///
    /// # Errors
    /// See [`Setup::validate`].
    pub fn game_state(&self, mode: Mode) -> Result<GameState, SetupError> {
        Ok(GameState::from_setup_parts(
            self.position()?,
            mode,
            self.round,
            self.starter,
            self.taken,
            self.repeated,
        ))
    }

    /// A game or match from this setup, checked by [`Setup::validate_ignoring_reachability`].
    ///
    /// # Errors
    /// See [`Setup::validate_ignoring_reachability`].
    pub fn game_state_ignoring_reachability(&self, mode: Mode) -> Result<GameState, SetupError> {
        Ok(GameState::from_setup_parts(
            self.position_ignoring_reachability()?,
            mode,
            self.round,
            self.starter,
            self.taken,
            self.repeated,
        ))
    }

    /// Checks that the setup is for `game`.
    ///
    /// # Errors
    /// [`SetupError::WrongGame`] otherwise.
    pub fn expect_game(&self, game: Game) -> Result<(), SetupError> {
        if self.game == game {
            Ok(())
        } else {
            Err(SetupError::WrongGame {
                expected: game,
                found: self.game,
            })
        }
    }
}

impl fmt::Display for Setup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for i in 0..14 {
            if i == 7 {
                f.write_str("/")?;
            } else if i > 0 {
                f.write_str(",")?;
            }
            if self.closed & (1 << i) != 0 {
                f.write_str("x")?;
            } else {
                write!(f, "{}", self.board[i])?;
            }
        }
        for side in Side::BOTH {
            let (s, t) = (self.stores[side.index()], self.taken[side.index()]);
            if self.round >= 2 && t > 0 {
                write!(f, " {}+{t}", s.saturating_sub(t))?;
            } else {
                write!(f, " {s}")?;
            }
        }
        write!(f, " {} {} {}", self.to_move.letter(), self.round, self.game)?;
        if self.starter != self.to_move {
            write!(f, " {}", self.starter.letter())?;
        }
        if self.repeated {
            f.write_str(" repetition")?;
        }
        Ok(())
    }
}

/// The round field: a number from 1 to [`crate::MAX_ROUND`], read as hole and store counts are:
/// leading zeros are allowed, and a longer run of digits is a round above the maximum, not a
/// malformed number.
fn round_number(text: &str) -> Result<u32, SetupError> {
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        let digits = text.trim_start_matches('0');
        if digits.len() > 9 {
            return Err(SetupError::RoundTooHigh(digits.to_string()));
        }
        return Ok(digits.parse().unwrap_or(0));
    }
    number("round", text)
}

/// A seed count: a number of at most 9 digits, `Err(Some(digits))` for a longer run of digits
/// (too many seeds for any game, said so), `Err(None)` for anything else.
fn seed_count(text: &str) -> Result<u32, Option<String>> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(None);
    }
    let digits = text.trim_start_matches('0');
    if digits.len() > 9 {
        return Err(Some(digits.to_string()));
    }
    Ok(digits.parse().unwrap_or(0))
}

/// The board of position string `s` as written, if a space cuts it: its first field ends with
/// `/` or `,`, or the next one starts with either (`4,4,4,4,4,4,4/ 4,4,4,4,4,4,4`, `4,4, 4…`).
/// The text runs from the board's start to the end of the last field joined to it.
fn board_cut_by_space(s: &str) -> Option<&str> {
    let s = s.trim_start();
    let joins = |c: char| c == '/' || c == ',';
    let mut end = s.find(char::is_whitespace)?;
    let mut cut = false;
    loop {
        let rest = s[end..].trim_start();
        let next_start = s.len() - rest.len();
        let joined = s[..end].ends_with(joins) || rest.starts_with(joins);
        if !joined || rest.is_empty() {
            break;
        }
        cut = true;
        end = next_start + rest.find(char::is_whitespace).unwrap_or(rest.len());
    }
    cut.then(|| &s[..end])
}

fn number(field: &'static str, text: &str) -> Result<u32, SetupError> {
    if text.is_empty() || text.len() > 9 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(SetupError::Number {
            field,
            text: text.to_string(),
        });
    }
    text.parse().map_err(|_| SetupError::Number {
        field,
        text: text.to_string(),
    })
}

impl From<crate::types::UnknownGame> for SetupError {
    fn from(e: crate::types::UnknownGame) -> SetupError {
        SetupError::Game(e)
    }
}

/// Why `word`, found after a position string's seven fields, does not belong.
/// Whether `word` looks like a misspelt `repetition` marker (`repetitoin`, `Repetiton`,
/// `repeat`): it starts with `rep`, or is within 3 edits of `repetition`, in any case. No
/// round starter (`S`, `N`, `South`, `North`) does.
fn looks_like_marker(word: &str) -> bool {
    const MARKER: &[u8] = b"repetition";
    let w = word.to_ascii_lowercase();
    if w.len() < 4 {
        return false;
    }
    if w.starts_with("rep") {
        return true;
    }
    // Levenshtein distance, one row at a time.
    let mut prev: Vec<usize> = (0..=MARKER.len()).collect();
    for (i, &c) in w.as_bytes().iter().enumerate() {
        let mut row = vec![i + 1; MARKER.len() + 1];
        for (j, &m) in MARKER.iter().enumerate() {
            row[j + 1] = (prev[j] + usize::from(c != m))
                .min(prev[j + 1] + 1)
                .min(row[j] + 1);
        }
        prev = row;
    }
    prev[MARKER.len()] <= 3
}

fn extra_word(word: &str) -> String {
    if word.eq_ignore_ascii_case("repetition") {
        "the marker `repetition` comes once, last (after the round starter)".to_string()
    } else {
        format!("'{word}' is not the marker `repetition`")
    }
}

impl FromStr for Setup {
    type Err = SetupError;

    /// Parses a position string and validates it (see [`Setup::validate`]) except for
    /// reachability (closed holes in both rows, [`Setup::validate_ignoring_reachability`]): such
    /// a string parses, and [`Setup::position`] and [`Setup::game_state`] refuse it.
    fn from_str(s: &str) -> Result<Setup, SetupError> {
        let mut fields: Vec<&str> = s.split_whitespace().collect();
        // The marker of a round ended by repetition ends the string; it is not one of the
        // 6 or 7 fields.
        let is_marker = |w: &str| w.eq_ignore_ascii_case("repetition");
        let repeated = fields.len() > 6 && fields.last().is_some_and(|w| is_marker(w));
        if repeated {
            fields.pop();
        }
        // A space inside the board moves every later field: say so before counting fields or
        // reading the game from the wrong one.
        if let Some(board) = board_cut_by_space(s) {
            return Err(SetupError::BoardSpace(board.to_string()));
        }
        if fields.len() < 6 {
            return Err(SetupError::FieldCount(fields.len()));
        }
        if fields.len() > 7 {
            // A marker left among the fields is doubled or misplaced; otherwise the first
            // word after the round starter is one too many (a misspelt marker, say).
            let word = fields.iter().find(|w| is_marker(w)).unwrap_or(&fields[7]);
            return Err(SetupError::ExtraField {
                found: fields.iter().filter(|w| !is_marker(w)).count(),
                word: (*word).to_string(),
            });
        }
        // The board's shape first, which needs no game.
        let rows: Vec<&str> = fields[0].split('/').collect();
        if rows.len() != 2 {
            return Err(SetupError::Rows);
        }
        let rows: Vec<Vec<&str>> = rows.iter().map(|r| r.split(',').collect()).collect();
        for side in Side::BOTH {
            let found = rows[side.index()].len();
            if found != 7 {
                return Err(SetupError::RowLength { side, found });
            }
        }
        let game: Game = fields[5].parse()?;
        let total = game.total_seeds();
        let mut board = [0u8; 14];
        let mut closed = 0u16;
        for side in Side::BOTH {
            for (k, cell) in rows[side.index()].iter().enumerate() {
                let hole = Hole::of_side(side, k);
                if cell.eq_ignore_ascii_case("x") {
                    closed |= 1 << hole.index();
                    continue;
                }
                let too_many = |seeds: String| SetupError::TooMany {
                    place: format!("hole {hole}"),
                    seeds,
                    total,
                    game,
                };
                let n = seed_count(cell).map_err(|e| match e {
                    Some(digits) => too_many(digits),
                    None => SetupError::HoleValue {
                        hole,
                        text: (*cell).to_string(),
                    },
                })?;
                if n > u32::from(total) {
                    return Err(too_many(n.to_string()));
                }
                board[hole.index()] = n as u8;
            }
        }
        let round = round_number(fields[4])?;
        let mut stores = [0u8; 2];
        let mut taken = [0u8; 2];
        for side in Side::BOTH {
            let name = match side {
                Side::South => "South's store",
                Side::North => "North's store",
            };
            let text = fields[1 + side.index()];
            let too_many = |seeds: String| SetupError::TooMany {
                place: name.to_string(),
                seeds,
                total,
                game,
            };
            let count = |part: &str| {
                seed_count(part).map_err(|e| match e {
                    Some(digits) if part == text => too_many(digits),
                    // A part of C+T too long: the store as written.
                    Some(_) => too_many(text.to_string()),
                    None => SetupError::Number {
                        field: name,
                        text: text.to_string(),
                    },
                })
            };
            let (carried, took) = match text.split_once('+') {
                Some((c, t)) => {
                    // Both parts must be numbers before either is said to be too large.
                    let (c, t) = match (count(c), count(t)) {
                        (Err(e @ SetupError::Number { .. }), _)
                        | (_, Err(e @ SetupError::Number { .. })) => return Err(e),
                        (c, t) => (c?, t?),
                    };
                    if round == 1 && c > 0 {
                        return Err(SetupError::CarriedInRoundOne(side));
                    }
                    (c, t)
                }
                None => {
                    let n = count(text)?;
                    if round == 1 {
                        (0, n)
                    } else {
                        (n, 0)
                    }
                }
            };
            let n = carried + took;
            if n > u32::from(total) {
                return Err(too_many(n.to_string()));
            }
            stores[side.index()] = n as u8;
            taken[side.index()] = took as u8;
        }
        let to_move =
            Side::parse(fields[3]).map_err(|_| SetupError::Side(fields[3].to_string()))?;
        let starter = match fields.get(6) {
            // In the round starter's place, a second marker (the first was taken off the end)
            // or a misspelt one is named as such, not as a bad round starter.
            Some(t) if is_marker(t) || looks_like_marker(t) => {
                return Err(SetupError::ExtraField {
                    found: 6,
                    word: (*t).to_string(),
                })
            }
            Some(t) => Side::parse(t).map_err(|_| SetupError::Starter((*t).to_string()))?,
            None => to_move,
        };
        let setup = Setup {
            game,
            board,
            closed,
            stores,
            taken,
            to_move,
            round,
            starter,
            repeated,
        };
        setup.validate_ignoring_reachability()?;
        Ok(setup)
    }
}

/// A setup is written as its position string ([`Display`](fmt::Display)) and read with
/// [`str::parse`], which validates it: JSON `"4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0 S 1 walak-pussa"`.
impl serde::Serialize for Setup {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Setup {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Setup, D::Error> {
        struct Text;
        impl serde::de::Visitor<'_> for Text {
            type Value = Setup;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a position string")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Setup, E> {
                s.parse().map_err(E::custom)
            }
        }
        d.deserialize_str(Text)
    }
}
