//! Small `Copy` vocabulary types: [`Side`], [`Hole`], [`Game`], [`Moves`].

use core::fmt;
use core::str::FromStr;

use serde::{Deserialize, Serialize};

/// One of the two players. South owns holes `A`..`G` (indices 0..6), North owns `a`..`g` (7..13).
///
/// In JSON (serde) a side is its letter, `"S"` or `"N"`, as everywhere in pussa's JSON: the
/// API, `pussa replay --json`, `explain --json`, tournament results. `"South"` and `"North"` are
/// read too.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Side {
    /// The player whose row is `A`..`G`; moves first by default.
    #[serde(rename = "S", alias = "South")]
    South = 0,
    /// The player whose row is `a`..`g`.
    #[serde(rename = "N", alias = "North")]
    North = 1,
}

impl Side {
    /// Both sides, South first.
    pub const BOTH: [Side; 2] = [Side::South, Side::North];

    /// The opponent.
    #[inline]
    #[must_use]
    pub const fn other(self) -> Side {
        match self {
            Side::South => Side::North,
            Side::North => Side::South,
        }
    }

    /// 0 for South, 1 for North: the index into per-side arrays such as the stores.
    #[inline]
    #[must_use]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// `'S'` or `'N'`.
    #[must_use]
    pub const fn letter(self) -> char {
        match self {
            Side::South => 'S',
            Side::North => 'N',
        }
    }

    /// Parses `S`/`N` (also `south`/`north`, any case).
    ///
    /// # Errors
    /// Returns [`ParseSideError`] for anything else.
    pub fn parse(s: &str) -> Result<Side, ParseSideError> {
        match s.to_ascii_lowercase().as_str() {
            "s" | "south" => Ok(Side::South),
            "n" | "north" => Ok(Side::North),
            _ => Err(ParseSideError(s.to_string())),
        }
    }

    /// The side whose row holds board index `i` (0..14).
    #[inline]
    #[must_use]
    pub const fn of_index(i: usize) -> Side {
        if i < 7 {
            Side::South
        } else {
            Side::North
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::South => "South",
            Side::North => "North",
        })
    }
}

impl FromStr for Side {
    type Err = ParseSideError;
    fn from_str(s: &str) -> Result<Side, ParseSideError> {
        Side::parse(s)
    }
}

/// A side name that is neither `S` nor `N`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown side '{0}': expected S (South) or N (North)")]
pub struct ParseSideError(pub String);

/// A hole of the 14-hole ring: index 0..6 is South's `A`..`G`, 7..13 is North's `a`..`g`.
///
/// [`Display`](fmt::Display) writes the move letter (`A`); [`Debug`](fmt::Debug) writes it
/// too, as `Hole(A)`, so `{:?}`, `dbg!` and failed `assert_eq!`s name holes as the notation
/// does (the board index is [`Hole::index`]). In JSON (serde) a hole is its letter, `"A"`.
///
/// # Examples
/// ```
/// use pussa_rules::{Hole, IllegalMove, IllegalReason};
/// let c = Hole::from_letter('c')?;
/// assert_eq!(format!("{c} {c:?}"), "c Hole(c)");
/// let err = IllegalMove { mv: c, reason: IllegalReason::Empty };
/// assert_eq!(format!("{err:?}"), "IllegalMove { mv: Hole(c), reason: Empty }");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Hole(u8);

impl fmt::Debug for Hole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Hole({})", self.letter())
    }
}

impl Hole {
    /// Every hole in index order.
    pub const ALL: [Hole; 14] = {
        let mut a = [Hole(0); 14];
        let mut i = 0;
        while i < 14 {
            a[i] = Hole(i as u8);
            i += 1;
        }
        a
    };

    /// The hole with board index `i`, if `i < 14`.
    #[inline]
    #[must_use]
    pub const fn new(i: usize) -> Option<Hole> {
        if i < 14 {
            Some(Hole(i as u8))
        } else {
            None
        }
    }

    /// The hole of `side` at position `k` (0..7) from that side's own left.
    ///
    /// # Panics
    /// Panics if `k >= 7`.
    #[must_use]
    pub const fn of_side(side: Side, k: usize) -> Hole {
        assert!(k < 7, "a row has 7 holes");
        Hole((side.index() * 7 + k) as u8)
    }

    /// Board index 0..14.
    #[inline]
    #[must_use]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The owner of the row this hole is in.
    #[inline]
    #[must_use]
    pub const fn owner(self) -> Side {
        Side::of_index(self.0 as usize)
    }

