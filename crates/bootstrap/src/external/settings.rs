//! [`LoopSettings`]: everything that decides what a loop over an external engine computes
//! (written to `state.json`, compared on continuation), and [`LoopOptions`]: where, how far,
//! and what may change between runs.

use std::path::PathBuf;
use std::time::Duration;

use engine::play::elo::Sprt;
use engine::play::options::PlayOptions;
use engine::play::player::UciSetup;
use serde::{Deserialize, Serialize};

use crate::gate::Undecided;
use crate::settings::{play_options, ClockSettings, GATE_SPRT};
use crate::BootstrapError;

/// The default label blend of `tune loop` (`lambda * result + (1 - lambda) * sigma(score)`):
/// on 4ku's own games 0.5 overfit the results and 0.1 gained (docs/loop.md).
pub const LAMBDA: f64 = 0.1;
/// Everything that decides what a loop computes; a continuation must use the same.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoopSettings {
    /// The engine's command line (it speaks UCI with every weight a `spin` option, and the
    /// trace protocol: docs/engine-authors.md).
    pub engine: String,
    /// The engine's manifest with its start values (copied to `gen000/weights.json`).
    pub manifest: PathBuf,
    /// The master seed.
    pub seed: u64,
    /// Self-play games per generation.
    pub games: u32,
    /// Nodes per move in self-play.
    pub nodes: u64,
    /// Random plies of each random opening (self-play and gate).
    pub opening_plies: u32,
    /// Random openings whose material balance (quiescence, centipawns) exceeds this are redrawn.
    pub opening_max_eval: f64,
    /// Self-play openings from this EPD file (round-robin) instead of random ones.
    pub book: Option<PathBuf>,
    /// Tune on the self-play positions of this many generations (the newest last), all traced
    /// again with the current weights.
    pub window: u32,
    /// Fraction of the games held out for validation (the L2 strength is chosen on it).
    pub valid_fraction: f64,
    /// L2 pull towards the current weights (`None`: `auto`, chosen on the validation split).
    pub l2: Option<f64>,
    /// Label blend: `lambda * result + (1 - lambda) * sigma(score)`.
    pub lambda: f64,
    /// The prior of each tuning run: every weight counts as this many positions at its
    /// current value (`tune lbfgs --prior-positions`); 0: none. Files written before the
    /// prior lack it, and were run without one.
    #[serde(default)]
    pub prior_positions: f64,
    /// L-BFGS iterations per tuning run, at most.
    pub max_iters: u64,
    /// Openings of the gate match (each played twice), at most.
    pub gate_openings: usize,
    /// Nodes per move in the gate.
    pub gate_nodes: u64,
    /// The gate's SPRT is judged after each batch of this many openings.
    pub gate_batch: usize,
    /// The gate's SPRT (in the file as `elo0`, `elo1`, `alpha` and `beta` beside the other
    /// settings, as before it was one value).
    #[serde(flatten)]
    pub sprt: Sprt,
    /// A clock for the games of self-play and the gate instead of `nodes` and `gate_nodes`
    /// (then unused); `None`, absent from the file (and from the files of loops written before
    /// time controls): fixed nodes. Games on a clock are not reproducible.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockSettings>,
    /// UCI options sent to the engine before its weights in every game (self-play, gate,
    /// SPSA), `(name, value)`: e.g. Ethereal's `Normalize` `false`, so that the search scores
    /// the labels blend in are in the evaluation's units. Absent from the file when empty (and
    /// from the files of loops written before it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub uci_options: Vec<(String, String)>,
    /// What a gate the SPRT left undecided at its cap keeps (`--gate-undecided`): the best
    /// (`reject`, the default) or the candidate if ahead. Files written before the setting was
    /// always written lack it, and were run with `ahead`.
    #[serde(default = "Undecided::before_reject")]
    pub undecided: Undecided,
    /// Openings (each played twice) of the match that measures every kept generation against
    /// the start weights (`--vs-start-openings`); the loop's answer is chosen by these matches
    /// ([`crate::gate::answer`]). Files written before it read with the default.
    #[serde(default = "default_vs_start_openings")]
    pub vs_start_openings: usize,
    /// Openings of the second part of the match against the start, played once when the
    /// first part leaves the generation undecided (`--vs-start-more`,
    /// [`crate::gate::undecided_against_start`]); the answer is judged on both parts. 0: no
    /// second part, as files written before it were run.
    #[serde(default)]
    pub vs_start_more: usize,
    /// A `tune discover` result: generation 0's weights are the manifest's with its ports of
    /// catalogue groups started at the ranking's values (`texel::discover::Discovered`).
    /// Absent from the file when not given (and from the files of loops written before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discovered: Option<PathBuf>,
}

