//! The targets an objective compares with: held as a table of values while there are few,
//! in full otherwise, the same numbers either way.

use std::sync::Arc;

use tape::Scalar;
use tapered::{CompiledSet, Target};

use super::{Objective, Targets};
use crate::{Link, LossKind, ObjectiveConfig, Sigmoid};

/// A set of `n` rows, row `i` the weight times `(i % 7) - 3`, labelled by `label(i)`.
fn set(n: usize, label: impl Fn(usize) -> Target + Sync) -> Arc<CompiledSet> {
    let items: Vec<Vec<(u32, f64)>> = (0..n).map(|i| vec![(0, (i % 7) as f64 - 3.0)]).collect();
    Arc::new(CompiledSet::record(
        &[0.0],
        &items,
        |i, _| label(i),
        |_, f, w| Some(tape::Var::dot(w, f)),
        None,
    ))
}

/// Each row's loss with its target computed here, as `Objective::new` documents.
fn direct(set: &CompiledSet, cfg: &ObjectiveConfig, w: f64) -> Vec<f64> {
    let link = cfg.link;
    let score_link = Link {
        k: cfg.score_k.unwrap_or(link.k),
        ..link
    };
    (0..set.len())
        .map(|i| {
            let l = set.targets()[i];
            let r = link.sigmoid.label(l.value);
            let t = match l.score {
                Some(s) if cfg.lambda < 1.0 => {
                    cfg.lambda * r + (1.0 - cfg.lambda) * score_link.expect(f64::from(s))
                }
                _ => r,
            };
            link.loss_value(w * ((i % 7) as f64 - 3.0), t)
        })
        .collect()
}

fn config(lambda: f64) -> ObjectiveConfig {
    let link = Link {
        sigmoid: Sigmoid::Logistic,
        k: 0.01,
        loss: LossKind::Mse,
    };
    ObjectiveConfig {
        lambda,
        ..ObjectiveConfig::new(link)
    }
}

fn is_table(obj: &Objective) -> bool {
    matches!(obj.targets(), Targets::Table(..))
}

#[test]
fn game_results_are_a_table_and_give_the_same_loss() {
    let s = set(1000, |i| Target {
        value: [0.0, 0.5, 1.0][i % 3],
        score: None,
        group: 0,
    });
    let cfg = config(1.0);
    let obj = Objective::new(s.clone(), cfg, vec![0.0], None).unwrap();
    assert!(is_table(&obj));
    for w in [0.0, 17.0, -40.0] {
        assert_eq!(obj.position_losses(&[w]), direct(&s, &cfg, w));
    }
}

#[test]
fn many_distinct_targets_are_held_in_full_and_give_the_same_loss() {
    let s = set(1000, |i| Target {
        value: i as f64 / 999.0,
        score: None,
        group: 0,
    });
    let cfg = config(1.0);
    let obj = Objective::new(s.clone(), cfg, vec![0.0], None).unwrap();
    assert!(!is_table(&obj));
    for w in [0.0, 17.0, -40.0] {
        assert_eq!(obj.position_losses(&[w]), direct(&s, &cfg, w));
    }
}

#[test]
fn blended_targets_give_the_same_loss_and_256_values_still_fit_a_table() {
    // Scores on 300 values blended: held in full; on 256 values: a table.
    for (values, table) in [(300, false), (256, true)] {
        let s = set(2000, |i| Target {
            value: 1.0,
            score: Some(((i % values) as f32) - 128.0),
            group: 0,
        });
        let cfg = config(0.5);
        let obj = Objective::new(s.clone(), cfg, vec![0.0], None).unwrap();
        assert_eq!(is_table(&obj), table, "{values} distinct targets");
        for w in [0.0, 17.0, -40.0] {
            assert_eq!(obj.position_losses(&[w]), direct(&s, &cfg, w));
        }
    }
}
