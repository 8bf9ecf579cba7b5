//! A manifest's weights as UCI options: the naming convention engines use to expose their
//! tunables as `spin` options (as SPSA testing frameworks expect), so `tune match` can play an
//! engine with tuned weights (`--weights-a` / `--weights-b`).

use std::collections::HashMap;

use crate::{Manifest, TraceError};

/// The UCI option name of a weight (`Manifest::weights`' names): every run of characters
/// other than ASCII letters and digits becomes one `_`, with none at either end.
///
/// ```
/// use trace::uci_option_name;
/// assert_eq!(uci_option_name("pst[2][35].mg"), "pst_2_35_mg");
/// assert_eq!(uci_option_name("ks_weight[3]"), "ks_weight_3");
/// assert_eq!(uci_option_name("tempo.eg"), "tempo_eg");
/// assert_eq!(uci_option_name("material[1].mg"), "material_1_mg");
/// ```
pub fn uci_option_name(weight_name: &str) -> String {
    let mut out = String::with_capacity(weight_name.len());
    let mut gap = false;
    for c in weight_name.chars() {
        if c.is_ascii_alphanumeric() {
            if gap && !out.is_empty() {
                out.push('_');
            }
            gap = false;
            out.push(c);
        } else {
            gap = true;
        }
    }
    out
}

/// Every weight of `manifest` as a UCI option: its [`uci_option_name`] and its value rounded
/// to a whole number (half away from zero), in weight order. Two weights whose names map to
/// the same option name are an error naming both.
///
/// ```
/// let m = trace::Manifest::from_json(r#"{
///   "format": "gradtune-manifest", "version": 1, "engine": "tiny", "score": "white",
///   "phase": { "max": 24 },
///   "params": [ { "name": "material", "shape": [2], "integer": false,
///                 "value": [[100.4, 120], [300, 280.5]] } ]
/// }"#, "tiny.json")?;
/// let options = trace::uci_options(&m)?;
/// assert_eq!(options[0], ("material_0_mg".to_string(), 100));
/// assert_eq!(options[3], ("material_1_eg".to_string(), 281));
/// # Ok::<(), trace::TraceError>(())
/// ```
pub fn uci_options(manifest: &Manifest) -> Result<Vec<(String, i64)>, TraceError> {
    let mut seen: HashMap<String, &str> = HashMap::new();
    let mut out = Vec::with_capacity(manifest.weights().len());
    for w in manifest.weights() {
        let name = uci_option_name(&w.name);
        if let Some(other) = seen.insert(name.clone(), &w.name) {
            return Err(TraceError::Manifest {
                origin: manifest.origin().to_string(),
                path: "params".to_string(),
                message: format!(
                    "weights `{other}` and `{}` have the same UCI option name `{name}`",
                    w.name
                ),
            });
        }
        // Manifest values are finite and bounded by JSON numbers; `as` saturates.
        out.push((name, w.init.round() as i64));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::uci_option_name;

    #[test]
    fn names_collapse_and_trim_separators() {
        assert_eq!(uci_option_name("a__b"), "a_b");
        assert_eq!(uci_option_name("_x[1]."), "x_1");
        assert_eq!(uci_option_name("pst[5][63].eg"), "pst_5_63_eg");
        assert_eq!(uci_option_name("[]"), "");
    }
}
