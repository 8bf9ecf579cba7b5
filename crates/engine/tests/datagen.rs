//! Self-play output reads back through the data crate, identically for any thread count.

use engine::datagen::{generate, DatagenOptions};
use engine::openings::RandomOpenings;
use engine::MaterialEvaluator;

fn options() -> DatagenOptions {
    DatagenOptions {
        games: 4,
        nodes: 300,
        openings: RandomOpenings {
            seed: 42,
            ..RandomOpenings::default()
        },
        ..DatagenOptions::default()
    }
}

#[test]
fn output_reads_back_through_data() {
    let (samples, summary) = generate(&MaterialEvaluator, &options(), &|_| {});
    assert!(!samples.is_empty());
    assert_eq!(summary.positions, samples.len() as u64);
    assert_eq!(summary.white_wins + summary.draws + summary.black_wins, 4);
    for s in &samples {
        assert!([0.0, 0.5, 1.0].contains(&s.result));
        assert!(s.score.is_some_and(|v| v.abs() < 29_000.0));
        assert!(s.game < 4);
        let pos = s.position().unwrap();
        assert!(!shakmaty::Position::is_check(&pos));
    }
    let dir = std::env::temp_dir().join(format!("engine-datagen-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("games.gtc.zst");
    data::write_cache(&path, &samples).unwrap();
    let (back, report) = data::load(&path, &data::LoadOptions::default()).unwrap();
    assert_eq!(back, samples);
    assert_eq!(report.kept, samples.len() as u64);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn same_seed_same_data_whatever_the_threads() {
    let run = |threads| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| generate(&MaterialEvaluator, &options(), &|_| {}).0)
    };
    assert_eq!(run(1), run(3));
}

#[test]
fn mate_check_redraws_only_openings_with_a_forced_mate() {
    use engine::search::Searcher;
    use engine::{ModelEvaluator, SearchLimits};
    // Seed and evaluator of data/default.gtc.zst, whose game 17 got no positions: its opening
    // left a forced mate on the board (data/README.md).
    let eval = ModelEvaluator::default_material();
    let old = RandomOpenings {
        seed: 20261122,
        plies: 8,
        ..RandomOpenings::default()
    };
    let checked = RandomOpenings {
        mate_check_depth: Some(4),
        ..old.clone()
    };
    let mated = |o: &engine::openings::Opening| {
        Searcher::new(&eval, 0)
            .search(&o.position, &[], &SearchLimits::depth(4))
            .mate_in()
    };
    let a = old.opening(17, &eval);
    assert!(
        mated(&a).is_some(),
        "the old generator's opening 17 has a mate: {a:?}"
    );
    let b = checked.opening(17, &eval);
    assert_eq!(mated(&b), None, "{b:?}");
    assert_eq!(b.moves.len(), 8);
    // Openings without a mate are the same with the check on.
    for i in 0..8 {
        let o = old.opening(i, &eval);
        if mated(&o).is_none() {
            assert_eq!(checked.opening(i, &eval), o, "opening {i}");
        }
    }
}

#[test]
fn a_stop_flag_keeps_the_finished_games() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let opts = DatagenOptions {
        games: 6,
        ..options()
    };
    let (all, _) = generate(&MaterialEvaluator, &opts, &|_| {});
    let stop = AtomicBool::new(false);
    // Stop after the first finished game: with one thread, exactly one game is played.
    let (part, summary) = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
        .install(|| {
            engine::datagen::generate_until(
                &MaterialEvaluator,
                &opts,
                &|_| stop.store(true, Ordering::Relaxed),
                &stop,
            )
        });
    assert_eq!(summary.games, 1);
    assert_eq!(summary.positions, part.len() as u64);
    // The games kept are exactly those of a full run, with the same ids.
    let kept: Vec<_> = all
        .iter()
        .filter(|s| part.iter().any(|p| p.game == s.game))
        .copied()
        .collect();
    assert_eq!(part, kept);
}
