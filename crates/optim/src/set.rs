//! [`CompiledSet`]: every position's evaluation recorded once and compiled for replay.

use indicatif::ProgressBar;
use rayon::prelude::*;
use tape::{Program, Scratch, Tape, Var};

use crate::phased::Phased;

/// A position's label: the game result from White's view (`1`, `0.5`, `0`) and, where the data
/// has one, a search score in centipawns from White's view.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Label {
    /// Result from White's view in `0..=1`.
    pub result: f64,
    /// Search score in centipawns from White's view, if the data carries one.
    pub score: Option<f32>,
}

/// Positions per parallel work item.
const CHUNK: usize = 2048;

/// Every position's evaluation `q_i(w)` recorded once, at load, and compiled: linear
/// evaluations are stored as one sparse row each (a CSR matrix), the others as
/// [`tape::Program`]s. A pass replays them for new weights without running the evaluation code.
///
/// Positions are numbered `0..len()`: the linear ones first, then the others. After
/// [`compact_phased`](Self::compact_phased), the linear positions whose rows are tapered
/// (middlegame, endgame) pairs come first, in a compact store.
///
/// ```
/// use optim::{CompiledSet, Label};
/// use tape::Scalar;
///
/// // Two "positions", each a list of features; the evaluation is linear in the weights.
/// let items = vec![vec![(0u32, 1.0), (1, -1.0)], vec![(1, 2.0)]];
/// let labels = [1.0, 0.0];
/// let set = CompiledSet::record(
///     &[100.0, 300.0],
///     &items,
///     |i, _| Label { result: labels[i], score: None },
///     |_, features, w| Some(tape::Var::dot(w, features)),
///     None,
/// );
/// assert_eq!(set.len(), 2);
/// let mut q = vec![0.0; 2];
/// set.scores(&[10.0, 20.0], &mut q);
/// assert_eq!(q, vec![-10.0, 40.0]);
/// ```
#[derive(Clone, Debug, Default)]
pub struct CompiledSet {
    params: usize,
    // The first phased.len() positions: compact tapered rows.
    phased: Phased,
    // Then the other linear positions (row i - phased.len()): q = konst[i] + sum coef[k] * w[idx[k]] for k in offsets[i]..offsets[i+1].
    offsets: Vec<u32>,
    idx: Vec<u32>,
    coef: Vec<f64>,
    konst: Vec<f64>,
    programs: Vec<Program>,
    labels: Vec<Label>,
}

/// One recorded position, before it is stored.
enum Recorded {
    Linear(f64, Vec<(u32, f64)>),
    Program(Program),
}

