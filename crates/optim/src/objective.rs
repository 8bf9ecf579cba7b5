//! [`Objective`]: the mean loss over a [`CompiledSet`], with regularisation, label blending and
//! frozen parameters, in the coordinates of the free parameters.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::OptimError;
use crate::loss::Link;
use tapered::Stop;
use tapered::{CompiledSet, Target};

mod penalty;

use penalty::Penalty;

/// Choices that shape the objective.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ObjectiveConfig {
    /// Sigmoid, its `K`, and the loss.
    pub link: Link,
    /// Weight of the L1 penalty `l1 * sum |w_j - w0_j|` over the free parameters, `w0` the
    /// starting weights.
    pub l1: f64,
    /// Weight of the L2 penalty `l2 * sum (w_j - w0_j)^2` over the free parameters, `w0` the
    /// starting weights.
    pub l2: f64,
    /// Target blend: a row's target is `lambda * value + (1 - lambda) * sigma(score)` for rows
    /// with a second target (`Target::score`), `value` alone for the others. `1` uses `value` only.
    pub lambda: f64,
    /// The `K` that `sigma(score)` in the blend is read with; `None`: the link's. Scores on
    /// another scale than the model's output (another engine's, normalised) are read with
    /// their own `K` ([`fit_score_k`](crate::fit_score_k) fits it on the results), so that the
    /// blend does not teach the model to rescale itself.
    #[serde(default)]
    pub score_k: Option<f64>,
    /// Weight of the smoothness penalty `smooth * sum (w_a - w_b)^2` over the objective's
    /// neighbour pairs `(a, b)` ([`Objective::with_pairs`]; none unless given): a prior that a
    /// parameter is like its neighbours (a piece-square entry like the adjacent squares'), which
    /// shrinks what the data cannot tell apart towards its neighbours instead of towards the
    /// start. Against the mean loss, like `l2`, so repeating the data changes nothing.
    #[serde(default)]
    pub smooth: f64,
}

impl ObjectiveConfig {
    /// Results only, no regularisation.
    pub fn new(link: Link) -> Self {
        ObjectiveConfig {
            link,
            l1: 0.0,
            l2: 0.0,
            lambda: 1.0,
            score_k: None,
            smooth: 0.0,
        }
    }
}

/// `E(x) = 1/N sum_i loss(q_i(w), y_i) + l1 |x - x0|_1 + l2 |x - x0|^2 + smooth sum_(a,b)
/// (w_a - w_b)^2`, where `w` is the full weight vector with the free parameters set to `x` and
/// the frozen ones to their base values, `x0` the free parameters' base (starting) values, and
/// `(a, b)` runs over the neighbour pairs given to [`with_pairs`](Self::with_pairs).
///
/// The penalties pull towards the starting weights, not towards zero: a term that starts at
/// zero (a piece-square entry) is shrunk towards zero as usual, while material values that
/// start at 100..900 are not dragged towards nothing, which would only move the evaluation's
/// scale against the fitted `K`.
///
/// Every method takes and returns vectors over the *free* parameters; [`expand`](Self::expand)
/// and [`reduce`](Self::reduce) convert. Each evaluation is one pass over the positions (value
/// and gradient together) and is counted in [`passes`](Self::passes).
///
/// ```
/// use std::sync::Arc;
/// use optim::{Link, LossKind, Objective, ObjectiveConfig, Sigmoid};
/// use tapered::{CompiledSet, Target};
/// use tape::Scalar;
///
/// let items = vec![vec![(0u32, 1.0)], vec![(0, -1.0)], vec![(1, 1.0)]];
/// let results = [1.0, 0.0, 0.5];
/// let set = CompiledSet::record(&[0.0, 0.0], &items,
///     |i, _| Target { value: results[i], score: None, group: 0 },
///     |_, f, w| Some(tape::Var::dot(w, f)), None);
/// let link = Link { sigmoid: Sigmoid::Logistic, k: 1.0, loss: LossKind::Mse };
/// let obj = Objective::new(Arc::new(set), ObjectiveConfig::new(link), vec![0.0, 0.0], None).unwrap();
/// let (e, g) = obj.value_and_gradient(&[100.0, 0.0]);
/// assert!(e < 0.25);            // better than all-zero weights, which give 0.25 * 2/3
/// assert!(g[0] < 0.0);          // a larger weight 0 still helps
/// assert!(g[1].abs() < 1e-15);  // weight 1 is at its optimum
/// assert_eq!(obj.passes(), 1.0);
/// ```
#[derive(Debug)]
pub struct Objective {
    pub(crate) set: Arc<CompiledSet>,
    pub(crate) cfg: ObjectiveConfig,
    /// Each position's target in the sigmoid's range ([`Targets`]).
    targets: TargetStore,
    free: Vec<usize>,
    /// Position of each full index among the free ones (`u32::MAX` when frozen).
    pub(crate) slot: Vec<u32>,
    base: Vec<f64>,
    /// Bounds of the free parameters (infinite when unbounded).
    bounds: Vec<(f64, f64)>,
    /// Neighbour pairs of the smoothness penalty (full indices, at least one of each pair
    /// free).
    pairs: Arc<[(u32, u32)]>,
    /// The per-weight L2 strengths of the prior, over the free parameters (empty: none).
    prior: Arc<[f64]>,
    evaluated: AtomicU64,
}

