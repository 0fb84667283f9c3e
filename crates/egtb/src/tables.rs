//! [`Tables`]: the finished tables of one game, memory-mapped from their files (or held in
//! memory after a build), and probing.

use std::path::{Path, PathBuf};

use memmap2::Mmap;
use pussa_rules::{Game, Hole, Position, Side};
use rayon::prelude::*;

use crate::format::{
    check_payload, count, map_table, pattern_path, table_files, table_path, FormatError, Header,
    Remedy, HEADER_LEN,
};
use crate::index::MAX_SEEDS;
use crate::moves::{canonical, move_letter, terminal_value, Pattern};
use crate::ring::{PairRing, Ring};
use crate::search::{Lookup, PathSearch};
use crate::value::{decode, Entry};

enum Backing {
    Mapped(Mmap),
    Owned(Vec<u8>),
}

impl Backing {
    #[inline]
    fn bytes(&self) -> &[u8] {
        match self {
            Backing::Mapped(m) => &m[HEADER_LEN..],
            Backing::Owned(v) => v,
        }
    }
}

/// One layer's bytes: the boards of the tables' pattern, then (closed patterns whose mirror
/// differs, when read from files) those of the mirror in a second file. A layer built in
/// memory holds both in `backing`.
struct Layer {
    backing: Backing,
    mirror: Option<Backing>,
}

impl Layer {
    fn owned(v: Vec<u8>) -> Layer {
        Layer {
            backing: Backing::Owned(v),
            mirror: None,
        }
    }

    /// The first part (the whole layer if it has one part).
    #[inline]
    fn bytes(&self) -> &[u8] {
        self.backing.bytes()
    }

    #[inline]
    fn byte(&self, idx: u64) -> u8 {
        let first = self.backing.bytes();
        let i = idx as usize;
        if i < first.len() {
            first[i]
        } else {
            self.mirror.as_ref().expect("a mirror part").bytes()[i - first.len()]
        }
    }

    /// Both parts, one after the other.
    fn to_vec(&self) -> Vec<u8> {
        let mut v = self.backing.bytes().to_vec();
        if let Some(m) = &self.mirror {
            v.extend_from_slice(m.bytes());
        }
        v
    }
}

/// The tables of one game for every seed count `0..=max_seeds()`.
///
/// # Examples
/// ```
/// use pussa_egtb::{BuildOptions, Tables};
/// use pussa_rules::{Game, Position, Side};
/// let t = Tables::build_in_memory(Game::WalakPussa, 3, BuildOptions::default(), &|_| {});
/// // One seed each, South to move.
/// let mut board = [0u8; 14];
/// board[0] = 1;
/// board[7] = 1;
/// let pos = Position::from_parts_unchecked(Game::WalakPussa, board, 0, [27, 27], Side::South);
/// // Its value for a history that starts here (the start of a round, or after a capture).
/// assert!(t.probe_fresh(&pos).is_some());
/// ```
pub struct Tables {
    game: Game,
    ring: PairRing,
    layers: Vec<Layer>,
}

/// One legal move with its exact value from the tables ([`Tables::move_values`]). Not to be
/// confused with `pussa_engine::MoveValue`, a move's value as the engine's search finds it (in
/// seeds, with an `exact` mark and a principal variation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveValue {
    /// The move.
    pub mv: Hole,
    /// Seeds the mover takes minus seeds the opponent takes during the move.
    pub gain: i32,
    /// The final margin for the mover if they play it (then perfect play), `None` if not
    /// determined.
    pub value: Option<i32>,
}

/// The result of [`Tables::verify_layer`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyReport {
    /// Seeds.
    pub seeds: usize,
    /// Entries in the layer.
    pub entries: u64,
    /// Positions re-computed.
    pub checked: u64,
    /// Positions whose stored value (or history flag) disagrees with the one re-computed from
    /// the tables.
    pub mismatches: u64,
    /// The first mismatches found, in rank order (at most [`VerifyReport::SHOWN`]).
    pub examples: Vec<Mismatch>,
    /// Entries of the whole layer stored as not determined (a build with a small `--budget`).
    pub undetermined: u64,
    /// Sampled positions that were not re-computed because they are not determined or their
    /// re-computation meets a position that is not.
    pub unresolved: u64,
    /// Sampled positions without the history flag whose value was re-computed and agrees but
    /// which the local bound iteration does not prove and which reach more than
    /// [`HISTORY_LIMIT`] positions by non-capturing moves, so that their being exact for every
    /// history was not checked (counted in `checked`).
    pub history_unchecked: u64,
}

impl VerifyReport {
    /// How many mismatches [`VerifyReport::examples`] keeps.
    pub const SHOWN: usize = 5;
}

/// One position whose stored entry disagrees with its re-computation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// The position, its player to move South (stores holding the seeds off the board, split
    /// evenly).
    pub position: Position,
    /// The stored margin.
    pub stored: i32,
    /// The stored history flag.
    pub flagged: bool,
    /// The re-computed margin: for a fresh history, or (when `history` is
    /// [`HistoryFault::Line`]) the value with that history of the round, which the unflagged
    /// entry claims not to matter.
    pub recomputed: i32,
    /// For an entry stored without the history flag (exact for any history) that is not:
    /// why.
    pub history: Option<HistoryFault>,
}

/// Why an entry stored without the history flag is not exact for every history
/// ([`Mismatch::history`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HistoryFault {
    /// The round came to the position from `from` by the non-capturing moves `line` (the
    /// first one `from`'s player's); with those positions seen, the value is
    /// [`Mismatch::recomputed`].
    Line {
        /// The earlier position of the round.
        from: Position,
        /// The moves from `from` to the position.
        line: Vec<Hole>,
    },
    /// The bound iteration over the `reachable` positions the position can reach by
    /// non-capturing moves leaves its value between `lo` and `hi` for every history (no history
    /// that changes the stored value was found among those tried): the flag is missing.
    Bounds {
        /// Lower bound.
        lo: i32,
        /// Upper bound.
        hi: i32,
        /// Positions of the layer it can reach.
        reachable: u64,
    },
}

impl Lookup for Tables {
    type R = PairRing;
    #[inline]
    fn ring(&self) -> PairRing {
        self.ring
    }
    #[inline]
    fn byte(&self, k: usize, idx: u64) -> u8 {
        self.layers[k].byte(idx)
    }
}

impl Tables {
    /// Tables from layers built in memory, `layers[k]` for `k` seeds.
    ///
    /// # Panics
    /// Panics if `layers` is empty (tables hold at least the layer of 0 seeds) or a layer has
    /// the wrong size.
    #[must_use]
    pub fn from_layers(game: Game, layers: Vec<Vec<u8>>) -> Tables {
        Tables::from_pattern_layers(game, Pattern::OPEN, layers)
    }

    /// Tables of the closed pattern `pattern` and its mirror from layers built in memory
    /// (`layers[k]` as [`crate::build_pair_layer`] returns them).
    ///
    /// # Panics
    /// Panics if `layers` is empty (tables hold at least the layer of 0 seeds), has more than
    /// [`crate::index::MAX_SEEDS`]` + 1` layers, or a layer has the wrong size.
    #[must_use]
    pub fn from_pattern_layers(game: Game, pattern: Pattern, layers: Vec<Vec<u8>>) -> Tables {
        assert!(
            !layers.is_empty(),
            "no layers: tables hold at least the layer of 0 seeds"
        );
        assert!(
            layers.len() <= crate::index::MAX_SEEDS + 1,
            "{} layers: tables hold at most {} seeds",
            layers.len(),
            crate::index::MAX_SEEDS
        );
        let ring = PairRing::new(game, pattern);
        for (k, l) in layers.iter().enumerate() {
            assert_eq!(l.len() as u64, ring.size(k), "layer {k} has the wrong size");
        }
        Tables {
            game,
            ring,
            layers: layers.into_iter().map(Layer::owned).collect(),
        }
    }

