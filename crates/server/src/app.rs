//! The server's shared state and the game operations used by both HTTP and WebSocket handlers.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pussa_rules::{Game, Hole, Side};
use serde_json::{json, Value};
use tokio::sync::{broadcast, Semaphore};

use crate::engine;
use crate::error::ApiError;
use crate::live::{self, EndKind, Ending, LiveGame, Meta, Offers, Opponent, Played};
use crate::store::{GameRow, MoveRow, Store};
use crate::util;

/// One game's slot: the game behind an async lock (moves on one game are serialised), the
/// channel that pushes updates to its WebSocket connections, and the hint guard.
pub struct Slot {
    /// The game.
    pub game: tokio::sync::Mutex<LiveGame>,
    /// Updates (JSON text) for every connection watching this game.
    pub tx: broadcast::Sender<Arc<str>>,
    hint_busy: AtomicBool,
    /// Whether a task is trying again a computer move that could not be made or stored
    /// (after [`COMPUTER_RETRY_FIRST`], then longer): one at a time per game.
    computer_retry: AtomicBool,
    /// The WebSocket connection places in use (see [`crate::ws::SocketGuard`]).
    pub places: Mutex<crate::ws::Places>,
    /// The state after the last change, readable while a move is being made (the computer may
    /// be thinking with the game locked): kept compactly, as JSON text (see [`Snap`]).
    snapshot: Mutex<Snap>,
    /// The moves the game has (its `ply`), counted against [`App::set_memory_caps`].
    plies: AtomicUsize,
    /// The fewest `moves` and `rounds` entries the state has had since the last `update` was
    /// published: the entries every connection already has, so that an update carries only
    /// what came after them ([`Slot::publish_update`]).
    kept: Mutex<[usize; 2]>,
    /// The seats' tokens, `[South, North]`: the game's, readable while it is locked (set again
    /// when the friend joins).
    tokens: Mutex<[Option<String>; 2]>,
    /// The seats the computer plays (always present).
    computer: [bool; 2],
    /// Who is connected: see [`Presence`].
    present: Mutex<Presence>,
    /// Whether the game is an online one (its absent seats get `away_ms`).
    online: bool,
    /// How long the other seat must be away before a player may claim (milliseconds; shared
    /// with [`App`], set by embedders).
    claim_after_ms: Arc<AtomicU64>,
    /// When a request or connection last asked for this game ([`App::evict_idle`]): a
    /// request, or a WebSocket connection's opening, any message and its closing
    /// ([`Slot::touch`]).
    last_used: Mutex<Instant>,
    /// The invite that took the online game's second seat, and when: a join asked again with it
    /// within [`JOIN_RETRY_WINDOW`] (its first answer was lost on the way) gets the same seat
    /// and token. Memory only: the database spends the invite at the join, so a restart (or
    /// the game leaving memory) closes the window.
    spent_invite: Mutex<Option<(String, Instant)>>,
}

/// How long after a join the invite that took the seat still answers that seat (the retry of
/// a join whose answer was lost): long enough for a phone to change networks, short enough
/// that an invite link left in a chat is not a lasting key to the seat.
pub const JOIN_RETRY_WINDOW: Duration = Duration::from_secs(120);

/// A game's state after its last change, as kept in memory: the state JSON as text (what a
/// `GET` and a WebSocket's first message send as they are), and the state without its `moves`
/// and `rounds` (what an update is made from, with the game's rounds). The text costs about
/// 210 bytes a move (each entry of `moves` with its `position` and `taken`); a `serde_json::Value` tree of the same state costs some 1.5 KiB a move,
/// which made a long game weigh megabytes.
#[derive(Clone)]
struct Snap {
    text: Arc<str>,
    head: Arc<Value>,
}

impl Snap {
    fn of(state: &Value) -> Snap {
        let head = match state.as_object() {
            Some(obj) => Value::Object(
                obj.iter()
                    .filter(|(k, _)| !matches!(k.as_str(), "moves" | "rounds"))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
            ),
            None => state.clone(),
        };
        Snap {
            text: Arc::from(state.to_string()),
            head: Arc::new(head),
        }
    }
}

/// A game's connections, counted under one lock so that the presence messages come in order.
#[derive(Debug)]
struct Presence {
    /// WebSocket connections that said hello for each seat, `[South, North]` (those gone
    /// quiet not counted).
    open: [usize; 2],
    /// Connections that said hello for each seat but have been silent for
    /// [`crate::ws::PRESENCE_SILENCE`]: open, yet not making the seat present.
    quiet: [usize; 2],
    /// Open WebSocket connections of the game (players and watchers).
    conns: usize,
    /// Those of them that said hello with a seat's token.
    seated: usize,
    /// Watchers' connections (no seat) silent for [`crate::ws::PRESENCE_SILENCE`]: open, yet
    /// not counted among the watchers, as a silent player is not counted present.
    quiet_watchers: usize,
    /// Since when each seat has had no connection (`None` while it has one): since the game
    /// was loaded if it never had one.
    absent_since: [Option<Instant>; 2],
}

impl Slot {
    fn new(game: LiveGame, claim_after_ms: &Arc<AtomicU64>) -> Arc<Slot> {
        let (tx, _) = broadcast::channel(64);
        let state = game.to_json();
        let kept = Mutex::new(entries(&state));
        let snapshot = Mutex::new(Snap::of(&state));
        let now = Instant::now();
        Arc::new(Slot {
            snapshot,
            plies: AtomicUsize::new(game.moves.len()),
            kept,
            tokens: Mutex::new(game.meta.tokens.clone()),
            computer: Side::BOTH.map(|s| game.is_computer(s)),
            present: Mutex::new(Presence {
                open: [0, 0],
                quiet: [0, 0],
                conns: 0,
                seated: 0,
                quiet_watchers: 0,
                absent_since: [Some(now), Some(now)],
            }),
            online: game.meta.opponent == Opponent::Online,
            claim_after_ms: Arc::clone(claim_after_ms),
            last_used: Mutex::new(now),
            spent_invite: Mutex::new(None),
            game: tokio::sync::Mutex::new(game),
            tx,
            hint_busy: AtomicBool::new(false),
            computer_retry: AtomicBool::new(false),
            places: Mutex::new(crate::ws::Places::default()),
        })
    }

    /// The moves the game has now (counted against [`App::set_memory_caps`]).
    #[must_use]
    pub fn plies(&self) -> usize {
        self.plies.load(Ordering::Relaxed)
    }

    /// Marks the game as asked for now (its place in the order [`App::set_memory_caps`] and
    /// [`App::evict_idle`] drop idle games in): a request, or a WebSocket connection's opening,
    /// messages and closing.
    pub fn touch(&self) {
        *lock(&self.last_used) = Instant::now();
    }

    /// The state after the last change (made from its text: for the answers that embed it).
    pub fn state(&self) -> Value {
        let text = self.state_text();
        serde_json::from_str(&text).unwrap_or(Value::Null)
    }

    /// The state after the last change, as JSON text.
    pub fn state_text(&self) -> Arc<str> {
        Arc::clone(&lock(&self.snapshot).text)
    }

    /// The state after the last change without its `moves` and `rounds`.
    fn head(&self) -> Arc<Value> {
        Arc::clone(&lock(&self.snapshot).head)
    }

    /// The game's id.
    pub fn id(&self) -> String {
        self.head()["id"].as_str().unwrap_or_default().to_string()
    }

    /// Records the state after a change (before it is published).
    fn set_state(&self, state: &Value) {
        let now = entries(state);
        {
            let mut kept = lock(&self.kept);
            *kept = [kept[0].min(now[0]), kept[1].min(now[1])];
        }
        self.plies.store(now[0], Ordering::Relaxed);
        *lock(&self.snapshot) = Snap::of(state);
    }

    /// Tells every connection of the moves `played`, just stored, in an update with the state
    /// after them; nothing if none was played.
    /// `g` is the game the moves were played in (locked by the caller): its `rounds` are not
    /// kept in the snapshot.
    fn publish_played(&self, g: &LiveGame, played: &[Played]) {
        if !played.is_empty() {
            let mut state = (*self.head()).clone();
            state["rounds"] = Value::Array(g.rounds.iter().map(live::round_json).collect());
            self.publish_update(json!({
                "type": "update", "state": state, "played": played_json(played)
            }));
        }
    }

    /// Publishes an `update` (`msg` with the whole new `state`, and `played`, `undone`, …) as
    /// what changed: the state without its `moves` and `rounds`, `moves_kept` (the entries of
    /// `moves` that stay: the new ones are `played`'s), `rounds_kept` and `rounds_added` (the
    /// entries of `rounds` after those). Its size does not grow with the game; a connection gets
    /// the whole state when it connects or falls behind (docs/api.md, WebSocket).
    fn publish_update(&self, mut msg: Value) {
        let new = msg.get("state").map(entries).unwrap_or_default();
        let [moves_kept, rounds_kept] = {
            let mut kept = lock(&self.kept);
            let was = [kept[0].min(new[0]), kept[1].min(new[1])];
            *kept = new;
            was
        };
        if let Some(state) = msg.get_mut("state").and_then(Value::as_object_mut) {
            state.remove("moves");
            let rounds = state.remove("rounds").unwrap_or(Value::Null);
            let added: Vec<Value> = rounds
                .as_array()
                .map(|r| r.iter().skip(rounds_kept).cloned().collect())
                .unwrap_or_default();
            msg["moves_kept"] = json!(moves_kept);
            msg["rounds_kept"] = json!(rounds_kept);
            msg["rounds_added"] = Value::Array(added);
        }
        self.publish(&msg);
    }

    /// The seats `token` holds (none for a wrong token), without waiting for the game.
    pub fn seats_of(&self, token: &str) -> Vec<Side> {
        crate::live::seats_holding(&lock(&self.tokens), token)
    }

    /// `{"type": "presence", "present": {"S": true, "N": false}, "watchers": 2, "away_ms":
    /// {"N": 17000}, "claim_after_ms": 60000}`: a computer seat is always present, a human seat
    /// while a connection that said hello for it is open and not silent for
    /// [`crate::ws::PRESENCE_SILENCE`]; `watchers` counts the connections
    /// that said no hello with a seat's token and are not silent for as long (a watcher whose
    /// network dropped without closing the socket stops being counted, as a player is seen away);
    /// `away_ms` how long each absent human seat of a joined online game has been away.
    pub fn presence(&self) -> Value {
        self.presence_of(&lock(&self.present))
    }

    fn presence_of(&self, p: &Presence) -> Value {
        let present = |s: Side| self.computer[s.index()] || p.open[s.index()] > 0;
        let joined = self.online && lock(&self.tokens).iter().all(Option::is_some);
        let mut away = serde_json::Map::new();
        if joined {
            for side in Side::BOTH {
                if let (false, Some(since)) = (present(side), p.absent_since[side.index()]) {
                    let ms = u64::try_from(since.elapsed().as_millis()).unwrap_or(u64::MAX);
                    away.insert(side.letter().to_string(), json!(ms));
                }
            }
        }
        json!({"type": "presence", "present": {
            "S": present(Side::South), "N": present(Side::North)
        }, "watchers": p.conns.saturating_sub(p.seated).saturating_sub(p.quiet_watchers), "away_ms": away,
        "claim_after_ms": self.claim_after().as_millis() as u64})
    }

    /// How long a seat must be away before the other player may claim.
    pub fn claim_after(&self) -> Duration {
        Duration::from_millis(self.claim_after_ms.load(Ordering::Relaxed))
    }

    /// How long `side` has been away (`None` while it is present, or played by the computer).
    pub fn away(&self, side: Side) -> Option<Duration> {
        if self.computer[side.index()] {
            return None;
        }
        let p = lock(&self.present);
        if p.open[side.index()] > 0 {
            return None;
        }
        Some(p.absent_since[side.index()].map_or(Duration::ZERO, |t| t.elapsed()))
    }

    /// A WebSocket connection opened: a watcher until it says hello (`sides` empty), or a
    /// player's holding `sides` from the start (it connected with `?token=`). Counted in one
    /// step, so that every connection of the game is told one presence: the new count of
    /// watchers, or the seat now present; none for a player's second tab, which changes
    /// neither.
    pub fn connect(&self, sides: &[Side]) {
        let mut p = lock(&self.present);
        p.conns += 1;
        if sides.is_empty() {
            self.publish(&self.presence_of(&p));
        } else {
            // Seated at once: the count of watchers does not change.
            self.arrive_locked(&mut p, sides, true, false);
        }
    }

    /// A connection said hello for `sides` (`first`: its first hello with a seat, so it stops
    /// being a watcher); every connection of the game is told when that makes a seat present
    /// or changes the count of watchers.
    pub fn arrive(&self, sides: &[Side], first: bool) {
        let mut p = lock(&self.present);
        self.arrive_locked(&mut p, sides, first, first);
    }

    /// A connection that had gone quiet ([`Slot::go_quiet`]) for `sides` spoke again: it makes
    /// them present again, as [`Slot::arrive`].
    pub fn wake(&self, sides: &[Side]) {
        let mut p = lock(&self.present);
        for side in sides {
            p.quiet[side.index()] = p.quiet[side.index()].saturating_sub(1);
        }
        self.arrive_locked(&mut p, sides, false, false);
    }

