//! A small game runner: plays whole games or matches between two [`Player`]s. Used to measure
//! the levels against each other and by `pussa tournament`.

use pussa_rules::{Game, GameState, Hole, Mode, Rng, RoundResult, Side, Status};

use crate::{choose_move, mcts, search, Level, Limits};

/// Anything that can choose a move: a built-in level or search, or an external engine.
pub trait Player {
    /// A short name for reports.
    fn name(&self) -> String;

    /// The move to play in `state` (where a move is expected).
    ///
    /// # Errors
    /// A message when the player cannot answer (an external engine that crashed, timed out or
    /// sent garbage).
    fn choose(&mut self, state: &GameState) -> Result<Hole, String>;
}

/// The built-in players.
#[derive(Clone, Debug)]
pub enum Builtin {
    /// A level of the ladder, with a seed for its random choices.
    Level(Level, u64),
    /// The alpha-beta search with these limits.
    Search(Limits),
    /// UCT with these limits (nodes = playouts).
    Mcts(Limits),
    /// The move with the largest net capture ([`greedy_net_capture`]: seeds taken by the mover
    /// minus by the opponent during the sowing, no round-end sweep); ties go to the first in
    /// board order. Not the `greedy` player of `pussa tournament`
    /// ([`crate::tournament::greedy_most_held`]), which counts the seeds held after the move and
    /// breaks ties at random. Named `greedy-net-capture` in reports.
    GreedyNetCapture,
    /// A uniformly random legal move.
    Random(u64),
}

impl Player for Builtin {
    fn name(&self) -> String {
        match self {
            Builtin::Level(l, _) => l.name().to_string(),
            Builtin::Search(l) => format!("search{l:?}"),
            Builtin::Mcts(l) => format!("mcts{l:?}"),
            Builtin::GreedyNetCapture => "greedy-net-capture".to_string(),
            Builtin::Random(_) => "random".to_string(),
        }
    }

    fn choose(&mut self, state: &GameState) -> Result<Hole, String> {
        let mv = match self {
            Builtin::Level(l, seed) => {
                *seed = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
                choose_move(state, *l, *seed)
            }
            Builtin::Search(l) => search(state, l, &mut |_| {}).best,
            Builtin::Mcts(l) => {
                l.seed = l.seed.wrapping_add(1);
                mcts::search(state, l).best
            }
            Builtin::GreedyNetCapture => greedy_net_capture(state),
            Builtin::Random(seed) => {
                let mut rng = Rng::new(*seed);
                *seed = rng.next_u64();
                let legal = state.legal_moves();
                legal.nth(rng.below(legal.len().max(1) as u32) as usize)
            }
        };
        mv.ok_or_else(|| "no move found".to_string())
    }
}

/// The legal move with the largest net capture for the mover: the seeds it takes during the
/// sowing minus those the opponent takes (fours sown into the opponent's row), the round-end
/// sweep not counted; the first in board order among equals (deterministic). `None` iff no
/// move is expected. The search's trap choice reads the opponent's replies with it, and
/// [`Builtin::GreedyNetCapture`] plays it (the "greedy" of the ladder example's measures in
/// docs/engine.md).
///
/// Not the same player as [`crate::tournament::greedy_most_held`], the `greedy` of
/// `pussa tournament`: that one counts what the mover holds after the move (the round-end
/// sweep included, the opponent's takings not subtracted) and breaks ties at random, so the
/// two can choose different moves. Each keeps its own rule because measured results in
/// docs/engine.md were played with it.
#[must_use]
pub fn greedy_net_capture(state: &GameState) -> Option<Hole> {
    let pos = state.position();
    let me = pos.to_move().index();
    let mut best: Option<(i32, Hole)> = None;
    for mv in state.legal_moves() {
        let mut p = *pos;
        let out = p.play_unchecked(mv)?;
        let g = i32::from(out.taken[me]) - i32::from(out.taken[1 - me]);
        if best.is_none_or(|(b, _)| g > b) {
            best = Some((g, mv));
        }
    }
    best.map(|(_, m)| m)
}

/// A finished (or stopped) game or match.
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// The game.
    pub game: Game,
    /// Single game or match.
    pub mode: Mode,
    /// Every move in order, with its round number (openings included).
    pub moves: Vec<(u32, Hole)>,
    /// How each round ended.
    pub rounds: Vec<RoundResult>,
    /// The final state.
    pub state: GameState,
    /// The winner (`None`: a draw, or stopped after `max_rounds`).
    pub winner: Option<Side>,
}

