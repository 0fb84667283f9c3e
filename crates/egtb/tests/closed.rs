//! Tables of boards with closed holes (match rounds): every position of small layers of
//! several closed patterns against a plain exhaustive search over `GameState` (which carries
//! the full repetition history and skips the closed holes itself), the pattern symmetry, and
//! the solver above small closed tables.

use pussa_egtb::moves::{canonical, rotate};
use pussa_egtb::solve::Solver;
use pussa_egtb::{BuildOptions, Entry, Pattern, Tables};
use pussa_rules::{Game, GameState, Mode, Position, Rng, Setup, Side};

mod common;

use common::Exhaustive;

/// Every board of `k` seeds in the open holes of `open` (bit i = hole i).
fn boards(k: usize, open: u16, out: &mut Vec<[u8; 14]>) {
    fn rec(k: usize, holes: &[usize], b: &mut [u8; 14], out: &mut Vec<[u8; 14]>) {
        if holes.len() == 1 {
            b[holes[0]] = k as u8;
            out.push(*b);
            b[holes[0]] = 0;
            return;
        }
        for n in 0..=k {
            b[holes[0]] = n as u8;
            rec(k - n, &holes[1..], b, out);
        }
        b[holes[0]] = 0;
    }
    let holes: Vec<usize> = (0..14).filter(|&i| open & (1 << i) != 0).collect();
    rec(k, &holes, &mut [0; 14], out);
}

fn check_pattern(game: Game, pattern: Pattern, max: usize) {
    let tables =
        Tables::build_pattern_in_memory(game, pattern, max, BuildOptions::default(), &|_| {});
    let mut checked = 0;
    let mut flagged = 0;
    for p in [pattern, pattern.flipped()] {
        // The memo's keys (board and side to move) do not name the closed holes.
        let mut ex = Exhaustive::new();
        let closed = p.closed_mask(game);
        for k in 0..=max {
            let mut all = Vec::new();
            boards(k, p.open_mask(game), &mut all);
            for b in all {
                // South to move on the board as it is, and North to move on the turned board:
                // both are the canonical board `b` of pattern `p`.
                let south = Position::from_parts_unchecked(game, b, closed, [0, 0], Side::South);
                let north = Position::from_parts_unchecked(
                    game,
                    rotate(&b),
                    (closed >> 7) | ((closed & 0x7F) << 7),
                    [0, 0],
                    Side::North,
                );
                assert_eq!(Pattern::of_position(&south), Some(p));
                assert_eq!(Pattern::of_position(&north), Some(p));
                assert_eq!(canonical(&north), b);
                let state = GameState::from_position(south, Mode::Single, 1, Side::South);
                let want = if state.is_over() {
                    let t = state.position().stores();
                    i32::from(t[0]) - i32::from(t[1])
                } else {
                    ex.fresh(&state)
                };
                for pos in [south, north] {
                    match tables.entry(&pos) {
                        Some(Entry::Value { margin, history }) => {
                            assert_eq!(margin, want, "{game} {p} {b:?} (flag {history})");
                            flagged += usize::from(history && pos.to_move() == Side::South);
                        }
                        other => panic!("{game} {p} {b:?}: {other:?}, expected {want}"),
                    }
                }
                assert_eq!(tables.entry_of_board_in(p, &b), tables.entry(&south));
                checked += 1;
            }
        }
    }
    // A position with other closed holes is not covered.
    let other = Position::from_parts_unchecked(game, [1; 14], 0, [0, 0], Side::South);
    assert_eq!(tables.entry(&other), None);
    let in_tables: usize = (0..=max)
        .map(|k| {
            tables
                .pair_layer(k)
                .iter()
                .filter(|&&b| b != 0xFF && b & 0x80 != 0)
                .count()
        })
        .sum();
    assert_eq!(flagged, in_tables, "every flagged entry was checked");
    eprintln!("{game} {pattern}: {checked} positions up to {max} seeds agree ({flagged} flagged)");
}

#[test]
fn walak_pussa_closed_patterns_match_exhaustive_search() {
    check_pattern(Game::WalakPussa, Pattern::new(1, 0), 5);
    check_pattern(Game::WalakPussa, Pattern::new(0, 4), 6);
    check_pattern(Game::WalakPussa, Pattern::new(2, 3), 6);
}

#[test]
fn raja_pasu_closed_patterns_match_exhaustive_search() {
    check_pattern(Game::RajaPasu, Pattern::new(3, 0), 6);
    check_pattern(Game::RajaPasu, Pattern::new(0, 6), 6);
}

#[test]
fn pasu_pondi_closed_patterns_match_exhaustive_search() {
    check_pattern(Game::PasuPondi, Pattern::new(2, 0), 5);
    check_pattern(Game::PasuPondi6, Pattern::new(0, 5), 6);
}

