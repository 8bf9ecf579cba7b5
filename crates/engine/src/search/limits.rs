//! How long a search may run: depth, nodes, time, the game clocks, and a stop flag.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use shakmaty::Color;

/// The deepest iteration the search will start, whatever the limits.
pub const MAX_DEPTH: u32 = 64;

/// Limits of one search. With none set the search runs to [`MAX_DEPTH`] or until stopped.
///
/// ```
/// use engine::SearchLimits;
/// let limits = SearchLimits::nodes(5_000);
/// assert_eq!(limits.nodes, Some(5_000));
/// let limits = SearchLimits::depth(4);
/// assert_eq!(limits.depth, Some(4));
/// ```
#[derive(Clone, Debug, Default)]
pub struct SearchLimits {
    /// Deepest iteration to complete.
    pub depth: Option<u32>,
    /// Node budget (interior, leaf and quiescence nodes).
    pub nodes: Option<u64>,
    /// Hard time limit for the whole search.
    pub movetime: Option<Duration>,
    /// Soft time limit: no new iteration starts after this much time.
    pub soft_time: Option<Duration>,
    /// Set to `true` from another thread to stop the search (UCI `stop`).
    pub stop: Option<Arc<AtomicBool>>,
    /// The game clocks (UCI `go wtime btime winc binc movestogo`): the search takes its time
    /// limits from the mover's clock ([`SearchLimits::resolve`]) unless `movetime` is set.
    pub clock: Option<Clocks>,
}

/// Both sides' clocks as UCI's `go` gives them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clocks {
    /// White's time left.
    pub wtime: Duration,
    /// Black's time left.
    pub btime: Duration,
    /// White's increment.
    pub winc: Duration,
    /// Black's increment.
    pub binc: Duration,
    /// Moves until the next time control, if any.
    pub moves_to_go: Option<u32>,
}

impl SearchLimits {
    /// Search to a fixed depth.
    pub fn depth(depth: u32) -> Self {
        Self {
            depth: Some(depth),
            ..Self::default()
        }
    }

    /// Search a fixed number of nodes.
    pub fn nodes(nodes: u64) -> Self {
        Self {
            nodes: Some(nodes),
            ..Self::default()
        }
    }

    /// Search for a fixed time.
    pub fn movetime(time: Duration) -> Self {
        Self {
            movetime: Some(time),
            ..Self::default()
        }
    }

    /// Limits for a game clock: `time`/`inc` are the mover's remaining time and increment,
    /// `moves_to_go` the moves until the next time control, if any.
    ///
    /// ```
    /// use std::time::Duration;
    /// use engine::SearchLimits;
    /// let l = SearchLimits::clock(Duration::from_secs(60), Duration::from_secs(1), None);
    /// assert!(l.movetime.unwrap() < Duration::from_secs(30));
    /// ```
    pub fn clock(time: Duration, inc: Duration, moves_to_go: Option<u32>) -> Self {
        let overhead = Duration::from_millis(30);
        let usable = time.saturating_sub(overhead);
        let moves = u32::max(moves_to_go.unwrap_or(30).min(50), 1);
        let target = usable / moves + inc * 3 / 4;
        let hard = (target * 3).min(usable / 2).max(Duration::from_millis(1));
        let soft = target.min(hard);
        Self {
            movetime: Some(hard),
            soft_time: Some(soft),
            ..Self::default()
        }
    }

    /// Search with the game clocks: time limits from the mover's ([`SearchLimits::resolve`]).
    pub fn clocks(clocks: Clocks) -> Self {
        Self {
            clock: Some(clocks),
            ..Self::default()
        }
    }

    /// These limits for a search by `turn`: with a [`clock`](Self::clock) and no `movetime`,
    /// the hard and soft time limits of [`SearchLimits::clock`] for the mover's time,
    /// increment and moves to go; otherwise unchanged.
    ///
    /// ```
    /// use std::time::Duration;
    /// use engine::search::limits::{Clocks, SearchLimits};
    /// use shakmaty::Color;
    /// let s = Duration::from_secs;
    /// let clocks = Clocks { wtime: s(60), btime: s(1), winc: s(0), binc: s(0), moves_to_go: None };
    /// let white = SearchLimits::clocks(clocks).resolve(Color::White);
    /// let black = SearchLimits::clocks(clocks).resolve(Color::Black);
    /// assert!(white.movetime.unwrap() > black.movetime.unwrap());
    /// assert!(black.movetime.unwrap() < s(1));
    /// ```
    pub fn resolve(&self, turn: Color) -> SearchLimits {
        let mut limits = self.clone();
        if let (Some(c), None) = (self.clock, self.movetime) {
            let (time, inc) = clock_for(turn, c.wtime, c.btime, c.winc, c.binc);
            let clock = SearchLimits::clock(time, inc, c.moves_to_go);
            limits.movetime = clock.movetime;
            limits.soft_time = clock.soft_time;
        }
        limits
    }

    /// Attach a stop flag.
    pub fn with_stop(mut self, stop: Arc<AtomicBool>) -> Self {
        self.stop = Some(stop);
        self
    }

    /// Whether the stop flag is set.
    pub fn stopped(&self) -> bool {
        self.stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
    }
}

/// Pick the mover's clock from UCI-style white/black times.
pub fn clock_for(
    turn: Color,
    wtime: Duration,
    btime: Duration,
    winc: Duration,
    binc: Duration,
) -> (Duration, Duration) {
    match turn {
        Color::White => (wtime, winc),
        Color::Black => (btime, binc),
    }
}