    /// Position 0..7 in the owner's row, from the owner's left.
    #[must_use]
    pub const fn column(self) -> usize {
        (self.0 % 7) as usize
    }

    /// The move letter: `A`..`G` for South's holes, `a`..`g` for North's.
    #[must_use]
    pub const fn letter(self) -> char {
        if self.0 < 7 {
            (b'A' + self.0) as char
        } else {
            (b'a' + self.0 - 7) as char
        }
    }

    /// The hole named by a move letter. [`str::parse`] reads the same one-letter names and
    /// [`Display`](fmt::Display) writes them.
    ///
    /// # Errors
    /// [`ParseHoleError`] for anything but `A`..`G` and `a`..`g`.
    ///
    /// # Examples
    /// ```
    /// use pussa_rules::{Hole, Side};
    /// let c = Hole::from_letter('c')?;
    /// assert_eq!((c.index(), c.owner(), c.column()), (9, Side::North, 2));
    /// assert_eq!(c.to_string(), "c");
    /// assert_eq!("G".parse::<Hole>()?, Hole::of_side(Side::South, 6));
    /// assert!(Hole::from_letter('h').is_err());
    /// assert!("Ab".parse::<Hole>().is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_letter(c: char) -> Result<Hole, ParseHoleError> {
        match c {
            'A'..='G' => Ok(Hole(c as u8 - b'A')),
            'a'..='g' => Ok(Hole(c as u8 - b'a' + 7)),
            _ => Err(ParseHoleError(c.to_string())),
        }
    }
}

impl fmt::Display for Hole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

impl FromStr for Hole {
    type Err = ParseHoleError;
    fn from_str(s: &str) -> Result<Hole, ParseHoleError> {
        let mut it = s.chars();
        match (it.next(), it.next()) {
            (Some(c), None) => Hole::from_letter(c).map_err(|_| ParseHoleError(s.to_string())),
            _ => Err(ParseHoleError(s.to_string())),
        }
    }
}

impl Serialize for Hole {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_char(self.letter())
    }
}

impl<'de> Deserialize<'de> for Hole {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Hole, D::Error> {
        // Reads what `serialize` writes (a char) in every format: self-describing ones such as
        // JSON give a one-letter string, compact ones the char itself.
        struct Letter;
        impl serde::de::Visitor<'_> for Letter {
            type Value = Hole;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a hole letter, A-G or a-g")
            }
            fn visit_char<E: serde::de::Error>(self, c: char) -> Result<Hole, E> {
                Hole::from_letter(c).map_err(E::custom)
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Hole, E> {
                s.parse().map_err(E::custom)
            }
        }
        d.deserialize_char(Letter)
    }
}

/// A move or hole name that is not a letter `A`..`G` or `a`..`g`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown move '{0}': moves are A-G (South's holes) and a-g (North's holes)")]
pub struct ParseHoleError(pub String);

/// Sowing direction around the ring.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Direction {
    /// Increasing index: `A`→`G`, then `a`→`g`, then `A`.
    Counterclockwise,
    /// Decreasing index.
    Clockwise,
}

/// Which end of a row closes first when a player cannot fill all seven holes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ClosingEnd {
    /// From the owner's left end: `A`, `B`, … for South; `a`, `b`, … for North.
    Left,
    /// From the owner's right end: `G`, `F`, … for South; `g`, `f`, … for North.
    Right,
}

/// What happens when the player to move has no legal move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum StuckRule {
    /// The other player (the one who just moved) takes every seed left on the board.
    OtherTakesAll,
    /// Each player takes the seeds in their own row.
    EachTakesOwnRow,
}

/// Who starts the next round of a match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum StarterRule {
    /// Raja Pasu: whoever took the leftover seeds when the round ended because a player was
    /// stuck; otherwise the player who did not start the previous round.
    TakerOfLeftovers,
    /// Walak-pussa: the player holding fewer seeds; if equal, the one who did not start last.
    FewerSeeds,
    /// Pasu Pondi: the players alternate.
    Alternate,
}

/// One of the supported games (rule sets).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Game {
    /// Walak-pussa (Sri Lanka; Parker 1909): 4 seeds a hole, counterclockwise, chained captures.
    WalakPussa,
    /// Raja Pasu (India and Sri Lanka; de Voogt 2000): 7 seeds a hole, counterclockwise, fours.
    RajaPasu,
    /// Pasu Pondi (Tamil Nadu; Saraswathi 1995): 5 seeds a hole, clockwise, fours.
    PasuPondi,
    /// Pasu Pondi played with 6 seeds a hole.
    #[serde(rename = "pasu-pondi-6")]
    PasuPondi6,
}

