//! A game held in memory: its row, the rules state rebuilt from its moves, and the JSON views.

use pussa_rules::{
    Event, Game, GameState, Hole, Mode, RoundResult, Setup, Side, Status, UnknownMode,
};
use serde_json::{json, Value};

use crate::error::ApiError;
use crate::store::{GameRow, MoveRow};
use crate::util;

/// Who sits opposite the creator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Opponent {
    /// The engine at a level.
    Computer {
        /// The level's name.
        level: String,
    },
    /// A second player on the same screen: one token moves for both seats.
    Hotseat,
    /// A second player elsewhere, who joins through the invite.
    Online,
}

impl Opponent {
    /// `computer`, `hotseat`, `online`.
    #[must_use]
    pub fn kind(&self) -> &'static str {
        match self {
            Opponent::Computer { .. } => "computer",
            Opponent::Hotseat => "hotseat",
            Opponent::Online => "online",
        }
    }

    /// The JSON form.
    #[must_use]
    pub fn to_json(&self) -> Value {
        match self {
            Opponent::Computer { level } => json!({"kind": "computer", "level": level}),
            other => json!({"kind": other.kind()}),
        }
    }
}

/// One move played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveRec {
    /// 1-based over the whole game.
    pub ply: usize,
    /// The round it was played in.
    pub round: u32,
    /// Who played it.
    pub side: Side,
    /// The hole.
    pub mv: Hole,
    /// The position after it (after the refill when it ended a round of a match), with what
    /// its position string needs beyond the board (who is to move, the round and its starter,
    /// what each took in the round, the repetition marker): [`Setup::from_state`].
    pub after: Setup,
}

/// A move just played, with its trace, for the answer and the broadcast.
#[derive(Clone, Debug)]
pub struct Played {
    /// The move.
    pub rec: MoveRec,
    /// `human` or `computer`.
    pub by: &'static str,
    /// Every event of the move, the round's end and the refill.
    pub trace: Vec<Event>,
}

impl Played {
    /// The JSON form (see docs/api.md).
    #[must_use]
    pub fn to_json(&self) -> Value {
        let trace = serde_json::to_value(&self.trace).unwrap_or(Value::Null);
        json!({
            "ply": self.rec.ply,
            "round": self.rec.round,
            "side": self.rec.side.letter().to_string(),
            "move": self.rec.mv.letter().to_string(),
            "by": self.by,
            "trace": trace,
            "board": self.rec.after.board,
            "closed": closed_letters(self.rec.after.closed),
            "stores": self.rec.after.stores,
            "taken": self.rec.after.taken,
            "position": self.rec.after.to_string(),
        })
    }
}

/// How the players ended a game the rules had not ended (see docs/api.md, `ended`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndKind {
    /// `by` resigned: the other side wins.
    Resign,
    /// `by` aborted the game: no result.
    Abort,
    /// Both players agreed to a draw.
    DrawAgreed,
    /// `by` claimed the win because the other player left.
    ClaimWin,
    /// `by` claimed a draw because the other player left.
    ClaimDraw,
    /// Drawn at a tournament's round limit: only an imported record ends so (`pussa tournament
    /// --max-rounds`, `[Termination "drawn at the round limit (N)"]`), its last move ending
    /// round N.
    RoundLimit,
    /// `by` forfeited a tournament game (an illegal move, an engine that failed): only an
    /// imported record ends so (`pussa tournament`'s `[Termination "forfeit: South …"]`, kept
    /// as [`Meta::termination`]). The other side wins.
    Forfeit,
    /// `by` lost a tournament game on time (`pussa tournament --tc`): only an imported record
    /// ends so (`[Termination "time forfeit: South …"]`, kept as [`Meta::termination`]). The
    /// other side wins.
    Time,
}

