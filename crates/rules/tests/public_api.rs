//! The crate's public API as a library user meets it: `Position` is an ordinary `Hash` key
//! (its round hash is `round_hash`), a move after the end names the game or the match and the
//! result, `Debug` writes holes and move sets as letters, and the value types round-trip
//! through serde (JSON).

use std::collections::hash_map::DefaultHasher;
use std::collections::HashSet;
use std::hash::{Hash, Hasher};

use proptest::prelude::*;
use pussa_rules::spiel::{load_game, SpielGame, SpielState};
use pussa_rules::{
    EndReason, Event, Game, GameState, Hole, IllegalMove, IllegalReason, Mode, MoveReport, Moves,
    Position, Rng, RoundResult, RoundStart, Setup, Side, Status,
};
use serde::de::DeserializeOwned;
use serde::Serialize;

fn h(c: char) -> Hole {
    Hole::from_letter(c).unwrap()
}

fn std_hash<T: Hash>(t: &T) -> u64 {
    let mut hasher = DefaultHasher::new();
    t.hash(&mut hasher);
    hasher.finish()
}

// ---- Position: `Hash` and `round_hash` ----

#[test]
fn position_feeds_a_hasher_the_usual_way_and_round_hash_leaves_out_the_stores() {
    let a = Position::start(Game::RajaPasu);
    let b = Position::from_parts_unchecked(Game::RajaPasu, a.board(), 0, [5, 5], Side::South);
    // The usual call site: `Hash::hash` by method syntax (an inherent `hash()` shadowed it).
    let mut hasher = DefaultHasher::new();
    a.hash(&mut hasher);
    assert_eq!(hasher.finish(), std_hash(&a));
    // `Hash`/`Eq` cover the stores; `round_hash` does not.
    assert_ne!(a, b);
    assert_eq!(a.round_hash(), b.round_hash());
    let set: HashSet<Position> = [a, b, a].into_iter().collect();
    assert_eq!(set.len(), 2);
    // Equal positions agree on both.
    let c = Position::from_parts_unchecked(Game::RajaPasu, a.board(), 0, [0, 0], Side::South);
    assert_eq!(
        (a, a.round_hash(), std_hash(&a)),
        (c, c.round_hash(), std_hash(&c))
    );
}

/// The values the search keys its table with are fixed (the search's node counts depend on
/// them): a few pinned.
#[test]
fn round_hash_values_are_fixed() {
    let mut p = Position::start(Game::WalakPussa);
    let mut seen = vec![p.round_hash()];
    p.play(h('A')).unwrap();
    seen.push(p.round_hash());
    for g in [Game::RajaPasu, Game::PasuPondi6] {
        seen.push(Position::start_with(g, Side::North).round_hash());
    }
    assert_eq!(
        seen,
        [
            0xd3b2_a440_3ea1_4ac2,
            0xdd1d_5a62_e22f_c513,
            0x7060_c0f2_5ca0_9525,
            0x5194_83a6_92f7_e742
        ]
    );
}

// ---- A move after the end ----

#[test]
fn a_move_after_a_match_says_the_match_is_over_with_the_result() {
    // North to move, South's row empty and only f, g open for North: the round is over and
    // North, holding 5, cannot fill a hole of 7: South has won the match.
    let setup: Setup = "0,0,0,0,0,0,0/x,x,x,x,x,0,0 30+63 5 N 7 raja-pasu S"
        .parse()
        .unwrap();
    let mut m = setup.game_state(Mode::Match).unwrap();
    assert_eq!(m.winner(), Some(Some(Side::South)));
    let err = m.play(h('a')).unwrap_err();
    assert_eq!(
        err,
        IllegalMove {
            mv: h('a'),
            reason: IllegalReason::MatchOver {
                winner: Some(Side::South)
            }
        }
    );
    assert_eq!(
        err.to_string(),
        "illegal move a: the match is over: South won"
    );
    // The same position as a single game: the game is over, and North took more this round.
    let mut g = setup.game_state(Mode::Single).unwrap();
    let err = g.play(h('a')).unwrap_err();
    assert_eq!(
        err.reason,
        IllegalReason::GameOver {
            winner: g.winner().unwrap()
        }
    );
    assert!(
        err.to_string()
            .starts_with("illegal move a: the game is over: "),
        "{err}"
    );
    // A drawn single game says so.
    let mut d = "0,0,0,0,0,0,0/0,0,0,0,0,0,0 28 28 S 1 walak-pussa"
        .parse::<Setup>()
        .unwrap()
        .game_state(Mode::Single)
        .unwrap();
    assert_eq!(
        d.play(h('A')).unwrap_err().to_string(),
        "illegal move A: the game is over: a draw"
    );
    // A record refuses a move after a match's end with the same reason.
    let mut rec = pussa_rules::record::Record::from_setup(setup, Mode::Match).unwrap();
    let err = rec.push(h('a')).unwrap_err().to_string();
    assert!(err.ends_with("the match is over: South won"), "{err}");
}

