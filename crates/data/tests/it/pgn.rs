//! PGN extraction: options, errors with game numbers, Chess960, de-duplication.

use crate::common;

use std::path::{Path, PathBuf};

use data::{extract_pgn, load, DataError, ExtractOptions, Filter, LoadOptions};
use shakmaty::{CastlingMode, Chess, Color, Position, Role, Square};

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

const GOOD: &str = r#"[Event "a"]
[Result "1-0"]

1. e4 { book } 1... e5 { book } 2. Nf3 { +0.35/12 0.5s } 2... Nc6 { +0.20/11 } 3. Bb5 { +0.40/13 }
3... a6 4. Ba4 { +M5/20 } 1-0

"#;

fn opts() -> ExtractOptions {
    ExtractOptions::default()
}

#[test]
fn positions_scores_and_book() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "g.pgn", GOOD);
    let (s, r) = extract_pgn(std::slice::from_ref(&p), &opts(), None).unwrap();
    // 7 plies, 2 book: positions before Nf3, Nc6, Bb5, a6, Ba4.
    assert_eq!(s.len(), 5, "{r}");
    assert_eq!(r.skipped["book positions"], 2);
    assert!(s.iter().all(|x| x.result == 1.0 && x.game == 0));
    // Before 2. Nf3 (White to move): +0.35 mover's view -> +35 White's view.
    assert_eq!(s[0].score, Some(35.0));
    // Before 2... Nc6 (Black to move): +0.20 for Black -> -20 White's view.
    assert_eq!(s[1].score, Some(-20.0));
    assert_eq!(s[2].score, Some(40.0));
    assert_eq!(s[3].score, None); // no comment
    assert_eq!(s[4].score, None); // mate score
    assert_eq!(r.scored, 3);
    assert_eq!(r.game_results, [1, 0, 0]);

    let keep_book = ExtractOptions {
        skip_book: false,
        ..opts()
    };
    assert_eq!(extract_pgn(&[p], &keep_book, None).unwrap().0.len(), 7);
}

#[test]
fn skip_plies_check_and_sampling() {
    let dir = tempfile::tempdir().unwrap();
    let text = r#"[Result "0-1"]

1. f3 e5 2. g4 Qh4# 0-1

[Result "1/2-1/2"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 1/2-1/2
"#;
    let p = write(dir.path(), "g.pgn", text);
    let all = extract_pgn(std::slice::from_ref(&p), &opts(), None)
        .unwrap()
        .0;
    assert_eq!(all.len(), 4 + 10);
    let o = ExtractOptions {
        skip_plies: 3,
        ..opts()
    };
    let (s, r) = extract_pgn(std::slice::from_ref(&p), &o, None).unwrap();
    assert_eq!(s.len(), 1 + 7);
    assert_eq!(r.skipped["opening plies"], 6);

    let o = ExtractOptions {
        skip_mated_games: true,
        ..opts()
    };
    let (s, r) = extract_pgn(std::slice::from_ref(&p), &o, None).unwrap();
    assert_eq!(s.len(), 10);
    assert!(s.iter().all(|x| x.result == 0.5 && x.game == 1));
    assert_eq!(r.skipped["games ended by mate"], 1);

    let o = ExtractOptions {
        max_per_game: Some(3),
        seed: 9,
        ..opts()
    };
    let (s, r) = extract_pgn(std::slice::from_ref(&p), &o, None).unwrap();
    assert_eq!(s.iter().filter(|x| x.game == 0).count(), 3);
    assert_eq!(s.iter().filter(|x| x.game == 1).count(), 3);
    assert_eq!(r.skipped["over the per-game limit"], 1 + 7);
    // Deterministic for a seed.
    assert_eq!(
        s,
        extract_pgn(std::slice::from_ref(&p), &o, None).unwrap().0
    );

    // Two checks: after 2. Qh5+ and 3. Qxg6+.
    let text = "[Result \"1-0\"]\n\n1. e4 f5 2. Qh5+ g6 3. Qxg6+ hxg6 1-0\n";
    let p = write(dir.path(), "c.pgn", text);
    let o = ExtractOptions {
        skip_check: true,
        ..opts()
    };
    let (s, r) = extract_pgn(&[p], &o, None).unwrap();
    assert_eq!(s.len(), 4);
    assert_eq!(r.skipped["positions in check"], 2);
    assert!(s.iter().all(|x| !x.position().unwrap().is_check()));
}

#[test]
fn malformed_games_are_reported_with_game_number_skipped_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    let text = r#"[Result "1-0"]

1. e4 e5 1-0

[Result "1-0"]

1. e4 e5 2. Ke3 Nc6 1-0

[Result "0-1"]
[SetUp "1"]
[FEN "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNZ w KQkq - 0 1"]

1. e4 e5 0-1

[Result "*"]

1. d4 d5 *

[Variant "Atomic"]
[Result "1-0"]

1. e4 1-0

[Result "1/2-1/2"]
[SetUp "1"]

1. d4 1/2-1/2

[Result "1/2-1/2"]

1. d4 d5 1/2-1/2
"#;
    let p = write(dir.path(), "bad.pgn", text);
    let (s, r) = extract_pgn(std::slice::from_ref(&p), &opts(), None).unwrap();
    assert_eq!(r.games, 7);
    assert_eq!(r.errors, 3, "{r}");
    let name = p.display().to_string();
    assert!(
        r.messages[0].starts_with(&format!("{name}: game 2: illegal move Ke3 at ply 3")),
        "{:?}",
        r.messages
    );
    assert!(
        r.messages[1].starts_with(&format!("{name}: game 3: bad FEN tag")),
        "{:?}",
        r.messages
    );
    assert!(
        r.messages[2].starts_with(&format!(
            "{name}: game 6: [SetUp \"1\"] without a [FEN] tag"
        )),
        "{:?}",
        r.messages
    );
    assert_eq!(r.skipped["games with no result"], 1);
    assert_eq!(r.skipped["unsupported variant"], 1);
    // Games 1 and 7 give two positions each.
    assert_eq!(s.len(), 4);
    assert_eq!(r.kept, 4);
    let ids: Vec<u32> = s.iter().map(|x| x.game).collect();
    assert_eq!(ids, vec![0, 0, 6, 6]);
    assert!(r.to_string().contains("errors:         3"));

    // Strict stops at game 2.
    let strict = ExtractOptions {
        strict: true,
        ..opts()
    };
    match extract_pgn(std::slice::from_ref(&p), &strict, None) {
        Err(DataError::Input { location, message }) => {
            assert_eq!(location, format!("{name}: game 2"));
            assert!(message.starts_with("illegal move Ke3"), "{message}");
        }
        other => panic!("expected an input error, got {other:?}"),
    }
    // load() detects PGN by content and behaves the same.
    let (s2, r2) = load(&p, &LoadOptions::default()).unwrap();
    assert_eq!((s2.len(), r2.errors), (4, 3));
    assert!(load(
        &p,
        &LoadOptions {
            strict: true,
            ..LoadOptions::default()
        }
    )
    .is_err());
}

