//! Helpers of the table-file tests: a fresh temporary directory, and tables built into one.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use pussa_egtb::{build_dir, BuildOptions, Tables};
use pussa_rules::Game;

#[path = "process_dir.rs"]
mod tmp;
use tmp::process_dir;

/// A fresh, empty directory of this test process ([`process_dir`]).
pub fn temp_dir(name: &str) -> PathBuf {
    let d = process_dir("egtb").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// The tables of `game` for 0..=`max` seeds, built into `dir` with the default options.
pub fn build(dir: &Path, game: Game, max: usize) -> Tables {
    build_dir(
        dir,
        game,
        max,
        BuildOptions::default(),
        false,
        &|_| {},
        &mut |_| {},
    )
    .expect("build")
}