    /// Builds every layer `0..=max_seeds` of the closed pattern `pattern` and its mirror in
    /// memory (no files).
    ///
    /// # Panics
    /// Panics if `max_seeds` is above [`crate::max_build_seeds`] for the pattern (the builder
    /// keeps ranks in 32 bits; the layers would not fit in memory anyway).
    #[must_use]
    pub fn build_pattern_in_memory(
        game: Game,
        pattern: Pattern,
        max_seeds: usize,
        opts: crate::BuildOptions,
        progress: &(dyn Fn(crate::Progress) + Sync),
    ) -> Tables {
        let mut layers: Vec<Vec<u8>> = Vec::new();
        for k in 0..=max_seeds {
            let lower: Vec<&[u8]> = layers.iter().map(Vec::as_slice).collect();
            let (t, _) = crate::build_pair_layer(game, pattern, k, &lower, opts, progress);
            layers.push(t);
        }
        Tables::from_pattern_layers(game, pattern, layers)
    }

    /// The closed pattern of these tables (seen from the player to move; the tables also cover
    /// its mirror, [`Pattern::flipped`]). [`Pattern::OPEN`] for the open board.
    #[must_use]
    pub fn pattern(&self) -> Pattern {
        self.ring.pattern(0)
    }

    /// Builds every layer `0..=max_seeds` in memory (no files), calling `progress` on the way.
    ///
    /// # Panics
    /// Panics if `max_seeds` is above [`crate::max_build_seeds`] of the open board.
    #[must_use]
    pub fn build_in_memory(
        game: Game,
        max_seeds: usize,
        opts: crate::BuildOptions,
        progress: &(dyn Fn(crate::Progress) + Sync),
    ) -> Tables {
        let mut layers: Vec<Vec<u8>> = Vec::new();
        for k in 0..=max_seeds {
            let lower: Vec<&[u8]> = layers.iter().map(Vec::as_slice).collect();
            let (t, _) = crate::build_layer(game, k, &lower, opts, progress);
            layers.push(t);
        }
        Tables::from_layers(game, layers)
    }

    /// Opens and checks one table file (header, size, checksum, every value possible for the
    /// seed count).
    ///
    /// # Errors
    /// [`FormatError`] naming the file and the problem.
    pub fn open_layer(dir: &Path, game: Game, seeds: usize) -> Result<(Mmap, Header), FormatError> {
        Tables::open_pattern_layer(dir, game, Pattern::OPEN, seeds)
    }

    /// Opens and checks one table file of a closed pattern ([`crate::format::pattern_path`]):
    /// header, size, and in one pass over the payload its checksum and that every value is
    /// possible for the seed count ([`crate::format::check_payload`]).
    ///
    /// # Errors
    /// [`FormatError`] naming the file and the problem: missing (with the seed counts the
    /// directory has), a directory, damaged, mismatched.
    pub fn open_pattern_layer(
        dir: &Path,
        game: Game,
        pattern: Pattern,
        seeds: usize,
    ) -> Result<(Mmap, Header), FormatError> {
        let path = pattern_path(dir, game, pattern, seeds);
        let Some(map) = map_table(&path)? else {
            let (reason, remedy) = missing_reason(dir, game, pattern, seeds);
            return Err(FormatError::Missing {
                reason,
                path,
                remedy,
            });
        };
        let header = Header::parse_pattern(&map, &path, game, pattern, seeds)?;
        check_payload(&map[HEADER_LEN..], &header, &path)?;
        Ok((map, header))
    }

    /// Checks every table file of `game` and `pattern` (with its mirror) under `dir`, from 0
    /// seeds to the largest seed count found, and opens the good layers from 0 up to the first
    /// layer with a problem. Nothing stops at a problem: every file there is checked, and every
    /// missing layer below the largest file is reported.
    #[must_use]
    pub fn check_dir(dir: &Path, game: Game, pattern: Pattern) -> DirCheck {
        let ring = PairRing::new(game, pattern);
        let mirror = pattern.flipped();
        let mut found = table_files(dir, game, pattern);
        if ring.has_two() {
            found.extend(table_files(dir, game, mirror));
        }
        let mut layers = Vec::new();
        let mut good = Vec::new();
        let top = found.iter().copied().filter(|&k| k <= MAX_SEEDS).max();
        for k in top.map_or(0..0, |t| 0..t + 1) {
            let mut problems = Vec::new();
            let mut parts = Vec::new();
            for p in if ring.has_two() {
                vec![pattern, mirror]
            } else {
                vec![pattern]
            } {
                match Tables::open_pattern_layer(dir, game, p, k) {
                    Ok((map, _)) => parts.push(map),
                    Err(e) => problems.push(e),
                }
            }
            if problems.is_empty() && good.len() == k {
                // Without problems every pattern tried (one or two) gave a part.
                let mut parts = parts.into_iter();
                if let Some(first) = parts.next() {
                    good.push(Layer {
                        backing: Backing::Mapped(first),
                        mirror: parts.next().map(Backing::Mapped),
                    });
                }
            }
            layers.push(LayerCheck { seeds: k, problems });
        }
        let mut above: Vec<usize> = found.into_iter().filter(|&k| k > MAX_SEEDS).collect();
        above.sort_unstable();
        above.dedup();
        for k in above {
            layers.push(LayerCheck {
                seeds: k,
                problems: vec![FormatError::Invalid {
                    path: pattern_path(dir, game, pattern, k),
                    reason: format!("no table can have {k} seeds (at most {MAX_SEEDS})"),
                    remedy: None,
                }],
            });
        }
        let tables = (!good.is_empty()).then_some(Tables {
            game,
            ring,
            layers: good,
        });
        DirCheck { layers, tables }
    }

