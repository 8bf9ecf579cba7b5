//! [`Manifest`]: an engine's evaluation terms, parsed from JSON and validated before any trace
//! is read (see `docs/trace-format.md`).

mod centre;
mod field;
mod json;
mod load;
mod raw;
mod resolve;
mod weights;

pub use centre::{CentreMove, Centring};
pub use resolve::DEFAULT_EVAL;

use std::collections::HashMap;
use std::path::Path;

use crate::expr::{Component, Node};
use crate::TraceError;

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

impl Manifest {
    /// Reads and validates a manifest file; errors name the file and the JSON path.
    pub fn load(path: &Path) -> Result<Manifest, TraceError> {
        let text = std::fs::read_to_string(path).map_err(|e| TraceError::io(path, e))?;
        Manifest::from_json(&text, &path.display().to_string())
    }

    /// Parses and validates a manifest; `origin` names it in errors (its file name).
    pub fn from_json(text: &str, origin: &str) -> Result<Manifest, TraceError> {
        load::from_json(text, origin)
    }

    /// The engine's name.
    pub fn engine(&self) -> &str {
        &self.engine
    }

    /// The file (or other origin) the manifest came from.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The optimiser's weights, in index order.
    pub fn weights(&self) -> &[WeightInfo] {
        &self.weights
    }

    /// The manifest's current values, one per weight.
    pub fn initial_weights(&self) -> Vec<f64> {
        self.weights.iter().map(|w| w.init).collect()
    }

    /// The weight index of a weight name (`pst[2][35].eg`, `ks_weight[3]`, `tempo.mg`).
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }

    /// The trace index of the element `at` of parameter `param` (`at` empty for a scalar).
    pub fn trace_index(&self, param: &str, at: &[usize]) -> Option<u32> {
        let p = self.params.iter().find(|p| p.name == param)?;
        Some(p.first_index + p.offset(at)? as u32)
    }

    /// The number of trace indices (elements of all parameters).
    pub fn element_count(&self) -> usize {
        self.elements.len()
    }

    /// The parameter and element name of a trace index (`pst[2][35]`).
    pub fn element_name(&self, index: u32) -> Option<String> {
        let e = self.elements.get(index as usize)?;
        let p = &self.params[e.param as usize];
        Some(p.element_name((index - p.first_index) as usize))
    }

    /// Whether the evaluation is linear in the weights: no declared terms and the default
    /// evaluation formula.
    pub fn is_linear(&self) -> bool {
        self.terms.is_empty() && self.eval.is_none()
    }

    /// The declared parameters, in manifest order.
    pub fn params(&self) -> &[ParamDecl] {
        &self.params
    }

    /// The declared feature names (a trace's feature index is a position in this list).
    pub fn features(&self) -> &[String] {
        &self.features
    }

    /// The sign convention of the traces' `eval` and `const`.
    pub fn score_convention(&self) -> ScoreConvention {
        self.score
    }

    /// The phase of a pure middlegame (traces give `phase` in `0..=phase_max`, or above if
    /// the phase is not [clamped](Self::phase_clamped)).
    pub fn phase_max(&self) -> u32 {
        self.phase_max
    }

    /// Whether the traces' phase is at most [`phase_max`](Self::phase_max): `true` unless the
    /// manifest's `phase` says `"clamped": false` (an engine that does not clamp its phase,
    /// whose promotions give more than `phase_max`).
    pub fn phase_clamped(&self) -> bool {
        self.phase_clamped
    }

    /// Whether a trace may give `phase`: a whole number from 0 to `phase_max`, or any whole
    /// number from 0 if the phase is not clamped. The trace readers' check.
    pub fn phase_ok(&self, phase: f32) -> bool {
        phase.is_finite()
            && phase.fract() == 0.0
            && phase >= 0.0
            && (!self.phase_clamped || phase <= self.phase_max as f32)
    }

    /// The phases [`phase_ok`](Self::phase_ok) accepts, in words, for error messages.
    pub fn phase_range(&self) -> String {
        if self.phase_clamped {
            format!(
                "a whole number 0..={}; an engine that does not clamp its phase declares \
                 \"clamped\": false in the manifest's `phase`",
                self.phase_max
            )
        } else {
            format!(
                "a whole number from 0; the phase is not clamped, max {}",
                self.phase_max
            )
        }
    }

    /// The scale maximum, if the manifest declares a scale.
    pub fn scale_max(&self) -> Option<u32> {
        self.scale_max
    }

    /// Names of the declared non-linear terms, in order.
    pub fn term_names(&self) -> Vec<&str> {
        self.terms.iter().map(|t| t.name.as_str()).collect()
    }
}
