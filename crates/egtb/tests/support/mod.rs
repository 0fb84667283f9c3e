//! Helpers of the table-file tests: a fresh temporary directory, and tables built into one.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use pussa_egtb::{build_dir, BuildOptions, Tables};
use pussa_rules::Game;

/// A fresh, empty directory of this test process ([`process_dir`]).
pub fn temp_dir(name: &str) -> PathBuf {
    let d = process_dir("egtb").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// This test process's directory `pussa-<tag>-<pid>` under cargo's `CARGO_TARGET_TMPDIR`
/// (target/tmp), never the machine's /tmp. The test harness has no hook at exit: the
/// `pussa-<tag>-<pid>` directories of processes that have ended are removed here instead, so a
/// run leaves only its own behind until the next (QA pass 18, review-tests #9).
fn process_dir(tag: &str) -> PathBuf {
    let root = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let prefix = format!("pussa-{tag}-");
    if let Ok(entries) = std::fs::read_dir(root) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let ended = name
                .strip_prefix(&prefix)
                .and_then(|pid| pid.parse::<u32>().ok())
                .is_some_and(|pid| {
                    pid != std::process::id()
                        && !std::path::Path::new(&format!("/proc/{pid}")).exists()
                });
            if ended {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
    root.join(format!("{prefix}{}", std::process::id()))
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
