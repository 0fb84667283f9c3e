//! Game records: a game or match written as text, in the spirit of chess's PGN.
//!
//! ```text
//! [Game "raja-pasu"]
//! [Mode "match"]
//! [Date "2026.11.29"]
//! [South "Asha"]
//! [North "pussa"]
//! [First "S"]
//! [Result "*"]
//!
//! 1. G e 2. D c 3. B {a comment} 3... g 4. E f 5. E g 6. C
//! R2 1. D f *
//! ```
//!
//! (A real match: round 1 ends after South's `C`, when North has no legal move.)
//!
//! - **Tags** come first, one a line: `[Name "value"]`, with `\"` and `\\` as the only escapes.
//!   `Game` is required. `Mode` is `single` (default) or `match`; `First` is `S` (default) or `N`
//!   (or `s`, `n`), who moves first; `Position` (optional) is a position string (see [`Setup`]) the record starts
//!   from, and then `First` must be who moves first from it: its side to move, or, when its
//!   round is over and a match goes on, the next round's starter (its side to move is read
//!   too); `Result` is the result token below. Any other tags (`Date` as `YYYY.MM.DD`, `South`, `North`, `Event`, `Termination`, …) are kept
//!   in their order.
//! - **Moves** are the letters `A`..`G` (South) and `a`..`g` (North). Move numbers (`3.` before
//!   South's move, `3...` before a North move that opens a round or follows a comment) count
//!   from 1 in each round, one number for a South move and the North move after it; readers
//!   ignore them.
//! - **Round markers**: `R2`, `R3`, … stand before the first move of every round after the one
//!   the record starts in (a marker for the starting round is accepted and dropped). A marker is
//!   required exactly where a new round begins: the moves decide where rounds end, and a marker
//!   anywhere else is an error.
//! - **Comments** `{…}` belong to the move before them (or to the game, before the first move).
//!   Their whitespace is folded to single spaces; they cannot contain `}`.
//! - **The result** ends the movetext: `1-0` South won, `0-1` North won, `1/2-1/2` a draw, `*`
//!   unfinished. When the moves finish the game or match, the result must be the one they give;
//!   an unfinished game may carry a decided result (a resignation or a forfeit, best said in a
//!   `Termination` tag).
//!
//! Reading a record replays every move through [`GameState`], so a record that reads is a legal
//! game. [`Record`]'s [`Display`](fmt::Display) writes the canonical form, and writing, reading
//! and writing again gives the same text.
//!
//! # Examples
//! ```
//! use pussa_rules::record::{Record, RecordResult};
//! use pussa_rules::{Game, Hole, Mode, Side};
//!
//! let mut rec = Record::new(Game::WalakPussa, Mode::Single, Side::South);
//! rec.set_tag("South", "Asha")?;
//! rec.push(Hole::from_letter('A')?)?;
//! rec.comment("six across the empty a");
//! let text = rec.to_string();
//! let back = Record::parse(&text)?;
//! assert_eq!(back, rec);
//! assert_eq!(back.to_string(), text);
//! assert_eq!(back.result(), RecordResult::Unfinished);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use core::fmt;
use core::str::FromStr;

use crate::position::{IllegalMove, IllegalReason};
use crate::setup::Setup;
use crate::state::{GameState, Mode, Status};
use crate::types::{Game, Hole, Side};

/// How a record says the game or match ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RecordResult {
    /// South won: `1-0`.
    SouthWins,
    /// North won: `0-1`.
    NorthWins,
    /// A draw: `1/2-1/2`.
    Draw,
    /// Not finished: `*`.
    Unfinished,
}

impl RecordResult {
    /// The token written in the `Result` tag and at the end of the moves.
    #[must_use]
    pub const fn token(self) -> &'static str {
        match self {
            RecordResult::SouthWins => "1-0",
            RecordResult::NorthWins => "0-1",
            RecordResult::Draw => "1/2-1/2",
            RecordResult::Unfinished => "*",
        }
    }

    /// The result of a token, if it is one.
    #[must_use]
    pub fn from_token(s: &str) -> Option<RecordResult> {
        match s {
            "1-0" => Some(RecordResult::SouthWins),
            "0-1" => Some(RecordResult::NorthWins),
            "1/2-1/2" => Some(RecordResult::Draw),
            "*" => Some(RecordResult::Unfinished),
            _ => None,
        }
    }

    /// The result of a finished game: the winner, or `None` for a draw.
    #[must_use]
    pub const fn from_winner(winner: Option<Side>) -> RecordResult {
        match winner {
            Some(Side::South) => RecordResult::SouthWins,
            Some(Side::North) => RecordResult::NorthWins,
            None => RecordResult::Draw,
        }
    }
}

impl fmt::Display for RecordResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.token())
    }
}

/// One move of a record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordMove {
    /// The hole lifted.
    pub hole: Hole,
    /// The round it was played in (from 1).
    pub round: u32,
    /// The comment after it, if any (whitespace folded, never empty).
    pub comment: Option<String>,
}

