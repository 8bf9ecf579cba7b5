//! [`FitProblem`]: the argmin glue around an [`Objective`], with a cache so that argmin's
//! separate `cost` and `gradient` calls at one point cost one pass.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use argmin::core::{CostFunction, Error, Gradient};

use crate::coords::Coords;
use crate::linearise::Linearisation;
use crate::objective::Objective;
use tapered::Stop;

/// What the Gauss-Newton solver needs of a problem: the Gauss-Newton model at a point.
pub trait GaussNewtonModel {
    /// The value and gradient of the objective at `x` (cached).
    fn value_and_gradient(&self, x: &[f64]) -> Result<(f64, Vec<f64>), Error>;
    /// The Gauss-Newton matrix at `x` (in the problem's coordinates), summed over at most
    /// `sample` positions (`None`: all); an error when the run was interrupted meanwhile.
    fn linearise(&self, x: &[f64], sample: Option<usize>) -> Result<Linearisation<'_>, Error>;
}

/// What mini-batch solvers need of a problem: the loss and gradient over a subset.
pub trait MiniBatch {
    /// Number of positions.
    fn positions(&self) -> usize;
    /// Value and gradient over positions `order[k]` for `k` in `range`, where `order` is a
    /// permutation of `0..positions()`; an error when the run was interrupted meanwhile.
    fn batch(
        &self,
        x: &[f64],
        range: std::ops::Range<usize>,
        order: &[usize],
    ) -> Result<(f64, Vec<f64>), Error>;
}

/// An [`Objective`] as an argmin problem over `Vec<f64>` (the free parameters).
///
/// `cost` and `gradient` each compute both, once per distinct point, and keep the last result:
/// argmin's L-BFGS asks for them separately at the same point. With
/// [`value_only`](Self::value_only), `cost` skips the gradient (for particle swarm and local
/// search, which never ask for one). With [`interruptible`](Self::interruptible), a pass
/// under way when the run is interrupted is abandoned and the call fails with [`Interrupted`].
///
/// ```
/// use std::sync::Arc;
/// use argmin::core::{CostFunction, Gradient};
/// use optim::{Link, Objective, ObjectiveConfig, FitProblem};
/// use tapered::{CompiledSet, Target};
/// use tape::Scalar;
///
/// let items = vec![vec![(0u32, 1.0)], vec![(0, -1.0)]];
/// let set = CompiledSet::record(&[0.0], &items,
///     |i, _| Target { value: if i == 0 { 1.0 } else { 0.0 }, score: None, group: 0 },
///     |_, f, w| Some(tape::Var::dot(w, f)), None);
/// let link = Link { sigmoid: optim::Sigmoid::Logistic, k: 1.0, loss: optim::LossKind::Mse };
/// let obj = Arc::new(Objective::new(Arc::new(set), ObjectiveConfig::new(link), vec![0.0], None).unwrap());
/// let problem = FitProblem::new(obj.clone());
/// let x = vec![50.0];
/// let e = problem.cost(&x).unwrap();
/// let g = problem.gradient(&x).unwrap();
/// assert!(e > 0.0 && g[0] < 0.0);
/// assert_eq!(obj.passes(), 1.0); // one pass for both
/// ```
#[derive(Debug)]
pub struct FitProblem {
    obj: Arc<Objective>,
    value_only: bool,
    coords: Coords,
    stop: Arc<AtomicBool>,
    cache: Mutex<Option<Cached>>,
}

/// The error of a [`FitProblem`] call whose pass was abandoned because the run was
/// interrupted (Ctrl-C): the solver ends there, and the run keeps the best iterate so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interrupted;

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("interrupted")
    }
}

impl std::error::Error for Interrupted {}

type Cached = (Vec<f64>, f64, Option<Vec<f64>>);

impl FitProblem {
    /// The problem of minimising `obj`, in the free parameters themselves (no bound is
    /// enforced: use [`coords`](Self::coords) for a gradient solver on a bounded objective).
    pub fn new(obj: Arc<Objective>) -> Self {
        let dim = obj.dim();
        FitProblem {
            obj,
            value_only: false,
            coords: Coords::identity(dim),
            stop: Arc::new(AtomicBool::new(false)),
            cache: Mutex::new(None),
        }
    }

    /// Abandons the pass under way, and fails the call with [`Interrupted`], once `stop` is set
    /// (the run's interrupt flag, [`Control::interrupt_flag`](crate::Control::interrupt_flag)),
    /// so that Ctrl-C answers within about one chunk of a pass instead of at the end of an
    /// iteration (a line search may make several passes).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use std::sync::atomic::{AtomicBool, Ordering};
    /// use argmin::core::CostFunction;
    /// use optim::{Link, Objective, ObjectiveConfig, FitProblem};
    /// use tapered::{CompiledSet, Target};
    /// use tape::Scalar;
    ///
    /// let set = CompiledSet::record(&[0.0], &[vec![(0u32, 1.0)]],
    ///     |_, _| Target { value: 1.0, score: None, group: 0 },
    ///     |_, f, w| Some(tape::Var::dot(w, f)), None);
    /// let link = Link { sigmoid: optim::Sigmoid::Logistic, k: 1.0, loss: optim::LossKind::Mse };
    /// let obj = Arc::new(Objective::new(Arc::new(set), ObjectiveConfig::new(link), vec![0.0], None).unwrap());
    /// let stop = Arc::new(AtomicBool::new(false));
    /// let problem = FitProblem::new(obj).interruptible(stop.clone());
    /// assert!(problem.cost(&vec![1.0]).is_ok());
    /// stop.store(true, Ordering::SeqCst);
    /// let e = problem.cost(&vec![2.0]).unwrap_err();
    /// assert!(e.downcast_ref::<optim::Interrupted>().is_some());
    /// ```
    pub fn interruptible(mut self, stop: Arc<AtomicBool>) -> Self {
        self.stop = stop;
        self
    }

