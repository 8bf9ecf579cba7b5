use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use shakmaty::{Chess, Position};

use super::*;
use crate::search::limits::SearchLimits;

fn options(games: u32, shard: Shard) -> SelfPlayOptions {
    SelfPlayOptions {
        games,
        shard,
        openings: OpeningBook::Random(RandomOpenings::default()),
        play: PlayOptions::default().limits(SearchLimits::nodes(200)),
    }
}

#[test]
fn kept_positions_are_quiet_and_labelled_from_whites_view() {
    let go = Arc::new(AtomicBool::new(false));
    let games = play_selfplay(&MaterialEvaluator, &options(3, Shard::WHOLE), &|_| {}, &go);
    assert_eq!(games.iter().map(|g| g.index).collect::<Vec<_>>(), [0, 1, 2]);
    let (samples, summary) = collect_samples(&games);
    assert_eq!(summary.games, 3);
    assert_eq!(summary.positions, samples.len() as u64);
    let mut skipped = 0;
    for g in &games {
        let kept = quiet_samples(g);
        let all: Vec<(Chess, _)> = g.record.positions().collect();
        skipped += all.len() - kept.len();
        let mut k = kept.iter();
        for (pos, pm) in &all {
            let quiet = !pos.is_check()
                && !pm.mv.is_capture()
                && !pm.mv.is_promotion()
                && pm.score.abs() < MATE_BOUND;
            if !quiet {
                continue;
            }
            let s = k.next().expect("every quiet position is kept");
            assert_eq!(s.position().unwrap(), *pos);
            assert_eq!(s.game, g.index);
            assert_eq!(s.result, g.record.white_score());
            let white = if pos.turn() == Color::White {
                pm.score
            } else {
                -pm.score
            };
            assert_eq!(s.score, Some(white as f32));
        }
        assert!(k.next().is_none());
    }
    assert!(
        skipped > 0,
        "no capture, check or promotion in three games?"
    );
}

#[test]
fn shards_merge_into_the_whole_run() {
    let dir = tempfile::tempdir().unwrap();
    let go = Arc::new(AtomicBool::new(false));
    let write = |shard: Shard, name: &str| {
        let games = play_selfplay(&MaterialEvaluator, &options(5, shard), &|_| {}, &go);
        let path = dir.path().join(name);
        write_samples(&path, &collect_samples(&games).0).unwrap();
        path
    };
    let whole = write(Shard::WHOLE, "whole.epd");
    let parts: Vec<_> = (0..3)
        .map(|i| write(Shard { index: i, count: 3 }, &format!("p{i}.epd")))
        .collect();
    let merged = dir.path().join("merged.epd");
    let r = merge_shards(
        &[parts[2].clone(), parts[0].clone(), parts[1].clone()],
        &merged,
    )
    .unwrap();
    assert_eq!((r.parts, r.games), (3, 5));
    assert_eq!(
        std::fs::read(&whole).unwrap(),
        std::fs::read(&merged).unwrap()
    );
    // A malformed part names its file and line.
    let bad = dir.path().join("bad.epd");
    std::fs::write(&bad, "not a position\n").unwrap();
    let e = merge_shards(&[bad], &merged).unwrap_err().to_string();
    assert!(e.contains("bad.epd") && e.contains('1'), "{e}");
}

#[test]
fn shard_text_is_checked() {
    assert_eq!("2/5".parse::<Shard>(), Ok(Shard { index: 2, count: 5 }));
    for bad in ["5/5", "0/0", "1", "a/b", "-1/3"] {
        assert!(bad.parse::<Shard>().is_err(), "{bad}");
    }
    let all: Vec<u32> = (0..4)
        .flat_map(|i| Shard { index: i, count: 4 }.games(10))
        .collect();
    let mut sorted = all.clone();
    sorted.sort();
    assert_eq!(sorted, (0..10).collect::<Vec<_>>());
}

#[test]
fn a_game_lost_on_time_is_counted_and_keeps_its_positions() {
    let go = Arc::new(AtomicBool::new(false));
    let mut games = play_selfplay(&MaterialEvaluator, &options(2, Shard::WHOLE), &|_| {}, &go);
    let (_, before) = collect_samples(&games);
    assert_eq!(before.time_losses, 0);
    // Game 1 ends instead by White's flag after its moves: Black wins on time.
    let was_black_win = games[1].record.outcome.winner() == Some(Color::Black);
    let record = &mut games[1].record;
    let plies = record.moves.len();
    assert!(plies > 0);
    record.moves.truncate(plies - plies % 2);
    record.termination = crate::play::game::Termination::TimeForfeit;
    record.outcome = shakmaty::KnownOutcome::Decisive {
        winner: Color::Black,
    };
    assert_eq!(record.flagged(), Some(Color::White));
    let (samples, after) = collect_samples(&games);
    assert_eq!(after.time_losses, 1);
    assert_eq!((after.games, after.forfeits), (2, 0));
    assert_eq!(
        after.black_wins,
        before.black_wins + 1 - u32::from(was_black_win)
    );
    let kept = quiet_samples(&games[1]);
    assert!(!kept.is_empty());
    assert!(kept.iter().all(|s| s.result == 0.0));
    assert_eq!(samples.len() as u64, after.positions);
}