/// What is wrong with a record, or with a change to one.
///
/// It is `#[non_exhaustive]`: a later version may add variants, so a `match` outside this
/// crate needs a wildcard arm. Naming every variant is not enough:
/// ```compile_fail,E0004
/// use pussa_rules::record::RecordError;
/// fn kind(e: &RecordError) -> u8 {
///     match e {
///         RecordError::Syntax { .. } => 0,
///         RecordError::Move { .. } => 0,
///         RecordError::Tag { .. } => 0,
///         RecordError::Result { .. } => 0,
///     }
/// }
/// ```
/// With the wildcard it compiles:
/// ```
/// use pussa_rules::record::RecordError;
/// fn kind(e: &RecordError) -> u8 {
///     match e {
///         RecordError::Syntax { .. } => 0,
///         RecordError::Move { .. } => 0,
///         RecordError::Tag { .. } => 0,
///         RecordError::Result { .. } => 0,
///         _ => 1,
///     }
/// }
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RecordError {
    /// The text is malformed or inconsistent at a place.
    #[error("line {line}, column {column}: {message}")]
    Syntax {
        /// Line, from 1.
        line: usize,
        /// Column (in characters), from 1.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// A move that cannot be played. The message names it as the record writes it, with its
    /// move number in its round (`move 7. D`, `move 2... d`, `move R2 1. D`); `number` counts
    /// the record's moves from 1 across the whole record.
    #[error("{}move {label}: {reason}", at_prefix(*.at))]
    Move {
        /// Line and column of the move in the text, when it was read from text.
        at: Option<(usize, usize)>,
        /// Which move of the record, from 1 (plies, all rounds together).
        number: usize,
        /// The move as the record writes it: its round marker when it is not in the record's
        /// first round, its number in the round and the letter (`7. D`, `R2 2... d`).
        label: String,
        /// The move.
        mv: Hole,
        /// Why it cannot be played.
        reason: IllegalReason,
    },
    /// A tag that cannot be set this way or has a malformed name.
    #[error("tag '{name}': {message}")]
    Tag {
        /// The tag's name.
        name: String,
        /// What is wrong.
        message: String,
    },
    /// A result that contradicts the moves.
    #[error("result {given}: the moves end the game with {actual}")]
    Result {
        /// The result asked for.
        given: RecordResult,
        /// The result the moves give.
        actual: RecordResult,
    },
}

impl RecordError {
    /// The same error with its line moved down by `lines`: for a record read out of a larger
    /// file (one game of a tournament's records), so that the error gives the file's line.
    ///
    /// # Examples
    /// ```
    /// use pussa_rules::record::Record;
    /// let err = Record::parse("[Game \"raja-pasu\"]\n\n1. G A *\n").unwrap_err();
    /// assert!(err.with_line_offset(10).to_string().starts_with("line 13, column 6: move 1... A"));
    /// ```
    #[must_use]
    pub fn with_line_offset(self, lines: usize) -> RecordError {
        match self {
            RecordError::Syntax {
                line,
                column,
                message,
            } => RecordError::Syntax {
                line: line + lines,
                column,
                message,
            },
            RecordError::Move {
                at,
                number,
                label,
                mv,
                reason,
            } => RecordError::Move {
                at: at.map(|(line, column)| (line + lines, column)),
                number,
                label,
                mv,
                reason,
            },
            other => other,
        }
    }
}

fn at_prefix(at: Option<(usize, usize)>) -> String {
    match at {
        Some((line, column)) => format!("line {line}, column {column}: "),
        None => String::new(),
    }
}

/// Tags the record manages itself; [`Record::set_tag`] refuses them.
const RESERVED: [&str; 5] = ["Game", "Mode", "First", "Position", "Result"];
/// The order the common tags are written in; others follow in the order they were added.
const CANONICAL: [&str; 8] = [
    "Game", "Mode", "Date", "South", "North", "First", "Position", "Result",
];

fn rank(name: &str) -> usize {
    CANONICAL
        .iter()
        .position(|&c| c == name)
        .unwrap_or(CANONICAL.len())
}

fn valid_tag_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && name.as_bytes()[0].is_ascii_alphabetic()
}

fn fold_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A game or match as a record: its tags, its start, its moves with comments, its result.
///
/// A `Record` is always a legal game: [`Record::push`] and [`Record::parse`] replay every move.
///
/// # Examples
/// ```
/// use pussa_rules::record::Record;
/// use pussa_rules::{Game, Hole, Mode, Side};
/// let moves: Vec<Hole> = "A d".chars().filter(|c| !c.is_whitespace())
///     .map(Hole::from_letter).collect::<Result<_, _>>()?;
/// let rec = Record::from_moves(Game::WalakPussa, Mode::Single, Side::South, &moves)?;
/// assert!(rec.to_string().contains("1. A d *"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    tags: Vec<(String, String)>,
    game: Game,
    mode: Mode,
    setup: Option<Setup>,
    comment: Option<String>,
    moves: Vec<RecordMove>,
    result: RecordResult,
    start: GameState,
    state: GameState,
}

