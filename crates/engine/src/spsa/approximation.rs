//! Simultaneous-perturbation stochastic approximation (SPSA, Spall 1992): maximise an objective
//! known only through noisy comparisons of two points, such as the score of games between two
//! sets of weights.
//!
//! Each iteration `k` perturbs every coordinate at once by `±c_k·c_j` (the sign `Δ_j` drawn
//! from the seed and `k` alone), asks for the comparison `R` of `x + c_k·c·Δ` against
//! `x - c_k·c·Δ` (a mean score difference, in `[-1, 1]`), and moves each coordinate along its
//! estimated gradient:
//!
//! ```text
//! x_j += c_j · a_k · R · Δ_j / (2 c_k),   a_k = a / (k + 1 + A)^α,   c_k = c / (k + 1)^γ
//! ```
//!
//! `c_j` is the coordinate's own perturbation, in its units (centipawns for evaluation
//! weights): with it, `a` and `c` are plain numbers and one schedule fits coordinates of any
//! scale. An iteration depends on the seed, the iteration number and the comparison's result
//! only, so a run stopped and resumed from its [`SpsaState`] takes the same steps as one that
//! ran through.
//!
//! ```
//! use engine::spsa::{Gains, Spsa, SpsaState};
//!
//! // Maximise -(x - 3)^2 from noiseless comparisons: the comparison is the difference in value.
//! let spsa = Spsa::new(Gains::for_iterations(400), vec![0.5], 7).unwrap();
//! let mut state = SpsaState::new(vec![0.0]);
//! let f = |x: f64| -(x - 3.0) * (x - 3.0);
//! while state.iteration < 400 {
//!     let probe = spsa.probe(&state);
//!     let r = (f(probe.plus[0]) - f(probe.minus[0])).clamp(-1.0, 1.0);
//!     spsa.update(&mut state, &probe, r).unwrap();
//! }
//! assert!((state.x[0] - 3.0).abs() < 0.05, "{}", state.x[0]);
//! ```

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// What is wrong with an SPSA set-up or step.
#[derive(Debug, Error, PartialEq)]
pub enum SpsaError {
    /// A gain is out of its range.
    #[error("SPSA gain {name} = {value}: {why}")]
    Gain {
        /// `a`, `c`, `A`, `alpha` or `gamma`.
        name: &'static str,
        /// Its value.
        value: f64,
        /// The range it must be in.
        why: &'static str,
    },
    /// A coordinate's perturbation is not a positive finite number.
    #[error("coordinate {index}: perturbation {value} must be a positive finite number")]
    Scale {
        /// The coordinate.
        index: usize,
        /// Its perturbation.
        value: f64,
    },
    /// A coordinate's bounds are empty or not numbers.
    #[error("coordinate {index}: bounds [{lower}, {upper}] are empty")]
    Bounds {
        /// The coordinate.
        index: usize,
        /// Lower bound.
        lower: f64,
        /// Upper bound.
        upper: f64,
    },
    /// The state has another number of coordinates than the set-up.
    #[error("the state has {state} coordinates, the SPSA set-up {spsa}")]
    Dimension {
        /// Coordinates of the state.
        state: usize,
        /// Coordinates of the set-up.
        spsa: usize,
    },
    /// The probe was made at another iteration than the state's.
    #[error("the probe is of iteration {probe}, the state at iteration {state}")]
    StaleProbe {
        /// The probe's iteration.
        probe: u64,
        /// The state's.
        state: u64,
    },
    /// The comparison's result is not a number in `[-1, 1]`.
    #[error("comparison result {0} is not in [-1, 1]")]
    Result(f64),
    /// Calibration: another number of activities than of coordinates.
    #[error("{activities} activities for {coordinates} coordinates")]
    Activities {
        /// Activities given.
        activities: usize,
        /// Coordinates of the basis.
        coordinates: usize,
    },
    /// Calibration: an activity is not a finite number of zero or more.
    #[error("coordinate {index}: activity {value} must be a finite number of zero or more")]
    Activity {
        /// The coordinate.
        index: usize,
        /// Its activity.
        value: f64,
    },
    /// A recorded calibration names other coordinates than the basis.
    #[error("the calibration's coordinate {index} is `{recorded}`, the basis's `{basis}`")]
    Calibration {
        /// The first coordinate that differs.
        index: usize,
        /// Its name in the calibration (empty past its end).
        recorded: String,
        /// Its name in the basis (empty past its end).
        basis: String,
    },
}

/// The gain schedules: the step `a_k = a / (k + 1 + A)^α` and the perturbation
/// `c_k = c / (k + 1)^γ`, both multiplying each coordinate's own perturbation `c_j`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Gains {
    /// Step numerator.
    pub a: f64,
    /// Perturbation numerator (multiplies each coordinate's `c_j`).
    pub c: f64,
    /// Stability constant `A` (iterations): keeps the first steps from being the largest.
    #[serde(rename = "A")]
    pub big_a: f64,
    /// Step decay exponent.
    pub alpha: f64,
    /// Perturbation decay exponent.
    pub gamma: f64,
}

