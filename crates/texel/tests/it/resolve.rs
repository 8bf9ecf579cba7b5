//! Re-resolving quiescence leaves on real positions: after the weights move, the leaves found
//! again are counted right, and the re-recorded sets replay the value and gradient of a fresh
//! tape recording at the new leaf and the new weights; a run that re-resolves every few
//! iterations reports it, is deterministic and keeps weights no worse than the start.

use crate::common;

use std::path::PathBuf;
use std::sync::Arc;

use eval::{Model, ModelKind};
use optim::{run_resolving, Budget, Control, Method, OptimError, Rerecord, ResolvedRun, RunConfig};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shakmaty::{Chess, Position};
use tapered::Stop;
use texel::chess::{record_samples, Leaf};
use texel::setup::{prepare, BuiltIn, ObjectiveOptions, Setup, SetupOptions, SplitOptions};
use texel::Resolver;

use common::{assert_gradients_close, close, fresh};

/// [`run_resolving`] from the setup's start, on its sets, with its resolver, re-resolving every
/// `every` iterations.
fn resolving(
    setup: &mut Setup,
    cfg: &RunConfig,
    control: Arc<Control>,
    every: u64,
) -> Result<ResolvedRun, OptimError> {
    let mut resolver = setup.resolver.take().expect("a resolver");
    run_resolving(
        setup.train.clone(),
        setup.valid.clone(),
        &setup.start,
        cfg,
        control,
        &mut resolver,
        every,
    )
}

/// The first `n` positions of the shared TCEC games (many with captures pending).
fn tcec(n: usize) -> Vec<data::Sample> {
    common::tcec_samples(n, 400_000)
}

/// A few hundred real positions, each sample's score holding its number (the set renumbers).
fn samples() -> Vec<data::Sample> {
    let mut pos: Vec<Chess> = tcec(300)
        .iter()
        .map(|s| s.position().expect("decodes"))
        .collect();
    pos.extend(common::quiet_1k().into_iter().take(200).map(|(p, _)| p));
    pos.iter()
        .enumerate()
        .map(|(i, p)| data::Sample::from_position(p, 0.5, Some(i as f32), i as u32))
        .collect()
}

/// The default weights moved deterministically (within the model's bounds).
fn moved(model: &Model, seed: u64) -> Vec<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    model
        .default_weights()
        .iter()
        .zip(model.params())
        .map(|(&v, p)| {
            let x = v * rng.gen_range(0.6..1.4) + rng.gen_range(-25.0..25.0);
            match p.bounds {
                Some((lo, hi)) => x.clamp(lo, hi),
                None => x,
            }
        })
        .collect()
}

fn same_leaf(a: &Chess, b: &Chess) -> bool {
    a.board() == b.board() && a.turn() == b.turn()
}

/// The set's replayed values and one-hot gradients equal fresh recordings at `leaves`, `w`.
fn check_replay(
    kind: ModelKind,
    model: &Model,
    set: &tapered::CompiledSet,
    leaves: &[Chess],
    w: &[f64],
) {
    let n = set.len();
    let labels = set.targets();
    let mut q = vec![0.0; n];
    set.scores(w, &mut q);
    for i in 0..n {
        let p = labels[i].score.expect("numbered") as usize;
        let (v, g) = fresh(model, &leaves[p], w);
        assert!(
            close(q[i], v, v.abs()),
            "{kind} position {p}: replay {}, fresh {v}",
            q[i]
        );
        // The gradient of position i alone: a pass with a one-hot seed.
        let mut rg = vec![0.0; w.len()];
        let s = set
            .pass(
                w,
                0..n,
                None,
                Some(&mut rg),
                |k, q| {
                    if k == i {
                        (q, 1.0)
                    } else {
                        (0.0, 0.0)
                    }
                },
                Stop::Never,
            )
            .unwrap();
        assert!(close(s, v, v.abs()), "{kind} position {p}: pass value {s}");
        assert_gradients_close(&rg, &g, &format!("{kind} position {p}"));
    }
}

