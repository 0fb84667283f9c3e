//! The terminal UI of `pussa play`, as pure parts: the [`App`] state, keys → [`Action`]s,
//! the sowing animation as [`Frame`]s built from a move's trace, and [`render`] (state →
//! widgets). `cmd_play` only adds the terminal, the clock and the computer's thread.

use std::collections::VecDeque;

use pussa_engine::Level;
use pussa_rules::narrate;
use pussa_rules::{Direction, EndReason, Event, GameState, Hole, Mode, Side, Status};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::layout::{Alignment, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

/// Who plays against the human at `seat`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opponent {
    /// The computer at this level.
    Computer(Level),
    /// Two people at one keyboard.
    Hotseat,
}

/// What a key asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Play this hole.
    Move(Hole),
    /// Take back the last move (with the computer: back to your last turn).
    Undo,
    /// Ask the engine for the best move.
    Hint,
    /// Lay out the next round of a match.
    NextRound,
    /// Show the rest of the sowing at once.
    Skip,
    /// Leave.
    Quit,
    /// `q` while the game goes on: ask to press it again.
    AskQuit,
    /// Any other key after [`Action::AskQuit`]: play on.
    PlayOn,
    /// Open the help panel.
    Help,
    /// Close the help panel.
    CloseHelp,
    /// Scroll the help panel by this many lines (up if negative).
    ScrollHelp(i32),
    /// A faster sowing animation (a shorter time per lap).
    Faster,
    /// A slower sowing animation.
    Slower,
    /// Ctrl-Z: give the terminal back and stop until `fg` (`cmd_play` does it).
    Suspend,
    /// A new game after the end (`cmd_play` lays it out).
    NewGame,
    /// A key that means nothing now; the text says why.
    Invalid(String),
    /// Nothing to do.
    None,
}

/// One picture of the sowing animation: the board after a lap (or a capture, or the round's end).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Seeds per hole, index order.
    pub board: [u8; 14],
    /// Closed holes.
    pub closed: u16,
    /// Seeds held by South and North.
    pub stores: [u8; 2],
    /// What happened.
    pub caption: String,
    /// Holes to highlight (the one lifted next, the one captured…).
    pub focus: Vec<Hole>,
}

/// Builds the animation of one move, lap by lap, from the board before it and its events:
/// first the hole lifted (`who` lifts it), then each lap. The last frame always shows `after`.
#[must_use]
pub fn sowing_frames(
    before: &GameState,
    mv: Hole,
    events: &[Event],
    after: &GameState,
    who: &str,
) -> Vec<Frame> {
    let pos = before.position();
    let mut board = pos.board();
    let closed = pos.closed_mask();
    let mut stores = pos.stores();
    let mover = mv.owner();
    let mut frames = vec![Frame {
        board,
        closed,
        stores,
        caption: format!("{who} lifts {mv} ({})", board[mv.index()]),
        focus: vec![mv],
    }];
    let mut lap = 0;
    // The stores before the round's end sweeps the board: what the move itself took.
    let mut took: Option<[u8; 2]> = None;
    let mut lap_notes: Vec<String> = Vec::new();
    let push = |frames: &mut Vec<Frame>,
                board: &[u8; 14],
                stores: &[u8; 2],
                caption: String,
                focus: Vec<Hole>| {
        frames.push(Frame {
            board: *board,
            closed,
            stores: *stores,
            caption,
            focus,
        });
    };
    for ev in events {
        match *ev {
            Event::Lift { hole, seeds, relay } => {
                if relay {
                    let notes = if lap_notes.is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", lap_notes.join(", "))
                    };
                    push(
                        &mut frames,
                        &board,
                        &stores,
                        format!("lap {lap} sown{notes}; relay: lift {hole} ({seeds})"),
                        vec![hole],
                    );
                    lap_notes.clear();
                }
                lap += 1;
                board[hole.index()] = 0;
            }
            Event::Drop { hole, now } => board[hole.index()] = now,
            Event::Four { hole, owner } => {
                board[hole.index()] = 0;
                stores[owner.index()] = stores[owner.index()].saturating_add(4);
                lap_notes.push(format!("four at {hole} for {owner}"));
            }
            Event::Stop { last, empty } => {
                let notes = if lap_notes.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", lap_notes.join(", "))
                };
                push(
                    &mut frames,
                    &board,
                    &stores,
                    format!(
                        "lap {lap} sown{notes}; last seed in {last}, {empty} is empty: sowing ends"
                    ),
                    vec![last, empty],
                );
                lap_notes.clear();
            }
            Event::Capture {
                hole,
                seeds,
                by,
                chained,
            } => {
                board[hole.index()] = 0;
                stores[by.index()] = stores[by.index()].saturating_add(seeds);
                push(
                    &mut frames,
                    &board,
                    &stores,
                    format!(
                        "{by} {}captures {seeds} from {hole}",
                        if chained { "chain-" } else { "" }
                    ),
                    vec![hole],
                );
            }
            Event::RoundEnd { reason, swept } => {
                took.get_or_insert(stores);
                for (i, s) in board.iter_mut().enumerate() {
                    if closed & (1 << i) == 0 {
                        *s = 0;
                    }
                }
                stores[0] = stores[0].saturating_add(swept[0]);
                stores[1] = stores[1].saturating_add(swept[1]);
                push(
                    &mut frames,
                    &board,
                    &stores,
                    format!(
                        "round ends: {}; South sweeps {}, North {}",
                        reason_text(reason),
                        swept[0],
                        swept[1]
                    ),
                    Vec::new(),
                );
            }
            Event::Refill { .. } | Event::MatchEnd { .. } => {}
        }
    }
    let p = after.position();
    // The move's own takings, as the move list and `pussa replay` give them; a sweep at the
    // round's end is told by its own frame and the round's end.
    let taken = stores_gain(pos.stores(), took.unwrap_or_else(|| p.stores()));
    frames.push(Frame {
        board: p.board(),
        closed: p.closed_mask(),
        stores: p.stores(),
        caption: format!(
            "{mover} played {mv}: South +{}, North +{} ({} lap{})",
            taken[0],
            taken[1],
            lap,
            if lap == 1 { "" } else { "s" }
        ),
        focus: vec![mv],
    });
    frames
}

fn stores_gain(a: [u8; 2], b: [u8; 2]) -> [u8; 2] {
    [b[0].saturating_sub(a[0]), b[1].saturating_sub(a[1])]
}

/// Why a round ended, in words.
#[must_use]
pub fn reason_text(reason: EndReason) -> String {
    match reason {
        EndReason::OneRow => "every seed is in one row".into(),
        EndReason::Repetition => "the position repeated".into(),
        EndReason::NoLegalMove { stuck, endless } => narrate::no_legal_move(stuck, endless),
    }
}

/// The hint in words: the best move and what the engine's value means (docs/engine.md,
/// "Scores"). In a single game the value is the round's final margin with best play, for the
/// side to move; in a match it is the margin of the holdings expected after the next round
/// (a round that ends the match counts the final holdings margin ±200, so a value that large
/// wins or loses the match).
/// A value is called the outcome of best play only when it is proven (`exact`); otherwise the
/// text says it is an estimate at `depth`, not proven, as `pussa analyze` does. In a match
/// the engine's `exact` already leaves out every value that counts on its estimate of the next
/// round (docs/engine.md, "Matches"), so only a match won or lost is called proven.
#[must_use]
pub fn hint_text(
    state: &GameState,
    mv: Hole,
    score: i32,
    exact: bool,
    depth: u32,
    pv: &[Hole],
) -> String {
    let side = state.position().to_move();
    let other = side.other();
    let n = score.unsigned_abs();
    let seeds = |n: u32| format!("{n} seed{}", if n == 1 { "" } else { "s" });
    let line: Vec<String> = pv.iter().map(|h| h.letter().to_string()).collect();
    // Only a proven value (endgame tables, or a search that saw every line to its end) is
    // the outcome of best play; a depth-limited value is an estimate, and says so.
    let (lead, tail) = if exact {
        (
            "proven: with best play from both,".to_string(),
            format!("depth {depth}; line {}", line.join(" ")),
        )
    } else {
        (
            format!("estimate at depth {depth} (not proven):"),
            format!("line {}", line.join(" ")),
        )
    };
    match state.mode() {
        Mode::Single => {
            let what = match score.cmp(&0) {
                std::cmp::Ordering::Greater => format!("{} ahead of {other}", seeds(n)),
                std::cmp::Ordering::Less => format!("{} behind {other}", seeds(n)),
                std::cmp::Ordering::Equal => format!("level with {other}"),
            };
            format!("{mv}: {lead} {side} ends the round {what} (final margin {score:+}; {tail})")
        }
        Mode::Match => {
            let what = if score >= 100 {
                format!("{side} wins the match")
            } else if score <= -100 {
                format!("{side} loses the match")
            } else {
                format!(
                    "{side} is expected to hold {} {} {other} after the next round",
                    seeds(n),
                    if score < 0 { "fewer than" } else { "more than" }
                )
            };
            let what = if score == 0 {
                format!("{side} and {other} are expected to hold even after the next round")
            } else {
                what
            };
            format!(
                "{mv}: {lead} {what} (match value {score:+}: the holdings margin after the next \
                 round, or the final holdings margin ±200 for a match won or lost; {tail})"
            )
        }
    }
}

/// What a move waits to add to the screen until its animation has shown it.
#[derive(Clone, Debug)]
struct Pending {
    /// The move list's entry.
    entry: String,
    /// The computer's move: its summary for the news line, and the hole it lifted.
    news: Option<(String, Hole)>,
}

/// The whole state of the terminal UI.
#[derive(Clone, Debug)]
pub struct App {
    /// The game.
    pub state: GameState,
    /// Where the game started.
    pub start: GameState,
    /// The seat the board is drawn from (the human's, with a computer opponent).
    pub seat: Side,
    /// Who the human plays against.
    pub opponent: Opponent,
    /// States before each move, for undo.
    pub undo: Vec<(GameState, usize)>,
    /// The moves played (one per entry of `undo`).
    pub moves: Vec<Hole>,
    /// Moves played, as text, once their animation has shown them.
    pub log: Vec<String>,
    /// The move being shown, added to the log and news when its animation ends.
    pending: Option<Pending>,
    /// Frames still to show.
    pub anim: VecDeque<Frame>,
    /// The frame on screen while animating.
    pub shown: Option<Frame>,
    /// The line under the board: what to do now (or the animation's caption).
    pub status: String,
    /// News that stays on screen until the human's next move: the computer's move, the round
    /// just laid out, a key refused, the endgame tables ready. Kept apart from the prompt so
    /// that neither hides the other.
    pub notice: Option<String>,
    /// The hole the computer lifted last, marked on the board until your next move.
    pub last: Option<Hole>,
    /// The last hint.
    pub hint: Option<String>,
    /// The computer is thinking (or a hint is being computed).
    pub busy: bool,
    /// Bumped whenever the state changes, so that late answers of the computer are dropped.
    pub generation: u64,
    /// The help panel is open.
    pub help: bool,
    /// The first line of the help panel on screen (it scrolls at small sizes).
    pub help_scroll: usize,
    /// The last first line the help panel can start at, as last drawn (scrolling stops there).
    help_max: std::cell::Cell<usize>,
    /// Milliseconds per lap of the sowing animation (`--delay`, changed with `+` and `-`).
    pub delay: u64,
    /// `q` was pressed once while the game goes on.
    pub confirm_quit: bool,
    /// Set by `q`.
    pub quit: bool,
    /// When the game began (the saved record's `Date`).
    pub started: std::time::SystemTime,
}

impl App {
    /// A new game.
    #[must_use]
    pub fn new(state: GameState, seat: Side, opponent: Opponent) -> App {
        let mut app = App {
            start: state.clone(),
            state,
            seat,
            opponent,
            undo: Vec::new(),
            moves: Vec::new(),
            log: Vec::new(),
            pending: None,
            anim: VecDeque::new(),
            shown: None,
            status: String::new(),
            notice: None,
            last: None,
            hint: None,
            busy: false,
            generation: 0,
            help: false,
            help_scroll: 0,
            help_max: std::cell::Cell::new(usize::MAX),
            delay: DEFAULT_DELAY,
            confirm_quit: false,
            quit: false,
            started: std::time::SystemTime::now(),
        };
        app.status = app.prompt();
        app
    }

    /// Starts again from `state`, with the same seat and opponent.
    pub fn restart(&mut self, state: GameState) {
        let generation = self.generation + 1;
        let delay = self.delay;
        *self = App::new(state, self.seat, self.opponent);
        self.generation = generation;
        self.delay = delay;
    }

    /// Adds a sentence to the news (the news so far ends with a full stop first).
    pub fn add_notice(&mut self, text: &str) {
        self.notice = Some(match self.notice.take() {
            Some(n) if n.ends_with(['.', '!', '?']) => format!("{n} {text}"),
            Some(n) => format!("{n}. {text}"),
            None => text.to_string(),
        });
    }

    /// Whether `u` takes anything back now: against the computer, there must be a turn of
    /// yours to go back to.
    #[must_use]
    pub fn can_undo(&self) -> bool {
        match self.opponent {
            Opponent::Computer(_) => self
                .undo
                .iter()
                .any(|(s, _)| s.to_move() == Some(self.seat)),
            Opponent::Hotseat => !self.undo.is_empty(),
        }
    }

    /// True when the side to move is played from the keyboard.
    #[must_use]
    pub fn human_to_move(&self) -> bool {
        match self.state.to_move() {
            Some(side) => self.opponent == Opponent::Hotseat || side == self.seat,
            None => false,
        }
    }

    /// True when the computer should move now (and nothing is being shown).
    #[must_use]
    pub fn computer_to_move(&self) -> bool {
        matches!(self.opponent, Opponent::Computer(_))
            && self.state.to_move().is_some_and(|s| s != self.seat)
            && self.anim.is_empty()
    }