impl Gains {
    /// Spall's practical choices for a run of `iterations`: `α = 0.602`, `γ = 0.101`,
    /// `A` a tenth of the run, `c = 1` (each coordinate perturbed by its own `c_j` at first),
    /// and `a` such that a comparison won by every game (`R = 1`) moves a coordinate by
    /// [`FIRST_STEP`](Self::FIRST_STEP) times its `c_j` at the first iteration.
    ///
    /// ```
    /// let g = engine::spsa::Gains::for_iterations(1000);
    /// assert_eq!(g.big_a, 100.0);
    /// assert!((g.a_k(0) / (2.0 * g.c_k(0)) - engine::spsa::Gains::FIRST_STEP).abs() < 1e-12);
    /// ```
    pub fn for_iterations(iterations: u64) -> Gains {
        let big_a = (iterations as f64 / 10.0).max(1.0).round();
        Gains::with_decay(big_a, 0.602, 0.101)
    }

    /// The gains of a stability constant `A` and decay exponents `α`, `γ`, with `c = 1` and
    /// `a` such that a result of 1 moves a coordinate by [`FIRST_STEP`](Self::FIRST_STEP)
    /// times its `c_j` at the first iteration.
    ///
    /// ```
    /// let g = engine::spsa::Gains::with_decay(50.0, 0.602, 0.101);
    /// assert!((g.a_k(0) / (2.0 * g.c_k(0)) - engine::spsa::Gains::FIRST_STEP).abs() < 1e-12);
    /// ```
    pub fn with_decay(big_a: f64, alpha: f64, gamma: f64) -> Gains {
        let c = 1.0;
        Gains {
            a: Self::FIRST_STEP * 2.0 * c * (1.0 + big_a).powf(alpha),
            c,
            big_a,
            alpha,
            gamma,
        }
    }

    /// The first iteration's step, in units of a coordinate's `c_j`, for a result of 1 (of
    /// [`for_iterations`](Self::for_iterations)).
    pub const FIRST_STEP: f64 = 0.125;

    /// The step gain at iteration `k` (from 0).
    pub fn a_k(&self, k: u64) -> f64 {
        self.a / (k as f64 + 1.0 + self.big_a).powf(self.alpha)
    }

    /// The perturbation gain at iteration `k` (from 0).
    pub fn c_k(&self, k: u64) -> f64 {
        self.c / (k as f64 + 1.0).powf(self.gamma)
    }

    /// Checks every gain: `a`, `c` positive, `A` non-negative, `α`, `γ` in `[0, 2]`.
    pub fn validate(&self) -> Result<(), SpsaError> {
        let positive = "must be a positive finite number";
        let checks = [
            ("a", self.a, self.a > 0.0 && self.a.is_finite(), positive),
            ("c", self.c, self.c > 0.0 && self.c.is_finite(), positive),
            (
                "A",
                self.big_a,
                self.big_a >= 0.0 && self.big_a.is_finite(),
                "must be zero or more",
            ),
            (
                "alpha",
                self.alpha,
                (0.0..=2.0).contains(&self.alpha),
                "must be in [0, 2]",
            ),
            (
                "gamma",
                self.gamma,
                (0.0..=2.0).contains(&self.gamma),
                "must be in [0, 2]",
            ),
        ];
        for (name, value, ok, why) in checks {
            if !ok {
                return Err(SpsaError::Gain { name, value, why });
            }
        }
        Ok(())
    }
}

/// An SPSA set-up: the gains, each coordinate's perturbation `c_j` and bounds, and the seed of
/// the perturbations.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Spsa {
    /// The gain schedules.
    pub gains: Gains,
    /// Each coordinate's perturbation at `c_k = 1`, in its own units.
    pub scales: Vec<f64>,
    /// Each coordinate's bounds (`x` and the probes are kept inside).
    pub bounds: Vec<(f64, f64)>,
    /// The seed of the perturbation signs.
    pub seed: u64,
}

/// The two points an iteration compares.
#[derive(Clone, Debug, PartialEq)]
pub struct Probe {
    /// The iteration it is for.
    pub iteration: u64,
    /// The sign of each coordinate's perturbation, `±1`.
    pub delta: Vec<f64>,
    /// `x + c_k·c·Δ` (within bounds).
    pub plus: Vec<f64>,
    /// `x - c_k·c·Δ` (within bounds).
    pub minus: Vec<f64>,
    /// The perturbation gain `c_k`.
    pub c_k: f64,
}

/// Where a run is: the iteration to play next, the point, and every result so far (what a
/// state file holds; a run resumed from it continues exactly).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpsaState {
    /// The next iteration (the number done).
    pub iteration: u64,
    /// The current point.
    pub x: Vec<f64>,
    /// Each iteration's comparison result, in order.
    pub results: Vec<f64>,
}