/// The tables of `(a, b)` and of `(b, a)` built separately hold the same values: the first's
/// boards of `(b, a)` are the second's own, and the other way round.
#[test]
fn a_pattern_and_its_mirror_give_the_same_tables() {
    for game in [Game::WalakPussa, Game::RajaPasu, Game::PasuPondi] {
        let p = Pattern::new(2, 0);
        let t1 = Tables::build_pattern_in_memory(game, p, 6, BuildOptions::default(), &|_| {});
        let t2 =
            Tables::build_pattern_in_memory(game, p.flipped(), 6, BuildOptions::default(), &|_| {});
        for k in 0..=6 {
            let a = t1.pair_layer(k);
            let b = t2.pair_layer(k);
            assert_eq!(a.len(), b.len());
            // (2, 0) and (0, 2) have as many open holes: two parts of equal size.
            let (a0, a1) = a.split_at(a.len() / 2);
            let (b0, b1) = b.split_at(b.len() / 2);
            assert_eq!(a0, b1, "{game} layer {k}");
            assert_eq!(a1, b0, "{game} layer {k}");
        }
    }
}

/// The solver above closed tables of 0..4 seeds agrees with closed tables of 0..8, and its
/// principal variation, replayed through `GameState`, realises the value.
#[test]
fn solver_above_small_closed_tables_agrees_with_full_tables() {
    for game in [Game::WalakPussa, Game::RajaPasu, Game::PasuPondi] {
        let p = Pattern::new(0, 2);
        let full = Tables::build_pattern_in_memory(game, p, 8, BuildOptions::default(), &|_| {});
        let small =
            Tables::from_pattern_layers(game, p, (0..=4).map(|k| full.pair_layer(k)).collect());
        let mut rng = Rng::new(5);
        let mut solved = 0;
        while solved < 40 {
            let q = if rng.next_u64().is_multiple_of(2) {
                p
            } else {
                p.flipped()
            };
            let closed = q.closed_mask(game);
            let k = 5 + (rng.next_u64() % 4) as usize;
            let mut b = [0u8; 14];
            let open: Vec<usize> = (0..14).filter(|&i| closed & (1 << i) == 0).collect();
            for _ in 0..k {
                b[open[(rng.next_u64() % open.len() as u64) as usize]] += 1;
            }
            let pos = Position::from_parts_unchecked(game, b, closed, [0, 0], Side::South);
            let st = GameState::from_position(pos, Mode::Single, 1, Side::South);
            if st.is_over() {
                continue;
            }
            let Some(Entry::Value { margin, .. }) = full.entry(&pos) else {
                panic!("undetermined")
            };
            let sol = Solver::new(&small, 50_000_000).solve(&pos).expect("solved");
            assert_eq!(sol.value, margin, "{game} {q} {b:?}");
            let mut st = st;
            for &mv in &sol.pv {
                st.play(mv)
                    .expect("a legal move in the principal variation");
            }
            assert!(st.is_over(), "the variation ends the round");
            let t = st.position().stores();
            assert_eq!(
                i32::from(t[0]) - i32::from(t[1]),
                margin,
                "{game} {q} {b:?}"
            );
            solved += 1;
        }
        // Positions of another pattern are refused, not misread.
        let other = Position::from_parts_unchecked(game, [1; 14], 0, [0, 0], Side::South);
        assert!(Solver::new(&small, 1000).solve(&other).is_err());
    }
}

/// A match position written with `x` for closed holes is covered by the tables of its pattern.
#[test]
fn a_position_string_with_closed_holes_is_probed() {
    let game = Game::RajaPasu;
    // South fills 4 holes (A, B, C closed), North all 7; 5 seeds left on the board.
    let setup: Setup = "x,x,x,1,0,0,2/0,1,0,0,0,0,1 45 48 S 2 raja-pasu"
        .parse()
        .expect("a position string");
    let state = setup.game_state(Mode::Match).expect("a match position");
    let pos = *state.position();
    assert_eq!(Pattern::of_position(&pos), Some(Pattern::new(3, 0)));
    let t = Tables::build_pattern_in_memory(
        game,
        Pattern::new(0, 3),
        5,
        BuildOptions::default(),
        &|_| {},
    );
    let mut ex = Exhaustive::new();
    let want = ex.fresh(&GameState::from_position(pos, Mode::Single, 1, Side::South));
    assert_eq!(t.probe_fresh(&pos), Some(want));
}

