//! `tune match` with `uci:CMD` players through the real binary: `gradtune-uci` with the
//! match's table size plays the games of gradtune's own search; an engine that cannot start is
//! an error naming it.

mod common;

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