impl EndKind {
    /// Every kind: the values the state's `ended.kind`, the game list's `ended` and the
    /// `ended` column can hold (docs/api.md lists each).
    pub const ALL: [EndKind; 8] = [
        EndKind::Resign,
        EndKind::Abort,
        EndKind::DrawAgreed,
        EndKind::ClaimWin,
        EndKind::ClaimDraw,
        EndKind::RoundLimit,
        EndKind::Forfeit,
        EndKind::Time,
    ];

    /// The name in the state's `ended.kind` and in the `ended` column.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            EndKind::Resign => "resign",
            EndKind::Abort => "abort",
            EndKind::DrawAgreed => "draw_agreed",
            EndKind::ClaimWin => "claim_win",
            EndKind::ClaimDraw => "claim_draw",
            EndKind::RoundLimit => "round_limit",
            EndKind::Forfeit => "forfeit",
            EndKind::Time => "time",
        }
    }

    /// The kind named `name`.
    #[must_use]
    pub fn from_name(name: &str) -> Option<EndKind> {
        EndKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// A game ended by its players: how, and by whom (`by` is `None` only for an agreed draw).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ending {
    /// How.
    pub kind: EndKind,
    /// Who resigned, aborted or claimed.
    pub by: Option<Side>,
}

impl Ending {
    /// The result: `Some(Some(side))` a win, `Some(None)` a draw, `None` no result (aborted).
    #[must_use]
    pub fn winner(self) -> Option<Option<Side>> {
        match self.kind {
            EndKind::Resign | EndKind::Forfeit | EndKind::Time => Some(self.by.map(Side::other)),
            EndKind::ClaimWin => Some(self.by),
            EndKind::DrawAgreed | EndKind::ClaimDraw | EndKind::RoundLimit => Some(None),
            EndKind::Abort => None,
        }
    }

    /// `S`, `N`, `draw`, or `None` (aborted).
    #[must_use]
    pub fn winner_name(self) -> Option<&'static str> {
        self.winner().map(side_or_draw)
    }

    /// The JSON form: `{"kind": "resign", "by": "N"}` (`{"kind": "draw_agreed"}`).
    #[must_use]
    pub fn to_json(self) -> Value {
        match self.by {
            Some(by) => json!({"kind": self.kind.name(), "by": by.letter().to_string()}),
            None => json!({"kind": self.kind.name()}),
        }
    }

    /// What happened, in words (the record's `Termination` tag): `North resigned`, `aborted`,
    /// `draw agreed`, `South claimed the win: North left`, `South claimed a draw: North left`,
    /// `drawn at the round limit` (the game adds the limit: [`LiveGame::ending_text`]), `South
    /// forfeited`, `South lost on time` (the game says the record's own words:
    /// [`LiveGame::ending_text`]).
    #[must_use]
    pub fn text(self) -> String {
        let by = self.by.unwrap_or(Side::South);
        match self.kind {
            EndKind::Resign => format!("{by} resigned"),
            EndKind::Abort => "aborted".to_string(),
            EndKind::DrawAgreed => "draw agreed".to_string(),
            EndKind::ClaimWin => format!("{by} claimed the win: {} left", by.other()),
            EndKind::ClaimDraw => format!("{by} claimed a draw: {} left", by.other()),
            EndKind::RoundLimit => ROUND_LIMIT.to_string(),
            EndKind::Forfeit => format!("{by} forfeited"),
            EndKind::Time => format!("{by} lost on time"),
        }
    }

    /// The ending a record's `Termination` tag names (as [`Ending::text`] writes it), if any.
    /// For `drawn at the round limit (N)`, also the limit N (`None` when the text has none).
    #[must_use]
    pub fn from_text(text: &str) -> Option<(Ending, Option<u32>)> {
        let text = text.trim();
        if let Some(rest) = text.strip_prefix(ROUND_LIMIT) {
            let rest = rest.trim();
            let limit = match rest.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
                Some(n) => Some(n.trim().parse::<u32>().ok()?),
                None if rest.is_empty() => None,
                None => return None,
            };
            let e = Ending {
                kind: EndKind::RoundLimit,
                by: None,
            };
            return Some((e, limit));
        }
        Ending::from_plain_text(text).map(|e| (e, None))
    }

    fn from_plain_text(text: &str) -> Option<Ending> {
        let side = |name: &str| Side::BOTH.into_iter().find(|s| s.to_string() == name);
        if text.eq_ignore_ascii_case("aborted") {
            return Some(Ending {
                kind: EndKind::Abort,
                by: None,
            });
        }
        if text.eq_ignore_ascii_case("draw agreed") {
            return Some(Ending {
                kind: EndKind::DrawAgreed,
                by: None,
            });
        }
        // `pussa tournament`'s words, `time forfeit: South no move within …` and `forfeit:
        // South played an illegal move: …` (the loser first), and [`Ending::text`]'s.
        for (prefix, kind) in [
            ("time forfeit: ", EndKind::Time),
            ("forfeit: ", EndKind::Forfeit),
        ] {
            if let Some(rest) = text.strip_prefix(prefix) {
                let who = rest.split(' ').next().unwrap_or("");
                return side(who).map(|by| Ending { kind, by: Some(by) });
            }
        }
        for (suffix, kind) in [
            (" forfeited", EndKind::Forfeit),
            (" lost on time", EndKind::Time),
        ] {
            if let Some(who) = text.strip_suffix(suffix) {
                return side(who).map(|by| Ending { kind, by: Some(by) });
            }
        }
        if let Some(who) = text.strip_suffix(" resigned") {
            return side(who).map(|by| Ending {
                kind: EndKind::Resign,
                by: Some(by),
            });
        }
        for (phrase, kind) in [
            (" claimed the win", EndKind::ClaimWin),
            (" claimed a draw", EndKind::ClaimDraw),
        ] {
            if let Some((who, _)) = text.split_once(phrase) {
                return side(who).map(|by| Ending { kind, by: Some(by) });
            }
        }
        None
    }
}

