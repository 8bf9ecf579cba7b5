//! Tests of the phased store.

use super::*;
use crate::store::packing::MAX_PAIRS;
use crate::store::unit::pack_unit;
use crate::store::Reason;

#[test]
fn unit_features_pack_and_index_the_signed_table() {
    for p in [0usize, 1, 388, 511, 903, MAX_PAIRS - 1] {
        assert_eq!(unpack_unit(pack_unit(p, false)), (p, 1.0));
        assert_eq!(unpack_unit(pack_unit(p, true)), (p, -1.0));
        assert_eq!(Unit::new(p, true).index(), 2 * p + 1);
        // The signed tables' unchecked address: the bits are twice the index.
        assert_eq!(Unit::new(p, true).f64_offset(), 2 * (2 * p + 1));
    }
    let past = std::panic::catch_unwind(|| Unit::new(MAX_PAIRS, false));
    assert!(
        past.is_err(),
        "a pair number past MAX_PAIRS makes no unit feature"
    );
    // The list keeps the bound of its features.
    let mut us = Units::default();
    assert_eq!(us.bound(), 0);
    us.push(Unit::new(7, true));
    us.extend_from_slice(&[Unit::new(3, false)]);
    assert_eq!((us.bound(), us.len()), (16, 2));
    let mut more = Units::default();
    more.push(Unit::new(900, false));
    us.append(&more);
    assert_eq!((us.bound(), us.len()), (1801, 3));
    // The checked u16 path agrees with the unit path.
    let mut v = vec![[0.0; 2]; 1024];
    v[7] = [3.0, -4.0];
    let t = Signed::new(&v);
    assert_eq!(t.len(), 2048);
    for neg in [false, true] {
        let u = Unit::new(7, neg);
        // SAFETY: index 14 or 15, below the table's 2048.
        assert_eq!(t.get(u.bits()), unsafe { t.unit(u) });
    }
    assert_eq!(t.get(pack_unit(7, true)), [-3.0, 4.0]);
    // The feature of table index 2048, one past the end (a feature is twice its index).
    let past = std::panic::catch_unwind(|| t.get(2 * 2048));
    assert!(past.is_err(), "the u16 path is checked");
    let last = std::panic::catch_unwind(|| t.get(2 * 2047));
    assert!(last.is_ok(), "the last entry is in bounds");
}

#[test]
fn decomposes_tapered_rows_and_rejects_others() {
    let eg_of = [Some(1), None, Some(3), None, None];
    let mut ph = Phased::new(&eg_of).unwrap();
    let r = 7.0 / 24.0;
    // 2 * taper(w0, w1) - taper(w2, w3)
    let row = [2.0 * r, 2.0 * (1.0 - r), -r, r - 1.0];
    assert_eq!(ph.try_push(0.0, &[0, 1, 2, 3], &row), Ok(()));
    let w = [10.0, 20.0, 30.0, 40.0, 50.0];
    let want = 2.0 * (r * 10.0 + (1.0 - r) * 20.0) - (r * 30.0 + (1.0 - r) * 40.0);
    assert!((ph.score(0, &w) - want).abs() < 1e-12);
    let mut g = [0.0; 5];
    ph.add_gradient(0, 1.0, &mut g);
    assert!((g[0] - 2.0 * r).abs() < 1e-15 && (g[3] - (r - 1.0)).abs() < 1e-15);
    // an unpaired parameter, a constant that is no f32, a second phase, a non-integer count,
    // a count out of range
    let refused = |konst: f64, idx: &[u32], coef: &[f64]| ph.clone().try_push(konst, idx, coef);
    assert_eq!(refused(0.0, &[4], &[1.0]), Err(Reason::NoTwinPair));
    assert_eq!(
        refused(0.1, &[0, 1], &[r, 1.0 - r]),
        Err(Reason::ConstantTerm)
    );
    let two_phases = [r, 1.0 - r, 0.5, 0.5];
    assert_eq!(
        refused(0.0, &[0, 1, 2, 3], &two_phases),
        Err(Reason::MixedPhases)
    );
    let half = [r, 1.0 - r, 1.5 * r, 1.5 * (1.0 - r)];
    assert_eq!(
        refused(0.0, &[0, 1, 2, 3], &half),
        Err(Reason::NonIntegerCoefficient)
    );
    let wide = [r, 1.0 - r, 99.0 * r, 99.0 * (1.0 - r)];
    assert_eq!(
        refused(0.0, &[0, 1, 2, 3], &wide),
        Err(Reason::CoefficientOutOfRange)
    );
    assert_eq!(ph.len(), 1);
    assert_eq!((ph.units.len(), ph.feats.len()), (1, 1));
}

