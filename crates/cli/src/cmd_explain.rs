//! `pussa explain`: one move told lap by lap, from the sowing trace.

use std::io::Write;

use anyhow::{anyhow, bail};
use pussa_rules::narrate;
use pussa_rules::record::RecordResult;
use pussa_rules::{EndReason, Event, Game, GameState, Hole, IllegalReason, Mode, Side, Status};

use crate::cmd_replay::{board, game_of, over_at_once, parse_moves, play_moves, start_state};

/// Tell a move lap by lap: every lift and where its seeds went, the fours taken on the way,
/// the empty hole that ends the sowing, the capture across it (and Walak-pussa's chain), and
/// the end of the round if the move ends it (with --match, the next round's refill too).
#[derive(clap::Args)]
#[command(
    after_help = "Examples:\n  pussa explain --game walak-pussa --move A\n  \
    pussa explain --game raja-pasu --match --moves \"G a D g\" --move D\n\n\
    A position string carries no history: the repetition rule (a position that recurs in its \
    round ends the round) sees only the positions reached from it, through --moves and the \
    move explained. To explain a move of a real game, give the game's moves before it with \
    --moves (from the start, or from the --position the game started from)."
)]
pub struct Args {
    /// The game: walak-pussa, raja-pasu, pasu-pondi or pasu-pondi-6 (default: the game the
    /// `--position` string names).
    #[arg(long, required_unless_present = "position")]
    pub game: Option<Game>,
    /// Who moves first when starting from the opening: S (South, the default) or N (North).
    #[arg(long, conflicts_with = "position")]
    pub first: Option<Side>,
    /// Explain the move in this position (a position string) instead of the start position.
    /// A position string carries no history, so a move that repeats an earlier position of
    /// the round ends it only if --moves played that position.
    #[arg(long)]
    pub position: Option<String>,
    /// Moves played before the move explained (from the start or from --position), as
    /// `replay` and `analyze` take them: record movetext, with move numbers, round markers and
    /// comments allowed. The repetition rule sees the positions they reach in the round.
    #[arg(long, allow_hyphen_values = true)]
    pub moves: Option<String>,
    /// Treat the position as part of a match: a move that ends the round goes on with the
    /// holdings, the next round's refill and its starter (with --json, a `refill` event).
    #[arg(long = "match")]
    pub match_mode: bool,
    /// The move: a hole letter, A-G (South) or a-g (North).
    #[arg(long = "move")]
    pub mv: Hole,
    /// Print the trace's events as a JSON array instead of words, as the crate's `Event` and the
    /// web API's trace write them (a refill's `closed`: the indices of the closed holes, as in
    /// `replay --json`). From a position whose round is already over, the round's `round_end`
    /// and the next round's `refill` come first.
    #[arg(long)]
    pub json: bool,
}

