//! `pussa egtb build --closed`, `pussa egtb verify --closed` and `pussa egtb match`: the
//! closed-hole tables of match rounds and whole matches (the parts of `pussa egtb` that
//! concern matches; the arguments are in `cmd_egtb.rs`).

use std::path::Path;
use std::time::Instant;

use anyhow::{bail, Context};
use pussa_egtb::matches::{
    match_patterns, play_match, round_start, solve_match, MatchEnd, MatchTables, MatchValue,
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

/// `egtb match --json`: one object, the fields in the order docs/egtb.md gives them
/// ("match --json"; a `json!` object would write them in alphabetical order).
#[derive(serde::Serialize)]
struct MatchJson {
    game: &'static str,
    first: Side,
    seeds_per_hole: u8,
    /// The largest layer of the tables used (the text's `tables 0..=N seeds`).
    tables_max_seeds: usize,
    rounds: Vec<RoundJson>,
    result: ResultJson,
    /// With `--states`, else null.
    states: Option<StatesJson>,
    /// With `--exhaustive`, else null.
    exhaustive: Option<ExhaustiveJson>,
}

/// One round played perfectly for seeds.
#[derive(serde::Serialize)]
struct RoundJson {
    round: u32,
    /// The round's first position, as a position string.
    position: String,
    starter: Side,
    /// Holes each side filled, `[South, North]`.
    filled: [u8; 2],
    /// Seeds each side kept in store at the round's start, `[South, North]` (as the API's
    /// `refill` event names them).
    remainder: [u8; 2],
    /// The closed holes' indices in board order (0-13: `A`..`G` then `a`..`g`), as `replay
    /// --json` writes them.
    closed: Vec<usize>,
    /// The round's exact final margin for the starter (as `solve --json`'s `value`).
    value: i32,
    /// Seeds taken in the round, `[South, North]`.
    taken: [u8; 2],
    /// How the round ended, as the API's `rounds[].reason`.
    reason: pussa_rules::EndReason,
    /// Holdings after the round, `[South, North]`.
    holdings: [u8; 2],
    /// Who starts the next round; null when the match is over.
    next_starter: Option<Side>,
    /// The principal variation, letters.
    pv: Vec<pussa_rules::Hole>,
    nodes: u64,
}

/// How the match played ended.
#[derive(serde::Serialize)]
struct ResultJson {
    /// `"won"`, `"cycle"` (a round start came back: with this play the match never ends) or
    /// `"limit"` (stopped at the round limit).
    kind: &'static str,
    /// The match's winner; null unless `kind` is `"won"`.
    winner: Option<Side>,
    /// Rounds played.
    rounds: usize,
    /// A cycle: the round that would start as round `of` did; else null.
    repeats: Option<u32>,
    of: Option<u32>,
}

/// A match value in fields: `verdict` `"win"` (with `winner` and `within`, the rounds within
/// which the winner can force the end), `"endless"` or `"unresolved"`.
#[derive(serde::Serialize)]
struct VerdictJson {
    verdict: &'static str,
    winner: Option<Side>,
    within: Option<u32>,
}

impl VerdictJson {
    fn of(v: MatchValue) -> VerdictJson {
        let (verdict, winner, within) = match v {
            MatchValue::Win { side, rounds } => ("win", Some(side), Some(rounds)),
            MatchValue::Draw => ("endless", None, None),
            MatchValue::Unresolved => ("unresolved", None, None),
        };
        VerdictJson {
            verdict,
            winner,
            within,
        }
    }
}

/// `--states`: the match states by backward induction on the round margins.
#[derive(serde::Serialize)]
struct StatesJson {
    /// Every round start solved, in the order solved.
    round_starts: Vec<RoundStartJson>,
    rounds_solved: usize,
    nodes: u64,
    values: Vec<StateJson>,
    south_wins: usize,
    north_wins: usize,
    endless: usize,
    unresolved: usize,
    /// The state the match starts in (`--first` starting); null if it is not among them.
    start: Option<VerdictJson>,
}

#[derive(serde::Serialize)]
struct RoundStartJson {
    position: String,
    to_move: Side,
    /// The round's exact final margin for the player to move (the starter).
    value: i32,
    nodes: u64,
}

#[derive(serde::Serialize)]
struct StateJson {
    /// South's holding.
    south: u32,
    starter: Side,
    /// Seeds on the board at the round's start.
    board: u32,
    /// The round's exact final margin for South.
    margin: i32,
    #[serde(flatten)]
    value: VerdictJson,
}

/// `--exhaustive`: the exact match values, compared with the margins' verdicts.
#[derive(serde::Serialize)]
struct ExhaustiveJson {
    /// Whether the rounds' searches stopped at the tables (more than 1 seed a hole) or were
    /// searched without them (1 seed a hole).
    with_tables: bool,
    values: Vec<ExactJson>,
    south_wins: usize,
    north_wins: usize,
    endless: usize,
    /// The margins' verdicts the exact values confirmed (the same value, or the same winner).
    confirmed: usize,
    /// Always 0 in an answer: a contradiction is an error.
    contradicted: usize,
    start: Option<VerdictJson>,
}

#[derive(serde::Serialize)]
struct ExactJson {
    south: u32,
    starter: Side,
    #[serde(flatten)]
    value: VerdictJson,
    /// The margins' verdict against it: `"same"`, `"same_winner"`, `"different"`, or null
    /// when the margins do not decide the state.
    margins: Option<&'static str>,
}

/// Text to stdout unless `json` (then nothing: the object is printed at the end).
macro_rules! text {
    ($json:expr, $($arg:tt)*) => {
        if !$json {
            outln!($($arg)*)?;
        }
    };
}

/// `pussa egtb match`; with `json` one object ([`MatchJson`]) instead of the text.
#[allow(clippy::too_many_arguments, clippy::too_many_lines)]
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
    json: bool,
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
    text!(
        json,
        "{game}: tables 0..={} seeds (open board and closed patterns) opened in {:.2} s",
        tables.max_seeds(),
        t0.elapsed().as_secs_f64()
    );
    let t1 = Instant::now();
    let m = play_match(&tables, per_hole, first, nodes, 200)?;
    let mut out = MatchJson {
        game: game.name(),
        first,
        seeds_per_hole: per_hole,
        tables_max_seeds: tables.max_seeds(),
        rounds: Vec::new(),
        result: ResultJson {
            kind: "limit",
            winner: None,
            rounds: m.rounds.len(),
            repeats: None,
            of: None,
        },
        states: None,
        exhaustive: None,
    };
    text!(json, "Every round played perfectly for seeds:");
    // South's holding at the start of each round: the start's own, then each round's end's.
    let mut south = 7 * u32::from(per_hole);
    for r in &m.rounds {
        if json {
            // The round's first position, laid out as `play_match` laid it out (its position
            // string is not one of a whole game when the match is reduced).
            let pos = round_start(game, per_hole, south, r.starter);
            south = u32::from(r.holdings[0]);
            let closed = pos.closed_mask();
            out.rounds.push(RoundJson {
                round: r.round,
                position: r.start.clone(),
                starter: r.starter,
                filled: r.filled,
                remainder: pos.stores(),
                closed: (0..14).filter(|i| closed & (1 << i) != 0).collect(),
                value: r.value,
                taken: r.taken,
                reason: r.reason,
                holdings: r.holdings,
                next_starter: r.next_starter,
                pv: r.pv.clone(),
                nodes: r.nodes,
            });
            continue;
        }
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
        MatchEnd::Won(w) => {
            out.result.kind = "won";
            out.result.winner = Some(w);
            text!(
                json,
                "{w} wins the match in {} ({:.1} s)",
                plural(m.rounds.len() as u64, "round", "rounds"),
                t1.elapsed().as_secs_f64()
            );
        }
        MatchEnd::Cycle { repeats, of } => {
            out.result.kind = "cycle";
            out.result.repeats = Some(repeats);
            out.result.of = Some(of);
            text!(
                json,
                "round {repeats} would start as round {of} did: with this play the match never ends"
            );
        }
        MatchEnd::Limit => text!(
            json,
            "stopped after {}",
            plural(m.rounds.len() as u64, "round", "rounds")
        ),
    }
    if states {
        solve_states(&tables, per_hole, nodes, first, exhaustive, json, &mut out)?;
    }
    if json {
        outln!("{}", serde_json::to_string(&out)?)?;
    }
    Ok(())
}