    /// Counts `sides` present for one connection (`seated`: the connection now holds a seat),
    /// and tells every connection of the game when a seat became present or, with
    /// `watchers_changed`, the count of watchers changed.
    fn arrive_locked(
        &self,
        p: &mut Presence,
        sides: &[Side],
        seated: bool,
        watchers_changed: bool,
    ) {
        let mut any = watchers_changed;
        if seated {
            p.seated += 1;
        }
        for side in sides {
            let i = side.index();
            p.open[i] += 1;
            if p.open[i] == 1 {
                p.absent_since[i] = None;
                any |= !self.computer[i];
            }
        }
        // Published under the lock, so that the messages come in the order of the counts.
        if any {
            self.publish(&self.presence_of(p));
        }
    }

    /// A connection closed, that had said hello for `sides` (none: a watcher); every connection
    /// of the game is told when that was a seat's last or a watcher counted. `seated`: the
    /// connection had said hello with a seat's token; `quiet`: it had gone quiet (see
    /// [`Slot::go_quiet`], [`Slot::watcher_quiet`]), so its `sides` were no longer present
    /// through it (a watcher's: it was no longer counted).
    pub fn leave(&self, sides: &[Side], seated: bool, quiet: bool) {
        let mut p = lock(&self.present);
        p.conns = p.conns.saturating_sub(1);
        let any = !seated && !quiet;
        if seated {
            p.seated = p.seated.saturating_sub(1);
        } else if quiet {
            p.quiet_watchers = p.quiet_watchers.saturating_sub(1);
        }
        let sides = if quiet {
            for side in sides {
                p.quiet[side.index()] = p.quiet[side.index()].saturating_sub(1);
            }
            &[][..]
        } else {
            sides
        };
        self.absent(&mut p, sides, Instant::now(), any);
    }

    /// A seated connection that stays open has sent nothing for
    /// [`crate::ws::PRESENCE_SILENCE`] (its network dropped without closing it): it stops
    /// making `sides` present, and they count as away since `since` (when it was last heard
    /// from) when it was their last. It is present again with [`Slot::arrive`] once it speaks.
    pub fn go_quiet(&self, sides: &[Side], since: Instant) {
        let mut p = lock(&self.present);
        for side in sides {
            p.quiet[side.index()] += 1;
        }
        self.absent(&mut p, sides, since, false);
    }

    /// A watcher's connection that stays open has sent nothing for
    /// [`crate::ws::PRESENCE_SILENCE`] (its network dropped without closing it, as the page
    /// pings every 2 s whoever it is): it stops being counted among the watchers, and every
    /// connection of the game is told the new count. Counted again with
    /// [`Slot::watcher_wake`] once it speaks.
    pub fn watcher_quiet(&self) {
        let mut p = lock(&self.present);
        p.quiet_watchers += 1;
        self.publish(&self.presence_of(&p));
    }

    /// A watcher's connection gone quiet ([`Slot::watcher_quiet`]) spoke again: it is counted
    /// among the watchers again.
    pub fn watcher_wake(&self) {
        let mut p = lock(&self.present);
        p.quiet_watchers = p.quiet_watchers.saturating_sub(1);
        self.publish(&self.presence_of(&p));
    }

    /// How long `side`'s connections have been silent, when it is absent only because they
    /// are: none is present, yet one that said hello for it is open and has gone quiet
    /// ([`Slot::go_quiet`]). `None` while the seat is present or has no connection open.
    pub fn silent_for(&self, side: Side) -> Option<Duration> {
        let p = lock(&self.present);
        let i = side.index();
        if p.open[i] > 0 || p.quiet[i] == 0 {
            return None;
        }
        Some(p.absent_since[i].map_or(Duration::ZERO, |t| t.elapsed()))
    }

    /// Takes one connection from each of `sides`; every connection of the game is told when
    /// that was a seat's last (or `any`).
    fn absent(&self, p: &mut Presence, sides: &[Side], since: Instant, mut any: bool) {
        for side in sides {
            let i = side.index();
            p.open[i] = p.open[i].saturating_sub(1);
            if p.open[i] == 0 {
                p.absent_since[i] = Some(since);
                any |= !self.computer[i];
            }
        }
        if any {
            self.publish(&self.presence_of(p));
        }
    }

    /// `{"type": "rematch", "id": NEW_ID}` once the game has a rematch (read from the state
    /// after the last change), the text every connection of the game is sent.
    pub fn rematch_message(&self) -> Option<String> {
        self.head()["rematch"].as_str().map(rematch_message)
    }

    fn publish(&self, msg: &Value) {
        // No receivers is fine: nobody is watching.
        let _ = self.tx.send(Arc::from(msg.to_string()));
    }
}

/// How many `moves` and `rounds` entries a state JSON has (`moves` has `ply` entries: a state
/// without its `moves` is counted as the whole state).
fn entries(state: &Value) -> [usize; 2] {
    let ply = state.get("ply").and_then(Value::as_u64).unwrap_or(0);
    let rounds = state
        .get("rounds")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    [usize::try_from(ply).unwrap_or(usize::MAX), rounds]
}

/// `{"type": "state", "state": …}` around a state's JSON text (a WebSocket's first message).
pub(crate) fn state_message(state: &str) -> String {
    format!(r#"{{"type":"state","state":{state}}}"#)
}

/// Takes a game's hint guard back when dropped.
struct HintGuard<'a>(&'a Slot);

impl Drop for HintGuard<'_> {
    fn drop(&mut self) {
        self.0.hint_busy.store(false, Ordering::Release);
    }
}

/// How long the health check keeps the result of its full read of the games' indexes
/// ([`crate::store::Store::check_indexes`]) before it reads them again.
pub const HEALTH_SCAN_EVERY: Duration = Duration::from_secs(60);

/// The games held in memory, by id, and the room reserved for games being made (counted
/// against [`App::set_memory_caps`] from the moment their room is found until they are held:
/// see [`Reserved`]).
struct Held {
    slots: HashMap<String, Arc<Slot>>,
    /// Games being made, and their moves, whose room is reserved.
    pending: [usize; 2],
}

impl std::ops::Deref for Held {
    type Target = HashMap<String, Arc<Slot>>;
    fn deref(&self) -> &Self::Target {
        &self.slots
    }
}

impl std::ops::DerefMut for Held {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.slots
    }
}

/// What [`App::make_room`] makes room for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Room {
    /// A game to make (new, imported, a rematch): one longer than the cap on moves is refused
    /// for good.
    New,
    /// A stored game loaded back: one longer than the cap on moves (the cap lowered since it
    /// was played) is refused for good, naming the option to raise.
    Stored,
    /// The moves a game held has just grown by (a commit): idle games are dropped until the
    /// moves held fit again, as far as idle games allow; never refused.
    Grown,
}

/// Room in memory reserved for a game being made ([`App::reserve`]): counted against the caps
/// until the game is held ([`Reserved::hold`]), or given back when dropped (the game was not
/// stored).
struct Reserved<'a> {
    app: &'a App,
    plies: usize,
    live: bool,
}

impl Reserved<'_> {
    /// Holds `slot` as game `id` in `games` (the games' lock, held by the caller) in place of
    /// the room reserved.
    fn hold(mut self, games: &mut Held, id: String, slot: Arc<Slot>) {
        games.pending[0] -= 1;
        games.pending[1] -= self.plies;
        self.live = false;
        games.insert(id, slot);
    }
}

impl Drop for Reserved<'_> {
    fn drop(&mut self) {
        if self.live {
            let mut games = lock(&self.app.games);
            games.pending[0] -= 1;
            games.pending[1] -= self.plies;
        }
    }
}

/// Shared server state.
pub struct App {
    store: Mutex<Store>,
    games: Mutex<Held>,
    /// Stored games that cannot be rebuilt (a damaged row or move, an unknown computer level),
    /// with the reason: refused with a 409, flagged in the list, never played on.
    damaged: Mutex<HashMap<String, String>>,
    engine: Arc<Semaphore>,
    /// Hints asked by each client (by [`crate::client::key`]) that are running or waiting.
    hint_clients: Arc<Mutex<crate::client::PerClient>>,
    /// Hints one client may have running or waiting at once ([`App::set_hints_per_client`]).
    hints_per_client: AtomicUsize,
    /// Replays for `GET …/positions` running at once (on blocking threads), over every game;
    /// one more is refused (`503`), not queued.
    positions: Arc<Semaphore>,
    /// The permits of `positions` (for the refusal's message).
    positions_at_once: AtomicUsize,
    /// Hints running at once, over every game: one core fewer than the engine has (at least
    /// one), so that hints asked in many games queue among themselves and the computer's
    /// replies always find a core.
    hints: Arc<Semaphore>,
    /// Endgame tables by game, set once before the server runs ([`App::set_tables`]).
    tables: std::sync::OnceLock<pussa_egtb::TablesDir>,
    /// Becomes true when the server shuts down: WebSocket connections close themselves.
    pub shutdown: tokio::sync::watch::Sender<bool>,
    /// How long a seat of an online game must be away before the other may claim
    /// (milliseconds; [`DEFAULT_CLAIM_AFTER`] until [`App::set_claim_after`]).
    claim_after_ms: Arc<AtomicU64>,
    /// Games one client address may create a minute (0: no limit; see
    /// [`App::set_new_games_per_minute`]).
    new_games_per_minute: AtomicU32,
    /// Each client address's allowance of new games.
    creations: Mutex<HashMap<std::net::IpAddr, Allowance>>,
    /// Unfinished games found sound when the server started.
    restored: usize,
    /// Games held in memory at most ([`App::set_memory_caps`]).
    max_games: AtomicUsize,
    /// Moves of the games held in memory at most, over every game ([`App::set_memory_caps`]).
    max_plies: AtomicUsize,
    /// WebSocket connections being served (see [`App::sockets_open`]).
    pub(crate) sockets_open: std::sync::atomic::AtomicUsize,
    /// When the server opened its database.
    started: Instant,
    /// The last full read of the games' indexes by the health check ([`Store::check_indexes`]):
    /// when, and the problem found.
    index_scan: Mutex<Option<(Instant, Option<String>)>>,
    /// WebSocket connections admitted, in all and by client, and their caps (see
    /// [`crate::ws::ClientPlace`]).
    pub(crate) connections: Mutex<crate::ws::Connections>,
}

/// A client's allowance of new games: a token bucket refilled continuously.
#[derive(Clone, Copy, Debug)]
struct Allowance {
    tokens: f64,
    last: Instant,
}

/// Games one client address may create a minute unless set otherwise (a burst of as many).
pub const DEFAULT_NEW_GAMES_PER_MINUTE: u32 = 120;

/// Hints one client address may have running or waiting at once unless set otherwise
/// ([`App::set_hints_per_client`]).
pub const DEFAULT_HINTS_PER_CLIENT: usize = 2;

/// One client's watcher WebSocket connections may hold in memory at most this fraction (1/8)
/// of the caps on games and moves ([`App::pin_share`]), checked when a connection opens: a
/// game with a connection open cannot leave memory, so without a share one visitor opening
/// many long games could fill the caps at once. It bounds what one address opens, not what its
/// games grow to once open nor what many addresses open together.
pub const PIN_SHARE: usize = 8;

/// Games held in memory at most unless set otherwise ([`App::set_memory_caps`]).
pub const DEFAULT_MAX_GAMES_IN_MEMORY: usize = 10_000;

/// Moves held in memory at most, over every game held, unless set otherwise
/// ([`App::set_memory_caps`]): about 135 MiB at the some 270 bytes a move a game held costs
/// (its state's JSON text, its moves, the allocator's share).
pub const DEFAULT_MAX_PLIES_IN_MEMORY: usize = 500_000;

/// How long a game nobody asks for stays in memory unless set otherwise (it is loaded again
/// from the database when asked for).
pub const DEFAULT_EVICT_AFTER: Duration = Duration::from_secs(600);

/// How long the server waits before trying again a computer move it could not make or store
/// (a full disk, a database locked by another program); the wait doubles after each failure,
/// up to [`COMPUTER_RETRY_MAX`].
pub const COMPUTER_RETRY_FIRST: Duration = Duration::from_secs(1);

/// The longest wait between two tries of a computer move (see [`COMPUTER_RETRY_FIRST`]).
pub const COMPUTER_RETRY_MAX: Duration = Duration::from_secs(60);

/// How long a player's friend must be away before the player may claim the game.
pub const DEFAULT_CLAIM_AFTER: Duration = Duration::from_secs(60);

/// How far back the `series` of a rematch is followed (a longer chain says `"game": null` and
/// `"partial": true`; each step is one indexed read).
const MAX_SERIES: usize = 10_000;

/// What `POST /api/games` asks for.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateReq {
    /// Rule set name.
    pub game: String,
    /// `single` (default) or `match`.
    pub mode: Option<String>,
    /// `S` (default) or `N`.
    pub first: Option<String>,
    /// Default: hotseat.
    pub opponent: Option<OpponentReq>,
    /// The creator's seat, `S` by default.
    pub seat: Option<String>,
    /// A position string to start from (its side to move moves first), instead of the
    /// game's opening layout.
    pub position: Option<String>,
}

/// The opponent asked for.
#[derive(Debug, serde::Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = r#"an object like {"kind": "computer", "level": "club"}"#
)]
pub struct OpponentReq {
    /// `computer`, `hotseat` or `online`.
    pub kind: String,
    /// The computer's level: a name or a number.
    pub level: Option<Value>,
}

