//! [`Traced`]: the traced model (an engine's own evaluation as its manifest declares it), and
//! the label of a trace (a leaf of `traced`).

use std::path::Path;
use std::sync::Arc;

use tapered::Target;
use trace::{Manifest, Trace};

use crate::TexelError;

/// An engine's traced model: its manifest (parameters, shapes, terms, current values).
#[derive(Clone, Debug)]
pub struct Traced {
    /// The manifest.
    pub manifest: Arc<Manifest>,
}

impl Traced {
    /// The manifest in `path`.
    pub fn load(path: &Path) -> Result<Traced, TexelError> {
        Ok(Traced {
            manifest: Arc::new(Manifest::load(path)?),
        })
    }

    /// A manifest already read.
    pub fn new(manifest: Manifest) -> Traced {
        Traced {
            manifest: Arc::new(manifest),
        }
    }
}

/// The label of a trace, as the optimiser takes it.
pub fn label(t: &Trace) -> Target {
    Target {
        value: t.result,
        score: t.score,
        group: t.game,
    }
}