fn check(kind: ModelKind) {
    let model = Model::new(kind);
    let w0 = model.default_weights();
    let all = samples();
    let (train, valid) = all.split_at(400);
    let mut resolver = Resolver::new(model.clone(), train.to_vec(), valid.to_vec());
    assert_eq!(resolver.positions(), (400, 100));

    // At the start: what record_samples records, nothing changed yet.
    let rec0 = resolver.record(&w0, None).expect("record");
    assert_eq!((rec0.train_changed, rec0.valid_changed), (0, 0));
    let plain = record_samples(&model, train, &w0, Leaf::Qsearch, None);
    assert_eq!(plain.len(), rec0.train.len());
    let by_number = |set: &tapered::CompiledSet, w: &[f64]| {
        let mut q = vec![0.0; set.len()];
        set.scores(w, &mut q);
        let mut out = vec![f64::NAN; all.len()];
        for (l, v) in set.targets().iter().zip(q) {
            out[l.score.expect("numbered") as usize] = v;
        }
        out
    };
    let w1 = moved(&model, 11);
    let (a, b) = (by_number(&plain, &w1), by_number(&rec0.train, &w1));
    for p in 0..400 {
        assert!(close(a[p], b[p], a[p].abs()), "{kind} position {p}");
    }

    // Move the weights and search again.
    let rec1 = resolver.record(&w1, None).expect("record");
    let roots: Vec<Chess> = all.iter().map(|s| s.position().expect("decodes")).collect();
    let leaves0: Vec<Chess> = roots
        .iter()
        .map(|p| eval::quiesce(&model, p, &w0).leaf)
        .collect();
    let leaves1: Vec<Chess> = roots
        .iter()
        .map(|p| eval::quiesce(&model, p, &w1).leaf)
        .collect();
    let changed =
        |r: std::ops::Range<usize>| r.filter(|&p| !same_leaf(&leaves0[p], &leaves1[p])).count();
    let (ct, cv) = (changed(0..400), changed(400..500));
    eprintln!("{kind}: {ct}/400 training and {cv}/100 validation leaves changed");
    assert!(
        ct > 0,
        "{kind}: moving the weights changed no training leaf"
    );
    assert_eq!(rec1.train_changed, ct, "{kind}: training count");
    assert_eq!(rec1.valid_changed, cv, "{kind}: validation count");
    assert_eq!(rec1.train.len(), 400);
    assert_eq!(rec1.valid.len(), 100);

    // Every re-recorded position replays the fresh recording at its new leaf and new weights.
    check_replay(kind, &model, &rec1.train, &leaves1, &w1);
    check_replay(kind, &model, &rec1.valid, &leaves1, &w1);

    // And at weights away from the recording point too.
    let w2 = moved(&model, 12);
    check_replay(kind, &model, &rec1.train, &leaves1, &w2);

    // Searching again at the same weights changes nothing.
    let rec2 = resolver.record(&w1, None).expect("record");
    assert_eq!((rec2.train_changed, rec2.valid_changed), (0, 0));
}

#[test]
fn psqt_resolved_leaves_replay_fresh_recordings() {
    check(ModelKind::Psqt);
}

#[test]
fn full_resolved_leaves_replay_fresh_recordings() {
    check(ModelKind::Full);
}

/// An EPD file of real positions with their game results, written once per process.
fn epd() -> PathBuf {
    let path = std::env::temp_dir().join(format!("optim-resolve-{}.epd", std::process::id()));
    if !path.is_file() {
        // Each position a "game" of its own, so that the validation split is drawn from the
        // same few TCEC games as the training split (split by game, a dozen games would not
        // say whether the run improves).
        let mut s = tcec(1500);
        s.extend(
            common::quiet_1k()
                .into_iter()
                .take(300)
                .map(|(p, l)| data::Sample::from_position(&p, l.value, l.score, 0)),
        );
        for (i, x) in s.iter_mut().enumerate() {
            x.game = i as u32;
        }
        let tmp = path.with_extension(format!("{:?}.tmp", std::thread::current().id()));
        data::write_epd(&tmp, &s).expect("write EPD");
        std::fs::rename(&tmp, &path).expect("rename");
    }
    path
}

