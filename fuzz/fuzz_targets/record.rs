//! Fuzz target `record`: see `crates/rules/tests/fuzz_bodies/mod.rs` for what it checks.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../crates/rules/tests/fuzz_bodies/mod.rs"]
mod bodies;

fuzz_target!(|data: &[u8]| bodies::record(data));
