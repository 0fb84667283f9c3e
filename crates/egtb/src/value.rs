//! The one-byte value encoding of the tables.
//!
//! - `0xFF`: not determined (the history search ran out of its node budget).
//! - otherwise bits 0..7 hold `margin + 63` (margins `-63..=63`) and bit 7 is the
//!   *history flag*: set when an endless chain of non-capturing moves can be reached from the
//!   position, so that the repetition rule may make its value depend on the positions seen before
//!   it. A flagged value is exact for a history that starts at this position (the position was
//!   reached by a capture, or it starts the round); an unflagged value is exact for any history.

/// An entry of a table, decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Entry {
    /// The exact value for the player to move.
    Value {
        /// Final margin of future seeds (player to move minus opponent) under perfect play.
        margin: i32,
        /// True when the value holds only for a history that starts at this position.
        history: bool,
    },
    /// Not determined.
    Unknown,
}

/// The byte for "not determined".
pub const UNDETERMINED: u8 = 0xFF;
/// The byte marking "not solved yet" during a build (never written to a file).
pub(crate) const UNSOLVED: u8 = 0x7F;
/// The history flag bit.
pub const HISTORY_FLAG: u8 = 0x80;

/// Encodes a margin with its history flag.
///
/// # Panics
/// Panics if the margin is outside `-63..=63`.
#[inline]
#[must_use]
pub fn encode(margin: i32, history: bool) -> u8 {
    assert!((-63..=63).contains(&margin), "margin {margin} out of range");
    (margin + 63) as u8 | if history { HISTORY_FLAG } else { 0 }
}

/// Decodes a byte of a finished table.
#[inline]
#[must_use]
pub fn decode(b: u8) -> Entry {
    if b == UNDETERMINED || b & 0x7F == UNSOLVED {
        Entry::Unknown
    } else {
        Entry::Value {
            margin: i32::from(b & 0x7F) - 63,
            history: b & HISTORY_FLAG != 0,
        }
    }
}

/// True if `b` is a valid byte of a finished table.
#[inline]
#[must_use]
pub fn is_valid_byte(b: u8) -> bool {
    b == UNDETERMINED || b & 0x7F != UNSOLVED
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        for m in -63..=63 {
            for h in [false, true] {
                assert_eq!(
                    decode(encode(m, h)),
                    Entry::Value {
                        margin: m,
                        history: h
                    }
                );
            }
        }
        assert_eq!(decode(UNDETERMINED), Entry::Unknown);
        assert!(!is_valid_byte(UNSOLVED));
        assert!(is_valid_byte(UNDETERMINED));
    }
}
