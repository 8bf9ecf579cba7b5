//! The tuning subcommands run end to end: the files written, a resume, the re-resolution
//! reports and the `--verify` match.

use super::*;
use clap::Parser;
use std::path::Path;

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    args: TuneArgs,
}

/// The repository's copy of the shared 1,000 quiet positions (`fixtures/`).
fn quiet_1k() -> PathBuf {
    let p = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/quiet-labeled-1k.epd"
    ));
    assert!(p.is_file(), "fixture {} is missing", p.display());
    p
}

/// The arguments of a quick run (5 iterations unless `extra` says otherwise, on the quiet
/// 1k positions, writing to `out`), then `extra`.
fn quick_args(out: &Path, extra: &[&str]) -> TuneArgs {
    let mut v = vec![
        "tune".to_string(),
        "--data".to_string(),
        quiet_1k().display().to_string(),
        "--out".to_string(),
        out.display().to_string(),
        "--quiet".to_string(),
    ];
    if !extra.contains(&"--max-iters") {
        v.extend(["--max-iters".to_string(), "5".to_string()]);
    }
    v.extend(extra.iter().map(|s| s.to_string()));
    Cli::parse_from(v).args
}

/// A run writes every file it promises, and `--resume` continues from them.
#[test]
fn run_writes_its_files_and_resumes() {
    let out = std::env::temp_dir().join(format!("tune-run-{}", std::process::id()));
    let argv = |extra: &[&str]| quick_args(&out, extra);
    run(optim::Method::GaussNewton, argv(&["--emit", "c"])).unwrap();
    for f in [
        "weights.h",
        "weights.json",
        "weights-int.json",
        "tables.txt",
        "weights.rs",
        "log.jsonl",
        "summary.json",
    ] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    let lines = |p: &Path| std::fs::read_to_string(p).unwrap().lines().count();
    let before = lines(&out.join("log.jsonl"));
    assert!(before >= 2, "the start and at least one iteration");
    run(optim::Method::Lbfgs, argv(&["--resume"])).unwrap();
    assert!(lines(&out.join("log.jsonl")) > before);
    std::fs::remove_dir_all(&out).ok();
}

/// `--resolve-every` needs `--leaf qsearch`, and a resolving run reports its
/// re-resolutions in the summary and the log.
#[test]
fn resolve_every_reports_resolutions() {
    let out = std::env::temp_dir().join(format!("tune-resolve-{}", std::process::id()));
    let argv = |extra: &[&str]| {
        let mut all = vec!["--resolve-every", "2"];
        all.extend_from_slice(extra);
        quick_args(&out, &all)
    };
    let e = run(optim::Method::Lbfgs, argv(&[])).expect_err("static leaves");
    assert!(e.to_string().contains("--leaf qsearch"), "{e}");
    run(optim::Method::Lbfgs, argv(&["--leaf", "qsearch"])).unwrap();
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let res = summary["resolutions"].as_array().expect("resolutions");
    assert!(!res.is_empty(), "no re-resolution");
    assert_eq!(res[0]["iter"].as_u64(), Some(2));
    assert!(res[0]["train_changed"].is_u64() && res[0]["valid_changed"].is_u64());
    let log = std::fs::read_to_string(out.join("log.jsonl")).unwrap();
    let events = log
        .lines()
        .filter(|l| l.contains("\"event\":\"resolve\""))
        .count();
    assert_eq!(events, res.len());
    std::fs::remove_dir_all(&out).ok();
}

/// `--verify` plays the kept weights against the start (and `--reference`) and writes
/// both matches into summary.json.
#[test]
fn verify_writes_the_match_into_the_summary() {
    let out = std::env::temp_dir().join(format!("tune-verify-{}", std::process::id()));
    // Any psqt weights do as the reference: a generation the repository carries.
    let reference = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/bootstrap-defaults-gen16.json"
    ));
    let reference = reference.display().to_string();
    let args = quick_args(
        &out,
        &[
            "--max-iters",
            "3",
            "--verify",
            "2",
            "--verify-nodes",
            "300",
            "--reference",
            &reference,
        ],
    );
    run(optim::Method::Lbfgs, args).unwrap();
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    for (key, opponent) in [
        ("verify", "start"),
        ("verify_reference", reference.as_str()),
    ] {
        let v = &summary[key];
        assert_eq!(v["opponent"].as_str(), Some(opponent), "{key}: {v}");
        assert_eq!(v["openings"].as_u64(), Some(2));
        assert_eq!(v["games"].as_u64(), Some(4));
        assert_eq!(v["nodes"].as_u64(), Some(300));
        let wdl: u64 = ["wins", "draws", "losses"]
            .iter()
            .map(|k| v[k].as_u64().unwrap())
            .sum();
        assert_eq!(wdl, 4);
        let pairs: u64 = v["pairs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_u64().unwrap())
            .sum();
        assert_eq!(pairs, 2);
        assert!(v.get("elo").is_some() && v.get("interval").is_some());
    }
    assert!(summary["method"].is_string(), "the run's summary is kept");
    std::fs::remove_dir_all(&out).ok();
}

/// The options of the built-in source cannot be given with traces: the command line's types
/// refuse them (a traced run's options have no field for them), with clap's error naming both.
#[test]
fn a_traced_run_takes_none_of_the_built_in_sources_options() {
    let traced = ["tune", "--trace", "t.txt", "--manifest", "m.json"];
    for extra in [
        &["--model", "full"][..],
        &["--data", "x.epd"],
        &["--leaf", "qsearch"],
        &["--resolve-every", "5"],
    ] {
        let argv = traced.iter().chain(extra);
        let Err(e) = Cli::try_parse_from(argv) else {
            panic!("{extra:?} was taken with --trace");
        };
        assert_eq!(
            e.kind(),
            clap::error::ErrorKind::ArgumentConflict,
            "{extra:?}: {e}"
        );
        let text = e.to_string();
        assert!(
            text.contains(extra[0]) && text.contains("--manifest"),
            "{text}"
        );
    }
    // Each is taken without traces, and the traces alone are taken.
    assert!(Cli::try_parse_from(traced).is_ok());
    let builtin = [
        "tune", "--model", "full", "--data", "x.epd", "--leaf", "qsearch",
    ];
    assert!(Cli::try_parse_from(builtin).is_ok());
}
