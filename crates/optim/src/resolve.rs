//! Re-resolving quiescence leaves as the weights move.
//!
//! With [`Leaf::Qsearch`](crate::chess::Leaf::Qsearch) each sample contributes the evaluation
//! of the end of its quiescence principal variation, found at some weights. When the weights
//! move, the search may end elsewhere (a capture that did not pay now does, or the other way
//! round). A [`Resolver`] keeps every sample's root position and the identity of its current
//! leaf; [`Resolver::record`] searches every root again at new weights, counts the samples whose
//! leaf changed and records the sets afresh. [`run_resolving`](crate::run_resolving) does this
//! every `N` iterations of a run.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;

use eval::Model;
use indicatif::ProgressBar;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use shakmaty::{Chess, Position};

use crate::chess::{leaf_position, record_positions, Leaf};
use crate::objective::Objective;
use crate::set::{CompiledSet, Label};
use crate::OptimError;

/// The identity of a leaf: a 64-bit hash of its board (every piece on its square) and the side
/// to move. Two leaves are "the same" when their keys are equal; castling rights, the en
/// passant square and the move counters do not count (they do not enter the evaluation).
///
/// ```
/// use shakmaty::{Chess, Position};
/// let a = Chess::default();
/// let m = a.legal_moves()[0];
/// let b = a.clone().play(m).unwrap();
/// assert_eq!(optim::leaf_key(&a), optim::leaf_key(&Chess::default()));
/// assert_ne!(optim::leaf_key(&a), optim::leaf_key(&b));
/// ```
pub fn leaf_key(pos: &Chess) -> u64 {
    let mut h = DefaultHasher::new();
    pos.board().hash(&mut h);
    pos.turn().hash(&mut h);
    h.finish()
}

/// One re-resolution of the leaves during a run (a line of the log, an entry of the summary).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Resolution {
    /// Iterations done when the leaves were re-resolved (at that iteration's weights).
    pub iter: u64,
    /// Training positions whose leaf changed.
    pub train_changed: usize,
    /// Validation positions whose leaf changed.
    pub valid_changed: usize,
    /// Training and validation positions.
    pub positions: (usize, usize),
    /// Fraction of all positions (training and validation) whose leaf changed.
    pub fraction: f64,
    /// Training data loss at the current weights on the old leaves, then on the new.
    pub train_loss: (f64, f64),
    /// Validation loss at the current weights on the old leaves, then on the new.
    pub valid_loss: Option<(f64, f64)>,
    /// Seconds the search and the recording took.
    pub seconds: f64,
    /// `Some(i)` if the weights and every leaf are those of the re-resolution after iteration
    /// `i` (0: the start) again: the rounds go round in a cycle, and the run ends.
    #[serde(default)]
    pub repeats: Option<u64>,
}

impl Resolution {
    /// A one-line description, as the progress output prints it.
    pub fn to_text(&self) -> String {
        let pct = |c: usize, n: usize| {
            if n == 0 {
                0.0
            } else {
                100.0 * c as f64 / n as f64
            }
        };
        format!(
            "re-resolved leaves at iteration {}: {}/{} training ({:.2}%) and {}/{} validation \
             ({:.2}%) changed; train {:.6} -> {:.6}{} ({:.1} s)",
            self.iter,
            self.train_changed,
            self.positions.0,
            pct(self.train_changed, self.positions.0),
            self.valid_changed,
            self.positions.1,
            pct(self.valid_changed, self.positions.1),
            self.train_loss.0,
            self.train_loss.1,
            self.valid_loss
                .map_or(String::new(), |(a, b)| format!(", valid {a:.6} -> {b:.6}")),
            self.seconds
        ) + &self.repeats.map_or(String::new(), |i| {
            format!("; the leaves of iteration {i} again")
        })
    }
}

/// The root positions of one split and their current leaves.
#[derive(Clone, Debug, Default)]
struct Roots {
    samples: Vec<data::Sample>,
    /// The key of each sample's current leaf (empty before the first recording).
    keys: Vec<u64>,
}

/// What one [`Resolver::record`] produced.
#[derive(Debug)]
pub struct Recorded {
    /// The training set, recorded at the new leaves.
    pub train: CompiledSet,
    /// The validation set, recorded at the new leaves.
    pub valid: CompiledSet,
    /// Training positions whose leaf changed since the previous recording (0 the first time).
    pub train_changed: usize,
    /// Validation positions whose leaf changed since the previous recording (0 the first time).
    pub valid_changed: usize,
}

