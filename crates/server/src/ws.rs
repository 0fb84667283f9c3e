//! `GET /api/games/{id}/ws`: live updates for players and watchers, and moves from players.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::sync::broadcast::error::RecvError;

use crate::app::{App, Slot};
use crate::error::{read_object, ApiError, ShapeError};
use pussa_rules::Side;

/// Largest message the socket accepts at all (bigger: the connection is closed).
pub const MAX_FRAME: usize = 64 * 1024;
/// Largest message that is read (bigger, up to [`MAX_FRAME`]: an error 413).
pub const MAX_MESSAGE: usize = 4 * 1024;
/// The read buffer a WebSocket connection starts with (the library's default is 128 KiB, most
/// of what an idle connection would cost): a message the protocol reads fits, and it grows for
/// a bigger frame (up to [`MAX_FRAME`]) while one arrives.
pub const READ_BUFFER: usize = 4 * 1024;
/// How many bytes of outgoing frames are gathered before they are written (the library's
/// default is 128 KiB); every message is flushed when sent, so this only bounds a batch.
pub const WRITE_BUFFER: usize = 8 * 1024;
/// Messages a second allowed on one connection, on average.
pub const RATE_PER_SEC: f64 = 20.0;
/// Messages allowed at once.
pub const BURST: f64 = 40.0;
/// Rejected messages after which the connection is closed.
pub const MAX_REJECTED: u32 = 200;

/// How often the server pings a connection.
pub const PING_EVERY: Duration = Duration::from_secs(30);
/// A connection from which nothing (not even a pong) arrives for this long is closed, so that
/// dead or silent clients do not keep a game's places.
pub const IDLE_LIMIT: Duration = Duration::from_secs(75);
/// A player's connection that sends nothing for this long stops making its seat present (the
/// other player sees them away, and the claim countdown starts from their last message) until
/// it sends something again. The page sends a `ping` every 2 s, so this is three missed pings
/// and a second to spare: a network that drops without closing the socket (Wi-Fi gone, a
/// laptop asleep) shows as away within it. WebSocket pongs do not count (they answer the
/// server's pings, which come every [`PING_EVERY`]); any message or ping frame does. A
/// watcher's connection silent as long stops being counted among the game's watchers (the
/// page pings every 2 s whoever it is), until it sends something again.
pub const PRESENCE_SILENCE: Duration = Duration::from_secs(7);

/// Watchers (connections that have not said hello with a seat's token) one game accepts at
/// once. The players' connections never count against it: a player connects with its seat's
/// token (`Sec-WebSocket-Protocol: pussa, pussa.token.SEAT_TOKEN`, as the page does, or
/// `?token=`) and always gets a place. There is no place kept for
/// connections that say hello only after connecting: anyone could fill such places and lock a
/// player out, so a tokenless connection over the cap is refused (429) whoever it is.
pub const MAX_WATCHERS: usize = 100;
/// Connections one seat may have at once (tabs of the same player).
pub const MAX_SOCKETS_PER_SEAT: usize = 16;

/// The WebSocket connections admitted over every game, in all and by client, and their caps
/// ([`crate::conn::Limits::max_websockets`], [`crate::conn::Limits::max_websockets_per_client`];
/// set by [`crate::Server::run`]).
#[derive(Debug)]
pub struct Connections {
    total: usize,
    by_client: std::collections::HashMap<std::net::IpAddr, usize>,
    /// The games each client's connections hold in memory (a game with a connection open
    /// cannot leave it), with how many of its connections each has: within the client's share
    /// of the caps on memory ([`App::pin_share`]).
    pinned: std::collections::HashMap<std::net::IpAddr, std::collections::HashMap<String, Pin>>,
    max: usize,
    max_per_client: usize,
}

impl Default for Connections {
    fn default() -> Connections {
        let limits = crate::conn::Limits::default();
        Connections {
            total: 0,
            by_client: std::collections::HashMap::new(),
            pinned: std::collections::HashMap::new(),
            max: limits.max_websockets,
            max_per_client: limits.max_websockets_per_client,
        }
    }
}

impl Connections {
    /// Sets the caps (`max` in all, `max_per_client` for one client), at least 1 each.
    pub fn set_caps(&mut self, max: usize, max_per_client: usize) {
        self.max = max.max(1);
        self.max_per_client = max_per_client.max(1);
    }

