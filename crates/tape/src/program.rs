//! [`Program`]: a recording compiled for replay, with linear chains collapsed.

use crate::kind::{apply, Kind};
use crate::scalar::sparse_sum2;
use crate::tape::Tape;
use crate::var::Var;

pub(crate) mod block;

/// Tag bit of a term reference that names a non-linear node rather than an input.
const NODE: u32 = 1 << 31;

/// `coef * x[r]`, where `r` is an input number or (tagged with [`NODE`]) a node number.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Term {
    r: u32,
    c: f64,
}

/// An affine combination: `konst`, plus the terms `start..split` (on inputs) and `split..end`
/// (on nodes).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Affine {
    start: u32,
    split: u32,
    end: u32,
    konst: f64,
}

/// A non-linear operation on one or two affine operands.
#[derive(Clone, Copy, Debug)]
struct Node {
    kind: Kind,
    k: f64,
    a: Affine,
    b: Affine,
}

/// A recorded computation compiled for replay: call [`forward`](Program::forward) and
/// [`backward`](Program::backward) with new input values, and the recording code never runs
/// again.
///
/// Compilation collapses every chain of linear operations (sums, differences, scaling by
/// constants, [`Scalar::dot`](crate::Scalar::dot)) into one sparse affine combination of inputs
/// and non-linear nodes; only the non-linear nodes remain as steps. A linear evaluation
/// compiles to a single sparse dot product.
///
/// Replay is exact as long as the recorded code's control flow did not depend on the values of
/// its variables: `min`, `max`, `abs` and `clamp` re-decide their branch on replay, but an
/// `if x.value() > 0.0` in user code is frozen into the recording.
///
/// ```
/// use tape::{Program, Scalar, Scratch, Tape};
///
/// let mut tape = Tape::new();
/// let program: Program = tape.record(|rec| {
///     let w = rec.inputs(&[1.0, 2.0, 3.0]);
///     let q = (w[0] * 2.0 + w[1] - w[2] * 0.5) * 3.0; // linear
///     let y = q.tanh() * w[2];
///     rec.compile(y)
/// });
/// assert_eq!(program.nodes(), 2); // tanh and the product; the linear chain is one combination
///
/// // Replay at new weights.
/// let x = [0.1, -0.2, 0.4];
/// let mut scratch = Scratch::default();
/// let v = program.forward(&x, &mut scratch);
/// let q = (0.1 * 2.0 - 0.2 - 0.4 * 0.5) * 3.0;
/// assert!((v - f64::tanh(q) * 0.4).abs() < 1e-15);
/// let mut grad = [0.0; 3];
/// program.backward(1.0, &mut scratch, &mut grad);
/// assert!((grad[2] - (f64::tanh(q) + 0.4 * (1.0 - f64::tanh(q).powi(2)) * -1.5)).abs() < 1e-12);
/// ```
#[derive(Clone, Debug, Default)]
pub struct Program {
    /// Term references (input numbers, or node numbers tagged with `NODE`), in the affine
    /// combinations' ranges; `coefs` holds the matching coefficients (structure of arrays: 12
    /// bytes a term).
    refs: Vec<u32>,
    coefs: Vec<f64>,
    nodes: Vec<Node>,
    output: Affine,
    inputs: usize,
}

/// Reusable buffers for replaying [`Program`]s: keep one per thread, and replay allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct Scratch {
    vals: Vec<f64>,
    /// Partial derivatives of each node with respect to its two operands.
    partials: Vec<(f64, f64)>,
    adj: Vec<f64>,
}

/// A sparse affine combination under construction: unsorted terms, duplicates allowed.
#[derive(Clone, Debug, Default)]
struct Sparse {
    terms: Vec<Term>,
    konst: f64,
}

impl Sparse {
    fn add_scaled(&mut self, other: &Sparse, c: f64) {
        self.konst += c * other.konst;
        self.terms
            .extend(other.terms.iter().map(|t| Term { r: t.r, c: t.c * c }));
    }
}

/// Use counts of the nodes the output `out` needs, and the lowest needed non-input node
/// (`low`): the walk goes down from the output only that far, so a position recorded after a
/// thousand inputs costs its own length, not the tape's.
fn use_counts(tape: &Tape, out: usize) -> (Vec<u32>, usize) {
    let stmts = &tape.stmts()[..=out];
    let is_input = |i: usize| stmts[i].kind == Kind::Input;
    let mut uses = vec![0u32; out + 1];
    uses[out] = 1;
    let mut pending = usize::from(!is_input(out));
    let mut low = out;
    for i in (0..=out).rev() {
        if pending == 0 {
            break;
        }
        if uses[i] == 0 || is_input(i) {
            continue;
        }
        pending -= 1;
        low = i;
        for op in &tape.ops()[tape.start_of(i)..stmts[i].end as usize] {
            let arg = op.arg as usize;
            if uses[arg] == 0 && !is_input(arg) {
                pending += 1;
            }
            uses[arg] += 1;
        }
    }
    (uses, low)
}

