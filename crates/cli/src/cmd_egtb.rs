//! `pussa egtb`: build, probe and verify the endgame databases, and solve start positions.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context};
use indicatif::{ProgressBar, ProgressStyle};
use pussa_egtb::{build_dir, BuildOptions, Entry, LayerEvent, Tables};
use pussa_rules::{Game, Mode, Setup, Side};

/// Endgame databases: every position with up to N seeds on the open board, solved exactly.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: Sub,
}

/// The `pussa egtb` subcommands.
#[derive(clap::Subcommand)]
pub enum Sub {
    /// Build the tables of a game for 0..=N seeds (valid files already there are kept, unless
    /// they hold positions not determined).
    Build {
        /// The game.
        #[arg(long)]
        game: Game,
        /// The largest number of seeds on the board. The builder's limit depends on the game and
        /// the closed holes (24 seeds for the open board of every game); a larger number is
        /// refused before any work, with the limit.
        #[arg(long, allow_negative_numbers = true, value_parser = crate::numarg::ranged::<u32>(0, u32::MAX.into()))]
        max_seeds: u32,
        /// Where the tables live: `egtb` in the data directory ($PUSSA_DATA/egtb, else data/egtb),
        /// where `pussa serve` reads them.
        #[arg(long, default_value_os_t = crate::cmd_play::default_egtb_dir())]
        dir: PathBuf,
        /// Build every layer again even if a valid file is there.
        #[arg(long)]
        rebuild: bool,
        /// Node budget of the history search per position (a position past it is left not
        /// determined, with a warning; a later build builds such a layer again).
        #[arg(long, allow_negative_numbers = true, value_parser = crate::numarg::ranged::<u64>(0, u64::MAX), default_value_t = 1 << 22)]
        budget: u64,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
        /// Build closed-hole patterns instead of the open board: `all` (the match patterns
        /// (c, 0) and (0, c), c = 1..6) or a list like `2-0,3-0` (each with its mirror; no
        /// game closes holes in both rows, so `3-1` is refused).
        #[arg(long)]
        closed: Option<String>,
    },
    /// The exact value of a position for the player to move, and of each move.
    Probe {
        /// The game (default: the game the position string names).
        #[arg(long)]
        game: Option<Game>,
        /// The position string.
        #[arg(long)]
        position: String,
        /// Where the tables live: `egtb` in the data directory ($PUSSA_DATA/egtb, else data/egtb),
        /// where `pussa serve` reads them.
        #[arg(long, default_value_os_t = crate::cmd_play::default_egtb_dir())]
        dir: PathBuf,
        /// Where the closed-hole tables live (default: --dir).
        #[arg(long)]
        closed_dir: Option<PathBuf>,
        /// Print one JSON object instead of text (docs/egtb.md, "probe --json"): the value as
        /// the round's final margin (`value`, as `analyze --json` has it) and as the seeds
        /// still to take (`future`), the history it holds for (`history`: `any` or
        /// `starts_here`), and each move's `score`, `future` and `gain`.
        #[arg(long)]
        json: bool,
    },
    /// Play a match with every round perfect for seeds, and solve the match states by
    /// backward induction on the rounds' exact margins. Both read the tables, open board and
    /// closed patterns (`egtb build` and `egtb build --closed all`), whatever the seeds a hole.
    Match {
        /// The game.
        #[arg(long)]
        game: Game,
        /// Where the open-board tables live.
        #[arg(long, default_value_os_t = crate::cmd_play::default_egtb_dir())]
        dir: PathBuf,
        /// Where the closed-hole tables live (default: --dir).
        #[arg(long)]
        closed_dir: Option<PathBuf>,
        /// Give up a round after this many nodes.
        #[arg(long, allow_negative_numbers = true, value_parser = crate::numarg::ranged::<u64>(0, u64::MAX), default_value_t = 2_000_000_000)]
        nodes: u64,
        /// Use the tables up to this many seeds only (default: all there are; a number above
        /// the largest layer of the open board or of a closed pattern uses all there are of
        /// each, and says so).
        #[arg(long, allow_negative_numbers = true, value_parser = crate::numarg::ranged::<usize>(0, usize::MAX as u64))]
        max_seeds: Option<usize>,
        /// Also solve every match state (South's holding, starter).
        #[arg(long)]
        states: bool,
        /// Who starts round 1.
        #[arg(long, default_value = "S")]
        first: Side,
        /// Seeds per hole of a reduced (or enlarged) match (default: the game's own).
        #[arg(long, allow_negative_numbers = true, value_parser = crate::numarg::ranged::<u8>(1, 7))]
        seeds_per_hole: Option<u8>,
        /// Also solve every match state exactly: each round searched to its end with the
        /// repetition history, stopping at the tables (open and closed-hole) where they decide;
        /// with 1 seed a hole these exact values are searched without tables (the match and
        /// the margins before them still need the tables). Compares with the margins' verdicts.
        #[arg(long)]
        exhaustive: bool,
        /// Print one JSON object instead of text (docs/egtb.md, "match --json"): `rounds` (each
        /// with its `position`, `starter`, `filled`, `remainder`, `closed`, `value` (the round's
        /// exact margin for the starter), `taken`, `reason`, `holdings`, `next_starter`, `pv`,
        /// `nodes`), `result` (`kind`, `winner`, `rounds`), and with --states and --exhaustive
        /// the states' verdicts (`states`, `exhaustive`).
        #[arg(long)]
        json: bool,
    },
    /// Solve a start position exactly: the real start, or a reduced game with S seeds a hole.
    Solve {
        /// The game (default: the game the `--position` string names).
        #[arg(long, required_unless_present = "position")]
        game: Option<Game>,
        /// Seeds per hole of a reduced game (default: the game's own start).
        #[arg(long, allow_negative_numbers = true, value_parser = crate::numarg::ranged::<u8>(1, 7))]
        seeds_per_hole: Option<u8>,
        /// Start from this position string instead.
        #[arg(long, conflicts_with = "seeds_per_hole")]
        position: Option<String>,
        /// Where the tables live: `egtb` in the data directory ($PUSSA_DATA/egtb, else data/egtb),
        /// where `pussa serve` reads them.
        #[arg(long, default_value_os_t = crate::cmd_play::default_egtb_dir())]
        dir: PathBuf,
        /// Give up after this many nodes.
        #[arg(long, allow_negative_numbers = true, value_parser = crate::numarg::ranged::<u64>(0, u64::MAX), default_value_t = 200_000_000)]
        nodes: u64,
        /// Use the tables up to this many seeds only (default: all there are; a number above
        /// the largest layer there uses all there are, and says so).
        #[arg(long, allow_negative_numbers = true, value_parser = crate::numarg::ranged::<usize>(0, usize::MAX as u64))]
        max_seeds: Option<usize>,
        /// Print one JSON object instead of text (docs/egtb.md, "solve --json"): `value` (the
        /// round's final margin, as `analyze --json`), `future`, `pv`, `nodes`.
        #[arg(long)]
        json: bool,
    },
    /// Check every table file (header, size, checksum, values possible) and re-compute sample
    /// positions; every file from 0 seeds to the largest is checked, and a missing one reported.
    Verify {
        /// Only this game (default: every game with tables).
        #[arg(long)]
        game: Option<Game>,
        /// Where the tables live: `egtb` in the data directory ($PUSSA_DATA/egtb, else data/egtb),
        /// where `pussa serve` reads them.
        #[arg(long, default_value_os_t = crate::cmd_play::default_egtb_dir())]
        dir: PathBuf,
        /// Positions re-computed per layer, spread evenly over it (every position of a layer
        /// that has fewer; 0: none, only the files are checked).
        #[arg(long, allow_negative_numbers = true, value_parser = crate::numarg::ranged::<u64>(0, u64::MAX), default_value_t = 2000)]
        samples: u64,
        /// Verify the closed-hole tables under --dir instead of the open board's.
        #[arg(long)]
        closed: bool,
    },
}

