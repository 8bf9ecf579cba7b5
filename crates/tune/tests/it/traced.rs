//! An engine's traced evaluation through the real `tune` binary: `tune verify` passes and
//! fails (exit status), tuning refuses traces that fail verification unless
//! `--no-verify-traces`, every optimiser runs on a trace set and writes the manifest back,
//! `compare`, `eval` and `explain` take traces, and a mismatched trace is named before any
//! tuning.

use crate::common;

use crate::fixture;

use std::path::Path;

use common::{arg, run, Ran};
use fixture::{write, Fixture, Kind};

/// `tune ARGS... --trace TRACES --manifest M` on `f`.
fn on(f: &Fixture, args: &[&str]) -> Ran {
    let mut all = args.to_vec();
    all.extend(["--trace", arg(&f.traces), "--manifest", arg(&f.manifest)]);
    run(&all)
}

/// `method` on the fixture for two iterations into `out`, quietly, with `extra` arguments.
fn two_iters(f: &Fixture, method: &str, out: &Path, extra: &[&str]) -> Ran {
    let mut args = vec![method, "--out", arg(out), "--quiet", "--max-iters", "2"];
    args.extend_from_slice(extra);
    on(f, &args)
}

fn ok(r: &Ran, what: &str) {
    assert_eq!(r.code, Some(0), "{what}:\n{}\n{}", r.stdout, r.stderr);
}

#[test]
fn verify_passes_and_fails_and_tuning_refuses_failing_traces() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), Kind::Linear, 300, 11, None);
    let r = on(&f, &["verify"]);
    ok(&r, "verify");
    assert!(r.stdout.contains("300 positions compared"), "{}", r.stdout);
    // The traces kept come first, then the report.
    let kept = r.stdout.find("300 traces kept").expect("the traces kept");
    assert!(
        kept < r.stdout.find("positions compared").unwrap(),
        "{}",
        r.stdout
    );
    // At the true weights the engine's evaluations (made at the start values) differ.
    let r = on(&f, &["verify", "--weights", arg(&f.truth_manifest)]);
    assert_eq!(r.code, Some(1), "{}{}", r.stdout, r.stderr);
    fixture::negate_black(&f.traces);
    let r = on(&f, &["verify"]);
    assert_eq!(r.code, Some(1), "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains("differ from the engine's own evaluation"),
        "{}",
        r.stderr
    );
    let out = dir.path().join("refused");
    let r = two_iters(&f, "lbfgs", &out, &[]);
    assert_eq!(r.code, Some(1), "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("fail verification"), "{}", r.stderr);
    assert!(
        r.stderr.contains("worst"),
        "the worst position is named: {}",
        r.stderr
    );
    assert!(r.stderr.contains("--no-verify-traces"), "{}", r.stderr);
    assert!(!out.join("weights.json").exists(), "nothing tuned");
    let r = two_iters(&f, "lbfgs", &out, &["--no-verify-traces"]);
    ok(&r, "tuned anyway");
    assert!(out.join("weights.json").is_file());
    // The run ends by saying how to check its result in games.
    let play = format!(
        "tune match uci:ENGINE uci:ENGINE --weights-a {}",
        out.join("weights-int.json").display()
    );
    assert!(r.stdout.contains(&play), "{}", r.stdout);
    assert!(r.stdout.contains("A lower loss is not Elo"), "{}", r.stdout);
}

#[test]
fn every_optimiser_tunes_a_trace_set() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), Kind::NonLinear, 400, 12, None);
    for m in optim::Method::ALL {
        let out = dir.path().join(m.name());
        let r = two_iters(&f, m.name(), &out, &[]);
        ok(&r, m.name());
        assert!(
            r.stdout.contains("traced (synthetic-ks)"),
            "{m}: {}",
            r.stdout
        );
        assert!(
            r.stdout.contains("rounded"),
            "{m}: the rounding's cost: {}",
            r.stdout
        );
        // weights.json and weights-int.json are manifests again, of the same weights.
        for file in ["weights.json", "weights-int.json"] {
            let w = fixture::weights_of(&out.join(file));
            assert_eq!(w.len(), f.start.len(), "{m}: {file}");
        }
        assert!(out.join("summary.json").is_file() && out.join("log.jsonl").is_file());
    }
    // A run continues from its weights.json.
    let out = dir.path().join(optim::Method::Lbfgs.name());
    let r = two_iters(&f, "lbfgs", &out, &["--resume"]);
    ok(&r, "resume");
}

