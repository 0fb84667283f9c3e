//! # pussa-server
//!
//! `pussa serve`: the web page and the JSON/WebSocket API (docs/api.md) on axum, every game
//! stored move by move in SQLite, online games with secret seat tokens.
//!
//! - [`Config`] and [`Server`]: bind, then [`Server::run`] until the shutdown future resolves.
//! - The rules decide every move ([`pussa_rules::GameState::play_traced`]); the computer plays
//!   with [`pussa_engine::choose_move_with_oracle`]; hints come from [`pussa_engine::search`];
//!   both use the game's endgame tables when the server has them ([`Server::use_tables`]).
//! - Storage: one SQLite file (WAL, readable and backed up online by other programs; a lock on
//!   the database file itself, and one on its pid file as earlier releases took, keep a second
//!   server out: [`store::Store::open`]; the schema is written, an older one upgraded, in one
//!   transaction committed only once the address is bound and the games read:
//!   [`Server::bind`]; checkpointed
//!   when the server stops); each move is committed before it is
//!   acknowledged, and every unfinished game is rebuilt from its moves when the server starts.
//! - `GET /api/health` checks that the database accepts a write ([`app::App::health`]).
//!
//! # Examples
//! ```no_run
//! # async fn demo() -> anyhow::Result<()> {
//! let config = pussa_server::Config {
//!     addr: "127.0.0.1:8080".parse()?,
//!     db: "data/pussa.sqlite3".into(),
//! };
//! let server = pussa_server::Server::bind(&config).await?;
//! println!("pussa: open http://{}/", server.local_addr());
//! server.run(async { let _ = tokio::signal::ctrl_c().await; }).await?;
//! # Ok(()) }
//! ```
#![warn(missing_docs)]

// The crate's README.md (its crates.io page) is compiled and run as a doctest, so its example
// stays in step with the API.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctest;

use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context as _;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use axum::Router;

pub mod api;
pub mod app;
pub mod assets;
pub mod client;
pub mod conn;
pub mod engine;
pub mod error;
pub mod live;
pub mod record;
pub mod store;
pub mod util;
pub mod ws;

/// Largest request body accepted (a long game record fits many times over).
pub const MAX_BODY: usize = 256 * 1024;

/// Where to listen and where to store games.
#[derive(Clone, Debug)]
pub struct Config {
    /// Address to listen on.
    pub addr: SocketAddr,
    /// The SQLite file (created with its directory if missing).
    pub db: PathBuf,
}

/// A bound server, ready to run.
pub struct Server {
    listener: tokio::net::TcpListener,
    app: Arc<app::App>,
    database: Database,
    limits: conn::Limits,
    proxies: client::Proxies,
    evict_after: std::time::Duration,
}

/// What the server found in its database file when it opened it ([`Server::database`]).
#[derive(Clone, Debug)]
pub struct Database {
    /// The file.
    pub path: PathBuf,
    /// Whether it held no tables (a missing or empty file): a new database was made.
    pub created: bool,
    /// The schema version the file had before it was upgraded in place to
    /// [`store::SCHEMA_VERSION`] (which builds reading only that older version refuse), if
    /// it was.
    pub upgraded_from: Option<i32>,
    /// Whether it had the current tables and columns but no schema marker (a copy saved with
    /// `sqlite3 FILE .dump`, as the recovery recipe makes): the marker was written, nothing
    /// was upgraded.
    pub marked: bool,
    /// Games stored, and how many of them are unfinished.
    pub counts: (u64, u64),
}

impl Database {
    /// The start-up lines that say what the file held: `pussa: upgraded FILE from schema 1 to
    /// 2; …` when it was upgraded, then `pussa: new database created at FILE` or `pussa: 14
    /// games (9 unfinished) in FILE`, so that a mistyped or moved data folder (a new, empty
    /// database) is seen at once.
    #[must_use]
    pub fn lines(&self) -> Vec<String> {
        let file = self.path.display();
        let mut lines = Vec::new();
        if let Some(from) = self.upgraded_from {
            lines.push(format!(
                "pussa: upgraded {file} from schema {from} to {}; earlier pussa builds can no \
                 longer open it",
                store::SCHEMA_VERSION
            ));
        }
        if self.marked {
            lines.push(format!(
                "pussa: {file} had the tables of schema {} without its marker (a copy saved \
                 with .dump): marked as schema {0}, nothing upgraded",
                store::SCHEMA_VERSION
            ));
        }
        lines.push(if self.created {
            format!("pussa: new database created at {file}")
        } else {
            let (games, unfinished) = self.counts;
            format!(
                "pussa: {games} game{} ({unfinished} unfinished) in {file}",
                if games == 1 { "" } else { "s" }
            )
        });
        lines
    }
}

