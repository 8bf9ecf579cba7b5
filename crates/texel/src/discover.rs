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

mod features;
mod fit;
mod options;
mod positions;
mod rank;
mod report;
mod start;
mod stats;

pub use features::Features;
pub use fit::fit as fit_groups;
pub use options::{DiscoverOptions, DEFAULT_L2, DEFAULT_LEVEL};
pub use positions::{from_samples, from_traces, Positions};
pub use rank::discover;
pub use report::{Chosen, Discovery, GroupResult, SplitCounts, Step};
pub(crate) use start::no_port;
pub use start::{write_started, Discovered, PortStart};
pub use stats::{clustered, holm, upper_tail, Gain};

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
