//! Names the commit a build was made from, for `pussa --version` and the server's `/api/health`
//! and `/api/meta`: `PUSSA_COMMIT`, the first 9 hex digits of the commit (changes not yet
//! committed are not marked). In order:
//! - `PUSSA_COMMIT` set by the builder (a packager naming a source tarball's commit; empty: none);
//! - `.cargo_vcs_info.json`, which `cargo package` writes into a package: the commit it was
//!   packaged from;
//! - `git rev-parse HEAD`, only when this crate's files are tracked by the repository git finds
//!   (a package unpacked inside some other repository does not name that one's commit);
//! - otherwise none: `--version` then names the release and the schema only.
//!
//! It watches only files that exist (cargo reruns a build script for ever while a watched path
//! is missing): HEAD, the directory of branch refs (a new commit writes its branch's file
//! there) and `packed-refs` when there is one.

use std::path::{Path, PathBuf};
use std::process::Command;

fn manifest_dir() -> PathBuf {
    PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default())
}

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(manifest_dir())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    Some(String::from_utf8(out.stdout).ok()?.trim().to_string())
}

/// The first 9 digits of `sha`, if it is a commit id.
fn short(sha: &str) -> Option<String> {
    (sha.len() >= 9 && sha.bytes().all(|b| b.is_ascii_hexdigit())).then(|| sha[..9].to_string())
}

/// The commit `cargo package` recorded in the package (`{"git": {"sha1": "…"}, …}`).
fn packaged_commit(file: &Path) -> Option<String> {
    let text = std::fs::read_to_string(file).ok()?;
    let at = text.find("\"sha1\"")?;
    let rest = &text[at + "\"sha1\"".len()..];
    let start = rest.find('"')? + 1;
    let len = rest[start..].find('"')?;
    short(&rest[start..start + len])
}

fn watch(path: &Path) {
    if path.exists() {
        println!("cargo:rerun-if-changed={}", path.display());
    }
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=PUSSA_COMMIT");
    if let Ok(given) = std::env::var("PUSSA_COMMIT") {
        println!("cargo:rustc-env=PUSSA_COMMIT={given}");
        return;
    }
    let vcs_info = manifest_dir().join(".cargo_vcs_info.json");
    if vcs_info.exists() {
        watch(&vcs_info);
        let commit = packaged_commit(&vcs_info).unwrap_or_default();
        println!("cargo:rustc-env=PUSSA_COMMIT={commit}");
        return;
    }
    let tracked = git(&["ls-files", "--error-unmatch", "build.rs"]).is_some();
    let commit = if tracked {
        git(&["rev-parse", "HEAD"]).and_then(|c| short(&c))
    } else {
        None
    };
    let Some(commit) = commit else {
        println!("cargo:rustc-env=PUSSA_COMMIT=");
        return;
    };
    for path in ["HEAD", "refs/heads", "packed-refs"] {
        if let Some(p) = git(&["rev-parse", "--git-path", path]) {
            watch(&absolute(&p));
        }
    }
    println!("cargo:rustc-env=PUSSA_COMMIT={commit}");
}

/// `git rev-parse --git-path` answers relative to the directory it ran in (the crate's).
fn absolute(p: &str) -> PathBuf {
    let p = PathBuf::from(p);
    if p.is_absolute() {
        p
    } else {
        manifest_dir().join(p)
    }
}
