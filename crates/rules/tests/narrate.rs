//! `pussa_rules::narrate`: every move of random games and matches of every game is told
//! consistently with its trace (a line per lap, per capture, the stop, the chain's end), the
//! seeds each player is told to take are what the position's stores gained, the round ends,
//! refills and results are told with the state's numbers, and no input a caller can build
//! (positions, event lists and results made up at random) makes a function panic.

use proptest::prelude::*;
use pussa_rules::narrate;
use pussa_rules::{
    EndReason, Event, Game, GameState, Hole, Mode, MoveOutcome, Moves, Position, Rng, RoundResult,
    Setup, Side, Status,
};

fn side_index(word: &str) -> usize {
    match word {
        "South" => 0,
        "North" => 1,
        other => panic!("not a side: {other:?}"),
    }
}

/// The seeds each player (`[South, North]`) is told to take in a move's lines: captures
/// ("…, b, holds 6: South takes them"), a four ("G reaches 4: South takes 4"), several fours of
/// one player ("North takes a four twice (8 seeds): f, b") or of both ("fours are taken
/// (12 seeds): e by South, a by North, c by South").
fn told_takings(lines: &[String]) -> [u32; 2] {
    let mut t = [0u32; 2];
    for l in lines {
        if let Some((_, rest)) = l.split_once(", holds ") {
            let (n, rest) = rest.split_once(": ").expect("holds N: X takes");
            let who = rest.split(' ').next().unwrap();
            assert!(rest[who.len()..].starts_with(" takes "), "{l}");
            t[side_index(who)] += n.parse::<u32>().unwrap();
            continue;
        }
        if let Some(head) = l.strip_suffix(" takes 4") {
            t[side_index(head.rsplit(' ').next().unwrap())] += 4;
        } else if let Some((head, rest)) = l.split_once(" takes a four ") {
            let who = head.rsplit(' ').next().unwrap();
            let n = rest
                .split_once('(')
                .and_then(|(_, r)| r.split_once(" seeds)"))
                .map(|(n, _)| n.parse::<u32>().unwrap())
                .expect("(N seeds)");
            t[side_index(who)] += n;
        } else if let Some((_, rest)) = l.split_once("fours are taken (") {
            for part in rest.split(", ") {
                if let Some((_, who)) = part.split_once(" by ") {
                    t[side_index(who)] += 4;
                }
            }
        }
    }
    t
}

fn mode_of(m: bool) -> Mode {
    if m {
        Mode::Match
    } else {
        Mode::Single
    }
}