/// Closed-pattern files read back equal the tables built in memory; a file of another pattern,
/// or with its pattern bytes changed, is refused with an error naming the problem; the open
/// board's files keep zero pattern bytes.
#[test]
fn closed_pattern_files_round_trip_and_mismatches_are_refused() {
    use pussa_egtb::build_pattern_dir;
    use pussa_egtb::format::{pattern_path, table_path};
    let dir = std::env::temp_dir().join(format!("pussa-egtb-closed-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let game = Game::RajaPasu;
    let p = Pattern::new(2, 0);
    let built = build_pattern_dir(
        &dir,
        game,
        p,
        5,
        BuildOptions::default(),
        false,
        &|_| {},
        &mut |_| {},
    )
    .expect("build");
    let mem = Tables::build_pattern_in_memory(game, p, 5, BuildOptions::default(), &|_| {});
    for q in [p, p.flipped()] {
        let opened = Tables::open_pattern(&dir, game, q, None).expect("open");
        assert_eq!(opened.max_seeds(), 5);
        assert_eq!(opened.pattern(), q);
        for k in 0..=5 {
            assert_eq!(built.pair_layer(k), mem.pair_layer(k));
            let n = mem.pair_layer(k).len() / 2;
            let (a, b) = (
                mem.pair_layer(k)[..n].to_vec(),
                mem.pair_layer(k)[n..].to_vec(),
            );
            let want = if q == p {
                [a, b].concat()
            } else {
                [b, a].concat()
            };
            assert_eq!(opened.pair_layer(k), want, "{q} layer {k}");
        }
    }
    // The header names the pattern: a (2, 0) file where (0, 2) is expected is refused.
    let f20 = pattern_path(&dir, game, p, 3);
    let f02 = pattern_path(&dir, game, p.flipped(), 3);
    assert!(f20.ends_with("raja-pasu/c2-0/3.pegtb"), "{f20:?}");
    std::fs::copy(&f20, &f02).expect("copy");
    let e = Tables::open_pattern(&dir, game, p.flipped(), None)
        .err()
        .expect("refused")
        .to_string();
    assert!(
        e.contains("table of closed pattern (2, 0), expected (0, 2)"),
        "{e}"
    );
    // Open-board files have zero pattern bytes.
    pussa_egtb::build_dir(
        &dir,
        game,
        2,
        BuildOptions::default(),
        false,
        &|_| {},
        &mut |_| {},
    )
    .expect("open build");
    let bytes = std::fs::read(table_path(&dir, game, 2)).expect("read");
    assert_eq!(&bytes[13..16], &[0, 0, 0]);
    let bytes = std::fs::read(&f20).expect("read");
    assert_eq!(&bytes[13..16], &[2, 0, 0]);
    std::fs::remove_dir_all(&dir).ok();
}

/// With closed holes too, a move of North on a board is the same column's move of South on the
/// turned board (closed holes turned with it): the closing rules of the three games (left end
/// in Walak-pussa and Raja Pasu, right end in Pasu Pondi) are mirror images under the turn.
#[test]
fn the_rules_with_closed_holes_are_symmetric_under_swapping_the_rows() {
    let mut rng = Rng::new(13);
    for game in Game::ALL {
        for _ in 0..3000 {
            let a = (rng.next_u64() % 7) as u8;
            let b = if a == 0 {
                (rng.next_u64() % 7) as u8
            } else {
                0
            };
            let p = Pattern::new(a, b);
            let closed = p.closed_mask(game); // South's row is the mover's (a holes closed)
            let open: Vec<usize> = (0..14).filter(|&i| closed & (1 << i) == 0).collect();
            let mut board = [0u8; 14];
            for _ in 0..(rng.next_u64() % 25) {
                board[open[(rng.next_u64() % open.len() as u64) as usize]] += 1;
            }
            let south = Position::from_parts_unchecked(game, board, closed, [0, 0], Side::South);
            let turned = (closed >> 7) | ((closed & 0x7F) << 7);
            let north =
                Position::from_parts_unchecked(game, rotate(&board), turned, [0, 0], Side::North);
            assert_eq!(Pattern::of_position(&north), Some(p));
            for col in 0..7 {
                let hs = pussa_rules::Hole::of_side(Side::South, col);
                let hn = pussa_rules::Hole::of_side(Side::North, col);
                assert_eq!(
                    south.candidates().contains(hs),
                    north.candidates().contains(hn)
                );
                if !south.candidates().contains(hs) {
                    continue;
                }
                let (mut ps, mut pn) = (south, north);
                let os = ps.play_unchecked(hs);
                let on = pn.play_unchecked(hn);
                assert_eq!(os.is_some(), on.is_some(), "{game} {p} {board:?} {col}");
                if let (Some(os), Some(on)) = (os, on) {
                    assert_eq!(os.taken, [on.taken[1], on.taken[0]]);
                    assert_eq!(canonical(&ps), canonical(&pn), "{game} {p} {board:?} {col}");
                }
            }
        }
    }
}
