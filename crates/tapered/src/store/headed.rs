//! [`Headed`]: a compact store for evaluations split into linear sums and one shared
//! non-linear head (the chess tuner's `full` model).
//!
//! A position's evaluation is `head(s_0 .. s_k, h)`: each `s_j` a sparse linear sum of the
//! weights that depends on the position, `h` a few weights the head reads directly. The head
//! is the same for every position, so it is recorded once as a [`tape::Program`]; each position
//! stores only its sums, in one flat `u16` arena:
//!
//! * the twin sums (the middlegame and endgame terms of (middlegame, endgame) parameter pairs
//!   with equal coefficients) as one `u16` per pair, packed like [`super::phased`]: pairs with
//!   coefficient +-1 as *unit* features (pair number and sign, an index into a table of
//!   signed by-pair weights: no multiplication), the others as *general* features (pair number
//!   and signed integer coefficient, as the pairs' [`Packing`](super::packing::Packing)
//!   says); both sums come out of one sweep;
//! * every other sum (king danger, the phase sum) as two `u16` per term: the parameter index
//!   and the integer coefficient.
//!
//! Positions whose sums do not fit (a non-integer coefficient, more than 16-bit indices) are
//! refused by [`Headed::try_push`], which names the [`Reason`], and kept as general programs
//! by the caller. `replay.rs` holds the value, gradient and the pass.

use tape::Program;

use super::arena::Arena;
use super::head_program::HeadRows;
use super::pairs::Pairs;
use super::reason::{Reason, Refusal};
use super::twin::{distribute_twin, twin_at, PairSink};
use super::unit::unpack_unit;

/// The type of [`SplitSpec::head_gradient`](crate::SplitSpec::head_gradient).
pub type HeadGradient = fn(s: &[f64], h: &[f64], grad: &mut [f64]) -> f64;

/// Most head inputs (sums and head weights together) a store takes.
pub(crate) const MAX_HEAD_INPUTS: usize = 16;

/// Positions per block of the sweep with a hand-written head.
const BLOCK: usize = 16;

/// Sums-and-head rows in one arena; see the module documentation.
#[derive(Clone, Debug, Default)]
pub(crate) struct Headed {
    /// The pairs, their numbers and the features' packing.
    pairs: Pairs,
    /// Number of sums, and which two are the tapered twins.
    sums: usize,
    twins: (usize, usize),
    /// The sum number of each other (non-twin) sum, in storage order.
    others: Vec<usize>,
    /// The head: inputs are the sums, then the head weights.
    head: Program,
    head_params: Vec<u32>,
    /// The head's value and gradient by hand, if the model gives it (faster than replaying
    /// `head`; the sweep uses it).
    fast: Option<HeadGradient>,
    /// Per position: the number of unit and of general pair features, the number of terms of
    /// each other sum, the unit features, the general ones, then each other sum's terms as
    /// (index, coefficient) `u16` couples.
    arena: Arena,
}

/// A position's record, parsed.
#[derive(Clone, Copy, Default)]
pub(crate) struct Row<'a> {
    units: &'a [u16],
    general: &'a [u16],
    /// The other sums' terms, flattened; `counts[j]` terms belong to other sum `j`.
    terms: &'a [u16],
    counts: &'a [u16],
}

impl Headed {
    /// An empty store: `sums` sums of which `twins` are the tapered pair, the `head` program
    /// (inputs: the sums, then the weights at `head_params`), and the parameter pairing
    /// `eg_of` (as [`crate::CompiledSet::compact_phased`] takes it). `None` if the pairing has
    /// no pairs or too many, the twins are not two distinct sums, or the head takes too many
    /// inputs.
    pub(crate) fn new(
        eg_of: &[Option<usize>],
        sums: usize,
        twins: (usize, usize),
        head: Program,
        head_params: Vec<u32>,
        fast: Option<HeadGradient>,
    ) -> Option<Headed> {
        let n = eg_of.len();
        if twins.0 == twins.1
            || twins.0 >= sums
            || twins.1 >= sums
            || sums + head_params.len() > MAX_HEAD_INPUTS
            || head.inputs() != sums + head_params.len()
            || head_params.iter().any(|&i| i as usize >= n)
        {
            return None;
        }
        let pairs = Pairs::new(eg_of)?;
        Some(Headed {
            pairs,
            sums,
            twins,
            others: (0..sums)
                .filter(|&j| j != twins.0 && j != twins.1)
                .collect(),
            head,
            head_params,
            fast,
            arena: Arena::new(),
        })
    }

