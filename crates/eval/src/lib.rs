//! A tapered chess evaluation written once, generic over [`tape::Scalar`]: the engine searches
//! with `f64` and the tuner differentiates the very same code (as RuyTune did with a C++
//! template).
//!
//! * [`Model`]: two models selectable by name ([`ModelKind`]): `psqt` (material and piece-square
//!   tables, linear in the weights) and `full` (plus mobility, pawn structure, piece terms,
//!   non-linear king safety, tempo, threats, ... and tunable phase weights: one module per term
//!   in `src/terms/`, listed once in `src/terms/mod.rs`).
//! * Parameters have stable readable names ([`ParamInfo`]), read and written as JSON by name
//!   ([`weights_to_json`], [`weights_from_json`], [`load_weights`], [`save_weights`]) and printed
//!   for people ([`tables`]); engines get them as source code from `texel::emit`, which
//!   describes the models' tables for the one emitter, `trace::emit`.
//! * [`quiesce`]: quiescence search on `f64` returning the score and the position at the end of
//!   its principal variation, where RuyTune takes the gradient.
//!
//! ```
//! use eval::{quiesce, Model, ModelKind};
//! use shakmaty::Chess;
//! use tape::{Scalar, Tape};
//!
//! let model = Model::new(ModelKind::Full);
//! let w = model.default_weights();
//! let pos = Chess::default();
//!
//! let score: f64 = model.evaluate(&pos, &w);
//! assert_eq!(score, 0.0); // symmetric position, default weights
//!
//! let mut tape = Tape::new();
//! let grad = tape.record(|rec| {
//!     let vars = rec.inputs(&w);
//!     let y = model.evaluate(&pos, &vars);
//!     let mut grad = vec![0.0; model.len()];
//!     rec.gradient(y, &mut grad);
//!     grad
//! });
//! // White to move: the tempo bonus counts fully in the middlegame at the start.
//! assert_eq!(grad[model.index_of("tempo.mg").unwrap()], 1.0);
//!
//! let q = quiesce(&model, &pos, &w);
//! assert_eq!(q.score, 0.0);
//! ```
//!
//! # Design
//!
//! **How it works.** Evaluation is two steps.
//!
//! 1. *Feature extraction* turns the position into lists of `(parameter index, coefficient)` pairs:
//!    middlegame terms, endgame terms, and for `full` the inputs of each king's danger sum, plus
//!    the piece counts. The lists depend on the position only, never on weight values, so every
//!    recording of a position has the same structure. The buffers live in a thread-local scratch:
//!    evaluating allocates nothing once warmed up. Each term of the evaluation is one module of
//!    `terms/` (a `Term`: its parameters, its extraction, whether it was added later; see "How to
//!    add an evaluation term" in `src/terms/mod.rs`), and the list at the end of `terms/mod.rs`,
//!    one line a term, makes `full` of them in its order: the parameter layout (`FullLayout`), the
//!    extraction and the group lists all follow from that list; `psqt` is its first term alone.
//!    `features/` holds what the terms share (the buffers, masks, `sign`). `full`'s extraction
//!    writes into a `features::Sink`: the lists (`Features`), or, for the search, running sums at
//!    fixed weights that add the same terms in the same order. On x86-64 the search's copy of the
//!    extraction is also compiled with `popcnt` and chosen at run time when the CPU has it
//!    (`full::extract_into_sums`, the crate's one `unsafe` call, behind
//!    `is_x86_feature_detected!`); the same counts, the same bits.
//! 2. *Combination* (`psqt.rs`, `full.rs`) applies the weights with one `Scalar::dot` per sum
//!    (one tape statement each).
//!    * `psqt`: the phase weights are the constants 0, 1, 1, 2, 4 (pawn .. queen; 24 at the start),
//!      so the taper `f = min(phase, 24) / 24` is folded into the coefficients and the whole
//!      evaluation is **one** sparse dot product: its compiled `Program` is linear (tested), and
//!      `Model::linear_terms` hands out the same sparse vector directly, without a tape.
//!    * `full`: `mg = dot(mg) - pen(danger_white) + pen(danger_black)`, `eg = dot(eg)`, with
//!      `pen(d) = d + q d|d| / 100` (`q = king_safety.quadratic`, slope 1 at 0, so the king-safety
//!      weights have a gradient even at the all-zero start); `total = max(16 phase.pawn + 4
//!      phase.knight + 4 phase.bishop + 4 phase.rook + 2 phase.queen, 1)`, `phase = clamp(sum over
//!      pieces of phase.<piece>, 0, total)`, `eval = eg + (mg - eg) phase / total`. Non-linear in
//!      the weights through the penalty and the tunable taper, and only through `Scalar`
//!      operations. It is written in two stages (`Model::split`): five linear sums that depend on
//!      the position (`Model::sums`: mg terms, eg terms, the two danger sums, the phase sum) and
//!      one non-linear `Model::head` of the sums and six weights (`king_safety.quadratic`,
//!      `phase.*`) that is the same for every position; `evaluate` is literally `head(dot(w, sums),
//!      h)`. The mg and eg sums are *twins* (term by term the same coefficient on a `.mg.` / `.eg.`
//!      pair), and `Split::head_gradient` is the head's value and gradient on `f64` by hand, equal
//!      to the tape's derivative on the kinks too (`tests/it/split.rs`). The tuner stores positions
//!      this way.
//!
//! Default weights: material 100, 300, 300, 500, 900 in both phases; everything else 0, except the
//! phase weights (0, 1, 1, 2, 4; bounds [0, 8]) and `king_safety.quadratic` (1; bounds [0, 10]).
//! The layout of `psqt` is a prefix of `full` (same names, same indices).
//!
//! **Parameter names.** Dotted, lower case, stable; the first component is the group. Squares are
//! from White's point of view (`a1` .. `h8`); Black's pieces use the vertically mirrored square
//! and count with a negative sign. `<phase>` is `mg` or `eg`; `<piece>` is `pawn`, `knight`,
//! `bishop`, `rook`, `queen` (`king` too in `pst`); ranks are relative to the pawn's side
//! (`rank2` .. `rank7`).
//!
//! | name | model | meaning |
//! |---|---|---|
//! | `material.<piece>.<phase>` | both | piece value (no king) |
//! | `pst.<piece>.<phase>.<square>` | both | piece-square table, 6 x 2 x 64 |
//! | `mobility.<piece>.<count>.<phase>` | full | knight 0-8, bishop 0-13, rook 0-14, queen 0-27 moves to squares not held by own pieces nor attacked by enemy pawns |
//! | `pawns.doubled.<phase>`, `pawns.isolated.<phase>`, `pawns.backward.<phase>` | full | per pawn (doubled: per extra pawn on a file) |
//! | `pawns.connected.rank<k>.<phase>` | full | pawn supported by a pawn or with a neighbour on its rank |
//! | `pawns.passed.rank<k>.<phase>` | full | passed pawn (no enemy pawn ahead on its or adjacent files, no own pawn ahead) |
//! | `pawns.passed.free_path.rank<k>.<phase>` | full | passed pawn with every square ahead empty |
//! | `pawns.passed.king_distance.{own,enemy}.<phase>` | full | times the king's distance to the pawn's stop square |
//! | `pieces.bishop_pair.<phase>` | full | two or more bishops |
//! | `pieces.{rook,queen}.{open_file,half_open_file}.<phase>` | full | per piece on a file without pawns / without own pawns |
//! | `king_safety.attack.<piece>` | full | danger per attack on the king zone (king square and neighbours), knight .. queen |
//! | `king_safety.check.<piece>` | full | danger per square from which that piece could check and does attack |
//! | `king_safety.shelter_missing`, `king_safety.open_file` | full | danger per king-side file (king's file and neighbours) without own pawn ahead / without pawns |
//! | `king_safety.quadratic` | full | `q` of the penalty `d + q d abs(d) / 100` (middlegame) |
//! | `tempo.<phase>` | full | side to move |
//! | `threats.{to_move,waiting}.<kind>.<phase>` | full | per enemy piece under a threat of the side to move / of the side waiting; kinds `pawn_on_{knight,bishop,rook,queen}`, `minor_on_{rook,queen}` (knight or bishop attacks it), `rook_on_queen`, `hanging` (a piece but pawn or king, attacked and not defended) |
//! | `push_threats.{to_move,waiting}.<phase>` | full | per enemy piece (knight .. queen) a pawn of that side would attack after one safe push (single or double; the square empty, not attacked by an enemy pawn, defended or not attacked) |
//! | `outposts.{knight,bishop}.<phase>` | full | per knight / bishop on its 4th to 6th rank, defended by an own pawn, with no enemy pawn on an adjacent file ahead of it |
//! | `phase.<piece>` | full | game-phase weight per piece (no king) |
//!
//! Groups, in layout order: `material`, `pst` (the `psqt` term), `mobility`, `pawns`, `pieces`,
//! `king_safety` (the `pieces` term declares both), `tempo`, `threats`, `push_threats`, `outposts`,
//! `phase`, `rook_on_seventh`. `psqt` has 778 parameters, `full` 1,026 (984 before `threats`, 1,016
//! before `push_threats` and `outposts`, 1,024 before `rook_on_seventh`). The groups of a term
//! marked `ADDED_LATER` come after every middlegame and endgame term before them, so a `full` file
//! with the later groups at 0 sums exactly as before them, bit for bit
//! (`crates/engine/tests/it/same_search.rs` checks the games; `crates/eval/tests/it/layout_snapshot.rs`
//! pins the earlier parameters' names, indices and features). The classic layout keeps a few
//! parameters no legal position can touch (`pst.pawn.*` on ranks 1 and 8): their gradient is always
//! 0 and they stay at their start value. Material and the piece-square tables overlap (adding a
//! constant to a table is the same as adding it to the material value); the optimiser has to live
//! with that flat direction, as with every 6x64x2 tuner. `Model::smoothing_pairs` names the
//! parameters a smoothness prior ties (`tune --smooth`): squares a king step apart in each table
//! (the pawns' ranks 1 and 8 left out) and consecutive mobility counts; it is computed from the
//! same layout as the names.
//!
//! **Files.** Weights as JSON by name, `{"model": "psqt", "params": {"material.pawn.mg": 100.0,
//! ...}}`, written in index order with shortest round-trip numbers (reading back is exact). Reading
//! refuses unknown, missing and duplicate names (a hand-written serde visitor sees duplicates that
//! a map would swallow) and non-finite or non-numeric values, naming every one; file errors name
//! the file. A group added to a model later (`eval::LATER_GROUPS`, derived at compile time from the
//! terms marked `ADDED_LATER` in the term list: today `threats`, `push_threats`, `outposts` and
//! `rook_on_seventh`) may be absent as a whole: such a file reads with the group at 0 and evaluates
//! as it did; absent in part, it is refused. `tables` prints 8x8 boards for people. Source code for
//! engines is not `eval`'s: `texel::emit` describes a model's weights as tables and the one
//! emitter, `trace::emit`, writes them (see the `trace` crate).
//!
//! **Quiescence** (`qsearch.rs`, `f64` only). Negamax alpha-beta, fail-soft: stand pat when not in
//! check; captures and promotions ordered MVV-LVA; in check every evasion, and no move means mate
//! `-(MATE - ply)` (`MATE = 30000`); not in check with no legal move is stalemate, 0 (checked
//! before stand pat, so a capture into stalemate is worth 0); at depth 32 the static evaluation is
//! returned even in check, so it always terminates. `quiesce` reports White's view;
//! `quiesce_window(alpha, beta)` takes and returns side-to-move scores for the engine's negamax;
//! `quiesce_score` is the same search without the PV, over any static evaluation (the engine's).
//! Stand pat is evaluated before the moves are generated: a cutoff then only proves that a legal
//! move exists (a safe king step, an unpinned knight or pawn push, else generation), which gives
//! the same scores and nodes as generating first. Not in check, only the captures and promotions
//! are generated (`movegen.rs`), in the order in which shakmaty's `legal_moves` lists them: the
//! moves are then stable-sorted by MVV-LVA, so generation order breaks ties and is part of the
//! tree. `is_quiet` = static evaluation equals the quiescence score.
//!
//! **Invariants.**
//! - Feature lists depend only on the position; the weights enter only through `Scalar` ops, so a
//!   compiled replay is exact at any weights (tested against fresh recordings).
//! - Colour symmetry: `eval(flip(p)) = -eval(p)` for any weights (tested, both models).
//! - `psqt` is linear (compiles to one sparse dot product); `full` is not.
//! - `Model::evaluate_f64` (the engine's per-node evaluation; `psqt` sums its terms as they are
//!   walked, in registers when every term comes as a middlegame/endgame pair, else through a
//!   `tape::DotAccumulator`, and `full` through its extraction's running-sum sink, instead of
//!   building term lists) equals `evaluate::<f64>` bit for
//!   bit: same terms, same order, same four accumulators (tested on real positions and on every
//!   node of real searches).
//! - `movegen::tactical_moves` lists exactly `legal_moves`' captures and promotions in its order
//!   (tested move for move on random games).
//! - Parameter names are unique and are the only identity that leaves the process (JSON); indices
//!   may change between versions, names may not.
#![warn(missing_docs)]

pub mod catalogue;
mod display;
mod error;
mod features;
mod full;
mod json;
mod kind;
mod model;
mod movegen;
mod param_info;
mod params;
mod psqt;
mod qsearch;
mod rounding;
mod terms;

#[cfg(test)]
mod testing;
#[cfg(test)]
pub(crate) use testing::test_position;

pub use crate::display::tables;
pub use crate::error::ParamError;
pub use crate::json::{
    load_weights, load_weights_as, save_weights, weights_from_json, weights_to_json, MAX_WEIGHT,
};
pub use crate::kind::ModelKind;
pub use crate::model::{merge_terms, HeadGradient, Model, Split};
pub use crate::param_info::ParamInfo;
pub use crate::qsearch::{
    is_quiet, quiesce, quiesce_score, quiesce_window, Quiescence, QuiescenceScore, MATE,
    MAX_QSEARCH_DEPTH,
};
pub use crate::rounding::{round_weights, FIXED_POINT_SCALE};
pub use crate::terms::LATER_GROUPS;