impl CompiledSet {
    /// Records `eval(index, item, weights)` for every item (skipping those for which it returns
    /// `None`), in parallel with one tape per work item, and compiles each evaluation.
    ///
    /// `start` gives the number of parameters and the values they are recorded at (which only
    /// matters for evaluations whose control flow depends on the weights). `progress`, if
    /// given, advances by one per item.
    pub fn record<T, L, E>(
        start: &[f64],
        items: &[T],
        label: L,
        eval: E,
        progress: Option<&ProgressBar>,
    ) -> CompiledSet
    where
        T: Sync,
        L: Fn(usize, &T) -> Label + Sync,
        E: Fn(usize, &T, &[Var]) -> Option<Var> + Sync,
    {
        let chunks: Vec<Vec<(Label, Recorded)>> = items
            .par_chunks(CHUNK)
            .enumerate()
            .map(|(c, chunk)| {
                let mut tape = Tape::new();
                let mut rec = tape.record();
                let w = rec.inputs(start);
                let mark = rec.mark();
                let mut out = Vec::with_capacity(chunk.len());
                for (j, item) in chunk.iter().enumerate() {
                    let i = c * CHUNK + j;
                    if let Some(q) = eval(i, item, &w) {
                        let program = rec.compile(q);
                        let linear = program
                            .linear_terms()
                            .map(|(k, terms)| (k, terms.collect::<Vec<_>>()));
                        let recorded = match linear {
                            Some((k, terms)) => Recorded::Linear(k, terms),
                            None => Recorded::Program(program),
                        };
                        out.push((label(i, item), recorded));
                    }
                    rec.rewind(mark);
                }
                if let Some(pb) = progress {
                    pb.inc(chunk.len() as u64);
                }
                out
            })
            .collect();
        let mut set = CompiledSet {
            params: start.len(),
            offsets: vec![0],
            ..CompiledSet::default()
        };
        let mut nonlinear = Vec::new();
        for (label, r) in chunks.into_iter().flatten() {
            match r {
                Recorded::Linear(k, terms) => {
                    set.konst.push(k);
                    for (i, c) in terms {
                        set.idx.push(i);
                        set.coef.push(c);
                    }
                    set.offsets.push(set.idx.len() as u32);
                    set.labels.push(label);
                }
                Recorded::Program(p) => nonlinear.push((label, p)),
            }
        }
        for (label, p) in nonlinear {
            set.labels.push(label);
            set.programs.push(p);
        }
        set
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    /// Whether there are no positions.
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    /// Number of parameters the evaluations were recorded with.
    pub fn params(&self) -> usize {
        self.params
    }

    /// Number of positions whose evaluation is linear in the weights.
    pub fn linear_len(&self) -> usize {
        self.phased.len() + self.konst.len()
    }

    /// Number of positions held in the compact phased store (see
    /// [`compact_phased`](Self::compact_phased)).
    pub fn phased_len(&self) -> usize {
        self.phased.len()
    }

    /// Moves every linear row that is a tapered sum of (middlegame, endgame) pairs into a
    /// compact exact store: a phase per position and 2 bytes per pair. `eg_of[i] = Some(e)`
    /// says that parameter `i` is a middlegame weight whose endgame twin is `e`. Rows that do not
    /// decompose stay as they are. Positions are renumbered (the phased ones first), labels
    /// with them.
    pub fn compact_phased(&mut self, eg_of: &[Option<usize>]) {
        if eg_of.len() != self.params || self.phased.len() > 0 || self.konst.is_empty() {
            return;
        }
        let Some(mut phased) = Phased::new(eg_of) else {
            return;
        };
        let rows = self.konst.len();
        let mut rest = Vec::new();
        for i in 0..rows {
            let (a, b) = (self.offsets[i] as usize, self.offsets[i + 1] as usize);
            if !phased.try_push(self.konst[i], &self.idx[a..b], &self.coef[a..b]) {
                rest.push(i);
            }
        }
        phased.shrink();
        let mut labels = Vec::with_capacity(self.labels.len());
        let mut offsets = vec![0u32];
        let (mut idx, mut coef, mut konst) = (Vec::new(), Vec::new(), Vec::new());
        let mut is_rest = vec![false; rows];
        for &i in &rest {
            is_rest[i] = true;
        }
        labels.extend((0..rows).filter(|&i| !is_rest[i]).map(|i| self.labels[i]));
        for &i in &rest {
            let (a, b) = (self.offsets[i] as usize, self.offsets[i + 1] as usize);
            idx.extend_from_slice(&self.idx[a..b]);
            coef.extend_from_slice(&self.coef[a..b]);
            offsets.push(idx.len() as u32);
            konst.push(self.konst[i]);
            labels.push(self.labels[i]);
        }
        labels.extend_from_slice(&self.labels[rows..]);
        self.phased = phased;
        self.offsets = offsets;
        self.idx = idx;
        self.coef = coef;
        self.konst = konst;
        self.labels = labels;
    }

    /// The labels, in position order.
    pub fn labels(&self) -> &[Label] {
        &self.labels
    }

    /// Bytes of heap memory held.
    pub fn heap_bytes(&self) -> usize {
        self.phased.heap_bytes()
            + self.offsets.capacity() * 4
            + self.idx.capacity() * 4
            + self.coef.capacity() * 8
            + self.konst.capacity() * 8
            + self.labels.capacity() * std::mem::size_of::<Label>()
            + self.programs.iter().map(Program::heap_bytes).sum::<usize>()
    }

    /// The subset of positions `keep` (in that order).
    pub fn subset(&self, keep: &[usize]) -> CompiledSet {
        let mut set = CompiledSet {
            params: self.params,
            phased: self.phased.empty_like(),
            offsets: vec![0],
            ..CompiledSet::default()
        };
        let p = self.phased_len();
        let l = self.linear_len();
        let (lin, prog): (Vec<usize>, Vec<usize>) = keep.iter().partition(|&&i| i < l);
        let (ph, lin): (Vec<usize>, Vec<usize>) = lin.iter().partition(|&&i| i < p);
        for i in ph {
            set.phased.push_from(&self.phased, i);
            set.labels.push(self.labels[i]);
        }
        for i in lin {
            let i = i - p;
            let (a, b) = (self.offsets[i] as usize, self.offsets[i + 1] as usize);
            set.idx.extend_from_slice(&self.idx[a..b]);
            set.coef.extend_from_slice(&self.coef[a..b]);
            set.offsets.push(set.idx.len() as u32);
            set.konst.push(self.konst[i]);
            set.labels.push(self.labels[i + p]);
        }
        for i in prog {
            set.programs.push(self.programs[i - l].clone());
            set.labels.push(self.labels[i]);
        }
        set
    }

    /// The evaluation of position `i` at weights `w`, with the scratch a non-linear one needs.
    #[inline(always)]
    pub fn score(&self, i: usize, w: &[f64], scratch: &mut Scratch) -> f64 {
        let p = self.phased.len();
        let l = self.linear_len();
        if i < p {
            self.phased.score(i, w)
        } else if i < l {
            let i = i - p;
            let (a, b) = (self.offsets[i] as usize, self.offsets[i + 1] as usize);
            let mut s = self.konst[i];
            for k in a..b {
                s += self.coef[k] * w[self.idx[k] as usize];
            }
            s
        } else {
            self.programs[i - l].forward(w, scratch)
        }
    }

    /// Adds `seed * dq_i/dw` into `grad`, at the weights of the last [`score`](Self::score) of
    /// position `i` with this scratch.
    #[inline(always)]
    pub fn add_gradient(&self, i: usize, seed: f64, scratch: &mut Scratch, grad: &mut [f64]) {
        let p = self.phased.len();
        let l = self.linear_len();
        if i < p {
            self.phased.add_gradient(i, seed, grad);
        } else if i < l {
            let i = i - p;
            let (a, b) = (self.offsets[i] as usize, self.offsets[i + 1] as usize);
            for k in a..b {
                grad[self.idx[k] as usize] += seed * self.coef[k];
            }
        } else {
            self.programs[i - l].backward(seed, scratch, grad);
        }
    }

    /// The sparse gradient row of a linear position held in the general sparse form, `None`
    /// for a non-linear one or one in the compact phased store (read those with
    /// [`row`](Self::row)).
    pub fn linear_row(&self, i: usize) -> Option<(&[u32], &[f64])> {
        let p = self.phased.len();
        (i >= p && i < self.linear_len()).then(|| {
            let i = i - p;
            let (a, b) = (self.offsets[i] as usize, self.offsets[i + 1] as usize);
            (&self.idx[a..b], &self.coef[a..b])
        })
    }

    /// The gradient row of position `i`, from the set for a linear position in the sparse form
    /// and from `jacobian` (made by [`jacobian`](Self::jacobian)) for the others.
    #[inline(always)]
    pub fn row<'a>(&'a self, i: usize, jacobian: &'a SparseRows) -> (&'a [u32], &'a [f64]) {
        let p = self.phased.len();
        match self.linear_row(i) {
            Some(r) => r,
            None if i < p => jacobian.row(i),
            None => jacobian.row(p + i - self.linear_len()),
        }
    }

