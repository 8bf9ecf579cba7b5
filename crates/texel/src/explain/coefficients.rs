//! [`Coefficients`]: a position's `dq/dw` without a tape (a leaf of `explain`).

use eval::{Model, Split};
use shakmaty::Chess;

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
