//! What the evaluation says of one parameter ([`ParamInfo`]), and the names and starting
//! values the terms share when they declare theirs. A leaf: it imports nothing of the crate.

use shakmaty::{Role, Square};

/// One tunable parameter: its stable name, its group, its starting value and optional bounds.
///
/// ```
/// use eval::{Model, ModelKind};
///
/// let model = Model::new(ModelKind::Psqt);
/// let p = &model.params()[model.index_of("material.rook.eg").unwrap()];
/// assert_eq!(p.group, "material");
/// assert_eq!(p.init, 500.0);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ParamInfo {
    /// Stable dotted name, for example `pst.knight.mg.e4` (see the crate documentation, "Parameter names").
    pub name: String,
    /// The group the parameter belongs to, the first component of its name: `material`, `pst`,
    /// `mobility`, `pawns`, `pieces`, `king_safety`, `tempo`, `phase`, and the groups of the
    /// terms added later ([`LATER_GROUPS`](crate::LATER_GROUPS)).
    pub group: String,
    /// The default starting value.
    pub init: f64,
    /// Inclusive lower and upper bounds, if the parameter is bounded.
    pub bounds: Option<(f64, f64)>,
    /// Whether the parameter is a whole number by nature (centipawns: material, tables,
    /// mobility, ...), or a shape constant that is not (the phase weights,
    /// `king_safety.quadratic`). Integer output rounds the first to integers and the second to
    /// fixed point ([`round_weights`](crate::round_weights)).
    pub integer: bool,
    /// For a tapered middlegame parameter, the index of its endgame twin (`x.mg` / `x.eg`,
    /// `pst.<piece>.mg.<sq>` / `pst.<piece>.eg.<sq>`): the model knows its own pairs.
    pub twin: Option<usize>,
}

/// Lower-case names of the six piece types, indexed by `role_index`.
pub(crate) const ROLE_NAMES: [&str; 6] = ["pawn", "knight", "bishop", "rook", "queen", "king"];

/// The two game phases, in index order.
pub(crate) const PHASE_NAMES: [&str; 2] = ["mg", "eg"];

/// Default material values (pawn, knight, bishop, rook, queen), both phases.
pub(crate) const MATERIAL_INIT: [f64; 5] = [100.0, 300.0, 300.0, 500.0, 900.0];

/// Default per-piece game-phase weights (pawn, knight, bishop, rook, queen): 24 at the start.
pub(crate) const PHASE_INIT: [f64; 5] = [0.0, 1.0, 1.0, 2.0, 4.0];

/// How many pieces of each type (pawn .. queen) both sides have at the start, for the total of
/// the phase weights.
pub(crate) const PHASE_START_COUNTS: [f64; 5] = [16.0, 4.0, 4.0, 4.0, 2.0];

/// 0-based index of a role: pawn 0 .. king 5.
#[inline(always)]
pub(crate) fn role_index(role: Role) -> usize {
    role as usize - 1
}

/// The name of a square, `a1` .. `h8`.
pub(crate) fn square_name(sq: Square) -> String {
    sq.to_string()
}