/// The default of [`LoopSettings::gate_openings`]: at most 2,000 games. The SPRT [0, 10]
/// decides few gates in 400 games (a candidate +30 Elo stronger, one in twenty on a stub
/// engine: `crates/bootstrap/tests/it/gate_stub.rs`); in 2,000 it keeps +20 about four
/// times in five and +30 always, 0 about one in forty and -10 never.
pub const GATE_OPENINGS: usize = 1000;

/// The default of [`LoopSettings::vs_start_openings`]: 400 games.
pub const VS_START_OPENINGS: usize = 200;

/// The default of [`LoopSettings::vs_start_more`]: 1,200 more games when the first 400 leave
/// a kept generation undecided against the start, 1,600 in all (an interval of about +-15
/// Elo where 400 games give +-30: 4ku's second generation with its new terms measured +10.4
/// [-18.3, +39.3] in 400, +27 over the start by its two matches against the shipped weights in
/// 4,000 each; `experiments/4ku-terms.md`).
pub const VS_START_MORE: usize = 600;

fn default_vs_start_openings() -> usize {
    VS_START_OPENINGS
}

impl LoopSettings {
    /// Settings with the defaults of `tune loop` for `engine` starting from `manifest`.
    pub fn new(engine: impl Into<String>, manifest: impl Into<PathBuf>) -> LoopSettings {
        LoopSettings {
            engine: engine.into(),
            manifest: manifest.into(),
            seed: 1,
            games: 200,
            nodes: 5_000,
            opening_plies: 8,
            opening_max_eval: 100.0,
            book: None,
            window: 2,
            valid_fraction: 0.1,
            l2: None,
            lambda: LAMBDA,
            prior_positions: texel::traced::PRIOR_POSITIONS,
            max_iters: 200,
            gate_openings: GATE_OPENINGS,
            gate_nodes: 5_000,
            gate_batch: 20,
            sprt: GATE_SPRT,
            clock: None,
            uci_options: Vec::new(),
            undecided: Undecided::Reject,
            vs_start_openings: VS_START_OPENINGS,
            vs_start_more: VS_START_MORE,
            discovered: None,
        }
    }

    /// The engine's setup before its weights: the options of `uci_options`.
    pub fn uci_setup(&self) -> UciSetup {
        self.uci_options
            .iter()
            .fold(UciSetup::default(), |setup, (name, value)| {
                setup.option(name, value)
            })
    }

    /// How the self-play games are played: on the clock if there is one, else at `nodes`.
    pub fn selfplay_options(&self) -> PlayOptions {
        play_options(self.clock.as_ref(), self.nodes)
    }

    /// How the gate's games are played: on the clock if there is one, else at `gate_nodes`.
    pub fn gate_options(&self) -> PlayOptions {
        play_options(self.clock.as_ref(), self.gate_nodes)
    }

    /// Checks every option's range.
    pub fn validate(&self) -> Result<(), BootstrapError> {
        let bad = |m: &str| Err(BootstrapError::Options(m.to_string()));
        if self.games == 0 || self.nodes == 0 || self.gate_nodes == 0 {
            return bad("--games, --nodes and --gate-nodes must be at least 1");
        }
        if self.gate_openings == 0
            || self.gate_batch == 0
            || self.window == 0
            || self.vs_start_openings == 0
        {
            return bad(
                "--gate-openings, --gate-batch, --vs-start-openings and --window must be at \
                 least 1",
            );
        }
        if !(self.valid_fraction > 0.0 && self.valid_fraction < 1.0) {
            return bad("--valid-fraction must be in (0, 1): the L2 strength is chosen on it");
        }
        if !(0.0..=1.0).contains(&self.lambda) {
            return bad("--lambda must be in [0, 1]");
        }
        if self.l2.is_some_and(|l| !(l.is_finite() && l >= 0.0)) {
            return bad("--l2 must be `auto` or a number >= 0");
        }
        if !(self.prior_positions.is_finite() && self.prior_positions >= 0.0) {
            return bad("--prior-positions must be a number >= 0");
        }
        if let Err(e) = self.sprt.check() {
            return bad(&e);
        }
        Ok(())
    }
}