    /// Opens the tables of `game` under `dir` for seed counts `0..=max` (all present files from
    /// 0 up if `max` is `None`, which must run without a gap). Every file is checked before it
    /// is used.
    ///
    /// # Errors
    /// A missing layer up to `max`, or (`max` is `None`) below the largest file, named with the
    /// seed counts the directory has; no tables at all; any damaged or mismatched file, or a
    /// directory where a file should be. A missing layer's or table's error says what builds it
    /// ([`FormatError::remedy`], [`Remedy::Build`]: up to `max` when more seeds are asked for
    /// than were built or none are there, if the builder can build that many), a damaged or mismatched file's that
    /// it is deleted or rebuilt ([`Remedy::DeleteOrRebuild`], as [`build_dir`] says); the message
    /// itself names no command.
    ///
    /// # Examples
    /// ```
    /// use pussa_egtb::{build_dir, format::table_path, BuildOptions, FormatError, Tables};
    /// use pussa_rules::{Game, Position, Side};
    /// let dir = std::env::temp_dir().join(format!("pussa-egtb-doc-open-{}", std::process::id()));
    /// build_dir(&dir, Game::WalakPussa, 4, BuildOptions::default(), false, &|_| {}, &mut |_| {})?;
    ///
    /// let tables = Tables::open(&dir, Game::WalakPussa, None)?;
    /// assert_eq!(tables.max_seeds(), 4);
    /// // South's G and North's a hold a seed each, South to move: South ends 2 seeds behind.
    /// let mut board = [0u8; 14];
    /// board[6] = 1;
    /// board[7] = 1;
    /// let pos = Position::from_parts_unchecked(Game::WalakPussa, board, 0, [27, 27], Side::South);
    /// assert_eq!(tables.probe(&pos), Some(-2));
    ///
    /// // More seeds than the directory holds: the error says how far it goes.
    /// let err = Tables::open(&dir, Game::WalakPussa, Some(5)).err().unwrap();
    /// assert!(matches!(err, FormatError::Missing { .. }));
    /// assert!(err.to_string().contains("go up to 4 seeds"), "{err}");
    ///
    /// // A damaged file is refused, by name.
    /// let three = table_path(&dir, Game::WalakPussa, 3);
    /// let bytes = std::fs::read(&three)?;
    /// std::fs::write(&three, &bytes[..bytes.len() - 1])?;
    /// let err = Tables::open(&dir, Game::WalakPussa, None).err().unwrap();
    /// assert!(matches!(&err, FormatError::Invalid { path, .. } if *path == three), "{err}");
    /// std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open(dir: &Path, game: Game, max: Option<usize>) -> Result<Tables, FormatError> {
        Tables::open_pattern(dir, game, Pattern::OPEN, max)
    }

    /// Opens the tables of the closed pattern `pattern` of `game` and of its mirror under `dir`
    /// for seed counts `0..=max` (all present from 0 up if `max` is `None`, which must run
    /// without a gap; a layer counts as present when the files of both patterns are there).
    /// Every file is checked.
    ///
    /// # Errors
    /// A missing layer up to `max`, or (`max` is `None`) below the largest file, named with the
    /// seed counts the directory has; no tables at all; any damaged or mismatched file, or a
    /// directory where a file should be. A missing layer's or table's error says what builds it
    /// ([`FormatError::remedy`], [`Remedy::Build`]), a damaged or mismatched file's that it is
    /// deleted or rebuilt ([`Remedy::DeleteOrRebuild`]), as for [`Tables::open`]; the message
    /// itself names no command.
    pub fn open_pattern(
        dir: &Path,
        game: Game,
        pattern: Pattern,
        max: Option<usize>,
    ) -> Result<Tables, FormatError> {
        let ring = PairRing::new(game, pattern);
        let mirror = pattern.flipped();
        let mut layers = Vec::new();
        let mut k = 0;
        loop {
            if let Some(m) = max {
                if k > m {
                    break;
                }
            } else if !pattern_path(dir, game, pattern, k).exists()
                || (ring.has_two() && !pattern_path(dir, game, mirror, k).exists())
            {
                break;
            }
            let fix = |e| build_up_to(damaged_remedy(e), max);
            let (map, _) = Tables::open_pattern_layer(dir, game, pattern, k).map_err(fix)?;
            let second = if ring.has_two() {
                let (m, _) = Tables::open_pattern_layer(dir, game, mirror, k).map_err(fix)?;
                Some(Backing::Mapped(m))
            } else {
                None
            };
            layers.push(Layer {
                backing: Backing::Mapped(map),
                mirror: second,
            });
            k += 1;
        }
        if max.is_none() {
            // Layers run from 0 without a gap: a file of more seeds past the first missing
            // layer is refused, never silently left out.
            refuse_gap(dir, game, pattern, k).map_err(damaged_remedy)?;
        }
        if layers.is_empty() {
            return Err(FormatError::Invalid {
                path: pattern_path(dir, game, pattern, 0),
                reason: if pattern.is_open() {
                    format!("no tables for {game}")
                } else {
                    format!("no tables for {game} with closed holes {pattern}")
                },
                remedy: Some(Remedy::Build {
                    dir: dir.to_path_buf(),
                    game,
                    pattern,
                    max_seeds: max.unwrap_or(SUGGESTED_SEEDS),
                    again: false,
                }),
            });
        }
        Ok(Tables { game, ring, layers })
    }

    /// The game.
    #[must_use]
    pub fn game(&self) -> Game {
        self.game
    }

    /// The largest seed count covered.
    #[must_use]
    pub fn max_seeds(&self) -> usize {
        self.layers.len() - 1
    }

    /// The raw bytes of layer `k` (of the tables' pattern; built in memory, a closed
    /// pattern's layer also holds its mirror's boards after them, as [`crate::build_pair_layer`]).
    ///
    /// # Panics
    /// Panics if `k > max_seeds()`.
    #[must_use]
    pub fn layer(&self, k: usize) -> &[u8] {
        self.layers[k].bytes()
    }

    /// Layer `k` with both patterns' boards (as [`crate::build_pair_layer`] returns it).
    ///
    /// # Panics
    /// Panics if `k > max_seeds()`.
    #[must_use]
    pub fn pair_layer(&self, k: usize) -> Vec<u8> {
        self.layers[k].to_vec()
    }

    /// The table entry of a board seen from the player to move (the tables' own pattern,
    /// zeros in the closed holes).
    #[must_use]
    pub fn entry_of_board(&self, b: &[u8; 14]) -> Option<Entry> {
        self.entry_of_side(0, b)
    }

    /// The table entry of a board of the closed pattern `pattern` seen from the player to move
    /// (zeros in the closed holes), `None` if the tables do not cover it.
    #[must_use]
    pub fn entry_of_board_in(&self, pattern: Pattern, b: &[u8; 14]) -> Option<Entry> {
        let side = self.ring.side_of_pattern(pattern)?;
        self.entry_of_side(side, b)
    }

    /// The entry of board `b` of pattern side `side` (0: the tables' pattern, 1: its mirror).
    pub(crate) fn entry_of_side(&self, side: u8, b: &[u8; 14]) -> Option<Entry> {
        let k = crate::moves::seeds(b);
        (k <= self.max_seeds()).then(|| decode(self.byte(k, self.ring.rank(side, k, b))))
    }

    /// Which pattern side of these tables `pos` is on, if they cover it.
    pub(crate) fn side_of(&self, pos: &Position) -> Option<u8> {
        if pos.seeds_on_board() as usize > self.max_seeds() {
            return None;
        }
        self.pattern_side(pos)
    }

    /// Which pattern side of these tables `pos` is on (any number of seeds), if any.
    pub(crate) fn pattern_side(&self, pos: &Position) -> Option<u8> {
        if pos.game() != self.game {
            return None;
        }
        if pos.closed_mask() == 0 {
            return self.ring.side_of_pattern(Pattern::OPEN);
        }
        self.ring.side_of_pattern(Pattern::of_position(pos)?)
    }

    /// True if these tables are for the closed pattern of `pos` (or its mirror), whatever
    /// the number of seeds.
    #[must_use]
    pub fn has_pattern_of(&self, pos: &Position) -> bool {
        self.pattern_side(pos).is_some()
    }

    /// The table entry of `pos` (any stores, either side to move), `None` if the tables do not
    /// cover it (another game, other closed holes, too many seeds).
    #[must_use]
    pub fn entry(&self, pos: &Position) -> Option<Entry> {
        let side = self.side_of(pos)?;
        self.entry_of_side(side, &canonical(pos))
    }

    /// The exact future margin (seeds the player to move will still take minus those the
    /// opponent will take, stores not counted) with perfect play, for any history of the round:
    /// `None` if not covered, not determined, or if the value may depend on the positions seen
    /// before in this round (see [`Tables::probe_fresh`]).
    #[must_use]
    pub fn probe(&self, pos: &Position) -> Option<i32> {
        match self.entry(pos)? {
            Entry::Value {
                margin,
                history: false,
            } => Some(margin),
            _ => None,
        }
    }

    /// Like [`Tables::probe`], also for positions whose value depends on history, assuming that
    /// the history of the round starts at `pos`: right after a move that took seeds, or at the
    /// start of the round. `None` if not covered or not determined.
    ///
    /// # Examples
    /// ```
    /// use pussa_egtb::{BuildOptions, Tables};
    /// use pussa_rules::{Game, Position, Side};
    /// let t = Tables::build_in_memory(Game::WalakPussa, 2, BuildOptions::default(), &|_| {});
    /// // South's A and North's a hold a seed each, South to move.
    /// let mut board = [0u8; 14];
    /// board[0] = 1;
    /// board[7] = 1;
    /// let pos = Position::from_parts_unchecked(Game::WalakPussa, board, 0, [27, 27], Side::South);
    /// // Its value may depend on the positions seen before it in the round (a repetition), so
    /// // only `probe_fresh`, for a history that starts here, gives it.
    /// assert_eq!(t.probe(&pos), None);
    /// assert_eq!(t.probe_fresh(&pos), Some(-2));
    /// ```
    #[must_use]
    pub fn probe_fresh(&self, pos: &Position) -> Option<i32> {
        match self.entry(pos)? {
            Entry::Value { margin, .. } => Some(margin),
            Entry::Unknown => None,
        }
    }

    /// The exact future margin of `pos` for the player to move given the positions of this
    /// round seen since seeds last left the board (`history`, as repetition keys: see
    /// [`pussa_rules::GameState::history`]; `pos` itself may be included or not).
    /// `None` if not covered or not determined.
    #[must_use]
    pub fn probe_with_history(&self, pos: &Position, history: &[u128]) -> Option<i32> {
        self.probe_with_history_within(pos, history, 1 << 24)
    }

    /// [`Tables::probe_with_history`] with the search over the history's layer limited to
    /// `budget` nodes: `None` as well where it would need more.
    #[must_use]
    pub fn probe_with_history_within(
        &self,
        pos: &Position,
        history: &[u128],
        budget: u64,
    ) -> Option<i32> {
        let side = self.side_of(pos)?;
        let b = canonical(pos);
        let k = crate::moves::seeds(&b);
        let idx = self.ring.rank(side, k, &b);
        match decode(self.byte(k, idx)) {
            Entry::Unknown => return None,
            Entry::Value {
                margin,
                history: false,
            } => return Some(margin),
            Entry::Value { .. } => {}
        }
        let mut s = PathSearch::new(self, budget);
        let me = pos.to_move();
        for &key in history {
            if key == pos.repetition_key() {
                continue;
            }
            let Some((hb, side)) = board_of_key(key) else {
                continue;
            };
            if crate::moves::seeds(&hb) != k {
                continue;
            }
            let cb = if side == Side::South {
                hb
            } else {
                crate::moves::rotate(&hb)
            };
            let hside = if side == me {
                self.ring.side_of(k, idx)
            } else {
                self.ring.child_side(self.ring.side_of(k, idx))
            };
            s.push_history(self.ring.rank(hside, k, &cb), side != me);
        }
        s.search(&b, idx, k, false, -(k as i32) - 1, k as i32 + 1)
            .ok()
    }

    /// Every legal move of `pos` with its exact value, assuming the history of the round starts
    /// at `pos` (as [`Tables::probe_fresh`]). `None` if the tables do not cover `pos`.
    #[must_use]
    pub fn move_values(&self, pos: &Position) -> Option<Vec<MoveValue>> {
        let pside = self.side_of(pos)?;
        let b = canonical(pos);
        let k = crate::moves::seeds(&b);
        let idx = self.ring.rank(pside, k, &b);
        let moves = self.ring.children(pside, &b);
        let cside = self.ring.child_side(pside);
        if terminal_value(self.game, &b, &moves).is_some() {
            return Some(Vec::new());
        }
        let side = pos.to_move();
        let mut out = Vec::new();
        for c in moves.as_slice() {
            let cidx = self.ring.rank(cside, c.seeds, &c.board);
            let value = if c.seeds < k {
                match decode(self.byte(c.seeds, cidx)) {
                    Entry::Value { margin, .. } => Some(c.gain - margin),
                    Entry::Unknown => None,
                }
            } else {
                // Same layer: search with the path {pos} (a child equal to `pos` seen from the
                // other seat is not a repetition: the parity tells them apart).
                let mut s = PathSearch::new(self, 1 << 24);
                s.push_history(idx, false);
                s.search(&c.board, cidx, k, true, -(k as i32) - 1, k as i32 + 1)
                    .ok()
                    .map(|v| -v)
            };
            out.push(MoveValue {
                mv: move_letter(side, c.col),
                gain: c.gain,
                value,
            });
        }
        Some(out)
    }

    /// Re-computes `samples` positions of layer `k` (exactly that many, spread evenly over the
    /// ranks; all if `samples` is at least the layer's size, none if 0) from the other entries
    /// and compares them with the stored values. An entry without the history flag claims to
    /// be exact for every history of the round: it is proven so by the builder's bound
    /// iteration, whose bounds must meet at the stored value. First locally, over the entry
    /// and the flagged positions it reaches through flagged positions (the other unflagged
    /// positions at their stored values, each checked in turn when sampled); if that does not
    /// meet, over every position of the layer the entry can reach by non-capturing moves
    /// (re-computed from the smaller layers). Bounds that do not meet are a mismatch: the ways
    /// back to the position (the histories that can precede it) are tried to find one that
    /// changes the value ([`HistoryFault`]). An entry not proven locally that reaches more
    /// than [`HISTORY_LIMIT`] positions is counted in [`VerifyReport::history_unchecked`]
    /// instead (a mismatch if a history among the local positions changes its value). Entries not
    /// determined, and those whose re-computation meets one, are counted apart
    /// ([`VerifyReport::unresolved`]), not as mismatches.
    ///
    /// # Panics
    /// Panics if `k > self.max_seeds()` (there is no layer `k` to verify).
    #[must_use]
    pub fn verify_layer(&self, k: usize, samples: u64) -> VerifyReport {
        assert!(
            k <= self.max_seeds(),
            "no layer of {k} seeds: the tables hold 0..={}",
            self.max_seeds()
        );
        let n = self.ring.size(k);
        let idxs = sample_ranks(n, samples);
        let undetermined = (0..n)
            .into_par_iter()
            .filter(|&idx| self.byte(k, idx) == crate::value::UNDETERMINED)
            .count() as u64;
        let outcomes: Vec<Check> = idxs
            .par_iter()
            .map(|&idx| self.verify_entry(k, idx))
            .collect();
        let mut report = VerifyReport {
            seeds: k,
            entries: n,
            checked: idxs.len() as u64,
            mismatches: 0,
            examples: Vec::new(),
            undetermined,
            unresolved: 0,
            history_unchecked: 0,
        };
        for o in outcomes {
            match o {
                Check::Good => {}
                Check::Unresolved => report.unresolved += 1,
                Check::HistoryUnchecked => report.history_unchecked += 1,
                Check::Bad(m) => {
                    report.mismatches += 1;
                    if report.examples.len() < VerifyReport::SHOWN {
                        report.examples.push(*m);
                    }
                }
            }
        }
        report
    }

    /// Re-computes the entry of rank `idx` of layer `k` ([`Tables::verify_layer`]).
    fn verify_entry(&self, k: usize, idx: u64) -> Check {
        let stored = self.byte(k, idx);
        if stored == crate::value::UNDETERMINED {
            return Check::Unresolved;
        }
        let b = self.ring.unrank(k, idx);
        let flagged = stored & crate::value::HISTORY_FLAG != 0;
        let want = i32::from(stored & 0x7F) - 63;
        let bad = |recomputed: i32, history: Option<HistoryFault>| {
            let side = self.ring.side_of(k, idx);
            let closed = self.ring.pattern(side).closed_mask(self.game);
            let rest = self.game.total_seeds() - k as u8;
            let position = Position::from_parts_unchecked(
                self.game,
                b,
                closed,
                [rest - rest / 2, rest / 2],
                Side::South,
            );
            Check::Bad(Box::new(Mismatch {
                position,
                stored: want,
                flagged,
                recomputed,
                history,
            }))
        };
        let got = if flagged {
            // Flagged: settle with the path search from a fresh history.
            PathSearch::new(self, 1 << 24)
                .search(&b, idx, k, false, -(k as i32) - 1, k as i32 + 1)
                .ok()
        } else {
            self.recompute_unflagged(&b, idx, k)
        };
        let Some(got) = got else {
            return Check::Unresolved;
        };
        if got != want {
            return bad(got, None);
        }
        if !flagged {
            // Exact for any history: prove it with the bound iteration over every position the
            // entry can reach by non-capturing moves.
            match self.history_check(k, idx, &b, want) {
                History::Proven => {}
                History::TooMany => return Check::HistoryUnchecked,
                History::Unresolved => return Check::Unresolved,
                History::Differs(v) => return bad(v, None),
                History::Changes(v, fault) => return bad(v, Some(fault)),
            }
        }
        Check::Good
    }

    /// Proves that the unflagged entry `want` of board `b` (rank `idx` of layer `k`) is its
    /// value for every history of the round, with the builder's bound iteration
    /// (`lo(p) = max over moves of -max(hi(c), own(c))`, `hi(p) = max over moves of
    /// -min(lo(c), own(c))`, docs/egtb.md phase 3): every value the repetition rule can give
    /// the board lies within its bounds at every step, so bounds that meet at `want` prove the
    /// entry.
    ///
    /// First locally: over the board and the flagged positions it reaches through flagged
    /// positions, every other unflagged position taken at its stored value (each of those is
    /// checked in turn when sampled) and as a possible repetition. If that does not prove it,
    /// exactly: over every position of the layer the board can reach by non-capturing moves
    /// (at most [`HISTORY_LIMIT`]), re-computed from the smaller layers, those from which no
    /// cycle can be reached first. If those bounds do not meet, the histories that end with a
    /// way back to the board are tried (the shortest first) to find one that changes the value.
    fn history_check(&self, k: usize, idx: u64, b: &[u8; 14], want: i32) -> History {
        let mut local = Reach::default();
        if local.gather(self, k, idx, b, true).is_none() {
            return History::Unresolved;
        }
        if local.nodes.len() <= HISTORY_LIMIT {
            let (lo, hi) = local.bounds(k);
            if lo == want && hi == want {
                return History::Proven;
            }
        }
        let mut all = Reach::default();
        if all.gather(self, k, idx, b, false).is_none() {
            return History::Unresolved;
        }
        if all.nodes.len() > HISTORY_LIMIT {
            // Too many positions for the exact bounds: a history found among the local ones
            // still shows a missing flag.
            if local.nodes.len() <= HISTORY_LIMIT {
                if let Some((v, from, line)) = self.changing_history(k, &local, want) {
                    return History::Changes(v, HistoryFault::Line { from, line });
                }
            }
            return History::TooMany;
        }
        let (lo, hi) = all.bounds(k);
        if lo >= hi {
            return if lo == want {
                History::Proven
            } else {
                History::Differs(lo)
            };
        }
        if let Some((v, from, line)) = self.changing_history(k, &all, want) {
            return History::Changes(v, HistoryFault::Line { from, line });
        }
        History::Changes(
            want,
            HistoryFault::Bounds {
                lo,
                hi,
                reachable: all.nodes.len() as u64,
            },
        )
    }

    /// A history of the round that changes the value of the root of `reach` (stored as
    /// `want`): the value with it, the earlier position and the moves from there to the root.
    /// Tries the positions with a way back to the root in the order of their distance, at most
    /// [`WITNESS_TRIES`] of them.
    fn changing_history(
        &self,
        k: usize,
        reach: &Reach,
        want: i32,
    ) -> Option<(i32, Position, Vec<Hole>)> {
        let parents = reach.parents();
        // Backwards from (root, its mover to move): next[(i, parity)] = the state after it on
        // the shortest way to the root, with the column of the move.
        let n = reach.nodes.len();
        let slot = |i: u32, parity: bool| i as usize * 2 + usize::from(parity);
        let mut next: Vec<Option<(u32, u8)>> = vec![None; 2 * n];
        let mut seen = vec![false; 2 * n];
        seen[slot(0, false)] = true;
        let mut queue = std::collections::VecDeque::from([(0u32, false)]);
        let mut tries = 0;
        let root = &reach.nodes[0];
        while let Some((i, parity)) = queue.pop_front() {
            if i != 0 || parity {
                // The history: this position, then each one on the way to the root.
                let mut s = PathSearch::new(self, 1 << 22);
                let mut line = Vec::new();
                let (mut at, mut par) = (i, parity);
                while let Some((nx, col)) = next[slot(at, par)] {
                    s.push_history(reach.nodes[at as usize].idx, par);
                    let side = if par { Side::North } else { Side::South };
                    line.push(move_letter(side, col));
                    at = nx;
                    par = !par;
                }
                if let Ok(v) = s.search(
                    &root.board,
                    root.idx,
                    k,
                    false,
                    -(k as i32) - 1,
                    k as i32 + 1,
                ) {
                    if v != want {
                        let from = self.position_at(k, &reach.nodes[i as usize], parity);
                        return Some((v, from, line));
                    }
                }
                tries += 1;
                if tries >= WITNESS_TRIES {
                    return None;
                }
            }
            for &p in &parents[i as usize] {
                if seen[slot(p, !parity)] {
                    continue;
                }
                seen[slot(p, !parity)] = true;
                let node = &reach.nodes[p as usize];
                let col = reach.kids[node.kids.clone()]
                    .iter()
                    .find(|&&(c, _)| c == i)
                    .map(|&(_, col)| col)
                    .expect("a parent has the edge");
                next[slot(p, !parity)] = Some((i, col));
                queue.push_back((p, !parity));
            }
        }
        None
    }

    /// The position of a node of layer `k`: South to move for an even distance from the
    /// verified position (`parity` false), North otherwise, the seeds off the board split
    /// between the stores as for the verified position.
    fn position_at(&self, k: usize, node: &ReachNode, parity: bool) -> Position {
        let pattern = self.ring.pattern(self.ring.side_of(k, node.idx));
        let rest = self.game.total_seeds() - k as u8;
        let stores = [rest - rest / 2, rest / 2];
        if parity {
            let closed = self.game.closed_holes(Side::North, 7 - pattern.mine())
                | self.game.closed_holes(Side::South, 7 - pattern.theirs());
            Position::from_parts_unchecked(
                self.game,
                crate::moves::rotate(&node.board),
                closed,
                stores,
                Side::North,
            )
        } else {
            Position::from_parts_unchecked(
                self.game,
                node.board,
                pattern.closed_mask(self.game),
                stores,
                Side::South,
            )
        }
    }

    /// An unflagged entry from its children: the best over the moves.
    fn recompute_unflagged(&self, b: &[u8; 14], idx: u64, k: usize) -> Option<i32> {
        let side = self.ring.side_of(k, idx);
        let moves = self.ring.children(side, b);
        let cside = self.ring.child_side(side);
        if let Some(v) = terminal_value(self.game, b, &moves) {
            return Some(v);
        }
        let mut best = i32::MIN;
        for c in moves.as_slice() {
            let cidx = self.ring.rank(cside, c.seeds, &c.board);
            let byte = self.byte(c.seeds, cidx);
            match decode(byte) {
                Entry::Value { margin, history } => {
                    if c.seeds == k && history {
                        // A flagged child of an unflagged position (whose bounds met): its
                        // value after this move, with this position on the path.
                        let mut s = PathSearch::new(self, 1 << 24);
                        s.push_history(idx, false);
                        let v = s
                            .search(&c.board, cidx, k, true, -(k as i32) - 1, k as i32 + 1)
                            .ok()?;
                        best = best.max(-v);
                        continue;
                    }
                    best = best.max(c.gain - margin);
                }
                Entry::Unknown => return None,
            }
        }
        Some(best)
    }

    /// Paths of the files of this game up to `max` under `dir`.
    #[must_use]
    pub fn paths(dir: &Path, game: Game, max: usize) -> Vec<PathBuf> {
        (0..=max).map(|k| table_path(dir, game, k)).collect()
    }
}

