//! [`Coords`]: the coordinates a gradient solver works in, where bounds cannot be broken.
//!
//! A bounded parameter is not clamped by the objective (that gives the objective a kink at the
//! bound, beyond which it is flat: the gradient a solver sees there is not the gradient of the
//! function it minimises, and L-BFGS's line search fails). Instead the solver works in an
//! unbounded variable `u` that a smooth, strictly increasing map sends into the box:
//!
//! * both bounds: `x = lo + (hi - lo) * sigmoid(u)`,
//! * a lower bound only: `x = lo + softplus(u)`, an upper bound only: `x = hi - softplus(-u)`,
//! * no bound: `x = u`;
//!
//! and, for L-BFGS, `u = scale * z` (the Jacobi preconditioning). The objective is smooth in
//! `z` wherever it is smooth in `x`; the chain rule is exact: `dE/dz = scale * x'(u) * dE/dx`,
//! and the Gauss-Newton Jacobian's columns are multiplied by the same factors. A starting value
//! on a bound (or outside) is moved inside by [`MARGIN`] first (the map never reaches a bound).
//!
//! ```
//! use optim::Coords;
//! let c = Coords::new(&[(0.0, 8.0), (f64::NEG_INFINITY, f64::INFINITY)]);
//! let z = c.to_z(&[2.0, -35.0]);
//! let x = c.to_x(&z);
//! assert!((x[0] - 2.0).abs() < 1e-12 && x[1] == -35.0);
//! // Wherever the solver goes, the weights stay inside the box.
//! assert!(c.to_x(&[-1e6, 0.0])[0] >= 0.0 && c.to_x(&[1e6, 0.0])[0] <= 8.0);
//! ```

/// How far inside a bound a starting value on (or beyond) it is moved: a fraction of the
/// interval's width for two bounds, in the weight's units for one.
pub const MARGIN: f64 = 1e-3;

/// The map of one coordinate.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Map {
    Free,
    Interval(f64, f64),
    Lower(f64),
    Upper(f64),
}

fn sigmoid(u: f64) -> f64 {
    if u >= 0.0 {
        1.0 / (1.0 + (-u).exp())
    } else {
        let e = u.exp();
        e / (1.0 + e)
    }
}

/// `ln(1 + e^u)` without overflow.
fn softplus(u: f64) -> f64 {
    u.max(0.0) + (-u.abs()).exp().ln_1p()
}

/// The `u` with `softplus(u) = t`, `t > 0`: `ln(e^t - 1)`.
fn softplus_inv(t: f64) -> f64 {
    t + (-(-t).exp_m1()).ln()
}

impl Map {
    fn of((lo, hi): (f64, f64)) -> Map {
        match (lo.is_finite(), hi.is_finite()) {
            (true, true) if hi > lo => Map::Interval(lo, hi),
            (true, false) => Map::Lower(lo),
            (false, true) => Map::Upper(hi),
            // No bound, or an empty interval (a fixed value is a frozen parameter's business).
            _ => Map::Free,
        }
    }

    fn x(self, u: f64) -> f64 {
        match self {
            Map::Free => u,
            Map::Interval(lo, hi) => (lo + (hi - lo) * sigmoid(u)).clamp(lo, hi),
            Map::Lower(lo) => lo + softplus(u),
            Map::Upper(hi) => hi - softplus(-u),
        }
    }

    fn dx(self, u: f64) -> f64 {
        match self {
            Map::Free => 1.0,
            Map::Interval(lo, hi) => {
                let s = sigmoid(u);
                (hi - lo) * s * (1.0 - s)
            }
            Map::Lower(_) => sigmoid(u),
            Map::Upper(_) => sigmoid(-u),
        }
    }

    fn u(self, x: f64) -> f64 {
        match self {
            Map::Free => x,
            Map::Interval(lo, hi) => {
                let p = ((x - lo) / (hi - lo)).clamp(MARGIN, 1.0 - MARGIN);
                (p / (1.0 - p)).ln()
            }
            Map::Lower(lo) => softplus_inv((x - lo).max(MARGIN)),
            Map::Upper(hi) => -softplus_inv((hi - x).max(MARGIN)),
        }
    }
}

/// The solver's coordinates `z` of the free parameters `x`: `x = map(scale * z)`, each map
/// smooth and into its parameter's bounds (see the module's documentation).
#[derive(Clone, Debug, PartialEq)]
pub struct Coords {
    maps: Vec<Map>,
    scale: Option<Vec<f64>>,
}

impl Coords {
    /// The coordinates for free parameters with `bounds` (infinite ends: unbounded), unscaled.
    pub fn new(bounds: &[(f64, f64)]) -> Self {
        Coords {
            maps: bounds.iter().map(|&b| Map::of(b)).collect(),
            scale: None,
        }
    }

    /// The identity on `dim` unbounded parameters.
    pub fn identity(dim: usize) -> Self {
        Coords {
            maps: vec![Map::Free; dim],
            scale: None,
        }
    }

    /// The same maps, with `u = scale * z` (`None`: `u = z`).
    pub fn scaled(mut self, scale: Option<Vec<f64>>) -> Self {
        self.scale = scale;
        self
    }

    /// Whether `x = z` (no bound, no scale).
    pub fn is_identity(&self) -> bool {
        self.scale.is_none() && self.maps.iter().all(|m| *m == Map::Free)
    }

    /// Whether coordinate `k` is bounded (mapped).
    pub fn is_bounded(&self, k: usize) -> bool {
        self.maps.get(k).is_some_and(|m| *m != Map::Free)
    }

    fn s(&self, k: usize) -> f64 {
        self.scale.as_ref().map_or(1.0, |s| s[k])
    }

