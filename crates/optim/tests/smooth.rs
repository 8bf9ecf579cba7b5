//! The smoothness prior (`ObjectiveConfig::smooth` over `Objective::with_pairs`): its gradient
//! against central differences, its curvature in every form of the Gauss-Newton matrix, and its
//! meaning under repeated data.

use std::sync::Arc;

use optim::{Link, Objective, ObjectiveConfig};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tape::Scalar;
use tapered::Stop;
use tapered::{CompiledSet, Target};

const PARAMS: usize = 6;
/// Pairs over the 6 parameters: a chain, a cycle's closing pair, and pairs with the frozen one.
const PAIRS: [(usize, usize); 6] = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (0, 5)];
/// Parameter 4 is frozen.
const FREE: [usize; 5] = [0, 1, 2, 3, 5];

/// `n` positions of 2 to 4 random linear terms each, random results; `copies` times over.
fn set(n: usize, copies: usize) -> Arc<CompiledSet> {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let items: Vec<Vec<(u32, f64)>> = (0..n)
        .map(|_| {
            (0..rng.gen_range(2..=4))
                .map(|_| (rng.gen_range(0..PARAMS as u32), rng.gen_range(-2.0..2.0)))
                .collect()
        })
        .collect();
    let results: Vec<f64> = (0..n)
        .map(|_| f64::from(rng.gen_range(0..3u8)) / 2.0)
        .collect();
    let items: Vec<_> = (0..copies).flat_map(|_| items.iter().cloned()).collect();
    let start = vec![0.0; PARAMS];
    Arc::new(CompiledSet::record(
        &start,
        &items,
        |i, _| Target {
            value: results[i % n],
            score: None,
            group: (i % n) as u32,
        },
        |_, f, w| Some(tape::Var::dot(w, f)),
        None,
    ))
}

fn objective(set: Arc<CompiledSet>, smooth: f64) -> Objective {
    let link = Link::texel(1.0);
    let cfg = ObjectiveConfig {
        l2: 1e-4,
        smooth,
        ..ObjectiveConfig::new(link)
    };
    let base = vec![10.0, -20.0, 30.0, 0.0, 40.0, -5.0];
    Objective::new(set, cfg, base, Some(FREE.to_vec()))
        .unwrap()
        .with_pairs(&PAIRS)
        .unwrap()
}

fn point() -> Vec<f64> {
    vec![60.0, -80.0, 15.0, 120.0, -40.0]
}

/// Tolerance as for the objective's other gradient checks: `|g - fd| <= 1e-6 max |g| + 1e-12`
/// with `h = 1e-4`.
#[test]
fn the_gradient_with_the_smoothness_penalty_matches_differences() {
    let obj = objective(set(200, 1), 1e-3);
    let x = point();
    let (_, g) = obj.value_and_gradient(&x);
    let gmax = g.iter().fold(0.0f64, |a, b| a.max(b.abs()));
    let h = 1e-4;
    for k in 0..x.len() {
        let (mut a, mut b) = (x.clone(), x.clone());
        a[k] += h;
        b[k] -= h;
        let fd =
            (obj.value(&a, Stop::Never).unwrap() - obj.value(&b, Stop::Never).unwrap()) / (2.0 * h);
        assert!(
            (g[k] - fd).abs() <= 1e-6 * gmax + 1e-12,
            "coordinate {k}: gradient {} vs difference {fd}",
            g[k]
        );
    }
    // The penalty is there: the same point without it has another value and gradient.
    let plain = objective(set(200, 1), 0.0);
    let (_, g0) = plain.value_and_gradient(&x);
    assert!((obj.value(&x, Stop::Never).unwrap() - plain.value(&x, Stop::Never).unwrap()) > 1.0);
    assert!(g.iter().zip(&g0).any(|(a, b)| (a - b).abs() > 1e-3));
}

/// The Gauss-Newton matrix built densely, applied matrix-free and its diagonal agree, and the
/// smoothness part is `2 smooth L` (the Laplacian of the pairs among the free parameters, a pair
/// with the frozen parameter on its free member's diagonal only). Relative tolerance 1e-12:
/// the three are sums of the same products in different orders.
#[test]
fn the_gauss_newton_matrix_holds_the_smoothness_curvature() {
    let s = 1e-3;
    let x = point();
    let with = objective(set(200, 1), s);
    let without = objective(set(200, 1), 0.0);
    let (lw, lo) = (
        with.linearise(&x, None, Stop::Never).unwrap(),
        without.linearise(&x, None, Stop::Never).unwrap(),
    );
    let m = FREE.len();
    let (hw, ho) = (
        lw.dense(Stop::Never).unwrap(),
        lo.dense(Stop::Never).unwrap(),
    );
    let diag = lw.diagonal(Stop::Never).unwrap();
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * (1.0 + a.abs().max(b.abs()));
    for c in 0..m {
        let mut e = vec![0.0; m];
        e[c] = 1.0;
        let col = lw.apply(&e);
        for r in 0..m {
            assert!(
                close(col[r], hw[r * m + c]),
                "H[{r}][{c}]: {} vs {}",
                col[r],
                hw[r * m + c]
            );
        }
        assert!(close(diag[c], hw[c * m + c]));
    }
    // The difference is 2 s L over the free slots (parameter 4, frozen, has no slot).
    let slot = |i: usize| FREE.iter().position(|&f| f == i);
    let mut l = vec![0.0; m * m];
    for (a, b) in PAIRS {
        for (p, q) in [(a, b), (b, a)] {
            if let Some(sp) = slot(p) {
                l[sp * m + sp] += 1.0;
                if let Some(sq) = slot(q) {
                    l[sp * m + sq] -= 1.0;
                }
            }
        }
    }
    for k in 0..m * m {
        assert!(close(hw[k] - ho[k], 2.0 * s * l[k]), "entry {k}");
    }
}

/// Like `l2`, the prior weighs against the mean loss: the data repeated three times gives the
/// same objective and gradient.
#[test]
fn the_smoothness_penalty_means_the_same_on_repeated_data() {
    let x = point();
    let once = objective(set(150, 1), 1e-3);
    let thrice = objective(set(150, 3), 1e-3);
    let (e1, g1) = once.value_and_gradient(&x);
    let (e3, g3) = thrice.value_and_gradient(&x);
    assert!((e1 - e3).abs() <= 1e-12 * e1.abs());
    for (a, b) in g1.iter().zip(&g3) {
        assert!((a - b).abs() <= 1e-12 * (1.0 + a.abs()));
    }
}

/// A pair naming a parameter the objective does not have is an error, not a panic.
#[test]
fn a_pair_out_of_range_is_refused() {
    let obj = objective(set(10, 1), 1e-3);
    assert!(obj.with_pairs(&[(0, PARAMS)]).is_err());
    let obj = objective(set(10, 1), 1e-3);
    assert!(obj.with_pairs(&[(2, 2)]).is_err());
}
