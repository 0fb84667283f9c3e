//! `pussa egtb build --closed`, `pussa egtb verify --closed` and `pussa egtb match`: the
//! closed-hole tables of match rounds and whole matches (the parts of `pussa egtb` that
//! concern matches; the arguments are in `cmd_egtb.rs`).

use std::path::Path;
use std::time::Instant;

use anyhow::{bail, Context};
use pussa_egtb::matches::{
    match_patterns, play_match, solve_match, MatchEnd, MatchTables, MatchValue,
};
use pussa_egtb::{build_pattern_dir, BuildOptions, LayerEvent, Pattern, Tables};
use pussa_rules::{Game, Setup, Side};

use crate::cmd_egtb::plural;

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

/// The patterns named by `--closed`: `all` or `a-b,c-d`.
fn parse_patterns(list: &str) -> anyhow::Result<Vec<Pattern>> {
    if list.trim() == "all" {
        return Ok(match_patterns());
    }
    let mut out = Vec::new();
    for item in list.split(',') {
        let (a, b) = item
            .trim()
            .split_once('-')
            .with_context(|| format!("--closed: `{item}` is not `a-b` (holes closed in the mover's row and the opponent's)"))?;
        // A count of holes: digits (a number too large is refused below as above 6).
        let count = |x: &str| -> anyhow::Result<u8> {
            let x = x.trim();
            if x.is_empty() || !x.bytes().all(|b| b.is_ascii_digit()) {
                bail!(
                    "--closed: `{item}`: '{x}' is not a number of holes (write a-b: the holes \
                     closed, 0 to 6, in the mover's row and the opponent's)"
                );
            }
            Ok(x.parse::<u8>().unwrap_or(u8::MAX))
        };
        let (a, b) = (count(a)?, count(b)?);
        if a > 6 || b > 6 || a + b == 0 {
            bail!("--closed: `{item}`: 0 to 6 holes a row, not both 0 (the open board is built without --closed)");
        }
        // A player closes holes only when short of seeds, and the two cannot both be: no
        // position has closed holes in both rows, so no command could read these tables.
        if a > 0 && b > 0 {
            bail!(
                "--closed: `{item}`: both rows closed, which no game reaches (only the player \
                 short of seeds closes holes); the match patterns are c-0 and 0-c, c = 1..6"
            );
        }
        out.push(Pattern::new(a, b));
    }
    Ok(out)
}

/// `pussa egtb build --closed LIST`.
pub fn build_closed(
    game: Game,
    max: usize,
    dir: &Path,
    rebuild: bool,
    budget: u64,
    list: &str,
) -> anyhow::Result<()> {
    let patterns = parse_patterns(list)?;
    for &p in &patterns {
        crate::cmd_egtb::refuse_unbuildable(game, p, max)?;
    }
    let opts = BuildOptions {
        search_budget: budget,
    };
    let t0 = Instant::now();
    for p in patterns {
        let t1 = Instant::now();
        let mut bytes = 0u64;
        let mut history = 0u64;
        let mut undetermined = 0u64;
        build_pattern_dir(
            dir,
            game,
            p,
            max,
            opts,
            rebuild,
            &|_| {},
            &mut |e| match e {
                LayerEvent::Kept { .. } => {}
                LayerEvent::Incomplete {
                    seeds,
                    path,
                    undetermined,
                } => {
                    let _ = outln!(
                        "{game} {p} {}: {} has {} not determined (an earlier build's small \
                         --budget): building it again",
                        plural(seeds as u64, "seed", "seeds"),
                        path.display(),
                        plural(undetermined, "position", "positions"),
                    );
                }
                LayerEvent::Built { stats, path } => {
                    if stats.undetermined > 0 {
                        errln!(
                            "warning: {game} {p} {}: {} left not determined: the history \
                             search ran past --budget {budget}; a later build builds the \
                             layer again",
                            plural(stats.seeds as u64, "seed", "seeds"),
                            plural(stats.undetermined, "position", "positions")
                        );
                    }
                    bytes += stats.positions;
                    history += stats.history;
                    undetermined += stats.undetermined;
                    let _ = outln!(
                    "{game} {p} {:>9}: {:>11} positions (with the mirror), {:>9} history, {:>3} undetermined, {:.1} s  {}",
                    plural(stats.seeds as u64, "seed", "seeds"),
                    stats.positions,
                    stats.history,
                    stats.undetermined,
                    stats.seconds,
                    path.display()
                );
                }
            },
        )?;
        // A closed stdout does not stop the build (the last line ends the command quietly).
        let _ = outln!(
            "{game} {p} and {}: 0..={max} in {:.1} s, {:.1} MiB built, {history} flagged, {undetermined} undetermined, peak memory {:.0} MiB",
            p.flipped(),
            t1.elapsed().as_secs_f64(),
            mib(bytes),
            mib(pussa_egtb::peak_memory().unwrap_or(0))
        );
    }
    outln!(
        "{game}: closed patterns built in {:.1} s",
        t0.elapsed().as_secs_f64()
    )?;
    Ok(())
}

