//! What `tune discover` found ([`Discovery`]), as JSON, a table and a plot.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use super::stats::Gain;
use crate::TexelError;

/// One group's result (or a control's).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GroupResult {
    /// The group's name (a control's: `control: shuffled <name>`).
    pub name: String,
    /// Its number of elements.
    pub elements: usize,
    /// The held-out gain over the base, its clustered SE, z and p.
    #[serde(flatten)]
    pub gain: Gain,
    /// Whether the gain is significant at the family-wise level (Holm over the groups tried;
    /// a control is judged at the strictest of Holm's thresholds, `level / groups`).
    pub significant: bool,
    /// Notes: `already in the model`, `control`.
    pub notes: Vec<String>,
    /// The fitted values by element name, `[mg, eg]`, in the base score's units.
    pub values: BTreeMap<String, [f64; 2]>,
}

/// One step of the greedy forward selection.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Step {
    /// The step, from 1.
    pub step: usize,
    /// The best remaining group at this step.
    pub group: String,
    /// Its held-out gain over the model with the groups chosen before (refitted jointly).
    #[serde(flatten)]
    pub gain: Gain,
    /// The Bonferroni threshold of the step: `level / candidates`.
    pub threshold: f64,
    /// The candidates tried at this step.
    pub candidates: usize,
    /// Whether it was added (significant); the selection stops at the first that is not.
    pub added: bool,
}

/// Positions and games on each side of the split.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct SplitCounts {
    /// Training positions.
    pub train_positions: usize,
    /// Training games.
    pub train_games: usize,
    /// Held-out positions.
    pub held_out_positions: usize,
    /// Held-out games.
    pub held_out_games: usize,
}

/// The whole result of a `tune discover` run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Discovery {
    /// The model examined (`psqt`, `full`, or the traced engine's name).
    pub model: String,
    /// The sigmoid's scale fitted on the training base scores.
    pub k: f64,
    /// The ridge, in positions' worth of curvature.
    pub l2: f64,
    /// The family-wise significance level.
    pub level: f64,
    /// How the level is corrected for the groups tried.
    pub correction: String,
    /// Fraction of the games held out and the split's seed.
    pub valid_fraction: f64,
    /// The split's and the control's seed.
    pub seed: u64,
    /// The split's counts.
    pub split: SplitCounts,
    /// The base's mean held-out loss.
    pub base_loss: f64,
    /// Every group tried, ranked by gain (largest first).
    pub groups: Vec<GroupResult>,
    /// The controls (the shuffled copy of the strongest group).
    pub controls: Vec<GroupResult>,
    /// The greedy forward selection, step by step (the last may be the one not added).
    pub greedy: Vec<Step>,
    /// The groups the greedy selection added, in their order, with their values fitted jointly
    /// (the last added step's fit): where an author's port of them starts
    /// (`tune loop --discovered`, `tune lbfgs --trace --discovered`).
    pub chosen: Vec<Chosen>,
}

/// A group the greedy selection added, with its values in the joint fit of all added groups.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Chosen {
    /// The group's name.
    pub group: String,
    /// The fitted values by element name, `[mg, eg]`, in the base score's units.
    pub values: BTreeMap<String, [f64; 2]>,
}

impl Discovery {
    /// The table: rank, group, elements, gain ± SE, z, significance, notes; the controls; the
    /// greedy path. Gains are in units of `1e-6` of the mean loss.
    pub fn to_text(&self) -> String {
        let mut s = format!(
            "{}: K = {:.4}, {} training positions ({} games), {} held out ({} games), held-out \
             loss {:.6}\ngains in 1e-6 of the mean squared error; significant at {} \
             family-wise ({})\n\n",
            self.model,
            self.k,
            self.split.train_positions,
            self.split.train_games,
            self.split.held_out_positions,
            self.split.held_out_games,
            self.base_loss,
            self.level,
            self.correction
        );
        s += &format!(
            "{:>4}  {:<32} {:>8} {:>20} {:>7}  {:<4} notes\n",
            "rank", "group", "elements", "gain ± SE", "z", "sig"
        );
        let rows = self
            .groups
            .iter()
            .enumerate()
            .map(|(i, g)| ((i + 1).to_string(), g));
        let controls = self.controls.iter().map(|g| ("-".to_string(), g));
        for (rank, g) in rows.chain(controls) {
            s += &format!(
                "{:>4}  {:<32} {:>8} {:>20} {:>7.2}  {:<4} {}\n",
                rank,
                g.name,
                g.elements,
                format!("{:.2} ± {:.2}", g.gain.gain * 1e6, g.gain.se * 1e6),
                g.gain.z,
                if g.significant { "yes" } else { "no" },
                g.notes.join("; ")
            );
        }
        s += "\ngreedy forward selection:\n";
        for st in &self.greedy {
            s += &format!(
                "  {}. {:<32} {:.2} ± {:.2}  z {:.2}  p {:.2e} vs {:.2e}: {}\n",
                st.step,
                st.group,
                st.gain.gain * 1e6,
                st.gain.se * 1e6,
                st.gain.z,
                st.gain.p,
                st.threshold,
                if st.added {
                    "added"
                } else {
                    "not significant: stop"
                }
            );
        }
        s
    }

    /// Writes `discover.json` and `discover.svg` into `dir` (created if needed), atomically.
    pub fn write(&self, dir: &Path) -> Result<(), TexelError> {
        std::fs::create_dir_all(dir).map_err(|e| TexelError::io(dir, e))?;
        let json = serde_json::to_string_pretty(self)? + "\n";
        crate::output::write(&dir.join("discover.json"), &json)?;
        let bars: Vec<(String, f64, f64)> = self
            .groups
            .iter()
            .chain(&self.controls)
            .map(|g| (g.name.clone(), g.gain.gain * 1e6, g.gain.se * 1e6))
            .collect();
        let title = format!("held-out gain of each group, {}", self.model);
        let svg = crate::plot::interval_plot_svg(&title, "gain (1e-6 of the loss)", &bars)?;
        crate::plot::write_svg(&dir.join("discover.svg"), &svg)
    }
}
