//! A tuning run's options ([`RunArgs`]: the data, the model, the objective, the solver and
//! its limits) as the tuning subcommands take them, and the Ctrl-C flag they stop on.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use optim::{Budget, RunConfig, SolverOptions};
use texel::setup::{BuiltIn, ObjectiveOptions, SetupOptions, SplitOptions, TraceOptions};

/// The iterations a tuning run gets when `--max-iters` is not given.
pub const DEFAULT_MAX_ITERS: u64 = 200;

/// `--select`: which rule keeps the iterate (`optim::Selection` without its `z`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Select {
    /// The latest iterate within the noise of the lowest validation loss.
    WithinNoise,
    /// The lowest validation loss.
    Lowest,
}

/// How data files are read: shared by the tuning subcommands, `compare`, `eval` and `explain`.
#[derive(clap::Args, Clone, Debug)]
pub struct ReadArgs {
    /// Stop at the first malformed record instead of skipping and counting it.
    #[arg(long)]
    pub strict: bool,
    /// PGN data: which positions to take (none, quiet, qleaf), as `tune extract --filter`.
    /// The default, quiet with --pgn-skip-plies 8, is the extraction whose weights played best.
    #[arg(long, default_value = "quiet", value_name = "FILTER")]
    pub pgn_filter: data::Filter,
    /// PGN data: skip the first N plies of every game.
    #[arg(long, default_value_t = 8, value_name = "N")]
    pub pgn_skip_plies: u32,
}

impl ReadArgs {
    /// How positions are taken from PGN games.
    pub fn extract(&self) -> data::ExtractOptions {
        data::ExtractOptions {
            filter: self.pgn_filter,
            skip_plies: self.pgn_skip_plies,
            ..data::ExtractOptions::recommended()
        }
    }
}

/// Options shared by every tuning subcommand, by what they decide (each group under its own
/// heading in `--help`).
#[derive(clap::Args, Clone, Debug)]
pub struct RunArgs {
    /// Output directory. Default: runs/<method>-<unix time>.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Continue from the weights saved in --out (OUT/weights.json), appending to its log.
    #[arg(long)]
    pub resume: bool,
    /// No progress bars.
    #[arg(long)]
    pub quiet: bool,
    #[command(flatten)]
    pub threads: ThreadsArg,
    #[command(flatten, next_help_heading = "What is tuned, on which positions")]
    pub source: SourceArgs,
    /// Starting weights (JSON by name, as written to weights.json); default: the model's.
    /// With --trace: a manifest (as a traced run writes weights.json) whose values start.
    #[arg(long, value_name = "START.json")]
    pub weights: Option<PathBuf>,
    #[command(flatten, next_help_heading = "The split")]
    pub split: SplitArgs,
    #[command(flatten, next_help_heading = "The objective")]
    pub objective: ObjectiveArgs,
    #[command(flatten, next_help_heading = "The solver and its limits")]
    pub budget: BudgetArgs,
    #[command(flatten, next_help_heading = "The integer weights and their files")]
    pub finish: FinishArgs,
}

/// The source options: a built-in model's data, model and leaf, or an engine's traces; and how
/// their files are read.
#[derive(clap::Args, Clone, Debug)]
pub struct SourceArgs {
    /// Data files: EPD, PGN or a binary cache, plain, gzip or zstd (detected from the content).
    /// Default: the dataset embedded in the repository (data/default.gtc.zst).
    #[arg(long, num_args = 1.., value_name = "FILE", conflicts_with = "manifest")]
    pub data: Vec<PathBuf>,
    /// Evaluation model: psqt (material and piece-square tables) or full. Default: the
    /// model of --weights when given, else psqt; `--model full` with `psqt` weights starts from
    /// them, carried over by name (the other parameters at their defaults).
    #[arg(long, conflicts_with = "manifest")]
    pub model: Option<eval::ModelKind>,
    #[command(flatten)]
    pub traced: crate::traced::TraceArgs,
    /// static: evaluate each position as given; qsearch: evaluate the end of its quiescence
    /// principal variation at the starting weights (RuyTune).
    #[arg(long, default_value = "static", conflicts_with = "manifest")]
    pub leaf: texel::chess::Leaf,
    /// With --leaf qsearch: search every position's quiescence leaf again at the latest
    /// weights every N iterations (the leaf moves when the weights move), report how many
    /// changed and continue on the new leaves. 0: never.
    #[arg(
        long,
        default_value_t = 0,
        value_name = "N",
        conflicts_with = "manifest"
    )]
    pub resolve_every: u64,
    #[command(flatten)]
    pub read: ReadArgs,
}