/// Plays a random game or match to its end (or `max_moves` moves), telling every move, round
/// end, refill and result, and checking each against the state.
fn tell_a_random_game(game: Game, mode: Mode, first: Side, seed: u64, max_moves: usize) {
    let mut rng = Rng::new(seed);
    let mut g = GameState::new(game, mode, first);
    for _ in 0..max_moves {
        assert_eq!(narrate::result(&g).is_some(), g.is_over());
        assert_eq!(narrate::game_over(&g).is_some(), g.is_over());
        if g.is_over() {
            return;
        }
        if let Status::RoundOver { next_starter, .. } = g.status() {
            let holding = narrate::holding(&g);
            let [s, n] = g.position().stores();
            assert!(
                holding.starts_with(&format!("Holding: South {s}, North {n}; {next_starter} ")),
                "{holding}"
            );
            let mut events = Vec::new();
            assert!(g.next_round_traced(&mut events));
            let lines = narrate::refill_lines(game, &events);
            assert_eq!(lines.len(), 4, "{lines:#?}");
            assert_eq!(lines[0], format!("Round {}:", g.round()));
            assert_eq!(lines[3], format!("  {} starts.", g.position().to_move()));
            continue;
        }
        let legal = g.legal_moves();
        let mv = legal.nth(rng.below(legal.len() as u32) as usize).unwrap();
        let before = *g.position();
        // The position once the move is sown, before a round's end sweeps the board.
        let mut after = before;
        let outcome = after.play(mv).unwrap();
        let mut events = Vec::new();
        let report = g.play_traced(mv, &mut events).unwrap();
        let lines = narrate::move_lines(&before, &events);
        // The seeds each player is told to take are what the position's stores gained.
        let gained = [
            u32::from(after.store(Side::South) - before.store(Side::South)),
            u32::from(after.store(Side::North) - before.store(Side::North)),
        ];
        assert_eq!(told_takings(&lines), gained, "{before:?} {mv}: {lines:#?}");
        // Each capture is told with its hole and its seeds.
        for e in &events {
            if let Event::Capture {
                hole, seeds, by, ..
            } = e
            {
                let words = format!("{hole}, holds {seeds}: {by} takes ");
                assert!(
                    lines.iter().any(|l| l.contains(&words)),
                    "{words:?} in {lines:#?}"
                );
            }
        }
        let phrase = narrate::outcome(&outcome);
        let [s, n] = outcome.taken;
        let laps = outcome.laps;
        assert!(phrase.starts_with(&format!("{laps} lap")), "{phrase}");
        match (s, n) {
            (0, 0) => assert!(phrase.ends_with(", nothing taken"), "{phrase}"),
            (s, 0) => assert!(phrase.ends_with(&format!(", South takes {s}")), "{phrase}"),
            (0, n) => assert!(phrase.ends_with(&format!(", North takes {n}")), "{phrase}"),
            (s, n) => assert!(
                phrase.ends_with(&format!(", South takes {s}, North takes {n}")),
                "{phrase}"
            ),
        }
        if let Some(r) = report.round_end {
            let words = narrate::round_end(game, &r);
            assert!(
                words.starts_with(&format!("Round {} is over: ", r.round)),
                "{words}"
            );
            let [s, n] = r.taken;
            assert!(
                words.contains(&format!(". Taken in the round: South {s}, North {n}; ")),
                "{words}"
            );
            assert!(!narrate::end_reason(&r).is_empty());
        }
    }
}

/// Narrates every move of random matches of every game and checks the story against the
/// trace: one line per lap, one per capture, the stop, and the chain's end in Walak-pussa,
/// with every ending of the chain met.
#[test]
fn every_move_of_random_games_is_told_consistently() {
    let mut rng = Rng::new(12);
    // Which of the chain's endings have been told.
    let mut endings = [false; 4];
    for game in Game::ALL {
        for _ in 0..30 {
            let mut g = GameState::new(game, Mode::Match, Side::South);
            while !g.is_over() {
                if g.is_round_over() {
                    g.next_round();
                    continue;
                }
                let legal = g.legal_moves();
                let mv = legal.nth(rng.below(legal.len() as u32) as usize).unwrap();
                let before = *g.position();
                let mut events = Vec::new();
                g.play_traced(mv, &mut events).unwrap();
                let lines = narrate::move_lines(&before, &events);
                let count = |p: &dyn Fn(&Event) -> bool| events.iter().filter(|e| p(e)).count();
                let lifts = count(&|e| matches!(e, Event::Lift { .. }));
                let captures = count(&|e| matches!(e, Event::Capture { .. }));
                let fours = count(&|e| matches!(e, Event::Four { .. }));
                assert_eq!(
                    lines.iter().filter(|l| l.starts_with("lift ")).count(),
                    lifts
                );
                assert_eq!(
                    lines
                        .iter()
                        .filter(|l| {
                            ["takes them", "takes them too", "takes it", "takes it too"]
                                .iter()
                                .any(|w| l.ends_with(w))
                        })
                        .count(),
                    captures,
                    "{lines:#?}"
                );
                assert_eq!(
                    lines
                        .iter()
                        .filter(|l| l.ends_with(": sowing ends"))
                        .count(),
                    1
                );
                // One four a line ("reaches 4"), or several with their seeds ("(8 seeds)").
                let told_fours: usize = lines
                    .iter()
                    .map(|l| {
                        if l.contains(" reaches 4") {
                            1
                        } else if let Some((_, rest)) = l.split_once("four") {
                            let rest = rest.split_once(" (").map_or("", |(_, r)| r);
                            let n: usize = rest
                                .split_once(" seeds)")
                                .and_then(|(n, _)| n.parse().ok())
                                .unwrap_or(0);
                            n / 4
                        } else {
                            0
                        }
                    })
                    .sum();
                assert_eq!(told_fours, fours, "{lines:#?}");
                let chain_end = lines
                    .iter()
                    .filter(|l| l.ends_with("the chain stops"))
                    .count();
                assert_eq!(
                    chain_end,
                    usize::from(game.chain_capture() && captures > 0),
                    "{lines:#?}"
                );
                if captures == 0 {
                    assert!(
                        lines.last().unwrap().ends_with("nothing is taken"),
                        "{lines:#?}"
                    );
                }
                for l in &lines {
                    for (k, words) in [
                        "too",
                        "not empty, so the chain stops",
                        "where the last seed fell: the chain stops",
                    ]
                    .into_iter()
                    .enumerate()
                    {
                        endings[k] |= l.ends_with(words);
                    }
                    endings[3] |= l.contains(", and so is ");
                }
            }
        }
    }
    assert_eq!(
        endings, [true; 4],
        "chained capture, the chain's three endings"
    );
}