// ---- Debug ----

#[test]
fn debug_writes_holes_and_move_sets_as_letters() {
    assert_eq!(format!("{:?}", h('A')), "Hole(A)");
    assert_eq!(format!("{:?}", h('g')), "Hole(g)");
    let legal = Position::start(Game::WalakPussa).legal_moves();
    assert_eq!(format!("{legal:?}"), "Moves[A B C D E F G]");
    assert_eq!(format!("{:?}", Moves::EMPTY), "Moves[]");
    assert_eq!(format!("{:?}", Moves::from_mask(1 | 1 << 13)), "Moves[A g]");
    let err = Position::start(Game::WalakPussa).play(h('a')).unwrap_err();
    assert_eq!(
        format!("{err:?}"),
        "IllegalMove { mv: Hole(a), reason: NotYourHole { to_move: South } }"
    );
    let mut events: Vec<Event> = Vec::new();
    Position::start(Game::WalakPussa)
        .play_traced(h('A'), &mut events)
        .unwrap();
    assert_eq!(
        format!("{:?}", &events[..2]),
        "[Lift { hole: Hole(A), seeds: 4, relay: false }, Drop { hole: Hole(B), now: 5 }]"
    );
}

#[test]
fn debug_of_a_position_with_closed_holes_is_a_string_that_reads_back() {
    let setup: Setup = "x,x,7,7,7,7,7/7,7,7,7,7,7,7 6 8 S 2 raja-pasu"
        .parse()
        .unwrap();
    let pos = setup.position().unwrap();
    let debug = format!("{pos:?}");
    assert_eq!(
        debug,
        "Position(x,x,7,7,7,7,7/7,7,7,7,7,7,7 6 8 S 2 raja-pasu)"
    );
    let text = debug
        .strip_prefix("Position(")
        .and_then(|t| t.strip_suffix(')'))
        .unwrap();
    assert_eq!(text.parse::<Setup>().unwrap().position().unwrap(), pos);
    // The same text as serde writes.
    assert_eq!(serde_json::to_string(&pos).unwrap(), format!("\"{text}\""));
    let start = Position::start(Game::RajaPasu);
    assert_eq!(
        format!("{start:?}"),
        "Position(7,7,7,7,7,7,7/7,7,7,7,7,7,7 0 0 S 1 raja-pasu)"
    );
}

// ---- serde ----

fn round_trip<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(t: &T) -> String {
    let json = serde_json::to_string(t).unwrap();
    let back: T = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{json}: {e}"));
    assert_eq!(&back, t, "{json}");
    json
}