/// Which positions are held out, and how many are used.
#[derive(clap::Args, Clone, Debug)]
pub struct SplitArgs {
    /// Fraction of the games held out for validation (0 for none).
    #[arg(long, default_value_t = 0.1)]
    pub valid_fraction: f64,
    /// Seed of the train/validation split and of the stochastic methods.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Use at most this many positions.
    #[arg(long)]
    pub limit: Option<usize>,
}

/// The objective: the sigmoid and loss, the labels, the priors and what is frozen.
#[derive(clap::Args, Clone, Debug)]
pub struct ObjectiveArgs {
    /// The sigmoid's scale K; fitted to the starting weights when not given.
    #[arg(long)]
    pub k: Option<f64>,
    /// logistic: Texel's 1/(1+10^(-K q/400)) on results 0..1; tanh: RuyTune's tanh(K q) on -1..1.
    #[arg(long, default_value = "logistic")]
    pub sigmoid: optim::Sigmoid,
    /// Loss: mse (mean squared error) or xent (cross-entropy).
    #[arg(long, default_value = "mse")]
    pub loss: optim::LossKind,
    /// L1 regularisation weight (Zurichess): l1 * sum |w - w_start| over the free parameters.
    #[arg(long, default_value_t = 0.0)]
    pub l1: f64,
    /// L2 regularisation weight: l2 * sum (w - w_start)^2 over the free parameters, against
    /// the mean loss (so repeating the data changes nothing); 0 turns it off. `auto`: run the
    /// method at 1e-6, 1e-7, ... 1e-10 and 0 (strongest first, each from the previous one's
    /// weights) and keep the strength with the lowest validation loss (when that is 1e-6,
    /// 1e-5, 1e-4 and 1e-3 are tried in turn until the loss rises). Default: 1e-7 for
    /// `psqt`, 1e-8 for `full` (chosen by play, not by loss: docs/optimizers.md); 0 for a
    /// traced model (--trace; try `auto`).
    #[arg(long, value_name = "X|auto")]
    pub l2: Option<optim::regularise::L2>,
    /// Label blend: lambda*result + (1-lambda)*sigma(score) where the data has scores.
    #[arg(long, default_value_t = 1.0)]
    pub lambda: f64,
    /// The K that sigma(score) in the blend is read with. `model` (the default): K, for
    /// scores in the evaluation's own units (your engine's search). `fit`: the K at which the
    /// scores best predict the training results, for another engine's scores on its own scale
    /// (`tune label` with Stockfish); or a number.
    #[arg(long, default_value = "model", value_name = "model|fit|K")]
    pub score_k: texel::setup::ScoreK,
    /// Smoothness prior: smooth * sum (w_a - w_b)^2 over neighbouring parameters (the squares
    /// a king step apart in each piece-square table, consecutive mobility counts), against the
    /// mean loss like --l2. It pulls what the data cannot tell apart towards its neighbours
    /// instead of leaving it to the noise, which a search exploits; 0 turns it off.
    #[arg(long, default_value_t = 0.0, value_name = "X")]
    pub smooth: f64,
    /// The prior that holds weakly supported weights: each weight counts as M positions at its
    /// start value (with its own typical curvature), so one active in few positions stays near
    /// its start and one active in many fits as before; the summary's `wandering` report says
    /// which weights moved furthest for the positions behind them (docs/guide.md, "The
    /// prior"). 0 turns it off. Default: 1000 for a traced model (--trace, which starts from
    /// an engine's current weights), 0 for psqt and full.
    #[arg(long, value_name = "M")]
    pub prior_positions: Option<f64>,
    /// Freeze parameters: a group name (material, pst, mobility, ...) or a glob on names
    /// (pst.*.e4). Repeatable.
    #[arg(long, value_name = "PATTERN")]
    pub freeze: Vec<String>,
}