impl GameRecord {
    /// South's score: 1 for a win, ½ for a draw, 0 for a loss.
    #[must_use]
    pub fn south_score(&self) -> f64 {
        match self.winner {
            Some(Side::South) => 1.0,
            Some(Side::North) => 0.0,
            None => 0.5,
        }
    }
}

/// Why a game could not be played to its end. New kinds may be added (`#[non_exhaustive]`: a
/// `match` outside this crate needs a `_` arm). Every variant listed, without it, does not
/// compile:
/// ```compile_fail
/// # use pussa_engine::arena::GameError;
/// fn kind(e: &GameError) -> &str {
///     match e {
///         GameError::Opening { .. } => "opening",
///         GameError::Player { .. } => "player",
///     }
/// }
/// ```
/// The same `match` with a `_` arm compiles (the wildcard is all that was missing):
/// ```
/// # use pussa_engine::arena::GameError;
/// fn kind(e: &GameError) -> &str {
///     match e {
///         GameError::Opening { .. } => "opening",
///         GameError::Player { .. } => "player",
///         _ => "another",
///     }
/// }
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GameError {
    /// An opening move is not legal.
    #[error("opening move {index} ({mv}) is illegal: {reason}")]
    Opening {
        /// Its index in the opening.
        index: usize,
        /// The move.
        mv: Hole,
        /// Why.
        reason: String,
    },
    /// A player failed to answer or answered with an illegal move.
    #[error("{player} ({side}): {reason}")]
    Player {
        /// The player's name.
        player: String,
        /// Its seat.
        side: Side,
        /// What went wrong.
        reason: String,
    },
}

/// Plays one single game or match of `game` between `south` and `north`, South first, after the
/// `opening` moves; a match stops (undecided unless already won) after `max_rounds` rounds.
///
/// This is the crate root's `play_game`: any two [`Player`]s, one game, no clock. Not to be
/// confused with [`crate::tournament::play_game`], which plays game `index` of a tournament
/// [`crate::tournament::Config`] (its seats, openings, limits and external engines) and
/// returns a [`crate::tournament::GameResult`].
///
/// # Errors
/// [`GameError`] when an opening move is illegal or a player fails or answers illegally.
///
/// # Examples
/// ```
/// use pussa_engine::arena::{play_game, Builtin};
/// use pussa_rules::{Game, Mode};
/// let mut a = Builtin::GreedyNetCapture;
/// let mut b = Builtin::Random(1);
/// let rec = play_game(Game::RajaPasu, Mode::Single, &mut a, &mut b, &[], 1)?;
/// assert!(rec.state.is_over());
/// # Ok::<(), pussa_engine::arena::GameError>(())
/// ```
pub fn play_game(
    game: Game,
    mode: Mode,
    south: &mut dyn Player,
    north: &mut dyn Player,
    opening: &[Hole],
    max_rounds: u32,
) -> Result<GameRecord, GameError> {
    let mut state = GameState::new(game, mode, Side::South);
    let mut moves = Vec::new();
    let mut rounds = Vec::new();
    for (index, &mv) in opening.iter().enumerate() {
        let round = state.round();
        let r = state.play(mv).map_err(|e| GameError::Opening {
            index,
            mv,
            reason: e.reason.to_string(),
        })?;
        moves.push((round, mv));
        if let Some(end) = r.round_end {
            rounds.push(end);
            if !state.next_round() {
                break;
            }
        }
    }
    loop {
        match state.status() {
            Status::Over { .. } => break,
            Status::RoundOver { .. } => {
                if state.round() >= max_rounds {
                    break;
                }
                state.next_round();
                continue;
            }
            Status::Playing => {}
        }
        let side = state.position().to_move();
        let player: &mut dyn Player = if side == Side::South {
            &mut *south
        } else {
            &mut *north
        };
        let mv = player.choose(&state).map_err(|reason| GameError::Player {
            player: player.name(),
            side,
            reason,
        })?;
        let round = state.round();
        let r = state.play(mv).map_err(|e| GameError::Player {
            player: player.name(),
            side,
            reason: e.to_string(),
        })?;
        moves.push((round, mv));
        if let Some(end) = r.round_end {
            rounds.push(end);
        }
    }
    let winner = state.winner().flatten();
    Ok(GameRecord {
        game,
        mode,
        moves,
        rounds,
        state,
        winner,
    })
}