/// At most this many positions reachable by non-capturing moves from an unflagged entry are
/// gathered to prove it exact for every history ([`Tables::verify_layer`]); an entry that
/// reaches more is counted in [`VerifyReport::history_unchecked`].
pub const HISTORY_LIMIT: usize = 1 << 14;

/// How many histories (ways back to the position) are tried to show that an unflagged entry
/// whose bounds do not meet changes its value.
const WITNESS_TRIES: usize = 256;

/// One position of layer `k` reachable from a verified one by non-capturing moves.
struct ReachNode {
    idx: u64,
    board: [u8; 14],
    /// The best value over the moves that take seeds (from the smaller layers), or the value
    /// of a board where the round is over; `i32::MIN` if neither.
    base: i32,
    /// Its same-layer moves in [`Reach::kids`] (none if not expanded).
    kids: std::ops::Range<usize>,
    /// The stored value of a position not expanded (an unflagged one, in a local gathering).
    frozen: Option<i32>,
}

/// The positions of layer `k` reachable from one (node 0) by non-capturing moves.
#[derive(Default)]
struct Reach {
    nodes: Vec<ReachNode>,
    /// (node, column of the move) of every same-layer move, node by node.
    kids: Vec<(u32, u8)>,
}

impl Reach {
    /// Gathers the positions reachable from board `b` (rank `idx` of layer `k`), stopping past
    /// [`HISTORY_LIMIT`]; with `local`, the unflagged ones other than `b` are not expanded but
    /// kept at their stored values. `None` if an entry it needs is not determined.
    fn gather(&mut self, t: &Tables, k: usize, idx: u64, b: &[u8; 14], local: bool) -> Option<()> {
        let ring = t.ring;
        let mut at = std::collections::HashMap::new();
        at.insert(idx, 0u32);
        self.nodes.push(ReachNode {
            idx,
            board: *b,
            base: i32::MIN,
            kids: 0..0,
            frozen: None,
        });
        let mut i = 0;
        while i < self.nodes.len() {
            if self.nodes.len() > HISTORY_LIMIT {
                return Some(());
            }
            let (nidx, board) = (self.nodes[i].idx, self.nodes[i].board);
            if i > 0 && local {
                match decode(t.byte(k, nidx)) {
                    Entry::Value {
                        margin,
                        history: false,
                    } => {
                        self.nodes[i].frozen = Some(margin);
                        i += 1;
                        continue;
                    }
                    Entry::Value { history: true, .. } => {}
                    Entry::Unknown => return None,
                }
            }
            let side = ring.side_of(k, nidx);
            let cside = ring.child_side(side);
            let moves = ring.children(side, &board);
            let start = self.kids.len();
            if let Some(v) = terminal_value(t.game, &board, &moves) {
                self.nodes[i].base = v;
            } else {
                let mut base = i32::MIN;
                for c in moves.as_slice() {
                    let cidx = ring.rank(cside, c.seeds, &c.board);
                    if c.seeds < k {
                        match decode(t.byte(c.seeds, cidx)) {
                            Entry::Value { margin, .. } => base = base.max(c.gain - margin),
                            Entry::Unknown => return None,
                        }
                    } else {
                        let next = self.nodes.len() as u32;
                        let j = *at.entry(cidx).or_insert(next);
                        if j == next {
                            self.nodes.push(ReachNode {
                                idx: cidx,
                                board: c.board,
                                base: i32::MIN,
                                kids: 0..0,
                                frozen: None,
                            });
                        }
                        self.kids.push((j, c.col));
                    }
                }
                self.nodes[i].base = base;
            }
            self.nodes[i].kids = start..self.kids.len();
            i += 1;
        }
        Some(())
    }