/// The words of [`EndKind::RoundLimit`], as `pussa tournament` writes them before `(N)`.
const ROUND_LIMIT: &str = "drawn at the round limit";

/// `S`, `N` or `draw`.
fn side_or_draw(w: Option<Side>) -> &'static str {
    match w {
        Some(Side::South) => "S",
        Some(Side::North) => "N",
        None => "draw",
    }
}

/// The offers standing in an online game (kept in memory only): the side that made each.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Offers {
    /// A draw offer.
    pub draw: Option<Side>,
    /// A takeback proposal.
    pub takeback: Option<Side>,
}

impl Offers {
    /// `{"draw": null|"S"|"N", "takeback": null|"S"|"N"}`.
    #[must_use]
    pub fn to_json(self) -> Value {
        let l = |s: Option<Side>| s.map(|s| s.letter().to_string());
        json!({"draw": l(self.draw), "takeback": l(self.takeback)})
    }
}

/// The game's metadata (the database row minus volatile fields).
#[derive(Clone, Debug)]
pub struct Meta {
    /// Id.
    pub id: String,
    /// Rule set.
    pub game: Game,
    /// Single or match.
    pub mode: Mode,
    /// Who moves first: round 1's first mover, or, from a position, who plays the game's first
    /// move (its side to move, or the next round's starter when its round is over and the match
    /// goes on: [`GameState::next_mover`]; [`LiveGame::new`] sets it so).
    pub first: Side,
    /// The opponent.
    pub opponent: Opponent,
    /// The creator's seat.
    pub creator_seat: Side,
    /// Seat secrets, `[South, North]`.
    pub tokens: [Option<String>; 2],
    /// The unused invite (a join asked again with the spent one shortly after is answered
    /// from [`crate::app::Slot`]'s memory: see [`crate::app::App::join`]).
    pub invite: Option<String>,
    /// Unix seconds.
    pub created: i64,
    /// The position the game started from, when not the start of the game (imported records).
    pub setup: Option<Setup>,
    /// The id of this game's rematch, once a player asked for one.
    pub rematch: Option<String>,
    /// How the players ended the game, if they did.
    pub ended: Option<Ending>,
    /// The standing draw and takeback offers (memory only: a restart forgets them).
    pub offers: Offers,
    /// The state's `series` (a rematch: its place in the chain and the earlier games' points),
    /// worked out from the game before when the rematch is made, stored on its row.
    pub series: Option<Value>,
    /// An imported game that ended by forfeit or on time: its record's `Termination` text, as
    /// `pussa tournament` wrote it (the state's `ended.termination`, exported as it was).
    pub termination: Option<String>,
}