/// Runs `pussa egtb`.
///
/// How to choose another directory of tables than the one an error names.
const CHOOSE_DIR: &str = "choose one with --dir DIR or PUSSA_DATA (its egtb directory)";

/// `dir` made absolute against the current directory, for messages.
fn absolute(dir: &std::path::Path) -> PathBuf {
    std::env::current_dir().map_or_else(|_| dir.to_path_buf(), |cwd| cwd.join(dir))
}

/// Where `dir` came from, for messages: the default (`$PUSSA_DATA/egtb`, or `data/egtb`
/// relative to the current directory, which it names) or `--dir`.
fn which_dir(dir: &std::path::Path) -> String {
    if dir != crate::cmd_play::default_egtb_dir() {
        return "given with --dir".into();
    }
    match std::env::var_os("PUSSA_DATA").filter(|d| !d.is_empty()) {
        Some(data) => format!(
            "the default: egtb in PUSSA_DATA={}",
            std::path::Path::new(&data).display()
        ),
        None => format!(
            "the default {}, relative to the current directory {}",
            crate::cmd_play::DEFAULT_EGTB,
            std::env::current_dir().unwrap_or_default().display()
        ),
    }
}

/// # Errors
/// Bad arguments, missing or damaged tables, files that cannot be written.
pub fn run(args: Args) -> anyhow::Result<()> {
    if matches!(args.command, Sub::Build { .. }) {
        // A table written past the file size limit fails with EFBIG (named, and its .tmp file
        // removed) instead of the signal ending the build without a word.
        crate::cmd_serve::ignore_file_size_signal();
    }
    match args.command {
        Sub::Build {
            game,
            max_seeds,
            dir,
            rebuild,
            budget,
            quiet,
            closed,
        } => match closed {
            None => build(game, max_seeds as usize, &dir, rebuild, budget, quiet),
            Some(list) => crate::cmd_egtb_match::build_closed(
                game,
                max_seeds as usize,
                &dir,
                rebuild,
                budget,
                &list,
            ),
        }
        .map_err(
            |e| match e.downcast_ref::<pussa_egtb::format::FormatError>() {
                // The default directory, which the user did not name: say where it is and why.
                Some(pussa_egtb::format::FormatError::CreateDir { path, error })
                    if dir == crate::cmd_play::default_egtb_dir() =>
                {
                    anyhow::anyhow!(
                        "cannot create the directory {} for the tables ({}): {error}; {}",
                        absolute(path).display(),
                        which_dir(&dir),
                        CHOOSE_DIR
                    )
                }
                _ => e,
            },
        ),
        Sub::Probe {
            game,
            position,
            dir,
            closed_dir,
            json,
        } => probe(
            crate::cmd_replay::game_of(game, Some(&position))?,
            &position,
            &dir,
            closed_dir.as_deref(),
            json,
        ),
        Sub::Verify { ref dir, .. } if !dir.exists() => bail!(
            "the directory of tables {} does not exist ({}); build tables there with `pussa egtb \
             build`, or {CHOOSE_DIR}",
            absolute(dir).display(),
            which_dir(dir)
        ),
        Sub::Verify {
            game,
            dir,
            samples,
            closed: false,
        } => verify(game, &dir, samples),
        Sub::Verify {
            game,
            dir,
            samples,
            closed: true,
        } => crate::cmd_egtb_match::verify_closed(game, &dir, samples),
        Sub::Match {
            game,
            dir,
            closed_dir,
            nodes,
            max_seeds,
            states,
            first,
            seeds_per_hole,
            exhaustive,
            json,
        } => crate::cmd_egtb_match::run_match(
            game,
            &dir,
            closed_dir.as_deref().unwrap_or(&dir),
            nodes,
            max_seeds,
            states,
            first,
            seeds_per_hole.unwrap_or(game.seeds_per_hole()),
            exhaustive,
            json,
        ),
        Sub::Solve {
            game,
            seeds_per_hole,
            position,
            dir,
            nodes,
            max_seeds,
            json,
        } => solve(
            crate::cmd_replay::game_of(game, position.as_deref())?,
            seeds_per_hole,
            position.as_deref(),
            &dir,
            nodes,
            max_seeds,
            json,
        ),
    }
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

fn build(
    game: Game,
    max: usize,
    dir: &std::path::Path,
    rebuild: bool,
    budget: u64,
    quiet: bool,
) -> anyhow::Result<()> {
    refuse_unbuildable(game, pussa_egtb::Pattern::OPEN, max)?;
    let style = ProgressStyle::with_template(
        "{msg:>22} [{bar:40}] {pos}/{len} {elapsed_precise} eta {eta}",
    )
    .expect("template")
    .progress_chars("=> ");
    // One bar per phase of a layer, made with its label and length before it is drawn (so a
    // phase never shows the next one's length, and nothing is drawn before the first phase);
    // the clock counts from the start of the layer. The bar is cleared before a layer's line.
    let bar: std::sync::Mutex<Option<(usize, u8, ProgressBar)>> = std::sync::Mutex::new(None);
    let layer_start: std::sync::Mutex<(usize, Instant)> =
        std::sync::Mutex::new((usize::MAX, Instant::now()));
    let progress = |p: pussa_egtb::Progress| {
        if quiet {
            return;
        }
        let phase = match p.phase {
            1 => "first pass",
            2 => "non-capturing",
            3 => "bound iteration",
            _ => "history search",
        };
        let Ok(mut current) = bar.lock() else { return };
        match &*current {
            Some((k, ph, b)) if *k == p.seeds && *ph == p.phase => {
                // The history searches report from several threads: never backwards.
                if p.done > b.position() {
                    b.set_position(p.done.min(p.total));
                }
            }
            _ => {
                if let Some((_, _, old)) = current.take() {
                    old.finish_and_clear();
                }
                let elapsed = layer_start
                    .lock()
                    .map_or(std::time::Duration::ZERO, |mut l| {
                        if l.0 != p.seeds {
                            *l = (p.seeds, Instant::now());
                        }
                        l.1.elapsed()
                    });
                let b = ProgressBar::with_draw_target(
                    Some(p.total),
                    indicatif::ProgressDrawTarget::hidden(),
                )
                .with_style(style.clone())
                .with_message(format!("{game} {}: {phase}", p.seeds))
                .with_position(p.done.min(p.total))
                .with_elapsed(elapsed);
                b.set_draw_target(indicatif::ProgressDrawTarget::stderr());
                *current = Some((p.seeds, p.phase, b));
            }
        }
    };
    let clear_bar = || {
        if let Ok(mut current) = bar.lock() {
            if let Some((_, _, b)) = current.take() {
                b.finish_and_clear();
            }
        }
    };
    let t0 = Instant::now();
    // The tables are the work: a closed stdout does not stop the build (the layer lines
    // below are not checked either; the last line ends the command quietly). The header waits
    // for the first layer, so that a build refused at once prints only its error.
    let mut header = false;
    let mut print_header = || {
        if !std::mem::replace(&mut header, true) {
            let _ = outln!(
                "{:>5} {:>13} {:>9} {:>9} {:>11} {:>9} {:>8} {:>9}  file",
                "seeds",
                "positions",
                "history",
                "undeterm",
                "MiB",
                "passes",
                "seconds",
                "peak MiB"
            );
        }
    };
    let mut on_layer = |e: LayerEvent| {
        clear_bar();
        print_header();
        match e {
            LayerEvent::Kept {
                seeds,
                path,
                header,
            } => {
                let _ = outln!(
                    "{seeds:>5} {:>13} {:>9} {:>9} {:>11.1} {:>9} {:>8} {:>9}  {} (kept)",
                    header.entries,
                    header.history,
                    header.undetermined,
                    mib(header.entries + 64),
                    "-",
                    "-",
                    "-",
                    path.display()
                );
            }
            LayerEvent::Incomplete {
                seeds,
                path,
                undetermined,
            } => {
                let _ = outln!(
                    "{seeds:>5} {}: {} not determined (an earlier build's small --budget): \
                     building it again",
                    path.display(),
                    plural(undetermined, "position", "positions")
                );
            }
            LayerEvent::Built { stats, path } => {
                let _ = outln!(
                    "{:>5} {:>13} {:>9} {:>9} {:>11.1} {:>9} {:>8.1} {:>9.0}  {} ({:.1}+{:.1}+{:.1}+{:.1} s; cyclic {}, bounds met {} in {} passes)",
                    stats.seeds,
                    stats.positions,
                    stats.history,
                    stats.undetermined,
                    mib(stats.positions + 64),
                    stats.passes,
                    stats.seconds,
                    mib(pussa_egtb::peak_memory().unwrap_or(0)),
                    path.display(),
                    stats.phase_seconds[0],
                    stats.phase_seconds[1],
                    stats.phase_seconds[2],
                    stats.phase_seconds[3],
                    stats.cyclic,
                    stats.bounded,
                    stats.bound_passes
                );
                if stats.undetermined > 0 {
                    errln!(
                        "warning: {} of {} seeds left not determined: the history search ran \
                         past --budget {budget}; a later `pussa egtb build` builds this layer again",
                        plural(stats.undetermined, "position", "positions"),
                        stats.seeds
                    );
                }
            }
        }
    };
    let opts = BuildOptions {
        search_budget: budget,
    };
    let built = build_dir(dir, game, max, opts, rebuild, &progress, &mut on_layer);
    clear_bar();
    built?;
    outln!(
        "{game}: tables 0..={max} in {:.1} s, peak memory {:.0} MiB",
        t0.elapsed().as_secs_f64(),
        mib(pussa_egtb::peak_memory().unwrap_or(0))
    )?;
    Ok(())
}

/// Refuses `--max-seeds max` before any work if the builder cannot build that layer of
/// `pattern` ([`pussa_egtb::max_build_seeds`]; it would stop there after hours).
pub fn refuse_unbuildable(
    game: Game,
    pattern: pussa_egtb::Pattern,
    max: usize,
) -> anyhow::Result<()> {
    let limit = pussa_egtb::max_build_seeds(game, pattern);
    if max > limit {
        bail!(
            "--max-seeds {max}: {}",
            pussa_egtb::too_many_seeds(game, pattern, max, limit)
        );
    }
    Ok(())
}

fn parse_position(game: Game, position: &str) -> anyhow::Result<pussa_rules::GameState> {
    let setup: Setup = position.parse().context("--position")?;
    setup.expect_game(game).context("--position")?;
    setup.game_state(Mode::Single).context("--position")
}

/// `egtb probe --json`: one object (docs/egtb.md, "probe --json").
#[derive(serde::Serialize)]
struct ProbeJson {
    game: &'static str,
    position: String,
    to_move: &'static str,
    /// Seeds taken in the round so far, `[South, North]`.
    taken: [u8; 2],
    /// The round's final margin for the player to move (taken so far included), as
    /// `analyze --json`'s `value`; null if not determined.
    value: Option<i32>,
    /// The seeds still to take, player to move minus opponent; null if not determined.
    future: Option<i32>,
    /// `"any"`: exact for any history of the round; `"starts_here"`: exact when the round's
    /// history starts at this position; null if not determined.
    history: Option<&'static str>,
    /// Every legal move, best first (equal values and undetermined ones in board order).
    moves: Vec<ProbeMoveJson>,
}

/// `egtb solve --json`: the fields in the order docs/egtb.md gives them, as `probe --json`'s
/// (a `json!` object would write them in alphabetical order).
#[derive(serde::Serialize)]
struct SolveJson {
    game: &'static str,
    position: String,
    to_move: &'static str,
    taken: [u8; 2],
    value: i32,
    future: i32,
    history: &'static str,
    pv: Vec<String>,
    nodes: u64,
    tables_max_seeds: usize,
}

#[derive(serde::Serialize)]
struct ProbeMoveJson {
    #[serde(rename = "move")]
    mv: String,
    /// The round's final margin if the move is played, then perfect play (as `analyze`'s
    /// `moves[].score`); null if not determined.
    score: Option<i32>,
    /// The seeds still to take from now, this move's included; null if not determined.
    future: Option<i32>,
    /// Seeds the move takes now, mover minus opponent.
    gain: i32,
    /// The move's value is the position's: null if either is not determined (a build with a
    /// small `--budget`), as no move can be known to reach a value not known.
    best: Option<bool>,
}

/// Whether a move of value `mv` is best in a position of value `value` (both the seeds still to
/// take, for the player to move): only known when both are determined.
fn is_best(value: Option<i32>, mv: Option<i32>) -> Option<bool> {
    Some(mv? == value?)
}

fn probe(
    game: Game,
    position: &str,
    dir: &std::path::Path,
    closed_dir: Option<&std::path::Path>,
    json: bool,
) -> anyhow::Result<()> {
    let state = parse_position(game, position)?;
    let pos = *state.position();
    if state.is_round_over() {
        bail!("the round is over in this position: there is nothing to probe");
    }
    let k = pos.seeds_on_board() as usize;
    let pattern = if pos.closed_mask() == 0 {
        pussa_egtb::Pattern::OPEN
    } else {
        pussa_egtb::Pattern::of_position(&pos)
            .context("the position's closed holes are not a closing of the game")?
    };
    let dir = if pattern.is_open() {
        dir
    } else {
        closed_dir.unwrap_or(dir)
    };
    // The position needs the layers 0..=k (seeds only leave the board); a missing one is
    // named with the seed counts the directory does have, and the advice says what to build.
    let needed = |e: pussa_egtb::FormatError| {
        let missing = matches!(e, pussa_egtb::FormatError::Missing { .. });
        let e = anyhow::Error::new(e);
        if !missing {
            return e;
        }
        let seeds = plural(k as u64, "seed", "seeds");
        // Where the files stop (the pattern's or its mirror's, the lower).
        let top = [pattern, pattern.flipped()]
            .into_iter()
            .map(|p| {
                pussa_egtb::format::table_files(dir, game, p)
                    .last()
                    .copied()
            })
            .min()
            .flatten();
        // A gap below the top is named by the error itself ("but not 3", and the command that
        // builds it again); the advice is for tables that stop below the position or are not
        // there at all.
        if top.is_some_and(|t| t >= k) {
            return e;
        }
        let limit = pussa_egtb::max_build_seeds(game, pattern);
        if k > limit {
            e.context(format!(
                "{seeds} on the board: no tables can reach this position (they are built up to \
                 {limit} seeds at most); `pussa egtb solve --position` searches it"
            ))
        } else if pattern.is_open() && top.is_some() {
            e.context(format!(
                "{seeds} on the board (build the tables to {k}, or use `pussa egtb solve --position`)"
            ))
        } else if pattern.is_open() {
            // No tables at all: `solve` needs some too; the error's advice builds them.
            e.context(format!("{seeds} on the board"))
        } else {
            // The command that builds them is the error's own advice (up to the position's
            // seeds, `Tables::open_pattern`'s `Remedy`): one command, said once.
            e.context(format!(
                "{seeds} on the board with closed holes {pattern}{}",
                if closed_dir.is_none() {
                    " (--closed-dir DIR says where their tables are)"
                } else {
                    ""
                }
            ))
        }
    };
    let tables = if pattern.is_open() {
        Tables::open(dir, game, Some(k)).map_err(needed)?
    } else {
        Tables::open_pattern(dir, game, pattern, Some(k)).map_err(needed)?
    };
    let side = pos.to_move();
    if json {
        let taken = state.taken_this_round();
        let so_far = i32::from(taken[side.index()]) - i32::from(taken[side.other().index()]);
        let (future, history) = match tables.entry(&pos) {
            Some(Entry::Value { margin, history }) => (
                Some(margin),
                Some(if history { "starts_here" } else { "any" }),
            ),
            Some(Entry::Unknown) => (None, None),
            None => bail!("not covered by the tables"),
        };
        let mut moves = tables.move_values(&pos).unwrap_or_default();
        moves.sort_by_key(|m| std::cmp::Reverse(m.value.unwrap_or(i32::MIN)));
        let out = ProbeJson {
            game: game.name(),
            position: Setup::from_state(&state).to_string(),
            to_move: if side == Side::South { "S" } else { "N" },
            taken,
            value: future.map(|f| so_far + f),
            future,
            history,
            moves: moves
                .iter()
                .map(|m| ProbeMoveJson {
                    mv: m.mv.letter().to_string(),
                    score: m.value.map(|v| so_far + v),
                    future: m.value,
                    gain: m.gain,
                    best: is_best(future, m.value),
                })
                .collect(),
        };
        outln!("{}", serde_json::to_string(&out)?)?;
        return Ok(());
    }
    let value = match tables.entry(&pos) {
        Some(Entry::Value { margin, history }) => {
            outln!(
                "value {margin:+} for {side} (future seeds, {side} minus opponent){}",
                if history {
                    "; exact when the round's history starts here (a capture or the round's \
                     start just happened): a chain of non-capturing moves can reach a cycle"
                } else {
                    "; exact for any history"
                }
            )?;
            // The round's margin: what each took in it so far (all of the stores in round 1;
            // from round 2 on, the position string's `C+T` says) plus the seeds still to take.
            let taken = state.taken_this_round();
            let me = i32::from(taken[side.index()]);
            let them = i32::from(taken[side.other().index()]);
            outln!(
                "final margin of the round, seeds taken in it included: {:+} for {side}",
                me - them + margin
            )?;
            Some(margin)
        }
        Some(Entry::Unknown) => {
            outln!(
                "value not determined (built with a small --budget; a later `pussa egtb \
                 build` builds the layer again): no move is marked best"
            )?;
            None
        }
        None => bail!("not covered by the tables"),
    };
    let mut moves = tables.move_values(&pos).unwrap_or_default();
    moves.sort_by_key(|m| std::cmp::Reverse(m.value.unwrap_or(i32::MIN)));
    for m in moves {
        let v = m.value.map_or("?".to_string(), |v| format!("{v:+}"));
        // Best only when known to be: the position's value and the move's both determined
        // and equal (the one move determined of a position not determined can be its worst).
        let mark = if is_best(value, m.value) == Some(true) {
            "  best"
        } else {
            ""
        };
        outln!("  {} {v:>4} (takes {:+} now){mark}", m.mv, m.gain)?;
    }
    Ok(())
}

/// `n` and the word, singular for 1: "1 seed", "4 seeds" (the tables' own wording).
pub(crate) use pussa_egtb::format::count as plural;

/// What `egtb verify` found wrong, over every game or pattern checked.
#[derive(Default)]
pub(crate) struct Problems {
    /// Table files missing below the largest one.
    pub missing: u64,
    /// Table files damaged, mismatched, or not files.
    pub damaged: u64,
    /// Positions whose stored value disagrees with the re-computed one.
    pub mismatches: u64,
    /// Positions stored as not determined in the layers re-computed (a small `--budget`).
    pub undetermined: u64,
    /// Samples without the history flag not proven exact for every history (they reach more
    /// than `HISTORY_LIMIT` positions).
    pub history_unchecked: u64,
    /// The first problem found, as a message naming the file.
    pub first: Option<String>,
}

impl Problems {
    /// Prints the problems of one directory check and the re-computed samples of its good
    /// layers from 0 up (the layers above a bad one cannot be re-computed: a position is
    /// re-computed from the layers below it). `files(k)` names the file(s) of layer `k`;
    /// `show` says which layers' samples to print.
    pub(crate) fn check(
        &mut self,
        check: &pussa_egtb::DirCheck,
        samples: u64,
        files: &dyn Fn(usize) -> String,
        show: &dyn Fn(usize, &pussa_egtb::VerifyReport) -> bool,
    ) -> anyhow::Result<()> {
        for l in &check.layers {
            for e in &l.problems {
                outln!(
                    "  {}: {}",
                    plural(l.seeds as u64, "seed", "seeds"),
                    with_advice(e)
                )?;
                if matches!(e, pussa_egtb::FormatError::Missing { .. }) {
                    self.missing += 1;
                } else {
                    self.damaged += 1;
                }
                self.first.get_or_insert_with(|| with_advice(e));
            }
        }
        let good = check.tables.as_ref().map_or(0, |t| t.max_seeds() + 1);
        if samples == 0 {
            // Nothing to re-compute: no line per layer.
            return Ok(());
        }
        if let Some(t) = &check.tables {
            for k in 0..=t.max_seeds() {
                let r = t.verify_layer(k, samples);
                if show(k, &r) {
                    let mut line = format!(
                        "  {}: {} of {} re-computed, {}",
                        plural(k as u64, "seed", "seeds"),
                        r.checked - r.unresolved,
                        plural(r.entries, "position", "positions"),
                        plural(r.mismatches, "mismatch", "mismatches")
                    );
                    if r.undetermined > 0 {
                        line += &format!(
                            "; {} not determined (built with a small --budget)",
                            plural(r.undetermined, "position", "positions")
                        );
                        if r.unresolved > 0 {
                            line += &format!(
                                ", {} of the samples left out (not determined, or depending on \
                                 one that is not)",
                                r.unresolved
                            );
                        }
                    } else if r.unresolved > 0 {
                        line += &format!(
                            "; {} not re-computed (the search ran out of nodes)",
                            plural(r.unresolved, "sample", "samples")
                        );
                    }
                    if r.history_unchecked > 0 {
                        line += &format!(
                            "; {} without the history flag not checked for every history (not \
                             proven locally, each reaching more than {} positions)",
                            plural(r.history_unchecked, "sample", "samples"),
                            pussa_egtb::HISTORY_LIMIT
                        );
                    }
                    outln!("{line}")?;
                }
                for m in &r.examples {
                    outln!("    {}", describe_mismatch(m))?;
                }
                if r.mismatches > 0 {
                    self.first.get_or_insert_with(|| {
                        format!(
                            "{}: {} of {} re-computed disagree with the stored values",
                            files(k),
                            r.mismatches,
                            plural(r.checked, "position", "positions")
                        )
                    });
                }
                self.mismatches += r.mismatches;
                self.undetermined += r.undetermined;
                self.history_unchecked += r.history_unchecked;
            }
        }
        if good == 0 {
            outln!("  nothing re-computed: a layer is re-computed from every layer below it")?;
        } else if good < check.layers.len() {
            outln!(
                "  {} and up not re-computed: a layer is re-computed from every layer below it",
                plural(good as u64, "seed", "seeds")
            )?;
        }
        Ok(())
    }

    /// Ok if nothing is wrong, else the one-line error: the first problem and the counts.
    pub(crate) fn result(&self) -> anyhow::Result<()> {
        let mut parts = Vec::new();
        if self.missing > 0 {
            parts.push(format!(
                "{} missing",
                plural(self.missing, "table file", "table files")
            ));
        }
        if self.damaged > 0 {
            parts.push(format!(
                "{} damaged, mismatched or not a file",
                plural(self.damaged, "table file", "table files")
            ));
        }
        if self.mismatches > 0 {
            parts.push(format!(
                "{} disagreeing with {} re-computed values",
                plural(self.mismatches, "position", "positions"),
                if self.mismatches == 1 { "its" } else { "their" }
            ));
        }
        match &self.first {
            None => Ok(()),
            Some(first) => bail!("{first} ({}; see above)", parts.join(", ")),
        }
    }
}

/// One line for a position whose stored entry disagrees with its re-computation: the position
/// string, the stored and the re-computed values.
fn describe_mismatch(m: &pussa_egtb::Mismatch) -> String {
    let pos = pussa_rules::Setup::from_position(&m.position, 1);
    let claim = format!(
        "{pos}: stored {:+} without the history flag (exact for any history), but",
        m.stored
    );
    match &m.history {
        None => format!(
            "{pos}: stored {:+}{}, re-computed {:+}",
            m.stored,
            if m.flagged { " (history flag)" } else { "" },
            m.recomputed
        ),
        Some(pussa_egtb::HistoryFault::Line { from, line }) => {
            let moves: Vec<String> = line.iter().map(ToString::to_string).collect();
            format!(
                "{claim} {:+} when the round came to it from {} by {} ({})",
                m.recomputed,
                pussa_rules::Setup::from_position(from, 1),
                moves.join(" "),
                plural(line.len() as u64, "move", "moves")
            )
        }
        Some(pussa_egtb::HistoryFault::Bounds { lo, hi, reachable }) => format!(
            "{claim} its bounds over the {} it can reach do not meet ({lo:+} to {hi:+}): \
             the history flag is missing",
            plural(*reachable, "position", "positions")
        ),
    }
}

/// The last line of a `verify` that found nothing wrong.
pub(crate) fn verified(what: &str, samples: u64, problems: &Problems) -> anyhow::Result<()> {
    let unchecked = if problems.history_unchecked > 0 {
        format!(
            " ({} without the history flag not checked for every history: not proven locally, \
             each reaching more than {} positions)",
            plural(problems.history_unchecked, "sample", "samples"),
            pussa_egtb::HISTORY_LIMIT
        )
    } else {
        String::new()
    };
    if samples == 0 {
        outln!("{what}: files checked; no positions re-computed (--samples 0)")?;
    } else if problems.undetermined > 0 {
        outln!(
            "{what} verified, but {} not determined (built with a small --budget: `pussa egtb \
             build` builds those layers again){unchecked}",
            plural(problems.undetermined, "position is", "positions are")
        )?;
    } else {
        outln!("{what} verified{unchecked}")?;
    }
    Ok(())
}

fn verify(game: Option<Game>, dir: &std::path::Path, samples: u64) -> anyhow::Result<()> {
    let open = pussa_egtb::Pattern::OPEN;
    let games: Vec<Game> = match game {
        Some(g) => vec![g],
        None => Game::ALL
            .into_iter()
            .filter(|&g| !pussa_egtb::format::table_files(dir, g, open).is_empty())
            .collect(),
    };
    // A file where the directory, or a game's directory, should be: said as such.
    let checked = game.map_or_else(|| Game::ALL.to_vec(), |g| vec![g]);
    if let Some(e) = checked
        .iter()
        .find_map(|&g| pussa_egtb::format::dir_problem(dir, g))
    {
        return Err(e.into());
    }
    if games.is_empty() {
        if !dir.is_dir() {
            bail!("{} is not a directory of tables", dir.display());
        }
        bail!("no tables under {}", dir.display());
    }
    let mut problems = Problems::default();
    for g in games {
        let check = Tables::check_dir(dir, g, open);
        if check.layers.is_empty() {
            // Only with --game: say why, as opening the tables would.
            Tables::open(dir, g, None)?;
        }
        let top = check.top();
        let bad = check.bad_layers();
        if bad == 0 {
            outln!("{g}: files 0..={top} present, headers and checksums good")?;
        } else {
            outln!(
                "{g}: files 0..={top}: {} of {} missing or bad",
                bad,
                plural(check.layers.len() as u64, "layer", "layers")
            )?;
        }
        let files = |k| {
            pussa_egtb::format::table_path(dir, g, k)
                .display()
                .to_string()
        };
        problems.check(&check, samples, &files, &|_, _| true)?;
    }
    problems.result()?;
    verified("all tables", samples, &problems)
}

/// `--max-seeds` of `solve` and `match`, a cap: the largest seed count up to which the files of
/// every pattern of `wanted` that has files (each with its mirror; `(directory, pattern)`) are
/// there from 0 up, if `max` is above it (said on stderr when every pattern has files: else
/// opening the tables says what is missing); `max` itself otherwise.
pub(crate) fn cap_max_seeds(
    game: Game,
    wanted: &[(&std::path::Path, pussa_egtb::Pattern)],
    max: Option<usize>,
) -> Option<usize> {
    let m = max?;
    let tops: Vec<Option<usize>> = wanted
        .iter()
        .map(|&(dir, p)| {
            // Anything at a file's path counts (opening it then says what is wrong with it).
            let there = |k| {
                [p, p.flipped()].iter().all(|&q| {
                    std::fs::symlink_metadata(pussa_egtb::format::pattern_path(dir, game, q, k))
                        .is_ok()
                })
            };
            (0..=m).take_while(|&k| there(k)).last()
        })
        .collect();
    match tops.iter().flatten().min() {
        Some(&top) if top < m => {
            // A pattern without files: the opening names what is missing, on its own line.
            if tops.iter().all(Option::is_some) {
                errln!(
                    "--max-seeds {m}: the tables go up to {}; using them up to {top}",
                    plural(top as u64, "seed", "seeds")
                );
            }
            Some(top)
        }
        _ => Some(m),
    }
}

fn solve(
    game: Game,
    per_hole: Option<u8>,
    position: Option<&str>,
    dir: &std::path::Path,
    nodes: u64,
    max_seeds: Option<usize>,
    json: bool,
) -> anyhow::Result<()> {
    let mut setup = None;
    // With --position: the seeds each side took in the round so far (for its final margin).
    let mut taken = None;
    let (pos, what) = match (per_hole, position) {
        (_, Some(p)) => {
            let state = parse_position(game, p)?;
            if state.is_round_over() {
                bail!("the round is over in this position: there is nothing to solve");
            }
            setup = Some(Setup::from_state(&state));
            taken = Some(state.taken_this_round());
            (*state.position(), "the position".to_string())
        }
        (Some(s), None) if s != game.seeds_per_hole() => (
            pussa_egtb::solve::reduced_start(game, s, pussa_rules::Side::South),
            format!(
                "{game} with {} a hole ({} seeds)",
                plural(s, "seed", "seeds"),
                14 * u32::from(s)
            ),
        ),
        _ => (
            pussa_rules::Position::start(game),
            format!("the start of {game}"),
        ),
    };
    let t0 = Instant::now();
    let pattern = if pos.closed_mask() == 0 {
        pussa_egtb::Pattern::OPEN
    } else {
        // A match round: the tables of its closed holes (built with `--closed`).
        pussa_egtb::Pattern::of_position(&pos)
            .context("the position's closed holes are not a closing of the game")?
    };
    let max_seeds = cap_max_seeds(game, &[(dir, pattern)], max_seeds);
    // No layer above the position's seeds is used: a missing table's advice builds no more
    // (the start of a full game keeps the library's suggestion).
    let tables = Tables::open_pattern(dir, game, pattern, max_seeds)
        .map_err(|e| e.needing_at_most(pos.seeds_on_board() as usize))?;
    let load = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let mut solver = pussa_egtb::solve::Solver::new(&tables, nodes);
    let sol = solver.solve(&pos).with_context(|| {
        format!(
            "{what}: not solved with tables 0..={} and {}",
            tables.max_seeds(),
            plural(nodes, "node", "nodes")
        )
    })?;
    let side = pos.to_move();
    if json {
        let setup = setup.unwrap_or_else(|| Setup::from_position(&pos, 1));
        let taken = setup.taken;
        let so_far = i32::from(taken[side.index()]) - i32::from(taken[side.other().index()]);
        let out = SolveJson {
            game: game.name(),
            position: setup.to_string(),
            to_move: if side == Side::South { "S" } else { "N" },
            taken,
            value: so_far + sol.value,
            future: sol.value,
            history: "starts_here",
            pv: sol.pv.iter().map(|h| h.letter().to_string()).collect(),
            nodes: sol.nodes,
            tables_max_seeds: tables.max_seeds(),
        };
        outln!("{}", serde_json::to_string(&out)?)?;
        return Ok(());
    }
    // A position's value is the seeds still to be taken, as `egtb probe` labels it (at a
    // start nothing is taken yet: it is the round's final margin).
    let who = if position.is_some() {
        format!("to move; future seeds, {side} minus opponent")
    } else {
        "the first player".to_string()
    };
    outln!(
        "{what}: value {:+} for {side} ({who}), tables 0..={}, {}, {:.2} s (tables opened in {load:.2} s)",
        sol.value,
        tables.max_seeds(),
        plural(sol.nodes, "node", "nodes"),
        t1.elapsed().as_secs_f64()
    )?;
    if let Some(taken) = taken {
        // As `egtb probe`: what each took in the round so far plus the seeds still to take.
        let me = i32::from(taken[side.index()]);
        let them = i32::from(taken[side.other().index()]);
        outln!(
            "final margin of the round, seeds taken in it included: {:+} for {side}",
            me - them + sol.value
        )?;
    }
    let pv: Vec<String> = sol.pv.iter().map(ToString::to_string).collect();
    outln!(
        "principal variation ({}): {}",
        plural(pv.len() as u64, "move", "moves"),
        pv.join(" ")
    )?;
    Ok(())
}

/// The command-line advice for an error of the tables, to follow its message: the library
/// describes the problem and says what would fix it ([`pussa_egtb::Remedy`]); `pussa` names
/// the command that does it. Empty when there is none.
pub(crate) fn advice(e: &pussa_egtb::FormatError) -> String {
    remedy_advice(e.remedy())
}

/// The command-line advice for what fixes an error of the tables ([`pussa_egtb::Remedy`]):
/// the `pussa` command that does it, in parentheses after a blank. Empty when there is none.
pub(crate) fn remedy_advice(remedy: Option<&pussa_egtb::Remedy>) -> String {
    match remedy {
        Some(pussa_egtb::Remedy::Build {
            dir,
            game,
            pattern,
            max_seeds,
            again,
        }) => {
            let mut cmd = format!(
                "pussa egtb build --game {game} --max-seeds {max_seeds} --dir {}",
                dir.display()
            );
            if !pattern.is_open() {
                cmd.push_str(&format!(" --closed {}", &pattern.dir_name()[1..]));
            }
            if *again {
                format!(" (`{cmd}` builds the missing layers again)")
            } else {
                format!(" (build them with `{cmd}`)")
            }
        }
        Some(pussa_egtb::Remedy::DeleteOrRebuild) => " (delete it or build with --rebuild)".into(),
        Some(pussa_egtb::Remedy::Verify) => " (run `pussa egtb verify`)".into(),
        _ => String::new(),
    }
}

/// An error of the tables as `pussa` shows it: its message and the command-line [`advice`].
pub(crate) fn with_advice(e: &pussa_egtb::FormatError) -> String {
    format!("{e}{}", advice(e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pussa_engine::{search, Limits};
    use pussa_rules::{GameState, Position, Side};

    /// With the tables plugged in, the engine's search proves the tables' value at once.
    #[test]
    fn the_engine_search_proves_table_values_through_the_oracle() {
        let game = Game::RajaPasu;
        let tables = Tables::build_in_memory(game, 8, BuildOptions::default(), &|_| {});
        let oracle: std::sync::Arc<dyn pussa_engine::ExactOracle> =
            std::sync::Arc::new(pussa_egtb::TablesOracle(Tables::from_layers(
                game,
                (0..=8).map(|k| tables.layer(k).to_vec()).collect(),
            )));
        let mut checked = 0;
        for idx in (0..pussa_egtb::index::layer_size(8)).step_by(9973) {
            let b = pussa_egtb::index::unrank(8, idx);
            let pos = Position::from_parts_unchecked(game, b, 0, [0, 0], Side::South);
            let state = GameState::from_position(pos, Mode::Single, 1, Side::South);
            if state.is_round_over() {
                continue;
            }
            let want = tables.probe_fresh(&pos).expect("determined");
            let limits = Limits {
                depth: Some(24),
                oracle: Some(oracle.clone()),
                ..Limits::default()
            };
            let r = search(&state, &limits, &mut |_| {});
            if r.exact {
                assert_eq!(r.score, want, "{b:?}");
                checked += 1;
            }
        }
        assert!(checked > 10, "only {checked} searches proved their value");
    }

    /// The subcommands end to end on a small build: build, probe, solve, verify; a damaged
    /// file makes verify and probe fail with an error naming the file.
    #[test]
    fn build_probe_solve_verify_and_refuse_a_damaged_file() {
        let dir = std::env::temp_dir().join(format!("pussa-cli-egtb-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let game = Game::PasuPondi;
        let sub = |command| run(Args { command });
        sub(Sub::Build {
            game,
            max_seeds: 6,
            dir: dir.clone(),
            rebuild: false,
            budget: 1 << 20,
            quiet: true,
            closed: None,
        })
        .expect("build");
        let pos = "0,1,0,2,0,0,0/1,0,0,0,1,0,0 65 0 S 1 pasu-pondi".to_string();
        sub(Sub::Probe {
            game: Some(game),
            position: pos.clone(),
            dir: dir.clone(),
            closed_dir: None,
            json: false,
        })
        .expect("probe");
        let too_many = "5,5,5,5,5,5,5/5,5,5,5,5,5,5 0 0 S 1 pasu-pondi".to_string();
        let e = sub(Sub::Probe {
            game: None,
            position: too_many,
            dir: dir.clone(),
            closed_dir: None,
            json: false,
        })
        .unwrap_err();
        let e = format!("{e:#}");
        assert!(
            e.starts_with("70 seeds on the board: no tables can reach this position")
                && e.contains("built up to 24 seeds at most")
                && !e.contains("build the tables to")
                && e.contains("go up to 6 seeds"),
            "{e}"
        );
        // Within the builder's reach, the advice is to build the tables that far.
        let e = sub(Sub::Probe {
            game: None,
            position: "0,1,0,2,0,0,0/1,0,0,0,1,0,5 60 0 S 1 pasu-pondi".to_string(),
            dir: dir.clone(),
            closed_dir: None,
            json: false,
        })
        .unwrap_err();
        let e = format!("{e:#}");
        assert!(
            e.starts_with("10 seeds on the board (build the tables to 10"),
            "{e}"
        );
        sub(Sub::Solve {
            game: None,
            seeds_per_hole: None,
            position: Some("0,1,0,2,0,0,0/1,0,0,0,1,0,2 63 0 S 1 pasu-pondi".into()),
            dir: dir.clone(),
            nodes: 1_000_000,
            max_seeds: Some(4),
            json: false,
        })
        .expect("solve above the tables");
        sub(Sub::Verify {
            game: None,
            dir: dir.clone(),
            samples: 100,
            closed: false,
        })
        .expect("verify");
        let f = pussa_egtb::format::table_path(&dir, game, 5);
        let mut bytes = std::fs::read(&f).unwrap();
        let n = bytes.len();
        bytes[n - 1] ^= 0x01;
        std::fs::write(&f, bytes).unwrap();
        let e = sub(Sub::Verify {
            game: Some(game),
            dir: dir.clone(),
            samples: 100,
            closed: false,
        })
        .unwrap_err();
        assert!(
            format!("{e:#}").contains("5.pegtb: payload checksum mismatch"),
            "{e:#}"
        );
        let e = sub(Sub::Probe {
            game: None,
            position: pos,
            dir: dir.clone(),
            closed_dir: None,
            json: false,
        })
        .unwrap_err();
        assert!(format!("{e:#}").contains("checksum mismatch"), "{e:#}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
