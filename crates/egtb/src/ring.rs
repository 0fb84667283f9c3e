//! The index space of a build or of a set of tables: the open board, or a pair of closed
//! patterns `(a, b)` and `(b, a)` (a move from one leads into the other, so they are solved
//! together). Positions are numbered per seed count `k`: the boards of the first pattern in
//! their rank order, then (if the patterns differ) those of the second, offset by the first's
//! count. The open board is a single pattern whose numbering is exactly [`index::rank`], and
//! it gets its own type so that the open build runs the same code as before, monomorphised.

use pussa_rules::Game;

use crate::index::{self, layer_size, layer_size_in, rank, rank_in, unrank, unrank_in};
use crate::moves::{children, children_in, Children, Pattern};

/// Numbering and moves of the boards of one index space.
pub(crate) trait Ring: Sync + Send + Copy {
    /// The game.
    fn game(&self) -> Game;
    /// Positions with `k` seeds.
    fn size(&self, k: usize) -> u64;
    /// Which pattern (0 or 1) the position `idx` of layer `k` has.
    fn side_of(&self, k: usize, idx: u64) -> u8;
    /// The pattern a move from a board of pattern `side` leads to.
    fn child_side(&self, side: u8) -> u8;
    /// The board of position `idx` of layer `k`.
    fn unrank(&self, k: usize, idx: u64) -> [u8; 14];
    /// The position number of board `b` (`k` seeds) of pattern `side`.
    fn rank(&self, side: u8, k: usize, b: &[u8; 14]) -> u64;
    /// The legal moves of board `b` of pattern `side`.
    fn children(&self, side: u8, b: &[u8; 14]) -> Children;
}

/// The open board.
#[derive(Clone, Copy, Debug)]
pub(crate) struct OpenRing(pub Game);

impl Ring for OpenRing {
    #[inline]
    fn game(&self) -> Game {
        self.0
    }
    #[inline]
    fn size(&self, k: usize) -> u64 {
        layer_size(k)
    }
    #[inline]
    fn side_of(&self, _k: usize, _idx: u64) -> u8 {
        0
    }
    #[inline]
    fn child_side(&self, _side: u8) -> u8 {
        0
    }
    #[inline]
    fn unrank(&self, k: usize, idx: u64) -> [u8; 14] {
        unrank(k, idx)
    }
    #[inline]
    fn rank(&self, _side: u8, _k: usize, b: &[u8; 14]) -> u64 {
        rank(b)
    }
    #[inline]
    fn children(&self, _side: u8, b: &[u8; 14]) -> Children {
        children(self.0, b)
    }
}

/// A pattern and its mirror (one pattern if they are equal, as the open board).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PairRing {
    game: Game,
    patterns: [Pattern; 2],
    closed: [u16; 2],
    open: [u16; 2],
    holes: [usize; 2],
    two: bool,
}

impl PairRing {
    /// The space of `pattern` and its mirror in `game`.
    pub(crate) fn new(game: Game, pattern: Pattern) -> PairRing {
        let patterns = [pattern, pattern.flipped()];
        PairRing {
            game,
            patterns,
            closed: patterns.map(|p| p.closed_mask(game)),
            open: patterns.map(|p| p.open_mask(game)),
            holes: patterns.map(Pattern::holes),
            two: pattern != pattern.flipped(),
        }
    }

    /// The pattern of side 0 or 1.
    pub(crate) fn pattern(&self, side: u8) -> Pattern {
        self.patterns[usize::from(side)]
    }

    /// True if the mirror pattern is a second part of the space.
    pub(crate) fn has_two(&self) -> bool {
        self.two
    }

    /// Positions of pattern `side` with `k` seeds.
    #[inline]
    pub(crate) fn part_size(&self, side: u8, k: usize) -> u64 {
        layer_size_in(self.holes[usize::from(side)], k)
    }

    /// The side whose pattern is `p`, if any.
    pub(crate) fn side_of_pattern(&self, p: Pattern) -> Option<u8> {
        if p == self.patterns[0] {
            Some(0)
        } else if self.two && p == self.patterns[1] {
            Some(1)
        } else {
            None
        }
    }
}

impl Ring for PairRing {
    #[inline]
    fn game(&self) -> Game {
        self.game
    }
    #[inline]
    fn size(&self, k: usize) -> u64 {
        if self.two {
            self.part_size(0, k) + self.part_size(1, k)
        } else {
            self.part_size(0, k)
        }
    }
    #[inline]
    fn side_of(&self, k: usize, idx: u64) -> u8 {
        u8::from(self.two && idx >= self.part_size(0, k))
    }
    #[inline]
    fn child_side(&self, side: u8) -> u8 {
        if self.two {
            1 - side
        } else {
            0
        }
    }
    #[inline]
    fn unrank(&self, k: usize, idx: u64) -> [u8; 14] {
        let n0 = self.part_size(0, k);
        if idx < n0 {
            unrank_in(k, idx, self.open[0])
        } else {
            unrank_in(k, idx - n0, self.open[1])
        }
    }
    #[inline]
    fn rank(&self, side: u8, k: usize, b: &[u8; 14]) -> u64 {
        let s = usize::from(side);
        let r = if self.open[s] == 0x3FFF {
            index::rank(b)
        } else {
            rank_in(b, self.open[s])
        };
        if side == 1 {
            r + self.part_size(0, k)
        } else {
            r
        }
    }
    #[inline]
    fn children(&self, side: u8, b: &[u8; 14]) -> Children {
        children_in(self.game, self.closed[usize::from(side)], b)
    }
}
