//! `pussa play`: play in the terminal (ratatui) against the computer or a friend.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use anyhow::Context;
use pussa_egtb::LazyTablesOracle;
use pussa_engine::{choose_move_with_oracle, search, ExactOracle, Level, Limits};
use pussa_rules::record::Record;
use pussa_rules::{Game, GameState, Hole, Mode, Setup, Side};
use ratatui::crossterm::event::{self, Event};

use crate::tui::{hint_text, key_name, render, Action, App, KeyKind, KeyRepeat, Opponent};

/// The keys, as `pussa play --help` lists them.
const KEYS_HELP: &str = "Keys:\n  \
A-G (either case)  lift one of your holes (the side to move's, in a hotseat game); a key\n                     \
held down acts once: its auto-repeat plays no move (without a terminal that\n                     \
reports repeats: the same key within 100 ms does nothing; the letter that\n                     \
played the last move, again within 600 ms, plays no move and the news says\n                     \
so: press it again to play)\n  \
any key            during the sowing animation: show the rest of the move at once\n  \
u or Backspace     take back your last move (against the computer: back to your turn)\n  \
h                  hint: the engine's best move and its value (proven, or an estimate at\n                     \
a depth)\n  \
+ or -             faster or slower sowing animation (also during it, for the lap on screen\n                     \
too; - from off turns it on)\n  \
Enter or Space     lay out the next round of a match\n  \
n                  a new game once this one is over (same options, the other player starts)\n  \
? or F1            help: the keys, what the numbers mean, the sowing direction (the arrows,\n                     \
PgUp/PgDn and j/k scroll it on a small terminal)\n  \
q or Esc           quit (pressed twice while the game goes on); Ctrl-C or Ctrl-D quit at once\n  \
Ctrl-Z             suspend (the shell's job control; `fg` goes back to the game, drawn anew,\n                     \
as after a kill -TSTP or -STOP)\n\n\
A closed terminal window, a dropped ssh session or a kill (SIGTERM, SIGHUP) ends the game as q\n\
does: the --save record is written first.\n\n\
Needs an interactive terminal (standard input and output); for scripts use `pussa replay` \
or `pussa engine`.\n\n\
Examples:\n  pussa play --game raja-pasu --match --level expert\n  \
pussa play --hotseat --save game.txt\n  \
pussa play --position \"0,0,0,0,0,0,1/0,0,0,0,0,0,2 28 25 S 1 walak-pussa\"";

/// Arguments of `pussa play`.
#[derive(clap::Args, Debug)]
#[command(after_help = KEYS_HELP)]
pub struct Args {
    /// The game: walak-pussa, raja-pasu, pasu-pondi, pasu-pondi-6 (default: the game the
    /// `--position` string names, else walak-pussa).
    #[arg(long)]
    pub game: Option<Game>,
    /// Play a match (several rounds, closed holes) instead of a single game.
    #[arg(long = "match")]
    pub match_mode: bool,
    /// The computer's level: a name, or a number from 1 (beginner) to 7 (max) as `pussa
    /// levels` numbers them; it must be on the ladder of the game and mode (`pussa levels
    /// --game G [--match]`). Default: club, or the strongest level below it on the ladder.
    #[arg(long, conflicts_with = "hotseat", value_parser = parse_level)]
    pub level: Option<LevelArg>,
    /// Two people at one keyboard, no computer (so no --level or --seed; --egtb is for the
    /// hints).
    #[arg(long)]
    pub hotseat: bool,
    /// Who moves first: S or N (not with --position, which says who is to move).
    #[arg(long, default_value = "S", conflicts_with = "position")]
    pub first: Side,
    /// Your seat (the board is drawn from it): S or N.
    #[arg(long, default_value = "S")]
    pub seat: Side,
    /// Milliseconds per lap of the sowing animation, 0 to 10000 (0: no animation).
    #[arg(long, default_value_t = 350, allow_hyphen_values = true, value_parser = parse_delay)]
    pub delay: u64,
    /// Seed of the computer's choices: a whole number from 0.
    #[arg(long, default_value_t = 0, allow_hyphen_values = true, value_parser = parse_seed,
          conflicts_with = "hotseat")]
    pub seed: u64,
    /// Endgame tables (built by `pussa egtb build`) for the computer's moves (levels from club
    /// up) and the hints (in a hotseat game too): a directory, or `none` to play without.
    /// Default: `egtb` in the data directory ($PUSSA_DATA/egtb, else data/egtb, where `pussa
    /// egtb build` writes them) if it holds tables of the game, else none. The tables are checked
    /// in the background and used as soon as they are verified.
    #[arg(long, value_name = "DIR|none")]
    pub egtb: Option<String>,
    /// Start from this position string (as `pussa replay`, `explain` and `analyze` take it),
    /// e.g. "4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0 S 1 walak-pussa".
    #[arg(long, value_name = "POSITION")]
    pub position: Option<String>,
    /// Write the game record (the format `pussa replay --record` reads, with the day the game
    /// began as its Date) to FILE when the game ends (`n` saves it first) and when you quit; a
    /// second game after `n` goes to a file numbered before the
    /// extension, `game.txt` → `game-2.txt`, `game-3.txt`… (a number whose file exists is passed
    /// over). An existing FILE is refused at start-up (no game is lost), and so is a FILE that
    /// cannot be created.
    #[arg(long, value_name = "FILE")]
    pub save: Option<PathBuf>,
    /// Let --save write over an existing FILE (and game-2.txt, … after `n`).
    #[arg(long, requires = "save")]
    pub force: bool,
}

/// `--level` as typed (a name or a number) and the level it names, so that an error quotes
/// what the user wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LevelArg {
    /// The text given.
    pub text: String,
    /// The level it names.
    pub level: Level,
}

fn parse_level(s: &str) -> Result<LevelArg, String> {
    s.parse::<Level>()
        .map(|level| LevelArg {
            text: s.to_string(),
            level,
        })
        .map_err(|e| e.to_string())
}

fn parse_delay(s: &str) -> Result<u64, String> {
    match s.trim().parse::<u64>() {
        Ok(n) if n <= 10_000 => Ok(n),
        _ => Err("the delay is a whole number of milliseconds from 0 to 10000".into()),
    }
}

