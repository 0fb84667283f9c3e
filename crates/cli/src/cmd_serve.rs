//! `pussa serve`: the web page and the JSON/WebSocket API (docs/api.md).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use anyhow::Context as _;

/// Default listening address.
pub const DEFAULT_ADDR: &str = "127.0.0.1:8080";

/// The most `--max-games-in-memory` takes.
pub const MAX_GAMES_IN_MEMORY: u64 = 10_000_000;
/// The fewest `--max-moves-in-memory` takes (fewer would refuse most games).
pub const MIN_MOVES_IN_MEMORY: u64 = 1000;
/// The most `--max-moves-in-memory` takes (some 27 GiB at about 270 bytes a move).
pub const MAX_MOVES_IN_MEMORY: u64 = 100_000_000;

/// Start the web server: play in the browser, against the computer, on one screen or online.
#[derive(clap::Args, Debug, Default)]
pub struct Args {
    /// Address to listen on: an IP address and a port 0..=65535, an IPv6 address in brackets
    /// (`[::1]:8080`) [env: PUSSA_ADDR] [default: 127.0.0.1:8080].
    #[arg(long, value_name = "HOST:PORT", value_parser = parse_addr)]
    pub addr: Option<SocketAddr>,
    /// Directory for the games database `pussa.sqlite3` [env: PUSSA_DATA] [default: ./data].
    #[arg(long, value_name = "DIR")]
    pub data: Option<PathBuf>,
    /// The SQLite file itself (overrides --data). It is created if missing, but its directory
    /// must exist: a mistyped directory is refused, not created.
    #[arg(long, value_name = "FILE")]
    pub db: Option<PathBuf>,
    /// Endgame tables (built by `pussa egtb build`) for the computer (levels club and up) and
    /// the hints: a directory, or `none`. Default: `egtb` in the data directory, the one the
    /// database is in (`--data DIR` or PUSSA_DATA: DIR/egtb; `--db FILE`: `egtb` next to FILE;
    /// else ./data/egtb, where `pussa egtb build` writes them too) if it holds tables. Start-up
    /// stays quick: a game's tables are verified in the background when first needed.
    #[arg(long, value_name = "DIR|none")]
    pub egtb: Option<String>,
    /// Seconds a player's friend must be away from an online game before the player may claim
    /// the win or a draw [default: 60].
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true, value_parser = crate::numarg::ranged::<u64>(1, 86_400))]
    pub claim_after: Option<u64>,
    /// Games one client (IP address) may create a minute (new games, imports and rematches),
    /// in a burst of as many; more are answered 429 with Retry-After. 0: no limit [default: 120].
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = crate::numarg::ranged::<u32>(0, u32::MAX.into()))]
    pub new_games_per_minute: Option<u32>,
    /// Games held in memory at most (a stored game is loaded when asked for and leaves memory
    /// when idle; past the cap a game nobody uses makes room, and when every game held is in
    /// use new games and loads are answered 503 with Retry-After; one client's watcher
    /// WebSockets may hold an eighth of this, at least one game, and of
    /// --max-moves-in-memory: below 16 that is one game, so one address cannot watch a second
    /// game, nor watch one while playing its own) [default: 10000].
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = crate::numarg::ranged::<usize>(1, MAX_GAMES_IN_MEMORY))]
    pub max_games_in_memory: Option<usize>,
    /// Moves held in memory at most, over every game held (about 270 bytes each: the default
    /// is about 135 MiB); no one game may be longer: a move past it, and a new game, import or
    /// stored game longer than this, are refused [default: 500000].
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = crate::numarg::ranged::<usize>(MIN_MOVES_IN_MEMORY, MAX_MOVES_IN_MEMORY))]
    pub max_moves_in_memory: Option<usize>,
    /// Hints one client (IP address) may have running or waiting at once; more are answered
    /// 429 [default: 2].
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = crate::numarg::ranged::<usize>(1, 1000))]
    pub hints_per_client: Option<usize>,
    /// Games replayed at once for GET …/positions (the page's replay and last-move caption);
    /// more are answered 503 with Retry-After [default: one fewer than the cores, at least 1].
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = crate::numarg::ranged::<usize>(1, 1024))]
    pub positions_at_once: Option<usize>,
    /// Reverse proxies to trust (comma-separated addresses or networks: `127.0.0.1`,
    /// `10.0.0.0/8`, `::1`): a request from one of them counts, for the per-client limits and
    /// in the log, as coming from the client address the proxy forwards in --proxy-header, and
    /// the host it forwards (X-Forwarded-Host, Forwarded: host=) counts as the server's own for
    /// the WebSocket's Origin check. Without it every client is its TCP peer, and forwarded
    /// headers are never read
    /// [env: PUSSA_TRUST_PROXY].
    #[arg(long, value_name = "ADDR[/BITS],…", value_delimiter = ',', value_parser = parse_net)]
    pub trust_proxy: Option<Vec<pussa_server::client::Net>>,
    /// The header the trusted proxies name the client in: x-forwarded-for, forwarded
    /// (RFC 7239) or x-real-ip [default: x-forwarded-for].
    #[arg(long, value_name = "HEADER", requires = "trust_proxy", value_parser = parse_proxy_header)]
    pub proxy_header: Option<pussa_server::client::ProxyHeader>,
}

