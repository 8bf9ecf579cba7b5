//! The text rendering of an [`Explanation`](super::Explanation).

use super::{Explanation, ParamReport};
use crate::judge::{headline, thousands};

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
