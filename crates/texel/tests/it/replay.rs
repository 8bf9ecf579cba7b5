//! Replayed value and gradient of a recorded set (the compact phased store for `psqt`, the
//! compact sums-and-head store for `full`) against a fresh tape recording of `model.evaluate`,
//! on real positions.

use crate::common;

use std::io::Read;

use eval::{Model, ModelKind};
use std::sync::atomic::{AtomicUsize, Ordering};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shakmaty::Chess;
use tape::Scratch;
use tapered::Stop;
use tapered::{CompiledSet, Fallback, Reason, SplitSpec, StoreKind, Target};
use texel::chess::{phase_pairs, record_positions, Leaf};

use common::{assert_gradients_close, close, fresh};

/// The quiet 1k positions and the first positions of the TCEC fixture's games.
fn positions() -> Vec<Chess> {
    let mut out: Vec<Chess> = common::quiet_1k().into_iter().map(|(p, _)| p).collect();
    let path = common::fixture("tcec-standard-300.pgn.zst");
    let (reader, _) = fsutil::source::open(&path).expect("the TCEC fixture");
    let (samples, _) = data::extract_pgn_reader(
        reader.take(400_000),
        &path,
        &data::ExtractOptions::default(),
    )
    .expect("PGN");
    let before = out.len();
    out.extend(samples.iter().filter_map(|s| s.position().ok()).take(2000));
    assert!(out.len() > before + 1000, "too few TCEC positions");
    out
}

/// Position `i`'s label: the score carries its number through the set's renumbering.
fn label(i: usize) -> Target {
    Target {
        value: 0.5,
        score: Some(i as f32),
        group: 0,
    }
}

fn check(kind: ModelKind) {
    let model = Model::new(kind);
    let w0 = model.default_weights();
    let pos = positions();
    let labelled: Vec<(Chess, Target)> = pos
        .iter()
        .enumerate()
        .map(|(i, p)| (p.clone(), label(i)))
        .collect();
    let set = record_positions(&model, &labelled, &w0, Leaf::Static, None);
    assert_eq!(set.layout().fallbacks, [], "no {kind} position falls back");
    assert_eq!(set.len(), pos.len());
    match kind {
        ModelKind::Psqt => assert_eq!(set.phased_len(), set.len(), "every psqt row is phased"),
        ModelKind::Full => assert_eq!(
            set.headed_len(),
            set.len(),
            "every full position is in the sums-and-head store"
        ),
    }
    check_around(kind, &model, &set, &pos, &w0);
}

/// Replay at the recording point `w0` (where many positions sit on the phase clamp's kink) and
/// at weights away from it.
fn check_around(kind: ModelKind, model: &Model, set: &CompiledSet, pos: &[Chess], w0: &[f64]) {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let moved: Vec<f64> = w0
        .iter()
        .map(|&v| v * rng.gen_range(0.9..1.1) + rng.gen_range(-5.0..5.0))
        .collect();
    for w in [w0.to_vec(), moved] {
        check_at(kind, model, set, pos, &w);
    }
}

fn check_at(kind: ModelKind, model: &Model, set: &CompiledSet, pos: &[Chess], w: &[f64]) {
    let n = w.len();
    let seed = |i: usize| 1.0 + (i % 7) as f64 * 0.25;
    let mut scratch = Scratch::default();
    let mut want_sum = 0.0;
    let mut want_grad = vec![0.0; n];
    for i in 0..set.len() {
        let p = set.targets()[i].score.expect("score") as usize;
        let (q, g) = fresh(model, &pos[p], w);
        let r = set.score(i, w, &mut scratch);
        assert!(
            close(r, q, q.abs()),
            "{kind} position {p}: replay {r}, fresh {q}"
        );
        let mut rg = vec![0.0; n];
        set.add_gradient(i, 1.0, &mut scratch, &mut rg);
        assert_gradients_close(&rg, &g, &format!("{kind} position {p}"));
        want_sum += seed(p) * q;
        for j in 0..n {
            want_grad[j] += seed(p) * g[j];
        }
    }
    // The parallel pass (per-chunk gradient buffers) agrees with the sum of fresh recordings.
    let mut grad = vec![0.0; n];
    let labels = set.targets();
    let sum = set
        .pass(
            w,
            0..set.len(),
            None,
            Some(&mut grad),
            |i, q| {
                let s = seed(labels[i].score.unwrap_or(0.0) as usize);
                (s * q, s)
            },
            Stop::Never,
        )
        .unwrap();
    let scale = want_grad.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let agree = |sum: f64, grad: &[f64], what: &str| {
        assert!(
            close(sum, want_sum, want_sum.abs()),
            "{what}: {sum} vs {want_sum}"
        );
        for j in 0..n {
            assert!(close(grad[j], want_grad[j], scale), "{what} d/dw{j}");
        }
    };
    agree(sum, &grad, "pass");
    let loss = |i: usize, q: f64| {
        let s = seed(labels[i].score.unwrap_or(0.0) as usize);
        (s * q, s)
    };
    // Passes over sub-ranges (as minibatches take them, starting anywhere in a store) add up
    // to the whole pass.
    let len = set.len();
    let cuts = [0, len / 3 + 1, len / 3 + 2, 2 * len / 3, len];
    let mut parts = 0.0;
    let mut pgrad = vec![0.0; n];
    for r in cuts.windows(2) {
        parts += set
            .pass(w, r[0]..r[1], None, Some(&mut pgrad), loss, Stop::Never)
            .unwrap();
    }
    agree(parts, &pgrad, "ranged pass");
    // A pass in another order (as mini-batches visit positions) agrees too.
    let order: Vec<usize> = (0..len).rev().collect();
    let mut ograd = vec![0.0; n];
    let osum = set
        .pass(w, 0..len, Some(&order), Some(&mut ograd), loss, Stop::Never)
        .unwrap();
    agree(osum, &ograd, "ordered pass");
    // A subset keeps the store and the labels together.
    let keep: Vec<usize> = (0..set.len()).rev().step_by(3).collect();
    let sub = set.subset(&keep);
    for &i in &keep {
        let k2 = (0..sub.len())
            .find(|&m| sub.targets()[m] == set.targets()[i])
            .expect("kept");
        assert!(close(
            sub.score(k2, w, &mut scratch),
            set.score(i, w, &mut scratch),
            1.0
        ));
    }
}