/// The words of the end of a match, as `pussa replay` ends one: who is short of a hole's seeds.
/// The first move of a match from a position whose round is over, traced as the server traces
/// it (the round's end, the next round's refill, then the move), is told from the round laid
/// out: `move_lines` of the position as given and the whole trace gives the lines of the
/// laid-out position and the move's own events. Every round-opening move of random matches
/// of every game, with each starting position read back from its setup text.
#[test]
fn a_trace_that_starts_with_a_round_end_and_a_refill_is_told_from_the_laid_out_round() {
    let mut rng = Rng::new(21);
    let mut checked = 0;
    for game in Game::ALL {
        for _ in 0..10 {
            let mut g = GameState::new(game, Mode::Match, Side::South);
            while !g.is_over() {
                if let Status::RoundOver { result, .. } = g.status() {
                    // The round-over position as a game is started from it.
                    let setup = Setup::from_state(&g);
                    let text = setup.to_string();
                    let mut from: GameState = text
                        .parse::<Setup>()
                        .unwrap()
                        .game_state(Mode::Match)
                        .unwrap();
                    assert!(from.is_round_over(), "{text}");
                    let given = *from.position();
                    let mut events = vec![Event::RoundEnd {
                        reason: result.reason,
                        swept: result.swept,
                    }];
                    assert!(from.next_round_traced(&mut events));
                    let laid_out = *from.position();
                    let legal = from.legal_moves();
                    let mv = legal.nth(rng.below(legal.len() as u32) as usize).unwrap();
                    let laid = events.len();
                    from.play_traced(mv, &mut events).unwrap();
                    assert_eq!(
                        narrate::move_lines(&given, &events),
                        narrate::move_lines(&laid_out, &events[laid..]),
                        "{text}, then {mv}"
                    );
                    checked += 1;
                    g.next_round();
                    continue;
                }
                let legal = g.legal_moves();
                let mv = legal.nth(rng.below(legal.len() as u32) as usize).unwrap();
                g.play(mv).unwrap();
            }
        }
    }
    assert!(checked > 100, "{checked} round-opening moves");
}

#[test]
fn a_match_ends_with_who_cannot_fill_a_hole() {
    let mut rng = Rng::new(7);
    let mut g = GameState::new(Game::RajaPasu, Mode::Match, Side::South);
    while !g.is_over() {
        if g.is_round_over() {
            g.next_round();
            continue;
        }
        let legal = g.legal_moves();
        g.play(legal.nth(rng.below(legal.len() as u32) as usize).unwrap())
            .unwrap();
    }
    let over = narrate::game_over(&g).unwrap();
    let result = narrate::result(&g).unwrap();
    let short = narrate::short_holding(g.position().stores(), 7).unwrap();
    assert!(
        over.starts_with(&format!(
            "{short}, too few to fill a hole of 7 seeds, so the match is over: "
        )),
        "{over}"
    );
    assert!(
        result.ends_with(&format!(": {short}, too few to fill a hole of 7 seeds")),
        "{result}"
    );
}