/// A loop: where, how far, the settings, and what may differ between runs of one loop.
#[derive(Clone, Debug)]
pub struct LoopOptions {
    /// The output directory (continued if it holds a `state.json`).
    pub out: PathBuf,
    /// Generations to finish after generation 0 (a continuation may ask for more).
    pub generations: u32,
    /// Everything that decides the results.
    pub settings: LoopSettings,
    /// How long the engine may take for one move or one trace before it counts as hung.
    pub timeout: Duration,
    /// Engine processes tracing in parallel.
    pub trace_jobs: usize,
    /// The SPSA stage after the last generation, if any (its settings are the stage's own,
    /// recorded when it begins: a finished loop may be given one).
    pub spsa: Option<SpsaSettings>,
}

/// The SPSA stage's settings (`tune loop --spsa-iters N --spsa-pairs ...`): recorded in the
/// stage's record, a continuation of the stage must give the same. Its games are played as the
/// gate's: at `gate_nodes` or on the loop's clock.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpsaSettings {
    /// Iterations (at least 1).
    pub iterations: u64,
    /// Game pairs per iteration (each opening with both colours).
    pub pairs: usize,
    /// Each coordinate's perturbation at the first iteration, centipawns: of a typical
    /// position's evaluation ([`SpsaUnits::Eval`]) or at the weight the coordinate moves most
    /// ([`SpsaUnits::Weight`]).
    pub c: f64,
    /// What `c` is measured in. Absent from the stage records of older files, which were
    /// begun in [`SpsaUnits::Weight`] and continue so.
    #[serde(default = "SpsaUnits::before_calibration")]
    pub units: SpsaUnits,
    /// `tables` (a few shapes per table, and a scale) or `each` (one coordinate per weight).
    pub basis: String,
    /// Only the coordinates matching one of these globs (all when empty).
    pub only: Vec<String>,
}

/// What the SPSA stage's `c` is measured in (`--spsa-units`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SpsaUnits {
    /// Centipawns of a typical position's evaluation: each coordinate's perturbation
    /// calibrated on the last generation's traces (`OUT/spsa/calibration.json`).
    Eval,
    /// Centipawns at the weight a coordinate moves most, whatever the weight's coefficient in a
    /// position (`scale`: [`engine::spsa::SCALE_C`] percent); what stages did before
    /// calibration.
    Weight,
}

impl SpsaUnits {
    /// The units of a stage recorded before there was a choice: [`SpsaUnits::Weight`].
    pub fn before_calibration() -> SpsaUnits {
        SpsaUnits::Weight
    }

    /// The default `c` in these units: [`SPSA_C_EVAL`] or [`SPSA_C_WEIGHT`].
    pub fn default_c(self) -> f64 {
        match self {
            SpsaUnits::Eval => SPSA_C_EVAL,
            SpsaUnits::Weight => SPSA_C_WEIGHT,
        }
    }
}

/// The default `--spsa-c` in evaluation units, centipawns: each coordinate moves a typical
/// position's evaluation by 2 cp, as testing frameworks perturb an evaluation by a few (with
/// 150 coordinates perturbed at once the two sides still differ by about `2·2·sqrt(150)`,
/// ~50 cp RMS: docs/loop.md).
pub const SPSA_C_EVAL: f64 = 2.0;
/// The default `--spsa-c` in weight units (the stage's only units before calibration).
pub const SPSA_C_WEIGHT: f64 = 20.0;

