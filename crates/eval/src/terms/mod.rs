//! The terms of the evaluation, one module each, and the list that makes `full` of them.
//!
//! A term ([`Term`]) declares its parameters (names, defaults, bounds, tapered twins), extracts its
//! features from a position, and says whether it was added after weights files were written. The
//! list at the end of this file, one line per term, is the only place that orders them (each also
//! has its `mod` line, written out so that `cargo fmt` sees the file): `full`'s parameter layout
//! (`FullLayout`, `Model::params`), its extraction (in the order of the list, into term lists for
//! the tuner or running sums for the search, both copies of it included), the groups,
//! [`LATER_GROUPS`](crate::LATER_GROUPS) and the tests' group lists all follow from it. The `psqt`
//! model is the first term alone.
//!
//! # How to add an evaluation term
//!
//! A linear term (a count of something on the board, times a tapered middlegame/endgame pair
//! of weights) is one new file and two lines:
//!
//! 1. Write `crates/eval/src/terms/<name>.rs` with a unit struct that implements [`Term`]:
//!    * `type Layout`: where its parameters are, usually the index of the first one (a `u32`);
//!    * `GROUPS`: the groups it declares, a new one (the first component of its parameter
//!      names, say `rook_on_seventh`; no other term's);
//!    * `ADDED_LATER = true`: weights files of `full` written before it read with its group at
//!      its default, 0, and play as they did;
//!    * `declare`: its parameters, through the [`ParamBuilder`]: `b.pair("<group>.<what>", 0.0)`
//!      for a tapered `.mg`/`.eg` pair (returns the `.mg` index; `.eg` is the next one),
//!      `b.push(name, init, bounds)` for a single one, `b.fractional(i)` for a shape constant;
//!    * `extract`: its features, from the [`Context`] (`ctx.board()`, `ctx.turn()`, `ctx.pos`,
//!      and `ctx.maps`, every side's attacked squares, filled by `pieces`), into the sink:
//!      `sink.pair(mg_index, c)` adds `c` times the pair to the middlegame and endgame sums,
//!      with White's features counted positive and Black's negative (`features::sign`);
//!      `sink.danger(side, index, c)` adds an input of a king's danger sum. Mark it
//!      `#[inline(always)]` and allocate nothing: the search runs it at every node.
//! 2. Add `pub(crate) mod <name>;` beside the other term modules and `<name>: <Type>,` at the end
//!    of the list below.
//!
//! 3. Document it where people read the parameters: a row in `eval/src/lib.rs`'s table of
//!    parameter names, and its group in the paragraph after the table, which lists the groups in
//!    layout order and `full`'s parameter count by hand (the count moves by the term's
//!    parameters; `crates/eval/tests/it/layout_snapshot.rs` pins the earlier ones). If the term
//!    is also a candidate for other engines, share it with the catalogue
//!    (`catalogue/shared.rs`, and `docs/catalogue.md`).
//!
//! Nothing else changes in the code: names, indices, `Model::params`, the JSON reader (`LATER_GROUPS`),
//! `tables`, `emit`, the tuner (recording, stores, replay), the engine and the `popcnt` copy of
//! the extraction pick it up. At the end of the list its parameters take the next indices (no
//! earlier one moves) and its terms come last in the sums, so at 0 they leave every sum bit for
//! bit as before (`crates/engine/tests/it/same_search.rs` replays the games recorded without it;
//! its fingerprints skip the groups of `LATER_GROUPS` added after them).
//!
//! Then test what it counts on hand-checked positions (`crates/eval/tests/it/features.rs`); the
//! symmetry, gradient, fast-path (`evaluate_f64` bit for bit) and replay tests already run
//! over every parameter. `terms/rook_on_seventh.rs` is a term added this way (commit
//! `9b8f335`: the file, 51 lines, and one line here, when the list's macro still declared the
//! modules), checked by `cargo test -p eval --test it features::rook_on_seventh` and, for the old
//! games, `cargo test -p engine --test it same_search::`.
//!
//! A non-linear term needs more than this: its features go into the linear sums that
//! `full.rs`'s head combines (`SUMS`, `head`, `head_params`); a new sum or head weight is an
//! edit of `full.rs` and of [`Sink`].

#[macro_use]
mod term;

pub(crate) mod mobility;
pub(crate) mod outposts;
pub(crate) mod pawns;
pub(crate) mod phase;
pub(crate) mod pieces;
pub(crate) mod psqt;
pub(crate) mod push_threats;
pub(crate) mod rook_on_seventh;
pub(crate) mod tempo;
pub(crate) mod threats;

pub(crate) use term::{AttackMaps, Context, ParamBuilder, Term, TermInfo};

use shakmaty::Chess;

use crate::features::Sink;
use term::{later_group_count, later_groups};

terms! {
    psqt: Psqt,                 // material and piece-square tables (also the `psqt` model)
    mobility: Mobility,         // extracted by `pieces`
    pawns: Pawns,               // pawn structure and passed pawns
    pieces: Pieces,             // bishop pair, open files, king-danger inputs, attack maps
    tempo: Tempo,               // side to move
    threats: Threats,           // added later
    push_threats: PushThreats,  // added later
    outposts: Outposts,         // added later
    phase: Phase,               // game-phase weights (a sum of their own)
    rook_on_seventh: RookOnSeventh, // added later
}

/// Parameter groups added to a model after weights files of it were written, in the order they
/// were added (the groups of the terms marked `ADDED_LATER` in `src/terms/mod.rs`, in the order
/// of the list): a file without any parameter of such a group reads with the whole group at its
/// defaults (0, so the file evaluates as it did); a file with some but not all of them is
/// refused like any other.
pub const LATER_GROUPS: [&str; later_group_count(TERMS)] = later_groups(TERMS);

/// Every term of `full`'s sums, in the order of the list, into `sink`.
#[inline(always)]
pub(crate) fn extract_full(pos: &Chess, layout: &FullLayout, sink: &mut impl Sink) {
    let mut ctx = Context::new(pos);
    extract(&mut ctx, layout, sink);
}
