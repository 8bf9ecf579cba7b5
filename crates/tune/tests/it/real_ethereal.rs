//! Ethereal 14.40 (the pinned snapshot in `../shared/engines`) speaking gradtune's protocols
//! through `engines/ethereal/`: the patch applies and the engine builds, its `manifest` is the
//! committed `manifest.json`, `tune trace` + verification agree with its own evaluation on
//! 100,000 quiet TCEC positions, and weights set at run time (`GradtuneWeights`, the spin
//! options) give the manifest's evaluation at those weights.
//!
//! Ethereal evaluates in integers, every division truncating towards zero (king safety `/720`
//! and `/20`, the scale `/128`, the taper `/24`); the manifest says so with `trunc(a / b)`, so
//! `tune verify`'s rebuilt evaluation is the engine's to the centipawn: the tests check every
//! position with tolerance 0 (exactly equal), stricter than `tune verify`'s default 1 cp.
//!
//! The engine is built once per test process (about 15 s on 2 cores) and the positions
//! extracted once (about 30 s); the three tests took 120 s together (release, 2 cores shared
//! with other builds).

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use common::{arg, read_all, run, shared, splice, tools};
use serde_json::Value;
use trace::{verify, Manifest, Trace, VerifyOptions};

/// The pinned snapshot's file name in `../shared/engines`.
const SNAPSHOT: &str = "Ethereal-0e47e9b.tar.zst";

/// `engines/ethereal/` of the repository.
fn engine_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../engines/ethereal")
}

/// The snapshot: `$GRADTUNE_SHARED_ENGINES/SNAPSHOT`, else `../shared/engines/SNAPSHOT`
/// beside the checkout. Panics, naming the path, when it is missing.
fn snapshot() -> PathBuf {
    let dir = std::env::var_os("GRADTUNE_SHARED_ENGINES")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/engines")
        });
    let path = dir.join(SNAPSHOT);
    assert!(
        path.is_file(),
        "the Ethereal snapshot {} is missing: this test needs ../shared/engines beside the \
         repository (or GRADTUNE_SHARED_ENGINES set to the folder holding {SNAPSHOT})",
        path.display()
    );
    path
}

/// Whether every one of `programs` runs (each missing one is named: the test is skipped).
fn have_all(programs: &[&str], why: &str) -> bool {
    programs.iter().all(|p| tools::have(p, why))
}

/// A folder kept for the whole test process (the built engine and the positions).
fn work_dir() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| tempfile::tempdir().unwrap()).path()
}

/// The patched engine, built once by `build.sh`; `None` (with a message) without `cc`.
fn engine() -> Option<&'static Path> {
    static EXE: OnceLock<Option<PathBuf>> = OnceLock::new();
    EXE.get_or_init(|| {
        let snapshot = snapshot();
        if !have_all(&["cc", "make", "patch"], "this test builds Ethereal") {
            return None;
        }
        let out = Command::new("sh")
            .arg(engine_dir().join("build.sh"))
            .arg(&snapshot)
            .arg(work_dir().join("build"))
            .output()
            .expect("sh runs build.sh");
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "build.sh failed: {said}");
        let exe = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        assert!(
            exe.is_file(),
            "build.sh printed `{}`, not a binary",
            exe.display()
        );
        Some(exe)
    })
    .as_deref()
}

