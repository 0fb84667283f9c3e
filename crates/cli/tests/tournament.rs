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
    assert!(rows[0].starts_with("number,south,north,result"));
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

/// The fields of a CSV row (quoted fields may hold commas; `""` is a quote).
fn csv_fields(row: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut quoted = false;
    let mut chars = row.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
                out.last_mut().unwrap().push('"');
            }
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(String::new()),
            c => out.last_mut().unwrap().push(c),
        }
    }
    out
}

/// The CSV results spell what the JSON results hold as the JSON does (QA pass 21, interop #5):
/// `first_mover` `S`/`N`, `game` the game's name, `index` from 0, and `number` (from 1, as the
/// records' `Number` tag); the header is docs/engine.md's list.
#[test]
fn csv_results_spell_values_as_the_json_results_do() {
    let (csv, json) = (tmp("spell.csv"), tmp("spell.json"));
    for out in [&csv, &json] {
        let (ok, _, err) = pussa(&[
            "tournament",
            "level:beginner",
            "level:novice",
            "--game",
            "pasu-pondi",
            "--match",
            "--games",
            "2",
            "--max-rounds",
            "3",
            "--seed",
            "1",
            "--quiet",
            "--force",
            "--results",
            out.to_str().unwrap(),
        ]);
        assert!(ok, "{err}");
    }
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    assert_eq!(
        header,
        "number,south,north,result,first_player_score,termination,reason,plies,rounds,\
         south_seeds,north_seeds,opening,moves,final_position,exact_margin,first_mover,\
         first_mover_score,ending,south_overruns,north_overruns,time_control,south_clock_ms,\
         north_clock_ms,game_name,index"
    );
    let names: Vec<&str> = header.split(',').collect();
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let games = v["games"].as_array().unwrap();
    let rows: Vec<Vec<String>> = lines.map(csv_fields).collect();
    assert_eq!(rows.len(), games.len());
    for (row, g) in rows.iter().zip(games) {
        assert_eq!(row.len(), names.len(), "{row:?}");
        let col = |name: &str| row[names.iter().position(|n| *n == name).unwrap()].as_str();
        assert_eq!(col("game_name"), "pasu-pondi");
        assert_eq!(col("game_name"), v["game"]);
        assert_eq!(col("index"), g["index"].to_string());
        assert_eq!(
            col("number"),
            (g["index"].as_u64().unwrap() + 1).to_string()
        );
        assert_eq!(col("first_mover"), g["first_mover"], "{row:?}");
        assert!(["S", "N"].contains(&col("first_mover")), "{row:?}");
        assert_eq!(col("termination"), g["termination"]["kind"], "{row:?}");
        assert_eq!(col("final_position"), g["final_position"]);
        assert_eq!(col("rounds"), g["rounds"].to_string());
        assert_eq!(col("south_seeds"), g["stores"][0].to_string());
        assert_eq!(col("north_seeds"), g["stores"][1].to_string());
        assert_eq!(
            col("plies"),
            g["moves"].as_array().unwrap().len().to_string()
        );
        let result = match g["winner"].as_str().unwrap() {
            "S" => "1-0",
            "N" => "0-1",
            _ => "1/2-1/2",
        };
        assert_eq!(col("result"), result, "{row:?}");
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

/// An engine that cannot start (a wrong path, one that exits, hangs or only chatters before
/// `pussaok`) is refused before the first game with one line naming the reason, and the exit
/// status says so: such a run used to "finish" as forfeits with a status of 0. The engine's
/// last stderr lines are part of the reason.
#[test]
fn engines_that_cannot_start_are_refused_before_the_first_game() {
    let csv = tmp("broken.csv");
    for (spec, reason) in [
        // Exited after its banner (quoted whether the exit is seen on writing or reading).
        ("engine:sh -c \"echo garbage\"", "'garbage'"),
        ("engine:true", "exited"),
        ("engine:sleep 30", "timed out: no 'pussaok' within 500 ms"),
        (
            "engine:sh -c \"while :; do echo info string thinking; sleep 0.01; done\"",
            "timed out",
        ),
        ("engine:/nonexistent/engine", "cannot start engine"),
        (
            "engine:sh -c \"echo cannot load nn.bin >&2; exit 3\"",
            "its stderr ended: 'cannot load nn.bin'",
        ),
    ] {
        let _ = std::fs::remove_file(&csv);
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
            "--engine-start-timeout",
            "500",
            "--results",
            csv.to_str().unwrap(),
            // Each run writes over the last one's results.
            "--force",
        ]);
        assert!(!ok, "{spec}: {out}");
        assert!(
            t.elapsed() < std::time::Duration::from_secs(20),
            "{spec} took {:?}",
            t.elapsed()
        );
        assert!(out.is_empty(), "{spec}: {out}");
        assert_eq!(err.lines().count(), 1, "{spec}: {err}");
        assert!(
            err.starts_with("error: player 2 engine:") && err.contains(reason),
            "{spec}: {err}"
        );
        assert!(!csv.exists(), "{spec}: no game, no file");
    }
}

