//! `pussa play`: play in the terminal (ratatui) against the computer or a friend.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::Context;
use pussa_engine::{choose_move, search, Level, Limits};
use pussa_rules::{Game, GameState, Hole, Mode, Side};
use ratatui::crossterm::event::{self, Event};

use crate::tui::{render, Action, App, Opponent};

/// Arguments of `pussa play`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The game: walak-pussa, raja-pasu, pasu-pondi, pasu-pondi-6.
    #[arg(long, default_value = "walak-pussa")]
    pub game: String,
    /// Play a match (several rounds, closed holes) instead of a single game.
    #[arg(long = "match")]
    pub match_mode: bool,
    /// The computer's level (see `pussa levels` or the README).
    #[arg(long, default_value = "club", conflicts_with = "hotseat")]
    pub level: String,
    /// Two people at one keyboard, no computer.
    #[arg(long)]
    pub hotseat: bool,
    /// Who moves first: S or N.
    #[arg(long, default_value = "S")]
    pub first: String,
    /// Your seat (the board is drawn from it): S or N.
    #[arg(long, default_value = "S")]
    pub seat: String,
    /// Milliseconds per lap of the sowing animation (0: no animation; at most 10000).
    #[arg(long, default_value_t = 350, value_parser = clap::value_parser!(u64).range(0..=10_000))]
    pub delay: u64,
    /// Seed of the computer's choices.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}

/// What a background thread found.
enum Answer {
    Move(u64, Option<Hole>),
    Hint(u64, String),
}

/// Runs the terminal UI until `q`.
///
/// # Errors
/// Bad arguments, or a terminal that cannot be set up.
pub fn run(args: Args) -> anyhow::Result<()> {
    let game: Game = args.game.parse()?;
    let first = Side::parse(&args.first)?;
    let seat = Side::parse(&args.seat)?;
    let opponent = if args.hotseat {
        Opponent::Hotseat
    } else {
        Opponent::Computer(args.level.parse::<Level>()?)
    };
    let mode = if args.match_mode {
        Mode::Match
    } else {
        Mode::Single
    };
    let mut app = App::new(GameState::new(game, mode, first), seat, opponent);
    let mut terminal = ratatui::try_init().context("cannot set up the terminal")?;
    let result = event_loop(&mut terminal, &mut app, &args);
    ratatui::restore();
    result
}

fn event_loop(
    terminal: &mut ratatui::DefaultTerminal,
    app: &mut App,
    args: &Args,
) -> anyhow::Result<()> {
    let (tx, rx) = mpsc::channel::<Answer>();
    let delay = Duration::from_millis(args.delay);
    let mut next_frame = Instant::now();
    let mut seed = args.seed;
    while !app.quit {
        // Animation clock.
        if Instant::now() >= next_frame && (!app.anim.is_empty() || app.shown.is_some()) {
            if args.delay == 0 {
                app.apply(Action::Skip);
            }
            app.tick();
            next_frame = Instant::now() + delay;
        }
        // The computer's turn: think off the UI thread.
        if app.computer_to_move() && app.shown.is_none() && !app.busy {
            if let Opponent::Computer(level) = app.opponent {
                app.busy = true;
                let state = app.state.clone();
                let generation = app.generation;
                let tx = tx.clone();
                seed = seed.wrapping_add(1);
                let s = seed;
                std::thread::spawn(move || {
                    let _ = tx.send(Answer::Move(generation, choose_move(&state, level, s)));
                });
            }
        }
        while let Ok(answer) = rx.try_recv() {
            match answer {
                Answer::Move(g, Some(mv)) if g == app.generation => {
                    if let Err(e) = app.play(mv) {
                        app.status = format!("the computer failed: {e}");
                    }
                    next_frame = Instant::now();
                }
                Answer::Move(g, None) if g == app.generation => app.busy = false,
                Answer::Hint(g, text) if g == app.generation => {
                    app.hint = Some(text);
                    app.busy = false;
                }
                _ => {}
            }
        }
        terminal.draw(|f| render(app, f))?;
        if event::poll(Duration::from_millis(30))? {
            if let Event::Key(key) = event::read()? {
                let action = app.key_action(key);
                match action {
                    Action::Hint => {
                        if !app.busy {
                            app.busy = true;
                            app.hint = Some("thinking…".into());
                            let state = app.state.clone();
                            let generation = app.generation;
                            let tx = tx.clone();
                            std::thread::spawn(move || {
                                let limits = Limits {
                                    movetime: Some(Duration::from_millis(500)),
                                    ..Limits::default()
                                };
                                let r = search(&state, &limits, &mut |_| {});
                                let text = match r.best {
                                    Some(mv) => {
                                        let pv: Vec<String> =
                                            r.pv.iter().map(|h| h.letter().to_string()).collect();
                                        format!(
                                            "{mv}, worth {:+} seeds{} (depth {}; line {})",
                                            r.score,
                                            if r.exact { " exactly" } else { "" },
                                            r.depth,
                                            pv.join(" ")
                                        )
                                    }
                                    None => "no move".into(),
                                };
                                let _ = tx.send(Answer::Hint(generation, text));
                            });
                        }
                    }
                    Action::Move(_) => {
                        app.apply(action);
                        next_frame = Instant::now();
                    }
                    other => app.apply(other),
                }
            }
        }
    }
    Ok(())
}
