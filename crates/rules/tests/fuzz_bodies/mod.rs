//! The bodies of the fuzz targets in `fuzz/` (cargo-fuzz layout). They live here so that the
//! ordinary test suite (`tests/fuzz.rs`) runs the very same code on random and mutated inputs
//! without a nightly toolchain; each fuzz target includes this file with `#[path]`.
#![allow(dead_code)]

use pussa_rules::record::Record;
use pussa_rules::{Game, GameState, IllegalReason, Mode, Setup, Side};

/// Position strings: parsing never panics; whatever parses validates, writes back, reads back
/// the same, and yields a position and a game state without panicking.
pub fn position_string(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(setup) = text.parse::<Setup>() else {
        return;
    };
    let shown = setup.to_string();
    let back: Setup = shown
        .parse()
        .unwrap_or_else(|e| panic!("{text:?} parsed, but its display {shown:?}: {e}"));
    assert_eq!(back, setup, "{text:?}");
    assert_eq!(back.to_string(), shown);
    // A parsed setup is a position, unless no match reaches it (closed holes in both rows),
    // which only the full validation refuses; the rules still play on it.
    match setup.position() {
        Ok(_) | Err(pussa_rules::SetupError::BothRowsClosed) => {}
        Err(e) => panic!("{text:?} parsed but does not validate: {e}"),
    }
    let pos = setup
        .position_ignoring_reachability()
        .expect("a parsed setup validates");
    assert_eq!(pos.board(), setup.board);
    for mode in [Mode::Single, Mode::Match] {
        let g = setup
            .game_state_ignoring_reachability(mode)
            .expect("a parsed setup validates");
        // The legal moves are legal on the parsed position too.
        for h in g.legal_moves() {
            let mut p = pos;
            p.play(h).expect("legal");
        }
    }
}

/// Game records: parsing never panics; whatever parses writes a canonical text that reads back
/// to an equal record and writes the same text again.
pub fn record(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(rec) = Record::parse(text) else { return };
    let shown = rec.to_string();
    let back = Record::parse(&shown)
        .unwrap_or_else(|e| panic!("{text:?} parsed, but its display {shown:?}: {e}"));
    assert_eq!(back, rec, "{text:?}");
    assert_eq!(back.to_string(), shown);
}

/// A valid set-up built from bytes: the game, the side to move, a round, closed holes from the
/// game's closing end, and the game's seeds spread over the open holes and the stores.
pub fn setup_from_bytes(data: &[u8]) -> Option<Setup> {
    let (&head, rest) = data.split_first()?;
    let game = Game::ALL[usize::from(head & 3)];
    let to_move = if head & 4 == 0 {
        Side::South
    } else {
        Side::North
    };
    let round = if head & 8 == 0 { 1 } else { 2 };
    let mut closed = 0u16;
    let mut bytes = rest.iter().copied();
    if round == 2 {
        for side in Side::BOTH {
            let filled = 1 + bytes.next().unwrap_or(6) % 7;
            closed |= game.closed_holes(side, filled);
        }
    }
    let total = u32::from(game.total_seeds());
    // Weights for 14 holes and 2 stores; each open hole's share of the seeds.
    let w: Vec<u32> = (0..16)
        .map(|_| u32::from(bytes.next().unwrap_or(0)))
        .collect();
    let open = |i: usize| closed & (1 << i) == 0;
    let sum: u32 = (0..16).filter(|&i| i >= 14 || open(i)).map(|i| w[i]).sum();
    let mut board = [0u8; 14];
    let mut stores = [0u8; 2];
    let mut given = 0;
    for i in 0..16 {
        if i < 14 && !open(i) {
            continue;
        }
        if let Some(share) = (total * w[i]).checked_div(sum) {
            given += share;
            if i < 14 {
                board[i] = share as u8;
            } else {
                stores[i - 14] = share as u8;
            }
        }
    }
    stores[0] += (total - given) as u8;
    let setup = Setup {
        game,
        board,
        closed,
        stores,
        // What was taken in the round: all of the stores in round 1, half of them later.
        taken: if round == 1 {
            stores
        } else {
            stores.map(|s| s / 2)
        },
        to_move,
        round,
        starter: to_move,
        repeated: false,
    };
    // Closed holes in both rows are allowed: no match reaches them, but they test the sowing.
    setup.validate_ignoring_reachability().ok()?;
    Some(setup)
}

/// Bytes drive a game or match: the first bytes choose the start (the game's start or a set-up
/// from the bytes), each further byte picks a legal move. On every position met, every legal
/// move plays, every candidate that is not legal is refused as endless (and the fast path
/// agrees), and the seeds add up.
pub fn legals_are_legal(data: &[u8]) {
    let Some((&head, rest)) = data.split_first() else {
        return;
    };
    let mode = if head & 16 == 0 {
        Mode::Single
    } else {
        Mode::Match
    };
    let (mut g, moves) = if head & 32 == 0 {
        let first = if head & 4 == 0 {
            Side::South
        } else {
            Side::North
        };
        (
            GameState::new(Game::ALL[usize::from(head & 3)], mode, first),
            rest,
        )
    } else {
        let n = rest.len().min(19);
        let Some(setup) = setup_from_bytes(&data[..=n]) else {
            return;
        };
        (
            setup.game_state_ignoring_reachability(mode).expect("valid"),
            &rest[n..],
        )
    };
    let total = u32::from(g.game().total_seeds());
    for &b in moves {
        if g.is_over() {
            break;
        }
        if g.is_round_over() {
            assert!(g.next_round());
            continue;
        }
        let p = *g.position();
        let legal = g.legal_moves();
        assert!(!legal.is_empty(), "a playing state has a legal move: {p:?}");
        for h in p.candidates() {
            let mut q = p;
            let mut r = p;
            if legal.contains(h) {
                q.play(h)
                    .unwrap_or_else(|e| panic!("{p:?}: legal {h} refused: {e}"));
                assert!(r.play_unchecked(h).is_some());
                assert_eq!(q, r);
                let on_board = q.seeds_on_board();
                let stores = u32::from(q.stores()[0]) + u32::from(q.stores()[1]);
                assert_eq!(on_board + stores, total);
            } else {
                let e = q.play(h).expect_err("a candidate that is not legal");
                assert_eq!(e.reason, IllegalReason::Endless, "{p:?} {h}");
                assert!(r.play_unchecked(h).is_none());
                assert_eq!(q, p);
            }
        }
        let mv = legal.nth(usize::from(b) % legal.len()).expect("in range");
        g.play(mv).expect("legal");
    }
}
