//! The EPD reader: every result form, the stm switch, errors and counts.

use crate::common;

use std::io::Write;

use data::epd::{parse_line, EpdOptions};
use data::{load, DataError, LoadOptions};
use shakmaty::{Color, Position};

fn one(line: &str) -> (f64, Option<f32>) {
    let r = parse_line(line, &EpdOptions::default())
        .unwrap_or_else(|e| panic!("{line}: {e}"))
        .expect("a record");
    (r.result, r.score)
}

const W: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -";
const B: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -";

#[test]
fn quiet_labeled_1k_reads_every_record_with_the_right_results() {
    let path = common::fixture("quiet-labeled-1k.epd");
    let text = std::fs::read_to_string(&path).unwrap();
    // Independent count from the raw text.
    let lines = text.lines().filter(|l| !l.trim().is_empty()).count();
    let wins = text.matches("\"1-0\"").count() as u64;
    let draws = text.matches("\"1/2-1/2\"").count() as u64;
    let losses = text.matches("\"0-1\"").count() as u64;
    assert_eq!(lines, 1000);
    assert!(
        !text.ends_with('\n'),
        "the sample's last line has no newline"
    );

    let (samples, report) = load(&path, &LoadOptions::default()).unwrap();
    assert_eq!(samples.len(), 1000, "{report}");
    assert_eq!(report.errors, 0, "{report}");
    assert_eq!(report.results, [wins, draws, losses]);
    assert_eq!(wins + draws + losses, 1000);
    // Line by line, the result matches the quoted one.
    for (s, line) in samples.iter().zip(text.lines()) {
        let expected = if line.contains("\"1-0\"") {
            1.0
        } else if line.contains("\"0-1\"") {
            0.0
        } else {
            0.5
        };
        assert_eq!(s.result, expected, "{line}");
        let fen = line.split(' ').take(4).collect::<Vec<_>>().join(" ");
        assert!(s.to_epd().starts_with(&fen), "{} vs {line}", s.to_epd());
    }
}

#[test]
fn zurichess_c9() {
    assert_eq!(one(&format!("{W} c9 \"1-0\";")), (1.0, None));
    assert_eq!(one(&format!("{W} c9 \"1/2-1/2\";")), (0.5, None));
    assert_eq!(one(&format!("{W} c9 \"0-1\";")), (0.0, None));
}

#[test]
fn bracketed_results() {
    assert_eq!(one(&format!("{W} [1.0]")).0, 1.0);
    assert_eq!(one(&format!("{W} [0.5]")).0, 0.5);
    assert_eq!(one(&format!("{W} [0.0]")).0, 0.0);
    assert_eq!(one(&format!("{W} [1]")).0, 1.0);
    assert_eq!(one(&format!("{W} [0]")).0, 0.0);
    // With move counters before the result.
    assert_eq!(one(&format!("{W} 0 1 [0.5]")).0, 0.5);
    assert!(parse_line(&format!("{W} [1.5]"), &EpdOptions::default()).is_err());
}

#[test]
fn quoted_result_anywhere() {
    assert_eq!(one(&format!("{W} id \"x\"; \"1-0\"")).0, 1.0);
    assert_eq!(one(&format!("{W} bm e5; c0 \"0-1\"; id \"t1\";")).0, 0.0);
    assert_eq!(one(&format!("{W} \"1/2-1/2\" id \"t1\";")).0, 0.5);
}

#[test]
fn bare_probability_and_bare_results() {
    assert_eq!(one(&format!("{W} 0.73")).0, 0.73);
    assert_eq!(one(&format!("{W} 1")).0, 1.0);
    assert_eq!(one(&format!("{W} 0 1 0.25")).0, 0.25);
    assert_eq!(one(&format!("{W} 1-0")).0, 1.0);
    assert_eq!(one(&format!("{W} 1/2-1/2")).0, 0.5);
}

#[test]
fn score_fields() {
    // ce is the side to move's view (EPD standard).
    assert_eq!(one(&format!("{W} ce 35; c9 \"1-0\";")), (1.0, Some(35.0)));
    assert_eq!(one(&format!("{B} ce 35; c9 \"1-0\";")), (1.0, Some(-35.0)));
    // `score` is White's view.
    assert_eq!(one(&format!("{B} [0.5]; score 35")), (0.5, Some(35.0)));
    assert_eq!(one(&format!("{W} [0.5] ; score -12")), (0.5, Some(-12.0)));
    // A bare number outside [0, 1] after the result.
    assert_eq!(one(&format!("{W} [1.0] 140")), (1.0, Some(140.0)));
    // No score.
    assert_eq!(one(&format!("{W} [1.0]")).1, None);
}