/// Each position's target in the sigmoid's range, as the objective compares its evaluation
/// with (the label's result, blended with its score where the configuration says so). Game
/// results take a handful of values: while there are at most 256 distinct ones, a position
/// holds the number of its value in a table (a byte a position, not 8; the same bits).
#[derive(Debug)]
enum TargetStore {
    Table { values: Vec<f64>, index: Vec<u8> },
    Full(Vec<f64>),
}

impl TargetStore {
    fn new(targets: impl Iterator<Item = f64> + Clone) -> TargetStore {
        let mut values: Vec<f64> = Vec::new();
        let mut index = Vec::with_capacity(targets.size_hint().0);
        for t in targets.clone() {
            let k = match values.iter().position(|v| v.to_bits() == t.to_bits()) {
                Some(k) => k,
                None if values.len() < 256 => {
                    values.push(t);
                    values.len() - 1
                }
                None => return TargetStore::Full(targets.collect()),
            };
            index.push(k as u8);
        }
        TargetStore::Table { values, index }
    }

    fn view(&self) -> Targets<'_> {
        match self {
            TargetStore::Table { values, index } => Targets::Table(values, index),
            TargetStore::Full(t) => Targets::Full(t),
        }
    }
}

/// A view of each position's target ([`TargetStore`]).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Targets<'a> {
    Table(&'a [f64], &'a [u8]),
    Full(&'a [f64]),
}

impl Targets<'_> {
    /// Position `i`'s target.
    #[inline(always)]
    pub(crate) fn at(self, i: usize) -> f64 {
        match self {
            Targets::Table(values, index) => values[usize::from(index[i])],
            Targets::Full(t) => t[i],
        }
    }
}

impl Objective {
    /// The objective over `set` with `base` as the full starting weights and `free` the indices
    /// of the parameters to optimise (`None`: all).
    pub fn new(
        set: Arc<CompiledSet>,
        cfg: ObjectiveConfig,
        base: Vec<f64>,
        free: Option<Vec<usize>>,
    ) -> Result<Self, OptimError> {
        if base.len() != set.params() {
            return Err(OptimError::Config(format!(
                "{} starting weights for a set recorded with {} parameters",
                base.len(),
                set.params()
            )));
        }
        let free = free.unwrap_or_else(|| (0..base.len()).collect());
        let mut slot = vec![u32::MAX; base.len()];
        for (k, &i) in free.iter().enumerate() {
            if i >= base.len() || slot[i] != u32::MAX {
                return Err(OptimError::Config(format!(
                    "free parameter index {i} is out of range or repeated"
                )));
            }
            slot[i] = k as u32;
        }
        let fine = |v: f64| v >= 0.0 && v.is_finite();
        if !(fine(cfg.l1) && fine(cfg.l2) && fine(cfg.smooth)) {
            return Err(OptimError::Config(format!(
                "regularisation weights must be finite and non-negative, not l1 = {}, l2 = {}, \
                 smooth = {}",
                cfg.l1, cfg.l2, cfg.smooth
            )));
        }
        if !(cfg.link.k > 0.0 && cfg.link.k.is_finite()) {
            return Err(OptimError::Config(format!(
                "K must be positive, not {}",
                cfg.link.k
            )));
        }
        if !(0.0..=1.0).contains(&cfg.lambda) {
            return Err(OptimError::Config(format!(
                "lambda must be in 0..=1, not {}",
                cfg.lambda
            )));
        }
        if let Some(k) = cfg.score_k.filter(|k| !(*k > 0.0 && k.is_finite())) {
            return Err(OptimError::Config(format!(
                "the scores' K must be positive, not {k}"
            )));
        }
        let link = cfg.link;
        let score_link = Link {
            k: cfg.score_k.unwrap_or(link.k),
            ..link
        };
        let target = |l: &Target| {
            let r = link.sigmoid.label(l.value);
            match l.score {
                Some(s) if cfg.lambda < 1.0 => {
                    cfg.lambda * r + (1.0 - cfg.lambda) * score_link.expect(f64::from(s))
                }
                _ => r,
            }
        };
        let targets = TargetStore::new(set.targets().iter().map(target));
        let bounds = vec![(f64::NEG_INFINITY, f64::INFINITY); free.len()];
        Ok(Objective {
            set,
            cfg,
            targets,
            free,
            slot,
            base,
            bounds,
            pairs: Arc::from(Vec::new()),
            prior: Arc::from(Vec::new()),
            evaluated: AtomicU64::new(0),
        })
    }

