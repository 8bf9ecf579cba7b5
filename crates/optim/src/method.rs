//! The registry of optimisers: [`Method`] (one variant per optimiser; the command line's
//! tuning subcommands and `tune compare`'s list come from [`Method::ALL`]), their options
//! ([`SolverOptions`], flattened into the command line), and the stage each runs as
//! ([`Method::stage`]).

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::solvers::lbfgs::LbfgsStage;
use crate::solvers::pso::Swarm;
use crate::solvers::{
    Adam, AdamOptions, GaussNewton, GaussNewtonOptions, HybridOptions, LbfgsOptions, LocalOptions,
    LocalSearch, PsoOptions,
};
use crate::stage::{ArgminStage, Sequence, Stage};
use crate::stopping::{Control, Stopping};

/// The optimisers (the registry: the command line's tuning subcommands and `tune compare`'s
/// list come from here).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Method {
    /// argmin's L-BFGS with a More-Thuente line search.
    #[default]
    Lbfgs,
    /// Levenberg-Marquardt-damped Gauss-Newton.
    GaussNewton,
    /// Adam, full-batch or mini-batch.
    Adam,
    /// Texel's integer local search.
    Local,
    /// Particle swarm with restarts.
    Pso,
    /// Gauss-Newton, then L-BFGS, then local-search polish.
    Hybrid,
}

impl Method {
    /// Every method, in the order `tune compare` runs them.
    pub const ALL: [Method; 6] = [
        Method::Lbfgs,
        Method::GaussNewton,
        Method::Hybrid,
        Method::Adam,
        Method::Local,
        Method::Pso,
    ];

    /// One line on what it does (the tuning subcommand's help).
    pub fn about(self) -> &'static str {
        match self {
            Method::Lbfgs => {
                "Tune with L-BFGS (argmin, More-Thuente line search): the default method."
            }
            Method::GaussNewton => {
                "Tune with Levenberg-Marquardt-damped Gauss-Newton on the residuals."
            }
            Method::Adam => {
                "Tune with Adam (full-batch or mini-batch), as today's community tuners do."
            }
            Method::Local => "Tune with Texel's integer +/-1 local search.",
            Method::Pso => "Tune with particle swarm optimisation, restarted when it stalls.",
            Method::Hybrid => {
                "A few Gauss-Newton iterations, then L-BFGS, then integer local-search polish."
            }
        }
    }

    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Method::Lbfgs => "lbfgs",
            Method::GaussNewton => "gauss-newton",
            Method::Adam => "adam",
            Method::Local => "local",
            Method::Pso => "pso",
            Method::Hybrid => "hybrid",
        }
    }
}

impl std::str::FromStr for Method {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Method::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| format!("unknown method {s:?}"))
    }
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Every solver's options (on the command line: each solver's flattened).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct SolverOptions {
    /// L-BFGS.
    #[cfg_attr(feature = "clap", command(flatten))]
    pub lbfgs: LbfgsOptions,
    /// Gauss-Newton.
    #[cfg_attr(feature = "clap", command(flatten))]
    pub gauss_newton: GaussNewtonOptions,
    /// Adam.
    #[cfg_attr(feature = "clap", command(flatten))]
    pub adam: AdamOptions,
    /// Local search.
    #[cfg_attr(feature = "clap", command(flatten))]
    pub local: LocalOptions,
    /// Particle swarm.
    #[cfg_attr(feature = "clap", command(flatten))]
    pub pso: PsoOptions,
    /// Hybrid.
    #[cfg_attr(feature = "clap", command(flatten))]
    pub hybrid: HybridOptions,
}

impl SolverOptions {
    /// Seeds every stochastic solver (Adam's shuffle, the swarm) from one seed.
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.adam.seed = seed;
        self.pso.seed = seed;
        self
    }
}

impl Method {
    /// The relative stopping rules this method runs under: `rules`, except for particle swarm,
    /// whose best cost stays flat between restarts by design (its own rule, every box
    /// half-width below half a centipawn, ends it).
    pub(crate) fn stopping(self, rules: Stopping) -> Stopping {
        match self {
            Method::Pso => Stopping::OFF,
            _ => rules,
        }
    }

    /// The stage this method runs as, with the options `o` (the registry's one line per
    /// method).
    pub fn stage(self, o: &SolverOptions) -> Box<dyn Stage> {
        let gauss_newton = |gn: GaussNewtonOptions| {
            Box::new(ArgminStage::new(
                "gauss-newton",
                "Levenberg-Marquardt steps with growing damping",
                move |c: Arc<Control>, _: &[(f64, f64)]| GaussNewton::new(gn).with_control(c),
            ))
        };
        let local = |lo: LocalOptions| {
            Box::new(
                ArgminStage::new(
                    "local",
                    "moves of one step on each parameter",
                    move |c: Arc<Control>, b: &[(f64, f64)]| {
                        LocalSearch::new(lo, Some(c)).with_bounds(b.to_vec())
                    },
                )
                .value_only(),
            )
        };
        match self {
            Method::Lbfgs => Box::new(LbfgsStage(o.lbfgs)),
            Method::GaussNewton => gauss_newton(o.gauss_newton),
            Method::Adam => {
                let adam = o.adam;
                Box::new(ArgminStage::new(
                    "adam",
                    "Adam steps",
                    move |_: Arc<Control>, _: &[(f64, f64)]| Adam::new(adam),
                ))
            }
            Method::Local => local(o.local),
            Method::Pso => Box::new(Swarm(o.pso)),
            Method::Hybrid => {
                let mut stages: Vec<(Box<dyn Stage>, Option<u64>)> = vec![
                    (gauss_newton(o.gauss_newton), Some(o.hybrid.gn_iters)),
                    (Box::new(LbfgsStage(o.lbfgs)), None),
                ];
                if o.hybrid.polish_sweeps > 0 {
                    stages.push((local(o.local), Some(o.hybrid.polish_sweeps)));
                }
                Box::new(Sequence(stages))
            }
        }
    }
}
