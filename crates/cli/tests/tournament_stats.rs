//! `pussa tournament`'s statistics for researchers through the binary: the first mover's
//! results (overall and for each player), the games' lengths and endings in the summary, the
//! JSON and the CSV, and the `--plot` SVG, each checked against the games themselves.

use std::collections::HashMap;

use serde_json::Value;

mod common;

use common::pussa;

fn tmp(name: &str) -> std::path::PathBuf {
    common::tmp_in("tournament-stats", name)
}

/// Runs a tournament with `args` (after `tournament`), one game at a time, writing the JSON
/// results and the plot: the summary, the JSON and the SVG.
fn run(name: &str, args: &[&str]) -> (String, Value, String) {
    let json = tmp(&format!("{name}.json"));
    let svg = tmp(&format!("{name}.svg"));
    let mut all = vec!["tournament"];
    all.extend_from_slice(args);
    all.extend_from_slice(&[
        "--concurrency",
        "1",
        "--quiet",
        "--results",
        json.to_str().unwrap(),
        "--plot",
        svg.to_str().unwrap(),
    ]);
    let (ok, out, err) = pussa(&all);
    assert!(ok, "{err}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    (out, v, std::fs::read_to_string(&svg).unwrap())
}

/// A game's result for the first mover: 1 a win, 0 a loss, None a draw (`"winner": "draw"`,
/// as `pussa replay --json` says it; never `null`).
fn first_mover_won(g: &Value) -> Option<bool> {
    let first = g["first_mover"].as_str().unwrap();
    let winner = g["winner"].as_str().unwrap_or_else(|| panic!("{g}"));
    assert!(["S", "N", "draw"].contains(&winner), "{g}");
    (winner != "draw").then(|| winner == first)
}

/// Which player (0 or 1) moved first in a game.
fn first_mover_player(g: &Value) -> usize {
    let south = g["south_player"].as_u64().unwrap() as usize;
    if g["first_mover"] == "S" {
        south
    } else {
        1 - south
    }
}

/// Wins, draws, losses.
fn count(results: impl Iterator<Item = Option<bool>>) -> [u64; 3] {
    let mut c = [0; 3];
    for r in results {
        c[match r {
            Some(true) => 0,
            None => 1,
            Some(false) => 2,
        }] += 1;
    }
    c
}

fn wdl(v: &Value) -> [u64; 3] {
    [
        v["wins"].as_u64().unwrap(),
        v["draws"].as_u64().unwrap(),
        v["losses"].as_u64().unwrap(),
    ]
}

fn plies(g: &Value) -> u64 {
    g["moves"].as_array().unwrap().len() as u64
}

/// How a game ended, recomputed from its termination and the reason its last round ended.
fn ending(g: &Value) -> &'static str {
    match g["termination"]["kind"].as_str().unwrap() {
        "forfeit" => "forfeit",
        "round_limit" => "round_limit",
        "normal" => match g["end"]["kind"].as_str().unwrap() {
            "no_legal_move" => "stuck",
            "repetition" => "repetition",
            "one_row" => "one_row",
            k => panic!("unknown end {k}"),
        },
        k => panic!("unknown termination {k}"),
    }
}

/// Mean, median, min and max.
fn spread(values: &[u64]) -> (f64, f64, u64, u64) {
    let mut v = values.to_vec();
    v.sort_unstable();
    let n = v.len();
    let median = if n % 2 == 1 {
        v[n / 2] as f64
    } else {
        (v[n / 2 - 1] + v[n / 2]) as f64 / 2.0
    };
    (
        v.iter().sum::<u64>() as f64 / n as f64,
        median,
        v[0],
        v[n - 1],
    )
}