    /// The positions with a move to each node, one entry a move.
    fn parents(&self) -> Vec<Vec<u32>> {
        let mut parents: Vec<Vec<u32>> = vec![Vec::new(); self.nodes.len()];
        for (i, node) in self.nodes.iter().enumerate() {
            for &(c, _) in &self.kids[node.kids.clone()] {
                parents[c as usize].push(i as u32);
            }
        }
        parents
    }

    /// The bounds of node 0 (`lo == hi`: its value for every history). The expanded nodes
    /// from which no cycle can be reached get their exact values from the leaves up (no
    /// position can recur after them); then the bound iteration runs over the others, a
    /// worklist of the nodes with a child whose bounds moved, until node 0's bounds meet or
    /// nothing moves. A frozen node keeps its stored value, and like every node not exact may
    /// be a repetition (its row margin).
    fn bounds(&self, k: usize) -> (i32, i32) {
        let kk = k as i32;
        let n = self.nodes.len();
        let parents = self.parents();
        let mut exact: Vec<Option<i32>> = vec![None; n];
        let mut pending: Vec<usize> = self.nodes.iter().map(|v| v.kids.len()).collect();
        let mut todo: Vec<u32> = (0..n as u32)
            .filter(|&i| pending[i as usize] == 0 && self.nodes[i as usize].frozen.is_none())
            .collect();
        while let Some(i) = todo.pop() {
            let node = &self.nodes[i as usize];
            let v = self.kids[node.kids.clone()]
                .iter()
                .map(|&(c, _)| -exact[c as usize].expect("children first"))
                .fold(node.base, i32::max);
            exact[i as usize] = Some(v);
            for &p in &parents[i as usize] {
                pending[p as usize] -= 1;
                if pending[p as usize] == 0 {
                    todo.push(p);
                }
            }
        }
        if let Some(v) = exact[0] {
            return (v, v);
        }
        let own: Vec<i32> = self
            .nodes
            .iter()
            .map(|v| crate::moves::row_margin(&v.board))
            .collect();
        let mut lo: Vec<i32> = self.nodes.iter().map(|v| v.frozen.unwrap_or(-kk)).collect();
        let mut hi: Vec<i32> = self.nodes.iter().map(|v| v.frozen.unwrap_or(kk)).collect();
        let mut queued = vec![false; n];
        let mut work: std::collections::VecDeque<u32> = (0..n as u32)
            .filter(|&i| exact[i as usize].is_none() && self.nodes[i as usize].frozen.is_none())
            .collect();
        for &i in &work {
            queued[i as usize] = true;
        }
        while let Some(i) = work.pop_front() {
            let i = i as usize;
            queued[i] = false;
            let node = &self.nodes[i];
            let (mut l, mut h) = (node.base, node.base);
            for &(c, _) in &self.kids[node.kids.clone()] {
                let c = c as usize;
                let (clo, chi) = match exact[c] {
                    Some(v) => (v, v),
                    None => (lo[c].min(own[c]), hi[c].max(own[c])),
                };
                l = l.max(-chi);
                h = h.max(-clo);
            }
            let l = l.max(lo[i]);
            let h = h.min(hi[i]);
            if l != lo[i] || h != hi[i] {
                lo[i] = l;
                hi[i] = h;
                if lo[0] >= hi[0] {
                    break;
                }
                for &p in &parents[i] {
                    let p = p as usize;
                    if exact[p].is_none() && self.nodes[p].frozen.is_none() && !queued[p] {
                        queued[p] = true;
                        work.push_back(p as u32);
                    }
                }
            }
        }
        (lo[0], hi[0])
    }
}

