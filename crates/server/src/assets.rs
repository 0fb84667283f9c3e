//! The embedded web page (every file under `crates/server/web/`, built into the binary) and the
//! rules text.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;

mod generated {
    include!(concat!(env!("OUT_DIR"), "/assets.rs"));
}

pub use generated::{ASSETS, RULES_MD};

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

/// Answers a request for `path` (`""` is `index.html`).
pub fn serve(path: &str) -> Response {
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
                    HeaderValue::from_static(
                        "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; connect-src 'self'",
                    ),
                );
            }
            resp
        }
        None => {
            let mut resp = (StatusCode::NOT_FOUND, format!("not found: /{path}\n")).into_response();
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

/// The rules page for `game`, as `pussa rules GAME` prints it: every section of the text but
/// the other games' own (`## Walak-pussa`, `## Raja Pasu`, `## Pasu Pondi`).
#[must_use]
pub fn rules_section(md: &str, game: pussa_rules::Game) -> String {
    let games = ["Walak-pussa", "Raja Pasu", "Pasu Pondi"];
    let mine = section_title(game);
    let mut out = String::new();
    let mut keep = true;
    for line in md.split_inclusive('\n') {
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
    let mut resp = rules_section(md, game).into_response();
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
        assert_eq!(
            rules_section(md, Game::WalakPussa),
            "# Rules\nintro\n## Walak-pussa\nw1\n### Chain\nw2\n## Decisions\nd\n"
        );
        assert_eq!(
            rules_section(md, Game::RajaPasu),
            "# Rules\nintro\n## Raja Pasu\nr1\n## Decisions\nd\n"
        );
        assert_eq!(
            rules_section(md, Game::PasuPondi6),
            "# Rules\nintro\n## Pasu Pondi\np1\n## Decisions\nd\n"
        );
    }

    #[test]
    fn content_types() {
        assert_eq!(content_type("index.html"), "text/html; charset=utf-8");
        assert_eq!(content_type("a/b.js"), "text/javascript; charset=utf-8");
        assert_eq!(content_type("x"), "application/octet-stream");
    }
}
