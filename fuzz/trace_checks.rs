//! The trace fuzz targets' bodies, shared by the cargo-fuzz targets `trace_reader` and
//! `expr_parser` and the stable smoke test `crates/trace/tests/it/fuzz_smoke.rs` (both include
//! this file by path). Errors are fine, panics are not.
// Each target uses one of them.
#![allow(dead_code)]

use std::sync::OnceLock;

use trace::expr::Expr;
use trace::{parse_line, to_line, Manifest};

/// The fixed manifest the reader is fuzzed against: tapered and untapered parameters, a
/// table, sums with per-side and whole-board terms, a head parameter indexed by a feature, a
/// scale.
pub const MANIFEST: &str = r#"{
  "format": "gradtune-manifest", "version": 1, "engine": "fuzz", "score": "side_to_move",
  "phase": { "max": 24 }, "scale": { "max": 128 },
  "params": [
    { "name": "material", "shape": [6],
      "value": [[82, 94], [337, 281], [365, 297], [477, 512], [1025, 936], [0, 0]] },
    { "name": "pst", "shape": [2, 4],
      "value": [[[1, 2], [3, 4], [5, 6], [7, 8]], [[-1, -2], [-3, -4], [-5, -6], [-7, -8]]] },
    { "name": "ks_attack", "shape": [4], "sum": "king_safety", "integer": false,
      "value": [[20.5, 3], [15, 2], [30, 4], [45, 6]] },
    { "name": "ks_weight", "shape": [8], "tapered": false, "integer": false,
      "value": [0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5] },
    { "name": "complexity_w", "shape": [2], "tapered": false, "sum": "complexity", "value": [4, 9] },
    { "name": "tempo", "shape": [], "value": [20, 10] }
  ],
  "features": ["king_attackers", "pawns"],
  "terms": [
    { "name": "king_safety", "sum": "king_safety", "per_side": true,
      "mg": "-max(s, 0) ^ 2 / 720 * ks_weight[king_attackers]", "eg": "-max(s, 0) / 20" },
    { "name": "complexity", "sum": "complexity", "eg": "sign(eg) * max(s - 30, -abs(eg))" },
    { "name": "threat", "mg": "tempo * sigmoid(pawns / 4)" }
  ]
}"#;

pub fn manifest() -> &'static Manifest {
    static M: OnceLock<Manifest> = OnceLock::new();
    M.get_or_init(|| {
        Manifest::from_json(MANIFEST, "fuzz.json").expect("the fuzz manifest is valid")
    })
}

/// Arbitrary bytes, line by line, through `parse_line`: every trace it accepts evaluates (or
/// reports an evaluation error), unpacks, and reads back equal from the line `to_line` writes.
pub fn trace_reader(bytes: &[u8]) {
    let m = manifest();
    let w = m.initial_weights();
    let text = String::from_utf8_lossy(bytes);
    for line in text.lines() {
        let Ok(Some(t)) = parse_line(line, m) else {
            continue;
        };
        let _ = m.evaluate::<f64>(&t, &w);
        let _ = m.contributions(&t, &w);
        t.position().expect("an accepted trace unpacks");
        let again = to_line(&t, m);
        let back = parse_line(&again, m)
            .unwrap_or_else(|e| panic!("{again:?} does not read back: {e}"))
            .expect("a trace");
        assert_eq!(back, t, "{again:?}");
    }
}

/// Arbitrary text through the expression parser and the f64 evaluation (every name has a
/// value), then as a term of a manifest (validation, and evaluation on a trace if it
/// validates).
pub fn expr_parser(bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    let Ok(e) = Expr::parse(&text) else {
        return;
    };
    let _ = e.names();
    let _ = e.eval_f64(&|name, _, idx| {
        let h = name
            .bytes()
            .fold(idx.len() as f64, |a, b| a * 0.5 + f64::from(b));
        Some(h / 64.0 - 1.0)
    });
    let json = MANIFEST.replacen(
        "\"tempo * sigmoid(pawns / 4)\"",
        &serde_json::to_string(text.as_ref()).expect("a string serialises"),
        1,
    );
    if let Ok(m) = Manifest::from_json(&json, "fuzz.json") {
        let line = "4k3/8/8/8/8/8/3P4/4K3 b - - [0.5]; phase 7; scale 64; \
                    t 0:1:0 9:2:1 14:3:1 15:1:2 23:1:1 26:2:0 28:1:0; f king_attackers:3:9 pawns:5:2";
        if let Ok(Some(t)) = parse_line(line, &m) {
            let _ = m.evaluate::<f64>(&t, &m.initial_weights());
        }
    }
}