    /// Connections admitted now.
    #[must_use]
    pub fn total(&self) -> usize {
        self.total
    }
}

/// A game a client's connections hold in memory.
struct Pin {
    slot: Arc<Slot>,
    sockets: usize,
}

impl std::fmt::Debug for Pin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pin")
            .field("plies", &self.slot.plies())
            .field("sockets", &self.sockets)
            .finish()
    }
}

/// Holds a WebSocket connection's place in the server's cap and its client's, and its game in
/// its client's share of memory; gives them back when dropped.
pub struct ClientPlace {
    app: Arc<App>,
    /// The client's key ([`crate::client::key`]).
    client: Option<std::net::IpAddr>,
    /// The game's id.
    game: String,
    /// The client's address, for the log.
    addr: Option<std::net::IpAddr>,
}

impl ClientPlace {
    /// Takes a place for a new WebSocket connection from `client` (its address; counted by
    /// [`crate::client::key`]) to game `id` held in `slot`, `seated` when it carries a seat's
    /// token.
    ///
    /// A connection holds its game in memory while it is open, so the games one client's
    /// connections hold are kept within its share of the caps on memory ([`App::pin_share`]:
    /// an eighth of the games and of the moves): a connection to one more game is refused when
    /// the client's games, with this one, would go over it. A client may always connect to
    /// one game, however long, and to the games it is connected to already; a seated
    /// connection (its seat's token) to its own game is never refused for the share (the share
    /// is for watchers), though its game counts in the share its watchers are checked against.
    ///
    /// # Errors
    /// 429 `too many WebSocket connections from your address: …` when the client has its
    /// share open; 429 `your address's WebSockets hold as many games in memory as one client
    /// may: …` when the game would take the client over its share of memory; 503 `the server
    /// has too many WebSocket connections open: …` (with `Retry-After`) when the server has
    /// its cap open, or seven eighths of it and the connection is a watcher's: the last eighth
    /// is kept for the players.
    pub fn admit(
        app: &Arc<App>,
        client: Option<std::net::IpAddr>,
        seated: bool,
        slot: &Arc<Slot>,
        id: &str,
    ) -> Result<ClientPlace, ApiError> {
        let addr = client;
        let client = client.map(crate::client::key);
        let mut c = crate::app::lock(&app.connections);
        let open_to_all = c.max - c.max / 8;
        if c.total >= c.max || (!seated && c.total >= open_to_all) {
            let mut e = ApiError::new(
                axum::http::StatusCode::SERVICE_UNAVAILABLE,
                format!(
                    "the server has too many WebSocket connections open ({} of {}; the last \
                     {} are kept for players): try again later",
                    c.total,
                    c.max,
                    c.max - open_to_all
                ),
            );
            e.retry_after = Some(10);
            return Err(e);
        }
        if let Some(ip) = client {
            let max = c.max_per_client;
            if c.by_client.get(&ip).copied().unwrap_or(0) >= max {
                return Err(ApiError::too_many(format!(
                    "too many WebSocket connections from your address: at most {max} at once, \
                     over every game; close some"
                )));
            }
            let pins = c.pinned.entry(ip).or_default();
            if !seated && !pins.contains_key(id) && !pins.is_empty() {
                let (games, plies) = app.pin_share();
                let held: usize = pins
                    .values()
                    .map(|p| p.slot.plies())
                    .sum::<usize>()
                    .saturating_add(slot.plies());
                if pins.len() >= games || held > plies {
                    let (max_games, max_plies) = app.memory_caps();
                    let e = ApiError::too_many(format!(
                        "your address's WebSockets hold as many games in memory as one client \
                         may: at most {} and {plies} moves in all (of the {} and {max_plies} \
                         moves the server holds); close the connections to other games first",
                        crate::util::games(games),
                        crate::util::games(max_games),
                    ));
                    return Err(e);
                }
            }
            pins.entry(id.to_string())
                .or_insert_with(|| Pin {
                    slot: Arc::clone(slot),
                    sockets: 0,
                })
                .sockets += 1;
            *c.by_client.entry(ip).or_insert(0) += 1;
        }
        c.total += 1;
        Ok(ClientPlace {
            app: Arc::clone(app),
            client,
            game: id.to_string(),
            addr,
        })
    }
}

