//! `verify`: a correct trace set passes; the classic mix-ups are recognised and named.

use crate::common;

use common::{fixture, random_traces};
use trace::{verify, Diagnosis, Manifest, OneCount, Presence, Trace, Verifier, VerifyOptions};

/// Traces of the fixture with the engine's `eval` set by `engine(trace, rebuilt)`.
fn traces_with(m: &Manifest, engine: impl Fn(&Trace, f64) -> f64) -> Vec<Trace> {
    let w = m.initial_weights();
    let mut traces = random_traces(
        m,
        11,
        &[0, 1, 3, 4, 7, 9, 12, 14, 15, 16, 17, 26, 27, 28],
        &[("king_attackers", 8), ("pawns", 8)],
        200,
    );
    for t in &mut traces {
        let v: f64 = m.evaluate(t, &w).unwrap();
        t.eval = Some(engine(t, v) as f32);
    }
    traces
}

#[test]
fn a_correct_set_passes() {
    let m = fixture();
    // The engine rounds (or truncates) its evaluation: within 1 cp after rounding.
    let traces = traces_with(&m, |_, v| v.trunc());
    let r = verify(&m, &traces, &m.initial_weights(), &VerifyOptions::default());
    assert_eq!(
        (r.checked, r.failed, r.without_eval, r.unevaluable),
        (200, 0, 0, 0),
        "{r}"
    );
    assert!(r.passed());
    assert!(r.diagnosis.is_empty());
    assert!(
        r.to_string().contains("all match within 1 after rounding"),
        "{r}"
    );
}

#[test]
fn black_to_move_negated_is_diagnosed() {
    let m = fixture();
    let traces = traces_with(&m, |t, v| {
        if t.white_to_move {
            v.round()
        } else {
            -v.round()
        }
    });
    let r = verify(&m, &traces, &m.initial_weights(), &VerifyOptions::default());
    assert!(r.failed > 50, "{r}");
    assert_eq!(r.diagnosis, vec![Diagnosis::SideToMoveNegated], "{r}");
    assert_eq!(r.first.len(), 10);
    let first = &r.first[0];
    assert!(!traces[first.index].white_to_move);
    assert_eq!(first.fen, traces[first.index].fen());
    assert!(
        first.terms.iter().any(|(n, _)| n == "king_safety"),
        "{:?}",
        first.terms
    );
    let text = r.to_string();
    assert!(
        text.contains(
            "diagnosis: the Black-to-move positions match when their evaluations are negated"
        ),
        "{text}"
    );
    assert!(text.contains("\"side_to_move\""), "{text}");
    let worst = r.worst.as_ref().unwrap();
    let worst_diff = (worst.engine.round() - worst.rebuilt.round()).abs();
    assert!(r
        .first
        .iter()
        .all(|m| (m.engine.round() - m.rebuilt.round()).abs() <= worst_diff));
}

#[test]
fn inverted_phase_is_diagnosed() {
    let m = fixture();
    let w = m.initial_weights();
    let traces = traces_with(&m, |t, _| {
        let inverted = Trace {
            phase: 24.0 - t.phase,
            ..t.clone()
        };
        m.evaluate::<f64>(&inverted, &w).unwrap().round()
    });
    let r = verify(&m, &traces, &w, &VerifyOptions::default());
    assert!(r.failed > 50, "{r}");
    assert_eq!(r.diagnosis, vec![Diagnosis::PhaseInverted], "{r}");
    assert!(r.to_string().contains("phase_max - phase"), "{r}");
}

