//! `tune spsa`: a run writes its state, weights and final check; a resumed run equals one that
//! ran through; another run's settings are refused by name; Ctrl-C keeps the last state; an
//! external engine is tuned through its spin options (the C fixture; skipped without `cc`).

use crate::common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::{arg, compile_fixture, gradtune_uci, run, signal, tune, wait_for_sigint_handler};
use serde_json::Value;

/// A small run of material only: `iterations` of one pair at 300 nodes, gains given (so that
/// runs of other lengths share them), and a check of one opening.
fn small(out: &Path, iterations: &str, extra: &[&str]) -> common::Ran {
    let mut args = vec![
        "spsa",
        "default",
        "--out",
        arg(out),
        "--iterations",
        iterations,
        "--pairs",
        "1",
        "--nodes",
        "300",
        "--a",
        "6",
        "--big-a",
        "1",
        "--c",
        "20",
        "--only",
        "material.*",
        "--check-openings",
        "1",
        "--threads",
        "2",
    ];
    args.extend_from_slice(extra);
    run(&args)
}

fn state(out: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("state.json")).unwrap()).unwrap()
}

#[test]
fn a_run_resumes_exactly_and_checks_its_result() {
    let dir = tempfile::tempdir().unwrap();
    let (whole, part) = (dir.path().join("whole"), dir.path().join("part"));
    let r = small(&whole, "4", &[]);
    assert_eq!(r.code, Some(0), "{r:?}");
    assert!(
        r.stdout.contains("4 of 4 iterations, 8 games"),
        "{}",
        r.stdout
    );
    // The final check: the result against its start, one opening both ways.
    let check: Value =
        serde_json::from_str(&std::fs::read_to_string(whole.join("check.json")).unwrap()).unwrap();
    assert_eq!(check["games"], 2);
    // The weights are a model's weights file.
    let (model, _) = eval::load_weights(&whole.join("weights.json")).unwrap();
    assert_eq!(model.kind(), eval::ModelKind::Psqt);

    // Two iterations, then the same run asked for four: it resumes at the third.
    assert_eq!(small(&part, "2", &[]).code, Some(0));
    assert_eq!(state(&part)["state"]["iteration"], 2);
    let r = small(&part, "4", &[]);
    assert_eq!(r.code, Some(0), "{r:?}");
    assert!(r.stderr.contains("resuming"), "{}", r.stderr);
    assert_eq!(state(&part)["state"], state(&whole)["state"]);
    assert_eq!(
        std::fs::read(part.join("weights.json")).unwrap(),
        std::fs::read(whole.join("weights.json")).unwrap()
    );
    // Asked again, a finished run plays nothing more: its check is kept.
    let r = small(&whole, "4", &[]);
    assert!(
        r.stdout.contains("the run was finished before"),
        "{}",
        r.stdout
    );
    // The games moved the piece values.
    let x = state(&whole)["state"]["x"].as_array().unwrap().clone();
    assert!(x.iter().any(|v| v.as_f64() != Some(0.0)), "{x:?}");
}

#[test]
fn another_runs_state_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    assert_eq!(small(&out, "1", &[]).code, Some(0));
    let before = std::fs::read(out.join("state.json")).unwrap();
    let r = small(&out, "2", &["--seed", "9"]);
    assert_ne!(r.code, Some(0));
    assert!(r.stderr.contains("another `seed` (`1`)"), "{}", r.stderr);
    let r = small(&out, "2", &["--opening-plies", "6"]);
    assert!(r.stderr.contains("another `openings`"), "{}", r.stderr);
    assert_eq!(std::fs::read(out.join("state.json")).unwrap(), before);
}

#[test]
fn bad_options_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let r = run(&["spsa", "default", "--out", arg(&out), "--c", "0"]);
    assert!(r.stderr.contains("--c must be a positive"), "{}", r.stderr);
    let r = run(&["spsa", "default", "--out", arg(&out), "--only", "nothing.*"]);
    assert!(r.stderr.contains("no coordinate to tune"), "{}", r.stderr);
    let r = small(&out, "1", &["--alpha", "5"]);
    assert!(r.stderr.contains("alpha"), "{}", r.stderr);
    // gradtune-uci declares Hash (not a tunable) and no other spin option.
    let uci = format!("uci:{}", gradtune_uci().display());
    let r = run(&["spsa", &uci, "--out", arg(&out)]);
    assert!(
        r.stderr.contains("declares no spin option to tune"),
        "{}",
        r.stderr
    );
    let r = run(&[
        "spsa",
        "default",
        "--out",
        arg(&out),
        "--manifest",
        "m.json",
    ]);
    assert!(r.stderr.contains("for a `uci:CMD` start"), "{}", r.stderr);
}

