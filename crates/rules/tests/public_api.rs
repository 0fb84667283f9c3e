//! The crate's public API as a library user meets it: `Position` is an ordinary `Hash` key
//! (its round hash is `round_hash`).

use std::collections::hash_map::DefaultHasher;
use std::collections::HashSet;
use std::hash::{Hash, Hasher};

use pussa_rules::{Game, Hole, Position, Side};

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
