//! `pussa perft`: the number of legal move sequences of each length from a position.

use std::io::Write;
use std::time::Instant;

use anyhow::Context;
use pussa_rules::{perft_with_history, Game, GameState, Mode, Setup};
use rayon::prelude::*;

/// Count the legal move sequences of each length 1..=N from a position, under every rule of a
/// round (endless moves are not moves; a repetition, Pasu Pondi's one-row rule or a player with
/// no legal move ends the round, and an ended round has no further moves).
#[derive(clap::Args)]
pub struct Args {
    /// The game: walak-pussa, raja-pasu, pasu-pondi or pasu-pondi-6 (default: the game the
    /// `--position` string names).
    #[arg(long, required_unless_present = "position")]
    pub game: Option<Game>,
    /// Start from this position string instead of the start of the game.
    #[arg(long)]
    pub position: Option<String>,
    /// The deepest length counted.
    #[arg(long, allow_negative_numbers = true, value_parser = crate::numarg::ranged::<u32>(0, 64))]
    pub depth: u32,
    /// Also print the count below each first move at the deepest length.
    #[arg(long)]
    pub divide: bool,
}

/// Runs `pussa perft`.
///
/// # Errors
/// A malformed position string, or one for another game than `--game`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let game = crate::cmd_replay::game_of(args.game, args.position.as_deref())?;
    let state = match &args.position {
        None => GameState::new(game, Mode::Single, pussa_rules::Side::South),
        Some(p) => {
            let setup: Setup = p.parse().context("--position")?;
            setup.expect_game(game).context("--position")?;
            setup.game_state(Mode::Single).context("--position")?
        }
    };
    let pos = *state.position();
    // The positions already seen in this round, except the current one (perft checks it itself).
    let seen = pussa_rules::earlier_history(state.history(), state.position()).to_vec();
    let round_over = state.is_round_over();
    let mut out = crate::stdout();
    let start = Instant::now();
    let mut nodes_total = 0u64;
    if args.depth == 0 {
        // Length 0: the empty sequence, as perft counts it.
        writeln!(out, "depth  0  1")?;
    }
    for depth in 1..=args.depth {
        let children: Vec<(pussa_rules::Hole, u64)> = if round_over {
            Vec::new()
        } else {
            pos.legal_moves()
                .collect::<Vec<_>>()
                .into_par_iter()
                .map(|mv| {
                    let mut child = pos;
                    let Some(out) = child.play_unchecked(mv) else {
                        return (mv, 0);
                    };
                    let n = if out.seeds_taken() > 0 {
                        perft_with_history(&child, depth - 1, &mut Vec::new())
                    } else {
                        let mut h = seen.clone();
                        h.push(pos.repetition_key());
                        perft_with_history(&child, depth - 1, &mut h)
                    };
                    (mv, n)
                })
                .collect()
        };
        let count: u64 = children.iter().map(|&(_, n)| n).sum();
        nodes_total += count;
        writeln!(out, "depth {depth:>2}  {count}")?;
        if args.divide && depth == args.depth {
            for (mv, n) in &children {
                writeln!(out, "  {mv}: {n}")?;
            }
        }
    }
    let secs = start.elapsed().as_secs_f64();
    if args.depth > 0 && secs > 0.0 {
        writeln!(
            out,
            "({nodes_total} sequences counted in {secs:.3} s, {:.0} a second)",
            nodes_total as f64 / secs
        )?;
    }
    Ok(())
}
