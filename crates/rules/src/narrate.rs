//! A move, a round's end, a refill and a result told in plain words, from a move's trace and
//! the game's state: the words `pussa explain` and `pussa replay` print, for any front end
//! (a bot, a web page, another terminal game) to show without copying them.
//!
//! - [`move_lines`]: one move lap by lap ("lift A (4) → B C D E"), the stop, the capture
//!   across the empty hole ("the hole after it, b, holds 6: South takes them") and the end of
//!   Walak-pussa's chain.
//! - [`outcome`]: a move in one phrase ("7 laps, South takes 6").
//! - [`round_end`], [`end_reason`], [`no_legal_move`]: why and how a round ended.
//! - [`holding`], [`final_holding`], [`refill_lines`]: a match between rounds.
//! - [`result`], [`game_over`], [`short_holding`]: the end of a game or match.
//!
//! Every function is total: any input a caller can build (an event list that does not belong
//! to the position, a result no game reaches) gives words, never a panic. Lines carry no
//! indentation, colour or trailing newline: how they are laid out is the front end's choice.
//!
//! # Examples
//! ```
//! use pussa_rules::{narrate, Game, GameState, Hole, Mode, Side};
//! let mut g = GameState::new(Game::WalakPussa, Mode::Single, Side::South);
//! let before = *g.position();
//! let mut events = Vec::new();
//! let report = g.play_traced(Hole::from_letter('A')?, &mut events)?;
//! let lines = narrate::move_lines(&before, &events);
//! assert_eq!(lines[0], "lift A (4) → B C D E");
//! assert_eq!(lines[8], "the hole after it, b, holds 6: South takes them");
//! assert_eq!(narrate::outcome(&report.outcome), "7 laps, South takes 6");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::position::{MoveOutcome, Position};
use crate::state::{GameState, Mode, RoundResult, Status, MAX_ROUND};
use crate::trace::{EndReason, Event};
use crate::types::{Direction, Game, Hole, Moves, Side, StuckRule};

