//! `pussa`: the command line of the pussa mancala games.
//!
//! Every subcommand lives in its own module `cmd_<name>.rs` exposing `Args` (clap) and
//! `run(args) -> anyhow::Result<()>`. Errors are printed as one line `error: ...` with exit
//! code 1; clap's usage errors keep clap's exit code 2.

use std::io::Write as _;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Standard output, locked, whose write errors say that it was standard output that could not
/// be written (`cannot write to standard output: No space left on device (os error 28)`), not
/// only the OS's words. The error keeps its kind, so that a closed pipe is still recognised.
pub struct Stdout(std::io::StdoutLock<'static>);

/// [`Stdout`], for every command's output.
pub fn stdout() -> Stdout {
    Stdout(std::io::stdout().lock())
}

/// The error of a failed write to standard output (see [`Stdout`]).
#[derive(Debug)]
struct StdoutError(std::io::Error);

impl std::fmt::Display for StdoutError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot write to standard output: {}", self.0)
    }
}

// No `source`: the message already holds the OS's error, which a chain would repeat.
impl std::error::Error for StdoutError {}

fn stdout_error(e: std::io::Error) -> std::io::Error {
    if e.get_ref().is_some_and(|inner| inner.is::<StdoutError>()) {
        return e;
    }
    std::io::Error::new(e.kind(), StdoutError(e))
}

impl std::io::Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.write(buf).map_err(stdout_error)
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.0.write_all(buf).map_err(stdout_error)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush().map_err(stdout_error)
    }
}

/// `println!` that hands the write's error back instead of panicking: a closed pipe
/// (`pussa egtb verify | head -1`) then ends the command quietly (see `main`).
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!($crate::stdout(), $($arg)*)
    }};
}

/// `eprintln!` that never panics: with stderr a closed pipe (`pussa … 2>&1 | head -1`) the
/// line is lost, and the command still ends with its own exit code (`eprintln!` would panic,
/// exit code 101).
macro_rules! errln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr().lock(), $($arg)*);
    }};
}

/// `pussa --version`: the release, the commit it was built from when built in a git checkout
/// (build.rs), and the database schema this build reads and writes (`pussa 0.1.0 (commit
/// 5cc80ec1a, database schema 3)`), which tell builds of one release apart for a bug report
/// and where it matters to a club's database.
static VERSION: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    let commit = match env!("PUSSA_COMMIT") {
        "" => String::new(),
        c => format!("commit {c}, "),
    };
    format!(
        "{} ({commit}database schema {})",
        env!("CARGO_PKG_VERSION"),
        pussa_server::store::SCHEMA_VERSION
    )
});

mod cmd_analyze;
mod cmd_bench;
mod cmd_egtb;
mod cmd_egtb_match;
mod cmd_engine;
mod cmd_explain;
mod cmd_levels;
mod cmd_perft;
mod cmd_play;
mod cmd_replay;
mod cmd_rules;
mod cmd_serve;
mod cmd_tournament;
mod numarg;
mod outfile;
mod tui;

/// The pussa mancala games: Walak-pussa, Raja Pasu and Pasu Pondi.
///
/// Without a subcommand, `pussa` is `pussa serve` and takes serve's options (`pussa --addr
/// 127.0.0.1:9000`); they cannot be mixed with another subcommand.
#[derive(Parser)]
#[command(name = "pussa", version = VERSION.as_str(), about, long_about = None, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// `pussa serve`'s options, for `pussa` with no subcommand.
    #[command(flatten)]
    serve: cmd_serve::Args,
}

#[derive(Subcommand)]
enum Command {
    /// Every legal move of a position with its value in seeds and its best line.
    Analyze(cmd_analyze::Args),
    /// Measure the rules engine: random playouts per second.
    Bench(cmd_bench::Args),
    /// Endgame databases: build, probe, verify, solve, match.
    Egtb(cmd_egtb::Args),
    /// Speak the engine protocol on stdin/stdout (for front ends and tournament managers).
    #[command(long_about = cmd_engine::LONG_ABOUT)]
    Engine(cmd_engine::Args),
    /// Tell one move lap by lap: lifts, relays, fours, the capture and the chain.
    Explain(cmd_explain::Args),
    /// The computer's levels and the ladder offered in each game and mode.
    Levels(cmd_levels::Args),
    /// Count the move sequences of each length from a position (perft).
    Perft(cmd_perft::Args),
    /// Play in the terminal against the computer or a friend.
    Play(cmd_play::Args),
    /// Replay moves and show every state, as boards or as JSON lines.
    Replay(cmd_replay::Args),
    /// Print the rules of a game in words (or, with --notation, how moves, positions and records
    /// are written).
    Rules(cmd_rules::Args),
    /// Play in the browser: the web page and its JSON/WebSocket API (the default command: `pussa`
    /// alone takes the same options).
    Serve(cmd_serve::Args),
    /// Play a tournament between two players (levels, engines) with Elo and SPRT.
    // Boxed: its many options make it far larger than the other commands.
    Tournament(Box<cmd_tournament::Args>),
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        None => cmd_serve::run(cli.serve),
        Some(Command::Analyze(args)) => cmd_analyze::run(args),
        Some(Command::Bench(args)) => cmd_bench::run(args),
        Some(Command::Egtb(args)) => cmd_egtb::run(args),
        Some(Command::Engine(args)) => cmd_engine::run(args),
        Some(Command::Explain(args)) => cmd_explain::run(args),
        Some(Command::Levels(args)) => cmd_levels::run(args),
        Some(Command::Perft(args)) => cmd_perft::run(args),
        Some(Command::Play(args)) => cmd_play::run(args),
        Some(Command::Replay(args)) => cmd_replay::run(args),
        Some(Command::Rules(args)) => cmd_rules::run(args),
        Some(Command::Serve(args)) => cmd_serve::run(args),
        Some(Command::Tournament(args)) => cmd_tournament::run(*args),
    }
}

