//! The files every run writes, and its summary.

use std::path::{Path, PathBuf};

use crate::finish::{finish, Polish, Rounding};
use crate::tunable::Tunable;
use serde::{Deserialize, Serialize};

use crate::TexelError;
use optim::regularise::L2Trial;
use optim::Decision;
use optim::Objective;
use optim::Resolution;
use optim::RunOutcome;
use optim::Wanderer;

/// Everything a run reports at the end (also written as `summary.json`, each part's fields at
/// its top level).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Summary {
    /// What was tuned: the method, the model, `K` and the positions.
    #[serde(flatten)]
    pub problem: Problem,
    /// The losses before and after, of the weights and of the integer weights.
    #[serde(flatten)]
    pub losses: Losses,
    /// How the run went: what it spent, which iterate it kept and why it stopped.
    #[serde(flatten)]
    pub course: Course,
    /// What held the weights: the L2 strength and its path, the smoothness and the prior,
    /// and the weights that moved furthest for their support.
    #[serde(flatten)]
    pub priors: Priors,
    /// The files written, by kind.
    pub files: Vec<(String, PathBuf)>,
}

/// What a run tuned ([`Summary::problem`]).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Problem {
    /// The method.
    pub method: String,
    /// The model.
    pub model: String,
    /// The sigmoid's `K`.
    pub k: f64,
    /// Whether `K` was fitted (rather than given).
    pub k_fitted: bool,
    /// The `K` the score labels were read with, where not the model's (`--score-k`).
    #[serde(default)]
    pub score_k: Option<f64>,
    /// Training and validation positions.
    pub positions: (usize, usize),
    /// Free parameters.
    pub free_params: usize,
}

/// A run's losses ([`Summary::losses`]).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Losses {
    /// Training loss before and after.
    pub train_loss: (f64, f64),
    /// Validation loss before and after.
    pub valid_loss: Option<(f64, f64)>,
    /// Training and validation loss of the integer weights (`weights-int.json`: integer
    /// parameters rounded, the others to fixed point, [`Tunable::round`], then polished where
    /// the model allows it: [`crate::finish`]).
    pub rounded_loss: (f64, Option<f64>),
    /// What centring moved and the rounding cost before and after the integer polish
    /// ([`crate::finish`]); empty for models that declare neither.
    #[serde(default)]
    pub rounding: Rounding,
}

/// How a run went ([`Summary::course`]).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Course {
    /// Seconds spent optimising.
    pub seconds: f64,
    /// Passes over the training data.
    pub passes: f64,
    /// Iterations.
    pub iterations: u64,
    /// The iteration whose weights were kept.
    pub best_iter: u64,
    /// Which selection rule kept them, and by how much.
    #[serde(default)]
    pub selection: Option<Decision>,
    /// Why the run stopped.
    pub reason: String,
    /// Each re-resolution of the quiescence leaves (`--resolve-every`): the iteration, how
    /// many training and validation leaves changed, of how many. Empty otherwise.
    #[serde(default)]
    pub resolutions: Vec<Resolution>,
}

/// What held a run's weights ([`Summary::priors`]).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Priors {
    /// The L2 strength of the kept weights.
    #[serde(default)]
    pub l2: f64,
    /// With `--l2 auto`: every strength tried, with its validation loss.
    #[serde(default)]
    pub l2_path: Vec<L2Trial>,
    /// The smoothness prior's strength (`--smooth`).
    #[serde(default)]
    pub smooth: f64,
    /// The prior's strength in positions (`--prior-positions`; 0: none): each weight counted
    /// as this many positions at its start value.
    #[serde(default)]
    pub prior_positions: f64,
    /// The weights that moved furthest for the positions behind them: the largest
    /// `|end - start| / sqrt(support + 1)`, largest first ([`optim::Support::wandering`];
    /// `docs/guide.md`, "Wandering weights").
    #[serde(default)]
    pub wandering: Vec<Wanderer>,
}

/// What a run's summary says of the support behind each weight: the prior's strength and the
/// wandering report (`tune lbfgs` and every tuner through [`crate::job::tune_as`]).
#[derive(Clone, Debug, Default)]
pub struct Held {
    /// The prior's strength in positions (0: none).
    pub prior_positions: f64,
    /// The wandering report.
    pub wandering: Vec<Wanderer>,
}

