//! Time management and stopping: the deadline, the node budget and the stop flags.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::params;

/// When a search must stop, shared by all its threads.
#[derive(Debug)]
pub struct Clock {
    /// When the search started.
    pub start: Instant,
    /// The hard deadline (start + move time), if any.
    pub deadline: Option<Instant>,
    /// The move time, if any.
    pub movetime: Option<Duration>,
    /// The caller's stop flag.
    pub external: Option<Arc<AtomicBool>>,
    /// Set when the main thread has finished (helper threads stop), or the search must end.
    pub done: AtomicBool,
    /// New iterations start until the deadline ([`crate::Limits::whole_movetime`]); `false`:
    /// only while less than [`params::ITERATION_START_PERCENT`] percent of the move time is
    /// used.
    pub whole_movetime: bool,
    /// When the iterations' share of the move time started, and its length: the start and the
    /// move time, or, after the root's proof of a long move took part of the time
    /// ([`Clock::iterations_start_now`]), that moment and the time left.
    iterations: (Instant, Option<Duration>),
}

impl Clock {
    /// A clock started now.
    #[must_use]
    pub fn new(movetime: Option<Duration>, external: Option<Arc<AtomicBool>>) -> Clock {
        Clock::started_at(Instant::now(), movetime, external)
    }

    /// A clock that started at `start` (the protocol's `go`, before anything of the search
    /// was done: [`crate::Limits::start`]).
    #[must_use]
    pub fn started_at(
        start: Instant,
        movetime: Option<Duration>,
        external: Option<Arc<AtomicBool>>,
    ) -> Clock {
        Clock {
            start,
            deadline: movetime.map(|t| start + t),
            movetime,
            external,
            done: AtomicBool::new(false),
            whole_movetime: false,
            iterations: (start, movetime),
        }
    }

    /// This clock, starting new iterations until the deadline if `whole` (see
    /// [`Clock::whole_movetime`]).
    #[must_use]
    pub fn with_whole_movetime(mut self, whole: bool) -> Clock {
        self.whole_movetime = whole;
        self
    }

    /// True if the search must stop now (deadline passed, stop flag raised, or main done).
    #[must_use]
    pub fn must_stop(&self) -> bool {
        if self.done.load(Ordering::Relaxed) {
            return true;
        }
        if let Some(x) = &self.external {
            if x.load(Ordering::Relaxed) {
                return true;
            }
        }
        if let Some(d) = self.deadline {
            if Instant::now() >= d {
                return true;
            }
        }
        false
    }

    /// [`Clock::must_stop`] for a thread that has searched `nodes` nodes: the deadline counts
    /// from [`params::MIN_TIMED_NODES`] on, or before that once it is far past (by the move
    /// time again, and at least [`params::FAR_PAST_MS`]): the nodes are then expensive (moves
    /// whose sowing takes long), not a busy machine's few. The stop flag and the end of the
    /// main thread always count.
    #[must_use]
    pub fn must_stop_after(&self, nodes: u64) -> bool {
        if nodes >= params::MIN_TIMED_NODES {
            return self.must_stop();
        }
        self.done.load(Ordering::Relaxed)
            || self
                .external
                .as_ref()
                .is_some_and(|x| x.load(Ordering::Relaxed))
            || self.far_past()
    }

    /// True once the deadline is passed by the move time again and by at least
    /// [`params::FAR_PAST_MS`]; a move time of 0 (a game clock whose rest is under
    /// [`params::FAR_PAST_MS`], [`clock_movetime`]) gets no grace: the search stops at its
    /// first look at the clock and answers with what it has (the fallback move at worst).
    fn far_past(&self) -> bool {
        match (self.deadline, self.movetime) {
            (Some(d), Some(t)) => Instant::now() >= d + far_past_grace(t),
            _ => false,
        }
    }

    /// The iterations of the search start now, with the time left to the deadline as their
    /// move time for [`Clock::may_start_iteration`]: the root's proof of a long move
    /// (docs/rules.md, "Endless moves") took the time before.
    pub fn iterations_start_now(&mut self) {
        let now = Instant::now();
        self.iterations = (now, self.deadline.map(|d| d.saturating_duration_since(now)));
    }

    /// The root has one legal move: a time-managed search ([`Clock::whole_movetime`] `false`)
    /// ends within [`params::FORCED_MOVE_MS`] from now, or by its own deadline if that is
    /// sooner; its iterations count from now with that time. A search that uses its whole
    /// move time (`go movetime`, searched exactly) or has none is left as it is.
    pub fn forced_move(&mut self) {
        if self.whole_movetime {
            return;
        }
        let Some(deadline) = self.deadline else {
            return;
        };
        let now = Instant::now();
        let capped = deadline.min(now + Duration::from_millis(params::FORCED_MOVE_MS));
        self.deadline = Some(capped);
        self.movetime = Some(capped.saturating_duration_since(self.start));
        self.iterations = (now, Some(capped.saturating_duration_since(now)));
    }