/// What [`Tables::history_check`] found.
enum History {
    Proven,
    /// More positions reachable than [`HISTORY_LIMIT`].
    TooMany,
    /// A smaller layer's entry is not determined.
    Unresolved,
    /// The same for every history, but not the stored value.
    Differs(i32),
    /// The value a history gives (the stored one if none was found), and why.
    Changes(i32, HistoryFault),
}

/// What re-computing one entry found.
enum Check {
    Good,
    /// Not determined, or the re-computation met an entry that is not.
    Unresolved,
    /// Unflagged, its value right, but it reaches too many positions to be proven exact for
    /// every history.
    HistoryUnchecked,
    Bad(Box<Mismatch>),
}

/// `samples` distinct ranks of `0..n` spread evenly (all of them if `samples >= n`).
fn sample_ranks(n: u64, samples: u64) -> Vec<u64> {
    if samples >= n {
        return (0..n).collect();
    }
    (0..samples)
        .map(|i| (u128::from(i) * u128::from(n) / u128::from(samples)) as u64)
        .collect()
}

/// An exclusive lock on the directory of a game's tables (`<dir>/<game>`, every pattern's
/// tables under it) for a build, held until dropped: the file `.build.lock` there, locked by
/// the operating system (released when the process ends, however it ends; on Unix, elsewhere
/// there is no lock). The file stays.
#[derive(Debug)]
pub struct BuildLock {
    _file: std::fs::File,
}

