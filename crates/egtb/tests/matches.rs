//! Whole matches: rounds played perfectly for seeds replay through the rules crate's match
//! (refill, closed holes, starter); the match values found with the tables equal those of a
//! plain exhaustive search of every round; the margins' verdicts never contradict them.

use pussa_egtb::matches::{
    play_match, round_start, solve_match, solve_match_exhaustive, solve_match_with_tables,
    MatchEnd, MatchTables, MatchValue,
};
use pussa_egtb::Pattern;
use pussa_rules::{Game, GameState, Mode, Side, Status};

#[test]
fn round_starts_are_laid_out_as_the_refill_does() {
    // Walak-pussa, South holds 25: six holes of 4, one seed in the store, `A` closed.
    let p = round_start(Game::WalakPussa, 4, 25, Side::North);
    assert_eq!(p.board(), [0, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4]);
    assert_eq!(p.closed_mask(), 1);
    assert_eq!(p.stores(), [1, 3]);
    assert_eq!(p.to_move(), Side::North);
    assert_eq!(Pattern::of_position(&p), Some(Pattern::new(0, 1)));
    // Pasu Pondi closes from the right end: North holds 12, two holes, `c`..`g` closed.
    let p = round_start(Game::PasuPondi, 5, 58, Side::South);
    assert_eq!(p.closed_mask(), 0b11111 << 9);
    assert_eq!(p.stores(), [23, 2]);
    assert_eq!(Pattern::of_position(&p), Some(Pattern::new(0, 5)));
}

/// Each round's principal variation, played in a real match (`GameState` in match mode), ends
/// the round with the holdings and next starter the match player reported, and the next
/// round is laid out as `round_start` says.
fn replay(game: Game, max: usize) {
    let tables = MatchTables::build_in_memory(game, max);
    let m = play_match(&tables, game.seeds_per_hole(), Side::South, 100_000_000, 40)
        .expect("every round solved");
    let mut st = GameState::new(game, Mode::Match, Side::South);
    for r in &m.rounds {
        let pos = *st.position();
        let want = round_start(
            game,
            game.seeds_per_hole(),
            u32::from(pos.stores()[0]) + pos.row_seeds(Side::South),
            pos.to_move(),
        );
        assert_eq!(pos, want, "{game} round {}", r.round);
        for &mv in &r.pv {
            st.play(mv).expect("a legal move");
        }
        assert_eq!(
            st.position().stores(),
            r.holdings,
            "{game} round {}",
            r.round
        );
        match st.status() {
            Status::RoundOver { next_starter, .. } => {
                assert_eq!(Some(next_starter), r.next_starter);
                assert!(st.next_round());
            }
            Status::Over { winner, .. } => {
                assert_eq!(r.next_starter, None);
                assert_eq!(m.end, MatchEnd::Won(winner.expect("a winner")));
            }
            Status::Playing => panic!("{game} round {}: the variation does not end it", r.round),
        }
    }
    eprintln!("{game}: {} rounds, {:?}", m.rounds.len(), m.end);
}

#[test]
fn matches_played_for_seeds_replay_through_the_match_rules() {
    replay(Game::RajaPasu, 8);
    replay(Game::PasuPondi, 8);
}

#[test]
fn match_values_with_tables_equal_exhaustive_search() {
    for game in Game::ALL {
        let exact = solve_match_exhaustive(game, 1, 50_000_000).expect("solved");
        let tables = MatchTables::build_in_memory(game, 6);
        let with = solve_match_with_tables(&tables, 1, 50_000_000).expect("solved");
        assert_eq!(exact, with, "{game}");
        // Every state has a value; the margins' verdicts, where they give one, agree.
        let margins = solve_match(&tables, 1, 50_000_000, &mut |_, _, _| {}).expect("solved");
        let mut decided = 0;
        for &(south, starter, v) in &exact {
            let m = margins.get(south, starter).expect("a state").value;
            match (m, v) {
                (MatchValue::Unresolved, _) => {}
                (MatchValue::Win { side, .. }, MatchValue::Win { side: w, .. }) => {
                    assert_eq!(side, w, "{game} {south} {starter}");
                    decided += 1;
                }
                (MatchValue::Draw, MatchValue::Draw) => decided += 1,
                (m, v) => panic!("{game} {south} {starter}: margins {m:?}, exact {v:?}"),
            }
        }
        assert!(decided > 0, "{game}: the margins decided nothing");
    }
}

/// Two seeds a hole: the tables (up to 8 seeds) stop the round searches early; the values
/// equal those found with smaller tables (up to 4), which search further.
#[test]
fn match_values_do_not_depend_on_the_tables_size() {
    for game in [Game::RajaPasu, Game::PasuPondi] {
        let small = MatchTables::build_in_memory(game, 4);
        let big = MatchTables::build_in_memory(game, 8);
        let a = solve_match_with_tables(&small, 2, 100_000_000).expect("solved");
        let b = solve_match_with_tables(&big, 2, 100_000_000).expect("solved");
        assert_eq!(a, b, "{game}");
    }
}
