//! The engine protocol: a line protocol on a reader and a writer, in the spirit of UCI, so that
//! graphical front ends and tournament managers can drive the engine (`pussa engine`).
//!
//! The full description, with a transcript, is in `docs/protocol.md`. In short:
//!
//! ```text
//! pussa                                  → id name … / id author … / option … / pussaok
//! isready                                → readyok (answered at once, even while searching)
//! setoption name Threads value 2         (also Seed, Level, MultiPV, EGTBPath when tables can be loaded)
//! newgame raja-pasu match                (game, then single | match; default single)
//! position startpos [first S|N] [moves A d C …]
//! position fen <position string> [starts 28,28,S*2 …] [moves …]   (starts: earlier rounds')
//! go depth N | nodes N | movetime MS | infinite   → info … lines, then bestmove X | bestmove none
//! go wtime MS btime MS [winc MS binc MS] [movestogo N]   (a game clock; South's is wtime)
//! go depth N searchmoves A C             (only these root moves; with MultiPV > 1 each
//!                                         iteration reports the best N: info … multipv K …)
//! stop                                   → the running search ends and says bestmove
//! d | show                               → the board, the position string, the legal moves
//! quit
//! ```
//!
//! Every error (unknown command or option, malformed number, illegal or endless move, impossible
//! position) is answered with one line `info string error: …` and the engine goes on; the state
//! is left as it was before the failing command.
//!
//! The search runs on its own thread: `stop`, `isready` and `d` are answered while it runs;
//! `newgame` stops it first (its `bestmove` is written before the new game is set), and in a
//! match starts computing the round values ([`crate::matchval::prepare`]), which `isready`
//! waits for. Extra words after a command are an error. docs/protocol.md lists exactly what
//! each command does during a search.
//!
//! # Examples
//! ```
//! use std::io::Cursor;
//! let input = Cursor::new("pussa\nnewgame walak-pussa\nposition startpos moves A\nd\nquit\n");
//! let out = pussa_engine::protocol::run(input, Vec::new())?;
//! let text = String::from_utf8(out)?;
//! assert!(text.contains("pussaok"));
//! assert!(text.contains("fen 2,1,7,7,7,0,7/0,0,6,1,6,6,0 6 0 N 1 walak-pussa"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::cell::Cell;
use std::collections::HashMap;
use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use pussa_rules::{Game, GameState, Hole, Mode, Moves, RoundStart, Setup, Side, Status};

use crate::{
    choose_move_with_stop, params, search, ExactOracle, Level, Limits, MoveValue, SearchInfo,
    SearchResult,
};

/// Opens the endgame tables of a game in a directory, for `setoption name EGTBPath`: `Ok(None)`
/// if the directory holds no tables of that game, `Err` with a message naming the problem (a
/// damaged file). The engine crate cannot read table files itself; `pussa engine` passes a
/// loader built on `pussa-egtb` to [`run_with_tables`].
pub type TablesLoader =
    dyn Fn(Game, &Path) -> Result<Option<Arc<dyn ExactOracle>>, String> + Send + Sync;

/// The engine's name, as sent in `id name`.
pub const ENGINE_NAME: &str = concat!("pussa ", env!("CARGO_PKG_VERSION"));
/// The author line sent in `id author`.
pub const ENGINE_AUTHOR: &str = "the pussa developers";
/// The largest `Threads` value accepted.
pub const MAX_THREADS: usize = 256;
/// The largest `go depth` accepted; a depth above [`crate::params::MAX_DEPTH`] is searched to
/// that depth (an `info string` says so).
pub const MAX_GO_DEPTH: u32 = 1000;
/// The largest `go movetime` accepted, in milliseconds (a day); longer searches use `infinite`.
pub const MAX_MOVETIME_MS: u64 = 86_400_000;
/// The largest clock time (`wtime`, `btime`, `winc`, `binc`) accepted, in milliseconds (a week).
pub const MAX_CLOCK_MS: u64 = 7 * 86_400_000;
/// What a bare `go` (no limit given) means: this many milliseconds of search.
pub const DEFAULT_MOVETIME_MS: u64 = 1000;
/// The largest `MultiPV` accepted: a row has 7 holes, so no position has more moves.
pub const MAX_MULTIPV: usize = 7;

/// Whether the command loop goes on after a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Read the next command.
    Continue,
    /// `quit` was received.
    Quit,
}

/// The limits of one `go` command.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GoLimits {
    /// `depth N`.
    pub depth: Option<u32>,
    /// `nodes N`.
    pub nodes: Option<u64>,
    /// `movetime MS`.
    pub movetime: Option<Duration>,
    /// `infinite`: search until `stop` (deepening up to [`crate::params::MAX_DEPTH`], or the
    /// `depth` or `nodes` given with it; a `movetime` or clock given with it is ignored).
    pub infinite: bool,
    /// `wtime MS`: South's clock (as UCI's white: South is the default first mover).
    pub wtime: Option<Duration>,
    /// `btime MS`: North's clock.
    pub btime: Option<Duration>,
    /// `winc MS`: South's increment per move.
    pub winc: Option<Duration>,
    /// `binc MS`: North's increment per move.
    pub binc: Option<Duration>,
    /// `movestogo N`: moves until the clocks are next filled (at least 1).
    pub movestogo: Option<u32>,
    /// `searchmoves M1 M2 …`: only these root moves are searched (and reported).
    pub searchmoves: Option<Moves>,
}

impl GoLimits {
    /// Parses the words after `go`.
    ///
    /// # Errors
    /// A message naming the unknown word or the malformed number.
    pub fn parse(words: &[&str]) -> Result<GoLimits, String> {
        let mut g = GoLimits::default();
        let mut seen: Vec<String> = Vec::new();
        let mut it = words.iter();
        while let Some(&w) = it.next() {
            let key = w.to_ascii_lowercase();
            if seen.contains(&key) {
                return Err(format!("go: '{key}' is given twice"));
            }
            seen.push(key);
            let mut num = |name: &str| -> Result<u64, String> {
                let v = it
                    .next()
                    .ok_or_else(|| format!("go: '{name}' needs a number"))?;
                // A clock that ran out: tournament managers (cutechess) send a negative time;
                // it reads as 0, so the engine still answers at once rather than not at all.
                let clock_word = matches!(name, "wtime" | "btime" | "winc" | "binc");
                if clock_word
                    && v.strip_prefix('-')
                        .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
                {
                    return Ok(0);
                }
                whole_number(v).map_err(|e| match e {
                    NumberError::NotWhole => {
                        format!("go: {name} '{v}' is not a whole number")
                    }
                    NumberError::TooLarge => {
                        let range = match name {
                            "depth" => format!("1..={MAX_GO_DEPTH}"),
                            "nodes" => format!("1..={}", u64::MAX),
                            "movetime" => format!("0..={MAX_MOVETIME_MS} (use infinite)"),
                            "movestogo" => "1..=1000".to_string(),
                            _ => format!("0..={MAX_CLOCK_MS} (a week)"),
                        };
                        format!("go: {name} {v} is out of range {range}")
                    }
                })
            };
            match w.to_ascii_lowercase().as_str() {
                "depth" => {
                    let d = num("depth")?;
                    if d == 0 || d > u64::from(MAX_GO_DEPTH) {
                        return Err(format!("go: depth {d} is out of range 1..={MAX_GO_DEPTH}"));
                    }
                    g.depth = Some(d as u32);
                }
                "nodes" => {
                    let n = num("nodes")?;
                    if n == 0 {
                        return Err("go: nodes must be at least 1".to_string());
                    }
                    g.nodes = Some(n);
                }
                "movetime" => {
                    let ms = num("movetime")?;
                    if ms > MAX_MOVETIME_MS {
                        return Err(format!(
                            "go: movetime {ms} is out of range 0..={MAX_MOVETIME_MS} (use infinite)"
                        ));
                    }
                    g.movetime = Some(Duration::from_millis(ms));
                }
                "infinite" => g.infinite = true,
                "wtime" | "btime" | "winc" | "binc" => {
                    let name = w.to_ascii_lowercase();
                    let ms = num(&name)?;
                    if ms > MAX_CLOCK_MS {
                        return Err(format!(
                            "go: {name} {ms} is out of range 0..={MAX_CLOCK_MS} (a week)"
                        ));
                    }
                    let d = Some(Duration::from_millis(ms));
                    match name.as_str() {
                        "wtime" => g.wtime = d,
                        "btime" => g.btime = d,
                        "winc" => g.winc = d,
                        _ => g.binc = d,
                    }
                }
                "searchmoves" => {
                    let mut set = 0u16;
                    while let Some(mv) = it.as_slice().first().and_then(|w| w.parse::<Hole>().ok())
                    {
                        it.next();
                        set |= 1 << mv.index();
                    }
                    if set == 0 {
                        return Err(format!(
                            "go: 'searchmoves' needs moves (hole letters), found {}",
                            it.as_slice()
                                .first()
                                .map_or("nothing".to_string(), |w| format!("'{w}'"))
                        ));
                    }
                    g.searchmoves = Some(Moves::from_mask(set));
                }
                "movestogo" => {
                    let n = num("movestogo")?;
                    if n == 0 || n > 1000 {
                        return Err(format!("go: movestogo {n} is out of range 1..=1000"));
                    }
                    g.movestogo = Some(n as u32);
                }
                other => {
                    return Err(format!(
                        "go: unknown limit '{other}' (expected depth N, nodes N, movetime MS, infinite, searchmoves M..., or a clock: wtime MS btime MS [winc MS binc MS] [movestogo N])"
                    ))
                }
            }
        }
        Ok(g)
    }

