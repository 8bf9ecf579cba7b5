//! Texel's suggested combination: a few Gauss-Newton iterations, then L-BFGS, then integer
//! local-search polish.

use serde::{Deserialize, Serialize};

/// Options of the hybrid method (each stage uses its own solver's options).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct HybridOptions {
    /// hybrid: Gauss-Newton iterations first.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = HybridOptions::default().gn_iters))]
    pub gn_iters: u64,
    /// hybrid: local-search sweeps at the end (each up to two passes per parameter); 0 for none.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = HybridOptions::default().polish_sweeps))]
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
