//! Matches: a player against itself at fixed nodes plays each opening's two games alike, so
//! every pair scores one point and the Elo difference is exactly 0.

use engine::play::matches::play_match;
use engine::play::openings::RandomOpenings;
use engine::play::options::PlayOptions;
use engine::play::pgn_out::{game_pgn, PgnTags};
use engine::{MaterialEvaluator, ModelEvaluator};

#[test]
fn self_match_is_even() {
    let eval = ModelEvaluator::default_material();
    let gen = RandomOpenings::default();
    let openings: Vec<_> = (0..3).map(|i| gen.opening(i, &eval)).collect();
    let opts = PlayOptions::default().nodes(400);
    let r = play_match(&eval, &eval, &openings, &opts, &|_| {});
    assert_eq!(r.games.len(), 6);
    assert_eq!(r.pairs, [0, 0, 3, 0, 0]);
    assert_eq!(r.wins, r.losses);
    let e = r.elo_trinomial().unwrap();
    assert_eq!(e.elo, 0.0);
    assert!(e.lower <= 0.0 && e.upper >= 0.0);
    for g in &r.games {
        let pgn = game_pgn(&g.record, &PgnTags::default());
        assert!(pgn.contains(g.record.outcome.as_str()));
    }
}

#[test]
fn material_beats_a_blind_player() {
    // B's weights are all zero: it sees every position as equal.
    let material = ModelEvaluator::default_material();
    let model = material.model().clone();
    let blind = ModelEvaluator::new(model.clone(), vec![0.0; model.len()]).unwrap();
    let gen = RandomOpenings::default();
    let openings: Vec<_> = (0..3).map(|i| gen.opening(i, &MaterialEvaluator)).collect();
    let opts = PlayOptions::default().nodes(500);
    let r = play_match(&material, &blind, &openings, &opts, &|_| {});
    assert!(r.wins > r.losses, "{} / {} / {}", r.wins, r.draws, r.losses);
    assert!(r.elo_pentanomial().unwrap().elo > 0.0);
}

#[test]
fn chess960_openings_play_and_their_pgn_reads_back() {
    let dir = std::env::temp_dir().join(format!("engine-c960-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("c960.epd");
    std::fs::write(
        &path,
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9\n",
    )
    .unwrap();
    let openings = engine::play::openings::read_epd(&path).unwrap();
    let opts = PlayOptions::default().nodes(200);
    let r = play_match(
        &MaterialEvaluator,
        &MaterialEvaluator,
        &openings,
        &opts,
        &|_| {},
    );
    let pgn: String = r
        .games
        .iter()
        .map(|g| game_pgn(&g.record, &PgnTags::default()))
        .collect();
    assert!(pgn.contains("[Variant \"Chess960\"]"), "{pgn}");
    let (samples, report) = data::extract_pgn_reader(
        pgn.as_bytes(),
        "<pgn>".as_ref(),
        &data::ExtractOptions::default(),
    )
    .unwrap();
    assert_eq!(report.errors, 0, "{report}\n{pgn}");
    let plies: usize = r.games.iter().map(|g| g.record.moves.len()).sum();
    assert!(!samples.is_empty() && samples.len() <= plies + 2);
    std::fs::remove_dir_all(&dir).ok();
}