    /// True when no limit at all was given (a bare `go`).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.depth.is_none()
            && self.nodes.is_none()
            && self.movetime.is_none()
            && !self.infinite
            && !self.has_clock()
    }

    /// True when a clock (`wtime`, `btime`, `winc`, `binc` or `movestogo`) was given.
    #[must_use]
    pub fn has_clock(&self) -> bool {
        self.wtime.is_some()
            || self.btime.is_some()
            || self.winc.is_some()
            || self.binc.is_some()
            || self.movestogo.is_some()
    }

    /// The move time the clock of `side` (to move) allows ([`crate::time::clock_movetime`]):
    /// `None` when no clock was given.
    ///
    /// # Errors
    /// A clock was given without `side`'s time (`wtime` for South, `btime` for North).
    pub fn clock_movetime(&self, side: Side) -> Result<Option<Duration>, String> {
        if !self.has_clock() {
            return Ok(None);
        }
        let (time, inc, name) = match side {
            Side::South => (self.wtime, self.winc, "wtime"),
            Side::North => (self.btime, self.binc, "btime"),
        };
        let time = time
            .ok_or_else(|| format!("go: {side} is to move, but its clock {name} is not given"))?;
        Ok(Some(crate::time::clock_movetime(
            time,
            inc.unwrap_or(Duration::ZERO),
            self.movestogo,
        )))
    }
}

/// A running search.
struct Running {
    stop: Arc<AtomicBool>,
    /// Raised just before `bestmove` is written: from then on a new `go` may come.
    done: Arc<AtomicBool>,
    handle: JoinHandle<()>,
}

/// The protocol's state: the game, the options, the running search. Feed it lines with
/// [`Engine::handle_line`], or let [`run`] read them.
pub struct Engine<W: Write + Send + 'static> {
    out: Arc<Mutex<W>>,
    game: Game,
    mode: Mode,
    state: GameState,
    threads: usize,
    seed: u64,
    level: Option<Level>,
    /// `MultiPV`: how many best moves `go` reports, each on its own `info … multipv K` line.
    multipv: usize,
    running: Option<Running>,
    /// The match round values being computed ([`crate::matchval::prepare`]) since `newgame`.
    preparing: Option<JoinHandle<()>>,
    broken: Arc<AtomicBool>,
    loader: Option<Arc<TablesLoader>>,
    egtb_path: Option<PathBuf>,
    oracles: HashMap<Game, Arc<dyn ExactOracle>>,
}

/// Reads commands from `input` until `quit` or the end of input, answering on `output`, and
/// gives `output` back. A running search is stopped and its `bestmove` written before this
/// returns.
///
/// # Errors
/// Only an error reading `input` (the running search is stopped first); errors in commands
/// are answered on `output` and the loop goes on. A closed `output` ends the loop quietly.
pub fn run<R: BufRead, W: Write + Send + 'static>(input: R, output: W) -> io::Result<W> {
    run_with_tables(input, output, None)
}

/// [`run`], with endgame tables: `setoption name EGTBPath value <dir>` opens every game's tables
/// under `<dir>` with `loader`, and the search (and the levels from club up) use the current
/// game's tables from then on.
///
/// # Errors
/// As [`run`].
pub fn run_with_tables<R: BufRead, W: Write + Send + 'static>(
    mut input: R,
    output: W,
    loader: Option<Arc<TablesLoader>>,
) -> io::Result<W> {
    let mut engine = Engine::new(output);
    engine.loader = loader;
    let mut buf = Vec::new();
    let read = loop {
        match read_line_capped(&mut input, &mut buf) {
            Ok(LineRead::End) => break Ok(()),
            Ok(LineRead::TooLong) => {
                // The rest of the line is skipped unread.
                if let Err(e) = skip_line(&mut input) {
                    break Err(e);
                }
                engine.error(&format!(
                    "a line longer than {MAX_LINE} bytes was ignored (no command is that long)"
                ));
                if engine.output_broken() {
                    break Ok(());
                }
                continue;
            }
            Ok(LineRead::Line) => {}
            Err(e) => break Err(e),
        }
        let line = String::from_utf8_lossy(&buf);
        if engine.handle_line(&line) == Flow::Quit || engine.output_broken() {
            break Ok(());
        }
    };
    engine.finish();
    read?;
    engine.into_output()
}

/// The longest line the protocol reads, in bytes, either way: the engine from its input, a
/// tournament from an external engine. A tournament's `position` line ([`PositionCommand`])
/// is `position startpos … moves …` with the whole match while that fits; past that it holds
/// the current round's start, the distinct starts of the earlier rounds (a few hundred at
/// most) and the current round's moves, so it stays far shorter however many rounds a match
/// plays.
pub const MAX_LINE: usize = 64 * 1024;

/// What [`read_line_capped`] read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineRead {
    /// A line, in the buffer (with its newline, if it had one).
    Line,
    /// The first [`MAX_LINE`] + 1 bytes of a longer line, in the buffer; the rest is unread.
    TooLong,
    /// The end of the input.
    End,
}

/// Reads one line into `buf` (cleared first), at most [`MAX_LINE`] bytes of it, so that a peer
/// that writes without end cannot fill the reader's memory.
///
/// # Errors
/// An error reading `input`.
pub fn read_line_capped<R: BufRead>(input: &mut R, buf: &mut Vec<u8>) -> io::Result<LineRead> {
    buf.clear();
    let n = io::Read::take(&mut *input, MAX_LINE as u64 + 1).read_until(b'\n', buf)?;
    Ok(if n == 0 {
        LineRead::End
    } else if n > MAX_LINE && buf.last() != Some(&b'\n') {
        LineRead::TooLong
    } else {
        LineRead::Line
    })
}

/// The most characters of an error message (which quotes what it was sent): enough for an
/// `EGTBPath` error, which names its directory several times and ends with the command that
/// builds a missing layer.
const MAX_ERROR_CHARS: usize = 1_000;

/// Reads and drops the rest of a line (up to and including its newline, or to the end).
fn skip_line<R: BufRead>(input: &mut R) -> io::Result<()> {
    loop {
        let (done, used) = {
            let buf = input.fill_buf()?;
            if buf.is_empty() {
                return Ok(());
            }
            match buf.iter().position(|&b| b == b'\n') {
                Some(i) => (true, i + 1),
                None => (false, buf.len()),
            }
        };
        input.consume(used);
        if done {
            return Ok(());
        }
    }
}

fn yes_no(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

/// Formats one `info` line for a search report. Depth 0 (no iteration completed: the move is
/// the first legal or the greedy one) has no value, so `score` and `exact` are left out.
#[must_use]
pub fn info_line(info: &SearchInfo) -> String {
    let mut s = format!("info depth {}", info.depth);
    if info.depth > 0 {
        s.push_str(&format!(
            " score seeds {} exact {}",
            info.score,
            yes_no(info.exact)
        ));
    }
    s.push_str(&format!(
        " nodes {} nps {} time {}",
        info.nodes,
        info.nps,
        info.elapsed.as_millis()
    ));
    if !info.pv.is_empty() {
        s.push_str(" pv");
        for h in &info.pv {
            s.push(' ');
            s.push(h.letter());
        }
    }
    s
}

/// Formats one `info … multipv K …` line (`MultiPV` above 1, or `go searchmoves`): the `K`-th
/// best move's value and line after the iteration of `depth` (0: none completed, no value).
#[must_use]
pub fn multipv_line(depth: u32, k: usize, m: &MoveValue, nodes: u64, elapsed: Duration) -> String {
    let line = info_line(&SearchInfo {
        depth,
        score: m.score,
        exact: m.exact,
        nodes,
        nps: (nodes as f64 / elapsed.as_secs_f64().max(1e-9)) as u64,
        elapsed,
        pv: m.pv.clone(),
    });
    let head = format!("info depth {depth}");
    format!("{head} multipv {k}{}", &line[head.len()..])
}

/// The board as text, as a player at South sees it: North's row on top (`g` … `a`), South's
/// row below (`A` … `G`), closed holes as `x`, with the stores and whose turn it is.
#[must_use]
pub fn board_lines(state: &GameState) -> Vec<String> {
    let pos = state.position();
    let cell = |h: Hole| {
        if pos.is_open(h) {
            format!("{:>3}", pos.seeds(h))
        } else {
            "  x".to_string()
        }
    };
    let north: String = (0..7)
        .rev()
        .map(|k| cell(Hole::of_side(Side::North, k)))
        .collect();
    let south: String = (0..7)
        .map(|k| cell(Hole::of_side(Side::South, k)))
        .collect();
    let stores = pos.stores();
    let turn = match state.status() {
        Status::Playing => format!("{} to move", pos.to_move()),
        Status::RoundOver {
            result,
            next_starter,
        } => format!(
            "round {} over (South {} North {}), {next_starter} starts the next",
            result.round, result.taken[0], result.taken[1]
        ),
        Status::Over { winner, .. } => match winner {
            Some(w) => format!("over, {w} wins"),
            None => "over, a draw".to_string(),
        },
    };
    vec![
        "      g  f  e  d  c  b  a".to_string(),
        format!("  N {north}   North holds {}", stores[1]),
        format!("  S {south}   South holds {}", stores[0]),
        "      A  B  C  D  E  F  G".to_string(),
        format!(
            "  {} {}, round {}, {}",
            state.game().title(),
            match state.mode() {
                Mode::Single => "single game",
                Mode::Match => "match",
            },
            state.round(),
            turn
        ),
    ]
}

/// Why a protocol number does not read (see [`whole_number`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NumberError {
    /// Not a run of digits: `x`, `-1`, `1e3`, `` (empty).
    NotWhole,
    /// A whole number too large for a `u64`: out of every option's range, however many digits
    /// it has, and named as such.
    TooLarge,
}

/// Reads a protocol number: ASCII digits only (no sign: `+1` and `-1` are not whole numbers,
/// as a position string's counts are not), of any length; one too large for a `u64` is
/// [`NumberError::TooLarge`], not "not a whole number".
fn whole_number(text: &str) -> Result<u64, NumberError> {
    if !is_digits(text) {
        return Err(NumberError::NotWhole);
    }
    text.parse().map_err(|_| NumberError::TooLarge)
}