impl OpponentReq {
    /// The opponent in `game` played as `mode`.
    ///
    /// # Errors
    /// 400 for an unknown kind, or a level that is unknown or not offered in that game and mode.
    pub fn parse(&self, game: Game, mode: pussa_rules::Mode) -> Result<Opponent, ApiError> {
        let level = match &self.level {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            Some(other) => {
                return Err(ApiError::bad_request(format!(
                    "opponent.level: expected a name or a number, found {other}"
                )))
            }
        };
        parse_opponent(&self.kind, level.as_deref(), game, mode)
    }
}

/// A game to create.
pub struct NewGame {
    /// Rule set.
    pub game: Game,
    /// Single or match.
    pub mode: pussa_rules::Mode,
    /// Who moves first.
    pub first: Side,
    /// The creator's seat.
    pub seat: Side,
    /// The opponent.
    pub opponent: Opponent,
    /// A start position other than the game's start (imported records).
    pub setup: Option<pussa_rules::Setup>,
    /// Moves to play at once (imported records).
    pub moves: Vec<Hole>,
    /// How the players ended it (an imported record of a resigned game, say).
    pub ended: Option<Ending>,
    /// The record's `Termination` text, kept for a forfeit or a loss on time
    /// ([`crate::live::Meta::termination`]).
    pub termination: Option<String>,
}

/// Locks `m`, a poisoned lock included (a panic elsewhere never leaves the server unable to
/// count or serve).
pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The message that tells a game's connections about its rematch `id` (no token: watchers get
/// it too).
fn rematch_message(id: &str) -> String {
    json!({"type": "rematch", "id": id}).to_string()
}

/// The rematch's answer for one seat of game `id` (the shape of `POST /api/games`'s).
fn seat_answer(id: &str, seat: Side, token: &str, state: Value) -> Value {
    json!({
        "id": id,
        "seat": seat.letter().to_string(),
        "seats": [seat.letter().to_string()],
        "token": token,
        "invite": null,
        "state": state,
        "played": [],
    })
}

/// Rebuilds a stored game and reads its `series` from the database. An unfinished game against
/// the computer must have a level this pussa knows, or the computer could never reply (a known
/// level since left off the game's ladder is kept: the game goes on at it).
fn load(
    store: &Store,
    row: &GameRow,
    moves: rusqlite::Result<Result<Vec<MoveRow>, String>>,
) -> Result<Result<LiveGame, String>, rusqlite::Error> {
    let moves = match moves? {
        Ok(moves) => moves,
        // The row's own damage is named first: it is what the list shows too.
        Err(why) => return Ok(Err(row.unreadable.clone().unwrap_or(why))),
    };
    Ok(rebuild(store, row, &moves))
}

/// A game whose stored data SQLite finds damaged (`database disk image is malformed`: a page
/// of the file overwritten or lost) cannot be continued, as one whose moves do not replay; other
/// database errors (I/O, a full disk) stay errors.
fn unreadable_as_damaged(
    loaded: Result<Result<LiveGame, String>, rusqlite::Error>,
) -> Result<Result<LiveGame, String>, rusqlite::Error> {
    match loaded {
        Err(e) if e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseCorrupt) => {
            Ok(Err(format!(
                "its stored data cannot be read: {}",
                crate::store::sqlite_words(&e)
            )))
        }
        other => other,
    }
}

/// [`load`] once the moves have read.
fn rebuild(store: &Store, row: &GameRow, moves: &[MoveRow]) -> Result<LiveGame, String> {
    let mut g = LiveGame::from_rows(row, moves)?;
    if let Opponent::Computer { level } = &g.meta.opponent {
        if !g.over() {
            level
                .parse::<pussa_engine::Level>()
                .map_err(|e| format!("the computer's level: {e}"))?;
        }
    }
    if g.meta.opponent == Opponent::Online {
        // Stored on the row when the rematch was made; an older pussa's rematch is followed back.
        let stored = row.series.as_deref().and_then(|s| {
            serde_json::from_str::<Value>(s)
                .ok()
                .filter(|v| v.get("score").is_some())
        });
        g.meta.series = match stored {
            Some(s) => Some(s),
            None => series(store, &row.id).map_err(|e| e.to_string())?,
        };
    }
    Ok(g)
}

/// The `series` of the rematch of `prev` (a finished online game): `prev`'s own series, one
/// game on, with `prev`'s result counted (a win 1, a draw ½, an aborted game nothing) and the
/// sides swapped, as the players swap seats. Worked out from `prev` alone, so that a rematch
/// costs the same however long its chain.
fn next_series(prev: &LiveGame) -> Value {
    let (game, partial, mut score) = match &prev.meta.series {
        Some(s) => (
            s["game"].as_u64(),
            s["partial"].as_bool().unwrap_or(false),
            [
                s["score"]["S"].as_f64().unwrap_or(0.0),
                s["score"]["N"].as_f64().unwrap_or(0.0),
            ],
        ),
        None => (Some(1), false, [0.0, 0.0]),
    };
    match prev.winner_name() {
        Some("draw") => {
            score[0] += 0.5;
            score[1] += 0.5;
        }
        Some("S") => score[0] += 1.0,
        Some("N") => score[1] += 1.0,
        _ => {}
    }
    // The player at South in `prev` plays North in its rematch.
    let (s, n) = (score[1], score[0]);
    match game {
        Some(game) if !partial => json!({"game": game + 1, "score": {"S": s, "N": n}}),
        _ => json!({"game": null, "partial": true, "score": {"S": s, "N": n}}),
    }
}

/// The `series` of game `id`, followed back through the database (for rematches stored by a
/// pussa that did not keep it on the row): `{"game": 3, "score": {"S": 1.5, "N": 0.5}}` when it
/// is a rematch, else `None` (followed back at most [`MAX_SERIES`] games: beyond, or on a link that
/// loops, `"game": null, "partial": true` and the score of the games followed). The score is the points
/// the players now at South and North won in the earlier games (a win 1, a draw ½; aborted and
/// unfinished games do not count); sides swap at every rematch.
fn series(store: &Store, id: &str) -> rusqlite::Result<Option<Value>> {
    let mut score = [0.0f64; 2];
    let mut back = 0usize;
    let mut cur = id.to_string();
    let mut seen = std::collections::HashSet::from([id.to_string()]);
    let mut partial = false;
    loop {
        let Some(prev) = store.rematch_of(&cur)? else {
            break;
        };
        // Cut short (never by the server's own links): say so rather than miscount.
        // A link to a row that does not read is cut short in the same way.
        if back >= MAX_SERIES || !seen.insert(prev.id.clone()) || prev.unreadable.is_some() {
            partial = true;
            break;
        }
        back += 1;
        let counted = prev.finished.is_some() && prev.ended.as_deref() != Some("abort");
        // The player now at South sat at North `back` games ago when `back` is odd.
        let now_side = |letter: &str| -> usize {
            let was_south = letter == "S";
            usize::from(was_south == (back % 2 == 1))
        };
        match (counted, prev.winner.as_deref()) {
            (true, Some("draw")) => {
                score[0] += 0.5;
                score[1] += 0.5;
            }
            (true, Some(w @ ("S" | "N"))) => score[now_side(w)] += 1.0,
            _ => {}
        }
        cur = prev.id;
    }
    Ok((back > 0).then(|| {
        if partial {
            json!({"game": null, "partial": true, "score": {"S": score[0], "N": score[1]}})
        } else {
            json!({"game": back + 1, "score": {"S": score[0], "N": score[1]}})
        }
    }))
}

/// The seats `token` holds in `g`, or `403 this token holds no seat in game …`.
fn seats_or_403(g: &LiveGame, token: &str) -> Result<Vec<Side>, ApiError> {
    let seats = g.seats_of(token);
    if seats.is_empty() {
        return Err(ApiError::forbidden(format!(
            "this token holds no seat in game {}",
            g.meta.id
        )));
    }
    Ok(seats)
}

/// `12` for whole seconds, `0.3` otherwise.
fn seconds(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        d.as_secs().to_string()
    } else {
        format!("{:.1}", d.as_secs_f64())
    }
}

/// The refusal of an `accept` with nothing of the other side's to accept (`what`: "draw
/// offer", "takeback proposal"): withdrawn meanwhile (or answered, or lapsed), or one's own.
fn nothing_to_accept(what: &str, own: bool) -> String {
    if own {
        format!("the {what} standing is your own: only your friend can accept it")
    } else {
        format!(
            "the {what} was withdrawn: your friend has none standing now, so nothing was accepted"
        )
    }
}

/// The checks every online-only ending action makes: an online game (`what` names the action
/// in the refusal), not over, the friend joined. Answers the caller's seat.
fn online_seat(g: &LiveGame, token: &str, what: &str) -> Result<Side, ApiError> {
    let seats = seats_or_403(g, token)?;
    if g.meta.opponent != Opponent::Online {
        return Err(ApiError::conflict(format!(
            "{what} is for online games: {}",
            match what {
                "a takeback" => "use undo (POST …/undo) in the others",
                _ => "resign instead",
            }
        )));
    }
    if g.over() {
        return Err(ApiError::conflict(g.over_message()));
    }
    check_joined(g)?;
    Ok(seats[0])
}

fn played_json(played: &[Played]) -> Value {
    Value::Array(played.iter().map(Played::to_json).collect())
}

impl App {
    /// Opens the store and rebuilds every unfinished game from its moves.
    ///
    /// # Errors
    /// When the list of unfinished games cannot be read. A stored game whose moves no longer
    /// replay, or cannot be read at all (a damaged page of the file: SQLite's `database disk
    /// image is malformed`), is logged and flagged (see [`App::damaged`]); it stays in the file
    /// untouched and the other games are served.
    pub fn open(store: Store) -> rusqlite::Result<Arc<App>> {
        let mut games = HashMap::new();
        let mut damaged = HashMap::new();
        let claim_after_ms = Arc::new(AtomicU64::new(DEFAULT_CLAIM_AFTER.as_millis() as u64));
        let mut restored = 0;
        for row in store.unfinished()? {
            match unreadable_as_damaged(load(&store, &row, store.moves(&row.id)))? {
                // Every game is checked; only those the computer must move in now stay in
                // memory (the others are loaded when asked for).
                Ok(g) => {
                    restored += 1;
                    if g.to_move().is_some_and(|side| g.is_computer(side)) {
                        games.insert(row.id.clone(), Slot::new(g, &claim_after_ms));
                    }
                }
                Err(e) => {
                    tracing::error!("game {} cannot be continued: {e}", row.id);
                    damaged.insert(row.id.clone(), e);
                }
            }
        }
        let threads = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
        let app = Arc::new(App {
            store: Mutex::new(store),
            games: Mutex::new(Held {
                slots: games,
                pending: [0, 0],
            }),
            damaged: Mutex::new(damaged),
            engine: Arc::new(Semaphore::new(threads)),
            hints: Arc::new(Semaphore::new(threads.saturating_sub(1).max(1))),
            hint_clients: Arc::new(Mutex::new(crate::client::PerClient::default())),
            hints_per_client: AtomicUsize::new(DEFAULT_HINTS_PER_CLIENT),
            positions: Arc::new(Semaphore::new(threads.saturating_sub(1).max(1))),
            positions_at_once: AtomicUsize::new(threads.saturating_sub(1).max(1)),
            tables: std::sync::OnceLock::new(),
            shutdown: tokio::sync::watch::Sender::new(false),
            claim_after_ms,
            new_games_per_minute: AtomicU32::new(DEFAULT_NEW_GAMES_PER_MINUTE),
            creations: Mutex::new(HashMap::new()),
            restored,
            max_games: AtomicUsize::new(DEFAULT_MAX_GAMES_IN_MEMORY),
            max_plies: AtomicUsize::new(DEFAULT_MAX_PLIES_IN_MEMORY),
            sockets_open: std::sync::atomic::AtomicUsize::new(0),
            started: Instant::now(),
            index_scan: Mutex::new(None),
            connections: Mutex::new(crate::ws::Connections::default()),
        });
        Ok(app)
    }

    /// How long a seat of an online game must be away before the other player may claim the
    /// game (`POST /api/games/{id}/claim`); [`DEFAULT_CLAIM_AFTER`] until set.
    pub fn set_claim_after(&self, after: Duration) {
        let ms = u64::try_from(after.as_millis()).unwrap_or(u64::MAX);
        self.claim_after_ms.store(ms, Ordering::Relaxed);
    }

    /// How many games one client address may create a minute (`POST /api/games`, `…/import`;
    /// a burst of as many; 0: no limit); [`DEFAULT_NEW_GAMES_PER_MINUTE`] until set.
    pub fn set_new_games_per_minute(&self, n: u32) {
        self.new_games_per_minute.store(n, Ordering::Relaxed);
    }

