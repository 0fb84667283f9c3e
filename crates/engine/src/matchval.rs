//! The end of a round inside a match, as the search values it.
//!
//! In a single game a round's end is worth its margin. In a match the round's end is also the
//! start of the next round, and what a player has at the end of a round is not the whole story:
//! the holdings decide how many holes each player fills and who starts the next round, and in
//! Raja Pasu the first move of a round is worth about 16 seeds (the start's value, docs/solved.md)
//! while the starter is whoever took the last seeds. A search that only counts the round's
//! margin gives the next round away for a seed or two.
//!
//! So in match mode the search values a round's end at what the holdings are expected to be
//! **after the next round**: the margin now, less the seeds the players put back on the board
//! at the refill (`seeds_per_hole · (k_me − k_opp)` for `k` holes filled each), plus the next
//! round's value for its starter ([`round_value`]: a fixed-budget search of that round's start,
//! the same for every caller). A round that ends the match (a player cannot fill a hole) is worth
//! [`params::MATCH_WIN`] seeds to the winner instead. The unit stays the seed, so the rest of the
//! search (evaluation, aspiration, the table) is unchanged.
//!
//! A round's end that would lay out the next round exactly as
//! [`params::MATCH_CIRCLE_SEEN`] (2) earlier rounds of this match started
//! ([`GameState::round_starts`]: the same holdings, the same starter) is worth a draw, even
//! holdings: the match has settled into a circle, which the contract leaves without a result and
//! our tournaments score as a draw. The player ahead then looks for another way to end the
//! round, and the player behind is glad of the circle, as a chess engine treats a threefold
//! repetition. A start seen only once before is valued as any other: coming back to it once
//! is no circle when the other player need not play the same way again (counting it a draw
//! made club lose 45 of 100 Pasu Pondi 6 matches to casual, against 22 without; docs/engine.md).

use std::sync::OnceLock;

use pussa_rules::{Game, GameState, Mode, Position, Side, StarterRule};

use crate::eval::RoundEnd;
use crate::{params, Limits};

const GAMES: usize = Game::ALL.len();
/// Round starts a game can have: holes filled by South and by North (1 to 7 each), the starter.
const STARTS: usize = 7 * 7 * 2;

static ROUND_VALUES: [OnceLock<i32>; GAMES * STARTS] = [const { OnceLock::new() }; GAMES * STARTS];

/// The value, in seeds for the player who starts it, of a round of `game` in which South fills
/// `filled[0]` holes and North `filled[1]` (the others closed as the contract says) and
/// `starter` moves first: what a search of [`params::MATCH_ROUND_NODES`] nodes on one thread
/// finds for the round's final margin. Computed once per process and kept; the same for every
/// caller (a fixed node budget is deterministic).
///
/// # Panics
/// If a count of holes is not between 1 and 7.
///
/// # Examples
/// ```
/// use pussa_engine::matchval::round_value;
/// use pussa_rules::{Game, Side};
/// // Raja Pasu's real start: the first player wins the round (by 16 seeds with perfect play).
/// assert!(round_value(Game::RajaPasu, [7, 7], Side::South) > 0);
/// ```
#[must_use]
pub fn round_value(game: Game, filled: [u8; 2], starter: Side) -> i32 {
    assert!(
        filled.iter().all(|k| (1..=7).contains(k)),
        "holes filled must be 1 to 7, not {filled:?}"
    );
    *ROUND_VALUES[slot(game, filled, starter)].get_or_init(|| search_round(game, filled, starter))
}

/// The round starts a match of `game` can lay out: one side fills all 7 holes (the holdings
/// add up to the 14 holes' worth, so both cannot be short), the other 1 to 7, either starting.
fn reachable_starts() -> impl Iterator<Item = ([u8; 2], Side)> {
    (1..=7u8).flat_map(|k| {
        let pairs = if k == 7 {
            vec![[7, 7]]
        } else {
            vec![[k, 7], [7, k]]
        };
        pairs
            .into_iter()
            .flat_map(|f| Side::BOTH.into_iter().map(move |s| (f, s)))
    })
}