    /// The `u = scale * z` of the map, before the bounds.
    pub fn unbounded(&self, z: &[f64]) -> Vec<f64> {
        (0..z.len()).map(|k| self.s(k) * z[k]).collect()
    }

    /// The free parameters at the solver's point `z`.
    pub fn to_x(&self, z: &[f64]) -> Vec<f64> {
        z.iter()
            .zip(&self.maps)
            .enumerate()
            .map(|(k, (&v, m))| m.x(self.s(k) * v))
            .collect()
    }

    /// The solver's point for free parameters `x` (a value on or beyond a bound moved
    /// [`MARGIN`] inside it first).
    pub fn to_z(&self, x: &[f64]) -> Vec<f64> {
        x.iter()
            .zip(&self.maps)
            .enumerate()
            .map(|(k, (&v, m))| m.u(v) / self.s(k))
            .collect()
    }

    /// `dx_k / dz_k` at `z` (the map is diagonal).
    pub fn jacobian(&self, z: &[f64]) -> Vec<f64> {
        z.iter()
            .zip(&self.maps)
            .enumerate()
            .map(|(k, (&v, m))| {
                let s = self.s(k);
                s * m.dx(s * v)
            })
            .collect()
    }

    /// The gradient in `z` of a function whose gradient in `x` is `gx`, at `z` (in place).
    pub fn chain(&self, z: &[f64], gx: &mut [f64]) {
        if self.is_identity() {
            return;
        }
        for (g, d) in gx.iter_mut().zip(self.jacobian(z)) {
            *g *= d;
        }
    }

    /// The gradient in `x` of a function whose gradient in `z` is `gz`, at `z`, where the map
    /// is invertible (`dx/dz > 0`); a coordinate whose `dx/dz` underflowed to 0 gets 0.
    pub fn unchain(&self, z: &[f64], gz: &[f64]) -> Vec<f64> {
        gz.iter()
            .zip(self.jacobian(z))
            .map(|(g, d)| if d > 0.0 { g / d } else { 0.0 })
            .collect()
    }
}

/// The projected gradient `x - P(x - g)` of a function with gradient `g` at `x` inside the box
/// `bounds` (`P` the projection onto the box): `g` where a step against it stays inside, and
/// no more than the distance to the bound where it would leave. It is zero exactly at a point
/// that satisfies the first-order (KKT) conditions of the bounded problem.
///
/// ```
/// let pg = optim::projected_gradient(&[0.0, 3.0], &[2.0, 1.0], &[(0.0, 8.0), (0.0, 8.0)]);
/// assert_eq!(pg, vec![0.0, 1.0]); // the first wants to go below 0: nothing left to do there
/// ```
pub fn projected_gradient(x: &[f64], g: &[f64], bounds: &[(f64, f64)]) -> Vec<f64> {
    x.iter()
        .zip(g)
        .zip(bounds)
        .map(|((&x, &g), &(lo, hi))| x - (x - g).clamp(lo, hi))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOXES: [(f64, f64); 4] = [
        (0.0, 8.0),
        (-3.0, f64::INFINITY),
        (f64::NEG_INFINITY, 10.0),
        (f64::NEG_INFINITY, f64::INFINITY),
    ];

    #[test]
    fn round_trip_inside_and_margin_on_the_bounds() {
        let c = Coords::new(&BOXES).scaled(Some(vec![0.5, 2.0, 3.0, 4.0]));
        let x = [2.5, 7.0, -40.0, 12.0];
        let back = c.to_x(&c.to_z(&x));
        for (a, b) in back.iter().zip(&x) {
            assert!((a - b).abs() < 1e-9 * b.abs().max(1.0), "{a} vs {b}");
        }
        // On or beyond the bound: moved MARGIN inside.
        let edge = c.to_x(&c.to_z(&[0.0, -3.0, 10.0, 0.0]));
        assert!((edge[0] - 8.0 * MARGIN).abs() < 1e-9);
        assert!((edge[1] - (-3.0 + MARGIN)).abs() < 1e-9);
        assert!((edge[2] - (10.0 - MARGIN)).abs() < 1e-9);
        let beyond = c.to_x(&c.to_z(&[9.0, -5.0, 11.0, 0.0]));
        assert!(beyond[0] < 8.0 && beyond[1] > -3.0 && beyond[2] < 10.0);
    }

    /// The derivative of the map against central differences: relative error below 1e-7
    /// (step 1e-5 in `z`, the error of the difference itself is about 1e-10).
    #[test]
    fn jacobian_matches_finite_differences() {
        let c = Coords::new(&BOXES).scaled(Some(vec![0.7, 1.3, 2.0, 1.0]));
        for z0 in [-6.0, -1.0, 0.0, 0.4, 3.0, 9.0] {
            let z = vec![z0; 4];
            let d = c.jacobian(&z);
            for k in 0..4 {
                let h = 1e-5;
                let (mut a, mut b) = (z.clone(), z.clone());
                a[k] += h;
                b[k] -= h;
                let fd = (c.to_x(&a)[k] - c.to_x(&b)[k]) / (2.0 * h);
                assert!(
                    (fd - d[k]).abs() <= 1e-7 * d[k].abs().max(1e-3),
                    "coordinate {k} at z = {z0}: {fd} vs {}",
                    d[k]
                );
            }
        }
    }

    #[test]
    fn never_leaves_the_box() {
        let c = Coords::new(&BOXES);
        for z0 in [-1e300, -800.0, -40.0, 40.0, 800.0, 1e300] {
            let x = c.to_x(&[z0; 4]);
            assert!((0.0..=8.0).contains(&x[0]), "{x:?}");
            assert!(x[1] >= -3.0 && x[2] <= 10.0, "{x:?}");
        }
    }
}