#[test]
fn ctrl_c_keeps_the_last_state() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let child = tune()
        .args([
            "spsa",
            "default",
            "--out",
            arg(&out),
            "--iterations",
            "100000",
            "--pairs",
            "1",
            "--nodes",
            "300",
            "--only",
            "material.*",
            "--threads",
            "1",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    assert!(wait_for_sigint_handler(child.id(), Duration::from_secs(30)));
    let deadline = Instant::now() + Duration::from_secs(60);
    while !out.join("state.json").exists() {
        assert!(Instant::now() < deadline, "no state written");
        std::thread::sleep(Duration::from_millis(20));
    }
    signal(child.id(), "INT");
    let done = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&done.stdout);
    assert_eq!(done.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("interrupted: rerun the same command"),
        "{stdout}"
    );
    let s = state(&out);
    let k = s["state"]["iteration"].as_u64().unwrap();
    assert!(k >= 1);
    assert_eq!(s["state"]["results"].as_array().unwrap().len() as u64, k);
    assert!(
        !out.join("check.json").exists(),
        "no check after an interrupt"
    );
}

#[test]
fn an_engine_is_tuned_through_its_spin_options() {
    let dir = tempfile::tempdir().unwrap();
    let Some(exe) = compile_fixture(dir.path()) else {
        return;
    };
    let engine = format!("uci:{}", exe.display());
    let (plain, traced) = (dir.path().join("plain"), dir.path().join("traced"));
    let common = [
        "--iterations",
        "2",
        "--pairs",
        "1",
        "--nodes",
        "300",
        "--check-openings",
        "1",
    ];
    // Every spin option it declares, one coordinate each.
    let mut args = vec!["spsa", engine.as_str(), "--out", arg(&plain)];
    args.extend_from_slice(&common);
    let r = run(&args);
    assert_eq!(r.code, Some(0), "{r:?}");
    let w: Value =
        serde_json::from_str(&std::fs::read_to_string(plain.join("weights.json")).unwrap())
            .unwrap();
    let options = w["options"].as_object().unwrap();
    assert!(options.contains_key("material_1_mg"), "{options:?}");
    assert!(
        r.stderr.contains(&format!(
            "{} coordinates over {} tunables",
            options.len(),
            options.len()
        )),
        "{}",
        r.stderr
    );

    // Its manifest's weights: the result is the manifest with the tuned values.
    let out = std::process::Command::new(&exe)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let answer = {
        use std::io::Write;
        let mut out = out;
        writeln!(out.stdin.as_mut().unwrap(), "manifest\nquit").unwrap();
        out.wait_with_output().unwrap()
    };
    let text = String::from_utf8_lossy(&answer.stdout);
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("manifest "))
        .unwrap();
    let manifest = dir.path().join("manifest.json");
    std::fs::write(&manifest, line).unwrap();
    let mut args = vec![
        "spsa",
        engine.as_str(),
        "--out",
        arg(&traced),
        "--manifest",
        arg(&manifest),
        "--basis",
        "tables",
        "--only",
        "material*",
    ];
    args.extend_from_slice(&common);
    let r = run(&args);
    assert_eq!(r.code, Some(0), "{r:?}");
    let tuned = trace::Manifest::load(&traced.join("weights.json")).unwrap();
    let start = trace::Manifest::load(&manifest).unwrap();
    assert_eq!(tuned.weights().len(), start.weights().len());
    // Only material moved.
    for (a, b) in tuned.weights().iter().zip(start.weights()) {
        if !a.name.starts_with("material") {
            assert_eq!(a.init, b.init, "{}", a.name);
        }
    }
    let per_weight = state(&traced)["settings"]["perturbations"].clone();
    assert!(
        per_weight.as_array().unwrap().iter().all(|c| c == 20.0),
        "{per_weight}"
    );

    // With its traces, the perturbations in evaluation units: each c_j = 2 / activity, so
    // no longer the same 20 for all: the king's value never changes an evaluation (one a
    // side) and gets the ceiling, 2 / 0.1; the pawn's, often a count difference, less.
    let traces = dir.path().join("traces.txt");
    let epd = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/quiet-labeled-1k.epd"
    );
    let r = run(&[
        "trace",
        "--engine",
        arg(&exe),
        epd,
        "-o",
        arg(&traces),
        "--jobs",
        "2",
    ]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let calibrated = dir.path().join("calibrated");
    args[3] = arg(&calibrated);
    args.extend_from_slice(&["--trace", arg(&traces)]);
    let r = run(&args);
    assert_eq!(r.code, Some(0), "{r:?}");
    assert!(
        r.stderr
            .contains("perturbations calibrated on 1000 positions"),
        "{}",
        r.stderr
    );
    let settings = state(&calibrated)["settings"].clone();
    let named = |name: &str| {
        let at = settings["coordinates"]
            .as_array()
            .unwrap()
            .iter()
            .position(|c| c == name);
        settings["perturbations"][at.unwrap()].as_f64().unwrap()
    };
    let (pawn, king) = (named("material_0_mg"), named("material_5_mg"));
    assert_eq!(king, 20.0, "{settings}");
    assert!(pawn < 10.0, "{settings}");
    // A traced engine's coordinates only.
    let r = run(&[
        "spsa",
        "default",
        "--out",
        arg(&calibrated),
        "--trace",
        arg(&traces),
    ]);
    assert_ne!(r.code, Some(0));
}
