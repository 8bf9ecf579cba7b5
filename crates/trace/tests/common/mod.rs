//! Fixtures shared by the trace tests.
#![allow(dead_code)]

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use trace::{parse_line, Manifest, Trace};

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

/// Traces with random coefficients over `indices`, features from `features`.
pub fn random_traces(
    m: &Manifest,
    seed: u64,
    indices: &[u32],
    features: &[(&str, u32)],
    n: usize,
) -> Vec<Trace> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n)
        .map(|k| {
            let side = if k % 2 == 0 { "w" } else { "b" };
            let mut line = format!(
                "4k3/8/8/8/8/8/3P4/4K3 {side} - - [0.5]; phase {}; const {};",
                rng.gen_range(1..24),
                rng.gen_range(-20..20)
            );
            if m.scale_max().is_some() {
                line += &format!(" scale {};", rng.gen_range(16..=128));
            }
            line += " t";
            for &i in indices {
                line += &format!(" {i}:{}:{}", rng.gen_range(0..4), rng.gen_range(0..4));
            }
            line += "; f";
            for &(f, hi) in features {
                line += &format!(" {f}:{}:{}", rng.gen_range(0..hi), rng.gen_range(0..hi));
            }
            parse_line(&line, m).unwrap().unwrap()
        })
        .collect()
}