/// How long the solver runs, which iterate it keeps, and its own options.
#[derive(clap::Args, Clone, Debug)]
pub struct BudgetArgs {
    /// Maximum iterations (epochs for adam, sweeps for local). Default: 200 for a tuning run,
    /// none for `compare` (its budget is passes or time).
    #[arg(long)]
    pub max_iters: Option<u64>,
    /// Maximum passes over the training data.
    #[arg(long)]
    pub max_passes: Option<f64>,
    /// Maximum seconds of optimisation.
    #[arg(long, value_name = "SECONDS")]
    pub time: Option<f64>,
    /// Stop after this many iterations in a row worse than the kept one beyond the noise
    /// (or, with --select lowest, without a lower validation loss).
    #[arg(long)]
    pub patience: Option<usize>,
    /// Which iterate to keep. within-noise: the latest whose validation loss is above the
    /// lowest by at most --select-z standard errors of the paired difference (clustered by
    /// game), so an earlier iterate wins only by more than the noise; lowest: the lowest
    /// validation loss, however small the margin.
    #[arg(long, value_enum, default_value_t = Select::WithinNoise)]
    pub select: Select,
    /// With --select within-noise: the standard errors an earlier iterate must beat.
    #[arg(long, default_value_t = 2.0, value_name = "Z")]
    pub select_z: f64,
    #[command(flatten)]
    pub stopping: optim::Stopping,
    #[command(flatten)]
    pub solvers: SolverOptions,
}

/// After the fit: the integer polish and the source files written.
#[derive(clap::Args, Clone, Debug)]
pub struct FinishArgs {
    /// Also write the integer weights as source code in this language: c (weights.h), cpp
    /// (weights.hpp), rust (weights.rs, which a built-in model's run always writes) or csharp
    /// (Weights.cs), as `tune emit` writes them. Repeatable.
    #[arg(long, value_name = "LANG", value_parser = parse_emit)]
    pub emit: Vec<trace::emit::Language>,
    /// The most passes of the training set the integer polish takes after the fit (it moves
    /// the rounded weights by integer steps while the training loss falls; each sweep's
    /// gradient is a pass, a try the share of the positions its weight changes), after the
    /// rounding (each weight alone, or by the nearest plane for up to 600 movable weights,
    /// whichever loses less: one pass beside the budget); 0: no polish, each weight only
    /// rounded. The summary's `rounding` and `polish` lines say what each did.
    #[arg(long, default_value_t = texel::finish::POLISH_PASSES, value_name = "N")]
    pub polish_passes: usize,
}

/// A tuning subject's source ([`texel::Tunable::Source`]) as the command line gives it.
pub trait ArgSource: Sized {
    /// The source of `args`.
    fn from_args(args: &RunArgs) -> anyhow::Result<Self>;
}

/// `--data` (default: the embedded dataset), `--model`, `--leaf`, `--resolve-every` and the
/// PGN extraction.
impl ArgSource for BuiltIn {
    fn from_args(args: &RunArgs) -> anyhow::Result<Self> {
        let source = &args.source;
        Ok(BuiltIn {
            data: if source.data.is_empty() {
                texel::setup::default_data()?
            } else {
                source.data.clone()
            },
            model: source.model,
            leaf: source.leaf,
            resolvable: source.resolve_every > 0,
            extract: source.read.extract(),
        })
    }
}

/// `--trace` and `--manifest` (which the built-in source's options conflict with), with the
/// verification and `--discovered`.
impl ArgSource for TraceOptions {
    fn from_args(args: &RunArgs) -> anyhow::Result<Self> {
        args.source
            .traced
            .options()
            .ok_or_else(|| anyhow::anyhow!("an engine's traced model needs --trace and --manifest"))
    }
}

