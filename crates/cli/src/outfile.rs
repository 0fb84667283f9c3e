//! The files commands write (`play --save`, `tournament --pgn/--results/--plot`): one rule for
//! all of them. An existing file is never written over unless `--force` says so, and a file
//! that cannot be written is refused at start-up, before any game is played.

use std::path::Path;

use anyhow::{bail, Context};

/// Whether `path` names an existing regular file (a pipe or `/dev/stdout` is not one: writing
/// to those loses nothing).
#[must_use]
pub fn is_existing_file(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
}

/// Refuses `option`'s `path` if it is an existing regular file and `force` is not given.
///
/// # Errors
/// The file exists (the message names the option, the file and `--force`).
pub fn refuse_existing(option: &str, path: &Path, force: bool) -> anyhow::Result<()> {
    if !force && is_existing_file(path) {
        bail!(
            "{option} {}: the file exists (choose another name, or add --force to write over it)",
            path.display()
        );
    }
    Ok(())
}

/// Checks, without changing anything, that `path` can be written: an existing file opens for
/// writing (its contents untouched), a new one can be created (and is removed again).
///
/// # Errors
/// The file cannot be created or opened for writing (a missing directory, no permission).
pub fn check_creatable(path: &Path) -> anyhow::Result<()> {
    let what = || format!("cannot write {}", path.display());
    if std::fs::metadata(path).is_ok() {
        std::fs::OpenOptions::new()
            .append(true)
            .open(path)
            .map(drop)
            .with_context(what)
    } else {
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .map(drop)
            .with_context(what)?;
        std::fs::remove_file(path).with_context(what)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An existing file is refused without --force and accepted with it; a new file in a
    /// writable directory passes the check and is not left behind; a missing directory fails.
    #[test]
    fn existing_files_and_writable_paths() {
        let dir = std::env::temp_dir().join(format!("pussa-outfile-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let old = dir.join("old.txt");
        std::fs::write(&old, "kept").unwrap();
        let e = refuse_existing("--save", &old, false)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("the file exists") && e.contains("--force"),
            "{e}"
        );
        refuse_existing("--save", &old, true).unwrap();
        check_creatable(&old).unwrap();
        assert_eq!(std::fs::read_to_string(&old).unwrap(), "kept");
        let new = dir.join("new.txt");
        refuse_existing("--save", &new, false).unwrap();
        check_creatable(&new).unwrap();
        assert!(!new.exists());
        let e = check_creatable(&dir.join("no-such-dir/x.txt")).unwrap_err();
        assert!(format!("{e:#}").starts_with("cannot write "), "{e:#}");
        assert!(!is_existing_file(Path::new("/dev/null")));
        std::fs::remove_dir_all(&dir).ok();
    }
}
