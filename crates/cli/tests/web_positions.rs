//! The web state's `moves[]` entries, `GET …/positions`' entries and `start` carry the position
//! string and the round's takings of the position after each ply, the same as `pussa replay
//! --json`'s line for that ply of the game's exported record (QA pass 21, interop2 #2: the
//! entries had only `board`, `closed` and `stores`).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use pussa_rules::record::Record;
use pussa_rules::{Game, GameState, Mode, Rng, Setup, Side};
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

/// `pussa serve` on a free port with its data in `dir`, once it says it is open.
fn serve(dir: &Path) -> Served {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pussa"))
        .args(["serve", "--new-games-per-minute", "0", "--egtb", "none"])
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
    std::thread::spawn(move || {
        let mut sink = String::new();
        let _ = out.read_to_string(&mut sink);
    });
    Served { child, addr }
}

/// One HTTP/1.1 request: (status, body).
fn http(addr: SocketAddr, method: &str, path: &str, body: Option<&Value>) -> (u16, String) {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
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

fn ok(addr: SocketAddr, method: &str, path: &str, body: Option<&Value>) -> String {
    let (status, text) = http(addr, method, path, body);
    assert!(
        status == 200 || status == 201,
        "{method} {path}: {status} {text}"
    );
    text
}

/// `pussa replay --record FILE --json`'s lines.
fn replay_lines(record: &str, dir: &Path) -> Vec<Value> {
    let file = dir.join("game.rec");
    std::fs::write(&file, record).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_pussa"))
        .args(["replay", "--json", "--record"])
        .arg(&file)
        .output()
        .expect("the binary runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object a line"))
        .collect()
}

/// The lines of `replay --json` grouped by ply: the start's (the position as given, its round's
/// end and the next round when its round is already over), then each move's (its line, and the
/// next round's when it ended a round of a match that goes on). A ply's line is its group's
/// last.
fn by_ply(lines: &[Value]) -> Vec<Vec<Value>> {
    let goes_on = |l: &Value| l["round_over"] == true && l["match_over"] == false;
    let mut groups: Vec<Vec<Value>> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let mut group = vec![lines[i].clone()];
        i += 1;
        while goes_on(group.last().unwrap()) && i < lines.len() {
            group.push(lines[i].clone());
            i += 1;
        }
        groups.push(group);
    }
    groups
}

/// A record of random moves: a match stopped once round `rounds` is over, unfinished.
fn random_record(game: Game, seed: u64, rounds: u32) -> String {
    let mut rng = Rng::new(seed);
    let mut g = GameState::new(game, Mode::Match, Side::South);
    let mut rec = Record::new(game, Mode::Match, Side::South);
    while !g.is_over() {
        if g.is_round_over() {
            if g.round() >= rounds {
                break;
            }
            g.next_round();
            continue;
        }
        let legal = g.legal_moves();
        let mv = legal
            .nth(rng.below(legal.len() as u32) as usize)
            .expect("a move is expected");
        g.play(mv).unwrap();
        rec.push(mv).unwrap();
    }
    rec.to_string()
}