#[test]
fn truncated_and_garbage_pgn_do_not_panic() {
    let dir = tempfile::tempdir().unwrap();
    for (i, text) in [
        "[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 {unterminated comment",
        "[Event \"x\n\n1. e4",
        "1. e4 (1. d4 (1. c4) e5) e5 2. Qxx9 1-0",
        "[FEN \"\"]\n\n1. e4 *",
        "}}}{{{ ((( ))) 1. 2. 3. $5 !! ?? 0-1 1-0",
    ]
    .iter()
    .enumerate()
    {
        let p = write(dir.path(), &format!("t{i}.pgn"), text);
        let _ = extract_pgn(&[p], &opts(), None);
    }
}

#[test]
fn dedup_by_zobrist_hash() {
    let dir = tempfile::tempdir().unwrap();
    let game = "[Result \"1/2-1/2\"]\n\n1. Nf3 Nf6 2. Ng1 Ng8 3. e4 1/2-1/2\n\n";
    let p = write(dir.path(), "d.pgn", &game.repeat(3));
    let (s, _) = extract_pgn(std::slice::from_ref(&p), &opts(), None).unwrap();
    assert_eq!(s.len(), 15);
    let o = ExtractOptions {
        dedup: true,
        ..opts()
    };
    let (s, r) = extract_pgn(&[p], &o, None).unwrap();
    // Start position repeats after 2... Ng8: distinct are start, after Nf3, after Nf6, after Ng1.
    assert_eq!(s.len(), 4, "{r}");
    assert_eq!(r.skipped["duplicates"], 11);
}

#[test]
fn filters_quiet_and_quiescence_leaf() {
    let dir = tempfile::tempdir().unwrap();
    // After 1. e4 d5 White can take on d5: not quiet.
    let text = "[Result \"1-0\"]\n\n1. e4 d5 2. exd5 Qxd5 3. Nc3 1-0\n";
    let p = write(dir.path(), "f.pgn", text);
    let quiet = ExtractOptions {
        filter: Filter::Quiet,
        ..opts()
    };
    let (s, r) = extract_pgn(std::slice::from_ref(&p), &quiet, None).unwrap();
    // After 2. exd5 Black wins the pawn back: the one position that is not quiet. (After
    // 1... d5, exd5 Qxd5 is an even exchange, so standing pat is as good: quiet.)
    assert_eq!(r.skipped["not quiet"], 1, "{r}");
    assert_eq!(s.len(), 4);
    let after_exd5 = |p: &Chess| {
        p.turn() == Color::Black && p.board().piece_at(Square::D5) == Some(Color::White.pawn())
    };
    assert!(s.iter().all(|x| !after_exd5(&x.position().unwrap())));
    let leaf = ExtractOptions {
        filter: Filter::QuiescenceLeaf,
        ..opts()
    };
    let (s, _) = extract_pgn(&[p], &leaf, None).unwrap();
    assert_eq!(s.len(), 5);
    // Every leaf is quiet for the same evaluation.
    let model = eval::Model::new(eval::ModelKind::Psqt);
    let w = model.default_weights();
    for x in &s {
        assert!(eval::is_quiet(&model, &x.position().unwrap(), &w));
    }
}

