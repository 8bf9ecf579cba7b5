//! [`Settings`]: everything that decides what a bootstrap computes (written to
//! `state.json`, compared on continuation), and [`Options`]: where and how far.

use std::path::PathBuf;

use engine::play::clock::TimeControl;
use engine::play::elo::Sprt;
use engine::play::options::PlayOptions;
use eval::ModelKind;
use serde::{Deserialize, Serialize};

use crate::BootstrapError;

/// The default label blend of `tune bootstrap` for a model (see [`Settings::lambda`]): `psqt`
/// 0.5, half the game result and half the search's score, which played better than either alone
/// on 2,200 games and as well as the result on 8,000; `full` 0, the search's score alone, whose
/// step from the `full` ladder's best played 40 Elo above the blend's, head to head, tuned on
/// the same 16,000 games (`experiments/threats.md`, "Pawn-push threats and outposts").
///
/// ```
/// use eval::ModelKind;
/// assert_eq!(bootstrap::settings::default_lambda(ModelKind::Psqt), 0.5);
/// assert_eq!(bootstrap::settings::default_lambda(ModelKind::Full), 0.0);
/// ```
pub fn default_lambda(kind: ModelKind) -> f64 {
    match kind {
        ModelKind::Psqt => 0.5,
        ModelKind::Full => 0.0,
    }
}

/// The default smoothness prior of `tune bootstrap` (see [`Settings::smooth`]).
pub const SMOOTH: f64 = 1e-9;

/// `lambda` of a `state.json` written before the setting existed: the game result alone.
fn result_only() -> f64 {
    1.0
}

/// The gates' SPRT by default: H0 0 Elo against H1 10 Elo at 5% error rates each way.
pub const GATE_SPRT: Sprt = Sprt {
    elo0: 0.0,
    elo1: 10.0,
    alpha: 0.05,
    beta: 0.05,
};

/// Everything that decides what a bootstrap computes (written to `state.json`; a
/// continuation must use the same).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// The model's name (`psqt` or `full`).
    pub model: String,
    /// Start weights (JSON by name); the model's defaults when `None`.
    pub weights: Option<PathBuf>,
    /// Self-play games per generation.
    pub games: u32,
    /// Nodes per move in self-play.
    pub nodes: u64,
    /// Random plies of each opening (self-play, gate and ladder).
    pub opening_plies: u32,
    /// Self-play openings whose quiescence score exceeds this (centipawns) are redrawn.
    pub opening_max_eval: f64,
    /// The master seed.
    pub seed: u64,
    /// Tune on the data of this many generations, the newest last.
    pub window: u32,
    /// L-BFGS iterations per tuning run, at most.
    pub max_iters: u64,
    /// L2 pull towards the start weights of each tuning run (as `tune lbfgs --l2`).
    pub l2: f64,
    /// Label blend of each tuning run (as `tune lbfgs --lambda`): `lambda * result + (1 -
    /// lambda) * sigma(score)`, the score being the self-play search's. 1 is the game result
    /// alone (the only choice before this setting existed, hence the default of old states).
    #[serde(default = "result_only")]
    pub lambda: f64,
    /// Smoothness prior of each tuning run (as `tune lbfgs --smooth`); 0 (the only choice
    /// before this setting existed) turns it off.
    #[serde(default)]
    pub smooth: f64,
    /// Opponents besides itself in each generation's games: the kept weights of the `pool`
    /// most recent earlier bests (fewer while there are fewer). The games go round self-play
    /// and each opponent in turn ([`engine::play::datagen::pairing`]). 0 (the only choice before
    /// this setting existed) is self-play alone.
    #[serde(default)]
    pub pool: u32,
    /// Parameters held at the start's values in every tuning run (as `tune lbfgs --freeze`:
    /// a group such as `material`, a name, or a pattern). Empty (the only choice before this
    /// setting existed) tunes them all.
    #[serde(default)]
    pub freeze: Vec<String>,
    /// Fraction of the games held out for validation in each tuning run.
    pub valid_fraction: f64,
    /// The gate's SPRT (in the file as `elo0`, `elo1`, `alpha` and `beta` beside the other
    /// settings, as before it was one value).
    #[serde(flatten)]
    pub sprt: Sprt,
    /// The gate plays at most this many openings (each with both colours).
    pub gate_openings: usize,
    /// The gate judges the SPRT after every this many openings.
    pub gate_batch: usize,
    /// Nodes per move in the gate.
    pub gate_nodes: u64,
    /// Openings of each ladder match (each with both colours).
    pub ladder_openings: usize,
    /// Nodes per move in the ladder matches.
    pub ladder_nodes: u64,
    /// Reference weights the ladder also plays against.
    pub reference: Option<PathBuf>,
    /// A clock for every game (self-play, gate, ladder) instead of the node counts; `None`
    /// (absent from the file): fixed nodes. Games on a clock are not reproducible.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockSettings>,
}

