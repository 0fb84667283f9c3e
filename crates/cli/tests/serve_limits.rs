//! `pussa serve`'s resource options: the caps on the games and moves held in memory, the hints
//! one client may have at once and the positions replays at once, as `--help` shows them, as
//! they are checked, and in force in a running server.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use pussa_rules::record::Record;
use pussa_rules::{Game, Mode, Side};
use serde_json::{json, Value};

fn pussa(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pussa"))
        .args(args)
        .env_remove("RUST_LOG")
        .output()
        .expect("run pussa")
}

/// The first line of a usage error (exit 2).
fn usage_error(args: &[&str]) -> String {
    let o = pussa(args);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    err.lines().next().unwrap_or_default().to_string()
}

struct Served {
    child: Child,
    addr: SocketAddr,
    log: PathBuf,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `pussa serve` on a free port with a fresh database, `RUST_LOG=info` and `extra` options.
fn serve(tag: &str, extra: &[&str]) -> Served {
    let dir = std::env::temp_dir().join(format!("pussa-serve-limits-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("server.log");
    let mut child = Command::new(env!("CARGO_BIN_EXE_pussa"))
        .args(["serve", "--addr", "127.0.0.1:0", "--egtb", "none", "--data"])
        .arg(dir.join("data"))
        .args(extra)
        .env("RUST_LOG", "info")
        .env_remove("NO_COLOR")
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .expect("spawn pussa serve");
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).expect("the open line");
    let addr = line
        .trim()
        .strip_prefix("pussa: open http://")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .trim_end_matches('/')
        .parse()
        .expect("an address");
    std::thread::spawn(move || {
        let mut sink = String::new();
        let _ = out.read_to_string(&mut sink);
    });
    Served { child, addr, log }
}

fn http(addr: SocketAddr, method: &str, path: &str, body: Option<&Value>) -> (u16, Value) {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let body = body.map(Value::to_string).unwrap_or_default();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: \
         application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut buf = String::new();
    s.read_to_string(&mut buf).expect("read answer");
    let (head, body) = buf.split_once("\r\n\r\n").expect("header end");
    (
        head.split(' ').nth(1).unwrap().parse().unwrap(),
        serde_json::from_str(body).unwrap_or(Value::Null),
    )
}

/// A legal Raja Pasu match record of random moves, at most `plies` long.
fn random_record(plies: usize, seed: u64) -> (String, usize) {
    let mut rec = Record::new(Game::RajaPasu, Mode::Match, Side::South);
    let mut rng = seed;
    let mut n = 0;
    while n < plies && !rec.state().is_over() {
        let mut next = rec.state().clone();
        if next.is_round_over() {
            next.next_round();
        }
        let legal: Vec<_> = next.legal_moves().into_iter().collect();
        rng = rng
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        rec.push(legal[(rng >> 33) as usize % legal.len()]).unwrap();
        n += 1;
    }
    (rec.to_string(), n)
}

#[test]
fn the_resource_options_are_in_help_and_bad_values_are_named() {
    let help = String::from_utf8_lossy(&pussa(&["serve", "--help"]).stdout).into_owned();
    for option in [
        "--max-games-in-memory <N>",
        "--max-moves-in-memory <N>",
        "--hints-per-client <N>",
        "--positions-at-once <N>",
    ] {
        assert!(help.contains(option), "{option} missing from:\n{help}");
    }
    for (args, want) in [
        (
            ["serve", "--max-games-in-memory", "0"],
            "error: invalid value '0' for '--max-games-in-memory <N>': 0 is not in \
             1..=10000000",
        ),
        (
            ["serve", "--max-moves-in-memory", "10"],
            "error: invalid value '10' for '--max-moves-in-memory <N>': 10 is not in \
             1000..=100000000",
        ),
        (
            ["serve", "--max-moves-in-memory", "99999999999999999999999"],
            "error: invalid value '99999999999999999999999' for '--max-moves-in-memory <N>': \
             99999999999999999999999 is not in 1000..=100000000",
        ),
        (
            ["serve", "--hints-per-client", "0"],
            "error: invalid value '0' for '--hints-per-client <N>': 0 is not in 1..=1000",
        ),
        (
            ["serve", "--positions-at-once", "-1"],
            "error: invalid value '-1' for '--positions-at-once <N>': -1 is not in 1..=1024",
        ),
        (
            ["serve", "--positions-at-once", "many"],
            "error: invalid value 'many' for '--positions-at-once <N>': 'many' is not a whole \
             number",
        ),
    ] {
        assert_eq!(usage_error(&args), want);
    }
}

#[test]
fn the_resource_options_are_in_force_in_the_server() {
    let s = serve(
        "force",
        &[
            "--max-games-in-memory",
            "1",
            "--max-moves-in-memory",
            "1000",
            "--hints-per-client",
            "5",
            "--positions-at-once",
            "3",
        ],
    );
    let new = json!({"game": "raja-pasu", "opponent": {"kind": "hotseat"}});
    // One game in memory: the second takes the place of the first.
    for _ in 0..2 {
        let (status, body) = http(s.addr, "POST", "/api/games", Some(&new));
        assert_eq!(status, 201, "{body}");
    }
    let (_, health) = http(s.addr, "GET", "/api/health", None);
    assert_eq!(health["games_in_memory"], 1, "{health}");
    // A record longer than 1000 moves is refused.
    let (record, n) = (1..200)
        .map(|seed| random_record(3000, seed))
        .find(|(_, n)| *n > 1000)
        .expect("a random match of more than 1000 moves");
    let (status, body) = http(
        s.addr,
        "POST",
        "/api/games/import",
        Some(&json!({ "record": record })),
    );
    assert_eq!(status, 503, "{body}");
    assert_eq!(
        body["error"],
        format!(
            "this game has {n} moves, more than the server holds in memory (1000 moves, \
             --max-moves-in-memory): it cannot be served here"
        )
    );
    // The log says what is in force.
    let want = "memory: at most 1 game and 1000 moves held; 5 hints per client; 3 positions \
                replays at once";
    let t0 = Instant::now();
    let mut log = String::new();
    while !log.contains(want) && t0.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(50));
        log = std::fs::read_to_string(&s.log).unwrap_or_default();
    }
    assert!(log.contains(want), "{log}");
}
