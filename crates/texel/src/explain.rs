//! `tune explain`: Texel's "future improvements": why a parameter has an odd value (the
//! positions that pull it hardest) and which knowledge the evaluation lacks (the residuals
//! against simple position properties).
//!
//! Per position `i` and parameter `j`, the gradient of the squared-error loss splits into
//! `dL_i/dw_j = dL/dq_i * dq_i/dw_j`: the position's pull on the parameter. The coefficients
//! `dq_i/dw_j` come straight from the model, without a tape: the sparse terms of a linear
//! model ([`eval::Model::linear_terms`]), the sums and the hand-derived head gradient of a
//! split one ([`eval::Model::split`]).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use data::Sample;
use eval::{Model, Split};
use optim::LossKind;
use rayon::prelude::*;
use serde::Serialize;
use shakmaty::fen::Fen;
use shakmaty::{CastlingSide, Chess, Color, EnPassantMode, Position, Role, Square};

use crate::judge::{self, headline, link, material_balance, thousands, CHUNK};
use crate::TexelError;

/// What to explain.
#[derive(Clone, Debug)]
pub struct ExplainOptions {
    /// The sigmoid's scale; fitted for the squared error when `None`.
    pub k: Option<f64>,
    /// Explain this parameter only (its top positions); otherwise the outliers and the
    /// residual report.
    pub param: Option<String>,
    /// How many positions (with `param`) or outlying parameters (without) to list.
    pub top: usize,
    /// How many positions to list per outlying parameter.
    pub positions: usize,
}

impl Default for ExplainOptions {
    fn default() -> Self {
        ExplainOptions {
            k: None,
            param: None,
            top: 10,
            positions: 3,
        }
    }
}

/// One position's pull on one parameter.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Pull {
    /// The position.
    pub fen: String,
    /// Its result, White's view.
    pub result: f64,
    /// Its evaluation, centipawns, White's view.
    pub eval: f64,
    /// `dq/dw`: how much the evaluation moves per unit of the parameter.
    pub coefficient: f64,
    /// `dL/dq * dq/dw`: the position's contribution to the loss gradient; the position wants
    /// the parameter to move against its sign.
    pub contribution: f64,
}

/// Why a parameter looks out of line.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Oddness {
    /// What it is compared with: `neighbours` (the mean of the adjacent squares of its
    /// piece-square table) or `start` (its start value, against its family's changes).
    pub against: String,
    /// The value it is compared with.
    pub reference: f64,
    /// The distance in standard deviations of its table's (family's) distances.
    pub z: f64,
}

/// One parameter, explained.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ParamReport {
    /// Its name.
    pub name: String,
    /// Its value in the weights.
    pub value: f64,
    /// The model's start value.
    pub start: f64,
    /// How many positions have a non-zero coefficient for it.
    pub touched: usize,
    /// The gradient of the mean loss by it (the sum of the contributions over the positions).
    pub gradient: f64,
    /// Which way the data as a whole pulls it: `higher`, `lower` or `nowhere`.
    pub pulled: String,
    /// Why it is listed among the outliers (none when asked for by name).
    pub odd: Option<Oddness>,
    /// The positions with the largest contributions by magnitude, largest first.
    pub positions: Vec<Pull>,
}

/// One property's mean residual in one bucket.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Bucket {
    /// The property's value (the first and last buckets hold everything beyond).
    pub value: String,
    /// Positions in it.
    pub positions: usize,
    /// Their mean residual.
    pub residual: f64,
}

/// How the residuals go with one position property.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Correlation {
    /// The property.
    pub property: String,
    /// Pearson correlation of the residuals with it over every position.
    pub correlation: f64,
    /// The mean residual by value (filled for the strongest properties only).
    pub buckets: Vec<Bucket>,
}

/// What `tune explain` reports.
#[derive(Clone, Debug, Serialize)]
pub struct Explanation {
    /// The model of the weights.
    pub model: String,
    /// Positions used.
    pub positions: usize,
    /// Samples whose board did not decode (left out).
    pub skipped: usize,
    /// The `K` of the loss and the residuals.
    pub k: f64,
    /// Whether `K` was fitted.
    pub k_fitted: bool,
    /// The parameter asked for, or the outliers, most out of line first.
    pub params: Vec<ParamReport>,
    /// The mean residual (result minus `sigma(q)`; without `param`).
    pub mean_residual: Option<f64>,
    /// The residuals against each position property, strongest correlation first (without
    /// `param`).
    pub residuals: Vec<Correlation>,
}

