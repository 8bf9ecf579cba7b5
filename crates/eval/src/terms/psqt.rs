//! Material and piece-square tables: the whole `psqt` model, and the first term of `full`.

use shakmaty::{Board, Color, Role, Square};

use super::{Context, ParamBuilder, Term};
use crate::features::{relative, sign, Sink};
use crate::param_info::{role_index, square_name, MATERIAL_INIT, PHASE_NAMES, ROLE_NAMES};

/// `material.<piece>.<phase>` (pawn .. queen) and `pst.<piece>.<phase>.<square>` (pawn ..
/// king).
pub(crate) struct Psqt;

/// Where the material values and the tables are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PsqtLayout {
    /// `material.<role>.<phase>`: index `material + 2 * role + phase` (role 0..5, no king).
    pub(crate) material: u32,
    /// `pst.<role>.<phase>.<square>`: index `pst + (role * 2 + phase) * 64 + square`.
    pub(crate) pst: u32,
}

impl Term for Psqt {
    type Layout = PsqtLayout;
    const GROUPS: &'static [&'static str] = &["material", "pst"];
    const ADDED_LATER: bool = false;

    fn declare(b: &mut ParamBuilder) -> PsqtLayout {
        let material = b.next_index();
        for (r, &init) in MATERIAL_INIT.iter().enumerate() {
            b.pair(&format!("material.{}", ROLE_NAMES[r]), init);
        }
        let pst = b.next_index();
        for role in ROLE_NAMES {
            let mg = b.next_index();
            for phase in PHASE_NAMES {
                for sq in Square::ALL {
                    b.push(format!("pst.{role}.{phase}.{}", square_name(sq)), 0.0, None);
                }
            }
            for sq in 0..64 {
                b.twin(mg + sq, mg + 64 + sq);
            }
        }
        PsqtLayout { material, pst }
    }

    #[inline(always)]
    fn extract(ctx: &mut Context<'_>, layout: &PsqtLayout, sink: &mut impl Sink) {
        psqt_terms(ctx.board(), layout, |i, j, c| sink.pair2(i, j, c));
    }
}

/// Material and piece-square terms (both models): `(mg index, eg index, coefficient)` for every
/// term, in a fixed order, handed to `push`.
#[inline(always)]
pub(crate) fn psqt_terms(board: &Board, layout: &PsqtLayout, mut push: impl FnMut(u32, u32, f64)) {
    for color in Color::ALL {
        let s = sign(color);
        let own = board.by_color(color);
        for role in Role::ALL {
            let r = role_index(role) as u32;
            let pieces = board.by_role(role) & own;
            let base = layout.pst + r * 128;
            for sq in pieces {
                let rel = relative(color, sq) as u32;
                push(base + rel, base + 64 + rel, s);
            }
        }
    }
    let white = board.by_color(Color::White);
    for role in &Role::ALL[..5] {
        let all = board.by_role(*role);
        let diff = (all & white).count() as f64 - (all & !white).count() as f64;
        let i = layout.material + 2 * role_index(*role) as u32;
        push(i, i + 1, diff);
    }
}
