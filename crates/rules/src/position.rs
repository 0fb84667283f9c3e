//! [`Position`]: the state inside one round, and sowing.

use core::fmt;

use crate::trace::{Event, NoTrace, Trace, Uninterrupted, INTERRUPT_LAPS};
use crate::types::{Direction, Game, Hole, Moves, Side};

/// Byte `i` set to 1 for every hole `i` of the ring.
const ONES: u128 = 0x0101_0101_0101_0101_0101_0101_0101;
/// All fourteen holes open.
pub(crate) const ALL_OPEN: u16 = 0x3fff;
/// South's row as a hole mask.
pub(crate) const SOUTH_ROW: u16 = 0x007f;
/// Byte mask of South's row on the packed board.
const SOUTH_BYTES: u128 = 0x00ff_ffff_ffff_ffff;

#[inline(always)]
fn packed(board: &[u8; 16]) -> u128 {
    u128::from_le_bytes(*board)
}

#[inline(always)]
fn byte_mask(open: u16) -> u128 {
    let mut m = 0u128;
    let mut o = open;
    while o != 0 {
        let i = o.trailing_zeros();
        m |= 0xffu128 << (8 * i);
        o &= o - 1;
    }
    m
}

/// How [`Position::sow`] ended.
enum Sown {
    Ends(MoveOutcome),
    Endless,
    Interrupted,
}

/// What a move did, besides changing the position.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MoveOutcome {
    /// Seeds taken during the move by South and by North (fours and captures).
    pub taken: [u8; 2],
    /// Laps sown (1 + the number of relay lifts).
    pub laps: u32,
}

/// How a sowing went ([`Position::try_play_unchecked`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sowing {
    /// The move ended; the position was played.
    Ends(MoveOutcome),
    /// The move is endless (not a legal move); the position is unchanged.
    Endless,
    /// The receiver interrupted the sowing ([`Trace::interrupt`]) before it was known to end
    /// or to be endless; the position is unchanged.
    Interrupted,
}

impl MoveOutcome {
    /// Total seeds that left the board during the move.
    #[must_use]
    pub fn seeds_taken(&self) -> u8 {
        self.taken[0] + self.taken[1]
    }
}

/// Why a move cannot be played.
///
/// It is `#[non_exhaustive]`: a later version may add variants, so a `match` outside this
/// crate needs a wildcard arm. Naming every variant is not enough:
/// ```compile_fail,E0004
/// use pussa_rules::IllegalReason;
/// fn kind(e: &IllegalReason) -> u8 {
///     match e {
///         IllegalReason::NotYourHole { .. } => 0,
///         IllegalReason::Empty { .. } => 0,
///         IllegalReason::Closed { .. } => 0,
///         IllegalReason::Endless { .. } => 0,
///         IllegalReason::RoundOver { .. } => 0,
///         IllegalReason::GameOver { .. } => 0,
///         IllegalReason::MatchOver { .. } => 0,
///     }
/// }
/// ```
/// With the wildcard it compiles:
/// ```
/// use pussa_rules::IllegalReason;
/// fn kind(e: &IllegalReason) -> u8 {
///     match e {
///         IllegalReason::NotYourHole { .. } => 0,
///         IllegalReason::Empty { .. } => 0,
///         IllegalReason::Closed { .. } => 0,
///         IllegalReason::Endless { .. } => 0,
///         IllegalReason::RoundOver { .. } => 0,
///         IllegalReason::GameOver { .. } => 0,
///         IllegalReason::MatchOver { .. } => 0,
///         _ => 1,
///     }
/// }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum IllegalReason {
    /// The hole is in the other player's row.
    NotYourHole {
        /// Who is to move.
        to_move: Side,
    },
    /// The hole holds no seeds.
    Empty,
    /// The hole is closed for this round.
    Closed,
    /// Sowing from this hole never ends: a board recurs with the same hole about to be lifted.
    Endless,
    /// The round is over; a match must start its next round first.
    RoundOver,
    /// The single game is over ("the game is over: South won").
    GameOver {
        /// Who won, `None` for a draw.
        winner: Option<Side>,
    },
    /// The match is over ("the match is over: South won").
    MatchOver {
        /// Who won, `None` for a draw.
        winner: Option<Side>,
    },
}

