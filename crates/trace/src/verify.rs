//! [`verify`] and [`Verifier`]: the manifest's rebuilt evaluation against the engine's own,
//! position by position, a batch of traces at a time, with the usual mix-ups (sign
//! convention, phase direction, an offset, a unit) recognised and named, and the terms that
//! explain the differences found: an element one count of which is the difference, the
//! parameters present in the differing positions more than in the others.

use std::fmt;

use rayon::prelude::*;

use crate::expr::Arithmetic;
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
    /// What each part contributed ([`Manifest::contributions`]): every parameter's
    /// coefficients times its weights, every declared term, `const`.
    pub terms: Vec<(String, f64)>,
    /// The elements one count of which (for either side, more or fewer) is the difference:
    /// name and the value of one count, those the trace counts first. One count's value is
    /// its weights through the evaluation formula linearised at the position: exact for a
    /// linear manifest, and wherever no declared term reads the totals (`mg`, `eg`);
    /// elements feeding a declared term are not searched.
    pub one_count: Vec<(String, f64)>,
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

/// An element one count of which is the difference in many differing positions: most likely
/// the engine counts it otherwise than its trace says.
#[derive(Clone, Debug, PartialEq)]
pub struct OneCount {
    /// The element (`threat[5]`).
    pub element: String,
    /// Differing positions where one count of it is the difference.
    pub positions: usize,
    /// Differing positions searched (the first 65,536 at most).
    pub of: usize,
}

/// A parameter or element present (a nonzero count for either side) in a larger share of the
/// differing positions than of the matching ones.
#[derive(Clone, Debug, PartialEq)]
pub struct Presence {
    /// The parameter (`threat`) or element (`threat[5]`).
    pub name: String,
    /// Its share of the differing positions (0 to 1).
    pub differing: f64,
    /// Its share of the matching positions.
    pub matching: f64,
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
    /// The elements one count of which is the difference in at least a third of the
    /// differing positions searched (at most [`SUSPECTS`], the most first).
    pub one_count: Vec<OneCount>,
    /// The parameters, then the elements, whose share of the differing positions exceeds
    /// their share of the matching ones by at least a half (at most [`SUSPECTS`] of each, the
    /// largest excess first; none when no position matches).
    pub over_represented: Vec<Presence>,
    /// The tolerance used.
    pub tolerance: f64,
}

impl VerifyReport {
    /// Whether every compared position matched and every position could be evaluated.
    pub fn passed(&self) -> bool {
        self.failed == 0 && self.unevaluable == 0
    }
}

/// How many suspects of each kind a report names.
pub const SUSPECTS: usize = 3;

/// Compared positions whose differences choose the offset and unit hypotheses' values (the
/// median difference, the least-squares factor): all of them in a smaller set, the first
/// ones in a larger, whose other positions are then counted against those values as they
/// come.
const CANDIDATE_POSITIONS: usize = 1 << 16;

/// Differing positions searched for an element one count of which is the difference.
const SEARCHED: usize = 1 << 16;

/// Traces checked in parallel at a time.
const CHUNK: usize = 1 << 14;

/// Whether a rebuilt value matches the engine's, both rounded first.
fn matches(engine: f64, rebuilt: f64, tolerance: f64) -> bool {
    (engine.round() - rebuilt.round()).abs() <= tolerance
}

/// Rebuilds every trace's evaluation with weights `w` and compares it with the engine's own
/// (`eval`), after rounding both to integers; lists the worst and first differences with
/// their parts, names a sign-convention, phase, offset or unit mix-up when one explains
/// (nearly) all of them, and the elements and parameters that explain them. Every trace at
/// once: [`Verifier`] takes them a batch at a time.
pub fn verify(
    manifest: &Manifest,
    traces: &[Trace],
    w: &[f64],
    opts: &VerifyOptions,
) -> VerifyReport {
    let mut v = Verifier::new(manifest, w, opts);
    v.add(traces);
    v.finish()
}

