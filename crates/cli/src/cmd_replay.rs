//! `pussa replay`: plays a list of moves and shows every state, as boards or as JSON lines.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context};
use pussa_rules::narrate;
use pussa_rules::record::{Numbering, Record, RecordResult};
use pussa_rules::{Event, Game, GameState, Hole, Mode, MoveReport, Position, Setup, Side, Status};
use serde::Serialize;

/// Replay a game or match move by move. Each move is a hole letter: `A`..`G` for South,
/// `a`..`g` for North. In a match, a new round is laid out as soon as one ends.
///
/// With `--json`, one JSON object a line: the start state, then the state after each move; in a
/// match, a move that ends a round is followed by the start of the next round. Each object has
/// exactly the fields `round`, `board` (14 numbers, `A`..`G` then `a`..`g`), `closed` (indices
/// of closed holes), `stores` ([South, North]: seeds held off the board), `to_move` ("S", "N",
/// or null when the round is over), `legal` (legal moves in board order), `round_over` (no
/// more moves in this round: it ended, or the game or match is over, a resignation or the round
/// limit included), `match_over` (a single game's turns true when the game ends) and `winner`
/// ("S", "N", "draw",
/// or null until the game or match is over). At the end of a round the board has been swept:
/// every hole is 0 and the stores include what each player took off the board at the end.
/// A start position that already ends its round with seeds on its board is shown as given
/// first (its player to move, no legal move, `round_over` true, not swept), then the round's
/// end; one whose board is already swept (a round's end, as a line's `position` writes it) is
/// that round's end, one state.
///
/// A single game is won on the seeds taken in its round (from a round-2 position, not the
/// stores, which also hold what was carried over); a match on the seeds held.
#[derive(clap::Args)]
#[command(
    after_help = "Examples:\n  pussa replay --game walak-pussa --moves \"A d C\"\n  \
    pussa replay --game raja-pasu --match --first N --moves \"1... d 2. B\" --json\n  \
    pussa replay --position \"0,1,0,2,0,0,0/1,0,0,0,1,0,2 63 0 S 1 pasu-pondi\" --moves \"D\"\n  \
    pussa replay --record game.txt\n  \
    pussa replay --record tournament.pgn --game-number 7"
)]
pub struct Args {
    /// The game: walak-pussa, raja-pasu, pasu-pondi or pasu-pondi-6 (default: the game the
    /// `--position` string names).
    // Not required with --game-number either: that needs --record, and clap's usage for it
    // should name --record alone.
    #[arg(long, required_unless_present_any = ["record", "position", "game_number"])]
    pub game: Option<Game>,
    /// Play a match of several rounds instead of a single game.
    #[arg(long = "match", conflicts_with = "record")]
    pub match_mode: bool,
    /// Who moves first: S (South) or N (North).
    #[arg(long, conflicts_with_all = ["position", "record"])]
    pub first: Option<Side>,
    /// Start from this position string (see `pussa rules`), e.g.
    /// "4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0 S 1 walak-pussa"; from round 2 on a store may be
    /// written C+T (kept from the refill + taken in this round).
    #[arg(long, conflicts_with = "record")]
    pub position: Option<String>,
    /// The moves, separated by spaces or commas; move numbers such as `1.` or `1...` and
    /// comments `{…}` are skipped, round markers (`R2`) and a final result (`1-0`, `*`) checked
    /// as a record's, so a record's movetext can be pasted.
    #[arg(long, conflicts_with = "record", allow_hyphen_values = true)]
    pub moves: Option<String>,
    /// Replay a game record file instead (its tags give the game, mode and start). A record
    /// whose result is decided without its moves finishing the game (a resignation) ends with
    /// that result and its Termination tag; with --json its last line is marked over
    /// (`match_over` and `round_over` true, no player to move).
    #[arg(long)]
    pub record: Option<PathBuf>,
    /// With --record, a file of several records (as `pussa tournament --pgn` writes): replay
    /// game N, the record tagged [Number "N"], or else the Nth record in the file.
    #[arg(long, value_name = "N", requires = "record", allow_negative_numbers = true, value_parser = crate::numarg::ranged::<u32>(1, u32::MAX.into()))]
    pub game_number: Option<u32>,
    /// Print one JSON object per state instead of boards.
    #[arg(long)]
    pub json: bool,
}

/// One word of a move list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveToken {
    /// A move.
    Move(Hole),
    /// A round marker `R2`, `R3`, …, before the move that opens that round.
    Marker(u32),
    /// A result token (`1-0`, `0-1`, `1/2-1/2`, `*`), which may only end the list.
    Result(RecordResult),
    /// A word that is none of these, kept to be reported where it stands.
    Bad(String),
    /// Text the record reader refuses, with its verdict (`'R0': a round marker is R and the
    /// round's number, like R2`), reported where it stands.
    Refused(String),
}

