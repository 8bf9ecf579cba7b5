//! The `full` model: every term of the list (`terms/mod.rs`: material and piece-square tables,
//! mobility, pawn structure, piece terms, tempo, threats, ...), a non-linear king-safety
//! penalty and tunable game-phase weights.
//!
//! ```text
//! mg     = dot(w, mg terms) - penalty(danger_white) + penalty(danger_black)
//! eg     = dot(w, eg terms)
//! danger = dot(w, king-danger inputs of that king)           (attacks, checks, shelter)
//! penalty(d) = d + q * d * |d| / 100,  q = king_safety.quadratic
//! total  = max(16 phase.pawn + 4 phase.knight + 4 phase.bishop + 4 phase.rook + 2 phase.queen, 1)
//! phase  = clamp(sum over pieces on the board of phase.<piece>, 0, total)
//! eval   = eg + (mg - eg) * phase / total
//! ```
//!
//! `penalty` has slope 1 at 0, so the king-safety weights get a non-zero gradient even at the
//! all-zero start, and it is not linear in the weights once danger is non-zero.
//!
//! The evaluation is written in two stages, so that a tuner can store each position compactly
//! (see [`Model::split`](crate::Model::split)): five linear sums that depend on the position
//! ([`SUMS`]: the middlegame terms, the endgame terms, the two danger sums, the phase sum), and
//! a non-linear [`head`] of those sums and six weights ([`head_params`]) that is the same for
//! every position.

use shakmaty::Chess;
use tape::{DotAccumulator, Scalar};

use crate::features::{Features, Sink, Terms};
use crate::param_info::PHASE_START_COUNTS;
use crate::terms::{extract_full, FullLayout as Layout};

/// Number of linear sums: middlegame terms, endgame terms, danger to White's king, danger to
/// Black's king, phase.
pub(crate) const SUMS: usize = 5;

/// Number of weights the head reads: `king_safety.quadratic`, then `phase.pawn` .. `phase.queen`.
pub(crate) const HEAD_PARAMS: usize = 6;

/// The king-safety penalty `d + q d |d| / 100`.
#[inline(always)]
fn penalty<S: Scalar>(danger: S, q: S) -> S {
    danger + q * danger * danger.abs() * 0.01
}

/// The weight indices the head reads, in the order [`head`] takes them.
pub(crate) fn head_params(layout: &Layout) -> [u32; HEAD_PARAMS] {
    let p = layout.phase;
    [layout.pieces.ks_quadratic, p, p + 1, p + 2, p + 3, p + 4]
}

/// Fills `f` with every term of the position: `f.mg`, `f.eg`, `f.danger` and, in
/// `f.combined`, the phase sum's terms (one per piece type on the board).
pub(crate) fn fill(pos: &Chess, layout: &Layout, f: &mut Features) {
    f.clear();
    extract_full(pos, layout, f);
}

/// The linear sums' term lists, in [`SUMS`] order, after [`fill`].
pub(crate) fn sum_terms(f: &Features) -> [&Terms; SUMS] {
    [&f.mg, &f.eg, &f.danger[0], &f.danger[1], &f.combined]
}

/// The non-linear head: the evaluation from the sums `s` ([`SUMS`] of them) and the head
/// weights `h` ([`head_params`]).
#[inline(always)]
pub(crate) fn head<S: Scalar>(s: &[S], h: &[S]) -> S {
    let q = h[0];
    let mg = s[0] - penalty(s[2], q) + penalty(s[3], q);
    let eg = s[1];
    let mut total_terms = [(0u32, 0.0f64); 5];
    for (r, t) in total_terms.iter_mut().enumerate() {
        *t = (1 + r as u32, PHASE_START_COUNTS[r]);
    }
    let total = S::dot(h, &total_terms).max(S::one());
    let phase = s[4].clamp(S::zero(), total);
    eg + (mg - eg) * (phase / total)
}

