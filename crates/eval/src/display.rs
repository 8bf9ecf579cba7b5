//! Weights for people (8x8 tables); the source code for engines is `texel::emit`'s.

use std::collections::BTreeMap;
use std::fmt::Write;

use shakmaty::Square;

use crate::model::Model;
use crate::param_info::{ParamInfo, PHASE_NAMES, ROLE_NAMES};

/// Whether a parameter is a dimensionless shape constant rather than centipawns (printed with
/// decimals): see [`ParamInfo::integer`].
fn is_fractional(p: &ParamInfo) -> bool {
    !p.integer
}

/// The value of the parameter `name` in `w`, 0 if the model or `w` has none.
fn weight(model: &Model, w: &[f64], name: &str) -> f64 {
    model
        .index_of(name)
        .and_then(|i| w.get(i))
        .copied()
        .unwrap_or(0.0)
}

/// The weights for people: material, every piece-square table as an 8x8 board (rank 8 at the
/// top, White's view, rounded to centipawns), mobility tables, then every other parameter by
/// name.
///
/// Weights missing from `w` (a vector too short for the model) print as 0.
///
/// ```
/// use eval::{tables, Model, ModelKind};
///
/// let model = Model::new(ModelKind::Psqt);
/// let text = tables(&model, &model.default_weights());
/// assert!(text.contains("pst.knight.mg"));
/// assert!(text.contains("900"));
/// ```
pub fn tables(model: &Model, w: &[f64]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "model {} ({} parameters)\n", model.kind(), model.len());
    let _ = writeln!(out, "material        mg      eg");
    for role in &ROLE_NAMES[..5] {
        let mg = weight(model, w, &format!("material.{role}.mg"));
        let eg = weight(model, w, &format!("material.{role}.eg"));
        let _ = writeln!(out, "  {role:<8} {mg:>7.0} {eg:>7.0}");
    }
    for role in ROLE_NAMES {
        for phase in PHASE_NAMES {
            let _ = writeln!(out, "\npst.{role}.{phase}");
            for rank in (0..8).rev() {
                let _ = write!(out, "  {} ", rank + 1);
                for file in 0..8 {
                    let sq = Square::new(rank * 8 + file);
                    let v = weight(model, w, &format!("pst.{role}.{phase}.{sq}"));
                    let _ = write!(out, "{v:>6.0}");
                }
                out.push('\n');
            }
            let _ = writeln!(out, "         a     b     c     d     e     f     g     h");
        }
    }
    let mut rest = Vec::new();
    let mut mobility: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for (p, &v) in model.params().iter().zip(w) {
        match p.group.as_str() {
            "material" | "pst" => {}
            "mobility" => {
                // mobility.<role>.<count>.<phase>
                let parts: Vec<&str> = p.name.split('.').collect();
                if let [_, role, _, phase] = parts[..] {
                    mobility
                        .entry(format!("mobility.{role}.{phase}"))
                        .or_default()
                        .push(v);
                }
            }
            _ => rest.push((p, v)),
        }
    }
    if !mobility.is_empty() {
        let _ = writeln!(out, "\nmobility by number of moves (0, 1, 2, ...)");
        for (name, values) in &mobility {
            let _ = write!(out, "  {name:<22}");
            for v in values {
                let _ = write!(out, "{v:>5.0}");
            }
            out.push('\n');
        }
    }
    if !rest.is_empty() {
        out.push('\n');
        for (p, v) in rest {
            if is_fractional(p) {
                let _ = writeln!(out, "  {:<40} {v:>9.3}", p.name);
            } else {
                let _ = writeln!(out, "  {:<40} {v:>9.0}", p.name);
            }
        }
    }
    out
}
