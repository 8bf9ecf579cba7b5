//! [`Subject`]: what `tune explain` needs of a model and its data, for the built-in models on
//! `data` samples ([`Samples`]) and for traced models.

use data::Sample;
use eval::Model;
use shakmaty::fen::Fen;
use shakmaty::{Chess, EnPassantMode};

use super::coefficients::Coefficients;
use super::odd::{oddness, Oddness};
use crate::judge;

/// What [`explain_subject`](super::explain_subject) needs of a model and its data: the parameters, each item's
/// position, result and coefficients, and the odd-value search.
pub(crate) trait Subject: Sync {
    /// Per-thread working memory of [`item`](Subject::item).
    type Scratch;
    /// The model's name in the report.
    fn model_name(&self) -> String;
    /// Every parameter's name and start value, in index order.
    fn params(&self) -> Vec<(String, f64)>;
    /// Names to suggest when a parameter asked for does not exist.
    fn example_names(&self) -> String;
    /// Every item's evaluation at `w` (for `K`), and how many were left out.
    fn scored(&self, w: &[f64]) -> (Vec<judge::Scored>, usize);
    /// The number of items.
    fn len(&self) -> usize;
    /// Fresh working memory.
    fn scratch(&self) -> Self::Scratch;
    /// Item `i`'s position, result and evaluation at `w`, its non-zero `dq/dw` written into
    /// `out` (sorted by parameter, each once); `None` to leave it out.
    fn item(
        &self,
        scratch: &mut Self::Scratch,
        i: usize,
        w: &[f64],
        out: &mut Vec<(u32, f64)>,
    ) -> Option<(Chess, f64, f64)>;
    /// Item `i`'s FEN and result.
    fn fen_result(&self, i: usize) -> (String, f64);
    /// Every touched parameter's oddness.
    fn oddness(&self, w: &[f64], touched: &[usize]) -> Vec<Option<Oddness>>;
}

/// A built-in model on `data` samples.
pub(super) struct Samples<'a> {
    pub(super) model: &'a Model,
    pub(super) samples: &'a [Sample],
}

impl<'a> Subject for Samples<'a> {
    type Scratch = Coefficients<'a>;

    fn model_name(&self) -> String {
        self.model.kind().to_string()
    }

    fn params(&self) -> Vec<(String, f64)> {
        let params = self.model.params().iter();
        params.map(|p| (p.name.clone(), p.init)).collect()
    }

    fn example_names(&self) -> String {
        "material.pawn.mg, pst.knight.eg.e4".to_string()
    }

    fn scored(&self, w: &[f64]) -> (Vec<judge::Scored>, usize) {
        judge::score_samples(self.model, w, self.samples)
    }

    fn len(&self) -> usize {
        self.samples.len()
    }

    fn scratch(&self) -> Coefficients<'a> {
        Coefficients::new(self.model)
    }

    fn item(
        &self,
        coef: &mut Coefficients<'a>,
        i: usize,
        w: &[f64],
        out: &mut Vec<(u32, f64)>,
    ) -> Option<(Chess, f64, f64)> {
        let s = &self.samples[i];
        let pos = s.position().ok()?;
        let q = coef.of(&pos, w, out);
        Some((pos, s.result, q))
    }

    fn fen_result(&self, i: usize) -> (String, f64) {
        let s = &self.samples[i];
        let fen = s
            .position()
            .map(|pos| Fen::from_position(&pos, EnPassantMode::Legal).to_string())
            .unwrap_or_default();
        (fen, s.result)
    }

    fn oddness(&self, w: &[f64], touched: &[usize]) -> Vec<Option<Oddness>> {
        oddness(self.model, w, touched)
    }
}
