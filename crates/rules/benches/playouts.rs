//! `cargo bench -p pussa-rules`: random playouts and single moves, per game.
use divan::{black_box, Bencher};
use pussa_rules::{playout, Game, Hole, PlayoutScratch, Position, Rng};

fn main() {
    divan::main();
}

const GAMES: [Game; 4] = Game::ALL;

/// One random single game from the start, every rule on.
#[divan::bench(args = GAMES)]
fn random_playout(bencher: Bencher, game: Game) {
    let start = Position::start(game);
    let mut rng = Rng::new(1);
    let mut scratch = PlayoutScratch::default();
    bencher.bench_local(|| playout(black_box(&start), &mut rng, &mut scratch));
}

/// Every legal move of the start position (each sown once, endless detection on).
#[divan::bench(args = GAMES)]
fn legal_moves_at_start(bencher: Bencher, game: Game) {
    let start = Position::start(game);
    bencher.bench_local(|| black_box(&start).legal_moves());
}

/// One move, untraced against traced, to show the trace costs nothing when unused.
#[divan::bench(args = GAMES)]
fn play_first_move_untraced(bencher: Bencher, game: Game) {
    let start = Position::start(game);
    bencher.bench_local(|| {
        let mut p = *black_box(&start);
        p.play_unchecked(Hole::ALL[0])
    });
}

/// The same move with a recorded trace.
#[divan::bench(args = GAMES)]
fn play_first_move_traced(bencher: Bencher, game: Game) {
    let start = Position::start(game);
    bencher.bench_local(|| {
        let mut p = *black_box(&start);
        let mut events = Vec::new();
        let _ = p.play_traced(Hole::ALL[0], &mut events);
        events
    });
}

/// One random single game through the OpenSpiel-shaped interface (`spiel`), for comparison with
/// `random_playout`: what the convenience (a history, the rules state's checks) costs.
#[divan::bench(args = GAMES)]
fn spiel_random_game(bencher: Bencher, game: Game) {
    let sg = pussa_rules::spiel::SpielGame::new(game, pussa_rules::Mode::Single);
    let mut rng = Rng::new(1);
    bencher.bench_local(|| {
        let mut s = sg.new_initial_state();
        while !s.is_terminal() {
            let mask = s.legal_actions_mask();
            let n = mask.iter().filter(|&&m| m).count() as u32;
            let k = rng.below(n) as usize;
            let a = (0..7).filter(|&a| mask[a]).nth(k).unwrap_or(0);
            let _ = s.apply_action(a);
        }
        s.returns()
    });
}