impl Record {
    /// A record of a new game or match from the start position with `first` to move.
    #[must_use]
    pub fn new(game: Game, mode: Mode, first: Side) -> Record {
        let start = GameState::new(game, mode, first);
        Record::with_start(game, mode, None, start)
    }

    /// A record starting from a position.
    ///
    /// # Errors
    /// [`RecordError::Tag`] naming the `Position` tag if the setup is not valid.
    pub fn from_setup(setup: Setup, mode: Mode) -> Result<Record, RecordError> {
        let start = setup.game_state(mode).map_err(|e| RecordError::Tag {
            name: "Position".into(),
            message: e.to_string(),
        })?;
        Ok(Record::with_start(setup.game, mode, Some(setup), start))
    }

    /// A record of the moves `moves` played from the start of a game or match.
    ///
    /// # Errors
    /// [`RecordError::Move`] for the first move that cannot be played.
    pub fn from_moves(
        game: Game,
        mode: Mode,
        first: Side,
        moves: &[Hole],
    ) -> Result<Record, RecordError> {
        let mut rec = Record::new(game, mode, first);
        for &mv in moves {
            rec.push(mv)?;
        }
        Ok(rec)
    }

    fn with_start(game: Game, mode: Mode, setup: Option<Setup>, start: GameState) -> Record {
        let first = start.next_mover();
        let mut tags = vec![
            ("Game".to_string(), game.name().to_string()),
            ("Mode".to_string(), mode.to_string()),
            ("First".to_string(), first.letter().to_string()),
        ];
        if let Some(s) = &setup {
            tags.push(("Position".to_string(), s.to_string()));
        }
        let mut rec = Record {
            tags,
            game,
            mode,
            setup,
            comment: None,
            moves: Vec::new(),
            result: RecordResult::Unfinished,
            state: start.clone(),
            start,
        };
        rec.sync_result();
        rec
    }

    /// Sets the result from the state when the game is over, and the `Result` tag.
    fn sync_result(&mut self) {
        if let Some(w) = self.state.winner() {
            self.result = RecordResult::from_winner(w);
        }
        self.put_tag("Result", self.result.token().to_string());
    }

    /// Sets a tag's value, adding it in its canonical place if it is new.
    fn put_tag(&mut self, name: &str, value: String) {
        if let Some(t) = self.tags.iter_mut().find(|(n, _)| n == name) {
            t.1 = value;
            return;
        }
        let r = rank(name);
        let at = if r == CANONICAL.len() {
            self.tags.len()
        } else {
            self.tags
                .iter()
                .position(|(n, _)| rank(n) > r)
                .unwrap_or(self.tags.len())
        };
        self.tags.insert(at, (name.to_string(), value));
    }

    /// Sets a free tag such as `Date` (`YYYY.MM.DD`), `South`, `North`, `Event`, `Termination`.
    /// Control characters in the value become spaces.
    ///
    /// # Errors
    /// [`RecordError::Tag`] for a malformed name (letters, digits, `_`, starting with a letter, at
    /// most 64) or one the record manages itself (`Game`, `Mode`, `First`, `Position`, `Result`).
    pub fn set_tag(&mut self, name: &str, value: &str) -> Result<(), RecordError> {
        if !valid_tag_name(name) {
            return Err(RecordError::Tag {
                name: name.to_string(),
                message: "a tag name is letters, digits and '_', starting with a letter".into(),
            });
        }
        if RESERVED.contains(&name) {
            return Err(RecordError::Tag {
                name: name.to_string(),
                message: "this tag is kept by the record itself".into(),
            });
        }
        let value: String = value
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        self.put_tag(name, value);
        Ok(())
    }

    /// Plays `mv` and appends it. When a round of a match is over, the next round is laid out
    /// first. When the move ends the game or match, the result is set from it.
    ///
    /// # Errors
    /// [`RecordError::Move`] naming the move and the reason; the record is then unchanged.
    pub fn push(&mut self, mv: Hole) -> Result<(), RecordError> {
        self.push_at(mv, None)
    }

    /// How the record writes `mv` as its next move: its move number in its round (one number
    /// for a South move and the North move after it, as [`Display`](fmt::Display) writes them),
    /// with the round's marker when the round is not the record's first; a move out of turn
    /// takes the number of the turn it stands in ([`Numbering::prefix`]).
    fn label_of_next(&self, mv: Hole) -> String {
        self.numbering().label(&self.state, mv)
    }

    /// The numbering after the record's moves.
    fn numbering(&self) -> Numbering {
        let mut n = Numbering::new(self.start.round());
        for m in &self.moves {
            n.played(m.hole, m.round);
        }
        n
    }