/// A correct engine that takes longer to start than a move may take still plays: the start
/// has its own timeout (the answers during play used to time out at 3 × movetime + 1 s).
/// Lines that are not the protocol's (a banner) are skipped, as UCI managers do.
#[test]
fn a_slow_starting_chatty_engine_plays() {
    let engine = format!(
        "engine:sh -c \"echo hello there, this is a banner; sleep 1.5; echo debug: loaded; exec {} engine\"",
        env!("CARGO_BIN_EXE_pussa")
    );
    let (ok, out, err) = pussa(&[
        "tournament",
        &engine,
        "greedy",
        "--games",
        "2",
        "--movetime",
        "20",
        "--concurrency",
        "1",
        "--quiet",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains(" forfeit 0"), "no game forfeited: {out}");
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
    // Crashes during play: the reason quotes its stderr.
    let crashes = sh_engine(
        "crashes.sh",
        "echo 'RuntimeError: network file nn.bin not found' >&2; exit 1",
    );
    // `bestmove` without a move, quoted as sent.
    let bare = sh_engine("bare.sh", "echo bestmove");
    for (script, reason) in [
        (
            &crashes,
            "engine exited (exit status: 1) while we waited for 'bestmove'; its stderr ended: \
             'RuntimeError: network file nn.bin not found'",
        ),
        (&bare, "engine said 'bestmove' without a move"),
        (&endless, "a line longer than 65536 bytes"),
        (
            &glued,
            "no 'bestmove' within 1000 ms (its last line was 'bestmoveA')",
        ),
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
        // Forfeits are not seat or length statistics.
        assert!(
            out.contains("the 0 games played out (the 2 forfeits left out)")
                && !out.contains("first mover (")
                && !out.contains("plies a game"),
            "{out}"
        );
        // Both games lost the same way: no spread, yet an interval (Agresti–Coull, as for any
        // results) for games and pairs: 2 wins of 2, at least 0.290 (-155.4); 1 pair won 2-0,
        // at least 0.167 (-278.5).
        assert!(
            out.contains("elo +inf  95% interval [-155.4, +inf]\n")
                && out.contains("elo by pairs +inf  95% interval [-278.5, +inf]\n"),
            "{out}"
        );
    }
    if std::path::Path::new("/proc/self/cmdline").exists() {
        // The tournament sends SIGKILL to the engine's process group before it exits; the
        // kernel ends the grandchild a moment later (at once on an idle machine, after its
        // next schedule on a loaded one). So wait, a while, for the end, rather than look once.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while processes(&["sleep", "987"]) > 0 && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        assert_eq!(
            processes(&["sleep", "987"]),
            0,
            "the hung engine's child outlived the tournament by 10 s"
        );
    }
}

