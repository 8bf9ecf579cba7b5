//! A synthetic engine for the traced-evaluation tests: a manifest at start values, the same
//! manifest at known "true" values, and trace lines whose labels are the expected results
//! `sigma_K(q)` at the true values (K = 1) and whose `eval` is the evaluation at the start
//! values (so the set verifies). Positions' coefficients and phases are drawn from a fixed
//! seed. Shared by `texel`'s and `tune`'s tests (`#[path]`).
#![allow(dead_code)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use trace::Manifest;

/// Which synthetic evaluation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Material, a 2x4 table and a tempo: linear.
    Linear,
    /// Material, a king-safety quadratic over attack weights, and mobility scaled by a head
    /// parameter (a product of two parameters), one mobility weight frozen as the anchor.
    NonLinear,
}

/// Legal positions of both sides to move (the board only matters for `eval` and `explain`).
const FENS: [&str; 6] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 4 4",
    "8/5k2/3p4/8/8/4K3/3P4/8 w - - 0 1",
    "4r1k1/5ppp/8/8/8/8/5PPP/3R2K1 b - - 0 1",
    "2kr4/ppp5/8/8/8/8/PPP5/2KR4 w - - 0 1",
];

/// A manifest of `kind` at its true or its start values.
fn manifest_json(kind: Kind, truth: bool, table_bounds: Option<(f64, f64)>) -> String {
    match kind {
        Kind::Linear => {
            let material = if truth {
                "[[90, 110], [320, 290], [340, 310], [480, 530]]"
            } else {
                "[[100, 100], [300, 300], [300, 300], [500, 500]]"
            };
            let table = if truth {
                "[[[12, -8], [-15, 6], [4, 18], [-10, -3]], [[7, 14], [-6, -12], [16, 2], [-4, 9]]]"
            } else {
                "[[[0, 0], [0, 0], [0, 0], [0, 0]], [[0, 0], [0, 0], [0, 0], [0, 0]]]"
            };
            let tempo = if truth { "[15, 5]" } else { "[0, 0]" };
            // The true values lie outside the bounds the bounds test sets.
            let bounds = table_bounds
                .filter(|_| !truth)
                .map(|(lo, hi)| format!(", \"bounds\": [{lo}, {hi}]"))
                .unwrap_or_default();
            format!(
                r#"{{"format": "gradtune-manifest", "version": 1, "engine": "synthetic",
  "score": "white", "phase": {{"max": 24}},
  "params": [
    {{"name": "material", "shape": [4], "tapered": true, "value": {material}}},
    {{"name": "table", "shape": [2, 4], "tapered": true, "value": {table}{bounds}}},
    {{"name": "tempo", "shape": [], "tapered": true, "value": {tempo}}}
  ]}}"#
            )
        }
        Kind::NonLinear => {
            let (material, attack, mob, scale) = if truth {
                (
                    "[[90, 120], [330, 290]]",
                    "[20, 35, 50]",
                    "[5, 12, 20]",
                    "1.5",
                )
            } else {
                (
                    "[[100, 100], [300, 300]]",
                    "[10, 20, 30]",
                    "[0, 0, 0]",
                    "1.0",
                )
            };
            format!(
                r#"{{"format": "gradtune-manifest", "version": 1, "engine": "synthetic-ks",
  "score": "white", "phase": {{"max": 24}},
  "params": [
    {{"name": "material", "shape": [2], "tapered": true, "value": {material}}},
    {{"name": "attack", "shape": [3], "tapered": false, "sum": "ks", "value": {attack}}},
    {{"name": "mob_anchor", "shape": [], "tapered": false, "sum": "mob", "frozen": true, "value": 10}},
    {{"name": "mob", "shape": [3], "tapered": false, "sum": "mob", "value": {mob}}},
    {{"name": "mob_scale", "shape": [], "tapered": false, "integer": false, "value": {scale}}}
  ],
  "terms": [
    {{"name": "king_safety", "sum": "ks", "per_side": true,
      "mg": "-max(s, 0) ^ 2 / 200", "eg": "-max(s, 0) / 4"}},
    {{"name": "mobility", "sum": "mob", "per_side": true,
      "mg": "mob_scale * s", "eg": "mob_scale * s"}}
  ]}}"#
            )
        }
    }
}

/// The traced elements of a kind: (first trace index, count, largest count per side).
fn element_groups(kind: Kind) -> Vec<(u32, u32, u32)> {
    match kind {
        // material 0..4 (0..=2 each), table 4..12 (0..=1), tempo 12 (by the side to move)
        Kind::Linear => vec![(0, 4, 2), (4, 8, 1)],
        // material 0..2, attack 2..5 (0..=1), anchor 5 (0..=3), mob 6..9 (0..=3)
        Kind::NonLinear => vec![(0, 2, 2), (2, 3, 1), (5, 1, 3), (6, 3, 3)],
    }
}

