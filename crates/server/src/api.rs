//! The HTTP handlers of the JSON API (see docs/api.md).
//!
//! A handler's `# Errors` names the [`ApiError`]s it answers itself. A request its extractors
//! refuse never reaches it: a body that is not a JSON object of the expected shape is a 400
//! (413 if too large, 415 without `Content-Type: application/json`), a malformed path or
//! query a 400 (see [`crate::error`]).

use std::sync::Arc;

use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::State;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::app::{App, CreateReq, NewGame, OpponentReq};
use crate::error::{ApiError, Json, Path};
use crate::{assets, engine, live, record, ws};

type AppState = State<Arc<App>>;

/// `GET /api/health` (and `HEAD`): `200 {"status": "ok", …}` when the database accepts a write,
/// for a proxy's health check or uptime monitoring. See [`App::health`].
///
/// # Errors
/// 503 when the database does not accept a write (the message says why).
pub async fn health(State(app): AppState) -> Result<Json<Value>, ApiError> {
    let app = Arc::clone(&app);
    let v = tokio::task::spawn_blocking(move || app.health())
        .await
        .map_err(|e| ApiError::internal(format!("the health check failed: {e}")))??;
    Ok(Json(v))
}

/// `GET /api/meta`.
pub async fn meta() -> Json<Value> {
    let games: Vec<Value> = pussa_rules::Game::ALL
        .iter()
        .map(|g| {
            json!({
                "name": g.name(),
                "title": g.title(),
                "seeds_per_hole": g.seeds_per_hole(),
                "direction": match g.direction() {
                    pussa_rules::Direction::Counterclockwise => "counterclockwise",
                    pussa_rules::Direction::Clockwise => "clockwise",
                },
                "fours": g.fours(),
                "chain_capture": g.chain_capture(),
                "ladders": engine::ladders_json(*g),
            })
        })
        .collect();
    Json(json!({
        "version": env!("CARGO_PKG_VERSION"),
        "commit": crate::build_commit(),
        "schema": crate::store::SCHEMA_VERSION,
        "games": games,
        "levels": engine::levels_json(),
        "default_level": pussa_engine::Level::DEFAULT.name(),
    }))
}

impl<T: serde::Serialize> IntoResponse for Json<T> {
    fn into_response(self) -> Response {
        axum::Json(self.0).into_response()
    }
}

/// `GET /api/rules/{game}`.
///
/// # Errors
/// 404 for an unknown game ([`assets::rules`]).
pub async fn rules(Path(game): Path<String>) -> Result<Response, ApiError> {
    assets::rules(&game)
}

/// `POST /api/games`.
///
/// # Errors
/// 400 for an unknown game, mode, side, opponent kind or level, or a level not offered in that
/// game and mode; 429 when the client's address has created its games for the minute
/// ([`App::allow_new_game`]); 500 if the game cannot be stored or the computer's first moves
/// fail (see [`App::create`]).
pub async fn create(
    State(app): AppState,
    Peer(peer): Peer,
    Json(req): Json<CreateReq>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    app.allow_new_game(peer)?;
    let made = app.create(req).await;
    Ok((StatusCode::CREATED, Json(given_back(&app, peer, made)?)))
}

/// A game made, or the error; a game not made for want of room in memory now (the `503` with
/// `Retry-After`) gives its client's new game back ([`App::give_back_new_game`]). A game that
/// can never be served (longer than the cap on moves: the `503` without `Retry-After`) keeps
/// counting, so repeating it is throttled as any new game.
fn given_back(
    app: &App,
    peer: Option<std::net::IpAddr>,
    made: Result<Value, ApiError>,
) -> Result<Value, ApiError> {
    made.inspect_err(|e| {
        if e.status == StatusCode::SERVICE_UNAVAILABLE && e.retry_after.is_some() {
            app.give_back_new_game(peer);
        }
    })
}

