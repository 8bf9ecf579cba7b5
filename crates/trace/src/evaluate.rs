//! A manifest evaluating a trace: generic over [`tape::Scalar`] (exact gradients through the
//! declared terms), in the engine's integer arithmetic ([`Manifest::evaluate`]) or in real
//! numbers ([`Manifest::evaluate_real`], the tuning objective), which differ only in
//! `trunc(x)`.

use tape::Scalar;

use crate::expr::{self, index_value, Arithmetic, Component, Node};
use crate::manifest::{resolve_component, Manifest, Ref};
use crate::walk::Point;
use crate::{EvalError, Trace};

/// What the leaves of an expression are worth for one position.
struct Env<'a, S> {
    m: &'a Manifest,
    t: &'a Trace,
    w: &'a [S],
    /// Where the expression is evaluated.
    p: Point<S>,
    /// How `trunc` computes.
    arithmetic: Arithmetic,
}

impl<S: Scalar> Env<'_, S> {
    fn feature(&self, k: u16) -> f64 {
        feature_value(self.t, k, self.p.side)
    }
}

/// Feature `k` of `t` for `side` (0 White, 1 Black; `None`: White's minus Black's).
pub(crate) fn feature_value(t: &Trace, k: u16, side: Option<usize>) -> f64 {
    let (w, b) = t.feature(k);
    match side {
        Some(0) => w,
        Some(_) => b,
        None => w - b,
    }
}

/// Where a parameter leaf reads, for one position.
pub(crate) struct Pick<'a> {
    pub param: usize,
    pub index: &'a [Node<Ref>],
    pub component: Option<Component>,
    /// The phase being computed (`None` in the evaluation formula).
    pub phase: Option<Component>,
    /// The side of a per-side term.
    pub side: Option<usize>,
}

impl Manifest {
    /// The weight a parameter leaf reads in `t`: its index expressions evaluated on the
    /// position's features, its component resolved.
    pub(crate) fn weight_index(&self, t: &Trace, pick: &Pick<'_>) -> Result<usize, EvalError> {
        let p = &self.params[pick.param];
        let mut offset = 0;
        for (dim, node) in pick.index.iter().enumerate() {
            let x = node.eval::<f64>(&|r: &Ref| match r {
                Ref::Feature(k) => Ok(feature_value(t, *k, pick.side)),
                _ => Err(EvalError::Unknown {
                    name: format!("{r:?}"),
                }),
            })?;
            let i = index_value(&p.name, x)?;
            if i >= p.shape[dim] {
                return Err(EvalError::IndexOutOfRange {
                    name: p.name.clone(),
                    index: i,
                    dim,
                    len: p.shape[dim],
                });
            }
            offset = offset * p.shape[dim] + i;
        }
        let mut k = p.first_weight + offset * p.per_element();
        if p.tapered && resolve_component(pick.component, pick.phase) == Component::Eg {
            k += 1;
        }
        Ok(k)
    }
}

impl<S: Scalar> expr::Env<Ref, S> for Env<'_, S> {
    fn arithmetic(&self) -> Arithmetic {
        self.arithmetic
    }

    fn leaf(&self, r: &Ref) -> Result<S, EvalError> {
        let t = self.t;
        Ok(match r {
            Ref::S => self.p.s,
            Ref::Mg => self.p.mg,
            Ref::Eg => self.p.eg,
            Ref::Phase => S::constant(f64::from(t.phase)),
            Ref::PhaseMax => S::constant(f64::from(self.m.phase_max)),
            Ref::Scale => S::constant(self.m.scale_of(t)),
            Ref::ScaleMax => S::constant(self.m.scale_max_f64()),
            Ref::Feature(k) => S::constant(self.feature(*k)),
            Ref::Param {
                param,
                index,
                component,
            } => {
                let pick = Pick {
                    param: *param,
                    index,
                    component: *component,
                    phase: self.p.phase,
                    side: self.p.side,
                };
                self.w[self.m.weight_index(t, &pick)?]
            }
        })
    }
}

/// The sums of one position: `[slot][side][phase]`.
type Sums<S> = Vec<[[S; 2]; 2]>;

impl Manifest {
    /// The scale of a trace (its `scale`, or `scale_max`; 1 without a declared scale).
    pub(crate) fn scale_of(&self, t: &Trace) -> f64 {
        match self.scale_max {
            Some(max) => t.scale.map_or(f64::from(max), f64::from),
            None => 1.0,
        }
    }

    /// `scale_max` (1 without a declared scale).
    pub(crate) fn scale_max_f64(&self) -> f64 {
        self.scale_max.map_or(1.0, f64::from)
    }

    /// The evaluation of a trace with weights `w`, White's view, as the engine computes it:
    /// the linear part, the declared terms, the evaluation formula and the constant (see
    /// `docs/trace-format.md`), `trunc(x)` truncating towards zero ([`Arithmetic::Integer`]).
    /// `verify` compares this with the engine's own evaluation. An index out of range, a
    /// non-finite value or weights of the wrong length are errors (callers skip the position
    /// and count it).
    pub fn evaluate<S: Scalar>(&self, t: &Trace, w: &[S]) -> Result<S, EvalError> {
        self.evaluate_as(t, w, Arithmetic::Integer)
    }

