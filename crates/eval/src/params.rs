//! Parameter metadata and the index layout of both models.
//!
//! Every parameter has a stable, readable name; the index layout below is derived from the same
//! builder that makes the names, so names and indices cannot drift apart. The `psqt` layout is a
//! prefix of the `full` layout: the first parameters of `full` are exactly those of `psqt`.

use shakmaty::{Role, Square};

use crate::model::ModelKind;

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
    /// The group the parameter belongs to: `material`, `pst`, `mobility`, `pawns`, `pieces`,
    /// `king_safety`, `tempo`, `threats`, `push_threats`, `outposts` or `phase`.
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

/// Largest mobility count per sliding/jumping piece (knight, bishop, rook, queen).
pub(crate) const MOBILITY_MAX: [usize; 4] = [8, 13, 14, 27];

/// King-safety inputs, in index order after `king_safety.attack.*` and `king_safety.check.*`.
pub(crate) const KING_SAFETY_EXTRA: [&str; 2] = ["shelter_missing", "open_file"];

/// The kinds of threat (`threats.<side>.<kind>`), in index order: an enemy piece attacked by a
/// pawn (knight, bishop, rook, queen), by a knight or bishop (rook, queen), by a rook (queen),
/// and any enemy piece but pawns and king attacked and not defended.
pub(crate) const THREAT_KINDS: [&str; 8] = [
    "pawn_on_knight",
    "pawn_on_bishop",
    "pawn_on_rook",
    "pawn_on_queen",
    "minor_on_rook",
    "minor_on_queen",
    "rook_on_queen",
    "hanging",
];

/// The two sides a threat can belong to, in index order: the side to move, the side waiting.
pub(crate) const THREAT_SIDES: [&str; 2] = ["to_move", "waiting"];

/// The pieces with an outpost term (`outposts.<piece>`), in index order.
pub(crate) const OUTPOST_PIECES: [&str; 2] = ["knight", "bishop"];

/// 0-based index of a role: pawn 0 .. king 5.
#[inline(always)]
pub(crate) fn role_index(role: Role) -> usize {
    role as usize - 1
}

/// The name of a square, `a1` .. `h8`.
pub(crate) fn square_name(sq: Square) -> String {
    sq.to_string()
}

/// Where each family of parameters starts in the weight vector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    /// `material.<role>.<phase>`: index `material + 2 * role + phase` (role 0..5, no king).
    pub(crate) material: u32,
    /// `pst.<role>.<phase>.<square>`: index `pst + (role * 2 + phase) * 64 + square`.
    pub(crate) pst: u32,
    /// `mobility.<role>.<count>.<phase>` for knight, bishop, rook, queen:
    /// index `mobility[r] + 2 * count + phase`.
    pub(crate) mobility: [u32; 4],
    /// `pawns.doubled.<phase>`.
    pub(crate) doubled: u32,
    /// `pawns.isolated.<phase>`.
    pub(crate) isolated: u32,
    /// `pawns.backward.<phase>`.
    pub(crate) backward: u32,
    /// `pawns.connected.rank<k>.<phase>`, k = 2..7: index `connected + 2 * (k - 2) + phase`.
    pub(crate) connected: u32,
    /// `pawns.passed.rank<k>.<phase>`, k = 2..7.
    pub(crate) passed: u32,
    /// `pawns.passed.free_path.rank<k>.<phase>`, k = 2..7.
    pub(crate) free_path: u32,
    /// `pawns.passed.king_distance.own.<phase>`.
    pub(crate) king_dist_own: u32,
    /// `pawns.passed.king_distance.enemy.<phase>`.
    pub(crate) king_dist_enemy: u32,
    /// `pieces.bishop_pair.<phase>`.
    pub(crate) bishop_pair: u32,
    /// `pieces.rook.open_file.<phase>`, then `half_open_file`, then the same for the queen:
    /// index `files + 4 * (role is queen) + 2 * (half open) + phase`.
    pub(crate) files: u32,
    /// `king_safety.attack.<role>` (knight .. queen), then `king_safety.check.<role>`, then
    /// `shelter_missing`, `open_file`: the linear inputs of the king-danger sum.
    pub(crate) ks_attack: u32,
    /// `king_safety.check.<role>`.
    pub(crate) ks_check: u32,
    /// `king_safety.shelter_missing` and `king_safety.open_file`.
    pub(crate) ks_extra: u32,
    /// `king_safety.quadratic`: the shape of the non-linear penalty.
    pub(crate) ks_quadratic: u32,
    /// `tempo.<phase>`.
    pub(crate) tempo: u32,
    /// `threats.<side>.<kind>.<phase>` ([`THREAT_SIDES`], [`THREAT_KINDS`]): index
    /// `threats + 2 * (side * kinds + kind) + phase`.
    pub(crate) threats: u32,
    /// `push_threats.<side>.<phase>` ([`THREAT_SIDES`]): index `push_threats + 2 * side + phase`.
    pub(crate) push_threats: u32,
    /// `outposts.<piece>.<phase>` ([`OUTPOST_PIECES`]): index `outposts + 2 * piece + phase`.
    pub(crate) outposts: u32,
    /// `phase.<role>`, pawn .. queen.
    pub(crate) phase: u32,
}

