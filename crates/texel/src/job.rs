//! [`tune`]: one whole tuning run into a directory, as `tune lbfgs` (and every other tuning
//! subcommand) does it: [`prepare`](crate::setup::prepare), [`run`](optim::run) or
//! [`run_resolving`](optim::run_resolving), then [`write_run`]. Shared by the `tune` binary
//! and by libraries that tune as one step of something larger (the `bootstrap` crate).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use eval::Model;

use crate::finish::Polish;
use crate::output::{write_run, Held, Summary};
use crate::setup::{prepare_as, BuiltIn, Setup, SetupOptions};
use crate::tunable::Tunable;
use crate::TexelError;
use optim::regularise::run_l2_path;
use optim::Control;
use optim::{Objective, ObjectiveConfig};
use optim::{RunConfig, RunOutcome};
use tapered::Stop;

/// A tuning run of a model whose source is `S` ([`Tunable::Source`]): the problem, how to
/// optimise it, and where its files go.
#[derive(Clone, Debug)]
pub struct Job<S = BuiltIn> {
    /// The problem (source, start weights, split, objective).
    pub setup: SetupOptions<S>,
    /// Method, budget and solver options; its `log` is set by [`tune`].
    pub config: RunConfig,
    /// Search the quiescence leaves again every this many iterations (0: never); needs
    /// `setup.source.resolvable`.
    pub resolve_every: u64,
    /// The run's directory: `weights.json`, `summary.json`, `log.jsonl`, ...
    pub out: PathBuf,
    /// Append this run's log to an existing `log.jsonl` (continuing a run) instead of
    /// replacing it.
    pub append_log: bool,
    /// Choose the L2 strength on the validation split among these (strongest first;
    /// `setup.objective.l2` is then ignored): see [`run_l2_path`]. Without a validation split, or with
    /// `resolve_every`, the strength is the model's [`default_l2`](crate::setup::default_l2)
    /// instead, and the notes say so.
    pub l2_path: Option<Vec<f64>>,
    /// Source code to write besides `weights.rs` (e.g. C: `weights.h`).
    pub emit: Vec<trace::emit::Language>,
    /// The most passes of the training set the integer polish of the rounded weights takes
    /// ([`POLISH_PASSES`](crate::finish::POLISH_PASSES) as a default; 0: no polish, plain
    /// rounding).
    pub polish_passes: usize,
}

/// The run directory used when none is given: `runs/<method>-<unix time>`.
pub fn default_out(method: optim::Method) -> PathBuf {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    PathBuf::from("runs").join(format!("{}-{secs}", method.name()))
}

/// The weights a run continued in `out` starts from (`out/weights.json`), or an error naming
/// the file when there is none.
pub fn resume_weights(out: &Path) -> Result<PathBuf, TexelError> {
    let w = out.join("weights.json");
    if w.is_file() {
        Ok(w)
    } else {
        Err(TexelError::Config(format!(
            "cannot continue the run in {}: {} does not exist",
            out.display(),
            w.display()
        )))
    }
}

/// A finished tuning run.
#[derive(Debug)]
pub struct Tuned<M: Tunable = Model> {
    /// What was written to `summary.json`.
    pub summary: Summary,
    /// The run itself (best weights, losses, why it stopped).
    pub outcome: RunOutcome,
    /// The model.
    pub model: M,
    /// The starting weights.
    pub start: Vec<f64>,
}

/// Runs `job` on a built-in model ([`tune_as`] for [`Model`]).
pub fn tune(
    job: &Job,
    control: Arc<Control>,
    on_prepared: &mut dyn FnMut(&Setup),
) -> Result<Tuned, TexelError> {
    tune_as::<Model>(job, control, on_prepared)
}

/// Runs `job` on a model of type `M`: prepares the problem (calling `on_prepared` once it is
/// recorded, e.g. to print its notes), optimises under `control`, and writes the run's files
/// into `job.out`.
pub fn tune_as<M: Tunable>(
    job: &Job<M::Source>,
    control: Arc<Control>,
    on_prepared: &mut dyn FnMut(&Setup<M>),
) -> Result<Tuned<M>, TexelError> {
    let out = &job.out;
    // Bad options fail before the data is loaded.
    job.config.check()?;
    std::fs::create_dir_all(out).map_err(|e| TexelError::io(out, e))?;
    let mut setup = prepare_as::<M>(&job.setup, Stop::When(&|| control.interrupted()))?;
    let log_path = out.join("log.jsonl");
    let mut cfg = job.config.clone();
    cfg.names = setup.model.names();
    // Continuing a run keeps the earlier log: write this run's beside it, then append.
    let part = job.append_log.then(|| out.join("log-resume.jsonl"));
    cfg.log = Some(part.clone().unwrap_or_else(|| log_path.clone()));
    let l2_path = l2_path_or_default(&mut setup, job.l2_path.as_ref())?;
    let polish = Polish {
        passes: job.polish_passes,
        stop: Some(control.interrupt_flag()),
        progress: cfg.progress.clone(),
        ..Polish::default()
    };
    on_prepared(&setup);
    let (outcome, train, valid) = optimise(&mut setup, &cfg, control, l2_path, job.resolve_every)?;
    if let Some(part) = &part {
        append_log(&log_path, part)?;
    }
    let held = Held {
        prior_positions: setup.prior_positions,
        wandering: (setup.support).wandering(
            &cfg.names,
            &setup.start,
            &outcome.weights,
            optim::support::WANDERING_TOP,
        ),
    };
    let summary = write_run(
        out,
        &setup.model,
        &outcome,
        &train,
        valid.as_deref(),
        setup.k_fitted,
        Some(&log_path),
        &job.emit,
        &polish,
        held,
    )?;
    Ok(Tuned {
        summary,
        outcome,
        model: setup.model,
        start: setup.start,
    })
}

