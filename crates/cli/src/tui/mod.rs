//! The terminal UI of `pussa play`, as pure parts: the [`App`] state, keys → [`Action`]s,
//! the sowing animation as [`Frame`]s built from a move's trace, and [`render`] (state →
//! widgets). `cmd_play` only adds the terminal, the clock and the computer's thread.

use std::collections::VecDeque;

use pussa_engine::Level;
use pussa_rules::{EndReason, Event, GameState, Hole, Mode, Side, Status};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::layout::{Constraint, Layout};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

/// Who plays against the human at `seat`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opponent {
    /// The computer at this level.
    Computer(Level),
    /// Two people at one keyboard.
    Hotseat,
}

/// What a key asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
    /// A key that means nothing now; the text says why.
    Invalid(&'static str),
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

/// Builds the animation of one move, lap by lap, from the board before it and its events.
/// The last frame always shows `after`.
#[must_use]
pub fn sowing_frames(
    before: &GameState,
    mv: Hole,
    events: &[Event],
    after: &GameState,
) -> Vec<Frame> {
    let pos = before.position();
    let mut board = pos.board();
    let closed = pos.closed_mask();
    let mut stores = pos.stores();
    let mover = mv.owner();
    let mut frames = Vec::new();
    let mut lap = 0;
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
    let taken = stores_gain(pos.stores(), p.stores());
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
        EndReason::NoLegalMove { stuck } => format!("{stuck} has no legal move"),
    }
}

/// The whole state of the terminal UI.
#[derive(Clone, Debug)]
pub struct App {
    /// The game.
    pub state: GameState,
    /// The seat the board is drawn from (the human's, with a computer opponent).
    pub seat: Side,
    /// Who the human plays against.
    pub opponent: Opponent,
    /// States before each move, for undo.
    pub undo: Vec<(GameState, usize)>,
    /// Moves played, as text.
    pub log: Vec<String>,
    /// Frames still to show.
    pub anim: VecDeque<Frame>,
    /// The frame on screen while animating.
    pub shown: Option<Frame>,
    /// The line under the board: what to do now (or the animation's caption).
    pub status: String,
    /// News that stays on screen until the human's next move: the round just laid out, a move
    /// refused, the endgame tables ready. Kept apart from the prompt so that neither hides
    /// the other.
    pub notice: Option<String>,
    /// The last hint.
    pub hint: Option<String>,
    /// The computer is thinking (or a hint is being computed).
    pub busy: bool,
    /// Bumped whenever the state changes, so that late answers of the computer are dropped.
    pub generation: u64,
    /// Set by `q`.
    pub quit: bool,
}