/// The client's address, when the server knows it (served by [`crate::conn::serve`]): the TCP
/// peer's, or the one a trusted proxy forwards ([`crate::client::Proxies::client`]).
pub struct Peer(pub Option<std::net::IpAddr>);

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for Peer {
    type Rejection = std::convert::Infallible;
    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        _state: &S,
    ) -> Result<Peer, std::convert::Infallible> {
        let client = parts.extensions.get::<crate::client::ClientAddr>();
        Ok(Peer(client.map(|c| c.0).or_else(|| {
            parts
                .extensions
                .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
                .map(|c| c.0.ip())
        })))
    }
}

/// Body of `POST /api/games/{id}/join`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JoinReq {
    invite: String,
}

/// `POST /api/games/{id}/join`.
///
/// # Errors
/// 404 for an unknown game; 409 if it is not an online game or its invite was already used;
/// 403 for a wrong invite; 500 for a database error (see [`App::join`]).
pub async fn join(
    State(app): AppState,
    Path(id): Path<String>,
    Json(req): Json<JoinReq>,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(app.join(&id, &req.invite).await?))
}

/// Body of `POST /api/games/{id}/rematch`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RematchReq {
    token: String,
}

/// `POST /api/games/{id}/rematch`: `201` with the new game for the first player to ask, `200`
/// with the same game for every later ask (the other player's seat, or the same seat again).
///
/// # Errors
/// 404 for an unknown game; 403 for a token that holds no seat; 409 for a game that is not
/// online or not over; 429 when the rematch would be a new game and the client's address has
/// created its games for the minute ([`App::allow_new_game`]); 500 for a database error (see
/// [`App::rematch`]).
pub async fn rematch(
    State(app): AppState,
    Peer(peer): Peer,
    Path(id): Path<String>,
    Json(req): Json<RematchReq>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let (created, answer) = app.rematch(&id, &req.token, peer).await?;
    let status = if created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((status, Json(answer)))
}

/// `GET /api/games/{id}`.
///
/// # Errors
/// 404 for an unknown game; 500 for a database error or a stored game that no longer replays.
pub async fn state(State(app): AppState, Path(id): Path<String>) -> Result<Response, ApiError> {
    Ok(json_text(String::from(&*app.state(&id)?)))
}

/// Body of `POST /api/games/{id}/moves`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveReq {
    #[serde(rename = "move")]
    mv: String,
    token: String,
    expected_ply: Option<u64>,
}

/// `POST /api/games/{id}/moves`.
///
/// # Errors
/// 404 for an unknown game; 403 for a token that holds no seat; 409 for an online game whose
/// friend has not joined yet, a stale `expected_ply`, a game that is over, or a move out of
/// turn; 400 for a move that is not a
/// hole letter; 422 for an illegal move (the message gives the reason); 500 if the move cannot
/// be stored (nothing is played then). A stored move is answered `200` even when the
/// computer's reply cannot be made or stored: the server tries the reply again and sends it in
/// an update. See [`App::play`].
pub async fn play(
    State(app): AppState,
    Path(id): Path<String>,
    Json(req): Json<MoveReq>,
) -> Result<Json<Value>, ApiError> {
    let (state, played) = app
        .play(&id, &req.token, &req.mv, req.expected_ply, None)
        .await?;
    let played: Vec<Value> = played.iter().map(live::Played::to_json).collect();
    Ok(Json(json!({"state": state, "played": played})))
}

/// Body of `POST /api/games/{id}/undo`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UndoReq {
    token: String,
    expected_ply: Option<u64>,
}

/// `POST /api/games/{id}/undo`.
///
/// # Errors
/// 404 for an unknown game; 403 for a token that holds no seat; 409 for a stale
/// `expected_ply`, an online game, or nothing to undo; 500 for a database error. See
/// [`App::undo`].
pub async fn undo(
    State(app): AppState,
    Path(id): Path<String>,
    Json(req): Json<UndoReq>,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(app.undo(&id, &req.token, req.expected_ply).await?))
}

/// Body of `POST /api/games/{id}/resign` and `…/abort`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokenReq {
    token: String,
}

/// `POST /api/games/{id}/resign`.
///
/// # Errors
/// 404 for an unknown game; 403 for a token that holds no seat; 409 for a game that is over or
/// an online game nobody has joined yet; 500 for a database error. See [`App::resign`].
pub async fn resign(
    State(app): AppState,
    Path(id): Path<String>,
    Json(req): Json<TokenReq>,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(app.resign(&id, &req.token).await?))
}

