//! `pussa serve` as a real process: killed with SIGKILL mid-game and restarted on the same
//! SQLite file, every game continues from its last acknowledged move.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

struct Served {
    child: Child,
    addr: SocketAddr,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `pussa serve` on a free port with its data in `dir`; waits for its "open" line.
fn serve(dir: &Path) -> Served {
    serve_as(&["serve"], dir)
}

/// Starts `pussa ARGS… --addr 127.0.0.1:0 --data DIR`; waits for its "open" line.
fn serve_as(args: &[&str], dir: &Path) -> Served {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pussa"))
        .args(args)
        .args(["--addr", "127.0.0.1:0", "--data"])
        .arg(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn pussa serve");
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).expect("read the first line");
    let url = line
        .trim()
        .strip_prefix("pussa: open http://")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"));
    let addr: SocketAddr = url.trim_end_matches('/').parse().expect("an address");
    // Keep draining stdout so the server never blocks on a full pipe.
    std::thread::spawn(move || {
        let mut sink = String::new();
        let _ = out.read_to_string(&mut sink);
    });
    Served { child, addr }
}

/// One HTTP/1.1 request; (status, body).
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
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, body.to_string())
}

fn json_ok(addr: SocketAddr, method: &str, path: &str, body: Option<&Value>) -> Value {
    let (status, text) = http(addr, method, path, body);
    assert!(
        status == 200 || status == 201,
        "{method} {path}: {status} {text}"
    );
    serde_json::from_str(&text).unwrap()
}

fn temp_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pussa-serve-restart-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn pick(legal: &Value, n: usize) -> String {
    let v = legal.as_array().unwrap();
    v[n % v.len()].as_str().unwrap().to_string()
}

