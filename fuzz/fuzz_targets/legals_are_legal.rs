//! Fuzz target `legals_are_legal`: see `crates/rules/tests/fuzz_bodies/mod.rs` for what it checks.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../crates/rules/tests/fuzz_bodies/mod.rs"]
mod bodies;

fuzz_target!(|data: &[u8]| bodies::legals_are_legal(data));