    /// Takes one new game from the allowance of the client at `ip` (none known: allowed); an
    /// IPv6 client is counted by its /64 ([`crate::client::key`]).
    ///
    /// # Errors
    /// 429 `too many new games from your address: …`, with the seconds until the next one is
    /// allowed (`Retry-After`).
    pub fn allow_new_game(&self, ip: Option<std::net::IpAddr>) -> Result<(), ApiError> {
        let per_minute = self.new_games_per_minute.load(Ordering::Relaxed);
        let Some(ip) = ip.filter(|_| per_minute > 0) else {
            return Ok(());
        };
        // An IPv6 client by its /64 (one host can use any address in it).
        let ip = crate::client::key(ip);
        let cap = f64::from(per_minute);
        let rate = cap / 60.0;
        let now = Instant::now();
        let refill =
            |a: &Allowance| (a.tokens + now.duration_since(a.last).as_secs_f64() * rate).min(cap);
        let mut all = lock(&self.creations);
        if all.len() >= 10_000 {
            // Forget the clients whose allowance is whole again.
            all.retain(|_, a| refill(a) < cap);
        }
        let a = all.entry(ip).or_insert(Allowance {
            tokens: cap,
            last: now,
        });
        a.tokens = refill(a);
        a.last = now;
        if a.tokens >= 1.0 {
            a.tokens -= 1.0;
            return Ok(());
        }
        let wait = ((1.0 - a.tokens) / rate).ceil().max(1.0) as u64;
        let mut e = ApiError::too_many(format!(
            "too many new games from your address: at most {per_minute} a minute; try again \
             in {wait} s"
        ));
        e.retry_after = Some(wait);
        Err(e)
    }

    /// Gives back to the client at `ip` the new game [`App::allow_new_game`] took for a game
    /// that was not made for want of room in memory (a `503`): a client that waits as told is
    /// not then refused for games it never got.
    pub fn give_back_new_game(&self, ip: Option<std::net::IpAddr>) {
        let per_minute = self.new_games_per_minute.load(Ordering::Relaxed);
        let Some(ip) = ip.filter(|_| per_minute > 0) else {
            return;
        };
        if let Some(a) = lock(&self.creations).get_mut(&crate::client::key(ip)) {
            a.tokens = (a.tokens + 1.0).min(f64::from(per_minute));
        }
    }

    /// Caps what the games held in memory may weigh: at most `games` games and `plies` moves
    /// over all of them ([`DEFAULT_MAX_GAMES_IN_MEMORY`] and [`DEFAULT_MAX_PLIES_IN_MEMORY`]
    /// until set). A game asked for (loaded from the database) or made past either cap takes the
    /// place of the games nobody has asked for longest and that nothing holds (no connection,
    /// request or computer move), as [`App::evict_idle`] drops them; when no such game is left,
    /// the request is refused with a `503`. Games being made count from the moment their room
    /// is found. A move that takes the moves held past the cap drops idle games the same way
    /// (the move is not refused for that); no one game may be longer than the cap on moves: a
    /// move past it is refused (`409`), a new or stored game longer than it is refused for good
    /// (`503` without `Retry-After`), so idle games can always bring the moves held under the
    /// cap. One client's WebSocket
    /// connections may hold at most [`App::pin_share`] of the caps.
    pub fn set_memory_caps(&self, games: usize, plies: usize) {
        self.max_games.store(games.max(1), Ordering::Relaxed);
        self.max_plies.store(plies.max(1), Ordering::Relaxed);
    }

    /// The caps on memory in force: (games, moves) held at most ([`App::set_memory_caps`]).
    #[must_use]
    pub fn memory_caps(&self) -> (usize, usize) {
        (
            self.max_games.load(Ordering::Relaxed),
            self.max_plies.load(Ordering::Relaxed),
        )
    }

    /// Hints one client may have running or waiting at once ([`App::set_hints_per_client`]).
    #[must_use]
    pub fn hints_per_client(&self) -> usize {
        self.hints_per_client.load(Ordering::Relaxed)
    }

    /// `GET …/positions` replays that may run at once ([`App::set_positions_at_once`]).
    #[must_use]
    pub fn positions_at_once(&self) -> usize {
        self.positions_at_once.load(Ordering::Acquire)
    }

    /// How many hints one client may have running or waiting at once (at least one;
    /// [`DEFAULT_HINTS_PER_CLIENT`] until set): one more is refused with `429`. Hints run one
    /// at a time per core fewer than the machine has, in the order asked; this keeps one client
    /// from queueing many hints (in many games) ahead of everyone else's. A client is its
    /// address (an IPv6 one by its /64, [`crate::client::key`]), or the address a trusted proxy
    /// forwards.
    pub fn set_hints_per_client(&self, n: usize) {
        self.hints_per_client.store(n.max(1), Ordering::Relaxed);
    }

    /// Takes a place among the hints of the client at `ip` (none known: not counted).
    ///
    /// # Errors
    /// 429 when the client has as many hints running or waiting as it may.
    fn hint_place(
        &self,
        ip: Option<std::net::IpAddr>,
    ) -> Result<Option<crate::client::Share>, ApiError> {
        let Some(ip) = ip else {
            return Ok(None);
        };
        let max = self.hints_per_client.load(Ordering::Relaxed);
        match crate::client::PerClient::admit(&self.hint_clients, ip, max) {
            Some(share) => Ok(Some(share)),
            None => {
                let mut e = ApiError::too_many(format!(
                    "too many hints from your address: at most {max} at once (running or \
                     waiting for the engine); ask again once one is answered"
                ));
                e.retry_after = Some(1);
                Err(e)
            }
        }
    }

    /// How many `GET /api/games/{id}/positions` may be replaying games at once (one core fewer
    /// than the machine has, at least one, until set; at least one): one more is refused with
    /// `503` and `Retry-After`. The replays run on blocking threads, never on those that serve
    /// the other requests. Call before serving: called while replays run, it can only take
    /// away the permits free at the time, and the 503 names the count
    /// that took effect.
    pub fn set_positions_at_once(&self, n: usize) {
        let n = n.clamp(1, Semaphore::MAX_PERMITS);
        let was = self.positions_at_once.load(Ordering::Acquire);
        let now = if n > was {
            self.positions.add_permits(n - was);
            n
        } else {
            // Only the permits free now can be forgotten: those held by running replays come
            // back when they end, so the count that took effect is what is stored.
            was - self.positions.forget_permits(was - n)
        };
        self.positions_at_once.store(now, Ordering::Release);
    }

    /// Moves of the games held in memory, over every game.
    #[must_use]
    pub fn plies_in_memory(&self) -> usize {
        plies_of(&lock(&self.games))
    }

    /// Makes room in `games` for what `room` says (a game of `plies` moves to hold, or the
    /// moves a held game has just grown by; see [`App::set_memory_caps`]): drops the games
    /// nobody has asked for longest and that nothing holds until it fits. The room reserved
    /// for games being made ([`App::reserve`]) counts as held. Nothing is dropped when a game
    /// to hold would not fit even with every such game dropped.
    ///
    /// # Errors
    /// 503 with `Retry-After` when a game to hold does not fit once every such game is dropped
    /// (nothing is dropped then); 503 without `Retry-After` for a game to make or load
    /// ([`Room::New`], [`Room::Stored`]) longer than the cap on moves, which never fits.
    /// [`Room::Grown`] is never refused.
    fn make_room(&self, games: &mut Held, plies: usize, room: Room) -> Result<(), ApiError> {
        let (max_games, max_plies) = (
            self.max_games.load(Ordering::Relaxed),
            self.max_plies.load(Ordering::Relaxed),
        );
        if room == Room::New {
            self.check_new_length(plies)?;
        }
        if room == Room::Stored && plies > max_plies {
            return Err(ApiError::unavailable(format!(
                "this game has {plies} moves, more than the server holds in memory \
                 ({max_plies} moves): it can be served again once the server is run with \
                 --max-moves-in-memory {plies} or more"
            )));
        }
        let (adding, need) = match room {
            Room::New | Room::Stored => (1, plies),
            Room::Grown => (0, 0),
        };
        let mut total = plies_of(games).saturating_add(games.pending[1]);
        let pending_games = games.pending[0];
        let fits = |n: usize, total: usize| {
            n + pending_games + adding <= max_games && total.saturating_add(need) <= max_plies
        };
        if fits(games.len(), total) {
            return Ok(());
        }
        // The idle ones, least recently asked for first.
        let mut idle: Vec<(Instant, String, usize)> = games
            .iter()
            .filter(|(_, slot)| Arc::strong_count(slot) == 1)
            .map(|(id, slot)| {
                (
                    *lock(&slot.last_used),
                    id.clone(),
                    slot.plies.load(Ordering::Relaxed),
                )
            })
            .collect();
        let idle_plies: usize = idle.iter().map(|(_, _, n)| n).sum();
        // Decided before anything is dropped: a refusal leaves every game where it was.
        if room != Room::Grown && !fits(games.len() - idle.len(), total.saturating_sub(idle_plies))
        {
            let mut e = ApiError::unavailable(format!(
                "the server holds as many games in memory as it may (at most {} and \
                 {max_plies} moves; this one has {plies}), all in play: try again later",
                util::games(max_games)
            ));
            e.retry_after = Some(60);
            return Err(e);
        }
        idle.sort_unstable();
        for (_, id, n) in idle {
            if fits(games.len(), total) {
                break;
            }
            games.remove(&id);
            total = total.saturating_sub(n);
        }
        Ok(())
    }

    /// Refuses for good a game to make of `plies` moves, longer than the cap on moves held in
    /// memory: it never fits.
    ///
    /// # Errors
    /// 503 without `Retry-After`, naming the cap and `--max-moves-in-memory`.
    fn check_new_length(&self, plies: usize) -> Result<(), ApiError> {
        let max_plies = self.max_plies.load(Ordering::Relaxed);
        if plies > max_plies {
            return Err(ApiError::unavailable(format!(
                "this game has {plies} moves, more than the server holds in memory \
                 ({max_plies} moves, --max-moves-in-memory): it cannot be served here"
            )));
        }
        Ok(())
    }