struct Builder {
    params: Vec<ParamInfo>,
}

impl Builder {
    fn push(&mut self, name: String, group: &str, init: f64, bounds: Option<(f64, f64)>) -> u32 {
        let index = self.params.len() as u32;
        self.params.push(ParamInfo {
            name,
            group: group.to_string(),
            init,
            bounds,
            integer: true,
            twin: None,
        });
        index
    }

    /// Marks parameter `index` as not an integer by nature.
    fn fractional(&mut self, index: u32) -> u32 {
        if let Some(p) = self.params.get_mut(index as usize) {
            p.integer = false;
        }
        index
    }

    /// Pushes `<prefix>.mg` and `<prefix>.eg` (both starting at `init`); returns the mg index.
    fn pair(&mut self, prefix: &str, group: &str, init: f64) -> u32 {
        let first = self.push(format!("{prefix}.mg"), group, init, None);
        let second = self.push(format!("{prefix}.eg"), group, init, None);
        self.params[first as usize].twin = Some(second as usize);
        first
    }
}

/// Builds the parameter list and layout of a model.
pub(crate) fn build(kind: ModelKind) -> (Layout, Vec<ParamInfo>) {
    let mut b = Builder { params: Vec::new() };
    let mut material = 0;
    for (r, &init) in MATERIAL_INIT.iter().enumerate() {
        let i = b.pair(&format!("material.{}", ROLE_NAMES[r]), "material", init);
        if r == 0 {
            material = i;
        }
    }
    let pst = b.params.len() as u32;
    for role in ROLE_NAMES {
        let mut first = [0u32; 64];
        for phase in PHASE_NAMES {
            for sq in Square::ALL {
                let i = b.push(
                    format!("pst.{role}.{phase}.{}", square_name(sq)),
                    "pst",
                    0.0,
                    None,
                );
                if phase == "mg" {
                    first[usize::from(sq)] = i;
                } else {
                    b.params[first[usize::from(sq)] as usize].twin = Some(i as usize);
                }
            }
        }
    }
    let mut layout = Layout {
        material,
        pst,
        mobility: [u32::MAX; 4],
        doubled: u32::MAX,
        isolated: u32::MAX,
        backward: u32::MAX,
        connected: u32::MAX,
        passed: u32::MAX,
        free_path: u32::MAX,
        king_dist_own: u32::MAX,
        king_dist_enemy: u32::MAX,
        bishop_pair: u32::MAX,
        files: u32::MAX,
        ks_attack: u32::MAX,
        ks_check: u32::MAX,
        ks_extra: u32::MAX,
        ks_quadratic: u32::MAX,
        tempo: u32::MAX,
        threats: u32::MAX,
        push_threats: u32::MAX,
        outposts: u32::MAX,
        phase: u32::MAX,
    };
    if kind == ModelKind::Psqt {
        return (layout, b.params);
    }

    for (m, &max) in MOBILITY_MAX.iter().enumerate() {
        let role = ROLE_NAMES[m + 1];
        layout.mobility[m] = b.params.len() as u32;
        for count in 0..=max {
            b.pair(&format!("mobility.{role}.{count}"), "mobility", 0.0);
        }
    }

    layout.doubled = b.pair("pawns.doubled", "pawns", 0.0);
    layout.isolated = b.pair("pawns.isolated", "pawns", 0.0);
    layout.backward = b.pair("pawns.backward", "pawns", 0.0);
    layout.connected = b.params.len() as u32;
    for k in 2..=7 {
        b.pair(&format!("pawns.connected.rank{k}"), "pawns", 0.0);
    }
    layout.passed = b.params.len() as u32;
    for k in 2..=7 {
        b.pair(&format!("pawns.passed.rank{k}"), "pawns", 0.0);
    }
    layout.free_path = b.params.len() as u32;
    for k in 2..=7 {
        b.pair(&format!("pawns.passed.free_path.rank{k}"), "pawns", 0.0);
    }
    layout.king_dist_own = b.pair("pawns.passed.king_distance.own", "pawns", 0.0);
    layout.king_dist_enemy = b.pair("pawns.passed.king_distance.enemy", "pawns", 0.0);

    layout.bishop_pair = b.pair("pieces.bishop_pair", "pieces", 0.0);
    layout.files = b.params.len() as u32;
    for role in ["rook", "queen"] {
        for file in ["open_file", "half_open_file"] {
            b.pair(&format!("pieces.{role}.{file}"), "pieces", 0.0);
        }
    }

    layout.ks_attack = b.params.len() as u32;
    for role in &ROLE_NAMES[1..5] {
        b.push(
            format!("king_safety.attack.{role}"),
            "king_safety",
            0.0,
            None,
        );
    }
    layout.ks_check = b.params.len() as u32;
    for role in &ROLE_NAMES[1..5] {
        b.push(
            format!("king_safety.check.{role}"),
            "king_safety",
            0.0,
            None,
        );
    }
    layout.ks_extra = b.params.len() as u32;
    for name in KING_SAFETY_EXTRA {
        b.push(format!("king_safety.{name}"), "king_safety", 0.0, None);
    }
    let quadratic = b.push(
        "king_safety.quadratic".to_string(),
        "king_safety",
        1.0,
        Some((0.0, 10.0)),
    );
    layout.ks_quadratic = b.fractional(quadratic);

    layout.tempo = b.pair("tempo", "tempo", 0.0);

    layout.threats = b.params.len() as u32;
    for side in THREAT_SIDES {
        for kind in THREAT_KINDS {
            b.pair(&format!("threats.{side}.{kind}"), "threats", 0.0);
        }
    }
    layout.push_threats = b.params.len() as u32;
    for side in THREAT_SIDES {
        b.pair(&format!("push_threats.{side}"), "push_threats", 0.0);
    }
    layout.outposts = b.params.len() as u32;
    for piece in OUTPOST_PIECES {
        b.pair(&format!("outposts.{piece}"), "outposts", 0.0);
    }

    layout.phase = b.params.len() as u32;
    for (r, &init) in PHASE_INIT.iter().enumerate() {
        let i = b.push(
            format!("phase.{}", ROLE_NAMES[r]),
            "phase",
            init,
            Some((0.0, 8.0)),
        );
        b.fractional(i);
    }
    (layout, b.params)
}

/// [`Model::smoothing_pairs`](crate::Model::smoothing_pairs), from the layout [`build`] makes:
/// the tables are `pst + (role * 2 + phase) * 64 + square`, and a mobility table's count `c` in
/// phase `p` is `mobility[m] + 2 c + p`.
pub(crate) fn smoothing_pairs(kind: ModelKind, layout: &Layout) -> Vec<(usize, usize)> {
    let mut pairs = Vec::new();
    for role in 0..ROLE_NAMES.len() {
        let pawn = role == 0;
        for phase in 0..PHASE_NAMES.len() {
            let table = layout.pst as usize + (role * PHASE_NAMES.len() + phase) * 64;
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
    if kind == ModelKind::Full {
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