#[test]
fn offset_and_unit_are_diagnosed() {
    let m = fixture();
    let traces = traces_with(&m, |_, v| v.round() + 25.0);
    let r = verify(&m, &traces, &m.initial_weights(), &VerifyOptions::default());
    assert!(
        matches!(r.diagnosis.as_slice(), [Diagnosis::ConstantOffset(c)] if (*c - 25.0).abs() <= 1.0),
        "{r}"
    );
    let traces = traces_with(&m, |_, v| (v * 2.0).round());
    let r = verify(&m, &traces, &m.initial_weights(), &VerifyOptions::default());
    assert!(
        matches!(r.diagnosis.as_slice(), [Diagnosis::ScaleFactor(k)] if (*k - 2.0).abs() < 0.01),
        "{r}"
    );
    // More positions than choose the offset and the unit (the first 65,536): still named,
    // every position counted.
    let linear = common::manifest(common::LINEAR);
    let w = linear.initial_weights();
    let mut traces = random_traces(&linear, 3, &[0, 1, 2, 3, 4, 6], &[], 70_000);
    for shift in [25.0, 0.0] {
        for (i, t) in traces.iter_mut().enumerate() {
            let v: f64 = linear.evaluate(t, &w).unwrap();
            // The last positions keep the offset or lose it.
            let offset = if i < 65_536 { 25.0 } else { shift };
            t.eval = Some((v.round() + offset) as f32);
        }
        let r = verify(&linear, &traces, &w, &VerifyOptions::default());
        assert_eq!(r.failed, if shift == 0.0 { 65_536 } else { 70_000 }, "{r}");
        assert_eq!(r.diagnosis, [Diagnosis::ConstantOffset(25.0)], "{r}");
    }
}

#[test]
fn positions_without_eval_or_unevaluable_are_counted() {
    let m = fixture();
    let mut traces = traces_with(&m, |_, v| v.round());
    traces[0].eval = None;
    traces[1].features = vec![(0, 9.0, 0.0)]; // ks_weight[9]: out of range
    traces[1].coeffs.push((17, 1.0, 0.0));
    traces[1].coeffs.sort_by_key(|c| c.0);
    traces[1].coeffs.dedup_by_key(|c| c.0);
    let r = verify(&m, &traces, &m.initial_weights(), &VerifyOptions::default());
    assert_eq!(
        (r.without_eval, r.unevaluable, r.checked),
        (1, 1, 198),
        "{r}"
    );
    assert!(r.errors[0].starts_with("#1 ("), "{:?}", r.errors);
    assert!(!r.passed());
}

/// Ethereal's arithmetic in a manifest: king safety per side (`/720`, `/20`), the complexity
/// on the endgame and the scaled taper (`/128`, `/24`), every division truncating.
const TRUNCATING: &str = r#"{"format": "gradtune-manifest", "version": 1, "engine": "e",
  "score": "white", "phase": {"max": 24}, "scale": {"max": 144},
  "params": [
    {"name": "material", "shape": [2], "value": [[100, 120], [300, 280]]},
    {"name": "ks_attack", "shape": [3], "sum": "ks", "value": [[40, 11], [25, 7], [60, 13]]},
    {"name": "ks_base", "shape": [], "sum": "ks", "value": [-55, -9]},
    {"name": "complexity", "shape": [2], "sum": "c", "value": [[0, 9], [0, -60]]}
  ],
  "terms": [
    {"name": "king_safety", "sum": "ks", "per_side": true,
     "mg": "trunc(-max(s, 0) ^ 2 / 720)", "eg": "trunc(-max(s, 0) / 20)"},
    {"name": "complexity", "sum": "c", "eg": "sign(eg) * max(s, -abs(eg))"}
  ],
  "eval": "trunc((mg * phase + trunc(eg * (24 - phase) * scale / 128)) / 24)"}"#;

