//! # pussa-egtb
//!
//! Endgame databases for the pussa games by retrograde analysis: for every board of the open
//! 14-hole board with `k` seeds, the exact final margin of the seeds still to be taken, for the
//! player to move, with perfect play under the rules contract (a single round).
//!
//! - [`index`]: boards ranked with the combinatorial number system (stars and bars), one table
//!   per seed count, seen from the player to move ([`moves::canonical`]).
//! - [`build_layer`]: one layer from the layers below it (captures and fours drop into them):
//!   terminal and all-capturing positions first, then passes over the non-capturing moves until
//!   nothing changes, then bounds valid for every history iterated to their fixed point over
//!   the positions that can reach a cycle, then an exact search carrying the path since the last
//!   capture for those whose bounds did not meet (the repetition rule). See `docs/egtb.md`.
//! - [`format`](mod@format): the `.pegtb` file format (magic, version, game, seeds, encoding, checksums).
//! - [`Tables`]: memory-mapped tables and probing ([`Tables::probe`] for a search oracle).
//! - [`oracle`](mod@oracle): the tables as the engine's exact-value oracle, opened at once or
//!   lazily, for every place the computer plays.
//! - [`solve`]: an exact alpha-beta search above the tables, with the repetition rule, for
//!   solving start positions.
//! - Closed holes (match rounds): [`Pattern`] `(a, b)` = holes closed in the mover's and the
//!   opponent's row; a pattern and its mirror are built together ([`build_pair_layer`],
//!   [`build_pattern_dir`], [`Tables::open_pattern`]); the open board is `(0, 0)`.
//! - [`matches`](mod@matches): whole matches: rounds played perfectly for seeds, and the match states solved.
#![warn(missing_docs)]

// The crate's README.md (its crates.io page) is compiled and run as a doctest, so its example
// stays in step with the API.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctest;

mod build;
pub mod format;
pub mod index;
pub mod matches;
pub mod moves;
pub mod oracle;
mod ring;
mod search;
pub mod solve;
mod tables;
pub mod value;

pub use build::{
    build_layer, build_pair_layer, max_build_seeds, pair_layer_size, BuildOptions, LayerStats,
    Progress,
};
pub use format::{FormatError, Remedy};
pub use moves::Pattern;
pub use oracle::{LazyTablesOracle, TablesDir, TablesOracle};
pub use tables::{
    build_dir, build_pattern_dir, too_many_seeds, BuildLock, DirCheck, HistoryFault, LayerCheck,
    LayerEvent, Mismatch, MoveValue, Tables, VerifyReport, HISTORY_LIMIT,
};
pub use value::Entry;

/// Peak resident memory of this process so far (`VmHWM` of `/proc/self/status`), in bytes.
#[must_use]
pub fn peak_memory() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}
