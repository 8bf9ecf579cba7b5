//! Which operands a statement may name: a node of the active tape's current recording, checked
//! when it is recorded ([`is_live`], [`push_terms`]), so the sweep's unchecked writes stay in
//! bounds; anything else panics ([`stale`]).

use super::state::{Operation, Segment};
use crate::var::Var;

/// Panics for an operand that is not a node of the active tape's current recording.
#[cold]
#[inline(never)]
pub(super) fn stale(x: Var, len: usize) -> ! {
    panic!(
        "tape::Var (node {}) is not on the active tape: it was kept past `record` or `rewind`, \
         or comes from another tape (this tape has {len} nodes)",
        x.raw_index()
    )
}

/// Whether `x` (not a constant) is a live node of a tape with `len` nodes and these
/// `segments`: its index is below `len`, and the segment that holds it has `x`'s tag. The
/// last two segments (the nodes after a mark, and the inputs and shared work before it) are
/// looked at first, comparing registers only.
#[inline(always)]
pub(super) fn is_live(x: Var, len: u32, segments: &[Segment]) -> bool {
    let (i, tag) = (x.raw_index(), x.tag());
    if i >= len {
        return false;
    }
    match segments {
        [.., below, top] if i < top.start => {
            if i >= below.start {
                tag == below.tag
            } else {
                is_live_deeper(i, tag, segments)
            }
        }
        [.., top] => tag == top.tag,
        [] => false,
    }
}

/// [`is_live`] for a node below the last two segments (three or more nested marks).
#[cold]
#[inline(never)]
fn is_live_deeper(i: u32, tag: u32, segments: &[Segment]) -> bool {
    let k = segments.partition_point(|s| s.start <= i);
    k > 0 && segments[k - 1].tag == tag
}

/// Appends the operands of a sum `sum c * x + konst` to `ops`, each checked to be a live node
/// ([`is_live`]: below `len`, the number of statements, so below the new statement's index);
/// constant terms are folded into the constant, which is returned. On a stale or foreign
/// operand, removes the operands it appended and panics.
#[inline(always)]
pub(super) fn push_terms(
    ops: &mut Vec<Operation>,
    len: u32,
    segments: &[Segment],
    terms: impl Iterator<Item = (Var, f64)>,
    mut konst: f64,
) -> f64 {
    let start = ops.len();
    for (x, c) in terms {
        if x.is_const() {
            konst += x.value_f64() * c;
            continue;
        }
        if !is_live(x, len, segments) {
            // Leave the tape as it was before the statement (a caught panic then leaves no
            // stray operand for the next statement).
            ops.truncate(start);
            stale(x, len as usize);
        }
        // `x.raw_index() < len`: below the new statement's index.
        ops.push(Operation {
            partial: c,
            arg: x.raw_index(),
        });
    }
    konst
}
