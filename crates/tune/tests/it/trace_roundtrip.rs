//! The C fixture's round trip through the real `tune` binary (issue #33's "must show"):
//! trace, verify, tune, emit C, compile the emitted header into the fixture, and the
//! fixture's evaluation with the tuned weights is gradtune's rebuilt evaluation; and the
//! recovery goal: labels drawn from known weights give those weights back.
//!
//! Both compile `fixtures/trace-engine/fixture.c` with the system C compiler (`cc`) and skip,
//! with a message, where there is none.

use crate::common;

use std::path::{Path, PathBuf};

use common::{arg, default_data, engine_evals, have_cc, read_all, run, tools};
use data::{load, LoadOptions};
use trace::{write_text, Manifest, Trace};

/// The C fixture compiled to `exe` with `cc -O1 -std=c99` and `extra` flags.
fn compile(exe: &Path, extra: &[&str]) {
    tools::cc_fixture(exe, &[&["-O1"], extra].concat());
}

/// `n` positions spread over the embedded dataset, written to `dir/in.epd`.
fn positions(dir: &Path, n: usize) -> PathBuf {
    let (all, _) = load(&default_data(), &LoadOptions::default()).unwrap();
    let step = all.len() / n;
    let samples: Vec<_> = all.iter().step_by(step).take(n).copied().collect();
    let path = dir.join("in.epd");
    data::write_epd(&path, &samples).unwrap();
    path
}

