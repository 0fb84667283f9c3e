//! The OpenSpiel-shaped interface (`pussa_rules::spiel`) against the rules underneath: random
//! games and matches of every game played through it agree, move by move, with `GameState`
//! played directly, and every other method says what the state is.

use proptest::prelude::*;
use pussa_rules::spiel::{
    load_game, SpielError, SpielGame, SpielState, Utility, NUM_DISTINCT_ACTIONS, OBSERVATION_LEN,
};
use pussa_rules::{Game, GameState, Hole, Mode, Rng, Setup, Side, Status};

fn mode_of(m: bool) -> Mode {
    if m {
        Mode::Match
    } else {
        Mode::Single
    }
}

/// Checks everything the interface says about `s` against `g`, the same game played directly.
fn agree(s: &SpielState, g: &GameState) {
    assert_eq!(s.game_state(), g);
    if s.is_truncated() {
        // Stopped at the game's max_rounds: a match whose round is over and that goes on.
        assert!(s.is_terminal() && s.current_player().is_none() && s.legal_actions().is_empty());
        assert_eq!(s.returns(), [0.0, 0.0]);
        assert!(g.is_round_over() && !g.is_over());
        assert_eq!(g.round(), s.get_game().max_rounds());
        return;
    }
    assert_eq!(s.current_player(), g.to_move().map(Side::index));
    assert_eq!(s.is_terminal(), g.is_over());
    // Legal actions: the mover's legal holes, as columns from the mover's left.
    let expected: Vec<usize> = match g.to_move() {
        Some(side) => g
            .legal_moves()
            .into_iter()
            .map(|h: Hole| {
                assert_eq!(h.owner(), side);
                h.column()
            })
            .collect(),
        None => Vec::new(),
    };
    let mut got = s.legal_actions();
    assert_eq!(got, {
        let mut e = expected.clone();
        e.sort_unstable();
        e
    });
    got.dedup();
    assert_eq!(got.len(), expected.len());
    let mask = s.legal_actions_mask();
    assert_eq!(
        (0..NUM_DISTINCT_ACTIONS)
            .filter(|&a| mask[a])
            .collect::<Vec<_>>(),
        got
    );
    // Returns: zero-sum, zero until the end.
    let r = s.returns();
    assert_eq!(r[0], -r[1]);
    if !g.is_over() {
        assert_eq!(r, [0.0, 0.0]);
    }
    // Observations: both views hold every seed of the game once, and mirror each other.
    let total = f32::from(g.game().total_seeds());
    for p in 0..2 {
        let o = s.observation_tensor(p);
        assert_eq!(o.len(), OBSERVATION_LEN);
        let seeds: f32 = o[..14].iter().chain(&o[28..30]).sum::<f32>() * total;
        assert!(
            (seeds - total).abs() < 1e-3,
            "{seeds} seeds seen, {total} in play"
        );
        assert_eq!(o[32] == 1.0, s.current_player() == Some(p));
        assert_eq!(o[33] == 1.0, g.round_starter().index() == p);
        let round = match g.mode() {
            Mode::Single => 0.0,
            Mode::Match => g.round() as f32 / s.get_game().max_rounds() as f32,
        };
        assert_eq!(o[34], round);
        let closed = o[14..28].iter().filter(|&&x| x == 1.0).count();
        assert_eq!(closed, g.position().closed_mask().count_ones() as usize);
    }
    let (a, b) = (s.observation_tensor(0), s.observation_tensor(1));
    assert_eq!(a[..7], b[7..14]);
    assert_eq!(a[14..21], b[21..28]);
    assert_eq!(a[28], b[29]);
    assert_eq!(a[33] + b[33], 1.0, "one of the two started the round");
    assert_eq!(a[34], b[34]);
    assert_eq!(s.to_string(), Setup::from_state(g).to_string());
}

/// Plays a random game through the interface and through `GameState` side by side.
fn random_game(game: Game, mode: Mode, seed: u64, utility: Utility) -> SpielState {
    let sg = SpielGame::new(game, mode).with_utility(utility);
    let mut s = sg.new_initial_state();
    let mut g = GameState::new(game, mode, Side::South);
    let mut rng = Rng::new(seed);
    agree(&s, &g);
    let mut plies = 0;
    while !s.is_terminal() {
        let actions = s.legal_actions();
        let a = actions[rng.below(actions.len() as u32) as usize];
        let side = g.to_move().unwrap();
        let name = s.action_to_string(side.index(), a);
        assert_eq!(s.string_to_action(side.index(), &name).unwrap(), a);
        s.apply_action(a).unwrap();
        g.play(Hole::of_side(side, a)).unwrap();
        while g.is_round_over() && !g.is_over() && g.round() < sg.max_rounds() {
            assert!(g.next_round());
        }
        let terminal = s.is_terminal();
        assert_eq!(s.rewards(), if terminal { s.returns() } else { [0.0, 0.0] });
        agree(&s, &g);
        plies += 1;
        assert!(plies < 100_000, "a random game ends");
    }
    assert_eq!(s.history().len(), plies);
    s
}

