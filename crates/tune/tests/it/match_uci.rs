//! `tune match` with `uci:CMD` players through the real binary: `gradtune-uci` with the
//! match's table size plays the games of gradtune's own search; an engine that cannot start is
//! an error naming it.

use crate::clock;
use crate::common;

use common::{gradtune_uci, run};

/// The tally lines of a `tune match` report (the first line has the players and the time).
fn tally(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .filter(|l| l.starts_with("W/D/L") || l.starts_with("pairs") || l.starts_with("Elo"))
        .collect()
}

#[test]
fn a_uci_player_meets_gradtunes_search() {
    let uci = format!("uci:'{}'", gradtune_uci().display());
    let common = ["--openings", "3", "--nodes", "300", "--threads", "2"];
    let mut internal = vec!["match", "default", "default"];
    internal.extend(common);
    let own = run(&internal);
    assert_eq!(own.code, Some(0), "{}", own.stderr);
    // The match's table is 4 MiB: the same for the external engine.
    let mut external = vec!["match", &uci, "default", "--uci-option", "Hash=4"];
    external.extend(common);
    let ext = run(&external);
    assert_eq!(ext.code, Some(0), "{}", ext.stderr);
    assert!(
        ext.stdout.starts_with("gradtune vs default: 6 games"),
        "{}",
        ext.stdout
    );
    assert_eq!(tally(&ext.stdout), tally(&own.stdout));
    assert!(!ext.stdout.contains("engine failures"), "{}", ext.stdout);
}

#[test]
fn a_uci_player_that_cannot_start_is_an_error() {
    let r = run(&["match", "default", "uci:/no/such/engine", "--openings", "1"]);
    assert_eq!(r.code, Some(1));
    assert!(
        r.stderr
            .contains("error: engine `/no/such/engine`: cannot start"),
        "{}",
        r.stderr
    );
    let r = run(&[
        "match",
        "default",
        "default",
        "--uci-option",
        "Hash",
        "--openings",
        "1",
    ]);
    assert_eq!(r.code, Some(1));
    assert!(r.stderr.contains("NAME=VALUE"), "{}", r.stderr);
}

/// The clock fixture in `mode` as a `uci:` player (`None` without python3).
fn clock_engine(mode: &str, log: &std::path::Path) -> Option<String> {
    clock::clock_engine(mode, log).map(|c| format!("uci:{c}"))
}

#[test]
fn tc_plays_an_engine_that_reads_only_its_clock_and_reports_losses_on_time() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("go.log");
    let Some(reader) = clock_engine("wtime-only", &log) else {
        return;
    };
    // Against itself from the start position: the knights go out and back, two draws.
    let epd = dir.path().join("start.epd");
    std::fs::write(
        &epd,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -\n",
    )
    .unwrap();
    let epd = epd.display().to_string();
    let common = ["--epd", &epd, "--openings", "1", "--threads", "1"];
    let mut args = vec![
        "match",
        &reader,
        &reader,
        "--tc",
        "5+0.1",
        "--time-margin",
        "1000",
    ];
    args.extend(common);
    let r = run(&args);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(
        r.stdout.contains("W/D/L (A's view): 0 / 2 / 0"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("losses on time"), "{}", r.stdout);
    let sent = std::fs::read_to_string(&log).unwrap();
    assert!(
        sent.starts_with("go wtime 5000 btime 5000 winc 100 binc 100\n"),
        "{sent}"
    );

    // An engine that sleeps past its clock loses both games on time, and the report says so.
    let Some(sleeper) = clock_engine("oversleep", &dir.path().join("sleep.log")) else {
        return;
    };
    let mut args = vec![
        "match",
        &sleeper,
        "default",
        "--tc",
        "1",
        "--time-margin",
        "0",
    ];
    args.extend(common);
    let r = run(&args);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(
        r.stdout.contains("W/D/L (A's view): 0 / 0 / 2"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("losses on time: clock engine 2, default 0"),
        "{}",
        r.stdout
    );
}
