//! The transposition table: a fixed-size, lock-free table shared by the search threads.
//!
//! Each slot holds two `AtomicU64`s: the key xor-ed with the data, and the data (the
//! "lockless hashing" trick): a torn write from another thread shows up as a key mismatch and is
//! treated as a miss, never as a wrong entry.
//!
//! # Keys and repetition
//! The repetition rule makes a position's value depend on the positions already seen in the
//! round since seeds last left the board (the graph-history interaction). The search therefore
//! keys the table on the position's hash xor-ed with a hash of that *set* of earlier positions
//! (see `search.rs`): an entry is only ever reused where the same repetitions are possible, so
//! the table never carries a repetition value into a context where it does not hold. Right
//! after a capture the set is empty and the key is the position's alone, so transpositions are
//! shared wherever the rules allow.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::params;

/// The score is exact (a PV node).
pub const EXACT: u8 = 0;
/// The score is a lower bound (the node failed high).
pub const LOWER: u8 = 1;
/// The score is an upper bound (the node failed low).
pub const UPPER: u8 = 2;

/// Depth stored for a value that is proven (it holds at every depth).
pub const PROVEN_DEPTH: u8 = 255;

/// A decoded entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Score in internal units, from the side to move's point of view (future margin).
    pub score: i32,
    /// Draft the score was searched to ([`PROVEN_DEPTH`] when proven).
    pub depth: u8,
    /// [`EXACT`], [`LOWER`] or [`UPPER`].
    pub bound: u8,
    /// Best move's hole index, or 255 for none.
    pub mv: u8,
    /// The value depends on the round's history (a repetition under the node matched a
    /// position played before it).
    pub dep: bool,
    /// In a match: the value counts on an estimate of a later round (a round's end valued with
    /// the next round's [`crate::matchval::round_value`], or a circle), so it is not the match's
    /// exact value even when proven. It does not change how the entry is used.
    pub est: bool,
}

impl Entry {
    fn pack(self) -> u64 {
        (self.score as i16 as u16 as u64)
            | u64::from(self.depth) << 16
            | u64::from(self.bound) << 24
            | u64::from(self.mv) << 32
            | u64::from(self.dep) << 41
            | u64::from(self.est) << 42
    }

    fn unpack(d: u64) -> Entry {
        Entry {
            score: i32::from(d as u16 as i16),
            depth: (d >> 16) as u8,
            bound: (d >> 24) as u8 & 3,
            mv: (d >> 32) as u8,
            dep: d >> 41 & 1 == 1,
            est: d >> 42 & 1 == 1,
        }
    }
}

/// The table. Sizes are powers of two.
pub struct Tt {
    /// Two words a slot: key ^ data, data.
    words: Box<[AtomicU64]>,
    mask: usize,
}

impl Tt {
    /// A table of `entries` slots (rounded up to a power of two, clamped to the limits in
    /// [`params`]).
    ///
    /// # Panics
    /// Never: the size is clamped to [`params::TT_ENTRIES_MAX`] slots (64 MiB), far below the
    /// largest allocation a [`std::alloc::Layout`] can describe (the `expect` guards that). If
    /// the memory cannot be allocated the process aborts
    /// ([`std::alloc::handle_alloc_error`]), as for any allocation.
    #[must_use]
    pub fn new(entries: usize) -> Tt {
        let n = entries
            .clamp(params::TT_ENTRIES_MIN, params::TT_ENTRIES_MAX)
            .next_power_of_two();
        let len = 2 * n;
        let layout = std::alloc::Layout::array::<AtomicU64>(len).expect("a table size that fits");
        // SAFETY: `layout` has a non-zero size (n >= TT_ENTRIES_MIN); an all-zero bit pattern is
        // a valid `AtomicU64`, so the zeroed block is `len` initialised atomics, and the box
        // frees it with the same layout. Zeroed allocation lets the system hand out untouched
        // pages, so a large table costs nothing until it is used.
        let words: Box<[AtomicU64]> = unsafe {
            let ptr = std::alloc::alloc_zeroed(layout).cast::<AtomicU64>();
            if ptr.is_null() {
                std::alloc::handle_alloc_error(layout);
            }
            Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, len))
        };
        Tt { words, mask: n - 1 }
    }

    /// Number of slots.
    #[must_use]
    pub fn len(&self) -> usize {
        self.words.len() / 2
    }

    /// Always false: a table has at least [`params::TT_ENTRIES_MIN`] slots.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// Empties the table.
    pub fn clear(&self) {
        for w in &*self.words {
            w.store(0, Ordering::Relaxed);
        }
    }

    /// The entry stored for `key`, if any.
    #[inline]
    #[must_use]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let i = 2 * (key as usize & self.mask);
        let k = self.words[i].load(Ordering::Relaxed);
        let d = self.words[i + 1].load(Ordering::Relaxed);
        (d != 0 && k ^ d == key).then(|| Entry::unpack(d))
    }

    /// Stores `e` for `key`. Replacement: a proven or deeper entry for another key is kept
    /// unless the new one is exact; the same key is always overwritten.
    #[inline]
    pub fn store(&self, key: u64, e: Entry) {
        let i = 2 * (key as usize & self.mask);
        let old_d = self.words[i + 1].load(Ordering::Relaxed);
        let old_k = self.words[i].load(Ordering::Relaxed) ^ old_d;
        if old_d != 0 && old_k != key {
            let old = Entry::unpack(old_d);
            if old.depth > e.depth.saturating_add(2) && e.bound != EXACT {
                return;
            }
        }
        let d = e.pack() | 1 << 40; // never zero
        self.words[i].store(key ^ d, Ordering::Relaxed);
        self.words[i + 1].store(d, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_and_probes_negative_scores_and_bounds() {
        let tt = Tt::new(1024);
        let e = Entry {
            score: -123,
            depth: 7,
            bound: UPPER,
            mv: 3,
            dep: true,
            est: true,
        };
        tt.store(0xdead_beef, e);
        assert_eq!(tt.probe(0xdead_beef), Some(e));
        assert_eq!(tt.probe(0xdead_beef ^ 1 << 40), None);
        let p = Entry {
            score: 900,
            depth: PROVEN_DEPTH,
            bound: EXACT,
            mv: 255,
            dep: false,
            est: false,
        };
        tt.store(42, p);
        assert_eq!(tt.probe(42), Some(p));
    }
}