    /// The name of a side's player.
    #[must_use]
    pub fn player_name(&self, side: Side) -> String {
        match self.opponent {
            Opponent::Hotseat => format!("{side}"),
            Opponent::Computer(l) if side != self.seat => {
                format!("{side} (computer, {})", l.name())
            }
            Opponent::Computer(_) => format!("{side} (you)"),
        }
    }

    /// The letters of the holes the keyboard plays now (those of the side to move).
    fn letters(&self) -> (&'static str, &'static str) {
        let side = if self.opponent == Opponent::Hotseat {
            self.state.position().to_move()
        } else {
            self.seat
        };
        match side {
            Side::South => ("A-G", "a-g"),
            Side::North => ("a-g", "A-G"),
        }
    }

    /// What the player should do now.
    #[must_use]
    pub fn prompt(&self) -> String {
        let game = self.state.game();
        let st = self.state.position().stores();
        match self.state.status() {
            Status::Playing => {
                let side = self.state.position().to_move();
                if self.human_to_move() {
                    let letters = if side == Side::South { "A-G" } else { "a-g" };
                    let moves = self.state.legal_moves();
                    format!(
                        "{}: your move ({letters}; legal: {moves})",
                        self.player_name(side)
                    )
                } else {
                    format!("{} is thinking…", self.player_name(side))
                }
            }
            Status::RoundOver {
                result,
                next_starter,
            } => {
                let sph = game.seeds_per_hole();
                let fills = |s: u8| {
                    let n = (s / sph).min(7);
                    format!("{n} hole{}", if n == 1 { "" } else { "s" })
                };
                format!(
                    "{} Holding: South {}, North {}. Next: South fills {}, North {}; {} starts \
                     round {}. Press Enter.",
                    narrate::round_end(game, &result),
                    st[0],
                    st[1],
                    fills(st[0]),
                    fills(st[1]),
                    self.player_name(next_starter),
                    result.round + 1
                )
            }
            Status::Over { result, .. } => {
                // The round's end, then the game's or match's end with the players' names.
                let mut text = narrate::round_end(game, &result);
                if let Some(over) = narrate::game_over_with(&self.state, |s| self.player_name(s)) {
                    text.push(' ');
                    text.push_str(&over);
                }
                // The keys that apply, as the key line gives them: undo only if there is a
                // move to take back.
                text.push_str(if self.can_undo() {
                    " n: new game, u: undo, q: quit."
                } else {
                    " n: new game, q: quit."
                });
                text
            }
        }
    }

    /// Plays `mv` for the side to move, queueing its animation.
    ///
    /// # Errors
    /// The move is illegal (the message names it and why).
    pub fn play(&mut self, mv: Hole) -> Result<(), String> {
        // What was on screen is done with: the new move is drawn from here.
        self.finish_shown();
        let before = self.state.clone();
        let by_human = self.human_to_move();
        let mut events = Vec::new();
        let report = self
            .state
            .play_traced(mv, &mut events)
            .map_err(|e| e.to_string())?;
        // A round's first move is marked with the round, as in records.
        let new_round = before.round() > 1
            && self
                .undo
                .last()
                .is_none_or(|(s, _)| s.round() != before.round());
        self.undo.push((before.clone(), self.log.len()));
        self.moves.push(mv);
        // "wait: it is the computer's turn" is done with once the computer moves.
        if self
            .notice
            .as_deref()
            .is_some_and(|n| n.starts_with("wait:"))
        {
            self.notice = None;
        }
        if by_human {
            self.notice = None;
            self.last = None;
        }
        let taken = report.outcome.taken;
        let mover = mv.owner();
        let entry = format!(
            "{}{}. {} {mv}{}",
            if new_round {
                format!("R{} ", before.round())
            } else {
                String::new()
            },
            self.log.len() + 1,
            mover.letter(),
            gains(taken, mover)
        );
        let frames = sowing_frames(&before, mv, &events, &self.state, &self.player_name(mover));
        let news = if by_human {
            None
        } else {
            frames.last().map(|f| (f.caption.clone(), mv))
        };
        self.pending = Some(Pending { entry, news });
        self.anim.extend(frames);
        self.hint = None;
        self.generation += 1;
        self.busy = false;
        self.status = self.prompt();
        Ok(())
    }

    /// The animation on screen is over (shown to its end, or skipped): its move goes into the
    /// move list, and the computer's into the news.
    fn flush(&mut self) {
        if let Some(p) = self.pending.take() {
            self.log.push(p.entry);
            if let Some((news, hole)) = p.news {
                // Added to the news, not over it: what came during the move (the endgame
                // tables ready, a speed key) stays.
                self.add_notice(&news);
                self.last = Some(hole);
            }
        }
    }

    /// Ends whatever is being shown at once.
    fn finish_shown(&mut self) {
        self.anim.clear();
        self.shown = None;
        self.flush();
    }

    /// Shows the next animation frame; returns false when there was none.
    pub fn tick(&mut self) -> bool {
        match self.anim.pop_front() {
            Some(f) => {
                self.shown = Some(f);
                if self.anim.is_empty() {
                    self.flush();
                }
                true
            }
            None => {
                if self.shown.take().is_some() {
                    self.status = self.prompt();
                }
                false
            }
        }
    }

    /// The key line: what the keys do now, without ambiguity.
    #[must_use]
    pub fn keys_line(&self) -> String {
        let mut keys: Vec<String> = Vec::new();
        if !self.anim.is_empty() {
            // During an animation only these keys do what they always do ([`App::key_action`]);
            // every other one (a letter, h, ? included) only shows the rest of the move.
            keys.push("+/- speed".into());
            if self.can_undo() {
                keys.push("u undo".into());
            }
            keys.push("q quit".into());
            keys.push("any other key: skip animation".into());
            return keys.join(" · ");
        }
        match self.state.status() {
            Status::Playing => {
                let (own, other) = self.letters();
                keys.push(format!("{own} (or {other}) lift"));
                if self.can_undo() {
                    keys.push("u undo".into());
                }
                keys.push("h hint".into());
                keys.push("+/- speed".into());
            }
            Status::RoundOver { .. } => {
                keys.push("Enter next round".into());
                if self.can_undo() {
                    keys.push("u undo".into());
                }
            }
            Status::Over { .. } => {
                keys.push("n new game".into());
                if self.can_undo() {
                    keys.push("u undo".into());
                }
            }
        }
        keys.push("? help".into());
        keys.push("q quit".into());
        keys.join(" · ")
    }

    /// Maps a key to what it asks for now.
    #[must_use]
    pub fn key_action(&self, key: KeyEvent) -> Action {
        // A modifier alone (reported with the keyboard enhancement protocol) is no key.
        if key.kind == KeyEventKind::Release || matches!(key.code, KeyCode::Modifier(_)) {
            return Action::None;
        }
        if key.kind == KeyEventKind::Repeat {
            // A key held down acts once (as on the web page): its auto-repeat only scrolls the
            // help on; it plays no move, in particular not the other player's in a hotseat game.
            let press = KeyEvent {
                kind: KeyEventKind::Press,
                ..key
            };
            return match self.key_action(press) {
                a @ Action::ScrollHelp(_) => a,
                _ => Action::None,
            };
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        if ctrl && matches!(key.code, KeyCode::Char('c' | 'C' | 'd' | 'D')) {
            return Action::Quit;
        }
        if ctrl && matches!(key.code, KeyCode::Char('z' | 'Z')) {
            return Action::Suspend;
        }
        if self.help {
            // A panel that does not fit scrolls with the arrows, the page keys, j/k and
            // Home/End, and any other key closes it; one that fits has nothing to scroll, and
            // any key closes it (as its title says).
            if self.help_max.get() == 0 {
                return Action::CloseHelp;
            }
            let page = i32::try_from(HELP_PAGE).unwrap_or(8);
            return match key.code {
                KeyCode::Up | KeyCode::Char('k') => Action::ScrollHelp(-1),
                KeyCode::Down | KeyCode::Char('j') => Action::ScrollHelp(1),
                KeyCode::PageUp => Action::ScrollHelp(-page),
                KeyCode::PageDown => Action::ScrollHelp(page),
                KeyCode::Home => Action::ScrollHelp(i32::MIN),
                KeyCode::End => Action::ScrollHelp(i32::MAX),
                _ => Action::CloseHelp,
            };
        }
        if ctrl || alt {
            // Ctrl-A is screen's prefix, Ctrl-D the end of input: never a move.
            return Action::Invalid(format!(
                "{} ignored: holes are lifted with plain letters",
                key_name(key)
            ));
        }
        let quit_key = matches!(key.code, KeyCode::Char('q' | 'Q') | KeyCode::Esc);
        if self.confirm_quit {
            return if quit_key {
                Action::Quit
            } else {
                Action::PlayOn
            };
        }
        if quit_key {
            // Leaving a game that goes on asks first; a finished or unplayed one does not.
            return if self.state.is_over() || self.undo.is_empty() {
                Action::Quit
            } else {
                Action::AskQuit
            };
        }
        // The speed works during the animation too (it is when it matters).
        match key.code {
            KeyCode::Char('+' | '=') => return Action::Faster,
            KeyCode::Char('-' | '_') => return Action::Slower,
            _ => {}
        }
        if matches!(key.code, KeyCode::Char('u' | 'U') | KeyCode::Backspace) {
            // Against the computer undo goes back to your last turn: there must be one.
            return if self.can_undo() {
                Action::Undo
            } else {
                Action::Invalid("nothing to undo: you have not moved yet".into())
            };
        }
        if !self.anim.is_empty() {
            return Action::Skip;
        }
        match key.code {
            KeyCode::Char('?') | KeyCode::F(1) => Action::Help,
            KeyCode::Char('h' | 'H') => match self.state.status() {
                Status::Over { .. } => {
                    Action::Invalid("the game is over: there is no move to hint".into())
                }
                Status::RoundOver { .. } => {
                    Action::Invalid("the round is over: press Enter for the next one".into())
                }
                Status::Playing if self.human_to_move() => Action::Hint,
                Status::Playing => {
                    Action::Invalid("a hint is for your own turn: the computer is thinking".into())
                }
            },
            KeyCode::Enter | KeyCode::Char(' ') => match self.state.status() {
                Status::RoundOver { .. } => Action::NextRound,
                _ if self.state.mode() == Mode::Single => Action::Invalid(format!(
                    "{}: a single game has no next round",
                    key_name(key)
                )),
                Status::Over { .. } => Action::Invalid(format!(
                    "{}: the match is over, there is no next round; n for a new game, q to quit",
                    key_name(key)
                )),
                _ => Action::Invalid(format!(
                    "{} lays out the next round once this one is over",
                    key_name(key)
                )),
            },
            KeyCode::Char('n' | 'N') => {
                if self.state.is_over() {
                    Action::NewGame
                } else {
                    Action::Invalid("n starts a new game once this one is over".into())
                }
            }
            KeyCode::Char(c @ ('a'..='g' | 'A'..='G')) => {
                if !self.human_to_move() {
                    return Action::Invalid(match self.state.status() {
                        Status::Playing => "wait: it is the computer's turn".into(),
                        Status::RoundOver { .. } => {
                            "the round is over: press Enter for the next one".into()
                        }
                        Status::Over { .. } => "the game is over: n for a new game".into(),
                    });
                }
                let side = self.state.position().to_move();
                let col = (c.to_ascii_lowercase() as u8 - b'a') as usize;
                Action::Move(Hole::of_side(side, col))
            }
            _ => {
                let (own, _) = self.letters();
                Action::Invalid(format!(
                    "unknown key {}: {own} lift, u undo, h hint, ? help, q quit",
                    key_name(key)
                ))
            }
        }
    }

    /// Applies an action that needs no engine (everything but [`Action::Hint`]'s search and
    /// [`Action::NewGame`]'s new start).
    pub fn apply(&mut self, action: Action) {
        if self.confirm_quit && !matches!(action, Action::AskQuit | Action::Quit) {
            self.confirm_quit = false;
            self.notice = None;
        }
        match action {
            Action::Move(mv) => {
                if let Err(e) = self.play(mv) {
                    self.notice = Some(e);
                    self.status = self.prompt();
                }
            }
            Action::Undo => self.take_back(),
            Action::NextRound => {
                // The last frame of the round's end may still be up: the new round replaces it.
                self.finish_shown();
                let mut events = Vec::new();
                if self.state.next_round_traced(&mut events) {
                    self.generation += 1;
                    self.last = None;
                    let closed = self.state.position().closed_mask();
                    let names: String = Hole::ALL
                        .iter()
                        .filter(|h| closed & (1 << h.index()) != 0)
                        .map(|h| h.letter())
                        .collect();
                    // The web page's words (`circleText` in crates/server/web/app.js).
                    let circle = match self.state.repeats_round() {
                        Some(r) => format!(" {}", circle_text(r)),
                        None => String::new(),
                    };
                    self.notice = Some(format!(
                        "Round {} laid out{}.{circle}",
                        self.state.round(),
                        if names.is_empty() {
                            String::new()
                        } else {
                            format!("; closed: {names}")
                        },
                    ));
                    self.status = self.prompt();
                }
            }
            Action::Skip => {
                if let Some(last) = self.anim.pop_back() {
                    self.anim.clear();
                    self.shown = Some(last);
                    self.flush();
                }
            }
            Action::Quit => self.quit = true,
            Action::AskQuit => {
                self.confirm_quit = true;
                self.notice = Some(
                    "Quit? The game is not over: press q (or Esc) again to quit, any other key \
                     to play on."
                        .into(),
                );
            }
            Action::Help => {
                self.help = true;
                self.help_scroll = 0;
            }
            Action::CloseHelp => self.help = false,
            Action::ScrollHelp(by) => {
                let max = self.help_max.get();
                self.help_scroll = match by {
                    i32::MIN => 0,
                    i32::MAX => max,
                    by if by < 0 => self.help_scroll.saturating_sub(by.unsigned_abs() as usize),
                    by => self.help_scroll.saturating_add(by.unsigned_abs() as usize),
                }
                .min(max);
            }
            Action::Faster => {
                // The next step down (0 is the end: no animation).
                self.delay = DELAYS
                    .iter()
                    .rev()
                    .copied()
                    .find(|&d| d < self.delay)
                    .unwrap_or(0);
                self.tell_speed();
            }
            Action::Slower => {
                // The next step up (a --delay above the last step stays).
                self.delay = DELAYS
                    .iter()
                    .copied()
                    .find(|&d| d > self.delay)
                    .unwrap_or(self.delay);
                self.tell_speed();
            }
            Action::Suspend => {}
            Action::Invalid(why) => {
                self.notice = Some(format!("{why}."));
                if self.shown.is_none() {
                    self.status = self.prompt();
                }
            }
            Action::Hint => {
                // A hint on screen is for this position: news of an earlier key is done with.
                if self
                    .notice
                    .as_deref()
                    .is_some_and(|n| n.starts_with("wait:") || n.starts_with("unknown key"))
                {
                    self.notice = None;
                }
            }
            Action::PlayOn | Action::NewGame | Action::None => {}
        }
    }

    /// The news after a speed key.
    fn tell_speed(&mut self) {
        self.notice = Some(if self.delay == 0 {
            "Animation off (- to slow it down again).".to_string()
        } else {
            format!("Animation: {} ms a lap (+ faster, - slower).", self.delay)
        });
    }

    fn take_back(&mut self) {
        let Some((mut state, mut len)) = self.undo.pop() else {
            return;
        };
        // Against the computer, go back to a position where it is your turn.
        if let Opponent::Computer(_) = self.opponent {
            while state.to_move() != Some(self.seat) {
                match self.undo.pop() {
                    Some((s, l)) => {
                        state = s;
                        len = l;
                    }
                    None => break,
                }
            }
        }
        self.state = state;
        self.pending = None;
        self.log.truncate(len);
        self.moves.truncate(self.undo.len());
        self.anim.clear();
        self.shown = None;
        self.hint = None;
        self.last = None;
        self.busy = false;
        self.generation += 1;
        self.notice = Some("Taken back.".into());
        self.status = self.prompt();
    }
}

/// What a round that starts exactly as round `earlier` did means, in the web page's words
/// (`circleText` in crates/server/web/app.js; docs/engine.md, "Circles").
#[must_use]
pub fn circle_text(earlier: u32) -> String {
    format!(
        "It starts exactly as round {earlier} did: the same seeds held, the same starter. The \
         match is going round in a circle; played the same way it never ends. The rules give \
         it no end; once a start comes round a third time the computer counts the circle as a \
         draw, so the player ahead has to find another way to finish a round."
    )
}

/// What [`KeyRepeat`] makes of a key on a terminal that does not report key kinds (without
/// the keyboard enhancement protocol a held key's auto-repeat comes as more presses).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyKind {
    /// A new press: it acts.
    Press,
    /// Part of a held key's repeat stream: ignored, whatever the key.
    Repeat,
    /// Perhaps a held key's first repeat: the same key as the press that played the last move,
    /// nothing between, within [`KeyRepeat::FIRST`]. It may skip an animation, but plays no
    /// move; the news says so, and the next press of the key plays.
    Doubtful,
}

