//! The embedded web page (every file under `crates/server/web/`, built into the binary) and the
//! rules text.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;

mod generated {
    include!(concat!(env!("OUT_DIR"), "/assets.rs"));
}

pub use generated::{ASSETS, RULES_MD};

/// The `Content-Security-Policy` of the page's HTML: its own files only (no inline scripts, no
/// other hosts), and never framed by another page (`frame-ancestors 'none'`: the page never
/// frames itself either).
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; img-src 'self' data:; \
    style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'";

/// The content type for a file name.
#[must_use]
pub fn content_type(path: &str) -> &'static str {
    let ext = path.rsplit_once('.').map_or("", |(_, e)| e);
    match ext {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "json" | "webmanifest" => "application/json",
        "md" => "text/markdown; charset=utf-8",
        "txt" => "text/plain; charset=utf-8",
        "woff2" => "font/woff2",
        _ => "application/octet-stream",
    }
}

/// The embedded file at `path` (relative to `web/`).
#[must_use]
pub fn find(path: &str) -> Option<&'static [u8]> {
    ASSETS.iter().find(|(p, _)| *p == path).map(|(_, b)| *b)
}

/// Answers a request for `path` (`""` is `index.html`); a missing file's 404 names `sent`,
/// the path as the client sent it, cut to [`crate::util::QUOTE_MAX`] characters.
pub fn serve(path: &str, sent: &str) -> Response {
    let path = if path.is_empty() || path.ends_with('/') {
        format!("{path}index.html")
    } else {
        path.to_string()
    };
    match find(&path) {
        Some(body) => {
            let mut resp = (StatusCode::OK, body).into_response();
            let h = resp.headers_mut();
            h.insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static(content_type(&path)),
            );
            // The page is small; always revalidate so a new build is picked up at once.
            h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
            h.insert(
                header::X_CONTENT_TYPE_OPTIONS,
                HeaderValue::from_static("nosniff"),
            );
            if path.ends_with(".html") {
                h.insert(
                    header::CONTENT_SECURITY_POLICY,
                    HeaderValue::from_static(CONTENT_SECURITY_POLICY),
                );
                // No other page may frame this one (clickjacking: one click plays, resigns or
                // accepts); `X-Frame-Options` for browsers that predate `frame-ancestors`.
                h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
                // An old invite link (`/?game=…&invite=…`) must not travel on in the
                // `Referer` of the page's own requests (into a proxy's log).
                h.insert(
                    header::REFERRER_POLICY,
                    HeaderValue::from_static("no-referrer"),
                );
            }
            resp
        }
        None => {
            let mut resp = (
                StatusCode::NOT_FOUND,
                format!(
                    "not found: {}\n",
                    crate::util::cut(sent, crate::util::QUOTE_MAX)
                ),
            )
                .into_response();
            resp.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/plain; charset=utf-8"),
            );
            resp
        }
    }
}

/// The heading of a game's own section in `docs/rules.md`.
fn section_title(game: pussa_rules::Game) -> &'static str {
    use pussa_rules::Game;
    match game {
        Game::WalakPussa => "Walak-pussa",
        Game::RajaPasu => "Raja Pasu",
        Game::PasuPondi | Game::PasuPondi6 => "Pasu Pondi",
    }
}

/// The title of `game`'s rules page (as the web page's tabs name the games).
fn page_title(game: pussa_rules::Game) -> &'static str {
    use pussa_rules::Game;
    match game {
        Game::WalakPussa => "Walak-pussa",
        Game::RajaPasu => "Raja Pasu",
        Game::PasuPondi => "Pasu Pondi",
        Game::PasuPondi6 => "Pasu Pondi (6 seeds)",
    }
}

/// The games a table row's first cell is about: a game's name, with Pasu Pondi's seed count
/// when the row is for one of its two sizes only (`Pasu Pondi (5 seeds)`, `Pasu Pondi (6
/// seeds)`). Empty for a row about every game.
fn games_named(cell: &str) -> Vec<pussa_rules::Game> {
    use pussa_rules::Game;
    let mut games = Vec::new();
    if cell.contains("Walak-pussa") {
        games.push(Game::WalakPussa);
    }
    if cell.contains("Raja Pasu") {
        games.push(Game::RajaPasu);
    }
    if cell.contains("Pasu Pondi (5") {
        games.push(Game::PasuPondi);
    } else if cell.contains("Pasu Pondi (6") {
        games.push(Game::PasuPondi6);
    } else if cell.contains("Pasu Pondi") {
        games.extend([Game::PasuPondi, Game::PasuPondi6]);
    }
    games
}

/// The rules page for `game`, as `pussa rules GAME` prints it: a one-game text. The title and
/// the introduction name that game only; every section is kept but the other games' own (`##
/// Walak-pussa`, `## Raja Pasu`, `## Pasu Pondi`); and a table row about other games only (a
/// worked move, a decision) is left out.
#[must_use]
pub fn rules_section(md: &str, game: pussa_rules::Game) -> String {
    let games = ["Walak-pussa", "Raja Pasu", "Pasu Pondi"];
    let mine = section_title(game);
    let title = page_title(game);
    let mut out = String::new();
    let mut keep = true;
    let mut intro = false;
    for line in md.split_inclusive('\n') {
        if line.starts_with("# ") {
            out.push_str(&format!(
                "# The rules of {title}\n\n{title} is one of the *pussa* games, two-row mancala \
                 games from Sri Lanka and South India. This page says how pussa plays it: the \
                 board, a move, the end of a round and matches, which the games share (a rule \
                 that applies to some of them only names them), and {mine}'s own rules in its \
                 section. Where the sources leave a point open, the decision pussa takes is \
                 given with its reason and source in the table near the end.\n\n"
            ));
            intro = true;
            continue;
        }
        if let Some(heading) = line.strip_prefix("## ") {
            let heading = heading.trim();
            intro = false;
            keep = !games.contains(&heading) || heading == mine;
        }
        if intro || !keep {
            continue;
        }
        if let Some(row) = line.strip_prefix('|') {
            let named = games_named(row.split('|').next().unwrap_or(""));
            if !named.is_empty() && !named.contains(&game) {
                continue;
            }
        }
        out.push_str(line);
    }
    out
}

