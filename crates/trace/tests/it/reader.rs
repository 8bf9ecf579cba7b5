//! Trace files: every malformed-record path named by file and line, skip-and-count against
//! strict, and the text -> binary -> text round trip (plain, gzip, zstd).

use crate::common;

use std::path::{Path, PathBuf};

use common::fixture;
use trace::{read_traces, write_binary, write_text, ReadOptions, TraceError};

const GOOD: &str =
    "4k3/8/8/8/8/8/3P4/4K3 w - - c9 \"1-0\"; phase 17; scale 100; const -3; eval 42; \
                    t 0:1:0 7:0:1 14:2:1 28:1:0; f king_attackers:2:1 pawns:1:0";
const GOOD_BLACK: &str = "r3k3/8/8/8/8/8/8/4K2R b Kq - 3 20 [0.5] ce 15; game 9; phase 3; eval -7.5; t 3:1:1 3:0:1 5:1:1";

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// Each malformed line, and the message part it must give.
const BAD: &[(&str, &str)] = &[
    (
        "4k3/8/8/8/8/8/3P4/4K3 w - - [1.0]; phase 3; t x:1:0",
        "index \"x\" is not a whole number",
    ),
    (
        "4k3/8/8/8/8/8/3P4/4K3 w - - [1.0]; phase 3; t 4:1",
        "expected index:white:black",
    ),
    (
        "4k3/8/8/8/8/8/3P4/4K3 w - - [1.0]; phase 3; t 4:one:0",
        "white \"one\" is not a number",
    ),
    (
        "4k3/8/8/8/8/8/3P4/4K3 w - - [1.0]; phase 3; f nope:1:0",
        "unknown feature \"nope\"",
    ),
    (
        "4k3/8/8/8/8/8/3P4/4K3 w - - [1.0]; phase 30",
        "`phase` 30 out of range",
    ),
    (
        "4k3/8/8/8/8/8/3P4/4K3 w - - [1.0]; phase 2.5",
        "`phase` 2.5 out of range",
    ),
    (
        "4k3/8/8/8/8/8/3P4/4K3 w - - [1.0]; phase 3; t 29:1:0",
        "index 29 beyond the manifest (29 elements",
    ),
    (
        "4k3/8/8/8/8/8/3P4/4KK2 w - - [1.0]; phase 3",
        "illegal position",
    ),
    ("not/a/fen w - - [1.0]; phase 3", "FEN"),
    (
        "4k3/8/8/8/8/8/3P4/4K3 w - - [1.0]; t 0:1:0",
        "missing `phase`",
    ),
    (
        "4k3/8/8/8/8/8/3P4/4K3 w - - [1.0]; phase 3; phase 4",
        "`phase` given twice",
    ),
    (
        "4k3/8/8/8/8/8/3P4/4K3 w - - [1.0]; phase 3; scale 200",
        "`scale` 200 out of range",
    ),
    (
        "4k3/8/8/8/8/8/3P4/4K3 w - - [1.0]; phase 3; eval x",
        "`eval`: \"x\" is not a number",
    ),
    ("4k3/8/8/8/8/8/3P4/4K3 w - - phase 3; t 0:1:0", "no result"),
];

#[test]
fn each_malformed_line_is_named_by_file_and_line_then_skipped_or_fatal() {
    let m = fixture();
    let dir = tempfile::tempdir().unwrap();
    for (k, (bad, what)) in BAD.iter().enumerate() {
        let text = format!("# a comment\n{GOOD}\n\n{bad}\n{GOOD_BLACK}\n");
        let path = write(dir.path(), &format!("t{k}.txt"), &text);
        let (traces, report) =
            read_traces(std::slice::from_ref(&path), &m, &ReadOptions::default()).unwrap();
        assert_eq!(traces.len(), 2, "{bad}");
        assert_eq!((report.read, report.skipped), (3, 1), "{bad}");
        let want = format!("{}:4: ", path.display());
        assert!(
            report.messages[0].starts_with(&want),
            "{:?} should start {want}",
            report.messages
        );
        assert!(
            report.messages[0].contains(what),
            "{:?} should say {what}",
            report.messages
        );
        let strict = ReadOptions { strict: true };
        match read_traces(std::slice::from_ref(&path), &m, &strict) {
            Err(TraceError::Input { location, message }) => {
                assert_eq!(location, format!("{}:4", path.display()));
                assert!(message.contains(what), "{message}");
            }
            other => panic!("{bad}: strict read gave {other:?}"),
        }
    }
}

