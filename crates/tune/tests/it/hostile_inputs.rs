//! Hostile inputs through the real `tune` binary: each gives a clear error (exit code 1,
//! `error: ...` naming the file once) or a counted skip (exit code 0, the count in the report),
//! never a panic. The inputs are made here, in a temporary directory.

use crate::common;

use std::io::Write;
use std::path::{Path, PathBuf};

use common::{arg, fixture, run, Ran};

/// What an input must give.
#[derive(Clone, Copy, Debug)]
enum Expect {
    /// Exit code 1, `error: ` and this text on stderr.
    Error(&'static str),
    /// Exit code 0 and this text in the output (stdout and stderr).
    Ok(&'static str),
}

/// Every run: no panic, and the exit code and message of `expect`.
fn check(case: &str, args: &[&str], expect: Expect) -> Ran {
    let r = run(args);
    let all = format!("{}{}", r.stdout, r.stderr);
    assert!(
        !r.stderr.contains("panicked") && r.code != Some(101),
        "{case}: `tune {}` panicked:\n{}",
        args.join(" "),
        r.stderr
    );
    // No input may make a message of megabytes (the 10 MB line must not be echoed).
    assert!(all.len() < 20_000, "{case}: {} bytes of output", all.len());
    match expect {
        Expect::Error(text) => {
            assert_eq!(r.code, Some(1), "{case}: exit code, output:\n{all}");
            assert_eq!(
                r.stderr
                    .lines()
                    .filter(|l| l.starts_with("error: "))
                    .count(),
                1,
                "{case}: one error line in:\n{}",
                r.stderr
            );
            assert!(
                r.stderr.contains(text),
                "{case}: want {text:?} in:\n{}",
                r.stderr
            );
        }
        Expect::Ok(text) => {
            assert_eq!(r.code, Some(0), "{case}: exit code, output:\n{all}");
            assert!(all.contains(text), "{case}: want {text:?} in:\n{all}");
        }
    }
    r
}

fn quiet_1k() -> Vec<u8> {
    std::fs::read(fixture("quiet-labeled-1k.epd")).expect("the EPD fixture reads")
}

/// A small PGN whose comments hold bytes that are not UTF-8.
fn pgn_with_latin1_comments() -> Vec<u8> {
    let mut v = Vec::new();
    for (i, result) in ["1-0", "0-1", "1/2-1/2"].iter().enumerate() {
        v.extend_from_slice(format!("[Event \"g{i}\"]\n[White \"M").as_bytes());
        v.push(0xfc); // Latin-1 u-umlaut
        v.extend_from_slice(format!("ller\"]\n[Result \"{result}\"]\n\n").as_bytes());
        v.extend_from_slice(
            b"1. e4 { +0.30/12 caf\xe9 } e5 { \xff\xfe\x80 } 2. Nf3 { \xc3\x28 } Nc6 3. Bb5 a6 ",
        );
        v.extend_from_slice(format!("{result}\n\n").as_bytes());
    }
    v
}

/// Deterministic pseudo-random bytes (xorshift), no `rand` needed.
fn noise(n: usize, mut x: u64) -> Vec<u8> {
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

fn zstd_of(bytes: &[u8]) -> Vec<u8> {
    zstd::bulk::compress(bytes, 3).expect("zstd compresses")
}

fn gzip_of(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).expect("gzip compresses");
    e.finish().expect("gzip finishes")
}

/// The data files of the matrix: name, content, what `tune stats` and what `tune lbfgs` give.
fn data_cases() -> Vec<(&'static str, Vec<u8>, Expect, Expect)> {
    let epd = quiet_1k();
    let half = |v: Vec<u8>| v[..v.len() / 2].to_vec();
    let mut crlf = Vec::new();
    for line in epd.split(|&b| b == b'\n') {
        crlf.extend_from_slice(line);
        crlf.extend_from_slice(b"\r\n");
    }
    let mut bom = b"\xef\xbb\xbf".to_vec();
    bom.extend_from_slice(&epd);
    // NUL bytes inside three lines: those three are counted and skipped.
    let mut nul = epd.clone();
    let mut line_starts = vec![0];
    line_starts.extend(
        epd.iter()
            .enumerate()
            .filter(|(_, &b)| b == b'\n')
            .map(|(i, _)| i + 1),
    );
    for l in [10, 20, 30].map(|i| line_starts[i]) {
        nul[l + 3] = 0;
    }
    let mut bad_version = b"GTCACHE\0".to_vec();
    bad_version.extend_from_slice(&99u32.to_le_bytes());
    bad_version.extend_from_slice(&36u32.to_le_bytes());
    bad_version.extend_from_slice(&1u64.to_le_bytes());
    bad_version.extend_from_slice(&[0u8; 36]);
    let mut short_cache = b"GTCACHE\0".to_vec();
    short_cache.extend_from_slice(&1u32.to_le_bytes());
    short_cache.extend_from_slice(&36u32.to_le_bytes());
    short_cache.extend_from_slice(&1_000_000u64.to_le_bytes());
    short_cache.extend_from_slice(&[0u8; 100]);
    use Expect::{Error, Ok};
    let no_format = "no labelled positions found";
    vec![
        (
            "empty",
            Vec::new(),
            Error("the file is empty"),
            Error("the file is empty"),
        ),
        (
            "random",
            noise(100_000, 7),
            Error(no_format),
            Error(no_format),
        ),
        (
            "truncated-zstd",
            half(zstd_of(&epd)),
            Error("zstd data truncated or corrupt"),
            Error("zstd data truncated or corrupt"),
        ),
        (
            "truncated-gzip",
            half(gzip_of(&epd)),
            Error("gzip data truncated or corrupt"),
            Error("gzip data truncated or corrupt"),
        ),
        (
            "cache-bad-version",
            bad_version,
            Error("bad binary cache"),
            Error("bad binary cache"),
        ),
        (
            "cache-truncated",
            short_cache,
            Error("bad binary cache"),
            Error("bad binary cache"),
        ),
        (
            "long-line",
            vec![b'a'; 10 << 20],
            Error(no_format),
            Error(no_format),
        ),
        (
            "nul-bytes",
            nul,
            Ok("errors:         3"),
            Ok("997 positions kept (3 errors)"),
        ),
        (
            "crlf",
            crlf,
            Ok("samples kept:   1000"),
            Ok("1000 positions kept (0 errors)"),
        ),
        (
            "bom",
            bom,
            Ok("samples kept:   1000"),
            Ok("1000 positions kept (0 errors)"),
        ),
        (
            "all-white-wins",
            b"[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n".to_vec(),
            Ok("warning: every position has the result 1-0 (7 positions)"),
            Ok("warning: every position has the result 1-0 (7 positions)"),
        ),
        (
            "pgn-latin1-comments",
            pgn_with_latin1_comments(),
            Ok("games read:     3"),
            Ok("warning: only 18 positions"),
        ),
    ]
}

#[test]
fn hostile_data_files_give_a_clear_error_or_a_counted_skip() {
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes, stats, lbfgs) in data_cases() {
        let path = dir.path().join(name);
        std::fs::write(&path, &bytes).unwrap();
        let r = check(name, &["stats", arg(&path)], stats);
        if r.code == Some(1) {
            assert_file_named_once(name, &r, &path);
        }
        let out = dir.path().join(format!("run-{name}"));
        // Every position of the PGN cases, not the default quiet ones after ply 8: the case is
        // about the bytes, and the tiny games have no ply 9.
        let every = ["--pgn-filter", "none", "--pgn-skip-plies", "0"];
        let r = check(name, &quick_lbfgs(&path, &out, &every), lbfgs);
        if r.code == Some(1) {
            assert_file_named_once(name, &r, &path);
            assert!(!out.join("weights.json").exists(), "{name}: wrote weights");
        }
    }
}

/// `tune lbfgs --data DATA --max-iters 2 --out OUT --quiet EXTRA...`.
fn quick_lbfgs<'a>(data: &'a Path, out: &'a Path, extra: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec!["lbfgs", "--data", arg(data), "--max-iters", "2"];
    v.extend(["--out", arg(out), "--quiet"]);
    v.extend_from_slice(extra);
    v
}

