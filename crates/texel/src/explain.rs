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

use data::Sample;
use eval::Model;
use optim::LossKind;
use rayon::prelude::*;
use serde::Serialize;

use crate::judge::{self, link, CHUNK};
use crate::TexelError;

mod coefficients;
mod odd;
mod properties;
mod subject;
mod text;
mod top;

pub use coefficients::Coefficients;
pub use odd::{oddness, oddness_by_pairs, Oddness};
pub use properties::properties;
pub(crate) use subject::Subject;

use properties::{BUCKETED, PROPERTIES};
use top::{keep_top, Candidate, Tally};

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

/// Explains `w` of `model` on `samples`: with [`ExplainOptions::param`], that parameter's top
/// positions; otherwise the most odd parameters with theirs and the residual report. Two
/// parallel passes (the evaluations to fit `K`, then the coefficients and residuals).
pub fn explain(
    model: &Model,
    w: &[f64],
    samples: &[Sample],
    opts: &ExplainOptions,
) -> Result<Explanation, TexelError> {
    explain_subject(&subject::Samples { model, samples }, w, opts)
}

/// [`explain`] for any [`Subject`].
pub(crate) fn explain_subject<S: Subject>(
    subject: &S,
    w: &[f64],
    opts: &ExplainOptions,
) -> Result<Explanation, TexelError> {
    let params = subject.params();
    let wanted = wanted(subject, &params, opts)?;
    if let Some(k) = opts.k {
        if !(k > 0.0 && k.is_finite()) {
            return Err(TexelError::Config(format!("K must be positive, not {k}")));
        }
    }
    let (scored, skipped) = subject.scored(w);
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
            (0..params.len()).map(|i| (i == j).then_some(0)).collect(),
        ),
        None => (opts.positions, (0..params.len()).map(Some).collect()),
    };
    let tracked = slot.iter().flatten().count();
    let tally = pass(subject, w, mse, &slot, tracked, m);
    let report = |j: usize, odd: Option<Oddness>| {
        param_report(subject, &tally, &params[j], slot[j], w[j], j, odd)
    };
    let positions = tally.n;
    if let Some(j) = wanted {
        return Ok(Explanation {
            model: subject.model_name(),
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
    let mut odd: Vec<(usize, Oddness)> = subject
        .oddness(w, &touched)
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
    let (mean_r, residuals) = residual_report(&tally);
    Ok(Explanation {
        model: subject.model_name(),
        positions,
        skipped,
        k,
        k_fitted,
        params,
        mean_residual: Some(mean_r),
        residuals,
    })
}

/// The parameter `opts.param` names, by number (`None` without a name); an error naming a few
/// close names if the model has none of that name.
fn wanted<S: Subject>(
    subject: &S,
    params: &[(String, f64)],
    opts: &ExplainOptions,
) -> Result<Option<usize>, TexelError> {
    let Some(name) = &opts.param else {
        return Ok(None);
    };
    let found = params.iter().position(|p| p.0 == *name).ok_or_else(|| {
        let close: Vec<&str> = params
            .iter()
            .map(|p| p.0.as_str())
            .filter(|n| n.starts_with(name.split('.').next().unwrap_or("")))
            .take(5)
            .collect();
        TexelError::Config(format!(
            "no parameter {name:?} in the {} model (names look like {})",
            subject.model_name(),
            if close.is_empty() {
                subject.example_names()
            } else {
                close.join(", ")
            }
        ))
    })?;
    Ok(Some(found))
}

/// The report of parameter `j` (`param`: its name and start value, `value` its value now):
/// its mean gradient, where it is pulled and, if it is tracked (`slot`), the positions that
/// pull it hardest.
fn param_report<S: Subject>(
    subject: &S,
    tally: &Tally,
    param: &(String, f64),
    slot: Option<usize>,
    value: f64,
    j: usize,
    odd: Option<Oddness>,
) -> ParamReport {
    let (name, init) = param;
    let gradient = tally.gradient[j] / tally.n as f64;
    let positions = slot
        .map(|sl| {
            // Ascending in `Reverse`: the strongest first.
            tally.top[sl]
                .clone()
                .into_sorted_vec()
                .into_iter()
                .map(|Reverse(c)| {
                    let (fen, result) = subject.fen_result(c.index as usize);
                    Pull {
                        fen,
                        result,
                        eval: c.eval,
                        coefficient: c.coefficient,
                        contribution: c.contribution,
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    ParamReport {
        name: name.clone(),
        value,
        start: *init,
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
}

/// The residual report of a pass: the mean residual, and the correlation of the residuals
/// with each position property, strongest first, the strongest [`BUCKETED`] with their
/// buckets.
fn residual_report(tally: &Tally) -> (f64, Vec<Correlation>) {
    let n = tally.n as f64;
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
    (mean_r, residuals)
}

/// The data pass of [`explain_subject`]: every item's contributions to the gradient (the
/// top `m` kept for each parameter with a `slot`), its residual and its properties; chunks in
/// parallel, added in order.
fn pass<S: Subject>(
    subject: &S,
    w: &[f64],
    mse: optim::Link,
    slot: &[Option<usize>],
    tracked: usize,
    m: usize,
) -> Tally {
    let n_params = slot.len();
    let items = subject.len();
    (0..items.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let mut t = Tally::new(n_params, tracked);
            let mut scratch = subject.scratch();
            let mut row = Vec::new();
            for i in c * CHUNK..items.min((c + 1) * CHUNK) {
                let Some((pos, result, q)) = subject.item(&mut scratch, i, w, &mut row) else {
                    continue;
                };
                let (_, dl) = mse.loss(q, result);
                for &(p, a) in &row {
                    let p = p as usize;
                    let contribution = dl * a;
                    t.gradient[p] += contribution;
                    t.touched[p] += 1;
                    if let Some(sl) = slot[p] {
                        let cand = Candidate {
                            index: i as u32,
                            coefficient: a,
                            contribution,
                            eval: q,
                        };
                        keep_top(&mut t.top[sl], cand, m);
                    }
                }
                let r = result - mse.expect(q);
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
        .fold(Tally::new(n_params, tracked), |a, b| a.merge(b, m))
}