/// `--threads N`: the worker threads a command's passes run on.
#[derive(clap::Args, Clone, Debug)]
pub struct ThreadsArg {
    /// Worker threads the passes over the data run on (at least 1). Default: all cores. A
    /// run's losses are reproducible for a given thread count; another count may change
    /// their last digits (the sums are split differently).
    #[arg(long, value_name = "N", value_parser = parse_threads)]
    pub threads: Option<usize>,
}

impl ThreadsArg {
    /// Runs `f` on a thread pool of `--threads` threads (all cores when not given).
    pub fn install<T: Send>(
        &self,
        f: impl FnOnce() -> anyhow::Result<T> + Send,
    ) -> anyhow::Result<T> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(self.threads.unwrap_or(0))
            .build()
            .map_err(|e| anyhow::anyhow!("cannot start the thread pool: {e}"))?;
        pool.install(f)
    }
}

/// A `--threads` count: a positive integer.
fn parse_threads(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("--threads must be at least 1 (leave it out for all cores)".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("--threads takes a positive integer, not {s:?}")),
    }
}

/// A language of `--emit`: a built-in one, which names its file (a template is `tune emit`'s).
fn parse_emit(s: &str) -> Result<trace::emit::Language, String> {
    let lang: trace::emit::Language = s.parse()?;
    match lang.file_name() {
        Some(_) => Ok(lang),
        None => Err(format!(
            "a run writes source in c, cpp, rust or csharp; `tune emit --template {s}` \
             renders a template"
        )),
    }
}

impl RunArgs {
    /// The problem definition of a model whose source is `S` (from the data and model
    /// options, or from `--trace` and `--manifest`).
    pub fn setup_options<S: ArgSource>(&self) -> anyhow::Result<SetupOptions<S>> {
        Ok(SetupOptions {
            source: S::from_args(self)?,
            weights: self.weights.clone(),
            split: SplitOptions {
                valid_fraction: self.split.valid_fraction,
                seed: self.split.seed,
                limit: self.split.limit,
                first: None,
                strict: self.source.read.strict,
            },
            objective: ObjectiveOptions {
                k: self.objective.k,
                sigmoid: self.objective.sigmoid,
                loss: self.objective.loss,
                l1: self.objective.l1,
                l2: self.objective.l2.map(|l| l.fixed()),
                lambda: self.objective.lambda,
                score_k: self.objective.score_k,
                smooth: self.objective.smooth,
                prior_positions: self.objective.prior_positions,
                freeze: self.objective.freeze.clone(),
            },
            progress: crate::progress::bars(!self.quiet),
        })
    }

    /// Budget and solver options; `max_iters` when `--max-iters` is not given.
    pub fn run_config(&self, method: optim::Method, max_iters: Option<u64>) -> RunConfig {
        RunConfig {
            method,
            budget: Budget {
                max_iters: self.budget.max_iters.or(max_iters),
                max_passes: self.budget.max_passes,
                seconds: self.budget.time,
                patience: self.budget.patience,
            },
            stopping: self.budget.stopping,
            solvers: self.budget.solvers.with_seed(self.split.seed),
            selection: match self.budget.select {
                Select::Lowest => optim::Selection::Lowest,
                Select::WithinNoise => optim::Selection::WithinNoise {
                    z: self.budget.select_z,
                },
            },
            log: None,
            progress: crate::progress::bars(!self.quiet),
            names: Vec::new(),
        }
    }
}

/// Installs the Ctrl-C handler once and returns its flag.
pub fn interrupt_flag() -> Arc<AtomicBool> {
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    FLAG.get_or_init(|| {
        let flag = Arc::new(AtomicBool::new(false));
        let f = flag.clone();
        if let Err(e) = ctrlc::set_handler(move || {
            if f.swap(true, Ordering::SeqCst) {
                // A second Ctrl-C: give up at once.
                std::process::exit(130);
            }
            eprintln!(
                "\ninterrupted: stopping the batch being loaded or the pass under way (a run \
                 saves the best weights so far)"
            );
        }) {
            eprintln!("warning: no Ctrl-C handler: {e}");
        }
        flag
    })
    .clone()
}
