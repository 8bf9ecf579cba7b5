//! A linear manifest's traces with a constant, an endgame scale, phases above `max` (an
//! engine that does not clamp its phase) and an untapered parameter, as 4ku's are: every
//! position on the compact phased store (`record_traces`, no fallback reported), with the
//! same values and gradients as recording `Manifest::evaluate` on the tape into sparse rows;
//! bit-equal where the arithmetic is exact (dyadic factors, integer weights), within 1e-12
//! relative otherwise. Positions whose counts do not fit (a decimal, a count past 63) are
//! sparse rows with their reason, same values.

use std::sync::atomic::AtomicBool;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shakmaty::Chess;
use tape::{Scratch, Var};
use tapered::{CompiledSet, Reason, Stop, StoreKind};
use texel::traced::{label, record_traces, Traced};
use trace::{Manifest, Trace};

/// Elements: material 0..5, pst 5..53 (tapered), tempo 53 (untapered).
const ELEMENTS: u32 = 54;

/// A 4ku-like manifest: tapered material and table, an untapered tempo, a scale, a phase of
/// `max` that is not clamped.
fn manifest(phase_max: u32, scale_max: u32) -> Manifest {
    let pair = "[0, 0]";
    let material = [pair; 5].join(", ");
    let row = format!("[{}]", [pair; 8].join(", "));
    let pst = [row.as_str(); 6].join(", ");
    let json = format!(
        r#"{{"format": "gradtune-manifest", "version": 1, "engine": "fourku-like",
  "score": "white", "phase": {{"max": {phase_max}, "clamped": false}},
  "scale": {{"max": {scale_max}}},
  "params": [
    {{"name": "material", "shape": [5], "value": [{material}]}},
    {{"name": "pst", "shape": [6, 8], "value": [{pst}]}},
    {{"name": "tempo", "shape": [], "tapered": false, "value": 0}}
  ]}}"#
    );
    Manifest::from_json(&json, "fourku-like.json").expect("the manifest")
}

/// `n` traces of about 20 coefficients, phases `0..=max + 4`, scales and constants drawn by
/// `scale` and `konst`; position `i`'s score label is `i` (to follow it through the set).
fn traces(
    n: usize,
    max: u32,
    rng: &mut ChaCha8Rng,
    scale: impl Fn(&mut ChaCha8Rng) -> Option<f32>,
    konst: impl Fn(&mut ChaCha8Rng) -> f32,
) -> Vec<Trace> {
    let board = data::PackedBoard::from_position(&Chess::default());
    (0..n)
        .map(|i| {
            let mut coeffs: Vec<(u32, f32, f32)> = (0..5)
                .map(|k| (k, rng.gen_range(0..4) as f32, rng.gen_range(0..4) as f32))
                .collect();
            for _ in 0..rng.gen_range(10..20) {
                let k = rng.gen_range(5..53);
                let (w, b) = if rng.gen_bool(0.5) {
                    (1.0, 0.0)
                } else {
                    (0.0, 1.0)
                };
                coeffs.push((k, w, b));
            }
            let white = rng.gen_bool(0.5);
            coeffs.push((53, f32::from(u8::from(white)), f32::from(u8::from(!white))));
            coeffs.sort_by_key(|c| c.0);
            coeffs.dedup_by_key(|c| c.0);
            Trace {
                board,
                result: [0.0, 0.5, 1.0][i % 3],
                score: Some(i as f32),
                game: i as u32,
                white_to_move: true,
                phase: rng.gen_range(0..=max + 4) as f32,
                scale: scale(rng),
                constant: konst(rng),
                eval: None,
                coeffs,
                features: Vec::new(),
            }
        })
        .collect()
}

/// The same traces recorded through the tape, as sparse rows (not compacted).
fn on_the_tape(m: &Manifest, traces: &[Trace], start: &[f64]) -> CompiledSet {
    let set = CompiledSet::record(
        start,
        traces,
        |_, t| label(t),
        |_, t, w: &[Var]| m.evaluate(t, w).ok(),
        None,
    );
    assert_eq!(set.layout().stores[0].store, StoreKind::Sparse);
    assert_eq!(set.len(), traces.len());
    set
}

