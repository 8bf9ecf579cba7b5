//! Block replay: a [`Program`] replayed for [`LANES`] input vectors at once, every node's value
//! and partials kept as one lane vector, so that the walk over the nodes and their affine
//! combinations is paid once a block, not once a position, and the arithmetic runs over
//! contiguous lanes.
//!
//! Each lane computes exactly what [`Program::forward`] and [`Program::backward`] compute for
//! its inputs, the same operations in the same order (the affine combinations' inputs in four
//! accumulators as `sparse_sum2`, then their nodes' terms in order): values and gradients are
//! the per-position replay's bit for bit. One difference where nothing changes: where the
//! per-position backward skips a node whose adjoint is zero, a block adds `0.0` for that lane
//! (the lane's partial is not read: no `0 * inf`).

use super::{Affine, Program, NODE};
use crate::kind::{apply, Kind};

/// Input vectors a block replay evaluates at once.
pub const LANES: usize = 8;

/// One number per lane.
pub type Lanes = [f64; LANES];

/// Reusable buffers for block replays ([`Program::forward_block`]): keep one per thread.
#[derive(Clone, Debug, Default)]
pub struct BlockScratch {
    vals: Vec<Lanes>,
    dx: Vec<Lanes>,
    dy: Vec<Lanes>,
    adj: Vec<Lanes>,
}

/// Value and partials of a non-linear node in every lane (as [`apply`] in each).
#[inline(always)]
fn apply_block(kind: Kind, k: f64, a: &Lanes, b: &Lanes) -> (Lanes, Lanes, Lanes) {
    let (mut v, mut dx, mut dy) = ([0.0; LANES], [0.0; LANES], [0.0; LANES]);
    if kind == Kind::Mul {
        for l in 0..LANES {
            (v[l], dx[l], dy[l]) = (a[l] * b[l], b[l], a[l]);
        }
    } else {
        for l in 0..LANES {
            (v[l], dx[l], dy[l]) = apply(kind, k, a[l], b[l]);
        }
    }
    (v, dx, dy)
}

impl Program {
    /// An affine combination in every lane, as [`Program::affine`] in each.
    #[inline(always)]
    fn affine_block(&self, a: &Affine, x: &[Lanes], vals: &[Lanes]) -> Lanes {
        let (refs, coefs) = self.range(a.start, a.split);
        let mut acc = [[0.0f64; LANES]; 4];
        let mut r4 = refs.chunks_exact(4);
        let mut c4 = coefs.chunks_exact(4);
        for (r, c) in (&mut r4).zip(&mut c4) {
            for k in 0..4 {
                let xr = &x[r[k] as usize];
                for l in 0..LANES {
                    acc[k][l] += c[k] * xr[l];
                }
            }
        }
        for ((a, &r), &c) in acc.iter_mut().zip(r4.remainder()).zip(c4.remainder()) {
            let xr = &x[r as usize];
            for l in 0..LANES {
                a[l] += c * xr[l];
            }
        }
        let mut s = [0.0; LANES];
        for l in 0..LANES {
            s[l] = a.konst + ((acc[0][l] + acc[1][l]) + (acc[2][l] + acc[3][l]));
        }
        let (refs, coefs) = self.range(a.split, a.end);
        for (&r, &c) in refs.iter().zip(coefs) {
            let v = &vals[(r & !NODE) as usize];
            for l in 0..LANES {
                s[l] += c * v[l];
            }
        }
        s
    }

    /// Adds `seed` times an affine combination's coefficients into its inputs' `grad` and its
    /// nodes' `adj`, in every lane.
    #[inline(always)]
    fn distribute_block(&self, a: &Affine, seed: &Lanes, grad: &mut [Lanes], adj: &mut [Lanes]) {
        let (refs, coefs) = self.range(a.start, a.split);
        for (&r, &c) in refs.iter().zip(coefs) {
            let g = &mut grad[r as usize];
            for l in 0..LANES {
                g[l] += seed[l] * c;
            }
        }
        let (refs, coefs) = self.range(a.split, a.end);
        for (&r, &c) in refs.iter().zip(coefs) {
            let g = &mut adj[(r & !NODE) as usize];
            for l in 0..LANES {
                g[l] += seed[l] * c;
            }
        }
    }

    /// The program's value for each lane's inputs (`x[input][lane]`), keeping what
    /// [`backward_block`](Program::backward_block) needs in `scratch`: lane by lane what
    /// [`forward`](Program::forward) gives, bit for bit.
    ///
    /// # Panics
    ///
    /// If `x` is shorter than the inputs the program refers to.
    pub fn forward_block(&self, x: &[Lanes], scratch: &mut BlockScratch) -> Lanes {
        let n = self.nodes.len();
        if scratch.vals.len() < n {
            scratch.vals.resize(n, [0.0; LANES]);
            scratch.dx.resize(n, [0.0; LANES]);
            scratch.dy.resize(n, [0.0; LANES]);
        }
        for (k, node) in self.nodes.iter().enumerate() {
            let a = self.affine_block(&node.a, x, &scratch.vals);
            let b = if node.kind.is_binary() {
                self.affine_block(&node.b, x, &scratch.vals)
            } else {
                [0.0; LANES]
            };
            let (v, dx, dy) = apply_block(node.kind, node.k, &a, &b);
            scratch.vals[k] = v;
            scratch.dx[k] = dx;
            scratch.dy[k] = dy;
        }
        self.affine_block(&self.output, x, &scratch.vals)
    }

    /// Adds `seed[lane] * d value / d x` into `grad[input][lane]`, at the inputs of the last
    /// [`forward_block`](Program::forward_block) with this `scratch`: lane by lane what
    /// [`backward`](Program::backward) adds (see the module documentation for a zero adjoint).
    pub fn backward_block(&self, seed: &Lanes, scratch: &mut BlockScratch, grad: &mut [Lanes]) {
        let n = self.nodes.len();
        if scratch.adj.len() < n {
            scratch.adj.resize(n, [0.0; LANES]);
        }
        let adj = &mut scratch.adj[..n];
        adj.fill([0.0; LANES]);
        self.distribute_block(&self.output, seed, grad, adj);
        for (k, node) in self.nodes.iter().enumerate().rev() {
            let a = adj[k];
            if a == [0.0; LANES] {
                continue;
            }
            let scaled = |d: &Lanes| -> Lanes {
                let mut s = [0.0; LANES];
                for l in 0..LANES {
                    s[l] = if a[l] == 0.0 { 0.0 } else { a[l] * d[l] };
                }
                s
            };
            let sa = scaled(&scratch.dx[k]);
            self.distribute_block(&node.a, &sa, grad, adj);
            if node.kind.is_binary() {
                let sb = scaled(&scratch.dy[k]);
                self.distribute_block(&node.b, &sb, grad, adj);
            }
        }
    }
}
