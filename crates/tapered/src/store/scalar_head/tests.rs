//! Tests of the sums-scalars-and-head store.

use super::*;
use crate::store::{Pass, Store};
use tape::{Scalar, Scratch, Tape};

/// head(a_mg, a_eg, b_mg, b_eg; p; c) = c * a_mg + a_eg * p - max(b_mg, 0)^2 + sign(b_eg) * c.
fn store() -> ScalarHead {
    let mut tape = Tape::new();
    tape.record(|rec| {
        let x = rec.inputs(&[1.0; 6]);
        let y =
            x[5] * x[0] + x[1] * x[4] - x[2].max(tape::Var::zero()).powi(2) + x[3].sign() * x[5];
        let head = rec.compile(y);
        // params: 0/1 and 2/3 pairs, 4 and 5 picked weights
        let eg_of = [Some(1), None, Some(3), None, None, None];
        ScalarHead::new(&eg_of, (2, 1, 1), head).unwrap()
    })
}

fn row(a: &[(u32, u32, f64)], b: &[(u32, u32, f64)], pick: u32, c: f64) -> HeadRow {
    let side = |v: &[(u32, u32, f64)], e: bool| -> Vec<(u32, f64)> {
        v.iter()
            .map(|&(m, g, k)| (if e { g } else { m }, k))
            .collect()
    };
    HeadRow {
        sums: vec![side(a, false), side(a, true), side(b, false), side(b, true)],
        picks: vec![pick],
        scalars: vec![c],
    }
}

/// The head at `w` by hand, and its gradient.
fn by_hand(r: &HeadRow, w: &[f64]) -> (f64, Vec<f64>) {
    let s = |k: usize| {
        r.sums[k]
            .iter()
            .map(|&(i, c)| c * w[i as usize])
            .sum::<f64>()
    };
    let (am, ae, bm, be, p, c) = (s(0), s(1), s(2), s(3), w[r.picks[0] as usize], r.scalars[0]);
    let sign = if be > 0.0 {
        1.0
    } else if be < 0.0 {
        -1.0
    } else {
        0.0
    };
    let q = c * am + ae * p - bm.max(0.0).powi(2) + sign * c;
    let mut g = vec![0.0; w.len()];
    let d = [c, p, -2.0 * bm.max(0.0), 0.0];
    for (k, dk) in d.iter().enumerate() {
        for &(i, coef) in &r.sums[k] {
            g[i as usize] += dk * coef;
        }
    }
    g[r.picks[0] as usize] += ae;
    (q, g)
}

#[test]
fn replays_groups_picks_and_scalars() {
    let mut h = store();
    let rows = [
        row(&[(0, 1, 2.0), (2, 3, -1.0)], &[(2, 3, 3.0)], 4, 0.5),
        row(&[(0, 1, -1.0)], &[(0, 1, 1.0), (2, 3, -2.0)], 5, -1.25),
        row(&[], &[], 4, 2.0),
        // Untapered weights (4, 5: singles, one weight in both phases) in the sums, beside a
        // pair.
        row(&[(4, 4, 2.0), (0, 1, 1.0)], &[(5, 5, -3.0)], 4, 1.0),
        // Coefficients beyond the 9-bit packing's -64..=63: several features of one pair.
        row(&[(0, 1, 99.0), (2, 3, -1.0)], &[(2, 3, -200.0)], 5, 0.75),
    ];
    for r in &rows {
        assert_eq!(h.try_push(r), Ok(()));
    }
    let w = [10.0, 20.0, 30.0, -40.0, 2.0, 0.5];
    let mut scratch = Scratch::default();
    let mut total = (0.0, vec![0.0; 6]);
    for (i, r) in rows.iter().enumerate() {
        let (q, g) = by_hand(r, &w);
        assert_eq!(h.score(i, &w, &mut scratch), q, "position {i}");
        let mut got = vec![0.0; 6];
        h.add_gradient(i, 1.0, &mut scratch, &mut got);
        assert_eq!(got, g, "position {i}");
        total.0 += q * q;
        for (t, gk) in total.1.iter_mut().zip(&g) {
            *t += 2.0 * q * gk;
        }
    }
    // The pass: loss q^2, so dL/dq = 2q.
    let mut grad = vec![0.0; 6];
    let f = |_: usize, q: f64| (q * q, 2.0 * q);
    let loss = h.sweep(
        &Pass {
            w: &w,
            want: true,
            f: &f,
        },
        0..rows.len(),
        &mut scratch,
        &mut grad,
    );
    assert_eq!(loss, total.0);
    for (a, b) in grad.iter().zip(&total.1) {
        assert!(
            (a - b).abs() <= 1e-12 * b.abs().max(1.0),
            "{grad:?} {:?}",
            total.1
        );
    }
    // A subset keeps the rows, scalars included.
    let sub = h.subset(&[2, 0]);
    assert_eq!(sub.score(1, &w, &mut scratch), h.score(0, &w, &mut scratch));
    assert_eq!(sub.score(0, &w, &mut scratch), h.score(2, &w, &mut scratch));
}

