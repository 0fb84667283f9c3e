//! `pussa tournament`: N games between two players (built-in levels, reference players or
//! external engines through the protocol), both seats, random openings, on all cores, with Elo,
//! its 95% interval and an optional SPRT stop; the first mover's score, the games' lengths and
//! endings, and an SVG plot of them (`--plot`).

mod plot;

use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context};
use pussa_engine::tournament::{
    self, Config, Ending, MoveLimits, PlayerSpec, Report, Sprt, SprtDecision, Termination, Wdl,
};
use pussa_engine::ExactOracle;
use pussa_rules::record::{Record, RecordResult};
use pussa_rules::{Game, Mode, Side};

/// Arguments of `pussa tournament`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "Players: level:<name> (a built-in level), search (full search under the \
    per-move limits), nodes:<n> (the search with its own budget of n nodes a move, as the levels club to master use), mcts (Monte Carlo tree search under the per-move limits), random, greedy (largest immediate gain), engine:\"<command line>\" (an \
    external engine speaking the protocol, e.g. engine:\"target/release/pussa engine\").\n\n\
    Endgame tables: add +tables to a searching player (search, nodes:<n>, or a level from club up), e.g. \
    level:max+tables: it uses the tables of the game under --egtb (built by `pussa egtb build`, \
    with the closed-hole tables built there by `--closed` for match rounds) for exact values; \
    results name it with the +tables suffix.\n\n\
    Examples:\n  pussa tournament --game raja-pasu level:expert greedy --games 100 --sprt 0,50,0.05,0.05\n  \
    pussa tournament --game raja-pasu level:max+tables level:max -n 200 --balanced-openings 20000"
)]
pub struct Args {
    /// The first player (results are given for it).
    pub player1: String,
    /// The second player.
    pub player2: String,
    /// The game: walak-pussa, raja-pasu, pasu-pondi, pasu-pondi-6.
    #[arg(long, default_value = "walak-pussa")]
    pub game: Game,
    /// Play matches (several rounds, closed holes) instead of single games.
    #[arg(long = "match")]
    pub match_mode: bool,
    /// Number of games (played in pairs with the seats swapped).
    #[arg(long, short = 'n', default_value_t = 20)]
    pub games: u32,
    /// Random plies at the start of each pair of games.
    #[arg(long, default_value_t = 4)]
    pub random_opening: u32,
    /// Keep only random openings that a search of this many nodes finds within 3 seeds of even
    /// (all --random-opening plies played; after 200 tries the most even one). Without it any
    /// random opening is played, often one that gives away a dozen seeds.
    #[arg(long, value_name = "NODES", value_parser = clap::value_parser!(u64).range(1..=1_000_000_000))]
    pub balanced_openings: Option<u64>,
    /// Keep only random openings that are exact draws, solved with the endgame tables under
    /// --egtb, a different one for every pair while 200 tries find one (all --random-opening
    /// plies played; else a repeated draw, else the one closest to a draw; a pair stops after 4
    /// openings the tables cannot solve). Neither seat then
    /// wins unless its opponent errs, and the summary counts, for each player, the games it
    /// ended below the exact value of its seat. Single games only.
    #[arg(long, conflicts_with = "balanced_openings")]
    pub exact_openings: bool,
    /// Where the endgame tables of `+tables` players and of --exact-openings are
    /// (`<DIR>/<game>/<seeds>.pegtb`).
    #[arg(long, value_name = "DIR", default_value = "data/egtb")]
    pub egtb: PathBuf,
    /// Seed for openings, levels and random players.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Time per move in milliseconds (search, mcts and engine players).
    #[arg(long)]
    pub movetime: Option<u64>,
    /// Search depth per move (search, mcts and engine players).
    #[arg(long)]
    pub depth: Option<u32>,
    /// Nodes per move (search, mcts and engine players).
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Games played at once (default: every core).
    #[arg(long)]
    pub concurrency: Option<usize>,
    /// Stop early when this SPRT is decided: elo0,elo1,alpha,beta (e.g. 0,10,0.05,0.05).
    #[arg(long)]
    pub sprt: Option<String>,
    /// How long an external engine may take to answer, in milliseconds (default: 3 × movetime
    /// + 1000, or 10000).
    #[arg(long)]
    pub engine_timeout: Option<u64>,
    /// A match still going after this many rounds is scored a draw.
    #[arg(long, default_value_t = 100)]
    pub max_rounds: u32,
    /// Write the games as game records to this file (rewritten after every game).
    #[arg(long)]
    pub pgn: Option<PathBuf>,
    /// Write the results to this file: CSV, or JSON if the name ends in .json. Rewritten
    /// after every game, so a stopped run keeps its finished games (JSON: "finished": false
    /// until the end).
    #[arg(long)]
    pub results: Option<PathBuf>,
    /// Draw the results as an SVG image in this file: the histogram of game lengths in plies,
    /// each bar split by the result for the seats (first mover won, draw, second mover won),
    /// and the first mover's score with its 95% interval, overall and for each player.
    /// Rewritten after every game, like --results.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// No progress bar.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// Runs the tournament and prints the summary.
///
/// # Errors
/// Bad arguments, or a file that cannot be written. Broken engines do not make it fail: they
/// lose their games.
pub fn run(args: Args) -> anyhow::Result<()> {
    let game = args.game;
    let (p1, t1) = PlayerSpec::parse_with_tables(&args.player1).map_err(anyhow::Error::msg)?;
    let (p2, t2) = PlayerSpec::parse_with_tables(&args.player2).map_err(anyhow::Error::msg)?;
    let players = [p1, p2];
    if args.exact_openings && args.match_mode {
        bail!("--exact-openings needs single games: a match's value is not its first round's");
    }
    let (oracles, exact_openings) = tables_for(
        game,
        &args.egtb,
        [t1, t2],
        [&args.player1, &args.player2],
        args.exact_openings,
    )?;
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    if args.depth == Some(0) || args.nodes == Some(0) || args.movetime == Some(0) {
        bail!("--depth, --nodes and --movetime must be at least 1");
    }
    if args.movetime.is_some_and(|t| t > 86_400_000) {
        bail!("--movetime must be at most 86400000 (a day)");
    }
    // The protocol's own bound: an engine would refuse every `go` above it and forfeit.
    if let Some(d) = args.depth.filter(|&d| d > 1000) {
        bail!("--depth {d} is more than 1000 (the most the engine protocol accepts)");
    }
    if args.concurrency == Some(0) {
        bail!("--concurrency must be at least 1");
    }
    if args.engine_timeout == Some(0) {
        bail!("--engine-timeout must be at least 1 millisecond");
    }
    if args.engine_timeout.is_some_and(|t| t > 86_400_000) {
        bail!("--engine-timeout must be at most 86400000 (a day)");
    }
    if args.max_rounds == 0 {
        bail!("--max-rounds must be at least 1");
    }
    let sprt = args
        .sprt
        .as_deref()
        .map(Sprt::parse)
        .transpose()
        .map_err(anyhow::Error::msg)?;
    let concurrency = args
        .concurrency
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    if concurrency > 256 {
        bail!("--concurrency {concurrency} is more than 256 games at once");
    }
    let config = Config {
        game,
        mode: if args.match_mode {
            Mode::Match
        } else {
            Mode::Single
        },
        games: args.games,
        players,
        limits: MoveLimits {
            depth: args.depth,
            nodes: args.nodes,
            movetime: args.movetime.map(Duration::from_millis),
        },
        random_opening: args.random_opening,
        seed: args.seed,
        concurrency,
        sprt,
        engine_timeout: args.engine_timeout.map(Duration::from_millis),
        max_rounds: args.max_rounds,
        oracles,
        balanced_openings: args.balanced_openings,
        exact_openings,
    };
    // The results and records are rewritten after every game (a whole file each time, swapped
    // in by a rename), so a long run that is stopped still leaves every finished game behind.
    let outputs = Outputs {
        pgn: args.pgn.as_deref(),
        results: args.results.as_deref(),
        plot: args.plot.as_deref(),
    };
    // Before playing for minutes: every file can be written (none is touched if one cannot),
    // then each is a valid file of no games yet (the JSON says `"finished": false`), swapped
    // in whole like every later one, so a run stopped before its first game ends leaves no
    // empty or half file behind.
    for path in [&args.pgn, &args.results, &args.plot].into_iter().flatten() {
        check_writable(path)?;
    }
    outputs.write(&config, &Report::before_games(&config), false)?;
    let bar = if args.quiet {
        indicatif::ProgressBar::hidden()
    } else {
        let b = indicatif::ProgressBar::new(u64::from(config.games));
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{elapsed_precise} [{bar:30}] {pos}/{len} games  {msg}",
            )
            .map_err(|e| anyhow::anyhow!("progress bar: {e}"))?
            .progress_chars("=> "),
        );
        b
    };
    stop_on_signals();
    let warned = std::sync::atomic::AtomicBool::new(false);
    let report = tournament::run(&config, &|_, so_far| {
        bar.inc(1);
        let wdl = &so_far.wdl;
        let (elo, _, _) = wdl.elo_interval();
        bar.set_message(format!(
            "+{} ={} -{}  score {:.3}  elo {}",
            wdl.wins,
            wdl.draws,
            wdl.losses,
            wdl.score(),
            fmt_elo(elo)
        ));
        if let Err(e) = outputs.write(&config, so_far, false) {
            if !warned.swap(true, std::sync::atomic::Ordering::Relaxed) {
                bar.suspend(|| errln!("warning: {e:#} (tried again at the end)"));
            }
        }
    })
    .map_err(anyhow::Error::msg)?;
    bar.finish_and_clear();
    // The files first: a closed stdout must not leave them unfinished.
    outputs.write(&config, &report, true)?;
    use std::io::Write as _;
    write!(std::io::stdout().lock(), "{}", summary(&config, &report))?;
    Ok(())
}

