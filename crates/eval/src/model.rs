//! [`Model`]: the evaluation's parameter layout and its entry point.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use shakmaty::Chess;
use tape::Scalar;

use crate::features::Features;
use crate::kind::ModelKind;
use crate::param_info::ParamInfo;
use crate::params::{self, Layout};
use crate::{full, psqt};

/// An evaluation model: its parameters (names, groups, defaults, bounds) and the evaluation
/// function itself, generic over [`Scalar`] so the engine searches with `f64` and the tuner
/// differentiates the very same code.
///
/// Cloning is cheap (the parameter list is shared).
///
/// ```
/// use eval::{Model, ModelKind};
/// use shakmaty::{fen::Fen, CastlingMode, Chess};
///
/// let model = Model::new(ModelKind::Psqt);
/// let w = model.default_weights();
/// let fen: Fen = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1".parse().unwrap();
/// let pos: Chess = fen.into_position(CastlingMode::Standard).unwrap();
/// let score: f64 = model.evaluate(&pos, &w);
/// assert!((score - 500.0).abs() < 1e-9); // an extra rook, White's view
///
/// // The same code, differentiated: d eval / d material.rook.eg is the endgame fraction.
/// let mut tape = tape::Tape::new();
/// let grad = tape.record(|rec| {
///     let vars = rec.inputs(&w);
///     let y = model.evaluate(&pos, &vars);
///     let mut grad = vec![0.0; model.len()];
///     rec.gradient(y, &mut grad);
///     grad
/// });
/// let g = grad[model.index_of("material.rook.eg").unwrap()];
/// assert!((g - 22.0 / 24.0).abs() < 1e-12);
/// ```
#[derive(Clone, Debug)]
pub struct Model {
    kind: ModelKind,
    layout: Arc<Layout>,
    params: Arc<[ParamInfo]>,
    index: Arc<HashMap<String, usize>>,
}

thread_local! {
    /// Reusable feature buffers, so that evaluating allocates nothing once warmed up.
    static SCRATCH: RefCell<Features> = RefCell::new(Features::default());
}

impl Model {
    /// The model of this kind, with its full parameter list.
    pub fn new(kind: ModelKind) -> Model {
        let (layout, params) = params::build(kind);
        let index = params
            .iter()
            .enumerate()
            .map(|(i, p)| (p.name.clone(), i))
            .collect();
        Model {
            kind,
            layout: Arc::new(layout),
            params: params.into(),
            index: Arc::new(index),
        }
    }

    /// Which model this is.
    pub fn kind(&self) -> ModelKind {
        self.kind
    }

    /// The parameters, in index order.
    pub fn params(&self) -> &[ParamInfo] {
        &self.params
    }

    /// The number of parameters.
    pub fn len(&self) -> usize {
        self.params.len()
    }

    /// Always `false`: every model has parameters (here for symmetry with [`len`](Model::len)).
    pub fn is_empty(&self) -> bool {
        self.params.is_empty()
    }

    /// The index of the parameter called `name`, if there is one.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }

    /// The pairs of parameters that a smoothness prior ties together (`tune --smooth`): in each
    /// piece-square table (piece and phase), every two squares a king step apart, leaving out
    /// the pawns' ranks 1 and 8, where no pawn stands; in each mobility table (`full`), every
    /// two consecutive counts. Each pair once, the lower index first.
    ///
    /// ```
    /// use eval::{Model, ModelKind};
    /// let model = Model::new(ModelKind::Psqt);
    /// let pairs = model.smoothing_pairs();
    /// let (e4, e5) = (model.index_of("pst.knight.mg.e4").unwrap(), model.index_of("pst.knight.mg.e5").unwrap());
    /// assert!(pairs.contains(&(e4, e5)));
    /// // 210 king-step pairs on a board, 5 whole tables and the pawns' 6 ranks (152 pairs), two phases.
    /// assert_eq!(pairs.len(), 2 * (5 * 210 + 152));
    /// assert!(Model::new(ModelKind::Full).smoothing_pairs().len() > pairs.len());
    /// ```
    pub fn smoothing_pairs(&self) -> Vec<(usize, usize)> {
        params::smoothing_pairs(&self.layout)
    }

