//! `tune bench --traced`: psqt's evaluation of the bench positions written as an engine's
//! traces (a manifest with one tapered element per (middlegame, endgame) pair of psqt's
//! parameters, each position's pair counts and phase from psqt's own terms), so that the
//! traced model is measured on the same positions with the same nonzeros as `psqt`.

use std::path::{Path, PathBuf};

use eval::{Model, ModelKind};
use trace::Trace;

/// The phase `psqt` tapers by runs `0..=PHASE_MAX` (24: every piece on the board).
const PHASE_MAX: f64 = 24.0;

/// The manifest: psqt's pairs as one tapered array `psqt`, at psqt's default weights.
fn manifest(model: &Model, pairs: &[(usize, usize)]) -> String {
    let w = model.default_weights();
    let values: Vec<String> = pairs
        .iter()
        .map(|&(m, e)| format!("[{}, {}]", w[m], w[e]))
        .collect();
    format!(
        r#"{{"format": "gradtune-manifest", "version": 1, "engine": "psqt-as-traces",
  "score": "white", "phase": {{"max": 24}},
  "params": [{{"name": "psqt", "shape": [{}], "tapered": true, "value": [{}]}}]}}"#,
        pairs.len(),
        values.join(", ")
    )
}

/// One sample as a trace: psqt's terms grouped by pair, each pair's count `s` (its middlegame
/// and endgame coefficients are `s * rho` and `s * (1 - rho)`), the phase `24 * rho`. `None`
/// if the board does not decode or the terms do not decompose so.
fn to_trace(
    model: &Model,
    pair_of: &[Option<(u32, bool)>],
    s: &data::Sample,
    terms: &mut Vec<(u32, f64)>,
) -> Option<Trace> {
    let pos = s.position().ok()?;
    terms.clear();
    if !model.linear_terms(&pos, terms) {
        return None;
    }
    // (pair, middlegame coefficient, endgame coefficient)
    let mut by_pair: Vec<(u32, f64, f64)> = Vec::with_capacity(terms.len());
    for &(i, c) in terms.iter() {
        let (k, mg) = pair_of[i as usize]?;
        match by_pair.iter_mut().find(|p| p.0 == k) {
            Some(p) if mg => p.1 += c,
            Some(p) => p.2 += c,
            None if mg => by_pair.push((k, c, 0.0)),
            None => by_pair.push((k, 0.0, c)),
        }
    }
    by_pair.sort_unstable_by_key(|p| p.0);
    let mut rho = None;
    let mut coeffs = Vec::with_capacity(by_pair.len());
    for (k, cm, ce) in by_pair {
        let count = (cm + ce).round();
        if count == 0.0 {
            continue;
        }
        let r = *rho.get_or_insert(cm / count);
        if ((cm / count) - r).abs() > 1e-9 {
            return None;
        }
        let (w, b) = if count > 0.0 {
            (count, 0.0)
        } else {
            (0.0, -count)
        };
        coeffs.push((k, w as f32, b as f32));
    }
    Some(Trace {
        board: s.board,
        result: s.result,
        score: s.score,
        game: s.game,
        white_to_move: s.board.turn().is_white(),
        phase: (rho.unwrap_or(0.0) * PHASE_MAX).round() as f32,
        scale: None,
        constant: 0.0,
        eval: None,
        coeffs,
        features: Vec::new(),
    })
}

/// Writes the manifest (`psqt.json`) and the first `first` positions of `data` as a binary
/// trace cache (`psqt.trace.zst`) into `dir`; their paths.
pub fn psqt_as_traces(
    data: &[PathBuf],
    first: usize,
    dir: &Path,
) -> anyhow::Result<(PathBuf, PathBuf)> {
    let model = Model::new(ModelKind::Psqt);
    let pairs: Vec<(usize, usize)> = model
        .params()
        .iter()
        .enumerate()
        .filter_map(|(i, p)| Some((i, p.twin?)))
        .collect();
    if 2 * pairs.len() != model.len() {
        anyhow::bail!("psqt's parameters are not all (middlegame, endgame) pairs");
    }
    let mut pair_of = vec![None; model.len()];
    for (k, &(m, e)) in pairs.iter().enumerate() {
        pair_of[m] = Some((k as u32, true));
        pair_of[e] = Some((k as u32, false));
    }
    let (mut samples, _) =
        texel::setup::load_samples(data, false, &data::ExtractOptions::recommended())?;
    samples.truncate(first);
    let mut terms = Vec::new();
    let traces: Vec<Trace> = samples
        .iter()
        .filter_map(|s| to_trace(&model, &pair_of, s, &mut terms))
        .collect();
    eprintln!(
        "psqt_as_traces: {} of {} positions as traces",
        traces.len(),
        samples.len()
    );
    drop(samples);
    let m = dir.join("psqt.json");
    std::fs::write(&m, manifest(&model, &pairs))?;
    let t = dir.join("psqt.trace.zst");
    trace::write_binary(&t, &traces)?;
    Ok((m, t))
}
