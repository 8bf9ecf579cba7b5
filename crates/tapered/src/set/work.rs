//! The work items of a taped recording: items in parallel chunks of [`CHUNK`], each chunk
//! recorded on a tape of its own ([`CompiledSet::record`](super::CompiledSet::record),
//! `record_split` and `record_heads` share it).

use rayon::prelude::*;
use tape::{Recording, Tape, Var};

use super::compiled::CHUNK;
use crate::progress::Progress;

/// Runs `each(state, index, item, rec, w)` over every item, in parallel chunks of [`CHUNK`]
/// items; a chunk has its own tape, whose inputs `w` hold `start`, and its own `state`
/// (`init()` first). The tape is rewound after each item, so `each` may record and compile
/// one item at a time. `progress` advances by a chunk's items once the chunk is done. Returns
/// the chunks' states in order.
pub(super) fn on_tapes<T, A, I, E>(
    start: &[f64],
    items: &[T],
    progress: Option<&Progress>,
    init: I,
    each: E,
) -> Vec<A>
where
    T: Sync,
    A: Send,
    I: Fn() -> A + Sync,
    E: Fn(&mut A, usize, &T, &mut Recording<'_>, &[Var]) + Sync,
{
    items
        .par_chunks(CHUNK)
        .enumerate()
        .map(|(c, chunk)| {
            let mut tape = Tape::new();
            tape.record(|rec| {
                let w = rec.inputs(start);
                let mark = rec.mark();
                let mut state = init();
                for (j, item) in chunk.iter().enumerate() {
                    each(&mut state, c * CHUNK + j, item, rec, &w);
                    rec.rewind(mark);
                }
                if let Some(pb) = progress {
                    pb.advance(chunk.len() as u64);
                }
                state
            })
        })
        .collect()
}
