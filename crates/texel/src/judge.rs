//! `tune eval`: how good a weights file is on any data, in one pass and without writing a file:
//! the loss (squared error and cross-entropy) at the fitted `K` and at a given one, a
//! calibration table (predicted against observed result by evaluation bins), and the loss
//! split by game phase and by material imbalance.
//!
//! The evaluations are computed directly with [`eval::Model::evaluate_f64`] in parallel: no
//! tape is recorded, so a judgement costs about one static evaluation per position.

use data::Sample;
use eval::Model;
use optim::{fit_k_scores, Link, LossKind, Sigmoid};
use rayon::prelude::*;
use shakmaty::{Chess, Color, Position, Role};

use crate::tunable::Tunable;
use crate::TexelError;

mod report;
mod text;

pub use report::{Bin, Group, Judgement, Losses};

pub(crate) use text::{headline, thousands};

/// Positions per parallel work item; sums are taken per chunk and the chunks added in order,
/// so every figure is the same whatever the number of threads.
pub(crate) const CHUNK: usize = 1 << 14;

/// How a judgement bins and scales.
#[derive(Clone, Copy, Debug)]
pub struct JudgeOptions {
    /// A `K` to report the losses at besides the fitted one; the tables use it when given.
    pub k: Option<f64>,
    /// Width of the calibration bins, in centipawns.
    pub bin_width: f64,
    /// The calibration bins cover `-bin_limit..bin_limit`, plus one open bin on each side.
    pub bin_limit: f64,
}

impl Default for JudgeOptions {
    fn default() -> Self {
        JudgeOptions {
            k: None,
            bin_width: 50.0,
            bin_limit: 600.0,
        }
    }
}

/// One position, scored: its evaluation, its result and what the reports group it by.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scored {
    /// The evaluation in centipawns, White's view.
    pub q: f64,
    /// The result, White's view, `0..=1`.
    pub result: f64,
    /// The game phase as a share of its scale, `0..=1` (1: every piece on the board): the
    /// board's material phase over 24 ([`data::PackedBoard::phase`]) for the built-in
    /// models, the engine's own traced phase over its manifest's maximum for a traced one.
    pub phase: f32,
    /// The material difference in pawns, White minus Black ([`material_balance`]).
    pub imbalance: i32,
}

/// White's material minus Black's, in pawns: pawn 1, knight and bishop 3, rook 5, queen 9.
pub fn material_balance(pos: &Chess) -> i32 {
    let board = pos.board();
    let value = |c: Color| -> i32 {
        [
            (Role::Pawn, 1),
            (Role::Knight, 3),
            (Role::Bishop, 3),
            (Role::Rook, 5),
            (Role::Queen, 9),
        ]
        .iter()
        .map(|&(r, v)| v * (board.by_role(r) & board.by_color(c)).count() as i32)
        .sum()
    };
    value(Color::White) - value(Color::Black)
}

/// Runs `f` on every sample whose board decodes, in parallel, keeping the sample order; returns
/// the results with the sample's index, and how many samples did not decode.
pub(crate) fn map_positions<T, F>(samples: &[Sample], f: F) -> (Vec<(u32, T)>, usize)
where
    T: Send,
    F: Fn(&Sample, &Chess) -> T + Sync,
{
    let chunks: Vec<Vec<(u32, T)>> = samples
        .par_chunks(CHUNK)
        .enumerate()
        .map(|(c, chunk)| {
            chunk
                .iter()
                .enumerate()
                .filter_map(|(j, s)| {
                    let pos = s.position().ok()?;
                    Some(((c * CHUNK + j) as u32, f(s, &pos)))
                })
                .collect()
        })
        .collect();
    let out: Vec<(u32, T)> = chunks.into_iter().flatten().collect();
    let skipped = samples.len() - out.len();
    (out, skipped)
}

