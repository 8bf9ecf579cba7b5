//! `prepare`: the model comes from the starting weights file when none is asked for; `psqt`
//! weights start a `full` run carried over by name; any other clash is an error naming both.

use crate::common;

use eval::{Model, ModelKind};
use tapered::Stop;
use texel::setup::{default_l2, prepare, BuiltIn, ObjectiveOptions, SetupOptions};

fn options(model: Option<ModelKind>, weights: &std::path::Path) -> SetupOptions {
    SetupOptions {
        source: BuiltIn {
            data: vec![common::fixture("quiet-labeled-1k.epd")],
            model,
            ..BuiltIn::default()
        },
        weights: Some(weights.to_path_buf()),
        objective: ObjectiveOptions {
            k: Some(1.0),
            ..ObjectiveOptions::default()
        },
        ..SetupOptions::default()
    }
}

/// A weights file of `kind`'s default weights (with `edit` applied) in `dir`; its path.
fn weights_file(
    dir: &tempfile::TempDir,
    kind: ModelKind,
    edit: impl FnOnce(&Model, &mut Vec<f64>),
) -> std::path::PathBuf {
    let path = dir.path().join(format!("{}.json", kind.name()));
    let model = Model::new(kind);
    let mut w = model.default_weights();
    edit(&model, &mut w);
    eval::save_weights(&path, &model, &w).unwrap();
    path
}

#[test]
fn the_model_is_read_from_the_weights_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = weights_file(&dir, ModelKind::Full, |_, _| {});

    let setup = prepare(&options(None, &path), Stop::Never).expect("the file's model");
    assert_eq!(setup.model.kind(), ModelKind::Full);
    let same =
        prepare(&options(Some(ModelKind::Full), &path), Stop::Never).expect("the same model");
    assert_eq!(same.model.kind(), ModelKind::Full);

    let err = prepare(&options(Some(ModelKind::Psqt), &path), Stop::Never)
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
    let path = weights_file(&dir, ModelKind::Psqt, |m, w| {
        w[m.index_of("pst.queen.eg.d5").unwrap()] = 42.0
    });
    let (psqt, w) = eval::load_weights(&path).unwrap();
    assert_eq!(w[psqt.index_of("pst.queen.eg.d5").unwrap()], 42.0);

    let setup = prepare(&options(Some(ModelKind::Full), &path), Stop::Never).expect("carried over");
    assert_eq!(setup.model.kind(), ModelKind::Full);
    assert_eq!(setup.start, setup.model.carry_over(&psqt, &w).unwrap());
}

/// Without a strength, the pull is the model's default: the model of the weights file, or the
/// one asked for (a `psqt` file starting a `full` run gets `full`'s); a strength given wins.
#[test]
fn the_default_pull_is_the_models() {
    let dir = tempfile::tempdir().unwrap();
    let path = weights_file(&dir, ModelKind::Psqt, |_, _| {});
    let l2 = |model, l2| {
        let opts = {
            let mut o = options(model, &path);
            o.objective.l2 = l2;
            o
        };
        prepare(&opts, Stop::Never)
            .expect("set up")
            .train
            .config()
            .l2
    };
    assert_eq!(l2(None, None), default_l2(ModelKind::Psqt));
    assert_eq!(l2(Some(ModelKind::Full), None), default_l2(ModelKind::Full));
    assert_ne!(default_l2(ModelKind::Psqt), default_l2(ModelKind::Full));
    assert_eq!(l2(Some(ModelKind::Full), Some(3e-9)), 3e-9);
}