#[test]
fn compare_eval_and_explain_take_traces() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), Kind::Linear, 400, 13, None);
    let out = dir.path().join("cmp");
    let r = on(
        &f,
        &[
            "compare",
            "--methods",
            "lbfgs,adam",
            "--compare-out",
            arg(&out),
            "--quiet",
            "--max-passes",
            "5",
        ],
    );
    ok(&r, "compare");
    assert!(
        r.stdout.contains("traced (synthetic) model"),
        "{}",
        r.stdout
    );
    assert!(out.join("compare.md").is_file());
    let r = on(&f, &["eval", "--json"]);
    ok(&r, "eval");
    let j: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(j["positions"], 400);
    // At the true weights the loss is lower than at the start's.
    let r = on(&f, &["eval", arg(&f.truth_manifest), "--json", "--k", "1"]);
    ok(&r, "eval at the truth");
    let at_truth: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let mse = |v: &serde_json::Value| v["given"]["mse"].as_f64().unwrap();
    let r = on(&f, &["eval", "--json", "--k", "1"]);
    let at_start: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert!(mse(&at_truth) < mse(&at_start));
    // explain: a named weight's pull, and the report with outliers by declared neighbours.
    let r = on(&f, &["explain", "--json", "--param", "table[0][2].mg"]);
    ok(&r, "explain --param");
    let e: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let p = &e["params"][0];
    assert_eq!(p["name"], "table[0][2].mg");
    // The truth (4) is above the start (0): the data pulls it higher.
    assert_eq!(p["pulled"], "higher", "{p}");
    let r = on(&f, &["explain", "--json"]);
    ok(&r, "explain");
    let e: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert!(e["residuals"].as_array().is_some_and(|r| !r.is_empty()));
    let r = on(&f, &["explain", "--param", "no_such"]);
    assert_eq!(r.code, Some(1));
    assert!(
        r.stderr.contains("no parameter \"no_such\""),
        "{}",
        r.stderr
    );
}

#[test]
fn a_mismatched_trace_is_named_before_tuning() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), Kind::Linear, 20, 14, None);
    let mut text = std::fs::read_to_string(&f.traces).unwrap();
    text += "8/5k2/3p4/8/8/4K3/3P4/8 w - - [0.5]; phase 3; t 0:1:0 99:1:0\n";
    std::fs::write(&f.traces, &text).unwrap();
    let out = dir.path().join("run");
    let r = on(&f, &["lbfgs", "--out", arg(&out), "--quiet", "--strict"]);
    assert_eq!(r.code, Some(1), "{}{}", r.stdout, r.stderr);
    let at = format!("{}:22", f.traces.display());
    assert!(r.stderr.contains(&at), "names the line: {}", r.stderr);
    assert!(r.stderr.contains("99"), "names the index: {}", r.stderr);
    assert!(!out.join("weights.json").exists());
    // --data and --trace together are refused by the command line.
    let r = on(&f, &["lbfgs", "--data", arg(&f.traces)]);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
}