fn parse_seed(s: &str) -> Result<u64, String> {
    s.trim()
        .parse::<u64>()
        .map_err(|_| format!("the seed is a whole number from 0 to {}", u64::MAX))
}

/// Why `pussa play` cannot run here, if it cannot: it needs a terminal on standard input (the
/// keys) and standard output (the screen), one that can move the cursor (not `TERM=dumb`).
#[must_use]
pub fn terminal_refusal(stdin_tty: bool, stdout_tty: bool, term: Option<&str>) -> Option<String> {
    let which = match (stdin_tty, stdout_tty) {
        (true, true) => None,
        (false, true) => Some("standard input is not a terminal"),
        (true, false) => Some("standard output is not a terminal"),
        (false, false) => Some("standard input and output are not terminals"),
    };
    let why = match which {
        Some(w) => format!("pussa play needs an interactive terminal ({w})"),
        None if term.is_some_and(|t| t.trim() == "dumb") => {
            "pussa play needs a terminal that can move the cursor (TERM=dumb cannot)".to_string()
        }
        None => return None,
    };
    Some(format!(
        "{why}; for scripts use `pussa replay` or `pussa engine`"
    ))
}

/// The default directory of the endgame tables when PUSSA_DATA is not set.
pub const DEFAULT_EGTB: &str = "data/egtb";

/// The default directory of the endgame tables: `egtb` in the data directory, `$PUSSA_DATA/egtb`
/// when PUSSA_DATA is set (not empty), else [`DEFAULT_EGTB`] (`data/egtb`): where `pussa serve`
/// reads them, so that `pussa egtb build` writes them where the server looks. The one default
/// of every command (egtb, play, tournament, serve without --data or --db).
#[must_use]
pub fn default_egtb_dir() -> PathBuf {
    std::env::var_os("PUSSA_DATA")
        .filter(|d| !d.is_empty())
        .map_or_else(
            || PathBuf::from(DEFAULT_EGTB),
            |d| PathBuf::from(d).join("egtb"),
        )
}

/// The tables `--egtb` asks for: `none` → none; a directory → its tables of `game` (an error if
/// it has none); not given → [`default_egtb_dir`] if it holds tables of `game`, else none. Only the
/// files' headers are read here; `on_done` hears when the payloads are verified or refused.
///
/// # Errors
/// A directory without tables of `game`, or a table file whose header is wrong.
pub fn tables_option(
    egtb: Option<&str>,
    game: Game,
    on_done: Option<pussa_egtb::oracle::OnDone>,
) -> anyhow::Result<Option<LazyTablesOracle>> {
    let (dir, explicit) = match egtb.map(str::trim) {
        Some(s) if s.eq_ignore_ascii_case("none") => return Ok(None),
        Some("") => anyhow::bail!("--egtb: expected a directory or none"),
        Some(s) => (PathBuf::from(s), true),
        None => (default_egtb_dir(), false),
    };
    if !explicit && !pussa_egtb::oracle::has_tables(&dir, game) {
        return Ok(None);
    }
    let o = LazyTablesOracle::open(&dir, game, on_done)
        .with_context(|| format!("--egtb {}", dir.display()))?;
    match o {
        Some(o) => Ok(Some(o)),
        None => anyhow::bail!(
            "--egtb {}: no endgame tables of {game} there (no {}; build them with `pussa egtb \
             build --game {game} --max-seeds N --dir {}`, or play with --egtb none)",
            dir.display(),
            pussa_egtb::format::table_path(&dir, game, 0).display(),
            dir.display()
        ),
    }
}

/// What a background thread found.
enum Answer {
    Move(u64, Option<Hole>),
    Hint(u64, String),
    Tables(String),
}

/// Where the game records go, and how a game is written.
struct Saver {
    path: Option<PathBuf>,
    /// Whether existing files may be written over (`--force`).
    force: bool,
    setup: Option<Setup>,
    game: Game,
    mode: Mode,
    /// The number of the last file written in this session (see [`Saver::path_of`]).
    written: std::cell::Cell<Option<u32>>,
}

impl Saver {
    /// The file of the `n`th game of this session: FILE, then FILE-2, FILE-3… (before the
    /// extension: game-2.txt).
    fn path_of(&self, n: u32) -> Option<PathBuf> {
        let p = self.path.as_ref()?;
        if n <= 1 {
            return Some(p.clone());
        }
        Some(numbered(p, n))
    }

    /// The record of `app`'s game: its start and the moves on the board now.
    fn record(&self, app: &App) -> anyhow::Result<Record> {
        let mut rec = match &self.setup {
            Some(s) => Record::from_setup(*s, self.mode)?,
            None => Record::new(self.game, self.mode, app.start.round_starter()),
        };
        rec.set_tag("Date", &record_date(app.started))?;
        rec.set_tag("South", &app.player_name(Side::South))?;
        rec.set_tag("North", &app.player_name(Side::North))?;
        for &mv in &app.moves {
            rec.push(mv)?;
        }
        Ok(rec)
    }

    /// The file number of the game after the one saved as file `n`: `n + 1`, or the next
    /// number whose file does not exist yet (any number with `--force`).
    fn next_file(&self, n: u32) -> u32 {
        let mut next = n.saturating_add(1);
        while !self.force
            && next < u32::MAX
            && self
                .path_of(next)
                .is_some_and(|p| crate::outfile::is_existing_file(&p))
        {
            next += 1;
        }
        next
    }

    /// Writes the record of game `n` if `--save` was given; returns the file.
    fn save(&self, app: &App, n: u32) -> anyhow::Result<Option<PathBuf>> {
        let Some(path) = self.path_of(n) else {
            return Ok(None);
        };
        let rec = self.record(app)?;
        crate::outfile::write_whole(&path, &rec.to_string())
            .context("the game record was not saved")?;
        self.written.set(Some(n));
        Ok(Some(path))
    }

    /// Whether game `n`'s file was written in this session (it then holds an earlier state of
    /// the game, which a quit must bring up to date, even to no move at all).
    fn wrote(&self, n: u32) -> bool {
        self.path.is_some() && self.written.get() == Some(n)
    }