fn parse_net(text: &str) -> Result<pussa_server::client::Net, String> {
    text.parse()
}

fn parse_proxy_header(text: &str) -> Result<pussa_server::client::ProxyHeader, String> {
    text.parse()
}

/// The tables directory `--egtb` asks for: `none` → none; a directory → it (an error if it
/// holds no tables of any game); not given → `<data>/egtb` if it holds tables, else none, where
/// `<data>` is the data directory the database is in (`--data`, `PUSSA_DATA`, `./data`, or the
/// directory of `--db FILE`).
///
/// # Errors
/// An empty value, or a directory without tables.
pub fn egtb_dir(egtb: Option<&str>, data: &Path) -> anyhow::Result<Option<PathBuf>> {
    let has_any = |d: &std::path::Path| {
        pussa_rules::Game::ALL
            .into_iter()
            .any(|g| pussa_egtb::oracle::has_tables(d, g))
    };
    match egtb.map(str::trim) {
        Some(s) if s.eq_ignore_ascii_case("none") => Ok(None),
        Some("") => anyhow::bail!("--egtb: expected a directory or none"),
        Some(s) => {
            let dir = PathBuf::from(s);
            if !has_any(&dir) {
                anyhow::bail!(
                    "--egtb {s}: no endgame tables there (expected {s}/<game>/0.pegtb …, built by \
                     `pussa egtb build`; or serve with --egtb none)"
                );
            }
            Ok(Some(dir))
        }
        None => {
            let dir = data.join("egtb");
            Ok(has_any(&dir).then_some(dir))
        }
    }
}

/// Reads a listening address, `HOST:PORT`, naming what is wrong with it: a missing or
/// out-of-range port, a host that is not an IP address, an IPv6 address without brackets
/// (the standard library says only "invalid socket address syntax").
///
/// # Errors
/// The message names the problem and quotes the part as typed.
pub fn parse_addr(text: &str) -> Result<SocketAddr, String> {
    const LIKE: &str = "like 127.0.0.1:8080, 0.0.0.0:8080 or [::1]:8080";
    // A bracketed IPv6 host first: its own colons are not the port's.
    if let Some(inner) = text.strip_prefix('[') {
        let Some((_, after)) = inner.split_once(']') else {
            return Err(format!("missing ']' after the IPv6 host ({LIKE})"));
        };
        if after.is_empty() {
            return Err(format!("missing port after ']' ({LIKE})"));
        }
        if !after.starts_with(':') {
            return Err(format!(
                "'{}' after ']': expected ':' and the port ({LIKE})",
                after.escape_debug()
            ));
        }
    } else if text.contains(']') {
        return Err(format!("']' without a '[' before it ({LIKE})"));
    }
    let Some((host, port)) = text.rsplit_once(':') else {
        return Err(format!("missing port: expected HOST:PORT, {LIKE}"));
    };
    if port.is_empty() {
        return Err(format!("missing port after ':' ({LIKE})"));
    }
    if !port.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "port '{}' is not a whole number (ports are 0..=65535)",
            port.escape_debug()
        ));
    }
    let port: u16 = port
        .parse()
        .map_err(|_| format!("port {port} is not in 0..=65535"))?;
    let ip: std::net::IpAddr = match host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        Some(v6) => v6
            .parse::<std::net::Ipv6Addr>()
            .map_err(|_| format!("host '[{}]' is not an IPv6 address", v6.escape_debug()))?
            .into(),
        None if host.is_empty() => return Err(format!("missing host before ':' ({LIKE})")),
        // Bare IPv6 (`::1:8080`): only a host that reads as one gets the brackets advice.
        None if host.parse::<std::net::Ipv6Addr>().is_ok() => {
            return Err(format!(
                "an IPv6 host goes in brackets: [{}]:{port}",
                host.escape_debug()
            ))
        }
        None if host.contains(':') => {
            return Err(format!(
                "host '{}' is not an IP address: too many ':' ({LIKE})",
                host.escape_debug()
            ))
        }
        None => host.parse().map_err(|_| {
            format!(
                "host '{}' is not an IP address ({LIKE})",
                host.escape_debug()
            )
        })?,
    };
    Ok(SocketAddr::new(ip, port))
}

