//! [`Stop`]: when to abandon a long computation (a pass, a Jacobian, a Gauss-Newton matrix, a
//! load): the one stop parameter of every such function.

use std::sync::atomic::{AtomicBool, Ordering};

/// When to abandon a long computation: never, once a flag is set (a Ctrl-C handler's, an
/// optimiser run's `optim::Control::interrupt_flag`), or once a test says so. A computation
/// asks it between pieces of work (before each chunk of a pass, every few hundred rows of a
/// matrix) and, when told to stop, returns `None` having changed nothing.
///
/// ```
/// use std::sync::atomic::{AtomicBool, Ordering};
/// use tapered::Stop;
///
/// assert!(!Stop::Never.now());
/// let flag = AtomicBool::new(false);
/// let stop = Stop::from(&flag);
/// assert!(!stop.now());
/// flag.store(true, Ordering::SeqCst);
/// assert!(stop.now());
/// assert!(Stop::When(&|| true).now());
/// ```
#[derive(Clone, Copy, Default)]
pub enum Stop<'a> {
    /// Never abandoned.
    #[default]
    Never,
    /// Abandoned once the flag is set.
    Flag(&'a AtomicBool),
    /// Abandoned once the test returns `true`.
    When(&'a (dyn Fn() -> bool + Sync)),
}

impl Stop<'_> {
    /// Whether to stop now.
    pub fn now(self) -> bool {
        match self {
            Stop::Never => false,
            Stop::Flag(f) => f.load(Ordering::Relaxed),
            Stop::When(f) => f(),
        }
    }
}

impl<'a> From<&'a AtomicBool> for Stop<'a> {
    fn from(flag: &'a AtomicBool) -> Self {
        Stop::Flag(flag)
    }
}

impl std::fmt::Debug for Stop<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stop::Never => f.write_str("Stop::Never"),
            Stop::Flag(a) => write!(f, "Stop::Flag({})", a.load(Ordering::Relaxed)),
            Stop::When(_) => f.write_str("Stop::When(..)"),
        }
    }
}
