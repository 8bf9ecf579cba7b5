//! Games on a clock: a flag fall loses (or draws when the other side cannot mate), an external
//! engine that reads only `wtime/btime` (as 4ku) plays under a time control and hangs under
//! `go nodes` (restarted, then forfeiting), and an engine that oversleeps loses on time,
//! counted in the match result. The fake engines are `fixtures/clock-engine/clock_engine.py`
//! (skipped where there is no `python3`).

use crate::clock_engine;

use std::path::Path;
use std::time::Duration;

use clock_engine::clock_engine;

use engine::play::game::{play_game_from, Termination};
use engine::play::matches::play_match;
use engine::play::openings::Opening;
use engine::play::options::PlayOptions;
use engine::play::player::UciPlayer;
use engine::play::uci_client::EngineSpec;
use engine::search::searcher::SearchResult;
use engine::{MaterialEvaluator, SearchLimits};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, KnownOutcome, Position};

fn position(fen: &str) -> Chess {
    fen.parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap()
}

/// A chooser that takes `sleep` over each move (its first legal move) and records the limits
/// it was given.
fn sleeper(
    sleep: Duration,
    seen: &mut Vec<SearchLimits>,
) -> impl FnMut(&Chess, &[u64], &[shakmaty::Move], &SearchLimits) -> SearchResult + '_ {
    move |pos, _, _, limits| {
        seen.push(limits.clone());
        std::thread::sleep(sleep);
        let m = pos.legal_moves()[0];
        SearchResult {
            best_move: Some(m),
            score: 0,
            depth: 1,
            nodes: 1,
            pv: vec![m],
            elapsed: sleep,
        }
    }
}

#[test]
fn a_flag_fall_loses_unless_the_other_side_cannot_mate() {
    // 1 ms on the clock, no margin, and 30 ms a move: the first mover's flag falls, however
    // loaded the machine (a sleep is never shorter than asked).
    let options = PlayOptions::default().time_control("0.001".parse().unwrap());
    let mut seen = Vec::new();
    let queen = Opening::from_position(position("k7/8/8/8/8/8/8/KQ6 b - - 0 1"));
    let g = play_game_from(
        &queen,
        &options,
        sleeper(Duration::from_millis(30), &mut seen),
    )
    .unwrap();
    assert_eq!(g.termination, Termination::TimeForfeit);
    assert_eq!(
        g.outcome,
        KnownOutcome::Decisive {
            winner: shakmaty::Color::White
        }
    );
    assert_eq!(g.flagged(), Some(shakmaty::Color::Black));
    assert!(
        g.moves.is_empty(),
        "the move that came too late is not played"
    );
    // The chooser was told both clocks.
    let clocks = seen[0]
        .clock
        .expect("a time control gives the mover the clocks");
    assert_eq!(
        (clocks.wtime, clocks.btime),
        (Duration::from_millis(1), Duration::from_millis(1))
    );
    // A bare king cannot mate: White's flag fall against it is a draw.
    let bare = Opening::from_position(position("k7/8/8/8/8/8/8/KQ6 w - - 0 1"));
    let g = play_game_from(
        &bare,
        &options,
        sleeper(Duration::from_millis(30), &mut seen),
    )
    .unwrap();
    assert_eq!(
        (g.termination, g.outcome),
        (Termination::TimeForfeit, KnownOutcome::Draw)
    );
}

#[test]
fn moves_within_the_clock_and_margin_are_no_loss() {
    // 20 ms a move on a 10 s clock: no flag falls (the margin is not even needed).
    let mut options = PlayOptions::default()
        .time_control("10+0.5".parse().unwrap())
        .time_margin(Duration::from_secs(5));
    options.adjudication.max_plies = 6;
    let mut seen = Vec::new();
    let start = Opening::from_position(Chess::default());
    let g = play_game_from(
        &start,
        &options,
        sleeper(Duration::from_millis(20), &mut seen),
    )
    .unwrap();
    assert_eq!((g.termination, g.moves.len()), (Termination::MaxPlies, 6));
    // White's clock after its first move: 10 s - what it used + 0.5 s, told before its second.
    let w = seen[2].clock.unwrap().wtime;
    assert!(
        w < Duration::from_millis(10_500) && w > Duration::from_secs(5),
        "{w:?}"
    );
    assert_eq!(seen[2].clock.unwrap().winc, Duration::from_millis(500));
}

#[test]
fn gradtune_s_own_search_keeps_to_its_clock() {
    // Its time management (a 30th of the clock, hard-capped) on a 4 s + 40 ms clock, with
    // a generous margin for a loaded machine (a 1 s clock flagged once in a test run at nice
    // 19 beside two matches): twenty plies, no flag.
    let mut options = PlayOptions::default()
        .time_control("4+0.04".parse().unwrap())
        .time_margin(Duration::from_millis(1000));
    options.adjudication.max_plies = 20;
    let openings = [Opening::from_position(Chess::default())];
    let r = play_match(
        &MaterialEvaluator,
        &MaterialEvaluator,
        &openings,
        &options,
        &|_| {},
    );
    assert_eq!(r.games.len(), 2);
    assert_eq!(r.time_losses, [0, 0]);
    for g in &r.games {
        assert_ne!(g.record.termination, Termination::TimeForfeit);
    }
}