/// The clock of a bootstrap's games (`tune bootstrap --tc`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClockSettings {
    /// The time control.
    pub tc: TimeControl,
    /// Milliseconds a side may overrun its clock without losing on time.
    pub time_margin_ms: u64,
}

/// How games are played: on `clock` if there is one (with its margin), else at `nodes` a move
/// (`tune bootstrap` and `tune loop` alike).
///
/// ```
/// use bootstrap::settings::{play_options, ClockSettings};
/// assert_eq!(play_options(None, 300).node_count(), Some(300));
/// let clock = ClockSettings { tc: "10+0.1".parse().unwrap(), time_margin_ms: 50 };
/// let timed = play_options(Some(&clock), 300);
/// assert_eq!(timed.node_count(), None);
/// assert_eq!(timed.time_margin.as_millis(), 50);
/// ```
pub fn play_options(clock: Option<&ClockSettings>, nodes: u64) -> PlayOptions {
    let options = PlayOptions::default();
    match clock {
        Some(c) => options
            .time_control(c.tc)
            .time_margin(std::time::Duration::from_millis(c.time_margin_ms)),
        None => options.nodes(nodes),
    }
}

impl Default for Settings {
    /// The defaults of `tune bootstrap`.
    fn default() -> Self {
        Settings {
            model: "psqt".to_string(),
            weights: None,
            // 8,000 games and a window of 2 (1,000 and 3 before), with the label blend and the
            // smoothness prior: about 120 Elo more at every stage of the ladder (generation 1:
            // -215 against PeSTO, was -334; best -40, was -177; experiments/bootstrap-psqt.md).
            games: 8000,
            nodes: 2000,
            opening_plies: 8,
            opening_max_eval: 200.0,
            seed: 1,
            window: 2,
            max_iters: 200,
            l2: 1e-8,
            lambda: default_lambda(ModelKind::Psqt),
            smooth: SMOOTH,
            pool: 0,
            freeze: Vec::new(),
            valid_fraction: 0.1,
            sprt: GATE_SPRT,
            gate_openings: 200,
            gate_batch: 10,
            gate_nodes: 5000,
            ladder_openings: 50,
            ladder_nodes: 5000,
            reference: None,
            clock: None,
        }
    }
}

impl Settings {
    /// How a stage's games are played: on the clock if there is one, else at `nodes` a move.
    ///
    /// ```
    /// use bootstrap::settings::{ClockSettings, Settings};
    /// let s = Settings::default();
    /// assert_eq!(s.play(s.gate_nodes).node_count(), Some(5000));
    /// let clock = ClockSettings { tc: "10+0.1".parse().unwrap(), time_margin_ms: 50 };
    /// let s = Settings { clock: Some(clock), ..Settings::default() };
    /// assert!(s.play(s.gate_nodes).clock().is_some());
    /// ```
    pub fn play(&self, nodes: u64) -> PlayOptions {
        play_options(self.clock.as_ref(), nodes)
    }

    /// Checks every option's range.
    pub fn validate(&self) -> Result<(), BootstrapError> {
        let bad = |m: &str| Err(BootstrapError::Options(m.to_string()));
        let Ok(kind) = self.model.parse::<eval::ModelKind>() else {
            return bad(&format!("unknown model {:?} (psqt, full)", self.model));
        };
        // The tuning runs' own specs and rule (`optim::free_indices`) decide what a pattern
        // holds.
        let specs = texel::chess::param_specs(&eval::Model::new(kind));
        for pattern in &self.freeze {
            if optim::free_indices(&specs, std::slice::from_ref(pattern)).len() == specs.len() {
                return bad(&format!(
                    "--freeze {pattern:?} matches no parameter of {} (a group such as \
                     material, a name, or a pattern such as pst.king.*)",
                    self.model
                ));
            }
        }
        if self.games == 0 {
            return bad("--games must be at least 1");
        }
        if self.nodes == 0 || self.gate_nodes == 0 || self.ladder_nodes == 0 {
            return bad("node counts must be at least 1");
        }
        if self.window == 0 {
            return bad("--window must be at least 1");
        }
        if self.gate_openings == 0 || self.gate_batch == 0 || self.ladder_openings == 0 {
            return bad("--gate-openings, --gate-batch and --ladder-openings must be at least 1");
        }
        if let Err(e) = self.sprt.check() {
            return bad(&e);
        }
        if !(0.0..1.0).contains(&self.valid_fraction) {
            return bad("--valid-fraction must be in [0, 1)");
        }
        if !(self.l2 >= 0.0 && self.l2.is_finite()) {
            return bad("--l2 must be a finite number >= 0");
        }
        if !(0.0..=1.0).contains(&self.lambda) {
            return bad("--lambda must be in [0, 1]");
        }
        if !(self.smooth >= 0.0 && self.smooth.is_finite()) {
            return bad("--smooth must be a finite number >= 0");
        }
        Ok(())
    }

