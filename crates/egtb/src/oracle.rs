//! The tables as the engine's exact-value oracle ([`pussa_engine::ExactOracle`]), for every
//! place the computer plays: `pussa analyze`, `pussa play`, `pussa serve`, `pussa tournament`
//! and `pussa engine`.
//!
//! - [`TablesOracle`]: tables already open (checked), e.g. built in memory.
//! - [`oracle`]: opens and checks a game's tables now (every file's header and checksum: a few
//!   seconds for the largest tables) — for tournaments and analysis, where the result must not
//!   depend on timing.
//! - [`LazyTablesOracle`]: checks only the files' headers at once (memory maps, milliseconds),
//!   and verifies the payloads (checksums) in a background thread the first time a position in
//!   the tables' range is asked for, or when [`LazyTablesOracle::start_loading`] says so. Until
//!   the tables are verified it answers nothing, so the search simply searches: a damaged file
//!   is never trusted. For the server and the terminal game, which must start at once.
//!
//! # Examples
//! ```
//! use std::sync::Arc;
//! use pussa_egtb::{oracle::TablesOracle, BuildOptions, Tables};
//! use pussa_engine::{choose_move_with_oracle, ExactOracle, Level};
//! use pussa_rules::{Game, GameState, Mode, Position, Side};
//! let tables = Tables::build_in_memory(Game::RajaPasu, 4, BuildOptions::default(), &|_| {});
//! let oracle: Arc<dyn ExactOracle> = Arc::new(TablesOracle(tables));
//! let mut board = [0u8; 14];
//! board[5] = 2;
//! board[9] = 2;
//! let pos = Position::from_parts_unchecked(Game::RajaPasu, board, 0, [47, 47], Side::South);
//! let state = GameState::from_position(pos, Mode::Single, 1, Side::South);
//! let mv = choose_move_with_oracle(&state, Level::Club, 1, Some(oracle)).unwrap();
//! assert!(state.legal_moves().contains(mv));
//! ```

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use pussa_engine::ExactOracle;
use pussa_rules::{Game, Position};

use crate::format::{table_path, FormatError, Header};
use crate::{Pattern, Tables};

/// The endgame tables as the engine's exact-value oracle: `probe` (asked right after a move
/// that took seeds, where the round's repetition history starts afresh) reads any determined
/// entry ([`Tables::probe_fresh`]), `probe_any_history` only the entries whose value holds
/// whatever positions came before ([`Tables::probe`]).
pub struct TablesOracle(pub Tables);

impl ExactOracle for TablesOracle {
    fn probe(&self, pos: &Position) -> Option<i32> {
        self.0.probe_fresh(pos)
    }

    fn probe_any_history(&self, pos: &Position) -> Option<i32> {
        self.0.probe(pos)
    }

    fn probe_with_history(&self, pos: &Position, history: &[u128]) -> Option<i32> {
        self.0
            .probe_with_history_within(pos, history, HISTORY_PROBE_NODES)
    }

    fn solve(&self, pos: &Position) -> Option<i32> {
        solve_value(&self.0, pos)
    }
}

/// Nodes the tables' search over a history ([`ExactOracle::probe_with_history`],
/// [`Tables::probe_with_history_within`]) may take before it gives up (the engine's search
/// then searches the position itself): a bound on what one probe can cost a timed search.
pub const HISTORY_PROBE_NODES: u64 = 1 << 18;

/// Nodes a [`ExactOracle::solve`] may search before it gives up.
pub const SOLVE_NODES: u64 = 5_000_000;

/// `pos` solved over `tables` ([`crate::solve::Solver::value`], at most [`SOLVE_NODES`]).
fn solve_value(tables: &Tables, pos: &Position) -> Option<i32> {
    crate::solve::Solver::new(tables, SOLVE_NODES)
        .value(pos)
        .ok()
}

/// True if `dir` holds tables of `game` (its 0-seed file exists).
#[must_use]
pub fn has_tables(dir: &Path, game: Game) -> bool {
    table_path(dir, game, 0).exists()
}

