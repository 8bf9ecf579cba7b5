//! [`run_l2_path`]: the L2 strength chosen on the validation split (`--l2 auto`).
//!
//! The penalty `l2 |w - w0|^2` is a weight against the *mean* loss, so it means the same at
//! every data size (repeating the data changes nothing), but the strength that generalises
//! best does depend on how much information the data holds. The path runs the method to its
//! end at each strength of a grid, strongest first, each warm-started from the previous one's
//! kept weights, and keeps the strength whose kept weights have the lowest validation loss.

use std::sync::Arc;

use crate::config::RunConfig;
use crate::error::OptimError;
use crate::objective::{Objective, ObjectiveConfig};
pub use crate::outcome::L2Trial;
use crate::outcome::RunOutcome;
use crate::run::run;
use crate::stopping::Control;

/// The strengths tried by default, strongest first.
pub const L2_GRID: [f64; 6] = [1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 0.0];

/// The L2 strength asked for: a fixed one, or `auto` (chosen on the validation split by
/// [`run_l2_path`] over [`L2_GRID`]).
///
/// ```
/// use optim::regularise::L2;
/// assert_eq!("auto".parse::<L2>(), Ok(L2::Auto));
/// assert_eq!("1e-8".parse::<L2>(), Ok(L2::Fixed(1e-8)));
/// assert!("-1".parse::<L2>().is_err() && "inf".parse::<L2>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum L2 {
    /// This strength.
    Fixed(f64),
    /// The strength of [`L2_GRID`] with the lowest validation loss.
    Auto,
}

impl L2 {
    /// The grid to search, for `Auto`.
    pub fn grid(self) -> Option<Vec<f64>> {
        (self == L2::Auto).then(|| L2_GRID.to_vec())
    }

    /// The fixed strength (0 for `Auto`, whose strength the path sets).
    pub fn fixed(self) -> f64 {
        match self {
            L2::Fixed(v) => v,
            L2::Auto => 0.0,
        }
    }
}

impl std::str::FromStr for L2 {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        if s.eq_ignore_ascii_case("auto") {
            return Ok(L2::Auto);
        }
        match s.parse::<f64>() {
            Ok(v) if v >= 0.0 && v.is_finite() => Ok(L2::Fixed(v)),
            _ => Err(format!("`{s}` is neither `auto` nor a finite number >= 0")),
        }
    }
}

/// What the path produced.
#[derive(Debug)]
pub struct L2Path {
    /// The chosen strength's run, with the start losses measured at the path's start and the
    /// time, passes and iterations of the whole path.
    pub outcome: RunOutcome,
    /// The training objective at the chosen strength.
    pub train: Arc<Objective>,
    /// The validation objective.
    pub valid: Arc<Objective>,
    /// The chosen strength.
    pub l2: f64,
    /// Every strength tried, in order.
    pub trials: Vec<L2Trial>,
}

/// Runs `cfg` at each strength of `grid` (strongest first; each run starts from the previous
/// one's kept weights) and keeps the strength with the lowest validation loss. The path stops
/// early when the validation loss has risen at two strengths in a row, or on interruption.
pub fn run_l2_path(
    train: &Arc<Objective>,
    valid: &Arc<Objective>,
    start: &[f64],
    cfg: &RunConfig,
    control: Arc<Control>,
    grid: &[f64],
) -> Result<L2Path, OptimError> {
    if grid.is_empty() {
        return Err(OptimError::Config(
            "the L2 path needs at least one strength".to_string(),
        ));
    }
    let mut x = start.to_vec();
    let mut trials = Vec::new();
    let mut best: Option<(usize, RunOutcome, Arc<Objective>)> = None;
    let (mut iterations, mut passes, mut seconds) = (0u64, 0.0, 0.0);
    let mut rises = 0;
    for &l2 in grid {
        let t = Arc::new(train.with_config(ObjectiveConfig {
            l2,
            ..*train.config()
        })?);
        let v = Arc::new(t.with_set(valid.set().clone())?);
        control.clear_reason();
        let out = run(t.clone(), Some(v.clone()), &x, cfg, control.clone())?;
        iterations += out.iterations;
        passes += out.passes;
        seconds += out.seconds;
        let loss = out.valid_loss.map_or(f64::INFINITY, |l| l.1);
        trials.push(L2Trial {
            l2,
            valid_loss: loss,
            train_loss: out.train_loss.1,
            best_iter: out.best_iter,
            iterations: out.iterations,
            passes: out.passes,
        });
        x.clone_from(&out.weights);
        let lower = best
            .as_ref()
            .is_none_or(|(i, _, _)| loss < trials[*i].valid_loss);
        let interrupted = out.interrupted;
        if lower {
            best = Some((trials.len() - 1, out, t));
            rises = 0;
        } else {
            rises += 1;
        }
        if interrupted || rises >= 2 {
            break;
        }
    }
    let Some((i, mut outcome, t)) = best else {
        return Err(OptimError::Config(
            "the L2 path ran no strength".to_string(),
        ));
    };
    outcome.train_loss.0 = train.data_loss(start);
    outcome.valid_loss = outcome.valid_loss.map(|(_, b)| (valid.data_loss(start), b));
    outcome.iterations = iterations;
    outcome.passes = passes;
    outcome.seconds = seconds;
    outcome.interrupted = control.interrupted();
    let l2 = trials[i].l2;
    outcome.l2_path.clone_from(&trials);
    outcome.reason = format!(
        "{}; l2 = {l2:e} chosen on the validation split among {} strengths",
        outcome.reason,
        trials.len()
    );
    Ok(L2Path {
        outcome,
        train: t,
        valid: valid.clone(),
        l2,
        trials,
    })
}