/// [`verify`] a batch of traces at a time, in the set's order: the same report, in memory
/// independent of the set's size. The offset and unit hypotheses are tested with the values
/// of the first 65,536 compared positions (all of them in a smaller set, so that the report
/// is [`verify`]'s on every trace at once), every position counted.
///
/// ```no_run
/// let m = trace::Manifest::load(std::path::Path::new("manifest.json"))?;
/// let files = vec![std::path::PathBuf::from("traces.txt")];
/// let mut stream = trace::TraceStream::open(&files, &m, trace::ReadOptions::default());
/// let mut v = trace::Verifier::new(&m, &m.initial_weights(), &trace::VerifyOptions::default());
/// let mut batch = Vec::new();
/// while stream.next_batch(4096, &mut batch)? > 0 {
///     v.add(&batch);
/// }
/// println!("{}", v.finish());
/// # Ok::<(), trace::TraceError>(())
/// ```
pub struct Verifier<'m> {
    m: &'m Manifest,
    w: Vec<f64>,
    opts: VerifyOptions,
    r: VerifyReport,
    /// Traces seen (the next batch's first index).
    seen: usize,
    worst_diff: f64,
    /// Whether a Black-to-move position was seen.
    black: bool,
    /// Compared positions that still differ under each hypothesis.
    negated: usize,
    inverted: usize,
    offset: usize,
    scaled: usize,
    /// The first compared positions' (engine, rebuilt) until the offset and unit are chosen.
    pairs: Vec<(f64, f64)>,
    /// The offset and unit, once chosen.
    candidates: Option<(f64, Option<f64>)>,
    /// Per element, then per parameter: compared positions counting it (a nonzero count for
    /// either side), matching and differing; per element, differing ones one count of it
    /// explains.
    present: [Vec<usize>; 2],
    present_params: [Vec<usize>; 2],
    explains: Vec<usize>,
    /// Differing positions searched for such an element.
    searched: usize,
}

/// What one trace gave, computed in parallel.
struct Checked {
    /// `None`: no `eval`.
    rebuilt: Option<Result<f64, String>>,
    /// Whether it matches with the phase inverted.
    inverted: bool,
    /// For a differing position, the elements one count of which is the difference, with
    /// that value (the trace's own elements first), if they were searched.
    one_count: Option<Vec<(u32, f64)>>,
}

