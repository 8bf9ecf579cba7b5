//! Any engine's evaluation as *traces*: the engine describes its terms once in a JSON
//! [`Manifest`] and writes one [`Trace`] per position (sparse coefficients of the manifest's
//! elements); gradtune rebuilds the evaluation from the manifest's values
//! ([`Manifest::evaluate`], generic over [`tape::Scalar`], so declared non-linear terms get
//! exact gradients), checks it against the engine's own static evaluation ([`verify`]) and
//! tunes it ([`Manifest::evaluate_real`]: the same but for `trunc`, the engine's integer
//! division, which the tuning objective reads as the real division). The format is specified
//! in `docs/trace-format.md` (version 1).
//!
//! ```
//! use trace::{parse_line, Manifest};
//!
//! let m = Manifest::from_json(r#"{
//!   "format": "gradtune-manifest", "version": 1, "engine": "tiny", "score": "white",
//!   "phase": { "max": 24 },
//!   "params": [
//!     { "name": "material", "shape": [2], "value": [[100, 120], [300, 280]] },
//!     { "name": "ks", "shape": [], "tapered": false, "integer": false, "sum": "attack", "value": 3 }
//!   ],
//!   "terms": [ { "name": "king_safety", "sum": "attack", "per_side": true,
//!                "mg": "-max(s, 0) ^ 2 / 10" } ]
//! }"#, "tiny.json")?;
//! let t = parse_line("4k3/8/8/8/8/8/3P4/4K3 w - - [0.5]; phase 12; t 0:1:0 2:0:4; eval 108", &m)?
//!     .expect("a trace");
//! // mg = 100 - (-(3*4)^2/10) = 114.4, eg = 120: (114.4 * 12 + 120 * 12) / 24 = 117.2
//! let v: f64 = m.evaluate(&t, &m.initial_weights()).unwrap();
//! assert!((v - 117.2).abs() < 1e-9);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Design
//!
//! **How it works.**
//! - *Manifest* (`manifest.rs`; `manifest/raw.rs` the document as `#[derive(Deserialize)]` structs
//!   whose fields (`manifest/field.rs`) keep a wrong kind of JSON for the validation pass's
//!   message, `manifest/load.rs` that pass: parameters, values and sums, each error with its JSON
//!   path, `manifest/resolve.rs` every name of every term resolved and every sum matched to one
//!   term, `manifest/weights.rs` smoothness neighbours from the declared shapes and the manifest
//!   written back with new values): parameters by name with shape, tapered or not, integer or not,
//!   bounds, frozen; the phase (per position, or a formula); the score convention (`white` or side
//!   to move), stated, never guessed. Validated completely by `Manifest::from_json` / `load` before
//!   any trace is read.
//! - *Expressions* (`expr.rs`, `expr/parse.rs`): the small language of declared non-linear terms
//!   (`+ - * / ^`, `min max clamp abs sign sigmoid exp trunc`, parameters, elements, per-side
//!   sums). `Expr::parse` gives the tree, the manifest resolves its names (`Node::resolve`), and
//!   `Node::eval` evaluates it over any `Scalar`; a bad expression is an error naming its column.
//!   `trunc(x)`, an engine's integer division, reads by the environment's `expr::Arithmetic`:
//!   truncating towards zero in the engine's (`Integer`: `verify`, `Manifest::evaluate`, index
//!   expressions), `x` itself in the tuning objective's (`Real`: `Manifest::evaluate_real`, the
//!   head), so the objective stays smooth where the engine steps.
//! - *Head* (`head.rs`; the walk over the declared terms it shares with the evaluation is
//!   `walk.rs`): the declared terms, the formula and the constant as one function of
//!   per-position inputs (`Manifest::head`, `head_shape`, `head_inputs`: twin sums, picked
//!   weights, scalars), the same operations in the same order as `Manifest::evaluate_real`
//!   (the tuning objective, real arithmetic), so a tuner records it once and stores per
//!   position only the inputs.
//! - *Traces* (`trace.rs`: `Trace`; `text.rs`: the text line, an EPD line with the operations
//!   `phase`, `scale`, `const`, `eval`, `t`, `f`, parsed by `parse_line` and written by `to_line`;
//!   `binary.rs`: the `GTTRACE1` cache, decoded from large buffers and checked in parallel;
//!   `stream.rs`: `TraceStream`, the files read a batch at a time, text or binary by the magic,
//!   plain, gzip or zstd through `fsutil::source`, text parsed in parallel chunks of whole lines
//!   (no allocation per line but the trace's own vectors), malformed records located, skipped
//!   and counted in a `ReadReport`, or the error with `strict`, and `read_traces`, every trace
//!   at once on top of it; `read.rs`: `ReadOptions`, `ReadReport`, writing traces as text:
//!   `TextWriter` a trace at a time into a temporary file renamed at the end, `write_text` whole).
//! - *Evaluation* (`evaluate.rs`, `walk.rs`, `linear.rs`): `Manifest::evaluate::<S>(&Trace, &[S])` (the
//!   engine's arithmetic) and `evaluate_real` (the tuning objective's, which `texel` records,
//!   judges and explains; the two differ only in `trunc`); a trace
//!   without declared terms is a linear row (`linear.rs`: as integer counts with its factors and
//!   constant, `linear_counts`, or as sparse terms, `linear_terms`), which `texel` stores in the
//!   compact phased store (sparse rows for counts that do not fit) without a tape; each part's
//!   contribution for reports.
//! - *Verification* (`verify.rs`): `verify` rebuilds every position's evaluation at the manifest's
//!   values and compares it with the engine's own (default tolerance 1 cp after rounding): count,
//!   worst, first mismatches with their terms and the elements one count of which is their
//!   difference, the usual mix-ups (sign convention, phase direction, an offset, a unit)
//!   recognised and named (`Diagnosis`), and the terms behind the differences (an element one
//!   count of which is the difference in many of them, `OneCount`; parameters and elements far
//!   more present in them than in the matching positions, `Presence`). `Verifier` takes the set
//!   a batch at a time (`tune verify` and the tuners read the files once); `ports.rs`'
//!   `PortChecker` likewise.
//! - *Output* (`emit.rs`, `emit/context.rs`, `emit/names.rs`, `emit/*.jinja`): gradtune's one
//!   emitter. `describe` turns a manifest and a weight vector into a `Description` (the engine,
//!   notes for the reader, one `Table` a parameter: name, shape, tapered, integer, values);
//!   `render_description` prints one through a minijinja template, built in for C, C++, Rust and C#
//!   (`Language`) or a user's `.jinja` file; integers rounded half away from zero. gradtune's own
//!   models come as a `Description` too (`texel::emit::describe`, since this crate may not know
//!   them), so their source has the style of an engine's. `uci.rs`: the manifest's weights as UCI
//!   `spin` options by name (`uci_option_name`, `uci_options`) for `tune match`.
//! - The engine side of the protocol (`position fen ...`, `trace`, one trace line back) is
//!   `engine::play::trace_run`; `trace` only parses the answer (`parse_engine_answer`).
//!
//!
//! **Invariants.**
//! - A manifest is checked whole before any data is read: names unique, shapes and values
//!   agreeing, every expression parsed and every name in it resolved, each per-side sum used by
//!   exactly one term. A trace is checked against its manifest as it is read (element indices in
//!   range, features known), so a manifest/trace mismatch is named by file and line before tuning.
//! - No input panics the library: every malformed record becomes a located message and a count,
//!   or the error with `strict` (the text line and the expressions fuzzed: `trace_reader`,
//!   `expr_parser`, `docs/fuzzing.md`, `tests/it/fuzz_smoke.rs` on stable; the binary form's
//!   truncations and corruptions tested in `tests/it/reader.rs`). Binary counts are never trusted
//!   for allocation.
//! - A trace accepted from text or binary evaluates, packs and reads back equal in either form.
//! - One evaluation function for every `Scalar`: `f64` (verify, reports), `Var` (recording) and
//!   `Dual` agree (`tests/it/gradients.rs`, `tests/it/evaluate.rs`).
//! - Emitted source is checked by compiling it: the C and C++ headers with `cc`/`c++` and the Rust
//!   constants with `rustc`, read back equal to the rounded weights (`tests/it/emit.rs`, skipped with
//!   a message where no compiler is).
#![warn(missing_docs)]
#![forbid(unsafe_code)]

mod binary;
pub mod emit;
mod error;
mod evaluate;
pub mod expr;
mod head;
mod linear;
mod manifest;
mod ports;
mod read;
mod stream;
mod text;
mod trace;
mod uci;
mod verify;
mod walk;

pub use binary::{write_binary, MAGIC};
pub use error::{EvalError, TraceError};
pub use head::{HeadInputs, HeadShape};
pub use manifest::{
    CentreMove, CentreSet, Centring, FlatDirection, Manifest, ParamDecl, ScoreConvention,
    WeightInfo,
};
pub use ports::{check_ports, port_group, PortChecker, PortMismatch, PortReport};
pub use read::{write_text, ReadOptions, ReadReport, TextWriter, MAX_MESSAGES};
pub use stream::{read_traces, TraceStream};
pub use text::{parse_engine_answer, parse_line, to_line};
pub use trace::Trace;
pub use uci::{uci_option_name, uci_options};
pub use verify::{
    verify, Diagnosis, Mismatch, OneCount, Presence, Verifier, VerifyOptions, VerifyReport,
    SUSPECTS,
};

/// The default evaluation formula (the one used when a manifest gives no `eval`).
pub use manifest::DEFAULT_EVAL;