/// True for a non-empty run of ASCII digits (what `str::parse` reads, less its leading `+`).
fn is_digits(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

/// Reads the words after `starts` in `position fen … starts …`: the starts of a match's rounds
/// before the position's, each `<South's holdings>,<North's holdings>,<starter S|N>`, optionally
/// followed by `*<count>` for that many rounds started so (`28,28,S*3`), in any order; each
/// start's holdings add up to the seeds of `game`.
fn parse_starts(words: &[&str], game: Game) -> Result<Vec<RoundStart>, String> {
    let mut starts = Vec::new();
    for &w in words {
        let bad = || {
            format!(
                "position: starts: '{}' is not a round's start <South's holdings>,<North's holdings>,<S|N>[*<count>] (e.g. 28,28,S*2)",
                crate::clip(w, 40)
            )
        };
        let (start, count) = match w.split_once('*') {
            Some((st, n)) => (
                st,
                Some(n)
                    .filter(|n| is_digits(n))
                    .and_then(|n| n.parse::<u32>().ok())
                    .filter(|&n| n >= 1)
                    .ok_or_else(bad)?,
            ),
            None => (w, 1),
        };
        let parts: Vec<&str> = start.split(',').collect();
        let [south, north, starter] = parts[..] else {
            return Err(bad());
        };
        if !is_digits(south) || !is_digits(north) {
            return Err(bad());
        }
        let south: u8 = south.parse().map_err(|_| bad())?;
        let north: u8 = north.parse().map_err(|_| bad())?;
        let starter = Side::parse(starter).map_err(|_| bad())?;
        let sum = u32::from(south) + u32::from(north);
        let total = u32::from(game.total_seeds());
        if sum != total {
            return Err(format!(
                "position: starts: '{}': holdings add up to {sum}, not the {total} seeds of {}",
                crate::clip(w, 40),
                game.name()
            ));
        }
        // A match ends after round MAX_ROUND: no more earlier starts than that.
        if starts.len() + count as usize > pussa_rules::MAX_ROUND as usize {
            return Err(format!(
                "position: starts: more than {} rounds",
                pussa_rules::MAX_ROUND
            ));
        }
        let one = RoundStart {
            holdings: [south, north],
            starter,
        };
        starts.extend(std::iter::repeat_n(one, count as usize));
    }
    Ok(starts)
}

/// The `position` command a manager sends before each `go` of a game or match played from the
/// start, kept up to date move by move: always within [`MAX_LINE`], however long the match.
///
/// While it fits (the line and its newline within [`MAX_LINE`] bytes: a match of up to about
/// 32,750 plies) it is the form every engine of this protocol reads, `position startpos first
/// S|N moves <every move so far>`, through the rounds of a match. Only a longer match gets the
/// compact form: `position fen <this round's start> starts <the earlier rounds' starts> moves
/// <this round's moves>`. The engine's state is then the one the whole match's moves give, up
/// to the order of [`GameState::round_starts`] (each distinct start once, with its count),
/// which no search reads (it counts how often each start was seen). The moves of earlier
/// rounds are not sent: a round's play depends on them only through its start.
///
/// # Examples
/// ```
/// use pussa_engine::protocol::PositionCommand;
/// use pussa_rules::{Game, GameState, Hole, Mode, Side};
/// let mut state = GameState::new(Game::WalakPussa, Mode::Match, Side::South);
/// let mut cmd = PositionCommand::new(Side::South);
/// for m in "A f B e E d C b A g G g F e F b D g A f C e D c E d F f G a".split_whitespace() {
///     if state.next_round() {
///         cmd.new_round(&state);
///     }
///     let mv: Hole = m.parse()?;
///     state.play(mv)?;
///     cmd.played(mv);
/// }
/// if state.next_round() {
///     cmd.new_round(&state);
/// }
/// assert_eq!(state.round(), 2);
/// // A short match: every move from the start position.
/// assert!(cmd.line().starts_with("position startpos first S moves A f B e"), "{}", cmd.line());
/// // Past the line limit the line would be: the round's start and the earlier starts.
/// assert!(cmd.compact_line().starts_with("position fen "), "{}", cmd.compact_line());
/// assert!(cmd.compact_line().contains(" starts 28,28,S"), "{}", cmd.compact_line());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct PositionCommand {
    first: Side,
    /// This round's start as a position string, from round 2 on.
    round_start: Option<String>,
    /// The earlier rounds' starts, each with how many rounds started so, in the order first
    /// seen.
    earlier: Vec<(RoundStart, u32)>,
    /// The moves since this round's start (every move in round 1).
    moves: Vec<Hole>,
    /// Every move since the start, while the full line still fits in [`MAX_LINE`] (then no
    /// longer kept: the line only grows).
    all: Option<Vec<Hole>>,
}

impl PositionCommand {
    /// A game or match from the start position, `first` to move.
    #[must_use]
    pub fn new(first: Side) -> PositionCommand {
        PositionCommand {
            first,
            round_start: None,
            earlier: Vec::new(),
            moves: Vec::new(),
            all: Some(Vec::new()),
        }
    }

    /// `mv` was played.
    pub fn played(&mut self, mv: Hole) {
        self.moves.push(mv);
        if let Some(all) = &mut self.all {
            all.push(mv);
            if Self::full_len(all.len()) + 1 > MAX_LINE {
                self.all = None;
            }
        }
    }

    /// `state` has just laid out a new round ([`GameState::next_round`] returned true).
    pub fn new_round(&mut self, state: &GameState) {
        if let [.., before, _] = state.round_starts() {
            match self.earlier.iter_mut().find(|(s, _)| s == before) {
                Some((_, n)) => *n += 1,
                None => self.earlier.push((*before, 1)),
            }
        }
        self.round_start = Some(Setup::from_state(state).to_string());
        self.moves.clear();
    }

    /// The length of `position startpos first S moves …` with `moves` moves, in bytes.
    fn full_len(moves: usize) -> usize {
        "position startpos first S".len()
            + if moves > 0 {
                " moves".len() + 2 * moves
            } else {
                0
            }
    }

    /// The `position` line: every move from the start position while that fits in
    /// [`MAX_LINE`] with its newline, else [`PositionCommand::compact_line`].
    #[must_use]
    pub fn line(&self) -> String {
        match &self.all {
            Some(all) => Self::with_moves(
                format!("position startpos first {}", self.first.letter()),
                all,
            ),
            None => self.compact_line(),
        }
    }

    /// The compact `position` line: from round 2 of a match on, `position fen <this round's
    /// start> starts <the earlier rounds' starts> moves <this round's moves>`; in round 1 (and
    /// a single game) the moves from the start position. A few KB however long the match.
    #[must_use]
    pub fn compact_line(&self) -> String {
        use std::fmt::Write as _;
        let head = match &self.round_start {
            None => format!("position startpos first {}", self.first.letter()),
            Some(fen) => {
                let mut l = format!("position fen {fen} starts");
                for (s, n) in &self.earlier {
                    let _ = write!(
                        l,
                        " {},{},{}",
                        s.holdings[0],
                        s.holdings[1],
                        s.starter.letter()
                    );
                    if *n > 1 {
                        let _ = write!(l, "*{n}");
                    }
                }
                l
            }
        };
        Self::with_moves(head, &self.moves)
    }

    /// `line` followed by ` moves` and `moves`, if any.
    fn with_moves(mut line: String, moves: &[Hole]) -> String {
        if !moves.is_empty() {
            line.reserve(6 + 2 * moves.len());
            line.push_str(" moves");
            for m in moves {
                line.push(' ');
                line.push(m.letter());
            }
        }
        line
    }
}

/// Applies `moves` to `state`, laying out the next round of a match when a round is over and a
/// move follows. Then, if the last move ended a round of a match that goes on, lays out the
/// next round too, so the state is always one where a move is expected unless the match is over.
///
/// # Errors
/// A message naming the move's number, the move and why it cannot be played.
pub fn apply_moves<'a, I: IntoIterator<Item = &'a str>>(
    state: &mut GameState,
    moves: I,
) -> Result<(), String> {
    for (i, text) in moves.into_iter().enumerate() {
        let mv: Hole = text
            .parse()
            .map_err(|e| format!("move {} '{text}': {e}", i + 1))?;
        state.next_round();
        state
            .play(mv)
            .map_err(|e| format!("move {} '{text}': {e}", i + 1))?;
    }
    state.next_round();
    Ok(())
}