/// Telling a held key's auto-repeat from a new press on a terminal that does not report key
/// kinds, as well as the timing allows:
/// - a key that comes within [`KeyRepeat::STREAM`] of the previous event of the same key, with
///   no other key between, is a repeat (repeat rates are 10 to 40 a second; a deliberate double
///   tap is slower), and is ignored, whatever the key;
/// - a held key's first repeat comes after the keyboard's delay (250 to 600 ms) and cannot be
///   told from a press; the same key as the press that played the last move, with no other key
///   between, within [`KeyRepeat::FIRST`] of that press, is [`KeyKind::Doubtful`]: it plays no
///   move (the other player's in a hotseat game, or yours right after the computer's reply),
///   and pressing it again plays.
#[derive(Clone, Debug, Default)]
pub struct KeyRepeat {
    /// The last key and when it came.
    last: Option<(KeyCode, KeyModifiers, std::time::Instant)>,
    /// The press that played the last move, and when.
    played: Option<(KeyCode, KeyModifiers, std::time::Instant)>,
}

impl KeyRepeat {
    /// The longest gap between two events of a held key's repeat stream.
    pub const STREAM: std::time::Duration = std::time::Duration::from_millis(100);
    /// How long after the press that played a move the same key may be that key's first
    /// repeat (the keyboard's delay before it repeats).
    pub const FIRST: std::time::Duration = std::time::Duration::from_millis(600);

    /// What `key`, come at `now`, is (a key reported as [`KeyEventKind::Repeat`] always is a
    /// repeat; a release is no key and is not counted).
    pub fn classify(&mut self, key: &KeyEvent, now: std::time::Instant) -> KeyKind {
        if key.kind == KeyEventKind::Release || matches!(key.code, KeyCode::Modifier(_)) {
            return KeyKind::Press;
        }
        let same = |k: Option<(KeyCode, KeyModifiers, std::time::Instant)>, gap| {
            k.is_some_and(|(code, mods, at)| {
                code == key.code
                    && mods == key.modifiers
                    && now.saturating_duration_since(at) <= gap
            })
        };
        let kind = if key.kind == KeyEventKind::Repeat || same(self.last, Self::STREAM) {
            KeyKind::Repeat
        } else if same(self.last, Self::FIRST) && same(self.played, Self::FIRST) {
            KeyKind::Doubtful
        } else {
            KeyKind::Press
        };
        self.last = Some((key.code, key.modifiers, now));
        kind
    }

    /// `key`, come at `now`, played a move.
    pub fn played(&mut self, key: &KeyEvent, now: std::time::Instant) {
        self.played = Some((key.code, key.modifiers, now));
    }

    /// A doubtful key was answered: the next press of it plays.
    pub fn forget_played(&mut self) {
        self.played = None;
    }
}

/// The animation's time per lap before `--delay` or a speed key changes it, in milliseconds.
pub const DEFAULT_DELAY: u64 = 350;

/// The steps of the speed keys, milliseconds per lap (`+` goes one down, `-` one up).
pub const DELAYS: [u64; 10] = [0, 50, 100, 175, 250, 350, 500, 750, 1000, 2000];

/// Lines the help panel moves for PageUp and PageDown.
const HELP_PAGE: usize = 8;

/// A key as the news names it: `z`, `Space`, `F1`, `Ctrl-B`, `Alt-G`.
#[must_use]
pub fn key_name(key: KeyEvent) -> String {
    let base = match key.code {
        KeyCode::Char(' ') => "Space".to_string(),
        KeyCode::Char(c) => c.to_string(),
        KeyCode::F(n) => format!("F{n}"),
        KeyCode::BackTab => "Shift-Tab".to_string(),
        other => format!("{other:?}"),
    };
    let mut name = String::new();
    if key.modifiers.contains(KeyModifiers::CONTROL) {
        name.push_str("Ctrl-");
    }
    if key.modifiers.contains(KeyModifiers::ALT) {
        name.push_str("Alt-");
    }
    name.push_str(&base);
    name
}

/// What a move took, as the move list shows it: the mover's gain, and the other player's
/// when the move handed them seeds too (fours of their holes): ` +13`, ` +13, S +12`, `, N +4`.
fn gains(taken: [u8; 2], mover: Side) -> String {
    let (mine, theirs) = (taken[mover.index()], taken[mover.other().index()]);
    let other = mover.other().letter();
    match (mine, theirs) {
        (0, 0) => String::new(),
        (m, 0) => format!(" +{m}"),
        (0, t) => format!(", {other} +{t}"),
        (m, t) => format!(" +{m}, {other} +{t}"),
    }
}

/// The move list's lines for `width` columns: entries two spaces apart, a line broken only
/// between entries (an entry wider than the line stands alone).
#[must_use]
pub fn log_lines(entries: &[String], width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut cur = String::new();
    for e in entries {
        let len = cur.chars().count();
        if len > 0 && len + 2 + e.chars().count() > width {
            lines.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push_str("  ");
        }
        cur.push_str(e);
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    lines
}

/// `text` in lines of at most `width` columns, broken between words (a word longer than a
/// line is broken inside). No line for an empty text.
#[must_use]
pub fn wrap_text(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = Vec::new();
    let mut cur = String::new();
    let mut cur_len = 0;
    for word in text.split_whitespace() {
        let mut w: Vec<char> = word.chars().collect();
        while w.len() > width {
            if cur_len > 0 {
                lines.push(std::mem::take(&mut cur));
                cur_len = 0;
            }
            lines.push(w[..width].iter().collect());
            w.drain(..width);
        }
        if w.is_empty() {
            continue;
        }
        if cur_len > 0 && cur_len + 1 + w.len() > width {
            lines.push(std::mem::take(&mut cur));
            cur_len = 0;
        }
        if cur_len > 0 {
            cur.push(' ');
            cur_len += 1;
        }
        cur.extend(w.iter());
        cur_len += w.len();
    }
    if cur_len > 0 {
        lines.push(cur);
    }
    lines
}

/// The cell of one hole: its count right-aligned under (or over) its letter.
fn cell(board: &[u8; 14], closed: u16, h: Hole, focus: &[Hole]) -> Span<'static> {
    let text = if closed & (1 << h.index()) != 0 {
        "  x ".to_string()
    } else {
        format!("{:>3} ", board[h.index()])
    };
    let mut style = Style::default();
    if closed & (1 << h.index()) != 0 {
        style = style.fg(Color::DarkGray);
    }
    if focus.contains(&h) {
        style = style.add_modifier(Modifier::REVERSED);
    }
    Span::styled(text, style)
}

/// Columns a board row takes before its player's label: the side letter and seven holes.
const ROW_WIDTH: usize = 5 + 7 * 4;

/// Columns of a letter line with its arrow on the right (` →` after the last letter): one
/// more than a board row.
const LETTERS_WIDTH: usize = ROW_WIDTH + 1;

/// Columns between a row and its label.
const LABEL_GAP: usize = 3;

/// The narrowest terminal the game is drawn in; below it (or too short for the header, the
/// board and the status) the screen says how much room it needs.
pub const MIN_WIDTH: usize = 40;

/// The label of `side`'s row: its player and the seeds they hold.
fn holds(frame: &Frame, names: &[String; 2], side: Side) -> String {
    format!(
        "{} holds {}",
        names[side.index()],
        frame.stores[side.index()]
    )
}

/// The widest label, counting holdings at three digits (so the layout does not change while a
/// game goes on).
fn label_width(names: &[String; 2]) -> usize {
    names.iter().map(|n| n.chars().count()).max().unwrap_or(0) + " holds 999".len()
}

/// Whether the board, each row with its label beside it, fits in `width` columns; if not the
/// labels go into the board's frame, above and below it (see [`render`]).
#[must_use]
pub fn labels_beside(names: &[String; 2], width: u16) -> bool {
    ROW_WIDTH + LABEL_GAP + label_width(names) <= usize::from(width)
}

/// The sowing direction in words, as seen from any seat (the board is drawn from the seat, so
/// it looks the same from both).
#[must_use]
pub fn direction_words(dir: Direction) -> &'static str {
    match dir {
        Direction::Counterclockwise => {
            "counterclockwise: along your row from left to right (A to G for South, a to g for \
             North), then along the far row from right to left"
        }
        Direction::Clockwise => {
            "clockwise: along your row from right to left (G to A for South, g to a for North), \
             then along the far row from left to right"
        }
    }
}

/// The board as lines, seen from `seat`: the seat's own row at the bottom, from its owner's
/// left to right; the opponent's row on top, reversed (as it lies across the board). The
/// letter lines carry arrows the way the seeds go (`dir`). Each row's player and holding stand
/// beside it when `beside` (else [`render`] puts them into the board's frame).
#[must_use]
pub fn board_lines(
    frame: &Frame,
    seat: Side,
    names: [String; 2],
    beside: bool,
    dir: Direction,
) -> Vec<Line<'static>> {
    let me = seat;
    let them = seat.other();
    let top: Vec<Hole> = (0..7).rev().map(|k| Hole::of_side(them, k)).collect();
    let bottom: Vec<Hole> = (0..7).map(|k| Hole::of_side(me, k)).collect();
    // Counterclockwise: the far row leftwards, your row rightwards; clockwise the other way.
    let (top_left, top_right, bottom_left, bottom_right) = match dir {
        Direction::Counterclockwise => ("  ←  ", "", "     ", " →"),
        Direction::Clockwise => ("     ", " →", "  ←  ", ""),
    };
    let labels = |holes: &[Hole], left: &str, right: &str| -> Line<'static> {
        let mut s = String::from(left);
        for h in holes {
            s.push_str(&format!("{:>3} ", h.letter()));
        }
        let s = format!("{}{right}", s.trim_end());
        Line::from(Span::styled(s, Style::default().fg(Color::Cyan)))
    };
    let row = |holes: &[Hole], side: Side| -> Line<'static> {
        let mut spans = vec![Span::raw(format!("  {}  ", side.letter()))];
        for h in holes {
            spans.push(cell(&frame.board, frame.closed, *h, &frame.focus));
        }
        if beside {
            spans.push(Span::styled(
                format!("{:LABEL_GAP$}{}", "", holds(frame, &names, side)),
                Style::default().add_modifier(Modifier::BOLD),
            ));
        }
        Line::from(spans)
    };
    vec![
        labels(&top, top_left, top_right),
        row(&top, them),
        row(&bottom, me),
        labels(&bottom, bottom_left, bottom_right),
    ]
}

/// The frame to draw: the animation's, or the current state (with the computer's last hole
/// marked).
#[must_use]
pub fn current_frame(app: &App) -> Frame {
    match &app.shown {
        Some(f) => f.clone(),
        None => {
            let p = app.state.position();
            Frame {
                board: p.board(),
                closed: p.closed_mask(),
                stores: p.stores(),
                caption: String::new(),
                focus: app.last.into_iter().collect(),
            }
        }
    }
}