/// The error line names the file once (not `x: x: No such file`).
fn assert_file_named_once(case: &str, r: &Ran, path: &Path) {
    let first = r
        .stderr
        .lines()
        .find(|l| l.starts_with("error: "))
        .unwrap_or("");
    let p = path.display().to_string();
    assert_eq!(first.matches(&p).count(), 1, "{case}: {first}");
}

#[test]
fn a_missing_file_is_named_once() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("x.epd");
    let weights = dir.path().join("w.json");
    let data = fixture("quiet-labeled-1k.epd");
    let header = dir.path().join("w.h");
    let out = dir.path().join("labels.epd");
    for (args, file) in [
        (vec!["stats", arg(&missing)], &missing),
        (quick_lbfgs(&missing, dir.path(), &[]), &missing),
        (
            quick_lbfgs(&data, dir.path(), &["--weights", arg(&weights)]),
            &weights,
        ),
        (vec!["bench", "--data", arg(&missing)], &missing),
        (vec!["emit", arg(&weights), "-o", arg(&header)], &weights),
        (vec!["match", arg(&weights), "default"], &weights),
        (
            vec!["match", "default", "default", "--epd", arg(&missing)],
            &missing,
        ),
        (
            vec![
                "label",
                arg(&missing),
                "--engine",
                "x",
                "--depth",
                "1",
                "-o",
                arg(&out),
            ],
            &missing,
        ),
    ] {
        let r = check("missing", &args, Expect::Error("No such file"));
        assert_file_named_once("missing", &r, file);
    }
}