impl Drop for ClientPlace {
    fn drop(&mut self) {
        let mut c = crate::app::lock(&self.app.connections);
        c.total -= 1;
        if let Some(ip) = self.client {
            if let Some(n) = c.by_client.get_mut(&ip) {
                *n -= 1;
                if *n == 0 {
                    c.by_client.remove(&ip);
                }
            }
            if let Some(pins) = c.pinned.get_mut(&ip) {
                if let Some(p) = pins.get_mut(&self.game) {
                    p.sockets -= 1;
                    if p.sockets == 0 {
                        pins.remove(&self.game);
                    }
                }
                if pins.is_empty() {
                    c.pinned.remove(&ip);
                }
            }
        }
    }
}

/// A game's connection places in use.
#[derive(Debug, Default)]
pub struct Places {
    /// Connections without a seat, within [`MAX_WATCHERS`].
    watchers: usize,
    /// Connections that hold each seat, `[South, North]`.
    seats: [usize; 2],
}

/// Which place a connection holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    Watcher,
    Seat(Side),
}

/// Holds one of a game's connection places; gives it back when dropped.
pub struct SocketGuard {
    slot: Arc<Slot>,
    place: Place,
}

impl SocketGuard {
    /// Takes a place in `slot`'s game for a new connection: the seat's own (`seat` given: the
    /// upgrade carried that seat's token), else a watcher's.
    ///
    /// # Errors
    /// 429 when the seat already has [`MAX_SOCKETS_PER_SEAT`] connections, or (without a seat)
    /// when the game has [`MAX_WATCHERS`] watchers.
    pub fn admit(slot: Arc<Slot>, seat: Option<Side>, id: &str) -> Result<SocketGuard, ApiError> {
        let place = {
            let mut p = lock_places(&slot);
            match seat {
                Some(side) => {
                    if p.seats[side.index()] >= MAX_SOCKETS_PER_SEAT {
                        return Err(seat_full(id, side));
                    }
                    p.seats[side.index()] += 1;
                    Place::Seat(side)
                }
                None if p.watchers < MAX_WATCHERS => {
                    p.watchers += 1;
                    Place::Watcher
                }
                None => {
                    return Err(ApiError::too_many(format!(
                        "too many watchers of game {id}: at most {MAX_WATCHERS} at once (players \
                         connect with their seat's token and always get a place)"
                    )))
                }
            }
        };
        Ok(SocketGuard { slot, place })
    }

    /// Moves a watcher's connection that said hello for `side` to that seat's places (a
    /// connection that holds a seat already keeps its place).
    ///
    /// # Errors
    /// 429 when the seat already has [`MAX_SOCKETS_PER_SEAT`] connections.
    fn promote(&mut self, side: Side, id: &str) -> Result<(), ApiError> {
        if matches!(self.place, Place::Seat(_)) {
            return Ok(());
        }
        let mut p = lock_places(&self.slot);
        if p.seats[side.index()] >= MAX_SOCKETS_PER_SEAT {
            return Err(seat_full(id, side));
        }
        p.seats[side.index()] += 1;
        match self.place {
            Place::Watcher => p.watchers -= 1,
            Place::Seat(_) => {}
        }
        self.place = Place::Seat(side);
        Ok(())
    }
}

fn seat_full(id: &str, side: Side) -> ApiError {
    ApiError::too_many(format!(
        "{side} already has {MAX_SOCKETS_PER_SEAT} connections to game {id}: close some"
    ))
}

fn lock_places(slot: &Slot) -> std::sync::MutexGuard<'_, Places> {
    slot.places
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Drop for SocketGuard {
    fn drop(&mut self) {
        let mut p = lock_places(&self.slot);
        match self.place {
            Place::Watcher => p.watchers -= 1,
            Place::Seat(side) => p.seats[side.index()] -= 1,
        }
    }
}

/// A connection of the game: a watcher until it says hello with a seat's token (or a player's
/// from the start, when it connected with its seat's token); the seats it holds stop being present
/// through it when it ends. Counted from its creation until it is released or dropped.
struct Seated {
    slot: Arc<Slot>,
    seats: [bool; 2],
    open: bool,
    /// Silent for [`PRESENCE_SILENCE`]: its seats are not present through it (a watcher's
    /// connection: it is not counted among the watchers).
    quiet: bool,
    /// When it last sent something (pongs aside).
    spoke: Instant,
    place: SocketGuard,
}