#[test]
fn good_lines_read_as_written() {
    let m = fixture();
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "t.txt",
        &format!("{GOOD}\n{GOOD_BLACK}\n{GOOD}\n"),
    );
    let (t, report) = read_traces(&[path], &m, &ReadOptions::default()).unwrap();
    assert_eq!((report.read, report.skipped), (3, 0));
    assert_eq!(
        (
            t[0].result,
            t[0].phase,
            t[0].scale,
            t[0].constant,
            t[0].eval
        ),
        (1.0, 17.0, Some(100.0), -3.0, Some(42.0))
    );
    assert_eq!(
        t[0].coeffs,
        vec![(0, 1.0, 0.0), (7, 0.0, 1.0), (14, 2.0, 1.0), (28, 1.0, 0.0)]
    );
    assert_eq!(t[0].features, vec![(0, 2.0, 1.0), (1, 1.0, 0.0)]);
    // Repeated index 3 adds up; `ce` is the side to move's view (Black): White's view is -15.
    assert_eq!(t[1].coeffs, vec![(3, 1.0, 2.0), (5, 1.0, 1.0)]);
    assert_eq!(
        (t[1].score, t[1].eval, t[1].white_to_move),
        (Some(-15.0), Some(-7.5), false)
    );
    // Game ids: the line's own, else one past the largest so far.
    assert_eq!((t[0].game, t[1].game, t[2].game), (0, 9, 10));
    assert!(
        t[1].fen().starts_with("r3k3/8/8/8/8/8/8/4K2R b Kq -"),
        "{}",
        t[1].fen()
    );
}

fn round_trip(ext: &str) {
    let m = fixture();
    let dir = tempfile::tempdir().unwrap();
    let src = write(dir.path(), "src.txt", &format!("{GOOD}\n{GOOD_BLACK}\n"));
    let (a, _) = read_traces(&[src], &m, &ReadOptions::default()).unwrap();
    let bin = dir.path().join(format!("t.gtt{ext}"));
    write_binary(&bin, &a).unwrap();
    let (b, report) = read_traces(&[bin], &m, &ReadOptions { strict: true }).unwrap();
    assert_eq!(report.read, 2);
    assert_eq!(a, b);
    let text = dir.path().join(format!("t.txt{ext}"));
    write_text(&text, &b, &m).unwrap();
    let (c, _) = read_traces(
        std::slice::from_ref(&text),
        &m,
        &ReadOptions { strict: true },
    )
    .unwrap();
    assert_eq!(a, c);
    // Written again, the text is the same bytes.
    let again = dir.path().join(format!("again.txt{ext}"));
    write_text(&again, &c, &m).unwrap();
    let plain = |p: &Path| fsutil::source::read_all(p).unwrap();
    assert_eq!(plain(&text), plain(&again));
}

#[test]
fn text_binary_text_round_trip() {
    round_trip("");
}

#[test]
fn round_trip_compressed() {
    round_trip(".zst");
    round_trip(".gz");
}

#[test]
fn non_integer_counts_and_large_indices_survive_the_binary_form() {
    let m = fixture();
    let dir = tempfile::tempdir().unwrap();
    let src = write(
        dir.path(),
        "s.txt",
        "4k3/8/8/8/8/8/3P4/4K3 w - - [0.25]; phase 0; t 1:0.5:-1.25 2:200:0 28:-128:127\n",
    );
    let (a, _) = read_traces(&[src], &m, &ReadOptions { strict: true }).unwrap();
    let bin = dir.path().join("t.gtt");
    write_binary(&bin, &a).unwrap();
    let (b, _) = read_traces(&[bin], &m, &ReadOptions { strict: true }).unwrap();
    assert_eq!(a, b);
    assert_eq!(
        b[0].coeffs,
        vec![(1, 0.5, -1.25), (2, 200.0, 0.0), (28, -128.0, 127.0)]
    );
}