/// Held while the output files are written, and taken for good by a stopping signal, so
/// that the run stops between two writes and writes nothing after it killed the engines (their
/// games would be recorded as forfeits).
static WRITING: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// On SIGINT (Ctrl-C), SIGTERM or SIGHUP: waits for a write of the output files in progress to
/// finish, kills every external engine's process group (a Ctrl-C reaches only the terminal's
/// foreground group, not the engines' own groups, and nothing reaches them after a `kill`),
/// says so on stderr and exits with 128 + the signal's number.
fn stop_on_signals() {
    #[cfg(unix)]
    {
        let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .build()
        else {
            return;
        };
        // Registered before the thread starts, so a signal sent at once is not missed.
        let signals = runtime.block_on(async {
            use tokio::signal::unix::{signal, SignalKind};
            Ok::<_, std::io::Error>((
                signal(SignalKind::interrupt())?,
                signal(SignalKind::terminate())?,
                signal(SignalKind::hangup())?,
            ))
        });
        let Ok((mut int, mut term, mut hup)) = signals else {
            return;
        };
        let _ = std::thread::Builder::new()
            .name("signals".into())
            .spawn(move || {
                let (name, number) = runtime.block_on(async {
                    tokio::select! {
                        _ = int.recv() => ("SIGINT", 2),
                        _ = term.recv() => ("SIGTERM", 15),
                        _ = hup.recv() => ("SIGHUP", 1),
                    }
                });
                // A write stuck on a pipe nobody reads must not keep the engines alive.
                let deadline = std::time::Instant::now() + Duration::from_secs(2);
                let _writing = loop {
                    match WRITING.try_lock() {
                        Ok(g) => break Some(g),
                        Err(std::sync::TryLockError::Poisoned(p)) => break Some(p.into_inner()),
                        Err(std::sync::TryLockError::WouldBlock)
                            if std::time::Instant::now() < deadline =>
                        {
                            std::thread::sleep(Duration::from_millis(5));
                        }
                        Err(std::sync::TryLockError::WouldBlock) => break None,
                    }
                };
                let killed = tournament::stop_all_engines();
                errln!(
                    "error: tournament stopped by {name}{}",
                    match killed {
                        0 => String::new(),
                        1 => " (1 external engine killed)".to_string(),
                        n => format!(" ({n} external engines killed)"),
                    }
                );
                std::process::exit(128 + number);
            });
    }
}