/// Parses a move list as `--moves` takes it, so that a record's movetext can be pasted: letters
/// separated by spaces or commas, move numbers (`1.`, `1...`) and comments (`{…}`) skipped,
/// round markers (`R2`) and a result token (`1-0`) kept to be checked where they stand. Never
/// fails: a word that is not a move, or text the record reader refuses (an unclosed comment, a
/// round marker that is not one), is kept and reported by [`play_moves`] where it stands.
#[must_use]
pub fn parse_moves(text: &str) -> Vec<MoveToken> {
    let mut tokens = Vec::new();
    let mut rest = text;
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == ',');
        let Some(first) = rest.chars().next() else {
            break;
        };
        if first == '{' {
            // As the record reader: a round marker stands right before its move.
            if let Some(MoveToken::Marker(n)) = tokens.last() {
                tokens.push(MoveToken::Refused(format!(
                    "round marker R{n}: a comment between a round marker and its move"
                )));
                break;
            }
            match rest.find('}') {
                Some(end) => rest = &rest[end + 1..],
                None => {
                    tokens.push(MoveToken::Refused(
                        "comment not closed with '}'".to_string(),
                    ));
                    break;
                }
            }
            continue;
        }
        if first == '}' {
            tokens.push(MoveToken::Refused(
                "'}' without a '{' before it".to_string(),
            ));
            rest = &rest[1..];
            continue;
        }
        let end = rest
            .find(|c: char| c.is_whitespace() || c == ',' || c == '{' || c == '}')
            .unwrap_or(rest.len());
        let token = &rest[..end];
        rest = &rest[end..];
        if let Some(result) = RecordResult::from_token(token) {
            tokens.push(MoveToken::Result(result));
            // As the record reader: nothing (no comment, no move number) follows the result.
            let after = rest.trim_start_matches(|c: char| c.is_whitespace() || c == ',');
            if !after.is_empty() {
                let shown: String = after.chars().take(40).collect();
                tokens.push(MoveToken::Refused(format!(
                    "result {result}: nothing may follow the result, but '{}' does",
                    shown.escape_debug()
                )));
            }
            break;
        }
        if token.contains('-')
            && token
                .bytes()
                .all(|b| b.is_ascii_digit() || b == b'-' || b == b'/')
        {
            tokens.push(MoveToken::Refused(format!(
                "'{}': a result is 1-0, 0-1, 1/2-1/2 or *",
                token.escape_debug()
            )));
            continue;
        }
        let digits = token.bytes().take_while(u8::is_ascii_digit).count();
        let dots = token
            .bytes()
            .skip(digits)
            .take_while(|&b| b == b'.')
            .count();
        let word = if digits > 0 && dots > 0 {
            &token[digits + dots..]
        } else {
            token
        };
        if word.is_empty() {
            continue;
        }
        if let Some(n) = word.strip_prefix('R').filter(|n| !n.is_empty()) {
            // As the record reader: a round is a number from 1 that fits its type; anything
            // else after R (no hole is named R) is a malformed marker, not a move.
            tokens.push(match n.parse::<u32>() {
                Ok(n) if n >= 1 && !word[1..].starts_with('+') => MoveToken::Marker(n),
                _ => MoveToken::Refused(format!(
                    "'{}': a round marker is R and the round's number, like R2",
                    word.escape_debug()
                )),
            });
            continue;
        }
        tokens.push(match word.parse::<Hole>() {
            Ok(mv) => MoveToken::Move(mv),
            Err(_) => MoveToken::Bad(word.to_string()),
        });
    }
    tokens
}