    /// A `pussa replay` command line that shows the moves of `app` again.
    fn replay_line(&self, app: &App) -> String {
        let moves: Vec<String> = app.moves.iter().map(|h| h.letter().to_string()).collect();
        let start = match &self.setup {
            Some(s) => format!(" --position \"{s}\""),
            None if app.start.round_starter() == Side::North => " --first N".to_string(),
            None => String::new(),
        };
        format!(
            "pussa replay --game {}{}{start} --moves \"{}\"",
            self.game,
            if self.mode == Mode::Match {
                " --match"
            } else {
                ""
            },
            moves.join(" ")
        )
    }
}

/// A record's `Date` (docs/notation.md): the day `t` falls on, `YYYY.MM.DD`, in UTC as the
/// web page's export gives it.
fn record_date(t: std::time::SystemTime) -> String {
    let secs = t
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
    pussa_server::util::rfc3339(secs)[..10].replace('-', ".")
}

/// `dir/game.txt` → `dir/game-2.txt`; `game` → `game-2`.
fn numbered(p: &Path, n: u32) -> PathBuf {
    let stem = p
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = match p.extension() {
        Some(ext) => format!("{stem}-{n}.{}", ext.to_string_lossy()),
        None => format!("{stem}-{n}"),
    };
    p.with_file_name(name)
}

/// A value of an option that clap could not check alone (it depends on other options): the
/// same message and exit code (2) as clap's own value errors.
fn value_error(option: &str, value: &str, why: &str) -> ! {
    clap::Error::raw(
        clap::error::ErrorKind::InvalidValue,
        format!("invalid value '{value}' for '{option}': {why}\n\nFor more information, try '--help'.\n"),
    )
    .exit()
}

/// Runs the terminal UI until `q`.
///
/// # Errors
/// Bad arguments, no terminal, or a terminal that cannot be set up.
pub fn run(args: Args) -> anyhow::Result<()> {
    let game = match (args.game, &args.position) {
        (None, None) => Game::WalakPussa,
        (game, position) => crate::cmd_replay::game_of(game, position.as_deref())?,
    };
    let seat = args.seat;
    let mode = if args.match_mode {
        Mode::Match
    } else {
        Mode::Single
    };
    let setup: Option<Setup> = match &args.position {
        Some(p) => {
            let s: Setup = p.parse().context("--position")?;
            s.expect_game(game).context("--position")?;
            Some(s)
        }
        None => None,
    };
    let start = match &setup {
        Some(s) => s.game_state(mode).context("--position")?,
        None => GameState::new(game, mode, args.first),
    };
    let opponent = if args.hotseat {
        Opponent::Hotseat
    } else {
        Opponent::Computer(match &args.level {
            Some(l) => l
                .level
                .offered(game, mode)
                .unwrap_or_else(|e| value_error("--level <LEVEL>", &l.text, &e.to_string())),
            None => Level::default_for(game, mode),
        })
    };
    // The record's file: never an earlier game's (unless --force), and one that can be made,
    // before any game is played.
    if let Some(path) = &args.save {
        crate::outfile::refuse_existing("--save", path, args.force)?;
        crate::outfile::check_writable(path).context("--save")?;
    }
    let (tx, rx) = mpsc::channel::<Answer>();
    let told = tx.clone();
    let tables = tables_option(
        args.egtb.as_deref(),
        game,
        Some(Box::new(move |g, r| {
            let text = match r {
                Ok(max) => format!("endgame tables of {g} (up to {max} seeds) in use"),
                Err(e) => format!(
                    "endgame tables not used: {}",
                    crate::cmd_egtb::with_advice(e)
                ),
            };
            let _ = told.send(Answer::Tables(text));
        })),
    )?;
    // The options are all checked before the terminal is.
    {
        use std::io::IsTerminal;
        let term = std::env::var("TERM").ok();
        if let Some(why) = terminal_refusal(
            std::io::stdin().is_terminal(),
            std::io::stdout().is_terminal(),
            term.as_deref(),
        ) {
            anyhow::bail!(why);
        }
    }
    if let Some(t) = &tables {
        t.start_loading();
    }
    let oracle = tables.map(|t| Arc::new(t) as Arc<dyn ExactOracle>);
    let saver = Saver {
        path: args.save.clone(),
        force: args.force,
        setup,
        game,
        mode,
        written: std::cell::Cell::new(None),
    };
    let mut app = App::new(start, seat, opponent);
    app.delay = args.delay;
    let signals = on_signals();
    let mut terminal = enter_terminal().context("cannot set up the terminal")?;
    let mut file_no = 1;
    let result = event_loop(
        &mut terminal,
        &mut app,
        &args,
        &saver,
        &mut file_no,
        oracle,
        (tx, rx),
        &signals,
    );
    // Nothing played is lost: the record is saved first (the terminal may be gone, and
    // anything done with it may fail), then the terminal is given back, then the messages.
    // A file written earlier in the session is brought up to date even when every move was
    // taken back.
    let saved = if app.moves.is_empty() && !app.state.is_over() && !saver.wrote(file_no) {
        Ok(None)
    } else {
        saver.save(&app, file_no)
    };
    leave_terminal();
    // The terminal's Drop shows the cursor and, if the terminal is gone, panics printing why.
    std::mem::forget(terminal);
    match saved {
        Ok(Some(p)) if !app.moves.is_empty() || app.state.is_over() => errln!(
            "pussa play: game record saved to {} (`pussa replay --record {}` shows it)",
            p.display(),
            p.display()
        ),
        Ok(Some(p)) => errln!(
            "pussa play: every move was taken back; the game record {} now holds no move",
            p.display()
        ),
        Ok(None) if app.moves.is_empty() => {}
        Ok(None) => errln!(
            "pussa play: {} move{} played; to see them again: {}",
            app.moves.len(),
            if app.moves.len() == 1 { "" } else { "s" },
            saver.replay_line(&app)
        ),
        Err(e) => {
            // The game is not on file: the moves are in the message, and the exit status says
            // that the record was not written.
            let e = anyhow::anyhow!("{e:#}; the moves: {}", saver.replay_line(&app));
            if let Err(loop_error) = result {
                errln!("pussa play: {e:#}");
                return Err(loop_error);
            }
            return Err(e);
        }
    }
    result
}

