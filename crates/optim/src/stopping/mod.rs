//! When a run stops: every rule that ends a run, a round or a stage is decided here.
//!
//! | what | where it is checked | reason |
//! |---|---|---|
//! | Ctrl-C | [`Control::interrupt`]; [`Controlled`] between iterations, a pass between chunks (its [`Stop`](tapered::Stop) is the interrupt flag) | `interrupted` |
//! | iteration budget | [`after_iteration`]; each executor's cap ([`remaining`]) | `iteration budget reached` |
//! | pass budget | [`after_iteration`]; [`Control::set_pass_limit`] between trial moves | `pass budget reached` |
//! | time budget | [`Control::set_deadline`] | `time budget reached` |
//! | early stopping ([`Budget::patience`]) | [`after_iteration`], from the validation tracker's verdict | `early stopping: ...` |
//! | the relative rules ([`Stopping`]) | [`after_iteration`] | `converged: ...` |
//! | a solver's own end | argmin's termination (the stage's reason) | the solver's |
//! | a stalled swarm | [`StallGuard`] (the swarm then restarts) | `stalled` |
//!
//! A reason is given to the run's [`Control`] ([`Control::stop`]; the first one given is kept)
//! and every solver stops at its next check. Between the rounds of
//! [`run_resolving`](crate::run_resolving) a round cut at its own iteration cap or converged
//! goes on ([`round_end`]), and the run ends when the leaves go round in a cycle, no leaf
//! changed, or the leaves keep changing after [`MAX_SETTLED_ROUNDS`] converged rounds
//! ([`after_resolution`]). L-BFGS restarts where the relative loss rule ended a run that still
//! gained ([`ended_by_loss_rule`], [`restart_worth`]).

mod control;
mod guarded;
mod rules;

use serde::{Deserialize, Serialize};

pub use control::{Control, Controlled};
pub use guarded::{Guard, Guarded, Stall, StallGuard};
pub use rules::{Stopping, CONVERGED};

/// Budgets and stopping rules of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Budget {
    /// Maximum iterations over the whole run.
    pub max_iters: Option<u64>,
    /// Maximum passes over the training data.
    pub max_passes: Option<f64>,
    /// Maximum seconds.
    pub seconds: Option<f64>,
    /// Stop after this many iterations in a row that did not become the kept iterate (under
    /// the default rule: worse than the lowest validation loss beyond the noise).
    pub patience: Option<usize>,
}

impl Budget {
    /// At most `n` iterations, and no other limit.
    ///
    /// ```
    /// use optim::Budget;
    ///
    /// assert_eq!(Budget::iterations(50).max_iters, Some(50));
    /// assert_eq!(Budget::iterations(50).patience, None);
    /// ```
    pub fn iterations(n: u64) -> Budget {
        Budget {
            max_iters: Some(n),
            ..Budget::default()
        }
    }
}

/// The reason given when the iterations of the run (or of a round) run out.
pub(crate) const ITERATIONS_SPENT: &str = "iteration budget reached";

/// The reason given when the passes over the training data run out.
const PASSES_SPENT: &str = "pass budget reached";

/// The reason given when the validation loss says the run is over-fitting.
const EARLY_STOPPING: &str =
    "early stopping: validation loss worse than the kept iterate's beyond the noise";

/// Rounds in a row that may end with the method converged while the leaves keep changing.
pub(crate) const MAX_SETTLED_ROUNDS: u32 = 10;

/// After iteration `iter` (with `passes` passes made): stops the run, in this order of
/// precedence, when the relative rules say it `converged`, when the validation tracker says
/// to stop `early`, when the pass budget or the iteration budget is spent.
pub(crate) fn after_iteration(
    control: &Control,
    budget: &Budget,
    converged: Option<String>,
    early: bool,
    passes: f64,
    iter: u64,
) {
    if let Some(reason) = converged {
        control.stop(reason);
    }
    if early {
        control.stop(EARLY_STOPPING);
    }
    if budget.max_passes.is_some_and(|m| passes >= m) {
        control.stop(PASSES_SPENT);
    }
    if budget.max_iters.is_some_and(|m| iter >= m) {
        control.stop(ITERATIONS_SPENT);
    }
}

/// Iterations left in `budget` after `next` iterations were numbered (the start is 0), at most
/// `cap`: the cap of the next executor.
pub(crate) fn remaining(next: u64, budget: &Budget, cap: Option<u64>) -> u64 {
    let done = next.saturating_sub(1);
    let left = budget
        .max_iters
        .map_or(u64::MAX, |m| m.saturating_sub(done));
    cap.map_or(left, |c| c.min(left))
}

