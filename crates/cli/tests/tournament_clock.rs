//! `pussa tournament --tc`: a game clock for each player. External engines get the clock in
//! `go wtime … btime … [winc … binc …] [movestogo …]`, built-in players search with the engine's
//! time management of the same clock, and a player whose clock runs out loses on time, recorded
//! as such in the summary, the records and the results (the tournament had no clock at all).

use serde_json::Value;

mod common;

use common::pussa;

fn tmp(name: &str) -> std::path::PathBuf {
    common::tmp_in("tournament-clock", name)
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

/// `pussa engine` behind a filter that writes every line it is sent to `log` and holds every
/// `go` back `delay` seconds (so each answer comes that much later).
fn logged_engine(name: &str, delay: &str) -> (String, std::path::PathBuf) {
    let path = tmp(name);
    let log = tmp(&format!("{name}.log"));
    let _ = std::fs::remove_file(&log);
    std::fs::write(
        &path,
        format!(
            "while IFS= read -r l; do printf '%s\\n' \"$l\" >> '{}'; case \"$l\" in go*) sleep {delay};; esac; printf '%s\\n' \"$l\"; done | {} engine\n",
            log.display(),
            env!("CARGO_BIN_EXE_pussa")
        ),
    )
    .unwrap();
    (format!("engine:sh {}", path.display()), log)
}

/// An engine gets the clock in `go`, South's as `wtime`: the base at its first move, the
/// increment as `winc`/`binc`, and with `MOVES/` the moves left in the period as `movestogo`
/// (3, 2, 1, then 3 again after the clock is filled); it never gets a `movetime`.
#[test]
fn an_engine_gets_the_clock_in_go() {
    let (engine, log) = logged_engine("clock-go.sh", "0");
    let (ok, out, err) = pussa(&[
        "tournament",
        &engine,
        "greedy",
        "-n",
        "2",
        "-q",
        "--concurrency",
        "1",
        "--random-opening",
        "0",
        "--tc",
        "3/2+0.05",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("  time 0\n"), "{out}");
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(!text.contains("movetime"), "{text}");
    // Each game starts with `newgame` (the start-up check has one of its own, with no `go`).
    let games: Vec<Vec<&str>> = text
        .split("newgame")
        .map(|g| g.lines().filter(|l| l.starts_with("go ")).collect())
        .filter(|g: &Vec<&str>| !g.is_empty())
        .collect();
    assert_eq!(games.len(), 2, "{text}");
    // Game 1: the engine is South and moves first; game 2: North, after greedy's first move.
    assert_eq!(
        games[0][0], "go wtime 2000 btime 2000 winc 50 binc 50 movestogo 3",
        "{text}"
    );
    assert!(
        games[1][0].starts_with("go wtime ")
            && games[1][0].contains(" btime 2000 winc 50 binc 50 movestogo 3"),
        "{text}"
    );
    for game in &games {
        let to_go: Vec<u32> = game
            .iter()
            .map(|l| l.rsplit(' ').next().unwrap().parse().unwrap())
            .collect();
        let want: Vec<u32> = (0..to_go.len()).map(|i| 3 - (i as u32 % 3)).collect();
        assert_eq!(to_go, want, "{game:?}");
        assert!(game.len() > 3, "{game:?}");
    }
    // The clock goes down as the engine uses it (and up by the increment and the period).
    let wtimes: Vec<u64> = games[0]
        .iter()
        .map(|l| l.split(' ').nth(2).unwrap().parse().unwrap())
        .collect();
    assert!(wtimes[1] < 2050, "{wtimes:?}");
}

/// An engine that takes longer than its clock holds loses on time, in a match too: the summary,
/// the records (`Termination "time forfeit: …"`, `TimeControl`), the JSON (`kind` `time`,
/// `endings.time`) and the CSV (`time`) say so, with the reason.
#[test]
fn an_engine_whose_clock_runs_out_loses_on_time() {
    let (engine, _) = logged_engine("clock-slow.sh", "0.3");
    let json = tmp("slow.json");
    let pgn = tmp("slow.pgn");
    let (ok, out, err) = pussa(&[
        "tournament",
        &engine,
        "greedy",
        "--match",
        "-n",
        "2",
        "-q",
        "--concurrency",
        "2",
        "--tc",
        "1+0.01",
        "--force",
        "--results",
        json.to_str().unwrap(),
        "--pgn",
        pgn.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert_eq!(wdl(&out), (0, 0, 2), "{out}");
    assert_eq!(out.matches(" lost on time: ").count(), 2, "{out}");
    assert!(
        out.contains("ms left on its clock (1+0.01, + 10 ms margin)")
            && out.contains("(the 2 losses on time left out)")
            && out.contains("forfeit 0  time 2\n"),
        "{out}"
    );
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["time_control"], "1+0.01");
    assert_eq!(v["endings"]["time"], 2, "{v}");
    for g in v["games"].as_array().unwrap() {
        let t = &g["termination"];
        assert_eq!(t["kind"], "time", "{g}");
        let engine_seat = if g["south_player"] == 0 { "S" } else { "N" };
        assert_eq!(t["loser"], engine_seat, "{g}");
        assert!(
            t["reason"].as_str().unwrap().contains("left on its clock"),
            "{g}"
        );
    }
    let records = std::fs::read_to_string(&pgn).unwrap();
    assert_eq!(
        records.matches("[Termination \"time forfeit: ").count(),
        2,
        "{records}"
    );
    assert_eq!(records.matches("[TimeControl \"1+0.01\"]").count(), 2);
    let csv = tmp("slow.csv");
    let (ok, _, err) = pussa(&[
        "tournament",
        &engine,
        "greedy",
        "-n",
        "1",
        "-q",
        "--tc",
        "0.5",
        "--force",
        "--results",
        csv.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let text = std::fs::read_to_string(&csv).unwrap();
    let row = text.lines().nth(1).unwrap();
    let fields: Vec<&str> = row.split(',').collect();
    assert_eq!((fields[3], fields[5]), ("0-1", "time"), "{row}");
    assert!(
        fields[6].starts_with("\"South: ") && fields[6].contains("left on its clock (0.5+0"),
        "{row}"
    );
}

/// Built-in players under a clock search with the engine's time management of it: they use
/// their time and stay inside it (no loss on time), and the run takes about the clocks' time.
#[test]
fn built_in_players_keep_to_their_clock() {
    let json = tmp("builtin.json");
    let started = std::time::Instant::now();
    let (ok, out, err) = pussa(&[
        "tournament",
        "search",
        "level:club",
        "-n",
        "2",
        "-q",
        "--concurrency",
        "2",
        "--tc",
        "3+0.1",
        "--force",
        "--results",
        json.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(
        out.contains("  time 0\n") && !out.contains("lost on time"),
        "{out}"
    );
    // Each game's clocks hold at most 2 × (3 s + moves × 0.1 s); far less than that is spent.
    assert!(started.elapsed().as_secs() < 60, "{:?}", started.elapsed());
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["endings"]["time"], 0, "{v}");
}

/// `--tc` is checked as the clock it names, and excludes the per-move limits.
#[test]
fn bad_time_controls_are_one_line_errors() {
    for (tc, needle) in [
        ("0+1", "the base time must be above 0"),
        ("x", "'x' is not a number of seconds"),
        ("60+-1", "increment '-1' is not a number of seconds"),
        ("1e3", "'1e3' is not a number of seconds"),
        ("0/60+1", "moves '0' is out of range 1..=1000"),
        ("86401", "is above 86400 seconds (a day)"),
        ("1.0001", "is finer than a millisecond"),
    ] {
        let (ok, _, err) = pussa(&["tournament", "greedy", "random", "--tc", tc]);
        assert!(!ok, "{tc}");
        assert!(err.contains(needle), "{tc}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    for other in [
        &["--movetime", "10"][..],
        &["--depth", "2"],
        &["--nodes", "100"],
        &["--engine-timeout", "1000"],
    ] {
        let mut args = vec!["tournament", "greedy", "random", "--tc", "1+0"];
        args.extend_from_slice(other);
        let (ok, _, err) = pussa(&args);
        assert!(
            !ok && err.contains("cannot be used with"),
            "{other:?}: {err}"
        );
    }
}

/// In a match under a clock, a built-in searching player's one-time match setup (the round
/// values, about half a second) is done before its clock starts, as an engine gets `newgame`
/// and `isready` first: the first searching player to move does not lose on time for it at a
/// clock shorter than the setup (a whole clock of 0.3 s). The increment, 0.3 s, gives the
/// moves after the first room on a loaded machine (at 0.1 s a loaded 2-core machine could lose
/// on time later in the game, on clocks of about 100 ms, which is not what this test is about).
#[test]
fn built_in_players_match_setup_is_not_charged_to_their_clock() {
    let (ok, out, err) = pussa(&[
        "tournament",
        "search",
        "greedy",
        "--match",
        "--max-rounds",
        "2",
        "--tc",
        "0.3+0.3",
        "-n",
        "2",
        "--concurrency",
        "1",
    ]);
    assert!(ok, "{err}");
    assert!(!out.contains("lost on time"), "{out}");
    let ended = out
        .lines()
        .find(|l| l.starts_with("ended:"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(ended.ends_with("time 0"), "{out}");
}

/// A `--tc` run keeps the clocks: the records have each timed move's clock left as a
/// `{[%clk h:mm:ss.mmm]}` comment (none for the untimed random opening), the CSV the time
/// control and each seat's clock at the end, and the JSON each game's `clock_ms` (a clock a
/// timed move) and `final_clock_ms`, for built-in players as for engines. Without `--tc` none
/// of them is there.
#[test]
fn a_clocked_run_records_the_clocks() {
    let pgn = tmp("clocks.pgn");
    let csv = tmp("clocks.csv");
    let json = tmp("clocks.json");
    for (out, tc) in [(&csv, true), (&json, true), (&csv, false)] {
        let mut args = vec![
            "tournament",
            "nodes:2000",
            "greedy",
            "-n",
            "2",
            "-q",
            "--force",
        ];
        if tc {
            args.extend(["--tc", "10+0.1"]);
        }
        let (pgn_s, out_s) = (pgn.display().to_string(), out.display().to_string());
        args.extend(["--pgn", &pgn_s, "--results", &out_s]);
        let (ok, _, err) = pussa(&args);
        assert!(ok, "{err}");
        let records = std::fs::read_to_string(&pgn).unwrap();
        let text = std::fs::read_to_string(out).unwrap();
        if out == &json {
            let v: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(v["time_control"], "10+0.1");
            for g in v["games"].as_array().unwrap() {
                let timed =
                    g["moves"].as_array().unwrap().len() - g["opening"].as_array().unwrap().len();
                let clocks = g["clock_ms"].as_array().unwrap();
                assert_eq!(clocks.len(), timed, "{g}");
                assert!(clocks.iter().all(|c| c.as_f64().unwrap() > 9000.0), "{g}");
                let last = g["final_clock_ms"].as_array().unwrap();
                assert_eq!(last.len(), 2, "{g}");
            }
            continue;
        }
        let mut lines = text.lines();
        assert!(lines.next().unwrap().ends_with(
            ",south_overruns,north_overruns,time_control,south_clock_ms,north_clock_ms,game_name,index"
        ));
        for row in lines {
            // The clock columns, before the game's name and index.
            let last: Vec<&str> = row.rsplit(',').skip(2).take(3).collect();
            if tc {
                assert_eq!(last[2], "10+0.1", "{row}");
                for c in &last[..2] {
                    assert!(c.parse::<f64>().unwrap() > 9000.0, "{row}");
                }
            } else {
                assert_eq!(last, ["", "", ""], "{row}");
            }
        }
        let clk = records.matches("[%clk").count();
        if tc {
            // Two games, each with the opening's 4 plies untimed and one clock a timed move.
            let plies: usize = text
                .lines()
                .skip(1)
                .map(|r| r.split(',').nth(7).unwrap().parse::<usize>().unwrap() - 4)
                .sum();
            assert_eq!(clk, plies, "{records}");
            assert!(
                records.contains("{end of the random opening} 3."),
                "{records}"
            );
        } else {
            assert_eq!(clk, 0, "{records}");
        }
    }
}
