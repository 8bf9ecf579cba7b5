//! Binary cache and EPD round trips, compression detection by magic bytes, split by game.

use crate::common;

use std::io::Write;

use data::{
    extract_pgn, load, split_by_game, write_cache, write_epd, ExtractOptions, LoadOptions, Sample,
};
use shakmaty::{fen::Fen, CastlingMode, Chess, EnPassantMode, Position};

fn pos(fen: &str) -> Chess {
    let f: Fen = fen.parse().unwrap();
    let setup = f.into_setup();
    let mode = CastlingMode::detect(&setup);
    shakmaty::FromSetup::from_setup(setup, mode).unwrap()
}

fn samples() -> Vec<Sample> {
    vec![
        Sample::from_position(&Chess::default(), 1.0, Some(12.5), 0),
        // Chess960 rights on b- and g-files.
        Sample::from_position(
            &pos("1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 b GBgb - 0 1"),
            0.5,
            None,
            1,
        ),
        // Legal en passant capture, Black to move.
        Sample::from_position(
            &pos("4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1"),
            0.0,
            Some(-300.0),
            1,
        ),
        Sample::from_position(&pos("8/8/8/8/8/8/8/K6k w - - 0 1"), 0.25, Some(0.0), 7),
    ]
}

fn fens(s: &[Sample]) -> Vec<String> {
    s.iter()
        .map(|x| Fen::from_position(&x.position().unwrap(), EnPassantMode::Legal).to_string())
        .collect()
}

#[test]
fn cache_round_trip_plain_and_zstd() {
    let dir = tempfile::tempdir().unwrap();
    let s = samples();
    for name in ["a.bin", "a.bin.zst", "a.gtc"] {
        let p = dir.path().join(name);
        write_cache(&p, &s).unwrap();
        let (back, report) = load(&p, &LoadOptions::default()).unwrap();
        assert_eq!(back, s, "{name}");
        assert_eq!(report.kept, 4);
        assert_eq!(fens(&back), fens(&s));
    }
    let c960 = s[1].position().unwrap();
    assert_eq!(c960.castles().castling_rights().count(), 4);
    assert_eq!(c960.castles().mode(), CastlingMode::Chess960);
    assert!(s[2]
        .position()
        .unwrap()
        .ep_square(EnPassantMode::Legal)
        .is_some());
}

#[test]
fn epd_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let s = samples();
    for name in ["a.epd", "a.epd.zst", "a.epd.gz"] {
        let p = dir.path().join(name);
        write_epd(&p, &s).unwrap();
        let (back, report) = load(&p, &LoadOptions::default()).unwrap();
        assert_eq!(report.errors, 0, "{report}");
        assert_eq!(fens(&back), fens(&s));
        // The game ids come back, so a split by game stays a split by game.
        let games: Vec<u32> = back.iter().map(|x| x.game).collect();
        assert_eq!(games, s.iter().map(|x| x.game).collect::<Vec<_>>());
        let labels: Vec<(f64, Option<f32>)> = back.iter().map(|x| (x.result, x.score)).collect();
        // ce is written in whole centipawns.
        assert_eq!(
            labels,
            vec![
                (1.0, Some(13.0)),
                (0.5, None),
                (0.0, Some(-300.0)),
                (0.25, Some(0.0))
            ]
        );
    }
}

#[test]
fn compression_detected_by_magic_not_name() {
    let dir = tempfile::tempdir().unwrap();
    let text = "8/8/8/8/8/8/8/K6k w - - [1.0]\n8/8/8/8/8/8/8/K6k b - - [0.5]\n";
    // gzip content named .zst, zstd content named .gz, plain content named .gz.
    let gz = dir.path().join("looks.zst");
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(text.as_bytes()).unwrap();
    std::fs::write(&gz, e.finish().unwrap()).unwrap();
    let zs = dir.path().join("looks.gz");
    std::fs::write(&zs, zstd::encode_all(text.as_bytes(), 3).unwrap()).unwrap();
    let plain = dir.path().join("plain.epd.gz");
    std::fs::write(&plain, text).unwrap();
    for (p, c) in [
        (&gz, fsutil::Compression::Gzip),
        (&zs, fsutil::Compression::Zstd),
        (&plain, fsutil::Compression::Plain),
    ] {
        assert_eq!(fsutil::source::open(p).unwrap().1, c);
        let (s, r) = load(p, &LoadOptions::default()).unwrap();
        assert_eq!(s.len(), 2, "{}: {r}", p.display());
        assert_eq!(r.results, [1, 1, 0]);
    }
    // A cache compressed with zstd but named .epd.
    let cache = dir.path().join("cache.epd");
    let mut bytes = Vec::new();
    {
        let tmp = dir.path().join("c.bin.zst");
        write_cache(&tmp, &samples()).unwrap();
        bytes.extend(std::fs::read(tmp).unwrap());
    }
    std::fs::write(&cache, bytes).unwrap();
    assert_eq!(load(&cache, &LoadOptions::default()).unwrap().0, samples());
}

#[test]
fn corrupt_caches_are_errors_not_panics() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("a.bin");
    write_cache(&p, &samples()).unwrap();
    let good = std::fs::read(&p).unwrap();
    // Truncated.
    std::fs::write(&p, &good[..good.len() - 5]).unwrap();
    assert!(load(&p, &LoadOptions::default()).is_err());
    // A record with two white kings and no black one: skipped and counted, or strict error.
    let mut bad = good.clone();
    let rec = data::cache::HEADER; // first record: the start position
                                   // Piece codes: nibbles after the 8 occupancy bytes; make every code a white king.
    for b in &mut bad[rec + 8..rec + 24] {
        *b = 0x55;
    }
    std::fs::write(&p, &bad).unwrap();
    let (s, r) = load(&p, &LoadOptions::default()).unwrap();
    assert_eq!((s.len(), r.errors), (3, 1));
    assert!(r.messages[0].contains("record 1"), "{:?}", r.messages);
    let strict = LoadOptions {
        strict: true,
        ..LoadOptions::default()
    };
    assert!(load(&p, &strict).is_err());
}

#[test]
fn split_by_game_keeps_games_whole_and_is_deterministic() {
    let path = common::fixture("tcec-chess960-50.pgn.zst");
    let o = ExtractOptions {
        max_per_game: Some(20),
        ..ExtractOptions::default()
    };
    let (s, _) = extract_pgn(&[path], &o, None).unwrap();
    let n = s.len();
    let (train, valid) = split_by_game(s.clone(), 0.1, 5);
    assert_eq!(train.len() + valid.len(), n);
    let vg: std::collections::HashSet<u32> = valid.iter().map(|x| x.game).collect();
    assert!(train.iter().all(|x| !vg.contains(&x.game)));
    let games: std::collections::HashSet<u32> = s.iter().map(|x| x.game).collect();
    assert_eq!(vg.len(), (games.len() as f64 * 0.1).round() as usize);
    // Same seed, same split, whatever the input order; another seed, another split.
    let mut rev = s.clone();
    rev.reverse();
    let (_, valid_rev) = split_by_game(rev, 0.1, 5);
    let vg_rev: std::collections::HashSet<u32> = valid_rev.iter().map(|x| x.game).collect();
    assert_eq!(vg, vg_rev);
    assert_eq!(split_by_game(s.clone(), 0.1, 5).1, valid);
    let (_, other) = split_by_game(s, 0.1, 6);
    assert_ne!(other, valid);
}
