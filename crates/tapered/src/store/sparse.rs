//! [`Sparse`]: linear rows as they are recorded, `q = konst + sum coef[k] w[idx[k]]` (CSR).

use tape::Scratch;

use super::interface::Store;
use super::kind::StoreKind;
use super::reason::{count_reasons, Examples, Reason, Refusal};

/// Linear rows in compressed sparse row form; row `i` is terms `offsets[i]..offsets[i + 1]`.
#[derive(Clone, Debug)]
pub(crate) struct Sparse {
    offsets: Vec<u32>,
    idx: Vec<u32>,
    coef: Vec<f64>,
    konst: Vec<f64>,
    /// Per row, why the phased store refused it (`None`: not tried).
    reasons: Vec<Option<Reason>>,
    /// The first refusal of each reason, naming its parameter.
    examples: Examples,
}

impl Default for Sparse {
    fn default() -> Self {
        Sparse {
            offsets: vec![0],
            idx: Vec::new(),
            coef: Vec::new(),
            konst: Vec::new(),
            reasons: Vec::new(),
            examples: Examples::default(),
        }
    }
}

impl Sparse {
    /// Appends the row `konst + sum c w[i]` over `terms`, refused by a faster store for
    /// `why` (if any).
    pub(crate) fn push(
        &mut self,
        konst: f64,
        terms: impl IntoIterator<Item = (u32, f64)>,
        why: Option<Refusal>,
    ) {
        if let Some(r) = why {
            self.examples.note(r);
        }
        let reason = why.map(|r| r.reason);
        for (i, c) in terms {
            self.idx.push(i);
            self.coef.push(c);
        }
        self.offsets.push(self.idx.len() as u32);
        self.konst.push(konst);
        self.reasons.push(reason);
    }

    /// Row `i`: its constant, indices and coefficients.
    #[inline(always)]
    pub(crate) fn row(&self, i: usize) -> (f64, &[u32], &[f64]) {
        let (a, b) = (self.offsets[i] as usize, self.offsets[i + 1] as usize);
        (self.konst[i], &self.idx[a..b], &self.coef[a..b])
    }

    /// Row `i` again, refused by a faster store for `reason`, into `out`.
    pub(crate) fn push_row_to(&self, i: usize, out: &mut Sparse, reason: Option<Reason>) {
        let (k, idx, coef) = self.row(i);
        out.push(
            k,
            idx.iter().copied().zip(coef.iter().copied()),
            reason.map(Refusal::from),
        );
    }

    /// Appends every row of `other`; `false` (and nothing appended) if the offsets would
    /// outgrow 32 bits.
    pub(crate) fn append(&mut self, other: &Sparse) -> bool {
        let base = self.idx.len();
        if base + other.idx.len() > u32::MAX as usize {
            return false;
        }
        self.idx.extend_from_slice(&other.idx);
        self.coef.extend_from_slice(&other.coef);
        let ends = other.offsets.iter().skip(1);
        self.offsets.extend(ends.map(|&o| o + base as u32));
        self.konst.extend_from_slice(&other.konst);
        self.reasons.extend_from_slice(&other.reasons);
        self.examples.merge(&other.examples);
        true
    }

    /// Releases spare capacity.
    pub(crate) fn shrink(&mut self) {
        self.offsets.shrink_to_fit();
        self.idx.shrink_to_fit();
        self.coef.shrink_to_fit();
        self.konst.shrink_to_fit();
        self.reasons.shrink_to_fit();
    }
}

impl Store for Sparse {
    const KIND: StoreKind = StoreKind::Sparse;

    fn len(&self) -> usize {
        self.konst.len()
    }

    fn heap_bytes(&self) -> usize {
        self.offsets.capacity() * 4
            + self.idx.capacity() * 4
            + self.coef.capacity() * 8
            + self.konst.capacity() * 8
            + self.reasons.capacity() * std::mem::size_of::<Option<Reason>>()
    }

    #[inline(always)]
    fn score(&self, i: usize, w: &[f64], _: &mut Scratch) -> f64 {
        let (mut s, idx, coef) = self.row(i);
        for (&j, &c) in idx.iter().zip(coef) {
            s += c * w[j as usize];
        }
        s
    }

    #[inline(always)]
    fn add_gradient(&self, i: usize, seed: f64, _: &mut Scratch, grad: &mut [f64]) {
        let (_, idx, coef) = self.row(i);
        for (&j, &c) in idx.iter().zip(coef) {
            grad[j as usize] += seed * c;
        }
    }

    fn subset(&self, keep: &[usize]) -> Sparse {
        let mut out = Sparse::default();
        for &i in keep {
            self.push_row_to(i, &mut out, self.reasons[i]);
        }
        out.examples = self.examples.clone();
        out
    }

    fn stored_row(&self, i: usize) -> Option<(&[u32], &[f64])> {
        let (_, idx, coef) = self.row(i);
        Some((idx, coef))
    }

    fn fallbacks(&self) -> Vec<(Refusal, usize)> {
        self.examples
            .with(count_reasons(self.reasons.iter().copied()))
    }
}