/// A game in memory.
#[derive(Clone, Debug)]
pub struct LiveGame {
    /// Metadata.
    pub meta: Meta,
    /// The rules state after the last move.
    pub state: GameState,
    /// Every move.
    pub moves: Vec<MoveRec>,
    /// Every finished round.
    pub rounds: Vec<RoundResult>,
    /// The position before the first move: the opening layout, or the imported `Position` as
    /// given (unswept, when its round is already over).
    pub start: Setup,
    /// Starting from a position whose round is already over (a match goes on): that round's
    /// `round_end` and the next round's `refill`, which begin the first move's trace (as
    /// `pussa explain --match` tells them). Empty otherwise.
    pub opening: Vec<Event>,
    /// When the last move ended a round of a match and the next round was laid out (`state`):
    /// the state that move left, the round's end, swept, with the holdings in the stores. A
    /// game the players end here (a resignation between rounds, an imported match drawn at its
    /// round limit) ends with that round: the state shows this, as `pussa replay` shows the
    /// game's record (docs/notation.md, "JSON states"). `None` otherwise.
    pub round_end: Option<GameState>,
}

/// `Side` from `S`/`N`.
///
/// # Errors
/// 400 naming the field.
pub fn parse_side(s: &str, field: &str) -> Result<Side, ApiError> {
    Side::parse(s).map_err(|e| ApiError::bad_request(format!("{field}: {e}")))
}

/// `Mode` from `single`/`match`.
///
/// # Errors
/// 400.
pub fn parse_mode(s: &str) -> Result<Mode, ApiError> {
    // Any case and surrounding blanks, as game names and levels are read ([`Mode`]'s
    // `FromStr`); the word is named as trimmed.
    s.parse()
        .map_err(|_| ApiError::bad_request(format!("mode: {}", UnknownMode(s.trim().into()))))
}

/// Letters of the holes in a bit mask.
#[must_use]
pub fn closed_letters(mask: u16) -> Vec<String> {
    Hole::ALL
        .iter()
        .filter(|h| mask >> h.index() & 1 == 1)
        .map(|h| h.letter().to_string())
        .collect()
}

/// After a move: records the round(s) that ended and lays out the next round of a match
/// (reporting the refill to `trace`), until a move is expected or the game is over.
pub fn advance<T: pussa_rules::Trace>(
    state: &mut GameState,
    rounds: &mut Vec<RoundResult>,
    trace: &mut T,
) {
    loop {
        match state.status() {
            Status::Playing => return,
            Status::RoundOver { result, .. } => {
                push_round(rounds, result);
                if !state.next_round_traced(trace) {
                    return;
                }
            }
            Status::Over { result, .. } => {
                push_round(rounds, result);
                return;
            }
        }
    }
}

fn push_round(rounds: &mut Vec<RoundResult>, r: RoundResult) {
    if rounds.last().map(|x| x.round) != Some(r.round) {
        rounds.push(r);
    }
}

