//! From the optimum to the written integers, keeping the fit: centre the exactly flat
//! directions a model declares ([`Tunable::centre`]), round ([`Tunable::round`]), then polish
//! the rounded weights by integer steps on the training loss ([`polish`]), reporting what
//! each step cost or saved ([`Rounding`]).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use optim::{Columns, Kept, Objective};
use serde::{Deserialize, Serialize};
use tapered::{Progress, ProgressEvent, Stop};

use crate::tunable::Tunable;

mod nearest;

pub use nearest::{nearest_plane, NEAREST_MAX, NEAREST_SAMPLE};

/// The most sweeps of the integer polish (each one try a movable weight at most, plus one pass
/// for the gradient); it stops earlier when a sweep moves nothing.
pub const POLISH_SWEEPS: usize = 8;

/// A sweep of the polish ends after this many tries in a row that do not lower the loss: the
/// tries go by slope, largest first, so past a run of refusals the rest (smaller slopes) are
/// unlikely to pay for what they cost (each its weight's positions).
pub const POLISH_PATIENCE: usize = 64;

/// The most passes of the training set the integer polish takes by default (each sweep's
/// gradient is one, the index and kept evaluations before the first try two, a try the
/// fraction of the positions its weight changes): it stops there, keeping the steps found so
/// far.
pub const POLISH_PASSES: usize = 1_000;

/// The most wall-clock time the integer polish takes by default: it stops at the first try
/// after it, keeping the steps found so far (so a run whose polish is cut by time depends on
/// the machine's speed: the summary says so, `polish_cut: "time"`).
pub const POLISH_SECONDS: f64 = 60.0;

/// How far the integer polish may go, and whom it tells: the budget of passes and of time, a
/// stop flag
/// (Ctrl-C: the polish ends at its next try, keeping the steps found so far) and the progress
/// callback (a task "polish" of `passes` steps, one a pass).
#[derive(Clone)]
pub struct Polish {
    /// The most passes ([`POLISH_PASSES`] by default; 0: no polish, plain rounding).
    pub passes: usize,
    /// The most seconds ([`POLISH_SECONDS`] by default; `None`: no limit).
    pub seconds: Option<f64>,
    /// Set to end the polish early (the run's interrupt flag).
    pub stop: Option<Arc<AtomicBool>>,
    /// Where the polish reports its passes.
    pub progress: Progress,
}

impl Default for Polish {
    fn default() -> Polish {
        Polish {
            passes: POLISH_PASSES,
            seconds: Some(POLISH_SECONDS),
            stop: None,
            progress: Progress::none(),
        }
    }
}

/// What the integer polish did.
#[derive(Clone, Debug, PartialEq)]
pub struct Polished {
    /// The training data loss at the polished weights (never above the loss it started at).
    pub loss: f64,
    /// Integer steps kept.
    pub moves: usize,
    /// Integer steps tried (kept or not).
    pub tries: usize,
    /// Sweeps begun.
    pub sweeps: usize,
    /// Passes taken (gradients, the index, the tries' positions; a part of one counts as one).
    pub passes: usize,
    /// Why it stopped before it ran out of steps that pay: `"budget"` (its passes spent),
    /// `"time"` (its seconds) or `"interrupted"` (the stop flag); `None` if it finished.
    pub cut: Option<&'static str>,
}

/// One group's mean moved by centring (a serialisable [`trace::CentreMove`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Centred {
    /// The group and phase it came out of, e.g. `pst_rank[1].mg`.
    pub from: String,
    /// The weight it went into, e.g. `material[1].mg` (empty: a set centred into nothing).
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
    /// Rounding cost on the training data loss of each weight rounded alone (rounded minus
    /// unrounded).
    #[serde(default)]
    pub plain_rounding_cost: f64,
    /// The same for the nearest-plane rounding ([`nearest_plane`]), if it was made (not for a
    /// polish of 0 passes, more than [`NEAREST_MAX`] movable weights, or a matrix that cannot
    /// be factored).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nearest_plane_cost: Option<f64>,
    /// Rounding cost before the polish: the lower of the two.
    pub cost_before_polish: f64,
    /// After it (the written `weights-int.json`).
    pub cost_after_polish: f64,
    /// Integer steps the polish kept.
    pub polish_moves: usize,
    /// Integer steps it tried (kept or not).
    #[serde(default)]
    pub polish_tries: usize,
    /// Sweeps it ran.
    pub polish_sweeps: usize,
    /// Passes of the training set it took.
    #[serde(default)]
    pub polish_passes: usize,
    /// Why it stopped early (`"budget"`, `"time"`, `"interrupted"`), if it did: the weights are the
    /// best found until then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub polish_cut: Option<String>,
}