/// Where `--pgn`, `--results` and `--plot` go.
struct Outputs<'a> {
    pgn: Option<&'a std::path::Path>,
    results: Option<&'a std::path::Path>,
    plot: Option<&'a std::path::Path>,
}

impl Outputs<'_> {
    /// Writes the records, the results and the plot of `report`; `finished` is false while games are
    /// still being played (the JSON says so in `finished`).
    fn write(&self, config: &Config, report: &Report, finished: bool) -> anyhow::Result<()> {
        let _writing = WRITING
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(path) = self.pgn {
            replace_file(path, &records(config, report)?)?;
        }
        if let Some(path) = self.results {
            let text = if path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("json"))
            {
                results_json(config, report, finished)? + "\n"
            } else {
                csv(config, report)
            };
            replace_file(path, &text)?;
        }
        if let Some(path) = self.plot {
            replace_file(path, &plot::tournament_svg(config, report))?;
        }
        Ok(())
    }
}

/// Checks, without changing it, that [`replace_file`] can write `path`: its temporary file can
/// be made beside it (and is removed), or else the path itself opens for writing.
fn check_writable(path: &std::path::Path) -> anyhow::Result<()> {
    let regular = std::fs::metadata(path).map_or(true, |m| m.is_file());
    if regular {
        let part = part_path(path);
        if std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&part)
            .is_ok()
        {
            let _ = std::fs::remove_file(&part);
            return Ok(());
        }
    }
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .map(drop)
        .with_context(|| format!("cannot write {}", path.display()))
}

