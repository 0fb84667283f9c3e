//! The endgame tables wherever the computer plays, through the binary: `pussa engine`'s
//! `EGTBPath` option (a child process), `pussa tournament` players with `+tables`, and the
//! `--egtb` options of `pussa play` and `pussa serve`. Small tables are built in a temp dir.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use pussa_egtb::{build_dir, BuildOptions, Tables};

mod common;
use common::Scratch;
use pussa_rules::{Game, Position, Rng, Setup, Side};

const MAX: usize = 8;

/// Tables of Raja Pasu up to 8 seeds, built once for all the tests of this file, under
/// target/tmp (removed by the next run, [`common::process_dir`]).
fn tables_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = common::process_dir("cli-tables");
        build_dir(
            &dir,
            Game::RajaPasu,
            MAX,
            BuildOptions::default(),
            false,
            &|_| {},
            &mut |_| {},
        )
        .expect("build the tables");
        dir
    })
}

/// An empty directory of the test's own, removed when dropped.
fn empty_dir(tag: &str) -> Scratch {
    Scratch::new(&format!("notables-{tag}"))
}

fn pussa(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_pussa"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run pussa");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

struct Engine {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Engine {
    fn start() -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_pussa"))
            .arg("engine")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start pussa engine");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Engine {
            child,
            stdin,
            lines,
        }
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Lines up to and including the first one for which `done` holds.
    fn until(&mut self, done: impl Fn(&str) -> bool) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut got = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) => {
                    let stop = done(&l);
                    got.push(l);
                    if stop {
                        return got;
                    }
                }
                Err(e) => panic!("no answer ({e:?}); got so far: {got:?}"),
            }
        }
    }

    /// Sends `line` then `isready`, and returns what came before `readyok`.
    fn ask(&mut self, line: &str) -> Vec<String> {
        self.send(line);
        self.send("isready");
        let mut l = self.until(|l| l == "readyok");
        l.pop();
        l
    }

    fn bestmove(&mut self, go: &str) -> (Vec<String>, String) {
        self.send(go);
        let lines = self.until(|l| l.starts_with("bestmove "));
        let best = lines.last().unwrap()["bestmove ".len()..].to_string();
        (lines, best)
    }

    fn quit(mut self) {
        self.send("quit");
        let deadline = Instant::now() + Duration::from_secs(20);
        while self.child.try_wait().unwrap().is_none() {
            assert!(Instant::now() < deadline, "engine did not exit after quit");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// Random positions of Raja Pasu with 3..=8 seeds on the board whose round is not over.
fn positions(n: usize, seed: u64) -> Vec<Position> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    while out.len() < n {
        let k = 3 + rng.below(MAX as u32 - 2);
        let mut board = [0u8; 14];
        for _ in 0..k {
            board[rng.below(14) as usize] += 1;
        }
        let rest = 98 - k;
        let side = if rng.below(2) == 0 {
            Side::South
        } else {
            Side::North
        };
        let pos = Position::from_parts_unchecked(
            Game::RajaPasu,
            board,
            0,
            [(rest / 2) as u8, (rest - rest / 2) as u8],
            side,
        );
        let state = pussa_rules::GameState::from_position(pos, pussa_rules::Mode::Match, 1, side);
        if !state.is_round_over() && !state.legal_moves().is_empty() {
            out.push(pos);
        }
    }
    out
}

/// `EGTBPath`: a bad path and a directory without tables are clear errors and the engine goes
/// on; with the tables the search proves table values at once and its moves are the tables'
/// best, for the search and for a level; `<empty>` drops the tables.
#[test]
fn engine_protocol_loads_tables_with_egtbpath() {
    let dir = tables_dir();
    let tables = Tables::open(dir, Game::RajaPasu, None).unwrap();
    let mut e = Engine::start();
    e.send("pussa");
    let hello = e.until(|l| l == "pussaok");
    assert!(
        hello
            .iter()
            .any(|l| l == "option name EGTBPath type string default <empty>"),
        "{hello:?}"
    );
    let bad = e.ask("setoption name EGTBPath value /no/such/dir");
    assert!(
        bad.len() == 1
            && bad[0].starts_with("info string error: ")
            && bad[0].contains("'/no/such/dir' is not a directory"),
        "{bad:?}"
    );
    let empty = empty_dir("engine");
    let none = e.ask(&format!(
        "setoption name EGTBPath value {}",
        empty.display()
    ));
    assert!(
        none.len() == 1 && none[0].contains("error") && none[0].contains("no endgame tables"),
        "{none:?}"
    );
    let ok = e.ask(&format!("setoption name EGTBPath value {}", dir.display()));
    assert_eq!(
        ok,
        vec![format!(
            "info string EGTBPath {}: tables of raja-pasu",
            dir.display()
        )]
    );
    // A single game: in a match the end of a round is also valued by what it leads to
    // (crates/engine/tests/matches.rs checks that), so only here is the value the table's.
    e.ask("newgame raja-pasu single");
    for (i, pos) in positions(12, 5).iter().enumerate() {
        let fen = Setup::from_position(pos, 1).to_string();
        e.ask(&format!("position fen {fen}"));
        let values = tables.move_values(pos).expect("covered");
        let best = values.iter().filter_map(|m| m.value).max().unwrap();
        let go = if i % 2 == 0 {
            e.ask("setoption name Level value search");
            "go nodes 300"
        } else {
            e.ask("setoption name Level value club");
            "go"
        };
        let (lines, mv) = e.bestmove(go);
        let chosen = values
            .iter()
            .find(|m| m.mv.to_string() == mv)
            .unwrap_or_else(|| panic!("{fen}: bestmove {mv} is not legal: {lines:?}"));
        assert_eq!(chosen.value, Some(best), "{fen}: {mv} {values:?} {lines:?}");
        if i % 2 == 0 {
            // The search's value is proven: the table's value plus the seeds already taken.
            let me = pos.to_move();
            let taken = i32::from(pos.store(me)) - i32::from(pos.store(me.other()));
            let want = taken + tables.probe_fresh(pos).unwrap();
            let last_info = lines
                .iter()
                .rev()
                .find(|l| l.starts_with("info depth"))
                .unwrap();
            assert!(
                last_info.contains(&format!("score seeds {want} exact yes")),
                "{fen}: {last_info}"
            );
        }
    }
    let off = e.ask("setoption name EGTBPath value <empty>");
    assert_eq!(
        off,
        vec!["info string EGTBPath: no endgame tables".to_string()]
    );
    e.quit();
}

/// With `EGTBPath` the root's value is proven at once, and the move played may be another of
/// the same value (the traps among equal moves, docs/engine.md): the last `info` line before
/// `bestmove` then gives that move's own pv, so its first move is always the `bestmove`.
#[test]
fn engine_protocol_last_pv_starts_with_the_bestmove_with_tables() {
    let dir = tables_dir();
    let mut e = Engine::start();
    e.ask(&format!("setoption name EGTBPath value {}", dir.display()));
    e.ask("newgame raja-pasu single");
    // The tester's position (its trap move is F, the first pv's D), then random ones.
    let mut fens = vec!["0,0,1,1,1,1,0/0,2,0,0,0,1,1 13 77 S 1 raja-pasu".to_string()];
    fens.extend(
        positions(40, 17)
            .iter()
            .map(|p| Setup::from_position(p, 1).to_string()),
    );
    let mut changed = 0;
    for fen in &fens {
        e.ask(&format!("position fen {fen}"));
        for go in ["go nodes 200000", "go movetime 60"] {
            let (lines, mv) = e.bestmove(go);
            let infos: Vec<&String> = lines
                .iter()
                .filter(|l| l.starts_with("info depth"))
                .collect();
            let last = infos
                .last()
                .unwrap_or_else(|| panic!("{fen} {go}: no info: {lines:?}"));
            let first = last
                .split(" pv ")
                .nth(1)
                .and_then(|pv| pv.split_whitespace().next())
                .unwrap_or_else(|| panic!("{fen} {go}: no pv: {last}"));
            assert_eq!(first, mv, "{fen} {go}: {lines:?}");
            assert!(last.contains("exact yes"), "{fen} {go}: {lines:?}");
            if infos.len() > 1 && !infos[0].contains(&format!(" pv {mv}")) {
                changed += 1;
            }
        }
    }
    // The tester's position chooses another move than the first pv's, with both limits.
    assert!(
        changed >= 2,
        "no search changed its move: the test tests nothing"
    );
    e.quit();
}

/// A damaged table file is refused by `EGTBPath` with the file's name and what fixes it
/// (`Tables::open` gives it `Remedy::DeleteOrRebuild`, as a build does); the engine goes on.
#[test]
fn engine_protocol_refuses_a_damaged_table() {
    let dir = empty_dir("damaged");
    build_dir(
        &dir,
        Game::WalakPussa,
        4,
        BuildOptions::default(),
        false,
        &|_| {},
        &mut |_| {},
    )
    .unwrap();
    let f = pussa_egtb::format::table_path(&dir, Game::WalakPussa, 3);
    let mut bytes = std::fs::read(&f).unwrap();
    let n = bytes.len();
    bytes[n - 1] ^= 0x01;
    std::fs::write(&f, bytes).unwrap();
    let mut e = Engine::start();
    let got = e.ask(&format!("setoption name EGTBPath value {}", dir.display()));
    assert!(
        got.len() == 1
            && got[0].starts_with("info string error: ")
            && got[0].contains("3.pegtb")
            && got[0].contains("checksum")
            && got[0].ends_with("the table is damaged (delete it or build with --rebuild)"),
        "{got:?}"
    );
    let (_, mv) = e.bestmove("go depth 2");
    assert_ne!(mv, "none");
    e.quit();
    std::fs::remove_dir_all(&dir).ok();
}

/// `+tables` players: the names in the summary, the records and the results carry the suffix;
/// a player that does not search and a directory without tables are one-line errors.
#[test]
fn tournament_players_with_tables() {
    let dir = tables_dir();
    let out_dir = empty_dir("tournament");
    let json = out_dir.join("r.json");
    let pgn = out_dir.join("g.pgn");
    let (ok, out, err) = pussa(&[
        "tournament",
        "level:club+tables",
        "level:club",
        "--game",
        "raja-pasu",
        "-n",
        "2",
        "--random-opening",
        "2",
        "--concurrency",
        "2",
        "--quiet",
        "--egtb",
        dir.to_str().unwrap(),
        "--results",
        json.to_str().unwrap(),
        "--pgn",
        pgn.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(
        out.starts_with("level:club+tables vs level:club: raja-pasu"),
        "{out}"
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["players"][0], "level:club+tables");
    assert_eq!(v["players"][1], "level:club");
    assert_eq!(v["games"].as_array().unwrap().len(), 2);
    let records = std::fs::read_to_string(&pgn).unwrap();
    assert_eq!(records.matches("level:club+tables").count(), 2, "{records}");

    let (ok, _, err) = pussa(&[
        "tournament",
        "search+tables",
        "greedy",
        "--game",
        "raja-pasu",
        "-n",
        "2",
        "--quiet",
        "--egtb",
        empty_dir("tournament-none").to_str().unwrap(),
    ]);
    assert!(!ok);
    assert!(
        err.starts_with("error: 'search+tables': no endgame tables of raja-pasu under")
            && err.trim_end().lines().count() == 1,
        "{err}"
    );
    let (ok, _, err) = pussa(&[
        "tournament",
        "greedy+tables",
        "search",
        "--game",
        "raja-pasu",
        "--quiet",
    ]);
    assert!(!ok);
    assert!(err.contains("does not use endgame tables"), "{err}");
    std::fs::remove_dir_all(&out_dir).ok();
}

/// `--balanced-openings`: every pair plays an opening of the full length, the same for both
/// games of a pair.
#[test]
fn tournament_balanced_openings() {
    let out_dir = empty_dir("balanced");
    let csv = out_dir.join("r.csv");
    let (ok, out, err) = pussa(&[
        "tournament",
        "level:casual",
        "greedy",
        "--game",
        "raja-pasu",
        "-n",
        "4",
        "--random-opening",
        "4",
        "--balanced-openings",
        "2000",
        "--quiet",
        "--results",
        csv.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let text = std::fs::read_to_string(&csv).unwrap();
    let openings: Vec<String> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(11).unwrap().to_string())
        .collect();
    assert_eq!(openings.len(), 4);
    for o in &openings {
        assert_eq!(o.split_whitespace().count(), 4, "{text}");
    }
    assert!(
        out.contains(
            "openings: 4 random plies, kept within 3 seeds of even by a search of 2000 nodes"
        ),
        "{out}"
    );
    assert_eq!(openings[0], openings[1]);
    assert_eq!(openings[2], openings[3]);
    let (ok, _, err) = pussa(&["tournament", "greedy", "random", "--balanced-openings", "0"]);
    assert!(!ok && err.contains("--balanced-openings"), "{err}");
    std::fs::remove_dir_all(&out_dir).ok();
}

/// `--exact-openings`: every pair starts from an exact draw solved with the tables (checked
/// here with the solver), different for every pair; each game records the exact final margin
/// of its opening, and the summary and the results count who ended below it. Matches and
/// --balanced-openings are refused.
#[test]
fn tournament_exact_openings() {
    let dir = tables_dir();
    let out_dir = empty_dir("exact");
    let json = out_dir.join("r.json");
    let csv = out_dir.join("r.csv");
    let args = |results: &Path| -> Vec<String> {
        [
            "tournament",
            "level:club+tables",
            "random",
            "--game",
            "raja-pasu",
            "-n",
            "6",
            "--exact-openings",
            "--quiet",
            "--concurrency",
            "2",
            "--egtb",
            dir.to_str().unwrap(),
            "--results",
            results.to_str().unwrap(),
        ]
        .map(String::from)
        .to_vec()
    };
    let a = args(&json);
    let (ok, out, err) = pussa(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(ok, "{err}");
    assert!(
        out.contains("openings: 4 random plies, exact draws by the endgame tables in 6 of 6 games")
            && out.contains("3 different"),
        "{out}"
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let tables = Tables::open(dir, Game::RajaPasu, None).unwrap();
    let games = v["games"].as_array().unwrap();
    assert_eq!(games.len(), 6);
    let mut below = [0u64; 2];
    let mut openings = Vec::new();
    for g in games {
        let moves: Vec<String> = g["opening"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap().to_string())
            .collect();
        assert_eq!(moves.len(), 4);
        let mut state =
            pussa_rules::GameState::new(Game::RajaPasu, pussa_rules::Mode::Single, Side::South);
        for m in &moves {
            state.play(m.parse().unwrap()).unwrap();
        }
        let pos = state.position();
        let future = pussa_egtb::solve::Solver::new(&tables, 50_000_000)
            .value(pos)
            .unwrap();
        let [south, north] = pos.stores().map(i32::from);
        let exact = south - north
            + if pos.to_move() == Side::South {
                future
            } else {
                -future
            };
        assert_eq!(exact, 0, "{moves:?}");
        assert_eq!(g["exact"], exact, "{g}");
        let stores = g["stores"].as_array().unwrap();
        let last = stores[0].as_i64().unwrap() - stores[1].as_i64().unwrap();
        let south_player = g["south_player"].as_u64().unwrap() as usize;
        if last < i64::from(exact) {
            below[south_player] += 1;
        } else if last > i64::from(exact) {
            below[1 - south_player] += 1;
        }
        openings.push(moves);
    }
    assert_eq!(v["below_exact"]["games"], 6);
    assert_eq!(v["below_exact"]["players"][0], below[0]);
    assert_eq!(v["below_exact"]["players"][1], below[1]);
    assert!(below[1] > 0, "random never gave seeds away: {v}");
    assert!(out.contains(&format!(
        "ended below the exact value of their seat: level:club+tables in {} of 6 games, random in {} of 6",
        below[0], below[1]
    )));
    // Both games of a pair share the opening; the pairs' openings differ.
    for pair in openings.chunks(2) {
        assert_eq!(pair[0], pair[1]);
    }
    assert!(openings[0] != openings[2] && openings[2] != openings[4] && openings[0] != openings[4]);
    // The CSV carries the exact margin, before the seat's three columns (first_mover,
    // first_mover_score, ending), the engines' overruns (south_overruns, north_overruns) and
    // the clock columns (time_control, south_clock_ms, north_clock_ms), the game's name and
    // index.
    let a = args(&csv);
    let (ok, _, err) = pussa(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(ok, "{err}");
    let text = std::fs::read_to_string(&csv).unwrap();
    assert!(
        text.lines().next().unwrap().ends_with(
            ",exact_margin,first_mover,first_mover_score,ending,south_overruns,north_overruns,time_control,south_clock_ms,north_clock_ms,game_name,index"
        ),
        "{text}"
    );
    assert!(
        text.lines()
            .skip(1)
            .all(|l| l.rsplit(',').nth(10) == Some("0")),
        "{text}"
    );

    let mut a = args(&json);
    a.push("--match".into());
    let (ok, _, err) = pussa(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(
        !ok && err.contains("--exact-openings needs single games"),
        "{err}"
    );
    let mut a = args(&json);
    a.extend(["--balanced-openings".into(), "1000".into()]);
    let (ok, _, err) = pussa(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(!ok && err.contains("cannot be used with"), "{err}");
    let mut a = args(&json);
    let at = a.iter().position(|x| x == "--egtb").unwrap();
    let none = empty_dir("exact-none");
    a[at + 1] = none.to_str().unwrap().to_string();
    let (ok, _, err) = pussa(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(
        !ok && err.starts_with(
            "error: 'level:club+tables' and --exact-openings: no endgame tables of raja-pasu"
        ),
        "{err}"
    );
    std::fs::remove_dir_all(&out_dir).ok();
}

/// `pussa play --egtb DIR` and `pussa serve --egtb DIR`: a directory without tables is an error
/// before anything starts; `pussa play --help` and `pussa serve --help` document the option.
#[test]
fn play_and_serve_egtb_options() {
    let empty = empty_dir("play");
    let (ok, _, err) = pussa(&[
        "play",
        "--game",
        "raja-pasu",
        "--egtb",
        empty.to_str().unwrap(),
    ]);
    assert!(!ok);
    assert!(
        err.starts_with("error: --egtb ") && err.contains("no endgame tables of raja-pasu"),
        "{err}"
    );
    let (ok, _, err) = pussa(&[
        "serve",
        "--egtb",
        empty.to_str().unwrap(),
        "--addr",
        "127.0.0.1:0",
        "--data",
        empty.to_str().unwrap(),
    ]);
    assert!(!ok);
    assert!(err.contains("no endgame tables there"), "{err}");
    for cmd in ["play", "serve"] {
        let (ok, out, _) = pussa(&[cmd, "--help"]);
        assert!(ok);
        assert!(out.contains("--egtb <DIR|none>"), "{out}");
    }
    std::fs::remove_dir_all(&empty).ok();
}

/// Raja Pasu's tables up to `max` seeds built by `pussa egtb build` into a fresh directory
/// (removed when dropped).
fn small_tables(tag: &str, max: u32) -> Scratch {
    let dir = empty_dir(tag);
    std::fs::remove_dir_all(&dir).unwrap();
    let (ok, _, err) = pussa(&[
        "egtb",
        "build",
        "--game",
        "raja-pasu",
        "--max-seeds",
        &max.to_string(),
        "--dir",
        dir.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(ok, "{err}");
    dir
}

/// `pussa egtb probe` of the Raja Pasu position `pos` with the tables under `dir`.
fn probe_raja(dir: &str, pos: &str) -> (bool, String, String) {
    pussa(&[
        "egtb",
        "probe",
        "--game",
        "raja-pasu",
        "--dir",
        dir,
        "--position",
        pos,
    ])
}

/// A failure as the project wants it: a non-zero exit and one line `error: …`, no panic.
fn one_line_error(ok: bool, err: &str) -> String {
    assert!(!ok, "succeeded: {err}");
    assert!(
        err.starts_with("error: ") && err.trim_end().lines().count() == 1 && !err.contains("panic"),
        "{err}"
    );
    err.trim_end().to_string()
}

/// Every `pussa egtb` and `pussa analyze --egtb` command refuses a table whose checksums are
/// good but whose values are impossible (every byte margin +63, QA's file): a one-line error
/// naming the first such file, never a panic and never a value read from it.
#[test]
fn egtb_commands_refuse_impossible_values_with_good_checksums() {
    let dir = small_tables("impossible", 4);
    for k in 1..=4 {
        let n = pussa_egtb::index::layer_size(k) as usize;
        pussa_egtb::format::write_table(&dir, Game::RajaPasu, k, &vec![0x7E; n], 0, 0).unwrap();
    }
    let d = dir.to_str().unwrap();
    let qa = "0,1,0,2,0,0,0/1,0,0,0,1,0,1 92 0 S 1 raja-pasu";
    let small = "0,1,0,2,0,0,0/1,0,0,0,0,0,0 94 0 S 1 raja-pasu";
    let runs: [&[&str]; 4] = [
        &[
            "egtb",
            "solve",
            "--game",
            "raja-pasu",
            "--dir",
            d,
            "--position",
            qa,
        ],
        &[
            "egtb",
            "probe",
            "--game",
            "raja-pasu",
            "--dir",
            d,
            "--position",
            small,
        ],
        &["egtb", "verify", "--dir", d],
        &[
            "analyze",
            "--game",
            "raja-pasu",
            "--egtb",
            d,
            "--position",
            qa,
        ],
    ];
    for args in runs {
        let (ok, out, err) = pussa(args);
        let e = one_line_error(ok, &err);
        assert!(
            e.contains("raja-pasu/1.pegtb: impossible value at entry 0: margin +63 with 1 seed"),
            "{args:?}: {e}"
        );
        assert!(
            !out.contains("value +") && !out.contains("exact") && !out.contains("verified"),
            "{args:?}: {out}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// `egtb verify` goes on past a missing layer: it reports the gap, checks every file after it
/// (a truncated one), says which layers it could not re-compute, and fails.
#[test]
fn egtb_verify_reports_a_missing_layer_and_checks_every_file_after_it() {
    let dir = small_tables("verify-gap", 4);
    let d = dir.to_str().unwrap();
    std::fs::remove_file(dir.join("raja-pasu/3.pegtb")).unwrap();
    let four = dir.join("raja-pasu/4.pegtb");
    let bytes = std::fs::read(&four).unwrap();
    std::fs::write(&four, &bytes[..10]).unwrap();
    let (ok, out, err) = pussa(&["egtb", "verify", "--dir", d]);
    let e = one_line_error(ok, &err);
    assert!(
        out.contains("raja-pasu: files 0..=4: 2 of 5 layers missing or bad")
            && out.contains(&format!(
                "  3 seeds: {d}/raja-pasu/3.pegtb is missing: the tables of raja-pasu under {d} go up to 4 seeds, but not 3"
            ))
            && out.contains(&format!("  4 seeds: {d}/raja-pasu/4.pegtb: truncated"))
            && out.contains("  2 seeds: 105 of 105 positions re-computed, 0 mismatches")
            && out.contains("  3 seeds and up not re-computed")
            && !out.contains("verified"),
        "{out}"
    );
    assert!(
        e.contains("3.pegtb is missing")
            && e.ends_with(
                "(1 table file missing, 1 table file damaged, mismatched or not a file; see above)"
            ),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `--max-seeds` beyond the files is a cap in `egtb solve` (said on stderr); `egtb match`
/// without the closed patterns' tables names what is missing, in one line.
#[test]
fn egtb_missing_layers_name_the_seed_counts_there() {
    let dir = small_tables("missing", 4);
    let d = dir.to_str().unwrap();
    // `--max-seeds` is a cap: above the tables, all there are, said on stderr.
    let (ok, out, err) = pussa(&[
        "egtb",
        "solve",
        "--game",
        "raja-pasu",
        "--dir",
        d,
        "--max-seeds",
        "1000",
        "--seeds-per-hole",
        "1",
    ]);
    assert!(ok, "{err}");
    assert!(
        err.contains("--max-seeds 1000: the tables go up to 4 seeds; using them up to 4")
            && out.contains("tables 0..=4"),
        "{out}{err}"
    );
    // `match` also needs the closed patterns' tables, which are not there: named.
    let (ok, _, err) = pussa(&[
        "egtb",
        "match",
        "--game",
        "raja-pasu",
        "--dir",
        d,
        "--max-seeds",
        "100",
        "--seeds-per-hole",
        "1",
        "--states",
        "--exhaustive",
    ]);
    let e = one_line_error(ok, &err);
    assert!(e.contains("closed holes"), "{e}");
    // Also with 1 seed a hole and --exhaustive, whose exact values alone are searched without
    // tables: the error says the command needs them, and so does its help.
    assert!(
        e.starts_with(
            "error: egtb match needs the open board's tables and the closed patterns' (`pussa \
             egtb build ... --closed all` builds them all), whatever --seeds-per-hole (with 1 \
             seed a hole only --exhaustive's exact values are searched without them): "
        ),
        "{e}"
    );
    let (ok, help, _) = pussa(&["help", "egtb", "match"]);
    assert!(ok);
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        help.contains("Both read the tables, open board and closed patterns")
            && help.contains("the match and the margins before them still need the tables"),
        "{help}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// A directory named `2.pegtb`: every egtb command names it ("is a directory, not a table
/// file"), `build` with and without `--rebuild` too, and no temporary file is left behind.
#[test]
fn egtb_a_directory_in_place_of_a_table_file_is_named() {
    let dir = small_tables("dir-file", 4);
    let d = dir.to_str().unwrap();
    let f = dir.join("raja-pasu/2.pegtb");
    std::fs::remove_file(&f).unwrap();
    std::fs::create_dir(&f).unwrap();
    let want = format!("{d}/raja-pasu/2.pegtb is a directory, not a table file");
    let pos = "0,1,0,2,0,0,0/1,0,0,0,1,0,1 92 0 S 1 raja-pasu";
    let runs: [&[&str]; 6] = [
        &[
            "egtb",
            "solve",
            "--game",
            "raja-pasu",
            "--dir",
            d,
            "--position",
            pos,
        ],
        &[
            "egtb",
            "solve",
            "--game",
            "raja-pasu",
            "--dir",
            d,
            "--max-seeds",
            "4",
        ],
        &[
            "egtb",
            "probe",
            "--game",
            "raja-pasu",
            "--dir",
            d,
            "--position",
            pos,
        ],
        &["egtb", "verify", "--dir", d],
        &[
            "egtb",
            "build",
            "--game",
            "raja-pasu",
            "--dir",
            d,
            "--max-seeds",
            "4",
            "--quiet",
        ],
        &[
            "egtb",
            "build",
            "--game",
            "raja-pasu",
            "--dir",
            d,
            "--max-seeds",
            "4",
            "--quiet",
            "--rebuild",
        ],
    ];
    for args in runs {
        let (ok, _, err) = pussa(args);
        let e = one_line_error(ok, &err);
        assert!(e.starts_with(&format!("error: {want}")), "{args:?}: {e}");
    }
    let names: Vec<String> = std::fs::read_dir(dir.join("raja-pasu"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!names.iter().any(|n| n.ends_with(".tmp")), "{names:?}");
    std::fs::remove_dir_all(&dir).ok();
}

/// `egtb verify --samples N` re-computes N positions of every layer that has more (all of a
/// smaller one), 0 none, as its help says.
#[test]
fn egtb_verify_samples_mean_what_they_say() {
    let dir = small_tables("samples", 3);
    let d = dir.to_str().unwrap();
    let (ok, out, err) = pussa(&["egtb", "verify", "--dir", d, "--samples", "5"]);
    assert!(ok, "{err}");
    assert!(
        out.contains("  1 seed: 5 of 14 positions re-computed, 0 mismatches")
            && out.contains("  3 seeds: 5 of 560 positions re-computed")
            && out.contains("all tables verified"),
        "--samples 5: {out}"
    );
    let (ok, out, _) = pussa(&["egtb", "verify", "--dir", d, "--samples", "20"]);
    assert!(ok && out.contains("  1 seed: 14 of 14 positions"), "{out}");
    let (ok, out, _) = pussa(&["help", "egtb", "verify"]);
    assert!(ok && out.contains("0: none"), "{out}");
    std::fs::remove_dir_all(&dir).ok();
}

/// `egtb solve --position` calls the side to move that, not "the first player"; counts of one
/// are singular.
#[test]
fn egtb_wording_of_the_side_to_move_and_counts_of_one() {
    let dir = small_tables("wording", 1);
    let d = dir.to_str().unwrap();
    let (ok, out, err) = pussa(&[
        "egtb",
        "solve",
        "--game",
        "raja-pasu",
        "--dir",
        d,
        "--position",
        "0,0,0,0,0,0,0/1,0,0,0,0,0,0 97 0 N 1 raja-pasu",
    ]);
    assert!(ok, "{err}");
    assert!(
        out.starts_with(
            "the position: value +1 for North (to move; future seeds, North minus opponent), \
             tables 0..=1, "
        ) && out.contains("final margin of the round, seeds taken in it included: -96 for North")
            && out.contains("principal variation (1 move): a")
            && !out.contains("first player"),
        "{out}"
    );
    let (ok, out, err) = pussa(&[
        "egtb",
        "solve",
        "--game",
        "raja-pasu",
        "--dir",
        d,
        "--seeds-per-hole",
        "1",
    ]);
    assert!(ok, "{err}");
    assert!(
        out.starts_with(
            "raja-pasu with 1 seed a hole (14 seeds): value +2 for South (the first player)"
        ),
        "{out}"
    );
    let (ok, _, err) = probe_raja(d, "0,1,0,0,0,0,0/0,0,0,0,0,0,1 96 0 S 1 raja-pasu");
    let e = one_line_error(ok, &err);
    assert!(
        e.contains(&format!(
            "2 seeds on the board (build the tables to 2, or use `pussa egtb solve --position`): {d}/raja-pasu/2.pegtb is missing: the tables of raja-pasu under {d} go up to 1 seed"
        )),
        "{e}"
    );
    let (ok, out, _) = pussa(&["egtb", "verify", "--dir", d]);
    assert!(
        ok && out.contains("  0 seeds: 1 of 1 position re-computed, 0 mismatches")
            && out.contains("  1 seed: 14 of 14 positions re-computed"),
        "{out}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `egtb match` on a reduced Raja Pasu (1 seed a hole; open and closed tables to 6 seeds, the
/// search does the rest) tells the match in words: how each round ended, who wins, and the
/// states' values, no debugging text.
#[test]
fn egtb_match_tells_the_match_in_words() {
    let dir = small_tables("match-words", 6);
    let d = dir.to_str().unwrap();
    let build = [
        "egtb",
        "build",
        "--game",
        "raja-pasu",
        "--max-seeds",
        "6",
        "--closed",
        "all",
        "--dir",
        d,
        "--quiet",
    ];
    let (ok, _, err) = pussa(&build);
    assert!(ok, "{err}");
    let (ok, out, err) = pussa(&[
        "egtb",
        "match",
        "--game",
        "raja-pasu",
        "--dir",
        d,
        "--seeds-per-hole",
        "1",
        "--states",
        "--exhaustive",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("ended as North has no legal move"), "{out}");
    assert!(
        out.contains("The match from the start (South first), exactly: South wins within 4 rounds"),
        "{out}"
    );
    assert!(out.contains("South wins the match in 4 rounds"), "{out}");
    assert!(
        out.contains("South wins within") && out.contains("North wins within"),
        "{out}"
    );
    for debug in ["{ ", "NoLegalMove", "Win {", "Unresolved", "Draw"] {
        assert!(!out.contains(debug), "{debug} in {out}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A layer missing below the top: `egtb probe` names it and the layers the directory has
/// (it used to say the tables went up to the layer below the gap).
#[test]
fn egtb_probe_names_a_missing_layer_below_the_top() {
    let dir = small_tables("probe-gap", 6);
    let d = dir.to_str().unwrap();
    std::fs::remove_file(dir.join("raja-pasu/3.pegtb")).unwrap();
    let (ok, _, err) = probe_raja(d, "0,1,0,2,0,0,0/1,0,0,0,1,0,0 93 0 S 1 raja-pasu");
    let e = one_line_error(ok, &err);
    // The tables go past the position's 5 seeds: no advice to build them to 5.
    assert_eq!(
        e,
        format!(
            "error: {d}/raja-pasu/3.pegtb is missing: the tables of raja-pasu under {d} go up to 6 seeds, but not 3 (`pussa egtb build --game raja-pasu --max-seeds 6 --dir {d}` builds the missing layers again)"
        )
    );
    // A position with closed holes: the advice names the closed-hole tables and the command
    // that builds them, not the open board's.
    let (ok, _, err) = probe_raja(d, "x,x,x,1,0,0,2/0,1,0,0,0,0,1 45 48 S 2 raja-pasu");
    let e = one_line_error(ok, &err);
    assert_eq!(
        e,
        format!(
            "error: 5 seeds on the board with closed holes (3, 0) (--closed-dir DIR says where their tables are): {d}/raja-pasu/c3-0/0.pegtb is missing: there are no tables of raja-pasu with closed holes (3, 0) under {d} (build them with `pussa egtb build --game raja-pasu --max-seeds 5 --dir {d} --closed 3-0`)"
        )
    );
    // A position below the gap is still probed.
    let (ok, out, err) = probe_raja(d, "0,1,0,0,0,0,0/0,0,0,0,0,0,1 96 0 S 1 raja-pasu");
    assert!(ok && out.starts_with("value "), "{out}{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A layer missing in the middle of a directory is refused wherever the computer plays with
/// the whole directory: `analyze --egtb`, the engine's `EGTBPath` and `+tables` players. They
/// used to play on with the layers below the gap (values no longer exact), without a word.
#[test]
fn a_missing_middle_layer_is_refused_by_analyze_engine_and_tournament() {
    let dir = small_tables("middle-gap", 5);
    let d = dir.to_str().unwrap();
    std::fs::remove_file(dir.join("raja-pasu/3.pegtb")).unwrap();
    let want = format!(
        "{d}/raja-pasu/3.pegtb is missing: the tables of raja-pasu under {d} go up to 5 seeds, but not 3"
    );
    let (ok, out, err) = pussa(&[
        "analyze",
        "--game",
        "raja-pasu",
        "--position",
        "1,0,0,1,0,3,0/0,0,0,0,0,0,0 93 0 S 1 raja-pasu",
        "--egtb",
        d,
        "--depth",
        "2",
    ]);
    let e = one_line_error(ok, &err);
    assert!(e.contains(&want), "{e}");
    assert!(out.is_empty(), "{out}");

    let mut engine = Engine::start();
    let got = engine.ask(&format!("setoption name EGTBPath value {d}"));
    // The engine's error keeps the command that builds the layer again, as `pussa` errors do.
    assert!(
        got.len() == 1
            && got[0].starts_with("info string error: ")
            && got[0].contains(&want)
            && got[0].ends_with(&format!(
                "(`pussa egtb build --game raja-pasu --max-seeds 5 --dir {d}` builds the missing layers again)"
            )),
        "{got:?}"
    );
    engine.quit();

    let (ok, out, err) = pussa(&[
        "tournament",
        "level:club+tables",
        "random",
        "--game",
        "raja-pasu",
        "-n",
        "2",
        "--quiet",
        "--egtb",
        d,
    ]);
    let e = one_line_error(ok, &err);
    assert!(e.contains(&want), "{e}");
    assert!(out.is_empty(), "{out}");
    std::fs::remove_dir_all(&dir).ok();
}

/// `egtb build --max-seeds` past the layers the builder can build is refused at once with the
/// limit (24 seeds for the open board, more with closed holes), not after hours with a panic.
#[test]
fn egtb_build_refuses_layers_past_32_bit_ranks_at_once() {
    let dir = empty_dir("too-many");
    std::fs::remove_dir_all(&dir).unwrap();
    let d = dir.to_str().unwrap();
    let (ok, _, err) = pussa(&[
        "egtb",
        "build",
        "--game",
        "raja-pasu",
        "--max-seeds",
        "25",
        "--dir",
        d,
        "--quiet",
    ]);
    assert_eq!(
        one_line_error(ok, &err),
        "error: --max-seeds 25: 25 seeds cannot be built: the tables of raja-pasu go up to 24 seeds at most (a layer's boards are counted in 32 bits)"
    );
    // Far past the limit: the same one message (clap's range used to give another).
    let (ok, _, err) = pussa(&[
        "egtb",
        "build",
        "--game",
        "raja-pasu",
        "--max-seeds",
        "41",
        "--dir",
        d,
        "--quiet",
    ]);
    assert_eq!(
        one_line_error(ok, &err),
        "error: --max-seeds 41: 41 seeds cannot be built: the tables of raja-pasu go up to 24 seeds at most (a layer's boards are counted in 32 bits)"
    );
    // The whole list is checked before any pattern is built.
    let (ok, _, err) = pussa(&[
        "egtb",
        "build",
        "--game",
        "raja-pasu",
        "--max-seeds",
        "26",
        "--closed",
        "6-0,1-0",
        "--dir",
        d,
        "--quiet",
    ]);
    assert_eq!(
        one_line_error(ok, &err),
        "error: --max-seeds 26: 26 seeds cannot be built: the tables of raja-pasu with closed holes (1, 0) go up to 25 seeds at most (a layer's boards are counted in 32 bits)"
    );
    assert!(!dir.exists(), "something was written");
}

/// `egtb build --closed` refuses a pattern with closed holes in both rows, which no position
/// has (only the player short of seeds closes holes), so no command could probe its tables: it
/// was built, at length, and every probe of such a position was refused.
#[test]
fn closed_patterns_with_both_rows_closed_are_refused() {
    let dir = empty_dir("closed-both");
    let out = dir.join("tables");
    for (list, item) in [("3-1", "3-1"), ("2-0,6-6", "6-6"), ("1-1", "1-1")] {
        let (ok, _, err) = pussa(&[
            "egtb",
            "build",
            "--game",
            "raja-pasu",
            "--max-seeds",
            "4",
            "--closed",
            list,
            "--dir",
            out.to_str().unwrap(),
            "--quiet",
        ]);
        assert_eq!(
            one_line_error(ok, &err),
            format!(
                "error: --closed: `{item}`: both rows closed, which no game reaches (only the \
                 player short of seeds closes holes); the match patterns are c-0 and 0-c, c = 1..6"
            )
        );
        assert!(!out.exists(), "{list}: something was written");
    }
}

/// `egtb build` into a directory whose game another build is writing is refused at once with
/// one line naming it (two builds used to race, and one failed with "0.pegtb: No such file or
/// directory").
#[cfg(unix)]
#[test]
fn egtb_build_refuses_a_directory_another_build_is_writing() {
    let dir = empty_dir("two-builds");
    let d = dir.to_str().unwrap();
    let lock = pussa_egtb::BuildLock::take(&dir, Game::RajaPasu).unwrap();
    for closed in [None, Some("2-0")] {
        let mut args = vec![
            "egtb",
            "build",
            "--game",
            "raja-pasu",
            "--max-seeds",
            "3",
            "--dir",
            d,
            "--quiet",
        ];
        args.extend(closed.iter().flat_map(|c| ["--closed", c]));
        let (ok, _, err) = pussa(&args);
        assert_eq!(
            one_line_error(ok, &err),
            format!(
                "error: another build is writing {d}/raja-pasu (wait for it to finish, or stop it)"
            ),
            "{closed:?}"
        );
    }
    drop(lock);
    let (ok, _, err) = pussa(&[
        "egtb",
        "build",
        "--game",
        "raja-pasu",
        "--max-seeds",
        "3",
        "--dir",
        d,
        "--quiet",
    ]);
    assert!(ok, "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// `egtb probe` of a round-2 position: the round's final margin counts what each player took in
/// the round (the `C+T` stores), not what they carried over from the refill.
#[test]
fn egtb_probe_margins_count_the_rounds_takings() {
    let dir = small_tables("probe-takings", 4);
    let d = dir.to_str().unwrap();
    let value = |out: &str| -> i32 {
        let line = out.lines().find(|l| l.starts_with("value ")).unwrap();
        line["value ".len()..]
            .split_whitespace()
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    let final_margin = |out: &str| -> String {
        out.lines()
            .find(|l| l.starts_with("final margin"))
            .unwrap_or_else(|| panic!("{out}"))
            .to_string()
    };
    // Carried 50 and 34, South took 10 in the round so far.
    let (ok, out, err) = probe_raja(d, "0,1,0,2,0,0,0/1,0,0,0,0,0,0 50+10 34 S 2 raja-pasu");
    assert!(ok, "{err}");
    let want = format!(
        "final margin of the round, seeds taken in it included: {:+} for South",
        10 + value(&out)
    );
    assert_eq!(final_margin(&out), want, "{out}");
    // Round 1: the stores are the takings.
    let (ok, out, err) = probe_raja(d, "0,1,0,2,0,0,0/1,0,0,0,0,0,0 60 34 S 1 raja-pasu");
    assert!(ok, "{err}");
    let want = format!(
        "final margin of the round, seeds taken in it included: {:+} for South",
        26 + value(&out)
    );
    assert_eq!(final_margin(&out), want, "{out}");
}

/// Rewrites layer `k` of the Raja Pasu tables under `dir` with entry `rank` set to `byte`, the
/// header's counts taken from the new payload (a forgery that every check of the file passes).
fn forge_entry(dir: &Path, k: usize, rank: usize, byte: u8) -> u8 {
    let path = pussa_egtb::format::table_path(dir, Game::RajaPasu, k);
    let mut payload = std::fs::read(&path).unwrap()[64..].to_vec();
    let old = payload[rank];
    payload[rank] = byte;
    let undetermined = payload.iter().filter(|&&b| b == 0xFF).count() as u64;
    let history = payload.iter().filter(|&&b| b >= 0x80).count() as u64 - undetermined;
    pussa_egtb::format::write_table(dir, Game::RajaPasu, k, &payload, history, undetermined)
        .unwrap();
    old
}

/// `egtb verify` checks the history flag as well as the margin (an entry whose flag was
/// cleared, with consistent counts and checksums, once passed and made `probe` say "exact for
/// any history"), and names the positions that disagree with the stored and re-computed values.
#[test]
fn egtb_verify_checks_the_history_flag_and_names_the_positions() {
    let dir = small_tables("verify-flag", 4);
    let d = dir.to_str().unwrap();
    // Entry 469 of 3 seeds (the report's): +3 with the flag, its value depends on history.
    let old = forge_entry(&dir, 3, 469, 0x42);
    assert_eq!(old, 0xC2);
    let (ok, out, err) = pussa(&["egtb", "verify", "--dir", d]);
    let e = one_line_error(ok, &err);
    assert!(
        e.contains("3.pegtb: 1 of 560 positions re-computed disagree"),
        "{e}"
    );
    assert!(
        out.contains("  3 seeds: 560 of 560 positions re-computed, 1 mismatch\n")
            && out.contains(
                "    1,0,0,1,0,0,0/1,0,0,0,0,0,0 48 47 S 1 raja-pasu: stored +3 without the \
                 history flag (exact for any history), but +1 when the round came to it from \
                 0,1,0,0,1,0,0/0,0,1,0,0,0,0 48 47 S 1 raja-pasu by E c F d G e B f C g (10 \
                 moves)"
            ),
        "{out}"
    );
    // A wrong margin: stored and re-computed values, with the position.
    forge_entry(&dir, 3, 469, 0xC0);
    let (ok, out, err) = pussa(&["egtb", "verify", "--dir", d]);
    one_line_error(ok, &err);
    assert!(
        out.contains(
            "    1,0,0,1,0,0,0/1,0,0,0,0,0,0 48 47 S 1 raja-pasu: stored +1 (history flag), \
             re-computed +3"
        ),
        "{out}"
    );
    forge_entry(&dir, 3, 469, 0xC2);
    let (ok, out, err) = pussa(&["egtb", "verify", "--dir", d]);
    assert!(ok && out.ends_with("all tables verified\n"), "{out}{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A header whose counts of flagged or undetermined entries contradict the payload is refused
/// like any damaged header, by every command that opens the file.
#[test]
fn egtb_header_counts_are_checked_against_the_payload() {
    let dir = small_tables("hdr-counts", 3);
    let d = dir.to_str().unwrap();
    let path = pussa_egtb::format::table_path(&dir, Game::RajaPasu, 3);
    let payload = std::fs::read(&path).unwrap()[64..].to_vec();
    let flagged = payload.iter().filter(|&&b| b >= 0x80).count() as u64;
    assert!(flagged > 0);
    let pos = "1,0,0,1,0,0,0/1,0,0,0,0,0,0 95 0 S 1 raja-pasu";
    for (history, undetermined, want) in [
        (
            0,
            0,
            format!("the header counts 0 positions with the history flag, the payload {flagged}"),
        ),
        (
            flagged,
            7,
            "the header counts 7 positions not determined, the payload 0".to_string(),
        ),
    ] {
        pussa_egtb::format::write_table(&dir, Game::RajaPasu, 3, &payload, history, undetermined)
            .unwrap();
        for args in [
            vec!["egtb", "verify", "--dir", d],
            vec!["egtb", "probe", "--dir", d, "--position", pos],
        ] {
            let (ok, _, err) = pussa(&args);
            let e = one_line_error(ok, &err);
            assert!(
                e.contains("3.pegtb: ") && e.contains(&want),
                "{args:?}: {e}"
            );
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A build whose history search runs past `--budget` warns that it leaves positions
/// undetermined; `verify` counts them apart (not as disagreements) and says how to fill them;
/// a later build builds those layers again.
#[test]
fn egtb_undetermined_positions_are_reported_and_built_again() {
    let dir = empty_dir("budget");
    std::fs::remove_dir_all(&dir).unwrap();
    let d = dir.to_str().unwrap();
    let build = |extra: &[&str]| {
        let mut args = vec![
            "egtb",
            "build",
            "--game",
            "walak-pussa",
            "--max-seeds",
            "5",
            "--dir",
            d,
            "--quiet",
        ];
        args.extend_from_slice(extra);
        pussa(&args)
    };
    let (ok, out, err) = build(&["--budget", "1"]);
    assert!(ok, "{err}");
    assert!(
        err.contains("warning: ")
            && err.contains("not determined: the history search ran past --budget 1"),
        "{err}"
    );
    let (ok, out2, err2) = pussa(&["egtb", "verify", "--dir", d, "--samples", "100000"]);
    assert!(ok, "{out2}{err2}");
    assert!(
        out2.contains("not determined (built with a small --budget)")
            && out2.contains(" 0 mismatches")
            && !out2.contains(" 1 mismatch")
            && out2.contains("verified, but ")
            && out2.contains("`pussa egtb build` builds those layers again"),
        "{out}\n{out2}"
    );
    let (ok, out3, err3) = build(&[]);
    assert!(ok, "{err3}");
    assert!(out3.contains("building it again"), "{out3}");
    let (ok, out4, err4) = pussa(&["egtb", "verify", "--dir", d, "--samples", "100000"]);
    assert!(
        ok && out4.ends_with("all tables verified\n"),
        "{out4}{err4}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `egtb probe` with tables built with a small `--budget`: a move is `best` (JSON) or marked
/// `best` (text) only when the position's value and the move's are both determined and equal;
/// in a position whose value is not determined no move is best (`best` null), even the only
/// move whose value is known (QA pass 21, interop2 #1: it was marked best, and could be the
/// worst move).
#[test]
fn egtb_probe_marks_no_move_best_when_a_value_is_not_determined() {
    const K: usize = 6;
    let dir = empty_dir("probe-budget");
    let d = dir.to_str().unwrap();
    let game = Game::WalakPussa;
    let tables = build_dir(
        &dir,
        game,
        K,
        BuildOptions { search_budget: 1 },
        false,
        &|_| {},
        &mut |_| {},
    )
    .expect("build the tables");
    let total = Position::start(game).seeds_on_board() as usize;
    // (position not determined with a move determined, position determined) probed.
    let (mut unknown_with_known_move, mut known) = (0, 0);
    for k in (3..=K).rev() {
        let rest = total - k;
        for r in 0..pussa_egtb::index::layer_size(k) {
            if unknown_with_known_move >= 6 && known >= 6 {
                break;
            }
            let board = pussa_egtb::index::unrank(k, r);
            let pos = Position::from_parts_unchecked(
                game,
                board,
                0,
                [(rest / 2) as u8, (rest - rest / 2) as u8],
                Side::South,
            );
            let Some(moves) = tables.move_values(&pos) else {
                continue;
            };
            if moves.is_empty() {
                continue;
            }
            let entry = tables.entry(&pos).unwrap();
            let some_known = moves.iter().any(|m| m.value.is_some());
            let case = match entry {
                pussa_egtb::Entry::Unknown if some_known && unknown_with_known_move < 6 => {
                    &mut unknown_with_known_move
                }
                pussa_egtb::Entry::Value { .. } if known < 6 => &mut known,
                _ => continue,
            };
            *case += 1;
            let fen = Setup::from_position(&pos, 1).to_string();
            let (ok, out, err) =
                pussa(&["egtb", "probe", "--position", &fen, "--dir", d, "--json"]);
            assert!(ok, "{fen}: {err}");
            let v: serde_json::Value = serde_json::from_str(&out).expect("one JSON object");
            let value = v["value"].as_i64();
            let mut best = Vec::new();
            for m in v["moves"].as_array().unwrap() {
                let want = match (value, m["score"].as_i64()) {
                    (Some(value), Some(score)) => serde_json::json!(score == value),
                    _ => serde_json::Value::Null,
                };
                assert_eq!(m["best"], want, "{fen}: {v}");
                if m["best"] == true {
                    best.push(m["move"].as_str().unwrap().to_string());
                }
            }
            match entry {
                pussa_egtb::Entry::Unknown => assert!(value.is_none() && best.is_empty(), "{v}"),
                pussa_egtb::Entry::Value { .. } => {
                    let top = v["moves"][0]["score"].as_i64();
                    if top.is_some() {
                        assert_eq!(top, value, "{fen}: best first: {v}");
                    }
                }
            }
            // The text marks the same moves.
            let (ok, out, err) = pussa(&["egtb", "probe", "--position", &fen, "--dir", d]);
            assert!(ok, "{fen}: {err}");
            let marked: Vec<String> = out
                .lines()
                .filter(|l| l.ends_with("  best"))
                .map(|l| l.split_whitespace().next().unwrap().to_string())
                .collect();
            assert_eq!(marked, best, "{fen}:\n{out}");
            if value.is_none() {
                assert!(
                    out.contains("value not determined") && out.contains("no move is marked best"),
                    "{out}"
                );
            }
        }
    }
    assert!(
        unknown_with_known_move >= 1 && known >= 1,
        "cases: {unknown_with_known_move} not determined with a move determined, {known} determined"
    );
}

/// `verify --samples 0` checks the files only and says so once, not a line per layer.
#[test]
fn egtb_verify_samples_zero_says_nothing_was_re_computed() {
    let dir = small_tables("samples0", 3);
    let (ok, out, err) = pussa(&[
        "egtb",
        "verify",
        "--dir",
        dir.to_str().unwrap(),
        "--samples",
        "0",
    ]);
    assert!(ok, "{err}");
    assert_eq!(
        out,
        "raja-pasu: files 0..=3 present, headers and checksums good\n\
         all tables: files checked; no positions re-computed (--samples 0)\n"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// A symbolic link to nothing in place of a table file, and a file in place of the game's
/// directory (or of --dir), are named as such by every command.
#[cfg(unix)]
#[test]
fn egtb_a_dangling_link_and_a_file_for_a_directory_are_named() {
    let dir = small_tables("kinds", 3);
    let d = dir.to_str().unwrap();
    let three = pussa_egtb::format::table_path(&dir, Game::RajaPasu, 3);
    std::fs::remove_file(&three).unwrap();
    std::os::unix::fs::symlink("/nonexistent/x", &three).unwrap();
    let pos = "1,0,0,1,0,0,0/1,0,0,0,0,0,0 95 0 S 1 raja-pasu";
    let runs: [Vec<&str>; 3] = [
        vec!["egtb", "probe", "--dir", d, "--position", pos],
        vec!["egtb", "verify", "--dir", d],
        vec!["analyze", "--egtb", d, "--position", pos, "--depth", "1"],
    ];
    for args in &runs {
        let (ok, _, err) = pussa(args);
        let e = one_line_error(ok, &err);
        assert!(
            e.contains("3.pegtb is a symbolic link to /nonexistent/x, which does not exist"),
            "{args:?}: {e}"
        );
    }
    let game_dir = dir.join("raja-pasu");
    std::fs::remove_dir_all(&game_dir).unwrap();
    std::fs::write(&game_dir, "abc").unwrap();
    let file_dir = game_dir.to_str().unwrap();
    for args in runs
        .iter()
        .chain([&vec!["egtb", "probe", "--dir", file_dir, "--position", pos]])
    {
        let (ok, _, err) = pussa(args);
        let e = one_line_error(ok, &err);
        assert!(
            e.ends_with(&format!("{file_dir} is a file, not a directory of tables")),
            "{args:?}: {e}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// `--max-seeds` of `solve` is a cap: above the tables there it uses them all and says so.
#[test]
fn egtb_solve_max_seeds_above_the_tables_uses_them_all() {
    let dir = small_tables("cap", 4);
    let (ok, out, err) = pussa(&[
        "egtb",
        "solve",
        "--dir",
        dir.to_str().unwrap(),
        "--game",
        "raja-pasu",
        "--seeds-per-hole",
        "1",
        "--max-seeds",
        "30",
    ]);
    assert!(ok, "{err}");
    assert!(
        err.contains("--max-seeds 30: the tables go up to 4 seeds; using them up to 4")
            && out.contains("tables 0..=4"),
        "{out}{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// A build refused at once prints its error only: no table header before it.
#[test]
fn egtb_a_refused_build_prints_one_line() {
    let dir = empty_dir("refused-build");
    let file = dir.join("file");
    std::fs::write(&file, "x").unwrap();
    let (ok, out, err) = pussa(&[
        "egtb",
        "build",
        "--game",
        "raja-pasu",
        "--max-seeds",
        "3",
        "--dir",
        file.to_str().unwrap(),
    ]);
    let e = one_line_error(ok, &err);
    assert!(e.contains("is a file, not a directory"), "{e}");
    assert_eq!(out, "");
    std::fs::remove_dir_all(&dir).ok();
}

/// `analyze --egtb` uses the closed-hole tables in the same directory (the report's round-2
/// position, solved exactly by them), and refuses them when they are damaged.
#[test]
fn analyze_uses_the_closed_hole_tables_and_refuses_damaged_ones() {
    let dir = small_tables("closed", 5);
    let d = dir.to_str().unwrap();
    let (ok, _, err) = pussa(&[
        "egtb",
        "build",
        "--game",
        "raja-pasu",
        "--max-seeds",
        "5",
        "--dir",
        d,
        "--closed",
        "3-0",
    ]);
    assert!(ok, "{err}");
    let pos = "x,x,x,1,0,0,2/0,1,0,0,0,0,1 45 48 S 2 raja-pasu";
    let (ok, out, err) = pussa(&["analyze", "--egtb", d, "--position", pos, "--depth", "1"]);
    assert!(ok, "{err}");
    assert!(out.contains("position value -1 exact"), "{out}");
    let (ok, out, err) = pussa(&["analyze", "--position", pos, "--depth", "1"]);
    assert!(ok && !out.contains("position value -1 exact"), "{out}{err}");
    let four = dir.join("raja-pasu").join("c3-0").join("4.pegtb");
    let mut bytes = std::fs::read(&four).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&four, bytes).unwrap();
    let (ok, _, err) = pussa(&["analyze", "--egtb", d, "--position", pos, "--depth", "1"]);
    let e = one_line_error(ok, &err);
    assert!(e.contains("c3-0/4.pegtb: payload checksum mismatch"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

/// The "build them with" hint of a missing table is a whole command (game, seeds, the
/// directory given): pasted as it is, it builds the tables, and the command that asked for them
/// then runs. A closed pattern's hint names the pattern as `--closed` takes it.
#[test]
fn a_missing_tables_hint_is_a_command_that_builds_them() {
    let dir = empty_dir("hint-runs");
    let d = dir.to_str().unwrap();
    let pos = "0,1,0,2,0,0,0/1,0,0,0,1,0,0 93 0 S 1 raja-pasu";
    let (ok, _, err) = probe_raja(d, pos);
    let e = one_line_error(ok, &err);
    let hint = e
        .split("build them with `")
        .nth(1)
        .and_then(|rest| rest.split('`').next())
        .unwrap_or_else(|| panic!("no hint: {e}"));
    // Up to the position's 5 seeds: what it needs, no more.
    assert_eq!(
        hint,
        format!("pussa egtb build --game raja-pasu --max-seeds 5 --dir {d}")
    );
    let words: Vec<&str> = hint.split_whitespace().collect();
    assert_eq!(words[0], "pussa");
    let (ok, _, err) = pussa(&words[1..]);
    assert!(ok, "the hint ran: {err}");
    let (ok, out, err) = probe_raja(d, pos);
    assert!(ok && out.contains("exact"), "{out}{err}");
    // A closed pattern: its tables are missing under the same directory.
    let (ok, _, err) = pussa(&[
        "egtb",
        "probe",
        "--game",
        "raja-pasu",
        "--dir",
        d,
        "--position",
        "x,x,x,1,0,0,2/0,1,0,0,0,0,1 45 48 S 2 raja-pasu",
    ]);
    let e = one_line_error(ok, &err);
    assert!(
        e.contains(&format!(
            "pussa egtb build --game raja-pasu --max-seeds 5 --dir {d} --closed 3-0`"
        )),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Closed-hole tables missing for `egtb probe` and `egtb solve` (text and `--json`): the one-line
/// error gives one build command, the one that fixes the case at hand (up to the position's
/// seeds, for its pattern, in the directory looked in); run as it is, the command that failed
/// then answers. It used to give two commands in one message, `--max-seeds 2` and `--max-seeds
/// 14`, and `solve` the 14 one (QA pass 21, interop2 #5). Open tables missing read the same.
#[test]
fn a_missing_tables_error_gives_one_command_that_fixes_the_case() {
    let dir = small_tables("one-hint", 2);
    let d = dir.to_str().unwrap();
    let cases = [
        // Closed holes (1, 0), 2 seeds: only the open board's tables are there.
        (
            "x,0,0,1,0,0,0/0,0,1,0,0,0,0 5+41 2+48 S 3 raja-pasu",
            format!("pussa egtb build --game raja-pasu --max-seeds 2 --dir {d} --closed 1-0"),
        ),
        // The open board, 3 seeds: the tables stop at 2.
        (
            "0,1,0,0,0,0,0/1,0,0,0,0,0,1 95 0 S 1 raja-pasu",
            format!("pussa egtb build --game raja-pasu --max-seeds 3 --dir {d}"),
        ),
    ];
    for (pos, want) in &cases {
        let base = ["egtb", "probe", "--dir", d, "--position", pos];
        let commands: Vec<Vec<&str>> = if pos.starts_with('x') {
            let mut solve = base.to_vec();
            solve[1] = "solve";
            vec![
                base.to_vec(),
                [&base[..], &["--json"]].concat(),
                solve.clone(),
                [&solve[..], &["--json"]].concat(),
            ]
        } else {
            vec![base.to_vec(), [&base[..], &["--json"]].concat()]
        };
        for args in &commands {
            let (ok, _, err) = pussa(args);
            let e = one_line_error(ok, &err);
            assert_eq!(e.matches("pussa egtb build").count(), 1, "{args:?}: {e}");
            assert!(
                e.ends_with(&format!("(build them with `{want}`)")),
                "{args:?}: {e}"
            );
        }
        let words: Vec<&str> = want.split_whitespace().collect();
        let (ok, _, err) = pussa(&[&words[1..], &["--quiet"]].concat());
        assert!(ok, "the command ran: {err}");
        for args in &commands {
            let (ok, out, err) = pussa(args);
            assert!(ok, "{args:?} after `{want}`: {err}");
            assert!(out.contains("value"), "{args:?}: {out}");
        }
    }
    // `--closed-dir` names where closed tables are looked for: the command builds them there.
    let closed = empty_dir("one-hint-closed");
    let c = closed.to_str().unwrap();
    let (ok, _, err) = pussa(&[
        "egtb",
        "probe",
        "--dir",
        d,
        "--closed-dir",
        c,
        "--position",
        "x,x,0,1,0,0,0/0,0,1,0,0,0,0 5+41 2+48 S 3 raja-pasu",
    ]);
    let e = one_line_error(ok, &err);
    assert_eq!(e.matches("pussa egtb build").count(), 1, "{e}");
    assert!(
        e.ends_with(&format!(
            "(build them with `pussa egtb build --game raja-pasu --max-seeds 2 --dir {c} --closed 2-0`)"
        )) && !e.contains("--closed-dir DIR"),
        "{e}"
    );
}

/// `egtb build` under a file size limit (`ulimit -f`, systemd `LimitFSIZE=`): the write past it
/// fails (the build ignores SIGXFSZ, which would end it without a word), and the error names
/// the limit in one line and leaves no `.tmp` file behind.
#[cfg(unix)]
#[test]
fn a_build_past_the_file_size_limit_says_so_and_leaves_no_temporary_file() {
    let dir = Scratch::new("fsize");
    // 100 blocks of 512 bytes: the table of 8 seeds does not fit.
    let out = Command::new("sh")
        .arg("-c")
        .arg("ulimit -f 100; exec \"$0\" egtb build --game raja-pasu --max-seeds 9 --quiet --dir \"$1\"")
        .arg(env!("CARGO_BIN_EXE_pussa"))
        .arg(&*dir)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    // The first table past the limit (the one of 7 or 8 seeds) names the limit.
    let games = dir.join("raja-pasu");
    let line = err.trim_end();
    let seeds: usize = line
        .strip_prefix(&format!("error: {}/", games.display()))
        .and_then(|rest| rest.split_once(".pegtb.tmp: "))
        .and_then(|(n, _)| n.parse().ok())
        .unwrap_or_else(|| panic!("{line}"));
    let tmp = games.join(format!("{seeds}.pegtb.tmp"));
    assert_eq!(
        line,
        format!(
            "error: {}: file too large (the process's file size limit: ulimit -f, systemd \
             LimitFSIZE=)",
            tmp.display()
        )
    );
    assert!(!tmp.exists(), "the partial file is removed");
    assert!(games.join(format!("{}.pegtb", seeds - 1)).exists());
}

/// The library's error for a damaged file a build would keep describes the damage only
/// (`pussa_egtb::Remedy::DeleteOrRebuild` says what fixes it); `pussa egtb build` adds the
/// advice in its own flags.
#[test]
fn egtb_build_over_a_damaged_file_advises_rebuild() {
    let dir = small_tables("damaged-rebuild", 2);
    let d = dir.to_str().unwrap();
    let two = format!("{d}/raja-pasu/2.pegtb");
    let mut bytes = std::fs::read(&two).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x01;
    std::fs::write(&two, &bytes).unwrap();
    let build = |extra: &[&str]| {
        let mut args = vec![
            "egtb",
            "build",
            "--game",
            "raja-pasu",
            "--max-seeds",
            "2",
            "--dir",
            d,
            "--quiet",
        ];
        args.extend_from_slice(extra);
        pussa(&args)
    };
    let (ok, _, err) = build(&[]);
    assert_eq!(
        one_line_error(ok, &err),
        format!(
            "error: {two}: payload checksum mismatch: the table is damaged (delete it or build \
             with --rebuild)"
        )
    );
    let (ok, _, err) = build(&["--rebuild"]);
    assert!(ok, "{err}");
}

/// `pussa egtb build` and `verify` with the default tables directory where it cannot be created
/// or does not exist name the full path, that it is the default (relative to the current
/// directory, or under PUSSA_DATA) and how to choose another, as `pussa serve` does.
#[test]
fn egtb_errors_about_the_default_directory_say_where_and_how_to_choose() {
    let run = |cwd: &Path, data: Option<&str>, args: &[&str]| -> (bool, String) {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_pussa"));
        cmd.args(args).current_dir(cwd).stdin(Stdio::null());
        match data {
            Some(d) => cmd.env("PUSSA_DATA", d),
            None => cmd.env_remove("PUSSA_DATA"),
        };
        let out = cmd.output().expect("run pussa");
        let err = String::from_utf8_lossy(&out.stderr).trim().to_string();
        assert_eq!(err.lines().count(), 1, "one line: {err}");
        (out.status.success(), err)
    };
    let build = ["egtb", "build", "--game", "walak-pussa", "--max-seeds", "2"];
    // /proc: not even root can create data/ there.
    let (ok, err) = run(Path::new("/proc"), None, &build);
    assert!(!ok);
    assert!(
        err.starts_with(
            "error: cannot create the directory /proc/data/egtb/walak-pussa for the tables \
             (the default data/egtb, relative to the current directory /proc): "
        ) && err.ends_with("; choose one with --dir DIR or PUSSA_DATA (its egtb directory)"),
        "{err}"
    );
    let (ok, err) = run(Path::new("/"), Some("/proc/pussa-data"), &build);
    assert!(!ok);
    assert!(
        err.starts_with(
            "error: cannot create the directory /proc/pussa-data/egtb/walak-pussa for the \
             tables (the default: egtb in PUSSA_DATA=/proc/pussa-data): "
        ),
        "{err}"
    );
    let scratch = empty_dir("verify-default");
    let empty: &Path = &scratch;
    let (ok, err) = run(empty, None, &["egtb", "verify"]);
    assert!(!ok);
    assert_eq!(
        err,
        format!(
            "error: the directory of tables {}/data/egtb does not exist (the default data/egtb, \
             relative to the current directory {}); build tables there with `pussa egtb build`, \
             or choose one with --dir DIR or PUSSA_DATA (its egtb directory)",
            empty.display(),
            empty.display()
        )
    );
    let missing = empty.join("nowhere");
    let (ok, err) = run(
        Path::new("/"),
        None,
        &["egtb", "verify", "--dir", missing.to_str().unwrap()],
    );
    assert!(!ok);
    assert!(
        err.starts_with(&format!(
            "error: the directory of tables {} does not exist (given with --dir)",
            missing.display()
        )),
        "{err}"
    );
}

/// `EGTBPath`: a position given alone starts its round's history, so a root the tables cover is
/// valued at once (`go depth 1`), exactly, with the tables' value for a history that starts
/// there, also where a non-capturing move can return to it (QA pass 21, interop #3).
#[test]
fn engine_protocol_values_a_root_the_tables_cover_at_depth_one() {
    let dir = tables_dir();
    let tables = Tables::open(dir, Game::RajaPasu, None).unwrap();
    let mut e = Engine::start();
    let set = e.ask(&format!("setoption name EGTBPath value {}", dir.display()));
    assert!(set.iter().all(|l| !l.contains("error")), "{set:?}");
    let mut fens = vec!["1,0,0,0,0,0,0/1,0,0,0,0,0,0 47 49 S 1 raja-pasu N".to_string()];
    let mut dependent = 0;
    for pos in positions(400, 21) {
        if tables.probe(&pos).is_none() && tables.probe_fresh(&pos).is_some() && dependent < 12 {
            dependent += 1;
            fens.push(Setup::from_position(&pos, 1).to_string());
        }
    }
    assert!(dependent > 5, "{dependent}");
    for fen in &fens {
        let setup: Setup = fen.parse().unwrap();
        let pos = setup.position().unwrap();
        let me = pos.to_move().index();
        let so_far = i32::from(setup.taken[me]) - i32::from(setup.taken[1 - me]);
        let want = so_far + tables.probe_fresh(&pos).unwrap();
        e.send("newgame raja-pasu single");
        e.send(&format!("position fen {fen}"));
        let (lines, _) = e.bestmove("go depth 1");
        let info = lines
            .iter()
            .rfind(|l| l.starts_with("info depth"))
            .unwrap_or_else(|| panic!("{fen}: {lines:?}"));
        assert!(
            info.starts_with(&format!("info depth 1 score seeds {want} exact yes")),
            "{fen}: want {want}: {lines:?}"
        );
    }
    e.quit();
}

/// `egtb probe --json`: the tables' value as the round's final margin (`value`, as `analyze
/// --json` names it) and as the seeds still to take (`future`), the history it holds for, and
/// every move's `score`, `future`, `gain` and `best`, as `Tables` gives them; `analyze --egtb`
/// agrees (QA pass 21, interop #7).
#[test]
fn egtb_probe_json_gives_the_tables_values_and_history_condition() {
    let dir = tables_dir();
    let d = dir.to_str().unwrap();
    let tables = Tables::open(dir, Game::RajaPasu, None).unwrap();
    let mut kinds = std::collections::BTreeSet::new();
    for pos in positions(30, 7) {
        let fen = Setup::from_position(&pos, 1).to_string();
        let (ok, out, err) = pussa(&["egtb", "probe", "--position", &fen, "--dir", d, "--json"]);
        assert!(ok, "{fen}: {err}");
        let v: serde_json::Value = serde_json::from_str(&out).expect("one JSON object");
        assert_eq!(out.lines().count(), 1);
        assert_eq!(v["game"], "raja-pasu");
        assert_eq!(v["position"], fen);
        let me = pos.to_move().index();
        let stores = pos.stores();
        assert_eq!(v["taken"], serde_json::json!(stores));
        let so_far = i32::from(stores[me]) - i32::from(stores[1 - me]);
        let future = tables.probe_fresh(&pos).unwrap();
        assert_eq!(v["future"], future, "{fen}: {v}");
        assert_eq!(v["value"], so_far + future, "{fen}: {v}");
        let history = if tables.probe(&pos).is_some() {
            "any"
        } else {
            "starts_here"
        };
        assert_eq!(v["history"], history, "{fen}: {v}");
        kinds.insert(history);
        let moves = v["moves"].as_array().unwrap();
        let want = tables.move_values(&pos).unwrap();
        assert_eq!(moves.len(), want.len(), "{fen}: {v}");
        for m in &want {
            let got = moves
                .iter()
                .find(|g| g["move"] == m.mv.letter().to_string())
                .unwrap();
            let value = m.value.unwrap();
            assert_eq!(got["future"], value, "{fen}: {v}");
            assert_eq!(got["score"], so_far + value, "{fen}: {v}");
            assert_eq!(got["gain"], m.gain, "{fen}: {v}");
            assert_eq!(got["best"], value == future, "{fen}: {v}");
        }
        // Best first.
        let scores: Vec<i64> = moves.iter().map(|m| m["score"].as_i64().unwrap()).collect();
        assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{fen}: {v}");
        // analyze --egtb gives the same value, exact, at depth 1.
        let (ok, out, err) = pussa(&[
            "analyze",
            "--position",
            &fen,
            "--egtb",
            d,
            "--depth",
            "1",
            "--json",
        ]);
        assert!(ok, "{err}");
        let a: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(a["value"], v["value"], "{fen}: {a}");
        assert_eq!(a["value_exact"], true, "{fen}: {a}");
    }
    assert_eq!(kinds.len(), 2, "both history conditions seen: {kinds:?}");
    // Not covered, and a round already over: one-line errors, with --json too.
    let (ok, _, err) = pussa(&[
        "egtb",
        "probe",
        "--position",
        "0,0,0,0,0,0,0/0,0,0,0,0,0,0 57 41 S 1 raja-pasu",
        "--dir",
        d,
        "--json",
    ]);
    assert!(!ok && err.starts_with("error: the round is over"), "{err}");
}

/// `egtb solve --json`: the solver's value as `probe --json` names it (`value` the round's
/// final margin, `future` the seeds still to take, for a history that starts at the position),
/// its line and nodes; the text says the same value (QA pass 21, interop #7).
#[test]
fn egtb_solve_json_gives_the_value_as_probe_json_names_it() {
    let dir = tables_dir();
    let d = dir.to_str().unwrap();
    let tables = Tables::open(dir, Game::RajaPasu, None).unwrap();
    for fen in [
        // Within the tables: the probe's value for a history that starts here.
        "1,0,0,0,0,0,0/1,0,0,0,0,0,0 47 49 S 1 raja-pasu N",
        // Above them (11 seeds): searched down to them.
        "1,2,0,1,0,3,0/0,1,0,2,0,0,1 40 47 S 1 raja-pasu",
    ] {
        let (ok, out, err) = pussa(&["egtb", "solve", "--position", fen, "--dir", d, "--json"]);
        assert!(ok, "{fen}: {err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["position"], fen);
        assert_eq!(v["history"], "starts_here");
        assert_eq!(v["tables_max_seeds"], MAX);
        let setup: Setup = fen.parse().unwrap();
        let pos = setup.position().unwrap();
        let me = pos.to_move().index();
        let so_far = i32::from(setup.taken[me]) - i32::from(setup.taken[1 - me]);
        let future = v["future"].as_i64().unwrap() as i32;
        assert_eq!(v["value"], so_far + future, "{v}");
        if let Some(want) = tables.probe_fresh(&pos) {
            assert_eq!(future, want, "{v}");
        }
        let (ok, text, _) = pussa(&["egtb", "solve", "--position", fen, "--dir", d]);
        assert!(ok);
        assert!(
            text.starts_with(&format!("the position: value {future:+} for ")),
            "{text}"
        );
        let pv: Vec<String> = v["pv"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap().to_string())
            .collect();
        assert!(text.contains(&pv.join(" ")), "{text}: {v}");
        assert!(v["nodes"].as_u64().unwrap() > 0);
    }
}

/// `egtb solve --position` labels its value as `egtb probe` does (the seeds still to be taken,
/// side to move minus opponent) and adds the round's final margin with the seeds taken so far
/// (it printed a bare `value -1`, which read as the final margin its start values are, while
/// the round's final margin was -92): both lines agree with `probe`'s for a position in the
/// tables.
#[test]
fn egtb_solve_of_a_position_labels_its_value_and_gives_the_final_margin() {
    let dir = tables_dir().to_str().unwrap();
    let pos = "1,0,0,1,0,3,0/2,0,0,0,0,0,0 91 0 N 1 raja-pasu";
    let (ok, probe, err) = probe_raja(dir, pos);
    assert!(ok, "{err}");
    let (ok, solve, err) = pussa(&[
        "egtb",
        "solve",
        "--game",
        "raja-pasu",
        "--dir",
        dir,
        "--position",
        pos,
    ]);
    assert!(ok, "{err}");
    // The value: the seeds still to be taken, labelled.
    let value = |out: &str| -> i32 {
        let at = out.find("value ").unwrap() + "value ".len();
        out[at..]
            .split_whitespace()
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    let v = value(&probe);
    assert_eq!(value(&solve), v, "{probe}\n{solve}");
    assert!(
        solve.starts_with(&format!(
            "the position: value {v:+} for North (to move; future seeds, North minus opponent), "
        )),
        "{solve}"
    );
    // The round's final margin: North took nothing, South 91.
    let margin = format!(
        "final margin of the round, seeds taken in it included: {:+} for North\n",
        v - 91
    );
    assert!(probe.contains(&margin), "{margin}\n{probe}");
    assert!(solve.contains(&margin), "{margin}\n{solve}");
    // A start's value is its final margin: no such line.
    let (ok, start, err) = pussa(&[
        "egtb",
        "solve",
        "--game",
        "raja-pasu",
        "--seeds-per-hole",
        "1",
        "--dir",
        dir,
    ]);
    assert!(ok, "{err}");
    assert!(
        start.contains("(the first player)") && !start.contains("final margin"),
        "{start}"
    );
}

/// `egtb match --json` (QA pass 21, interop #7): one object on one line that says what the text
/// of the same run says, field by field (the rounds with their closed holes and seeds kept in
/// store read from the text's position strings, the result, the states by the margins and the
/// exact values); a missing table stays a one-line error on stderr, nothing on stdout.
#[test]
fn egtb_match_json_says_what_the_text_says() {
    let dir = small_tables("match-json", 6);
    let d = dir.to_str().unwrap();
    let (ok, _, err) = pussa(&[
        "egtb",
        "match",
        "--game",
        "raja-pasu",
        "--dir",
        d,
        "--seeds-per-hole",
        "1",
        "--json",
    ]);
    let e = one_line_error(ok, &err);
    assert!(e.contains("--closed"), "{e}");
    let (ok, _, err) = pussa(&[
        "egtb",
        "build",
        "--game",
        "raja-pasu",
        "--max-seeds",
        "6",
        "--closed",
        "all",
        "--dir",
        d,
        "--quiet",
    ]);
    assert!(ok, "{err}");
    let word = |v: &serde_json::Value| match v.as_str().unwrap() {
        "S" => "South",
        "N" => "North",
        other => panic!("not a side: {other}"),
    };
    let verdict = |v: &serde_json::Value| match v["verdict"].as_str().unwrap() {
        "win" => {
            let n = v["within"].as_u64().unwrap();
            (
                format!(
                    "{} wins within {n} round{}",
                    word(&v["winner"]),
                    if n == 1 { "" } else { "s" }
                ),
                format!(
                    "{} wins (within {n} round{})",
                    word(&v["winner"]),
                    if n == 1 { "" } else { "s" }
                ),
            )
        }
        "endless" => (
            "endless (neither side can force a win)".to_string(),
            "endless (neither can force a win)".to_string(),
        ),
        "unresolved" => (
            "not decided by the round margins".to_string(),
            "unresolved by the margins".to_string(),
        ),
        other => panic!("verdict {other}"),
    };
    let mut kinds = std::collections::BTreeSet::new();
    for first in ["S", "N"] {
        let base = [
            "egtb",
            "match",
            "--game",
            "raja-pasu",
            "--dir",
            d,
            "--seeds-per-hole",
            "1",
            "--first",
            first,
            "--states",
            "--exhaustive",
        ];
        let (ok, text, err) = pussa(&base);
        assert!(ok, "{err}");
        let (ok, out, err) = pussa(&[&base[..], &["--json"]].concat());
        assert!(ok, "{err}");
        assert_eq!(out.lines().count(), 1, "{out}");
        let v: serde_json::Value = serde_json::from_str(&out).expect("one JSON object");
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        // In the documented order (serde_json's map keeps it with `preserve_order` only, so
        // read it from the text).
        let at = |k: &str| out.find(&format!("\"{k}\":")).unwrap();
        let order = [
            "game",
            "first",
            "seeds_per_hole",
            "tables_max_seeds",
            "rounds",
            "result",
            "states",
            "exhaustive",
        ];
        assert_eq!(keys.len(), order.len(), "{keys:?}");
        assert!(order.windows(2).all(|w| at(w[0]) < at(w[1])), "{out}");
        assert_eq!(v["game"], "raja-pasu");
        assert_eq!(v["first"], first);
        assert_eq!(v["seeds_per_hole"], 1);
        assert_eq!(v["tables_max_seeds"], 6);
        assert!(
            text.starts_with("raja-pasu: tables 0..=6 seeds (open board and closed patterns)"),
            "{text}"
        );
        let rounds = v["rounds"].as_array().unwrap();
        for r in rounds {
            let pos = r["position"].as_str().unwrap();
            let starter = word(&r["starter"]);
            let reason = match r["reason"]["kind"].as_str().unwrap() {
                "no_legal_move" => format!("{} has no legal move", word(&r["reason"]["stuck"])),
                "repetition" => "the position repeated".into(),
                "one_row" => "every seed is in one row".into(),
                other => panic!("{other}"),
            };
            let next = if r["next_starter"].is_null() {
                String::new()
            } else {
                format!(", {} starts the next round", word(&r["next_starter"]))
            };
            let nodes = r["nodes"].as_u64().unwrap();
            let line = format!(
                "round {}: {pos} (filled S {} / N {}), {starter} starts: margin {:+} for {starter}, taken S {} / N {}, ended as {reason}; holdings S {} / N {}{next}; {nodes} node{}, ",
                r["round"],
                r["filled"][0],
                r["filled"][1],
                r["value"].as_i64().unwrap(),
                r["taken"][0],
                r["taken"][1],
                r["holdings"][0],
                r["holdings"][1],
                if nodes == 1 { "" } else { "s" },
            );
            assert!(text.contains(&line), "{line}\nnot in\n{text}");
            let pv: Vec<&str> = r["pv"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m.as_str().unwrap())
                .collect();
            let pv_line = format!(
                "  principal variation ({} move{}): {}\n",
                pv.len(),
                if pv.len() == 1 { "" } else { "s" },
                pv.join(" ")
            );
            // The round's line of moves is the line after the round's.
            let after = &text[text.find(&line).unwrap()..];
            let after = &after[after.find('\n').unwrap() + 1..];
            assert!(after.starts_with(&pv_line), "{pv_line}\n{text}");
            // The closed holes and the seeds kept in store, as the position string has them.
            let fields: Vec<&str> = pos.split(' ').collect();
            let holes: Vec<&str> = fields[0].split(['/', ',']).collect();
            let closed: Vec<usize> = (0..14).filter(|&i| holes[i] == "x").collect();
            assert_eq!(r["closed"], serde_json::json!(closed), "{r}");
            assert_eq!(r["remainder"][0].to_string(), fields[1], "{r}");
            assert_eq!(r["remainder"][1].to_string(), fields[2], "{r}");
            assert_eq!(r["starter"], fields[3], "{r}");
        }
        assert!(rounds
            .iter()
            .any(|r| !r["closed"].as_array().unwrap().is_empty()));
        let result = &v["result"];
        assert_eq!(result["kind"], "won", "{result}");
        assert_eq!(result["rounds"], rounds.len());
        assert!(rounds.last().unwrap()["next_starter"].is_null());
        assert!(
            text.contains(&format!(
                "{} wins the match in {} rounds",
                word(&result["winner"]),
                rounds.len()
            )),
            "{text}"
        );
        // The states by the margins.
        let st = &v["states"];
        for s in st["round_starts"].as_array().unwrap() {
            let n = s["nodes"].as_u64().unwrap();
            let line = format!(
                "  round start {}: margin {:+} for {} ({n} node{})\n",
                s["position"].as_str().unwrap(),
                s["value"].as_i64().unwrap(),
                word(&s["to_move"]),
                if n == 1 { "" } else { "s" }
            );
            assert!(text.contains(&line), "{line}");
        }
        assert!(text.contains(&format!(
            "by backward induction on the round margins: {} round starts solved, {} nodes, ",
            st["rounds_solved"], st["nodes"]
        )));
        let values = st["values"].as_array().unwrap();
        for s in values {
            let line = format!(
                "  S holds {:>3}, {} starts ({} seeds on the board): round margin {:+} for South; {}\n",
                s["south"].as_u64().unwrap(),
                word(&s["starter"]),
                s["board"],
                s["margin"].as_i64().unwrap(),
                verdict(s).1
            );
            assert!(text.contains(&line), "{line}\n{text}");
            kinds.insert(s["verdict"].as_str().unwrap().to_string());
        }
        assert!(text.contains(&format!(
            "{} states: South wins {}, North wins {}, endless {}, unresolved {}\n",
            values.len(),
            st["south_wins"],
            st["north_wins"],
            st["endless"],
            st["unresolved"]
        )));
        assert!(text.contains(&format!(
            "The match from the start ({} first): {}\n",
            word(&v["first"]),
            verdict(&st["start"]).0
        )));
        // The exact values and the comparison.
        let ex = &v["exhaustive"];
        assert_eq!(ex["with_tables"], false);
        assert!(text.contains("Exact match values (every round searched to its end), "));
        let exact = ex["values"].as_array().unwrap();
        assert_eq!(exact.len(), values.len());
        for s in exact {
            let note = match s["margins"].as_str() {
                None => "",
                Some("same") => "  (margins: the same)",
                Some("same_winner") => "  (margins: the same winner)",
                Some(other) => panic!("{other}"),
            };
            let line = format!(
                "  S holds {:>3}, {} starts: {}{note}\n",
                s["south"].as_u64().unwrap(),
                word(&s["starter"]),
                verdict(s).0
            );
            assert!(text.contains(&line), "{line}\n{text}");
        }
        assert!(text.contains(&format!(
            "exact: South wins {}, North wins {}, endless {}; the margins' verdicts confirmed {}, contradicted {}\n",
            ex["south_wins"], ex["north_wins"], ex["endless"], ex["confirmed"], ex["contradicted"]
        )));
        assert!(text.contains(&format!(
            "The match from the start ({} first), exactly: {}\n",
            word(&v["first"]),
            verdict(&ex["start"]).0
        )));
        // Without --states: no states, no exact values.
        let (ok, out, err) = pussa(&[&base[..10], &["--json"]].concat());
        assert!(ok, "{err}");
        let w: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert!(w["states"].is_null() && w["exhaustive"].is_null(), "{w}");
        assert_eq!(w["rounds"], v["rounds"]);
    }
    assert!(
        kinds.contains("win") && kinds.contains("unresolved"),
        "{kinds:?}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