impl Rounding {
    /// Lines for the run's summary text (none when nothing was centred or polished).
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let moved: Vec<String> = self
            .centred
            .iter()
            .filter(|c| !c.skipped && (c.added != 0.0 || c.mean != 0.0))
            .map(|c| match c.into.as_str() {
                "" => format!("{} {:+.2} (into nothing)", c.from, -c.mean),
                into => format!("{} -> {into} {:+.2}", c.from, c.added),
            })
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
        if let Some(n) = self.nearest_plane_cost {
            s += &format!(
                "rounding  cost {:+.2e} each weight alone, {:+.2e} by the nearest plane: {} kept\n",
                self.plain_rounding_cost,
                n,
                if n < self.plain_rounding_cost {
                    "the nearest plane's"
                } else {
                    "each alone"
                }
            );
        }
        if self.polish_sweeps == 0 && self.polish_cut.as_deref() == Some("budget") {
            s += &format!(
                "polish    none (a budget of 0 passes): rounding cost {:+.2e}\n",
                self.cost_after_polish
            );
        } else if self.polish_sweeps > 0 {
            let cut = match &self.polish_cut {
                Some(why) => format!(", stopped early: {why}"),
                None => String::new(),
            };
            s += &format!(
                "polish    rounding cost {:+.2e} -> {:+.2e} ({} integer steps of {} tried, {} sweeps, {} passes{cut})\n",
                self.cost_before_polish,
                self.cost_after_polish,
                self.polish_moves,
                self.polish_tries,
                self.polish_sweeps,
                self.polish_passes
            );
        }
        s
    }
}

/// The weights a run writes from its optimum `w`: centred (unrounded) and rounded-and-polished
/// integers, with the report. `train` judges the polish and the costs (its data loss);
/// `how` bounds the polish.
pub fn finish<M: Tunable>(
    model: &M,
    train: &Objective,
    w: &[f64],
    how: &Polish,
) -> (Vec<f64>, Vec<f64>, Rounding) {
    let before = train.data_loss(w);
    let (wc, moves) = model.centre(w);
    let centred_loss = if moves.is_empty() {
        before
    } else {
        train.data_loss(&wc)
    };
    let mut wi = model.round(&wc);
    let mut rounded = train.data_loss(&wi);
    let plain = rounded;
    let movable = model.polish_moves();
    let stopped = how.stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed));
    let started = Instant::now();
    let nearest = (how.passes > 0 && !stopped)
        .then(|| nearest_plane(train, &wc, &wi, &movable))
        .flatten()
        .map(|wb| (train.data_loss(&wb), wb));
    let nearest_cost = nearest.as_ref().map(|(l, _)| l - centred_loss);
    if let Some((l, wb)) = nearest.filter(|(l, _)| *l < rounded) {
        (wi, rounded) = (wb, l);
    }
    // The nearest-plane rounding's time counts in the polish's.
    let how = &Polish {
        seconds: (how.seconds).map(|s| (s - started.elapsed().as_secs_f64()).max(0.0)),
        ..how.clone()
    };
    let p = polish(train, &mut wi, &movable, &model.phase_pairs(), rounded, how);
    let report = Rounding {
        centred: moves.into_iter().map(Centred::from).collect(),
        centring_change: centred_loss - before,
        plain_rounding_cost: plain - centred_loss,
        nearest_plane_cost: nearest_cost,
        cost_before_polish: rounded - centred_loss,
        cost_after_polish: p.loss - centred_loss,
        polish_moves: p.moves,
        polish_tries: p.tries,
        polish_sweeps: p.sweeps,
        polish_passes: p.passes,
        polish_cut: p.cut.map(str::to_string),
    };
    (wc, wi, report)
}