    /// True if another iteration may be started: a good share of the iterations' move time is
    /// left (the move time, less what the root's proof took), or, with
    /// [`Clock::whole_movetime`], the deadline has not passed.
    #[must_use]
    pub fn may_start_iteration(&self) -> bool {
        match self.iterations.1 {
            None => true,
            Some(_) if self.whole_movetime => self.deadline.is_none_or(|d| Instant::now() < d),
            Some(t) => {
                let used = self.iterations.0.elapsed();
                used.as_secs_f64() * 100.0
                    < t.as_secs_f64() * f64::from(params::ITERATION_START_PERCENT)
            }
        }
    }

    /// Time since the start.
    #[must_use]
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }
}

/// How far past its deadline a search with move time `t` short of [`params::MIN_TIMED_NODES`]
/// nodes may go ([`Clock::must_stop_after`]): `t` again and at least [`params::FAR_PAST_MS`],
/// or nothing for a move time of 0.
fn far_past_grace(t: Duration) -> Duration {
    if t.is_zero() {
        Duration::ZERO
    } else {
        t.max(Duration::from_millis(params::FAR_PAST_MS))
    }
}

/// The move time given to a search under a game clock (the engine protocol's `go wtime W btime B
/// [winc I binc J] [movestogo N]`), for a side with `remaining` on its clock, `increment` added
/// after each move and `moves_to_go` moves until the clock is next filled (`None`: sudden death,
/// [`params::CLOCK_MOVES_TO_GO`] moves assumed).
///
/// A reserve of [`params::CLOCK_RESERVE_MS`] (a tenth of the clock when less is left) is kept
/// back; of the rest the move's share is `rest / moves_to_go + 3/4 · increment`. The search
/// runs with the levels' rule ([`crate::Limits::whole_movetime`] `false`: new iterations only
/// within the first half of the time), so the time returned is twice that share, capped at half
/// the rest and at the rest less [`params::FAR_PAST_MS`]: on average the search spends about its
/// share, and the deadline can take a long iteration to twice it. The cap, because a search that
/// has not reached [`params::MIN_TIMED_NODES`] nodes by its deadline (a slow or busy machine)
/// goes on until the deadline is far past, by the move time again and at least
/// [`params::FAR_PAST_MS`] (20 ms) ([`Clock::must_stop_after`]): the time returned plus the
/// larger of itself and 20 ms, still inside the clock less its reserve. A clock whose rest is
/// under 20 ms gets a move time of 0, which has no such grace: the search stops at its first
/// look at the clock and answers at once (the move of depth 1, or the unsearched fallback, the
/// legal move with the largest immediate gain). (The cap used to be the whole rest: on a loaded machine
/// the last moves before a clock was filled, or a small clock with a large increment, lost on
/// time.)
///
/// # Examples
/// ```
/// use std::time::Duration;
/// use pussa_engine::time::clock_movetime;
/// let ms = Duration::from_millis;
/// // Sudden death, 60 s: (60 000 − 50) / 30 ≈ 1998 ms share, searched with a 3996 ms deadline.
/// assert_eq!(clock_movetime(ms(60_000), ms(0), None), ms(3996));
/// // The last move before the clock is filled: half of all but the reserve (twice that, the
/// // most a search short of its nodes may take, is still inside the clock).
/// assert_eq!(clock_movetime(ms(1_000), ms(0), Some(1)), ms(475));
/// // Never more than the clock holds, whatever the increment.
/// assert!(clock_movetime(ms(100), ms(5_000), None) < ms(100));
/// // Any Duration is taken, without overflow.
/// assert!(clock_movetime(Duration::MAX, Duration::MAX, None) < Duration::MAX);
/// ```
#[must_use]
pub fn clock_movetime(
    remaining: Duration,
    increment: Duration,
    moves_to_go: Option<u32>,
) -> Duration {
    let reserve = (remaining / 10).min(Duration::from_millis(params::CLOCK_RESERVE_MS));
    let rest = remaining.saturating_sub(reserve);
    let moves = moves_to_go.unwrap_or(params::CLOCK_MOVES_TO_GO).max(1);
    // Saturating: a library caller may pass any Duration (the protocol caps clocks at a week).
    let share = (rest / moves).saturating_add(increment.saturating_mul(3) / 4);
    // Whole milliseconds, as the protocol counts them.
    let ms = |d: Duration| Duration::from_millis(d.as_millis().min(u128::from(u64::MAX)) as u64);
    // The worst stop, t + max(t, FAR_PAST_MS), must fit in the rest.
    let cap = (rest / 2).min(rest.saturating_sub(Duration::from_millis(params::FAR_PAST_MS)));
    ms(share.saturating_mul(2).min(cap))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Below MIN_TIMED_NODES the deadline counts only once it is far past (by the move time
    /// again, and at least FAR_PAST_MS): expensive nodes, not a busy machine.
    #[test]
    fn the_deadline_counts_before_the_node_floor_only_when_far_past() {
        let ms = Duration::from_millis;
        let now = Instant::now();
        let clock =
            |ago: u64, movetime: u64| Clock::started_at(now - ms(ago), Some(ms(movetime)), None);
        // Just past the deadline: not yet, below the floor; at once from it.
        assert!(!clock(15, 10).must_stop_after(0));
        assert!(clock(15, 10).must_stop_after(params::MIN_TIMED_NODES));
        // Past by 20 ms and by the move time: yes.
        assert!(clock(35, 10).must_stop_after(0));
        assert!(!clock(150, 100).must_stop_after(0));
        assert!(clock(250, 100).must_stop_after(0));
        // A move time of 0 (a clock with under FAR_PAST_MS left): no grace, stop at once.
        assert!(clock(0, 0).must_stop_after(0));
        // No deadline: never.
        assert!(!Clock::started_at(now - ms(10_000), None, None).must_stop_after(0));
    }

    /// One legal move: a time-managed clock keeps at most FORCED_MOVE_MS; one that uses its
    /// whole move time (`go movetime`) or has none keeps its deadline.
    #[test]
    fn a_forced_move_shortens_only_a_time_managed_search() {
        let ms = Duration::from_millis;
        let now = Instant::now();
        let mut managed = Clock::started_at(now, Some(ms(16_000)), None);
        managed.forced_move();
        let d = managed.deadline.unwrap();
        assert!(d <= Instant::now() + ms(params::FORCED_MOVE_MS), "{d:?}");
        assert!(managed.movetime.unwrap() <= ms(params::FORCED_MOVE_MS + 1_000));
        let mut whole = Clock::started_at(now, Some(ms(16_000)), None).with_whole_movetime(true);
        whole.forced_move();
        assert_eq!(whole.deadline, Some(now + ms(16_000)));
        let mut short = Clock::started_at(now, Some(ms(5)), None);
        short.forced_move();
        assert_eq!(short.deadline, Some(now + ms(5)));
        let mut none = Clock::started_at(now, None, None);
        none.forced_move();
        assert_eq!(none.deadline, None);
    }

    /// The clock's move time, plus the most a search short of its nodes runs past it (the
    /// move time again, at least FAR_PAST_MS), fits in the clock less its reserve; the move
    /// time grows with the increment and with fewer moves to go, and is about twice the
    /// clock's share per move.
    #[test]
    fn clock_movetime_stays_inside_the_clock() {
        let ms = Duration::from_millis;
        for remaining in [
            0,
            1,
            10,
            25,
            30,
            45,
            60,
            80,
            500,
            1_000,
            10_000,
            300_000,
            604_800_000,
        ] {
            let reserve = (ms(remaining) / 10).min(ms(params::CLOCK_RESERVE_MS));
            let rest = ms(remaining) - reserve;
            for inc in [0, 100, 2_000, 100_000] {
                for mtg in [None, Some(1), Some(2), Some(40)] {
                    let t = clock_movetime(ms(remaining), ms(inc), mtg);
                    let worst_stop = t + far_past_grace(t);
                    assert!(
                        worst_stop <= rest,
                        "{remaining} {inc} {mtg:?}: {t:?}, worst stop {worst_stop:?}, rest {rest:?}"
                    );
                    assert!(t >= clock_movetime(ms(remaining), ms(0), mtg));
                    assert!(t <= clock_movetime(ms(remaining), ms(inc), Some(1)));
                }
            }
        }
        assert_eq!(clock_movetime(ms(30_050), ms(0), None), ms(2_000));
        assert_eq!(clock_movetime(ms(30_050), ms(400), Some(10)), ms(6_600));
        // A small clock with a large increment: rest 27 ms, so 7 ms (worst stop 27 ms), not
        // 13 ms (worst stop 33 ms, past the clock).
        assert_eq!(clock_movetime(ms(30), ms(100), None), ms(7));
    }
}
