//! [`Tables`]: the finished tables of one game, memory-mapped from their files (or held in
//! memory after a build), and probing.

use std::fs::File;
use std::path::{Path, PathBuf};

use memmap2::Mmap;
use pussa_rules::{Game, Hole, Position, Side};
use rayon::prelude::*;

use crate::format::{checksum, table_path, FormatError, Header, HEADER_LEN};
use crate::index::{layer_size, rank};
use crate::moves::{canonical, children, move_letter, terminal_value};
use crate::search::{Lookup, PathSearch};
use crate::value::{decode, is_valid_byte, Entry};

enum Backing {
    Mapped(Mmap),
    Owned(Vec<u8>),
}

/// One layer's bytes.
struct Layer {
    backing: Backing,
}

impl Layer {
    #[inline]
    fn bytes(&self) -> &[u8] {
        match &self.backing {
            Backing::Mapped(m) => &m[HEADER_LEN..],
            Backing::Owned(v) => v,
        }
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
/// assert!(t.probe(&pos).is_some());
/// ```
pub struct Tables {
    game: Game,
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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VerifyReport {
    /// Seeds.
    pub seeds: usize,
    /// Entries in the layer.
    pub entries: u64,
    /// Positions re-computed.
    pub checked: u64,
    /// Positions whose stored value disagrees with the one re-computed from the tables.
    pub mismatches: u64,
}

impl Lookup for Tables {
    fn game(&self) -> Game {
        self.game
    }
    #[inline]
    fn byte(&self, k: usize, idx: u64) -> u8 {
        self.layers[k].bytes()[idx as usize]
    }
}

impl Tables {
    /// Tables from layers built in memory, `layers[k]` for `k` seeds.
    ///
    /// # Panics
    /// Panics if a layer has the wrong size.
    #[must_use]
    pub fn from_layers(game: Game, layers: Vec<Vec<u8>>) -> Tables {
        for (k, l) in layers.iter().enumerate() {
            assert_eq!(
                l.len() as u64,
                layer_size(k),
                "layer {k} has the wrong size"
            );
        }
        Tables {
            game,
            layers: layers
                .into_iter()
                .map(|v| Layer {
                    backing: Backing::Owned(v),
                })
                .collect(),
        }
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

    /// Opens and checks one table file (header, size, checksum, every byte valid).
    ///
    /// # Errors
    /// [`FormatError`] naming the file and the problem.
    pub fn open_layer(dir: &Path, game: Game, seeds: usize) -> Result<(Mmap, Header), FormatError> {
        let path = table_path(dir, game, seeds);
        let io = |error| FormatError::Io {
            path: path.clone(),
            error,
        };
        let file = File::open(&path).map_err(io)?;
        // SAFETY: the file is opened read-only; tables are written to a temporary file and
        // renamed into place, never modified in place by this program.
        let map = unsafe { Mmap::map(&file) }.map_err(io)?;
        let header = Header::parse(&map, &path, game, seeds)?;
        let payload = &map[HEADER_LEN..];
        if checksum(payload) != header.checksum {
            return Err(FormatError::Invalid {
                path,
                reason: "payload checksum mismatch: the table is damaged".into(),
            });
        }
        if let Some(pos) = payload.par_iter().position_any(|&b| !is_valid_byte(b)) {
            return Err(FormatError::Invalid {
                path,
                reason: format!("invalid value byte at entry {pos}"),
            });
        }
        Ok((map, header))
    }

    /// Opens the tables of `game` under `dir` for seed counts `0..=max` (all present files from
    /// 0 up if `max` is `None`). Every file is checked before it is used.
    ///
    /// # Errors
    /// A missing layer below `max`, or any damaged or mismatched file.
    pub fn open(dir: &Path, game: Game, max: Option<usize>) -> Result<Tables, FormatError> {
        let mut layers = Vec::new();
        let mut k = 0;
        loop {
            if let Some(m) = max {
                if k > m {
                    break;
                }
            } else if !table_path(dir, game, k).exists() {
                break;
            }
            let (map, _) = Tables::open_layer(dir, game, k)?;
            layers.push(Layer {
                backing: Backing::Mapped(map),
            });
            k += 1;
        }
        if layers.is_empty() {
            return Err(FormatError::Invalid {
                path: table_path(dir, game, 0),
                reason: format!("no tables for {game} (build them with `pussa egtb build`)"),
            });
        }
        Ok(Tables { game, layers })
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

    /// The raw bytes of layer `k`.
    ///
    /// # Panics
    /// Panics if `k > max_seeds()`.
    #[must_use]
    pub fn layer(&self, k: usize) -> &[u8] {
        self.layers[k].bytes()
    }

    /// The table entry of a board seen from the player to move.
    #[must_use]
    pub fn entry_of_board(&self, b: &[u8; 14]) -> Option<Entry> {
        let k = crate::moves::seeds(b);
        (k <= self.max_seeds()).then(|| decode(self.byte(k, rank(b))))
    }

    fn covers(&self, pos: &Position) -> bool {
        pos.game() == self.game
            && pos.closed_mask() == 0
            && pos.seeds_on_board() as usize <= self.max_seeds()
    }

    /// The table entry of `pos` (any stores, either side to move), `None` if the tables do not
    /// cover it (another game, closed holes, too many seeds).
    #[must_use]
    pub fn entry(&self, pos: &Position) -> Option<Entry> {
        if !self.covers(pos) {
            return None;
        }
        self.entry_of_board(&canonical(pos))
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
        if !self.covers(pos) {
            return None;
        }
        let b = canonical(pos);
        let k = crate::moves::seeds(&b);
        let idx = rank(&b);
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
            s.push_history(rank(&cb), side != me);
        }
        s.search(&b, idx, k, false, -(k as i32) - 1, k as i32 + 1)
            .ok()
    }

    /// Every legal move of `pos` with its exact value, assuming the history of the round starts
    /// at `pos` (as [`Tables::probe_fresh`]). `None` if the tables do not cover `pos`.
    #[must_use]
    pub fn move_values(&self, pos: &Position) -> Option<Vec<MoveValue>> {
        if !self.covers(pos) {
            return None;
        }
        let b = canonical(pos);
        let k = crate::moves::seeds(&b);
        let idx = rank(&b);
        let moves = children(self.game, &b);
        if terminal_value(self.game, &b, &moves).is_some() {
            return Some(Vec::new());
        }
        let side = pos.to_move();
        let mut out = Vec::new();
        for c in moves.as_slice() {
            let cidx = rank(&c.board);
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

    /// Re-computes `samples` positions of layer `k` (spread evenly; all if `samples` is at least
    /// the layer's size) from the other entries and compares them with the stored values.
    #[must_use]
    pub fn verify_layer(&self, k: usize, samples: u64) -> VerifyReport {
        let n = layer_size(k);
        let step = (n / samples.max(1)).max(1);
        let idxs: Vec<u64> = (0..n).step_by(step as usize).collect();
        let mismatches = idxs
            .par_iter()
            .filter(|&&idx| {
                let b = crate::index::unrank(k, idx);
                let stored = self.byte(k, idx);
                let mut s = PathSearch::new(self, 1 << 24);
                let got = if stored & crate::value::HISTORY_FLAG != 0 && stored != 0xFF {
                    // Flagged: settle with the path search from a fresh history.
                    s.search(&b, idx, k, false, -(k as i32) - 1, k as i32 + 1)
                        .ok()
                } else if stored == 0xFF {
                    return false;
                } else {
                    self.recompute_unflagged(&b, idx, k)
                };
                got != Some(i32::from(stored & 0x7F) - 63)
            })
            .count() as u64;
        VerifyReport {
            seeds: k,
            entries: n,
            checked: idxs.len() as u64,
            mismatches,
        }
    }

    /// An unflagged entry from its children: the best over the moves.
    fn recompute_unflagged(&self, b: &[u8; 14], idx: u64, k: usize) -> Option<i32> {
        let moves = children(self.game, b);
        if let Some(v) = terminal_value(self.game, b, &moves) {
            return Some(v);
        }
        let mut best = i32::MIN;
        for c in moves.as_slice() {
            let cidx = rank(&c.board);
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
    /// The layer was built and written.
    Built {
        /// What the build did.
        stats: crate::LayerStats,
        /// The file.
        path: PathBuf,
    },
}

/// Builds the tables of `game` for `0..=max_seeds` seeds into `dir`, keeping valid files
/// already there unless `rebuild`, and returns them (memory-mapped).
///
/// # Errors
/// A damaged or mismatched existing file (unless `rebuild`), or a file that cannot be written.
pub fn build_dir(
    dir: &Path,
    game: Game,
    max_seeds: usize,
    opts: crate::BuildOptions,
    rebuild: bool,
    progress: &(dyn Fn(crate::Progress) + Sync),
    on_layer: &mut dyn FnMut(LayerEvent),
) -> Result<Tables, FormatError> {
    let mut layers: Vec<Layer> = Vec::new();
    for k in 0..=max_seeds {
        let path = table_path(dir, game, k);
        if !rebuild && path.exists() {
            let (map, header) = Tables::open_layer(dir, game, k).map_err(|e| match e {
                FormatError::Invalid { path, reason } => FormatError::Invalid {
                    path,
                    reason: format!("{reason} (delete it or build with --rebuild)"),
                },
                e => e,
            })?;
            layers.push(Layer {
                backing: Backing::Mapped(map),
            });
            on_layer(LayerEvent::Kept {
                seeds: k,
                path,
                header,
            });
            continue;
        }
        let lower: Vec<&[u8]> = layers.iter().map(Layer::bytes).collect();
        let (data, stats) = crate::build_layer(game, k, &lower, opts, progress);
        drop(lower);
        let path =
            crate::format::write_table(dir, game, k, &data, stats.history, stats.undetermined)?;
        layers.push(Layer {
            backing: Backing::Owned(data),
        });
        on_layer(LayerEvent::Built { stats, path });
    }
    Ok(Tables { game, layers })
}
