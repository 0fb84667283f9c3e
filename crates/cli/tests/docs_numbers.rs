//! Numbers in README.md and docs/*.md that follow from others: the table files' total sizes in
//! docs/egtb.md (from the index's layer sizes and the format's header), the README's example
//! progress line (its score and Elo from its wins, draws and losses), and the levels' step
//! scores, their 95% intervals and the chained Elos with their ± (from the quoted results).

use std::path::{Path, PathBuf};

use pussa_egtb::format::HEADER_LEN;
use pussa_egtb::index::layer_size;
use pussa_engine::tournament::{elo_from_score, Wdl};

/// The repository's root, when this crate is built in its workspace (whose `Cargo.toml` lists
/// `crates/cli`); `None` in the crate's own package, which has no docs tree.
fn root() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap_or_default();
    manifest.contains("\"crates/cli\"").then_some(root)
}

/// `n` with a comma every three digits, as the docs write it.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// docs/egtb.md's totals of the tables 0..20 and 0..22: one byte a position and a 64-byte
/// header in each file (one a layer). It gave the position count as the bytes of 0..20, and for
/// 0..22 a number that was neither.
#[test]
fn the_egtb_doc_gives_the_tables_total_bytes() {
    let Some(root) = root() else {
        eprintln!("skipped: not in the pussa workspace, so there is no docs/ tree to check");
        return;
    };
    let doc = std::fs::read_to_string(root.join("docs/egtb.md")).unwrap();
    // The doc's text wraps lines: compare with single spaces.
    let doc = doc.split_whitespace().collect::<Vec<_>>().join(" ");
    for top in [20usize, 22] {
        let positions: u64 = (0..=top).map(layer_size).sum();
        let files = top as u64 + 1;
        let bytes = positions + files * HEADER_LEN as u64;
        let gib = bytes as f64 / f64::from(1u32 << 30);
        let text = format!(
            "0..{top} is {} bytes ({} positions and {files} headers, {gib:.1} GiB)",
            grouped(bytes),
            grouped(positions)
        );
        assert!(doc.contains(&text), "docs/egtb.md should say: {text}");
    }
}

/// The README's example progress line: its score and Elo follow from its `+W =D -L` (it said
/// `+70 =4 -46  score 0.588  elo +61.9`, where 70 wins and 4 draws of 120 score 0.600).
#[test]
fn the_readme_progress_example_adds_up() {
    let Some(root) = root() else {
        eprintln!("skipped: not in the pussa workspace, so there is no README.md to check");
        return;
    };
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let line = readme
        .split('`')
        .find(|s| s.contains(" games finished  +"))
        .expect("README's example progress line");
    let words: Vec<&str> = line.split_whitespace().collect();
    let num = |prefix: &str| -> u32 {
        words
            .iter()
            .find_map(|w| w.strip_prefix(prefix))
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{prefix} in {line}"))
    };
    let w = Wdl {
        wins: num("+"),
        draws: num("="),
        losses: num("-"),
    };
    let finished = words
        .iter()
        .find_map(|w| w.split_once('/'))
        .map(|(done, _)| done.parse::<u32>().unwrap())
        .unwrap();
    assert_eq!(finished, w.games(), "{line}");
    let want = format!(
        "score {:.3}  elo {:+.1}",
        w.score(),
        elo_from_score(w.score())
    );
    assert!(line.contains(&want), "{line}: should say {want}");
}

/// Every `S% (+W =D −L) [lo, hi]` in `text`: the quoted score and interval (percent) with the
/// results they come from.
fn quoted_results(text: &str) -> Vec<(String, Wdl, Option<String>)> {
    let mut found = Vec::new();
    for (at, _) in text.match_indices("% (+") {
        let score: String = text[..at]
            .chars()
            .rev()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let rest = &text[at + "% (+".len()..];
        let Some(close) = rest.find(')') else {
            continue;
        };
        let words: Vec<&str> = rest[..close].split_whitespace().collect();
        let [w, d, l] = words[..] else {
            continue;
        };
        let (Ok(wins), Some(Ok(draws)), Some(Ok(losses))) = (
            w.parse::<u32>(),
            d.strip_prefix('=').map(str::parse::<u32>),
            l.strip_prefix('−').map(str::parse::<u32>),
        ) else {
            continue;
        };
        let after = &rest[close + 1..];
        let interval = after
            .strip_prefix(" [")
            .and_then(|a| a.find(']').map(|e| format!("[{}]", &a[..e])));
        found.push((
            score,
            Wdl {
                wins,
                draws,
                losses,
            },
            interval,
        ));
    }
    found
}

/// The step's score and its 95% interval (the tournament summary's Agresti–Coull interval), in
/// percent as the docs write them, and the step's Elo with the half-width of its interval.
fn step(w: Wdl) -> (String, String, f64, f64) {
    let (lo, hi) = w.score_interval();
    (
        format!("{:.1}", 100.0 * w.score()),
        format!("[{:.1}, {:.1}]", 100.0 * lo, 100.0 * hi),
        elo_from_score(w.score()),
        (elo_from_score(hi) - elo_from_score(lo)) / 2.0,
    )
}

/// The Elos chained from 1000 along `steps`, each `E ± H` (H: the steps' half-widths added in
/// quadrature), as the docs write them.
fn chain(steps: &[Wdl]) -> Vec<String> {
    let (mut elo, mut var) = (1000.0, 0.0);
    steps
        .iter()
        .map(|&w| {
            let (_, _, e, h) = step(w);
            elo += e;
            var += h * h;
            format!("{elo:.0} ± {:.0}", f64::sqrt(var))
        })
        .collect()
}