    /// Reserves room in memory for a game of `plies` moves about to be made (see
    /// [`App::make_room`]): until it is held ([`Reserved::hold`]) or the reservation is dropped,
    /// it counts against the caps, so that games made at once cannot together go over them.
    ///
    /// # Errors
    /// As [`App::make_room`] for a new game.
    fn reserve(&self, plies: usize) -> Result<Reserved<'_>, ApiError> {
        let mut games = lock(&self.games);
        self.make_room(&mut games, plies, Room::New)?;
        games.pending[0] += 1;
        games.pending[1] += plies;
        Ok(Reserved {
            app: self,
            plies,
            live: true,
        })
    }

    /// The share of the caps on memory one client's WebSocket connections may hold in memory:
    /// games and moves (see [`crate::ws::ClientPlace::admit`]), one [`PIN_SHARE`]th of each cap
    /// (at least one game).
    #[must_use]
    pub fn pin_share(&self) -> (usize, usize) {
        (
            (self.max_games.load(Ordering::Relaxed) / PIN_SHARE).max(1),
            self.max_plies.load(Ordering::Relaxed) / PIN_SHARE,
        )
    }

    /// Drops from memory the games nobody has asked for in `idle` and that nothing holds (no
    /// connection, request or computer move): they are loaded again from the database when
    /// asked for (their draw and takeback offers, kept in memory only, are forgotten). Answers
    /// how many were dropped.
    pub fn evict_idle(&self, idle: Duration) -> usize {
        let mut games = lock(&self.games);
        let before = games.len();
        games.retain(|_, slot| {
            Arc::strong_count(slot) > 1 || lock(&slot.last_used).elapsed() < idle
        });
        before - games.len()
    }

    /// WebSocket connections being served now (their closing handshake included).
    #[must_use]
    pub fn sockets_open(&self) -> usize {
        self.sockets_open.load(Ordering::Acquire)
    }

    /// Unfinished games found sound in the database when the server started.
    #[must_use]
    pub fn restored(&self) -> usize {
        self.restored
    }

    /// Gives the computer and the hints these endgame tables. Only the first call counts: `false`
    /// if tables were already set.
    pub fn set_tables(&self, tables: pussa_egtb::TablesDir) -> bool {
        self.tables.set(tables).is_ok()
    }

    /// The exact-value oracle of `game`'s endgame tables, if the server has them.
    #[must_use]
    pub fn oracle(&self, game: Game) -> Option<Arc<dyn pussa_engine::ExactOracle>> {
        self.tables.get().and_then(|t| t.oracle(game))
    }

    /// Verifies every game's tables now (see [`crate::Server::verify_tables`]); an error says
    /// what fixes it (`table_error`).
    pub fn verify_tables(&self) -> Vec<(Game, Result<usize, String>)> {
        let Some(t) = self.tables.get() else {
            return Vec::new();
        };
        t.games()
            .into_iter()
            .filter_map(|(g, _)| t.get(g))
            .map(|o| {
                (
                    o.game(),
                    o.wait().map(|t| t.max_seeds()).map_err(table_error),
                )
            })
            .collect()
    }

    /// The games with endgame tables and the largest seed count of each.
    #[must_use]
    pub fn tables(&self) -> Vec<(Game, usize)> {
        self.tables
            .get()
            .map(pussa_egtb::TablesDir::games)
            .unwrap_or_default()
    }

    /// Whether game `id` is held in memory now.
    #[must_use]
    pub fn holds(&self, id: &str) -> bool {
        lock(&self.games).contains_key(id)
    }

    /// Number of games held in memory.
    #[must_use]
    pub fn games_in_memory(&self) -> usize {
        lock(&self.games).len()
    }

    /// Starts the computer's pending moves (after a restart the computer may be to move).
    pub fn resume_computer_moves(self: &Arc<Self>) {
        let slots: Vec<Arc<Slot>> = lock(&self.games).values().cloned().collect();
        for slot in slots {
            let app = Arc::clone(self);
            tokio::spawn(async move {
                let mut g = slot.game.lock().await;
                let played = app.computer_reply(&slot, &mut g).await;
                slot.publish_played(&g, &played);
            });
        }
    }

    /// `GET /api/health`: whether the server can serve, checked by a write to the database
    /// ([`Store::check_write`]) and a read through what serving a game needs
    /// ([`Store::check_read`]; and, at most once every [`HEALTH_SCAN_EVERY`], a read of the
    /// whole indexes of the games, [`Store::check_indexes`], whose result is kept until the
    /// next), with what it holds now.
    ///
    /// # Errors
    /// 503 `the database does not accept a write: …` (a full disk, a database locked by another
    /// program, an I/O error) or `the database cannot be read: …` (a damaged page, such as a
    /// bad disk block, on the way to the games), logged.
    pub fn health(&self) -> Result<Value, ApiError> {
        let mut store = lock(&self.store);
        if let Err(e) = store.check_write() {
            let why = crate::store::sqlite_words(&e);
            tracing::error!("health check: the database does not accept a write: {why}");
            return Err(ApiError::unavailable(format!(
                "the database does not accept a write: {why}"
            )));
        }
        let scanned = {
            let mut scan = lock(&self.index_scan);
            match &*scan {
                Some((at, found)) if at.elapsed() < HEALTH_SCAN_EVERY => found.clone(),
                _ => {
                    let found = store
                        .check_indexes()
                        .err()
                        .map(|e| crate::store::sqlite_words(&e));
                    *scan = Some((Instant::now(), found.clone()));
                    found
                }
            }
        };
        let read = store
            .check_read()
            .err()
            .map(|e| crate::store::sqlite_words(&e))
            .or(scanned);
        drop(store);
        if let Some(why) = read {
            tracing::error!("health check: the database cannot be read: {why}");
            return Err(ApiError::unavailable(format!(
                "the database cannot be read: {why}"
            )));
        }
        Ok(json!({
            "status": "ok",
            "version": env!("CARGO_PKG_VERSION"),
            "commit": crate::build_commit(),
            "schema": crate::store::SCHEMA_VERSION,
            "database": "ok",
            "uptime_s": self.started.elapsed().as_secs(),
            "games_in_memory": self.games_in_memory(),
            "plies_in_memory": self.plies_in_memory(),
            "damaged_games": lock(&self.damaged).len(),
            "websockets": self.sockets_open(),
        }))
    }

    /// Checkpoints the database ([`Store::checkpoint`]): called when the server stops, so that
    /// a copy of the database file alone (`cp`) holds every game. A checkpoint left incomplete,
    /// or failed, is logged.
    pub fn checkpoint(&self) {
        match lock(&self.store).checkpoint() {
            Ok(true) => tracing::debug!("database checkpointed: the -wal file is empty"),
            Ok(false) => tracing::warn!(
                "database checkpoint incomplete: another program was in a transaction on the \
                 database; some commits stay in its -wal file (copy it too, or use \
                 sqlite3's .backup)"
            ),
            Err(e) => tracing::error!(
                "database checkpoint failed: {}",
                crate::store::sqlite_words(&e)
            ),
        }
    }

    /// The stored games that cannot be continued, with the reason (see [`App::slot`]).
    #[must_use]
    pub fn damaged(&self) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = lock(&self.damaged)
            .iter()
            .map(|(id, why)| (id.clone(), why.clone()))
            .collect();
        out.sort();
        out
    }

    /// The slot of game `id`, loading it from the database when it is not in memory.
    ///
    /// # Errors
    /// 404 for an unknown id; 409 `game … cannot be continued: …` for a stored game that does
    /// not rebuild (a damaged row or move, an unknown computer level: see [`App::damaged`]);
    /// 500 for a database error.
    pub fn slot(&self, id: &str) -> Result<Arc<Slot>, ApiError> {
        if !util::valid_game_id(id) {
            return Err(ApiError::not_found(format!("no game with id '{id}'")));
        }
        let mut games = lock(&self.games);
        if let Some(s) = games.get(id) {
            s.touch();
            return Ok(Arc::clone(s));
        }
        let cannot =
            |why: &str| ApiError::conflict(format!("game {id} cannot be continued: {why}"));
        if let Some(why) = lock(&self.damaged).get(id) {
            return Err(cannot(why));
        }
        let store = lock(&self.store);
        let Some(row) = store.game(id)? else {
            return Err(ApiError::not_found(format!("no game with id '{id}'")));
        };
        let g = match unreadable_as_damaged(load(&store, &row, store.moves(id)))? {
            Ok(g) => g,
            Err(why) => {
                tracing::error!("game {id} cannot be continued: {why}");
                let e = cannot(&why);
                lock(&self.damaged).insert(id.to_string(), why);
                return Err(e);
            }
        };
        drop(store);
        self.make_room(&mut games, g.moves.len(), Room::Stored)?;
        let slot = Slot::new(g, &self.claim_after_ms);
        games.insert(id.to_string(), Arc::clone(&slot));
        Ok(slot)
    }

    /// Stores `played` (just applied to `next`) and makes `next` the game (and the snapshot); on
    /// a storage error leaves `g` as it was. The caller publishes the update.
    fn commit(
        &self,
        slot: &Slot,
        g: &mut LiveGame,
        next: LiveGame,
        played: &[Played],
    ) -> Result<(), ApiError> {
        self.check_move_cap(g, next.moves.len())?;
        let first_ply = played.first().map_or(0, |p| p.rec.ply) as i64;
        let moves: Vec<String> = played
            .iter()
            .map(|p| p.rec.mv.letter().to_string())
            .collect();
        let finished = next.state.is_over().then(util::now_unix);
        lock(&self.store).append_moves(
            &g.meta.id,
            first_ply,
            &moves,
            finished,
            live::winner_name(&next.state),
        )?;
        *g = next;
        // A move answers the other side's offers: the friend's move declines a draw offer and
        // ends a takeback proposal. As on lichess, a draw offer made by the mover goes with their
        // own move and stands until the friend answers it or moves; a takeback proposal is for
        // the position it was made in, so any move clears it. A game over clears everything.
        let draw = g
            .meta
            .offers
            .draw
            .filter(|&by| !g.state.is_over() && played.iter().all(|p| p.rec.side == by));
        g.meta.offers = Offers {
            draw,
            takeback: None,
        };
        slot.set_state(&g.to_json());
        // The moves held grew: idle games make room for them (this one is held by the caller).
        if !played.is_empty() {
            let mut games = lock(&self.games);
            let _ = self.make_room(&mut games, 0, Room::Grown);
        }
        Ok(())
    }

    /// Refuses a move that would make game `g` alone longer than the cap on moves held in
    /// memory (`plies` moves with it): the game stays as it is, so that the moves held can
    /// always be brought under the cap by dropping idle games.
    ///
    /// # Errors
    /// 409 naming the cap and `--max-moves-in-memory`.
    fn check_move_cap(&self, g: &LiveGame, plies: usize) -> Result<(), ApiError> {
        let max_plies = self.max_plies.load(Ordering::Relaxed);
        if plies > max_plies {
            return Err(ApiError::conflict(format!(
                "game {} would have {plies} moves, more than the server holds in memory for \
                 one game ({max_plies} moves, --max-moves-in-memory): no more moves can be \
                 played in it here",
                g.meta.id
            )));
        }
        Ok(())
    }

    /// Lets the computer move while it is to move; each move is stored before the next. A move
    /// that cannot be made or stored (a full disk) is logged, naming the game, and tried again
    /// later by a task of its own (after [`COMPUTER_RETRY_FIRST`], then longer), as a move that was due when the
    /// server stopped is at start: the game never waits for ever with the computer to move.
    /// Answers the moves stored (the caller publishes them).
    async fn computer_reply(self: &Arc<Self>, slot: &Arc<Slot>, g: &mut LiveGame) -> Vec<Played> {
        let (played, result) = self.computer_moves(slot, g).await;
        if let Err(e) = result {
            tracing::error!(
                "game {}: the computer's move at ply {} is not stored ({}); trying again in {} s",
                g.meta.id,
                g.moves.len() + 1,
                e.message,
                COMPUTER_RETRY_FIRST.as_secs()
            );
            self.retry_computer(Arc::clone(slot));
        }
        played
    }

    /// Tries the computer's due move again, after [`COMPUTER_RETRY_FIRST`], then waiting twice
    /// as long after each failure (at most [`COMPUTER_RETRY_MAX`]), until it is stored, the
    /// computer is no longer to move, or the server shuts down. One task per game; the caller
    /// holds the game's lock, so the task starts after the failure it follows.
    fn retry_computer(self: &Arc<Self>, slot: Arc<Slot>) {
        if slot.computer_retry.swap(true, Ordering::AcqRel) {
            return;
        }
        let app = Arc::clone(self);
        let mut stop = self.shutdown.subscribe();
        tokio::spawn(async move {
            let mut wait = COMPUTER_RETRY_FIRST;
            loop {
                tokio::select! {
                    () = tokio::time::sleep(wait) => {}
                    _ = stop.wait_for(|down| *down) => return,
                }
                let mut g = slot.game.lock().await;
                let (played, result) = app.computer_moves(&slot, &mut g).await;
                slot.publish_played(&g, &played);
                match result {
                    Ok(()) => {
                        if !played.is_empty() {
                            tracing::info!(
                                "game {}: the computer's move is stored at last",
                                g.meta.id
                            );
                        }
                        slot.computer_retry.store(false, Ordering::Release);
                        return;
                    }
                    Err(e) => {
                        wait = (wait * 2).min(COMPUTER_RETRY_MAX);
                        tracing::error!(
                            "game {}: the computer's move at ply {} is still not stored ({}); \
                             trying again in {} s",
                            g.meta.id,
                            g.moves.len() + 1,
                            e.message,
                            wait.as_secs()
                        );
                    }
                }
            }
        });
    }

    /// Lets the computer move while it is to move; each move is stored before the next. Answers
    /// the moves stored, and the error that stopped it, if any.
    async fn computer_moves(
        &self,
        slot: &Slot,
        g: &mut LiveGame,
    ) -> (Vec<Played>, Result<(), ApiError>) {
        let mut out = Vec::new();
        let result = self.computer_moves_into(slot, g, &mut out).await;
        (out, result)
    }

    async fn computer_moves_into(
        &self,
        slot: &Slot,
        g: &mut LiveGame,
        out: &mut Vec<Played>,
    ) -> Result<(), ApiError> {
        while let Some(side) = g.to_move() {
            if !g.is_computer(side) {
                break;
            }
            // At the cap on moves, the computer does not move (nor try again): the game
            // waits, as a human's move there would be refused.
            if let Err(e) = self.check_move_cap(g, g.moves.len() + 1) {
                tracing::warn!("{}", e.message);
                break;
            }
            let Opponent::Computer { level } = &g.meta.opponent else {
                break;
            };
            let level = level.clone();
            let state = g.state.clone();
            let seed = engine::seed_for(&g.meta.id, g.moves.len());
            let oracle = self.oracle(state.game());
            let permit = Arc::clone(&self.engine)
                .acquire_owned()
                .await
                .map_err(ApiError::internal)?;
            let mv = tokio::task::spawn_blocking(move || {
                let _permit = permit;
                engine::choose(&state, &level, seed, oracle)
            })
            .await
            .map_err(ApiError::internal)?
            .map_err(ApiError::internal)?;
            let mut next = g.clone();
            let played = next.play_traced(mv, "computer").map_err(|e| {
                ApiError::internal(format!("the engine chose an illegal move: {e}"))
            })?;
            self.commit(slot, g, next, std::slice::from_ref(&played))?;
            out.push(played);
        }
        Ok(())
    }

    /// Runs `op` on a task of its own and waits for it. A request whose client goes away is
    /// dropped at its next `await`; an operation that stores a move and then lets the computer
    /// reply must not stop half way (the human move stored, the reply never played, the game
    /// waiting for ever), nor may a hint leave its game's hint guard taken. So every operation
    /// that changes a game or runs the engine goes through here and ends whatever the client does.
    async fn detached<T, F, Fut>(self: &Arc<Self>, op: F) -> Result<T, ApiError>
    where
        F: FnOnce(Arc<App>) -> Fut,
        Fut: std::future::Future<Output = Result<T, ApiError>> + Send + 'static,
        T: Send + 'static,
    {
        // In the request's span: what it logs names the request (method, path, client).
        tokio::spawn(tracing::Instrument::in_current_span(op(Arc::clone(self))))
            .await
            .map_err(|e| ApiError::internal(format!("the game's task failed: {e}")))?
    }

    /// `POST /api/games`.
    ///
    /// # Errors
    /// 400 for an unknown game, mode, side, opponent or level, a `position` that is not a valid
    /// position of `game`, or a `first` other than its side to move; otherwise as
    /// [`App::create_game`].
    pub async fn create(self: &Arc<Self>, req: CreateReq) -> Result<Value, ApiError> {
        let game: Game = req
            .game
            .parse()
            .map_err(|e| ApiError::bad_request(format!("game: {e}")))?;
        let mode = live::parse_mode(req.mode.as_deref().unwrap_or("single"))?;
        // A start position, read as `pussa play --position` reads it: the messages are the
        // rules crate's (`position: …`). One whose round is already over is a valid start (a
        // single game then is over at once, a match goes on with its next round).
        let setup = match req.position.as_deref() {
            None => None,
            Some(p) => {
                let bad = |e: pussa_rules::SetupError| ApiError::bad_request(e.to_string());
                let setup: pussa_rules::Setup = p.trim().parse().map_err(bad)?;
                setup.expect_game(game).map_err(bad)?;
                let mover = setup.game_state(mode).map_err(bad)?.next_mover();
                Some((setup, mover))
            }
        };
        // Who moves first from a position: its side to move, or, when its round is over and
        // the match goes on, the next round's starter (`GameState::next_mover`). The position's
        // own side to move is taken too, as records read `First` (docs/notation.md).
        let first = match (&setup, req.first.as_deref()) {
            (None, f) => live::parse_side(f.unwrap_or("S"), "first")?,
            (Some((_, mover)), None) => *mover,
            (Some((setup, mover)), Some(f)) => {
                let first = live::parse_side(f, "first")?;
                if first != *mover && first != setup.to_move {
                    return Err(ApiError::bad_request(format!(
                        "first: {}, but the position has {} to move",
                        first.letter(),
                        setup.to_move.letter()
                    )));
                }
                *mover
            }
        };
        let setup = setup.map(|(setup, _)| setup);
        let seat = live::parse_side(req.seat.as_deref().unwrap_or("S"), "seat")?;
        let opponent = match req.opponent {
            None => Opponent::Hotseat,
            Some(o) => o.parse(game, mode)?,
        };
        self.create_game(NewGame {
            game,
            mode,
            first,
            seat,
            opponent,
            setup,
            moves: Vec::new(),
            ended: None,
            termination: None,
        })
        .await
    }

    /// Creates a game, plays `moves` (an imported record), lets the computer move if it is to
    /// move, stores everything and answers as `POST /api/games` does. Runs to the end even if
    /// the caller goes away.
    ///
    /// # Errors
    /// 400 for a `setup` that is not a valid position or a move of `moves` that is illegal;
    /// 500 if the game cannot be stored. Once it is, it is answered: a computer move that
    /// cannot be made or stored is tried again (after [`COMPUTER_RETRY_FIRST`], then longer).
    pub async fn create_game(self: &Arc<Self>, new: NewGame) -> Result<Value, ApiError> {
        self.detached(move |app| async move { app.create_game_now(new).await })
            .await
    }

    async fn create_game_now(self: &Arc<Self>, new: NewGame) -> Result<Value, ApiError> {
        let NewGame {
            game,
            mode,
            first,
            seat,
            opponent,
            setup,
            moves,
            ended,
            termination,
        } = new;
        // Room in memory first, before the moves are replayed (their count is known): a record
        // that can never be served, or one refused for want of room, costs no replay. The room
        // is reserved until the game is held (games made at once count each other's); a game
        // refused for want of it is not stored.
        let room = self.reserve(moves.len())?;
        let token = util::new_token().map_err(ApiError::internal)?;
        let mut tokens = [None, None];
        tokens[seat.index()] = Some(token.clone());
        let mut invite = None;
        match opponent {
            Opponent::Hotseat => tokens[seat.other().index()] = Some(token.clone()),
            Opponent::Online => invite = Some(util::new_token().map_err(ApiError::internal)?),
            Opponent::Computer { .. } => {}
        }
        let id = util::new_game_id().map_err(ApiError::internal)?;
        let meta = Meta {
            id: id.clone(),
            game,
            mode,
            first,
            opponent: opponent.clone(),
            creator_seat: seat,
            tokens,
            invite: invite.clone(),
            created: util::now_unix(),
            setup,
            rematch: None,
            ended: None,
            offers: Offers::default(),
            series: None,
            termination: None,
        };
        let mut g =
            LiveGame::new(meta).map_err(|e| ApiError::bad_request(format!("record: {e}")))?;
        for (i, &mv) in moves.iter().enumerate() {
            g.play(mv, &mut pussa_rules::NoTrace).map_err(|e| {
                ApiError::bad_request(format!("record: move {} ({mv}): {e}", i + 1))
            })?;
        }
        // An ending only stands where the moves leave the game unfinished.
        if !g.state.is_over() {
            g.meta.ended = ended;
            if ended.is_some_and(|e| matches!(e.kind, EndKind::Forfeit | EndKind::Time)) {
                g.meta.termination = termination;
            }
        }
        {
            let mut row = g.to_row();
            row.ply = g.moves.len() as i64;
            let letters: Vec<String> = g.moves.iter().map(|m| m.mv.letter().to_string()).collect();
            lock(&self.store).insert_game_with_moves(&row, &letters)?;
        }
        let slot = Slot::new(g, &self.claim_after_ms);
        room.hold(&mut lock(&self.games), id.clone(), Arc::clone(&slot));
        let mut g = slot.game.lock().await;
        // The game is stored: it is answered whatever happens to the computer's moves (one that
        // fails is tried again, and comes in an update).
        let played = self.computer_reply(&slot, &mut g).await;
        // Told as every other move is, though no connection can have the game's id yet: the
        // updates that follow keep these moves (`moves_kept`), which the answer carries.
        slot.publish_played(&g, &played);
        // The slot's snapshot is this state's JSON (made by `Slot::new`, and again after each
        // computer move): not made anew, since listing the legal moves can take seconds where a
        // move takes long to prove endless (docs/rules.md, "Endless moves").
        let state = slot.state();
        drop(g);
        let seats: Vec<String> = match opponent {
            Opponent::Hotseat => vec!["S".into(), "N".into()],
            _ => vec![seat.letter().to_string()],
        };
        // The invite in the link's fragment, which browsers never send: it stays out of the
        // access logs and `Referer`s (docs/api.md).
        let invite = invite.map(|t| json!({"token": t, "url": format!("/?game={id}#invite={t}")}));
        Ok(json!({
            "id": id,
            "seat": seat.letter().to_string(),
            "seats": seats,
            "token": token,
            "invite": invite,
            "state": state,
            "played": played_json(&played),
        }))
    }

    /// `POST /api/games/{id}/join`.
    ///
    /// # Errors
    /// 404 unknown game; 409 not an online game or invite already used; 403 wrong invite; 500
    /// database error (as [`App::slot`]).
    ///
    /// Idempotent for a while: asked again with the invite that took the seat within
    /// [`JOIN_RETRY_WINDOW`], the join answers the same seat and token (the retry of a join
    /// whose answer was lost); later, or after a restart, that invite is spent (409).
    pub async fn join(&self, id: &str, invite: &str) -> Result<Value, ApiError> {
        let slot = self.slot(id)?;
        let mut g = slot.game.lock().await;
        if g.meta.opponent != Opponent::Online {
            return Err(ApiError::conflict(format!(
                "game {id} is not an online game: there is no seat to join"
            )));
        }
        let seat = g.meta.creator_seat.other();
        // A join asked again, shortly after, with the invite that took the seat (its first
        // answer was lost on the way) is answered with that seat and token, never a second one.
        let retried = lock(&slot.spent_invite)
            .as_ref()
            .is_some_and(|(spent, at)| {
                at.elapsed() < JOIN_RETRY_WINDOW && util::secret_eq(spent, invite)
            });
        if let (true, Some(token)) = (retried, g.meta.tokens[seat.index()].as_deref()) {
            let state = g.to_json();
            return Ok(
                json!({"id": id, "seat": seat.letter().to_string(), "seats": [seat.letter().to_string()], "token": token, "state": state}),
            );
        }
        if g.meta.ended.is_some() {
            return Err(ApiError::conflict(g.over_message()));
        }
        let Some(expected) = g.meta.invite.clone() else {
            return Err(ApiError::conflict("invite already used: the seat is taken"));
        };
        if !util::secret_eq(&expected, invite) {
            return Err(ApiError::forbidden(format!("wrong invite for game {id}")));
        }
        let token = util::new_token().map_err(ApiError::internal)?;
        lock(&self.store).take_seat(id, seat.letter(), &token)?;
        g.meta.tokens[seat.index()] = Some(token.clone());
        *lock(&slot.tokens) = g.meta.tokens.clone();
        g.meta.invite = None;
        *lock(&slot.spent_invite) = Some((expected, Instant::now()));
        let state = g.to_json();
        slot.set_state(&state);
        slot.publish_update(
            json!({"type": "update", "state": state, "joined": seat.letter().to_string()}),
        );
        // The seats of a joined game have away times now.
        slot.publish(&slot.presence());
        Ok(
            json!({"id": id, "seat": seat.letter().to_string(), "seats": [seat.letter().to_string()], "token": token, "state": state}),
        )
    }

    /// `POST /api/games/{id}/rematch`: the next game of a finished online game, sides swapped.
    /// The first player to ask creates it (both seats taken: the friend's new token is stored
    /// with it and handed out when they ask) and every connection of the old game is told
    /// `{"type": "rematch", "id": NEW_ID}`; the other player (or the same one again) gets their
    /// seat of that game. Answers `(created, answer)`: the answer has the shape of
    /// `POST /api/games` for the caller's new seat, plus `rematch_of`. Asks are serialised
    /// under the old game's lock, so there is never more than one rematch; runs to the end even
    /// if the caller goes away.
    ///
    /// The game made counts against the allowance of the client at `peer`, as a game made
    /// with `POST /api/games` does ([`App::allow_new_game`]); a later ask for the same rematch
    /// does not. Its `series` is worked out from the old game's, in constant time.
    ///
    /// # Errors
    /// 404 unknown game; 403 a token that holds no seat; 409 a game that is not online, or not
    /// over; 429 when the rematch would be made and `peer` has made its games for the minute;
    /// 500 as [`App::slot`], or when the new game cannot be stored (nothing is then).
    pub async fn rematch(
        self: &Arc<Self>,
        id: &str,
        token: &str,
        peer: Option<std::net::IpAddr>,
    ) -> Result<(bool, Value), ApiError> {
        let (id, token) = (id.to_owned(), token.to_owned());
        self.detached(move |app| async move { app.rematch_now(&id, &token, peer).await })
            .await
    }

    async fn rematch_now(
        &self,
        id: &str,
        token: &str,
        peer: Option<std::net::IpAddr>,
    ) -> Result<(bool, Value), ApiError> {
        let slot = self.slot(id)?;
        let mut g = slot.game.lock().await;
        let seats = g.seats_of(token);
        if seats.is_empty() {
            return Err(ApiError::forbidden(format!(
                "this token holds no seat in game {id}: only its players can ask for a rematch"
            )));
        }
        if g.meta.opponent != Opponent::Online {
            return Err(ApiError::conflict(
                "a rematch is for online games; start a new game for the others",
            ));
        }
        if !g.over() {
            return Err(ApiError::conflict("the game is not over yet"));
        }
        if !g.joined() {
            return Err(ApiError::conflict(
                "nobody joined this game before it was aborted: start a new game",
            ));
        }
        // An online token holds exactly one seat; the caller plays the other one next.
        let seat = seats[0].other();
        let created;
        let (new_id, token, state) = if let Some(new_id) = g.meta.rematch.clone() {
            // Asked before (by either player): this player's seat of that game. The new game's
            // lock is not taken (its snapshot and tokens are readable without it).
            drop(g);
            let new = self.slot(&new_id)?;
            let token = lock(&new.tokens)[seat.index()].clone().ok_or_else(|| {
                ApiError::internal(format!("rematch {new_id} of game {id} has no seat {seat}"))
            })?;
            created = false;
            (new_id, token, new.state())
        } else {
            // A new game: room in memory for it first (reserved until it is held), then it
            // counts against the asker's allowance, as any new game does; a game refused for
            // want of room uses none of it.
            let room = self.reserve(0)?;
            self.allow_new_game(peer)?;
            let mine = util::new_token().map_err(ApiError::internal)?;
            let theirs = util::new_token().map_err(ApiError::internal)?;
            let mut tokens = [None, None];
            tokens[seat.index()] = Some(mine.clone());
            tokens[seat.other().index()] = Some(theirs);
            let new_id = util::new_game_id().map_err(ApiError::internal)?;
            let meta = Meta {
                id: new_id.clone(),
                game: g.meta.game,
                mode: g.meta.mode,
                first: g.meta.first,
                opponent: Opponent::Online,
                creator_seat: seat,
                tokens,
                invite: None,
                created: util::now_unix(),
                setup: None,
                rematch: None,
                ended: None,
                offers: Offers::default(),
                series: None,
                termination: None,
            };
            let mut new = LiveGame::new(meta).map_err(ApiError::internal)?;
            new.meta.series = Some(next_series(&g));
            // The new game and the link to it are stored together, or neither.
            lock(&self.store).insert_rematch(id, &new.to_row())?;
            let state = new.to_json();
            room.hold(
                &mut lock(&self.games),
                new_id.clone(),
                Slot::new(new, &self.claim_after_ms),
            );
            g.meta.rematch = Some(new_id.clone());
            slot.set_state(&g.to_json());
            // Published under the old game's lock: a connection that reads the state without
            // the rematch is subscribed already and gets this message.
            let _ = slot.tx.send(Arc::from(rematch_message(&new_id)));
            drop(g);
            created = true;
            (new_id, mine, state)
        };
        let mut answer = seat_answer(&new_id, seat, &token, state);
        answer["rematch_of"] = json!(id);
        Ok((created, answer))
    }

    /// The current state of game `id`, as JSON text (kept so: it is sent as it is).
    ///
    /// # Errors
    /// 404 for an unknown id; 503 when it is not in memory and the server holds as many games
    /// as it may ([`App::set_memory_caps`]); 500 as [`App::slot`].
    pub fn state(&self, id: &str) -> Result<Arc<str>, ApiError> {
        let slot = self.slot(id)?;
        Ok(slot.state_text())
    }

    /// Plays a move for the holder of `token`, then the computer's replies; stores each move
    /// before answering. Every connection of the game gets the move in an update as soon as it
    /// is stored, then the computer's replies in an update of their own once they are stored;
    /// `stored`, if given, is sent the move's ply as soon as it is stored (the WebSocket `ack`
    /// does not wait for the computer). Runs to the end even if the caller goes away: the
    /// computer replies to a stored move whatever the client does.
    ///
    /// # Errors
    /// 404 unknown game; 403 a token that holds no seat; 409 an online game whose friend has not
    /// joined yet, stale `expected_ply`, game over, not this seat's turn; 400 malformed move;
    /// 422 an illegal move; 500 as [`App::slot`], or when the move cannot be stored (nothing
    /// is played then). Once the move is stored it is answered, with the computer's replies
    /// that were stored: one that cannot be made or stored is tried again
    /// (after [`COMPUTER_RETRY_FIRST`], then longer) and comes in an update.
    pub async fn play(
        self: &Arc<Self>,
        id: &str,
        token: &str,
        mv: &str,
        expected_ply: Option<u64>,
        stored: Option<tokio::sync::oneshot::Sender<usize>>,
    ) -> Result<(Value, Vec<Played>), ApiError> {
        let (id, token, mv) = (id.to_owned(), token.to_owned(), mv.to_owned());
        self.detached(move |app| async move {
            app.play_now(&id, &token, &mv, expected_ply, stored).await
        })
        .await
    }

    async fn play_now(
        self: &Arc<Self>,
        id: &str,
        token: &str,
        mv: &str,
        expected_ply: Option<u64>,
        stored: Option<tokio::sync::oneshot::Sender<usize>>,
    ) -> Result<(Value, Vec<Played>), ApiError> {
        let slot = self.slot(id)?;
        let mut g = slot.game.lock().await;
        let seats = g.seats_of(token);
        if seats.is_empty() {
            return Err(ApiError::forbidden(format!(
                "this token holds no seat in game {id}: watchers cannot move"
            )));
        }
        if g.meta.ended.is_some() {
            return Err(ApiError::conflict(g.over_message()));
        }
        check_joined(&g)?;
        check_ply(&g, expected_ply, "move")?;
        let Some(to_move) = g.to_move() else {
            return Err(ApiError::conflict(g.over_message()));
        };
        if !seats.contains(&to_move) {
            return Err(ApiError::conflict(format!(
                "not your turn: {to_move} is to move"
            )));
        }
        let hole: Hole = mv
            .parse()
            .map_err(|e| ApiError::bad_request(format!("move: {e}")))?;
        let mut next = g.clone();
        let played = next
            .play_traced(hole, "human")
            .map_err(|e| ApiError::unprocessable(e.to_string()))?;
        self.commit(&slot, &mut g, next, std::slice::from_ref(&played))?;
        // The move is told as soon as it is stored, before the computer thinks: to every
        // connection (an update), and to the WebSocket that sent it (its ack).
        slot.publish_played(&g, std::slice::from_ref(&played));
        if let Some(stored) = stored {
            let _ = stored.send(played.rec.ply);
        }
        let mut all = vec![played];
        // The human move is stored and answered whatever happens to the computer's reply (one
        // that fails is tried again, and comes in an update).
        let more = self.computer_reply(&slot, &mut g).await;
        // The replies in an update of their own, once stored.
        slot.publish_played(&g, &more);
        all.extend(more);
        Ok((slot.state(), all))
    }

    /// Takes back moves (see docs/api.md). With `expected_ply`, only from that ply: a second
    /// click, or an undo sent before the sender saw the last move, is refused instead of taking
    /// back more than was meant.
    ///
    /// # Errors
    /// 404 unknown game; 403 a token that holds no seat; 409 stale `expected_ply`, online game
    /// (waiting for the friend, or not) or nothing to undo; 500 as [`App::slot`], or a
    /// database error.
    pub async fn undo(
        &self,
        id: &str,
        token: &str,
        expected_ply: Option<u64>,
    ) -> Result<Value, ApiError> {
        let slot = self.slot(id)?;
        let mut g = slot.game.lock().await;
        if g.seats_of(token).is_empty() {
            return Err(ApiError::forbidden(format!(
                "this token holds no seat in game {id}"
            )));
        }
        if g.meta.ended.is_some() {
            return Err(ApiError::conflict(g.over_message()));
        }
        check_joined(&g)?;
        check_ply(&g, expected_ply, "undo")?;
        let keep = match g.meta.opponent {
            Opponent::Online => {
                return Err(ApiError::conflict("undo is not offered in online games"))
            }
            Opponent::Hotseat => g.moves.len().checked_sub(1),
            Opponent::Computer { .. } => {
                let human = g.meta.creator_seat;
                g.moves.iter().rposition(|m| m.side == human)
            }
        };
        let Some(keep) = keep else {
            return Err(ApiError::conflict("nothing to undo"));
        };
        self.take_back(&slot, &mut g, keep)
    }

    /// Takes back every move after the first `keep` (replaying those through the rules, across
    /// round boundaries), deletes them from the database, clears the offers and tells every
    /// connection: `{"state", "undone"}`.
    fn take_back(&self, slot: &Slot, g: &mut LiveGame, keep: usize) -> Result<Value, ApiError> {
        let undone = g.moves.len() - keep;
        let mut meta = g.meta.clone();
        meta.offers = Offers::default();
        let mut rebuilt = LiveGame::new(meta).map_err(ApiError::internal)?;
        for m in &g.moves[..keep] {
            rebuilt
                .play(m.mv, &mut pussa_rules::NoTrace)
                .map_err(ApiError::internal)?;
        }
        lock(&self.store).truncate_moves(&g.meta.id, keep as i64)?;
        *g = rebuilt;
        let state = g.to_json();
        slot.set_state(&state);
        slot.publish_update(json!({"type": "update", "state": state, "undone": undone}));
        Ok(json!({"state": state, "undone": undone}))
    }

    /// Ends `g` as the players decided: stores the ending, the time and the winner, clears the
    /// offers and tells every connection (`{"type": "update", "state", "ended"}`). Answers
    /// `{"state"}`.
    fn end(&self, slot: &Slot, g: &mut LiveGame, ending: Ending) -> Result<Value, ApiError> {
        lock(&self.store).end_game(
            &g.meta.id,
            ending.kind.name(),
            ending.by.map(|s| s.letter().to_string()).as_deref(),
            util::now_unix(),
            ending.winner_name(),
        )?;
        g.meta.ended = Some(ending);
        g.meta.offers = Offers::default();
        let state = g.to_json();
        slot.set_state(&state);
        slot.publish_update(json!({"type": "update", "state": state, "ended": ending.to_json()}));
        Ok(json!({ "state": state }))
    }

    /// Tells every connection that an offer changed (`action`: offer, withdraw, decline) and
    /// answers `{"state"}`.
    fn offer_changed(slot: &Slot, g: &LiveGame, kind: &str, by: Side, action: &str) -> Value {
        let state = g.to_json();
        slot.set_state(&state);
        slot.publish_update(json!({"type": "update", "state": state, "offer": {
            "kind": kind, "by": by.letter().to_string(), "action": action
        }}));
        json!({ "state": state })
    }

    /// `POST /api/games/{id}/resign`: online, the token's seat resigns; against the computer,
    /// the player; hot-seat, the side to move. Ends a match as a whole.
    ///
    /// # Errors
    /// 404 unknown game; 403 a token that holds no seat; 409 the game is over, or an online
    /// game nobody has joined yet; 500 as [`App::slot`], or a database error.
    pub async fn resign(&self, id: &str, token: &str) -> Result<Value, ApiError> {
        let slot = self.slot(id)?;
        let mut g = slot.game.lock().await;
        let seats = seats_or_403(&g, token)?;
        if g.over() {
            return Err(ApiError::conflict(g.over_message()));
        }
        let by = match g.meta.opponent {
            Opponent::Online if !g.joined() => {
                return Err(ApiError::conflict(
                    "nobody has joined yet: abort the game instead",
                ))
            }
            Opponent::Online => seats[0],
            Opponent::Computer { .. } => g.meta.creator_seat,
            Opponent::Hotseat => g
                .to_move()
                .ok_or_else(|| ApiError::conflict(g.over_message()))?,
        };
        let ending = Ending {
            kind: EndKind::Resign,
            by: Some(by),
        };
        self.end(&slot, &mut g, ending)
    }

    /// `POST /api/games/{id}/abort`: an online game ends without a result, while the friend
    /// has not joined or until both sides have moved.
    ///
    /// # Errors
    /// 404 unknown game; 403 a token that holds no seat; 409 not an online game, over, or both
    /// players have moved; 500 as [`App::slot`], or a database error.
    pub async fn abort(&self, id: &str, token: &str) -> Result<Value, ApiError> {
        let slot = self.slot(id)?;
        let mut g = slot.game.lock().await;
        let seats = seats_or_403(&g, token)?;
        if g.meta.opponent != Opponent::Online {
            return Err(ApiError::conflict(
                "abort is for online games: resign instead",
            ));
        }
        if g.over() {
            return Err(ApiError::conflict(g.over_message()));
        }
        let moved = |side: Side| g.moves.iter().any(|m| m.side == side);
        if g.joined() && moved(Side::South) && moved(Side::North) {
            return Err(ApiError::conflict(
                "too late to abort: both players have moved; resign or offer a draw",
            ));
        }
        let ending = Ending {
            kind: EndKind::Abort,
            by: Some(seats[0]),
        };
        self.end(&slot, &mut g, ending)
    }

    /// `POST /api/games/{id}/draw`: `offer` true makes a draw offer (or accepts the other
    /// side's: the game ends in an agreed draw); false withdraws one's own or declines theirs.
    /// `accept` (with `offer` true) only accepts: with no offer of the other side's standing
    /// (withdrawn meanwhile) it is refused, and no offer is made.
    ///
    /// # Errors
    /// 404 unknown game; 403 a token that holds no seat; 409 not online, not joined, over, an
    /// `accept` with no offer of the other side's standing; 500 as [`App::slot`], or a
    /// database error.
    pub async fn draw(
        &self,
        id: &str,
        token: &str,
        offer: bool,
        accept: bool,
    ) -> Result<Value, ApiError> {
        let slot = self.slot(id)?;
        let mut g = slot.game.lock().await;
        let me = online_seat(&g, token, "a draw offer")?;
        let standing = g.meta.offers.draw;
        if accept && standing.is_none_or(|by| by == me) {
            return Err(ApiError::conflict(nothing_to_accept(
                "draw offer",
                standing == Some(me),
            )));
        }
        match (offer, standing) {
            (true, Some(by)) if by != me => {
                let ending = Ending {
                    kind: EndKind::DrawAgreed,
                    by: None,
                };
                self.end(&slot, &mut g, ending)
            }
            (true, None) => {
                g.meta.offers.draw = Some(me);
                Ok(Self::offer_changed(&slot, &g, "draw", me, "offer"))
            }
            (false, Some(by)) => {
                g.meta.offers.draw = None;
                let action = if by == me { "withdraw" } else { "decline" };
                Ok(Self::offer_changed(&slot, &g, "draw", me, action))
            }
            // Nothing changes: an offer made again, or nothing to withdraw.
            _ => Ok(json!({ "state": g.to_json() })),
        }
    }

    /// `POST /api/games/{id}/takeback`: `offer` true proposes to take back one's last move (or
    /// accepts the other side's proposal: the game goes back to just before the proposer's last
    /// move); false withdraws one's own or declines theirs. `accept` (with `offer` true) only
    /// accepts: with no proposal of the other side's standing it is refused, and nothing is
    /// proposed.
    ///
    /// # Errors
    /// 404 unknown game; 403 a token that holds no seat; 409 not online, not joined, over,
    /// stale `expected_ply`, a proposal by a player who has not moved, an `accept` with no
    /// proposal of the other side's standing; 500 as [`App::slot`], or a database error.
    pub async fn takeback(
        &self,
        id: &str,
        token: &str,
        offer: bool,
        accept: bool,
        expected_ply: Option<u64>,
    ) -> Result<Value, ApiError> {
        let slot = self.slot(id)?;
        let mut g = slot.game.lock().await;
        let me = online_seat(&g, token, "a takeback")?;
        check_ply(&g, expected_ply, "takeback")?;
        let standing = g.meta.offers.takeback;
        if accept && standing.is_none_or(|by| by == me) {
            return Err(ApiError::conflict(nothing_to_accept(
                "takeback proposal",
                standing == Some(me),
            )));
        }
        match (offer, standing) {
            (true, Some(by)) if by != me => {
                let keep = g.moves.iter().rposition(|m| m.side == by).ok_or_else(|| {
                    ApiError::internal(format!("game {id}: a takeback by {by}, who has not moved"))
                })?;
                self.take_back(&slot, &mut g, keep)
            }
            (true, None) => {
                if !g.moves.iter().any(|m| m.side == me) {
                    return Err(ApiError::conflict(
                        "you have not moved yet: there is nothing to take back",
                    ));
                }
                g.meta.offers.takeback = Some(me);
                Ok(Self::offer_changed(&slot, &g, "takeback", me, "offer"))
            }
            (false, Some(by)) => {
                g.meta.offers.takeback = None;
                let action = if by == me { "withdraw" } else { "decline" };
                Ok(Self::offer_changed(&slot, &g, "takeback", me, action))
            }
            _ => Ok(json!({ "state": g.to_json() })),
        }
    }

    /// `POST /api/games/{id}/claim`: the win (`draw` false) or a draw, when the other seat of
    /// an online game has been away for the claim time, has moved at least once (else the
    /// game can only be aborted), and the claimant is here: as [`crate::ws::PRESENCE_SILENCE`]
    /// says, a connection that said hello with its token is open and has spoken in the last 7 s.
    ///
    /// # Errors
    /// 404 unknown game; 403 a token that holds no seat; 409 not online, not joined, over, the
    /// claimant not here (not connected, or its connections silent), the friend present, not away long enough or not moved yet; 500
    /// as [`App::slot`], or a database error.
    pub async fn claim(&self, id: &str, token: &str, draw: bool) -> Result<Value, ApiError> {
        let slot = self.slot(id)?;
        let mut g = slot.game.lock().await;
        let me = online_seat(&g, token, "a claim")?;
        if slot.away(me).is_some() {
            // Here is as Presence says: an open connection that said hello with the token and
            // has sent something in the last 7 s.
            return Err(ApiError::conflict(match slot.silent_for(me) {
                Some(silent) => format!(
                    "your connection to the game has been silent for {} s: a player is here \
                     while its connection sends something at least every {} s (a ping); send \
                     one, then claim",
                    silent.as_secs(),
                    crate::ws::PRESENCE_SILENCE.as_secs()
                ),
                None => "you are not connected to the game: only a player who is here may \
                         claim it (open its WebSocket with your token)"
                    .to_string(),
            }));
        }
        let Some(away) = slot.away(me.other()) else {
            return Err(ApiError::conflict("your friend is here"));
        };
        // As on lichess: a game the absent side has not moved in yet can only be aborted.
        if !g.moves.iter().any(|m| m.side == me.other()) {
            return Err(ApiError::conflict(format!(
                "{} has not moved yet: abort the game instead (no result)",
                me.other()
            )));
        }
        let after = slot.claim_after();
        if away < after {
            return Err(ApiError::conflict(format!(
                "your friend has been away for {} s: you may claim after {} s",
                away.as_secs(),
                seconds(after)
            )));
        }
        let kind = if draw {
            EndKind::ClaimDraw
        } else {
            EndKind::ClaimWin
        };
        self.end(&slot, &mut g, Ending { kind, by: Some(me) })
    }

    /// The engine's advice for the holder of `token`. Runs to the end even if the caller goes
    /// away (the game's hint guard is given back either way).
    ///
    /// # Errors
    /// 404 unknown game; 403 no seat; 409 online game, game over, not your turn; 429 a hint
    /// already running for this game, or as many hints of the client at `peer` running or
    /// waiting as it may ([`App::set_hints_per_client`]); 500 as [`App::slot`], or when the engine fails.
    pub async fn hint(
        self: &Arc<Self>,
        id: &str,
        token: &str,
        peer: Option<std::net::IpAddr>,
    ) -> Result<Value, ApiError> {
        let (id, token) = (id.to_owned(), token.to_owned());
        self.detached(move |app| async move { app.hint_now(&id, &token, peer).await })
            .await
    }

    async fn hint_now(
        &self,
        id: &str,
        token: &str,
        peer: Option<std::net::IpAddr>,
    ) -> Result<Value, ApiError> {
        // Counted from the start: a hint waiting for its game or the engine counts as one running.
        let _place = self.hint_place(peer)?;
        let slot = self.slot(id)?;
        let state = {
            let g = slot.game.lock().await;
            let seats = g.seats_of(token);
            if seats.is_empty() {
                return Err(ApiError::forbidden(format!(
                    "this token holds no seat in game {id}"
                )));
            }
            if g.meta.opponent == Opponent::Online {
                return Err(ApiError::conflict("hints are not offered in online games"));
            }
            let Some(to_move) = g.to_move() else {
                return Err(ApiError::conflict(g.over_message()));
            };
            if !seats.contains(&to_move) {
                return Err(ApiError::conflict(format!(
                    "not your turn: {to_move} is to move"
                )));
            }
            g.state.clone()
        };
        let oracle = self.oracle(state.game());
        if slot.hint_busy.swap(true, Ordering::AcqRel) {
            return Err(ApiError::too_many(
                "a hint is already being computed for this game",
            ));
        }
        // Gives the guard back however this ends.
        let _busy = HintGuard(&slot);
        let hint_permit = Arc::clone(&self.hints)
            .acquire_owned()
            .await
            .map_err(ApiError::internal)?;
        let permit = Arc::clone(&self.engine)
            .acquire_owned()
            .await
            .map_err(ApiError::internal);
        let result = match permit {
            Ok(permit) => tokio::task::spawn_blocking(move || {
                let _permits = (permit, hint_permit);
                engine::hint(&state, oracle)
            })
            .await
            .map_err(ApiError::internal)
            .and_then(|r| r.map_err(ApiError::internal)),
            Err(e) => Err(e),
        };
        result
    }

    /// `GET /api/games`: at most `limit` games newest first, after the game `before` if given;
    /// `next` is the id to pass as `before` for the following page (`null` once the list is
    /// at its end).
    ///
    /// # Errors
    /// 400 when `before` names no stored game; 500 on a database error.
    pub fn list(
        &self,
        finished: Option<bool>,
        limit: u32,
        before: Option<&str>,
    ) -> Result<Value, ApiError> {
        let limit = limit.min(crate::api::MAX_LIST);
        // One more than asked: whether a next page exists.
        let Some(mut rows) = lock(&self.store).list(finished, limit + 1, before)? else {
            return Err(ApiError::bad_request(format!(
                "before: no game '{}' (pass the next of the previous page)",
                crate::util::cut(before.unwrap_or_default(), crate::util::QUOTE_MAX)
            )));
        };
        let more = rows.len() > limit as usize;
        rows.truncate(limit as usize);
        let next = if more {
            rows.last().map(|r| r.id.clone())
        } else {
            None
        };
        let damaged = lock(&self.damaged);
        let games: Vec<Value> = rows
            .into_iter()
            .map(|r| {
                let opponent = match r.opponent.as_str() {
                    "computer" => json!({"kind": "computer", "level": r.level}),
                    k => json!({"kind": k}),
                };
                json!({
                    "id": r.id, "game": r.game, "mode": r.mode, "opponent": opponent,
                    "created": util::rfc3339(r.created),
                    "finished": r.finished.map(util::rfc3339),
                    "ply": r.ply, "winner": r.winner, "ended": r.ended,
                    "damaged": damaged.get(&r.id).or(r.unreadable.as_ref()),
                })
            })
            .collect();
        Ok(json!({ "games": games, "next": next }))
    }

    /// `GET /api/games/{id}/positions`: the position before the first move, then every move
    /// replayed through the rules with its trace and the position after it.
    ///
    /// A replay holds one of the permits [`App::set_positions_at_once`] sets from the copy of
    /// the game to the end of the replay; a request for a game that is busy (its computer
    /// thinking) holds none while it waits for the game.
    ///
    /// # Errors
    /// 404 for an unknown id; 503 with `Retry-After` when every permit is taken; 500 as
    /// [`App::slot`], or for a stored move that no longer replays.
    pub async fn positions(&self, id: &str) -> Result<String, ApiError> {
        let busy = || {
            let mut e = ApiError::unavailable(format!(
                "the server is busy replaying games for their positions (at most {} at once): \
                 try again in a moment",
                self.positions_at_once.load(Ordering::Relaxed)
            ));
            e.retry_after = Some(1);
            e
        };
        let permit = || {
            Arc::clone(&self.positions)
                .try_acquire_owned()
                .map_err(|_| busy())
        };
        // The permit first: a request refused while every replay is taken loads, waits on and
        // clones nothing.
        let mut held = permit()?;
        let slot = self.slot(id)?;
        let g = if let Ok(g) = slot.game.try_lock() {
            g.clone()
        } else {
            // The game is busy (its computer thinking, a move being stored): waiting for it
            // holds no permit, which other games' replays may use meanwhile; the permit is
            // taken again once the game is copied.
            drop(held);
            let g = slot.game.lock().await.clone();
            held = permit()?;
            g
        };
        drop(slot);
        let permit = held;
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            Self::replay_positions(&g).map(|v| v.to_string())
        })
        .await
        .map_err(ApiError::internal)?
    }

    /// [`App::positions`]'s answer: `g` replayed through the rules (seconds for the longest
    /// games: run on a blocking thread).
    fn replay_positions(g: &LiveGame) -> Result<Value, ApiError> {
        let mut replay = LiveGame::new(g.meta.clone()).map_err(ApiError::internal)?;
        let mut out = Vec::with_capacity(g.moves.len());
        for m in &g.moves {
            let by = if g.is_computer(m.side) {
                "computer"
            } else {
                "human"
            };
            let played = replay
                .play_traced(m.mv, by)
                .map_err(|e| ApiError::internal(format!("ply {}: {e}", m.ply)))?;
            out.push(played.to_json());
        }
        let start = &replay.start;
        Ok(json!({
            "id": g.meta.id,
            "ply": g.moves.len(),
            "start": {
                "board": start.board,
                "closed": live::closed_letters(start.closed),
                "stores": start.stores,
                "taken": start.taken,
                "position": start.to_string(),
            },
            "moves": out,
        }))
    }

    /// A snapshot of game `id` (for the record writer).
    ///
    /// # Errors
    /// 404 for an unknown id; 500 as [`App::slot`].
    pub async fn snapshot(&self, id: &str) -> Result<LiveGame, ApiError> {
        let slot = self.slot(id)?;
        let g = slot.game.lock().await;
        Ok(g.clone())
    }
}

