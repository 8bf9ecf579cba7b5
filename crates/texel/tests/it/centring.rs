//! A traced run's written outputs keep the fit: `weights.json` is the unrounded optimum
//! (readable back as start weights), the manifest's declared flat directions are centred
//! without changing the loss, and the rounded weights are polished by integer steps on the
//! training loss, never raising it, with the costs in the summary.
//!
//! The synthetic engine: two piece types, each with a value `material[p]` and a 2 x 4 table
//! `pst[p][sq]` entered twice per piece (as 4ku enters `pst_rank` eight times), so adding `c`
//! to a row of `pst` and `2 c` to `material[p]` changes no evaluation. Piece 0 never stands on
//! square 3 (as a pawn never stands on the first rank): that element is excluded from its mean.

use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;

use optim::{Budget, Control, Method, RunConfig};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use tapered::Stop;
use tapered::{Progress, ProgressEvent};
use texel::finish::{finish, polish, Polish, POLISH_PASSES};
use texel::job::{tune_as, Job};
use texel::setup::{prepare_as, SetupOptions, TraceOptions};
use texel::traced::Traced;
use trace::Manifest;

const FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// The manifest with `material` and `pst` values (JSON text) and the centring declaration.
fn manifest(material: &str, pst: &str) -> String {
    format!(
        r#"{{"format": "gradtune-manifest", "version": 1, "engine": "flat",
  "score": "white", "phase": {{"max": 24}},
  "params": [
    {{"name": "material", "shape": [2], "value": {material}}},
    {{"name": "pst", "shape": [2, 4], "value": {pst}}}
  ],
  "centre": [{{"table": "pst", "into": "material", "scale": 2, "exclude": ["pst[0][3]"]}}]}}"#
    )
}

/// Writes the manifest (start values: material 100, tables 0) and `n` traces labelled at true
/// values whose table rows have means far from 0; returns (manifest, traces).
fn write(dir: &Path, n: usize) -> (std::path::PathBuf, std::path::PathBuf) {
    let truth = Manifest::from_json(
        &manifest(
            "[[80, 95], [310, 290]]",
            "[[[14, 9], [20, 3], [6, 17], [0, 0]], [[-12, 30], [-3, 22], [-20, 8], [-9, 15]]]",
        ),
        "truth",
    )
    .unwrap();
    let zero = "[[0, 0], [0, 0], [0, 0], [0, 0]]";
    let start_text = manifest("[[100, 100], [300, 300]]", &format!("[{zero}, {zero}]"));
    let start = Manifest::from_json(&start_text, "start").unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut text = String::new();
    for i in 0..n {
        let mut coef = [[0i32; 2]; 10];
        for p in 0..2 {
            for side in [0, 1] {
                for _ in 0..rng.gen_range(0..=2) {
                    let sq = rng.gen_range(0..if p == 0 { 3 } else { 4 });
                    coef[p][side] += 1;
                    coef[2 + p * 4 + sq][side] += 2;
                }
            }
        }
        let mut t = String::new();
        for (k, c) in coef.iter().enumerate().filter(|(_, c)| **c != [0, 0]) {
            let _ = write!(t, " {k}:{}:{}", c[0], c[1]);
        }
        let draft = format!(
            "{FEN} [0.5]; phase {}; game {}; t{t}",
            rng.gen_range(0..=24),
            i / 8
        );
        let tr = trace::parse_line(&draft, &start).unwrap().unwrap();
        let q: f64 = truth.evaluate(&tr, &truth.initial_weights()).unwrap();
        let e: f64 = start.evaluate(&tr, &start.initial_weights()).unwrap();
        let label = 1.0 / (1.0 + 10f64.powf(-q / 400.0));
        let line = draft.replace("[0.5]", &format!("[{label:.12}]"));
        let _ = writeln!(text, "{line}; eval {}", e.round());
    }
    let (m, tr) = (dir.join("manifest.json"), dir.join("traces.txt"));
    std::fs::write(&m, start_text).unwrap();
    std::fs::write(&tr, text).unwrap();
    (m, tr)
}

fn options(m: &Path, t: &Path) -> SetupOptions<TraceOptions> {
    crate::fixture::run_options(m, t, None)
}

/// The means of the table rows (piece 0 without square 3), per phase.
fn row_means(m: &Manifest, w: &[f64]) -> Vec<f64> {
    let first = m.index_of("pst[0][0].mg").unwrap();
    let mut out = Vec::new();
    for p in 0..2 {
        let squares = if p == 0 { 3 } else { 4 };
        for phase in 0..2 {
            let sum: f64 = (0..squares)
                .map(|s| w[first + (p * 4 + s) * 2 + phase])
                .sum();
            out.push(sum / squares as f64);
        }
    }
    out
}