/// The tables of `game` under `dir` (every file from 0 seeds up, opened and fully checked now)
/// as an oracle for [`pussa_engine::Limits::oracle`], with the closed-hole tables built there
/// (`pussa egtb build --closed`: every pattern with a file under `dir`, also checked now) for
/// the positions with closed holes; `Ok(None)` if there are no open-board tables of `game`
/// there.
///
/// # Errors
/// A damaged, truncated or mismatched table file (open or closed-hole), a directory or a
/// file where the other should be, or a layer missing below a file of more seeds
/// ([`FormatError`] names the file).
pub fn oracle(game: Game, dir: &Path) -> Result<Option<Arc<dyn ExactOracle>>, FormatError> {
    if let Some(e) = crate::format::dir_problem(dir, game) {
        return Err(e);
    }
    if !has_tables(dir, game) {
        // No 0-seed file: no tables, unless files of more seeds are there (a gap).
        crate::tables::refuse_gap(dir, game, Pattern::OPEN, 0)?;
        return Ok(None);
    }
    let tables = Tables::open(dir, game, None)?;
    let mut closed = Vec::new();
    for a in 0..=6u8 {
        for b in 0..=a {
            let p = Pattern::new(a, b);
            let has = |p| !crate::format::table_files(dir, game, p).is_empty();
            if !p.is_open() && (has(p) || has(p.flipped())) {
                closed.push(Tables::open_pattern(dir, game, p, None)?);
            }
        }
    }
    if closed.is_empty() {
        return Ok(Some(Arc::new(TablesOracle(tables))));
    }
    Ok(Some(Arc::new(PatternsOracle {
        open: tables,
        closed,
    })))
}

/// The open-board tables and closed-hole tables of one game as one oracle: each position is
/// answered by the tables of its closed holes (as [`TablesOracle`]), nothing where there are
/// none.
struct PatternsOracle {
    open: Tables,
    closed: Vec<Tables>,
}

impl PatternsOracle {
    fn tables(&self, pos: &Position) -> Option<&Tables> {
        if pos.closed_mask() == 0 {
            return Some(&self.open);
        }
        self.closed.iter().find(|t| t.has_pattern_of(pos))
    }
}

impl ExactOracle for PatternsOracle {
    fn probe(&self, pos: &Position) -> Option<i32> {
        self.tables(pos)?.probe_fresh(pos)
    }

    fn probe_any_history(&self, pos: &Position) -> Option<i32> {
        self.tables(pos)?.probe(pos)
    }

    fn probe_with_history(&self, pos: &Position, history: &[u128]) -> Option<i32> {
        self.tables(pos)?
            .probe_with_history_within(pos, history, HISTORY_PROBE_NODES)
    }

    fn solve(&self, pos: &Position) -> Option<i32> {
        solve_value(self.tables(pos)?, pos)
    }
}

/// Where a [`LazyTablesOracle`] stands.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LoadStatus {
    /// Headers checked; the payloads are not verified yet (nothing asked for them).
    Waiting,
    /// The payloads are being verified in the background.
    Loading,
    /// Verified and in use.
    Ready,
    /// Verification failed: the tables are not used. The message names the file.
    Failed(String),
}

/// Told, from the background thread, when a game's payloads are verified (with the largest
/// seed count) or refused.
pub type OnDone = Box<dyn Fn(Game, Result<usize, &FormatError>) + Send + Sync>;

struct Inner {
    game: Game,
    dir: PathBuf,
    max_seeds: usize,
    started: AtomicBool,
    loaded: OnceLock<Result<Tables, FormatError>>,
    on_done: Option<OnDone>,
}

impl Inner {
    fn load(&self) {
        let r = Tables::open(&self.dir, self.game, Some(self.max_seeds));
        let _ = self.loaded.set(r);
        if let (Some(f), Some(r)) = (&self.on_done, self.loaded.get()) {
            f(self.game, r.as_ref().map(Tables::max_seeds));
        }
    }
}

/// A game's tables opened cheaply: the headers of every file are checked at once (memory maps,
/// no payload read), the payloads are verified (checksums, value bytes) in a background thread
/// on first need, and until then, or if that fails, the oracle answers nothing. Cloning shares
/// the tables.
#[derive(Clone)]
pub struct LazyTablesOracle {
    inner: Arc<Inner>,
}

impl LazyTablesOracle {
    /// Checks the headers of `game`'s files `0.pegtb`, `1.pegtb`, … under `dir` (as many as
    /// there are from 0 up); `Ok(None)` if there are no tables of `game` there. `on_done` is
    /// called from the background thread once the payloads are verified (with the largest seed
    /// count) or refused.
    ///
    /// # Errors
    /// A file that cannot be read or whose header is wrong (another game, seed count, version,
    /// size), or a layer missing below a file of more seeds, naming the file.
    pub fn open(
        dir: &Path,
        game: Game,
        on_done: Option<OnDone>,
    ) -> Result<Option<LazyTablesOracle>, FormatError> {
        if !has_tables(dir, game) {
            // No 0-seed file: no tables, unless files of more seeds are there (a gap).
            crate::tables::refuse_gap(dir, game, Pattern::OPEN, 0)?;
            return Ok(None);
        }
        let mut k = 0;
        while table_path(dir, game, k).exists() {
            let path = table_path(dir, game, k);
            let Some(map) = crate::format::map_table(&path)? else {
                break;
            };
            Header::parse(&map, &path, game, k)?;
            k += 1;
        }
        // Layers run from 0 without a gap: one missing below a file is refused.
        crate::tables::refuse_gap(dir, game, Pattern::OPEN, k)?;
        Ok(Some(LazyTablesOracle {
            inner: Arc::new(Inner {
                game,
                dir: dir.to_path_buf(),
                max_seeds: k - 1,
                started: AtomicBool::new(false),
                loaded: OnceLock::new(),
                on_done,
            }),
        }))
    }

