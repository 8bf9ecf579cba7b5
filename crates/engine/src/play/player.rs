//! Who plays a match: gradtune's own search over an evaluation, or an external UCI engine.
//!
//! A [`Player`] hands out one [`Mover`] per game. Every [`Evaluator`] is a player (a fresh
//! [`Searcher`] per game, as matches always played); a [`UciPlayer`] is an external engine
//! searching with the same limits; [`MatchPlayer`] is either, as `tune match A B` reads them
//! (`A.json` or `uci:CMD`).

use std::sync::Mutex;
use std::time::Duration;

use shakmaty::{Chess, Move, Position};

use crate::error::EngineError;
use crate::play::options::PlayOptions;
use crate::play::uci_client::{EngineSpec, UciEngine, UciError};
use crate::search::evaluator::{Evaluator, ModelEvaluator};
use crate::search::limits::SearchLimits;
use crate::search::searcher::{SearchResult, Searcher};

/// Chooses the moves of one side in one game.
pub trait Mover {
    /// The move in `pos`, reached from the game's root by `line`, searched within `limits`
    /// (which carry the game clocks under a time control); `history` holds the hashes of the
    /// earlier positions.
    fn choose(
        &mut self,
        pos: &Chess,
        history: &[u64],
        line: &[Move],
        limits: &SearchLimits,
    ) -> SearchResult;
}

/// A match player: one [`Mover`] per game.
pub trait Player: Sync {
    /// A mover for a new game between `root` and the end, with the match's options.
    fn mover<'a>(&'a self, root: &Chess, options: &'a PlayOptions) -> Box<dyn Mover + 'a>;
}

/// gradtune's search, a fresh table per game.
struct SearchMover<'a, E: Evaluator + ?Sized> {
    searcher: Searcher<&'a E>,
}

impl<E: Evaluator + ?Sized> Mover for SearchMover<'_, E> {
    fn choose(
        &mut self,
        pos: &Chess,
        history: &[u64],
        _: &[Move],
        limits: &SearchLimits,
    ) -> SearchResult {
        self.searcher.search(pos, history, limits)
    }
}

impl<E: Evaluator + ?Sized> Player for E {
    fn mover<'a>(&'a self, _: &Chess, options: &'a PlayOptions) -> Box<dyn Mover + 'a> {
        Box::new(SearchMover {
            searcher: Searcher::new(self, options.hash_mb),
        })
    }
}

/// An external UCI engine as a match player: each game gets an engine process (kept in a pool
/// between games), `ucinewgame`, then `position fen ROOT moves ...` and `go` with the match's
/// limits for each move (`go nodes N`, `go movetime MS`, or under a time control `go wtime W
/// btime B winc I binc I [movestogo M]`). An engine that fails (a time-out, a crash, a
/// malformed answer) is restarted and asked again once; failing again, it forfeits the game.
/// Under a time control the engine is waited for at most its clock plus the time-out, and
/// one that runs out of time is not asked again: its flag has fallen (a loss on time). Every
/// failure is recorded ([`UciPlayer::failures`]).
pub struct UciPlayer {
    spec: EngineSpec,
    timeout: Duration,
    pool: Mutex<Vec<UciEngine>>,
    failures: Mutex<Vec<String>>,
    name: String,
}

impl UciPlayer {
    /// Starts one engine (so that a bad command is an error now, not a forfeit per game);
    /// `timeout` is how long one move may take before the engine counts as hung.
    pub fn start(spec: EngineSpec, timeout: Duration) -> Result<UciPlayer, UciError> {
        let engine = spec.start()?;
        let name = engine
            .name()
            .map_or_else(|| spec.command().to_string(), str::to_string);
        Ok(UciPlayer {
            spec,
            timeout,
            pool: Mutex::new(vec![engine]),
            failures: Mutex::new(Vec::new()),
            name,
        })
    }

    /// The name the engine gave (`id name`), else its command.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The failures so far, each naming the engine and what happened.
    pub fn failures(&self) -> Vec<String> {
        self.failures.lock().map(|f| f.clone()).unwrap_or_default()
    }

