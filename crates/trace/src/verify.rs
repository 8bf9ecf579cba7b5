//! [`verify`]: the manifest's rebuilt evaluation against the engine's own, position by
//! position, with the usual mix-ups (sign convention, phase direction, an offset, a unit)
//! recognised and named.

use std::fmt;

use rayon::prelude::*;

use crate::{Manifest, Trace};

/// Options of [`verify`].
#[derive(Clone, Copy, Debug)]
pub struct VerifyOptions {
    /// The largest difference allowed between the engine's evaluation and the rebuilt one,
    /// both rounded to integers first (centipawns). Default 1.
    pub tolerance: f64,
    /// How many differing positions [`VerifyReport::first`] lists. Default 10.
    pub max_listed: usize,
}

impl Default for VerifyOptions {
    fn default() -> Self {
        VerifyOptions {
            tolerance: 1.0,
            max_listed: 10,
        }
    }
}

/// One position whose rebuilt evaluation differs from the engine's.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    /// The trace's index in the set.
    pub index: usize,
    /// Its FEN.
    pub fen: String,
    /// The engine's evaluation, White's view.
    pub engine: f64,
    /// The rebuilt evaluation, White's view.
    pub rebuilt: f64,
    /// What each part contributed ([`Manifest::contributions`]).
    pub terms: Vec<(String, f64)>,
}

/// A recognised cause of many mismatches; its `Display` names the fix.
#[derive(Clone, Debug, PartialEq)]
pub enum Diagnosis {
    /// The positions match when the evaluations of Black-to-move positions are negated: the
    /// engine's score convention is not the one the manifest declares.
    SideToMoveNegated,
    /// The positions match with the phase counted the other way (`phase_max - phase`).
    PhaseInverted,
    /// The engine's evaluations are the rebuilt ones plus this constant.
    ConstantOffset(f64),
    /// The engine's evaluations are the rebuilt ones times this factor (another unit).
    ScaleFactor(f64),
}

impl fmt::Display for Diagnosis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Diagnosis::SideToMoveNegated => write!(
                f,
                "the Black-to-move positions match when their evaluations are negated: the \
                 engine reports `eval` and `const` in the other sign convention than the \
                 manifest's \"score\" says; switch \"score\" between \"white\" and \
                 \"side_to_move\" in the manifest"
            ),
            Diagnosis::PhaseInverted => write!(
                f,
                "the positions match with the phase counted the other way: the engine's phase \
                 is 0 in the middlegame; write `phase` as phase_max - phase in the traces (the \
                 manifest's phase_max is a pure middlegame)"
            ),
            Diagnosis::ConstantOffset(c) => write!(
                f,
                "the engine's evaluations are the rebuilt ones plus {c:.2}: a term the traces \
                 leave out (tempo?); trace it, or report it in `const`"
            ),
            Diagnosis::ScaleFactor(k) => write!(
                f,
                "the engine's evaluations are the rebuilt ones times {k:.4}: the engine reports \
                 another unit than its weights; report `eval` in the weights' unit"
            ),
        }
    }
}

/// What [`verify`] found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VerifyReport {
    /// Positions compared (those with an `eval` that could be evaluated).
    pub checked: usize,
    /// Positions without the engine's `eval` (not compared).
    pub without_eval: usize,
    /// Positions the manifest could not evaluate (an index out of range, a non-finite value).
    pub unevaluable: usize,
    /// The first messages of those, `#index: what`.
    pub errors: Vec<String>,
    /// Positions differing by more than the tolerance.
    pub failed: usize,
    /// The position differing most.
    pub worst: Option<Mismatch>,
    /// The first differing positions, in set order.
    pub first: Vec<Mismatch>,
    /// Recognised causes.
    pub diagnosis: Vec<Diagnosis>,
    /// The tolerance used.
    pub tolerance: f64,
}

impl VerifyReport {
    /// Whether every compared position matched and every position could be evaluated.
    pub fn passed(&self) -> bool {
        self.failed == 0 && self.unevaluable == 0
    }
}

/// Whether a rebuilt value matches the engine's, both rounded first.
fn matches(engine: f64, rebuilt: f64, tolerance: f64) -> bool {
    (engine.round() - rebuilt.round()).abs() <= tolerance
}

