//! `pussa analyze`: every legal move with its value in seeds and its principal variation.

use std::io::Write;
use std::time::Duration;

use anyhow::bail;
use pussa_engine::{analyze_report, Limits};
use pussa_rules::{Event, Game, GameState, Hole, Mode, RoundResult, Setup, Side, Status};
use serde::Serialize;

use crate::cmd_replay::{
    over_at_once, parse_moves, play_moves, refill_words, round_end_words, start_state, StateJson,
};

/// List every legal move of a position with its value for the player to move if that move is
/// played and both sides then play best: in a single game the round's final seed margin (seeds
/// already taken in the round included); with --match the match value of docs/engine.md,
/// "Matches" (the holdings margin expected after the next round, or the round's margin ±200 for
/// a round that ends the match). Also whether each value is proven (exact), and the line of best play.
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
    /// Moves played from the start before analysing, separated by spaces or commas.
    #[arg(long, allow_hyphen_values = true)]
    pub moves: Option<String>,
    /// Search this many plies deep (default 12, less if every value is proven sooner).
    #[arg(long, value_parser = crate::numarg::ranged::<u32>(1, 96), conflicts_with = "movetime")]
    pub depth: Option<u32>,
    /// Search for this many milliseconds instead of to a fixed depth.
    #[arg(long, value_parser = crate::numarg::ranged::<u64>(1, 3_600_000))]
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
    round_end: Option<RoundResult>,
    state: StateJson,
    over: bool,
    depth: u32,
    nodes: u64,
    value: Option<i32>,
    value_exact: bool,
    moves: Vec<MoveJson>,
}

impl AnalysisJson {
    /// The answer's fields that come from the position alone: not over, nothing searched.
    /// `asked` is the position asked about (given, after the moves), `g` the state analysed.
    fn of(g: &GameState, asked: &Asked, mode: &'static str, values: &'static str) -> AnalysisJson {
        AnalysisJson {
            game: g.game().name(),
            mode,
            values,
            position: asked.position.clone(),
            analysed: (!g.is_over()).then(|| Setup::from_state(g).to_string()),
            round_end: asked.round_end,
            state: StateJson::of(g),
            over: false,
            depth: 0,
            nodes: 0,
            value: None,
            value_exact: false,
            moves: Vec::new(),
        }
    }
}

/// The position asked about, before a round over in it is passed.
struct Asked {
    /// Its position string: `--position` as given (or the opening), after `--moves`.
    position: String,
    /// The round that is already over in it, if one is.
    round_end: Option<RoundResult>,
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
    play_moves(&mut g, start_round, &moves, |_, _, _, _| Ok(()))?;
    // The position asked about: a position given whose round is already over is ended at once
    // (its board swept), so it is written as given.
    let position = match (args.position.as_deref(), moves.is_empty()) {
        (Some(p), true) => p.parse::<Setup>()?.to_string(),
        _ => Setup::from_state(&g).to_string(),
    };
    let (over_why, round_end) = match g.status() {
        Status::Playing => (None, None),
        Status::RoundOver { result, .. } | Status::Over { result, .. } => {
            (over_at_once(&g), Some(result))
        }
    };
    let asked = Asked {
        position,
        round_end,
    };
    let here = if moves.is_empty() {
        "in this position"
    } else {
        "after the moves given"
    };
    // In a match whose round is over, the next round is laid out and analysed (said below).
    let mut refill = Vec::new();
    if matches!(g.status(), Status::RoundOver { .. }) {
        g.next_round_traced(&mut refill);
    }
    let (mode_name, values_name) = match mode {
        Mode::Single => ("single", "round_margin"),
        Mode::Match => ("match", "match_value"),
    };
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
        let result = match g.winner().flatten() {
            Some(side) => format!("{side} wins"),
            None => "a draw".to_string(),
        };
        match over_why {
            Some(why) => bail!(
                "the round is already over {here}: {why}, so the {what} is over ({result}): \
                 there is no move to analyse"
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
    let limits = Limits {
        depth: args.depth,
        movetime: args.movetime.map(Duration::from_millis),
        oracle,
        ..Limits::default()
    };
    let analysis = analyze_report(&g, &limits);
    let values = &analysis.moves;
    let mut out = crate::stdout();
    if args.json {
        let value = analysis.value();
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
            ..AnalysisJson::of(&g, &asked, mode_name, values_name)
        };
        writeln!(out, "{}", serde_json::to_string(&a)?)?;
        return Ok(());
    }
    // A round over in the position asked about: why, and the next round's layout analysed.
    if let (Some(why), Some(result)) = (&over_why, &asked.round_end) {
        writeln!(
            out,
            "(the round is already over {here}: {why}; round {} is laid out and analysed)",
            g.round()
        )?;
        writeln!(out, "{}", round_end_words(game, result))?;
        for e in &refill {
            if let Event::Refill {
                round,
                filled,
                remainder,
                closed,
                starter,
            } = *e
            {
                writeln!(out, "Round {round}:")?;
                for line in refill_words(game, filled, remainder, closed, starter) {
                    writeln!(out, "  {line}")?;
                }
            }
        }
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
            "values: match values for {me} (docs/engine.md, \"Matches\"): the holdings margin \
             {me} can expect after the next round ({me}'s holding minus {you}'s), or, where \
             the round ends the match, the round's margin ±200 (seeds taken this round by \
             {me} minus by {you}, +200 for a match won, -200 for one lost). A value \
             that counts on the next round rests on the engine's estimate of that round, so \
             only a match won or lost can be exact"
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
    Ok(())
}
