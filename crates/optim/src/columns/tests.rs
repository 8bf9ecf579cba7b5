//! The index against brute force, and tries against whole passes.

use std::sync::Arc;

use tape::{Scalar, Var};
use tapered::{CompiledSet, HeadRow, HeadSpec, Stop, Target};

use super::*;
use crate::{Link, LossKind, ObjectiveConfig, Sigmoid};

const PARAMS: usize = 7;

/// Item `k`'s evaluation over parameters 0/1, 2/3 (pairs), 4, 5, 6: phased rows, rows with an
/// untapered weight, non-linear rows (programs).
fn eval(k: usize, w: &[Var]) -> Var {
    let r = (k % 7) as f64 / 6.0;
    // Coefficients beyond one byte's `-8..=7` units, and 0.
    let c = [-40.0, 0.0, 13.0][k % 3];
    match k % 5 {
        0 | 1 => Var::dot(
            w,
            &[
                (0, 2.0 * r),
                (1, 2.0 * (1.0 - r)),
                (2, c * r),
                (3, c * (1.0 - r)),
            ],
        ),
        2 => w[4] * 3.0 + w[2] * r + w[3] * (1.0 - r),
        3 => Var::dot(w, &[(5, c + 2.0), (6, -1.0)]),
        _ => w[0] * w[4] * 0.01 + w[6] * (k as f64 / 50.0),
    }
}

fn target(k: usize) -> Target {
    Target {
        value: [0.0, 0.5, 1.0][k % 3],
        score: None,
        group: 0,
    }
}

/// 300 positions in the phased, sparse and program stores, then 200 in the sums-scalars-and-head
/// store (`max(s_mg, 0) * w[pick] + s_eg`, the pick one of 4, 5, 6).
fn set() -> CompiledSet {
    let eg_of = [Some(1), None, Some(3), None, None, None, None];
    let items: Vec<usize> = (0..300).collect();
    let start = [50.0, 40.0, 10.0, -5.0, 1.0, 3.0, -2.0];
    let mut a = CompiledSet::record(
        &start,
        &items,
        |_, &k| target(k),
        |_, &k, w| Some(eval(k, w)),
        None,
    );
    a.compact_phased(&eg_of);
    let mut tape = tape::Tape::new();
    let head = tape.record(|rec| {
        let x = rec.inputs(&[0.0; 3]);
        rec.compile(x[0].max(Var::zero()) * x[2] * 0.1 + x[1])
    });
    let spec = HeadSpec {
        head,
        groups: 1,
        picks: 1,
        scalars: 0,
        eg_of: eg_of.to_vec(),
    };
    let heads: Vec<usize> = (0..200).collect();
    let b = CompiledSet::record_heads(
        &start,
        &heads,
        |_, &k| target(k),
        |_, &k, row: &mut HeadRow| {
            let c = (k % 5) as f64 - 2.0;
            row.sums = vec![vec![(0, 1.0), (2, c)], vec![(1, 1.0), (3, c)]];
            row.picks = vec![4 + (k % 3) as u32];
            row.scalars = Vec::new();
            true
        },
        &spec,
        |_, _, _| None,
        None,
    );
    let mut builder = tapered::SetBuilder::new(PARAMS);
    builder.push(a);
    builder.push(b);
    builder.finish()
}

fn objective(set: CompiledSet) -> Objective {
    let link = Link {
        sigmoid: Sigmoid::Logistic,
        k: 0.01,
        loss: LossKind::Mse,
    };
    Objective::new(
        Arc::new(set),
        ObjectiveConfig::new(link),
        vec![0.0; PARAMS],
        None,
    )
    .unwrap()
}