fn main() -> ExitCode {
    let argv = match cmd_tournament::join_negative_sprt(std::env::args_os()) {
        Ok(argv) => argv,
        Err(message) => {
            errln!("error: {message}");
            return ExitCode::from(2);
        }
    };
    let cli = match Cli::try_parse_from(argv) {
        Ok(cli) => cli,
        // Usage errors: on stderr, with clap's exit code 2.
        Err(e) if e.use_stderr() => e.exit(),
        // `help`, `--help`, `--version`: on stdout, which may fail like any command's output.
        Err(e) => {
            let written = e.print().and_then(|()| std::io::stdout().flush());
            return match written.map_err(stdout_error) {
                Ok(()) => ExitCode::SUCCESS,
                Err(io) if io.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
                Err(io) => {
                    errln!("error: {io}");
                    ExitCode::FAILURE
                }
            };
        }
    };
    // What is still buffered is written before the exit code is decided: Rust's own flush at
    // exit would drop its error.
    // Not for `play`: its standard output is the terminal it draws on and gives back itself;
    // a terminal closed under it (a hangup) ends the game as `q` does, with exit 0.
    let flush_at_end = !matches!(cli.command, Some(Command::Play(_)));
    let result = run(cli).and_then(|()| {
        if flush_at_end {
            stdout().flush()?;
        }
        Ok(())
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // A closed pipe (`pussa ... | head`) is not an error worth reporting.
            // Output written through serde_json (`--json`) fails with its error, which keeps
            // the write's kind.
            let broken_pipe = e.chain().any(|c| {
                let kind = c.downcast_ref::<std::io::Error>().map(std::io::Error::kind);
                let kind = kind.or_else(|| {
                    c.downcast_ref::<serde_json::Error>()
                        .and_then(serde_json::Error::io_error_kind)
                });
                kind == Some(std::io::ErrorKind::BrokenPipe)
            });
            if broken_pipe {
                return ExitCode::SUCCESS;
            }
            errln!("error: {}", error_line(&e));
            ExitCode::FAILURE
        }
    }
}

/// The error's chain on one line, `context: cause: …` as `{:#}` writes it, except that a cause
/// that starts with the name of the option its context just gave says it once: `--position:
/// the board …`, not `--position: position: the board …`; an error of the tables is followed
/// by the command that fixes it ([`cmd_egtb::advice`]).
fn error_line(e: &anyhow::Error) -> String {
    let mut out = String::new();
    let mut option: Option<String> = None;
    for (i, c) in e.chain().enumerate() {
        let text = c.to_string();
        let said = option
            .as_deref()
            .and_then(|name| text.strip_prefix(name))
            .and_then(|rest| rest.strip_prefix(": "))
            .unwrap_or(&text);
        if i > 0 {
            out.push_str(": ");
        }
        out.push_str(said);
        option = text.strip_prefix("--").map(str::to_string);
        // An error of the tables: the command that fixes it follows its message.
        if let Some(f) = c.downcast_ref::<pussa_egtb::FormatError>() {
            out.push_str(&cmd_egtb::advice(f));
        } else if let Some(f) = c.downcast_ref::<pussa_egtb::solve::SolveError>() {
            out.push_str(&cmd_egtb::remedy_advice(f.remedy().as_ref()));
        } else if let Some(f) = c.downcast_ref::<pussa_egtb::matches::MatchError>() {
            out.push_str(&cmd_egtb::remedy_advice(f.remedy().as_ref()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Inconsistent tables found by the solver (`egtb solve`, `probe`) or by a match's round
    /// (`egtb match`): the message says what is wrong and `pussa` adds the command that finds
    /// the damaged file (the library's message names no command).
    #[test]
    fn an_inconsistent_table_error_ends_with_the_verify_advice() {
        use pussa_egtb::matches::MatchError;
        use pussa_egtb::solve::SolveError;
        let impossible = SolveError::ImpossibleValue {
            seeds: 4,
            value: 63,
        };
        let e = anyhow::Error::new(impossible).context("solving 0,1,0,2,0,0,0/1,0,0,0,1,0,1");
        let line = error_line(&e);
        assert!(
            line.starts_with("solving 0,1,0,2,0,0,0/1,0,0,0,1,0,1: the tables are inconsistent")
                && line.ends_with("(a damaged table) (run `pussa egtb verify`)"),
            "{line}"
        );
        let e = anyhow::Error::new(MatchError::Solve {
            round: 2,
            start: "start".into(),
            error: impossible,
        });
        let line = error_line(&e);
        assert!(
            line.starts_with("round 2 (start): the tables are inconsistent")
                && line.ends_with("(a damaged table) (run `pussa egtb verify`)"),
            "{line}"
        );
        // Other errors of the solver get no advice.
        let e = anyhow::Error::new(SolveError::NodeLimit);
        assert_eq!(
            error_line(&e),
            "node limit reached before the value was proved"
        );
    }
}
