//! `pussa`: the command line of the pussa mancala games.
//!
//! Every subcommand lives in its own module `cmd_<name>.rs` exposing `Args` (clap) and
//! `run(args) -> anyhow::Result<()>`. Errors are printed as one line `error: ...` with exit
//! code 1; clap's usage errors keep clap's exit code 2.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// `println!` that hands the write's error back instead of panicking: a closed pipe
/// (`pussa egtb verify | head -1`) then ends the command quietly (see `main`).
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*)
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
#[command(name = "pussa", version, about, long_about = None, args_conflicts_with_subcommands = true)]
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
    Tournament(cmd_tournament::Args),
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
        Some(Command::Tournament(args)) => cmd_tournament::run(args),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // A closed pipe (`pussa ... | head`) is not an error worth reporting.
            let broken_pipe = e.chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            });
            if broken_pipe {
                return ExitCode::SUCCESS;
            }
            errln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
