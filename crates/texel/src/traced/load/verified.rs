//! [`Verified`]: the verification of a traced set, batch by batch, as one report.

use trace::{Manifest, Trace, VerifyOptions, VerifyReport};

/// The [`trace::verify`] reports of consecutive batches of one set, merged: counts added,
/// positions numbered in the whole set, the worst over all batches, the first listed ones of
/// the set. The diagnosis is the first failing batch's (a sample of up to a batch of
/// positions: diagnosing needs every compared position at once).
pub(super) struct Verified {
    opts: VerifyOptions,
    report: VerifyReport,
    /// Positions verified so far (the next batch's first index).
    seen: usize,
}

impl Verified {
    pub(super) fn new(tolerance: f64) -> Self {
        let opts = VerifyOptions {
            tolerance,
            ..VerifyOptions::default()
        };
        let report = VerifyReport {
            tolerance,
            ..VerifyReport::default()
        };
        Verified {
            opts,
            report,
            seen: 0,
        }
    }

    /// Verifies the next batch of the set at the manifest's values.
    pub(super) fn add(&mut self, m: &Manifest, batch: &[Trace]) {
        let b = trace::verify(m, batch, &m.initial_weights(), &self.opts);
        let (r, offset, max) = (&mut self.report, self.seen, self.opts.max_listed);
        self.seen += batch.len();
        r.checked += b.checked;
        r.without_eval += b.without_eval;
        r.unevaluable += b.unevaluable;
        r.failed += b.failed;
        for e in b.errors {
            if r.errors.len() < max {
                r.errors.push(renumber(&e, offset));
            }
        }
        let diff = |m: &trace::Mismatch| (m.engine.round() - m.rebuilt.round()).abs();
        if let Some(mut w) = b.worst {
            if r.worst.as_ref().is_none_or(|old| diff(&w) > diff(old)) {
                w.index += offset;
                r.worst = Some(w);
            }
        }
        for mut f in b.first {
            if r.first.len() < max {
                f.index += offset;
                r.first.push(f);
            }
        }
        if r.diagnosis.is_empty() {
            r.diagnosis = b.diagnosis;
        }
    }

    /// The merged report.
    pub(super) fn report(&self) -> &VerifyReport {
        &self.report
    }

    /// Positions verified.
    pub(super) fn seen(&self) -> usize {
        self.seen
    }
}

/// A batch's error message (`#index (fen): what`) with its index shifted by `offset`.
fn renumber(e: &str, offset: usize) -> String {
    let Some(rest) = e.strip_prefix('#') else {
        return e.to_string();
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    match rest[..digits].parse::<usize>() {
        Ok(i) => format!("#{}{}", i + offset, &rest[digits..]),
        Err(_) => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::renumber;

    #[test]
    fn errors_are_renumbered_in_the_whole_set() {
        assert_eq!(renumber("#3 (8/8 w): bad", 10), "#13 (8/8 w): bad");
        assert_eq!(renumber("no number", 10), "no number");
        assert_eq!(renumber("", 10), "");
    }
}
