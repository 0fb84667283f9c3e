//! `pussa tournament`: N games between two players (built-in levels, reference players or
//! external engines through the protocol), both seats, random openings, on all cores, with Elo,
//! its 95% interval and an optional SPRT stop; the first mover's score, the games' lengths and
//! endings, and an SVG plot of them (`--plot`).

mod plot;

use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use pussa_engine::tournament::{
    self, Config, Ending, GameResult, MoveLimits, PlayerSpec, Report, Sprt, SprtDecision,
    Termination, Wdl,
};
use pussa_engine::ExactOracle;
use pussa_rules::record::{Record, RecordResult};
use pussa_rules::{Game, Mode, Side};

/// Arguments of `pussa tournament`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "Players: level:<name> (a built-in level), search (full search under the \
    per-move limits; with none of --movetime, --depth, --nodes: 100 ms a move), nodes:<n> (the search with its own budget of n nodes a move, as the levels club to master use), mcts (Monte Carlo tree search under --nodes playouts and --movetime, 100 ms a move with no limit; it has no depth: with only --depth, 10000 playouts a move), random, greedy-most-held (or greedy: the move after which it holds the most seeds), engine:\"<command line>\" (an \
    external engine speaking the protocol, e.g. engine:\"target/release/pussa engine\"; it gets the per-move limits in go, go movetime 100 without).\n\n\
    Names: a player is named in the summary, records and results by --name1/--name2, else by an external engine's `id name`, else as given; two players of one name get their number: `pussa 0.1.0 (1)`, `pussa 0.1.0 (2)`.\n\n\
    --sprt: fishtest's GSPRT on the complete pairs (pentanomial, logistic Elo), checked when a pair completes; the run ends on complete pairs.\n\n\
    Endgame tables: add +tables to a searching player (search, nodes:<n>, or a level from club up), e.g. \
    level:max+tables: it uses the tables of the game under --egtb (built by `pussa egtb build`, \
    with the closed-hole tables built there by `--closed` for match rounds) for exact values; \
    results name it with the +tables suffix.\n\n\
    Examples:\n  pussa tournament --game raja-pasu level:expert greedy --games 100 --sprt 0,50,0.05,0.05\n  \
    pussa tournament --game raja-pasu level:max+tables level:max -n 200 --balanced-openings 20000\n  \
    pussa tournament 'engine:\"./new/pussa engine\"' 'engine:\"./old/pussa engine\"' --name1 new --name2 old --tc 10+0.1 -n 200"
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
    #[arg(long, short = 'n', default_value_t = 20, allow_negative_numbers = true, value_parser = crate::numarg::ranged::<u32>(1, u32::MAX.into()))]
    pub games: u32,
    /// Random plies at the start of each pair of games.
    #[arg(long, default_value_t = 4, allow_negative_numbers = true, value_parser = crate::numarg::ranged::<u32>(0, u32::MAX.into()))]
    pub random_opening: u32,
    /// Keep only random openings that a search of this many nodes finds within 3 seeds of even
    /// (all --random-opening plies played; after 200 tries the most even one). Without it any
    /// random opening is played, often one that gives away a dozen seeds.
    #[arg(long, value_name = "NODES", allow_negative_numbers = true, value_parser = crate::numarg::ranged::<u64>(1, 1_000_000_000))]
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
    /// (`<DIR>/<game>/<seeds>.pegtb`; default: `egtb` in the data directory, $PUSSA_DATA/egtb,
    /// else data/egtb, as every command). Given when neither uses the tables,
    /// it is warned about (and a missing directory with it).
    #[arg(long, value_name = "DIR")]
    pub egtb: Option<PathBuf>,
    /// Seed for openings, levels and random players.
    #[arg(long, default_value_t = 1, allow_negative_numbers = true, value_parser = crate::numarg::ranged::<u64>(0, u64::MAX))]
    pub seed: u64,
    /// Time per move in milliseconds (search, mcts and engine players; a warning if neither
    /// player is one). With none of --movetime, --depth, --nodes they get 100 ms a move.
    /// 1 to 86400000 (a day).
    #[arg(long, allow_negative_numbers = true, value_parser = crate::numarg::ranged::<u64>(1, MAX_MS))]
    pub movetime: Option<u64>,
    /// Search depth per move (search and engine players; mcts has no depth, and with only
    /// --depth it plays 10000 playouts a move, with a warning): 1 to 1000, the most the engine
    /// protocol accepts (an engine would refuse every `go` above it and forfeit).
    #[arg(long, allow_negative_numbers = true, value_parser = crate::numarg::ranged::<u32>(1, 1000))]
    pub depth: Option<u32>,
    /// Nodes per move (search and engine players; playouts for mcts).
    #[arg(long, allow_negative_numbers = true, value_parser = crate::numarg::ranged::<u64>(1, u64::MAX))]
    pub nodes: Option<u64>,
    /// A game clock for each player instead of per-move limits, as cutechess-cli's tc=:
    /// BASE+INC in seconds (60+1, 2+0.05; BASE alone is sudden death), or MOVES/BASE+INC
    /// (40/60+1: BASE again after each 40 of a player's moves). External engines get
    /// `go wtime … btime … [winc … binc …] [movestogo …]`; built-in players search with the
    /// engine's time management of the same clock. A player whose clock runs out (by more
    /// than a 10 ms margin) loses on time. The clock starts after the random opening and runs
    /// through every round of a match. BASE and INC at most 86400 (a day), MOVES 1 to 1000.
    #[arg(long, value_name = "[MOVES/]BASE[+INC]", conflicts_with_all = ["movetime", "depth", "nodes", "engine_timeout"], value_parser = time_control)]
    pub tc: Option<tournament::TimeControl>,
    /// Games played at once, 1 to 256 (default: every core, at most 256).
    #[arg(long, allow_negative_numbers = true, value_parser = crate::numarg::ranged::<usize>(1, MAX_CONCURRENCY as u64))]
    pub concurrency: Option<usize>,
    /// Stop early when this SPRT is decided: elo0,elo1,alpha,beta (e.g. 0,10,0.05,0.05, or
    /// -3,1,0.05,0.05 for a non-regression test: a value may start with a minus sign). The
    /// GSPRT as fishtest computes it: pentanomial over the complete pairs, logistic Elo.
    /// elo0 below elo1, both within -6000..=6000; alpha and beta strictly between 0 and 0.5.
    #[arg(long, value_name = "ELO0,ELO1,ALPHA,BETA", value_parser = sprt_arg)]
    pub sprt: Option<Sprt>,
    /// How long an external engine may take to answer during a game, in milliseconds
    /// (default: 3 × movetime + 1000, or 10000); it must be above --movetime. At most
    /// 86400000 (a day).
    #[arg(long, value_name = "MS", allow_negative_numbers = true, value_parser = crate::numarg::ranged::<u64>(1, MAX_MS))]
    pub engine_timeout: Option<u64>,
    /// How long an external engine may take to start, in milliseconds: from its launch to
    /// `pussaok`, and from `newgame` to `readyok` (default: 30000, or the answer timeout if
    /// longer). Every engine is started once before the first game, and a run whose engine
    /// cannot start is refused. At most 86400000 (a day).
    #[arg(long, value_name = "MS", allow_negative_numbers = true, value_parser = crate::numarg::ranged::<u64>(1, MAX_MS))]
    pub engine_start_timeout: Option<u64>,
    /// A match still going after this many rounds is scored a draw (matches only; default
    /// 100).
    #[arg(long, allow_negative_numbers = true, value_parser = crate::numarg::ranged::<u32>(1, u32::MAX.into()))]
    pub max_rounds: Option<u32>,
    /// Write the games as game records to this file, each appended as it finishes (in the
    /// order games finish); at the end the file is rewritten in game order. An existing file
    /// is refused unless --force is given, as for --results and --plot; the three must name
    /// different files.
    #[arg(long)]
    pub pgn: Option<PathBuf>,
    /// Write the results to this file: CSV, or JSON if the name ends in .json. CSV rows are
    /// appended as games finish (rewritten in game order at the end); the JSON is rewritten
    /// at most every 2 seconds and at the end ("finished": false until then). A run stopped
    /// by SIGINT, SIGTERM or SIGHUP writes every file of its finished games before it exits.
    #[arg(long)]
    pub results: Option<PathBuf>,
    /// Draw the results as an SVG image in this file: the histogram of game lengths in plies,
    /// each bar split by the result for the seats (first mover won, draw, second mover won),
    /// and the first mover's score with its 95% interval, overall and for each player.
    /// Rewritten like the JSON results. The name must end in .svg.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// The first player's name in the summary, the records' South/North tags and the
    /// results (default: an external engine's `id name`, else the player as given).
    #[arg(long, value_name = "NAME", value_parser = player_name)]
    pub name1: Option<String>,
    /// The second player's name (as --name1).
    #[arg(long, value_name = "NAME", value_parser = player_name)]
    pub name2: Option<String>,
    /// Let --pgn, --results and --plot write over existing files.
    #[arg(long)]
    pub force: bool,
    /// No progress bar (and, when stderr is not a terminal, no progress lines).
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// The command line with `--sprt -3,1,0.05,0.05` joined into `--sprt=-3,1,0.05,0.05`, so that
/// clap takes a value with a minus sign, which its own test for negative numbers does not (the
/// commas), while a missing value still gets clap's "a value is required for '--sprt'": the
/// next word is joined only when it starts with a minus sign and then a digit or a point, never
/// when it is an option (`--games`, `-q`). Nothing after a `--` that ends the options is
/// touched.
///
/// # Errors
/// `--sprt --`: clap's usual advice for a value with a minus sign, `-- -3`, ends the options,
/// so the value would be read as a player; the message gives the forms that work.
pub fn join_negative_sprt(
    args: impl IntoIterator<Item = OsString>,
) -> Result<Vec<OsString>, String> {
    let mut out: Vec<OsString> = Vec::new();
    let mut args = args.into_iter().peekable();
    while let Some(arg) = args.next() {
        if arg == "--" {
            out.push(arg);
            out.extend(args);
            break;
        }
        let negative = |v: &OsString| {
            v.to_str()
                .and_then(|v| v.strip_prefix('-'))
                .is_some_and(|v| v.starts_with(|c: char| c.is_ascii_digit() || c == '.'))
        };
        if arg == "--sprt" && args.peek().is_some_and(|v| v == "--") {
            return Err(
                "a value is required for '--sprt' right after it, not after '--' \
                        (which ends the options, so the value would be read as a player): \
                        write --sprt -3,1,0.05,0.05 or --sprt=-3,1,0.05,0.05"
                    .to_string(),
            );
        }
        if arg == "--sprt" && args.peek().is_some_and(negative) {
            let mut joined = OsString::from("--sprt=");
            joined.push(args.next().unwrap_or_default());
            out.push(joined);
        } else {
            out.push(arg);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod sprt_args_tests {
    use super::join_negative_sprt;
    use std::ffi::OsString;

    fn join(args: &[&str]) -> Result<Vec<String>, String> {
        join_negative_sprt(args.iter().map(OsString::from))
            .map(|v| v.into_iter().map(|a| a.into_string().unwrap()).collect())
    }

    #[test]
    fn only_a_value_with_a_minus_sign_is_joined_to_sprt() {
        assert_eq!(
            join(&["t", "--sprt", "-3,1,0.05,0.05", "-q"]).unwrap(),
            ["t", "--sprt=-3,1,0.05,0.05", "-q"]
        );
        assert_eq!(
            join(&["t", "--sprt", "-.5,1,0.05,0.05"]).unwrap(),
            ["t", "--sprt=-.5,1,0.05,0.05"]
        );
        for kept in [
            &["t", "--sprt", "--games", "100"][..],
            &["t", "--sprt", "-q"][..],
            &["t", "--sprt", "0,10,0.05,0.05"][..],
            &["t", "--", "--sprt", "-3"][..],
        ] {
            assert_eq!(join(kept).unwrap(), kept);
        }
        assert!(join(&["t", "--sprt", "--", "-3,1,0.05,0.05"])
            .unwrap_err()
            .contains("--sprt=-3,1,0.05,0.05"));
    }
}

/// `--sprt`'s value ([`Sprt::parse`]); an error is a usage error (exit 2), which clap already
/// introduces with the value.
fn sprt_arg(s: &str) -> Result<Sprt, String> {
    Sprt::parse(s).map_err(|e| {
        e.strip_prefix(&format!("sprt '{s}': "))
            .map_or(e.clone(), str::to_string)
    })
}

/// The value of `--name1` and `--name2`: one line of text, not empty, at most
/// [`MAX_NAME_CHARS`] characters (leading and trailing spaces dropped).
fn player_name(s: &str) -> Result<String, String> {
    let name = s.trim();
    if name.is_empty() {
        return Err("a player's name cannot be empty".to_string());
    }
    if name.chars().any(char::is_control) {
        return Err("a player's name is one line of text, without control characters".into());
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(format!(
            "a player's name has at most {MAX_NAME_CHARS} characters"
        ));
    }
    Ok(name.to_string())
}

/// The value of `--tc` ([`tournament::TimeControl`]).
fn time_control(s: &str) -> Result<tournament::TimeControl, String> {
    s.parse()
}

/// The most characters of a name given with `--name1` or `--name2`.
const MAX_NAME_CHARS: usize = 100;

/// Runs the tournament and prints the summary.
///
/// # Errors
/// Bad arguments, an external engine that cannot start, or a file that cannot be written.
/// Engines that break during play do not make it fail: they lose their games.
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
        &args
            .egtb
            .clone()
            .unwrap_or_else(crate::cmd_play::default_egtb_dir),
        [t1, t2],
        [&args.player1, &args.player2],
        args.exact_openings,
    )?;
    if let (Some(t), Some(m)) = (args.engine_timeout, args.movetime) {
        if t <= m {
            bail!(
                "--engine-timeout {t} is not above --movetime {m}: an engine that uses its \
                 time would forfeit every game"
            );
        }
    }
    let sprt = args.sprt;
    let concurrency = args.concurrency.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, |n| n.get().min(MAX_CONCURRENCY))
    });
    let mut config = Config {
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
        engine_start_timeout: args.engine_start_timeout.map(Duration::from_millis),
        max_rounds: args.max_rounds.unwrap_or(DEFAULT_MAX_ROUNDS),
        oracles,
        balanced_openings: args.balanced_openings,
        exact_openings,
        on_overrun: None,
        names: [None, None],
        clock: args.tc,
    };
    for w in warnings(&args, &config) {
        errln!("warning: {w}");
    }
    // Before playing for minutes: no two outputs name one file, no existing file is written
    // over without --force, and every file can be written (none is touched if one cannot).
    check_outputs(&args)?;
    for path in [&args.pgn, &args.results, &args.plot].into_iter().flatten() {
        crate::outfile::check_writable(path)?;
    }
    // An engine that cannot start would lose every game: refused before the first.
    let ids = config.check_engines().map_err(anyhow::Error::msg)?;
    // Named as given, else by the engine's `id name`, else by the spec; told apart if alike.
    config.name_players([args.name1.clone(), args.name2.clone()], ids);
    // Each file is then a valid file of no games yet (the JSON says `"finished": false`),
    // swapped in whole, so a run stopped before its first game ends leaves no empty or half
    // file behind. The signals are heard from before the files are written, and the run is
    // held locked while they are (the handler waits for it), so a signal as soon as a file
    // shows never kills the process unheard (exit without the summary) or sees no run.
    stop_on_signals();
    {
        let mut slot = lock_live();
        *slot = Some(Live::start(
            &config,
            Outputs {
                pgn: args.pgn.clone(),
                results: args.results.clone(),
                plot: args.plot.clone(),
            },
        )?);
    }
    use std::io::IsTerminal as _;
    let bar = if args.quiet || !std::io::stderr().is_terminal() {
        indicatif::ProgressBar::hidden()
    } else {
        let b = indicatif::ProgressBar::new(u64::from(config.games));
        b.set_style(
            indicatif::ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {msg}")
                .map_err(|e| anyhow::anyhow!("progress bar: {e}"))?
                .progress_chars("=> "),
        );
        b.set_message(format!("0/{} games", config.games));
        b
    };
    // Without a terminal (nohup, CI, a log file): a plain line now and then instead of the bar.
    let plain = !args.quiet && !std::io::stderr().is_terminal();
    let started = Instant::now();
    let last_line = std::sync::Mutex::new(started);
    let warned = std::sync::atomic::AtomicBool::new(false);
    // Each external engine's first time overrun is told as it happens (not when its game
    // ends), not only in the summary.
    if let Some(allowed) = config.engine_movetime() {
        let overran = Arc::new([false, false].map(std::sync::atomic::AtomicBool::new));
        let names = [config.player_name(0), config.player_name(1)];
        let bar = bar.clone();
        config.on_overrun = Some(Arc::new(move |o: &tournament::Overrun| {
            if overran[o.player].swap(true, std::sync::atomic::Ordering::Relaxed) {
                return;
            }
            bar.suspend(|| {
                errln!(
                    "warning: player {} {} answered later than its move time ({} ms, + {} ms \
                     margin) in game {} (move {}: {} ms): it is not stopped before the answer \
                     timeout, so it plays with more time than it is given; the summary and the \
                     results count these overruns",
                    o.player + 1,
                    names[o.player],
                    allowed.as_millis(),
                    tournament::TIME_MARGIN.as_millis(),
                    o.game + 1,
                    o.ply,
                    fmt_ms(o.took_us)
                );
            });
        }));
    }
    let report = tournament::run(&config, &|g, so_far| {
        let wdl = &so_far.wdl;
        let (elo, _, _) = wdl.elo_interval();
        let line = format!(
            "+{} ={} -{}  score {:.3}  elo {}",
            wdl.wins,
            wdl.draws,
            wdl.losses,
            wdl.score(),
            fmt_elo(elo)
        );
        // The count of games finished is in the message with their results, so that the two
        // are drawn together: the bar draws its position and its message at different
        // moments (each redraw is rate-limited), and a count drawn on its own showed a result
        // before its game was counted.
        bar.set_message(format!(
            "{}/{} games  {line}",
            so_far.finished, config.games
        ));
        bar.set_position(u64::from(so_far.finished));
        if plain {
            let mut last = last_line
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let done = so_far.finished == config.games || so_far.verdict.is_some();
            if last.elapsed() >= PROGRESS_EVERY || done {
                *last = Instant::now();
                errln!(
                    "{} s: {}/{} games finished  {line}",
                    started.elapsed().as_secs(),
                    so_far.finished,
                    config.games
                );
            }
        }
        let mut live = lock_live();
        if let Some(live) = live.as_mut() {
            if let Err(e) = live.add(&config, g, so_far) {
                if !warned.swap(true, std::sync::atomic::Ordering::Relaxed) {
                    bar.suspend(|| errln!("warning: {e:#}"));
                }
            }
        }
    })
    .map_err(anyhow::Error::msg)?;
    bar.finish_and_clear();
    // The files first: a closed stdout must not leave them unfinished.
    {
        let mut live = lock_live();
        if let Some(l) = live.as_mut() {
            l.finish(&config, &report, true)?;
        }
        *live = None;
    }
    use std::io::Write as _;
    write!(crate::stdout(), "{}", summary(&config, &report, None))?;
    Ok(())
}

