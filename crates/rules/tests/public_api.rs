//! The crate's public API as a library user meets it: `Position` is an ordinary `Hash` key
//! (its round hash is `round_hash`), a move after the end names the game or the match and the
//! result, and `Debug` writes holes and move sets as letters.

use std::collections::hash_map::DefaultHasher;
use std::collections::HashSet;
use std::hash::{Hash, Hasher};

use pussa_rules::{
    Event, Game, Hole, IllegalMove, IllegalReason, Mode, Moves, Position, Setup, Side,
};

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