/// `POST /api/games/{id}/abort`.
///
/// # Errors
/// 404 for an unknown game; 403 for a token that holds no seat; 409 for a game that is not
/// online, is over, or in which both players have moved; 500 for a database error. See
/// [`App::abort`].
pub async fn abort(
    State(app): AppState,
    Path(id): Path<String>,
    Json(req): Json<TokenReq>,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(app.abort(&id, &req.token).await?))
}

/// Body of `POST /api/games/{id}/draw`: `offer` (the old form: true offers or accepts, false
/// withdraws or declines), or `accept: true`, which accepts the friend's standing offer and
/// nothing else.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DrawReq {
    token: String,
    #[serde(default)]
    offer: Option<bool>,
    #[serde(default)]
    accept: bool,
}

/// What an offer request asks: `(offer, accept)` for [`App::draw`] and [`App::takeback`].
///
/// # Errors
/// 400 for neither `offer` nor `accept: true`, and for `accept: true` with `offer: false`.
fn offer_answer(offer: Option<bool>, accept: bool) -> Result<(bool, bool), ApiError> {
    match (offer, accept) {
        (Some(false), true) => Err(ApiError::bad_request(
            "accept: true and offer: false contradict each other: send one of them",
        )),
        (_, true) => Ok((true, true)),
        (Some(offer), false) => Ok((offer, false)),
        (None, false) => Err(ApiError::bad_request(
            "missing field `offer` (true or false), or `accept: true`",
        )),
    }
}

/// `POST /api/games/{id}/draw`.
///
/// # Errors
/// 400 for neither `offer` nor `accept: true`, or `accept: true` with `offer: false`; 404 for
/// an unknown game; 403 for a token that holds no seat; 409
/// for a game that is not online, not joined yet or over, and for `accept: true` with no draw
/// offer from the friend standing. See [`App::draw`].
pub async fn draw(
    State(app): AppState,
    Path(id): Path<String>,
    Json(req): Json<DrawReq>,
) -> Result<Json<Value>, ApiError> {
    let (offer, accept) = offer_answer(req.offer, req.accept)?;
    Ok(Json(app.draw(&id, &req.token, offer, accept).await?))
}

/// Body of `POST /api/games/{id}/takeback`: `offer` or `accept`, as [`DrawReq`].
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TakebackReq {
    token: String,
    #[serde(default)]
    offer: Option<bool>,
    #[serde(default)]
    accept: bool,
    expected_ply: Option<u64>,
}

/// `POST /api/games/{id}/takeback`.
///
/// # Errors
/// 400 for neither `offer` nor `accept: true`, or `accept: true` with `offer: false`; 404 for
/// an unknown game; 403 for a token that holds no seat; 409
/// for a game that is not online, not joined yet or over, a stale `expected_ply`, a proposal
/// by a player who has not moved, and `accept: true` with no proposal from the friend
/// standing; 500 for a database error. See [`App::takeback`].
pub async fn takeback(
    State(app): AppState,
    Path(id): Path<String>,
    Json(req): Json<TakebackReq>,
) -> Result<Json<Value>, ApiError> {
    let (offer, accept) = offer_answer(req.offer, req.accept)?;
    Ok(Json(
        app.takeback(&id, &req.token, offer, accept, req.expected_ply)
            .await?,
    ))
}

/// Body of `POST /api/games/{id}/claim`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClaimReq {
    token: String,
    result: String,
}

/// `POST /api/games/{id}/claim`.
///
/// # Errors
/// 400 for a `result` other than `win` or `draw`; 404 for an unknown game; 403 for a token that
/// holds no seat; 409 for a game that is not online, not joined yet or over, or whose other
/// player is here or not away long enough; 500 for a database error. See [`App::claim`].
pub async fn claim(
    State(app): AppState,
    Path(id): Path<String>,
    Json(req): Json<ClaimReq>,
) -> Result<Json<Value>, ApiError> {
    let draw = match req.result.as_str() {
        "win" => false,
        "draw" => true,
        other => {
            return Err(ApiError::bad_request(format!(
                "result: expected \"win\" or \"draw\", found '{}'",
                crate::util::cut(other, crate::util::QUOTE_MAX)
            )))
        }
    };
    Ok(Json(app.claim(&id, &req.token, draw).await?))
}

