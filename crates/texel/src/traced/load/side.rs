//! [`Side`]: one side of the split (training or validation), recorded batch by batch.

use std::sync::Arc;

use tapered::{CompiledSet, Progress, SetBuilder};
use trace::Trace;

use crate::traced::model::Traced;
use crate::traced::record::{first_failure, record_traces};

/// One side of the split being recorded: its set, and the positions left out because their
/// evaluation failed (with the first failure).
pub(super) struct Side {
    set: SetBuilder,
    left_out: usize,
    why: Option<String>,
}

impl Side {
    pub(super) fn new(params: usize) -> Self {
        Side {
            set: SetBuilder::new(params),
            left_out: 0,
            why: None,
        }
    }

    /// Records `part` (the next traces of this side) and appends them.
    pub(super) fn record(&mut self, traced: &Traced, part: &[Trace], start: &[f64], pb: &Progress) {
        if part.is_empty() {
            return;
        }
        let set = record_traces(traced, part, start, Some(pb));
        let left_out = part.len() - set.len();
        if left_out > 0 {
            self.left_out += left_out;
            if self.why.is_none() {
                self.why = first_failure(&traced.manifest, part, start);
            }
        }
        self.set.push(set);
    }

    /// The set, and a note on the positions left out (if any).
    pub(super) fn finish(self, notes: &mut Vec<String>) -> Arc<CompiledSet> {
        if self.left_out > 0 {
            notes.push(format!(
                "{} traced positions left out: their evaluation failed (first: {})",
                self.left_out,
                self.why.unwrap_or_default()
            ));
        }
        Arc::new(self.set.finish())
    }
}