/// The header: the game, the mode, the seeds taken in the round as the frame on screen shows
/// them, and the closed holes. Within 80 columns.
fn header_text(app: &App, frame: &Frame) -> String {
    let st = &app.state;
    // The animation runs behind the state: the stores at the round's start are the state's
    // stores less what it took.
    let now = st.position().stores();
    let done = st.taken_this_round();
    let taken = [0, 1].map(|i| frame.stores[i].saturating_sub(now[i] - done[i]));
    let closed = st.position().closed_mask();
    let closed_names: String = Hole::ALL
        .iter()
        .filter(|h| closed & (1 << h.index()) != 0)
        .map(|h| h.letter())
        .collect();
    let what = if st.mode() == Mode::Match {
        format!("match · taken in round {}", st.round())
    } else {
        "single game · taken".to_string()
    };
    format!(
        "{} · {what}: South {}, North {}{}",
        st.game().title(),
        taken[0],
        taken[1],
        if closed_names.is_empty() {
            String::new()
        } else {
            format!(" · closed: {closed_names}")
        }
    )
}

/// The help panel's paragraphs.
#[must_use]
pub fn help_text(app: &App) -> Vec<String> {
    let game = app.state.game();
    vec![
        "Keys: A-G (either case) lift one of your holes (in a hotseat game, the side to \
         move's; a key held down acts once) · +, -, u and q work during the sowing animation; \
         any other key skips it · u \
         or Backspace takes back your last move (against the computer, back to your turn) · h \
         hint · Enter or Space: the next round of a match · n: a new game once this one is \
         over · + or -: a faster or slower sowing animation · ? or F1: this help (arrows, \
         PgUp/PgDn, j/k scroll it) · q or Esc quits (press it twice while the game goes on) · \
         Ctrl-C or Ctrl-D quit at once · Ctrl-Z suspends (fg comes back)."
            .into(),
        "The board: your row is at the bottom, from your left; the opponent's row is on top. \
         Each number is the seeds in the hole under or over it; x is a closed hole (later \
         rounds of a match); a highlighted hole is the one the computer lifted last. \"holds\" \
         is what each player has taken (in a match, carried from round to round); the header \
         counts what each took in this round."
            .into(),
        format!(
            "Sowing: {} sows {}; the arrows on the letter lines show the way.",
            game.title(),
            direction_words(game.direction())
        ),
        "Move list: \"3. S B +9\" is move 3, South lifted B and took 9; \"2. N e, S +4\": \
         North lifted e, took nothing and handed South a four; R2 marks a round's first move."
            .into(),
        "Hint: in a single game, the round's final margin for the side to move; in a match, \
         the margin of the holdings expected after the next round (the final holdings margin \
         ±200 for a match won or lost). \"proven\" is the outcome of best play from both (in a match, only a match won \
         or lost: the next round is estimated); otherwise the value is the engine's estimate \
         at the depth it names."
            .into(),
        "Held keys: a key held down acts once. Where the terminal reports key repeats \
         (kitty, foot, WezTerm, Ghostty) it says which they are; elsewhere a key that comes \
         within 100 ms of the same key is its repeat and does nothing (but scroll the \
         help), and the same letter as the one that played the last move, nothing between, within 600 \
         ms of it, may be its first repeat: it plays no move (it may skip the animation), the \
         news says \"a ignored: the key looked held; press it again to play\", and pressing \
         it again plays."
            .into(),
    ]
}

/// The help panel's lines for `width` × `height` columns and lines: the paragraphs wrapped,
/// a blank line between them if there is room.
fn help_lines(app: &App, width: usize, height: usize) -> Vec<String> {
    let paras: Vec<Vec<String>> = help_text(app).iter().map(|p| wrap_text(p, width)).collect();
    let total: usize = paras.iter().map(Vec::len).sum();
    let gap = total + paras.len() - 1 <= height;
    let mut lines = Vec::new();
    for (i, p) in paras.into_iter().enumerate() {
        if gap && i > 0 {
            lines.push(String::new());
        }
        lines.extend(p);
    }
    lines
}

/// Draws the help panel: the paragraphs from the line `app.help_scroll` on; when they do not
/// all fit, the frame's foot says how to scroll and which lines are shown.
fn render_help(app: &App, f: &mut ratatui::Frame) {
    let area = f.area();
    let w = usize::from(area.width);
    let h = usize::from(area.height);
    let all = help_lines(app, w.saturating_sub(2), h.saturating_sub(2));
    let room = h.saturating_sub(2).max(1);
    let max = all.len().saturating_sub(room);
    app.help_max.set(max);
    let first = app.help_scroll.min(max);
    let shown: Vec<Line> = all
        .iter()
        .skip(first)
        .take(room)
        .cloned()
        .map(Line::from)
        .collect();
    let mut block = Block::default().borders(Borders::ALL);
    if max == 0 {
        block = block.title(" help: any key closes it ");
    } else {
        let last = (first + room).min(all.len());
        block = block
            .title(" help: any other key closes it ")
            .title_bottom(format!(
                " ↑↓ PgUp PgDn: lines {}-{last} of {} ",
                first + 1,
                all.len()
            ));
    }
    f.render_widget(Clear, area);
    f.render_widget(Paragraph::new(shown).block(block), area);
}

/// `text` cut to `width` columns, with `…` when something was left out.
fn cut(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let mut s: String = text.chars().take(width.saturating_sub(1)).collect();
    s.push('…');
    s
}

