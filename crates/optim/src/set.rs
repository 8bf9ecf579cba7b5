//! [`CompiledSet`]: every position's evaluation recorded once and compiled for replay.

use indicatif::ProgressBar;
use rayon::prelude::*;
use tape::{Program, Scalar, Scratch, Tape, Var};

use crate::headed::Headed;
use crate::phased::Phased;

/// A position's label: the game result from White's view (`1`, `0.5`, `0`) and, where the data
/// has one, a search score in centipawns from White's view.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Label {
    /// Result from White's view in `0..=1`.
    pub result: f64,
    /// Search score in centipawns from White's view, if the data carries one.
    pub score: Option<f32>,
    /// The game the position came from (any group id; `0` for all when unknown). Positions of
    /// one game are correlated, so the statistics that judge validation losses count a game,
    /// not a position, as one sample.
    pub game: u32,
}

/// Positions per parallel work item.
const CHUNK: usize = 2048;

/// Every position's evaluation `q_i(w)` recorded once, at load, and compiled: linear
/// evaluations are stored as one sparse row each (a CSR matrix), the others as
/// [`tape::Program`]s. A pass replays them for new weights without running the evaluation code.
///
/// Positions are numbered `0..len()`: the linear ones first, then the others. After
/// [`compact_phased`](Self::compact_phased), the linear positions whose rows are tapered
/// (middlegame, endgame) pairs come first, in a compact store. Positions recorded by
/// [`record_split`](Self::record_split) (linear sums and a shared head) follow the linear
/// ones, in their own compact store, before any general programs.
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
///     |i, _| Label { result: labels[i], score: None, game: 0 },
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
    // Then the positions split into sums and a shared head (position i - linear_len()).
    headed: Headed,
    // Then the general programs (position i - linear_len() - headed.len()).
    programs: Vec<Program>,
    labels: Vec<Label>,
}