#[test]
fn random_games_and_matches_agree_with_the_rules_move_by_move() {
    for game in Game::ALL {
        for m in [false, true] {
            for seed in 0..6 {
                random_game(game, mode_of(m), seed, Utility::WinLoss);
            }
        }
    }
}

#[test]
fn returns_name_the_winner_or_the_margin() {
    for game in Game::ALL {
        for seed in 0..20 {
            let s = random_game(game, Mode::Single, seed, Utility::WinLoss);
            let winner = s.game_state().winner().expect("over");
            let expected = match winner {
                Some(Side::South) => [1.0, -1.0],
                Some(Side::North) => [-1.0, 1.0],
                None => [0.0, 0.0],
            };
            assert_eq!(s.returns(), expected);
            let m = random_game(game, Mode::Single, seed, Utility::Margin);
            let stores = m.game_state().position().stores();
            let margin = f64::from(stores[0]) - f64::from(stores[1]);
            assert_eq!(m.returns(), [margin, -margin]);
            // The margin's sign is the winner (in a single game the stores start empty).
            let sign = if margin > 0.0 {
                1.0
            } else if margin < 0.0 {
                -1.0
            } else {
                0.0
            };
            assert_eq!(sign, expected[0]);
            assert!(margin.abs() <= m.get_game().max_utility());
        }
    }
}

#[test]
fn illegal_actions_are_refused_and_leave_the_state_unchanged() {
    let game = load_game("walak-pussa").unwrap();
    let mut s = game.new_initial_state();
    let before = s.clone();
    let e = s.apply_action(7).unwrap_err();
    assert!(
        matches!(e, SpielError::IllegalAction { action: 7, .. }),
        "{e}"
    );
    assert!(e.to_string().contains("outside 0..7"), "{e}");
    assert_eq!(s, before);
    // An empty hole: North's a after South's A (its four seeds went to the capture).
    s.apply_action(0).unwrap();
    assert_eq!(
        s.game_state()
            .position()
            .seeds(Hole::from_letter('a').unwrap()),
        0
    );
    let before = s.clone();
    let e = s.apply_action(0).unwrap_err().to_string();
    assert_eq!(e, "action 0: a: the hole is empty");
    assert_eq!(s, before);
    // An endless move: from this Walak-pussa position South's C sows for ever (the record
    // tests' position). Refused with the reason, the state unchanged.
    let setup: Setup = "0,1,1,0,1,0,1/2,1,0,2,1,0,1 45 0 S 1 walak-pussa"
        .parse()
        .unwrap();
    let g = SpielGame::new(Game::WalakPussa, Mode::Single)
        .with_start(setup)
        .unwrap();
    let mut s = g.new_initial_state();
    assert!(!s.legal_actions().contains(&2));
    let before = s.clone();
    let e = s.apply_action(2).unwrap_err().to_string();
    assert!(e.starts_with("action 2: C: endless sowing"), "{e}");
    assert_eq!(s, before);
    // After the end, every action is refused as such.
    let mut over = random_game(Game::RajaPasu, Mode::Match, 3, Utility::WinLoss);
    let e = over.apply_action(0).unwrap_err().to_string();
    assert_eq!(e, "action 0: the match is over");
    let mut over = random_game(Game::RajaPasu, Mode::Single, 3, Utility::WinLoss);
    let e = over.apply_action(0).unwrap_err().to_string();
    assert_eq!(e, "action 0: the game is over");
    assert!(over.legal_actions().is_empty());
    assert_eq!(over.current_player(), None);
}

#[test]
fn undo_takes_back_one_action_at_a_time_to_the_initial_state() {
    for game in Game::ALL {
        let end = random_game(game, Mode::Match, 11, Utility::WinLoss);
        let game_ = end.get_game().clone();
        // Every prefix, built forward, equals the end undone back to it.
        let mut forward = vec![game_.new_initial_state()];
        for &a in end.history() {
            let next = forward.last().unwrap().child(a).unwrap();
            forward.push(next);
        }
        let mut s = end.clone();
        for k in (0..end.history().len()).rev() {
            s.undo_action().unwrap();
            assert_eq!(s, forward[k], "{} after undoing to {k}", game.name());
        }
        assert_eq!(s.undo_action(), Err(SpielError::NothingToUndo));
        assert_eq!(s, game_.new_initial_state());
    }
}