/// `holding` reads the next round's starter from the state: a round over in a match names
/// the starter its status holds, and a finished match (no round follows) gives the holdings
/// alone, never "will start round N+1".
#[test]
fn holding_names_the_states_starter_and_no_round_after_a_finished_match() {
    let mut rng = Rng::new(5);
    for game in Game::ALL {
        let mut g = GameState::new(game, Mode::Match, Side::North);
        while !g.is_over() {
            let [s, n] = g.position().stores();
            if let Status::RoundOver { next_starter, .. } = g.status() {
                assert_eq!(
                    narrate::holding(&g),
                    format!(
                        "Holding: South {s}, North {n}; {next_starter} will start round {}.",
                        g.round() + 1
                    )
                );
                g.next_round();
                continue;
            }
            let legal = g.legal_moves();
            g.play(legal.nth(rng.below(legal.len() as u32) as usize).unwrap())
                .unwrap();
        }
        let [s, n] = g.position().stores();
        let held = format!("Holding: South {s}, North {n}.");
        assert_eq!(narrate::holding(&g), held, "{game:?}");
        assert_eq!(narrate::final_holding(&g), held);
    }
}

/// `game_over_with` is `game_over` with the winner named by the caller, nothing else changed:
/// random finished single games (from round 1 and later rounds) and matches of every game.
#[test]
fn game_over_with_names_the_winner_and_says_the_rest_as_game_over() {
    let name = |s: Side| match s {
        Side::South => "Ann".to_string(),
        Side::North => "Bob".to_string(),
    };
    let mut rng = Rng::new(9);
    let mut seen = 0;
    for game in Game::ALL {
        for mode in [Mode::Single, Mode::Match] {
            for _ in 0..3 {
                let mut g = GameState::new(game, Mode::Match, Side::South);
                // A single game from a later round of a match, or from the start.
                let rounds = if mode == Mode::Single {
                    rng.below(3)
                } else {
                    0
                };
                let mut g = loop {
                    if g.is_over() {
                        break g;
                    }
                    if g.is_round_over() {
                        if mode == Mode::Single && g.round() > rounds {
                            break g;
                        }
                        g.next_round();
                        continue;
                    }
                    let legal = g.legal_moves();
                    g.play(legal.nth(rng.below(legal.len() as u32) as usize).unwrap())
                        .unwrap();
                };
                if mode == Mode::Single {
                    if g.is_over() {
                        continue;
                    }
                    g.next_round();
                    let setup = Setup::from_state(&g);
                    g = setup.game_state(Mode::Single).unwrap();
                    while !g.is_over() {
                        let legal = g.legal_moves();
                        g.play(legal.nth(rng.below(legal.len() as u32) as usize).unwrap())
                            .unwrap();
                    }
                }
                let plain = narrate::game_over(&g).unwrap();
                let named = narrate::game_over_with(&g, name).unwrap();
                let expected = match g.winner().unwrap() {
                    Some(w) => {
                        plain.replacen(&format!("{w} wins"), &format!("{} wins", name(w)), 1)
                    }
                    None => plain.clone(),
                };
                assert_eq!(named, expected, "{plain}");
                seen += 1;
            }
        }
    }
    assert!(seen >= 12, "{seen}");
}

fn hole() -> impl Strategy<Value = Hole> {
    (0usize..14).prop_map(|i| Hole::ALL[i])
}

fn side() -> impl Strategy<Value = Side> {
    any::<bool>().prop_map(|b| if b { Side::North } else { Side::South })
}

fn game() -> impl Strategy<Value = Game> {
    (0usize..4).prop_map(|i| Game::ALL[i])
}

fn reason() -> impl Strategy<Value = EndReason> {
    prop_oneof![
        Just(EndReason::OneRow),
        Just(EndReason::Repetition),
        (side(), any::<u16>()).prop_map(|(stuck, m)| EndReason::NoLegalMove {
            stuck,
            endless: Moves::from_mask(m),
        }),
    ]
}

