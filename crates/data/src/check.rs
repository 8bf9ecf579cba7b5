//! [`warnings`]: data that loads but is too small or too one-sided to tune on.

use crate::Sample;

/// Fewer positions than this draw a warning: a few thousand positions cannot pin down the
/// hundreds of weights of even the smallest model.
pub const MIN_POSITIONS: usize = 5_000;

/// Warnings (each starting with `warning: `) about a training and validation set: fewer than
/// [`MIN_POSITIONS`] positions, an empty validation split although `valid_fraction > 0`, and
/// a set whose positions all have the same result (every game 1-0, say). Empty when all is
/// well. `tune stats` passes its one set as `train` with no validation.
///
/// ```
/// use data::{warnings, Sample};
/// use shakmaty::Chess;
///
/// let s: Vec<Sample> = (0..3).map(|g| Sample::from_position(&Chess::default(), 1.0, None, g)).collect();
/// let w = warnings(&s, &[], 0.1);
/// assert_eq!(w.len(), 3, "{w:?}");
/// assert!(w[0].contains("only 3 positions"));
/// assert!(w[1].contains("validation split is empty"));
/// assert!(w[2].contains("every position has the result 1-0"));
/// ```
pub fn warnings(train: &[Sample], valid: &[Sample], valid_fraction: f64) -> Vec<String> {
    let mut out = Vec::new();
    let n = train.len() + valid.len();
    if n < MIN_POSITIONS {
        let split = if valid.is_empty() {
            String::new()
        } else {
            format!(" ({} training, {} validation)", train.len(), valid.len())
        };
        out.push(format!(
            "warning: only {n} positions{split}: fewer than {MIN_POSITIONS} are too few to \
             tune hundreds of weights; the fit will follow these positions' noise"
        ));
    }
    if valid_fraction > 0.0 && valid.is_empty() && !train.is_empty() {
        out.push(format!(
            "warning: the validation split is empty: holding out {valid_fraction} of {} games \
             left none, so the weights are kept by training loss without a held-out check \
             (give more games)",
            games(train)
        ));
    }
    let all = single_result(train.iter().chain(valid));
    if let Some(r) = all {
        out.push(format!(
            "warning: every position has the result {} ({n} positions): the loss only pushes \
             every evaluation one way, and the tuned weights will mean little",
            result_name(r)
        ));
    } else {
        for (what, set) in [("training", train), ("validation", valid)] {
            if let Some(r) = single_result(set.iter()) {
                out.push(format!(
                    "warning: every {what} position has the result {} ({} positions)",
                    result_name(r),
                    set.len()
                ));
            }
        }
    }
    out
}

/// The one result shared by every sample, if there are samples and they share one.
fn single_result<'a>(mut samples: impl Iterator<Item = &'a Sample>) -> Option<f64> {
    let first = samples.next()?.result;
    samples.all(|s| s.result == first).then_some(first)
}

fn result_name(r: f64) -> String {
    if r == 1.0 {
        "1-0".to_string()
    } else if r == 0.5 {
        "1/2-1/2".to_string()
    } else if r == 0.0 {
        "0-1".to_string()
    } else {
        format!("{r}")
    }
}

fn games(samples: &[Sample]) -> usize {
    let mut g: Vec<u32> = samples.iter().map(|s| s.game).collect();
    g.sort_unstable();
    g.dedup();
    g.len()
}