/// The sample standard deviation of `values` and the 95% interval of their mean, Student's t
/// with the quantile `t` (t(0.975, n - 1), from a table).
fn mean_interval(values: &[(u64, u64)], t: f64) -> (f64, f64, f64) {
    // `values`: (pair, length). The games' sd; the interval over the pairs' mean lengths (the
    // two games of a pair share an opening), never below 0.
    let n = values.len() as f64;
    let mean = values.iter().map(|&(_, v)| v).sum::<u64>() as f64 / n;
    let sd = (values
        .iter()
        .map(|&(_, x)| (x as f64 - mean).powi(2))
        .sum::<f64>()
        / (n - 1.0))
        .sqrt();
    let mut pairs: std::collections::BTreeMap<u64, Vec<f64>> = Default::default();
    for &(p, v) in values {
        pairs.entry(p).or_default().push(v as f64);
    }
    let means: Vec<f64> = pairs
        .values()
        .map(|v| v.iter().sum::<f64>() / v.len() as f64)
        .collect();
    let k = means.len() as f64;
    let m = means.iter().sum::<f64>() / k;
    let psd = (means.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (k - 1.0)).sqrt();
    let half = t * psd / k.sqrt();
    (sd, (m - half).max(0.0), m + half)
}

/// The opening tags of the elements named `name` with class `class`: their attributes.
fn elements(svg: &str, class: &str) -> Vec<HashMap<String, String>> {
    let needle = format!("<g class=\"{class}\"");
    let mut found = Vec::new();
    for (i, _) in svg.match_indices(&needle) {
        let tag = &svg[i..i + svg[i..].find('>').unwrap()];
        let mut attrs = HashMap::new();
        let mut rest = tag;
        while let Some(eq) = rest.find("=\"") {
            let key = rest[..eq].rsplit(' ').next().unwrap().to_string();
            let after = &rest[eq + 2..];
            let end = after.find('"').unwrap();
            attrs.insert(key, after[..end].to_string());
            rest = &after[end + 1..];
        }
        found.push(attrs);
    }
    found
}

fn num(attrs: &HashMap<String, String>, key: &str) -> u64 {
    attrs
        .get(key)
        .unwrap_or_else(|| panic!("no {key} in {attrs:?}"))
        .parse()
        .unwrap()
}

/// Checks that every tag of `svg` is closed in order, and returns the names of the elements
/// seen.
fn balanced(svg: &str) -> Vec<String> {
    let mut stack: Vec<String> = Vec::new();
    let mut names = Vec::new();
    let mut rest = svg;
    while let Some(open) = rest.find('<') {
        let close = rest[open..].find('>').expect("an unclosed <") + open;
        let tag = &rest[open + 1..close];
        assert!(!tag.contains('<'), "a < inside a tag: {tag}");
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop().as_deref(), Some(name.trim()), "</{name}>");
        } else if !tag.starts_with('?') && !tag.starts_with('!') {
            let name = tag.split_whitespace().next().unwrap().trim_end_matches('/');
            names.push(name.to_string());
            if !tag.ends_with('/') {
                stack.push(name.to_string());
            }
        }
        rest = &rest[close + 1..];
    }
    assert!(stack.is_empty(), "unclosed: {stack:?}");
    names
}

