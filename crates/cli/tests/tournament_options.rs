//! `pussa tournament`'s options and what it reports about them, through the binary: SPRT bounds
//! written as fishtest writes them, options that apply to no player, the progress bar, an
//! external engine's time use and start-up failures, and the JSON's values at the edges.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

mod common;

use common::pussa;

fn tmp(name: &str) -> std::path::PathBuf {
    common::tmp_in("tournament-options", name)
}

/// The warning about an engine's time comes at its first overrun, while its game goes on, not
/// when the game ends (it came with the game's end, so a long match told it only at the end).
#[test]
fn an_overrun_is_warned_about_as_it_happens() {
    use std::io::{BufRead, BufReader};
    // The engine's moves are searched to a fixed depth, not for the 20 ms it is given: the
    // game, and so the number of late answers counted below (16), is then the same on every
    // machine. Searched for 20 ms, the game depended on how deep the search got: on a loaded
    // machine it was a game of 4 engine moves, where at least 5 are asserted.
    let engine = late_engine_at_depth("late-warn.sh", "0.1", 2);
    let json = tmp("late-warn.json");
    let mut child = Command::new(env!("CARGO_BIN_EXE_pussa"))
        .args([
            "tournament",
            &engine,
            "random",
            "-n",
            "1",
            "-q",
            "--random-opening",
            "0",
            "--movetime",
            "20",
            "--engine-timeout",
            "5000",
            "--force",
            "--results",
            json.to_str().unwrap(),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    let warned = Instant::now();
    assert!(
        line.starts_with(&format!(
            "warning: player 1 pussa {} answered ",
            env!("CARGO_PKG_VERSION")
        )) && line.contains(
            "answered later than its move time (20 ms, + 10 ms margin) in game 1 (move 1: "
        ),
        "{line}"
    );
    let status = child.wait().unwrap();
    let after = warned.elapsed();
    assert!(status.success());
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let moves = v["engine_time"][0]["moves"].as_u64().unwrap();
    // The game is fixed (a depth-2 engine, the tournament's seeded random player): 16 late
    // answers on every run; every answer after the first was still to come, each held 100 ms.
    assert_eq!(moves, 16, "{v}");
    assert!(
        after >= Duration::from_millis(100 * (moves - 2)),
        "warned {after:?} before the end of a game of {moves} late answers"
    );
}

/// An external engine's `engine_time` is an object (0 moves, its move time and margin) from the
/// start, before any of its games has finished; `null` is for a built-in player only.
#[test]
fn an_engines_time_is_an_object_before_its_first_game_ends() {
    let engine = late_engine("late-null.sh", "0.3");
    let json = tmp("late-null.json");
    let _ = std::fs::remove_file(&json);
    let mut child = Command::new(env!("CARGO_BIN_EXE_pussa"))
        .args([
            "tournament",
            &engine,
            "random",
            "-n",
            "2",
            "-q",
            "--movetime",
            "20",
            "--engine-timeout",
            "5000",
            "--results",
            json.to_str().unwrap(),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let v: Value = loop {
        if let Some(v) = std::fs::read_to_string(&json)
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        {
            break v;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "no results file"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(v["finished"], false, "{v}");
    assert_eq!(v["games"].as_array().map(Vec::len), Some(0), "{v}");
    let t = &v["engine_time"][0];
    assert_eq!(
        (
            t["moves"].as_u64(),
            t["overruns"].as_u64(),
            t["total_ms"].as_f64(),
            t["movetime_ms"].as_u64(),
            t["margin_ms"].as_u64()
        ),
        (Some(0), Some(0), Some(0.0), Some(20), Some(10)),
        "{v}"
    );
    assert!(v["engine_time"][1].is_null(), "random is no engine: {v}");
}

/// A non-regression SPRT has a negative elo0 (fishtest's `-3,1`): `--sprt -3,1,0.05,0.05`
/// takes the word after the option as its value (clap read it as an unknown option `-3`, and
/// its tip `-- -3` failed too).
#[test]
fn sprt_takes_a_negative_elo0() {
    let (ok, out, err) = pussa(&[
        "tournament",
        "level:club",
        "level:casual",
        "-n",
        "4",
        "-q",
        "--sprt",
        "-3,1,0.05,0.05",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("sprt elo0 -3 elo1 1: llr "), "{out}");
    // A value that is not one is a usage error naming it (exit 2, as every option's range).
    let (code, err) = status(&["tournament", "random", "greedy", "--sprt", "-3,1"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.starts_with(
            "error: invalid value '-3,1' for '--sprt <ELO0,ELO1,ALPHA,BETA>': expected \
             elo0,elo1,alpha,beta"
        ),
        "{err}"
    );
}

/// The exit code and stderr of `pussa args`.
fn status(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_pussa"))
        .args(args)
        .output()
        .expect("run pussa");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// An Elo beyond ±6000 (about +6,400 rounds the logistic score to 1) is refused at once as
/// a usage error naming the range: its LLR was NaN, which crossed neither bound, so the run
/// went on to its last game "undecided"; a huge one was printed with its 300 digits.
#[test]
fn sprt_elos_out_of_range_are_usage_errors() {
    for sprt in [
        "0,7000,0.05,0.05",
        "-7000,0,0.05,0.05",
        "-1e300,1e300,0.05,0.05",
        "0,6000.5,0.05,0.05",
    ] {
        let (code, err) = status(&["tournament", "random", "greedy", &format!("--sprt={sprt}")]);
        assert_eq!(code, Some(2), "{sprt}: {err}");
        assert!(
            err.contains(&format!(
                "invalid value '{sprt}' for '--sprt <ELO0,ELO1,ALPHA,BETA>': elo0 and elo1 must \
                 lie within -6000..=6000"
            )) && !err.contains("00000000000"),
            "{sprt}: {err}"
        );
    }
    // The edge of the range runs, and its LLR is a number.
    let json = tmp("sprt-edge.json");
    let (ok, out, err) = pussa(&[
        "tournament",
        "greedy",
        "random",
        "-n",
        "4",
        "-q",
        "--sprt=-6000,6000,0.05,0.05",
        "--results",
        json.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("sprt elo0 -6000 elo1 6000: llr "), "{out}");
    assert!(!out.contains("NaN"), "{out}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert!(v["llr"].as_f64().is_some_and(f64::is_finite), "{v}");
}

/// With no per-move limit given the players get 100 ms a move, and the results' settings say
/// so (they said `null`, which read as "no limit").
#[test]
fn the_settings_record_the_default_move_time() {
    let json = tmp("settings-default.json");
    let (ok, _, err) = pussa(&[
        "tournament",
        "random",
        "random",
        "-n",
        "2",
        "-q",
        "--results",
        json.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let s = &v["settings"];
    assert_eq!(s["movetime_ms"], 100, "{s}");
    assert!(s["depth"].is_null() && s["nodes"].is_null(), "{s}");
}

/// The results file records the SPRT (elo0, elo1, alpha, beta and its bounds) and the run's
/// settings, so that `llr` and the decision can be recomputed from the file alone, as
/// docs/engine.md says: fishtest's LLR of `sprt_pairs` (or `pairs`) under the file's elo0 and
/// elo1 is its `llr`, and the decision is where that stands against the file's bounds.
#[test]
fn the_results_record_the_sprt_and_the_settings() {
    use pussa_engine::tournament::{Pentanomial, Sprt, SprtDecision};
    let json = tmp("sprt-test.json");
    let (ok, out, err) = pussa(&[
        "tournament",
        "greedy",
        "random",
        "-n",
        "200",
        "--seed",
        "5",
        "--random-opening",
        "3",
        "--depth",
        "2",
        "--concurrency",
        "1",
        "-q",
        "--sprt",
        "0,100,0.05,0.05",
        "--results",
        json.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("H1 accepted"), "{out}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let t = &v["sprt_test"];
    let f = |k: &str| t[k].as_f64().unwrap_or_else(|| panic!("{k}: {t}"));
    assert_eq!(
        (f("elo0"), f("elo1"), f("alpha"), f("beta")),
        (0.0, 100.0, 0.05, 0.05)
    );
    assert!((f("lower") - (0.05f64 / 0.95).ln()).abs() < 1e-12, "{t}");
    assert!((f("upper") - (0.95f64 / 0.05).ln()).abs() < 1e-12, "{t}");
    let s = &v["settings"];
    assert_eq!(s["games"], 200, "{s}");
    assert_eq!(s["seed"], 5, "{s}");
    assert_eq!(s["random_opening"], 3, "{s}");
    assert_eq!(s["depth"], 2, "{s}");
    assert!(s["movetime_ms"].is_null() && s["nodes"].is_null(), "{s}");
    // Recomputed from the file's own fields.
    let counts: Vec<u32> = v["sprt_pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_u64().unwrap() as u32)
        .collect();
    let sprt = Sprt {
        elo0: f("elo0"),
        elo1: f("elo1"),
        alpha: f("alpha"),
        beta: f("beta"),
    };
    let pairs = Pentanomial(counts.try_into().unwrap());
    let llr = sprt.llr(&pairs);
    assert!((llr - v["llr"].as_f64().unwrap()).abs() < 1e-9, "{llr} {v}");
    assert!(llr >= f("upper"), "{llr}");
    assert_eq!(sprt.decision(&pairs), SprtDecision::AcceptH1);
    assert_eq!(v["sprt"], "accept_h1");
    assert_eq!(v["sprt_games"].as_u64(), Some(2 * u64::from(pairs.pairs())));
}

/// A subnormal alpha (which `--sprt` accepts: strictly between 0 and 0.5) gives the finite
/// upper bound `ln(1 - beta) - ln(alpha)` = 744.389 in the summary and the JSON; the quotient
/// `(1 - beta) / alpha` overflowed, and the bound was printed `inf` and written `null`.
#[test]
fn a_subnormal_alpha_gives_finite_sprt_bounds() {
    let json = tmp("sprt-tiny-alpha.json");
    let (ok, out, err) = pussa(&[
        "tournament",
        "greedy",
        "random",
        "-n",
        "4",
        "--seed",
        "1",
        "-q",
        "--sprt=0,10,5e-324,0.05",
        "--results",
        json.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("bounds [-2.996, 744.389]"), "{out}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let t = &v["sprt_test"];
    let upper = t["upper"].as_f64().unwrap_or_else(|| panic!("{t}"));
    assert!((upper - 744.388_778_626_993_7).abs() < 1e-9, "{t}");
    let lower = t["lower"].as_f64().unwrap_or_else(|| panic!("{t}"));
    assert!((lower - 0.05f64.ln()).abs() < 1e-12, "{t}");
}

/// `--sprt` with its value forgotten is clap's "a value is required" like every other option:
/// the next option (`--games`, `-q`) is not taken as the value (it was, and the error blamed the
/// next word, `unexpected argument '100'`). `--sprt -- -3,…`, clap's usual advice for a value
/// with a minus sign, gets a message that names the forms that work, never a tip that loops.
#[test]
fn sprt_without_its_value_says_so_and_names_the_forms_that_work() {
    for rest in [&["--games", "100"][..], &["-q"][..], &[][..]] {
        let mut args = vec![
            "tournament",
            "greedy",
            "random",
            "--game",
            "raja-pasu",
            "--sprt",
        ];
        args.extend_from_slice(rest);
        let o = Command::new(env!("CARGO_BIN_EXE_pussa"))
            .args(&args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{rest:?}: {err}");
        assert_eq!(
            err.lines().next(),
            Some("error: a value is required for '--sprt <ELO0,ELO1,ALPHA,BETA>' but none was supplied"),
            "{rest:?}: {err}"
        );
    }
    let o = Command::new(env!("CARGO_BIN_EXE_pussa"))
        .args([
            "tournament",
            "greedy",
            "random",
            "--sprt",
            "--",
            "-3,1,0.05,0.05",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(
        err,
        "error: a value is required for '--sprt' right after it, not after '--' (which ends the \
         options, so the value would be read as a player): write --sprt -3,1,0.05,0.05 or \
         --sprt=-3,1,0.05,0.05\n"
    );
    // Both forms named there work, and so does a value starting with a point.
    for sprt in [
        &["--sprt=-3,1,0.05,0.05"][..],
        &["--sprt", "-.5,1,0.05,0.05"][..],
    ] {
        let mut args = vec!["tournament", "random", "greedy", "-n", "2", "-q"];
        args.extend_from_slice(sprt);
        let (ok, out, err) = pussa(&args);
        assert!(ok, "{sprt:?}: {err}");
        assert!(out.contains("sprt elo0 -"), "{out}");
    }
}

/// `--depth` does not limit UCT: a run with an `mcts` player says so and names the budget it
/// plays instead (it played a hidden 10,000 playouts a move, whatever the depth, unwarned).
#[test]
fn depth_with_an_mcts_player_is_warned_about_with_its_real_budget() {
    let (ok, _, err) = pussa(&[
        "tournament",
        "mcts",
        "greedy",
        "-n",
        "2",
        "-q",
        "--depth",
        "3",
    ]);
    assert!(ok, "{err}");
    assert_eq!(
        err.trim_end(),
        "warning: --depth does not limit mcts (UCT has no search depth): with neither --nodes \
         nor --movetime it plays 10000 playouts a move"
    );
    let (ok, _, err) = pussa(&[
        "tournament",
        "search",
        "mcts",
        "-n",
        "2",
        "-q",
        "--depth",
        "2",
        "--nodes",
        "300",
    ]);
    assert!(ok, "{err}");
    assert!(
        err.contains("--depth does not limit mcts (UCT has no search depth): it plays to --nodes"),
        "{err}"
    );
    // A depth for the search alone is no news.
    let (ok, _, err) = pussa(&[
        "tournament",
        "search",
        "greedy",
        "-n",
        "2",
        "-q",
        "--depth",
        "2",
    ]);
    assert!(ok && err.is_empty(), "{err}");
}

/// On a terminal the bar's count of games finished and its +W =D -L are drawn together, so
/// they always agree (the count was drawn apart from the results and lagged one game behind).
#[test]
fn the_progress_bar_counts_a_game_with_its_result() {
    // `script` (util-linux) gives the run a terminal; scripts/test.sh installs it.
    let cmd = format!(
        "{} tournament random greedy -n 12 --concurrency 1",
        env!("CARGO_BIN_EXE_pussa")
    );
    let out = Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .stdin(Stdio::null())
        .output()
        .expect("script runs");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let mut states = 0;
    for (at, _) in text.match_indices(" games  +") {
        // `N/12 games  +W =D -L`
        let before = &text[..at];
        let count = before.rsplit(' ').next().unwrap();
        let finished: u32 = count.strip_suffix("/12").unwrap().parse().unwrap();
        let words: Vec<&str> = text[at + " games  ".len()..]
            .split_whitespace()
            .take(3)
            .collect();
        let n = |w: &str, mark: char| -> u32 { w.strip_prefix(mark).unwrap().parse().unwrap() };
        let results = n(words[0], '+') + n(words[1], '=') + n(words[2], '-');
        assert_eq!(results, finished, "{count} games  {words:?}");
        states += 1;
    }
    assert!(states > 0, "no bar drawn: {text}");
}

/// Two games of `engine` against random at 20 ms a move (and 5 s before an answer is given
/// up), results written to `results`.
fn late_run(engine: &str, results: &std::path::Path) -> (bool, String, String) {
    pussa(&[
        "tournament",
        engine,
        "random",
        "-n",
        "2",
        "-q",
        "--concurrency",
        "1",
        "--movetime",
        "20",
        "--engine-timeout",
        "5000",
        "--force",
        "--results",
        results.to_str().unwrap(),
    ])
}

/// A protocol engine in `sh`: `pussa engine` behind a filter that holds every `go` back
/// `delay` seconds, so each answer comes that much late.
fn late_engine(name: &str, delay: &str) -> String {
    let path = tmp(name);
    std::fs::write(
        &path,
        format!(
            "while IFS= read -r l; do case \"$l\" in go*) sleep {delay};; esac; printf '%s\\n' \"$l\"; done | {} engine\n",
            env!("CARGO_BIN_EXE_pussa")
        ),
    )
    .unwrap();
    format!("engine:sh {}", path.display())
}

/// As [`late_engine`], but every `go` is searched to `depth` whatever its limits: the moves,
/// and so the games against a seeded player, do not depend on the machine's speed.
fn late_engine_at_depth(name: &str, delay: &str, depth: u32) -> String {
    let path = tmp(name);
    std::fs::write(
        &path,
        format!(
            "while IFS= read -r l; do case \"$l\" in go*) sleep {delay}; l='go depth {depth}';; esac; printf '%s\\n' \"$l\"; done | {} engine\n",
            env!("CARGO_BIN_EXE_pussa")
        ),
    )
    .unwrap();
    format!("engine:sh {}", path.display())
}

/// An external engine that takes far longer than its move time is not stopped before the
/// answer timeout; the summary and the JSON results now say it overran (nothing did, so an
/// engine could play at twelve times its time unnoticed).
#[test]
fn an_engines_time_overruns_are_reported() {
    let json = tmp("late.json");
    let engine = late_engine("late.sh", "0.15");
    let (ok, out, err) = late_run(&engine, &json);
    assert!(ok, "{err}");
    // Told on stderr at once, for the first overrun.
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with(&format!(
            "warning: player 1 pussa {} answered ",
            env!("CARGO_PKG_VERSION")
        )) && err.contains("answered later than its move time (20 ms, + 10 ms margin) in game 1"),
        "{err}"
    );
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let t = &v["engine_time"][0];
    let moves = t["moves"].as_u64().unwrap();
    assert!(moves > 0, "{v}");
    assert_eq!(t["overruns"], moves, "every answer came 150 ms late: {t}");
    assert!(t["longest_ms"].as_f64().unwrap() >= 150.0, "{t}");
    // To the microsecond: the total is each answer's time added before rounding, so it is at
    // least the 150 ms each answer was held, and the mean in the summary agrees with it.
    let total = t["total_ms"].as_f64().unwrap();
    assert!(total >= 150.0 * moves as f64, "{t}");
    assert_eq!(
        (t["movetime_ms"].as_u64(), t["margin_ms"].as_u64()),
        (Some(20), Some(10))
    );
    assert!(v["engine_time"][1].is_null(), "random is no engine: {v}");
    // Each game has its seat's times, and they add up to the player's.
    let per_game: u64 = v["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            let seat = if g["south_player"] == 0 { 0 } else { 1 };
            assert!(g["engine_time"][1 - seat].is_null(), "{g}");
            g["engine_time"][seat]["overruns"].as_u64().unwrap()
        })
        .sum();
    assert_eq!(per_game, moves);
    // The CSV has each game's overruns by seat, empty for the built-in player.
    let csv = tmp("late.csv");
    let (ok, _, err) = late_run(&engine, &csv);
    assert!(ok, "{err}");
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    assert!(
        lines.next().unwrap().ends_with(
            ",ending,south_overruns,north_overruns,time_control,south_clock_ms,north_clock_ms,game_name,index"
        ),
        "{text}"
    );
    for (i, row) in lines.enumerate() {
        // The overruns, before the clock columns (empty without --tc), the game's name and
        // index.
        let mut last = row.rsplit(',').skip(5);
        let (north, south) = (last.next().unwrap(), last.next().unwrap());
        // Game 1: the engine sits South; game 2: North.
        let (engine, builtin) = if i == 0 {
            (south, north)
        } else {
            (north, south)
        };
        assert!(engine.parse::<u32>().unwrap() > 0, "{row}");
        assert_eq!(builtin, "", "{row}");
    }
    assert!(
        out.lines().any(|l| l.starts_with(&format!(
            "time: player 1 pussa {} answered ",
            env!("CARGO_PKG_VERSION")
        ))
            && l.contains(&format!(
                "answered later than its move time (20 ms, + 10 ms margin) on {moves} of {moves} moves: longest "
            ))),
        "{out}"
    );
    // Without a move time (a depth only) there is nothing to overrun: no line, no overruns.
    let (ok, out, err) = pussa(&[
        "tournament",
        &engine,
        "random",
        "-n",
        "2",
        "-q",
        "--concurrency",
        "1",
        "--depth",
        "1",
        "--force",
        "--results",
        json.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(!out.contains("time: "), "{out}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["engine_time"][0]["overruns"], 0, "{v}");
    assert!(v["engine_time"][0]["movetime_ms"].is_null(), "{v}");
}

/// A run meant to stop by its SPRT may ask for billions of games: it starts at once (the
/// start-up check of the random openings made every pair's opening first, minutes for
/// `-n 40000000` and most of an hour for `-n 4000000000`).
#[test]
fn a_huge_games_count_starts_at_once() {
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_pussa"))
        .args([
            "tournament",
            "random",
            "random",
            "-n",
            "4000000000",
            "--concurrency",
            "1",
            "-q",
            "--sprt",
            "0,5,0.05,0.05",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let limit = Duration::from_secs(120);
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("still not done after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("H0 accepted"), "{text}");
}

/// Options that apply to no player are warned about like the per-move limits: `--egtb` when
/// nothing uses the tables (with a missing directory named), `--balanced-openings` without a
/// random opening. Both were accepted without a word.
#[test]
fn unused_tables_and_balanced_openings_are_warned_about() {
    let (ok, _, err) = pussa(&[
        "tournament",
        "greedy",
        "random",
        "--game",
        "raja-pasu",
        "-n",
        "2",
        "-q",
        "--egtb",
        "/no/such/dir",
    ]);
    assert!(ok, "{err}");
    assert_eq!(
        err.trim_end(),
        "warning: --egtb applies to neither player: only a searching player with +tables \
         (e.g. level:max+tables) and --exact-openings use the endgame tables (and /no/such/dir \
         is not a directory)"
    );
    // Used, a missing directory is an error.
    let (ok, _, err) = pussa(&[
        "tournament",
        "search+tables",
        "random",
        "-n",
        "2",
        "-q",
        "--egtb",
        "/no/such/dir",
    ]);
    assert!(!ok);
    assert!(
        err.starts_with(
            "error: 'search+tables': no endgame tables of walak-pussa under /no/such/dir"
        ) && err.lines().count() == 1,
        "{err}"
    );
    let (ok, _, err) = pussa(&[
        "tournament",
        "greedy",
        "random",
        "-n",
        "2",
        "-q",
        "--random-opening",
        "0",
        "--balanced-openings",
        "1000",
    ]);
    assert!(ok, "{err}");
    assert_eq!(
        err.trim_end(),
        "warning: --balanced-openings has no effect with --random-opening 0: every game starts \
         from the start position, with no random opening to keep or refuse"
    );
    // The default directory, not given, is no news.
    let (ok, _, err) = pussa(&["tournament", "greedy", "random", "-n", "2", "-q"]);
    assert!(ok && err.is_empty(), "{err}");
}

/// An even score's Elo is `0.0` in the JSON, as the summary's `+0.0` (it was `-0.0`).
#[test]
fn an_even_score_has_elo_zero_not_minus_zero() {
    let json = tmp("even.json");
    let (ok, out, err) = pussa(&[
        "tournament",
        "greedy",
        "random",
        "--game",
        "raja-pasu",
        "-n",
        "2",
        "-q",
        "--force",
        "--results",
        json.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("elo +0.0"), "{out}");
    let text = std::fs::read_to_string(&json).unwrap();
    assert!(text.contains("\"elo\": 0.0,"), "{text}");
    assert!(!text.contains("-0.0"), "{text}");
}

/// At a score of 0 or 1 the Elo is infinite: `elo` (and `elo_pairs` when every pair was won
/// or lost) is `null`, as docs/engine.md says, and `score` tells which way.
#[test]
fn an_infinite_elo_is_null_beside_its_score() {
    let json = tmp("all.json");
    let (ok, out, err) = pussa(&[
        "tournament",
        "random",
        "greedy",
        "-n",
        "4",
        "-q",
        "--force",
        "--results",
        json.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("elo -inf"), "{out}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["score"], 0.0);
    assert!(v["elo"].is_null() && v["elo_pairs"].is_null(), "{v}");
    let docs =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/engine.md")).unwrap();
    assert!(
        docs.contains("`elo`, `elo_pairs`: `null` with no games (no complete pair), or when the score is 0 or 1"),
        "docs/engine.md does not say what a null elo means"
    );
}

/// An engine that exits at start-up is refused with one message, whichever of writing to it
/// and reading from it notices first (it was one of two wordings at random), and it is the
/// README's.
#[test]
fn an_engine_that_exits_at_start_up_gets_one_message() {
    let want = "error: player 2 engine:sh -c \"echo garbage\": engine exited (exit status: 0) \
                while we waited for 'pussaok' (its last line was 'garbage')";
    for _ in 0..8 {
        let (ok, out, err) = pussa(&[
            "tournament",
            "level:expert",
            "engine:sh -c \"echo garbage\"",
            "--games",
            "4",
        ]);
        assert!(!ok && out.is_empty(), "{out}");
        assert_eq!(err.trim_end(), want);
    }
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    assert!(
        readme.contains(&format!("`{want}`")),
        "README quotes another message"
    );
}