/// The first `n` quiet positions of the TCEC games (`tune extract`, its defaults), as EPD.
fn tcec_positions(n: usize) -> PathBuf {
    static ALL: OnceLock<PathBuf> = OnceLock::new();
    let all = ALL.get_or_init(|| {
        let out = work_dir().join("tcec-quiet.epd");
        let games = shared("tcec-standard.pgn.zst");
        let ran = run(&["extract", arg(&games), "-o", arg(&out)]);
        assert_eq!(ran.code, Some(0), "tune extract failed: {}", ran.stderr);
        out
    });
    let text = std::fs::read_to_string(all).unwrap();
    let lines: Vec<&str> = text.lines().take(n).collect();
    assert_eq!(
        lines.len(),
        n,
        "the TCEC games give fewer than {n} quiet positions"
    );
    let path = work_dir().join(format!("tcec-{n}.epd"));
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

/// `tune trace` of `input` with `engine` (a command line) against the committed manifest;
/// the traces, all of them well formed.
fn trace(engine: &str, input: &Path, out: &Path, m: &Manifest) -> Vec<Trace> {
    let manifest = engine_dir().join("manifest.json");
    let ran = run(&[
        "trace",
        arg(input),
        "--engine",
        engine,
        "-o",
        arg(out),
        "--manifest",
        arg(&manifest),
        "--jobs",
        "2",
        "--strict",
    ]);
    assert_eq!(ran.code, Some(0), "tune trace failed: {}", ran.stderr);
    read_all(out, m)
}

/// Checks `traces` against the engine's evaluations at `w`: every position rebuilt exactly
/// (`trace::verify` with tolerance 0), so `tune verify` passes at its default 1 cp too.
fn check(traces: &[Trace], m: &Manifest, w: &[f64]) {
    let exact = VerifyOptions {
        tolerance: 0.0,
        ..VerifyOptions::default()
    };
    let report = verify(m, traces, w, &exact);
    assert_eq!(report.checked, traces.len(), "{report}");
    assert_eq!(report.unevaluable, 0, "{report}");
    assert_eq!(
        report.failed, 0,
        "positions whose rebuilt evaluation is not the engine's: {report}"
    );
}

fn committed_manifest() -> (Manifest, Value) {
    let path = engine_dir().join("manifest.json");
    let m = Manifest::load(&path).unwrap();
    let json = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    (m, json)
}

#[test]
#[ignore = "needs ../shared/engines (the Ethereal snapshot) and cc: cargo test -- --include-ignored"]
fn the_patch_applies_builds_and_answers_the_committed_manifest() {
    let Some(exe) = engine() else { return };
    let (m, json) = committed_manifest();
    assert_eq!(m.element_count(), 904, "Ethereal's tuner has 904 terms");
    let input = tcec_positions(10);
    let got = work_dir().join("engine-manifest.json");
    let ran = run(&[
        "trace",
        arg(&input),
        "--engine",
        arg(exe),
        "-o",
        arg(&work_dir().join("ten.txt")),
        "--manifest-out",
        arg(&got),
    ]);
    assert_eq!(ran.code, Some(0), "tune trace failed: {}", ran.stderr);
    let engine: Value = serde_json::from_str(&std::fs::read_to_string(&got).unwrap()).unwrap();
    assert_eq!(
        engine, json,
        "the engine's `manifest` is not engines/ethereal/manifest.json"
    );
}

#[test]
#[ignore = "needs ../shared/engines (the Ethereal snapshot), ../shared/data and cc: cargo test -- --include-ignored"]
fn traces_match_ethereals_evaluation_on_100k_tcec_positions() {
    let Some(exe) = engine() else { return };
    let (m, _) = committed_manifest();
    let input = tcec_positions(100_000);
    let out = work_dir().join("100k.txt");
    let traces = trace(arg(exe), &input, &out, &m);
    assert_eq!(traces.len(), 100_000);
    check(&traces, &m, &m.initial_weights());
    // And `tune verify` itself, at its default tolerance of 1 cp: it passes (status 0).
    let manifest = engine_dir().join("manifest.json");
    let ran = run(&["verify", "--trace", arg(&out), "--manifest", arg(&manifest)]);
    assert_eq!(ran.code, Some(0), "tune verify failed: {}", ran.stdout);
    assert!(
        ran.stdout.contains("100000 positions compared")
            && ran.stdout.contains("all match within 1 after rounding"),
        "{}",
        ran.stdout
    );
}

/// The committed manifest with some weights of every kind changed (linear, safety,
/// complexity), written to `path`; and the same changes as spin options (`NAME value V`).
fn changed_weights(json: &Value, path: &Path) -> (Value, Vec<String>) {
    let mut w = json.clone();
    let mut spins = Vec::new();
    let params = w["params"].as_array_mut().unwrap();
    let mut set = |name: &str, at: &[usize], phase: usize, delta: i64| {
        let p = params.iter_mut().find(|p| p["name"] == name).unwrap();
        let mut v = &mut p["value"];
        for &i in at {
            v = &mut v[i];
        }
        let new = v[phase].as_i64().unwrap() + delta;
        v[phase] = Value::from(new);
        let index: String = at.iter().map(|i| format!("_{i}")).collect();
        let half = ["mg", "eg"][phase];
        spins.push(format!("{name}{index}_{half} value {new}"));
    };
    set("PawnValue", &[], 0, 40);
    set("KnightMobility", &[4], 1, -30);
    set("KingShelter", &[1, 6, 1], 0, 25);
    set("SafetyAttackValue", &[], 0, 30);
    set("SafetyShelter", &[0, 2], 1, -15);
    set("ComplexityAdjustment", &[], 1, -60);
    std::fs::write(path, serde_json::to_string_pretty(&w).unwrap()).unwrap();
    (w, spins)
}

#[test]
#[ignore = "needs ../shared/engines (the Ethereal snapshot), ../shared/data and cc: cargo test -- --include-ignored"]
fn weights_set_at_run_time_give_the_manifests_evaluation() {
    let Some(exe) = engine() else { return };
    let (m, json) = committed_manifest();
    let input = tcec_positions(20_000);
    let path = work_dir().join("changed.json");
    let (changed, spins) = changed_weights(&json, &path);
    // The engine is told its weights before the positions: by the file option in one
    // engine, by the same changes as spin options (gradtune's option names) in another.
    let by_file = format!(
        "sh -c '(echo \"setoption name GradtuneWeights value {}\"; cat) | {}'",
        path.display(),
        exe.display()
    );
    let echo: Vec<String> = spins
        .iter()
        .map(|s| format!("echo \"setoption name {s}\";"))
        .collect();
    let by_spins = format!("sh -c '({} cat) | {}'", echo.join(" "), exe.display());
    let shipped = trace(arg(exe), &input, &work_dir().join("shipped.txt"), &m);
    for (how, engine) in [("GradtuneWeights", by_file), ("spin options", by_spins)] {
        let out = work_dir().join(format!("changed-{}.txt", how.replace(' ', "-")));
        let traces = trace(&engine, &input, &out, &m);
        let moved = traces
            .iter()
            .zip(&shipped)
            .filter(|(a, b)| a.eval != b.eval)
            .count();
        assert!(
            moved * 2 > traces.len(),
            "{how}: only {moved} of {} evaluations changed with the changed weights",
            traces.len()
        );
        let w = Manifest::from_json(&changed.to_string(), "changed.json").unwrap();
        check(&traces, &m, &w.initial_weights());
    }
}

/// The snapshot, unpatched, unpacked into `dir` with `evaluate.c` passed through `edit`, built
/// with `make basic` into `dir/exe`: `bench`'s total node count.
fn bench_of_snapshot(dir: &Path, edit: impl FnOnce(String) -> String) -> u64 {
    let unpacked = Command::new("tar")
        .arg("--zstd")
        .arg("-xf")
        .arg(snapshot())
        .arg("-C")
        .arg(dir)
        .status()
        .expect("tar runs");
    assert!(unpacked.success(), "cannot unpack {}", snapshot().display());
    let src = dir.join("Ethereal/src");
    let eval = src.join("evaluate.c");
    let text = std::fs::read_to_string(&eval).unwrap();
    std::fs::write(&eval, edit(text)).unwrap();
    let exe = dir.join("exe");
    let built = Command::new("make")
        .arg("-C")
        .arg(&src)
        .args(["basic", "CC=cc"])
        .arg(format!("EXE={}", exe.display()))
        .output()
        .expect("make runs");
    let said = String::from_utf8_lossy(&built.stderr);
    assert!(built.status.success(), "Ethereal does not build: {said}");
    let out = Command::new(&exe)
        .arg("bench")
        .output()
        .expect("Ethereal runs");
    let said = String::from_utf8_lossy(&out.stdout);
    let line = said
        .lines()
        .find(|l| l.starts_with("OVERALL:"))
        .unwrap_or_else(|| panic!("bench printed no OVERALL line: {said}"));
    let nodes = line.split_whitespace().nth(1).and_then(|n| n.parse().ok());
    nodes.unwrap_or_else(|| panic!("cannot read the nodes of `{line}`"))
}

#[test]
#[ignore = "needs ../shared/engines: emitted weights replace Ethereal's own in its source"]
fn emitted_weights_drop_into_ethereals_source_in_place() {
    if !have_all(&["cc", "make"], "this test builds Ethereal") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let emitted = dir.path().join("weights.c");
    let r = run(&[
        "emit",
        arg(&engine_dir().join("manifest.json")),
        "--template",
        arg(&engine_dir().join("emit.c.jinja")),
        "-o",
        arg(&emitted),
    ]);
    assert_eq!(r.code, Some(0), "tune emit failed: {}", r.stderr);
    let block = std::fs::read_to_string(&emitted).unwrap();
    let (shipped, spliced) = (dir.path().join("shipped"), dir.path().join("spliced"));
    std::fs::create_dir_all(&shipped).unwrap();
    std::fs::create_dir_all(&spliced).unwrap();
    let want = bench_of_snapshot(&shipped, |text| text);
    // The block from `PawnValue` to `ComplexityAdjustment`, replaced by the emitted text, as
    // an author pastes it.
    let got = bench_of_snapshot(&spliced, |text| {
        splice(
            &text,
            "const int PawnValue",
            "const int ComplexityAdjustment",
            &block,
        )
    });
    // The shipped weights, emitted and compiled in Ethereal's own layout, search the same tree.
    assert_eq!(got, want);
}
