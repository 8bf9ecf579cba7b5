//! Self-play output reads back through the data crate, identically for any thread count.

use engine::play::datagen::{generate, DatagenOptions};
use engine::play::openings::RandomOpenings;
use engine::play::options::PlayOptions;
use engine::MaterialEvaluator;

fn options() -> DatagenOptions {
    DatagenOptions {
        games: 4,
        play: PlayOptions::default().nodes(300),
        openings: RandomOpenings {
            seed: 42,
            ..RandomOpenings::default()
        },
    }
}

/// `f` on a rayon pool of `threads` threads.
fn on_threads<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
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
        on_threads(threads, || {
            generate(&MaterialEvaluator, &options(), &|_| {}).0
        })
    };
    assert_eq!(run(1), run(3));
}

#[test]
fn mate_check_redraws_only_openings_with_a_forced_mate() {
    use engine::search::searcher::Searcher;
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
    let mated = |o: &engine::play::openings::Opening| {
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
    use std::sync::Arc;
    let opts = DatagenOptions {
        games: 6,
        ..options()
    };
    let (all, _) = generate(&MaterialEvaluator, &opts, &|_| {});
    let stop = Arc::new(AtomicBool::new(false));
    let stopping = DatagenOptions {
        play: opts.play.clone().interrupt(stop.clone()),
        ..opts.clone()
    };
    // Stop after the first finished game: with one thread, exactly one game is played.
    let (part, summary) = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
        .install(|| {
            generate(&MaterialEvaluator, &stopping, &|_| {
                stop.store(true, Ordering::Relaxed)
            })
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

/// The material-only weights with every sign turned: a player that wants to lose its pieces.
fn reversed_material() -> engine::ModelEvaluator {
    let good = engine::ModelEvaluator::default_material();
    let reversed = good.weights().iter().map(|w| -w).collect();
    engine::ModelEvaluator::new(good.model().clone(), reversed).unwrap()
}

#[test]
fn a_pool_without_opponents_is_self_play() {
    let player = engine::ModelEvaluator::default_material();
    let pooled = engine::play::datagen::generate_pooled(&player, &[], &options(), &|_| {});
    // `generate` runs through the same function: compare with the games played one by one by
    // `play_one`, the self-play loop that knows nothing of pools.
    let mut alone = Vec::new();
    for i in 0..options().games {
        let game = engine::play::datagen::play_one(&player, &options(), i).unwrap();
        alone.extend(engine::play::datagen::samples_from_game(&game, i));
    }
    assert!(!alone.is_empty());
    assert_eq!(pooled.0, alone);
}

#[test]
fn pooled_games_give_the_player_each_colour_in_turn() {
    // One opponent: games 0 and 2 are self-play, game 1 has the player on White, game 3 on
    // Black. Against an opponent that gives its pieces away, the player wins both.
    let player = engine::ModelEvaluator::default_material();
    let opponent = reversed_material();
    let opts = DatagenOptions {
        games: 4,
        play: PlayOptions::default().nodes(1000),
        ..options()
    };
    let games: Vec<_> = (0..4)
        .map(|i| engine::play::datagen::play_pooled(&player, &[&opponent], &opts, i).unwrap())
        .collect();
    assert_eq!(
        games[1].white_score(),
        1.0,
        "the player had White in game 1"
    );
    assert_eq!(
        games[3].white_score(),
        0.0,
        "the player had Black in game 3"
    );
    // The same run by `generate_pooled`, on any number of threads.
    let run = |threads| {
        on_threads(threads, || {
            engine::play::datagen::generate_pooled(&player, &[&opponent], &opts, &|_| {})
        })
    };
    let (one, summary) = run(1);
    assert_eq!(one, run(2).0);
    let mut expected = Vec::new();
    for (i, g) in (0..).zip(&games) {
        expected.extend(engine::play::datagen::samples_from_game(g, i));
    }
    assert_eq!(one, expected);
    assert_eq!(summary.games, 4);
}

#[test]
fn no_jitter_plays_the_pooled_games() {
    let player = engine::ModelEvaluator::default_material();
    let opponent = reversed_material();
    let pooled = engine::play::datagen::generate_pooled(&player, &[&opponent], &options(), &|_| {});
    let jittered =
        engine::play::datagen::generate_jittered(&player, &[&opponent], &options(), 0.0, &|_| {});
    assert!(!pooled.0.is_empty());
    assert_eq!(pooled.0, jittered.0);
}

#[test]
fn jittered_games_start_from_the_same_openings_play_otherwise_and_repeat() {
    let player = engine::ModelEvaluator::default_material();
    let opts = options();
    let mut moved = 0;
    for i in 0..opts.games {
        let a = engine::play::datagen::play_jittered(&player, &[], &opts, 0.0, i).unwrap();
        let b = engine::play::datagen::play_jittered(&player, &[], &opts, 0.3, i).unwrap();
        assert_eq!(
            a.opening, b.opening,
            "game {i}: the opening does not depend on the jitter"
        );
        let first =
            |g: &engine::play::game::GameRecord| g.moves.iter().map(|m| m.mv).collect::<Vec<_>>();
        if first(&a) != first(&b) {
            moved += 1;
        }
    }
    // Piece values 30% apart change the play of some game (all four, in practice).
    assert!(moved > 0, "jitter 0.3 changed no game");
    // The same seed gives the same games on any number of threads.
    let run = |threads| {
        on_threads(threads, || {
            engine::play::datagen::generate_jittered(&player, &[], &opts, 0.3, &|_| {}).0
        })
    };
    let one = run(1);
    assert!(!one.is_empty());
    assert_eq!(one, run(2));
}

#[test]
fn jitter_changes_piece_values_alone_within_its_bounds() {
    use rand::SeedableRng;
    let e = engine::ModelEvaluator::load(std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/bootstrap-defaults-gen16.json"
    )))
    .unwrap();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
    let j = e.jittered(0.25, &mut rng);
    let mut changed = 0;
    for ((p, a), b) in e.model().params().iter().zip(e.weights()).zip(j.weights()) {
        if p.group == "material" {
            let r = b / a;
            assert!((0.75..=1.25).contains(&r), "{}: {a} -> {b}", p.name);
            changed += usize::from(a != b);
        } else {
            assert_eq!(a, b, "{} is not a piece value", p.name);
        }
    }
    assert_eq!(changed, 10, "every piece value of both phases moves");
    assert_eq!(e.jittered(0.0, &mut rng).weights(), e.weights());
}