/// Position by position (value and gradient) and a whole pass (loss and gradient) of `a`
/// against `b`, equal within `tol` relative (0: bit-equal): a value relative to the size of
/// its terms (`|q| + sum |dq/dw_j w_j|`), a gradient to its largest component, the pass's
/// loss to its value.
fn compare(a: &CompiledSet, b: &CompiledSet, w: &[f64], tol: f64) {
    assert_eq!(a.len(), b.len());
    let n = w.len();
    let close = |x: f64, y: f64, scale: f64| {
        if tol == 0.0 {
            x == y
        } else {
            (x - y).abs() <= tol * scale.abs().max(1e-300)
        }
    };
    let same_gradient = |ga: &[f64], gb: &[f64], what: &str| {
        let gmax = gb.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        for (j, (&a, &b)) in ga.iter().zip(gb).enumerate() {
            assert!(close(a, b, gmax), "{what} d/dw{j}: {a} against {b}");
        }
    };
    let by_label = |s: &CompiledSet| {
        let mut at = vec![0; s.len()];
        for (i, t) in s.targets().iter().enumerate() {
            at[t.score.expect("score") as usize] = i;
        }
        at
    };
    let (ia, ib) = (by_label(a), by_label(b));
    let mut scratch = Scratch::default();
    for p in 0..a.len() {
        let (mut ga, mut gb) = (vec![0.0; n], vec![0.0; n]);
        let qa = a.score(ia[p], w, &mut scratch);
        a.add_gradient(ia[p], 1.0, &mut scratch, &mut ga);
        let qb = b.score(ib[p], w, &mut scratch);
        b.add_gradient(ib[p], 1.0, &mut scratch, &mut gb);
        // Relative to the size of the evaluation's terms (a value may cancel to near zero).
        let size = qb.abs() + gb.iter().zip(w).map(|(g, w)| (g * w).abs()).sum::<f64>();
        assert!(close(qa, qb, size), "position {p}: {qa} against {qb}");
        same_gradient(&ga, &gb, &format!("position {p}"));
    }
    // A pass: loss sum_i s_i q_i (exact in dyadic arithmetic), s_i small integers.
    let go = AtomicBool::new(false);
    let pass = |s: &CompiledSet| {
        let seed = |i: usize| 1.0 + (s.targets()[i].score.unwrap() as usize % 4) as f64;
        let mut g = vec![0.0; n];
        let f = |i: usize, q: f64| (seed(i) * q, seed(i));
        let sum = s.pass(w, 0..s.len(), None, Some(&mut g), f, Stop::from(&go));
        (sum.expect("not stopped"), g)
    };
    let ((la, ga), (lb, gb)) = (pass(a), pass(b));
    assert!(close(la, lb, lb), "pass loss {la} against {lb}");
    same_gradient(&ga, &gb, "pass");
}

#[test]
fn const_scale_and_unclamped_phase_are_bit_equal_to_the_tape_with_dyadic_inputs() {
    // phase / 16 and (16 - phase) * scale / (128 * 16) are dyadic, weights integers and
    // constants quarters: every sum is exact whatever its order.
    let m = manifest(16, 128);
    let traced = Traced::new(m.clone());
    let mut rng = ChaCha8Rng::seed_from_u64(40);
    let ts = traces(
        3000,
        16,
        &mut rng,
        |r| r.gen_bool(0.8).then(|| r.gen_range(0..=128) as f32),
        |r| r.gen_range(-400..400) as f32 * 0.25,
    );
    assert!(ts.iter().any(|t| t.phase > 16.0), "phases above max");
    let start: Vec<f64> = (0..m.weights().len()).map(|_| 0.0).collect();
    let fast = record_traces(&traced, &ts, &start, None);
    let layout = fast.layout();
    assert_eq!(fast.phased_len(), ts.len(), "{layout:?}");
    assert_eq!(layout.fallbacks, [], "no fallback");
    assert!(layout.warnings().is_empty(), "{:?}", layout.warnings());
    let phased = layout.stores[0];
    let per = phased.bytes as f64 / phased.positions as f64;
    assert!(per < 80.0, "{per} bytes a position on the phased store");
    let tape = on_the_tape(&m, &ts, &start);
    let w: Vec<f64> = (0..start.len())
        .map(|_| rng.gen_range(-300..300) as f64)
        .collect();
    compare(&fast, &tape, &w, 0.0);
}