/// A temporary folder with `n` positions (`in.epd`) and the fixture compiled as it is
/// (`fixture`), or `None` without a C compiler.
fn setup(n: usize) -> Option<(tempfile::TempDir, PathBuf, PathBuf)> {
    if !have_cc() {
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let input = positions(dir.path(), n);
    let exe = dir.path().join("fixture");
    compile(&exe, &[]);
    Some((dir, input, exe))
}

/// `tune trace INPUT --engine EXE -o OUT --jobs 2 --manifest-out MANIFEST`, checked to
/// succeed; the traces read back against the written manifest, none skipped.
fn trace_with(exe: &Path, input: &Path, out: &Path, manifest: &Path) -> (Manifest, Vec<Trace>) {
    let r = run(&[
        "trace",
        arg(input),
        "--engine",
        arg(exe),
        "-o",
        arg(out),
        "--jobs",
        "2",
        "--manifest-out",
        arg(manifest),
    ]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let m = Manifest::load(manifest).unwrap();
    let traces = read_all(out, &m);
    (m, traces)
}

/// `tune verify --trace TRACES --manifest M` succeeds with every position matching.
fn assert_verifies(traces: &Path, manifest: &Path, n: usize) {
    let r = run(&[
        "verify",
        "--trace",
        arg(traces),
        "--manifest",
        arg(manifest),
    ]);
    assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);
    let want = format!("verify: {n} positions compared");
    assert!(r.stdout.contains(&want), "{}", r.stdout);
    assert!(
        r.stdout.contains("all match within 1 after rounding"),
        "{}",
        r.stdout
    );
}

/// The engine's answers to `eval` (White's view) for each trace's position, from one process.
fn fixture_evals(exe: &Path, traces: &[Trace]) -> Vec<f64> {
    let evals: Vec<f64> = engine_evals(exe, traces.iter().map(|t| t.fen().to_string()));
    assert_eq!(evals.len(), traces.len());
    evals
}

/// Every trace's rebuilt evaluation at `w`, rounded, is the engine's `eval` within 1 cp.
fn assert_rebuilds(m: &Manifest, traces: &[Trace], w: &[f64], evals: &[f64], what: &str) {
    for (t, &e) in traces.iter().zip(evals) {
        let rebuilt = m.evaluate(t, w).unwrap();
        assert!(
            (rebuilt.round() - e).abs() <= 1.0,
            "{what}: {}: rebuilt {rebuilt}, engine {e}",
            t.fen()
        );
    }
}

/// The round trip: trace 3,000 positions, verify, tune with L-BFGS, emit the tuned integer
/// manifest as C, compile it into the fixture, and the new fixture's `eval` is gradtune's
/// rebuilt evaluation at the tuned integer weights (within `verify`'s 1 cp after rounding)
/// on every position, rebuilt from the old traces and from the new engine's traces alike
/// (traces do not depend on the weights: they are the same); `tune verify` of the new
/// engine's traces against the tuned manifest passes; the tuning changed the weights.
#[test]
fn trace_verify_tune_emit_compile_and_the_engine_agrees() {
    let n = 3000;
    let Some((dir, input, exe)) = setup(n) else {
        return;
    };
    let d = dir.path();

    let (traces_txt, mpath) = (d.join("traces.txt"), d.join("fixture.json"));
    let (m, traces) = trace_with(&exe, &input, &traces_txt, &mpath);
    assert_eq!(traces.len(), n);
    assert_verifies(&traces_txt, &mpath, n);

    let out = d.join("run");
    let r = run(&[
        "lbfgs",
        "--trace",
        arg(&traces_txt),
        "--manifest",
        arg(&mpath),
        "--out",
        arg(&out),
        "--max-iters",
        "20",
        "--valid-fraction",
        "0",
        "--quiet",
    ]);
    assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);
    let tuned_path = out.join("weights-int.json");
    let tuned = Manifest::load(&tuned_path).unwrap();
    let (w0, w1) = (m.initial_weights(), tuned.initial_weights());
    assert_eq!(w0.len(), w1.len());
    let changed = w0.iter().zip(&w1).filter(|(a, b)| a != b).count();
    assert!(
        changed >= 100,
        "only {changed} of {} weights changed",
        w0.len()
    );
    assert!(
        w1.iter().all(|v| v.fract() == 0.0),
        "integer weights are whole"
    );

    let header = d.join("tuned.h");
    let r = run(&["emit", arg(&tuned_path), "--lang", "c", "-o", arg(&header)]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let exe2 = d.join("fixture-tuned");
    compile(&exe2, &[&format!("-DWEIGHTS=\"{}\"", header.display())]);

    // The new engine's own manifest is the tuned one.
    let (m2, traces2) = trace_with(&exe2, &input, &d.join("traces2.txt"), &d.join("tuned.json"));
    assert_eq!(
        m2.initial_weights(),
        w1,
        "the compiled-in weights are the tuned ones"
    );
    // Traces do not depend on the weights: only `eval` differs.
    assert_eq!(traces2.len(), n);
    for (a, b) in traces.iter().zip(&traces2) {
        assert_eq!(
            (a.board, &a.coeffs, &a.features, a.phase),
            (b.board, &b.coeffs, &b.features, b.phase)
        );
    }
    let evals = fixture_evals(&exe2, &traces);
    let old_evals: Vec<f64> = traces.iter().map(|t| f64::from(t.eval.unwrap())).collect();
    assert_ne!(evals, old_evals, "the tuned engine evaluates differently");
    assert_rebuilds(&tuned, &traces, &w1, &evals, "old traces");
    assert_rebuilds(&tuned, &traces2, &w1, &evals, "new traces");
    for (t, &e) in traces2.iter().zip(&evals) {
        assert_eq!(t.eval, Some(e as f32), "the new trace's eval is `eval`'s");
    }
    assert_verifies(&d.join("traces2.txt"), &tuned_path, n);
}

/// The truth of the recovery test: the start weights moved by a known amount, -10..=10 cp,
/// on every weight of a parameter that is not frozen.
fn truth(m: &Manifest, frozen: &[&str]) -> Vec<f64> {
    m.weights()
        .iter()
        .enumerate()
        .map(|(i, w)| {
            if frozen.contains(&w.group.as_str()) {
                w.init
            } else {
                w.init + ((i * 7919) % 21) as f64 - 10.0
            }
        })
        .collect()
}

/// The weights the traces determine at `w`: moving one by 1 changes some position's value.
fn determined(m: &Manifest, traces: &[Trace], w: &[f64]) -> Vec<bool> {
    let base: Vec<f64> = traces.iter().map(|t| m.evaluate(t, w).unwrap()).collect();
    let mut v = w.to_vec();
    (0..w.len())
        .map(|j| {
            v[j] += 1.0;
            let moved = traces
                .iter()
                .zip(&base)
                .any(|(t, &b)| (m.evaluate(t, &v).unwrap() - b).abs() > 1e-9);
            v[j] -= 1.0;
            moved
        })
        .collect()
}

/// The recovery goal on the C fixture: its traces of 3,000 positions labelled with the exact
/// evaluation at known weights (the start weights moved by -10..=10 cp each, as a score label
/// tuned with `--lambda 0`: noise-free), tuned from the start weights by L-BFGS, give every
/// weight the traces determine back within 2 cp: mobility, tempo, and the non-linear king
/// safety's `ks_attack` (inside a square and a product) and `ks_weight` (a head parameter
/// indexed by a feature) alike. Material and the piece-square tables are frozen at their
/// (true) values: together with mobility they are not identifiable from any data (a constant
/// moved from `material[p]` to every `pst[p][sq]`, or from `pst[N]` to every
/// `mobility_knight[n]`, changes no evaluation), so no tuner can recover them one by one.
/// Weights no position touches have a zero gradient and must stay at their start: on these
/// 3,000 positions `ks_weight[0]` (no attacker, no danger), `ks_weight[5..=7]` (5 or more
/// attackers never occur) and `mobility_queen[26]`; 144 of the 150 free weights are checked.
#[test]
fn labels_from_known_weights_give_them_back() {
    let n = 3000;
    let Some((dir, input, exe)) = setup(n) else {
        return;
    };
    let d = dir.path();
    let (m, mut traces) = trace_with(&exe, &input, &d.join("traces.txt"), &d.join("fixture.json"));

    // The manifest with material and the tables frozen, the rest not rounded (`weights.json`
    // keeps the tuned values as they are, so the check below is on them, not on integers).
    let frozen = ["material", "pst"];
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("fixture.json")).unwrap()).unwrap();
    for p in json["params"].as_array_mut().unwrap() {
        if frozen.contains(&p["name"].as_str().unwrap()) {
            p["frozen"] = serde_json::Value::Bool(true);
        } else {
            p["integer"] = serde_json::Value::Bool(false);
        }
    }
    let mpath = d.join("frozen.json");
    std::fs::write(&mpath, json.to_string()).unwrap();
    let m = Manifest::load(&mpath).unwrap_or_else(|e| panic!("{e}: {}", m.engine()));

    let start = m.initial_weights();
    let truth = truth(&m, &frozen);
    for t in &mut traces {
        t.score = Some(m.evaluate(t, &truth).unwrap() as f32);
    }
    let labelled = d.join("labelled.txt");
    write_text(&labelled, &traces, &m).unwrap();

    let out = d.join("run");
    let r = run(&[
        "lbfgs",
        "--trace",
        arg(&labelled),
        "--manifest",
        arg(&mpath),
        "--out",
        arg(&out),
        "--lambda",
        "0",
        "--l2",
        "0",
        // Exact labels at known weights: no prior, which would hold the weights a few
        // positions support (king safety's) short of the truth by design.
        "--prior-positions",
        "0",
        "--k",
        "1",
        "--valid-fraction",
        "0",
        "--max-iters",
        "2000",
        "--quiet",
    ]);
    assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("150 free parameters"), "{}", r.stdout);
    let tuned = Manifest::load(&out.join("weights.json"))
        .unwrap()
        .initial_weights();
    let known = determined(&m, &traces, &truth);
    let names = m.weights();
    let mut worst = (0.0f64, String::new());
    let (mut checked, mut untouched) = (0, 0);
    for j in 0..start.len() {
        if frozen.contains(&names[j].group.as_str()) {
            assert_eq!(tuned[j], start[j], "{} is frozen", names[j].name);
        } else if known[j] {
            checked += 1;
            let err = (tuned[j] - truth[j]).abs();
            if err > worst.0 {
                worst = (err, names[j].name.clone());
            }
        } else {
            untouched += 1;
            // (Unmoved but for floating-point rounding in the optimiser's scaling.)
            let moved = (tuned[j] - start[j]).abs();
            assert!(
                moved < 1e-9,
                "{}: no position touches it, yet it moved by {moved}",
                names[j].name
            );
        }
    }
    // The non-linear part is checked, not vacuous: every `ks_attack` weight and `ks_weight`
    // for 1 to 4 attackers.
    let mut nonlinear = 0.0f64;
    for (j, w) in names.iter().enumerate() {
        if w.group.starts_with("ks_") {
            let needed =
                w.group == "ks_attack" || (1..=4).any(|k| w.name == format!("ks_weight[{k}]"));
            assert!(
                known[j] || !needed,
                "{} is determined by the traces",
                w.name
            );
            if known[j] {
                nonlinear = nonlinear.max((tuned[j] - truth[j]).abs());
            }
        }
    }
    eprintln!("{checked} weights checked, {untouched} untouched; worst {worst:?}; worst non-linear {nonlinear}");
    assert!(worst.0 <= 2.0, "{checked} weights checked; worst {worst:?}");
}