/// Refuses a move or an undo in an online game whose other seat is not taken yet: the game
/// starts when the friend joins, whoever moves first (the host gets no free move).
fn check_joined(g: &LiveGame) -> Result<(), ApiError> {
    if g.meta.opponent == Opponent::Online && g.meta.tokens.iter().any(Option::is_none) {
        return Err(ApiError::conflict(
            "waiting for your friend to join: send them the invite link",
        ));
    }
    Ok(())
}

/// Refuses a `what` (move, undo) sent from a view of the game at another ply than its own:
/// a double submit, or a request sent before the last move arrived.
fn check_ply(g: &LiveGame, expected_ply: Option<u64>, what: &str) -> Result<(), ApiError> {
    match expected_ply {
        Some(e) if e != g.moves.len() as u64 => Err(ApiError::conflict(format!(
            "stale {what}: the game is at ply {}, not {e}; reload the state",
            g.moves.len()
        ))),
        _ => Ok(()),
    }
}

/// Parses an opponent kind and level for `game` played as `mode`.
///
/// # Errors
/// 400 for an unknown kind, or a level that is unknown or not on the ladder of that game and
/// mode ([`pussa_engine::Level::ladder`]).
pub fn parse_opponent(
    kind: &str,
    level: Option<&str>,
    game: Game,
    mode: pussa_rules::Mode,
) -> Result<Opponent, ApiError> {
    match kind {
        "computer" => {
            let level = match level {
                Some(l) => engine::check_level(l, game, mode)
                    .map_err(|e| ApiError::bad_request(format!("opponent.level: {e}")))?,
                None => pussa_engine::Level::default_for(game, mode)
                    .name()
                    .to_string(),
            };
            Ok(Opponent::Computer { level })
        }
        "hotseat" | "online" if level.is_some() => Err(ApiError::bad_request(format!(
            "opponent.level: only a computer opponent has a level, not '{kind}'"
        ))),
        "hotseat" => Ok(Opponent::Hotseat),
        "online" => Ok(Opponent::Online),
        other => Err(ApiError::bad_request(format!(
            "opponent.kind: unknown opponent '{other}': expected computer, hotseat or online"
        ))),
    }
}

/// Moves of the games in `games`, over every game.
fn plies_of(games: &HashMap<String, Arc<Slot>>) -> usize {
    games
        .values()
        .map(|s| s.plies.load(Ordering::Relaxed))
        .sum()
}

/// An error of the tables as the server's log and [`App::verify_tables`] give it: the library's
/// message, and what fixes it in plain words ([`pussa_egtb::Remedy`]) when the library knows.
pub(crate) fn table_error(e: &pussa_egtb::FormatError) -> String {
    match e.remedy() {
        Some(r) => format!("{e} ({r})"),
        None => e.to_string(),
    }
}