impl App {
    /// A new game.
    #[must_use]
    pub fn new(state: GameState, seat: Side, opponent: Opponent) -> App {
        let mut app = App {
            state,
            seat,
            opponent,
            undo: Vec::new(),
            log: Vec::new(),
            anim: VecDeque::new(),
            shown: None,
            status: String::new(),
            notice: None,
            hint: None,
            busy: false,
            generation: 0,
            quit: false,
        };
        app.status = app.prompt();
        app
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

    /// What the player should do now.
    #[must_use]
    pub fn prompt(&self) -> String {
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
            } => format!(
                "Round {} over ({}): South took {}, North {}. {} starts the next. Press Enter.",
                result.round,
                reason_text(result.reason),
                result.taken[0],
                result.taken[1],
                next_starter
            ),
            Status::Over { result, winner } => {
                let w = match winner {
                    Some(w) => format!("{} wins", self.player_name(w)),
                    None => "a draw".to_string(),
                };
                let what = if self.state.mode() == Mode::Match {
                    "Match"
                } else {
                    "Game"
                };
                // A match's result is what each player holds in the end, not the last round.
                let held = if self.state.mode() == Mode::Match {
                    let st = self.state.position().stores();
                    format!(" (holding South {}, North {})", st[0], st[1])
                } else {
                    String::new()
                };
                format!(
                    "{what} over ({}): South took {}, North {} this round: {w}{held}. u: undo, q: quit.",
                    reason_text(result.reason),
                    result.taken[0],
                    result.taken[1]
                )
            }
        }
    }

    /// Plays `mv` for the side to move, queueing its animation.
    ///
    /// # Errors
    /// The move is illegal (the message names it and why).
    pub fn play(&mut self, mv: Hole) -> Result<(), String> {
        let before = self.state.clone();
        let by_human = self.human_to_move();
        // What was on screen is done with: the new move is drawn from here.
        self.anim.clear();
        self.shown = None;
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
        if by_human {
            self.notice = None;
        }
        let taken = report.outcome.taken;
        let mover = mv.owner();
        self.log.push(format!(
            "{}{}. {} {mv}{}",
            if new_round {
                format!("R{} ", before.round())
            } else {
                String::new()
            },
            self.log.len() + 1,
            mover.letter(),
            gains(taken, mover)
        ));
        self.anim
            .extend(sowing_frames(&before, mv, &events, &self.state));
        self.hint = None;
        self.generation += 1;
        self.busy = false;
        self.status = self.prompt();
        Ok(())
    }

    /// Shows the next animation frame; returns false when there was none.
    pub fn tick(&mut self) -> bool {
        match self.anim.pop_front() {
            Some(f) => {
                self.shown = Some(f);
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

    /// Maps a key to what it asks for now.
    #[must_use]
    pub fn key_action(&self, key: KeyEvent) -> Action {
        if key.kind != KeyEventKind::Press && key.kind != KeyEventKind::Repeat {
            return Action::None;
        }
        if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
            return Action::Quit;
        }
        match key.code {
            KeyCode::Char('q' | 'Q') | KeyCode::Esc => Action::Quit,
            KeyCode::Char('u' | 'U') | KeyCode::Backspace => {
                // Against the computer undo goes back to your last turn: there must be one.
                let yours = match self.opponent {
                    Opponent::Computer(_) => self
                        .undo
                        .iter()
                        .any(|(s, _)| s.to_move() == Some(self.seat)),
                    Opponent::Hotseat => !self.undo.is_empty(),
                };
                if yours {
                    Action::Undo
                } else {
                    Action::Invalid("nothing to undo: you have not moved yet")
                }
            }
            KeyCode::Char('h' | 'H' | '?') => {
                if self.state.to_move().is_some() && self.human_to_move() {
                    Action::Hint
                } else {
                    Action::Invalid("a hint is for your own turn")
                }
            }
            _ if !self.anim.is_empty() => Action::Skip,
            KeyCode::Enter | KeyCode::Char(' ') | KeyCode::Char('n' | 'N') => {
                if matches!(self.state.status(), Status::RoundOver { .. }) {
                    Action::NextRound
                } else {
                    Action::None
                }
            }
            KeyCode::Char(c @ ('a'..='g' | 'A'..='G')) => {
                if !self.human_to_move() {
                    return Action::Invalid(if self.state.to_move().is_some() {
                        "wait: it is the computer's turn"
                    } else {
                        "no move now"
                    });
                }
                let side = self.state.position().to_move();
                let col = (c.to_ascii_lowercase() as u8 - b'a') as usize;
                Action::Move(Hole::of_side(side, col))
            }
            _ => Action::None,
        }
    }

    /// Applies an action that needs no engine (everything but [`Action::Hint`]).
    pub fn apply(&mut self, action: Action) {
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
                self.anim.clear();
                self.shown = None;
                let mut events = Vec::new();
                if self.state.next_round_traced(&mut events) {
                    self.generation += 1;
                    let closed = self.state.position().closed_mask();
                    let names: String = Hole::ALL
                        .iter()
                        .filter(|h| closed & (1 << h.index()) != 0)
                        .map(|h| h.letter())
                        .collect();
                    let circle = match self.state.repeats_round() {
                        Some(r) => format!(
                            " It starts exactly as round {r} did (the same seeds held, the same \
                             starter): the match is going round in a circle."
                        ),
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
                }
            }
            Action::Quit => self.quit = true,
            Action::Invalid(why) => {
                self.notice = Some(format!("{why}."));
                if self.shown.is_none() {
                    self.status = self.prompt();
                }
            }
            Action::Hint | Action::None => {}
        }
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
        self.log.truncate(len);
        self.anim.clear();
        self.shown = None;
        self.hint = None;
        self.busy = false;
        self.generation += 1;
        self.notice = Some("Taken back.".into());
        self.status = self.prompt();
    }
}

