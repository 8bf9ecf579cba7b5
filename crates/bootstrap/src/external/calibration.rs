//! The SPSA stage's perturbations in evaluation units (`--spsa-units eval`, the default):
//! each coordinate's `c_j` calibrated on the last generation's traces so that it moves a
//! typical position's evaluation by `--spsa-c` centipawns ([`engine::spsa::Calibration`],
//! measured by [`texel::traced::trace_activity`] at the stage's start weights).
//!
//! The calibration is written to `OUT/spsa/calibration.json` when the stage begins, before
//! its first iteration, and read back when it resumes: a resumed stage moves exactly as an
//! uninterrupted one, whatever has happened to the traces since. A stage whose progress
//! file exists without a calibration was begun by an older gradtune, in weight units; it is
//! not continued with new perturbations.

use std::path::{Path, PathBuf};

use engine::play::trace_run::EngineManifest;
use engine::spsa::{Basis, Calibration, Tunable};
use serde::{Deserialize, Serialize};

use super::runner::Runner;
use super::spsa::PROGRESS;
use super::state::SpsaStage;
use super::steps::TRACES;
use crate::state::write_json;
use crate::{generation_dir, BootstrapError};

/// The calibration's file in the stage's directory.
pub(super) const CALIBRATION: &str = "calibration.json";

/// `OUT/spsa/calibration.json`: the traces measured and what was set.
#[derive(Debug, Serialize, Deserialize)]
struct CalibrationFile {
    /// The traces the activities were measured on, relative to `OUT`.
    traces: String,
    /// The target, the positions and every coordinate's activity and perturbation.
    #[serde(flatten)]
    calibration: Calibration,
}

impl Runner<'_> {
    /// Sets `basis`'s perturbations in evaluation units for `stage`, which starts from
    /// `start` (whose non-frozen weights, in order, are `tunables`): the recorded calibration
    /// if the stage has one, else one measured now and recorded.
    pub(super) fn calibrate(
        &self,
        stage: &SpsaStage,
        basis: &mut Basis,
        tunables: &[Tunable],
        start: &EngineManifest,
    ) -> Result<(), BootstrapError> {
        let dir = self.spsa_dir();
        let path = dir.join(CALIBRATION);
        if path.is_file() {
            let file = read_calibration(&path)?;
            return basis.apply_calibration(&file.calibration).map_err(|e| {
                BootstrapError::Options(format!(
                    "{}: {e}: remove {} to start the stage again",
                    path.display(),
                    dir.display()
                ))
            });
        }
        if dir.join(PROGRESS).is_file() {
            return Err(BootstrapError::Options(format!(
                "{} was begun without a calibration (by an older gradtune, in weight units): \
                 continue it with --spsa-units weight and its --spsa-c, or remove {} to start \
                 the stage again",
                dir.join(PROGRESS).display(),
                dir.display()
            )));
        }
        let relative = generation_dir(Path::new(""), stage.after).join(TRACES);
        let traces = self.out().join(&relative);
        if !traces.is_file() {
            return Err(BootstrapError::Options(format!(
                "SPSA in evaluation units measures its coordinates on the last generation's \
                 traces, and {} is missing (a loop of no generations has none): run a \
                 generation first, or give --spsa-units weight",
                traces.display()
            )));
        }
        let calibration = calibrate_on_traces(
            basis,
            tunables,
            start,
            std::slice::from_ref(&traces),
            stage.settings.c,
        )?;
        let file = CalibrationFile {
            traces: relative.display().to_string(),
            calibration,
        };
        write_json(&path, &file)
    }
}

