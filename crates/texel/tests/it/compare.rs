//! `compare` runs every method on one budget and writes the table, JSON and both plots.

use crate::common;

use std::sync::Arc;

use eval::{Model, ModelKind};
use optim::{Budget, Control, Link, Method, Objective, ObjectiveConfig};
use tapered::Target;
use texel::chess::{record_positions, Leaf};
use texel::compare::{compare, CompareConfig};

#[test]
fn compare_writes_table_json_and_plots() {
    let model = Model::new(ModelKind::Psqt);
    let start = model.default_weights();
    let link = Link::texel(1.0);
    let mut truth = start.clone();
    let knight = model.index_of("material.knight.mg").unwrap();
    truth[knight] = 340.0;
    let labelled: Vec<_> = common::random_positions(1200, 4)
        .into_iter()
        .map(|p| {
            let q: f64 = model.evaluate(&p, &truth);
            (
                p,
                Target {
                    value: link.expect(q),
                    score: None,
                    group: 0,
                },
            )
        })
        .collect();
    let free = optim::free_indices(&texel::chess::param_specs(&model), &["pst".to_string()]);
    let train_set = record_positions(&model, &labelled[..1000], &start, Leaf::Static, None);
    let valid_set = record_positions(&model, &labelled[1000..], &start, Leaf::Static, None);
    let train = Arc::new(
        Objective::new(
            Arc::new(train_set),
            ObjectiveConfig::new(link),
            start.clone(),
            Some(free),
        )
        .unwrap(),
    );
    let valid = Arc::new(train.with_set(Arc::new(valid_set)).unwrap());
    let cfg = CompareConfig {
        methods: Method::ALL.to_vec(),
        budget: Budget {
            max_passes: Some(40.0),
            ..Budget::default()
        },
        stopping: Default::default(),
        solvers: Default::default(),
        selection: Default::default(),
        progress: tapered::Progress::none(),
        title: "test".to_string(),
    };
    let cmp = compare(
        &train,
        Some(&valid),
        &start,
        &cfg,
        &Arc::new(Control::new()),
    )
    .unwrap();
    assert_eq!(cmp.rows.len(), 6);
    for r in &cmp.rows {
        // Every method kept weights no worse than the start on validation, within its budget
        // (one iteration may overshoot: particle swarm spends a pass per particle).
        assert!(
            r.valid_loss.unwrap() <= cmp.start_loss.0.unwrap(),
            "{}",
            r.method
        );
        assert!(r.passes <= 40.0 + 25.0, "{}: {} passes", r.method, r.passes);
        assert_eq!(
            r.history[0].passes, 1.0,
            "{}: the log counts this run's passes",
            r.method
        );
    }
    let md = cmp.markdown();
    assert_eq!(md.lines().count(), 2 + 1 + 6);
    let dir = std::env::temp_dir().join(format!("optim-compare-{}", std::process::id()));
    let files = cmp.write(&dir, "cmp").unwrap();
    assert_eq!(files.len(), 4);
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        assert!(!text.is_empty());
        if f.extension().is_some_and(|e| e == "svg") {
            assert!(text.starts_with("<svg") && text.contains("lbfgs"));
        }
    }
    // The JSON reads back into the same table.
    let back = texel::compare::Comparison::read(&files[1]).unwrap();
    assert_eq!(back.markdown(), md);
    std::fs::remove_dir_all(&dir).ok();
}