/// A run's outcome and the training and validation objectives it ended with.
type Optimised = (RunOutcome, Arc<Objective>, Option<Arc<Objective>>);

/// The optimisation of a prepared `setup` under `cfg`: along the `--l2 auto` path when there is
/// one (its chosen run's iterations written to the log after), with the resolver's rounds when
/// the model has one, else one run. The outcome and the sets it ended with.
fn optimise<M: Tunable>(
    setup: &mut Setup<M>,
    cfg: &RunConfig,
    control: Arc<Control>,
    l2_path: Option<&Vec<f64>>,
    resolve_every: u64,
) -> Result<Optimised, TexelError> {
    let run = match (setup.resolver.as_mut(), l2_path, setup.valid.clone()) {
        (None, Some(grid), Some(valid)) => {
            // The path's runs do not log; the chosen run's iterations go to the log after.
            let mut quiet = cfg.clone();
            quiet.log = None;
            let p = run_l2_path(&setup.train, &valid, &setup.start, &quiet, control, grid)?;
            write_history(cfg.log.as_deref(), &p.outcome)?;
            (p.outcome, p.train, Some(p.valid))
        }
        (Some(resolver), _, _) => {
            let r = optim::run_resolving(
                setup.train.clone(),
                setup.valid.clone(),
                &setup.start,
                cfg,
                control,
                resolver,
                resolve_every,
            )?;
            (r.outcome, r.train, r.valid)
        }
        (None, _, _) => (
            optim::run(
                setup.train.clone(),
                setup.valid.clone(),
                &setup.start,
                cfg,
                control,
            )?,
            setup.train.clone(),
            setup.valid.clone(),
        ),
    };
    Ok(run)
}

/// The `--l2 auto` grid, if the path can run: it needs a validation split and one set of
/// leaves; without them the strength is the model's default (set in `setup`'s objectives
/// here), and the notes say so.
fn l2_path_or_default<'a, M: Tunable>(
    setup: &mut Setup<M>,
    l2_path: Option<&'a Vec<f64>>,
) -> Result<Option<&'a Vec<f64>>, TexelError> {
    if l2_path.is_none() || (setup.valid.is_some() && setup.resolver.is_none()) {
        return Ok(l2_path);
    }
    let why = if setup.valid.is_none() {
        "there is no validation split"
    } else {
        "the leaves are re-resolved"
    };
    let l2 = setup.model.default_l2();
    setup.notes.push(format!(
        "--l2 auto: {why}, so the strength is the model's default, {l2:e}"
    ));
    let cfg = ObjectiveConfig {
        l2,
        ..*setup.train.config()
    };
    setup.train = Arc::new(setup.train.with_config(cfg)?);
    if let Some(v) = &setup.valid {
        setup.valid = Some(Arc::new(setup.train.with_set(v.set().clone())?));
    }
    Ok(None)
}

/// Writes the log records of `outcome` to `log` (for runs whose iterations were not logged as
/// they went).
fn write_history(log: Option<&Path>, outcome: &RunOutcome) -> Result<(), TexelError> {
    let Some(path) = log else {
        return Ok(());
    };
    let mut text = String::new();
    for rec in &outcome.history {
        text += &serde_json::to_string(rec)?;
        text.push('\n');
    }
    std::fs::write(path, text).map_err(|e| TexelError::io(path, e))
}

/// Appends the file `part` to `log` and removes `part`.
fn append_log(log: &Path, part: &Path) -> Result<(), TexelError> {
    use std::io::Write;
    let text = std::fs::read_to_string(part).map_err(|e| TexelError::io(part, e))?;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .map_err(|e| TexelError::io(log, e))?;
    f.write_all(text.as_bytes())
        .map_err(|e| TexelError::io(log, e))?;
    std::fs::remove_file(part).ok();
    Ok(())
}
