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

use memmap2::Mmap;
use pussa_rules::Game;

use crate::index::{layer_size_in, MAX_SEEDS};
use crate::moves::Pattern;
use crate::value::{HISTORY_FLAG, UNDETERMINED, UNSOLVED};

/// The file magic.
pub const MAGIC: &[u8; 8] = b"PUSSAEGT";
/// The format version written and accepted.
pub const VERSION: u16 = 1;
/// The value encoding written and accepted.
pub const ENCODING: u16 = 1;
/// Header length in bytes.
pub const HEADER_LEN: usize = 64;

/// The OS's error in words, as the messages give it: a write past the process's file size
/// limit (`EFBIG`, `ulimit -f`, systemd `LimitFSIZE=`; the process ignores SIGXFSZ to see it)
/// is named as that limit, not only "File too large".
#[must_use]
pub fn io_words(e: &std::io::Error) -> String {
    if e.kind() == std::io::ErrorKind::FileTooLarge {
        return "file too large (the process's file size limit: ulimit -f, systemd LimitFSIZE=)"
            .to_string();
    }
    e.to_string()
}

/// Why a table file was refused.
///
/// New kinds of problems may be added (`#[non_exhaustive]`): a `match` outside this crate needs
/// a `_` arm, so that a new variant is not a breaking change. Every variant listed, without it,
/// does not compile:
/// ```compile_fail
/// # use pussa_egtb::FormatError;
/// fn kind(e: &FormatError) -> &str {
///     match e {
///         FormatError::Io { .. } => "io",
///         FormatError::CreateDir { .. } => "create dir",
///         FormatError::Invalid { .. } => "invalid",
///         FormatError::Missing { .. } => "missing",
///         FormatError::WrongKind { .. } => "wrong kind",
///         FormatError::Busy { .. } => "busy",
///     }
/// }
/// ```
/// The same `match` with a `_` arm compiles (the wildcard is all that was missing):
/// ```
/// # use pussa_egtb::FormatError;
/// fn kind(e: &FormatError) -> &str {
///     match e {
///         FormatError::Io { .. } => "io",
///         FormatError::CreateDir { .. } => "create dir",
///         FormatError::Invalid { .. } => "invalid",
///         FormatError::Missing { .. } => "missing",
///         FormatError::WrongKind { .. } => "wrong kind",
///         FormatError::Busy { .. } => "busy",
///         _ => "another",
///     }
/// }
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FormatError {
    /// The file could not be read or written (the OS's error; a write past the process's file
    /// size limit is named as such, see [`io_words`]).
    #[error("{path}: {}", io_words(error))]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        error: std::io::Error,
    },
    /// The directory of the tables could not be created (the OS's error).
    #[error("cannot create the directory {path}: {}", io_words(error))]
    CreateDir {
        /// The directory.
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
        /// What would fix it, when the library knows ([`FormatError::remedy`]).
        remedy: Option<Remedy>,
    },
    /// A table file that is needed is not there.
    #[error("{path} is missing: {reason}")]
    Missing {
        /// The file.
        path: PathBuf,
        /// What the directory holds instead (which seed counts).
        reason: String,
        /// What would fix it, when the library knows ([`FormatError::remedy`]).
        remedy: Option<Remedy>,
    },
    /// Something other than a table file is where a table file should be (a directory), or a
    /// file where a directory of tables should be.
    #[error("{path} is {what}")]
    WrongKind {
        /// The path.
        path: PathBuf,
        /// What it is, and what it should be ("a directory, not a table file").
        what: String,
    },
    /// Another build holds the lock of the directory of a game's tables
    /// ([`crate::BuildLock`]).
    #[error("another build is writing {path} (wait for it to finish, or stop it)")]
    Busy {
        /// The game's directory of tables.
        path: PathBuf,
    },
}