    /// Weights of another model carried over into this one by parameter name, every other
    /// parameter at this model's default: how `psqt` weights start a `full` run, since every
    /// `psqt` parameter (material and piece-square tables) is also a `full` one and `full`'s
    /// other defaults add nothing (the phase weights are `psqt`'s fixed ones). `None` if a
    /// parameter of `from` has no namesake here (`full` into `psqt`) or `w` is not `from`'s.
    ///
    /// ```
    /// use eval::{Model, ModelKind};
    /// use shakmaty::Chess;
    ///
    /// let (psqt, full) = (Model::new(ModelKind::Psqt), Model::new(ModelKind::Full));
    /// let mut w = psqt.default_weights();
    /// w[psqt.index_of("pst.knight.mg.e4").unwrap()] = 25.0;
    /// let carried = full.carry_over(&psqt, &w).unwrap();
    /// assert_eq!(carried[full.index_of("pst.knight.mg.e4").unwrap()], 25.0);
    /// assert!(psqt.carry_over(&full, &full.default_weights()).is_none());
    /// ```
    pub fn carry_over(&self, from: &Model, w: &[f64]) -> Option<Vec<f64>> {
        if w.len() != from.len() {
            return None;
        }
        let mut out = self.default_weights();
        for (p, &x) in from.params().iter().zip(w) {
            *out.get_mut(self.index_of(&p.name)?)? = x;
        }
        Some(out)
    }

    /// The default starting weights: material 100, 300, 300, 500, 900 in both phases, phase
    /// weights 0, 1, 1, 2, 4 (`full`), `king_safety.quadratic` 1 (`full`), everything else 0.
    pub fn default_weights(&self) -> Vec<f64> {
        self.params.iter().map(|p| p.init).collect()
    }

    /// The static evaluation of `pos` in centipawns from White's point of view, for weights `w`
    /// (one per parameter, in index order) of any [`Scalar`] type.
    ///
    /// With `S = f64` this is the engine's evaluation; with `S = tape::Var` it records the same
    /// computation (one `dot` statement per linear sum) for exact gradients. The structure of
    /// the computation depends only on the position, never on the weight values.
    ///
    /// # Panics
    ///
    /// If `w.len() != self.len()` (a programming error).
    pub fn evaluate<S: Scalar>(&self, pos: &Chess, w: &[S]) -> S {
        self.check_len(w);
        SCRATCH.with(|cell| match cell.try_borrow_mut() {
            Ok(mut features) => self.evaluate_with(pos, w, &mut features),
            Err(_) => self.evaluate_with(pos, w, &mut Features::default()),
        })
    }

    /// [`evaluate`](Model::evaluate) on `f64`, bit for bit, as fast as it goes: both models
    /// stream their terms into running sums that add them as [`Scalar::dot`] does (no term
    /// list, no scratch buffers). What a search calls at every node.
    ///
    /// ```
    /// use eval::{Model, ModelKind};
    /// use shakmaty::{fen::Fen, CastlingMode, Chess};
    ///
    /// let fen: Fen = "r1bq1rk1/pp3ppp/2n1pn2/3p4/1bPP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8".parse().unwrap();
    /// let pos: Chess = fen.into_position(CastlingMode::Standard).unwrap();
    /// for kind in ModelKind::ALL {
    ///     let model = Model::new(kind);
    ///     let w: Vec<f64> = (0..model.len()).map(|i| (i % 13) as f64 * 0.7 - 4.1).collect();
    ///     let slow: f64 = model.evaluate(&pos, &w);
    ///     assert_eq!(model.evaluate_f64(&pos, &w).to_bits(), slow.to_bits());
    /// }
    /// ```
    ///
    /// # Panics
    ///
    /// If `w.len() != self.len()` (a programming error).
    pub fn evaluate_f64(&self, pos: &Chess, w: &[f64]) -> f64 {
        match &*self.layout {
            Layout::Psqt(layout) => {
                self.check_len(w);
                psqt::evaluate_f64(pos, layout, w)
            }
            Layout::Full(layout) => {
                self.check_len(w);
                full::evaluate_f64(pos, layout, w)
            }
        }
    }

    /// Whether the evaluation is linear in the weights (`psqt`: yes; `full`: no).
    pub fn is_linear(&self) -> bool {
        self.kind == ModelKind::Psqt
    }

