//! A manifest's declared part as one *head* shared by every position, and each position's
//! inputs to it, so that a tuner can store per position only its sparse sums and a few
//! numbers, and replay one head program for all of them.
//!
//! The head's inputs, in order ([`HeadShape`]):
//!
//! 1. `2 * twins` sums, a (middlegame, endgame) couple per *twin group*: the linear part,
//!    then each declared sum for White and for Black (`S[sum][side][phase]`);
//! 2. `picks` weights: one per parameter leaf of the expressions as they are evaluated
//!    (per phase and per side of a per-side term), the weight the position reads there (a
//!    feature-indexed `ks_weight[king_attackers]` picks another weight in each position);
//! 3. the position's scalars: the default formula's phase factors or the `phase` and
//!    `scale` the expressions read, the features they read (per side), and the constant.
//!
//! [`Manifest::head`] evaluates the terms, the formula and the constant from these inputs
//! over any [`Scalar`], in exactly the order [`Manifest::evaluate`] does, in real numbers
//! (the tuning objective: `trunc(x)` is `x`, [`Arithmetic::Real`]); its value equals
//! [`Manifest::evaluate_real`] (up to the order of the linear sums' additions). The walk over the expressions
//! visits the same leaves in the same order whatever the values (every argument is
//! evaluated), so the shape is the manifest's, not the position's.

use std::cell::{Cell, RefCell};

use tape::Scalar;

use crate::evaluate::{feature_value, Pick};
use crate::expr::{self, Arithmetic};
use crate::manifest::{Manifest, Ref};
use crate::walk::Point;
use crate::{EvalError, Trace};

/// A per-position number the head reads.
#[derive(Clone, Copy, Debug, PartialEq)]
enum ScalarKey {
    /// The default formula's factor of `mg` (`phase / phase_max`).
    FactorMg,
    /// The default formula's factor of `eg`.
    FactorEg,
    Phase,
    Scale,
    /// A feature's value for a side (`None`: White's minus Black's).
    Feature(u16, Option<usize>),
    Const,
}

/// The inputs of a manifest's head (see the module documentation).
#[derive(Clone, Debug, PartialEq)]
pub struct HeadShape {
    /// Number of twin groups (the linear part, then two per declared sum).
    pub twins: usize,
    /// Number of weight picks.
    pub picks: usize,
    scalars: Vec<ScalarKey>,
}

impl HeadShape {
    /// Number of per-position scalars.
    pub fn scalars(&self) -> usize {
        self.scalars.len()
    }

    /// Number of inputs: `2 * twins + picks + scalars`.
    pub fn inputs(&self) -> usize {
        2 * self.twins + self.picks + self.scalars.len()
    }
}

/// One position's inputs to the head.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HeadInputs {
    /// The twin groups' sums, `2 * twins` of them: group `g`'s middlegame sum at `2g`, its
    /// endgame sum at `2g + 1`, each as (weight index, coefficient) terms.
    pub sums: Vec<Vec<(u32, f64)>>,
    /// The weight each pick reads.
    pub picks: Vec<u32>,
    /// The scalars' values.
    pub scalars: Vec<f64>,
}

/// What the leaves of the walk are worth.
trait Leaves<S> {
    fn scalar(&self, key: ScalarKey) -> S;
    fn pick(&self, pick: &Pick<'_>) -> Result<S, EvalError>;
}

/// The leaves of an expression in the walk.
struct HeadEnv<'a, S, L> {
    m: &'a Manifest,
    leaves: &'a L,
    p: Point<S>,
}

impl<S: Scalar, L: Leaves<S>> expr::Env<Ref, S> for HeadEnv<'_, S, L> {
    /// The head is the tuning objective's: real numbers.
    fn arithmetic(&self) -> Arithmetic {
        Arithmetic::Real
    }

    fn leaf(&self, r: &Ref) -> Result<S, EvalError> {
        Ok(match r {
            Ref::S => self.p.s,
            Ref::Mg => self.p.mg,
            Ref::Eg => self.p.eg,
            Ref::Phase => self.leaves.scalar(ScalarKey::Phase),
            Ref::PhaseMax => S::constant(f64::from(self.m.phase_max)),
            Ref::Scale => self.leaves.scalar(ScalarKey::Scale),
            Ref::ScaleMax => S::constant(self.m.scale_max_f64()),
            Ref::Feature(k) => self.leaves.scalar(ScalarKey::Feature(*k, self.p.side)),
            Ref::Param {
                param,
                index,
                component,
            } => self.leaves.pick(&Pick {
                param: *param,
                index,
                component: *component,
                phase: self.p.phase,
                side: self.p.side,
            })?,
        })
    }
}

impl Manifest {
    /// The declared terms, the formula and the constant from the linear part `lin` and the
    /// sums `sums[slot][side][phase]`, the other leaves from `leaves`: the same operations in
    /// the same order as [`Manifest::totals`] and [`Manifest::finish`] in real numbers
    /// ([`Manifest::evaluate_real`]), without their checks of finiteness (the caller's).
    fn walk<S: Scalar, L: Leaves<S>>(
        &self,
        lin: [S; 2],
        sums: &[[[S; 2]; 2]],
        leaves: &L,
    ) -> Result<S, EvalError> {
        let env = |p| HeadEnv { m: self, leaves, p };
        let (mg, eg) = self.add_terms((lin[0], lin[1]), sums, env, |_, _| Ok(()), |_, _, _| {})?;
        let v = match &self.eval {
            None => {
                mg * leaves.scalar(ScalarKey::FactorMg) + eg * leaves.scalar(ScalarKey::FactorEg)
            }
            Some(node) => node.eval(&HeadEnv {
                m: self,
                leaves,
                p: Point::formula(mg, eg),
            })?,
        };
        Ok(v + leaves.scalar(ScalarKey::Const))
    }

