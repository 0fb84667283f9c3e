//! `pussa engine`: speak the engine protocol (docs/protocol.md, `pussa rules --protocol`) on
//! standard input and output,
//! for graphical front ends and tournament managers.

use std::sync::Arc;

use pussa_engine::protocol::TablesLoader;

/// The long help of `pussa engine` (`pussa engine --help`), set on the subcommand in main.rs:
/// a doc comment there would replace a `long_about` given here.
pub const LONG_ABOUT: &str =
    "Speak the pussa engine protocol on stdin/stdout, for front ends and tournament\n\
                  managers (the whole protocol: `pussa rules --protocol`).\n\n\
                  Endgame tables (built by `pussa egtb build`) are loaded with\n  \
                  setoption name EGTBPath value <dir>\n\
                  (e.g. data/egtb); the search and the levels from club up then use the exact\n\
                  values of the current game's tables.\n\n\
                  Example session:\n  pussa\n  setoption name EGTBPath value data/egtb\n  newgame raja-pasu single\n  position startpos moves G\n  go depth 6\n  quit";

/// Arguments of `pussa engine` (none: everything is set through the protocol).
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Opens a game's tables for the protocol's `EGTBPath` (every file checked now, as UCI engines
/// load their tablebases when the option is set). An error keeps the command-line advice
/// (the `pussa egtb build` command that builds a missing layer, as `pussa` errors say).
fn loader() -> Arc<TablesLoader> {
    Arc::new(|game, dir| {
        pussa_egtb::oracle::oracle(game, dir).map_err(|e| crate::cmd_egtb::with_advice(&e))
    })
}

/// Runs the protocol loop until `quit` or the end of input.
///
/// # Errors
/// Only if standard input cannot be read.
pub fn run(_args: Args) -> anyhow::Result<()> {
    let stdin = std::io::stdin();
    pussa_engine::protocol::run_with_tables(stdin.lock(), std::io::stdout(), Some(loader()))?;
    Ok(())
}
