//! The weights as an engine stores them: integers, or fixed point for the parameters that are
//! not whole numbers by nature.

use crate::model::Model;

/// The fixed-point scale of the parameters that are not integers by nature
/// ([`ParamInfo::integer`](crate::ParamInfo::integer)): integer output rounds them to multiples of `1 / FIXED_POINT_SCALE`,
/// which an engine stores as the integer `value * FIXED_POINT_SCALE`.
pub const FIXED_POINT_SCALE: f64 = 1024.0;

/// The weights as an engine stores them: integer parameters rounded to integers, the others to
/// fixed point (multiples of `1 / FIXED_POINT_SCALE`).
///
/// ```
/// use eval::{round_weights, Model, ModelKind, FIXED_POINT_SCALE};
/// let model = Model::new(ModelKind::Full);
/// let mut w = model.default_weights();
/// let rook = model.index_of("material.rook.mg").unwrap();
/// let knight = model.index_of("phase.knight").unwrap();
/// w[rook] = 500.4;
/// w[knight] = 1.2345;
/// let r = round_weights(&model, &w);
/// assert_eq!(r[rook], 500.0);
/// assert_eq!(r[knight] * FIXED_POINT_SCALE, (1.2345 * FIXED_POINT_SCALE).round());
/// ```
pub fn round_weights(model: &Model, w: &[f64]) -> Vec<f64> {
    model
        .params()
        .iter()
        .zip(w)
        .map(|(p, &v)| {
            if p.integer {
                v.round()
            } else {
                (v * FIXED_POINT_SCALE).round() / FIXED_POINT_SCALE
            }
        })
        .collect()
}
