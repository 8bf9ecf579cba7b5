//! What a manifest declares, validated: the [`Manifest`] and its parameters, weights, terms
//! and centrings. A leaf of `manifest`: reading and validating (`load.rs`, `resolve.rs`,
//! `centre.rs`) and the methods (`manifest.rs`, `weights.rs`) use these names.

use std::collections::HashMap;

use crate::expr::{Component, Node};

/// The sign convention of a trace's `eval` and `const`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScoreConvention {
    /// Positive is good for White (`"score": "white"`).
    White,
    /// Positive is good for the side to move (`"score": "side_to_move"`).
    SideToMove,
}

/// One optimiser weight of a manifest.
#[derive(Clone, Debug, PartialEq)]
pub struct WeightInfo {
    /// `material[1].mg`, `pst[2][35].eg`, `ks_weight[3]`, `tempo.mg`.
    pub name: String,
    /// The parameter's name.
    pub group: String,
    /// The manifest's current value.
    pub init: f64,
    /// The parameter's bounds (both phases).
    pub bounds: Option<(f64, f64)>,
    /// Whether the optimiser leaves it alone.
    pub frozen: bool,
    /// Whether the engine stores it as an integer.
    pub integer: bool,
    /// For the `.mg` weight of a tapered element, the index of its `.eg` weight.
    pub twin: Option<usize>,
}

/// One declared parameter (a scalar, array or table of elements).
#[derive(Clone, Debug, PartialEq)]
pub struct ParamDecl {
    /// Its name.
    pub name: String,
    /// Its shape: `[]` a scalar, `[n]` an array, `[a, b]` a table (row-major).
    pub shape: Vec<usize>,
    /// Whether each element is an `[mg, eg]` pair (two weights).
    pub tapered: bool,
    /// Whether the engine stores it as integers.
    pub integer: bool,
    /// Bounds of every element (both phases).
    pub bounds: Option<(f64, f64)>,
    /// Whether the optimiser leaves it alone.
    pub frozen: bool,
    /// The per-side sum its coefficients add to, instead of entering mg/eg directly.
    pub sum: Option<String>,
    /// The catalogue group (`eval::catalogue`) it declares itself a port of, if any: `tune
    /// discover` flags that group as already in the model.
    pub catalogue: Option<String>,
    /// The trace index of its first element.
    pub first_index: u32,
    /// The weight index of its first weight.
    pub first_weight: usize,
}

impl ParamDecl {
    /// Number of elements (product of the shape; 1 for a scalar).
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    /// Whether it has no element (never: shapes are validated to be positive).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Weights per element: 2 if tapered, else 1.
    pub fn per_element(&self) -> usize {
        if self.tapered {
            2
        } else {
            1
        }
    }

    /// The row-major offset of the element at `at`, if `at` fits the shape.
    pub fn offset(&self, at: &[usize]) -> Option<usize> {
        if at.len() != self.shape.len() {
            return None;
        }
        let mut off = 0;
        for (&i, &n) in at.iter().zip(&self.shape) {
            if i >= n {
                return None;
            }
            off = off * n + i;
        }
        Some(off)
    }

    /// The element name of a row-major offset: `pst[2][35]`, `tempo`.
    pub fn element_name(&self, mut offset: usize) -> String {
        let mut idx = vec![0; self.shape.len()];
        for (i, &n) in self.shape.iter().enumerate().rev() {
            idx[i] = offset % n;
            offset /= n;
        }
        let mut s = self.name.clone();
        for i in idx {
            s += &format!("[{i}]");
        }
        s
    }
}

/// A reference in a resolved expression.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Ref {
    /// The term's sum (this phase's component).
    S,
    Mg,
    Eg,
    Phase,
    PhaseMax,
    Scale,
    ScaleMax,
    Feature(u16),
    /// A parameter element: parameter number, index expressions (literals and features), an
    /// explicit component.
    Param {
        param: usize,
        index: Vec<Node<Ref>>,
        component: Option<Component>,
    },
}

/// The component a parameter reference means: the explicit one, else the phase being
/// computed (middlegame where there is none: validation requires an explicit one there).
pub(crate) fn resolve_component(
    explicit: Option<Component>,
    phase: Option<Component>,
) -> Component {
    explicit.or(phase).unwrap_or(Component::Mg)
}

/// A declared non-linear term.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Term {
    pub name: String,
    /// The sum's slot.
    pub sum: Option<usize>,
    pub per_side: bool,
    pub mg: Option<Node<Ref>>,
    pub eg: Option<Node<Ref>>,
}

