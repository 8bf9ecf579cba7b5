//! How games are played: one options value for every function that plays them (a match, a
//! self-play run, an SPSA iteration), built fluently.
//!
//! [`PlayOptions`] carries the limits of every move (a node count, a time per move or a
//! [`TimeControl`]), the transposition table size, the adjudication rules, and two optional
//! flags: `stop` (no new game starts; those under way are finished) and `abandon` (the games
//! under way are given up at their next move, e.g. on Ctrl-C).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::play::adjudication::Adjudication;
use crate::play::clock::{GameClock, TimeControl};
use crate::search::limits::SearchLimits;

/// The limits of every move of a game.
#[derive(Clone, Debug)]
pub enum MoveLimits {
    /// The same limits for every move (nodes, a time per move, a depth).
    Each(SearchLimits),
    /// A game clock per side: the mover is told both clocks (`go wtime btime winc binc`).
    Clock(TimeControl),
}

/// How games are played: move limits, table size, adjudication, and when to stop.
///
/// ```
/// use std::sync::atomic::{AtomicBool, Ordering};
/// use std::sync::Arc;
/// use std::time::Duration;
/// use engine::play::options::PlayOptions;
/// let flag = Arc::new(AtomicBool::new(false));
/// let options = PlayOptions::default()
///     .time_control("10+0.1".parse().unwrap())
///     .time_margin(Duration::from_millis(100))
///     .hash_mb(8)
///     .interrupt(flag.clone());
/// assert_eq!(options.node_count(), None);
/// assert!(!options.stopped() && !options.abandoned());
/// flag.store(true, Ordering::Relaxed);
/// assert!(options.stopped() && options.abandoned());
/// assert_eq!(PlayOptions::default().node_count(), Some(5_000));
/// assert_eq!(PlayOptions::default().nodes(300).node_count(), Some(300));
/// ```
#[derive(Clone, Debug)]
pub struct PlayOptions {
    /// The limits of every move.
    pub limits: MoveLimits,
    /// Under a time control, how far a side may overrun its clock without losing on time
    /// (process and pipe overhead; fastchess's `timemargin`).
    pub time_margin: Duration,
    /// Transposition table per player and game (gradtune's search), MiB.
    pub hash_mb: usize,
    /// Adjudication rules.
    pub adjudication: Adjudication,
    /// Once set, no new game (or pair of a match) starts; those under way are finished.
    pub stop: Option<Arc<AtomicBool>>,
    /// Once set, no new game starts and those under way are abandoned at their next move
    /// (an abandoned game is no game: it is dropped, not scored).
    pub abandon: Option<Arc<AtomicBool>>,
}

impl Default for PlayOptions {
    /// 5,000 nodes a move, 4 MiB tables, [`Adjudication::default`], no flags.
    fn default() -> Self {
        Self {
            limits: MoveLimits::Each(SearchLimits::nodes(5_000)),
            time_margin: Duration::ZERO,
            hash_mb: 4,
            adjudication: Adjudication::default(),
            stop: None,
            abandon: None,
        }
    }
}

fn is_set(flag: &Option<Arc<AtomicBool>>) -> bool {
    flag.as_ref().is_some_and(|f| f.load(Ordering::Relaxed))
}

impl PlayOptions {
    /// The same limits for every move, e.g. [`SearchLimits::depth`].
    pub fn limits(mut self, limits: SearchLimits) -> Self {
        self.limits = MoveLimits::Each(limits);
        self
    }

    /// A fixed node count a move (`go nodes N`).
    pub fn nodes(self, nodes: u64) -> Self {
        self.limits(SearchLimits::nodes(nodes))
    }

    /// A fixed time a move (`go movetime MS`).
    pub fn movetime(self, time: Duration) -> Self {
        self.limits(SearchLimits::movetime(time))
    }

    /// A game clock per side.
    pub fn time_control(mut self, control: TimeControl) -> Self {
        self.limits = MoveLimits::Clock(control);
        self
    }

    /// How far a side may overrun its clock without losing on time.
    pub fn time_margin(mut self, margin: Duration) -> Self {
        self.time_margin = margin;
        self
    }

    /// The transposition table size, MiB.
    pub fn hash_mb(mut self, mb: usize) -> Self {
        self.hash_mb = mb;
        self
    }

    /// The adjudication rules.
    pub fn adjudication(mut self, adjudication: Adjudication) -> Self {
        self.adjudication = adjudication;
        self
    }

    /// Once `flag` is set no new game starts; those under way are finished.
    pub fn stop(mut self, flag: Arc<AtomicBool>) -> Self {
        self.stop = Some(flag);
        self
    }

    /// Once `flag` is set the games under way are abandoned at their next move.
    pub fn abandon(mut self, flag: Arc<AtomicBool>) -> Self {
        self.abandon = Some(flag);
        self
    }

    /// `flag` (e.g. Ctrl-C's) both stops and abandons: once set, nothing more is played.
    pub fn interrupt(self, flag: Arc<AtomicBool>) -> Self {
        self.stop(flag.clone()).abandon(flag)
    }

    /// Whether a new game may not start: `stop` or `abandon` is set.
    pub fn stopped(&self) -> bool {
        is_set(&self.stop) || is_set(&self.abandon)
    }

    /// Whether the games under way are to be abandoned.
    pub fn abandoned(&self) -> bool {
        is_set(&self.abandon)
    }

    /// The node count of every move, if the limits are one.
    pub fn node_count(&self) -> Option<u64> {
        match &self.limits {
            MoveLimits::Each(l) => l.nodes,
            MoveLimits::Clock(_) => None,
        }
    }

    /// A new game's clocks, if games are played on a time control.
    pub fn clock(&self) -> Option<GameClock> {
        match &self.limits {
            MoveLimits::Each(_) => None,
            MoveLimits::Clock(tc) => Some(GameClock::new(*tc, self.time_margin)),
        }
    }
}