/// The properties of the residual report: name, and the range of values kept apart; values
/// beyond it (where a position can have them: the range is open at that end) go into the end
/// buckets.
const PROPERTIES: [Property; 15] = [
    Property::open("material balance (pawns, White - Black)", -4, 4),
    Property::closed("white pawns", 0, 8),
    Property::closed("black pawns", 0, 8),
    Property::open("pawn difference (White - Black)", -3, 3),
    Property::closed("white king file (a = 0)", 0, 7),
    Property::open("white king rank (own side, 1 = home)", 1, 4),
    Property::closed("black king file (a = 0)", 0, 7),
    Property::open("black king rank (own side, 1 = home)", 1, 4),
    Property::closed("white king castled (home rank, files a-c or g-h)", 0, 1),
    Property::closed("black king castled (home rank, files a-c or g-h)", 0, 1),
    Property::closed("white castling rights (0-2)", 0, 2),
    Property::closed("black castling rights (0-2)", 0, 2),
    Property::closed("game phase (0-24, 24: every piece)", 0, 24),
    Property::closed("side to move (1: White)", 0, 1),
    Property::closed("bishop pair (White - Black)", -1, 1),
];

/// A property of [`PROPERTIES`].
struct Property {
    name: &'static str,
    lo: i32,
    hi: i32,
    /// Values beyond `lo` (if below 0) or beyond `hi` can occur.
    open: bool,
}

impl Property {
    const fn open(name: &'static str, lo: i32, hi: i32) -> Self {
        Property {
            name,
            lo,
            hi,
            open: true,
        }
    }

    const fn closed(name: &'static str, lo: i32, hi: i32) -> Self {
        Property {
            name,
            lo,
            hi,
            open: false,
        }
    }

    fn bucket(&self, x: i32) -> usize {
        (x.clamp(self.lo, self.hi) - self.lo) as usize
    }

    fn label(&self, b: usize) -> String {
        let x = self.lo + b as i32;
        if self.open && x == self.lo && self.lo < 0 {
            format!("<= {x}")
        } else if self.open && x == self.hi {
            format!(">= {x}")
        } else {
            x.to_string()
        }
    }
}

/// How many of the strongest properties get their buckets.
const BUCKETED: usize = 3;

/// The values of [`PROPERTIES`] for a position.
pub fn properties(pos: &Chess) -> [i32; PROPERTIES.len()] {
    let board = pos.board();
    let count = |c: Color, r: Role| (board.by_role(r) & board.by_color(c)).count() as i32;
    let king = |c: Color| -> (i32, i32, i32) {
        match board.king_of(c) {
            Some(sq) => {
                let own = if c == Color::White {
                    sq
                } else {
                    sq.flip_vertical()
                };
                let (file, rank) = (own.file() as i32, own.rank() as i32);
                let castled = rank == 0 && !(3..=4).contains(&file);
                (file, rank + 1, castled as i32)
            }
            None => (0, 1, 0),
        }
    };
    let rights = |c: Color| {
        let castles = pos.castles();
        castles.has(c, CastlingSide::KingSide) as i32
            + castles.has(c, CastlingSide::QueenSide) as i32
    };
    let (wk, bk) = (king(Color::White), king(Color::Black));
    let phase = [
        (Role::Knight, 1),
        (Role::Bishop, 1),
        (Role::Rook, 2),
        (Role::Queen, 4),
    ]
    .iter()
    .map(|&(r, v)| v * board.by_role(r).count() as i32)
    .sum::<i32>()
    .min(24);
    let pair = |c: Color| (count(c, Role::Bishop) >= 2) as i32;
    let (wp, bp) = (
        count(Color::White, Role::Pawn),
        count(Color::Black, Role::Pawn),
    );
    [
        material_balance(pos),
        wp,
        bp,
        wp - bp,
        wk.0,
        wk.1,
        bk.0,
        bk.1,
        wk.2,
        bk.2,
        rights(Color::White),
        rights(Color::Black),
        phase,
        (pos.turn() == Color::White) as i32,
        pair(Color::White) - pair(Color::Black),
    ]
}

/// The coefficients `dq/dw` of a position, without a tape.
pub struct Coefficients<'a> {
    model: &'a Model,
    split: Option<Split>,
    sums: Vec<Vec<(u32, f64)>>,
    values: Vec<f64>,
    head: Vec<f64>,
    grad: Vec<f64>,
}