/// Draws the whole UI. While the game goes on the header, the board and the status line
/// always stand whole (the status wraps onto as many lines as it needs); the news, the hint,
/// the keys and the move list take what room is left, in that order. A terminal without room
/// for the first three gets a message saying how much it needs. At the end of a round or of
/// the game the status (who won, "Press Enter") comes first: on a terminal too short for all,
/// the header is cut to a line, then left out, then the board's frame, then the board.
pub fn render(app: &App, f: &mut ratatui::Frame) {
    let area = f.area();
    let w = usize::from(area.width);
    let h = usize::from(area.height);
    if app.help {
        render_help(app, f);
        return;
    }
    let frame = current_frame(app);
    let names = [app.player_name(Side::South), app.player_name(Side::North)];
    let header = header_text(app, &frame);
    let now_line = if frame.caption.is_empty() {
        app.status.clone()
    } else {
        frame.caption.clone()
    };
    // The layout: the header's lines, and the board's height (6 framed, 4 without the frame,
    // 0 left out).
    let mut header_lines = wrap_text(&header, w);
    let mut board_h = 6usize;
    let mut now_lines = wrap_text(&now_line, w);
    // An animation's caption (a passing description of the lap) is cut with `…` to the room
    // under the board: a terminal big enough to play on keeps the board all through a move.
    if !frame.caption.is_empty() {
        let room = h.saturating_sub(header_lines.len() + 6).max(1);
        if now_lines.len() > room {
            now_lines.truncate(room);
            if let Some(last) = now_lines.last_mut() {
                let keep: String = last.chars().take(w.saturating_sub(1)).collect();
                *last = format!("{keep}…");
                debug_assert!(last.chars().count() <= w);
            }
        }
    }
    let status_n = now_lines.len();
    let needed = |w: usize| {
        let status = if frame.caption.is_empty() {
            wrap_text(&now_line, w).len()
        } else {
            1
        };
        wrap_text(&header, w).len() + 6 + status
    };
    let ended = frame.caption.is_empty() && !matches!(app.state.status(), Status::Playing);
    if w >= MIN_WIDTH && needed(w) > h && ended && status_n <= h {
        let fits = |header: usize, board: usize| header + board + status_n <= h;
        let (hl, bh) = [(1, 6), (0, 6), (0, 4), (0, 0)]
            .into_iter()
            .find(|&(hl, bh)| fits(hl, bh))
            .unwrap_or((0, 0));
        header_lines = if hl == 1 {
            vec![cut(&header, w)]
        } else {
            Vec::new()
        };
        board_h = bh;
    } else if w < MIN_WIDTH || needed(w) > h {
        let nw = w.max(MIN_WIDTH);
        let need = if ended {
            wrap_text(&now_line, nw).len()
        } else {
            needed(nw)
        };
        let msg = format!("terminal too small: need at least {nw}×{need} (now {w}×{h})");
        let mut lines = wrap_text(&msg, w);
        if lines.len() > h {
            lines = wrap_text(&format!("too small: {nw}×{need}"), w);
        }
        let lines: Vec<Line> = lines.into_iter().map(Line::from).collect();
        f.render_widget(Paragraph::new(lines), area);
        return;
    }
    let mut rest = h - (header_lines.len() + board_h + status_n);
    let mut fit = |text: Option<String>| -> Vec<String> {
        let lines = text.map(|t| wrap_text(&t, w)).unwrap_or_default();
        let n = lines.len().min(rest);
        rest -= n;
        lines.into_iter().take(n).collect()
    };
    let notice = fit(app.notice.clone());
    let hint = fit(app.hint.as_ref().map(|h| format!("hint: {h}")));
    let keys = fit(Some(app.keys_line()));
    let mut y = area.y;
    let put = |f: &mut ratatui::Frame, y: &mut u16, lines: Vec<String>, style: Style| {
        let n = u16::try_from(lines.len()).unwrap_or(0);
        if n > 0 {
            let lines: Vec<Line> = lines.into_iter().map(Line::from).collect();
            f.render_widget(
                Paragraph::new(lines).style(style),
                Rect::new(area.x, *y, area.width, n),
            );
        }
        *y += n;
    };
    put(
        f,
        &mut y,
        header_lines,
        Style::default().add_modifier(Modifier::BOLD),
    );
    // The board, centred, its frame as wide as its content (the letter lines with their
    // arrows included).
    let beside = labels_beside(&names, area.width.saturating_sub(4));
    let dir = app.state.game().direction();
    let them = app.seat.other();
    let inner = if beside {
        ROW_WIDTH + LABEL_GAP + label_width(&names)
    } else {
        LETTERS_WIDTH.max(label_width(&names) + 2)
    };
    let bw = (inner + 4).min(w);
    let bx = area.x + u16::try_from((w - bw) / 2).unwrap_or(0);
    let mut block = Block::default();
    if board_h == 6 {
        block = block.borders(Borders::ALL);
        if beside {
            block = block.title(format!(
                " board · sowing {} ",
                match dir {
                    Direction::Counterclockwise => "counterclockwise",
                    Direction::Clockwise => "clockwise",
                }
            ));
        } else {
            let bold = Style::default().add_modifier(Modifier::BOLD);
            block = block
                .title(Span::styled(
                    format!(" {} ", holds(&frame, &names, them)),
                    bold,
                ))
                .title_bottom(Span::styled(
                    format!(" {} ", holds(&frame, &names, app.seat)),
                    bold,
                ));
        }
    }
    if board_h > 0 {
        f.render_widget(
            Paragraph::new(board_lines(&frame, app.seat, names.clone(), beside, dir))
                .block(block.padding(ratatui::widgets::Padding::horizontal(1))),
            Rect::new(
                bx,
                y,
                u16::try_from(bw).unwrap_or(0),
                u16::try_from(board_h).unwrap_or(0),
            ),
        );
    }
    y += u16::try_from(board_h).unwrap_or(0);
    put(f, &mut y, now_lines, Style::default());
    put(f, &mut y, hint, Style::default().fg(Color::Green));
    put(f, &mut y, notice, Style::default().fg(Color::Yellow));
    // The move list in what is left between the news and the keys: the newest entries.
    let keys_n = u16::try_from(keys.len()).unwrap_or(0);
    let bottom = area.y + area.height - keys_n;
    let room = bottom.saturating_sub(y);
    if room >= 2 {
        let lines = log_lines(&app.log, w);
        let show = usize::from(room - 1);
        let lines: Vec<Line> = lines[lines.len().saturating_sub(show)..]
            .iter()
            .cloned()
            .map(Line::from)
            .collect();
        f.render_widget(
            Paragraph::new(lines).block(
                Block::default()
                    .borders(Borders::TOP)
                    .title(" moves ")
                    .title_alignment(Alignment::Left),
            ),
            Rect::new(area.x, y, area.width, room),
        );
    }
    let keys_lines: Vec<Line> = keys.into_iter().map(Line::from).collect();
    f.render_widget(
        Paragraph::new(keys_lines).style(Style::default().fg(Color::DarkGray)),
        Rect::new(area.x, bottom, area.width, keys_n),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use pussa_rules::Game;
    use ratatui::backend::TestBackend;
    use ratatui::crossterm::event::KeyEventState;
    use ratatui::Terminal;

    fn key(c: char) -> KeyEvent {
        KeyEvent {
            code: KeyCode::Char(c),
            modifiers: KeyModifiers::NONE,
            kind: KeyEventKind::Press,
            state: KeyEventState::NONE,
        }
    }

    fn screen(app: &App) -> String {
        screen_of(app, 110, 16)
    }

    fn screen_of(app: &App, w: u16, h: u16) -> String {
        let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
        t.draw(|f| render(app, f)).unwrap();
        let buf = t.backend().buffer().clone();
        let mut s = String::new();
        for y in 0..buf.area.height {
            for x in 0..buf.area.width {
                s.push_str(buf[(x, y)].symbol());
            }
            s.push('\n');
        }
        s
    }

    fn hotseat(game: Game) -> App {
        App::new(
            GameState::new(game, Mode::Single, Side::South),
            Side::South,
            Opponent::Hotseat,
        )
    }

    #[test]
    fn letters_map_to_the_movers_holes_in_any_case() {
        let mut app = hotseat(Game::WalakPussa);
        assert_eq!(
            app.key_action(key('d')),
            Action::Move(Hole::from_letter('D').unwrap())
        );
        assert_eq!(
            app.key_action(key('D')),
            Action::Move(Hole::from_letter('D').unwrap())
        );
        app.apply(Action::Move(Hole::from_letter('A').unwrap()));
        app.apply(Action::Skip);
        app.tick();
        // North to move now: the same keys name North's holes.
        assert_eq!(
            app.key_action(key('C')),
            Action::Move(Hole::from_letter('c').unwrap())
        );
        // A game under way: q asks first, a second q quits.
        assert_eq!(app.key_action(key('q')), Action::AskQuit);
        app.apply(Action::AskQuit);
        assert_eq!(app.key_action(key('q')), Action::Quit);
        assert_eq!(app.key_action(key('u')), Action::PlayOn);
        app.apply(Action::PlayOn);
        assert!(!app.confirm_quit && app.notice.is_none());
        assert_eq!(app.key_action(key('u')), Action::Undo);
        assert_eq!(
            app.key_action(key('x')),
            Action::Invalid("unknown key x: a-g lift, u undo, h hint, ? help, q quit".into())
        );
    }

    #[test]
    fn during_the_animation_keys_skip_it_but_undo_works() {
        let mut app = hotseat(Game::WalakPussa);
        app.apply(Action::Move(Hole::from_letter('A').unwrap()));
        assert!(!app.anim.is_empty());
        assert_eq!(app.key_action(key('c')), Action::Skip);
        // h and ? skip like any other key (the key line says "any other key: skip
        // animation"); +, -, u and q do what they always do, as the line says.
        assert_eq!(app.key_action(key('h')), Action::Skip);
        assert_eq!(app.key_action(key('?')), Action::Skip);
        assert_eq!(app.key_action(key('u')), Action::Undo);
        assert_eq!(app.key_action(key('+')), Action::Faster);
        assert_eq!(app.key_action(key('-')), Action::Slower);
        assert_eq!(app.key_action(key('q')), Action::AskQuit);
        assert_eq!(
            app.keys_line(),
            "+/- speed · u undo · q quit · any other key: skip animation"
        );
        let help = help_text(&app).join(" ");
        assert!(
            !help.contains("any key during the sowing animation"),
            "{help}"
        );
        assert!(
            help.contains("+, -, u and q work during the sowing animation; any other key skips it"),
            "{help}"
        );
        app.apply(Action::Skip);
        assert!(app.anim.is_empty());
        assert_eq!(
            app.shown.as_ref().unwrap().board,
            app.state.position().board()
        );
    }

    #[test]
    fn keys_for_the_computer_are_refused() {
        let app = App::new(
            GameState::new(Game::WalakPussa, Mode::Single, Side::South),
            Side::North,
            Opponent::Computer(Level::ALL[0]),
        );
        assert!(matches!(app.key_action(key('a')), Action::Invalid(_)));
        assert!(app.computer_to_move());
    }

    #[test]
    fn the_animation_goes_lap_by_lap_and_ends_on_the_new_position() {
        // The contract's Walak-pussa `A`: 7 laps, then South captures 6 from b.
        let mut app = hotseat(Game::WalakPussa);
        app.apply(Action::Move(Hole::from_letter('A').unwrap()));
        let frames: Vec<Frame> = app.anim.iter().cloned().collect();
        let relays = frames
            .iter()
            .filter(|f| f.caption.contains("relay"))
            .count();
        assert_eq!(relays, 6, "{frames:#?}");
        assert!(frames
            .iter()
            .any(|f| f.caption.contains("South captures 6 from b")));
        let last = frames.last().unwrap();
        assert_eq!(last.board, app.state.position().board());
        assert_eq!(last.stores, [6, 0]);
        // First the lift, then the first lap: A's 4 seeds went to B..E (now 5 each).
        assert_eq!(frames[0].caption, "South lifts A (4)");
        assert_eq!(frames[0].focus, vec![Hole::from_letter('A').unwrap()]);
        assert_eq!(&frames[1].board[..5], &[0, 5, 5, 5, 5]);
        // On screen, the header follows the animation, not the state already played.
        app.tick();
        assert!(screen(&app).contains("taken: South 0, North 0"));
        while app.tick() {}
        assert!(app.shown.is_none());
        assert!(screen(&app).contains("taken: South 6, North 0"));
    }

    #[test]
    fn undo_against_the_computer_returns_to_your_turn() {
        let mut app = App::new(
            GameState::new(Game::RajaPasu, Mode::Single, Side::South),
            Side::South,
            Opponent::Computer(Level::ALL[0]),
        );
        let start = app.state.clone();
        app.apply(Action::Move(Hole::from_letter('G').unwrap()));
        let north_move = app.state.legal_moves().next().unwrap();
        app.play(north_move).unwrap();
        app.apply(Action::Skip);
        assert_eq!(app.log.len(), 2);
        assert_eq!(app.moves.len(), 2);
        app.apply(Action::Undo);
        assert_eq!(app.state, start);
        assert!(app.log.is_empty() && app.moves.is_empty());
        assert!(app.anim.is_empty());
    }

    #[test]
    fn an_illegal_key_says_why() {
        let mut app = hotseat(Game::WalakPussa);
        app.apply(Action::Move(Hole::from_letter('A').unwrap()));
        app.apply(Action::Skip);
        app.tick();
        // North's `a` and `b` are empty after South's A.
        let act = app.key_action(key('b'));
        app.apply(act);
        let n = app.notice.clone().unwrap_or_default();
        assert!(n.contains("illegal move b: the hole is empty"), "{n}");
        // The reason and the prompt are both on screen.
        let s = screen_of(&app, 80, 24);
        assert!(s.contains("illegal move b: the hole is empty"), "{s}");
        assert!(s.contains("North: your move (a-g; legal:"), "{s}");
    }

    #[test]
    fn a_refused_key_during_the_last_frame_is_still_told() {
        let mut app = hotseat(Game::WalakPussa);
        app.apply(Action::Move(Hole::from_letter('A').unwrap()));
        app.apply(Action::Skip);
        // The last frame is still up (no tick yet): the refusal is kept through the tick.
        app.apply(app.key_action(key('b')));
        app.tick();
        let n = app.notice.clone().unwrap_or_default();
        assert!(n.contains("illegal move b"), "{n}");
        assert!(screen_of(&app, 80, 24).contains("illegal move b"));
    }

    #[test]
    fn news_prompt_and_hint_share_the_screen_at_80_by_24() {
        let mut app = hotseat(Game::WalakPussa);
        app.notice = Some("endgame tables of walak-pussa (up to 22 seeds) in use".into());
        app.hint = Some("c, worth +4 seeds (depth 12; line c F a)".into());
        let s = screen_of(&app, 80, 24);
        for want in [
            "South: your move (A-G; legal:",
            "hint: c, worth +4 seeds",
            "endgame tables of walak-pussa",
            "q quit",
        ] {
            assert!(s.contains(want), "{want} missing:\n{s}");
        }
    }

    #[test]
    fn a_finished_match_says_what_each_player_holds() {
        let mut app = App::new(
            GameState::new(Game::RajaPasu, Mode::Match, Side::South),
            Side::South,
            Opponent::Hotseat,
        );
        let mut rng = pussa_rules::Rng::new(11);
        for _ in 0..20_000 {
            if app.state.is_over() {
                break;
            }
            if matches!(app.state.status(), Status::RoundOver { .. }) {
                app.apply(Action::NextRound);
                continue;
            }
            let moves = app.state.legal_moves();
            let mv = moves.nth(rng.below(moves.len() as u32) as usize).unwrap();
            app.apply(Action::Move(mv));
        }
        assert!(app.state.is_over(), "a random match ends");
        let st = app.state.position().stores();
        let p = app.prompt();
        // The match's reason (a holding too small to fill a hole), the round's winner and
        // the match's, in `pussa replay`'s words.
        let (w, l) = (st[0].max(st[1]), st[0].min(st[1]));
        assert!(
            p.starts_with(&format!("Round {} is over: ", app.state.round()))
                && (p.contains("wins the round") || p.contains("the round is drawn"))
                && p.contains(&format!("holds {l}, too few to fill a hole of 7 seeds"))
                && p.contains("so the match is over: "),
            "{p}"
        );
        assert!(p.contains(&format!("wins, {w} to {l}.")) || w == l, "{p}");
        assert!(p.contains("n: new game"), "{p}");
    }

    #[test]
    fn the_move_list_tells_both_players_gains() {
        assert_eq!(gains([0, 0], Side::South), "");
        assert_eq!(gains([11, 0], Side::South), " +11");
        assert_eq!(gains([12, 13], Side::North), " +13, S +12");
        assert_eq!(gains([4, 0], Side::North), ", S +4");
        // Raja Pasu's G from the start: South takes 11 and hands North 8 (the contract's
        // worked move).
        let mut app = hotseat(Game::RajaPasu);
        app.apply(Action::Move(Hole::from_letter('G').unwrap()));
        app.apply(Action::Skip);
        assert_eq!(app.log[0], "1. S G +11, N +8");
    }

    #[test]
    fn undo_before_your_first_move_against_the_computer_is_refused() {
        let mut app = App::new(
            GameState::new(Game::RajaPasu, Mode::Single, Side::South),
            Side::North,
            Opponent::Computer(Level::Beginner),
        );
        // The computer (South) opens.
        app.apply(Action::Move(Hole::from_letter('A').unwrap()));
        app.apply(Action::Skip);
        assert_eq!(
            app.key_action(key('u')),
            Action::Invalid("nothing to undo: you have not moved yet".into())
        );
        app.apply(app.key_action(key('u')));
        assert_eq!(app.log.len(), 1, "the computer's move stays");
    }

    #[test]
    fn the_newest_moves_stay_in_sight_and_rounds_are_marked() {
        let mut app = hotseat(Game::WalakPussa);
        let mut rng = pussa_rules::Rng::new(5);
        for _ in 0..60 {
            if app.state.is_over() {
                break;
            }
            let moves = app.state.legal_moves();
            let mv = moves.nth(rng.below(moves.len() as u32) as usize).unwrap();
            app.apply(Action::Move(mv));
            app.apply(Action::Skip);
            app.tick();
        }
        let last = app.log.last().unwrap().clone();
        let s = screen_of(&app, 60, 16);
        assert!(s.contains(&last), "{last} not on the screen:\n{s}");
    }

    #[test]
    fn the_board_is_drawn_from_the_seat() {
        let app = hotseat(Game::PasuPondi);
        let s = screen(&app);
        assert!(
            s.contains("Pasu Pondi · single game · taken: South 0, North 0"),
            "{s}"
        );
        // Pasu Pondi sows clockwise: the title says so and the arrows point the way.
        assert!(s.contains("sowing clockwise"), "{s}");
        assert!(s.contains("  ←    A   B   C"), "{s}");
        assert!(s.contains("  b   a →"), "{s}");
        let lines: Vec<&str> = s.lines().collect();
        let top = lines
            .iter()
            .position(|l| l.contains("  g   f   e   d   c   b   a"))
            .expect("North's labels on top");
        let bottom = lines
            .iter()
            .position(|l| l.contains("  A   B   C   D   E   F   G"))
            .expect("South's labels below");
        assert!(top < bottom);
        assert!(s.contains("South holds 0"));
        // From North's seat the rows swap and reverse.
        let north = App::new(app.state.clone(), Side::North, Opponent::Hotseat);
        let s = screen(&north);
        let lines: Vec<&str> = s.lines().collect();
        let top = lines
            .iter()
            .position(|l| l.contains("  G   F   E   D   C   B   A"))
            .expect("{s}");
        let bottom = lines
            .iter()
            .position(|l| l.contains("  a   b   c   d   e   f   g"))
            .expect("{s}");
        assert!(top < bottom);
    }

    #[test]
    fn a_narrow_terminal_cuts_neither_labels_nor_header() {
        let app = App::new(
            GameState::new(Game::RajaPasu, Mode::Match, Side::South),
            Side::South,
            Opponent::Computer(Level::ALL[0]),
        );
        let north = app.player_name(Side::North);
        let south = app.player_name(Side::South);
        // Wide: each label beside its row.
        let s = screen_of(&app, 110, 20);
        let row = |s: &str, needle: &str| s.lines().find(|l| l.contains(needle)).map(String::from);
        let n_row = row(&s, &format!("{north} holds 0")).expect("North's label");
        // Counts right-aligned under their letters.
        assert!(n_row.contains("  N    7   7"), "{s}");
        let letters = s.lines().find(|l| l.contains("g   f   e")).unwrap();
        let g = letters.find('g').unwrap();
        assert_eq!(n_row.chars().nth(g), Some('7'), "{s}");
        // At 40 columns: the labels whole, on lines of their own, North's above the board and
        // South's below it; the header and the keys are wrapped, not cut.
        let s = screen_of(&app, 40, 30);
        let lines: Vec<&str> = s.lines().collect();
        let at = |needle: &str| lines.iter().position(|l| l.contains(needle));
        let n = at(&format!("{north} holds 0")).unwrap_or_else(|| panic!("{north}:\n{s}"));
        let s_at = at(&format!("{south} holds 0")).unwrap_or_else(|| panic!("{south}:\n{s}"));
        let n_row = at("  N    7   7").expect("North's row");
        let s_row = at("  S    7   7").expect("South's row");
        assert!(n < n_row && n_row < s_row && s_row < s_at, "{s}");
        let joined = lines.join(" ");
        let words = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            words(&joined).contains("taken in round 1: South 0, North 0"),
            "{s}"
        );
        assert!(
            words(&joined).contains("h hint · +/- speed · ? help · q quit"),
            "{s}"
        );
    }

    #[test]
    fn a_match_shows_the_round_end_and_closed_holes() {
        // South holds 54 of 56 after round 1's end in this position: North can fill 0 holes…
        // so use a position where North keeps 5 seeds: one hole, six closed.
        let setup: pussa_rules::Setup = "0,0,0,0,0,0,1/0,0,0,0,0,0,0 50 5 N 1 walak-pussa"
            .parse()
            .unwrap();
        let state = setup.game_state(Mode::Match).unwrap();
        let mut app = App::new(state, Side::South, Opponent::Hotseat);
        assert!(
            matches!(app.state.status(), Status::RoundOver { .. }),
            "{:?}",
            app.state.status()
        );
        // Who won the round, what each fills next and who starts.
        assert!(
            app.status
                .contains("Round 1 is over: North has no legal move;")
                && app.status.contains("South wins the round")
                && app.status.contains(
                    "Next: South fills 7 holes, North 1 hole; North starts round 2. Press Enter."
                ),
            "{}",
            app.status
        );
        assert_eq!(
            app.key_action(KeyEvent::from(KeyCode::Enter)),
            Action::NextRound
        );
        app.apply(Action::NextRound);
        assert_eq!(app.state.round(), 2);
        let s = screen(&app);
        assert!(s.contains("taken in round 2"), "{s}");
        assert!(s.contains("closed: abcdef"), "{s}");
        assert!(s.contains("  x "), "{s}");
    }

    #[test]
    fn a_round_that_starts_as_an_earlier_one_did_is_called_a_circle() {
        // Walak-pussa played perfectly for seeds (docs/solved.md): round 3 repeats round 2.
        let mut state = GameState::new(Game::WalakPussa, Mode::Match, Side::South);
        let moves = "A f B e E d C b A g G g F e F b D g A f C e D c E d F f G a \
                     e E f G d E b F b D b E";
        for m in moves.split_whitespace() {
            state.next_round();
            state
                .play(Hole::from_letter(m.chars().next().unwrap()).unwrap())
                .unwrap();
        }
        let mut app = App::new(state.clone(), Side::South, Opponent::Hotseat);
        app.apply(Action::NextRound);
        assert_eq!(app.state.round(), 3);
        let n = app.notice.clone().unwrap_or_default();
        assert!(n.contains("starts exactly as round 2 did"), "{n}");
        // What it means, in the web page's words: no end, and the computer's draw.
        assert!(
            n.contains(
                "The match is going round in a circle; played the same way it never ends. The \
                 rules give it no end; once a start comes round a third time the computer counts \
                 the circle as a draw, so the player ahead has to find another way to finish a \
                 round."
            ),
            "{n}"
        );
        // With a hint asked, all three are on an 80 by 24 screen.
        app.hint = Some("b, worth +0 seeds".into());
        let s = screen_of(&app, 80, 24);
        assert!(s.contains("hint: b, worth"), "{s}");
        assert!(s.contains("North: your move"), "{s}");
        assert!(s.contains("Round 3 laid out"), "{s}");
        // The news stays through the other player's move and goes with the human's own: in
        // hotseat both are human, so North's move clears it.
        app.apply(Action::Move(Hole::from_letter('b').unwrap()));
        assert!(app.notice.is_none());
        app.apply(Action::Skip);
        // The first move of a round is marked with it in the move list.
        assert!(
            app.log.last().unwrap().starts_with("R3 "),
            "{:?}",
            app.log.last()
        );
        // Round 2 did not repeat round 1.
        let mut round_one = GameState::new(Game::WalakPussa, Mode::Match, Side::South);
        for m in moves.split_whitespace().take(30) {
            round_one
                .play(Hole::from_letter(m.chars().next().unwrap()).unwrap())
                .unwrap();
        }
        let mut app = App::new(round_one, Side::South, Opponent::Hotseat);
        app.apply(Action::NextRound);
        assert_eq!(app.state.round(), 2);
        let n = app.notice.clone().unwrap_or_default();
        assert!(
            n.contains("Round 2 laid out") && !n.contains("circle"),
            "{n}"
        );
    }

    fn with(code: KeyCode, modifiers: KeyModifiers) -> KeyEvent {
        KeyEvent {
            code,
            modifiers,
            kind: KeyEventKind::Press,
            state: KeyEventState::NONE,
        }
    }

    /// A Raja Pasu match near its end of round 1 (South to move, North nearly empty).
    fn round_end_app(w: Side) -> App {
        let setup: pussa_rules::Setup = "0,0,0,0,0,0,1/0,0,0,0,0,0,0 50 5 N 1 walak-pussa"
            .parse()
            .unwrap();
        App::new(setup.game_state(Mode::Match).unwrap(), w, Opponent::Hotseat)
    }

    #[test]
    fn a_short_terminal_keeps_the_board_and_drops_the_move_list() {
        let mut app = App::new(
            GameState::new(Game::WalakPussa, Mode::Single, Side::South),
            Side::South,
            Opponent::Computer(Level::Club),
        );
        app.apply(Action::Move(Hole::from_letter('A').unwrap()));
        app.apply(Action::Skip);
        app.tick();
        for (w, h) in [(80, 12), (80, 14), (40, 16), (60, 12), (40, 12)] {
            let s = screen_of(&app, w, h);
            for want in [
                "g   f   e   d   c   b   a",
                "  N    ",
                "  S    ",
                "A   B   C   D   E   F   G",
                "holds 6",
                "holds 0",
            ] {
                assert!(s.contains(want), "{w}x{h}: {want} missing:\n{s}");
            }
            let words = s.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(words.contains("is thinking…"), "{w}x{h}:\n{s}");
        }
    }

    #[test]
    fn a_tiny_terminal_says_how_much_room_it_needs() {
        let app = hotseat(Game::RajaPasu);
        for (w, h) in [(30, 20), (10, 5), (80, 7), (39, 40)] {
            let s = screen_of(&app, w, h);
            let words = s.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(
                words.contains("terminal too small: need at least")
                    && words.contains(&format!("(now {w}×{h})"))
                    || w < 20 && words.contains("too small: 40×"),
                "{w}x{h}:\n{s}"
            );
            assert!(!s.contains("  S    7"), "no cut board at {w}x{h}:\n{s}");
        }
        let s = screen_of(&app, 80, 7);
        assert!(s.contains("need at least 80×8"), "{s}");
    }

    #[test]
    fn the_status_wraps_whole_in_a_narrow_terminal() {
        // The round's end at 40 columns: the winner and "Press Enter" are on screen.
        let app = round_end_app(Side::South);
        let s = screen_of(&app, 40, 24);
        let words = s.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(words.contains("South wins the round"), "{s}");
        assert!(words.contains("North starts round 2. Press Enter."), "{s}");
        assert!(words.contains("Enter next round"), "{s}");
        // The end of a match at 40x24 and 60x20: the winner is readable.
        let setup: pussa_rules::Setup = "0,0,0,0,0,0,1/0,0,0,0,0,0,0 52 3 N 1 walak-pussa"
            .parse()
            .unwrap();
        let app = App::new(
            setup.game_state(Mode::Match).unwrap(),
            Side::South,
            Opponent::Computer(Level::Max),
        );
        assert!(app.state.is_over());
        for (w, h) in [(40, 24), (60, 20)] {
            let s = screen_of(&app, w, h);
            let words = s.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(
                words.contains(
                    "North holds 3, too few to fill a hole of 4 seeds, so the match is over: \
                     South (you) wins, 53 to 3."
                ),
                "{w}x{h}:\n{s}"
            );
        }
    }

    #[test]
    fn a_single_game_from_a_later_round_is_won_by_the_rounds_takings() {
        // South took 48 in round 2 and North 2 (all of it on North's last move): both hold about
        // as much, but the round is South's.
        for (pos, want) in [
            (
                "x,x,x,x,x,0,0/0,0,0,0,0,0,0 2+48 46+2 S 2 raja-pasu",
                "The game is over: South (you) wins the round, 48 to 2 taken (holding South 50, \
                 North 48).",
            ),
            (
                "x,x,x,x,x,0,0/0,0,0,0,0,0,0 50 46+2 S 2 raja-pasu",
                "The game is over: North (computer, max) wins the round, 2 to 0 taken (holding \
                 South 50, North 48).",
            ),
            (
                "0,0,0,0,0,0,0/0,0,0,0,0,0,0 50 48 S 1 raja-pasu",
                "The game is over: South (you) wins, 50 to 48.",
            ),
        ] {
            let setup: pussa_rules::Setup = pos.parse().unwrap();
            let app = App::new(
                setup.game_state(Mode::Single).unwrap(),
                Side::South,
                Opponent::Computer(Level::Max),
            );
            assert!(app.state.is_over(), "{pos}");
            let s = screen_of(&app, 100, 30);
            let words = s.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(words.contains(want), "{pos}:\n{s}");
        }
    }

    #[test]
    fn a_match_at_the_last_round_says_why_it_is_over() {
        let setup: pussa_rules::Setup = "0,0,0,0,0,0,0/0,0,0,0,0,0,0 28 28 S 1000000 walak-pussa"
            .parse()
            .unwrap();
        let app = App::new(
            setup.game_state(Mode::Match).unwrap(),
            Side::South,
            Opponent::Hotseat,
        );
        assert!(app.state.is_over());
        let s = screen_of(&app, 100, 30);
        let words = s.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            words.contains(
                "Round 1000000 is the last a match plays, so the match is over: a draw, 28 to 28."
            ),
            "{s}"
        );
    }

    #[test]
    fn ctrl_and_alt_letters_play_no_move() {
        let app = hotseat(Game::RajaPasu);
        for m in [KeyModifiers::CONTROL, KeyModifiers::ALT] {
            for c in ['a', 'b', 'g'] {
                let act = app.key_action(with(KeyCode::Char(c), m));
                assert!(matches!(act, Action::Invalid(_)), "{m:?}-{c}: {act:?}");
            }
        }
        let Action::Invalid(why) = app.key_action(with(KeyCode::Char('b'), KeyModifiers::CONTROL))
        else {
            panic!()
        };
        assert!(why.starts_with("Ctrl-b ignored"), "{why}");
        for c in ['c', 'd'] {
            assert_eq!(
                app.key_action(with(KeyCode::Char(c), KeyModifiers::CONTROL)),
                Action::Quit
            );
        }
    }

    #[test]
    fn the_move_list_waits_for_the_animation() {
        let mut app = hotseat(Game::RajaPasu);
        app.apply(Action::Move(Hole::from_letter('G').unwrap()));
        assert!(app.log.is_empty());
        app.tick();
        assert!(!screen(&app).contains("1. S G"));
        while !app.anim.is_empty() {
            assert!(app.log.is_empty());
            app.tick();
        }
        // The last frame is up: the move is in the list.
        assert_eq!(app.log, vec!["1. S G +11, N +8".to_string()]);
        // A skip adds it at once.
        app.apply(Action::Move(Hole::from_letter('e').unwrap()));
        assert_eq!(app.log.len(), 1);
        app.apply(Action::Skip);
        assert_eq!(app.log.len(), 2);
    }

    #[test]
    fn the_computers_move_is_named_kept_and_marked() {
        let mut app = App::new(
            GameState::new(Game::WalakPussa, Mode::Single, Side::South),
            Side::South,
            Opponent::Computer(Level::Club),
        );
        app.apply(Action::Move(Hole::from_letter('A').unwrap()));
        app.apply(Action::Skip);
        app.tick();
        app.tick();
        app.notice = Some("wait: it is the computer's turn.".into());
        let f = Hole::from_letter('f').unwrap();
        app.play(f).unwrap();
        app.tick();
        let s = screen(&app);
        assert!(s.contains("North (computer, club) lifts f (6)"), "{s}");
        while app.tick() {}
        // The news says what it played until your next move, and f is marked.
        let n = app.notice.clone().unwrap();
        assert!(n.starts_with("North played f: South +0, North +"), "{n}");
        assert_eq!(current_frame(&app).focus, vec![f]);
        let s = screen_of(&app, 80, 24);
        assert!(s.contains("North played f"), "{s}");
        let mv = app.state.legal_moves().nth(0).unwrap();
        app.apply(Action::Move(mv));
        assert!(app.notice.is_none() && app.last.is_none());
    }

    #[test]
    fn the_hint_says_what_its_number_means() {
        let single = GameState::new(Game::WalakPussa, Mode::Single, Side::South);
        let b = Hole::from_letter('B').unwrap();
        // A depth-limited value is an estimate at its depth, never "best play from both".
        let t = hint_text(&single, b, 7, false, 17, &[b]);
        assert_eq!(
            t,
            "B: estimate at depth 17 (not proven): South ends the round 7 seeds ahead of North \
             (final margin +7; line B)"
        );
        assert!(!t.contains("best play"), "{t}");
        // A proven value (tables, or a search to the end of every line) is the outcome of
        // best play, and says so.
        let t = hint_text(&single, b, -8, true, 9, &[b]);
        assert_eq!(
            t,
            "B: proven: with best play from both, South ends the round 8 seeds behind North \
             (final margin -8; depth 9; line B)"
        );
        let m = GameState::new(Game::WalakPussa, Mode::Match, Side::South);
        let t = hint_text(&m, b, 0, false, 9, &[b]);
        assert!(
            t.contains("expected to hold even after the next round"),
            "{t}"
        );
        assert!(t.contains("holdings margin after the next round"), "{t}");
        let t = hint_text(&m, b, 3, false, 9, &[b]);
        assert!(
            t.contains("South is expected to hold 3 seeds more than North"),
            "{t}"
        );
        let t = hint_text(&m, b, 215, true, 9, &[b]);
        assert!(t.contains("South wins the match"), "{t}");
        // A move that wins the match with every seed of the round (63 to 0, the match 94 to
        // 4) is proven, and its value is the final holdings margin + 200, as the words say.
        let won: GameState = "7,7,7,7,7,7,7/x,x,x,x,x,7,7 31 4 S 3 raja-pasu"
            .parse::<pussa_rules::Setup>()
            .unwrap()
            .game_state(Mode::Match)
            .unwrap();
        let limits = pussa_engine::Limits {
            depth: Some(25),
            ..pussa_engine::Limits::default()
        };
        let r = pussa_engine::search(&won, &limits, &mut |_| {});
        let t = hint_text(&won, r.best.unwrap(), r.score, r.exact, r.depth, &r.pv);
        assert_eq!(
            t,
            "A: proven: with best play from both, South wins the match (match value +290: the \
             holdings margin after the next round, or the final holdings margin ±200 for a match \
             won or lost; depth 1; line A)"
        );
    }

    #[test]
    fn keys_are_told_and_the_help_opens() {
        let mut app = hotseat(Game::PasuPondi);
        for (k, name) in [
            (with(KeyCode::Char('z'), KeyModifiers::NONE), "z"),
            (with(KeyCode::Tab, KeyModifiers::NONE), "Tab"),
            (with(KeyCode::Up, KeyModifiers::NONE), "Up"),
            (with(KeyCode::Char('1'), KeyModifiers::NONE), "1"),
        ] {
            let act = app.key_action(k);
            assert_eq!(
                act,
                Action::Invalid(format!(
                    "unknown key {name}: A-G lift, u undo, h hint, ? help, q quit"
                ))
            );
        }
        app.apply(app.key_action(key('z')));
        assert!(screen(&app).contains("unknown key z"));
        // Enter in a single game says why it does nothing.
        let act = app.key_action(with(KeyCode::Enter, KeyModifiers::NONE));
        assert_eq!(
            act,
            Action::Invalid("Enter: a single game has no next round".into())
        );
        assert!(!app.keys_line().contains("Enter"), "{}", app.keys_line());
        // ? and F1 open the help; any key closes it.
        assert_eq!(app.key_action(key('?')), Action::Help);
        assert_eq!(
            app.key_action(with(KeyCode::F(1), KeyModifiers::NONE)),
            Action::Help
        );
        app.apply(Action::Help);
        let s = screen_of(&app, 100, 30);
        let words = s.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(words.contains("Pasu Pondi sows clockwise"), "{s}");
        assert!(words.contains("q or Esc quits"), "{s}");
        // At 80x24 all of it is on screen, up to the hint's meaning.
        let s = screen_of(&app, 80, 24);
        let words = s.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(words.contains("won or lost)."), "{s}");
        assert!(words.contains("final margin"), "{s}");
        assert_eq!(app.key_action(key('a')), Action::CloseHelp);
        app.apply(Action::CloseHelp);
        assert!(!screen(&app).contains("any key closes it"));
        // The key line: no "a key skips", and "any other key: skip animation" while one runs.
        assert!(!app.keys_line().contains("a key"));
        app.apply(Action::Move(Hole::from_letter('A').unwrap()));
        assert!(app
            .keys_line()
            .ends_with(" · any other key: skip animation"));
        assert!(!app.keys_line().contains("lift"), "{}", app.keys_line());
        // After the end: h says the game is over, Enter is not offered, n is.
        let setup: pussa_rules::Setup = "0,0,0,0,0,0,1/0,0,0,0,0,0,0 28 27 N 1 walak-pussa"
            .parse()
            .unwrap();
        let over = App::new(
            setup.game_state(Mode::Single).unwrap(),
            Side::South,
            Opponent::Hotseat,
        );
        assert!(over.state.is_over());
        assert_eq!(
            over.key_action(key('h')),
            Action::Invalid("the game is over: there is no move to hint".into())
        );
        assert_eq!(over.key_action(key('n')), Action::NewGame);
        assert_eq!(over.key_action(key('q')), Action::Quit);
        assert!(
            over.keys_line().starts_with("n new game"),
            "{}",
            over.keys_line()
        );
        // At a round's end Enter is offered.
        assert!(round_end_app(Side::South)
            .keys_line()
            .starts_with("Enter next round"));
    }

    /// The end-of-game status offers `u: undo` only when a move can be taken back, as the key
    /// line does (QA: it was offered after a `--position` whose game was already over).
    #[test]
    fn the_end_of_the_game_offers_undo_only_with_a_move_to_take_back() {
        let setup = |p: &str| p.parse::<pussa_rules::Setup>().unwrap();
        let over = App::new(
            setup("0,0,0,0,0,0,1/0,0,0,0,0,0,0 28 27 N 1 walak-pussa")
                .game_state(Mode::Single)
                .unwrap(),
            Side::South,
            Opponent::Hotseat,
        );
        assert!(over.state.is_over());
        let p = over.prompt();
        assert!(p.ends_with(" n: new game, q: quit."), "{p}");
        assert!(!p.contains("undo"), "{p}");
        assert!(!over.keys_line().contains("undo"));
        // One move from the end: after it, undo is offered by both.
        let mut app = App::new(
            setup("1,0,0,0,0,0,0/0,0,0,1,0,0,0 34 34 S 1 pasu-pondi")
                .game_state(Mode::Single)
                .unwrap(),
            Side::South,
            Opponent::Hotseat,
        );
        app.apply(Action::Move(Hole::from_letter('A').unwrap()));
        app.apply(Action::Skip);
        assert!(app.state.is_over(), "{}", app.prompt());
        let p = app.prompt();
        assert!(p.ends_with(" n: new game, u: undo, q: quit."), "{p}");
        assert!(app.keys_line().contains("u undo"));
    }

    #[test]
    fn the_move_list_breaks_between_entries() {
        let entries: Vec<String> = ["1. S A +6", "2. N f +7", "3. S B +9", "26. S E +31, N +16"]
            .iter()
            .map(|s| (*s).to_string())
            .collect();
        let lines = log_lines(&entries, 22);
        assert_eq!(
            lines,
            vec!["1. S A +6  2. N f +7", "3. S B +9", "26. S E +31, N +16"]
        );
        for w in 10..60 {
            for l in log_lines(&entries, w) {
                assert!(
                    entries.iter().any(|e| l.starts_with(e.as_str()))
                        && l.ends_with(|c: char| c.is_ascii_digit()),
                    "{w}: {l}"
                );
            }
        }
        assert_eq!(wrap_text("a bb ccc", 4), vec!["a bb", "ccc"]);
        assert_eq!(wrap_text("abcdefgh", 3), vec!["abc", "def", "gh"]);
        assert!(wrap_text("  ", 3).is_empty());
    }

    #[test]
    fn a_wide_terminal_centres_the_board_and_the_header_fits_80() {
        let app = hotseat(Game::RajaPasu);
        let s = screen_of(&app, 200, 30);
        let top = s.lines().find(|l| l.contains('┌')).unwrap();
        let left = top.chars().position(|c| c == '┌').unwrap();
        let right = top.chars().position(|c| c == '┐').unwrap();
        assert!(left > 40 && (199 - right).abs_diff(left) <= 1, "{s}");
        // A match late on, with closed holes: the header stays on one line of 80.
        let setup: pussa_rules::Setup = "x,x,x,x,x,7,7/7,7,7,7,7,7,7 1 34 S 12 raja-pasu"
            .parse()
            .unwrap();
        let app = App::new(
            setup.game_state(Mode::Match).unwrap(),
            Side::South,
            Opponent::Computer(Level::Beginner),
        );
        let s = screen_of(&app, 80, 24);
        let first = s.lines().next().unwrap();
        assert!(first.contains("closed: ABCDE"), "{s}");
    }

    /// Plays random moves (hotseat, laying out the next round at a round's end) until `stop`
    /// says so or the game ends.
    fn random_play(app: &mut App, seed: u64, stop: &mut dyn FnMut(&App) -> bool) {
        let mut rng = pussa_rules::Rng::new(seed);
        for _ in 0..20_000 {
            if stop(app) || app.state.is_over() {
                return;
            }
            if matches!(app.state.status(), Status::RoundOver { .. }) {
                app.apply(Action::NextRound);
                continue;
            }
            let moves = app.state.legal_moves();
            let mv = moves.nth(rng.below(moves.len() as u32) as usize).unwrap();
            app.apply(Action::Move(mv));
            app.apply(Action::Skip);
        }
    }

    /// The news line's "played" sentence gives what the move took, as the move list and
    /// `pussa replay` do: the sweep at the round's end is not added to it.
    #[test]
    fn the_news_of_a_move_leaves_out_the_round_end_sweep() {
        let mut swept_seen = 0;
        for game in [Game::WalakPussa, Game::RajaPasu, Game::PasuPondi] {
            for seed in 0..6 {
                let mut state = GameState::new(game, Mode::Match, Side::South);
                let mut rng = pussa_rules::Rng::new(seed);
                for _ in 0..3_000 {
                    if state.is_over() {
                        break;
                    }
                    if matches!(state.status(), Status::RoundOver { .. }) {
                        state.next_round();
                        continue;
                    }
                    let moves = state.legal_moves();
                    let mv = moves.nth(rng.below(moves.len() as u32) as usize).unwrap();
                    let before = state.clone();
                    let mut events = Vec::new();
                    let report = state.play_traced(mv, &mut events).unwrap();
                    let frames = sowing_frames(&before, mv, &events, &state, "X");
                    let caption = &frames.last().unwrap().caption;
                    let t = report.outcome.taken;
                    let want = format!(
                        "{} played {mv}: South +{}, North +{} (",
                        mv.owner(),
                        t[0],
                        t[1]
                    );
                    assert!(caption.starts_with(&want), "{caption} / {want}");
                    if events.iter().any(
                        |e| matches!(e, Event::RoundEnd { swept, .. } if swept[0] + swept[1] > 0),
                    ) {
                        swept_seen += 1;
                    }
                }
            }
        }
        assert!(swept_seen > 0, "no round ended with a sweep");
        // Two news sentences are two sentences.
        let mut app = hotseat(Game::WalakPussa);
        app.notice = Some("North played a: South +0, North +2 (1 lap)".into());
        app.add_notice("Game record saved to g.txt.");
        assert_eq!(
            app.notice.as_deref(),
            Some("North played a: South +0, North +2 (1 lap). Game record saved to g.txt.")
        );
    }

    /// Both sowing arrows are on screen in every layout, the narrow one (labels in the frame,
    /// hotseat's short names) included.
    #[test]
    fn both_arrows_show_in_a_narrow_hotseat_board() {
        for game in [Game::WalakPussa, Game::PasuPondi] {
            for app in [
                hotseat(game),
                App::new(
                    GameState::new(game, Mode::Single, Side::South),
                    Side::South,
                    Opponent::Computer(Level::Club),
                ),
            ] {
                for (w, h) in [(50, 14), (40, 14), (80, 24), (110, 24)] {
                    let s = screen_of(&app, w, h);
                    assert!(s.contains('←') && s.contains('→'), "{game} {w}x{h}:\n{s}");
                }
            }
        }
    }

    /// The key line offers `u undo` only when there is a move of yours to take back.
    #[test]
    fn the_key_line_offers_undo_only_when_it_applies() {
        let mut app = App::new(
            GameState::new(Game::WalakPussa, Mode::Single, Side::South),
            Side::South,
            Opponent::Computer(Level::Club),
        );
        assert!(!app.keys_line().contains("u undo"), "{}", app.keys_line());
        app.apply(Action::Move(Hole::from_letter('A').unwrap()));
        app.apply(Action::Skip);
        assert!(app.keys_line().contains("u undo"), "{}", app.keys_line());
        // The computer moved first: still nothing of yours to take back.
        let app = App::new(
            GameState::new(Game::WalakPussa, Mode::Single, Side::South),
            Side::North,
            Opponent::Computer(Level::Club),
        );
        let mut app = app;
        let mv = app.state.legal_moves().nth(0).unwrap();
        app.play(mv).unwrap();
        app.apply(Action::Skip);
        assert!(app.human_to_move());
        assert!(!app.keys_line().contains("u undo"), "{}", app.keys_line());
        let h = hotseat(Game::RajaPasu);
        assert!(!h.keys_line().contains("u undo"), "{}", h.keys_line());
    }

    /// At the smallest sizes a game is played at, the end of a round or of the game shows the
    /// status whole (who won, the holdings, "Press Enter"), giving up the move list, the news,
    /// the header and the board's frame first, instead of "terminal too small".
    #[test]
    fn the_end_of_a_round_or_game_is_readable_at_small_sizes() {
        let mut ends = 0;
        for game in [
            Game::WalakPussa,
            Game::RajaPasu,
            Game::PasuPondi,
            Game::PasuPondi6,
        ] {
            for (mode, seed) in [(Mode::Match, 3), (Mode::Match, 8), (Mode::Single, 5)] {
                let mut app = App::new(
                    GameState::new(game, mode, Side::South),
                    Side::South,
                    Opponent::Computer(Level::Club),
                );
                // Hotseat keys for both sides; the names stay the computer game's (longest).
                app.opponent = Opponent::Hotseat;
                let mut check = |a: &App| {
                    if matches!(a.state.status(), Status::Playing) {
                        return false;
                    }
                    let mut a = a.clone();
                    // The move's last frame has had its time on screen.
                    while a.tick() {}
                    a.opponent = Opponent::Computer(Level::Club);
                    a.status = a.prompt();
                    a.notice = Some("North played f: South +0, North +7 (1 lap)".into());
                    let want = a.status.split_whitespace().collect::<Vec<_>>().join(" ");
                    for (w, h) in [(40, 12), (40, 10), (60, 12), (80, 8)] {
                        let s = screen_of(&a, w, h);
                        let words = s.split_whitespace().collect::<Vec<_>>().join(" ");
                        assert!(!words.contains("too small"), "{w}x{h}:\n{s}");
                        assert!(words.contains(&want), "{w}x{h}: {want}\n{s}");
                    }
                    ends += 1;
                    false
                };
                random_play(&mut app, seed, &mut |a| {
                    check(a);
                    false
                });
                check(&app);
            }
        }
        assert!(ends > 10, "{ends}");
    }

    /// The help scrolls (arrows, page keys, j/k, Home/End) when it does not fit; any other
    /// key closes it. Its last paragraph can be reached at 40x12.
    #[test]
    fn the_help_scrolls_at_small_sizes() {
        let mut app = hotseat(Game::PasuPondi);
        app.apply(app.key_action(key('?')));
        assert!(app.help);
        let s = screen_of(&app, 40, 12);
        assert!(s.contains("PgDn: lines 1-10 of"), "{s}");
        assert!(!s.contains("won or lost"), "{s}");
        for k in [
            with(KeyCode::Down, KeyModifiers::NONE),
            key('j'),
            with(KeyCode::PageDown, KeyModifiers::NONE),
        ] {
            let a = app.key_action(k);
            assert!(matches!(a, Action::ScrollHelp(n) if n > 0), "{a:?}");
            app.apply(a);
            assert!(app.help);
        }
        assert_eq!(app.help_scroll, 10);
        app.apply(app.key_action(with(KeyCode::End, KeyModifiers::NONE)));
        let s = screen_of(&app, 40, 12);
        assert!(s.contains("again plays."), "{s}");
        // Scrolling stops at the end: one key up shows a line before it again.
        let end = app.help_scroll;
        app.apply(app.key_action(with(KeyCode::Down, KeyModifiers::NONE)));
        assert_eq!(app.help_scroll, end);
        app.apply(app.key_action(key('k')));
        assert_eq!(app.help_scroll, end - 1);
        app.apply(app.key_action(with(KeyCode::Home, KeyModifiers::NONE)));
        assert_eq!(app.help_scroll, 0);
        // Any other key closes it.
        assert_eq!(app.key_action(key('a')), Action::CloseHelp);
        // Where all of it fits, there is nothing to scroll.
        let s = screen_of(&app, 100, 40);
        assert!(
            s.contains("help: any key closes it") && !s.contains("PgDn: lines"),
            "{s}"
        );
    }

    /// `+` and `-` change the animation's speed (during the animation too); Ctrl-Z suspends.
    #[test]
    fn speed_keys_and_ctrl_z() {
        let mut app = hotseat(Game::WalakPussa);
        assert_eq!(app.delay, DEFAULT_DELAY);
        app.apply(app.key_action(key('+')));
        assert_eq!(app.delay, 250);
        assert_eq!(
            app.notice.as_deref(),
            Some("Animation: 250 ms a lap (+ faster, - slower).")
        );
        app.apply(app.key_action(key('-')));
        app.apply(app.key_action(key('-')));
        assert_eq!(app.delay, 500);
        app.apply(Action::Move(Hole::from_letter('A').unwrap()));
        assert!(!app.anim.is_empty());
        assert_eq!(app.key_action(key('+')), Action::Faster);
        assert_eq!(app.key_action(key('=')), Action::Faster);
        for _ in 0..20 {
            app.apply(Action::Faster);
        }
        assert_eq!(app.delay, 0);
        assert!(
            !app.anim.is_empty(),
            "a speed key does not skip the animation"
        );
        assert_eq!(
            app.notice.as_deref(),
            Some("Animation off (- to slow it down again).")
        );
        for _ in 0..20 {
            app.apply(Action::Slower);
        }
        assert_eq!(app.delay, 2000);
        // A --delay above the steps: - keeps it, + goes to the last step.
        app.delay = 5000;
        app.apply(Action::Slower);
        assert_eq!(app.delay, 5000);
        app.apply(Action::Faster);
        assert_eq!(app.delay, 2000);
        // The speed stays for the next game.
        app.restart(GameState::new(Game::WalakPussa, Mode::Single, Side::North));
        assert_eq!(app.delay, 2000);
        assert_eq!(
            app.key_action(with(KeyCode::Char('z'), KeyModifiers::CONTROL)),
            Action::Suspend
        );
        app.apply(Action::Help);
        assert_eq!(
            app.key_action(with(KeyCode::Char('z'), KeyModifiers::CONTROL)),
            Action::Suspend
        );
    }

    /// A key held down plays one move: its auto-repeat, reported as such (keyboard
    /// enhancement) or told by its timing, plays no other move (in a hotseat game it used to
    /// play the other player's hole); a new press does.
    #[test]
    fn a_held_key_plays_one_move() {
        use std::time::{Duration, Instant};
        let mut app = hotseat(Game::RajaPasu);
        let held = KeyEvent {
            kind: KeyEventKind::Repeat,
            ..key('G')
        };
        assert_eq!(app.key_action(held), Action::None);
        assert_eq!(
            app.key_action(KeyEvent {
                kind: KeyEventKind::Release,
                ..key('G')
            }),
            Action::None
        );
        // A modifier alone (the enhancement protocol reports it) is no key.
        assert_eq!(
            app.key_action(with(
                KeyCode::Modifier(ratatui::crossterm::event::ModifierKeyCode::LeftShift),
                KeyModifiers::SHIFT
            )),
            Action::None
        );
        app.apply(app.key_action(key('G')));
        assert_eq!(app.moves.len(), 1);
        // During the animation and on its last frame a repeat is nothing, not North's g.
        assert_eq!(app.key_action(held), Action::None);
        app.apply(Action::Skip);
        assert_eq!(app.key_action(held), Action::None);
        // The help scrolls on while an arrow is held.
        app.help = true;
        app.help_max.set(5);
        let down = KeyEvent {
            kind: KeyEventKind::Repeat,
            ..with(KeyCode::Down, KeyModifiers::NONE)
        };
        assert_eq!(app.key_action(down), Action::ScrollHelp(1));
        // Without key kinds the timing tells (the next tests).
        let mut r = KeyRepeat::default();
        let t = Instant::now();
        assert_eq!(
            r.classify(&held, t + Duration::from_secs(9)),
            KeyKind::Repeat
        );
    }

    /// Without key kinds, a held key's repeat stream (the same key within 100 ms of its
    /// previous event) is a repeat, whatever the key; a slower double tap is two presses.
    #[test]
    fn a_repeat_stream_is_told_from_presses() {
        use std::time::{Duration, Instant};
        let ms = Duration::from_millis;
        let mut r = KeyRepeat::default();
        let t = Instant::now();
        for k in ['u', 'q', '?', '+', 'n', 'G'] {
            let t = t + Duration::from_secs(u64::from(u32::from(k)));
            assert_eq!(r.classify(&key(k), t), KeyKind::Press, "{k}");
            // A held key: at once (tmux sends a held key's letters together), then every 30 ms.
            assert_eq!(r.classify(&key(k), t), KeyKind::Repeat, "{k}");
            assert_eq!(r.classify(&key(k), t + ms(30)), KeyKind::Repeat, "{k}");
            assert_eq!(r.classify(&key(k), t + ms(130)), KeyKind::Repeat, "{k}");
            // Let go, and pressed again 150 ms later: a press.
            assert_eq!(r.classify(&key(k), t + ms(280)), KeyKind::Press, "{k}");
        }
        let enter = with(KeyCode::Enter, KeyModifiers::NONE);
        assert_eq!(r.classify(&enter, t), KeyKind::Press);
        assert_eq!(r.classify(&enter, t + ms(50)), KeyKind::Repeat);
        // Another key between: a press.
        assert_eq!(r.classify(&key('a'), t + ms(60)), KeyKind::Press);
        assert_eq!(r.classify(&enter, t + ms(70)), KeyKind::Press);
        // A release, and a modifier alone, are no keys and leave the stream as it was.
        let up = KeyEvent {
            kind: KeyEventKind::Release,
            ..enter
        };
        assert_eq!(r.classify(&up, t + ms(80)), KeyKind::Press);
        assert_eq!(r.classify(&enter, t + ms(90)), KeyKind::Repeat);
    }

    /// Without key kinds, a held key's first repeat (after the keyboard's delay) looks like a
    /// press: the same key as the press that played the last move, nothing between, within
    /// 600 ms of it, is doubtful (no move; the next press plays). A key that played no move
    /// (it skipped an animation) makes nothing doubtful.
    #[test]
    fn a_first_repeat_after_a_move_is_doubtful() {
        use std::time::{Duration, Instant};
        let ms = Duration::from_millis;
        let t = Instant::now();
        // Hotseat: South's a plays; a at 500 ms may be its first repeat, then the stream.
        let mut r = KeyRepeat::default();
        assert_eq!(r.classify(&key('a'), t), KeyKind::Press);
        r.played(&key('a'), t);
        assert_eq!(r.classify(&key('a'), t + ms(500)), KeyKind::Doubtful);
        r.forget_played();
        assert_eq!(r.classify(&key('a'), t + ms(530)), KeyKind::Repeat);
        // North's deliberate double tap: the first is doubtful, the second plays.
        let mut r = KeyRepeat::default();
        assert_eq!(r.classify(&key('a'), t), KeyKind::Press);
        r.played(&key('a'), t);
        assert_eq!(r.classify(&key('a'), t + ms(450)), KeyKind::Doubtful);
        r.forget_played();
        assert_eq!(r.classify(&key('a'), t + ms(600)), KeyKind::Press);
        // Later than 600 ms: a press.
        let mut r = KeyRepeat::default();
        assert_eq!(r.classify(&key('a'), t), KeyKind::Press);
        r.played(&key('a'), t);
        assert_eq!(r.classify(&key('a'), t + ms(700)), KeyKind::Press);
        // Another key between (a held key stops repeating when another is pressed): a press.
        let mut r = KeyRepeat::default();
        assert_eq!(r.classify(&key('a'), t), KeyKind::Press);
        r.played(&key('a'), t);
        assert_eq!(r.classify(&key('h'), t + ms(200)), KeyKind::Press);
        assert_eq!(r.classify(&key('a'), t + ms(400)), KeyKind::Press);
        // The skip, then the play (defect 1a): G skipped the computer's animation and played
        // nothing, so G 500 ms later plays.
        let mut r = KeyRepeat::default();
        assert_eq!(r.classify(&key('G'), t), KeyKind::Press);
        assert_eq!(r.classify(&key('G'), t + ms(500)), KeyKind::Press);
    }

    /// At 40×12, a size the game is played at, a lap whose caption wraps to five lines cuts the
    /// caption with `…` and keeps the board (the whole screen used to say "terminal too small").
    #[test]
    fn a_long_caption_is_cut_on_a_small_terminal() {
        let mut app = App::new(
            GameState::new(Game::RajaPasu, Mode::Match, Side::South),
            Side::South,
            Opponent::Hotseat,
        );
        for m in ["B", "f", "C"] {
            app.apply(Action::Move(
                Hole::from_letter(m.chars().next().unwrap()).unwrap(),
            ));
            app.apply(Action::Skip);
            app.tick();
        }
        app.apply(Action::Move(Hole::from_letter('d').unwrap()));
        while app
            .anim
            .front()
            .is_some_and(|f| f.caption.matches("four at").count() < 6)
        {
            app.tick();
        }
        app.tick();
        let caption = app.shown.clone().unwrap().caption;
        assert!(wrap_text(&caption, 40).len() >= 5, "{caption}");
        let s = screen_of(&app, 40, 12);
        assert!(!s.contains("too small"), "{s}");
        assert!(s.contains("  A   B   C   D   E   F   G"), "{s}");
        assert!(
            s.contains("lap 3 sown (four at D for South") && s.contains('…'),
            "{s}"
        );
        // Whole where it fits.
        let s = screen_of(&app, 100, 30);
        assert!(s.contains("sowing ends") && !s.contains('…'), "{s}");
        // Below the board's own room the screen still says how much it needs.
        let s = screen_of(&app, 40, 8);
        assert!(s.contains("too small: need at least 40×"), "{s}");
    }

    /// The news keeps both the computer's move and the endgame tables' word, whichever came
    /// first (the second used to wipe the first).
    #[test]
    fn the_tables_news_and_the_computers_move_share_the_news_line() {
        let mut app = App::new(
            GameState::new(Game::WalakPussa, Mode::Single, Side::North),
            Side::South,
            Opponent::Computer(Level::Club),
        );
        app.add_notice("endgame tables of walak-pussa (up to 10 seeds) in use");
        app.play(Hole::from_letter('b').unwrap()).unwrap();
        while app.tick() {}
        let n = app.notice.clone().unwrap();
        assert!(
            n.starts_with("endgame tables of walak-pussa (up to 10 seeds) in use. North played b:"),
            "{n}"
        );
        // The other order: the tables are verified after the move.
        let mut app = App::new(
            GameState::new(Game::WalakPussa, Mode::Single, Side::North),
            Side::South,
            Opponent::Computer(Level::Club),
        );
        app.play(Hole::from_letter('b').unwrap()).unwrap();
        while app.tick() {}
        app.add_notice("endgame tables of walak-pussa (up to 14 seeds) in use");
        let n = app.notice.clone().unwrap();
        assert!(n.starts_with("North played b: "), "{n}");
        assert!(
            n.ends_with(". endgame tables of walak-pussa (up to 14 seeds) in use"),
            "{n}"
        );
        let s = screen_of(&app, 100, 30);
        assert!(
            s.contains("North played b") && s.contains("(up to 14 seeds) in use"),
            "{s}"
        );
    }

    /// Enter or Space once a match is over says that it is over, not "once this one is over".
    #[test]
    fn enter_after_the_match_is_over_says_so() {
        let setup: pussa_rules::Setup = "x,x,x,x,x,0,0/0,0,0,0,0,0,2 4 92 S 7 raja-pasu"
            .parse()
            .unwrap();
        let app = App::new(
            setup.game_state(Mode::Match).unwrap(),
            Side::South,
            Opponent::Hotseat,
        );
        assert!(app.state.is_over());
        for k in [with(KeyCode::Enter, KeyModifiers::NONE), key(' ')] {
            let Action::Invalid(why) = app.key_action(k) else {
                panic!("{k:?}")
            };
            assert!(
                why.ends_with(
                    "the match is over, there is no next round; n for a new game, q to quit"
                ) && !why.contains("once this one is over"),
                "{why}"
            );
        }
    }

    /// A help panel that fits closes with any key, as its title says (the scrolling keys,
    /// Space among them, used to leave it up); Space is no scrolling key either way.
    #[test]
    fn a_help_panel_that_fits_closes_with_any_key() {
        let keys = [
            key('j'),
            key('k'),
            key(' '),
            with(KeyCode::Down, KeyModifiers::NONE),
            with(KeyCode::Up, KeyModifiers::NONE),
            with(KeyCode::PageDown, KeyModifiers::NONE),
            with(KeyCode::PageUp, KeyModifiers::NONE),
            with(KeyCode::Home, KeyModifiers::NONE),
            with(KeyCode::End, KeyModifiers::NONE),
        ];
        let mut app = hotseat(Game::WalakPussa);
        for k in keys {
            app.apply(Action::Help);
            let s = screen_of(&app, 100, 40);
            assert!(s.contains("help: any key closes it"), "{s}");
            app.apply(app.key_action(k));
            assert!(!app.help, "{k:?} left the help up");
        }
        // Where it scrolls, Space closes it too.
        app.apply(Action::Help);
        let s = screen_of(&app, 40, 12);
        assert!(s.contains("any other key closes it"), "{s}");
        assert_eq!(app.key_action(key(' ')), Action::CloseHelp);
        assert_eq!(app.key_action(key('j')), Action::ScrollHelp(1));
    }
}