#[test]
fn centring_leaves_the_loss_and_rounding_is_polished_on_it() {
    let dir = tempfile::tempdir().unwrap();
    let (m, t) = write(dir.path(), 4000);
    let setup = prepare_as::<Traced>(&options(&m, &t), Stop::Never).unwrap();
    let manifest = &setup.model.manifest;
    // A point off the centre: every row's mean far from 0, fractional values everywhere.
    let mut w = setup.start.clone();
    for (k, v) in w.iter_mut().enumerate() {
        *v += 7.3 + 0.37 * k as f64;
    }
    w[manifest.index_of("pst[0][3].mg").unwrap()] = 5.5;
    assert!(row_means(manifest, &w).iter().all(|m| m.abs() > 5.0));
    let before = setup.train.data_loss(&w);
    let (wc, wi, r) = finish(&setup.model, &setup.train, &w, &Polish::default());
    // Centred: every mean 0, the excluded element untouched, the loss the same.
    for mean in row_means(manifest, &wc) {
        assert!(mean.abs() < 1e-9, "a row's mean is {mean} after centring");
    }
    let excluded = manifest.index_of("pst[0][3].mg").unwrap();
    assert_eq!(wc[excluded], 5.5);
    let after = setup.train.data_loss(&wc);
    assert!(
        (after - before).abs() <= 1e-12 * before,
        "{before} -> {after}"
    );
    assert_eq!(r.centring_change, after - before);
    assert_eq!(r.centred.len(), 4);
    let into = manifest.index_of("material[1].eg").unwrap();
    let moved = &r.centred[3];
    assert_eq!(
        (moved.from.as_str(), moved.into.as_str()),
        ("pst[1].eg", "material[1].eg")
    );
    assert!((wc[into] - w[into] - moved.added).abs() < 1e-9);
    assert!((moved.added - 2.0 * moved.mean).abs() < 1e-12);
    // Rounded and polished: integers, the cost never above plain rounding's, as reported.
    assert!(wi.iter().all(|v| v.fract() == 0.0));
    let plain = setup.train.data_loss(&manifest_round(&setup.model, &wc));
    let polished = setup.train.data_loss(&wi);
    assert_eq!(r.cost_before_polish, plain - after);
    assert_eq!(r.cost_after_polish, polished - after);
    assert!(
        polished <= plain,
        "the polish raised the loss: {plain} -> {polished}"
    );
    assert!(r.polish_sweeps >= 1);
}

fn manifest_round(model: &Traced, w: &[f64]) -> Vec<f64> {
    texel::Tunable::round(model, w)
}

#[test]
fn polish_keeps_only_steps_that_lower_the_loss() {
    let dir = tempfile::tempdir().unwrap();
    let (m, t) = write(dir.path(), 2000);
    let setup = prepare_as::<Traced>(&options(&m, &t), Stop::Never).unwrap();
    // The start is far from the optimum: integer steps must find lower loss, each kept one
    // lowering it.
    let mut wi = setup.start.clone();
    let start_loss = setup.train.data_loss(&wi);
    let all: Vec<usize> = (0..wi.len()).collect();
    let twins = texel::Tunable::phase_pairs(&setup.model);
    let p = polish(
        &setup.train,
        &mut wi,
        &all,
        &twins,
        start_loss,
        &Polish::default(),
    );
    let (loss, moves, sweeps) = (p.loss, p.moves, p.sweeps);
    assert!(moves > 0 && sweeps >= 1);
    // Each sweep's gradient, the index and kept evaluations, and the tries' positions.
    assert!(p.passes > sweeps + 2 && p.passes <= POLISH_PASSES);
    assert!(loss < start_loss);
    assert_eq!(loss, setup.train.data_loss(&wi));
    assert!(wi.iter().all(|v| v.fract() == 0.0));
    // Nothing movable: nothing moves.
    let mut same = setup.start.clone();
    let p = polish(
        &setup.train,
        &mut same,
        &[],
        &twins,
        start_loss,
        &Polish::default(),
    );
    assert_eq!((p.loss, p.moves, p.sweeps, p.passes), (start_loss, 0, 0, 0));
    assert_eq!(same, setup.start);
}

