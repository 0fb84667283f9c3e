//! One test process's temporary directory, for the integration tests of every crate. Each
//! crate's test helpers include this file with `#[path]`, so `CARGO_TARGET_TMPDIR` is the
//! including crate's (cargo sets it for integration tests only).

use std::path::{Path, PathBuf};

/// This test process's directory `pussa-<tag>-<pid>` under cargo's `CARGO_TARGET_TMPDIR`
/// (target/tmp), never the machine's /tmp; not created here. The test harness has no hook at
/// exit: the `pussa-<tag>-<pid>` directories of processes that have ended are removed here
/// instead, so a run leaves only its own behind until the next (QA pass 18, review-tests #9).
pub fn process_dir(tag: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let prefix = format!("pussa-{tag}-");
    if let Ok(entries) = std::fs::read_dir(root) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let ended = name
                .strip_prefix(&prefix)
                .and_then(|pid| pid.parse::<u32>().ok())
                .is_some_and(|pid| {
                    pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists()
                });
            if ended {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
    root.join(format!("{prefix}{}", std::process::id()))
}
