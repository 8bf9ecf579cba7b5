//! The check that the directions a model declares exactly flat ([`Tunable::flat_directions`]:
//! a manifest's `centre`) are flat on the positions of a run: moving the weights along them
//! leaves every recorded evaluation as it was. Run once after the load, before the fit
//! ([`setup::prepare_as`](crate::setup::prepare_as)), so that centring (which moves along them
//! after the fit, [`crate::finish`]) never changes what the engine plays.
//!
//! One move along all the directions at once, each by its own amount from a fixed sequence
//! (two passes of scores a set): flat directions add up to a flat move, and a direction that
//! is not flat shows unless the others cancel it exactly in every position, which amounts
//! drawn apart make as good as impossible. Only when that move changes an evaluation is each
//! direction moved alone, to name the one at fault.

use tapered::CompiledSet;
use trace::FlatDirection;

use crate::tunable::Tunable;
use crate::TexelError;

/// How far an evaluation may move (centipawns) and still count as unchanged: rounding of the
/// sums, far below what any weight moved by 1 changes (a phase factor of 1/24 times an endgame
/// scale of 1/128 is 3.3e-4).
fn tolerance(q: f64) -> f64 {
    1e-7 + 1e-10 * q.abs()
}

/// The amount direction `k` moves by in the combined move: in `[1, 2)`, spread by the golden
/// ratio, so that no two are alike.
fn amount(k: usize) -> f64 {
    1.0 + (k as f64 * 0.618_033_988_749_894_9).fract()
}

/// What moving `dirs` by `amounts` from `w` does to the positions of `set` (scores `q0` at `w`):
/// how many evaluations change beyond rounding, and the largest change.
fn changes(
    set: &CompiledSet,
    w: &[f64],
    q0: &[f64],
    moves: &[(&FlatDirection, f64)],
) -> (usize, f64) {
    let mut moved = w.to_vec();
    for (d, by) in moves {
        for &(i, c) in &d.weights {
            moved[i] += by * c;
        }
    }
    let mut q = vec![0.0; set.len()];
    set.scores(&moved, &mut q);
    q.iter()
        .zip(q0)
        .map(|(a, b)| (a - b).abs())
        .zip(q0)
        .filter(|(d, b)| *d > tolerance(**b))
        .fold((0, 0.0), |(n, worst), (d, _)| (n + 1, d.max(worst)))
}

/// Checks `model`'s flat directions on each named set (`("training", set)`) at the weights
/// `w`: an error naming the first declaration whose direction changes an evaluation, with
/// how many and by how much.
pub fn check<M: Tunable>(
    model: &M,
    sets: &[(&str, &CompiledSet)],
    w: &[f64],
) -> Result<(), TexelError> {
    let dirs = model.flat_directions();
    if dirs.is_empty() {
        return Ok(());
    }
    let all: Vec<(&FlatDirection, f64)> = dirs
        .iter()
        .enumerate()
        .map(|(k, d)| (d, amount(k)))
        .collect();
    for &(what, set) in sets.iter().filter(|(_, s)| !s.is_empty()) {
        let mut q0 = vec![0.0; set.len()];
        set.scores(w, &mut q0);
        if changes(set, w, &q0, &all).0 == 0 {
            continue;
        }
        for d in &dirs {
            let (n, worst) = changes(set, w, &q0, &[(d, 1.0)]);
            if n > 0 {
                return Err(not_flat(d, n, set.len(), what, worst));
            }
        }
        // Each alone is flat, only together not: not flat either (a non-linear head).
        return Err(TexelError::Config(format!(
            "the directions the manifest declares flat (`centre`) are flat one by one but not \
             together: moving them all changes {what} evaluations; declare fewer"
        )));
    }
    Ok(())
}

/// The refusal of direction `d`: `n` of `len` positions of the `what` set changed, by up to
/// `worst`.
fn not_flat(d: &FlatDirection, n: usize, len: usize, what: &str, worst: f64) -> TexelError {
    let moved: Vec<String> = d
        .weights
        .iter()
        .filter(|(_, c)| *c != 1.0)
        .map(|(_, c)| format!("{c}"))
        .collect();
    let by = if moved.is_empty() {
        "by 1".to_string()
    } else {
        format!("by 1 (the value by {})", moved.join(", "))
    };
    TexelError::Config(format!(
        "{}: the direction `{}` is declared flat but is not on the traces: moving it {by} \
         changes the evaluation of {n} of {len} {what} positions (by up to {worst:.4} cp). \
         Every position must gain from the elements exactly what `into` loses (`scale` times \
         as much); check the elements, `scale` and `exclude`, or remove the entry",
        d.at, d.what
    ))
}
