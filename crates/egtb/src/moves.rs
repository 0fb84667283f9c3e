//! Boards seen from the player to move, and the moves between them.
//!
//! A *canonical board* lists the mover's row first: holes 0..7 are the mover's `A`..`G` (or
//! `a`..`g`), holes 7..14 the opponent's. Turning the ring by seven holes swaps the rows and keeps
//! the sowing direction, so every rule of the contract (relay, fours to the row's owner, the
//! capture by the mover, the chain, Pasu Pondi's one-row end, the stuck rules) reads the same from
//! either seat, for the clockwise games as well; `tests/symmetry.rs` checks it move by move.

use pussa_rules::{Game, Hole, Position, Side, StuckRule};

/// The board of `pos` seen from the player to move (their row first).
#[inline]
#[must_use]
pub fn canonical(pos: &Position) -> [u8; 14] {
    let b = pos.board();
    match pos.to_move() {
        Side::South => b,
        Side::North => rotate(&b),
    }
}

/// The board turned by seven holes: the rows swapped.
#[inline]
#[must_use]
pub fn rotate(b: &[u8; 14]) -> [u8; 14] {
    let mut r = [0u8; 14];
    r[..7].copy_from_slice(&b[7..]);
    r[7..].copy_from_slice(&b[..7]);
    r
}

/// The open-board position with South (the mover) to move and empty stores.
#[inline]
#[must_use]
pub fn position_of(game: Game, board: &[u8; 14]) -> Position {
    Position::from_parts_unchecked(game, *board, 0, [0, 0], Side::South)
}

/// Seeds in the mover's row minus seeds in the opponent's row.
#[inline]
#[must_use]
pub fn row_margin(b: &[u8; 14]) -> i32 {
    let a: i32 = b[..7].iter().map(|&x| i32::from(x)).sum();
    let o: i32 = b[7..].iter().map(|&x| i32::from(x)).sum();
    a - o
}

/// Seeds on a board.
#[inline]
#[must_use]
pub fn seeds(b: &[u8; 14]) -> usize {
    b.iter().map(|&x| x as usize).sum()
}

/// One legal move from a canonical board.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Child {
    /// The hole lifted, 0..7 in the mover's row.
    pub col: u8,
    /// Seeds the mover took minus seeds the opponent took during the move.
    pub gain: i32,
    /// The resulting board, seen from the new mover (the opponent).
    pub board: [u8; 14],
    /// Seeds left on it.
    pub seeds: usize,
}

/// The legal moves of a canonical board, in column order. Endless moves are left out.
#[derive(Clone, Copy, Debug, Default)]
pub struct Children {
    /// The moves; only the first `len` are valid.
    pub list: [Child; 7],
    /// How many.
    pub len: usize,
}

impl Children {
    /// The valid moves.
    #[must_use]
    pub fn as_slice(&self) -> &[Child] {
        &self.list[..self.len]
    }
}

/// Every legal move of the canonical board `b` (mover = the first row).
#[must_use]
pub fn children(game: Game, b: &[u8; 14]) -> Children {
    children_in(game, 0, b)
}

/// Every legal move of the canonical board `b` (mover = the first row) with the holes of
/// `closed` closed (bit `i` = hole `i`, canonical orientation: the mover's row is 0..7). The
/// children are seen from the new mover, so their closed holes are `closed` turned by seven
/// holes ([`Pattern::flipped`]).
#[inline]
#[must_use]
pub fn children_in(game: Game, closed: u16, b: &[u8; 14]) -> Children {
    let pos = Position::from_parts_unchecked(game, *b, closed, [0, 0], Side::South);
    let mut out = Children::default();
    for h in pos.candidates() {
        let mut p = pos;
        if let Some(o) = p.play_unchecked(h) {
            let nb = rotate(&p.board());
            out.list[out.len] = Child {
                col: h.index() as u8,
                gain: i32::from(o.taken[0]) - i32::from(o.taken[1]),
                board: nb,
                seeds: seeds(&nb),
            };
            out.len += 1;
        }
    }
    out
}

