//! Tests of the sums-and-head store.

use super::*;
use crate::store::{Pass, Store};
use tape::{Scratch, Tape};

/// head(s0, s1, s2; h0) = s0 * h0 + s1 + s2^2: sums 0 and 1 are the twins.
fn store() -> Headed {
    let mut tape = Tape::new();
    tape.record(|rec| {
        let x = rec.inputs(&[0.0, 0.0, 0.0, 1.0]);
        let y = x[0] * x[3] + x[1] + x[2] * x[2];
        let head = rec.compile(y);
        // params: 0/1 a pair, 2/3 a pair, 4 a danger input, 5 the head weight
        let eg_of = [Some(1), None, Some(3), None, None, None];
        Headed::new(&eg_of, 3, (0, 1), head, vec![5], None).unwrap()
    })
}

#[test]
fn replays_sums_and_head() {
    let mut h = store();
    let sums = vec![
        vec![(0, 2.0), (2, -1.0), (0, 1.0)],
        vec![(1, 2.0), (3, -1.0), (1, 1.0)],
        vec![(4, 3.0)],
    ];
    assert_eq!(h.try_push(&sums), Ok(()));
    let w = [10.0, 20.0, 30.0, 40.0, 2.0, 0.5];
    let (s0, s1, s2) = (3.0 * 10.0 - 30.0, 3.0 * 20.0 - 40.0, 6.0);
    let mut scratch = Scratch::default();
    assert_eq!(h.score(0, &w, &mut scratch), s0 * 0.5 + s1 + s2 * s2);
    let mut g = [0.0; 6];
    h.add_gradient(0, 1.0, &mut scratch, &mut g);
    assert_eq!(g, [3.0 * 0.5, 3.0, -0.5, -1.0, 2.0 * s2 * 3.0, s0]);
    // Not twins (coefficients differ), an unpaired parameter in the twins, a fraction.
    let twins = |m: f64, e: f64| [vec![(0, m)], vec![(1, e)], vec![]];
    let refused = |h: &mut Headed, sums: &[Vec<(u32, f64)>]| h.try_push(sums).map_err(|r| r.reason);
    assert_eq!(refused(&mut h, &twins(1.0, 2.0)), Err(Reason::NoTwinPair));
    assert_eq!(
        refused(&mut h, &twins(0.5, 0.5)),
        Err(Reason::NonIntegerCoefficient)
    );
    // Beyond 16 features of -64 or 63 (a coefficient of 99 is two: 63 and 36).
    assert_eq!(
        refused(&mut h, &twins(1009.0, 1009.0)),
        Err(Reason::CoefficientOutOfRange)
    );
    let unpaired = [vec![(4, 1.0)], vec![(4, 1.0)], vec![]];
    assert_eq!(refused(&mut h, &unpaired), Err(Reason::NoTwinPair));
    let fraction = [vec![], vec![], vec![(4, 0.5)]];
    assert_eq!(
        refused(&mut h, &fraction),
        Err(Reason::NonIntegerCoefficient)
    );
    let wide = [vec![], vec![], vec![(70_000, 1.0)]];
    assert_eq!(refused(&mut h, &wide), Err(Reason::IndexOutOfRange));
    assert_eq!(h.len(), 1);
    let back = h.sums_of(0);
    // Unit features (coefficient +-1) first, then the general ones.
    assert_eq!(
        back,
        vec![
            vec![(2, -1.0), (0, 3.0)],
            vec![(3, -1.0), (1, 3.0)],
            vec![(4, 3.0)]
        ]
    );
}

/// The Jacobian row is the gradient, each parameter once, even one that is both a sum's term
/// and a head weight (as the phase weights of `full` are); the buffer is left zero.
#[test]
fn jacobian_rows_are_the_gradient_each_parameter_once() {
    let mut h = store();
    let sums = vec![
        vec![(0, 2.0), (2, -1.0)],
        vec![(1, 2.0), (3, -1.0)],
        vec![(4, 3.0), (5, 1.0)],
    ];
    assert_eq!(h.try_push(&sums), Ok(()));
    let w = [10.0, 20.0, 30.0, 40.0, 2.0, 0.5];
    let mut scratch = Scratch::default();
    h.score(0, &w, &mut scratch);
    let mut g = [0.0; 6];
    h.add_gradient(0, 1.0, &mut scratch, &mut g);
    let (mut dense, mut idx, mut coef) = (vec![0.0; 6], vec![9], vec![9.0]);
    h.jacobian_row(0, &w, &mut scratch, &mut dense, &mut idx, &mut coef);
    assert!(dense.iter().all(|&d| d == 0.0));
    assert_eq!((idx[0], coef[0]), (9, 9.0), "what was there before is kept");
    let (idx, coef) = (&idx[1..], &coef[1..]);
    let mut once = idx.to_vec();
    once.sort_unstable();
    once.dedup();
    assert_eq!(once.len(), idx.len());
    let mut got = [0.0; 6];
    for (&j, &c) in idx.iter().zip(coef) {
        got[j as usize] = c;
    }
    for j in 0..6 {
        assert!((got[j] - g[j]).abs() < 1e-12, "{j}: {} vs {}", got[j], g[j]);
    }
}