static BUILD_COMMIT: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();

/// Names the commit the running build was made from (the `pussa` command passes the one its
/// build script found), for `/api/health` and `/api/meta` (`"commit"`); an empty string, or no
/// call, leaves it `null`. Only the first call counts.
pub fn set_build_commit(commit: &'static str) {
    let _ = BUILD_COMMIT.set(commit);
}

/// The commit [`set_build_commit`] named, if any.
#[must_use]
pub fn build_commit() -> Option<&'static str> {
    BUILD_COMMIT.get().copied().filter(|c| !c.is_empty())
}

/// The router: the API under `/api/`, the page everywhere else.
pub fn router(app: Arc<app::App>) -> Router {
    let api = Router::new()
        .route("/meta", get(api::meta))
        .route("/health", get(api::health))
        .route("/rules/{game}", get(api::rules))
        .route("/games", get(api::list).post(api::create))
        .route("/games/import", post(api::import))
        .route("/games/{id}", get(api::state))
        .route("/games/{id}/join", post(api::join))
        .route("/games/{id}/rematch", post(api::rematch))
        .route("/games/{id}/moves", post(api::play))
        .route("/games/{id}/undo", post(api::undo))
        .route("/games/{id}/resign", post(api::resign))
        .route("/games/{id}/abort", post(api::abort))
        .route("/games/{id}/draw", post(api::draw))
        .route("/games/{id}/takeback", post(api::takeback))
        .route("/games/{id}/claim", post(api::claim))
        .route("/games/{id}/hint", get(api::hint).post(api::hint_post))
        .route("/games/{id}/record", get(api::get_record))
        .route("/games/{id}/positions", get(api::positions))
        .route("/games/{id}/ws", get(api::websocket))
        .fallback(api::api_not_found)
        .method_not_allowed_fallback(api::method_not_allowed);
    Router::new()
        .nest("/api", api)
        .fallback(api::static_file)
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(app)
}

/// Refuses a database whose file (or WAL file) exists but cannot be written, naming the
/// problem: SQLite would only say `disk I/O error … in the advisory file locking layer`. The
/// permission bits are read as well as the OS asked, so that a file marked read-only is
/// refused even for root, whom the OS would let write.
fn check_writable(db: &std::path::Path) -> anyhow::Result<()> {
    let with_suffix = |suffix: &str| {
        let mut name = db.as_os_str().to_owned();
        name.push(suffix);
        PathBuf::from(name)
    };
    for path in [db.to_path_buf(), with_suffix("-wal"), with_suffix("-shm")] {
        // Missing (created later), or not a file (SQLite says what is wrong with that).
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        if !meta.is_file() {
            continue;
        }
        let refused = if meta.permissions().readonly() {
            Some(mode_text(&meta))
        } else {
            match std::fs::OpenOptions::new().write(true).open(&path) {
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::PermissionDenied
                            | std::io::ErrorKind::ReadOnlyFilesystem
                    ) =>
                {
                    Some(e.to_string())
                }
                _ => None,
            }
        };
        if let Some(why) = refused {
            let which = if path == db {
                "the file".to_string()
            } else {
                format!("its file {}", path.display())
            };
            anyhow::bail!(
                "cannot open the database {}: {which} is read-only (or not yours): {why}",
                db.display()
            );
        }
    }
    Ok(())
}