    /// Every position's evaluation at `w`, written into `out` (one pass, in parallel).
    ///
    /// # Panics
    ///
    /// If `out.len() != self.len()` or `w` is shorter than [`params`](Self::params).
    pub fn scores(&self, w: &[f64], out: &mut [f64]) {
        assert_eq!(out.len(), self.len(), "one score per position");
        out.par_chunks_mut(CHUNK).enumerate().for_each_init(
            Scratch::default,
            |scratch, (c, chunk)| {
                for (j, o) in chunk.iter_mut().enumerate() {
                    *o = self.score(c * CHUNK + j, w, scratch);
                }
            },
        );
    }

    /// One pass over positions `range`: `f(i, q_i)` returns the position's loss and `dL/dq_i`;
    /// returns the sum of the losses and, if `grad` is given, adds `sum dL/dq_i dq_i/dw` into it.
    /// Parallel over chunks, with one gradient buffer and one scratch per chunk.
    ///
    /// With `order`, the pass visits positions `order[k]` for `k` in `range` instead.
    pub fn pass<F>(
        &self,
        w: &[f64],
        range: std::ops::Range<usize>,
        order: Option<&[usize]>,
        grad: Option<&mut [f64]>,
        f: F,
    ) -> f64
    where
        F: Fn(usize, f64) -> (f64, f64) + Sync,
    {
        let n = self.params;
        let len = range.end.saturating_sub(range.start);
        if len == 0 {
            return 0.0;
        }
        let threads = rayon::current_num_threads().max(1);
        let chunk = (len / (threads * 4)).max(CHUNK);
        let chunks = len.div_ceil(chunk);
        let want = grad.is_some();
        // Phased rows visited in order take the fast sweep over by-pair weights.
        let p = self.phased.len();
        let wp = (order.is_none() && range.start < p).then(|| self.phased.gather(w));
        let (sum, g) = (0..chunks)
            .into_par_iter()
            .map(|c| {
                let a = range.start + c * chunk;
                let b = (a + chunk).min(range.end);
                let mut scratch = Scratch::default();
                let mut g = if want { vec![0.0; n] } else { Vec::new() };
                let mut sum = 0.0;
                let mut a = a;
                if let Some(wp) = wp.as_deref() {
                    if a < p {
                        let end = b.min(p);
                        let mut gp = Box::new([[0.0; 2]; crate::phased::MAX_PAIRS]);
                        sum += self.phased.sweep(wp, a..end, want, &f, &mut gp);
                        if want {
                            self.phased.scatter(&gp, &mut g);
                        }
                        a = end;
                    }
                }
                for k in a..b {
                    let i = order.map_or(k, |o| o[k]);
                    let q = self.score(i, w, &mut scratch);
                    let (l, d) = f(i, q);
                    sum += l;
                    if want && d != 0.0 {
                        self.add_gradient(i, d, &mut scratch, &mut g);
                    }
                }
                (sum, g)
            })
            .reduce(
                || (0.0, Vec::new()),
                |(s1, mut g1), (s2, g2)| {
                    if g1.is_empty() {
                        return (s1 + s2, g2);
                    }
                    for (x, y) in g1.iter_mut().zip(&g2) {
                        *x += y;
                    }
                    (s1 + s2, g1)
                },
            );
        if let Some(grad) = grad {
            for (x, y) in grad.iter_mut().zip(&g) {
                *x += y;
            }
        }
        sum
    }