    fn record(&self, error: &UciError, what: &str) {
        if let Ok(mut f) = self.failures.lock() {
            f.push(format!("{error} ({what})"));
        }
    }

    /// An engine ready for a new game: one from the pool, else a new one.
    fn engine(&self) -> Result<UciEngine, UciError> {
        let pooled = self.pool.lock().ok().and_then(|mut p| p.pop());
        let mut engine = match pooled {
            Some(e) => e,
            None => self.spec.start()?,
        };
        engine.new_game()?;
        Ok(engine)
    }
}

/// One game of a [`UciPlayer`].
struct UciMover<'a> {
    player: &'a UciPlayer,
    engine: Option<UciEngine>,
    root: Chess,
}

/// How long to wait for an answer within `limits`: `timeout`, plus the mover's clock under a
/// time control (the referee judges the flag; this only ends the wait for a hung engine).
fn answer_timeout(pos: &Chess, limits: &SearchLimits, timeout: Duration) -> Duration {
    let clock = limits.clock.map(|c| match pos.turn() {
        shakmaty::Color::White => c.wtime,
        shakmaty::Color::Black => c.btime,
    });
    timeout + clock.unwrap_or(Duration::ZERO)
}

impl UciMover<'_> {
    fn ask(
        &mut self,
        pos: &Chess,
        line: &[Move],
        limits: &SearchLimits,
    ) -> Result<SearchResult, UciError> {
        let engine = match &mut self.engine {
            Some(e) => e,
            None => self.engine.insert(self.player.engine()?),
        };
        let timeout = answer_timeout(pos, limits, self.player.timeout);
        let r = engine.search(&self.root, line, limits, timeout, None)?;
        Ok(SearchResult {
            best_move: r.best_move,
            score: r.score.map_or(0, |s| s.centipawns()),
            depth: r.depth,
            nodes: r.nodes,
            pv: r.best_move.into_iter().collect(),
            elapsed: r.elapsed,
        })
    }
}

impl Mover for UciMover<'_> {
    fn choose(
        &mut self,
        pos: &Chess,
        _: &[u64],
        line: &[Move],
        limits: &SearchLimits,
    ) -> SearchResult {
        for attempt in ["restarted, asked again", "forfeits the game"] {
            match self.ask(pos, line, limits) {
                Ok(r) => return r,
                Err(e) => {
                    // Killed; the next attempt starts a new engine (and `ucinewgame`).
                    self.engine = None;
                    if limits.clock.is_some() && matches!(e, UciError::Timeout { .. }) {
                        self.player.record(&e, "out of time: loses on time");
                        break;
                    }
                    self.player.record(&e, attempt);
                }
            }
        }
        SearchResult {
            best_move: None,
            score: 0,
            depth: 0,
            nodes: 0,
            pv: Vec::new(),
            elapsed: Duration::ZERO,
        }
    }
}

impl Drop for UciMover<'_> {
    fn drop(&mut self) {
        if let (Some(e), Ok(mut pool)) = (self.engine.take(), self.player.pool.lock()) {
            pool.push(e);
        }
    }
}

impl Player for UciPlayer {
    fn mover<'a>(&'a self, root: &Chess, _: &'a PlayOptions) -> Box<dyn Mover + 'a> {
        Box::new(UciMover {
            player: self,
            engine: None,
            root: root.clone(),
        })
    }
}

/// How an external player is set up: the options sent after the handshake and the options
/// the engine must declare (else it does not start: [`UciError::MissingOptions`]).
///
/// ```
/// use engine::play::player::UciSetup;
/// let m = trace::Manifest::from_json(r#"{
///   "format": "gradtune-manifest", "version": 1, "engine": "tiny", "score": "white",
///   "phase": { "max": 24 },
///   "params": [ { "name": "material", "shape": [2], "value": [[100, 120], [300, 280]] } ]
/// }"#, "tiny.json")?;
/// let setup = UciSetup::default().option("Hash", "16").weights(&m)?;
/// assert_eq!(setup.options[1], ("material_0_mg".to_string(), "100".to_string()));
/// assert_eq!(setup.required, ["material_0_mg", "material_0_eg", "material_1_mg", "material_1_eg"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct UciSetup {
    /// `setoption name NAME value VALUE`, in order.
    pub options: Vec<(String, String)>,
    /// Options the engine must declare.
    pub required: Vec<String>,
}