impl Seated {
    /// A new connection, holding `sides` from the start (its upgrade's token) or none (a
    /// watcher).
    fn new(slot: Arc<Slot>, place: SocketGuard, sides: &[Side]) -> Seated {
        slot.touch();
        slot.connect(sides);
        let mut seats = [false, false];
        for side in sides {
            seats[side.index()] = true;
        }
        Seated {
            slot,
            seats,
            open: true,
            quiet: false,
            spoke: Instant::now(),
            place,
        }
    }

    fn claim(&mut self, sides: &[Side]) {
        let first = self.seats == [false, false];
        let new: Vec<Side> = sides
            .iter()
            .copied()
            .filter(|s| !std::mem::replace(&mut self.seats[s.index()], true))
            .collect();
        if !new.is_empty() {
            self.slot.arrive(&new, first);
        }
    }

    fn release(&mut self) {
        if !std::mem::replace(&mut self.open, false) {
            return;
        }
        // Asked for until now: the game leaves memory after those merely looked at since.
        self.slot.touch();
        let seated = self.seats != [false, false];
        let held: Vec<Side> = Side::BOTH
            .into_iter()
            .filter(|s| std::mem::replace(&mut self.seats[s.index()], false))
            .collect();
        // A quiet connection's seats were already given up.
        self.slot.leave(&held, seated, self.quiet);
    }

    /// The seats it makes present (none when quiet).
    fn present_seats(&self) -> Vec<Side> {
        Side::BOTH
            .into_iter()
            .filter(|s| self.seats[s.index()] && !self.quiet)
            .collect()
    }

    /// Silent for [`PRESENCE_SILENCE`]: its seats stop being present through it; a watcher's
    /// connection stops being counted among the watchers.
    fn go_quiet(&mut self) {
        if self.quiet {
            return;
        }
        if self.seats == [false, false] {
            self.quiet = true;
            self.slot.watcher_quiet();
            return;
        }
        let held = self.present_seats();
        if !held.is_empty() {
            self.quiet = true;
            self.slot.go_quiet(&held, self.spoke);
        }
    }

    /// It sent something: its seats are present through it again (a watcher's connection:
    /// counted again).
    fn heard(&mut self) {
        self.spoke = Instant::now();
        if std::mem::replace(&mut self.quiet, false) {
            if self.seats == [false, false] {
                self.slot.watcher_wake();
            } else {
                let held = self.present_seats();
                self.slot.wake(&held);
            }
        }
    }
}

impl Drop for Seated {
    fn drop(&mut self) {
        self.release();
    }
}

/// A token bucket.
struct Bucket {
    tokens: f64,
    last: Instant,
}