/// The most milliseconds `--movetime`, `--engine-timeout` and `--engine-start-timeout` take:
/// a day.
const MAX_MS: u64 = 86_400_000;

/// The most games `--concurrency` plays at once.
const MAX_CONCURRENCY: usize = 256;

/// How many pairs' random openings the start-up check of short openings looks at, at most
/// (the first ones): the check costs the same whatever `--games` is, so a long run meant to
/// stop by its SPRT starts at once.
const OPENINGS_CHECKED: u32 = 1000;

/// The default of `--max-rounds`.
const DEFAULT_MAX_ROUNDS: u32 = 100;

/// How often a run without a terminal prints a progress line on stderr.
const PROGRESS_EVERY: Duration = Duration::from_secs(10);

/// How often, at most, the JSON results and the plot are rewritten during a run.
const REWRITE_EVERY: Duration = Duration::from_secs(2);

/// The warnings printed before the run: settings that apply to neither player, and random
/// openings that reach the end of the round.
fn warnings(args: &Args, config: &Config) -> Vec<String> {
    let mut w = Vec::new();
    let uses_limits = |p: &PlayerSpec| {
        matches!(
            p,
            PlayerSpec::Search | PlayerSpec::Mcts | PlayerSpec::Engine(_)
        )
    };
    if !config.players.iter().any(uses_limits) {
        for (name, given) in [
            ("--movetime", args.movetime.is_some()),
            ("--depth", args.depth.is_some()),
            ("--nodes", args.nodes.is_some()),
        ] {
            if given {
                w.push(format!(
                    "{name} applies to neither player (only search, mcts and engine players \
                     use the per-move limits)"
                ));
            }
        }
    }
    if args.depth.is_some() && config.players.contains(&PlayerSpec::Mcts) {
        let budget = if args.nodes.is_some() || args.movetime.is_some() {
            "it plays to --nodes (playouts) and --movetime alone".to_string()
        } else {
            format!(
                "with neither --nodes nor --movetime it plays {} playouts a move",
                pussa_engine::mcts::DEFAULT_PLAYOUTS
            )
        };
        w.push(format!(
            "--depth does not limit mcts (UCT has no search depth): {budget}"
        ));
    }
    if args.max_rounds.is_some() && !args.match_mode {
        w.push(
            "--max-rounds applies to matches only (--match); single games have one round".into(),
        );
    }
    if let Some(dir) = &args.egtb {
        if config.oracles.iter().all(Option::is_none) && config.exact_openings.is_none() {
            let missing = if dir.is_dir() {
                String::new()
            } else {
                format!(" (and {} is not a directory)", dir.display())
            };
            w.push(format!(
                "--egtb applies to neither player: only a searching player with +tables \
                 (e.g. level:max+tables) and --exact-openings use the endgame tables{missing}"
            ));
        }
    }
    if args.balanced_openings.is_some() && config.random_opening == 0 {
        w.push(
            "--balanced-openings has no effect with --random-opening 0: every game starts \
             from the start position, with no random opening to keep or refuse"
                .into(),
        );
    }
    if config.balanced_openings.is_none() && config.exact_openings.is_none() {
        let pairs = config.games.div_ceil(2);
        // The first pairs only: the check must not cost more with a larger --games.
        let checked = pairs.min(OPENINGS_CHECKED);
        let short = (0..checked)
            .filter(|&p| {
                (tournament::opening(
                    config.game,
                    config.mode,
                    config.random_opening,
                    config.seed,
                    p,
                )
                .len() as u32)
                    < config.random_opening
            })
            .count();
        // A rare short round is noise; one pair in ten means the opening is as long as a game.
        if short > 0 && short * 10 >= checked as usize {
            let of = if checked < pairs {
                format!("{short} of the first {checked} pairs")
            } else {
                format!("{short} of {pairs} pairs")
            };
            w.push(format!(
                "--random-opening {}: in {of} the random moves reach the \
                 end of the round before that (they stop one move short of it), so random \
                 moves decide those games; use fewer random plies",
                config.random_opening
            ));
        }
    }
    w
}