#[test]
fn a_killed_server_restarts_with_every_acknowledged_move() {
    let dir = temp_dir();
    let s = serve(&dir);
    // A game against the computer and an online game, a few moves each.
    let comp = json_ok(
        s.addr,
        "POST",
        "/api/games",
        Some(
            &json!({"game": "raja-pasu", "mode": "match", "opponent": {"kind": "computer", "level": "beginner"}}),
        ),
    );
    let comp_id = comp["id"].as_str().unwrap().to_string();
    let comp_tok = comp["token"].as_str().unwrap().to_string();
    let mut comp_state = comp["state"].clone();
    for i in 0..3 {
        let mv = pick(&comp_state["legal"], i);
        comp_state = json_ok(
            s.addr,
            "POST",
            &format!("/api/games/{comp_id}/moves"),
            Some(&json!({"move": mv, "token": comp_tok})),
        )["state"]
            .clone();
    }
    let online = json_ok(
        s.addr,
        "POST",
        "/api/games",
        // A match: long enough that the client is still playing when the server is killed,
        // even on a busy machine (a single game could be over by then).
        Some(&json!({"game": "walak-pussa", "mode": "match", "opponent": {"kind": "online"}})),
    );
    let id = online["id"].as_str().unwrap().to_string();
    let south = online["token"].as_str().unwrap().to_string();
    let joined = json_ok(
        s.addr,
        "POST",
        &format!("/api/games/{id}/join"),
        Some(&json!({"invite": online["invite"]["token"]})),
    );
    let north = joined["token"].as_str().unwrap().to_string();

    // A client plays the online game as fast as it can; the server is killed while it does.
    let acked: Arc<Mutex<Vec<(u64, String)>>> = Arc::default();
    let stop = Arc::new(AtomicBool::new(false));
    let player = {
        let (acked, stop, addr, id) = (Arc::clone(&acked), Arc::clone(&stop), s.addr, id.clone());
        std::thread::spawn(move || {
            let mut state = json_ok(addr, "GET", &format!("/api/games/{id}"), None);
            let mut n = 0;
            while !stop.load(Ordering::Relaxed) && state["to_move"].is_string() {
                let token = if state["to_move"] == "S" {
                    &south
                } else {
                    &north
                };
                let mv = pick(&state["legal"], n);
                n += 1;
                let ply = state["ply"].as_u64().unwrap();
                let Ok(mut sock) = TcpStream::connect(addr) else {
                    break;
                };
                let body = json!({"move": mv, "token": token, "expected_ply": ply}).to_string();
                let req = format!(
                    "POST /api/games/{id}/moves HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                    body.len()
                );
                if sock.write_all(req.as_bytes()).is_err() {
                    break;
                }
                let mut buf = String::new();
                if sock.read_to_string(&mut buf).is_err() || !buf.starts_with("HTTP/1.1 200") {
                    break; // killed before answering: this move was never acknowledged
                }
                acked.lock().unwrap().push((ply + 1, mv));
                state = serde_json::from_str::<Value>(buf.split_once("\r\n\r\n").unwrap().1)
                    .unwrap()["state"]
                    .clone();
            }
        })
    };
    let t0 = Instant::now();
    while acked.lock().unwrap().len() < 5 && t0.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(5));
    }
    let mut s = s;
    s.child.kill().expect("SIGKILL"); // Child::kill is SIGKILL on Unix
    s.child.wait().unwrap();
    stop.store(true, Ordering::Relaxed);
    player.join().unwrap();
    drop(s);
    let acked = acked.lock().unwrap().clone();
    assert!(
        acked.len() >= 5,
        "the client got {} moves acknowledged before the kill",
        acked.len()
    );

    // Restart on the same database.
    let s = serve(&dir);
    // A second server on the same file is refused.
    let out = Command::new(env!("CARGO_BIN_EXE_pussa"))
        .args(["serve", "--addr", "127.0.0.1:0", "--data"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("another pussa serve (pid "), "{err}");
    assert!(err.contains("is using it"), "{err}");
    let st = json_ok(s.addr, "GET", &format!("/api/games/{id}"), None);
    let stored: Vec<(u64, String)> = st["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["ply"].as_u64().unwrap(),
                m["move"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    // Every acknowledged move is there; at most the one in flight at the kill is there too.
    assert!(
        stored.len() >= acked.len() && stored.len() <= acked.len() + 1,
        "stored {} acked {}",
        stored.len(),
        acked.len()
    );
    assert_eq!(&stored[..acked.len()], &acked[..]);
    assert_eq!(st["seats"]["N"]["taken"], true);
    // The game continues from there.
    assert!(st["to_move"].is_string(), "the match is not over: {st}");
    let token = if st["to_move"] == "S" {
        &online["token"]
    } else {
        &joined["token"]
    };
    let mv = pick(&st["legal"], 0);
    let after = json_ok(
        s.addr,
        "POST",
        &format!("/api/games/{id}/moves"),
        Some(&json!({"move": mv, "token": token, "expected_ply": st["ply"]})),
    );
    assert_eq!(after["state"]["ply"], stored.len() as u64 + 1);

    // The computer game is exactly where it was, and goes on.
    let cs = json_ok(s.addr, "GET", &format!("/api/games/{comp_id}"), None);
    assert_eq!(cs, comp_state);
    let mv = pick(&cs["legal"], 1);
    let r = json_ok(
        s.addr,
        "POST",
        &format!("/api/games/{comp_id}/moves"),
        Some(&json!({"move": mv, "token": comp_tok})),
    );
    assert_eq!(
        r["played"].as_array().unwrap().len(),
        2,
        "the computer replies after the restart"
    );
    drop(s);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `serve --db` on a device, a FIFO or a directory: refused in one line before SQLite opens it,
/// so that no journal is written next to it (`/dev/null-journal`, as root).
#[test]
#[cfg(unix)]
fn serve_refuses_a_database_that_is_not_a_regular_file_and_writes_nothing() {
    let dir = std::env::temp_dir().join(format!("pussa-serve-special-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("fifo.sqlite3");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    // A link to /dev/null, so that a journal SQLite wrote would land in this directory or
    // in /dev.
    let null = dir.join("null.sqlite3");
    std::os::unix::fs::symlink("/dev/null", &null).unwrap();
    let sub = dir.join("sub");
    std::fs::create_dir(&sub).unwrap();
    let null_journal_before = std::path::Path::new("/dev/null-journal").exists();
    for (db, kind) in [
        (&null, "a character device"),
        (&fifo, "a FIFO"),
        (&sub, "a directory"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_pussa"))
            .args(["serve", "--addr", "127.0.0.1:0", "--egtb", "none", "--db"])
            .arg(db)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            err.trim_end(),
            format!(
                "error: cannot open the database {}: not a regular file (it is {kind})",
                db.display()
            )
        );
    }
    let mut left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["fifo.sqlite3", "null.sqlite3", "sub"]);
    assert_eq!(std::fs::read_dir(&sub).unwrap().count(), 0);
    if !null_journal_before {
        assert!(!std::path::Path::new("/dev/null-journal").exists());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn serve_reports_a_bad_address_and_an_unusable_data_dir() {
    let out = Command::new(env!("CARGO_BIN_EXE_pussa"))
        .args(["serve", "--addr", "nowhere:99999"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "clap rejects it");
    assert!(String::from_utf8_lossy(&out.stderr).contains("--addr"));
    let out = Command::new(env!("CARGO_BIN_EXE_pussa"))
        .args([
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--db",
            "/proc/pussa-no/x.sqlite3",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.trim_end(),
        "error: --db /proc/pussa-no/x.sqlite3: the directory /proc/pussa-no does not exist \
         (create it first; --db does not create directories)"
    );
    // A file that is not a database is refused, and left as it was.
    let dir = std::env::temp_dir().join(format!("pussa-serve-garbage-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let garbage = dir.join("pussa.sqlite3");
    std::fs::write(&garbage, vec![0x5a_u8; 8192]).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_pussa"))
        .args(["serve", "--addr", "127.0.0.1:0", "--data"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.trim_end(),
        format!(
            "error: cannot open the database {}: not an SQLite database (its first bytes are not an SQLite header)",
            garbage.display()
        )
    );
    assert_eq!(std::fs::read(&garbage).unwrap(), vec![0x5a_u8; 8192]);
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        1,
        "no journal is left next to it"
    );
    // --data naming a file: said so, in one line.
    let out = Command::new(env!("CARGO_BIN_EXE_pussa"))
        .args(["serve", "--addr", "127.0.0.1:0", "--egtb", "none", "--data"])
        .arg(&garbage)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.trim_end(),
        format!(
            "error: --data {}: not a directory (it is a file; use --db FILE for a database file)",
            garbage.display()
        )
    );
    let _ = std::fs::remove_dir_all(&dir);
    let out = Command::new(env!("CARGO_BIN_EXE_pussa"))
        .args(["serve"])
        .env("PUSSA_ADDR", "not an address")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("PUSSA_ADDR"));
}

/// `serve --db` creates the file but not its directories: a mistyped directory is refused in
/// one line and nothing is made (it used to create the whole chain and serve an empty game
/// list); a file on the way is named as not a directory (it was "File exists").
#[test]
fn serve_db_does_not_create_missing_directories() {
    let dir = std::env::temp_dir().join(format!("pussa-serve-dbdir-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("afile.txt"), "").unwrap();
    let run = |db: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_pussa"))
            .args([
                "serve",
                "--addr",
                "127.0.0.1:0",
                "--egtb",
                "none",
                "--db",
                db,
            ])
            .current_dir(&dir)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{db}");
        String::from_utf8_lossy(&out.stderr).trim_end().to_string()
    };
    assert_eq!(
        run("typo/dtaa/sub/pussa.sqlite3"),
        "error: --db typo/dtaa/sub/pussa.sqlite3: the directory typo/dtaa/sub does not exist \
         (create it first; --db does not create directories)"
    );
    assert_eq!(
        run("afile.txt/x.db"),
        "error: --db afile.txt/x.db: afile.txt is not a directory (it is a file)"
    );
    let left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["afile.txt"]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `serve --addr` names what is wrong with an address (it was the standard library's
/// "invalid socket address syntax" for all of these), as a usage error; `PUSSA_ADDR` the same.
#[test]
fn serve_addr_errors_name_the_problem() {
    for (addr, want) in [
        ("127.0.0.1:99999", "port 99999 is not in 0..=65535"),
        (
            "127.0.0.1:99999999999999999999999",
            "port 99999999999999999999999 is not in 0..=65535",
        ),
        (
            "127.0.0.1:-1",
            "port '-1' is not a whole number (ports are 0..=65535)",
        ),
        ("127.0.0.1:", "missing port after ':'"),
        ("127.0.0.1", "missing port: expected HOST:PORT"),
        ("nowhere:80", "host 'nowhere' is not an IP address"),
        ("::1:80", "an IPv6 host goes in brackets: [::1]:80"),
        (":80", "missing host before ':'"),
        // Advice that is itself a valid address, never `[127.0.0.1:1]:2` or `[[::1]:80`.
        (
            "127.0.0.1:18101:1",
            "host '127.0.0.1:18101' is not an IP address: too many ':'",
        ),
        ("[::1:18101", "missing ']' after the IPv6 host"),
        ("[::1]", "missing port after ']'"),
        ("[::1]80", "'80' after ']': expected ':' and the port"),
        ("::1]:80", "']' without a '[' before it"),
        ("[::1]:80:", "missing port after ':'"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_pussa"))
            .args(["serve", "--egtb", "none", "--addr", addr])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{addr}");
        let err = String::from_utf8_lossy(&out.stderr);
        let first = err.lines().next().unwrap();
        assert!(
            first.starts_with(&format!(
                "error: invalid value '{addr}' for '--addr <HOST:PORT>': {want}"
            )),
            "{addr}: {err}"
        );
        assert!(!err.contains("socket address syntax"), "{err}");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_pussa"))
        .args(["serve", "--egtb", "none"])
        .env("PUSSA_ADDR", "127.0.0.1:70000")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        "error: PUSSA_ADDR '127.0.0.1:70000': port 70000 is not in 0..=65535"
    );
}

/// `pussa` alone is `pussa serve` and takes serve's options (they used to be refused:
/// "unexpected argument '--addr'"); mixed with another subcommand they are a usage error.
#[test]
fn bare_pussa_takes_serves_options() {
    let dir = std::env::temp_dir().join(format!("pussa-serve-bare-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let served = serve_as(&["--egtb", "none"], &dir);
    let meta = json_ok(served.addr, "GET", "/api/meta", None);
    assert!(meta.is_object(), "{meta}");
    assert!(dir.join("pussa.sqlite3").exists());
    drop(served);
    let out = Command::new(env!("CARGO_BIN_EXE_pussa"))
        .args(["--addr", "127.0.0.1:0", "levels"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).ok();
}

/// The opcodes (and, for a close frame, the code) of the frames a server sends until its close
/// frame or the end of the stream.
fn frames_until_close(s: &mut TcpStream) -> (Vec<u8>, Option<u16>) {
    let mut ops = Vec::new();
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        // Parse what is there.
        while buf.len() >= 2 {
            let op = buf[0] & 0x0f;
            let (len, head) = match buf[1] & 0x7f {
                126 if buf.len() >= 4 => (usize::from(u16::from_be_bytes([buf[2], buf[3]])), 4),
                127 if buf.len() >= 10 => (
                    usize::try_from(u64::from_be_bytes(buf[2..10].try_into().unwrap())).unwrap(),
                    10,
                ),
                126 | 127 => break,
                n => (usize::from(n), 2),
            };
            if buf.len() < head + len {
                break;
            }
            ops.push(op);
            if op == 8 {
                let code = (len >= 2).then(|| u16::from_be_bytes([buf[head], buf[head + 1]]));
                return (ops, code);
            }
            buf.drain(..head + len);
        }
        match s.read(&mut chunk) {
            Ok(0) | Err(_) => return (ops, None),
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

#[test]
fn sigterm_closes_websockets_with_1001_and_does_not_wait_for_half_sent_requests() {
    // A directory of its own: temp_dir() is the other tests' (and emptied by them).
    let dir = std::env::temp_dir().join(format!("pussa-serve-sigterm-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut served = serve(&dir);
    let addr = served.addr;
    let c = json_ok(
        addr,
        "POST",
        "/api/games",
        Some(&json!({"game": "raja-pasu"})),
    );
    let id = c["id"].as_str().unwrap();
    let mut ws = TcpStream::connect(addr).unwrap();
    ws.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        ws,
        "GET /api/games/{id}/ws HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: \
         Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    .unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        ws.read_exact(&mut byte).unwrap();
        head.push(byte[0]);
    }
    assert!(
        head.starts_with(b"HTTP/1.1 101"),
        "{}",
        String::from_utf8_lossy(&head)
    );
    // Half a request head, never finished.
    let mut half = TcpStream::connect(addr).unwrap();
    half.write_all(b"GET /api/meta HTTP/1.1\r\nHost: x\r\n")
        .unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let t0 = Instant::now();
    let status = Command::new("kill")
        .args(["-TERM", &served.child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let (ops, code) = frames_until_close(&mut ws);
    assert_eq!(
        code,
        Some(1001),
        "frames {ops:?}: the socket must be told the server is going away"
    );
    loop {
        if served.child.try_wait().unwrap().is_some() {
            break;
        }
        // Below the request head's 20 s timeout, which is what a server waiting for the
        // half-sent request would take, and far above the 3 s shutdown grace (room for a loaded
        // machine).
        assert!(
            t0.elapsed() < Duration::from_secs(15),
            "the server waited for the half-sent request"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(half);
    let _ = std::fs::remove_dir_all(&dir);
}
