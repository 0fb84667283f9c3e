//! `pussa serve` as an administrator runs it: the start-up lines, the log (one line per
//! request at `RUST_LOG=info`, no colour codes in a file, never a seat's token) and the open
//! files limit.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

struct Served {
    child: Child,
    /// The address of the "open" line.
    addr: SocketAddr,
    /// Every start-up line on stdout before the server ran.
    lines: Vec<String>,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn temp(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pussa-serve-ops-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Starts `sh -c '<prefix> exec pussa serve --addr ADDR --data DIR --egtb none'` with its
/// stderr in `err` and `env` set; reads stdout up to the "open" line (and the one after it,
/// when `lines` > 1).
fn serve(
    addr: &str,
    dir: &Path,
    err: &Path,
    prefix: &str,
    env: &[(&str, &str)],
    lines: usize,
) -> Served {
    let script = format!("{prefix} exec \"$0\" serve --addr {addr} --data \"$1\" --egtb none");
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_pussa"))
        .arg(dir)
        .env_remove("RUST_LOG")
        .env_remove("NO_COLOR")
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(err).unwrap());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("spawn pussa serve");
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut got = Vec::new();
    while got.len() < lines {
        let mut line = String::new();
        out.read_line(&mut line).expect("read a start-up line");
        assert!(!line.is_empty(), "stdout ended after {got:?}");
        got.push(line.trim_end().to_string());
    }
    let url = got[0]
        .strip_prefix("pussa: open http://")
        .unwrap_or_else(|| panic!("unexpected first line {:?}", got[0]));
    let addr: SocketAddr = url
        .trim_end_matches('/')
        .parse()
        .expect("an address to open");
    std::thread::spawn(move || {
        let mut sink = String::new();
        let _ = out.read_to_string(&mut sink);
    });
    Served {
        child,
        addr,
        lines: got,
    }
}

fn http(addr: SocketAddr, method: &str, path: &str, body: Option<&Value>) -> (u16, String) {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let body = body.map(Value::to_string).unwrap_or_default();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut buf = String::new();
    s.read_to_string(&mut buf).expect("read answer");
    let (head, body) = buf.split_once("\r\n\r\n").expect("header end");
    (
        head.split(' ').nth(1).unwrap().parse().unwrap(),
        body.to_string(),
    )
}

/// Waits until `path` holds `needle`; its text.
fn wait_for(path: &Path, needle: &str) -> String {
    let t0 = Instant::now();
    loop {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        if text.contains(needle) || t0.elapsed() > Duration::from_secs(30) {
            return text;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn listening_on_all_interfaces_prints_an_address_a_browser_can_open() {
    let dir = temp("any");
    let s = serve("0.0.0.0:0", &dir, &dir.join("err"), "", &[], 2);
    assert!(s.addr.ip().is_loopback(), "{:?}", s.lines);
    assert_ne!(s.addr.port(), 0);
    assert!(
        s.lines[1].starts_with(&format!(
            "pussa: listening on all interfaces (0.0.0.0:{}); from other machines open http://",
            s.addr.port()
        )),
        "{:?}",
        s.lines
    );
    assert!(
        !s.lines.iter().any(|l| l.contains("http://0.0.0.0")),
        "{:?}",
        s.lines
    );
    // The address printed serves the page.
    assert_eq!(http(s.addr, "GET", "/", None).0, 200);
}

#[test]
fn the_info_log_has_a_line_per_request_without_colour_or_tokens() {
    let dir = temp("log");
    let err = dir.join("err");
    let s = serve("127.0.0.1:0", &dir, &err, "", &[("RUST_LOG", "info")], 1);
    assert_eq!(s.lines, [format!("pussa: open http://{}/", s.addr)]);
    let (status, body) = http(
        s.addr,
        "POST",
        "/api/games",
        Some(&json!({"game": "raja-pasu", "opponent": {"kind": "hotseat"}})),
    );
    assert_eq!(status, 201, "{body}");
    let game: Value = serde_json::from_str(&body).unwrap();
    let id = game["id"].as_str().unwrap();
    let token = game["token"].as_str().unwrap();
    assert_eq!(
        http(
            s.addr,
            "GET",
            &format!("/api/games/{id}/hint?token={token}"),
            None
        )
        .0,
        200
    );
    assert_eq!(http(s.addr, "GET", "/api/nothing", None).0, 404);
    let log = wait_for(&err, "/api/nothing");
    for line in [
        "pussa_server::access: 127.0.0.1 \"POST /api/games\" 201 ".to_string(),
        format!("pussa_server::access: 127.0.0.1 \"GET /api/games/{id}/hint\" 200 "),
        "pussa_server::access: 127.0.0.1 \"GET /api/nothing\" 404 ".to_string(),
        format!("listening on {}", s.addr),
    ] {
        assert!(log.contains(&line), "no {line:?} in the log:\n{log}");
    }
    assert!(log.lines().all(|l| l.contains(" INFO ")), "{log}");
    assert!(
        !log.contains('\u{1b}'),
        "colour codes in a log file:\n{log}"
    );
    assert!(!log.contains(token), "a seat's token in the log:\n{log}");
}

#[cfg(target_os = "linux")]
#[test]
fn the_soft_open_files_limit_is_raised_to_the_hard_one() {
    let dir = temp("nofile");
    let err = dir.join("err");
    let hard = {
        let out = Command::new("sh")
            .args(["-c", "ulimit -H -n"])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
        text.parse::<u64>()
            .unwrap_or_else(|_| panic!("the hard limit on open files: {text:?}"))
    };
    // The server starts with a soft limit below the hard one (256, or half a hard limit under
    // 512); it must raise it. A hard limit too low for a server to start cannot be checked:
    // the test fails rather than pass untested (QA pass 18, review-tests #5).
    let soft = if hard >= 512 { 256 } else { hard / 2 };
    assert!(
        soft >= 32,
        "cannot check: the hard limit on open files is {hard}, too low to start a server"
    );
    let s = serve(
        "127.0.0.1:0",
        &dir,
        &err,
        &format!("ulimit -S -n {soft};"),
        &[("RUST_LOG", "info")],
        1,
    );
    let limits = std::fs::read_to_string(format!("/proc/{}/limits", s.child.id())).unwrap();
    let row = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .unwrap();
    let numbers: Vec<u64> = row
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    assert_eq!(numbers, [hard, hard], "{row}");
    let log = wait_for(&err, "open files");
    assert!(
        log.contains(&format!("open files: limit {hard} (raised from {soft})")),
        "{log}"
    );
}

#[cfg(unix)]
#[test]
fn an_error_is_logged_with_the_request_it_happened_in() {
    let dir = temp("errspan");
    let err = dir.join("err");
    // Files may not grow past 100 KiB (`ulimit -f` counts 512-byte blocks in sh). The server
    // ignores SIGXFSZ itself (the signal would end it without a word): writes fail with EFBIG.
    // It opens its database within that, and the write-ahead log then grows with every game
    // until a write fails: that new game is a 500 naming the limit, logged as an error. At the
    // default level: errors only.
    let s = serve("127.0.0.1:0", &dir, &err, "ulimit -f 200;", &[], 1);
    let mut last = (0, String::new());
    for _ in 0..100 {
        last = http(
            s.addr,
            "POST",
            "/api/games",
            Some(&json!({"game": "raja-pasu", "opponent": {"kind": "hotseat"}})),
        );
        if last.0 != 201 {
            break;
        }
    }
    let (status, body) = last;
    // Never passes untested (QA pass 18, review-tests #5): a limit that made no write fail
    // fails the test.
    assert_eq!(
        status, 500,
        "the file size limit did not make a write fail within 100 games: {body}"
    );
    let log = wait_for(&err, "internal error");
    let line = log
        .lines()
        .find(|l| l.contains("internal error"))
        .unwrap_or_else(|| panic!("no error logged:\n{log}"));
    assert!(
        line.contains(" ERROR request{method=POST path=/api/games client=127.0.0.1}: "),
        "{line}"
    );
    assert!(
        body.contains(
            "internal error: database: file too large (the process's file size limit: ulimit \
             -f, systemd LimitFSIZE=)"
        ),
        "{body}"
    );
    // The server lives on.
    let (status, body) = http(s.addr, "GET", "/api/meta", None);
    assert_eq!(status, 200, "{body}");
    assert!(
        !log.contains(" INFO "),
        "info lines at the default level:\n{log}"
    );
}

#[cfg(unix)]
#[test]
fn a_low_open_files_limit_is_warned_about_at_the_default_level() {
    let dir = temp("lownofile");
    let err = dir.join("err");
    // Soft and hard limit 100: the server cannot raise it.
    let s = serve("127.0.0.1:0", &dir, &err, "ulimit -n 100;", &[], 1);
    assert_eq!(http(s.addr, "GET", "/api/meta", None).0, 200);
    let log = wait_for(&err, "open files");
    assert!(
        log.contains(
            " WARN pussa::cmd_serve: open files: limit 100 (raised as far as the hard limit \
             allows) leaves room for only 9 HTTP connections and 18 WebSockets at once"
        ),
        "{log}"
    );
    assert!(log.contains("LimitNOFILE"), "{log}");
    assert_eq!(log.lines().count(), 1, "{log}");
}

#[test]
fn a_trusted_proxy_that_sends_no_client_header_is_warned_about_once() {
    let dir = temp("noxff");
    let err = dir.join("err");
    let s = serve(
        "127.0.0.1:0",
        &dir,
        &err,
        "",
        &[("PUSSA_TRUST_PROXY", "127.0.0.1")],
        1,
    );
    for _ in 0..3 {
        assert_eq!(http(s.addr, "GET", "/api/meta", None).0, 200);
    }
    let log = wait_for(&err, "without a x-forwarded-for header");
    let warnings: Vec<&str> = log.lines().filter(|l| l.contains(" WARN ")).collect();
    assert_eq!(warnings.len(), 1, "{log}");
    assert!(
        warnings[0].contains(
            "the trusted proxy 127.0.0.1 sent a request without a x-forwarded-for header"
        ),
        "{log}"
    );
    assert!(
        warnings[0].contains("proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;"),
        "{log}"
    );
}

/// QA pass 18, second security report, defect 3: a database that others can read (0644, as an
/// older pussa made it) is warned about at start-up, in one line naming the file, its mode and
/// the `chmod` that fixes it; its mode is left as it is.
#[cfg(unix)]
#[test]
fn a_database_readable_by_others_is_warned_about_at_start_up() {
    use std::os::unix::fs::PermissionsExt as _;
    // A space in the path: the printed command quotes it.
    let dir = temp("db mode");
    let db = dir.join("pussa.sqlite3");
    // A server made the database (0600: nothing to say), and stopped.
    let first = dir.join("err1");
    let s = serve("127.0.0.1:0", &dir, &first, "", &[], 1);
    assert_eq!(http(s.addr, "GET", "/api/meta", None).0, 200);
    drop(s);
    assert!(
        !std::fs::read_to_string(&first).unwrap().contains("chmod"),
        "a 0600 database is not warned about"
    );
    // As an older pussa made them: the database and the -wal and -shm files the killed server
    // left, all 0644.
    let wal = dir.join("pussa.sqlite3-wal");
    let shm = dir.join("pussa.sqlite3-shm");
    for f in [&db, &wal, &shm] {
        std::fs::set_permissions(f, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    let err = dir.join("err2");
    let s = serve("127.0.0.1:0", &dir, &err, "", &[], 1);
    assert_eq!(http(s.addr, "GET", "/api/meta", None).0, 200);
    let log = wait_for(&err, "chmod");
    let warnings: Vec<&str> = log.lines().filter(|l| l.contains(" WARN ")).collect();
    assert_eq!(warnings.len(), 1, "{log}");
    let d = db.display();
    assert!(
        warnings[0].contains(&format!(
            "the database {d} (mode 0644) can be read by other users than its owner"
        )),
        "{log}"
    );
    // The database file, quoted: the server makes its -wal and -shm files (which hold the new
    // tokens until a checkpoint) its owner's only itself, while it runs.
    let cmd = format!("chmod 600 '{d}'");
    assert!(
        warnings[0].contains(&format!(
            "run {cmd} (the server leaves an existing database file's mode as it is; it makes \
             its -wal and -shm files readable by their owner only)"
        )),
        "{log}"
    );
    let (status, _) = http(
        s.addr,
        "POST",
        "/api/games",
        Some(&json!({"game": "raja-pasu", "opponent": {"kind": "hotseat"}})),
    );
    assert_eq!(status, 201);
    for f in [&wal, &shm] {
        assert_eq!(
            std::fs::metadata(f).unwrap().permissions().mode() & 0o777,
            0o600,
            "{} while the server runs",
            f.display()
        );
    }
    assert_eq!(
        std::fs::metadata(&db).unwrap().permissions().mode() & 0o777,
        0o644,
        "the mode is left as it is"
    );
    drop(s);
    // The command, pasted into a shell once the server has stopped, does what it says.
    let out = Command::new("sh").arg("-c").arg(&cmd).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        std::fs::metadata(&db).unwrap().permissions().mode() & 0o777,
        0o600
    );
}

#[test]
fn start_up_says_whether_the_database_is_new_or_what_it_holds() {
    let dir = temp("dbline");
    let data = dir.join("club");
    let db = data.join("pussa.sqlite3");
    let s = serve("127.0.0.1:0", &data, &dir.join("err1"), "", &[], 2);
    assert_eq!(
        s.lines[1],
        format!("pussa: new database created at {}", db.display())
    );
    let (status, _) = http(
        s.addr,
        "POST",
        "/api/games",
        Some(&json!({"game": "raja-pasu", "opponent": {"kind": "hotseat"}})),
    );
    assert_eq!(status, 201);
    drop(s);
    let s = serve("127.0.0.1:0", &data, &dir.join("err2"), "", &[], 2);
    assert_eq!(
        s.lines[1],
        format!("pussa: 1 game (1 unfinished) in {}", db.display())
    );
}

/// The first line `pussa serve --addr 127.0.0.1:0` prints, run in `cwd` with `args` and `env`.
fn first_line(cwd: &Path, args: &[&std::ffi::OsStr], env: &[(&str, &Path)]) -> String {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pussa"));
    cmd.current_dir(cwd)
        .args(["serve", "--addr", "127.0.0.1:0"])
        .args(args)
        .env_remove("PUSSA_DATA")
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let _ = child.kill();
    let _ = child.wait();
    line.trim_end().to_string()
}

#[test]
fn the_tables_in_the_data_directory_are_used_whichever_way_it_is_given() {
    let dir = temp("egtbdata");
    let data = dir.join("club").join("data");
    let tables = data.join("egtb");
    let out = Command::new(env!("CARGO_BIN_EXE_pussa"))
        .args([
            "egtb",
            "build",
            "--game",
            "raja-pasu",
            "--max-seeds",
            "2",
            "--quiet",
            "--dir",
        ])
        .arg(&tables)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let said = format!(
        "pussa: endgame tables from {}: raja-pasu (0..=2 seeds)",
        tables.display()
    );
    // --data DIR from another working directory (a systemd unit without WorkingDirectory).
    assert_eq!(
        first_line(&dir, &["--data".as_ref(), data.as_ref()], &[]),
        said
    );
    // PUSSA_DATA alike.
    assert_eq!(first_line(&dir, &[], &[("PUSSA_DATA", &data)]), said);
    // The default ./data from the club's folder, as before.
    assert_eq!(
        first_line(&dir.join("club"), &[], &[]),
        "pussa: endgame tables from data/egtb: raja-pasu (0..=2 seeds)"
    );
    // `--egtb none` still goes without.
    assert!(first_line(
        &dir,
        &[
            "--data".as_ref(),
            data.as_ref(),
            "--egtb".as_ref(),
            "none".as_ref()
        ],
        &[]
    )
    .starts_with("pussa: open "));
}

#[test]
fn egtb_build_writes_where_serve_reads_and_db_files_tables_are_next_to_it() {
    let dir = temp("egtbpd");
    let data = dir.join("club");
    std::fs::create_dir_all(&data).unwrap();
    // With PUSSA_DATA set, `pussa egtb build` without --dir writes to $PUSSA_DATA/egtb, from
    // any working directory ...
    let out = Command::new(env!("CARGO_BIN_EXE_pussa"))
        .current_dir(&dir)
        .env("PUSSA_DATA", &data)
        .args([
            "egtb",
            "build",
            "--game",
            "raja-pasu",
            "--max-seeds",
            "2",
            "--quiet",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let tables = data.join("egtb");
    assert!(tables.join("raja-pasu").is_dir(), "{out:?}");
    assert!(!dir.join("data").exists(), "nothing written to ./data/egtb");
    let said = format!(
        "pussa: endgame tables from {}: raja-pasu (0..=2 seeds)",
        tables.display()
    );
    // ... where `pussa serve` reads them.
    assert_eq!(first_line(&dir, &[], &[("PUSSA_DATA", &data)]), said);
    // --db FILE: the tables next to FILE, as --data DIR's are in DIR.
    let db = data.join("pussa.sqlite3");
    assert_eq!(first_line(&dir, &["--db".as_ref(), db.as_ref()], &[]), said);
    let other = dir.join("elsewhere");
    std::fs::create_dir_all(&other).unwrap();
    assert!(first_line(
        &dir,
        &["--db".as_ref(), other.join("x.sqlite3").as_ref()],
        &[("PUSSA_DATA", &data)]
    )
    .starts_with("pussa: open "));
}

/// Started where it cannot create its default data directory (a service started in `/`, a user
/// in a directory they cannot write), `pussa serve` names the full path, that it is the default
/// relative to the current directory, and how to choose another (it said `cannot create data`).
/// `/proc` refuses a new directory even to root.
#[cfg(target_os = "linux")]
#[test]
fn a_default_data_directory_that_cannot_be_created_is_named_in_full() {
    let out = Command::new(env!("CARGO_BIN_EXE_pussa"))
        .current_dir("/proc")
        .args(["serve", "--addr", "127.0.0.1:0"])
        .env_remove("PUSSA_DATA")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with(
            "error: cannot create the data directory /proc/data (the default ./data, relative \
             to the current directory /proc): "
        ),
        "{err}"
    );
    assert!(
        err.trim_end()
            .ends_with("; choose one with --data DIR or PUSSA_DATA"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    // The tables' directory: a verb too (it said `/proc/x/walak-pussa: No such file …`).
    let out = Command::new(env!("CARGO_BIN_EXE_pussa"))
        .args(["egtb", "build", "--game", "walak-pussa", "--max-seeds", "1"])
        .args(["--quiet", "--dir", "/proc/pussa-egtb"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("error: cannot create the directory /proc/pussa-egtb/walak-pussa: "),
        "{err}"
    );
}

/// `pussa tournament` looks for the tables of its `+tables` players where `pussa egtb build`
/// wrote them, `$PUSSA_DATA/egtb` when PUSSA_DATA is set, as every other command does (it looked
/// in ./data/egtb only); `pussa play --help` states that default.
#[test]
fn tournament_finds_the_tables_under_pussa_data_as_every_command() {
    let dir = temp("tourndata");
    let data = dir.join("club");
    let build = Command::new(env!("CARGO_BIN_EXE_pussa"))
        .current_dir(&dir)
        .env("PUSSA_DATA", &data)
        .args([
            "egtb",
            "build",
            "--game",
            "walak-pussa",
            "--max-seeds",
            "3",
            "--quiet",
        ])
        .output()
        .unwrap();
    assert!(build.status.success(), "{build:?}");
    let out = Command::new(env!("CARGO_BIN_EXE_pussa"))
        .current_dir(&dir)
        .env("PUSSA_DATA", &data)
        .args([
            "tournament",
            "--game",
            "walak-pussa",
            "level:club+tables",
            "level:beginner",
        ])
        .args(["--games", "2"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!dir.join("data").exists(), "nothing looked for in ./data");
    // Without the tables there, the error names $PUSSA_DATA/egtb, not data/egtb.
    let empty = dir.join("empty");
    let out = Command::new(env!("CARGO_BIN_EXE_pussa"))
        .current_dir(&dir)
        .env("PUSSA_DATA", &empty)
        .args([
            "tournament",
            "--game",
            "walak-pussa",
            "level:club+tables",
            "level:beginner",
        ])
        .args(["--games", "2"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains(&format!("under {}", empty.join("egtb").display())),
        "{err}"
    );
    let help = Command::new(env!("CARGO_BIN_EXE_pussa"))
        .args(["help", "play"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        help.contains("Default: `egtb` in the data directory ($PUSSA_DATA/egtb, else data/egtb"),
        "{help}"
    );
    let help = Command::new(env!("CARGO_BIN_EXE_pussa"))
        .args(["help", "tournament"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(help.contains("$PUSSA_DATA/egtb, else data/egtb"), "{help}");
}

/// `/api/health` and `/api/meta` name the commit `pussa --version` names (the build script's),
/// so a club's monitoring tells builds apart as the command line does.
#[test]
fn health_and_meta_name_the_commit_the_version_names() {
    let version = Command::new(env!("CARGO_BIN_EXE_pussa"))
        .arg("--version")
        .output()
        .unwrap();
    let version = String::from_utf8(version.stdout).unwrap();
    let commit = version
        .split_once("(commit ")
        .map(|(_, rest)| rest.split(',').next().unwrap().to_string());
    let dir = temp("commit");
    let s = serve("127.0.0.1:0", &dir, &dir.join("err"), "", &[], 1);
    for path in ["/api/health", "/api/meta"] {
        let (status, body) = http(s.addr, "GET", path, None);
        assert_eq!(status, 200, "{path}: {body}");
        let v: Value = serde_json::from_str(&body).unwrap();
        match &commit {
            Some(c) => assert_eq!(v["commit"], c.as_str(), "{path}: {version} {body}"),
            None => assert!(v["commit"].is_null(), "{path}: {version} {body}"),
        }
    }
}
