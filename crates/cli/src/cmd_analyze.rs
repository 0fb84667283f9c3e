//! `pussa analyze`: every legal move with its value in seeds and its principal variation.

use std::io::Write;
use std::time::Duration;

use anyhow::bail;
use pussa_engine::protocol::{MAX_GO_DEPTH, MAX_MOVETIME_MS as MAX_GO_MOVETIME_MS};
use pussa_engine::{analyze_report, Limits};
use pussa_rules::narrate;
use pussa_rules::record::RecordResult;
use pussa_rules::{EndReason, Game, GameState, Hole, Mode, RoundResult, Setup, Side, Status};
use serde::Serialize;

use crate::cmd_replay::{over_at_once, parse_moves, play_moves, start_state, StateJson};

/// List every legal move of a position with its value for the player to move if that move is
/// played and both sides then play best: in a single game the round's final seed margin (seeds
/// already taken in the round included); with --match the match value of docs/engine.md,
/// "Matches", in holdings (the holdings margin expected after the next round, or the final
/// holdings margin ±200 for a round that ends the match). Also whether each value is proven
/// (exact), and the line of best play.
#[derive(clap::Args)]
#[command(after_help = "Examples:\n  pussa analyze --game raja-pasu\n  \
    pussa analyze --game walak-pussa --moves \"A d\" --depth 16 --json\n  \
    pussa analyze --game pasu-pondi --match --movetime 2000")]
pub struct Args {
    /// The game: walak-pussa, raja-pasu, pasu-pondi or pasu-pondi-6 (default: the game the
    /// `--position` string names).
    #[arg(long, required_unless_present = "position")]
    pub game: Option<Game>,
    /// A match of several rounds instead of a single game (matters once moves end a round).
    #[arg(long = "match")]
    pub match_mode: bool,
    /// Who moves first: S (South) or N (North).
    #[arg(long, conflicts_with = "position")]
    pub first: Option<Side>,
    /// Start from this position string (see `pussa rules`).
    #[arg(long)]
    pub position: Option<String>,
    /// Moves played from the start before analysing, separated by spaces or commas, taken as
    /// `replay` takes them: a decided result at the end (`1-0`, a resignation) ends the game.
    #[arg(long, allow_hyphen_values = true)]
    pub moves: Option<String>,
    /// Search this many plies deep (default 12, less if every value is proven sooner): 1 to
    /// 1000, as the engine protocol's `go depth`; the search goes at most 96 plies deep, so a
    /// deeper one is searched to 96 (a note on stderr says so).
    #[arg(long, allow_negative_numbers = true, value_parser = crate::numarg::ranged::<u32>(1, MAX_GO_DEPTH.into()), conflicts_with = "movetime")]
    pub depth: Option<u32>,
    /// Search for this many milliseconds instead of to a fixed depth: 0 to 86400000 (a day), as
    /// the engine protocol's `go movetime`; 0 answers at once, with the moves' immediate gains
    /// (depth 0) if no iteration is completed by then.
    #[arg(long, allow_negative_numbers = true, value_parser = crate::numarg::ranged::<u64>(0, MAX_GO_MOVETIME_MS))]
    pub movetime: Option<u64>,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Use the endgame tables in this directory (built by `pussa egtb build`, and the
    /// closed-hole tables built there with `--closed`): positions they cover get exact values
    /// without search. `none`: no tables (the default).
    #[arg(long, value_name = "DIR")]
    pub egtb: Option<std::path::PathBuf>,
}

#[derive(Serialize)]
struct MoveJson {
    #[serde(rename = "move")]
    mv: String,
    score: i32,
    exact: bool,
    pv: Vec<String>,
}

/// The JSON answer (docs/engine.md, "Analysis": the schema).
#[derive(Serialize)]
struct AnalysisJson {
    game: &'static str,
    mode: &'static str,
    values: &'static str,
    position: String,
    analysed: Option<String>,
    round_end: Option<RoundEndJson>,
    state: StateJson,
    over: bool,
    depth: u32,
    nodes: u64,
    value: Option<i32>,
    value_exact: bool,
    moves: Vec<MoveJson>,
    unresolved: Vec<String>,
}

impl AnalysisJson {
    /// The answer's fields that come from the position alone: not over, nothing searched.
    /// `asked` is the position asked about (given, after the moves), `g` the state analysed.
    fn of(g: &GameState, asked: &Asked, mode: &'static str, values: &'static str) -> AnalysisJson {
        AnalysisJson {
            state: StateJson::of(g),
            ..AnalysisJson::of_searched(g, asked, mode, values)
        }
    }