impl fmt::Display for IllegalReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IllegalReason::NotYourHole { to_move } => {
                write!(f, "not your hole: {to_move} is to move and owns ")?;
                f.write_str(if *to_move == Side::South {
                    "A-G"
                } else {
                    "a-g"
                })
            }
            IllegalReason::Empty => f.write_str("the hole is empty"),
            IllegalReason::Closed => f.write_str("the hole is closed this round"),
            IllegalReason::Endless => f.write_str(
                "endless sowing: the same board recurs with the same hole about to be lifted",
            ),
            IllegalReason::RoundOver => f.write_str("the round is over"),
            IllegalReason::GameOver { winner } => write!(f, "the game is over: {}", Won(*winner)),
            IllegalReason::MatchOver { winner } => {
                write!(f, "the match is over: {}", Won(*winner))
            }
        }
    }
}

/// A result as the messages after the end say it: `South won`, `a draw`.
struct Won(Option<Side>);

impl fmt::Display for Won {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(side) => write!(f, "{side} won"),
            None => f.write_str("a draw"),
        }
    }
}

/// A move that cannot be played, with the reason. The position it was tried on is unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
#[error("illegal move {mv}: {reason}")]
pub struct IllegalMove {
    /// The move tried.
    pub mv: Hole,
    /// Why it is illegal.
    pub reason: IllegalReason,
}

/// The state of one round: seeds in every hole, closed holes, what each player holds off the
/// board, and who is to move. A small `Copy` value (the board is packed one byte a hole).
///
/// A `Position` knows nothing of history, so the repetition rule and the end of the round are
/// left to [`crate::GameState`] (or to a search that keeps its own path).
///
/// # Examples
/// ```
/// use pussa_rules::{Game, Hole, Position};
/// let mut pos = Position::start(Game::WalakPussa);
/// pos.play(Hole::from_letter('A')?)?;
/// assert_eq!(pos.stores(), [6, 0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    board: [u8; 16],
    open: u16,
    stores: [u8; 2],
    to_move: Side,
    game: Game,
}

impl Position {
    /// The start of a single game: every hole filled, South to move.
    #[must_use]
    pub fn start(game: Game) -> Position {
        Position::start_with(game, Side::South)
    }

    /// The start of a single game with `first` to move.
    ///
    /// # Examples
    /// ```
    /// use pussa_rules::{Game, Position, Side};
    /// let pos = Position::start_with(Game::PasuPondi, Side::North);
    /// assert_eq!(pos.to_move(), Side::North);
    /// assert_eq!(pos.board(), [5; 14]);
    /// assert_eq!((pos.stores(), pos.closed_mask()), ([0, 0], 0));
    /// assert_eq!(pos.legal_moves().to_string(), "a b c d e f g");
    /// ```
    #[must_use]
    pub fn start_with(game: Game, first: Side) -> Position {
        Position {
            board: (ONES * u128::from(game.seeds_per_hole())).to_le_bytes(),
            open: ALL_OPEN,
            stores: [0, 0],
            to_move: first,
            game,
        }
    }