    /// The game.
    #[must_use]
    pub fn game(&self) -> Game {
        self.inner.game
    }

    /// The largest seed count of the files found.
    #[must_use]
    pub fn max_seeds(&self) -> usize {
        self.inner.max_seeds
    }

    /// Starts verifying the payloads in a background thread (once; later calls do nothing).
    pub fn start_loading(&self) {
        // A plain load first: the search asks at many nodes, and a swap would write the shared
        // flag every time.
        if self.inner.started.load(Ordering::Acquire)
            || self.inner.started.swap(true, Ordering::AcqRel)
        {
            return;
        }
        let inner = Arc::clone(&self.inner);
        let spawned = std::thread::Builder::new()
            .name(format!("egtb-{}", inner.game.name()))
            .spawn(move || inner.load());
        if spawned.is_err() {
            // No thread to be had: verify here rather than never.
            self.inner.load();
        }
    }

    /// Verifies the payloads now if that has not been done (waits for a background
    /// verification already running) and returns the tables.
    ///
    /// # Errors
    /// The verification failed: the file and the problem.
    pub fn wait(&self) -> Result<&Tables, &FormatError> {
        if !self.inner.started.swap(true, Ordering::AcqRel) {
            self.inner.load();
        }
        loop {
            if let Some(r) = self.inner.loaded.get() {
                return r.as_ref();
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }

    /// Where the tables stand.
    #[must_use]
    pub fn status(&self) -> LoadStatus {
        match self.inner.loaded.get() {
            Some(Ok(_)) => LoadStatus::Ready,
            Some(Err(e)) => LoadStatus::Failed(e.to_string()),
            None if self.inner.started.load(Ordering::Acquire) => LoadStatus::Loading,
            None => LoadStatus::Waiting,
        }
    }

    /// The verified tables, if they are ready; a position within their range starts the
    /// verification.
    fn tables_for(&self, pos: &Position) -> Option<&Tables> {
        if let Some(r) = self.inner.loaded.get() {
            return r.as_ref().ok();
        }
        if pos.game() == self.inner.game
            && pos.closed_mask() == 0
            && pos.seeds_on_board() as usize <= self.inner.max_seeds
        {
            self.start_loading();
        }
        None
    }
}

impl ExactOracle for LazyTablesOracle {
    fn probe(&self, pos: &Position) -> Option<i32> {
        self.tables_for(pos)?.probe_fresh(pos)
    }

    fn probe_any_history(&self, pos: &Position) -> Option<i32> {
        self.tables_for(pos)?.probe(pos)
    }

    fn probe_with_history(&self, pos: &Position, history: &[u128]) -> Option<i32> {
        self.tables_for(pos)?
            .probe_with_history_within(pos, history, HISTORY_PROBE_NODES)
    }

    fn solve(&self, pos: &Position) -> Option<i32> {
        if pos.game() != self.inner.game || pos.closed_mask() != 0 {
            return None;
        }
        self.start_loading();
        solve_value(self.inner.loaded.get()?.as_ref().ok()?, pos)
    }
}

/// A directory of tables for every game, opened lazily ([`LazyTablesOracle`]): what the server
/// and the terminal game hold.
#[derive(Clone, Default)]
pub struct TablesDir {
    games: Vec<LazyTablesOracle>,
}

impl TablesDir {
    /// Checks the headers of every game's tables under `dir` (games without tables are left
    /// out). `on_done` is told when a game's payloads are verified or refused.
    ///
    /// # Errors
    /// A table file that cannot be read or whose header is wrong, naming the file.
    pub fn open(
        dir: &Path,
        on_done: impl Fn(Game, Result<usize, &FormatError>) + Send + Sync + Clone + 'static,
    ) -> Result<TablesDir, FormatError> {
        let mut games = Vec::new();
        for game in Game::ALL {
            if let Some(o) = LazyTablesOracle::open(dir, game, Some(Box::new(on_done.clone())))? {
                games.push(o);
            }
        }
        Ok(TablesDir { games })
    }

    /// The games with tables and the largest seed count of each.
    #[must_use]
    pub fn games(&self) -> Vec<(Game, usize)> {
        self.games
            .iter()
            .map(|o| (o.game(), o.max_seeds()))
            .collect()
    }

    /// True if no game has tables.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.games.is_empty()
    }

    /// The tables of `game`, if any.
    #[must_use]
    pub fn get(&self, game: Game) -> Option<&LazyTablesOracle> {
        self.games.iter().find(|o| o.game() == game)
    }

    /// The oracle of `game` for [`pussa_engine::Limits::oracle`], if it has tables.
    #[must_use]
    pub fn oracle(&self, game: Game) -> Option<Arc<dyn ExactOracle>> {
        self.get(game)
            .map(|o| Arc::new(o.clone()) as Arc<dyn ExactOracle>)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{build_dir, BuildOptions};
    use pussa_rules::Side;

    fn temp(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("pussa-oracle-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    fn position(game: Game, board: [u8; 14]) -> Position {
        let on_board: u8 = board.iter().sum();
        let rest = game.seeds_per_hole() * 14 - on_board;
        Position::from_parts_unchecked(game, board, 0, [rest / 2, rest - rest / 2], Side::South)
    }

    /// The lazy oracle answers nothing before its tables are verified, starts verifying on a
    /// position in range, then answers exactly like the tables.
    #[test]
    fn lazy_oracle_verifies_on_first_need_then_answers_like_the_tables() {
        let dir = temp("lazy");
        let game = Game::WalakPussa;
        let tables = build_dir(
            &dir,
            game,
            5,
            BuildOptions::default(),
            false,
            &|_| {},
            &mut |_| {},
        )
        .unwrap();
        let o = LazyTablesOracle::open(&dir, game, None).unwrap().unwrap();
        assert_eq!(o.max_seeds(), 5);
        assert_eq!(o.status(), LoadStatus::Waiting);
        let mut board = [0u8; 14];
        board[0] = 40;
        // Out of range: nothing, and no loading.
        assert_eq!(o.probe(&position(game, board)), None);
        assert_eq!(o.status(), LoadStatus::Waiting);
        board[0] = 2;
        board[8] = 1;
        let pos = position(game, board);
        let first = o.probe(&pos);
        assert_ne!(o.status(), LoadStatus::Waiting);
        assert!(first.is_none() || first == tables.probe_fresh(&pos));
        o.wait().expect("verified");
        assert_eq!(o.status(), LoadStatus::Ready);
        assert_eq!(o.probe(&pos), tables.probe_fresh(&pos));
        assert!(o.probe(&pos).is_some());
        assert_eq!(o.probe_any_history(&pos), tables.probe(&pos));
        // Another game's position: nothing.
        assert_eq!(o.probe(&position(Game::RajaPasu, board)), None);
        // No tables at all: None; an empty directory of games.
        assert!(LazyTablesOracle::open(&dir, Game::RajaPasu, None)
            .unwrap()
            .is_none());
        let all = TablesDir::open(&dir, |_, _| {}).unwrap();
        assert_eq!(all.games(), vec![(game, 5)]);
        assert!(all.oracle(Game::PasuPondi).is_none());
        std::fs::remove_dir_all(&dir).ok();
    }

    /// A file whose header is wrong is refused at once with its name; a damaged payload is
    /// refused by the verification, and the oracle then never answers.
    #[test]
    fn damaged_files_are_refused_never_trusted() {
        let dir = temp("damaged");
        let game = Game::PasuPondi;
        build_dir(
            &dir,
            game,
            4,
            BuildOptions::default(),
            false,
            &|_| {},
            &mut |_| {},
        )
        .unwrap();
        // Payload damage: the headers pass, the verification fails.
        let f = table_path(&dir, game, 4);
        let mut bytes = std::fs::read(&f).unwrap();
        let n = bytes.len();
        bytes[n - 1] ^= 0x01;
        std::fs::write(&f, &bytes).unwrap();
        let told = Arc::new(std::sync::Mutex::new(Vec::new()));
        let t2 = Arc::clone(&told);
        let o = LazyTablesOracle::open(
            &dir,
            game,
            Some(Box::new(move |g, r| {
                t2.lock().unwrap().push((g, r.map_err(ToString::to_string)));
            })),
        )
        .unwrap()
        .unwrap();
        let e = o.wait().map(|_| ()).unwrap_err().to_string();
        assert!(e.contains("4.pegtb") && e.contains("checksum"), "{e}");
        assert!(matches!(o.status(), LoadStatus::Failed(m) if m.contains("checksum")));
        let mut board = [0u8; 14];
        board[1] = 1;
        board[9] = 1;
        assert_eq!(o.probe(&position(game, board)), None);
        let told = told.lock().unwrap().clone();
        assert_eq!(told.len(), 1);
        assert!(told[0].1.as_ref().is_err_and(|m| m.contains("checksum")));
        // The eager oracle refuses it too, with the file's name.
        let e = oracle(game, &dir).map(|_| ()).unwrap_err().to_string();
        assert!(e.contains("4.pegtb"), "{e}");
        // Truncated: the header check refuses it at once.
        std::fs::write(&f, &bytes[..n - 10]).unwrap();
        let e = LazyTablesOracle::open(&dir, game, None)
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(e.contains("4.pegtb") && e.contains("truncated"), "{e}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