/// Plays a move list from `g`, numbering each move as records do (`3...`, `R2 1.`) from
/// `start_round`, the round of the position the moves start from (a record's start: before a
/// round that was over there was laid out), and checking its round markers and its result as the
/// record reader does. Before each move a round of a match that is over is laid out; after each,
/// `each` gets the move's number (`3...`), the move, what it did and the state.
///
/// Returns the list's result token, if it ends with one: one the moves do not contradict (a
/// result of a game they leave unfinished is decided without them, as a record's).
///
/// # Errors
/// The first word that is not a move, a misplaced round marker, a move that cannot be played,
/// each named by the move's number (`move 4... A: not your hole: …`), or a result that is not
/// last or not the one the moves give.
pub fn play_moves(
    g: &mut GameState,
    start_round: u32,
    tokens: &[MoveToken],
    mut each: impl FnMut(&str, Hole, &MoveReport, &mut GameState) -> anyhow::Result<()>,
) -> anyhow::Result<Option<RecordResult>> {
    let mut numbering = Numbering::new(start_round);
    let mut marker = None;
    let mut result = None;
    let mut played = false;
    for token in tokens {
        if let Some(r) = result {
            if let MoveToken::Refused(why) = token {
                bail!("{why}");
            }
            bail!(
                "result {r} before move {}: nothing may follow the result",
                numbering.prefix(g)
            );
        }
        let mv = match token {
            MoveToken::Marker(n) => {
                if marker.is_some() {
                    bail!("round marker R{n}: two round markers in a row");
                }
                marker = Some(*n);
                continue;
            }
            MoveToken::Result(r) => {
                result = Some(*r);
                continue;
            }
            MoveToken::Bad(word) => {
                bail!(
                    "move {} {}: not a move: moves are A-G (South's holes) and a-g (North's \
                     holes), with move numbers 1. 1..., round markers R2, R3, …, comments {{…}} \
                     and a result 1-0, 0-1, 1/2-1/2 or * at the end",
                    numbering.prefix(g),
                    word.escape_debug()
                );
            }
            MoveToken::Refused(why) => {
                bail!("{why} (at move {})", numbering.prefix(g));
            }
            MoveToken::Move(mv) => *mv,
        };
        if let Some(n) = marker.take() {
            numbering
                .check_marker(g, n)
                .map_err(|e| anyhow!("{e} (move {})", numbering.label(g, mv)))?;
        }
        let round = Numbering::round_of_next(g);
        let prefix = numbering.prefix(g);
        let label = numbering.label(g, mv);
        if matches!(g.status(), Status::RoundOver { .. }) {
            g.next_round();
        }
        let report = g
            .play(mv)
            .map_err(|e| anyhow!("move {label}: {}", e.reason))?;
        numbering.played(mv, round);
        played = true;
        each(&prefix, mv, &report, g)?;
    }
    // A trailing marker stands before the move that comes next (the one `explain --move`
    // explains, or the record's next move): it is checked against the round that move is in.
    if let Some(n) = marker {
        numbering
            .check_marker(g, n)
            .map_err(|e| anyhow!("{e} (at the end of the moves)"))?;
    }
    if let (Some(r), Some(w)) = (result, g.winner()) {
        let actual = RecordResult::from_winner(w);
        if actual != r {
            if played {
                bail!("result {r}, but the moves end the game with {actual}");
            }
            // No move: the game was over in the start position itself.
            bail!("result {r}, but the position is a game that is already over with {actual}");
        }
    }
    Ok(result)
}

/// The game of a command: `--game`, or else the game the `--position` string names (its last
/// field). With both, [`start_state`] checks that they agree.
///
/// # Errors
/// Neither given, or a position string too broken to name its game.
pub fn game_of(game: Option<Game>, position: Option<&str>) -> anyhow::Result<Game> {
    match (game, position) {
        (Some(game), _) => Ok(game),
        (None, Some(p)) => {
            let setup: Setup = p.parse().context("--position")?;
            Ok(setup.game)
        }
        (None, None) => bail!("--game is required (or a --position string, which names its game)"),
    }
}

/// The start of a game from `--game`, `--position`, `--first` and the mode.
///
/// # Errors
/// A malformed position string, or one for another game than `game`.
pub fn start_state(
    game: Game,
    mode: Mode,
    first: Option<Side>,
    position: Option<&str>,
) -> anyhow::Result<GameState> {
    match position {
        None => Ok(GameState::new(game, mode, first.unwrap_or(Side::South))),
        Some(p) => {
            let setup: Setup = p.parse().context("--position")?;
            setup.expect_game(game).context("--position")?;
            setup.game_state(mode).context("--position")
        }
    }
}

/// One line of `--json` output.
#[derive(Serialize)]
pub struct StateJson {
    round: u32,
    board: [u8; 14],
    closed: Vec<usize>,
    stores: [u8; 2],
    to_move: Option<String>,
    legal: Vec<String>,
    round_over: bool,
    match_over: bool,
    winner: Option<&'static str>,
    /// The position string of the state shown (docs/notation.md), as `analyze --position` and
    /// the engine's `position fen` read it: [`Setup::from_state`].
    position: String,
    /// Seeds taken in this round by `[South, North]` (part of `stores`), as the web state's
    /// `taken`.
    taken: [u8; 2],
}

impl StateJson {
    /// The JSON view of a state.
    #[must_use]
    pub fn of(g: &GameState) -> StateJson {
        StateJson::with_legal(g, g.legal_moves().map(|h| h.letter().to_string()).collect())
    }

