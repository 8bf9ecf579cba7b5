//! The thread's active tape: a thread-local raw pointer that [`Var`](crate::Var) arithmetic
//! records through, set only for the duration of [`Tape::record`]'s closure.
//!
//! # Why this is sound
//!
//! The pointer in [`ACTIVE`] is either null or points to a live `Tape` that nothing else
//! reads or writes except through the same pointer, for as long as it is set. This holds for
//! every safe caller because of how it is set and cleared:
//!
//! * Only [`Tape::record`] sets it, from its `&mut self` argument, after checking that it was
//!   null, and only through an [`Activation`] created in `record`'s own frame. That guard is a
//!   local of `record`, never handed to the caller: it cannot be leaked with `mem::forget`,
//!   stored, or moved out. Its `Drop` clears the pointer on every way out of `record`: the
//!   closure returning, or unwinding from a panic in it. (With `panic = "abort"`, or
//!   `process::exit` inside the closure, nothing runs afterwards on this thread.)
//! * While the closure runs, `record` holds the `&mut Tape` borrow: the caller cannot move,
//!   drop, read or write the tape but through the [`Recording`](super::Recording) it is lent,
//!   whose only field is the same raw pointer. The closure gets `&mut Recording<'_>` under a
//!   higher-ranked lifetime, so neither the recording nor anything borrowing it can escape the
//!   closure; `mem::forget` of that reference is a no-op. A `Var` may escape, but it holds
//!   only a value, an index and a tag, no pointer.
//! * Other threads: the pointer is thread-local, and `Recording` is neither `Send` nor `Sync`,
//!   so the tape is only reached from the thread running `record`. A `Var` sent to another
//!   thread records on that thread's own tape (or panics), never on this one.
//! * Nested recordings: `record` on another tape inside the closure panics before it touches
//!   the pointer (or that other tape), so the outer recording's pointer and guard stay as they
//!   were; `record` on the same tape is a borrow error.
//! * Re-entrancy: the `&mut Tape` made from the pointer (in [`with_active`],
//!   [`with_active_opt`], and `Recording`'s accessors) lives only inside crate code that calls
//!   no user code (no callbacks, no user `Drop`, no user iterators), so two of them never
//!   overlap, even if code on this thread (a rayon job stolen while the closure waits, a
//!   `Drop` run while unwinding) does `Var` arithmetic in the middle of the closure.

use std::cell::Cell;
use std::ptr;

use super::state::Tape;

thread_local! {
    /// The tape of the recording running on this thread, or null. See the module docs.
    static ACTIVE: Cell<*mut Tape> = const { Cell::new(ptr::null_mut()) };
}

/// Makes a tape the thread's active tape until dropped. Created only by [`Tape::record`], as a
/// local of its frame (see the module docs).
pub(super) struct Activation(());

impl Activation {
    /// Whether a recording is active on this thread.
    pub(super) fn is_set() -> bool {
        ACTIVE.with(|cell| !cell.get().is_null())
    }

    /// Makes `tape` the active tape until the returned guard drops.
    ///
    /// # Panics
    ///
    /// If a recording is already active on this thread (and then changes nothing).
    ///
    /// # Safety
    ///
    /// `tape` must come from a `&mut Tape` that the caller holds, and reaches the tape only
    /// through `tape` (or copies of it), until the guard drops; and the caller must drop the
    /// guard in its own frame, never leak it or hand it on.
    pub(super) unsafe fn set(tape: *mut Tape) -> Activation {
        ACTIVE.with(|cell| {
            assert!(
                cell.get().is_null(),
                "a tape::Recording is already active on this thread"
            );
            cell.set(tape);
        });
        Activation(())
    }
}

impl Drop for Activation {
    fn drop(&mut self) {
        ACTIVE.with(|cell| cell.set(ptr::null_mut()));
    }
}

/// Runs `f` on the thread's active tape, or on `None` when no recording is active.
#[inline(always)]
pub(crate) fn with_active_opt<R>(f: impl FnOnce(Option<&mut Tape>) -> R) -> R {
    ACTIVE.with(|cell| {
        let p = cell.get();
        // SAFETY: as in `with_active`; a null pointer gives `None`.
        f(unsafe { p.as_mut() })
    })
}

/// Runs `f` on the thread's active tape.
///
/// `f` must be crate code that calls no user code (see the module docs).
///
/// # Panics
///
/// When no recording is active on this thread: arithmetic that mixes two non-constant `Var`s
/// outside a recording is a programming error.
#[inline(always)]
pub(crate) fn with_active<R>(f: impl FnOnce(&mut Tape) -> R) -> R {
    ACTIVE.with(|cell| {
        let p = cell.get();
        assert!(
            !p.is_null(),
            "tape::Var arithmetic outside a Recording on this thread"
        );
        // SAFETY: a non-null `ACTIVE` points to the tape whose `Tape::record` call is running
        // on this thread (the module docs show no safe code can leave it set past that call:
        // no guard to forget, the tape borrowed so it cannot move or drop, cleared on unwind,
        // thread-local, nested recordings refused). `record` only reaches the tape through
        // this same pointer (and copies of it in the `Recording`) while it is set, and every
        // `&mut Tape` made from it lives only inside crate code that calls no user code, so
        // this one is the only reference to the tape while `f` runs.
        f(unsafe { &mut *p })
    })
}