/// An engine that prints one line over the 64 KiB line limit (a long `info string`) and then
/// a legal move loses the game, as docs/protocol.md ("Writing a manager") and README say: the
/// manager reads no more of its output. (README worded it as if it were only an overrun.)
#[test]
fn a_line_over_64_kib_loses_the_game_even_with_a_legal_move_after_it() {
    let long = sh_engine(
        "longline.sh",
        "printf 'info string %070000d\\n' 0; echo bestmove A",
    );
    let spec = format!("engine:sh {}", long.display());
    let csv = tmp("longline.csv");
    let (ok, out, err) = pussa(&[
        "tournament",
        "random",
        &spec,
        "--games",
        "2",
        "--quiet",
        "--concurrency",
        "1",
        "--force",
        "--results",
        csv.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert_eq!(wdl(&out), (2, 0, 0), "{out}");
    assert_eq!(
        out.matches(
            "forfeited: engine printed a line longer than 65536 bytes while we waited for 'bestmove'"
        )
        .count(),
        2,
        "{out}"
    );
    let text = std::fs::read_to_string(&csv).unwrap();
    for row in text.lines().skip(1) {
        assert_eq!(row.split(',').nth(5), Some("forfeit"), "{row}");
    }
    // The docs list it with what loses a game (README's "So does one that prints a line
    // over 64 KiB" followed the overruns, which play on).
    for (doc, says) in [
        (
            "README.md",
            "names something that is not a legal move, prints a line over 64 KiB",
        ),
        (
            "docs/protocol.md",
            "prints a line longer than the 64 KiB line limit",
        ),
    ] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(doc);
        let text = std::fs::read_to_string(path).unwrap();
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(text.contains(says), "{doc} does not say '{says}'");
        assert!(!text.contains("So does one that prints"), "{doc}");
    }
}

/// An external engine is named by its `id name` in the summary, the records' South and North
/// tags, the CSV and the JSON (which keeps the command in `specs`); two players of one name
/// are told apart by their number, and `--name1`/`--name2` name a player (the name was the
/// command line everywhere, and nothing could name a player).
#[test]
fn engine_players_are_named_by_their_id_name_or_the_name_given() {
    let pussa_bin = env!("CARGO_BIN_EXE_pussa");
    let engine = format!("engine:\"{pussa_bin} engine\"");
    let id = format!("pussa {}", env!("CARGO_PKG_VERSION"));
    let pgn = tmp("names.pgn");
    let json = tmp("names.json");
    let csv = tmp("names.csv");
    let run = |extra: &[&str], second: &str, results: &std::path::Path| {
        let mut args = vec![
            "tournament",
            &engine,
            second,
            "-n",
            "2",
            "--depth",
            "1",
            "-q",
            "--force",
            "--pgn",
            pgn.to_str().unwrap(),
            "--results",
            results.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let (ok, out, err) = pussa(&args);
        assert!(ok, "{err}");
        out
    };
    // Both engines say the same `id name`: told apart by their number.
    let out = run(&[], &engine, &json);
    let (one, two) = (format!("{id} (1)"), format!("{id} (2)"));
    assert!(
        out.starts_with(&format!("{one} vs {two}: walak-pussa single games")),
        "{out}"
    );
    assert!(
        out.contains(&format!("player 1 {one}: {engine}\n"))
            && out.contains(&format!("player 2 {two}: {engine}\n")),
        "{out}"
    );
    let records = std::fs::read_to_string(&pgn).unwrap();
    assert!(
        records.contains(&format!("[South \"{one}\"]\n[North \"{two}\"]"))
            && records.contains(&format!("[South \"{two}\"]\n[North \"{one}\"]")),
        "{records}"
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["players"], serde_json::json!([one, two]));
    assert_eq!(v["specs"], serde_json::json!([engine, engine]));
    // A name given overrides the engine's; the other player keeps its own.
    let out = run(
        &["--name1", "new build", "--name2", " Greedy "],
        "greedy",
        &csv,
    );
    assert!(
        out.starts_with("new build vs Greedy: ")
            && out.contains("player 2 Greedy: greedy-most-held\n"),
        "{out}"
    );
    let rows = std::fs::read_to_string(&csv).unwrap();
    let rows: Vec<&str> = rows.lines().collect();
    assert!(rows[1].starts_with("1,new build,Greedy,"), "{}", rows[1]);
    assert!(rows[2].starts_with("2,Greedy,new build,"), "{}", rows[2]);
    // The engine's own name with a built-in player: no number needed.
    let out = run(&[], "greedy", &json);
    assert!(
        out.starts_with(&format!("{id} vs greedy-most-held: ")),
        "{out}"
    );
    assert!(
        !out.contains("player 2 greedy-most-held: greedy-most-held"),
        "{out}"
    );
    // An empty name is refused.
    let (ok, _, err) = pussa(&["tournament", "greedy", "random", "--name1", " "]);
    assert!(
        !ok && err.contains("a player's name cannot be empty"),
        "{err}"
    );
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
            "invalid value '2000' for '--depth <DEPTH>': 2000 is not in 1..=1000",
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
            "invalid value '0' for '--max-rounds <MAX_ROUNDS>': 0 is not in 1..=4294967295",
        ),
        (
            vec!["tournament", "random", "random", "--concurrency", "0"],
            "invalid value '0' for '--concurrency <CONCURRENCY>': 0 is not in 1..=256",
        ),
        (
            vec!["tournament", "random", "random", "--engine-timeout", "0"],
            "invalid value '0' for '--engine-timeout <MS>': 0 is not in 1..=86400000",
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
        // The same range for too few and too many games.
        (
            vec!["tournament", "random", "random", "-n", "0"],
            "0 is not in 1..=4294967295",
        ),
        (
            vec!["tournament", "random", "random", "-n", "99999999999"],
            "99999999999 is too large (at most 4294967295)",
        ),
        (
            vec![
                "tournament",
                "random",
                "random",
                "--movetime",
                "3000",
                "--engine-timeout",
                "100",
            ],
            "--engine-timeout 100 is not above --movetime 3000",
        ),
        (
            vec![
                "tournament",
                "random",
                "random",
                "--engine-start-timeout",
                "0",
            ],
            "invalid value '0' for '--engine-start-timeout <MS>': 0 is not in 1..=86400000",
        ),
        (
            vec!["tournament", "mcts+tables", "random"],
            "mcts does not use endgame tables",
        ),
        // An engine that cannot start is refused before the first game, not played as
        // forfeits with a status of 0.
        (
            vec!["tournament", "engine:/no/such/engine", "random", "-n", "4"],
            "player 1 engine:\"/no/such/engine\": cannot start engine '/no/such/engine'",
        ),
        (
            vec!["tournament", "random", "engine:/", "-n", "4"],
            "player 2 engine:\"/\": cannot start engine '/'",
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

/// The SPRT is fishtest's pentanomial GSPRT: it is checked on complete pairs only, and the
/// run ends on a complete pair (it used to stop after any game, leaving half a pair). Its
/// ratio is the one of the pairs in the results.
#[test]
fn sprt_stops_a_lopsided_run_early_on_complete_pairs() {
    for concurrency in ["1", "2"] {
        let json = tmp(&format!("sprt-{concurrency}.json"));
        let (ok, out, err) = pussa(&[
            "tournament",
            "level:club",
            "random",
            "--games",
            "400",
            "--concurrency",
            concurrency,
            "--quiet",
            "--sprt",
            "0,100,0.05,0.05",
            "--results",
            json.to_str().unwrap(),
        ]);
        assert!(ok, "{err}");
        assert!(out.contains("stopped by the SPRT"), "{out}");
        assert!(out.contains("H1 accepted"), "{out}");
        let (w, d, l) = wdl(&out);
        assert!(w + d + l < 400);
        assert_eq!((w + d + l) % 2, 0, "{out}");
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        let pairs: u64 = v["pairs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_u64().unwrap())
            .sum();
        assert_eq!(pairs * 2, u64::from(w + d + l));
        assert_eq!(v["sprt"], "accept_h1");
        assert_eq!(v["sprt_games"].as_u64().unwrap() % 2, 0);
        assert!(v["sprt_model"].as_str().unwrap().contains("pentanomial"));
        // `llr` is the ratio of `sprt_pairs`, the pairs when the bound was crossed, which
        // count `sprt_games`; `pairs` may hold more (pairs under way then, with concurrency).
        let counts = |key: &str| -> [u32; 5] {
            let list: Vec<u32> = v[key]
                .as_array()
                .unwrap_or_else(|| panic!("{key}: {v}"))
                .iter()
                .map(|p| u32::try_from(p.as_u64().unwrap()).unwrap())
                .collect();
            list.try_into().unwrap()
        };
        let (at, all) = (counts("sprt_pairs"), counts("pairs"));
        assert_eq!(
            2 * u64::from(at.iter().sum::<u32>()),
            v["sprt_games"].as_u64().unwrap()
        );
        assert!(at.iter().zip(all).all(|(a, b)| *a <= b), "{v}");
        let sprt = pussa_engine::tournament::Sprt::parse("0,100,0.05,0.05").unwrap();
        let llr = sprt.llr(&pussa_engine::tournament::Pentanomial(at));
        assert!((v["llr"].as_f64().unwrap() - llr).abs() < 1e-9, "{v}");
    }
    // Every pair 1-1 (the seat decides every game): strong evidence of equal strength, which
    // the game-by-game model could not see.
    let (ok, out, err) = pussa(&[
        "tournament",
        "random",
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
    assert!(out.contains("H0 accepted"), "{out}");
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
    // The same player twice: told apart by their number; `specs` as given.
    assert_eq!(v["players"][0], "mcts (1)", "{v}");
    assert_eq!(v["specs"][0], "mcts", "{v}");
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
        &format!(
            "error: --pgn and --results name the same file {s} (one would write over the other)"
        ),
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

/// Records and CSV rows are appended as games finish and the JSON is rewritten every few
/// seconds, not every file rewritten whole after every game (4000 fast games took minutes):
/// the files hold every game, once, in game order at the end.
#[test]
fn files_are_written_in_linear_time_and_whole_at_the_end() {
    let pgn = tmp("linear.pgn");
    let csv = tmp("linear.csv");
    let t = std::time::Instant::now();
    let (ok, out, err) = pussa(&[
        "tournament",
        "random",
        "greedy",
        "-n",
        "4000",
        "--concurrency",
        "2",
        "--quiet",
        "--pgn",
        pgn.to_str().unwrap(),
        "--results",
        csv.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(
        t.elapsed() < std::time::Duration::from_secs(60),
        "took {:?}",
        t.elapsed()
    );
    let (w, d, l) = wdl(&out);
    assert_eq!(w + d + l, 4000);
    let text = std::fs::read_to_string(&csv).unwrap();
    let numbers: Vec<u32> = text
        .lines()
        .skip(1)
        .map(|r| r.split(',').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(numbers, (1..=4000).collect::<Vec<_>>());
    let records = std::fs::read_to_string(&pgn).unwrap();
    let tags: Vec<u32> = records
        .lines()
        .filter_map(|l| l.strip_prefix("[Number \""))
        .map(|n| n.trim_end_matches("\"]").parse().unwrap())
        .collect();
    assert_eq!(tags, (1..=4000).collect::<Vec<_>>());
}

/// Stopped by SIGINT, a run writes the files of its finished games (the records, the JSON,
/// all the same games) and prints their summary, marked as partial, before the error line;
/// it used to print the error line only.
#[test]
fn an_interrupted_run_prints_its_partial_summary_and_whole_files() {
    let json = tmp("int.json");
    let pgn = tmp("int.pgn");
    let child = Command::new(env!("CARGO_BIN_EXE_pussa"))
        .args([
            "tournament",
            "level:casual",
            "search",
            "--movetime",
            "20",
            "-n",
            "400",
            "--concurrency",
            "1",
            "--results",
        ])
        .arg(&json)
        .arg("--pgn")
        .arg(&pgn)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run pussa");
    // Until a few games are in the records.
    assert!(eventually(120, || std::fs::read_to_string(&pgn)
        .is_ok_and(|t| t.matches("[Event ").count() >= 3)));
    let sent = Command::new("kill")
        .args(["-INT".to_string(), child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr
            .trim_end()
            .ends_with("error: tournament stopped by SIGINT"),
        "{stderr}"
    );
    assert!(
        stdout.contains("games finished (partial: the run was stopped by SIGINT)"),
        "{stdout}"
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["finished"], false);
    let games = v["games"].as_array().unwrap().len();
    let records = std::fs::read_to_string(&pgn).unwrap();
    assert_eq!(records.matches("[Event ").count(), games);
    let (w, d, l) = wdl(&stdout);
    assert_eq!((w + d + l) as usize, games, "{stdout}");
    assert!(
        stdout.contains(&format!(", {games} games finished")),
        "{stdout}"
    );
}

/// Without a terminal on stderr (nohup, CI) a run prints plain progress lines there, the
/// last when it ends; the bar is for terminals only.
#[test]
fn progress_lines_without_a_terminal() {
    let (ok, _, err) = pussa(&["tournament", "random", "greedy", "-n", "6"]);
    assert!(ok, "{err}");
    assert!(err.contains("6/6 games finished  +"), "{err}");
    let (ok, _, err) = pussa(&["tournament", "random", "greedy", "-n", "6", "-q"]);
    assert!(ok);
    assert!(err.is_empty(), "{err}");
}

/// Settings that change nothing are named: per-move limits when neither player uses them,
/// --max-rounds in single games, and random openings that run to the end of the round.
#[test]
fn settings_that_apply_to_neither_player_are_warned_about() {
    let (ok, _, err) = pussa(&[
        "tournament",
        "level:club",
        "greedy",
        "-n",
        "2",
        "-q",
        "--movetime",
        "5000",
        "--max-rounds",
        "5",
        "--random-opening",
        "200",
    ]);
    assert!(ok, "{err}");
    for needle in [
        "warning: --movetime applies to neither player",
        "warning: --max-rounds applies to matches only",
        "warning: --random-opening 200: in 1 of 1 pairs the random moves reach the end of the round",
    ] {
        assert!(err.contains(needle), "{needle}: {err}");
    }
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
    assert!(ok, "{err}");
    assert!(err.is_empty(), "{err}");
}

/// `pussa replay --record FILE --game-number N` replays one game of a tournament's records
/// file (it could read a file of one record only), and ends where the results say.
#[test]
fn replay_reads_one_game_of_a_records_file() {
    let pgn = tmp("replay.pgn");
    let json = tmp("replay.json");
    let (ok, _, err) = pussa(&[
        "tournament",
        "level:novice",
        "greedy",
        "-n",
        "6",
        "-q",
        "--pgn",
        pgn.to_str().unwrap(),
        "--results",
        json.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    for n in 1..=6u32 {
        let (ok, out, err) = pussa(&[
            "replay",
            "--record",
            pgn.to_str().unwrap(),
            "--game-number",
            &n.to_string(),
            "--json",
        ]);
        assert!(ok, "{n}: {err}");
        let last: serde_json::Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
        let g = &v["games"][n as usize - 1];
        assert_eq!(last["winner"], g["winner"], "game {n}");
        assert_eq!(last["stores"], serde_json::json!(g["stores"]), "game {n}");
    }
    let (ok, _, err) = pussa(&[
        "replay",
        "--record",
        pgn.to_str().unwrap(),
        "--game-number",
        "7",
    ]);
    assert!(!ok);
    assert!(
        err.starts_with("error: record ") && err.contains(": no game number 7"),
        "{err}"
    );
    let (ok, _, err) = pussa(&["replay", "--record", pgn.to_str().unwrap()]);
    assert!(!ok);
    assert!(
        err.contains("(pick one game with --game-number N)"),
        "{err}"
    );
}

/// Stopped before any game finished, the summary and the JSON make up no score or Elo (they
/// said 0.500 and +0.0, the JSON 0.5 and 0.0).
#[test]
fn a_run_stopped_before_any_game_claims_no_score() {
    let json = tmp("nogame.json");
    let child = Command::new(env!("CARGO_BIN_EXE_pussa"))
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
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run pussa");
    assert!(eventually(60, || std::fs::read_to_string(&json)
        .is_ok_and(|t| t.contains("\"finished\": false"))));
    let sent = Command::new("kill")
        .args(["-TERM".to_string(), child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(143));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("0 games finished (partial: the run was stopped by SIGTERM)")
            && stdout.contains("no score or elo without games")
            && !stdout.contains("0.500")
            && !stdout.contains("elo +0.0"),
        "{stdout}"
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert!(v["score"].is_null() && v["elo"].is_null(), "{v}");
    assert_eq!(v["finished"], false);
}

/// A `--pgn` (or CSV `--results`) that is a device or a pipe cannot be written again at the
/// end: when its records could not be written, the run ends with an error and exit 1, as a
/// `--results` or `--plot` that cannot be written does.
#[test]
#[cfg(target_os = "linux")]
fn records_that_cannot_be_written_to_a_device_end_the_run_with_an_error() {
    for option in ["--pgn", "--results"] {
        let out = Command::new(env!("CARGO_BIN_EXE_pussa"))
            .args(["tournament", "random", "random", "-n", "2", "-q", "--force"])
            .args([option, "/dev/full"])
            .output()
            .expect("run pussa");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{option}: {err}");
        assert!(
            err.lines().last().is_some_and(
                |l| l.starts_with("error: cannot write /dev/full: No space left on device")
            ),
            "{option}: {err}"
        );
        assert!(!err.contains("tried again at the end"), "{option}: {err}");
    }
    // A regular file still ends with exit 0.
    let pgn = tmp("device-ok.txt");
    let out = Command::new(env!("CARGO_BIN_EXE_pussa"))
        .args(["tournament", "random", "random", "-n", "2", "-q", "--force"])
        .args(["--pgn", pgn.to_str().unwrap()])
        .output()
        .expect("run pussa");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// An engine's bytes are quoted escaped in a forfeit's reason: its escape sequences (clear
/// the screen, set the window title), BEL and NUL never reach the terminal as they came.
#[test]
fn an_engines_control_bytes_are_quoted_escaped() {
    let esc = sh_engine(
        "esc.sh",
        r"printf 'bestmove \033[2J\033]0;pwned\007\001\n'; printf 'oops \033[31mred\n' >&2",
    );
    let spec = format!("engine:sh {}", esc.display());
    let (ok, out, err) = pussa(&[
        "tournament",
        &spec,
        "random",
        "--games",
        "2",
        "--quiet",
        "--concurrency",
        "1",
    ]);
    assert!(ok, "{spec}: {err}");
    assert_eq!(out.matches("forfeited").count(), 2, "{out}");
    assert!(
        out.contains(r"engine said 'bestmove \x1b[2J\x1b]0;pwned\x07\x01', which is not a move"),
        "{out}"
    );
    assert!(
        out.contains(r"its stderr ended: 'oops \x1b[31mred'"),
        "{out}"
    );
    assert!(
        !out.chars().any(|c| c.is_control() && c != '\n'),
        "a control character reached the output: {out:?}"
    );
}

/// `--pgn`, `--results` and `--plot` write through the names they are given: a symbolic link
/// stays a link and its target gets the games (the end-of-run rewrite used to rename a new
/// file over the link, even over `/dev/stdout`); a link to this process's stdout
/// (`/proc/self/fd/1`, what `/dev/stdout` is) gets the records on stdout, before the summary;
/// a hard-linked file stays one file; and two options naming one file through a link are
/// refused.
#[cfg(unix)]
#[test]
fn outputs_write_through_links_and_never_replace_them() {
    let dir = tmp("links");
    std::fs::create_dir_all(&dir).unwrap();
    let p = |n: &str| dir.join(n).to_str().unwrap().to_string();
    let link_type = |n: &str| std::fs::symlink_metadata(dir.join(n)).unwrap().file_type();
    for (real, link) in [
        ("real.pgn", "link.pgn"),
        ("real.csv", "link.csv"),
        ("real.svg", "link.svg"),
    ] {
        std::fs::write(dir.join(real), "").unwrap();
        std::os::unix::fs::symlink(dir.join(real), dir.join(link)).unwrap();
    }
    let args = |extra: &[String]| {
        let mut a: Vec<String> = ["tournament", "random", "random", "-n", "3", "-q", "--force"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        a.extend_from_slice(extra);
        a
    };
    let run = |a: Vec<String>| {
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        pussa(&a)
    };
    let (ok, _, err) = run(args(&[
        "--pgn".into(),
        p("link.pgn"),
        "--results".into(),
        p("link.csv"),
        "--plot".into(),
        p("link.svg"),
    ]));
    assert!(ok, "{err}");
    for (real, link) in [
        ("real.pgn", "link.pgn"),
        ("real.csv", "link.csv"),
        ("real.svg", "link.svg"),
    ] {
        assert!(link_type(link).is_symlink(), "{link} was replaced");
        let text = std::fs::read_to_string(dir.join(real)).unwrap();
        assert!(!text.is_empty(), "{real} got nothing");
    }
    let pgn = std::fs::read_to_string(dir.join("real.pgn")).unwrap();
    assert_eq!(pgn.matches("[Event ").count(), 3, "{pgn}");
    // A private link to this process's stdout, as /dev/stdout is (never /dev/stdout itself).
    std::os::unix::fs::symlink("/proc/self/fd/1", dir.join("mystdout")).unwrap();
    let out_file = dir.join("out.txt");
    let out = Command::new(env!("CARGO_BIN_EXE_pussa"))
        .args(args(&["--pgn".into(), p("mystdout")]))
        .stdout(std::fs::File::create(&out_file).unwrap())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        link_type("mystdout").is_symlink(),
        "the stdout link was replaced"
    );
    let text = std::fs::read_to_string(&out_file).unwrap();
    assert_eq!(text.matches("[Event ").count(), 3, "{text}");
    let records_end = text.rfind("[Event ").unwrap();
    let summary = text.find("random (1) vs random (2)").unwrap();
    assert!(
        records_end < summary,
        "the summary is not after the records: {text}"
    );
    // A hard link: the two names still name one file, holding the games.
    std::fs::write(dir.join("hard.pgn"), "").unwrap();
    std::fs::hard_link(dir.join("hard.pgn"), dir.join("hard2.pgn")).unwrap();
    let (ok, _, err) = run(args(&["--pgn".into(), p("hard.pgn")]));
    assert!(ok, "{err}");
    let other = std::fs::read_to_string(dir.join("hard2.pgn")).unwrap();
    assert_eq!(other.matches("[Event ").count(), 3, "{other}");
    // Two options naming one file, through a link to a file not made yet, or a hard link.
    std::os::unix::fs::symlink(dir.join("new.pgn"), dir.join("to-new")).unwrap();
    for (a, b) in [("new.pgn", "to-new"), ("hard.pgn", "hard2.pgn")] {
        let (ok, _, err) = run(args(&["--pgn".into(), p(a), "--results".into(), p(b)]));
        assert!(!ok && err.contains("name the same file"), "{a} {b}: {err}");
    }
    assert!(!dir.join("new.pgn").exists());
}

/// QA pass 17, review-engine #1: the manager sent the whole match before every move
/// (`position startpos … moves <every move>`, 2 bytes a ply), and past about 32,750 plies the
/// line went over the protocol's 64 KiB limit: the engine skipped it with an error and forfeited
/// every long match. Two equal players' Walak-pussa match never ends (about 20 plies a round);
/// at 1,700 rounds it is now drawn at the round limit, not forfeited.
#[test]
fn a_long_match_with_an_external_engine_is_not_forfeited_on_the_line_length() {
    let engine = format!("engine:\"{} engine\"", env!("CARGO_BIN_EXE_pussa"));
    let json = tmp("long-match.json");
    let (ok, out, err) = pussa(&[
        "tournament",
        &engine,
        "search",
        "--match",
        "--game",
        "walak-pussa",
        "--max-rounds",
        "1700",
        "--games",
        "1",
        "--nodes",
        "300",
        "--quiet",
        "--results",
        json.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(out.contains(" forfeit 0"), "{out}");
    assert!(out.contains("round limit 1"), "{out}");
    // Long enough that the whole match's moves would not have fitted in a line.
    let plies: u64 = out
        .lines()
        .find_map(|l| l.strip_prefix("plies a game: mean "))
        .and_then(|l| l.split(['.', ' ']).next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{out}"));
    assert!(plies * 2 > 65_536, "{plies} plies: {out}");
}

/// QA pass 17, second pass, review-engine #2: from round 2 of a match the manager sent
/// `position fen … starts …`, which an engine of the earlier protocol (pussa's previous build
/// among them) refuses: it forfeited every match. An engine that does not read `starts` (here
/// pussa's engine behind a filter that refuses it as the earlier build did) now plays matches
/// through their rounds: the manager sends `position startpos … moves <every move>` while that
/// fits in the line limit (the compact form past it: protocol::tests).
#[test]
fn an_engine_of_the_earlier_protocol_plays_matches_across_rounds() {
    let log = tmp("earlier-protocol.log");
    let _ = std::fs::remove_file(&log);
    let script = tmp("earlier-protocol.sh");
    std::fs::write(
        &script,
        format!(
            "exec 3>&1\n\
             while IFS= read -r l; do\n\
               printf '%s\\n' \"$l\" >> '{log}'\n\
               case \"$l\" in\n\
                 *' starts '*) echo 'info string error: position: expected 6 or 7 fields' >&3;;\n\
                 *) printf '%s\\n' \"$l\";;\n\
               esac\n\
             done | exec '{pussa}' engine\n",
            log = log.display(),
            pussa = env!("CARGO_BIN_EXE_pussa"),
        ),
    )
    .unwrap();
    let csv = tmp("earlier-protocol.csv");
    let (ok, out, err) = pussa(&[
        "tournament",
        &format!("engine:sh {}", script.display()),
        "greedy",
        "--match",
        "--game",
        "raja-pasu",
        "--games",
        "2",
        "--depth",
        "2",
        "--quiet",
        "--results",
        csv.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(out.contains(" forfeit 0"), "no game forfeited: {out}");
    let text = std::fs::read_to_string(&csv).unwrap();
    for row in text.lines().skip(1) {
        let rounds: u32 = row.split(',').nth(8).unwrap().parse().unwrap();
        assert!(rounds > 1, "{row}");
    }
    let sent = std::fs::read_to_string(&log).unwrap();
    let positions: Vec<&str> = sent.lines().filter(|l| l.starts_with("position")).collect();
    assert!(positions.len() > 10, "{sent}");
    assert!(
        positions
            .iter()
            .all(|l| l.starts_with("position startpos first S")),
        "{positions:?}"
    );
}

/// A match forfeited on the first move of a round ends with the round before it: the results'
/// final position, stores and rounds are that round's end, swept, with the holdings in the
/// stores, as `pussa replay` of the tournament's own record ends it (they were the next round's
/// layout: QA pass 21). The engine (North, who starts round 2 of a Pasu Pondi match: the
/// starters alternate) plays legal moves in round 1 and South's `A` in round 2.
#[test]
fn a_match_forfeited_on_a_rounds_first_move_ends_with_the_round_before() {
    let script = tmp("forfeits-round-2.sh");
    std::fs::write(
        &script,
        format!(
            "P='{}'\n\
             while read -r l; do case \"$l\" in\n\
             pussa) echo pussaok;; isready) echo readyok;;\n\
             newgame*) g=\"$l\";; position*) p=\"$l\";;\n\
             go*) out=$(printf '%s\\n%s\\nd\\nquit\\n' \"$g\" \"$p\" | \"$P\" engine)\n\
             round=$(echo \"$out\" | sed -n 's/^fen //p' | cut -d' ' -f5)\n\
             if [ \"$round\" = 1 ]; then echo \"bestmove $(echo \"$out\" | sed -n 's/^legal //p' | cut -d' ' -f1)\"; else echo 'bestmove A'; fi;;\n\
             quit) exit 0;; esac; done\n",
            env!("CARGO_BIN_EXE_pussa")
        ),
    )
    .unwrap();
    let pgn = tmp("forfeit-round-start.pgn");
    let json = tmp("forfeit-round-start.json");
    let spec = format!("engine:sh {}", script.display());
    let (ok, _, err) = pussa(&[
        "tournament",
        "greedy",
        &spec,
        "--game",
        "pasu-pondi",
        "--match",
        "--games",
        "1",
        "--max-rounds",
        "5",
        "--quiet",
        "--force",
        "--pgn",
        pgn.to_str().unwrap(),
        "--results",
        json.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let g = &results["games"][0];
    let text = std::fs::read_to_string(&pgn).unwrap();
    assert!(
        text.contains("[Termination \"forfeit: North played an illegal move"),
        "{text}"
    );
    assert!(
        !text.contains("R2"),
        "no move of round 2 was played: {text}"
    );
    // The record read by the rules ends where `pussa replay` ends it: round 1's end.
    let rec = pussa_rules::record::Record::parse(&text).unwrap();
    let end = rec.state();
    assert!(end.is_round_over() && end.round() == 1);
    assert_eq!(g["winner"], "S", "{g}");
    assert_eq!(g["rounds"], 1, "{g}");
    assert_eq!(
        g["stores"],
        serde_json::json!(end.position().stores()),
        "{g}"
    );
    assert_eq!(
        g["final_position"],
        pussa_rules::Setup::from_state(end).to_string(),
        "{g}"
    );
    // And `pussa replay --json`'s last line says the same.
    let (ok, out, err) = pussa(&["replay", "--record", pgn.to_str().unwrap(), "--json"]);
    assert!(ok, "{err}");
    let last: serde_json::Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    assert_eq!(last["round"], 1);
    assert_eq!(last["stores"], g["stores"]);
    assert_eq!(last["winner"], "S");
}