#[test]
fn extract_converts_traces_to_the_binary_cache_which_tunes_alike() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), Kind::NonLinear, 200, 15, None);
    let bin = dir.path().join("traces.bin.zst");
    let r = run(&[
        "extract",
        "--manifest",
        arg(&f.manifest),
        arg(&f.traces),
        "-o",
        arg(&bin),
    ]);
    ok(&r, "extract");
    assert!(r.stdout.contains("200 traces written"), "{}", r.stdout);
    let back = dir.path().join("back.txt");
    let r = run(&[
        "extract",
        "--manifest",
        arg(&f.manifest),
        arg(&bin),
        "-o",
        arg(&back),
    ]);
    ok(&r, "extract back to text");
    // --limit keeps the first N traces.
    let few = dir.path().join("few.txt");
    let r = run(&[
        "extract",
        "--manifest",
        arg(&f.manifest),
        arg(&f.traces),
        "--limit",
        "50",
        "-o",
        arg(&few),
    ]);
    ok(&r, "extract --limit");
    assert!(r.stdout.contains("50 traces written"), "{}", r.stdout);
    assert!(
        r.stderr.contains("keeping the first 50 of 200"),
        "{}",
        r.stderr
    );
    let kept = std::fs::read_to_string(&few).unwrap();
    assert_eq!(kept.lines().filter(|l| !l.starts_with('#')).count(), 50);
    // The binary cache and the text give the same run, to the last digit.
    let losses = |traces: &Path, out: &Path| -> serde_json::Value {
        let r = run(&[
            "gauss-newton",
            "--trace",
            arg(traces),
            "--manifest",
            arg(&f.manifest),
            "--out",
            arg(out),
            "--quiet",
            "--max-iters",
            "3",
        ]);
        ok(&r, "tune");
        let s = std::fs::read_to_string(out.join("summary.json")).unwrap();
        let s: serde_json::Value = serde_json::from_str(&s).unwrap();
        s["train_loss"].clone()
    };
    let a = losses(&f.traces, &dir.path().join("a"));
    let b = losses(&bin, &dir.path().join("b"));
    let c = losses(&back, &dir.path().join("c"));
    assert_eq!(a, b);
    assert_eq!(a, c);
}

#[test]
fn bench_measures_psqt_as_traces_beside_psqt() {
    let r = run(&[
        "bench",
        "--data",
        arg(&common::default_data()),
        "--positions",
        "3000",
        "--passes",
        "1",
        "--model",
        "psqt",
        "--no-lbfgs",
        "--traced",
    ]);
    ok(&r, "bench --traced");
    let j: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let (p, t) = (&j["psqt"], &j["psqt_as_traces"]);
    // The same positions, the same split, the same evaluation: the same K and start loss.
    for key in ["train_positions", "valid_positions"] {
        assert_eq!(p[key], t[key], "{key}");
    }
    for key in ["k", "start_train_loss"] {
        let (a, b) = (p[key].as_f64().unwrap(), t[key].as_f64().unwrap());
        assert!(
            (a - b).abs() <= 1e-9 * a.abs(),
            "{key}: psqt {a}, traces {b}"
        );
    }
    // Every traced position in the compact phased store, as psqt's, in as many bytes.
    assert_eq!(t["phased_positions"], t["train_positions"]);
    assert_eq!(t["bytes_per_position"], p["bytes_per_position"]);
    // The passes timed alternately are reported (their ratio is the machine's to judge).
    let ratio = &j["traced_vs_psqt"]["traced_speed_relative_to_psqt"];
    assert!(
        ratio.as_f64().is_some_and(|r| r > 0.0),
        "{}",
        j["traced_vs_psqt"]
    );
}