/// `head` of [`store`] by hand: `s0 * h0 + s1 + s2^2` and its derivatives.
fn head_by_hand(s: &[f64], h: &[f64], grad: &mut [f64]) -> f64 {
    grad[..4].copy_from_slice(&[h[0], 1.0, 2.0 * s[2], s[0]]);
    s[0] * h[0] + s[1] + s[2] * s[2]
}

/// A store as [`store`]'s over `pairs` (middlegame, endgame) pairs (parameters `2p`, `2p + 1`),
/// then a danger input and the head weight, with the head by hand if `fast`, holding rows that
/// read the first, a middle and the last pair.
fn wide_store(pairs: usize, fast: bool) -> (Headed, Vec<f64>) {
    let n = 2 * pairs + 2;
    let mut eg_of = vec![None; n];
    for p in 0..pairs {
        eg_of[2 * p] = Some(2 * p + 1);
    }
    let head = store().head;
    let fast = fast.then_some(head_by_hand as HeadGradient);
    let mut h = Headed::new(&eg_of, 3, (0, 1), head, vec![n as u32 - 1], fast).unwrap();
    let (a, b, c) = (0u32, pairs as u32 / 2, pairs as u32 - 1);
    for (k, coefs) in [[1.0, -1.0, 3.0], [-2.0, 1.0, 1.0], [5.0, 7.0, -1.0]]
        .iter()
        .enumerate()
    {
        let twin = |e: u32| -> Vec<(u32, f64)> {
            [a, b, c]
                .iter()
                .zip(coefs)
                .map(|(&p, &s)| (2 * p + e, s))
                .collect()
        };
        let danger = vec![(n as u32 - 2, k as f64 - 1.0)];
        assert_eq!(h.try_push(&[twin(0), twin(1), danger]), Ok(()));
    }
    let w = (0..n)
        .map(|i| 0.5 + (i % 7) as f64 - 0.25 * (i % 3) as f64)
        .collect();
    (h, w)
}

/// A pass (at the 9-bit packing's fixed-size tables, or a wider packing's slices) equals the
/// positions one at a time, through the recorded head and through the head by hand.
#[test]
fn passes_equal_the_positions_at_every_pair_width() {
    for pairs in [2, 600] {
        for fast in [false, true] {
            let (h, w) = wide_store(pairs, fast);
            assert_eq!(h.pairs.packing == Default::default(), pairs <= 512);
            let mut scratch = Scratch::default();
            let (mut want, mut each) = (0.0, vec![0.0; w.len()]);
            for i in 0..h.len() {
                let q = h.score(i, &w, &mut scratch);
                want += q * q;
                h.add_gradient(i, 2.0 * q, &mut scratch, &mut each);
            }
            let mut grad = vec![0.0; w.len()];
            let f = |_: usize, q: f64| (q * q, 2.0 * q);
            let pass = Pass {
                w: &w,
                want: true,
                f: &f,
            };
            let loss = h.sweep(&pass, 0..h.len(), &mut scratch, &mut grad);
            assert!(
                (loss - want).abs() <= 1e-12 * want,
                "{pairs} pairs, fast {fast}"
            );
            for (j, (a, b)) in grad.iter().zip(&each).enumerate() {
                let tol = 1e-12 * b.abs().max(1.0);
                assert!(
                    (a - b).abs() <= tol,
                    "{pairs} pairs, fast {fast}, {j}: {a} vs {b}"
                );
            }
            // Every parameter the rows read has a gradient: three pairs (two of them one when
            // there are two pairs), the danger input and the head weight.
            let read = if pairs == 2 { 6 } else { 8 };
            assert_eq!(each.iter().filter(|g| **g != 0.0).count(), read);
        }
    }
}
