//! The C fixture's round trip through the real `tune` binary (issue #33's "must show"):
//! trace, verify, tune, emit C, compile the emitted header into the fixture, and the
//! fixture's evaluation with the tuned weights is gradtune's rebuilt evaluation; and the
//! recovery goal: labels drawn from known weights give those weights back.
//!
//! Both compile `fixtures/trace-engine/fixture.c` with the system C compiler (`cc`) and skip,
//! with a message, where there is none.

mod common;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{arg, default_data, run};
use data::{load, LoadOptions};
use trace::{read_traces, Manifest, ReadOptions, Trace};

/// The fixtures' folder.
fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/trace-engine")
}

/// Whether `cc --version` runs.
fn have_cc() -> bool {
    Command::new("cc")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The C fixture compiled to `exe` with `cc -O1 -std=c99` and `extra` flags.
fn compile(exe: &Path, extra: &[&str]) {
    let status = Command::new("cc")
        .args(["-O1", "-std=c99"])
        .args(extra)
        .arg("-o")
        .arg(exe)
        .arg(fixtures().join("fixture.c"))
        .status()
        .expect("cc runs");
    assert!(
        status.success(),
        "cc failed to compile fixture.c with {extra:?}"
    );
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
    let (traces, report) = read_traces(&[out.to_path_buf()], &m, &ReadOptions::default()).unwrap();
    assert_eq!(report.skipped, 0, "{report}");
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
fn engine_evals(exe: &Path, traces: &[Trace]) -> Vec<f64> {
    let mut child = Command::new(exe)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for t in traces {
        writeln!(stdin, "position fen {}\neval", t.fen()).unwrap();
    }
    writeln!(stdin, "quit").unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let evals: Vec<f64> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.strip_prefix("eval ").unwrap().parse().unwrap())
        .collect();
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
    if !have_cc() {
        eprintln!("skipping: this test needs a C compiler (`cc`), and there is none");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let n = 3000;
    let input = positions(d, n);
    let exe = d.join("fixture");
    compile(&exe, &[]);

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
    let evals = engine_evals(&exe2, &traces);
    let old_evals: Vec<f64> = traces.iter().map(|t| f64::from(t.eval.unwrap())).collect();
    assert_ne!(evals, old_evals, "the tuned engine evaluates differently");
    assert_rebuilds(&tuned, &traces, &w1, &evals, "old traces");
    assert_rebuilds(&tuned, &traces2, &w1, &evals, "new traces");
    for (t, &e) in traces2.iter().zip(&evals) {
        assert_eq!(t.eval, Some(e as f32), "the new trace's eval is `eval`'s");
    }
    assert_verifies(&d.join("traces2.txt"), &tuned_path, n);
}