    /// Makes `cost` compute the value alone.
    pub fn value_only(mut self, yes: bool) -> Self {
        self.value_only = yes;
        self
    }

    /// Optimises in the coordinates `z` of `coords`: the free parameters are
    /// `x = coords.to_x(z)`, inside their bounds whatever `z` (see [`Coords`]), optionally
    /// scaled (a diagonal preconditioner for solvers that have none, see
    /// [`jacobi_scale`](crate::jacobi_scale)). Parameters and gradients the solver sees are in
    /// `z`; use [`to_x`](Self::to_x) to read a point.
    pub fn coords(mut self, coords: Coords) -> Self {
        self.coords = coords;
        self
    }

    /// The free parameters `x` of a solver's point `z`.
    pub fn to_x(&self, z: &[f64]) -> Vec<f64> {
        if self.coords.is_identity() {
            return z.to_vec();
        }
        self.coords.to_x(z)
    }

    /// The solver's point `z` for free parameters `x`.
    pub fn to_z(&self, x: &[f64]) -> Vec<f64> {
        if self.coords.is_identity() {
            return x.to_vec();
        }
        self.coords.to_z(x)
    }

    /// The objective.
    pub fn objective(&self) -> &Arc<Objective> {
        &self.obj
    }

    fn lookup(&self, x: &[f64], need_grad: bool) -> Option<(f64, Option<Vec<f64>>)> {
        let guard = self.cache.lock().ok()?;
        let (p, v, g) = guard.as_ref()?;
        if p.as_slice() == x && (!need_grad || g.is_some()) {
            Some((*v, g.clone()))
        } else {
            None
        }
    }

    fn store(&self, x: &[f64], v: f64, g: Option<Vec<f64>>) {
        if let Ok(mut guard) = self.cache.lock() {
            *guard = Some((x.to_vec(), v, g));
        }
    }

    fn both(&self, z: &[f64]) -> Result<(f64, Vec<f64>), Error> {
        if let Some((v, Some(g))) = self.lookup(z, true) {
            return Ok((v, g));
        }
        let n = self.obj.set().len();
        let (v, mut g) = self
            .obj
            .batch_value_and_gradient(&self.to_x(z), 0..n, None, Stop::from(&*self.stop))
            .ok_or(Interrupted)?;
        self.coords.chain(z, &mut g);
        self.store(z, v, Some(g.clone()));
        Ok((v, g))
    }
}

fn check(x: &[f64], dim: usize) -> Result<(), Error> {
    if x.len() != dim {
        return Err(argmin::core::ArgminError::InvalidParameter {
            text: format!("expected {dim} parameters, got {}", x.len()),
        }
        .into());
    }
    if x.iter().any(|v| !v.is_finite()) {
        return Err(argmin::core::ArgminError::InvalidParameter {
            text: "non-finite parameter".to_string(),
        }
        .into());
    }
    Ok(())
}

impl CostFunction for FitProblem {
    type Param = Vec<f64>;
    type Output = f64;

    fn cost(&self, x: &Self::Param) -> Result<f64, Error> {
        check(x, self.obj.dim())?;
        if let Some((v, _)) = self.lookup(x, false) {
            return Ok(v);
        }
        if self.value_only {
            let v = self
                .obj
                .value(&self.to_x(x), Stop::from(&*self.stop))
                .ok_or(Interrupted)?;
            self.store(x, v, None);
            Ok(v)
        } else {
            Ok(self.both(x)?.0)
        }
    }
}

impl Gradient for FitProblem {
    type Param = Vec<f64>;
    type Gradient = Vec<f64>;

    fn gradient(&self, x: &Self::Param) -> Result<Vec<f64>, Error> {
        check(x, self.obj.dim())?;
        Ok(self.both(x)?.1)
    }
}

impl GaussNewtonModel for FitProblem {
    fn value_and_gradient(&self, x: &[f64]) -> Result<(f64, Vec<f64>), Error> {
        check(x, self.obj.dim())?;
        self.both(x)
    }

    fn linearise(&self, z: &[f64], sample: Option<usize>) -> Result<Linearisation<'_>, Error> {
        let lin = self
            .obj
            .linearise(&self.to_x(z), sample, Stop::from(&*self.stop))
            .ok_or(Interrupted)?;
        Ok(if self.coords.is_identity() {
            lin
        } else {
            lin.with_columns(self.coords.jacobian(z))
        })
    }
}

impl MiniBatch for FitProblem {
    fn positions(&self) -> usize {
        self.obj.set().len()
    }

    fn batch(
        &self,
        x: &[f64],
        range: std::ops::Range<usize>,
        order: &[usize],
    ) -> Result<(f64, Vec<f64>), Error> {
        let stop = Stop::from(&*self.stop);
        let w = self.to_x(x);
        let r = if range.start == 0 && range.end >= order.len() {
            // A whole permutation is the whole set: the sum in storage order is the same (up
            // to rounding) and takes the stores' fast sweeps.
            self.obj
                .batch_value_and_gradient(&w, 0..order.len(), None, stop)
        } else {
            // The batch's positions in storage order: the same sum (up to rounding), read
            // from memory front to back.
            let mut batch = order[range.clone()].to_vec();
            batch.sort_unstable();
            self.obj
                .batch_value_and_gradient(&w, 0..batch.len(), Some(&batch), stop)
        };
        let (v, mut g) = r.ok_or(Interrupted)?;
        self.coords.chain(x, &mut g);
        Ok((v, g))
    }
}