/// Refuses a `--db` file whose directory does not exist (it is not created: a mistyped
/// directory would start an empty server and leave directories behind) or whose path goes
/// through a file.
fn check_db_dir(db: &Path) -> anyhow::Result<()> {
    let Some(parent) = db.parent().filter(|d| !d.as_os_str().is_empty()) else {
        return Ok(());
    };
    // The first part of the path that is not a directory, from the top.
    for dir in parent.ancestors().collect::<Vec<_>>().into_iter().rev() {
        if dir.as_os_str().is_empty() {
            continue;
        }
        match std::fs::metadata(dir) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => anyhow::bail!(
                "--db {}: {} is not a directory (it is a file)",
                db.display(),
                dir.display()
            ),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => anyhow::bail!(
                "--db {}: the directory {} does not exist (create it first; --db does not \
                 create directories)",
                db.display(),
                parent.display()
            ),
            Err(e) => anyhow::bail!("--db {}: cannot reach {}: {e}", db.display(), dir.display()),
        }
    }
    Ok(())
}

/// Creates the default data directory `dir` (`./data`) if it is missing, as the server would
/// (its owner's only, mode 0700), so that a failure names the full path, that it is the default
/// relative to the current directory, and the way to choose another (a service started in `/`
/// or a user in a directory they cannot write would otherwise read `cannot create data`).
fn create_default_data(dir: &Path) -> anyhow::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    let cwd = std::env::current_dir().unwrap_or_default();
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt as _;
        builder.mode(0o700);
    }
    builder.create(dir).map_err(|e| {
        anyhow::anyhow!(
            "cannot create the data directory {} (the default ./{}, relative to the current \
             directory {}): {e}; choose one with --data DIR or PUSSA_DATA",
            cwd.join(dir).display(),
            dir.display(),
            cwd.display()
        )
    })
}

/// Raises the soft limit on open files (`RLIMIT_NOFILE`) to the hard limit, as servers do:
/// every connection is a file descriptor, and the usual soft limit (1024) is below what the
/// connection caps allow. Answers the limit now in force (`None` where there is none to read)
/// and the soft limit before.
#[cfg(unix)]
#[allow(clippy::useless_conversion)] // rlim_t is u64 on most systems, not all.
fn raise_open_files() -> Option<(u64, u64)> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the struct it is given, which lives for the call.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &raw mut lim) } != 0 {
        return None;
    }
    let before = u64::from(lim.rlim_cur);
    if lim.rlim_cur < lim.rlim_max {
        let mut raised = libc::rlimit {
            rlim_cur: lim.rlim_max,
            rlim_max: lim.rlim_max,
        };
        // SAFETY: as above; setrlimit only reads the struct.
        let mut ok = unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raw const raised) } == 0;
        if !ok && lim.rlim_max > 65_536 {
            // macOS refuses more than OPEN_MAX whatever the hard limit says.
            raised.rlim_cur = 65_536.max(lim.rlim_cur);
            // SAFETY: as above.
            ok = unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raw const raised) } == 0;
        }
        if ok {
            return Some((u64::from(raised.rlim_cur), before));
        }
    }
    Some((before, before))
}

#[cfg(not(unix))]
fn raise_open_files() -> Option<(u64, u64)> {
    None
}