/// `POST /api/games/{id}/hint` with `{"token": …}`, as every other seat's request sends its
/// token: in the body, never in the URL (which proxies and servers log).
///
/// # Errors
/// 403 for a token that holds no seat; 404 for an unknown game; 409 for an online game, a game
/// that is over, or a hint asked out of turn; 429 while a hint for this game is being computed,
/// or while the client has as many hints running or waiting as it may
/// ([`App::set_hints_per_client`]); 500 if the engine fails. See [`App::hint`].
pub async fn hint_post(
    State(app): AppState,
    Peer(peer): Peer,
    Path(id): Path<String>,
    Json(req): Json<TokenReq>,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(app.hint(&id, &req.token, peer).await?))
}

/// `GET /api/games/{id}/hint?token=…`: the older form of [`hint_post`], kept for the clients
/// written against it. The token in the query reaches the access logs of the proxies on the
/// way, so clients should use `POST` (docs/api.md).
///
/// # Errors
/// 400 for a query parameter other than `token`, or one given twice; 403 without a `token`, or
/// for one that holds no seat; as [`hint_post`] otherwise.
pub async fn hint(
    State(app): AppState,
    Peer(peer): Peer,
    Path(id): Path<String>,
    uri: axum::http::Uri,
) -> Result<Json<Value>, ApiError> {
    let mut q = crate::error::query(uri.query(), &["token"])?;
    let token = q.remove("token").ok_or_else(|| {
        ApiError::forbidden("a hint needs the seat's token: POST {\"token\": …} to this path")
    })?;
    Ok(Json(app.hint(&id, &token, peer).await?))
}

/// `GET /api/games/{id}/positions`.
///
/// # Errors
/// 404 for an unknown game; 503 while the server replays as many games as it may at once
/// ([`App::set_positions_at_once`]); 500 for a database error or a stored move that no longer replays.
pub async fn positions(State(app): AppState, Path(id): Path<String>) -> Result<Response, ApiError> {
    Ok(json_text(app.positions(&id).await?))
}

/// A `200` answer of JSON `text` (already written).
fn json_text(text: String) -> Response {
    let mut resp = text.into_response();
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    resp
}

/// `GET /api/games/{id}/record`.
///
/// # Errors
/// 404 for an unknown game; 500 for a database error, or if its moves do not replay into a
/// record (which the server never lets happen: see [`record::write`]).
pub async fn get_record(
    State(app): AppState,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let g = app.snapshot(&id).await?;
    let text = record::write(&g).map_err(ApiError::internal)?;
    let mut resp = text.into_response();
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"pussa-{id}.txt\"")) {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    Ok(resp)
}

/// Body of `POST /api/games/import`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImportReq {
    record: String,
    opponent: Option<OpponentReq>,
    seat: Option<String>,
}

/// `POST /api/games/import`.
///
/// # Errors
/// 400 for a record that does not read (the message gives the line and column, and for a
/// move the reason it is illegal), an unknown seat, or an unknown opponent kind or level, or a
/// level not offered in the record's game and mode; 429 when the client's address has created
/// its games for the minute; 500 if the game cannot be stored (a computer move that cannot be
/// stored is tried again, as after a move).
/// See [`App::create_game`].
pub async fn import(
    State(app): AppState,
    Peer(peer): Peer,
    Json(req): Json<ImportReq>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    app.allow_new_game(peer)?;
    let rec = pussa_rules::record::Record::parse(&req.record)
        .map_err(|e| ApiError::bad_request(format!("record: {e}")))?;
    let seat = live::parse_side(req.seat.as_deref().unwrap_or("S"), "seat")?;
    let opponent = match req.opponent {
        None => live::Opponent::Hotseat,
        Some(o) => o.parse(rec.game(), rec.mode())?,
    };
    let made = app
        .create_game(NewGame {
            game: rec.game(),
            mode: rec.mode(),
            first: rec.first(),
            seat,
            opponent,
            setup: rec.setup().copied(),
            moves: rec.moves().iter().map(|m| m.hole).collect(),
            ended: record::ending(&rec, seat),
            termination: rec.tag("Termination").map(str::to_string),
        })
        .await;
    Ok((StatusCode::CREATED, Json(given_back(&app, peer, made)?)))
}