/// The run's output files and the finished games, shared with the signal handler.
static LIVE: std::sync::Mutex<Option<Live>> = std::sync::Mutex::new(None);

fn lock_live() -> std::sync::MutexGuard<'static, Option<Live>> {
    LIVE.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Where `--pgn`, `--results` and `--plot` go.
struct Outputs {
    pgn: Option<PathBuf>,
    results: Option<PathBuf>,
    plot: Option<PathBuf>,
}

/// A run in progress: the games finished so far and its files. The records and the CSV rows
/// are appended as games finish; the JSON results and the plot are rewritten whole at most
/// every [`REWRITE_EVERY`], and everything is written whole, in game order, at the end.
struct Live {
    config: Config,
    outputs: Outputs,
    games: Vec<tournament::GameResult>,
    verdict: Option<tournament::SprtVerdict>,
    /// The records file and the CSV file, open for appending.
    pgn: Option<std::fs::File>,
    csv: Option<std::fs::File>,
    /// Whether a record is already in the records file (the next one starts after a blank line).
    any_record: bool,
    /// The first failed write to a records or CSV output that is not a regular file (a device,
    /// a pipe): such an output cannot be written again at the end, so the run ends with this
    /// error once its other files are written.
    lost: Option<anyhow::Error>,
    /// When the JSON results and the plot were last written, and whether games came since.
    rewritten: Instant,
    stale: bool,
}