impl SpsaState {
    /// A run at its start, at `x`.
    pub fn new(x: Vec<f64>) -> SpsaState {
        SpsaState {
            iteration: 0,
            x,
            results: Vec::new(),
        }
    }

    /// The mean of the last `n` results (0 with none): a running estimate of how far `x + c·Δ`
    /// and `x - c·Δ` still differ.
    pub fn recent_mean(&self, n: usize) -> f64 {
        let tail = &self.results[self.results.len().saturating_sub(n)..];
        if tail.is_empty() {
            0.0
        } else {
            tail.iter().sum::<f64>() / tail.len() as f64
        }
    }
}

impl Spsa {
    /// A set-up with unbounded coordinates; every `scales[j]` must be positive and finite.
    pub fn new(gains: Gains, scales: Vec<f64>, seed: u64) -> Result<Spsa, SpsaError> {
        let bounds = vec![(f64::NEG_INFINITY, f64::INFINITY); scales.len()];
        Spsa::bounded(gains, scales, bounds, seed)
    }

    /// A set-up whose coordinates stay within `bounds` (one pair per coordinate).
    pub fn bounded(
        gains: Gains,
        scales: Vec<f64>,
        bounds: Vec<(f64, f64)>,
        seed: u64,
    ) -> Result<Spsa, SpsaError> {
        gains.validate()?;
        if bounds.len() != scales.len() {
            return Err(SpsaError::Dimension {
                state: bounds.len(),
                spsa: scales.len(),
            });
        }
        for (index, &value) in scales.iter().enumerate() {
            if !(value > 0.0 && value.is_finite()) {
                return Err(SpsaError::Scale { index, value });
            }
        }
        for (index, &(lower, upper)) in bounds.iter().enumerate() {
            if lower.is_nan() || upper.is_nan() || lower > upper {
                return Err(SpsaError::Bounds {
                    index,
                    lower,
                    upper,
                });
            }
        }
        Ok(Spsa {
            gains,
            scales,
            bounds,
            seed,
        })
    }

    /// The number of coordinates.
    pub fn dim(&self) -> usize {
        self.scales.len()
    }

    /// The perturbation signs of iteration `k`: `±1` each, from the seed and `k` alone.
    ///
    /// ```
    /// use engine::spsa::{Gains, Spsa};
    /// let s = Spsa::new(Gains::for_iterations(10), vec![1.0; 64], 3).unwrap();
    /// assert_eq!(s.signs(5), s.signs(5));
    /// assert_ne!(s.signs(5), s.signs(6));
    /// assert!(s.signs(5).iter().all(|d| d.abs() == 1.0));
    /// ```
    pub fn signs(&self, k: u64) -> Vec<f64> {
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        rng.set_stream(k);
        (0..self.dim())
            .map(|_| if rng.gen::<bool>() { 1.0 } else { -1.0 })
            .collect()
    }

    fn clamp(&self, j: usize, v: f64) -> f64 {
        let (lo, hi) = self.bounds[j];
        v.clamp(lo, hi)
    }

    /// The two points to compare at the state's iteration.
    pub fn probe(&self, state: &SpsaState) -> Probe {
        let k = state.iteration;
        let c_k = self.gains.c_k(k);
        let delta = self.signs(k);
        let step = |j: usize, sign: f64| {
            self.clamp(j, state.x[j] + sign * c_k * self.scales[j] * delta[j])
        };
        let dim = self.dim().min(state.x.len());
        Probe {
            iteration: k,
            plus: (0..dim).map(|j| step(j, 1.0)).collect(),
            minus: (0..dim).map(|j| step(j, -1.0)).collect(),
            delta,
            c_k,
        }
    }

    /// Takes the step of `probe`'s iteration given its comparison `result` (how much `plus`
    /// beat `minus`: a mean score difference in `[-1, 1]`), and moves the state to the next
    /// iteration.
    pub fn update(
        &self,
        state: &mut SpsaState,
        probe: &Probe,
        result: f64,
    ) -> Result<(), SpsaError> {
        if state.x.len() != self.dim() || probe.delta.len() != self.dim() {
            return Err(SpsaError::Dimension {
                state: state.x.len(),
                spsa: self.dim(),
            });
        }
        if probe.iteration != state.iteration {
            return Err(SpsaError::StaleProbe {
                probe: probe.iteration,
                state: state.iteration,
            });
        }
        if !(-1.0..=1.0).contains(&result) {
            return Err(SpsaError::Result(result));
        }
        let gain = self.gains.a_k(state.iteration) * result / (2.0 * probe.c_k);
        for j in 0..self.dim() {
            let x = state.x[j] + self.scales[j] * gain * probe.delta[j];
            state.x[j] = self.clamp(j, x);
        }
        state.results.push(result);
        state.iteration += 1;
        Ok(())
    }
}
