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
use crate::outcome::{RunOutcome, Spent};
use crate::run::run;
use crate::stopping::Control;

/// The strengths tried by default, strongest first.
pub const L2_GRID: [f64; 6] = [1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 0.0];

/// When the grid's strongest strength has the lowest validation loss, the best strength may
/// lie beyond it: [`run_l2_path`] then tries ten times stronger, and again, at most this many
/// times, until the validation loss rises.
pub const L2_EDGE_STEPS: usize = 3;

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
/// When the grid's first (strongest) strength is the lowest, a choice at the grid's edge says
/// only that the best is at least that strong, so stronger ones are tried (ten times each,
/// from the kept weights, at most [`L2_EDGE_STEPS`]) until the validation loss rises: on data
/// that cannot move the start weights much, the path ends near them instead of at an
/// arbitrary edge. The trials are reported in the order they ran.
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
    let mut walk = Walk {
        train,
        valid,
        cfg,
        control: &control,
        x: start.to_vec(),
        trials: Vec::new(),
        best: None,
        seconds: 0.0,
    };
    let mut rises = 0;
    for &l2 in grid {
        if walk.try_strength(l2)? {
            rises = 0;
        } else {
            rises += 1;
        }
        if control.interrupted() || rises >= 2 {
            break;
        }
    }
    // The grid's strongest strength lowest: stronger ones, from its kept weights.
    let mut edge = grid[0];
    for _ in 0..L2_EDGE_STEPS {
        let at_edge = (walk.best.as_ref()).is_some_and(|b| b.1.config().l2 == edge);
        if edge <= 0.0 || !at_edge || control.interrupted() {
            break;
        }
        if let Some((_, _, out)) = &walk.best {
            walk.x.clone_from(&out.weights);
        }
        edge = ten_times(edge);
        walk.try_strength(edge)?;
    }
    let Walk {
        trials,
        best,
        seconds,
        ..
    } = walk;
    let Some((i, t, mut outcome)) = best else {
        return Err(OptimError::Config(
            "the L2 path ran no strength".to_string(),
        ));
    };
    outcome.train_loss.0 = train.data_loss(start);
    outcome.valid_loss = outcome.valid_loss.map(|(_, b)| (valid.data_loss(start), b));
    outcome.spent = spent_on(&trials, seconds);
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

/// What the whole path spent: every trial's iterations and passes, and its `seconds`.
fn spent_on(trials: &[L2Trial], seconds: f64) -> Spent {
    Spent {
        iterations: trials.iter().map(|t| t.iterations).sum(),
        passes: trials.iter().map(|t| t.passes).sum(),
        seconds,
    }
}

/// Ten times `l2`; a power of ten stays the nearest `f64` to one (`1e-6` gives `1e-5`, where
/// `1e-6 * 10.0` is `9.999999999999999e-6`), so the reported strengths read as they should.
fn ten_times(l2: f64) -> f64 {
    let d = l2.log10().round();
    if (l2.log10() - d).abs() > 1e-9 || d.abs() > 20.0 {
        return l2 * 10.0;
    }
    let k = d as i32 + 1;
    if k < 0 {
        1.0 / 10f64.powi(-k)
    } else {
        10f64.powi(k)
    }
}

/// The path's state: the weights the next strength starts from, the strengths tried, and
/// the lowest so far (its index in `trials`, its training objective, its run).
struct Walk<'a> {
    train: &'a Arc<Objective>,
    valid: &'a Arc<Objective>,
    cfg: &'a RunConfig,
    control: &'a Arc<Control>,
    x: Vec<f64>,
    trials: Vec<L2Trial>,
    best: Option<(usize, Arc<Objective>, RunOutcome)>,
    seconds: f64,
}

impl Walk<'_> {
    /// Runs the method at `l2` from `x`, records the trial, moves `x` to its kept weights;
    /// whether its validation loss is the lowest so far.
    fn try_strength(&mut self, l2: f64) -> Result<bool, OptimError> {
        let t = Arc::new(self.train.with_config(ObjectiveConfig {
            l2,
            ..*self.train.config()
        })?);
        let v = Arc::new(t.with_set(self.valid.set().clone())?);
        self.control.clear_reason();
        let out = run(t.clone(), Some(v), &self.x, self.cfg, self.control.clone())?;
        let loss = out.valid_loss.map_or(f64::INFINITY, |l| l.1);
        self.trials.push(L2Trial {
            l2,
            valid_loss: loss,
            train_loss: out.train_loss.1,
            best_iter: out.best_iter,
            iterations: out.spent.iterations,
            passes: out.spent.passes,
        });
        self.seconds += out.spent.seconds;
        self.x.clone_from(&out.weights);
        let trials = &self.trials;
        let lower = (self.best.as_ref()).is_none_or(|(i, _, _)| loss < trials[*i].valid_loss);
        if lower {
            self.best = Some((self.trials.len() - 1, t, out));
        }
        Ok(lower)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ten_times_keeps_powers_of_ten_exact() {
        assert_eq!(ten_times(1e-6), 1e-5);
        assert_eq!(ten_times(1e-5), 1e-4);
        assert_eq!(ten_times(1e-1), 1.0);
        assert_eq!(ten_times(1.0), 10.0);
        assert_eq!(format!("{:e}", ten_times(1e-6)), "1e-5");
        assert_eq!(ten_times(3e-7), 3e-7 * 10.0);
    }
}
