//! [`ScalarHead`]: a compact store for evaluations that are one shared non-linear head of a
//! position's linear sums, of weights it picks and of a few numbers of its own (an engine's
//! declared king safety or complexity, read from its traces).
//!
//! A position's evaluation is `head(s_0 .. s_{2G-1}, w[p_0] .. w[p_{P-1}], c_0 .. c_{C-1})`:
//!
//! * `G` *twin groups*, each a (middlegame, endgame) couple of sparse sums over
//!   (middlegame, endgame) parameter pairs with equal coefficients (the linear part; a
//!   king-safety sum of one side in both phases), stored as [`super::phased`]'s `u16`
//!   features (unit features for +-1, else pair and signed coefficient as the pairs'
//!   [`Packing`](super::packing::Packing) says; a coefficient beyond its range as several
//!   features of the pair, [`Packing::pieces`](super::packing::Packing::pieces)), both sums of
//!   a group out of one sweep. An untapered weight is a *single*, a pair of the weight with
//!   itself ([`Pairs::with_singles`]): its term adds its coefficient to both sums;
//! * `P` *picks*: single weights the head reads, which may differ per position (an
//!   attacker-count weight indexed by the position's attacker count), one `u16` each;
//! * `C` *scalars*: per-position numbers (phase factors, a constant, features), `f64` each.
//!
//! The head is one [`tape::Program`] for every position, replayed with the position's inputs
//! (`min`, `max`, `abs`, `sign` re-decide their branch on replay, so the value and gradient
//! are exact).
//!
//! Why a store beside [`super::Headed`] and not `Headed` generalised: `Headed` serves the
//! chess model's `full`, one twin group and shared head weights, with a hand-written head in
//! blocks; its hot loop and memory layout stay as they are. This one takes several twin
//! groups, per-position weights and per-position scalars, which `full` does not need.
//!
//! Positions that do not fit (a non-integer or too large coefficient, a parameter outside a
//! pair when the singles do not all fit beside the pairs, an index beyond `u16`) are refused
//! by [`ScalarHead::try_push`] with the [`Refusal`] (the reason, the parameter and the
//! coefficient); the recording keeps them as general programs. `scalar_head/replay.rs` holds the value,
//! gradient and the pass.

use tape::Program;

use super::arena::Arena;
use super::head_program::HeadRows;
use super::pairs::Pairs;
use super::reason::{Reason, Refusal};
use super::twin::{distribute_twin, PairSink};

/// A position's inputs to a [`ScalarHead`]: `2 * groups` sums (group `g`'s middlegame sum at
/// `2g`, its endgame sum at `2g + 1`), the picked weights and the scalars.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HeadRow {
    /// The twin groups' sums, as (weight index, coefficient) terms.
    pub sums: Vec<Vec<(u32, f64)>>,
    /// The weight each pick reads.
    pub picks: Vec<u32>,
    /// The scalars.
    pub scalars: Vec<f64>,
}

/// Sums, picks and scalars of many positions, and one head; see the module documentation.
#[derive(Clone, Debug, Default)]
pub(crate) struct ScalarHead {
    /// The pairs, their numbers and the features' packing.
    pairs: Pairs,
    groups: usize,
    picks: usize,
    scalars: usize,
    /// Inputs: the groups' sums, the picks, the scalars.
    head: Program,
    /// Per position: the number of unit and of general features of each group, the picks,
    /// then each group's unit and general features.
    arena: Arena,
    /// Per position, its `scalars` values.
    values: Vec<f64>,
}

/// A position's record, parsed.
#[derive(Clone, Copy)]
pub(crate) struct Row<'a> {
    pub counts: &'a [u16],
    pub picks: &'a [u16],
    pub feats: &'a [u16],
    pub scalars: &'a [f64],
}

impl Row<'_> {
    /// Each group's unit and general features, in group order.
    #[inline(always)]
    pub fn groups(&self) -> impl Iterator<Item = (&[u16], &[u16])> + '_ {
        let mut rest = self.feats;
        self.counts.chunks_exact(2).map(move |c| {
            let (units, r) = rest.split_at(usize::from(c[0]));
            let (general, r) = r.split_at(usize::from(c[1]));
            rest = r;
            (units, general)
        })
    }
}

impl ScalarHead {
    /// An empty store: `groups` twin groups, `picks` picks and `scalars` scalars into `head`,
    /// over the parameter pairing `eg_of` (as [`crate::CompiledSet::compact_phased`] takes
    /// it), every unpaired parameter a single if they all fit. `None` if the pairing has
    /// nothing to address or too many pairs, or the head takes other inputs.
    pub(crate) fn new(
        eg_of: &[Option<usize>],
        (groups, picks, scalars): (usize, usize, usize),
        head: Program,
    ) -> Option<ScalarHead> {
        if head.inputs() != 2 * groups + picks + scalars || groups > usize::from(u16::MAX) {
            return None;
        }
        let pairs = Pairs::with_singles(eg_of)?;
        Some(ScalarHead {
            pairs,
            groups,
            picks,
            scalars,
            head,
            arena: Arena::new(),
            values: Vec::new(),
        })
    }

    /// Number of positions.
    pub(crate) fn len(&self) -> usize {
        self.arena.len()
    }