#[test]
fn refuses_what_does_not_fit_and_says_why() {
    let mut h = store();
    // Each refusal names the parameter (and coefficient) of the first term that did not fit.
    let mut r = row(&[(2, 3, 1.0), (0, 1, 1.0)], &[], 4, 1.0);
    r.sums[1][1] = (1, 2.0);
    assert_eq!(h.try_push(&r), Err(Refusal::at(Reason::NoTwinPair, 0, 1.0)));
    let r = row(&[(0, 1, 0.5)], &[], 4, 1.0);
    let half = Refusal::at(Reason::NonIntegerCoefficient, 0, 0.5);
    assert_eq!(h.try_push(&r), Err(half));
    // 16 features of -64 or 63 at most a term.
    let r = row(&[(2, 3, 1009.0)], &[], 4, 1.0);
    let far = Refusal::at(Reason::CoefficientOutOfRange, 2, 1009.0);
    assert_eq!(h.try_push(&r), Err(far));
    let r = row(&[], &[], 70_000, 1.0);
    let pick = h.try_push(&r).unwrap_err();
    assert_eq!(
        (pick.reason, pick.param),
        (Reason::IndexOutOfRange, Some(70_000))
    );
    let mut r = row(&[], &[], 4, 1.0);
    r.scalars.push(2.0);
    assert_eq!(h.try_push(&r), Err(Reason::UnusableSplit.into()));
    assert_eq!(h.len(), 0);
}

/// A pass over a store of more than 512 pairs (a wider packing: the pass's by-pair tables are
/// slices, not the 9-bit packing's fixed-size arrays) equals the positions one at a time.
#[test]
fn a_pass_over_wide_pairs_equals_the_positions() {
    let pairs = 600;
    let n = 2 * pairs + 2;
    let mut eg_of = vec![None; n];
    for p in 0..pairs {
        eg_of[2 * p] = Some(2 * p + 1);
    }
    let mut h = ScalarHead::new(&eg_of, (2, 1, 1), store().head).unwrap();
    let last = 2 * (pairs as u32 - 1);
    let rows = [
        row(
            &[(0, 1, 2.0), (last, last + 1, -1.0)],
            &[(last, last + 1, 3.0)],
            1200,
            0.5,
        ),
        row(
            &[(last, last + 1, 1.0)],
            &[(0, 1, -1.0), (600, 601, -2.0)],
            1201,
            -1.25,
        ),
    ];
    for r in &rows {
        assert_eq!(h.try_push(r), Ok(()));
    }
    let w: Vec<f64> = (0..n)
        .map(|i| 0.5 + (i % 5) as f64 - 0.5 * (i % 2) as f64)
        .collect();
    let mut scratch = Scratch::default();
    let (mut want, mut each) = (0.0, vec![0.0; n]);
    for (i, r) in rows.iter().enumerate() {
        let (q, g) = by_hand(r, &w);
        assert_eq!(h.score(i, &w, &mut scratch), q, "position {i}");
        want += q * q;
        for (t, gk) in each.iter_mut().zip(&g) {
            *t += 2.0 * q * gk;
        }
    }
    let mut grad = vec![0.0; n];
    let f = |_: usize, q: f64| (q * q, 2.0 * q);
    let loss = h.sweep(
        &Pass {
            w: &w,
            want: true,
            f: &f,
        },
        0..2,
        &mut scratch,
        &mut grad,
    );
    assert!((loss - want).abs() <= 1e-12 * want);
    for (j, (a, b)) in grad.iter().zip(&each).enumerate() {
        assert!((a - b).abs() <= 1e-12 * b.abs().max(1.0), "{j}: {a} vs {b}");
    }
}

/// A pass in blocks of `tape::LANES` positions (and the rest one at a time) gives what the
/// positions one at a time give, bit for bit: losses summed and gradients distributed in
/// position order, `min`'s and `sign`'s branches re-decided in each lane, zero `dL/dq` in
/// some lanes.
#[test]
fn a_pass_in_blocks_equals_the_positions_one_at_a_time() {
    let mut h = store();
    let n = 2 * tape::LANES + 5;
    for k in 0..n {
        let c = k as f64;
        let r = row(
            &[(0, 1, c - 7.0), (2, 3, 1.0), (4, 4, (k % 3) as f64)],
            &[(2, 3, 3.0 - c), (5, 5, 1.0)],
            4 + (k % 2) as u32,
            0.25 * c - 2.0,
        );
        assert_eq!(h.try_push(&r), Ok(()));
    }
    let w = [1.5, -2.0, 0.5, 3.0, 2.0, -0.75];
    let f = |i: usize, q: f64| {
        let d = if i % 5 == 3 { 0.0 } else { 2.0 * q };
        (q * q, d)
    };
    let mut scratch = Scratch::default();
    let (mut want, mut each) = (0.0, vec![0.0; 6]);
    for i in 0..n {
        let q = h.score(i, &w, &mut scratch);
        let (l, d) = f(i, q);
        want += l;
        if d != 0.0 {
            h.add_gradient(i, d, &mut scratch, &mut each);
        }
    }
    let mut grad = vec![0.0; 6];
    let pass = Pass {
        w: &w,
        want: true,
        f: &f,
    };
    let loss = h.sweep(&pass, 0..n, &mut scratch, &mut grad);
    assert_eq!(loss, want);
    for (a, b) in grad.iter().zip(&each) {
        assert!(
            (a - b).abs() <= 1e-12 * b.abs().max(1.0),
            "{grad:?} {each:?}"
        );
    }
}
