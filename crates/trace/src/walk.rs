//! The walk over a manifest's declared terms, shared by the evaluation ([`Manifest::totals`],
//! `evaluate.rs`) and the head ([`Manifest::head`], `head.rs`): each term's middlegame and
//! endgame expressions, per side for a per-side term, added to the totals in declaration
//! order. What the leaves are worth is the caller's ([`expr::Env`]).

use tape::Scalar;

use crate::expr::{self, Component};
use crate::manifest::{Manifest, Ref};
use crate::EvalError;

/// Where an expression is evaluated: the sum `s` it reads, the totals so far, the phase a
/// term's expression computes (`None` in the evaluation formula) and the side of a per-side
/// term (0 White, 1 Black; `None`: White minus Black).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Point<S> {
    pub s: S,
    pub mg: S,
    pub eg: S,
    pub phase: Option<Component>,
    pub side: Option<usize>,
}

impl<S: Scalar> Point<S> {
    /// The evaluation formula's point: the totals after every term, no sum, phase or side.
    pub(crate) fn formula(mg: S, eg: S) -> Self {
        Point {
            s: S::zero(),
            mg,
            eg,
            phase: None,
            side: None,
        }
    }
}

impl Manifest {
    /// The totals `(mg, eg)` after every declared term, from `start` (the linear part) and the
    /// sums `sums[slot][side][phase]`, the leaves from `env` at each [`Point`]. A per-side
    /// term's phase is its expression on White's sum minus the same on Black's; another
    /// term's reads White's sum minus Black's. `check(k, inc)` sees each phase's increment of
    /// term `k` as soon as it is computed (an error stops the walk), `on_term(k, mg, eg)` what
    /// term `k` adds.
    pub(crate) fn add_terms<S: Scalar, E: expr::Env<Ref, S>>(
        &self,
        start: (S, S),
        sums: &[[[S; 2]; 2]],
        env: impl Fn(Point<S>) -> E,
        check: impl Fn(usize, S) -> Result<(), EvalError>,
        mut on_term: impl FnMut(usize, S, S),
    ) -> Result<(S, S), EvalError> {
        let (mut mg, mut eg) = start;
        for (k, term) in self.terms.iter().enumerate() {
            let mut inc = [S::zero(); 2];
            for (ph, expr) in [&term.mg, &term.eg].into_iter().enumerate() {
                let Some(expr) = expr else { continue };
                let sum = |side: usize| term.sum.map_or(S::zero(), |slot| sums[slot][side][ph]);
                let at = |s: S, side: Option<usize>| Point {
                    s,
                    mg,
                    eg,
                    phase: Some([Component::Mg, Component::Eg][ph]),
                    side,
                };
                inc[ph] = if term.per_side {
                    let white = expr.eval(&env(at(sum(0), Some(0))))?;
                    white - expr.eval(&env(at(sum(1), Some(1))))?
                } else {
                    expr.eval(&env(at(sum(0) - sum(1), None)))?
                };
                check(k, inc[ph])?;
            }
            on_term(k, inc[0], inc[1]);
            mg += inc[0];
            eg += inc[1];
        }
        Ok((mg, eg))
    }
}
