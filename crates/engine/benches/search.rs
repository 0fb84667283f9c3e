//! `cargo bench -p pussa-engine`: the search from each game's start to a fixed depth, and UCT
//! with a fixed number of playouts (one thread, deterministic work per iteration).

use pussa_engine::{mcts, search, Limits};
use pussa_rules::{Game, GameState, Mode, Side};

fn main() {
    divan::main();
}

#[divan::bench(args = Game::ALL)]
fn alpha_beta_depth_12(game: Game) -> u64 {
    let state = GameState::new(game, Mode::Single, Side::South);
    let limits = Limits {
        depth: Some(12),
        ..Limits::default()
    };
    search(divan::black_box(&state), &limits, &mut |_| {}).nodes
}

#[divan::bench(args = Game::ALL)]
fn uct_2000_playouts(game: Game) -> u64 {
    let state = GameState::new(game, Mode::Single, Side::South);
    let limits = Limits {
        nodes: Some(2_000),
        ..Limits::default()
    };
    mcts::search(divan::black_box(&state), &limits).nodes
}
