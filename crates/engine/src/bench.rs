//! The fixed positions of `pussa bench --search`: the start of each game and a few mid-games
//! reached by fixed-seed random play, each searched to a fixed depth on one thread. The total
//! node count is the search's signature: any change to the search's behaviour changes it.

use pussa_rules::{Game, GameState, Mode, Rng, Setup, Side};

use crate::{search, Limits, SearchResult};

/// One benchmark position.
#[derive(Clone, Debug)]
pub struct BenchPosition {
    /// A short label, e.g. `raja-pasu start` or `walak-pussa +12`.
    pub name: String,
    /// The position (with its repetition history).
    pub state: GameState,
    /// The depth it is searched to.
    pub depth: u32,
}

impl BenchPosition {
    /// The position string.
    #[must_use]
    pub fn setup(&self) -> String {
        Setup::from_state(&self.state).to_string()
    }

    /// Searches the position to its depth on one thread.
    #[must_use]
    pub fn run(&self) -> SearchResult {
        search(
            &self.state,
            &Limits {
                depth: Some(self.depth),
                ..Limits::default()
            },
            &mut |_| {},
        )
    }
}

/// Depth searched from each game's start and from its mid-games.
fn depth_for(game: Game, plies: u32) -> u32 {
    let base = match game {
        Game::WalakPussa => 16,
        Game::RajaPasu => 18,
        Game::PasuPondi | Game::PasuPondi6 => 17,
    };
    base + plies / 4
}

/// The benchmark positions, always the same: for each game, its start and the positions after
/// 4 and 10 uniformly random moves (seed 1, 2, ...).
///
/// # Panics
/// Never in practice: moves are drawn only while the round is not over, when the player to
/// move always has a legal move (a round in which they have none ends at once), and a legal
/// move is always accepted; the `expect`s guard those invariants of [`GameState`] only.
#[must_use]
pub fn positions() -> Vec<BenchPosition> {
    let mut v = Vec::new();
    for (gi, game) in Game::ALL.into_iter().enumerate() {
        for (k, plies) in [0u32, 4, 10].into_iter().enumerate() {
            let mut rng = Rng::new(1 + (gi * 3 + k) as u64);
            let mut st = GameState::new(game, Mode::Single, Side::South);
            let mut played = 0;
            while played < plies && !st.is_round_over() {
                let legal = st.legal_moves();
                let mv = legal
                    .nth(rng.below(legal.len() as u32) as usize)
                    .expect("a legal move");
                st.play(mv).expect("legal");
                played += 1;
            }
            if st.is_round_over() {
                continue;
            }
            let name = if plies == 0 {
                format!("{game} start")
            } else {
                format!("{game} +{plies}")
            };
            v.push(BenchPosition {
                name,
                state: st,
                depth: depth_for(game, plies),
            });
        }
    }
    v
}