/// `egtb match --states` (and `--exhaustive`): the text, or the fields of `out` if `json`.
fn solve_states(
    tables: &MatchTables,
    per_hole: u8,
    nodes: u64,
    first: Side,
    exhaustive: bool,
    json: bool,
    out: &mut MatchJson,
) -> anyhow::Result<()> {
    let game = tables.game();
    let t2 = Instant::now();
    let mut round_starts = Vec::new();
    let sol = solve_match(tables, per_hole, nodes, &mut |pos, v, n| {
        if json {
            round_starts.push(RoundStartJson {
                position: Setup::from_position(pos, 2).to_string(),
                to_move: pos.to_move(),
                value: v,
                nodes: n,
            });
            return;
        }
        let _ = outln!(
            "  round start {}: margin {v:+} for {} ({})",
            Setup::from_position(pos, 2),
            pos.to_move(),
            plural(n, "node", "nodes")
        );
    })?;
    text!(
        json,
        "Match states (South's holding, starter), by backward induction on the round margins: {} solved, {}, {:.1} s",
        plural(sol.rounds_solved as u64, "round start", "round starts"),
        plural(sol.nodes, "node", "nodes"),
        t2.elapsed().as_secs_f64()
    );
    let (mut ws, mut wn, mut dr, mut un) = (0, 0, 0, 0);
    let mut state_list = Vec::new();
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
        if json {
            state_list.push(StateJson {
                south: s.south,
                starter: s.starter,
                board: s.board,
                margin: s.margin,
                value: VerdictJson::of(s.value),
            });
        }
        text!(
            json,
            "  S holds {:>3}, {} starts ({} on the board): round margin {:+} for South; {v}",
            s.south,
            s.starter,
            plural(u64::from(s.board), "seed", "seeds"),
            s.margin
        );
    }
    text!(
        json,
        "{} states: South wins {ws}, North wins {wn}, endless {dr}, unresolved {un}",
        sol.states.len()
    );
    let start = 7 * u32::from(per_hole);
    if let Some(s) = sol.get(start, first) {
        text!(
            json,
            "The match from the start ({first} first): {}",
            s.value
        );
    }
    out.states = json.then(|| StatesJson {
        round_starts,
        rounds_solved: sol.rounds_solved,
        nodes: sol.nodes,
        values: state_list,
        south_wins: ws,
        north_wins: wn,
        endless: dr,
        unresolved: un,
        start: sol.get(start, first).map(|s| VerdictJson::of(s.value)),
    });
    if !exhaustive {
        return Ok(());
    }
    let t3 = Instant::now();
    let exact = if per_hole <= 1 {
        pussa_egtb::matches::solve_match_exhaustive(game, per_hole, nodes)?
    } else {
        pussa_egtb::matches::solve_match_with_tables(tables, per_hole, nodes)?
    };
    text!(
        json,
        "Exact match values (every round searched to its end{}), {:.1} s:",
        if per_hole <= 1 {
            ""
        } else {
            ", stopping at the tables where a threshold decides"
        },
        t3.elapsed().as_secs_f64()
    );
    let mut disagree = 0;
    let mut confirmed = 0;
    let mut exact_list = Vec::new();
    for &(south, starter, v) in &exact {
        let m = sol.get(south, starter).map(|s| s.value);
        let margins = match m {
            Some(MatchValue::Unresolved) | None => None,
            Some(mv) if mv == v => {
                confirmed += 1;
                Some("same")
            }
            Some(MatchValue::Win { side, .. }) if matches!(v, MatchValue::Win { side: w, .. } if w == side) =>
            {
                confirmed += 1;
                Some("same_winner")
            }
            Some(_) => {
                disagree += 1;
                Some("different")
            }
        };
        if json {
            exact_list.push(ExactJson {
                south,
                starter,
                value: VerdictJson::of(v),
                margins,
            });
            continue;
        }
        let note = match margins {
            None => "",
            Some("same") => "  (margins: the same)",
            Some("same_winner") => "  (margins: the same winner)",
            Some(_) => "  (margins: DIFFERENT)",
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
    text!(
        json,
        "exact: South wins {ws}, North wins {wn}, endless {dr}; the margins' verdicts confirmed {confirmed}, contradicted {disagree}"
    );
    let exact_start = exact
        .iter()
        .find(|&&(s, st, _)| s == start && st == first)
        .map(|&(_, _, v)| v);
    if let Some(v) = exact_start {
        text!(
            json,
            "The match from the start ({first} first), exactly: {v}"
        );
    }
    if disagree > 0 {
        bail!("{disagree} states where the margins' verdict contradicts the exact value");
    }
    out.exhaustive = json.then(|| ExhaustiveJson {
        with_tables: per_hole > 1,
        values: exact_list,
        south_wins: ws,
        north_wins: wn,
        endless: dr,
        confirmed,
        contradicted: disagree,
        start: exact_start.map(VerdictJson::of),
    });
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
            false,
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
            false,
        )
        .expect("match");
        std::fs::remove_dir_all(&dir).ok();
    }
}