    fn push_at(&mut self, mv: Hole, at: Option<(usize, usize)>) -> Result<(), RecordError> {
        let number = self.moves.len() + 1;
        let label = self.label_of_next(mv);
        let err = |reason| RecordError::Move {
            at,
            number,
            label: label.clone(),
            mv,
            reason,
        };
        if let Some(winner) = self.state.winner() {
            return Err(err(self.state.over_reason(winner)));
        }
        let mut next = self.state.clone();
        if next.is_round_over() {
            next.next_round();
        }
        next.play(mv).map_err(|e: IllegalMove| err(e.reason))?;
        self.moves.push(RecordMove {
            hole: mv,
            round: next.round(),
            comment: None,
        });
        self.state = next;
        if self.state.is_over() {
            self.sync_result();
        }
        Ok(())
    }

    /// Adds a comment after the last move (or to the game, before any move). Whitespace is
    /// folded to single spaces and braces become parentheses; an empty comment is ignored.
    /// A second comment on the same move is appended to the first.
    pub fn comment(&mut self, text: &str) {
        let text = fold_whitespace(&text.replace('{', "(").replace('}', ")"));
        self.add_comment(text);
    }

    fn add_comment(&mut self, text: String) {
        if text.is_empty() {
            return;
        }
        let slot = match self.moves.last_mut() {
            Some(m) => &mut m.comment,
            None => &mut self.comment,
        };
        match slot {
            Some(c) => {
                c.push(' ');
                c.push_str(&text);
            }
            None => *slot = Some(text),
        }
    }

    /// Sets the result of a game that ended off the board (a resignation, a forfeit).
    ///
    /// # Errors
    /// [`RecordError::Result`] if the moves already finish the game with another result.
    pub fn set_result(&mut self, result: RecordResult) -> Result<(), RecordError> {
        if let Some(w) = self.state.winner() {
            let actual = RecordResult::from_winner(w);
            if actual != result {
                return Err(RecordError::Result {
                    given: result,
                    actual,
                });
            }
        }
        self.result = result;
        self.sync_result();
        Ok(())
    }

    /// The game.
    #[must_use]
    pub fn game(&self) -> Game {
        self.game
    }

    /// Single game or match.
    #[must_use]
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Who moves first in the record: who plays its first move, the start's side to move, or,
    /// from a `Position` whose round is over in a match, the next round's starter
    /// ([`GameState::next_mover`]).
    #[must_use]
    pub fn first(&self) -> Side {
        self.start.next_mover()
    }

    /// The position the record starts from, if not the start of the game.
    #[must_use]
    pub fn setup(&self) -> Option<&Setup> {
        self.setup.as_ref()
    }

    /// Every tag in the order written.
    #[must_use]
    pub fn tags(&self) -> &[(String, String)] {
        &self.tags
    }

    /// The value of a tag.
    #[must_use]
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The moves.
    #[must_use]
    pub fn moves(&self) -> &[RecordMove] {
        &self.moves
    }

    /// The comment before the first move.
    #[must_use]
    pub fn game_comment(&self) -> Option<&str> {
        self.comment.as_deref()
    }

    /// The result.
    #[must_use]
    pub fn result(&self) -> RecordResult {
        self.result
    }

    /// The state before the first move.
    #[must_use]
    pub fn start_state(&self) -> &GameState {
        &self.start
    }

    /// The state after the last move.
    #[must_use]
    pub fn state(&self) -> &GameState {
        &self.state
    }

    /// Reads a record, replaying every move.
    ///
    /// # Errors
    /// [`RecordError::Syntax`] with the line and column of the first problem in the text (a
    /// malformed tag, an unknown token, a missing or misplaced round marker, a result that
    /// contradicts the moves, checked before a `Result` tag that contradicts the result token),
    /// or [`RecordError::Move`] for a move that cannot be played.
    /// Never panics, whatever the input.
    ///
    /// # Examples
    /// ```
    /// use pussa_rules::record::{Record, RecordError};
    /// use pussa_rules::{Game, IllegalReason, Side};
    /// let rec = Record::parse("[Game \"raja-pasu\"]\n[South \"Asha\"]\n\n1. G e *\n")?;
    /// assert_eq!((rec.game(), rec.tag("South")), (Game::RajaPasu, Some("Asha")));
    /// assert_eq!(rec.moves().len(), 2);
    /// assert_eq!(rec.state().to_move(), Some(Side::South));
    ///
    /// // The second move is South's again: the error names it (by the turn it stands in),
    /// // where it is, and why.
    /// let err = Record::parse("[Game \"raja-pasu\"]\n\n1. G A *\n").unwrap_err();
    /// assert!(err.to_string().starts_with("line 3, column 6: move 1... A: not your hole"));
    /// let RecordError::Move { at, number, mv, reason, .. } = err else { panic!("{err}") };
    /// assert_eq!((at, number, mv.to_string()), (Some((3, 6)), 2, "A".to_string()));
    /// assert_eq!(reason, IllegalReason::NotYourHole { to_move: Side::North });
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn parse(text: &str) -> Result<Record, RecordError> {
        Parser::new(text).record()
    }
}