    /// [`StateJson::of`] with `legal` as the legal moves, as a caller that knows them already
    /// found them (`analyze`: the moves proven legal within its time; [`GameState::legal_moves`]
    /// may take seconds to prove a long move endless, docs/rules.md, "Endless moves").
    #[must_use]
    pub fn with_legal(g: &GameState, legal: Vec<String>) -> StateJson {
        let pos = g.position();
        let closed = pos.closed_mask();
        StateJson {
            round: g.round(),
            board: pos.board(),
            closed: (0..14).filter(|i| closed & (1 << i) != 0).collect(),
            stores: pos.stores(),
            to_move: g.to_move().map(|s| s.letter().to_string()),
            legal,
            round_over: g.is_round_over(),
            match_over: g.is_over(),
            winner: g.winner().map(side_word),
            position: Setup::from_state(g).to_string(),
            taken: g.taken_this_round(),
        }
    }

    /// This state ended by a result decided without the moves finishing the game (a
    /// resignation, a result after `--moves`): over, with no more moves in the round either
    /// (one meaning of `round_over`, the server's state's as well), won by `winner` (`None`: a
    /// draw).
    #[must_use]
    pub fn decided(mut self, winner: Option<Side>) -> StateJson {
        self.to_move = None;
        self.legal.clear();
        self.round_over = true;
        self.match_over = true;
        self.winner = Some(side_word(winner));
        self
    }
}

impl StateJson {
    /// The JSON view of `given`, a position whose round is already over (the state `g` set up
    /// from it has ended the round at once), as given: its board and stores before the sweep
    /// and its player to move, with no legal move and `round_over` true.
    fn given(given: &Position, g: &GameState) -> StateJson {
        let closed = given.closed_mask();
        // What each took in the round before the sweep: the stores as given less what each kept
        // from the last refill (which the sweep does not change).
        let (stores, taken) = (g.position().stores(), g.taken_this_round());
        let kept = [0, 1].map(|i| stores[i] - taken[i]);
        let taken = [0, 1].map(|i| given.stores()[i] - kept[i]);
        let setup = Setup {
            board: given.board(),
            closed,
            stores: given.stores(),
            taken,
            to_move: given.to_move(),
            ..Setup::from_state(g)
        };
        StateJson {
            position: setup.to_string(),
            taken,
            round: g.round(),
            board: given.board(),
            closed: (0..14).filter(|i| closed & (1 << i) != 0).collect(),
            stores: given.stores(),
            to_move: Some(given.to_move().letter().to_string()),
            legal: Vec::new(),
            round_over: true,
            match_over: false,
            winner: None,
        }
    }
}

/// Why the round of a state set up from a position is already over, in words ("every seed
/// lies in South's row"), or `None` while it is being played. The rules test a round's end after
/// each move; the project ends at once the round of a position that already meets a test
/// (docs/rules.md, "Decisions").
#[must_use]
pub fn over_at_once(g: &GameState) -> Option<String> {
    let result = match g.status() {
        Status::Playing => return None,
        Status::RoundOver { result, .. } | Status::Over { result, .. } => result,
    };
    Some(narrate::end_reason(&result))
}

/// A result a record decides without its moves finishing the game (a resignation).
struct Decided {
    /// The winner, `None` for a draw.
    winner: Option<Side>,
    /// Why, from the record's `Termination` tag.
    termination: Option<String>,
    /// The result token, e.g. `1-0`.
    token: &'static str,
}

/// How replay shows what happens.
trait Show {
    fn start(&mut self, g: &GameState) -> anyhow::Result<()>;
    /// The start when the position given already ends its round with seeds still on its
    /// board: the position as given, then (a separate step) the round's end in `g`, swept.
    fn start_over(&mut self, given: &Position, why: &str, g: &GameState) -> anyhow::Result<()>;
    /// Move `n` of the list (from 1), numbered `number` as records write it (`3...`, `R2 1.`).
    /// `ends`: the move ends a round of a match, and the match with it, by the result that
    /// follows (a match stopped at its round limit, a resignation): no next round follows.
    fn moved(
        &mut self,
        n: usize,
        number: &str,
        mv: Hole,
        r: &MoveReport,
        g: &GameState,
        ends: bool,
    ) -> anyhow::Result<()>;
    fn next_round(&mut self, refill: Option<&Event>, g: &GameState) -> anyhow::Result<()>;
    /// After the last move: the record's decided result, if the moves left the game unfinished.
    fn finish(&mut self, decided: Option<&Decided>, g: &GameState) -> anyhow::Result<()>;
}

/// JSON lines; the last is held back until [`Show::finish`], which may mark it over.
struct Json<W: Write> {
    out: W,
    pending: Option<StateJson>,
}