impl<W: Write + Send + 'static> Engine<W> {
    /// An engine answering on `out`, set to a single game of Walak-pussa from the start.
    pub fn new(out: W) -> Engine<W> {
        let game = Game::WalakPussa;
        Engine {
            out: Arc::new(Mutex::new(out)),
            game,
            mode: Mode::Single,
            state: GameState::new(game, Mode::Single, Side::South),
            threads: 1,
            seed: 0,
            level: None,
            multipv: 1,
            running: None,
            preparing: None,
            broken: Arc::new(AtomicBool::new(false)),
            loader: None,
            egtb_path: None,
            oracles: HashMap::new(),
        }
    }

    /// Lets `setoption name EGTBPath` open endgame tables with `loader`.
    #[must_use]
    pub fn with_tables_loader(mut self, loader: Arc<TablesLoader>) -> Engine<W> {
        self.loader = Some(loader);
        self
    }

    /// The current game state (after the last `newgame` / `position`).
    pub fn state(&self) -> &GameState {
        &self.state
    }

    /// Stops any search and gives the output back.
    ///
    /// # Errors
    /// Only if the output is still shared (it never is once the search is joined).
    pub fn into_output(mut self) -> io::Result<W> {
        self.finish();
        let Engine { out, .. } = self;
        Arc::try_unwrap(out)
            .map(|m| {
                m.into_inner()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
            })
            .map_err(|_| io::Error::other("the engine's output is still in use"))
    }

    /// True once writing to the output failed (the reader went away).
    pub fn output_broken(&self) -> bool {
        self.broken.load(Ordering::Relaxed)
    }

    fn send(&self, line: &str) {
        send_to(&self.out, &self.broken, line);
    }

    fn error(&self, msg: &str) {
        // One line, whatever the message holds.
        let msg = msg.replace(['\n', '\r'], " ");
        // Errors quote what they were sent: keep a quoted megabyte out of the answer.
        let msg = if msg.chars().count() > MAX_ERROR_CHARS {
            let cut: String = msg.chars().take(MAX_ERROR_CHARS).collect();
            format!("{cut}… (cut at {MAX_ERROR_CHARS} characters)")
        } else {
            msg.to_string()
        };
        self.send(&format!("info string error: {msg}"));
    }

    fn searching(&self) -> bool {
        self.running
            .as_ref()
            .is_some_and(|r| !r.done.load(Ordering::SeqCst))
    }

    /// True while a search runs that has not been sent `stop`: a command that must wait for
    /// the search's end is refused then. A search already sent `stop` is waited for here
    /// (it writes its `bestmove` first, at once), as UCI engines wait for the previous search
    /// before a `go` that follows `stop` without waiting for its `bestmove`.
    fn searching_unstopped(&mut self) -> bool {
        if !self.searching() {
            return false;
        }
        if self
            .running
            .as_ref()
            .is_some_and(|r| r.stop.load(Ordering::SeqCst))
        {
            self.wait();
            return false;
        }
        true
    }

    /// Stops the running search (if any) and waits for its `bestmove`.
    pub fn finish(&mut self) {
        if let Some(r) = self.running.take() {
            r.stop.store(true, Ordering::Relaxed);
            let _ = r.handle.join();
        }
    }

    /// Waits for the running search (if any) to end by itself; `go infinite` never does.
    pub fn wait(&mut self) {
        if let Some(r) = self.running.take() {
            let _ = r.handle.join();
        }
    }

    /// Handles one command line (a trailing newline is ignored). Never panics.
    pub fn handle_line(&mut self, line: &str) -> Flow {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some((&cmd, rest)) = words.split_first() else {
            return Flow::Continue;
        };
        let cmd = cmd.to_ascii_lowercase();
        if matches!(
            cmd.as_str(),
            "pussa" | "isready" | "stop" | "d" | "show" | "help" | "quit"
        ) && !rest.is_empty()
        {
            self.error(&format!(
                "{cmd}: takes no arguments, found '{}' (the command was not run)",
                rest.join(" ")
            ));
            return Flow::Continue;
        }
        match cmd.as_str() {
            "pussa" => self.hello(),
            "isready" => {
                self.wait_prepared();
                self.send("readyok");
            }
            "setoption" => {
                if let Err(e) = self.setoption(rest) {
                    self.error(&e);
                }
            }
            "newgame" => {
                if let Err(e) = self.newgame(rest) {
                    self.error(&e);
                }
            }
            "position" => {
                if let Err(e) = self.position(rest) {
                    self.error(&e);
                }
            }
            "go" => {
                if let Err(e) = self.go(rest) {
                    self.error(&e);
                }
            }
            "stop" => {
                if let Some(r) = &self.running {
                    r.stop.store(true, Ordering::SeqCst);
                }
            }
            "d" | "show" => self.show(),
            "help" => {
                for l in HELP {
                    self.send(&format!("info string {l}"));
                }
            }
            "quit" => {
                self.finish();
                return Flow::Quit;
            }
            other => self.error(&format!(
                "unknown command '{other}' (commands: pussa, isready, setoption, newgame, position, go, stop, d, help, quit)"
            )),
        }
        Flow::Continue
    }

    fn hello(&self) {
        self.send(&format!("id name {ENGINE_NAME}"));
        self.send(&format!("id author {ENGINE_AUTHOR}"));
        self.send(&format!(
            "option name Threads type spin default 1 min 1 max {MAX_THREADS}"
        ));
        self.send("option name Seed type spin default 0 min 0 max 18446744073709551615");
        let levels: Vec<&str> = Level::ALL.iter().map(|l| l.name()).collect();
        self.send(&format!(
            "option name Level type combo default search var search var {}",
            levels.join(" var ")
        ));
        self.send(&format!(
            "option name MultiPV type spin default 1 min 1 max {MAX_MULTIPV}"
        ));
        if self.loader.is_some() {
            self.send("option name EGTBPath type string default <empty>");
        }
        let games: Vec<&str> = Game::ALL.iter().map(|g| g.name()).collect();
        self.send(&format!("info string games {}", games.join(" ")));
        self.send("pussaok");
    }

    fn setoption(&mut self, words: &[&str]) -> Result<(), String> {
        let usage =
            "setoption: expected 'setoption name <Threads|Seed|Level|MultiPV|EGTBPath> value <value>'";
        if words.first().map(|w| w.to_ascii_lowercase()) != Some("name".into()) {
            return Err(usage.to_string());
        }
        let vpos = words
            .iter()
            .position(|w| w.eq_ignore_ascii_case("value"))
            .ok_or_else(|| usage.to_string())?;
        let name = words[1..vpos].join(" ");
        let value = words[vpos + 1..].join(" ");
        if name.is_empty() || value.is_empty() {
            return Err(usage.to_string());
        }
        match name.to_ascii_lowercase().as_str() {
            "threads" => {
                let n = whole_number(&value).map_err(|e| match e {
                    NumberError::NotWhole => {
                        format!("setoption: Threads '{value}' is not a whole number")
                    }
                    NumberError::TooLarge => {
                        format!("setoption: Threads {value} is out of range 1..={MAX_THREADS}")
                    }
                })?;
                let n = usize::try_from(n).unwrap_or(usize::MAX);
                if !(1..=MAX_THREADS).contains(&n) {
                    return Err(format!(
                        "setoption: Threads {n} is out of range 1..={MAX_THREADS}"
                    ));
                }
                self.threads = n;
                let used = crate::effective_threads(n);
                if used < n {
                    self.send(&format!(
                        "info string Threads {n}: the search runs {used} (the threads this machine runs at once)"
                    ));
                }
            }
            "seed" => {
                self.seed = whole_number(&value).map_err(|e| match e {
                    NumberError::NotWhole => {
                        format!("setoption: Seed '{value}' is not a whole number")
                    }
                    NumberError::TooLarge => {
                        format!("setoption: Seed {value} is out of range 0..={}", u64::MAX)
                    }
                })?;
            }
            "multipv" => {
                let n = whole_number(&value).map_err(|e| match e {
                    NumberError::NotWhole => {
                        format!("setoption: MultiPV '{value}' is not a whole number")
                    }
                    NumberError::TooLarge => {
                        format!("setoption: MultiPV {value} is out of range 1..={MAX_MULTIPV}")
                    }
                })?;
                if !(1..=MAX_MULTIPV as u64).contains(&n) {
                    return Err(format!(
                        "setoption: MultiPV {n} is out of range 1..={MAX_MULTIPV}"
                    ));
                }
                self.multipv = n as usize;
            }
            "level" => {
                if value.eq_ignore_ascii_case("search") {
                    self.level = None;
                } else {
                    let level: Level = value.parse().map_err(|_| {
                        let names: Vec<&str> = Level::ALL.iter().map(|l| l.name()).collect();
                        format!(
                            "setoption: unknown Level '{value}' (expected search, {})",
                            names.join(", ")
                        )
                    })?;
                    self.level = Some(level);
                }
            }
            "egtbpath" if self.loader.is_some() => self.set_egtb_path(&value)?,
            _ => {
                return Err(format!(
                    "setoption: unknown option '{name}' (options: Threads, Seed, Level, MultiPV{})",
                    if self.loader.is_some() {
                        ", EGTBPath"
                    } else {
                        ""
                    }
                ))
            }
        }
        Ok(())
    }

    /// `setoption name EGTBPath value <dir>`: opens every game's tables under `dir` (or drops
    /// them with `<empty>` / `none`). On any error the tables in use stay as they were.
    fn set_egtb_path(&mut self, value: &str) -> Result<(), String> {
        if self.searching_unstopped() {
            return Err(
                "setoption: EGTBPath cannot change while a search runs; send stop first".into(),
            );
        }
        if value.eq_ignore_ascii_case("<empty>") || value.eq_ignore_ascii_case("none") {
            self.egtb_path = None;
            self.oracles.clear();
            self.send("info string EGTBPath: no endgame tables");
            return Ok(());
        }
        let Some(loader) = self.loader.clone() else {
            return Err("setoption: this engine cannot load endgame tables".into());
        };
        let dir = PathBuf::from(value);
        if !dir.is_dir() {
            return Err(format!(
                "setoption: EGTBPath '{value}' is not a directory (expected the directory holding <game>/<seeds>.pegtb, e.g. data/egtb)"
            ));
        }
        let mut oracles = HashMap::new();
        for game in Game::ALL {
            match loader(game, &dir) {
                Ok(Some(o)) => {
                    oracles.insert(game, o);
                }
                Ok(None) => {}
                Err(e) => return Err(format!("setoption: EGTBPath '{value}': {e}")),
            }
        }
        if oracles.is_empty() {
            return Err(format!(
                "setoption: EGTBPath '{value}' holds no endgame tables (expected <game>/0.pegtb, … built by pussa egtb build)"
            ));
        }
        let mut names: Vec<&str> = oracles.keys().map(|g| g.name()).collect();
        names.sort_unstable();
        self.send(&format!(
            "info string EGTBPath {value}: tables of {}",
            names.join(", ")
        ));
        self.egtb_path = Some(dir);
        self.oracles = oracles;
        Ok(())
    }

    /// The directory of the endgame tables in use (`setoption name EGTBPath`), if any.
    #[must_use]
    pub fn egtb_path(&self) -> Option<&Path> {
        self.egtb_path.as_deref()
    }

    fn newgame(&mut self, words: &[&str]) -> Result<(), String> {
        let (game, mode) = match words {
            [] => return Err("newgame: expected 'newgame <game> [single|match]'".to_string()),
            [g] => (*g, "single"),
            [g, m] => (*g, *m),
            [g, m, extra @ ..] => {
                return Err(format!(
                "newgame: found '{}' after '{g} {m}' (expected 'newgame <game> [single|match]')",
                extra.join(" ")
            ))
            }
        };
        let game: Game = game.parse().map_err(|e| format!("newgame: {e}"))?;
        let mode: Mode = mode.parse().map_err(|e| format!("newgame: {e}"))?;
        // As UCI's ucinewgame: the running search ends first, and its bestmove is written
        // before the new game exists, so it cannot be read as a move of the new game.
        self.finish();
        self.game = game;
        self.mode = mode;
        self.state = GameState::new(game, mode, Side::South);
        self.start_preparing();
        Ok(())
    }

    /// In a match, starts computing the game's round values on a thread of its own (see
    /// [`crate::matchval::prepare`]); `isready` waits for them.
    fn start_preparing(&mut self) {
        if self.mode != Mode::Match || crate::matchval::is_prepared(self.game) {
            return;
        }
        self.wait_prepared();
        let game = self.game;
        self.preparing = std::thread::Builder::new()
            .name("pussa-prepare".into())
            .spawn(move || crate::matchval::prepare(game))
            .ok();
    }

    /// Waits for the round values `newgame` started computing, if any.
    fn wait_prepared(&mut self) {
        if let Some(h) = self.preparing.take() {
            let _ = h.join();
        }
    }

    fn position(&mut self, words: &[&str]) -> Result<(), String> {
        let mpos = words.iter().position(|w| w.eq_ignore_ascii_case("moves"));
        let (head, moves) = match mpos {
            Some(i) => (&words[..i], &words[i + 1..]),
            None => (words, &[][..]),
        };
        let spos = head.iter().position(|w| w.eq_ignore_ascii_case("starts"));
        let (head, starts) = match spos {
            Some(i) => (&head[..i], Some(&head[i + 1..])),
            None => (head, None),
        };
        let mut state = match head.first().map(|w| w.to_ascii_lowercase()).as_deref() {
            Some("startpos") => {
                let first = match &head[1..] {
                    [] => Side::South,
                    [f, s] if f.eq_ignore_ascii_case("first") => {
                        Side::parse(s).map_err(|e| format!("position: {e}"))?
                    }
                    _ => {
                        return Err(format!(
                        "position: after 'startpos' expected 'first S|N' or 'moves', found '{}'",
                        head[1..].join(" ")
                    ))
                    }
                };
                GameState::new(self.game, self.mode, first)
            }
            Some("fen") => self.setup_state(&head[1..])?,
            Some(w) if w.contains('/') => self.setup_state(head)?,
            Some(other) => {
                return Err(format!(
                    "position: expected 'startpos' or 'fen <position string>', found '{other}'"
                ))
            }
            None => return Err("position: expected 'startpos' or 'fen <position string>'".into()),
        };
        if let Some(starts) = starts {
            if head
                .first()
                .is_some_and(|w| w.eq_ignore_ascii_case("startpos"))
            {
                return Err(
                    "position: 'starts' follows a position string (startpos is round 1: no earlier round)"
                        .into(),
                );
            }
            if self.mode == Mode::Single {
                return Err(
                    "position: starts: a single game has no earlier rounds ('starts' is for a match: newgame <game> match)"
                        .into(),
                );
            }
            let earlier = parse_starts(starts, state.game())?;
            let round = state.round();
            if earlier.len() >= round as usize {
                let given = match earlier.len() {
                    1 => "1 start given".to_string(),
                    n => format!("{n} starts given"),
                };
                return Err(match round - 1 {
                    0 => format!("position: starts: round 1 has no earlier round, {given}"),
                    1 => format!("position: starts: round 2 has 1 earlier round, {given}"),
                    r => format!("position: starts: round {round} has {r} earlier rounds, {given}"),
                });
            }
            state
                .set_earlier_round_starts(earlier)
                .map_err(|e| format!("position: starts: {e}"))?;
        }
        apply_moves(&mut state, moves.iter().copied()).map_err(|e| format!("position: {e}"))?;
        self.game = state.game();
        self.state = state;
        self.start_preparing();
        Ok(())
    }

    fn setup_state(&self, fields: &[&str]) -> Result<GameState, String> {
        if fields.is_empty() {
            return Err("position: 'fen' needs a position string (6 or 7 fields, e.g. 4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0 S 1 walak-pussa)".into());
        }
        let setup: Setup = fields
            .join(" ")
            .parse()
            .map_err(|e: pussa_rules::SetupError| e.to_string())?;
        setup.game_state(self.mode).map_err(|e| e.to_string())
    }

    fn go(&mut self, words: &[&str]) -> Result<(), String> {
        // The time (movetime, a clock's share, `info … time`) counts from here.
        let started = std::time::Instant::now();
        let mut g = GoLimits::parse(words)?;
        if self.searching_unstopped() {
            return Err("go: a search is already running; send stop first".into());
        }
        // Reap a finished search thread.
        self.wait();
        if g.is_empty() {
            g.movetime = Some(Duration::from_millis(DEFAULT_MOVETIME_MS));
        }
        let state = self.state.clone();
        // Not `legal_moves()`: that proves every move legal or endless, which can take seconds
        // (docs/rules.md, "Endless moves"); the search does it under its clock. A round in play
        // always has a legal move.
        if state.is_round_over() {
            let what = match state.mode() {
                Mode::Single => "game",
                Mode::Match => "match",
            };
            let why = match state.status() {
                Status::Over {
                    winner: Some(w), ..
                } => format!("the {what} is over: {w} won"),
                Status::Over { winner: None, .. } => format!("the {what} is over: a draw"),
                _ => "the round is over".to_string(),
            };
            self.send(&format!("info string {why}"));
            self.send("bestmove none");
            return Ok(());
        }
        // searchmoves names moves that can be sown here, and not only moves proven endless
        // (one that is endless is left out, as every endless move is: with nothing else named,
        // nothing would be left to search). The proof is bounded as `d`'s is (a move it leaves
        // open counts as a move), and the moves an error lists are those `d` lists.
        if let Some(only) = g.searchmoves {
            let candidates = state.position().candidates();
            let proven = crate::prove_moves(
                &state,
                &Limits {
                    nodes: Some(params::PROOF_LAPS),
                    ..Limits::default()
                },
            );
            let playable = |mv: Hole| {
                proven.legal.iter().any(|&(m, _)| m == mv) || proven.unresolved.contains(&mv)
            };
            let list = candidates
                .filter(|&h| playable(h))
                .map(|h| h.letter().to_string())
                .collect::<Vec<_>>()
                .join(" ");
            let to_move = state.position().to_move();
            if let Some(bad) = only.into_iter().find(|&mv| !candidates.contains(mv)) {
                return Err(format!(
                    "go: searchmoves: {bad} is not a move here ({to_move} is to move; its moves are {list})"
                ));
            }
            if !only.into_iter().any(playable) {
                let named: Vec<String> = only.into_iter().map(|h| h.letter().to_string()).collect();
                let (verb, each) = if named.len() == 1 {
                    ("is", "")
                } else {
                    ("are", "each ")
                };
                return Err(format!(
                    "go: searchmoves: {} {verb} not a move here: {each}{} ({to_move} is to move; its moves are {list})",
                    named.join(" "),
                    pussa_rules::IllegalReason::Endless
                ));
            }
        }
        let multipv = self.multipv;
        let searchmoves = g.searchmoves;
        // The search goes at most MAX_DEPTH plies deep: a deeper `depth` is searched to it, and
        // says so (a level has its own limits). `infinite` (which ignores `movetime`) deepens
        // to it unless `depth` is given.
        let max = params::MAX_DEPTH;
        if let Some(d) = g.depth.filter(|&d| d > max && self.level.is_none()) {
            self.send(&format!(
                "info string go: depth {d} is beyond the search's maximum depth {max}; searching to depth {max}"
            ));
        }
        let depth = match g.depth {
            Some(d) => Some(d.min(max)),
            None if g.infinite => Some(max),
            None => None,
        };
        // A clock gives the move time (the smaller, with a movetime also given), searched with
        // the levels' time management; movetime alone is searched whole, as UCI's.
        // `infinite` ignores the clock: it is not read, so a clock without the side to move's
        // time (or with only the other side's) is no error then.
        let clock = match state.to_move() {
            Some(side) if !g.infinite => g.clock_movetime(side)?,
            _ => None,
        };
        // A movetime within the clock's time is searched whole, as UCI's movetime; the clock's
        // own time (alone, or the smaller) with the levels' rule.
        let (movetime, whole_movetime) = if g.infinite {
            (None, true)
        } else {
            match (g.movetime, clock) {
                (Some(m), Some(c)) if m <= c => (Some(m), true),
                (_, Some(c)) => (Some(c), false),
                (m, None) => (m, true),
            }
        };
        let stop = Arc::new(AtomicBool::new(false));
        let oracle = self.oracles.get(&state.game()).cloned();
        let limits = Limits {
            depth,
            nodes: g.nodes,
            movetime,
            // UCI's movetime: search that long (not the levels' half-time rule); a clock's
            // share is searched with that rule.
            whole_movetime,
            threads: self.threads,
            seed: self.seed,
            stop: Some(stop.clone()),
            oracle: oracle.clone(),
            start: Some(started),
        };
        let out = self.out.clone();
        let broken = self.broken.clone();
        let level = self.level;
        let seed = self.seed;
        let infinite = g.infinite;
        let stop2 = stop.clone();
        let done = Arc::new(AtomicBool::new(false));
        let done2 = done.clone();
        let handle = std::thread::Builder::new()
            .name("pussa-search".into())
            .spawn(move || {
                // A failing search must still answer: catch a panic and say so.
                let found = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    // The first move of the last pv sent (`None`: no info line yet).
                    let last_first: Cell<Option<Option<Hole>>> = Cell::new(None);
                    let mut on_info = |info: &SearchInfo| {
                        last_first.set(Some(info.pv.first().copied()));
                        send_to(&out, &broken, &info_line(info));
                    };
                    // The line that is played comes last before `bestmove`: when no iteration
                    // was reported (a budget spent inside depth 1) or the move chosen is not
                    // the last pv's first (the traps among equal moves, docs/engine.md), one
                    // more info line gives the result's own pv.
                    let final_info = |r: &SearchResult| {
                        let Some(best) = r.best else { return };
                        if last_first.get() == Some(Some(best)) {
                            return;
                        }
                        let elapsed = started.elapsed();
                        let pv = if r.pv.first() == Some(&best) {
                            r.pv.clone()
                        } else {
                            vec![best]
                        };
                        let info = SearchInfo {
                            depth: r.depth,
                            score: r.score,
                            exact: r.exact,
                            nodes: r.nodes,
                            nps: (r.nodes as f64 / elapsed.as_secs_f64().max(1e-9)) as u64,
                            elapsed,
                            pv,
                        };
                        send_to(&out, &broken, &info_line(&info));
                    };
                    match level {
                        // A searching level: its own limits replace the go limits; its
                        // iterations are reported, and stop ends it as any search.
                        Some(level) => match level.limits(state.game(), state.mode(), seed) {
                            Some(own) => {
                                let own = Limits {
                                    oracle,
                                    stop: limits.stop.clone(),
                                    start: limits.start,
                                    ..own
                                };
                                let r = search(&state, &own, &mut on_info);
                                final_info(&r);
                                r.best
                            }
                            // beginner, novice, casual: stop ends their analysis too.
                            None => choose_move_with_stop(
                                &state,
                                level,
                                seed,
                                oracle,
                                limits.stop.clone(),
                            ),
                        },
                        // MultiPV above 1 or searchmoves: every (chosen) move valued, the
                        // best `multipv` reported each iteration (`pussa analyze`'s search).
                        None if multipv > 1 || searchmoves.is_some() => {
                            let reported = Cell::new(false);
                            let mut lines = |depth: u32, moves: &[MoveValue], nodes: u64| {
                                reported.set(true);
                                let elapsed = started.elapsed();
                                for (k, m) in moves.iter().take(multipv).enumerate() {
                                    send_to(
                                        &out,
                                        &broken,
                                        &multipv_line(depth, k + 1, m, nodes, elapsed),
                                    );
                                }
                            };
                            let a = crate::search::analyze_each_iteration(
                                &state,
                                &limits,
                                searchmoves,
                                &mut lines,
                            );
                            if !reported.get() {
                                // No iteration completed: the moves by their immediate gains,
                                // with no value (as a single line's depth 0).
                                lines(0, &a.moves, a.nodes);
                            }
                            let budget_left = limits.nodes.is_none_or(|n| a.nodes < n)
                                && movetime.is_none_or(|t| started.elapsed() < t)
                                && !limits
                                    .stop
                                    .as_ref()
                                    .is_some_and(|s| s.load(Ordering::Relaxed));
                            let exact = a.value().is_some_and(|(_, e)| e);
                            if g.depth.is_none() && a.depth >= max && !exact && budget_left {
                                send_to(
                                    &out,
                                    &broken,
                                    &format!(
                                        "info string the search reached its maximum depth {max}"
                                    ),
                                );
                            }
                            a.moves.first().map(|m| m.mv)
                        }
                        None => {
                            let r = search(&state, &limits, &mut on_info);
                            final_info(&r);
                            // The search ended at its deepest iteration with its own budget
                            // (nodes, time, or infinite's "until stop") not spent: say why.
                            let budget_left = limits.nodes.is_none_or(|n| r.nodes < n)
                                && movetime.is_none_or(|t| started.elapsed() < t)
                                && !limits
                                    .stop
                                    .as_ref()
                                    .is_some_and(|s| s.load(Ordering::Relaxed));
                            if g.depth.is_none() && r.depth >= max && !r.exact && budget_left {
                                send_to(
                                    &out,
                                    &broken,
                                    &format!(
                                        "info string the search reached its maximum depth {max}"
                                    ),
                                );
                            }
                            r.best
                        }
                    }
                }));
                let best = found.unwrap_or_else(|_| {
                    send_to(
                        &out,
                        &broken,
                        "info string error: the search failed; answering the first legal move",
                    );
                    None
                });
                if infinite {
                    while !stop2.load(Ordering::Relaxed) {
                        std::thread::sleep(Duration::from_millis(2));
                    }
                }
                // A search stopped before its first iteration may have no move: never answer
                // `none` while a move is possible. Only the moves looked at are sown (not all
                // of them: an endless move can take seconds to prove so).
                let legal = |h: &Hole| state.clone().play(*h).is_ok();
                let best = best.filter(legal).or_else(|| {
                    state
                        .to_move()
                        .and_then(|_| state.position().candidates().find(legal))
                });
                let line = match best {
                    Some(h) => format!("bestmove {h}"),
                    None => "bestmove none".to_string(),
                };
                done2.store(true, Ordering::SeqCst);
                send_to(&out, &broken, &line);
            })
            .map_err(|e| format!("go: cannot start the search thread: {e}"))?;
        self.running = Some(Running { stop, done, handle });
        Ok(())
    }

    fn show(&self) {
        for l in board_lines(&self.state) {
            self.send(&l);
        }
        self.send(&format!("fen {}", Setup::from_state(&self.state)));
        // Not `legal_moves()`, which proves every move to its end: a move whose cycle takes
        // seconds to prove endless would hold the command loop (and `isready`, `stop`) that
        // long. The proof is bounded as the softmax levels' is; a move it leaves open is named.
        let proven = crate::prove_moves(
            &self.state,
            &Limits {
                nodes: Some(params::PROOF_LAPS),
                ..Limits::default()
            },
        );
        let list = |moves: &mut dyn Iterator<Item = Hole>| {
            moves
                .map(|h| h.letter().to_string())
                .collect::<Vec<_>>()
                .join(" ")
        };
        self.send(&format!(
            "legal {}",
            if proven.legal.is_empty() {
                "none".to_string()
            } else {
                list(&mut proven.legal.iter().map(|&(mv, _)| mv))
            }
        ));
        if !proven.unresolved.is_empty() {
            self.send(&format!(
                "unresolved {} (not proven legal or endless within {} laps: `pussa rules`, \"Endless moves\")",
                list(&mut proven.unresolved.iter().copied()),
                params::PROOF_LAPS
            ));
        }
    }
}