/// The next open hole after `i` in `game`'s direction, `open` the mask of open holes (bit i =
/// hole index i); `i` itself when no other hole is open.
fn next_open(game: Game, open: u16, i: Hole) -> Hole {
    let step = |k: usize| match game.direction() {
        Direction::Counterclockwise => (k + 1) % 14,
        Direction::Clockwise => (k + 13) % 14,
    };
    let mut k = step(i.index());
    for _ in 0..14 {
        if open & (1 << k) != 0 {
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
    match holes {
        [first, rest @ .., before_last, last] if holes.len() > 5 => {
            let row = first.owner();
            if last.owner() != row
                && before_last.owner() == row
                && rest.iter().all(|h| h.owner() == row)
            {
                format!("{first} … {before_last} {last}")
            } else {
                format!("{first} … {last}")
            }
        }
        _ => holes
            .iter()
            .map(|h| h.letter().to_string())
            .collect::<Vec<_>>()
            .join(" "),
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

/// "once", "twice", "3 times".
fn times(n: usize) -> String {
    match n {
        1 => "once".to_string(),
        2 => "twice".to_string(),
        n => format!("{n} times"),
    }
}

/// Several fours taken in one lap, holes in the order they reached 4: "North takes a four
/// twice (8 seeds): f, b", or with both players taking "fours are taken (12 seeds): e by South,
/// a by North, c by South".
fn fours_taken(fours: &[(Hole, Side)]) -> String {
    let seeds = 4 * fours.len();
    let Some(&(_, owner)) = fours.first() else {
        return String::new();
    };
    if fours.iter().all(|&(_, o)| o == owner) {
        let holes: Vec<String> = fours.iter().map(|(h, _)| h.to_string()).collect();
        format!(
            "{owner} takes a four {} ({seeds} seeds): {}",
            times(fours.len()),
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
        let back = lap.sown.iter().filter(|&&h| h == lap.lift.0).count();
        s.push_str(&format!(
            " ({} round the ring: the emptied {} gets {})",
            times(rounds),
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

/// A move told lap by lap, as `pussa explain` tells it: one line for each lap (the hole
/// lifted and its seeds, the holes sown, the fours taken on the way), the empty hole that ends
/// the sowing, the capture across it or why nothing is taken, and in Walak-pussa each capture
/// of the chain and why the chain stops.
///
/// `before` is the position the move was played from; `events` its trace, as
/// [`Position::play_traced`] or [`crate::GameState::play_traced`] record it. The events of a
/// round's end, a refill or the match's end give no line (tell them with [`round_end`] and
/// [`refill_lines`]), but a refill is followed: a trace that begins with a round's end and the
/// next round's refill (the first move of a match from a position whose round is over, as the
/// server traces it) is told from the round laid out, with `before` the position as given.
/// The board at each step is followed through the events themselves, so the position after
/// the move (or the one laid out) is not needed.
///
/// Events that do not belong to `before` (another position's trace, a list made up by hand)
/// give lines that tell those events as they come; the function never panics.
///
/// # Examples
/// Raja Pasu's `G` from the start, the move docs/rules.md tells: relays round the ring, fours
/// on the way, and the capture across the empty hole.
/// ```
/// use pussa_rules::{narrate, Game, Hole, Position};
/// let before = Position::start(Game::RajaPasu);
/// let mut after = before;
/// let mut events = Vec::new();
/// after.play_traced(Hole::from_letter('G')?, &mut events)?;
/// let lines = narrate::move_lines(&before, &events);
/// assert_eq!(lines[0], "lift G (7) → a … g");
/// assert_eq!(lines[1], "lift A (7) → B … G a");
/// assert_eq!(lines[6], "lift d (10) → e … G, and G reaches 4: South takes 4");
/// assert_eq!(lines[7], "lift a (11) → b … E, A reaches 4 on the way: South takes 4");
/// assert_eq!(lines[11], "lift c (13) → d … b, and North takes a four twice (8 seeds): f, b");
/// assert_eq!(lines[12], "the hole after b is c, empty: sowing ends");
/// assert_eq!(lines[13], "the hole after it, d, holds 3: South takes them");
/// assert_eq!(lines.len(), 14);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// Walak-pussa's chain, and why it stops:
/// ```
/// use pussa_rules::{narrate, Hole, Setup};
/// let setup: Setup = "2,1,7,7,7,0,7/0,0,6,1,6,6,0 6 0 N 1 walak-pussa".parse()?;
/// let before = setup.position()?;
/// let mut after = before;
/// let mut events = Vec::new();
/// after.play_traced(Hole::from_letter('d')?, &mut events)?;
/// assert_eq!(
///     narrate::move_lines(&before, &events),
///     [
///         "lift d (1) → e",
///         "lift f (6) → g … E",
///         "the hole after E is F, empty: sowing ends",
///         "the hole after it, G, holds 7: North takes them",
///         "the hole after G (a) is empty, and so is b: the chain stops",
///     ]
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn move_lines(before: &Position, events: &[Event]) -> Vec<String> {
    let game = before.game();
    let mut lines = Vec::new();
    let mut lap: Option<Lap> = None;
    // The open holes and the board as the events leave them: lifts, drops, fours and
    // captures, and a refill, which lays out a new round (a round's end, which sweeps the
    // board, is followed by the refill in a match, and ends the game otherwise).
    let mut open = before.open_mask();
    let mut board = before.board();
    // The move's stop (the hole the last seed fell in) and its last capture.
    let mut last = None;
    let mut last_capture: Option<Hole> = None;
    for (i, e) in events.iter().enumerate() {
        match *e {
            Event::Lift { hole, seeds, .. } => {
                flush(&mut lap, &mut lines, open);
                board[hole.index()] = 0;
                lap = Some(Lap {
                    lift: (hole, seeds),
                    sown: Vec::new(),
                    fours: Vec::new(),
                });
            }
            Event::Drop { hole, now } => {
                board[hole.index()] = now;
                if let Some(l) = lap.as_mut() {
                    l.sown.push(hole);
                }
            }
            Event::Four { hole, owner } => {
                board[hole.index()] = 0;
                if let Some(l) = lap.as_mut() {
                    let at_end = l.sown.len() == usize::from(l.lift.1);
                    l.fours.push((hole, owner, at_end));
                }
            }
            Event::Stop { last: h, empty } => {
                flush(&mut lap, &mut lines, open);
                last = Some(h);
                lines.push(format!("the hole after {h} is {empty}, empty: sowing ends"));
                let m = next_open(game, open, empty);
                if m == h {
                    lines.push(format!(
                        "the hole after it is {m}, where the last seed fell: nothing is taken"
                    ));
                } else if board[m.index()] == 0
                    && !events[i + 1..]
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
                board[hole.index()] = 0;
                if chained {
                    let prev = last_capture.unwrap_or(hole);
                    let e = next_open(game, open, prev);
                    lines.push(format!(
                        "the hole after {prev} ({e}) is empty and the one after it, {hole}, \
                         holds {seeds}: {by} takes {} too",
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
            Event::RoundEnd { .. } | Event::MatchEnd { .. } => {
                flush(&mut lap, &mut lines, open);
                chain_end(game, open, &board, &mut last, &mut last_capture, &mut lines);
            }
            Event::Refill { closed, .. } => {
                flush(&mut lap, &mut lines, open);
                chain_end(game, open, &board, &mut last, &mut last_capture, &mut lines);
                // The new round's layout: every open hole holds the game's seeds per hole.
                open = !closed & 0x3fff;
                for h in Hole::ALL {
                    board[h.index()] = if open & (1 << h.index()) != 0 {
                        game.seeds_per_hole()
                    } else {
                        0
                    };
                }
            }
        }
    }
    flush(&mut lap, &mut lines, open);
    chain_end(game, open, &board, &mut last, &mut last_capture, &mut lines);
    lines
}

/// Tells a lap that is still open, if any: `open` is the mask of open holes.
fn flush(lap: &mut Option<Lap>, lines: &mut Vec<String>, open: u16) {
    if let Some(l) = lap.take() {
        lines.push(lap_line(&l, open.count_ones() as usize));
    }
}

/// Why Walak-pussa's chain stopped, told once the move's events are over (the board is the
/// move's, before any round's end or refill): the line after the last capture of a move that
/// stopped, then the move is forgotten.
fn chain_end(
    game: Game,
    open: u16,
    board: &[u8; 14],
    last: &mut Option<Hole>,
    last_capture: &mut Option<Hole>,
    lines: &mut Vec<String>,
) {
    if let (true, Some(c), Some(h)) = (game.chain_capture(), last_capture.take(), last.take()) {
        let e = next_open(game, open, c);
        let f = next_open(game, open, e);
        lines.push(if board[e.index()] != 0 {
            format!("the hole after {c} ({e}) is not empty, so the chain stops")
        } else if f == h {
            format!(
                "the hole after {c} ({e}) is empty, but the one after it is {f}, where the last \
                 seed fell: the chain stops"
            )
        } else {
            format!("the hole after {c} ({e}) is empty, and so is {f}: the chain stops")
        });
    }
}

/// A move in one phrase, as `pussa replay` heads each move with it: the laps sown and what each
/// player took (fours and captures), "1 lap, nothing taken", "7 laps, South takes 6",
/// "12 laps, South takes 11, North takes 8".
///
/// # Examples
/// ```
/// use pussa_rules::{narrate, Game, Hole, Position};
/// let mut pos = Position::start(Game::RajaPasu);
/// let outcome = pos.play(Hole::from_letter('G')?)?;
/// assert_eq!(narrate::outcome(&outcome), "12 laps, South takes 11, North takes 8");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn outcome(outcome: &MoveOutcome) -> String {
    let took = match outcome.taken {
        [0, 0] => "nothing taken".to_string(),
        [s, 0] => format!("South takes {s}"),
        [0, n] => format!("North takes {n}"),
        [s, n] => format!("South takes {s}, North takes {n}"),
    };
    let laps = outcome.laps;
    format!("{laps} lap{}, {took}", if laps == 1 { "" } else { "s" })
}

/// "South 3, North 0".
fn pair(p: [u8; 2]) -> String {
    format!("South {}, North {}", p[0], p[1])
}

/// "North has no legal move", and why when the player had seeds to lift: the holes whose
/// sowing is endless (never offered), "North has no legal move (its only move, g, would sow
/// for ever)". The words of [`EndReason::NoLegalMove`].
///
/// # Examples
/// ```
/// use pussa_rules::{narrate, Hole, Moves, Side};
/// assert_eq!(narrate::no_legal_move(Side::South, Moves::EMPTY), "South has no legal move");
/// let endless = Moves::from_mask(1 << Hole::from_letter('g')?.index());
/// assert_eq!(
///     narrate::no_legal_move(Side::North, endless),
///     "North has no legal move (its only move, g, would sow for ever)"
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn no_legal_move(stuck: Side, endless: Moves) -> String {
    let names: Vec<String> = endless.map(|h| h.to_string()).collect();
    match names.as_slice() {
        [] => format!("{stuck} has no legal move"),
        [one] => format!("{stuck} has no legal move (its only move, {one}, would sow for ever)"),
        [rest @ .., last] => format!(
            "{stuck} has no legal move (its only moves, {} and {last}, would each sow for ever)",
            rest.join(", ")
        ),
    }
}

/// Why a round ended, in a few words: "every seed lies in South's row", "no seed is left on
/// the board", "the position repeated", or [`no_legal_move`]'s words. `pussa explain` and
/// `pussa replay` say it of a position whose round is already over ("the round is already
/// over in this position: …").
///
/// # Examples
/// ```
/// use pussa_rules::{narrate, Game, GameState, Mode, Setup, Status};
/// let g = "0,0,0,0,0,0,0/0,0,0,0,3,0,0 33 34 S 1 pasu-pondi".parse::<Setup>()?.game_state(Mode::Single)?;
/// let Status::Over { result, .. } = g.status() else { unreachable!() };
/// assert_eq!(narrate::end_reason(&result), "every seed lies in North's row");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn end_reason(result: &RoundResult) -> String {
    match result.reason {
        EndReason::OneRow => match result.swept {
            [0, 0] => "no seed is left on the board".to_string(),
            [_, 0] => "every seed lies in South's row".to_string(),
            _ => "every seed lies in North's row".to_string(),
        },
        EndReason::NoLegalMove { stuck, endless } => no_legal_move(stuck, endless),
        EndReason::Repetition => "the position repeated".to_string(),
    }
}

/// The end of a round in one sentence, as `pussa replay` and `pussa explain` write it: the
/// round, why it ended, who took the seeds left on the board, what each player took in the
/// round and who won it. `game` decides how a player's being stuck is told (who takes the
/// seeds left, [`Game::stuck_rule`]).
///
/// # Examples
/// ```
/// use pussa_rules::{narrate, GameState, Hole, Mode, Setup};
/// let mut g = "1,0,0,0,0,0,0/0,0,0,0,0,0,1 30 38 S 1 pasu-pondi".parse::<Setup>()?.game_state(Mode::Match)?;
/// let report = g.play(Hole::from_letter('A')?)?;
/// let result = report.round_end.expect("every seed left is in North's row");
/// assert_eq!(
///     narrate::round_end(g.game(), &result),
///     "Round 1 is over: every seed left lies in one row; each player takes their own row \
///      (South 0, North 2). Taken in the round: South 30, North 40; North wins the round."
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn round_end(game: Game, result: &RoundResult) -> String {
    let how = match result.reason {
        EndReason::OneRow => {
            format!(
                "every seed left lies in one row; each player takes their own row ({})",
                pair(result.swept)
            )
        }
        EndReason::Repetition => format!(
            "the position repeated; each player takes their own row ({})",
            pair(result.swept)
        ),
        EndReason::NoLegalMove { stuck, endless } => {
            let none = no_legal_move(stuck, endless);
            if result.swept == [0, 0] {
                format!("{none}; no seeds are left on the board")
            } else if game.stuck_rule() == StuckRule::EachTakesOwnRow {
                format!(
                    "{none}; each player takes their own row ({})",
                    pair(result.swept)
                )
            } else {
                let taker = stuck.other();
                let n = result.swept[taker.index()];
                format!(
                    "{none}; {taker} takes the {n} seed{} left on the board",
                    if n == 1 { "" } else { "s" }
                )
            }
        }
    };
    let who = match result.winner {
        Some(s) => format!("{s} wins the round"),
        None => "the round is drawn".to_string(),
    };
    format!(
        "Round {} is over: {how}. Taken in the round: {}; {who}.",
        result.round,
        pair(result.taken)
    )
}

/// What each player holds once a round of a match is over, and who starts the next round:
/// "Holding: South 30, North 40; North will start round 2." The holdings are `g`'s stores; the
/// starter is the one `g`'s [`Status::RoundOver`] names. When no round follows (`g` is over,
/// or still being played), the holdings alone: "Holding: South 30, North 40." (as
/// [`final_holding`] tells them).
///
/// # Examples
/// ```
/// use pussa_rules::{narrate, GameState, Hole, Mode, Setup};
/// let mut g = "1,0,0,0,0,0,0/0,0,0,0,0,0,1 30 38 S 1 pasu-pondi".parse::<Setup>()?.game_state(Mode::Match)?;
/// g.play(Hole::from_letter('A')?)?;
/// assert_eq!(narrate::holding(&g), "Holding: South 30, North 40; North will start round 2.");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn holding(g: &GameState) -> String {
    match g.status() {
        Status::RoundOver { next_starter, .. } => format!(
            "Holding: {}; {next_starter} will start round {}.",
            pair(g.position().stores()),
            u64::from(g.round()) + 1
        ),
        _ => final_holding(g),
    }
}

/// What each player holds, with no next round: "Holding: South 30, North 40." The words for a
/// match that ends with a round that is over in `g` although the rules would go on (stopped by
/// a result decided without the moves, as `pussa replay` tells a record's result).
///
/// # Examples
/// ```
/// use pussa_rules::{narrate, GameState, Hole, Mode, Setup};
/// let mut g = "1,0,0,0,0,0,0/0,0,0,0,0,0,1 30 38 S 1 pasu-pondi".parse::<Setup>()?.game_state(Mode::Match)?;
/// g.play(Hole::from_letter('A')?)?;
/// assert_eq!(narrate::final_holding(&g), "Holding: South 30, North 40.");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn final_holding(g: &GameState) -> String {
    format!("Holding: {}.", pair(g.position().stores()))
}

/// Names the holes of a mask, e.g. "A B".
fn holes(mask: u16) -> String {
    Hole::ALL
        .iter()
        .filter(|h| mask & (1 << h.index()) != 0)
        .map(|h| h.letter().to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A refill in words: one line for each player (holes filled, closed, left in store), then the
/// starter.
fn refill_words(
    game: Game,
    filled: [u8; 2],
    remainder: [u8; 2],
    closed: u16,
    starter: Side,
) -> Vec<String> {
    let mut lines = Vec::new();
    for side in Side::BOTH {
        let i = side.index();
        let row = closed & (0x7f << (7 * i));
        let shut = if row == 0 {
            String::new()
        } else {
            format!(", {} closed", holes(row))
        };
        let fill = if filled[i] == 1 {
            format!("1 hole with {} seeds", game.seeds_per_hole())
        } else {
            format!("{} holes with {} each", filled[i], game.seeds_per_hole())
        };
        lines.push(format!(
            "{side} fills {fill}{shut}; {} stay{} in the store.",
            remainder[i],
            if remainder[i] == 1 { "s" } else { "" },
        ));
    }
    lines.push(format!("{starter} starts."));
    lines
}

/// The refills among `events` (a trace, [`Event::Refill`]) in words, as `pussa replay`,
/// `pussa explain` and `pussa analyze` write them: for each, "Round N:", then a line for each
/// player (the holes filled, those closed, the seeds left in store) and the starter, indented
/// by two spaces. Other events are passed over; no refill gives no line.
///
/// # Examples
/// ```
/// use pussa_rules::{narrate, GameState, Hole, Mode, Setup};
/// let mut g = "1,0,0,0,0,0,0/0,0,0,0,0,0,1 30 38 S 1 pasu-pondi".parse::<Setup>()?.game_state(Mode::Match)?;
/// let mut events = Vec::new();
/// g.play_traced(Hole::from_letter('A')?, &mut events)?;
/// g.next_round_traced(&mut events);
/// assert_eq!(
///     narrate::refill_lines(g.game(), &events),
///     [
///         "Round 2:",
///         "  South fills 6 holes with 5 each, G closed; 0 stay in the store.",
///         "  North fills 7 holes with 5 each; 5 stay in the store.",
///         "  North starts.",
///     ]
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn refill_lines(game: Game, events: &[Event]) -> Vec<String> {
    let mut lines = Vec::new();
    for e in events {
        if let Event::Refill {
            round,
            filled,
            remainder,
            closed,
            starter,
        } = *e
        {
            lines.push(format!("Round {round}:"));
            for line in refill_words(game, filled, remainder, closed, starter) {
                lines.push(format!("  {line}"));
            }
        }
    }
    lines
}

/// Who holds too few seeds to fill one hole of `seeds_per_hole`, the reason a match ends before
/// its last round: "North holds 5", "South holds 3 and North 4"; `None` when both can fill one.
/// `held` is `[South, North]`.
///
/// # Examples
/// ```
/// use pussa_rules::{narrate, Game};
/// let need = Game::RajaPasu.seeds_per_hole(); // 7
/// assert_eq!(narrate::short_holding([93, 5], need).as_deref(), Some("North holds 5"));
/// assert_eq!(narrate::short_holding([3, 4], need).as_deref(), Some("South holds 3 and North 4"));
/// assert_eq!(narrate::short_holding([49, 49], need), None);
/// ```
#[must_use]
pub fn short_holding(held: [u8; 2], seeds_per_hole: u8) -> Option<String> {
    let short: Vec<Side> = Side::BOTH
        .into_iter()
        .filter(|s| held[s.index()] < seeds_per_hole)
        .collect();
    match short.as_slice() {
        [] => None,
        [s] => Some(format!("{s} holds {}", held[s.index()])),
        _ => Some(format!("South holds {} and North {}", held[0], held[1])),
    }
}

/// The result of a game or match that is over, with why a match ended before its last round:
/// "South wins", "a draw", or "South wins: North holds 5, too few to fill a hole of 7 seeds";
/// `None` while it goes on.
///
/// # Examples
/// ```
/// use pussa_rules::{narrate, GameState, Hole, Mode, Setup};
/// let mut g = "1,0,0,0,0,0,0/0,0,0,0,0,0,1 30 38 S 1 pasu-pondi".parse::<Setup>()?.game_state(Mode::Single)?;
/// assert_eq!(narrate::result(&g), None);
/// g.play(Hole::from_letter('A')?)?;
/// assert_eq!(narrate::result(&g).as_deref(), Some("North wins"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn result(g: &GameState) -> Option<String> {
    let winner = g.winner()?;
    let result = match winner {
        Some(side) => format!("{side} wins"),
        None => "a draw".to_string(),
    };
    // A match ends when a player cannot fill a hole: say who and why.
    let need = g.game().seeds_per_hole();
    Some(match short_holding(g.position().stores(), need) {
        Some(who) if g.mode() == Mode::Match => {
            format!("{result}: {who}, too few to fill a hole of {need} seeds")
        }
        _ => result,
    })
}

/// The last line of a finished game or match, as `pussa replay` ends with it; `None` while it
/// goes on. A match is won on the seeds held, and the line says why it ended (a holding too
/// small to fill one hole, or the last round a match plays, [`MAX_ROUND`]); a single game on
/// the seeds taken in its round, which from round 2 on are not the stores (those also hold
/// what was carried over): the holdings are then told as well. The winner is named by side;
/// [`game_over_with`] names the players.
///
/// # Examples
/// ```
/// use pussa_rules::{narrate, GameState, Hole, Mode, Setup};
/// let mut g = "1,0,0,0,0,0,0/0,0,0,0,0,0,1 30 38 S 1 pasu-pondi".parse::<Setup>()?.game_state(Mode::Single)?;
/// g.play(Hole::from_letter('A')?)?;
/// assert_eq!(narrate::game_over(&g).as_deref(), Some("The game is over: North wins, 40 to 30."));
/// let g = "0,0,0,0,0,0,0/0,0,0,0,0,0,0 28 28 S 1000000 walak-pussa".parse::<Setup>()?.game_state(Mode::Match)?;
/// assert_eq!(
///     narrate::game_over(&g).as_deref(),
///     Some("Round 1000000 is the last a match plays, so the match is over: a draw, 28 to 28.")
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn game_over(g: &GameState) -> Option<String> {
    game_over_with(g, |side| side.to_string())
}

/// [`game_over`]'s line with the winner named by `name` (a player's name for a side, as the
/// terminal game says "Ann wins, 40 to 30"); the holdings and who holds too few seeds are
/// still told by side.
///
/// # Examples
/// ```
/// use pussa_rules::{narrate, GameState, Hole, Mode, Setup, Side};
/// let mut g = "1,0,0,0,0,0,0/0,0,0,0,0,0,1 30 38 S 1 pasu-pondi".parse::<Setup>()?.game_state(Mode::Single)?;
/// g.play(Hole::from_letter('A')?)?;
/// let name = |s: Side| if s == Side::North { "Ann".to_string() } else { "Bob".to_string() };
/// assert_eq!(
///     narrate::game_over_with(&g, name).as_deref(),
///     Some("The game is over: Ann wins, 40 to 30.")
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn game_over_with(g: &GameState, name: impl Fn(Side) -> String) -> Option<String> {
    let Status::Over { result, winner } = g.status() else {
        return None;
    };
    let s = g.position().stores();
    if g.mode() == Mode::Match {
        let verdict = match winner {
            Some(w) => format!(
                "{} wins, {} to {}",
                name(w),
                s[w.index()],
                s[w.other().index()]
            ),
            None => format!("a draw, {} to {}", s[0], s[1]),
        };
        let need = g.game().seeds_per_hole();
        let why = short_holding(s, need).map_or_else(
            || format!("Round {MAX_ROUND} is the last a match plays"),
            |who| format!("{who}, too few to fill a hole of {need} seeds"),
        );
        return Some(format!("{why}, so the match is over: {verdict}."));
    }
    let t = result.taken;
    let held = if g.round() > 1 {
        format!(" (holding South {}, North {})", s[0], s[1])
    } else {
        String::new()
    };
    Some(match winner {
        Some(w) if g.round() > 1 => format!(
            "The game is over: {} wins the round, {} to {} taken{held}.",
            name(w),
            t[w.index()],
            t[w.other().index()]
        ),
        Some(w) => format!(
            "The game is over: {} wins, {} to {}.",
            name(w),
            t[w.index()],
            t[w.other().index()]
        ),
        None if g.round() > 1 => format!(
            "The game is over: the round is drawn, {} to {} taken{held}.",
            t[0], t[1]
        ),
        None => format!("The game is over: a draw, {} to {}.", t[0], t[1]),
    })
}
