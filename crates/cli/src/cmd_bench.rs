//! `pussa bench`: random playouts per second, per thread and in total.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::bail;
use pussa_rules::{playout, Game, PlayoutScratch, Position, Rng};

/// Measure the rules engine: random single games (uniform random legal moves, from the start
/// to the end of the game, every rule on: endless moves refused, the repetition rule, the
/// end-of-round rules) played for a fixed time on one or more threads.
#[derive(clap::Args)]
pub struct Args {
    /// The game to measure (default: all four, one after the other).
    #[arg(long)]
    pub game: Option<Game>,
    /// Seconds to measure each game for: more than 0 and at most 3600 (a decimal number, like
    /// 2 or 0.5).
    #[arg(long, default_value_t = 2.0, allow_negative_numbers = true, value_parser = seconds)]
    pub seconds: f64,
    /// Threads playing at once (default: every core).
    #[arg(long, allow_negative_numbers = true, value_parser = crate::numarg::ranged::<usize>(0, usize::MAX as u64))]
    pub threads: Option<usize>,
    /// Seed of the random moves; thread `t` uses seed + t.
    #[arg(long, default_value_t = 1, allow_negative_numbers = true, value_parser = crate::numarg::ranged::<u64>(0, u64::MAX))]
    pub seed: u64,
    /// Measure the search instead: a fixed set of positions, each searched to a fixed depth on
    /// one thread; prints nodes and nodes per second, and the total node count (the search's
    /// signature: deterministic, it changes only when the search's behaviour does).
    #[arg(long, conflicts_with_all = ["game", "seconds", "threads", "seed"])]
    pub search: bool,
}

/// Reads `--seconds`: a decimal number (digits, a point, an exponent: `2`, `0.5`, `1e-3`)
/// more than 0 and at most 3600. The messages quote the value as typed (not the number it
/// rounds to) and never Rust's "invalid float literal".
fn seconds(text: &str) -> Result<f64, String> {
    let decimal = text.bytes().any(|b| b.is_ascii_digit())
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'));
    let value = text
        .parse::<f64>()
        .ok()
        .filter(|_| decimal)
        .ok_or_else(|| {
            format!(
                "'{}' is not a number of seconds (like 2 or 0.5)",
                text.escape_debug()
            )
        })?;
    if value.is_finite() && value > 0.0 && value <= 3600.0 {
        Ok(value)
    } else {
        Err(format!("{text} is not more than 0 and at most 3600"))
    }
}

/// `pussa bench --search`: the engine's fixed positions at fixed depths, one thread.
fn run_search() -> anyhow::Result<()> {
    let mut out = crate::stdout();
    writeln!(
        out,
        "search benchmark: fixed positions, fixed depths, 1 thread"
    )?;
    writeln!(
        out,
        "{:<20} {:>5} {:>12} {:>12} {:>8} {:>5} {:>6}",
        "position", "depth", "nodes", "nodes/s", "seconds", "best", "score"
    )?;
    let mut nodes = 0u64;
    let mut secs = 0.0f64;
    for p in pussa_engine::bench::positions() {
        let t = Instant::now();
        let r = p.run();
        let s = t.elapsed().as_secs_f64();
        nodes += r.nodes;
        secs += s;
        writeln!(
            out,
            "{:<20} {:>5} {:>12} {:>12.0} {:>8.3} {:>5} {:>+6}",
            p.name,
            p.depth,
            r.nodes,
            r.nodes as f64 / s.max(1e-9),
            s,
            r.best.map_or('-', |h| h.letter()),
            r.score
        )?;
    }
    writeln!(
        out,
        "{:<20} {:>5} {:>12} {:>12.0} {:>8.3}",
        "total",
        "",
        nodes,
        nodes as f64 / secs.max(1e-9),
        secs
    )?;
    writeln!(out, "signature {nodes}")?;
    Ok(())
}

/// What one thread did.
#[derive(Clone, Copy, Default)]
struct Count {
    playouts: u64,
    moves: u64,
    secs: f64,
    /// Seconds the thread actually ran on a core, when the system tells (Linux).
    cpu: Option<f64>,
}

