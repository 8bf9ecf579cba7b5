//! Parameter metadata and the index layout of both models.
//!
//! Every parameter has a stable, readable name; the index layout below is derived from the same
//! builder that makes the names, so names and indices cannot drift apart. The `psqt` layout is a
//! prefix of the `full` layout: the first parameters of `full` are exactly those of `psqt`.

use shakmaty::{Role, Square};

use crate::model::ModelKind;
use crate::terms::mobility::MOBILITY_MAX;
use crate::terms::psqt::{Psqt, PsqtLayout};
use crate::terms::{self, FullLayout, ParamBuilder};

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
    /// Stable dotted name, for example `pst.knight.mg.e4` (see `docs/architecture.md`).
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
    /// fixed point ([`round_weights`]).
    pub integer: bool,
    /// For a tapered middlegame parameter, the index of its endgame twin (`x.mg` / `x.eg`,
    /// `pst.<piece>.mg.<sq>` / `pst.<piece>.eg.<sq>`): the model knows its own pairs.
    pub twin: Option<usize>,
}

/// The fixed-point scale of the parameters that are not integers by nature
/// ([`ParamInfo::integer`]): integer output rounds them to multiples of `1 / FIXED_POINT_SCALE`,
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
pub fn round_weights(model: &crate::Model, w: &[f64]) -> Vec<f64> {
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

/// Where a model's parameters are: `psqt`'s one term, or every term of `full`'s list.
#[derive(Debug)]
pub(crate) enum Layout {
    /// The `psqt` model.
    Psqt(PsqtLayout),
    /// The `full` model.
    Full(FullLayout),
}

impl Layout {
    /// The material and piece-square tables, which both models have, at the same indices.
    pub(crate) fn psqt(&self) -> &PsqtLayout {
        match self {
            Layout::Psqt(l) => l,
            Layout::Full(l) => &l.psqt,
        }
    }
}

/// Builds the parameter list and layout of a model: `psqt` is the first term of `full`'s list
/// alone, `full` the whole list (`terms/mod.rs`).
pub(crate) fn build(kind: ModelKind) -> (Layout, Vec<ParamInfo>) {
    let mut b = ParamBuilder::default();
    let layout = match kind {
        ModelKind::Psqt => Layout::Psqt(b.term::<Psqt>()),
        ModelKind::Full => Layout::Full(terms::declare(&mut b)),
    };
    (layout, b.finish().0)
}

/// [`Model::smoothing_pairs`](crate::Model::smoothing_pairs), from the layout [`build`] makes:
/// the tables are `pst + (role * 2 + phase) * 64 + square`, and a mobility table's count `c` in
/// phase `p` is `mobility[m] + 2 c + p`.
pub(crate) fn smoothing_pairs(layout: &Layout) -> Vec<(usize, usize)> {
    let mut pairs = Vec::new();
    for role in 0..ROLE_NAMES.len() {
        let pawn = role == 0;
        for phase in 0..PHASE_NAMES.len() {
            let table = layout.psqt().pst as usize + (role * PHASE_NAMES.len() + phase) * 64;
            for sq in Square::ALL {
                if pawn && matches!(u32::from(sq.rank()), 0 | 7) {
                    continue;
                }
                for to in shakmaty::attacks::king_attacks(sq) {
                    if to > sq && !(pawn && matches!(u32::from(to.rank()), 0 | 7)) {
                        pairs.push((table + usize::from(sq), table + usize::from(to)));
                    }
                }
            }
        }
    }
    if let Layout::Full(layout) = layout {
        for (m, &max) in MOBILITY_MAX.iter().enumerate() {
            let base = layout.mobility[m] as usize;
            for count in 0..max {
                for phase in 0..PHASE_NAMES.len() {
                    pairs.push((base + 2 * count + phase, base + 2 * (count + 1) + phase));
                }
            }
        }
    }
    pairs
}
