//! How much directions in weight space move a set's evaluations ([`Activity`]): for a direction
//! `d` (entries `(parameter, amount)`), `a_d = sqrt(mean_i (sum_p amount_p · dq_i/dw_p)^2)`
//! over the positions `i`, the RMS change of an evaluation per unit along `d`, in the
//! evaluation's units. SPSA's perturbations in evaluation units are calibrated by it
//! (`engine::spsa::Basis::calibrate`); the gradients are the recorded set's own
//! ([`CompiledSet::jacobian`]), exact also for non-linear terms (a king-safety quadratic's
//! activity is taken at the weights given).
//!
//! ```
//! use tape::Scalar;
//! use tapered::{CompiledSet, Target};
//! use texel::activity::Activity;
//!
//! // Two positions: parameter 0 counted once in each, parameter 1 ten times in the first.
//! let items = vec![vec![(0u32, 1.0), (1, 10.0)], vec![(0, -1.0)]];
//! let set = CompiledSet::record(&[0.0, 0.0], &items,
//!     |_, _| Target { value: 0.5, score: None, group: 0 },
//!     |_, f, w| Some(tape::Var::dot(w, f)), None);
//! let mut a = Activity::new(2, &[vec![(0, 1.0)], vec![(1, 1.0)]]).unwrap();
//! a.add(&set, &[0.0, 0.0]);
//! assert_eq!(a.positions(), 2);
//! assert_eq!(a.rms(), [1.0, (100.0f64 / 2.0).sqrt()]);
//! ```

use tapered::{CompiledSet, Stop};

use crate::TexelError;

/// The sums behind each direction's RMS activity, over the sets added so far.
#[derive(Clone, Debug)]
pub struct Activity {
    /// For each parameter, the directions moving it and by how much.
    by_param: Vec<Vec<(usize, f64)>>,
    /// For each direction, the sum over positions of its squared change.
    sumsq: Vec<f64>,
    /// Positions added.
    positions: usize,
}

impl Activity {
    /// No positions yet, for `directions` over `params` parameters (each entry's parameter
    /// must be one of them).
    pub fn new(params: usize, directions: &[Vec<(usize, f64)>]) -> Result<Activity, TexelError> {
        let mut by_param = vec![Vec::new(); params];
        for (d, entries) in directions.iter().enumerate() {
            for &(p, amount) in entries {
                let Some(slot) = by_param.get_mut(p) else {
                    return Err(TexelError::Config(format!(
                        "direction {d} moves parameter {p}, of {params}"
                    )));
                };
                slot.push((d, amount));
            }
        }
        Ok(Activity {
            by_param,
            sumsq: vec![0.0; directions.len()],
            positions: 0,
        })
    }

    /// Adds the positions of `set` (recorded over the same parameters), their gradients taken
    /// at `w`.
    pub fn add(&mut self, set: &CompiledSet, w: &[f64]) {
        let Some(jacobian) = set.jacobian(w, Stop::Never) else {
            return;
        };
        let mut change = vec![0.0; self.sumsq.len()];
        let mut touched: Vec<usize> = Vec::new();
        for i in 0..set.len() {
            let (idx, coef) = set.row(i, &jacobian);
            for (&p, &g) in idx.iter().zip(coef) {
                for &(d, amount) in self.by_param.get(p as usize).map_or(&[][..], |v| v) {
                    if change[d] == 0.0 {
                        touched.push(d);
                    }
                    change[d] += amount * g;
                }
            }
            for d in touched.drain(..) {
                self.sumsq[d] += change[d] * change[d];
                change[d] = 0.0;
            }
        }
        self.positions += set.len();
    }

    /// Positions added.
    pub fn positions(&self) -> usize {
        self.positions
    }

    /// Each direction's RMS activity (0 with no positions).
    pub fn rms(&self) -> Vec<f64> {
        let n = self.positions.max(1) as f64;
        self.sumsq.iter().map(|s| (s / n).sqrt()).collect()
    }
}