/// Every sample's evaluation at `w` with its result, phase and material balance; samples whose
/// board does not decode are left out (the second value counts them).
pub fn score_samples(model: &Model, w: &[f64], samples: &[Sample]) -> (Vec<Scored>, usize) {
    let (scored, skipped) = map_positions(samples, |s, pos| Scored {
        q: model.evaluate_f64(pos, w),
        result: s.result,
        phase: f32::from(s.board.phase()) / 24.0,
        imbalance: material_balance(pos),
    });
    (scored.into_iter().map(|(_, s)| s).collect(), skipped)
}

/// The logistic link at `k` with `loss`.
pub(crate) fn link(k: f64, loss: LossKind) -> Link {
    Link {
        sigmoid: Sigmoid::Logistic,
        k,
        loss,
    }
}

/// `K` fitted for the squared error on the scores `q` against the results.
pub fn fit_k(scored: &[Scored]) -> f64 {
    let q: Vec<f64> = scored.iter().map(|s| s.q).collect();
    let y: Vec<f64> = scored.iter().map(|s| s.result).collect();
    fit_k_scores(&q, &y, link(1.0, LossKind::Mse)).0
}

/// Running sums of a group of positions.
#[derive(Clone, Copy, Debug, Default)]
struct Sums {
    n: usize,
    mse: f64,
    xent: f64,
    q: f64,
    predicted: f64,
    observed: f64,
}

impl Sums {
    /// One position's figures at `k`, as a group of one (to be added into several groups:
    /// the losses are computed once).
    fn one(s: &Scored, k: f64) -> Sums {
        let m = link(k, LossKind::Mse);
        Sums {
            n: 1,
            mse: m.loss_value(s.q, s.result),
            xent: link(k, LossKind::Xent).loss_value(s.q, s.result),
            q: s.q,
            predicted: m.expect(s.q),
            observed: s.result,
        }
    }

    fn merge(&mut self, o: &Sums) {
        self.n += o.n;
        self.mse += o.mse;
        self.xent += o.xent;
        self.q += o.q;
        self.predicted += o.predicted;
        self.observed += o.observed;
    }

    fn mean(&self, x: f64) -> f64 {
        if self.n == 0 {
            f64::NAN
        } else {
            x / self.n as f64
        }
    }

    fn group(&self, name: String) -> Group {
        Group {
            name,
            positions: self.n,
            mse: self.mean(self.mse),
            xent: self.mean(self.xent),
            residual: self.mean(self.observed - self.predicted),
        }
    }
}

/// The game-phase buckets: name and the highest phase in it, on a scale of 24 (the others'
/// edges in proportion: [`phase_names`]).
const PHASES: [(&str, u8); 3] = [("endgame", 7), ("middlegame", 17), ("opening", 24)];

/// The buckets' names on a phase scale of `max` (24 for the built-in models, a traced
/// engine's manifest's `phase.max`): `endgame (phase 0-7)`, ... with the edges of
/// [`PHASES`] in proportion.
fn phase_names(max: u32) -> Vec<String> {
    let edge = |hi: u8| ((f64::from(hi) + 0.5) * f64::from(max) / 24.0).floor() as u32;
    let mut lo = 0;
    PHASES
        .iter()
        .map(|&(name, hi)| {
            let top = if hi == 24 { max } else { edge(hi) };
            let s = format!("{name} (phase {lo}-{top})");
            lo = top + 1;
            s
        })
        .collect()
}

/// The material-balance buckets run from `-IMBALANCE` to `IMBALANCE` pawns, the ends open.
const IMBALANCE: i32 = 4;

/// The bucket of a phase share (`0..=1`): at most `(hi + 0.5) / 24` of the way.
fn phase_bucket(share: f32) -> usize {
    PHASES
        .iter()
        .position(|&(_, hi)| f64::from(share) * 24.0 <= f64::from(hi) + 0.5)
        .unwrap_or(PHASES.len() - 1)
}

