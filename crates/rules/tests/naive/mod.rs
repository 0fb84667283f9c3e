//! A deliberately naive second implementation of the rules contract (`rules-spec.md`), written
//! from the contract's text alone, without looking at the library's sowing code, so that the
//! differential tests and the golden perft counts compare two independent readings.
//!
//! Everything is plain: a `Vec<u32>` board, one seed moved at a time, a `HashSet` of every
//! (board, hole about to be lifted) state of a move for endless detection, and the full list of
//! every position of a round for the repetition rule. Only the vocabulary types (`Game`, `Side`,
//! `Hole`) are shared with the library, and of them only the plain game parameters.
#![allow(dead_code)]

use std::collections::HashSet;

use pussa_rules::{Game, Side};

/// The contract's per-game rules, restated here from the contract's table so the model does not
/// lean on the library's rule accessors either.
#[derive(Clone, Copy, Debug)]
pub struct Rules {
    pub seeds_per_hole: u32,
    pub clockwise: bool,
    pub fours: bool,
    pub chain: bool,
    pub one_row_end: bool,
    /// Stuck player: true when the other takes everything (Walak-pussa, Raja Pasu).
    pub stuck_other_takes_all: bool,
    /// Closing from the left end of the row (Walak-pussa, Raja Pasu), else from the right.
    pub close_from_left: bool,
    pub starter: Starter,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Starter {
    Raja,
    Walak,
    Pondi,
}

pub fn rules(game: Game) -> Rules {
    match game {
        Game::WalakPussa => Rules {
            seeds_per_hole: 4,
            clockwise: false,
            fours: false,
            chain: true,
            one_row_end: false,
            stuck_other_takes_all: true,
            close_from_left: true,
            starter: Starter::Walak,
        },
        Game::RajaPasu => Rules {
            seeds_per_hole: 7,
            clockwise: false,
            fours: true,
            chain: false,
            one_row_end: false,
            stuck_other_takes_all: true,
            close_from_left: true,
            starter: Starter::Raja,
        },
        Game::PasuPondi | Game::PasuPondi6 => Rules {
            seeds_per_hole: if game == Game::PasuPondi { 5 } else { 6 },
            clockwise: true,
            fours: true,
            chain: false,
            one_row_end: true,
            stuck_other_takes_all: false,
            close_from_left: false,
            starter: Starter::Pondi,
        },
    }
}

pub fn side_idx(s: Side) -> usize {
    match s {
        Side::South => 0,
        Side::North => 1,
    }
}

pub fn other(s: Side) -> Side {
    match s {
        Side::South => Side::North,
        Side::North => Side::South,
    }
}

/// Owner of the row of hole `i`: 0..6 South, 7..13 North.
pub fn owner(i: usize) -> Side {
    if i < 7 {
        Side::South
    } else {
        Side::North
    }
}

/// A position inside one round.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NPos {
    pub game: Game,
    pub board: Vec<u32>,
    pub closed: Vec<bool>,
    pub stores: [u32; 2],
    pub to_move: Side,
}

/// Why a naive move failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NIllegal {
    NotYours,
    Closed,
    Empty,
    Endless,
}

impl NPos {
    pub fn start(game: Game, first: Side) -> NPos {
        let r = rules(game);
        NPos {
            game,
            board: vec![r.seeds_per_hole; 14],
            closed: vec![false; 14],
            stores: [0, 0],
            to_move: first,
        }
    }

    pub fn rules(&self) -> Rules {
        rules(self.game)
    }

    /// The next open hole after `h` in the game's direction.
    pub fn next(&self, h: usize) -> usize {
        let mut i = h;
        loop {
            i = if self.rules().clockwise {
                (i + 13) % 14
            } else {
                (i + 1) % 14
            };
            if !self.closed[i] {
                return i;
            }
            assert!(i != h, "no open hole");
        }
    }

    pub fn row_sum(&self, s: Side) -> u32 {
        let base = side_idx(s) * 7;
        (base..base + 7).map(|i| self.board[i]).sum()
    }

    pub fn board_sum(&self) -> u32 {
        self.board.iter().sum()
    }

    /// Holes the mover may lift from (open, non-empty, own row), in board order.
    pub fn candidates(&self) -> Vec<usize> {
        (0..14)
            .filter(|&i| owner(i) == self.to_move && !self.closed[i] && self.board[i] > 0)
            .collect()
    }

