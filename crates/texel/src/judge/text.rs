//! The text rendering of a [`Judgement`](super::Judgement): the headline, the loss and
//! calibration tables and the calibration plot.

use super::report::{Group, Judgement, Losses};
use crate::TexelError;

/// `1234567` as `1,234,567`.
pub(crate) fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `psqt weights on 1,000 positions`, and the samples left out if any.
pub(crate) fn headline(model: &str, positions: usize, skipped: usize) -> String {
    let mut s = format!("{model} weights on {} positions", thousands(positions));
    if skipped > 0 {
        s += &format!(" ({skipped} samples did not decode and were left out)");
    }
    s
}

fn group_table(title: &str, groups: &[Group]) -> String {
    let mut s = format!(
        "\n{title}\n{:<26} {:>10} {:>10} {:>10} {:>10}\n",
        "", "positions", "MSE", "xent", "obs-pred"
    );
    for g in groups.iter().filter(|g| g.positions > 0) {
        s += &format!(
            "{:<26} {:>10} {:>10.6} {:>10.6} {:>+10.4}\n",
            g.name,
            thousands(g.positions),
            g.mse,
            g.xent,
            g.residual
        );
    }
    s
}

impl Judgement {
    /// The report as text for people.
    pub fn to_text(&self) -> String {
        let mut s = headline(&self.model, self.positions, self.skipped) + "\n";
        s += &format!("\n{:<26} {:>10} {:>10}\n", "loss", "MSE", "xent");
        let mut row = |what: &str, l: &Losses| {
            s += &format!(
                "{:<26} {:>10.6} {:>10.6}\n",
                format!("{what} K = {:.4}", l.k),
                l.mse,
                l.xent
            );
        };
        row("fitted", &self.fitted);
        if let Some(g) = &self.given {
            row("given", g);
        }
        s += &format!(
            "\ncalibration at K = {:.4}: evaluation bins (centipawns, White's view)\n\
             {:<26} {:>10} {:>10} {:>10} {:>10} {:>10}\n",
            self.k, "eval", "positions", "mean eval", "predicted", "observed", "obs-pred"
        );
        for b in self.calibration.iter().filter(|b| b.positions > 0) {
            let range = match (b.lo, b.hi) {
                (None, Some(hi)) => format!("< {hi}"),
                (Some(lo), None) => format!(">= {lo}"),
                (Some(lo), Some(hi)) => format!("{lo} .. {hi}"),
                (None, None) => "all".to_string(),
            };
            s += &format!(
                "{:<26} {:>10} {:>10.1} {:>10.4} {:>10.4} {:>+10.4}\n",
                range,
                thousands(b.positions),
                b.mean_eval,
                b.predicted,
                b.observed,
                b.observed - b.predicted
            );
        }
        s += &group_table(
            &format!(
                "by game phase at K = {:.4} (24: every piece on the board)",
                self.k
            ),
            &self.by_phase,
        );
        s += &group_table(
            &format!(
                "by material balance at K = {:.4} (White minus Black: P 1, N B 3, R 5, Q 9)",
                self.k
            ),
            &self.by_imbalance,
        );
        s
    }

    /// The calibration as an SVG plot: mean observed against mean predicted result per bin,
    /// with the diagonal a calibrated evaluation would follow.
    pub fn calibration_svg(&self) -> Result<String, TexelError> {
        let points: Vec<(f64, f64, usize)> = self
            .calibration
            .iter()
            .filter(|b| b.positions > 0)
            .map(|b| (b.predicted, b.observed, b.positions))
            .collect();
        crate::plot::calibration_plot_svg(
            &format!(
                "calibration: {} positions, K = {:.4}",
                thousands(self.positions),
                self.k
            ),
            &points,
        )
    }
}
