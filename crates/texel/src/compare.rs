//! [`compare`]: every optimiser on the same data, model and budget, side by side.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::plot::{line_plot, Series};
use crate::TexelError;
use optim::Control;
use optim::Objective;
use optim::{run, Method, RunConfig, SolverOptions};
use optim::{Budget, LogRecord};
use optim::{Selection, Stopping};
use tapered::Progress;

/// One method's result.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CompareRow {
    /// The method.
    pub method: Method,
    /// Validation loss of the kept weights (training loss without a validation split).
    pub valid_loss: Option<f64>,
    /// The iteration kept, by the run's selection rule.
    #[serde(default)]
    pub best_iter: u64,
    /// Training loss of the kept weights.
    pub train_loss: f64,
    /// Seconds.
    pub seconds: f64,
    /// Passes over the training data.
    pub passes: f64,
    /// Iterations.
    pub iterations: u64,
    /// Why it stopped.
    pub reason: String,
    /// Its log.
    pub history: Vec<LogRecord>,
}

/// All methods' results.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Comparison {
    /// A description of the problem (model, data, K, positions).
    pub title: String,
    /// Validation and training loss at the start.
    pub start_loss: (Option<f64>, f64),
    /// The budget every method had.
    pub budget: Budget,
    /// One row per method.
    pub rows: Vec<CompareRow>,
}

/// What to compare, and how.
#[derive(Clone, Debug)]
pub struct CompareConfig {
    /// The methods, in order.
    pub methods: Vec<Method>,
    /// The budget each one gets.
    pub budget: Budget,
    /// The relative convergence rules.
    pub stopping: Stopping,
    /// Solver options.
    pub solvers: SolverOptions,
    /// How each run chooses the iterate it keeps.
    pub selection: Selection,
    /// Where each run reports its progress.
    pub progress: Progress,
    /// A description of the problem, for the table and plots.
    pub title: String,
}

/// Runs each of `cfg.methods` from `start` with the same budget and options.
pub fn compare(
    train: &Arc<Objective>,
    valid: Option<&Arc<Objective>>,
    start: &[f64],
    cfg: &CompareConfig,
    control: &Arc<Control>,
) -> Result<Comparison, TexelError> {
    let (budget, solvers, progress) = (cfg.budget, cfg.solvers, &cfg.progress);
    let mut rows = Vec::new();
    for &method in &cfg.methods {
        if control.interrupted() {
            break;
        }
        control.clear_reason();
        let cfg = RunConfig {
            method,
            budget,
            stopping: cfg.stopping,
            solvers,
            selection: cfg.selection,
            log: None,
            progress: progress.clone(),
            names: Vec::new(),
        };
        let out = run(train.clone(), valid.cloned(), start, &cfg, control.clone())?;
        rows.push(CompareRow {
            method,
            valid_loss: out.valid_loss.map(|v| v.1),
            best_iter: out.best_iter,
            train_loss: out.train_loss.1,
            seconds: out.spent.seconds,
            passes: out.spent.passes,
            iterations: out.spent.iterations,
            reason: out.reason,
            history: out.history,
        });
    }
    Ok(Comparison {
        title: cfg.title.clone(),
        start_loss: (valid.map(|v| v.data_loss(start)), train.data_loss(start)),
        budget,
        rows,
    })
}

impl Comparison {
    /// The markdown table: final validation loss, training loss at the same weights, time,
    /// passes and iterations, when the kept weights were reached, and why each stopped; best
    /// first.
    pub fn markdown(&self) -> String {
        let mut rows: Vec<&CompareRow> = self.rows.iter().collect();
        rows.sort_by(|a, b| {
            let ka = a.valid_loss.unwrap_or(a.train_loss);
            let kb = b.valid_loss.unwrap_or(b.train_loss);
            ka.total_cmp(&kb)
        });
        let mut s = format!(
            "| method | validation loss | training loss (same weights) | seconds | passes | iterations | kept weights reached at (passes, seconds) | stopped |\n\
             |---|---|---|---|---|---|---|---|\n| (start) | {} | {:.6} | | | | | |\n",
            self.start_loss.0.map_or("-".to_string(), |v| format!("{v:.6}")),
            self.start_loss.1
        );
        for r in rows {
            let kept = r
                .history
                .iter()
                .find(|h| h.iter == r.best_iter)
                .map_or("-".to_string(), |h| {
                    format!("{:.0}, {:.2}", h.passes, h.seconds)
                });
            s += &format!(
                "| {} | {} | {:.6} | {:.2} | {:.1} | {} | {} | {} |\n",
                r.method,
                r.valid_loss.map_or("-".to_string(), |v| format!("{v:.6}")),
                r.train_loss,
                r.seconds,
                r.passes,
                r.iterations,
                kept,
                r.reason.replace('|', "/")
            );
        }
        s
    }

    /// Reads a comparison written by [`write`](Self::write) (its `.json`).
    pub fn read(path: &Path) -> Result<Comparison, TexelError> {
        let text = std::fs::read_to_string(path).map_err(|e| TexelError::io(path, e))?;
        Ok(serde_json::from_str(&text)?)
    }

    fn series(&self, by_time: bool) -> Vec<Series> {
        self.rows
            .iter()
            .map(|r| {
                // Best validation loss so far, as the run would keep it.
                let mut best = f64::INFINITY;
                let pts = r
                    .history
                    .iter()
                    .map(|h| {
                        best = best.min(h.valid_loss.unwrap_or(h.train_loss));
                        let x = if by_time {
                            h.seconds.max(1e-4)
                        } else {
                            h.passes.max(0.5)
                        };
                        (x, best)
                    })
                    .collect();
                (r.method.name().to_string(), pts)
            })
            .collect()
    }

    /// Writes `<stem>.md`, `<stem>.json`, `<stem>-time.svg` and `<stem>-passes.svg` into `dir`;
    /// returns the paths. Each file is replaced atomically.
    pub fn write(&self, dir: &Path, stem: &str) -> Result<Vec<PathBuf>, TexelError> {
        std::fs::create_dir_all(dir).map_err(|e| TexelError::io(dir, e))?;
        let md = dir.join(format!("{stem}.md"));
        let text = format!("{}\n\n{}", self.title, self.markdown());
        crate::output::write(&md, &text)?;
        let json = dir.join(format!("{stem}.json"));
        crate::output::write(&json, &serde_json::to_string(self)?)?;
        let t = dir.join(format!("{stem}-time.svg"));
        let ylabel = "best validation loss so far";
        line_plot(
            &t,
            &self.title,
            "seconds (log scale)",
            ylabel,
            &self.series(true),
        )?;
        let p = dir.join(format!("{stem}-passes.svg"));
        line_plot(
            &p,
            &self.title,
            "passes over the training data (log scale)",
            ylabel,
            &self.series(false),
        )?;
        Ok(vec![md, json, t, p])
    }
}