impl<W: Write> Json<W> {
    fn line(&mut self, g: &GameState) -> anyhow::Result<()> {
        self.flush()?;
        self.pending = Some(StateJson::of(g));
        Ok(())
    }

    fn flush(&mut self) -> anyhow::Result<()> {
        if let Some(line) = self.pending.take() {
            serde_json::to_writer(&mut self.out, &line)?;
            writeln!(self.out)?;
        }
        Ok(())
    }
}

impl<W: Write> Show for Json<W> {
    fn start(&mut self, g: &GameState) -> anyhow::Result<()> {
        self.line(g)
    }
    fn start_over(&mut self, given: &Position, _: &str, g: &GameState) -> anyhow::Result<()> {
        self.flush()?;
        self.pending = Some(StateJson::given(given, g));
        self.line(g)
    }
    fn moved(
        &mut self,
        _: usize,
        _: &str,
        _: Hole,
        _: &MoveReport,
        g: &GameState,
        _: bool,
    ) -> anyhow::Result<()> {
        self.line(g)
    }
    fn next_round(&mut self, _: Option<&Event>, g: &GameState) -> anyhow::Result<()> {
        self.line(g)
    }
    fn finish(&mut self, decided: Option<&Decided>, _: &GameState) -> anyhow::Result<()> {
        if let Some(d) = decided {
            self.pending = self.pending.take().map(|line| line.decided(d.winner));
        }
        self.flush()
    }
}

fn side_word(w: Option<Side>) -> &'static str {
    match w {
        Some(Side::South) => "S",
        Some(Side::North) => "N",
        None => "draw",
    }
}

/// Boards and words; `comments[i]` is a record's comment on move `i + 1`.
struct Text<W: Write> {
    out: W,
    header: Vec<String>,
    comments: Vec<Option<String>>,
}

/// The board as South sees it, without the position's own "to move" line.
pub fn board(g: &GameState) -> String {
    let drawn = g.position().to_string();
    let lines: Vec<&str> = drawn.lines().collect();
    lines[..lines.len().saturating_sub(1)].join("\n")
}

impl<W: Write> Text<W> {
    /// The record's tags, then the game, the mode and the round.
    fn title(&mut self, g: &GameState) -> anyhow::Result<()> {
        for line in &self.header {
            writeln!(self.out, "{line}")?;
        }
        let what = if g.mode() == Mode::Match {
            "match"
        } else {
            "single game"
        };
        writeln!(
            self.out,
            "{}, {what}, round {}.",
            g.game().title(),
            g.round()
        )?;
        Ok(())
    }

    fn state(&mut self, g: &GameState) -> anyhow::Result<()> {
        writeln!(self.out, "{}", board(g))?;
        match g.status() {
            Status::Playing => {
                let side = g.position().to_move();
                writeln!(self.out, "{side} to move; legal: {}", g.legal_moves())?;
            }
            Status::RoundOver { result, .. } => {
                writeln!(self.out, "{}", narrate::round_end(g.game(), &result))?;
                writeln!(self.out, "{}", narrate::holding(g))?;
            }
            Status::Over { result, .. } => {
                writeln!(self.out, "{}", narrate::round_end(g.game(), &result))?;
                if let Some(over) = narrate::game_over(g) {
                    writeln!(self.out, "{over}")?;
                }
            }
        }
        Ok(())
    }
}

impl<W: Write> Show for Text<W> {
    fn finish(&mut self, decided: Option<&Decided>, g: &GameState) -> anyhow::Result<()> {
        let Some(d) = decided else {
            return Ok(());
        };
        let what = if g.mode() == Mode::Match {
            "match"
        } else {
            "game"
        };
        let verdict = match d.winner {
            Some(w) => format!("{w} wins"),
            None => "a draw".to_string(),
        };
        let why = d
            .termination
            .clone()
            .unwrap_or_else(|| format!("the record's result, {}", d.token));
        writeln!(self.out, "The {what} is over: {verdict} ({why}).")?;
        Ok(())
    }

    fn start(&mut self, g: &GameState) -> anyhow::Result<()> {
        self.title(g)?;
        self.state(g)
    }

    fn start_over(&mut self, given: &Position, why: &str, g: &GameState) -> anyhow::Result<()> {
        self.title(g)?;
        let drawn = given.to_string();
        let lines: Vec<&str> = drawn.lines().collect();
        writeln!(
            self.out,
            "{}",
            lines[..lines.len().saturating_sub(1)].join("\n")
        )?;
        writeln!(
            self.out,
            "{} to move, but the round is already over in this position: {why}.\n",
            given.to_move()
        )?;
        self.state(g)
    }