/// Texel's integer local search on the rounded weights `wi` (in place) over the weights
/// `movable` that are free in `train` (frozen ones stay): each sweep takes the gradient, then
/// tries one step of 1 against it on each movable weight, largest slope first, and keeps it
/// when the training data loss drops (inside the weight's bounds), until [`POLISH_PATIENCE`]
/// tries in a row are refused. Stops when a sweep keeps nothing, after [`POLISH_SWEEPS`],
/// when `how.passes` passes or `how.seconds` are spent or when `how.stop` is set, keeping the
/// steps kept so far. `loss` is the data loss at `wi`; the loss returned is the data loss at
/// the weights left (never above `loss`: a step is kept only if it lowers the loss).
///
/// A try costs what it changes: before the first try, an index of the positions each movable
/// weight changes ([`optim::Columns`]; `twins`, the model's [`Tunable::phase_pairs`] or empty,
/// lets a tapered element's two weights share one column) and every position's evaluation
/// ([`optim::Kept`]) are made (counted as two passes); a try then evaluates only its weight's
/// column (a linear row moved by the step times its coefficient, any other scored afresh),
/// counted as that fraction of a pass, and a kept step updates only those positions. A sweep
/// costs about one pass besides its gradient. The steps kept are those of trying each step on
/// a whole pass (the loss change is the same sum, in another order).
pub fn polish(
    train: &Objective,
    wi: &mut [f64],
    movable: &[usize],
    twins: &[Option<usize>],
    loss: f64,
    how: &Polish,
) -> Polished {
    let free = train.free();
    // (full index, free coordinate) of every weight the polish may move.
    let coords: Vec<(usize, usize)> = free
        .iter()
        .enumerate()
        .filter(|(_, i)| movable.contains(i))
        .map(|(k, &i)| (i, k))
        .collect();
    let mut out = Polished {
        loss,
        moves: 0,
        tries: 0,
        sweeps: 0,
        passes: 0,
        cut: None,
    };
    if coords.is_empty() || !loss.is_finite() {
        return out;
    }
    how.progress.send(ProgressEvent::Begin {
        what: "polish",
        len: how.passes as u64,
    });
    let mut meter = Meter::new(how, train.set().len());
    let mut index = Index {
        train,
        twins,
        built: None,
    };
    while out.sweeps < POLISH_SWEEPS {
        let kept = sweep(wi, &coords, &mut index, &mut meter, &mut out);
        if kept == 0 || out.cut.is_some() {
            break;
        }
    }
    if out.moves > 0 {
        // The kept losses' running sum is the same sum in another order: report a pass's.
        out.loss = train.data_loss(wi);
    }
    out.passes = meter.passes();
    meter.end();
    out
}

/// What the polish has spent, in positions evaluated (a pass is every position), against its
/// budget of passes, its deadline and its stop flag.
struct Meter<'a> {
    how: &'a Polish,
    deadline: Option<Instant>,
    /// Positions a pass.
    len: u64,
    /// Positions evaluated so far.
    used: u64,
    /// Passes reported to the progress callback.
    shown: u64,
}