fn imbalance_bucket(d: i32) -> usize {
    (d.clamp(-IMBALANCE, IMBALANCE) + IMBALANCE) as usize
}

fn imbalance_name(b: usize) -> String {
    let d = b as i32 - IMBALANCE;
    match d {
        d if d == -IMBALANCE => format!("<= {d} pawns"),
        d if d == IMBALANCE => format!(">= +{d} pawns"),
        0 => "equal".to_string(),
        1 | -1 => format!("{d:+} pawn"),
        d => format!("{d:+} pawns"),
    }
}

/// The calibration bins' edges.
struct Bins {
    width: f64,
    limit: f64,
    inner: usize,
}

impl Bins {
    fn new(opts: &JudgeOptions) -> Result<Bins, TexelError> {
        let (width, limit) = (opts.bin_width, opts.bin_limit);
        let inner = 2.0 * limit / width;
        if !(width > 0.0 && limit > 0.0 && inner.is_finite()) || inner > 10_000.0 {
            return Err(TexelError::Config(format!(
                "calibration bins of {width} cp up to +-{limit} cp: both must be positive and \
                 give at most 10,000 bins"
            )));
        }
        Ok(Bins {
            width,
            limit,
            inner: inner.ceil() as usize,
        })
    }

    fn len(&self) -> usize {
        self.inner + 2
    }

    /// The bin of `q`: 0 below `-limit`, `len() - 1` from `limit` up (and for NaN).
    fn of(&self, q: f64) -> usize {
        if q < -self.limit {
            0
        } else if q >= self.limit || q.is_nan() {
            self.len() - 1
        } else {
            (1 + ((q + self.limit) / self.width) as usize).min(self.inner)
        }
    }

    fn edges(&self, b: usize) -> (Option<f64>, Option<f64>) {
        let edge = |i: usize| (-self.limit + i as f64 * self.width).min(self.limit);
        match b {
            0 => (None, Some(-self.limit)),
            b if b == self.len() - 1 => (Some(self.limit), None),
            b => (Some(edge(b - 1)), Some(edge(b))),
        }
    }
}

/// All the sums of one pass.
#[derive(Clone, Debug)]
struct Tally {
    fitted: Sums,
    given: Sums,
    bins: Vec<Sums>,
    phase: Vec<Sums>,
    imbalance: Vec<Sums>,
}

impl Tally {
    fn new(bins: usize) -> Tally {
        Tally {
            fitted: Sums::default(),
            given: Sums::default(),
            bins: vec![Sums::default(); bins],
            phase: vec![Sums::default(); PHASES.len()],
            imbalance: vec![Sums::default(); 2 * IMBALANCE as usize + 1],
        }
    }

    fn merge(mut self, o: &Tally) -> Tally {
        self.fitted.merge(&o.fitted);
        self.given.merge(&o.given);
        for (pairs, other) in [
            (&mut self.bins, &o.bins),
            (&mut self.phase, &o.phase),
            (&mut self.imbalance, &o.imbalance),
        ] {
            for (a, b) in pairs.iter_mut().zip(other) {
                a.merge(b);
            }
        }
        self
    }
}

/// One parallel pass over `scored` at `k_given` for every table; the fitted sums at `k_fit`
/// when it is another `K`, else the given ones.
fn tally(scored: &[Scored], bins: &Bins, k_given: f64, k_fit: Option<f64>) -> Tally {
    scored
        .par_chunks(CHUNK)
        .map(|chunk| {
            let mut t = Tally::new(bins.len());
            for s in chunk {
                let given = Sums::one(s, k_given);
                let fitted = match k_fit {
                    Some(k) => Sums::one(s, k),
                    None => given,
                };
                t.fitted.merge(&fitted);
                t.given.merge(&given);
                t.bins[bins.of(s.q)].merge(&given);
                t.phase[phase_bucket(s.phase)].merge(&given);
                t.imbalance[imbalance_bucket(s.imbalance)].merge(&given);
            }
            t
        })
        .collect::<Vec<Tally>>()
        .iter()
        .fold(Tally::new(bins.len()), Tally::merge)
}