/// The value of a board on arrival if the round is over there before anyone moves (the one-row
/// end of Pasu Pondi, or no legal move), for the player to move; `None` if play goes on.
/// `moves` must be `children(game, b)`.
#[must_use]
pub fn terminal_value(game: Game, b: &[u8; 14], moves: &Children) -> Option<i32> {
    if game.one_row_ends_round() {
        let a: u32 = b[..7].iter().map(|&x| u32::from(x)).sum();
        let o: u32 = b[7..].iter().map(|&x| u32::from(x)).sum();
        if a == 0 || o == 0 {
            return Some(row_margin(b));
        }
    }
    if moves.len == 0 {
        return Some(match game.stuck_rule() {
            StuckRule::OtherTakesAll => -(seeds(b) as i32),
            StuckRule::EachTakesOwnRow => row_margin(b),
        });
    }
    None
}

/// The closed holes of a round seen from the player to move: how many of the mover's holes and
/// of the opponent's are closed. The holes close from the left end of the owner's row in
/// Walak-pussa and Raja Pasu, from the right end in Pasu Pondi (rules contract, "Matches"), and
/// turning the ring by seven holes maps one closing onto the other, so a move from a board of
/// pattern `(a, b)` leads to a board of pattern `(b, a)` seen from the new mover.
/// The open board is `(0, 0)`.
///
/// Its counts are private, so that every `Pattern` is a real closing (at most six holes a
/// row): build one with [`Pattern::new`] or [`Pattern::of_position`], read it with
/// [`Pattern::mine`] and [`Pattern::theirs`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pattern {
    /// Holes closed in the mover's row (0..=6).
    mine: u8,
    /// Holes closed in the opponent's row (0..=6).
    theirs: u8,
}

impl Pattern {
    /// The open board.
    pub const OPEN: Pattern = Pattern { mine: 0, theirs: 0 };

    /// The pattern `(mine, theirs)`.
    ///
    /// # Panics
    /// Panics if either is above 6 (a player with every hole closed has lost the match).
    #[must_use]
    pub fn new(mine: u8, theirs: u8) -> Pattern {
        assert!(mine <= 6 && theirs <= 6, "at most 6 holes of a row close");
        Pattern { mine, theirs }
    }

    /// Holes closed in the mover's row (0..=6).
    #[must_use]
    pub fn mine(self) -> u8 {
        self.mine
    }

    /// Holes closed in the opponent's row (0..=6).
    #[must_use]
    pub fn theirs(self) -> u8 {
        self.theirs
    }

    /// The pattern seen from the other player.
    #[must_use]
    pub fn flipped(self) -> Pattern {
        Pattern {
            mine: self.theirs,
            theirs: self.mine,
        }
    }

    /// True for the open board.
    #[must_use]
    pub fn is_open(self) -> bool {
        self == Pattern::OPEN
    }

    /// Open holes.
    #[must_use]
    pub fn holes(self) -> usize {
        14 - usize::from(self.mine) - usize::from(self.theirs)
    }

    /// The closed holes of a canonical board (mover = South's row) of `game`.
    #[must_use]
    pub fn closed_mask(self, game: Game) -> u16 {
        game.closed_holes(Side::South, 7 - self.mine)
            | game.closed_holes(Side::North, 7 - self.theirs)
    }

    /// The open holes of a canonical board of `game`.
    #[must_use]
    pub fn open_mask(self, game: Game) -> u16 {
        !self.closed_mask(game) & 0x3FFF
    }

    /// The pattern of `pos` seen from its player to move, `None` if its closed holes are not
    /// a closing of the game (the holes a refill closes, at most six a row).
    #[must_use]
    pub fn of_position(pos: &Position) -> Option<Pattern> {
        let game = pos.game();
        let closed = pos.closed_mask();
        let count = |side: Side| ((closed >> (7 * side.index())) & 0x7F).count_ones() as u8;
        let (s, n) = (count(Side::South), count(Side::North));
        if s > 6 || n > 6 {
            return None;
        }
        if game.closed_holes(Side::South, 7 - s) | game.closed_holes(Side::North, 7 - n) != closed {
            return None;
        }
        Some(match pos.to_move() {
            Side::South => Pattern::new(s, n),
            Side::North => Pattern::new(n, s),
        })
    }

    /// The directory name of the pattern's tables: `c<mine>-<theirs>`.
    #[must_use]
    pub fn dir_name(self) -> String {
        format!("c{}-{}", self.mine, self.theirs)
    }
}

impl std::fmt::Display for Pattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "({}, {})", self.mine, self.theirs)
    }
}

/// The move letter of column `col` for `side`.
#[must_use]
pub fn move_letter(side: Side, col: u8) -> Hole {
    Hole::of_side(side, col as usize)
}
