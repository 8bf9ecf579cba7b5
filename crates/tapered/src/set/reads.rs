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
        store::reads::reads(&s.store, k, out)
    }

    /// For a position of the phased store, a linear row `c + sum_k s_k (a w[m_k] + b
    /// w[e_k])`: its factors `[a, b]`, with its terms `(m_k, e_k, s_k)` appended to `out`
    /// (`m_k == e_k` for a single, whose coefficient is `s_k (a + b)`). `None` (nothing
    /// appended) for a position of any other store. A step of `d` on `w[m_k]` moves the
    /// evaluation by `d s_k a` (by `d s_k b` on `w[e_k]`): the integer polish moves kept
    /// evaluations so, without scoring them afresh.
    ///
    /// ```
    /// use tapered::{CompiledSet, Counts, Target};
    ///
    /// // Parameters 0/1: a (middlegame, endgame) pair; one position, 3 of it, phase 1/4.
    /// let set = CompiledSet::record_counts(
    ///     2, &[()], |_, _| Target { value: 0.5, score: None, group: 0 },
    ///     |_, _, c: &mut Counts| { c.counts.push((0, 3.0)); (c.mg, c.eg) = (0.25, 0.75); true },
    ///     |_, _, _| 0.0, &[Some(1), None], None);
    /// let mut terms = Vec::new();
    /// assert_eq!(set.tapered_terms(0, &mut terms), Some([0.25, 0.75]));
    /// assert_eq!(terms, vec![(0, 1, 3.0)]);
    /// ```
    ///
    /// # Panics
    ///
    /// If `i >= len()`.
    pub fn tapered_terms(&self, i: usize, out: &mut Vec<(u32, u32, f64)>) -> Option<[f64; 2]> {
        let (s, k) = self.locate(i);
        store::reads::tapered_terms(&s.store, k, out)
    }
}
