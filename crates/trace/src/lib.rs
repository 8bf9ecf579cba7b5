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
#![warn(missing_docs)]

mod binary;
pub mod emit;
mod error;
mod evaluate;
pub mod expr;
mod head;
mod linear;
mod manifest;
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
pub use manifest::{CentreMove, Centring, Manifest, ParamDecl, ScoreConvention, WeightInfo};
pub use read::{write_text, ReadOptions, ReadReport, MAX_MESSAGES};
pub use stream::{read_traces, TraceStream};
pub use text::{parse_engine_answer, parse_line, to_line};
pub use trace::Trace;
pub use uci::{uci_option_name, uci_options};
pub use verify::{verify, Diagnosis, Mismatch, VerifyOptions, VerifyReport};

/// The default evaluation formula (the one used when a manifest gives no `eval`).
pub use manifest::DEFAULT_EVAL;
