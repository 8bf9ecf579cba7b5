//! Tempo: a bonus for the side to move.

use super::{Context, ParamBuilder, Term};
use crate::features::{sign, Sink};

/// `tempo.<phase>`: +1 with White to move, -1 with Black.
pub(crate) struct Tempo;

impl Term for Tempo {
    /// Index of `tempo.mg`.
    type Layout = u32;
    const GROUPS: &'static [&'static str] = &["tempo"];
    const ADDED_LATER: bool = false;

    fn declare(b: &mut ParamBuilder) -> u32 {
        b.pair("tempo", 0.0)
    }

    #[inline(always)]
    fn extract(ctx: &mut Context<'_>, &tempo: &u32, sink: &mut impl Sink) {
        sink.pair(tempo, sign(ctx.turn()));
    }
}
