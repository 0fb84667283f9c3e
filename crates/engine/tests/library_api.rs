//! The engine crate seen by a program that uses it as a library: what its public functions
//! answer at the edges (finished games, histories given as the state holds them) and what its
//! value types write and read.

use pussa_engine::reference;
use pussa_engine::{mcts, search, Limits};
use pussa_rules::{perft, perft_with_history, Game, GameState, Mode, Rng, Setup, Side};

/// `mcts::search` on a finished game gives that game's result on its −100..100 scale, with the
/// sign of `search`'s margin, and calls it exact (it is the result, not an estimate).
#[test]
fn mcts_on_a_finished_game_gives_its_result() {
    for (text, sign) in [
        // North won 46 to 10, South to move: a loss.
        ("0,0,0,0,0,0,0/0,0,0,0,0,0,0 10 46 S 1 walak-pussa", -1),
        // South to move, South won: a win.
        ("0,0,0,0,0,0,0/0,0,0,0,0,0,0 46 10 S 1 walak-pussa", 1),
        // A draw.
        ("0,0,0,0,0,0,0/0,0,0,0,0,0,0 28 28 N 1 walak-pussa", 0),
    ] {
        let setup: Setup = text.parse().unwrap();
        let state = setup.game_state(Mode::Single).unwrap();
        assert!(state.is_round_over(), "{text}");
        let m = mcts::search(&state, &Limits::default());
        let a = search(&state, &Limits::default(), &mut |_| {});
        assert_eq!(
            (m.best, m.exact, m.nodes, m.depth),
            (None, true, 0, 0),
            "{text}"
        );
        assert!((-100..=100).contains(&m.score), "{text}: {}", m.score);
        assert_eq!(m.score.signum(), sign, "{text}: {m:?}");
        assert_eq!(a.score.signum(), sign, "{text}: {a:?}");
        match sign {
            1 => assert!(m.score >= 90, "{m:?}"),
            -1 => assert!(m.score <= -90, "{m:?}"),
            _ => assert_eq!(m.score, 0),
        }
    }
}

/// In a match, `mcts::search` on a finished round counts the holdings, as `search` does: a
/// round that South lost (34 to 43 taken) while it holds more overall (16+34 to 5+43) is a win
/// for South to move, and a loss for North to move.
#[test]
fn mcts_on_a_finished_match_round_counts_the_holdings_as_search_does() {
    for (text, sign) in [
        ("0,0,0,0,0,0,0/x,x,x,0,0,0,0 16+34 5+43 S 2 raja-pasu", 1),
        ("0,0,0,0,0,0,0/x,x,x,0,0,0,0 16+34 5+43 N 2 raja-pasu", -1),
    ] {
        let setup: Setup = text.parse().unwrap();
        let state = setup.game_state(Mode::Match).unwrap();
        assert!(state.is_round_over(), "{text}");
        let m = mcts::search(&state, &Limits::default());
        let a = search(&state, &Limits::default(), &mut |_| {});
        assert_eq!(
            (m.best, m.exact, m.nodes, m.depth),
            (None, true, 0, 0),
            "{text}"
        );
        assert_eq!(a.score.signum(), sign, "{text}: {a:?}");
        assert_eq!(m.score.signum(), sign, "{text}: {m:?}");
        match sign {
            1 => assert!(m.score >= 90, "{m:?}"),
            _ => assert!(m.score <= -90, "{m:?}"),
        }
    }
}

/// `perft_with_history` and `reference::minimax` take a state's own `GameState::history()`
/// (whose last key is the position itself) as they take the history of the earlier positions
/// only: same counts, same values; and a real repetition among the earlier ones still counts.
#[test]
fn history_with_or_without_the_position_itself_gives_the_same_answers() {
    let mut rng = Rng::new(6);
    let mut checked = 0;
    for game in [Game::WalakPussa, Game::RajaPasu, Game::PasuPondi] {
        let mut g = GameState::new(game, Mode::Single, Side::South);
        for _ in 0..40 {
            if g.is_round_over() {
                break;
            }
            let moves: Vec<_> = g.legal_moves().collect();
            g.play(moves[rng.below(moves.len() as u32) as usize])
                .unwrap();
            if g.is_round_over() {
                break;
            }
            let pos = *g.position();
            let with_pos = g.history().to_vec();
            assert_eq!(with_pos.last(), Some(&pos.repetition_key()));
            let earlier = with_pos[..with_pos.len() - 1].to_vec();
            let depth = 3;
            let expected = perft_with_history(&pos, depth, &mut earlier.clone());
            let mut h = with_pos.clone();
            assert_eq!(
                perft_with_history(&pos, depth, &mut h),
                expected,
                "{game:?}"
            );
            assert_eq!(h, with_pos, "history restored");
            if earlier.is_empty() {
                assert_eq!(expected, perft(&pos, depth));
            }
            let value = reference::minimax(&pos, 3, &mut earlier.clone());
            let mut h = with_pos.clone();
            assert_eq!(reference::minimax(&pos, 3, &mut h), value, "{game:?}");
            assert_eq!(h, with_pos, "history restored");
            // The position seen before: a repetition, with or without itself last.
            let mut seen = vec![pos.repetition_key(), 1];
            assert_eq!(perft_with_history(&pos, depth, &mut seen), 0);
            let mut seen = vec![pos.repetition_key(), pos.repetition_key()];
            assert_eq!(perft_with_history(&pos, depth, &mut seen), 0);
            assert!(
                reference::minimax(&pos, 3, &mut seen).1,
                "a repetition is exact"
            );
            checked += 1;
        }
    }
    assert!(checked > 30, "{checked}");
}

