//! Matches with external UCI engines (`engine::play::player`): `gradtune-uci` as an external player
//! plays exactly the games of gradtune's own search, and a failing engine forfeits, recorded.

use crate::fake_engine;

use std::time::Duration;

use engine::play::matches::{play_match, MatchResult};
use engine::play::openings::RandomOpenings;
use engine::play::options::PlayOptions;
use engine::play::player::{MatchPlayer, UciPlayer};
use engine::play::uci_client::EngineSpec;
use engine::ModelEvaluator;

fn options() -> PlayOptions {
    PlayOptions::default().nodes(400)
}

fn moves(r: &MatchResult) -> Vec<Vec<shakmaty::Move>> {
    r.games
        .iter()
        .map(|g| g.record.moves.iter().map(|m| m.mv).collect())
        .collect()
}

#[test]
fn gradtune_uci_as_an_external_player_plays_the_same_games() {
    let openings = RandomOpenings::default().openings(3, &ModelEvaluator::default_material());
    let opts = options();
    let own = ModelEvaluator::default_material();
    let internal = play_match(&own, &own, &openings, &opts, &|_| {});

    // The enum `tune match` uses, both players searched by gradtune: the same games.
    let search = MatchPlayer::open("default", &[], Duration::from_secs(1)).unwrap();
    let r = play_match(&search, &search, &openings, &opts, &|_| {});
    assert_eq!(moves(&r), moves(&internal));
    assert_eq!(
        (r.wins, r.draws, r.losses),
        (internal.wins, internal.draws, internal.losses)
    );

    // gradtune-uci with the match's table size, through the protocol: the same games too.
    let command = format!("uci:'{}'", env!("CARGO_BIN_EXE_gradtune-uci"));
    let hash = [("Hash".to_string(), opts.hash_mb.to_string())];
    let uci = MatchPlayer::open(&command, &hash, Duration::from_secs(30)).unwrap();
    let r = play_match(&uci, &own, &openings, &opts, &|_| {});
    assert_eq!(moves(&r), moves(&internal));
    assert!(uci.failures().is_empty(), "{:?}", uci.failures());
    let MatchPlayer::Uci(player) = &uci else {
        panic!("not an external player")
    };
    assert_eq!(player.name(), "gradtune");
}

#[test]
fn a_failing_engine_forfeits_and_the_failures_are_recorded() {
    let dir = tempfile::tempdir().unwrap();
    // The fake engine always answers g1f3 / g8f6: illegal from its second move on.
    let spec = EngineSpec::new(fake_engine::fake_engine(dir.path(), &[]));
    let fake = UciPlayer::start(spec, Duration::from_secs(5)).unwrap();
    let openings = [engine::play::openings::Opening::from_position(
        shakmaty::Chess::default(),
    )];
    let own = ModelEvaluator::default_material();
    let r = play_match(&fake, &own, &openings, &options(), &|_| {});
    assert_eq!(r.games.len(), 2);
    assert_eq!(r.losses, 2, "the fake engine forfeits both games");
    let failures = fake.failures();
    assert_eq!(failures.len(), 4, "asked twice in each game: {failures:?}");
    assert!(
        failures[0].contains("`g1f3` is not legal") || failures[0].contains("`g8f6` is not legal"),
        "{}",
        failures[0]
    );
    assert!(
        failures[0].ends_with("(restarted, asked again)"),
        "{}",
        failures[0]
    );
    assert!(
        failures[1].ends_with("(forfeits the game)"),
        "{}",
        failures[1]
    );
}