/// The rules page for `game` as the web page shows it: [`rules_section`] without the notes for
/// the command line (the paragraphs `> On the command line, …`), which a player in the browser
/// cannot follow.
#[must_use]
pub fn rules_for_the_page(md: &str, game: pussa_rules::Game) -> String {
    let text = rules_section(md, game);
    let mut out = String::new();
    let mut note = false;
    for line in text.split_inclusive('\n') {
        if line.starts_with("> On the command line") {
            note = true;
        } else if !line.starts_with('>') {
            // A note ends with its quote; the blank line after it goes with it.
            if note && line.trim().is_empty() {
                note = false;
                continue;
            }
            note = false;
        }
        if !note {
            out.push_str(line);
        }
    }
    out
}

/// `GET /api/rules/{game}`.
///
/// # Errors
/// 404 for an unknown game, and when the rules text was not built in.
pub fn rules(game: &str) -> Result<Response, ApiError> {
    let game: pussa_rules::Game = game
        .parse()
        .map_err(|e| ApiError::not_found(format!("{e}")))?;
    let md = RULES_MD.ok_or_else(|| {
        ApiError::not_found("the rules text (docs/rules.md) was not built into this server")
    })?;
    let mut resp = rules_for_the_page(md, game).into_response();
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/markdown; charset=utf-8"),
    );
    Ok(resp)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pussa_rules::Game;

    #[test]
    fn rules_pages_keep_the_common_sections_and_the_games_own() {
        let md = "# Rules\nintro\n## Walak-pussa\nw1\n### Chain\nw2\n## Raja Pasu\nr1\n## Pasu Pondi\np1\n## Decisions\nd\n";
        let body = |game| {
            let page = rules_section(md, game);
            let (head, body) = page.split_once("\n\n").unwrap();
            assert_eq!(head, format!("# The rules of {}", page_title(game)));
            let (intro, body) = body.split_once("\n\n").unwrap();
            assert!(
                intro.starts_with(page_title(game)) && !intro.contains("intro"),
                "{intro}"
            );
            body.to_string()
        };
        assert_eq!(
            body(Game::WalakPussa),
            "## Walak-pussa\nw1\n### Chain\nw2\n## Decisions\nd\n"
        );
        assert_eq!(body(Game::RajaPasu), "## Raja Pasu\nr1\n## Decisions\nd\n");
        assert_eq!(
            body(Game::PasuPondi6),
            "## Pasu Pondi\np1\n## Decisions\nd\n"
        );
    }

    /// A one-game page is a coherent text: its own title and introduction, no reference to a
    /// section it left out, the worked moves and decisions of that game only, a worked move of
    /// its own; the web page's text has no notes for the command line (`pussa rules` printed
    /// the three games' title and "told lap by lap above" with the sections cut, and the web
    /// page named files and commands a player cannot reach).
    #[test]
    fn the_real_pages_are_one_game_texts() {
        let md = include_str!("../../../docs/rules.md");
        for game in Game::ALL {
            let page = rules_section(md, game);
            let title = page_title(game);
            assert!(
                page.starts_with(&format!("# The rules of {title}\n")),
                "{game}"
            );
            assert!(!page.contains("three games") && !page.contains("Walak-pussa, Raja Pasu and"));
            assert!(!page.contains("lap by lap above"), "{game}");
            for other in Game::ALL {
                if section_title(other) != section_title(game) {
                    assert!(
                        !page.contains(&format!("## {}", section_title(other))),
                        "{game}: {other}'s section"
                    );
                }
            }
            // The worked moves: rows of this game only, and at least one.
            let rows: Vec<&str> = page
                .lines()
                .skip_while(|l| !l.starts_with("## Worked first moves"))
                .skip_while(|l| !l.starts_with("|---"))
                .skip(1)
                .take_while(|l| l.starts_with('|'))
                .collect();
            assert!(!rows.is_empty(), "{game}: no worked move");
            for r in &rows {
                let first = r[1..].split('|').next().unwrap();
                assert!(games_named(first).contains(&game), "{game}: {r}");
            }
            // Every row of the decisions table is about this game or every game.
            for r in page
                .lines()
                .skip_while(|l| !l.starts_with("## Decisions and why"))
                .filter(|l| l.starts_with('|'))
            {
                let named = games_named(r[1..].split('|').next().unwrap());
                assert!(named.is_empty() || named.contains(&game), "{game}: {r}");
            }
            let web = rules_for_the_page(md, game);
            for unreachable in [
                "On the command line",
                "pussa explain",
                "pussa rules",
                "notation.md",
                "docs/",
                "--max-rounds",
            ] {
                assert!(!web.contains(unreachable), "{game}: {unreachable}");
            }
            assert!(page.contains("pussa rules --notation"), "{game}");
            assert!(
                web.contains("## Notation") && web.contains("1/2-1/2"),
                "{game}"
            );
        }
    }

    #[test]
    fn content_types() {
        assert_eq!(content_type("index.html"), "text/html; charset=utf-8");
        assert_eq!(content_type("a/b.js"), "text/javascript; charset=utf-8");
        assert_eq!(content_type("x"), "application/octet-stream");
    }
}
