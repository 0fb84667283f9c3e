//! The files commands write (`play --save`, `tournament --pgn/--results/--plot`): one rule for
//! all of them. An existing file is never written over unless `--force` says so, and a file
//! that cannot be written is refused at start-up, before any game is played.

use std::path::{Path, PathBuf};

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

/// Where writing `path` really goes, found without changing anything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A regular file, existing or not yet made, at `real`: the path the user gave with its
    /// symbolic links followed (so a link is written through, never replaced). `in_place` when
    /// the file has other hard links: it is then truncated and written where it is, so that
    /// every name keeps naming the one file.
    File { real: PathBuf, in_place: bool },
    /// Anything else: a device, a pipe or FIFO, or a link through `/proc/*/fd` or `/dev/fd`
    /// (`/dev/stdout` is one) to an open handle. It is written through the handle, never
    /// truncated or renamed: with `fd`, this process's own descriptor `fd` (`/dev/stdout`,
    /// `/proc/self/fd/1`), so that the writes share its offset with everything else the
    /// process writes there (`--pgn /dev/stdout > file` keeps the records and the summary
    /// after them); else the path opened for appending.
    Stream { fd: Option<i32> },
}

/// The most symbolic links followed from one path (the kernel's own limit).
const MAX_LINKS: usize = 40;

/// True for a path inside `/proc` or `/dev/fd`, whose links name open handles, not files.
fn is_handle_path(p: &Path) -> bool {
    p.starts_with("/proc") || p.starts_with("/dev/fd")
}

/// The descriptor `N` of this process that `p` names: `/dev/fd/N`, `/proc/self/fd/N`,
/// `/proc/thread-self/fd/N` or `/proc/<this process>/fd/N`.
fn own_fd(p: &Path) -> Option<i32> {
    let rest = p
        .strip_prefix("/dev/fd")
        .or_else(|_| p.strip_prefix("/proc/self/fd"))
        .or_else(|_| p.strip_prefix("/proc/thread-self/fd"))
        .or_else(|_| p.strip_prefix(format!("/proc/{}/fd", std::process::id())))
        .ok()?;
    rest.to_str()?.parse().ok()
}

/// What writing `path` reaches: its symbolic links are followed one by one (a link to a file
/// that does not exist yet names where it will be made), and a link through `/proc/*/fd` or
/// `/dev/fd` is a [`Target::Stream`] whatever it points at.
#[must_use]
pub fn target(path: &Path) -> Target {
    let mut p = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        if is_handle_path(&p) {
            return Target::Stream { fd: own_fd(&p) };
        }
        match std::fs::read_link(&p) {
            Ok(to) => {
                p = match p.parent() {
                    Some(dir) => dir.join(to),
                    None => to,
                };
            }
            Err(_) => break,
        }
    }
    // A directory on the way may be a link into /proc too (`/dev/fd/1` is `/proc/self/fd/1`).
    if let Some(c) = std::fs::canonicalize(&p).ok().filter(|c| is_handle_path(c)) {
        return Target::Stream { fd: own_fd(&c) };
    }
    match std::fs::metadata(&p) {
        Ok(m) if m.is_file() => Target::File {
            in_place: nlink(&m) > 1,
            real: p,
        },
        Ok(_) => Target::Stream { fd: None },
        Err(_) => Target::File {
            real: p,
            in_place: false,
        },
    }
}

#[cfg(unix)]
fn nlink(m: &std::fs::Metadata) -> u64 {
    use std::os::unix::fs::MetadataExt as _;
    m.nlink()
}

#[cfg(not(unix))]
fn nlink(_: &std::fs::Metadata) -> u64 {
    1
}

/// True for a path that is not written whole (see [`Target::Stream`]): a device, a pipe,
/// `/dev/stdout` or a link to one of them.
#[must_use]
pub fn is_stream(path: &Path) -> bool {
    matches!(target(path), Target::Stream { .. })
}

