//! Names the commit a build was made from, for `pussa --version`: `PUSSA_COMMIT`, the first 9
//! hex digits of `git rev-parse HEAD` (changes not yet committed are not marked). Empty outside
//! a git checkout (a build from the published package), where `--version` names the release and
//! the schema only, unless the builder sets `PUSSA_COMMIT` itself.

use std::path::PathBuf;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(std::env::var("CARGO_MANIFEST_DIR").ok()?)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    Some(String::from_utf8(out.stdout).ok()?.trim().to_string())
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=PUSSA_COMMIT");
    // A packager may name the commit of a source tarball itself.
    if let Ok(given) = std::env::var("PUSSA_COMMIT") {
        println!("cargo:rustc-env=PUSSA_COMMIT={given}");
        return;
    }
    let commit = git(&["rev-parse", "HEAD"])
        .filter(|c| c.len() >= 9 && c.bytes().all(|b| b.is_ascii_hexdigit()));
    let Some(commit) = commit else {
        println!("cargo:rustc-env=PUSSA_COMMIT=");
        return;
    };
    // Build again when HEAD moves: HEAD itself (a branch switch), the branch's ref, and the
    // packed refs (where a ref goes after `git gc`).
    for path in ["HEAD", "packed-refs"] {
        if let Some(p) = git(&["rev-parse", "--git-path", path]) {
            println!("cargo:rerun-if-changed={}", absolute(&p).display());
        }
    }
    if let Some(r) = git(&["symbolic-ref", "-q", "HEAD"]) {
        if let Some(p) = git(&["rev-parse", "--git-path", &r]) {
            println!("cargo:rerun-if-changed={}", absolute(&p).display());
        }
    }
    println!("cargo:rustc-env=PUSSA_COMMIT={}", &commit[..9]);
}

/// `git rev-parse --git-path` answers relative to the directory it ran in (the crate's).
fn absolute(p: &str) -> PathBuf {
    let p = PathBuf::from(p);
    if p.is_absolute() {
        p
    } else {
        PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default()).join(p)
    }
}