impl<'a> Coefficients<'a> {
    /// For `model`.
    pub fn new(model: &'a Model) -> Self {
        Coefficients {
            model,
            split: model.split(),
            sums: Vec::new(),
            values: Vec::new(),
            head: Vec::new(),
            grad: Vec::new(),
        }
    }

    /// Writes the position's non-zero `(parameter, dq/dw)` at `w` into `out` (sorted by
    /// parameter, each once) and returns `q`. A model neither linear nor split gives no
    /// coefficients (`out` empty) and its plain evaluation.
    pub fn of(&mut self, pos: &Chess, w: &[f64], out: &mut Vec<(u32, f64)>) -> f64 {
        out.clear();
        if self.model.linear_terms(pos, out) {
            return out.iter().map(|&(i, c)| c * w[i as usize]).sum();
        }
        let Some(split) = &self.split else {
            return self.model.evaluate_f64(pos, w);
        };
        if !self.model.sums(pos, &mut self.sums) {
            return self.model.evaluate_f64(pos, w);
        }
        self.values.clear();
        self.values.extend(
            self.sums
                .iter()
                .map(|t| t.iter().map(|&(i, c)| c * w[i as usize]).sum::<f64>()),
        );
        self.head.clear();
        self.head
            .extend(split.head_params.iter().map(|&i| w[i as usize]));
        self.grad.clear();
        self.grad.resize(split.sums + split.head_params.len(), 0.0);
        let q = (split.head_gradient)(&self.values, &self.head, &mut self.grad);
        for (terms, &g) in self.sums.iter().zip(&self.grad) {
            out.extend(terms.iter().map(|&(i, c)| (i, g * c)));
        }
        out.extend(
            split
                .head_params
                .iter()
                .zip(&self.grad[split.sums..])
                .map(|(&i, &g)| (i, g)),
        );
        eval::merge_terms(out);
        q
    }
}

/// A candidate for a top list: position (sample index), coefficient, contribution, eval.
/// Ordered by how strongly it pulls: the larger |contribution| is greater, and of equal ones
/// the lower index, so a top list is the same whatever order the candidates come in.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    index: u32,
    coefficient: f64,
    contribution: f64,
    eval: f64,
}

impl Ord for Candidate {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.contribution
            .abs()
            .total_cmp(&o.contribution.abs())
            .then(o.index.cmp(&self.index))
    }
}

impl PartialOrd for Candidate {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

impl PartialEq for Candidate {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == std::cmp::Ordering::Equal
    }
}

impl Eq for Candidate {}

/// The `m` greatest candidates seen, the least of them on top.
type Top = BinaryHeap<Reverse<Candidate>>;

/// Offers `c` to `top`, which keeps the `m` greatest.
fn keep_top(top: &mut Top, c: Candidate, m: usize) {
    if top.len() < m {
        top.push(Reverse(c));
    } else if top.peek().is_some_and(|least| c > least.0) {
        top.pop();
        top.push(Reverse(c));
    }
}

/// The sums of one chunk of the data pass.
struct Tally {
    n: usize,
    gradient: Vec<f64>,
    touched: Vec<u32>,
    top: Vec<Top>,
    r: f64,
    rr: f64,
    x: Vec<f64>,
    xx: Vec<f64>,
    xr: Vec<f64>,
    buckets: Vec<Vec<(usize, f64)>>,
}

impl Tally {
    fn new(params: usize, tracked: usize) -> Tally {
        Tally {
            n: 0,
            gradient: vec![0.0; params],
            touched: vec![0; params],
            top: vec![Top::new(); tracked],
            r: 0.0,
            rr: 0.0,
            x: vec![0.0; PROPERTIES.len()],
            xx: vec![0.0; PROPERTIES.len()],
            xr: vec![0.0; PROPERTIES.len()],
            buckets: PROPERTIES
                .iter()
                .map(|p| vec![(0, 0.0); (p.hi - p.lo + 1) as usize])
                .collect(),
        }
    }

    fn merge(mut self, o: Tally, m: usize) -> Tally {
        self.n += o.n;
        self.r += o.r;
        self.rr += o.rr;
        for (a, b) in [
            (&mut self.gradient, &o.gradient),
            (&mut self.x, &o.x),
            (&mut self.xx, &o.xx),
            (&mut self.xr, &o.xr),
        ] {
            a.iter_mut().zip(b).for_each(|(a, b)| *a += b);
        }
        self.touched
            .iter_mut()
            .zip(&o.touched)
            .for_each(|(a, b)| *a += b);
        for (a, b) in self.top.iter_mut().zip(o.top) {
            for c in b.into_vec() {
                keep_top(a, c.0, m);
            }
        }
        for (a, b) in self.buckets.iter_mut().zip(&o.buckets) {
            for (x, y) in a.iter_mut().zip(b) {
                x.0 += y.0;
                x.1 += y.1;
            }
        }
        self
    }
}

