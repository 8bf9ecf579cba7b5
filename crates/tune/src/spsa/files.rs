//! The run's files: `state.json` (the settings a resumed run must agree with, and the state)
//! and `weights.json` (the weights at a point, in the subject's own form).

use std::path::Path;

use anyhow::{bail, Context};
use engine::spsa::Subject;
use engine::spsa::{Gains, SpsaState};
use serde::{Deserialize, Serialize};

/// What a run is: everything in `state.json` a resumed run must agree with (a field that
/// differs is named in the refusal).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    pub start: String,
    pub manifest: Option<String>,
    pub uci_options: Vec<String>,
    pub basis: String,
    pub coordinates: Vec<String>,
    pub perturbations: Vec<f64>,
    pub gains: Gains,
    pub seed: u64,
    pub pairs: usize,
    pub nodes: Option<u64>,
    pub movetime: Option<u64>,
    /// The time control (`--tc`), absent from the files of runs without one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tc: Option<String>,
    pub openings: String,
}

/// `state.json`: the settings, the planned iterations and where the run stands.
#[derive(Serialize, Deserialize)]
struct StateFile {
    pub format: String,
    pub settings: Settings,
    pub iterations: u64,
    pub state: SpsaState,
}

const FORMAT: &str = "gradtune-spsa-1";

/// The state to start from: a fresh one, or the one in `state.json` if its settings agree.
pub fn resume(path: &Path, settings: &Settings, dim: usize) -> anyhow::Result<SpsaState> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(SpsaState::new(vec![0.0; dim]))
        }
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let file: StateFile = serde_json::from_str(&text)
        .with_context(|| format!("{}: not a `tune spsa` state file", path.display()))?;
    if file.format != FORMAT {
        bail!(
            "{}: format `{}`, expected `{FORMAT}`",
            path.display(),
            file.format
        );
    }
    let old = serde_json::to_value(&file.settings)?;
    let new = serde_json::to_value(settings)?;
    if let (Some(old), Some(new)) = (old.as_object(), new.as_object()) {
        if let Some((key, _)) = new.iter().find(|(k, v)| old.get(*k) != Some(*v)) {
            let was = old.get(key).map_or("none".to_string(), |v| v.to_string());
            let was = if was.len() <= 100 {
                format!(" (`{was}`)")
            } else {
                String::new()
            };
            bail!(
                "{} holds a run with another `{key}`{was}: give the options of that run to resume it, or another --out",
                path.display(),
            );
        }
    }
    if file.state.x.len() != dim {
        bail!(
            "{}: the state has {} coordinates, the run {dim}",
            path.display(),
            file.state.x.len()
        );
    }
    eprintln!(
        "resuming {} at iteration {} of {}",
        path.display(),
        file.state.iteration,
        file.iterations
    );
    Ok(file.state)
}

/// Writes `state.json` (atomically): the settings, the planned iterations and `state`.
pub fn save_state(
    path: &Path,
    settings: &Settings,
    iterations: u64,
    state: &SpsaState,
) -> Result<(), engine::EngineError> {
    let file = StateFile {
        format: FORMAT.to_string(),
        settings: settings.clone(),
        iterations,
        state: state.clone(),
    };
    let text = serde_json::to_string_pretty(&file)
        .map_err(|e| engine::EngineError::Options(format!("cannot write the state: {e}")))?;
    fsutil::atomic::write(path, text.as_bytes())
        .map_err(|e| engine::EngineError::io("write", path, e))
}

/// The weights file of a point: a model's weights, a traced engine's manifest with values, or
/// the options as `{name: value}`.
pub fn weights_json(subject: &Subject, manifest: Option<&trace::Manifest>, w: &[f64]) -> String {
    match (subject, manifest) {
        (Subject::Model(e), _) => eval::weights_to_json(e.model(), w),
        (Subject::Uci { .. }, Some(m)) => {
            // Frozen weights are not tunables: put the tuned values back among all.
            let names = trace::uci_options(m).unwrap_or_default();
            let tuned = subject.tunables();
            let mut all: Vec<f64> = m.initial_weights();
            for (i, (name, _)) in names.iter().enumerate() {
                if let Some(j) = tuned.iter().position(|t| &t.name == name) {
                    all[i] = w[j].round();
                }
            }
            serde_json::to_string_pretty(&m.to_json_with(&all)).unwrap_or_default() + "\n"
        }
        (Subject::Uci { .. }, None) => {
            let map: serde_json::Map<String, serde_json::Value> = subject
                .tunables()
                .iter()
                .zip(w)
                .map(|(t, v)| (t.name.clone(), serde_json::Value::from(v.round() as i64)))
                .collect();
            serde_json::to_string_pretty(&serde_json::json!({ "options": map })).unwrap_or_default()
                + "\n"
        }
    }
}