    fn moved(
        &mut self,
        n: usize,
        number: &str,
        mv: Hole,
        r: &MoveReport,
        g: &GameState,
        ends: bool,
    ) -> anyhow::Result<()> {
        writeln!(
            self.out,
            "\n{number} {} plays {mv}: {}.",
            mv.owner(),
            narrate::outcome(&r.outcome)
        )?;
        if let Some(Some(c)) = self.comments.get(n - 1) {
            writeln!(self.out, "{{{c}}}")?;
        }
        match g.status() {
            // The match ends with this round: what each holds, no next round.
            Status::RoundOver { result, .. } if ends => {
                writeln!(self.out, "{}", board(g))?;
                writeln!(self.out, "{}", narrate::round_end(g.game(), &result))?;
                writeln!(self.out, "{}", narrate::final_holding(g))?;
                Ok(())
            }
            _ => self.state(g),
        }
    }

    fn next_round(&mut self, refill: Option<&Event>, g: &GameState) -> anyhow::Result<()> {
        let lines = narrate::refill_lines(
            g.game(),
            refill.map(std::slice::from_ref).unwrap_or_default(),
        );
        if !lines.is_empty() {
            writeln!(self.out, "\n{}", lines.join("\n"))?;
        }
        self.state(g)
    }
}

/// Lays out every next round that is due, showing each.
fn advance(g: &mut GameState, show: &mut dyn Show) -> anyhow::Result<()> {
    while g.mode() == Mode::Match && matches!(g.status(), Status::RoundOver { .. }) {
        let mut events = Vec::new();
        if !g.next_round_traced(&mut events) {
            break;
        }
        let refill = events.iter().find(|e| matches!(e, Event::Refill { .. }));
        show.next_round(refill, g)?;
    }
    Ok(())
}

/// Plays `moves` from `g`, showing every state, then the record's `decided` result if the
/// moves left the game unfinished.
fn replay(
    mut g: GameState,
    given: Option<Position>,
    moves: &[MoveToken],
    decided: Option<&Decided>,
    show: &mut dyn Show,
) -> anyhow::Result<()> {
    // A position whose round is over and whose board still has to be swept is shown as given
    // first, then swept. A board already swept (a round's end as `replay` itself writes it)
    // is that round's end: one state, the one its line showed (QA pass 21, interop2 #3).
    match (given, over_at_once(&g)) {
        (Some(given), Some(why)) if given.seeds_on_board() > 0 => {
            show.start_over(&given, &why, &g)?;
        }
        _ => show.start(&g)?,
    }
    // Moves are numbered from the round the position is in, as a record numbers them: a round
    // that was over there and is laid out now is a later round (`R2 1.`).
    let start_round = g.round();
    advance(&mut g, show)?;
    // A decided result after the last move (the record's, or one ending the list) ends the
    // game there: when that move ends a round of a match (a match stopped at its round limit,
    // as `pussa tournament` writes it, or a resignation between rounds), the match ends with
    // that round and the next is not laid out.
    let last = moves
        .iter()
        .filter(|t| matches!(t, MoveToken::Move(_)))
        .count();
    let decided_at_end = decided.is_some()
        || matches!(moves.last(), Some(MoveToken::Result(r)) if *r != RecordResult::Unfinished);
    let mut n = 0;
    let played = play_moves(&mut g, start_round, moves, |number, mv, report, g| {
        n += 1;
        let ends = decided_at_end && n == last && matches!(g.status(), Status::RoundOver { .. });
        show.moved(n, number, mv, report, g, ends)?;
        if ends {
            return Ok(());
        }
        advance(g, show)
    });
    let listed = match played {
        Ok(result) => result,
        Err(e) => {
            show.finish(None, &g)?;
            return Err(e);
        }
    };
    // A result at the end of `--moves`, as a record's.
    let listed = listed
        .filter(|r| *r != RecordResult::Unfinished)
        .map(|r| Decided {
            winner: match r {
                RecordResult::SouthWins => Some(Side::South),
                RecordResult::NorthWins => Some(Side::North),
                _ => None,
            },
            termination: Some(format!("the result given after the moves, {}", r.token())),
            token: r.token(),
        });
    show.finish(decided.or(listed.as_ref()).filter(|_| !g.is_over()), &g)
}

/// The most a record file may hold: a record is a small text file (a long match is a few KiB),
/// and a tournament's `--pgn` file of thousands of games stays well below it.
pub const MAX_RECORD_FILE: u64 = 16 << 20;