/// What signals ask of the game loop.
#[derive(Default)]
struct Signals {
    /// SIGTERM, SIGHUP, SIGINT or SIGQUIT: end the game as after `q`.
    stop: AtomicBool,
    /// SIGTSTP sent from outside (`kill -TSTP`): give the terminal back, then stop.
    tstp: AtomicBool,
    /// SIGCONT: the process goes on after a stop (a SIGSTOP, which cannot be caught, or a
    /// SIGTSTP), and the shell may have put the terminal back in its own mode: set it up again
    /// and draw the whole screen.
    cont: AtomicBool,
}

/// Flags raised by signals, heard on a thread of their own. SIGTERM, SIGHUP, SIGINT or SIGQUIT
/// (a `kill`, a closed terminal window, a `kill -INT` or `timeout -s INT`, a wrapper passing on
/// Ctrl-C: in raw mode Ctrl-C itself is a key) end the game as after `q`, its record written,
/// and the terminal is given back as it was, rather than the process dying with the game's
/// screen still up. Should the game not notice within two seconds, the terminal is restored and
/// the process ends from the signal's thread. SIGTSTP and SIGCONT are handled as full-screen
/// programs do (vim, less): the game gives the terminal back before it stops, and sets it up
/// again and redraws when it goes on.
fn on_signals() -> Arc<Signals> {
    let signals = Arc::new(Signals::default());
    #[cfg(unix)]
    {
        let flags = Arc::clone(&signals);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build();
        if let Ok(runtime) = runtime {
            // Registered before the thread starts, so a signal sent at once is not missed.
            let registered = runtime.block_on(async {
                use tokio::signal::unix::{signal, SignalKind};
                Ok::<_, std::io::Error>((
                    signal(SignalKind::terminate())?,
                    signal(SignalKind::hangup())?,
                    signal(SignalKind::interrupt())?,
                    signal(SignalKind::quit())?,
                    signal(SignalKind::from_raw(libc::SIGTSTP))?,
                    signal(SignalKind::from_raw(libc::SIGCONT))?,
                ))
            });
            if let Ok((mut term, mut hup, mut int, mut quit, mut tstp, mut cont)) = registered {
                std::thread::spawn(move || {
                    runtime.block_on(async {
                        loop {
                            tokio::select! {
                                _ = term.recv() => break,
                                _ = hup.recv() => break,
                                _ = int.recv() => break,
                                _ = quit.recv() => break,
                                _ = tstp.recv() => flags.tstp.store(true, Ordering::Release),
                                _ = cont.recv() => flags.cont.store(true, Ordering::Release),
                            }
                        }
                    });
                    flags.stop.store(true, Ordering::Release);
                    std::thread::sleep(Duration::from_secs(2));
                    leave_terminal();
                    std::process::exit(0);
                });
            }
        }
    }
    signals
}

/// Whether the terminal reports key kinds (press, repeat, release: the keyboard enhancement
/// protocol of kitty, foot, WezTerm, Ghostty…), and so tells a held key's auto-repeat apart.
static KEYS_ENHANCED: AtomicBool = AtomicBool::new(false);

/// Whether the game's key kinds are pushed on the terminal's stack of keyboard enhancement
/// flags. A terminal keeps a stack: every push must be popped once, or the shell is left with
/// the game's keys after `pussa play` ends. [`resume_terminal`] runs again after every SIGCONT
/// (a stray one too, or one after a SIGSTOP that nothing popped before), so the push and the
/// pop go through this guard: a push only when nothing is pushed, a pop only when something is.
struct KeyStack {
    pushed: AtomicBool,
}

impl KeyStack {
    const fn new() -> Self {
        Self {
            pushed: AtomicBool::new(false),
        }
    }

    /// Pushes the game's key kinds on `out`, unless they are pushed already.
    fn push(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        use ratatui::crossterm::{event::PushKeyboardEnhancementFlags, execute};
        if !self.pushed.swap(true, Ordering::AcqRel) {
            if let Err(e) = execute!(out, PushKeyboardEnhancementFlags(key_flags())) {
                self.pushed.store(false, Ordering::Release);
                return Err(e);
            }
        }
        Ok(())
    }

    /// Pops the game's key kinds on `out` if they are pushed; failures are ignored (the
    /// terminal may be gone).
    fn pop(&self, out: &mut impl std::io::Write) {
        use ratatui::crossterm::{event::PopKeyboardEnhancementFlags, execute};
        if self.pushed.swap(false, Ordering::AcqRel) {
            let _ = execute!(out, PopKeyboardEnhancementFlags);
        }
    }
}

/// The game's push on the terminal's stack of keyboard enhancement flags (see [`KeyStack`]).
static KEY_STACK: KeyStack = KeyStack::new();

/// The terminal set up for the game: raw mode, the alternate screen, key kinds reported if the
/// terminal can, and a panic hook that gives the terminal back first. Unlike `ratatui::init`,
/// nothing here prints to a terminal that may be gone (a panic while printing would abort the
/// process before the record is saved).
fn enter_terminal() -> std::io::Result<ratatui::DefaultTerminal> {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        leave_terminal();
        hook(info);
    }));
    ratatui::crossterm::terminal::enable_raw_mode()?;
    // A terminal that does not answer (within crossterm's time) is taken as one without.
    let enhanced = ratatui::crossterm::terminal::supports_keyboard_enhancement().unwrap_or(false);
    KEYS_ENHANCED.store(enhanced, Ordering::Release);
    resume_terminal()?;
    let terminal =
        ratatui::Terminal::new(ratatui::backend::CrosstermBackend::new(std::io::stdout()))?;
    ignore_resize_signal();
    Ok(terminal)
}

/// Keeps crossterm's reader from hearing SIGWINCH. Its reader handles a resize signal and the
/// terminal's input in one batch of an edge-triggered poll, and returns with the resize alone:
/// the keys that came with it are then read only when the next key comes, and a key such as
/// `?` after a resize seemed to do nothing (the help it opened was drawn only after the next
/// key, which closed it). The screen does not need the signal: every frame asks the
/// terminal's size (ratatui's autoresize), and the loop draws every 30 ms.
fn ignore_resize_signal() {
    // The reader is made (and registers its handler) on its first use.
    let _ = event::poll(Duration::ZERO);
    #[cfg(unix)]
    {
        // SAFETY: SIG_DFL for SIGWINCH, whose default action is to ignore it.
        unsafe {
            libc::signal(libc::SIGWINCH, libc::SIG_DFL);
        }
    }
}