#[test]
fn a_serialized_state_reads_back_as_the_same_state() {
    for game in Game::ALL {
        for m in [false, true] {
            let end = random_game(game, mode_of(m), 5, Utility::WinLoss);
            let sg = end.get_game().clone();
            // The end, and a state halfway (in a later round of a match, with closed holes).
            let mut half = sg.new_initial_state();
            for &a in &end.history()[..end.history().len() / 2] {
                half.apply_action(a).unwrap();
            }
            for s in [&end, &half] {
                let text = s.serialize();
                let back = sg.deserialize_state(&text).unwrap();
                assert_eq!(&back, s);
                assert_eq!(back.serialize(), text);
            }
            assert!(end
                .serialize()
                .contains(&format!("[Game \"{}\"]", game.name())));
        }
    }
    // Another game's record, another mode's, or a broken one is refused with the reason.
    let raja = load_game("raja-pasu").unwrap();
    let walak = load_game("walak-pussa").unwrap();
    let text = walak.new_initial_state().serialize();
    let e = raja.deserialize_state(&text).unwrap_err().to_string();
    assert!(e.contains("a record of walak-pussa"), "{e}");
    let e = load_game("raja-pasu(mode=match)")
        .unwrap()
        .deserialize_state(&raja.new_initial_state().serialize())
        .unwrap_err()
        .to_string();
    assert!(e.contains("(single)"), "{e}");
    assert!(raja
        .deserialize_state("[Game \"raja-pasu\"]\n\n1. Q *")
        .is_err());
}

#[test]
fn a_start_position_and_north_first_serialize_with_them() {
    let setup: Setup = "0,3,0,1,0,0,2/1,0,4,0,0,0,1 20 24 N 1 walak-pussa"
        .parse()
        .unwrap();
    let sg = SpielGame::new(Game::WalakPussa, Mode::Single)
        .with_start(setup)
        .unwrap();
    let mut s = sg.new_initial_state();
    assert_eq!(s.current_player(), Some(1));
    assert_eq!(s.to_string(), setup.to_string());
    let a = s.legal_actions()[0];
    s.apply_action(a).unwrap();
    let text = s.serialize();
    assert!(text.contains("[Position \""), "{text}");
    assert_eq!(sg.deserialize_state(&text).unwrap(), s);
    // The same record is refused by the game without that start.
    let plain = SpielGame::new(Game::WalakPussa, Mode::Single);
    let e = plain.deserialize_state(&text).unwrap_err().to_string();
    assert!(e.contains("it starts from"), "{e}");
    // North first.
    let n = load_game("pasu-pondi(first=N)")
        .unwrap()
        .new_initial_state();
    assert_eq!(n.current_player(), Some(1));
    assert_eq!(n.action_to_string(1, 2), "c");
    assert_eq!(n.action_to_string(0, 2), "C");
}

#[test]
fn game_strings_read_their_parameters_and_name_bad_ones() {
    let g = load_game(" Raja_Pasu ( mode = match , first = n , utility = margin ) ").unwrap();
    assert_eq!(g.game(), Game::RajaPasu);
    assert_eq!(g.mode(), Mode::Match);
    assert_eq!(g.utility(), Utility::Margin);
    assert_eq!(g.max_utility(), 98.0);
    assert_eq!(g.min_utility(), -98.0);
    assert_eq!(
        g.to_string(),
        "raja-pasu(mode=match,first=N,utility=margin,max_rounds=100)"
    );
    assert_eq!(load_game(&g.to_string()).unwrap(), g);
    assert_eq!(g.num_distinct_actions(), 7);
    assert_eq!(g.num_players(), 2);
    assert_eq!(g.observation_tensor_shape(), [OBSERVATION_LEN]);
    let w = load_game("walak-pussa").unwrap();
    assert_eq!(
        (w.mode(), w.utility(), w.max_utility()),
        (Mode::Single, Utility::WinLoss, 1.0)
    );
    let err = |s: &str| load_game(s).unwrap_err().to_string();
    // Parameter names in any case, like game names; duplicates, empty parameters and
    // anything after the ')' refused.
    assert_eq!(
        load_game("RAJA-PASU(MODE=MATCH,Max_Rounds=7)").unwrap(),
        SpielGame::new(Game::RajaPasu, Mode::Match).with_max_rounds(7)
    );
    assert_eq!(
        err("raja-pasu(mode=match,mode=single)"),
        "game parameter 'mode' is given twice"
    );
    assert!(err("raja-pasu(mode=match,)").contains("empty parameter"));
    assert!(err("raja-pasu()").contains("empty parameter"));
    assert_eq!(
        err("raja-pasu(mode=match)(x"),
        "game string 'raja-pasu(mode=match)(x': expected name or name(key=value,...)"
    );
    assert!(err("raja-pasu(mode=match)(x)").contains("expected name or name(key=value,...)"));
    assert!(err("raja-pasu(max_rounds=0)").contains("takes a number from 1"));
    assert!(err("oware").contains("oware"), "{}", err("oware"));
    assert_eq!(
        err("raja-pasu(mode=league)"),
        "game parameter mode='league': takes single or match"
    );
    assert_eq!(
        err("raja-pasu(seeds=5)"),
        "game parameter 'seeds' is unknown: the parameters are mode, first, utility and max_rounds"
    );
    assert_eq!(
        err("raja-pasu(mode)"),
        "game parameter 'mode': expected key=value"
    );
    assert!(err("raja-pasu(mode=match").contains("expected name or name(key=value,...)"));
    assert!(err("raja-pasu(first=E)").contains("takes S or N"));
    assert!(err("raja-pasu(utility=elo)").contains("win_loss or margin"));
}