impl FromStr for Record {
    type Err = RecordError;
    fn from_str(s: &str) -> Result<Record, RecordError> {
        Record::parse(s)
    }
}

/// Writes words, wrapping lines at 79 characters.
struct Wrap {
    lines: Vec<String>,
    cur: String,
}

impl Wrap {
    fn word(&mut self, w: &str) {
        if !self.cur.is_empty() && self.cur.chars().count() + 1 + w.chars().count() > 79 {
            self.break_line();
        }
        if !self.cur.is_empty() {
            self.cur.push(' ');
        }
        self.cur.push_str(w);
    }

    fn text(&mut self, t: &str) {
        for w in t.split(' ') {
            self.word(w);
        }
    }

    fn break_line(&mut self) {
        if !self.cur.is_empty() {
            self.lines.push(core::mem::take(&mut self.cur));
        }
    }
}

impl fmt::Display for Record {
    /// The canonical text: tags, a blank line, the moves wrapped at 79 characters with each
    /// round after the first on a new line, the result.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (name, value) in &self.tags {
            let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
            writeln!(f, "[{name} \"{escaped}\"]")?;
        }
        writeln!(f)?;
        let mut w = Wrap {
            lines: Vec::new(),
            cur: String::new(),
        };
        if let Some(c) = &self.comment {
            w.text(&format!("{{{c}}}"));
        }
        let mut round = self.start.round();
        let mut number = 1;
        let mut after_comment = false;
        for (i, m) in self.moves.iter().enumerate() {
            let new_round = m.round != round;
            if new_round {
                w.break_line();
                w.word(&format!("R{}", m.round));
                round = m.round;
            }
            if new_round || i == 0 {
                number = 1;
            }
            match m.hole.owner() {
                Side::South => w.word(&format!("{number}.")),
                Side::North => {
                    if new_round || i == 0 || after_comment {
                        w.word(&format!("{number}..."));
                    }
                }
            }
            w.word(&m.hole.letter().to_string());
            if m.hole.owner() == Side::North {
                number += 1;
            }
            after_comment = false;
            if let Some(c) = &m.comment {
                w.text(&format!("{{{c}}}"));
                after_comment = true;
            }
        }
        w.word(self.result.token());
        w.break_line();
        for line in &w.lines {
            writeln!(f, "{line}")?;
        }
        Ok(())
    }
}

/// How records number moves, for telling a move as the record writes it: from 1 in each round,
/// one number for a South move and the North move after it (`3. B`, `3... g`), with the round's
/// marker when the round is not the one the moves start in (`R2 1. D`). Also checks a round
/// marker written before a move, as the record reader does.
///
/// # Examples
/// ```
/// use pussa_rules::record::Numbering;
/// use pussa_rules::{Game, GameState, Hole, Mode, Side};
/// let mut g = GameState::new(Game::RajaPasu, Mode::Match, Side::South);
/// let mut numbering = Numbering::new(g.round());
/// let mut labels = Vec::new();
/// for m in "G e D c B g E f E g C D f".split(' ') {
///     let mv: Hole = m.parse()?;
///     g.next_round(); // lays out the next round when one is over
///     labels.push(numbering.label(&g, mv));
///     numbering.played(mv, Numbering::round_of_next(&g));
///     g.play(mv)?;
/// }
/// assert_eq!(labels[5], "3... g");
/// assert_eq!(labels[11..], ["R2 1. D", "R2 1... f"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Numbering {
    start_round: u32,
    round: u32,
    number: u32,
    last: Option<Side>,
}

impl Numbering {
    /// Numbering for moves starting in round `start_round`.
    #[must_use]
    pub fn new(start_round: u32) -> Numbering {
        Numbering {
            start_round,
            round: start_round,
            number: 1,
            last: None,
        }
    }

    /// The round the next move from `state` is played in: the next one when a round of a match
    /// is over and the match goes on.
    #[must_use]
    pub fn round_of_next(state: &GameState) -> u32 {
        if state.is_round_over() && !state.is_over() {
            state.round() + 1
        } else {
            state.round()
        }
    }

    /// The number before the move played next from `state`, in the turn it is played in: `3.`
    /// when South is to move, `3...` when North is, with the round marker in a later round
    /// (`R2 1.`). A move played out of turn is numbered by the turn it was written in: in
    /// `4. A A` the second `A` is `4... A`.
    #[must_use]
    pub fn prefix(&self, state: &GameState) -> String {
        let side = match state.status() {
            Status::RoundOver { next_starter, .. } => next_starter,
            _ => state.position().to_move(),
        };
        self.prefix_for(state, side)
    }