/// Per trace index: where its weights are and what it adds to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Element {
    /// The first weight (`.mg` if tapered).
    pub weight: u32,
    pub tapered: bool,
    /// The sum slot, if its parameter adds to a sum.
    pub sum: Option<u16>,
    /// The parameter number.
    pub param: u32,
}

/// An engine's evaluation terms: parameters (by name, shape, tapered or not, current values),
/// features, declared non-linear terms and the evaluation formula, validated.
///
/// ```
/// use trace::Manifest;
/// let m = Manifest::from_json(r#"{
///   "format": "gradtune-manifest", "version": 1, "engine": "tiny", "score": "white",
///   "phase": { "max": 24 },
///   "params": [ { "name": "material", "shape": [2], "value": [[100, 120], [300, 280]] } ]
/// }"#, "tiny.json")?;
/// assert_eq!(m.weights().len(), 4);
/// assert_eq!(m.index_of("material[1].eg"), Some(3));
/// assert_eq!(m.trace_index("material", &[1]), Some(1));
/// assert!(m.is_linear());
/// # Ok::<(), trace::TraceError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Manifest {
    pub(crate) origin: String,
    pub(crate) json: serde_json::Value,
    pub(crate) engine: String,
    pub(crate) score: ScoreConvention,
    pub(crate) phase_max: u32,
    /// Phase weights of pawn, knight, bishop, rook, queen, if the phase may be computed from
    /// the board when a trace omits it.
    pub(crate) phase_pieces: Option<[u32; 5]>,
    /// Whether traces' phases are at most `phase_max` (`"clamped": false`: the engine does not
    /// clamp its phase, so a trace may give more).
    pub(crate) phase_clamped: bool,
    pub(crate) scale_max: Option<u32>,
    pub(crate) params: Vec<ParamDecl>,
    pub(crate) features: Vec<String>,
    pub(crate) sums: Vec<String>,
    pub(crate) terms: Vec<Term>,
    pub(crate) eval: Option<Node<Ref>>,
    pub(crate) elements: Vec<Element>,
    pub(crate) weights: Vec<WeightInfo>,
    pub(crate) by_name: HashMap<String, usize>,
    /// The declared centrings of flat directions (`centre`).
    pub(crate) centre: Vec<Centring>,
}

/// One declared centring (an entry of the manifest's `centre`): each of its sets is an exactly
/// flat direction per phase, the set's elements moved by 1 and its `into` (if any) by
/// `-scale`; centring takes each set's mean out of its elements and adds `scale` times it to
/// its `into`.
#[derive(Clone, Debug, PartialEq)]
pub struct Centring {
    /// What one unit of the elements is worth in `into` (4ku: 8).
    pub scale: f64,
    /// Whether the elements are tapered (a mean per phase).
    pub tapered: bool,
    /// The sets: a `table` centring's groups in ascending order, an `elements` centring's one.
    pub sets: Vec<CentreSet>,
}

/// One set of a [`Centring`]: elements whose mean moves together.
#[derive(Clone, Debug, PartialEq)]
pub struct CentreSet {
    /// Its name in reports: `pst_rank[1]` (a row), `pst[8..16]`, or an `elements` centring's
    /// names joined, `pst[4] + mobility_queen`.
    pub label: String,
    /// The elements (trace indices) whose mean moves, excluded ones left out.
    pub members: Vec<u32>,
    /// The element (trace index) that takes the mean, if any.
    pub into: Option<u32>,
}

/// A direction a manifest declares exactly flat (one set of a centring, one phase): moving
/// the weights by the amounts given changes no evaluation. A tuning run checks it on its
/// traces.
#[derive(Clone, Debug, PartialEq)]
pub struct FlatDirection {
    /// The declaration: `manifest.json: centre[1]`.
    pub at: String,
    /// What moves: `pst_rank[1].mg -> material[1].mg`.
    pub what: String,
    /// Each weight moved and by how much.
    pub weights: Vec<(usize, f64)>,
}

/// What centring moved: one group and phase.
#[derive(Clone, Debug, PartialEq)]
pub struct CentreMove {
    /// The group's elements, e.g. `pst_rank[8..16]` (a row of a table: `pst[1]`), with its phase (`.mg`, `.eg` or none).
    pub from: String,
    /// The weight it moved into, e.g. `material[1].mg` (empty: a set centred into nothing).
    pub into: String,
    /// The mean taken out of the group's elements (table units).
    pub mean: f64,
    /// What the value gained: `scale * mean`.
    pub added: f64,
    /// Left alone because a moved value would leave its bounds.
    pub skipped: bool,
}