/// `pussa egtb verify --closed`: every closed pattern with a table file under `dir`, every
/// file from 0 seeds to the largest checked (a missing one reported), and sample positions
/// re-computed in the good layers.
pub fn verify_closed(game: Option<Game>, dir: &Path, samples: u64) -> anyhow::Result<()> {
    let games: Vec<Game> = game.map_or_else(|| Game::ALL.to_vec(), |g| vec![g]);
    let mut problems = crate::cmd_egtb::Problems::default();
    let mut found = 0;
    for g in games {
        for a in 0..=6u8 {
            for b in 0..=a {
                let p = Pattern::new(a, b);
                let has = |p| !pussa_egtb::format::table_files(dir, g, p).is_empty();
                if p.is_open() || !(has(p) || has(p.flipped())) {
                    continue;
                }
                found += 1;
                let check = Tables::check_dir(dir, g, p);
                let top = check.top();
                let bad = check.bad_layers();
                if bad == 0 {
                    outln!(
                        "{g} {p} and {}: files 0..={top} present, headers and checksums good",
                        p.flipped()
                    )?;
                } else {
                    outln!(
                        "{g} {p} and {}: files 0..={top}: {bad} of {} missing or bad",
                        p.flipped(),
                        plural(check.layers.len() as u64, "layer", "layers")
                    )?;
                }
                let last = check.tables.as_ref().map_or(0, Tables::max_seeds);
                let files = |k| {
                    let path = |p| pussa_egtb::format::pattern_path(dir, g, p, k);
                    if p == p.flipped() {
                        return path(p).display().to_string();
                    }
                    format!("{} and {}", path(p).display(), path(p.flipped()).display())
                };
                problems.check(&check, samples, &files, &|k, r| {
                    r.mismatches > 0 || k == last
                })?;
            }
        }
    }
    if found == 0 {
        bail!("no closed-hole tables under {}", dir.display());
    }
    problems.result()?;
    crate::cmd_egtb::verified("all closed-hole tables", samples, &problems)
}