#[test]
fn action_strings_and_information_states() {
    let mut s = load_game("raja-pasu").unwrap().new_initial_state();
    assert_eq!(s.string_to_action(0, "G").unwrap(), 6);
    assert_eq!(s.string_to_action(1, "g").unwrap(), 6);
    assert!(s.string_to_action(0, "H").is_err());
    assert!(s.string_to_action(0, "AB").is_err());
    assert!(s.string_to_action(0, "").is_err());
    // No made-up action in the error, and no spaces around the letter.
    for bad in ["", "AB", "é", " A", "A ", "H"] {
        assert_eq!(
            s.string_to_action(0, bad),
            Err(SpielError::NotAnAction { text: bad.into() })
        );
    }
    assert_eq!(
        s.string_to_action(0, "").unwrap_err().to_string(),
        "'' is not a hole letter A-G"
    );
    s.apply_action(6).unwrap();
    s.apply_action(4).unwrap();
    assert_eq!(s.information_state_string(0), "G e");
    assert_eq!(s.information_state_string(1), "G e");
    assert_eq!(s.observation_string(1), s.to_string());
    assert!(!s.is_chance_node());
}

#[test]
fn match_rounds_follow_each_other_inside_apply_action() {
    // A Walak-pussa match whose round 1 ends at once: South has one move, then North none.
    let setup: Setup = "0,0,0,0,0,0,1/0,0,0,0,0,0,0 50 5 S 1 walak-pussa"
        .parse()
        .unwrap();
    let sg = SpielGame::new(Game::WalakPussa, Mode::Match)
        .with_start(setup)
        .unwrap();
    let mut s = sg.new_initial_state();
    let mut rounds_seen = vec![s.game_state().round()];
    while !s.is_terminal() && s.history().len() < 2000 {
        let a = s.legal_actions()[0];
        s.apply_action(a).unwrap();
        // Never left between rounds: a state that is not over has a player to move.
        assert!(s.is_terminal() || s.current_player().is_some());
        assert!(s.is_truncated() || !matches!(s.game_state().status(), Status::RoundOver { .. }));
        rounds_seen.push(s.game_state().round());
    }
    assert!(rounds_seen.iter().any(|&r| r > 1), "{rounds_seen:?}");
}

