//! [`Tables`]: the finished tables of one game, memory-mapped from their files (or held in
//! memory after a build), and probing.

use std::path::{Path, PathBuf};

use memmap2::Mmap;
use pussa_rules::{Game, Hole, Position, Side};
use rayon::prelude::*;

use crate::format::{
    check_payload, count, map_table, pattern_path, table_files, table_path, FormatError, Header,
    HEADER_LEN,
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

/// One legal move with its exact value.
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
    /// The re-computed margin: for a fresh history, or (when `history` is `Some`) the value
    /// with one earlier position of the round that the unflagged entry claims not to matter.
    pub recomputed: i32,
    /// For an entry stored without the history flag whose value a history changes: the move
    /// (of the player to move) to the earlier position that makes the difference.
    pub history: Option<Hole>,
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
    /// Panics if a layer has the wrong size.
    #[must_use]
    pub fn from_layers(game: Game, layers: Vec<Vec<u8>>) -> Tables {
        Tables::from_pattern_layers(game, Pattern::OPEN, layers)
    }

    /// Tables of the closed pattern `pattern` and its mirror from layers built in memory
    /// (`layers[k]` as [`crate::build_pair_layer`] returns them).
    ///
    /// # Panics
    /// Panics if a layer has the wrong size.
    #[must_use]
    pub fn from_pattern_layers(game: Game, pattern: Pattern, layers: Vec<Vec<u8>>) -> Tables {
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
            return Err(FormatError::Missing {
                reason: missing_reason(dir, game, pattern, seeds),
                path,
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
    /// seed counts the directory has; any damaged or mismatched file, or a directory where a
    /// file should be.
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
    /// seed counts the directory has; any damaged or mismatched file, or a directory where a
    /// file should be.
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
            let (map, _) = Tables::open_pattern_layer(dir, game, pattern, k)?;
            let second = if ring.has_two() {
                let (m, _) = Tables::open_pattern_layer(dir, game, mirror, k)?;
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
            refuse_gap(dir, game, pattern, k)?;
        }
        if layers.is_empty() {
            let build = build_command(dir, game, pattern, max.unwrap_or(SUGGESTED_SEEDS));
            return Err(FormatError::Invalid {
                path: pattern_path(dir, game, pattern, 0),
                reason: if pattern.is_open() {
                    format!("no tables for {game} (build them with `{build}`)")
                } else {
                    format!("no tables for {game} with closed holes {pattern} (build them with `{build}`)")
                },
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
        let mut s = PathSearch::new(self, 1 << 24);
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
    /// and compares them with the stored values. An entry without the history flag (exact for
    /// any history) is also re-computed with each same-layer child of the position from which
    /// the position can be reached again as an earlier position of the round: a value that
    /// changes needed the flag (a child whose way back takes more than 65,536 positions to
    /// find is not tried). Entries not
    /// determined, and those whose re-computation meets one, are counted apart
    /// ([`VerifyReport::unresolved`]), not as mismatches.
    #[must_use]
    pub fn verify_layer(&self, k: usize, samples: u64) -> VerifyReport {
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
        };
        for o in outcomes {
            match o {
                Check::Good => {}
                Check::Unresolved => report.unresolved += 1,
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
        let bad = |recomputed: i32, history: Option<Hole>| {
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
            // Exact for any history: with a same-layer child already seen in the round (the
            // move to it repeats a position), the value must stay the same. Only a child from
            // which the position can be reached again can have been seen before it.
            let side = self.ring.side_of(k, idx);
            let cside = self.ring.child_side(side);
            let moves = self.ring.children(side, &b);
            if terminal_value(self.game, &b, &moves).is_none() {
                for c in moves.as_slice().iter().filter(|c| c.seeds == k) {
                    let cidx = self.ring.rank(cside, k, &c.board);
                    if !self.reaches(k, (cidx, cside, c.board), idx) {
                        continue;
                    }
                    let mut s = PathSearch::new(self, 1 << 24);
                    s.push_history(cidx, true);
                    match s.search(&b, idx, k, false, -(k as i32) - 1, k as i32 + 1) {
                        Ok(v) if v != want => {
                            return bad(v, Some(move_letter(Side::South, c.col)));
                        }
                        Ok(_) => {}
                        Err(_) => return Check::Unresolved,
                    }
                }
            }
        }
        Check::Good
    }

    /// True if a chain of non-capturing moves leads from `from` (rank, pattern side and board
    /// of a position of layer `k`, the opponent of the position `target` to move) back to
    /// `target` with the same player to move; false if not or if more than [`REACH_LIMIT`]
    /// positions would have to be looked at to tell.
    fn reaches(&self, k: usize, from: (u64, u8, [u8; 14]), target: u64) -> bool {
        let mut seen = std::collections::HashSet::new();
        // (rank, parity: true if the opponent of the target's mover is to move, side, board)
        let mut todo = vec![(from.0, true, from.1, from.2)];
        seen.insert((from.0, true));
        while let Some((idx, parity, side, b)) = todo.pop() {
            if idx == target && !parity {
                return true;
            }
            if seen.len() > REACH_LIMIT {
                return false;
            }
            let moves = self.ring.children(side, &b);
            if terminal_value(self.game, &b, &moves).is_some() {
                continue;
            }
            let cside = self.ring.child_side(side);
            for c in moves.as_slice().iter().filter(|c| c.seeds == k) {
                let cidx = self.ring.rank(cside, k, &c.board);
                if seen.insert((cidx, !parity)) {
                    todo.push((cidx, !parity, cside, c.board));
                }
            }
        }
        false
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

/// How many positions [`Tables::verify_layer`] looks at to tell whether a child of a position
/// can lead back to it (past it, that child's repetition is not tried).
const REACH_LIMIT: usize = 1 << 9;

/// What re-computing one entry found.
enum Check {
    Good,
    /// Not determined, or the re-computation met an entry that is not.
    Unresolved,
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
    /// where the directory should be, [`FormatError::Io`] if the lock file cannot be made.
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
        std::fs::create_dir_all(&folder).map_err(|e| io(&folder, e))?;
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

/// The seed count a "build them with" hint suggests when nothing says how many are wanted: a
/// few seconds of building on two cores.
const SUGGESTED_SEEDS: usize = 14;

/// The command that builds the tables of `game` and `pattern` under `dir` up to `seeds` seeds,
/// as it can be pasted: closed patterns (with their mirrors) are built with `--closed a-b`.
fn build_command(dir: &Path, game: Game, pattern: Pattern, seeds: usize) -> String {
    let mut cmd = format!(
        "pussa egtb build --game {game} --max-seeds {seeds} --dir {}",
        dir.display()
    );
    if !pattern.is_open() {
        cmd.push_str(&format!(" --closed {}", &pattern.dir_name()[1..]));
    }
    cmd
}

/// Why a table file of `game` and `pattern` with `seeds` seeds is missing, in terms of the
/// files the directory has: "the tables of raja-pasu under t go up to 4 seeds".
fn missing_reason(dir: &Path, game: Game, pattern: Pattern, seeds: usize) -> String {
    let what = if pattern.is_open() {
        format!("tables of {game}")
    } else {
        format!("tables of {game} with closed holes {pattern}")
    };
    let found = table_files(dir, game, pattern);
    let Some(&top) = found.last() else {
        let build = build_command(dir, game, pattern, seeds.max(SUGGESTED_SEEDS));
        if !dir.is_dir() {
            return format!(
                "there is no directory {} (a directory of tables, built with `{build}`)",
                dir.display()
            );
        }
        return format!(
            "there are no {what} under {} (build them with `{build}`)",
            dir.display()
        );
    };
    let upto = format!(
        "the {what} under {} go up to {}",
        dir.display(),
        count(top as u64, "seed", "seeds")
    );
    if seeds > top {
        upto
    } else {
        let build = build_command(dir, game, pattern, top);
        let gaps: Vec<String> = (0..top)
            .filter(|k| found.binary_search(k).is_err())
            .map(|k| k.to_string())
            .collect();
        format!(
            "{upto}, but not {} (`{build}` builds the missing layers again)",
            gaps.join(", ")
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
/// work), a damaged or mismatched existing file (unless `rebuild`), or a file that cannot be
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
/// work), a damaged or mismatched existing file (unless `rebuild`), or a file that cannot be
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
        });
    }
    // One build at a time writes a game's tables: two would write the same temporary files.
    let _lock = BuildLock::take(dir, game)?;
    let mut layers: Vec<Layer> = Vec::new();
    let refuse = |e| match e {
        FormatError::Invalid { path, reason } => FormatError::Invalid {
            path,
            reason: format!("{reason} (delete it or build with --rebuild)"),
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