impl Bucket {
    fn new() -> Bucket {
        Bucket {
            tokens: BURST,
            last: Instant::now(),
        }
    }
    fn take(&mut self) -> bool {
        let now = Instant::now();
        self.tokens =
            (self.tokens + now.duration_since(self.last).as_secs_f64() * RATE_PER_SEC).min(BURST);
        self.last = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

fn error_msg(e: &ApiError, req: &Value) -> String {
    json!({"type": "error", "status": e.status.as_u16(), "message": e.message, "req": req})
        .to_string()
}

/// What a client may send. Read as HTTP bodies are ([`crate::error::read_object`]): an
/// object, no field twice, no unknown field (a misspelt `expected_ply` must not turn the guard
/// off).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ClientMsg {
    #[serde(rename = "type")]
    kind: String,
    #[serde(rename = "move")]
    mv: Option<String>,
    token: Option<String>,
    expected_ply: Option<u64>,
    #[serde(default)]
    req: Value,
}

/// Serves one connection until either side closes it. `seats`: those the upgrade's token
/// holds (the connection is seated as by a hello); `client`: its place in the server's and
/// its client's caps ([`ClientPlace::admit`]); `place`: its place in the game
/// ([`SocketGuard::admit`]). Its opening and its end are logged (`info`), with the game and
/// the client's address.
pub async fn serve(
    socket: WebSocket,
    app: Arc<App>,
    slot: Arc<Slot>,
    client: ClientPlace,
    place: SocketGuard,
    seats: Vec<Side>,
) {
    // Logged when it ends, however it ends.
    struct Logged {
        id: String,
        client: ClientPlace,
        since: Instant,
    }
    impl Drop for Logged {
        fn drop(&mut self) {
            tracing::info!(
                "game {}: WebSocket from {} closed after {:.1} s",
                self.id,
                crate::conn::client_text(self.client.addr, None),
                self.since.elapsed().as_secs_f64()
            );
        }
    }
    let id = slot.id();
    tracing::info!(
        "game {id}: WebSocket from {} opened ({}; {} open)",
        crate::conn::client_text(client.addr, None),
        match seats.as_slice() {
            [] => "a watcher".to_string(),
            [side] => format!("{side}'s seat"),
            _ => "both seats".to_string(),
        },
        crate::app::lock(&app.connections).total()
    );
    let _logged = Logged {
        id: id.clone(),
        client,
        since: Instant::now(),
    };
    // Counted until the closing handshake ends, so that a shutdown waits for it.
    struct Open<'a>(&'a App);
    impl Drop for Open<'_> {
        fn drop(&mut self) {
            self.0
                .sockets_open
                .fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
        }
    }
    app.sockets_open
        .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
    let _open = Open(&app);
    let (mut sink, mut stream) = socket.split();
    // One more watcher, or (with the upgrade's token) its seats present from the start: told
    // to the others in one presence before this connection subscribes (it gets the counts in
    // its own presence below).
    let mut seated = Seated::new(Arc::clone(&slot), place, &seats);
    // Subscribed before the first message, and seen as a change if the server is already
    // shutting down: a shutdown that came between the upgrade and here still closes the
    // connection (1001), instead of leaving it open until it idles out.
    let mut shutdown = app.shutdown.subscribe();
    if *shutdown.borrow() {
        shutdown.mark_changed();
    }
    let mut updates = slot.tx.subscribe();
    // The state is read after subscribing, so no update between the two is missed.
    let hello = crate::app::state_message(&slot.state_text());
    if sink.send(Message::Text(hello.into())).await.is_err() {
        return;
    }
    if sink
        .send(Message::Text(slot.presence().to_string().into()))
        .await
        .is_err()
    {
        return;
    }
    // A game that has its rematch already says so right away; the broadcast of it, if this
    // connection subscribed before it was made, is then not sent a second time.
    let mut rematch_sent = slot.rematch_message();
    if let Some(text) = &rematch_sent {
        if sink
            .send(Message::Text(text.as_str().into()))
            .await
            .is_err()
        {
            return;
        }
    }
    let mut bucket = Bucket::new();
    let mut rejected = 0u32;
    let mut ping = tokio::time::interval_at(tokio::time::Instant::now() + PING_EVERY, PING_EVERY);
    let mut last_heard = Instant::now();
    let silence = tokio::time::sleep(PRESENCE_SILENCE);
    tokio::pin!(silence);
    // A frame the WebSocket layer refused: the rest of it is never read into memory (the
    // connection drops it as it closes: see `conn::Lingering`).
    let mut broken = false;
    loop {
        tokio::select! {
            () = &mut silence, if !seated.quiet => seated.go_quiet(),
            _ = ping.tick() => {
                if last_heard.elapsed() >= IDLE_LIMIT {
                    let _ = sink
                        .send(Message::Close(Some(CloseFrame { code: 1001, reason: "idle: no message or pong for 75 s".into() })))
                        .await;
                    break;
                }
                if sink.send(Message::Ping(Default::default())).await.is_err() {
                    break;
                }
            }
            _ = shutdown.changed() => {
                let _ = sink
                    .send(Message::Close(Some(CloseFrame { code: 1001, reason: "server shutting down".into() })))
                    .await;
                break;
            }
            update = updates.recv() => {
                let texts: Vec<Utf8Bytes> = match update {
                    Ok(text) if rematch_sent.as_deref() == Some(&*text) => Vec::new(),
                    Ok(text) => {
                        if rematch_sent.is_none() {
                            rematch_sent = slot.rematch_message().filter(|m| **m == *text);
                        }
                        vec![(&*text).into()]
                    }
                    Err(RecvError::Lagged(_)) => {
                        // Too slow to keep up: send the current state and presence (and the
                        // rematch, if the backlog may have held it) instead of the backlog.
                        // The backlog is dropped: a fresh receiver gets only what is published
                        // from now on, and the state is read after it, as on connecting, so
                        // no update older than the state follows it and none newer is lost.
                        updates = updates.resubscribe();
                        let mut texts: Vec<Utf8Bytes> = vec![
                            crate::app::state_message(&slot.state_text()).into(),
                            slot.presence().to_string().into(),
                        ];
                        if rematch_sent.is_none() {
                            rematch_sent = slot.rematch_message();
                            texts.extend(rematch_sent.as_deref().map(Utf8Bytes::from));
                        }
                        texts
                    }
                    Err(RecvError::Closed) => break,
                };
                let mut sent = true;
                for text in texts {
                    sent = sent && sink.send(Message::Text(text)).await.is_ok();
                }
                if !sent {
                    break;
                }
            }
            msg = stream.next() => {
                let msg = match msg {
                    Some(Ok(msg)) => msg,
                    Some(Err(e)) => {
                        // A broken frame: say why as the connection closes (RFC 6455 codes).
                        let reason = e.to_string();
                        let _ = sink
                            .send(Message::Close(Some(CloseFrame {
                                code: close_code(&reason),
                                reason: truncate(&reason, 120).into(),
                            })))
                            .await;
                        broken = true;
                        break;
                    }
                    None => break,
                };
                last_heard = Instant::now();
                slot.touch();
                if !matches!(msg, Message::Pong(_) | Message::Close(_)) {
                    seated.heard();
                    silence.as_mut().reset(tokio::time::Instant::now() + PRESENCE_SILENCE);
                }
                let reply = match msg {
                    Message::Text(t) => {
                        if !bucket.take() {
                            rejected += 1;
                            Some(error_msg(&ApiError::too_many("too many messages: at most 20 a second"), &req_of(t.as_str())))
                        } else if t.len() > MAX_MESSAGE {
                            rejected += 1;
                            Some(error_msg(&ApiError::new(axum::http::StatusCode::PAYLOAD_TOO_LARGE, format!("message too large: at most {MAX_MESSAGE} bytes")), &req_of(t.as_str())))
                        } else {
                            Some(handle(&app, &id, t.as_str(), &mut seated).await)
                        }
                    }
                    Message::Binary(b) => {
                        rejected += 1;
                        let req = std::str::from_utf8(&b).map_or(Value::Null, req_of);
                        Some(error_msg(&ApiError::bad_request("binary messages are not understood: send JSON text"), &req))
                    }
                    Message::Close(_) => break,
                    Message::Ping(_) | Message::Pong(_) => None,
                };
                if rejected > MAX_REJECTED {
                    let _ = sink
                        .send(Message::Close(Some(CloseFrame { code: 1008, reason: "flooding".into() })))
                        .await;
                    break;
                }
                if let Some(reply) = reply {
                    if sink.send(Message::Text(reply.into())).await.is_err() {
                        break;
                    }
                }
            }
        }
    }
    // Gone as far as the others are concerned, whatever the closing handshake takes.
    seated.release();
    // The closing handshake: read (and drop) what the peer still sends until its close frame,
    // so that the socket is not reset with unread data and the peer sees our close.
    // After a broken frame only our close frame is flushed: the frame's rest (up to its
    // announced length, which may be huge) is dropped by the connection's lingering close, not
    // buffered here.
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        let _ = sink.flush().await;
        if broken {
            return;
        }
        while let Some(Ok(msg)) = stream.next().await {
            if matches!(msg, Message::Close(_)) {
                break;
            }
        }
    })
    .await;
    let _ = tokio::time::timeout(Duration::from_millis(100), sink.close()).await;
}