fn send_to<W: Write>(out: &Mutex<W>, broken: &AtomicBool, line: &str) {
    let mut w = match out.lock() {
        Ok(w) => w,
        Err(p) => p.into_inner(),
    };
    if writeln!(w, "{line}").and_then(|()| w.flush()).is_err() {
        broken.store(true, Ordering::Relaxed);
    }
}

const HELP: [&str; 10] = [
    "pussa: identify, list options, answer pussaok",
    "isready: answer readyok",
    "setoption name <Threads|Seed|Level|MultiPV|EGTBPath> value <v> (EGTBPath: a directory of endgame tables, or <empty>)",
    "newgame <walak-pussa|raja-pasu|pasu-pondi|pasu-pondi-6> [single|match]",
    "position startpos [first S|N] [moves <m> ...]",
    "position fen <position string> [starts <S holdings>,<N holdings>,<S|N>[*<count>] ...] [moves <m> ...]",
    "go [depth N] [nodes N] [movetime MS] [infinite] [searchmoves M ...] [wtime MS btime MS [winc MS binc MS] [movestogo N]]",
    "stop: end the search, answer bestmove",
    "d | show: print the board",
    "quit",
];

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer the test can read while the engine holds it.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl Shared {
        fn take(&self) -> Vec<String> {
            let mut v = self.0.lock().unwrap();
            let text = String::from_utf8(std::mem::take(&mut *v)).unwrap();
            text.lines().map(str::to_string).collect()
        }
    }

    fn engine() -> (Engine<Shared>, Shared) {
        let out = Shared::default();
        (Engine::new(out.clone()), out)
    }

    #[test]
    fn an_overlong_line_is_skipped_and_long_quotes_are_cut() {
        let out = Shared::default();
        let mut input = Vec::new();
        // A line far over the limit (no newline for 200 KB), then ordinary commands.
        input.extend(std::iter::repeat_n(b'x', 200 * 1024));
        input.extend_from_slice(b"\nisready\n");
        // An unknown command just under the limit: quoted, but cut.
        input.extend(std::iter::repeat_n(b'y', 5_000));
        input.extend_from_slice(b"\nisready\nquit\n");
        run(io::Cursor::new(input), out.clone()).unwrap();
        let lines = out.take();
        assert_eq!(lines.len(), 4, "{lines:?}");
        assert_eq!(
            lines[0],
            format!(
                "info string error: a line longer than {MAX_LINE} bytes was ignored (no command is that long)"
            )
        );
        assert_eq!(lines[1], "readyok");
        assert!(
            lines[2].starts_with("info string error: unknown command 'yyy"),
            "{}",
            lines[2]
        );
        assert!(
            lines[2].ends_with("… (cut at 1000 characters)"),
            "{}",
            lines[2]
        );
        assert!(lines[2].chars().count() < 1_060, "{}", lines[2]);
        assert_eq!(lines[3], "readyok");
    }

    /// More threads than the machine runs at once are not started (they made `movetime`
    /// overshoot): the option is accepted, and the engine says how many the search runs.
    #[test]
    fn threads_beyond_the_machine_are_capped_and_said() {
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
        let (mut e, out) = engine();
        e.handle_line("setoption name Threads value 1");
        assert!(out.take().is_empty());
        e.handle_line(&format!("setoption name Threads value {MAX_THREADS}"));
        let lines = out.take();
        if cores < MAX_THREADS {
            assert_eq!(
                lines,
                [format!(
                    "info string Threads {MAX_THREADS}: the search runs {cores} (the threads this machine runs at once)"
                )]
            );
        } else {
            assert!(lines.is_empty(), "{lines:?}");
        }
        assert_eq!(
            crate::effective_threads(MAX_THREADS),
            cores.min(MAX_THREADS)
        );
        // The search still answers with a legal move.
        e.handle_line("newgame walak-pussa single");
        e.handle_line("go depth 2");
        e.wait();
        assert!(out.take().last().unwrap().starts_with("bestmove "));
    }

    /// QA pass 17, review-engine #1: a manager sent the whole match before every move, 2 bytes
    /// a ply, and past about 32,750 plies the line went over MAX_LINE: the engine forfeited on
    /// the line length. The manager's compact line (PositionCommand::compact_line) is the
    /// current round's start, the earlier rounds' starts and this round's moves: short however
    /// long the match, and the engine's state from it is the whole match's (up to the order of
    /// the earlier starts), so its search gives the same answers.
    #[test]
    fn a_long_matchs_compact_position_line_stays_short_and_gives_the_same_state() {
        for game in [Game::WalakPussa, Game::RajaPasu] {
            let mut full = GameState::new(game, Mode::Match, Side::South);
            let mut cmd = PositionCommand::new(Side::South);
            let (mut e, out) = engine();
            e.handle_line(&format!("newgame {} match", game.name()));
            let mut longest = 0;
            let mut plies = 0;
            let mut checked = 0;
            while full.round() < 400 && !full.is_over() {
                if full.next_round() {
                    cmd.new_round(&full);
                }
                let Some(mv) = crate::arena::greedy_net_capture(&full) else {
                    break;
                };
                let line = cmd.compact_line();
                longest = longest.max(line.len());
                // Every round's first move, and now and then in a round.
                if cmd.moves.is_empty() || plies % 97 == 0 {
                    e.handle_line(&line);
                    assert!(out.take().is_empty(), "{line}");
                    let got = e.state();
                    assert_eq!(Setup::from_state(got), Setup::from_state(&full), "{line}");
                    assert_eq!(got.history(), full.history(), "{line}");
                    assert_eq!(got.status(), full.status(), "{line}");
                    let sorted = |g: &GameState| {
                        let mut v = g.round_starts().to_vec();
                        v.sort_by_key(|s| (s.holdings, s.starter.index()));
                        v
                    };
                    assert_eq!(sorted(got), sorted(&full), "{line}");
                    assert_eq!(got.round_starts().last(), full.round_starts().last());
                    if checked % 5 == 0 {
                        let limits = Limits {
                            depth: Some(4),
                            ..Limits::default()
                        };
                        let a = search(got, &limits, &mut |_| {});
                        let b = search(&full, &limits, &mut |_| {});
                        assert_eq!(a, b, "{line}");
                    }
                    checked += 1;
                }
                full.play(mv).unwrap();
                cmd.played(mv);
                plies += 1;
            }
            assert!(full.round() >= 100, "{game:?}: {} rounds", full.round());
            // Far inside the line limit, whatever the number of rounds.
            assert!(longest < 4096, "{game:?}: {longest} bytes");
            // The whole match's moves would not have been.
            assert!(plies * 2 > 4096, "{game:?}: {plies} plies");
        }
    }

    /// QA pass 17, second pass, review-engine #2: the manager sent the compact line
    /// (`position fen … starts …`) from round 2 of every match, which an engine of the earlier
    /// protocol (pussa's previous build among them) refused, forfeiting. The line is now every
    /// move from `startpos`, through the rounds, while that fits in MAX_LINE with its newline,
    /// and the compact line only past that; the engine reads both to the match's state.
    #[test]
    fn the_position_line_is_the_earlier_form_while_it_fits_and_compact_past_it() {
        let mut full = GameState::new(Game::WalakPussa, Mode::Match, Side::South);
        let mut cmd = PositionCommand::new(Side::South);
        let (mut e, out) = engine();
        e.handle_line("newgame walak-pussa match");
        let mut moves = String::new();
        let (mut earlier_form, mut compact_form) = (0, 0);
        let mut last_full = 0;
        for ply in 0.. {
            if full.next_round() {
                cmd.new_round(&full);
            }
            let whole = format!("position startpos first S{moves}");
            let fits = whole.len() < MAX_LINE;
            // Check every line around the switch, and now and then elsewhere.
            let near = whole.len().abs_diff(MAX_LINE) < 64;
            if near || ply % 1013 == 0 || (fits && full.round() == 2 && cmd.moves.is_empty()) {
                let line = cmd.line();
                assert!(line.len() < MAX_LINE, "{} bytes", line.len());
                if fits {
                    assert_eq!(line, whole);
                    earlier_form += 1;
                    last_full = ply;
                } else {
                    assert_eq!(line, cmd.compact_line());
                    assert!(line.starts_with("position fen "), "{line}");
                    compact_form += 1;
                }
                e.handle_line(&line);
                assert!(out.take().is_empty());
                assert_eq!(Setup::from_state(e.state()), Setup::from_state(&full));
                assert_eq!(e.state().history(), full.history());
                assert_eq!(e.state().round_starts().len(), full.round_starts().len());
                if !fits && compact_form >= 3 {
                    break;
                }
            }
            let mv = crate::arena::greedy_net_capture(&full).expect("the match goes on");
            full.play(mv).unwrap();
            cmd.played(mv);
            moves.push_str(if moves.is_empty() { " moves " } else { " " });
            moves.push(mv.letter());
        }
        assert!(full.round() > 2, "{} rounds", full.round());
        assert!(earlier_form > 3 && compact_form >= 3);
        // The earlier form as long as the whole line and its newline fit: some 32,750 plies.
        assert!(last_full > 32_000, "{last_full}");
    }

    #[test]
    fn starts_are_checked_with_one_error_line() {
        let (mut e, out) = engine();
        e.handle_line("newgame walak-pussa match");
        let before = e.state().clone();
        for (cmd, needle) in [
            (
                "position startpos starts 28,28,S",
                "'starts' follows a position string",
            ),
            (
                "position fen 4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0 S 2 walak-pussa starts 28,28,S*2",
                "position: starts: round 2 has 1 earlier round, 2 starts given",
            ),
            (
                "position fen 4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0 S 1 walak-pussa starts 28,28,S",
                "position: starts: round 1 has no earlier round, 1 start given",
            ),
            (
                "position fen 4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0 S 3 walak-pussa starts 28,28,S*2 28,28,N",
                "position: starts: round 3 has 2 earlier rounds, 3 starts given",
            ),
            (
                "position fen 4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0 S 2 walak-pussa starts 28,27,S",
                "position: starts: '28,27,S': holdings add up to 55, not the 56 seeds of walak-pussa",
            ),
            (
                "position fen 4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0 S 2 walak-pussa starts 28,28,X",
                "'28,28,X' is not a round's start",
            ),
            (
                "position fen 4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0 S 2 walak-pussa starts 28,28,S*0",
                "'28,28,S*0' is not a round's start",
            ),
        ] {
            e.handle_line(cmd);
            let lines = out.take();
            assert_eq!(lines.len(), 1, "{cmd}: {lines:?}");
            assert!(
                lines[0].starts_with("info string error: position: ") && lines[0].contains(needle),
                "{cmd}: {lines:?}"
            );
            // In the protocol's terms: no library field name, no Rust array of numbers.
            let array = lines[0]
                .as_bytes()
                .windows(2)
                .any(|w| w[0] == b'[' && w[1].is_ascii_digit());
            assert!(
                !lines[0].contains("round_starts") && !array,
                "{cmd}: {lines:?}"
            );
            assert_eq!(e.state(), &before);
        }
        e.handle_line("newgame walak-pussa single");
        e.handle_line(
            "position fen 4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0 S 2 walak-pussa starts 28,28,S",
        );
        assert_eq!(
            out.take(),
            ["info string error: position: starts: a single game has no earlier rounds ('starts' is for a match: newgame <game> match)"]
        );
    }

    #[test]
    fn handshake_lists_options_and_ends_with_pussaok() {
        let (mut e, out) = engine();
        e.handle_line("pussa");
        let lines = out.take();
        assert!(lines[0].starts_with("id name pussa "));
        assert!(lines[1].starts_with("id author "));
        assert!(lines
            .iter()
            .any(|l| l.starts_with("option name Threads type spin")));
        assert!(lines
            .iter()
            .any(|l| l.contains("option name Level") && l.contains("var max")));
        assert_eq!(lines.last().unwrap(), "pussaok");
        e.handle_line("isready");
        assert_eq!(out.take(), ["readyok"]);
    }

    #[test]
    fn position_and_go_depth_give_info_and_a_legal_bestmove() {
        let (mut e, out) = engine();
        e.handle_line("newgame raja-pasu single");
        e.handle_line("position startpos moves G");
        e.handle_line("go depth 3");
        e.wait();
        let lines = out.take();
        let infos: Vec<&String> = lines
            .iter()
            .filter(|l| l.starts_with("info depth"))
            .collect();
        assert_eq!(infos.len(), 3, "{lines:?}");
        assert!(
            infos[2].starts_with("info depth 3 score seeds "),
            "{}",
            infos[2]
        );
        for w in ["exact", "nodes", "nps", "time", "pv"] {
            assert!(
                infos[2].split_whitespace().any(|x| x == w),
                "{w} missing in {}",
                infos[2]
            );
        }
        let best = lines.last().unwrap().strip_prefix("bestmove ").unwrap();
        let mv: Hole = best.parse().unwrap();
        assert!(e.state().legal_moves().contains(mv));
        assert_eq!(mv.owner(), Side::North);
    }

    #[test]
    fn errors_are_one_line_and_leave_the_state_alone() {
        let (mut e, out) = engine();
        e.handle_line("position startpos moves A");
        let before = e.state().clone();
        for (cmd, needle) in [
            ("frobnicate", "unknown command 'frobnicate'"),
            (
                "position startpos moves A b",
                "move 2 'b': illegal move b: the hole is empty",
            ),
            (
                "position startpos moves A A",
                "move 2 'A': illegal move A: not your hole",
            ),
            ("position startpos moves Z", "move 1 'Z': unknown move 'Z'"),
            (
                "position fen 4,4,4,4,4,4,4/4,4,4,4,4,4,5 0 0 S 1 walak-pussa",
                "seeds add up to 57",
            ),
            (
                "position fen 4,4,4/4,4,4,4,4,4,4 0 0 S 1 walak-pussa",
                "South's row has 3 holes",
            ),
            ("setoption name Hash value 16", "unknown option 'Hash'"),
            (
                "setoption name Threads value 0",
                "Threads 0 is out of range",
            ),
            (
                "setoption name Level value godlike",
                "unknown Level 'godlike'",
            ),
            ("newgame chess", "unknown game 'chess'"),
            ("newgame raja-pasu forever", "unknown mode 'forever'"),
            ("go depth x", "depth 'x' is not"),
            ("go sideways", "unknown limit 'sideways'"),
            (
                "go movetime 18446744073709551615",
                "movetime 18446744073709551615 is out of range",
            ),
            // Numbers with too many digits for any type are out of range too, not "not a
            // whole number".
            (
                "go depth 99999999999999999999",
                "go: depth 99999999999999999999 is out of range 1..=1000",
            ),
            (
                "go nodes 18446744073709551616",
                "go: nodes 18446744073709551616 is out of range 1..=18446744073709551615",
            ),
            (
                "go movetime 99999999999999999999999",
                "go: movetime 99999999999999999999999 is out of range 0..=86400000",
            ),
            (
                "go wtime 99999999999999999999",
                "go: wtime 99999999999999999999 is out of range 0..=604800000 (a week)",
            ),
            (
                "go wtime 1000 movestogo 99999999999999999999",
                "go: movestogo 99999999999999999999 is out of range 1..=1000",
            ),
            (
                "setoption name Seed value 18446744073709551616",
                "setoption: Seed 18446744073709551616 is out of range 0..=18446744073709551615",
            ),
            (
                "setoption name Threads value 99999999999999999999",
                "setoption: Threads 99999999999999999999 is out of range 1..=",
            ),
            (
                "setoption name Threads value -1",
                "Threads '-1' is not a whole number",
            ),
            (
                "go nodes 1e3",
                "go: nodes '1e3' is not a whole number",
            ),
            ("go depth +2", "go: depth '+2' is not a whole number"),
            ("go movetime -5", "go: movetime '-5' is not a whole number"),
            (
                "setoption name Threads value +1",
                "setoption: Threads '+1' is not a whole number",
            ),
            (
                "setoption name Seed value +5",
                "setoption: Seed '+5' is not a whole number",
            ),
            (
                "newgame raja-pasu match extra",
                "newgame: found 'extra' after 'raja-pasu match' (expected 'newgame <game> [single|match]')",
            ),
        ] {
            e.handle_line(cmd);
            let lines = out.take();
            assert_eq!(lines.len(), 1, "{cmd}: {lines:?}");
            assert!(
                lines[0].starts_with("info string error: "),
                "{cmd}: {lines:?}"
            );
            assert!(lines[0].contains(needle), "{cmd}: {lines:?}");
            assert_eq!(e.state(), &before, "{cmd} changed the state");
        }
    }

    #[test]
    fn an_endless_move_is_refused_by_name() {
        // In this Walak-pussa position South's D sows for ever (found by a search over small
        // boards); A, C and F end.
        let fen = "1,0,1,1,0,1,0/1,0,1,0,1,0,2 23 24 S 1 walak-pussa";
        let (mut e, out) = engine();
        e.handle_line(&format!("position fen {fen} moves D"));
        let lines = out.take();
        assert_eq!(lines.len(), 1);
        assert!(
            lines[0].contains("move 1 'D': illegal move D: endless sowing"),
            "{lines:?}"
        );
        e.handle_line(&format!("position fen {fen}"));
        e.handle_line("d");
        assert!(out.take().iter().any(|l| l == "legal A C F"));
        e.handle_line("go depth 4");
        e.wait();
        let lines = out.take();
        assert_ne!(lines.last().unwrap(), "bestmove D", "{lines:?}");
    }

    #[test]
    fn fen_positions_and_first_mover() {
        let (mut e, out) = engine();
        e.handle_line("position startpos first N moves a");
        assert_eq!(e.state().position().to_move(), Side::South);
        e.handle_line("position fen 2,1,7,7,7,0,7/0,0,6,1,6,6,0 6 0 N 1 walak-pussa moves c");
        assert_eq!(e.state().position().to_move(), Side::South);
        // The position string may also come without `fen`.
        e.handle_line("position 2,1,7,7,7,0,7/0,0,6,1,6,6,0 6 0 N 1 walak-pussa");
        e.handle_line("d");
        let lines = out.take();
        assert!(
            lines
                .iter()
                .any(|l| l == "fen 2,1,7,7,7,0,7/0,0,6,1,6,6,0 6 0 N 1 walak-pussa"),
            "{lines:?}"
        );
        assert!(lines.iter().any(|l| l == "legal c d e f"), "{lines:?}");
    }

    #[test]
    fn a_finished_game_answers_bestmove_none() {
        let (mut e, out) = engine();
        // North has no seeds and no move: the round is over at once.
        e.handle_line("position fen 0,0,0,0,0,0,1/0,0,0,0,0,0,0 30 25 N 1 walak-pussa");
        e.handle_line("go depth 2");
        e.wait();
        let lines = out.take();
        assert_eq!(lines.last().unwrap(), "bestmove none", "{lines:?}");
    }

    #[test]
    fn match_moves_run_across_rounds() {
        let (mut e, out) = engine();
        e.handle_line("newgame walak-pussa match");
        e.handle_line("position fen 0,0,0,0,0,0,1/0,0,0,0,0,0,0 50 5 N 1 walak-pussa");
        // Round 1 ends at once (North stuck); the engine lays out round 2: North opens one hole.
        assert_eq!(e.state().round(), 2);
        assert_eq!(e.state().legal_moves().len(), 1);
        e.handle_line("go depth 1");
        e.wait();
        let lines = out.take();
        assert_eq!(lines.last().unwrap(), "bestmove g", "{lines:?}");
    }

    #[test]
    fn infinite_search_stops_on_stop_and_isready_is_answered_meanwhile() {
        let (mut e, out) = engine();
        e.handle_line("go infinite");
        std::thread::sleep(Duration::from_millis(50));
        e.handle_line("isready");
        e.handle_line("go depth 1");
        let lines = out.take();
        assert!(lines.iter().any(|l| l == "readyok"), "{lines:?}");
        assert!(
            lines
                .iter()
                .any(|l| l.contains("error: go: a search is already running")),
            "{lines:?}"
        );
        assert!(
            !lines.iter().any(|l| l.starts_with("bestmove")),
            "{lines:?}"
        );
        e.handle_line("stop");
        e.wait();
        let lines = out.take();
        let best = lines
            .last()
            .unwrap()
            .strip_prefix("bestmove ")
            .expect("bestmove after stop");
        assert!(e.state().legal_moves().contains(best.parse().unwrap()));
    }

    #[test]
    fn run_reads_until_quit() {
        let input = io::Cursor::new("pussa\nisready\nquit\nisready\n");
        let out = run(input, Vec::new()).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.iter().filter(|l| **l == "readyok").count(), 1);
    }

    #[test]
    fn levels_play_through_the_option() {
        let (mut e, out) = engine();
        e.handle_line(&format!(
            "setoption name Level value {}",
            Level::ALL[0].name()
        ));
        e.handle_line("go");
        e.wait();
        let lines = out.take();
        assert!(lines.last().unwrap().starts_with("bestmove "), "{lines:?}");
    }

    /// `newgame` during a search: the old search ends and says its bestmove before the new
    /// game exists (UCI's `ucinewgame`), so the next bestmove is never the old game's.
    #[test]
    fn newgame_during_a_search_ends_it_first() {
        let (mut e, out) = engine();
        e.handle_line("newgame raja-pasu single");
        e.handle_line("go infinite");
        std::thread::sleep(Duration::from_millis(30));
        e.handle_line("newgame walak-pussa single");
        let lines = out.take();
        let best = lines
            .last()
            .and_then(|l| l.strip_prefix("bestmove "))
            .unwrap_or_else(|| panic!("the old search's bestmove first: {lines:?}"));
        let raja = GameState::new(Game::RajaPasu, Mode::Single, Side::South);
        assert!(raja.legal_moves().contains(best.parse().unwrap()));
        assert_eq!(e.state().game(), Game::WalakPussa);
        // No search runs: go is accepted at once.
        e.handle_line("go depth 1");
        e.wait();
        let lines = out.take();
        assert!(lines.last().unwrap().starts_with("bestmove "), "{lines:?}");
        assert!(!lines.iter().any(|l| l.contains("error")), "{lines:?}");
    }

    /// `newgame … match` computes the match's round values, and `isready` waits for them, so
    /// the first timed search of a match does not pay for them inside its movetime.
    #[test]
    fn isready_after_a_match_newgame_has_the_round_values_ready() {
        let (mut e, out) = engine();
        // A game no other test of this binary plays as a match before: only prepare() makes
        // every one of its round values ready.
        e.handle_line("newgame pasu-pondi-6 match");
        e.handle_line("isready");
        assert!(crate::matchval::is_prepared(Game::PasuPondi6));
        assert_eq!(out.take(), ["readyok"]);
    }

    /// A searching level reports its iterations, and its own limits replace go's: with
    /// `infinite` it searches its 500 nodes and, as UCI says for infinite, holds its bestmove
    /// until stop.
    #[test]
    fn searching_levels_print_info_and_use_their_own_limits() {
        let (mut e, out) = engine();
        e.handle_line("setoption name Level value club");
        e.handle_line("go");
        e.wait();
        let lines = out.take();
        assert!(
            lines.iter().any(|l| l.starts_with("info depth")),
            "{lines:?}"
        );
        assert!(lines.last().unwrap().starts_with("bestmove "), "{lines:?}");
        e.handle_line("go infinite");
        std::thread::sleep(Duration::from_millis(300));
        let lines = out.take();
        let last = lines
            .iter()
            .rev()
            .find(|l| l.starts_with("info depth"))
            .unwrap();
        let nodes: u64 = last
            .split_whitespace()
            .skip_while(|w| *w != "nodes")
            .nth(1)
            .unwrap()
            .parse()
            .unwrap();
        assert!(
            nodes <= 2000,
            "club's 500 nodes, not an infinite search: {lines:?}"
        );
        assert!(
            !lines.iter().any(|l| l.starts_with("bestmove")),
            "{lines:?}"
        );
        e.handle_line("stop");
        e.wait();
        assert!(out.take().last().unwrap().starts_with("bestmove "));
        // A level that does not search prints no info line.
        e.handle_line("setoption name Level value beginner");
        e.handle_line("go");
        e.wait();
        let lines = out.take();
        assert_eq!(lines.len(), 1, "{lines:?}");
    }

    /// Extra words are refused everywhere, with one error line, and the command is not run.
    #[test]
    fn extra_words_and_repeated_limits_are_refused() {
        let (mut e, out) = engine();
        for cmd in [
            "d extra",
            "show x",
            "isready now",
            "stop it",
            "help me",
            "pussa 2",
            "quit now",
        ] {
            assert_eq!(e.handle_line(cmd), Flow::Continue, "{cmd}");
            let lines = out.take();
            assert_eq!(lines.len(), 1, "{cmd}: {lines:?}");
            assert!(
                lines[0].starts_with("info string error: ")
                    && lines[0].contains("takes no arguments"),
                "{cmd}: {lines:?}"
            );
        }
        for (cmd, msg) in [
            ("go depth 3 depth 4", "'depth' is given twice"),
            ("go nodes 5 movetime 9 NODES 6", "'nodes' is given twice"),
            ("go infinite infinite", "'infinite' is given twice"),
            ("newgame raja-pasu single extra", "expected 'newgame"),
            ("position startpos extra", "position:"),
        ] {
            e.handle_line(cmd);
            let lines = out.take();
            assert_eq!(lines.len(), 1, "{cmd}: {lines:?}");
            assert!(
                lines[0].starts_with("info string error: ") && lines[0].contains(msg),
                "{cmd}: {lines:?}"
            );
        }
        assert_eq!(e.handle_line("quit"), Flow::Quit);
    }
}