/// `--score-k`: another engine's scores (here the traces' labels given scores at twice the
/// evaluation's scale) read at their own K, fitted on the results: the summary says which K
/// (on its text and in `summary.json`); `model` reads them at the evaluation's K and prints
/// nothing; data without scores gets a note; a K that is not positive is refused.
#[test]
fn score_k_fit_reads_another_engines_scores_at_their_own_k() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), Kind::Linear, 300, 13, None);
    let plain = std::fs::read_to_string(&f.traces).unwrap();
    let mut scored = String::new();
    for line in plain.lines() {
        match line.split_once("]; ") {
            Some((head, rest)) if !line.starts_with('#') => {
                let eval: f64 = rest
                    .split("; ")
                    .find_map(|t| t.strip_prefix("eval "))
                    .and_then(|e| e.trim_end_matches(';').parse().ok())
                    .expect("an eval field");
                let score = (2.0 * eval).round();
                scored += &format!("{head}]; score {score}; {rest}\n");
            }
            _ => scored += &format!("{line}\n"),
        }
    }
    std::fs::write(&f.traces, &scored).unwrap();
    let summary = |out: &Path| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap()
    };

    let out = dir.path().join("fit");
    let r = two_iters(&f, "lbfgs", &out, &["--lambda", "0.5", "--score-k", "fit"]);
    ok(&r, "--score-k fit");
    assert!(r.stdout.contains("scores read at K = "), "{}", r.stdout);
    let s = summary(&out);
    let (k, score_k) = (s["k"].as_f64().unwrap(), s["score_k"].as_f64().unwrap());
    // Scores at twice the scale predict the results best at about half the K.
    assert!(
        score_k > 0.3 * k && score_k < 0.7 * k,
        "K {k}, the scores' K {score_k}"
    );

    let out = dir.path().join("model");
    let r = two_iters(&f, "lbfgs", &out, &["--lambda", "0.5"]);
    ok(&r, "--score-k model");
    assert!(!r.stdout.contains("scores read at"), "{}", r.stdout);
    assert!(summary(&out)["score_k"].is_null());

    std::fs::write(&f.traces, &plain).unwrap();
    let out = dir.path().join("none");
    let r = two_iters(&f, "lbfgs", &out, &["--lambda", "0.5", "--score-k", "fit"]);
    ok(&r, "--score-k fit without scores");
    assert!(
        r.stderr
            .contains("--score-k fit: no training position has a score"),
        "{}",
        r.stderr
    );
    for bad in ["0", "-1", "x"] {
        let r = two_iters(&f, "lbfgs", &out, &[&format!("--score-k={bad}")]);
        assert_eq!(r.code, Some(2), "{bad}: {}", r.stderr);
        assert!(
            r.stderr
                .contains("expected `fit`, `model` or a positive number"),
            "{}",
            r.stderr
        );
    }
}

/// `tune verify` on a port of catalogue group `passed_pawns`: White's pawn on d5 is a passer
/// on its fifth rank (element `rank5`, trace index 3). The engine's evaluation agrees with its
/// own counts either way; only the port check sees the count one rank too high.
#[test]
fn verify_checks_a_ported_catalogue_term_against_gradtunes_counts() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("m.json");
    std::fs::write(
        &manifest,
        r#"{"format": "gradtune-manifest", "version": 1, "engine": "port", "score": "white",
  "phase": {"max": 24},
  "params": [{"name": "passed", "shape": [6], "catalogue": "passed_pawns",
              "value": [[5,10],[5,15],[10,25],[20,45],[40,80],[80,130]]}]}"#,
    )
    .unwrap();
    let traces = dir.path().join("t.txt");
    let check = |index: u32, eval: u32| {
        let line =
            format!("8/8/8/3P4/8/8/8/k6K w - - [0.5]; phase 0; eval {eval}; t {index}:1:0\n");
        std::fs::write(&traces, line).unwrap();
        run(&[
            "verify",
            "--trace",
            arg(&traces),
            "--manifest",
            arg(&manifest),
        ])
    };
    let right = check(3, 45);
    assert_eq!(right.code, Some(0), "{}{}", right.stdout, right.stderr);
    assert!(
        right
            .stdout
            .contains("port passed of catalogue group `passed_pawns`: all 1 positions agree"),
        "{}",
        right.stdout
    );
    let wrong = check(4, 80);
    assert_eq!(wrong.code, Some(1), "{}{}", wrong.stdout, wrong.stderr);
    assert!(
        wrong.stdout.contains("1 positions compared"),
        "{}",
        wrong.stdout
    );
    assert!(
        wrong.stdout.contains(
            "8/8/8/3P4/8/8/8/k6K w - - 0 1: rank5 engine White 0 Black 0, catalogue White 1 Black 0"
        ),
        "{}",
        wrong.stdout
    );
    assert!(
        wrong
            .stdout
            .contains("rank6 engine White 1 Black 0, catalogue White 0 Black 0"),
        "{}",
        wrong.stdout
    );
    assert!(
        wrong
            .stderr
            .contains("otherwise than catalogue group `passed_pawns`"),
        "{}",
        wrong.stderr
    );
}