/// Most games `GET /api/games` lists at once (`limit`).
pub const MAX_LIST: u32 = 200;

/// `GET /api/games?finished=true|false&limit=N&before=ID` (50 games without `limit`, at most
/// [`MAX_LIST`]; `before`: the games after that one, newest first, the `next` of the
/// previous page).
///
/// # Errors
/// 400 for an unknown query parameter, one given twice, a `finished` other than true or false,
/// a `limit` that is not a whole number 0-200, a `before` that names no game; 500 for a
/// database error.
pub async fn list(State(app): AppState, uri: axum::http::Uri) -> Result<Json<Value>, ApiError> {
    let q = crate::error::query(uri.query(), &["finished", "limit", "before"])?;
    let quoted = |v: &str| crate::util::cut(v, crate::util::QUOTE_MAX).into_owned();
    let finished = match q.get("finished").map(String::as_str) {
        None => None,
        Some("true") => Some(true),
        Some("false") => Some(false),
        Some(other) => {
            return Err(ApiError::bad_request(format!(
                "finished: expected true or false, found '{}'",
                quoted(other)
            )))
        }
    };
    let limit = match q.get("limit") {
        None => 50,
        Some(v) => v
            .parse::<u32>()
            .ok()
            .filter(|n| *n <= MAX_LIST)
            .ok_or_else(|| {
                ApiError::bad_request(format!(
                    "limit: expected a whole number 0-{MAX_LIST}, found '{}'",
                    quoted(v)
                ))
            })?,
    };
    Ok(Json(app.list(
        finished,
        limit,
        q.get("before").map(String::as_str),
    )?))
}

/// The WebSocket subprotocol of the game's socket: a client that offers
/// `Sec-WebSocket-Protocol: pussa, pussa.token.SEAT_TOKEN` is answered `pussa` (so the
/// token is never sent back) and holds that seat from the start.
pub const WS_PROTOCOL: &str = "pussa";
/// The prefix of the subprotocol value that carries a seat's token ([`WS_PROTOCOL`]).
pub const WS_TOKEN_PREFIX: &str = "pussa.token.";

/// The seat's token a WebSocket upgrade carries: in `Sec-WebSocket-Protocol`
/// ([`WS_TOKEN_PREFIX`], the form the page uses: headers stay out of access logs) or, the
/// older form, in the query (`?token=`).
///
/// # Errors
/// 400 for an unknown query parameter, a `probe` other than `1`, a token given twice (both ways, or in two
/// subprotocol values), or a token offered in the subprotocol without [`WS_PROTOCOL`] (the
/// server answers that one, so that the token is never echoed).
pub fn ws_token(
    uri: &axum::http::Uri,
    headers: &axum::http::HeaderMap,
) -> Result<Option<String>, ApiError> {
    let mut q = crate::error::query(uri.query(), &["token", "probe"])?;
    if let Some(probe) = q.remove("probe") {
        if probe != "1" {
            return Err(ApiError::bad_request(format!(
                "probe must be 1 (GET …/ws?probe=1 asks why an upgrade would be refused), not '{}'",
                crate::util::cut(&probe, crate::util::QUOTE_MAX)
            )));
        }
    }
    let offered: Vec<&str> = headers
        .get_all(header::SEC_WEBSOCKET_PROTOCOL)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    let mut tokens = offered
        .iter()
        .filter_map(|p| p.strip_prefix(WS_TOKEN_PREFIX));
    let Some(token) = tokens.next() else {
        return Ok(q.remove("token"));
    };
    if tokens.next().is_some() || q.contains_key("token") {
        return Err(ApiError::bad_request(
            "the seat's token is given twice: send it once, in Sec-WebSocket-Protocol",
        ));
    }
    if !offered.contains(&WS_PROTOCOL) {
        return Err(ApiError::bad_request(format!(
            "a token in Sec-WebSocket-Protocol needs the subprotocol '{WS_PROTOCOL}' offered \
             with it: Sec-WebSocket-Protocol: {WS_PROTOCOL}, {WS_TOKEN_PREFIX}SEAT_TOKEN"
        )));
    }
    Ok(Some(token.to_string()))
}