#[test]
fn const_and_scale_match_the_tape_within_1e_12_on_general_inputs() {
    let m = manifest(24, 100);
    let traced = Traced::new(m.clone());
    let mut rng = ChaCha8Rng::seed_from_u64(41);
    let ts = traces(
        3000,
        24,
        &mut rng,
        |r| r.gen_bool(0.8).then(|| r.gen_range(0.0..=100.0f32)),
        |r| r.gen_range(-150.0..150.0f32),
    );
    let start: Vec<f64> = (0..m.weights().len()).map(|_| 0.0).collect();
    let fast = record_traces(&traced, &ts, &start, None);
    assert_eq!(fast.phased_len(), ts.len(), "{:?}", fast.layout());
    let tape = on_the_tape(&m, &ts, &start);
    let w: Vec<f64> = (0..start.len())
        .map(|_| rng.gen_range(-300.0..300.0))
        .collect();
    compare(&fast, &tape, &w, 1e-12);
    // The pass's gradient against central differences of its loss (quadratic: exact up to
    // rounding).
    let go = AtomicBool::new(false);
    let loss = |w: &[f64], g: Option<&mut [f64]>| {
        let f = |i: usize, q: f64| {
            let y = fast.targets()[i].value * 100.0;
            ((q - y) * (q - y) * 1e-4, 2e-4 * (q - y))
        };
        fast.pass(w, 0..fast.len(), None, g, f, Stop::from(&go))
            .unwrap()
    };
    let mut g = vec![0.0; w.len()];
    loss(&w, Some(&mut g));
    for j in [0, 1, 9, 10, 57, 106] {
        let h = 1e-2;
        let (mut up, mut down) = (w.clone(), w.clone());
        up[j] += h;
        down[j] -= h;
        let fd = (loss(&up, None) - loss(&down, None)) / (2.0 * h);
        assert!(
            (fd - g[j]).abs() <= 1e-6 * g[j].abs().max(1.0),
            "d/dw{j}: {} against {fd}",
            g[j]
        );
    }
}

#[test]
fn counts_that_do_not_fit_are_sparse_rows_with_their_reason_and_the_same_values() {
    let m = manifest(24, 128);
    let traced = Traced::new(m.clone());
    let mut rng = ChaCha8Rng::seed_from_u64(42);
    let mut ts = traces(200, 24, &mut rng, |_| Some(64.0), |_| 1.5);
    ts[3].coeffs[0].1 = 0.5; // a decimal count
    ts[7].coeffs[1] = (1, 70.0, 0.0); // a count past 63
    let start = vec![0.0; m.weights().len()];
    let fast = record_traces(&traced, &ts, &start, None);
    assert_eq!(fast.phased_len(), ts.len() - 2);
    let fallbacks = fast.layout().fallbacks;
    let reasons: Vec<(StoreKind, Reason, usize)> = fallbacks
        .iter()
        .map(|f| (f.store, f.reason, f.positions))
        .collect();
    assert_eq!(
        reasons,
        [
            (StoreKind::Sparse, Reason::NonIntegerCoefficient, 1),
            (StoreKind::Sparse, Reason::CoefficientOutOfRange, 1)
        ]
    );
    let warnings = fast.layout().warnings();
    assert!(
        warnings[0].contains("the same values") && !warnings[0].contains("error"),
        "{warnings:?}"
    );
    let w: Vec<f64> = (0..start.len())
        .map(|_| rng.gen_range(-300.0..300.0))
        .collect();
    compare(&fast, &on_the_tape(&m, &ts, &start), &w, 1e-12);
}

#[test]
fn terms_with_no_element_or_traces_of_no_coefficient_are_kept() {
    let m = manifest(24, 128);
    let traced = Traced::new(m.clone());
    let mut rng = ChaCha8Rng::seed_from_u64(43);
    let mut ts = traces(10, 24, &mut rng, |_| None, |_| -7.0);
    ts[0].coeffs.clear();
    ts[1].coeffs.push((ELEMENTS + 5, 1.0, 0.0)); // no such element: skipped, as `linear_terms` does
    let start = vec![0.0; m.weights().len()];
    let fast = record_traces(&traced, &ts, &start, None);
    assert_eq!(fast.phased_len(), ts.len(), "{:?}", fast.layout());
    let w: Vec<f64> = (0..start.len())
        .map(|_| rng.gen_range(-30..30) as f64)
        .collect();
    let mut scratch = Scratch::default();
    assert_eq!(fast.score(0, &w, &mut scratch), -7.0);
}
