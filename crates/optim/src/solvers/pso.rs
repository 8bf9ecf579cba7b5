//! Particle swarm: argmin's, restarted around the best point when it stalls (as MadChess does).

use std::sync::Arc;

use argmin::core::{CostFunction, State};
use argmin::solver::particleswarm::{Particle, ParticleSwarm};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::error::OptimError;
use crate::execute::execute;
use crate::observer::{Monitor, RunShared, SwarmState};
use crate::problem::FitProblem;
use crate::stage::{remaining, Stage, StageEnd};
use crate::stopping::StallGuard;

/// Options of particle swarm.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct PsoOptions {
    /// pso: number of particles.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = PsoOptions::default().particles))]
    pub particles: usize,
    /// pso: half-width of the first swarm's box around the start, as a fraction of each weight's
    /// magnitude ...
    #[cfg_attr(feature = "clap", arg(long, default_value_t = PsoOptions::default().radius_fraction))]
    pub radius_fraction: f64,
    /// pso: ... but at least this many centipawns.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = PsoOptions::default().radius_min))]
    pub radius_min: f64,
    /// pso: restart when the best cost has not improved (by a relative 1e-9) for this many
    /// iterations.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = PsoOptions::default().stall))]
    pub stall: u64,
    /// pso: each restart multiplies the box's half-width by this.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = PsoOptions::default().shrink))]
    pub shrink: f64,
    /// Inertia, cognitive and social factors.
    #[cfg_attr(feature = "clap", arg(skip = PsoOptions::default().factors))]
    pub factors: (f64, f64, f64),
    /// Seed.
    #[cfg_attr(feature = "clap", arg(skip = PsoOptions::default().seed))]
    pub seed: u64,
}

impl Default for PsoOptions {
    fn default() -> Self {
        PsoOptions {
            particles: 24,
            radius_fraction: 0.5,
            radius_min: 20.0,
            stall: 10,
            shrink: 0.5,
            factors: (
                1.0 / (2.0 * std::f64::consts::LN_2),
                0.5 + std::f64::consts::LN_2,
                0.5 + std::f64::consts::LN_2,
            ),
            seed: 1,
        }
    }
}

/// Particle swarm with restarts around the best point found, in shrinking boxes (as MadChess
/// does): argmin's swarm runs until it stalls ([`StallGuard`]), then a new swarm starts in a
/// box around the best point, half as wide when the last one found nothing better; it has
/// converged when every half-width is below half a centipawn.
pub(crate) struct Swarm(pub(crate) PsoOptions);

impl Stage for Swarm {
    fn run(
        &self,
        shared: &Arc<RunShared>,
        x0: Vec<f64>,
        cap: Option<u64>,
    ) -> Result<StageEnd, OptimError> {
        Ok(swarm(shared, x0, &self.0, cap))
    }
}