impl<'a> Meter<'a> {
    fn new(how: &'a Polish, len: usize) -> Meter<'a> {
        let deadline = how
            .seconds
            .and_then(|s| Duration::try_from_secs_f64(s.max(0.0)).ok())
            .and_then(|d| Instant::now().checked_add(d));
        Meter {
            how,
            deadline,
            len: len.max(1) as u64,
            used: 0,
            shown: 0,
        }
    }

    /// Whether work over `positions` may start (the stop flag not set, the budget not
    /// exceeded by it, the deadline not passed); counts it if so, else says in `out` why not.
    fn spend(&mut self, positions: usize, out: &mut Polished) -> bool {
        let how = self.how;
        let after = self.used + positions as u64;
        if how.stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed)) {
            out.cut = Some("interrupted");
        } else if after > (how.passes as u64).saturating_mul(self.len) {
            out.cut = Some("budget");
        } else if self.deadline.is_some_and(|d| Instant::now() >= d) {
            out.cut = Some("time");
        } else {
            self.used = after;
            let whole = self.used / self.len;
            if whole > self.shown {
                how.progress.advance(whole - self.shown);
                self.shown = whole;
            }
        }
        out.cut.is_none()
    }

    /// Whether a whole pass may start (and counts it).
    fn pass(&mut self, out: &mut Polished) -> bool {
        self.spend(self.len as usize, out)
    }

    /// Passes spent, a part of one counting as one.
    fn passes(&self) -> usize {
        self.used.div_ceil(self.len) as usize
    }

    /// Reports the last part of a pass and ends the progress task.
    fn end(self) {
        let total = self.used.div_ceil(self.len);
        if total > self.shown {
            self.how.progress.advance(total - self.shown);
        }
        self.how.progress.end();
    }
}

/// The column index and the kept evaluations, made before the first try.
struct Index<'a> {
    train: &'a Objective,
    twins: &'a [Option<usize>],
    built: Option<(Columns, Kept<'a>)>,
}

impl<'a> Index<'a> {
    /// The index over the weights of `coords` and the evaluations at `wi`, made now if not yet
    /// (two passes on `meter`); `None` if the meter refuses them or the stop flag ends the
    /// build (`out` says why).
    fn get(
        &mut self,
        coords: &[(usize, usize)],
        wi: &[f64],
        meter: &mut Meter,
        out: &mut Polished,
    ) -> Option<&mut (Columns, Kept<'a>)> {
        if self.built.is_none() {
            if !meter.spend(2 * meter.len as usize, out) {
                return None;
            }
            let weights: Vec<usize> = coords.iter().map(|&(i, _)| i).collect();
            let flag = meter.how.stop.as_deref();
            let stop = flag.map_or(Stop::Never, Stop::from);
            let Some(columns) = Columns::build(self.train.set(), &weights, self.twins, stop) else {
                out.cut = Some("interrupted");
                return None;
            };
            self.built = Some((columns, Kept::new(self.train, wi)));
        }
        self.built.as_mut()
    }
}

/// One sweep of [`polish`]: the gradient, then the tries by slope; returns the steps kept
/// (and counts them, the sweep and its cost into `out` and `meter`, with the cause if it was
/// cut).
fn sweep(
    wi: &mut [f64],
    coords: &[(usize, usize)],
    index: &mut Index,
    meter: &mut Meter,
    out: &mut Polished,
) -> usize {
    let train = index.train;
    let bounds = train.bounds();
    if !meter.pass(out) {
        return 0;
    }
    out.sweeps += 1;
    let (_, g) = train.value_and_gradient(&train.reduce(wi));
    let mut order: Vec<(usize, usize)> = coords.to_vec();
    order.sort_by(|a, b| g[b.1].abs().total_cmp(&g[a.1].abs()));
    let n = meter.len as f64;
    let (mut kept, mut refused) = (0, 0);
    for (i, k) in order {
        if refused >= POLISH_PATIENCE {
            break;
        }
        if g[k] == 0.0 || !g[k].is_finite() {
            continue;
        }
        let v = wi[i] - g[k].signum();
        if bounds
            .get(k)
            .is_some_and(|&(lo, hi)| !(lo..=hi).contains(&v))
        {
            continue;
        }
        let Some((columns, evals)) = index.get(coords, wi, meter, out) else {
            break;
        };
        if !meter.spend(columns.entries(i), out) {
            break;
        }
        out.tries += 1;
        let tried = evals.try_weight(columns, i, v);
        if tried.change < 0.0 {
            out.loss += tried.change / n;
            evals.keep(columns, tried);
            wi[i] = v;
            kept += 1;
            refused = 0;
        } else {
            refused += 1;
        }
    }
    out.moves += kept;
    kept
}
