//! `pussa explain`: one move told lap by lap, from the sowing trace.

use std::io::Write;

use anyhow::{anyhow, bail};
use pussa_rules::record::RecordResult;
use pussa_rules::{
    Direction, EndReason, Event, Game, GameState, Hole, IllegalReason, Mode, Position, Side, Status,
};

use crate::cmd_replay::{
    board, game_of, holding_words, over_at_once, parse_moves, play_moves, refill_lines,
    result_words, round_end_words, start_state,
};

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

/// The next open hole after `i` in the game's direction.
fn next_open(pos: &Position, i: Hole) -> Hole {
    let step = |k: usize| match pos.game().direction() {
        Direction::Counterclockwise => (k + 1) % 14,
        Direction::Clockwise => (k + 13) % 14,
    };
    let mut k = step(i.index());
    for _ in 0..14 {
        if pos.is_open(Hole::ALL[k]) {
            break;
        }
        k = step(k);
    }
    Hole::ALL[k]
}

/// The holes a lap's seeds fell in: all of them when five or fewer, else "first … last"; a lap
/// whose last seed alone crosses into the other row shows the row's last hole too, so that the
/// crossing shows ("B … G a"), as docs/rules.md tells Raja Pasu's `G`.
fn drops(holes: &[Hole]) -> String {
    if holes.len() <= 5 {
        holes
            .iter()
            .map(|h| h.letter().to_string())
            .collect::<Vec<_>>()
            .join(" ")
    } else {
        let (last, rest) = holes.split_last().unwrap_or((&holes[0], &[]));
        let row = rest[0].owner();
        if last.owner() != row && rest.iter().all(|h| h.owner() == row) {
            format!("{} … {} {last}", rest[0], rest[rest.len() - 1])
        } else {
            format!("{} … {last}", holes[0])
        }
    }
}

/// The seeds of a capture as a pronoun: "it" for one seed, "them" for more.
fn them(seeds: u8) -> &'static str {
    if seeds == 1 {
        "it"
    } else {
        "them"
    }
}

/// Several fours taken in one lap, holes in the order they reached 4: "North takes a four
/// twice (8 seeds): f, b", or with both players taking "fours are taken (12 seeds): e by South,
/// a by North, c by South".
fn fours_taken(fours: &[(Hole, Side)]) -> String {
    let seeds = 4 * fours.len();
    let owner = fours[0].1;
    if fours.iter().all(|&(_, o)| o == owner) {
        let times = match fours.len() {
            2 => "twice".to_string(),
            n => format!("{n} times"),
        };
        let holes: Vec<String> = fours.iter().map(|(h, _)| h.to_string()).collect();
        format!(
            "{owner} takes a four {times} ({seeds} seeds): {}",
            holes.join(", ")
        )
    } else {
        let each: Vec<String> = fours.iter().map(|(h, o)| format!("{h} by {o}")).collect();
        format!("fours are taken ({seeds} seeds): {}", each.join(", "))
    }
}

/// One lap: the hole lifted and its seeds, the holes sown, the fours taken (hole, owner, made
/// by the lap's last seed).
struct Lap {
    lift: (Hole, u8),
    sown: Vec<Hole>,
    fours: Vec<(Hole, Side, bool)>,
}

/// One lap in words: "lift d (10) → e … G, and G reaches 4: South takes 4". `open` is the
/// number of open holes: a lap of that many seeds or more goes round the ring, which is said,
/// with the seeds the emptied starting hole gets (the contract does not skip it).
fn lap_line(lap: &Lap, open: usize) -> String {
    let mut s = format!(
        "lift {} ({}) → {}",
        lap.lift.0,
        lap.lift.1,
        drops(&lap.sown)
    );
    let rounds = lap.sown.len() / open.max(1);
    if rounds > 0 {
        let times = match rounds {
            1 => "once".to_string(),
            2 => "twice".to_string(),
            n => format!("{n} times"),
        };
        let back = lap.sown.iter().filter(|&&h| h == lap.lift.0).count();
        s.push_str(&format!(
            " ({times} round the ring: the emptied {} gets {})",
            lap.lift.0,
            if back == 1 {
                "a seed".to_string()
            } else {
                format!("{back} seeds")
            }
        ));
    }
    match lap.fours.as_slice() {
        [] => {}
        [(h, owner, true)] => s.push_str(&format!(", and {h} reaches 4: {owner} takes 4")),
        [(h, owner, false)] => s.push_str(&format!(", {h} reaches 4 on the way: {owner} takes 4")),
        many => {
            let fours: Vec<(Hole, Side)> = many.iter().map(|&(h, o, _)| (h, o)).collect();
            s.push_str(&format!(", and {}", fours_taken(&fours)));
        }
    }
    s
}

