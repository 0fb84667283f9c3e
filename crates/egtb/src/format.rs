//! The `.pegtb` file format: one file per game and seed count.
//!
//! ```text
//! offset size  field
//!      0    8  magic "PUSSAEGT"
//!      8    2  format version (1), little-endian
//!     10    2  value encoding (1: one byte a position, see `value`)
//!     12    1  game (0 walak-pussa, 1 raja-pasu, 2 pasu-pondi, 3 pasu-pondi-6)
//!     13    1  closed holes in the mover's row (0 on the open board)
//!     14    1  closed holes in the opponent's row (0 on the open board)
//!     15    1  zero
//!     16    4  seeds on the board (k)
//!     20    4  zero
//!     24    8  entries = C(k + n - 1, n - 1), n = 14 - closed holes
//!     32    8  positions with the history flag
//!     40    8  positions not determined
//!     48    8  checksum of the payload
//!     56    8  checksum of bytes 0..56
//!     64    -  payload: one byte per board, in rank order
//! ```
//! All integers are little-endian. The checksum is FNV-1a over 64-bit little-endian words (the
//! tail padded with zeros), then mixed with the length.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use pussa_rules::Game;

use crate::index::layer_size_in;
use crate::moves::Pattern;

/// The file magic.
pub const MAGIC: &[u8; 8] = b"PUSSAEGT";
/// The format version written and accepted.
pub const VERSION: u16 = 1;
/// The value encoding written and accepted.
pub const ENCODING: u16 = 1;
/// Header length in bytes.
pub const HEADER_LEN: usize = 64;

/// Why a table file was refused.
#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    /// The file could not be read or written.
    #[error("{path}: {error}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        error: std::io::Error,
    },
    /// The file is not a table or is damaged.
    #[error("{path}: {reason}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

/// The header of a table file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// The game.
    pub game: Game,
    /// The closed holes, seen from the player to move ([`Pattern::OPEN`] for the open board).
    pub pattern: Pattern,
    /// Seeds on the board.
    pub seeds: usize,
    /// Number of entries.
    pub entries: u64,
    /// Positions with the history flag.
    pub history: u64,
    /// Positions not determined.
    pub undetermined: u64,
    /// Checksum of the payload.
    pub checksum: u64,
}

/// The game's code in the header.
#[must_use]
pub fn game_code(game: Game) -> u8 {
    match game {
        Game::WalakPussa => 0,
        Game::RajaPasu => 1,
        Game::PasuPondi => 2,
        Game::PasuPondi6 => 3,
    }
}

fn game_of_code(c: u8) -> Option<Game> {
    Game::ALL.into_iter().find(|&g| game_code(g) == c)
}

/// The 64-bit checksum of `data`.
#[must_use]
pub fn checksum(data: &[u8]) -> u64 {
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut words = data.chunks_exact(8);
    for w in &mut words {
        h = (h ^ u64::from_le_bytes(w.try_into().expect("8 bytes"))).wrapping_mul(PRIME);
    }
    let rest = words.remainder();
    if !rest.is_empty() {
        let mut last = [0u8; 8];
        last[..rest.len()].copy_from_slice(rest);
        h = (h ^ u64::from_le_bytes(last)).wrapping_mul(PRIME);
    }
    h ^= data.len() as u64;
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^ (h >> 33)
}