#[test]
fn first_mover_counts_agree_with_the_games() {
    let (out, v, _) = run(
        "seats",
        &[
            "level:beginner",
            "greedy",
            "--game",
            "raja-pasu",
            "-n",
            "14",
            "--seed",
            "5",
        ],
    );
    let games = v["games"].as_array().unwrap();
    assert_eq!(games.len(), 14);
    let f = &v["first_mover"];
    assert_eq!(f["seat"], "S");
    assert!(games.iter().all(|g| g["first_mover"] == "S"));
    let want = count(games.iter().map(first_mover_won));
    assert_eq!(wdl(f), want, "{f}");
    assert_eq!(f["games"], 14);
    let score = (want[0] as f64 + 0.5 * want[1] as f64) / 14.0;
    assert!((f["score"].as_f64().unwrap() - score).abs() < 1e-12);
    let (lo, hi) = (
        f["score_low"].as_f64().unwrap(),
        f["score_high"].as_f64().unwrap(),
    );
    // The Wilson score interval (a draw half a win): never a single point from a few games.
    let (z2, n) = (1.959_963_984_540_054f64.powi(2), 14.0);
    let centre = (score + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = (z2 * (score * (1.0 - score) / n + z2 / (4.0 * n * n))).sqrt() / (1.0 + z2 / n);
    assert!((lo - (centre - half).max(0.0)).abs() < 1e-9, "{lo}");
    assert!((hi - (centre + half).min(1.0)).abs() < 1e-9, "{hi}");
    assert!(lo < hi);
    // Each player, from its own point of view, moving first and moving second.
    for p in 0..2 {
        let mine = |first: bool| {
            count(
                games
                    .iter()
                    .filter(|g| (first_mover_player(g) == p) == first)
                    .map(|g| {
                        let r = first_mover_won(g);
                        if first {
                            r
                        } else {
                            r.map(|w| !w)
                        }
                    }),
            )
        };
        let pv = &f["players"][p];
        assert_eq!(pv["player"], v["players"][p]);
        assert_eq!(wdl(&pv["moving_first"]), mine(true), "player {p}");
        assert_eq!(wdl(&pv["moving_second"]), mine(false), "player {p}");
        // Seats swap every game: seven games each way.
        assert_eq!(pv["moving_first"]["games"], 7);
    }
    // The summary says the same.
    let line = format!(
        "first mover (South): won {}  drew {}  second mover won {}  first mover's score {score:.3}  \
         95% interval [{lo:.3}, {hi:.3}] (Wilson)",
        want[0], want[1], want[2]
    );
    assert!(out.contains(&line), "{line}\n{out}");
    assert!(
        out.contains("player 1 level:beginner: moving first ")
            && out.contains("player 2 greedy-most-held: moving first "),
        "{out}"
    );
}

#[test]
fn lengths_and_endings_agree_with_the_games() {
    let (out, v, _) = run(
        "lengths",
        &[
            "random",
            "greedy",
            "--game",
            "pasu-pondi",
            "-n",
            "16",
            "--seed",
            "3",
        ],
    );
    let games = v["games"].as_array().unwrap();
    assert_eq!(games.len(), 16);
    let lengths: Vec<u64> = games.iter().map(plies).collect();
    let (mean, median, min, max) = spread(&lengths);
    let p = &v["plies"];
    assert_eq!(p["games"], 16);
    assert!((p["mean"].as_f64().unwrap() - mean).abs() < 1e-9, "{p}");
    assert_eq!(p["median"].as_f64().unwrap(), median, "{p}");
    assert_eq!(
        (p["min"].as_u64(), p["max"].as_u64()),
        (Some(min), Some(max))
    );
    assert!(min < max, "random games of one length? {lengths:?}");
    // The spread and the 95% interval of the mean over the 8 pairs (t(0.975, 7) = 2.364624).
    let paired: Vec<(u64, u64)> = games
        .iter()
        .map(|g| (g["index"].as_u64().unwrap() / 2, plies(g)))
        .collect();
    let (sd, lo, hi) = mean_interval(&paired, 2.364_624);
    for (key, want) in [("sd", sd), ("mean_low", lo), ("mean_high", hi)] {
        assert!((p[key].as_f64().unwrap() - want).abs() < 1e-4, "{key}: {p}");
    }
    assert!(lo < mean && mean < hi && sd > 0.0, "{p}");
    let line = format!(
        "plies a game: mean {mean:.1}  95% interval [{lo:.1}, {hi:.1}]  sd {sd:.1}  median \
         {median}  min {min}  max {max}"
    );
    assert!(out.contains(&line), "{line}\n{out}");
    // Single games: one round each, and no rounds line in the summary.
    assert_eq!(
        (v["rounds"]["min"].as_u64(), v["rounds"]["max"].as_u64()),
        (Some(1), Some(1))
    );
    assert!(!out.contains("rounds a match"), "{out}");
    // Endings.
    let mut want: HashMap<&str, u64> = HashMap::new();
    for g in games {
        *want.entry(ending(g)).or_default() += 1;
    }
    for k in ["stuck", "repetition", "one_row", "round_limit", "forfeit"] {
        assert_eq!(
            v["endings"][k].as_u64(),
            Some(want.get(k).copied().unwrap_or(0)),
            "{k}: {}",
            v["endings"]
        );
    }
    // Pasu Pondi ends when every seed left lies in one row.
    assert!(want.get("one_row").copied().unwrap_or(0) > 0, "{want:?}");
    let ended = out.lines().find(|l| l.starts_with("ended: ")).unwrap();
    assert_eq!(
        ended,
        format!(
            "ended: stuck {}  repetition {}  one row {}  round limit 0  forfeit 0",
            want.get("stuck").unwrap_or(&0),
            want.get("repetition").unwrap_or(&0),
            want.get("one_row").unwrap_or(&0)
        )
    );
    // The histogram in the JSON holds every game once, in the bin of its length.
    let h = v["length_histogram"].as_array().unwrap();
    assert!(!h.is_empty() && h.len() <= 20, "{}", h.len());
    for g in games {
        let n = plies(g);
        let bins = h
            .iter()
            .filter(|b| b["from"].as_u64().unwrap() <= n && n <= b["to"].as_u64().unwrap())
            .count();
        assert_eq!(bins, 1, "{n}");
    }
}

#[test]
fn the_plot_is_svg_with_one_bar_a_bin_counting_every_game() {
    let (_, v, svg) = run(
        "plot",
        &[
            "level:beginner",
            "random",
            "--game",
            "walak-pussa",
            "-n",
            "20",
            "--seed",
            "2",
        ],
    );
    assert!(
        svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""),
        "{svg}"
    );
    assert!(
        svg.contains("viewBox=\"0 0 ") && svg.contains("width=\"") && svg.contains("height=\"")
    );
    let names = balanced(&svg);
    assert_eq!(names[0], "svg");
    assert!(
        names
            .iter()
            .all(|n| n != "script" && n != "image" && n != "style"),
        "{names:?}"
    );
    assert!(!svg.contains("href"), "links: {svg}");
    assert!(
        svg.contains("walak-pussa single games: level:beginner vs random, 20 games"),
        "{svg}"
    );
    for legend in ["first mover won", "draw", "second mover won"] {
        assert!(svg.contains(&format!(">{legend}</text>")), "{legend}");
    }
    let games = v["games"].as_array().unwrap();
    let bars = elements(&svg, "bar");
    assert!(bars.len() >= 2 && bars.len() <= 20, "{} bars", bars.len());
    let total: u64 = bars.iter().map(|b| num(b, "data-games")).sum();
    assert_eq!(total, 20);
    for (i, b) in bars.iter().enumerate() {
        let (from, to) = (num(b, "data-from"), num(b, "data-to"));
        // Bins of one width, one after another.
        assert_eq!(
            to - from,
            num(&bars[0], "data-to") - num(&bars[0], "data-from")
        );
        if i > 0 {
            assert_eq!(num(&bars[i - 1], "data-to") + 1, from);
        }
        let here: Vec<&Value> = games
            .iter()
            .filter(|g| (from..=to).contains(&plies(g)))
            .collect();
        let [w, d, l] = count(here.iter().map(|g| first_mover_won(g)));
        assert_eq!(
            [
                num(b, "data-first-mover-wins"),
                num(b, "data-draws"),
                num(b, "data-second-mover-wins"),
                num(b, "data-games")
            ],
            [w, d, l, here.len() as u64],
            "bar {from}-{to}"
        );
    }
    // The shortest and the longest game lie in the first and the last bar.
    let lengths: Vec<u64> = games.iter().map(plies).collect();
    let (_, _, min, max) = spread(&lengths);
    assert!(num(&bars[0], "data-from") <= min && min <= num(&bars[0], "data-to"));
    let last = bars.last().unwrap();
    assert!(num(last, "data-from") <= max && max <= num(last, "data-to"));
    // The points: every game, then the games each player moved first.
    let points = elements(&svg, "score");
    assert_eq!(points.len(), 3);
    assert_eq!(points[0]["data-label"], "all games");
    assert_eq!(num(&points[0], "data-games"), 20);
    let score: f64 = points[0]["data-score"].parse().unwrap();
    assert!((score - v["first_mover"]["score"].as_f64().unwrap()).abs() < 1e-4);
    for (p, point) in points[1..].iter().enumerate() {
        let fm = &v["first_mover"]["players"][p]["moving_first"];
        assert_eq!(num(point, "data-games"), fm["games"].as_u64().unwrap());
        let s: f64 = point["data-score"].parse().unwrap();
        let (lo, hi): (f64, f64) = (
            point["data-low"].parse().unwrap(),
            point["data-high"].parse().unwrap(),
        );
        assert!((s - fm["score"].as_f64().unwrap()).abs() < 1e-4);
        assert!(lo <= s && s <= hi, "{point:?}");
    }
}

