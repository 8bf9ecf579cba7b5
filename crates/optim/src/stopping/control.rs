//! [`Control`]: the flags that end a run early (Ctrl-C, budgets, early stopping), and
//! [`Controlled`], the solver wrapper that obeys them.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::guarded::{Guard, Guarded};
use crate::objective::Objective;
use argmin::core::{TerminationReason, TerminationStatus};

/// Shared stop flags for one run. Solvers check them between iterations (and local search
/// between trial moves).
///
/// ```
/// let control = optim::Control::new();
/// assert!(control.should_stop().is_none());
/// control.interrupt();
/// assert_eq!(control.should_stop().as_deref(), Some("interrupted"));
/// ```
#[derive(Debug, Default)]
pub struct Control {
    interrupted: Arc<AtomicBool>,
    reason: Mutex<Option<String>>,
    deadline: Mutex<Option<Instant>>,
    passes: Mutex<Option<(Arc<Objective>, f64)>>,
}

impl Control {
    /// No flag set, no deadline.
    pub fn new() -> Self {
        Self::default()
    }

    /// Uses `flag` as the interrupt flag (e.g. one a Ctrl-C handler sets).
    pub fn with_interrupt_flag(flag: Arc<AtomicBool>) -> Self {
        Control {
            interrupted: flag,
            ..Control::default()
        }
    }

    /// The interrupt flag, for a signal handler to set.
    pub fn interrupt_flag(&self) -> Arc<AtomicBool> {
        self.interrupted.clone()
    }

    /// Ends the run as if by Ctrl-C.
    pub fn interrupt(&self) {
        self.interrupted.store(true, Ordering::SeqCst);
    }

    /// Whether the run was interrupted.
    pub fn interrupted(&self) -> bool {
        self.interrupted.load(Ordering::SeqCst)
    }

    /// Asks the run to stop, giving the reason (the first reason given is kept).
    pub fn stop(&self, reason: impl Into<String>) {
        if let Ok(mut r) = self.reason.lock() {
            if r.is_none() {
                *r = Some(reason.into());
            }
        }
    }

    /// Stops the run at `deadline`.
    pub fn set_deadline(&self, deadline: Option<Instant>) {
        if let Ok(mut d) = self.deadline.lock() {
            *d = deadline;
        }
    }

    /// Stops the run once `obj` has made `limit` passes in all (checked between iterations and,
    /// by local search, between trial moves).
    pub fn set_pass_limit(&self, limit: Option<(Arc<Objective>, f64)>) {
        if let Ok(mut p) = self.passes.lock() {
            *p = limit;
        }
    }

    /// Why the run should stop now, if it should.
    pub fn should_stop(&self) -> Option<String> {
        if self.interrupted() {
            return Some("interrupted".to_string());
        }
        if let Some(r) = self.reason.lock().ok().and_then(|r| r.clone()) {
            return Some(r);
        }
        let deadline = self.deadline.lock().ok().and_then(|d| *d);
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return Some("time budget reached".to_string());
        }
        let over = self
            .passes
            .lock()
            .ok()
            .is_some_and(|p| p.as_ref().is_some_and(|(o, l)| o.passes() >= *l));
        if over {
            return Some("pass budget reached".to_string());
        }
        None
    }

    /// Clears a stop reason (not an interrupt), e.g. between the stages of a hybrid run.
    pub fn clear_reason(&self) {
        if let Ok(mut r) = self.reason.lock() {
            *r = None;
        }
    }
}

/// A solver that also stops when its [`Control`] says so (argmin checks between iterations).
pub type Controlled<S> = Guarded<S, Arc<Control>>;

impl<S> Guarded<S, Arc<Control>> {
    /// Wraps `inner`.
    pub fn new(inner: S, control: Arc<Control>) -> Self {
        Guarded::with(inner, control)
    }
}

/// A run's flags as a [`Guarded`] solver's guard: an interrupt, or any other stop reason.
impl<I> Guard<I> for Arc<Control> {
    fn stop(&self) -> Option<TerminationStatus> {
        let reason = self.should_stop()?;
        Some(TerminationStatus::Terminated(if self.interrupted() {
            TerminationReason::Interrupt
        } else {
            TerminationReason::SolverExit(reason)
        }))
    }
}