/// What would fix a [`FormatError`]. The library's messages describe the problem only; a front
/// end turns this into its own advice (`pussa` prints the command line that does it, a program
/// of one's own may call the API or show a button).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Remedy {
    /// Building the tables of `game` (closed pattern `pattern`, with its mirror) under `dir` up
    /// to `max_seeds` seeds ([`crate::build_dir`], [`crate::build_pattern_dir`]). `again`: the
    /// directory has some of these layers, and the build makes the missing ones again.
    Build {
        /// The directory of tables (the one given to `open`/`build_dir`).
        dir: PathBuf,
        /// The game.
        game: Game,
        /// The closed pattern ([`Pattern::OPEN`] for the open board).
        pattern: Pattern,
        /// The seed counts to build, `0..=max_seeds`.
        max_seeds: usize,
        /// Some layers are there: the build makes the missing ones again.
        again: bool,
    },
    /// Deleting the damaged file, or building with `rebuild: true` ([`crate::build_dir`]),
    /// which builds it again instead of keeping it.
    DeleteOrRebuild,
    /// Checking the tables ([`crate::Tables::verify_layer`]): their entries contradict
    /// themselves ([`crate::solve::SolveError::remedy`]), and the check names the damaged file.
    Verify,
}

/// The fix in plain words, for a front end with no command line of its own to name (a server's
/// log): "build the tables of raja-pasu up to 12 seeds in data/egtb", "delete the damaged file
/// or build its tables again", "verify the tables".
impl std::fmt::Display for Remedy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Remedy::Build {
                dir,
                game,
                pattern,
                max_seeds,
                again,
            } => {
                let what = if *again {
                    "build the missing tables"
                } else {
                    "build the tables"
                };
                write!(f, "{what} of {game}")?;
                if !pattern.is_open() {
                    let holes = |n: u8| {
                        if n == 1 {
                            "1 hole".to_string()
                        } else {
                            format!("{n} holes")
                        }
                    };
                    write!(
                        f,
                        " with {} closed in the mover's row and {} in the other's",
                        holes(pattern.mine()),
                        pattern.theirs()
                    )?;
                }
                write!(f, " up to {max_seeds} seeds in {}", dir.display())
            }
            Remedy::DeleteOrRebuild => {
                f.write_str("delete the damaged file or build its tables again")
            }
            Remedy::Verify => f.write_str("verify the tables"),
        }
    }
}

impl Remedy {
    /// A [`Remedy::Build`] of new layers (not `again`) that builds no more than `seeds` seeds
    /// ([`FormatError::needing_at_most`]); any other remedy as it is.
    fn at_most(self, seeds: usize) -> Remedy {
        match self {
            Remedy::Build {
                dir,
                game,
                pattern,
                max_seeds,
                again: false,
            } => Remedy::Build {
                dir,
                game,
                pattern,
                max_seeds: max_seeds.min(seeds),
                again: false,
            },
            r => r,
        }
    }
}

impl FormatError {
    /// What would fix the error, when the library knows: a missing table or directory is built
    /// ([`Remedy::Build`]), a damaged file a build would keep is deleted or rebuilt
    /// ([`Remedy::DeleteOrRebuild`]).
    #[must_use]
    pub fn remedy(&self) -> Option<&Remedy> {
        match self {
            FormatError::Invalid { remedy, .. } | FormatError::Missing { remedy, .. } => {
                remedy.as_ref()
            }
            _ => None,
        }
    }

    /// The error with its [`Remedy::Build`] building no more than `seeds` seeds, when it builds
    /// new layers (not `again`) up to more: for a caller that knows its case needs no more (a
    /// position of `seeds` seeds uses no larger layer), so that the remedy is the build that
    /// fixes the case at hand, not a general suggestion. Any other error is returned as it is.
    #[must_use]
    pub fn needing_at_most(self, seeds: usize) -> FormatError {
        match self {
            FormatError::Invalid {
                path,
                reason,
                remedy,
            } => FormatError::Invalid {
                path,
                reason,
                remedy: remedy.map(|r| r.at_most(seeds)),
            },
            FormatError::Missing {
                path,
                reason,
                remedy,
            } => FormatError::Missing {
                path,
                reason,
                remedy: remedy.map(|r| r.at_most(seeds)),
            },
            e => e,
        }
    }

    /// The file or directory the error is about.
    #[must_use]
    pub fn path(&self) -> &Path {
        match self {
            FormatError::Io { path, .. }
            | FormatError::CreateDir { path, .. }
            | FormatError::Invalid { path, .. }
            | FormatError::Missing { path, .. }
            | FormatError::WrongKind { path, .. }
            | FormatError::Busy { path } => path,
        }
    }
}

