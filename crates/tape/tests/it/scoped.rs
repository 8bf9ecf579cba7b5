//! The thread's active tape exists only while [`Tape::record`]'s closure runs, so no safe code
//! can leave it pointing at a tape that moved or dropped. These are the ways the old guard API
//! (`let rec = tape.record(); mem::forget(rec); drop(tape);`) reached freed memory, each of which
//! must now end in a clean panic or a correct result. Under Miri (`cargo +nightly miri test -p
//! tape --test scoped`) they also check the aliasing of the tape pointer; see
//! `crates/tape/SOUNDNESS.md`.

use std::any::Any;
use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};

use tape::{Scalar, Tape, Var};

/// The message of a panic payload ("" if it is not a string).
fn message(err: &(dyn Any + Send)) -> &str {
    err.downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| err.downcast_ref::<&str>().copied())
        .unwrap_or("")
}

/// Runs `f` and asserts that it panics with a message containing `expected`.
fn assert_panics_with<R>(expected: &str, f: impl FnOnce() -> R) {
    let err = match catch_unwind(AssertUnwindSafe(f)) {
        Ok(_) => panic!("expected a panic with {expected:?}, got none"),
        Err(err) => err,
    };
    let msg = message(&*err);
    assert!(
        msg.contains(expected),
        "expected a panic with {expected:?}, got {msg:?}"
    );
}

const NO_RECORDING: &str = "outside a Recording on this thread";
const ALREADY_ACTIVE: &str = "already active on this thread";
const STALE: &str = "is not on the active tape";

/// One recording operation on a captured `Var`.
type Use = Box<dyn Fn() -> Var>;

/// Every kind of recording operation on `x` (which is not a constant).
fn every_use(x: Var) -> Vec<(&'static str, Use)> {
    vec![
        ("scale", Box::new(move || x * 2.0)),
        ("add", Box::new(move || x + x)),
        ("mul", Box::new(move || x * x)),
        (
            "div by constant var",
            Box::new(move || Var::constant(1.0) / x),
        ),
        ("sigmoid", Box::new(move || x.sigmoid())),
        ("max", Box::new(move || x.max(Var::constant(0.0)))),
        ("dot", Box::new(move || Var::dot(&[x], &[(0, 1.0)]))),
        (
            "linear_combination",
            Box::new(move || Var::linear_combination(&[(x, 2.0)], 1.0)),
        ),
    ]
}

/// Asserts that every use of `x` panics with `expected`.
fn assert_every_use_panics(x: Var, expected: &str) {
    for (what, f) in every_use(x) {
        let err = catch_unwind(AssertUnwindSafe(&f)).expect_err(what);
        let msg = message(&*err);
        assert!(msg.contains(expected), "{what}: unexpected panic {msg:?}");
    }
}

/// The old hole, as far as it can still be written: forget what the closure is given, then
/// move and drop the tape, then use a `Var` of it. The `Var` holds no pointer, and no tape is
/// active any more: a clean panic, not a read of freed memory.
#[test]
fn forget_then_move_and_drop_the_tape_then_use_a_var_panics_cleanly() {
    let mut tape = Box::new(Tape::new());
    let x = tape.record(|rec| {
        let x = rec.input(1.5);
        let y = x * x;
        #[allow(forgetting_references)]
        std::mem::forget(rec); // a reference: forgetting it does nothing
        y
    });
    let moved = tape;
    assert_every_use_panics(x, NO_RECORDING);
    drop(moved);
    assert_every_use_panics(x, NO_RECORDING);
    // Constants still need no recording.
    assert_eq!((Var::constant(2.0) * 3.0).value(), 6.0);
    // And the thread can record again, on a new tape, where the old `Var` is foreign.
    let mut other = Tape::new();
    other.record(|rec| {
        let w = rec.inputs(&[1.0, 2.0, 3.0]);
        assert_panics_with(STALE, || x * w[0]);
        let mut g = [0.0; 3];
        rec.gradient(w[0] * w[2], &mut g);
        assert_eq!(g, [3.0, 0.0, 1.0]);
    });
}

