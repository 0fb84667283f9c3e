//! `pussa rules`: the rules in words, from `docs/rules.md` (embedded at build time, the one copy).

use std::io::Write;

use pussa_rules::Game;

/// The rules page, one source for the command line and the repository.
const RULES: &str = include_str!("../docs/rules.md");

/// How moves, positions and game records are written (`pussa rules --notation`).
const NOTATION: &str = include_str!("../docs/notation.md");

/// The engine protocol, for front ends and tournament managers (`pussa rules --protocol`).
const PROTOCOL: &str = include_str!("../docs/protocol.md");

// The three texts are symbolic links to the workspace's docs; a checkout without symbolic links
// turns each into a one-line file holding the link's path, which would be printed as the text.
// Fail the build instead, with one line that says why.
const _: () = assert!(
    RULES.len() > 1000 && NOTATION.len() > 1000 && PROTOCOL.len() > 1000,
    "crates/cli/docs/rules.md, notation.md or protocol.md holds a symbolic link's path, not the document: \
     check pussa out with symbolic links (git config core.symlinks true, then check out again)"
);

/// Print the rules of a game in words: the common sections and the game's own, with that game's
/// worked moves and decisions. Without a game, the whole page; with --notation, how moves,
/// positions and game records are written.
#[derive(clap::Args)]
pub struct Args {
    /// The game: walak-pussa, raja-pasu, pasu-pondi or pasu-pondi-6.
    #[arg(value_name = "GAME")]
    pub game: Option<Game>,
    /// The game, as the other commands take it (the same as the positional GAME).
    #[arg(long = "game", value_name = "GAME", conflicts_with = "game")]
    pub game_opt: Option<Game>,
    /// Print the notation instead: moves, position strings and game records (the records
    /// `pussa replay --record` reads and `pussa play --save` writes).
    #[arg(long, conflicts_with_all = ["game", "game_opt"])]
    pub notation: bool,
    /// Print the engine protocol instead (`pussa engine`, for front ends and tournament
    /// managers): docs/protocol.md, built in (its links to docs/engine.md say where that file is).
    #[arg(long, conflicts_with_all = ["game", "game_opt", "notation"])]
    pub protocol: bool,
}

/// The page for `game`: every section but the other games' own (the same cut as the web
/// page's rules, [`pussa_server::assets::rules_section`]).
#[must_use]
pub fn rules_text(game: Option<Game>) -> String {
    match game {
        Some(game) => pussa_server::assets::rules_section(RULES, game),
        None => RULES.to_string(),
    }
}

/// The engine protocol as `pussa rules --protocol` prints it: docs/protocol.md with its links
/// to engine.md (which is not built in or installed) written as where that file is, "docs/engine.md
/// in pussa's source", as the command's other pointers are: `[engine.md, "Matches"](engine.md#…)`
/// becomes `docs/engine.md in pussa's source, "Matches"`.
#[must_use]
pub fn protocol_text() -> String {
    const WHERE: &str = "docs/engine.md in pussa's source";
    let mut out = String::with_capacity(PROTOCOL.len());
    let mut rest = PROTOCOL;
    while let Some(open) = rest.find('[') {
        let link = rest[open..].find("](engine.md").and_then(|close| {
            let label = &rest[open + 1..open + close];
            let after = &rest[open + close + 2..];
            (!label.contains(['[', ']', '\n']))
                .then(|| after.find(')'))
                .flatten()
                .map(|end| (label, open + close + 2 + end + 1))
        });
        match link {
            Some((label, next)) => {
                out.push_str(&rest[..open]);
                if label.contains("engine.md") {
                    out.push_str(&label.replacen("engine.md", WHERE, 1));
                } else {
                    out.push_str(&format!("{label} ({WHERE})"));
                }
                rest = &rest[next..];
            }
            None => {
                out.push_str(&rest[..=open]);
                rest = &rest[open + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Runs `pussa rules`.
///
/// # Errors
/// A failed write to standard output.
pub fn run(args: Args) -> anyhow::Result<()> {
    let mut out = crate::stdout();
    if args.notation {
        out.write_all(NOTATION.as_bytes())?;
        return Ok(());
    }
    if args.protocol {
        out.write_all(protocol_text().as_bytes())?;
        return Ok(());
    }
    out.write_all(rules_text(args.game.or(args.game_opt)).as_bytes())?;
    Ok(())
}