fn event() -> impl Strategy<Value = Event> {
    prop_oneof![
        (hole(), any::<u8>(), any::<bool>()).prop_map(|(hole, seeds, relay)| Event::Lift {
            hole,
            seeds,
            relay
        }),
        (hole(), any::<u8>()).prop_map(|(hole, now)| Event::Drop { hole, now }),
        (hole(), side()).prop_map(|(hole, owner)| Event::Four { hole, owner }),
        (hole(), hole()).prop_map(|(last, empty)| Event::Stop { last, empty }),
        (hole(), any::<u8>(), side(), any::<bool>()).prop_map(|(hole, seeds, by, chained)| {
            Event::Capture {
                hole,
                seeds,
                by,
                chained,
            }
        }),
        (reason(), any::<[u8; 2]>()).prop_map(|(reason, swept)| Event::RoundEnd { reason, swept }),
        (
            any::<u32>(),
            any::<[u8; 2]>(),
            any::<[u8; 2]>(),
            any::<u16>(),
            side()
        )
            .prop_map(
                |(round, filled, remainder, closed, starter)| Event::Refill {
                    round,
                    filled,
                    remainder,
                    closed,
                    starter,
                }
            ),
        proptest::option::of(side()).prop_map(|winner| Event::MatchEnd { winner }),
    ]
}

fn position() -> impl Strategy<Value = Position> {
    (
        game(),
        any::<[u8; 14]>(),
        any::<u16>(),
        any::<[u8; 2]>(),
        side(),
    )
        .prop_map(|(game, board, closed, stores, to_move)| {
            Position::from_parts_unchecked(game, board, closed, stores, to_move)
        })
}

fn round_result() -> impl Strategy<Value = RoundResult> {
    (
        any::<u32>(),
        reason(),
        any::<[u8; 2]>(),
        any::<[u8; 2]>(),
        proptest::option::of(side()),
    )
        .prop_map(|(round, reason, swept, taken, winner)| RoundResult {
            round,
            reason,
            swept,
            taken,
            winner,
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    /// Random games and matches of every game, from either side: every move, round end, refill
    /// and result is told without a panic, and a capturing move's lines name the seeds each
    /// player took as the stores show them.
    #[test]
    fn random_games_are_told_with_the_seeds_the_position_shows(
        k in 0usize..4, m in any::<bool>(), north in any::<bool>(), seed in any::<u64>()
    ) {
        let first = if north { Side::North } else { Side::South };
        tell_a_random_game(Game::ALL[k], mode_of(m), first, seed, 3000);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    /// Any position, any list of events (none of them need belong to the position), any
    /// result: every function gives words and never panics.
    #[test]
    fn no_input_makes_narration_panic(
        before in position(),
        events in proptest::collection::vec(event(), 0..80),
        result in round_result(),
        g in game(),
        stuck in side(),
        endless in any::<u16>(),
        held in any::<[u8; 2]>(),
        per_hole in any::<u8>(),
        taken in any::<[u8; 2]>(),
        laps in any::<u32>(),
    ) {
        let _ = narrate::move_lines(&before, &events);
        let refills = events.iter().filter(|e| matches!(e, Event::Refill { .. })).count();
        prop_assert_eq!(narrate::refill_lines(g, &events).len(), 4 * refills);
        let round_end = narrate::round_end(g, &result);
        let head = format!("Round {} is over: ", result.round);
        prop_assert!(round_end.starts_with(&head), "{}", round_end);
        prop_assert!(!narrate::end_reason(&result).is_empty());
        let none = narrate::no_legal_move(stuck, Moves::from_mask(endless));
        let head = format!("{stuck} has no legal move");
        prop_assert!(none.starts_with(&head), "{}", none);
        let _ = narrate::short_holding(held, per_hole);
        let phrase = narrate::outcome(&MoveOutcome { taken, laps });
        let head = format!("{laps} lap");
        prop_assert!(phrase.starts_with(&head), "{}", phrase);
    }
}