/// Reads a record file: a regular file of at most [`MAX_RECORD_FILE`] bytes, in UTF-8. A device,
/// a FIFO or a directory is refused before anything is read (`/dev/zero` would never end).
fn read_record_file(path: &Path) -> anyhow::Result<String> {
    let shown = path.display();
    // Checked before opening: opening a FIFO would wait for a writer.
    let meta =
        std::fs::metadata(path).with_context(|| format!("cannot read the record {shown}"))?;
    if !meta.is_file() {
        bail!("the record {shown} is not a regular file (a record is read from a text file)");
    }
    let file =
        std::fs::File::open(path).with_context(|| format!("cannot read the record {shown}"))?;
    let limit = MAX_RECORD_FILE;
    let too_big = || {
        anyhow!(
            "the record {shown} is larger than {} MiB, the most a record file may hold",
            limit >> 20
        )
    };
    if meta.len() > limit {
        return Err(too_big());
    }
    let mut bytes = Vec::new();
    // The file may grow while it is read: never read more than the limit.
    let mut reader = file.take(limit + 1);
    let mut chunk = vec![0u8; 1 << 16];
    let mut started = false;
    loop {
        let n = reader
            .read(&mut chunk)
            .with_context(|| format!("cannot read the record {shown}"))?;
        if n == 0 {
            break;
        }
        bytes.extend_from_slice(&chunk[..n]);
        if started {
            continue;
        }
        // A record starts with a tag: stop at the first text that cannot start one, with the
        // reader's own message, rather than read the rest.
        let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
        if let Some(&first) = body.iter().find(|b| !b.is_ascii_whitespace()) {
            started = true;
            if first != b'[' {
                if let Err(e) = Record::parse(&String::from_utf8_lossy(&bytes)) {
                    bail!("record {shown}: {e}");
                }
            }
        }
    }
    if bytes.len() as u64 > limit {
        return Err(too_big());
    }
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        let line = 1 + bytes[..at].iter().filter(|&&b| b == b'\n').count();
        anyhow!("the record {shown} is not UTF-8 text (line {line}, byte {at})")
    })
}

/// The records of a file, each with its byte offset in `text`. A record starts with its tags:
/// the first record at the start of the file, each later one at the first tag line (a line
/// starting with `[`) after the previous record's result, or after its moves if it has no
/// result token. So any tag may come before `[Game …]`, as PGN writes `[Event …]` first.
/// Reading stops at the first text that cannot start a record: text after a record's result
/// that is not a tag (a move, a comment) belongs to that record (an error of it) and ends the
/// file. Returns the records and the line (from 1) where reading stopped, if it stopped before
/// the end.
///
/// A byte-order mark at the start of the file is part of the first line's start, so a tag after
/// it is at the start of its line. One pass, linear in the text: whether a token is at the start
/// of its line is kept while scanning, never looked for backwards.
fn records_of(text: &str) -> (Vec<(usize, &str)>, Option<usize>) {
    #[derive(PartialEq)]
    enum Part {
        Tags,
        Moves,
        AfterResult,
    }
    let mut starts: Vec<usize> = vec![0];
    let mut part = Part::Tags;
    let mut stopped = None;
    let mut at = text
        .strip_prefix('\u{feff}')
        .map_or(0, |_| '\u{feff}'.len_utf8());
    // The byte offset where the current line starts, and whether only whitespace (or the
    // byte-order mark) came before `at` on it.
    let mut line_start = 0;
    let mut at_line_start = true;
    let mut line = 1;
    while let Some(first) = text[at..].chars().next() {
        if first.is_whitespace() {
            at += first.len_utf8();
            if first == '\n' {
                line += 1;
                line_start = at;
                at_line_start = true;
            }
            continue;
        }
        let end = if first == '[' && at_line_start {
            // A tag line: in the tags of this record, or the start of the next one.
            if part != Part::Tags {
                starts.push(line_start);
                part = Part::Tags;
            }
            text[at..].find('\n').map_or(text.len(), |e| at + e)
        } else if part == Part::AfterResult {
            stopped = Some(line);
            break;
        } else if first == '{' {
            text[at..].find('}').map_or(text.len(), |e| at + e + 1)
        } else {
            let end = text[at..]
                .find(|c: char| c.is_whitespace() || c == '{' || c == '}')
                .map_or(text.len(), |e| at + e)
                .max(at + first.len_utf8());
            part = if RecordResult::from_token(&text[at..end]).is_some() {
                Part::AfterResult
            } else {
                Part::Moves
            };
            end
        };
        // A comment may span lines: count them, and keep where the last one starts.
        let token = &text[at..end];
        if let Some(n) = token.rfind('\n') {
            line += token.matches('\n').count();
            line_start = at + n + 1;
        }
        at_line_start = false;
        at = end;
    }
    let records = starts
        .iter()
        .enumerate()
        .map(|(i, &s)| {
            (
                s,
                &text[s..starts.get(i + 1).copied().unwrap_or(text.len())],
            )
        })
        .collect();
    (records, stopped)
}