#[test]
fn a_traced_run_reports_its_prior_and_the_wandering_weights() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), Kind::NonLinear, 400, 5, None);
    let out = dir.path().join("run");
    let r = two_iters(&f, "lbfgs", &out, &[]);
    ok(&r, "lbfgs");
    // On the terminal: the prior's line and the report, a weight a line.
    assert!(r.stdout.contains("count as 1000 positions"), "{}", r.stdout);
    assert!(r.stdout.contains("wandering"), "{}", r.stdout);
    assert!(r.stderr.contains("prior:"), "the note: {}", r.stderr);
    let text = std::fs::read_to_string(out.join("summary.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(json["prior_positions"], 1000.0);
    let rows = json["wandering"].as_array().expect("the report");
    assert!(!rows.is_empty() && rows.len() <= 10, "{rows:?}");
    let score = |r: &serde_json::Value| r["score"].as_f64().unwrap();
    assert!(rows.windows(2).all(|p| score(&p[0]) >= score(&p[1])));
    for row in rows {
        let (moved, support) = (
            row["moved"].as_f64().unwrap(),
            row["support"].as_f64().unwrap(),
        );
        assert!((score(row) - moved.abs() / (support + 1.0).sqrt()).abs() < 1e-12);
    }
    // Off, and refused when it is not a count.
    let r = two_iters(
        &f,
        "lbfgs",
        &dir.path().join("off"),
        &["--prior-positions", "0"],
    );
    ok(&r, "no prior");
    assert!(!r.stdout.contains("count as"), "{}", r.stdout);
    let r = two_iters(
        &f,
        "lbfgs",
        &dir.path().join("bad"),
        &["--prior-positions=-1"],
    );
    assert_eq!(r.code, Some(1), "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("--prior-positions"), "{}", r.stderr);
}

/// The number of passes in the summary's `polish` line (`..., N passes`), if it has one.
fn polish_passes(stdout: &str) -> Option<usize> {
    let line = stdout.lines().find(|l| l.starts_with("polish "))?;
    let (before, _) = line.split_once(" passes")?;
    before.rsplit(' ').next()?.parse().ok()
}

/// `--polish-passes 0` only rounds (the summary says there was no polish, and its rounded
/// weights are the plain rounding's); a bound N is kept (at most N passes).
#[test]
fn polish_passes_bound_the_integer_polish() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), Kind::NonLinear, 400, 5, None);
    let default = dir.path().join("default");
    let r = two_iters(&f, "lbfgs", &default, &[]);
    ok(&r, "lbfgs");
    let passes = polish_passes(&r.stdout).expect("a traced run polishes");
    assert!(passes > 0, "{}", r.stdout);

    let none = dir.path().join("none");
    let r = two_iters(&f, "lbfgs", &none, &["--polish-passes", "0"]);
    ok(&r, "lbfgs --polish-passes 0");
    assert!(
        r.stdout.contains("polish    none (a budget of 0 passes)"),
        "{}",
        r.stdout
    );
    let summary = std::fs::read_to_string(none.join("summary.json")).unwrap();
    assert!(summary.contains("\"polish_moves\": 0"), "{summary}");
    assert!(summary.contains("\"polish_passes\": 0"), "{summary}");

    for n in [1usize, 3] {
        let out = dir.path().join(format!("p{n}"));
        let r = two_iters(&f, "lbfgs", &out, &["--polish-passes", &n.to_string()]);
        ok(&r, "lbfgs --polish-passes N");
        let passes = polish_passes(&r.stdout).expect("a polish line");
        assert!(passes <= n, "{passes} > {n}:\n{}", r.stdout);
    }
}
