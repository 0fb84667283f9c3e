//! # pussa-rules
//!
//! The rules of three South-Asian two-row mancala games of the *pussa* family, exactly as the
//! project's rules contract fixes them: **Walak-pussa** (Sri Lanka), **Raja Pasu** (India and Sri
//! Lanka) and **Pasu Pondi** (Tamil Nadu, with 5 or 6 seeds a hole). No I/O.
//!
//! - [`Position`]: a small `Copy` value for the state inside a round. [`Position::play`] checks
//!   the move and returns a typed [`IllegalMove`]; [`Position::play_unchecked`] is the fast path
//!   for search. Endless sowing is detected exactly (Brent's cycle detection over the states
//!   "board, hole about to be lifted"), never with a lap cap.
//! - [`GameState`]: single games and multi-round matches: the end-of-round rules, the repetition
//!   rule, refills, closed holes, who starts each round, the end of a match.
//! - [`Trace`]: every event of a move (lifts, drops, fours, the stop, captures, the round's end,
//!   refills), emitted by the same code that plays the move and compiled away with [`NoTrace`].
//! - [`narrate`]: a move told lap by lap, a round's end, a refill and a result in words (what
//!   `pussa explain` and `pussa replay` print), from a trace and the state.
//! - [`Setup`]: the one-line position string; [`record`]: game records.
//! - [`spiel`]: the OpenSpiel-shaped interface researchers know (`load_game`,
//!   `legal_actions`, `apply_action`, `returns`, `observation_tensor`, `serialize`).
//! - serde: the value types read and write JSON, and read back what they wrote. [`Position`]
//!   and [`Setup`] go through the position string, [`GameState`] through an object around it
//!   (its documentation gives the shape), [`Event`], [`Status`], [`RoundResult`], [`MoveReport`]
//!   through objects, [`spiel::SpielState`] through its game string and record. Reading
//!   validates.
//!
//! [`Position`]'s `Hash` and `Eq` cover every field; the search's 64-bit key, which leaves the
//! stores out, is [`Position::round_hash`]. `Debug` writes holes and move sets as letters
//! (`Hole(A)`, `Moves[A C G]`), as the notation does.
//!
//! # Examples
//! ```
//! use pussa_rules::{Game, GameState, Hole, Mode, Side};
//! let mut g = GameState::new(Game::WalakPussa, Mode::Single, Side::South);
//! let mut events = Vec::new();
//! g.play_traced(Hole::from_letter('A')?, &mut events)?;
//! assert_eq!(g.position().stores(), [6, 0]);
//! assert!(events.len() > 30);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![warn(missing_docs)]

// The crate's README.md (its crates.io page) is compiled and run as a doctest, so its example
// stays in step with the API.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctest;

pub mod narrate;
mod perft;
mod playout;
mod position;
pub mod record;
mod setup;
pub mod spiel;
mod state;
mod trace;
mod types;

pub use perft::{earlier_history, perft, perft_with_history};
pub use playout::{play_random, playout, random_game, PlayoutResult, PlayoutScratch, Rng};
pub use position::{IllegalMove, IllegalReason, MoveOutcome, Position, Sowing};
pub use setup::{Setup, SetupError};
pub use state::{
    GameState, Mode, MoveReport, RoundResult, RoundStart, Status, UnknownMode, MAX_ROUND,
};
pub use trace::{EndReason, Event, NoTrace, Trace, INTERRUPT_LAPS};
pub use types::{
    ClosingEnd, Direction, Game, Hole, Moves, ParseHoleError, ParseSideError, Side, StarterRule,
    StuckRule, UnknownGame,
};
