//! Helpers shared by the rules crate's integration tests: converting between the library and
//! the naive model, and comparing them.
#![allow(dead_code)]

use pussa_rules::{EndReason, Game, GameState, Hole, Mode, Moves, Position, Setup, Side, Status};

use crate::naive::{NGame, NPos, NReason, NStatus};

/// A position from a position string (panics with the parse error: test input is ours). Boards
/// no match reaches (closed holes in both rows) are allowed: they test the sowing in tight
/// corners.
pub fn pos(s: &str) -> Position {
    setup(s).position_ignoring_reachability().unwrap()
}

/// A game state from a position string (unreachable boards allowed, as [`pos`]).
pub fn state(s: &str, mode: Mode) -> GameState {
    setup(s).game_state_ignoring_reachability(mode).unwrap()
}

/// The setup of a position string: parsed, not validated.
pub fn setup(s: &str) -> Setup {
    s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
}

pub fn hole(c: char) -> Hole {
    Hole::from_letter(c).unwrap()
}

/// Moves as a string of letters in board order, e.g. "ACF".
pub fn letters(m: Moves) -> String {
    m.map(|h| h.letter()).collect()
}

pub fn letters_idx(v: &[usize]) -> String {
    v.iter().map(|&i| Hole::new(i).unwrap().letter()).collect()
}

/// The naive twin of a library position.
pub fn to_naive(p: &Position) -> NPos {
    let closed = p.closed_mask();
    NPos {
        game: p.game(),
        board: p.board().iter().map(|&s| u32::from(s)).collect(),
        closed: (0..14).map(|i| closed & (1 << i) != 0).collect(),
        stores: [u32::from(p.stores()[0]), u32::from(p.stores()[1])],
        to_move: p.to_move(),
    }
}

pub fn closed_mask(n: &NPos) -> u16 {
    (0..14)
        .filter(|&i| n.closed[i])
        .fold(0, |m, i| m | (1 << i))
}

pub fn same_position(p: &Position, n: &NPos, ctx: &str) {
    let b: Vec<u32> = p.board().iter().map(|&s| u32::from(s)).collect();
    assert_eq!(b, n.board, "{ctx}: board");
    assert_eq!(p.closed_mask(), closed_mask(n), "{ctx}: closed holes");
    assert_eq!(
        [u32::from(p.stores()[0]), u32::from(p.stores()[1])],
        n.stores,
        "{ctx}: stores"
    );
    assert_eq!(p.to_move(), n.to_move, "{ctx}: side to move");
}

fn reason(r: EndReason) -> NReason {
    match r {
        EndReason::OneRow => NReason::OneRow,
        EndReason::Repetition => NReason::Repetition,
        EndReason::NoLegalMove { stuck, .. } => NReason::NoLegalMove(stuck),
    }
}

/// The library's status in the naive model's terms.
pub fn status(s: Status) -> NStatus {
    match s {
        Status::Playing => NStatus::Playing,
        Status::RoundOver {
            result,
            next_starter,
        } => NStatus::RoundOver {
            reason: reason(result.reason),
            next: next_starter,
            round_winner: result.winner,
        },
        Status::Over { result, winner } => NStatus::Over {
            reason: reason(result.reason),
            winner,
        },
    }
}

/// Compares everything observable of a game in progress.
pub fn same_game(g: &GameState, n: &NGame, ctx: &str) {
    same_position(g.position(), &n.pos, ctx);
    assert_eq!(g.round(), n.round, "{ctx}: round");
    assert_eq!(g.round_starter(), n.starter, "{ctx}: round starter");
    assert_eq!(g.to_move(), n.to_move(), "{ctx}: to move");
    assert_eq!(status(g.status()), n.status, "{ctx}: status");
    assert_eq!(
        g.is_round_over(),
        n.status != NStatus::Playing,
        "{ctx}: round over"
    );
    assert_eq!(
        g.is_over(),
        matches!(n.status, NStatus::Over { .. }),
        "{ctx}: match over"
    );
    let nw = match n.status {
        NStatus::Over { winner, .. } => Some(winner),
        _ => None,
    };
    assert_eq!(g.winner(), nw, "{ctx}: winner");
    assert_eq!(
        letters(g.legal_moves()),
        letters_idx(&n.legal_moves()),
        "{ctx}: legal moves"
    );
    let t = g.taken_this_round();
    assert_eq!(
        [u32::from(t[0]), u32::from(t[1])],
        [
            n.pos.stores[0] - n.round_start_stores[0],
            n.pos.stores[1] - n.round_start_stores[1]
        ],
        "{ctx}: taken this round"
    );
}

/// A random valid setup for `game`: random seeds, random stores, and for `round > 1` random
/// closed holes from the game's closing end (at most 6 per row).
pub fn random_setup(game: Game, rng: &mut pussa_rules::Rng, round: u32) -> Setup {
    let total = u32::from(game.total_seeds());
    let mut closed = 0u16;
    if round > 1 {
        for side in Side::BOTH {
            let filled = 1 + rng.below(7) as u8;
            closed |= game.closed_holes(side, filled);
        }
    }
    let open: Vec<usize> = (0..14).filter(|&i| closed & (1 << i) == 0).collect();
    // Seeds off the board: a random share, at least one seed left on it.
    let off = if rng.below(2) == 0 {
        rng.below(total / 2 + 1)
    } else {
        rng.below(total)
    };
    let on = total - off;
    let mut board = [0u8; 14];
    for _ in 0..on {
        let i = open[rng.below(open.len() as u32) as usize];
        board[i] += 1;
    }
    let s0 = rng.below(off + 1);
    let to_move = if rng.below(2) == 0 {
        Side::South
    } else {
        Side::North
    };
    let starter = if rng.below(2) == 0 {
        Side::South
    } else {
        Side::North
    };
    let stores = [s0 as u8, (off - s0) as u8];
    // Round 1 takes everything in store; later rounds a random part of it (the rest carried over).
    let taken = if round == 1 {
        stores
    } else {
        stores.map(|s| rng.below(u32::from(s) + 1) as u8)
    };
    Setup {
        game,
        board,
        closed,
        stores,
        taken,
        to_move,
        round,
        starter,
        repeated: false,
    }
}
