//! [`CompiledSet::reads`]: the parameters a position's evaluation reads (the stores' part is
//! `store/reads.rs`).

use super::compiled::CompiledSet;
use crate::store;

impl CompiledSet {
    /// Appends to `out` every parameter position `i`'s evaluation reads (some maybe more than
    /// once, in any order), as the record says, whatever the weights: a change of any other
    /// parameter leaves its value exactly as it is (the same bits from
    /// [`score`](Self::score)). For a linear position its terms (both weights of a tapered
    /// pair, even where a phase factor is 0), for a position of the sums-scalars-and-head store
    /// its twin groups' pairs and its picks. `false` (nothing appended) if its store cannot
    /// tell (general programs, the sums-and-head store): any parameter may change it.
    ///
    /// An incremental pass (the integer polish) builds from it an index of the positions each
    /// parameter changes, and re-evaluates only those when one parameter moves.
    ///
    /// ```
    /// use tapered::{CompiledSet, Target};
    /// use tape::Scalar;
    ///
    /// let items = vec![vec![(0u32, 1.0), (2, -1.0)], vec![(1, 2.0)]];
    /// let set = CompiledSet::record(&[0.0; 3], &items,
    ///     |_, _| Target { value: 0.5, score: None, group: 0 },
    ///     |_, f, w| Some(tape::Var::dot(w, f)), None);
    /// let mut out = Vec::new();
    /// assert!(set.reads(0, &mut out));
    /// out.sort_unstable();
    /// assert_eq!(out, vec![0, 2]);
    /// ```
    ///
    /// # Panics
    ///
    /// If `i >= len()`.
    pub fn reads(&self, i: usize, out: &mut Vec<u32>) -> bool {
        let (s, k) = self.locate(i);
        store::reads(&s.store, k, out)
    }
}