    /// The gradient rows `dq_i/dw` at `w` of the phased positions (rows `0..phased_len()`,
    /// expanded from the compact store) and of the non-linear positions (row
    /// `phased_len() + k` is position `linear_len() + k`, found by one reverse sweep each);
    /// the other linear positions' rows are [`linear_row`](Self::linear_row). Use
    /// [`row`](Self::row) to read any of them.
    pub fn jacobian(&self, w: &[f64]) -> SparseRows {
        let n = self.params;
        let phased: Vec<(Vec<u32>, Vec<f64>)> = (0..self.phased.len())
            .into_par_iter()
            .map(|i| {
                let (mut idx, mut coef) = (Vec::new(), Vec::new());
                self.phased.row_into(i, &mut idx, &mut coef);
                (idx, coef)
            })
            .collect();
        let rows: Vec<(Vec<u32>, Vec<f64>)> = (self.linear_len()..self.len())
            .into_par_iter()
            .map_init(
                || (Scratch::default(), vec![0.0; n]),
                |(scratch, dense), i| {
                    self.score(i, w, scratch);
                    self.add_gradient(i, 1.0, scratch, dense);
                    let mut idx = Vec::new();
                    let mut coef = Vec::new();
                    for (k, d) in dense.iter_mut().enumerate() {
                        if *d != 0.0 {
                            idx.push(k as u32);
                            coef.push(*d);
                            *d = 0.0;
                        }
                    }
                    (idx, coef)
                },
            )
            .collect();
        let mut m = SparseRows {
            offsets: Vec::with_capacity(rows.len() + 1),
            idx: Vec::new(),
            coef: Vec::new(),
        };
        m.offsets.push(0);
        for (idx, coef) in phased.into_iter().chain(rows) {
            m.idx.extend(idx);
            m.coef.extend(coef);
            m.offsets.push(m.idx.len());
        }
        m
    }
}

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