/// Opens `path` for appending: a [`Target::Stream`] through its handle (this process's own
/// descriptor when it names one), anything else by its name, through its links.
///
/// # Errors
/// The file cannot be opened for writing (the message names `path`).
pub fn open_append(path: &Path) -> anyhow::Result<std::fs::File> {
    let what = || format!("cannot write {}", path.display());
    #[cfg(unix)]
    if let Target::Stream { fd: Some(fd) } = target(path) {
        use std::os::fd::FromRawFd as _;
        // SAFETY: fcntl only reads `fd`; the new descriptor it returns is owned by nobody else.
        let new = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 0) };
        if new < 0 {
            return Err(std::io::Error::last_os_error()).with_context(what);
        }
        // SAFETY: `new` is a fresh descriptor, owned by the File from here on.
        return Ok(unsafe { std::fs::File::from_raw_fd(new) });
    }
    std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .with_context(what)
}

/// Whether `a` and `b` name one file: the same file once links are followed (symbolic links,
/// or two hard links to one file), or, for a file not made yet, the same name in the same
/// directory.
#[must_use]
pub fn same_file(a: &Path, b: &Path) -> bool {
    if a == b {
        return true;
    }
    let real = |p: &Path| match target(p) {
        Target::File { real, .. } => real,
        Target::Stream { .. } => p.to_path_buf(),
    };
    let (ra, rb) = (real(a), real(b));
    #[cfg(unix)]
    if let (Ok(x), Ok(y)) = (std::fs::metadata(&ra), std::fs::metadata(&rb)) {
        use std::os::unix::fs::MetadataExt as _;
        return x.dev() == y.dev() && x.ino() == y.ino();
    }
    let canonical = |p: &Path| {
        std::fs::canonicalize(p).ok().or_else(|| {
            let parent = p.parent().filter(|d| !d.as_os_str().is_empty());
            std::fs::canonicalize(parent.unwrap_or(Path::new(".")))
                .ok()
                .map(|d| d.join(p.file_name().unwrap_or_default()))
        })
    };
    canonical(&ra).is_some_and(|x| canonical(&rb) == Some(x))
}