    /// For a model linear in its weights ([`is_linear`](Model::is_linear)), writes the
    /// position's evaluation as sparse `(parameter index, coefficient)` terms into `out`
    /// (cleared first; sorted by index, no repeated index, no zero coefficient), so that the
    /// evaluation is `sum coefficient * w[index]` for every weight vector `w`. Returns `false`
    /// and leaves `out` empty for a non-linear model.
    ///
    /// This is what compiling a recording of the `psqt` evaluation gives, at a fraction of the
    /// cost: no tape is involved.
    ///
    /// ```
    /// use eval::{Model, ModelKind};
    /// use shakmaty::Chess;
    ///
    /// let model = Model::new(ModelKind::Psqt);
    /// let mut terms = Vec::new();
    /// assert!(model.linear_terms(&Chess::default(), &mut terms));
    /// // The start position is symmetric: every piece-square term cancels against its mirror.
    /// assert!(terms.is_empty());
    /// assert!(!Model::new(ModelKind::Full).linear_terms(&Chess::default(), &mut terms));
    /// ```
    pub fn linear_terms(&self, pos: &Chess, out: &mut Vec<(u32, f64)>) -> bool {
        out.clear();
        if !self.is_linear() {
            return false;
        }
        let mut fill = |features: &mut Features| {
            psqt::terms(pos, self.layout.psqt(), features);
            out.extend_from_slice(&features.combined);
        };
        SCRATCH.with(|cell| match cell.try_borrow_mut() {
            Ok(mut features) => fill(&mut features),
            Err(_) => fill(&mut Features::default()),
        });
        merge_terms(out);
        true
    }

    /// For a non-linear model, how its evaluation splits into linear sums that depend on the
    /// position and a non-linear head that does not (`full`: yes; `psqt`: `None`, it is one
    /// linear sum, see [`linear_terms`](Model::linear_terms)). A tuner stores each position as
    /// its sums' terms ([`sums`](Model::sums)) and replays the one shared
    /// [`head`](Model::head): the evaluation is exactly
    /// `head([dot(w, sum_0), .., dot(w, sum_k)], [w[h_0], .., w[h_m]])`.
    ///
    /// ```
    /// use eval::{Model, ModelKind};
    /// use shakmaty::{fen::Fen, CastlingMode, Chess};
    ///
    /// let model = Model::new(ModelKind::Full);
    /// let split = model.split().unwrap();
    /// let fen: Fen = "r1bq1rk1/pp3ppp/2n1pn2/3p4/1bPP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8".parse().unwrap();
    /// let pos: Chess = fen.into_position(CastlingMode::Standard).unwrap();
    /// let w: Vec<f64> = model.default_weights().iter().enumerate().map(|(i, x)| x + (i % 7) as f64).collect();
    ///
    /// let mut sums = Vec::new();
    /// assert!(model.sums(&pos, &mut sums));
    /// assert_eq!(sums.len(), split.sums);
    /// let s: Vec<f64> = sums.iter().map(|t| t.iter().map(|&(i, c)| c * w[i as usize]).sum()).collect();
    /// let h: Vec<f64> = split.head_params.iter().map(|&i| w[i as usize]).collect();
    /// let direct: f64 = model.evaluate(&pos, &w);
    /// assert!((model.head(&s, &h) - direct).abs() < 1e-9);
    /// assert!(Model::new(ModelKind::Psqt).split().is_none());
    /// ```
    pub fn split(&self) -> Option<Split> {
        match &*self.layout {
            Layout::Psqt(_) => None,
            Layout::Full(layout) => Some(Split {
                sums: full::SUMS,
                head_params: full::head_params(layout).to_vec(),
                twins: Some((0, 1)),
                head_gradient: full::head_gradient,
            }),
        }
    }

