//! The weights seen from outside: smoothness neighbours from the declared shapes, and the
//! manifest written back with new values.

use serde_json::Value;

use super::decl::{Manifest, ParamDecl};

impl Manifest {
    /// Pairs of weights that are neighbours in a declared shape (indices differing by one in
    /// one dimension), per phase (`.mg` with `.mg`, `.eg` with `.eg`), lower index first, in
    /// parameter order.
    ///
    /// ```
    /// let m = trace::Manifest::from_json(r#"{"format": "gradtune-manifest", "version": 1,
    ///   "engine": "x", "score": "white", "phase": {"max": 24}, "params": [
    ///   {"name": "t", "shape": [2, 2], "tapered": false, "value": [[1, 2], [3, 4]]}]}"#, "m")?;
    /// assert_eq!(m.smoothing_pairs(), vec![(0, 2), (0, 1), (1, 3), (2, 3)]);
    /// # Ok::<(), trace::TraceError>(())
    /// ```
    pub fn smoothing_pairs(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for p in &self.params {
            let strides = strides(&p.shape);
            let per = p.per_element();
            for off in 0..p.len() {
                for (d, &stride) in strides.iter().enumerate() {
                    if (off / stride) % p.shape[d] + 1 < p.shape[d] {
                        let (a, b) = (
                            p.first_weight + off * per,
                            p.first_weight + (off + stride) * per,
                        );
                        for c in 0..per {
                            out.push((a + c, b + c));
                        }
                    }
                }
            }
        }
        out
    }

    /// The manifest document with every parameter's `value` replaced by `w` (integers rounded
    /// where the parameter is `integer`): a valid manifest again, everything else as read.
    /// A weight missing from `w` keeps its current value.
    pub fn to_json_with(&self, w: &[f64]) -> Value {
        self.with_values(w, true)
    }

    /// The manifest document with every parameter's `value` replaced by `w` exactly, `integer`
    /// parameters too (a run's unrounded optimum, `weights.json`): read back, it gives `w`
    /// again as start weights; the engine's values are their roundings.
    ///
    /// ```
    /// let m = trace::Manifest::from_json(r#"{"format": "gradtune-manifest", "version": 1,
    ///   "engine": "x", "score": "white", "phase": {"max": 24}, "params": [
    ///   {"name": "v", "shape": [2], "value": [[1, 2], [3, 4]]}]}"#, "m")?;
    /// let w = [1.25, 2.0, -3.5, 4.75];
    /// let back = trace::Manifest::from_json(&m.to_json_unrounded(&w).to_string(), "back")?;
    /// assert_eq!(back.initial_weights(), w);
    /// # Ok::<(), trace::TraceError>(())
    /// ```
    pub fn to_json_unrounded(&self, w: &[f64]) -> Value {
        self.with_values(w, false)
    }

    /// The document with the values `w`, rounded where `integer` if `round`.
    fn with_values(&self, w: &[f64], round: bool) -> Value {
        let mut json = self.json.clone();
        if let Some(list) = json.get_mut("params").and_then(Value::as_array_mut) {
            for (p, v) in self.params.iter().zip(list.iter_mut()) {
                let mut k = p.first_weight;
                let value = nested(self, p, w, round, 0, &mut k);
                if let Some(o) = v.as_object_mut() {
                    o.insert("value".to_string(), value);
                }
            }
        }
        json
    }

    /// The manifest with `w` as one line of JSON text (see [`Manifest::to_json_with`]).
    pub fn to_json_string_with(&self, w: &[f64]) -> String {
        self.to_json_with(w).to_string()
    }
}

/// Row-major strides of a shape.
fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        s[d] = s[d + 1] * shape[d + 1];
    }
    s
}

fn nested(m: &Manifest, p: &ParamDecl, w: &[f64], round: bool, dim: usize, k: &mut usize) -> Value {
    if dim < p.shape.len() {
        return Value::Array(
            (0..p.shape[dim])
                .map(|_| nested(m, p, w, round, dim + 1, k))
                .collect(),
        );
    }
    let mut one = || {
        let x = w.get(*k).copied().unwrap_or(m.weights[*k].init);
        *k += 1;
        number(x, round && p.integer)
    };
    if p.tapered {
        let mg = one();
        let eg = one();
        Value::Array(vec![mg, eg])
    } else {
        one()
    }
}

/// A JSON number: rounded to an integer when `integer` (null if not finite).
pub(crate) fn number(x: f64, integer: bool) -> Value {
    if integer && x.is_finite() && x.abs() < 9.0e15 {
        Value::from(x.round() as i64)
    } else {
        serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
    }
}
