//! The Jacobian of a set at one point, [`CompiledSet::jacobian`], as [`SparseRows`]: what the
//! Gauss-Newton matrix is summed from.

use rayon::prelude::*;
use tape::Scratch;

use super::compiled::{CompiledSet, CHUNK};
use crate::stop::Stop;
use crate::store::{each_store, Store};

impl CompiledSet {
    /// The gradient rows `dq_i/dw` at `w` of the positions whose store does not hold them as
    /// sparse rows (the compact stores expand theirs, programs take one reverse sweep each), in
    /// position order; the others are [`linear_row`](Self::linear_row). Use
    /// [`row`](Self::row) to read any of them.
    ///
    /// Abandoned once `stop` says so (e.g. Ctrl-C): each chunk of rows asks it before it
    /// starts, so the build ends within one chunk's rows per thread (2,048 reverse sweeps).
    /// `None` when abandoned (or told to stop already).
    ///
    /// ```
    /// use std::sync::atomic::AtomicBool;
    /// use tapered::{CompiledSet, Stop, Target};
    /// use tape::Scalar;
    ///
    /// let items = vec![vec![(0u32, 1.0)], vec![(0, 2.0)]];
    /// let set = CompiledSet::record(&[1.0], &items,
    ///     |_, _| Target { value: 1.0, score: None, group: 0 },
    ///     |_, f, w| Some(tape::Var::dot(w, f)), None);
    /// assert!(set.jacobian(&[1.0], Stop::from(&AtomicBool::new(true))).is_none());
    /// let jac = set.jacobian(&[1.0], Stop::from(&AtomicBool::new(false))).unwrap();
    /// assert_eq!(jac.rows(), set.jacobian(&[1.0], Stop::Never).unwrap().rows());
    /// ```
    pub fn jacobian(&self, w: &[f64], stop: Stop<'_>) -> Option<SparseRows> {
        if stop.now() {
            return None;
        }
        let n = self.params;
        let mut m = SparseRows {
            offsets: vec![0],
            idx: Vec::new(),
            coef: Vec::new(),
        };
        for s in self.segments.iter().filter(|s| s.jacobian_start.is_some()) {
            // A group of chunks at a time, each chunk's rows made in parallel into its own flat
            // buffers and appended in order: the memory is the matrix and one group's rows.
            let len = s.store.len();
            for group in (0..len).step_by(JACOBIAN_GROUP) {
                let end = (group + JACOBIAN_GROUP).min(len);
                let parts: Vec<SparseRows> = (group..end)
                    .into_par_iter()
                    .step_by(CHUNK)
                    .map(|a| {
                        if stop.now() {
                            return None;
                        }
                        let mut part = SparseRows::default();
                        let (mut scratch, mut dense) = (Scratch::default(), vec![0.0; n]);
                        for i in a..(a + CHUNK).min(end) {
                            let (idx, coef) = (&mut part.idx, &mut part.coef);
                            each_store!(&s.store, st => Store::jacobian_row(
                                st, i, w, &mut scratch, &mut dense, idx, coef,
                            ));
                            part.offsets.push(part.idx.len());
                        }
                        Some(part)
                    })
                    .collect::<Option<_>>()?;
                for part in parts {
                    let base = m.idx.len();
                    m.offsets.extend(part.offsets.iter().map(|o| o + base));
                    m.idx.extend_from_slice(&part.idx);
                    m.coef.extend_from_slice(&part.coef);
                }
            }
        }
        m.idx.shrink_to_fit();
        m.coef.shrink_to_fit();
        Some(m)
    }
}

/// Positions whose Jacobian rows [`CompiledSet::jacobian`] makes at a time.
const JACOBIAN_GROUP: usize = 64 * CHUNK;

/// A sparse matrix by rows (CSR): the Jacobian `dq_i/dw` of a set at one point.
#[derive(Clone, Debug, Default)]
pub struct SparseRows {
    offsets: Vec<usize>,
    idx: Vec<u32>,
    coef: Vec<f64>,
}

impl SparseRows {
    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Row `i` as (column, value) slices.
    #[inline(always)]
    pub fn row(&self, i: usize) -> (&[u32], &[f64]) {
        let (a, b) = (self.offsets[i], self.offsets[i + 1]);
        (&self.idx[a..b], &self.coef[a..b])
    }
}
