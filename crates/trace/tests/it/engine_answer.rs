//! The engine line protocol's answer joined with the position into a trace line.

use crate::common;

use common::fixture;
use trace::{parse_engine_answer, parse_line};

const FEN: &str = "4k3/8/8/8/8/8/3P4/4K3 b - - 0 1";

#[test]
fn an_answer_becomes_a_trace_line() {
    let m = fixture();
    let line = parse_engine_answer(
        "trace phase 17; eval 42; t 0:1:0 5:0:1; f king_attackers:2:0\n",
        FEN,
        "c9 \"1-0\";",
        &m,
    )
    .unwrap();
    assert_eq!(
        line,
        format!("{FEN} c9 \"1-0\"; phase 17; eval 42; t 0:1:0 5:0:1; f king_attackers:2:0")
    );
    let t = parse_line(&line, &m).unwrap().unwrap();
    assert_eq!((t.result, t.phase, t.eval), (1.0, 17.0, Some(42.0)));
    assert_eq!(t.coeffs, vec![(0, 1.0, 0.0), (5, 0.0, 1.0)]);
    // A bare `trace` (no coefficients) is an answer too, if it gives the phase.
    assert!(parse_engine_answer("trace phase 3", FEN, "[0.5]", &m).is_ok());
}

#[test]
fn garbage_answers_are_refused_with_the_reason() {
    let m = fixture();
    let cases: &[(&str, &str)] = &[
        ("info string hello", "does not begin with `trace`"),
        ("tracephase 3", "does not begin with `trace`"),
        ("", "does not begin with `trace`"),
        ("trace phase 99; t 0:1:0", "`phase` 99 out of range"),
        ("trace phase 3; t 0:1", "expected index:white:black"),
        ("trace phase 3; t 500:1:0", "beyond the manifest"),
        ("trace phase 3; f mobility:1:0", "unknown feature"),
        ("trace t 0:1:0", "missing `phase`"),
        ("trace phase 3\ntrace phase 4", "several lines"),
    ];
    for (answer, what) in cases {
        let e = parse_engine_answer(answer, FEN, "[0.5]", &m).unwrap_err();
        assert!(e.contains(what), "{answer:?}: {e}");
    }
    // A missing label is the input's fault, named as such.
    let e = parse_engine_answer("trace phase 3", FEN, "", &m).unwrap_err();
    assert!(e.contains("no result"), "{e}");
}