/// Refuses a WebSocket upgrade sent by a page of another site: its `Origin` header, when it
/// has one (browsers always send it, other clients need not), must name this server as the
/// request reached it: the `Host` header (or the request's authority, `uri`'s) or, only when
/// the request comes from a trusted reverse proxy (`from_trusted_proxy`, `--trust-proxy`),
/// the host that proxy forwards (`X-Forwarded-Host`, `Forwarded: host=`). A `Host` without a
/// port matches the origin's host on any port. Refusals are logged as a warning at most once a
/// minute, for the admin of a proxy that rewrites the `Host` (every browser is refused then).
///
/// # Errors
/// 403 naming the origin and the host it should have been.
pub fn check_origin(
    uri: &axum::http::Uri,
    headers: &axum::http::HeaderMap,
    from_trusted_proxy: bool,
) -> Result<(), ApiError> {
    /// When a refusal was last logged.
    static WARNED: std::sync::Mutex<Option<std::time::Instant>> = std::sync::Mutex::new(None);
    let Some(origin) = headers.get(header::ORIGIN) else {
        return Ok(());
    };
    let origin = String::from_utf8_lossy(origin.as_bytes());
    let text = |v: &HeaderValue| String::from_utf8_lossy(v.as_bytes()).into_owned();
    let mut hosts: Vec<String> = headers.get_all(header::HOST).iter().map(text).collect();
    hosts.extend(uri.authority().map(ToString::to_string));
    if from_trusted_proxy {
        for v in headers.get_all("x-forwarded-host") {
            hosts.extend(text(v).split(',').map(|h| h.trim().to_string()));
        }
        for v in headers.get_all(header::FORWARDED) {
            for pair in text(v).split([',', ';']) {
                if let Some((k, h)) = pair.split_once('=') {
                    if k.trim().eq_ignore_ascii_case("host") {
                        hosts.push(h.trim().trim_matches('"').to_string());
                    }
                }
            }
        }
    }
    if same_origin(&origin, &hosts) {
        return Ok(());
    }
    let host = hosts.first().map_or("none", String::as_str);
    let log = {
        let mut last = crate::app::lock(&WARNED);
        let due = last.is_none_or(|t| t.elapsed() >= std::time::Duration::from_secs(60));
        if due {
            *last = Some(std::time::Instant::now());
        }
        due
    };
    if log {
        tracing::warn!(
            "refused a WebSocket from another site's page (Origin '{}', Host '{}'); if that is \
             this server's own address, its reverse proxy does not pass the browser's Host on: \
             set it (nginx: proxy_set_header Host $http_host;). Logged at most once a minute.",
            crate::util::cut(&origin, crate::util::QUOTE_MAX),
            crate::util::cut(host, crate::util::QUOTE_MAX)
        );
    }
    Err(ApiError::forbidden(format!(
        "WebSocket refused: its Origin '{}' is not this server's (Host '{}'): only the page \
         served here may connect from a browser (behind a reverse proxy, pass the browser's \
         Host on: nginx proxy_set_header Host $http_host)",
        crate::util::cut(&origin, crate::util::QUOTE_MAX),
        crate::util::cut(host, crate::util::QUOTE_MAX)
    )))
}