/// The keyboard enhancement the game asks for: every key as an escape code with its kind, so
/// that letters report their auto-repeat too, and the shifted character (`?`, `+`, `G`) as
/// the key.
fn key_flags() -> ratatui::crossterm::event::KeyboardEnhancementFlags {
    use ratatui::crossterm::event::KeyboardEnhancementFlags as F;
    F::DISAMBIGUATE_ESCAPE_CODES
        | F::REPORT_EVENT_TYPES
        | F::REPORT_ALL_KEYS_AS_ESCAPE_CODES
        | F::REPORT_ALTERNATE_KEYS
}

/// Raw mode, the alternate screen and the key kinds, again after [`leave_terminal`].
fn resume_terminal() -> std::io::Result<()> {
    use ratatui::crossterm::{execute, terminal};
    terminal::enable_raw_mode()?;
    execute!(std::io::stdout(), terminal::EnterAlternateScreen)?;
    if KEYS_ENHANCED.load(Ordering::Acquire) {
        KEY_STACK.push(&mut std::io::stdout())?;
    }
    Ok(())
}

/// Gives the terminal back (cooked mode, the main screen, the cursor, the keys as they were)
/// as far as it still exists: every failure is ignored, and nothing is printed.
fn leave_terminal() {
    use ratatui::crossterm::{cursor, execute, terminal};
    KEY_STACK.pop(&mut std::io::stdout());
    let _ = terminal::disable_raw_mode();
    let _ = execute!(
        std::io::stdout(),
        terminal::LeaveAlternateScreen,
        cursor::Show
    );
}

/// The game's screen set up again and drawn whole: after a stop the shell may have put the
/// terminal back in its own mode, which crossterm does not know (it still takes it as raw), so
/// its raw mode is left first.
fn resume(terminal: &mut ratatui::DefaultTerminal) -> std::io::Result<()> {
    let _ = ratatui::crossterm::terminal::disable_raw_mode();
    resume_terminal()?;
    terminal.clear()
}

/// Ctrl-Z, or a SIGTSTP from outside: the terminal is given back and the process stops with
/// SIGTSTP's own action (as the shell's job control expects); when it goes on (`fg`), the
/// game's screen is set up and drawn again.
fn suspend(terminal: &mut ratatui::DefaultTerminal) -> std::io::Result<()> {
    leave_terminal();
    #[cfg(unix)]
    {
        // SIGTSTP is caught (see [`on_signals`]): for the stop its default action is put back
        // for the moment, then the handler again once the process goes on.
        // SAFETY: sigaction with a zeroed struct set to SIG_DFL and an empty mask, the old
        // action kept and put back; raise only sends a signal to this process, and returns
        // once it is continued (SIGCONT).
        unsafe {
            let mut default: libc::sigaction = std::mem::zeroed();
            default.sa_sigaction = libc::SIG_DFL;
            libc::sigemptyset(&raw mut default.sa_mask);
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(libc::SIGTSTP, &raw const default, &raw mut old) == 0 {
                libc::raise(libc::SIGTSTP);
                libc::sigaction(libc::SIGTSTP, &raw const old, std::ptr::null_mut());
            } else {
                libc::raise(libc::SIGSTOP);
            }
        }
    }
    resume(terminal)
}

/// What the terminal's input has for us.
#[derive(Debug, PartialEq, Eq)]
enum Input {
    /// Bytes to read.
    Ready,
    /// Nothing within the time.
    Nothing,
    /// End of file or an error: the terminal is gone (a closed window, a dropped ssh session).
    Gone,
}

/// Waits up to `ms` milliseconds for input on standard input (the terminal crossterm reads).
/// Crossterm itself reads an end of file as "no data yet" and spins on it for ever, so the
/// end of the terminal is caught here, before crossterm is asked.
fn wait_input(ms: i32) -> Input {
    #[cfg(unix)]
    {
        let mut fd = libc::pollfd {
            fd: 0,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd, for the duration of the call.
        let r = unsafe { libc::poll(&raw mut fd, 1, ms) };
        if r < 0 {
            return if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                Input::Nothing
            } else {
                Input::Gone
            };
        }
        if r == 0 {
            return Input::Nothing;
        }
        if fd.revents & (libc::POLLHUP | libc::POLLERR | libc::POLLNVAL) != 0 {
            return Input::Gone;
        }
        // Readable with nothing to read is the end of file.
        let mut pending: libc::c_int = 0;
        // SAFETY: FIONREAD writes one c_int.
        let r = unsafe { libc::ioctl(0, libc::FIONREAD, &raw mut pending) };
        if r == 0 && pending == 0 {
            return Input::Gone;
        }
        Input::Ready
    }
    #[cfg(not(unix))]
    {
        match event::poll(Duration::from_millis(u64::try_from(ms).unwrap_or(0))) {
            Ok(true) => Input::Ready,
            Ok(false) => Input::Nothing,
            Err(_) => Input::Gone,
        }
    }
}

/// The save of a finished game.
#[derive(Default)]
struct Saved {
    /// The generation of the game last saved (or tried).
    at: Option<u64>,
    /// Whether that save was written (or there was nothing to write: no `--save`).
    ok: bool,
}

impl Saved {
    /// Saves `app`'s game as game `file_no`; the news says where, or why not. Returns the
    /// file written (`None`: nothing written, as without `--save`, or the save failed).
    fn save(&mut self, app: &mut App, saver: &Saver, file_no: u32) -> Option<PathBuf> {
        self.at = Some(app.generation);
        match saver.save(app, file_no) {
            Ok(Some(p)) => {
                self.ok = true;
                app.add_notice(&format!("Game record saved to {}.", p.display()));
                Some(p)
            }
            Ok(None) => {
                self.ok = true;
                None
            }
            Err(e) => {
                self.ok = false;
                // Said once: another `n` that fails the same way adds no copy.
                let mut text = format!(
                    "{e:#}. q quits and prints the moves as a `pussa replay` command (nothing \
                     is lost)."
                );
                if let Some(first) = text.get_mut(0..1) {
                    first.make_ascii_uppercase();
                }
                if !app.notice.as_deref().is_some_and(|n| n.contains(&text)) {
                    app.add_notice(&text);
                }
                None
            }
        }
    }
}