    /// Builds a position from raw parts without checking the seed total or the closed holes.
    /// Prefer [`crate::Setup`], which validates. Seeds in closed holes are dropped, and so are
    /// bits of `closed` above the 14 holes.
    ///
    /// Precondition: the seeds in the open holes and both stores add up to at most 255 (any
    /// valid position of the games, 56 to 98 seeds, does; fewer or more seeds than the game's
    /// total are otherwise fine: the rules sow and capture them like any other). The counts
    /// are bytes: with more, sowing and capturing overflow them.
    ///
    /// # Panics
    /// Never here. With the precondition broken, later moves ([`Position::play`],
    /// [`Position::legal_moves`], …) panic in debug builds (`attempt to add with overflow`);
    /// in release builds their counts silently wrap and the results are wrong.
    ///
    /// # Examples
    /// ```
    /// use pussa_rules::{Game, Hole, Position, Side};
    /// let mut board = [0; 14];
    /// board[0] = 3; // A, closed below: its seeds are dropped
    /// board[6] = 1; // G
    /// board[13] = 2; // g
    /// let pos = Position::from_parts_unchecked(Game::RajaPasu, board, 0b1, [45, 47], Side::South);
    /// assert!(!pos.is_open(Hole::from_letter('A')?));
    /// assert_eq!(pos.seeds_on_board(), 3);
    /// assert_eq!(pos.legal_moves().to_string(), "G");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn from_parts_unchecked(
        game: Game,
        board: [u8; 14],
        closed: u16,
        stores: [u8; 2],
        to_move: Side,
    ) -> Position {
        let open = !closed & ALL_OPEN;
        let mut packed = [0u8; 16];
        for (i, &s) in board.iter().enumerate() {
            if open & (1 << i) != 0 {
                packed[i] = s;
            }
        }
        Position {
            board: packed,
            open,
            stores,
            to_move,
            game,
        }
    }

    /// The game being played.
    #[inline]
    #[must_use]
    pub fn game(&self) -> Game {
        self.game
    }

    /// Who is to move.
    #[inline]
    #[must_use]
    pub fn to_move(&self) -> Side {
        self.to_move
    }

    /// Seeds in `hole` (0 if closed).
    #[inline]
    #[must_use]
    pub fn seeds(&self, hole: Hole) -> u8 {
        self.board[hole.index()]
    }

    /// Seeds in every hole, in index order `A`..`G`, `a`..`g`.
    #[must_use]
    pub fn board(&self) -> [u8; 14] {
        let mut b = [0; 14];
        b.copy_from_slice(&self.board[..14]);
        b
    }

    /// The packed board: byte `i` holds the seeds of hole `i`; bytes 14 and 15 are zero.
    #[inline]
    #[must_use]
    pub fn packed_board(&self) -> u128 {
        packed(&self.board)
    }

    /// True if `hole` is open this round.
    #[inline]
    #[must_use]
    pub fn is_open(&self, hole: Hole) -> bool {
        self.open & (1 << hole.index()) != 0
    }

    /// Bit mask of the open holes.
    #[inline]
    #[must_use]
    pub fn open_mask(&self) -> u16 {
        self.open
    }

    /// Bit mask of the closed holes.
    #[inline]
    #[must_use]
    pub fn closed_mask(&self) -> u16 {
        !self.open & ALL_OPEN
    }

    /// Seeds each player holds off the board, `[South, North]`.
    #[inline]
    #[must_use]
    pub fn stores(&self) -> [u8; 2] {
        self.stores
    }

    /// Seeds `side` holds off the board.
    #[inline]
    #[must_use]
    pub fn store(&self, side: Side) -> u8 {
        self.stores[side.index()]
    }

    /// Seeds on the board in `side`'s row.
    #[inline]
    #[must_use]
    pub fn row_seeds(&self, side: Side) -> u32 {
        let b = packed(&self.board);
        let row = match side {
            Side::South => b & SOUTH_BYTES,
            Side::North => b >> 56,
        };
        sum_bytes(row)
    }

    /// Seeds on the whole board.
    #[inline]
    #[must_use]
    pub fn seeds_on_board(&self) -> u32 {
        sum_bytes(packed(&self.board))
    }

    /// A 64-bit hash of what decides the rest of the round: the board, the closed holes and the
    /// side to move. The stores and the game are left out: two positions of one round that
    /// differ only in the stores play on alike (the search keys its table with this, and adds
    /// the stores itself where a match needs them).
    ///
    /// This is not [`Hash`](core::hash::Hash): `Position`'s derived `Hash` and `Eq` cover every
    /// field, stores and game included, so `a == b` implies
    /// `a.round_hash() == b.round_hash()`, but not the other way round (positions with
    /// different stores share a `round_hash`, and distinct boards may collide, as with any
    /// 64-bit hash). A `HashMap<Position, _>` and a table keyed by `round_hash` therefore group
    /// positions differently. The value is fixed: the same position gives the same `round_hash`
    /// on every run and platform.
    ///
    /// # Examples
    /// ```
    /// use std::collections::HashSet;
    /// use pussa_rules::{Game, Position, Side};
    /// let a = Position::start(Game::RajaPasu);
    /// let b = Position::from_parts_unchecked(Game::RajaPasu, a.board(), 0, [5, 5], Side::South);
    /// assert_ne!(a, b); // the stores differ
    /// assert_eq!(a.round_hash(), b.round_hash()); // the rest of the round does not
    /// // `Position` is also an ordinary `Hash` key, stores included:
    /// let set: HashSet<Position> = [a, b].into_iter().collect();
    /// assert_eq!(set.len(), 2);
    /// ```
    #[inline]
    #[must_use]
    pub fn round_hash(&self) -> u64 {
        let b = packed(&self.board);
        let lo = b as u64;
        let hi =
            (b >> 64) as u64 | u64::from(self.open) << 48 | (self.to_move.index() as u64) << 63;
        fmix64(lo ^ fmix64(hi ^ 0x9e37_79b9_7f4a_7c15).rotate_left(17))
    }

    /// The key the repetition rule compares: board, side to move (closed holes are fixed within
    /// a round). Exact, not a hash.
    #[inline]
    #[must_use]
    pub fn repetition_key(&self) -> u128 {
        packed(&self.board) | (self.to_move.index() as u128) << 120
    }

    /// Holes the player to move may lift from: open, non-empty, in their row. Each of them is a
    /// legal move unless its sowing is endless (see [`Position::legal_moves`]).
    #[inline]
    #[must_use]
    pub fn candidates(&self) -> Moves {
        let row = SOUTH_ROW << (7 * self.to_move.index());
        Moves(nonzero_holes(&self.board) & row & self.open)
    }

    /// The legal moves: the candidates whose sowing ends. This sows each candidate once.
    ///
    /// # Examples
    /// ```
    /// use pussa_rules::{Game, Hole, Position};
    /// let mut pos = Position::start(Game::WalakPussa);
    /// let moves = pos.legal_moves();
    /// assert_eq!(moves.len(), 7);
    /// assert_eq!(moves.to_string(), "A B C D E F G");
    /// pos.play(Hole::from_letter('A')?)?;
    /// assert!(pos.legal_moves().into_iter().all(|h| h.owner() == pos.to_move()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn legal_moves(&self) -> Moves {
        let mut mask = 0u16;
        for h in self.candidates() {
            let mut p = *self;
            if p.play_unchecked(h).is_some() {
                mask |= 1 << h.index();
            }
        }
        Moves(mask)
    }

    /// True if the player to move has at least one legal move (stops at the first found).
    #[must_use]
    pub fn has_legal_move(&self) -> bool {
        self.candidates().any(|h| {
            let mut p = *self;
            p.play_unchecked(h).is_some()
        })
    }

    /// Why `mv` is not a candidate, if it is not.
    fn check_candidate(&self, mv: Hole) -> Result<(), IllegalMove> {
        let reason = if mv.owner() != self.to_move {
            IllegalReason::NotYourHole {
                to_move: self.to_move,
            }
        } else if !self.is_open(mv) {
            IllegalReason::Closed
        } else if self.seeds(mv) == 0 {
            IllegalReason::Empty
        } else {
            return Ok(());
        };
        Err(IllegalMove { mv, reason })
    }

    /// Plays `mv` for the player to move and passes the turn.
    ///
    /// # Errors
    /// [`IllegalMove`] naming the move and the reason (not your hole, closed, empty, endless);
    /// the position is then unchanged.
    ///
    /// # Examples
    /// ```
    /// use pussa_rules::{Game, Hole, IllegalReason, Position};
    /// let mut pos = Position::start(Game::RajaPasu);
    /// let err = pos.play(Hole::from_letter('a')?).unwrap_err();
    /// assert!(matches!(err.reason, IllegalReason::NotYourHole { .. }));
    /// assert_eq!(pos, Position::start(Game::RajaPasu));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn play(&mut self, mv: Hole) -> Result<MoveOutcome, IllegalMove> {
        self.play_traced(mv, &mut NoTrace)
    }

    /// [`Position::play`], reporting every event of the move to `trace`.
    ///
    /// An endless move reports nothing: with a receiver that takes events
    /// ([`Trace::ENABLED`]) the move is first sown without a trace, and only a move that ends is
    /// sown again into `trace`. The cycle of an endless move can be hundreds of millions of
    /// laps long, so its events are never kept; a move that ends costs two sowings.
    ///
    /// # Errors
    /// As [`Position::play`]; `trace` then received nothing.
    pub fn play_traced<T: Trace>(
        &mut self,
        mv: Hole,
        trace: &mut T,
    ) -> Result<MoveOutcome, IllegalMove> {
        self.check_candidate(mv)?;
        let endless = IllegalMove {
            mv,
            reason: IllegalReason::Endless,
        };
        if T::ENABLED {
            let mut q = *self;
            if !matches!(q.sow(mv.index(), &mut NoTrace), Sown::Ends(_)) {
                return Err(endless);
            }
        }
        let mut p = *self;
        match p.sow(mv.index(), &mut Uninterrupted(trace)) {
            Sown::Ends(outcome) => {
                *self = p;
                Ok(outcome)
            }
            Sown::Endless | Sown::Interrupted => Err(endless),
        }
    }

    /// [`Position::play_unchecked`] with a receiver that may interrupt a long sowing
    /// ([`Trace::interrupt`], asked every [`INTERRUPT_LAPS`] laps): the search's way of
    /// honouring its deadline while a move with a very long cycle is being proven endless.
    /// `mv` must be a candidate, as for [`Position::play_unchecked`]. Every event sown is
    /// reported to `trace`, for an endless move those of the laps sown until the recurrence
    /// was found (unlike [`Position::play_traced`]).
    ///
    /// # Examples
    /// ```
    /// use pussa_rules::{Event, Position, Setup, Sowing, Trace};
    /// // Gives up after the first question.
    /// struct Impatient;
    /// impl Trace for Impatient {
    ///     const ENABLED: bool = false;
    ///     const INTERRUPTS: bool = true;
    ///     fn event(&mut self, _: Event) {}
    ///     fn interrupt(&mut self, _laps: u32) -> bool { true }
    /// }
    /// let pos: Position = "4,3,7,6,5,4,5/2,3,2,3,5,4,3 0 0 N 1 walak-pussa".parse::<Setup>()?.position()?;
    /// let (a, e) = ("a".parse()?, "e".parse()?);
    /// // `a` ends within a few laps; `e`'s cycle is millions of laps long.
    /// assert!(matches!(pos.clone().try_play_unchecked(a, &mut Impatient), Sowing::Ends(_)));
    /// let mut p = pos;
    /// assert_eq!(p.try_play_unchecked(e, &mut Impatient), Sowing::Interrupted);
    /// assert_eq!(p, pos);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn try_play_unchecked<T: Trace>(&mut self, mv: Hole, trace: &mut T) -> Sowing {
        debug_assert!(self.check_candidate(mv).is_ok(), "{mv} is not a candidate");
        let mut p = *self;
        match p.sow(mv.index(), trace) {
            Sown::Ends(out) => {
                *self = p;
                Sowing::Ends(out)
            }
            Sown::Endless => Sowing::Endless,
            Sown::Interrupted => Sowing::Interrupted,
        }
    }

    /// The fast path for search: plays `mv`, which must be a candidate (an open, non-empty hole
    /// of the player to move, as [`Position::candidates`] lists). Returns `None`, leaving the
    /// position unchanged, if the move is endless.
    ///
    /// # Panics
    /// In debug builds, if `mv` is not a candidate (`"a is not a candidate"`). In release
    /// builds that is not checked, and the result is unspecified: the hole is lifted and sown
    /// as if it were the mover's (an empty hole sows nothing and may still capture, a hole of
    /// the opponent's row is sown for the mover), so a wrong candidate set silently gives wrong
    /// positions. [`Position::play`] checks.
    #[inline]
    pub fn play_unchecked(&mut self, mv: Hole) -> Option<MoveOutcome> {
        debug_assert!(self.check_candidate(mv).is_ok(), "{mv} is not a candidate");
        let mut p = *self;
        match p.sow(mv.index(), &mut NoTrace) {
            Sown::Ends(out) => {
                *self = p;
                Some(out)
            }
            Sown::Endless | Sown::Interrupted => None,
        }
    }

    /// Sows from hole `from` (a candidate) and passes the turn. Unless it ends, the position
    /// is left half-sown and must be discarded by the caller.
    #[inline]
    fn sow<T: Trace>(&mut self, from: usize, t: &mut T) -> Sown {
        let game = self.game;
        let fours = game.fours();
        let dir = game.direction();
        let open = self.open;
        let mover = self.to_move;
        let bulk = !T::ENABLED && !fours;
        let ring = open.count_ones();
        let open_ones = if open == ALL_OPEN {
            ONES
        } else {
            ONES & byte_mask(open)
        };
        let mut b = self.board;
        let mut taken = [0u8; 2];

        // Brent's cycle detection over the states (board, hole about to be lifted).
        let mut saved_board = b;
        let mut saved_hole = from;
        let mut power = 1u32;
        let mut steps = 0u32;

        let mut lift = from;
        let mut relay = false;
        let mut laps = 0u32;
        loop {
            let seeds = b[lift];
            b[lift] = 0;
            if T::ENABLED {
                t.event(Event::Lift {
                    hole: Hole::ALL[lift],
                    seeds,
                    relay,
                });
            }
            laps += 1;
            let mut h = lift;
            if bulk {
                let s = u32::from(seeds);
                let full = s / ring;
                let rem = s % ring;
                if full != 0 {
                    b = (packed(&b) + open_ones * u128::from(full as u8)).to_le_bytes();
                }
                for _ in 0..rem {
                    h = next_open(dir, open, h);
                    b[h] += 1;
                }
            } else {
                for _ in 0..seeds {
                    h = next_open(dir, open, h);
                    b[h] += 1;
                    let now = b[h];
                    if T::ENABLED {
                        t.event(Event::Drop {
                            hole: Hole::ALL[h],
                            now,
                        });
                    }
                    if fours && now == 4 {
                        b[h] = 0;
                        let owner = Side::of_index(h);
                        taken[owner.index()] += 4;
                        if T::ENABLED {
                            t.event(Event::Four {
                                hole: Hole::ALL[h],
                                owner,
                            });
                        }
                    }
                }
            }
            let n = next_open(dir, open, h);
            if b[n] != 0 {
                if b == saved_board && n == saved_hole {
                    return Sown::Endless;
                }
                if T::INTERRUPTS && laps.is_multiple_of(INTERRUPT_LAPS) && t.interrupt(laps) {
                    return Sown::Interrupted;
                }
                steps += 1;
                if steps == power {
                    saved_board = b;
                    saved_hole = n;
                    power <<= 1;
                    steps = 0;
                }
                lift = n;
                relay = true;
                continue;
            }
            if T::ENABLED {
                t.event(Event::Stop {
                    last: Hole::ALL[h],
                    empty: Hole::ALL[n],
                });
            }
            let mut c = next_open(dir, open, n);
            if c != h && b[c] != 0 {
                let mut chained = false;
                loop {
                    let seeds = b[c];
                    b[c] = 0;
                    taken[mover.index()] += seeds;
                    if T::ENABLED {
                        t.event(Event::Capture {
                            hole: Hole::ALL[c],
                            seeds,
                            by: mover,
                            chained,
                        });
                    }
                    if !game.chain_capture() {
                        break;
                    }
                    let e = next_open(dir, open, c);
                    let f = next_open(dir, open, e);
                    if b[e] == 0 && b[f] != 0 && f != h {
                        c = f;
                        chained = true;
                    } else {
                        break;
                    }
                }
            }
            break;
        }
        self.board = b;
        self.stores[0] += taken[0];
        self.stores[1] += taken[1];
        self.to_move = mover.other();
        Sown::Ends(MoveOutcome { taken, laps })
    }

    /// Ends the round: moves every seed left on the board to a store by the rule for `reason`,
    /// and returns what each side took.
    pub(crate) fn sweep(&mut self, each_own_row: bool, taker: Side) -> [u8; 2] {
        let swept = if each_own_row {
            [
                self.row_seeds(Side::South) as u8,
                self.row_seeds(Side::North) as u8,
            ]
        } else {
            let mut s = [0, 0];
            s[taker.index()] = self.seeds_on_board() as u8;
            s
        };
        self.stores[0] += swept[0];
        self.stores[1] += swept[1];
        self.board = [0; 16];
        swept
    }

    /// Lays out a new round: each side fills as many holes as its store allows (at most 7).
    /// Returns the holes filled by each side.
    pub(crate) fn refill(&mut self, starter: Side) -> [u8; 2] {
        let game = self.game;
        let sph = game.seeds_per_hole();
        let mut filled = [0u8; 2];
        let mut closed = 0u16;
        let mut board = [0u8; 16];
        for side in Side::BOTH {
            let k = (self.stores[side.index()] / sph).min(7);
            filled[side.index()] = k;
            self.stores[side.index()] -= k * sph;
            let side_closed = game.closed_holes(side, k);
            closed |= side_closed;
            let row = SOUTH_ROW << (7 * side.index());
            let mut r = row & !side_closed;
            while r != 0 {
                let i = r.trailing_zeros();
                board[i as usize] = sph;
                r &= r - 1;
            }
        }
        self.board = board;
        self.open = !closed & ALL_OPEN;
        self.to_move = starter;
        filled
    }
}

