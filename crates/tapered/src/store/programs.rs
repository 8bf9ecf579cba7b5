//! [`Programs`]: general compiled [`tape::Program`]s, one per position, for the evaluations no
//! compact store takes.

use tape::{Program, Scratch};

use super::interface::Store;
use super::kind::StoreKind;
use super::reason::{count_reasons, Examples, Reason, Refusal};

/// One [`Program`] per position, with the reason a faster store refused it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Programs {
    programs: Vec<Program>,
    reasons: Vec<Reason>,
    examples: Examples,
}

impl Programs {
    /// Appends a position's program, refused by a faster store for `why` (a [`Reason`], or a
    /// [`Refusal`] naming the parameter).
    pub(crate) fn push(&mut self, program: Program, why: impl Into<Refusal>) {
        let why = why.into();
        self.programs.push(program);
        self.reasons.push(why.reason);
        self.examples.note(why);
    }

    /// Appends every program of `other`.
    pub(crate) fn append(&mut self, other: &Programs) {
        self.programs.extend_from_slice(&other.programs);
        self.reasons.extend_from_slice(&other.reasons);
        self.examples.merge(&other.examples);
    }

    /// Releases spare capacity.
    pub(crate) fn shrink(&mut self) {
        self.programs.shrink_to_fit();
        self.reasons.shrink_to_fit();
    }
}

impl Store for Programs {
    const KIND: StoreKind = StoreKind::Program;

    fn len(&self) -> usize {
        self.programs.len()
    }

    fn heap_bytes(&self) -> usize {
        self.programs.iter().map(Program::heap_bytes).sum::<usize>()
            + self.programs.capacity() * std::mem::size_of::<Program>()
            + self.reasons.capacity()
    }

    #[inline(always)]
    fn score(&self, i: usize, w: &[f64], scratch: &mut Scratch) -> f64 {
        self.programs[i].forward(w, scratch)
    }

    #[inline(always)]
    fn add_gradient(&self, i: usize, seed: f64, scratch: &mut Scratch, grad: &mut [f64]) {
        self.programs[i].backward(seed, scratch, grad);
    }

    fn subset(&self, keep: &[usize]) -> Programs {
        Programs {
            programs: keep.iter().map(|&i| self.programs[i].clone()).collect(),
            reasons: keep.iter().map(|&i| self.reasons[i]).collect(),
            examples: self.examples.clone(),
        }
    }

    fn fallbacks(&self) -> Vec<(Refusal, usize)> {
        let counts = count_reasons(self.reasons.iter().map(|&r| Some(r)));
        self.examples.with(counts)
    }
}
