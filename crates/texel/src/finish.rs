//! From the optimum to the written integers, keeping the fit: centre the exactly flat
//! directions a model declares ([`Tunable::centre`]), round ([`Tunable::round`]), then polish
//! the rounded weights by integer steps on the training loss ([`polish`]), reporting what
//! each step cost or saved ([`Rounding`]).

use optim::Objective;
use serde::{Deserialize, Serialize};

use crate::tunable::Tunable;

/// The most sweeps of the integer polish (each at most one pass a movable weight, plus one for
/// the gradient); it stops earlier when a sweep moves nothing.
pub const POLISH_SWEEPS: usize = 8;

/// A sweep of the polish ends after this many tries in a row that do not lower the loss: the
/// tries go by slope, largest first, so past a run of refusals the rest (smaller slopes) are
/// unlikely to pay for their pass each.
pub const POLISH_PATIENCE: usize = 64;

/// One group's mean moved by centring (a serialisable [`trace::CentreMove`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Centred {
    /// The group and phase it came out of, e.g. `pst_rank[1].mg`.
    pub from: String,
    /// The weight it went into, e.g. `material[1].mg`.
    pub into: String,
    /// The mean taken out of the group.
    pub mean: f64,
    /// What the weight gained.
    pub added: f64,
    /// Left alone because a value would leave its bounds.
    pub skipped: bool,
}

impl From<trace::CentreMove> for Centred {
    fn from(m: trace::CentreMove) -> Self {
        Centred {
            from: m.from,
            into: m.into,
            mean: m.mean,
            added: m.added,
            skipped: m.skipped,
        }
    }
}

/// What centring and the integer polish did, for the summary.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Rounding {
    /// Every centred group and phase.
    pub centred: Vec<Centred>,
    /// Training data loss of the unrounded weights after centring minus before (0 up to
    /// floating-point rounding when the declared directions are flat).
    pub centring_change: f64,
    /// Rounding cost on the training data loss before the polish (rounded minus unrounded).
    pub cost_before_polish: f64,
    /// After it (the written `weights-int.json`).
    pub cost_after_polish: f64,
    /// Integer steps the polish kept.
    pub polish_moves: usize,
    /// Sweeps it ran.
    pub polish_sweeps: usize,
}

impl Rounding {
    /// Lines for the run's summary text (none when nothing was centred or polished).
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let moved: Vec<String> = self
            .centred
            .iter()
            .filter(|c| !c.skipped && c.added != 0.0)
            .map(|c| format!("{} -> {} {:+.2}", c.from, c.into, c.added))
            .collect();
        let skipped = self.centred.iter().filter(|c| c.skipped).count();
        if !self.centred.is_empty() {
            s += &format!(
                "centred   {} group means (training loss {:+.1e}){}: {}\n",
                moved.len(),
                self.centring_change,
                if skipped > 0 {
                    format!(", {skipped} left alone (bounds)")
                } else {
                    String::new()
                },
                moved.join(", ")
            );
        }
        if self.polish_sweeps > 0 {
            s += &format!(
                "polish    rounding cost {:+.2e} -> {:+.2e} ({} integer steps, {} sweeps)\n",
                self.cost_before_polish,
                self.cost_after_polish,
                self.polish_moves,
                self.polish_sweeps
            );
        }
        s
    }
}

/// The weights a run writes from its optimum `w`: centred (unrounded) and rounded-and-polished
/// integers, with the report. `train` judges the polish and the costs (its data loss).
pub fn finish<M: Tunable>(
    model: &M,
    train: &Objective,
    w: &[f64],
) -> (Vec<f64>, Vec<f64>, Rounding) {
    let before = train.data_loss(w);
    let (wc, moves) = model.centre(w);
    let centred_loss = if moves.is_empty() {
        before
    } else {
        train.data_loss(&wc)
    };
    let mut wi = model.round(&wc);
    let rounded = train.data_loss(&wi);
    let movable = model.polish_moves();
    let (polished, moved, sweeps) = polish(train, &mut wi, &movable, rounded);
    let report = Rounding {
        centred: moves.into_iter().map(Centred::from).collect(),
        centring_change: centred_loss - before,
        cost_before_polish: rounded - centred_loss,
        cost_after_polish: polished - centred_loss,
        polish_moves: moved,
        polish_sweeps: sweeps,
    };
    (wc, wi, report)
}

/// Texel's integer local search on the rounded weights `wi` (in place) over the weights
/// `movable` that are free in `train` (frozen ones stay): each sweep takes the gradient, then
/// tries one step of 1 against it on each movable weight, largest slope first, and keeps it
/// when the training data loss drops (inside the weight's bounds), until [`POLISH_PATIENCE`]
/// tries in a row are refused. Stops when a sweep keeps nothing, or after [`POLISH_SWEEPS`]. `loss` is the data loss at `wi`; returns the final
/// loss (never above `loss`), the steps kept and the sweeps run.
pub fn polish(
    train: &Objective,
    wi: &mut [f64],
    movable: &[usize],
    mut loss: f64,
) -> (f64, usize, usize) {
    let free = train.free();
    let bounds = train.bounds();
    // (full index, free coordinate) of every weight the polish may move.
    let coords: Vec<(usize, usize)> = free
        .iter()
        .enumerate()
        .filter(|(_, i)| movable.contains(i))
        .map(|(k, &i)| (i, k))
        .collect();
    if coords.is_empty() || !loss.is_finite() {
        return (loss, 0, 0);
    }
    let (mut moves, mut sweeps) = (0, 0);
    while sweeps < POLISH_SWEEPS {
        sweeps += 1;
        let (_, g) = train.value_and_gradient(&train.reduce(wi));
        let mut order: Vec<(usize, usize)> = coords.clone();
        order.sort_by(|a, b| g[b.1].abs().total_cmp(&g[a.1].abs()));
        let (mut kept, mut refused) = (0, 0);
        for (i, k) in order {
            if refused >= POLISH_PATIENCE {
                break;
            }
            if g[k] == 0.0 || !g[k].is_finite() {
                continue;
            }
            let old = wi[i];
            let v = old - g[k].signum();
            if bounds
                .get(k)
                .is_some_and(|&(lo, hi)| !(lo..=hi).contains(&v))
            {
                continue;
            }
            wi[i] = v;
            let l = train.data_loss(wi);
            if l < loss {
                loss = l;
                kept += 1;
                refused = 0;
            } else {
                wi[i] = old;
                refused += 1;
            }
        }
        moves += kept;
        if kept == 0 {
            break;
        }
    }
    (loss, moves, sweeps)
}
