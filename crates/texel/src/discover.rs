//! `tune discover`: which candidate groups of terms (`eval::catalogue`) an evaluation lacks, and
//! what each would be worth, ranked on held-out games. See `docs/discover.md` for the user's
//! view.
//!
//! The evaluation (an engine's traced model at its manifest's values, or gradtune's own model
//! at its weights) is frozen: its score of each position is the *base*. The positions are split
//! by game as the tuning runs split them ([`data::valid_games`], same fraction and seed); `K`
//! is fitted on the training base scores ([`optim::fit_k_scores`]). For each group, its
//! `(mg, eg)` pairs are fitted from 0 on the training positions, `q = base + x . theta` with a
//! ridge (`optim::small_fit`, a dense Levenberg-Marquardt: a group has at most a few hundred
//! parameters); then each held-out position's paired loss difference `d = loss(base) -
//! loss(q)` is taken, and the mean gain, its standard error clustered by game, `z` and a
//! one-sided p-value follow ([`clustered`]); groups are significant by Holm's correction at the
//! family-wise level ([`holm`]). A greedy forward selection then adds groups one at a time,
//! each refitted jointly with those chosen, its gain measured against the model with the
//! chosen ones, until the best is not significant at the step's Bonferroni threshold. A
//! shuffled copy of the strongest group (its counts on other positions, [`Features::shuffled`])
//! is the control; groups the model already has are flagged.
//!
//! Memory: the positions are kept as [`Positions`] (about 48 bytes each); a group's counts are
//! computed from the boards when needed, and kept while their total stays under
//! [`DiscoverOptions::cache_bytes`].

use tapered::{Progress, Stop};

mod features;
mod fit;
mod positions;
mod rank;
mod report;
mod stats;

pub use features::Features;
pub use fit::fit as fit_groups;
pub use positions::{from_samples, from_traces, Positions};
pub use rank::discover;
pub use report::{Discovery, GroupResult, SplitCounts, Step};
pub use stats::{clustered, holm, upper_tail, Gain};

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
    /// The family-wise significance level.
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
            level: 0.05,
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
    pub fn check(&self) -> Result<(), crate::TexelError> {
        let bad = |m: String| Err(crate::TexelError::Config(m));
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
        rank::groups_named(&self.groups).map(|_| ())
    }
}

/// The catalogue groups already in gradtune's `model`: for `full`, those whose counts are one of
/// its groups' (`full_group`); none for `psqt`.
pub fn in_builtin(model: &eval::Model) -> Vec<String> {
    if model.kind() != eval::ModelKind::Full {
        return Vec::new();
    }
    eval::catalogue::groups()
        .iter()
        .filter(|g| g.full_group.is_some())
        .map(|g| g.name.to_string())
        .collect()
}

/// The catalogue groups a manifest's parameters declare themselves ports of (`"catalogue"`).
pub fn in_manifest(m: &trace::Manifest) -> Vec<String> {
    let mut out: Vec<String> = m
        .params()
        .iter()
        .filter_map(|p| p.catalogue.clone())
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Whether to stop (a `Stop` turned into the crate's error).
fn check(stop: Stop) -> Result<(), crate::TexelError> {
    if stop.now() {
        Err(crate::TexelError::Stopped)
    } else {
        Ok(())
    }
}