impl Problem {
    /// The summary's first lines: the method, model and positions, and `K`.
    fn to_text(&self) -> String {
        let mut s = format!(
            "{} on {} ({} free parameters), {} training / {} validation positions\n",
            self.method, self.model, self.free_params, self.positions.0, self.positions.1
        );
        let how = if self.k_fitted { "fitted" } else { "given" };
        s += &format!("K = {:.6} ({how})\n", self.k);
        if let Some(k) = self.score_k {
            s += &format!("scores read at K = {k:.6}\n");
        }
        s
    }
}

impl Losses {
    /// The summary's loss lines: before and after, of the integer weights, the rounding.
    fn to_text(&self) -> String {
        let valid = |v: Option<(f64, f64)>, i: usize| {
            v.map_or("-".to_string(), |v| {
                format!("{:.6}", if i == 0 { v.0 } else { v.1 })
            })
        };
        let mut s = format!(
            "loss      train {:.6} -> {:.6}   valid {} -> {}\n",
            self.train_loss.0,
            self.train_loss.1,
            valid(self.valid_loss, 0),
            valid(self.valid_loss, 1)
        );
        s += &format!(
            "rounded   train {:.6} ({:+.2e})   valid {}\n",
            self.rounded_loss.0,
            self.rounded_loss.0 - self.train_loss.1,
            match (self.rounded_loss.1, self.valid_loss) {
                (Some(r), Some(v)) => format!("{r:.6} ({:+.2e})", r - v.1),
                _ => "-".to_string(),
            }
        );
        s + &self.rounding.to_text()
    }
}

impl Course {
    /// The re-resolutions' line (none without them).
    fn resolutions_text(&self) -> String {
        if self.resolutions.is_empty() {
            return String::new();
        }
        let (t, v) = self.resolutions.iter().fold((0, 0), |(t, v), r| {
            (t + r.train_changed, v + r.valid_changed)
        });
        let each: Vec<String> = (self.resolutions.iter())
            .map(|r| format!("{}/{}", r.train_changed, r.valid_changed))
            .collect();
        format!(
            "leaves re-resolved {} times (losses above on the final leaves); changed \
             train/valid per re-resolution: {} (total {t}/{v})\n",
            self.resolutions.len(),
            each.join(", ")
        )
    }
}

impl Summary {
    /// The human-readable summary printed at the end of a run.
    pub fn to_text(&self) -> String {
        let (c, pr) = (&self.course, &self.priors);
        let mut s = self.problem.to_text() + &self.losses.to_text();
        s += &format!(
            "{:.2} s, {:.1} passes, {} iterations (best {}); {}\n",
            c.seconds, c.passes, c.iterations, c.best_iter, c.reason
        );
        if !pr.l2_path.is_empty() {
            let path: Vec<String> = (pr.l2_path.iter())
                .map(|t| format!("{:e} -> {:.6}", t.l2, t.valid_loss))
                .collect();
            s += &format!(
                "l2        {:e}, chosen on the validation split: {}\n",
                pr.l2,
                path.join(", ")
            );
        }
        if let Some(d) = &c.selection {
            s += &format!("selection {}\n", d.to_text());
        }
        s += &c.resolutions_text();
        s += &self.held_text();
        for (what, p) in &self.files {
            s += &format!("{what:>10}: {}\n", p.display());
        }
        s
    }

    /// The prior's line and the wandering report: each weight's name, start, end, move,
    /// support (positions and share) and measure.
    fn held_text(&self) -> String {
        let mut s = String::new();
        if self.priors.prior_positions > 0.0 {
            s += &format!(
                "prior     the start weights count as {} positions each (--prior-positions)\n",
                self.priors.prior_positions
            );
        }
        if self.priors.wandering.is_empty() {
            return s;
        }
        s += "wandering the largest moves for the positions behind them, |end - start| / \
              sqrt(support + 1):\n";
        for w in &self.priors.wandering {
            s += &format!(
                "  {:<24} {:>9.2} -> {:>9.2} ({:+.2}), support {} ({:.2}%): {:.3}\n",
                w.name,
                w.start,
                w.end,
                w.moved,
                w.support,
                100.0 * w.share,
                w.score
            );
        }
        s
    }
}

