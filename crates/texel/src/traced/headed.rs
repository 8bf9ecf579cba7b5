//! A manifest's declared non-linear terms on the compact sums-scalars-and-head store: the
//! manifest's head ([`Manifest::head`]) recorded once as a program, each trace's inputs to it
//! ([`Manifest::head_inputs`]: the linear part and each declared sum per side as twin groups,
//! the weights the expressions pick, the phase factors, features and constant) stored
//! compactly ([`CompiledSet::record_heads`]). Traces that do not fit are recorded as general
//! programs of [`Manifest::evaluate_real`], the same values (the tuning objective: a
//! `trunc` of the manifest is its argument, the real division).

use tape::{Tape, Var};
use tapered::{CompiledSet, HeadRow, HeadSpec, Progress};
use trace::{HeadInputs, HeadShape, Manifest, Trace};

use super::model::label;

/// A manifest's head and its shape, recorded once for all its traces.
#[derive(Clone, Debug)]
pub(crate) struct Heads {
    shape: HeadShape,
    spec: HeadSpec,
}

impl Heads {
    /// The head of a manifest with declared terms or its own formula; `None` for a linear one.
    pub(crate) fn new(m: &Manifest, eg_of: &[Option<usize>]) -> Option<Heads> {
        if m.is_linear() {
            return None;
        }
        let shape = m.head_shape();
        let mut tape = Tape::new();
        let head = tape.record(|rec| {
            let x = rec.inputs(&vec![1.0; shape.inputs()]);
            m.head(&shape, &x).ok().map(|q| rec.compile(q))
        })?;
        let spec = HeadSpec {
            head,
            groups: shape.twins,
            picks: shape.picks,
            scalars: shape.scalars(),
            eg_of: eg_of.to_vec(),
        };
        Some(Heads { shape, spec })
    }

    /// Records `traces` at `start`; a trace whose evaluation at `start` fails (an index out of
    /// range, a value that is not finite) is left out, as [`super::record::record_traces`] does.
    pub(crate) fn record(
        &self,
        m: &Manifest,
        traces: &[&Trace],
        start: &[f64],
        progress: Option<&Progress>,
    ) -> CompiledSet {
        debug_assert_eq!(self.shape.inputs(), self.spec.head.inputs());
        let inputs = |_: usize, t: &&Trace, row: &mut HeadRow| {
            let mut x = HeadInputs {
                sums: std::mem::take(&mut row.sums),
                picks: std::mem::take(&mut row.picks),
                scalars: std::mem::take(&mut row.scalars),
            };
            let ok = m.head_inputs(t, &mut x).is_ok() && m.evaluate_real::<f64>(t, start).is_ok();
            (row.sums, row.picks, row.scalars) = (x.sums, x.picks, x.scalars);
            ok
        };
        CompiledSet::record_heads(
            start,
            traces,
            |_, t| label(t),
            inputs,
            &self.spec,
            |_, t, w: &[Var]| m.evaluate_real(t, w).ok(),
            progress,
        )
    }
}