/// [`head`] on `f64` with its gradient: returns the value and writes `d head / d s_j` into
/// `grad[j]` and `d head / d h_k` into `grad[SUMS + k]`.
///
/// Derived by hand from the same operations in the same order, with the tape's conventions
/// on the kinks: `|x|` has slope 0 at 0, `min`/`max` pass the derivative to their first
/// operand on a tie, so `clamp(x, lo, hi) = max(min(x, hi), lo)` passes it to `x` on either
/// boundary. The tests compare it with a tape recording of [`head`], kinks included.
#[inline(always)]
pub(crate) fn head_gradient(s: &[f64], h: &[f64], grad: &mut [f64]) -> f64 {
    let (s, h) = (&s[..SUMS], &h[..HEAD_PARAMS]);
    let grad = &mut grad[..SUMS + HEAD_PARAMS];
    let q = h[0];
    // penalty(d) = d + ((q * d) * |d|) * 0.01; d/dd = 1 + (|d| q + (q d) sign(d)) / 100, which
    // is 1 + 2 q |d| / 100 (sign(0) = 0 matches |x|'s slope 0 at 0); d/dq = d |d| / 100.
    let (dw, db) = (s[2], s[3]);
    let (aw, ab) = (dw.abs(), db.abs());
    let pw = dw + q * dw * aw * 0.01;
    let pb = db + q * db * ab * 0.01;
    let mg = s[0] - pw + pb;
    let eg = s[1];
    // total = max(dot(h[1..], start counts), 1), summed as `Scalar::dot` does (four
    // accumulators, the fifth term into the first).
    let c = PHASE_START_COUNTS;
    let total_raw = ((c[0] * h[1] + c[4] * h[5]) + c[1] * h[2]) + (c[2] * h[3] + c[3] * h[4]);
    let (total, d_total_raw) = if 1.0 > total_raw {
        (1.0, 0.0)
    } else {
        (total_raw, 1.0)
    };
    // clamp(s4, 0, total) = max(min(s4, total), 0): the derivative goes to s4 on a tie.
    let (m, dm_s4, dm_total) = if total < s[4] {
        (total, 0.0, 1.0)
    } else {
        (s[4], 1.0, 0.0)
    };
    let (phase, dphase_m) = if 0.0 > m { (0.0, 0.0) } else { (m, 1.0) };
    // One division (the tape divides three times; the results differ in the last bit).
    let inv = 1.0 / total;
    let ratio = phase * inv;
    let diff = mg - eg;
    let value = eg + diff * ratio;
    let dphase = diff * inv * dphase_m;
    let dtotal_raw = (dphase * dm_total - diff * ratio * inv) * d_total_raw;
    grad[0] = ratio;
    grad[1] = 1.0 - ratio;
    grad[2] = -ratio * (1.0 + 2.0 * q * aw * 0.01);
    grad[3] = ratio * (1.0 + 2.0 * q * ab * 0.01);
    grad[4] = dphase * dm_s4;
    grad[SUMS] = ratio * (db * ab - dw * aw) * 0.01;
    for r in 0..5 {
        grad[SUMS + 1 + r] = dtotal_raw * c[r];
    }
    value
}

/// `full` evaluation in centipawns, White's view.
pub(crate) fn evaluate<S: Scalar>(pos: &Chess, layout: &Layout, w: &[S], f: &mut Features) -> S {
    fill(pos, layout, f);
    let terms = sum_terms(f);
    let s: [S; SUMS] = std::array::from_fn(|j| S::dot(w, terms[j]));
    let h: [S; HEAD_PARAMS] = head_params(layout).map(|i| w[i as usize]);
    head(&s, &h)
}

/// [`evaluate`] on `f64`, bit for bit, without term lists: the terms [`fill`] collects go, in
/// the same order, straight into running sums that add them as [`Scalar::dot`] does (term `t`
/// of a list into accumulator `t mod 4`), then into the same [`head`]. What a search calls.
pub(crate) fn evaluate_f64(pos: &Chess, layout: &Layout, w: &[f64]) -> f64 {
    let mut sums = F64Sums::new(w);
    extract_into_sums(pos, layout, &mut sums);
    let s = sums.values();
    let h: [f64; HEAD_PARAMS] = head_params(layout).map(|i| w[i as usize]);
    head(&s, &h)
}

/// [`extract_full`] into running sums, with the CPU's population-count instruction where it
/// has one. The features count attacked squares by the dozen a node; without `popcnt` (the
/// baseline x86-64 target has none) each count is a dozen instructions, and the search of a
/// `full` weights file runs about 1.15x slower (`docs/benchmarks.md`). The instruction changes
/// how the counts are computed, not what they are: the same terms, the same sums, the same
/// bits.
#[inline(always)]
fn extract_into_sums(pos: &Chess, layout: &Layout, sums: &mut F64Sums<'_>) {
    #[cfg(all(target_arch = "x86_64", not(target_feature = "popcnt")))]
    if std::arch::is_x86_feature_detected!("popcnt") {
        // SAFETY: `extract_full_popcnt` is `extract_full` compiled with the `popcnt` target
        // feature, which is all it requires of the CPU, and the CPU has just been found to have
        // it (`is_x86_feature_detected!` caches the answer, so this is one load and a test).
        unsafe { extract_full_popcnt(pos, layout, sums) };
        return;
    }
    extract_full(pos, layout, sums);
}

/// [`extract_full`] compiled with the `popcnt` target feature (see [`extract_into_sums`]).
#[cfg(all(target_arch = "x86_64", not(target_feature = "popcnt")))]
#[target_feature(enable = "popcnt")]
fn extract_full_popcnt(pos: &Chess, layout: &Layout, sums: &mut F64Sums<'_>) {
    extract_full(pos, layout, sums);
}