    /// Number of positions.
    pub(crate) fn len(&self) -> usize {
        self.arena.len()
    }

    /// Bytes of heap memory held.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.pairs.heap_bytes()
            + self.head_params.capacity() * 4
            + self.head.heap_bytes()
            + self.arena.heap_bytes()
    }

    /// Releases spare capacity.
    pub(crate) fn shrink(&mut self) {
        self.arena.shrink();
    }

    /// An empty store with the same head and pairing.
    pub(crate) fn empty_like(&self) -> Headed {
        Headed {
            pairs: self.pairs.clone(),
            sums: self.sums,
            twins: self.twins,
            others: self.others.clone(),
            head: self.head.clone(),
            head_params: self.head_params.clone(),
            fast: self.fast,
            arena: Arena::new(),
        }
    }

    /// Appends a position given its sums' terms; if they do not fit the compact form, stores
    /// nothing and says why not.
    pub(crate) fn try_push(&mut self, sums: &[Vec<(u32, f64)>]) -> Result<(), Refusal> {
        if sums.len() != self.sums {
            return Err(Reason::UnusableSplit.into());
        }
        let pairs = (self.pairs).merge_twins(&sums[self.twins.0], &sums[self.twins.1])?;
        let others = self.others.clone();
        let mut counts = Vec::with_capacity(self.sums);
        let (units, general) = self.pairs.feature_counts(&pairs);
        counts.push(units);
        counts.push(general);
        let mut terms = Vec::new();
        for j in others {
            counts.push(sums[j].len());
            for &(i, c) in &sums[j] {
                if i > u32::from(u16::MAX) {
                    return Err(Refusal::at(Reason::IndexOutOfRange, i, c));
                }
                if c.fract() != 0.0 {
                    return Err(Refusal::at(Reason::NonIntegerCoefficient, i, c));
                }
                if !(f64::from(i16::MIN)..=f64::from(i16::MAX)).contains(&c) {
                    return Err(Refusal::at(Reason::CoefficientOutOfRange, i, c));
                }
                terms.push(i as u16);
                terms.push(c as i16 as u16);
            }
        }
        if counts.iter().any(|&c| c > usize::from(u16::MAX)) {
            return Err(Reason::IndexOutOfRange.into());
        }
        let pairs_of = &self.pairs;
        Ok(self.arena.push_with(|arena| {
            arena.extend(counts.iter().map(|&c| c as u16));
            pairs_of.push_features(&pairs, arena);
            arena.extend_from_slice(&terms);
        })?)
    }

    /// Appends position `i` of `other` (a store made by [`empty_like`](Self::empty_like) of
    /// the same store, or that store).
    pub(crate) fn push_from(&mut self, other: &Headed, i: usize) {
        self.arena.push_from(&other.arena, i);
    }

    /// Appends every position of `other` (made by [`empty_like`](Self::empty_like) of this
    /// store); `false` (and nothing appended) if the arena would outgrow 32-bit offsets.
    pub(crate) fn append(&mut self, other: &Headed) -> bool {
        self.arena.append(&other.arena)
    }

    /// Position `i`'s sums as term lists again (pairs merged, in pair order).
    pub(crate) fn sums_of(&self, i: usize) -> Vec<Vec<(u32, f64)>> {
        let row = self.row(i);
        let mut out = vec![Vec::new(); self.sums];
        let units = row.units.iter().map(|&f| unpack_unit(f));
        let packing = self.pairs.packing;
        for (p, s) in units.chain(row.general.iter().map(|&f| packing.unpack(f))) {
            out[self.twins.0].push((self.pairs.mg[p], s));
            out[self.twins.1].push((self.pairs.eg[p], s));
        }
        let mut t = row.terms.chunks_exact(2);
        for (&n, &j) in row.counts.iter().zip(&self.others) {
            for c in t.by_ref().take(usize::from(n)) {
                out[j].push((u32::from(c[0]), f64::from(c[1] as i16)));
            }
        }
        out
    }

    /// Writes the row's sums into `x[..sums]` (the twins from `twin`, the others from their
    /// terms at `w`), leaving the rest of `x` as it is.
    #[inline(always)]
    fn sums_into(&self, row: &Row<'_>, twin: [f64; 2], w: &[f64], x: &mut [f64]) {
        x[self.twins.0] = twin[0];
        x[self.twins.1] = twin[1];
        let mut k = 0;
        for (&n, &j) in row.counts.iter().zip(&self.others) {
            let end = k + 2 * usize::from(n);
            let mut s = 0.0;
            for c in row.terms[k..end].chunks_exact(2) {
                s += f64::from(c[1] as i16) * w[usize::from(c[0])];
            }
            x[j] = s;
            k = end;
        }
    }

    /// The head's inputs for a row at the full weights `w`.
    #[inline(always)]
    fn inputs_at(&self, row: &Row<'_>, w: &[f64]) -> [f64; MAX_HEAD_INPUTS] {
        let mut x = [0.0; MAX_HEAD_INPUTS];
        self.fixed_inputs(w, &mut x);
        let twin = |units: &[u16], general: &[u16]| twin_at(&self.pairs, w, units, general);
        self.row_inputs(row, w, twin, &mut x);
        x
    }
}