    /// `name: before -> now` for every setting that differs from `other`'s.
    pub(crate) fn differences(&self, other: &Settings) -> String {
        json_differences(self, other)
    }
}

/// The top-level fields in which two settings' JSON differ, as `name: before -> now`.
pub(crate) fn json_differences<T: Serialize>(before: &T, now: &T) -> String {
    let (a, b) = (
        serde_json::to_value(before).unwrap_or_default(),
        serde_json::to_value(now).unwrap_or_default(),
    );
    let (Some(a), Some(b)) = (a.as_object(), b.as_object()) else {
        return String::new();
    };
    let added = b
        .iter()
        .filter(|(k, _)| !a.contains_key(*k))
        .map(|(k, v)| format!("{k}: (none) -> {v}"));
    a.iter()
        .filter(|(k, v)| b.get(*k) != Some(*v))
        .map(|(k, v)| format!("{k}: {v} -> {}", b.get(k).cloned().unwrap_or_default()))
        .chain(added)
        .collect::<Vec<_>>()
        .join(", ")
}

/// A bootstrap: where, how far, and the settings.
#[derive(Clone, Debug)]
pub struct Options {
    /// The output directory (continued if it holds a `state.json`).
    pub out: PathBuf,
    /// Generations to finish after generation 0 (a continuation may ask for more).
    pub generations: u32,
    /// Everything else.
    pub settings: Settings,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_written_before_lambda_smooth_pool_and_freeze_existed_reads_as_before() {
        let mut old = serde_json::to_value(Settings::default()).unwrap();
        for key in ["lambda", "smooth", "pool", "freeze"] {
            old.as_object_mut().unwrap().remove(key);
        }
        let read: Settings = serde_json::from_value(old).unwrap();
        assert_eq!((read.lambda, read.smooth, read.pool), (1.0, 0.0, 0));
        assert!(read.freeze.is_empty());
        assert_eq!(Settings::default().lambda, default_lambda(ModelKind::Psqt));
        assert_eq!(Settings::default().smooth, SMOOTH);
    }

    #[test]
    fn a_clock_is_kept_in_the_state_and_absent_without_one() {
        let text = serde_json::to_string(&Settings::default()).unwrap();
        assert!(!text.contains("clock"), "{text}");
        let clock = ClockSettings {
            tc: "40/60+0.6".parse().unwrap(),
            time_margin_ms: 25,
        };
        let timed = Settings {
            clock: Some(clock),
            ..Settings::default()
        };
        let text = serde_json::to_string(&timed).unwrap();
        assert!(
            text.contains(r#""clock":{"tc":"40/60+0.6","time_margin_ms":25}"#),
            "{text}"
        );
        assert_eq!(serde_json::from_str::<Settings>(&text).unwrap(), timed);
        let changed = Settings::default().differences(&timed);
        assert!(changed.contains("clock: (none) -> "), "{changed}");
    }

    #[test]
    fn a_freeze_pattern_that_matches_nothing_is_refused() {
        let with = |freeze: &[&str]| Settings {
            freeze: freeze.iter().map(|s| s.to_string()).collect(),
            ..Settings::default()
        };
        assert!(with(&["material", "pst.king.*"]).validate().is_ok());
        let err = with(&["materail"]).validate().unwrap_err().to_string();
        assert!(err.contains("materail"), "{err}");
        // `mobility` is a group of `full`, not of the default `psqt`.
        assert!(with(&["mobility"]).validate().is_err());
    }

    #[test]
    fn lambda_outside_zero_to_one_and_a_bad_smooth_are_refused() {
        for lambda in [-0.1, 1.5, f64::NAN] {
            let s = Settings {
                lambda,
                ..Settings::default()
            };
            assert!(matches!(s.validate(), Err(BootstrapError::Options(_))));
        }
        for smooth in [-1e-9, f64::INFINITY, f64::NAN] {
            let s = Settings {
                smooth,
                ..Settings::default()
            };
            assert!(matches!(s.validate(), Err(BootstrapError::Options(_))));
        }
    }
}