/// Two states that differ only in who started the round have different futures (Pasu Pondi's
/// players take turns to start rounds), so their observation tensors differ, as their position
/// strings do; and the round number is there for the `max_rounds` stop.
#[test]
fn the_observation_tensor_holds_the_rounds_starter_and_number() {
    let at = |text: &str| {
        let setup: Setup = text.parse().unwrap();
        SpielGame::new(Game::PasuPondi, Mode::Match)
            .with_max_rounds(10)
            .with_start(setup)
            .unwrap()
            .new_initial_state()
    };
    let south = at("1,0,0,0,0,0,0/0,0,0,0,0,0,2 0+30 0+37 S 2 pasu-pondi");
    let north = at("1,0,0,0,0,0,0/0,0,0,0,0,0,2 0+30 0+37 S 2 pasu-pondi N");
    assert_ne!(south.observation_string(0), north.observation_string(0));
    for p in 0..2 {
        let (s, n) = (south.observation_tensor(p), north.observation_tensor(p));
        assert_ne!(s, n, "player {p} tells the two states apart");
        assert_eq!((s[33], n[33]), if p == 0 { (1.0, 0.0) } else { (0.0, 1.0) });
        assert_eq!((s[34], n[34]), (0.2, 0.2), "round 2 of at most 10");
    }
    // The same action leads to different states: the next round's starter differs.
    let (mut s, mut n) = (south.clone(), north.clone());
    s.apply_action(0).unwrap();
    n.apply_action(0).unwrap();
    assert_eq!((s.current_player(), n.current_player()), (Some(1), Some(0)));
    assert_eq!(s.observation_tensor(0)[34], 0.3);
    assert_eq!(s.observation_tensor(0)[33], 0.0);
    assert_eq!(n.observation_tensor(0)[33], 1.0);
    // A single game has no rounds to count.
    let single = SpielGame::new(Game::PasuPondi, Mode::Single).new_initial_state();
    assert_eq!(single.observation_tensor(0)[34], 0.0);
    assert_eq!(single.observation_tensor(0)[33], 1.0, "South starts");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any sequence of actions, legal or not: a refused one changes nothing, an accepted one
    /// is the rules' move, and a serialized state always reads back.
    #[test]
    fn any_actions_keep_the_state_consistent(
        g in 0usize..4,
        m in any::<bool>(),
        actions in proptest::collection::vec(0usize..9, 0..120),
    ) {
        let game = Game::ALL[g];
        let sg = SpielGame::new(game, mode_of(m));
        let mut s = sg.new_initial_state();
        for a in actions {
            let before = s.clone();
            match s.apply_action(a) {
                Ok(()) => {
                    prop_assert!(before.legal_actions().contains(&a));
                    prop_assert_eq!(s.history().len(), before.history().len() + 1);
                }
                Err(_) => {
                    prop_assert!(!before.legal_actions().contains(&a));
                    prop_assert_eq!(&s, &before);
                }
            }
        }
        let back = sg.deserialize_state(&s.serialize()).unwrap();
        prop_assert_eq!(back, s);
    }
}

/// The README's loop: always the first legal action. In a match that circles for ever by the
/// rules; the game's max_rounds stops it, a draw.
#[test]
fn the_readme_deterministic_loop_ends_in_every_game() {
    for game in Game::ALL {
        for text in [
            "(mode=match,utility=margin)",
            "(mode=match)",
            "(mode=single)",
        ] {
            let sg = load_game(&format!("{}{text}", game.name())).unwrap();
            let mut state = sg.new_initial_state();
            let mut n = 0;
            while !state.is_terminal() {
                let a = state.legal_actions()[0];
                state.apply_action(a).unwrap();
                n += 1;
                assert!(n <= sg.max_game_length(), "{} {text}", game.name());
            }
            let r = state.returns();
            assert_eq!(r[0], -r[1]);
            assert_eq!(state.rewards(), r);
            if state.is_truncated() {
                assert_eq!(sg.mode(), Mode::Match);
                assert_eq!(r, [0.0, 0.0]);
                assert_eq!(state.game_state().round(), 100);
                assert!(state.apply_action(0).is_err());
                // The truncated state reads back as itself.
                assert_eq!(sg.deserialize_state(&state.serialize()).unwrap(), state);
                // One action back it is not terminal.
                let mut back = state.clone();
                back.undo_action().unwrap();
                assert!(!back.is_terminal());
            }
        }
    }
    // A lower bound stops it sooner.
    let sg = load_game("walak-pussa(mode=match,max_rounds=3)").unwrap();
    let mut state = sg.new_initial_state();
    while !state.is_terminal() {
        state.apply_action(state.legal_actions()[0]).unwrap();
    }
    assert!(state.is_truncated());
    assert_eq!(state.game_state().round(), 3);
}

// ---- QA fixes: the repetition history, with_first, the margin of a later round ----

/// Plays random actions from `game`'s initial state until one of the legal actions would end
/// the round by repetition; `None` if the game ends first.
fn random_state_with_a_repetition(game: &SpielGame, seed: u64) -> Option<SpielState> {
    let mut rng = Rng::new(seed);
    let mut s = game.new_initial_state();
    while !s.is_terminal() {
        if !s.repetition_actions().is_empty() {
            return Some(s);
        }
        let l = s.legal_actions();
        s.apply_action(l[rng.below(l.len() as u32) as usize])
            .unwrap();
    }
    None
}