/// A finished round's summary (`rounds[]`, `last_round`): the rules' [`RoundResult`] with
/// `winner` `S`, `N` or `draw`, as the state's own `winner` says it (the rules say `null` for
/// equal takings, which a client could not tell from a missing result).
#[must_use]
pub fn round_json(r: &RoundResult) -> Value {
    let mut v = serde_json::to_value(r).unwrap_or(Value::Null);
    if let Some(obj) = v.as_object_mut() {
        let winner = match r.winner {
            Some(side) => side.letter().to_string(),
            None => "draw".to_string(),
        };
        obj.insert("winner".into(), Value::String(winner));
    }
    v
}

/// `S`, `N` or `draw` once over.
#[must_use]
pub fn winner_name(state: &GameState) -> Option<&'static str> {
    state.winner().map(side_or_draw)
}

impl LiveGame {
    /// What a move or a hint after the end is told: `the match is over: South won`, `the game
    /// is over: a draw`.
    #[must_use]
    pub fn over_message(&self) -> String {
        let what = match self.meta.mode {
            Mode::Single => "game",
            Mode::Match => "match",
        };
        if let Some(e) = self.meta.ended {
            return match e.kind {
                EndKind::Resign => format!(
                    "the {what} is over: {} resigned",
                    e.by.unwrap_or(Side::South)
                ),
                EndKind::Abort => format!("the {what} is over: it was aborted"),
                EndKind::DrawAgreed => format!("the {what} is over: a draw was agreed"),
                EndKind::ClaimWin | EndKind::ClaimDraw | EndKind::RoundLimit => {
                    format!("the {what} is over: {}", self.ending_text(e))
                }
                EndKind::Forfeit | EndKind::Time => format!("the {what} is over: {}", e.text()),
            };
        }
        match self.state.winner() {
            Some(Some(side)) => format!("the {what} is over: {side} won"),
            Some(None) => format!("the {what} is over: a draw"),
            None => format!("the {what} is over"),
        }
    }

    /// What ending `e` of this game was, in words (the record's `Termination` tag):
    /// [`Ending::text`], with the round limit for [`EndKind::RoundLimit`]
    /// (`drawn at the round limit (100)`: the round the last move ended, which the match ends
    /// with), the record's own words for a forfeit or a loss on time ([`Meta::termination`]).
    #[must_use]
    pub fn ending_text(&self, e: Ending) -> String {
        match (e.kind, &self.meta.termination) {
            (EndKind::RoundLimit, _) => format!("{} ({})", e.text(), self.limit_round()),
            (EndKind::Forfeit | EndKind::Time, Some(text)) => text.clone(),
            _ => e.text(),
        }
    }

    /// The last round played to its end: the round limit of a game drawn at it.
    fn limit_round(&self) -> u32 {
        match &self.round_end {
            Some(end) => end.round(),
            None => self.state.round().saturating_sub(1).max(1),
        }
    }

    /// The state the game is shown at: [`LiveGame::state`], or for a game the players ended
    /// right after a move that ended a round of a match, that round's end
    /// ([`LiveGame::round_end`]): the match ends with that round, the next is not played.
    #[must_use]
    pub fn shown_state(&self) -> &GameState {
        match (&self.meta.ended, &self.round_end) {
            (Some(_), Some(end)) => end,
            _ => &self.state,
        }
    }

    /// The state's `ended`: [`Ending::to_json`], with `rounds` (the limit) for a game drawn at
    /// the round limit.
    fn ended_json(&self) -> Value {
        match self.meta.ended {
            Some(e) if e.kind == EndKind::RoundLimit => {
                json!({"kind": e.kind.name(), "rounds": self.limit_round()})
            }
            Some(e) if matches!(e.kind, EndKind::Forfeit | EndKind::Time) => {
                let mut v = e.to_json();
                v["termination"] = json!(self.ending_text(e));
                v
            }
            Some(e) => e.to_json(),
            None => Value::Null,
        }
    }

    /// Whether the game (or match) is over: by the rules, or ended by the players.
    #[must_use]
    pub fn over(&self) -> bool {
        self.meta.ended.is_some() || self.state.is_over()
    }

