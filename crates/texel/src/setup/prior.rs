//! The support of every weight at the start weights ([`optim::Support`], one pass over the
//! training set at load) and the pseudo-count prior built from it
//! ([`ObjectiveOptions::prior_positions`]): each weight held at its start value by `m` pseudo-
//! positions of its own typical curvature, so that a weight few positions support stays near
//! its start while one supported by many fits as before (the formula:
//! [`optim::Support::prior_strengths`]; for users, `docs/guide.md`, "The prior").

use std::sync::Arc;

use optim::{Objective, Support};
use tapered::Stop;

use super::ObjectiveOptions;
use crate::TexelError;

/// Refuses a prior worth a negative or infinite number of positions.
pub(super) fn check(o: &ObjectiveOptions) -> Result<(), TexelError> {
    match o.prior_positions {
        Some(m) if !(m >= 0.0 && m.is_finite()) => Err(TexelError::Config(format!(
            "--prior-positions must be a finite number >= 0 (0 turns the prior off), not {m}"
        ))),
        _ => Ok(()),
    }
}

/// Measures the support of `train`'s weights at `start` and, with `m > 0`, adds the prior of
/// `m` positions to it; a note for the user says what the prior holds.
pub(super) fn hold(
    train: Arc<Objective>,
    start: &[f64],
    m: f64,
    stop: Stop<'_>,
    notes: &mut Vec<String>,
) -> Result<(Arc<Objective>, Support), TexelError> {
    let link = train.config().link;
    let support =
        Support::measure(train.set(), start, link, stop).ok_or(TexelError::Interrupted)?;
    if m <= 0.0 {
        return Ok((train, support));
    }
    let counts = support.counts();
    let thin = train
        .free()
        .iter()
        .filter(|&&j| (counts[j] as f64) < m)
        .count();
    notes.push(format!(
        "prior: the start weights count as {m} positions each (--prior-positions, 0: off); \
         {thin} of {} free weights have fewer positions behind them and are held at least \
         half way",
        train.dim()
    ));
    let train = Arc::new(train.with_prior(&support.prior_strengths(m))?);
    Ok((train, support))
}
