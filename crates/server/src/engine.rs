//! The server's use of the engine: the computer's moves (by level) and hints, with the endgame
//! tables of the game when the server has them ([`crate::Server::use_tables`]).

use std::sync::Arc;
use std::time::Duration;

use pussa_engine::{choose_move_with_oracle, search, ExactOracle, Level, Limits};
use pussa_rules::{Game, GameState, Hole, Mode};
use serde_json::{json, Value};

/// Time a hint may take.
pub const HINT_TIME: Duration = Duration::from_millis(700);

/// Checks a level name or number for `game` played as `mode` and returns its canonical name.
///
/// # Errors
/// The engine's message for an unknown level, or for one that is not on the ladder of that
/// game and mode.
pub fn check_level(s: &str, game: Game, mode: Mode) -> Result<String, String> {
    s.parse::<Level>()
        .map_err(|e| e.to_string())?
        .offered(game, mode)
        .map(|l| l.name().to_string())
        .map_err(|e| e.to_string())
}

/// Every level for `GET /api/meta`.
#[must_use]
pub fn levels_json() -> Value {
    Value::Array(
        Level::ALL
            .iter()
            .map(
                |l| json!({"name": l.name(), "number": l.number(), "description": l.description()}),
            )
            .collect(),
    )
}

/// The ladders of `game` for `GET /api/meta`: for `single` and `match`, the names of the levels
/// offered, weakest first, and the default.
#[must_use]
pub fn ladders_json(game: Game) -> Value {
    let one = |mode| {
        json!({
            "levels": Level::ladder(game, mode).iter().map(|l| l.name()).collect::<Vec<_>>(),
            "default": Level::default_for(game, mode).name(),
        })
    };
    json!({"single": one(Mode::Single), "match": one(Mode::Match)})
}

/// A seed for the computer's move number `ply` in game `id`: the same game replays the same way.
#[must_use]
pub fn seed_for(id: &str, ply: usize) -> u64 {
    // FNV-1a over the id, mixed with the ply.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in id.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    h ^ (ply as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// The computer's move at `level` (a name checked by [`check_level`]); the levels from club up
/// use `oracle` (the game's endgame tables) where it has exact values.
///
/// # Errors
/// An unknown level, or no move expected.
pub fn choose(
    state: &GameState,
    level: &str,
    seed: u64,
    oracle: Option<Arc<dyn ExactOracle>>,
) -> Result<Hole, String> {
    let level: Level = level
        .parse()
        .map_err(|e: pussa_engine::ParseLevelError| e.to_string())?;
    choose_move_with_oracle(state, level, seed, oracle)
        .ok_or_else(|| "no move is expected".to_string())
}

/// The engine's best move for the side to move, as the hint JSON; the search uses `oracle`
/// (the game's endgame tables) where it has exact values.
///
/// # Errors
/// When no move is expected.
pub fn hint(state: &GameState, oracle: Option<Arc<dyn ExactOracle>>) -> Result<Value, String> {
    let limits = Limits {
        movetime: Some(HINT_TIME),
        threads: 1,
        oracle,
        ..Limits::default()
    };
    let r = search(state, &limits, &mut |_| {});
    let best = r.best.ok_or_else(|| "no move is expected".to_string())?;
    Ok(json!({
        "move": best.letter().to_string(),
        "score": r.score,
        "exact": r.exact,
        "pv": r.pv.iter().map(|h| h.letter().to_string()).collect::<Vec<_>>(),
        "depth": r.depth,
    }))
}