/// A round's budget: the run's, with the iterations cut at the round's end when the run goes
/// in rounds of `every` iterations (`done` iterations done so far).
pub(crate) fn round_budget(budget: &Budget, every: Option<u64>, done: u64) -> Budget {
    match every {
        Some(n) => {
            let end = done.saturating_add(n);
            Budget {
                max_iters: Some(budget.max_iters.map_or(end, |m| m.min(end))),
                ..*budget
            }
        }
        None => *budget,
    }
}

/// Clears a stop reason that only ended a stage or a round (not an interrupt); whether the
/// run may go on (no other reason to stop holds).
pub(crate) fn resume(control: &Control) -> bool {
    control.clear_reason();
    control.should_stop().is_none()
}

/// How a round of a re-resolving run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RoundEnd {
    /// The run ends (interrupted, a budget spent, early stopping, another reason).
    Stop,
    /// Cut at the round's own iteration cap: re-resolve and go on.
    Cut,
    /// The method stopped by itself (converged): re-resolve, then see.
    Settled,
}

/// How the round that ended after `done` iterations ended (the run's iteration budget
/// `max_iters`): a round cut at its own cap goes on; one that converged (by the method's own
/// rule, or the relative rules) re-resolves and then sees; anything else ends the run.
pub(crate) fn round_end(control: &Control, max_iters: Option<u64>, done: u64) -> RoundEnd {
    match control.should_stop() {
        None => RoundEnd::Settled,
        Some(_) if control.interrupted() => RoundEnd::Stop,
        Some(r)
            if (r == ITERATIONS_SPENT && max_iters.is_none_or(|m| done < m))
                || r.starts_with(CONVERGED) =>
        {
            if !resume(control) {
                return RoundEnd::Stop;
            }
            if r == ITERATIONS_SPENT {
                RoundEnd::Cut
            } else {
                RoundEnd::Settled
            }
        }
        Some(_) => RoundEnd::Stop,
    }
}

/// After the re-resolution that followed a round (`cut` or settled, `changed` leaves changed,
/// the leaves those of iteration `repeats` again if so; `settled` the converged rounds in a
/// row so far, updated): whether the run ends, with `reason` completed to say why.
pub(crate) fn after_resolution(
    control: &Control,
    reason: &mut String,
    cut: bool,
    changed: usize,
    repeats: Option<u64>,
    settled: &mut u32,
) -> bool {
    if let Some(i) = repeats {
        // The same leaves, so the same objective as after iteration i: the rounds would
        // only go round again.
        let cycle = format!("the leaves went round in a cycle (those of iteration {i} again)");
        // After a round cut short, the method's own reason only says so.
        *reason = if cut {
            cycle
        } else {
            format!("{reason}; {cycle}")
        };
        return true;
    }
    if !cut {
        if changed == 0 {
            *reason = format!("{reason}; no leaf changed at the re-resolution");
            return true;
        }
        *settled += 1;
        if *settled >= MAX_SETTLED_ROUNDS {
            *reason =
                format!("{reason}; leaves still changing after {settled} rounds that converged");
            return true;
        }
    } else {
        *settled = 0;
    }
    control.should_stop().is_some()
}

/// The reason a finished run gives: the run's stop reason if one was given, else the last
/// stage's `reason`.
pub(crate) fn final_reason(control: &Control, reason: String) -> String {
    control.should_stop().unwrap_or(reason)
}

/// Whether the relative loss rule, with threshold `rule`, is what ended the last stage (the
/// first condition of an L-BFGS restart).
#[allow(clippy::neg_cmp_op_on_partial_ord)]
pub(crate) fn ended_by_loss_rule(control: &Control, rule: f64) -> bool {
    let reason = control.should_stop();
    // As written before the rules met here: a NaN threshold does not rule a restart out.
    !(rule <= 0.0) && reason.as_deref().is_some_and(|r| r.starts_with(CONVERGED))
}

/// Whether an L-BFGS run that the relative loss rule (threshold `rule`) ended is worth a
/// restart: it lowered the training objective from `e0` to `e1` by more than ten times the
/// threshold (on a non-convex objective L-BFGS crosses plateaus where the rule fires).
#[allow(clippy::neg_cmp_op_on_partial_ord)]
pub(crate) fn restart_worth(rule: f64, e0: f64, e1: f64) -> bool {
    // Written as the negation of "gained too little", so that a NaN loss restarts as before.
    !(e0 - e1 <= 10.0 * rule * e0.abs())
}
