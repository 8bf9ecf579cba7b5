//! gradtune's own models (`psqt`, `full`) described as a manifest's parameters would be, so
//! that their weights are written by the one emitter, `trace::emit`, in every language it
//! knows (C, C++, Rust, C#, a user's template), in the same style as an engine's tuned
//! manifest. This module knows both sides: the models' parameter names (`eval`) and the
//! emitter's tables (`trace`), which know nothing of each other.
//!
//! The tables, in order:
//! - `material[5]`: tapered, pawn .. queen;
//! - `pst[6][64]`: tapered, pawn .. king, squares a1 = 0, b1 = 1, ..., h8 = 63, White's view;
//! - then every other family in parameter order, named by its dotted name with `_` for `.`:
//!   a family indexed by a number is an array (`mobility_knight[9]` by move count,
//!   `pawns_passed[8]` by relative rank, 1st rank = 0, with the ranks the model has no weight
//!   for at 0), the rest scalars (`tempo`, `king_safety_attack_queen`, `phase_queen`). A
//!   parameter with an endgame twin (`x.mg` / `x.eg`) is one tapered element; the shape
//!   constants (the phase weights, `king_safety_quadratic`) are not integers.
//!
//! ```
//! use eval::{Model, ModelKind};
//! use trace::emit::Language;
//!
//! let model = Model::new(ModelKind::Psqt);
//! let w = model.default_weights();
//! let c = texel::emit::source(&model, &w, &Language::C, None)?;
//! assert!(c.contains("const int material[5] = { S(100, 100), S(300, 300), "));
//! assert!(c.contains("const int pst[6][64] = {"));
//! let rust = texel::emit::source(&model, &w, &Language::Rust, None)?;
//! assert!(rust.contains("pub const material: [(i32, i32); 5] = [(100, 100), (300, 300), "));
//! # Ok::<(), trace::emit::EmitError>(())
//! ```

use std::collections::HashMap;

use eval::Model;
use shakmaty::Square;
use trace::emit::{render_description, Description, EmitError, Language, Table};

/// The pieces in the order of the tables' first index.
const ROLES: [&str; 6] = ["pawn", "knight", "bishop", "rook", "queen", "king"];

/// The weights `w` of `model` as tables (see the [module](self) documentation), with notes
/// on how to use them; fails if `w` is not one value per parameter.
pub fn describe(model: &Model, w: &[f64]) -> Result<Description, EmitError> {
    if w.len() != model.len() {
        return Err(EmitError::Weights {
            expected: model.len(),
            got: w.len(),
        });
    }
    let value = |name: &str| model.index_of(name).map_or(f64::NAN, |i| w[i]);
    let material = ROLES[..5]
        .iter()
        .flat_map(|r| ["mg", "eg"].map(|p| value(&format!("material.{r}.{p}"))));
    let pst = ROLES.iter().flat_map(|r| {
        (0..64u32).flat_map(move |sq| {
            let sq = Square::new(sq);
            ["mg", "eg"].map(|p| value(&format!("pst.{r}.{p}.{sq}")))
        })
    });
    let mut tables = vec![
        tapered("material", vec![5], material.collect()),
        tapered("pst", vec![6, 64], pst.collect()),
    ];
    tables.extend(families(model, w));
    Ok(Description {
        engine: format!("gradtune {}", model.kind()),
        notes: notes(model),
        tables,
    })
}

/// The weights `w` of `model` as source text in `lang` ([`describe`], then
/// [`render_description`]), naming the `command` that wrote it, if any.
pub fn source(
    model: &Model,
    w: &[f64],
    lang: &Language,
    command: Option<&str>,
) -> Result<String, EmitError> {
    render_description(&describe(model, w)?, lang, command)
}

/// A tapered integer table.
fn tapered(name: &str, shape: Vec<usize>, values: Vec<f64>) -> Table {
    Table {
        name: name.to_string(),
        shape,
        tapered: true,
        integer: true,
        values,
    }
}

/// One family of parameters besides material and the piece-square tables, as it is gathered.
struct Family {
    /// Its identifier: the dotted name without the phase and the index, `.` as `_`.
    name: String,
    /// Whether its elements are middlegame/endgame pairs.
    tapered: bool,
    /// Whether its parameters are integers.
    integer: bool,
    /// Whether it is indexed by relative rank (`rankN`, 8 elements).
    by_rank: bool,
    /// Its elements: the index (none for a scalar) and the value(s), `mg` then `eg`.
    elements: Vec<(Option<usize>, Vec<f64>)>,
}