#[test]
fn truncated_and_corrupt_binary_is_named_by_record() {
    let m = fixture();
    let dir = tempfile::tempdir().unwrap();
    let src = write(
        dir.path(),
        "s.txt",
        &format!("{GOOD}\n{GOOD_BLACK}\n{GOOD}\n"),
    );
    let (a, _) = read_traces(&[src], &m, &ReadOptions::default()).unwrap();
    let bin = dir.path().join("t.gtt");
    write_binary(&bin, &a).unwrap();
    let bytes = std::fs::read(&bin).unwrap();
    // Cut inside the third record.
    let cut = dir.path().join("cut.gtt");
    std::fs::write(&cut, &bytes[..bytes.len() - 5]).unwrap();
    let (t, report) = read_traces(std::slice::from_ref(&cut), &m, &ReadOptions::default()).unwrap();
    assert_eq!((t.len(), report.skipped), (2, 1));
    assert_eq!(
        report.messages,
        vec![format!(
            "{}: record 3: truncated: the file ends inside record 3 of 3",
            cut.display()
        )]
    );
    let err = read_traces(
        std::slice::from_ref(&cut),
        &m,
        &ReadOptions { strict: true },
    )
    .unwrap_err();
    assert!(
        matches!(err, TraceError::Input { ref location, .. } if *location == format!("{}: record 3", cut.display())),
        "{err}"
    );
    // A header cut short.
    let head = dir.path().join("head.gtt");
    std::fs::write(&head, &bytes[..12]).unwrap();
    let (t, report) = read_traces(&[head], &m, &ReadOptions::default()).unwrap();
    assert_eq!((t.len(), report.skipped), (0, 1));
    assert!(
        report.messages[0].contains("truncated header"),
        "{:?}",
        report.messages
    );
    // Records read against a smaller manifest: the first has a scale it does not declare;
    // without the scale, an index beyond it.
    let small = common::manifest(common::LINEAR);
    let (t, report) =
        read_traces(std::slice::from_ref(&bin), &small, &ReadOptions::default()).unwrap();
    assert_eq!((t.len(), report.skipped), (1, 2)); // the Black-to-move trace uses 3 and 5 only
    assert!(
        report.messages[0].contains(": record 1: a scale, but the manifest declares no `scale`"),
        "{:?}",
        report.messages
    );
    let noscale = write(
        dir.path(),
        "n.txt",
        &format!("{}\n", GOOD.replace("scale 100; ", "")),
    );
    let (a2, _) = read_traces(&[noscale], &m, &ReadOptions::default()).unwrap();
    let bin2 = dir.path().join("n.gtt");
    write_binary(&bin2, &a2).unwrap();
    let (t, report) = read_traces(&[bin2], &small, &ReadOptions::default()).unwrap();
    assert_eq!((t.len(), report.skipped), (0, 1));
    assert!(
        report.messages[0]
            .contains(": record 1: coefficient index 7 beyond the manifest (7 elements)"),
        "{:?}",
        report.messages
    );
    // Trailing bytes.
    let long = dir.path().join("long.gtt");
    std::fs::write(&long, [bytes.as_slice(), b"xx"].concat()).unwrap();
    let (t, report) = read_traces(&[long], &m, &ReadOptions::default()).unwrap();
    assert_eq!((t.len(), report.skipped), (3, 1));
    assert!(
        report.messages[0].contains("bytes after the last record"),
        "{:?}",
        report.messages
    );
}