fn swarm(shared: &Arc<RunShared>, x0: Vec<f64>, o: &PsoOptions, cap: Option<u64>) -> StageEnd {
    let obj = shared.train.clone();
    let problem_for_costs = FitProblem::new(obj.clone())
        .value_only(true)
        .interruptible(shared.control.interrupt_flag());
    let mut rng = ChaCha8Rng::seed_from_u64(o.seed);
    // A start outside the bounds is projected into them.
    let mut best: Vec<f64> = x0
        .iter()
        .zip(obj.bounds())
        .map(|(v, &(lo, hi))| v.clamp(lo, hi))
        .collect();
    let cost = |x: &Vec<f64>| problem_for_costs.cost(x);
    let mut best_cost = match cost(&best) {
        Ok(c) => c,
        Err(e) => return (best, format!("pso stopped: {e}")),
    };
    let mut radius: Vec<f64> = x0
        .iter()
        .map(|v| (v.abs() * o.radius_fraction).max(o.radius_min))
        .collect();
    let n = o.particles.max(2);
    let mut restart = 0u64;
    loop {
        if shared.control.should_stop().is_some() {
            return (best, "pso: stopped".to_string());
        }
        let iters = remaining(shared, cap);
        if iters == 0 {
            return (best, "pso: iteration budget reached".to_string());
        }
        let (lo, hi) = search_box(&best, &radius, obj.bounds());
        let start = (best.as_slice(), best_cost);
        let population = match population(start, (&lo, &hi), &radius, n, &mut rng, &cost) {
            Ok(p) => p,
            Err(e) => return (best, format!("pso stopped: {e}")),
        };
        let seed = o.seed.wrapping_add(restart);
        let pso = ParticleSwarm::new((lo, hi), n)
            .with_rng_generator(<rand09::rngs::StdRng as rand09::SeedableRng>::seed_from_u64(seed));
        let pso = match pso
            .with_inertia_factor(o.factors.0)
            .and_then(|p| p.with_cognitive_factor(o.factors.1))
            .and_then(|p| p.with_social_factor(o.factors.2))
        {
            Ok(p) => p,
            Err(e) => return (best, format!("pso stopped: {e}")),
        };
        let solver = StallGuard::new(pso, o.stall.max(1), 1e-9);
        let problem = FitProblem::new(obj.clone()).value_only(true);
        let monitor = Monitor::new(shared.clone(), "pso");
        let result = execute(shared, problem, solver, monitor, iters, |s: SwarmState| {
            s.population(population)
        });
        let improved = match result {
            Ok(res) => match res.state().get_best_param() {
                Some(p) if p.cost < best_cost => {
                    let gain = (best_cost - p.cost) / best_cost.abs().max(f64::MIN_POSITIVE);
                    best = p.position.clone();
                    best_cost = p.cost;
                    gain > 1e-9
                }
                _ => false,
            },
            Err(e) => return (best, format!("pso stopped: {e}")),
        };
        restart += 1;
        if !improved {
            for r in &mut radius {
                *r *= o.shrink;
            }
            if radius.iter().all(|r| *r < 0.5) {
                return (
                    best,
                    "pso: converged (box below half a centipawn)".to_string(),
                );
            }
        }
    }
}

/// The box of half-widths `radius` around `best`, inside the parameters' `bounds` (argmin's
/// swarm keeps every particle inside its box).
fn search_box(best: &[f64], radius: &[f64], bounds: &[(f64, f64)]) -> (Vec<f64>, Vec<f64>) {
    let side = |sign: f64| -> Vec<f64> {
        best.iter()
            .zip(radius)
            .zip(bounds)
            .map(|((b, r), &(l, h))| (b + sign * r).clamp(l, h))
            .collect()
    };
    (side(-1.0), side(1.0))
}

/// A swarm of `n` particles in the box `(lo, hi)`: the best point so far (`start`, at rest),
/// then `n - 1` drawn from `rng` in the box, each with a velocity of a tenth of `radius` at
/// most; `cost` prices each.
fn population<E>(
    start: (&[f64], f64),
    (lo, hi): (&[f64], &[f64]),
    radius: &[f64],
    n: usize,
    rng: &mut ChaCha8Rng,
    cost: &impl Fn(&Vec<f64>) -> Result<f64, E>,
) -> Result<Vec<Particle<Vec<f64>, f64>>, E> {
    let mut population = Vec::with_capacity(n);
    population.push(Particle::new(
        start.0.to_vec(),
        start.1,
        vec![0.0; start.0.len()],
    ));
    for _ in 1..n {
        let pos: Vec<f64> = lo
            .iter()
            .zip(hi)
            .map(|(a, b)| rng.gen_range(*a..=*b))
            .collect();
        let vel: Vec<f64> = radius
            .iter()
            .map(|r| rng.gen_range(-*r..=*r) * 0.1)
            .collect();
        let c = cost(&pos)?;
        population.push(Particle::new(pos, c, vel));
    }
    Ok(population)
}
