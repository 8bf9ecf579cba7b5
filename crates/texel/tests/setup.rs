//! `prepare`: the model comes from the starting weights file when none is asked for; `psqt`
//! weights start a `full` run carried over by name; any other clash is an error naming both.

mod common;

use eval::{Model, ModelKind};
use texel::setup::{default_l2, prepare, SetupOptions};

fn options(model: Option<ModelKind>, weights: &std::path::Path) -> SetupOptions {
    SetupOptions {
        data: vec![common::shared_data().join("quiet-labeled-1k.epd")],
        model,
        weights: Some(weights.to_path_buf()),
        k: Some(1.0),
        ..SetupOptions::default()
    }
}

#[test]
fn the_model_is_read_from_the_weights_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("full.json");
    let full = Model::new(ModelKind::Full);
    eval::save_weights(&path, &full, &full.default_weights()).unwrap();

    let setup = prepare(&options(None, &path)).expect("the file's model");
    assert_eq!(setup.model.kind(), ModelKind::Full);
    let same = prepare(&options(Some(ModelKind::Full), &path)).expect("the same model");
    assert_eq!(same.model.kind(), ModelKind::Full);

    let err = prepare(&options(Some(ModelKind::Psqt), &path))
        .expect_err("a clash")
        .to_string();
    assert!(
        err.contains("full.json") && err.contains("full") && err.contains("psqt"),
        "{err}"
    );
}

#[test]
fn psqt_weights_start_a_full_run() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("psqt.json");
    let psqt = Model::new(ModelKind::Psqt);
    let mut w = psqt.default_weights();
    w[psqt.index_of("pst.queen.eg.d5").unwrap()] = 42.0;
    eval::save_weights(&path, &psqt, &w).unwrap();

    let setup = prepare(&options(Some(ModelKind::Full), &path)).expect("carried over");
    assert_eq!(setup.model.kind(), ModelKind::Full);
    assert_eq!(setup.start, setup.model.carry_over(&psqt, &w).unwrap());
}

/// Without a strength, the pull is the model's default: the model of the weights file, or the
/// one asked for (a `psqt` file starting a `full` run gets `full`'s); a strength given wins.
#[test]
fn the_default_pull_is_the_models() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("psqt.json");
    let psqt = Model::new(ModelKind::Psqt);
    eval::save_weights(&path, &psqt, &psqt.default_weights()).unwrap();
    let l2 = |model, l2| {
        let opts = SetupOptions {
            l2,
            ..options(model, &path)
        };
        prepare(&opts).expect("set up").train.config().l2
    };
    assert_eq!(l2(None, None), default_l2(ModelKind::Psqt));
    assert_eq!(l2(Some(ModelKind::Full), None), default_l2(ModelKind::Full));
    assert_ne!(default_l2(ModelKind::Psqt), default_l2(ModelKind::Full));
    assert_eq!(l2(Some(ModelKind::Full), Some(3e-9)), 3e-9);
}