/// Judges `w` of `model` on the scored positions (from [`score_samples`]; `skipped` is
/// reported as it is): fits `K`, then one parallel pass for every table. `phase_max` is the
/// scale the phase buckets are named on (24, or a traced engine's).
pub fn judge_scored<M: Tunable>(
    model: &M,
    scored: &[Scored],
    skipped: usize,
    opts: &JudgeOptions,
    phase_max: u32,
) -> Result<Judgement, TexelError> {
    if scored.is_empty() {
        return Err(TexelError::Config(
            "no positions to judge (none of the samples decodes)".to_string(),
        ));
    }
    if let Some(k) = opts.k {
        if !(k > 0.0 && k.is_finite()) {
            return Err(TexelError::Config(format!("K must be positive, not {k}")));
        }
    }
    let bins = Bins::new(opts)?;
    let k_fit = fit_k(scored);
    let k_given = opts.k.unwrap_or(k_fit);
    let tally = tally(scored, &bins, k_given, opts.k.is_some().then_some(k_fit));
    let losses = |s: &Sums, k: f64| Losses {
        k,
        mse: s.mean(s.mse),
        xent: s.mean(s.xent),
    };
    Ok(Judgement {
        model: model.model_name(),
        positions: scored.len(),
        skipped,
        fitted: losses(&tally.fitted, k_fit),
        given: opts.k.map(|k| losses(&tally.given, k)),
        k: k_given,
        calibration: tally
            .bins
            .iter()
            .enumerate()
            .map(|(b, s)| {
                let (lo, hi) = bins.edges(b);
                Bin {
                    lo,
                    hi,
                    positions: s.n,
                    mean_eval: s.mean(s.q),
                    predicted: s.mean(s.predicted),
                    observed: s.mean(s.observed),
                }
            })
            .collect(),
        by_phase: tally
            .phase
            .iter()
            .zip(phase_names(phase_max))
            .map(|(s, name)| s.group(name))
            .collect(),
        by_imbalance: tally
            .imbalance
            .iter()
            .enumerate()
            .map(|(b, s)| s.group(imbalance_name(b)))
            .collect(),
    })
}

/// [`score_samples`] then [`judge_scored`].
pub fn judge(
    model: &Model,
    w: &[f64],
    samples: &[Sample],
    opts: &JudgeOptions,
) -> Result<Judgement, TexelError> {
    let (scored, skipped) = score_samples(model, w, samples);
    judge_scored(model, &scored, skipped, opts, 24)
}

#[cfg(test)]
mod phase_tests {
    use super::{phase_bucket, phase_names};

    #[test]
    fn buckets_are_named_on_the_models_own_scale() {
        assert_eq!(
            phase_names(24),
            [
                "endgame (phase 0-7)",
                "middlegame (phase 8-17)",
                "opening (phase 18-24)"
            ]
        );
        // An engine whose phase runs to 20: the same edges in proportion.
        assert_eq!(
            phase_names(20),
            [
                "endgame (phase 0-6)",
                "middlegame (phase 7-14)",
                "opening (phase 15-20)"
            ]
        );
    }

    #[test]
    fn a_phase_falls_in_the_bucket_its_name_says() {
        for max in [24u32, 20, 64, 256] {
            let names = phase_names(max);
            for phase in 0..=max {
                let b = phase_bucket(phase as f32 / max as f32);
                let range = names[b]
                    .split("phase ")
                    .nth(1)
                    .unwrap()
                    .trim_end_matches(')');
                let (lo, hi) = range.split_once('-').unwrap();
                let (lo, hi): (u32, u32) = (lo.parse().unwrap(), hi.parse().unwrap());
                assert!(
                    lo <= phase && phase <= hi,
                    "max {max}: {phase} in {}",
                    names[b]
                );
            }
        }
    }
}
