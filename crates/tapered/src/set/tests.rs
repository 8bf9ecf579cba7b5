//! The segment list: passes, rows, subsets and the layout over a set that holds every store.

use tape::{Scalar, Var};

use super::*;
use crate::{Fallback, Reason, SplitSpec, StoreKind};

fn label(i: usize) -> Target {
    Target {
        value: 0.5,
        score: Some(i as f32),
        group: 0,
    }
}

/// Parameters 0/1 and 2/3: (middlegame, endgame) pairs; 4: unpaired. Item `k`'s evaluation:
/// tapered phased rows, an unpaired row, a non-integer row, and non-linear ones.
fn eval(k: usize, w: &[Var]) -> Var {
    let r = (k % 5) as f64 / 4.0;
    match k % 4 {
        0 => Var::dot(
            w,
            &[(0, 2.0 * r), (1, 2.0 * (1.0 - r)), (2, -r), (3, r - 1.0)],
        ),
        1 => w[4] * 3.0,
        // pair counts 1/2 and 3/4: neither a taper nor a multiple of the smaller
        2 => Var::dot(
            w,
            &[
                (0, 0.5 * r),
                (1, 0.5 * (1.0 - r)),
                (2, 0.75 * r),
                (3, 0.75 * (1.0 - r)),
            ],
        ),
        _ => w[0] * w[4] + w[2] * (k as f64),
    }
}

/// Items `0..` recorded from `start` with `eval`, each labelled by [`label`].
fn record_items(
    start: &[f64],
    items: &[usize],
    eval: impl Fn(usize, &[Var]) -> Var + Sync,
) -> CompiledSet {
    CompiledSet::record(
        start,
        items,
        |i, _| label(i),
        |_, &k, w| Some(eval(k, w)),
        None,
    )
}

fn mixed() -> CompiledSet {
    let items: Vec<usize> = (0..40).collect();
    let mut set = record_items(&[1.0; 5], &items, eval);
    set.compact_phased(&[Some(1), None, Some(3), None, None]);
    set
}

#[test]
fn layout_counts_every_store_and_reason() {
    let set = mixed();
    let l = set.layout();
    let kinds: Vec<(StoreKind, usize)> = l.stores.iter().map(|s| (s.store, s.positions)).collect();
    assert_eq!(
        kinds,
        [
            (StoreKind::Phased, 10),
            (StoreKind::Sparse, 20),
            (StoreKind::Program, 10)
        ]
    );
    let reasons: Vec<(StoreKind, Reason, usize)> = l
        .fallbacks
        .iter()
        .map(|f| (f.store, f.reason, f.positions))
        .collect();
    assert_eq!(
        reasons,
        [
            (StoreKind::Sparse, Reason::NoTwinPair, 10),
            (StoreKind::Sparse, Reason::NonIntegerCoefficient, 10),
            (StoreKind::Program, Reason::NonLinearWithoutSplit, 10),
        ]
    );
    assert_eq!(l.warnings().len(), 3);
    assert_eq!(
        set.heap_bytes(),
        l.label_bytes + l.stores.iter().map(|s| s.bytes).sum::<usize>()
    );
    assert_eq!(
        (set.phased_len(), set.linear_len(), set.headed_len()),
        (10, 30, 0)
    );
}

