//! [`Report`]: what was read, kept and skipped, and why.

use std::collections::BTreeMap;
use std::fmt;

/// How many error messages a [`Report`] keeps (all errors are counted).
pub const MAX_MESSAGES: usize = 20;

/// The summary of a read or an extraction: counts of records read and kept, of records skipped
/// by reason, of errors (with the first [`MAX_MESSAGES`] messages, each with `file:line` or
/// `file: game N`), the result split and the score coverage of the kept samples.
///
/// ```
/// use data::Report;
///
/// let mut r = Report::default();
/// r.read = 3;
/// r.error("a.epd:2", "missing result");
/// r.skip("in check");
/// assert_eq!(r.errors, 1);
/// assert_eq!(r.skipped["in check"], 1);
/// assert!(r.to_string().contains("a.epd:2: missing result"));
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Report {
    /// Records read: non-empty lines of EPD text, games of PGN, records of a cache.
    pub read: u64,
    /// Games read (PGN only).
    pub games: u64,
    /// Samples kept.
    pub kept: u64,
    /// Records or positions skipped on purpose (filters, duplicates), by reason.
    pub skipped: BTreeMap<String, u64>,
    /// Malformed records (lines, FENs, games) skipped.
    pub errors: u64,
    /// The first [`MAX_MESSAGES`] error messages, `location: what was wrong`.
    pub messages: Vec<String>,
    /// Kept samples whose result is White win, draw, Black win (other probabilities are
    /// counted in `other_results`).
    pub results: [u64; 3],
    /// Kept samples whose result is a probability other than 1, 0.5 and 0.
    pub other_results: u64,
    /// Kept samples with a score label.
    pub scored: u64,
    /// PGN only: games with a known result, by result (1-0, 1/2-1/2, 0-1).
    pub game_results: [u64; 3],
}

impl Report {
    /// Counts an error and keeps its message if there is room.
    pub fn error(&mut self, location: impl fmt::Display, message: impl fmt::Display) {
        self.errors += 1;
        if self.messages.len() < MAX_MESSAGES {
            self.messages.push(format!("{location}: {message}"));
        }
    }

    /// Counts a record or position skipped for `reason`.
    pub fn skip(&mut self, reason: &str) {
        self.skip_n(reason, 1);
    }

    /// Counts `n` records or positions skipped for `reason`.
    pub fn skip_n(&mut self, reason: &str, n: u64) {
        if n > 0 {
            *self.skipped.entry(reason.to_string()).or_insert(0) += n;
        }
    }

    /// Counts a kept sample in `kept`, the result split and the score coverage.
    pub fn keep(&mut self, result: f64, scored: bool) {
        self.kept += 1;
        match result_slot(result) {
            Some(i) => self.results[i] += 1,
            None => self.other_results += 1,
        }
        if scored {
            self.scored += 1;
        }
    }

    /// Counts a game's result in `game_results` (PGN).
    pub fn count_game(&mut self, result: f64) {
        if let Some(i) = result_slot(result) {
            self.game_results[i] += 1;
        }
    }

    /// Adds another report's counts to this one.
    pub fn merge(&mut self, other: &Report) {
        self.read += other.read;
        self.games += other.games;
        self.kept += other.kept;
        for (k, v) in &other.skipped {
            *self.skipped.entry(k.clone()).or_insert(0) += v;
        }
        self.errors += other.errors;
        for m in &other.messages {
            if self.messages.len() < MAX_MESSAGES {
                self.messages.push(m.clone());
            }
        }
        for i in 0..3 {
            self.results[i] += other.results[i];
        }
        self.other_results += other.other_results;
        self.scored += other.scored;
        for i in 0..3 {
            self.game_results[i] += other.game_results[i];
        }
    }
}

fn pct(n: u64, of: u64) -> f64 {
    if of == 0 {
        0.0
    } else {
        100.0 * n as f64 / of as f64
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.games > 0 {
            writeln!(f, "games read:     {}", self.games)?;
            let [w, d, l] = self.game_results;
            let known = w + d + l;
            writeln!(
                f,
                "game results:   1-0 {w} ({:.1}%), 1/2 {d} ({:.1}%), 0-1 {l} ({:.1}%)",
                pct(w, known),
                pct(d, known),
                pct(l, known)
            )?;
        }
        writeln!(f, "records read:   {}", self.read)?;
        writeln!(f, "samples kept:   {}", self.kept)?;
        let [w, d, l] = self.results;
        writeln!(
            f,
            "results:        1-0 {w} ({:.1}%), 1/2 {d} ({:.1}%), 0-1 {l} ({:.1}%){}",
            pct(w, self.kept),
            pct(d, self.kept),
            pct(l, self.kept),
            if self.other_results > 0 {
                format!(", other {}", self.other_results)
            } else {
                String::new()
            }
        )?;
        writeln!(
            f,
            "with a score:   {} ({:.1}%)",
            self.scored,
            pct(self.scored, self.kept)
        )?;
        for (reason, n) in &self.skipped {
            writeln!(f, "skipped:        {n} {reason}")?;
        }
        writeln!(f, "errors:         {}", self.errors)?;
        for m in &self.messages {
            writeln!(f, "  {m}")?;
        }
        if self.errors as usize > self.messages.len() {
            writeln!(
                f,
                "  ... and {} more",
                self.errors as usize - self.messages.len()
            )?;
        }
        Ok(())
    }
}

/// The slot of a result in `[wins, draws, losses]` (White's view); `None` for a probability.
fn result_slot(result: f64) -> Option<usize> {
    if result == 1.0 {
        Some(0)
    } else if result == 0.5 {
        Some(1)
    } else if result == 0.0 {
        Some(2)
    } else {
        None
    }
}
