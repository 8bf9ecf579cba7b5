//! Particle swarm: argmin's, restarted around the best point when it stalls (as MadChess does).

use serde::{Deserialize, Serialize};

/// Options of particle swarm.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PsoOptions {
    /// Number of particles.
    pub particles: usize,
    /// Half-width of the first swarm's box around the start, as a fraction of each weight's
    /// magnitude ...
    pub radius_fraction: f64,
    /// ... but at least this many centipawns.
    pub radius_min: f64,
    /// Restart when the best cost has not improved (by a relative 1e-9) for this many
    /// iterations.
    pub stall: u64,
    /// Each restart multiplies the box's half-width by this.
    pub shrink: f64,
    /// Inertia, cognitive and social factors.
    pub factors: (f64, f64, f64),
    /// Seed.
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