#[test]
fn passes_rows_and_subsets_agree_with_fresh_recordings() {
    let set = mixed();
    let w = [3.0, -2.0, 5.0, 7.0, 0.5];
    let mut scratch = Scratch::default();
    let mut tape = tape::Tape::new();
    let jac = set.jacobian(&w, Stop::Never).unwrap();
    let (mut want_sum, mut want_grad) = (0.0, [0.0; 5]);
    for i in 0..set.len() {
        let k = set.targets()[i].score.unwrap() as usize;
        tape.record(|rec| {
            let x = rec.inputs(&w);
            let q = eval(k, &x);
            let program = rec.compile(q);
            let want = program.forward(&w, &mut scratch);
            let mut g = [0.0; 5];
            program.backward(1.0, &mut scratch, &mut g);
            assert!((set.score(i, &w, &mut scratch) - want).abs() < 1e-12, "{k}");
            let mut got = [0.0; 5];
            set.add_gradient(i, 1.0, &mut scratch, &mut got);
            let (idx, coef) = set.row(i, &jac);
            let mut from_row = [0.0; 5];
            for (&j, &c) in idx.iter().zip(coef) {
                from_row[j as usize] += c;
            }
            for j in 0..5 {
                assert!((got[j] - g[j]).abs() < 1e-12 && (from_row[j] - g[j]).abs() < 1e-12);
            }
            want_sum += (k as f64) * want;
            for j in 0..5 {
                want_grad[j] += (k as f64) * g[j];
            }
        })
    }
    let labels = set.targets();
    let f = |i: usize, q: f64| {
        let k = labels[i].score.unwrap() as f64;
        (k * q, k)
    };
    let order: Vec<usize> = (0..set.len()).rev().collect();
    for order in [None, Some(&order[..])] {
        let mut grad = [0.0; 5];
        let sum = set
            .pass(&w, 0..set.len(), order, Some(&mut grad), f, Stop::Never)
            .unwrap();
        assert!((sum - want_sum).abs() < 1e-9 * want_sum.abs());
        for j in 0..5 {
            assert!((grad[j] - want_grad[j]).abs() < 1e-9 * want_grad[j].abs().max(1.0));
        }
    }
    // Ranges that start and end inside segments.
    let (mut parts, mut pgrad) = (0.0, [0.0; 5]);
    for r in [0..7, 7..25, 25..33, 33..40] {
        parts += set
            .pass(&w, r, None, Some(&mut pgrad), f, Stop::Never)
            .unwrap();
    }
    assert!((parts - want_sum).abs() < 1e-9 * want_sum.abs());
    // A subset keeps positions, labels and reasons together, the stores in section order.
    let keep: Vec<usize> = (0..set.len()).rev().step_by(3).collect();
    let sub = set.subset(&keep);
    assert_eq!(sub.len(), keep.len());
    for m in 0..sub.len() {
        let i = keep
            .iter()
            .position(|&i| set.targets()[i] == sub.targets()[m])
            .unwrap();
        let a = sub.score(m, &w, &mut scratch);
        assert_eq!(a, set.score(keep[i], &w, &mut scratch));
    }
    let n: usize = sub.layout().fallbacks.iter().map(|f| f.positions).sum();
    assert_eq!(n, sub.len() - sub.phased_len());
}

#[test]
fn an_unusable_split_falls_back_whole() {
    // The twins are one sum twice: no position can enter the sums-and-head store.
    let spec = SplitSpec {
        sums: 2,
        twins: (0, 0),
        head_params: vec![],
        eg_of: vec![Some(1), None],
        head_gradient: None,
    };
    let items = [1.0, 2.0, 3.0];
    let set = CompiledSet::record_split(
        &[1.0, 2.0],
        &items,
        |i, _| label(i),
        |_, &c, out| {
            *out = vec![vec![(0, c)], vec![(1, c)]];
            true
        },
        &spec,
        |s: &[Var], _: &[Var]| s[0] * s[1],
        None,
    );
    let f = set.layout().fallbacks;
    assert_eq!((f[0].reason, f[0].positions), (Reason::UnusableSplit, 3));
    let mut scratch = Scratch::default();
    assert_eq!(
        set.score(2, &[2.0, 5.0], &mut scratch),
        3.0 * 2.0 * 3.0 * 5.0
    );
}