/// Log lines in colour only on a terminal, and never with `NO_COLOR` set (not empty).
fn log_in_colour() -> bool {
    use std::io::IsTerminal as _;
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// The lines that say where to open the page: the address itself, or for an address that
/// means every interface (`0.0.0.0`, `[::]`, which no browser can open) the loopback one,
/// then the line that says it listens on all interfaces with this machine's address as others
/// reach it (when there is a route out to find it by).
fn open_lines(addr: SocketAddr) -> Vec<String> {
    if !addr.ip().is_unspecified() {
        return vec![format!("pussa: open http://{addr}/")];
    }
    let port = addr.port();
    let (local, probe): (std::net::IpAddr, SocketAddr) = if addr.is_ipv4() {
        (
            std::net::Ipv4Addr::LOCALHOST.into(),
            "192.0.2.1:9".parse().expect("an address"),
        )
    } else {
        (
            std::net::Ipv6Addr::LOCALHOST.into(),
            "[2001:db8::1]:9".parse().expect("an address"),
        )
    };
    let mut lines = vec![format!(
        "pussa: open http://{}/",
        SocketAddr::new(local, port)
    )];
    // The address this machine would send from (no packet is sent: a UDP connect only picks
    // the route).
    let outward = std::net::UdpSocket::bind(SocketAddr::new(addr.ip(), 0))
        .and_then(|s| s.connect(probe).and_then(|()| s.local_addr()))
        .ok()
        .map(|a| a.ip())
        .filter(|ip| !ip.is_unspecified() && !ip.is_loopback());
    lines.push(match outward {
        Some(ip) => format!(
            "pussa: listening on all interfaces ({addr}); from other machines open http://{}/",
            SocketAddr::new(ip, port)
        ),
        None => format!(
            "pussa: listening on all interfaces ({addr}); from other machines open \
             http://THIS-MACHINE:{port}/"
        ),
    });
    lines
}

/// The server's configuration and its data directory (where the default tables are looked
/// for: `--data`, `PUSSA_DATA`, `./data`; with `--db FILE`, the directory of FILE).
fn resolve(args: Args) -> anyhow::Result<(pussa_server::Config, PathBuf)> {
    let addr = match args.addr {
        Some(a) => a,
        None => match std::env::var("PUSSA_ADDR") {
            Ok(s) if !s.trim().is_empty() => parse_addr(s.trim())
                .map_err(|e| anyhow::anyhow!("PUSSA_ADDR '{}': {e}", s.escape_debug()))?,
            _ => DEFAULT_ADDR.parse().expect("the default address parses"),
        },
    };
    // A data directory that exists as something else is named as such (creating it would only
    // say `File exists`).
    let data_dir = |dir: PathBuf, what: &str| -> anyhow::Result<PathBuf> {
        if dir.exists() && !dir.is_dir() {
            anyhow::bail!(
                "{what} {}: not a directory (it is a file; use --db FILE for a database file)",
                dir.display()
            );
        }
        Ok(dir.join("pussa.sqlite3"))
    };
    let default_data = PathBuf::from("data");
    let (db, data) = match (args.db, args.data) {
        (Some(db), _) => {
            check_db_dir(&db)?;
            // The database's directory is the data directory, as with --data.
            let dir = db
                .parent()
                .filter(|d| !d.as_os_str().is_empty())
                .unwrap_or(Path::new("."))
                .to_path_buf();
            (db, dir)
        }
        (None, Some(dir)) => (data_dir(dir.clone(), "--data")?, dir),
        (None, None) => match std::env::var_os("PUSSA_DATA").filter(|d| !d.is_empty()) {
            Some(dir) => (
                data_dir(PathBuf::from(&dir), "PUSSA_DATA")?,
                PathBuf::from(dir),
            ),
            None => {
                create_default_data(&default_data)?;
                (
                    data_dir(default_data.clone(), "the data directory")?,
                    default_data,
                )
            }
        },
    };
    Ok((pussa_server::Config { addr, db }, data))
}

/// Runs the server until Ctrl-C (or SIGTERM).
///
/// # Errors
/// A bad address or data directory, a database that cannot be opened, an address in use.
pub fn run(args: Args) -> anyhow::Result<()> {
    // A write past the file size limit (`ulimit -f`, systemd `LimitFSIZE=`) then fails with
    // EFBIG and is answered as any failed write, instead of the signal killing the server.
    ignore_file_size_signal();
    let egtb_arg = args.egtb.clone();
    let claim_after = args.claim_after.map(std::time::Duration::from_secs);
    let new_games = args.new_games_per_minute;
    let memory_caps = (args.max_games_in_memory, args.max_moves_in_memory);
    let hints_per_client = args.hints_per_client;
    let positions_at_once = args.positions_at_once;
    let proxies = match (args.trust_proxy.clone(), std::env::var("PUSSA_TRUST_PROXY")) {
        (Some(nets), _) => Some(nets),
        (None, Ok(s)) if !s.trim().is_empty() => Some(
            pussa_server::client::Proxies::parse_list(&s)
                .map_err(|e| anyhow::anyhow!("PUSSA_TRUST_PROXY '{}': {e}", s.escape_debug()))?,
        ),
        _ => None,
    }
    .map(|nets| pussa_server::client::Proxies::trust(nets, args.proxy_header.unwrap_or_default()));
    let (config, data) = resolve(args)?;
    let egtb = egtb_dir(egtb_arg.as_deref(), &data)?;
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_ansi(log_in_colour())
        .with_writer(std::io::stderr)
        .try_init();
    let open_files = raise_open_files();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    pussa_server::set_build_commit(env!("PUSSA_COMMIT"));
    runtime.block_on(async move {
        let mut server = pussa_server::Server::bind(&config).await?;
        if let Some((limit, before)) = open_files {
            server.set_limits(pussa_server::conn::Limits::for_open_files(limit));
            let l = server.limits();
            tracing::info!(
                "open files: limit {limit}{}; at most {} HTTP connections ({} from one client), \
                 {} WebSockets ({} from one client)",
                if limit > before {
                    format!(" (raised from {before})")
                } else {
                    String::new()
                },
                l.max_connections,
                l.max_connections_per_client,
                l.max_websockets,
                l.max_websockets_per_client
            );
            if l.max_connections < pussa_server::conn::FEW_CONNECTIONS {
                // Shown at the default level: a club would otherwise meet a server that serves
                // a handful of visitors, with no sign why.
                tracing::warn!(
                    "open files: limit {limit} (raised as far as the hard limit allows) \
                     leaves room for only {} HTTP connections and {} WebSockets at once, enough \
                     for a few visitors: raise it (systemd LimitNOFILE=, ulimit -n, docker \
                     --ulimit nofile=) to {} or more",
                    l.max_connections,
                    l.max_websockets,
                    pussa_server::conn::SUGGESTED_OPEN_FILES
                );
            }
        }
        if let Some(p) = proxies {
            let nets: Vec<String> = p.nets().iter().map(ToString::to_string).collect();
            tracing::info!(
                "trusting the proxies {} for the client address ({})",
                nets.join(", "),
                p.header().name()
            );
            server.set_proxies(p);
        }
        if let Some(after) = claim_after {
            server.set_claim_after(after);
        }
        if let Some(n) = new_games {
            server.set_new_games_per_minute(n);
        }
        if memory_caps != (None, None) {
            server.set_memory_caps(
                memory_caps
                    .0
                    .unwrap_or(pussa_server::app::DEFAULT_MAX_GAMES_IN_MEMORY),
                memory_caps
                    .1
                    .unwrap_or(pussa_server::app::DEFAULT_MAX_PLIES_IN_MEMORY),
            );
        }
        if let Some(n) = hints_per_client {
            server.set_hints_per_client(n);
        }
        if let Some(n) = positions_at_once {
            server.set_positions_at_once(n);
        }
        {
            let app = server.app();
            let (games, moves) = app.memory_caps();
            tracing::info!(
                "memory: at most {} and {moves} moves held; {} hints per client; {} \
                 positions replays at once",
                pussa_server::util::games(games),
                app.hints_per_client(),
                app.positions_at_once()
            );
        }
        if let Some(dir) = &egtb {
            let games = server.use_tables(dir)?;
            let list: Vec<String> = games
                .iter()
                .map(|(g, max)| format!("{g} (0..={max} seeds)"))
                .collect();
            outln!(
                "pussa: endgame tables from {}: {}",
                dir.display(),
                list.join(", ")
            )?;
        }
        let addr = server.local_addr();
        for line in open_lines(addr) {
            outln!("{line}")?;
        }
        tracing::info!("listening on {addr}, games in {}", config.db.display());
        for line in server.database().lines() {
            outln!("{line}")?;
        }
        server.run(shutdown_signal()).await?;
        outln!("pussa: stopped")?;
        anyhow::Ok(())
    })
}

/// Ignores SIGXFSZ, which the OS sends a process that writes past its file size limit and
/// which would end it without a word: the write fails with EFBIG instead, and the error is
/// answered and logged ("file too large (the process's file size limit …)"), as PostgreSQL
/// and other daemons do.
pub fn ignore_file_size_signal() {
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to SIG_IGN installs no handler code.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}
