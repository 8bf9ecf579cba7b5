//! [`Table`]: one parameter's weights as the templates see them (a leaf of `emit`).

/// One parameter's weights, as the manifest declares it.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    /// The parameter's name in the manifest.
    pub name: String,
    /// Its shape: `[]` a scalar, `[n]` an array, `[a, b]` a table, row-major.
    pub shape: Vec<usize>,
    /// Whether each element is a middlegame/endgame pair.
    pub tapered: bool,
    /// Whether the engine takes integers (values are rounded when printed).
    pub integer: bool,
    /// The weights, row-major; a tapered element's `mg` then `eg` (interleaved). Not rounded.
    pub values: Vec<f64>,
}

impl Table {
    /// The largest change rounding makes to one of this table's values (0 if not integer).
    pub fn rounding(&self) -> f64 {
        if !self.integer {
            return 0.0;
        }
        self.values
            .iter()
            .map(|v| (v.round() - v).abs())
            .fold(0.0, f64::max)
    }
}
