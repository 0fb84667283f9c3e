//! `pussa levels`: the computer's levels and, for every game and mode, the ladder of the levels
//! offered there ([`Level::ladder`]).

use pussa_engine::Level;
use pussa_rules::{Game, Mode};
use serde_json::json;

/// List the computer's levels and the ladder offered in each game: every level on a ladder
/// scored at least 65% against the one below it in 100 games (measurements, with their 95% intervals, in docs/engine.md).
#[derive(clap::Args)]
pub struct Args {
    /// Only this game: walak-pussa, raja-pasu, pasu-pondi or pasu-pondi-6.
    #[arg(long)]
    pub game: Option<Game>,
    /// With --game: only its matches (several rounds); without --match, only its single games.
    #[arg(long = "match", requires = "game")]
    pub match_mode: bool,
    /// One JSON object instead of text: `levels` (every level, or with --game the ones offered
    /// there) and `ladders` (game, mode, levels, default).
    #[arg(long)]
    pub json: bool,
}

fn mode_words(mode: Mode) -> &'static str {
    match mode {
        Mode::Single => "single games",
        Mode::Match => "matches",
    }
}

/// The (game, mode) pairs asked for.
fn pairs(args: &Args) -> Vec<(Game, Mode)> {
    match args.game {
        Some(g) => vec![(
            g,
            if args.match_mode {
                Mode::Match
            } else {
                Mode::Single
            },
        )],
        None => Game::ALL
            .iter()
            .flat_map(|&g| [(g, Mode::Single), (g, Mode::Match)])
            .collect(),
    }
}

/// Runs `pussa levels`.
///
/// # Errors
/// A failed write to standard output.
pub fn run(args: Args) -> anyhow::Result<()> {
    let pairs = pairs(&args);
    let shown: Vec<Level> = match args.game {
        Some(_) => Level::ladder(pairs[0].0, pairs[0].1).to_vec(),
        None => Level::ALL.to_vec(),
    };
    // With a game, each searching level says its own budget there.
    let describe = |l: &Level| match args.game {
        Some(_) => l.description_for(pairs[0].0, pairs[0].1),
        None => l.description().to_string(),
    };
    if args.json {
        let levels: Vec<_> = shown
            .iter()
            .map(|l| json!({"name": l.name(), "number": l.number(), "description": describe(l)}))
            .collect();
        let ladders: Vec<_> = pairs
            .iter()
            .map(|&(g, m)| {
                json!({
                    "game": g.name(),
                    "mode": m.name(),
                    "levels": Level::ladder(g, m).iter().map(|l| l.name()).collect::<Vec<_>>(),
                    "default": Level::default_for(g, m).name(),
                })
            })
            .collect();
        outln!(
            "{}",
            serde_json::to_string_pretty(&json!({"levels": levels, "ladders": ladders}))?
        )?;
        return Ok(());
    }
    for l in &shown {
        outln!("{}  {:<9} {}", l.number(), l.name(), describe(l))?;
    }
    outln!()?;
    if let Some(&(g, m)) = pairs.first().filter(|_| args.game.is_some()) {
        let left: Vec<&str> = Level::ALL
            .iter()
            .filter(|l| !Level::ladder(g, m).contains(l))
            .map(|l| l.name())
            .collect();
        outln!(
            "The levels offered in {} {}, weakest first: each scored at least 65% against the one below (100 games a step).",
            g.title(),
            mode_words(m)
        )?;
        if !left.is_empty() {
            outln!(
                "Not offered there: {} (a ladder with them would have a step under 65%; docs/engine.md in pussa's source).",
                left.join(", ")
            )?;
        }
        return Ok(());
    }
    outln!("The ladder of each game and mode (each level scored at least 65% against the one below in 100 games; docs/engine.md in pussa's source gives the intervals):")?;
    let width = Game::ALL.iter().map(|g| g.title().len()).max().unwrap_or(0);
    for (g, m) in pairs {
        let names: Vec<&str> = Level::ladder(g, m).iter().map(|l| l.name()).collect();
        outln!(
            "  {:<width$}  {:<12}  {}",
            g.title(),
            mode_words(m),
            names.join(", ")
        )?;
    }
    Ok(())
}