/// [`TRUNCATING`]'s evaluation of `t` at its shipped values as C computes it (`i64`, `/`
/// truncating towards zero), written independently of the manifest.
fn c_eval(t: &Trace) -> i64 {
    let v = [
        [100, 120],
        [300, 280],
        [40, 11],
        [25, 7],
        [60, 13],
        [-55, -9],
        [0, 9],
        [0, -60],
    ];
    let (mut mg, mut eg, mut complexity) = (0i64, 0i64, 0i64);
    let mut safety = [[0i64; 2]; 2];
    for &(i, w, b) in &t.coeffs {
        let [vm, ve] = v[i as usize];
        let (w, b) = (w as i64, b as i64);
        match i {
            0 | 1 => (mg, eg) = (mg + vm * (w - b), eg + ve * (w - b)),
            2..=5 => {
                safety[0] = [safety[0][0] + vm * w, safety[0][1] + ve * w];
                safety[1] = [safety[1][0] + vm * b, safety[1][1] + ve * b];
            }
            _ => complexity += ve * (w - b),
        }
    }
    for (side, sign) in [(0, 1), (1, -1)] {
        let [s_mg, s_eg] = safety[side];
        mg += sign * (-s_mg * s_mg.max(0) / 720);
        eg += sign * (-s_eg.max(0) / 20);
    }
    eg += eg.signum() * complexity.max(-eg.abs());
    let (phase, scale) = (t.phase as i64, t.scale.unwrap() as i64);
    (mg * phase + eg * (24 - phase) * scale / 128) / 24 + t.constant as i64
}

#[test]
fn an_engine_that_truncates_verifies_exactly_with_trunc() {
    let m = Manifest::from_json(TRUNCATING, "t.json").unwrap();
    let mut traces = random_traces(&m, 5, &[0, 1, 2, 3, 4, 5, 6, 7], &[], 2000);
    for t in &mut traces {
        t.eval = Some(c_eval(t) as f32);
    }
    let w = m.initial_weights();
    // Negative numerators and exact multiples both occur (safety sums on both sides of 0).
    let negative = traces.iter().filter(|t| t.eval.unwrap() < 0.0).count();
    assert!(
        negative > 100 && negative < 1900,
        "{negative} negative evaluations"
    );
    let exact = VerifyOptions {
        tolerance: 0.0,
        ..VerifyOptions::default()
    };
    let r = verify(&m, &traces, &w, &exact);
    assert_eq!((r.checked, r.failed, r.unevaluable), (2000, 0, 0), "{r}");
    for t in &traces {
        assert_eq!(
            m.evaluate::<f64>(t, &w).unwrap(),
            f64::from(t.eval.unwrap())
        );
    }
    // The same manifest in real numbers misses the engine's value on a share of them, even
    // with verify's default tolerance of 1 cp.
    let real = Manifest::from_json(&TRUNCATING.replace("trunc", ""), "r.json").unwrap();
    let r = verify(&real, &traces, &w, &exact);
    assert!(r.failed > 200, "{r}");
    let r = verify(&real, &traces, &w, &VerifyOptions::default());
    assert!(r.failed > 0, "{r}");
}

/// [`Verifier`] given the set a batch at a time reports what [`verify`] reports on the whole
/// set, whatever the batches: counts, the first and worst positions, the diagnosis.
#[test]
fn a_batch_at_a_time_is_the_whole_report() {
    let m = fixture();
    let w = m.initial_weights();
    let inverted = |t: &Trace| {
        let flipped = Trace {
            phase: 24.0 - t.phase,
            ..t.clone()
        };
        m.evaluate::<f64>(&flipped, &w).unwrap().round()
    };
    type Engine<'a> = Box<dyn Fn(&Trace, f64) -> f64 + 'a>;
    let engines: Vec<Engine> = vec![
        Box::new(|_, v| v.trunc()),
        Box::new(|t, v| if t.white_to_move { v } else { -v }.round()),
        Box::new(|t, _| inverted(t)),
        Box::new(|_, v| v.round() + 25.0),
        Box::new(|_, v| (v * 2.0).round()),
    ];
    let opts = VerifyOptions::default();
    for engine in &engines {
        let traces = traces_with(&m, engine);
        let whole = verify(&m, &traces, &w, &opts);
        for size in [1, 7, 64] {
            let mut v = Verifier::new(&m, &w, &opts);
            for batch in traces.chunks(size) {
                v.add(batch);
            }
            assert_eq!(v.seen(), 200);
            assert_eq!(v.finish(), whole, "batches of {size}");
        }
    }
}

