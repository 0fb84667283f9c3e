//! Random playouts and the small deterministic random number generator they use.

use crate::position::Position;
use crate::state::{GameState, Mode};
use crate::trace::EndReason;
use crate::types::{Game, Hole, Moves, Side, StuckRule};

/// SplitMix64: a tiny, fast, seedable generator. Same seed, same sequence, on every platform.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator started from `seed`.
    #[must_use]
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A uniform number in `0..n`, by Lemire's multiply-shift (bias below 2⁻³²).
    ///
    /// # Panics
    /// Panics if `n` is 0 (`0..0` is empty): a random pick from an empty list fails here, at
    /// its cause.
    #[inline]
    pub fn below(&mut self, n: u32) -> u32 {
        assert!(n > 0, "Rng::below(0): no number is below 0");
        (((self.next_u64() >> 32) * u64::from(n)) >> 32) as u32
    }

    /// A uniform float in `[0, 1)`.
    #[inline]
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// Picks a uniformly random legal move and plays it, trying candidates in random order (the
/// first legal one in a uniformly random order is uniform over the legal moves). Returns the
/// move, or `None` if every candidate is endless (the position is then unchanged).
///
/// # Panics
/// Never in practice: the index drawn is below the number of candidates left, so the candidate
/// it names exists (the `expect` guards that invariant only).
///
/// # Examples
/// ```
/// use pussa_rules::{play_random, Game, Position, Rng};
/// let mut pos = Position::start(Game::RajaPasu);
/// let (mv, _outcome) = play_random(&mut pos, &mut Rng::new(7)).expect("the start has moves");
/// assert!(Position::start(Game::RajaPasu).legal_moves().contains(mv));
/// assert_ne!(pos, Position::start(Game::RajaPasu));
/// ```
#[inline]
pub fn play_random(pos: &mut Position, rng: &mut Rng) -> Option<(Hole, crate::MoveOutcome)> {
    let mut cands = pos.candidates();
    while !cands.is_empty() {
        let k = rng.below(cands.len() as u32) as usize;
        let h = cands.nth(k).expect("k < len");
        if let Some(out) = pos.play_unchecked(h) {
            return Some((h, out));
        }
        cands = Moves::from_mask(cands.mask() & !(1 << h.index()));
    }
    None
}

/// How a random single game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlayoutResult {
    /// Final stores, `[South, North]`.
    pub stores: [u8; 2],
    /// Moves played.
    pub moves: u32,
    /// Why the round ended.
    pub reason: EndReason,
}

/// Reusable scratch space for [`playout`], so that playouts allocate nothing.
#[derive(Clone, Debug, Default)]
pub struct PlayoutScratch {
    history: Vec<u128>,
}

/// Plays one single game from `start` to its end with uniformly random legal moves, under every
/// rule of the contract (endless moves are never chosen, the repetition rule applies, and so do
/// the end-of-round rules in their order). Equivalent to driving a [`GameState`] with
/// [`play_random`], but allocation-free.
pub fn playout(start: &Position, rng: &mut Rng, scratch: &mut PlayoutScratch) -> PlayoutResult {
    let mut pos = *start;
    let game = pos.game();
    let hist = &mut scratch.history;
    hist.clear();
    hist.push(pos.repetition_key());
    let mut moves = 0;
    let reason = loop {
        if game.one_row_ends_round()
            && (pos.row_seeds(Side::South) == 0 || pos.row_seeds(Side::North) == 0)
        {
            break EndReason::OneRow;
        }
        let Some((_, out)) = play_random(&mut pos, rng) else {
            break EndReason::NoLegalMove {
                stuck: pos.to_move(),
                endless: pos.candidates(),
            };
        };
        moves += 1;
        let key = pos.repetition_key();
        if out.seeds_taken() > 0 {
            hist.clear();
        } else if hist.contains(&key) {
            // Check rule 1 first: Pasu Pondi's one-row end precedes repetition.
            if game.one_row_ends_round()
                && (pos.row_seeds(Side::South) == 0 || pos.row_seeds(Side::North) == 0)
            {
                break EndReason::OneRow;
            }
            break EndReason::Repetition;
        }
        hist.push(key);
    };
    let each_own = match reason {
        EndReason::OneRow | EndReason::Repetition => true,
        EndReason::NoLegalMove { .. } => game.stuck_rule() == StuckRule::EachTakesOwnRow,
    };
    let taker = pos.to_move().other();
    pos.sweep(each_own, taker);
    PlayoutResult {
        stores: pos.stores(),
        moves,
        reason,
    }
}

/// Plays a whole random game or match through [`GameState`], stopping after `max_rounds`
/// rounds. Returns the final state.
///
/// # Panics
/// Never in practice: a state whose round is not over always has a legal move (a round in
/// which the player to move has none ends at once), and a legal move is always accepted; the
/// `expect`s guard those invariants of [`GameState`] only.
///
/// # Examples
/// ```
/// use pussa_rules::{random_game, Game, Mode, Rng, Side};
/// let g = random_game(Game::PasuPondi, Mode::Single, Side::South, &mut Rng::new(1), 1);
/// assert!(g.is_over());
/// let [s, n] = g.position().stores();
/// assert_eq!(u32::from(s) + u32::from(n), 70); // every seed ends in a store
/// ```
pub fn random_game(
    game: Game,
    mode: Mode,
    first: Side,
    rng: &mut Rng,
    max_rounds: u32,
) -> GameState {
    let mut g = GameState::new(game, mode, first);
    loop {
        if g.is_over() {
            return g;
        }
        if g.is_round_over() {
            if g.round() >= max_rounds {
                return g;
            }
            g.next_round();
            continue;
        }
        let legal = g.legal_moves();
        let mv = legal
            .nth(rng.below(legal.len() as u32) as usize)
            .expect("a move is expected");
        g.play(mv).expect("legal moves are legal");
    }
}