/// The warning (one line) for a database file that can be read by its group or by others, as
/// one made by an older pussa is (mode 0644): it holds every seat's token and every unused
/// invite. The mode is the admin's to change (an existing file keeps it): the line names the
/// `chmod` to run, with the path shell-quoted. SQLite's `-wal` and `-shm` files, which take
/// the database file's mode, are made the owner's only by the server itself once it has
/// opened the database (see `store::private_side_files`), so the command need not name them.
fn readable_by_others(db: &std::path::Path) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let meta = std::fs::metadata(db).ok()?;
        let mode = meta.permissions().mode() & 0o7777;
        if mode & 0o077 == 0 {
            return None;
        }
        Some(format!(
            "the database {} (mode {mode:04o}) can be read by other users than its owner, and \
             it holds every seat's token: run chmod 600 {} (the server leaves an existing \
             database file's mode as it is; it makes its -wal and -shm files readable by their \
             owner only)",
            db.display(),
            util::shell_quote(&db.to_string_lossy())
        ))
    }
    #[cfg(not(unix))]
    {
        let _ = db;
        None
    }
}

/// How a read-only file's permissions read: `mode 0444` (Unix), `marked read-only` elsewhere.
fn mode_text(meta: &std::fs::Metadata) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        format!(
            "no write permission (mode {:04o})",
            meta.permissions().mode() & 0o7777
        )
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        "marked read-only".to_string()
    }
}

