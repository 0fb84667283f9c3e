//! Matches (in progress).