/// Names of `pst.<piece>.<phase>.<square>` parsed: the table and the square.
fn pst_square(name: &str) -> Option<(&str, Square)> {
    let rest = name.strip_prefix("pst.")?;
    let (table, square) = rest.rsplit_once('.')?;
    Some((table, square.parse().ok()?))
}

/// `(value - mean) / sd` over `xs`, or `None` when they do not spread.
fn standardise(xs: &[f64]) -> Option<Vec<f64>> {
    if xs.len() < 2 {
        return None;
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt();
    (sd > 1e-9 * (1.0 + mean.abs())).then(|| xs.iter().map(|x| (x - mean) / sd).collect())
}

/// Every touched parameter's oddness: piece-square entries against the mean of their touched
/// neighbours (king steps) in the same table, scaled by the spread of those differences over
/// the table; the others against their start value, scaled by the spread of the changes in
/// their family (group and phase).
pub fn oddness(model: &Model, w: &[f64], touched: &[usize]) -> Vec<Option<Oddness>> {
    let params = model.params();
    let mut out: Vec<Option<Oddness>> = vec![None; params.len()];
    let mut tables: HashMap<&str, HashMap<Square, usize>> = HashMap::new();
    let mut families: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, p) in params.iter().enumerate() {
        if touched[i] == 0 {
            continue;
        }
        match pst_square(&p.name) {
            Some((table, sq)) => {
                tables.entry(table).or_default().insert(sq, i);
            }
            None => {
                let phase = p
                    .name
                    .split('.')
                    .find(|c| *c == "mg" || *c == "eg")
                    .unwrap_or("");
                families
                    .entry(format!("{}.{phase}", p.group))
                    .or_default()
                    .push(i);
            }
        }
    }
    for squares in tables.values() {
        let mut members: Vec<(usize, f64)> = Vec::new();
        for (&sq, &i) in squares {
            let nb: Vec<f64> = shakmaty::attacks::king_attacks(sq)
                .into_iter()
                .filter_map(|s| squares.get(&s).map(|&j| w[j]))
                .collect();
            if !nb.is_empty() {
                members.push((i, nb.iter().sum::<f64>() / nb.len() as f64));
            }
        }
        let devs: Vec<f64> = members.iter().map(|&(i, m)| w[i] - m).collect();
        // Scale only: the differences from the neighbours are not centred.
        let n = devs.len().max(1) as f64;
        let sd = (devs.iter().map(|d| d * d).sum::<f64>() / n).sqrt();
        if devs.len() < 2 || sd <= 1e-9 {
            continue;
        }
        for (&(i, m), d) in members.iter().zip(&devs) {
            out[i] = Some(Oddness {
                against: "neighbours".to_string(),
                reference: m,
                z: d / sd,
            });
        }
    }
    for members in families.values() {
        let changes: Vec<f64> = members.iter().map(|&i| w[i] - params[i].init).collect();
        if members.len() < 4 {
            continue;
        }
        if let Some(z) = standardise(&changes) {
            for (&i, z) in members.iter().zip(z) {
                out[i] = Some(Oddness {
                    against: "start".to_string(),
                    reference: params[i].init,
                    z,
                });
            }
        }
    }
    out
}