/// `pussa egtb match`.
#[allow(clippy::too_many_arguments)]
pub fn run_match(
    game: Game,
    dir: &Path,
    closed_dir: &Path,
    nodes: u64,
    max_seeds: Option<usize>,
    states: bool,
    first: Side,
    per_hole: u8,
    exhaustive: bool,
) -> anyhow::Result<()> {
    let t0 = Instant::now();
    let wanted: Vec<(&Path, Pattern)> = std::iter::once((dir, Pattern::OPEN))
        .chain(
            pussa_egtb::matches::match_patterns()
                .into_iter()
                .map(|p| (closed_dir, p)),
        )
        .collect();
    let max_seeds = crate::cmd_egtb::cap_max_seeds(game, &wanted, max_seeds);
    let tables = MatchTables::open(game, dir, closed_dir, max_seeds).with_context(|| {
        "egtb match needs the open board's tables and the closed patterns' (`pussa egtb build \
         ... --closed all` builds them all), whatever --seeds-per-hole (with 1 seed a hole only \
         --exhaustive's exact values are searched without them)"
    })?;
    outln!(
        "{game}: tables 0..={} seeds (open board and closed patterns) opened in {:.2} s",
        tables.max_seeds(),
        t0.elapsed().as_secs_f64()
    )?;
    let t1 = Instant::now();
    let m = play_match(&tables, per_hole, first, nodes, 200)?;
    outln!("Every round played perfectly for seeds:")?;
    for r in &m.rounds {
        let pv: Vec<String> = r.pv.iter().map(ToString::to_string).collect();
        outln!(
            "round {}: {} (filled S {} / N {}), {} starts: margin {:+} for {}, taken S {} / N {}, ended as {}; holdings S {} / N {}{}; {}, {:.2} s",
            r.round,
            r.start,
            r.filled[0],
            r.filled[1],
            r.starter,
            r.value,
            r.starter,
            r.taken[0],
            r.taken[1],
            crate::tui::reason_text(r.reason),
            r.holdings[0],
            r.holdings[1],
            r.next_starter
                .map_or(String::new(), |s| format!(", {s} starts the next round")),
            plural(r.nodes, "node", "nodes"),
            r.seconds
        )?;
        outln!(
            "  principal variation ({}): {}",
            plural(pv.len() as u64, "move", "moves"),
            pv.join(" ")
        )?;
    }
    match m.end {
        MatchEnd::Won(w) => outln!(
            "{w} wins the match in {} ({:.1} s)",
            plural(m.rounds.len() as u64, "round", "rounds"),
            t1.elapsed().as_secs_f64()
        )?,
        MatchEnd::Cycle { repeats, of } => outln!(
            "round {repeats} would start as round {of} did: with this play the match never ends"
        )?,
        MatchEnd::Limit => outln!(
            "stopped after {}",
            plural(m.rounds.len() as u64, "round", "rounds")
        )?,
    }
    if !states {
        return Ok(());
    }
    let t2 = Instant::now();
    let sol = solve_match(&tables, per_hole, nodes, &mut |pos, v, n| {
        let _ = outln!(
            "  round start {}: margin {v:+} for {} ({})",
            Setup::from_position(pos, 2),
            pos.to_move(),
            plural(n, "node", "nodes")
        );
    })?;
    outln!(
        "Match states (South's holding, starter), by backward induction on the round margins: {} solved, {}, {:.1} s",
        plural(sol.rounds_solved as u64, "round start", "round starts"),
        plural(sol.nodes, "node", "nodes"),
        t2.elapsed().as_secs_f64()
    )?;
    let (mut ws, mut wn, mut dr, mut un) = (0, 0, 0, 0);
    for s in &sol.states {
        let v = match s.value {
            MatchValue::Win { side, rounds } => {
                if side == Side::South {
                    ws += 1;
                } else {
                    wn += 1;
                }
                format!(
                    "{side} wins (within {})",
                    plural(u64::from(rounds), "round", "rounds")
                )
            }
            MatchValue::Draw => {
                dr += 1;
                "endless (neither can force a win)".into()
            }
            MatchValue::Unresolved => {
                un += 1;
                "unresolved by the margins".into()
            }
        };
        outln!(
            "  S holds {:>3}, {} starts ({} on the board): round margin {:+} for South; {v}",
            s.south,
            s.starter,
            plural(s.board, "seed", "seeds"),
            s.margin
        )?;
    }
    outln!(
        "{} states: South wins {ws}, North wins {wn}, endless {dr}, unresolved {un}",
        sol.states.len()
    )?;
    let start = 7 * u32::from(per_hole);
    if let Some(s) = sol.get(start, first) {
        outln!("The match from the start ({first} first): {}", s.value)?;
    }
    if !exhaustive {
        return Ok(());
    }
    let t3 = Instant::now();
    let exact = if per_hole <= 1 {
        pussa_egtb::matches::solve_match_exhaustive(game, per_hole, nodes)?
    } else {
        pussa_egtb::matches::solve_match_with_tables(&tables, per_hole, nodes)?
    };
    outln!(
        "Exact match values (every round searched to its end{}), {:.1} s:",
        if per_hole <= 1 {
            ""
        } else {
            ", stopping at the tables where a threshold decides"
        },
        t3.elapsed().as_secs_f64()
    )?;
    let mut disagree = 0;
    let mut confirmed = 0;
    for &(south, starter, v) in &exact {
        let m = sol.get(south, starter).map(|s| s.value);
        let note = match m {
            Some(MatchValue::Unresolved) | None => "",
            Some(mv) if mv == v => {
                confirmed += 1;
                "  (margins: the same)"
            }
            Some(MatchValue::Win { side, .. }) if matches!(v, MatchValue::Win { side: w, .. } if w == side) =>
            {
                confirmed += 1;
                "  (margins: the same winner)"
            }
            Some(_) => {
                disagree += 1;
                "  (margins: DIFFERENT)"
            }
        };
        outln!("  S holds {south:>3}, {starter} starts: {v}{note}")?;
    }
    let (ws, wn, dr) = exact
        .iter()
        .fold((0, 0, 0), |(a, b, c), &(_, _, v)| match v {
            MatchValue::Win {
                side: Side::South, ..
            } => (a + 1, b, c),
            MatchValue::Win { .. } => (a, b + 1, c),
            _ => (a, b, c + 1),
        });
    outln!(
        "exact: South wins {ws}, North wins {wn}, endless {dr}; the margins' verdicts confirmed {confirmed}, contradicted {disagree}"
    )?;
    if let Some(&(_, _, v)) = exact.iter().find(|&&(s, st, _)| s == start && st == first) {
        outln!("The match from the start ({first} first), exactly: {v}")?;
    }
    if disagree > 0 {
        bail!("{disagree} states where the margins' verdict contradicts the exact value");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closed_pattern_lists_are_parsed_and_bad_ones_named() {
        assert_eq!(parse_patterns("all").unwrap(), match_patterns());
        assert_eq!(
            parse_patterns("2-0, 0-3").unwrap(),
            vec![Pattern::new(2, 0), Pattern::new(0, 3)]
        );
        for bad in ["0-0", "7-0", "2", "a-1", "2-0,", "3-1", "2-0,6-6"] {
            let e = parse_patterns(bad).unwrap_err();
            assert!(format!("{e:#}").contains("--closed"), "{bad}: {e:#}");
        }
    }

    /// Build (open and closed), verify, then a reduced match played and solved three ways; a
    /// missing closed table is an error naming it.
    #[test]
    fn a_reduced_match_is_played_and_solved_from_files() {
        let dir = std::env::temp_dir().join(format!("pussa-cli-match-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let game = Game::PasuPondi;
        let sub = |command| crate::cmd_egtb::run(crate::cmd_egtb::Args { command });
        let build = |closed: Option<&str>| crate::cmd_egtb::Sub::Build {
            game,
            max_seeds: 6,
            dir: dir.clone(),
            rebuild: false,
            budget: 1 << 20,
            quiet: true,
            closed: closed.map(str::to_string),
        };
        sub(build(None)).expect("open tables");
        let e = run_match(
            game,
            &dir,
            &dir,
            1_000_000,
            None,
            true,
            Side::South,
            1,
            true,
        )
        .unwrap_err();
        assert!(format!("{e:#}").contains("c1-0"), "{e:#}");
        sub(build(Some("all"))).expect("closed tables");
        verify_closed(Some(game), &dir, 50).expect("verify");
        run_match(
            game,
            &dir,
            &dir,
            10_000_000,
            None,
            true,
            Side::South,
            1,
            true,
        )
        .expect("match");
        std::fs::remove_dir_all(&dir).ok();
    }
}
