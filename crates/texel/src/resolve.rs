//! Re-resolving quiescence leaves as the weights move.
//!
//! With [`Leaf::Qsearch`](crate::chess::Leaf::Qsearch) each sample contributes the evaluation
//! of the end of its quiescence principal variation, found at some weights. When the weights
//! move, the search may end elsewhere (a capture that did not pay now does, or the other way
//! round). A [`Resolver`] keeps every sample's root position and the identity of its current
//! leaf; [`Resolver::record`] searches every root again at new weights, counts the samples whose
//! leaf changed and records the sets afresh. It is the chess [`Rerecord`] hook:
//! [`optim::run_resolving`] calls it every `N` iterations of a run.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use eval::Model;
use optim::{HookError, Recorded, Rerecord};
use rayon::prelude::*;
use shakmaty::{Chess, Position};
use tapered::Progress;
use tapered::{CompiledSet, Target};

use crate::chess::{leaf_position, record_positions, Leaf};
use crate::TexelError;

/// The identity of a leaf: a 64-bit hash of its board (every piece on its square) and the side
/// to move. Two leaves are "the same" when their keys are equal; castling rights, the en
/// passant square and the move counters do not count (they do not enter the evaluation).
///
/// ```
/// use shakmaty::{Chess, Position};
/// let a = Chess::default();
/// let m = a.legal_moves()[0];
/// let b = a.clone().play(m).unwrap();
/// assert_eq!(texel::leaf_key(&a), texel::leaf_key(&Chess::default()));
/// assert_ne!(texel::leaf_key(&a), texel::leaf_key(&b));
/// ```
pub fn leaf_key(pos: &Chess) -> u64 {
    let mut h = DefaultHasher::new();
    pos.board().hash(&mut h);
    pos.turn().hash(&mut h);
    h.finish()
}

/// The root positions of one split and their current leaves.
#[derive(Clone, Debug, Default)]
struct Roots {
    samples: Vec<data::Sample>,
    /// The key of each sample's current leaf (empty before the first recording).
    keys: Vec<u64>,
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
    /// Set by Ctrl-C: a search of the roots under way ends early.
    stop: Arc<AtomicBool>,
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
    /// [`resolve`](Self::resolve) at the starting weights first).
    pub fn new(model: Model, train: Vec<data::Sample>, valid: Vec<data::Sample>) -> Self {
        let keep = |v: Vec<data::Sample>| Roots {
            samples: v.into_iter().filter(|s| s.position().is_ok()).collect(),
            keys: Vec::new(),
        };
        Resolver {
            model,
            train: keep(train),
            valid: keep(valid),
            stop: Arc::new(AtomicBool::new(false)),
        }
    }

    /// The model.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// Searches every root at `w`, counts the positions whose leaf differs from the one found
    /// by the previous call, and records both sets at the new leaves (the tapes recorded at
    /// `w`). The sets hold exactly what [`record_samples`](crate::chess::record_samples) with
    /// [`Leaf::Qsearch`] at `w` would. `progress` advances by one per position searched and
    /// by one per position recorded. Once the [`stop`](Rerecord::set_stop) flag is set, the
    /// search ends early with an error and the leaves found so far are forgotten (the keys stay
    /// those of the previous call).
    pub fn resolve(
        &mut self,
        w: &[f64],
        progress: Option<&Progress>,
    ) -> Result<Recorded, TexelError> {
        if w.len() != self.model.len() {
            return Err(TexelError::Config(format!(
                "{} weights for a model of {} parameters",
                w.len(),
                self.model.len()
            )));
        }
        let stop = &*self.stop;
        let train_keys = self.train.keys.clone();
        let (train, train_changed) =
            resolve_roots(&self.model, &mut self.train, w, progress, stop)?;
        let (valid, valid_changed) =
            match resolve_roots(&self.model, &mut self.valid, w, progress, stop) {
                Ok(v) => v,
                Err(e) => {
                    // Both splits keep the previous leaves, or neither does.
                    self.train.keys = train_keys;
                    return Err(e);
                }
            };
        Ok(Recorded {
            train,
            valid,
            train_changed,
            valid_changed,
        })
    }
}

impl Rerecord for Resolver {
    /// Training and validation positions.
    fn positions(&self) -> (usize, usize) {
        (self.train.samples.len(), self.valid.samples.len())
    }

    /// A 64-bit fingerprint of every position's current leaf (equal fingerprints: the same
    /// leaves, but for a hash collision).
    fn fingerprint(&self) -> u64 {
        let mut h = DefaultHasher::new();
        self.train.keys.hash(&mut h);
        self.valid.keys.hash(&mut h);
        h.finish()
    }

    /// [`Resolver::resolve`].
    fn record(&mut self, w: &[f64], progress: Option<&Progress>) -> Result<Recorded, HookError> {
        Ok(self.resolve(w, progress)?)
    }

    /// Ends a [`resolve`](Resolver::resolve) under way once `stop` is set.
    fn set_stop(&mut self, stop: Arc<AtomicBool>) {
        self.stop = stop;
    }
}

/// Finds each root's leaf at `w`, updates the keys, records the set.
fn resolve_roots(
    model: &Model,
    roots: &mut Roots,
    w: &[f64],
    progress: Option<&Progress>,
    stop: &AtomicBool,
) -> Result<(CompiledSet, usize), TexelError> {
    let interrupted = || TexelError::Config("interrupted".to_string());
    let leaves: Vec<Option<(Chess, Target)>> = roots
        .samples
        .par_iter()
        .map(|s| {
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            let pos = s.position().ok()?;
            let leaf = leaf_position(model, &pos, w, Leaf::Qsearch);
            if let Some(pb) = progress {
                pb.advance(1);
            }
            Some((
                leaf,
                Target {
                    value: s.result,
                    score: s.score,
                    group: s.game,
                },
            ))
        })
        .collect();
    if stop.load(Ordering::Relaxed) {
        return Err(interrupted());
    }
    let leaves: Vec<(Chess, Target)> =
        leaves.into_iter().collect::<Option<_>>().ok_or_else(|| {
            TexelError::Config("a position that decoded once no longer decodes".to_string())
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