#[test]
fn keeps_constants_and_scaled_rows_exactly() {
    let eg_of = [Some(1), None, Some(3), None];
    let mut ph = Phased::new(&eg_of).unwrap();
    // a = 0.75, b = 0.125 (a scale): 2 * (a w0 + b w1) - (a w2 + b w3) - 3.5, and the same
    // with a constant only, and one pair at a phase above its maximum (a > 1, b < 0).
    let (a, b) = (0.75, 0.125);
    assert_eq!(
        ph.try_push(-3.5, &[0, 1, 2, 3], &[2.0 * a, 2.0 * b, -a, -b]),
        Ok(())
    );
    assert_eq!(ph.try_push(2.25, &[], &[]), Ok(()));
    assert_eq!(
        ph.try_push(0.0, &[2, 3], &[3.0 * 1.25, 3.0 * -0.25]),
        Ok(())
    );
    let w = [10.0, 20.0, 30.0, 40.0];
    let want0 = -3.5 + 2.0 * (a * 10.0 + b * 20.0) - (a * 30.0 + b * 40.0);
    assert_eq!(ph.score(0, &w), want0);
    assert_eq!(ph.score(1, &w), 2.25);
    assert_eq!(ph.score(2, &w), 3.0 * (1.25 * 30.0 - 0.25 * 40.0));
    let mut g = [0.0; 4];
    ph.add_gradient(0, 1.0, &mut g);
    assert_eq!(g, [2.0 * a, 2.0 * b, -a, -b]);
    // The sweep gives the same values and gradient.
    let f = |_: usize, q: f64| (q, 1.0);
    let mut gp = ph.pairs.zeros();
    let sum = ph.sweep(&ph.gather(&w), 0..3, true, &f, &mut gp);
    assert_eq!(sum, want0 + 2.25 + 3.0 * (1.25 * 30.0 - 0.25 * 40.0));
    let mut g = [0.0; 4];
    ph.scatter(&gp, &mut g);
    assert_eq!(g, [2.0 * a, 2.0 * b, -a + 3.0 * 1.25, -b + 3.0 * -0.25]);
}

#[test]
fn pushes_counts_with_singles_and_says_why_not() {
    // 0/1 a pair, 2 and 3 singles.
    let eg_of = [Some(1), None, None, None];
    let mut ph = Phased::with_singles(&eg_of).unwrap();
    let (a, b) = (1.25, -0.25);
    // repeats add up, a merged zero is left out, a single's term is count (a + b) w
    let counts = [(2, 1.0), (0, 3.0), (3, 1.0), (0, -1.0), (3, -1.0)];
    assert_eq!(ph.try_push_counts([a, b], 4.5, &counts), Ok(()));
    assert_eq!((ph.units.len(), ph.feats.len()), (1, 1));
    let w = [8.0, 16.0, 32.0, 64.0];
    assert_eq!(
        ph.score(0, &w),
        4.5 + 2.0 * (a * 8.0 + b * 16.0) + (a + b) * 32.0
    );
    let mut g = [0.0; 4];
    ph.add_gradient(0, 1.0, &mut g);
    assert_eq!(g, [2.0 * a, 2.0 * b, a + b, 0.0]);
    let (mut idx, mut coef) = (Vec::new(), Vec::new());
    ph.row_into(0, &mut idx, &mut coef);
    assert_eq!((idx, coef), (vec![2, 0, 1], vec![a + b, 2.0 * a, 2.0 * b]));
    let refused = |counts: &[(u32, f64)], konst: f64| {
        let r = ph.clone().try_push_counts([a, b], konst, counts);
        r.map_err(|r| r.reason)
    };
    assert_eq!(
        refused(&[(1, 1.0)], 0.0),
        Err(Reason::NoTwinPair),
        "an endgame index"
    );
    assert_eq!(
        refused(&[(4, 1.0)], 0.0),
        Err(Reason::NoTwinPair),
        "out of range"
    );
    assert_eq!(
        refused(&[(0, 0.5)], 0.0),
        Err(Reason::NonIntegerCoefficient)
    );
    assert_eq!(
        refused(&[(0, 60.0), (0, 4.0)], 0.0),
        Err(Reason::CoefficientOutOfRange)
    );
    assert_eq!(refused(&[(0, -64.0)], 0.0), Ok(()));
    assert_eq!(refused(&[(0, 1.0)], 1e-3), Err(Reason::ConstantTerm));
    // A row naming a single is not decomposed from sparse coefficients.
    assert_eq!(
        ph.clone().try_push(0.0, &[2], &[1.0]),
        Err(Reason::NoTwinPair)
    );
    // Singles only when they all fit; a store with singles appends no rows of one without.
    let many: Vec<Option<usize>> = (0..MAX_PAIRS + 1).map(|_| None).collect();
    assert!(Phased::with_singles(&many).is_none());
    let mut plain = Phased::new(&eg_of).unwrap();
    assert!(!plain.append(&ph) && plain.len() == 0);
}

