//! What `tune discover` is asked ([`DiscoverOptions`]), checked before any data is read; the
//! groups it names.

use eval::catalogue::{self, Group};
use tapered::{Progress, Stop};

use crate::TexelError;

/// The default family-wise significance level: 0.01, so that a ranking of groups that are
/// all worth nothing flags none in five independent runs at least 95% of the time
/// (`1 - 0.99^5`); a group added to an engine costs its code, its speed and a port.
pub const DEFAULT_LEVEL: f64 = 0.01;

/// The default ridge, in positions' worth of curvature (see [`DiscoverOptions::l2`]).
pub const DEFAULT_L2: f64 = 20.0;

/// How `tune discover` fits and judges.
#[derive(Clone)]
pub struct DiscoverOptions {
    /// Fraction of the games held out.
    pub valid_fraction: f64,
    /// Seed of the split (as the tuning runs') and of the control's permutation.
    pub seed: u64,
    /// The ridge: the penalty `l2 * c0 * sum theta^2` is added to the summed training loss,
    /// `c0` the Gauss-Newton curvature of one position at an even score; an element whose net
    /// count is 1 in `n` positions near even scores is shrunk by about `n / (n + l2)`.
    pub l2: f64,
    /// The family-wise significance level ([`DEFAULT_LEVEL`]).
    pub level: f64,
    /// At most this many groups chosen by the greedy selection.
    pub select: usize,
    /// The groups to try (names); empty: every group of the catalogue.
    pub groups: Vec<String>,
    /// Groups already in the model (flagged, still ranked).
    pub in_model: Vec<String>,
    /// The model's name for the report.
    pub model: String,
    /// Keep groups' counts in memory up to this many bytes (recomputed beyond).
    pub cache_bytes: usize,
    /// Where progress goes.
    pub progress: Progress,
}

impl Default for DiscoverOptions {
    fn default() -> Self {
        DiscoverOptions {
            valid_fraction: 0.1,
            seed: 1,
            l2: DEFAULT_L2,
            level: DEFAULT_LEVEL,
            select: 5,
            groups: Vec::new(),
            in_model: Vec::new(),
            model: String::new(),
            cache_bytes: 512 << 20,
            progress: Progress::none(),
        }
    }
}

impl DiscoverOptions {
    /// Refuses options out of range and unknown group names (before any data is read).
    pub fn check(&self) -> Result<(), TexelError> {
        let bad = |m: String| Err(TexelError::Config(m));
        if !(self.valid_fraction > 0.0 && self.valid_fraction < 1.0) {
            return bad(format!(
                "--valid-fraction must be between 0 and 1 (exclusive), not {}",
                self.valid_fraction
            ));
        }
        if !(self.l2 >= 0.0 && self.l2.is_finite()) {
            return bad(format!("--l2 must be 0 or more, not {}", self.l2));
        }
        if !(self.level > 0.0 && self.level < 1.0) {
            return bad(format!(
                "--level must be between 0 and 1, not {}",
                self.level
            ));
        }
        groups_named(&self.groups).map(|_| ())
    }
}

/// The groups to try: the named ones (an unknown name is an error; a name repeated counts
/// once) or the whole catalogue.
pub(super) fn groups_named(names: &[String]) -> Result<Vec<&'static Group>, TexelError> {
    if names.is_empty() {
        return Ok(catalogue::groups().iter().collect());
    }
    let mut seen = std::collections::HashSet::new();
    names
        .iter()
        .filter(|n| seen.insert(n.as_str()))
        .map(|n| {
            catalogue::find(n).ok_or_else(|| {
                let known: Vec<&str> = catalogue::groups().iter().map(|g| g.name).collect();
                TexelError::Config(format!(
                    "no catalogue group `{n}` (known: {})",
                    known.join(", ")
                ))
            })
        })
        .collect()
}

/// Whether to stop (a `Stop` turned into the crate's error).
pub(super) fn check(stop: Stop) -> Result<(), TexelError> {
    if stop.now() {
        Err(TexelError::Stopped)
    } else {
        Ok(())
    }
}
