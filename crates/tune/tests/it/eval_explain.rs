//! `tune eval` and `tune explain` through the real binary on the 1,000 quiet positions of the fixtures.

use crate::common;

use std::path::{Path, PathBuf};

use common::{arg, fixture, run, Ran};
use serde_json::Value;

/// Weights away from the defaults (the defaults' piece-square tables are flat), written into
/// `dir`.
fn weights(dir: &Path) -> PathBuf {
    let model = eval::Model::new(eval::ModelKind::Psqt);
    let w: Vec<f64> = model
        .params()
        .iter()
        .enumerate()
        .map(|(i, p)| p.init + ((i * 37) % 23) as f64 - 11.0)
        .collect();
    let path = dir.join("w.json");
    eval::save_weights(&path, &model, &w).expect("weights written");
    path
}

/// `tune COMMAND WEIGHTS --data DATA EXTRA...`.
fn on(command: &str, w: &Path, data: &Path, extra: &[&str]) -> Ran {
    let mut args = vec![command, arg(w), "--data", arg(data)];
    args.extend_from_slice(extra);
    run(&args)
}

fn ok(r: &Ran, what: &str) -> Value {
    assert_eq!(r.code, Some(0), "{what}: {}{}", r.stdout, r.stderr);
    serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{what}: {e}: {}", r.stdout))
}

fn positions() -> usize {
    let (s, _) = data::load(
        &fixture("quiet-labeled-1k.epd"),
        &data::LoadOptions::default(),
    )
    .expect("the EPD fixture loads");
    s.len()
}

#[test]
fn eval_reports_losses_calibration_and_groups() {
    let dir = tempfile::tempdir().unwrap();
    let w = weights(dir.path());
    let data = fixture("quiet-labeled-1k.epd");
    let n = positions();
    let j = ok(
        &run(&[
            "eval",
            arg(&w),
            "--data",
            arg(&data),
            "--json",
            "--k",
            "1.1",
        ]),
        "eval --json",
    );
    assert_eq!(j["positions"].as_u64(), Some(n as u64));
    assert_eq!(j["model"], "psqt");
    let fitted = &j["fitted"];
    let given = &j["given"];
    assert_eq!(given["k"].as_f64(), Some(1.1));
    assert!(fitted["k"].as_f64().unwrap() > 0.0);
    // The fitted K minimises the squared error.
    assert!(fitted["mse"].as_f64().unwrap() <= given["mse"].as_f64().unwrap());
    for key in ["calibration", "by_phase", "by_imbalance"] {
        let total: u64 = j[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["positions"].as_u64().unwrap())
            .sum();
        assert_eq!(total, n as u64, "{key}");
    }
    // 50 cp bins up to +-600 and one open bin at each end.
    assert_eq!(j["calibration"].as_array().unwrap().len(), 26);
    // No file is written unless asked for.
    let files = || std::fs::read_dir(dir.path()).unwrap().count();
    assert_eq!(files(), 1);

    let plot = dir.path().join("cal.svg");
    let r = run(&["eval", arg(&w), "--data", arg(&data), "--plot", arg(&plot)]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    for text in [
        "calibration at K",
        "by game phase",
        "by material balance",
        "fitted K",
    ] {
        assert!(r.stdout.contains(text), "{text:?} in\n{}", r.stdout);
    }
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(svg.starts_with("<svg"), "{svg:.80}");
    assert_eq!(files(), 2);
}

#[test]
fn explain_lists_a_parameters_positions_and_the_residuals() {
    let dir = tempfile::tempdir().unwrap();
    let w = weights(dir.path());
    let data = fixture("quiet-labeled-1k.epd");
    let name = "pst.knight.mg.f3";
    let e = ok(
        &on(
            "explain",
            &w,
            &data,
            &["--param", name, "--top", "7", "--json"],
        ),
        "explain --param",
    );
    let params = e["params"].as_array().unwrap();
    assert_eq!(params.len(), 1);
    let p = &params[0];
    assert_eq!(p["name"], name);
    let touched = p["touched"].as_u64().unwrap();
    let listed = p["positions"].as_array().unwrap();
    assert_eq!(listed.len() as u64, touched.min(7), "{p}");
    let mut last = f64::INFINITY;
    for x in listed {
        assert_ne!(x["coefficient"].as_f64().unwrap(), 0.0);
        let c = x["contribution"].as_f64().unwrap().abs();
        assert!(c <= last, "ordered by |contribution|");
        last = c;
        assert!(x["fen"].as_str().unwrap().contains(' '));
    }

    let e = ok(
        &on("explain", &w, &data, &["--top", "4", "--json"]),
        "explain",
    );
    assert_eq!(e["params"].as_array().unwrap().len(), 4);
    for p in e["params"].as_array().unwrap() {
        assert!(p["odd"]["z"].as_f64().is_some(), "{p}");
        assert!(p["positions"].as_array().unwrap().len() <= 3);
    }
    let r = e["residuals"].as_array().unwrap();
    assert_eq!(r.len(), 15);
    let c: Vec<f64> = r
        .iter()
        .map(|x| x["correlation"].as_f64().unwrap().abs())
        .collect();
    assert!(c.windows(2).all(|p| p[0] >= p[1]), "{c:?}");
    assert!(!r[0]["buckets"].as_array().unwrap().is_empty());

    let text = run(&["explain", arg(&w), "--data", arg(&data), "--top", "2"]);
    assert_eq!(text.code, Some(0), "{}", text.stderr);
    for want in [
        "parameters most out of line",
        "residuals (result - sigma(q))",
    ] {
        assert!(text.stdout.contains(want), "{want:?} in\n{}", text.stdout);
    }
}

#[test]
fn bad_inputs_are_errors_naming_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let w = weights(dir.path());
    let data = fixture("quiet-labeled-1k.epd");
    let missing = dir.path().join("missing.json");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["eval", arg(&missing), "--data", arg(&data)],
            "missing.json",
        ),
        (
            vec![
                "explain",
                arg(&w),
                "--data",
                arg(&data),
                "--param",
                "pst.nope",
            ],
            "pst.nope",
        ),
        (
            vec!["eval", arg(&w), "--data", arg(&data), "--k=0"],
            "K must be positive",
        ),
    ];
    for (args, want) in cases {
        let r = run(&args);
        assert_eq!(r.code, Some(1), "{args:?}: {}", r.stderr);
        assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
        assert!(r.stderr.contains(want), "{want:?} in {}", r.stderr);
    }
    let r = run(&["eval", arg(&missing), "--data", arg(&data)]);
    assert_eq!(
        r.stderr.matches("missing.json").count(),
        1,
        "the file named once: {}",
        r.stderr
    );
}
