//! The top layer against a forward search over the smaller layers, the solver above the tables
//! against the tables themselves, and the seat symmetry the tables rest on.

use pussa_egtb::moves::{canonical, rotate};
use pussa_egtb::solve::Solver;
use pussa_egtb::{index, BuildOptions, Entry, Tables};
use pussa_rules::{Game, GameState, Mode, Position, Rng, Side};

/// A forward search through `GameState` that stops at every move taking seeds and reads the
/// lower layers there (their history starts afresh), carrying the full history otherwise.
fn forward(lower: &Tables, state: &GameState, alpha: i32, beta: i32) -> i32 {
    let me = state.position().to_move();
    let k = state.position().seeds_on_board();
    let mut best = i32::MIN;
    let mut alpha = alpha;
    for mv in state.legal_moves() {
        let mut s = state.clone();
        let before = s.position().stores();
        s.play(mv).expect("legal");
        let after = s.position().stores();
        let gain = i32::from(after[me.index()] - before[me.index()])
            - i32::from(after[me.other().index()] - before[me.other().index()]);
        let v = if s.is_over() {
            gain
        } else if s.position().seeds_on_board() < k {
            gain - lower
                .probe_fresh(s.position())
                .expect("lower layers are determined")
        } else {
            -forward(lower, &s, -beta, -alpha)
        };
        best = best.max(v);
        if best >= beta {
            return best;
        }
        alpha = alpha.max(best);
    }
    best
}

fn cross_check_top_layer(game: Game, top: usize) {
    let all = Tables::build_in_memory(game, top, BuildOptions::default(), &|_| {});
    let lower = Tables::from_layers(game, (0..top).map(|k| all.layer(k).to_vec()).collect());
    for idx in 0..index::layer_size(top) {
        let b = index::unrank(top, idx);
        let pos = Position::from_parts_unchecked(game, b, 0, [0, 0], Side::South);
        let state = GameState::from_position(pos, Mode::Single, 1, Side::South);
        let want = if state.is_over() {
            let t = state.position().stores();
            i32::from(t[0]) - i32::from(t[1])
        } else {
            forward(&lower, &state, -(top as i32) - 1, top as i32 + 1)
        };
        assert_eq!(all.probe_fresh(&pos), Some(want), "{game} {b:?}");
    }
}

#[test]
fn top_layer_matches_forward_search_over_smaller_layers() {
    cross_check_top_layer(Game::WalakPussa, 6);
    cross_check_top_layer(Game::RajaPasu, 6);
    cross_check_top_layer(Game::PasuPondi, 6);
}

/// 7 seeds is the first layer of more than one chunk of the builder (77,520 boards: ranks are
/// kept as offsets into chunks of 65,536), and Walak-pussa's has cyclic boards in both chunks,
/// which the builder cuts its waiting lists down to before the bound iteration.
#[test]
fn a_layer_of_several_chunks_matches_forward_search_over_smaller_layers() {
    assert!(index::layer_size(7) > 1 << 16);
    cross_check_top_layer(Game::WalakPussa, 7);
}

#[test]
fn solver_above_small_tables_agrees_with_full_tables() {
    for game in [Game::WalakPussa, Game::RajaPasu, Game::PasuPondi] {
        let full = Tables::build_in_memory(game, 8, BuildOptions::default(), &|_| {});
        let small = Tables::from_layers(game, (0..=4).map(|k| full.layer(k).to_vec()).collect());
        let mut rng = Rng::new(7);
        for _ in 0..60 {
            let k = 5 + (rng.next_u64() % 4) as usize;
            let b = index::unrank(k, rng.next_u64() % index::layer_size(k));
            let pos = Position::from_parts_unchecked(game, b, 0, [0, 0], Side::South);
            let Some(Entry::Value { margin, .. }) = full.entry(&pos) else {
                panic!("undetermined")
            };
            let mut solver = Solver::new(&small, 50_000_000);
            let sol = solver.solve(&pos).expect("solved");
            assert_eq!(sol.value, margin, "{game} {b:?}");
            // The principal variation is legal, ends the round, and realises the value.
            let mut st = GameState::from_position(pos, Mode::Single, 1, Side::South);
            for &mv in &sol.pv {
                st.play(mv)
                    .expect("a legal move in the principal variation");
            }
            assert!(
                st.is_over() || sol.pv.is_empty(),
                "the variation ends the round"
            );
            let t = st.position().stores();
            assert_eq!(
                i32::from(t[0]) - i32::from(t[1]),
                margin,
                "{game} {b:?} pv {:?}",
                sol.pv
            );
        }
    }
}

/// Playing a move from a position with North to move is the same as playing the same column
/// from the rotated board with South to move, for every game (including the clockwise ones).
#[test]
fn the_rules_are_symmetric_under_swapping_the_rows() {
    let mut rng = Rng::new(11);
    for game in Game::ALL {
        for _ in 0..3000 {
            let mut b = [0u8; 14];
            for _ in 0..(rng.next_u64() % 25) {
                b[(rng.next_u64() % 14) as usize] += 1;
            }
            let north = Position::from_parts_unchecked(game, b, 0, [0, 0], Side::North);
            let south = Position::from_parts_unchecked(game, rotate(&b), 0, [0, 0], Side::South);
            assert_eq!(canonical(&north), canonical(&south));
            assert_eq!(north.candidates().len(), south.candidates().len());
            for col in 0..7 {
                let hn = pussa_rules::Hole::of_side(Side::North, col);
                let hs = pussa_rules::Hole::of_side(Side::South, col);
                if !north.candidates().contains(hn) {
                    assert!(!south.candidates().contains(hs));
                    continue;
                }
                let (mut pn, mut ps) = (north, south);
                let on = pn.play_unchecked(hn);
                let os = ps.play_unchecked(hs);
                assert_eq!(on.is_some(), os.is_some(), "{game} {b:?} {col}");
                if let (Some(on), Some(os)) = (on, os) {
                    assert_eq!(on.taken, [os.taken[1], os.taken[0]]);
                    assert_eq!(pn.board(), rotate(&ps.board()));
                    assert_eq!(canonical(&pn), canonical(&ps));
                }
            }
        }
    }
}

/// The real start of Raja Pasu solved above small tables: the principal variation is a legal
/// game that ends the round with exactly the value found.
#[test]
fn a_real_start_is_solved_with_a_replayable_variation() {
    let game = Game::RajaPasu;
    let tables = Tables::build_in_memory(game, 8, BuildOptions::default(), &|_| {});
    let start = Position::start(game);
    let sol = Solver::new(&tables, 50_000_000)
        .solve(&start)
        .expect("solved");
    let mut st = GameState::new(game, Mode::Single, Side::South);
    for &mv in &sol.pv {
        st.play(mv).expect("a legal move");
    }
    assert!(st.is_over());
    let t = st.position().stores();
    assert_eq!(i32::from(t[0]) - i32::from(t[1]), sol.value);
}