impl Server {
    /// Opens (or creates) the database, rebuilds the unfinished games and binds the address.
    /// The file is locked and checked first ([`store::Store::prepare`]), then the address is
    /// bound, and only then is the schema written ([`store::Opening::finish`]), in a
    /// transaction committed once the games read ([`store::Store::commit_opening`]): a
    /// start that cannot listen, or that fails reading the games (a damaged page), leaves an
    /// older database as it was, not upgraded. [`Server::database`] says what the file held.
    ///
    /// # Errors
    /// When the database cannot be opened (a file that is read-only or not ours, a directory
    /// that is not writable, another server using it, another program holding SQLite's write
    /// lock, not a database, damaged beyond its games) or the address cannot be bound; the
    /// message names the file.
    pub async fn bind(config: &Config) -> anyhow::Result<Server> {
        if let Some(dir) = config.db.parent().filter(|d| !d.as_os_str().is_empty()) {
            // A directory made here is its owner's only (mode 0700), as the files in it are
            // (see `store::private`); one that exists is left as it is.
            let mut builder = std::fs::DirBuilder::new();
            builder.recursive(true);
            #[cfg(unix)]
            {
                use std::os::unix::fs::DirBuilderExt as _;
                builder.mode(0o700);
            }
            builder
                .create(dir)
                .with_context(|| format!("cannot create the data directory {}", dir.display()))?;
        }
        check_writable(&config.db)?;
        let db = config.db.display();
        let open_error = |e: store::OpenError| match e {
            // Another pussa serve holds the database file's lock (a refusal); SQLite's own lock
            // held this long is another program's, or an older pussa serve's (which held
            // SQLite's exclusive lock for its whole run).
            store::OpenError::Locked(holders) => {
                let by = match holders.as_slice() {
                    [] => String::new(),
                    [one] => format!(" (pid {one})"),
                    many => format!(
                        " (pids {})",
                        many.iter()
                            .map(ToString::to_string)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                };
                anyhow::anyhow!(
                    "cannot open the database {db}: it is locked by another program{by}, perhaps \
                     an older pussa serve still running, or one holding a write transaction \
                     open such as the sqlite3 shell: stop or close it first"
                )
            }
            store::OpenError::Refused(why) => {
                anyhow::anyhow!("cannot open the database {db}: {why}")
            }
            store::OpenError::Sqlite(e) => {
                anyhow::anyhow!("cannot open the database {db}: {}", store::sqlite_words(&e))
            }
        };
        // Before anything is written: the file is checked and locked, then the address bound,
        // and only then is the schema written (an older one upgraded in place, for good), so
        // that a start that cannot listen leaves the file as it was.
        let readable = readable_by_others(&config.db);
        let opening = store::Store::prepare(&config.db).map_err(open_error)?;
        let listener = tokio::net::TcpListener::bind(config.addr)
            .await
            .with_context(|| format!("cannot listen on {}", config.addr))?;
        let mut store = opening.finish().map_err(open_error)?;
        let cannot_read = |e: rusqlite::Error| {
            anyhow::anyhow!(
                "cannot read the database {}: {}",
                config.db.display(),
                store::sqlite_words(&e)
            )
        };
        // The schema (an upgrade, for good) is committed only once the list of games reads: a
        // start that fails before leaves the file as it was (a game whose moves cannot be read
        // is then flagged as damaged, as always, not a failed start).
        store.commit_opening().map_err(cannot_read)?;
        if let Some(warning) = readable {
            tracing::warn!("{warning}");
        }
        let database = Database {
            path: config.db.clone(),
            created: store.created(),
            upgraded_from: store.upgraded_from(),
            marked: store.marked(),
            counts: store.counts().map_err(cannot_read)?,
        };
        let app = app::App::open(store).map_err(cannot_read)?;
        Ok(Server {
            listener,
            app,
            database,
            limits: conn::Limits::default(),
            proxies: client::Proxies::default(),
            evict_after: app::DEFAULT_EVICT_AFTER,
        })
    }

    /// What the database file held when the server opened it (new, upgraded, how many games).
    #[must_use]
    pub fn database(&self) -> &Database {
        &self.database
    }

    /// The address actually bound (useful with port 0).
    ///
    /// # Panics
    /// Never in practice: a bound listener has an address.
    #[must_use]
    pub fn local_addr(&self) -> SocketAddr {
        self.listener
            .local_addr()
            .expect("a bound listener has an address")
    }

    /// Gives the computer (the levels from club up) and the hints the endgame tables under
    /// `dir` (`<dir>/<game>/<seeds>.pegtb`, built by `pussa egtb build`), for every game that
    /// has some. Cheap: only the files' headers are read now; a game's tables are verified
    /// (checksums) in the background the first time a position in their range is searched, and
    /// used once verified (a damaged file is logged and never used). Call before
    /// [`Server::run`]. Returns the games with tables and the largest seed count of each.
    ///
    /// # Errors
    /// A table file that cannot be read or whose header is wrong, naming the file.
    pub fn use_tables(
        &self,
        dir: &std::path::Path,
    ) -> Result<Vec<(pussa_rules::Game, usize)>, pussa_egtb::FormatError> {
        let tables = pussa_egtb::TablesDir::open(dir, |game, r| match r {
            Ok(max) => tracing::info!("endgame tables of {game} (0..={max} seeds) verified"),
            Err(e) => tracing::error!("endgame tables of {game} not used: {}", app::table_error(e)),
        })?;
        let games = tables.games();
        self.app.set_tables(tables);
        Ok(games)
    }

    /// Verifies every game's tables now (blocking) instead of on first need, so the computer's
    /// moves do not depend on when the background verification ends: the games whose tables
    /// passed, with the largest seed count, and those refused, with the reason.
    pub fn verify_tables(&self) -> Vec<(pussa_rules::Game, Result<usize, String>)> {
        self.app.verify_tables()
    }

    /// Replaces the time limits on slow clients and the caps on open connections
    /// ([`conn::Limits::default`] until then; [`conn::Limits::for_open_files`] fits them in a
    /// file-descriptor limit). Call before [`Server::run`].
    pub fn set_limits(&mut self, limits: conn::Limits) {
        self.limits = limits;
    }

    /// The limits the server will run with.
    #[must_use]
    pub fn limits(&self) -> conn::Limits {
        self.limits
    }

    /// Trusts the reverse proxies `proxies` names: a request from one of them is counted
    /// against the allowance and caps of the client address it forwards (see
    /// [`client::Proxies::client`]), and logged with it. None until set: every client is its
    /// TCP peer. Call before [`Server::run`].
    pub fn set_proxies(&mut self, proxies: client::Proxies) {
        self.proxies = proxies;
    }

    /// How long a player's friend must be away from an online game before the player may claim
    /// the win or a draw (`POST /api/games/{id}/claim`); [`app::DEFAULT_CLAIM_AFTER`] (60 s)
    /// until set.
    pub fn set_claim_after(&self, after: std::time::Duration) {
        self.app.set_claim_after(after);
    }

    /// The server's shared state (for embedders and tests that look inside while it runs).
    #[must_use]
    pub fn app(&self) -> Arc<app::App> {
        Arc::clone(&self.app)
    }

    /// Games held in memory now.
    #[must_use]
    pub fn games_in_memory(&self) -> usize {
        self.app.games_in_memory()
    }

    /// Unfinished games found sound in the database at start (each is loaded into memory when
    /// asked for; see [`Server::set_evict_after`]).
    #[must_use]
    pub fn unfinished_games(&self) -> usize {
        self.app.restored()
    }

    /// How many games one client address may create a minute (0: no limit);
    /// [`app::DEFAULT_NEW_GAMES_PER_MINUTE`] until set.
    pub fn set_new_games_per_minute(&self, n: u32) {
        self.app.set_new_games_per_minute(n);
    }

    /// How many hints one client may have running or waiting at once
    /// ([`app::DEFAULT_HINTS_PER_CLIENT`] until set; see [`app::App::set_hints_per_client`]).
    pub fn set_hints_per_client(&self, n: usize) {
        self.app.set_hints_per_client(n);
    }

    /// How many `GET /api/games/{id}/positions` may replay games at once (see
    /// [`app::App::set_positions_at_once`]). Call before [`Server::run`].
    pub fn set_positions_at_once(&self, n: usize) {
        self.app.set_positions_at_once(n);
    }

    /// Caps the games held in memory: at most `games` games and `plies` moves over all of them
    /// ([`app::DEFAULT_MAX_GAMES_IN_MEMORY`], [`app::DEFAULT_MAX_PLIES_IN_MEMORY`] until set;
    /// see [`app::App::set_memory_caps`]).
    pub fn set_memory_caps(&self, games: usize, plies: usize) {
        self.app.set_memory_caps(games, plies);
    }

    /// How long a game nobody asks for stays in memory ([`app::DEFAULT_EVICT_AFTER`] until
    /// set). Call before [`Server::run`].
    pub fn set_evict_after(&mut self, after: std::time::Duration) {
        self.evict_after = after;
    }

    /// Serves until `shutdown` resolves, then finishes the requests in flight and closes the
    /// WebSocket connections with code 1001, waiting at most [`conn::SHUTDOWN_GRACE`] for each
    /// (see [`conn::serve`] for the limits on slow clients), and checkpoints the database
    /// ([`app::App::checkpoint`]: the `-wal` file emptied into the database file).
    ///
    /// # Errors
    /// When the listener fails.
    pub async fn run(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> anyhow::Result<()> {
        self.app.resume_computer_moves();
        // Games nobody asks for leave memory (they stay in the database).
        let sweeper = {
            let app = Arc::clone(&self.app);
            let idle = self.evict_after;
            let every = (idle / 2).clamp(
                std::time::Duration::from_millis(50),
                std::time::Duration::from_secs(60),
            );
            tokio::spawn(async move {
                let mut tick = tokio::time::interval(every);
                loop {
                    tick.tick().await;
                    app.evict_idle(idle);
                }
            })
        };
        app::lock(&self.app.connections).set_caps(
            self.limits.max_websockets,
            self.limits.max_websockets_per_client,
        );
        let router = router(Arc::clone(&self.app));
        // Setting `shutdown` also closes the WebSocket connections, which would otherwise hold
        // the graceful shutdown open.
        let result = conn::serve(
            self.listener,
            router,
            self.limits,
            self.proxies,
            self.app.shutdown.clone(),
            shutdown,
        )
        .await;
        sweeper.abort();
        // The WebSocket connections were told to close (code 1001): let them say so before
        // the process ends.
        let t0 = std::time::Instant::now();
        while self.app.sockets_open() > 0 && t0.elapsed() < conn::SHUTDOWN_GRACE {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        // Every game into the database file itself, even while another program keeps the
        // database open (SQLite checkpoints on its own only when the last connection closes).
        {
            let app = Arc::clone(&self.app);
            let _ = tokio::task::spawn_blocking(move || app.checkpoint()).await;
        }
        result?;
        Ok(())
    }
}
