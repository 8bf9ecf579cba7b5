//! Texel's suggested combination: a few Gauss-Newton iterations, then L-BFGS, then integer
//! local-search polish.

use serde::{Deserialize, Serialize};

/// Options of the hybrid method (each stage uses its own solver's options).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct HybridOptions {
    /// Gauss-Newton iterations first.
    pub gn_iters: u64,
    /// Local-search sweeps at the end (each up to two passes per parameter); 0 for none.
    pub polish_sweeps: u64,
}

impl Default for HybridOptions {
    fn default() -> Self {
        HybridOptions {
            gn_iters: 3,
            polish_sweeps: 1,
        }
    }
}
