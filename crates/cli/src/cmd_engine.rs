//! `pussa engine`: speak the engine protocol (docs/protocol.md) on standard input and output,
//! for graphical front ends and tournament managers.

/// Arguments of `pussa engine` (none: everything is set through the protocol).
#[derive(clap::Args, Debug)]
#[command(
    long_about = "Speak the pussa engine protocol on stdin/stdout (see docs/protocol.md).\n\n\
                  Example session:\n  pussa\n  newgame raja-pasu single\n  position startpos moves G\n  go depth 6\n  quit"
)]
pub struct Args {}

/// Runs the protocol loop until `quit` or the end of input.
///
/// # Errors
/// Only if standard input cannot be read.
pub fn run(_args: Args) -> anyhow::Result<()> {
    let stdin = std::io::stdin();
    pussa_engine::protocol::run(stdin.lock(), std::io::stdout())?;
    Ok(())
}