impl<'m> Verifier<'m> {
    /// A verification of traces of `m` rebuilt at weights `w`.
    pub fn new(m: &'m Manifest, w: &[f64], opts: &VerifyOptions) -> Verifier<'m> {
        let n = m.element_count();
        Verifier {
            m,
            w: w.to_vec(),
            opts: *opts,
            r: VerifyReport {
                tolerance: opts.tolerance,
                ..VerifyReport::default()
            },
            seen: 0,
            worst_diff: -1.0,
            black: false,
            negated: 0,
            inverted: 0,
            offset: 0,
            scaled: 0,
            pairs: Vec::new(),
            candidates: None,
            present: [vec![0; n], vec![0; n]],
            present_params: [vec![0; m.params.len()], vec![0; m.params.len()]],
            explains: vec![0; n],
            searched: 0,
        }
    }

    /// The report so far (without the hypotheses and suspects, which
    /// [`finish`](Self::finish) adds).
    pub fn report(&self) -> &VerifyReport {
        &self.r
    }

    /// Traces seen so far.
    pub fn seen(&self) -> usize {
        self.seen
    }

    /// Compares the next traces of the set.
    pub fn add(&mut self, traces: &[Trace]) {
        // In chunks, so that the search for explaining elements stops near its limit.
        for chunk in traces.chunks(CHUNK) {
            let (m, w, tol) = (self.m, &self.w[..], self.opts.tolerance);
            let search = self.searched < SEARCHED;
            let checked: Vec<Checked> = chunk
                .par_iter()
                .map_init(
                    || (Vec::new(), Vec::new()),
                    |scratch, t| check(m, t, w, tol, search, scratch),
                )
                .collect();
            for (k, (t, c)) in chunk.iter().zip(checked).enumerate() {
                self.take(self.seen + k, t, c);
            }
            self.seen += chunk.len();
        }
    }

    /// Counts one position.
    fn take(&mut self, i: usize, t: &Trace, c: Checked) {
        let tol = self.opts.tolerance;
        self.black |= !t.white_to_move;
        let (Some(engine), Some(v)) = (t.eval, c.rebuilt) else {
            self.r.without_eval += 1;
            return;
        };
        let rebuilt = match v {
            Ok(x) => x,
            Err(e) => {
                self.r.unevaluable += 1;
                if self.r.errors.len() < self.opts.max_listed {
                    self.r.errors.push(format!("#{i} ({}): {e}", t.fen()));
                }
                return;
            }
        };
        let engine = f64::from(engine);
        self.r.checked += 1;
        self.count_hypotheses(t, engine, rebuilt, c.inverted);
        let ok = matches(engine, rebuilt, tol);
        self.count_present(t, ok);
        if ok {
            return;
        }
        self.r.failed += 1;
        if let Some(found) = c.one_count.as_ref().filter(|_| self.searched < SEARCHED) {
            self.searched += 1;
            for &(e, _) in found {
                self.explains[e as usize] += 1;
            }
        }
        self.keep_mismatch(i, t, c.one_count, engine, rebuilt);
    }

    /// Counts a checked position (`engine`'s evaluation, `rebuilt` from its trace; `inverted`:
    /// whether it matches with the phase inverted) under the hypotheses of a negated, inverted,
    /// offset or scaled evaluation; until the offset and unit are chosen, keeps the pair.
    fn count_hypotheses(&mut self, t: &Trace, engine: f64, rebuilt: f64, inverted: bool) {
        let tol = self.opts.tolerance;
        let signed = if t.white_to_move { engine } else { -engine };
        self.negated += usize::from(!matches(signed, rebuilt, tol));
        self.inverted += usize::from(!inverted);
        match self.candidates {
            Some(candidates) => self.count(candidates, engine, rebuilt),
            None => {
                self.pairs.push((engine, rebuilt));
                if self.pairs.len() == CANDIDATE_POSITIONS {
                    self.choose();
                }
            }
        }
    }

    /// Counts the elements and parameters present in `t` (a nonzero count for either side)
    /// among the matching positions (`ok`) or the differing ones.
    fn count_present(&mut self, t: &Trace, ok: bool) {
        let side = usize::from(!ok);
        // Coefficients are sorted by index and a parameter's elements are consecutive: a
        // parameter is counted once a position at its first present element.
        let mut last_param = None;
        for &(e, white, black) in &t.coeffs {
            let Some(el) = self.m.elements.get(e as usize) else {
                continue;
            };
            if white != 0.0 || black != 0.0 {
                self.present[side][e as usize] += 1;
                if last_param != Some(el.param) {
                    last_param = Some(el.param);
                    self.present_params[side][el.param as usize] += 1;
                }
            }
        }
    }

    /// Keeps differing position `i` as the worst so far and among the first listed, as it is
    /// (`explaining`: the elements one count of which explains it, if they were searched).
    fn keep_mismatch(
        &mut self,
        i: usize,
        t: &Trace,
        explaining: Option<Vec<(u32, f64)>>,
        engine: f64,
        rebuilt: f64,
    ) {
        let diff = (engine.round() - rebuilt.round()).abs();
        let listed = self.r.first.len() < self.opts.max_listed;
        if listed || diff > self.worst_diff {
            // Past the positions searched, a listed one is searched on its own.
            let tol = self.opts.tolerance;
            let found =
                explaining.unwrap_or_else(|| one_count(self.m, t, &self.w, engine, rebuilt, tol));
            let one_count = (found.iter())
                .filter_map(|&(e, unit)| Some((self.m.element_name(e)?, unit)))
                .collect();
            let mismatch = Mismatch {
                index: i,
                fen: t.fen(),
                engine,
                rebuilt,
                terms: self.m.contributions(t, &self.w),
                one_count,
            };
            if diff > self.worst_diff {
                self.worst_diff = diff;
                self.r.worst = Some(mismatch.clone());
            }
            if listed {
                self.r.first.push(mismatch);
            }
        }
    }

    /// Chooses the offset (the median difference) and unit (the least-squares factor) from
    /// the positions kept, and counts them.
    fn choose(&mut self) {
        let mut diffs: Vec<f64> = self.pairs.iter().map(|&(e, v)| e - v).collect();
        diffs.sort_by(f64::total_cmp);
        let offset = diffs.get(diffs.len() / 2).copied().unwrap_or(0.0);
        let (ev, vv) =
            (self.pairs.iter()).fold((0.0, 0.0), |(a, b), &(e, v)| (a + e * v, b + v * v));
        let candidates = (offset, (vv > 0.0).then(|| ev / vv));
        self.candidates = Some(candidates);
        for (e, v) in std::mem::take(&mut self.pairs) {
            self.count(candidates, e, v);
        }
    }

    /// Counts one position under the offset and unit hypotheses.
    fn count(&mut self, (offset, k): (f64, Option<f64>), e: f64, v: f64) {
        let tol = self.opts.tolerance;
        self.offset += usize::from(!matches(e, v + offset, tol));
        self.scaled += usize::from(k.is_some_and(|k| !matches(e, v * k, tol)));
    }

    /// The report: the counts, the hypotheses that explain at least 90% of the differing
    /// positions, and the suspects.
    pub fn finish(mut self) -> VerifyReport {
        if self.candidates.is_none() {
            self.choose();
        }
        if self.r.failed == 0 {
            return self.r;
        }
        let failed = self.r.failed;
        let explains = |still_failing: usize| still_failing * 10 <= failed;
        let tol = self.opts.tolerance;
        let mut d = Vec::new();
        if self.black && explains(self.negated) {
            d.push(Diagnosis::SideToMoveNegated);
        }
        if explains(self.inverted) {
            d.push(Diagnosis::PhaseInverted);
        }
        if let Some((offset, k)) = self.candidates {
            if offset.abs() > tol && explains(self.offset) {
                d.push(Diagnosis::ConstantOffset(offset));
            }
            if let Some(k) = k {
                if (k - 1.0).abs() > 0.01 && explains(self.scaled) {
                    d.push(Diagnosis::ScaleFactor(k));
                }
            }
        }
        self.r.diagnosis = d;
        self.r.one_count = self.one_count_suspects();
        self.r.over_represented = self.presence_suspects();
        self.r
    }

    /// The elements one count of which is the difference in at least a third of the
    /// differing positions searched.
    fn one_count_suspects(&self) -> Vec<OneCount> {
        let of = self.searched;
        let mut found: Vec<(usize, u32)> = (self.explains.iter().enumerate())
            .filter(|&(_, &n)| n > 0 && n * 3 >= of)
            .map(|(e, &n)| (n, e as u32))
            .collect();
        found.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        (found.iter().take(SUSPECTS))
            .filter_map(|&(positions, e)| {
                Some(OneCount {
                    element: self.m.element_name(e)?,
                    positions,
                    of,
                })
            })
            .collect()
    }

    /// The parameters and elements much more often present in the differing positions than
    /// in the matching ones.
    fn presence_suspects(&self) -> Vec<Presence> {
        let bad = self.r.failed as f64;
        let good = (self.r.checked - self.r.failed) as f64;
        if good == 0.0 {
            return Vec::new();
        }
        let share = |counts: [usize; 2]| (counts[1] as f64 / bad, counts[0] as f64 / good);
        let pick = |found: &mut Vec<Presence>| {
            found.retain(|p| p.differing - p.matching >= 0.5);
            found.sort_by(|a, b| (b.differing - b.matching).total_cmp(&(a.differing - a.matching)));
            found.truncate(SUSPECTS);
        };
        // A parameter of one element is named as its element.
        let mut params: Vec<Presence> = (self.m.params.iter().enumerate())
            .filter(|(_, p)| p.len() > 1)
            .map(|(k, p)| {
                let (d, m) = share([self.present_params[0][k], self.present_params[1][k]]);
                Presence {
                    name: p.name.clone(),
                    differing: d,
                    matching: m,
                }
            })
            .collect();
        pick(&mut params);
        let mut elements: Vec<Presence> = (0..self.m.element_count())
            .filter_map(|e| {
                let (d, m) = share([self.present[0][e], self.present[1][e]]);
                Some(Presence {
                    name: self.m.element_name(e as u32)?,
                    differing: d,
                    matching: m,
                })
            })
            .collect();
        pick(&mut elements);
        params.extend(elements);
        params
    }
}

/// The buffers of a trace's copy (its coefficients and features), reused.
type Scratch = (Vec<(u32, f32, f32)>, Vec<(u16, f32, f32)>);

/// One trace rebuilt and compared (see [`Checked`]); `search`: look for the elements one count
/// of which is the difference when it differs.
fn check(
    m: &Manifest,
    t: &Trace,
    w: &[f64],
    tol: f64,
    search: bool,
    scratch: &mut Scratch,
) -> Checked {
    let Some(engine) = t.eval else {
        return Checked {
            rebuilt: None,
            inverted: false,
            one_count: None,
        };
    };
    let engine = f64::from(engine);
    let rebuilt = m.evaluate(t, w).map_err(|e| e.to_string());
    // The trace with its phase inverted, in reused buffers.
    let (mut coeffs, mut features) = std::mem::take(scratch);
    coeffs.clear();
    coeffs.extend_from_slice(&t.coeffs);
    features.clear();
    features.extend_from_slice(&t.features);
    let flipped = Trace {
        phase: m.phase_max() as f32 - t.phase,
        coeffs,
        features,
        ..*t
    };
    let inverted = m
        .evaluate(&flipped, w)
        .is_ok_and(|v| matches(engine, v, tol));
    *scratch = (flipped.coeffs, flipped.features);
    let one_count = match &rebuilt {
        Ok(v) if search && !matches(engine, *v, tol) => Some(one_count(m, t, w, engine, *v, tol)),
        _ => None,
    };
    Checked {
        rebuilt: Some(rebuilt),
        inverted,
        one_count,
    }
}

/// The elements (not feeding a declared term) one count of which, added to or taken from the
/// rebuilt value `v` through the evaluation formula (linearised at this position), is the
/// engine's value `e`: the trace's own elements first.
fn one_count(m: &Manifest, t: &Trace, w: &[f64], e: f64, v: f64, tol: f64) -> Vec<(u32, f64)> {
    let real = Arithmetic::Real;
    let at = |mg: f64, eg: f64| m.formula(t, w, real, mg, eg).unwrap_or(f64::NAN);
    let base = at(0.0, 0.0);
    let (a, b) = (at(1.0, 0.0) - base, at(0.0, 1.0) - base);
    if !(a.is_finite() && b.is_finite()) {
        return Vec::new();
    }
    let mut out: Vec<(u32, f64)> = Vec::new();
    let mut try_element = |k: usize| {
        let Some(el) = m.elements.get(k).filter(|el| el.sum.is_none()) else {
            return;
        };
        let unit = if el.tapered {
            a * w[el.weight as usize] + b * w[el.weight as usize + 1]
        } else {
            (a + b) * w[el.weight as usize]
        };
        if unit.abs() > tol && (matches(e, v + unit, tol) || matches(e, v - unit, tol)) {
            out.push((k as u32, unit));
        }
    };
    for &(k, _, _) in &t.coeffs {
        try_element(k as usize);
    }
    let counted = |k: usize| t.coeffs.binary_search_by_key(&(k as u32), |c| c.0).is_ok();
    for k in (0..m.elements.len()).filter(|&k| !counted(k)) {
        try_element(k);
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
        for s in &self.one_count {
            let first = if s.of < self.failed { "the first " } else { "" };
            write!(
                f,
                "\n  terms: one count of `{}` is the difference in {} of {first}{} differing \
                 positions (does the engine count it otherwise than its trace?)",
                s.element, s.positions, s.of
            )?;
        }
        for p in &self.over_represented {
            write!(
                f,
                "\n  terms: `{}` is in {:.1}% of the differing positions and {:.1}% of the \
                 matching ones",
                p.name,
                100.0 * p.differing,
                100.0 * p.matching
            )?;
        }
        Ok(())
    }
}

/// How many elements a listed position names whose one count is its difference.
const ONE_COUNT_SHOWN: usize = 4;

fn show(m: &Mismatch) -> String {
    let parts: Vec<String> = m
        .terms
        .iter()
        .map(|(n, v)| format!("{n} {v:+.2}"))
        .collect();
    let mut s = format!(
        "#{} engine {} rebuilt {:.2} (difference {:+}): {}\n      parts: {}",
        m.index,
        m.engine,
        m.rebuilt,
        m.engine.round() - m.rebuilt.round(),
        m.fen,
        parts.join(", ")
    );
    if !m.one_count.is_empty() {
        let named: Vec<String> = (m.one_count.iter().take(ONE_COUNT_SHOWN))
            .map(|(n, v)| format!("{n} ({v:+.2} a count)"))
            .collect();
        let more = m.one_count.len().saturating_sub(ONE_COUNT_SHOWN);
        s += &format!(
            "\n      one count of it is the difference: {}",
            named.join(", ")
        );
        if more > 0 {
            s += &format!(" and {more} more");
        }
    }
    s
}