    fn prefix_for(&self, state: &GameState, side: Side) -> String {
        let mut number = self.number;
        let next_round = Numbering::round_of_next(state);
        if next_round != self.round {
            number = 1;
        } else if side == Side::South && self.last == Some(Side::South) {
            // Two South moves in a row (refused, since North moves between): the next number.
            number += 1;
        }
        let marker = if next_round == self.start_round {
            String::new()
        } else {
            format!("R{next_round} ")
        };
        match side {
            Side::South => format!("{marker}{number}."),
            Side::North => format!("{marker}{number}..."),
        }
    }

    /// `mv` as a record writes it, played next from `state`: `3. B`, `3... g`, `R2 1. D`,
    /// numbered as [`Numbering::prefix`] does; once the game is over, by the player who owns it.
    #[must_use]
    pub fn label(&self, state: &GameState, mv: Hole) -> String {
        let prefix = if state.is_over() {
            self.prefix_for(state, mv.owner())
        } else {
            self.prefix(state)
        };
        format!("{prefix} {mv}")
    }

    /// Counts `mv`, played in round `round`.
    pub fn played(&mut self, mv: Hole, round: u32) {
        if round != self.round {
            self.round = round;
            self.number = 1;
        }
        if mv.owner() == Side::North {
            self.number += 1;
        }
        self.last = Some(mv.owner());
    }

    /// Checks a round marker `R{n}` written before the next move from `state`: it must name the
    /// round that move is played in, and stand where that round starts (a marker for the round
    /// the moves start in may stand before the first move).
    ///
    /// # Errors
    /// What is wrong, e.g. `round marker R3, but this move is in round 2`.
    pub fn check_marker(&self, state: &GameState, n: u32) -> Result<(), String> {
        if state.is_over() {
            let what = match state.mode() {
                Mode::Single => "the game is over (a single game has one round)",
                Mode::Match => "the match is over",
            };
            return Err(format!("round marker R{n}, but {what}"));
        }
        let round = Numbering::round_of_next(state);
        if n != round {
            return Err(format!(
                "round marker R{n}, but this move is in round {round}"
            ));
        }
        if round == self.round && self.last.is_some() {
            return Err(format!(
                "round marker R{round}, but round {round} is already being played"
            ));
        }
        Ok(())
    }
}

/// The record reader: a character cursor with line and column.
struct Parser {
    chars: Vec<char>,
    i: usize,
    line: usize,
    column: usize,
}

type Located<T> = (T, usize, usize);