fn is_json(path: &std::path::Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
}

/// Opens `path` for appending after writing `head` to it (replaced whole if it is a regular
/// file).
fn start_append(path: &std::path::Path, head: &str) -> anyhow::Result<std::fs::File> {
    if crate::outfile::is_stream(path) {
        let mut f = crate::outfile::open_append(path)?;
        use std::io::Write as _;
        f.write_all(head.as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))?;
        return Ok(f);
    }
    crate::outfile::write_whole(path, head)?;
    crate::outfile::open_append(path)
}

impl Live {
    /// Writes every file as a file of no games.
    fn start(config: &Config, outputs: Outputs) -> anyhow::Result<Live> {
        let mut live = Live {
            config: config.clone(),
            games: Vec::new(),
            verdict: None,
            pgn: None,
            csv: None,
            any_record: false,
            lost: None,
            rewritten: Instant::now(),
            stale: false,
            outputs,
        };
        if let Some(path) = &live.outputs.pgn {
            live.pgn = Some(start_append(path, "")?);
        }
        // The plot before the results: a JSON of no games means every file is in place.
        if let Some(path) = &live.outputs.plot {
            if !crate::outfile::is_stream(path) {
                crate::outfile::write_whole(
                    path,
                    &plot::tournament_svg(config, &Report::before_games(config)),
                )?;
            }
        }
        if let Some(path) = live.outputs.results.clone() {
            if is_json(&path) {
                if !crate::outfile::is_stream(&path) {
                    crate::outfile::write_whole(
                        &path,
                        &(results_json(config, &Report::before_games(config), false)? + "\n"),
                    )?;
                }
            } else {
                live.csv = Some(start_append(&path, CSV_HEADER)?);
            }
        }
        Ok(live)
    }