/// The next open hole after `h` in direction `dir`, given the open-hole mask.
#[inline(always)]
pub(crate) fn next_open(dir: Direction, open: u16, h: usize) -> usize {
    match dir {
        Direction::Counterclockwise => {
            let above = open & !((2u32 << h) - 1) as u16;
            if above != 0 {
                above.trailing_zeros() as usize
            } else {
                open.trailing_zeros() as usize
            }
        }
        Direction::Clockwise => {
            let below = open & ((1u16 << h) - 1);
            if below != 0 {
                15 - below.leading_zeros() as usize
            } else {
                15 - open.leading_zeros() as usize
            }
        }
    }
}

/// Bit `i` set for every hole `i` holding seeds (SWAR: every count is below 128).
#[inline(always)]
fn nonzero_holes(board: &[u8; 16]) -> u16 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const GATHER: u64 = 0x0102_0408_1020_4080;
    let x = packed(board);
    let half = |v: u64| -> u64 {
        let high = (((v & LOW7) + LOW7) | v) & !LOW7;
        ((high >> 7).wrapping_mul(GATHER)) >> 56
    };
    let lo = half(x as u64);
    let hi = half((x >> 64) as u64);
    // The multiply gathers byte k's flag (bit 8k) into bit 56 + k.
    (lo as u16 | (hi as u16) << 8) & ALL_OPEN
}

