//! Adam, full-batch or mini-batch: the community tuners' method, our baseline.

use argmin::core::{Error, Problem, Solver, KV};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::observer::{take_x, GradState};
use crate::problem::MiniBatch;

/// Options of Adam.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct AdamOptions {
    /// adam: step size (in the weights' units, centipawns: each step moves a weight by about this).
    #[cfg_attr(feature = "clap", arg(long, default_value_t = AdamOptions::default().lr))]
    pub lr: f64,
    /// adam: first-moment decay.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = AdamOptions::default().beta1))]
    pub beta1: f64,
    /// adam: second-moment decay.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = AdamOptions::default().beta2))]
    pub beta2: f64,
    /// adam: denominator guard.
    #[cfg_attr(feature = "clap", arg(long = "adam-eps", default_value_t = AdamOptions::default().eps, value_name = "X"))]
    pub eps: f64,
    /// adam: positions per mini-batch; none for the full batch (one step per pass), the default.
    #[cfg_attr(feature = "clap", arg(long, value_name = "B"))]
    pub batch_size: Option<usize>,
    /// Seed of the per-epoch shuffle.
    #[cfg_attr(feature = "clap", arg(skip = AdamOptions::default().seed))]
    pub seed: u64,
}

impl Default for AdamOptions {
    fn default() -> Self {
        AdamOptions {
            lr: 1.0,
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
            batch_size: None,
            seed: 1,
        }
    }
}

/// Adam as an argmin solver: one iteration is one epoch (one pass over the data), a single
/// step in full-batch mode or one step per mini-batch, visiting the positions in a fresh
/// random order each epoch.
///
/// The cost it reports for an epoch is the mean of the batch losses met during it (for full
/// batch: the loss at the epoch's starting point), as community tuners report; the run's
/// validation loss is always measured at the epoch's end point.
#[derive(Clone, Debug)]
pub struct Adam {
    opts: AdamOptions,
    m: Vec<f64>,
    v: Vec<f64>,
    t: i32,
    order: Vec<usize>,
    rng: ChaCha8Rng,
}

impl Adam {
    /// A solver with options `opts`.
    pub fn new(opts: AdamOptions) -> Self {
        Adam {
            opts,
            m: Vec::new(),
            v: Vec::new(),
            t: 0,
            order: Vec::new(),
            rng: ChaCha8Rng::seed_from_u64(opts.seed),
        }
    }

    fn step(&mut self, x: &mut [f64], g: &[f64]) {
        let o = &self.opts;
        if self.m.len() != x.len() {
            self.m = vec![0.0; x.len()];
            self.v = vec![0.0; x.len()];
        }
        self.t = self.t.saturating_add(1);
        let b1 = 1.0 - o.beta1.powi(self.t);
        let b2 = 1.0 - o.beta2.powi(self.t);
        for k in 0..x.len() {
            self.m[k] = o.beta1 * self.m[k] + (1.0 - o.beta1) * g[k];
            self.v[k] = o.beta2 * self.v[k] + (1.0 - o.beta2) * g[k] * g[k];
            let mh = self.m[k] / b1;
            let vh = self.v[k] / b2;
            x[k] -= o.lr * mh / (vh.sqrt() + o.eps);
        }
    }
}

impl<O: MiniBatch> Solver<O, GradState> for Adam {
    fn name(&self) -> &str {
        "Adam"
    }

    fn next_iter(
        &mut self,
        problem: &mut Problem<O>,
        mut state: GradState,
    ) -> Result<(GradState, Option<KV>), Error> {
        let mut x = take_x(
            &mut state,
            "Adam needs a starting point (Executor::configure)",
        )?;
        let n = problem.problem("cost_count", |p| Ok(p.positions()))?;
        if self.order.len() != n {
            self.order = (0..n).collect();
        }
        let batch = self
            .opts
            .batch_size
            .filter(|&b| b > 0 && b < n)
            .unwrap_or(n.max(1));
        if batch < n {
            self.order.shuffle(&mut self.rng);
        }
        let mut sum = 0.0;
        let mut last_g = Vec::new();
        let mut start = 0;
        while start < n.max(1) {
            let end = (start + batch).min(n);
            let order = std::mem::take(&mut self.order);
            let (l, g) = problem.problem("gradient_count", |p| p.batch(&x, start..end, &order))?;
            self.order = order;
            sum += l * (end - start) as f64;
            self.step(&mut x, &g);
            last_g = g;
            start = end.max(start + 1);
        }
        let cost = sum / n.max(1) as f64;
        Ok((state.param(x).cost(cost).gradient(last_g), None))
    }
}