    /// Appends game `g`'s record and CSV row, and rewrites the JSON and the plot if they are
    /// older than [`REWRITE_EVERY`]. The error says whether the file is tried again at the end
    /// (a regular file, rewritten whole) or the run will end with it (a device or a pipe).
    fn add(
        &mut self,
        config: &Config,
        g: &tournament::GameResult,
        so_far: &tournament::Progress,
    ) -> anyhow::Result<()> {
        use std::io::Write as _;
        self.games.push(g.clone());
        self.verdict = so_far.verdict;
        self.stale = true;
        let players = [config.player_name(0), config.player_name(1)];
        if let (Some(f), Some(path)) = (self.pgn.as_mut(), &self.outputs.pgn) {
            let mut text = if self.any_record {
                "\n".to_string()
            } else {
                String::new()
            };
            text.push_str(&record(config, &players, g)?);
            if let Err(e) = f.write_all(text.as_bytes()) {
                let path = path.clone();
                self.pgn = None;
                return Err(self.append_failed(&path, e));
            }
            self.any_record = true;
        }
        if let (Some(f), Some(path)) = (self.csv.as_mut(), &self.outputs.results) {
            if let Err(e) = f.write_all(csv_row(config, &players, g).as_bytes()) {
                let path = path.clone();
                self.csv = None;
                return Err(self.append_failed(&path, e));
            }
        }
        if self.rewritten.elapsed() >= REWRITE_EVERY {
            self.rewrite(false)
                .map_err(|e| anyhow::anyhow!("{e:#} (tried again at the end)"))?;
        }
        Ok(())
    }

    /// The error of an append to `path` that failed (the file is no longer appended to): a
    /// regular file is written whole again at the end; for a device or a pipe the error is
    /// kept in [`Live::lost`] for the end of the run.
    fn append_failed(&mut self, path: &std::path::Path, e: std::io::Error) -> anyhow::Error {
        let msg = format!("cannot write {}: {e}", path.display());
        if crate::outfile::is_stream(path) {
            if self.lost.is_none() {
                self.lost = Some(anyhow::anyhow!("{msg}"));
            }
            anyhow::anyhow!(
                "{msg} (not a regular file, so not written again: the run ends with an error)"
            )
        } else {
            anyhow::anyhow!("{msg} (tried again at the end)")
        }
    }

    /// The report of the games so far.
    fn report(&self) -> Report {
        Report::of_games(&self.config, self.games.clone(), self.verdict)
    }

    /// Rewrites the JSON results and the plot from the games so far.
    fn rewrite(&mut self, finished: bool) -> anyhow::Result<()> {
        let report = self.report();
        self.write_whole(&report, finished, false)
    }

    /// Writes the JSON and the plot of `report` (and with `all` the records and the CSV too,
    /// whole, in game order), each replaced whole.
    fn write_whole(&mut self, report: &Report, finished: bool, all: bool) -> anyhow::Result<()> {
        let config = &self.config;
        if let Some(path) = &self.outputs.results {
            if is_json(path) {
                if finished || !crate::outfile::is_stream(path) {
                    crate::outfile::write_whole(
                        path,
                        &(results_json(config, report, finished)? + "\n"),
                    )?;
                }
            } else if all && !crate::outfile::is_stream(path) {
                crate::outfile::write_whole(path, &csv(config, report))?;
            }
        }
        if let Some(path) = &self.outputs.plot {
            if finished || !crate::outfile::is_stream(path) {
                crate::outfile::write_whole(path, &plot::tournament_svg(config, report))?;
            }
        }
        if let Some(path) = &self.outputs.pgn {
            if all && !crate::outfile::is_stream(path) {
                crate::outfile::write_whole(path, &records(config, report)?)?;
            }
        }
        self.rewritten = Instant::now();
        self.stale = false;
        Ok(())
    }

