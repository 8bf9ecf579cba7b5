//! The game phase: a tunable weight per piece type, summed over the pieces on the board, that
//! tapers the middlegame and endgame sums (`full.rs`).

use super::{Context, ParamBuilder, Term};
use crate::features::{piece_counts, Sink};
use crate::param_info::{PHASE_INIT, ROLE_NAMES};

/// `phase.<piece>`, pawn .. queen (defaults 0, 1, 1, 2, 4; bounds [0, 8]).
pub(crate) struct Phase;

impl Term for Phase {
    /// Index of `phase.pawn`; `phase.<piece>` is `+ piece` (pawn 0 .. queen 4).
    type Layout = u32;
    const GROUPS: &'static [&'static str] = &["phase"];
    const ADDED_LATER: bool = false;

    fn declare(b: &mut ParamBuilder) -> u32 {
        let first = b.next_index();
        for (r, &init) in PHASE_INIT.iter().enumerate() {
            let i = b.push(format!("phase.{}", ROLE_NAMES[r]), init, Some((0.0, 8.0)));
            b.fractional(i);
        }
        first
    }

    /// The phase sum: per piece type on the board, its count times `phase.<piece>`.
    #[inline(always)]
    fn extract(ctx: &mut Context<'_>, &phase: &u32, sink: &mut impl Sink) {
        for (r, n) in piece_counts(ctx.board()).into_iter().enumerate() {
            sink.phase(phase + r as u32, n);
        }
    }
}