/// Sets `basis`'s perturbations so that each coordinate moves a typical position's
/// evaluation by `c` centipawns, measured on `traces` under the manifest `start` at its values (the
/// traced engine's SPSA: `tunables` are the manifest's weights less the frozen ones, in
/// order, as [`engine::spsa::Subject::uci_manifest`] takes them); returns what was set.
pub fn calibrate_on_traces(
    basis: &mut Basis,
    tunables: &[Tunable],
    start: &EngineManifest,
    traces: &[PathBuf],
    c: f64,
) -> Result<Calibration, BootstrapError> {
    let manifest = &start.manifest;
    let weights = manifest.weights();
    let index: Vec<usize> = (0..weights.len()).filter(|&i| !weights[i].frozen).collect();
    if index.len() != tunables.len() {
        return Err(BootstrapError::Options(format!(
            "SPSA: {} tunables, the manifest {} has {} weights not frozen",
            tunables.len(),
            manifest.origin(),
            index.len()
        )));
    }
    let directions: Vec<Vec<(usize, f64)>> = (basis.directions.iter())
        .map(|d| d.entries.iter().map(|&(t, a)| (index[t], a)).collect())
        .collect();
    let traced = texel::traced::Traced::new(manifest.clone());
    let w = manifest.initial_weights();
    let measured = texel::traced::trace_activity(&traced, traces, &w, &directions, None, false);
    let (activity, positions) = measured.map_err(|e| match e {
        texel::TexelError::Config(m) => BootstrapError::Options(format!("SPSA: {m}")),
        e => e.into(),
    })?;
    basis
        .calibrate(tunables, &activity, c, positions)
        .map_err(|e| BootstrapError::Options(format!("SPSA calibration: {e}")))
}

/// Reads a stage's calibration file.
fn read_calibration(path: &Path) -> Result<CalibrationFile, BootstrapError> {
    let text = std::fs::read_to_string(path).map_err(|e| BootstrapError::io("read", path, e))?;
    serde_json::from_str(&text).map_err(|source| BootstrapError::Json {
        path: path.to_path_buf(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use engine::spsa::{BasisKind, MIN_ACTIVITY};
    use tape::Scalar;
    use tapered::{CompiledSet, Target};
    use texel::activity::Activity;

    use super::*;

    /// Positions in which weight 0 counts once, weight 1 ten times (each with a sign that
    /// varies), and weight 2 never.
    fn set() -> CompiledSet {
        let items: Vec<Vec<(u32, f64)>> = (0..40)
            .map(|i| {
                let s = if i % 3 == 0 { -1.0 } else { 1.0 };
                vec![(0, s), (1, 10.0 * s)]
            })
            .collect();
        let label = |_: usize, _: &Vec<(u32, f64)>| Target {
            value: 0.5,
            score: None,
            group: 0,
        };
        CompiledSet::record(
            &[1.0; 3],
            &items,
            label,
            |_, f, w| Some(tape::Var::dot(w, f)),
            None,
        )
    }

    #[test]
    fn a_ten_times_more_active_coordinate_is_perturbed_ten_times_less_and_an_inactive_one_by_the_ceiling(
    ) {
        let tunables: Vec<Tunable> = ["once", "ten", "never"]
            .iter()
            .map(|n| Tunable::unbounded(n, 1.0))
            .collect();
        let mut basis = Basis::new(BasisKind::Each, &tunables, 20.0, false);
        let directions: Vec<Vec<(usize, f64)>> =
            basis.directions.iter().map(|d| d.entries.clone()).collect();
        let mut activity = Activity::new(3, &directions).unwrap();
        activity.add(&set(), &[1.0; 3]);
        let a = activity.rms();
        assert_eq!(a, [1.0, 10.0, 0.0]);
        let cal = basis
            .calibrate(&tunables, &a, 30.0, activity.positions())
            .unwrap();
        assert_eq!(cal.positions, 40);
        let c: Vec<f64> = basis.directions.iter().map(|d| d.c).collect();
        assert_eq!(c, [30.0, 3.0, 30.0 / MIN_ACTIVITY]);
    }

    #[test]
    fn the_calibration_file_reads_back() {
        let dir = tempfile_dir();
        let path = dir.join(CALIBRATION);
        let tunables = vec![Tunable::unbounded("a", 1.0)];
        let mut basis = Basis::new(BasisKind::Each, &tunables, 20.0, false);
        let calibration = basis.calibrate(&tunables, &[4.0], 2.0, 9).unwrap();
        let file = CalibrationFile {
            traces: "gen001/traces.txt".into(),
            calibration: calibration.clone(),
        };
        write_json(&path, &file).unwrap();
        let back = read_calibration(&path).unwrap();
        assert_eq!(
            (back.traces.as_str(), back.calibration),
            ("gen001/traces.txt", calibration)
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A fresh directory under the system's temporary directory.
    fn tempfile_dir() -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("gradtune-calibration-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }
}