/// Computes every [`round_value`] a match of `game` can need (26 starts, each a search of
/// [`params::MATCH_ROUND_NODES`] nodes: about 1.3 million nodes, around a second on one
/// core), so that no later search pays for them. Without it they are computed the first time a
/// search meets them, inside that search and outside its `movetime` (the first searches of a
/// match in a fresh process then run over their time: 254 ms for 50). `pussa engine` calls it
/// at `newgame … match` on a thread of its own, and `isready` waits for it; a program using the
/// library should call it before timed searches of a match. Idempotent and thread-safe; a value
/// already computed is not computed again.
///
/// # Examples
/// ```
/// use pussa_engine::matchval::{is_prepared, prepare};
/// use pussa_rules::Game;
/// prepare(Game::PasuPondi);
/// assert!(is_prepared(Game::PasuPondi));
/// ```
pub fn prepare(game: Game) {
    for (filled, starter) in reachable_starts() {
        let _ = round_value(game, filled, starter);
    }
}

/// Whether every round value [`prepare`] computes for `game` is ready.
#[must_use]
pub fn is_prepared(game: Game) -> bool {
    reachable_starts()
        .all(|(filled, starter)| ROUND_VALUES[slot(game, filled, starter)].get().is_some())
}

/// The index of a round start in `ROUND_VALUES`.
fn slot(game: Game, filled: [u8; 2], starter: Side) -> usize {
    let g = Game::ALL
        .iter()
        .position(|&x| x == game)
        .expect("every game is in Game::ALL");
    g * STARTS
        + (usize::from(filled[0]) - 1) * 14
        + (usize::from(filled[1]) - 1) * 2
        + starter.index()
}

/// The board of a round's start with `filled` holes filled by each side, `starter` to move,
/// and **empty stores**: the position the round values of this module are searched from (a
/// round's value is the margin of the seeds taken in it, in which the seeds carried in the
/// stores play no part).
///
/// Not a position a match reaches: in a match the stores then hold the seeds not sown into the
/// filled holes, so that the seeds add up to the game's total, and `filled` alone does not say
/// how many (see `pussa_egtb::matches::round_start`, which takes South's holding and builds
/// the position a match reaches). So its position string does not read back.
///
/// # Examples
/// ```
/// use pussa_engine::matchval::round_board;
/// use pussa_rules::{Game, Side};
/// let p = round_board(Game::RajaPasu, [3, 7], Side::South);
/// assert_eq!(p.stores(), [0, 0]);
/// assert!(format!("{p:?}").starts_with("Position(x,x,x,x,7,7,7/7,7,7,7,7,7,7 0 0 S"));
/// ```
#[must_use]
pub fn round_board(game: Game, filled: [u8; 2], starter: Side) -> Position {
    let sph = game.seeds_per_hole();
    let closed =
        game.closed_holes(Side::South, filled[0]) | game.closed_holes(Side::North, filled[1]);
    Position::from_parts_unchecked(game, [sph; 14], closed, [0, 0], starter)
}

fn search_round(game: Game, filled: [u8; 2], starter: Side) -> i32 {
    let pos = round_board(game, filled, starter);
    let state = GameState::from_position(pos, Mode::Single, 1, starter);
    let limits = Limits {
        nodes: Some(params::MATCH_ROUND_NODES),
        threads: 1,
        ..Limits::default()
    };
    crate::search::search(&state, &limits, &mut |_| {}).score
}

/// What a search in match mode needs to value the end of a round: the game, who started the
/// round being searched and how the match's rounds so far started.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MatchView {
    game: Game,
    starter: Side,
    /// The circles, by starter: bit `h` of `seen[s]` is set if [`params::MATCH_CIRCLE_SEEN`]
    /// rounds so far started with South holding `h` seeds and `s` to move (every game has fewer
    /// than 128 seeds).
    seen: [u128; 2],
}

