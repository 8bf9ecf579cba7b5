//! [`Tracker`]: the best weights by validation loss, and early stopping.

/// Keeps the weights with the lowest validation loss seen so far and counts the evaluations
/// since it last improved.
///
/// ```
/// let mut t = optim::Tracker::new(Some(2));
/// assert!(t.offer(1, 0.30, &[1.0]));
/// assert!(t.offer(2, 0.25, &[2.0]));
/// assert!(!t.offer(3, 0.26, &[3.0]));
/// assert!(!t.should_stop());
/// assert!(!t.offer(4, 0.27, &[4.0]));
/// assert!(t.should_stop()); // patience 2 exhausted
/// assert_eq!(t.best_weights(), Some(&[2.0][..]));
/// assert_eq!(t.best_iter(), Some(2));
/// ```
#[derive(Clone, Debug, Default)]
pub struct Tracker {
    patience: Option<usize>,
    best: Option<(u64, f64, Vec<f64>)>,
    since: usize,
}

impl Tracker {
    /// A tracker that asks to stop after `patience` evaluations without improvement (`None`:
    /// never).
    pub fn new(patience: Option<usize>) -> Self {
        Tracker {
            patience,
            best: None,
            since: 0,
        }
    }

    /// Offers the weights of iteration `iter` with validation loss `loss`; returns whether they
    /// are the new best. A non-finite loss is never the best.
    pub fn offer(&mut self, iter: u64, loss: f64, weights: &[f64]) -> bool {
        let better = loss.is_finite()
            && match &self.best {
                None => true,
                Some((_, b, _)) => loss < *b,
            };
        if better {
            self.best = Some((iter, loss, weights.to_vec()));
            self.since = 0;
        } else {
            self.since += 1;
        }
        better
    }

    /// Whether the patience is exhausted.
    pub fn should_stop(&self) -> bool {
        self.patience.is_some_and(|p| self.since >= p)
    }

    /// The lowest validation loss seen.
    pub fn best_loss(&self) -> Option<f64> {
        self.best.as_ref().map(|b| b.1)
    }

    /// The weights that had it.
    pub fn best_weights(&self) -> Option<&[f64]> {
        self.best.as_ref().map(|b| b.2.as_slice())
    }

    /// The iteration that had it.
    pub fn best_iter(&self) -> Option<u64> {
        self.best.as_ref().map(|b| b.0)
    }
}