#[test]
fn repetition_actions_name_what_the_observation_leaves_out() {
    for name in [
        "walak-pussa",
        "raja-pasu",
        "pasu-pondi",
        "pasu-pondi-6(mode=match)",
    ] {
        let game = load_game(name).unwrap();
        let mut found = 0;
        for seed in 0..400 {
            let Some(s) = random_state_with_a_repetition(&game, seed) else {
                continue;
            };
            found += 1;
            // Exactly the legal actions whose move ends the round by repetition.
            let g = s.game_state();
            for a in s.legal_actions() {
                let mut after = g.clone();
                let report = after.play(Hole::of_side(g.to_move().unwrap(), a)).unwrap();
                let repeats = matches!(
                    report.round_end.map(|r| r.reason),
                    Some(pussa_rules::EndReason::Repetition)
                );
                assert_eq!(
                    s.repetition_actions().contains(&a),
                    repeats,
                    "{name} {s} {a}"
                );
            }
            // The same position with no history: the same observation, no repetition.
            let fresh = game
                .clone()
                .with_start(Setup::from_state(g))
                .unwrap()
                .new_initial_state();
            for p in 0..2 {
                assert_eq!(fresh.observation_tensor(p), s.observation_tensor(p));
                assert_eq!(fresh.observation_string(p), s.observation_string(p));
            }
            assert!(fresh.repetition_actions().is_empty(), "{name} {s}");
            if found == 5 {
                break;
            }
        }
        assert!(
            found > 0,
            "{name}: no state with a repetition in 400 random games"
        );
    }
    // A terminal state has none.
    let mut s = load_game("walak-pussa").unwrap().new_initial_state();
    while !s.is_terminal() {
        s.apply_action(s.legal_actions()[0]).unwrap();
    }
    assert!(s.repetition_actions().is_empty());
}

#[test]
fn with_first_on_a_game_with_a_start_is_refused_unless_it_is_the_starts_mover() {
    let start: Setup = "0,0,0,0,0,1,2/1,0,0,0,0,0,0 40 54 S 1 raja-pasu"
        .parse()
        .unwrap();
    let game = load_game("raja-pasu").unwrap().with_start(start).unwrap();
    assert_eq!(game.first(), Side::South);
    assert_eq!(game.start(), Some(start));
    let err = game.clone().with_first(Side::North).unwrap_err();
    assert_eq!(
        err,
        SpielError::FirstNotStartsMover {
            first: Side::North,
            to_move: Side::South
        }
    );
    assert_eq!(
        err.to_string(),
        "first=N: South moves first from the game's start position"
    );
    // The start's own mover is accepted, and changes nothing.
    assert_eq!(game.clone().with_first(Side::South).unwrap(), game);
    // Without a start, first is who moves first; the getters say so.
    let north = load_game("raja-pasu")
        .unwrap()
        .with_first(Side::North)
        .unwrap();
    assert_eq!((north.first(), north.start()), (Side::North, None));
    assert_eq!(north.new_initial_state().current_player(), Some(1));
    // Every game the builders can make survives serde, equal.
    for g in [&game, &north] {
        let json = serde_json::to_string(g).unwrap();
        let back: SpielGame = serde_json::from_str(&json).unwrap();
        assert_eq!(&back, g, "{json}");
        assert_eq!(back.to_string(), g.to_string());
        let state = g.new_initial_state();
        let json = serde_json::to_string(&state).unwrap();
        let back: SpielState = serde_json::from_str(&json).unwrap();
        assert_eq!(back, state, "{json}");
    }
}

#[test]
fn a_start_at_a_round_that_is_over_has_the_next_rounds_starter_move_first() {
    // Round 1 of a match is over with North to move; South took the leftovers and starts
    // round 2.
    let over: Setup = "0,0,0,0,0,0,0/0,0,0,0,0,0,0 65 33 N 1 raja-pasu S"
        .parse()
        .unwrap();
    let g = load_game("raja-pasu(mode=match)")
        .unwrap()
        .with_start(over)
        .unwrap();
    let x = g.new_initial_state();
    assert_eq!(x.current_player(), Some(0));
    assert_eq!(g.first(), Side::South);
    // `first` was not given, so the game string leaves it out.
    assert_eq!(
        g.to_string(),
        "raja-pasu(mode=match,utility=win_loss,max_rounds=100)"
    );
    // The state's record and its game agree on who moves first.
    assert!(x.serialize().contains("[First \"S\"]"), "{}", x.serialize());
    // with_first accepts the side that really moves first and refuses the other, truly.
    assert_eq!(g.clone().with_first(Side::South).unwrap(), g);
    let err = g.clone().with_first(Side::North).unwrap_err();
    assert_eq!(
        err,
        SpielError::FirstNotStartsMover {
            first: Side::North,
            to_move: Side::South
        }
    );
    assert_eq!(
        err.to_string(),
        "first=N: South moves first from the game's start position"
    );
    // An explicit first= that contradicts the start is refused by with_start too, in either
    // order; one that agrees is accepted.
    let err = load_game("raja-pasu(mode=match,first=N)")
        .unwrap()
        .with_start(over)
        .unwrap_err();
    assert_eq!(
        err,
        SpielError::FirstNotStartsMover {
            first: Side::North,
            to_move: Side::South
        }
    );
    let south_to_move: Setup = "0,0,0,0,0,1,2/1,0,0,0,0,0,0 40 54 S 1 raja-pasu"
        .parse()
        .unwrap();
    assert!(load_game("raja-pasu(first=N)")
        .unwrap()
        .with_start(south_to_move)
        .is_err());
    assert!(load_game("raja-pasu")
        .unwrap()
        .with_first(Side::North)
        .unwrap()
        .with_start(south_to_move)
        .is_err());
    assert_eq!(
        load_game("raja-pasu(first=S)")
            .unwrap()
            .with_start(south_to_move)
            .unwrap()
            .first(),
        Side::South
    );
    // Serde round-trips the game, its first mover included.
    let json = serde_json::to_string(&g).unwrap();
    let back: SpielGame = serde_json::from_str(&json).unwrap();
    assert_eq!(back, g, "{json}");
    assert_eq!(back.first(), Side::South);
}