/// `NAME.part` beside `path`: where [`replace_file`] writes before the rename.
fn part_path(path: &std::path::Path) -> std::path::PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".part");
    path.with_file_name(name)
}

/// Writes `text` to `path`: a regular file is replaced whole (written beside it as
/// `NAME.part`, then renamed over it, so a reader never sees half a file); anything else (a
/// pipe, `/dev/stdout`), or a file whose directory takes no new files, is written to directly.
fn replace_file(path: &std::path::Path, text: &str) -> anyhow::Result<()> {
    let regular = std::fs::metadata(path).map_or(true, |m| m.is_file());
    if regular {
        let part = part_path(path);
        if std::fs::write(&part, text).is_ok() {
            return std::fs::rename(&part, path)
                .with_context(|| format!("cannot write {}", path.display()));
        }
        let _ = std::fs::remove_file(&part);
    }
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

/// The results as JSON.
fn results_json(config: &Config, report: &Report, finished: bool) -> anyhow::Result<String> {
    Ok(serde_json::to_string_pretty(&serde_json::json!({
        "game": config.game.name(),
        "mode": mode_name(config.mode),
        "players": report.players,
        "finished": finished,
        "wins": report.wdl.wins,
        "draws": report.wdl.draws,
        "losses": report.wdl.losses,
        "score": report.wdl.score(),
        "elo": finite(report.wdl.elo_interval().0),
        "elo_low": finite(report.wdl.elo_interval().1),
        "elo_high": finite(report.wdl.elo_interval().2),
        "sprt": report.sprt,
        "llr": report.llr,
        "sprt_games": report.sprt_games,
        "stopped_early": finished && report.stopped_early,
        "pairs": report.pairs.0,
        // No pair finished yet (one game so far): no value rather than a made-up 0.
        "elo_pairs": finite(report.pairs.elo_interval().0).filter(|_| report.pairs.pairs() > 0),
        "elo_pairs_low": finite(report.pairs.elo_interval().1).filter(|_| report.pairs.pairs() > 0),
        "elo_pairs_high": finite(report.pairs.elo_interval().2).filter(|_| report.pairs.pairs() > 0),
        "below_exact": report.below_exact().map(|(b, known)| serde_json::json!({
            "players": b,
            "games": known,
        })),
        "first_mover": first_mover_json(report),
        "plies": report.plies(),
        "rounds": report.rounds(),
        "endings": report.endings(),
        "length_histogram": report.length_histogram(),
        "games": report.games,
    }))?)
}

/// A player's or seat's results with the score and its 95% interval.
fn wdl_json(w: &Wdl) -> serde_json::Value {
    let (low, high) = w.score_interval();
    let known = w.games() > 0;
    serde_json::json!({
        "wins": w.wins,
        "draws": w.draws,
        "losses": w.losses,
        "games": w.games(),
        "score": known.then(|| w.score()),
        "score_low": known.then_some(low),
        "score_high": known.then_some(high),
    })
}

/// How the seats did: the first mover's results over every game, and each player's results
/// moving first and moving second (from its own point of view).
fn first_mover_json(report: &Report) -> serde_json::Value {
    let seats = report.seats();
    let mut v = wdl_json(&seats.first_mover);
    v["seat"] = serde_json::json!(tournament::FIRST_MOVER);
    v["interval"] = serde_json::json!(INTERVAL);
    v["players"] = (0..2)
        .map(|i| {
            serde_json::json!({
                "player": report.players[i],
                "moving_first": wdl_json(&seats.moving_first[i]),
                "moving_second": wdl_json(&seats.moving_second[i]),
            })
        })
        .collect();
    v
}

/// How the score intervals are computed, as results say it.
const INTERVAL: &str = "95%, normal approximation of the mean of the trinomial results";

/// The tables' oracle for each player that asked for them and for choosing exact openings
/// (opened and checked once, shared).
///
/// # Errors
/// No tables of `game` under `dir`, or a damaged table file.
#[allow(clippy::type_complexity)]
fn tables_for(
    game: Game,
    dir: &std::path::Path,
    wanted: [bool; 2],
    names: [&str; 2],
    exact_openings: bool,
) -> anyhow::Result<(
    [Option<Arc<dyn ExactOracle>>; 2],
    Option<Arc<dyn ExactOracle>>,
)> {
    if !wanted.contains(&true) && !exact_openings {
        return Ok(([None, None], None));
    }
    let who = names
        .iter()
        .zip(wanted)
        .filter(|(_, w)| *w)
        .map(|(n, _)| format!("'{}'", n.trim()))
        .chain(exact_openings.then(|| "--exact-openings".to_string()))
        .collect::<Vec<_>>()
        .join(" and ");
    let oracle = pussa_egtb::oracle::oracle(game, dir)
        .with_context(|| format!("{who}: the endgame tables of {game}"))?
        .ok_or_else(|| {
            anyhow::anyhow!(
                "{who}: no endgame tables of {game} under {} (no {}; build them with \
                 `pussa egtb build --game {game} --max-seeds N --dir {}`, or give --egtb DIR)",
                dir.display(),
                pussa_egtb::format::table_path(dir, game, 0).display(),
                dir.display()
            )
        })?;
    Ok((
        wanted.map(|w| w.then(|| Arc::clone(&oracle))),
        exact_openings.then_some(oracle),
    ))
}

fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Single => "single",
        Mode::Match => "match",
    }
}

fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

fn fmt_elo(x: f64) -> String {
    if x == f64::INFINITY {
        "+inf".into()
    } else if x == f64::NEG_INFINITY {
        "-inf".into()
    } else if x.abs() < 0.05 {
        "+0.0".into()
    } else {
        format!("{x:+.1}")
    }
}

/// The text printed at the end.
fn summary(config: &Config, report: &Report) -> String {
    let w = report.wdl;
    let (elo, lo, hi) = w.elo_interval();
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} vs {}: {} {}, {} game{}{}",
        report.players[0],
        report.players[1],
        config.game.name(),
        if config.mode == Mode::Match {
            "matches"
        } else {
            "single games"
        },
        report.games.len(),
        if report.games.len() == 1 { "" } else { "s" },
        if report.stopped_early {
            " (stopped by the SPRT)"
        } else {
            ""
        }
    );
    let _ = writeln!(
        s,
        "wins {}  draws {}  losses {}  score {:.1}/{} = {:.3}",
        w.wins,
        w.draws,
        w.losses,
        f64::from(w.wins) + 0.5 * f64::from(w.draws),
        w.games(),
        w.score()
    );
    if w.games() > 0 && w.variance() == 0.0 {
        let _ = writeln!(
            s,
            "elo {}  95% interval: none (every game gave the same result)",
            fmt_elo(elo)
        );
    } else {
        let _ = writeln!(
            s,
            "elo {}  95% interval [{}, {}]",
            fmt_elo(elo),
            fmt_elo(lo),
            fmt_elo(hi)
        );
    }
    let p = report.pairs;
    if p.pairs() > 0 {
        let (pe, plo, phi) = p.elo_interval();
        // Every pair gave the same points: no spread, so no interval (as for the games).
        let interval = if p.0.iter().filter(|&&n| n > 0).count() == 1 {
            "95% interval: none (every pair gave the same points)".to_string()
        } else {
            format!("95% interval [{}, {}]", fmt_elo(plo), fmt_elo(phi))
        };
        let _ = writeln!(
            s,
            "pairs {} (first player's points 0/0.5/1/1.5/2: {} {} {} {} {})  elo by pairs {}  {interval}",
            p.pairs(),
            p.0[0],
            p.0[1],
            p.0[2],
            p.0[3],
            p.0[4],
            fmt_elo(pe),
        );
    }
    seats_and_lengths(&mut s, config, report);
    if config.exact_openings.is_some() {
        let drawn = report.games.iter().filter(|g| g.exact == Some(0)).count();
        let distinct = report
            .games
            .iter()
            .map(|g| &g.opening)
            .collect::<std::collections::HashSet<_>>()
            .len();
        let games = report.games.len();
        let others = if drawn < games {
            " (the others: the closest to a draw found)"
        } else {
            ""
        };
        let _ = writeln!(
            s,
            "openings: {} random plies, exact draws by the endgame tables in {drawn} of {games} \
             game{}{others}, {distinct} different",
            config.random_opening,
            if games == 1 { "" } else { "s" },
        );
        if let Some((below, known)) = report.below_exact() {
            let _ = writeln!(
                s,
                "ended below the exact value of their seat: {} in {} of {known} games, {} in {} of {known}",
                report.players[0], below[0], report.players[1], below[1]
            );
        }
    } else if let Some(nodes) = config.balanced_openings {
        let _ = writeln!(
            s,
            "openings: {} random plies, kept within {} seeds of even by a search of {nodes} nodes",
            config.random_opening,
            tournament::BALANCED_MARGIN
        );
    }
    if let (Some(sprt), Some(d), Some(llr)) = (config.sprt, report.sprt, report.llr) {
        let (a, b) = sprt.bounds();
        let verdict = match d {
            // The test weighs two hypotheses against each other; it does not bound the Elo.
            SprtDecision::AcceptH1 => format!(
                "H1 accepted (elo {} is more likely than elo {})",
                sprt.elo1, sprt.elo0
            ),
            SprtDecision::AcceptH0 => format!(
                "H0 accepted (elo {} is more likely than elo {})",
                sprt.elo0, sprt.elo1
            ),
            SprtDecision::Continue => "undecided".to_string(),
        };
        let played = report.games.len();
        let at = match report.sprt_games {
            Some(n) if (n as usize) < played => format!(
                " after {n} games (the other {} were under way and are counted above)",
                played - n as usize
            ),
            Some(n) => format!(" after {n} games"),
            None => String::new(),
        };
        let _ = writeln!(
            s,
            "sprt elo0 {} elo1 {}: llr {llr:.3} bounds [{a:.3}, {b:.3}]: {verdict}{at}",
            sprt.elo0, sprt.elo1
        );
    }
    for g in &report.games {
        if let Termination::Forfeit { loser, reason } = &g.termination {
            let who = if (*loser == Side::South) == (g.south_player == 0) {
                &report.players[0]
            } else {
                &report.players[1]
            };
            let _ = writeln!(
                s,
                "game {}: {who} ({loser}) forfeited: {reason}",
                g.index + 1
            );
        }
        if g.termination == Termination::RoundLimit {
            let _ = writeln!(
                s,
                "game {}: drawn at the round limit ({})",
                g.index + 1,
                config.max_rounds
            );
        }
    }
    s
}