impl BuildLock {
    /// Takes the lock of `game`'s tables under `dir` (creating the directories).
    ///
    /// # Errors
    /// [`FormatError::Busy`] if another build holds it, [`FormatError::WrongKind`] for a file
    /// where the directory should be, [`FormatError::CreateDir`] if the directory cannot be
    /// created, [`FormatError::Io`] if the lock file cannot be made.
    pub fn take(dir: &Path, game: Game) -> Result<BuildLock, FormatError> {
        let folder = dir.join(game.name());
        if let Some(file) = folder.ancestors().find(|a| a.is_file()) {
            return Err(FormatError::WrongKind {
                path: file.to_path_buf(),
                what: "a file, not a directory: the tables cannot be written under it".into(),
            });
        }
        let io = |path: &Path, error| FormatError::Io {
            path: path.to_path_buf(),
            error,
        };
        std::fs::create_dir_all(&folder).map_err(|error| FormatError::CreateDir {
            path: folder.clone(),
            error,
        })?;
        let path = folder.join(".build.lock");
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| io(&path, e))?;
        #[cfg(unix)]
        {
            use std::os::unix::io::AsRawFd as _;
            // SAFETY: `flock` only reads the descriptor, which `file` keeps open for the call.
            let r = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
            if r != 0 {
                let e = std::io::Error::last_os_error();
                return Err(if e.kind() == std::io::ErrorKind::WouldBlock {
                    FormatError::Busy { path: folder }
                } else {
                    io(&path, e)
                });
            }
        }
        // The lock lasts as long as the file is open (closing it releases the lock).
        Ok(BuildLock { _file: file })
    }
}

/// Why tables of `max` seeds cannot be built when `limit` is [`crate::max_build_seeds`].
#[must_use]
pub fn too_many_seeds(game: Game, pattern: Pattern, max: usize, limit: usize) -> String {
    let what = if pattern.is_open() {
        format!("the tables of {game}")
    } else {
        format!("the tables of {game} with closed holes {pattern}")
    };
    format!(
        "{max} seeds cannot be built: {what} go up to {limit} seeds at most (a layer's boards \
         are counted in 32 bits)"
    )
}

/// `Err` (the file missing, as [`Tables::open_pattern_layer`] names it) if layer `k` of `game`
/// and `pattern` (or of its mirror) is not under `dir` while a file of `k` seeds or more (up to
/// [`MAX_SEEDS`]) is: the layers found from 0 up stop at `k`, and the ones above would be left
/// out without a word.
pub(crate) fn refuse_gap(
    dir: &Path,
    game: Game,
    pattern: Pattern,
    k: usize,
) -> Result<(), FormatError> {
    let ring = PairRing::new(game, pattern);
    let patterns = if ring.has_two() {
        vec![pattern, pattern.flipped()]
    } else {
        vec![pattern]
    };
    let beyond = patterns.iter().any(|&p| {
        table_files(dir, game, p)
            .iter()
            .any(|&s| s >= k && s <= MAX_SEEDS)
    });
    if beyond {
        for &p in &patterns {
            Tables::open_pattern_layer(dir, game, p, k)?;
        }
    }
    Ok(())
}

/// A file that [`Tables::open`] found damaged or mismatched ([`FormatError::Invalid`] with no
/// remedy yet) is fixed as [`build_dir`] says for it: [`Remedy::DeleteOrRebuild`].
fn damaged_remedy(e: FormatError) -> FormatError {
    match e {
        FormatError::Invalid {
            path,
            reason,
            remedy: None,
        } => FormatError::Invalid {
            path,
            reason,
            remedy: Some(Remedy::DeleteOrRebuild),
        },
        e => e,
    }
}

/// A missing layer's [`Remedy::Build`] when `max` seeds were asked for: up to them (not only
/// to the first missing layer, nor to the suggestion for an empty directory, past them), if
/// the builder can build that many; a gap below the top is built again up to the top.
fn build_up_to(e: FormatError, max: Option<usize>) -> FormatError {
    match (e, max) {
        (
            FormatError::Missing {
                path,
                reason,
                remedy:
                    Some(Remedy::Build {
                        dir,
                        game,
                        pattern,
                        max_seeds,
                        again,
                    }),
            },
            Some(m),
        ) => {
            // New layers are built up to `m`, what the caller asked for: no more (the general
            // suggestion for a directory without tables would build more than the case needs,
            // QA pass 21, interop2 #5). Layers built again go at least to the top already there.
            let max_seeds = if m > crate::max_build_seeds(game, pattern) {
                max_seeds
            } else if again {
                max_seeds.max(m)
            } else {
                m
            };
            FormatError::Missing {
                path,
                reason,
                remedy: Some(Remedy::Build {
                    dir,
                    game,
                    pattern,
                    max_seeds,
                    again,
                }),
            }
        }
        (e, _) => e,
    }
}

/// The seed count a [`Remedy::Build`] suggests when nothing says how many are wanted: a few
/// seconds of building on two cores.
const SUGGESTED_SEEDS: usize = 14;

/// Why a table file of `game` and `pattern` with `seeds` seeds is missing, in terms of the
/// files the directory has ("the tables of raja-pasu under t go up to 4 seeds"), and what
/// builds it.
fn missing_reason(
    dir: &Path,
    game: Game,
    pattern: Pattern,
    seeds: usize,
) -> (String, Option<Remedy>) {
    let build = |max_seeds: usize, again: bool| {
        Some(Remedy::Build {
            dir: dir.to_path_buf(),
            game,
            pattern,
            max_seeds,
            again,
        })
    };
    let what = if pattern.is_open() {
        format!("tables of {game}")
    } else {
        format!("tables of {game} with closed holes {pattern}")
    };
    let found = table_files(dir, game, pattern);
    let Some(&top) = found.last() else {
        let remedy = build(seeds.max(SUGGESTED_SEEDS), false);
        if !dir.is_dir() {
            return (
                format!("there is no directory {} of tables", dir.display()),
                remedy,
            );
        }
        return (
            format!("there are no {what} under {}", dir.display()),
            remedy,
        );
    };
    let upto = format!(
        "the {what} under {} go up to {}",
        dir.display(),
        count(top as u64, "seed", "seeds")
    );
    if seeds > top {
        // More seeds than were built: building up to them keeps the layers there and adds
        // the rest, if the builder can build that many.
        let remedy = if seeds <= crate::max_build_seeds(game, pattern) {
            build(seeds, false)
        } else {
            None
        };
        (upto, remedy)
    } else {
        let gaps: Vec<String> = (0..top)
            .filter(|k| found.binary_search(k).is_err())
            .map(|k| k.to_string())
            .collect();
        (
            format!("{upto}, but not {}", gaps.join(", ")),
            build(top, true),
        )
    }
}

/// What [`Tables::check_dir`] found for one seed count.
#[derive(Debug)]
pub struct LayerCheck {
    /// Seeds.
    pub seeds: usize,
    /// What is wrong with the layer's file (or files, for a closed pattern and its mirror):
    /// missing, not a file, damaged, mismatched. Empty if the layer is good.
    pub problems: Vec<FormatError>,
}

/// The result of [`Tables::check_dir`].
pub struct DirCheck {
    /// Every seed count from 0 to the largest file found, in order (then any file of more
    /// seeds than a table can have).
    pub layers: Vec<LayerCheck>,
    /// The good layers from 0 up to the first layer with a problem, opened (`None` if layer 0
    /// has one or there is no file).
    pub tables: Option<Tables>,
}

impl DirCheck {
    /// The largest seed count checked (0 when no file was found).
    #[must_use]
    pub fn top(&self) -> usize {
        self.layers.last().map_or(0, |l| l.seeds)
    }

    /// How many layers have a problem.
    #[must_use]
    pub fn bad_layers(&self) -> usize {
        self.layers
            .iter()
            .filter(|l| !l.problems.is_empty())
            .count()
    }
}