/// Explains `w` of `model` on `samples`: with [`ExplainOptions::param`], that parameter's top
/// positions; otherwise the most odd parameters with theirs and the residual report. Two
/// parallel passes (the evaluations to fit `K`, then the coefficients and residuals).
pub fn explain(
    model: &Model,
    w: &[f64],
    samples: &[Sample],
    opts: &ExplainOptions,
) -> Result<Explanation, TexelError> {
    let wanted = match &opts.param {
        Some(name) => Some(model.index_of(name).ok_or_else(|| {
            let close: Vec<&str> = model
                .params()
                .iter()
                .map(|p| p.name.as_str())
                .filter(|n| n.starts_with(name.split('.').next().unwrap_or("")))
                .take(5)
                .collect();
            TexelError::Config(format!(
                "no parameter {name:?} in the {} model (names look like {})",
                model.kind(),
                if close.is_empty() {
                    "material.pawn.mg, pst.knight.eg.e4".to_string()
                } else {
                    close.join(", ")
                }
            ))
        })?),
        None => None,
    };
    if let Some(k) = opts.k {
        if !(k > 0.0 && k.is_finite()) {
            return Err(TexelError::Config(format!("K must be positive, not {k}")));
        }
    }
    let (scored, skipped) = judge::score_samples(model, w, samples);
    if scored.is_empty() {
        return Err(TexelError::Config(
            "no positions to explain (none of the samples decodes)".to_string(),
        ));
    }
    let k_fitted = opts.k.is_none();
    let k = opts.k.unwrap_or_else(|| judge::fit_k(&scored));
    let mse = link(k, LossKind::Mse);
    // Positions to keep per tracked parameter; with a name only that one is tracked.
    let (m, slot): (usize, Vec<Option<usize>>) = match wanted {
        Some(j) => (
            opts.top,
            (0..model.len()).map(|i| (i == j).then_some(0)).collect(),
        ),
        None => (opts.positions, (0..model.len()).map(Some).collect()),
    };
    let tracked = slot.iter().flatten().count();
    let tally = samples
        .par_chunks(CHUNK)
        .enumerate()
        .map(|(c, chunk)| {
            let mut t = Tally::new(model.len(), tracked);
            let mut coef = Coefficients::new(model);
            let mut row = Vec::new();
            for (j, s) in chunk.iter().enumerate() {
                let Ok(pos) = s.position() else { continue };
                let q = coef.of(&pos, w, &mut row);
                let (_, dl) = mse.loss(q, s.result);
                for &(p, a) in &row {
                    let p = p as usize;
                    let contribution = dl * a;
                    t.gradient[p] += contribution;
                    t.touched[p] += 1;
                    if let Some(sl) = slot[p] {
                        let cand = Candidate {
                            index: (c * CHUNK + j) as u32,
                            coefficient: a,
                            contribution,
                            eval: q,
                        };
                        keep_top(&mut t.top[sl], cand, m);
                    }
                }
                let r = s.result - mse.expect(q);
                t.n += 1;
                t.r += r;
                t.rr += r * r;
                for (b, (&x, prop)) in properties(&pos).iter().zip(&PROPERTIES).enumerate() {
                    let xf = x as f64;
                    t.x[b] += xf;
                    t.xx[b] += xf * xf;
                    t.xr[b] += xf * r;
                    let bucket = &mut t.buckets[b][prop.bucket(x)];
                    bucket.0 += 1;
                    bucket.1 += r;
                }
            }
            t
        })
        .collect::<Vec<Tally>>()
        .into_iter()
        .fold(Tally::new(model.len(), tracked), |a, b| a.merge(b, m));
    let n = tally.n as f64;
    let report = |j: usize, odd: Option<Oddness>| -> ParamReport {
        let p = &model.params()[j];
        let gradient = tally.gradient[j] / n;
        let positions = slot[j]
            .map(|sl| {
                // Ascending in `Reverse`: the strongest first.
                tally.top[sl]
                    .clone()
                    .into_sorted_vec()
                    .into_iter()
                    .map(|Reverse(c)| {
                        let s = &samples[c.index as usize];
                        Pull {
                            fen: s
                                .position()
                                .map(|pos| {
                                    Fen::from_position(&pos, EnPassantMode::Legal).to_string()
                                })
                                .unwrap_or_default(),
                            result: s.result,
                            eval: c.eval,
                            coefficient: c.coefficient,
                            contribution: c.contribution,
                        }
                    })
                    .collect()
            })
            .unwrap_or_default();
        ParamReport {
            name: p.name.clone(),
            value: w[j],
            start: p.init,
            touched: tally.touched[j] as usize,
            gradient,
            pulled: if gradient < 0.0 {
                "higher"
            } else if gradient > 0.0 {
                "lower"
            } else {
                "nowhere"
            }
            .to_string(),
            odd,
            positions,
        }
    };
    let positions = tally.n;
    if let Some(j) = wanted {
        return Ok(Explanation {
            model: model.kind().to_string(),
            positions,
            skipped,
            k,
            k_fitted,
            params: vec![report(j, None)],
            mean_residual: None,
            residuals: Vec::new(),
        });
    }
    let touched: Vec<usize> = tally.touched.iter().map(|&t| t as usize).collect();
    let mut odd: Vec<(usize, Oddness)> = oddness(model, w, &touched)
        .into_iter()
        .enumerate()
        .filter_map(|(i, o)| Some((i, o?)))
        .collect();
    odd.sort_by(|a, b| b.1.z.abs().total_cmp(&a.1.z.abs()).then(a.0.cmp(&b.0)));
    let params = odd
        .into_iter()
        .take(opts.top)
        .map(|(j, o)| report(j, Some(o)))
        .collect();
    let mean_r = tally.r / n;
    let var_r = tally.rr / n - mean_r * mean_r;
    let mut residuals: Vec<Correlation> = PROPERTIES
        .iter()
        .enumerate()
        .map(|(b, prop)| {
            let mx = tally.x[b] / n;
            let var_x = tally.xx[b] / n - mx * mx;
            let cov = tally.xr[b] / n - mx * mean_r;
            let correlation = if var_x > 1e-12 && var_r > 1e-15 {
                cov / (var_x * var_r).sqrt()
            } else {
                0.0
            };
            Correlation {
                property: prop.name.to_string(),
                correlation,
                buckets: Vec::new(),
            }
        })
        .collect();
    let mut order: Vec<usize> = (0..PROPERTIES.len()).collect();
    order.sort_by(|&a, &b| {
        residuals[b]
            .correlation
            .abs()
            .total_cmp(&residuals[a].correlation.abs())
            .then(a.cmp(&b))
    });
    for &b in order.iter().take(BUCKETED) {
        residuals[b].buckets = tally.buckets[b]
            .iter()
            .enumerate()
            .filter(|(_, &(count, _))| count > 0)
            .map(|(v, &(count, sum))| Bucket {
                value: PROPERTIES[b].label(v),
                positions: count,
                residual: sum / count as f64,
            })
            .collect();
    }
    let residuals = order.into_iter().map(|b| residuals[b].clone()).collect();
    Ok(Explanation {
        model: model.kind().to_string(),
        positions,
        skipped,
        k,
        k_fitted,
        params,
        mean_residual: Some(mean_r),
        residuals,
    })
}