impl UciSetup {
    /// Adds an option to send (not required to be declared, as engines ignore unknown ones).
    pub fn option(mut self, name: impl Into<String>, value: impl Into<String>) -> UciSetup {
        self.options.push((name.into(), value.into()));
        self
    }

    /// Adds every weight of a (tuned) manifest as a `spin` option named by
    /// [`trace::uci_option_name`] with its value rounded to a whole number; each is required.
    pub fn weights(mut self, manifest: &trace::Manifest) -> Result<UciSetup, EngineError> {
        for (name, value) in trace::uci_options(manifest)? {
            self.required.push(name.clone());
            self.options.push((name, value.to_string()));
        }
        Ok(self)
    }

    /// Adds `setoption name OPTION value PATH`: an engine that reads its weights from a file;
    /// `option` is required.
    pub fn weights_file(mut self, option: &str, path: &std::path::Path) -> UciSetup {
        self.required.push(option.to_string());
        self.options
            .push((option.to_string(), path.display().to_string()));
        self
    }

    /// The engine spec of `command` with these options.
    pub fn spec(&self, command: &str) -> EngineSpec {
        let mut spec = EngineSpec::new(command);
        for (name, value) in &self.options {
            spec = spec.option(name, value);
        }
        for name in &self.required {
            spec = spec.require(name);
        }
        spec
    }
}

/// A player of `tune match`: a weights file searched by gradtune, or `uci:CMD`.
pub enum MatchPlayer {
    /// gradtune's search over these weights.
    Search(ModelEvaluator),
    /// An external engine.
    Uci(UciPlayer),
}

impl MatchPlayer {
    /// `uci:CMD ARGS` is an external engine (started now, with `options`, `timeout` a move);
    /// `default` is material only; anything else a weights file.
    pub fn open(
        text: &str,
        options: &[(String, String)],
        timeout: Duration,
    ) -> Result<MatchPlayer, EngineError> {
        let setup = UciSetup {
            options: options.to_vec(),
            required: Vec::new(),
        };
        MatchPlayer::open_with(text, &setup, timeout)
    }

    /// As [`open`](Self::open), an external engine set up by `setup` (its required options
    /// checked now: an engine that does not declare them is an error naming it and them).
    /// A `setup` that requires options is for `uci:` players only (an error otherwise).
    pub fn open_with(
        text: &str,
        setup: &UciSetup,
        timeout: Duration,
    ) -> Result<MatchPlayer, EngineError> {
        if let Some(command) = text.strip_prefix("uci:") {
            let spec = setup.spec(command);
            return Ok(MatchPlayer::Uci(UciPlayer::start(spec, timeout)?));
        }
        if !setup.required.is_empty() {
            return Err(EngineError::Options(format!(
                "`{text}` is searched by gradtune: engine weights and weights files are for `uci:CMD` players"
            )));
        }
        if text == "default" {
            return Ok(MatchPlayer::Search(ModelEvaluator::default_material()));
        }
        Ok(MatchPlayer::Search(ModelEvaluator::load(text.as_ref())?))
    }

    /// The failures of an external engine (none for gradtune's search).
    pub fn failures(&self) -> Vec<String> {
        match self {
            MatchPlayer::Search(_) => Vec::new(),
            MatchPlayer::Uci(u) => u.failures(),
        }
    }
}

impl Player for MatchPlayer {
    fn mover<'a>(&'a self, root: &Chess, options: &'a PlayOptions) -> Box<dyn Mover + 'a> {
        match self {
            MatchPlayer::Search(e) => e.mover(root, options),
            MatchPlayer::Uci(u) => u.mover(root, options),
        }
    }
}
