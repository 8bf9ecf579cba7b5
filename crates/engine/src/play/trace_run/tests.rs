//! Unit tests of tracing: the labels joined to an answer, the progress header.

use data::Sample;

use super::{epd_and_labels, header_lines, TraceSettings};

#[test]
fn labels_are_the_samples_own() {
    let pos = shakmaty::Chess::default();
    let (epd, labels) = epd_and_labels(&Sample::from_position(&pos, 1.0, Some(-12.0), 7));
    assert_eq!(epd, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -");
    assert_eq!(labels, "[1.0] ce -12; game 7");
    let (_, labels) = epd_and_labels(&Sample::from_position(&pos, 0.25, None, 0));
    assert_eq!(labels, "[0.25]; game 0");
}

#[test]
fn the_header_names_the_engine_and_the_manifest() {
    let s = TraceSettings::new("./fixture --x");
    let a = header_lines(&s, "{\"a\": 1}");
    assert!(
        a.starts_with("engine ./fixture --x\nrequest trace\nmanifest "),
        "{a}"
    );
    assert_ne!(a, header_lines(&s, "{\"a\": 2}"));
}
