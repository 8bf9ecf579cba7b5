//! A `Var` is `Copy` and `Send` and not tied to its tape: one kept past `rewind` or `record`, or
//! brought from another tape or thread, must be rejected (a panic naming the misuse) on every
//! path that reads its node index, never written through. These run in release builds too
//! (`cargo test --release -p tape`), where the tape's sweep writes adjoints unchecked.

use std::panic::{catch_unwind, AssertUnwindSafe};

use tape::{Scalar, Tape, Var};

/// Runs `f` and asserts that it panics with the tape's stale-`Var` message (not some other
/// panic, such as an index out of bounds).
fn assert_rejected(what: &str, f: impl FnOnce()) {
    let err = catch_unwind(AssertUnwindSafe(f)).expect_err(what);
    let msg = err
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| err.downcast_ref::<&str>().copied())
        .unwrap_or("");
    assert!(
        msg.contains("is not on the active tape"),
        "{what}: unexpected panic message {msg:?}"
    );
}

/// Records `x` (an expression whose value the test does not need).
fn ignore(x: Var) {
    let _ = x;
}

/// One use of a `Var` during a recording.
type Use = Box<dyn Fn(&mut tape::Recording<'_>)>;

/// Every way a `Var` operand or output enters the tape, with `stale` in it and `live` (a node of
/// the active recording) beside it.
fn uses(stale: Var, live: Var) -> Vec<(&'static str, Use)> {
    vec![
        ("add", Box::new(move |_| ignore(stale + live))),
        ("add reversed", Box::new(move |_| ignore(live + stale))),
        ("add constant", Box::new(move |_| ignore(stale + 1.0))),
        ("scale", Box::new(move |_| ignore(stale * 3.0))),
        ("neg", Box::new(move |_| ignore(-stale))),
        ("mul", Box::new(move |_| ignore(stale * live))),
        (
            "div by constant var",
            Box::new(move |_| ignore(Var::constant(2.0) / stale)),
        ),
        ("sigmoid", Box::new(move |_| ignore(stale.sigmoid()))),
        ("max", Box::new(move |_| ignore(live.max(stale)))),
        (
            "dot",
            Box::new(move |_| ignore(Var::dot(&[live, stale], &[(0, 1.0), (1, 2.0)]))),
        ),
        (
            "linear_combination",
            Box::new(move |_| ignore(Var::linear_combination(&[(live, 1.0), (stale, 2.0)], 0.5))),
        ),
        (
            "backward",
            Box::new(move |rec| rec.backward(stale, 1.0, rec.mark())),
        ),
        ("compile", Box::new(move |rec| drop(rec.compile(stale)))),
    ]
}

/// Checks every use of `stale` against a recording on `tape` made by `setup` (which returns a
/// live node of it).
fn check_all_uses(tape: &mut Tape, stale: Var, setup: impl Fn(&mut tape::Recording<'_>) -> Var) {
    let n = uses(stale, stale).len();
    for k in 0..n {
        tape.record(|rec| {
            let live = setup(rec);
            let (what, f) = uses(stale, live).swap_remove(k);
            assert_rejected(what, || f(rec));
        });
    }
}

#[test]
fn var_kept_past_rewind_is_rejected_beyond_the_end() {
    let mut tape = Tape::new();
    tape.record(|rec| {
        let w = rec.inputs(&[1.0, 2.0]);
        let mark = rec.mark();
        // Many nodes after the mark: the stale one's index is far past the rewound end.
        let mut y = w[0] * w[1];
        for _ in 0..1000 {
            y = y.sigmoid() + w[0];
        }
        rec.rewind(mark);
        assert_eq!(rec.len(), 2);
        for (what, f) in uses(y, w[0]) {
            assert_rejected(what, || f(rec));
        }
    })
}

#[test]
fn var_kept_past_rewind_is_rejected_when_its_index_is_reused() {
    let mut tape = Tape::new();
    tape.record(|rec| {
        let w = rec.inputs(&[1.0, 2.0]);
        let mark = rec.mark();
        let stale = w[0] * w[1];
        rec.rewind(mark);
        // The next node takes the stale one's index.
        let fresh = w[0] + w[1];
        assert_eq!(fresh.index(), stale.index());
        for (what, f) in uses(stale, w[1]) {
            assert_rejected(what, || f(rec));
        }
        // The live nodes still work, and give the right gradient.
        let mut g = [0.0; 2];
        rec.gradient(fresh * w[0], &mut g);
        assert_eq!(g, [2.0 * 1.0 + 2.0, 1.0]);
    });
}

#[test]
fn nested_marks_keep_vars_below_the_mark_live() {
    let mut tape = Tape::new();
    tape.record(|rec| {
        let w = rec.inputs(&[0.5, -1.5]);
        let outer = rec.mark();
        let shared = w[0] * w[1];
        let inner = rec.mark();
        for _ in 0..3 {
            let per_position = (shared + w[0]).powi(2);
            rec.backward(per_position, 1.0, inner);
            rec.rewind(inner);
            // Recorded before the inner mark: still live after each rewind.
            ignore(shared * 2.0);
            rec.rewind(inner);
            assert_rejected("after inner rewind", || ignore(per_position + shared));
        }
        let mut g = [0.0; 2];
        rec.take_gradient(&mut g);
        rec.rewind(outer);
        assert_rejected("after outer rewind", || ignore(shared + w[0]));
        // d/dw of 3 (w0 w1 + w0)^2
        let r = 0.5 * -1.5 + 0.5;
        assert!((g[0] - 3.0 * 2.0 * r * (-1.5 + 1.0)).abs() < 1e-12);
        assert!((g[1] - 3.0 * 2.0 * r * 0.5).abs() < 1e-12);
    });
}

#[test]
fn vars_of_deeper_segments_are_checked_too() {
    // Three rewinds at rising marks leave three segments above the inputs' one: operands in
    // the lower segments take the slow path of the check.
    let mut tape = Tape::new();
    tape.record(|rec| {
        let w = rec.inputs(&[2.0, 3.0]);
        let m1 = rec.mark();
        ignore(w[0] * w[1]);
        rec.rewind(m1);
        let a = w[0] + w[1];
        let m2 = rec.mark();
        let gone = a * 2.0;
        rec.rewind(m2);
        let b = a * w[0];
        let m3 = rec.mark();
        ignore(b + 1.0);
        rec.rewind(m3);
        // Live: the inputs, `a` and `b`, from three different segments.
        let y = Var::linear_combination(&[(w[1], 1.0), (a, 2.0), (b, 3.0)], 0.0);
        let mut g = [0.0; 2];
        rec.gradient(y * w[1], &mut g);
        // y = w1 + 2 (w0 + w1) + 3 (w0 + w1) w0; d(y w1)/dw0 = w1 (2 + 3 (2 w0 + w1))
        assert_eq!(g[0], 3.0 * (2.0 + 3.0 * (4.0 + 3.0)));
        // Stale: recorded after m2 and rewound, its index now holds `b`.
        assert_eq!(gone.index(), b.index());
        assert_rejected("deeper stale", || ignore(gone + w[0]));
        assert_rejected("deeper stale in a sum", || {
            ignore(Var::dot(&[w[0], gone, a], &[(0, 1.0), (2, 1.0), (1, 1.0)]))
        });
    });
}

#[test]
fn var_from_an_earlier_recording_of_the_same_tape_is_rejected() {
    let mut tape = Tape::new();
    let old = {
        tape.record(|rec| {
            let w = rec.inputs(&[1.0, 2.0, 3.0]);
            w[0] * w[1] + w[2]
        })
    };
    // The same tape, recorded again with more nodes: the old index exists but is not the old
    // node.
    check_all_uses(&mut tape, old, |rec| {
        let w = rec.inputs(&[4.0; 10]);
        w[0] * w[1]
    });
}

#[test]
fn var_from_another_tape_is_rejected() {
    let mut other = Tape::new();
    let (small, large) = {
        other.record(|rec| {
            let w = rec.inputs(&[1.0, 2.0]);
            let mut y = w[0] - w[1];
            let small = y;
            for _ in 0..500 {
                y = y * 1.5 + w[0];
            }
            (small, y)
        })
    };
    let mut tape = Tape::new();
    for foreign in [small, large] {
        check_all_uses(&mut tape, foreign, |rec| {
            let w = rec.inputs(&[4.0; 20]);
            w[3] * w[4]
        });
    }
}

#[test]
fn var_from_another_thread_is_rejected() {
    // `Var` is `Send`: one recorded on a tape of another thread can be brought here.
    let foreign: Vec<Var> = std::thread::spawn(|| {
        let mut tape = Tape::new();
        tape.record(|rec| {
            let w = rec.inputs(&[1.0, 2.0, 3.0]);
            let mut out = w.clone();
            out.push(w[0] * w[2]);
            let mut y = out[3];
            for _ in 0..300 {
                y = y.tanh() + w[1];
            }
            out.push(y);
            out
        })
    })
    .join()
    .unwrap();
    let mut tape = Tape::new();
    for &x in &foreign {
        check_all_uses(&mut tape, x, |rec| {
            let w = rec.inputs(&[0.25; 8]);
            w[0] + w[1]
        });
    }
}

#[test]
fn constants_are_never_stale() {
    // Constants carry no node: they mix with any recording.
    let c = Var::constant(3.0) * 2.0;
    let mut tape = Tape::new();
    for _ in 0..2 {
        tape.record(|rec| {
            let w = rec.inputs(&[1.0]);
            let y = w[0] * c + Var::dot(&[c, w[0]], &[(0, 1.0), (1, 1.0)]);
            let mut g = [0.0];
            rec.gradient(y, &mut g);
            assert_eq!(g, [7.0]);
            assert_eq!(rec.compile(c).forward(&[5.0], &mut Default::default()), 6.0);
        });
    }
}