/// Rows of `n` pairs (parameter `2p` the middlegame, `2p + 1` the endgame weight of pair
/// `p`) with coefficients drawn from `s`.
/// A sparse row: (indices, coefficients).
type Row = (Vec<u32>, Vec<f64>);

fn rows(n: usize, len: usize, s: &[f64]) -> (Phased, Vec<Row>) {
    let eg_of: Vec<Option<usize>> = (0..2 * n).map(|i| (i % 2 == 0).then_some(i + 1)).collect();
    let mut ph = Phased::new(&eg_of).unwrap();
    let mut out = Vec::new();
    let mut state = 12345u64;
    let mut next = |m: usize| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as usize % m
    };
    for row in 0..len {
        let r = (row % 25) as f64 / 24.0;
        let k = 1 + next(n);
        let start = next(n);
        let (mut idx, mut coef) = (Vec::new(), Vec::new());
        for j in 0..k {
            let p = ((start + 7 * j) % n) as u32;
            let c = s[next(s.len())];
            idx.extend([2 * p, 2 * p + 1]);
            coef.extend([c * r, c * (1.0 - r)]);
        }
        // ascending indices, as a recorded row has them
        let mut v: Vec<(u32, f64)> = idx.into_iter().zip(coef).collect();
        v.sort_by_key(|x| x.0);
        v.dedup_by_key(|x| x.0);
        let (idx, coef): (Vec<u32>, Vec<f64>) = v.into_iter().unzip();
        if ph.try_push(0.0, &idx, &coef).is_ok() {
            out.push((idx, coef));
        }
    }
    (ph, out)
}

#[test]
fn sweep_matches_score_gradient_and_rows() {
    // mixed unit and general features; rows of more than 255 units
    // and more than 512 pairs (wider pair numbers, narrower coefficients)
    let wide = [1.0, -1.0, 2.0, -32.0, 31.0];
    for (n, s) in [
        (20, &[1.0, -1.0, 2.0, -3.0][..]),
        (400, &[1.0, -1.0][..]),
        (904, &wide[..]),
    ] {
        let (ph, rows) = rows(n, 300, s);
        assert_eq!(ph.len(), rows.len());
        assert!(ph.len() > 200);
        let w: Vec<f64> = (0..2 * n).map(|i| ((i * 37) % 101) as f64 - 50.0).collect();
        let wp = ph.gather(&w);
        let y = |i: usize| (i % 3) as f64 * 10.0;
        let f = |i: usize, q: f64| ((q - y(i)) * (q - y(i)), 2.0 * (q - y(i)));
        let mut gp = ph.pairs.zeros();
        let sum = ph.sweep(&wp, 0..ph.len(), true, &f, &mut gp);
        let mut g = vec![0.0; 2 * n];
        ph.scatter(&gp, &mut g);
        let (mut sum2, mut g2) = (0.0, vec![0.0; 2 * n]);
        for (i, (idx, coef)) in rows.iter().enumerate() {
            let q: f64 = idx.iter().zip(coef).map(|(&j, c)| c * w[j as usize]).sum();
            assert!((ph.score(i, &w) - q).abs() <= 1e-9 * (1.0 + q.abs()));
            let (l, d) = f(i, ph.score(i, &w));
            sum2 += l;
            ph.add_gradient(i, d, &mut g2);
            let (mut ri, mut rc) = (Vec::new(), Vec::new());
            ph.row_into(i, &mut ri, &mut rc);
            let mut got: Vec<(u32, f64)> = ri.into_iter().zip(rc).collect();
            got.sort_by_key(|x| x.0);
            for ((a, b), (&c, &d)) in got.iter().zip(idx.iter().zip(coef)) {
                assert_eq!(*a, c);
                assert!((b - d).abs() < 1e-12);
            }
        }
        assert!((sum - sum2).abs() <= 1e-12 * sum2.abs());
        let scale = g2.iter().map(|x| x.abs()).fold(0.0, f64::max);
        for (a, b) in g.iter().zip(&g2) {
            assert!((a - b).abs() <= 1e-12 * scale, "{a} {b}");
        }
    }
}