impl Header {
    /// The 64 header bytes.
    #[must_use]
    pub fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        b[..8].copy_from_slice(MAGIC);
        b[8..10].copy_from_slice(&VERSION.to_le_bytes());
        b[10..12].copy_from_slice(&ENCODING.to_le_bytes());
        b[12] = game_code(self.game);
        b[13] = self.pattern.mine;
        b[14] = self.pattern.theirs;
        b[16..20].copy_from_slice(&(self.seeds as u32).to_le_bytes());
        b[24..32].copy_from_slice(&self.entries.to_le_bytes());
        b[32..40].copy_from_slice(&self.history.to_le_bytes());
        b[40..48].copy_from_slice(&self.undetermined.to_le_bytes());
        b[48..56].copy_from_slice(&self.checksum.to_le_bytes());
        let hc = checksum(&b[..56]);
        b[56..64].copy_from_slice(&hc.to_le_bytes());
        b
    }

    /// Parses and checks a header read from `path`, which must be for `game` and `seeds`.
    ///
    /// # Errors
    /// [`FormatError::Invalid`] naming the first problem.
    pub fn parse(
        bytes: &[u8],
        path: &Path,
        game: Game,
        seeds: usize,
    ) -> Result<Header, FormatError> {
        Header::parse_pattern(bytes, path, game, Pattern::OPEN, seeds)
    }

    /// Parses and checks a header read from `path`, which must be for `game`, the closed
    /// pattern `pattern` and `seeds`.
    ///
    /// # Errors
    /// [`FormatError::Invalid`] naming the first problem.
    pub fn parse_pattern(
        bytes: &[u8],
        path: &Path,
        game: Game,
        pattern: Pattern,
        seeds: usize,
    ) -> Result<Header, FormatError> {
        let bad = |reason: String| FormatError::Invalid {
            path: path.to_path_buf(),
            reason,
        };
        if bytes.len() < HEADER_LEN {
            return Err(bad(format!(
                "truncated: {} bytes, shorter than the {HEADER_LEN}-byte header",
                bytes.len()
            )));
        }
        if &bytes[..8] != MAGIC {
            return Err(bad("not a pussa endgame table (bad magic)".into()));
        }
        let u16_at = |o: usize| u16::from_le_bytes([bytes[o], bytes[o + 1]]);
        let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().expect("4"));
        let u64_at = |o: usize| u64::from_le_bytes(bytes[o..o + 8].try_into().expect("8"));
        if u64_at(56) != checksum(&bytes[..56]) {
            return Err(bad("header checksum mismatch: the header is damaged".into()));
        }
        if u16_at(8) != VERSION {
            return Err(bad(format!(
                "format version {} (this program reads {VERSION})",
                u16_at(8)
            )));
        }
        if u16_at(10) != ENCODING {
            return Err(bad(format!(
                "value encoding {} (this program reads {ENCODING})",
                u16_at(10)
            )));
        }
        let found = game_of_code(bytes[12])
            .ok_or_else(|| bad(format!("unknown game code {}", bytes[12])))?;
        if found != game {
            return Err(bad(format!("table of {found}, expected {game}")));
        }
        if bytes[15] != 0 || bytes[13] > 6 || bytes[14] > 6 {
            return Err(bad(format!(
                "invalid closed-hole bytes {} {} {}",
                bytes[13], bytes[14], bytes[15]
            )));
        }
        let found = Pattern::new(bytes[13], bytes[14]);
        if found != pattern {
            return Err(bad(format!(
                "table of closed pattern {found}, expected {pattern}"
            )));
        }
        let k = u32_at(16) as usize;
        if k != seeds {
            return Err(bad(format!("table of {k} seeds, expected {seeds}")));
        }
        let entries = u64_at(24);
        let size = layer_size_in(pattern.holes(), seeds);
        if entries != size {
            return Err(bad(format!(
                "{entries} entries, but {seeds} seeds make {size} boards"
            )));
        }
        let have = (bytes.len() - HEADER_LEN) as u64;
        if have != entries {
            return Err(bad(format!(
                "{} payload: {have} bytes, expected {entries}",
                if have < entries {
                    "truncated"
                } else {
                    "oversized"
                }
            )));
        }
        Ok(Header {
            game,
            pattern,
            seeds,
            entries,
            history: u64_at(32),
            undetermined: u64_at(40),
            checksum: u64_at(48),
        })
    }
}

/// The file of `game`'s table with `seeds` seeds under `dir`: `dir/<game>/<seeds>.pegtb`.
#[must_use]
pub fn table_path(dir: &Path, game: Game, seeds: usize) -> PathBuf {
    dir.join(game.name()).join(format!("{seeds}.pegtb"))
}

/// The file of the table of `game` with the closed holes `pattern` and `seeds` seeds under
/// `dir`: `dir/<game>/c<mine>-<theirs>/<seeds>.pegtb`, or [`table_path`] for the open board.
#[must_use]
pub fn pattern_path(dir: &Path, game: Game, pattern: Pattern, seeds: usize) -> PathBuf {
    if pattern.is_open() {
        return table_path(dir, game, seeds);
    }
    dir.join(game.name())
        .join(pattern.dir_name())
        .join(format!("{seeds}.pegtb"))
}

/// Writes a table of the open board (to a temporary file, then renamed into place).
///
/// # Errors
/// [`FormatError::Io`] if the file cannot be written.
pub fn write_table(
    dir: &Path,
    game: Game,
    seeds: usize,
    data: &[u8],
    history: u64,
    undetermined: u64,
) -> Result<PathBuf, FormatError> {
    write_pattern_table(dir, game, Pattern::OPEN, seeds, data, history, undetermined)
}

/// Writes a table of the closed pattern `pattern` ([`pattern_path`]; temporary file, then
/// renamed into place).
///
/// # Errors
/// [`FormatError::Io`] if the file cannot be written.
pub fn write_pattern_table(
    dir: &Path,
    game: Game,
    pattern: Pattern,
    seeds: usize,
    data: &[u8],
    history: u64,
    undetermined: u64,
) -> Result<PathBuf, FormatError> {
    let path = pattern_path(dir, game, pattern, seeds);
    let io = |error| FormatError::Io {
        path: path.clone(),
        error,
    };
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(io)?;
    }
    let header = Header {
        game,
        pattern,
        seeds,
        entries: data.len() as u64,
        history,
        undetermined,
        checksum: checksum(data),
    };
    let tmp = path.with_extension("pegtb.tmp");
    let write = || -> std::io::Result<()> {
        let mut f = File::create(&tmp)?;
        f.write_all(&header.to_bytes())?;
        f.write_all(data)?;
        f.sync_all()?;
        std::fs::rename(&tmp, &path)
    };
    write().map_err(io)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksum_sees_every_byte_and_the_length() {
        let a = vec![0u8; 100];
        let mut b = a.clone();
        b[99] = 1;
        assert_ne!(checksum(&a), checksum(&b));
        assert_ne!(checksum(&a[..99]), checksum(&a));
        assert_eq!(checksum(&a), checksum(&a.clone()));
    }
}
