//! Helpers shared by the tests that run the `pussa` binary.

use std::path::PathBuf;
use std::process::Command;

/// Runs `pussa` with `args`: whether it succeeded, its stdout and its stderr.
pub fn pussa(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_pussa"))
        .args(args)
        .output()
        .expect("run pussa");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `name` in a temporary directory of this test process, `pussa-<tag>-<pid>`.
pub fn tmp_in(tag: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pussa-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}
