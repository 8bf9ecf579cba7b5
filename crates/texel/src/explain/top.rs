//! The bounded top lists of the data pass ([`Candidate`], [`keep_top`]) and the sums of one
//! chunk of it ([`Tally`]).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::properties::PROPERTIES;

/// A candidate for a top list: position (sample index), coefficient, contribution, eval.
/// Ordered by how strongly it pulls: the larger |contribution| is greater, and of equal ones
/// the lower index, so a top list is the same whatever order the candidates come in.
#[derive(Clone, Copy, Debug)]
pub(super) struct Candidate {
    pub(super) index: u32,
    pub(super) coefficient: f64,
    pub(super) contribution: f64,
    pub(super) eval: f64,
}

impl Ord for Candidate {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.contribution
            .abs()
            .total_cmp(&o.contribution.abs())
            .then(o.index.cmp(&self.index))
    }
}

impl PartialOrd for Candidate {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

impl PartialEq for Candidate {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == std::cmp::Ordering::Equal
    }
}

impl Eq for Candidate {}

/// The `m` greatest candidates seen, the least of them on top.
pub(super) type Top = BinaryHeap<Reverse<Candidate>>;

/// Offers `c` to `top`, which keeps the `m` greatest.
pub(super) fn keep_top(top: &mut Top, c: Candidate, m: usize) {
    if top.len() < m {
        top.push(Reverse(c));
    } else if top.peek().is_some_and(|least| c > least.0) {
        top.pop();
        top.push(Reverse(c));
    }
}

/// The sums of one chunk of the data pass.
pub(super) struct Tally {
    pub(super) n: usize,
    pub(super) gradient: Vec<f64>,
    pub(super) touched: Vec<u32>,
    pub(super) top: Vec<Top>,
    pub(super) r: f64,
    pub(super) rr: f64,
    pub(super) x: Vec<f64>,
    pub(super) xx: Vec<f64>,
    pub(super) xr: Vec<f64>,
    pub(super) buckets: Vec<Vec<(usize, f64)>>,
}

impl Tally {
    pub(super) fn new(params: usize, tracked: usize) -> Tally {
        Tally {
            n: 0,
            gradient: vec![0.0; params],
            touched: vec![0; params],
            top: vec![Top::new(); tracked],
            r: 0.0,
            rr: 0.0,
            x: vec![0.0; PROPERTIES.len()],
            xx: vec![0.0; PROPERTIES.len()],
            xr: vec![0.0; PROPERTIES.len()],
            buckets: PROPERTIES
                .iter()
                .map(|p| vec![(0, 0.0); (p.hi - p.lo + 1) as usize])
                .collect(),
        }
    }

    pub(super) fn merge(mut self, o: Tally, m: usize) -> Tally {
        self.n += o.n;
        self.r += o.r;
        self.rr += o.rr;
        for (a, b) in [
            (&mut self.gradient, &o.gradient),
            (&mut self.x, &o.x),
            (&mut self.xx, &o.xx),
            (&mut self.xr, &o.xr),
        ] {
            a.iter_mut().zip(b).for_each(|(a, b)| *a += b);
        }
        self.touched
            .iter_mut()
            .zip(&o.touched)
            .for_each(|(a, b)| *a += b);
        for (a, b) in self.top.iter_mut().zip(o.top) {
            for c in b.into_vec() {
                keep_top(a, c.0, m);
            }
        }
        for (a, b) in self.buckets.iter_mut().zip(&o.buckets) {
            for (x, y) in a.iter_mut().zip(b) {
                x.0 += y.0;
                x.1 += y.1;
            }
        }
        self
    }
}