#[test]
fn compacts_rows_with_a_constant_and_an_endgame_scale() {
    // Recorded rows c + sum s_k (a w[m_k] + b w[e_k]) with a + b != 1 (a scale) and a > 1
    // (a phase above its maximum); counts with a common factor (2 and 4) decompose too.
    let items: Vec<usize> = (0..24).collect();
    let factors = |k: usize| ((k % 6) as f64 / 4.0, (4.0 - (k % 6) as f64) / 4.0 * 0.375);
    let eval = |k: usize, w: &[Var]| {
        let (a, b) = factors(k);
        let s = if k.is_multiple_of(2) { 1.0 } else { 2.0 };
        let terms = [(0, s * a), (1, s * b), (2, -2.0 * s * a), (3, -2.0 * s * b)];
        Var::dot(w, &terms) + (k as f64 - 10.5)
    };
    let start = [1.0; 5];
    let mut set = record_items(&start, &items, eval);
    let sparse = set.clone();
    set.compact_phased(&[Some(1), None, Some(3), None, None]);
    assert_eq!(set.phased_len(), 24, "{:?}", set.layout());
    assert_eq!(set.layout().fallbacks, []);
    let w = [8.0, -16.0, 4.0, 32.0, 1.0];
    let (mut q, mut want) = (vec![0.0; 24], vec![0.0; 24]);
    set.scores(&w, &mut q);
    sparse.scores(&w, &mut want);
    assert_eq!(q, want);
}

/// `n` pairs (parameter `2p` the middlegame, `2p + 1` the endgame weight of pair `p`) and 400
/// positions, each a tapered row over a dozen pairs spread over all of them with coefficients
/// from `coefs`, recorded as sparse rows and then compacted: the phased store's loss and
/// gradient against the sparse rows', and how many positions it took.
fn wide_pairs(n: usize, coefs: &[f64]) -> (usize, Vec<Fallback>) {
    let items: Vec<usize> = (0..400).collect();
    let eval = |k: usize, w: &[Var]| {
        let r = (k % 25) as f64 / 24.0;
        let terms: Vec<(u32, f64)> = (0..12)
            .flat_map(|j| {
                let p = (k * 131 + j * (n / 12 + 1)) % n;
                let c = coefs[(k + j) % coefs.len()];
                [(2 * p as u32, c * r), (2 * p as u32 + 1, c * (1.0 - r))]
            })
            .collect();
        Var::dot(w, &terms) + 0.25
    };
    let start = vec![1.0; 2 * n];
    let mut set = record_items(&start, &items, eval);
    let sparse = set.clone();
    let eg_of: Vec<Option<usize>> = (0..2 * n).map(|i| (i % 2 == 0).then_some(i + 1)).collect();
    set.compact_phased(&eg_of);
    let w: Vec<f64> = (0..2 * n).map(|i| ((i * 37) % 101) as f64 - 50.0).collect();
    // Squared error against the position's own label (compaction reorders positions).
    let loss = |set: &CompiledSet, g: &mut [f64]| {
        let y = |i: usize| f64::from(set.targets()[i].score.unwrap());
        let f = |i: usize, q: f64| ((q - y(i)) * (q - y(i)), 2.0 * (q - y(i)));
        let all = 0..set.len();
        set.pass(&w, all, None, Some(g), f, Stop::Never).unwrap()
    };
    let (mut g, mut want_g) = (vec![0.0; 2 * n], vec![0.0; 2 * n]);
    let (sum, want) = (loss(&set, &mut g), loss(&sparse, &mut want_g));
    assert!(
        (sum - want).abs() <= 1e-12 * want.abs(),
        "{n} pairs: {sum} != {want}"
    );
    let scale = want_g.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    for (j, (a, b)) in g.iter().zip(&want_g).enumerate() {
        assert!(
            (a - b).abs() <= 1e-12 * scale,
            "{n} pairs, weight {j}: {a} != {b}"
        );
    }
    (set.phased_len(), set.layout().fallbacks)
}