    /// The neighbour pairs of the smoothness penalty (`smooth` in the configuration), as
    /// indices into the full weights; pairs of two frozen parameters are dropped (constant).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use optim::{Link, LossKind, Objective, ObjectiveConfig, Sigmoid};
    /// use tapered::{CompiledSet, Target, Stop};
    /// use tape::Scalar;
    ///
    /// let items = vec![vec![(0u32, 1.0)], vec![(1, 1.0)]];
    /// let set = CompiledSet::record(&[0.0, 0.0], &items,
    ///     |i, _| Target { value: 0.5, score: None, group: i as u32 },
    ///     |_, f, w| Some(tape::Var::dot(w, f)), None);
    /// let link = Link { sigmoid: Sigmoid::Logistic, k: 1.0, loss: LossKind::Mse };
    /// let cfg = ObjectiveConfig { smooth: 0.01, ..ObjectiveConfig::new(link) };
    /// let obj = Objective::new(Arc::new(set), cfg, vec![0.0, 0.0], None)
    ///     .unwrap()
    ///     .with_pairs(&[(0, 1)])
    ///     .unwrap();
    /// // Beyond the data loss: 0.01 * (3 - 1)^2, and its gradient pulling the two together.
    /// let (e, g) = obj.value_and_gradient(&[3.0, 1.0]);
    /// assert!((e - obj.data_loss(&[3.0, 1.0]) - 0.04).abs() < 1e-12);
    /// assert!(g[0] > 0.0 && g[1] < 0.0);
    /// assert!(obj.with_pairs(&[(0, 2)]).is_err());
    /// ```
    pub fn with_pairs(mut self, pairs: &[(usize, usize)]) -> Result<Self, OptimError> {
        let n = self.base.len();
        let mut kept = Vec::with_capacity(pairs.len());
        for &(a, b) in pairs {
            if a >= n || b >= n || a == b {
                return Err(OptimError::Config(format!(
                    "smoothness pair ({a}, {b}) is out of range or not a pair ({n} parameters)"
                )));
            }
            if self.slot[a] != u32::MAX || self.slot[b] != u32::MAX {
                kept.push((a as u32, b as u32));
            }
        }
        self.pairs = Arc::from(kept);
        Ok(self)
    }

    /// A prior of per-weight strengths, `sum_j strengths_j (w_j - w0_j)^2` over the free
    /// parameters beside `l2` (`strengths` indexed like the full weights; the frozen ones'
    /// are dropped): each weight held towards its start as firmly as its own strength says,
    /// e.g. [`Support::prior_strengths`](crate::Support::prior_strengths), which holds the
    /// weights few rows support. Kept by [`with_set`](Self::with_set) and
    /// [`with_config`](Self::with_config), added to the curvature like `l2`.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use optim::{Link, LossKind, Objective, ObjectiveConfig, Sigmoid};
    /// use tapered::{CompiledSet, Target};
    /// use tape::Scalar;
    ///
    /// let items = vec![vec![(0u32, 1.0)], vec![(1, 1.0)]];
    /// let set = CompiledSet::record(&[0.0, 0.0], &items,
    ///     |_, _| Target { value: 0.5, score: None, group: 0 },
    ///     |_, f, w| Some(tape::Var::dot(w, f)), None);
    /// let link = Link { sigmoid: Sigmoid::Logistic, k: 1.0, loss: LossKind::Mse };
    /// let obj = Objective::new(Arc::new(set), ObjectiveConfig::new(link), vec![0.0, 0.0], None)
    ///     .unwrap()
    ///     .with_prior(&[0.0, 0.5])
    ///     .unwrap();
    /// let (e, g) = obj.value_and_gradient(&[2.0, 2.0]);
    /// assert!((e - obj.data_loss(&[2.0, 2.0]) - 0.5 * 4.0).abs() < 1e-12);
    /// assert!((g[1] - g[0] - 2.0 * 0.5 * 2.0).abs() < 1e-12);
    /// assert!(obj.with_prior(&[1.0]).is_err() && obj.with_prior(&[-1.0, 0.0]).is_err());
    /// ```
    pub fn with_prior(&self, strengths: &[f64]) -> Result<Self, OptimError> {
        if strengths.len() != self.base.len() {
            return Err(OptimError::Config(format!(
                "{} prior strengths for {} parameters",
                strengths.len(),
                self.base.len()
            )));
        }
        if let Some(v) = strengths.iter().find(|v| !(**v >= 0.0 && v.is_finite())) {
            return Err(OptimError::Config(format!(
                "prior strengths must be finite and non-negative, not {v}"
            )));
        }
        let mut o = self.with_config(self.cfg)?;
        o.prior = self.free.iter().map(|&i| strengths[i]).collect();
        Ok(o)
    }