/// The positions with castling rights, and those with rights off the corners (every one in
/// Chess960 mode), in every 7th position of `s`.
fn castling_rights(s: &[data::Sample]) -> (usize, usize) {
    let mut with_rights = 0;
    let mut non_corner = 0;
    for x in s.iter().step_by(7) {
        let pos = x.position().expect("every packed position is legal");
        let rights = pos.castles().castling_rights();
        if rights.any() {
            with_rights += 1;
            if (rights & !shakmaty::Bitboard::CORNERS).any() {
                non_corner += 1;
                assert_eq!(pos.castles().mode(), CastlingMode::Chess960);
            }
        }
    }
    (with_rights, non_corner)
}

/// Game 1 of the TCEC Chess960 file: RQBKNNRB, 8... O-O puts the black king on g8 and the
/// rook on f8, and 11. O-O-O the white king on c1 and the rook on d1.
fn check_first_chess960_game(s: &[data::Sample]) {
    let g0: Vec<Chess> = s
        .iter()
        .filter(|x| x.game == 0)
        .map(|x| x.position().unwrap())
        .collect();
    let after_black = &g0[16]; // before 9. Ne5
    assert_eq!(after_black.turn(), Color::White);
    assert_eq!(after_black.board().king_of(Color::Black), Some(Square::G8));
    assert_eq!(
        after_black.board().role_at(Square::F8),
        Some(Role::Rook),
        "{after_black:?}"
    );
    let after_white = &g0[21]; // before 11... Qa7
    assert_eq!(after_white.board().king_of(Color::White), Some(Square::C1));
    assert_eq!(after_white.board().role_at(Square::D1), Some(Role::Rook));
    assert!(after_white.castles().castling_rights().is_empty());
    // The positions after castling are legal and play on.
    assert!(!after_white.legal_moves().is_empty());
}

#[test]
#[ignore = "needs ../shared/data: cargo test --workspace -- --include-ignored"]
fn chess960_real_file() {
    let path = common::shared("tcec-chess960.pgn.zst");
    let (s, r) = extract_pgn(&[path], &opts(), None).unwrap();
    assert_eq!(r.games, 5230);
    assert_eq!(r.errors, 0, "{r}");
    assert!(s.len() > 500_000, "{r}");
    // Castling rights survive packing, including Chess960 rook squares off the corners.
    let (with_rights, non_corner) = castling_rights(&s);
    assert!(with_rights > 10_000, "{with_rights}");
    assert!(non_corner > 1_000, "{non_corner}");
    check_first_chess960_game(&s);
}

/// The same on the fixture's first 50 games of that file: every game read, none in error, and
/// castling rights off the corners survive packing.
#[test]
fn chess960_fixture() {
    use std::io::Read;
    let path = common::fixture("tcec-chess960-50.pgn.zst");
    let mut text = String::new();
    fsutil::source::open(&path)
        .unwrap()
        .0
        .read_to_string(&mut text)
        .unwrap();
    let games = text.lines().filter(|l| l.starts_with("[Event ")).count();
    let (s, r) = extract_pgn(&[path], &opts(), None).unwrap();
    assert_eq!(r.games as usize, games);
    assert_eq!(r.errors, 0, "{r}");
    // Every game gives positions.
    let ids: std::collections::BTreeSet<u32> = s.iter().map(|x| x.game).collect();
    assert_eq!(ids.len(), games, "{r}");
    let (with_rights, non_corner) = castling_rights(&s);
    assert!(
        with_rights > 0 && non_corner > 0,
        "{with_rights} {non_corner}"
    );
    check_first_chess960_game(&s);
}

#[test]
fn compressed_pgn_is_detected_by_content() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    // gzip-compressed PGN with a misleading name.
    let p = dir.path().join("games.epd");
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(GOOD.as_bytes()).unwrap();
    std::fs::write(&p, e.finish().unwrap()).unwrap();
    let (s, r) = load(&p, &LoadOptions::default()).unwrap();
    assert_eq!((s.len(), r.games), (5, 1));
    let (s2, _) = extract_pgn(std::slice::from_ref(&p), &opts(), None).unwrap();
    assert_eq!(s2, s);
}
