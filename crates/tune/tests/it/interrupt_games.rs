//! Ctrl-C (SIGINT) to the real `tune` binary while it plays games: `tune datagen` abandons the
//! games under way and writes the finished ones (atomically: the file loads whole, with the
//! positions it reports); `tune match` abandons the pairs under way and reports the finished
//! pairs, saying it was interrupted, with the PGN of exactly those games. Both exit 0 within
//! a generous bound (CI shares 2 cores); the time taken is printed.

#![cfg(unix)]

use crate::common;

use std::path::Path;
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

use common::{arg, signal, tune};

/// Lets `child` run `secs` seconds once its Ctrl-C handler is installed, sends SIGINT, and
/// waits at most `limit` for it to exit; returns its output and how long it took to exit
/// after the signal.
fn interrupt_after(mut child: Child, secs: f64, limit: Duration) -> (Output, Duration) {
    assert!(
        common::wait_for_sigint_handler(child.id(), Duration::from_secs(60)),
        "tune did not install its Ctrl-C handler within 60 s"
    );
    std::thread::sleep(Duration::from_secs_f64(secs));
    assert!(
        child.try_wait().expect("try_wait").is_none(),
        "tune ended before the signal"
    );
    signal(child.id(), "INT");
    let t0 = Instant::now();
    while child.try_wait().expect("try_wait").is_none() {
        if t0.elapsed() > limit {
            let _ = child.kill();
            panic!("tune did not exit within {limit:?} of SIGINT");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let took = t0.elapsed();
    (child.wait_with_output().expect("output"), took)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The number before `word` in `s` (`"12 games"` -> 12 for `" games"`).
fn number_before(s: &str, word: &str) -> u64 {
    let end = s.find(word).unwrap_or_else(|| panic!("no {word:?} in {s}"));
    let digits: String = s[..end]
        .chars()
        .rev()
        .take_while(char::is_ascii_digit)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    digits
        .parse()
        .unwrap_or_else(|_| panic!("no number before {word:?} in {s}"))
}

/// No temporary file of an atomic write is left in `dir`.
fn no_temporaries(dir: &Path) {
    let left: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// Ctrl-C during self-play: the finished games are written and load, the exit is prompt.
#[test]
fn sigint_during_datagen_writes_the_finished_games() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("selfplay.gtc.zst");
    // Short games (40 plies, 60 nodes a move) by the thousand: several finish in the first
    // seconds even in a debug build, and far more are planned than can be played.
    let child = tune()
        .args([
            "datagen",
            "-o",
            arg(&out),
            "--games",
            "1000000",
            "--nodes",
            "60",
        ])
        .args(["--max-plies", "40", "--threads", "2", "--seed", "7"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (output, took) = interrupt_after(child, 3.0, Duration::from_secs(30));
    eprintln!("datagen exited {took:?} after SIGINT");
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert_eq!(output.status.code(), Some(0), "{stdout}{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    let games = number_before(&stdout, " games (");
    let positions = number_before(&stdout, " positions written");
    assert!(games > 0 && games < 1_000_000, "{stdout}");
    assert!(positions > 0, "{stdout}");
    let (samples, report) = data::load(&out, &data::LoadOptions::default()).expect("it loads");
    assert_eq!(samples.len() as u64, positions, "{report:?}");
    // Every game is whole: its positions carry its result, and it is one of the games played.
    let ids: std::collections::BTreeSet<u32> = samples.iter().map(|s| s.game).collect();
    assert!(
        ids.len() as u64 <= games,
        "{} game ids, {games} games",
        ids.len()
    );
    no_temporaries(dir.path());
}

/// Ctrl-C during a match: the pairs finished are reported, with the interruption, and the PGN
/// holds exactly their games.
#[test]
fn sigint_during_match_reports_the_finished_pairs() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("match.pgn");
    let child = tune()
        .args(["match", "default", "default", "--openings", "100000"])
        .args(["--nodes", "60", "--threads", "2", "--pgn", arg(&pgn)])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (output, took) = interrupt_after(child, 3.0, Duration::from_secs(30));
    eprintln!("match exited {took:?} after SIGINT");
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert_eq!(output.status.code(), Some(0), "{stdout}{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        stdout.contains("(interrupted: the pairs above are those finished)"),
        "{stdout}"
    );
    let games = number_before(&stdout, " games (");
    let pairs = number_before(&stdout, " of 100000 openings");
    assert_eq!(games, 2 * pairs, "{stdout}");
    assert!(pairs > 0, "no pair finished in 3 s: {stdout}");
    let written = std::fs::read_to_string(&pgn).expect("the PGN is written");
    assert_eq!(written.matches("[Event ").count() as u64, games);
    // The games read back as PGN (every move legal from its start).
    let (_, report) = data::load(&pgn, &data::LoadOptions::default()).expect("the PGN loads");
    assert_eq!(report.errors, 0, "{report:?}");
    assert_eq!(report.games, games, "{report:?}");
    no_temporaries(dir.path());
}
