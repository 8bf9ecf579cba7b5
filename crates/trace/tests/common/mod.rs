//! Fixtures shared by the trace tests.
#![allow(dead_code)]

use trace::Manifest;

/// An Ethereal-style manifest: material, a small table, a king-safety sum with a quadratic
/// middlegame and linear endgame term weighted by a head parameter indexed by a feature
/// (Berserk's product), a complexity sum, a scale and a tempo.
pub const FIXTURE: &str = r#"{
  "format": "gradtune-manifest", "version": 1, "engine": "fixture", "score": "white",
  "phase": { "max": 24 }, "scale": { "max": 128 },
  "params": [
    { "name": "material", "shape": [6], "bounds": [-2000, 2000],
      "value": [[82, 94], [337, 281], [365, 297], [477, 512], [1025, 936], [0, 0]] },
    { "name": "pst", "shape": [2, 4],
      "value": [[[1, 2], [3, 4], [5, 6], [7, 8]], [[-1, -2], [-3, -4], [-5, -6], [-7, -8]]] },
    { "name": "ks_attack", "shape": [4], "sum": "king_safety", "integer": false,
      "value": [[20.5, 3], [15, 2], [30, 4], [45, 6]] },
    { "name": "ks_weight", "shape": [8], "tapered": false, "integer": false,
      "value": [0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5] },
    { "name": "complexity_w", "shape": [2], "tapered": false, "sum": "complexity",
      "value": [4, 9] },
    { "name": "tempo", "shape": [], "value": [20, 10] }
  ],
  "features": ["king_attackers", "pawns"],
  "terms": [
    { "name": "king_safety", "sum": "king_safety", "per_side": true,
      "mg": "-max(s, 0) * max(s, 0) / 720 * ks_weight[king_attackers]",
      "eg": "-max(s, 0) / 20" },
    { "name": "complexity", "sum": "complexity",
      "eg": "sign(eg) * max(s - 30, -abs(eg))" }
  ]
}"#;

pub fn fixture() -> Manifest {
    Manifest::from_json(FIXTURE, "fixture.json").expect("the fixture manifest is valid")
}

/// A manifest from a JSON text (panics with the error).
pub fn manifest(json: &str) -> Manifest {
    Manifest::from_json(json, "m.json").unwrap_or_else(|e| panic!("{e}"))
}

/// A linear PSQT-like manifest: material and tempo, side-to-move convention.
pub const LINEAR: &str = r#"{
  "format": "gradtune-manifest", "version": 1, "engine": "linear", "score": "side_to_move",
  "phase": { "max": 24 },
  "params": [
    { "name": "material", "shape": [6],
      "value": [[82, 94], [337, 281], [365, 297], [477, 512], [1025, 936], [0, 0]] },
    { "name": "tempo", "shape": [], "value": [20, 10] }
  ]
}"#;