#[test]
fn several_files_number_games_on() {
    let m = fixture();
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.txt", &format!("{GOOD}\n{GOOD}\n"));
    let b = write(dir.path(), "b.txt", &format!("{GOOD}\n"));
    let (t, _) = read_traces(&[a, b], &m, &ReadOptions::default()).unwrap();
    let games: Vec<u32> = t.iter().map(|t| t.game).collect();
    assert_eq!(games, vec![0, 1, 2]);
}

#[test]
fn phase_from_the_board_when_the_manifest_says_how() {
    let m = common::manifest(&common::LINEAR.replace(
        "\"phase\": { \"max\": 24 }",
        "\"phase\": { \"max\": 24, \"pieces\": {\"knight\": 1, \"bishop\": 1, \"rook\": 2, \"queen\": 4} }",
    ));
    let t = trace::parse_line("r3k3/8/8/8/8/8/8/3QK2R w - - [0.5]; t 0:1:0", &m)
        .unwrap()
        .unwrap();
    assert_eq!(t.phase, 8.0);
    let err =
        trace::parse_line("r3k3/8/8/8/8/8/8/3QK2R w - - [0.5]; t 0:1:0", &fixture()).unwrap_err();
    assert!(err.contains("missing `phase`"), "{err}");
}

#[test]
fn memory_per_trace() {
    let m = fixture();
    let mut line = "4k3/8/8/8/8/8/3P4/4K3 w - - [0.5]; phase 12; t".to_string();
    for i in 0..20 {
        line += &format!(" {i}:1:0");
    }
    let t = trace::parse_line(&line, &m).unwrap().unwrap();
    assert_eq!(t.coeffs.len(), 20);
    println!(
        "Trace: {} bytes inline, {} with 20 coefficients",
        std::mem::size_of::<trace::Trace>(),
        t.memory()
    );
    assert!(t.memory() <= 120 + 20 * 12, "{} bytes", t.memory());
}

#[test]
fn phases_above_max_read_when_the_manifest_says_the_phase_is_not_clamped() {
    let clamped = common::manifest(common::LINEAR);
    let json = common::LINEAR.replace(
        r#""phase": { "max": 24 }"#,
        r#""phase": { "max": 24, "clamped": false }"#,
    );
    let unclamped = common::manifest(&json);
    assert!(clamped.phase_clamped() && !unclamped.phase_clamped());
    let dir = tempfile::tempdir().unwrap();
    let line = |phase: &str| format!("4k3/8/8/8/8/8/3P4/4K3 w - - [1.0]; phase {phase}; t 0:1:0\n");
    let src = write(dir.path(), "p.txt", &(line("26") + &line("24")));
    let strict = ReadOptions { strict: true };
    let (t, _) = read_traces(std::slice::from_ref(&src), &unclamped, &strict).unwrap();
    assert_eq!((t[0].phase, t[1].phase), (26.0, 24.0));
    // The clamped manifest refuses it and says how to declare an unclamped phase.
    let e = read_traces(std::slice::from_ref(&src), &clamped, &strict).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("p.txt:1")
            && msg.contains("`phase` 26 out of range")
            && msg.contains("\"clamped\": false"),
        "{msg}"
    );
    // Negative, fractional or non-finite phases are refused either way.
    for (bad, why) in [
        ("-1", "out of range"),
        ("2.5", "out of range"),
        ("inf", "not a number"),
    ] {
        let p = write(dir.path(), "bad.txt", &line(bad));
        let e = read_traces(&[p], &unclamped, &strict).unwrap_err();
        assert!(e.to_string().contains(why), "{bad}: {e}");
    }
    // The binary form keeps it, and checks it against the manifest it is read with.
    let bin = dir.path().join("p.gtt");
    write_binary(&bin, &t).unwrap();
    let (b, _) = read_traces(std::slice::from_ref(&bin), &unclamped, &strict).unwrap();
    assert_eq!(b, t);
    let e = read_traces(&[bin], &clamped, &strict).unwrap_err();
    assert!(e.to_string().contains("phase 26 out of range"), "{e}");
}