fn options(data: PathBuf) -> SetupOptions {
    SetupOptions {
        source: BuiltIn {
            data: vec![data],
            model: Some(ModelKind::Psqt),
            leaf: Leaf::Qsearch,
            resolvable: true,
            ..BuiltIn::default()
        },
        split: SplitOptions {
            valid_fraction: 0.2,
            ..SplitOptions::default()
        },
        objective: ObjectiveOptions {
            // The material values only: few parameters for these few games (all of them
            // overfit), and the ones that decide which captures pay.
            freeze: vec!["pst".to_string()],
            ..ObjectiveOptions::default()
        },
        ..SetupOptions::default()
    }
}

#[test]
fn run_resolves_every_n_iterations() {
    let data = epd();
    let go = |log: Option<PathBuf>| {
        let mut setup = prepare(&options(data.clone()), Stop::Never).expect("prepare");
        let positions = (
            setup.train.set().len(),
            setup.valid.as_ref().map_or(0, |v| v.set().len()),
        );
        let k = setup.train.config().link.k;
        let cfg = RunConfig {
            method: Method::Lbfgs,
            budget: Budget::iterations(12),
            log,
            ..RunConfig::default()
        };
        let r = resolving(&mut setup, &cfg, Arc::new(Control::new()), 3).expect("run");
        // Same K, free parameters and anchor on the final leaves.
        assert_eq!(r.train.config().link.k, k);
        assert_eq!(r.train.base(), setup.start.as_slice());
        assert_eq!(r.train.free(), setup.train.free());
        assert_eq!(r.train.bounds(), setup.train.bounds());
        (r, positions)
    };
    let log = std::env::temp_dir().join(format!("optim-resolve-{}.jsonl", std::process::id()));
    let (a, positions) = go(Some(log.clone()));
    let out = &a.outcome;
    eprintln!("{:#?}", out.resolutions);
    eprintln!("{}: {:?}", out.reason, out.valid_loss);
    assert!(!out.resolutions.is_empty(), "no re-resolution");
    let mut last = 0;
    for r in &out.resolutions {
        assert_eq!(r.positions, positions);
        assert!(r.iter > last && r.iter <= 12, "re-resolved at {}", r.iter);
        last = r.iter;
        let f = (r.train_changed + r.valid_changed) as f64 / (positions.0 + positions.1) as f64;
        assert_eq!(r.fraction, f);
    }
    if out.spent.iterations == 12 {
        let iters: Vec<u64> = out.resolutions.iter().map(|r| r.iter).collect();
        assert_eq!(
            iters,
            vec![3, 6, 9],
            "every three iterations, not after the last"
        );
    }
    assert!(
        out.resolutions.iter().any(|r| r.train_changed > 0),
        "the leaves never moved"
    );
    // The kept weights are no worse than the start on the final leaves.
    let (v0, v1) = out.valid_loss.expect("a validation split");
    assert!(v1 <= v0, "validation loss {v0} -> {v1}");
    assert!(v1 < v0, "the run did not improve at all");
    // One log line per re-resolution.
    let text = std::fs::read_to_string(&log).expect("log");
    let events: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .filter(|v: &serde_json::Value| v["event"] == "resolve")
        .collect();
    assert_eq!(events.len(), out.resolutions.len());
    assert_eq!(
        events[0]["train_changed"].as_u64(),
        Some(out.resolutions[0].train_changed as u64)
    );
    std::fs::remove_file(&log).ok();

    // Deterministic: the same run again gives the same re-resolutions and weights.
    let (b, _) = go(None);
    assert_eq!(b.outcome.resolutions.len(), out.resolutions.len());
    for (x, y) in b.outcome.resolutions.iter().zip(&out.resolutions) {
        assert_eq!(
            (x.iter, x.train_changed, x.valid_changed),
            (y.iter, y.train_changed, y.valid_changed)
        );
    }
    // (Parallel sums may add in another order: equal to rounding.)
    for (x, y) in b.outcome.weights.iter().zip(&out.weights) {
        assert!((x - y).abs() <= 1e-9 * x.abs().max(1.0), "{x} vs {y}");
    }
    assert_eq!(b.outcome.best_iter, out.best_iter);
}