impl Family {
    /// The family as a table: a scalar, or an array as long as its largest index (8 by rank)
    /// with the indices it has no parameter for at 0.
    fn table(self) -> Table {
        let per = if self.tapered { 2 } else { 1 };
        let (shape, values) = match self.elements.as_slice() {
            [(None, v)] => (vec![], v.clone()),
            elements => {
                let largest = elements.iter().filter_map(|(i, _)| *i).max();
                let len = if self.by_rank {
                    8
                } else {
                    largest.map_or(0, |i| i + 1)
                };
                let mut dense = vec![0.0; len * per];
                for (i, v) in elements {
                    let at = i.unwrap_or(0) * per;
                    dense[at..at + per].copy_from_slice(v);
                }
                (vec![len], dense)
            }
        };
        Table {
            name: self.name,
            shape,
            tapered: self.tapered,
            integer: self.integer,
            values,
        }
    }
}

/// A name component that indexes a family: a count (`3`: 3) or a rank (`rank6`: 5, relative
/// ranks from 0), with whether it is a rank.
fn index(part: &str) -> Option<(usize, bool)> {
    match part.strip_prefix("rank") {
        Some(r) => r
            .parse::<usize>()
            .ok()
            .filter(|&r| (1..=8).contains(&r))
            .map(|r| (r - 1, true)),
        None => part.parse().ok().map(|n| (n, false)),
    }
}

/// Every family but material and the piece-square tables, as tables in parameter order.
fn families(model: &Model, w: &[f64]) -> Vec<Table> {
    let params = model.params();
    let mut endgame = vec![false; params.len()];
    for e in params.iter().filter_map(|p| p.twin) {
        endgame[e] = true;
    }
    let mut order: Vec<Family> = Vec::new();
    let mut at: HashMap<String, usize> = HashMap::new();
    for (i, p) in params.iter().enumerate() {
        if p.group == "material" || p.group == "pst" || endgame[i] {
            continue;
        }
        let mut parts: Vec<&str> = p.name.split('.').collect();
        if p.twin.is_some() {
            parts.retain(|s| *s != "mg");
        }
        let k = parts.iter().position(|s| index(s).is_some());
        let slot = k.and_then(|k| index(parts.remove(k)));
        let name = parts.join("_");
        let values = match p.twin {
            Some(e) => vec![w[i], w[e]],
            None => vec![w[i]],
        };
        let n = *at.entry(name.clone()).or_insert_with(|| {
            order.push(Family {
                name,
                tapered: p.twin.is_some(),
                integer: p.integer,
                by_rank: slot.is_some_and(|(_, rank)| rank),
                elements: Vec::new(),
            });
            order.len() - 1
        });
        order[n].elements.push((slot.map(|(i, _)| i), values));
    }
    order.into_iter().map(Family::table).collect()
}

/// How to read the tables of `model`: units, index orders, the blend, and for `full` what its
/// terms count.
fn notes(model: &Model) -> Vec<String> {
    let has = |group: &str| model.params().iter().any(|p| p.group == group);
    let mut lines = vec![
        format!(
            "gradtune's `{}` model, {} parameters, in centipawns from White's view.",
            model.kind(),
            model.len()
        ),
        "material[piece]: pawn .. queen; pst[piece][square]: pawn, knight, bishop, rook, queen,"
            .to_string(),
        "king; squares a1 = 0, b1 = 1, ..., h8 = 63: for Black, use the square mirrored"
            .to_string(),
        "vertically (sq ^ 56) and subtract.".to_string(),
        "Blend: phase = sum of the phase weights of the pieces on the board (psqt: pawn 0,"
            .to_string(),
        "knight 1, bishop 1, rook 2, queen 4; full: phase_<piece>), at most its value at the"
            .to_string(),
        "start (total); eval = eg + (mg - eg) * phase / total.".to_string(),
    ];
    if has("mobility") {
        lines.push(
            "mobility_<piece>[n]: by the number of moves n; pawns_*[r]: by relative rank (1st"
                .to_string(),
        );
        lines.push("rank = 0 .. 8th rank = 7).".to_string());
    }
    if has("king_safety") {
        lines.push(
            "King safety: danger d = sum of the king_safety_* weights times their counts,"
                .to_string(),
        );
        lines.push("middlegame penalty d + king_safety_quadratic * d|d| / 100.".to_string());
    }
    if has("threats") {
        lines.push(
            "threats_<side>_<kind>: per enemy piece under that threat of the side to move"
                .to_string(),
        );
        lines.push(
            "(to_move) or of the side waiting (waiting); hanging: attacked, not defended, no pawn."
                .to_string(),
        );
    }
    if has("push_threats") || has("outposts") {
        lines.push(
            "push_threats_<side>: per enemy piece (no pawn, no king) a safe pawn push of that"
                .to_string(),
        );
        lines.push(
            "side would attack; outposts_<piece>: per knight or bishop on ranks 4-6,".to_string(),
        );
        lines.push(
            "pawn-defended, that no enemy pawn can attack (the eval crate's docs).".to_string(),
        );
    }
    lines
}