fn go_lines(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn an_engine_that_reads_only_wtime_btime_plays_under_a_time_control() {
    let dir = tempfile::tempdir().unwrap();
    let (log_a, log_b) = (dir.path().join("a.log"), dir.path().join("b.log"));
    let (Some(a), Some(b)) = (
        clock_engine("wtime-only", &log_a),
        clock_engine("wtime-only", &log_b),
    ) else {
        return;
    };
    let a = UciPlayer::start(EngineSpec::new(a), Duration::from_secs(30)).unwrap();
    let b = UciPlayer::start(EngineSpec::new(b), Duration::from_secs(30)).unwrap();
    let options = PlayOptions::default()
        .time_control("5+0.1".parse().unwrap())
        .time_margin(Duration::from_secs(1));
    let openings = [Opening::from_position(Chess::default())];
    let r = play_match(&a, &b, &openings, &options, &|_| {});
    // The knights go out and back: both games drawn by repetition after eight plies.
    assert_eq!((r.games.len(), r.draws), (2, 2));
    for g in &r.games {
        assert_eq!(
            (g.record.termination, g.record.moves.len()),
            (Termination::Repetition, 8)
        );
    }
    assert!(
        a.failures().is_empty() && b.failures().is_empty(),
        "{:?}",
        a.failures()
    );
    let sent = go_lines(&log_a);
    assert_eq!(sent.len(), 8, "four moves in each game: {sent:?}");
    // The first `go` of a game (A with White) is both full clocks and the increments.
    assert!(
        sent.contains(&"go wtime 5000 btime 5000 winc 100 binc 100".to_string()),
        "{sent:?}"
    );
    for line in &sent {
        let w: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(
            (w[0], w[1], w[3], w[5], w[6], w[7], w[8]),
            ("go", "wtime", "btime", "winc", "100", "binc", "100"),
            "{line}"
        );
        // Each clock: at most the base plus the increments earned, never below zero.
        for t in [w[2], w[4]] {
            let t: u64 = t.parse().unwrap();
            assert!(t <= 5_000 + 4 * 100, "{line}");
        }
    }
}

#[test]
fn the_same_engine_under_go_nodes_hangs_and_is_restarted_then_forfeits() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("a.log");
    let Some(a) = clock_engine("wtime-only", &log) else {
        return;
    };
    // Half a second to answer: the hang is caught, the engine restarted and asked again, and
    // hanging again it forfeits. `tune match --nodes` against 4ku does the same, with its
    // --uci-timeout (10 s by default) each time.
    let a = UciPlayer::start(EngineSpec::new(a), Duration::from_millis(500)).unwrap();
    let options = PlayOptions::default().nodes(200);
    let openings = [Opening::from_position(Chess::default())];
    let r = play_match(&a, &MaterialEvaluator, &openings, &options, &|_| {});
    assert_eq!((r.games.len(), r.losses), (2, 2));
    let failures = a.failures();
    assert_eq!(failures.len(), 4, "asked twice in each game: {failures:?}");
    assert!(
        failures.iter().all(|f| f.contains("no `bestmove` within")),
        "{failures:?}"
    );
    let ending = |what: &str| failures.iter().filter(|f| f.ends_with(what)).count();
    assert_eq!(ending("(restarted, asked again)"), 2, "{failures:?}");
    assert_eq!(ending("(forfeits the game)"), 2, "{failures:?}");
    assert!(go_lines(&log).iter().all(|l| l == "go nodes 200"));
}

#[test]
fn an_engine_that_oversleeps_loses_on_time_and_the_losses_are_counted() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("a.log");
    let Some(a) = clock_engine("oversleep", &log) else {
        return;
    };
    let a = UciPlayer::start(EngineSpec::new(a), Duration::from_secs(30)).unwrap();
    // A 1 s clock: gradtune's search uses a few tens of ms of it; the fake sleeps 1.5 s.
    let options = PlayOptions::default().time_control("1".parse().unwrap());
    let openings = [Opening::from_position(Chess::default())];
    let r = play_match(&a, &MaterialEvaluator, &openings, &options, &|_| {});
    assert_eq!((r.games.len(), r.losses), (2, 2));
    assert_eq!(r.time_losses, [2, 0]);
    assert_eq!(r.pairs, [1, 0, 0, 0, 0]);
    for g in &r.games {
        assert_eq!(g.record.termination, Termination::TimeForfeit);
        assert_eq!(g.a_flagged(), Some(true));
    }
    // A late answer is not a failure of the engine: it was waited for and is on the clock.
    assert!(a.failures().is_empty(), "{:?}", a.failures());
}
