//! The engine crate seen by a program that uses it as a library: what its public functions
//! answer at the edges (finished games, histories given as the state holds them) and what its
//! value types write and read.

use pussa_engine::{mcts, search, Limits};
use pussa_rules::{Mode, Setup};

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