impl MatchView {
    /// The view for a search from `state`, or `None` in a single game.
    pub(crate) fn of(state: &GameState) -> Option<MatchView> {
        (state.mode() == Mode::Match).then(|| {
            let mut count = [[0u8; 128]; 2];
            let mut seen = [0u128; 2];
            for r in state.round_starts() {
                let (s, h) = (
                    r.starter.index(),
                    usize::from(r.holdings[Side::South.index()]),
                );
                count[s][h] = count[s][h].saturating_add(1);
                if count[s][h] >= params::MATCH_CIRCLE_SEEN {
                    seen[s] |= 1u128 << h;
                }
            }
            MatchView {
                game: state.game(),
                starter: state.round_starter(),
                seen,
            }
        })
    }

    /// What to add, in internal units, to the future margin `margin` (seeds, for the side to
    /// move at `pos`) of a round that ends with that margin, in the way `end` (`None`: not
    /// known, as for a value from the endgame tables; where the next starter depends on it, the
    /// mean of the two starters is used). Also whether that counts on an estimate: `false` only
    /// where the round's end ends the match (its value is then exact); a next round valued by
    /// [`round_value`] (a fixed-budget search, not a proof) or by a circle's draw is an estimate.
    pub(crate) fn adjust(&self, pos: &Position, margin: i32, end: Option<RoundEnd>) -> (i32, bool) {
        let game = self.game;
        let me = pos.to_move();
        let opp = me.other();
        let board = pos.seeds_on_board() as i32;
        let mine = (board + margin) / 2;
        let mut held = [0i32; 2];
        held[me.index()] = i32::from(pos.store(me)) + mine;
        held[opp.index()] = i32::from(pos.store(opp)) + board - mine;
        let sph = i32::from(game.seeds_per_hole());
        let out = [held[0] < sph, held[1] < sph];
        if out[0] || out[1] {
            let sign = match (out[me.index()], out[opp.index()]) {
                (false, true) => 1,
                (true, false) => -1,
                _ => 0,
            };
            return (sign * params::MATCH_WIN * params::SCALE, false);
        }
        let next = match game.starter_rule() {
            StarterRule::TakerOfLeftovers => match end {
                Some(RoundEnd::OtherTakesAll) => Some(opp),
                Some(RoundEnd::EachOwnRow) => Some(self.starter.other()),
                None => None,
            },
            StarterRule::FewerSeeds => Some(match held[0].cmp(&held[1]) {
                std::cmp::Ordering::Less => Side::South,
                std::cmp::Ordering::Greater => Side::North,
                std::cmp::Ordering::Equal => self.starter.other(),
            }),
            StarterRule::Alternate => Some(self.starter.other()),
        };
        let filled = held.map(|h| (h / sph).min(7) as u8);
        let refill = sph * (i32::from(filled[me.index()]) - i32::from(filled[opp.index()]));
        let for_me = |s: Side| {
            let v = round_value(game, filled, s);
            if s == me {
                v
            } else {
                -v
            }
        };
        // A next round that closes a circle: a draw, worth what even holdings are.
        // The value of a round's end counts from the stores at `pos`, so even holdings are
        // `-(held[me] - held[opp])` from here.
        let south = held[Side::South.index()] as u32;
        let repeats = |s: Side| self.seen[s.index()] >> south & 1 == 1;
        let even = held[opp.index()] - held[me.index()];
        let each = |s: Side| if repeats(s) { even } else { for_me(s) - refill };
        let after = match next {
            Some(s) => each(s),
            // Either may start: the mean, rounded as without circles when neither repeats.
            None if !repeats(me) && !repeats(opp) => (for_me(me) + for_me(opp)) / 2 - refill,
            None => (each(me) + each(opp)) / 2,
        };
        (after * params::SCALE, true)
    }
}