#[test]
fn the_observation_string_of_a_repetition_ending_has_the_marker_the_tensor_leaves_out() {
    // Two seeds chase each other round the board; South's F then repeats a position and ends
    // the single game.
    let start: Setup = "0,0,0,0,0,0,1/0,0,0,0,0,0,1 46 50 S 1 raja-pasu"
        .parse()
        .unwrap();
    let game = load_game("raja-pasu").unwrap().with_start(start).unwrap();
    let mut s = game.new_initial_state();
    for a in [6, 6, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5] {
        s.apply_action(a).unwrap();
    }
    let before = s.observation_tensor(0);
    s.apply_action(5).unwrap();
    assert!(s.is_terminal());
    for player in 0..2 {
        let text = s.observation_string(player);
        assert!(text.ends_with(" repetition"), "{text}");
        // The same position without the marker (a round ended with no legal move) has the
        // same tensor: the marker is the one thing the string holds and the tensor does not.
        let unmarked: Setup = text.trim_end_matches(" repetition").parse().unwrap();
        let other = game
            .clone()
            .with_start(unmarked)
            .unwrap()
            .new_initial_state();
        assert!(other.is_terminal());
        assert!(!other.observation_string(player).ends_with("repetition"));
        assert_eq!(
            other.observation_tensor(player),
            s.observation_tensor(player)
        );
    }
    assert_ne!(before, s.observation_tensor(0));
}

#[test]
fn the_margin_of_a_single_game_from_a_later_round_counts_the_seeds_taken_in_it() {
    // Round 3 of a Raja Pasu match played alone: North carries 14 seeds in.
    let start: Setup = "x,x,7,7,7,7,7/7,7,7,7,7,7,7 0 14 S 3 raja-pasu"
        .parse()
        .unwrap();
    let win_loss = load_game("raja-pasu").unwrap().with_start(start).unwrap();
    let margin = win_loss.clone().with_utility(Utility::Margin);
    let mut rng = Rng::new(11);
    let mut checked = 0;
    for _ in 0..200 {
        let (mut a, mut b) = (win_loss.new_initial_state(), margin.new_initial_state());
        while !a.is_terminal() {
            let l = a.legal_actions();
            let x = l[rng.below(l.len() as u32) as usize];
            a.apply_action(x).unwrap();
            b.apply_action(x).unwrap();
        }
        let Status::Over { result, .. } = b.game_state().status() else {
            panic!("not over: {b}");
        };
        let m = f64::from(result.taken[0]) - f64::from(result.taken[1]);
        assert_eq!(b.returns(), [m, -m], "{b}");
        // The margin's sign is the result's.
        let sign = |x: f64| (x > 0.0) as i32 - (x < 0.0) as i32;
        assert_eq!(sign(b.returns()[0]), sign(a.returns()[0]), "{b}");
        checked += 1;
    }
    assert_eq!(checked, 200);
}

#[test]
fn utility_reads_and_writes_its_name() {
    for u in Utility::ALL {
        assert_eq!(u.to_string(), u.name());
        assert_eq!(u.name().parse::<Utility>().unwrap(), u);
    }
    assert_eq!(" Margin ".parse::<Utility>().unwrap(), Utility::Margin);
    let err = "elo".parse::<Utility>().unwrap_err();
    assert_eq!(
        err.to_string(),
        "unknown utility 'elo': expected win_loss or margin"
    );
    // The game string's own message is kept.
    assert_eq!(
        load_game("raja-pasu(utility=elo)").unwrap_err().to_string(),
        "game parameter utility='elo': takes win_loss or margin"
    );
}