    pub fn legal_moves(&self) -> Vec<usize> {
        self.candidates()
            .into_iter()
            .filter(|&h| {
                let mut p = self.clone();
                p.play(h).is_ok()
            })
            .collect()
    }

    fn take(&mut self, hole: usize, by: Side) {
        self.stores[side_idx(by)] += self.board[hole];
        self.board[hole] = 0;
    }

    /// Plays `h` for the side to move. On error the position is left as it was.
    pub fn play(&mut self, h: usize) -> Result<(), NIllegal> {
        if owner(h) != self.to_move {
            return Err(NIllegal::NotYours);
        }
        if self.closed[h] {
            return Err(NIllegal::Closed);
        }
        if self.board[h] == 0 {
            return Err(NIllegal::Empty);
        }
        let saved = self.clone();
        let r = self.rules();
        let mover = self.to_move;
        let mut seen: HashSet<(Vec<u32>, usize)> = HashSet::new();
        let mut lift = h;
        let last = loop {
            // Endless: the same board recurs with the same hole about to be lifted.
            if !seen.insert((self.board.clone(), lift)) {
                *self = saved;
                return Err(NIllegal::Endless);
            }
            let mut hand = self.board[lift];
            self.board[lift] = 0;
            let mut at = lift;
            while hand > 0 {
                at = self.next(at);
                self.board[at] += 1;
                hand -= 1;
                if r.fours && self.board[at] == 4 {
                    self.take(at, owner(at));
                }
            }
            let n = self.next(at);
            if self.board[n] > 0 {
                lift = n;
                continue;
            }
            break at;
        };
        let hh = last;
        let n = self.next(hh);
        let m = self.next(n);
        if self.board[m] > 0 && m != hh {
            self.take(m, mover);
            if r.chain {
                let mut c = m;
                loop {
                    let e = self.next(c);
                    let f = self.next(e);
                    if self.board[e] == 0 && self.board[f] > 0 && f != hh {
                        self.take(f, mover);
                        c = f;
                    } else {
                        break;
                    }
                }
            }
        }
        self.to_move = other(mover);
        Ok(())
    }
}

/// Why a round ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NReason {
    OneRow,
    Repetition,
    NoLegalMove(Side),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NStatus {
    Playing,
    /// Round over, match goes on; who starts next.
    RoundOver {
        reason: NReason,
        next: Side,
        round_winner: Option<Side>,
    },
    /// Game or match over; winner (`None` = draw).
    Over {
        reason: NReason,
        winner: Option<Side>,
    },
}

/// A single game or a match.
#[derive(Clone, Debug)]
pub struct NGame {
    pub pos: NPos,
    pub is_match: bool,
    pub round: u32,
    pub starter: Side,
    pub round_start_stores: [u32; 2],
    /// Every position (board, side to move) of this round so far.
    pub history: Vec<(Vec<u32>, Side)>,
    pub status: NStatus,
}

impl NGame {
    pub fn new(game: Game, is_match: bool, first: Side) -> NGame {
        NGame::from_pos(NPos::start(game, first), is_match, 1, first, [0, 0])
    }

    /// Continues from `pos` in round `round`, started by `starter`.
    /// `taken`: what each player took so far in the round (part of the stores).
    pub fn from_pos(pos: NPos, is_match: bool, round: u32, starter: Side, taken: [u8; 2]) -> NGame {
        let rss = [
            pos.stores[0] - u32::from(taken[0]),
            pos.stores[1] - u32::from(taken[1]),
        ];
        let mut g = NGame {
            pos,
            is_match,
            round,
            starter,
            round_start_stores: rss,
            history: Vec::new(),
            status: NStatus::Playing,
        };
        g.after_move();
        g
    }

    pub fn legal_moves(&self) -> Vec<usize> {
        if self.status == NStatus::Playing {
            self.pos.legal_moves()
        } else {
            Vec::new()
        }
    }

    pub fn to_move(&self) -> Option<Side> {
        (self.status == NStatus::Playing).then_some(self.pos.to_move)
    }

    pub fn play(&mut self, h: usize) -> Result<(), NIllegal> {
        assert_eq!(self.status, NStatus::Playing);
        self.pos.play(h)?;
        self.after_move();
        Ok(())
    }