/// A written fixture.
pub struct Fixture {
    /// The manifest at the start values.
    pub manifest: PathBuf,
    /// The manifest at the true values.
    pub truth_manifest: PathBuf,
    /// The trace file (text).
    pub traces: PathBuf,
    /// The true weights and the start weights, in the manifest's weight order.
    pub truth: Vec<f64>,
    pub start: Vec<f64>,
    /// The manifest (start values).
    pub m: Manifest,
}

/// The logistic expected result at K = 1.
pub fn expect(q: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-q / 400.0))
}

/// One trace line without its label and `eval`: the FEN, phase, game and coefficients.
fn draw_line(kind: Kind, rng: &mut ChaCha8Rng, game: usize) -> String {
    let fen = FENS[rng.gen_range(0..FENS.len())];
    let phase = rng.gen_range(0..=24);
    let mut t = String::new();
    for (first, count, max) in element_groups(kind) {
        for i in first..first + count {
            let (w, b) = (rng.gen_range(0..=max), rng.gen_range(0..=max));
            let keep = if max == 1 { rng.gen_bool(0.4) } else { true };
            if keep && (w, b) != (0, 0) {
                let _ = write!(t, " {i}:{w}:{b}");
            }
        }
    }
    if kind == Kind::Linear {
        let white = fen.split(' ').nth(1) == Some("w");
        let _ = write!(t, " 12:{}:{}", u8::from(white), u8::from(!white));
    }
    if t.is_empty() {
        return format!("{fen} LABEL; phase {phase}; game {game}");
    }
    format!("{fen} LABEL; phase {phase}; game {game}; t{t}")
}

/// Writes the fixture of `kind` with `n` positions drawn from `seed` into `dir`; `table_bounds`
/// bounds the linear kind's table.
pub fn write(
    dir: &Path,
    kind: Kind,
    n: usize,
    seed: u64,
    table_bounds: Option<(f64, f64)>,
) -> Fixture {
    let manifest = dir.join("manifest.json");
    let truth_manifest = dir.join("truth.json");
    std::fs::write(&manifest, manifest_json(kind, false, table_bounds)).unwrap();
    std::fs::write(&truth_manifest, manifest_json(kind, true, table_bounds)).unwrap();
    let m = Manifest::load(&manifest).expect("the start manifest loads");
    let mt = Manifest::load(&truth_manifest).expect("the true manifest loads");
    let (start, truth) = (m.initial_weights(), mt.initial_weights());
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut text = String::from("# synthetic traces\n");
    for i in 0..n {
        let draft = draw_line(kind, &mut rng, i / 8);
        let t = trace::parse_line(&draft.replace("LABEL", "[0.5]"), &m)
            .expect("a valid line")
            .expect("a trace");
        let q: f64 = mt.evaluate(&t, &truth).expect("evaluates at the truth");
        let e: f64 = m.evaluate(&t, &start).expect("evaluates at the start");
        let line = draft.replace("LABEL", &format!("[{:.12}]", expect(q)));
        let _ = writeln!(text, "{line}; eval {}", e.round());
    }
    let traces = dir.join("traces.txt");
    std::fs::write(&traces, text).unwrap();
    Fixture {
        manifest,
        truth_manifest,
        traces,
        truth,
        start,
        m,
    }
}

/// The weights of a manifest file (a run's `weights.json`), in its weight order.
pub fn weights_of(path: &Path) -> Vec<f64> {
    Manifest::load(path)
        .unwrap_or_else(|e| panic!("{}: not a valid manifest: {e}", path.display()))
        .initial_weights()
}

/// Negates the engine's evaluation of every black-to-move trace (a side-to-move mix-up).
pub fn negate_black(traces: &Path) {
    let text = std::fs::read_to_string(traces).unwrap();
    let wrong: String = text
        .lines()
        .map(|l| match l.split_once("; eval ") {
            Some((head, e)) if l.contains(" b ") && e.trim() != "0" => {
                format!("{head}; eval {}\n", -e.trim().parse::<f64>().unwrap())
            }
            _ => format!("{l}\n"),
        })
        .collect();
    std::fs::write(traces, wrong).unwrap();
}

/// A traced run's options on `manifest` and `traces` as the tests tune them: `K` 1 (the
/// fixture's labels were made at it), no L2, a tenth of the games held out, and a prior of
/// `prior` positions (`None`: the traced model's default).
pub fn run_options(
    manifest: &Path,
    traces: &Path,
    prior: Option<f64>,
) -> texel::setup::SetupOptions<texel::setup::TraceOptions> {
    use texel::setup::{ObjectiveOptions, SetupOptions, SplitOptions, TraceOptions};
    SetupOptions {
        split: SplitOptions {
            valid_fraction: 0.1,
            ..SplitOptions::default()
        },
        objective: ObjectiveOptions {
            k: Some(1.0),
            l2: Some(0.0),
            prior_positions: prior,
            ..ObjectiveOptions::default()
        },
        ..SetupOptions::new(TraceOptions::new(manifest.into(), vec![traces.into()]))
    }
}
