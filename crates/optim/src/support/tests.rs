//! Support counts checked by hand: a linear weight with a coefficient in `k` of `n` rows has
//! support `k`; a weight behind `max(s, 0)` only in the rows with `s > 0`; a row naming a
//! weight twice counts once, and not at all when its coefficients cancel.

use tape::{Scalar, Var};
use tapered::{CompiledSet, Stop, Target};

use super::Support;
use crate::{Link, LossKind, Sigmoid};

const LINK: Link = Link {
    sigmoid: Sigmoid::Logistic,
    k: 1.0,
    loss: LossKind::Mse,
};

fn label(_: usize, _: &Vec<(u32, f64)>) -> Target {
    Target {
        value: 0.5,
        score: None,
        group: 0,
    }
}

#[test]
fn a_linear_weight_is_supported_by_the_rows_it_appears_in() {
    // Weight 0 in every row, weight 1 in every third, weight 2 in none; weight 3 named twice
    // in row 0 (counted once) and cancelling in row 1 (not counted).
    let mut items: Vec<Vec<(u32, f64)>> = (0..30)
        .map(|i| {
            let mut r = vec![(0u32, 1.0 + i as f64)];
            if i % 3 == 0 {
                r.push((1, -2.0));
            }
            r
        })
        .collect();
    items[0].extend([(3, 1.0), (3, 2.0)]);
    items[1].extend([(3, 1.0), (3, -1.0)]);
    let set = CompiledSet::record(
        &[0.0; 4],
        &items,
        label,
        |_, f, w| Some(Var::dot(w, f)),
        None,
    );
    let s = Support::measure(&set, &[0.0; 4], LINK, Stop::Never).unwrap();
    assert_eq!(s.counts(), [30, 10, 0, 1]);
    assert_eq!(s.rows(), 30);
    assert_eq!(s.share(1), 1.0 / 3.0);
    // At q = 0 every row has the same curvature c: weight 1's typical curvature is 4 c.
    let c = LINK.curvature(0.0);
    let h = s.typical_curvature();
    assert!((h[1] - 4.0 * c).abs() < 1e-15 * c, "{h:?}");
    assert!((h[3] - 9.0 * c).abs() < 1e-15 * c, "{h:?}");
    // Weight 2, unsupported, takes the median of the others' (4c, 9c and weight 0's).
    assert_eq!(h[2], 9.0 * c);
    let p = s.prior_strengths(60.0);
    assert!((p[1] - 60.0 * 4.0 * c / 60.0).abs() < 1e-15, "{p:?}");
    assert_eq!(s.prior_strengths(0.0), vec![0.0; 4]);
}

#[test]
fn a_weight_behind_max_is_supported_only_where_its_sum_is_positive() {
    // q = w0 + max(w1 * x + w2, 0): at w = (0, 1, 0) the sum is x, positive in 4 rows of 12.
    let xs = [
        -3.0, 2.0, -1.0, -0.5, 5.0, -2.0, 1.0, -4.0, -5.0, 3.0, -1.0, -2.0,
    ];
    let items: Vec<Vec<(u32, f64)>> = xs.iter().map(|&x| vec![(0, 1.0), (1, x)]).collect();
    let eval = |_: usize, f: &Vec<(u32, f64)>, w: &[Var]| {
        let s = w[1] * f[1].1 + w[2];
        Some(w[0] * f[0].1 + s.max(Var::constant(0.0)))
    };
    let w = [0.0, 1.0, 0.0];
    let set = CompiledSet::record(&w, &items, label, eval, None);
    let s = Support::measure(&set, &w, LINK, Stop::Never).unwrap();
    assert_eq!(s.counts(), [12, 4, 4]);
    // Moved so that the sum is positive everywhere but at x = -5, -4: ten rows.
    let w = [0.0, 1.0, 3.5];
    assert_eq!(
        Support::measure(&set, &w, LINK, Stop::Never)
            .unwrap()
            .counts(),
        [12, 10, 10]
    );
}

#[test]
fn measuring_stops_when_told() {
    let items: Vec<Vec<(u32, f64)>> = (0..10).map(|_| vec![(0, 1.0)]).collect();
    let set = CompiledSet::record(&[0.0], &items, label, |_, f, w| Some(Var::dot(w, f)), None);
    let stop = std::sync::atomic::AtomicBool::new(true);
    assert!(Support::measure(&set, &[0.0], LINK, Stop::from(&stop)).is_none());
}