/// What a move took, as the move list shows it: the mover's gain, and the other player's
/// when the move handed them seeds too (fours of their holes): ` +13`, ` +13, S +12`, ` N +4`.
fn gains(taken: [u8; 2], mover: Side) -> String {
    let (mine, theirs) = (taken[mover.index()], taken[mover.other().index()]);
    let other = mover.other().letter();
    match (mine, theirs) {
        (0, 0) => String::new(),
        (m, 0) => format!(" +{m}"),
        (0, t) => format!(" {other} +{t}"),
        (m, t) => format!(" +{m}, {other} +{t}"),
    }
}

/// The cell of one hole.
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
const ROW_WIDTH: usize = 4 + 7 * 4;

/// Columns between a row and its label.
const LABEL_GAP: usize = 3;

/// The label of `side`'s row: its player and the seeds they hold.
fn holds(frame: &Frame, names: &[String; 2], side: Side) -> String {
    format!(
        "{} holds {}",
        names[side.index()],
        frame.stores[side.index()]
    )
}

/// Whether the board, each row with its label beside it, fits in `width` columns; if not the
/// labels go above and below the board (see [`board_lines`]). Holdings are counted at three
/// digits, so the layout does not change while a game goes on.
#[must_use]
pub fn labels_beside(names: &[String; 2], width: u16) -> bool {
    let label = names.iter().map(|n| n.chars().count()).max().unwrap_or(0) + " holds 999".len();
    ROW_WIDTH + LABEL_GAP + label <= usize::from(width)
}

/// The board as lines, seen from `seat`: the seat's own row at the bottom, from its owner's
/// left to right; the opponent's row on top, reversed (as it lies across the board). Each
/// row's player and holding stand beside it when `beside`, else on a line of their own above
/// the board (the opponent) and below it (the seat), so a narrow terminal cuts nothing.
#[must_use]
pub fn board_lines(
    frame: &Frame,
    seat: Side,
    names: [String; 2],
    beside: bool,
) -> Vec<Line<'static>> {
    let me = seat;
    let them = seat.other();
    let top: Vec<Hole> = (0..7).rev().map(|k| Hole::of_side(them, k)).collect();
    let bottom: Vec<Hole> = (0..7).map(|k| Hole::of_side(me, k)).collect();
    let labels = |holes: &[Hole]| -> Line<'static> {
        let mut s = String::from("     ");
        for h in holes {
            s.push_str(&format!("{:>3} ", h.letter()));
        }
        Line::from(Span::styled(s, Style::default().fg(Color::Cyan)))
    };
    let row = |holes: &[Hole], side: Side| -> Line<'static> {
        let mut spans = vec![Span::raw(format!("  {} ", side.letter()))];
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
    let own_line = |side: Side| -> Line<'static> {
        Line::from(Span::styled(
            format!(" {}", holds(frame, &names, side)),
            Style::default().add_modifier(Modifier::BOLD),
        ))
    };
    let board = [
        labels(&top),
        row(&top, them),
        row(&bottom, me),
        labels(&bottom),
    ];
    if beside {
        board.into()
    } else {
        let mut lines = vec![own_line(them)];
        lines.extend(board);
        lines.push(own_line(me));
        lines
    }
}

