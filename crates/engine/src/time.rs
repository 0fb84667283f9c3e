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
}

impl Clock {
    /// A clock started now.
    #[must_use]
    pub fn new(movetime: Option<Duration>, external: Option<Arc<AtomicBool>>) -> Clock {
        let start = Instant::now();
        Clock {
            start,
            deadline: movetime.map(|t| start + t),
            movetime,
            external,
            done: AtomicBool::new(false),
            whole_movetime: false,
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
    /// only from [`params::MIN_TIMED_NODES`] on (the stop flag and the end of the main thread
    /// always do).
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
    }

    /// True if another iteration may be started: a good share of the move time is left, or,
    /// with [`Clock::whole_movetime`], the deadline has not passed.
    #[must_use]
    pub fn may_start_iteration(&self) -> bool {
        match self.movetime {
            None => true,
            Some(_) if self.whole_movetime => self.deadline.is_none_or(|d| Instant::now() < d),
            Some(t) => {
                let used = self.start.elapsed();
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