/// `n` and the word, singular for 1 ("1 seed", "4 seeds"): the counts in the tables' messages,
/// and in the `pussa egtb` commands' output.
#[must_use]
pub fn count(n: impl Into<u64>, one: &str, many: &str) -> String {
    let n: u64 = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
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
    scan::<false>(data, &[0; 256]).0
}

/// The checksum of `data` and, if `CHECK`, in the same pass, the OR of `flag[b]` over its
/// bytes `b` (non-zero if any byte is flagged).
#[inline]
fn scan<const CHECK: bool>(data: &[u8], flag: &[u8; 256]) -> (u64, u8, Counts) {
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut seen = 0u8;
    // Bytes with bit 7 set (flagged or not determined), and bytes not determined.
    let (mut high, mut ff) = (0u64, 0u64);
    let mut words = data.chunks_exact(8);
    for w in &mut words {
        let w: [u8; 8] = w.try_into().expect("8 bytes");
        if CHECK {
            for b in w {
                seen |= flag[usize::from(b)];
                high += u64::from(b >> 7);
                ff += u64::from(b == UNDETERMINED);
            }
        }
        h = (h ^ u64::from_le_bytes(w)).wrapping_mul(PRIME);
    }
    let rest = words.remainder();
    if !rest.is_empty() {
        if CHECK {
            for &b in rest {
                seen |= flag[usize::from(b)];
                high += u64::from(b >> 7);
                ff += u64::from(b == UNDETERMINED);
            }
        }
        let mut last = [0u8; 8];
        last[..rest.len()].copy_from_slice(rest);
        h = (h ^ u64::from_le_bytes(last)).wrapping_mul(PRIME);
    }
    h ^= data.len() as u64;
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    let counts = Counts {
        history: high - ff,
        undetermined: ff,
    };
    (h ^ (h >> 33), seen, counts)
}

/// How many entries of a payload carry the history flag and how many are not determined (what
/// the header's counts must say).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Counts {
    history: u64,
    undetermined: u64,
}

/// True if `b` can be a byte of a finished table of boards with `seeds` seeds: "not
/// determined", or a margin `m` (with or without the history flag) that the seeds on the board
/// allow: every seed on the board goes to one player or the other by the end of the round, so
/// `|m| ≤ seeds` and `m` has the parity of `seeds`.
#[must_use]
pub fn is_possible_byte(b: u8, seeds: usize) -> bool {
    if b == UNDETERMINED {
        return true;
    }
    let v = b & !HISTORY_FLAG;
    if v == UNSOLVED {
        return false;
    }
    let m = i64::from(v) - 63;
    let k = seeds as i64;
    m.abs() <= k && (m - k) % 2 == 0
}

/// Checks the payload of the table file `path` against its header in one pass: the checksum,
/// that every byte is a possible value for the header's seed count ([`is_possible_byte`]), and
/// that the header's counts of flagged and of undetermined entries are the payload's.
///
/// # Errors
/// [`FormatError::Invalid`] naming the file and the problem (the checksum first: a damaged
/// file; then the first impossible value; then a count of the header that the payload
/// contradicts).
///
/// # Panics
/// Never in practice: the second look for the first impossible value runs only when the
/// checking pass has flagged one, so it finds it (the `expect` guards that).
pub fn check_payload(payload: &[u8], header: &Header, path: &Path) -> Result<(), FormatError> {
    let mut flag = [0u8; 256];
    for (b, f) in flag.iter_mut().enumerate() {
        *f = u8::from(!is_possible_byte(b as u8, header.seeds));
    }
    let (sum, seen, counts) = scan::<true>(payload, &flag);
    let bad = |reason: String| FormatError::Invalid {
        path: path.to_path_buf(),
        reason,
        remedy: None,
    };
    if sum != header.checksum {
        return Err(bad("payload checksum mismatch: the table is damaged".into()));
    }
    if seen != 0 {
        let (at, &b) = payload
            .iter()
            .enumerate()
            .find(|&(_, &b)| flag[usize::from(b)] != 0)
            .expect("a flagged byte");
        let v = b & !HISTORY_FLAG;
        return Err(bad(if v == UNSOLVED {
            format!("invalid value byte {b:#04x} at entry {at}: the table is damaged")
        } else {
            let k = header.seeds as u64;
            format!(
                "impossible value at entry {at}: margin {:+} with {} on the board (a margin is \
                 at most {k}, of the same parity): the table is damaged",
                i32::from(v) - 63,
                count(k, "seed", "seeds")
            )
        }));
    }
    // The header's counts are what the build reported: a header that contradicts its payload
    // is as damaged as one with a wrong checksum.
    // (Builds before this check counted the positions whose history search ran out of budget
    // among the flagged ones too: a header may count up to that many more.)
    if header.history < counts.history || header.history > counts.history + counts.undetermined {
        return Err(bad(format!(
            "the header counts {} with the history flag, the payload {}: the table is damaged",
            count(header.history, "position", "positions"),
            counts.history
        )));
    }
    if counts.undetermined != header.undetermined {
        return Err(bad(format!(
            "the header counts {} not determined, the payload {}: the table is damaged",
            count(header.undetermined, "position", "positions"),
            counts.undetermined
        )));
    }
    Ok(())
}