/// The frame to draw: the animation's, or the current state.
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
                focus: Vec::new(),
            }
        }
    }
}

/// Draws the whole UI.
pub fn render(app: &App, f: &mut ratatui::Frame) {
    let area = f.area();
    let st = &app.state;
    // Seeds taken this round as the frame on screen shows them (the animation runs behind the
    // state): the stores at the round's start are the state's stores less what it took.
    let frame = current_frame(app);
    let names = [app.player_name(Side::South), app.player_name(Side::North)];
    // In a narrow terminal the players' labels get lines of their own, and the header and the
    // keys wrap, rather than being cut at the edge.
    let beside = labels_beside(&names, area.width.saturating_sub(2));
    let now = st.position().stores();
    let done = st.taken_this_round();
    let taken = [0, 1].map(|i| frame.stores[i].saturating_sub(now[i] - done[i]));
    let closed = st.position().closed_mask();
    let closed_names: String = Hole::ALL
        .iter()
        .filter(|h| closed & (1 << h.index()) != 0)
        .map(|h| h.letter())
        .collect();
    let header = format!(
        " {} · {} · round {} · taken this round: South {}, North {}{}",
        st.game().title(),
        if st.mode() == Mode::Match {
            "match"
        } else {
            "single game"
        },
        st.round(),
        taken[0],
        taken[1],
        if closed_names.is_empty() {
            String::new()
        } else {
            format!(" · closed: {closed_names}")
        }
    );
    let keys = " A-G/a-g move · u undo · h hint · Enter next round · a key skips · q quit";
    let lines_of = |text: &str| -> u16 {
        let w = usize::from(area.width.max(1));
        u16::try_from(text.chars().count().div_ceil(w).clamp(1, 3)).unwrap_or(3)
    };
    let chunks = Layout::vertical([
        Constraint::Length(lines_of(&header)),
        Constraint::Length(if beside { 6 } else { 8 }),
        Constraint::Length(5),
        Constraint::Min(2),
        Constraint::Length(lines_of(keys)),
    ])
    .split(area);
    f.render_widget(
        Paragraph::new(header)
            .wrap(Wrap { trim: true })
            .style(Style::default().add_modifier(Modifier::BOLD)),
        chunks[0],
    );
    let board = Paragraph::new(board_lines(&frame, app.seat, names, beside))
        .block(Block::default().borders(Borders::ALL).title(" board "));
    f.render_widget(board, chunks[1]);
    // Three parts, each with its own lines, so that none hides another: what to do now (or the
    // animation's caption), the hint, and the news.
    let parts = Layout::vertical([
        Constraint::Length(2),
        Constraint::Length(if app.hint.is_some() { 1 } else { 0 }),
        Constraint::Min(1),
    ])
    .split(chunks[2]);
    let now_line = if frame.caption.is_empty() {
        app.status.clone()
    } else {
        frame.caption.clone()
    };
    f.render_widget(Paragraph::new(now_line).wrap(Wrap { trim: true }), parts[0]);
    if let Some(h) = &app.hint {
        f.render_widget(
            Paragraph::new(format!("hint: {h}")).style(Style::default().fg(Color::Green)),
            parts[1],
        );
    }
    if let Some(n) = &app.notice {
        f.render_widget(
            Paragraph::new(n.as_str())
                .wrap(Wrap { trim: true })
                .style(Style::default().fg(Color::Yellow)),
            parts[2],
        );
    }
    // As many of the newest moves as the area holds (about 11 columns a move), so the last
    // ones are always in sight.
    let fit = (usize::from(chunks[3].width) / 11).max(1)
        * usize::from(chunks[3].height.saturating_sub(1)).max(1);
    let log = app
        .log
        .iter()
        .rev()
        .take(fit.min(200))
        .rev()
        .cloned()
        .collect::<Vec<_>>()
        .join("  ");
    f.render_widget(
        Paragraph::new(log)
            .wrap(Wrap { trim: true })
            .block(Block::default().borders(Borders::TOP).title(" moves ")),
        chunks[3],
    );
    f.render_widget(
        Paragraph::new(keys)
            .wrap(Wrap { trim: true })
            .style(Style::default().fg(Color::DarkGray)),
        chunks[4],
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
        assert_eq!(app.key_action(key('q')), Action::Quit);
        assert_eq!(app.key_action(key('u')), Action::Undo);
        assert_eq!(app.key_action(key('x')), Action::None);
    }

    #[test]
    fn during_the_animation_keys_skip_it_but_hint_and_undo_work() {
        let mut app = hotseat(Game::WalakPussa);
        app.apply(Action::Move(Hole::from_letter('A').unwrap()));
        assert!(!app.anim.is_empty());
        assert_eq!(app.key_action(key('c')), Action::Skip);
        assert_eq!(app.key_action(key('h')), Action::Hint);
        assert_eq!(app.key_action(key('u')), Action::Undo);
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
        // The first lap: A's 4 seeds went to B..E (now 5 each), A is empty.
        assert_eq!(&frames[0].board[..5], &[0, 5, 5, 5, 5]);
        // On screen, the header follows the animation, not the state already played.
        app.tick();
        assert!(screen(&app).contains("taken this round: South 0, North 0"));
        while app.tick() {}
        assert!(app.shown.is_none());
        assert!(screen(&app).contains("taken this round: South 6, North 0"));
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
        assert_eq!(app.log.len(), 2);
        app.apply(Action::Undo);
        assert_eq!(app.state, start);
        assert!(app.log.is_empty());
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
        assert!(
            p.starts_with("Match over")
                && p.contains(&format!("(holding South {}, North {})", st[0], st[1])),
            "{p}"
        );
    }

    #[test]
    fn the_move_list_tells_both_players_gains() {
        assert_eq!(gains([0, 0], Side::South), "");
        assert_eq!(gains([11, 0], Side::South), " +11");
        assert_eq!(gains([12, 13], Side::North), " +13, S +12");
        assert_eq!(gains([4, 0], Side::North), " S +4");
        // Raja Pasu's G from the start: South takes 11 and hands North 8 (the contract's
        // worked move).
        let mut app = hotseat(Game::RajaPasu);
        app.apply(Action::Move(Hole::from_letter('G').unwrap()));
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
        assert!(matches!(
            app.key_action(key('u')),
            Action::Invalid("nothing to undo: you have not moved yet")
        ));
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
        assert!(s.contains("Pasu Pondi · single game · round 1"), "{s}");
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
        assert!(n_row.contains("  N   7   7"), "{s}");
        // At 40 columns: the labels whole, on lines of their own, North's above the board and
        // South's below it; the header and the keys are wrapped, not cut.
        let s = screen_of(&app, 40, 30);
        let lines: Vec<&str> = s.lines().collect();
        let at = |needle: &str| lines.iter().position(|l| l.contains(needle));
        let n = at(&format!("{north} holds 0")).unwrap_or_else(|| panic!("{north}:\n{s}"));
        let s_at = at(&format!("{south} holds 0")).unwrap_or_else(|| panic!("{south}:\n{s}"));
        let n_row = at("  N   7   7").expect("North's row");
        let s_row = at("  S   7   7").expect("South's row");
        assert!(n < n_row && n_row < s_row && s_row < s_at, "{s}");
        let joined = lines.join(" ");
        let words = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            words(&joined).contains("taken this round: South 0, North 0"),
            "{s}"
        );
        assert!(words(&joined).contains("a key skips · q quit"), "{s}");
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
        assert!(app.status.contains("Round 1 over"), "{}", app.status);
        assert_eq!(
            app.key_action(KeyEvent::from(KeyCode::Enter)),
            Action::NextRound
        );
        app.apply(Action::NextRound);
        assert_eq!(app.state.round(), 2);
        let s = screen(&app);
        assert!(s.contains("round 2"), "{s}");
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
}
