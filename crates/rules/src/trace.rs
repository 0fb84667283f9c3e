//! The sowing trace: the ordered events of a move, emitted by the same code that plays it.
//!
//! Every function that changes a position is generic over a [`Trace`]. Passing [`NoTrace`]
//! compiles every event away (its [`Trace::ENABLED`] is `false`), so search pays nothing; passing a
//! `Vec<Event>` records the move seed by seed for the web page's animation and for `pussa explain`.

use serde::{Deserialize, Serialize};

use crate::types::{Hole, Moves, Side};

/// Why a round ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EndReason {
    /// Pasu Pondi: every seed left on the board lies in one row (or none is left).
    OneRow,
    /// The position (board, closed holes, player to move) had already occurred in this round.
    Repetition,
    /// The player to move (`stuck`) had no legal move.
    NoLegalMove {
        /// The player who could not move.
        stuck: Side,
        /// The holes `stuck` could lift but whose sowing is endless (never offered, so they
        /// decide the round): empty when `stuck` had no seed in an open hole of their row.
        /// Serialized only when not empty, as hole letters (`"endless": ["g"]`).
        #[serde(default, skip_serializing_if = "no_moves")]
        endless: Moves,
    },
}

/// For serde: leaves out an empty set of endless moves.
#[allow(clippy::trivially_copy_pass_by_ref)]
fn no_moves(m: &Moves) -> bool {
    m.mask() == 0
}

/// One event of a move, a round end or a refill.
///
/// # Examples
/// A `Vec<Event>` is a [`Trace`] that keeps every event, in order:
/// ```
/// use pussa_rules::{Event, Game, Hole, Position, Side};
/// let mut pos = Position::start(Game::WalakPussa);
/// let mut events: Vec<Event> = Vec::new();
/// let a = Hole::from_letter('A')?;
/// pos.play_traced(a, &mut events)?;
/// assert_eq!(events[0], Event::Lift { hole: a, seeds: 4, relay: false });
/// assert_eq!(events[1], Event::Drop { hole: Hole::from_letter('B')?, now: 5 });
/// // Every seed taken shows as a capture (Walak-pussa has no fours).
/// let captured: u32 = events
///     .iter()
///     .map(|e| match e {
///         Event::Capture { seeds, by: Side::South, .. } => u32::from(*seeds),
///         _ => 0,
///     })
///     .sum();
/// assert_eq!(captured, u32::from(pos.store(Side::South)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// All seeds lifted from `hole` to sow a lap. `relay` is false for the mover's own hole and
    /// true when the hand was empty and the next hole was lifted.
    Lift {
        /// The hole emptied.
        hole: Hole,
        /// Seeds in hand.
        seeds: u8,
        /// False for the first lift of a move.
        relay: bool,
    },
    /// One seed dropped into `hole`, which now holds `now` seeds.
    Drop {
        /// Where the seed fell.
        hole: Hole,
        /// Seeds in the hole after the drop (before a four is taken).
        now: u8,
    },
    /// `hole` reached exactly four seeds and its row's owner took them.
    Four {
        /// The hole emptied.
        hole: Hole,
        /// Who took the four seeds.
        owner: Side,
    },
    /// The hand is empty at `last` and the next hole `empty` holds nothing: sowing ends.
    Stop {
        /// The hole that received the last seed.
        last: Hole,
        /// The empty hole after it.
        empty: Hole,
    },
    /// The mover took the seeds of `hole` across an empty hole.
    Capture {
        /// The hole emptied.
        hole: Hole,
        /// Seeds taken.
        seeds: u8,
        /// The mover.
        by: Side,
        /// False for the capture across the first empty hole, true for Walak-pussa's chain.
        chained: bool,
    },
    /// The round ended; `swept` is what each player (South, North) took from the board then.
    RoundEnd {
        /// Why.
        reason: EndReason,
        /// Seeds taken off the board at the end by South and North.
        swept: [u8; 2],
    },
    /// A new round of a match was laid out.
    Refill {
        /// The new round's number (from 1).
        round: u32,
        /// Holes filled by South and by North.
        filled: [u8; 2],
        /// Seeds left in each store after filling.
        remainder: [u8; 2],
        /// Bit mask of the closed holes (bit i = hole index i). In JSON, the indices of the
        /// closed holes in board order (`[0, 1]` for `A` and `B`), as `pussa replay --json`
        /// writes closed holes; reading also accepts the bit mask older traces hold (`3`).
        #[serde(with = "closed_indices")]
        closed: u16,
        /// Who starts the new round.
        starter: Side,
    },
    /// The match (or single game) is over. `winner` is `None` for a draw.
    MatchEnd {
        /// The winner, if any.
        winner: Option<Side>,
    },
}