/// A tape moved between recordings (to another binding, and to another thread) records as
/// before; `Var`s of its earlier recording are stale there.
#[test]
fn tape_moved_between_recordings_records_and_rejects_old_vars() {
    let mut tape = Tape::new();
    let old = tape.record(|rec| {
        let w = rec.inputs(&[1.0, 2.0]);
        w[0] * w[1]
    });
    let mut moved = tape;
    moved.record(|rec| {
        let w = rec.inputs(&[1.0, 2.0, 3.0]);
        assert_panics_with(STALE, || old + w[2]);
    });
    let g = std::thread::spawn(move || {
        let mut tape = moved;
        tape.record(|rec| {
            let w = rec.inputs(&[4.0, 5.0, 6.0]);
            assert_panics_with(STALE, || old * w[1]);
            let mut g = vec![0.0; 3];
            rec.gradient(w[0] * w[1] + w[2], &mut g);
            g
        })
    })
    .join()
    .unwrap();
    assert_eq!(g, [5.0, 4.0, 1.0]);
}

/// A panic in the closure ends the recording on its way out: afterwards no tape is active,
/// `Var`s of the recording panic cleanly, and the tape records again.
#[test]
fn a_panic_in_the_closure_ends_the_recording() {
    let mut tape = Tape::new();
    let kept = Cell::new(None);
    assert_panics_with("boom", || {
        tape.record(|rec| {
            let w = rec.inputs(&[1.0, 2.0]);
            kept.set(Some(w[0] * w[1]));
            panic!("boom");
        })
    });
    let x = kept.get().expect("recorded before the panic");
    assert_every_use_panics(x, NO_RECORDING);
    let g = tape.record(|rec| {
        let w = rec.inputs(&[3.0]);
        assert_panics_with(STALE, || x + w[0]);
        let mut g = [0.0];
        rec.gradient(w[0].powi(2), &mut g);
        g
    });
    assert_eq!(g, [6.0]);
}

/// A `Drop` that does `Var` arithmetic while the closure unwinds still finds its tape active
/// (the tape is released only after the closure's locals are dropped).
#[test]
fn var_arithmetic_while_unwinding_out_of_the_closure_still_records() {
    struct RecordsOnDrop<'a>(Var, &'a Cell<Option<f64>>);
    impl Drop for RecordsOnDrop<'_> {
        fn drop(&mut self) {
            self.1.set(Some((self.0 * self.0 + self.0).value()));
        }
    }
    let seen = Cell::new(None);
    let mut tape = Tape::new();
    assert_panics_with("boom", || {
        tape.record(|rec| {
            let _guard = RecordsOnDrop(rec.input(3.0), &seen);
            panic!("boom");
        })
    });
    assert_eq!(seen.get(), Some(12.0));
}

/// A recording started inside another one's closure is refused before it touches either tape;
/// the outer recording goes on unharmed, and the inner tape keeps what it had.
#[test]
fn nested_recording_is_refused_and_leaves_both_tapes_intact() {
    let mut inner = Tape::new();
    inner.record(|rec| {
        let w = rec.inputs(&[1.0, 2.0]);
        let _ = w[0] + w[1];
    });
    assert_eq!(inner.len(), 3);
    let mut outer = Tape::new();
    let g = outer.record(|rec| {
        let w = rec.inputs(&[2.0, 5.0]);
        let a = w[0] * w[1];
        assert_panics_with(ALREADY_ACTIVE, || inner.record(|_| ()));
        assert_eq!(inner.len(), 3);
        // Still recording on `outer`.
        let y = a + w[0].powi(3);
        let mut g = [0.0; 2];
        rec.gradient(y, &mut g);
        g
    });
    assert_eq!(g, [5.0 + 12.0, 2.0]);
    // Both tapes record again afterwards.
    for tape in [&mut inner, &mut outer] {
        let v = tape.record(|rec| (rec.input(4.0) * 0.5).value());
        assert_eq!(v, 2.0);
    }
}

/// Another thread has its own (empty) active tape: `Var` arithmetic there does not reach this
/// thread's recording, however it got its `Var`s.
#[test]
fn other_threads_do_not_see_this_threads_recording() {
    let mut tape = Tape::new();
    tape.record(|rec| {
        let x = rec.input(1.0);
        let err = std::thread::scope(|s| s.spawn(move || x * 2.0).join())
            .expect_err("no recording on the other thread");
        let msg = message(&*err);
        assert!(msg.contains(NO_RECORDING), "unexpected {msg:?}");
        assert_eq!(rec.len(), 1);
    });
}