#[test]
fn a_bounded_polish_stops_at_its_budget_or_flag_never_above_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let (m, t) = write(dir.path(), 2000);
    let setup = prepare_as::<Traced>(&options(&m, &t), Stop::Never).unwrap();
    let start_loss = setup.train.data_loss(&setup.start);
    let all: Vec<usize> = (0..setup.start.len()).collect();
    let twins = texel::Tunable::phase_pairs(&setup.model);
    let unbounded = polish(
        &setup.train,
        &mut setup.start.clone(),
        &all,
        &twins,
        start_loss,
        &Polish::default(),
    );
    assert!(unbounded.passes > 12 && unbounded.cut.is_none());
    // Every budget stops there (counting the gradient), keeps only steps that lowered the
    // loss, and reports the loss of the weights it leaves.
    let events = Arc::new(AtomicUsize::new(0));
    let e = events.clone();
    let progress = Progress::new(move |ev| {
        if let ProgressEvent::Advance(n) = ev {
            e.fetch_add(n as usize, Ordering::Relaxed);
        }
    });
    for budget in [0, 1, 5, 12] {
        let mut wi = setup.start.clone();
        let how = Polish {
            passes: budget,
            progress: progress.clone(),
            ..Polish::default()
        };
        events.store(0, Ordering::Relaxed);
        let p = polish(&setup.train, &mut wi, &all, &twins, start_loss, &how);
        assert_eq!(p.cut, Some("budget"), "{budget}");
        assert!(
            p.passes <= budget && p.passes + 1 >= budget,
            "{} of {budget}",
            p.passes
        );
        assert_eq!(events.load(Ordering::Relaxed), p.passes);
        assert!(p.loss <= start_loss && p.loss >= unbounded.loss);
        assert_eq!(p.loss, setup.train.data_loss(&wi));
        // The gradient (1), then the index and kept evaluations (2), before any try.
        if budget <= 3 {
            assert_eq!(p.moves, 0, "{budget}");
        } else {
            assert!(p.moves > 0, "{budget}");
        }
        if budget == 0 {
            assert_eq!(wi, setup.start, "no pass, no step");
        }
    }
    // No time: nothing is tried either.
    let mut wi = setup.start.clone();
    let how = Polish {
        seconds: Some(0.0),
        ..Polish::default()
    };
    let p = polish(&setup.train, &mut wi, &all, &twins, start_loss, &how);
    assert_eq!((p.loss, p.passes, p.cut), (start_loss, 0, Some("time")));
    assert_eq!(wi, setup.start);
    // The flag set: nothing more is tried, the weights are as they were.
    let mut wi = setup.start.clone();
    let how = Polish {
        stop: Some(Arc::new(AtomicBool::new(true))),
        ..Polish::default()
    };
    let p = polish(&setup.train, &mut wi, &all, &twins, start_loss, &how);
    assert_eq!(
        (p.loss, p.passes, p.cut),
        (start_loss, 0, Some("interrupted"))
    );
    assert_eq!(wi, setup.start);
}

#[test]
fn a_traced_run_writes_the_unrounded_optimum_and_the_polished_integers() {
    let dir = tempfile::tempdir().unwrap();
    let (m, t) = write(dir.path(), 4000);
    let out = dir.path().join("run");
    let job = Job {
        setup: options(&m, &t),
        config: RunConfig {
            method: Method::Lbfgs,
            budget: Budget::iterations(200),
            ..RunConfig::default()
        },
        resolve_every: 0,
        out: out.clone(),
        append_log: false,
        l2_path: None,
        emit: Vec::new(),
        polish_passes: texel::finish::POLISH_PASSES,
    };
    let tuned = tune_as::<Traced>(&job, Arc::new(Control::new()), &mut |_| {}).unwrap();
    let manifest = &tuned.model.manifest;
    // weights.json: the centred optimum, not rounded, read back as start weights.
    let exact = Manifest::load(&out.join("weights.json"))
        .unwrap()
        .initial_weights();
    assert!(
        exact.iter().any(|v| v.fract() != 0.0),
        "weights.json is rounded"
    );
    let (centred, _) = texel::Tunable::centre(&tuned.model, &tuned.outcome.weights);
    assert_eq!(exact, centred);
    for mean in row_means(manifest, &exact) {
        assert!(mean.abs() < 1e-9, "weights.json: a row's mean is {mean}");
    }
    // weights-int.json: integers, the rounded loss the summary reports.
    let ints = Manifest::load(&out.join("weights-int.json"))
        .unwrap()
        .initial_weights();
    assert!(ints.iter().all(|v| v.fract() == 0.0));
    let s = &tuned.summary.losses;
    let r = &s.rounding;
    assert!(r.cost_after_polish <= r.cost_before_polish);
    assert_eq!(r.centred.len(), 4);
    let train = prepare_as::<Traced>(&options(&m, &t), Stop::Never)
        .unwrap()
        .train;
    assert!((train.data_loss(&ints) - s.rounded_loss.0).abs() < 1e-15);
    let text = tuned.summary.to_text();
    assert!(text.contains("centred   4 group means"), "{text}");
    assert!(text.contains("polish    rounding cost"), "{text}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert!(json["rounding"]["cost_after_polish"].as_f64().is_some());
}