/// A refill's closed holes in JSON: written as a list of hole indices (0-13, board order), read
/// from that list or from a bit mask (bit i = hole index i), the shape traces had before.
mod closed_indices {
    use serde::de::{self, SeqAccess, Visitor};
    use serde::ser::SerializeSeq;
    use serde::{Deserializer, Serializer};
    use std::fmt;

    pub fn serialize<S: Serializer>(mask: &u16, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(mask.count_ones() as usize))?;
        for i in (0..14u8).filter(|i| mask & (1 << i) != 0) {
            seq.serialize_element(&i)?;
        }
        seq.end()
    }

    struct Closed;

    fn mask_of<E: de::Error>(v: u64) -> Result<u16, E> {
        if v < 1 << 14 {
            Ok(v as u16)
        } else {
            Err(E::custom(format!(
                "closed: bit mask {v} names a hole beyond the 14 (at most {})",
                (1u32 << 14) - 1
            )))
        }
    }

    impl<'de> Visitor<'de> for Closed {
        type Value = u16;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("the indices of the closed holes (0-13), or their bit mask")
        }

        fn visit_u64<E: de::Error>(self, v: u64) -> Result<u16, E> {
            mask_of(v)
        }

        fn visit_i64<E: de::Error>(self, v: i64) -> Result<u16, E> {
            match u64::try_from(v) {
                Ok(v) => mask_of(v),
                Err(_) => Err(E::custom(format!("closed: bit mask {v} is negative"))),
            }
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<u16, A::Error> {
            let mut mask = 0u16;
            while let Some(i) = seq.next_element::<u64>()? {
                if i >= 14 {
                    return Err(de::Error::custom(format!(
                        "closed: hole index {i} is not in 0..=13"
                    )));
                }
                if mask & (1 << i) != 0 {
                    return Err(de::Error::custom(format!(
                        "closed: hole index {i} is listed twice"
                    )));
                }
                mask |= 1 << i;
            }
            Ok(mask)
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u16, D::Error> {
        d.deserialize_any(Closed)
    }
}

/// A receiver of [`Event`]s.
///
/// A receiver may also interrupt a long sowing ([`Trace::INTERRUPTS`], [`Trace::interrupt`]):
/// the search uses this to honour its deadline and its stop flag while a move whose cycle is
/// hundreds of millions of laps long is being proven endless. Like the events, the question is
/// compiled away for receivers that do not ask it.
pub trait Trace {
    /// False only for receivers that ignore every event; lets the sowing code take fast paths.
    const ENABLED: bool = true;
    /// True for receivers that may interrupt a sowing ([`Trace::interrupt`]); false, the
    /// default, compiles the question away.
    const INTERRUPTS: bool = false;
    /// Receives one event.
    fn event(&mut self, event: Event);
    /// Asked, when [`Trace::INTERRUPTS`] is true, every [`INTERRUPT_LAPS`] laps of one move
    /// with `laps` (the laps sown so far in the move): true abandons the move
    /// ([`crate::Sowing::Interrupted`], from [`crate::Position::try_play_unchecked`]; the
    /// checked plays never ask). By default never.
    #[inline(always)]
    fn interrupt(&mut self, laps: u32) -> bool {
        let _ = laps;
        false
    }
}

/// How often (in laps of one move) a receiver that [`Trace::INTERRUPTS`] is asked whether to
/// go on. Ordinary moves sow a few laps and are never asked; a move whose cycle is long enough
/// to be expensive to prove endless is asked every few tens of microseconds.
pub const INTERRUPT_LAPS: u32 = 1 << 12;

/// Passes events on to `T` but never interrupts: what the checked plays sow with.
pub(crate) struct Uninterrupted<'a, T: Trace>(pub(crate) &'a mut T);

impl<T: Trace> Trace for Uninterrupted<'_, T> {
    const ENABLED: bool = T::ENABLED;
    #[inline(always)]
    fn event(&mut self, event: Event) {
        self.0.event(event);
    }
}

/// Ignores every event; the zero-cost default.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoTrace;

impl Trace for NoTrace {
    const ENABLED: bool = false;
    #[inline(always)]
    fn event(&mut self, _event: Event) {}
}

impl Trace for Vec<Event> {
    fn event(&mut self, event: Event) {
        self.push(event);
    }
}