    /// The prior's per-weight strengths over the free parameters (empty: none).
    pub fn prior(&self) -> &[f64] {
        &self.prior
    }

    /// The neighbour pairs of the smoothness penalty (full indices).
    pub fn pairs(&self) -> &[(u32, u32)] {
        &self.pairs
    }

    /// The box the parameters must stay in (`bounds` indexed like the full weights; `None`:
    /// unbounded). The objective itself does not enforce it (clamping would give it a kink at
    /// every bound and a flat region beyond, where the gradient a solver sees says nothing of
    /// the function it minimises): every solver keeps its iterates inside, the gradient ones
    /// through a smooth change of coordinates ([`Coords`](crate::Coords)), local search and
    /// particle swarm by never trying a point outside. (The full model's game-phase weights
    /// have bounds: outside them the evaluation's phase clamps.)
    pub fn with_bounds(mut self, bounds: &[Option<(f64, f64)>]) -> Result<Self, OptimError> {
        if bounds.len() != self.base.len() {
            return Err(OptimError::Config(format!(
                "{} bounds for {} parameters",
                bounds.len(),
                self.base.len()
            )));
        }
        self.bounds = self
            .free
            .iter()
            .map(|&i| bounds[i].unwrap_or((f64::NEG_INFINITY, f64::INFINITY)))
            .collect();
        Ok(self)
    }

    /// The bounds of the free parameters.
    pub fn bounds(&self) -> &[(f64, f64)] {
        &self.bounds
    }

    /// The same objective (bounds included) on another set (e.g. the validation split), with
    /// its own pass count.
    pub fn with_set(&self, set: Arc<CompiledSet>) -> Result<Self, OptimError> {
        let mut o = Objective::new(set, self.cfg, self.base.clone(), Some(self.free.clone()))?;
        o.bounds = self.bounds.clone();
        o.pairs = self.pairs.clone();
        o.prior = self.prior.clone();
        Ok(o)
    }

    /// The same objective (bounds included) with another configuration (e.g. a fitted `K`).
    pub fn with_config(&self, cfg: ObjectiveConfig) -> Result<Self, OptimError> {
        let mut o = Objective::new(
            self.set.clone(),
            cfg,
            self.base.clone(),
            Some(self.free.clone()),
        )?;
        o.bounds = self.bounds.clone();
        o.pairs = self.pairs.clone();
        o.prior = self.prior.clone();
        Ok(o)
    }

    /// The configuration.
    pub fn config(&self) -> &ObjectiveConfig {
        &self.cfg
    }