/// What is wrong with `dir` as a directory of tables of `game`, if something is: `dir`, or
/// `dir/<game>`, is a file and not a directory ([`FormatError::WrongKind`] naming it).
#[must_use]
pub fn dir_problem(dir: &Path, game: Game) -> Option<FormatError> {
    [dir.to_path_buf(), dir.join(game.name())]
        .into_iter()
        .find(|p| p.is_file())
        .map(|path| FormatError::WrongKind {
            path,
            what: "a file, not a directory of tables".into(),
        })
}

/// Maps the table file `path` read-only: `Ok(None)` if there is no such file; a directory or
/// anything else that is not a regular file is refused by name.
///
/// # Errors
/// [`FormatError::WrongKind`] for a directory or a special file, a symbolic link to nothing,
/// or a file on the way where a directory should be; [`FormatError::Io`] if the file cannot
/// be opened or mapped.
pub(crate) fn map_table(path: &Path) -> Result<Option<Mmap>, FormatError> {
    let io = |error| FormatError::Io {
        path: path.to_path_buf(),
        error,
    };
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            // A symbolic link whose target is not there is not a missing file.
            if let Ok(target) = std::fs::read_link(path) {
                return Err(FormatError::WrongKind {
                    path: path.to_path_buf(),
                    what: format!(
                        "a symbolic link to {}, which does not exist",
                        target.display()
                    ),
                });
            }
            return Ok(None);
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => {
            // A file where a directory on the way should be.
            let file = path.ancestors().skip(1).find(|a| a.is_file());
            return Err(FormatError::WrongKind {
                path: file.unwrap_or(path).to_path_buf(),
                what: "a file, not a directory of tables".into(),
            });
        }
        Err(e) => return Err(io(e)),
    };
    if meta.is_dir() {
        return Err(FormatError::WrongKind {
            path: path.to_path_buf(),
            what: "a directory, not a table file".into(),
        });
    }
    if !meta.is_file() {
        return Err(FormatError::WrongKind {
            path: path.to_path_buf(),
            what: "not a regular file, so not a table file".into(),
        });
    }
    let file = File::open(path).map_err(io)?;
    // SAFETY: the file is opened read-only; this program writes tables to a temporary file and
    // renames it into place, never modifying a file in place, so a mapping stays valid while
    // it lives. Another program truncating or rewriting the file in place (`cp` over it) would
    // make a later read fault (SIGBUS): docs/egtb.md, "Replacing tables in use", says to
    // replace tables in use by rename only; the faulting read cannot be turned into an error.
    let map = unsafe { Mmap::map(&file) }.map_err(io)?;
    Ok(Some(map))
}