#[test]
fn psqt_replay_matches_fresh_recording() {
    check(ModelKind::Psqt);
}

#[test]
fn full_replay_matches_fresh_recording() {
    check(ModelKind::Full);
}

/// A position whose sums do not fit the sums-and-head store falls back to a general program,
/// counted with its reason, and replays as exactly as the others: every fourth position's last
/// sum has a term split into a non-integer part and the rest (the same value).
#[test]
fn fallback_is_counted_with_its_reason_and_replays() {
    let model = Model::new(ModelKind::Full);
    let w0 = model.default_weights();
    let pos = positions();
    let split = model.split().expect("full splits");
    let spec = SplitSpec {
        sums: split.sums,
        twins: split.twins.expect("twins"),
        head_params: split.head_params,
        eg_of: phase_pairs(&model),
        head_gradient: Some(split.head_gradient),
    };
    let refused = AtomicUsize::new(0);
    let set = CompiledSet::record_split(
        &w0,
        &pos,
        |i, _| label(i),
        |i, p, out| {
            let ok = model.sums(p, out);
            match out.last_mut() {
                Some(last) if ok && i % 4 == 0 && !last.is_empty() => {
                    let (k, c) = last[0];
                    last[0] = (k, c - 0.5);
                    last.push((k, 0.5));
                    refused.fetch_add(1, Ordering::Relaxed);
                }
                _ => {}
            }
            ok
        },
        &spec,
        |s, h| model.head(s, h),
        None,
    );
    let refused = refused.into_inner();
    assert!(refused > 500, "{refused} positions refused");
    let layout = set.layout();
    // The fallback names the first refused term's parameter and its (fractional) count.
    let first = layout.fallbacks[0];
    let (param, coefficient) = (first.param.unwrap(), first.coefficient.unwrap());
    assert_ne!(coefficient.fract(), 0.0, "{first:?}");
    let want = Fallback {
        store: StoreKind::Program,
        reason: Reason::NonIntegerCoefficient,
        positions: refused,
        param: Some(param),
        coefficient: Some(coefficient),
    };
    assert_eq!(layout.fallbacks, [want]);
    assert_eq!(layout.positions(StoreKind::Program), refused);
    assert_eq!(set.headed_len(), set.len() - refused);
    let warnings = layout.warnings();
    assert_eq!(warnings.len(), 1);
    assert!(
        warnings[0].starts_with(&format!("{refused} positions kept as general programs"))
            && warnings[0].contains(&format!(
                "non-integer coefficient (first: parameter `#{param}`, coefficient {coefficient}); \
                 fix: the count {coefficient} of `#{param}` is not a whole number"
            )),
        "{}",
        warnings[0]
    );
    check_around(ModelKind::Full, &model, &set, &pos, &w0);
    // A subset keeps each position's reason.
    let sub = set.subset(&(0..set.len()).step_by(2).collect::<Vec<_>>());
    let kept = sub.layout().positions(StoreKind::Program);
    assert_eq!(sub.layout().fallbacks[0].positions, kept);
    assert!(kept > 0);
}