    /// The evaluation the tuner fits ([`Arithmetic::Real`]): as [`Manifest::evaluate`], with
    /// `trunc(x)` read as `x`, so that a truncating division is its real division, smooth in
    /// the weights (a truncation is a step function, whose zero gradient would freeze the
    /// weights behind it). It differs from [`Manifest::evaluate`] only in manifests that use
    /// `trunc`, by the truncations' fractions (for Ethereal's, below 2 cp). Equals
    /// [`Manifest::head`] on [`Manifest::head_inputs`].
    pub fn evaluate_real<S: Scalar>(&self, t: &Trace, w: &[S]) -> Result<S, EvalError> {
        self.evaluate_as(t, w, Arithmetic::Real)
    }

    /// [`Manifest::evaluate`] or [`Manifest::evaluate_real`], by `arithmetic`.
    pub fn evaluate_as<S: Scalar>(
        &self,
        t: &Trace,
        w: &[S],
        arithmetic: Arithmetic,
    ) -> Result<S, EvalError> {
        let (mg, eg) = self.totals(t, w, arithmetic, &mut |_, _, _| {})?;
        self.finish(t, w, arithmetic, mg, eg)
    }

    /// `mg` and `eg` after the linear part and every term; `on_term(k, mg, eg)` sees what term
    /// `k` adds.
    pub(crate) fn totals<S: Scalar>(
        &self,
        t: &Trace,
        w: &[S],
        arithmetic: Arithmetic,
        on_term: &mut dyn FnMut(usize, S, S),
    ) -> Result<(S, S), EvalError> {
        if w.len() != self.weights.len() {
            return Err(EvalError::WeightCount {
                expected: self.weights.len(),
                got: w.len(),
            });
        }
        let (mg_terms, eg_terms, sum_terms) = self.split_terms(t);
        let mg = S::dot(w, &mg_terms);
        let eg = S::dot(w, &eg_terms);
        let sums: Sums<S> = (0..self.sums.len())
            .map(|k| {
                let v = |side: usize, ph: usize| S::dot(w, &sum_terms[k * 4 + side * 2 + ph]);
                [[v(0, 0), v(0, 1)], [v(1, 0), v(1, 1)]]
            })
            .collect();
        let env = |p| Env {
            m: self,
            t,
            w,
            p,
            arithmetic,
        };
        let finite = |k: usize, inc: S| {
            let v = inc.value();
            if v.is_finite() {
                return Ok(());
            }
            Err(EvalError::NotFinite {
                value: v,
                in_term: Some(self.terms[k].name.clone()),
            })
        };
        self.add_terms((mg, eg), &sums, env, finite, on_term)
    }

    /// A trace's sparse terms: the linear part's middlegame and endgame terms, and each sum's
    /// terms at `[slot * 4 + side * 2 + phase]`.
    #[allow(clippy::type_complexity)]
    pub(crate) fn split_terms(
        &self,
        t: &Trace,
    ) -> (Vec<(u32, f64)>, Vec<(u32, f64)>, Vec<Vec<(u32, f64)>>) {
        let mut mg_terms = Vec::with_capacity(t.coeffs.len());
        let mut eg_terms = Vec::with_capacity(t.coeffs.len());
        let mut sum_terms: Vec<Vec<(u32, f64)>> = vec![Vec::new(); self.sums.len() * 4];
        for &(i, white, black) in &t.coeffs {
            let Some(e) = self.elements.get(i as usize) else {
                continue; // readers reject such indices
            };
            let (wm, we) = if e.tapered {
                (e.weight, e.weight + 1)
            } else {
                (e.weight, e.weight)
            };
            match e.sum {
                None => {
                    let d = f64::from(white) - f64::from(black);
                    mg_terms.push((wm, d));
                    eg_terms.push((we, d));
                }
                Some(k) => {
                    for (side, c) in [(0, white), (1, black)] {
                        if c != 0.0 {
                            let base = usize::from(k) * 4 + side * 2;
                            sum_terms[base].push((wm, f64::from(c)));
                            sum_terms[base + 1].push((we, f64::from(c)));
                        }
                    }
                }
            }
        }
        (mg_terms, eg_terms, sum_terms)
    }

    /// The evaluation formula applied to the totals, plus the constant.
    pub(crate) fn finish<S: Scalar>(
        &self,
        t: &Trace,
        w: &[S],
        arithmetic: Arithmetic,
        mg: S,
        eg: S,
    ) -> Result<S, EvalError> {
        let v = self.formula(t, w, arithmetic, mg, eg)? + f64::from(t.constant);
        let x = v.value();
        if !x.is_finite() {
            return Err(EvalError::NotFinite {
                value: x,
                in_term: None,
            });
        }
        Ok(v)
    }

    /// The evaluation formula alone (no constant).
    pub(crate) fn formula<S: Scalar>(
        &self,
        t: &Trace,
        w: &[S],
        arithmetic: Arithmetic,
        mg: S,
        eg: S,
    ) -> Result<S, EvalError> {
        match &self.eval {
            None => {
                let (a, b) = self.phase_factors(t);
                Ok(mg * a + eg * b)
            }
            Some(node) => node.eval(&Env {
                m: self,
                t,
                w,
                p: Point::formula(mg, eg),
                arithmetic,
            }),
        }
    }

    /// The default formula's factors of `mg` and `eg`: `phase / phase_max` and
    /// `(phase_max - phase) * scale / (scale_max * phase_max)`.
    pub(crate) fn phase_factors(&self, t: &Trace) -> (f64, f64) {
        let max = f64::from(self.phase_max);
        let phase = f64::from(t.phase);
        (
            phase / max,
            (max - phase) * self.scale_of(t) / (self.scale_max_f64() * max),
        )
    }
}