/// The seed counts of the table files of `game` and `pattern` under `dir` (the names
/// `<k>.pegtb` in [`pattern_path`]'s directory, whatever they hold), in increasing order.
#[must_use]
pub fn table_files(dir: &Path, game: Game, pattern: Pattern) -> Vec<usize> {
    let Some(folder) = pattern_path(dir, game, pattern, 0)
        .parent()
        .map(Path::to_path_buf)
    else {
        return Vec::new();
    };
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut out: Vec<usize> = entries
        .filter_map(|e| {
            let name = e.ok()?.file_name();
            let stem = name.to_str()?.strip_suffix(".pegtb")?;
            if stem.is_empty() || !stem.bytes().all(|c| c.is_ascii_digit()) {
                return None;
            }
            let k: usize = stem.parse().ok()?;
            (k.to_string() == stem).then_some(k)
        })
        .collect();
    out.sort_unstable();
    out
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
        b[13] = self.pattern.mine();
        b[14] = self.pattern.theirs();
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
            remedy: None,
        };
        if seeds > MAX_SEEDS {
            return Err(bad(format!(
                "no table can have {seeds} seeds (at most {MAX_SEEDS})"
            )));
        }
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
        // Every offset read lies inside the header, whose length was checked above.
        let u32_at = |o: usize| u32::from_le_bytes(std::array::from_fn(|i| bytes[o + i]));
        let u64_at = |o: usize| u64::from_le_bytes(std::array::from_fn(|i| bytes[o + i]));
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
/// [`FormatError::Io`] if the file cannot be written (no temporary file is left behind),
/// [`FormatError::CreateDir`] if its directory cannot be created,
/// [`FormatError::WrongKind`] if a directory is where the file goes (or a file where a directory
/// of tables goes).
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
/// [`FormatError::Io`] if the file cannot be written (no temporary file is left behind),
/// [`FormatError::CreateDir`] if its directory cannot be created,
/// [`FormatError::WrongKind`] if a directory is where the file goes (or a file where a directory
/// of tables goes).
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
    let io = |path: &Path, error| FormatError::Io {
        path: path.to_path_buf(),
        error,
    };
    if let Some(parent) = path.parent() {
        // Name the part of the path that is a file where a directory should be.
        if let Some(file) = parent.ancestors().find(|a| a.is_file()) {
            return Err(FormatError::WrongKind {
                path: file.to_path_buf(),
                what: "a file, not a directory: the tables cannot be written under it".into(),
            });
        }
        std::fs::create_dir_all(parent).map_err(|error| FormatError::CreateDir {
            path: parent.to_path_buf(),
            error,
        })?;
    }
    if path.is_dir() {
        return Err(FormatError::WrongKind {
            path,
            what: "a directory, not a table file".into(),
        });
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
    if tmp.is_dir() {
        return Err(FormatError::WrongKind {
            path: tmp,
            what: "a directory, not a temporary table file".into(),
        });
    }
    let mut f = File::create(&tmp).map_err(|e| io(&tmp, e))?;
    let written = (|| -> std::io::Result<()> {
        f.write_all(&header.to_bytes())?;
        f.write_all(data)?;
        f.sync_all()
    })()
    .map_err(|e| io(&tmp, e))
    .and_then(|()| {
        drop(f);
        std::fs::rename(&tmp, &path).map_err(|e| io(&path, e))
    });
    if let Err(e) = written {
        // Never leave a partial file behind.
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_remedy_reads_in_plain_words() {
        let build = Remedy::Build {
            dir: PathBuf::from("data/egtb"),
            game: Game::RajaPasu,
            pattern: Pattern::OPEN,
            max_seeds: 12,
            again: false,
        };
        assert_eq!(
            build.to_string(),
            "build the tables of raja-pasu up to 12 seeds in data/egtb"
        );
        let again = Remedy::Build {
            dir: PathBuf::from("data/egtb"),
            game: Game::RajaPasu,
            pattern: Pattern::OPEN,
            max_seeds: 12,
            again: true,
        };
        assert_eq!(
            again.to_string(),
            "build the missing tables of raja-pasu up to 12 seeds in data/egtb"
        );
        let closed = Remedy::Build {
            dir: PathBuf::from("data/egtb"),
            game: Game::PasuPondi,
            pattern: Pattern::new(2, 1),
            max_seeds: 14,
            again: false,
        };
        assert_eq!(
            closed.to_string(),
            "build the tables of pasu-pondi with 2 holes closed in the mover's row and 1 in the \
             other's up to 14 seeds in data/egtb"
        );
        assert_eq!(
            Remedy::DeleteOrRebuild.to_string(),
            "delete the damaged file or build its tables again"
        );
        assert_eq!(Remedy::Verify.to_string(), "verify the tables");
    }

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