impl Game {
    /// Every supported game.
    pub const ALL: [Game; 4] = [
        Game::WalakPussa,
        Game::RajaPasu,
        Game::PasuPondi,
        Game::PasuPondi6,
    ];

    /// The identifier used on the command line and in notation, e.g. `walak-pussa`; it is what
    /// [`Display`](fmt::Display) writes and [`str::parse`] reads (also with `_` or spaces, any
    /// case).
    ///
    /// # Examples
    /// ```
    /// use pussa_rules::Game;
    /// assert_eq!(Game::PasuPondi6.name(), "pasu-pondi-6");
    /// assert_eq!("Raja Pasu".parse::<Game>()?, Game::RajaPasu);
    /// for g in Game::ALL {
    ///     assert_eq!(g.to_string().parse::<Game>()?, g);
    /// }
    /// assert!("oware".parse::<Game>().is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Game::WalakPussa => "walak-pussa",
            Game::RajaPasu => "raja-pasu",
            Game::PasuPondi => "pasu-pondi",
            Game::PasuPondi6 => "pasu-pondi-6",
        }
    }

    /// The name for people, e.g. `Raja Pasu`.
    #[must_use]
    pub const fn title(self) -> &'static str {
        match self {
            Game::WalakPussa => "Walak-pussa",
            Game::RajaPasu => "Raja Pasu",
            Game::PasuPondi => "Pasu Pondi",
            Game::PasuPondi6 => "Pasu Pondi (6 seeds)",
        }
    }

    /// Seeds in each hole at the start, and the seeds needed to open a hole in a match.
    #[inline]
    #[must_use]
    pub const fn seeds_per_hole(self) -> u8 {
        match self {
            Game::WalakPussa => 4,
            Game::RajaPasu => 7,
            Game::PasuPondi => 5,
            Game::PasuPondi6 => 6,
        }
    }

    /// All seeds in play: 14 × seeds per hole.
    #[inline]
    #[must_use]
    pub const fn total_seeds(self) -> u8 {
        14 * self.seeds_per_hole()
    }

    /// The sowing direction.
    #[inline]
    #[must_use]
    pub const fn direction(self) -> Direction {
        match self {
            Game::WalakPussa | Game::RajaPasu => Direction::Counterclockwise,
            Game::PasuPondi | Game::PasuPondi6 => Direction::Clockwise,
        }
    }

    /// Whether a hole that reaches exactly four seeds during sowing goes to its row's owner.
    #[inline]
    #[must_use]
    pub const fn fours(self) -> bool {
        !matches!(self, Game::WalakPussa)
    }

    /// Whether the capture across an empty hole chains on (Walak-pussa's *wael mutu ekilenawa*).
    #[inline]
    #[must_use]
    pub const fn chain_capture(self) -> bool {
        matches!(self, Game::WalakPussa)
    }

    /// Whether the round ends as soon as every seed on the board lies in one row (Pasu Pondi).
    #[inline]
    #[must_use]
    pub const fn one_row_ends_round(self) -> bool {
        matches!(self, Game::PasuPondi | Game::PasuPondi6)
    }

    /// What happens when the player to move has no legal move.
    #[must_use]
    pub const fn stuck_rule(self) -> StuckRule {
        match self {
            Game::WalakPussa | Game::RajaPasu => StuckRule::OtherTakesAll,
            Game::PasuPondi | Game::PasuPondi6 => StuckRule::EachTakesOwnRow,
        }
    }

    /// Which end of a row closes first in a match.
    #[must_use]
    pub const fn closing_end(self) -> ClosingEnd {
        match self {
            Game::WalakPussa | Game::RajaPasu => ClosingEnd::Left,
            Game::PasuPondi | Game::PasuPondi6 => ClosingEnd::Right,
        }
    }

    /// Who starts the next round of a match.
    #[must_use]
    pub const fn starter_rule(self) -> StarterRule {
        match self {
            Game::WalakPussa => StarterRule::FewerSeeds,
            Game::RajaPasu => StarterRule::TakerOfLeftovers,
            Game::PasuPondi | Game::PasuPondi6 => StarterRule::Alternate,
        }
    }

    /// The holes of `side` that are closed when that side can fill only `filled` (0..=7) holes,
    /// as a bit mask over board indices.
    #[must_use]
    pub const fn closed_holes(self, side: Side, filled: u8) -> u16 {
        let closed = 7u8.saturating_sub(filled) as u32;
        let row_bits: u16 = if closed == 0 {
            0
        } else {
            match self.closing_end() {
                ClosingEnd::Left => ((1u32 << closed) - 1) as u16,
                ClosingEnd::Right => (((1u32 << closed) - 1) << (7 - closed)) as u16,
            }
        };
        row_bits << (7 * side.index())
    }
}