/// The sums-and-head store's side of the head replay: its rows' twin sums and other sums,
/// then the shared head weights.
impl HeadRows for Headed {
    type Row<'a> = Row<'a>;

    #[inline(always)]
    fn row(&self, i: usize) -> Row<'_> {
        let (counts, rest) = self.arena.record(i).split_at(self.sums);
        let (units, rest) = rest.split_at(usize::from(counts[0]));
        let (general, terms) = rest.split_at(usize::from(counts[1]));
        Row {
            units,
            general,
            terms,
            counts: &counts[2..],
        }
    }

    fn pairs(&self) -> &Pairs {
        &self.pairs
    }

    fn head(&self) -> &Program {
        &self.head
    }

    fn head_params(&self) -> &[u32] {
        &self.head_params
    }

    /// The head weights at `w`, after the sums.
    #[inline(always)]
    fn fixed_inputs(&self, w: &[f64], x: &mut [f64]) {
        for (x, &i) in x[self.sums..].iter_mut().zip(&self.head_params) {
            *x = w[i as usize];
        }
    }

    #[inline(always)]
    fn row_inputs(
        &self,
        row: &Row<'_>,
        w: &[f64],
        twin: impl Fn(&[u16], &[u16]) -> [f64; 2],
        x: &mut [f64],
    ) {
        self.sums_into(row, twin(row.units, row.general), w, x);
    }

    /// The twins' share through `sink`, the other sums' into `grad` (times their
    /// coefficients), the head weights' through `sink`; all times `scale`.
    #[inline(always)]
    fn distribute(
        &self,
        row: &Row<'_>,
        gx: &[f64],
        scale: f64,
        sink: &mut impl PairSink,
        grad: &mut [f64],
    ) {
        let d = [scale * gx[self.twins.0], scale * gx[self.twins.1]];
        distribute_twin(row.units, row.general, d, sink, grad);
        let mut k = 0;
        for (&n, &j) in row.counts.iter().zip(&self.others) {
            let end = k + 2 * usize::from(n);
            let d = scale * gx[j];
            for c in row.terms[k..end].chunks_exact(2) {
                grad[usize::from(c[0])] += f64::from(c[1] as i16) * d;
            }
            k = end;
        }
        let heads = &gx[self.sums..self.sums + self.head_params.len()];
        for (k, &x) in heads.iter().enumerate() {
            sink.head(k, scale * x, grad);
        }
    }
}

mod replay;
#[cfg(test)]
mod tests;