impl Program {
    /// One function on purpose: it runs for every recorded position (the recording's hot
    /// path), its node loop sharing the representations and use counts.
    pub(crate) fn compile(tape: &Tape, output: Var) -> Program {
        let inputs = tape.inputs().len();
        if output.index().is_none() {
            return Program {
                output: Affine {
                    konst: output.value_f64(),
                    ..Affine::default()
                },
                inputs,
                ..Program::default()
            };
        }
        let out = tape.node_of(output);
        let stmts = &tape.stmts()[..=out];
        let is_input = |i: usize| stmts[i].kind == Kind::Input;
        // Input number of an input node: inputs are pushed in node order.
        let input_number = |i: usize| -> u32 {
            tape.inputs()
                .binary_search(&(i as u32))
                .map_or(u32::MAX, |k| k as u32)
        };

        let (mut uses, low) = use_counts(tape, out);

        let mut program = Program {
            inputs,
            ..Program::default()
        };
        // Representations of the needed non-input nodes `low..=out`, as affine combinations.
        let mut reps: Vec<Option<Sparse>> = vec![None; out + 1 - low];
        // Node `arg`'s representation for one use (moved out on its last use).
        let take = |reps: &mut Vec<Option<Sparse>>, uses: &mut Vec<u32>, arg: usize| -> Sparse {
            if is_input(arg) {
                return Sparse {
                    terms: vec![Term {
                        r: input_number(arg),
                        c: 1.0,
                    }],
                    konst: 0.0,
                };
            }
            uses[arg] -= 1;
            let slot = &mut reps[arg - low];
            if uses[arg] == 0 {
                slot.take().unwrap_or_default()
            } else {
                slot.clone().unwrap_or_default()
            }
        };

        for i in low..=out {
            if uses[i] == 0 || is_input(i) {
                continue;
            }
            let s = stmts[i];
            let ops = &tape.ops()[tape.start_of(i)..s.end as usize];
            let rep = match s.kind {
                Kind::Input => unreachable!("inputs are skipped above"),
                Kind::Const => Sparse {
                    terms: Vec::new(),
                    konst: s.konst,
                },
                Kind::Linear => {
                    let mut acc = Sparse {
                        terms: Vec::with_capacity(ops.len()),
                        konst: s.konst,
                    };
                    for op in ops {
                        let arg = op.arg as usize;
                        if is_input(arg) {
                            acc.terms.push(Term {
                                r: input_number(arg),
                                c: op.partial,
                            });
                            continue;
                        }
                        let rep = take(&mut reps, &mut uses, arg);
                        if acc.terms.is_empty() && op.partial == 1.0 && ops.len() == 1 {
                            acc.konst += rep.konst;
                            acc.terms = rep.terms;
                        } else {
                            acc.add_scaled(&rep, op.partial);
                        }
                    }
                    acc
                }
                kind => {
                    let a = take(&mut reps, &mut uses, ops[0].arg as usize);
                    let a = program.materialise(a);
                    let b = if kind.is_binary() {
                        let b = take(&mut reps, &mut uses, ops[1].arg as usize);
                        program.materialise(b)
                    } else {
                        Affine::default()
                    };
                    let n = program.nodes.len() as u32;
                    program.nodes.push(Node {
                        kind,
                        k: s.konst,
                        a,
                        b,
                    });
                    Sparse {
                        terms: vec![Term {
                            r: NODE | n,
                            c: 1.0,
                        }],
                        konst: 0.0,
                    }
                }
            };
            reps[i - low] = Some(rep);
        }
        let last = take(&mut reps, &mut uses, out);
        program.output = program.materialise(last);
        program
    }

    /// Appends a normalised copy of `s` (sorted, duplicates merged, zeros dropped, inputs first).
    fn materialise(&mut self, mut s: Sparse) -> Affine {
        s.terms.sort_unstable_by_key(|t| t.r);
        let mut merged: Vec<Term> = Vec::with_capacity(s.terms.len());
        for t in s.terms {
            match merged.last_mut() {
                Some(last) if last.r == t.r => last.c += t.c,
                _ => merged.push(t),
            }
        }
        // Drop terms whose coefficients cancelled exactly.
        merged.retain(|t| t.c != 0.0);
        let start = self.refs.len();
        let split = start + merged.partition_point(|t| t.r & NODE == 0);
        self.refs.extend(merged.iter().map(|t| t.r));
        self.coefs.extend(merged.iter().map(|t| t.c));
        Affine {
            start: start as u32,
            split: split as u32,
            end: self.refs.len() as u32,
            konst: s.konst,
        }
    }

    /// Number of non-linear steps.
    pub fn nodes(&self) -> usize {
        self.nodes.len()
    }

    /// Number of sparse (reference, coefficient) terms over all affine combinations.
    pub fn terms(&self) -> usize {
        self.refs.len()
    }