    /// [`AnalysisJson::of`] with the state's legal moves left empty, for a caller that fills
    /// `state` with the moves its search proved legal.
    fn of_searched(
        g: &GameState,
        asked: &Asked,
        mode: &'static str,
        values: &'static str,
    ) -> AnalysisJson {
        AnalysisJson {
            game: g.game().name(),
            mode,
            values,
            position: asked.position.clone(),
            analysed: (!g.is_over()).then(|| Setup::from_state(g).to_string()),
            round_end: asked.round_end,
            state: StateJson::with_legal(g, Vec::new()),
            over: false,
            depth: 0,
            nodes: 0,
            value: None,
            value_exact: false,
            moves: Vec::new(),
            unresolved: Vec::new(),
        }
    }
}

/// The position asked about, before a round over in it is passed.
struct Asked {
    /// Its position string: `--position` as given (or the opening), after `--moves` (a round
    /// their last move ended laid out).
    position: String,
    /// The round that is already over in it, if one is.
    round_end: Option<RoundEndJson>,
}

/// A round's end as the web state's `rounds` write it: a drawn round's winner is `"draw"`.
#[derive(Clone, Copy, Serialize)]
struct RoundEndJson {
    round: u32,
    reason: EndReason,
    swept: [u8; 2],
    taken: [u8; 2],
    winner: &'static str,
}

impl RoundEndJson {
    fn of(r: &RoundResult) -> RoundEndJson {
        RoundEndJson {
            round: r.round,
            reason: r.reason,
            swept: r.swept,
            taken: r.taken,
            winner: match r.winner {
                Some(Side::South) => "S",
                Some(Side::North) => "N",
                None => "draw",
            },
        }
    }
}

/// A round over in `g` that the match goes on from: told as `replay` tells it (its end, the
/// holdings, the next round's layout), with `g` moved on to the next round. Nothing (and `g`
/// unchanged) when the round is not over or the game is.
fn next_round_told(g: &mut GameState) -> Vec<String> {
    let Status::RoundOver { result, .. } = g.status() else {
        return Vec::new();
    };
    let game = g.game();
    let mut lines = vec![narrate::round_end(game, &result), narrate::holding(g)];
    let mut refill = Vec::new();
    g.next_round_traced(&mut refill);
    lines.extend(narrate::refill_lines(game, &refill));
    lines
}

fn letters(pv: &[Hole]) -> Vec<String> {
    pv.iter().map(|h| h.letter().to_string()).collect()
}

/// Runs `pussa analyze`.
///
/// # Errors
/// A bad position or move list, an illegal move (naming its number), or a game already over
/// (without `--json`: with it, the answer says `"over": true`).
pub fn run(args: Args) -> anyhow::Result<()> {
    let mode = if args.match_mode {
        Mode::Match
    } else {
        Mode::Single
    };
    let game = crate::cmd_replay::game_of(args.game, args.position.as_deref())?;
    let mut g = start_state(game, mode, args.first, args.position.as_deref())?;
    let moves = parse_moves(args.moves.as_deref().unwrap_or(""));
    let start_round = g.round();
    let mut played = 0usize;
    let listed = play_moves(&mut g, start_round, &moves, |_, _, _, _| {
        played += 1;
        Ok(())
    })?;
    // A decided result after moves that leave the game unfinished (a resignation) ends it, as
    // in `replay` and `explain`: its winner (`None`: a draw) and token.
    let decided = listed
        .filter(|r| *r != RecordResult::Unfinished && !g.is_over())
        .map(|r| {
            let winner = match r {
                RecordResult::SouthWins => Some(Side::South),
                RecordResult::NorthWins => Some(Side::North),
                _ => None,
            };
            (winner, r.token())
        });
    // A round the last move given ended: that move has ended it and, in a match, laid out the
    // next round (as `replay`, the web and a record have it), so the position asked about is the
    // next round's start. Told in words as `replay` tells it.
    let mut ended_by_moves = Vec::new();
    let mut over_why = None;
    // A decided result after them ends the match with that round: no next round.
    if played > 0 && g.is_round_over() && decided.is_none() {
        over_why = over_at_once(&g);
        ended_by_moves = next_round_told(&mut g);
        if !ended_by_moves.is_empty() {
            over_why = None;
        }
    }
    // The position asked about: a position given whose round is already over is ended at once
    // (its board swept), so it is written as given.
    let position = match (args.position.as_deref(), played) {
        (Some(p), 0) => p.parse::<Setup>()?.to_string(),
        _ => Setup::from_state(&g).to_string(),
    };
    // The round over in that position. After moves, the round end they played (only moves that
    // ended the game or match leave one: a round they ended is followed by the next round's
    // layout), as the web state's `rounds` has it; for a position given, as reading it ends it,
    // so `position` alone gives the same answer.
    let round_end = if played > 0 {
        match g.status() {
            Status::Over { result, .. } => Some(RoundEndJson::of(&result)),
            // The round the match ends with, by a decided result after the moves.
            Status::RoundOver { result, .. } if decided.is_some() => {
                Some(RoundEndJson::of(&result))
            }
            Status::Playing | Status::RoundOver { .. } => None,
        }
    } else {
        match start_state(game, mode, None, Some(&position))?.status() {
            Status::Playing => None,
            Status::RoundOver { result, .. } | Status::Over { result, .. } => {
                Some(RoundEndJson::of(&result))
            }
        }
    };
    let asked = Asked {
        position,
        round_end,
    };
    // Why a round over in the position given ended, and the next round's layout analysed.
    let mut over_here = Vec::new();
    if played == 0 {
        over_why = over_at_once(&g);
        over_here = next_round_told(&mut g);
    }
    let here = if played == 0 {
        "the round is already over in this position"
    } else {
        "the moves given end the round"
    };
    let (mode_name, values_name) = match mode {
        Mode::Single => ("single", "round_margin"),
        Mode::Match => ("match", "match_value"),
    };
    if let Some((winner, token)) = decided {
        if args.json {
            let a = AnalysisJson {
                over: true,
                analysed: None,
                state: StateJson::of(&g).decided(winner),
                ..AnalysisJson::of(&g, &asked, mode_name, values_name)
            };
            writeln!(crate::stdout(), "{}", serde_json::to_string(&a)?)?;
            return Ok(());
        }
        let what = if mode == Mode::Match { "match" } else { "game" };
        let verdict = winner.map_or("a draw".to_string(), |w| format!("{w} wins"));
        bail!(
            "the {what} is over ({verdict}: the result given after the moves, {token}): there is \
             no move to analyse"
        );
    }
    if g.is_over() {
        if args.json {
            let a = AnalysisJson {
                over: true,
                ..AnalysisJson::of(&g, &asked, mode_name, values_name)
            };
            writeln!(crate::stdout(), "{}", serde_json::to_string(&a)?)?;
            return Ok(());
        }
        let what = if mode == Mode::Match { "match" } else { "game" };
        let result = narrate::result(&g).unwrap_or_default();
        match over_why {
            Some(why) => bail!(
                "{here}: {why}, so the {what} is over ({result}): there is no move to analyse"
            ),
            None => bail!("the {what} is over ({result}): there is no move to analyse"),
        }
    }
    let oracle =
        match &args.egtb {
            None => None,
            // As `play` and `serve` take it: no tables.
            Some(dir) if dir.as_os_str().eq_ignore_ascii_case("none") => None,
            Some(dir) => Some(pussa_egtb::oracle::oracle(game, dir)?.ok_or_else(|| {
                anyhow::anyhow!("--egtb: no {} tables in {}", game, dir.display())
            })?),
        };
    // The search goes at most MAX_DEPTH plies deep: a deeper --depth is searched to it, and
    // says so, as the engine protocol's `go depth` does.
    let max = pussa_engine::params::MAX_DEPTH;
    if let Some(d) = args.depth.filter(|&d| d > max) {
        errln!(
            "note: --depth {d} is beyond the search's maximum depth {max}; searching to depth {max}"
        );
    }
    let limits = Limits {
        depth: args.depth.map(|d| d.min(max)),
        movetime: args.movetime.map(Duration::from_millis),
        oracle,
        ..Limits::default()
    };
    let analysis = analyze_report(&g, &limits);
    let values = &analysis.moves;
    let mut out = crate::stdout();
    if args.json {
        let value = analysis.value();
        // The legal moves as the search knew them: the moves it proved legal (a move it left
        // unresolved is named in `unresolved`), not proven again after its time.
        let mut legal: Vec<Hole> = values.iter().map(|v| v.mv).collect();
        legal.sort_by_key(|h| h.index());
        let a = AnalysisJson {
            depth: analysis.depth,
            nodes: analysis.nodes,
            value: value.map(|v| v.0),
            value_exact: value.is_some_and(|v| v.1),
            moves: values
                .iter()
                .map(|v| MoveJson {
                    mv: v.mv.letter().to_string(),
                    score: v.score,
                    exact: v.exact,
                    pv: letters(&v.pv),
                })
                .collect(),
            unresolved: letters(&analysis.unresolved),
            state: StateJson::with_legal(&g, letters(&legal)),
            ..AnalysisJson::of_searched(&g, &asked, mode_name, values_name)
        };
        writeln!(out, "{}", serde_json::to_string(&a)?)?;
        return Ok(());
    }
    // A round over in the position asked about: why, and the next round's layout analysed.
    if let (Some(why), false) = (&over_why, over_here.is_empty()) {
        writeln!(
            out,
            "(the round is already over in this position: {why}; round {} is laid out and analysed)",
            g.round()
        )?;
    }
    // The round's end (in the position given, or by the moves given) as `replay` tells it.
    for line in over_here.iter().chain(&ended_by_moves) {
        writeln!(out, "{line}")?;
    }
    if !over_here.is_empty() || !ended_by_moves.is_empty() {
        writeln!(out)?;
    }
    let pos = g.position();
    writeln!(out, "{pos}")?;
    writeln!(out, "position {}", Setup::from_state(&g))?;
    let (me, you) = (pos.to_move(), pos.to_move().other());
    match mode {
        Mode::Single => writeln!(
            out,
            "values: the round's final seed margin for {me} (seeds taken this round by {me} minus by {you})"
        )?,
        Mode::Match => writeln!(
            out,
            "values: match values for {me} (docs/engine.md in pussa's source, \"Matches\"), in holdings \
             ({me}'s holding minus {you}'s, the seeds kept at the last refill included): the \
             holdings margin {me} can expect after the next round, or, where the round ends \
             the match, the final holdings margin ±200 (+200 for a match won, -200 for one \
             lost). A value that counts on the next round rests on the engine's estimate of \
             that round, so only a match won or lost can be exact"
        )?,
    }
    if let Some((v, exact)) = analysis.value() {
        writeln!(
            out,
            "position value {v:+} {}, depth {}, {} nodes",
            if exact { "exact" } else { "(not proven)" },
            analysis.depth,
            analysis.nodes
        )?;
    }
    writeln!(
        out,
        "{:<5} {:>6}  {:<6} principal variation",
        "move", "value", ""
    )?;
    for v in values {
        writeln!(
            out,
            "{:<5} {:>+6}  {:<6} {}",
            v.mv.letter(),
            v.score,
            if v.exact { "exact" } else { "" },
            letters(&v.pv).join(" ")
        )?;
    }
    if !analysis.unresolved.is_empty() {
        writeln!(
            out,
            "unresolved: {} (its sowing was neither seen to end nor proven endless within the \
             time: not valued, and never played by the engine; `pussa rules`, \"Endless moves\")",
            letters(&analysis.unresolved).join(" ")
        )?;
    }
    Ok(())
}