/// The board and side to move of a repetition key.
fn board_of_key(key: u128) -> Option<([u8; 14], Side)> {
    let bytes = key.to_le_bytes();
    let mut b = [0u8; 14];
    b.copy_from_slice(&bytes[..14]);
    let side = match bytes[15] {
        0 => Side::South,
        1 => Side::North,
        _ => return None,
    };
    Some((b, side))
}

/// A layer finished by [`build_dir`].
#[derive(Clone, Debug)]
pub enum LayerEvent {
    /// A valid file was already there and was kept.
    Kept {
        /// Seeds.
        seeds: usize,
        /// The file.
        path: PathBuf,
        /// Its header.
        header: Header,
    },
    /// A file was there but holds positions not determined (built with a small `--budget`):
    /// it is built again (a [`LayerEvent::Built`] follows).
    Incomplete {
        /// Seeds.
        seeds: usize,
        /// The file.
        path: PathBuf,
        /// Positions it left undetermined (with its mirror's, for a closed pattern).
        undetermined: u64,
    },
    /// The layer was built and written.
    Built {
        /// What the build did.
        stats: crate::LayerStats,
        /// The file.
        path: PathBuf,
    },
}

/// Builds the tables of `game` for `0..=max_seeds` seeds into `dir`, keeping valid files
/// already there unless `rebuild` (a file with positions not determined is built again,
/// [`LayerEvent::Incomplete`]), and returns them (memory-mapped).
///
/// # Errors
/// More seeds than the builder can build ([`crate::max_build_seeds`], checked before any
/// work), a damaged or mismatched existing file (unless `rebuild`; its error's
/// [`FormatError::remedy`] is [`Remedy::DeleteOrRebuild`]), or a file that cannot be
/// written.
pub fn build_dir(
    dir: &Path,
    game: Game,
    max_seeds: usize,
    opts: crate::BuildOptions,
    rebuild: bool,
    progress: &(dyn Fn(crate::Progress) + Sync),
    on_layer: &mut dyn FnMut(LayerEvent),
) -> Result<Tables, FormatError> {
    build_pattern_dir(
        dir,
        game,
        Pattern::OPEN,
        max_seeds,
        opts,
        rebuild,
        progress,
        on_layer,
    )
}

/// Builds the tables of the closed pattern `pattern` of `game` and of its mirror for
/// `0..=max_seeds` seeds into `dir` (files [`crate::format::pattern_path`]), keeping valid
/// files already there unless `rebuild` (a file with positions not determined is built again),
/// and returns them. The open pattern is [`build_dir`].
///
/// # Errors
/// More seeds than the builder can build ([`crate::max_build_seeds`], checked before any
/// work), a damaged or mismatched existing file (unless `rebuild`; its error's
/// [`FormatError::remedy`] is [`Remedy::DeleteOrRebuild`]), or a file that cannot be
/// written.
#[allow(clippy::too_many_arguments)]
pub fn build_pattern_dir(
    dir: &Path,
    game: Game,
    pattern: Pattern,
    max_seeds: usize,
    opts: crate::BuildOptions,
    rebuild: bool,
    progress: &(dyn Fn(crate::Progress) + Sync),
    on_layer: &mut dyn FnMut(LayerEvent),
) -> Result<Tables, FormatError> {
    let ring = PairRing::new(game, pattern);
    let mirror = pattern.flipped();
    // Before any work: a layer the builder cannot build is refused now, not after hours.
    let limit = crate::max_build_seeds(game, pattern);
    if max_seeds > limit {
        return Err(FormatError::Invalid {
            path: pattern_path(dir, game, pattern, limit + 1),
            reason: too_many_seeds(game, pattern, max_seeds, limit),
            remedy: None,
        });
    }
    // One build at a time writes a game's tables: two would write the same temporary files.
    let _lock = BuildLock::take(dir, game)?;
    let mut layers: Vec<Layer> = Vec::new();
    let refuse = |e| match e {
        FormatError::Invalid { path, reason, .. } => FormatError::Invalid {
            path,
            reason,
            remedy: Some(Remedy::DeleteOrRebuild),
        },
        e => e,
    };
    // Before any work: no directory where a file of these layers goes.
    for k in 0..=max_seeds {
        for p in [pattern, mirror] {
            let path = pattern_path(dir, game, p, k);
            if path.is_dir() {
                return Err(FormatError::WrongKind {
                    path,
                    what: "a directory, not a table file".into(),
                });
            }
        }
    }
    for k in 0..=max_seeds {
        let path = pattern_path(dir, game, pattern, k);
        let have =
            path.exists() && (!ring.has_two() || pattern_path(dir, game, mirror, k).exists());
        // A file with positions not determined (a small `--budget`) is built again: keeping it
        // would keep them undetermined for good.
        let complete = |h: &Header| h.undetermined == 0;
        if !rebuild && have {
            let (map, header) =
                Tables::open_pattern_layer(dir, game, pattern, k).map_err(refuse)?;
            let second = if ring.has_two() {
                Some(Tables::open_pattern_layer(dir, game, mirror, k).map_err(refuse)?)
            } else {
                None
            };
            if !complete(&header) || second.as_ref().is_some_and(|(_, h)| !complete(h)) {
                let undetermined =
                    header.undetermined + second.as_ref().map_or(0, |(_, h)| h.undetermined);
                on_layer(LayerEvent::Incomplete {
                    seeds: k,
                    path: path.clone(),
                    undetermined,
                });
                drop((map, second));
                let lower: Vec<&[u8]> = layers.iter().map(Layer::bytes).collect();
                let (data, stats) =
                    crate::build_pair_layer(game, pattern, k, &lower, opts, progress);
                drop(lower);
                let path = write_layer(dir, game, pattern, k, &data, &stats)?;
                layers.push(Layer::owned(data));
                on_layer(LayerEvent::Built { stats, path });
                continue;
            }
            let layer = if let Some((m2, _)) = second {
                // The build reads a layer as one slice: both parts copied together.
                let mut v = map[HEADER_LEN..].to_vec();
                v.extend_from_slice(&m2[HEADER_LEN..]);
                Layer::owned(v)
            } else {
                Layer {
                    backing: Backing::Mapped(map),
                    mirror: None,
                }
            };
            layers.push(layer);
            on_layer(LayerEvent::Kept {
                seeds: k,
                path,
                header,
            });
            continue;
        }
        let lower: Vec<&[u8]> = layers.iter().map(Layer::bytes).collect();
        let (data, stats) = crate::build_pair_layer(game, pattern, k, &lower, opts, progress);
        drop(lower);
        let path = write_layer(dir, game, pattern, k, &data, &stats)?;
        layers.push(Layer::owned(data));
        on_layer(LayerEvent::Built { stats, path });
    }
    Ok(Tables { game, ring, layers })
}

/// Writes layer `k` of `pattern` (and of its mirror, after it in `data`) built with `stats`;
/// returns the path of the pattern's file.
fn write_layer(
    dir: &Path,
    game: Game,
    pattern: Pattern,
    k: usize,
    data: &[u8],
    stats: &crate::LayerStats,
) -> Result<PathBuf, FormatError> {
    let ring = PairRing::new(game, pattern);
    if ring.has_two() {
        let n0 = ring.part_size(0, k) as usize;
        let count = |d: &[u8]| {
            let h = d
                .iter()
                .filter(|&&b| {
                    b != crate::value::UNDETERMINED && b & crate::value::HISTORY_FLAG != 0
                })
                .count() as u64;
            let u = d
                .iter()
                .filter(|&&b| b == crate::value::UNDETERMINED)
                .count() as u64;
            (h, u)
        };
        let (h1, u1) = count(&data[n0..]);
        crate::format::write_pattern_table(dir, game, pattern.flipped(), k, &data[n0..], h1, u1)?;
        let (h0, u0) = count(&data[..n0]);
        crate::format::write_pattern_table(dir, game, pattern, k, &data[..n0], h0, u0)
    } else {
        crate::format::write_pattern_table(
            dir,
            game,
            pattern,
            k,
            data,
            stats.history,
            stats.undetermined,
        )
    }
}
