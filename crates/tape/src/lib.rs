//! Tape-based reverse-mode automatic differentiation, and the [`Scalar`] trait that gradtune's
//! evaluations are written against.
//!
//! An evaluation is written once, generic over `S: Scalar`, and then run as
//!
//! * `f64`: no overhead at all (the engine searches with it);
//! * [`Var`]: recorded on a [`Tape`], whose reverse sweep gives the exact gradient with respect
//!   to every input at a small constant multiple of the cost of one evaluation;
//! * [`Dual`]: forward mode, one direction at a time, an independent check of the tape.
//!
//! A recording can be compiled into a [`Program`] and replayed for new weights without running
//! the evaluation code again: this is what makes a pass over a million positions cheap.
//!
//! ```
//! use tape::{Scalar, Tape};
//!
//! // A tiny Texel-style loss: (result - sigmoid(w . features))^2
//! fn loss<S: Scalar>(w: &[S], features: &[(u32, f64)], result: f64) -> S {
//!     let q = S::dot(w, features);
//!     (q.sigmoid() - result).powi(2)
//! }
//!
//! let weights = [0.3, -0.2, 0.5];
//! let features = [(0, 1.0), (2, -2.0)];
//!
//! let value: f64 = loss(&weights, &features, 1.0);
//!
//! let mut tape = Tape::new();
//! let mut grad = [0.0; 3];
//! tape.record(|rec| {
//!     let w = rec.inputs(&weights);
//!     let l = loss(&w, &features, 1.0);
//!     assert_eq!(l.value(), value);
//!     rec.gradient(l, &mut grad);
//! });
//! assert_eq!(grad[1], 0.0); // feature 1 is absent
//! ```
#![warn(missing_docs)]

mod dual;
mod kind;
mod ops;
mod program;
mod scalar;
mod tape;
mod var;

pub use crate::dual::Dual;
pub use crate::program::{Program, Scratch};
pub use crate::scalar::{sigmoid_f64, DotAccumulator, Scalar};
pub use crate::tape::{Mark, Recording, Tape};
pub use crate::var::Var;

/// The guide's examples (docs/guide.md), compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/guide.md")]
pub struct ReadmeDoctests;
