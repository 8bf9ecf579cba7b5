//! `tune label` through the real binary: `gradtune-uci` as the external engine (labels equal
//! gradtune's own search), a misbehaving fake engine for the failures (time-out, crash,
//! garbage: each restarts the engine and skips the position, counted), resuming after Ctrl-C,
//! and the refusals.

use crate::common;
use crate::fake_engine;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::{arg, fixture, gradtune_uci, run, signal, tune, Ran};
use data::{load, LoadOptions, Sample};
use engine::{ModelEvaluator, SearchLimits, Searcher};
use fake_engine::{fake_engine, fake_score};
use shakmaty::fen::Fen;
use shakmaty::{EnPassantMode, Position};

/// The first `n` positions of the 1k EPD fixture, as a file in `dir`.
fn some_positions(dir: &Path, n: usize) -> PathBuf {
    let text = std::fs::read_to_string(fixture("quiet-labeled-1k.epd")).unwrap();
    let lines: Vec<&str> = text.lines().take(n).collect();
    let path = dir.join("in.epd");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

/// `label INPUT --engine ENGINE --depth DEPTH --jobs JOBS -o OUT`.
fn label_args(input: &Path, engine: &str, depth: &str, jobs: &str, out: &Path) -> Vec<String> {
    let v = [
        "label",
        arg(input),
        "--engine",
        engine,
        "--depth",
        depth,
        "--jobs",
        jobs,
    ];
    let mut v: Vec<String> = v.iter().map(|s| s.to_string()).collect();
    v.extend(["-o".to_string(), arg(out).to_string()]);
    v
}

/// Runs `tune ARGS`, sends Ctrl-C once `progress` holds `lines` lines (at most 60 s), and
/// returns its exit code, standard output and how long it took to stop.
fn interrupt(args: &[String], progress: &Path, lines: usize) -> (Option<i32>, String, Duration) {
    let mut child = tune()
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let t = Instant::now();
    while std::fs::read_to_string(progress).map_or(0, |t| t.lines().count()) < lines {
        assert!(t.elapsed() < Duration::from_secs(60), "no progress");
        if child.try_wait().unwrap().is_some() {
            break; // finished before the signal: the caller sees the output written
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    signal(child.id(), "INT");
    let stopped = Instant::now();
    let result = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&result.stdout).into_owned();
    (result.status.code(), stdout, stopped.elapsed())
}

fn run_owned(args: &[String]) -> Ran {
    run(&args.iter().map(String::as_str).collect::<Vec<_>>())
}

fn read(path: &Path) -> Vec<Sample> {
    load(path, &LoadOptions::default()).unwrap().0
}

/// gradtune-uci's labels are gradtune's own search scores at the same depth, White's view;
/// results and game ids are kept; one engine or two give the same labels (each position is
/// searched after `ucinewgame`), as EPD or as a cache.
#[test]
fn labels_from_gradtune_uci_are_its_search_scores() {
    let dir = tempfile::tempdir().unwrap();
    let input = some_positions(dir.path(), 16);
    let engine = format!("'{}'", gradtune_uci().display());
    let out2 = dir.path().join("two.epd");
    let r = run_owned(&label_args(&input, &engine, "3", "2", &out2));
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(r.stdout.contains("labelled 16 positions"), "{}", r.stdout);
    assert!(r.stdout.contains("with 2 engines"), "{}", r.stdout);
    assert!(
        !dir.path().join("two.epd.progress").exists(),
        "progress removed"
    );

    let before = read(&input);
    let after = read(&out2);
    assert_eq!(after.len(), before.len());
    for (b, a) in before.iter().zip(&after) {
        assert_eq!((a.board, a.result, a.game), (b.board, b.result, b.game));
        let pos = b.position().unwrap();
        let mut own = Searcher::new(ModelEvaluator::default_material(), 16);
        let stm = own.search(&pos, &[], &SearchLimits::depth(3)).score;
        let white = if pos.turn().is_white() { stm } else { -stm };
        assert_eq!(a.score, Some(white as f32), "{}", b.to_epd());
    }

    let out1 = dir.path().join("one.gtc");
    let r = run_owned(&label_args(&input, &engine, "3", "1", &out1));
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(read(&out1), after);
}

/// A fake engine that hangs, crashes or answers garbage on some positions: each of those is
/// skipped with a message naming the file and position, the engine restarted, the rest
/// labelled; a rerun retries only the skipped ones (here with a mended engine).
#[test]
fn hangs_crashes_and_garbage_skip_the_position_and_restart_the_engine() {
    let dir = tempfile::tempdir().unwrap();
    let ranks = ["8", "4P3", "P7", "3P4", "7P", "2P5", "5P2", "6P1"];
    let epd: String = ranks
        .iter()
        .map(|r| format!("4k1n1/8/8/8/{r}/8/8/4K1N1 w - - [0.5]\n"))
        .collect();
    let input = dir.path().join("odd.epd");
    std::fs::write(&input, &epd).unwrap();
    // The command stays the same between the runs: a wrapper script, rewritten in between.
    let wrapper = dir.path().join("engine.sh");
    let bad = fake_engine(dir.path(), &["hang:/4P3/", "crash:/3P4/", "garbage:/2P5/"]);
    std::fs::write(&wrapper, format!("exec {bad}\n")).unwrap();
    let engine = format!("sh '{}'", wrapper.display());
    let out = dir.path().join("out.epd");
    let mut args = label_args(&input, &engine, "1", "2", &out);
    args.extend(["--timeout".to_string(), "1".to_string()]);
    let t = Instant::now();
    let r = run_owned(&args);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(t.elapsed() < Duration::from_secs(30), "{:?}", t.elapsed());
    let name = arg(&input);
    for (position, what) in [
        (2, "no `bestmove` within 1.0 s"),
        (4, "exit status: 3"),
        (6, "score cp banana"),
    ] {
        let want = format!("skipped {name}: position {position}: engine `");
        let line = r
            .stderr
            .lines()
            .find(|l| l.starts_with(&want))
            .unwrap_or_else(|| panic!("no `{want}` in:\n{}", r.stderr));
        assert!(
            line.contains(what) && line.ends_with("(engine restarted)"),
            "{line}"
        );
    }
    assert!(r.stdout.contains("labelled 5 positions"), "{}", r.stdout);
    assert!(r.stdout.contains("skipped 3 positions"), "{}", r.stdout);
    let progress = dir.path().join("out.epd.progress");
    assert!(r.stdout.contains(arg(&progress)), "{}", r.stdout);
    let labelled = read(&out);
    assert_eq!(labelled.len(), 5);
    for s in &labelled {
        let fen = Fen::from_position(&s.position().unwrap(), EnPassantMode::Legal).to_string();
        assert_eq!(s.score, Some(fake_score(&fen) as f32), "{fen}");
    }

    // Mend the engine: the rerun searches only the three skipped positions.
    std::fs::write(&wrapper, format!("exec {}\n", fake_engine(dir.path(), &[]))).unwrap();
    let r = run_owned(&args);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let want = "continuing: 5 positions were labelled by an earlier run, 3 to go";
    assert!(r.stderr.contains(want), "{}", r.stderr);
    assert!(r.stdout.contains("labelled 3 positions"), "{}", r.stdout);
    assert_eq!(read(&out).len(), 8);
    assert!(!progress.exists());
}

/// Ctrl-C stops promptly keeping the finished labels; the same command continues, and the
/// result is that of an uninterrupted run.
#[test]
fn an_interrupted_run_continues_where_it_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let input = some_positions(dir.path(), 150);
    let engine = format!("'{}'", gradtune_uci().display());
    let out = dir.path().join("out.gtc");
    let progress = dir.path().join("out.gtc.progress");
    let args = label_args(&input, &engine, "4", "1", &out);
    // A few labels in the progress file (its header has 7 lines), then Ctrl-C.
    let (code, stdout, took) = interrupt(&args, &progress, 7 + 5);
    assert!(took < Duration::from_secs(5), "{took:?}");
    assert_eq!(code, Some(0), "{stdout}");
    assert!(stdout.contains("interrupted: nothing written"), "{stdout}");
    assert!(!out.exists());
    let kept = std::fs::read_to_string(&progress).unwrap().lines().count() - 7;
    assert!((5..150).contains(&kept), "{kept}");

    let r = run_owned(&args);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let want = format!("continuing: {kept} positions were labelled by an earlier run");
    assert!(r.stderr.contains(&want), "{}", r.stderr);
    assert!(!progress.exists());
    let resumed = read(&out);

    let again = dir.path().join("again.gtc");
    let r = run_owned(&label_args(&input, &engine, "4", "2", &again));
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(read(&again), resumed);
}

/// Refusals: an engine that cannot start (no progress file left), other settings than the
/// progress file's, an engine failing on every position, a bad output name.
#[test]
fn label_refuses_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let input = some_positions(dir.path(), 30);
    let out = dir.path().join("out.epd");
    let progress = dir.path().join("out.epd.progress");
    let r = run(&[
        "label",
        arg(&input),
        "--engine",
        "/no/such/engine",
        "--depth",
        "2",
        "-o",
        arg(&out),
    ]);
    assert_eq!(r.code, Some(1));
    assert!(
        r.stderr.contains("engine `/no/such/engine`: cannot start"),
        "{}",
        r.stderr
    );
    assert!(!progress.exists() && !out.exists());

    let r = run(&["label", arg(&input), "--engine", "x", "-o", arg(&out)]);
    assert_eq!(r.code, Some(2), "a limit is required: {}", r.stderr);
    let r = run(&[
        "label",
        arg(&input),
        "--engine",
        "x",
        "--depth",
        "2",
        "-o",
        "out.txt",
    ]);
    assert_eq!(r.code, Some(1));
    assert!(
        r.stderr
            .contains("cannot tell the output format from out.txt"),
        "{}",
        r.stderr
    );

    // Garbage on every position: the run ends after the first failures.
    let garbage = fake_engine(dir.path(), &["garbage:k"]);
    let r = run_owned(&label_args(&input, &garbage, "2", "1", &out));
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert!(
        r.stderr
            .contains("failed on each of the first 20 positions"),
        "{}",
        r.stderr
    );
    assert!(!out.exists());

    // A progress file with labels, made with other settings.
    std::fs::remove_file(&progress).ok();
    let engine = format!("'{}'", gradtune_uci().display());
    interrupt(&label_args(&input, &engine, "6", "1", &out), &progress, 8);
    if out.exists() {
        return; // finished before the signal: nothing left to refuse
    }
    let r = run(&[
        "label",
        arg(&input),
        "--engine",
        &engine,
        "--depth",
        "5",
        "-o",
        arg(&out),
    ]);
    assert_eq!(r.code, Some(1));
    let first = r.stderr.lines().find(|l| l.starts_with("error: ")).unwrap();
    assert!(first.contains(arg(&progress)), "{first}");
    assert!(
        first.contains("was `go depth 6`, now `go depth 5`"),
        "{first}"
    );
    assert_eq!(first.matches(arg(&progress)).count(), 1, "{first}");
}