#[inline(always)]
fn sum_bytes(x: u128) -> u32 {
    // Every byte is at most 98, so pairwise sums never overflow a 16-bit lane.
    let lo = x as u64;
    let hi = (x >> 64) as u64;
    let m = 0x00ff_00ff_00ff_00ffu64;
    let s = (lo & m) + ((lo >> 8) & m) + (hi & m) + ((hi >> 8) & m);
    (s.wrapping_mul(0x0001_0001_0001_0001) >> 48) as u32
}

#[inline(always)]
fn fmix64(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^= k >> 33;
    k
}

/// A position is written as its position string (see [`crate::Setup`]), as `Debug` shows it:
/// JSON `"2,1,7,7,7,0,7/0,0,6,1,6,6,0 6 0 N 1 walak-pussa"`. A position does not know its round,
/// so the round field is 1, or 2 when holes are closed (closed holes exist only from round 2);
/// reading takes any valid position string, of any round, and keeps its position. Reading
/// validates as [`crate::Setup::position_ignoring_reachability`] does, so a position built by
/// [`Position::from_parts_unchecked`] that breaks the rules (a wrong seed total, say) is written
/// but not read back.
///
/// # Examples
/// ```
/// use pussa_rules::{Game, Hole, Position};
/// let mut pos = Position::start(Game::WalakPussa);
/// pos.play(Hole::from_letter('A')?)?;
/// let json = serde_json::to_string(&pos)?;
/// assert_eq!(json, r#""2,1,7,7,7,0,7/0,0,6,1,6,6,0 6 0 N 1 walak-pussa""#);
/// assert_eq!(serde_json::from_str::<Position>(&json)?, pos);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
impl serde::Serialize for Position {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&self.as_setup())
    }
}

