//! `tune eval`'s judgement: its losses are the objective's data loss, its calibration bins and
//! groups hold every position once.

use crate::common;

use std::sync::Arc;

use data::Sample;
use eval::{Model, ModelKind};
use optim::{fit_k, Link, LossKind, Objective, ObjectiveConfig, Sigmoid};
use texel::chess::{record_samples, Leaf};
use texel::judge::{judge, score_samples, JudgeOptions};

fn samples() -> Vec<Sample> {
    common::quiet_1k()
        .iter()
        .map(|(p, l)| Sample::from_position(p, l.value, l.score, l.group))
        .collect()
}

/// Weights away from the defaults, so that every term matters (the phase and king-safety
/// head weights of `full` stay inside their bounds).
fn weights(model: &Model) -> Vec<f64> {
    model
        .params()
        .iter()
        .enumerate()
        .map(|(i, p)| match p.bounds {
            Some(_) => p.init,
            None => p.init * 0.9 + ((i * 37) % 23) as f64 - 11.0,
        })
        .collect()
}

/// The objective's mean data loss of `loss` at `k` on the samples.
fn objective_loss(model: &Model, w: &[f64], s: &[Sample], k: f64, loss: LossKind) -> f64 {
    let set = Arc::new(record_samples(model, s, w, Leaf::Static, None));
    let link = Link {
        sigmoid: Sigmoid::Logistic,
        k,
        loss,
    };
    Objective::new(set, ObjectiveConfig::new(link), w.to_vec(), None)
        .unwrap()
        .data_loss(w)
}

#[test]
fn losses_match_the_objectives_data_loss() {
    let s = samples();
    for kind in ModelKind::ALL {
        let model = Model::new(kind);
        let w = weights(&model);
        let opts = JudgeOptions {
            k: Some(0.8),
            ..JudgeOptions::default()
        };
        let j = judge(&model, &w, &s, &opts).unwrap();
        assert_eq!(j.positions, s.len(), "{kind}");
        assert_eq!(j.skipped, 0);
        let given = j.given.expect("the given K's losses");
        for (losses, k) in [(j.fitted, j.fitted.k), (given, 0.8)] {
            assert_eq!(losses.k, k);
            let mse = objective_loss(&model, &w, &s, k, LossKind::Mse);
            let xent = objective_loss(&model, &w, &s, k, LossKind::Xent);
            assert!(
                (losses.mse - mse).abs() < 1e-9,
                "{kind} K {k}: {losses:?} {mse}"
            );
            assert!(
                (losses.xent - xent).abs() < 1e-9,
                "{kind} K {k}: {losses:?} {xent}"
            );
        }
        // The fitted K is optim's fit_k on the recorded set.
        let set = record_samples(&model, &s, &w, Leaf::Static, None);
        let link = Link::texel(1.0);
        let (k, _) = fit_k(&set, &w, link);
        assert!(
            (j.fitted.k - k).abs() < 1e-6 * k,
            "{kind}: {} {k}",
            j.fitted.k
        );
        // And the fitted K is the best one: the given K does worse.
        assert!(j.fitted.mse <= given.mse);
    }
}

#[test]
fn every_position_is_in_one_bin_and_one_group() {
    let s = samples();
    let model = Model::new(ModelKind::Psqt);
    let w = weights(&model);
    let (scored, _) = score_samples(&model, &w, &s);
    // A width that does not divide the limit: the last inner bin is narrower.
    let opts = JudgeOptions {
        k: None,
        bin_width: 37.0,
        bin_limit: 300.0,
    };
    let j = judge(&model, &w, &s, &opts).unwrap();
    let bins = &j.calibration;
    assert_eq!(bins.iter().map(|b| b.positions).sum::<usize>(), s.len());
    assert_eq!(bins.first().unwrap().lo, None);
    assert_eq!(bins.last().unwrap().hi, None);
    for pair in bins.windows(2) {
        assert_eq!(pair[0].hi, pair[1].lo, "contiguous bins");
    }
    for b in bins {
        let lo = b.lo.unwrap_or(f64::NEG_INFINITY);
        let hi = b.hi.unwrap_or(f64::INFINITY);
        assert!(lo < hi);
        let inside: Vec<_> = scored.iter().filter(|p| p.q >= lo && p.q < hi).collect();
        assert_eq!(inside.len(), b.positions, "bin {lo}..{hi}");
        if b.positions > 0 {
            assert!(b.mean_eval >= lo && b.mean_eval < hi);
            let observed = inside.iter().map(|p| p.result).sum::<f64>() / inside.len() as f64;
            assert!((b.observed - observed).abs() < 1e-12);
            assert!(b.predicted > 0.0 && b.predicted < 1.0);
        }
    }
    for groups in [&j.by_phase, &j.by_imbalance] {
        assert_eq!(groups.iter().map(|g| g.positions).sum::<usize>(), s.len());
    }
    // The groups' losses average to the whole's.
    let mse: f64 = j
        .by_phase
        .iter()
        .filter(|g| g.positions > 0)
        .map(|g| g.mse * g.positions as f64)
        .sum::<f64>()
        / s.len() as f64;
    assert!((mse - j.fitted.mse).abs() < 1e-12);
    let svg = j.calibration_svg().unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("circle"));
}

#[test]
fn bad_options_are_errors() {
    let s = samples();
    let model = Model::new(ModelKind::Psqt);
    let w = model.default_weights();
    for opts in [
        JudgeOptions {
            k: Some(-1.0),
            ..JudgeOptions::default()
        },
        JudgeOptions {
            bin_width: 0.0,
            ..JudgeOptions::default()
        },
    ] {
        assert!(judge(&model, &w, &s, &opts).is_err(), "{opts:?}");
    }
    assert!(judge(&model, &w, &[], &JudgeOptions::default()).is_err());
}
