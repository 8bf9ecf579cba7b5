//! What `tune eval` reports ([`Judgement`]) and its parts: a leaf of `judge`, shared with
//! the text it is printed as.

use serde::Serialize;

/// The mean losses at one `K`.
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct Losses {
    /// The sigmoid's scale.
    pub k: f64,
    /// Mean squared error between the result and `sigma(q)`.
    pub mse: f64,
    /// Mean cross-entropy between the result and `sigma(q)`.
    pub xent: f64,
}

/// One bin of the calibration table.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Bin {
    /// Lowest evaluation in the bin (centipawns, included); `None`: unbounded.
    pub lo: Option<f64>,
    /// Highest evaluation (excluded); `None`: unbounded.
    pub hi: Option<f64>,
    /// Positions in the bin.
    pub positions: usize,
    /// Their mean evaluation.
    pub mean_eval: f64,
    /// Their mean predicted result `sigma(q)`.
    pub predicted: f64,
    /// Their mean observed result.
    pub observed: f64,
}

/// The losses of one group of positions.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Group {
    /// What the group holds.
    pub name: String,
    /// Positions in it.
    pub positions: usize,
    /// Mean squared error.
    pub mse: f64,
    /// Mean cross-entropy.
    pub xent: f64,
    /// Mean observed result minus mean predicted: > 0 where White does better than the
    /// evaluation says.
    pub residual: f64,
}

/// What `tune eval` reports.
#[derive(Clone, Debug, Serialize)]
pub struct Judgement {
    /// The model of the weights.
    pub model: String,
    /// Positions judged.
    pub positions: usize,
    /// Samples whose board did not decode (left out).
    pub skipped: usize,
    /// The losses at the `K` fitted for the squared error.
    pub fitted: Losses,
    /// The losses at the given `K`, if one was given.
    pub given: Option<Losses>,
    /// The `K` of the tables below: the given one, else the fitted one.
    pub k: f64,
    /// Predicted against observed result by evaluation bins, every position in exactly one.
    pub calibration: Vec<Bin>,
    /// The losses by game phase (from material: 24 is every piece on the board).
    pub by_phase: Vec<Group>,
    /// The losses by material balance (White minus Black, in pawns).
    pub by_imbalance: Vec<Group>,
}