impl SpsaSettings {
    /// Checks the ranges.
    pub fn validate(&self) -> Result<(), BootstrapError> {
        let bad = |m: &str| Err(BootstrapError::Options(m.to_string()));
        if self.iterations == 0 || self.pairs == 0 {
            return bad("--spsa-iters and --spsa-pairs must be at least 1");
        }
        if !(self.c.is_finite() && self.c > 0.0) {
            return bad("--spsa-c must be a positive number of centipawns");
        }
        if !matches!(self.basis.as_str(), "tables" | "each") {
            return bad("--spsa-basis is `tables` or `each`");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::LoopSettings;
    use crate::gate::Undecided;

    #[test]
    fn uci_options_are_sent_before_the_weights_and_absent_from_old_files() {
        let mut s = LoopSettings::new("engine", "m.json");
        let json = serde_json::to_value(&s).unwrap();
        assert!(
            json.get("uci_options").is_none(),
            "an empty list is not written"
        );
        let old: LoopSettings = serde_json::from_value(json).unwrap();
        assert!(
            old.uci_options.is_empty(),
            "a file without the field reads as none"
        );

        s.uci_options = vec![
            ("Normalize".into(), "false".into()),
            ("Hash".into(), "16".into()),
        ];
        let setup = s.uci_setup();
        assert_eq!(setup.options, s.uci_options);
        let back: LoopSettings = serde_json::from_value(serde_json::to_value(&s).unwrap()).unwrap();
        assert_eq!(back, s);
    }

    #[test]
    fn a_loop_written_before_the_prior_continues_without_it() {
        let s = LoopSettings::new("engine", "m.json");
        assert_eq!(s.prior_positions, texel::traced::PRIOR_POSITIONS);
        let mut json = serde_json::to_value(&s).unwrap();
        assert_eq!(json["prior_positions"], texel::traced::PRIOR_POSITIONS);
        json.as_object_mut().unwrap().remove("prior_positions");
        let old: LoopSettings = serde_json::from_value(json).unwrap();
        assert_eq!(old.prior_positions, 0.0);
        let bad = LoopSettings {
            prior_positions: -1.0,
            ..s
        };
        assert!(bad.validate().is_err());
    }

    #[test]
    fn an_spsa_stage_recorded_before_calibration_reads_as_weight_units() {
        use super::{SpsaSettings, SpsaUnits};
        let old = r#"{"iterations": 400, "pairs": 8, "c": 20.0, "basis": "tables", "only": []}"#;
        let s: SpsaSettings = serde_json::from_str(old).unwrap();
        assert_eq!((s.units, s.c), (SpsaUnits::Weight, 20.0));
        let new = SpsaSettings {
            units: SpsaUnits::Eval,
            c: SpsaUnits::Eval.default_c(),
            ..s.clone()
        };
        let json = serde_json::to_value(&new).unwrap();
        assert_eq!(json["units"], "eval");
        let back: SpsaSettings = serde_json::from_value(json).unwrap();
        assert_eq!(back, new);
        assert_ne!(
            back, s,
            "a stage begun in weight units is not continued in eval units"
        );
    }

    #[test]
    fn undecided_gates_reject_by_default_and_old_files_read_as_ahead() {
        let s = LoopSettings::new("engine", "m.json");
        assert_eq!(s.undecided, Undecided::Reject);
        let mut json = serde_json::to_value(&s).unwrap();
        assert_eq!(json["undecided"], "reject", "the setting is always written");
        assert_eq!(json["vs_start_openings"], 200);
        assert_eq!(json["vs_start_more"], 600);
        let back: LoopSettings = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(back, s);

        // A state file from before: no `undecided` (it ran `ahead`), no `vs_start_openings`,
        // no `vs_start_more` (it played no second part).
        let fields = json.as_object_mut().unwrap();
        fields.remove("undecided");
        fields.remove("vs_start_openings");
        fields.remove("vs_start_more");
        let old: LoopSettings = serde_json::from_value(json).unwrap();
        assert_eq!(old.undecided, Undecided::Ahead);
        assert_eq!(old.vs_start_openings, 200);
        assert_eq!(old.vs_start_more, 0);
        assert_ne!(
            old, s,
            "continuing it asks for --gate-undecided ahead --vs-start-more 0"
        );
    }
}