#[test]
fn a_game_round_tripped_through_its_string_accepts_the_same_starts() {
    let north_to_move: Setup = "0,0,0,0,0,1,2/1,0,0,0,0,0,0 40 54 N 1 raja-pasu"
        .parse()
        .unwrap();
    let g = load_game("raja-pasu").unwrap();
    assert_eq!(
        g.to_string(),
        "raja-pasu(mode=single,utility=win_loss,max_rounds=100)"
    );
    let back = load_game(&g.to_string()).unwrap();
    assert_eq!(back, g);
    let started = back.with_start(north_to_move).unwrap();
    assert_eq!(started.first(), Side::North);
    // Through serde too.
    let json = serde_json::to_string(&g).unwrap();
    let back: SpielGame = serde_json::from_str(&json).unwrap();
    assert_eq!(back.with_start(north_to_move).unwrap().first(), Side::North);
    // A game given first=S keeps it through its string, and still refuses North's start.
    let given = load_game("raja-pasu(first=S)").unwrap();
    assert_eq!(
        given.to_string(),
        "raja-pasu(mode=single,first=S,utility=win_loss,max_rounds=100)"
    );
    let back = load_game(&given.to_string()).unwrap();
    assert_eq!(back, given);
    assert!(back.with_start(north_to_move).is_err());
    // Equality follows behaviour: given first=S is not the defaulted South.
    assert_ne!(given, g);
}

#[test]
fn old_form_json_of_a_start_at_a_round_that_is_over_still_reads() {
    // Older versions always wrote first=, as the start's side to move (N here), though South,
    // who took the leftovers, starts round 2.
    let json = r#"{"game":"raja-pasu(mode=match,first=N,utility=win_loss,max_rounds=100)","start":"0,0,0,0,0,0,0/0,0,0,0,0,0,0 65 33 N 1 raja-pasu S"}"#;
    let g: SpielGame = serde_json::from_str(json).unwrap();
    assert_eq!(g.first(), Side::South);
    assert_eq!(g.new_initial_state().current_player(), Some(0));
    let again: SpielGame = serde_json::from_str(&serde_json::to_string(&g).unwrap()).unwrap();
    assert_eq!(again, g);
}

/// A game with a start moves first with the side the start's `GameState::next_mover` names,
/// which is the initial state's player to move: every position of random matches of every
/// game, rounds over included, as single games and matches.
#[test]
fn a_starts_first_mover_is_its_next_mover_and_the_initial_states_player() {
    let mut rng = Rng::new(33);
    let mut over = 0;
    for game in Game::ALL {
        for _ in 0..4 {
            let mut g = GameState::new(game, Mode::Match, Side::South);
            while !g.is_over() {
                let setup = Setup::from_state(&g);
                for mode in ["single", "match"] {
                    let Ok(started) = load_game(&format!("{}(mode={mode})", game.name()))
                        .unwrap()
                        .with_start(setup)
                    else {
                        continue;
                    };
                    let state = setup.game_state(started.mode()).unwrap();
                    assert_eq!(started.first(), state.next_mover(), "{setup}, {mode}");
                    if let Some(p) = started.new_initial_state().current_player() {
                        assert_eq!(p, started.first().index(), "{setup}, {mode}");
                    }
                }
                if g.is_round_over() {
                    over += 1;
                    g.next_round();
                    continue;
                }
                let legal = g.legal_moves();
                g.play(legal.nth(rng.below(legal.len() as u32) as usize).unwrap())
                    .unwrap();
            }
        }
    }
    assert!(over > 20, "{over} rounds over");
}

/// `first` does not depend on `max_rounds`: a start whose round is over at the round limit (the
/// initial state is terminal, nobody moves) names the next round's starter, as the record of
/// that state does.
#[test]
fn a_start_over_at_the_round_limit_names_the_next_rounds_starter() {
    let over: Setup = "0,0,0,0,0,0,0/0,0,0,0,0,0,0 65 33 N 1 raja-pasu S"
        .parse()
        .unwrap();
    let g = load_game("raja-pasu(mode=match,max_rounds=1)")
        .unwrap()
        .with_start(over)
        .unwrap();
    let x = g.new_initial_state();
    assert!(x.is_terminal());
    assert_eq!(g.first(), Side::South);
    assert!(x.serialize().contains("[First \"S\"]"), "{}", x.serialize());
    assert!(g.deserialize_state(&x.serialize()).unwrap().is_terminal());
}
