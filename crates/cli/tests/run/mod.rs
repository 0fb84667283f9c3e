//! Running the `pussa` binary as a child process and reading what it printed: shared by the
//! tests of its commands (`cli.rs`, `notation.rs`).
#![allow(dead_code)] // each test file uses its own part of these

use std::process::{Command, Output};

use serde_json::Value;

/// Runs `pussa` with `args`.
pub fn pussa(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pussa"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// Its standard output, as UTF-8.
pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// Its standard error, as UTF-8.
pub fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// Runs and expects success.
pub fn ok(args: &[&str]) -> String {
    let o = pussa(args);
    assert!(o.status.success(), "{args:?} failed: {}", stderr(&o));
    stdout(&o)
}

/// Runs and expects a one-line `error: ...` with exit code 1, never a panic.
pub fn fails(args: &[&str]) -> String {
    let o = pussa(args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
    assert!(err.starts_with("error: "), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    err
}

/// One JSON value a line (`--json` output).
pub fn json_lines(out: &str) -> Vec<Value> {
    out.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}