#[test]
fn factors_are_kept_once_and_renumbered_on_append() {
    let eg_of = [Some(1), None];
    let mut a = Phased::new(&eg_of).unwrap();
    let mut b = a.empty_like();
    let (f1, f2, f3) = ([0.5, 0.5], [0.25, 0.375], [1.25, -0.25]);
    for ab in [f1, f2, f1] {
        assert_eq!(a.try_push_counts(ab, 1.0, &[(0, 2.0)]), Ok(()));
    }
    for ab in [f3, f2] {
        assert_eq!(b.try_push_counts(ab, -1.0, &[(0, 1.0)]), Ok(()));
    }
    assert!(a.append(&b));
    let w = [8.0, 16.0];
    let want = |c: f64, s: f64, [x, y]: [f64; 2]| c + s * (x * 8.0 + y * 16.0);
    let q: Vec<f64> = (0..5).map(|i| a.score(i, &w)).collect();
    let expected = [
        want(1.0, 2.0, f1),
        want(1.0, 2.0, f2),
        want(1.0, 2.0, f1),
        want(-1.0, 1.0, f3),
        want(-1.0, 1.0, f2),
    ];
    assert_eq!(q, expected);
    // three distinct factors, whatever the number of rows; a subset reads them alike
    assert_eq!(a.factors.merge(&Factors::default()), Some(Vec::new()));
    assert_eq!(a.factors.intern(f3), Some(2));
    let sub = Store::subset(&a, &[4, 0]);
    assert_eq!(
        [sub.score(0, &w), sub.score(1, &w)],
        [expected[4], expected[0]]
    );
    // A full table refuses a new factor pair, not a known one.
    let mut full = Phased::new(&eg_of).unwrap();
    for k in 0..(1 << 16) {
        let ab = [f64::from(k) / 65536.0, 1.0];
        assert_eq!(full.try_push_counts(ab, 0.0, &[(0, 1.0)]), Ok(()));
    }
    assert_eq!(
        full.try_push_counts([2.0, 1.0], 0.0, &[(0, 1.0)]),
        Err(Reason::StoreFull.into())
    );
    assert_eq!(full.try_push_counts([0.5, 1.0], 0.0, &[(0, 1.0)]), Ok(()));
    assert!(!full.append(&b), "b's new factors do not fit");
    assert_eq!(full.len(), (1 << 16) + 1);
}

#[test]
fn a_shrunk_store_numbers_known_factors_as_before() {
    let eg_of = [Some(1), None];
    let mut a = Phased::new(&eg_of).unwrap();
    for k in 0..10 {
        let ab = [f64::from(k) / 8.0, 1.0];
        assert_eq!(a.try_push_counts(ab, 0.0, &[(0, 1.0)]), Ok(()));
    }
    let before = a.heap_bytes();
    a.shrink();
    assert!(a.heap_bytes() < before, "the index is dropped");
    assert_eq!(
        a.factors.intern([0.375, 1.0]),
        Some(3),
        "rebuilt, not duplicated"
    );
    assert_eq!(a.factors.intern([9.0, 1.0]), Some(10));
}