    /// Bytes of heap memory held.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.pairs.heap_bytes()
            + self.head.heap_bytes()
            + self.arena.heap_bytes()
            + self.values.capacity() * 8
    }

    /// Releases spare capacity.
    pub(crate) fn shrink(&mut self) {
        self.arena.shrink();
        self.values.shrink_to_fit();
    }

    /// An empty store with the same head and pairing.
    pub(crate) fn empty_like(&self) -> ScalarHead {
        ScalarHead {
            pairs: self.pairs.clone(),
            groups: self.groups,
            picks: self.picks,
            scalars: self.scalars,
            head: self.head.clone(),
            arena: Arena::new(),
            values: Vec::new(),
        }
    }

    /// Appends a position; if its inputs do not fit the compact form, stores nothing and
    /// says why not (naming the parameter that did not fit).
    pub(crate) fn try_push(&mut self, row: &HeadRow) -> Result<(), Refusal> {
        if row.sums.len() != 2 * self.groups
            || row.picks.len() != self.picks
            || row.scalars.len() != self.scalars
        {
            return Err(Reason::UnusableSplit.into());
        }
        if let Some(&p) = row.picks.iter().find(|&&p| p > u32::from(u16::MAX)) {
            return Err(Refusal {
                param: Some(p),
                ..Reason::IndexOutOfRange.into()
            });
        }
        let mut merged = Vec::with_capacity(self.groups);
        for g in row.sums.chunks_exact(2) {
            merged.push(self.pairs.merge_twins(&g[0], &g[1])?);
        }
        let counts: Vec<(usize, usize)> = merged
            .iter()
            .map(|m| self.pairs.feature_counts(m))
            .collect();
        if counts.iter().any(|c| c.0 + c.1 > usize::from(u16::MAX)) {
            return Err(Reason::IndexOutOfRange.into());
        }
        let pairs_of = &self.pairs;
        self.arena.push_with(|arena| {
            for &(units, general) in &counts {
                arena.push(units as u16);
                arena.push(general as u16);
            }
            arena.extend(row.picks.iter().map(|&p| p as u16));
            for pairs in &merged {
                pairs_of.push_features(pairs, arena);
            }
        })?;
        self.values.extend_from_slice(&row.scalars);
        Ok(())
    }

    /// Appends position `i` of `other` (a store with the same head and pairing).
    pub(crate) fn push_from(&mut self, other: &ScalarHead, i: usize) {
        self.arena.push_from(&other.arena, i);
        let s = other.scalars;
        self.values
            .extend_from_slice(&other.values[i * s..(i + 1) * s]);
    }

    /// Appends every position of `other` (made by [`empty_like`](Self::empty_like) of this
    /// store); `false` (and nothing appended) if the arena would outgrow 32-bit offsets.
    pub(crate) fn append(&mut self, other: &ScalarHead) -> bool {
        if !self.arena.append(&other.arena) {
            return false;
        }
        self.values.extend_from_slice(&other.values);
        true
    }
}

/// The sums-scalars-and-head store's side of the head replay: its rows' twin groups, picks
/// and scalars (no head weights shared by every position).
impl HeadRows for ScalarHead {
    type Row<'a> = Row<'a>;

    #[inline(always)]
    fn row(&self, i: usize) -> Row<'_> {
        let (counts, rest) = self.arena.record(i).split_at(2 * self.groups);
        let (picks, feats) = rest.split_at(self.picks);
        let s = self.scalars;
        Row {
            counts,
            picks,
            feats,
            scalars: &self.values[i * s..(i + 1) * s],
        }
    }

    fn pairs(&self) -> &Pairs {
        &self.pairs
    }

    fn head(&self) -> &Program {
        &self.head
    }

    fn head_params(&self) -> &[u32] {
        &[]
    }

    /// None: every input is the row's.
    fn fixed_inputs(&self, _: &[f64], _: &mut [f64]) {}

    /// Each group's sums, the picked weights of `w`, the scalars.
    #[inline(always)]
    fn row_inputs(
        &self,
        row: &Row<'_>,
        w: &[f64],
        twin: impl Fn(&[u16], &[u16]) -> [f64; 2],
        x: &mut [f64],
    ) {
        let (sums, rest) = x.split_at_mut(2 * self.groups);
        for (s, (units, general)) in sums.chunks_exact_mut(2).zip(row.groups()) {
            s.copy_from_slice(&twin(units, general));
        }
        let (picks, scalars) = rest.split_at_mut(self.picks);
        for (x, &p) in picks.iter_mut().zip(row.picks) {
            *x = w[usize::from(p)];
        }
        scalars.copy_from_slice(row.scalars);
    }

    /// Each group's `[middlegame, endgame]` gradient through `sink` (a group with none is
    /// skipped), the picks' into `grad`; all times `scale`.
    #[inline(always)]
    fn distribute(
        &self,
        row: &Row<'_>,
        gx: &[f64],
        scale: f64,
        sink: &mut impl PairSink,
        grad: &mut [f64],
    ) {
        for (g, (units, general)) in gx.chunks_exact(2).zip(row.groups()) {
            let d = [scale * g[0], scale * g[1]];
            if d == [0.0; 2] {
                continue;
            }
            distribute_twin(units, general, d, sink, grad);
        }
        let picks = &gx[2 * self.groups..2 * self.groups + self.picks];
        for (&p, &d) in row.picks.iter().zip(picks) {
            grad[usize::from(p)] += scale * d;
        }
    }
}

mod replay;
#[cfg(test)]
mod tests;