    /// Writes every file whole from `report` (the run's end, or its interruption).
    fn finish(&mut self, config: &Config, report: &Report, finished: bool) -> anyhow::Result<()> {
        self.pgn = None;
        self.csv = None;
        let _ = config;
        self.write_whole(report, finished, true)?;
        // An output that could not be written again: the run did not write all it was asked to.
        match self.lost.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// On SIGINT (Ctrl-C), SIGTERM or SIGHUP: waits for the file writes after a game in progress
/// to finish, kills every external engine's process group (a Ctrl-C reaches only the
/// terminal's foreground group, not the engines' own groups, and nothing reaches them after a
/// `kill`), writes the files of the finished games (the JSON says `"finished": false`), prints
/// their summary marked as partial, says why it stopped on stderr and exits with 128 + the
/// signal's number.
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
                let deadline = Instant::now() + Duration::from_secs(2);
                let mut live = loop {
                    match LIVE.try_lock() {
                        Ok(g) => break Some(g),
                        Err(std::sync::TryLockError::Poisoned(p)) => break Some(p.into_inner()),
                        Err(std::sync::TryLockError::WouldBlock) if Instant::now() < deadline => {
                            std::thread::sleep(Duration::from_millis(5));
                        }
                        Err(std::sync::TryLockError::WouldBlock) => break None,
                    }
                };
                let killed = tournament::stop_all_engines();
                if let Some(l) = live.as_mut().and_then(|l| l.as_mut()) {
                    let report = l.report();
                    let config = l.config.clone();
                    if let Err(e) = l.finish(&config, &report, false) {
                        errln!("error: {e:#}");
                    }
                    use std::io::Write as _;
                    let _ = write!(crate::stdout(), "{}", summary(&config, &report, Some(name)));
                }
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

/// Refuses outputs that would lose something: two options naming the same file (one would
/// overwrite the other after every game), a `--plot` whose name does not end in `.svg` (it
/// is an SVG image whatever the name says), and an existing file without `--force`.
fn check_outputs(args: &Args) -> anyhow::Result<()> {
    let outputs = [
        ("--pgn", &args.pgn),
        ("--results", &args.results),
        ("--plot", &args.plot),
    ];
    let named: Vec<(&str, &PathBuf)> = outputs
        .iter()
        .filter_map(|(o, p)| p.as_ref().map(|p| (*o, p)))
        .collect();
    for (i, (a, pa)) in named.iter().enumerate() {
        for (b, pb) in &named[i + 1..] {
            if crate::outfile::same_file(pa, pb) {
                anyhow::bail!(
                    "{a} and {b} name the same file {} (one would write over the other)",
                    pb.display()
                );
            }
        }
    }
    if let Some(plot) = &args.plot {
        if !plot
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("svg"))
            && !crate::outfile::is_stream(plot)
        {
            anyhow::bail!(
                "--plot {}: the plot is an SVG image; give a name ending in .svg",
                plot.display()
            );
        }
    }
    for (option, path) in &named {
        crate::outfile::refuse_existing(option, path, args.force)?;
    }
    Ok(())
}

/// The results as JSON. Values that the games do not determine are `null`: the score and the
/// Elo with no games, an infinite Elo or bound.
fn results_json(config: &Config, report: &Report, finished: bool) -> anyhow::Result<String> {
    let w = report.wdl;
    let any = w.games() > 0;
    let (elo, elo_low, elo_high) = w.elo_interval();
    let p = report.pairs;
    let (pe, plo, phi) = p.elo_interval();
    let some_pair = p.pairs() > 0;
    // A draw is "draw", as `pussa replay --json` says it.
    let mut games = serde_json::to_value(&report.games)?;
    if let Some(list) = games.as_array_mut() {
        for g in list {
            if g["winner"].is_null() {
                g["winner"] = serde_json::json!("draw");
            }
        }
    }
    let sprt = report.sprt.map(|d| match d {
        SprtDecision::AcceptH1 => "accept_h1",
        SprtDecision::AcceptH0 => "accept_h0",
        SprtDecision::Continue => "undecided",
    });
    Ok(serde_json::to_string_pretty(&serde_json::json!({
        "game": config.game.name(),
        "mode": config.mode.name(),
        "settings": settings_json(config),
        "players": report.players,
        // Each player as given on the command line (an engine's command), whatever its name.
        "specs": [config.player_spec(0), config.player_spec(1)],
        // The game clock (`--tc`) as cutechess-cli writes it, or null.
        "time_control": config.clock.map(|tc| tc.to_string()),
        "finished": finished,
        "wins": report.wdl.wins,
        "draws": report.wdl.draws,
        "losses": report.wdl.losses,
        "score": any.then(|| w.score()),
        "elo": finite(elo).filter(|_| any),
        "elo_low": finite(elo_low).filter(|_| any),
        "elo_high": finite(elo_high).filter(|_| any),
        // How the Elo intervals were computed: `agresti_coull` (the adjusted normal interval,
        // tournament::agresti_coull_interval), for the games and for the pairs alike.
        "elo_interval": any.then_some(tournament::ELO_INTERVAL_METHOD),
        "elo_pairs_interval": some_pair.then_some(tournament::ELO_INTERVAL_METHOD),
        "sprt": sprt,
        // The test itself, so that `llr` and the decision can be checked from this file.
        "sprt_test": config.sprt.map(|t| {
            let (lower, upper) = t.bounds();
            serde_json::json!({
                "elo0": t.elo0,
                "elo1": t.elo1,
                "alpha": t.alpha,
                "beta": t.beta,
                "lower": lower,
                "upper": upper,
            })
        }),
        "sprt_model": report.sprt.map(|_| SPRT_MODEL),
        "llr": report.llr,
        "sprt_games": report.sprt_games,
        "sprt_pairs": report.sprt_pairs.map(|p| p.0),
        "stopped_early": finished && report.stopped_early,
        "pairs": report.pairs.0,
        // No pair finished yet (one game so far): no value rather than a made-up 0.
        "elo_pairs": finite(pe).filter(|_| some_pair),
        "elo_pairs_low": finite(plo).filter(|_| some_pair),
        "elo_pairs_high": finite(phi).filter(|_| some_pair),
        "below_exact": report.below_exact().map(|(b, known)| serde_json::json!({
            "players": b,
            "games": known,
        })),
        "first_mover": first_mover_json(report),
        "plies": report.plies(),
        "rounds": report.rounds(),
        "endings": report.endings(),
        "engine_time": engine_time_json(config, report),
        "length_histogram": report.length_histogram(),
        "games": games,
    }))?)
}

/// The run's settings that decide its games, as given: the games asked for, the seed, the
/// openings, the per-move limits, the round limit of a match and the games played at once.
fn settings_json(config: &Config) -> serde_json::Value {
    serde_json::json!({
        "games": config.games,
        "seed": config.seed,
        "random_opening": config.random_opening,
        "balanced_openings": config.balanced_openings,
        "exact_openings": config.exact_openings.is_some(),
        // The move time the players got: --movetime, or the 100 ms of no limit given; `null`
        // under a game clock (`time_control`) or with only --depth/--nodes.
        "movetime_ms": config.engine_movetime().map(|d| d.as_millis() as u64),
        "depth": config.limits.depth,
        "nodes": config.limits.nodes,
        "max_rounds": (config.mode == Mode::Match).then_some(config.max_rounds),
        "concurrency": config.concurrency,
    })
}

/// How long each external engine took to answer: for each player, `null` for a built-in
/// one, else its moves, its overruns (answers later than `movetime_ms` plus `margin_ms`), its
/// longest answer and all its answers together, in milliseconds to the microsecond. An engine
/// has its object (0 moves) from the start, before any of its games has finished.
fn engine_time_json(config: &Config, report: &Report) -> serde_json::Value {
    let allowed = config.engine_movetime();
    let players: Vec<serde_json::Value> = report
        .engine_time()
        .iter()
        .zip(&config.players)
        .map(|(t, spec)| match (t, spec) {
            (Some(_), _) | (None, PlayerSpec::Engine(_)) => {
                let t = t.unwrap_or_default();
                let mut v = serde_json::to_value(t).unwrap_or_default();
                v["movetime_ms"] = serde_json::json!(allowed.map(|a| a.as_millis() as u64));
                v["margin_ms"] = serde_json::json!(tournament::TIME_MARGIN.as_millis() as u64);
                v
            }
            (None, _) => serde_json::Value::Null,
        })
        .collect();
    serde_json::json!(players)
}

/// A player's or seat's results with the score and its 95% Wilson interval.
fn wdl_json(w: &Wdl) -> serde_json::Value {
    let (low, high) = w.wilson_interval();
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
const INTERVAL: &str = "95%, Wilson score interval, a draw counting half a win";

/// The SPRT's model, as results say it.
const SPRT_MODEL: &str = "GSPRT as fishtest computes it: pentanomial (complete pairs), \
    maximum-likelihood distributions with the logistic-Elo scores of elo0 and elo1";

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

/// `x` if it is finite, with a negative zero made `0.0` (an even score gives an Elo of `-0.0`,
/// which JSON readers show as `-0`; the summary says `+0.0`).
fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x + 0.0)
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

/// The text printed at the end; `stopped_by`: the signal that interrupted the run (the
/// summary is then of the games finished, marked as partial).
fn summary(config: &Config, report: &Report, stopped_by: Option<&str>) -> String {
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
        match stopped_by {
            Some(name) => format!(" finished (partial: the run was stopped by {name})"),
            None if report.stopped_early => " (stopped by the SPRT)".to_string(),
            None => String::new(),
        }
    );
    // A player named otherwise than as given: what it is.
    for i in 0..2 {
        let spec = config.player_spec(i);
        if report.players[i] != spec {
            let _ = writeln!(s, "player {} {}: {spec}", i + 1, report.players[i]);
        }
    }
    if w.games() == 0 {
        // Only a run stopped before its first game ends: no score or Elo to make up.
        let _ = writeln!(
            s,
            "wins 0  draws 0  losses 0  no score or elo without games"
        );
    } else {
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
    }
    if w.games() > 0 {
        // One method whatever the results (every game alike included): the adjusted normal
        // interval, docs/engine.md.
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
        let interval = format!("95% interval [{}, {}]", fmt_elo(plo), fmt_elo(phi));
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
    time_overruns(&mut s, config, report);
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
        if let Termination::Time { loser, reason } = &g.termination {
            let who = if (*loser == Side::South) == (g.south_player == 0) {
                &report.players[0]
            } else {
                &report.players[1]
            };
            let _ = writeln!(
                s,
                "game {}: {who} ({loser}) lost on time: {reason}",
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

/// The summary's line for each external engine that took longer than its move time (plus
/// [`tournament::TIME_MARGIN`]) to answer: such an engine is not stopped before the answer
/// timeout, so it played with more time than it was given (cutechess-cli would have
/// forfeited it on time).
fn time_overruns(s: &mut String, config: &Config, report: &Report) {
    let Some(allowed) = config.engine_movetime() else {
        return;
    };
    for (i, t) in report.engine_time().iter().enumerate() {
        let Some(t) = t.filter(|t| t.overruns > 0) else {
            continue;
        };
        let _ = writeln!(
            s,
            "time: player {} {} answered later than its move time ({} ms, + {} ms margin) on \
             {} of {} moves: longest {} ms, mean {:.1} ms",
            i + 1,
            report.players[i],
            allowed.as_millis(),
            tournament::TIME_MARGIN.as_millis(),
            t.overruns,
            t.moves,
            fmt_ms(t.longest_us),
            t.mean_ms()
        );
    }
}

/// A duration of `us` microseconds in milliseconds, to the microsecond without trailing zeros
/// (`30.004`, `150.2`, `12`): an answer counted as an overrun never reads as the limit itself.
fn fmt_ms(us: u64) -> String {
    let s = format!("{}.{:03}", us / 1000, us % 1000);
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A score with its 95% interval and the results behind it: `0.625 [0.491, 0.759] (+14 =2 -8)`.
fn fmt_score(w: &Wdl) -> String {
    if w.games() == 0 {
        return "no games".to_string();
    }
    let (lo, hi) = w.wilson_interval();
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
    let (lo, hi) = f.wilson_interval();
    let forfeits = report.endings().forfeit;
    let on_time = report.endings().time;
    if forfeits + on_time > 0 {
        let mut left_out = Vec::new();
        if forfeits > 0 {
            left_out.push(format!(
                "the {forfeits} forfeit{}",
                if forfeits == 1 { "" } else { "s" }
            ));
        }
        if on_time > 0 {
            left_out.push(format!(
                "the {on_time} loss{} on time",
                if on_time == 1 { "" } else { "es" }
            ));
        }
        let _ = writeln!(
            s,
            "seats and lengths: the {} game{} played out ({} left out)",
            f.games(),
            if f.games() == 1 { "" } else { "s" },
            left_out.join(" and ")
        );
    }
    if f.games() == 0 {
        let _ = writeln!(s, "{}", ended_line(config, report));
        return;
    }
    let _ = writeln!(
        s,
        "first mover ({}): won {}  drew {}  second mover won {}  first mover's score {:.3}  95% interval [{lo:.3}, {hi:.3}] (Wilson)",
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
        let _ = writeln!(s, "plies a game: {}", fmt_spread(&p, 1));
    }
    if config.mode == Mode::Match {
        if let Some(r) = report.rounds() {
            let _ = writeln!(s, "rounds a match: {}", fmt_spread(&r, 2));
        }
    }
    let _ = writeln!(s, "{}", ended_line(config, report));
}

/// A spread as the summary gives it, the mean, its interval and the deviation to `digits`
/// decimals: `mean 84.5  95% interval [41.3, 127.7]  sd 60.4  median 61  min 17  max 212` (no interval or
/// deviation from one game).
fn fmt_spread(p: &tournament::Spread, digits: usize) -> String {
    let mut s = format!("mean {:.digits$}", p.mean);
    if let (Some(lo), Some(hi), Some(sd)) = (p.mean_low, p.mean_high, p.sd) {
        let _ = write!(
            s,
            "  95% interval [{lo:.digits$}, {hi:.digits$}]  sd {sd:.digits$}"
        );
    }
    let _ = write!(s, "  median {}  min {}  max {}", p.median, p.min, p.max);
    s
}

/// The summary's `ended:` line: the games counted by how they ended (losses on time only
/// under a clock, or when there are some).
fn ended_line(config: &Config, report: &Report) -> String {
    let e = report.endings();
    let ended: Vec<String> = Ending::ALL
        .iter()
        .filter(|&&k| k != Ending::Time || config.clock.is_some() || e.time > 0)
        .map(|&k| format!("{} {}", k.name().replace('_', " "), e.count(k)))
        .collect();
    format!("ended: {}", ended.join("  "))
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

/// The first line of the CSV results (docs/engine.md, "Results" lists the columns).
const CSV_HEADER: &str = "number,south,north,result,first_player_score,termination,reason,plies,rounds,south_seeds,north_seeds,opening,moves,final_position,exact_margin,first_mover,first_mover_score,ending,south_overruns,north_overruns,time_control,south_clock_ms,north_clock_ms,game_name,index\n";

/// One CSV row a game.
fn csv(config: &Config, report: &Report) -> String {
    let mut s = String::from(CSV_HEADER);
    for g in &report.games {
        s.push_str(&csv_row(config, &report.players, g));
    }
    s
}

/// Game `g`'s CSV row, with its newline.
fn csv_row(config: &Config, players: &[String; 2], g: &GameResult) -> String {
    let south = &players[g.south_player];
    let north = &players[1 - g.south_player];
    let score = match g.first_player_won() {
        Some(true) => "1",
        Some(false) => "0",
        None => "0.5",
    };
    let (term, reason) = match &g.termination {
        Termination::Normal => ("normal", String::new()),
        Termination::Forfeit { loser, reason } => ("forfeit", format!("{loser}: {reason}")),
        Termination::RoundLimit => ("round_limit", format!("{} rounds", config.max_rounds)),
        Termination::Time { loser, reason } => ("time", format!("{loser}: {reason}")),
    };
    let first_mover_score = match g.first_mover_won() {
        Some(true) => "1",
        Some(false) => "0",
        None => "0.5",
    };
    // An external engine's answers later than its move time; empty for a built-in player.
    let overruns = |seat: usize| {
        g.engine_time[seat]
            .map(|t| t.overruns.to_string())
            .unwrap_or_default()
    };
    // Under a clock, each seat's clock left at the end (South's, North's); empty without.
    let clock = |seat: usize| {
        g.final_clock_ms
            .map(|c| c[seat].to_string())
            .unwrap_or_default()
    };
    format!(
        "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
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
        g.first_mover.letter(),
        first_mover_score,
        g.ending().name(),
        overruns(0),
        overruns(1),
        config.clock.map(|tc| tc.to_string()).unwrap_or_default(),
        clock(0),
        clock(1),
        config.game.name(),
        g.index
    )
}

/// Every game as a game record (see `pussa_rules::record`), one after another, a blank line
/// between two.
fn records(config: &Config, report: &Report) -> anyhow::Result<String> {
    let mut text = String::new();
    for g in &report.games {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&record(config, &report.players, g)?);
    }
    Ok(text)
}

/// A clock's time left (milliseconds) as PGN's `%clk` writes it, to the millisecond:
/// `0:01:02.345`.
fn clk_text(ms: f64) -> String {
    let ms = ms.round() as u64;
    format!(
        "{}:{:02}:{:02}.{:03}",
        ms / 3_600_000,
        ms / 60_000 % 60,
        ms / 1000 % 60,
        ms % 1000
    )
}

/// Game `g` as a game record.
fn record(config: &Config, players: &[String; 2], g: &GameResult) -> anyhow::Result<String> {
    let mut rec = Record::new(config.game, config.mode, Side::South);
    rec.set_tag("Event", "pussa tournament")?;
    rec.set_tag("Number", &(g.index + 1).to_string())?;
    rec.set_tag("South", &players[g.south_player])?;
    rec.set_tag("North", &players[1 - g.south_player])?;
    if let Some(tc) = config.clock {
        rec.set_tag("TimeControl", &tc.to_string())?;
    }
    for (i, &mv) in g.moves.iter().enumerate() {
        rec.push(mv)
            .with_context(|| format!("game {}: move {}", g.index + 1, i + 1))?;
        if i + 1 == g.opening.len() {
            rec.comment("end of the random opening");
        }
        // Under a clock, each timed move's clock left, as PGN's `[%clk h:mm:ss]` (to the ms).
        if let Some(&left) = i
            .checked_sub(g.opening.len())
            .and_then(|k| g.clock_ms.get(k))
        {
            rec.comment(&format!("[%clk {}]", clk_text(left)));
        }
    }
    match &g.termination {
        Termination::Normal => {}
        Termination::Forfeit { loser, reason } => {
            rec.set_tag("Termination", &format!("forfeit: {loser} {reason}"))?;
            rec.set_result(RecordResult::from_winner(g.winner))?;
        }
        Termination::Time { loser, reason } => {
            rec.set_tag("Termination", &format!("time forfeit: {loser} {reason}"))?;
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
    Ok(rec.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pussa_engine::tournament::GameResult;

    fn config(games: u32, sprt: Option<Sprt>) -> Config {
        Config {
            game: Game::WalakPussa,
            mode: Mode::Single,
            games,
            players: [PlayerSpec::Random, PlayerSpec::Greedy],
            limits: MoveLimits::default(),
            random_opening: 0,
            seed: 1,
            concurrency: 1,
            sprt,
            engine_timeout: None,
            engine_start_timeout: None,
            max_rounds: 100,
            oracles: [None, None],
            balanced_openings: None,
            exact_openings: None,
            on_overrun: None,
            names: [None, None],
            clock: None,
        }
    }

    fn game(index: u32, winner: Option<Side>) -> GameResult {
        GameResult {
            index,
            south_player: (index % 2) as usize,
            opening: Vec::new(),
            moves: vec![pussa_rules::Hole::ALL[0]; 10],
            winner,
            termination: Termination::Normal,
            stores: [0, 0],
            rounds: 1,
            final_position: String::new(),
            exact: None,
            first_mover: Side::South,
            end: None,
            engine_time: [None, None],
            clock_ms: Vec::new(),
            final_clock_ms: None,
        }
    }

    fn json(config: &Config, games: Vec<GameResult>, finished: bool) -> serde_json::Value {
        let report = Report::of_games(config, games, None);
        serde_json::from_str(&results_json(config, &report, finished).unwrap()).unwrap()
    }

    /// No games: no score and no Elo (they were 0.5 and 0.0, made up).
    #[test]
    fn no_games_give_no_score_or_elo() {
        let v = json(&config(4, None), Vec::new(), false);
        for key in ["score", "elo", "elo_low", "elo_high", "elo_pairs", "plies"] {
            assert!(v[key].is_null(), "{key}: {v}");
        }
    }

    /// Every pair 1-1: not a certain Elo of 0 (the interval was -0.0 to -0.0); an
    /// undecided SPRT is "undecided" (it was "continue"); a draw's winner is "draw", as
    /// `pussa replay --json` says it (it was null).
    #[test]
    fn alike_pairs_undecided_sprt_and_draws() {
        let sprt = Sprt::parse("0,5,0.05,0.05").unwrap();
        let c = config(6, Some(sprt));
        let games = vec![
            game(0, Some(Side::South)),
            game(1, Some(Side::South)),
            game(2, None),
            game(3, None),
        ];
        let v = json(&c, games, true);
        assert_eq!(v["pairs"], serde_json::json!([0, 0, 2, 0, 0]));
        assert_eq!(v["elo_pairs"], 0.0);
        // Every pair split: no spread, yet not a certain Elo of 0 (the Agresti–Coull interval
        // of the pairs' score, symmetric about it).
        let (lo, hi) = (
            v["elo_pairs_low"].as_f64().unwrap(),
            v["elo_pairs_high"].as_f64().unwrap(),
        );
        assert!(lo < -200.0 && (lo + hi).abs() < 1e-9, "{v}");
        assert_eq!(v["elo_pairs_interval"], "agresti_coull");
        assert_eq!(v["sprt"], "undecided");
        assert_eq!(v["games"][2]["winner"], "draw");
        assert_eq!(v["games"][0]["winner"], "S");
        assert_eq!(v["elo_interval"], "agresti_coull");
        // Every game a draw: the same for the games.
        let v = json(&c, vec![game(0, None), game(1, None)], true);
        assert_eq!(v["elo"], 0.0);
        let (lo, hi) = (
            v["elo_low"].as_f64().unwrap(),
            v["elo_high"].as_f64().unwrap(),
        );
        assert!(lo < -200.0 && (lo + hi).abs() < 1e-9, "{v}");
        assert_eq!(v["elo_interval"], "agresti_coull");
    }

    /// One forfeit is "the 1 forfeit", as one game is "the 1 game" (it said "the 1 forfeits").
    #[test]
    fn one_forfeit_is_named_in_the_singular() {
        let c = config(4, None);
        let mut games = vec![
            game(0, Some(Side::South)),
            game(1, Some(Side::North)),
            game(2, None),
            game(3, Some(Side::North)),
        ];
        games[1].termination = Termination::Forfeit {
            loser: Side::South,
            reason: "engine timed out".into(),
        };
        let report = Report::of_games(&c, games.clone(), None);
        let text = summary(&c, &report, None);
        assert!(
            text.contains("seats and lengths: the 3 games played out (the 1 forfeit left out)"),
            "{text}"
        );
        games[3].termination = games[1].termination.clone();
        let report = Report::of_games(&c, games, None);
        let text = summary(&c, &report, None);
        assert!(
            text.contains("seats and lengths: the 2 games played out (the 2 forfeits left out)"),
            "{text}"
        );
    }
}