/// Imports `record`, then checks every entry of the state's `moves`, of `GET …/positions` and
/// of the move answers' shape against `replay --json` of the game's exported record.
fn check(addr: SocketAddr, dir: &Path, record: &str) -> usize {
    let imp: Value = serde_json::from_str(&ok(
        addr,
        "POST",
        "/api/games/import",
        Some(&json!({ "record": record })),
    ))
    .unwrap();
    let st = &imp["state"];
    let id = st["id"].as_str().unwrap();
    let exported = ok(addr, "GET", &format!("/api/games/{id}/record"), None);
    let positions: Value = serde_json::from_str(&ok(
        addr,
        "GET",
        &format!("/api/games/{id}/positions"),
        None,
    ))
    .unwrap();
    let lines = replay_lines(&exported, dir);
    let groups = by_ply(&lines);
    let moves = st["moves"].as_array().unwrap();
    assert_eq!(groups.len(), moves.len() + 1, "{exported}\n{lines:?}");
    for start in [&st["start"], &positions["start"]] {
        assert_eq!(start["position"], lines[0]["position"], "{exported}");
        assert_eq!(start["taken"], lines[0]["taken"], "{exported}");
    }
    let entries = positions["moves"].as_array().unwrap();
    assert_eq!(entries.len(), moves.len());
    // A match the players ended right after a round-ending move: the state shows that round's
    // end, replay's last line; the last entry stays the next round's layout it was when the
    // move was played (docs/api.md).
    let round_after = |m: &Value| {
        m["position"]
            .as_str()
            .expect("a position string")
            .parse::<Setup>()
            .expect("it reads")
            .round
    };
    let ended_between_rounds = !st["ended"].is_null()
        && moves
            .last()
            .is_some_and(|m| u64::from(round_after(m)) == st["round"].as_u64().unwrap() + 1);
    assert_eq!(
        st["position"],
        lines.last().unwrap()["position"],
        "{exported}"
    );
    assert_eq!(st["taken"], lines.last().unwrap()["taken"], "{exported}");
    for (ply, (m, p)) in moves.iter().zip(entries).enumerate() {
        if ended_between_rounds && ply + 1 == moves.len() {
            assert_ne!(m["position"], st["position"]);
            continue;
        }
        let line = groups[ply + 1].last().unwrap();
        for e in [m, p] {
            assert_eq!(e["ply"], ply + 1);
            assert_eq!(
                e["position"],
                line["position"],
                "ply {}: {exported}",
                ply + 1
            );
            assert_eq!(e["taken"], line["taken"], "ply {}", ply + 1);
            assert_eq!(e["board"], line["board"], "ply {}", ply + 1);
            assert_eq!(e["stores"], line["stores"], "ply {}", ply + 1);
        }
    }
    // The last entry is the state's own position.
    if let Some(last) = moves.last().filter(|_| !ended_between_rounds) {
        assert_eq!(last["position"], st["position"]);
        assert_eq!(last["taken"], st["taken"]);
    }
    moves.len()
}

#[test]
fn every_web_entrys_position_is_replays_line_for_that_ply() {
    let dir = std::env::temp_dir().join(format!("pussa-web-positions-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let server = serve(&dir);
    let addr = server.addr;
    let mut plies = 0;
    // The QA report's record: a match from a round-2 position with seeds taken in the round.
    plies += check(
        addr,
        &dir,
        "[Game \"raja-pasu\"]\n[Mode \"match\"]\n\
         [Position \"0,2,16,1,1,1,1/x,x,x,16,3,0,0 16+25 5+11 S 2 raja-pasu\"]\n\n1. B *\n",
    );
    // A position whose round is over as given: the start is as given, ply 1 in round 3.
    plies += check(
        addr,
        &dir,
        "[Game \"pasu-pondi\"]\n[Mode \"match\"]\n\
         [Position \"0,0,0,0,0,0,0/0,0,0,0,0,3,0 10+30 0+27 S 2 pasu-pondi\"]\n\nR3 1... a *\n",
    );
    // Matches of several rounds (round ends, refills, closed holes, `C+T` stores).
    for (i, game) in Game::ALL.into_iter().enumerate() {
        plies += check(addr, &dir, &random_record(game, 11 + i as u64, 3));
    }
    // A match drawn at the round limit: the state is that round's end, as replay's last line.
    plies += check(
        addr,
        &dir,
        "[Game \"raja-pasu\"]\n[Mode \"match\"]\n[First \"S\"]\n[Result \"1/2-1/2\"]\n\
         [Termination \"drawn at the round limit (1)\"]\n\n\
         1. G e 2. D c 3. B g 4. E f 5. E g 6. C 1/2-1/2\n",
    );
    assert!(plies > 100, "{plies}");
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}