#[test]
fn matches_count_rounds_and_the_csv_carries_the_seat() {
    let csv = tmp("match.csv");
    let (ok, out, err) = pussa(&[
        "tournament",
        "level:beginner",
        "random",
        "--game",
        "pasu-pondi",
        "--match",
        "-n",
        "4",
        "--concurrency",
        "1",
        "--quiet",
        "--results",
        csv.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let text = std::fs::read_to_string(&csv).unwrap();
    let rows: Vec<Vec<String>> = text
        .lines()
        .map(|l| {
            // The final position is quoted (it holds commas): split around it.
            let mut fields = Vec::new();
            let mut cur = String::new();
            let mut quoted = false;
            for c in l.chars() {
                match c {
                    '"' => quoted = !quoted,
                    ',' if !quoted => fields.push(std::mem::take(&mut cur)),
                    c => cur.push(c),
                }
            }
            fields.push(cur);
            fields
        })
        .collect();
    let head = &rows[0];
    let col = |name: &str| head.iter().position(|h| h == name).unwrap();
    let at = col("first_mover");
    assert_eq!(
        &head[at..at + 3],
        ["first_mover", "first_mover_score", "ending"]
    );
    assert_eq!(rows.len(), 5);
    let mut rounds = Vec::new();
    let mut paired = Vec::new();
    for r in &rows[1..] {
        assert_eq!(r.len(), head.len(), "{r:?}");
        let moves = r[col("moves")].split_whitespace().count();
        assert_eq!(r[col("plies")], moves.to_string());
        rounds.push(r[col("rounds")].parse::<u64>().unwrap());
        paired.push((
            (r[col("number")].parse::<u64>().unwrap() - 1) / 2,
            *rounds.last().unwrap(),
        ));
        assert_eq!(r[col("first_mover")], "S");
        // South's result is the first mover's.
        let want = match r[col("result")].as_str() {
            "1-0" => "1",
            "0-1" => "0",
            _ => "0.5",
        };
        assert_eq!(r[col("first_mover_score")], want, "{r:?}");
        assert_eq!(r[col("termination")], "normal");
        assert_eq!(r[col("ending")], "one_row", "{r:?}");
    }
    let (mean, median, min, max) = spread(&rounds);
    assert!(max > 1, "{rounds:?}");
    // 4 matches, 2 pairs: t(0.975, 1) = 12.706205.
    let (sd, lo, hi) = mean_interval(&paired, 12.706_205);
    let line = format!(
        "rounds a match: mean {mean:.2}  95% interval [{lo:.2}, {hi:.2}]  sd {sd:.2}  median \
         {median}  min {min}  max {max}"
    );
    assert!(out.contains(&line), "{line}\n{out}");
}

#[test]
fn self_play_measures_the_seat() {
    let (out, v, svg) = run(
        "self",
        &[
            "level:beginner",
            "level:beginner",
            "--game",
            "walak-pussa",
            "-n",
            "10",
        ],
    );
    // One name twice is told apart by the player's number.
    assert_eq!(
        v["players"],
        serde_json::json!(["level:beginner (1)", "level:beginner (2)"])
    );
    assert_eq!(v["games"].as_array().unwrap().len(), 10);
    let f = &v["first_mover"];
    let [w, d, l] = wdl(f);
    assert_eq!(w + d + l, 10);
    // The same player on both sides: what one player gets moving first, the other gives up
    // moving second.
    for p in 0..2 {
        let first = wdl(&f["players"][p]["moving_first"]);
        let second = wdl(&f["players"][1 - p]["moving_second"]);
        assert_eq!(first, [second[2], second[1], second[0]]);
    }
    assert!(
        out.contains("player 1 level:beginner (1): moving first"),
        "{out}"
    );
    assert!(
        out.contains("player 2 level:beginner (2): moving first"),
        "{out}"
    );
    assert!(svg.contains("level:beginner (1) vs level:beginner (2), 10 games"));
}

#[test]
fn a_bad_plot_path_fails_before_any_game() {
    let results = tmp("never.json");
    let _ = std::fs::remove_file(&results);
    let bad = std::env::temp_dir()
        .join(format!("pussa-no-such-dir-{}", std::process::id()))
        .join("plot.svg");
    let start = std::time::Instant::now();
    let (ok, out, err) = pussa(&[
        "tournament",
        "level:casual",
        "level:casual",
        "-n",
        "2000",
        "--concurrency",
        "1",
        "--quiet",
        "--results",
        results.to_str().unwrap(),
        "--plot",
        bad.to_str().unwrap(),
    ]);
    assert!(!ok);
    assert!(
        err.starts_with("error: cannot write ") && err.contains(bad.to_str().unwrap()),
        "{err}"
    );
    assert!(out.is_empty(), "{out}");
    // Checked before the first game, and before any file is touched: no results file.
    assert!(!results.exists());
    assert!(start.elapsed() < std::time::Duration::from_secs(20));
}

/// A seat that won every one of its few games gets a wide interval, not a single point
/// (`1.000 [1.000, 1.000]` from 3 games used to claim certainty); 3 of 3: [0.438, 1.000].
#[test]
fn a_few_alike_games_give_a_wide_seat_interval() {
    let (out, v, _) = run(
        "wilson",
        &[
            "greedy",
            "random",
            "--game",
            "raja-pasu",
            "-n",
            "6",
            "--seed",
            "3",
        ],
    );
    assert!(
        !out.contains("[1.000, 1.000]") && !out.contains("[0.000, 0.000]"),
        "{out}"
    );
    for p in 0..2 {
        for seat in ["moving_first", "moving_second"] {
            let w = &v["first_mover"]["players"][p][seat];
            let (lo, hi) = (
                w["score_low"].as_f64().unwrap(),
                w["score_high"].as_f64().unwrap(),
            );
            assert!(hi - lo > 0.3, "{w}");
            if w["wins"] == 3 {
                assert!((lo - 0.4385).abs() < 1e-3 && (hi - 1.0).abs() < 1e-9, "{w}");
            }
        }
    }
}

/// The plot's subtitle gives the lengths' spread and the 95% interval of their mean, as the
/// summary does (it gave only the mean and the median).
#[test]
fn the_plot_subtitle_gives_the_spread_of_the_lengths() {
    let (_, v, svg) = run(
        "subtitle",
        &[
            "greedy",
            "random",
            "--game",
            "raja-pasu",
            "--match",
            "-n",
            "4",
        ],
    );
    let f = |k: &str, r: &str| v[r][k].as_f64().unwrap();
    let plies = format!(
        "plies a game: mean {:.1} [{:.1}, {:.1}], sd {:.1}, median {}",
        f("mean", "plies"),
        f("mean_low", "plies"),
        f("mean_high", "plies"),
        f("sd", "plies"),
        f("median", "plies"),
    );
    assert!(svg.contains(&plies), "{plies}\n{svg}");
    let rounds = format!(
        "rounds a match: mean {:.1} [{:.1}, {:.1}], sd {:.1}",
        f("mean", "rounds"),
        f("mean_low", "rounds"),
        f("mean_high", "rounds"),
        f("sd", "rounds"),
    );
    assert!(svg.contains(&rounds), "{rounds}\n{svg}");
}

/// The Elo intervals, games and pairs, by the adjusted normal (Agresti–Coull) interval
/// whatever the results, recomputed here: z²/2 pseudo-results of 0 and of 1 added to the
/// results (1, ½, 0 a game; a pair's points / 2), the normal interval of their mean, to Elo.
fn agresti_coull_elo(results: &[(f64, f64)]) -> (f64, f64) {
    let z = 1.959_963_984_540_054f64;
    let c = z * z / 2.0;
    let n: f64 = results.iter().map(|r| r.1).sum::<f64>() + 2.0 * c;
    let m = (results.iter().map(|r| r.0 * r.1).sum::<f64>() + c) / n;
    let v = (results.iter().map(|r| r.1 * (r.0 - m).powi(2)).sum::<f64>()
        + c * (m * m + (1.0 - m).powi(2)))
        / n;
    let h = z * (v / n).sqrt();
    let elo = |s: f64| {
        if s >= 1.0 {
            f64::INFINITY
        } else {
            -400.0 * (1.0 / s - 1.0).log10()
        }
    };
    (elo((m - h).max(0.0)), elo((m + h).min(1.0)))
}

/// Every game, or every pair, gave the same result: the Elo interval is a real one (it was a
/// zero-width "none"), by the same method as one result away, so a better result never gives
/// a weaker bound (ten wins of ten gave at least +140.2 by an exact bound while nine wins and a
/// loss gave +159.0 by the normal one; five pairs won 2-0 gave -15.2, four and a split +168.1).
/// Ten wins of ten: at least +130.2; five pairs won 2-0: at least +7.6.
#[test]
fn all_wins_give_an_elo_bound_above_one_loss() {
    let (out, v, _) = run(
        "allwins",
        &[
            "--game",
            "raja-pasu",
            "--match",
            "greedy",
            "random",
            "-n",
            "10",
        ],
    );
    assert_eq!(v["wins"].as_u64(), Some(10), "{out}");
    let (lo, _) = agresti_coull_elo(&[(1.0, 10.0)]);
    assert!(
        out.contains(&format!("elo +inf  95% interval [{lo:+.1}, +inf]\n")),
        "{lo}\n{out}"
    );
    assert!(
        out.contains("elo +inf  95% interval [+130.2, +inf]"),
        "{out}"
    );
    let (plo, _) = agresti_coull_elo(&[(1.0, 5.0)]);
    assert!(
        out.contains(&format!(
            "elo by pairs +inf  95% interval [{plo:+.1}, +inf]\n"
        )),
        "{plo}\n{out}"
    );
    assert!((v["elo_low"].as_f64().unwrap() - lo).abs() < 1e-9, "{v}");
    assert!(
        (v["elo_pairs_low"].as_f64().unwrap() - plo).abs() < 1e-9,
        "{v}"
    );
    assert!(
        v["elo_high"].is_null() && v["elo_pairs_high"].is_null(),
        "{v}"
    );
    assert_eq!(v["elo_interval"], "agresti_coull");
    assert_eq!(v["elo_pairs_interval"], "agresti_coull");
    // One result worse (nine wins and a loss; four pairs won and one split): weaker bounds.
    let (worse, _) = agresti_coull_elo(&[(1.0, 9.0), (0.0, 1.0)]);
    let (pworse, _) = agresti_coull_elo(&[(1.0, 4.0), (0.5, 1.0)]);
    assert!(worse < lo && pworse < plo && plo > 0.0, "{worse} {pworse}");
}

/// Every game a draw (matches drawn at the round limit), and one pair split 1-1: Elo 0, with
/// the same interval as any other results, not a certain 0.
#[test]
fn all_draws_and_split_pairs_give_an_interval() {
    let (out, v, _) = run(
        "draws",
        &[
            "--game",
            "raja-pasu",
            "--match",
            "greedy",
            "random",
            "-n",
            "6",
            "--max-rounds",
            "1",
        ],
    );
    assert_eq!(
        (v["wins"].as_u64(), v["draws"].as_u64()),
        (Some(0), Some(6))
    );
    let (lo, hi) = agresti_coull_elo(&[(0.5, 6.0)]);
    let line = format!("elo +0.0  95% interval [{lo:+.1}, {hi:+.1}]\n");
    assert!(out.contains(&line), "{line}\n{out}");
    assert!(
        out.contains("elo +0.0  95% interval [-143.2, +143.2]"),
        "{out}"
    );
    assert!((v["elo_low"].as_f64().unwrap() - lo).abs() < 1e-9, "{v}");
    assert!((v["elo_high"].as_f64().unwrap() - hi).abs() < 1e-9, "{v}");
    assert_eq!(v["elo_interval"], "agresti_coull");

    let (out, v, _) = run("split", &["greedy", "random", "-n", "2", "--seed", "2"]);
    assert_eq!(v["pairs"], serde_json::json!([0, 0, 1, 0, 0]), "{out}");
    let (lo, hi) = agresti_coull_elo(&[(0.5, 1.0)]);
    let line = format!("elo by pairs +0.0  95% interval [{lo:+.1}, {hi:+.1}]\n");
    assert!(out.contains(&line), "{line}\n{out}");
    assert!(
        (v["elo_pairs_low"].as_f64().unwrap() - lo).abs() < 1e-9,
        "{v}"
    );
    assert!(
        (v["elo_pairs_high"].as_f64().unwrap() - hi).abs() < 1e-9,
        "{v}"
    );
    assert_eq!(v["elo_pairs_interval"], "agresti_coull");
}