/// Traces of the linear manifest with one more White count of trace index `k` than the
/// engine counted in every fifth position (the engine's `eval` is the rebuilt value of the
/// right counts): the traces and the altered positions.
fn one_count_off(m: &Manifest, k: u32) -> (Vec<Trace>, Vec<usize>) {
    let w = m.initial_weights();
    let mut traces = random_traces(m, 11, &[0, 1, 2, 3, 4, 6], &[], 200);
    let mut altered = Vec::new();
    for (i, t) in traces.iter_mut().enumerate() {
        let v: f64 = m.evaluate(t, &w).unwrap();
        t.eval = Some(v.round() as f32);
        if i % 5 == 0 {
            match t.coeffs.iter_mut().find(|c| c.0 == k) {
                Some(c) => c.1 += 1.0,
                None => t.coeffs.push((k, 1.0, 0.0)),
            }
            t.coeffs.sort_by_key(|c| c.0);
            altered.push(i);
        }
    }
    (traces, altered)
}

/// A deliberately wrong trace: one element's count off by one in some positions. Exactly
/// those differ, and the report names the element: one count of it is the difference in all
/// of them, and in each listed one.
#[test]
fn a_count_off_by_one_is_named() {
    let m = common::manifest(common::LINEAR);
    let k = m.trace_index("material", &[1]).unwrap();
    let (traces, altered) = one_count_off(&m, k);
    let r = verify(&m, &traces, &m.initial_weights(), &VerifyOptions::default());
    assert_eq!(r.failed, altered.len(), "{r}");
    let failed: Vec<usize> = r.first.iter().map(|f| f.index).collect();
    assert_eq!(failed, altered[..10]);
    assert_eq!(
        r.one_count,
        [OneCount {
            element: "material[1]".to_string(),
            positions: 40,
            of: 40
        }],
        "{r}"
    );
    for f in &r.first {
        let named = f.one_count.iter().find(|(n, _)| n == "material[1]");
        let (_, unit) = named.unwrap_or_else(|| panic!("{r}"));
        assert!((f.rebuilt - f.engine - unit).abs() <= 1.0, "{r}");
        assert!(f.terms.iter().any(|(n, _)| n == "material"), "{r}");
    }
    let text = r.to_string();
    assert!(
        text.contains("terms: one count of `material[1]` is the difference in 40 of 40"),
        "{text}"
    );
    assert!(
        text.contains("one count of it is the difference: material[1] ("),
        "{text}"
    );
}

/// An engine adding a term where its trace counts one element (a condition misplaced): the
/// differing positions are exactly those counting it, and the report names the element as
/// present in all of them and none of the matching ones, and nothing as one count off.
#[test]
fn an_element_present_only_in_differing_positions_is_named() {
    let m = fixture();
    let w = m.initial_weights();
    let k = m.trace_index("pst", &[1, 2]).unwrap();
    let mut traces = random_traces(
        &m,
        11,
        &[0, 1, 3, 4, 7, 9, 14, 15, 16, 17, 26, 27, 28],
        &[("king_attackers", 8), ("pawns", 8)],
        200,
    );
    for (i, t) in traces.iter_mut().enumerate() {
        if i % 4 == 0 {
            t.coeffs.push((k, 1.0, 0.0));
            t.coeffs.sort_by_key(|c| c.0);
        }
        let v: f64 = m.evaluate(t, &w).unwrap();
        let extra = if i % 4 == 0 { 37.0 } else { 0.0 };
        t.eval = Some((v.round() + extra) as f32);
    }
    let r = verify(&m, &traces, &w, &VerifyOptions::default());
    assert_eq!(r.failed, 50, "{r}");
    let named: Vec<&Presence> = r
        .over_represented
        .iter()
        .filter(|p| p.name == "pst[1][2]")
        .collect();
    assert_eq!(
        named,
        [&Presence {
            name: "pst[1][2]".to_string(),
            differing: 1.0,
            matching: 0.0
        }],
        "{r}"
    );
    assert!(
        r.over_represented.iter().all(|p| p.name != "pst"),
        "pst's other elements are everywhere: {r}"
    );
    assert!(
        r.to_string().contains(
            "terms: `pst[1][2]` is in 100.0% of the differing positions and 0.0% of the matching ones"
        ),
        "{r}"
    );
}