/// Rebuilds every trace's evaluation with weights `w` and compares it with the engine's own
/// (`eval`), after rounding both to integers; lists the worst and first differences with
/// their parts, and names a sign-convention, phase, offset or unit mix-up when one explains
/// (nearly) all of them.
pub fn verify(
    manifest: &Manifest,
    traces: &[Trace],
    w: &[f64],
    opts: &VerifyOptions,
) -> VerifyReport {
    let rebuilt: Vec<Option<Result<f64, String>>> = traces
        .par_iter()
        .map(|t| {
            t.eval
                .map(|_| manifest.evaluate(t, w).map_err(|e| e.to_string()))
        })
        .collect();
    let mut r = VerifyReport {
        tolerance: opts.tolerance,
        ..VerifyReport::default()
    };
    let mut worst_diff = -1.0;
    let mut pairs = Vec::new(); // (index, engine, rebuilt)
    for (i, (t, v)) in traces.iter().zip(&rebuilt).enumerate() {
        let (Some(engine), Some(v)) = (t.eval, v) else {
            r.without_eval += 1;
            continue;
        };
        let rebuilt = match v {
            Ok(x) => *x,
            Err(e) => {
                r.unevaluable += 1;
                if r.errors.len() < opts.max_listed {
                    r.errors.push(format!("#{i} ({}): {e}", t.fen()));
                }
                continue;
            }
        };
        let engine = f64::from(engine);
        r.checked += 1;
        pairs.push((i, engine, rebuilt));
        if matches(engine, rebuilt, opts.tolerance) {
            continue;
        }
        r.failed += 1;
        let diff = (engine.round() - rebuilt.round()).abs();
        let listed = r.first.len() < opts.max_listed;
        if listed || diff > worst_diff {
            let m = Mismatch {
                index: i,
                fen: t.fen(),
                engine,
                rebuilt,
                terms: manifest.contributions(t, w),
            };
            if diff > worst_diff {
                worst_diff = diff;
                r.worst = Some(m.clone());
            }
            if listed {
                r.first.push(m);
            }
        }
    }
    if r.failed > 0 {
        r.diagnosis = diagnose(manifest, traces, w, &pairs, r.failed, opts.tolerance);
    }
    r
}

/// The hypotheses that explain at least 90% of the `failed` positions.
fn diagnose(
    m: &Manifest,
    traces: &[Trace],
    w: &[f64],
    pairs: &[(usize, f64, f64)],
    failed: usize,
    tol: f64,
) -> Vec<Diagnosis> {
    let explains = |still_failing: usize| still_failing * 10 <= failed;
    let count = |f: &(dyn Fn(usize, f64, f64) -> bool + Sync)| {
        pairs.par_iter().filter(|&&(i, e, v)| !f(i, e, v)).count()
    };
    let mut out = Vec::new();
    let negated = count(&|i, e, v| {
        let e = if traces[i].white_to_move { e } else { -e };
        matches(e, v, tol)
    });
    if traces.iter().any(|t| !t.white_to_move) && explains(negated) {
        out.push(Diagnosis::SideToMoveNegated);
    }
    let max = m.phase_max() as f32;
    let inverted = count(&|i, e, _| {
        let t = Trace {
            phase: max - traces[i].phase,
            ..traces[i].clone()
        };
        m.evaluate(&t, w).is_ok_and(|v| matches(e, v, tol))
    });
    if explains(inverted) {
        out.push(Diagnosis::PhaseInverted);
    }
    let mut diffs: Vec<f64> = pairs.iter().map(|&(_, e, v)| e - v).collect();
    diffs.sort_by(f64::total_cmp);
    let offset = diffs[diffs.len() / 2];
    if offset.abs() > tol && explains(count(&|_, e, v| matches(e, v + offset, tol))) {
        out.push(Diagnosis::ConstantOffset(offset));
    }
    let (ev, vv) = pairs
        .iter()
        .fold((0.0, 0.0), |(a, b), &(_, e, v)| (a + e * v, b + v * v));
    if vv > 0.0 {
        let k = ev / vv;
        if (k - 1.0).abs() > 0.01 && explains(count(&|_, e, v| matches(e, v * k, tol))) {
            out.push(Diagnosis::ScaleFactor(k));
        }
    }
    out
}

impl fmt::Display for VerifyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tol = self.tolerance;
        write!(
            f,
            "verify: {} positions compared with the engine's own evaluation ({} without `eval`, \
             {} not evaluable; values below are White's view)",
            self.checked, self.without_eval, self.unevaluable
        )?;
        if self.failed == 0 {
            write!(f, "\n  all match within {tol} after rounding")?;
        } else {
            let pct = 100.0 * self.failed as f64 / self.checked.max(1) as f64;
            write!(
                f,
                "\n  {} differ by more than {tol} after rounding ({pct:.1}%)",
                self.failed
            )?;
        }
        for e in &self.errors {
            write!(f, "\n  not evaluable: {e}")?;
        }
        if let Some(m) = &self.worst {
            write!(f, "\n  worst: {}", show(m))?;
        }
        if !self.first.is_empty() {
            write!(f, "\n  first {}:", self.first.len())?;
            for m in &self.first {
                write!(f, "\n    {}", show(m))?;
            }
        }
        for d in &self.diagnosis {
            write!(f, "\n  diagnosis: {d}")?;
        }
        Ok(())
    }
}

fn show(m: &Mismatch) -> String {
    let parts: Vec<String> = m
        .terms
        .iter()
        .map(|(n, v)| format!("{n} {v:+.2}"))
        .collect();
    format!(
        "#{} engine {} rebuilt {:.2} (difference {:+}): {}\n      parts: {}",
        m.index,
        m.engine,
        m.rebuilt,
        m.engine.round() - m.rebuilt.round(),
        m.fen,
        parts.join(", ")
    )
}