/// The running sums of [`evaluate_f64`]: a [`Sink`] at fixed weights.
struct F64Sums<'w> {
    w: &'w [f64],
    /// The middlegame and endgame sums, accumulator by accumulator. Their lists have the same
    /// length (every term comes as a pair), so one count serves both.
    mg: [f64; 4],
    eg: [f64; 4],
    pairs: usize,
    danger: [DotAccumulator; 2],
    phase: DotAccumulator,
}

impl<'w> F64Sums<'w> {
    fn new(w: &'w [f64]) -> Self {
        F64Sums {
            w,
            mg: [0.0; 4],
            eg: [0.0; 4],
            pairs: 0,
            danger: [DotAccumulator::default(); 2],
            phase: DotAccumulator::default(),
        }
    }

    /// The [`SUMS`] linear sums, in their order; the middlegame and endgame accumulators
    /// combined as [`DotAccumulator::value`] combines.
    fn values(&self) -> [f64; SUMS] {
        let combine = |a: &[f64; 4]| (a[0] + a[1]) + (a[2] + a[3]);
        [
            combine(&self.mg),
            combine(&self.eg),
            self.danger[0].value(),
            self.danger[1].value(),
            self.phase.value(),
        ]
    }
}

impl Sink for F64Sums<'_> {
    #[inline(always)]
    fn pair2(&mut self, mg: u32, eg: u32, c: f64) {
        if c != 0.0 {
            // Term `t` of each list into accumulator `t mod 4`, as `DotAccumulator::add`.
            let k = self.pairs & 3;
            self.mg[k] += c * self.w[mg as usize];
            self.eg[k] += c * self.w[eg as usize];
            self.pairs += 1;
        }
    }

    #[inline(always)]
    fn danger(&mut self, side: usize, index: u32, c: f64) {
        if c != 0.0 {
            self.danger[side].add(c, self.w[index as usize]);
        }
    }

    #[inline(always)]
    fn phase(&mut self, index: u32, c: f64) {
        if c != 0.0 {
            self.phase.add(c, self.w[index as usize]);
        }
    }
}

/// The two copies of the extraction (on CPUs and builds where there are two).
#[cfg(all(test, target_arch = "x86_64", not(target_feature = "popcnt")))]
mod tests {
    use super::*;
    use crate::params::{self, build};
    use crate::{test_position, ModelKind};

    /// Middlegames with every piece type, open and closed kings, passed pawns, a pawn endgame.
    const FENS: [&str; 6] = [
        "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1BBPPP/R2QK2R w KQ - 0 9",
        "2kr3r/ppq2ppp/2n1b3/3pP3/1b1P4/2N2N2/PP1QBPPP/R3K2R b KQ - 3 13",
        "6k1/5ppp/8/2P5/1P6/8/5PPP/6K1 w - - 0 40",
        "r3k2r/1P3ppp/8/8/8/8/p4PPP/R3K2R w KQkq - 0 30",
        "3q2k1/pb3p1p/1p4p1/3Pr3/2P5/1P3QP1/P4P1P/3RR1K1 w - - 1 25",
        "8/8/3k4/3p4/3P4/3K4/8/8 w - - 0 60",
    ];

    /// The `popcnt` build of the extraction and the baseline one give the same sums, bit for
    /// bit, at weights with every parameter non-zero (on a CPU without `popcnt` there is only
    /// the baseline path, and nothing to compare).
    #[test]
    fn popcnt_extraction_is_the_baseline_bit_for_bit() {
        if !std::arch::is_x86_feature_detected!("popcnt") {
            eprintln!("this CPU has no popcnt: only the baseline extraction runs here");
            return;
        }
        let (params::Layout::Full(layout), params) = build(ModelKind::Full) else {
            unreachable!("`full` has `full`'s layout")
        };
        let w: Vec<f64> = (0..params.len())
            .map(|i| 100.0 * ((i as f64) * 0.7 + 0.3).sin())
            .collect();
        for fen in FENS {
            let pos = test_position(fen);
            let mut baseline = F64Sums::new(&w);
            extract_full(&pos, &layout, &mut baseline);
            let mut fast = F64Sums::new(&w);
            // SAFETY: the CPU has popcnt (checked above), all the function requires.
            unsafe { extract_full_popcnt(&pos, &layout, &mut fast) };
            let bits = |s: &F64Sums<'_>| s.values().map(f64::to_bits);
            assert_eq!(bits(&fast), bits(&baseline), "{fen}");
            assert_ne!(bits(&baseline), [0; 5], "{fen}: nothing was summed");
        }
    }
}