/// Runs `pussa explain`.
///
/// # Errors
/// A malformed position, or an illegal or endless move.
pub fn run(args: Args) -> anyhow::Result<()> {
    let mode = if args.match_mode {
        Mode::Match
    } else {
        Mode::Single
    };
    let game = game_of(args.game, args.position.as_deref())?;
    let mut g: GameState = start_state(game, mode, args.first, args.position.as_deref())?;
    // The game's history: the moves before the one explained, so that repetition is checked.
    let moves = parse_moves(args.moves.as_deref().unwrap_or(""));
    let start_round = g.round();
    let mut played = 0usize;
    let listed = play_moves(&mut g, start_round, &moves, |_, _, _, _| {
        played += 1;
        Ok(())
    })?;
    if let Some(r) = listed {
        if r != RecordResult::Unfinished {
            bail!(
                "--moves ends with the result {r}: no move follows the end of the {}",
                if mode == Mode::Match { "match" } else { "game" }
            );
        }
    }
    let what = if mode == Mode::Match { "match" } else { "game" };
    // The moves given ended the round with their last move: that move has ended it and, in a
    // match, laid out the next round (as `replay`, the web trace and a record have it), so
    // the move explained is the next round's first and its trace is that move's alone.
    if played > 0 && g.is_round_over() {
        if let (true, Some(why)) = (g.is_over(), over_at_once(&g)) {
            bail!(
                "move {}: the moves given end the round: {why}, so the {what} is over ({})",
                args.mv,
                narrate::result(&g).unwrap_or_default()
            );
        }
        g.next_round();
    }
    // A position whose round is already over (the project ends it at once) has no move to
    // explain; in a match it goes on with the next round, as in `replay`.
    let over = over_at_once(&g);
    // What happens before the move: the round's end and, in a match, the next round's refill.
    let mut events = Vec::new();
    let mut ended = None;
    if let Some(why) = &over {
        // A move whose endless sowing left its player stuck is refused for that reason, as
        // an endless move is anywhere else.
        if let Status::RoundOver { result, .. } | Status::Over { result, .. } = g.status() {
            if let EndReason::NoLegalMove { endless, .. } = result.reason {
                if endless.contains(args.mv) {
                    bail!("move {}: {}", args.mv, IllegalReason::Endless);
                }
            }
        }
        let over_here = format!("the round is already over in this position: {why}");
        if g.is_over() {
            bail!(
                "move {}: {over_here}, so the {what} is over ({})",
                args.mv,
                narrate::result(&g).unwrap_or_default()
            );
        }
        if let Status::RoundOver { result, .. } = g.status() {
            events.push(Event::RoundEnd {
                reason: result.reason,
                swept: result.swept,
            });
            ended = Some((result, narrate::holding(&g)));
        }
        g.next_round_traced(&mut events);
        if let Err(e) = g.clone().play(args.mv) {
            bail!(
                "move {}: {over_here}; round {}, laid out next, cannot start with it: {}",
                args.mv,
                g.round(),
                e.reason
            );
        }
    }
    let laid_out = over.is_some();
    let before_round = g.round();
    let before = *g.position();
    let laid = events.len();
    let report = g
        .play_traced(args.mv, &mut events)
        .map_err(|e| anyhow!("move {}: {}", args.mv, e.reason))?;
    // In a match, a round's end goes on with the refill of the next round, as the server's trace.
    let next = match g.status() {
        Status::RoundOver { .. } => {
            let holding = narrate::holding(&g);
            g.next_round_traced(&mut events).then_some(holding)
        }
        _ => None,
    };
    let mut out = crate::stdout();
    if args.json {
        serde_json::to_writer(&mut out, &events)?;
        writeln!(out)?;
        return Ok(());
    }
    if let (true, Some(why)) = (laid_out, &over) {
        writeln!(
            out,
            "(the round is already over in this position: {why}; round {} is laid out first)",
            before_round
        )?;
        if let Some((result, holding)) = &ended {
            writeln!(out, "{}", narrate::round_end(game, result))?;
            writeln!(out, "{holding}")?;
        }
        write_refill(&mut out, game, &events[..laid])?;
    }
    writeln!(
        out,
        "{}, {} plays {}:",
        game.title(),
        before.to_move(),
        args.mv
    )?;
    for line in narrate::move_lines(&before, &events[laid..]) {
        writeln!(out, "  {line}")?;
    }
    let t = report.outcome.taken;
    writeln!(out, "Taken: South {}, North {}.", t[0], t[1])?;
    if let Some(r) = report.round_end {
        writeln!(out, "{}", narrate::round_end(game, &r))?;
    }
    if let Some(holding) = next {
        writeln!(out, "{holding}")?;
        write_refill(&mut out, game, &events[laid..])?;
    }
    if let Some(w) = g.winner() {
        let what = if mode == Mode::Match { "match" } else { "game" };
        match w {
            Some(side) => writeln!(out, "The {what} is over: {side} wins.")?,
            None => writeln!(out, "The {what} is over: a draw.")?,
        }
    }
    writeln!(out, "\n{}", board(&g))?;
    if let Some(side) = g.to_move() {
        writeln!(out, "{side} to move")?;
    }
    Ok(())
}

/// Writes the refill among `events`, if there is one: "Round N:" and its words, indented.
fn write_refill(out: &mut impl Write, game: Game, events: &[Event]) -> std::io::Result<()> {
    for line in narrate::refill_lines(game, events) {
        writeln!(out, "{line}")?;
    }
    Ok(())
}
