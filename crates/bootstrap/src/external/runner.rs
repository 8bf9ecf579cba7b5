//! [`Runner`]: the fixed parts of a running loop (its options, where it reports, its stop
//! flag) and the paths they give; the steps (`mod.rs`, `spsa.rs`, `steps.rs`) are its methods.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::events::LoopEvent;
use super::settings::LoopOptions;
use crate::generation_dir;

/// The fixed parts of a running loop.
pub(super) struct Runner<'a> {
    pub(super) opts: &'a LoopOptions,
    pub(super) on_event: &'a (dyn Fn(LoopEvent<'_>) + Sync),
    pub(super) stop: &'a Arc<AtomicBool>,
}

impl Runner<'_> {
    pub(super) fn out(&self) -> &Path {
        &self.opts.out
    }

    pub(super) fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    pub(super) fn state_path(&self) -> PathBuf {
        self.out().join("state.json")
    }

    /// The kept weights (a manifest with values) of finished generation `generation`.
    pub(super) fn weights_path(&self, generation: u32) -> PathBuf {
        generation_dir(self.out(), generation).join("weights.json")
    }
}