    /// The shape of this manifest's head.
    pub fn head_shape(&self) -> HeadShape {
        let x = Extract::new(self, None);
        let zero = [[0.0; 2]; 2];
        // Without a position no leaf fails (picks are only counted).
        let _ = self.walk([0.0; 2], &vec![zero; self.sums.len()], &x);
        HeadShape {
            twins: 1 + 2 * self.sums.len(),
            picks: x.picks.into_inner().len(),
            scalars: x.scalars.into_inner().into_iter().map(|s| s.0).collect(),
        }
    }

    /// Writes the head's inputs for `t` into `out` (its vectors reused). An index out of
    /// range (a feature-indexed parameter) is an error, as for [`Manifest::evaluate`].
    pub fn head_inputs(&self, t: &Trace, out: &mut HeadInputs) -> Result<(), EvalError> {
        let (mg, eg, sum_terms) = self.split_terms(t);
        out.sums.clear();
        out.sums.push(mg);
        out.sums.push(eg);
        out.sums.extend(sum_terms);
        let x = Extract::new(self, Some(t));
        let zero = [[0.0; 2]; 2];
        self.walk([0.0; 2], &vec![zero; self.sums.len()], &x)?;
        out.picks.clear();
        out.picks
            .extend(x.picks.into_inner().into_iter().map(|k| k as u32));
        out.scalars.clear();
        out.scalars
            .extend(x.scalars.into_inner().into_iter().map(|s| s.1));
        Ok(())
    }

    /// The evaluation from the head's inputs `x` (in the order of [`HeadShape`]): the terms,
    /// the formula and the constant, in real numbers as [`Manifest::evaluate_real`] (the
    /// tuning objective). Fails only if `x` is shorter than `shape` says.
    pub fn head<S: Scalar>(&self, shape: &HeadShape, x: &[S]) -> Result<S, EvalError> {
        if x.len() < shape.inputs() {
            return Err(EvalError::WeightCount {
                expected: shape.inputs(),
                got: x.len(),
            });
        }
        let sum = |k: usize| x[2 + 4 * k..2 + 4 * k + 4].to_vec();
        let sums: Vec<[[S; 2]; 2]> = (0..self.sums.len())
            .map(|k| {
                let v = sum(k);
                [[v[0], v[1]], [v[2], v[3]]]
            })
            .collect();
        let leaves = Replay {
            shape,
            x,
            next: Cell::new(2 * shape.twins),
        };
        self.walk([x[0], x[1]], &sums, &leaves)
    }
}

/// The leaves of one position, noted in the order the walk visits them (values are
/// immaterial: `1` for every pick).
struct Extract<'a> {
    m: &'a Manifest,
    t: Option<&'a Trace>,
    picks: RefCell<Vec<usize>>,
    scalars: RefCell<Vec<(ScalarKey, f64)>>,
}

impl<'a> Extract<'a> {
    fn new(m: &'a Manifest, t: Option<&'a Trace>) -> Extract<'a> {
        Extract {
            m,
            t,
            picks: RefCell::new(Vec::new()),
            scalars: RefCell::new(Vec::new()),
        }
    }
}

impl Leaves<f64> for Extract<'_> {
    fn scalar(&self, key: ScalarKey) -> f64 {
        let mut scalars = self.scalars.borrow_mut();
        if let Some(s) = scalars.iter().find(|s| s.0 == key) {
            return s.1;
        }
        let v = self.t.map_or(0.0, |t| match key {
            ScalarKey::FactorMg => self.m.phase_factors(t).0,
            ScalarKey::FactorEg => self.m.phase_factors(t).1,
            ScalarKey::Phase => f64::from(t.phase),
            ScalarKey::Scale => self.m.scale_of(t),
            ScalarKey::Feature(k, side) => feature_value(t, k, side),
            ScalarKey::Const => f64::from(t.constant),
        });
        scalars.push((key, v));
        v
    }

    fn pick(&self, pick: &Pick<'_>) -> Result<f64, EvalError> {
        let k = match self.t {
            Some(t) => self.m.weight_index(t, pick)?,
            None => 0,
        };
        self.picks.borrow_mut().push(k);
        Ok(1.0)
    }
}

/// The leaves from the head's inputs: the picks in turn, the scalars by key.
struct Replay<'a, S> {
    shape: &'a HeadShape,
    x: &'a [S],
    next: Cell<usize>,
}

impl<S: Scalar> Leaves<S> for Replay<'_, S> {
    fn scalar(&self, key: ScalarKey) -> S {
        let base = 2 * self.shape.twins + self.shape.picks;
        let k = self.shape.scalars.iter().position(|&s| s == key);
        // (Every key the walk reads is in the shape: the walk visits the same leaves.)
        k.map_or(S::zero(), |k| self.x[base + k])
    }

    fn pick(&self, _: &Pick<'_>) -> Result<S, EvalError> {
        let k = self.next.get();
        self.next.set(k + 1);
        Ok(self.x[k])
    }
}