    /// For a model with a [`split`](Model::split), writes the position's linear sums into
    /// `out` (resized to the number of sums; each a list of `(parameter index, coefficient)`
    /// terms in a fixed order, no zero coefficient, an index may repeat) and returns `true`;
    /// returns `false` and leaves `out` empty for a model without one.
    pub fn sums(&self, pos: &Chess, out: &mut Vec<Vec<(u32, f64)>>) -> bool {
        let Layout::Full(layout) = &*self.layout else {
            out.clear();
            return false;
        };
        let mut fill = |features: &mut Features| {
            full::fill(pos, layout, features);
            let terms = full::sum_terms(features);
            out.resize_with(terms.len(), Vec::new);
            for (o, t) in out.iter_mut().zip(terms) {
                o.clear();
                o.extend_from_slice(t);
            }
        };
        SCRATCH.with(|cell| match cell.try_borrow_mut() {
            Ok(mut features) => fill(&mut features),
            Err(_) => fill(&mut Features::default()),
        });
        true
    }

    /// The non-linear head of a model with a [`split`](Model::split): the evaluation from the
    /// values `s` of the position's sums and the head weights `h` (the weights at
    /// [`Split::head_params`]). The very code [`evaluate`](Model::evaluate) runs, so a
    /// recording of it differentiates the same operations.
    ///
    /// # Panics
    ///
    /// For a model without a split, or if `s` or `h` is shorter than the split says.
    pub fn head<S: Scalar>(&self, s: &[S], h: &[S]) -> S {
        assert!(
            self.kind == ModelKind::Full && s.len() >= full::SUMS && h.len() >= full::HEAD_PARAMS,
            "head of model `{}` with {} sums and {} head weights",
            self.kind,
            s.len(),
            h.len()
        );
        full::head(s, h)
    }

    /// Panics unless there is one weight per parameter (a programming error).
    fn check_len<S>(&self, w: &[S]) {
        assert_eq!(
            w.len(),
            self.len(),
            "weights for model `{}` must have {} entries",
            self.kind,
            self.len()
        );
    }

    fn evaluate_with<S: Scalar>(&self, pos: &Chess, w: &[S], features: &mut Features) -> S {
        match &*self.layout {
            Layout::Psqt(layout) => psqt::evaluate(pos, layout, w, features),
            Layout::Full(layout) => full::evaluate(pos, layout, w, features),
        }
    }
}

/// Sorts sparse `(parameter index, coefficient)` terms by index, adds up the terms of a
/// repeated index and drops zero coefficients: the form
/// [`Model::linear_terms`] gives.
///
/// ```
/// let mut t = vec![(3, 1.0), (1, 2.0), (3, -1.0), (2, 0.5)];
/// eval::merge_terms(&mut t);
/// assert_eq!(t, vec![(1, 2.0), (2, 0.5)]);
/// ```
pub fn merge_terms(out: &mut Vec<(u32, f64)>) {
    out.sort_unstable_by_key(|t| t.0);
    let mut merged = 0;
    for k in 0..out.len() {
        if merged > 0 && out[merged - 1].0 == out[k].0 {
            out[merged - 1].1 += out[k].1;
        } else {
            out[merged] = out[k];
            merged += 1;
        }
    }
    out.truncate(merged);
    out.retain(|t| t.1 != 0.0);
}

/// How a non-linear model's evaluation splits into linear sums and a shared head (see
/// [`Model::split`]).
#[derive(Clone, Debug)]
pub struct Split {
    /// Number of linear sums per position.
    pub sums: usize,
    /// The weight indices the head reads, in the order [`Model::head`] takes them.
    pub head_params: Vec<u32>,
    /// `Some((a, b))`: sums `a` and `b` are tapered twins: every term `(m, c)` of sum `a` has
    /// the term `(e, c)` in sum `b` at the same position of the list, where `m` and `e` are a
    /// parameter pair named `<x>.mg.<y>` / `<x>.eg.<y>` (or `<x>.mg` / `<x>.eg`).
    pub twins: Option<(usize, usize)>,
    /// [`Model::head`] on `f64` with its gradient, derived by hand for speed:
    /// `head_gradient(s, h, grad)` returns the value and writes the derivatives by the sums
    /// into `grad[..sums]` and by the head weights into `grad[sums..sums + head_params.len()]`.
    /// It equals the tape's derivative of [`Model::head`], on the kinks too (tested).
    pub head_gradient: HeadGradient,
}

/// The type of [`Split::head_gradient`].
pub type HeadGradient = fn(s: &[f64], h: &[f64], grad: &mut [f64]) -> f64;