/// A score with its 95% interval and the results behind it: `0.625 [0.491, 0.759] (+14 =2 -8)`.
fn fmt_score(w: &Wdl) -> String {
    if w.games() == 0 {
        return "no games".to_string();
    }
    let (lo, hi) = w.score_interval();
    format!(
        "{:.3} [{lo:.3}, {hi:.3}] (+{} ={} -{})",
        w.score(),
        w.wins,
        w.draws,
        w.losses
    )
}

/// The summary's lines on the seats (the first mover's results, overall and for each player),
/// the games' lengths and how they ended.
fn seats_and_lengths(s: &mut String, config: &Config, report: &Report) {
    if report.games.is_empty() {
        return;
    }
    let seats = report.seats();
    let f = seats.first_mover;
    let (lo, hi) = f.score_interval();
    let _ = writeln!(
        s,
        "first mover ({}): won {}  drew {}  second mover won {}  first mover's score {:.3}  95% interval [{lo:.3}, {hi:.3}] (normal approximation)",
        tournament::FIRST_MOVER,
        f.wins,
        f.draws,
        f.losses,
        f.score(),
    );
    for i in 0..2 {
        let _ = writeln!(
            s,
            "player {} {}: moving first {}  moving second {}",
            i + 1,
            report.players[i],
            fmt_score(&seats.moving_first[i]),
            fmt_score(&seats.moving_second[i]),
        );
    }
    if let Some(p) = report.plies() {
        let _ = writeln!(
            s,
            "plies a game: mean {:.1}  median {}  min {}  max {}",
            p.mean, p.median, p.min, p.max
        );
    }
    if config.mode == Mode::Match {
        if let Some(r) = report.rounds() {
            let _ = writeln!(
                s,
                "rounds a match: mean {:.2}  median {}  min {}  max {}",
                r.mean, r.median, r.min, r.max
            );
        }
    }
    let e = report.endings();
    let ended: Vec<String> = Ending::ALL
        .iter()
        .map(|&k| format!("{} {}", k.name().replace('_', " "), e.count(k)))
        .collect();
    let _ = writeln!(s, "ended: {}", ended.join("  "));
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn moves_text(moves: &[pussa_rules::Hole]) -> String {
    moves
        .iter()
        .map(|h| h.letter().to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// One CSV row a game.
fn csv(config: &Config, report: &Report) -> String {
    let mut s = String::from(
        "game,south,north,result,first_player_score,termination,reason,plies,rounds,south_seeds,north_seeds,opening,moves,final_position,exact_margin,first_mover,first_mover_score,ending\n",
    );
    for g in &report.games {
        let south = &report.players[g.south_player];
        let north = &report.players[1 - g.south_player];
        let score = match g.first_player_won() {
            Some(true) => "1",
            Some(false) => "0",
            None => "0.5",
        };
        let (term, reason) = match &g.termination {
            Termination::Normal => ("normal", String::new()),
            Termination::Forfeit { loser, reason } => ("forfeit", format!("{loser}: {reason}")),
            Termination::RoundLimit => ("round_limit", format!("{} rounds", config.max_rounds)),
        };
        let first_mover_score = match g.first_mover_won() {
            Some(true) => "1",
            Some(false) => "0",
            None => "0.5",
        };
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            g.index + 1,
            csv_field(south),
            csv_field(north),
            g.result_text(),
            score,
            term,
            csv_field(&reason),
            g.moves.len(),
            g.rounds,
            g.stores[0],
            g.stores[1],
            moves_text(&g.opening),
            moves_text(&g.moves),
            csv_field(&g.final_position),
            g.exact.map(|v| v.to_string()).unwrap_or_default(),
            g.first_mover,
            first_mover_score,
            g.ending().name()
        );
    }
    s
}

/// Every game as a game record (see `pussa_rules::record`), one after another.
fn records(config: &Config, report: &Report) -> anyhow::Result<String> {
    let mut text = String::new();
    for g in &report.games {
        let mut rec = Record::new(config.game, config.mode, Side::South);
        rec.set_tag("Event", "pussa tournament")?;
        rec.set_tag("Number", &(g.index + 1).to_string())?;
        rec.set_tag("South", &report.players[g.south_player])?;
        rec.set_tag("North", &report.players[1 - g.south_player])?;
        for (i, &mv) in g.moves.iter().enumerate() {
            rec.push(mv)
                .with_context(|| format!("game {}: move {}", g.index + 1, i + 1))?;
            if i + 1 == g.opening.len() {
                rec.comment("end of the random opening");
            }
        }
        match &g.termination {
            Termination::Normal => {}
            Termination::Forfeit { loser, reason } => {
                rec.set_tag("Termination", &format!("forfeit: {loser} {reason}"))?;
                rec.set_result(RecordResult::from_winner(g.winner))?;
            }
            Termination::RoundLimit => {
                rec.set_tag(
                    "Termination",
                    &format!("drawn at the round limit ({})", config.max_rounds),
                )?;
                rec.set_result(RecordResult::Draw)?;
            }
        }
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&rec.to_string());
    }
    Ok(text)
}
