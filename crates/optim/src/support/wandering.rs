//! [`Wanderer`]: a weight that moved far for the data behind it ([`super::Support::wandering`]).
//!
//! The measure is `|w_end - w_start| / sqrt(support + 1)`. A weight fitted on `k` rows is
//! known to about `1 / sqrt(k)` of what one row tells (its standard error shrinks like
//! `1 / sqrt(k)`), so a large move on few rows is a move the data cannot vouch for: the
//! measure is the move in those units, and the `+ 1` keeps a weight no row supports finite
//! (ranked by its raw move). It compares weights of like units (centipawns per count);
//! a weight on another scale (a multiplier) ranks by its own units.

use serde::{Deserialize, Serialize};

/// The rows a run reports (`summary.json`'s `wandering`, the terminal's summary).
pub const WANDERING_TOP: usize = 10;

/// One weight of the wandering report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Wanderer {
    /// The weight's name.
    pub name: String,
    /// Its value at the start.
    pub start: f64,
    /// Its value at the end.
    pub end: f64,
    /// `end - start`.
    pub moved: f64,
    /// Rows whose gradient in it was nonzero at the start.
    pub support: u64,
    /// `support` as a share of the rows.
    pub share: f64,
    /// `|moved| / sqrt(support + 1)`, by which the report is ordered.
    pub score: f64,
}