fn param_text(p: &ParamReport) -> String {
    let mut s = format!("{} = {:.1} (start {:.1})", p.name, p.value, p.start);
    if let Some(o) = &p.odd {
        s += &format!(
            "; {} {:.1}, z = {:+.1}",
            if o.against == "neighbours" {
                "neighbours' mean"
            } else {
                "start"
            },
            o.reference,
            o.z
        );
    }
    s += &format!(
        "\n    {} positions touch it; the data pulls it {} (gradient of the mean loss {:+.3e})\n",
        thousands(p.touched),
        p.pulled,
        p.gradient
    );
    if !p.positions.is_empty() {
        s += &format!(
            "    {:>6} {:>8} {:>8} {:>12}  {}\n",
            "result", "eval", "dq/dw", "dL/dw", "FEN"
        );
    }
    for x in &p.positions {
        s += &format!(
            "    {:>6} {:>8.1} {:>8.3} {:>+12.3e}  {}\n",
            x.result, x.eval, x.coefficient, x.contribution, x.fen
        );
    }
    s
}

impl Explanation {
    /// The report as text for people.
    pub fn to_text(&self) -> String {
        let mut s = format!(
            "{}, K = {:.4} ({})\n",
            headline(&self.model, self.positions, self.skipped),
            self.k,
            if self.k_fitted { "fitted" } else { "given" }
        );
        s += "contributions dL/dw = dL/dq * dq/dw of the squared error; a position wants the \
              parameter to move against the sign of its contribution\n";
        if self.mean_residual.is_none() {
            for p in &self.params {
                s += "\n";
                s += &param_text(p);
            }
            return s;
        }
        s += "\nparameters most out of line (z: standard deviations from the mean of the \
              adjacent squares of the table, or from the start value within the family)\n";
        for (i, p) in self.params.iter().enumerate() {
            s += &format!("\n{:>2}. {}", i + 1, param_text(p));
        }
        s += &format!(
            "\nresiduals (result - sigma(q)), mean {:+.4}, against position properties \
             (correlation > 0: White does better than the evaluation says as the property grows)\n",
            self.mean_residual.unwrap_or(f64::NAN)
        );
        for c in &self.residuals {
            s += &format!("{:>+8.4}  {}\n", c.correlation, c.property);
        }
        for c in self.residuals.iter().filter(|c| !c.buckets.is_empty()) {
            s += &format!("\nmean residual by {}\n", c.property);
            for b in &c.buckets {
                s += &format!(
                    "{:>8} {:>12} positions {:>+8.4}\n",
                    b.value,
                    thousands(b.positions),
                    b.residual
                );
            }
        }
        s
    }
}