/// Whether `origin` (`scheme://host[:port]`) is one of `hosts` (`host[:port]`, as a `Host`
/// header gives it): the same host, case aside, and the same port, a scheme's default port
/// (80, 443) written or not. A host given without a port matches the origin's host on any
/// port: a proxy that passes on the host name only (nginx's `$host`) still names this site,
/// and a port is no boundary between sites for this check.
fn same_origin(origin: &str, hosts: &[String]) -> bool {
    let Some((scheme, authority)) = origin.trim().split_once("://") else {
        return false;
    };
    let default = match scheme.to_ascii_lowercase().as_str() {
        "http" | "ws" => "80",
        "https" | "wss" => "443",
        _ => return false,
    };
    // `host[:port]` as (host, port), an IPv6 address in its brackets.
    let split = |a: &str| -> (String, Option<String>) {
        let a = a.trim().to_ascii_lowercase();
        let at = if a.starts_with('[') {
            a.find(']').map(|end| end + 1)
        } else {
            a.rfind(':')
        };
        match at {
            Some(at) if a[at..].starts_with(':') => {
                (a[..at].to_string(), Some(a[at + 1..].to_string()))
            }
            _ => (a, None),
        }
    };
    let (host, port) = split(authority);
    let port = port.unwrap_or_else(|| default.to_string());
    if host.is_empty() || host.contains('/') || authority.contains('/') {
        return false;
    }
    hosts.iter().any(|h| {
        let (h, p) = split(h);
        h == host && p.is_none_or(|p| p == port)
    })
}

/// `GET /api/games/{id}/ws`. A player's connection carries its seat's token
/// (`Sec-WebSocket-Protocol: pussa, pussa.token.SEAT_TOKEN`, or the older `?token=SEAT_TOKEN`:
/// see [`ws_token`]): it holds that seat from the start, as after a hello, and is never refused
/// for the watchers' cap.
///
/// # Errors
/// 403 for an upgrade from a page of another site ([`check_origin`]); 404 for an unknown game
/// (409 for one that cannot be continued, 500 for a database error loading it); 400 for an
/// unknown query parameter or a token given twice; 403 for a token that holds no seat; 429
/// when the seat already has [`ws::MAX_SOCKETS_PER_SEAT`] connections, or (without a token)
/// when the game already has [`ws::MAX_WATCHERS`] watchers, or when the client already has
/// [`crate::conn::Limits::max_websockets_per_client`] connections open, or its connections
/// hold its share of the memory caps in other games ([`App::pin_share`]); 503 when the server
/// has all its WebSocket connections open ([`ws::ClientPlace::admit`]); the upgrade's own status (400, 405 or 426) when the
/// request is not a WebSocket upgrade, and 426 with `Sec-WebSocket-Version: 13` for a WebSocket
/// version other than 13 (400 with that header when the version is missing); 204 for a plain
/// `GET …/ws?probe=1` that would be taken (the page asks why an upgrade failed).
pub async fn websocket(
    State(app): AppState,
    Peer(peer): Peer,
    Path(id): Path<String>,
    uri: axum::http::Uri,
    headers: axum::http::HeaderMap,
    trusted: Option<axum::Extension<crate::client::TrustedProxy>>,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    check_origin(&uri, &headers, trusted.is_some())?;
    let token = ws_token(&uri, &headers)?;
    let slot = app.slot(&id)?;
    let seats = match token {
        Some(token) => {
            let seats = slot.seats_of(&token);
            if seats.is_empty() {
                return Err(ApiError::forbidden(format!(
                    "this token holds no seat in game {id}: watchers connect without one"
                )));
            }
            seats
        }
        None => Vec::new(),
    };
    // Places now, within the server's and the client's caps and the game's; the guards in
    // ws::serve give them back when the connection ends.
    let client = ws::ClientPlace::admit(&app, peer, !seats.is_empty(), &slot, &id)?;
    let guard = ws::SocketGuard::admit(std::sync::Arc::clone(&slot), seats.first().copied(), &id)?;
    let upgrade = match upgrade {
        Ok(upgrade) => upgrade,
        // A page's probe after an upgrade that failed (browsers do not tell why): a connection
        // would be taken now.
        Err(_) if ws_probe(&uri) => return Ok(StatusCode::NO_CONTENT.into_response()),
        Err(rej) => return Ok(upgrade_refused(&rej, &headers)),
    };
    Ok(upgrade
        .protocols([WS_PROTOCOL])
        .max_message_size(ws::MAX_FRAME)
        .max_frame_size(ws::MAX_FRAME)
        .read_buffer_size(ws::READ_BUFFER)
        .write_buffer_size(ws::WRITE_BUFFER)
        .on_upgrade(move |socket| ws::serve(socket, app, slot, client, guard, seats)))
}