/// Weights files with NaN, infinities, nulls and huge values: refused by name, never a panic.
#[test]
fn hostile_weights_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let data = fixture("quiet-labeled-1k.epd");
    let model = eval::Model::new(eval::ModelKind::Psqt);
    let good = eval::weights_to_json(&model, &model.default_weights());
    let with = |value: &str| {
        good.replace(
            "\"material.pawn.mg\": 100.0",
            &format!("\"material.pawn.mg\": {value}"),
        )
    };
    let cases: Vec<(&str, String, &str)> = vec![
        ("nan", with("NaN"), "invalid weights JSON"),
        ("inf", with("Infinity"), "invalid weights JSON"),
        ("overflow", with("1e999"), "invalid weights JSON"),
        ("null", with("null"), "material.pawn.mg = null"),
        ("huge", with("1e300"), "material.pawn.mg = 1e+300"),
        ("string", with("\"100\""), "material.pawn.mg"),
        (
            "truncated",
            good[..good.len() / 2].to_string(),
            "invalid weights JSON",
        ),
        (
            "binary",
            String::from_utf8_lossy(&noise(2000, 3)).into_owned(),
            "invalid weights JSON",
        ),
    ];
    for (name, text, want) in cases {
        let path: PathBuf = dir.path().join(format!("{name}.json"));
        std::fs::write(&path, text).unwrap();
        let out = dir.path().join(format!("run-{name}"));
        let r = check(
            name,
            &quick_lbfgs(&data, &out, &["--weights", arg(&path)]),
            Expect::Error(want),
        );
        assert_file_named_once(name, &r, &path);
    }
}

/// `tune extract` of games that give no position is an error and leaves the output alone.
#[test]
fn extracting_nothing_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let games = dir.path().join("bad.pgn");
    std::fs::write(&games, "[Event \"x\"]\n\n1. e4 Ke2 1-0\n").unwrap();
    let out = dir.path().join("out.epd");
    std::fs::write(&out, "old").unwrap();
    let r = check(
        "extract-nothing",
        &["extract", arg(&games), "-o", arg(&out)],
        Expect::Error("no positions extracted"),
    );
    assert!(r.stderr.contains("illegal move Ke2"), "{}", r.stderr);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "old");
}

/// Usage errors are clap's: exit code 2.
#[test]
fn usage_errors_exit_with_2() {
    let r = run(&["lbfgs", "--no-such-option"]);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(!r.stderr.contains("panicked"));
}

/// `tune extract --limit N` writes the first N positions and says so.
#[test]
fn extract_limit_keeps_the_first_positions() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("few.epd");
    let epd = fixture("quiet-labeled-1k.epd");
    let r = run(&[
        "extract",
        arg(&epd),
        "--filter",
        "none",
        "--limit",
        "100",
        "-o",
        arg(&out),
    ]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(
        r.stderr.contains("--limit 100: keeping the first 100 of"),
        "{}",
        r.stderr
    );
    let written = std::fs::read_to_string(&out).unwrap();
    assert_eq!(written.lines().count(), 100, "{written}");
    let first = std::fs::read_to_string(&epd).unwrap();
    let board = |l: &str| l.split_whitespace().take(4).collect::<Vec<_>>().join(" ");
    assert_eq!(
        board(written.lines().next().unwrap()),
        board(first.lines().next().unwrap())
    );
}

/// `--threads 1` runs a tuning run and `tune eval` on one thread; `--threads 0` is refused
/// with a message that says what to give instead.
#[test]
fn threads_one_runs_and_zero_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let data = fixture("quiet-labeled-1k.epd");
    let out = dir.path().join("run");
    let r = check(
        "threads 1",
        &quick_lbfgs(&data, &out, &["--threads", "1"]),
        Expect::Ok("train"),
    );
    assert!(out.join("weights.json").exists(), "{}", r.stdout);
    let weights = out.join("weights.json");
    let r = run(&[
        "eval",
        arg(&weights),
        "--data",
        arg(&data),
        "--threads",
        "1",
    ]);
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    for args in [
        quick_lbfgs(&data, &out, &["--threads", "0"]),
        vec![
            "eval",
            arg(&weights),
            "--data",
            arg(&data),
            "--threads",
            "0",
        ],
    ] {
        let r = run(&args);
        assert_eq!(r.code, Some(2), "{}", r.stderr);
        assert!(
            r.stderr.contains("--threads must be at least 1"),
            "{}",
            r.stderr
        );
    }
}