impl Parser {
    fn new(text: &str) -> Parser {
        // A byte-order mark (some editors write one) is not part of the record.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        Parser {
            chars: text.chars().collect(),
            i: 0,
            line: 1,
            column: 1,
        }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.i).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.i += 1;
        if c == '\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        Some(c)
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.bump();
        }
    }

    fn skip_blanks(&mut self) {
        while self.peek().is_some_and(|c| c == ' ' || c == '\t') {
            self.bump();
        }
    }

    fn err_at<T>(line: usize, column: usize, message: impl Into<String>) -> Result<T, RecordError> {
        Err(RecordError::Syntax {
            line,
            column,
            message: message.into(),
        })
    }

    fn err<T>(&self, message: impl Into<String>) -> Result<T, RecordError> {
        Parser::err_at(self.line, self.column, message)
    }

    /// `[Name "value"]`, the cursor on `[`.
    fn tag(&mut self) -> Result<(String, String), RecordError> {
        self.bump();
        self.skip_blanks();
        let mut name = String::new();
        while let Some(c) = self
            .peek()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        {
            name.push(c);
            self.bump();
        }
        if name.len() > 64 && valid_tag_name(&name[..64]) {
            return self.err(format!(
                "tag name '{}…' is longer than 64 characters",
                &name[..20]
            ));
        }
        if !valid_tag_name(&name) {
            return self.err("expected a tag name (letters, digits, '_', at most 64) after '['");
        }
        self.skip_blanks();
        if self.peek() != Some('"') {
            return self.err(format!("tag {name}: expected '\"' before the value"));
        }
        let (ql, qc) = (self.line, self.column);
        self.bump();
        let mut value = String::new();
        loop {
            match self.peek() {
                None | Some('\n') | Some('\r') => {
                    return Parser::err_at(
                        ql,
                        qc,
                        format!("tag {name}: the value is not closed with '\"' on its line"),
                    )
                }
                Some('"') => {
                    self.bump();
                    break;
                }
                Some('\\') => {
                    self.bump();
                    match self.peek() {
                        Some(c @ ('"' | '\\')) => {
                            value.push(c);
                            self.bump();
                        }
                        _ => {
                            return self.err(format!(
                                "tag {name}: only \\\" and \\\\ may follow a backslash"
                            ))
                        }
                    }
                }
                Some(c) => {
                    value.push(c);
                    self.bump();
                }
            }
        }
        self.skip_blanks();
        if self.peek() != Some(']') {
            return self.err(format!("tag {name}: expected ']' after the value"));
        }
        self.bump();
        Ok((name, value))
    }

    /// A run of characters up to whitespace or a brace.
    fn word(&mut self) -> String {
        let mut w = String::new();
        while let Some(c) = self
            .peek()
            .filter(|c| !c.is_whitespace() && *c != '{' && *c != '}')
        {
            w.push(c);
            self.bump();
        }
        w
    }

    fn record(&mut self) -> Result<Record, RecordError> {
        // Tags.
        let mut tags: Vec<Located<(String, String)>> = Vec::new();
        let mut names = std::collections::HashSet::new();
        loop {
            self.skip_ws();
            if self.peek() != Some('[') {
                break;
            }
            let (l, c) = (self.line, self.column);
            let t = self.tag()?;
            if !names.insert(t.0.clone()) {
                return Parser::err_at(l, c, format!("tag {} appears twice", t.0));
            }
            tags.push((t, l, c));
        }
        let find = |name: &str| tags.iter().find(|((n, _), _, _)| n == name);
        let Some(((_, game_text), gl, gc)) = find("Game") else {
            return Parser::err_at(
                1,
                1,
                "missing [Game \"...\"] tag (walak-pussa, raja-pasu, pasu-pondi or pasu-pondi-6)",
            );
        };
        let game: Game = match game_text.parse() {
            Ok(g) => g,
            Err(e) => return Parser::err_at(*gl, *gc, format!("tag Game: {e}")),
        };
        let mode = match find("Mode") {
            None => Mode::Single,
            Some(((_, v), l, c)) => match v.parse::<Mode>() {
                Ok(m) => m,
                Err(_) => {
                    return Parser::err_at(
                        *l,
                        *c,
                        format!("tag Mode: '{v}' must be single or match"),
                    )
                }
            },
        };
        let first = match find("First") {
            None => None,
            // Side letters in either case, as in position strings and `--first`.
            Some(((_, v), l, c)) => match v.as_str() {
                "S" | "s" => Some(Side::South),
                "N" | "n" => Some(Side::North),
                _ => return Parser::err_at(*l, *c, format!("tag First: '{v}' must be S or N")),
            },
        };
        let tag_result = match find("Result") {
            None => None,
            Some(((_, v), l, c)) => match RecordResult::from_token(v) {
                Some(r) => Some((r, *l, *c)),
                None => {
                    return Parser::err_at(
                        *l,
                        *c,
                        format!("tag Result: '{v}' must be 1-0, 0-1, 1/2-1/2 or *"),
                    )
                }
            },
        };
        let mut rec = match find("Position") {
            None => Record::new(game, mode, first.unwrap_or(Side::South)),
            Some(((_, v), l, c)) => {
                let setup: Setup = match v.parse() {
                    Ok(s) => s,
                    Err(e) => return Parser::err_at(*l, *c, format!("tag Position: {e}")),
                };
                if let Err(e) = setup.expect_game(game) {
                    return Parser::err_at(*l, *c, format!("tag Position: {e}"));
                }
                let rec = match Record::from_setup(setup, mode) {
                    Ok(r) => r,
                    Err(e) => return Parser::err_at(*l, *c, e.to_string()),
                };
                // `First` is who moves first: the position's side to move, or, when its round
                // is over and the match goes on, the next round's starter (records written
                // before named the position's side to move there, which is still read).
                if first.is_some_and(|f| f != rec.first() && f != setup.to_move) {
                    return Parser::err_at(
                        *l,
                        *c,
                        format!(
                            "tag Position: {} is to move, but tag First says {}",
                            setup.to_move.letter(),
                            first.map_or('?', Side::letter)
                        ),
                    );
                }
                rec
            }
        };
        // Keep the tags as written; add the managed ones that were left out.
        let managed: Vec<(String, String)> = rec.tags.clone();
        rec.tags = tags.iter().map(|(t, _, _)| t.clone()).collect();
        for (n, v) in managed {
            if n != "Result" && rec.tag(&n).is_none() {
                rec.put_tag(&n, v);
            }
        }
        // `First` as writers write it, in capitals: who moves first.
        if first.is_some() {
            rec.put_tag("First", rec.first().letter().to_string());
        }

        // Moves.
        let mut last_round = rec.start.round();
        let mut marker: Option<Located<u32>> = None;
        let mut result_token: Option<Located<RecordResult>> = None;
        loop {
            self.skip_ws();
            let (l, c) = (self.line, self.column);
            let Some(ch) = self.peek() else { break };
            if result_token.is_some() {
                if ch == '[' {
                    return self.err(
                        "a second game starts here: a record holds one game (to read one game of \
                         a file of several, split the file before the tags that follow each \
                         result)",
                    );
                }
                return self.err("nothing may follow the result");
            }
            if ch == '{' {
                let mut text = String::new();
                self.bump();
                loop {
                    match self.bump() {
                        None => return Parser::err_at(l, c, "comment not closed with '}'"),
                        Some('}') => break,
                        Some(x) => text.push(x),
                    }
                }
                if marker.is_some() {
                    return Parser::err_at(
                        l,
                        c,
                        "a comment cannot stand between a round marker and its move",
                    );
                }
                rec.add_comment(fold_whitespace(&text));
                continue;
            }
            if ch == '}' {
                return self.err("'}' without a '{' before it");
            }
            if ch == '[' {
                return self.err("tags belong before the moves");
            }
            let word = self.word();
            if let Some(r) = RecordResult::from_token(&word) {
                result_token = Some((r, l, c));
                continue;
            }
            let bytes = word.as_bytes();
            // Digits, '/' and a '-': written as a result, but not one of the four.
            if word.contains('-')
                && bytes
                    .iter()
                    .all(|&b| b.is_ascii_digit() || b == b'-' || b == b'/')
            {
                return Parser::err_at(
                    l,
                    c,
                    format!(
                        "'{}': a result is 1-0, 0-1, 1/2-1/2 or *",
                        word.escape_debug()
                    ),
                );
            }
            let (letter, lc) = if bytes[0].is_ascii_digit() {
                let digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
                let dots = bytes[digits..].iter().take_while(|&&b| b == b'.').count();
                if dots != 1 && dots != 3 {
                    return Parser::err_at(
                        l,
                        c,
                        format!(
                            "'{}': a move number is written '3.' or '3...'",
                            word.escape_debug()
                        ),
                    );
                }
                let rest = &word[digits + dots..];
                if rest.is_empty() {
                    continue;
                }
                (rest, c + digits + dots)
            } else if bytes[0] == b'R' && word.len() > 1 {
                let digits = &word[1..];
                let n = if digits.bytes().all(|b| b.is_ascii_digit()) {
                    digits.parse::<u32>().ok()
                } else {
                    None
                };
                let Some(n) = n.filter(|&n| n >= 1) else {
                    return Parser::err_at(
                        l,
                        c,
                        format!(
                            "'{}': a round marker is R and the round's number, like R2",
                            word.escape_debug()
                        ),
                    );
                };
                if marker.is_some() {
                    return Parser::err_at(l, c, "two round markers in a row");
                }
                marker = Some((n, l, c));
                continue;
            } else {
                (word.as_str(), c)
            };
            let mut it = letter.chars();
            let mv = match (it.next().map(Hole::from_letter), it.next()) {
                (Some(Ok(h)), None) => h,
                _ => {
                    return Parser::err_at(l, lc, format!(
                        "'{}' is not a move: moves are A-G (South) and a-g (North), round markers R2, R3, …, results 1-0, 0-1, 1/2-1/2, *",
                        letter.escape_debug()
                    ))
                }
            };
            // The round this move is played in, and the marker it needs.
            let round = Numbering::round_of_next(&rec.state);
            match marker.take() {
                Some((n, ml, mc)) => {
                    if let Err(message) = rec.numbering().check_marker(&rec.state, n) {
                        return Parser::err_at(ml, mc, message);
                    }
                }
                None if round != last_round => {
                    return Parser::err_at(
                        l,
                        c,
                        format!("round {round} starts with this move: write R{round} before it"),
                    )
                }
                None => {}
            }
            rec.push_at(mv, Some((l, lc)))?;
            last_round = round;
        }
        if let Some((n, l, c)) = marker {
            return Parser::err_at(l, c, format!("round marker R{n} is not followed by a move"));
        }
        // The result is checked against the moves first: a token that contradicts them is
        // named as such, whatever the tag says; only then is the tag checked against the token.
        // With no moves, a game that is over was over in the Position tag itself: say so.
        let ender = if rec.moves.is_empty() {
            "the Position tag is a game that is already over"
        } else {
            "the moves end the game"
        };
        let contradicts_moves = |(r, l, c): (RecordResult, usize, usize)| match rec.state.winner() {
            Some(w) if RecordResult::from_winner(w) != r => Parser::err_at(
                l,
                c,
                format!(
                    "result {r}, but {ender} with {}",
                    RecordResult::from_winner(w)
                ),
            ),
            _ => Ok(()),
        };
        let result = match (tag_result, result_token) {
            (tag, Some(token)) => {
                contradicts_moves(token)?;
                let (r, l, c) = token;
                if let Some((t, ..)) = tag.filter(|&(t, ..)| t != r) {
                    return Parser::err_at(
                        l,
                        c,
                        format!("the result token is {r}, but tag Result says {t}"),
                    );
                }
                Some(r)
            }
            (Some(t), None) => {
                contradicts_moves(t)?;
                Some(t.0)
            }
            (None, None) => None,
        };
        if let Some(r) = result {
            rec.result = r;
        }
        rec.sync_result();
        Ok(rec)
    }
}