    /// Each position's target, as the loss reads it (the label, blended with the score's
    /// expectation by `lambda`).
    pub(crate) fn targets(&self) -> Targets<'_> {
        self.targets.view()
    }

    /// The positions.
    pub fn set(&self) -> &Arc<CompiledSet> {
        &self.set
    }

    /// Number of free parameters (the dimension the optimisers see).
    pub fn dim(&self) -> usize {
        self.free.len()
    }

    /// Indices of the free parameters in the full weight vector.
    pub fn free(&self) -> &[usize] {
        &self.free
    }

    /// The full weight vector the frozen parameters take their values from.
    pub fn base(&self) -> &[f64] {
        &self.base
    }

    /// The full weights for free values `x` (as given: the solvers keep them inside the
    /// bounds).
    pub fn expand(&self, x: &[f64]) -> Vec<f64> {
        let mut w = self.base.clone();
        for (&i, &v) in self.free.iter().zip(x) {
            w[i] = v;
        }
        w
    }

    /// The bounded free parameters whose value in `x` lies outside its bounds (none, when a
    /// solver of this crate produced `x`).
    pub fn out_of_bounds(&self, x: &[f64]) -> Vec<usize> {
        x.iter()
            .zip(&self.bounds)
            .enumerate()
            .filter(|(_, (&v, &(lo, hi)))| !(lo..=hi).contains(&v))
            .map(|(k, _)| k)
            .collect()
    }

    /// The free values of full weights `w`.
    pub fn reduce(&self, w: &[f64]) -> Vec<f64> {
        self.free.iter().map(|&i| w[i]).collect()
    }

    /// Passes over the positions so far (a mini-batch counts as its fraction of a pass).
    pub fn passes(&self) -> f64 {
        let n = self.set.len().max(1) as f64;
        self.evaluated.load(Ordering::Relaxed) as f64 / n
    }

    pub(crate) fn count(&self, positions: usize) {
        self.evaluated
            .fetch_add(positions as u64, Ordering::Relaxed);
    }

    /// The mean data loss (no regularisation) at full weights `w`; not counted as a pass (use it
    /// for reporting).
    pub fn data_loss(&self, w: &[f64]) -> f64 {
        let n = self.set.len();
        if n == 0 {
            return f64::NAN;
        }
        let link = self.cfg.link;
        let t = self.targets();
        let f = |i: usize, q: f64| (link.loss_value(q, t.at(i)), 0.0);
        self.set
            .pass(w, 0..n, None, None, f, Stop::Never)
            .unwrap_or(f64::NAN)
            / n as f64
    }

    /// Each position's data loss at full weights `w`, in the set's order (one pass, not counted
    /// as one: use it for reporting and model selection). Their mean is
    /// [`data_loss`](Self::data_loss).
    pub fn position_losses(&self, w: &[f64]) -> Vec<f64> {
        let n = self.set.len();
        let link = self.cfg.link;
        let t = self.targets();
        // Every position is visited exactly once per pass, so each slot is written once.
        let out: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
        let f = |i: usize, q: f64| {
            let l = link.loss_value(q, t.at(i));
            out[i].store(l.to_bits(), Ordering::Relaxed);
            (l, 0.0)
        };
        self.set.pass(w, 0..n, None, None, f, Stop::Never);
        out.into_iter()
            .map(|b| f64::from_bits(b.into_inner()))
            .collect()
    }

    /// `E(x)`; `None` (not counted as a pass) when abandoned: see [`CompiledSet::pass`].
    pub fn value(&self, x: &[f64], stop: Stop<'_>) -> Option<f64> {
        let n = self.set.len();
        let w = self.expand(x);
        let link = self.cfg.link;
        let t = self.targets();
        let s = self.set.pass(
            &w,
            0..n,
            None,
            None,
            |i, q| (link.loss_value(q, t.at(i)), 0.0),
            stop,
        )?;
        self.count(n);
        Some(s / n.max(1) as f64 + self.penalty(x))
    }

    /// `E(x)` and its gradient with respect to the free parameters, in one pass.
    pub fn value_and_gradient(&self, x: &[f64]) -> (f64, Vec<f64>) {
        self.batch_value_and_gradient(x, 0..self.set.len(), None, Stop::Never)
            .unwrap_or_else(|| (f64::NAN, vec![f64::NAN; self.dim()]))
    }

    /// The objective restricted to positions `order[k]` (or `k`) for `k` in `range`: the mean
    /// loss over them plus the regularisation, and its gradient; `None` (not counted) when
    /// abandoned: see [`CompiledSet::pass`].
    ///
    /// ```
    /// use std::sync::Arc;
    /// use std::sync::atomic::AtomicBool;
    /// use optim::{Link, LossKind, Objective, ObjectiveConfig, Sigmoid};
    /// use tapered::{CompiledSet, Target, Stop};
    /// use tape::Scalar;
    ///
    /// let items = vec![vec![(0u32, 1.0)], vec![(0, -1.0)]];
    /// let set = CompiledSet::record(&[0.0], &items,
    ///     |i, _| Target { value: 1.0 - i as f64, score: None, group: 0 },
    ///     |_, f, w| Some(tape::Var::dot(w, f)), None);
    /// let link = Link { sigmoid: Sigmoid::Logistic, k: 1.0, loss: LossKind::Mse };
    /// let obj = Objective::new(Arc::new(set), ObjectiveConfig::new(link), vec![0.0], None).unwrap();
    /// let stop = AtomicBool::new(true);
    /// assert!(obj.batch_value_and_gradient(&[1.0], 0..2, None, Stop::from(&stop)).is_none());
    /// assert_eq!(obj.passes(), 0.0); // an abandoned pass is not counted
    /// ```
    pub fn batch_value_and_gradient(
        &self,
        x: &[f64],
        range: std::ops::Range<usize>,
        order: Option<&[usize]>,
        stop: Stop<'_>,
    ) -> Option<(f64, Vec<f64>)> {
        let n = range.end.saturating_sub(range.start);
        let w = self.expand(x);
        let link = self.cfg.link;
        let t = self.targets();
        let mut full = vec![0.0; self.base.len()];
        let s = self.set.pass(
            &w,
            range,
            order,
            Some(&mut full),
            |i, q| link.loss(q, t.at(i)),
            stop,
        )?;
        self.count(n);
        let inv = 1.0 / n.max(1) as f64;
        let mut g: Vec<f64> = self.free.iter().map(|&i| full[i] * inv).collect();
        self.add_penalty_gradient(x, &mut g);
        Some((s * inv + self.penalty(x), g))
    }

    /// The L1, L2 and smoothness penalties (see `objective/penalty.rs`).
    fn penalties(&self) -> Penalty<'_> {
        Penalty {
            l1: self.cfg.l1,
            l2: self.cfg.l2,
            smooth: self.cfg.smooth,
            free: &self.free,
            slot: &self.slot,
            base: &self.base,
            pairs: &self.pairs,
            prior: &self.prior,
        }
    }

    /// The penalties' value at the free values `x`.
    fn penalty(&self, x: &[f64]) -> f64 {
        self.penalties().value(x)
    }

    /// Adds the penalties' gradient at `x` to `g`.
    fn add_penalty_gradient(&self, x: &[f64], g: &mut [f64]) {
        self.penalties().add_gradient(x, g)
    }

    /// The penalties' curvature's diagonal over the free parameters: `2 (l2 + p_j) + 2 smooth L_jj`.
    pub(crate) fn penalty_diagonal(&self) -> Vec<f64> {
        self.penalties().diagonal()
    }

    /// `out += (2 l2 I + 2 smooth L) v`.
    pub(crate) fn add_penalty_curvature_times(&self, v: &[f64], out: &mut [f64]) {
        self.penalties().add_curvature_times(v, out)
    }

    /// `h += 2 l2 I + 2 smooth L` on a dense row-major `m x m` matrix.
    pub(crate) fn add_penalty_curvature_dense(&self, h: &mut [f64]) {
        self.penalties().add_curvature_dense(h)
    }

    /// The sample of at most `sample` of `n` positions spread evenly over them: every
    /// `stride`-th position from the first, `len` of them (all for `None`, 0 or `n` or more).
    pub(crate) fn sample_stride(n: usize, sample: Option<usize>) -> (usize, usize) {
        match sample {
            Some(s) if s > 0 && s < n => {
                let k = n.div_ceil(s);
                (k, n.div_ceil(k))
            }
            _ => (1, n),
        }
    }

    /// What [`linearise`](Self::linearise) (in `linearise.rs`) sums over: the positions (all, or
    /// the sample), the full weights at `x`, and each position's loss curvature divided by
    /// their number (one pass over them, counted).
    pub(crate) fn curvature_sampled(
        &self,
        x: &[f64],
        sample: Option<usize>,
    ) -> (Arc<CompiledSet>, Vec<f64>, Vec<f64>) {
        let n = self.set.len();
        let set = match Objective::sample_stride(n, sample) {
            (1, _) => self.set.clone(),
            (k, _) => {
                let keep: Vec<usize> = (0..n).step_by(k).collect();
                Arc::new(self.set.subset(&keep))
            }
        };
        let m = set.len();
        let w = self.expand(x);
        let link = self.cfg.link;
        let mut q = vec![0.0; m];
        set.scores(&w, &mut q);
        self.count(m);
        let inv = 1.0 / m.max(1) as f64;
        let curvature = q.par_iter().map(|&q| link.curvature(q) * inv).collect();
        (set, w, curvature)
    }
}

#[cfg(test)]
mod tests;