/// Adds (or replaces) the entry `key` of the `summary.json` in `dir` with `value`, keeping
/// everything else; e.g. `tune lbfgs --verify` adds the verification match as `verify`. The
/// file is replaced atomically ([`fsutil::atomic`]), so it is never left half-written.
pub fn add_to_summary(dir: &Path, key: &str, value: serde_json::Value) -> Result<(), TexelError> {
    let path = dir.join("summary.json");
    let text = std::fs::read_to_string(&path).map_err(|e| TexelError::io(&path, e))?;
    let mut doc: serde_json::Value = serde_json::from_str(&text)?;
    let Some(map) = doc.as_object_mut() else {
        return Err(TexelError::Config(format!(
            "{}: not a JSON object",
            path.display()
        )));
    };
    map.insert(key.to_string(), value);
    write(&path, &serde_json::to_string_pretty(&doc)?)
}

/// Writes `text` to `path` atomically ([`fsutil::atomic`]): a temporary file renamed into place.
pub(crate) fn write(path: &Path, text: &str) -> Result<(), TexelError> {
    fsutil::atomic::write(path, text).map_err(|e| TexelError::io(path, e))
}

/// Writes the model's weight files ([`Tunable::weight_files`], at the optimum centred and its
/// rounding polished: [`finish`]; for a built-in model
/// `weights.json`, `weights-int.json`, `tables.txt`, `weights.rs` and the source of every
/// other language in `emit`, e.g. `weights.h`) and `summary.json` into `dir` (the log,
/// `log.jsonl`, is written during the run) and returns the summary. `polish` bounds the
/// integer polish (its budget, stop flag and progress). Each file is replaced
/// atomically: an interrupted write leaves the previous file whole. `held` (the prior and
/// the wandering report) goes into the summary as it is.
#[allow(clippy::too_many_arguments)]
pub fn write_run<M: Tunable>(
    dir: &Path,
    model: &M,
    outcome: &RunOutcome,
    train: &Objective,
    valid: Option<&Objective>,
    k_fitted: bool,
    log: Option<&Path>,
    emit: &[trace::emit::Language],
    polish: &Polish,
    held: Held,
) -> Result<Summary, TexelError> {
    std::fs::create_dir_all(dir).map_err(|e| TexelError::io(dir, e))?;
    // The exactly flat directions centred, then rounded and polished on the training loss.
    let (w, wi, rounding) = finish(model, train, &outcome.weights, polish);
    let w = &w;
    let mut files = Vec::new();
    for (name, what, text) in model.weight_files(w, &wi, emit)? {
        let p = dir.join(name);
        write(&p, &text)?;
        files.push((what, p));
    }
    if let Some(l) = log {
        files.push(("log".to_string(), l.to_path_buf()));
    }
    let summary_path = dir.join("summary.json");
    files.push(("summary".to_string(), summary_path.clone()));
    let cfg = train.config();
    let summary = Summary {
        problem: Problem {
            method: outcome.method.name().to_string(),
            model: model.model_name(),
            k: cfg.link.k,
            k_fitted,
            score_k: cfg.score_k,
            positions: (train.set().len(), valid.map_or(0, |v| v.set().len())),
            free_params: train.dim(),
        },
        losses: Losses {
            train_loss: outcome.train_loss,
            valid_loss: outcome.valid_loss,
            rounded_loss: (train.data_loss(&wi), valid.map(|v| v.data_loss(&wi))),
            rounding,
        },
        course: Course {
            seconds: outcome.spent.seconds,
            passes: outcome.spent.passes,
            iterations: outcome.spent.iterations,
            best_iter: outcome.best_iter,
            selection: outcome.selection.clone(),
            reason: outcome.reason.clone(),
            resolutions: outcome.resolutions.clone(),
        },
        priors: Priors {
            l2: cfg.l2,
            l2_path: outcome.l2_path.clone(),
            smooth: cfg.smooth,
            prior_positions: held.prior_positions,
            wandering: held.wandering,
        },
        files,
    };
    write(&summary_path, &serde_json::to_string_pretty(&summary)?)?;
    Ok(summary)
}