/// One work item of [`CompiledSet::record_split`]: its compact rows with their labels, and
/// the positions that did not fit, as programs.
type SplitChunk = (Headed, Vec<Label>, Vec<(Label, Program)>);

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

    /// Records positions whose evaluation splits into linear sums and one shared non-linear
    /// head (see [`SplitSpec`] and [`eval::Model::split`]): `sums(index, item, out)` writes
    /// the item's sums' terms into `out` (or returns `false` to skip the item); `head(s, h)`
    /// computes the evaluation from the sums' values and the head weights. The head is
    /// recorded once; each position stores only its sums, compactly (about 3 bytes a term).
    /// Positions whose sums do not fit the compact form (a non-integer coefficient, say), or
    /// all of them if `spec` is unusable, are recorded as general programs of
    /// `head(dot(w, sum_0), ..)` instead: the same values, more memory.
    ///
    /// ```
    /// use optim::{CompiledSet, Label, SplitSpec};
    /// use tape::{Scalar, Var};
    ///
    /// // Parameters 0/1: a (middlegame, endgame) pair; 2: a danger input; 3: a head weight.
    /// // Evaluation: (s_mg + s_eg) / 2 - h * max(s_danger, 0).
    /// let spec = SplitSpec { sums: 3, twins: (0, 1), head_params: vec![3],
    ///                        eg_of: vec![Some(1), None, None, None], head_gradient: None };
    /// let items = vec![(2.0, 1.0), (-1.0, 3.0)];
    /// let set = CompiledSet::record_split(
    ///     &[10.0, 20.0, 1.0, 0.5],
    ///     &items,
    ///     |_, _| Label { result: 0.5, score: None, game: 0 },
    ///     |_, &(c, d), out| {
    ///         *out = vec![vec![(0, c)], vec![(1, c)], vec![(2, d)]];
    ///         true
    ///     },
    ///     &spec,
    ///     |s: &[Var], h: &[Var]| (s[0] + s[1]) * 0.5 - h[0] * s[2].max(Var::zero()),
    ///     None,
    /// );
    /// assert_eq!(set.headed_len(), 2);
    /// let mut q = vec![0.0; 2];
    /// set.scores(&[10.0, 20.0, 4.0, 0.5], &mut q);
    /// assert_eq!(q, vec![30.0 - 2.0, -15.0 - 6.0]);
    /// ```
    pub fn record_split<T, L, S, H>(
        start: &[f64],
        items: &[T],
        label: L,
        sums: S,
        spec: &SplitSpec,
        head: H,
        progress: Option<&ProgressBar>,
    ) -> CompiledSet
    where
        T: Sync,
        L: Fn(usize, &T) -> Label + Sync,
        S: Fn(usize, &T, &mut Vec<Vec<(u32, f64)>>) -> bool + Sync,
        H: Fn(&[Var], &[Var]) -> Var + Sync,
    {
        let k = spec.sums;
        let hp = &spec.head_params;
        let headed = (hp.iter().all(|&i| (i as usize) < start.len())
            && spec.eg_of.len() == start.len())
        .then(|| {
            let mut tape = Tape::new();
            let mut rec = tape.record();
            let x0: Vec<f64> = (0..k)
                .map(|_| 0.0)
                .chain(hp.iter().map(|&i| start[i as usize]))
                .collect();
            let x = rec.inputs(&x0);
            let y = head(&x[..k], &x[k..]);
            let program = rec.compile(y);
            Headed::new(
                &spec.eg_of,
                k,
                spec.twins,
                program,
                hp.clone(),
                spec.head_gradient,
            )
        })
        .flatten();
        // Records one item as a general program.
        let general = |terms: &[Vec<(u32, f64)>], rec: &mut tape::Recording<'_>, w: &[Var]| {
            let s: Vec<Var> = terms.iter().map(|t| Var::dot(w, t)).collect();
            let h: Vec<Var> = hp.iter().map(|&i| w[i as usize]).collect();
            rec.compile(head(&s, &h))
        };
        let chunks: Vec<SplitChunk> = items
            .par_chunks(CHUNK)
            .enumerate()
            .map(|(c, chunk)| {
                let mut tape = Tape::new();
                let mut rec = tape.record();
                let w = rec.inputs(start);
                let mark = rec.mark();
                let mut local = headed.as_ref().map(Headed::empty_like).unwrap_or_default();
                let mut labels = Vec::new();
                let mut programs = Vec::new();
                let mut terms = Vec::new();
                for (j, item) in chunk.iter().enumerate() {
                    let i = c * CHUNK + j;
                    if !sums(i, item, &mut terms) || terms.len() != k {
                        continue;
                    }
                    if headed.is_some() && local.try_push(&terms) {
                        labels.push(label(i, item));
                    } else {
                        programs.push((label(i, item), general(&terms, &mut rec, &w)));
                        rec.rewind(mark);
                    }
                }
                if let Some(pb) = progress {
                    pb.inc(chunk.len() as u64);
                }
                (local, labels, programs)
            })
            .collect();
        let mut set = CompiledSet {
            params: start.len(),
            offsets: vec![0],
            headed: headed.as_ref().map(Headed::empty_like).unwrap_or_default(),
            ..CompiledSet::default()
        };
        let mut programs = Vec::new();
        for (local, labels, p) in chunks {
            if set.headed.append(&local) {
                set.labels.extend(labels);
            } else {
                // Past 2^32 arena entries: the chunk's rows become general programs.
                let mut tape = Tape::new();
                let mut rec = tape.record();
                let w = rec.inputs(start);
                let mark = rec.mark();
                for (i, l) in labels.into_iter().enumerate() {
                    programs.push((l, general(&local.sums_of(i), &mut rec, &w)));
                    rec.rewind(mark);
                }
            }
            programs.extend(p);
        }
        set.headed.shrink();
        for (label, p) in programs {
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

    /// Number of positions held in the compact sums-and-head store (see
    /// [`record_split`](Self::record_split)); they follow the linear positions.
    pub fn headed_len(&self) -> usize {
        self.headed.len()
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
            + self.headed.heap_bytes()
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
        set.headed = self.headed.empty_like();
        let p = self.phased_len();
        let l = self.linear_len();
        let h = l + self.headed.len();
        let (lin, prog): (Vec<usize>, Vec<usize>) = keep.iter().partition(|&&i| i < l);
        let (ph, lin): (Vec<usize>, Vec<usize>) = lin.iter().partition(|&&i| i < p);
        let (hd, prog): (Vec<usize>, Vec<usize>) = prog.iter().partition(|&&i| i < h);
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
        for i in hd {
            set.headed.push_from(&self.headed, i - l);
            set.labels.push(self.labels[i]);
        }
        for i in prog {
            set.programs.push(self.programs[i - h].clone());
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
        } else if i < l + self.headed.len() {
            self.headed.score(i - l, w, scratch)
        } else {
            self.programs[i - l - self.headed.len()].forward(w, scratch)
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
        } else if i < l + self.headed.len() {
            self.headed.add_gradient(i - l, seed, scratch, grad);
        } else {
            self.programs[i - l - self.headed.len()].backward(seed, scratch, grad);
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
        let (l, h) = (self.linear_len(), self.linear_len() + self.headed.len());
        let wh = std::sync::OnceLock::new();
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
                // So do the rows split into sums and a head, after the general linear rows.
                if order.is_none() && a < b && a < h {
                    let end = b.min(l).max(a);
                    sum += self.generic(w, a..end, want, &f, &mut scratch, &mut g);
                    a = end;
                    // Here a < b implies l <= a < h.
                    if a < b {
                        let end = b.min(h);
                        let wh = wh.get_or_init(|| self.headed.gather(w));
                        let mut gp = Box::new([[0.0; 2]; crate::phased::MAX_PAIRS]);
                        let f = |i: usize, q: f64| f(i + l, q);
                        sum += self.headed.sweep(
                            w,
                            wh,
                            a - l..end - l,
                            want,
                            &f,
                            &mut gp,
                            &mut g,
                            &mut scratch,
                        );
                        if want {
                            self.headed.scatter(&gp, &mut g);
                        }
                        a = end;
                    }
                }
                let fl = |i: usize, q: f64| f(i + l, q);
                for k in a..b {
                    let i = order.map_or(k, |o| o[k]);
                    if i >= l && i < h {
                        sum += self.headed.visit(i - l, w, want, &fl, &mut scratch, &mut g);
                        continue;
                    }
                    let q = self.score(i, w, &mut scratch);
                    let (l, d) = f(i, q);
                    sum += l;
                    if want && d != 0.0 {
                        self.add_gradient(i, d, &mut scratch, &mut g);
                    }
                }
                (sum, g)
            })
            .collect::<Vec<_>>()
            .into_iter()
            // Added in chunk order, not in whatever tree rayon's work stealing made: the same
            // data, weights and thread count give the same bits on every run.
            .fold((0.0, Vec::new()), |(s1, mut g1), (s2, g2)| {
                if g1.is_empty() {
                    return (s1 + s2, g2);
                }
                for (x, y) in g1.iter_mut().zip(&g2) {
                    *x += y;
                }
                (s1 + s2, g1)
            });
        if let Some(grad) = grad {
            for (x, y) in grad.iter_mut().zip(&g) {
                *x += y;
            }
        }
        sum
    }

    /// Positions `range` one by one (score, loss, gradient), for [`pass`](Self::pass).
    fn generic<F>(
        &self,
        w: &[f64],
        range: std::ops::Range<usize>,
        want: bool,
        f: &F,
        scratch: &mut Scratch,
        g: &mut [f64],
    ) -> f64
    where
        F: Fn(usize, f64) -> (f64, f64),
    {
        let mut sum = 0.0;
        for i in range {
            let q = self.score(i, w, scratch);
            let (l, d) = f(i, q);
            sum += l;
            if want && d != 0.0 {
                self.add_gradient(i, d, scratch, g);
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

/// How positions' evaluations split into linear sums and one shared non-linear head, for
/// [`CompiledSet::record_split`] (see also [`eval::Model::split`]).
#[derive(Clone, Debug)]
pub struct SplitSpec {
    /// Number of linear sums per position.
    pub sums: usize,
    /// The two sums that are tapered twins: term `k` of the first is `(m, c)` and term `k` of
    /// the second `(e, c)`, with `eg_of[m] == Some(e)`.
    pub twins: (usize, usize),
    /// The weights the head reads, in order.
    pub head_params: Vec<u32>,
    /// The (middlegame, endgame) pairing of the parameters, as
    /// [`CompiledSet::compact_phased`] takes it.
    pub eg_of: Vec<Option<usize>>,
    /// The head's value and gradient on `f64`, if written by hand (as
    /// [`eval::Split::head_gradient`]): `head_gradient(s, h, grad)` returns the value and
    /// writes the derivatives by the sums, then by the head weights, into `grad`. Passes use
    /// it instead of replaying the recorded head; it must equal the head's derivative.
    pub head_gradient: Option<HeadGradient>,
}

/// The type of [`SplitSpec::head_gradient`].
pub type HeadGradient = fn(s: &[f64], h: &[f64], grad: &mut [f64]) -> f64;

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
