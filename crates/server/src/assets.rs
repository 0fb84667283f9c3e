//! The embedded web page (every file under `crates/server/web/`, built into the binary) and the
//! rules text.

use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
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

/// An embedded file as it is served: its `ETag` (a hash of the file) and, for a text file that
/// gzip makes smaller, its gzip-compressed body.
struct Prepared {
    etag: String,
    gzip: Option<Vec<u8>>,
}

/// Each file of [`ASSETS`] prepared once (on the first request for a page file), in the same
/// order: the files are built into the binary, so neither the hash nor the compressed body can
/// change while it runs.
fn prepared() -> &'static [Prepared] {
    static PREPARED: std::sync::OnceLock<Vec<Prepared>> = std::sync::OnceLock::new();
    PREPARED.get_or_init(|| {
        ASSETS
            .iter()
            .map(|(path, body)| Prepared {
                etag: etag_of(body),
                gzip: compressible(path).then(|| gzip(body)).flatten(),
            })
            .collect()
    })
}

/// The strong entity tag of `body`: a 64-bit FNV-1a hash of its bytes, as 16 hex digits in
/// quotes (stable across builds and platforms, unlike `std`'s hasher).
#[must_use]
pub fn etag_of(body: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in body {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("\"{h:016x}\"")
}

/// Files worth compressing: text (HTML, scripts, styles, SVG, Markdown); images and fonts are
/// compressed already.
fn compressible(path: &str) -> bool {
    let t = content_type(path);
    t.starts_with("text/") || t == "image/svg+xml" || t == "application/json"
}

/// `body` gzip-compressed, when that makes it smaller.
fn gzip(body: &[u8]) -> Option<Vec<u8>> {
    use std::io::Write as _;
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    enc.write_all(body).ok()?;
    let out = enc.finish().ok()?;
    (out.len() < body.len()).then_some(out)
}

/// The `ETag` of the gzip representation of a file whose own tag is `etag` (a representation
/// of its own: RFC 9110, 8.8.3).
fn gzip_etag(etag: &str) -> String {
    format!("{}-gzip\"", etag.trim_end_matches('"'))
}

/// The client's `Accept-Encoding` takes gzip (RFC 9110, 12.5.3): `gzip` (or `x-gzip`) with a
/// q-value above 0, or, when neither is listed, `*` with a q-value above 0. An explicit
/// `gzip;q=0` refuses gzip whatever `*` says; no header, or one without either, is no gzip.
#[must_use]
pub fn accepts_gzip(headers: &HeaderMap) -> bool {
    let mut gzip: Option<f32> = None;
    let mut any: Option<f32> = None;
    for item in headers
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
    {
        let mut parts = item.split(';');
        let coding = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        // A missing or unreadable weight is 1 (an unreadable one is not taken as a refusal of
        // what the client named; a weight outside 0..=1 is clamped).
        let q = parts
            .filter_map(|p| {
                let (name, value) = p.split_once('=')?;
                name.trim()
                    .eq_ignore_ascii_case("q")
                    .then(|| value.trim().parse::<f32>().ok())
                    .flatten()
            })
            .next_back()
            .unwrap_or(1.0)
            .clamp(0.0, 1.0);
        let slot = match coding.as_str() {
            "gzip" | "x-gzip" => &mut gzip,
            "*" => &mut any,
            _ => continue,
        };
        // Listed twice: the highest weight counts.
        *slot = Some(slot.map_or(q, |old: f32| old.max(q)));
    }
    gzip.or(any).is_some_and(|q| q > 0.0)
}

/// `If-None-Match` names one of `tags` (or is `*`): the client's copy is current. Compared
/// weakly (a `W/` prefix ignored), as RFC 9110 (13.1.2) has it for this header.
fn not_modified(headers: &HeaderMap, tags: &[&str]) -> bool {
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|t| t.trim().trim_start_matches("W/"))
        .any(|t| t == "*" || tags.contains(&t))
}

/// Answers a request for `path` (`""` is `index.html`); a missing file's 404 names `sent`,
/// the path as the client sent it, cut to [`crate::util::QUOTE_MAX`] characters.
///
/// Every file has an `ETag` (a hash of the file; the gzip form its own tag): a request whose
/// `If-None-Match` names it is answered `304 Not Modified` with no body, so `Cache-Control:
/// no-cache` costs a round trip, not the file. A text file is sent gzip-compressed (compressed
/// once, on the first request) to a client whose `Accept-Encoding` takes gzip, with `Vary:
/// Accept-Encoding`.
pub fn serve(path: &str, sent: &str, request: &HeaderMap) -> Response {
    let path = if path.is_empty() || path.ends_with('/') {
        format!("{path}index.html")
    } else {
        path.to_string()
    };
    match ASSETS.iter().position(|(p, _)| *p == path) {
        Some(index) => {
            let body = ASSETS[index].1;
            let prep = &prepared()[index];
            let gz_tag = prep.gzip.as_ref().map(|_| gzip_etag(&prep.etag));
            let gzipped = match (&prep.gzip, &gz_tag) {
                (Some(gz), Some(tag)) if accepts_gzip(request) => Some((gz, tag)),
                _ => None,
            };
            let etag = gzipped.map_or(prep.etag.as_str(), |(_, tag)| tag.as_str());
            // Only the tag of the copy this answer would send: a 304 for the other encoding's
            // tag would confirm a body in an encoding the client did not ask for.
            let mut resp = if not_modified(request, &[etag]) {
                StatusCode::NOT_MODIFIED.into_response()
            } else if let Some((gz, _)) = gzipped {
                let mut resp = (StatusCode::OK, gz.clone()).into_response();
                resp.headers_mut()
                    .insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
                resp
            } else {
                (StatusCode::OK, body).into_response()
            };
            let h = resp.headers_mut();
            if let Ok(v) = HeaderValue::from_str(etag) {
                h.insert(header::ETAG, v);
            }
            if gz_tag.is_some() {
                h.insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
            }
            h.insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static(content_type(&path)),
            );
            // Always revalidate (a cheap 304 while the file is the same) so a new build is
            // picked up at once.
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
/// 404 for an unknown game.
pub fn rules(game: &str) -> Result<Response, ApiError> {
    let game: pussa_rules::Game = game
        .parse()
        .map_err(|e| ApiError::not_found(format!("{e}")))?;
    let mut resp = rules_for_the_page(RULES_MD, game).into_response();
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
        let md = RULES_MD;
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
