//! [`Manifest`]: an engine's evaluation terms, parsed from JSON and validated before any trace
//! is read (see `docs/trace-format.md`).

mod centre;
mod decl;
mod field;
mod json;
mod load;
mod raw;
mod resolve;
mod weights;

pub(crate) use decl::{resolve_component, Ref};
pub use decl::{
    CentreMove, CentreSet, Centring, FlatDirection, Manifest, ParamDecl, ScoreConvention,
    WeightInfo,
};
pub use resolve::DEFAULT_EVAL;

use std::path::Path;

use crate::TraceError;

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