/// Game `n` of a file of records: the record tagged `[Number "n"]`, or else the `n`th record
/// (a record starts at its first tag), with its byte offset in `text`, among the records
/// before the first text that cannot start one.
///
/// # Errors
/// No such game: `no game number 9`, with the line where reading stopped if it stopped early.
fn nth_record(text: &str, n: u32) -> Result<(usize, &str), String> {
    let (records, stopped) = records_of(text);
    let tag = format!("[Number \"{n}\"]");
    records
        .iter()
        .find(|(_, r)| r.lines().any(|l| l.trim() == tag))
        .or_else(|| n.checked_sub(1).and_then(|i| records.get(i as usize)))
        .copied()
        .ok_or_else(|| match stopped {
            None => format!("no game number {n}"),
            Some(line) => format!(
                "no game number {n} before line {line}, where reading stops: the text there \
                 follows the result of record {} and cannot start a record",
                records.len()
            ),
        })
}

/// Runs `pussa replay`.
///
/// # Errors
/// A bad move list, position or record; an illegal or endless move (naming its number, the move
/// and the reason, after the states before it have been printed).
pub fn run(args: Args) -> anyhow::Result<()> {
    let mut header = Vec::new();
    let mut comments = Vec::new();
    let mut decided = None;
    let (start, given, moves) = if let Some(path) = &args.record {
        let mut text = read_record_file(path)?;
        // Lines before the chosen record, so that errors give the file's line numbers.
        let mut lines_before = 0;
        if let Some(n) = args.game_number {
            let (start, record) = nth_record(&text, n)
                .map_err(|e| anyhow::anyhow!("record {}: {e}", path.display()))?;
            lines_before = text[..start].matches('\n').count();
            text = record.to_string();
        }
        let rec = Record::parse(&text)
            .map_err(|e| e.with_line_offset(lines_before))
            .with_context(|| {
                let several = args.game_number.is_none() && records_of(&text).0.len() > 1;
                format!(
                    "record {}{}",
                    path.display(),
                    if several {
                        " (pick one game with --game-number N)"
                    } else {
                        ""
                    }
                )
            })?;
        if let Some(game) = args.game {
            if game != rec.game() {
                bail!(
                    "--game is {game}, but the record {} is {}",
                    path.display(),
                    rec.game()
                );
            }
        }
        let moves: Vec<MoveToken> = rec
            .moves()
            .iter()
            .map(|m| MoveToken::Move(m.hole))
            .collect();
        comments = rec.moves().iter().map(|m| m.comment.clone()).collect();
        header = rec
            .tags()
            .iter()
            .filter(|(name, _)| !["Game", "Mode", "First", "Position"].contains(&name.as_str()))
            .map(|(name, value)| format!("{name}: {value}"))
            .chain(rec.game_comment().map(|c| format!("{{{c}}}")))
            .collect();
        let token = rec.result().token();
        decided = match rec.result() {
            RecordResult::Unfinished => None,
            r => Some(Decided {
                winner: match r {
                    RecordResult::SouthWins => Some(Side::South),
                    RecordResult::NorthWins => Some(Side::North),
                    _ => None,
                },
                termination: rec.tag("Termination").map(str::to_string),
                token,
            }),
        };
        let given = rec.setup().and_then(|s| s.position().ok());
        (rec.start_state().clone(), given, moves)
    } else {
        if args.game_number.is_some() {
            // clap lets this through when --record conflicts with another option given.
            bail!("--game-number needs --record: it picks game N of a file of records");
        }
        let game = game_of(args.game, args.position.as_deref())?;
        let mode = if args.match_mode {
            Mode::Match
        } else {
            Mode::Single
        };
        let start = start_state(game, mode, args.first, args.position.as_deref())?;
        // The position as given, shown first when its round is already over.
        let given = args
            .position
            .as_deref()
            .and_then(|p| p.parse::<Setup>().ok())
            .and_then(|s| s.position().ok());
        (
            start,
            given,
            parse_moves(args.moves.as_deref().unwrap_or("")),
        )
    };
    let out = crate::stdout();
    if args.json {
        replay(
            start,
            given,
            &moves,
            decided.as_ref(),
            &mut Json { out, pending: None },
        )
    } else {
        replay(
            start,
            given,
            &moves,
            decided.as_ref(),
            &mut Text {
                out,
                header,
                comments,
            },
        )
    }
}