/// A new temporary file beside `real`, `.NAME.<pid>-<n>.part`, made with `create_new` (which
/// never opens an existing file nor follows a link), so that no file of the user's, nor what a
/// link of that name points at, is ever overwritten.
fn temp_beside(real: &Path) -> std::io::Result<(PathBuf, std::fs::File)> {
    let name = real.file_name().unwrap_or_default().to_string_lossy();
    let mut last = None;
    for n in 0..100 {
        let temp = real.with_file_name(format!(".{name}.{}-{n}.part", std::process::id()));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)
        {
            Ok(file) => return Ok((temp, file)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no temporary name left")))
}

/// Refuses a path whose symbolic links never reach a file (a loop of links): it must not be
/// replaced by a file, as a link is never replaced.
fn refuse_link_loop(path: &Path, real: &Path) -> anyhow::Result<()> {
    if std::fs::symlink_metadata(real).is_ok_and(|m| m.file_type().is_symlink()) {
        anyhow::bail!(
            "cannot write {}: its symbolic links lead round in a loop (more than {MAX_LINKS})",
            path.display()
        );
    }
    Ok(())
}

/// Writes `text` to `path` whole. A regular file (through its symbolic links) is written
/// beside itself as a new temporary file `.NAME.<pid>-<n>.part` and renamed over itself, so a reader never sees half a file
/// and the links still name it; a file with other hard links, or one whose directory takes
/// no new files, is truncated and written in place. A [`Target::Stream`] is appended to
/// through its handle.
///
/// # Errors
/// The file cannot be written (the message names the path the user gave).
pub fn write_whole(path: &Path, text: &str) -> anyhow::Result<()> {
    let what = || format!("cannot write {}", path.display());
    match target(path) {
        Target::Stream { .. } => {
            use std::io::Write as _;
            open_append(path)?
                .write_all(text.as_bytes())
                .with_context(what)
        }
        Target::File { real, in_place } => {
            refuse_link_loop(path, &real)?;
            if !in_place {
                if let Ok((temp, mut file)) = temp_beside(&real) {
                    use std::io::Write as _;
                    // The file keeps its permissions (a private file stays private).
                    let kept = match std::fs::metadata(&real) {
                        Ok(m) => std::fs::set_permissions(&temp, m.permissions()),
                        Err(_) => Ok(()),
                    };
                    let written = kept
                        .and_then(|()| file.write_all(text.as_bytes()))
                        .and_then(|()| file.flush());
                    drop(file);
                    if written.is_ok() {
                        return std::fs::rename(&temp, &real).with_context(what);
                    }
                    let _ = std::fs::remove_file(&temp);
                }
            }
            std::fs::write(&real, text).with_context(what)
        }
    }
}

/// Checks, without changing anything, that [`write_whole`] can write `path`: its temporary
/// file can be made beside the real file (and is removed again), or else the file itself
/// opens for writing (its contents untouched).
///
/// # Errors
/// The file cannot be created or opened for writing (a missing directory, no permission).
pub fn check_writable(path: &Path) -> anyhow::Result<()> {
    let what = || format!("cannot write {}", path.display());
    let real = match target(path) {
        Target::Stream { .. } => return open_append(path).map(drop),
        Target::File { real, .. } => real,
    };
    refuse_link_loop(path, &real)?;
    if let Ok((temp, file)) = temp_beside(&real) {
        drop(file);
        let _ = std::fs::remove_file(&temp);
        return Ok(());
    }
    if std::fs::metadata(&real).is_ok() {
        std::fs::OpenOptions::new()
            .append(true)
            .open(&real)
            .map(drop)
            .with_context(what)
    } else {
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&real)
            .map(drop)
            .with_context(what)?;
        std::fs::remove_file(&real).with_context(what)
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
        check_writable(&old).unwrap();
        assert_eq!(std::fs::read_to_string(&old).unwrap(), "kept");
        let new = dir.join("new.txt");
        refuse_existing("--save", &new, false).unwrap();
        check_writable(&new).unwrap();
        assert!(!new.exists());
        let e = check_writable(&dir.join("no-such-dir/x.txt")).unwrap_err();
        assert!(format!("{e:#}").starts_with("cannot write "), "{e:#}");
        assert!(!is_existing_file(Path::new("/dev/null")));
        std::fs::remove_dir_all(&dir).ok();
    }

    /// Writing a file whole never touches a file of the user's named like a temporary file,
    /// nor what a link of that name points at; a loop of links is refused, not replaced; a
    /// private file stays private; nothing temporary is left behind.
    #[cfg(unix)]
    #[test]
    fn whole_writes_spare_neighbours_refuse_link_loops_and_keep_permissions() {
        use std::os::unix::fs::{symlink, PermissionsExt as _};
        let dir = std::env::temp_dir().join(format!("pussa-outfile-safe-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join("games.pgn");
        // A user's file named as the old temporary file was, and a link so named.
        std::fs::write(dir.join("games.pgn.part"), "mine").unwrap();
        let victim = dir.join("victim.txt");
        std::fs::write(&victim, "precious").unwrap();
        let out2 = dir.join("other.csv");
        symlink(&victim, dir.join("other.csv.part")).unwrap();
        write_whole(&out, "records").unwrap();
        write_whole(&out2, "rows").unwrap();
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "records");
        assert_eq!(std::fs::read_to_string(&out2).unwrap(), "rows");
        assert_eq!(
            std::fs::read_to_string(dir.join("games.pgn.part")).unwrap(),
            "mine"
        );
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        assert!(!std::fs::symlink_metadata(&out2)
            .unwrap()
            .file_type()
            .is_symlink());
        // A loop of links: refused by the check and by the write, and left a link.
        let (a, b) = (dir.join("loop-a.pgn"), dir.join("loop-b.pgn"));
        symlink(&b, &a).unwrap();
        symlink(&a, &b).unwrap();
        for e in [
            check_writable(&a).unwrap_err(),
            write_whole(&a, "x").unwrap_err(),
        ] {
            assert!(format!("{e:#}").contains("loop"), "{e:#}");
        }
        assert!(std::fs::symlink_metadata(&a)
            .unwrap()
            .file_type()
            .is_symlink());
        // A private file rewritten stays private.
        std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o600)).unwrap();
        write_whole(&out, "records again").unwrap();
        let mode = std::fs::metadata(&out).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        // No temporary file is left.
        let left: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with('.'))
            .collect();
        assert!(left.is_empty(), "{left:?}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
