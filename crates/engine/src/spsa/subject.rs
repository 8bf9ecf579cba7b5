//! What SPSA tunes: gradtune's own search over a model's weights, or an external engine
//! through its UCI spin options (all it declares, a selection, or a traced engine's manifest).

use std::time::Duration;

use crate::error::EngineError;
use crate::play::player::{MatchPlayer, UciSetup};
use crate::play::uci_client::SpinOption;
use crate::search::evaluator::ModelEvaluator;

/// One tuned value: its name, start and bounds.
#[derive(Clone, Debug, PartialEq)]
pub struct Tunable {
    /// The parameter's name (a model's `pst.knight.mg.e4`, an engine's option name).
    pub name: String,
    /// Its start value.
    pub start: f64,
    /// Its smallest value.
    pub lower: f64,
    /// Its largest value.
    pub upper: f64,
    /// Whether it is a whole number (centipawns, a spin option).
    pub integer: bool,
}

impl Tunable {
    /// An unbounded whole-number tunable.
    pub fn unbounded(name: &str, start: f64) -> Tunable {
        Tunable {
            name: name.to_string(),
            start,
            lower: -eval::MAX_WEIGHT,
            upper: eval::MAX_WEIGHT,
            integer: true,
        }
    }

    /// A spin option, from its default within its range.
    pub fn spin(option: &SpinOption) -> Tunable {
        Tunable {
            name: option.name.clone(),
            start: option.default as f64,
            lower: option.min as f64,
            upper: option.max as f64,
            integer: true,
        }
    }
}

/// Who plays the games, at any point SPSA asks for.
pub enum Subject {
    /// gradtune's search over a model's weights (every parameter tunable).
    Model(ModelEvaluator),
    /// An external engine, its tunables sent as `setoption name NAME value V` (rounded).
    Uci {
        /// The command line.
        command: String,
        /// Options sent first, the same for both sides (`Hash`, `Threads`).
        fixed: UciSetup,
        /// The tunables, each an option the engine declares.
        tunables: Vec<Tunable>,
        /// How long a move may take before the engine counts as hung.
        timeout: Duration,
    },
}

/// Options engines declare that are not evaluation or search weights.
const NOT_TUNABLE: [&str; 6] = [
    "Hash",
    "Threads",
    "MultiPV",
    "Move Overhead",
    "Contempt",
    "Skill Level",
];

impl Subject {
    /// An external engine's tunables: the spin options it declares (started once now to ask),
    /// those whose names match one of `select` (globs with `*`; every spin option but `Hash`,
    /// `Threads`, `MultiPV`, `Move Overhead`, `Contempt`, `Skill Level` and `UCI_*` when
    /// empty), less those `fixed` sets. An engine without any is an error naming it.
    pub fn uci(
        command: &str,
        fixed: UciSetup,
        select: &[String],
        timeout: Duration,
    ) -> Result<Subject, EngineError> {
        let engine = fixed.spec(command).timeout(timeout).start()?;
        let chosen = |name: &str| {
            if fixed.options.iter().any(|(n, _)| n == name) {
                false
            } else if select.is_empty() {
                !NOT_TUNABLE.contains(&name) && !name.starts_with("UCI_")
            } else {
                select.iter().any(|g| fsutil::glob_match(g, name))
            }
        };
        let tunables: Vec<Tunable> = engine
            .spin_options()
            .iter()
            .filter(|o| chosen(&o.name))
            .map(Tunable::spin)
            .collect();
        if tunables.is_empty() {
            return Err(EngineError::Options(format!(
                "engine `{command}` declares no spin option{} to tune (it declares {} spin options in all)",
                if select.is_empty() { String::new() } else { format!(" matching {}", select.join(", ")) },
                engine.spin_options().len()
            )));
        }
        Ok(Subject::Uci {
            command: command.to_string(),
            fixed,
            tunables,
            timeout,
        })
    }

    /// An external traced engine whose tunables are its manifest's weights (start values the
    /// manifest's, bounds its bounds): checked declared as spin options when the first
    /// player starts. Frozen weights are left out.
    pub fn uci_manifest(
        command: &str,
        fixed: UciSetup,
        manifest: &trace::Manifest,
        timeout: Duration,
    ) -> Result<Subject, EngineError> {
        let names = trace::uci_options(manifest)?;
        let tunables = manifest
            .weights()
            .iter()
            .zip(names)
            .filter(|(w, _)| !w.frozen)
            .map(|(w, (name, value))| {
                let (lower, upper) = w.bounds.unwrap_or((-eval::MAX_WEIGHT, eval::MAX_WEIGHT));
                Tunable {
                    name,
                    start: value as f64,
                    lower,
                    upper,
                    integer: true,
                }
            })
            .collect();
        Ok(Subject::Uci {
            command: command.to_string(),
            fixed,
            tunables,
            timeout,
        })
    }

    /// The tunables, in order.
    pub fn tunables(&self) -> Vec<Tunable> {
        match self {
            Subject::Model(e) => e
                .model()
                .params()
                .iter()
                .zip(e.weights())
                .map(|(p, &w)| {
                    let (lower, upper) = p.bounds.unwrap_or((-eval::MAX_WEIGHT, eval::MAX_WEIGHT));
                    Tunable {
                        name: p.name.clone(),
                        start: w,
                        lower,
                        upper,
                        integer: p.integer,
                    }
                })
                .collect(),
            Subject::Uci { tunables, .. } => tunables.clone(),
        }
    }

    /// A player with the tunables at `values` (one per tunable).
    pub fn player(&self, values: &[f64]) -> Result<MatchPlayer, EngineError> {
        match self {
            Subject::Model(e) => Ok(MatchPlayer::Search(ModelEvaluator::new(
                e.model().clone(),
                values.to_vec(),
            )?)),
            Subject::Uci {
                command,
                fixed,
                tunables,
                timeout,
            } => {
                let mut setup = fixed.clone();
                for (t, v) in tunables.iter().zip(values) {
                    setup.required.push(t.name.clone());
                    setup
                        .options
                        .push((t.name.clone(), format!("{}", v.round() as i64)));
                }
                MatchPlayer::open_with(&format!("uci:{command}"), &setup, *timeout)
            }
        }
    }
}