impl fmt::Display for Game {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Game {
    type Err = UnknownGame;
    fn from_str(s: &str) -> Result<Game, UnknownGame> {
        let norm = s.trim().to_ascii_lowercase().replace(['_', ' '], "-");
        Game::ALL
            .into_iter()
            .find(|g| g.name() == norm)
            .ok_or_else(|| UnknownGame(s.to_string()))
    }
}

/// A game name that is not one of [`Game::ALL`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown game '{0}': expected one of walak-pussa, raja-pasu, pasu-pondi, pasu-pondi-6")]
pub struct UnknownGame(pub String);

/// A set of holes (usually moves), stored as a bit mask over board indices. Iterates in board order.
///
/// [`Display`](fmt::Display) writes the letters separated by spaces (`A C G`);
/// [`Debug`](fmt::Debug) writes them in brackets, `Moves[A C G]` (`Moves[]` when empty). The bit
/// mask is [`Moves::mask`].
///
/// # Examples
/// ```
/// use pussa_rules::{Game, Moves, Position};
/// let moves = Position::start(Game::WalakPussa).legal_moves();
/// assert_eq!(format!("{moves}"), "A B C D E F G");
/// assert_eq!(format!("{moves:?}"), "Moves[A B C D E F G]");
/// assert_eq!(format!("{:?}", Moves::from_mask(0b101 << 7)), "Moves[a c]");
/// assert_eq!(format!("{:?}", Moves::EMPTY), "Moves[]");
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Moves(pub(crate) u16);

impl fmt::Debug for Moves {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Moves[{self}]")
    }
}

impl Moves {
    /// The empty set.
    pub const EMPTY: Moves = Moves(0);

    /// The set with the given bit mask (bits 14 and 15 are ignored).
    #[must_use]
    pub const fn from_mask(mask: u16) -> Moves {
        Moves(mask & 0x3fff)
    }

    /// The bit mask (bit `i` set when hole `i` is in the set).
    #[must_use]
    pub const fn mask(self) -> u16 {
        self.0
    }

    /// Number of holes in the set.
    #[must_use]
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// True if the set is empty.
    #[must_use]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// True if `hole` is in the set.
    #[must_use]
    pub const fn contains(self, hole: Hole) -> bool {
        self.0 & (1 << hole.0) != 0
    }

    /// The `n`-th hole of the set in board order, if there is one.
    #[must_use]
    pub fn nth(self, n: usize) -> Option<Hole> {
        let mut m = self.0;
        for _ in 0..n {
            m &= m.wrapping_sub(1);
        }
        (m != 0).then(|| Hole(m.trailing_zeros() as u8))
    }
}

impl Iterator for Moves {
    type Item = Hole;
    #[inline]
    fn next(&mut self) -> Option<Hole> {
        if self.0 == 0 {
            None
        } else {
            let i = self.0.trailing_zeros();
            self.0 &= self.0 - 1;
            Some(Hole(i as u8))
        }
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        // Not `self.len()`: on `&Moves` that resolves to `ExactSizeIterator::len`, which calls
        // `size_hint` again, for ever.
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Moves {}

/// Serializes as a sequence of hole letters in board order (`["a", "g"]` in JSON), as each
/// [`Hole`] serializes.
impl Serialize for Moves {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(*self)
    }
}

/// Reads what `serialize` writes: a sequence of hole letters, in any order.
impl<'de> Deserialize<'de> for Moves {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Moves, D::Error> {
        let holes = Vec::<Hole>::deserialize(d)?;
        Ok(Moves(holes.iter().fold(0, |m, h| m | 1 << h.0)))
    }
}

impl fmt::Display for Moves {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for h in *self {
            if !first {
                f.write_str(" ")?;
            }
            first = false;
            write!(f, "{h}")?;
        }
        Ok(())
    }
}