    /// Number of inputs the program was recorded with (the length `forward` expects).
    pub fn inputs(&self) -> usize {
        self.inputs
    }

    /// Whether the program is one affine combination of its inputs (no non-linear step).
    pub fn is_linear(&self) -> bool {
        self.nodes.is_empty()
    }

    /// For a linear program, its constant and its `(input, coefficient)` terms; `None` otherwise.
    pub fn linear_terms(&self) -> Option<(f64, impl Iterator<Item = (u32, f64)> + '_)> {
        self.is_linear().then(|| {
            let a = self.output;
            (
                a.konst,
                self.refs[a.start as usize..a.end as usize]
                    .iter()
                    .copied()
                    .zip(self.coefs[a.start as usize..a.end as usize].iter().copied()),
            )
        })
    }

    /// Bytes of heap memory the program holds.
    pub fn heap_bytes(&self) -> usize {
        self.refs.capacity() * std::mem::size_of::<u32>()
            + self.coefs.capacity() * std::mem::size_of::<f64>()
            + self.nodes.capacity() * std::mem::size_of::<Node>()
    }

    #[inline(always)]
    fn range(&self, from: u32, to: u32) -> (&[u32], &[f64]) {
        let r = from as usize..to as usize;
        (&self.refs[r.clone()], &self.coefs[r])
    }

    #[inline(always)]
    fn affine(&self, a: &Affine, x: &[f64], vals: &[f64]) -> f64 {
        let (refs, coefs) = self.range(a.start, a.split);
        let mut s = a.konst + sparse_sum2(refs, coefs, |i| x[i]);
        let (refs, coefs) = self.range(a.split, a.end);
        for (&r, &c) in refs.iter().zip(coefs) {
            s += c * vals[(r & !NODE) as usize];
        }
        s
    }

    #[inline(always)]
    fn distribute(&self, a: &Affine, seed: f64, grad: &mut [f64], adj: &mut [f64]) {
        let (refs, coefs) = self.range(a.start, a.split);
        for (&r, &c) in refs.iter().zip(coefs) {
            grad[r as usize] += seed * c;
        }
        let (refs, coefs) = self.range(a.split, a.end);
        for (&r, &c) in refs.iter().zip(coefs) {
            adj[(r & !NODE) as usize] += seed * c;
        }
    }

    /// The program's value at inputs `x`, keeping what [`backward`](Program::backward) needs in
    /// `scratch`.
    ///
    /// # Panics
    ///
    /// If `x` is shorter than the inputs the program refers to.
    pub fn forward(&self, x: &[f64], scratch: &mut Scratch) -> f64 {
        let n = self.nodes.len();
        if scratch.vals.len() < n {
            scratch.vals.resize(n, 0.0);
            scratch.partials.resize(n, (0.0, 0.0));
        }
        for (k, node) in self.nodes.iter().enumerate() {
            let a = self.affine(&node.a, x, &scratch.vals);
            let b = if node.kind.is_binary() {
                self.affine(&node.b, x, &scratch.vals)
            } else {
                0.0
            };
            let (v, dx, dy) = apply(node.kind, node.k, a, b);
            scratch.vals[k] = v;
            scratch.partials[k] = (dx, dy);
        }
        self.affine(&self.output, x, &scratch.vals)
    }

    /// Adds `seed * d value / d x` into `grad`, at the `x` of the last
    /// [`forward`](Program::forward) of this program with this `scratch`.
    pub fn backward(&self, seed: f64, scratch: &mut Scratch, grad: &mut [f64]) {
        if self.nodes.is_empty() {
            let (refs, coefs) = self.range(self.output.start, self.output.end);
            for (&r, &c) in refs.iter().zip(coefs) {
                grad[r as usize] += seed * c;
            }
            return;
        }
        let n = self.nodes.len();
        if scratch.adj.len() < n {
            scratch.adj.resize(n, 0.0);
        }
        scratch.adj[..n].fill(0.0);
        self.distribute(&self.output, seed, grad, &mut scratch.adj);
        for (k, n) in self.nodes.iter().enumerate().rev() {
            let a = scratch.adj[k];
            if a == 0.0 {
                continue;
            }
            let (dx, dy) = scratch.partials[k];
            self.distribute(&n.a, a * dx, grad, &mut scratch.adj);
            if n.kind.is_binary() {
                self.distribute(&n.b, a * dy, grad, &mut scratch.adj);
            }
        }
    }

    /// Value at `x`, and `seed * d value / d x` added into `grad`.
    pub fn value_and_gradient(
        &self,
        x: &[f64],
        seed: f64,
        scratch: &mut Scratch,
        grad: &mut [f64],
    ) -> f64 {
        let v = self.forward(x, scratch);
        self.backward(seed, scratch, grad);
        v
    }
}

impl Var {
    #[inline(always)]
    pub(crate) fn value_f64(&self) -> f64 {
        crate::Scalar::value(self)
    }
}