/// The move `mv` from `before`, told in lines. `after` is the position once the move is sown
/// (before any end-of-round sweep); `events` is the full trace of the move.
#[must_use]
pub fn narrate(before: &Position, after: &Position, events: &[Event]) -> Vec<String> {
    let mut lines = Vec::new();
    let mut lap: Option<Lap> = None;
    let open = Hole::ALL.iter().filter(|&&h| before.is_open(h)).count();
    let flush = |lap: &mut Option<Lap>, lines: &mut Vec<String>| {
        if let Some(l) = lap.take() {
            lines.push(lap_line(&l, open));
        }
    };
    let mut last = None;
    let mut last_capture: Option<Hole> = None;
    for e in events {
        match *e {
            Event::Lift { hole, seeds, .. } => {
                flush(&mut lap, &mut lines);
                lap = Some(Lap {
                    lift: (hole, seeds),
                    sown: Vec::new(),
                    fours: Vec::new(),
                });
            }
            Event::Drop { hole, .. } => {
                if let Some(l) = lap.as_mut() {
                    l.sown.push(hole);
                }
            }
            Event::Four { hole, owner } => {
                if let Some(l) = lap.as_mut() {
                    let at_end = l.sown.len() == usize::from(l.lift.1);
                    l.fours.push((hole, owner, at_end));
                }
            }
            Event::Stop { last: h, empty } => {
                flush(&mut lap, &mut lines);
                last = Some(h);
                lines.push(format!("the hole after {h} is {empty}, empty: sowing ends"));
                let m = next_open(before, empty);
                if m == h {
                    lines.push(format!(
                        "the hole after it is {m}, where the last seed fell: nothing is taken"
                    ));
                } else if after.seeds(m) == 0
                    && !events
                        .iter()
                        .any(|e| matches!(e, Event::Capture { hole, .. } if *hole == m))
                {
                    lines.push(format!(
                        "the hole after it, {m}, is empty too: nothing is taken"
                    ));
                }
            }
            Event::Capture {
                hole,
                seeds,
                by,
                chained,
            } => {
                if chained {
                    let prev = last_capture.unwrap_or(hole);
                    let e = next_open(before, prev);
                    lines.push(format!(
                        "the hole after {prev} ({e}) is empty and the one after it, {hole}, holds {seeds}: {by} takes {} too",
                        them(seeds)
                    ));
                } else {
                    lines.push(format!(
                        "the hole after it, {hole}, holds {seeds}: {by} takes {}",
                        them(seeds)
                    ));
                }
                last_capture = Some(hole);
            }
            Event::RoundEnd { .. } | Event::Refill { .. } | Event::MatchEnd { .. } => {
                flush(&mut lap, &mut lines);
            }
        }
    }
    flush(&mut lap, &mut lines);
    // Why Walak-pussa's chain stopped.
    if let (true, Some(c), Some(h)) = (before.game().chain_capture(), last_capture, last) {
        let e = next_open(after, c);
        let f = next_open(after, e);
        lines.push(if after.seeds(e) != 0 {
            format!("the hole after {c} ({e}) is not empty, so the chain stops")
        } else if f == h {
            format!(
                "the hole after {c} ({e}) is empty, but the one after it is {f}, where the last seed fell: the chain stops"
            )
        } else {
            format!("the hole after {c} ({e}) is empty, and so is {f}: the chain stops")
        });
    }
    lines
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
                result_words(&g)
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
                result_words(&g)
            );
        }
        if let Status::RoundOver {
            result,
            next_starter,
        } = g.status()
        {
            events.push(Event::RoundEnd {
                reason: result.reason,
                swept: result.swept,
            });
            ended = Some((result, holding_words(&g, next_starter)));
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
        Status::RoundOver { next_starter, .. } => {
            let holding = holding_words(&g, next_starter);
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
    let mut after = before;
    after
        .play(args.mv)
        .map_err(|e| anyhow!("move {}: {}", args.mv, e.reason))?;
    if let (true, Some(why)) = (laid_out, &over) {
        writeln!(
            out,
            "(the round is already over in this position: {why}; round {} is laid out first)",
            before_round
        )?;
        if let Some((result, holding)) = &ended {
            writeln!(out, "{}", round_end_words(game, result))?;
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
    for line in narrate(&before, &after, &events[laid..]) {
        writeln!(out, "  {line}")?;
    }
    let t = report.outcome.taken;
    writeln!(out, "Taken: South {}, North {}.", t[0], t[1])?;
    if let Some(r) = report.round_end {
        writeln!(out, "{}", round_end_words(game, &r))?;
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
    for line in refill_lines(game, events) {
        writeln!(out, "{line}")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pussa_rules::Rng;

    /// Narrates every move of random games of every kind and checks the story against the
    /// trace: one line per lap, one per capture, the stop, and the chain's end in Walak-pussa.
    #[test]
    fn every_move_of_random_games_is_told_consistently() {
        let mut rng = Rng::new(12);
        // Which of the chain's endings have been told.
        let mut endings = [false; 4];
        for game in Game::ALL {
            for _ in 0..30 {
                let mut g = GameState::new(game, Mode::Match, Side::South);
                while !g.is_over() {
                    if g.is_round_over() {
                        g.next_round();
                        continue;
                    }
                    let legal = g.legal_moves();
                    let mv = legal.nth(rng.below(legal.len() as u32) as usize).unwrap();
                    let before = *g.position();
                    let mut after = before;
                    after.play(mv).unwrap();
                    let mut events = Vec::new();
                    g.play_traced(mv, &mut events).unwrap();
                    let lines = narrate(&before, &after, &events);
                    let count = |p: &dyn Fn(&Event) -> bool| events.iter().filter(|e| p(e)).count();
                    let lifts = count(&|e| matches!(e, Event::Lift { .. }));
                    let captures = count(&|e| matches!(e, Event::Capture { .. }));
                    let fours = count(&|e| matches!(e, Event::Four { .. }));
                    assert_eq!(
                        lines.iter().filter(|l| l.starts_with("lift ")).count(),
                        lifts
                    );
                    assert_eq!(
                        lines
                            .iter()
                            .filter(|l| {
                                ["takes them", "takes them too", "takes it", "takes it too"]
                                    .iter()
                                    .any(|w| l.ends_with(w))
                            })
                            .count(),
                        captures,
                        "{lines:#?}"
                    );
                    assert_eq!(
                        lines
                            .iter()
                            .filter(|l| l.ends_with(": sowing ends"))
                            .count(),
                        1
                    );
                    // One four a line ("reaches 4"), or several with their seeds ("(8 seeds)").
                    let told_fours: usize = lines
                        .iter()
                        .flat_map(|l| l.split("; "))
                        .map(|l| {
                            if l.contains(" reaches 4") {
                                1
                            } else if let Some((_, rest)) = l.split_once("four") {
                                let rest = rest.split_once(" (").map_or("", |(_, r)| r);
                                let n: usize = rest
                                    .split_once(" seeds)")
                                    .and_then(|(n, _)| n.parse().ok())
                                    .unwrap_or(0);
                                n / 4
                            } else {
                                0
                            }
                        })
                        .sum();
                    assert_eq!(told_fours, fours, "{lines:#?}");
                    let chain_end = lines
                        .iter()
                        .filter(|l| l.ends_with("the chain stops"))
                        .count();
                    assert_eq!(
                        chain_end,
                        usize::from(game.chain_capture() && captures > 0),
                        "{lines:#?}"
                    );
                    if captures == 0 {
                        assert!(
                            lines.last().unwrap().ends_with("nothing is taken"),
                            "{lines:#?}"
                        );
                    }
                    for l in &lines {
                        for (k, words) in [
                            "too",
                            "not empty, so the chain stops",
                            "where the last seed fell: the chain stops",
                        ]
                        .into_iter()
                        .enumerate()
                        {
                            endings[k] |= l.ends_with(words);
                        }
                        endings[3] |= l.contains(", and so is ");
                    }
                }
            }
        }
        assert_eq!(
            endings, [true; 4],
            "chained capture, the chain's three endings"
        );
    }
}
