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
