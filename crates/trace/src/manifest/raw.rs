//! The manifest document as `#[derive(Deserialize)]` structs, before validation: every field a
//! [`Field`] (so a wrong kind of JSON is reported by the validation pass, with its path), every
//! object's other keys kept in `unknown`. The key lists name the fields, for the message about
//! an unknown key.

use serde::Deserialize;
use serde_json::{Map, Value};

use super::field::Field;

/// The document's keys.
pub(super) const ROOT_KEYS: [&str; 11] = [
    "format", "version", "engine", "score", "phase", "scale", "params", "features", "terms",
    "eval", "centre",
];

/// The whole document.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct RawManifest {
    pub format: Field<String>,
    pub version: Field<u64>,
    pub engine: Field<String>,
    pub score: Field<String>,
    pub phase: Field<RawPhase>,
    pub scale: Field<RawScale>,
    pub params: Field<Vec<Field<RawParam>>>,
    pub features: Field<Vec<Field<String>>>,
    pub terms: Field<Vec<Field<RawTerm>>>,
    pub eval: Field<String>,
    pub centre: Field<Vec<Field<RawCentre>>>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// `phase`'s keys.
pub(super) const PHASE_KEYS: [&str; 3] = ["max", "pieces", "clamped"];

/// `phase`: the phase of a pure middlegame, the pieces' weights, whether it is clamped.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct RawPhase {
    pub max: Field<u64>,
    pub pieces: Field<RawPieces>,
    pub clamped: Field<bool>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// `phase.pieces`' keys, in the order of [`RawPieces::weights`].
pub(super) const PIECE_KEYS: [&str; 5] = ["pawn", "knight", "bishop", "rook", "queen"];

/// `phase.pieces`: each piece's phase weight.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct RawPieces {
    pub pawn: Field<u64>,
    pub knight: Field<u64>,
    pub bishop: Field<u64>,
    pub rook: Field<u64>,
    pub queen: Field<u64>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

impl RawPieces {
    /// The weights in the order of [`PIECE_KEYS`].
    pub fn weights(self) -> [Field<u64>; 5] {
        [self.pawn, self.knight, self.bishop, self.rook, self.queen]
    }
}

/// `scale`'s keys.
pub(super) const SCALE_KEYS: [&str; 1] = ["max"];

/// `scale`: its maximum.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct RawScale {
    pub max: Field<u64>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// A parameter's keys.
pub(super) const PARAM_KEYS: [&str; 9] = [
    "name",
    "shape",
    "tapered",
    "integer",
    "value",
    "bounds",
    "frozen",
    "sum",
    "catalogue",
];

/// One of `params`. Its `value` stays JSON: its nesting follows `shape`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct RawParam {
    pub name: Field<String>,
    pub shape: Field<Vec<Field<u64>>>,
    pub tapered: Field<bool>,
    pub integer: Field<bool>,
    pub value: Field<Value>,
    pub bounds: Field<Vec<Field<f64>>>,
    pub frozen: Field<bool>,
    pub sum: Field<String>,
    pub catalogue: Field<String>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// A term's keys.
pub(super) const TERM_KEYS: [&str; 5] = ["name", "sum", "per_side", "mg", "eg"];

/// One of `terms`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct RawTerm {
    pub name: Field<String>,
    pub sum: Field<String>,
    pub per_side: Field<bool>,
    pub mg: Field<String>,
    pub eg: Field<String>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// A centring's keys.
pub(super) const CENTRE_KEYS: [&str; 6] =
    ["table", "elements", "into", "scale", "groups", "exclude"];

/// One of `centre`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct RawCentre {
    pub table: Field<String>,
    pub elements: Field<Vec<Field<String>>>,
    pub into: Field<String>,
    pub scale: Field<f64>,
    pub groups: Field<Vec<Field<u64>>>,
    pub exclude: Field<Vec<Field<String>>>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::de::DeserializeOwned;

    /// Every key of `keys` is a field of `T`: an object with only that key has no unknown key.
    fn fields_are<T: DeserializeOwned>(keys: &[&str], unknown: impl Fn(&T) -> usize) {
        for k in keys {
            let v = serde_json::json!({ *k: null, "_note": 1 });
            let t = T::deserialize(&v).unwrap_or_else(|e| panic!("{k}: {e}"));
            assert_eq!(unknown(&t), 1, "`{k}` is not a field");
        }
    }

    #[test]
    fn key_lists_name_the_fields() {
        fields_are::<RawManifest>(&ROOT_KEYS, |t| t.unknown.len());
        fields_are::<RawPhase>(&PHASE_KEYS, |t| t.unknown.len());
        fields_are::<RawPieces>(&PIECE_KEYS, |t| t.unknown.len());
        fields_are::<RawScale>(&SCALE_KEYS, |t| t.unknown.len());
        fields_are::<RawParam>(&PARAM_KEYS, |t| t.unknown.len());
        fields_are::<RawTerm>(&TERM_KEYS, |t| t.unknown.len());
        fields_are::<RawCentre>(&CENTRE_KEYS, |t| t.unknown.len());
    }

    #[test]
    fn a_struct_is_read_from_an_object_only() {
        let v = serde_json::json!([["x"], [1]]);
        assert!(matches!(
            Field::<RawTerm>::deserialize(&v),
            Ok(Field::Other(_))
        ));
        let v = serde_json::json!({"name": 3, "mg": null});
        let Ok(Field::Read(t)) = Field::<RawTerm>::deserialize(&v) else {
            panic!("an object is read");
        };
        assert!(matches!(t.name, Field::Other(Value::Number(_))));
        assert!(matches!(t.mg, Field::Other(Value::Null)));
        assert!(matches!(t.eg, Field::Missing));
    }
}
