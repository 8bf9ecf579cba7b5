//! The streamed load (`setup::prepare`: two passes, batches split and recorded) gives exactly
//! the sets of loading every sample, splitting and recording them at once: the same positions,
//! labels and scores to the bit, over several files (a cache and an EPD file, game ids shifted
//! per file), with `--limit`, across more than one batch.

use crate::common;

use std::path::PathBuf;

use eval::{Model, ModelKind};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tapered::CompiledSet;
use tapered::Stop;
use texel::chess::{record_samples, Leaf};
use texel::setup::{load_samples, prepare, BuiltIn, ObjectiveOptions, SetupOptions, SplitOptions};

/// The sets the old way: everything loaded, split, truncated, recorded.
fn at_once(opts: &SetupOptions, model: &Model) -> (CompiledSet, CompiledSet) {
    let (samples, _) = load_samples(&opts.source.data, false, &opts.source.extract).unwrap();
    let (mut t, mut v) = data::split_by_game(samples, opts.split.valid_fraction, opts.split.seed);
    if let Some(limit) = opts.split.limit {
        let f = limit as f64 / (t.len() + v.len()) as f64;
        t.truncate((t.len() as f64 * f).round() as usize);
        v.truncate((v.len() as f64 * f).round() as usize);
    }
    let w = model.default_weights();
    (
        record_samples(model, &t, &w, Leaf::Static, None),
        record_samples(model, &v, &w, Leaf::Static, None),
    )
}

fn assert_same(a: &CompiledSet, b: &CompiledSet, w: &[f64]) {
    assert_eq!(a.len(), b.len());
    assert_eq!(a.targets(), b.targets());
    assert_eq!(a.layout(), b.layout());
    let (mut qa, mut qb) = (vec![0.0; a.len()], vec![0.0; b.len()]);
    a.scores(w, &mut qa);
    b.scores(w, &mut qb);
    let bits = |q: &[f64]| q.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert!(bits(&qa) == bits(&qb), "scores differ");
}

fn files(dir: &std::path::Path, n_cache: usize, n_epd: usize) -> Vec<PathBuf> {
    let (cache, epd) = (dir.join("a.gtc.zst"), dir.join("b.epd"));
    data::write_cache(&cache, &common::random_games(n_cache, 80, 1)).unwrap();
    data::write_epd(&epd, &common::random_games(n_epd, 80, 2)).unwrap();
    vec![cache, epd]
}

#[test]
fn streaming_gives_the_sets_of_loading_at_once() {
    let dir = tempfile::tempdir().unwrap();
    // psqt over more than two batches of the stream (65,536 samples); full on fewer positions
    // (its recording is slower in a debug build).
    for (kind, sizes, limit) in [
        (ModelKind::Psqt, (150_000, 3_000), Some(140_000)),
        (ModelKind::Full, (6_000, 1_000), Some(6_500)),
        (ModelKind::Full, (6_000, 1_000), None),
    ] {
        let opts = SetupOptions {
            source: BuiltIn {
                data: files(dir.path(), sizes.0, sizes.1),
                model: Some(kind),
                ..BuiltIn::default()
            },
            split: SplitOptions {
                valid_fraction: 0.2,
                limit,
                ..SplitOptions::default()
            },
            objective: ObjectiveOptions {
                k: Some(1.0),
                ..ObjectiveOptions::default()
            },
            ..SetupOptions::default()
        };
        let setup = prepare(&opts, Stop::Never).unwrap();
        let (train, valid) = at_once(&opts, &setup.model);
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let w: Vec<f64> = setup
            .start
            .iter()
            .map(|x| x + rng.gen_range(-20.0..20.0))
            .collect();
        assert!(valid.len() > 100, "{kind}: a validation split to compare");
        assert_same(setup.train.set(), &train, &w);
        assert_same(setup.valid.as_ref().unwrap().set(), &valid, &w);
    }
}

#[test]
fn first_takes_the_first_positions_read() {
    let dir = tempfile::tempdir().unwrap();
    let data = files(dir.path(), 3_000, 500);
    let opts = SetupOptions {
        source: BuiltIn {
            data: data.clone(),
            ..BuiltIn::default()
        },
        split: SplitOptions {
            first: Some(3_200),
            valid_fraction: 0.0,
            ..SplitOptions::default()
        },
        objective: ObjectiveOptions {
            k: Some(1.0),
            ..ObjectiveOptions::default()
        },
        ..SetupOptions::default()
    };
    let setup = prepare(&opts, Stop::Never).unwrap();
    assert_eq!(setup.train.set().len(), 3_200);
    let (samples, _) = load_samples(&data, false, &opts.source.extract).unwrap();
    let model = Model::new(ModelKind::Psqt);
    let expect = record_samples(
        &model,
        &samples[..3_200],
        &model.default_weights(),
        Leaf::Static,
        None,
    );
    assert_same(setup.train.set(), &expect, &model.default_weights());
}

#[test]
fn a_stop_between_batches_ends_the_load() {
    let dir = tempfile::tempdir().unwrap();
    let opts = SetupOptions {
        source: BuiltIn {
            data: files(dir.path(), 1_000, 10),
            ..BuiltIn::default()
        },
        objective: ObjectiveOptions {
            k: Some(1.0),
            ..ObjectiveOptions::default()
        },
        ..SetupOptions::default()
    };
    let err = texel::setup::prepare(&opts, Stop::When(&|| true)).unwrap_err();
    assert!(err.to_string().contains("interrupted"), "{err}");
}