/// The `req` of a message that is refused unread, when it has one, so that the sender can
/// match the error to its message.
fn req_of(text: &str) -> Value {
    serde_json::from_str::<Value>(text)
        .ok()
        .and_then(|v| v.get("req").cloned())
        .unwrap_or(Value::Null)
}

/// The close code for a frame the WebSocket layer refused (RFC 6455 section 7.4.1): 1009 a
/// message or data frame too big, 1007 not UTF-8, 1002 any other protocol error (a control
/// frame over 125 bytes included: that is a malformed frame, not a large message).
fn close_code(error: &str) -> u16 {
    let e = error.to_ascii_lowercase();
    if e.contains("control frame") {
        1002
    } else if e.contains("space limit") || e.contains("too long") || e.contains("too big") {
        1009
    } else if e.contains("utf-8") || e.contains("utf8") {
        1007
    } else {
        1002
    }
}

/// At most `max` bytes of `s`, cut at a character boundary (a close reason has room for 123).
fn truncate(s: &str, max: usize) -> &str {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Reads a client's message, or says what is wrong with it: `malformed JSON: …` for text that
/// is not JSON, `bad message: …` for JSON of the wrong shape.
fn read_message(text: &str) -> Result<ClientMsg, String> {
    if let Err(e) = serde_json::from_str::<serde::de::IgnoredAny>(text) {
        return Err(format!("malformed JSON: {e}"));
    }
    read_object(text).map_err(|e| match e {
        ShapeError::NotObject(found) => format!(
            "bad message: expected a JSON object like {{\"type\": \"move\", ...}}, found {found}"
        ),
        ShapeError::Fields(e) => format!("bad message: {e}"),
    })
}

/// One message from a client: the reply for the sender.
async fn handle(app: &Arc<App>, id: &str, text: &str, seated: &mut Seated) -> String {
    let msg = match read_message(text) {
        Ok(m) => m,
        Err(message) => return error_msg(&ApiError::bad_request(message), &req_of(text)),
    };
    match msg.kind.as_str() {
        "ping" => json!({"type": "pong", "req": msg.req}).to_string(),
        "hello" => {
            let Some(token) = msg.token.as_deref() else {
                return error_msg(
                    &ApiError::bad_request(
                        "a hello message needs \"token\": the seat's token (watchers send no hello)",
                    ),
                    &msg.req,
                );
            };
            let seats = seated.slot.seats_of(token);
            if seats.is_empty() {
                return error_msg(
                    &ApiError::forbidden(format!(
                        "this token holds no seat in game {id}: watchers send no hello"
                    )),
                    &msg.req,
                );
            }
            if let Err(e) = seated.place.promote(seats[0], id) {
                return error_msg(&e, &msg.req);
            }
            seated.claim(&seats);
            let letters: Vec<String> = seats.iter().map(|s| s.letter().to_string()).collect();
            let mut reply = json!({"type": "hello", "seats": letters, "req": msg.req});
            if let [side] = seats[..] {
                reply["seat"] = json!(side.letter().to_string());
            }
            reply.to_string()
        }
        "move" => {
            let (Some(mv), Some(token)) = (msg.mv.as_deref(), msg.token.as_deref()) else {
                return error_msg(
                    &ApiError::bad_request("a move message needs \"move\" and \"token\""),
                    &msg.req,
                );
            };
            // Acknowledged once the move is stored: the computer's reply (if any) comes after
            // as an update of its own, however long it thinks. The play goes on if this stops
            // waiting (it runs on a task of its own: see `App::play`).
            let (stored_tx, stored_rx) = tokio::sync::oneshot::channel();
            let play = app.play(id, token, mv, msg.expected_ply, Some(stored_tx));
            tokio::pin!(play);
            let ack = |ply: usize| json!({"type": "ack", "req": msg.req, "ply": ply}).to_string();
            tokio::select! {
                biased;
                Ok(ply) = stored_rx => ack(ply),
                r = &mut play => match r {
                    Ok((_, played)) => ack(played.first().map_or(0, |p| p.rec.ply)),
                    Err(e) => error_msg(&e, &msg.req),
                },
            }
        }
        other => error_msg(
            &ApiError::bad_request(format!(
                "unknown message type '{other}': expected hello, move or ping"
            )),
            &msg.req,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::close_code;

    #[test]
    fn close_codes_follow_rfc_6455() {
        // tungstenite's texts for the frames it refuses.
        assert_eq!(
            close_code(
                "WebSocket protocol error: Control frame too big (payload must be 125 bytes or less)"
            ),
            1002
        );
        assert_eq!(
            close_code("WebSocket protocol error: Fragmented control frame"),
            1002
        );
        assert_eq!(
            close_code("Space limit exceeded: Message too long: 70000 > 65536"),
            1009
        );
        assert_eq!(close_code("UTF-8 encoding error"), 1007);
        assert_eq!(
            close_code("WebSocket protocol error: Reserved bits are non-zero"),
            1002
        );
    }
}
