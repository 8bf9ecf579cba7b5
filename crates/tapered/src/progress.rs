//! [`Progress`]: how a long computation reports as it goes. The libraries draw nothing: they
//! send [`ProgressEvent`]s to a callback, and the program (the `tune` binary) draws the bars.

use std::sync::Arc;

/// What a long computation reports.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum ProgressEvent<'a> {
    /// An optimiser run begins: `name` is the method, `max_iters` its iteration budget, if any.
    Run {
        /// The method's name.
        name: &'a str,
        /// The iteration budget (`None`: unbounded).
        max_iters: Option<u64>,
    },
    /// A task of `len` steps begins (loading, recording, resolving): `what` names it.
    Begin {
        /// What the task does, in a word or two.
        what: &'a str,
        /// Its number of steps; 0 when not known beforehand (e.g. traces read in one pass).
        len: u64,
    },
    /// `n` more steps of the current task are done (sent from any thread).
    Advance(u64),
    /// The run is at iteration `iter`, with a status line.
    Iteration {
        /// Iterations so far (0: the start).
        iter: u64,
        /// Losses, passes and the stage, in a line.
        message: &'a str,
    },
    /// A new status line, the position unchanged.
    Message(&'a str),
    /// A line for the user, to be shown above the progress (a re-resolution's summary).
    Note(&'a str),
    /// The current task or run is over (its bar goes).
    End,
}

/// A progress callback.
type Callback = dyn Fn(ProgressEvent<'_>) + Send + Sync;

/// The callback [`ProgressEvent`]s go to (none by default: nothing is reported). Cheap to
/// clone; shared by the threads of a computation.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use tapered::{Progress, ProgressEvent};
///
/// let seen = Arc::new(Mutex::new(0u64));
/// let s = seen.clone();
/// let progress = Progress::new(move |e| {
///     if let ProgressEvent::Advance(n) = e {
///         *s.lock().unwrap() += n;
///     }
/// });
/// progress.advance(3);
/// progress.advance(4);
/// assert_eq!(*seen.lock().unwrap(), 7);
/// assert!(Progress::none().is_none());
/// ```
#[derive(Clone, Default)]
pub struct Progress(Option<Arc<Callback>>);

impl Progress {
    /// Events go to `f`.
    pub fn new(f: impl Fn(ProgressEvent<'_>) + Send + Sync + 'static) -> Self {
        Progress(Some(Arc::new(f)))
    }

    /// No events are reported.
    pub fn none() -> Self {
        Progress(None)
    }

    /// Whether nothing is reported.
    pub fn is_none(&self) -> bool {
        self.0.is_none()
    }

    /// Reports `e`.
    pub fn send(&self, e: ProgressEvent<'_>) {
        if let Some(f) = &self.0 {
            f(e);
        }
    }

    /// Reports the start of a task of `len` steps named `what` (0: not known beforehand);
    /// returns the [`Progress`] its steps and its end go to.
    pub fn begin(&self, what: &str, len: u64) -> Progress {
        self.send(ProgressEvent::Begin { what, len });
        self.clone()
    }

    /// Reports that the current task is over.
    pub fn end(&self) {
        self.send(ProgressEvent::End);
    }

    /// Reports `n` more steps done.
    pub fn advance(&self, n: u64) {
        self.send(ProgressEvent::Advance(n));
    }
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Progress(callback)"
        } else {
            "Progress(none)"
        })
    }
}