#[test]
fn columns_hold_the_positions_that_read_each_weight() {
    let set = set();
    assert!(set.layout().stores.len() >= 4, "{:?}", set.layout());
    let weights = [0, 1, 2, 3, 4, 6];
    let twins = [Some(1), None, Some(3), None, None, None, None];
    // One block, and blocks of 7 positions (parts across more blocks than a wave builds).
    let one = Columns::build(&set, &weights, &twins, Stop::Never).unwrap();
    let cols = Columns::build_in_blocks(&set, &weights, &twins, Stop::Never, 7, true).unwrap();
    let cols_n = one.col_parts.len() - 1;
    assert!(
        (cols_n..=2 * cols_n).contains(&one.parts.len()),
        "a part a column and kind"
    );
    assert!(cols.parts.len() > WAVE * 4);
    assert!(!cols.indexes(5) && cols.entries(5) == 0);
    assert!(cols.everywhere() > 0, "the programs are in every column");
    for &j in &weights {
        let mut got = Vec::new();
        for item in cols.items(j) {
            item.each(|i, _| got.push(i));
        }
        got.sort_unstable();
        // The weight's readers, with its twin's (one column), and the programs.
        let mates: Vec<u32> = match j {
            0 | 1 => vec![0, 1],
            2 | 3 => vec![2, 3],
            _ => vec![j as u32],
        };
        let want: Vec<usize> = (0..set.len())
            .filter(|&i| {
                let mut r = Vec::new();
                !set.reads(i, &mut r) || r.iter().any(|p| mates.contains(p))
            })
            .collect();
        assert_eq!(got, want, "weight {j}");
        assert_eq!(cols.entries(j), want.len());
        let mut whole = Vec::new();
        for item in one.items(j) {
            item.each(|i, _| whole.push(i));
        }
        whole.sort_unstable();
        assert_eq!(whole, want, "weight {j}, one block");
    }
    // Twins not both indexed keep their own column.
    let one = Columns::build(&set, &[1], &twins, Stop::Never).unwrap();
    assert!(one.indexes(1) && !one.indexes(0));
    let stop = std::sync::atomic::AtomicBool::new(true);
    assert!(Columns::build(&set, &weights, &twins, Stop::from(&stop)).is_none());
}

#[test]
fn a_try_changes_the_loss_as_two_passes_do_and_keeping_it_is_scoring_afresh() {
    let obj = objective(set());
    let n = obj.set().len() as f64;
    let weights: Vec<usize> = (0..PARAMS).collect();
    let twins = [Some(1), None, Some(3), None, None, None, None];
    // A pairing other than the rows' (0 with 2): those columns are scored afresh.
    let odd = [Some(2), None, None, None, None, None, None];
    // Blocks of 13 and one block; coefficients of one byte and escaped ones (-40, 13).
    let cases = [
        (&twins, true, 13),
        (&twins, true, 4096),
        (&twins, false, 13),
        (&odd, true, 13),
    ];
    for (twins, linear, block) in cases {
        let cols = Columns::build_in_blocks(obj.set(), &weights, twins, Stop::Never, block, linear)
            .unwrap();
        let linear_parts = cols.parts.iter().filter(|p| p.unit > 0);
        let (mut short, mut long) = (0, 0);
        for p in linear_parts {
            let n = p.bytes.iter().filter(|&&b| b == ESCAPE).count();
            (short, long) = (short + p.count as usize - n, long + n);
        }
        assert_eq!((short > 0, long > 0), (linear, linear), "blocks of {block}");
        // The phased rows' entries move without a score where the columns are theirs.
        let moved = cols.linear_entries(0);
        assert_eq!(
            moved > 0,
            linear && twins[0] == Some(1),
            "{twins:?} {linear}"
        );
        let mut w = vec![50.0, 40.0, 10.0, -5.0, 1.0, 3.0, -2.0];
        let mut kept = Kept::new(&obj, &w);
        // Steps on every weight, some kept: each try's change is the difference of two
        // passes.
        for (round, j) in [0, 3, 4, 6, 1, 5, 2, 0, 6].into_iter().enumerate() {
            let before = obj.data_loss(&w);
            let v = w[j] + if round % 2 == 0 { 7.0 } else { -3.0 };
            let tried = kept.try_weight(&cols, j, v);
            // In parallel: the same sum, in the same order.
            let mut all = cols.clone();
            all.parallel = 0;
            let par = kept.try_weight(&all, j, v);
            assert_eq!(par.change.to_bits(), tried.change.to_bits());
            let old = std::mem::replace(&mut w[j], v);
            let after = obj.data_loss(&w);
            let want = (after - before) * n;
            assert!(
                (tried.change - want).abs() <= 1e-9 * want.abs().max(1e-12),
                "weight {j}: {} against {want}",
                tried.change
            );
            assert_eq!(tried.evaluated, cols.entries(j));
            if round % 3 == 2 {
                w[j] = old;
                continue;
            }
            kept.keep(&cols, tried);
            assert_eq!(kept.weights(), &w[..]);
            // Scored afresh: the same bits; moved: up to the rounding of the move.
            let mut fresh = vec![0.0; obj.set().len()];
            obj.set().scores(&w, &mut fresh);
            for (i, (a, b)) in kept.scores().iter().zip(&fresh).enumerate() {
                let linear_row = obj.set().tapered_terms(i, &mut Vec::new()).is_some();
                if linear && linear_row {
                    assert!((a - b).abs() <= 1e-12 * b.abs().max(1.0), "{i}: {a} {b}");
                } else {
                    assert_eq!(a.to_bits(), b.to_bits(), "position {i} after weight {j}");
                }
            }
            assert!((kept.loss_sum() / n - after).abs() < 1e-12);
        }
    }
}