/// Every sample's root position and current quiescence leaf, for both splits, to search again
/// at new weights.
///
/// The samples are kept packed (about 50 bytes each); samples whose board does not decode are
/// dropped at construction, as [`record_samples`](crate::chess::record_samples) skips them.
#[derive(Clone)]
pub struct Resolver {
    model: Model,
    train: Roots,
    valid: Roots,
}

impl std::fmt::Debug for Resolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Resolver")
            .field("model", &self.model.kind())
            .field("positions", &self.positions())
            .finish()
    }
}

impl Resolver {
    /// A resolver over the training and validation samples (no leaves found yet: call
    /// [`record`](Self::record) at the starting weights first).
    pub fn new(model: Model, train: Vec<data::Sample>, valid: Vec<data::Sample>) -> Self {
        let keep = |v: Vec<data::Sample>| Roots {
            samples: v.into_iter().filter(|s| s.position().is_ok()).collect(),
            keys: Vec::new(),
        };
        Resolver {
            model,
            train: keep(train),
            valid: keep(valid),
        }
    }

    /// The model.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// Training and validation positions.
    pub fn positions(&self) -> (usize, usize) {
        (self.train.samples.len(), self.valid.samples.len())
    }

    /// A 64-bit fingerprint of every position's current leaf (equal fingerprints: the same
    /// leaves, but for a hash collision).
    pub fn fingerprint(&self) -> u64 {
        let mut h = DefaultHasher::new();
        self.train.keys.hash(&mut h);
        self.valid.keys.hash(&mut h);
        h.finish()
    }

    /// Searches every root at `w`, counts the positions whose leaf differs from the one found
    /// by the previous call, and records both sets at the new leaves (the tapes recorded at
    /// `w`). The sets hold exactly what [`record_samples`](crate::chess::record_samples) with
    /// [`Leaf::Qsearch`] at `w` would. `progress` advances by one per position searched and
    /// by one per position recorded.
    pub fn record(
        &mut self,
        w: &[f64],
        progress: Option<&ProgressBar>,
    ) -> Result<Recorded, OptimError> {
        if w.len() != self.model.len() {
            return Err(OptimError::Config(format!(
                "{} weights for a model of {} parameters",
                w.len(),
                self.model.len()
            )));
        }
        let (train, train_changed) = resolve_roots(&self.model, &mut self.train, w, progress)?;
        let (valid, valid_changed) = resolve_roots(&self.model, &mut self.valid, w, progress)?;
        Ok(Recorded {
            train,
            valid,
            train_changed,
            valid_changed,
        })
    }
}

/// Finds each root's leaf at `w`, updates the keys, records the set.
fn resolve_roots(
    model: &Model,
    roots: &mut Roots,
    w: &[f64],
    progress: Option<&ProgressBar>,
) -> Result<(CompiledSet, usize), OptimError> {
    let leaves: Vec<Option<(Chess, Label)>> = roots
        .samples
        .par_iter()
        .map(|s| {
            let pos = s.position().ok()?;
            let leaf = leaf_position(model, &pos, w, Leaf::Qsearch);
            if let Some(pb) = progress {
                pb.inc(1);
            }
            Some((
                leaf,
                Label {
                    result: s.result,
                    score: s.score,
                    game: s.game,
                },
            ))
        })
        .collect();
    let leaves: Vec<(Chess, Label)> =
        leaves.into_iter().collect::<Option<_>>().ok_or_else(|| {
            OptimError::Config("a position that decoded once no longer decodes".to_string())
        })?;
    let keys: Vec<u64> = leaves.par_iter().map(|(p, _)| leaf_key(p)).collect();
    let changed = if roots.keys.len() == keys.len() {
        roots.keys.iter().zip(&keys).filter(|(a, b)| a != b).count()
    } else {
        0
    };
    roots.keys = keys;
    let set = record_positions(model, &leaves, w, Leaf::Static, progress);
    Ok((set, changed))
}

/// `obj` (its `K`, regularisation and anchor, free parameters and bounds) on another set.
pub fn rebind(obj: &Objective, set: Arc<CompiledSet>) -> Result<Objective, OptimError> {
    let mut bounds = vec![None; obj.base().len()];
    for (&i, &b) in obj.free().iter().zip(obj.bounds()) {
        bounds[i] = Some(b);
    }
    obj.with_set(set)?.with_bounds(&bounds)
}
