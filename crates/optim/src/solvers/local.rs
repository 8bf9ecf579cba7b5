//! Texel's integer local search.

use std::sync::Arc;

use argmin::core::{CostFunction, Error, Problem, Solver, State, TerminationReason, KV};
use serde::{Deserialize, Serialize};

use crate::observer::{take_x, GradState};
use crate::stopping::Control;

/// Options of local search.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct LocalOptions {
    /// local (and hybrid polish): the move tried on each parameter, `+step` then `-step` (Texel: 1).
    #[cfg_attr(feature = "clap", arg(long, default_value_t = LocalOptions::default().step))]
    pub step: f64,
    /// local: round the starting point to multiples of `step` first (engines use integers); `--no-round-start` turns it off.
    #[cfg_attr(feature = "clap", arg(long = "no-round-start", action = clap::ArgAction::SetFalse))]
    pub round_start: bool,
}

impl Default for LocalOptions {
    fn default() -> Self {
        LocalOptions {
            step: 1.0,
            round_start: true,
        }
    }
}

/// Texel's local search, as in his published pseudo code: for each parameter in turn, try
/// `+step`; keep it if the loss drops, else try `-step` and keep that if it drops. One
/// iteration is one sweep over every parameter (up to two passes per parameter); it has
/// converged when a sweep changes nothing. With bounds, a move that would leave them is not
/// tried, and the rounded start is brought back inside them.
#[derive(Clone, Debug)]
pub struct LocalSearch {
    opts: LocalOptions,
    control: Option<Arc<Control>>,
    bounds: Vec<(f64, f64)>,
}

impl LocalSearch {
    /// A solver with options `opts`; with `control`, it also stops between trial moves.
    pub fn new(opts: LocalOptions, control: Option<Arc<Control>>) -> Self {
        LocalSearch {
            opts,
            control,
            bounds: Vec::new(),
        }
    }

    /// Keeps parameter `k` inside `bounds[k]` (empty: no bounds).
    pub fn with_bounds(mut self, bounds: Vec<(f64, f64)>) -> Self {
        self.bounds = bounds;
        self
    }

    fn inside(&self, k: usize, v: f64) -> bool {
        self.bounds
            .get(k)
            .is_none_or(|&(lo, hi)| (lo..=hi).contains(&v))
    }
}

impl<O: CostFunction<Param = Vec<f64>, Output = f64>> Solver<O, GradState> for LocalSearch {
    fn name(&self) -> &str {
        "Texel local search"
    }

    fn init(
        &mut self,
        problem: &mut Problem<O>,
        mut state: GradState,
    ) -> Result<(GradState, Option<KV>), Error> {
        let mut x = take_x(&mut state, "local search needs a starting point")?;
        let s = self.opts.step;
        if self.opts.round_start && s > 0.0 {
            for (k, v) in x.iter_mut().enumerate() {
                let r = (*v / s).round() * s;
                *v = match self.bounds.get(k) {
                    Some(&(lo, hi)) => r.clamp(lo, hi),
                    None => r,
                };
            }
        }
        let c = problem.cost(&x)?;
        Ok((state.param(x).cost(c), None))
    }

    fn next_iter(
        &mut self,
        problem: &mut Problem<O>,
        mut state: GradState,
    ) -> Result<(GradState, Option<KV>), Error> {
        let mut x = take_x(&mut state, "local search: no parameter vector in state")?;
        let mut best = state.get_cost();
        let s = self.opts.step;
        let mut improved = false;
        for k in 0..x.len() {
            if self
                .control
                .as_ref()
                .is_some_and(|c| c.should_stop().is_some())
            {
                // Keep what the sweep found so far.
                return Ok((state.param(x).cost(best), None));
            }
            let old = x[k];
            let mut moved = false;
            for v in [old + s, old - s] {
                if !self.inside(k, v) {
                    continue;
                }
                x[k] = v;
                let e = problem.cost(&x)?;
                if e < best {
                    best = e;
                    moved = true;
                    break;
                }
            }
            if moved {
                improved = true;
            } else {
                x[k] = old;
            }
        }
        let state = state.param(x).cost(best);
        if improved {
            Ok((state, None))
        } else {
            Ok((
                state.terminate_with(TerminationReason::SolverConverged),
                None,
            ))
        }
    }
}
