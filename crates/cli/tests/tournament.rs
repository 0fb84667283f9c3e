//! `pussa tournament` through the binary: levels, an external engine that is pussa itself, and
//! broken engines that must lose without hurting the run.

use std::process::Command;

mod common;

use common::pussa;

fn tmp(name: &str) -> std::path::PathBuf {
    common::tmp_in("tournament", name)
}

/// The wins-draws-losses line of the summary.
fn wdl(stdout: &str) -> (u32, u32, u32) {
    let line = stdout
        .lines()
        .find(|l| l.starts_with("wins "))
        .unwrap_or_else(|| panic!("{stdout}"));
    let w: Vec<&str> = line.split_whitespace().collect();
    (
        w[1].parse().unwrap(),
        w[3].parse().unwrap(),
        w[5].parse().unwrap(),
    )
}

#[test]
fn two_levels_with_records_and_csv() {
    let pgn = tmp("levels.pgn");
    let csv = tmp("levels.csv");
    let (ok, out, err) = pussa(&[
        "tournament",
        "level:casual",
        "random",
        "--game",
        "raja-pasu",
        "--games",
        "6",
        "--random-opening",
        "2",
        "--concurrency",
        "2",
        "--quiet",
        "--pgn",
        pgn.to_str().unwrap(),
        "--results",
        csv.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let (w, d, l) = wdl(&out);
    assert_eq!(w + d + l, 6, "{out}");
    assert!(out.contains("elo "), "{out}");
    // Six games are three complete pairs.
    assert!(out.contains("pairs 3 (first player's points"), "{out}");
    let csv = std::fs::read_to_string(&csv).unwrap();
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows.len(), 7, "{csv}");
    assert!(rows[0].starts_with("game,south,north,result"));
    // Seats alternate within each pair, and the pair shares its opening.
    assert!(rows[1].starts_with("1,level:casual,random,"), "{}", rows[1]);
    assert!(rows[2].starts_with("2,random,level:casual,"), "{}", rows[2]);
    let opening = |r: &str| r.split(',').nth(11).unwrap().to_string();
    assert_eq!(opening(rows[1]), opening(rows[2]));
    // The records read back as legal games with the results the CSV gives.
    let text = std::fs::read_to_string(&pgn).unwrap();
    let records: Vec<&str> = text.split("\n\n[").collect();
    assert_eq!(records.len(), 6);
    for (i, r) in records.iter().enumerate() {
        let r = if i == 0 {
            r.to_string()
        } else {
            format!("[{r}")
        };
        let rec = pussa_rules::record::Record::parse(&r).unwrap_or_else(|e| panic!("{e}\n{r}"));
        let result = rows[i + 1].split(',').nth(3).unwrap();
        assert_eq!(rec.result().token(), result);
    }
}

#[test]
fn against_pussa_itself_as_an_external_engine() {
    let json = tmp("self.json");
    let engine = format!("engine:\"{} engine\"", env!("CARGO_BIN_EXE_pussa"));
    let (ok, out, err) = pussa(&[
        "tournament",
        &engine,
        "greedy",
        "--game",
        "walak-pussa",
        "--games",
        "2",
        "--depth",
        "3",
        "--concurrency",
        "2",
        "--quiet",
        "--results",
        json.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(out.contains(" forfeit 0"), "no game forfeited: {out}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["games"].as_array().unwrap().len(), 2);
    for g in v["games"].as_array().unwrap() {
        assert_eq!(g["termination"]["kind"], "normal", "{g}");
        assert!(g["moves"].as_array().unwrap().len() > 4);
    }
    let (w, d, l) = wdl(&out);
    assert_eq!(
        (
            v["wins"].as_u64(),
            v["draws"].as_u64(),
            v["losses"].as_u64()
        ),
        (Some(w.into()), Some(d.into()), Some(l.into()))
    );
}

#[test]
fn broken_engines_lose_and_the_tournament_ends() {
    let csv = tmp("broken.csv");
    // Garbage, an engine that exits at once, and one that never answers.
    for (spec, reason) in [
        ("engine:sh -c \"echo garbage\"", "garbage"),
        ("engine:true", "exited"),
        ("engine:sleep 30", "timed out"),
        (
            "engine:sh -c \"while :; do echo info string thinking; sleep 0.01; done\"",
            "timed out",
        ),
        ("engine:/nonexistent/engine", "cannot start engine"),
    ] {
        let t = std::time::Instant::now();
        let (ok, out, err) = pussa(&[
            "tournament",
            "random",
            spec,
            "--games",
            "2",
            "--quiet",
            "--engine-timeout",
            "500",
            "--results",
            csv.to_str().unwrap(),
            // Each run writes over the last one's results.
            "--force",
        ]);
        assert!(ok, "{spec}: {err}");
        assert!(
            t.elapsed() < std::time::Duration::from_secs(20),
            "{spec} took {:?}",
            t.elapsed()
        );
        assert_eq!(wdl(&out), (2, 0, 0), "{spec}: {out}");
        assert_eq!(out.matches("forfeited").count(), 2, "{spec}: {out}");
        assert!(out.contains(reason), "{spec}: {out}");
        let text = std::fs::read_to_string(&csv).unwrap();
        assert_eq!(text.matches(",forfeit,").count(), 2, "{text}");
    }
}

/// A protocol engine in `sh` that answers `go` with `reply` (a shell command).
fn sh_engine(name: &str, reply: &str) -> std::path::PathBuf {
    let path = tmp(name);
    std::fs::write(
        &path,
        format!(
            "while read -r l; do case \"$l\" in pussa) echo pussaok;; isready) echo readyok;; go*) {reply};; quit) exit 0;; esac; done\n"
        ),
    )
    .unwrap();
    path
}

/// Processes whose command line is exactly `words`.
fn processes(words: &[&str]) -> usize {
    let want = words.join("\0") + "\0";
    std::fs::read_dir("/proc")
        .map(|d| {
            d.filter_map(Result::ok)
                .filter(|e| {
                    std::fs::read(e.path().join("cmdline")).is_ok_and(|c| c == want.as_bytes())
                })
                .count()
        })
        .unwrap_or(0)
}

#[test]
fn misbehaving_engines_are_cut_off_and_stopped_whole() {
    // A line without end: refused once it passes the limit, memory stays bounded.
    let endless = sh_engine("endless.sh", "yes x | tr -d '\\n'");
    // `bestmoveA` is not `bestmove A`.
    let glued = sh_engine("glued.sh", "echo bestmoveA");
    // A wrapper whose child hangs: the child must not outlive the run.
    let hangs = sh_engine("hangs.sh", "sleep 987");
    for (script, reason) in [
        (&endless, "a line longer than 65536 bytes"),
        (&glued, "engine said 'bestmoveA' while searching"),
        (&hangs, "timed out"),
    ] {
        let spec = format!("engine:sh {}", script.display());
        let (ok, out, err) = pussa(&[
            "tournament",
            "random",
            &spec,
            "--games",
            "2",
            "--quiet",
            "--concurrency",
            "1",
            "--engine-timeout",
            "1000",
        ]);
        assert!(ok, "{spec}: {err}");
        assert_eq!(wdl(&out), (2, 0, 0), "{spec}: {out}");
        assert_eq!(out.matches("forfeited").count(), 2, "{spec}: {out}");
        assert!(out.contains(reason), "{spec}: {out}");
        // Both games lost the same way: no spread, so no interval, for games or pairs.
        assert!(
            out.contains("95% interval: none (every game gave the same result)")
                && out.contains("95% interval: none (every pair gave the same points)"),
            "{out}"
        );
    }
    if std::path::Path::new("/proc/self/cmdline").exists() {
        assert_eq!(
            processes(&["sleep", "987"]),
            0,
            "the hung engine's child outlived the tournament"
        );
    }
}

#[test]
fn a_single_game_has_no_pair_statistics() {
    let json = tmp("one.json");
    let (ok, out, err) = pussa(&[
        "tournament",
        "random",
        "greedy",
        "-n",
        "1",
        "-q",
        "--results",
        json.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(out.contains(", 1 game\n"), "{out}");
    assert!(!out.contains("pairs "), "{out}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["games"].as_array().unwrap().len(), 1);
    for k in ["elo_pairs", "elo_pairs_low", "elo_pairs_high"] {
        assert!(v[k].is_null(), "{k}: {}", v[k]);
    }
}

#[test]
fn bad_arguments_are_one_line_errors() {
    for (args, needle) in [
        (
            vec!["tournament", "nobody", "random"],
            "unknown player 'nobody'",
        ),
        (
            vec!["tournament", "level:godlike", "random"],
            "unknown level 'godlike'",
        ),
        (
            vec!["tournament", "random", "random", "--sprt", "1,2"],
            "expected elo0,elo1,alpha,beta",
        ),
        (
            vec!["tournament", "random", "random", "--depth", "2000"],
            "--depth 2000 is more than 1000",
        ),
        (
            vec![
                "tournament",
                "random",
                "random",
                "--match",
                "--max-rounds",
                "0",
            ],
            "--max-rounds must be at least 1",
        ),
        (
            vec!["tournament", "random", "random", "--concurrency", "0"],
            "--concurrency must be at least 1",
        ),
        (
            vec!["tournament", "random", "random", "--engine-timeout", "0"],
            "--engine-timeout must be at least 1",
        ),
        (
            vec!["tournament", "nodes:1e3", "random"],
            "('1e3' is not; write nodes:1000, not 1e3)",
        ),
        (
            vec!["tournament", "nodes:99999999999999999999", "random"],
            "node count '99999999999999999999' is too large",
        ),
        (
            vec!["tournament", "nodes:0", "random"],
            "needs a node count of at least 1",
        ),
        (
            vec!["tournament", "search+tables+tables", "random"],
            "(in 'search+tables+tables')",
        ),
    ] {
        let (ok, _, err) = pussa(&args);
        assert!(!ok);
        assert!(
            err.starts_with("error: ") && err.contains(needle),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn sprt_stops_a_lopsided_run_early() {
    let (ok, out, err) = pussa(&[
        "tournament",
        "greedy",
        "random",
        "--game",
        "raja-pasu",
        "--games",
        "400",
        "--concurrency",
        "1",
        "--quiet",
        "--sprt",
        "0,100,0.05,0.05",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("stopped by the SPRT"), "{out}");
    assert!(out.contains("H1 accepted"), "{out}");
    let (w, d, l) = wdl(&out);
    assert!(w + d + l < 400);
}

#[test]
fn matches_run_across_rounds_with_an_external_engine() {
    let csv = tmp("match.csv");
    let engine = format!("engine:\"{} engine\"", env!("CARGO_BIN_EXE_pussa"));
    let (ok, out, err) = pussa(&[
        "tournament",
        &engine,
        "greedy",
        "--match",
        "--game",
        "raja-pasu",
        "--games",
        "2",
        "--depth",
        "2",
        "--concurrency",
        "2",
        "--quiet",
        "--results",
        csv.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(out.contains(" forfeit 0"), "no game forfeited: {out}");
    let text = std::fs::read_to_string(&csv).unwrap();
    for row in text.lines().skip(1) {
        let f: Vec<&str> = row.split(',').collect();
        // The engine moved through the rounds of a match: more than one round, a decided end.
        let rounds: u32 = f[8].parse().unwrap();
        assert!(rounds > 1, "{row}");
        assert!(row.contains(",normal,"), "{row}");
    }
}

#[test]
fn a_stopped_run_leaves_its_finished_games_in_the_results() {
    let json = tmp("stopped.json");
    let pgn = tmp("stopped.pgn");
    let mut child = Command::new(env!("CARGO_BIN_EXE_pussa"))
        .args([
            "tournament",
            "mcts",
            "greedy",
            "--game",
            "raja-pasu",
            "--games",
            "200",
            "--movetime",
            "30",
            "--concurrency",
            "1",
            "--quiet",
            "--results",
        ])
        .arg(&json)
        .arg("--pgn")
        .arg(&pgn)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("run pussa");
    // Wait until at least two games are on file, then stop the run the hard way.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    let partial = loop {
        assert!(
            std::time::Instant::now() < deadline,
            "no games on file after 120 s"
        );
        if let Ok(text) = std::fs::read_to_string(&json) {
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) {
                if v["games"].as_array().is_some_and(|g| g.len() >= 2) {
                    break v;
                }
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    child.kill().unwrap();
    child.wait().unwrap();
    // The file read while the run went on was whole, said it was not finished, and its
    // totals count exactly its games.
    assert_eq!(partial["finished"], false, "{partial}");
    assert_eq!(partial["stopped_early"], false, "{partial}");
    let games = partial["games"].as_array().unwrap();
    let counted = ["wins", "draws", "losses"]
        .iter()
        .map(|k| partial[k].as_u64().unwrap())
        .sum::<u64>();
    assert_eq!(counted, games.len() as u64);
    // What is on file after the kill still parses and holds at least those games, each one
    // whole (a result and its moves), and the records hold as many games.
    let after: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let kept = after["games"].as_array().unwrap();
    assert!(
        kept.len() >= games.len() && kept.len() < 200,
        "{}",
        kept.len()
    );
    for g in kept {
        assert!(g["moves"].as_array().unwrap().len() > 2, "{g}");
        assert!(g["termination"]["kind"].is_string(), "{g}");
    }
    let records = std::fs::read_to_string(&pgn).unwrap();
    let n = records.matches("[Event \"pussa tournament\"]").count();
    assert!(n >= games.len(), "{n} records, {} games", games.len());
}

/// Stopped before its first game ends, a run leaves valid files of no games in place of the
/// old ones (the JSON says `"finished": false`), never empty or half-written ones: they used
/// to be emptied at the start and stay empty until the first game was on file.
#[test]
fn a_run_stopped_before_its_first_game_leaves_valid_files() {
    let json = tmp("early.json");
    let pgn = tmp("early.pgn");
    let svg = tmp("early.svg");
    std::fs::write(&json, "{\"old\": 1}\n").unwrap();
    std::fs::write(&pgn, "old records\n").unwrap();
    std::fs::write(&svg, "<svg>old</svg>\n").unwrap();
    // Seconds a move: no game ends before the kill.
    let mut child = Command::new(env!("CARGO_BIN_EXE_pussa"))
        .args([
            "tournament",
            "mcts",
            "mcts",
            "--games",
            "2",
            "--movetime",
            "5000",
            "--concurrency",
            "1",
            "--quiet",
            "--results",
        ])
        .arg(&json)
        .arg("--pgn")
        .arg(&pgn)
        .arg("--plot")
        .arg(&svg)
        .arg("--force")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("run pussa");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let v = loop {
        assert!(
            std::time::Instant::now() < deadline,
            "no valid results on file after 60 s: {:?}",
            std::fs::read_to_string(&json)
        );
        if let Ok(text) = std::fs::read_to_string(&json) {
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) {
                if v["finished"] == false {
                    break v;
                }
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(v["games"].as_array().map(Vec::len), Some(0), "{v}");
    assert_eq!(v["players"][0], "mcts", "{v}");
    let after: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(after, v);
    let plot = std::fs::read_to_string(&svg).unwrap();
    assert!(
        plot.starts_with("<svg") && plot.trim_end().ends_with("</svg>") && plot.contains("0 games"),
        "{plot}"
    );
    // No game finished: no records (an empty file is a file of no records).
    assert_eq!(std::fs::read_to_string(&pgn).unwrap(), "");
}

/// Waits up to `secs` seconds for `done`.
fn eventually(secs: u64, mut done: impl FnMut() -> bool) -> bool {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    while std::time::Instant::now() < deadline {
        if done() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    done()
}

/// A tournament stopped by SIGTERM or SIGINT (Ctrl-C) kills its external engines' process
/// groups (a signal to the manager does not reach them: they lead their own groups) and exits
/// with 128 + the signal's number and a message. The engines used to run on, owned by init.
#[test]
fn a_stopped_tournament_kills_its_engines() {
    if !std::path::Path::new("/proc/self/cmdline").exists() {
        return;
    }
    for (signal, code, seconds) in [("TERM", 143, "8761"), ("INT", 130, "8762")] {
        // A wrapper that hangs on `go`: its `sleep` child is in the engine's group.
        let script = sh_engine(&format!("hang-{signal}.sh"), &format!("sleep {seconds}"));
        let spec = format!("engine:sh {}", script.display());
        let mut child = Command::new(env!("CARGO_BIN_EXE_pussa"))
            .args([
                "tournament",
                &spec,
                "random",
                "--games",
                "2",
                "--engine-timeout",
                "60000",
                "--concurrency",
                "1",
                "--quiet",
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("run pussa");
        assert!(
            eventually(30, || processes(&["sleep", seconds]) == 1),
            "the engine never got to its search"
        );
        let sent = Command::new("kill")
            .args([format!("-{signal}"), child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let mut status = None;
        eventually(10, || {
            status = status.or_else(|| child.try_wait().unwrap());
            status.is_some()
        });
        let Some(status) = status else {
            let _ = child.kill();
            panic!("pussa did not stop on SIG{signal}");
        };
        let mut err = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
        assert_eq!(status.code(), Some(code), "{err}");
        assert_eq!(
            err,
            format!("error: tournament stopped by SIG{signal} (1 external engine killed)\n")
        );
        assert!(
            eventually(5, || processes(&["sleep", seconds]) == 0
                && processes(&["sh", script.to_str().unwrap()]) == 0),
            "the engine outlived the tournament stopped by SIG{signal}"
        );
    }
}

/// Outputs that would lose something are refused before any game, one line, exit 1: an
/// existing file without --force (the records of an earlier run were silently replaced), two
/// options naming the same file (the records were lost under the CSV), and a --plot name that
/// does not end in .svg (an SVG image was written as x.png).
#[test]
fn outputs_that_would_lose_something_are_refused() {
    let run = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_pussa"))
            .args(["tournament", "random", "random", "-n", "2", "-q"])
            .args(extra)
            .output()
            .expect("run pussa")
    };
    let refused = |extra: &[&str], want: &str| {
        let out = run(extra);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{extra:?}: {err}");
        assert_eq!(err.trim_end(), want, "{extra:?}");
        assert!(out.stdout.is_empty(), "{extra:?}");
    };
    let same = tmp("same.txt");
    let s = same.to_str().unwrap();
    refused(
        &["--pgn", s, "--results", s],
        &format!("error: --pgn and --results name the same file {s} (each is rewritten after every game)"),
    );
    assert!(!same.exists());
    let png = tmp("x.png");
    let p = png.to_str().unwrap();
    refused(
        &["--plot", p],
        &format!("error: --plot {p}: the plot is an SVG image; give a name ending in .svg"),
    );
    assert!(!png.exists());
    let old = tmp("old.txt");
    std::fs::write(&old, "an earlier run's records\n").unwrap();
    let o = old.to_str().unwrap();
    refused(
        &["--pgn", o],
        &format!("error: --pgn {o}: the file exists (choose another name, or add --force to write over it)"),
    );
    assert_eq!(
        std::fs::read_to_string(&old).unwrap(),
        "an earlier run's records\n"
    );
    // With --force it is rewritten with this run's games.
    let out = run(&["--pgn", o, "--force"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&old).unwrap();
    assert_eq!(text.matches("[Game ").count(), 2, "{text}");
}