impl<'de> serde::Deserialize<'de> for Position {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Position, D::Error> {
        <crate::Setup as serde::Deserialize>::deserialize(d)?
            .position_ignoring_reachability()
            .map_err(serde::de::Error::custom)
    }
}

impl Position {
    /// The position as serde and `Debug` write it: round 1, or 2 when holes are closed (a
    /// position does not know its round; closed holes exist only from round 2), so the text
    /// always reads back.
    fn as_setup(&self) -> crate::Setup {
        let round = if self.closed_mask() == 0 { 1 } else { 2 };
        crate::Setup::from_position(self, round)
    }
}

/// `Position(` and the position string serde writes `)`: round 1, or 2 when holes are closed,
/// so the text can be pasted back into [`crate::Setup`].
impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({})", self.as_setup())
    }
}

impl fmt::Display for Position {
    /// The board as South sees it: North's row on top (`g` … `a`), South's below (`A` … `G`),
    /// closed holes as `x`, and the stores.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let cell = |i: usize| -> String {
            if self.open & (1 << i) == 0 {
                format!("{:>3}", "x")
            } else {
                format!("{:>3}", self.board[i])
            }
        };
        write!(f, "      ")?;
        for c in ['g', 'f', 'e', 'd', 'c', 'b', 'a'] {
            write!(f, "{c:>3}")?;
        }
        writeln!(f)?;
        write!(f, "North ")?;
        for i in (7..14).rev() {
            f.write_str(&cell(i))?;
        }
        writeln!(f, "   store {}", self.stores[1])?;
        write!(f, "South ")?;
        for i in 0..7 {
            f.write_str(&cell(i))?;
        }
        writeln!(f, "   store {}", self.stores[0])?;
        write!(f, "      ")?;
        for c in ['A', 'B', 'C', 'D', 'E', 'F', 'G'] {
            write!(f, "{c:>3}")?;
        }
        writeln!(f)?;
        write!(f, "{} to move", self.to_move)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_open_wraps_both_ways_and_skips_closed() {
        let ccw = Direction::Counterclockwise;
        let cw = Direction::Clockwise;
        assert_eq!(next_open(ccw, ALL_OPEN, 13), 0);
        assert_eq!(next_open(ccw, ALL_OPEN, 6), 7);
        assert_eq!(next_open(cw, ALL_OPEN, 0), 13);
        assert_eq!(next_open(cw, ALL_OPEN, 7), 6);
        let open = ALL_OPEN & !0b11 & !(1 << 7); // A, B, a closed
        assert_eq!(next_open(ccw, open, 13), 2);
        assert_eq!(next_open(ccw, open, 6), 8);
        assert_eq!(next_open(cw, open, 2), 13);
        assert_eq!(next_open(cw, open, 8), 6);
    }

    #[test]
    fn nonzero_holes_matches_a_plain_loop() {
        let mut rng = crate::Rng::new(3);
        for _ in 0..10_000 {
            let mut b = [0u8; 16];
            for x in b.iter_mut().take(14) {
                *x = match rng.below(4) {
                    0 => 0,
                    1 => 1,
                    2 => rng.below(99) as u8,
                    _ => 98,
                };
            }
            let plain = (0..14).filter(|&i| b[i] != 0).fold(0u16, |m, i| m | 1 << i);
            assert_eq!(nonzero_holes(&b), plain, "{b:?}");
        }
    }

    #[test]
    fn sum_bytes_adds_every_hole() {
        let p = Position::start(Game::RajaPasu);
        assert_eq!(p.seeds_on_board(), 98);
        assert_eq!(p.row_seeds(Side::South), 49);
        assert_eq!(p.row_seeds(Side::North), 49);
    }
}