#[test]
fn value_types_have_a_documented_json_shape() {
    let mut g = GameState::new(Game::WalakPussa, Mode::Single, Side::South);
    let pos_json = round_trip(g.position());
    assert_eq!(
        pos_json,
        r#""4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0 S 1 walak-pussa""#
    );
    let mut events: Vec<Event> = Vec::new();
    let report = g.play_traced(h('A'), &mut events).unwrap();
    assert_eq!(
        round_trip(&events[0]),
        r#"{"type":"lift","hole":"A","seeds":4,"relay":false}"#
    );
    assert_eq!(
        round_trip(&report),
        r#"{"outcome":{"taken":[6,0],"laps":7},"round_end":null}"#
    );
    assert_eq!(round_trip(&Status::Playing), r#"{"status":"playing"}"#);
    // A player stuck with only endless moves: those holes as letters; none, no field.
    let stuck = |endless| EndReason::NoLegalMove {
        stuck: Side::North,
        endless,
    };
    assert_eq!(
        round_trip(&stuck(Moves::from_mask(1 << 13 | 1 << 8))),
        r#"{"kind":"no_legal_move","stuck":"N","endless":["b","g"]}"#
    );
    assert_eq!(
        round_trip(&stuck(Moves::EMPTY)),
        r#"{"kind":"no_legal_move","stuck":"N"}"#
    );
    let setup = Setup::from_state(&g);
    assert_eq!(
        round_trip(&setup),
        r#""2,1,7,7,7,0,7/0,0,6,1,6,6,0 6 0 N 1 walak-pussa S""#
    );
    let json = round_trip(&g);
    assert_eq!(
        json,
        r#"{"position":"2,1,7,7,7,0,7/0,0,6,1,6,6,0 6 0 N 1 walak-pussa S","mode":"single","status":{"status":"playing"},"history":["2,1,7,7,7,0,7/0,0,6,1,6,6,0 N"],"round_starts":[]}"#
    );
    // A position with closed holes is written as round 2 (holes close only from round 2).
    let closed: Position =
        serde_json::from_str(r#""0,2,16,1,1,1,1/x,x,x,16,3,0,0 16+25 5+11 S 2 raja-pasu""#)
            .unwrap();
    assert_eq!(
        round_trip(&closed),
        r#""0,2,16,1,1,1,1/x,x,x,16,3,0,0 41 16 S 2 raja-pasu""#
    );
    // Holes read from strings, and from chars in formats that write chars.
    assert_eq!(serde_json::from_str::<Hole>(r#""c""#).unwrap(), h('c'));
    assert!(serde_json::from_str::<Hole>(r#""h""#).is_err());
}

#[test]
fn bad_json_is_refused_with_a_message_naming_the_problem() {
    let err = |json: &str| {
        serde_json::from_str::<GameState>(json)
            .unwrap_err()
            .to_string()
    };
    assert!(
        err(r#"{"position":"4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0 S 1 oware","mode":"single"}"#)
            .contains("unknown game 'oware'")
    );
    // A status the position does not have.
    let e = err(
        r#"{"position":"4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0 S 1 walak-pussa","mode":"single","status":{"status":"over","result":{"round":1,"reason":{"kind":"repetition"},"swept":[0,0],"taken":[0,0],"winner":null},"winner":null}}"#,
    );
    assert!(
        e.contains("status: the round is over, but the position has a move to play"),
        "{e}"
    );
    // A history that does not end with the current position.
    let e = err(
        r#"{"position":"4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0 S 1 walak-pussa","mode":"single","history":["4,4,4,4,4,4,4/4,4,4,4,4,4,4 N"]}"#,
    );
    assert!(
        e.contains(
            "history: the last entry must be the current position, 4,4,4,4,4,4,4/4,4,4,4,4,4,4 S"
        ),
        "{e}"
    );
    let e = err(
        r#"{"position":"4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0 S 1 walak-pussa","mode":"single","history":["4,4,4/4 S"]}"#,
    );
    assert!(e.contains("history: '4,4,4/4 S' is not a board"), "{e}");
    let e = err(
        r#"{"position":"4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0 S 1 walak-pussa","mode":"single","round_starts":[{"holdings":[28,28],"starter":"S"}]}"#,
    );
    assert!(
        e.contains("round_starts: a single game has no round starts"),
        "{e}"
    );
    // A position that breaks the rules.
    let e =
        serde_json::from_str::<Position>(r#""4,4,4,4,4,4,4/4,4,4,4,4,4,5 0 0 S 1 walak-pussa""#)
            .unwrap_err()
            .to_string();
    assert!(e.contains("seeds add up to 57"), "{e}");
}

/// A state whose own position contradicts its round starts or history is refused in one line
/// naming the field: the last round start must be this round's (starter and holdings as the
/// refill gave them), and no position may occur twice in the history (the repetition would
/// have ended the round).
#[test]
fn round_starts_and_history_that_the_position_contradicts_are_refused() {
    let err = |json: &str| {
        serde_json::from_str::<GameState>(json)
            .unwrap_err()
            .to_string()
    };
    let start = "4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0 S 1 walak-pussa";
    let e = err(&format!(
        r#"{{"position":"{start}","mode":"match","round_starts":[{{"holdings":[28,28],"starter":"N"}}]}}"#
    ));
    assert!(
        e.contains(
            "round_starts: the last start (starter North) is not this round's (starter South)"
        ),
        "{e}"
    );
    assert!(!e.contains('\n'), "{e}");
    let e = err(&format!(
        r#"{{"position":"{start}","mode":"match","round_starts":[{{"holdings":[50,6],"starter":"S"}}]}}"#
    ));
    assert!(
        e.contains("round_starts: the last start's holdings [50, 6] are not this round's [28, 28]"),
        "{e}"
    );
    let b = "4,4,4,4,4,4,4/4,4,4,4,4,4,4 S";
    let e = err(&format!(
        r#"{{"position":"{start}","mode":"single","history":["{b}","{b}"]}}"#
    ));
    assert!(
        e.contains(&format!(
            "history: {b} occurs twice (a repetition ends the round)"
        )),
        "{e}"
    );
    // The consistent versions read, and equal the fresh match.
    let ok: GameState = serde_json::from_str(&format!(
        r#"{{"position":"{start}","mode":"match","history":["{b}"],"round_starts":[{{"holdings":[28,28],"starter":"S"}}]}}"#
    ))
    .unwrap();
    assert_eq!(
        ok,
        GameState::new(Game::WalakPussa, Mode::Match, Side::South)
    );
    // A later round with closed holes: holdings are the refill's (kept in store plus filled).
    let setup = "0,2,16,1,1,1,1/x,x,x,16,3,0,0 16+25 5+11 S 2 raja-pasu";
    let g = setup
        .parse::<Setup>()
        .unwrap()
        .game_state(Mode::Match)
        .unwrap();
    let mut g2 = g.clone();
    assert_eq!(g2.round_starts(), []);
    let mut rng = Rng::new(3);
    while !g2.is_round_over() {
        let l = g2.legal_moves();
        g2.play(l.nth(rng.below(l.len() as u32) as usize).unwrap())
            .unwrap();
    }
    assert!(g2.next_round(), "the match goes on to round 3");
    {
        let json = serde_json::to_string(&g2).unwrap();
        let back: GameState = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{json}: {e}"));
        assert_eq!(back, g2);
        let last = *g2.round_starts().last().unwrap();
        let bad = json.replace(
            &format!(
                r#"{{"holdings":[{},{}],"#,
                last.holdings[0], last.holdings[1]
            ),
            &format!(
                r#"{{"holdings":[{},{}],"#,
                last.holdings[0] + 1,
                last.holdings[1] - 1
            ),
        );
        assert_ne!(bad, json);
        assert!(err(&bad).contains("round_starts: the last start's holdings"));
    }
}

#[test]
fn a_state_set_up_mid_match_round_trips_and_plays_on_alike() {
    // From a position string in round 2, then into round 3: round_starts knows round 3 only.
    let mut g = "0,2,16,1,1,1,1/x,x,x,16,3,0,0 16+25 5+11 S 2 raja-pasu"
        .parse::<Setup>()
        .unwrap()
        .game_state(Mode::Match)
        .unwrap();
    let mut rng = Rng::new(11);
    while g.round() < 3 && !g.is_over() {
        if g.is_round_over() {
            g.next_round();
        } else {
            let l = g.legal_moves();
            g.play(l.nth(rng.below(l.len() as u32) as usize).unwrap())
                .unwrap();
        }
        let mut back: GameState = serde_json::from_str(&round_trip(&g)).unwrap();
        let mut orig = g.clone();
        // Both play on the same way.
        for _ in 0..30 {
            if orig.is_over() {
                break;
            }
            if orig.is_round_over() {
                assert_eq!(orig.next_round(), back.next_round());
            } else {
                let mv = orig.legal_moves().nth(0).unwrap();
                assert_eq!(orig.play(mv), back.play(mv));
            }
            assert_eq!(orig, back);
        }
    }
}

#[test]
fn spiel_games_and_states_round_trip() {
    let game = load_game("pasu-pondi(mode=match,first=N,utility=margin,max_rounds=7)").unwrap();
    assert_eq!(
        round_trip(&game),
        r#"{"game":"pasu-pondi(mode=match,first=N,utility=margin,max_rounds=7)"}"#
    );
    let start: Setup = "0,2,16,1,1,1,1/x,x,x,16,3,0,0 16+25 5+11 N 2 raja-pasu"
        .parse()
        .unwrap();
    let from = SpielGame::new(Game::RajaPasu, Mode::Match)
        .with_start(start)
        .unwrap();
    round_trip(&from);
    for g in [game, from] {
        let mut s = g.new_initial_state();
        let mut rng = Rng::new(5);
        round_trip(&s);
        while !s.is_terminal() {
            let a = s.legal_actions();
            s.apply_action(a[rng.below(a.len() as u32) as usize])
                .unwrap();
            if s.move_number() % 17 == 0 {
                round_trip(&s);
            }
        }
        let json = round_trip(&s);
        let back: SpielState = serde_json::from_str(&json).unwrap();
        assert_eq!(back.returns(), s.returns());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    /// Every state of a random game or match, its position, setup, status, round results and
    /// round starts, every move's report and every event of its trace read back equal.
    #[test]
    fn every_value_of_a_random_game_round_trips_through_json(
        k in 0usize..4, m in any::<bool>(), north in any::<bool>(), seed in any::<u64>()
    ) {
        let mode = if m { Mode::Match } else { Mode::Single };
        let first = if north { Side::North } else { Side::South };
        let mut g = GameState::new(Game::ALL[k], mode, first);
        let mut rng = Rng::new(seed);
        for _ in 0..300 {
            round_trip(&g);
            round_trip(g.position());
            round_trip(&Setup::from_state(&g));
            round_trip(&g.status());
            round_trip::<Vec<RoundStart>>(&g.round_starts().to_vec());
            if let Status::RoundOver { result, .. } | Status::Over { result, .. } = g.status() {
                round_trip::<RoundResult>(&result);
            }
            if g.is_over() {
                break;
            }
            let mut events: Vec<Event> = Vec::new();
            if g.is_round_over() {
                prop_assert!(g.next_round_traced(&mut events));
            } else {
                let l = g.legal_moves();
                let mv = l.nth(rng.below(l.len() as u32) as usize).unwrap();
                let report: MoveReport = g.play_traced(mv, &mut events).unwrap();
                round_trip(&report);
            }
            round_trip(&events);
        }
    }
}

#[test]
fn a_refills_closed_holes_are_written_as_indices_and_read_as_indices_or_the_old_mask() {
    let refill = Event::Refill {
        round: 2,
        filled: [4, 7],
        remainder: [2, 10],
        closed: 0b111 | 1 << 8,
        starter: Side::South,
    };
    let json = serde_json::to_value(refill).unwrap();
    assert_eq!(json["closed"], serde_json::json!([0, 1, 2, 8]));
    assert_eq!(serde_json::from_value::<Event>(json).unwrap(), refill);
    // Traces logged before (a bit mask) still read.
    let old = r#"{"type":"refill","round":2,"filled":[4,7],"remainder":[2,10],"closed":263,"starter":"S"}"#;
    assert_eq!(serde_json::from_str::<Event>(old).unwrap(), refill);
    for (closed, why) in [
        ("[14]", "closed: hole index 14 is not in 0..=13"),
        ("[1,1]", "closed: hole index 1 is listed twice"),
        ("16384", "closed: bit mask 16384 names a hole beyond the 14"),
        ("-1", "closed: bit mask -1 is negative"),
    ] {
        let text = old.replace("263", closed);
        let err = serde_json::from_str::<Event>(&text)
            .unwrap_err()
            .to_string();
        assert!(err.contains(why), "{closed}: {err}");
    }
}

/// An endless move reports no event to a trace (its cycle can be hundreds of millions of laps
/// long: the trace of it would not fit in memory), and a move that ends reports all of them.
#[test]
fn play_traced_reports_nothing_for_an_endless_move() {
    use pussa_rules::{Event, IllegalReason, Position, Setup};
    let pos: Position = "4,3,7,6,5,4,5/2,3,2,3,5,4,3 0 0 N 1 walak-pussa"
        .parse::<Setup>()
        .unwrap()
        .position()
        .unwrap();
    let mut events: Vec<Event> = Vec::new();
    let mut p = pos;
    let err = p
        .play_traced("e".parse().unwrap(), &mut events)
        .unwrap_err();
    assert_eq!(err.reason, IllegalReason::Endless);
    assert!(events.is_empty(), "{} events", events.len());
    assert_eq!(p, pos);
    let mut q = pos;
    q.play_traced("a".parse().unwrap(), &mut events).unwrap();
    assert!(matches!(
        events[0],
        Event::Lift {
            seeds: 2,
            relay: false,
            ..
        }
    ));
    assert!(matches!(
        events.last(),
        Some(Event::Capture { .. } | Event::Stop { .. })
    ));
}

#[test]
fn mode_has_a_name_display_and_from_str() {
    for m in Mode::ALL {
        assert_eq!(m.to_string(), m.name());
        assert_eq!(m.name().parse::<Mode>().unwrap(), m);
        // The same word as serde's.
        assert_eq!(serde_json::to_string(&m).unwrap(), format!("\"{m}\""));
    }
    assert_eq!(" MATCH ".parse::<Mode>().unwrap(), Mode::Match);
    let err = "league".parse::<Mode>().unwrap_err();
    assert_eq!(err, pussa_rules::UnknownMode("league".into()));
    assert_eq!(
        err.to_string(),
        "unknown mode 'league': expected single or match"
    );
}