    /// The end-of-round rules in the contract's order.
    fn after_move(&mut self) {
        let r = self.pos.rules();
        let key = (self.pos.board.clone(), self.pos.to_move);
        let reason = if r.one_row_end
            && (self.pos.row_sum(Side::South) == 0 || self.pos.row_sum(Side::North) == 0)
        {
            Some(NReason::OneRow)
        } else if self.history.contains(&key) {
            Some(NReason::Repetition)
        } else if self.pos.legal_moves().is_empty() {
            Some(NReason::NoLegalMove(self.pos.to_move))
        } else {
            None
        };
        let Some(reason) = reason else {
            self.history.push(key);
            return;
        };
        let each_own = match reason {
            NReason::OneRow | NReason::Repetition => true,
            NReason::NoLegalMove(_) => !r.stuck_other_takes_all,
        };
        for i in 0..14 {
            let to = if each_own {
                owner(i)
            } else {
                other(self.pos.to_move)
            };
            self.pos.take(i, to);
        }
        let taken = [
            self.pos.stores[0] - self.round_start_stores[0],
            self.pos.stores[1] - self.round_start_stores[1],
        ];
        let round_winner = more(taken);
        if !self.is_match {
            self.status = NStatus::Over {
                reason,
                winner: round_winner,
            };
            return;
        }
        let need = r.seeds_per_hole;
        let h = self.pos.stores;
        if h[0] < need || h[1] < need {
            let winner = if h[0] < need && h[1] < need {
                None
            } else if h[0] < need {
                Some(Side::North)
            } else {
                Some(Side::South)
            };
            self.status = NStatus::Over { reason, winner };
            return;
        }
        let not_last = other(self.starter);
        let next = match r.starter {
            Starter::Raja => match reason {
                // The player who took the leftovers: the other of the stuck one.
                NReason::NoLegalMove(stuck) => other(stuck),
                _ => not_last,
            },
            Starter::Walak => {
                if h[0] < h[1] {
                    Side::South
                } else if h[1] < h[0] {
                    Side::North
                } else {
                    not_last
                }
            }
            Starter::Pondi => not_last,
        };
        self.status = NStatus::RoundOver {
            reason,
            next,
            round_winner,
        };
    }

    /// Refill and start the next round. Returns false if no round is over.
    pub fn next_round(&mut self) -> bool {
        let NStatus::RoundOver { next, .. } = self.status else {
            return false;
        };
        let r = self.pos.rules();
        let need = r.seeds_per_hole;
        for s in [Side::South, Side::North] {
            let si = side_idx(s);
            let holding = self.pos.stores[si];
            let k = (holding / need).min(7) as usize;
            let closed_count = 7 - k;
            for col in 0..7 {
                let i = si * 7 + col;
                // Column counted from the closing end.
                let from_end = if r.close_from_left { col } else { 6 - col };
                assert_eq!(self.pos.board[i], 0);
                if from_end < closed_count {
                    self.pos.closed[i] = true;
                } else {
                    self.pos.closed[i] = false;
                    self.pos.board[i] = need;
                    self.pos.stores[si] -= need;
                }
            }
        }
        self.round += 1;
        self.starter = next;
        self.pos.to_move = next;
        self.round_start_stores = self.pos.stores;
        self.history.clear();
        self.status = NStatus::Playing;
        self.after_move();
        true
    }
}

pub fn more(t: [u32; 2]) -> Option<Side> {
    if t[0] > t[1] {
        Some(Side::South)
    } else if t[1] > t[0] {
        Some(Side::North)
    } else {
        None
    }
}

/// Perft over the naive model: move sequences of exactly `depth` moves within the round, with
/// the full history of the round's positions (`hist` excludes `pos`).
pub fn perft(pos: &NPos, depth: u32, hist: &mut Vec<(Vec<u32>, Side)>) -> u64 {
    if depth == 0 {
        return 1;
    }
    let r = pos.rules();
    if r.one_row_end && (pos.row_sum(Side::South) == 0 || pos.row_sum(Side::North) == 0) {
        return 0;
    }
    let key = (pos.board.clone(), pos.to_move);
    if hist.contains(&key) {
        return 0;
    }
    hist.push(key);
    let mut total = 0;
    for h in pos.candidates() {
        let mut c = pos.clone();
        if c.play(h).is_ok() {
            total += perft(&c, depth - 1, hist);
        }
    }
    hist.pop();
    total
}