/// The engine's results write to JSON and read back equal: what a web app of one's own sends
/// its page and reads back.
#[test]
fn engine_results_round_trip_through_json() {
    use pussa_engine::{analyze_report, Analysis, Level, MoveValue, SearchInfo, SearchResult};
    let state = GameState::new(Game::RajaPasu, Mode::Single, Side::South);
    let limits = Limits {
        depth: Some(3),
        ..Limits::default()
    };
    let mut infos: Vec<SearchInfo> = Vec::new();
    let r = search(&state, &limits, &mut |i| infos.push(i.clone()));
    let json = serde_json::to_string(&r).unwrap();
    assert!(
        json.contains(&format!("\"best\":\"{}\"", r.best.unwrap())),
        "{json}"
    );
    assert_eq!(serde_json::from_str::<SearchResult>(&json).unwrap(), r);
    assert!(!infos.is_empty());
    for i in &infos {
        let json = serde_json::to_string(i).unwrap();
        assert_eq!(&serde_json::from_str::<SearchInfo>(&json).unwrap(), i);
    }
    let a = analyze_report(&state, &limits);
    let json = serde_json::to_string(&a).unwrap();
    assert_eq!(serde_json::from_str::<Analysis>(&json).unwrap(), a);
    let m = &a.moves[0];
    let json = serde_json::to_string(m).unwrap();
    assert_eq!(&serde_json::from_str::<MoveValue>(&json).unwrap(), m);
    for level in Level::ALL {
        let json = serde_json::to_string(&level).unwrap();
        assert_eq!(json, format!("\"{}\"", level.name()));
        assert_eq!(serde_json::from_str::<Level>(&json).unwrap(), level);
    }
    let err = serde_json::from_str::<Level>("\"grandmaster\"").unwrap_err();
    assert!(
        err.to_string().starts_with("unknown level 'grandmaster'"),
        "{err}"
    );
}

/// The tournament's result types read back what they write.
#[test]
fn tournament_results_round_trip_through_json() {
    use pussa_engine::tournament::{
        EngineTime, GameResult, Pentanomial, Report, SprtDecision, Termination, Wdl,
    };
    use pussa_rules::{EndReason, Hole};
    fn same<T: serde::Serialize + serde::de::DeserializeOwned>(v: &T) {
        let json = serde_json::to_value(v).unwrap();
        let back: T = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(serde_json::to_value(&back).unwrap(), json);
    }
    let wdl = Wdl {
        wins: 3,
        draws: 1,
        losses: 2,
    };
    let json = serde_json::to_string(&wdl).unwrap();
    assert_eq!(serde_json::from_str::<Wdl>(&json).unwrap(), wdl);
    let time = EngineTime {
        moves: 4,
        overruns: 1,
        longest_us: 1_234_567,
        total_us: 2_000_001,
    };
    let json = serde_json::to_string(&time).unwrap();
    assert_eq!(serde_json::from_str::<EngineTime>(&json).unwrap(), time);
    let played = GameResult {
        index: 0,
        south_player: 1,
        opening: vec![Hole::from_letter('C').unwrap()],
        moves: vec![
            Hole::from_letter('C').unwrap(),
            Hole::from_letter('e').unwrap(),
        ],
        winner: Some(Side::North),
        termination: Termination::Normal,
        stores: [40, 58],
        rounds: 1,
        final_position: "0,0,0,0,0,0,0/0,0,0,0,0,0,0 40 58 S 1 raja-pasu".into(),
        exact: Some(-2),
        first_mover: Side::South,
        end: Some(EndReason::Repetition),
        engine_time: [Some(time), None],
        clock_ms: vec![950.5, 901.25],
        final_clock_ms: Some([901.25, 1000.0]),
    };
    let forfeit = GameResult {
        index: 1,
        termination: Termination::Forfeit {
            loser: Side::South,
            reason: "illegal move".into(),
        },
        exact: None,
        end: None,
        engine_time: [None, None],
        clock_ms: Vec::new(),
        final_clock_ms: None,
        ..played.clone()
    };
    same(&played);
    same(&forfeit);
    let report = Report {
        players: ["level:club".into(), "greedy".into()],
        games: vec![played, forfeit],
        wdl,
        pairs: Pentanomial([0, 1, 0, 0, 0]),
        sprt: Some(SprtDecision::Continue),
        llr: Some(-0.5),
        sprt_games: None,
        sprt_pairs: None,
        stopped_early: false,
    };
    same(&report);
    same(&report.seats());
    same(&report.endings());
}

/// The two greedy players have distinct names and rules: in this position (found by QA) the
/// net capture of the arena and the most-held of the tournament choose different moves.
#[test]
fn the_two_greedy_players_are_named_apart() {
    use pussa_engine::arena::{greedy_net_capture, Builtin};
    use pussa_engine::tournament::greedy_most_held;
    use pussa_engine::Player;
    use pussa_rules::Hole;
    let setup: Setup = "1,14,2,3,1,0,0/0,14,0,14,2,14,14 11 8 N 1 raja-pasu S"
        .parse()
        .unwrap();
    let state = setup.game_state(Mode::Single).unwrap();
    let e = Hole::from_letter('e').unwrap();
    let d = Hole::from_letter('d').unwrap();
    assert_eq!(greedy_net_capture(&state), Some(e));
    for seed in 0..20 {
        assert_eq!(greedy_most_held(&state, &mut Rng::new(seed)), Some(d));
    }
    let mut p = Builtin::GreedyNetCapture;
    assert_eq!(p.name(), "greedy-net-capture");
    assert_eq!(p.choose(&state), Ok(e));
}
