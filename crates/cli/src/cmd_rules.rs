//! `pussa rules`: the rules in words, from `docs/rules.md` (embedded at build time, the one copy).

use std::io::Write;

use pussa_rules::Game;

/// The rules page, one source for the command line and the repository.
const RULES: &str = include_str!("../../../docs/rules.md");

/// Print the rules of a game in words: the common sections and the game's own. Without a game,
/// the whole page.
#[derive(clap::Args)]
pub struct Args {
    /// The game: walak-pussa, raja-pasu, pasu-pondi or pasu-pondi-6.
    pub game: Option<Game>,
}

/// The heading of a game's own section in `docs/rules.md`.
fn section_title(game: Game) -> &'static str {
    match game {
        Game::WalakPussa => "Walak-pussa",
        Game::RajaPasu => "Raja Pasu",
        Game::PasuPondi | Game::PasuPondi6 => "Pasu Pondi",
    }
}

/// The page for `game`: every section but the other games' own.
#[must_use]
pub fn rules_text(game: Option<Game>) -> String {
    let Some(game) = game else {
        return RULES.to_string();
    };
    let games = ["Walak-pussa", "Raja Pasu", "Pasu Pondi"];
    let mine = section_title(game);
    let mut out = String::new();
    let mut keep = true;
    for line in RULES.split_inclusive('\n') {
        if let Some(title) = line.strip_prefix("## ") {
            let title = title.trim();
            keep = !games.contains(&title) || title == mine;
        }
        if keep {
            out.push_str(line);
        }
    }
    out
}

/// Runs `pussa rules`.
///
/// # Errors
/// A failed write to standard output.
pub fn run(args: Args) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(rules_text(args.game).as_bytes())?;
    Ok(())
}