#[test]
fn more_than_512_pairs_use_the_phased_store() {
    // Ethereal's 904 pairs: coefficients in -32..=31 (10 bits of pair number).
    let coefs = [1.0, -1.0, 2.0, -3.0, 31.0, -32.0, 7.0];
    assert_eq!(wide_pairs(904, &coefs), (400, vec![]));
    // 2,000 pairs: 11 bits, coefficients in -16..=15; a row with a larger one is a sparse
    // row, counted with its reason, and the pass is the same.
    let mut rare = [1.0; 25];
    rare[3] = -1.0;
    rare[20] = 31.0;
    let (phased, fallbacks) = wide_pairs(2000, &rare);
    assert!(phased > 0 && phased < 400, "{phased}");
    assert_eq!(fallbacks.len(), 1);
    let fb = &fallbacks[0];
    assert_eq!(
        (fb.reason, fb.positions),
        (Reason::CoefficientOutOfRange, 400 - phased)
    );
    assert_eq!(
        wide_pairs(2000, &[1.0, -1.0, 2.0, -16.0, 15.0]),
        (400, vec![])
    );
    // The most a store addresses.
    assert_eq!(
        wide_pairs(crate::store::MAX_PAIRS, &[1.0, -1.0, -2.0]),
        (400, vec![])
    );
}

/// A parameter a position does not read leaves its score as it is, bit for bit, whatever its
/// value; every parameter of a linear row's terms is read; a head store's row reads its
/// groups' pairs even where the head's branch makes them idle at these weights; a program
/// cannot tell.
#[test]
fn reads_name_what_changes_a_position() {
    // The mixed set (phased, sparse, programs), then a head store over pairs 0/1, 2/3 and
    // picks 4, 5: `max(s_mg, 0) * w[pick] + s_eg`.
    let mut tape = tape::Tape::new();
    let head = tape.record(|rec| {
        let x = rec.inputs(&[0.0; 3]);
        rec.compile(x[0].max(Var::zero()) * x[2] + x[1])
    });
    let spec = HeadSpec {
        head,
        groups: 1,
        picks: 1,
        scalars: 0,
        eg_of: vec![Some(1), None, Some(3), None, None, None],
    };
    let rows: Vec<(Vec<(u32, f64)>, u32)> =
        vec![(vec![(0, 2.0)], 4), (vec![(2, -1.0), (0, 1.0)], 5)];
    let heads = CompiledSet::record_heads(
        &[0.0; 6],
        &rows,
        |i, _| label(i),
        |_, (terms, pick), row: &mut crate::HeadRow| {
            let eg: Vec<(u32, f64)> = terms.iter().map(|&(m, c)| (m + 1, c)).collect();
            row.sums = vec![terms.clone(), eg];
            row.picks = vec![*pick];
            row.scalars = Vec::new();
            true
        },
        &spec,
        |_, _, _| None,
        None,
    );
    assert_eq!(heads.layout().positions(StoreKind::SumsScalarsAndHead), 2);
    let mixed = mixed();
    for (set, n) in [(&mixed, 5), (&heads, 6)] {
        // Head row 1's middlegame sum is -30 + 10 < 0 here: its pairs are idle, still read.
        let w: Vec<f64> = [10.0, -4.0, 30.0, 7.0, 0.5, 2.0][..n].to_vec();
        let mut scratch = Scratch::default();
        for i in 0..set.len() {
            let mut read = Vec::new();
            let known = set.reads(i, &mut read);
            let program = set.layout().stores.last().unwrap().store == StoreKind::Program
                && i >= set.linear_len();
            assert_eq!(known, !program, "position {i}");
            if !known {
                assert!(read.is_empty());
                continue;
            }
            if let Some((idx, _)) = set.linear_row(i) {
                assert!(idx.iter().all(|j| read.contains(j)), "position {i}");
            }
            let q = set.score(i, &w, &mut scratch);
            for j in (0..n as u32).filter(|j| !read.contains(j)) {
                for v in [-1e6, 0.0, 3.5] {
                    let mut w2 = w.clone();
                    w2[j as usize] = v;
                    let q2 = set.score(i, &w2, &mut scratch);
                    assert_eq!(q2.to_bits(), q.to_bits(), "position {i}, parameter {j}");
                }
            }
        }
    }
    let mut read = Vec::new();
    assert!(heads.reads(1, &mut read));
    read.sort_unstable();
    assert_eq!(read, vec![0, 1, 2, 3, 5]);
}