/// The hint's search budget: nodes on one thread (about half a second), so that a hint is
/// the same on every run.
pub const HINT_NODES: u64 = 400_000;

#[allow(clippy::too_many_arguments)]
fn event_loop(
    terminal: &mut ratatui::DefaultTerminal,
    app: &mut App,
    args: &Args,
    saver: &Saver,
    file_no: &mut u32,
    oracle: Option<Arc<dyn ExactOracle>>,
    (tx, rx): (mpsc::Sender<Answer>, mpsc::Receiver<Answer>),
    signals: &Signals,
) -> anyhow::Result<()> {
    let mut next_frame = Instant::now();
    // When the animation's frame on screen was put up (a speed key times the next from it).
    let mut frame_at = Instant::now();
    let mut seed = args.seed;
    // The finished game's save: the generation it was made at, and whether it was written.
    let mut saved = Saved::default();
    // The games of this session, for the new game's notice.
    let mut game_no = 1u32;
    // A held key's auto-repeat, on a terminal that does not report key kinds.
    let mut repeats = KeyRepeat::default();
    'game: while !app.quit && !signals.stop.load(Ordering::Acquire) {
        // A stop from outside (`kill -TSTP`): the terminal is given back first. After any stop
        // (SIGSTOP cannot be caught) the terminal is set up again and drawn whole. The SIGCONT
        // flag is only ever taken here: the signal thread may set it after `suspend` has
        // returned, and clearing it there raced with that thread. Setting up again is
        // idempotent (the key kinds are pushed once, see [`KeyStack`]), so a late or stray
        // SIGCONT costs one redraw and nothing more.
        if signals.tstp.swap(false, Ordering::AcqRel) && suspend(terminal).is_err() {
            break;
        }
        if signals.cont.swap(false, Ordering::AcqRel) && resume(terminal).is_err() {
            break;
        }
        // Animation clock.
        if Instant::now() >= next_frame && (!app.anim.is_empty() || app.shown.is_some()) {
            if app.delay == 0 {
                app.apply(Action::Skip);
            }
            app.tick();
            frame_at = Instant::now();
            next_frame = frame_at + Duration::from_millis(app.delay);
        }
        // A finished game is saved once its animation has shown the end (and again if taken
        // back and finished anew); `n` saves it earlier if need be.
        if app.state.is_over() && app.shown.is_none() && saved.at != Some(app.generation) {
            let _ = saved.save(app, saver, *file_no);
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
                let oracle = oracle.clone();
                std::thread::spawn(move || {
                    let mv = choose_move_with_oracle(&state, level, s, oracle);
                    let _ = tx.send(Answer::Move(generation, mv));
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
                // Added to the news: the computer's move there stays.
                Answer::Tables(text) => app.add_notice(&text),
                _ => {}
            }
        }
        // A terminal that cannot be drawn on is gone (a closed window): the game ends as after
        // `q`, and the record is saved.
        if terminal.draw(|f| render(app, f)).is_err() {
            break;
        }
        // Keys crossterm already holds (typed ahead while the game started: its terminal
        // queries read them from the terminal) leave nothing on fd 0 to wait for: they are
        // read at once, not when the next key comes.
        if !event::poll(Duration::ZERO).unwrap_or(false) {
            match wait_input(30) {
                Input::Gone => break,
                Input::Nothing => continue,
                Input::Ready => {}
            }
        }
        // Whatever is ready is read now; crossterm is never left waiting on its own (it reads
        // the end of the terminal as "no data yet", for ever).
        while event::poll(Duration::ZERO).unwrap_or(false) {
            let Ok(ev) = event::read() else {
                break 'game;
            };
            let Event::Key(key) = ev else {
                continue;
            };
            // One key press, one action: a held key's auto-repeat acts no more (see
            // [`KeyRepeat`]); a terminal that reports key kinds tells repeats itself
            // ([`App::key_action`] drops them).
            let now = Instant::now();
            let kind = if KEYS_ENHANCED.load(Ordering::Acquire) {
                KeyKind::Press
            } else {
                repeats.classify(&key, now)
            };
            if kind == KeyKind::Repeat {
                // A held arrow or page key scrolls the help on, as where the terminal reports
                // repeats; any other repeat does nothing.
                if let a @ Action::ScrollHelp(_) = app.key_action(key) {
                    app.apply(a);
                }
                continue;
            }
            let action = app.key_action(key);
            if let Action::Move(_) = action {
                if kind == KeyKind::Doubtful {
                    // Perhaps the first repeat of the key that played the last move: no move
                    // for the other player (or yours after the computer's reply), and a word
                    // rather than silence; the next press plays.
                    repeats.forget_played();
                    app.add_notice(&format!(
                        "{} ignored: the key looked held; press it again to play.",
                        key_name(key)
                    ));
                    continue;
                }
                repeats.played(&key, now);
            }
            match action {
                Action::Hint => {
                    app.apply(Action::Hint);
                    if !app.busy {
                        app.busy = true;
                        app.hint = Some("thinking…".into());
                        let state = app.state.clone();
                        let generation = app.generation;
                        let tx = tx.clone();
                        let oracle = oracle.clone();
                        std::thread::spawn(move || {
                            // A node budget on one thread, not a time: the same position gets
                            // the same hint on every run and every machine.
                            let limits = Limits {
                                nodes: Some(HINT_NODES),
                                threads: 1,
                                oracle,
                                ..Limits::default()
                            };
                            let r = search(&state, &limits, &mut |_| {});
                            let text = match r.best {
                                Some(mv) => hint_text(&state, mv, r.score, r.exact, r.depth, &r.pv),
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
                Action::Suspend => {
                    if suspend(terminal).is_err() {
                        break 'game;
                    }
                }
                Action::Faster | Action::Slower => {
                    app.apply(action);
                    // The frame on screen gets the new time too ("off": the rest of the move
                    // at once), not only the next one.
                    if app.shown.is_some() || !app.anim.is_empty() {
                        next_frame = frame_at + Duration::from_millis(app.delay);
                    }
                }
                Action::Skip => {
                    app.apply(Action::Skip);
                    // The end of the move at once: no wait on its last frame.
                    next_frame = Instant::now();
                }
                Action::NewGame => {
                    // The game just ended is saved before the next one begins: `n` may come
                    // while its last frame is still up, before the save at the end of its
                    // animation. If it cannot be written, the game stays (the news says why).
                    let mut told = String::new();
                    if saved.at != Some(app.generation) || !saved.ok {
                        let written = saved.save(app, saver, *file_no);
                        if !saved.ok {
                            continue;
                        }
                        if let Some(p) = written {
                            told = format!("Game {game_no}'s record saved to {}. ", p.display());
                        }
                    }
                    // The next game gets a file of its own.
                    game_no += 1;
                    *file_no = saver.next_file(*file_no);
                    let (start, who) = match &saver.setup {
                        Some(s) => (
                            s.game_state(saver.mode).context("--position")?,
                            "from the same position".to_string(),
                        ),
                        None => {
                            let first = app.start.round_starter().other();
                            (
                                GameState::new(saver.game, saver.mode, first),
                                format!("{} moves first this time", app.player_name(first)),
                            )
                        }
                    };
                    let file = match saver.path_of(*file_no) {
                        Some(p) => format!("; its record goes to {}", p.display()),
                        None => String::new(),
                    };
                    app.restart(start);
                    app.notice = Some(format!(
                        "{told}New game {game_no}: the same options and seats; {who}{file}."
                    ));
                    saved = Saved::default();
                    next_frame = Instant::now();
                }
                other => app.apply(other),
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pussa_egtb::{build_dir, BuildOptions};

    /// The game's key kinds are pushed once however often the terminal is set up again (every
    /// SIGCONT, a stray one too), and popped once however often it is given back: the
    /// terminal's stack of keyboard enhancement flags is as it was when the game ends.
    #[test]
    fn key_kinds_are_pushed_and_popped_once_however_often_resumed() {
        const PUSH: &str = "\x1b[>";
        const POP: &str = "\x1b[<1u";
        let keys = KeyStack::new();
        let mut out = Vec::new();
        // Start-up, then three SIGCONTs with no pop between (`kill -STOP`/`kill -CONT`).
        for _ in 0..4 {
            keys.push(&mut out).unwrap();
        }
        let text = String::from_utf8(out.clone()).unwrap();
        assert_eq!(text.matches(PUSH).count(), 1, "{text:?}");
        // The exit, and a signal's `leave_terminal` racing with it.
        keys.pop(&mut out);
        keys.pop(&mut out);
        let text = String::from_utf8(out.clone()).unwrap();
        assert_eq!(text.matches(POP).count(), 1, "{text:?}");
        // Ctrl-Z then `fg`: one pop, one push again, balanced.
        keys.push(&mut out).unwrap();
        keys.push(&mut out).unwrap();
        keys.pop(&mut out);
        let text = String::from_utf8(out).unwrap();
        assert_eq!(text.matches(PUSH).count(), 2, "{text:?}");
        assert_eq!(text.matches(POP).count(), 2, "{text:?}");
    }

    /// `--egtb none` turns the tables off; a directory must hold tables of the game (an error
    /// naming it otherwise); a directory with tables gives the oracle, verified in the
    /// background; not given, `data/egtb` is used only if it holds tables.
    #[test]
    fn the_egtb_option() {
        let dir = std::env::temp_dir().join(format!("pussa-play-egtb-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        build_dir(
            &dir,
            Game::RajaPasu,
            4,
            BuildOptions::default(),
            false,
            &|_| {},
            &mut |_| {},
        )
        .unwrap();
        let d = dir.to_str().unwrap();
        assert!(tables_option(Some("none"), Game::RajaPasu, None)
            .unwrap()
            .is_none());
        assert!(tables_option(Some("NONE"), Game::RajaPasu, None)
            .unwrap()
            .is_none());
        let t = tables_option(Some(d), Game::RajaPasu, None)
            .unwrap()
            .expect("tables");
        assert_eq!((t.game(), t.max_seeds()), (Game::RajaPasu, 4));
        t.wait().expect("verified");
        let e = tables_option(Some(d), Game::WalakPussa, None)
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("no endgame tables of walak-pussa") && e.contains(d),
            "{e}"
        );
        assert!(tables_option(Some(" "), Game::RajaPasu, None).is_err());
        // The default: data/egtb relative to the working directory (the crate's, in tests),
        // or $PUSSA_DATA/egtb.
        let default = tables_option(None, Game::RajaPasu, None).unwrap();
        assert_eq!(
            default.is_some(),
            pussa_egtb::oracle::has_tables(&default_egtb_dir(), Game::RajaPasu)
        );
        std::fs::remove_dir_all(&dir).ok();
    }

    /// `pussa play` refuses, naming which, when the keys or the screen are not a terminal,
    /// and a terminal that cannot move the cursor.
    #[test]
    fn a_terminal_is_needed() {
        assert_eq!(terminal_refusal(true, true, Some("xterm-256color")), None);
        assert_eq!(terminal_refusal(true, true, None), None);
        let e = terminal_refusal(true, false, Some("xterm")).unwrap();
        assert!(
            e.contains("(standard output is not a terminal)")
                && e.contains("`pussa replay` or `pussa engine`"),
            "{e}"
        );
        let e = terminal_refusal(false, true, Some("xterm")).unwrap();
        assert!(e.contains("(standard input is not a terminal)"), "{e}");
        let e = terminal_refusal(false, false, None).unwrap();
        assert!(
            e.contains("standard input and output are not terminals"),
            "{e}"
        );
        let e = terminal_refusal(true, true, Some("dumb")).unwrap();
        assert!(e.contains("TERM=dumb"), "{e}");
    }

    /// The saved record is `pussa_rules::record`'s format and replays to the game's end; a
    /// later game of the session gets a numbered file; without --save the moves are given
    /// as a `pussa replay` command line.
    #[test]
    fn the_game_record_and_the_moves_line() {
        assert_eq!(
            numbered(Path::new("dir/game.txt"), 2),
            PathBuf::from("dir/game-2.txt")
        );
        assert_eq!(numbered(Path::new("game"), 3), PathBuf::from("game-3"));
        let mut app = App::new(
            GameState::new(Game::WalakPussa, Mode::Single, Side::North),
            Side::South,
            Opponent::Hotseat,
        );
        app.apply(Action::Move(Hole::from_letter('a').unwrap()));
        let second = app.state.legal_moves().nth(0).unwrap();
        app.apply(Action::Move(second));
        assert_eq!(app.moves.len(), 2);
        let dir = std::env::temp_dir().join(format!("pussa-play-save-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let saver = Saver {
            path: Some(dir.join("g.txt")),
            force: false,
            setup: None,
            game: Game::WalakPussa,
            mode: Mode::Single,
            written: std::cell::Cell::new(None),
        };
        let p = saver.save(&app, 1).unwrap().unwrap();
        assert_eq!(p, dir.join("g.txt"));
        let rec = Record::parse(&std::fs::read_to_string(&p).unwrap()).unwrap();
        assert_eq!(rec.state(), &app.state);
        assert_eq!(rec.first(), Side::North);
        assert_eq!(saver.path_of(2), Some(dir.join("g-2.txt")));
        // The next game's file passes over numbers whose files exist (not with --force).
        assert_eq!(saver.next_file(1), 2);
        std::fs::write(dir.join("g-2.txt"), "an earlier game").unwrap();
        std::fs::write(dir.join("g-3.txt"), "an earlier game").unwrap();
        assert_eq!(saver.next_file(1), 4);
        let forced = Saver {
            path: Some(dir.join("g.txt")),
            force: true,
            setup: None,
            game: Game::WalakPussa,
            mode: Mode::Single,
            written: std::cell::Cell::new(None),
        };
        assert_eq!(forced.next_file(1), 2);
        assert_eq!(
            saver.replay_line(&app),
            format!("pussa replay --game walak-pussa --first N --moves \"a {second}\"")
        );
        // From a position: the record keeps it, and the game's end is in it.
        let setup: Setup = "0,0,0,0,0,1,0/0,0,0,0,0,0,0 28 27 S 1 walak-pussa"
            .parse()
            .unwrap();
        let mut app = App::new(
            setup.game_state(Mode::Single).unwrap(),
            Side::South,
            Opponent::Hotseat,
        );
        app.apply(Action::Move(Hole::from_letter('F').unwrap()));
        assert!(app.state.is_over());
        let saver = Saver {
            path: Some(dir.join("p.txt")),
            force: false,
            setup: Some(setup),
            game: Game::WalakPussa,
            mode: Mode::Single,
            written: std::cell::Cell::new(None),
        };
        let p = saver.save(&app, 1).unwrap().unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        let rec = Record::parse(&text).unwrap();
        assert!(rec.state().is_over(), "{text}");
        assert!(text.contains("1-0"), "{text}");
        assert!(saver
            .replay_line(&app)
            .contains("--position \"0,0,0,0,0,1,0/"));
        // A finished game's save returns the file it wrote (the `n` notice names it from
        // there), the one its notice names; game 2 goes to its numbered file.
        let mut saved = Saved::default();
        let written = saved.save(&mut app, &saver, 2);
        assert!(saved.ok);
        assert_eq!(written, Some(dir.join("p-2.txt")));
        assert!(dir.join("p-2.txt").is_file());
        let notice = app.notice.clone().unwrap_or_default();
        assert!(
            notice.contains(&format!("saved to {}.", dir.join("p-2.txt").display())),
            "{notice}"
        );
        // Without `--save` nothing is written, and nothing is returned.
        let unsaved = Saver {
            path: None,
            ..saver
        };
        let mut saved = Saved::default();
        assert_eq!(saved.save(&mut app, &unsaved, 3), None);
        assert!(saved.ok);
        // A save that fails returns no file, and says why.
        let failing = Saver {
            path: Some(dir.join("no-such-dir").join("p.txt")),
            ..unsaved
        };
        let mut saved = Saved::default();
        assert_eq!(saved.save(&mut app, &failing, 1), None);
        assert!(!saved.ok);
        std::fs::remove_dir_all(&dir).ok();
    }

    /// The saved record carries the day the game began as its `Date` (docs/notation.md's
    /// `YYYY.MM.DD`), as the web page's export does.
    #[test]
    fn the_record_carries_the_date() {
        let day = std::time::UNIX_EPOCH + Duration::from_secs(1_796_070_063);
        assert_eq!(record_date(day), "2026.11.30");
        assert_eq!(record_date(std::time::UNIX_EPOCH), "1970.01.01");
        let mut app = App::new(
            GameState::new(Game::RajaPasu, Mode::Single, Side::South),
            Side::South,
            Opponent::Hotseat,
        );
        app.started = day;
        app.apply(Action::Move(Hole::from_letter('G').unwrap()));
        let saver = Saver {
            path: None,
            force: false,
            setup: None,
            game: Game::RajaPasu,
            mode: Mode::Single,
            written: std::cell::Cell::new(None),
        };
        let rec = saver.record(&app).unwrap();
        assert_eq!(rec.tag("Date"), Some("2026.11.30"));
        let text = rec.to_string();
        assert!(text.contains("[Date \"2026.11.30\"]"), "{text}");
        assert!(Record::parse(&text).is_ok(), "{text}");
    }

    #[test]
    fn option_values() {
        assert_eq!(parse_delay("0"), Ok(0));
        assert_eq!(parse_delay("10000"), Ok(10_000));
        assert!(parse_delay("-1").unwrap_err().contains("0 to 10000"));
        assert!(parse_delay("10001").is_err());
        assert!(parse_seed("-1")
            .unwrap_err()
            .contains("whole number from 0"));
        assert_eq!(parse_level("2").map(|l| l.level), Ok(Level::Novice));
        assert_eq!(parse_level("2").map(|l| l.text), Ok("2".to_string()));
        assert!(parse_level("godlike").is_err());
    }
}