/// The cells of a Markdown table row, trimmed, without the outer bars.
fn cells(line: &str) -> Vec<&str> {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    inner.split('|').map(str::trim).collect()
}

/// The levels' numbers rest on 100 games a step: docs/engine.md and README give each step's 95%
/// interval and each chained Elo's ± (they gave single point estimates, and "scores at least
/// 65%" as a property). Every quoted interval and ± is recomputed here from the quoted wins,
/// draws and losses: the steps of "Every game, fair openings", its levels table, the ladder
/// table of "The ladders" with its Elo row, and README's levels table.
#[test]
fn the_ladder_intervals_follow_from_the_quoted_results() {
    let Some(root) = root() else {
        eprintln!("skipped: not in the pussa workspace, so there is no docs/ tree to check");
        return;
    };
    let doc = std::fs::read_to_string(root.join("docs/engine.md")).unwrap();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    // Every `S% (+W =D −L) [lo, hi]`: the score and the interval follow from the results.
    let mut intervals = 0;
    for text in [&doc, &readme] {
        for (score, w, interval) in quoted_results(text) {
            let (_, want_interval, _, _) = step(w);
            // The score as quoted, to its own decimals (25%, 65.0%, 93.75%).
            let decimals = score.split_once('.').map_or(0, |(_, f)| f.len());
            let quoted: f64 = score.parse().unwrap_or_else(|_| panic!("'{score}' {w:?}"));
            let half_unit = 0.5 * 10f64.powi(-(decimals as i32)) + 1e-9;
            assert!(
                (quoted - 100.0 * w.score()).abs() <= half_unit,
                "{score}% for {w:?}"
            );
            if let Some(interval) = interval {
                assert_eq!(interval, want_interval, "{score}% {w:?}");
                intervals += 1;
            }
        }
    }
    // 24 steps in the fair-openings table, 15 in the ladder table.
    assert!(intervals >= 39, "{intervals} quoted intervals");

    // "Every game, fair openings": the six steps of each game, chained into the levels table.
    let lines: Vec<&str> = doc.lines().collect();
    // The tables under `header` (the levels' header has two: the match ladders' and this).
    let tables = |header: &str| -> Vec<Vec<Vec<&str>>> {
        let found: Vec<Vec<Vec<&str>>> = lines
            .iter()
            .enumerate()
            .filter(|(_, l)| l.starts_with(header))
            .map(|(start, _)| {
                lines[start + 2..]
                    .iter()
                    .take_while(|l| l.starts_with('|'))
                    .map(|l| cells(l))
                    .collect()
            })
            .collect();
        assert!(!found.is_empty(), "docs/engine.md: no table {header}");
        found
    };
    let table = |header: &str| tables(header).swap_remove(0);
    let results_of = |cell: &str| quoted_results(cell).first().map(|r| r.1);
    let fair = table("| pair (first player's score), single games |");
    let mut chains = Vec::new();
    for col in 1..=4 {
        let steps: Vec<Wdl> = fair[..6]
            .iter()
            .map(|row| results_of(row[col]).unwrap_or_else(|| panic!("{row:?}")))
            .collect();
        chains.push(chain(&steps));
    }
    let max_row = fair
        .iter()
        .find(|r| r[0].starts_with("Elo chained from beginner"))
        .unwrap();
    for col in 1..=4 {
        assert_eq!(max_row[col], chains[col - 1][5], "{max_row:?}");
    }
    let levels: Vec<Vec<&str>> =
        tables("| level | Walak-pussa | Raja Pasu | Pasu Pondi | Pasu Pondi 6 |")
            .into_iter()
            .flatten()
            .collect();
    let names = ["novice", "casual", "club", "expert", "master", "max"];
    for (i, name) in names.iter().enumerate() {
        let row = levels
            .iter()
            .find(|r| r[0] == *name && r[1].contains('±'))
            .unwrap_or_else(|| panic!("docs/engine.md levels table: no row {name} with ±"));
        for col in 1..=4 {
            assert_eq!(row[col], chains[col - 1][i], "{name}: {row:?}");
        }
        // README's levels table: Walak-pussa's chain.
        let want = format!("| {name} | ");
        let line = readme
            .lines()
            .find(|l| l.starts_with("| ") && l.contains(&want) && l.contains('±'))
            .unwrap_or_else(|| panic!("README levels table: no row {name} with ±"));
        let elo = cells(line)[3];
        assert!(
            elo.starts_with(&chains[0][i]),
            "README {name}: {elo}, want {}",
            chains[0][i]
        );
    }

    // "The ladders": each game's kept steps (not in parentheses), in order, chained into its
    // Elo row.
    let ladder = table("| step, single games |");
    let elo_row = ladder.iter().find(|r| r[0].starts_with("Elo:")).unwrap();
    for col in 1..=3 {
        let steps: Vec<Wdl> = ladder
            .iter()
            .filter(|r| !r[0].starts_with("Elo:") && !r[col].is_empty() && !r[col].starts_with('('))
            .map(|r| results_of(r[col]).unwrap_or_else(|| panic!("{r:?}")))
            .collect();
        let quoted: Vec<&str> = elo_row[col]
            .split(", ")
            .filter(|e| *e != "1000" && *e != "–")
            .collect();
        assert_eq!(quoted, chain(&steps), "ladder column {col}");
    }
}
