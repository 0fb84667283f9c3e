//! Helpers shared by the tests that run the `pussa` binary.
// Each test file uses its own part of these helpers.
#![allow(dead_code)]

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "process_dir.rs"]
mod tmp;

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

/// The temporary directory `pussa-<tag>-<pid>` of this test process, under cargo's
/// `CARGO_TARGET_TMPDIR` (target/tmp), created ([`tmp::process_dir`]).
pub fn process_dir(tag: &str) -> PathBuf {
    let dir = tmp::process_dir(tag);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `name` in this test process's temporary directory `tag` ([`process_dir`]).
pub fn tmp_in(tag: &str, name: &str) -> PathBuf {
    process_dir(tag).join(name)
}

/// A test's own temporary directory, removed when it is dropped (also when the test fails).
pub struct Scratch(PathBuf);

impl Scratch {
    /// A new empty directory `tag` in this process's `scratch` directory ([`process_dir`]).
    pub fn new(tag: &str) -> Scratch {
        let d = process_dir("scratch").join(tag);
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Scratch(d)
    }
}

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<OsStr> for Scratch {
    fn as_ref(&self) -> &OsStr {
        self.0.as_os_str()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