/// Seconds the calling thread has run on a core so far, from `/proc/thread-self/schedstat`
/// (Linux); `None` elsewhere. On a shared machine this, not the wall clock, shows the speed.
fn thread_cpu_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 * 1e-9)
}

/// Plays random games from `start` until `stop` is set; checks the flag every 256 playouts.
fn worker(start: Position, seed: u64, stop: &AtomicBool) -> Count {
    let mut rng = Rng::new(seed);
    let mut scratch = PlayoutScratch::default();
    let mut c = Count::default();
    let t0 = Instant::now();
    let cpu0 = thread_cpu_seconds();
    while !stop.load(Ordering::Relaxed) {
        for _ in 0..256 {
            let r = playout(&start, &mut rng, &mut scratch);
            c.playouts += 1;
            c.moves += u64::from(r.moves);
        }
    }
    c.secs = t0.elapsed().as_secs_f64();
    c.cpu = cpu0
        .zip(thread_cpu_seconds())
        .map(|(a, b)| b - a)
        .filter(|&t| t > 0.0);
    c
}

/// Runs `threads` workers on `game` for `seconds`.
fn measure(game: Game, seconds: f64, threads: usize, seed: u64) -> Vec<Count> {
    let start = Position::start(game);
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let stop = &stop;
                s.spawn(move || worker(start, seed.wrapping_add(t as u64), stop))
            })
            .collect();
        std::thread::sleep(Duration::from_secs_f64(seconds));
        stop.store(true, Ordering::Relaxed);
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_default())
            .collect()
    })
}

/// Runs `pussa bench`.
///
/// # Errors
/// A non-positive time or zero threads; a failed write to standard output.
pub fn run(args: Args) -> anyhow::Result<()> {
    if args.search {
        return run_search();
    }
    let threads = match args.threads {
        Some(0) => bail!("--threads must be at least 1"),
        Some(t) if t > 1024 => bail!("--threads must be at most 1024, not {t}"),
        Some(t) => t,
        None => std::thread::available_parallelism().map_or(1, usize::from),
    };
    let games: Vec<Game> = match args.game {
        Some(g) => vec![g],
        None => Game::ALL.to_vec(),
    };
    let mut out = crate::stdout();
    writeln!(
        out,
        "random single games from the start, every rule on; {threads} thread(s), {} s per game, seed {}",
        args.seconds, args.seed
    )?;
    writeln!(
        out,
        "{:<14} {:>6} {:>10} {:>11} {:>12} {:>10} {:>7} {:>7} {:>14}",
        "game",
        "thread",
        "playouts",
        "playouts/s",
        "moves/s",
        "moves/game",
        "wall s",
        "cpu s",
        "playouts/cpu-s"
    )?;
    for game in games {
        let counts = measure(game, args.seconds, threads, args.seed);
        let row = |out: &mut crate::Stdout, label: &str, c: Count| -> std::io::Result<()> {
            let secs = c.secs.max(1e-9);
            let (cpu, per_cpu) = match c.cpu {
                Some(t) => (format!("{t:.2}"), format!("{:.0}", c.playouts as f64 / t)),
                None => ("-".to_string(), "-".to_string()),
            };
            writeln!(
                out,
                "{:<14} {:>6} {:>10} {:>11.0} {:>12.0} {:>10.1} {:>7.2} {:>7} {:>14}",
                game.name(),
                label,
                c.playouts,
                c.playouts as f64 / secs,
                c.moves as f64 / secs,
                c.moves as f64 / c.playouts.max(1) as f64,
                c.secs,
                cpu,
                per_cpu
            )
        };
        if counts.len() > 1 {
            for (t, c) in counts.iter().enumerate() {
                row(&mut out, &t.to_string(), *c)?;
            }
        }
        let total = Count {
            playouts: counts.iter().map(|c| c.playouts).sum(),
            moves: counts.iter().map(|c| c.moves).sum(),
            secs: counts.iter().map(|c| c.secs).fold(0.0, f64::max),
            cpu: counts.iter().map(|c| c.cpu).sum(),
        };
        row(&mut out, "all", total)?;
    }
    writeln!(
        out,
        "playouts/s and moves/s count wall-clock time; playouts/cpu-s counts only the time the \
         threads ran on a core (it stays true when other programs share the machine)."
    )?;
    Ok(())
}