#[test]
fn interrupted_run_keeps_the_best_weights() {
    let mut setup = prepare(&options(epd()), Stop::Never).expect("prepare");
    let control = Arc::new(Control::new());
    control.interrupt();
    let cfg = RunConfig {
        budget: Budget::iterations(10),
        ..RunConfig::default()
    };
    let r = resolving(&mut setup, &cfg, control, 2).expect("run");
    assert!(r.outcome.interrupted);
    assert!(r.outcome.resolutions.is_empty());
    assert_eq!(r.outcome.weights, setup.start);
}

/// Ctrl-C during a re-resolution: the search of the roots ends with an error saying so, and the
/// leaves stay those of the previous resolution (the same fingerprint); cleared, it goes on.
#[test]
fn a_set_stop_flag_ends_a_resolution_and_keeps_the_leaves() {
    let model = Model::new(ModelKind::Psqt);
    let all = samples();
    let (train, valid) = all.split_at(400);
    let mut resolver = Resolver::new(model.clone(), train.to_vec(), valid.to_vec());
    let w0 = model.default_weights();
    resolver.resolve(&w0, None).expect("first resolution");
    let before = resolver.fingerprint();
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(true));
    resolver.set_stop(stop.clone());
    let e = resolver
        .resolve(&moved(&model, 3), None)
        .expect_err("stopped");
    assert!(e.to_string().contains("interrupted"), "{e}");
    assert_eq!(resolver.fingerprint(), before);
    stop.store(false, std::sync::atomic::Ordering::SeqCst);
    resolver.resolve(&moved(&model, 3), None).expect("goes on");
}

/// Early stopping counts the iterations since the best across re-resolutions (rounds shorter
/// than the patience would otherwise never exhaust it).
#[test]
fn patience_counts_across_rounds() {
    let mut setup = prepare(&options(epd()), Stop::Never).expect("prepare");
    let cfg = RunConfig {
        method: Method::Lbfgs,
        budget: Budget {
            max_iters: Some(400),
            patience: Some(5),
            ..Budget::default()
        },
        ..RunConfig::default()
    };
    let r = resolving(&mut setup, &cfg, Arc::new(Control::new()), 2).expect("run");
    let out = &r.outcome;
    eprintln!(
        "{} iterations (best {}), {} re-resolutions: {}",
        out.spent.iterations,
        out.best_iter,
        out.resolutions.len(),
        out.reason
    );
    assert!(out.reason.contains("early stopping"), "{}", out.reason);
    assert!(
        out.spent.iterations <= out.best_iter + 5 + 2,
        "{} iterations",
        out.spent.iterations
    );
    let (v0, v1) = out.valid_loss.expect("a validation split");
    assert!(v1 <= v0);
}

#[test]
fn resolving_needs_a_budget() {
    let mut setup = prepare(&options(epd()), Stop::Never).expect("prepare");
    let e = resolving(
        &mut setup,
        &RunConfig::default(),
        Arc::new(Control::new()),
        2,
    )
    .expect_err("no budget");
    assert!(e.to_string().contains("budget"), "{e}");
}

#[test]
fn resolving_needs_the_quiescence_leaf() {
    let mut opts = options(epd());
    opts.source.leaf = Leaf::Static;
    let e = prepare(&opts, Stop::Never).expect_err("static leaves cannot be re-resolved");
    assert!(e.to_string().contains("qsearch"), "{e}");
}