/// Whether a request for a game's socket is a probe (`?probe=1`): a plain `GET` that the page
/// sends after an upgrade that failed, to learn why (a browser does not tell it). It is
/// answered as the upgrade of a watcher would be (the refusal, with its message), or `204` when
/// a connection would be taken.
fn ws_probe(uri: &axum::http::Uri) -> bool {
    uri.query()
        .is_some_and(|q| q.split('&').any(|p| p == "probe=1"))
}

/// The answer to a request for a game's socket that is not a WebSocket upgrade this server
/// takes. A version other than 13 is `426 Upgrade Required` with `Sec-WebSocket-Version: 13`
/// (RFC 6455, section 4.2.2: the client's library reads the header to retry with a version the
/// server speaks); a missing version is a malformed handshake, 400 with the same header; the
/// other rejections keep axum's status (400, 405, 426) with the API's JSON body.
fn upgrade_refused(rej: &WebSocketUpgradeRejection, headers: &axum::http::HeaderMap) -> Response {
    if let WebSocketUpgradeRejection::InvalidWebSocketVersionHeader(_) = rej {
        let err = match headers.get(header::SEC_WEBSOCKET_VERSION) {
            Some(v) => ApiError::new(
                StatusCode::UPGRADE_REQUIRED,
                format!(
                    "WebSocket version '{}' is not supported: this server speaks version 13 \
                     (Sec-WebSocket-Version: 13)",
                    crate::util::cut(
                        &String::from_utf8_lossy(v.as_bytes()),
                        crate::util::QUOTE_MAX
                    )
                ),
            ),
            None => ApiError::bad_request(
                "a WebSocket upgrade needs the header Sec-WebSocket-Version: 13",
            ),
        };
        let mut resp = err.into_response();
        resp.headers_mut().insert(
            header::SEC_WEBSOCKET_VERSION,
            HeaderValue::from_static("13"),
        );
        return resp;
    }
    ApiError::new(
        rej.status(),
        format!("a WebSocket upgrade is expected here: {}", rej.body_text()),
    )
    .into_response()
}

/// Any other path under `/api/` (the path named as the client sent it, `/api` included).
pub async fn api_not_found(uri: axum::extract::OriginalUri) -> ApiError {
    ApiError::not_found(format!(
        "no such API endpoint: {}",
        crate::util::cut(uri.path(), crate::util::QUOTE_MAX)
    ))
}

/// A known path with the wrong method.
pub async fn method_not_allowed(
    method: axum::http::Method,
    uri: axum::extract::OriginalUri,
) -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        format!(
            "{} is not allowed on {}",
            crate::util::cut(method.as_str(), crate::util::QUOTE_MAX),
            crate::util::cut(uri.path(), crate::util::QUOTE_MAX)
        ),
    )
}

/// The web page's files.
pub async fn static_file(
    method: axum::http::Method,
    uri: axum::http::Uri,
    headers: axum::http::HeaderMap,
) -> Response {
    // `/api/` itself is not matched by the nested API router, nor is an API path with a
    // doubled slash (`//api/meta`, a base URL ending in `/`): answer them as the API does,
    // naming the path as sent.
    if uri.path().trim_start_matches('/').starts_with("api/") {
        return ApiError::not_found(format!(
            "no such API endpoint: {}",
            crate::util::cut(uri.path(), crate::util::QUOTE_MAX)
        ))
        .into_response();
    }
    if method != axum::http::Method::GET && method != axum::http::Method::HEAD {
        let mut resp = (
            StatusCode::METHOD_NOT_ALLOWED,
            format!(
                "{} is not allowed on {}\n",
                crate::util::cut(method.as_str(), crate::util::QUOTE_MAX),
                crate::util::cut(uri.path(), crate::util::QUOTE_MAX)
            ),
        )
            .into_response();
        resp.headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return resp;
    }
    let path = uri.path().trim_start_matches('/');
    if path
        .split('/')
        .any(|seg| seg == ".." || seg.starts_with('.'))
    {
        return (
            StatusCode::NOT_FOUND,
            format!(
                "not found: {}\n",
                crate::util::cut(uri.path(), crate::util::QUOTE_MAX)
            ),
        )
            .into_response();
    }
    assets::serve(path, uri.path(), &headers)
}