    /// The side to move, `None` once over.
    #[must_use]
    pub fn to_move(&self) -> Option<Side> {
        if self.meta.ended.is_some() {
            None
        } else {
            self.state.to_move()
        }
    }

    /// `S`, `N` or `draw` once over (`None` for an aborted game).
    #[must_use]
    pub fn winner_name(&self) -> Option<&'static str> {
        match self.meta.ended {
            Some(e) => e.winner_name(),
            None => winner_name(&self.state),
        }
    }

    /// Whether an online game's second seat is taken.
    #[must_use]
    pub fn joined(&self) -> bool {
        self.meta.tokens.iter().all(Option::is_some)
    }

    /// A new game from the start position (or from `meta.setup`).
    ///
    /// # Errors
    /// When `meta.setup` is not a valid position.
    pub fn new(mut meta: Meta) -> Result<LiveGame, pussa_rules::SetupError> {
        let mut state = match &meta.setup {
            Some(setup) => setup.game_state(meta.mode)?,
            None => GameState::new(meta.game, meta.mode, meta.first),
        };
        // From a position, who plays the first move (games stored before named the position's
        // side to move, also where its round was over).
        if meta.setup.is_some() {
            meta.first = state.next_mover();
        }
        let mut rounds = Vec::new();
        let mut opening = Vec::new();
        let start = match (&meta.setup, state.status()) {
            // The rules ended the given position's round at once (swept it); a match goes on
            // with the next round. The start is the position as given, and the first move's
            // trace tells the round's end and the refill, as `pussa explain --match` does.
            (Some(setup), Status::RoundOver { result, .. }) => {
                opening.push(Event::RoundEnd {
                    reason: result.reason,
                    swept: result.swept,
                });
                advance(&mut state, &mut rounds, &mut opening);
                *setup
            }
            _ => {
                advance(&mut state, &mut rounds, &mut pussa_rules::NoTrace);
                Setup::from_state(&state)
            }
        };
        Ok(LiveGame {
            meta,
            state,
            moves: Vec::new(),
            rounds,
            start,
            opening,
            round_end: None,
        })
    }

    /// Rebuilds a stored game by replaying its moves through the rules.
    ///
    /// # Errors
    /// A description of what is damaged: a field of the row that does not read (of the wrong
    /// type, or a value the rules do not know), a stored ply
    /// count that is not the number of moves, the first move that does not replay.
    pub fn from_rows(row: &GameRow, moves: &[MoveRow]) -> Result<LiveGame, String> {
        if let Some(why) = &row.unreadable {
            return Err(why.clone());
        }
        // Each reason names its column (`first: unknown side 'x' …`), not the game's id: the
        // caller's message (`game … cannot be continued: …`) names the game once.
        let game: Game = row.game.parse().map_err(|e| format!("game: {e}"))?;
        let mode = parse_mode(&row.mode).map_err(|e| e.message)?;
        let first = Side::parse(&row.first).map_err(|e| format!("first: {e}"))?;
        let creator_seat =
            Side::parse(&row.creator_seat).map_err(|e| format!("creator_seat: {e}"))?;
        let opponent = match row.opponent.as_str() {
            "computer" => Opponent::Computer {
                level: row.level.clone().unwrap_or_default(),
            },
            "hotseat" => Opponent::Hotseat,
            "online" => Opponent::Online,
            other => {
                return Err(format!(
                "opponent: unknown opponent kind '{other}': expected computer, hotseat or online"
            ))
            }
        };
        let setup = match &row.setup {
            Some(text) => Some(text.parse::<Setup>().map_err(|e| format!("setup: {e}"))?),
            None => None,
        };
        let meta = Meta {
            id: row.id.clone(),
            game,
            mode,
            first,
            opponent,
            creator_seat,
            tokens: [row.token_s.clone(), row.token_n.clone()],
            invite: row.invite.clone(),
            created: row.created,
            setup,
            rematch: row.rematch.clone(),
            ended: match &row.ended {
                Some(kind) => Some(Ending {
                    kind: EndKind::from_name(kind)
                        .ok_or_else(|| format!("ended: unknown ending '{kind}'"))?,
                    by: match &row.ended_by {
                        Some(by) => Some(Side::parse(by).map_err(|e| format!("ended_by: {e}"))?),
                        None => None,
                    },
                }),
                None => None,
            },
            offers: Offers::default(),
            series: None,
            termination: row.termination.clone(),
        };
        if row.ply != moves.len() as i64 {
            return Err(format!(
                "its row says {} moves were played but {} are stored",
                row.ply,
                moves.len()
            ));
        }
        let mut g = LiveGame::new(meta).map_err(|e| format!("setup: {e}"))?;
        for (i, m) in moves.iter().enumerate() {
            if m.ply != i as i64 + 1 {
                return Err(format!("move {} is missing", i + 1));
            }
            let hole: Hole =
                m.mv.parse()
                    .map_err(|e| format!("move {}: mv: {e}", m.ply))?;
            g.play(hole, &mut pussa_rules::NoTrace)
                .map_err(|e| format!("move {}: {e}", m.ply))?;
        }
        Ok(g)
    }

    /// Plays `mv` for the side to move (no seat check), records it, and lays out the next round
    /// when a round of a match ends.
    ///
    /// # Errors
    /// The rules' [`pussa_rules::IllegalMove`].
    pub fn play<T: pussa_rules::Trace>(
        &mut self,
        mv: Hole,
        trace: &mut T,
    ) -> Result<MoveRec, pussa_rules::IllegalMove> {
        let side = self.state.position().to_move();
        let round = self.state.round();
        if self.moves.is_empty() && !self.opening.is_empty() {
            // Checked first, so that a refused move traces nothing.
            self.state.clone().play(mv)?;
            for &e in &self.opening {
                trace.event(e);
            }
        }
        self.state.play_traced(mv, trace)?;
        let ended_round = self.state.is_round_over().then(|| self.state.clone());
        advance(&mut self.state, &mut self.rounds, trace);
        // Kept only when the next round was laid out (a match that goes on).
        self.round_end = ended_round.filter(|s| s.round() != self.state.round());
        let rec = MoveRec {
            ply: self.moves.len() + 1,
            round,
            side,
            mv,
            after: Setup::from_state(&self.state),
        };
        self.moves.push(rec.clone());
        Ok(rec)
    }

    /// Plays `mv` and returns everything the page needs to show it.
    ///
    /// # Errors
    /// The rules' [`pussa_rules::IllegalMove`].
    pub fn play_traced(
        &mut self,
        mv: Hole,
        by: &'static str,
    ) -> Result<Played, pussa_rules::IllegalMove> {
        let mut trace = Vec::new();
        let rec = self.play(mv, &mut trace)?;
        Ok(Played { rec, by, trace })
    }

    /// Whether `side` is played by the computer.
    #[must_use]
    pub fn is_computer(&self, side: Side) -> bool {
        matches!(self.meta.opponent, Opponent::Computer { .. }) && side != self.meta.creator_seat
    }

    /// The seats `token` may move for.
    #[must_use]
    pub fn seats_of(&self, token: &str) -> Vec<Side> {
        seats_holding(&self.meta.tokens, token)
    }

    /// The state JSON (see docs/api.md).
    #[must_use]
    pub fn to_json(&self) -> Value {
        let st = self.shown_state();
        let pos = st.position();
        let ended = self.meta.ended.is_some();
        let seat = |side: Side| -> Value {
            if self.is_computer(side) {
                json!({"kind": "computer", "level": match &self.meta.opponent { Opponent::Computer { level } => level.as_str(), _ => "" }, "taken": true})
            } else {
                json!({"kind": "human", "taken": self.meta.tokens[side.index()].is_some()})
            }
        };
        let rounds = Value::Array(self.rounds.iter().map(round_json).collect());
        let last_round = rounds
            .as_array()
            .and_then(|a| a.last().cloned())
            .unwrap_or(Value::Null);
        let moves: Vec<Value> = self
            .moves
            .iter()
            .map(|m| {
                let after = &m.after;
                json!({
                    "ply": m.ply,
                    "round": m.round,
                    "side": m.side.letter().to_string(),
                    "move": m.mv.letter().to_string(),
                    "board": after.board,
                    "closed": closed_letters(after.closed),
                    "stores": after.stores,
                    "taken": after.taken,
                    "position": after.to_string(),
                })
            })
            .collect();
        json!({
            "id": self.meta.id,
            "game": self.meta.game.name(),
            "title": self.meta.game.title(),
            "mode": self.meta.mode.name(),
            "first": self.meta.first.letter().to_string(),
            "opponent": self.meta.opponent.to_json(),
            "seats": {"S": seat(Side::South), "N": seat(Side::North)},
            "created": util::rfc3339(self.meta.created),
            "ply": self.moves.len(),
            "round": st.round(),
            "repeats_round": st.repeats_round(),
            "board": pos.board(),
            "closed": closed_letters(pos.closed_mask()),
            "stores": pos.stores(),
            "taken": st.taken_this_round(),
            "to_move": self.to_move().map(|s| s.letter().to_string()),
            "legal": if ended { Vec::new() } else { st.legal_moves().into_iter().map(|h| h.letter().to_string()).collect::<Vec<_>>() },
            "round_over": ended || st.is_round_over(),
            "match_over": self.over(),
            "winner": self.winner_name(),
            "position": Setup::from_state(st).to_string(),
            "start_position": self.meta.setup.map(|s| s.to_string()),
            "start": {
                "board": self.start.board,
                "closed": closed_letters(self.start.closed),
                "stores": self.start.stores,
                "taken": self.start.taken,
                "position": self.start.to_string(),
            },
            "moves": moves,
            "rounds": rounds,
            "last_round": last_round,
            "rematch": self.meta.rematch,
            "ended": self.ended_json(),
            "offers": self.meta.offers.to_json(),
            "series": self.meta.series,
        })
    }

    /// The database row for this game.
    #[must_use]
    pub fn to_row(&self) -> GameRow {
        let level = match &self.meta.opponent {
            Opponent::Computer { level } => Some(level.clone()),
            _ => None,
        };
        GameRow {
            id: self.meta.id.clone(),
            game: self.meta.game.name().to_string(),
            mode: self.meta.mode.to_string(),
            first: self.meta.first.letter().to_string(),
            opponent: self.meta.opponent.kind().to_string(),
            level,
            creator_seat: self.meta.creator_seat.letter().to_string(),
            token_s: self.meta.tokens[0].clone(),
            token_n: self.meta.tokens[1].clone(),
            invite: self.meta.invite.clone(),
            created: self.meta.created,
            finished: self.over().then(util::now_unix),
            winner: self.winner_name().map(str::to_string),
            ply: self.moves.len() as i64,
            setup: self.meta.setup.map(|s| s.to_string()),
            rematch: self.meta.rematch.clone(),
            ended: self.meta.ended.map(|e| e.kind.name().to_string()),
            ended_by: self
                .meta
                .ended
                .and_then(|e| e.by)
                .map(|s| s.letter().to_string()),
            series: self.meta.series.as_ref().map(Value::to_string),
            termination: self.meta.termination.clone(),
            unreadable: None,
        }
    }
}

/// The seats whose token (`tokens`, `[South, North]`) is `token`, compared in constant time:
/// none for a wrong token, both for a hot-seat one.
pub(crate) fn seats_holding(tokens: &[Option<String>; 2], token: &str) -> Vec<Side> {
    Side::BOTH
        .into_iter()
        .filter(|s| {
            tokens[s.index()]
                .as_deref()
                .is_some_and(|t| util::secret_eq(t, token))
        })
        .collect()
}