#[test]
fn game_ids() {
    let game = |line: &str| {
        parse_line(line, &EpdOptions::default())
            .unwrap_or_else(|e| panic!("{line}: {e}"))
            .expect("a record")
            .game
    };
    assert_eq!(game(&format!("{W} [1.0] ce 12; game 7;")), Some(7));
    assert_eq!(game(&format!("{W} [1.0]; game 0;")), Some(0));
    // `game` starts an operation even without a `;`: 7 is not read as a score.
    assert_eq!(one(&format!("{W} [0.5] game 7")), (0.5, None));
    assert_eq!(game(&format!("{W} [1.0]")), None);
    for bad in ["game", "game -1", "game x", "game 4294967296"] {
        let line = format!("{W} [1.0]; {bad};");
        assert!(parse_line(&line, &EpdOptions::default()).is_err(), "{line}");
    }
    // Lines without a label are games of their own, numbered after the largest id so far.
    let text = format!("{W} [1.0]\n{W} [1.0]; game 5;\n{W} [0.0]; game 5;\n{B} [0.5]\n");
    let (s, report) =
        data::read_epd(text.as_bytes(), "<t>".as_ref(), &LoadOptions::default()).unwrap();
    assert_eq!(report.errors, 0, "{report}");
    let ids: Vec<u32> = s.iter().map(|x| x.game).collect();
    assert_eq!(ids, [0, 5, 5, 6]);
}

#[test]
fn side_to_move_switch() {
    let stm = EpdOptions { stm_results: true };
    let w = parse_line(&format!("{W} [1.0]; score 20"), &stm)
        .unwrap()
        .unwrap();
    let b = parse_line(&format!("{B} [1.0]; score 20"), &stm)
        .unwrap()
        .unwrap();
    assert_eq!(w.position.turn(), Color::White);
    assert_eq!((w.result, w.score), (1.0, Some(20.0)));
    assert_eq!((b.result, b.score), (0.0, Some(-20.0)));
    let p = parse_line(&format!("{B} 0.7"), &stm).unwrap().unwrap();
    assert!((p.result - 0.3).abs() < 1e-12);
    // ce stays the side to move's view either way.
    let c = parse_line(&format!("{B} ce 20; c9 \"1-0\";"), &stm)
        .unwrap()
        .unwrap();
    assert_eq!((c.result, c.score), (0.0, Some(-20.0)));
}

#[test]
fn chess960_castling_rights_in_epd() {
    let r = parse_line(
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - [0.5]",
        &EpdOptions::default(),
    )
    .unwrap()
    .unwrap();
    assert_eq!(r.position.castles().castling_rights().count(), 4);
}

fn write(dir: &std::path::Path, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::File::create(&p)
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    p
}

#[test]
fn malformed_lines_are_reported_with_file_and_line_skipped_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "{W} [1.0]\n\
         rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - [1.0]\n\
         {W}\n\
         \n\
         # a comment\n\
         complete garbage here\n\
         8/8/8/8/8/8/8/8 w - - [0.5]\n\
         {B} c9 \"0-1\";\n"
    );
    let path = write(dir.path(), "mixed.epd", &text);
    let (samples, report) = load(&path, &LoadOptions::default()).unwrap();
    assert_eq!(samples.len(), 2);
    assert_eq!(report.read, 6);
    assert_eq!(report.kept, 2);
    assert_eq!(report.errors, 4);
    let m = &report.messages;
    let name = path.display().to_string();
    assert!(m[0].starts_with(&format!("{name}:2: bad FEN")), "{m:?}");
    assert!(m[1].starts_with(&format!("{name}:3: no result")), "{m:?}");
    assert!(m[2].starts_with(&format!("{name}:6: not a FEN")), "{m:?}");
    assert!(
        m[3].starts_with(&format!("{name}:7: illegal position")),
        "{m:?}"
    );
    let shown = report.to_string();
    assert!(shown.contains("errors:         4"), "{shown}");

    // Strict stops at the first, line 2.
    let strict = LoadOptions {
        strict: true,
        ..LoadOptions::default()
    };
    match load(&path, &strict) {
        Err(DataError::Input { location, message }) => {
            assert_eq!(location, format!("{name}:2"));
            assert!(message.starts_with("bad FEN"), "{message}");
        }
        other => panic!("expected an input error, got {other:?}"),
    }
}

#[test]
fn invalid_utf8_and_crlf() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("x.epd");
    let mut bytes = format!("{W} [1.0]\r\n").into_bytes();
    bytes.extend_from_slice(b"\xff\xfe garbage\r\n");
    bytes.extend_from_slice(format!("{B} [0.0]").as_bytes());
    std::fs::write(&p, bytes).unwrap();
    let (samples, report) = load(&p, &LoadOptions::default()).unwrap();
    assert_eq!(samples.len(), 2);
    assert_eq!(report.errors, 1);
    assert!(report.messages[0].contains(":2: not valid UTF-8"));
}
